#include "exec/user_locks.h"

#include <algorithm>

#include "base/mysql_error.h"
#include "base/strings.h"

namespace sluice::exec {

Status UserLocks::CheckName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameLength) return MakeError(er::kUserLockWrongName, std::string(name));
  return Status::OK();
}

std::string UserLocks::Key(std::string_view name) { return base::AsciiLower(name); }

bool UserLocks::WouldDeadlock(uint64_t owner, const std::string& key) const {
  // Follow holder -> the lock it waits for -> its holder ...: each session
  // waits for at most one lock, so the walk is a path; it is bounded by
  // the number of waiting sessions.
  std::string wanted = key;
  for (size_t steps = 0; steps <= waiting_.size(); ++steps) {
    auto lock = locks_.find(wanted);
    if (lock == locks_.end()) return false;
    const uint64_t holder = lock->second.owner;
    if (holder == owner) return true;
    auto next = waiting_.find(holder);
    if (next == waiting_.end()) return false;
    wanted = next->second;
  }
  return false;
}

Result<UserLocks::Outcome> UserLocks::Acquire(uint64_t owner, std::string_view name,
                                              std::optional<std::chrono::steady_clock::time_point> deadline,
                                              FunctionRef<bool()> interrupted) {
  SLUICE_RETURN_IF_ERROR(CheckName(name));
  const std::string key = Key(name);
  MutexLock l(&mu_);
  for (bool waited = false;; waited = true) {
    Lock& lock = locks_[key];
    if (lock.count == 0 || lock.owner == owner) {
      lock.owner = owner;
      ++lock.count;
      if (waited) waiting_.erase(owner);
      return Outcome::kAcquired;
    }
    if (!waited) {
      if (WouldDeadlock(owner, key)) return MakeError(er::kUserLockDeadlock);
      waiting_[owner] = key;
    }
    const auto now = std::chrono::steady_clock::now();
    const bool timed_out = deadline && now >= *deadline;
    if (timed_out || interrupted()) {
      waiting_.erase(owner);
      return timed_out ? Outcome::kTimedOut : Outcome::kInterrupted;
    }
    auto until = now + std::chrono::milliseconds(100);
    if (deadline) until = std::min(until, *deadline);
    released_.WaitUntil(&mu_, until);
  }
}

std::optional<bool> UserLocks::Release(uint64_t owner, std::string_view name) {
  if (!CheckName(name).ok()) return std::nullopt;
  MutexLock l(&mu_);
  auto it = locks_.find(Key(name));
  if (it == locks_.end() || it->second.count == 0) return std::nullopt;
  if (it->second.owner != owner) return false;
  if (--it->second.count == 0) {
    locks_.erase(it);
    released_.NotifyAll();
  }
  return true;
}

uint64_t UserLocks::ReleaseAll(uint64_t owner) {
  MutexLock l(&mu_);
  uint64_t released = 0;
  for (auto it = locks_.begin(); it != locks_.end();) {
    if (it->second.owner == owner && it->second.count > 0) {
      released += it->second.count;
      it = locks_.erase(it);
    } else {
      ++it;
    }
  }
  if (released > 0) released_.NotifyAll();
  return released;
}

std::optional<uint64_t> UserLocks::Holder(std::string_view name) const {
  MutexLock l(&mu_);
  auto it = locks_.find(Key(name));
  if (it == locks_.end() || it->second.count == 0) return std::nullopt;
  return it->second.owner;
}

}  // namespace sluice::exec
