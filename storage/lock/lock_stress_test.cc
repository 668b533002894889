// Many threads take random table and record locks in short transactions,
// with deadlocks, timeouts, KILLs and policy switches going on, while a
// shadow table checks that no two transactions ever hold conflicting record
// locks. At the end no lock, queue or waiter may be left. Meant for
// ThreadSanitizer as much as for the assertions.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "storage/lock/lock_manager.h"
#include "storage/lock/lock_test_util.h"

namespace sluice::storage {
namespace {

constexpr int kThreads = 8;
constexpr int kPages = 3;
constexpr int kHeaps = 6;  // heap numbers 2..7 (1 is the supremum, also used)
constexpr auto kRunFor = std::chrono::milliseconds(1500);

struct Shadow {
  std::atomic<uint64_t> x_owner{0};
  std::atomic<int> s_holders{0};
};

int ShadowIndex(const RecordId& r) { return static_cast<int>(r.page_no * kHeaps + (r.heap_no - 2)); }

TEST(LockStressTest, RandomLocksFromManyThreadsLeaveNothingBehind) {
  auto sink = std::make_shared<testing::CaptureSink>();
  LockManager::Options options;
  options.record_shards = 4;
  options.table_shards = 2;
  options.detector_interval = std::chrono::milliseconds(5);
  options.detector_min_interval = std::chrono::microseconds(200);
  options.logger = testing::MakeCaptureLogger(sink);
  options.reporter.max_per_second = 50;
  LockManager lm(options);
  lm.config().set_print_all_deadlocks(true);

  std::vector<Shadow> shadow(kPages * kHeaps);
  std::atomic<bool> stop{false};
  std::atomic<bool> violation{false};
  std::atomic<uint64_t> commits{0}, deadlocks{0}, timeouts{0}, interrupted{0};
  std::vector<LockTrxPtr> trxs;
  for (int t = 0; t < kThreads; ++t) trxs.push_back(lm.CreateTrx(0));

  auto worker = [&](int t) {
    LockTrx& trx = *trxs[t];
    std::mt19937_64 rng(1234 + t);
    uint64_t next_id = static_cast<uint64_t>(t) << 40;
    std::vector<int> my_x, my_s;  // shadow entries this transaction holds
    while (!stop.load(std::memory_order_relaxed)) {
      trx.set_id(++next_id);
      trx.set_weight_hint(rng() % 3);
      my_x.clear();
      my_s.clear();
      Status s;
      const int ops = 1 + static_cast<int>(rng() % 6);
      for (int op = 0; op < ops && s.ok(); ++op) {
        const auto timeout = std::chrono::milliseconds(2000);
        const int kind = static_cast<int>(rng() % 100);
        if (kind < 12) {
          const LockMode mode = static_cast<LockMode>(rng() % 5);
          // Mostly intention locks, as row operations take them.
          const LockMode m = (rng() % 4 == 0) ? mode : (rng() % 2 ? LockMode::kIX : LockMode::kIS);
          s = lm.LockTable(trx, rng() % 2, m, timeout);
          if (s.ok() && m == LockMode::kAutoInc && rng() % 2) lm.ReleaseTable(trx, rng() % 2, LockMode::kAutoInc);
          continue;
        }
        RecordId rec{1, rng() % kPages, 2 + rng() % kHeaps};
        if (rng() % 20 == 0) rec.heap_no = kSupremumHeapNo;
        const LockMode mode = rng() % 3 == 0 ? LockMode::kS : LockMode::kX;
        RecLockType type;
        switch (rng() % 5) {
          case 0: type = RecLockType::kGap; break;
          case 1: type = RecLockType::kInsertIntention; break;
          case 2: type = RecLockType::kNextKey; break;
          default: type = RecLockType::kRecNotGap; break;
        }
        const LockMode m = type == RecLockType::kInsertIntention ? LockMode::kX : mode;
        if (kind < 16 && rec.heap_no != kSupremumHeapNo) {
          // READ COMMITTED-style early release of a non-gap lock.
          const int idx = ShadowIndex(rec);
          const bool mine = m == LockMode::kX ? std::count(my_x.begin(), my_x.end(), idx) > 0
                                              : std::count(my_s.begin(), my_s.end(), idx) > 0;
          if (mine) {
            if (m == LockMode::kX) {
              shadow[idx].x_owner.store(0);
              my_x.erase(std::remove(my_x.begin(), my_x.end(), idx), my_x.end());
            } else {
              shadow[idx].s_holders.fetch_sub(1);
              my_s.erase(std::remove(my_s.begin(), my_s.end(), idx), my_s.end());
            }
            lm.ReleaseRecord(trx, rec, m);
          }
          continue;
        }
        s = lm.LockRecord(trx, rec, m, type, timeout);
        const bool record_part = rec.heap_no != kSupremumHeapNo &&
                                 (type == RecLockType::kNextKey || type == RecLockType::kRecNotGap);
        if (!s.ok() || !record_part) continue;
        const int idx = ShadowIndex(rec);
        Shadow& sh = shadow[idx];
        const uint64_t me = trx.id();
        const bool i_hold_s = std::count(my_s.begin(), my_s.end(), idx) > 0;
        if (m == LockMode::kX) {
          if (std::count(my_x.begin(), my_x.end(), idx) == 0) {
            uint64_t expected = 0;
            if (!sh.x_owner.compare_exchange_strong(expected, me)) violation = true;
            if (sh.s_holders.load() != (i_hold_s ? 1 : 0)) violation = true;
            my_x.push_back(idx);
          }
        } else if (!i_hold_s && std::count(my_x.begin(), my_x.end(), idx) == 0) {
          sh.s_holders.fetch_add(1);
          const uint64_t owner = sh.x_owner.load();
          if (owner != 0 && owner != me) violation = true;
          my_s.push_back(idx);
        }
      }
      if (s.ok()) {
        commits.fetch_add(1);
      } else if (IsDeadlock(s)) {
        deadlocks.fetch_add(1);
      } else if (IsLockWaitTimeout(s)) {
        timeouts.fetch_add(1);
      } else if (s.mysql_errno() == 1317) {
        interrupted.fetch_add(1);
      } else {
        ADD_FAILURE() << s.ToString();
      }
      for (int idx : my_x) shadow[idx].x_owner.store(0);
      for (int idx : my_s) shadow[idx].s_holders.fetch_sub(1);
      lm.ReleaseAll(trx);  // commit or rollback alike
      if (trx.lock_count() != 0) violation = true;
    }
  };

  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);

  // Chaos: switch policy and inline detection, KILL random waiters, read
  // status and the deadlock history, as the server would.
  std::thread chaos([&] {
    std::mt19937_64 rng(99);
    const auto end = std::chrono::steady_clock::now() + kRunFor;
    while (std::chrono::steady_clock::now() < end) {
      lm.config().set_schedule(rng() % 2 ? SchedulePolicy::kCats : SchedulePolicy::kFifo);
      lm.config().set_inline_deadlock_detect(rng() % 4 != 0);
      if (rng() % 64 == 0) lm.CancelWait(*trxs[rng() % kThreads]);
      (void)lm.Counters();
      (void)lm.LatestDeadlockText();
      if (rng() % 16 == 0) (void)lm.Census();
      if (rng() % 16 == 0) lm.RunDetectorOnce();
      std::this_thread::yield();
    }
    stop = true;
  });
  chaos.join();
  for (auto& t : threads) t.join();

  EXPECT_FALSE(violation.load());
  const LockCensus census = lm.Census();
  EXPECT_EQ(census.queues, 0u);
  EXPECT_EQ(census.granted, 0u);
  EXPECT_EQ(census.waiting, 0u);
  const LockCounters counters = lm.Counters();
  EXPECT_EQ(counters.row_lock_current_waits, 0);
  EXPECT_GT(commits.load(), 0u);
  lm.FlushDeadlockLog();
  std::printf("stress: %llu commits, %llu deadlocks (%llu counted), %llu timeouts, %llu interrupted, "
              "%llu row lock waits, %llu reports printed, %llu suppressed\n",
              (unsigned long long)commits.load(), (unsigned long long)deadlocks.load(),
              (unsigned long long)counters.deadlocks, (unsigned long long)timeouts.load(),
              (unsigned long long)interrupted.load(), (unsigned long long)counters.row_lock_waits,
              (unsigned long long)counters.deadlock_reports_printed,
              (unsigned long long)counters.deadlock_reports_suppressed);
  EXPECT_EQ(deadlocks.load(), counters.deadlocks);
}

}  // namespace
}  // namespace sluice::storage
