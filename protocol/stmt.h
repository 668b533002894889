// protocol/stmt.h
//
// What clients send with the prepared-statement commands (protocol.md
// §6.1): the COM_STMT_EXECUTE header and its parameter block (NULL bitmap,
// new_params_bound_flag, types, values in the binary protocol), and the
// headers of COM_STMT_SEND_LONG_DATA / CLOSE / RESET / FETCH. The server's
// answers (COM_STMT_PREPARE_OK, binary result sets) are in response.h.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "protocol/constants.h"

namespace sluice::protocol {

// COM_STMT_EXECUTE flags (the cursor type, low bits).
enum : uint8_t {
  CURSOR_TYPE_NO_CURSOR = 0,
  CURSOR_TYPE_READ_ONLY = 1,
  CURSOR_TYPE_FOR_UPDATE = 2,
  CURSOR_TYPE_SCROLLABLE = 4,
  PARAMETER_COUNT_AVAILABLE = 8,  // only with CLIENT_QUERY_ATTRIBUTES
};

// COM_STMT_EXECUTE after the command byte: statement_id(4), flags(1),
// iteration_count(4), then `params` (the rest).
struct StmtExecuteHeader {
  uint32_t statement_id = 0;
  uint8_t flags = 0;
  uint32_t iteration_count = 0;
  std::string_view params;  // borrows the packet
};
// False when `body` is shorter than 9 bytes.
bool ParseStmtExecuteHeader(std::string_view body, StmtExecuteHeader* out);

// A parameter's type as the client bound it: type byte, and the UNSIGNED
// bit (0x80) of the flag byte.
struct ParamType {
  ColumnType type = MYSQL_TYPE_NULL;
  bool is_unsigned = false;
  friend bool operator==(const ParamType&, const ParamType&) = default;
};

// One decoded parameter value.
struct ParamValue {
  enum class Kind : uint8_t {
    kNull,      // NULL bit set, or MYSQL_TYPE_NULL
    kInt,       // TINY/SHORT/YEAR/LONG/INT24/LONGLONG without UNSIGNED: `i`
    kUInt,      // the same with UNSIGNED: `u`
    kDouble,    // FLOAT (widened) / DOUBLE: `d`
    kDecimal,   // DECIMAL/NEWDECIMAL: `text` as sent ("-12.50")
    kString,    // VARCHAR/VAR_STRING/STRING/ENUM/SET/JSON/BIT/GEOMETRY: `text`
    kBlob,      // TINY_BLOB..LONG_BLOB: `text`, binary
    kDate,      // DATE: `text` "YYYY-MM-DD"
    kDatetime,  // DATETIME/TIMESTAMP: `text` "YYYY-MM-DD hh:mm:ss[.ffffff]"
    kTime,      // TIME: `text` "[-]hh:mm:ss[.ffffff]" (hours may exceed 24)
    kLongData,  // sent with COM_STMT_SEND_LONG_DATA: no value in the block
  };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string text;
};

// Decodes COM_STMT_EXECUTE's parameter block for `num_params` parameters:
// NULL bitmap ((num_params + 7) / 8 bytes, bit offset 0),
// new_params_bound_flag (1), when 1 the types (2 bytes each), then each
// value that is neither NULL nor long data. `types` holds the previous
// execution's types (empty if none) and is replaced when the flag is 1.
// `long_data[i]` (missing entries: false) marks parameter i as sent with
// COM_STMT_SEND_LONG_DATA; it decodes as kLongData unless its NULL bit is
// set. Errors: 1210 "Incorrect arguments to mysqld_stmt_execute" when the
// block is cut short, the types were never sent, or a type is unknown.
Status DecodeStmtParams(std::string_view block, size_t num_params, const std::vector<bool>& long_data,
                        std::vector<ParamType>* types, std::vector<ParamValue>* values);

// The client side of the same encoding (tests and tools): `values` with
// their `types` (parallel), new_params_bound_flag 1. kNull values set
// their NULL bit; kLongData values are left out.
std::string EncodeStmtParams(const std::vector<ParamType>& types, const std::vector<ParamValue>& values);

// COM_STMT_SEND_LONG_DATA after the command byte: statement_id(4),
// param_id(2), data (the rest). False when shorter than 6 bytes.
struct StmtLongData {
  uint32_t statement_id = 0;
  uint16_t param_id = 0;
  std::string_view data;
};
bool ParseStmtLongData(std::string_view body, StmtLongData* out);

// COM_STMT_FETCH after the command byte: statement_id(4), num_rows(4).
struct StmtFetch {
  uint32_t statement_id = 0;
  uint32_t num_rows = 0;
};
bool ParseStmtFetch(std::string_view body, StmtFetch* out);

}  // namespace sluice::protocol
