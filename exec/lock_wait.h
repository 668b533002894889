// exec/lock_wait.h
//
// LockWaiter: the wait of a session for a server-level lock (FLUSH TABLES
// WITH READ LOCK, LOCK TABLES, the metadata locks) that also ends when the
// session is killed (KILL, KILL QUERY, shutdown), noticed within a tenth of
// a second, as the row locks' waits are. The lock's condition is a
// loop in the caller, checked with the lock's mutex held (so the
// thread-safety analysis sees it; base/mutex.h):
//
//   LockWaiter waiter(timeout, killed);
//   MutexLock lock(&mu_);
//   while (!ready) {
//     if (!waiter.Wait(&cv_, &mu_)) return waiter.outcome();
//   }
//
// Thread-safety: one waiting thread; Wait is called with `mu` held.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>

#include "base/mutex.h"

namespace sluice::exec {

enum class LockWait : uint8_t { kGranted, kTimedOut, kKilled };

class LockWaiter {
 public:
  // The wait ends after `timeout`, or once `*killed` (when not null) is
  // non-zero. The clock starts here.
  LockWaiter(std::chrono::milliseconds timeout, const std::atomic<int>* killed)
      : killed_(killed), deadline_(std::chrono::steady_clock::now() + timeout) {}

  // Called while the caller's condition is false: false when the wait is
  // over (outcome() says why: killed first, then timed out); otherwise
  // waits once on `cv` (releasing `mu` meanwhile; woken by a notify, the
  // deadline or the kill poll) and returns true: check again.
  bool Wait(CondVar* cv, Mutex* mu) REQUIRES(mu) {
    if (Over()) return false;
    WaitOnce(cv, mu);
    return true;
  }

  // The two halves of Wait, for a caller with work between them (the
  // metadata locks' deadlock check and wait-for bookkeeping): whether the
  // wait is over (outcome() says why), and one wait on `cv`.
  bool Over() {
    if (killed_ != nullptr && killed_->load(std::memory_order_acquire) != 0) {
      outcome_ = LockWait::kKilled;
      return true;
    }
    if (std::chrono::steady_clock::now() >= deadline_) {
      outcome_ = LockWait::kTimedOut;
      return true;
    }
    return false;
  }
  void WaitOnce(CondVar* cv, Mutex* mu) REQUIRES(mu) {
    cv->WaitUntil(mu, killed_ == nullptr ? deadline_
                                         : std::min(deadline_, std::chrono::steady_clock::now() + kKillPoll));
  }

  // kGranted until Wait returned false.
  LockWait outcome() const { return outcome_; }

 private:
  static constexpr std::chrono::milliseconds kKillPoll{100};

  const std::atomic<int>* const killed_;
  const std::chrono::steady_clock::time_point deadline_;
  LockWait outcome_ = LockWait::kGranted;
};

}  // namespace sluice::exec
