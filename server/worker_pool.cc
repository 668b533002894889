#include "server/worker_pool.h"

#include <algorithm>

namespace sluice::server {

WorkerPool::WorkerPool(Options options) : options_(options) {}

WorkerPool::~WorkerPool() { Stop(); }

bool WorkerPool::Submit(std::function<void()> job) {
  std::vector<std::thread> to_join;
  {
    std::lock_guard lock(mu_);
    if (stopping_) return false;
    jobs_.push_back(std::move(job));
    // Reap threads that exited on idle timeout so the vector stays small.
    if (!exited_.empty()) {
      for (auto it = threads_.begin(); it != threads_.end();) {
        if (std::find(exited_.begin(), exited_.end(), it->get_id()) != exited_.end()) {
          to_join.push_back(std::move(*it));
          it = threads_.erase(it);
        } else {
          ++it;
        }
      }
      exited_.clear();
    }
    if (idle_ < jobs_.size()) {
      ++live_;
      ++created_;
      threads_.emplace_back([this] { WorkerLoop(); });
    } else {
      cv_.notify_one();
    }
  }
  for (auto& t : to_join) t.join();
  return true;
}

void WorkerPool::WorkerLoop() {
  std::unique_lock lock(mu_);
  for (;;) {
    while (jobs_.empty() && !stopping_) {
      ++idle_;
      bool woke = cv_.wait_for(lock, options_.idle_timeout,
                               [this] { return !jobs_.empty() || stopping_; });
      --idle_;
      if (!woke && live_ > options_.keep_idle) {
        --live_;
        exited_.push_back(std::this_thread::get_id());
        return;
      }
    }
    if (jobs_.empty()) break;  // stopping and drained
    auto job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // destroy captured state outside the lock
    lock.lock();
  }
  --live_;
}

void WorkerPool::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    threads.swap(threads_);
    exited_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads) {
    if (t.joinable()) t.join();
  }
}

size_t WorkerPool::threads_created() const {
  std::lock_guard lock(mu_);
  return created_;
}

}  // namespace sluice::server
