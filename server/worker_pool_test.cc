#include "server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <thread>

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

// Counts threads that have fully exited: a thread_local's destructor runs
// as its thread ends, before a join of it returns.
std::atomic<int> g_exited{0};
struct CountExit {
  ~CountExit() { g_exited.fetch_add(1); }
};
thread_local CountExit t_count_exit;

// A dump thread (dedicated) is joined soon after its job returns: a server
// whose readers keep reconnecting must not accumulate finished threads.
TEST(WorkerPoolTest, FinishedDedicatedThreadsAreJoined) {
  WorkerPool pool({1, std::chrono::milliseconds(100)});
  std::latch done(20);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(pool.StartDedicated("sl_test", [&] { done.count_down(); }));
  done.wait();
  // Each thread says it is finished just after its job returns; the next
  // Submit or StartDedicated joins the finished ones.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (pool.dedicated_threads() > 0 && std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(pool.Submit([] {}));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(pool.dedicated_threads(), 0u);
}

// Stop() joins dedicated threads still running once their owners have told
// them to stop (as the server does with dump threads at shutdown).
TEST(WorkerPoolTest, StopJoinsRunningDedicatedThreads) {
  const int before = g_exited.load();
  std::atomic<bool> stop{false};
  std::atomic<int> finished{0};
  std::latch running(4);
  {
    WorkerPool pool({1, std::chrono::milliseconds(100)});
    for (int i = 0; i < 4; ++i) {
      ASSERT_TRUE(pool.StartDedicated("sl_test", [&] {
        static_cast<void>(&t_count_exit);  // its destructor now runs at this thread's exit
        running.count_down();
        while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // Stop() must wait for this
        finished.fetch_add(1);
      }));
    }
    running.wait();
    EXPECT_EQ(pool.dedicated_threads(), 4u);
    stop.store(true);
    pool.Stop();
    EXPECT_EQ(finished.load(), 4);
    EXPECT_EQ(g_exited.load() - before, 4);  // every thread has exited, not only its job
    EXPECT_EQ(pool.dedicated_threads(), 0u);
    EXPECT_FALSE(pool.StartDedicated("sl_test", [] {}));
  }
}

}  // namespace
}  // namespace sluice::server
