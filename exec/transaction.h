// exec/transaction.h
//
// Transaction: the one place a session's transaction begins, commits, rolls
// back, keeps savepoints and undoes a failed statement. Everything that
// ends a transaction (COMMIT, ROLLBACK, autocommit, DDL's implicit commit,
// a deadlock victim, session end) comes through here.
//
//   begin        Open(): the engine transaction, at the session's
//                transaction_isolation and innodb_lock_wait_timeout, made
//                on first use (a statement that reads or writes a table).
//   statement    StartStatement() marks the engine's undo and the binlog
//                events; EndStatement() or UndoStatement(mark) after it.
//   COMMIT       Commit(): with binlog events, two-phase with the binlog:
//                  engine Prepare (the xid)
//                  Xid event into the session's events
//                  hooks before_commit
//                  Binlog::Commit (the group commit: flush, sync, and
//                                  after_sync, run by the group's leader
//                                  outside every binlog lock: semisync
//                                  AFTER_SYNC waits there)
//                  engine Commit (its redo need not be synced: the binlog
//                                 holds the decision; recovery reads it)
//                  Binlog::CommitDone, hooks after_commit
//                Without events (or log_bin OFF): the engine commit alone.
//                Any failure before Binlog::Commit returns rolls back
//                (after_rollback); a hook failing after it is logged and
//                the transaction commits.
//   ROLLBACK     Rollback(): the engine undoes, the events are forgotten.
//   DDL          LogDdl(): GTID + Query as a transaction of its own, with
//                the same hooks (DDL commits the open one first).
//
// The write gate (FLUSH TABLES WITH READ LOCK, read_only) and the metadata
// locks are the caller's (exec/table_executor.cc): a Transaction only
// orders the engine, the binlog and the observers.
//
// Thread-safety: one per statement, on the session's statement thread;
// ctx.trx is published for KILL (SessionContext::PublishTrx).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "storage/engine/engine.h"

namespace sluice::exec {

class ExecEnv;
class SessionBinlog;
struct SessionContext;

class Transaction {
 public:
  Transaction(const ExecEnv& env, SessionContext& ctx) : env_(env), ctx_(ctx) {}

  // The session's engine transaction, begun when there is none.
  Result<storage::EngineTrx*> Open();

  // Commits the open transaction (see the file comment) and ends it;
  // nothing open: OK. On error it was rolled back.
  Status Commit();
  // Rolls the open transaction back and ends it.
  Status Rollback();
  // Session end: rolls back, ends; also the metadata locks (the caller
  // releases the server-wide ones).
  void EndSession();

  // Where a statement began, to undo it alone.
  struct Mark {
    storage::UndoPos undo{};
    uint64_t binlog = 0;
  };
  Mark StartStatement(storage::EngineTrx& trx);
  // The statement succeeded: its pending rows event closes (STMT_END_F)
  // and the engine's statement state resets.
  Status EndStatement(storage::EngineTrx& trx);
  // The statement failed: its changes and events go; if that fails, the
  // whole transaction is rolled back.
  void UndoStatement(storage::EngineTrx& trx, const Mark& mark);

  // SAVEPOINT / ROLLBACK TO / RELEASE (1305 for an unknown name).
  // `autocommit`: outside BEGIN a savepoint ends with the statement, so
  // nothing is kept.
  Status Savepoint(const std::string& name, bool autocommit);
  Status RollbackToSavepoint(const std::string& name);
  Status ReleaseSavepoint(const std::string& name);

  // Logs a DDL statement that ran as a transaction of its own. Nothing
  // when log_bin or sql_log_bin is OFF.
  Status LogDdl(std::string_view query);

  // The session's binlog events (made on first use).
  SessionBinlog& events();

 private:
  Status CommitActive(storage::EngineTrx& trx);
  // Ends the session's transaction: the engine transaction goes (rolled
  // back if still active), with its savepoints, events and shared
  // metadata locks.
  void End();

  const ExecEnv& env_;
  SessionContext& ctx_;
};

}  // namespace sluice::exec
