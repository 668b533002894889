// storage/redo/redo_log.h
//
// RedoLog: the storage engine's write-ahead log. Callers append opaque
// payloads and get back the log sequence number (LSN) just past their
// record; a commit then waits until its LSN is durable as
// innodb_flush_log_at_trx_commit says (see Durability). Concurrent waiters
// share one write and one fsync (group commit, leader/follower as in
// leveldb DBImpl::Write). Checkpoint(lsn) records where recovery may start; Open()
// replays every intact record from the last checkpoint, in LSN order, and
// truncates a torn tail.
//
// Files, in directory `dir`, all I/O through io::FileSystem:
//   redo.<16 hex digits>  segments of the log. LSN == byte offset in the
//             log as a whole; a segment is named by the LSN of its first
//             byte and holds the next ones, up to where the next segment
//             starts. A record is
//             [crc32 u32][length u32][type u8][payload: length bytes],
//             little-endian. The crc (zlib crc32) covers the record's start
//             LSN (8 bytes LE, not stored), length, type and payload, so a
//             stale or misplaced record never passes. Type 0 is invalid.
//             Records never span segments: the writer starts a new segment
//             before a write once the current one holds
//             Options::segment_size bytes. It does not fsync the full one:
//             the next sync does (LeadSync), the full segments oldest
//             first, then the directory, then records in redo.ctl that the
//             segments before the current one are sealed (whole and
//             durable), and only then syncs the current one. So a commit
//             never waits behind a rollover's fsync, and a crash can leave
//             torn only the segments from the last sealed one on; recovery
//             ends the log at the first gap there and removes the
//             segments after it (nothing in them was acknowledged as
//             durable), and a damaged record in a sealed segment is
//             Corruption. A checkpoint removes the segments wholly before
//             it, so the log's disk space stays about what a checkpoint
//             interval writes plus one segment. (A datadir from before
//             segments has one file, redo.log: Open renames it to the
//             segment at LSN 0.)
//   redo.ctl  two 512-byte slots; a slot is [magic u64][seq u64]
//             [checkpoint_lsn u64][crc32 u32 of the first 24 bytes]
//             [sealed_lsn u64][crc32 u32 of the first 36 bytes]: the
//             checkpoint, and the start of the newest segment known sealed,
//             every one before it whole and durable. Checkpoint and a sync
//             that seals segments write slot (seq % 2) with the next seq
//             and sync, so a torn write leaves the other slot intact; Open
//             takes the valid slot (first crc) with the highest seq. A slot
//             without a valid second crc is from before sealing (a version
//             that wrote and reads only the first 28 bytes, and so can
//             still read this file): it reads as every segment but the last
//             sealed, as its writer fsynced each full one at once, and Open
//             replaces it with a whole one.
//
// LSNs: Append returns the END LSN of the record. A record's start LSN is
// end - FramedSize(payload.size()). A checkpoint LSN must be a record
// boundary (a start LSN, or an end LSN returned by Append) that is already
// durable (<= flushed_lsn()); the buffer pool's oldest modification must be
// the START LSN of the oldest record whose change is not yet on disk.
//
// Errors: a failed write or fsync (of either file) is sticky: it is recorded
// and every later Append, WaitFlushed, FlushUpTo and Checkpoint fails with
// the same Status; nothing is retried.
//
// Threads: one background flusher (owned here, joined in the destructor)
// writes and fsyncs everything appended about once per
// Options::flush_interval (modes 0 and 2).
//
// Thread-safety: every method may be called from any thread.
// Lock order: ckpt_mu_ -> mu_, ckpt_mu_ -> seg_mu_, ckpt_mu_ -> ctl_mu_;
// mu_, seg_mu_ and ctl_mu_ are never held together. mu_ is never held
// during file I/O. Writing and syncing have a leader each (as MySQL 8.0's
// log writer and log flusher): seg_mu_ is held by the write leader during
// its write, briefly by the sync leader (to take the segments it syncs)
// and by a checkpoint; ckpt_mu_ only serializes checkpoints; ctl_mu_ is
// held around a write of redo.ctl (a checkpoint's, or a sync's sealing).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "base/io/file_system.h"

namespace sluice::storage {

// innodb_flush_log_at_trx_commit.
enum class Durability : uint8_t {
  kNone = 0,         // 0: nothing at commit; background write+fsync ~1/s
  kSyncEachCommit = 1,  // 1: written and fsynced before the commit returns
  kWriteEachCommit = 2, // 2: written to the OS at commit; fsync ~1/s
};

class RedoLog {
 public:
  struct Options {
    // Background write+fsync period (modes 0 and 2). Zero: no background
    // thread (tests drive FlushUpTo themselves).
    std::chrono::milliseconds flush_interval{1000};
    // Append writes the buffer out (no fsync) when it reaches this size and
    // no flush is in progress.
    size_t buffer_size = 4u << 20;
    // A segment is closed, and the next write starts a new one, once it
    // holds this many bytes (it may exceed it by one write).
    uint64_t segment_size = 32u << 20;
  };

  struct Record {
    uint64_t start_lsn;
    uint64_t end_lsn;
    uint8_t type;
    std::string_view payload;
  };
  // Called by Open for each intact record from the checkpoint on, in LSN
  // order. A non-OK return aborts Open with that Status.
  using RecordCallback = std::function<Status(const Record&)>;

  struct Stats {
    uint64_t writes = 0;          // log file writes (each may hold many records)
    uint64_t fsyncs = 0;          // log file syncs
    uint64_t commits_served = 0;  // WaitFlushed calls that returned OK in mode 1
    uint64_t bytes_written = 0;   // Innodb_os_log_written
    uint64_t segments_created = 0;
    uint64_t segments_removed = 0;
  };

  // Bytes a record with a payload of `payload_size` takes in the log.
  static constexpr uint64_t kRecordHeaderSize = 9;
  static constexpr uint64_t FramedSize(uint64_t payload_size) {
    return kRecordHeaderSize + payload_size;
  }
  static constexpr uint8_t kDefaultType = 1;
  static constexpr uint32_t kMaxPayload = 64u << 20;

  // Opens (creating when missing) the log in `dir` on `fs`, which must
  // outlive the RedoLog, replays it through `on_record` and truncates a torn
  // tail. Corruption when the control file has no valid slot or its
  // checkpoint is past the end of the log.
  static Result<std::unique_ptr<RedoLog>> Open(io::FileSystem* fs, const std::string& dir,
                                               const Options& options,
                                               const RecordCallback& on_record);

  ~RedoLog();
  RedoLog(const RedoLog&) = delete;
  RedoLog& operator=(const RedoLog&) = delete;

  // Appends one record (type != 0) to the in-memory buffer; returns its end
  // LSN. Fails with the sticky error once a write or fsync failed.
  Result<uint64_t> Append(std::string_view payload, uint8_t type = kDefaultType);

  // Waits until `lsn` is as durable as `durability` asks (see Durability).
  // InvalidArgument when lsn is past current_lsn().
  Status WaitFlushed(uint64_t lsn, Durability durability);

  // Writes and fsyncs the log through at least `lsn` (the buffer pool's
  // write-ahead check). Does not count as a commit.
  Status FlushUpTo(uint64_t lsn);

  // Durably records that recovery may start at `lsn` (a record boundary,
  // <= flushed_lsn(), >= the last checkpoint), then removes the segments
  // wholly before it (a removal that fails fails nothing: Open removes
  // the file).
  Status Checkpoint(uint64_t lsn);

  // Writes and fsyncs everything appended; stops the background flusher.
  // Later calls still work (they just flush in the caller's thread).
  Status Close();

  uint64_t current_lsn() const;     // end of the last appended record
  uint64_t written_lsn() const;     // handed to the OS
  uint64_t flushed_lsn() const;     // fsynced
  uint64_t checkpoint_lsn() const;  // last durable checkpoint
  Stats stats() const;
  Status error() const;  // the sticky error, or OK
  // The start LSNs of the segments on disk, oldest first (tests, status).
  std::vector<uint64_t> segment_starts() const;

  // The file name of the segment that starts at `start_lsn`.
  static std::string SegmentName(uint64_t start_lsn);

 private:
  RedoLog(io::FileSystem* fs, std::string dir, const Options& options, std::vector<uint64_t> segments,
          std::unique_ptr<io::File> log, std::unique_ptr<io::File> ctl, uint64_t end_lsn,
          uint64_t checkpoint_lsn, uint64_t ctl_seq, uint64_t sealed_lsn);

  // Called with mu_ held, no writer active and something pending
  // (written_lsn_ < current_lsn_): becomes the write leader, writes the
  // pending buffer with mu_ released, then publishes
  // written_lsn_ and wakes those waiting for a write. The caller's scoped
  // lock stays valid: mu_ is held again on return.
  Status LeadWrite() REQUIRES(mu_);
  // Called with mu_ held and no syncer active: becomes the sync leader,
  // fsyncs the log through written_lsn_ as it is now (full segments no
  // sync covered yet first, and seals them in redo.ctl), with mu_ released,
  // then publishes flushed_lsn_ and wakes those waiting for a sync. Writes
  // go on meanwhile: a commit that needs its record written (modes 0 and
  // 2) never waits for an fsync, and the next sync takes what they wrote.
  Status LeadSync() REQUIRES(mu_);
  // Waits (leading the write, then the sync, when nobody is) until
  // written_lsn_ (sync: flushed_lsn_) reaches lsn. mu_ held.
  Status WaitLocked(uint64_t lsn, bool sync) REQUIRES(mu_);
  // The write leader's write of `data` at LSN `start`: into the last segment, or
  // into a new one once the last is full (no fsync: the full one waits in
  // unsynced_ for the next LeadSync).
  Status WriteSegmented(uint64_t start, std::string_view data) EXCLUDES(mu_);
  // Writes the next slot of redo.ctl (and syncs it), then records what it
  // says: the sequence number, `checkpoint` and `sealed`.
  Status WriteCtlLocked(uint64_t checkpoint, uint64_t sealed) REQUIRES(ctl_mu_);
  void BackgroundLoop() EXCLUDES(mu_);
  void StopBackground() EXCLUDES(mu_);

  io::FileSystem* const fs_;
  const std::string dir_;
  const Options options_;
  const std::unique_ptr<io::File> ctl_;

  Mutex ckpt_mu_ ACQUIRED_BEFORE(mu_, seg_mu_, ctl_mu_);
  // What redo.ctl's newest slot says.
  Mutex ctl_mu_;
  uint64_t ctl_seq_ GUARDED_BY(ctl_mu_);
  uint64_t ctl_checkpoint_ GUARDED_BY(ctl_mu_);
  uint64_t sealed_lsn_ GUARDED_BY(ctl_mu_);

  // The segments: taken by the write leader around its write, by the sync
  // leader to take the segments it syncs (never with mu_ held), and by
  // Checkpoint to drop the old ones.
  mutable Mutex seg_mu_;
  std::vector<uint64_t> segments_ GUARDED_BY(seg_mu_);  // start LSNs, oldest first
  // The last segment. Shared: the sync leader syncs it with seg_mu_
  // released, while the write leader may start the next one.
  std::shared_ptr<io::File> log_ GUARDED_BY(seg_mu_);
  // Full segments written since the last sync took them, oldest first, and
  // whether the directory holds names no sync has made durable.
  std::vector<std::shared_ptr<io::File>> unsynced_ GUARDED_BY(seg_mu_);
  bool dir_dirty_ GUARDED_BY(seg_mu_) = false;
  std::atomic<uint64_t> segments_created_{0};
  std::atomic<uint64_t> segments_removed_{0};

  mutable Mutex mu_;
  CondVar write_cv_;  // a write finished
  CondVar sync_cv_;   // a sync finished
  CondVar stop_cv_;  // stop requested: the background loop's own, so flushes do not wake it
  std::string pending_ GUARDED_BY(mu_);  // bytes [written_lsn_, current_lsn_)
  // The buffer the last write took, emptied: the next write hands it to
  // pending_, so that appends do not grow a buffer from nothing each time.
  std::string spare_ GUARDED_BY(mu_);
  uint64_t current_lsn_ GUARDED_BY(mu_);
  uint64_t written_lsn_ GUARDED_BY(mu_);
  uint64_t flushed_lsn_ GUARDED_BY(mu_);
  uint64_t checkpoint_lsn_ GUARDED_BY(mu_);
  bool writer_active_ GUARDED_BY(mu_) = false;  // a write leader is writing
  bool syncer_active_ GUARDED_BY(mu_) = false;  // a sync leader is syncing
  bool stop_ GUARDED_BY(mu_) = false;
  Status error_ GUARDED_BY(mu_);  // sticky
  Stats stats_ GUARDED_BY(mu_);

  std::thread background_;
};

}  // namespace sluice::storage
