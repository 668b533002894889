// tools/lock_bench/global_lock_table.h
//
// The --baseline reference: a lock table with the same API shape as
// storage::LockManager and the same compatibility rules, under ONE global
// std::mutex (the pre-8.0.21 lock_sys->mutex design). Waiters sleep on a
// per-transaction condition variable tied to that mutex, are granted in FIFO
// order, and deadlocks are found by the requester walking the wait-for chain
// under the mutex; the requester is the victim. With printing on, the report
// is formatted and logged while the mutex is held, as old InnoDB did.
//
// It is deliberately simple and gets every benefit of the doubt: empty
// queues stay in the map (no allocation per lock on reused keys) and requests
// come from a per-transaction free list.
//
// Thread-safety: every method from any thread; one BaselineTrx per thread at
// a time.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/lock/deadlock_report.h"
#include "storage/lock/lock_errors.h"
#include "storage/lock/lock_types.h"

namespace sluice::tools {

class GlobalLockTable {
 public:
  struct Request;
  struct Trx {
    uint64_t id = 0;
    std::vector<Request*> locks;
    std::vector<std::unique_ptr<Request>> pool;
    std::vector<Request*> free;
    CondVar cv;  // waits on GlobalLockTable::mu_
    // Guarded by GlobalLockTable::mu_, which an attribute here cannot name.
    Trx* blocker = nullptr;
    Request* wait = nullptr;
  };
  struct Key {
    uint64_t a, b, c;
    bool is_table;
    bool operator==(const Key&) const = default;
  };
  struct Request {
    Trx* trx;
    Key key;
    storage::LockMode mode;
    uint16_t bits;
    bool granted;
  };

  explicit GlobalLockTable(std::shared_ptr<spdlog::logger> logger) : logger_(std::move(logger)) {}

  std::unique_ptr<Trx> CreateTrx(uint64_t id) {
    auto t = std::make_unique<Trx>();
    t->id = id;
    return t;
  }
  void set_print_all_deadlocks(bool on) { print_ = on; }

  Status LockTable(Trx& trx, storage::TableId table, storage::LockMode mode, std::chrono::milliseconds timeout) {
    return Lock(trx, Key{table, 0, 0, true}, mode, 0, timeout);
  }
  Status LockRecord(Trx& trx, const storage::RecordId& r, storage::LockMode mode, storage::RecLockType type,
                    std::chrono::milliseconds timeout) {
    uint16_t bits = static_cast<uint16_t>(type);
    if (r.heap_no == storage::kSupremumHeapNo && (bits & storage::kInsertIntentionBit) == 0) bits = storage::kGapBit;
    return Lock(trx, Key{r.space_id, r.page_no, r.heap_no, false}, mode, bits, timeout);
  }

  void ReleaseAll(Trx& trx) {
    MutexLock lock(&mu_);
    for (Request* r : trx.locks) {
      Queue& q = queues_[r->key];
      q.reqs.erase(std::find(q.reqs.begin(), q.reqs.end(), r));
      GrantLocked(q);
      trx.free.push_back(r);
    }
    trx.locks.clear();
  }

  uint64_t waits() const {
    MutexLock lock(&mu_);
    return waits_;
  }
  uint64_t deadlocks() const {
    MutexLock lock(&mu_);
    return deadlocks_;
  }

 private:
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<storage::RecordId>()(storage::RecordId{k.a, k.b, k.c}) ^ (k.is_table ? 0x5bd1e995 : 0);
    }
  };
  struct Queue {
    std::vector<Request*> reqs;  // arrival order
  };

  static bool Conflicts(const Key& key, storage::LockMode mode, uint16_t bits, const Request& other) {
    if (key.is_table) return !storage::LockModesCompatible(mode, other.mode);
    return storage::RecLockHasToWait(mode, bits, other.mode, other.bits, key.c == storage::kSupremumHeapNo);
  }

  Request* NewRequest(Trx& trx) {
    if (trx.free.empty()) {
      trx.pool.push_back(std::make_unique<Request>());
      return trx.pool.back().get();
    }
    Request* r = trx.free.back();
    trx.free.pop_back();
    return r;
  }

  // First request ahead of `upto` (all when null) that `trx` must wait for.
  Trx* BlockerLocked(const Queue& q, const Trx& trx, const Key& key, storage::LockMode mode, uint16_t bits,
                     const Request* upto) const {
    for (const Request* o : q.reqs) {
      if (o == upto) break;
      if (o->trx != &trx && Conflicts(key, mode, bits, *o)) return o->trx;
    }
    return nullptr;
  }

  void GrantLocked(Queue& q) REQUIRES(mu_) {
    for (Request* w : q.reqs) {
      if (w->granted) continue;
      Trx* b = BlockerLocked(q, *w->trx, w->key, w->mode, w->bits, w);
      if (b == nullptr) {
        w->granted = true;
        w->trx->blocker = nullptr;
        w->trx->cv.NotifyOne();
      } else {
        w->trx->blocker = b;
      }
    }
  }

  Status Lock(Trx& trx, const Key& key, storage::LockMode mode, uint16_t bits, std::chrono::milliseconds timeout)
      EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    Queue& q = queues_[key];
    for (const Request* o : q.reqs) {
      if (o->trx == &trx && o->granted && storage::LockModeStrongerOrEqual(o->mode, mode) &&
          (key.is_table || storage::RecLockCovers(o->mode, o->bits, mode, bits, key.c == storage::kSupremumHeapNo))) {
        return Status::OK();
      }
    }
    Trx* blocker = BlockerLocked(q, trx, key, mode, bits, nullptr);
    Request* r = NewRequest(trx);
    *r = Request{&trx, key, mode, bits, blocker == nullptr};
    q.reqs.push_back(r);
    trx.locks.push_back(r);
    if (blocker == nullptr) return Status::OK();

    ++waits_;
    trx.blocker = blocker;
    // Deadlock check under the global mutex; the requester is the victim.
    int depth = 0;
    for (Trx* t = blocker; t != nullptr && depth < 200; t = t->blocker, ++depth) {
      if (t == &trx) {
        ++deadlocks_;
        if (print_ && logger_ != nullptr) LogDeadlockLocked(trx);
        Withdraw(q, trx, r);
        return storage::LockDeadlockError();
      }
    }
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!r->granted) {
      if (!trx.cv.WaitUntil(&mu_, deadline) && !r->granted) {
        Withdraw(q, trx, r);
        return storage::LockWaitTimeoutError();
      }
    }
    return Status::OK();
  }

  void Withdraw(Queue& q, Trx& trx, Request* r) REQUIRES(mu_) {
    q.reqs.erase(std::find(q.reqs.begin(), q.reqs.end(), r));
    trx.locks.pop_back();
    trx.free.push_back(r);
    trx.blocker = nullptr;
    GrantLocked(q);
  }

  void LogDeadlockLocked(Trx& trx) REQUIRES(mu_) {
    storage::DeadlockReport report;
    report.when = std::chrono::system_clock::now();
    report.number = deadlocks_;
    for (Trx* t = &trx; t != nullptr; t = t->blocker) {
      storage::DeadlockTrxInfo info;
      info.trx_id = t->id;
      info.locks_held = t->locks.size();
      report.trxs.push_back(info);
      if (t->blocker == &trx) break;
    }
    logger_->log(spdlog::level::debug,
                 "[MY-012468] [InnoDB] Transactions deadlock detected, dumping detailed information.\n{}",
                 storage::FormatDeadlockReport(report));
  }

  std::shared_ptr<spdlog::logger> logger_;
  mutable Mutex mu_;
  std::unordered_map<Key, Queue, KeyHash> queues_ GUARDED_BY(mu_);
  uint64_t waits_ GUARDED_BY(mu_) = 0;
  uint64_t deadlocks_ GUARDED_BY(mu_) = 0;
  bool print_ = false;
};

}  // namespace sluice::tools
