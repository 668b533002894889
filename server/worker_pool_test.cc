#include "server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>

namespace sluice::server {
namespace {

TEST(WorkerPoolTest, RunsEveryJob) {
  WorkerPool pool({2, std::chrono::milliseconds(100)});
  std::atomic<int> n{0};
  std::latch done(50);
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(pool.Submit([&] {
      n.fetch_add(1);
      done.count_down();
    }));
  }
  done.wait();
  EXPECT_EQ(n.load(), 50);
}

// A job that blocks must not keep a later job from running: the holder of
// a lock must be able to commit while a waiter sleeps.
TEST(WorkerPoolTest, GrowsWhenEveryThreadIsBlocked) {
  WorkerPool pool({1, std::chrono::milliseconds(100)});
  std::promise<void> release;
  auto released = release.get_future().share();
  std::promise<void> second_ran;
  ASSERT_TRUE(pool.Submit([released] { released.wait(); }));
  ASSERT_TRUE(pool.Submit([&] { second_ran.set_value(); }));
  second_ran.get_future().wait();  // would hang with a fixed pool of one
  release.set_value();
  pool.Stop();
  EXPECT_GE(pool.threads_created(), 2u);
}

TEST(WorkerPoolTest, RefusesJobsAfterStop) {
  WorkerPool pool({1, std::chrono::milliseconds(100)});
  pool.Stop();
  EXPECT_FALSE(pool.Submit([] {}));
}

// The statement depth limits are sized for this stack, not the platform's
// default thread stack.
TEST(WorkerPoolTest, ThreadsGetTheConfiguredStack) {
  for (size_t stack : {size_t{4} << 20, kStatementThreadStack}) {
    WorkerPool::Options options{1, std::chrono::milliseconds(100)};
    options.stack_size = stack;
    WorkerPool pool(options);
    std::promise<size_t> seen;
    ASSERT_TRUE(pool.Submit([&] { seen.set_value(StackSize()); }));
    EXPECT_GE(seen.get_future().get(), stack);
  }
  EXPECT_EQ(WorkerPool::Options{}.stack_size, kStatementThreadStack);
}

}  // namespace
}  // namespace sluice::server
