// storage/redo/redo_log_test.cc
#include "storage/redo/redo_log.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/io/mem_file_system.h"
#include "base/mutex.h"

namespace sluice::storage {
namespace {

constexpr char kDir[] = "/data/redo";
constexpr char kLogPath[] = "/data/redo/redo.0000000000000000";  // the first segment
constexpr char kCtlPath[] = "/data/redo/redo.ctl";

// Delegates to another FileSystem; File::Sync takes `sync_delay` longer, as a
// disk would, so concurrent committers pile up behind a leader's fsync.
// HoldSyncs() makes every File::Sync wait at its start until ReleaseSyncs():
// an fsync that a loaded disk takes seconds to finish.
class SlowSyncFileSystem final : public io::FileSystem {
 public:
  SlowSyncFileSystem(io::FileSystem* base, std::chrono::microseconds sync_delay)
      : base_(base), delay_(sync_delay) {}

  void HoldSyncs() {
    MutexLock l(&hold_mu_);
    held_ = true;
  }
  // Returns once a sync waits in the hold.
  void AwaitHeldSync() {
    MutexLock l(&hold_mu_);
    while (waiting_ == 0) hold_cv_.Wait(&hold_mu_);
  }
  void ReleaseSyncs() {
    {
      MutexLock l(&hold_mu_);
      held_ = false;
    }
    hold_cv_.NotifyAll();
  }

  Result<std::unique_ptr<io::File>> Open(const std::string& path, io::OpenMode mode,
                                         uint32_t permissions = kDefaultPermissions) override {
    Result<std::unique_ptr<io::File>> f = base_->Open(path, mode, permissions);
    if (!f.ok()) return f.status();
    return std::unique_ptr<io::File>(new SlowFile(this, std::move(*f), delay_));
  }
  Status Rename(const std::string& from, const std::string& to) override { return base_->Rename(from, to); }
  Status Remove(const std::string& path) override { return base_->Remove(path); }
  Result<std::vector<std::string>> List(const std::string& dir) override { return base_->List(dir); }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Status CreateDir(const std::string& path) override { return base_->CreateDir(path); }
  Status SyncDir(const std::string& dir) override { return base_->SyncDir(dir); }
  Result<int64_t> ModificationTime(const std::string& path) override { return base_->ModificationTime(path); }
  Result<std::unique_ptr<io::File>> NewTempFile(const std::string& dir) override {
    return base_->NewTempFile(dir);
  }

 private:
  class SlowFile final : public io::File {
   public:
    SlowFile(SlowSyncFileSystem* fs, std::unique_ptr<io::File> f, std::chrono::microseconds d)
        : fs_(fs), f_(std::move(f)), d_(d) {}
    Result<size_t> ReadAt(uint64_t o, char* b, size_t n) override { return f_->ReadAt(o, b, n); }
    Status WriteAt(uint64_t o, std::string_view d) override { return f_->WriteAt(o, d); }
    Status Sync() override {
      fs_->WaitWhileHeld();
      std::this_thread::sleep_for(d_);  // simulated disk latency, not a synchronization
      return f_->Sync();
    }
    Status Truncate(uint64_t s) override { return f_->Truncate(s); }
    Result<uint64_t> Size() override { return f_->Size(); }
    const std::string& path() const override { return f_->path(); }

   private:
    SlowSyncFileSystem* fs_;
    std::unique_ptr<io::File> f_;
    std::chrono::microseconds d_;
  };
  void WaitWhileHeld() {
    MutexLock l(&hold_mu_);
    if (!held_) return;
    ++waiting_;
    hold_cv_.NotifyAll();
    while (held_) hold_cv_.Wait(&hold_mu_);
    --waiting_;
  }

  io::FileSystem* base_;
  std::chrono::microseconds delay_;
  Mutex hold_mu_;
  CondVar hold_cv_;
  bool held_ GUARDED_BY(hold_mu_) = false;
  int waiting_ GUARDED_BY(hold_mu_) = 0;
};

RedoLog::Options SmallSegments();  // below, with the segment tests

class RedoLogTest : public ::testing::Test {
 protected:
  RedoLogTest() { EXPECT_TRUE(mem.CreateDir("/data").ok()); }

  RedoLog::Options NoBackground() {
    RedoLog::Options o;
    o.flush_interval = std::chrono::milliseconds(0);
    return o;
  }

  // Opens the log, collecting recovered payloads into `recovered`.
  std::unique_ptr<RedoLog> OpenLog(const RedoLog::Options& o, io::FileSystem* fs = nullptr) {
    recovered.clear();
    recovered_lsns.clear();
    Result<std::unique_ptr<RedoLog>> r =
        RedoLog::Open(fs ? fs : &mem, kDir, o, [&](const RedoLog::Record& rec) {
          recovered.emplace_back(rec.payload);
          recovered_lsns.push_back(rec.end_lsn);
          return Status::OK();
        });
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : nullptr;
  }
  std::unique_ptr<RedoLog> OpenLog() { return OpenLog(NoBackground()); }

  uint64_t MustAppend(RedoLog* log, const std::string& p) {
    Result<uint64_t> r = log->Append(p);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : 0;
  }

  uint64_t LogSize() {
    auto f = mem.Open(kLogPath, io::OpenMode::kOpenExisting);
    EXPECT_TRUE(f.ok());
    return *(*f)->Size();
  }

  // Damages the first record of the segment at `start` (durably), and
  // expects Open to call that Corruption: the segment is sealed.
  void ExpectCorruptionOnceDamaged(uint64_t start) {
    {
      auto f = mem.Open(std::string(kDir) + "/" + RedoLog::SegmentName(start), io::OpenMode::kOpenExisting);
      ASSERT_TRUE(f.ok());
      ASSERT_TRUE((*f)->WriteAt(RedoLog::kRecordHeaderSize + 1, "Z").ok());
      ASSERT_TRUE((*f)->Sync().ok());
    }
    auto r = RedoLog::Open(&mem, kDir, SmallSegments(), nullptr);
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  }

  io::MemFileSystem mem;
  std::vector<std::string> recovered;
  std::vector<uint64_t> recovered_lsns;
};

TEST_F(RedoLogTest, AppendedRecordsRecoverInOrderAfterReopen) {
  auto log = OpenLog();
  EXPECT_EQ(log->current_lsn(), 0u);
  uint64_t a = MustAppend(log.get(), "alpha");
  uint64_t b = MustAppend(log.get(), "");
  uint64_t c = MustAppend(log.get(), std::string(100000, 'x'));
  EXPECT_EQ(a, RedoLog::FramedSize(5));
  EXPECT_EQ(b, a + RedoLog::FramedSize(0));
  EXPECT_EQ(c, b + RedoLog::FramedSize(100000));
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  mem.DropUnsyncedData();  // Close synced everything

  log = OpenLog();
  ASSERT_EQ(recovered.size(), 3u);
  EXPECT_EQ(recovered[0], "alpha");
  EXPECT_EQ(recovered[1], "");
  EXPECT_EQ(recovered[2], std::string(100000, 'x'));
  EXPECT_EQ(recovered_lsns, (std::vector<uint64_t>{a, b, c}));
  EXPECT_EQ(log->current_lsn(), c);
  EXPECT_EQ(log->flushed_lsn(), c);
}

TEST_F(RedoLogTest, RecordTypeIsPreservedAndTypeZeroIsRejected) {
  auto log = OpenLog();
  EXPECT_FALSE(log->Append("x", 0).ok());
  ASSERT_TRUE(log->Append("y", 7).ok());
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  std::vector<uint8_t> types;
  auto r = RedoLog::Open(&mem, kDir, NoBackground(), [&](const RedoLog::Record& rec) {
    types.push_back(rec.type);
    return Status::OK();
  });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(types, (std::vector<uint8_t>{7}));
}

TEST_F(RedoLogTest, ModeOneRecordSurvivesCrashAfterWaitFlushedReturns) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "committed");
  ASSERT_TRUE(log->WaitFlushed(a, Durability::kSyncEachCommit).ok());
  EXPECT_GE(log->flushed_lsn(), a);
  MustAppend(log.get(), "never waited for");
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog();
  ASSERT_EQ(recovered.size(), 1u);
  EXPECT_EQ(recovered[0], "committed");
}

TEST_F(RedoLogTest, CrashDropsUnsyncedTailAndAppendingResumesAfterLastGoodRecord) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "A");
  ASSERT_TRUE(log->WaitFlushed(a, Durability::kSyncEachCommit).ok());
  uint64_t b = MustAppend(log.get(), "B-written-not-synced");
  ASSERT_TRUE(log->WaitFlushed(b, Durability::kWriteEachCommit).ok());
  EXPECT_GE(log->written_lsn(), b);
  EXPECT_LT(log->flushed_lsn(), b);
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog();
  ASSERT_EQ(recovered, (std::vector<std::string>{"A"}));
  EXPECT_EQ(log->current_lsn(), a);
  uint64_t c = MustAppend(log.get(), "C");
  ASSERT_TRUE(log->WaitFlushed(c, Durability::kSyncEachCommit).ok());
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"A", "C"}));
}

TEST_F(RedoLogTest, PartialRecordAtTailIsTruncatedAtRecovery) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "whole");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  {
    // A torn record: a header that promises 100 bytes and only 3 of them.
    auto f = mem.Open(kLogPath, io::OpenMode::kOpenExisting);
    ASSERT_TRUE(f.ok());
    std::string torn = {'\x11', '\x22', '\x33', '\x44', 100, 0, 0, 0, 1, 'a', 'b', 'c'};
    ASSERT_TRUE((*f)->WriteAt(a, torn).ok());
    ASSERT_TRUE((*f)->Sync().ok());
  }
  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"whole"}));
  EXPECT_EQ(LogSize(), a);
  uint64_t b = MustAppend(log.get(), "next");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  mem.DropUnsyncedData();
  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"whole", "next"}));
  EXPECT_EQ(log->current_lsn(), b);
}

TEST_F(RedoLogTest, CorruptedByteStopsRecoveryAtThatRecordAndTruncatesTheRest) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "first");
  MustAppend(log.get(), "second");
  MustAppend(log.get(), "third");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  {
    auto f = mem.Open(kLogPath, io::OpenMode::kOpenExisting);
    ASSERT_TRUE(f.ok());
    // Flip one payload byte of "second".
    ASSERT_TRUE((*f)->WriteAt(a + RedoLog::kRecordHeaderSize + 2, "X").ok());
    ASSERT_TRUE((*f)->Sync().ok());
  }
  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"first"}));
  EXPECT_EQ(log->current_lsn(), a);
  EXPECT_EQ(LogSize(), a);
  MustAppend(log.get(), "again");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"first", "again"}));
}

TEST_F(RedoLogTest, RecoveryStartsAtTheLastCheckpoint) {
  auto log = OpenLog();
  MustAppend(log.get(), "before-1");
  uint64_t b = MustAppend(log.get(), "before-2");
  MustAppend(log.get(), "after-1");
  uint64_t d = MustAppend(log.get(), "after-2");
  ASSERT_TRUE(log->FlushUpTo(d).ok());
  ASSERT_TRUE(log->Checkpoint(b).ok());
  EXPECT_EQ(log->checkpoint_lsn(), b);
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"after-1", "after-2"}));
  EXPECT_EQ(log->checkpoint_lsn(), b);
  EXPECT_EQ(log->current_lsn(), d);
}

TEST_F(RedoLogTest, TornCheckpointSlotFallsBackToThePreviousCheckpoint) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "one");
  uint64_t b = MustAppend(log.get(), "two");
  ASSERT_TRUE(log->FlushUpTo(b).ok());
  ASSERT_TRUE(log->Checkpoint(a).ok());  // seq 1 -> slot 1
  // The next checkpoint write tears after 10 bytes and fails: sticky.
  mem.InjectFault({io::MemFileSystem::Op::kWrite, 1, false, 10, "redo.ctl"});
  Status st = log->Checkpoint(b);
  EXPECT_TRUE(st.IsIOError());
  EXPECT_EQ(log->Append("x").status().ToString(), st.ToString());
  log.reset();
  {
    // Make the torn bytes durable, as if the sector had landed.
    auto f = mem.Open(kCtlPath, io::OpenMode::kOpenExisting);
    ASSERT_TRUE((*f)->Sync().ok());
  }
  log = OpenLog();
  EXPECT_EQ(log->checkpoint_lsn(), a);
  EXPECT_EQ(recovered, (std::vector<std::string>{"two"}));
}

TEST_F(RedoLogTest, CheckpointPastTheFlushedLsnIsRejected) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "unsynced");
  EXPECT_FALSE(log->Checkpoint(a).ok());
  ASSERT_TRUE(log->FlushUpTo(a).ok());
  EXPECT_TRUE(log->Checkpoint(a).ok());
  EXPECT_FALSE(log->Checkpoint(0).ok());  // backwards
}

TEST_F(RedoLogTest, FailedFsyncFailsEveryLaterCommitAndIsNeverRetried) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "doomed");
  mem.InjectFault({io::MemFileSystem::Op::kSync, 1, false, 0, "redo.0"});
  Status st = log->WaitFlushed(a, Durability::kSyncEachCommit);
  ASSERT_TRUE(st.IsIOError());
  const uint64_t syncs = mem.op_count(io::MemFileSystem::Op::kSync);
  const uint64_t writes = mem.op_count(io::MemFileSystem::Op::kWrite);
  // The fault was one-shot: a retry would now succeed, so any OK is a bug.
  EXPECT_EQ(log->WaitFlushed(a, Durability::kSyncEachCommit).ToString(), st.ToString());
  EXPECT_EQ(log->WaitFlushed(a, Durability::kWriteEachCommit).ToString(), st.ToString());
  EXPECT_EQ(log->WaitFlushed(a, Durability::kNone).ToString(), st.ToString());
  EXPECT_EQ(log->FlushUpTo(a).ToString(), st.ToString());
  EXPECT_EQ(log->Append("more").status().ToString(), st.ToString());
  EXPECT_EQ(log->Checkpoint(0).ToString(), st.ToString());
  EXPECT_EQ(log->Close().ToString(), st.ToString());
  EXPECT_EQ(mem.op_count(io::MemFileSystem::Op::kSync), syncs);
  EXPECT_EQ(mem.op_count(io::MemFileSystem::Op::kWrite), writes);
  EXPECT_EQ(log->flushed_lsn(), 0u);
}

TEST_F(RedoLogTest, FailedWriteIsStickyToo) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "doomed");
  mem.InjectFault({io::MemFileSystem::Op::kWrite, 1, false, 3, "redo.0"});
  Status st = log->WaitFlushed(a, Durability::kWriteEachCommit);
  ASSERT_TRUE(st.IsIOError());
  EXPECT_EQ(log->WaitFlushed(a, Durability::kSyncEachCommit).ToString(), st.ToString());
  EXPECT_EQ(log->error().ToString(), st.ToString());
}

TEST_F(RedoLogTest, ModeTwoWritesAtCommitButDoesNotFsync) {
  auto log = OpenLog();  // no background flusher
  uint64_t a = MustAppend(log.get(), "r1");
  uint64_t b = MustAppend(log.get(), "r2");
  ASSERT_TRUE(log->WaitFlushed(b, Durability::kWriteEachCommit).ok());
  EXPECT_GE(log->written_lsn(), b);
  EXPECT_EQ(log->stats().fsyncs, 0u);
  EXPECT_EQ(log->stats().commits_served, 0u);
  // A crash may lose them; what is guaranteed is that recovery yields an
  // intact prefix and the log stays usable.
  mem.DropUnsyncedData();
  log.reset();
  log = OpenLog();
  ASSERT_LE(recovered.size(), 2u);
  if (!recovered.empty()) {
    EXPECT_EQ(recovered[0], "r1");
  }
  EXPECT_TRUE(log->current_lsn() == 0 || log->current_lsn() == a || log->current_lsn() == b);
}

TEST_F(RedoLogTest, ModeZeroDoesNothingAtCommit) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "r1");
  ASSERT_TRUE(log->WaitFlushed(a, Durability::kNone).ok());
  EXPECT_EQ(log->stats().writes, 0u);
  EXPECT_EQ(log->stats().fsyncs, 0u);
  EXPECT_FALSE(log->WaitFlushed(a + 1, Durability::kNone).ok());  // past the end
}

// Polls `cond` up to 10 s; the background flusher runs every 5 ms.
template <typename F>
bool Eventually(F cond) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return cond();
}

TEST_F(RedoLogTest, BackgroundFlusherMakesModeZeroAndTwoCommitsDurable) {
  RedoLog::Options o;
  o.flush_interval = std::chrono::milliseconds(5);
  auto log = OpenLog(o);
  uint64_t a = MustAppend(log.get(), "mode0");
  ASSERT_TRUE(log->WaitFlushed(a, Durability::kNone).ok());
  uint64_t b = MustAppend(log.get(), "mode2");
  ASSERT_TRUE(log->WaitFlushed(b, Durability::kWriteEachCommit).ok());
  ASSERT_TRUE(Eventually([&] { return log->flushed_lsn() >= b; }));
  EXPECT_GE(log->stats().fsyncs, 1u);
  mem.DropUnsyncedData();
  log.reset();
  log = OpenLog(o);
  EXPECT_EQ(recovered, (std::vector<std::string>{"mode0", "mode2"}));
}

TEST_F(RedoLogTest, FlushUpToServesTheWriteAheadRule) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "page change");
  uint64_t b = MustAppend(log.get(), "later");
  ASSERT_TRUE(log->FlushUpTo(a).ok());
  EXPECT_GE(log->flushed_lsn(), a);
  EXPECT_TRUE(log->FlushUpTo(0).ok());
  EXPECT_TRUE(log->FlushUpTo(b + 1000).ok());  // clamps to the end
  EXPECT_EQ(log->flushed_lsn(), b);
  EXPECT_EQ(log->stats().commits_served, 0u);
}

TEST_F(RedoLogTest, ConcurrentModeOneCommitsShareFsyncsAndAllRecover) {
  SlowSyncFileSystem slow(&mem, std::chrono::microseconds(500));
  auto log = OpenLog(NoBackground(), &slow);
  constexpr int kThreads = 8;
  constexpr int kCommits = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommits; ++i) {
        Result<uint64_t> lsn = log->Append("t" + std::to_string(t) + "-" + std::to_string(i));
        if (!lsn.ok() || !log->WaitFlushed(*lsn, Durability::kSyncEachCommit).ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  RedoLog::Stats s = log->stats();
  EXPECT_EQ(s.commits_served, uint64_t{kThreads * kCommits});
  EXPECT_GE(s.fsyncs, 1u);
  EXPECT_LE(s.fsyncs, s.commits_served);
  std::printf("group commit: %llu commits, %llu fsyncs, %llu writes, %.2f commits per fsync\n",
              static_cast<unsigned long long>(s.commits_served),
              static_cast<unsigned long long>(s.fsyncs),
              static_cast<unsigned long long>(s.writes),
              static_cast<double>(s.commits_served) / static_cast<double>(s.fsyncs));
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog();
  ASSERT_EQ(recovered.size(), size_t{kThreads * kCommits});
  // Each thread's records recover in its own commit order.
  std::vector<int> next(kThreads, 0);
  for (const std::string& r : recovered) {
    int t = 0, i = 0;
    ASSERT_EQ(std::sscanf(r.c_str(), "t%d-%d", &t, &i), 2);
    EXPECT_EQ(i, next[t]++);
  }
}

TEST_F(RedoLogTest, AModeTwoCommitDoesNotWaitForAnFsyncInProgress) {
  // flush_log_at_trx_commit=2 asks only that the record reach the OS. An
  // fsync in progress (the background flusher's, or the buffer pool's
  // write-ahead flush) can take seconds on a busy disk; commits used to
  // wait for it, since one leader wrote and then synced.
  SlowSyncFileSystem slow(&mem, std::chrono::microseconds(0));
  auto log = OpenLog(NoBackground(), &slow);
  const uint64_t a = MustAppend(log.get(), "flushed up to by the write-ahead rule");
  slow.HoldSyncs();
  std::thread flusher([&] { EXPECT_TRUE(log->FlushUpTo(a).ok()); });
  slow.AwaitHeldSync();

  const uint64_t b = MustAppend(log.get(), "a mode-2 commit");
  std::future<Status> commit =
      std::async(std::launch::async, [&] { return log->WaitFlushed(b, Durability::kWriteEachCommit); });
  // Generous: it needs no fsync at all. Released either way, so that a
  // failure does not hang the test.
  const bool returned = commit.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  EXPECT_TRUE(returned) << "the mode-2 commit waited for the held fsync";
  if (returned) {
    EXPECT_GE(log->written_lsn(), b);
    EXPECT_LT(log->flushed_lsn(), a);  // the fsync is still held
  }
  slow.ReleaseSyncs();
  EXPECT_TRUE(commit.get().ok());
  flusher.join();
  EXPECT_GE(log->flushed_lsn(), a);
}

TEST_F(RedoLogTest, AModeOneCommitWrittenDuringAnFsyncWaitsForAnFsyncThatCoversIt) {
  // While one fsync is in flight, another commit writes its record; that
  // fsync may or may not cover it, so the commit returns only after an
  // fsync that started once its record was written.
  SlowSyncFileSystem slow(&mem, std::chrono::microseconds(0));
  auto log = OpenLog(NoBackground(), &slow);
  const uint64_t a = MustAppend(log.get(), "first");
  slow.HoldSyncs();
  std::thread first([&] { EXPECT_TRUE(log->WaitFlushed(a, Durability::kSyncEachCommit).ok()); });
  slow.AwaitHeldSync();

  const uint64_t b = MustAppend(log.get(), "second");
  std::atomic<bool> second_done{false};
  std::thread second([&] {
    EXPECT_TRUE(log->WaitFlushed(b, Durability::kSyncEachCommit).ok());
    second_done = true;
  });
  while (log->written_lsn() < b) std::this_thread::yield();
  EXPECT_FALSE(second_done.load());
  slow.ReleaseSyncs();
  first.join();
  second.join();
  EXPECT_GE(log->flushed_lsn(), b);
  EXPECT_EQ(log->stats().fsyncs, 2u);

  mem.DropUnsyncedData();
  log.reset();
  log = OpenLog();
  ASSERT_EQ(recovered.size(), 2u);
  EXPECT_EQ(recovered[1], "second");
}

TEST_F(RedoLogTest, NonEmptyControlFileWithoutAValidSlotIsCorruption) {
  ASSERT_TRUE(mem.CreateDir("/data").ok());
  ASSERT_TRUE(mem.CreateDir(kDir).ok());
  auto f = mem.Open(kCtlPath, io::OpenMode::kOpenOrCreate);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->WriteAt(0, std::string(1024, 'z')).ok());
  auto r = RedoLog::Open(&mem, kDir, NoBackground(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
}

// Small segments, so a handful of records spread over several.
RedoLog::Options SmallSegments() {
  RedoLog::Options o;
  o.flush_interval = std::chrono::milliseconds(0);
  o.segment_size = 64;
  return o;
}

std::vector<std::string> SegmentFiles(io::MemFileSystem* mem) {
  std::vector<std::string> out;
  auto names = mem->List(kDir);
  EXPECT_TRUE(names.ok());
  for (const std::string& n : *names) {
    if (n != "redo.ctl") out.push_back(n);
  }
  return out;
}

// Little-endian reads of redo.ctl's fields.
uint64_t GetLE64(const char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}
uint32_t GetLE32(const char* p) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  return v;
}

// Replaces redo.ctl with one slot as written before sealing: magic
// "SLUICECP", seq, checkpoint, and the crc of those 24 bytes.
void WriteSlotFromBeforeSealing(io::MemFileSystem* mem, uint64_t seq, uint64_t checkpoint) {
  char slot[28];
  auto put64 = [&](int at, uint64_t v) {
    for (int i = 0; i < 8; ++i) slot[at + i] = static_cast<char>(v >> (8 * i));
  };
  put64(0, 0x534c554943454350ull);
  put64(8, seq);
  put64(16, checkpoint);
  const uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(slot), 24));
  for (int i = 0; i < 4; ++i) slot[24 + i] = static_cast<char>(crc >> (8 * i));
  auto ctl = mem->Open(kCtlPath, io::OpenMode::kOpenExisting);
  ASSERT_TRUE(ctl.ok());
  ASSERT_TRUE((*ctl)->Truncate(0).ok());
  ASSERT_TRUE((*ctl)->WriteAt(512, std::string_view(slot, sizeof(slot))).ok());
  ASSERT_TRUE((*ctl)->Sync().ok());
}

TEST_F(RedoLogTest, SegmentsRollOverAndRecoveryReadsAcrossThem) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<std::string> written;
  std::vector<uint64_t> ends;
  for (int i = 0; i < 20; ++i) {
    written.push_back("record-" + std::to_string(i) + std::string(i * 3, 'p'));
    ends.push_back(MustAppend(log.get(), written.back()));
    // Each commit is its own write, so the writer sees every boundary.
    ASSERT_TRUE(log->WaitFlushed(ends.back(), Durability::kWriteEachCommit).ok());
  }
  ASSERT_TRUE(log->WaitFlushed(ends.back(), Durability::kSyncEachCommit).ok());
  const std::vector<uint64_t> starts = log->segment_starts();
  ASSERT_GT(starts.size(), 3u);
  EXPECT_EQ(starts.front(), 0u);
  EXPECT_EQ(log->stats().segments_created, starts.size() - 1);
  std::vector<std::string> names;
  for (uint64_t st : starts) names.push_back(RedoLog::SegmentName(st));
  EXPECT_EQ(SegmentFiles(&mem), names);
  // Every segment starts at a record boundary.
  for (uint64_t st : starts) {
    EXPECT_TRUE(st == 0 || std::find(ends.begin(), ends.end(), st) != ends.end()) << st;
  }
  mem.DropUnsyncedData();  // the last sync covered every segment
  log.reset();

  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, written);
  EXPECT_EQ(recovered_lsns, ends);
  EXPECT_EQ(log->current_lsn(), ends.back());
  EXPECT_EQ(log->segment_starts(), starts);
}

TEST_F(RedoLogTest, ACheckpointRemovesTheSegmentsWhollyBeforeIt) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<uint64_t> ends;
  for (int i = 0; i < 20; ++i) {
    ends.push_back(MustAppend(log.get(), "r" + std::to_string(i) + std::string(20, 'c')));
    ASSERT_TRUE(log->WaitFlushed(ends.back(), Durability::kSyncEachCommit).ok());
  }
  const std::vector<uint64_t> before = log->segment_starts();
  ASSERT_GT(before.size(), 4u);
  // A checkpoint inside the third segment: the first two go, the third
  // (which holds the checkpoint) stays.
  const uint64_t third = before[2];
  const uint64_t ckpt = *std::find_if(ends.begin(), ends.end(), [&](uint64_t e) { return e > third; });
  ASSERT_LT(ckpt, before[3]);
  ASSERT_TRUE(log->Checkpoint(ckpt).ok());
  const std::vector<uint64_t> after(before.begin() + 2, before.end());
  EXPECT_EQ(log->segment_starts(), after);
  EXPECT_EQ(log->stats().segments_removed, 2u);
  std::vector<std::string> names;
  for (uint64_t st : after) names.push_back(RedoLog::SegmentName(st));
  EXPECT_EQ(SegmentFiles(&mem), names);
  // A checkpoint exactly at a segment's start removes everything before it.
  ASSERT_TRUE(log->Checkpoint(before[3]).ok());
  EXPECT_EQ(log->segment_starts().front(), before[3]);
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  const size_t first_after = std::find(ends.begin(), ends.end(), before[3]) - ends.begin() + 1;
  ASSERT_EQ(recovered.size(), ends.size() - first_after);
  EXPECT_EQ(recovered.front(), "r" + std::to_string(first_after) + std::string(20, 'c'));
  EXPECT_EQ(log->current_lsn(), ends.back());
  // Appending goes on in the last segment and survives.
  uint64_t more = MustAppend(log.get(), "more");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered.back(), "more");
  EXPECT_EQ(log->current_lsn(), more);
}

TEST_F(RedoLogTest, ADamagedRecordInAnEarlierSegmentIsCorruptionNotATornTail) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  for (int i = 0; i < 10; ++i) {
    uint64_t e = MustAppend(log.get(), "rec" + std::to_string(i) + std::string(30, 'd'));
    ASSERT_TRUE(log->WaitFlushed(e, Durability::kSyncEachCommit).ok());
  }
  ASSERT_GT(log->segment_starts().size(), 2u);
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  {
    auto f = mem.Open(kLogPath, io::OpenMode::kOpenExisting);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->WriteAt(RedoLog::kRecordHeaderSize + 1, "X").ok());
    ASSERT_TRUE((*f)->Sync().ok());
  }
  auto r = RedoLog::Open(&mem, kDir, SmallSegments(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("later segments follow"), std::string::npos) << r.status().ToString();
}

TEST_F(RedoLogTest, AnEmptySegmentLeftByACrashAtRolloverIsWhereAppendingGoesOn) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  uint64_t a = MustAppend(log.get(), std::string(80, 'a'));  // fills the first segment
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  // The crash came after the next segment was created, before its write.
  ASSERT_TRUE(mem.Open(std::string(kDir) + "/" + RedoLog::SegmentName(a), io::OpenMode::kCreateNew).ok());
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, (std::vector<std::string>{std::string(80, 'a')}));
  EXPECT_EQ(log->segment_starts(), (std::vector<uint64_t>{0, a}));
  uint64_t b = MustAppend(log.get(), "b");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, (std::vector<std::string>{std::string(80, 'a'), "b"}));
  EXPECT_EQ(log->current_lsn(), b);
}

TEST_F(RedoLogTest, ASealedSegmentThatDoesNotEndWhereTheNextStartsIsCorruption) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  uint64_t a = MustAppend(log.get(), std::string(80, 'a'));  // fills the first segment
  ASSERT_TRUE(log->WaitFlushed(a, Durability::kWriteEachCommit).ok());
  uint64_t b = MustAppend(log.get(), "b");  // starts the second
  ASSERT_TRUE(log->WaitFlushed(b, Durability::kSyncEachCommit).ok());  // seals the first
  ASSERT_EQ(log->segment_starts(), (std::vector<uint64_t>{0, a}));
  log.reset();
  {
    auto f = mem.Open(kLogPath, io::OpenMode::kOpenExisting);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Truncate(a - 5).ok());
    ASSERT_TRUE((*f)->Sync().ok());
  }
  auto r = RedoLog::Open(&mem, kDir, SmallSegments(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption()) << r.status().ToString();
  EXPECT_NE(r.status().ToString().find("but the next segment starts at"), std::string::npos)
      << r.status().ToString();
}

TEST_F(RedoLogTest, AGapAfterTheSealedSegmentsEndsTheLogAndTheSegmentsAfterItGo) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  uint64_t a = MustAppend(log.get(), std::string(80, 'a'));
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  // A segment no sync reached: its predecessor's end is not its start.
  ASSERT_TRUE(
      mem.Open(std::string(kDir) + "/" + RedoLog::SegmentName(a + 5), io::OpenMode::kCreateNew).ok());
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, (std::vector<std::string>{std::string(80, 'a')}));
  EXPECT_EQ(log->current_lsn(), a);
  EXPECT_EQ(log->segment_starts(), (std::vector<uint64_t>{0}));
  EXPECT_EQ(SegmentFiles(&mem), (std::vector<std::string>{RedoLog::SegmentName(0)}));
}

// Rollovers with commits that need only their write (mode 2): no fsync
// at all, so a crash before the next sync takes every segment back to what
// the last sync left, and recovery ends the log at the first gap.
TEST_F(RedoLogTest, ARolloverDoesNotFsyncAndACrashBeforeTheNextSyncEndsTheLogAtItsLastSync) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<std::string> written;
  std::vector<uint64_t> ends;
  auto commit = [&](Durability d) {
    written.push_back("r" + std::to_string(written.size()) + std::string(25, 'x'));
    ends.push_back(MustAppend(log.get(), written.back()));
    ASSERT_TRUE(log->WaitFlushed(ends.back(), d).ok());
  };
  for (int i = 0; i < 2; ++i) commit(Durability::kWriteEachCommit);
  commit(Durability::kSyncEachCommit);  // the sync point: inside the second segment
  const size_t synced = written.size();
  const std::vector<uint64_t> at_sync = log->segment_starts();
  ASSERT_EQ(at_sync.size(), 2u);
  const uint64_t syncs = mem.op_count(io::MemFileSystem::Op::kSync);
  const uint64_t dir_syncs = mem.op_count(io::MemFileSystem::Op::kSyncDir);
  for (int i = 0; i < 10; ++i) commit(Durability::kWriteEachCommit);
  ASSERT_GT(log->segment_starts().size(), at_sync.size() + 2);
  EXPECT_EQ(mem.op_count(io::MemFileSystem::Op::kSync), syncs);
  EXPECT_EQ(mem.op_count(io::MemFileSystem::Op::kSyncDir), dir_syncs);
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, std::vector<std::string>(written.begin(), written.begin() + synced));
  EXPECT_EQ(log->current_lsn(), ends[synced - 1]);
  EXPECT_EQ(log->segment_starts(), at_sync);
  std::vector<std::string> names;
  for (uint64_t st : at_sync) names.push_back(RedoLog::SegmentName(st));
  EXPECT_EQ(SegmentFiles(&mem), names);
  // Appending goes on after the recovered end, and a crash after its sync
  // keeps it.
  uint64_t more = MustAppend(log.get(), "more");
  ASSERT_TRUE(log->WaitFlushed(more, Durability::kSyncEachCommit).ok());
  mem.DropUnsyncedData();
  log.reset();
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  ASSERT_EQ(recovered.size(), synced + 1);
  EXPECT_EQ(recovered.back(), "more");
  EXPECT_EQ(log->current_lsn(), more);
}

// One sync after several rollovers makes all of them durable, and seals the
// full segments: damage in one of them is Corruption, not the end of the log.
TEST_F(RedoLogTest, ASyncAfterRolloversCoversEveryFullSegmentAndSealsThem) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<std::string> written;
  uint64_t end = 0;
  for (int i = 0; i < 12; ++i) {
    written.push_back("s" + std::to_string(i) + std::string(30, 'y'));
    end = MustAppend(log.get(), written.back());
    ASSERT_TRUE(log->WaitFlushed(end, Durability::kWriteEachCommit).ok());
  }
  const std::vector<uint64_t> starts = log->segment_starts();
  ASSERT_GT(starts.size(), 3u);
  ASSERT_TRUE(log->FlushUpTo(end).ok());
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, written);
  EXPECT_EQ(log->segment_starts(), starts);
  log.reset();
  ExpectCorruptionOnceDamaged(starts[1]);
}

// Whole segments that recovery finds past the sealed one (written, never
// synced, but still in the page cache after a crash of the process alone)
// are fsynced and sealed at Open: a later power loss keeps them.
TEST_F(RedoLogTest, WholeSegmentsPastTheSealedOneAreSealedAtOpen) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<std::string> written;
  std::vector<uint64_t> ends;
  for (int i = 0; i < 10; ++i) {
    written.push_back("w" + std::to_string(i) + std::string(30, 'z'));
    ends.push_back(MustAppend(log.get(), written.back()));
    ASSERT_TRUE(log->WaitFlushed(ends.back(), Durability::kWriteEachCommit).ok());
  }
  const std::vector<uint64_t> starts = log->segment_starts();
  ASSERT_GT(starts.size(), 3u);
  log.reset();  // the process dies; the page cache keeps what it wrote

  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, written);
  EXPECT_EQ(log->segment_starts(), starts);
  log.reset();
  mem.DropUnsyncedData();  // and now the machine loses power
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  // The full segments are all there; the last one, as ever, only as far
  // as a sync took it.
  const size_t in_full = std::find(ends.begin(), ends.end(), starts.back()) - ends.begin() + 1;
  ASSERT_LT(in_full, written.size());
  EXPECT_EQ(recovered, std::vector<std::string>(written.begin(), written.begin() + in_full));
  log.reset();
  // They are sealed: damage in one is Corruption.
  ExpectCorruptionOnceDamaged(starts[1]);
}

// A control file written before sealing (magic "SLUICECP", 24-byte slot):
// its writer synced every full segment at once, so they all count as
// sealed, and its checkpoint is where recovery starts.
TEST_F(RedoLogTest, AControlSlotFromBeforeSealingCountsEverySegmentButTheLastAsSealed) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<uint64_t> ends;
  for (int i = 0; i < 10; ++i) {
    ends.push_back(MustAppend(log.get(), "v" + std::to_string(i) + std::string(30, 'v')));
    ASSERT_TRUE(log->WaitFlushed(ends.back(), Durability::kSyncEachCommit).ok());
  }
  ASSERT_GT(log->segment_starts().size(), 3u);
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  WriteSlotFromBeforeSealing(&mem, 7, ends[0]);
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered.size(), ends.size() - 1);
  EXPECT_EQ(log->checkpoint_lsn(), ends[0]);
  EXPECT_EQ(log->current_lsn(), ends.back());
  const std::vector<uint64_t> starts = log->segment_starts();
  log.reset();
  ExpectCorruptionOnceDamaged(starts[1]);
}

// A version from before sealing reads a slot's first 28 bytes only: magic,
// seq, checkpoint and their crc. Every slot this version writes keeps that
// form, so such a version still finds the checkpoint.
TEST_F(RedoLogTest, EverySlotKeepsTheFormAVersionFromBeforeSealingReads) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  uint64_t end = 0;
  for (int i = 0; i < 8; ++i) {
    end = MustAppend(log.get(), "k" + std::to_string(i) + std::string(30, 'k'));
    ASSERT_TRUE(log->WaitFlushed(end, Durability::kSyncEachCommit).ok());
  }
  ASSERT_TRUE(log->Checkpoint(end).ok());
  log.reset();
  auto ctl = mem.Open(kCtlPath, io::OpenMode::kOpenExisting);
  ASSERT_TRUE(ctl.ok());
  std::string buf(1024, '\0');
  ASSERT_TRUE((*ctl)->ReadAt(0, buf.data(), buf.size()).ok());
  uint64_t best_seq = 0, best_ckpt = 0;
  for (size_t off : {size_t{0}, size_t{512}}) {
    const char* p = buf.data() + off;
    EXPECT_EQ(GetLE64(p), 0x534c554943454350ull) << off;
    EXPECT_EQ(GetLE32(p + 24), static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(p), 24))) << off;
    if (GetLE64(p + 8) > best_seq) {
      best_seq = GetLE64(p + 8);
      best_ckpt = GetLE64(p + 16);
    }
  }
  EXPECT_EQ(best_ckpt, end);
}

// A sealing write torn past its first crc leaves a slot with the newest seq
// and no sealed LSN. Read as from before sealing, it would call every
// segment but the last sealed, and a crash that caught rollovers before
// their sync would read as Corruption; the other slot's sealed LSN (older,
// so no larger) is used instead.
TEST_F(RedoLogTest, ASlotWhoseSealedLsnDidNotLandFallsBackToTheOtherSlots) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<std::string> written;
  auto commit = [&](Durability d) {
    written.push_back("t" + std::to_string(written.size()) + std::string(30, 't'));
    ASSERT_TRUE(log->WaitFlushed(MustAppend(log.get(), written.back()), d).ok());
  };
  for (int i = 0; i < 6; ++i) commit(Durability::kSyncEachCommit);  // seals, in both slots
  const size_t synced = written.size();
  for (int i = 0; i < 6; ++i) commit(Durability::kWriteEachCommit);  // rollovers, no sync
  mem.DropUnsyncedData();
  log.reset();
  {
    auto ctl = mem.Open(kCtlPath, io::OpenMode::kOpenExisting);
    ASSERT_TRUE(ctl.ok());
    std::string buf(1024, '\0');
    ASSERT_TRUE((*ctl)->ReadAt(0, buf.data(), buf.size()).ok());
    ASSERT_NE(GetLE64(buf.data() + 8), GetLE64(buf.data() + 512 + 8));
    const uint64_t newest = GetLE64(buf.data() + 8) > GetLE64(buf.data() + 512 + 8) ? 0 : 512;
    ASSERT_TRUE((*ctl)->WriteAt(newest + 30, "\xff").ok());  // inside the sealed LSN
    ASSERT_TRUE((*ctl)->Sync().ok());
  }
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, std::vector<std::string>(written.begin(), written.begin() + synced));
}

// The slot from before sealing says every segment but the last is sealed.
// Open replaces it, so a rollover that a crash catches before its sync is
// the end of the log, not Corruption.
TEST_F(RedoLogTest, AControlSlotFromBeforeSealingIsReplacedAtOpen) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<std::string> written;
  uint64_t end = 0;
  for (int i = 0; i < 4; ++i) {
    written.push_back("o" + std::to_string(i) + std::string(30, 'o'));
    end = MustAppend(log.get(), written.back());
    ASSERT_TRUE(log->WaitFlushed(end, Durability::kSyncEachCommit).ok());
  }
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  WriteSlotFromBeforeSealing(&mem, 3, 0);
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  ASSERT_EQ(recovered, written);
  // Rollovers, no sync, and a crash.
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(
        log->WaitFlushed(MustAppend(log.get(), std::string(30, 'n')), Durability::kWriteEachCommit).ok());
  }
  mem.DropUnsyncedData();
  log.reset();
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(recovered, written);
  EXPECT_EQ(log->current_lsn(), end);
}

TEST_F(RedoLogTest, SegmentsLeftBeforeTheCheckpointAreRemovedAtOpen) {
  auto log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  std::vector<uint64_t> ends;
  for (int i = 0; i < 8; ++i) {
    ends.push_back(MustAppend(log.get(), std::string(40, static_cast<char>('a' + i))));
    ASSERT_TRUE(log->WaitFlushed(ends.back(), Durability::kSyncEachCommit).ok());
  }
  const std::vector<uint64_t> starts = log->segment_starts();
  ASSERT_GT(starts.size(), 3u);
  ASSERT_TRUE(log->Checkpoint(starts[2]).ok());
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  // As if the checkpoint's removals had not reached the disk.
  ASSERT_TRUE(mem.Open(std::string(kDir) + "/" + RedoLog::SegmentName(starts[0]),
                       io::OpenMode::kCreateNew).ok());
  log = OpenLog(SmallSegments());
  ASSERT_NE(log, nullptr);
  EXPECT_EQ(log->segment_starts().front(), starts[2]);
  EXPECT_EQ(SegmentFiles(&mem).front(), RedoLog::SegmentName(starts[2]));
  EXPECT_EQ(log->current_lsn(), ends.back());
}

TEST_F(RedoLogTest, ALogFromBeforeSegmentsIsRenamedToTheFirstSegment) {
  auto log = OpenLog();
  uint64_t a = MustAppend(log.get(), "old-format");
  ASSERT_TRUE(log->Close().ok());
  log.reset();
  ASSERT_TRUE(mem.Rename(kLogPath, std::string(kDir) + "/redo.log").ok());
  log = OpenLog();
  EXPECT_EQ(recovered, (std::vector<std::string>{"old-format"}));
  EXPECT_EQ(log->current_lsn(), a);
  EXPECT_EQ(SegmentFiles(&mem), (std::vector<std::string>{"redo.0000000000000000"}));
}

// Committers, small segments rolling over under them, and a checkpointer
// removing segments meanwhile: every commit after the last checkpoint
// recovers, and the files on disk are only the segments still needed.
TEST_F(RedoLogTest, SegmentsRollAndGoWhileCommittersAndACheckpointerRun) {
  RedoLog::Options o = SmallSegments();
  o.segment_size = 512;
  auto log = OpenLog(o);
  constexpr int kThreads = 6;
  constexpr int kCommits = 200;
  // The committers go on past kCommits until the checkpointer has removed a
  // segment: on two cores it may not get a turn before 6 x 200 commits are
  // done, and the test is that segments go while commits go on.
  constexpr int kMaxCommits = 200000;
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::vector<std::vector<std::pair<uint64_t, std::string>>> committed(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kCommits || (log->stats().segments_removed == 0 && i < kMaxCommits); ++i) {
        std::string p = "t" + std::to_string(t) + "-" + std::to_string(i);
        Result<uint64_t> lsn = log->Append(p);
        if (!lsn.ok() || !log->WaitFlushed(*lsn, Durability::kSyncEachCommit).ok()) ++failures;
        if (lsn.ok()) committed[t].emplace_back(*lsn, p);
      }
    });
  }
  std::thread checkpointer([&] {
    while (!done.load()) {
      const uint64_t lsn = log->flushed_lsn();
      if (lsn > log->checkpoint_lsn() && !log->Checkpoint(lsn).ok()) ++failures;
      std::this_thread::yield();
    }
  });
  for (auto& th : threads) th.join();
  done.store(true);
  checkpointer.join();
  EXPECT_EQ(failures.load(), 0);
  const uint64_t ckpt = log->checkpoint_lsn();
  EXPECT_GT(log->stats().segments_created, 5u);
  EXPECT_GT(log->stats().segments_removed, 0u);
  std::vector<std::string> names;
  for (uint64_t st : log->segment_starts()) names.push_back(RedoLog::SegmentName(st));
  EXPECT_EQ(SegmentFiles(&mem), names);
  EXPECT_LE(log->segment_starts().front(), ckpt);
  mem.DropUnsyncedData();
  log.reset();

  log = OpenLog(o);
  std::set<std::string> want;
  for (const auto& per_thread : committed) {
    for (const auto& [end, p] : per_thread) {
      if (end > ckpt) want.insert(p);
    }
  }
  EXPECT_EQ(std::set<std::string>(recovered.begin(), recovered.end()), want);
  EXPECT_EQ(recovered.size(), want.size());
}

}  // namespace
}  // namespace sluice::storage
