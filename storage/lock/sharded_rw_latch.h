// storage/lock/sharded_rw_latch.h
//
// ShardedRwLatch: the lock manager's global latch. Every ordinary lock
// operation takes it shared; deadlock-cycle verification and victim marking,
// KILL of a waiter and census take it exclusive.
//
// Why not std::shared_mutex: a shared acquisition of a single rw-lock is a
// read-modify-write of its reader count, so every lock operation on every core
// would write the same cache line. That line is what capped Berkeley DB's lock
// manager (a global latch taken even read-only) and what InnoDB 8.0.21 avoided
// with a sharded reader count. Here the reader count is split over slots, one
// cache line each; a thread always uses its own slot (ThisThreadSlot()), so a
// shared acquisition writes only a line no other thread writes, and reads the
// writer flag, a line written only by exclusive holders.
//
// Slots: the first kExclusiveSlots threads that use any latch each claim a
// slot of their own for their lifetime (released at thread exit); further
// threads share kOverflowSlots slots.
//
// Protocol (Dekker-style: a reader announces itself then looks for a writer;
// a writer raises its flag then looks for readers):
//   shared:    announce in the slot; if writer_ is 0 we are in; otherwise
//              withdraw the announcement, park until the writer leaves, retry.
//   exclusive: writer_mu_ (one writer at a time); writer_.store(1, seq_cst);
//              make every reader's announcement visible (below); wait until
//              every slot is 0 (acquire loads).
// Both sides store then load, and at least one must see the other's store:
//  - asymmetric mode (default where Linux offers membarrier(2)
//    MEMBARRIER_CMD_PRIVATE_EXPEDITED): a reader on its own slot announces
//    with a plain store and checks writer_ with a plain (acquire) load, no
//    fence and no locked instruction; the writer, after raising its flag,
//    calls membarrier(), which makes every running thread of the process
//    execute a full memory barrier. A reader whose announcement preceded that
//    barrier is seen by the writer's scan; one whose check follows it sees the
//    flag. The rare side pays (a few microseconds of IPIs) so the common side
//    is free: a shared acquire+release costs two ordinary stores.
//  - fallback (no membarrier, overflow slots, or asymmetric=false): the
//    announcement is fetch_add(seq_cst) and the check a seq_cst load; in the
//    single total order of seq_cst operations one of the two sides sees the
//    other.
// Readers leave with a release store (or fetch_sub(release)), so everything a
// reader did under the latch happens-before the writer's acquire load that
// sees the slot at 0. The writer leaves with writer_.store(0, release) (under
// park_mu_), so its writes happen-before a later reader's acquire load.
// Writers are not starved: once the flag is up, new readers back off.
//
// Not reentrant: a thread must never take it shared twice (a pending writer
// would deadlock it) or shared while holding it exclusive.
//
// Thread-safety: all methods from any thread. Blocking: shared parks while a
// writer holds it; exclusive spins/yields until in-flight readers leave
// (readers hold it for microseconds and never block while holding it).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace sluice::storage {

class ShardedRwLatch {
 public:
  static constexpr size_t kExclusiveSlots = 128;
  static constexpr size_t kOverflowSlots = 16;
  static constexpr size_t kSlots = kExclusiveSlots + kOverflowSlots;

  // `asymmetric`: use membarrier() where available (see above); false forces
  // the fallback protocol (tests).
  explicit ShardedRwLatch(bool asymmetric = true);
  ShardedRwLatch(const ShardedRwLatch&) = delete;
  ShardedRwLatch& operator=(const ShardedRwLatch&) = delete;

  // The calling thread's slot, in [0, kSlots). Stable for the thread's life.
  static inline size_t ThisThreadSlot();
  // Whether this latch uses the asymmetric (membarrier) protocol.
  bool asymmetric() const { return asymmetric_; }

  inline void LockShared(size_t slot);
  // LockShared unless a writer holds or wants the latch; never waits.
  inline bool TryLockShared(size_t slot);
  inline void UnlockShared(size_t slot);
  void LockExclusive();
  void UnlockExclusive();

 private:
  // 128 bytes: the adjacent-line prefetcher pairs 64-byte lines.
  struct alignas(128) Slot {
    std::atomic<uint32_t> readers{0};
  };

  bool OwnSlot(size_t slot) const { return asymmetric_ && slot < kExclusiveSlots; }
  void LockSharedSlow(size_t slot);
  void ParkUntilNoWriter();

  Slot slots_[kSlots];
  const bool asymmetric_;
  alignas(128) std::atomic<uint32_t> writer_{0};
  alignas(128) std::mutex writer_mu_;  // serializes exclusive holders
  std::mutex park_mu_;                // readers parked behind a writer
  std::condition_variable park_cv_;
};

namespace latch_internal {
// 1 + the calling thread's slot; 0 until claimed. Constant-initialized, so
// reading it is a plain TLS load.
inline thread_local size_t tls_slot_plus_one = 0;
size_t ClaimSlot();
}  // namespace latch_internal

inline size_t ShardedRwLatch::ThisThreadSlot() {
  const size_t s = latch_internal::tls_slot_plus_one;
  if (s != 0) [[likely]] return s - 1;
  return latch_internal::ClaimSlot();
}

inline void ShardedRwLatch::LockShared(size_t slot) {
  if (TryLockShared(slot)) [[likely]] return;
  LockSharedSlow(slot);
}

inline bool ShardedRwLatch::TryLockShared(size_t slot) {
  Slot& s = slots_[slot];
  if (OwnSlot(slot)) {
    // Plain store and load: the writer's membarrier() orders them for us.
    s.readers.store(1, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // compiler only
    if (writer_.load(std::memory_order_acquire) == 0) [[likely]] return true;
    s.readers.store(0, std::memory_order_release);
  } else {
    s.readers.fetch_add(1, std::memory_order_seq_cst);
    if (writer_.load(std::memory_order_seq_cst) == 0) [[likely]] return true;
    s.readers.fetch_sub(1, std::memory_order_release);
  }
  return false;
}

inline void ShardedRwLatch::UnlockShared(size_t slot) {
  if (OwnSlot(slot)) {
    slots_[slot].readers.store(0, std::memory_order_release);
  } else {
    slots_[slot].readers.fetch_sub(1, std::memory_order_release);
  }
}

// RAII shared hold.
class SharedLatchGuard {
 public:
  SharedLatchGuard(ShardedRwLatch& latch, size_t slot) : latch_(&latch), slot_(slot) {
    latch_->LockShared(slot_);
  }
  ~SharedLatchGuard() {
    if (latch_ != nullptr) latch_->UnlockShared(slot_);
  }
  void Release() {
    latch_->UnlockShared(slot_);
    latch_ = nullptr;
  }
  SharedLatchGuard(const SharedLatchGuard&) = delete;
  SharedLatchGuard& operator=(const SharedLatchGuard&) = delete;

 private:
  ShardedRwLatch* latch_;
  size_t slot_;
};

// RAII exclusive hold.
class ExclusiveLatchGuard {
 public:
  explicit ExclusiveLatchGuard(ShardedRwLatch& latch) : latch_(latch) { latch_.LockExclusive(); }
  ~ExclusiveLatchGuard() { latch_.UnlockExclusive(); }
  ExclusiveLatchGuard(const ExclusiveLatchGuard&) = delete;
  ExclusiveLatchGuard& operator=(const ExclusiveLatchGuard&) = delete;

 private:
  ShardedRwLatch& latch_;
};

}  // namespace sluice::storage
