// exec/settings.h
//
// Settings: the session variables statement execution reads, typed, read
// from the variable registry once and then kept until the session SETs a
// session value again (vars::SessionVariables::version()), so a statement
// tests a field instead of looking a name up at each hop. Session values
// never follow later global changes, so the copy stays exact.
//
// The globals below (max_allowed_packet, the binlog cache limits,
// binlog_row_metadata) are read again when any global value changed
// (vars::SystemVariables::globals_version()), so a statement sees a SET
// GLOBAL that another session made before it asked, as a read by name would.
//
// Thread-safety: a Settings is a value; Of() uses the session's context on
// its statement thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "binlog/row_event.h"
#include "storage/trx/trx_types.h"

namespace sluice::vars {
class SystemVariables;
class SessionVariables;
}  // namespace sluice::vars

namespace sluice::exec {

struct SessionContext;

struct Settings {
  bool autocommit = true;
  // MySQL's bits (vars/core_vars.h sql_mode::), as binlog Query events
  // carry them.
  uint64_t sql_mode = 0;
  storage::IsolationLevel isolation = storage::IsolationLevel::kRepeatableRead;
  // How long a statement waits for a metadata lock, FLUSH TABLES WITH READ
  // LOCK or LOCK TABLES before 1205.
  std::chrono::milliseconds lock_wait_timeout{std::chrono::seconds(31536000)};
  // A row-lock wait's limit; unset: the engine's default.
  bool has_innodb_lock_wait_timeout = false;
  std::chrono::milliseconds innodb_lock_wait_timeout{0};
  bool sql_log_bin = true;
  // foreign_key_checks (exec/foreign_keys.h); binlog events carry it too.
  bool foreign_key_checks = true;
  binlog::RowImage row_image = binlog::RowImage::kFull;
  // A SELECT's time limit; 0: none.
  std::chrono::milliseconds max_execution_time{0};
  // Conditions a statement keeps for SHOW WARNINGS, and whether notes are
  // raised at all (exec::Conditions).
  size_t max_error_count = 1024;
  bool sql_notes = true;
  // SET TIMESTAMP: the time NOW(), CURRENT_TIMESTAMP and the DEFAULT / ON
  // UPDATE CURRENT_TIMESTAMP columns see (not SYSDATE()); unset: the clock.
  std::optional<std::chrono::system_clock::time_point> fixed_time;
  // What binlog Query events record of the session (binlog::CollationId; 0:
  // unknown), and its time_zone ("" for SYSTEM).
  uint16_t collation_connection = 0;
  uint16_t collation_server = 0;
  std::string time_zone;
  // Seconds (at least 1).
  uint64_t net_read_timeout = 30;
  uint64_t net_write_timeout = 60;
  uint64_t wait_timeout = 28800;
  uint64_t interactive_timeout = 28800;

  // Globals.
  uint64_t max_allowed_packet = 64 << 20;
  uint64_t binlog_cache_size = 32768;
  uint64_t max_binlog_cache_size = UINT64_MAX;
  binlog::RowMetadata row_metadata = binlog::RowMetadata::kMinimal;

  // STRICT_TRANS_TABLES or STRICT_ALL_TABLES (sluice's tables are all
  // transactional, so either makes bad data an error).
  bool strict() const;

  // Reads them (a variable that cannot be read keeps its default above).
  static Settings Read(const vars::SystemVariables& vars, const vars::SessionVariables* session);
  // The session's settings for the statement it runs: read again only when
  // the session SET something since the last read.
  // (The copy lives in the context, mutable: a cache of its variables.)
  // A context with no session variables (ctx.vars null) reads them at each
  // call, as globals.
  static const Settings& Of(const vars::SystemVariables& vars, const SessionContext& ctx);
};

}  // namespace sluice::exec
