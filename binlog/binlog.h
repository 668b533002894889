// binlog/binlog.h
//
// The binary log: files <basename>.NNNNNN listed in <basename>.index,
// the commit pipeline that writes transactions into them, GTID state, and
// crash recovery.
//
// A transaction reaches the binlog as a TransactionCache: its events
// (Query BEGIN, Table_map, rows events, Xid; or one DDL Query) built by the
// session with log_pos 0. Commit() puts it in a queue; the first session to
// find the queue empty is the leader of a group:
//   gather       when at least Options::after_sync_backlog transactions
//                of earlier groups are in after_sync (waiting for
//                semisync acks), the leader waits for them before it
//                flushes, and its queue grows meanwhile (see
//                AwaitAfterSyncBacklog()).
//   flush stage  (holds flush_mu_) when the group will be fsynced, first
//                yields the CPU while its queue still grows (at most
//                kGatherYields times); takes every queued cache, makes the
//                engine's prepare records of the group durable (one
//                EngineFlush::FlushUpTo), gives each a
//                Gtid/Anonymous_gtid event (GNO, logical clock, commit
//                time, transaction length), patches log_pos/CRC, and writes
//                the group with one write(2); CommitHooks::AfterFlush.
//   sync stage   fsync per sync_binlog (1: every group; N: every Nth
//                group; 0: never), then publishes the end (file, offset)
//                for readers.
//   after_sync   the leader releases flush_mu_ (the next group flushes and
//                syncs meanwhile) and runs CommitHooks::AfterSync for each
//                transaction of its group in order (semisync AFTER_SYNC
//                waits there), then wakes its followers. Each committer
//                then commits in the engine. A follower sleeps once, for
//                the leader; the leader once per ack it waits for.
// Each committer calls CommitDone() after its engine commit. A file
// rotates (max_binlog_size, FLUSH BINARY LOGS) only once every transaction
// written to it has called CommitDone(), so crash recovery needs to read
// only the last file: a transaction prepared in the engine commits iff its
// Xid is there.
//
// Readers never take flush_mu_: they read files up to end() and wait on
// WaitForEnd(). Committers do not wake readers themselves: publishing the
// end is an atomic store, and (when readers wait) a wake-up of one notifier
// thread, which broadcasts to the readers and then pauses for
// ReaderWakeInterval(readers it woke): 0.5 ms for a few readers, 10 ms for
// 40 or more. So 100 waiting readers cost a commit nothing more than one
// reader does, readers then take what several groups wrote at once, and
// the wake-ups the readers cost (the server's and their own) stay under
// about 4000 a second up to 40 readers (beyond, the 10 ms cap bounds the
// delay instead: 100 readers, 10000 a second). The first end after a quiet
// spell goes out at once; under load a plain reader sees a group at most
// one interval after it is published.
//
// Files: every file and the index go through an io::FileSystem
// (Options::fs; POSIX by default), so tests inject faults (MemFileSystem).
// A failed sync of the active file is sticky, as the redo log's: the group
// that hit it gets the error (1598, ER_BINLOG_LOGGING_IMPOSSIBLE) and so
// does every later Commit(), Rotate() and Reset() until a restart, whose
// recovery then reads the file as after a crash. No commit is acknowledged
// whose group was not synced (with sync_binlog=1).
//
// Lock order: flush_mu_ -> queue_mu_; flush_mu_ -> state_mu_; end_mu_ is a
// leaf. Commit() blocks (write, fsync); never call it on an I/O thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/io/file_system.h"
#include "base/mutex.h"
#include "base/status.h"
#include "binlog/event.h"
#include "binlog/gtid.h"

namespace sluice::binlog {

// A transaction's events before they reach the binlog. Kept in memory up
// to `cache_size` bytes (binlog_cache_size), then in a temporary file
// (io::FileSystem::NewTempFile) with at most about cache_size bytes of tail
// in memory; beyond `max_size` (max_binlog_cache_size) Append fails with
// 1197. A failure of the temporary file fails the Append (or Truncate) with
// 1026 (ER_ERROR_ON_WRITE) and changes nothing: the statement fails, the
// cache stays usable.
// Thread-safety: one session at a time.
class TransactionCache {
 public:
  TransactionCache() = default;
  ~TransactionCache();
  TransactionCache(const TransactionCache&) = delete;
  TransactionCache& operator=(const TransactionCache&) = delete;

  void set_limits(uint64_t cache_size, uint64_t max_size) {
    cache_size_ = cache_size;
    max_size_ = max_size;
  }
  // Where it spills: a temporary file of `fs` (null: io::DefaultFileSystem())
  // in `dir` (--tmpdir; empty: $TMPDIR or /tmp). `fs` must outlive the cache.
  // Taken at the next spill.
  void set_temp_files(io::FileSystem* fs, std::string dir) {
    fs_ = fs;
    temp_dir_ = std::move(dir);
  }
  // Appends one whole event (log_pos 0; CRC as `checksum()` says).
  Status Append(std::string_view event);
  // Appends one whole event built without a CRC (Checksum::kOff, log_pos
  // 0), stored in `checksum()`'s form: with kCrc32 its four CRC bytes are
  // reserved and left zero. The flush computes every event's CRC anyway, as
  // it patches log_pos, so one computed here would be thrown away.
  Status AppendWithoutCrc(std::string_view event);
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Drops everything after `size` (statement or savepoint rollback).
  Status Truncate(uint64_t size);
  void Clear();
  // The checksum the events were built with (binlog_checksum at the
  // transaction's first event).
  Checksum checksum() const { return checksum_; }
  void set_checksum(Checksum c) { checksum_ = c; }
  // The transaction logs statements (DDL): its Gtid event gets
  // FLAG_MAY_HAVE_SBR. Cleared by Clear().
  bool has_statements() const { return has_statements_; }
  void set_has_statements(bool v) { has_statements_ = v; }
  // Whether the transaction went past cache_size into the temporary file
  // (Binlog_cache_disk_use).
  bool spilled() const { return spilled_; }
  // Calls `f` (Status(std::string_view)) with the cached bytes, in order,
  // in chunks (each a whole number of events). IOError from the temporary
  // file. A transaction that did not spill is one call, with no
  // std::function built (the flush stage calls this for every transaction).
  template <typename F>
  Status ForEachChunk(F&& f) const {
    if (file_size_ == 0) return mem_.empty() ? Status::OK() : f(std::string_view(mem_));
    return ForEachChunkSpilled(f);
  }

 private:
  Status ForEachChunkSpilled(const std::function<Status(std::string_view)>& f) const;
  // Moves mem_ to the end of the file (created on the first spill).
  Status Spill();
  // The 1197 check for `size` more bytes, and a spill when memory would pass cache_size.
  Status MakeRoom(uint64_t size);
  uint64_t cache_size_ = 32768;
  uint64_t max_size_ = UINT64_MAX;
  Checksum checksum_ = Checksum::kCrc32;
  io::FileSystem* fs_ = nullptr;
  std::string temp_dir_;
  // Bytes [0, file_size_) are in file_ (whole events), [file_size_, size_)
  // in mem_ (whole events).
  std::unique_ptr<io::File> file_;
  uint64_t file_size_ = 0;
  std::string mem_;
  uint64_t size_ = 0;
  bool spilled_ = false;
  bool has_statements_ = false;
};

// The observer hook points of the commit pipeline (the observer registry
// implements them; null = none).
class CommitHooks {
 public:
  virtual ~CommitHooks() = default;
  // After the group is written (not yet synced, not yet published), with
  // its end position; under the flush lock, so it must not wait.
  virtual void AfterFlush(const std::string& file, uint64_t end) = 0;
  // After the group is synced and published, before any of it commits in
  // the engine: the group's leader calls it for each transaction in binlog
  // order, with that transaction's end, holding no binlog lock. It may
  // wait (semisync AFTER_SYNC); the transaction's committer stays in
  // Commit() until it returns. The transaction is in the binlog whatever
  // happens: the implementation reports its own failures.
  virtual void AfterSync(const std::string& /*file*/, uint64_t /*end*/) {}
  // False: AfterSync does nothing now, so the leader need not call it (and
  // wakes the followers before it lets the next group in).
  virtual bool WantsAfterSync() const { return true; }
};

// The engine's side of two-phase commit in the flush stage: a transaction
// prepared without waiting for its redo (Engine::Prepare with a flush
// mark) hands Commit() that mark, and the group's leader makes every mark
// of its group durable with one call, before it writes the group, as
// MySQL 5.7+ folds the prepare's redo flush into the binlog's flush stage.
// So a commit group costs one redo flush and one binlog fsync, and a
// transaction in the binlog always has a durable prepare record.
class EngineFlush {
 public:
  virtual ~EngineFlush() = default;
  // Makes the engine's log durable up to `mark` (as its own
  // flush_log_at_trx_commit says). An error fails the group.
  virtual Status FlushUpTo(uint64_t mark) = 0;
};

struct BinlogFileInfo {
  std::string name;  // basename, "binlog.000001"
  uint64_t size = 0;
};

class Binlog {
 public:
  struct Options {
    std::string dir;                  // where the files and index live (the datadir)
    std::string basename = "binlog";  // log_bin basename
    uint32_t server_id = 1;
    Uuid server_uuid;
    std::string server_version = "8.0.36-sluice";
    bool gtid_mode = true;  // false: Anonymous_gtid events
    Checksum checksum = Checksum::kCrc32;
    uint64_t max_size = uint64_t{1} << 30;
    uint32_t sync_binlog = 1;
    uint64_t expire_seconds = 0;  // 0: never
    // Where the files and the index are. Null: io::DefaultFileSystem()
    // (POSIX). Must outlive the Binlog.
    io::FileSystem* fs = nullptr;
    // Where the sessions' TransactionCaches spill, on `fs` (--tmpdir;
    // empty: $TMPDIR or /tmp).
    std::string cache_temp_dir;
    // A leader that finds at least this many transactions in after_sync
    // waits for them all before it flushes (AwaitAfterSyncBacklog()). 0:
    // two per usable CPU (base/cpus.h), at least four.
    size_t after_sync_backlog = 0;
  };

  // What Open() found.
  struct RecoveryInfo {
    bool crashed = false;           // the last file was not closed cleanly
    uint64_t truncated_bytes = 0;   // a partly written last transaction removed
    std::set<uint64_t> xids;        // Xids in the last file: commit these
    std::string last_file;
  };

  // Opens (creating the index when missing) and recovers the last file:
  // truncates a partly written last transaction, collects its Xids, and
  // rebuilds gtid_executed (the last file's Previous_gtids plus its
  // GTIDs) and gtid_purged (the first file's Previous_gtids). Starts no
  // new file yet: call StartWriting() once the engine has resolved its
  // prepared transactions against RecoveryInfo::xids.
  static Result<std::unique_ptr<Binlog>> Open(Options options, RecoveryInfo* recovery);
  ~Binlog();
  Binlog(const Binlog&) = delete;
  Binlog& operator=(const Binlog&) = delete;

  // Marks the last file closed and starts a new one (as mysqld does at
  // every start), then purges expired files.
  Status StartWriting();
  // Writes a Stop event, clears the in-use flag and closes. Idempotent.
  Status Close();

  // --- commit pipeline ---
  // A fresh, unique Xid for a transaction about to prepare.
  uint64_t NextXid() { return next_xid_.fetch_add(1, std::memory_order_relaxed); }
  struct CommitResult {
    Uuid sid;           // the transaction's GTID, sid:gno (gno 0: anonymous)
    int64_t gno = 0;
    std::string file;
    uint64_t end = 0;   // end offset of the transaction in `file`
    // "uuid:N", "" when anonymous (FormatGtid writes it without allocating).
    std::string gtid() const { return gno == 0 ? std::string() : GtidToString(sid, gno); }
  };
  // Writes `cache` as one transaction (see the file comment). `timestamp`
  // is the Gtid event's header timestamp (seconds). On error nothing of
  // the transaction is visible (the file is cut back) and the caller rolls
  // back. The caller must call CommitDone() after Commit() returns OK,
  // once its engine commit is done. `engine_mark`: see EngineFlush (0: none).
  Status Commit(const TransactionCache& cache, uint32_t timestamp, CommitResult* result = nullptr,
                uint64_t engine_mark = 0);
  // Set before the first Commit() with a mark; must outlive the binlog.
  void set_engine_flush(EngineFlush* f) { engine_flush_.store(f, std::memory_order_release); }
  // Whether Commit() takes a mark: without an EngineFlush a transaction
  // makes its prepare durable itself.
  bool flushes_engine() const { return engine_flush_.load(std::memory_order_acquire) != nullptr; }
  void CommitDone();

  // The sticky error of a failed sync (OK while none failed): what every
  // Commit() now returns.
  Status sync_error() const;

  // --- files ---
  // The FileSystem the files are on (for BinlogFileReader::Open).
  io::FileSystem& file_system() const { return fs_; }
  // Options::cache_temp_dir, for TransactionCache::set_temp_files.
  const std::string& cache_temp_dir() const { return options_.cache_temp_dir; }
  std::vector<BinlogFileInfo> ListFiles() const;  // SHOW BINARY LOGS
  // Current file and the published end in it (SHOW MASTER STATUS).
  std::pair<std::string, uint64_t> CurrentPosition() const;
  std::string FilePath(const std::string& name) const;  // dir + name
  bool HasFile(const std::string& name) const;
  // FLUSH BINARY LOGS.
  Status Rotate();
  // PURGE BINARY LOGS TO 'name': removes every file before `name`. 1373
  // "Target log not found in binlog index" when unknown. The active file
  // is never purged.
  Status PurgeTo(const std::string& name);
  // PURGE BINARY LOGS BEFORE: files whose last modification is before
  // `unix_seconds` (never the active file).
  Status PurgeBefore(int64_t unix_seconds);
  // RESET MASTER / RESET BINARY LOGS AND GTIDS: removes every file, empties
  // gtid_executed and gtid_purged, starts at <basename>.000001 (or at
  // `first_number`).
  Status Reset(uint64_t first_number = 1);

  // --- GTID state ---
  GtidSet gtid_executed() const;
  GtidSet gtid_purged() const;
  // The Previous_gtids set of binlog file `name` (empty when it has none).
  Result<GtidSet> PreviousGtidsOf(const std::string& name) const;
  const Uuid& server_uuid() const { return options_.server_uuid; }

  // --- run-time settings ---
  void set_sync_binlog(uint32_t n) { sync_binlog_.store(n, std::memory_order_relaxed); }
  void set_max_size(uint64_t n) { max_size_.store(n, std::memory_order_relaxed); }
  void set_expire_seconds(uint64_t n) { expire_seconds_.store(n, std::memory_order_relaxed); }
  void set_server_id(uint32_t id) { server_id_.store(id, std::memory_order_relaxed); }
  uint32_t server_id() const { return server_id_.load(std::memory_order_relaxed); }
  // binlog_checksum: takes effect with a rotation (as MySQL).
  Status SetChecksum(Checksum c);
  Checksum checksum() const { return checksum_.load(std::memory_order_relaxed); }
  void set_hooks(CommitHooks* hooks) { hooks_.store(hooks, std::memory_order_release); }
  // gtid_mode: ON / ON_PERMISSIVE give GTIDs, OFF / OFF_PERMISSIVE
  // Anonymous_gtid events (from the next group on).
  void set_gtid_mode(bool on) { gtid_mode_.store(on, std::memory_order_relaxed); }
  bool gtid_mode() const { return gtid_mode_.load(std::memory_order_relaxed); }

  // --- readers ---
  struct End {
    uint32_t file_number = 0;  // the NNNNNN of the file
    uint64_t offset = 0;
    bool operator==(const End&) const = default;
  };
  End end() const;
  // Waits until end() differs from `seen` or `timeout` passes; returns end().
  // capped: waits on reader_end() instead, and returns it. prompt: woken
  // by the committer at once rather than by the notifier's batched
  // broadcast (a semisync replica: a commit waits for its ack).
  End WaitForEnd(End seen, std::chrono::milliseconds timeout, bool capped = false, bool prompt = false) const;
  // A limit for the readers that honour it (plain dump readers, while
  // semisync holds them at what its replicas acknowledged): reader_end() is
  // end() capped at it. Moving it wakes waiting readers. False for a file
  // name that is not one of this binlog's.
  bool SetReaderLimit(std::string_view file, uint64_t offset);
  void ClearReaderLimit();
  End reader_end() const;
  std::string FileName(uint32_t number) const;
  // How long the notifier pauses after a broadcast that woke `readers`
  // plain readers: kReaderWakePerReader each, within [kReaderWakeMin,
  // kReaderWakeMax]. A broadcast costs one wake-up per reader woken, in the
  // server (its dump thread) and in the reader, so at most about
  // 1 / kReaderWakePerReader wake-ups a second, up to the cap (40 readers);
  // beyond it the cap keeps a reader's delay bounded instead.
  //
  // Measured (bench/replication.py's on+1semi setting: semisync ON, 40
  // plain mariadb-binlog readers kept up, so each broadcast woke them for
  // about one group; 20000 INSERTs at concurrency 16 on 2 cores): a fixed
  // 2 ms cost 135-157 µs of server CPU per insert and the readers 6.0-6.5
  // s; 10 ms 86-89 µs and 5.0 s. Without semisync the readers lag behind
  // and stream, and the interval hardly matters.
  static constexpr std::chrono::microseconds kReaderWakeMin{500};
  static constexpr std::chrono::microseconds kReaderWakePerReader{250};
  static constexpr std::chrono::microseconds kReaderWakeMax{10000};
  static std::chrono::microseconds ReaderWakeInterval(int readers);

  // --- counters (SHOW STATUS) ---
  struct Stats {
    uint64_t commits = 0;        // transactions written
    uint64_t groups = 0;         // flush groups (Binlog_group_commits)
    uint64_t syncs = 0;          // fsyncs of the binlog
    uint64_t bytes_written = 0;
  };
  Stats stats() const;  // takes no lock (SHOW STATUS reads it)
  size_t queued() const;  // committers queued for the next group now

 private:
  struct Ticket;
  explicit Binlog(Options options);
  Status RecoverLocked(RecoveryInfo* recovery) REQUIRES(flush_mu_);
  Status OpenNewFileLocked(uint32_t number) REQUIRES(flush_mu_);
  Status CloseFileLocked(bool stop_event) REQUIRES(flush_mu_);
  Status RotateLocked() REQUIRES(flush_mu_);
  Status WriteIndexLocked() REQUIRES(flush_mu_);
  Status SyncLocked() REQUIRES(flush_mu_);  // sets sync_error_
  void SetSyncErrorLocked(std::string_view stage, const Status& cause) REQUIRES(flush_mu_);
  Status FlushGroupLocked(std::vector<Ticket*>& group) REQUIRES(flush_mu_);
  // Whether the next group written is the sync_binlog'th since the last
  // fsync (`every`: sync_binlog, 0 = never), and so is fsynced.
  bool NextGroupSyncsLocked(uint32_t every) const REQUIRES(flush_mu_) {
    return every != 0 && groups_since_sync_ + 1 >= every;
  }
  void WaitNoPendingLocked() REQUIRES(flush_mu_) EXCLUDES(pending_mu_);
  void AwaitAfterSyncBacklog() EXCLUDES(flush_mu_, after_sync_mu_);
  void PublishEnd(uint32_t number, uint64_t offset);
  void WakeReaders();  // the notifier broadcasts to waiting readers
  Status PurgeFilesLocked(size_t count) REQUIRES(flush_mu_);  // the first `count` files
  Status PurgeBeforeLocked(int64_t unix_seconds) REQUIRES(flush_mu_);
  void PurgeExpiredLocked() REQUIRES(flush_mu_);

  Options options_;
  io::FileSystem& fs_;
  std::atomic<uint32_t> sync_binlog_;
  std::atomic<uint64_t> max_size_;
  std::atomic<uint64_t> expire_seconds_;
  std::atomic<uint32_t> server_id_;
  std::atomic<Checksum> checksum_;
  std::atomic<CommitHooks*> hooks_{nullptr};
  std::atomic<EngineFlush*> engine_flush_{nullptr};
  std::atomic<bool> gtid_mode_;
  std::atomic<uint64_t> next_xid_{1};

  // The flush and sync stages; the file and its index.
  mutable Mutex flush_mu_ ACQUIRED_BEFORE(queue_mu_, state_mu_, pending_mu_);
  std::unique_ptr<io::File> file_ GUARDED_BY(flush_mu_);  // the active file; null when none
  Status sync_error_ GUARDED_BY(flush_mu_);  // sticky (see the file comment)
  uint32_t file_number_ GUARDED_BY(flush_mu_) = 0;
  uint64_t file_size_ GUARDED_BY(flush_mu_) = 0;
  Checksum file_checksum_ GUARDED_BY(flush_mu_) = Checksum::kCrc32;  // of the active file
  int64_t sequence_number_ GUARDED_BY(flush_mu_) = 0;  // logical clock, per file
  int64_t last_group_end_ GUARDED_BY(flush_mu_) = 0;   // sequence_number of the last group's last transaction
  // The group's bytes on their way to the file, kept between groups so
  // that a group does not grow a buffer from nothing under flush_mu_.
  std::string group_buf_ GUARDED_BY(flush_mu_);
  uint64_t groups_since_sync_ GUARDED_BY(flush_mu_) = 0;
  bool writing_ GUARDED_BY(flush_mu_) = false;
  bool first_file_ GUARDED_BY(flush_mu_) = false;  // the next file is the first since start

  // Transactions written but not yet CommitDone().
  Mutex pending_mu_;
  CondVar pending_cv_;
  uint64_t pending_ GUARDED_BY(pending_mu_) = 0;
  bool rotate_wanted_ GUARDED_BY(flush_mu_) = false;

  // The leader/follower queue. Followers of the queue of generation g wait
  // on group_cv_[g % kGroupCvs]: a broadcast for one group wakes no
  // follower of the next few, which may be waiting at the same time while
  // this group's leader waits in after_sync.
  static constexpr size_t kGroupCvs = 8;
  // A leader about to fsync yields at most this many times while its queue
  // grows (Commit()).
  static constexpr int kGatherYields = 3;
  // Options::after_sync_backlog, resolved.
  const size_t after_sync_backlog_;
  mutable Mutex queue_mu_;
  uint64_t queue_generation_ GUARDED_BY(queue_mu_) = 0;
  CondVar group_cv_[kGroupCvs];
  std::vector<Ticket*> queue_ GUARDED_BY(queue_mu_);
  // A group's vector, emptied, once its leader is through: the next
  // leader's queue_ starts from it instead of growing from nothing.
  std::vector<Ticket*> spare_queue_ GUARDED_BY(queue_mu_);

  // Transactions whose leader runs their after_sync hooks now.
  Mutex after_sync_mu_;
  CondVar after_sync_cv_;
  size_t in_after_sync_ GUARDED_BY(after_sync_mu_) = 0;

  // GTID state and the file list for readers of SHOW statements.
  mutable Mutex state_mu_;
  // File numbers, oldest first. Changed only with flush_mu_ held as well
  // (rotation, purge, RESET MASTER), so the flush stage's view of it holds
  // between its state_mu_ sections.
  std::vector<uint32_t> files_ GUARDED_BY(state_mu_);
  GtidSet gtid_executed_ GUARDED_BY(state_mu_);
  GtidSet gtid_purged_ GUARDED_BY(state_mu_);

  // Published end, and the readers' wake-ups (see the file comment).
  void NotifierLoop() EXCLUDES(notifier_mu_);
  std::atomic<uint64_t> end_{0};  // file number << 40 | offset
  std::atomic<uint64_t> reader_limit_{UINT64_MAX};  // packed as end_; none: UINT64_MAX
  mutable std::atomic<int> end_waiters_{0};
  std::atomic<bool> notify_pending_{false};
  mutable Mutex end_mu_;  // readers' condition variable
  mutable CondVar end_cv_;
  mutable std::atomic<int> prompt_waiters_{0};  // WaitForEnd(prompt) callers waiting
  mutable Mutex prompt_mu_;                     // their condition variable
  mutable CondVar prompt_cv_;
  Mutex notifier_mu_;
  CondVar notifier_cv_;
  bool notifier_stop_ GUARDED_BY(notifier_mu_) = false;
  std::thread notifier_;

  std::atomic<uint64_t> stat_commits_{0}, stat_groups_{0}, stat_syncs_{0}, stat_bytes_{0};
};

}  // namespace sluice::binlog
