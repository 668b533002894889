#include "exec/metadata_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "base/mysql_error.h"

namespace sluice::exec {
namespace {

using namespace std::chrono_literals;
using Mode = MetadataLocks::Mode;
using Owner = MetadataLocks::Owner;

const std::string kT1 = MetadataLocks::TableKey("shop", "u1");
const std::string kT2 = MetadataLocks::TableKey("shop", "u2");

TEST(MetadataLocksTest, KeysIgnoreCase) {
  EXPECT_EQ(MetadataLocks::TableKey("Shop", "U1"), kT1);
  EXPECT_NE(MetadataLocks::SchemaKey("shop"), MetadataLocks::TableKey("shop", ""));
}

TEST(MetadataLocksTest, ExclusiveWaitsOnlyForItsOwnTable) {
  MetadataLocks mdl;
  Owner o1(1), o2(2), o3(3);
  ASSERT_TRUE(mdl.Acquire(o1, {{kT1, Mode::kShared}}, 1s).ok());
  // Another table: at once.
  ASSERT_TRUE(mdl.Acquire(o2, {{kT2, Mode::kExclusive}}, 0ms).ok());
  // The same table: 1205 after the timeout.
  const auto start = std::chrono::steady_clock::now();
  Status st = mdl.Acquire(o3, {{kT1, Mode::kExclusive}}, 100ms);
  EXPECT_EQ(st.mysql_errno(), er::kLockWaitTimeout.code);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  mdl.ReleaseShared(o1);
  EXPECT_TRUE(mdl.Acquire(o3, {{kT1, Mode::kExclusive}}, 0ms).ok());
  EXPECT_TRUE(mdl.Holds(o3, kT1, Mode::kExclusive));
  mdl.Release(o3, {kT1});
  EXPECT_FALSE(mdl.Holds(o3, kT1, Mode::kShared));
  EXPECT_FALSE(o3.MayHold());
  mdl.ReleaseAll(o2);
}

TEST(MetadataLocksTest, WaitingExclusiveHoldsOffNewSharedOfItsKeyOnly) {
  MetadataLocks mdl;
  Owner o1(1), o2(2), o3(3);
  ASSERT_TRUE(mdl.Acquire(o1, {{kT1, Mode::kShared}}, 0ms).ok());
  auto ddl = std::async(std::launch::async, [&] { return mdl.Acquire(o2, {{kT1, Mode::kExclusive}}, 5s); });
  // Wait until the DDL is queued: a new shared request on kT1 times out.
  // (Each try is a new owner: one that got the lock would hold the DDL up.)
  bool queued = false;
  for (uint32_t id = 100; id < 300 && !queued; ++id) {
    Owner other(id);
    Status st = mdl.Acquire(other, {{kT1, Mode::kShared}}, 10ms);
    queued = st.mysql_errno() == er::kLockWaitTimeout.code;
    mdl.ReleaseAll(other);
    if (!queued) std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(queued);
  EXPECT_TRUE(mdl.Acquire(o3, {{kT2, Mode::kShared}}, 0ms).ok());  // other table: free
  EXPECT_TRUE(mdl.Acquire(o1, {{kT1, Mode::kShared}}, 0ms).ok());  // already held: no wait
  mdl.ReleaseShared(o1);
  EXPECT_TRUE(ddl.get().ok());
  mdl.ReleaseAll(o2);
  EXPECT_TRUE(mdl.Acquire(o3, {{kT1, Mode::kShared}}, 0ms).ok());
  mdl.ReleaseAll(o3);
}

TEST(MetadataLocksTest, FailedRequestTakesNothing) {
  MetadataLocks mdl;
  Owner o1(1), o2(2), o3(3);
  ASSERT_TRUE(mdl.Acquire(o1, {{kT2, Mode::kShared}}, 0ms).ok());
  // kT1 is free, kT2 is not: neither is held afterwards.
  EXPECT_FALSE(mdl.Acquire(o2, {{kT1, Mode::kExclusive}, {kT2, Mode::kExclusive}}, 10ms).ok());
  EXPECT_FALSE(mdl.Holds(o2, kT1, Mode::kShared));
  EXPECT_FALSE(o2.MayHold());
  EXPECT_TRUE(mdl.Acquire(o3, {{kT1, Mode::kExclusive}}, 0ms).ok());
  // A shared request that fails takes back what the same call took on the
  // fast path: kT2 is free, kT1 is held exclusive.
  Owner o4(4);
  EXPECT_FALSE(mdl.Acquire(o4, {{kT1, Mode::kShared}, {kT2, Mode::kShared}}, 10ms).ok());
  EXPECT_FALSE(mdl.Holds(o4, kT2, Mode::kShared));
  mdl.ReleaseAll(o1);
  EXPECT_TRUE(mdl.Acquire(o1, {{kT2, Mode::kExclusive}}, 0ms).ok());  // nobody holds kT2
  mdl.ReleaseAll(o1);
  mdl.ReleaseAll(o3);
}

// Owner 1's lock on kT2 is a fast-path one (it never waited), so the
// deadlock check must see it once owner 1 is about to wait.
TEST(MetadataLocksTest, CycleIsADeadlockNotAWait) {
  MetadataLocks mdl;
  Owner o1(1), o2(2);
  ASSERT_TRUE(mdl.Acquire(o1, {{kT2, Mode::kShared}}, 0ms).ok());
  // Owner 2 holds kT1 exclusive, then waits for kT2 (held by 1).
  ASSERT_TRUE(mdl.Acquire(o2, {{kT1, Mode::kExclusive}}, 0ms).ok());
  auto ddl = std::async(std::launch::async, [&] { return mdl.Acquire(o2, {{kT2, Mode::kExclusive}}, 10s); });
  // Owner 2 marks kT2 and starts waiting under one hold of the mutex, so a
  // probe that finds kT2 held off (1205 at once) finds owner 2 waiting.
  bool waiting = false;
  for (int i = 0; i < 400 && !waiting; ++i) {
    Owner probe(99);
    waiting = mdl.Acquire(probe, {{kT2, Mode::kShared}}, 0ms).mysql_errno() == er::kLockWaitTimeout.code;
    mdl.ReleaseAll(probe);
    if (!waiting) std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(waiting);
  // Owner 1 now wants kT1: it would wait for 2, which waits for 1.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(mdl.Acquire(o1, {{kT1, Mode::kShared}}, 10s).mysql_errno(), er::kLockDeadlock.code);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  mdl.ReleaseAll(o1);
  EXPECT_TRUE(ddl.get().ok());
  mdl.ReleaseAll(o2);
}

TEST(MetadataLocksTest, KilledWaitEnds) {
  MetadataLocks mdl;
  Owner o1(1), o2(2);
  ASSERT_TRUE(mdl.Acquire(o1, {{kT1, Mode::kExclusive}}, 0ms).ok());
  std::atomic<int> killed{0};
  auto waiter = std::async(std::launch::async, [&] { return mdl.Acquire(o2, {{kT1, Mode::kShared}}, 30s, &killed); });
  std::this_thread::sleep_for(50ms);
  killed = 1;
  EXPECT_EQ(waiter.get().mysql_errno(), er::kQueryInterrupted.code);
  mdl.ReleaseAll(o1);
}

TEST(MetadataLocksTest, FastPathSharedLocksHoldOffExclusiveUntilTheLastGoes) {
  MetadataLocks mdl;
  std::vector<std::unique_ptr<Owner>> readers;
  for (uint32_t id = 10; id < 14; ++id) {
    readers.push_back(std::make_unique<Owner>(id));
    ASSERT_TRUE(mdl.Acquire(*readers.back(), {{kT1, Mode::kShared}}, 0ms).ok());
    EXPECT_TRUE(mdl.Holds(*readers.back(), kT1, Mode::kShared));
  }
  Owner ddl_owner(2);
  EXPECT_EQ(mdl.Acquire(ddl_owner, {{kT1, Mode::kExclusive}}, 20ms).mysql_errno(), er::kLockWaitTimeout.code);
  auto ddl = std::async(std::launch::async, [&] { return mdl.Acquire(ddl_owner, {{kT1, Mode::kExclusive}}, 10s); });
  for (size_t i = 0; i + 1 < readers.size(); ++i) mdl.ReleaseShared(*readers[i]);
  EXPECT_EQ(ddl.wait_for(50ms), std::future_status::timeout);  // one reader is left
  mdl.ReleaseShared(*readers.back());
  ASSERT_TRUE(ddl.get().ok());
  Owner late(30);
  EXPECT_EQ(mdl.Acquire(late, {{kT1, Mode::kShared}}, 10ms).mysql_errno(), er::kLockWaitTimeout.code);
  mdl.ReleaseAll(ddl_owner);
  EXPECT_TRUE(mdl.Acquire(late, {{kT1, Mode::kShared}}, 0ms).ok());
  mdl.ReleaseAll(late);
}

// Many sessions taking and dropping one table's shared lock on the fast path
// while DDL takes it exclusive, over and over: never both at once.
TEST(MetadataLocksTest, FastPathAndExclusiveNeverOverlap) {
  MetadataLocks mdl;
  std::atomic<int> shared_inside{0};
  std::atomic<int> exclusive_inside{0};
  std::atomic<bool> stop{false};
  std::atomic<int> overlaps{0};
  std::atomic<int> shared_grants{0};
  std::vector<std::thread> threads;
  for (uint32_t id = 100; id < 104; ++id) {
    threads.emplace_back([&, id] {
      Owner me(id);
      while (!stop.load()) {
        if (!mdl.Acquire(me, {{kT1, Mode::kShared}}, 10s).ok()) continue;
        shared_inside.fetch_add(1);
        if (exclusive_inside.load() != 0) overlaps.fetch_add(1);
        shared_grants.fetch_add(1);
        shared_inside.fetch_sub(1);
        mdl.ReleaseShared(me);
      }
    });
  }
  Owner ddl(1);
  // 2000 rounds, and on until the sessions have been granted the lock in
  // between: on a loaded machine (CI, two cores) the 2000 rounds can end
  // before any of their threads has run.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  for (int i = 0; i < 2000 || (shared_grants.load() == 0 && std::chrono::steady_clock::now() < deadline); ++i) {
    ASSERT_TRUE(mdl.Acquire(ddl, {{kT1, Mode::kExclusive}}, 10s).ok());
    exclusive_inside.fetch_add(1);
    if (shared_inside.load() != 0) overlaps.fetch_add(1);
    exclusive_inside.fetch_sub(1);
    mdl.ReleaseAll(ddl);
  }
  stop = true;
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_GT(shared_grants.load(), 0);
}

}  // namespace
}  // namespace sluice::exec
