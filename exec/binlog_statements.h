// exec/binlog_statements.h
//
// The SQL statements over the binary log: SHOW BINARY LOGS, SHOW MASTER
// STATUS, SHOW BINLOG EVENTS, PURGE BINARY LOGS and RESET MASTER, with
// mysqld 8.0's columns, texts and error numbers. FLUSH BINARY LOGS is
// binlog::Binlog::Rotate() (1381 when log_bin is OFF there).
//
// Each function takes the server's binlog (Server::binlog(): null when
// log_bin is OFF) and does no privilege check, no Com_* counting and no
// implicit commit: the executor's dispatch does those (see each function).
//
// Thread-safety: as binlog::Binlog (any session may call these at once).
#pragma once

#include <cstdint>
#include <optional>

#include "base/status.h"
#include "exec/result_set.h"
#include "sql/ast.h"

namespace sluice::binlog {
class Binlog;
}

namespace sluice::exec {

// SHOW {BINARY | MASTER} LOGS: Log_name, File_size, Encrypted ("No"), one
// row per file in the index, oldest first. The active file's size is the
// published end (as SHOW MASTER STATUS's Position). 1381 "You are not using
// binary logging" when `binlog` is null.
// mysqld: SUPER or REPLICATION CLIENT.
Result<ResultSet> ShowBinaryLogs(binlog::Binlog* binlog);

// SHOW MASTER STATUS / SHOW BINARY LOG STATUS: File, Position,
// Binlog_Do_DB, Binlog_Ignore_DB, Executed_Gtid_Set (one row; no rows when
// `binlog` is null, as mysqld with log_bin OFF). The GTID set is written as
// mysqld does: "uuid:1-5:7,\nuuid2:1" ("" when empty).
// mysqld: SUPER or REPLICATION CLIENT.
ResultSet ShowMasterStatus(binlog::Binlog* binlog);

// SHOW BINLOG EVENTS [IN 'log'] [FROM pos] [LIMIT [offset,] count]:
// Log_name, Pos, Event_type, Server_id, End_log_pos, Info. `limit` and
// `offset` are the evaluated LIMIT (UINT64_MAX and 0 when absent). Reads
// `s.log_name` (the first file in the index when empty) from `s.from_pos`
// (at least 4), the active file only up to the published end. Errors, all
// 1220 "Error when executing command SHOW BINLOG EVENTS: <why>":
//   "Could not find target log"   the file is not in the index (or
//                                 log_bin is OFF and a file is named)
//   "Could not open log file"     in the index but not readable
//   "Wrong offset or I/O error"   FROM is past the end or not at an event
//                                 boundary, or a bad event is met before
//                                 LIMIT is reached
// With log_bin OFF and no IN: an empty result, as mysqld.
// mysqld: REPLICATION SLAVE.
Result<ResultSet> ShowBinlogEvents(binlog::Binlog* binlog, const sql::ShowStmt& s, uint64_t limit = UINT64_MAX,
                                   uint64_t offset = 0);

// PURGE {BINARY | MASTER} LOGS TO 'name' | BEFORE expr. For BEFORE the
// caller evaluates UNIX_TIMESTAMP(s.before) (in the session time zone;
// 1210 "Incorrect arguments to PURGE LOGS BEFORE" when it is not a scalar)
// and passes it as `before_unix_seconds` (ignored for TO). Never removes
// the active file. TO an unknown file: 1373 "Target log not found in
// binlog index". OK (nothing done) when `binlog` is null, as mysqld.
// mysqld: SUPER or BINLOG_ADMIN; implicit commit.
Status PurgeBinaryLogs(binlog::Binlog* binlog, const sql::PurgeBinaryLogsStmt& s, int64_t before_unix_seconds = 0);

// RESET MASTER [TO n] / RESET BINARY LOGS AND GTIDS [TO n]: removes every
// binlog file, empties gtid_executed and gtid_purged and starts again at
// <basename>.000001 (or .n; the parser has checked 1 <= n <= 2000000000).
// OK when `binlog` is null (mysqld then only clears its GTID state).
// mysqld: RELOAD; implicit commit; runs under the global read lock (taken
// for the statement unless the session already holds it).
Status ResetMaster(binlog::Binlog* binlog, std::optional<uint64_t> to);

}  // namespace sluice::exec
