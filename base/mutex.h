// base/mutex.h
//
// Mutex, SharedMutex and CondVar: std::mutex, std::shared_mutex and
// std::condition_variable with Clang's thread-safety attributes
// (base/thread_annotations.h), so that members declared GUARDED_BY(mu_) are
// checked at compile time. libstdc++'s own types carry no attributes. Every
// method is an inline call of the std type: no cost over using it directly.
//
// Locking is scoped: MutexLock (a Mutex), WriterMutexLock and
// ReaderMutexLock (a SharedMutex, exclusive and shared). Each may Unlock()
// and Lock() again inside its scope, as std::unique_lock may; the analysis
// tracks which state each path is in.
//
// A condition wait names the mutex, which must be held (it is released
// while waiting and held again on return), and the condition is a loop in
// the caller:
//
//   MutexLock lock(&mu_);
//   while (queue_.empty() && !stop_) cv_.Wait(&mu_);
//
// rather than a predicate lambda, whose body the analysis would check as a
// function of its own with no lock held.
//
// Thread-safety: as the std types they wrap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <shared_mutex>

#include "base/thread_annotations.h"

namespace sluice {

class CondVar;

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

  // For the analysis only: states that the caller holds the mutex where
  // the analysis cannot see it (no run-time check: std::mutex has no owner).
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

class CAPABILITY("shared_mutex") SharedMutex {
 public:
  SharedMutex() = default;
  SharedMutex(const SharedMutex&) = delete;
  SharedMutex& operator=(const SharedMutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  void LockShared() ACQUIRE_SHARED() { mu_.lock_shared(); }
  void UnlockShared() RELEASE_SHARED() { mu_.unlock_shared(); }
  bool TryLockShared() TRY_ACQUIRE_SHARED(true) { return mu_.try_lock_shared(); }

  void AssertHeld() const ASSERT_CAPABILITY(this) {}
  void AssertReaderHeld() const ASSERT_SHARED_CAPABILITY(this) {}

 private:
  std::shared_mutex mu_;
};

// Holds a Mutex for its scope. Unlock() and Lock() drop and retake it
// inside the scope; the destructor releases it only if held.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu->Lock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  ~MutexLock() RELEASE() {
    if (held_) UnlockNow();
  }

  void Unlock() RELEASE() {
    UnlockNow();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  // The analysis tracks the scoped object; the call on the pointer inside
  // is the implementation of that.
  void UnlockNow() NO_THREAD_SAFETY_ANALYSIS { mu_->Unlock(); }

  Mutex* const mu_;
  bool held_ = true;
};

// Holds a SharedMutex exclusively for its scope (as MutexLock).
class SCOPED_CAPABILITY WriterMutexLock {
 public:
  explicit WriterMutexLock(SharedMutex* mu) ACQUIRE(mu) : mu_(mu) { mu->Lock(); }
  WriterMutexLock(const WriterMutexLock&) = delete;
  WriterMutexLock& operator=(const WriterMutexLock&) = delete;
  ~WriterMutexLock() RELEASE() {
    if (held_) UnlockNow();
  }

  void Unlock() RELEASE() {
    UnlockNow();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  void UnlockNow() NO_THREAD_SAFETY_ANALYSIS { mu_->Unlock(); }

  SharedMutex* const mu_;
  bool held_ = true;
};

// Holds a SharedMutex shared for its scope.
class SCOPED_CAPABILITY ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ACQUIRE_SHARED(mu) : mu_(mu) { mu->LockShared(); }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;
  ~ReaderMutexLock() RELEASE() {
    if (held_) UnlockNow();
  }

  void Unlock() RELEASE() {
    UnlockNow();
    held_ = false;
  }
  void Lock() ACQUIRE_SHARED() {
    mu_->LockShared();
    held_ = true;
  }

 private:
  void UnlockNow() NO_THREAD_SAFETY_ANALYSIS { mu_->UnlockShared(); }

  SharedMutex* const mu_;
  bool held_ = true;
};

// std::condition_variable for a Mutex. Each wait releases `mu` while
// blocked and holds it again on return (spurious wake-ups included, so
// callers loop on their condition).
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // still held: the caller's scope owns it
  }

  // False when `timeout` passed (as std::cv_status::timeout).
  template <class Rep, class Period>
  bool WaitFor(Mutex* mu, const std::chrono::duration<Rep, Period>& timeout) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const std::cv_status status = cv_.wait_for(lock, timeout);
    lock.release();
    return status == std::cv_status::no_timeout;
  }

  // False when `deadline` passed.
  template <class Clock, class Duration>
  bool WaitUntil(Mutex* mu, const std::chrono::time_point<Clock, Duration>& deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const std::cv_status status = cv_.wait_until(lock, deadline);
    lock.release();
    return status == std::cv_status::no_timeout;
  }

  void NotifyOne() { cv_.notify_one(); }
  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace sluice
