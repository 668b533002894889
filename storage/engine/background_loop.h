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
#include <functional>
#include <thread>
#include <utility>

#include "base/mutex.h"
#include "base/thread_name.h"

namespace sluice::storage {

class BackgroundLoop {
 public:
  BackgroundLoop() = default;
  BackgroundLoop(const BackgroundLoop&) = delete;
  BackgroundLoop& operator=(const BackgroundLoop&) = delete;
  ~BackgroundLoop() { Stop(); }

  // `name` names the thread (base/thread_name.h).
  void Start(const char* name, std::chrono::milliseconds interval, std::function<void()> task) {
    thread_ = std::thread([this, name, interval, task = std::move(task)] {
      NameThisThread(name);
      MutexLock lock(&mu_);
      while (!stop_) {
        const auto deadline = std::chrono::steady_clock::now() + interval;
        while (!stop_ && !woken_) {
          if (!cv_.WaitUntil(&mu_, deadline)) break;
        }
        if (stop_) break;
        woken_ = false;
        lock.Unlock();
        task();
        lock.Lock();
      }
    });
  }

  // Runs the task soon (once, however many Wakes come before it starts).
  void Wake() EXCLUDES(mu_) {
    {
      MutexLock lock(&mu_);
      woken_ = true;
    }
    cv_.NotifyOne();
  }

  // Idempotent; joins the thread.
  void Stop() EXCLUDES(mu_) {
    {
      MutexLock lock(&mu_);
      stop_ = true;
    }
    cv_.NotifyAll();
    if (thread_.joinable()) thread_.join();
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  bool woken_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace sluice::storage
