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

const std::string kT1 = MetadataLocks::TableKey("shop", "u1");
const std::string kT2 = MetadataLocks::TableKey("shop", "u2");

TEST(MetadataLocksTest, KeysIgnoreCase) {
  EXPECT_EQ(MetadataLocks::TableKey("Shop", "U1"), kT1);
  EXPECT_NE(MetadataLocks::SchemaKey("shop"), MetadataLocks::TableKey("shop", ""));
}

TEST(MetadataLocksTest, ExclusiveWaitsOnlyForItsOwnTable) {
  MetadataLocks mdl;
  ASSERT_TRUE(mdl.Acquire(1, {{kT1, Mode::kShared}}, 1s).ok());
  // Another table: at once.
  ASSERT_TRUE(mdl.Acquire(2, {{kT2, Mode::kExclusive}}, 0ms).ok());
  // The same table: 1205 after the timeout.
  const auto start = std::chrono::steady_clock::now();
  Status st = mdl.Acquire(3, {{kT1, Mode::kExclusive}}, 100ms);
  EXPECT_EQ(st.mysql_errno(), er::kLockWaitTimeout.code);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  mdl.ReleaseShared(1);
  EXPECT_TRUE(mdl.Acquire(3, {{kT1, Mode::kExclusive}}, 0ms).ok());
  EXPECT_TRUE(mdl.Holds(3, kT1, Mode::kExclusive));
  mdl.Release(3, {kT1});
  EXPECT_FALSE(mdl.Holds(3, kT1, Mode::kShared));
}

TEST(MetadataLocksTest, WaitingExclusiveHoldsOffNewSharedOfItsKeyOnly) {
  MetadataLocks mdl;
  ASSERT_TRUE(mdl.Acquire(1, {{kT1, Mode::kShared}}, 0ms).ok());
  auto ddl = std::async(std::launch::async, [&] { return mdl.Acquire(2, {{kT1, Mode::kExclusive}}, 5s); });
  // Wait until the DDL is queued: a new shared request on kT1 times out.
  // (Each try is a new owner: one that got the lock would hold the DDL up.)
  bool queued = false;
  for (uint32_t owner = 100; owner < 300 && !queued; ++owner) {
    Status st = mdl.Acquire(owner, {{kT1, Mode::kShared}}, 10ms);
    queued = st.mysql_errno() == er::kLockWaitTimeout.code;
    mdl.ReleaseAll(owner);
    if (!queued) std::this_thread::sleep_for(5ms);
  }
  EXPECT_TRUE(queued);
  EXPECT_TRUE(mdl.Acquire(3, {{kT2, Mode::kShared}}, 0ms).ok());  // other table: free
  EXPECT_TRUE(mdl.Acquire(1, {{kT1, Mode::kShared}}, 0ms).ok());  // already held: no wait
  mdl.ReleaseShared(1);
  EXPECT_TRUE(ddl.get().ok());
  mdl.ReleaseAll(2);
  EXPECT_TRUE(mdl.Acquire(3, {{kT1, Mode::kShared}}, 0ms).ok());
}

TEST(MetadataLocksTest, FailedRequestTakesNothing) {
  MetadataLocks mdl;
  ASSERT_TRUE(mdl.Acquire(1, {{kT2, Mode::kShared}}, 0ms).ok());
  // kT1 is free, kT2 is not: neither is held afterwards.
  EXPECT_FALSE(mdl.Acquire(2, {{kT1, Mode::kExclusive}, {kT2, Mode::kExclusive}}, 10ms).ok());
  EXPECT_FALSE(mdl.Holds(2, kT1, Mode::kShared));
  EXPECT_TRUE(mdl.Acquire(3, {{kT1, Mode::kExclusive}}, 0ms).ok());
}

TEST(MetadataLocksTest, CycleIsADeadlockNotAWait) {
  MetadataLocks mdl;
  ASSERT_TRUE(mdl.Acquire(1, {{kT2, Mode::kShared}}, 0ms).ok());
  // Owner 2 takes kT1 exclusive, then waits for kT2 (held by 1).
  auto ddl = std::async(std::launch::async,
                        [&] { return mdl.Acquire(2, {{kT1, Mode::kExclusive}, {kT2, Mode::kExclusive}}, 10s); });
  bool blocked = false;
  for (int i = 0; i < 200 && !blocked; ++i) {
    blocked = mdl.Holds(2, kT1, Mode::kExclusive);
    if (!blocked) std::this_thread::sleep_for(5ms);
  }
  ASSERT_TRUE(blocked);
  // Owner 1 now wants kT1: it would wait for 2, which waits for 1.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(mdl.Acquire(1, {{kT1, Mode::kShared}}, 10s).mysql_errno(), er::kLockDeadlock.code);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  mdl.ReleaseAll(1);
  EXPECT_TRUE(ddl.get().ok());
}

TEST(MetadataLocksTest, KilledWaitEnds) {
  MetadataLocks mdl;
  ASSERT_TRUE(mdl.Acquire(1, {{kT1, Mode::kExclusive}}, 0ms).ok());
  std::atomic<int> killed{0};
  auto waiter = std::async(std::launch::async, [&] { return mdl.Acquire(2, {{kT1, Mode::kShared}}, 30s, &killed); });
  std::this_thread::sleep_for(50ms);
  killed = 1;
  EXPECT_EQ(waiter.get().mysql_errno(), er::kQueryInterrupted.code);
}

}  // namespace
}  // namespace sluice::exec
