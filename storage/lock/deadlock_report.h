// storage/lock/deadlock_report.h
//
// What a deadlock looked like, and where reports go.
//
// DeadlockReport is plain data copied out while the detector holds the
// global latch exclusive (no formatting there). FormatDeadlockReport turns
// it into the text of SHOW ENGINE INNODB STATUS's "LATEST DETECTED DEADLOCK"
// section, called only with no lock-manager latch held.
//
// DeadlockReporter keeps the latest reports (a small ring) for the status
// statement and, when innodb_print_all_deadlocks is ON, writes them to the
// error log from its own thread: the thread that resolved the deadlock only
// pushes a pointer onto a bounded queue and never waits for, formats or
// writes a line. The reporter prints at most `max_per_second` reports per
// second and counts the rest (queue full or over the rate), logging a
// one-line summary of how many it skipped. Frequent deadlocks with printing
// ON therefore cost the lock paths one short mutex hold per deadlock.
//
// Thread-safety: all DeadlockReporter methods from any thread. It owns its
// thread, started in the constructor and joined in the destructor.
// Lock order: DeadlockReporter::mu_ is a leaf: never held while taking any
// lock-manager latch, and never taken while holding one.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "storage/lock/lock_types.h"

namespace sluice::storage {

struct DeadlockLockInfo {
  bool valid = false;
  bool is_table = false;
  TableId table = 0;
  RecordId record;
  LockMode mode = LockMode::kX;
  uint16_t precision = 0;  // kGapBit | kRecNotGapBit | kInsertIntentionBit
  bool waiting = false;
};

struct DeadlockTrxInfo {
  uint64_t trx_id = 0;
  uint64_t thread_id = 0;     // the connection, as set by the caller
  uint64_t locks_held = 0;
  uint64_t weight = 0;        // locks held + caller's weight hint: victim choice
  int64_t waited_ms = 0;
  DeadlockLockInfo waiting_for;  // the request this transaction waits on
  DeadlockLockInfo holds;        // a lock it holds that the previous one waits for
};

struct DeadlockReport {
  uint64_t number = 0;  // 1 for the first deadlock of this lock manager
  std::chrono::system_clock::time_point when;
  bool found_inline = false;  // by the requester (true) or the background thread
  // Cycle order: trxs[i] waits for trxs[i + 1], the last for trxs[0].
  std::vector<DeadlockTrxInfo> trxs;
  size_t victim = 0;  // index into trxs
};

// The LATEST DETECTED DEADLOCK section's body, InnoDB-style:
//   *** (1) TRANSACTION: ... *** (1) HOLDS THE LOCK(S): ...
//   *** (1) WAITING FOR THIS LOCK TO BE GRANTED: ... *** WE ROLL BACK TRANSACTION (2)
std::string FormatDeadlockReport(const DeadlockReport& report);

// One lock as InnoDB prints it, e.g.
// "RECORD LOCKS space id 2 page no 4 heap no 3 lock_mode X locks rec but not gap waiting".
std::string FormatDeadlockLock(const DeadlockLockInfo& lock, uint64_t trx_id);

class DeadlockReporter {
 public:
  struct Options {
    size_t history = 16;          // reports kept for the status statement
    size_t queue_capacity = 256;  // reports waiting to be printed
    double max_per_second = 10;   // printed reports per second (burst: the same number)
    // How often the reporter looks at its queue. Publish() never wakes it, so
    // a storm of deadlocks costs no wake-ups; Drain() does.
    std::chrono::milliseconds poll_interval{100};
  };

  // `logger` must outlive this object (spdlog loggers are shared_ptrs).
  DeadlockReporter(std::shared_ptr<spdlog::logger> logger, Options options);
  ~DeadlockReporter();
  DeadlockReporter(const DeadlockReporter&) = delete;
  DeadlockReporter& operator=(const DeadlockReporter&) = delete;

  // Keeps `report` as the latest; queues it for the error log when `print`.
  // Never blocks on logging. REQUIRES: no lock-manager latch held.
  void Publish(std::shared_ptr<const DeadlockReport> report, bool print) EXCLUDES(mu_);

  // Newest first; copies of pointers to immutable reports.
  std::vector<std::shared_ptr<const DeadlockReport>> Recent() const EXCLUDES(mu_);
  std::shared_ptr<const DeadlockReport> Latest() const EXCLUDES(mu_);

  uint64_t printed() const EXCLUDES(mu_);
  uint64_t suppressed() const EXCLUDES(mu_);

  // Blocks until every queued report has been printed or dropped (tests,
  // shutdown). Returns at once when the queue is empty.
  void Drain() EXCLUDES(mu_);

 private:
  void Main() EXCLUDES(mu_);

  const std::shared_ptr<spdlog::logger> logger_;
  const Options options_;

  mutable Mutex mu_;
  CondVar cv_;       // work for the reporter thread
  CondVar idle_cv_;  // queue drained
  std::deque<std::shared_ptr<const DeadlockReport>> history_ GUARDED_BY(mu_);  // newest first
  std::deque<std::shared_ptr<const DeadlockReport>> queue_ GUARDED_BY(mu_);
  bool busy_ GUARDED_BY(mu_) = false;  // printing outside mu_
  bool drain_requested_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  uint64_t printed_ GUARDED_BY(mu_) = 0;
  uint64_t suppressed_ GUARDED_BY(mu_) = 0;
  uint64_t suppressed_unlogged_ GUARDED_BY(mu_) = 0;  // not yet summarised in the log
  std::thread thread_;                // joined in the destructor
};

}  // namespace sluice::storage
