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
// The fast path (as MySQL's "unobtrusive" locks): a shared request for a
// key with no exclusive lock held or waited for is granted by one
// compare-and-swap on the key's counter, under a reader latch of the key
// table only, and recorded in the owner's Owner, not under the mutex; its
// release is one atomic decrement. Every statement takes and releases its
// table's lock, and 64 sessions writing one table queued on the one mutex
// (3.5 % of their context switches at concurrency 64). An exclusive request
// first marks the key (no fast grant after that), then waits for the counter
// to drain as for recorded holders. Before an owner waits, or takes anything
// exclusive, its fast-path locks are recorded under the mutex, so the
// deadlock check, which follows only waiting owners, sees every lock a
// waiting owner holds; a fast-path holder that is not recorded is not
// waiting, so it closes no cycle.
//
// Thread-safety: all methods, any thread; the calls for one Owner one at a
// time (a session's statements). The mutex is held for map lookups, never
// across I/O. Blocking: Acquire waits up to `timeout`.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"

namespace sluice::exec {

class MetadataLocks {
  struct Lock;

 public:
  enum class Mode : uint8_t { kShared, kExclusive };
  struct Request {
    std::string key;
    Mode mode = Mode::kShared;
  };

  // The locks one owner (a session, by its connection id) holds on the fast
  // path, and whether it may hold any recorded under the mutex. Used by that
  // owner's calls only.
  class Owner {
   public:
    explicit Owner(uint32_t id = 0) : id(id) {}
    Owner(const Owner&) = delete;
    Owner& operator=(const Owner&) = delete;

    uint32_t id;
    // False: the owner holds nothing (ReleaseShared would do nothing).
    bool MayHold() const { return !fast_.empty() || recorded_; }

   private:
    friend class MetadataLocks;
    std::vector<Lock*> fast_;  // shared, counted in the lock's state only
    bool recorded_ = false;    // may hold locks recorded under mu_
  };

  MetadataLocks();
  ~MetadataLocks();
  MetadataLocks(const MetadataLocks&) = delete;
  MetadataLocks& operator=(const MetadataLocks&) = delete;

  static std::string TableKey(std::string_view schema, std::string_view table);
  static std::string SchemaKey(std::string_view schema);

  // Takes every lock of `requests` for `owner`, in key order (so two DDL
  // statements never wait for each other in a cycle), or none of them. A
  // lock `owner` already holds in the mode asked (or exclusive, when shared
  // is asked) is not taken twice. `killed`, when not null, is polled while
  // waiting (non-zero: the wait ends with 1317). `on_wait` is called once,
  // when the first wait begins (the process list's state).
  Status Acquire(Owner& owner, std::vector<Request> requests, std::chrono::milliseconds timeout,
                 const std::atomic<int>* killed = nullptr, const std::function<void()>& on_wait = nullptr)
      EXCLUDES(mu_, map_mu_);

  // Takes the shared lock on `key` for `owner` if it can without waiting or
  // the mutex (the fast path Acquire tries first; no request list to
  // build): true when `owner` holds it now. False: call Acquire.
  bool TryAcquireSharedFast(Owner& owner, const std::string& key) EXCLUDES(mu_, map_mu_);

  // Releases `owner`'s shared locks (its transaction ended).
  void ReleaseShared(Owner& owner) EXCLUDES(mu_, map_mu_);
  // Releases `owner`'s locks on `keys` (a DDL statement's, whatever mode).
  void Release(Owner& owner, const std::vector<std::string>& keys) EXCLUDES(mu_, map_mu_);
  // Releases everything `owner` holds (session end).
  void ReleaseAll(Owner& owner) EXCLUDES(mu_, map_mu_);

  // Whether `owner` holds `key` in `mode` (or stronger).
  bool Holds(const Owner& owner, const std::string& key, Mode mode) const EXCLUDES(mu_, map_mu_);

 private:
  // One per key. `state`: bits 0-31 count the shared locks granted on the
  // fast path; kObtrusive says an exclusive lock is held or waited for (no
  // fast grant while it is set; changed under mu_ only). The other fields
  // are guarded by mu_ (not annotated: a nested type cannot name it). A
  // lock is erased (under mu_ and map_mu_ exclusive) only when idle and its
  // state is 0, so one found under map_mu_ and counted in stays.
  struct Lock {
    explicit Lock(std::string k) : key(std::move(k)) {}
    const std::string key;
    std::atomic<uint64_t> state{0};
    std::map<uint32_t, uint32_t> shared;  // recorded owner -> 1
    std::optional<uint32_t> exclusive;    // the owner
    std::map<uint32_t, uint32_t> exclusive_waiting;  // owner -> pending requests
    bool Idle() const {
      return shared.empty() && !exclusive && exclusive_waiting.empty() && state.load() == 0;
    }
  };
  static constexpr uint64_t kObtrusive = uint64_t{1} << 32;
  static constexpr uint64_t kFastCount = kObtrusive - 1;
  // A blocker that holds a fast-path lock: not waiting, so never in a cycle.
  static constexpr uint32_t kUnrecordedHolder = UINT32_MAX;

  struct Waiting {
    std::string key;
    Mode mode;
  };

  // The lock for `key` (created if absent), or null. Valid while mu_ is
  // held: only a holder of mu_ erases one.
  Lock& LockFor(const std::string& key) REQUIRES(mu_) EXCLUDES(map_mu_);
  Lock* Find(const std::string& key) const REQUIRES(mu_) EXCLUDES(map_mu_);
  Lock& InsertLocked(const std::string& key) REQUIRES(map_mu_);  // find or create
  // Whether `owner` holds `key` on the fast path.
  static bool HoldsFast(const Owner& owner, const std::string& key);
  // One compare-and-swap: a fast-path shared lock on `key`, or null (an
  // exclusive lock is held or waited for: take the slow path).
  Lock* TryFastShared(const std::string& key) EXCLUDES(map_mu_);
  // Drops `owner`'s fast-path locks (all, or those on `keys`), waking
  // exclusive waiters when a drained counter may let one in.
  void ReleaseFast(Owner& owner, const std::vector<std::string>* keys) EXCLUDES(mu_);
  // Records `owner`'s fast-path locks under mu_ (before it waits or takes
  // anything exclusive).
  void RecordFastLocked(Owner& owner) REQUIRES(mu_);
  // Sets or clears kObtrusive from the recorded exclusive state.
  static void SyncObtrusive(Lock& e);

  // The owners `owner`'s request for `key` in `mode` waits for; empty when
  // it can be granted now.
  std::vector<uint32_t> BlockersLocked(const Lock& e, uint32_t owner, Mode mode) const REQUIRES(mu_);
  // Whether one of `blockers` waits, directly or through others, for
  // `owner`.
  bool ClosesCycleLocked(uint32_t owner, const std::vector<uint32_t>& blockers) const REQUIRES(mu_);
  void EraseIfIdleLocked(const std::string& key) REQUIRES(mu_) EXCLUDES(map_mu_);
  // After mu_-side changes: whether `owner` still has recorded locks.
  void NoteRecordedLocked(Owner& owner) const REQUIRES(mu_);

  mutable Mutex mu_;
  CondVar cv_;
  // Guards the key table's shape; a lock's fields have their own rules
  // (Lock). Taken after mu_ when both are held.
  mutable SharedMutex map_mu_ ACQUIRED_AFTER(mu_);
  std::unordered_map<std::string, std::unique_ptr<Lock>> locks_ GUARDED_BY(map_mu_);
  std::map<uint32_t, Waiting> waiting_ GUARDED_BY(mu_);  // who waits for what
  std::map<uint32_t, std::vector<std::string>> held_ GUARDED_BY(mu_);  // recorded owner -> keys
};

}  // namespace sluice::exec
