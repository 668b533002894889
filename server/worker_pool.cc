#include "server/worker_pool.h"

#include <algorithm>
#include <system_error>

#include "base/thread_name.h"

namespace sluice::server {

namespace {
thread_local bool on_worker_thread = false;
}  // namespace

WorkerPool::WorkerPool(Options options) : options_(options) {}

bool WorkerPool::OnWorkerThread() { return on_worker_thread; }

WorkerPool::~WorkerPool() { Stop(); }

bool WorkerPool::Submit(std::function<void()> job) {
  std::vector<pthread_t> to_join;
  std::vector<std::thread> dedicated_to_join;
  bool started = false;
  {
    MutexLock lock(&mu_);
    if (stopping_) return false;
    jobs_.push_back(std::move(job));
    started = true;
    TakeFinishedDedicatedLocked(dedicated_to_join);
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
  for (std::thread& t : dedicated_to_join) t.join();
  return started;
}

void WorkerPool::TakeFinishedDedicatedLocked(std::vector<std::thread>& out) {
  if (dedicated_done_.empty()) return;
  for (auto it = dedicated_.begin(); it != dedicated_.end();) {
    const std::thread::id id = it->get_id();
    if (std::find(dedicated_done_.begin(), dedicated_done_.end(), id) != dedicated_done_.end()) {
      out.push_back(std::move(*it));
      it = dedicated_.erase(it);
    } else {
      ++it;
    }
  }
  dedicated_done_.clear();
}

bool WorkerPool::StartDedicated(std::string_view name, std::function<void()> job) {
  std::vector<std::thread> to_join;
  bool started = false;
  {
    MutexLock lock(&mu_);
    if (stopping_) return false;
    TakeFinishedDedicatedLocked(to_join);
    try {
      dedicated_.emplace_back([this, name = std::string(name), job = std::move(job)]() mutable {
        NameThisThread(name);
        job();
        job = nullptr;  // destroy captured state before saying it is done
        // The thread only returns after this: whoever joins it waits for
        // no more than that.
        MutexLock done(&mu_);
        dedicated_done_.push_back(std::this_thread::get_id());
      });
      started = true;
    } catch (const std::system_error&) {
      // No thread (EAGAIN): the caller runs the job some other way.
    }
  }
  for (std::thread& t : to_join) t.join();
  return started;
}

void* WorkerPool::ThreadMain(void* pool) {
  static_cast<WorkerPool*>(pool)->WorkerLoop();
  return nullptr;
}

void WorkerPool::WorkerLoop() {
  on_worker_thread = true;
  NameThisThread("sl_worker");
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
  std::list<std::thread> dedicated;
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    threads.swap(threads_);
    exited_.clear();
    dedicated.swap(dedicated_);
    dedicated_done_.clear();
  }
  cv_.NotifyAll();
  for (pthread_t t : threads) pthread_join(t, nullptr);
  for (std::thread& t : dedicated) t.join();
}

size_t WorkerPool::threads_created() const {
  MutexLock lock(&mu_);
  return created_;
}

size_t WorkerPool::dedicated_threads() const {
  MutexLock lock(&mu_);
  return dedicated_.size();
}

}  // namespace sluice::server
