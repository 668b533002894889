// storage/trx/trx_sys.h
//
// TrxSys: the transaction system. Hands out transaction ids and commit
// serialisation numbers (one 48-bit counter), tracks the active read-write
// transactions, makes read views per isolation level, and tells purge how
// far it may go (PurgeLimit).
//
// Registry: the active ids and the open views' low limits live in N shards,
// each behind its own mutex; a transaction is pinned to one shard when it
// begins (round robin). Begin-write (AssignId), Commit and closing a view
// take only their shard's mutex. Making a view and PurgeLimit take every
// shard's mutex (ascending index), which makes them consistent snapshots:
// an id is drawn from the counter while its shard is locked and inserted
// before that lock is released, and commit removes the id and draws the
// commit number under the same lock, so a view never misses an id below its
// low limit that is still active, and every commit number below a view's
// low limit belongs to a transaction that view sees as committed.
//
// A view made while no other read-write transaction is active takes only
// its own shard's mutex (MySQL takes one mutex for a view; 16 were 16 lock
// round trips per autocommit SELECT). active_count_ counts the registered
// ids: a writer adds itself before it draws its id and leaves after it drew
// its commit number; the view reads the counter (L), then active_count_,
// then the counter again, all sequentially consistent. A zero count between
// two equal reads of L means every transaction with an id below L had left
// before the count was read (its +1 came before its id, so before the first
// read of L, so before the count's read) and drew its commit number before
// the second read of L, so below L: the view (L, no active ids) is what the
// all-shards snapshot would have made at that moment.
//
// Thread-safety: every TrxSys method may be called concurrently. A Trx is
// driven by one thread at a time (its session).
// Lock order: Shard::mu in ascending shard index. Nothing else is locked.
// Blocking: none beyond those short critical sections.
// Ownership: TrxSys must outlive every Trx it began.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/trx/read_view.h"
#include "storage/trx/trx_types.h"

namespace sluice::storage {

class TrxSys;

class Trx {
 public:
  enum class State : uint8_t { kActive, kCommitted, kRolledBack };

  Trx(const Trx&) = delete;
  Trx& operator=(const Trx&) = delete;
  ~Trx();

  // kNoTrxId until the transaction first writes (TrxSys::AssignId).
  TrxId id() const { return id_; }
  IsolationLevel isolation() const { return isolation_; }
  State state() const { return state_; }
  // The commit serialisation number; 0 unless committed read-write.
  uint64_t commit_no() const { return commit_no_; }
  // The open read view, or nullptr.
  const ReadView* read_view() const { return view_ ? &*view_ : nullptr; }

 private:
  friend class TrxSys;
  Trx(TrxSys* sys, IsolationLevel iso, size_t shard) : sys_(sys), isolation_(iso), shard_(shard) {}

  TrxSys* sys_;
  IsolationLevel isolation_;
  size_t shard_;
  TrxId id_ = kNoTrxId;
  State state_ = State::kActive;
  uint64_t commit_no_ = 0;
  std::optional<ReadView> view_;
};

class TrxSys {
 public:
  struct Options {
    size_t num_shards = 16;
    TrxId first_id = 1;  // after recovery: max id seen on disk + 1
  };
  explicit TrxSys(const Options& options);
  TrxSys();
  ~TrxSys();
  TrxSys(const TrxSys&) = delete;
  TrxSys& operator=(const TrxSys&) = delete;

  // A new transaction, read-only until AssignId.
  std::unique_ptr<Trx> Begin(IsolationLevel isolation = IsolationLevel::kRepeatableRead);
  // The same as a value, for an owner that keeps the transaction in place
  // (storage::EngineTrx: one allocation per transaction instead of two).
  // A Trx cannot move: the caller initializes its member from the call.
  Trx MakeTrx(IsolationLevel isolation);

  // Crash recovery: a transaction the redo log shows active (or prepared)
  // at the crash, registered active under its old `id` (so read views treat
  // its changes as uncommitted) until it is rolled back or committed.
  // REQUIRES: id < next_id() (Options::first_id is past every recovered id).
  std::unique_ptr<Trx> Recover(TrxId id);
  // The same for a transaction just made by MakeTrx (read-only so far).
  void Recover(Trx& trx, TrxId id);

  // Makes `trx` read-write: gives it an id and registers it as active. A
  // no-op when it already has one. InvalidArgument when `trx` has ended;
  // a kMySQL error (1105) once the 48-bit id space is exhausted.
  Result<TrxId> AssignId(Trx& trx);

  // The view a consistent read in `trx` must use now: nullptr under READ
  // UNCOMMITTED (read the latest version); otherwise the transaction's view,
  // made here on first use. REPEATABLE READ / SERIALIZABLE keep it until the
  // transaction ends; READ COMMITTED drops it at EndStatement.
  // REQUIRES: trx is active.
  const ReadView* GetReadView(Trx& trx);

  // Statement boundary: under READ COMMITTED closes the view so the next
  // statement sees everything committed by then.
  void EndStatement(Trx& trx);

  // Commits: draws the commit serialisation number (read-write transactions
  // only; read-only ones get 0), removes it from the active set, closes its
  // view. InvalidArgument when not active.
  Result<uint64_t> Commit(Trx& trx);

  // Ends `trx` as rolled back (the caller has already applied its undo).
  // InvalidArgument when not active.
  Status Rollback(Trx& trx);

  // Purge may remove undo written by transactions whose commit number is
  // below this: the smallest low limit of the open views, or the next id
  // when none is open. Never decreases.
  TrxId PurgeLimit() const;

  // The next id to be handed out (for tests and SHOW ENGINE status).
  TrxId next_id() const { return next_id_.load(std::memory_order_relaxed); }
  // Active read-write transactions, sorted (a snapshot).
  std::vector<TrxId> ActiveIds() const;
  size_t open_views() const;

 private:
  struct Shard;

  // Both REQUIRES(shard.mu), asserted in their bodies (Shard is
  // incomplete here).
  void CloseViewLocked(Shard& shard, Trx& trx);
  void EndLocked(Shard& shard, Trx& trx);
  Shard& ShardOf(const Trx& trx) const;

  const Options options_;
  std::unique_ptr<Shard[]> shards_;  // fixed after construction
  // Written only under the writer's shard mutex; read under all of them by
  // views (see the opening comment), relaxed elsewhere.
  std::atomic<TrxId> next_id_;
  // Registered ids across all shards (see the opening comment); beside
  // next_id_, which every writer touches anyway.
  std::atomic<size_t> active_count_{0};
  std::atomic<size_t> next_shard_{0};  // round robin for Begin
};

}  // namespace sluice::storage
