#include "server/worker_pool.h"

#include <algorithm>

namespace sluice::server {

WorkerPool::WorkerPool(Options options) : options_(options) {}

WorkerPool::~WorkerPool() { Stop(); }

bool WorkerPool::Submit(std::function<void()> job) {
  std::vector<pthread_t> to_join;
  bool started = false;
  {
    MutexLock lock(&mu_);
    if (stopping_) return false;
    jobs_.push_back(std::move(job));
    started = true;
    // Reap threads that exited on idle timeout so the vector stays small.
    if (!exited_.empty()) {
      for (auto it = threads_.begin(); it != threads_.end();) {
        const pthread_t t = *it;
        if (std::any_of(exited_.begin(), exited_.end(), [t](pthread_t e) { return pthread_equal(e, t); })) {
          to_join.push_back(t);
          it = threads_.erase(it);
        } else {
          ++it;
        }
      }
      exited_.clear();
    }
    if (idle_ < jobs_.size()) {
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      pthread_attr_setstacksize(&attr, options_.stack_size);
      pthread_t t;
      const int rc = pthread_create(&t, &attr, &WorkerPool::ThreadMain, this);
      pthread_attr_destroy(&attr);
      if (rc != 0) {
        // No thread (EAGAIN: out of threads or memory). A job left queued
        // might wait for ever, so the caller gets it back.
        jobs_.pop_back();
        started = false;
      } else {
        ++live_;
        ++created_;
        threads_.push_back(t);
      }
    } else {
      cv_.NotifyOne();
    }
  }
  for (pthread_t t : to_join) pthread_join(t, nullptr);
  return started;
}

void* WorkerPool::ThreadMain(void* pool) {
  static_cast<WorkerPool*>(pool)->WorkerLoop();
  return nullptr;
}

void WorkerPool::WorkerLoop() {
  MutexLock lock(&mu_);
  for (;;) {
    while (jobs_.empty() && !stopping_) {
      ++idle_;
      // Woken with work or Stop(), or idle for idle_timeout.
      const auto deadline = std::chrono::steady_clock::now() + options_.idle_timeout;
      bool woke = true;
      while (jobs_.empty() && !stopping_) {
        if (!cv_.WaitUntil(&mu_, deadline)) {
          woke = !jobs_.empty() || stopping_;
          break;
        }
      }
      --idle_;
      if (!woke && live_ > options_.keep_idle) {
        --live_;
        exited_.push_back(pthread_self());
        return;
      }
    }
    if (jobs_.empty()) break;  // stopping and drained
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.Unlock();
    job();
    job = nullptr;  // destroy captured state outside the lock
    lock.Lock();
  }
  --live_;
}

void WorkerPool::Stop() {
  std::vector<pthread_t> threads;
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    threads.swap(threads_);
    exited_.clear();
  }
  cv_.NotifyAll();
  for (pthread_t t : threads) pthread_join(t, nullptr);
}

size_t WorkerPool::threads_created() const {
  MutexLock lock(&mu_);
  return created_;
}

}  // namespace sluice::server
