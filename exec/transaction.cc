#include "exec/transaction.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>

#include "base/log.h"
#include "base/mysql_error.h"
#include "binlog/binlog.h"
#include "exec/exec_env.h"
#include "exec/metadata_lock.h"
#include "exec/session_binlog.h"
#include "exec/session_context.h"
#include "exec/settings.h"
#include "sql/lexer.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

namespace {

// A hook after the transaction is in the binlog cannot undo it: the
// transaction commits, and the failure goes to the error log (MySQL's
// "Failed to run 'after_commit' hooks").
void LogHookFailure(std::string_view hook, const Status& s, const binlog::Binlog::CommitResult& written) {
  if (s.ok()) return;
  if (auto log = base::GetLogger("server")) {
    log->error("Failed to run '{}' hooks for the transaction ending at {}:{}: {}", hook, written.file, written.end,
               s.message());
  }
}

// The engine commit (`commit`; after_sync ran inside Binlog::Commit), the
// binlog's CommitDone, then after_commit (the AFTER_COMMIT wait point: the
// client's OK waits).
Status AfterBinlogCommit(const ExecEnv& env, uint32_t connection_id, const binlog::Binlog::CommitResult& written,
                         const std::function<Status()>& commit) {
  TransactionHooks& hooks = env.hooks();
  Status s = commit ? commit() : Status::OK();
  env.binlog()->CommitDone();
  TransactionHooks::Param param;
  param.connection_id = connection_id;
  char gtid_text[binlog::kGtidTextMax];
  if (written.gno != 0) param.gtid = binlog::FormatGtid(written.sid, written.gno, gtid_text);
  param.log_file = written.file;
  param.log_pos = written.end;
  LogHookFailure("after_commit", hooks.AfterCommit(param), written);
  return s;
}

// The savepoint named `name` (case-insensitive, as MySQL), or end().
auto FindSavepoint(SessionContext& ctx, const std::string& name) {
  return std::find_if(ctx.savepoints.begin(), ctx.savepoints.end(),
                      [&](const auto& sp) { return sql::AsciiLower(sp.name) == sql::AsciiLower(name); });
}

}  // namespace

SessionBinlog& Transaction::events() {
  if (!ctx_.binlog) ctx_.binlog = std::make_unique<SessionBinlog>();
  return *ctx_.binlog;
}

Result<storage::EngineTrx*> Transaction::Open() {
  if (ctx_.trx) return ctx_.trx.get();
  const Settings& settings = Settings::Of(env_.sys_vars(), ctx_);
  ctx_.trx = env_.engine().Begin(settings.isolation);
  ctx_.PublishTrx(ctx_.trx.get());
  if (settings.has_innodb_lock_wait_timeout) ctx_.trx->set_lock_wait_timeout(settings.innodb_lock_wait_timeout);
  return ctx_.trx.get();
}

void Transaction::End() {
  ctx_.PublishTrx(nullptr);  // KILL no longer reaches it
  ctx_.trx.reset();  // rolls back one still active, outside the mutex KILL takes
  ctx_.savepoints.clear();
  if (ctx_.binlog) ctx_.binlog->Clear();
  if (ctx_.mdl.MayHold()) env_.metadata_locks().ReleaseShared(ctx_.mdl);
}

Status Transaction::Commit() {
  if (!ctx_.trx) return Status::OK();
  Status s = ctx_.trx->active() ? CommitActive(*ctx_.trx) : Status::OK();
  // A failure left it active only where nothing rolled it back yet.
  if (!s.ok() && ctx_.trx->active()) (void)env_.engine().Rollback(*ctx_.trx);
  End();
  return s;
}

Status Transaction::CommitActive(storage::EngineTrx& trx) {
  storage::Engine& engine = env_.engine();
  binlog::Binlog* bl = env_.binlog();
  SessionBinlog* events = ctx_.binlog.get();
  if (events != nullptr) SLUICE_RETURN_IF_ERROR(events->Seal());
  if (bl == nullptr || events == nullptr || !events->has_events()) return engine.Commit(trx);

  const uint64_t xid = bl->NextXid();
  // The prepare's redo is made durable by the binlog group's leader, once
  // for the group, before it writes the group (binlog::EngineFlush).
  uint64_t flush_mark = 0;
  Status s = engine.Prepare(trx, std::to_string(xid), bl->flushes_engine() ? &flush_mark : nullptr);
  if (s.ok()) s = events->AppendXid(env_, xid);
  TransactionHooks& hooks = env_.hooks();
  TransactionHooks::Param param;
  param.connection_id = ctx_.connection_id;
  if (s.ok()) s = hooks.BeforeCommit(param);
  binlog::Binlog::CommitResult written;
  if (s.ok()) s = bl->Commit(events->cache(), BinlogTimestamp(), &written, flush_mark);
  if (!s.ok()) {
    (void)engine.Rollback(trx);
    (void)hooks.AfterRollback(param);
    return s;
  }
  events->CountCacheUse();
  // Written and synced, not yet visible to other sessions; the next group
  // is flushing meanwhile.
  return AfterBinlogCommit(env_, ctx_.connection_id, written,
                           [&] { return engine.Commit(trx, /*decided_elsewhere=*/true); });
}

Status Transaction::Rollback() {
  if (!ctx_.trx) return Status::OK();
  Status s = ctx_.trx->active() ? env_.engine().Rollback(*ctx_.trx) : Status::OK();
  End();
  return s;
}

void Transaction::EndSession() {
  if (ctx_.trx && ctx_.trx->active()) (void)env_.engine().Rollback(*ctx_.trx);
  End();
  env_.metadata_locks().ReleaseAll(ctx_.mdl);
}

Transaction::Mark Transaction::StartStatement(storage::EngineTrx& trx) {
  return Mark{env_.engine().Savepoint(trx), events().Mark()};
}

Status Transaction::EndStatement(storage::EngineTrx& trx) {
  SLUICE_RETURN_IF_ERROR(events().EndStatement());
  env_.engine().EndStatement(trx);
  return Status::OK();
}

void Transaction::UndoStatement(storage::EngineTrx& trx, const Mark& mark) {
  Status s = env_.engine().RollbackToSavepoint(trx, mark.undo);
  if (s.ok()) s = events().RollbackTo(mark.binlog);
  if (!s.ok()) (void)Rollback();
}

Status Transaction::Savepoint(const std::string& name, bool autocommit) {
  if (autocommit && !ctx_.in_transaction && !ctx_.trx) return Status::OK();
  Result<storage::EngineTrx*> trx = Open();
  if (!trx.ok()) return trx.status();
  if (auto it = FindSavepoint(ctx_, name); it != ctx_.savepoints.end()) ctx_.savepoints.erase(it);
  ctx_.savepoints.push_back({name, env_.engine().Savepoint(**trx), events().Mark()});
  return Status::OK();
}

Status Transaction::RollbackToSavepoint(const std::string& name) {
  auto it = FindSavepoint(ctx_, name);
  if (it == ctx_.savepoints.end() || !ctx_.trx) return MakeError(er::kSpDoesNotExist, "SAVEPOINT", name);
  SLUICE_RETURN_IF_ERROR(env_.engine().RollbackToSavepoint(*ctx_.trx, it->undo_pos));
  SLUICE_RETURN_IF_ERROR(events().RollbackTo(it->binlog_mark));
  ctx_.savepoints.erase(it + 1, ctx_.savepoints.end());  // later ones go, this one stays
  return Status::OK();
}

Status Transaction::ReleaseSavepoint(const std::string& name) {
  auto it = FindSavepoint(ctx_, name);
  if (it == ctx_.savepoints.end()) return MakeError(er::kSpDoesNotExist, "SAVEPOINT", name);
  ctx_.savepoints.erase(it, ctx_.savepoints.end());
  return Status::OK();
}

Status Transaction::LogDdl(std::string_view query) {
  binlog::Binlog* bl = env_.binlog();
  if (bl == nullptr) return Status::OK();
  Result<std::unique_ptr<binlog::TransactionCache>> cache = SessionBinlog::DdlEvents(env_, ctx_, query);
  if (!cache.ok()) return cache.status();
  if (*cache == nullptr) return Status::OK();  // sql_log_bin = 0
  binlog::Binlog::CommitResult written;
  SLUICE_RETURN_IF_ERROR(bl->Commit(**cache, BinlogTimestamp(), &written));
  return AfterBinlogCommit(env_, ctx_.connection_id, written, nullptr);
}

}  // namespace sluice::exec
