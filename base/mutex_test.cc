// base/mutex_test.cc: the wrappers of base/mutex.h behave as the std types
// they wrap (exclusion, shared holders, condition waits and timeouts). The
// thread-safety attributes themselves are checked by scripts/thread_safety.sh.
#include "base/mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace sluice {
namespace {

// Whether another thread could take `mu` now (a thread must not try-lock
// a mutex it holds). The try-locks are if conditions: the only form of a
// try-lock the analysis follows.
template <class F>
bool OnOtherThread(F f) {
  bool result = false;
  std::thread t([&] { result = f(); });
  t.join();
  return result;
}
bool Free(Mutex& mu) {
  return OnOtherThread([&] {
    if (mu.TryLock()) {
      mu.Unlock();
      return true;
    }
    return false;
  });
}
bool FreeForReader(SharedMutex& mu) {
  return OnOtherThread([&] {
    if (mu.TryLockShared()) {
      mu.UnlockShared();
      return true;
    }
    return false;
  });
}
bool FreeForWriter(SharedMutex& mu) {
  return OnOtherThread([&] {
    if (mu.TryLock()) {
      mu.Unlock();
      return true;
    }
    return false;
  });
}

TEST(MutexTest, ExcludesOtherThreads) {
  Mutex mu;
  int counter = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) {
        MutexLock lock(&mu);
        ++counter;
      }
    });
  }
  for (auto& t : threads) t.join();
  MutexLock lock(&mu);
  EXPECT_EQ(counter, 40000);
}

TEST(MutexTest, ScopedLockUnlocksAndRelocks) {
  Mutex mu;
  {
    MutexLock lock(&mu);
    EXPECT_FALSE(Free(mu));
    lock.Unlock();
    EXPECT_TRUE(Free(mu));
    lock.Lock();
    EXPECT_FALSE(Free(mu));
  }
  EXPECT_TRUE(Free(mu));  // the destructor released it
}

TEST(MutexTest, DestructorAfterUnlockLeavesItFree) {
  Mutex mu;
  {
    MutexLock lock(&mu);
    lock.Unlock();
  }
  EXPECT_TRUE(Free(mu));
}

TEST(SharedMutexTest, ReadersShareWritersExclude) {
  SharedMutex mu;
  {
    ReaderMutexLock reader(&mu);
    EXPECT_TRUE(FreeForReader(mu));
    EXPECT_FALSE(FreeForWriter(mu));
  }
  {
    WriterMutexLock writer(&mu);
    EXPECT_FALSE(FreeForReader(mu));
    writer.Unlock();
    EXPECT_TRUE(FreeForReader(mu));
    writer.Lock();
    EXPECT_FALSE(FreeForWriter(mu));
  }
  EXPECT_TRUE(FreeForWriter(mu));
}

TEST(CondVarTest, WaitSeesTheSignalledState) {
  Mutex mu;
  CondVar cv;
  bool ready = false;
  std::thread signaller([&] {
    MutexLock lock(&mu);
    ready = true;
    cv.NotifyAll();
  });
  {
    MutexLock lock(&mu);
    while (!ready) cv.Wait(&mu);
    EXPECT_TRUE(ready);
  }
  signaller.join();
}

TEST(CondVarTest, TimedWaitsTimeOutHoldingTheMutex) {
  Mutex mu;
  CondVar cv;
  MutexLock lock(&mu);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(cv.WaitFor(&mu, std::chrono::milliseconds(20)));
  EXPECT_FALSE(cv.WaitUntil(&mu, std::chrono::steady_clock::now() + std::chrono::milliseconds(20)));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(40));
  EXPECT_FALSE(Free(mu));  // still held
}

TEST(CondVarTest, TimedWaitReturnsTrueWhenNotified) {
  Mutex mu;
  CondVar cv;
  bool ready = false;
  MutexLock lock(&mu);
  std::thread signaller([&] {
    MutexLock inner(&mu);
    ready = true;
    cv.NotifyOne();
  });
  bool notified = true;
  while (!ready && notified) notified = cv.WaitFor(&mu, std::chrono::seconds(30));
  EXPECT_TRUE(ready);
  EXPECT_TRUE(notified);
  lock.Unlock();
  signaller.join();
}

}  // namespace
}  // namespace sluice
