// storage/engine/engine.h
//
// Engine: the storage engine facade v0. Ties together the catalog
// (storage/catalog), the buffer pool and tablespaces (storage/buffer), the
// B+trees (storage/btree), the transaction system, undo and MVCC
// (storage/trx) and the lock manager (storage/lock): DDL, transactions,
// row insert/get/update/delete/scan with consistent reads and row locks,
// commit, rollback and savepoints.
//
// NOT DURABLE YET: there is no redo log and undo lives in memory
// (MemUndoStore). Data reaches disk only through Close() (which runs
// BufferPool::FlushAll) or buffer-pool eviction; after a crash the
// tablespaces may hold torn or uncommitted changes and nothing repairs
// them. Only a clean Close() followed by Open() is supported.
//
// Clustered record (the B+tree value under the clustered key):
//   [DB_TRX_ID 6 bytes big-endian][DB_ROLL_PTR 8 bytes big-endian]
//   [delete mark 1 byte: 0 or 1][EncodeRow() bytes (row_codec.h)]
// The clustered key is EncodeClusteredKey(): the PRIMARY KEY parts, or the
// 6-byte hidden row id for a GEN_CLUST_INDEX table.
//
// Undo: one UndoRecord per change. kInsert (undo = remove the record);
// kUpdate and kDeleteMark keep the previous (trx id, roll ptr, delete mark)
// and the whole previous encoded row as a single before-image column with
// column_id 0 (whole-row images, not per-column). An insert over a
// delete-marked record with the same key is logged as kUpdate.
//
// Row locks: every write takes IX on the table and an X REC_NOT_GAP lock
// on the clustered record. The B+tree does not expose page/heap numbers, so
// a record's RecordId is a hash of (space id, clustered key): page_no =
// the hash's high 32 bits, heap_no = 2 + its low 16 bits (never the
// infimum/supremum). Two keys may collide; a collision only makes one
// transaction wait needlessly. Inserts lock the key before the duplicate
// check, so two inserts of one key serialize (the second gets 1062 after
// the first commits, or succeeds after it rolls back). Consistent reads
// (Get, Scan) take no locks. No gap/next-key locks yet: no phantom
// protection for locking reads.
//
// Secondary indexes: every entry, UNIQUE or not, is the B+tree key
// EncodeIndexKey(row) + clustered key with an empty value (deliberately not
// key_codec.h's key -> pk form for UNIQUE indexes: because entries are not
// versioned, an index value may have several entries at once, live and
// stale, see below). Insert adds the row's entries; Update adds entries
// only for the indexes whose key changed; Delete (delete-mark) changes no
// entry. An entry a committed change made stale (the old value of an
// updated key, the entry of a deleted row) is KEPT, because an older read
// view may still need it to find the old version; only purge (not yet
// written) may remove it. So the secondary trees are a superset of the
// visible rows' keys, and IndexLookup re-checks each candidate: it builds
// the version its read view sees from the clustered record and returns it
// only when that version still has the looked-up key. Rollback (and
// RollbackToSavepoint) removes exactly the entries the undone changes
// added (EngineTrx remembers them per undo record; an entry that existed
// already is left alone), so the trees end as they were.
// UNIQUE secondary indexes: a row whose key has a NULL part is never a
// duplicate (MySQL). For a non-NULL key value the writer takes an X lock
// on a pseudo-record hashed from (index id, key value) (same RecordId
// scheme as below) and then scans the value's entries: a duplicate is an
// entry of another row whose latest clustered record is not delete-marked
// and still has that value -> 1062 "Duplicate entry '<v1-v2>' for key
// '<table>.<index>'", and the statement is undone. Delete and Update also
// lock the unique values they remove, so a value freed by an uncommitted
// transaction is not reused until it commits (or rolls back: then 1062).
//
// Not yet: purge of delete-marked records and stale secondary entries
// (they stay; a later insert of the same key reuses them), locking reads,
// crash recovery, XA.
//
// Thread-safety: Engine methods may be called concurrently from any thread,
// each EngineTrx by one thread at a time. DDL (CreateTable/DropTable) must
// not run concurrently with DML on the same table.
// Lock order: tables_mu_ -> TableHandle::mu (auto-increment) ; lock-manager
// waits happen with no engine mutex and no page latch held.
// Blocking: Insert/Update/Delete block on row locks up to the lock wait
// timeout (1205) and fail with 1213 when chosen as a deadlock victim; after
// 1213 the caller must Rollback() the transaction.
// Ownership: the FileSystem (and a LockManager passed in Options) must
// outlive the Engine; every EngineTrx must end and be destroyed before the
// Engine is closed or destroyed.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "storage/btree/btree.h"
#include "storage/buffer/buffer_pool.h"
#include "storage/catalog/catalog.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"
#include "storage/io/file_system.h"
#include "storage/lock/lock_manager.h"
#include "storage/trx/trx_sys.h"
#include "storage/trx/undo_log.h"

namespace sluice::storage {

class Engine;

// Row counters, named as MySQL's status variables. Counted when the
// operation succeeds (a rolled-back change stays counted, as in InnoDB).
//   Innodb_rows_inserted: rows Insert() added
//   Innodb_rows_read:     rows returned by Get/Scan/ScanRange/IndexLookup
//   Innodb_rows_updated:  rows Update() changed (returned true)
//   Innodb_rows_deleted:  rows Delete() delete-marked (returned true)
struct EngineCounters {
  uint64_t innodb_rows_inserted = 0;
  uint64_t innodb_rows_read = 0;
  uint64_t innodb_rows_updated = 0;
  uint64_t innodb_rows_deleted = 0;

  // (MySQL status variable name, value) pairs, e.g. {"Innodb_rows_read", 42}.
  std::vector<std::pair<std::string_view, uint64_t>> AsStatusVars() const {
    return {{"Innodb_rows_inserted", innodb_rows_inserted},
            {"Innodb_rows_read", innodb_rows_read},
            {"Innodb_rows_updated", innodb_rows_updated},
            {"Innodb_rows_deleted", innodb_rows_deleted}};
  }
};

namespace engine_internal {
struct StoredRecord;  // a parsed clustered record (engine.cc)
}  // namespace engine_internal

// One transaction: a trx::Trx, a LockTrx, and (from its first write) an
// undo log. Made by Engine::Begin; ended by Commit or Rollback (the
// destructor of an active one rolls it back).
class EngineTrx {
 public:
  ~EngineTrx();
  EngineTrx(const EngineTrx&) = delete;
  EngineTrx& operator=(const EngineTrx&) = delete;

  TrxId id() const { return trx_->id(); }
  IsolationLevel isolation() const { return trx_->isolation(); }
  bool active() const { return trx_->state() == Trx::State::kActive; }
  // This transaction's lock wait timeout; nullopt = the lock manager's.
  void set_lock_wait_timeout(std::optional<std::chrono::milliseconds> t) { lock_wait_timeout_ = t; }

 private:
  friend class Engine;
  EngineTrx(Engine* engine, std::unique_ptr<Trx> trx, LockTrxPtr lock_trx)
      : engine_(engine), trx_(std::move(trx)), lock_trx_(std::move(lock_trx)) {}

  Engine* engine_;
  std::unique_ptr<Trx> trx_;
  LockTrxPtr lock_trx_;
  std::unique_ptr<UndoLog> undo_;  // created at the first write
  std::optional<std::chrono::milliseconds> lock_wait_timeout_;
  // Secondary entries added by each of this transaction's undo records
  // (roll pointer -> (index ordinal in TableDef::indexes, entry key)):
  // what undoing that record removes. Cleared at commit/rollback.
  std::unordered_map<uint64_t, std::vector<std::pair<size_t, std::string>>> sec_added_;
};

class Engine {
 public:
  struct Options {
    size_t buffer_pool_bytes = size_t{128} << 20;
    // Borrowed; when null the engine owns a LockManager of its own.
    LockManager* lock_manager = nullptr;
  };

  // Opens (or creates) the catalog in `datadir` (created if missing), the
  // buffer pool, and the tablespace and B+trees of every table the catalog
  // lists. Corruption / IOError from the layers below.
  static Result<std::unique_ptr<Engine>> Open(FileSystem* fs, std::string datadir, Options options);

  // Without Close(), dirty pages are discarded.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Persists the tables' counters and writes every dirty page back
  // (BufferPool::FlushAll). REQUIRES: no active transaction. Idempotent.
  Status Close();

  // --- DDL (not transactional) ---
  Status CreateDatabase(const DatabaseDef& db);  // 1007 when it exists
  // Catalog::CreateTable's errors; creates the tablespace file
  // <datadir>/space_<id>.ibd, the clustered and secondary trees, and
  // records their roots.
  Result<std::shared_ptr<const TableDef>> CreateTable(TableDef table);
  // 1051 when missing. REQUIRES: no transaction uses the table.
  Status DropTable(std::string_view schema, std::string_view name);
  // nullptr when missing.
  std::shared_ptr<const TableDef> FindTable(std::string_view schema, std::string_view name) const;

  // --- transactions ---
  std::unique_ptr<EngineTrx> Begin(IsolationLevel isolation = IsolationLevel::kRepeatableRead);
  // Releases locks, commits in TrxSys. InvalidArgument when not active.
  Status Commit(EngineTrx& trx);
  // Applies the undo log newest-first, then releases locks. InvalidArgument
  // when not active.
  Status Rollback(EngineTrx& trx);
  // A savepoint (e.g. statement start): the undo position now.
  UndoPos Savepoint(const EngineTrx& trx) const;
  // Undoes the changes made after `pos`; keeps the locks (as InnoDB).
  Status RollbackToSavepoint(EngineTrx& trx, UndoPos pos);
  // Statement end: READ COMMITTED drops its read view so the next read
  // sees what committed since.
  void EndStatement(EngineTrx& trx);

  // --- rows ---
  // `row` has one value per column. Checks it (CheckRow: 1048, 1264,
  // 1406), fills AUTO_INCREMENT when NULL or 0 and the hidden row id, and
  // inserts. Returns the generated AUTO_INCREMENT value or hidden row id
  // (0 when neither). 1062 when the PRIMARY KEY exists; 1205/1213 from the
  // row lock. `table` is the table's id.
  Result<uint64_t> Insert(EngineTrx& trx, uint64_t table_id, Row row);

  // The row with these PRIMARY KEY values (in key-part order; for a table
  // without PRIMARY KEY, one uint64_t: the hidden row id) as `trx`'s read
  // view sees it; nullopt when it sees none. No locks.
  Result<std::optional<Row>> Get(EngineTrx& trx, uint64_t table_id, const Row& pk);

  // Replaces the latest version of the row `pk` with `new_row` (checked
  // like Insert). False when no such row (or it is delete-marked). A
  // changed primary key is a delete-mark plus an insert (1062 possible).
  Result<bool> Update(EngineTrx& trx, uint64_t table_id, const Row& pk, Row new_row);

  // Delete-marks the latest version of row `pk`. False when absent.
  Result<bool> Delete(EngineTrx& trx, uint64_t table_id, const Row& pk);

  // Every row `trx`'s read view sees, in clustered key order; stops early
  // when `fn` returns false. No locks.
  Status Scan(EngineTrx& trx, uint64_t table_id, const std::function<bool(const Row&)>& fn);

  // Like Scan, but starts at the first row whose PRIMARY KEY is >= `from_pk`
  // (key-part values as for Get; for a table without PRIMARY KEY, the
  // hidden row id) and returns at most `limit` rows (0 = no limit).
  Status ScanRange(EngineTrx& trx, uint64_t table_id, const Row& from_pk, uint64_t limit,
                   const std::function<bool(const Row&)>& fn);

  // The rows `trx`'s read view sees whose key in secondary index
  // `index_name` (case-insensitive; not PRIMARY) equals `key` (one value
  // per key part, in part order; a NULL matches NULL, as IS NULL), in
  // clustered key order; stops early when `fn` returns false. No locks.
  // InvalidArgument for an unknown table/index or a wrong value count.
  Status IndexLookup(EngineTrx& trx, uint64_t table_id, std::string_view index_name, const Row& key,
                     const std::function<bool(const Row&)>& fn);

  // The row counters summed over all shards (a racy but monotonic snapshot
  // while other threads work).
  EngineCounters Counters() const;

  LockManager& lock_manager() { return *locks_; }
  TrxSys& trx_sys() { return *trx_sys_; }
  BufferPool& buffer_pool() { return *pool_; }
  Catalog& catalog() { return *catalog_; }

 private:
  struct TableHandle;
  class Accessor;
  using StoredRecord = engine_internal::StoredRecord;

  Engine(FileSystem* fs, std::string datadir);

  Status OpenTable(std::shared_ptr<const TableDef> def);
  // Rolls the statement back to `sp` after `failure` (not OK); returns
  // `failure`, or the rollback's own error.
  Status UndoFailedStatement(EngineTrx& trx, UndoPos sp, Status failure);
  // Frees undo no read view needs; rate-limited per thread (see .cc).
  void MaybePurge(const EngineTrx& trx);
  Result<std::shared_ptr<TableHandle>> FindHandle(uint64_t table_id) const;
  std::string SpacePath(uint32_t space_id) const;
  Result<std::string> KeyFromPk(const TableDef& def, const Row& pk) const;
  // Gives `trx` an id and an undo log (first write), and locks the table IX
  // and the record X REC_NOT_GAP.
  Status PrepareWrite(EngineTrx& trx, const TableHandle& t, std::string_view key);
  Status LockKey(EngineTrx& trx, const TableHandle& t, std::string_view key);
  Result<std::optional<StoredRecord>> ReadLatest(const TableHandle& t, std::string_view key) const;
  Result<std::optional<Row>> VisibleRow(EngineTrx& trx, const TableHandle& t,
                                        std::string_view record);
  Status InsertLocked(EngineTrx& trx, TableHandle& t, const std::string& key, const Row& row);
  Status DeleteMarkLocked(EngineTrx& trx, TableHandle& t, const std::string& key,
                          const StoredRecord& cur);
  // Locks the UNIQUE secondary values `old_row` (may be null) drops and
  // `new_row` (may be null) adds, and returns 1062 when a value `new_row`
  // adds belongs to another live row. `key`: the row's clustered key.
  Status LockAndCheckUnique(EngineTrx& trx, const TableHandle& t, const std::string& key,
                            const Row* old_row, const Row* new_row);
  // Adds `new_row`'s secondary entries (only those whose key differs from
  // `old_row`'s when given), remembering the new ones under `roll_ptr`.
  Status AddSecondaryEntries(EngineTrx& trx, const TableHandle& t, const std::string& key,
                             const Row* old_row, const Row& new_row, RollPtr roll_ptr);
  Status ApplyUndo(EngineTrx& trx, const UndoRecord& rec, RollPtr roll_ptr);
  Status EndTrx(EngineTrx& trx, bool commit);
  // Scan / ScanRange: from the first key >= `start` (nullptr: the first
  // key), at most `limit` rows (0: all).
  Status ScanFrom(EngineTrx& trx, uint64_t table_id, const std::string* start, uint64_t limit,
                  const std::function<bool(const Row&)>& fn);

  // Row counters: sharded so that concurrent threads do not bump one
  // cache line; a thread always uses the same shard (engine.cc), and
  // Counters() sums them.
  enum CounterId : size_t { kRowsInserted, kRowsRead, kRowsUpdated, kRowsDeleted, kNumCounters };
  struct alignas(64) CounterShard {
    std::atomic<uint64_t> v[kNumCounters] = {};
  };
  static constexpr size_t kCounterShards = 64;
  void Count(CounterId id, uint64_t n = 1);

  FileSystem* const fs_;
  const std::string datadir_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<TrxSys> trx_sys_;
  std::unique_ptr<MemUndoStore> undo_store_;
  std::unique_ptr<LockManager> owned_locks_;
  LockManager* locks_ = nullptr;
  bool closed_ = false;

  mutable std::shared_mutex tables_mu_;
  std::unordered_map<uint64_t, std::shared_ptr<TableHandle>> tables_;  // GUARDED_BY(tables_mu_)

  std::unique_ptr<CounterShard[]> counter_shards_ = std::make_unique<CounterShard[]>(kCounterShards);
};

}  // namespace sluice::storage
