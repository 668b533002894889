#include "storage/lock/lock_manager.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>
#include <vector>

#include "storage/lock/lock_test_util.h"

namespace sluice::storage {
namespace {

using std::chrono::milliseconds;
using testing::kLongWait;

constexpr milliseconds kNoWait{0};
constexpr LockMode kModes[] = {LockMode::kIS, LockMode::kIX, LockMode::kS, LockMode::kX, LockMode::kAutoInc};

RecordId Rec(uint64_t heap, uint64_t page = 7) { return RecordId{1, page, heap}; }

template <typename F>
std::future<Status> Async(F f) {
  return std::async(std::launch::async, std::move(f));
}

bool Ready(std::future<Status>& f) { return f.wait_for(milliseconds(0)) == std::future_status::ready; }

class LockManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { Make(false); }

  void Make(bool background_detector) {
    lm_.reset();
    LockManager::Options options;
    options.record_shards = 8;
    options.table_shards = 4;
    options.start_detector = background_detector;
    options.detector_interval = milliseconds(20);
    options.observer = &events_;
    options.logger = testing::MakeCaptureLogger(sink_);
    lm_ = std::make_unique<LockManager>(options);
  }

  LockCensus Census() { return lm_->Census(); }
  // Nothing left in the lock tables: no queue, no granted or waiting lock.
  void ExpectNoLocksLeft() {
    LockCensus census = Census();
    EXPECT_EQ(census.queues, 0u);
    EXPECT_EQ(census.granted, 0u);
    EXPECT_EQ(census.waiting, 0u);
  }

  testing::EventLatch events_;
  std::shared_ptr<testing::CaptureSink> sink_ = std::make_shared<testing::CaptureSink>();
  std::unique_ptr<LockManager> lm_;
};

// --- Compatibility ---------------------------------------------------------

TEST_F(LockManagerTest, TableLocksFollowTheCompatibilityMatrix) {
  for (LockMode held : kModes) {
    for (LockMode req : kModes) {
      auto a = lm_->CreateTrx(1);
      auto b = lm_->CreateTrx(2);
      ASSERT_TRUE(lm_->LockTable(*a, 10, held).ok());
      Status s = lm_->LockTable(*b, 10, req, kNoWait);
      if (LockModesCompatible(held, req)) {
        EXPECT_TRUE(s.ok()) << LockModeName(held) << " held, " << LockModeName(req) << " requested";
      } else {
        EXPECT_TRUE(IsLockWaitTimeout(s)) << LockModeName(held) << " held, " << LockModeName(req);
      }
      lm_->ReleaseAll(*a);
      lm_->ReleaseAll(*b);
    }
  }
  EXPECT_EQ(Census().queues, 0u);
}

TEST_F(LockManagerTest, RecordLocksFollowModeAndPrecisionRules) {
  const RecLockType types[] = {RecLockType::kNextKey, RecLockType::kGap, RecLockType::kRecNotGap};
  for (LockMode hm : {LockMode::kS, LockMode::kX}) {
    for (RecLockType ht : types) {
      for (LockMode rm : {LockMode::kS, LockMode::kX}) {
        for (RecLockType rt : {RecLockType::kNextKey, RecLockType::kGap, RecLockType::kRecNotGap,
                               RecLockType::kInsertIntention}) {
          if (rt == RecLockType::kInsertIntention && rm != LockMode::kX) continue;
          auto a = lm_->CreateTrx(1);
          auto b = lm_->CreateTrx(2);
          ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), hm, ht).ok());
          const bool waits = RecLockHasToWait(rm, static_cast<uint16_t>(rt), hm, static_cast<uint16_t>(ht), false);
          Status s = lm_->LockRecord(*b, Rec(5), rm, rt, kNoWait);
          EXPECT_EQ(IsLockWaitTimeout(s), waits) << "held " << LockModeName(hm) << "/" << static_cast<int>(ht)
                                                 << " req " << LockModeName(rm) << "/" << static_cast<int>(rt);
          EXPECT_EQ(s.ok(), !waits);
          lm_->ReleaseAll(*a);
          lm_->ReleaseAll(*b);
        }
      }
    }
  }
  EXPECT_EQ(Census().queues, 0u);
}

TEST_F(LockManagerTest, LocksOnDifferentRecordsOrTablesDoNotInteract) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kNextKey).ok());
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(6), LockMode::kX, RecLockType::kNextKey, kNoWait).ok());
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(5, 8), LockMode::kX, RecLockType::kNextKey, kNoWait).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 1, LockMode::kX).ok());
  EXPECT_TRUE(lm_->LockTable(*b, 2, LockMode::kX, kNoWait).ok());
}

TEST_F(LockManagerTest, GapLocksOfAnyModeCoexist) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kGap).ok());
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kGap, kNoWait).ok());
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kGap, kNoWait).ok());
  EXPECT_EQ(Census().granted, 2u);  // b's S gap is covered by its X gap
}

TEST_F(LockManagerTest, InsertIntentionWithoutConflictLeavesNoLock) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kInsertIntention, kNoWait).ok());
  EXPECT_EQ(b->lock_count(), 0u);
  EXPECT_EQ(Census().granted, 1u);
}

TEST_F(LockManagerTest, TryInsertIntentionAnswersWithoutWaitingOrLeavingALock) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  EXPECT_TRUE(lm_->TryInsertIntention(*b, Rec(5)));  // no queue
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  EXPECT_TRUE(lm_->TryInsertIntention(*b, Rec(5)));  // a record lock does not cover the gap
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(6), LockMode::kS, RecLockType::kGap).ok());
  EXPECT_FALSE(lm_->TryInsertIntention(*b, Rec(6)));  // a gap lock does
  EXPECT_TRUE(lm_->TryInsertIntention(*a, Rec(6)));   // but not its own holder's
  RecordId sup = Rec(7);
  sup.heap_no = kSupremumHeapNo;
  ASSERT_TRUE(lm_->LockRecord(*a, sup, LockMode::kS, RecLockType::kNextKey).ok());
  EXPECT_FALSE(lm_->TryInsertIntention(*b, sup));
  EXPECT_EQ(b->lock_count(), 0u);
  EXPECT_EQ(Census().waiting, 0u);
  // A shard held by purge (RunIfUnlocked) is not waited for: the answer is no.
  bool answered = false;
  EXPECT_TRUE(lm_->RunIfUnlocked(Rec(9), [&] { answered = !lm_->TryInsertIntention(*b, Rec(9)); }));
  EXPECT_TRUE(answered);
  lm_->ReleaseAll(*a);
  EXPECT_TRUE(lm_->TryInsertIntention(*b, Rec(6)));
}

TEST_F(LockManagerTest, RunIfUnlockedRunsOnlyWhenNoLockExistsOnTheRecord) {
  auto a = lm_->CreateTrx(1);
  int runs = 0;
  EXPECT_TRUE(lm_->RunIfUnlocked(Rec(5), [&] { ++runs; }));
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kGap).ok());
  EXPECT_FALSE(lm_->RunIfUnlocked(Rec(5), [&] { ++runs; }));  // a gap lock counts
  EXPECT_TRUE(lm_->RunIfUnlocked(Rec(6), [&] { ++runs; }));   // another record does not
  lm_->ReleaseAll(*a);
  EXPECT_TRUE(lm_->RunIfUnlocked(Rec(5), [&] { ++runs; }));
  EXPECT_EQ(runs, 3);
}

TEST_F(LockManagerTest, RunIfUnlockedOverSeveralRecordsNeedsEveryOneUnlocked) {
  auto a = lm_->CreateTrx(1);
  // Records on many pages fall in many shards, in no order; two are the same.
  std::vector<RecordId> ids;
  for (uint32_t page : {90u, 3u, 57u, 3u, 1000u, 12u}) ids.push_back(RecordId{1, page, 2});
  int runs = 0;
  EXPECT_TRUE(lm_->RunIfUnlocked(ids, [&] { ++runs; }));
  ASSERT_TRUE(lm_->LockRecord(*a, RecordId{1, 57, 2}, LockMode::kS, RecLockType::kGap).ok());
  EXPECT_FALSE(lm_->RunIfUnlocked(ids, [&] { ++runs; }));  // one locked entry holds the rest back
  EXPECT_TRUE(lm_->RunIfUnlocked(std::vector<RecordId>{RecordId{1, 90, 2}, RecordId{1, 12, 2}}, [&] { ++runs; }));
  // While it runs, another thread's TryInsertIntention on any of them does not wait.
  auto b = lm_->CreateTrx(2);
  lm_->ReleaseAll(*a);
  bool answered = false;
  EXPECT_TRUE(lm_->RunIfUnlocked(ids, [&] {
    ++runs;
    answered = !std::async(std::launch::async, [&] { return lm_->TryInsertIntention(*b, RecordId{1, 1000, 2}); }).get();
  }));
  EXPECT_TRUE(answered);
  EXPECT_EQ(runs, 3);
}

TEST_F(LockManagerTest, InsertIntentionWaitsForGapLockAndIsGrantedWhenItGoes) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  auto c = lm_->CreateTrx(3);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kGap).ok());
  auto insert_b = Async([&] { return lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kInsertIntention, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  // A second insert into the same gap waits for the gap lock, not for b.
  auto insert_c = Async([&] { return lm_->LockRecord(*c, Rec(5), LockMode::kX, RecLockType::kInsertIntention, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(2));
  EXPECT_EQ(Census().waiting, 2u);
  lm_->ReleaseAll(*a);
  EXPECT_TRUE(insert_b.get().ok());
  EXPECT_TRUE(insert_c.get().ok());
  // A granted insert intention stays until the transaction ends, and blocks nobody.
  EXPECT_EQ(b->lock_count(), 1u);
  auto d = lm_->CreateTrx(4);
  EXPECT_TRUE(lm_->LockRecord(*d, Rec(5), LockMode::kX, RecLockType::kNextKey, kNoWait).ok());
}

TEST_F(LockManagerTest, LocksOnSupremumAreGapLocks) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  const RecordId sup{1, 7, kSupremumHeapNo};
  ASSERT_TRUE(lm_->LockRecord(*a, sup, LockMode::kX, RecLockType::kNextKey).ok());
  EXPECT_TRUE(lm_->LockRecord(*b, sup, LockMode::kX, RecLockType::kNextKey, kNoWait).ok());
  auto c = lm_->CreateTrx(3);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockRecord(*c, sup, LockMode::kX, RecLockType::kInsertIntention, kNoWait)));
}

TEST_F(LockManagerTest, NewRequestQueuesBehindIncompatibleWaiter) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  auto c = lm_->CreateTrx(3);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  auto xb = Async([&] { return lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  // S is compatible with a's S but not with b's waiting X: no barging.
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockRecord(*c, Rec(5), LockMode::kS, RecLockType::kRecNotGap, kNoWait)));
  lm_->ReleaseAll(*a);
  EXPECT_TRUE(xb.get().ok());
}

TEST_F(LockManagerTest, InvalidRecordModesAreRejected) {
  auto a = lm_->CreateTrx(1);
  EXPECT_EQ(lm_->LockRecord(*a, Rec(5), LockMode::kIX, RecLockType::kNextKey).code(),
            Status::Code::kInvalidArgument);
  EXPECT_EQ(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kInsertIntention).code(),
            Status::Code::kInvalidArgument);
}

// --- Re-requests and upgrades ----------------------------------------------

TEST_F(LockManagerTest, CoveredRequestAddsNoLock) {
  auto a = lm_->CreateTrx(1);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kNextKey).ok());
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kGap).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIX).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIS).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIX).ok());
  EXPECT_EQ(a->lock_count(), 2u);
  EXPECT_EQ(Census().granted, 2u);
}

TEST_F(LockManagerTest, UpgradeIsImmediateWhenNoOtherHolder) {
  auto a = lm_->CreateTrx(1);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kNextKey).ok());
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kNextKey, kNoWait).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIS).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kX, kNoWait).ok());
  EXPECT_EQ(a->lock_count(), 4u);
  auto b = lm_->CreateTrx(2);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kNextKey, kNoWait)));
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*b, 3, LockMode::kIS, kNoWait)));
}

TEST_F(LockManagerTest, UpgradeWaitsForOtherSharedHolder) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  auto up = Async([&] { return lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_TRUE(a->waiting());
  lm_->ReleaseAll(*b);
  EXPECT_TRUE(up.get().ok());
  EXPECT_EQ(a->lock_count(), 2u);
}

TEST_F(LockManagerTest, UpgradeDoesNotQueueBehindWaiterItBlocks) {
  for (SchedulePolicy policy : {SchedulePolicy::kCats, SchedulePolicy::kFifo}) {
    lm_->config().set_schedule(policy);
    auto a = lm_->CreateTrx(1);
    auto b = lm_->CreateTrx(2);
    auto c = lm_->CreateTrx(3);
    const int base = events_.waits();
    ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
    ASSERT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
    auto xc = Async([&] { return lm_->LockRecord(*c, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
    ASSERT_TRUE(events_.AwaitWaits(base + 1));
    // a's upgrade waits for b's S only, not for c (which waits for a).
    auto up = Async([&] { return lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
    ASSERT_TRUE(events_.AwaitWaits(base + 2));
    lm_->ReleaseAll(*b);
    EXPECT_TRUE(up.get().ok());
    EXPECT_TRUE(c->waiting());
    lm_->ReleaseAll(*a);
    EXPECT_TRUE(xc.get().ok());
    lm_->ReleaseAll(*c);
    EXPECT_EQ(lm_->Counters().deadlocks, 0u);
  }
}

TEST_F(LockManagerTest, TwoUpgradersDeadlockAndTheLaterWaiterIsRolledBack) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  auto up_a = Async([&] { return lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  // Equal weights: the transaction that started waiting last is the victim.
  Status sb = lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait);
  EXPECT_TRUE(IsDeadlock(sb)) << sb.ToString();
  EXPECT_EQ(sb.sqlstate(), "40001");
  lm_->ReleaseAll(*b);
  EXPECT_TRUE(up_a.get().ok());
  EXPECT_EQ(lm_->Counters().deadlocks, 1u);
}

TEST_F(LockManagerTest, TableUpgradeFromIntentionToExclusiveWaitsForOthers) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIX).ok());
  ASSERT_TRUE(lm_->LockTable(*b, 3, LockMode::kIX).ok());
  auto up = Async([&] { return lm_->LockTable(*a, 3, LockMode::kX, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  lm_->ReleaseAll(*b);
  EXPECT_TRUE(up.get().ok());
  // Now covered by X: no new request.
  EXPECT_TRUE(lm_->LockTable(*a, 3, LockMode::kS).ok());
  EXPECT_EQ(a->lock_count(), 2u);
}

// A table queue counts its granted locks by mode, and a request compatible
// with every counted mode is granted without walking the queue: the counts
// must follow every grant (immediate and after a wait) and every release.
TEST_F(LockManagerTest, TableRequestsSeeTheModesStillGrantedThroughGrantsAndReleases) {
  std::vector<LockTrxPtr> holders;
  for (uint64_t id = 1; id <= 8; ++id) {
    holders.push_back(lm_->CreateTrx(id));
    ASSERT_TRUE(lm_->LockTable(*holders.back(), 5, LockMode::kIX).ok());
  }
  auto s = lm_->CreateTrx(20);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*s, 5, LockMode::kS, kNoWait)));
  for (size_t i = 0; i + 1 < holders.size(); ++i) lm_->ReleaseAll(*holders[i]);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*s, 5, LockMode::kS, kNoWait)));  // one IX is left
  auto granted_s = Async([&] { return lm_->LockTable(*s, 5, LockMode::kS, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  lm_->ReleaseAll(*holders.back());
  ASSERT_TRUE(granted_s.get().ok());  // granted after its wait: counted as S

  auto ix = lm_->CreateTrx(21);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*ix, 5, LockMode::kIX, kNoWait)));
  EXPECT_TRUE(lm_->LockTable(*ix, 5, LockMode::kIS, kNoWait).ok());

  // AUTO-INC released at statement end leaves the others' modes counted.
  auto ai = lm_->CreateTrx(22);
  ASSERT_TRUE(lm_->LockTable(*ai, 6, LockMode::kAutoInc).ok());
  ASSERT_TRUE(lm_->LockTable(*ai, 6, LockMode::kIX).ok());
  auto other = lm_->CreateTrx(23);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*other, 6, LockMode::kAutoInc, kNoWait)));
  EXPECT_TRUE(lm_->ReleaseTable(*ai, 6, LockMode::kAutoInc));
  EXPECT_TRUE(lm_->LockTable(*other, 6, LockMode::kAutoInc, kNoWait).ok());
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*other, 6, LockMode::kX, kNoWait)));  // ai's IX

  lm_->ReleaseAll(*s);
  lm_->ReleaseAll(*ix);
  lm_->ReleaseAll(*ai);
  lm_->ReleaseAll(*other);
  ExpectNoLocksLeft();
}

// --- Release ---------------------------------------------------------------

TEST_F(LockManagerTest, ReleaseAllLeavesNothingAndWakesWaiters) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIX).ok());
  for (uint64_t i = 2; i < 50; ++i) {
    ASSERT_TRUE(lm_->LockRecord(*a, Rec(i, i % 5), LockMode::kX, RecLockType::kNextKey).ok());
  }
  EXPECT_EQ(a->lock_count(), 49u);
  auto wb = Async([&] { return lm_->LockRecord(*b, Rec(30, 0), LockMode::kS, RecLockType::kNextKey, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  lm_->ReleaseAll(*a);
  EXPECT_EQ(a->lock_count(), 0u);
  EXPECT_TRUE(wb.get().ok());
  lm_->ReleaseAll(*b);
  ExpectNoLocksLeft();
}

TEST_F(LockManagerTest, ReleaseAllOfSeveralBatchesLeavesNothingAndWakesWaiters) {
  // More locks than ReleaseAll frees per hold of the global latch (256):
  // a long run on one page (one shard), then pages (shards) alternating,
  // so batches end both inside a run and between shards.
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  for (uint64_t i = 2; i < 402; ++i) {
    ASSERT_TRUE(lm_->LockRecord(*a, Rec(i, 1), LockMode::kX, RecLockType::kRecNotGap).ok());
  }
  for (uint64_t i = 2; i < 302; ++i) {
    ASSERT_TRUE(lm_->LockRecord(*a, Rec(i, 2 + i % 7), LockMode::kX, RecLockType::kRecNotGap).ok());
  }
  EXPECT_EQ(a->lock_count(), 700u);
  const RecordId last = Rec(301, 2 + 301 % 7);
  auto wb = Async([&] { return lm_->LockRecord(*b, last, LockMode::kS, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  lm_->ReleaseAll(*a);
  EXPECT_EQ(a->lock_count(), 0u);
  EXPECT_TRUE(wb.get().ok());
  lm_->ReleaseAll(*b);
  ExpectNoLocksLeft();
}

TEST_F(LockManagerTest, ReleaseRecordDropsOnlyThatRecordsLock) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(6), LockMode::kX, RecLockType::kRecNotGap).ok());
  auto wb = Async([&] { return lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_EQ(lm_->ReleaseRecord(*a, Rec(5), LockMode::kX), 1u);
  EXPECT_TRUE(wb.get().ok());
  EXPECT_EQ(a->lock_count(), 1u);
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockRecord(*b, Rec(6), LockMode::kS, RecLockType::kRecNotGap, kNoWait)));
}

TEST_F(LockManagerTest, AutoIncLockIsReleasedAtStatementEnd) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kIX).ok());
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kAutoInc).ok());
  ASSERT_TRUE(lm_->LockTable(*b, 3, LockMode::kIX).ok());
  auto wb = Async([&] { return lm_->LockTable(*b, 3, LockMode::kAutoInc, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_TRUE(lm_->ReleaseTable(*a, 3, LockMode::kAutoInc));
  EXPECT_TRUE(wb.get().ok());
  EXPECT_EQ(a->lock_count(), 1u);  // IX stays for the transaction
  EXPECT_FALSE(lm_->ReleaseTable(*a, 3, LockMode::kAutoInc));
  // a may take AUTO-INC again for its next statement (it is not cached as held).
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*a, 3, LockMode::kAutoInc, kNoWait)));
}

TEST_F(LockManagerTest, DestroyingTrxHandleReleasesItsLocks) {
  {
    auto a = lm_->CreateTrx(1);
    ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kNextKey).ok());
  }
  EXPECT_EQ(Census().granted, 0u);
  auto b = lm_->CreateTrx(2);
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kNextKey, kNoWait).ok());
}

// --- Timeouts and KILL -----------------------------------------------------

TEST_F(LockManagerTest, LockWaitTimeoutReturns1205AndKeepsGrantedLocks) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*b, Rec(6), LockMode::kX, RecLockType::kRecNotGap).ok());
  Status s = lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kRecNotGap, milliseconds(30));
  EXPECT_TRUE(IsLockWaitTimeout(s));
  EXPECT_EQ(s.mysql_errno(), 1205);
  EXPECT_EQ(s.sqlstate(), "HY000");
  EXPECT_EQ(s.message(), "Lock wait timeout exceeded; try restarting transaction");
  EXPECT_FALSE(b->waiting());
  EXPECT_EQ(b->lock_count(), 1u);
  LockCensus census = Census();
  EXPECT_EQ(census.waiting, 0u);
  EXPECT_EQ(census.granted, 2u);
  LockCounters c = lm_->Counters();
  EXPECT_EQ(c.lock_timeouts, 1u);
  EXPECT_EQ(c.row_lock_waits, 1u);
  EXPECT_EQ(c.row_lock_current_waits, 0);
}

TEST_F(LockManagerTest, DefaultTimeoutIsInnodbLockWaitTimeout) {
  lm_->config().set_lock_wait_timeout_ms(20);
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockTable(*a, 3, LockMode::kX).ok());
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockTable(*b, 3, LockMode::kIS)));
  EXPECT_EQ(lm_->Counters().table_lock_waits, 1u);
  EXPECT_EQ(lm_->Counters().row_lock_waits, 0u);
}

TEST_F(LockManagerTest, TimedOutWaiterNoLongerBlocksLaterRequests) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  auto c = lm_->CreateTrx(3);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  EXPECT_TRUE(IsLockWaitTimeout(lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, milliseconds(10))));
  EXPECT_TRUE(lm_->LockRecord(*c, Rec(5), LockMode::kS, RecLockType::kRecNotGap, kNoWait).ok());
}

TEST_F(LockManagerTest, CancelWaitInterruptsTheWaiterWith1317) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  EXPECT_FALSE(lm_->CancelWait(*b));
  auto wb = Async([&] { return lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_TRUE(lm_->CancelWait(*b));
  EXPECT_EQ(wb.get().mysql_errno(), 1317);
  EXPECT_EQ(Census().waiting, 0u);
}

TEST_F(LockManagerTest, CountersShowCurrentWaitsWhileWaiting) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  auto wb = Async([&] { return lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_EQ(lm_->Counters().row_lock_current_waits, 1);
  lm_->ReleaseAll(*a);
  ASSERT_TRUE(wb.get().ok());
  LockCounters c = lm_->Counters();
  EXPECT_EQ(c.row_lock_waits, 1u);
  EXPECT_EQ(c.row_lock_current_waits, 0);
  EXPECT_GE(c.row_lock_time_max_ms, c.row_lock_time_avg_ms);
  EXPECT_GE(c.row_lock_time_ms, c.row_lock_time_max_ms);
}

// --- Deadlocks -------------------------------------------------------------

// n transactions; trx i holds record i and then asks for record i + 1; the
// last one closes the cycle. trx `light` is the lightest (others get a weight
// hint), so it must be the victim. Returns the victim's index.
struct RingResult {
  int victim = -1;
  int deadlocks = 0;
  std::shared_ptr<const DeadlockReport> report;
};

RingResult RunDeadlockRing(LockManager& lm, testing::EventLatch& events, int n, int light, bool background) {
  std::vector<LockTrxPtr> trx;
  for (int i = 0; i < n; ++i) {
    trx.push_back(lm.CreateTrx(100 + i));
    trx[i]->set_weight_hint(i == light ? 0 : 10);
    EXPECT_TRUE(lm.LockRecord(*trx[i], Rec(10 + i), LockMode::kX, RecLockType::kRecNotGap).ok());
  }
  const int base = events.waits();
  std::vector<std::future<Status>> results(n);
  for (int i = 0; i < n; ++i) {
    LockTrx* t = trx[i].get();
    const RecordId next = Rec(10 + (i + 1) % n);
    results[i] = Async([&lm, t, next] {
      Status s = lm.LockRecord(*t, next, LockMode::kX, RecLockType::kRecNotGap, kLongWait);
      lm.ReleaseAll(*t);  // commit, or roll back the victim
      return s;
    });
    // Start them in order so that only the last request closes the cycle.
    EXPECT_TRUE(events.AwaitWaits(base + i + 1));
  }
  if (background) lm.RunDetectorOnce();
  RingResult out;
  for (int i = 0; i < n; ++i) {
    Status s = results[i].get();
    if (IsDeadlock(s)) {
      ++out.deadlocks;
      out.victim = i;
    } else {
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }
  out.report = lm.RecentDeadlocks().empty() ? nullptr : lm.RecentDeadlocks().front();
  return out;
}

TEST_F(LockManagerTest, DeadlockOfTwoIsResolvedInline) {
  RingResult r = RunDeadlockRing(*lm_, events_, 2, /*light=*/0, false);
  EXPECT_EQ(r.deadlocks, 1);
  EXPECT_EQ(r.victim, 0);
  ASSERT_NE(r.report, nullptr);
  EXPECT_TRUE(r.report->found_inline);
  EXPECT_EQ(r.report->trxs.size(), 2u);
  EXPECT_EQ(r.report->trxs[r.report->victim].trx_id, 100u);
  EXPECT_EQ(Census().granted, 0u);
}

TEST_F(LockManagerTest, DeadlockOfThreeIsResolvedInline) {
  RingResult r = RunDeadlockRing(*lm_, events_, 3, /*light=*/1, false);
  EXPECT_EQ(r.deadlocks, 1);
  EXPECT_EQ(r.victim, 1);
  ASSERT_NE(r.report, nullptr);
  EXPECT_EQ(r.report->trxs.size(), 3u);
}

TEST_F(LockManagerTest, DeadlockOfTenIsResolvedInline) {
  RingResult r = RunDeadlockRing(*lm_, events_, 10, /*light=*/7, false);
  EXPECT_EQ(r.deadlocks, 1);
  EXPECT_EQ(r.victim, 7);
  ASSERT_NE(r.report, nullptr);
  EXPECT_EQ(r.report->trxs.size(), 10u);
  EXPECT_EQ(lm_->Counters().deadlocks, 1u);
}

TEST_F(LockManagerTest, DeadlocksAreFoundByTheBackgroundDetectorWhenInlineIsOff) {
  lm_->config().set_inline_deadlock_detect(false);
  for (int n : {2, 3, 10}) {
    RingResult r = RunDeadlockRing(*lm_, events_, n, /*light=*/n - 1, true);
    EXPECT_EQ(r.deadlocks, 1) << n;
    EXPECT_EQ(r.victim, n - 1) << n;
    ASSERT_NE(r.report, nullptr);
    EXPECT_FALSE(r.report->found_inline);
    EXPECT_EQ(r.report->trxs.size(), static_cast<size_t>(n));
  }
  EXPECT_EQ(lm_->Counters().deadlocks, 3u);
}

TEST_F(LockManagerTest, BackgroundThreadResolvesDeadlockWithoutHelp) {
  Make(/*background_detector=*/true);
  lm_->config().set_inline_deadlock_detect(false);
  RingResult r = RunDeadlockRing(*lm_, events_, 3, /*light=*/2, false);
  EXPECT_EQ(r.deadlocks, 1);
  EXPECT_EQ(r.victim, 2);
}

TEST_F(LockManagerTest, VictimIsTheTransactionHoldingFewerLocks) {
  auto heavy = lm_->CreateTrx(1);
  auto light = lm_->CreateTrx(2);
  for (uint64_t i = 20; i < 25; ++i) {
    ASSERT_TRUE(lm_->LockRecord(*heavy, Rec(i), LockMode::kX, RecLockType::kRecNotGap).ok());
  }
  ASSERT_TRUE(lm_->LockRecord(*light, Rec(30), LockMode::kX, RecLockType::kRecNotGap).ok());
  // The light one waits first; the heavy one closes the cycle, yet the light
  // one is rolled back.
  auto wl = Async([&] {
    Status s = lm_->LockRecord(*light, Rec(20), LockMode::kX, RecLockType::kRecNotGap, kLongWait);
    lm_->ReleaseAll(*light);
    return s;
  });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_TRUE(lm_->LockRecord(*heavy, Rec(30), LockMode::kX, RecLockType::kRecNotGap, kLongWait).ok());
  EXPECT_TRUE(IsDeadlock(wl.get()));
}

TEST_F(LockManagerTest, WeightHintMakesATransactionHeavier) {
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  b->set_weight_hint(1000);  // e.g. many undo records
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*b, Rec(6), LockMode::kX, RecLockType::kRecNotGap).ok());
  auto wa = Async([&] {
    Status s = lm_->LockRecord(*a, Rec(6), LockMode::kX, RecLockType::kRecNotGap, kLongWait);
    lm_->ReleaseAll(*a);
    return s;
  });
  ASSERT_TRUE(events_.AwaitWaits(1));
  EXPECT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait).ok());
  EXPECT_TRUE(IsDeadlock(wa.get()));
}

TEST_F(LockManagerTest, DeadlockThroughASecondSharedHolderIsFoundInBackground) {
  // a waits (X) for S locks of b and c; its recorded edge points at b, which
  // is not in the cycle a -> c -> a. Only the full edge set sees it.
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  auto c = lm_->CreateTrx(3);
  auto d = lm_->CreateTrx(4);
  ASSERT_TRUE(lm_->LockRecord(*b, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*c, Rec(5), LockMode::kS, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(6), LockMode::kX, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*d, Rec(7), LockMode::kX, RecLockType::kRecNotGap).ok());
  a->set_weight_hint(10);
  auto wb = Async([&] { return lm_->LockRecord(*b, Rec(7), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(1));  // b waits for d (d is not waiting)
  auto wa = Async([&] { return lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap, kLongWait); });
  ASSERT_TRUE(events_.AwaitWaits(2));
  auto wc = Async([&] {
    Status s = lm_->LockRecord(*c, Rec(6), LockMode::kX, RecLockType::kRecNotGap, kLongWait);
    lm_->ReleaseAll(*c);
    return s;
  });
  ASSERT_TRUE(events_.AwaitWaits(3));
  EXPECT_EQ(lm_->Counters().deadlocks, 0u);  // inline walk a->b->d ends at d
  lm_->RunDetectorOnce();
  EXPECT_TRUE(IsDeadlock(wc.get()));  // c holds 1 lock, a holds 1 + hint 10
  lm_->ReleaseAll(*d);
  EXPECT_TRUE(wb.get().ok());
  lm_->ReleaseAll(*b);
  EXPECT_TRUE(wa.get().ok());
}

TEST_F(LockManagerTest, WithDeadlockDetectOffOnlyTheTimeoutBreaksTheCycle) {
  lm_->config().set_deadlock_detect(false);
  auto a = lm_->CreateTrx(1);
  auto b = lm_->CreateTrx(2);
  ASSERT_TRUE(lm_->LockRecord(*a, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  ASSERT_TRUE(lm_->LockRecord(*b, Rec(6), LockMode::kX, RecLockType::kRecNotGap).ok());
  auto wa = Async([&] {
    Status s = lm_->LockRecord(*a, Rec(6), LockMode::kX, RecLockType::kRecNotGap, kLongWait);
    lm_->ReleaseAll(*a);
    return s;
  });
  ASSERT_TRUE(events_.AwaitWaits(1));
  Status sb = lm_->LockRecord(*b, Rec(5), LockMode::kX, RecLockType::kRecNotGap, milliseconds(50));
  lm_->RunDetectorOnce();  // computes weights only
  EXPECT_TRUE(IsLockWaitTimeout(sb));
  lm_->ReleaseAll(*b);  // innodb_rollback_on_timeout=ON behaviour, chosen by the caller
  EXPECT_TRUE(wa.get().ok());
  EXPECT_EQ(lm_->Counters().deadlocks, 0u);
}

TEST_F(LockManagerTest, LatestDeadlockTextNamesBothTransactionsAndTheVictim) {
  RingResult r = RunDeadlockRing(*lm_, events_, 2, /*light=*/1, false);
  ASSERT_EQ(r.deadlocks, 1);
  const std::string text = lm_->LatestDeadlockText();
  EXPECT_NE(text.find("LATEST DETECTED DEADLOCK"), std::string::npos) << text;
  EXPECT_NE(text.find("TRANSACTION 100"), std::string::npos) << text;
  EXPECT_NE(text.find("TRANSACTION 101"), std::string::npos) << text;
  EXPECT_NE(text.find("WAITING FOR THIS LOCK TO BE GRANTED"), std::string::npos) << text;
  EXPECT_NE(text.find("lock_mode X locks rec but not gap waiting"), std::string::npos) << text;
  ASSERT_NE(r.report, nullptr);
  EXPECT_EQ(r.report->trxs[r.report->victim].trx_id, 101u);
  const std::string rollback = "*** WE ROLL BACK TRANSACTION (" + std::to_string(r.report->victim + 1) + ")";
  EXPECT_NE(text.find(rollback), std::string::npos) << text;
}

TEST_F(LockManagerTest, PrintAllDeadlocksWritesTheReportToTheErrorLog) {
  RunDeadlockRing(*lm_, events_, 2, 0, false);
  lm_->FlushDeadlockLog();
  for (const auto& line : sink_->lines()) EXPECT_EQ(line.find("deadlock detected"), std::string::npos);

  lm_->config().set_print_all_deadlocks(true);
  RunDeadlockRing(*lm_, events_, 2, 0, false);
  lm_->FlushDeadlockLog();
  int printed = 0;
  for (const auto& line : sink_->lines()) {
    if (line.find("[MY-012468] [InnoDB] Transactions deadlock detected") != std::string::npos) {
      ++printed;
      EXPECT_NE(line.find("WE ROLL BACK TRANSACTION"), std::string::npos);
    }
  }
  EXPECT_EQ(printed, 1);
  EXPECT_EQ(lm_->Counters().deadlock_reports_printed, 1u);
}

// --- Scheduling ------------------------------------------------------------

// hot is held by `owner`. `light` waits for it first; then `heavy`, which
// holds three records others wait for, waits too. Returns which of the two
// is granted first when owner releases.
std::string FirstGrantee(LockManager& lm, testing::EventLatch& events) {
  auto owner = lm.CreateTrx(1);
  auto light = lm.CreateTrx(2);
  auto heavy = lm.CreateTrx(3);
  std::vector<LockTrxPtr> blocked;
  const RecordId hot = Rec(2, 99);
  const int base = events.waits();
  EXPECT_TRUE(lm.LockRecord(*owner, hot, LockMode::kX, RecLockType::kRecNotGap).ok());
  for (uint64_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(lm.LockRecord(*heavy, Rec(40 + i), LockMode::kX, RecLockType::kRecNotGap).ok());
  }
  std::atomic<int> order{0};
  std::atomic<int> light_pos{-1}, heavy_pos{-1};
  auto wl = Async([&] {
    Status s = lm.LockRecord(*light, hot, LockMode::kX, RecLockType::kRecNotGap, kLongWait);
    light_pos = order++;
    return s;
  });
  EXPECT_TRUE(events.AwaitWaits(base + 1));
  auto wh = Async([&] {
    Status s = lm.LockRecord(*heavy, hot, LockMode::kX, RecLockType::kRecNotGap, kLongWait);
    heavy_pos = order++;
    return s;
  });
  EXPECT_TRUE(events.AwaitWaits(base + 2));
  std::vector<std::future<Status>> others;
  for (uint64_t i = 0; i < 3; ++i) {
    blocked.push_back(lm.CreateTrx(10 + i));
    LockTrx* t = blocked.back().get();
    others.push_back(Async([&lm, t, i] {
      Status s = lm.LockRecord(*t, Rec(40 + i), LockMode::kX, RecLockType::kRecNotGap, kLongWait);
      lm.ReleaseAll(*t);
      return s;
    }));
    EXPECT_TRUE(events.AwaitWaits(base + 3 + static_cast<int>(i)));
  }
  lm.RunDetectorOnce();
  EXPECT_EQ(heavy->schedule_weight(), 4u);
  EXPECT_EQ(light->schedule_weight(), 1u);

  lm.ReleaseAll(*owner);
  std::string first;
  // Exactly one of them now holds X on hot; the other must still be waiting.
  for (;;) {
    if (Ready(wh)) {
      first = "heavy";
      EXPECT_TRUE(light->waiting());
      EXPECT_TRUE(wh.get().ok());
      lm.ReleaseAll(*heavy);
      EXPECT_TRUE(wl.get().ok());
      lm.ReleaseAll(*light);
      break;
    }
    if (Ready(wl)) {
      first = "light";
      EXPECT_TRUE(heavy->waiting());
      EXPECT_TRUE(wl.get().ok());
      lm.ReleaseAll(*light);
      EXPECT_TRUE(wh.get().ok());
      lm.ReleaseAll(*heavy);
      break;
    }
    std::this_thread::yield();
  }
  for (auto& f : others) EXPECT_TRUE(f.get().ok());
  return first;
}

TEST_F(LockManagerTest, CatsGrantsTheWaiterThatBlocksMostTransactionsFirst) {
  lm_->config().set_schedule(SchedulePolicy::kCats);
  EXPECT_EQ(FirstGrantee(*lm_, events_), "heavy");
  EXPECT_EQ(Census().granted, 0u);
}

TEST_F(LockManagerTest, FifoGrantsInArrivalOrder) {
  lm_->config().set_schedule(SchedulePolicy::kFifo);
  EXPECT_EQ(FirstGrantee(*lm_, events_), "light");
  EXPECT_EQ(Census().granted, 0u);
}

TEST_F(LockManagerTest, PolicySwitchTakesEffectForTheNextGrant) {
  lm_->config().set_schedule(SchedulePolicy::kFifo);
  EXPECT_EQ(FirstGrantee(*lm_, events_), "light");
  lm_->config().set_schedule(SchedulePolicy::kCats);
  EXPECT_EQ(FirstGrantee(*lm_, events_), "heavy");
}

TEST_F(LockManagerTest, FifoGrantsSharedWaitersTogetherUpToTheFirstExclusive) {
  lm_->config().set_schedule(SchedulePolicy::kFifo);
  auto owner = lm_->CreateTrx(1);
  ASSERT_TRUE(lm_->LockRecord(*owner, Rec(5), LockMode::kX, RecLockType::kRecNotGap).ok());
  std::vector<LockTrxPtr> trx;
  std::vector<std::future<Status>> f;
  const LockMode modes[] = {LockMode::kS, LockMode::kS, LockMode::kX, LockMode::kS};
  for (int i = 0; i < 4; ++i) {
    trx.push_back(lm_->CreateTrx(10 + i));
    LockTrx* t = trx.back().get();
    const LockMode m = modes[i];
    f.push_back(Async([this, t, m] { return lm_->LockRecord(*t, Rec(5), m, RecLockType::kRecNotGap, kLongWait); }));
    ASSERT_TRUE(events_.AwaitWaits(i + 1));
  }
  lm_->ReleaseAll(*owner);
  EXPECT_TRUE(f[0].get().ok());
  EXPECT_TRUE(f[1].get().ok());
  EXPECT_TRUE(trx[2]->waiting());
  EXPECT_TRUE(trx[3]->waiting());  // behind the X waiter
  lm_->ReleaseAll(*trx[0]);
  lm_->ReleaseAll(*trx[1]);
  EXPECT_TRUE(f[2].get().ok());
  lm_->ReleaseAll(*trx[2]);
  EXPECT_TRUE(f[3].get().ok());
  lm_->ReleaseAll(*trx[3]);
}

}  // namespace
}  // namespace sluice::storage
