// storage/lock/lock_config.h
//
// The lock manager's run-time settings and its status counters, in the shape
// the server needs: LockConfig is a set of atomics the server's system
// variables write through setters (any thread, any time) and the lock paths
// read with relaxed loads; LockCounters is a snapshot the server's status
// variables read. Nothing here depends on server/.
//
// System variables the server registers (GLOBAL scope unless noted):
//   innodb_lock_wait_timeout      -> set_lock_wait_timeout_ms(seconds*1000)
//       1..1073741824 s, default 50. (MySQL also has a SESSION value: the
//       server passes the session's value per request, see LockManager.)
//       Values above 100000000 s mean "wait forever", as in InnoDB.
//   innodb_deadlock_detect        -> set_deadlock_detect(bool), default ON.
//       OFF: no deadlock detection at all; only the wait timeout breaks
//       cycles (MySQL's semantics). The background thread still computes
//       CATS weights.
//   innodb_print_all_deadlocks    -> set_print_all_deadlocks(bool), default OFF.
//       Every deadlock goes to the error log as a [Note] (MY-012468), off the
//       lock paths and rate-limited (LockManager::Options).
//   innodb_rollback_on_timeout    -> set_rollback_on_timeout(bool), default
//       OFF; read-only at run time in MySQL. The lock manager behaves the same
//       either way: on 1205 it withdraws only the timed-out request and the
//       transaction keeps its granted locks. The caller reads this flag to
//       decide whether to roll back the statement (OFF) or the whole
//       transaction (ON, which ends in ReleaseAll).
//   sluice_lock_schedule          -> set_schedule(SchedulePolicy), values
//       'CATS' (default) | 'FIFO'. Which waiters a release grants first:
//       CATS = heaviest (most transactions blocked behind it, directly or
//       transitively) first, ties by wait start; FIFO = arrival order. Takes
//       effect for the next grant decision.
//   sluice_deadlock_detect_inline -> set_inline_deadlock_detect(bool), default
//       ON. With innodb_deadlock_detect ON: a request that has to wait first
//       follows the wait-for chain itself and resolves a cycle it closes at
//       once; OFF leaves all detection to the background detector (within
//       LockManager::Options::detector_interval, or sooner when woken).
//
// Status variables (from LockManager::Counters()):
//   Innodb_row_lock_waits           row_lock_waits
//   Innodb_row_lock_current_waits   row_lock_current_waits
//   Innodb_row_lock_time            row_lock_time_ms
//   Innodb_row_lock_time_avg        row_lock_time_avg_ms
//   Innodb_row_lock_time_max        row_lock_time_max_ms
//   Innodb_deadlocks                deadlocks (MariaDB's name; MySQL shows the
//                                   same count as INNODB_METRICS lock_deadlocks)
//   (INNODB_METRICS lock_timeouts)  lock_timeouts
// As in InnoDB the row-lock figures count record-lock waits only; table-lock
// waits are counted apart (table_lock_waits).
//
// Thread-safety: LockConfig setters and getters from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

namespace sluice::storage {

enum class SchedulePolicy : uint8_t { kCats = 0, kFifo = 1 };

std::string_view SchedulePolicyName(SchedulePolicy policy);  // "CATS" / "FIFO"
// Case-insensitive "CATS" / "FIFO". Returns false for anything else.
bool ParseSchedulePolicy(std::string_view text, SchedulePolicy* policy);

class LockConfig {
 public:
  uint64_t lock_wait_timeout_ms() const { return lock_wait_timeout_ms_.load(std::memory_order_relaxed); }
  void set_lock_wait_timeout_ms(uint64_t ms) { lock_wait_timeout_ms_.store(ms, std::memory_order_relaxed); }

  bool deadlock_detect() const { return deadlock_detect_.load(std::memory_order_relaxed); }
  void set_deadlock_detect(bool on) { deadlock_detect_.store(on, std::memory_order_relaxed); }

  bool inline_deadlock_detect() const { return inline_detect_.load(std::memory_order_relaxed); }
  void set_inline_deadlock_detect(bool on) { inline_detect_.store(on, std::memory_order_relaxed); }

  bool print_all_deadlocks() const { return print_all_deadlocks_.load(std::memory_order_relaxed); }
  void set_print_all_deadlocks(bool on) { print_all_deadlocks_.store(on, std::memory_order_relaxed); }

  bool rollback_on_timeout() const { return rollback_on_timeout_.load(std::memory_order_relaxed); }
  void set_rollback_on_timeout(bool on) { rollback_on_timeout_.store(on, std::memory_order_relaxed); }

  SchedulePolicy schedule() const { return schedule_.load(std::memory_order_relaxed); }
  void set_schedule(SchedulePolicy p) { schedule_.store(p, std::memory_order_relaxed); }

 private:
  // Written rarely, read on every wait: kept on their own line, away from
  // anything the lock paths write.
  alignas(64) std::atomic<uint64_t> lock_wait_timeout_ms_{50'000};
  std::atomic<bool> deadlock_detect_{true};
  std::atomic<bool> inline_detect_{true};
  std::atomic<bool> print_all_deadlocks_{false};
  std::atomic<bool> rollback_on_timeout_{false};
  std::atomic<SchedulePolicy> schedule_{SchedulePolicy::kCats};
};

// A snapshot, summed over per-thread slots on read.
struct LockCounters {
  uint64_t row_lock_waits = 0;          // Innodb_row_lock_waits
  int64_t row_lock_current_waits = 0;   // Innodb_row_lock_current_waits
  uint64_t row_lock_time_ms = 0;        // Innodb_row_lock_time
  uint64_t row_lock_time_avg_ms = 0;    // Innodb_row_lock_time_avg
  uint64_t row_lock_time_max_ms = 0;    // Innodb_row_lock_time_max
  uint64_t table_lock_waits = 0;
  uint64_t deadlocks = 0;               // Innodb_deadlocks / lock_deadlocks
  uint64_t lock_timeouts = 0;           // lock_timeouts
  uint64_t deadlock_reports_printed = 0;
  uint64_t deadlock_reports_suppressed = 0;  // rate limit or full queue
};

}  // namespace sluice::storage
