// exec/lock_wait.h
//
// WaitForLock: the wait of a session for a server-level lock (FLUSH TABLES
// WITH READ LOCK, LOCK TABLES) that also ends when the session is killed
// (KILL, KILL QUERY, shutdown), noticed within a tenth of a second, as the
// metadata locks' and the row locks' waits do.
//
// Thread-safety: called with `lock` held on the mutex `cv` is used with.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sluice::exec {

enum class LockWait : uint8_t { kGranted, kTimedOut, kKilled };

// Waits until `ready()` (checked under `lock`) is true, `timeout` passes,
// or `*killed` (when not null) turns non-zero.
template <class Ready>
LockWait WaitForLock(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                     std::chrono::milliseconds timeout, const std::atomic<int>* killed, Ready ready) {
  constexpr std::chrono::milliseconds kKillPoll{100};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (ready()) return LockWait::kGranted;
    if (killed != nullptr && killed->load(std::memory_order_acquire) != 0) return LockWait::kKilled;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return LockWait::kTimedOut;
    cv.wait_until(lock, killed == nullptr ? deadline : std::min(deadline, now + kKillPoll));
  }
}

}  // namespace sluice::exec
