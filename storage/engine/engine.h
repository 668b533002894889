// storage/engine/engine.h
//
// Engine: the storage engine facade v0. Ties together the catalog
// (storage/catalog), the buffer pool and tablespaces (storage/buffer), the
// B+trees (storage/btree), the transaction system, undo and MVCC
// (storage/trx) and the lock manager (storage/lock): DDL, transactions,
// row insert/get/update/delete/scan with consistent reads and row locks,
// commit, rollback and savepoints.
//
// Durability (redo log, storage/redo): every page change is made inside a
// mini-transaction (storage/buffer/mtr.h) whose page diffs become one redo
// record; undo records, commits, rollbacks and prepares are logged too:
//   type 2  mtr        page diffs (BufferPool::ApplyRedo replays them)
//   type 3  undo       [trx id u64][roll ptr u64][EncodeUndoRecord bytes]
//   type 4  commit     [trx id u64]
//   type 5  rollback   [trx id u64] (its undo has been applied)
//   type 6  prepare    [trx id u64][xid bytes]
//   type 7  trx ids    [next trx id u64] (written at every checkpoint)
//   type 8  shutdown   [next trx id u64] (the last record of a clean Close,
//                      which purged everything)
// Undo itself lives in memory (MemUndoStore) for MVCC; a transaction's undo
// survives a crash through its redo records, and a checkpoint never moves
// past the first record of a transaction still active (so a long
// transaction keeps its redo; the redo file only grows for now). Commit
// appends the commit record and waits as innodb_flush_log_at_trx_commit
// (Options::durability) says before the change is visible or its locks go.
// Recovery (Open): replay page diffs from the checkpoint, then roll back
// every transaction with undo but no commit/rollback/prepare record, and
// keep prepared ones (with their row locks and undo) until CommitByXid /
// RollbackByXid. A checkpoint (background thread, and Close) flushes every
// dirty page (BufferPool::FlushAll) and records a start LSN.
//
// Clustered record (the B+tree value under the clustered key):
//   [DB_TRX_ID 6 bytes big-endian][DB_ROLL_PTR 8 bytes big-endian]
//   [flags 1 byte: bit 0 delete mark, bit 1 external][stored row]
// The stored row is the EncodeRow() bytes (row_codec.h), or, with the
// external flag, an overflow reference to them (below). The clustered key
// is EncodeClusteredKey(): the PRIMARY KEY parts, or the 6-byte hidden row
// id for a GEN_CLUST_INDEX table.
//
// Off-page rows: a row whose record (key + header + bytes) would exceed
// BTree::kMaxRecordSize is written whole to an overflow chain in the
// table's tablespace (storage/btree/overflow.h) and the record keeps the
// 21-byte reference. Readers get the bytes back wherever a row is decoded
// (DecodeStored); secondary keys are built from the decoded row as always.
// Every chain has exactly one owner, and is freed by whoever ends it:
//   - a record version owns the chain it was written with. Insert and
//     Update write a new chain for every new version, even one equal to the
//     last, so no two versions share one; a delete mark keeps the row bytes
//     and so the chain (the delete-marked record owns it);
//   - the undo record of an update (kUpdate) carries the replaced version's
//     reference as its before-image (UndoColumn column_id 1 instead of 0);
//     purge frees that chain once the undo log goes, because then no read
//     view can build that version;
//   - purge frees the chain of a delete-marked record it removes;
//   - rollback (and statement rollback, and recovery's rollback of an
//     unfinished transaction) frees the chain of each version it undoes,
//     unless the version it restores has the same one (a delete mark);
//   - a chain written for a row that never got its record (1062, a failed
//     update) is freed at once.
// Readers protected by a read view or a row lock never see a chain freed:
// purge waits for the views, rollback for nobody but holds the row's lock.
// A READ UNCOMMITTED read, or a lookup of an unlocked row, can lose that
// race; overflow.h makes such a read fail with Corruption (never wrong
// bytes), and Get/Scan/IndexScan re-read the record on Corruption. A crash
// between writing a chain and logging its record, or while freeing one,
// leaves its pages allocated and unreferenced: lost space, not data (no
// sweep reclaims them yet).
//
// Undo: one UndoRecord per change. kInsert (undo = remove the record);
// kUpdate and kDeleteMark keep the previous (trx id, roll ptr, delete mark)
// and the whole previous stored row as a single before-image column,
// column_id 0 for EncodeRow bytes and 1 for an overflow reference
// (whole-row images, not per-column). An insert over a delete-marked
// record with the same key is logged as kUpdate.
//
// Row locks: every write takes IX on the table and an X REC_NOT_GAP lock
// on the clustered record. The B+tree does not expose page/heap numbers, so
// a record's RecordId is a hash of (space id, clustered key): page_no =
// the hash's high 32 bits, heap_no = 2 + its low 16 bits (never the
// infimum/supremum). Two keys may collide; a collision only makes one
// transaction wait needlessly. Inserts lock the key before the duplicate
// check, so two inserts of one key serialize (the second gets 1062 after
// the first commits, or succeeds after it rolls back). Consistent reads
// (Get, Scan) take no locks. Locking reads (GetLocked, ScanLocked) take
// next-key and gap locks on the same key hashes; the table's supremum is
// the pseudo-record (space id, page 0xffffffff, heap 1); inserts take an
// insert-intention lock on the next key.
//
// Secondary indexes: every entry, UNIQUE or not, is the B+tree key
// EncodeIndexKey(row) + clustered key with an empty value (deliberately not
// key_codec.h's key -> pk form for UNIQUE indexes: because entries are not
// versioned, an index value may have several entries at once, live and
// stale, see below). Insert adds the row's entries; Update adds entries
// only for the indexes whose key changed; Delete (delete-mark) changes no
// entry. Entries have locks of their own (EntryLockId: the entry's hash
// mixed with the index id; IndexSupremumLockId per index): a locking read
// through the index (IndexScanLocked) takes next-key locks on them, and a
// new entry goes in only after an insert-intention lock on the entry after
// it is granted (EntryCheck, under the leaf latch). An entry a committed change made stale (the old value of an
// updated key, the entry of a deleted row) is KEPT, because an older read
// view may still need it to find the old version; only purge (not yet
// written) may remove it. So the secondary trees are a superset of the
// visible rows' keys, and IndexLookup/IndexScan re-check each candidate:
// they build the version the read view sees from the clustered record and
// return it only when that version still has the entry's key. Rollback (and
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
// Purge (engine_purge.cc): session threads free the undo logs of
// transactions every read view sees (TrxSys::PurgeLimit; after every 32nd
// writing commit), and a background thread (woken when that leaves work,
// and every Options::purge_interval) removes what their updates and
// deletes left behind that no view needs any more:
//   - a delete-marked clustered record whose deleting transaction every
//     view sees, with all its secondary entries;
//   - a secondary entry of an older row version (an updated key, or the
//     row before an insert reused a delete-marked record) when no version
//     some view may still build, from the latest back to the first one
//     every view sees, has that key.
// Purge touches a row only while no transaction holds or waits for a lock
// on it or on any secondary entry it would remove (LockManager::
// RunIfUnlocked over all of them at once, which keeps new lockers out
// meanwhile): a gap or next-key lock on a purged record or entry would lose
// its gap (InnoDB hands it to the next record; here the record waits), and
// writers add entries under their row lock. The entries are read before
// the locks are checked (PurgeEntries); if the row changed so that purge
// would remove another entry, it leaves the row for the next pass. Lockers re-check after each lock that
// the key they locked is still the one they looked at (they already do:
// see the locking reads and the insert-intention re-check), so a record
// purged just before its lock is granted is simply passed over. A locked
// row's work waits in a queue for the next pass. Undo is in memory, so work
// not done at a crash would be lost: Close writes a clean-shutdown record
// (redo type 8) after purging everything, and Open, finding no such record
// at the end of the log, sweeps every table once (in the purge thread) for
// delete-marked records and secondary entries no row version has.
//
// DDL is not transactional but crash-safe: each catalog change is one atomic
// write, made after the pages it names are durable, and Open (CleanUpDdl)
// drops what a crash left half done: a table or index whose root was never
// recorded, a rebuild's temporary table (kTempTablePrefix: ALTER TABLE by
// copy and TRUNCATE swap the new table in with one catalog write), and
// tablespace files no table refers to.
//
// Thread-safety: Engine methods may be called concurrently from any thread,
// each EngineTrx by one thread at a time. DDL (CreateTable, DropTable,
// RenameTables, RebuildTable, ...) must not run concurrently with DML on
// the same table.
// Lock order: tables_mu_ -> TableHandle::mu (auto-increment) ; lock-manager
// waits happen with no engine mutex and no page latch held.
// Blocking: Insert/Update/Delete block on row locks up to the lock wait
// timeout (1205) and fail with 1213 when chosen as a deadlock victim; after
// 1213 the caller must Rollback() the transaction.
// Ownership: the io::FileSystem (and a LockManager passed in Options) must
// outlive the Engine; every EngineTrx must end and be destroyed before the
// Engine is closed or destroyed.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory_resource>
#include <thread>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/btree/btree.h"
#include "storage/buffer/buffer_pool.h"
#include "storage/catalog/catalog.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"
#include "storage/engine/background_loop.h"
#include "base/io/file_system.h"
#include "storage/lock/lock_manager.h"
#include "storage/lock/sharded_rw_latch.h"
#include "storage/redo/redo_log.h"
#include "storage/trx/trx_sys.h"
#include "storage/trx/undo_log.h"

namespace sluice::storage {

class Engine;

// Row counters, named as MySQL's status variables. Counted when the
// operation succeeds (a rolled-back change stays counted, as in InnoDB).
//   Innodb_rows_inserted: rows Insert() added
//   Innodb_rows_read:     rows returned by Get/Scan/ScanRange/IndexLookup/
//                         IndexScan and the locking reads
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

  TrxId id() const { return trx_.id(); }
  // Prepare()d (two-phase commit), waiting for Commit or Rollback.
  bool prepared() const { return prepared_; }
  const std::string& xid() const { return xid_; }
  IsolationLevel isolation() const { return trx_.isolation(); }
  bool active() const { return trx_.state() == Trx::State::kActive; }
  // This transaction's lock wait timeout; nullopt = the lock manager's.
  void set_lock_wait_timeout(std::optional<std::chrono::milliseconds> t) { lock_wait_timeout_ = t; }
  std::optional<std::chrono::milliseconds> lock_wait_timeout() const { return lock_wait_timeout_; }
  // SKIP LOCKED: a locking read leaves out a row whose lock it cannot get
  // at once (GetLocked: not found; ScanLocked: not visited), instead of
  // waiting. Gap locks never wait, so they are taken as ever.
  void set_skip_locked(bool on) { skip_locked_ = on; }
  bool skip_locked() const { return skip_locked_; }

 private:
  friend class Engine;
  EngineTrx(Engine* engine, TrxSys& sys, IsolationLevel isolation, LockTrxPtr lock_trx)
      : engine_(engine), trx_(sys.MakeTrx(isolation)), lock_trx_(std::move(lock_trx)) {}

  Engine* engine_;
  Trx trx_;  // in place: one allocation per transaction, not two
  LockTrxPtr lock_trx_;
  std::unique_ptr<UndoLog> undo_;  // created at the first write
  bool skip_locked_ = false;
  std::optional<std::chrono::milliseconds> lock_wait_timeout_;
  // Secondary entries added by each of this transaction's undo records
  // (roll pointer -> (index ordinal in TableDef::indexes, entry key)):
  // what undoing that record removes. Cleared at commit/rollback.
  std::unordered_map<uint64_t, std::vector<std::pair<size_t, std::string>>> sec_added_;
  // Start LSN of this transaction's first redo record (0: none yet); the
  // checkpoint stays at or before it while the transaction is active.
  uint64_t first_lsn_ = 0;
  bool prepared_ = false;
  std::string xid_;
  // Rebuilt by crash recovery: sec_added_ is unknown, so its rollback
  // uses the recovery undo (Engine::RecoveryUndo).
  bool recovered_ = false;
};

class Engine {
 public:
  struct Options {
    size_t buffer_pool_bytes = size_t{128} << 20;
    // Borrowed; when null the engine owns a LockManager of its own.
    LockManager* lock_manager = nullptr;
    // innodb_flush_log_at_trx_commit.
    Durability durability = Durability::kSyncEachCommit;
    // Background redo write+fsync period for durability 0 and 2.
    std::chrono::milliseconds log_flush_interval{1000};
    // How often the background checkpointer runs; zero: never (Close and
    // Checkpoint() still checkpoint).
    std::chrono::milliseconds checkpoint_interval{5000};
    // How often the background purge runs when no commit wakes it; zero:
    // no purge thread (Purge() still purges; tests).
    std::chrono::milliseconds purge_interval{100};
  };

  // What purge has done (totals since Open) and what waits.
  struct PurgeStats {
    uint64_t passes = 0;
    uint64_t undo_logs_freed = 0;
    uint64_t rows_removed = 0;     // delete-marked clustered records
    uint64_t entries_removed = 0;  // secondary entries
    uint64_t chains_freed = 0;     // overflow chains of versions no view needs
    uint64_t waiting = 0;          // rows left for a later pass (locked now)
    bool sweep_pending = false;    // the after-crash sweep has not finished
  };

  // What crash recovery did in Open (for the error log and tests).
  struct RecoveryInfo {
    uint64_t checkpoint_lsn = 0;
    uint64_t end_lsn = 0;
    uint64_t records_applied = 0;      // redo records replayed
    uint64_t rolled_back = 0;          // transactions rolled back
    uint64_t undo_applied = 0;         // undo records applied doing so
    uint64_t prepared = 0;             // transactions left prepared
    uint64_t incomplete_ddl = 0;       // half-created tables dropped
    uint64_t orphan_spaces = 0;        // tablespace files removed
  };

  // Opens (or creates) the catalog in `datadir` (created if missing), the
  // buffer pool, and the tablespace and B+trees of every table the catalog
  // lists. Corruption / IOError from the layers below.
  static Result<std::unique_ptr<Engine>> Open(io::FileSystem* fs, std::string datadir, Options options);

  // Without Close(), dirty pages are discarded.
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Persists the tables' counters, writes every dirty page back, takes a
  // checkpoint and closes the redo log. REQUIRES: no active transaction
  // (recovered prepared ones stay prepared). Idempotent.
  Status Close();

  // Flushes every dirty page and advances the redo checkpoint as far as the
  // oldest active transaction allows (the background thread does this
  // every Options::checkpoint_interval).
  Status Checkpoint();

  const RecoveryInfo& recovery_info() const { return recovery_info_; }

  // One purge pass now, on the calling thread (the after-crash sweep
  // first, when pending): see "Purge" above. With no read view open and no
  // transaction active, one pass leaves nothing to purge.
  Status Purge();
  PurgeStats purge_stats() const;

  // CHECK TABLE: every B+tree of the table passes BTree::Verify, and every
  // row that is not delete-marked has its entry in every secondary index.
  // Corruption naming the first problem. kPurged also requires that
  // nothing waits for purge: no delete-marked record, and no secondary
  // entry that is not the latest row's (for tests after Purge() with no
  // transaction open).
  enum class CheckLevel { kConsistent, kPurged };
  Status CheckTable(uint64_t table_id, CheckLevel level = CheckLevel::kConsistent);

  // Tests: behave as if the process died now. The checkpointer stops, and
  // ending a transaction afterwards (or destroying it) writes nothing:
  // transactions just leave memory. Pair it with a file system that drops
  // what was not synced (io::MemFileSystem::DropUnsyncedData).
  void SimulateCrashForTesting();

  // --- DDL (not transactional) ---
  Status CreateDatabase(const DatabaseDef& db);  // 1007 when it exists
  // Catalog::CreateTable's errors, and 1103 "Incorrect table name" for a
  // name starting with kTempTablePrefix (the engine's own); creates the
  // tablespace file <datadir>/space_<id>.ibd, the clustered and secondary
  // trees, and records their roots.
  Result<std::shared_ptr<const TableDef>> CreateTable(TableDef table);
  // 1051 when missing. REQUIRES: no transaction uses the table.
  Status DropTable(std::string_view schema, std::string_view name);
  // RENAME TABLE: Catalog::RenameTables (1146 missing, 1049 unknown
  // database, 1050 target exists; all steps or none, in one catalog
  // write), plus 1103 for a temporary name. The table keeps its id, space
  // and trees. REQUIRES: no transaction uses the tables.
  Status RenameTables(const std::vector<TableRename>& renames);
  Status RenameTable(std::string_view schema, std::string_view name, std::string_view new_schema,
                     std::string_view new_name);

  // ALTER TABLE by copy ("rebuild"): the row of the old table -> the row of
  // the new one (its number counts from 1, for messages), or the error
  // that aborts the rebuild.
  using RowConverter = std::function<Result<Row>(const Row& row, uint64_t row_number)>;
  // Builds `new_def` (a definition as for CreateTable) as a new table named
  // kTempTablePrefix... in the old table's database, copies every row of
  // `schema`.`name` into it through `convert` (in batches of committed
  // inserts: AUTO_INCREMENT values are filled, 1062 is checked), makes it
  // durable, and then, in ONE catalog write, drops the old table and names
  // the new one new_def.schema.new_def.name (the old name, or another for
  // ALTER ... RENAME); the old tablespace goes last. Returns the number of
  // rows copied. The AUTO_INCREMENT counter starts at `auto_increment`
  // when given (AUTO_INCREMENT=n; copied values may raise it), else at the
  // old table's. A null `convert` copies nothing (TRUNCATE).
  // Errors: 1146 missing, 1049 / 1050 / 1103 for a new name, CreateTable's
  // validation errors, `convert`'s, 1062 "Duplicate entry 'v' for key
  // '<old name>.<index>'": then the temporary table is dropped and nothing
  // changed. Crash safety: until the catalog write the old table is the
  // one named, and Open drops every table with a temporary name (and its
  // space); after it the new one is, with every row durable, and Open
  // removes the old space if it was left.
  // REQUIRES: no transaction uses the table, and no other DDL on it runs.
  Result<uint64_t> RebuildTable(std::string_view schema, std::string_view name, TableDef new_def,
                                const RowConverter& convert, std::optional<uint64_t> auto_increment = std::nullopt);
  // TRUNCATE TABLE: a rebuild with no rows (so as crash-safe), the same
  // definition and the AUTO_INCREMENT counter back at 1. 1146 when missing.
  // REQUIRES: as RebuildTable.
  Status TruncateTable(std::string_view schema, std::string_view name);
  // 1008 when missing; drops its tables too. REQUIRES: no transaction uses them.
  Status DropDatabase(std::string_view name);
  // CREATE INDEX / ALTER TABLE ADD INDEX: builds secondary index `index`
  // (name, unique, key parts by column name) from the table's rows, then
  // records it. 1146 unknown table, the catalog's validation errors (1061
  // duplicate name, 1072...), 1062 when a UNIQUE index meets a duplicate.
  // A crash before the catalog names the new root drops the index at the
  // next Open. REQUIRES: no transaction uses the table.
  Status AddIndex(std::string_view schema, std::string_view table, IndexDef index);
  // DROP INDEX: 1091 "Can't DROP 'x'; check that column/key exists".
  // (Its pages stay allocated in the tablespace.) REQUIRES: as AddIndex.
  Status DropIndex(std::string_view schema, std::string_view table, std::string_view index);
  // nullptr when missing.
  std::shared_ptr<const TableDef> FindTable(std::string_view schema, std::string_view name) const;
  // The value the table's next generated AUTO_INCREMENT would take (SHOW
  // CREATE TABLE's AUTO_INCREMENT=, information_schema.TABLES); nullopt for
  // an unknown table.
  std::optional<uint64_t> NextAutoIncrement(uint64_t table_id) const;

  // --- transactions ---
  std::unique_ptr<EngineTrx> Begin(IsolationLevel isolation = IsolationLevel::kRepeatableRead);
  // Logs the commit (and waits for it as Options::durability says), then
  // commits in TrxSys and releases the locks. InvalidArgument when not
  // active. Works on a prepared transaction too. `decided_elsewhere`: the
  // transaction is prepared and its commit decision is already durable
  // outside the engine (its Xid is synced in the binlog, so recovery
  // commits it), so the commit record is logged without waiting for it.
  Status Commit(EngineTrx& trx, bool decided_elsewhere = false);

  // Two-phase commit, first phase: logs `xid` (an opaque, non-empty name
  // chosen by the binlog) and makes it durable; the transaction keeps its
  // locks and can only be committed or rolled back afterwards. After a
  // crash it comes back prepared (RecoveredPrepared). InvalidArgument when
  // not active, already prepared, or the xid is empty or in use.
  // With `flush_mark`, the prepare record is only logged: *flush_mark is
  // the log position FlushLogUpTo must reach before the decision is
  // recorded anywhere (the binlog's group leader does it for its group:
  // binlog::EngineFlush).
  Status Prepare(EngineTrx& trx, std::string xid, uint64_t* flush_mark = nullptr);
  // Makes the redo log durable up to `lsn` as innodb_flush_log_at_trx_commit
  // says (the wait a prepare or commit does itself).
  Status FlushLogUpTo(uint64_t lsn);

  // The xids of the transactions crash recovery found prepared and that are
  // still waiting for a decision.
  std::vector<std::string> RecoveredPrepared() const;
  // Commits / rolls back the recovered prepared transaction `xid`.
  // NotFound (1397, XAER_NOTA) when there is none.
  Status CommitByXid(std::string_view xid);
  Status RollbackByXid(std::string_view xid);
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
  // START TRANSACTION WITH CONSISTENT SNAPSHOT: takes the read view now
  // instead of at the first read (REPEATABLE READ; a no-op otherwise).
  void OpenReadView(EngineTrx& trx);

  // --- rows ---
  // `row` has one value per column. Checks it (CheckRow: 1048, 1264,
  // 1406), fills AUTO_INCREMENT when NULL or 0 and the hidden row id, and
  // inserts. Returns the generated AUTO_INCREMENT value or hidden row id
  // (0 when neither). 1062 when the PRIMARY KEY exists; 1205/1213 from the
  // row lock. `table` is the table's id. `stored` (when given) receives the
  // row as inserted, generated values filled in (for the binlog).
  Result<uint64_t> Insert(EngineTrx& trx, uint64_t table_id, Row row, Row* stored = nullptr);

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

  // --- locking reads (SELECT ... FOR UPDATE / FOR SHARE) ---
  // They read the LATEST version (committed, or this transaction's own),
  // not the read view's, and lock what they read with `mode` (kS: FOR
  // SHARE / LOCK IN SHARE MODE, kX: FOR UPDATE), holding the locks to the
  // end of the transaction:
  //   GetLocked: a found row gets a REC_NOT_GAP lock; a missing one (or a
  //   delete-marked one) gets, in REPEATABLE READ and SERIALIZABLE, a gap
  //   lock before the next key (so nobody can insert it meanwhile).
  //   ScanLocked: every record from `from_pk` (null: the first) through
  //   `to_pk` inclusive (null: the last) gets a next-key lock (the record
  //   and the gap before it), and so does the first record past the range
  //   (or the table's supremum): no phantom can appear in the range. In
  //   READ COMMITTED and READ UNCOMMITTED only the records are locked.
  //   At most `limit` rows (0: all); stops early when `fn` returns false.
  //   `from_pk` and `to_pk` may give only the leading PRIMARY KEY parts:
  //   the range then runs from the first key with those leading values
  //   through the last one. For a table without PRIMARY KEY each row comes
  //   with one more value after its columns: its hidden row id (uint64_t),
  //   the `pk` that Update and Delete take.
  // Inserts take an insert-intention lock on the next key, so they wait
  // for those gap locks. Locks are taken on keys (see RecordId above), and
  // a scan re-checks after each lock that no key appeared before the one
  // it locked. SERIALIZABLE turns Get/Scan/ScanRange into FOR SHARE reads.
  // 1205/1213 as for writes.
  Result<std::optional<Row>> GetLocked(EngineTrx& trx, uint64_t table_id, const Row& pk, LockMode mode);
  Status ScanLocked(EngineTrx& trx, uint64_t table_id, const Row* from_pk, const Row* to_pk, uint64_t limit,
                    LockMode mode, const std::function<bool(const Row&)>& fn);

  // The rows `trx`'s read view sees whose key in secondary index
  // `index_name` (case-insensitive; not PRIMARY) equals `key` (one value
  // per key part, in part order; a NULL matches NULL, as IS NULL), in
  // clustered key order; stops early when `fn` returns false. No locks.
  // InvalidArgument for an unknown table/index or a wrong value count.
  // (IndexScan with both bounds `key`, inclusive.)
  Status IndexLookup(EngineTrx& trx, uint64_t table_id, std::string_view index_name, const Row& key,
                     const std::function<bool(const Row&)>& fn);

  // One end of an IndexScan range: values for the first key.size() parts
  // of the index (at least one, at most all), in part order; a NULL value
  // is the NULL key part (which sorts first). The end is compared on those
  // parts only, so {5} inclusive as a lower bound starts at the first key
  // whose first part is 5, and as an upper bound ends after the last one.
  struct KeyBound {
    Row key;
    bool inclusive = true;
  };

  // The rows `trx`'s read view sees whose key in index `index` (a position
  // in TableDef::indexes: 0 is the clustered index, keyed by the PRIMARY
  // KEY; the others are secondary) lies between `lo` and `hi` (null: no
  // bound), in the index's order: by key, then (secondary) by clustered
  // key, a DESC key part's values descending; backwards when `reverse`.
  // Stops early when `fn` returns false. A secondary entry yields its row
  // only when the version the view sees still has the entry's key (entries
  // are not versioned; see "Secondary indexes" above), so every row comes
  // once, under the key its visible version has. No locks, at every
  // isolation level (a SERIALIZABLE reader wanting shared locks uses
  // GetLocked/ScanLocked). InvalidArgument for an unknown table or index,
  // a bound with no value or more values than key parts (any bound on a
  // GEN_CLUST_INDEX), or a value of the wrong kind; CheckColumnValue's
  // errors for a value the key column cannot hold.
  Status IndexScan(EngineTrx& trx, uint64_t table_id, size_t index, const KeyBound* lo, const KeyBound* hi,
                   bool reverse, const std::function<bool(const Row&)>& fn);

  // A locking read (FOR UPDATE / FOR SHARE, UPDATE / DELETE) through
  // secondary index `index` (> 0), forwards over the entries between `lo`
  // and `hi` (as IndexScan's bounds; null: none), as InnoDB's: each entry
  // gets a next-key lock in REPEATABLE READ and SERIALIZABLE (a record lock
  // in READ COMMITTED and READ UNCOMMITTED), and so does, as a gap lock,
  // the first entry past the range (or the index's supremum), so no entry
  // can appear in the range; the clustered record an entry leads to gets a
  // record lock, and its latest version comes to `fn` when it still has the
  // entry's key. Inserts of secondary entries wait for those gap locks (an
  // insert-intention lock on the next entry, decided under the leaf latch).
  // Purge keeps a stale entry while a lock is on it (see "Purge"). Other
  // rows are not locked. Each row comes
  // with its hidden row id after the columns when the table has no PRIMARY
  // KEY, as from ScanLocked. SKIP LOCKED leaves out an entry or row whose
  // lock would wait. InvalidArgument as IndexScan.
  Status IndexScanLocked(EngineTrx& trx, uint64_t table_id, size_t index, const KeyBound* lo, const KeyBound* hi,
                         LockMode mode, const std::function<bool(const Row&)>& fn);

  // The row counters summed over all shards (a racy but monotonic snapshot
  // while other threads work).
  EngineCounters Counters() const;

  // Every engine status variable with MySQL's name: Innodb_rows_*, the
  // buffer pool's (Innodb_buffer_pool_reads, ..._read_requests, pages),
  // Innodb_data_fsyncs (tablespaces + redo), Innodb_os_log_written,
  // Innodb_log_writes.
  std::vector<std::pair<std::string_view, uint64_t>> StatusVars() const;

  RedoLog& redo() { return *redo_; }
  // SET GLOBAL innodb_flush_log_at_trx_commit: applies to commits from now.
  void set_durability(Durability d) { durability_.store(d, std::memory_order_relaxed); }
  Durability durability() const { return durability_.load(std::memory_order_relaxed); }

  LockManager& lock_manager() { return *locks_; }
  // KILL, from another thread: a lock wait of `trx` ends now with 1317;
  // false when it was not waiting. REQUIRES: `trx` outlives the call.
  bool CancelLockWait(EngineTrx& trx) { return locks_->CancelWait(*trx.lock_trx_); }
  TrxSys& trx_sys() { return *trx_sys_; }
  BufferPool& buffer_pool() { return *pool_; }
  Catalog& catalog() { return *catalog_; }

 private:
  friend class EngineTrx;
  struct TableHandle;
  class Accessor;
  using StoredRecord = engine_internal::StoredRecord;

  Engine(io::FileSystem* fs, std::string datadir, Options options);

  // Opens the table's tablespace (AddSpace); then OpenTrees its B+trees
  // (after redo replay: a root may exist only in the redo log).
  Status OpenSpace(const TableDef& def);
  Status OpenTable(std::shared_ptr<const TableDef> def);
  // Replaces the open table's handle after an ALTER: keeps its trees by
  // index id (a new index's tree comes in `added`), and its counters.
  Status ReopenTable(std::shared_ptr<const TableDef> def, uint64_t added_index_id,
                     std::unique_ptr<BTree> added);
  // CreateTable / DropTable without the name check.
  Result<std::shared_ptr<const TableDef>> CreateTableLocked(TableDef table) REQUIRES(ddl_mu_);
  Status DropTableLocked(std::string_view schema, std::string_view name) REQUIRES(ddl_mu_);
  // RebuildTable's copy: every row of table `from` through `convert` into
  // table `to`; *copied counts the rows inserted.
  Status CopyRows(uint64_t from, uint64_t to, const RowConverter& convert, uint64_t* copied);
  // Open() steps: drops half-created tables and orphan tablespace files;
  // replays the redo log; rolls back / re-prepares the transactions it
  // found unfinished.
  Status CleanUpDdl();
  Status Recover();
  struct RecoveredTrx;
  Status ResurrectPrepared(TrxId id, RecoveredTrx& rt);
  // Removes and returns the recovered prepared transaction `xid` (1397).
  Result<std::unique_ptr<EngineTrx>> TakeRecoveredPrepared(std::string_view xid);
  // Undoes one change of a transaction that crash recovery found
  // unfinished: idempotent and tolerant (a change that never reached the
  // tree is skipped), and fixes the secondary entries from the row images.
  Status RecoveryUndo(TrxId trx_id, const UndoRecord& rec);
  // Appends a transaction record (commit/rollback/prepare/undo) to the redo
  // log, registering the transaction's first LSN. Returns the end LSN.
  Result<uint64_t> LogTrxRecord(EngineTrx& trx, uint8_t type, std::string_view payload);
  Result<RollPtr> AppendUndo(EngineTrx& trx, UndoRecord rec);
  void ForgetActive(EngineTrx& trx);
  // Stops and joins the purge and checkpointer threads (idempotent).
  void StopBackgroundThreads();
  // Restores auto-increment and hidden row id counters after a crash from
  // the largest stored keys.
  Status RestoreCounters(TableHandle& t);
  // Rolls the statement back to `sp` after `failure` (not OK); returns
  // `failure`, or the rollback's own error.
  Status UndoFailedStatement(EngineTrx& trx, UndoPos sp, Status failure);
  // After every 32nd writing transaction per thread: FreeUndo, and wake the
  // purge thread when that left row work.
  void MaybePurge(const EngineTrx& trx);
  // Frees the undo logs no read view needs (cheap: the session threads do
  // it) and queues the row work their updates and deletes leave for the
  // purge thread. Returns whether it queued any.
  Result<bool> FreeUndo();
  // Purge (engine_purge.cc). One row's work: the delete of a row (when
  // `delete_mark`), or the secondary entries of an older version (the
  // candidates from `before_row`'s keys, or the single entry `index_id` /
  // `index_key` found by the sweep; by id, as an ALTER may renumber).
  struct PurgeItem {
    uint64_t table_id = 0;
    std::string key;  // clustered key
    TrxId trx = kNoTrxId;
    bool delete_mark = false;
    std::string before_row;  // stored row (EncodeRow bytes or a reference); empty for a sweep entry
    bool before_external = false;
    uint64_t index_id = 0;   // != 0: a sweep entry of the index with this id
    std::string index_key;
  };
  enum class PurgeOutcome { kDone, kLater };
  // Whether purging `item` touches what row and entry locks guard: not for
  // an update of a table without secondary indexes, which leaves at most
  // the replaced version's overflow chain (no version in use shares it).
  static bool PurgeNeedsLocks(const TableDef& def, const PurgeItem& item) {
    return item.delete_mark || def.indexes.size() > 1;
  }
  Status PurgePass(bool sweep);
  // A secondary index key: its index's position in def->indexes and the
  // index key (the entry is that plus the row's clustered key).
  using IndexKey = std::pair<size_t, std::string>;
  // What an item may remove, worked out before its locks are checked:
  // PurgePass runs PurgeRow only when neither the row nor any of these
  // entries has a lock (LockManager::RunIfUnlocked), so an entry whose gap
  // a reader locked stays, and no writer changes the row meanwhile.
  struct PurgeCandidates {
    std::vector<IndexKey> latest;  // the keys of the latest row, when it is delete-marked
    std::vector<IndexKey> older;   // the older version's: index_id's, or before_row's
    Status older_status;           // before_row did not decode (PurgeRow decides what that means)
  };
  Result<PurgeCandidates> PurgeEntries(const TableHandle& t, const PurgeItem& item) const;
  // Removes what `c` allows; kLater, removing nothing, when the latest row
  // changed since PurgeEntries read it so that it has other keys.
  Result<PurgeOutcome> PurgeRow(TableHandle& t, const PurgeItem& item, TrxId limit, const PurgeCandidates& c)
      REQUIRES(purge_mu_);
  // Queues the chain of a version purge is done with (freed by PurgePass).
  void FreeChain(std::string_view ref) REQUIRES(purge_mu_);
  // Whether some version of the row `cur` that a read view may still build
  // (from the latest back to the first one every view sees) has `ikey` in
  // index def->indexes[index].
  Result<bool> EntryNeeded(const TableHandle& t, const std::optional<StoredRecord>& cur, size_t index,
                           std::string_view ikey, TrxId limit) const;
  // The after-crash sweep: queues every delete-marked record and every
  // secondary entry the latest row does not have.
  Status Sweep(std::vector<PurgeItem>* items);
  // The RecordId row locks use for clustered key `key`.
  RecordId RowLockId(const TableHandle& t, std::string_view key) const;
  // The RecordIds of secondary index `index`'s entry `entry` (index key
  // plus clustered key) and of the index's supremum.
  RecordId EntryLockId(const TableHandle& t, size_t index, std::string_view entry) const;
  static RecordId IndexSupremumLockId(const TableHandle& t, size_t index);
  Result<std::shared_ptr<TableHandle>> FindHandle(uint64_t table_id) const;
  std::string SpacePath(uint32_t space_id) const;
  // Detaches a dropped table's tablespace from the pool and deletes its file.
  Status RemoveSpace(uint32_t space_id);
  // The clustered key of `pk`; with `allow_prefix`, `pk` may hold only the
  // leading PRIMARY KEY parts (their encoding: a prefix of the keys).
  Result<std::string> KeyFromPk(const TableDef& def, const Row& pk, bool allow_prefix = false) const;
  // Gives `trx` an id and an undo log (first write), and locks the table IX
  // and the record X REC_NOT_GAP.
  Status PrepareWrite(EngineTrx& trx, const TableHandle& t, std::string_view key);
  Status LockKey(EngineTrx& trx, const TableHandle& t, std::string_view key,
                 LockMode mode = LockMode::kX, RecLockType type = RecLockType::kRecNotGap);
  // The table's supremum pseudo-record (gap past the last key).
  Status LockSupremum(EngineTrx& trx, const TableHandle& t, LockMode mode, RecLockType type);
  // The first clustered key > `key` (nullopt: none).
  Result<std::optional<std::string>> NextKey(const TableHandle& t, std::string_view key) const;
  // Locks `next` (a key, or nullopt: the supremum) in `mode`/`type`.
  Status LockBefore(EngineTrx& trx, const TableHandle& t, const std::optional<std::string>& next, LockMode mode,
                    RecLockType type);
  Result<std::optional<StoredRecord>> ReadLatest(const TableHandle& t, std::string_view key) const;
  // Off-page rows (see "Off-page rows" above). StoreRow: what the record
  // under `key` keeps of the EncodeRow bytes `enc`: `enc` when the record
  // fits in a B+tree record, else (*external = true) the reference to a new
  // overflow chain holding them, which the caller's record then owns.
  Result<std::string> StoreRow(const TableHandle& t, std::string_view key, std::string enc, bool* external);
  // The row a stored row (bytes or reference) holds. Corruption when a
  // reference's chain was freed meanwhile (see overflow.h): readers that
  // no lock or view protects re-read the record.
  Result<Row> DecodeStored(const TableHandle& t, std::string_view row, bool external) const;
  Result<Row> DecodeStored(const TableHandle& t, const StoredRecord& r) const;
  // The same into `*out`, reusing its storage (DecodeRowInto).
  Status DecodeStoredInto(const TableHandle& t, std::string_view row, bool external, Row* out) const;
  // Frees the chain of a stored row that is a reference (else nothing).
  Status FreeStored(const TableHandle& t, std::string_view row, bool external);
  // Decodes into `*out` (reusing its storage) the version of `record`, a
  // latest version read after `trx`'s view was taken, that the view sees;
  // false when it sees none. The latest version is decoded from `record`
  // itself; only an older one is copied out to be rebuilt from undo.
  Result<bool> VisibleRow(EngineTrx& trx, const TableHandle& t, std::string_view record, Row* out);
  // The same for the row with clustered key `key`, re-reading the record
  // after a lost rollback race.
  Result<bool> VisibleRowAt(EngineTrx& trx, const TableHandle& t, std::string_view key, Row* out);
  class NewKeyCheck;
  class EntryCheck;
  class PendingChain;
  static RecordId SupremumLockId(const TableHandle& t);
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
  // The clustered half of undoing `rec` (secondary entries are the
  // caller's): removes an insert's record, puts an update's before-image
  // back, and frees the overflow chain of the version that goes.
  // `cur` is the record as it is now (read by the caller).
  Status UndoRecordChange(const TableHandle& t, const UndoRecord& rec, const std::optional<StoredRecord>& cur);
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

  io::FileSystem* const fs_;
  const std::string datadir_;
  const Options options_;
  std::atomic<Durability> durability_;
  std::unique_ptr<RedoLog> redo_;
  // Mini-transactions and transaction records append under it shared;
  // a checkpoint takes it exclusive to read an LSN that every append
  // before it has been stamped / registered by (see Checkpoint()).
  ShardedRwLatch log_latch_;
  mutable Mutex active_mu_;
  // The per-transaction maps below take their nodes from pools used under
  // their mutexes only, so a transaction does not allocate for them once
  // the pools hold as many nodes as transactions have been open at once
  // (they keep that many: bounded by the sessions).
  std::pmr::unsynchronized_pool_resource active_nodes_ GUARDED_BY(active_mu_);
  std::pmr::map<TrxId, uint64_t> active_first_lsn_ GUARDED_BY(active_mu_){&active_nodes_};
  // Serialises checkpoints with DDL (DetachSpace must not race FlushAll).
  Mutex ddl_mu_;
  BackgroundLoop checkpointer_;
  BackgroundLoop purger_;
  // The redo LSN when nothing had happened since the last checkpoint (or
  // since Open): a checkpoint with nothing new to cover is skipped, so an
  // idle engine writes nothing and a clean shutdown record stays last.
  uint64_t quiet_lsn_ GUARDED_BY(ddl_mu_) = 0;
  // Row work FreeUndo queued for the purge thread.
  mutable Mutex purge_queue_mu_;
  std::vector<PurgeItem> purge_queue_ GUARDED_BY(purge_queue_mu_);
  uint64_t undo_logs_freed_ GUARDED_BY(purge_queue_mu_) = 0;
  // One purge pass at a time; the work left for the next pass.
  // Lock order: purge_mu_ -> purge_queue_mu_.
  mutable Mutex purge_mu_ ACQUIRED_BEFORE(purge_queue_mu_);
  std::vector<PurgeItem> purge_waiting_ GUARDED_BY(purge_mu_);
  PurgeStats purge_stats_ GUARDED_BY(purge_mu_);
  // Overflow references PurgeRow left for PurgePass to free (FreeChain).
  std::vector<std::string> chains_to_free_ GUARDED_BY(purge_mu_);
  bool sweep_pending_ GUARDED_BY(purge_mu_) = false;
  RecoveryInfo recovery_info_;
  mutable Mutex xa_mu_;
  std::map<std::string, std::unique_ptr<EngineTrx>, std::less<>> recovered_prepared_ GUARDED_BY(xa_mu_);
  std::pmr::unsynchronized_pool_resource xid_nodes_ GUARDED_BY(xa_mu_);
  std::pmr::map<std::string, TrxId, std::less<>> xids_in_use_ GUARDED_BY(xa_mu_){&xid_nodes_};
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<BufferPool> pool_;
  // The tag of the next overflow chain (overflow.h: no two chains of a space
  // may share one); starts at a random value at every Open.
  std::atomic<uint64_t> next_overflow_tag_{0};
  std::unique_ptr<TrxSys> trx_sys_;
  std::unique_ptr<MemUndoStore> undo_store_;
  std::unique_ptr<LockManager> owned_locks_;
  LockManager* locks_ = nullptr;
  bool closed_ = false;
  std::atomic<bool> crashed_{false};

  mutable SharedMutex tables_mu_;
  std::unordered_map<uint64_t, std::shared_ptr<TableHandle>> tables_ GUARDED_BY(tables_mu_);

  std::unique_ptr<CounterShard[]> counter_shards_ = std::make_unique<CounterShard[]>(kCounterShards);
};

}  // namespace sluice::storage
