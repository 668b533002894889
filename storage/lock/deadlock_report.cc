#include "storage/lock/deadlock_report.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>

#include "base/thread_name.h"

namespace sluice::storage {

std::string FormatDeadlockLock(const DeadlockLockInfo& lock, uint64_t trx_id) {
  if (!lock.valid) return "(lock not recorded)";
  std::string out;
  if (lock.is_table) {
    fmt::format_to(std::back_inserter(out), "TABLE LOCK table id {} trx id {} lock mode {}",
                   lock.table, trx_id, LockModeName(lock.mode));
  } else {
    fmt::format_to(std::back_inserter(out), "RECORD LOCKS space id {} page no {} heap no {} trx id {} ",
                   lock.record.space_id, lock.record.page_no, lock.record.heap_no, trx_id);
    // InnoDB's spelling: "lock mode S" but "lock_mode X".
    out += lock.mode == LockMode::kS ? "lock mode S" : "lock_mode X";
    if (lock.record.heap_no == kSupremumHeapNo) {
      out += " (supremum)";
    } else if ((lock.precision & kInsertIntentionBit) != 0) {
      out += " locks gap before rec insert intention";
    } else if ((lock.precision & kGapBit) != 0) {
      out += " locks gap before rec";
    } else if ((lock.precision & kRecNotGapBit) != 0) {
      out += " locks rec but not gap";
    }
  }
  if (lock.waiting) out += " waiting";
  return out;
}

std::string FormatDeadlockReport(const DeadlockReport& report) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{:%Y-%m-%d %H:%M:%S} deadlock #{} ({} transactions, found by {})\n",
                 fmt::gmtime(std::chrono::system_clock::to_time_t(report.when)), report.number,
                 report.trxs.size(), report.found_inline ? "the requester" : "the background detector");
  for (size_t i = 0; i < report.trxs.size(); ++i) {
    const DeadlockTrxInfo& t = report.trxs[i];
    fmt::format_to(it, "*** ({}) TRANSACTION:\n", i + 1);
    fmt::format_to(it, "TRANSACTION {}, LOCK WAIT {} ms, {} lock(s) held, weight {}, thread id {}\n",
                   t.trx_id, t.waited_ms, t.locks_held, t.weight, t.thread_id);
    fmt::format_to(it, "*** ({}) HOLDS THE LOCK(S):\n{}\n", i + 1, FormatDeadlockLock(t.holds, t.trx_id));
    fmt::format_to(it, "*** ({}) WAITING FOR THIS LOCK TO BE GRANTED:\n{}\n", i + 1,
                   FormatDeadlockLock(t.waiting_for, t.trx_id));
  }
  fmt::format_to(it, "*** WE ROLL BACK TRANSACTION ({})\n", report.victim + 1);
  return out;
}

DeadlockReporter::DeadlockReporter(std::shared_ptr<spdlog::logger> logger, Options options)
    : logger_(std::move(logger)), options_(options) {
  thread_ = std::thread([this] {
    NameThisThread("sl_deadlock_log");
    Main();
  });
}

DeadlockReporter::~DeadlockReporter() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.NotifyAll();
  thread_.join();
}

void DeadlockReporter::Publish(std::shared_ptr<const DeadlockReport> report, bool print) {
  MutexLock lock(&mu_);
  if (options_.history > 0) {
    history_.push_front(report);
    if (history_.size() > options_.history) history_.pop_back();
  }
  if (print) {
    if (queue_.size() >= options_.queue_capacity) {
      ++suppressed_;
      ++suppressed_unlogged_;
    } else {
      queue_.push_back(std::move(report));
    }
  }
}

std::vector<std::shared_ptr<const DeadlockReport>> DeadlockReporter::Recent() const {
  MutexLock lock(&mu_);
  return {history_.begin(), history_.end()};
}

std::shared_ptr<const DeadlockReport> DeadlockReporter::Latest() const {
  MutexLock lock(&mu_);
  return history_.empty() ? nullptr : history_.front();
}

uint64_t DeadlockReporter::printed() const {
  MutexLock lock(&mu_);
  return printed_;
}

uint64_t DeadlockReporter::suppressed() const {
  MutexLock lock(&mu_);
  return suppressed_;
}

void DeadlockReporter::Drain() {
  MutexLock lock(&mu_);
  if (queue_.empty() && !busy_) return;
  drain_requested_ = true;
  cv_.NotifyOne();
  while (!((queue_.empty() && !busy_) || stop_)) idle_cv_.Wait(&mu_);
}

void DeadlockReporter::Main() {
  using Clock = std::chrono::steady_clock;
  const double rate = std::max(options_.max_per_second, 0.001);
  const double burst = std::max(options_.max_per_second, 1.0);
  double tokens = burst;
  Clock::time_point refilled = Clock::now();

  MutexLock lock(&mu_);
  for (;;) {
    // Poll: publishers never wake this thread, only Drain() and Stop do.
    const Clock::time_point deadline = Clock::now() + options_.poll_interval;
    while (!stop_ && !drain_requested_) {
      if (!cv_.WaitUntil(&mu_, deadline)) break;
    }
    if (stop_) break;
    drain_requested_ = false;
    if (queue_.empty() && suppressed_unlogged_ == 0) continue;

    const Clock::time_point now = Clock::now();
    tokens = std::min(burst, tokens + std::chrono::duration<double>(now - refilled).count() * rate);
    refilled = now;

    std::vector<std::shared_ptr<const DeadlockReport>> to_print;
    while (!queue_.empty()) {
      if (tokens >= 1.0) {
        tokens -= 1.0;
        to_print.push_back(std::move(queue_.front()));
      } else {
        ++suppressed_;
        ++suppressed_unlogged_;
      }
      queue_.pop_front();
    }
    const uint64_t skipped = suppressed_unlogged_;
    suppressed_unlogged_ = 0;
    busy_ = true;
    lock.Unlock();

    // Formatting and the spdlog call happen here, on this thread only.
    if (logger_ != nullptr && logger_->should_log(spdlog::level::debug)) {
      for (const auto& report : to_print) {
        logger_->log(spdlog::level::debug,
                     "[MY-012468] [InnoDB] Transactions deadlock detected, dumping detailed information.\n{}",
                     FormatDeadlockReport(*report));
      }
    }
    if (skipped > 0 && logger_ != nullptr) {
      logger_->log(spdlog::level::warn,
                   "[MY-012468] [InnoDB] {} deadlock report(s) not printed (innodb_print_all_deadlocks "
                   "rate limit); see SHOW ENGINE INNODB STATUS for the latest",
                   skipped);
    }

    lock.Lock();
    printed_ += to_print.size();
    busy_ = false;
    if (queue_.empty()) idle_cv_.NotifyAll();
  }
  busy_ = false;
  idle_cv_.NotifyAll();
}

}  // namespace sluice::storage
