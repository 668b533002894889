// protocol/response.h
//
// Server responses: OK, ERR, EOF, column definitions and text and binary
// result-set rows, per the client's negotiated capabilities (protocol.md
// §4-§5). A result set is a list of payloads; the session frames them with
// consecutive sequence ids.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "protocol/constants.h"

namespace sluice::protocol {

struct OkPacket {
  uint64_t affected_rows = 0;
  uint64_t last_insert_id = 0;
  uint16_t status_flags = 0;
  uint16_t warnings = 0;
  std::string info;  // omitted from the packet when empty
};

// `capabilities`: the effective (negotiated) ones. `eof_header` writes 0xFE
// instead of 0x00 (the result-set terminator under CLIENT_DEPRECATE_EOF).
std::string EncodeOk(const OkPacket& ok, uint32_t capabilities, bool eof_header = false);

// ERR packet from a non-OK Status (its errno, SQLSTATE and message). With
// `protocol41` false (before the client's capabilities are known) the
// '#SQLSTATE' part is left out.
std::string EncodeErr(const Status& status, bool protocol41 = true);
std::string EncodeErr(uint16_t code, std::string_view sqlstate, std::string_view message,
                      bool protocol41 = true);

std::string EncodeEof(uint16_t warnings, uint16_t status_flags);

// True for an EOF / OK-as-terminator payload (0xFE and shorter than 9 bytes).
bool IsEofPacket(std::string_view payload);

struct ColumnDefinition {
  std::string schema;
  std::string table;
  std::string org_table;
  std::string name;
  std::string org_name;
  uint16_t collation = kCollationUtf8mb4_0900_ai_ci;  // 63 (binary) for numbers
  uint32_t length = 0;
  ColumnType type = MYSQL_TYPE_VAR_STRING;
  uint16_t flags = 0;
  uint8_t decimals = 0;  // 0x1F for "not fixed" (strings, DOUBLE)
};

std::string EncodeColumnDefinition(const ColumnDefinition& c);

// One text row: each value a lenenc string, nullopt as 0xFB.
std::string EncodeTextRow(const std::vector<std::optional<std::string>>& values);

// The whole text result set: column count, definitions, [EOF], rows,
// terminator (EOF, or OK with 0xFE header under CLIENT_DEPRECATE_EOF).
std::vector<std::string> EncodeTextResultSet(
    const std::vector<ColumnDefinition>& columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows, uint32_t capabilities,
    uint16_t status_flags, uint16_t warnings);

}  // namespace sluice::protocol
