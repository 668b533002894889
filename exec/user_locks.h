// exec/user_locks.h
//
// User-level locks: GET_LOCK, RELEASE_LOCK, RELEASE_ALL_LOCKS,
// IS_FREE_LOCK and IS_USED_LOCK. A lock is a name, server-wide and
// compared without regard to ASCII case, held by one session (its
// connection id) at a time. The holder may take it again and holds it
// until it has released it as often, or until the session ends (or resets
// its connection). Transactions do not touch them.
//
// A session may hold several locks. One that waits for a lock whose
// holder waits, directly or through others, for one of its own would wait
// forever: the wait that would close such a cycle fails at once with 3058
// (ER_USER_LOCK_DEADLOCK), as MySQL 8.0's does; the others go on waiting.
// Every session's acquisitions go through one mutex, so exactly the
// session whose wait closes a cycle sees it.
//
// Thread-safety: all methods may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/function_ref.h"
#include "base/mutex.h"
#include "base/status.h"

namespace sluice::exec {

class UserLocks {
 public:
  // Longest name (in characters, as MySQL counts; bytes here for ASCII).
  static constexpr size_t kMaxNameLength = 64;

  enum class Outcome { kAcquired, kTimedOut, kInterrupted };

  // Takes `name` for session `owner`, waiting until `deadline` (nullopt:
  // for ever). `interrupted` is asked about every 100 ms of waiting (KILL,
  // shutdown): true ends the wait. Errors: 3057 for an empty or too long
  // name, 3058 for a wait that would deadlock.
  Result<Outcome> Acquire(uint64_t owner, std::string_view name,
                          std::optional<std::chrono::steady_clock::time_point> deadline,
                          FunctionRef<bool()> interrupted);
  // Releases one hold of `name`: true when `owner` held it, false when
  // another session holds it, nullopt when nobody does (RELEASE_LOCK's 1,
  // 0 and NULL).
  std::optional<bool> Release(uint64_t owner, std::string_view name);
  // Releases everything `owner` holds; the number of holds released.
  uint64_t ReleaseAll(uint64_t owner);
  // The session holding `name`, if any.
  std::optional<uint64_t> Holder(std::string_view name) const;

  // 3057 unless `name` can name a lock.
  static Status CheckName(std::string_view name);

 private:
  struct Lock {
    uint64_t owner = 0;
    uint64_t count = 0;  // holds; 0: free (and erased)
  };
  static std::string Key(std::string_view name);
  // Whether `owner` waiting for `key` closes a cycle.
  bool WouldDeadlock(uint64_t owner, const std::string& key) const REQUIRES(mu_);

  mutable Mutex mu_;
  CondVar released_;
  std::unordered_map<std::string, Lock> locks_ GUARDED_BY(mu_);
  // session -> the lock it waits for.
  std::unordered_map<uint64_t, std::string> waiting_ GUARDED_BY(mu_);
};

}  // namespace sluice::exec
