// protocol/command.h
//
// The bodies (the bytes after the command byte) of the small COM_* commands
// the server decodes: COM_PROCESS_KILL, COM_SET_OPTION, COM_FIELD_LIST,
// COM_REGISTER_SLAVE, COM_STMT_CLOSE / COM_STMT_RESET, COM_BINLOG_DUMP and
// COM_BINLOG_DUMP_GTID. COM_STMT_EXECUTE, COM_STMT_SEND_LONG_DATA and
// COM_STMT_FETCH are in stmt.h, COM_CHANGE_USER in handshake.h; COM_QUERY,
// COM_STMT_PREPARE and COM_INIT_DB carry plain text.
//
// Kept here, bytes only, so that every decoder a client can reach is one
// pure function over a string_view (unit tests and fuzz/fuzz_command.cc
// drive them without a server). Each is bounds-checked: a short or lying
// body is the Status mysqld answers with, never a read past the end.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"

namespace sluice::protocol {

// COM_PROCESS_KILL: connection id (4). 1835 when shorter.
Result<uint32_t> ParseProcessKill(std::string_view body);

// COM_SET_OPTION: option (2), 0 = MYSQL_OPTION_MULTI_STATEMENTS_ON,
// 1 = ..._OFF. 1047 (Unknown command) when shorter or another value, as
// mysqld answers.
Result<uint16_t> ParseSetOption(std::string_view body);

// COM_FIELD_LIST: table NUL-terminated (or up to the end), then the column
// wildcard (the rest). Never fails.
struct FieldList {
  std::string_view table;     // borrows the body
  std::string_view wildcard;  // borrows the body
};
FieldList ParseFieldList(std::string_view body);

// COM_STMT_CLOSE / COM_STMT_RESET: statement_id (4). 1835 when shorter.
Result<uint32_t> ParseStatementId(std::string_view body);

// COM_REGISTER_SLAVE: server_id (4), hostname, user, password (each a
// 1-byte length and that many bytes), port (2), then optionally
// replication_rank (4) and source_id (4). 1835 when cut short before the
// port.
struct RegisterReplica {
  uint32_t server_id = 0;
  std::string_view host, user, password;  // borrow the body
  uint16_t port = 0;
  uint32_t rank = 0;
  uint32_t source_id = 0;  // 0: not sent
};
Result<RegisterReplica> ParseRegisterReplica(std::string_view body);

// COM_BINLOG_DUMP: position (4), flags (2), server_id (4), file name (the
// rest; trailing NULs dropped). COM_BINLOG_DUMP_GTID: flags (2), server_id
// (4), name length (4), file name, position (8), then, when 4 more bytes
// are there, the GTID set's size (4) and the set in its binary form
// (binlog::GtidSet::Decode reads `gtid_data`). 1835 when cut short or when
// a length points past the end.
struct BinlogDumpRequest {
  bool gtid = false;  // COM_BINLOG_DUMP_GTID
  uint16_t flags = 0;
  uint32_t server_id = 0;
  std::string_view file;  // borrows the body; "" = the first file
  uint64_t position = 4;
  bool has_gtid_data = false;  // COM_BINLOG_DUMP_GTID with the set's size field
  std::string_view gtid_data;  // the encoded set; borrows the body
};
Result<BinlogDumpRequest> ParseBinlogDump(std::string_view body);
Result<BinlogDumpRequest> ParseBinlogDumpGtid(std::string_view body);

}  // namespace sluice::protocol
