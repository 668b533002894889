// storage/trx/undo_log.h
//
// Where undo records live. UndoLog is one transaction's append-only list of
// undo records: Append returns the roll pointer the engine stores in the
// changed clustered record; position() is a savepoint (statement start,
// SAVEPOINT); RollbackTo hands records back newest-first for the engine to
// apply to the B+tree, then forgets them. UndoStore holds every log, so that
// consistent reads can Fetch any transaction's record by roll pointer until
// purge frees it.
//
// MemUndoStore is the in-memory implementation used until undo pages exist;
// a page-backed, redo-logged store will implement the same interfaces (its
// roll pointers will carry page number and offset).
//
// Thread-safety: an UndoLog is driven by its transaction's thread only
// (Append, RollbackTo, Mark*). UndoStore methods may be called concurrently
// with each other and with any log's owner.
// Lock order (MemUndoStore): Shard::mu -> LogData::mu; one shard at a time.
// Ownership: the store must outlive its logs.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <memory_resource>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/trx/trx_types.h"
#include "storage/trx/undo_record.h"

namespace sluice::storage {

// A savepoint: the number of undo records written so far.
using UndoPos = uint64_t;

class UndoLog {
 public:
  virtual ~UndoLog() = default;

  // Stores `rec` with undo_no = position() and returns its roll pointer
  // (with the insert flag for kInsert). InvalidArgument once the log ended.
  virtual Result<RollPtr> Append(UndoRecord rec) = 0;
  // The same for a record the caller has encoded (EncodeUndoRecord) with
  // undo_no = position(), so that it is encoded once (the engine's redo
  // record holds the same bytes).
  virtual Result<RollPtr> AppendEncoded(std::string_view encoded) = 0;

  virtual UndoPos position() const = 0;

  // Hands every record with undo_no >= `pos` to `apply`, newest first, and
  // drops each one after `apply` returns OK. Stops at the first error and
  // returns it; the failed record and older ones stay, so it can be retried.
  // InvalidArgument when `pos` > position().
  using ApplyFn = std::function<Status(const UndoRecord& rec, RollPtr roll_ptr)>;
  virtual Status RollbackTo(UndoPos pos, const ApplyFn& apply) = 0;

  // Transaction end. After MarkCommitted the records stay readable until
  // the store purges past `commit_no`; after MarkRolledBack (REQUIRES: all
  // records rolled back) the log can be freed at once.
  virtual void MarkCommitted(uint64_t commit_no) = 0;
  virtual void MarkRolledBack() = 0;
};

class UndoStore {
 public:
  virtual ~UndoStore() = default;

  // A new, empty log for transaction `trx`.
  virtual Result<std::unique_ptr<UndoLog>> CreateLog(TrxId trx) = 0;

  // The record at `roll_ptr`. Corruption when it does not exist (purged,
  // rolled back, or never written): a correct caller never asks for one.
  virtual Result<UndoRecord> Fetch(RollPtr roll_ptr) const = 0;

  // A committed log handed to purge: its records other than inserts (an
  // insert leaves nothing to purge), in undo_no order.
  struct PurgedLog {
    TrxId trx = kNoTrxId;
    uint64_t commit_no = 0;
    std::vector<UndoRecord> records;
  };
  // Frees the logs of transactions rolled back, or committed with a commit
  // number < `purge_limit` (TrxSys::PurgeLimit()). Returns how many. When
  // `committed` is not null, appends the freed committed logs that updated
  // or deleted something to it, oldest commit first, for the engine's
  // purge to remove the delete-marked records and stale secondary entries
  // they leave (no read view can follow a roll pointer into them any more,
  // so they go at once).
  // Corruption when a record does not decode (the logs are freed anyway).
  virtual Result<size_t> Purge(TrxId purge_limit, std::vector<PurgedLog>* committed = nullptr) = 0;
  // Whether every read view, open now or later, sees `trx`'s changes: its
  // log was committed with a commit number < `purge_limit`, or rolled back
  // (nothing it wrote stays), or is gone (purged; a transaction that wrote
  // has a log until then). REQUIRES:
  // `trx` wrote something (it is the DB_TRX_ID of some record version).
  virtual bool SeenByAll(TrxId trx, TrxId purge_limit) const = 0;
};

class MemUndoStore final : public UndoStore {
 public:
  MemUndoStore() = default;
  // For tests: the first slot handed out (slots wrap after 2^31 - 1).
  explicit MemUndoStore(uint64_t first_slot) : next_slot_(first_slot) {}
  MemUndoStore(const MemUndoStore&) = delete;
  MemUndoStore& operator=(const MemUndoStore&) = delete;
  ~MemUndoStore() override;

  Result<std::unique_ptr<UndoLog>> CreateLog(TrxId trx) override;
  Result<UndoRecord> Fetch(RollPtr roll_ptr) const override;
  Result<size_t> Purge(TrxId purge_limit, std::vector<PurgedLog>* committed = nullptr) override;
  bool SeenByAll(TrxId trx, TrxId purge_limit) const override;

  size_t log_count() const;

 private:
  struct LogData;
  class Log;

  // The logs are spread over shards by slot, and the newest slot of each
  // transaction by transaction id, so that a new transaction's CreateLog
  // waits only for the sixteenth of the logs a purge pass is walking (one
  // map under one writer lock put 64 committers behind every pass).
  static constexpr size_t kShards = 16;
  // A shard's maps take their nodes from its pool (used only under mu held
  // exclusive: inserts and erases), so a new log allocates none for them.
  // The pool keeps what the most logs at once needed; once a purge has
  // emptied a shard that held more than kKeptNodes, it goes back to the
  // heap (a long history does not pin its memory for good).
  static constexpr size_t kKeptNodes = 4096;
  struct alignas(128) Shard {
    mutable SharedMutex mu;
    std::pmr::unsynchronized_pool_resource nodes GUARDED_BY(mu);
    size_t peak GUARDED_BY(mu) = 0;  // the most nodes in the maps since the pool was last given back
    std::pmr::map<uint64_t, std::shared_ptr<LogData>> logs GUARDED_BY(mu){&nodes};  // slot % kShards == this
    std::pmr::unordered_map<TrxId, uint64_t> slot_of_trx GUARDED_BY(mu){&nodes};    // trx % kShards == this
  };
  // Notes the shard's size after an insert; after an erase, gives its pool
  // back when that is due (see kKeptNodes).
  static void NoteGrowth(Shard& shard) REQUIRES(shard.mu);
  static void TrimIfEmpty(Shard& shard) REQUIRES(shard.mu);
  Shard& ShardOfSlot(uint64_t slot) { return shards_[slot % kShards]; }
  const Shard& ShardOfSlot(uint64_t slot) const { return shards_[slot % kShards]; }
  Shard& ShardOfTrx(TrxId trx) { return shards_[trx % kShards]; }
  const Shard& ShardOfTrx(TrxId trx) const { return shards_[trx % kShards]; }

  std::atomic<uint64_t> next_slot_{1};
  std::array<Shard, kShards> shards_;
};

}  // namespace sluice::storage
