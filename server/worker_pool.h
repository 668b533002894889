// server/worker_pool.h
//
// WorkerPool: the threads that run statements. Sessions hand it one job at
// a time (a statement may block on row locks, commit waits or SLEEP), so
// the pool grows when every thread is busy rather than queue a job behind a
// blocked one: a fixed pool would let a lock waiter starve the holder's
// COMMIT. Idle threads above `keep_idle` (thread_cache_size) exit after
// `idle_timeout`.
//
// Threads get an explicit stack (Options::stack_size, not the platform's
// default) because the depth limits on statements (sql/parser.h) and the
// stack checks (base/stack_guard.h) are sized for it.
//
// A job that lasts a connection's lifetime (a binlog dump) gets a thread of
// its own instead (StartDedicated), so it holds no pool thread; the pool
// owns those threads too and joins them, so every thread the server starts
// is joined.
//
// Thread-safety: Submit and StartDedicated from any thread. Stop() joins
// every thread; jobs submitted after Stop() are dropped (their owners see
// the shutdown).
#pragma once

#include <pthread.h>

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <list>
#include <string_view>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/stack_guard.h"

namespace sluice::server {

class WorkerPool {
 public:
  struct Options {
    size_t keep_idle = 9;
    std::chrono::milliseconds idle_timeout{60000};
    size_t stack_size = kStatementThreadStack;
  };
  explicit WorkerPool(Options options);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `job` on a pool thread, starting one if none is idle. Returns false
  // after Stop(), or when no thread could be started for it.
  bool Submit(std::function<void()> job) EXCLUDES(mu_);
  // Runs `job` on a new thread of its own (default stack). Once `job` has
  // returned, the thread is joined by the next Submit or StartDedicated, so
  // a server whose readers keep reconnecting accumulates none; Stop() joins
  // the rest, waiting for running jobs to return (their owners must have
  // told them to stop). Returns false after Stop(), or when no thread could
  // be started.
  // `name` names the thread (base/thread_name.h).
  bool StartDedicated(std::string_view name, std::function<void()> job) EXCLUDES(mu_);
  // Stops taking jobs and joins every thread, pool and dedicated.
  void Stop() EXCLUDES(mu_);

  // True on a pool thread (not a dedicated one): a job may then block for
  // a while (RunOnWorker runs jobs inline on the caller after Stop()).
  static bool OnWorkerThread();

  size_t threads_created() const EXCLUDES(mu_);
  // Dedicated threads started and not yet joined (running or finished).
  size_t dedicated_threads() const EXCLUDES(mu_);

 private:
  static void* ThreadMain(void* pool);
  void WorkerLoop() EXCLUDES(mu_);

  const Options options_;
  mutable Mutex mu_;
  CondVar cv_;
  std::deque<std::function<void()>> jobs_ GUARDED_BY(mu_);
  size_t idle_ GUARDED_BY(mu_) = 0;
  size_t live_ GUARDED_BY(mu_) = 0;
  size_t created_ GUARDED_BY(mu_) = 0;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::vector<pthread_t> threads_ GUARDED_BY(mu_);  // joined in Stop()
  std::vector<pthread_t> exited_ GUARDED_BY(mu_);   // finished, to join
  std::list<std::thread> dedicated_ GUARDED_BY(mu_);  // joined when finished or in Stop()
  std::vector<std::thread::id> dedicated_done_ GUARDED_BY(mu_);  // their jobs returned, to join

  // Moves the dedicated threads whose jobs have returned to `out`, to be
  // joined once mu_ is released.
  void TakeFinishedDedicatedLocked(std::vector<std::thread>& out) REQUIRES(mu_);
};

}  // namespace sluice::server
