// exec/metadata_lock.h
//
// MetadataLocks: keeps DDL away from the tables that open transactions use,
// one lock per object as MySQL's MDL. Keys are a table ("t:schema.name") or
// a schema ("s:schema"), in lower case. A statement takes a table's lock
// shared when it reads or writes the table and keeps it until its
// transaction ends (at once under autocommit); DDL takes the locks of the
// tables it changes exclusive, plus their schema's lock shared, and DROP /
// CREATE DATABASE the schema's lock exclusive, so no table can be created in
// a schema being dropped. A DDL waiting for one table therefore never holds
// up statements on any other table. A waiting exclusive request holds off new
// shared requests for its own key only, so DDL is not starved; an owner's
// requests never wait for its own locks (a transaction reading a table again
// while DDL waits for that table goes on).
//
// Locks are owned by a session (its connection id) rather than a thread: a
// transaction's locks are released when it ends, possibly on another worker
// thread.
//
// Deadlocks: a request that would wait for an owner that (transitively)
// waits for the requester fails with ER_LOCK_DEADLOCK (1213) instead of
// waiting; any other wait ends with ER_LOCK_WAIT_TIMEOUT (1205) after
// `timeout` (lock_wait_timeout), or with ER_QUERY_INTERRUPTED (1317) once
// the session is killed.
//
// Thread-safety: all methods, any thread. One mutex guards every key: the
// lock is held for a map lookup per table, never across I/O. Blocking:
// Acquire waits up to `timeout`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"

namespace sluice::exec {

class MetadataLocks {
 public:
  enum class Mode : uint8_t { kShared, kExclusive };
  struct Request {
    std::string key;
    Mode mode = Mode::kShared;
  };

  static std::string TableKey(std::string_view schema, std::string_view table);
  static std::string SchemaKey(std::string_view schema);

  // Takes every lock of `requests` for `owner`, in key order (so two DDL
  // statements never wait for each other in a cycle), or none of them. A
  // lock `owner` already holds in the mode asked (or exclusive, when shared
  // is asked) is not taken twice. `killed`, when not null, is polled while
  // waiting (non-zero: the wait ends with 1317). `on_wait` is called once,
  // when the first wait begins (the process list's state).
  Status Acquire(uint32_t owner, std::vector<Request> requests, std::chrono::milliseconds timeout,
                 const std::atomic<int>* killed = nullptr, const std::function<void()>& on_wait = nullptr)
      EXCLUDES(mu_);

  // Releases `owner`'s shared locks (its transaction ended).
  void ReleaseShared(uint32_t owner) EXCLUDES(mu_);
  // Releases `owner`'s locks on `keys` (a DDL statement's, whatever mode).
  void Release(uint32_t owner, const std::vector<std::string>& keys) EXCLUDES(mu_);
  // Releases everything `owner` holds (session end).
  void ReleaseAll(uint32_t owner) EXCLUDES(mu_);

  // For tests: whether `owner` holds `key` in `mode` (or stronger).
  bool Holds(uint32_t owner, const std::string& key, Mode mode) const EXCLUDES(mu_);

 private:
  struct Entry {
    std::map<uint32_t, uint32_t> shared;  // owner -> count (always 1 here)
    std::optional<uint32_t> exclusive;    // the owner
    std::map<uint32_t, uint32_t> exclusive_waiting;  // owner -> pending requests
    bool Idle() const { return shared.empty() && !exclusive && exclusive_waiting.empty(); }
  };
  struct Waiting {
    std::string key;
    Mode mode;
  };
  // The owners `owner`'s request for `key` in `mode` waits for; empty when
  // it can be granted now.
  std::vector<uint32_t> BlockersLocked(const Entry& e, uint32_t owner, Mode mode) const REQUIRES(mu_);
  // Whether one of `blockers` waits, directly or through others, for
  // `owner`.
  bool ClosesCycleLocked(uint32_t owner, const std::vector<uint32_t>& blockers) const REQUIRES(mu_);
  void EraseIfIdleLocked(const std::string& key) REQUIRES(mu_);

  mutable Mutex mu_;
  CondVar cv_;
  std::map<std::string, Entry> entries_ GUARDED_BY(mu_);
  std::map<uint32_t, Waiting> waiting_ GUARDED_BY(mu_);  // who waits for what
  std::map<uint32_t, std::vector<std::string>> held_ GUARDED_BY(mu_);  // owner -> keys
};

}  // namespace sluice::exec
