// storage/lock/lock_test_util.h
//
// Test helpers: an observer that lets a test wait for "N requests are now
// waiting" or "a deadlock was resolved" instead of sleeping, and a logger
// that captures what the lock manager writes to the error log.
#pragma once

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/lock/lock_manager.h"

namespace sluice::storage::testing {

class EventLatch : public LockObserver {
 public:
  void OnWaitStart(const LockTrx&) override {
    std::lock_guard lock(mu_);
    ++waits_;
    cv_.notify_all();
  }
  void OnDeadlock(const DeadlockReport&) override {
    std::lock_guard lock(mu_);
    ++deadlocks_;
    cv_.notify_all();
  }
  // True once at least `n` waits have started (false after 60 s: a bug).
  bool AwaitWaits(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return waits_ >= n; });
  }
  bool AwaitDeadlocks(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(60), [&] { return deadlocks_ >= n; });
  }
  int waits() {
    std::lock_guard lock(mu_);
    return waits_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int waits_ = 0;
  int deadlocks_ = 0;
};

// Collects formatted payloads.
class CaptureSink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::vector<std::string> lines() {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    lines_.emplace_back(msg.payload.data(), msg.payload.size());
  }
  void flush_() override {}

 private:
  std::vector<std::string> lines_;
};

inline std::shared_ptr<spdlog::logger> MakeCaptureLogger(std::shared_ptr<CaptureSink> sink) {
  auto logger = std::make_shared<spdlog::logger>("lock-test", std::move(sink));
  logger->set_level(spdlog::level::trace);
  return logger;
}

inline constexpr std::chrono::milliseconds kLongWait{120'000};

}  // namespace sluice::storage::testing
