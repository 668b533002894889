#include "exec/session_context.h"

#include "exec/session_binlog.h"

#include "base/mysql_error.h"
#include "base/scratch.h"

#include "storage/engine/engine.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

SessionContext::SessionContext() { info_.since = std::chrono::steady_clock::now(); }
SessionContext::~SessionContext() = default;

ProcessInfo SessionContext::process_info() const {
  MutexLock lock(&info_mu_);
  ProcessInfo copy = info_;
  copy.id = connection_id;
  return copy;
}

void SessionContext::SetCommand(std::string_view command, std::string_view info, std::string_view state) {
  // A long statement's text is not kept for the session's later ones (and
  // is freed after the lock).
  std::string drop;
  MutexLock lock(&info_mu_);
  info_.command.assign(command);
  if (info_.info.capacity() > kKeptScratchBytes && info.size() <= kKeptScratchBytes) drop.swap(info_.info);
  info_.info.assign(info);
  info_.state.assign(state);
  info_.since = std::chrono::steady_clock::now();
}

void SessionContext::SetState(std::string state) {
  MutexLock lock(&info_mu_);
  info_.state = std::move(state);
}

void SessionContext::SetProcessIdentity(std::string user, std::string host, std::string db) {
  MutexLock lock(&info_mu_);
  info_.user = std::move(user);
  info_.host = std::move(host);
  info_.db = std::move(db);
}

void SessionContext::SetProcessDb(std::string db) {
  MutexLock lock(&info_mu_);
  info_.db = std::move(db);
}

void SessionContext::ResetForChangeUser() {
  account.reset();
  priv_user.clear();
  priv_host.clear();
  db.clear();
  vars.reset();
  status.reset();
  user_vars.clear();
  warnings.clear();
  last_insert_id = 0;
  row_count = -1;
  found_rows = 0;
  in_transaction = false;
  prepared.Clear();
  SetProcessIdentity("unauthenticated user", process_info().host, "");
}

Status SessionContext::LockWaitError(LockWait wait) const {
  switch (wait) {
    case LockWait::kGranted: return Status::OK();
    case LockWait::kTimedOut: return MakeError(er::kLockWaitTimeout);
    case LockWait::kKilled: break;
  }
  return KilledError();
}

Status SessionContext::KilledError() const {
  // KILL QUERY and KILL CONNECTION alike: the client of a killed connection
  // never reads it (its socket is closed), as with a vanished client.
  return MakeError(er::kQueryInterrupted);
}

void SessionContext::SetStatementDeadline(std::optional<std::chrono::steady_clock::time_point> deadline) {
  has_deadline_ = deadline.has_value();
  if (deadline) deadline_ = *deadline;
  timed_out_ = false;
  interrupt_ticks_ = 0;
}

bool SessionContext::DeadlinePassed() {
  if (!has_deadline_) return false;
  if (!timed_out_ && std::chrono::steady_clock::now() >= deadline_) timed_out_ = true;
  return timed_out_;
}

Status SessionContext::CheckDeadline() {
  if (DeadlinePassed()) return MakeError(er::kQueryTimeout);
  return Status::OK();
}

void Conditions::push_back(Warning w) {
  if (w.level == Warning::Level::kNote && !record_notes_) return;
  ++total_;
  errors_ += w.level == Warning::Level::kError;
  if (kept_.size() < max_stored_) kept_.push_back(std::move(w));
}

void Conditions::clear() {
  kept_.clear();
  total_ = 0;
  errors_ = 0;
}

uint16_t SessionContext::warning_count() const {
  return static_cast<uint16_t>(std::min<uint64_t>(warnings.total(), 65535));
}

uint16_t SessionContext::error_count() const {
  return static_cast<uint16_t>(std::min<uint64_t>(warnings.total_errors(), 65535));
}

}  // namespace sluice::exec
