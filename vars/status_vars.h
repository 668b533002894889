// vars/status_vars.h
//
// Status variables (SHOW [GLOBAL|SESSION] STATUS) with MySQL's names, in
// three kinds:
//  - session counters (Com_select, Questions, Bytes_sent): each session
//    bumps its own array in its SessionStatus, so sessions share no cache
//    line; the global value sums the live sessions and what ended sessions
//    left in the totals (MySQL does the same).
//  - global counters (Connections, Aborted_connects): one atomic each, for
//    events that happen outside a session.
//  - providers (Uptime, Threads_connected): a callback computes the value.
// Names are matched case-insensitively and listed in their registered case.
//
// Ownership: the server owns one StatusVariables. Each connection owns one
// SessionStatus, which links itself into the registry for its lifetime and
// must not outlive it. GlobalCounter pointers stay valid as long as the
// registry, even after Unregister().
//
// Thread-safety: StatusVariables methods and SessionStatus::Add/Get from any
// thread (counters are relaxed atomics: a reader sees each counter whole,
// not a consistent cut across counters). SessionStatus::BindComputed and
// Flush() by the owning session only.
// Lock order: StatusVariables::mu_ only; providers run without it.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"

namespace sluice::vars {

class SessionStatus;
class StatusVariables;

// A handle to a session counter: an index into every session's array.
struct SessionCounter {
  static constexpr uint32_t kInvalid = UINT32_MAX;
  uint32_t slot = kInvalid;
  bool valid() const { return slot != kInvalid; }
};

// A counter of events outside sessions. Owned by StatusVariables.
class GlobalCounter {
 public:
  void Add(uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  // Raises the value to `v` if it is lower (Max_used_connections).
  void UpdateMax(uint64_t v) {
    uint64_t cur = value_.load(std::memory_order_relaxed);
    while (cur < v && !value_.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
  }
  void Set(uint64_t v) { value_.store(v, std::memory_order_relaxed); }
  uint64_t value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> value_{0};
};

// Computes a value; `session` is null for SHOW GLOBAL STATUS.
using StatusProvider = std::function<std::string(const SessionStatus* session)>;

// SHOW GLOBAL STATUS / SHOW [SESSION] STATUS.
enum class StatusScope : uint8_t { kGlobal, kSession };

struct StatusRow {
  std::string name;
  std::string value;
  friend bool operator==(const StatusRow&, const StatusRow&) = default;
};

class StatusVariables {
 public:
  struct Options {
    // Slots in each session's counter array (8 bytes each); registering
    // more session counters fails.
    uint32_t max_session_counters = 512;
  };

  StatusVariables();
  explicit StatusVariables(Options options);
  // REQUIRES: every SessionStatus is gone.
  ~StatusVariables();
  StatusVariables(const StatusVariables&) = delete;
  StatusVariables& operator=(const StatusVariables&) = delete;

  // Registers a per-session counter. Registering a name again after
  // Unregister() gives back the same slot (and its totals).
  // InvalidArgument when the name is taken or the slots are used up.
  Result<SessionCounter> RegisterSessionCounter(std::string name, std::string help);
  // Registers a global counter; the pointer is valid as long as this
  // registry. Again after Unregister(): the same counter.
  Result<GlobalCounter*> RegisterGlobalCounter(std::string name, std::string help);
  // Registers a computed variable. InvalidArgument when the name is taken.
  Status RegisterProvider(std::string name, std::string help, StatusProvider provider);
  // Removes a variable from listings. InvalidArgument when unknown.
  Status Unregister(std::string_view name);

  // One variable: for kSession the session's own count of a session
  // counter (the global value when `session` is null), else the global
  // value. InvalidArgument when unknown.
  Result<std::string> Get(std::string_view name, StatusScope scope,
                          const SessionStatus* session) const;
  // Every variable, sorted by name.
  std::vector<StatusRow> List(StatusScope scope, const SessionStatus* session) const;
  // The global value of a session counter: live sessions plus ended ones.
  uint64_t Total(SessionCounter counter) const;
  size_t live_sessions() const;

 private:
  friend class SessionStatus;
  enum class Kind : uint8_t { kSessionCounter, kGlobalCounter, kProvider };
  struct Entry {
    std::string name;  // as registered
    std::string help;
    Kind kind;
    uint32_t slot = SessionCounter::kInvalid;  // kSessionCounter
    GlobalCounter* global = nullptr;           // kGlobalCounter
    StatusProvider provider;                   // kProvider
  };

  void Link(SessionStatus* session);
  // Adds the session's counts to totals_ and, when `unlink`, forgets it.
  void Retire(SessionStatus* session, bool unlink);
  // totals_ plus every live session, per slot.
  std::vector<uint64_t> SumLocked() const REQUIRES(mu_);

  const Options options_;
  mutable Mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_ GUARDED_BY(mu_);  // lower-case name
  // Slots and counters ever handed out, by lower-case name: kept after
  // Unregister() so a name comes back to the same one.
  std::map<std::string, uint32_t, std::less<>> slots_ GUARDED_BY(mu_);
  std::map<std::string, std::unique_ptr<GlobalCounter>, std::less<>> global_counters_ GUARDED_BY(mu_);
  std::vector<uint64_t> totals_ GUARDED_BY(mu_);  // per slot
  std::unordered_set<const SessionStatus*> live_ GUARDED_BY(mu_);
};

// One connection's counters. Links itself into `registry` when built and
// adds its counts to the registry's totals when destroyed.
class SessionStatus {
 public:
  explicit SessionStatus(StatusVariables& registry);
  ~SessionStatus();
  SessionStatus(const SessionStatus&) = delete;
  SessionStatus& operator=(const SessionStatus&) = delete;

  void Add(SessionCounter counter, uint64_t n = 1) {
    if (counter.slot < capacity_) counters_[counter.slot].fetch_add(n, std::memory_order_relaxed);
  }
  uint64_t Get(SessionCounter counter) const {
    return counter.slot < capacity_ ? counters_[counter.slot].load(std::memory_order_relaxed) : 0;
  }

  // Makes a variable computed for this session's SHOW SESSION STATUS and
  // Get(kSession) (Ssl_cipher of this connection, live Bytes_sent); global
  // values are unaffected. `fn` must stay valid as long as this object.
  void BindComputed(std::string name, std::function<std::string()> fn);

  // FLUSH STATUS: adds this session's counts to the global totals and
  // zeroes them, so global values do not change.
  void Flush();

 private:
  friend class StatusVariables;
  StatusVariables& registry_;
  const uint32_t capacity_;
  std::unique_ptr<std::atomic<uint64_t>[]> counters_;
  std::map<std::string, std::function<std::string()>, std::less<>> computed_;  // owner only
};

}  // namespace sluice::vars
