// storage/lock/lock_internal.h
//
// The lock manager's data structures. Private to storage/lock/: no public
// header includes it (lock_trx.h and lock_manager.h name these types only
// as pointers or forward declarations; what LockTrx's own members need is
// declared in lock_trx.h).
//
// A lock queue holds every request on one record (or one table): `granted`
// (order irrelevant) and `waiting` (arrival order). Queues live in a shard's
// chained hash table, keyed by the record or table; shards are chosen by
// (space, page) for records and by table id for tables. A request object
// belongs to its transaction (allocated from the transaction's own pool) and
// sits in three intrusive lists: its queue's granted or waiting list, its
// transaction's list of locks, and, while waiting, its shard's list of
// waiters (what the deadlock detector snapshots).
//
// Protection: everything in a Shard, and every field of a request in it, is
// guarded by Shard::mu, taken only while the global latch is held shared, or
// by the global latch held exclusive (which excludes every shard holder).
// The Shard's own members are declared GUARDED_BY(mu), so the analysis
// checks them; a reader under the exclusive latch says so with
// mu.AssertHeld(). (Queues and requests are not annotated: their latch is
// their shard's, which a member of theirs cannot name.)
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/lock/intrusive_list.h"
#include "storage/lock/lock_trx.h"
#include "storage/lock/lock_types.h"
#include "storage/lock/spin_latch.h"

namespace sluice::storage {
namespace lock_internal {

// Record: (space, page, heap). Table: (table id, 0, 0) in a table shard.
struct LockKey {
  uint64_t a = 0;
  uint64_t b = 0;
  uint64_t c = 0;
  friend bool operator==(const LockKey& x, const LockKey& y) {
    return x.a == y.a && x.b == y.b && x.c == y.c;  // (= default calls memcmp)
  }
};

struct Queue;

struct LockRequest {
  LockTrx* trx = nullptr;
  Queue* queue = nullptr;
  LockRequest* q_prev = nullptr;  // Queue::granted or Queue::waiting
  LockRequest* q_next = nullptr;
  LockRequest* t_prev = nullptr;  // LockTrx::locks_ (owner thread only)
  LockRequest* t_next = nullptr;
  LockRequest* w_prev = nullptr;  // Shard::waiters, while waiting
  LockRequest* w_next = nullptr;
  uint32_t shard = 0;
  bool is_table = false;
  LockMode mode = LockMode::kIS;
  uint16_t bits = 0;  // record precision
  bool waiting = false;
  bool cancelled = false;  // deadlock victim or KILL: the owner withdraws it
  WaitOutcome cancel_reason = WaitOutcome::kNone;
  uint32_t passed_over = 0;  // CATS anti-starvation: later arrivals granted first
  std::chrono::steady_clock::time_point wait_start;
};

struct QueueLinks {
  static constexpr LockRequest* LockRequest::*kPrev = &LockRequest::q_prev;
  static constexpr LockRequest* LockRequest::*kNext = &LockRequest::q_next;
};
struct TrxLinks {  // TrxLockList (lock_trx.h)
  static constexpr LockRequest* LockRequest::*kPrev = &LockRequest::t_prev;
  static constexpr LockRequest* LockRequest::*kNext = &LockRequest::t_next;
};
struct WaiterLinks {
  static constexpr LockRequest* LockRequest::*kPrev = &LockRequest::w_prev;
  static constexpr LockRequest* LockRequest::*kNext = &LockRequest::w_next;
};
using QueueList = IntrusiveList<LockRequest, QueueLinks>;
using WaiterList = IntrusiveList<LockRequest, WaiterLinks>;

struct Queue {
  LockKey key;
  uint64_t hash = 0;
  Queue* hash_next = nullptr;
  bool is_table = false;
  bool supremum = false;
  QueueList granted;  // changed only through AddGranted and RemoveGranted
  QueueList waiting;  // arrival order
  // How many of `granted` hold each mode. A table request compatible with
  // every mode counted here has no granted blocker, and skips the walk of
  // `granted` (which, under autocommit INSERTs at concurrency 64, held up to
  // 63 other transactions' IX for each new IX).
  uint32_t granted_by_mode[kNumLockModes] = {};

  void AddGranted(LockRequest* r) {
    granted.PushBack(r);
    ++granted_by_mode[static_cast<int>(r->mode)];
  }
  void RemoveGranted(LockRequest* r) {
    granted.Remove(r);
    --granted_by_mode[static_cast<int>(r->mode)];
  }
  // Table queues: may a request for `mode` conflict with a granted lock
  // (another transaction's, or the requester's own)?
  bool MayConflictWithGranted(LockMode mode) const {
    for (int m = 0; m < kNumLockModes; ++m) {
      if (granted_by_mode[m] != 0 && !LockModesCompatible(mode, static_cast<LockMode>(m))) return true;
    }
    return false;
  }
};

struct QueueHashLinks {  // Shard::buckets' chains, and Shard::queue_pool's free list
  static constexpr Queue* Queue::*kNext = &Queue::hash_next;
};

// One shard: a latch, a chained hash table of queues, and the waiters.
// alignas(128): a shard's latch never shares a cache line (or the adjacent-line
// prefetcher's pair of lines) with another shard's. Its memory comes from
// AllocateLines (lock_trx.h).
struct alignas(kCacheLinePair) Shard {
  Shard();
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  Queue* Find(const LockKey& key, uint64_t hash) const REQUIRES(mu);
  Queue* Insert(const LockKey& key, uint64_t hash) REQUIRES(mu);  // the key absent
  void Erase(Queue* queue) REQUIRES(mu);                          // the queue empty

  SpinLatch mu;
  Queue** buckets GUARDED_BY(mu) = nullptr;  // power of two, from AllocateLines
  size_t n_buckets GUARDED_BY(mu) = 0;
  size_t queues GUARDED_BY(mu) = 0;
  ChunkPool<Queue, QueueHashLinks, 64> queue_pool GUARDED_BY(mu);  // free ones linked by hash_next
  WaiterList waiters GUARDED_BY(mu);
  // waiters.size(), readable without the latch: the detector skips shards
  // with nobody waiting.
  std::atomic<uint32_t> n_waiters{0};
};

// 64-bit finalizer (splitmix64's).
inline uint64_t Mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return x;
}

}  // namespace lock_internal
}  // namespace sluice::storage
