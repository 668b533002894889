#include "storage/lock/sharded_rw_latch.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "base/cpu_relax.h"
#include "storage/lock/spin_latch.h"

namespace sluice::storage {
namespace {

// Process-wide slot ownership, shared by every latch.
std::atomic<bool> g_slot_taken[ShardedRwLatch::kExclusiveSlots];
std::atomic<uint32_t> g_overflow_next{0};
// What a writer must scan: exclusive slots below the high-water mark of
// claims, and the overflow slots once any thread uses one.
std::atomic<size_t> g_exclusive_high{0};
std::atomic<bool> g_overflow_used{false};

struct SlotReleaser {
  size_t slot = ShardedRwLatch::kSlots;
  ~SlotReleaser() {
    if (slot < ShardedRwLatch::kExclusiveSlots) g_slot_taken[slot].store(false, std::memory_order_release);
  }
};

bool RegisterMembarrier() {
  const long mask = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
  if (mask < 0 || (mask & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
  return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

bool MembarrierAvailable() {
  static const bool available = RegisterMembarrier();
  return available;
}

void HeavyBarrier() {
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) {
    // Registered at start, so this cannot fail; readers rely on it.
    std::perror("sluice: membarrier");
    std::abort();
  }
}

}  // namespace

namespace latch_internal {

size_t ClaimSlot() {
  thread_local SlotReleaser releaser;
  size_t slot = ShardedRwLatch::kExclusiveSlots +
                g_overflow_next.fetch_add(1, std::memory_order_relaxed) % ShardedRwLatch::kOverflowSlots;
  for (size_t i = 0; i < ShardedRwLatch::kExclusiveSlots; ++i) {
    bool expected = false;
    if (!g_slot_taken[i].load(std::memory_order_relaxed) &&
        g_slot_taken[i].compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
      slot = i;
      break;
    }
  }
  if (slot < ShardedRwLatch::kExclusiveSlots) {
    size_t high = g_exclusive_high.load(std::memory_order_seq_cst);
    while (high < slot + 1 &&
           !g_exclusive_high.compare_exchange_weak(high, slot + 1, std::memory_order_seq_cst)) {
    }
  } else {
    g_overflow_used.store(true, std::memory_order_seq_cst);
  }
  // Orders the publication above before this thread's first look at any
  // writer flag: a writer that scanned before our claim is seen by us. (TSan
  // does not model fences; a seq_cst read-modify-write is a full barrier too.)
#if defined(__SANITIZE_THREAD__)
  g_overflow_next.fetch_add(0, std::memory_order_seq_cst);
#else
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
  releaser.slot = slot;
  tls_slot_plus_one = slot + 1;
  return slot;
}

}  // namespace latch_internal

ShardedRwLatch::ShardedRwLatch(bool asymmetric) : asymmetric_(asymmetric && MembarrierAvailable()) {}

void ShardedRwLatch::LockSharedSlow(size_t slot) {
  for (;;) {
    ParkUntilNoWriter();
    if (TryLockShared(slot)) return;
  }
}

void ShardedRwLatch::ParkUntilNoWriter() {
  // Exclusive sections are short (a snapshot of waiters, a cycle check): spin
  // a little before sleeping.
  for (int i = 0; i < 64; ++i) {
    if (writer_.load(std::memory_order_acquire) == 0) return;
    CpuRelax();
  }
  std::unique_lock lock(park_mu_);
  park_cv_.wait(lock, [this] { return writer_.load(std::memory_order_acquire) == 0; });
}

void ShardedRwLatch::LockExclusive() {
  writer_mu_.lock();
  writer_.store(1, std::memory_order_seq_cst);
  if (asymmetric_) HeavyBarrier();
  auto drain = [](Slot& s) {
    int spins = 0;
    while (s.readers.load(std::memory_order_acquire) != 0) {
      // Readers hold the latch for microseconds, but may be preempted.
      if (++spins < 64) {
        CpuRelax();
      } else {
        std::this_thread::yield();
      }
    }
  };
  // A thread claims its slot (and raises the high-water mark) before its
  // first shared acquisition; see ClaimSlot() for the ordering.
  const size_t high = g_exclusive_high.load(std::memory_order_seq_cst);
  for (size_t i = 0; i < high; ++i) drain(slots_[i]);
  if (g_overflow_used.load(std::memory_order_seq_cst)) {
    for (size_t i = kExclusiveSlots; i < kSlots; ++i) drain(slots_[i]);
  }
}

void ShardedRwLatch::UnlockExclusive() {
  {
    // Under park_mu_ so that a reader between its predicate check and its
    // wait cannot miss the notification.
    std::lock_guard lock(park_mu_);
    writer_.store(0, std::memory_order_release);
  }
  park_cv_.notify_all();
  writer_mu_.unlock();
}

// --- SpinLatch ---------------------------------------------------------------

void SpinLatch::LockSlow() {
  // Spin while the holder is likely running its few dozen nanoseconds.
  if (try_lock()) return;
  // Then sleep, marking the latch "contended" so that unlock wakes us.
  uint32_t c = state_.exchange(2, std::memory_order_acquire);
  while (c != 0) {
    state_.wait(2, std::memory_order_relaxed);
    c = state_.exchange(2, std::memory_order_acquire);
  }
}

}  // namespace sluice::storage
