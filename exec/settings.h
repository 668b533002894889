// exec/settings.h
//
// Settings: the session variables statement execution reads, typed, read
// from the variable registry once and then kept until the session SETs a
// session value again (vars::SessionVariables::version()), so a statement
// tests a field instead of looking a name up at each hop. Session values
// never follow later global changes, so the copy stays exact.
//
// Global-only variables (binlog_cache_size, binlog_row_metadata) are not
// here: another session may change them at any time; they are read where
// used, once per transaction.
//
// Thread-safety: a Settings is a value; Of() uses the session's context on
// its statement thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

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
  binlog::RowImage row_image = binlog::RowImage::kFull;
  // A SELECT's time limit; 0: none.
  std::chrono::milliseconds max_execution_time{0};
  // SET TIMESTAMP: the time NOW(), CURRENT_TIMESTAMP and the DEFAULT / ON
  // UPDATE CURRENT_TIMESTAMP columns see (not SYSDATE()); unset: the clock.
  std::optional<std::chrono::system_clock::time_point> fixed_time;

  // STRICT_TRANS_TABLES or STRICT_ALL_TABLES (sluice's tables are all
  // transactional, so either makes bad data an error).
  bool strict() const;

  // Reads them (a variable that cannot be read keeps its default above).
  static Settings Read(const vars::SystemVariables& vars, const vars::SessionVariables* session);
  // The session's settings for the statement it runs: read again only when
  // the session SET something since the last read.
  // (The copy lives in the context, mutable: a cache of its variables.)
  static const Settings& Of(const vars::SystemVariables& vars, const SessionContext& ctx);
};

}  // namespace sluice::exec
