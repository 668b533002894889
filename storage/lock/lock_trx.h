// storage/lock/lock_trx.h
//
// LockTrx: one transaction as the lock manager sees it (a "locker"). The
// engine's transaction object holds one, from LockManager::CreateTrx(), and
// passes it to every lock call, so the lock paths never look a transaction
// up in a shared table. It owns the transaction's lock requests (a private
// pool, reused across transactions) and lists them, so ReleaseAll is
// O(locks held).
//
// Ownership: LockTrxPtr returns the object to its manager's pool when
// destroyed (releasing any locks still held). The manager keeps every
// LockTrx it ever made until it is destroyed itself ("type-stable" memory):
// a deadlock check may follow a stale wait-for pointer and must still read a
// LockTrx. So: the LockManager must outlive every LockTrxPtr.
//
// Threads: one thread at a time drives a LockTrx (the session running the
// transaction); it may move between threads between calls. Other threads
// read only its atomics (id, weight, waiting state) and, under the lock
// manager's latches, the requests it has queued.
//
// Reuse: a session may keep one LockTrx for many transactions; set_id() for
// the next one after ReleaseAll().
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "base/mutex.h"
#include "storage/lock/intrusive_list.h"
#include "storage/lock/lock_types.h"

namespace sluice::storage {

class LockManager;

// What LockTrx's members need from the lock manager's internals; the rest
// (requests, queues, shards) is in lock_internal.h, private to storage/lock/.
namespace lock_internal {

struct LockRequest;
struct TrxLinks;  // LockRequest::t_prev / t_next
using TrxLockList = IntrusiveList<LockRequest, TrxLinks>;

// How a wait ended. Stored in LockTrx (under its wait mutex) and, for a
// request cancelled by the detector or KILL, in the request.
enum class WaitOutcome : uint8_t { kNone, kWaiting, kGranted, kTimeout, kDeadlock, kInterrupted };

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

// Nodes of T handed out one at a time from arrays of kChunk (each from
// AllocateLines) and given back onto a free list threaded through
// Links::kNext, so a node is allocated once and reused; the nodes are
// destroyed and the arrays freed with the pool. T and Links need only be
// complete where Take, Give and the destructor are used. Not thread-safe:
// its owner's latch, or its owner's thread, guards it.
template <typename T, typename Links, size_t kChunk>
class ChunkPool {
 public:
  ChunkPool() = default;
  ChunkPool(const ChunkPool&) = delete;
  ChunkPool& operator=(const ChunkPool&) = delete;
  ~ChunkPool() {
    for (auto& chunk : chunks_) {
      T* nodes = static_cast<T*>(chunk.get());
      for (size_t i = 0; i < kChunk; ++i) nodes[i].~T();
    }
  }

  // A node, its Links::kNext null; its other fields as Give left them.
  T* Take() {
    if (free_ == nullptr) Grow();
    T* t = free_;
    free_ = t->*Links::kNext;
    t->*Links::kNext = nullptr;
    return t;
  }
  void Give(T* t) {
    t->*Links::kNext = free_;
    free_ = t;
  }

 private:
  void Grow() {
    void* raw = AllocateLines(kChunk * sizeof(T));
    chunks_.emplace_back(raw);
    T* nodes = static_cast<T*>(raw);
    for (size_t i = 0; i < kChunk; ++i) Give(new (&nodes[i]) T());
  }

  T* free_ = nullptr;
  std::vector<std::unique_ptr<void, LinesDeleter>> chunks_;
};

}  // namespace lock_internal

class alignas(lock_internal::kCacheLinePair) LockTrx {
 public:
  ~LockTrx();
  LockTrx(const LockTrx&) = delete;
  LockTrx& operator=(const LockTrx&) = delete;

  // The transaction id shown in reports. REQUIRES: holds no locks to change it.
  uint64_t id() const { return id_.load(std::memory_order_relaxed); }
  void set_id(uint64_t id) { id_.store(id, std::memory_order_relaxed); }

  // The connection (processlist id), for deadlock reports.
  uint64_t thread_id() const { return thread_id_.load(std::memory_order_relaxed); }
  void set_thread_id(uint64_t id) { thread_id_.store(id, std::memory_order_relaxed); }

  // Added to the number of locks held to weigh a transaction when choosing a
  // deadlock victim (InnoDB: undo records; heavier for non-transactional
  // changes). The lighter transaction is rolled back.
  uint64_t weight_hint() const { return weight_hint_.load(std::memory_order_relaxed); }
  void set_weight_hint(uint64_t w) { weight_hint_.store(w, std::memory_order_relaxed); }

  // Granted locks held (table and record).
  uint64_t lock_count() const { return n_locks_.load(std::memory_order_relaxed); }

  // True while a request of this transaction waits.
  bool waiting() const { return wait_request_.load(std::memory_order_relaxed) != nullptr; }

  // The CATS weight last computed by the background detector (how many
  // transactions, itself included, wait behind this one);
  // INFORMATION_SCHEMA.INNODB_TRX.TRX_SCHEDULE_WEIGHT. 0 when not waiting or
  // not yet computed.
  uint64_t schedule_weight() const { return schedule_weight_.load(std::memory_order_relaxed); }

 private:
  friend class LockManager;
  using Request = lock_internal::LockRequest;

  LockTrx() = default;

  // Owner-only helpers.
  Request* NewRequest();
  void FreeRequest(Request* r);
  bool TableCovered(TableId table, LockMode mode) const;
  void NoteTableGranted(TableId table, LockMode mode);
  void ForgetTable(TableId table, LockMode mode);

  // --- Owner thread only ---------------------------------------------------
  lock_internal::TrxLockList locks_;  // granted, plus at most one waiting
  lock_internal::ChunkPool<Request, lock_internal::TrxLinks, 32> requests_;  // free ones linked by t_next
  struct HeldTable {
    TableId table;
    uint8_t modes;  // bit per LockMode granted
  };
  std::vector<HeldTable> tables_;  // lets repeated IS/IX skip the shard
  LockTrx* pool_next_ = nullptr;   // LockManager's free list (under its pool mutex)

  // --- Read by other threads -----------------------------------------------
  std::atomic<uint64_t> id_{0};
  std::atomic<uint64_t> thread_id_{0};
  std::atomic<uint64_t> weight_hint_{0};
  std::atomic<uint64_t> n_locks_{0};
  std::atomic<uint64_t> schedule_weight_{0};
  // Written under the waiting request's shard latch (or the global latch
  // exclusive); read without a latch by inline deadlock checks (which verify
  // under the exclusive latch before acting).
  std::atomic<Request*> wait_request_{nullptr};
  std::atomic<LockTrx*> blocking_trx_{nullptr};  // one transaction the wait is for

  // --- The wait handshake -------------------------------------------------
  // Lock order: global latch -> shard latch -> wait_mu_. The waiting thread
  // holds only wait_mu_ while it sleeps.
  Mutex wait_mu_;
  CondVar wait_cv_;
  lock_internal::WaitOutcome outcome_ GUARDED_BY(wait_mu_) = lock_internal::WaitOutcome::kNone;
  // Mirrors "outcome_ is final" for a waiter that spins before it sleeps;
  // written with outcome_ (release), read without wait_mu_ (acquire).
  std::atomic<bool> decided_{false};

  void SetOutcomeLocked(lock_internal::WaitOutcome o) REQUIRES(wait_mu_) {
    outcome_ = o;
    decided_.store(o != lock_internal::WaitOutcome::kWaiting && o != lock_internal::WaitOutcome::kNone,
                   std::memory_order_release);
  }
};

struct LockTrxDeleter {
  LockManager* manager = nullptr;
  void operator()(LockTrx* trx) const;
};
using LockTrxPtr = std::unique_ptr<LockTrx, LockTrxDeleter>;

}  // namespace sluice::storage
