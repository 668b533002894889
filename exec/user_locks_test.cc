#include "exec/user_locks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace sluice::exec {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr auto Never = [] { return false; };

UserLocks::Outcome Get(UserLocks& locks, uint64_t owner, std::string_view name, milliseconds wait) {
  Result<UserLocks::Outcome> r = locks.Acquire(owner, name, steady_clock::now() + wait, Never);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : UserLocks::Outcome::kInterrupted;
}

TEST(UserLocksTest, ALockIsOneSessionsAndCountsItsHolds) {
  UserLocks locks;
  EXPECT_EQ(Get(locks, 1, "a", milliseconds(0)), UserLocks::Outcome::kAcquired);
  EXPECT_EQ(Get(locks, 1, "A", milliseconds(0)), UserLocks::Outcome::kAcquired);  // case-blind, again
  EXPECT_EQ(Get(locks, 2, "a", milliseconds(20)), UserLocks::Outcome::kTimedOut);
  EXPECT_EQ(locks.Holder("a"), std::optional<uint64_t>(1));
  EXPECT_EQ(locks.Release(2, "a"), std::optional<bool>(false));
  EXPECT_EQ(locks.Release(1, "a"), std::optional<bool>(true));
  EXPECT_EQ(locks.Holder("a"), std::optional<uint64_t>(1));  // held twice
  EXPECT_EQ(locks.Release(1, "a"), std::optional<bool>(true));
  EXPECT_EQ(locks.Holder("a"), std::nullopt);
  EXPECT_EQ(locks.Release(1, "a"), std::nullopt);
}

TEST(UserLocksTest, AWaiterGetsTheLockWhenItsHolderReleasesAll) {
  UserLocks locks;
  ASSERT_EQ(Get(locks, 1, "x", milliseconds(0)), UserLocks::Outcome::kAcquired);
  ASSERT_EQ(Get(locks, 1, "y", milliseconds(0)), UserLocks::Outcome::kAcquired);
  std::atomic<bool> got{false};
  std::thread waiter([&] { got = Get(locks, 2, "x", milliseconds(10000)) == UserLocks::Outcome::kAcquired; });
  std::this_thread::sleep_for(milliseconds(30));
  EXPECT_EQ(locks.ReleaseAll(1), 2u);
  waiter.join();
  EXPECT_TRUE(got);
  EXPECT_EQ(locks.Holder("x"), std::optional<uint64_t>(2));
  EXPECT_EQ(locks.Holder("y"), std::nullopt);
}

TEST(UserLocksTest, TheWaitThatClosesACycleFailsWith3058) {
  UserLocks locks;
  ASSERT_EQ(Get(locks, 1, "a", milliseconds(0)), UserLocks::Outcome::kAcquired);
  ASSERT_EQ(Get(locks, 2, "b", milliseconds(0)), UserLocks::Outcome::kAcquired);
  std::atomic<int> first{-1};
  std::thread one([&] { first = static_cast<int>(Get(locks, 1, "b", milliseconds(10000))); });
  std::this_thread::sleep_for(milliseconds(30));
  Result<UserLocks::Outcome> second = locks.Acquire(2, "a", std::nullopt, Never);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().mysql_errno(), 3058);
  // The victim gives up its lock; the other wait ends with it.
  EXPECT_EQ(locks.ReleaseAll(2), 1u);
  one.join();
  EXPECT_EQ(first, static_cast<int>(UserLocks::Outcome::kAcquired));
}

TEST(UserLocksTest, AWaitEndsWhenInterrupted) {
  UserLocks locks;
  ASSERT_EQ(Get(locks, 1, "k", milliseconds(0)), UserLocks::Outcome::kAcquired);
  std::atomic<bool> stop{false};
  std::thread killer([&] {
    std::this_thread::sleep_for(milliseconds(30));
    stop = true;
  });
  Result<UserLocks::Outcome> r = locks.Acquire(2, "k", std::nullopt, [&] { return stop.load(); });
  killer.join();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, UserLocks::Outcome::kInterrupted);
}

TEST(UserLocksTest, NamesAreOneTo64Characters) {
  EXPECT_EQ(UserLocks::CheckName("").mysql_errno(), 3057);
  EXPECT_EQ(UserLocks::CheckName(std::string(65, 'n')).mysql_errno(), 3057);
  EXPECT_TRUE(UserLocks::CheckName(std::string(64, 'n')).ok());
}

}  // namespace
}  // namespace sluice::exec
