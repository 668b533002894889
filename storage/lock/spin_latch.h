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
// Thread-safety: a mutex (BasicLockable); not recursive.
#pragma once

#include <atomic>
#include <cstdint>

namespace sluice::storage {

class SpinLatch {
 public:
  SpinLatch() = default;
  SpinLatch(const SpinLatch&) = delete;
  SpinLatch& operator=(const SpinLatch&) = delete;

  void lock() {
    uint32_t expected = 0;
    if (state_.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed)) return;
    LockSlow();
  }
  void unlock() {
    if (state_.exchange(0, std::memory_order_release) == 2) state_.notify_one();
  }

 private:
  void LockSlow();

  std::atomic<uint32_t> state_{0};
};

}  // namespace sluice::storage
