// exec/table_locks.h
//
// TableLocks: LOCK TABLES. A session's READ lock on a table lets every
// session read it and holds off other sessions' writes; a WRITE lock holds
// off every other session's reads and writes. Statements of other sessions
// wait (up to lock_wait_timeout, then 1205) when they touch a table another
// session has locked in a conflicting mode; LOCK TABLES itself waits for
// other sessions' conflicting LOCK TABLES. (MySQL's metadata locks also make
// LOCK TABLES wait for other sessions' open transactions on the table; here
// a transaction already under way is not waited for.)
//
// Keys are "schema.table" in lower case. With no lock held anywhere,
// WaitAccess returns at once without taking the mutex (the common case).
//
// Thread-safety: all methods, any thread. Blocking: Lock and WaitAccess
// wait up to `timeout`, or until `*killed` (the waiting session's kill
// flag, when given) is set.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "exec/lock_wait.h"
#include "sql/lexer.h"

namespace sluice::exec {

class TableLocks {
 public:
  // Takes every lock in `keys` ({key, write}) for `session`, or none.
  LockWait Lock(uint32_t session, const std::vector<std::pair<std::string, bool>>& keys,
                std::chrono::milliseconds timeout, const std::atomic<int>* killed = nullptr) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    LockWaiter waiter(timeout, killed);
    while (ConflictsAny(session, keys)) {
      if (!waiter.Wait(&cv_, &mu_)) return waiter.outcome();
    }
    for (const auto& [key, write] : keys) {
      State& s = tables_[key];
      if (write) {
        s.writer = session;
      } else {
        ++s.readers[session];
      }
    }
    held_.fetch_add(keys.size(), std::memory_order_release);
    return LockWait::kGranted;
  }

  // Releases every lock `session` holds.
  void UnlockAll(uint32_t session) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    size_t released = 0;
    for (auto it = tables_.begin(); it != tables_.end();) {
      State& s = it->second;
      if (s.writer == session) {
        s.writer = 0;
        ++released;
      }
      if (auto r = s.readers.find(session); r != s.readers.end()) {
        released += r->second;
        s.readers.erase(r);
      }
      it = s.writer == 0 && s.readers.empty() ? tables_.erase(it) : std::next(it);
    }
    if (released == 0) return;
    held_.fetch_sub(released, std::memory_order_release);
    cv_.NotifyAll();
  }

  // Whether any session holds a lock (a statement need not look further
  // when none does).
  bool AnyHeld() const { return held_.load(std::memory_order_acquire) != 0; }

  // Waits until `session` may read (or write) `key`: no other session
  // holds a WRITE lock on it (or, to write, any lock).
  LockWait WaitAccess(uint32_t session, const std::string& key, bool write, std::chrono::milliseconds timeout,
                      const std::atomic<int>* killed = nullptr) EXCLUDES(mu_) {
    if (!AnyHeld()) return LockWait::kGranted;
    MutexLock lock(&mu_);
    LockWaiter waiter(timeout, killed);
    while (Conflicts(session, key, write)) {
      if (!waiter.Wait(&cv_, &mu_)) return waiter.outcome();
    }
    return LockWait::kGranted;
  }

  static std::string Key(std::string_view schema, std::string_view table) {
    return sql::AsciiLower(schema) + "." + sql::AsciiLower(table);
  }

 private:
  struct State {
    uint32_t writer = 0;                  // session id; 0: none
    std::map<uint32_t, uint32_t> readers;  // session -> READ locks held
  };
  bool Conflicts(uint32_t session, const std::string& key, bool write) const REQUIRES(mu_) {
    auto it = tables_.find(key);
    if (it == tables_.end()) return false;
    const State& s = it->second;
    if (s.writer != 0 && s.writer != session) return true;
    if (!write) return false;
    for (const auto& [reader, n] : s.readers) {
      if (reader != session) return true;
    }
    return false;
  }
  bool ConflictsAny(uint32_t session, const std::vector<std::pair<std::string, bool>>& keys) const REQUIRES(mu_) {
    for (const auto& [key, write] : keys) {
      if (Conflicts(session, key, write)) return true;
    }
    return false;
  }

  Mutex mu_;
  CondVar cv_;
  std::map<std::string, State> tables_ GUARDED_BY(mu_);
  std::atomic<size_t> held_{0};          // locks held, all sessions
};

}  // namespace sluice::exec
