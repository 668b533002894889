// storage/lock/lock_manager.h
//
// The storage engine's lock manager: InnoDB-compatible table locks (IS, IX,
// S, X, AUTO-INC) and record locks (S/X with next-key, gap, rec-not-gap and
// insert-intention precision), wait queues with CATS or FIFO grant order,
// lock wait timeouts (ER 1205) and deadlock detection (ER 1213).
//
// Layout (see README.md for the reasoning and the measurements):
//   - record locks hashed into `record_shards` shards by (space, page), table
//     locks into `table_shards` shards of their own; each shard has its own
//     mutex, hash table of lock queues and list of waiters;
//   - a global ShardedRwLatch taken shared by every ordinary operation (one
//     write to the calling thread's own cache line, no locked instruction) and
//     exclusive only to verify and resolve a deadlock cycle, by CancelWait
//     (KILL) and by Census; the detector's snapshot is taken shard by shard;
//   - transactions are LockTrx objects the caller holds, so no lock call looks
//     a transaction up in a shared table; counters are per-thread slots summed
//     on read. Nothing on the lock/unlock path writes a line other threads
//     write, except the shard (and queue) the lock lives in.
//
// Threads: the manager owns one background thread, the deadlock detector
// (started in the constructor, joined in the destructor), and a
// DeadlockReporter thread that writes deadlocks to the error log.
// Waiting: a waiter whose blocker is running spins briefly (Options::wait_spin,
// adaptive) and then sleeps on its own condition variable; grants wake only
// the grantees.
//
// Thread-safety: every public method may be called from any thread, but one
// LockTrx is driven by one thread at a time.
// Lock order: global latch (S or X) -> Shard::mu (one at a time) ->
// LockTrx::wait_mu_. DeadlockReporter::mu_, detector_mu_ and trx_pool_mu_ are
// leaves, never held while taking a latch.
// Blocking: LockTable/LockRecord block up to the lock wait timeout; never call
// them on an I/O thread.
#pragma once

#include <spdlog/logger.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/function_ref.h"
#include "base/mutex.h"
#include "base/status.h"
#include "storage/lock/deadlock_report.h"
#include "storage/lock/lock_config.h"
#include "storage/lock/lock_errors.h"
#include "storage/lock/lock_trx.h"
#include "storage/lock/lock_types.h"
#include "storage/lock/sharded_rw_latch.h"

namespace sluice::storage {

// The manager's data structures (lock_internal.h, private to storage/lock/),
// named here only as pointers and references.
namespace lock_internal {
struct LockRequest;
struct Queue;
struct Shard;
struct LockKey;
}  // namespace lock_internal

// Test seam: callbacks on the slow paths, called with no latch held. Used to
// order threads in tests without sleeping; production passes none.
class LockObserver {
 public:
  virtual ~LockObserver() = default;
  // The request of `trx` is queued; the thread is about to sleep.
  virtual void OnWaitStart(const LockTrx& trx) {}
  // A deadlock was resolved (victim marked; the report published).
  virtual void OnDeadlock(const DeadlockReport& report) {}
};

// What Census() counts.
struct LockCensus {
  uint64_t queues = 0;
  uint64_t granted = 0;  // granted requests, table and record
  uint64_t waiting = 0;  // waiting requests (cancelled ones included)
  uint64_t table_granted = 0;
  uint64_t record_granted = 0;
};

class LockManager {
 public:
  struct Options {
    size_t record_shards = 256;
    size_t table_shards = 64;
    // Background detector: a round at least this often, and at most this
    // often when waits keep waking it (each round takes the latch exclusive).
    std::chrono::milliseconds detector_interval{1000};
    std::chrono::microseconds detector_min_interval{1000};
    bool start_detector = true;  // tests may drive rounds with RunDetectorOnce()
    size_t inline_detect_max_depth = 256;  // wait-for chain followed inline
    // Spin-then-park: a waiter whose blocker is running spins this long
    // before it sleeps (at most half the CPUs spin at once). 0 = never spin.
    std::chrono::microseconds wait_spin{20};
    DeadlockReporter::Options reporter;
    // Error log for deadlock reports; default base::GetLogger("storage").
    std::shared_ptr<spdlog::logger> logger;
    LockObserver* observer = nullptr;  // not owned; must outlive the manager
  };

  LockManager() : LockManager(Options{}) {}
  explicit LockManager(Options options);
  // Stops and joins the background threads. REQUIRES: no thread is inside a
  // lock call, and every LockTrxPtr has been destroyed.
  ~LockManager();
  LockManager(const LockManager&) = delete;
  LockManager& operator=(const LockManager&) = delete;

  // The run-time settings (system variables); see lock_config.h.
  LockConfig& config() { return config_; }
  const LockConfig& config() const { return config_; }

  // A transaction handle, recycled from the manager's pool. Takes a mutex
  // (once per CreateTrx, not per lock); sessions may keep one for many
  // transactions instead (LockTrx::set_id).
  LockTrxPtr CreateTrx(uint64_t trx_id);

  // `timeout`: nullopt = innodb_lock_wait_timeout from config(); the server
  // passes the session's value here. Zero = do not wait (1205 at once and
  // nothing is queued). Results for both calls:
  //   OK        granted, or already covered by a lock `trx` holds (no new
  //             lock); an insert-intention request that need not wait
  //             creates no lock (as InnoDB).
  //   1205      lock wait timeout: the request is withdrawn; locks already
  //             granted stay (see innodb_rollback_on_timeout in lock_config.h).
  //   1213      `trx` was chosen as a deadlock victim: the request is
  //             withdrawn; the caller must roll back (ReleaseAll).
  //   1317      CancelWait() (KILL QUERY) interrupted the wait.
  //   InvalidArgument for a mode that makes no sense (e.g. record IX).
  // Taking a mode stronger than one held adds a request (an upgrade) that
  // waits like any other; a request by a transaction that already holds a
  // granted lock blocking an X waiter does not queue behind that waiter
  // (InnoDB 8.0's CAN_BYPASS rule, which avoids upgrade deadlocks).
  // REQUIRES: no other call for `trx` in flight.
  Status LockTable(LockTrx& trx, TableId table, LockMode mode,
                   std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // mode is kS or kX; kInsertIntention requires kX.
  Status LockRecord(LockTrx& trx, const RecordId& record, LockMode mode, RecLockType type,
                    std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  // An insert-intention X lock on `record`, for a caller that holds latches
  // and so must not wait, even for the lock manager's own latches (purge
  // holds a shard latch while it takes page latches: RunIfUnlocked). True:
  // no lock conflicts, and as with LockRecord nothing is left behind.
  // False: a lock conflicts, or the shard could not be looked at without
  // waiting; the caller lets go of its latches and calls LockRecord.
  bool TryInsertIntention(LockTrx& trx, const RecordId& record);

  // Releases every lock of `trx` (commit or rollback) and grants what that
  // unblocks. O(locks held). REQUIRES: `trx` is not waiting.
  void ReleaseAll(LockTrx& trx);

  // Releases `trx`'s granted non-gap record locks of `mode` on `record`
  // (InnoDB lock_rec_unlock: READ COMMITTED drops locks on rows that did not
  // match). Returns how many were released.
  size_t ReleaseRecord(LockTrx& trx, const RecordId& record, LockMode mode);

  // Purge: runs `fn` only when no transaction holds or waits for any lock
  // on `record` (a queue exists), keeping `record`'s shard latched while it
  // runs so that none can get one meanwhile. Returns whether `fn` ran. The
  // engine removes a delete-marked record this way: a gap or next-key lock
  // on it would otherwise lose the gap it protects. `fn` must not call the
  // lock manager and must not wait for anything that may wait for a lock.
  bool RunIfUnlocked(const RecordId& record, FunctionRef<void()> fn);
  // The same over several records at once: `fn` runs only when none of
  // them has a lock, with every shard they fall in latched (in shard order;
  // no other path holds two shard latches, so this cannot deadlock with
  // one). Purge removes a row's stale secondary entries this way, the row
  // and the entries together: an entry with a gap lock on it stays.
  bool RunIfUnlocked(std::span<const RecordId> records, FunctionRef<void()> fn);

  // Releases `trx`'s granted table lock of `mode` on `table` (AUTO-INC at the
  // end of the statement). Returns whether one was held.
  bool ReleaseTable(LockTrx& trx, TableId table, LockMode mode);

  // KILL QUERY: makes a waiting request of `trx` fail with 1317. Returns
  // whether it was waiting. Takes the global latch exclusive (rare).
  bool CancelWait(LockTrx& trx);

  // One detector round now, on the calling thread: snapshot the waiters,
  // compute CATS weights, resolve cycles. REQUIRES: no latch held.
  void RunDetectorOnce();

  // Status counters, summed over per-thread slots.
  LockCounters Counters() const;

  // Deadlock history, newest first, and the latest one formatted for SHOW
  // ENGINE INNODB STATUS ("" when none yet).
  std::vector<std::shared_ptr<const DeadlockReport>> RecentDeadlocks() const;
  std::string LatestDeadlockText() const;
  // Waits until queued deadlock reports have been logged (tests, shutdown).
  void FlushDeadlockLog();

  // Every queue, granted and waiting request, counted under the exclusive
  // latch. For tests ("no lock left behind") and monitors; stops the world.
  LockCensus Census() const;

  size_t record_shards() const { return n_record_shards_; }

 private:
  using Request = lock_internal::LockRequest;
  using Queue = lock_internal::Queue;
  using Shard = lock_internal::Shard;
  using WaitOutcome = lock_internal::WaitOutcome;
  struct WakeList;
  struct CounterSlot;
  struct DetectorScratch;

  friend struct LockTrxDeleter;
  void ReturnTrx(LockTrx* trx);

  Status Acquire(LockTrx& trx, bool is_table, uint32_t shard_index, const lock_internal::LockKey& key,
                 uint64_t hash, LockMode mode, uint16_t bits,
                 std::optional<std::chrono::milliseconds> timeout);
  Status WaitForGrant(LockTrx& trx, Request* req, std::chrono::milliseconds timeout, bool queue_contended);
  WaitOutcome EndWait(LockTrx& trx, Request* req, WaitOutcome seen);
  void SpinForGrant(LockTrx& trx, std::chrono::steady_clock::time_point deadline);

  Shard& ShardOf(const Request& r);
  Shard& ShardOf(bool is_table, uint32_t index);

  // Queue logic. All REQUIRE the request's shard latch (or the global latch exclusive); the
  // *Locked ones say REQUIRES(shard.mu) on their definitions (Shard is incomplete here).
  static bool HasToWait(const Queue& q, LockMode req_mode, uint16_t req_bits, const Request& other);
  // Record queues only: a table lock already covered is answered by LockTrx::TableCovered.
  static bool HoldsCovering(const Queue& q, const LockTrx& trx, LockMode mode, uint16_t bits);
  static bool HoldsGrantedBlocker(const Queue& q, const LockTrx& trx, const Request& waiter);
  // A granted lock of another transaction that (mode, bits) of `trx` must wait for.
  static LockTrx* GrantedBlockerOf(const Queue& q, const LockTrx& trx, LockMode mode, uint16_t bits);
  static LockTrx* FindBlockerForNew(const Queue& q, const LockTrx& trx, LockMode mode, uint16_t bits);
  static LockTrx* GrantedBlocker(const Queue& q, const Request& r);
  static LockTrx* EarlierWaiterBlocker(const Queue& q, const Request& r);
  void GrantWaitersLocked(Shard& shard, Queue& q, WakeList& wake);
  void GrantLocked(Shard& shard, Queue& q, Request* r, WakeList& wake);
  void ReleaseGrantedLocked(Shard& shard, Request* r, WakeList& wake);
  void WithdrawWaitingLocked(Shard& shard, Request* r, WakeList& wake);
  static void Wake(WakeList& wake);

  // Deadlocks.
  void CheckDeadlockInline(LockTrx& trx);
  // Verifies under the exclusive latch that `cycle` (cycle[i] waits for
  // cycle[i+1]) still stands; if so picks and cancels a victim, publishes a
  // report, and returns the victim. REQUIRES: no latch held.
  LockTrx* ResolveCycle(const std::vector<LockTrx*>& cycle, bool found_inline);
  bool EdgeHoldsLocked(LockTrx* waiter, LockTrx* holder) const;
  void WakeDetector();
  void DetectorMain();
  void CancelLocked(Request* r, WaitOutcome reason);

  CounterSlot& MyCounters();

  LockConfig config_;
  const Options options_;
  const size_t n_record_shards_;
  const size_t n_table_shards_;
  std::shared_ptr<spdlog::logger> logger_;

  mutable ShardedRwLatch latch_;
  std::unique_ptr<Shard[]> record_shards_;  // fixed after construction
  std::unique_ptr<Shard[]> table_shards_;
  std::unique_ptr<CounterSlot[]> counters_;  // ShardedRwLatch::kSlots, one per thread slot

  alignas(64) std::atomic<uint64_t> deadlocks_{0};  // written only when resolving one
  alignas(64) std::atomic<int> spinners_{0};         // waiters spinning now (wait path only)
  const int max_spinners_;

  // Transaction pool; taken on CreateTrx / LockTrxPtr destruction only.
  Mutex trx_pool_mu_;
  std::vector<std::unique_ptr<LockTrx>> all_trxs_ GUARDED_BY(trx_pool_mu_);
  LockTrx* free_trxs_ GUARDED_BY(trx_pool_mu_) = nullptr;

  // Background detector.
  alignas(64) std::atomic<bool> detector_pending_{false};
  Mutex detector_mu_;
  CondVar detector_cv_;
  bool detector_stop_ GUARDED_BY(detector_mu_) = false;
  Mutex round_mu_;  // one detector round at a time (thread or RunDetectorOnce)
  std::unique_ptr<DetectorScratch> scratch_ GUARDED_BY(round_mu_);

  std::unique_ptr<DeadlockReporter> reporter_;
  std::thread detector_thread_;  // joined in the destructor
};

}  // namespace sluice::storage
