// server/metadata_lock.h
//
// MetadataLock: keeps DDL away from tables that open transactions use. A
// session takes it shared when its engine transaction begins and releases
// it when the transaction ends (possibly on another worker thread, hence
// not a std::shared_mutex); DDL takes it exclusive. A waiting exclusive
// request holds off new shared ones, so DDL is not starved. One lock for
// every table, for now (MySQL locks each table).
//
// Thread-safety: all methods, any thread. Blocking: the Lock* calls wait up
// to `timeout` (lock_wait_timeout) and return false when it passes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sluice::server {

class MetadataLock {
 public:
  bool LockShared(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, timeout, [this] { return !exclusive_ && exclusive_waiting_ == 0; })) return false;
    ++shared_;
    return true;
  }
  void UnlockShared() {
    std::lock_guard lock(mu_);
    if (--shared_ == 0) cv_.notify_all();
  }
  bool LockExclusive(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    ++exclusive_waiting_;
    const bool got = cv_.wait_for(lock, timeout, [this] { return !exclusive_ && shared_ == 0; });
    --exclusive_waiting_;
    if (got) exclusive_ = true;
    cv_.notify_all();
    return got;
  }
  void UnlockExclusive() {
    std::lock_guard lock(mu_);
    exclusive_ = false;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t shared_ = 0;             // GUARDED_BY(mu_)
  uint64_t exclusive_waiting_ = 0;  // GUARDED_BY(mu_)
  bool exclusive_ = false;          // GUARDED_BY(mu_)
};

}  // namespace sluice::server
