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
#include "protocol/payloads.h"
#include "protocol/text_rows.h"

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
void AppendColumnDefinition(const ColumnDefinition& c, std::string* out);

// One text row: each value a lenenc string, nullopt as 0xFB.
std::string EncodeTextRow(const std::vector<std::optional<std::string>>& values);

// The whole text result set: column count, definitions, [EOF], rows,
// terminator (EOF, or OK with 0xFE header under CLIENT_DEPRECATE_EOF).
std::vector<std::string> EncodeTextResultSet(
    const std::vector<ColumnDefinition>& columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows, uint32_t capabilities,
    uint16_t status_flags, uint16_t warnings);
// The same appended to `out`, from rows already in their text form (what
// the server sends; the vector form is for tests).
void AppendTextResultSet(const std::vector<ColumnDefinition>& columns, const TextRows& rows,
                         uint32_t capabilities, uint16_t status_flags, uint16_t warnings, Payloads* out);

// ---------------------------------------------------------------- prepared
// statements (protocol.md §6.1)

// COM_STMT_PREPARE's answer: COM_STMT_PREPARE_OK (0x00, statement id,
// column count, parameter count, 0x00, warning count), then one definition
// per parameter and [EOF], then the result columns and [EOF] (no EOFs under
// CLIENT_DEPRECATE_EOF; none for an empty list).
std::vector<std::string> EncodeStmtPrepareOk(uint32_t statement_id, uint16_t num_params,
                                             const std::vector<ColumnDefinition>& columns,
                                             uint32_t capabilities, uint16_t status_flags,
                                             uint16_t warnings);
void AppendStmtPrepareOk(uint32_t statement_id, uint16_t num_params, const std::vector<ColumnDefinition>& columns,
                         uint32_t capabilities, uint16_t status_flags, uint16_t warnings, Payloads* out);

// The definition mysqld sends for each '?' at prepare time: name "?",
// MYSQL_TYPE_VAR_STRING, binary character set, BINARY_FLAG, length 0.
ColumnDefinition ParamColumnDefinition();

// Appends the binary-protocol form of one non-NULL value, given in its text
// (text-protocol) form, for a column of `type` (UNSIGNED_FLAG in `flags`
// picks how integers are read):
//   TINY 1, SHORT/YEAR 2, LONG/INT24 4, LONGLONG 8 bytes little-endian;
//   FLOAT 4 / DOUBLE 8 bytes IEEE;
//   DATE/DATETIME/TIMESTAMP: length 0, 4, 7 or 11 then year(2) month day
//   [hour minute second] [microsecond(4)], the shortest that holds the value;
//   TIME: length 0, 8 or 12 then negative(1) days(4) hour minute second
//   [microsecond(4)];
//   everything else (DECIMAL, strings, BLOBs, ENUM, SET, JSON, BIT, NULL
//   type): a lenenc string.
// False (and `out` unchanged) when `text` is not a value of that type, e.g.
// "abc" for LONGLONG, "2024-13-01" for DATE.
bool AppendBinaryValue(ColumnType type, uint16_t flags, std::string_view text, std::string* out);

// One binary row: 0x00, the NULL bitmap ((n + 7 + 2) / 8 bytes, bit offset
// 2), then each non-NULL value as AppendBinaryValue writes it. A value that
// does not fit its column type is written as a lenenc string (callers use
// EncodeBinaryResultSet, which retypes such columns first).
std::string EncodeBinaryRow(const std::vector<ColumnDefinition>& columns,
                            const std::vector<std::optional<std::string>>& row);

// The whole binary result set (COM_STMT_EXECUTE): column count,
// definitions, [EOF], binary rows, terminator (EOF, or OK with 0xFE header
// under CLIENT_DEPRECATE_EOF). The rows arrive in text form, as for
// EncodeTextResultSet. A column whose values do not all fit its numeric or
// temporal type (a computed column typed from its first value) is sent as
// MYSQL_TYPE_VAR_STRING instead, so the definition and the values agree.
std::vector<std::string> EncodeBinaryResultSet(
    std::vector<ColumnDefinition> columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows, uint32_t capabilities,
    uint16_t status_flags, uint16_t warnings);
void AppendBinaryResultSet(std::vector<ColumnDefinition> columns, const TextRows& rows, uint32_t capabilities,
                           uint16_t status_flags, uint16_t warnings, Payloads* out);

}  // namespace sluice::protocol
