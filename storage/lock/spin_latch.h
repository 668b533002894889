// storage/lock/spin_latch.h
//
// SpinLatch: the shard latch. Lock-queue critical sections last tens of
// nanoseconds, so a waiter spins briefly and only then sleeps (a futex via
// C++20 atomic wait), instead of going to sleep at once like a default
// pthread mutex: two threads that happen to hash to the same shard then pay
// a cache-line transfer, not a pair of system calls.
//
// State: 0 free, 1 held, 2 held and someone may sleep (Drepper's
// "Futexes are tricky" mutex). Acquire on lock, release on unlock.
//
// Thread-safety: a mutex (BasicLockable); not recursive. A capability for
// the thread-safety analysis (base/thread_annotations.h), so the members it
// guards are declared GUARDED_BY it.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/cpu_relax.h"
#include "base/thread_annotations.h"

namespace sluice::storage {

class CAPABILITY("mutex") SpinLatch {
 public:
  SpinLatch() = default;
  SpinLatch(const SpinLatch&) = delete;
  SpinLatch& operator=(const SpinLatch&) = delete;

  void lock() ACQUIRE() {
    uint32_t expected = 0;
    if (state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) return;
    LockSlow();
  }
  // Takes the latch if it is free or freed within a short spin (the spin
  // lock() also does before it sleeps); never sleeps.
  bool try_lock() TRY_ACQUIRE(true) {
    for (int i = 0;; ++i) {
      uint32_t expected = 0;
      if (state_.load(std::memory_order_relaxed) == 0 &&
          state_.compare_exchange_weak(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) {
        return true;
      }
      if (i == kTrySpins) return false;
      CpuRelax();
    }
  }
  void unlock() RELEASE() {
    if (state_.exchange(0, std::memory_order_release) == 2) state_.notify_one();
  }

  // For the analysis only: states that the caller may use what the latch
  // guards without taking it (the lock manager's exclusive global latch
  // excludes every holder). No run-time check.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  // The latch's own implementation: the analysis does not follow the
  // acquisition through try_lock() in it.
  void LockSlow() NO_THREAD_SAFETY_ANALYSIS;
  static constexpr int kTrySpins = 32;

  std::atomic<uint32_t> state_{0};
};

// Holds a SpinLatch for its scope (std::lock_guard, which the analysis
// does not know).
class SCOPED_CAPABILITY SpinLatchGuard {
 public:
  explicit SpinLatchGuard(SpinLatch* latch) ACQUIRE(latch) : latch_(latch) { latch->lock(); }
  SpinLatchGuard(const SpinLatchGuard&) = delete;
  SpinLatchGuard& operator=(const SpinLatchGuard&) = delete;
  ~SpinLatchGuard() RELEASE() { UnlockNow(); }

 private:
  // The analysis tracks the scoped object; the call on the pointer inside
  // is the implementation of that (as base/mutex.h's MutexLock).
  void UnlockNow() NO_THREAD_SAFETY_ANALYSIS { latch_->unlock(); }

  SpinLatch* const latch_;
};

}  // namespace sluice::storage
