// exec/session_context.h
//
// SessionContext: the SQL-side state of one connection that statements
// read and change (user, database, variables, warnings, transaction,
// prepared statements, kill flag). What only the connection knows
// (capabilities, TLS, the peer, byte counts) is the server's
// (server/session_state.h), so exec/ takes this narrow struct rather than
// the connection.
//
// Thread-safety: the fields are touched by one thread at a time (the
// session's coroutine or the worker running its statement). Exceptions,
// safe from any thread: `killed`, the process-list fields behind `info_mu_`
// (read by SHOW PROCESSLIST in other sessions), and the engine transaction
// as published for KILL behind `trx_mu_`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "exec/lock_wait.h"
#include "exec/metadata_lock.h"
#include "exec/prepared.h"
#include "exec/settings.h"
#include "sql/value.h"

namespace sluice::vars {
class SessionVariables;
class SessionStatus;
}  // namespace sluice::vars
namespace sluice::storage {
class EngineTrx;
}
namespace sluice::acl {
struct Account;
}  // namespace sluice::acl

namespace sluice::exec {

class SessionBinlog;

struct ProcessInfo {
  uint32_t id = 0;
  std::string user;
  std::string host;  // "host:port"
  std::string db;    // empty: NULL
  std::string command = "Connect";
  std::chrono::steady_clock::time_point since;  // of the current command/state
  std::string state;
  std::string info;  // the statement text; empty: NULL
};

struct Warning {
  enum class Level : uint8_t { kNote, kWarning, kError };
  Level level = Level::kWarning;
  uint16_t code = 0;
  std::string message;
};

// A statement's conditions (MySQL's diagnostics area): the first
// max_error_count are kept for SHOW WARNINGS / ERRORS, and every one is
// counted for @@warning_count, @@error_count and the OK packet, however
// many a statement raises (an INSERT IGNORE of a million truncated rows
// keeps 1024 and counts a million). With sql_notes OFF a note is neither
// kept nor counted. RunStatement sets both from the session's settings
// before each statement; clear() keeps them.
class Conditions {
 public:
  static constexpr size_t kDefaultMaxStored = 1024;  // max_error_count's default

  void push_back(Warning w);
  void clear();
  void SetPolicy(size_t max_stored, bool record_notes) {
    max_stored_ = max_stored;
    record_notes_ = record_notes;
  }

  // Raised since the last clear(), kept or not.
  uint64_t total() const { return total_; }
  uint64_t total_errors() const { return errors_; }
  bool empty() const { return total_ == 0; }
  // The kept ones, in the order raised.
  size_t size() const { return kept_.size(); }
  const Warning& operator[](size_t i) const { return kept_[i]; }
  const Warning& back() const { return kept_.back(); }
  std::vector<Warning>::const_iterator begin() const { return kept_.begin(); }
  std::vector<Warning>::const_iterator end() const { return kept_.end(); }

 private:
  std::vector<Warning> kept_;
  uint64_t total_ = 0;
  uint64_t errors_ = 0;
  size_t max_stored_ = kDefaultMaxStored;
  bool record_notes_ = true;
};

enum class KillState : int { kNone = 0, kQuery = 1, kConnection = 2 };

struct SessionContext {
  SessionContext();
  ~SessionContext();

  uint32_t connection_id = 0;
  std::string user;              // as the client sent it
  std::string host;              // "localhost" or the client address
  std::string priv_user;         // the account that matched (CURRENT_USER())
  std::string priv_host;
  std::shared_ptr<const acl::Account> account;
  uint64_t acl_version = 0;      // of AccessControl when `account` was resolved
  std::string db;                // empty: none selected
  uint16_t collation = 255;
  std::unique_ptr<vars::SessionVariables> vars;
  // The typed copy of the variables statements read (exec/settings.h):
  // Settings::Of(), not these fields.
  mutable Settings settings;
  mutable uint64_t settings_version = 0;  // vars->version() when `settings` was read
  mutable uint64_t settings_globals_version = 0;  // SystemVariables::globals_version() then
  std::shared_ptr<vars::SessionStatus> status;
  std::map<std::string, sql::Value> user_vars;  // keys lower-case
  Conditions warnings;                          // of the last statement
  // Set while an INSERT, REPLACE, UPDATE or DELETE runs under a strict
  // sql_mode without IGNORE (StrictStatement): the conditions MySQL's
  // strict mode makes errors end it (SessionEval::Warn).
  bool strict_statement = false;
  uint64_t last_insert_id = 0;
  int64_t row_count = -1;
  uint64_t found_rows = 0;
  bool in_transaction = false;   // BEGIN / START TRANSACTION seen, not yet ended
  bool read_only_transaction = false;  // START TRANSACTION READ ONLY
  // The open engine transaction (TableExecutor), and the metadata locks
  // (exec/metadata_lock.h) this session holds on the tables its statements
  // used (`mdl.id` is `connection_id`). `trx` is the statement thread's
  // only; KILL reaches the transaction from another thread (to cancel a
  // lock wait) through what Transaction::Open and End publish (PublishTrx).
  std::unique_ptr<storage::EngineTrx> trx;
  MetadataLocks::Owner mdl;
  // `trx` as KILL may see it (null: none): published once it is set and
  // withdrawn before it is destroyed. The statement's thread.
  void PublishTrx(storage::EngineTrx* published) EXCLUDES(trx_mu_) {
    MutexLock lock(&trx_mu_);
    published_trx_ = published;
  }
  // Calls `f(storage::EngineTrx&)` with the published transaction, if
  // any; it stays published (End waits to withdraw it) until `f` returns.
  // Any thread.
  template <class F>
  void WithPublishedTrx(F&& f) EXCLUDES(trx_mu_) {
    MutexLock lock(&trx_mu_);
    if (published_trx_ != nullptr) f(*published_trx_);
  }
  // LOCK TABLES held by this session (empty: none); then it may use only
  // these tables (by the same alias), and write only the WRITE ones.
  struct LockedTable {
    std::string schema, name, alias;
    bool write = false;
  };
  std::vector<LockedTable> locked_tables;
  // SAVEPOINTs of the open transaction, oldest first.
  struct Savepoint {
    std::string name;
    uint64_t undo_pos = 0;     // the engine's undo position
    uint64_t binlog_mark = 0;  // the transaction's binlog events so far
  };
  std::vector<Savepoint> savepoints;
  // The open transaction's binlog events (created at the first row change).
  std::unique_ptr<SessionBinlog> binlog;
  // MariaDB's mariadb-binlog (connect attributes program_name=mysqlbinlog,
  // _client_name=libmariadb): it refuses a server whose VERSION() is not
  // 3, 4, 5 or 10.x, so VERSION() answers it with kMariadbBinlogVersion.
  bool mariadb_binlog_client = false;
  // The text of the statement being run (DDL is logged as written).
  std::string_view statement_text;
  // Prepared statements (COM_STMT_PREPARE and SQL PREPARE share them).
  PreparedStatements prepared;

  std::atomic<int> killed{0};  // KillState
  KillState kill_state() const { return static_cast<KillState>(killed.load(std::memory_order_acquire)); }

  // ---- Interrupting the running statement
  // What stops a statement: KILL [QUERY], a vanished client and server
  // shutdown set `killed` (from any thread); max_execution_time gives the
  // statement a deadline. Every loop whose length the data decides (the
  // rows of scans and joins, grouping, sorting, the rows INSERT ... SELECT,
  // UPDATE, DELETE and ALTER's copy write, the regular expression matcher)
  // calls CheckInterrupt() and returns its error: 1317 when killed, 3024
  // when the deadline passed. It is cheap enough to call per row: a relaxed
  // load, and a clock read every kClockEvery calls while a deadline is set.
  // The statement's thread only (the deadline is not shared).
  Status CheckInterrupt() {
    if (killed.load(std::memory_order_relaxed) != 0) return KilledError();
    if (!has_deadline_ || (++interrupt_ticks_ % kClockEvery != 0 && !timed_out_)) return Status::OK();
    return CheckDeadline();
  }
  // A server-level lock wait's outcome (FLUSH TABLES WITH READ LOCK, LOCK
  // TABLES, read_only) as the statement's error: OK when granted, 1205
  // when lock_wait_timeout passed, this session's kill error when killed.
  Status LockWaitError(LockWait wait) const;
  // max_execution_time: the statement fails with 3024 once `deadline`
  // passes; nullopt: no deadline. Set before the statement, cleared after.
  void SetStatementDeadline(std::optional<std::chrono::steady_clock::time_point> deadline);
  std::optional<std::chrono::steady_clock::time_point> statement_deadline() const {
    if (!has_deadline_) return std::nullopt;
    return deadline_;
  }
  // Whether the deadline has passed (reads the clock).
  bool DeadlinePassed();

  // COM_CHANGE_USER: forget the user, database, variables, diagnostics and
  // prepared statements.
  void ResetForChangeUser();

  // The process list row; thread-safe.
  ProcessInfo process_info() const;
  // Copies into the strings the row keeps, which grow to the longest
  // statement (up to 64 KiB) and stay: no allocation per statement.
  void SetCommand(std::string_view command, std::string_view info, std::string_view state = "");
  // Only the state (e.g. "Waiting for table metadata lock"), keeping the
  // command, statement text and time.
  void SetState(std::string state);
  void SetProcessIdentity(std::string user, std::string host, std::string db);
  void SetProcessDb(std::string db);

  uint16_t warning_count() const;
  uint16_t error_count() const;

 private:
  static constexpr uint32_t kClockEvery = 64;
  Status KilledError() const;
  Status CheckDeadline();

  bool has_deadline_ = false;
  bool timed_out_ = false;
  uint32_t interrupt_ticks_ = 0;
  std::chrono::steady_clock::time_point deadline_;

  mutable Mutex info_mu_;
  ProcessInfo info_ GUARDED_BY(info_mu_);

  Mutex trx_mu_;
  storage::EngineTrx* published_trx_ GUARDED_BY(trx_mu_) = nullptr;
};

// Marks the statement in `ctx` strict (SessionContext::strict_statement)
// for its lifetime, when `strict`; the mark it found comes back after.
class StrictStatement {
 public:
  StrictStatement(SessionContext& ctx, bool strict) : ctx_(ctx), was_(ctx.strict_statement) {
    ctx_.strict_statement = strict;
  }
  ~StrictStatement() { ctx_.strict_statement = was_; }
  StrictStatement(const StrictStatement&) = delete;
  StrictStatement& operator=(const StrictStatement&) = delete;

 private:
  SessionContext& ctx_;
  const bool was_;
};

}  // namespace sluice::exec
