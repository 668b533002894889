// storage/lock/lock_internal.h
//
// The lock manager's data structures. Private to storage/lock/ (the public
// headers include it only for member types).
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
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "storage/lock/lock_types.h"
#include "storage/lock/spin_latch.h"

namespace sluice::storage {

class LockTrx;

namespace lock_internal {

// A doubly linked list threaded through T's kPrev/kNext members.
template <typename T, T* T::*kPrev, T* T::*kNext>
class IntrusiveList {
 public:
  T* front() const { return head_; }
  bool empty() const { return head_ == nullptr; }
  size_t size() const { return size_; }
  static T* Next(const T* x) { return x->*kNext; }

  void PushBack(T* x) {
    x->*kPrev = tail_;
    x->*kNext = nullptr;
    if (tail_ != nullptr) {
      tail_->*kNext = x;
    } else {
      head_ = x;
    }
    tail_ = x;
    ++size_;
  }
  void Remove(T* x) {
    T* prev = x->*kPrev;
    T* next = x->*kNext;
    if (prev != nullptr) {
      prev->*kNext = next;
    } else {
      head_ = next;
    }
    if (next != nullptr) {
      next->*kPrev = prev;
    } else {
      tail_ = prev;
    }
    x->*kPrev = nullptr;
    x->*kNext = nullptr;
    --size_;
  }
  T* PopFront() {
    T* x = head_;
    if (x != nullptr) Remove(x);
    return x;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  size_t size_ = 0;
};

// How a wait ended. Stored in LockTrx (under its wait mutex) and, for a
// request cancelled by the detector or KILL, in the request.
enum class WaitOutcome : uint8_t { kNone, kWaiting, kGranted, kTimeout, kDeadlock, kInterrupted };

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

using QueueList = IntrusiveList<LockRequest, &LockRequest::q_prev, &LockRequest::q_next>;
using TrxLockList = IntrusiveList<LockRequest, &LockRequest::t_prev, &LockRequest::t_next>;
using WaiterList = IntrusiveList<LockRequest, &LockRequest::w_prev, &LockRequest::w_next>;

struct Queue {
  LockKey key;
  uint64_t hash = 0;
  Queue* hash_next = nullptr;
  bool is_table = false;
  bool supremum = false;
  QueueList granted;
  QueueList waiting;  // arrival order
};

// One shard: a latch, a chained hash table of queues, and the waiters.
// alignas(128): a shard's latch never shares a cache line (or the adjacent-line
// prefetcher's pair of lines) with another shard's.
// Memory that other shards' or transactions' hot data never shares a cache
// line with: everything a shard or a transaction writes on the lock path is
// allocated through these (a bucket array from a 16-byte-granular malloc
// would sit next to another shard's and bounce between cores).
inline constexpr size_t kCacheLinePair = 128;
void* AllocateLines(size_t bytes);
void FreeLines(void* p);
struct LinesDeleter {
  void operator()(void* p) const { FreeLines(p); }
};

struct alignas(kCacheLinePair) Shard {
  Shard();
  ~Shard();
  Shard(const Shard&) = delete;
  Shard& operator=(const Shard&) = delete;

  Queue* Find(const LockKey& key, uint64_t hash) const;
  Queue* Insert(const LockKey& key, uint64_t hash);  // REQUIRES: key absent
  void Erase(Queue* queue);                          // REQUIRES: queue empty

  SpinLatch mu;
  // GUARDED_BY(mu), all of them:
  Queue** buckets = nullptr;  // power of two, from AllocateLines
  size_t n_buckets = 0;
  size_t queues = 0;
  Queue* free_queues = nullptr;  // recycled nodes, linked by hash_next
  std::vector<std::unique_ptr<void, LinesDeleter>> chunks;  // Queue arrays
  WaiterList waiters;
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
