// exec/global_read_lock.h
//
// GlobalReadLock: FLUSH TABLES WITH READ LOCK. While one session holds it,
// other sessions' writes (INSERT/UPDATE/DELETE/DDL, and the COMMIT of a
// transaction that wrote) wait for UNLOCK TABLES; taking it waits until no
// write is in progress. CDC tools take it to read a consistent snapshot
// together with the binlog position.
//
// Thread-safety: all methods, any thread. Blocking: Lock and BeginWrite wait
// up to `timeout` (lock_wait_timeout), or until `*killed` (the waiting
// session's kill flag, when given) is set.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/mutex.h"
#include "exec/lock_wait.h"

namespace sluice::exec {

class GlobalReadLock {
 public:
  // FLUSH TABLES WITH READ LOCK by `session` (idempotent for the holder).
  LockWait Lock(uint32_t session, std::chrono::milliseconds timeout, const std::atomic<int>* killed = nullptr)
      EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (holder_ == session) return LockWait::kGranted;
    ++waiting_;
    LockWaiter waiter(timeout, killed);
    while (!(holder_ == 0 && writers_ == 0)) {
      if (!waiter.Wait(&cv_, &mu_)) break;
    }
    --waiting_;
    const LockWait got = waiter.outcome();
    if (got == LockWait::kGranted) holder_ = session;
    cv_.NotifyAll();
    return got;
  }
  // UNLOCK TABLES (or session end); a no-op when `session` does not hold it.
  void Unlock(uint32_t session) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (holder_ != session) return;
    holder_ = 0;
    cv_.NotifyAll();
  }
  bool HeldBy(uint32_t session) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return holder_ == session;
  }
  // A write by `session` starts / ends. A pending Lock holds off new writers.
  LockWait BeginWrite(uint32_t session, std::chrono::milliseconds timeout, const std::atomic<int>* killed = nullptr)
      EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    LockWaiter waiter(timeout, killed);
    while (!(holder_ == 0 && waiting_ == 0)) {
      if (!waiter.Wait(&cv_, &mu_)) return waiter.outcome();
    }
    ++writers_;
    return LockWait::kGranted;
  }
  void EndWrite() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (--writers_ == 0) cv_.NotifyAll();
  }

 private:
  Mutex mu_;
  CondVar cv_;
  uint32_t holder_ GUARDED_BY(mu_) = 0;  // session id, 0: none
  uint64_t writers_ GUARDED_BY(mu_) = 0;
  uint64_t waiting_ GUARDED_BY(mu_) = 0;
};

}  // namespace sluice::exec
