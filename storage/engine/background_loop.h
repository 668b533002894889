// storage/engine/background_loop.h
//
// BackgroundLoop: one thread that runs a task every `interval`, and at once
// when Wake() is called, until Stop(). The engine's checkpointer and purge
// threads.
//
// Thread-safety: Start once; Wake and Stop from any thread.
// Blocking: Stop waits for a running task to return.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace sluice::storage {

class BackgroundLoop {
 public:
  BackgroundLoop() = default;
  BackgroundLoop(const BackgroundLoop&) = delete;
  BackgroundLoop& operator=(const BackgroundLoop&) = delete;
  ~BackgroundLoop() { Stop(); }

  void Start(std::chrono::milliseconds interval, std::function<void()> task) {
    thread_ = std::thread([this, interval, task = std::move(task)] {
      std::unique_lock lock(mu_);
      while (!stop_) {
        cv_.wait_for(lock, interval, [this] { return stop_ || woken_; });
        if (stop_) break;
        woken_ = false;
        lock.unlock();
        task();
        lock.lock();
      }
    });
  }

  // Runs the task soon (once, however many Wakes come before it starts).
  void Wake() {
    {
      std::lock_guard lock(mu_);
      woken_ = true;
    }
    cv_.notify_one();
  }

  // Idempotent; joins the thread.
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;   // GUARDED_BY(mu_)
  bool woken_ = false;  // GUARDED_BY(mu_)
  std::thread thread_;
};

}  // namespace sluice::storage
