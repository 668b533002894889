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

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include "exec/lock_wait.h"

namespace sluice::exec {

class GlobalReadLock {
 public:
  // FLUSH TABLES WITH READ LOCK by `session` (idempotent for the holder).
  LockWait Lock(uint32_t session, std::chrono::milliseconds timeout, const std::atomic<int>* killed = nullptr) {
    std::unique_lock lock(mu_);
    if (holder_ == session) return LockWait::kGranted;
    ++waiting_;
    const LockWait got = WaitForLock(cv_, lock, timeout, killed, [this] { return holder_ == 0 && writers_ == 0; });
    --waiting_;
    if (got == LockWait::kGranted) holder_ = session;
    cv_.notify_all();
    return got;
  }
  // UNLOCK TABLES (or session end); a no-op when `session` does not hold it.
  void Unlock(uint32_t session) {
    std::lock_guard lock(mu_);
    if (holder_ != session) return;
    holder_ = 0;
    cv_.notify_all();
  }
  bool HeldBy(uint32_t session) {
    std::lock_guard lock(mu_);
    return holder_ == session;
  }
  // A write by `session` starts / ends. A pending Lock holds off new writers.
  LockWait BeginWrite(uint32_t session, std::chrono::milliseconds timeout, const std::atomic<int>* killed = nullptr) {
    std::unique_lock lock(mu_);
    const LockWait got = WaitForLock(cv_, lock, timeout, killed, [&] { return holder_ == 0 && waiting_ == 0; });
    if (got == LockWait::kGranted) ++writers_;
    return got;
  }
  void EndWrite() {
    std::lock_guard lock(mu_);
    if (--writers_ == 0) cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint32_t holder_ = 0;   // GUARDED_BY(mu_); session id, 0: none
  uint64_t writers_ = 0;  // GUARDED_BY(mu_)
  uint64_t waiting_ = 0;  // GUARDED_BY(mu_)
};

}  // namespace sluice::exec
