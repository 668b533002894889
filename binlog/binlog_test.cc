#include "binlog/binlog.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "binlog/file_reader.h"

namespace sluice::binlog {
namespace {

namespace fs = std::filesystem;

class BinlogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sluice_binlog_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Binlog::Options Opts() {
    Binlog::Options o;
    o.dir = dir_.string();
    o.server_id = 7;
    o.server_uuid = *Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562");
    return o;
  }

  std::unique_ptr<Binlog> OpenStarted(Binlog::Options o, Binlog::RecoveryInfo* ri = nullptr) {
    auto b = Binlog::Open(o, ri);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_TRUE((*b)->StartWriting().ok());
    return std::move(b).value();
  }

  // A transaction: BEGIN, Xid.
  static void FillTrx(TransactionCache& c, uint64_t xid, Checksum cs = Checksum::kCrc32) {
    c.set_checksum(cs);
    EventHeader h;
    h.type = kQueryEvent;
    h.server_id = 7;
    QueryInfo q;
    q.query = "BEGIN";
    ASSERT_TRUE(c.Append(EncodeQuery(h, q, cs)).ok());
    h.type = kXidEvent;
    ASSERT_TRUE(c.Append(EncodeXid(h, xid, cs)).ok());
  }

  // `threads` threads each commit `per_thread` transactions, Xid (and,
  // with `marks`, engine flush mark) t * 1000 + i + 1; `after` sees each
  // result before its CommitDone.
  static void CommitFromThreads(Binlog& b, int threads, int per_thread, bool marks,
                                const std::function<void(const Binlog::CommitResult&)>& after = {}) {
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t) {
      ts.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          TransactionCache c;
          const uint64_t n = static_cast<uint64_t>(t * 1000 + i + 1);
          FillTrx(c, n);
          Binlog::CommitResult written;
          ASSERT_TRUE(b.Commit(c, 1, &written, marks ? n : 0).ok());
          if (after) after(written);
          b.CommitDone();
        }
      });
    }
    for (auto& th : ts) th.join();
  }

  // Every event of a file, checking each log_pos is its end offset.
  std::vector<BinlogFileReader::Event> ReadAll(const std::string& name) {
    auto r = BinlogFileReader::Open((dir_ / name).string());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<BinlogFileReader::Event> out;
    if (!r.ok()) return out;
    while (true) {
      auto ev = (*r)->Next();
      EXPECT_TRUE(ev.ok()) << ev.status().ToString();
      if (!ev.ok() || !ev->has_value()) break;
      EXPECT_EQ((*ev)->header.log_pos, (*ev)->offset + (*ev)->bytes.size());
      out.push_back(std::move(**ev));
    }
    return out;
  }

  fs::path dir_;
};

TEST(BinlogReaderWakeTest, TheNotifierPausesLongerTheMoreReadersItWoke) {
  using std::chrono::microseconds;
  // A few readers see a group soon; many are woken less often, so what
  // their wake-ups cost a second stays bounded; never longer than the cap.
  EXPECT_EQ(Binlog::ReaderWakeInterval(0), microseconds(500));
  EXPECT_EQ(Binlog::ReaderWakeInterval(1), microseconds(500));
  EXPECT_EQ(Binlog::ReaderWakeInterval(4), microseconds(1000));
  EXPECT_EQ(Binlog::ReaderWakeInterval(8), microseconds(2000));
  EXPECT_EQ(Binlog::ReaderWakeInterval(40), microseconds(10000));
  EXPECT_EQ(Binlog::ReaderWakeInterval(1000), microseconds(10000));
  EXPECT_EQ(Binlog::ReaderWakeInterval(-1), microseconds(500));
}

TEST(TransactionCacheTest, SpillsTruncatesAndReadsBackWholeEvents) {
  TransactionCache c;
  c.set_limits(100, 10000);
  c.set_checksum(Checksum::kCrc32);
  EventHeader h;
  h.type = kXidEvent;
  std::string ev = EncodeXid(h, 1, Checksum::kCrc32);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c.Append(ev).ok());
  EXPECT_FALSE(c.spilled());
  const uint64_t mark = c.size();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(c.Append(ev).ok());
  EXPECT_TRUE(c.spilled());
  EXPECT_EQ(c.size(), 13 * ev.size());
  ASSERT_TRUE(c.Truncate(mark + ev.size()).ok());
  std::string all;
  ASSERT_TRUE(c.ForEachChunk([&](std::string_view chunk) {
                 all.append(chunk);
                 return Status::OK();
               }).ok());
  EXPECT_EQ(all.size(), 4 * ev.size());
  EXPECT_EQ(all.substr(0, ev.size()), ev);
  c.Clear();
  EXPECT_TRUE(c.empty());
  EXPECT_FALSE(c.spilled());
}

TEST(TransactionCacheTest, MaxBinlogCacheSizeIs1197) {
  TransactionCache c;
  c.set_limits(4096, 50);
  EventHeader h;
  h.type = kXidEvent;
  std::string ev = EncodeXid(h, 1, Checksum::kCrc32);
  ASSERT_TRUE(c.Append(ev).ok());
  Status s = c.Append(ev);
  EXPECT_EQ(s.mysql_errno(), 1197);
}

TEST_F(BinlogTest, FirstFileHasHeaderAndIndex) {
  auto b = OpenStarted(Opts());
  auto files = b->ListFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].name, "binlog.000001");
  EXPECT_EQ(files[0].size, 157u);  // 4 + FDE 122 + empty Previous_gtids 31
  std::ifstream index(dir_ / "binlog.index");
  std::string line;
  std::getline(index, line);
  EXPECT_EQ(line, "./binlog.000001");
  auto [file, pos] = b->CurrentPosition();
  EXPECT_EQ(file, "binlog.000001");
  EXPECT_EQ(pos, 157u);
}

TEST_F(BinlogTest, CommitWritesGtidAndAdvancesGtidExecuted) {
  auto b = OpenStarted(Opts());
  for (uint64_t i = 1; i <= 3; ++i) {
    TransactionCache c;
    FillTrx(c, i);
    Binlog::CommitResult r;
    ASSERT_TRUE(b->Commit(c, 1700000000, &r).ok());
    b->CommitDone();
    EXPECT_EQ(r.gtid(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:" + std::to_string(i));
    EXPECT_EQ(r.file, "binlog.000001");
    EXPECT_EQ(r.end, b->CurrentPosition().second);
  }
  EXPECT_EQ(b->gtid_executed().ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-3");
  ASSERT_TRUE(b->Close().ok());
  auto events = ReadAll("binlog.000001");
  // FDE, Previous_gtids, 3 x (Gtid, Query, Xid), Stop.
  ASSERT_EQ(events.size(), 12u);
  EXPECT_EQ(events[2].header.type, kGtidEvent);
  auto g = DecodeGtid(events[5].bytes, Checksum::kCrc32);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->gno, 2);
  EXPECT_EQ(g->sequence_number, 2);
  EXPECT_LT(g->last_committed, g->sequence_number);
  EXPECT_EQ(g->transaction_length, events[5].bytes.size() + events[6].bytes.size() + events[7].bytes.size());
  EXPECT_EQ(events.back().header.type, kStopEvent);
  EXPECT_EQ(events[0].header.flags & kLogEventBinlogInUse, 0);  // closed cleanly
}

// Events appended without a CRC (as a session's are) are written with
// one, the same bytes as the same events built with their CRC, also when the
// cache spilled to its temporary file.
TEST_F(BinlogTest, EventsCachedWithoutCrcAreWrittenWithTheirCrc) {
  auto b = OpenStarted(Opts());
  EventHeader h;
  h.server_id = 7;
  QueryInfo q;
  q.query = "BEGIN";
  for (bool spill : {false, true}) {
    for (bool deferred : {false, true}) {
      TransactionCache c;
      c.set_checksum(Checksum::kCrc32);
      if (spill) c.set_limits(/*cache_size=*/16, /*max_size=*/1 << 20);
      h.type = kQueryEvent;
      const Checksum built = deferred ? Checksum::kOff : Checksum::kCrc32;
      auto append = [&](const std::string& ev) { return deferred ? c.AppendWithoutCrc(ev) : c.Append(ev); };
      ASSERT_TRUE(append(EncodeQuery(h, q, built)).ok());
      h.type = kXidEvent;
      ASSERT_TRUE(append(EncodeXid(h, 42, built)).ok());
      EXPECT_EQ(c.size(), EncodeQuery(h, q, Checksum::kCrc32).size() + EncodeXid(h, 42, Checksum::kCrc32).size());
      EXPECT_EQ(c.spilled(), spill);
      ASSERT_TRUE(b->Commit(c, 1700000000).ok());
      b->CommitDone();
    }
  }
  ASSERT_TRUE(b->Close().ok());
  auto events = ReadAll("binlog.000001");  // every CRC checked
  // FDE, Previous_gtids, 4 x (Gtid, Query, Xid), Stop.
  ASSERT_EQ(events.size(), 15u);
  for (size_t pair = 0; pair < 2; ++pair) {
    for (size_t i = 1; i < 3; ++i) {
      const auto& with = events[2 + pair * 6 + i];
      const auto& without = events[2 + pair * 6 + 3 + i];
      // The same body; the header's log_pos and so the CRC differ.
      auto body = [](const std::string& ev) { return ev.substr(kHeaderLen, ev.size() - kHeaderLen - kChecksumLen); };
      EXPECT_EQ(body(with.bytes), body(without.bytes));
      EXPECT_EQ(with.bytes.size(), without.bytes.size());
    }
  }
}

TEST_F(BinlogTest, RestartStartsANewFileAndKeepsGtids) {
  {
    auto b = OpenStarted(Opts());
    TransactionCache c;
    FillTrx(c, 1);
    ASSERT_TRUE(b->Commit(c, 1).ok());
    b->CommitDone();
  }
  Binlog::RecoveryInfo ri;
  auto b = OpenStarted(Opts(), &ri);
  EXPECT_FALSE(ri.crashed);
  EXPECT_EQ(b->ListFiles().size(), 2u);
  EXPECT_EQ(b->gtid_executed().ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1");
  TransactionCache c;
  FillTrx(c, 1);
  Binlog::CommitResult r;
  ASSERT_TRUE(b->Commit(c, 1, &r).ok());
  b->CommitDone();
  EXPECT_EQ(r.gtid(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:2");
  EXPECT_EQ(r.file, "binlog.000002");
  ASSERT_TRUE(b->Close().ok());
  auto events = ReadAll("binlog.000002");
  auto prev = DecodePreviousGtids(events[1].bytes, Checksum::kCrc32);
  ASSERT_TRUE(prev.ok());
  EXPECT_EQ(prev->ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1");
}

TEST_F(BinlogTest, RecoveryTruncatesAPartialTransactionAndReportsXids) {
  uint64_t good_end = 0;
  {
    auto b = OpenStarted(Opts());
    for (uint64_t x : {11, 12}) {
      TransactionCache c;
      FillTrx(c, x);
      ASSERT_TRUE(b->Commit(c, 1).ok());
      b->CommitDone();
    }
    good_end = b->CurrentPosition().second;
    // A crash: no Close (the destructor would close), so append garbage
    // of a half-written transaction by hand and leak the object.
    TransactionCache c;
    FillTrx(c, 13);
    ASSERT_TRUE(b->Commit(c, 1).ok());
    b->CommitDone();
    (void)b.release();  // simulate a crash: no Stop event, in-use flag stays
  }
  const auto path = dir_ / "binlog.000001";
  // Cut the last transaction in half.
  const auto size = fs::file_size(path);
  fs::resize_file(path, size - 10);
  Binlog::RecoveryInfo ri;
  auto b = Binlog::Open(Opts(), &ri);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(ri.crashed);
  EXPECT_EQ(ri.xids, (std::set<uint64_t>{11, 12}));
  EXPECT_EQ(fs::file_size(path), good_end);
  EXPECT_EQ((*b)->gtid_executed().ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2");
  EXPECT_GT((*b)->NextXid(), 12u);
  ASSERT_TRUE((*b)->StartWriting().ok());
  auto events = ReadAll("binlog.000001");
  EXPECT_EQ(events[0].header.flags & kLogEventBinlogInUse, 0);  // cleared at start
}

TEST_F(BinlogTest, RotationAtMaxSizeAndPurge) {
  Binlog::Options o = Opts();
  o.max_size = 4096;
  auto b = OpenStarted(o);
  for (uint64_t i = 1; i <= 100; ++i) {
    TransactionCache c;
    FillTrx(c, i);
    ASSERT_TRUE(b->Commit(c, 1).ok());
    b->CommitDone();
  }
  auto files = b->ListFiles();
  ASSERT_GE(files.size(), 3u);
  for (size_t i = 0; i + 1 < files.size(); ++i) {
    EXPECT_GE(files[i].size, 4096u);
    auto events = ReadAll(files[i].name);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().header.type, kRotateEvent);
    auto rot = DecodeRotate(events.back().bytes, Checksum::kCrc32);
    ASSERT_TRUE(rot.ok());
    EXPECT_EQ(rot->next_file, files[i + 1].name);
  }
  ASSERT_TRUE(b->Rotate().ok());
  EXPECT_EQ(b->ListFiles().size(), files.size() + 1);
  EXPECT_EQ(b->PurgeTo("binlog.999999").mysql_errno(), 1373);
  ASSERT_TRUE(b->PurgeTo(files[2].name).ok());
  auto left = b->ListFiles();
  EXPECT_EQ(left.front().name, files[2].name);
  EXPECT_FALSE(fs::exists(dir_ / files[0].name));
  EXPECT_FALSE(b->gtid_purged().empty());
  EXPECT_TRUE(b->gtid_executed().Contains(b->gtid_purged()));
  // Sequence numbers restart in each file.
  auto events = ReadAll(left.back().name);
  ASSERT_TRUE(b->Reset().ok());
  EXPECT_EQ(b->ListFiles().size(), 1u);
  EXPECT_EQ(b->ListFiles()[0].name, "binlog.000001");
  EXPECT_TRUE(b->gtid_executed().empty());
}

TEST_F(BinlogTest, ExpiredFilesArePurgedAtRotation) {
  auto b = OpenStarted(Opts());
  for (int i = 0; i < 3; ++i) {
    TransactionCache c;
    FillTrx(c, static_cast<uint64_t>(i + 1));
    ASSERT_TRUE(b->Commit(c, 1).ok());
    b->CommitDone();
    ASSERT_TRUE(b->Rotate().ok());
  }
  auto files = b->ListFiles();
  ASSERT_EQ(files.size(), 4u);
  // The first two files were last written two days ago.
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(48);
  fs::last_write_time(dir_ / files[0].name, old);
  fs::last_write_time(dir_ / files[1].name, old);
  b->set_expire_seconds(3600);
  ASSERT_TRUE(b->Rotate().ok());
  auto left = b->ListFiles();
  ASSERT_EQ(left.size(), 3u);
  EXPECT_EQ(left.front().name, files[2].name);
  EXPECT_EQ(b->gtid_purged().ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-2");
}

TEST_F(BinlogTest, ChecksumNoneFilesAndCachesBuiltWithTheOther) {
  Binlog::Options o = Opts();
  o.checksum = Checksum::kOff;
  o.gtid_mode = false;
  auto b = OpenStarted(o);
  TransactionCache c;
  FillTrx(c, 5, Checksum::kCrc32);  // built before a checksum change
  ASSERT_TRUE(b->Commit(c, 1).ok());
  b->CommitDone();
  ASSERT_TRUE(b->Close().ok());
  auto events = ReadAll("binlog.000001");
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[2].header.type, kAnonymousGtidEvent);
  auto x = DecodeXid(events[4].bytes, Checksum::kOff);
  ASSERT_TRUE(x.ok());
  EXPECT_EQ(*x, 5u);
}

TEST_F(BinlogTest, ConcurrentCommittersShareGroupsAndFsyncs) {
  auto b = OpenStarted(Opts());
  constexpr int kThreads = 16, kPerThread = 50;
  CommitFromThreads(*b, kThreads, kPerThread, /*marks=*/false);
  Binlog::Stats s = b->stats();
  EXPECT_EQ(s.commits, static_cast<uint64_t>(kThreads * kPerThread));
  EXPECT_LE(s.groups, s.commits);
  EXPECT_EQ(s.syncs, s.groups);  // sync_binlog=1
  EXPECT_EQ(b->gtid_executed().ToString(), "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-800");
  ASSERT_TRUE(b->Close().ok());
  auto events = ReadAll("binlog.000001");
  // GNOs appear in order; last_committed < sequence_number.
  int64_t gno = 0;
  for (const auto& e : events) {
    if (e.header.type != kGtidEvent) continue;
    auto g = DecodeGtid(e.bytes, Checksum::kCrc32);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g->gno, ++gno);
    EXPECT_LT(g->last_committed, g->sequence_number);
  }
  EXPECT_EQ(gno, kThreads * kPerThread);
}

// The flush stage makes the engine's prepare records durable once per
// group, with the group's largest mark, before it writes the group; a
// failure there fails the group and writes nothing.
TEST_F(BinlogTest, TheGroupLeaderFlushesTheEngineOncePerGroupBeforeWriting) {
  struct Flush : EngineFlush {
    std::atomic<int> calls{0};
    std::atomic<uint64_t> max_mark{0};
    std::atomic<bool> fail{false};
    Status FlushUpTo(uint64_t mark) override {
      calls.fetch_add(1);
      uint64_t m = max_mark.load();
      while (mark > m && !max_mark.compare_exchange_weak(m, mark)) {
      }
      if (fail.load()) return Status::IOError("redo fsync failed");
      return Status::OK();
    }
  } flush;
  auto b = OpenStarted(Opts());
  b->set_engine_flush(&flush);
  ASSERT_TRUE(b->flushes_engine());
  constexpr int kThreads = 8, kPerThread = 40;
  CommitFromThreads(*b, kThreads, kPerThread, /*marks=*/true);
  const Binlog::Stats s = b->stats();
  EXPECT_EQ(flush.calls.load(), static_cast<int>(s.groups));  // one per group, however large
  EXPECT_EQ(flush.max_mark.load(), static_cast<uint64_t>((kThreads - 1) * 1000 + kPerThread));

  // A transaction without a mark (an XA COMMIT: prepared earlier) costs no flush.
  {
    TransactionCache c;
    FillTrx(c, 99999);
    ASSERT_TRUE(b->Commit(c, 1).ok());
    b->CommitDone();
    EXPECT_EQ(flush.calls.load(), static_cast<int>(s.groups));
  }
  // A failed engine flush fails the group before a byte is written.
  const auto before = b->CurrentPosition();
  flush.fail = true;
  {
    TransactionCache c;
    FillTrx(c, 100000);
    Status st = b->Commit(c, 1, nullptr, 5);
    EXPECT_TRUE(st.IsIOError()) << st.ToString();
  }
  EXPECT_EQ(b->CurrentPosition(), before);
  flush.fail = false;
  {
    TransactionCache c;
    FillTrx(c, 100001);
    ASSERT_TRUE(b->Commit(c, 1, nullptr, 6).ok());  // the binlog itself is fine
    b->CommitDone();
  }
  ASSERT_TRUE(b->Close().ok());
}

// after_sync: the leader of each group calls it for every transaction of
// the group, in order, once the group is written (after_flush came first),
// and a committer leaves Commit() only after its own transaction's call.
TEST_F(BinlogTest, TheGroupLeaderRunsAfterSyncForEachTransactionBeforeItsCommitterReturns) {
  struct Hooks : CommitHooks {
    std::mutex mu;
    std::vector<uint64_t> group_ends;                                 // after_flush, in order
    std::vector<std::pair<uint64_t, std::thread::id>> synced;         // after_sync calls
    std::set<uint64_t> synced_ends;
    void AfterFlush(const std::string&, uint64_t end) override {
      std::lock_guard l(mu);
      group_ends.push_back(end);
    }
    void AfterSync(const std::string& file, uint64_t end) override {
      EXPECT_EQ(file, "binlog.000001");
      std::lock_guard l(mu);
      synced.emplace_back(end, std::this_thread::get_id());
      synced_ends.insert(end);
    }
  } hooks;
  auto b = OpenStarted(Opts());
  b->set_hooks(&hooks);
  constexpr int kThreads = 8, kPerThread = 40;
  CommitFromThreads(*b, kThreads, kPerThread, /*marks=*/false, [&](const Binlog::CommitResult& written) {
    std::lock_guard l(hooks.mu);
    EXPECT_EQ(hooks.synced_ends.count(written.end), 1u) << "returned before its after_sync";
  });
  b->set_hooks(nullptr);
  ASSERT_EQ(hooks.synced.size(), static_cast<size_t>(kThreads * kPerThread));
  ASSERT_EQ(hooks.synced_ends.size(), hooks.synced.size());
  EXPECT_EQ(hooks.group_ends.size(), b->stats().groups);
  // Each group's calls come from one thread, in order, and end at the group's end.
  std::map<uint64_t, std::vector<std::pair<uint64_t, std::thread::id>>> by_group;
  for (const auto& call : hooks.synced) {
    auto g = std::lower_bound(hooks.group_ends.begin(), hooks.group_ends.end(), call.first);
    ASSERT_NE(g, hooks.group_ends.end());
    by_group[*g].push_back(call);
  }
  ASSERT_EQ(by_group.size(), hooks.group_ends.size());
  for (const auto& [end, calls] : by_group) {
    EXPECT_EQ(calls.back().first, end);
    for (size_t i = 1; i < calls.size(); ++i) {
      EXPECT_LT(calls[i - 1].first, calls[i].first);
      EXPECT_EQ(calls[i - 1].second, calls[i].second);
    }
  }
  ASSERT_TRUE(b->Close().ok());
}

// With Options::after_sync_backlog transactions in after_sync (waiting for
// acks), the next leader waits for them before it flushes, and the committers that
// come meanwhile join its group. Below that, groups are written while
// earlier ones wait (their round trips overlap).
TEST_F(BinlogTest, ALeaderWaitsBehindABacklogInAfterSyncAndItsGroupGrows) {
  struct Gate : CommitHooks {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    size_t waiting = 0;  // after_sync calls blocked now
    void Open() {
      {
        std::lock_guard l(mu);
        open = true;
      }
      cv.notify_all();
    }
    void AfterFlush(const std::string&, uint64_t) override {}
    void AfterSync(const std::string&, uint64_t) override {
      std::unique_lock l(mu);
      ++waiting;
      cv.wait(l, [&] { return open; });
      --waiting;
    }
  } gate;
  constexpr uint64_t kBacklog = 4;
  Binlog::Options o = Opts();
  o.after_sync_backlog = kBacklog;
  auto b = OpenStarted(o);
  b->set_hooks(&gate);
  const auto until = [&](const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  };
  const auto blocked = [&] {
    std::lock_guard l(gate.mu);
    return gate.waiting;
  };
  std::vector<std::thread> committers;
  // However the test leaves, the committers get through and are joined.
  struct Release {
    Gate& gate;
    std::vector<std::thread>& threads;
    void operator()() {
      gate.Open();
      for (auto& t : threads) {
        if (t.joinable()) t.join();
      }
    }
    ~Release() { (*this)(); }
  } release{gate, committers};
  const auto commit = [&](uint64_t n) {
    committers.emplace_back([&b, n] {
      TransactionCache c;
      FillTrx(c, n);
      EXPECT_TRUE(b->Commit(c, 1, nullptr, 0).ok());
      b->CommitDone();
    });
  };
  // One at a time: each is a group of its own, written while the earlier
  // ones wait in after_sync.
  for (uint64_t n = 1; n <= kBacklog; ++n) {
    commit(n);
    ASSERT_TRUE(until([&] { return blocked() == n; })) << "group " << n << " was not written";
  }
  EXPECT_EQ(b->stats().groups, kBacklog);
  // The next leader waits; four more committers queue behind it.
  for (uint64_t n = kBacklog + 1; n <= kBacklog + 5; ++n) commit(n);
  ASSERT_TRUE(until([&] { return b->queued() == 5; }));
  EXPECT_EQ(b->stats().commits, kBacklog);
  release();
  Binlog::Stats s = b->stats();
  EXPECT_EQ(s.commits, kBacklog + 5);
  EXPECT_EQ(s.groups, kBacklog + 1);
  b->set_hooks(nullptr);
  ASSERT_TRUE(b->Close().ok());
}

// Readers of the published end. A capped reader (a plain dump thread
// while semisync holds it at the acknowledged position) sees end() capped
// at the reader limit: a new end beyond the limit does not end its wait,
// moving the limit does. Uncapped and prompt readers see every new end
// while the limit holds. (No test covered these waits before.)
TEST_F(BinlogTest, ReadersWaitForTheirOwnViewOfTheEnd) {
  auto b = OpenStarted(Opts());
  const auto commit = [&](uint64_t n) {
    TransactionCache c;
    FillTrx(c, n);
    ASSERT_TRUE(b->Commit(c, 1, nullptr, 0).ok());
    b->CommitDone();
  };
  // A reader in a thread, waiting far longer than the test takes: woken
  // or not is what the test looks at.
  struct Reader {
    std::atomic<bool> done{false};
    Binlog::End saw;
    std::thread thread;
    void Start(Binlog& b, Binlog::End seen, bool capped, bool prompt) {
      thread = std::thread([this, &b, seen, capped, prompt] {
        saw = b.WaitForEnd(seen, std::chrono::minutes(10), capped, prompt);
        done = true;
      });
    }
    bool WokenWithin(std::chrono::seconds limit) {
      const auto deadline = std::chrono::steady_clock::now() + limit;
      while (!done && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return done;
    }
  };
  commit(1);
  const Binlog::End held = b->end();
  ASSERT_TRUE(b->SetReaderLimit(b->FileName(held.file_number), held.offset));
  EXPECT_EQ(b->reader_end(), held);
  Reader capped, uncapped, prompt, follows;
  capped.Start(*b, held, /*capped=*/true, /*prompt=*/false);
  uncapped.Start(*b, held, /*capped=*/false, /*prompt=*/false);
  prompt.Start(*b, held, /*capped=*/false, /*prompt=*/true);
  // However the test leaves, the readers are let go and joined.
  struct Join {
    Binlog& b;
    std::vector<Reader*> readers;
    ~Join() {
      b.ClearReaderLimit();
      TransactionCache c;
      FillTrx(c, 99);
      (void)b.Commit(c, 1, nullptr, 0);
      b.CommitDone();
      for (Reader* r : readers) r->thread.join();
    }
  } join{*b, {&capped, &uncapped, &prompt}};
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // let them wait (the test holds either way)
  commit(2);
  const Binlog::End moved = b->end();
  ASSERT_NE(moved, held);
  // The uncapped and the prompt reader see the new end while the limit holds.
  ASSERT_TRUE(uncapped.WokenWithin(std::chrono::seconds(30)));
  ASSERT_TRUE(prompt.WokenWithin(std::chrono::seconds(30)));
  EXPECT_EQ(uncapped.saw, moved);
  EXPECT_EQ(prompt.saw, moved);
  // The capped one still waits: what it may see has not moved.
  EXPECT_FALSE(capped.WokenWithin(std::chrono::seconds(0)));
  EXPECT_EQ(b->reader_end(), held);
  // Moving the limit wakes it.
  ASSERT_TRUE(b->SetReaderLimit(b->FileName(moved.file_number), moved.offset));
  ASSERT_TRUE(capped.WokenWithin(std::chrono::seconds(30)));
  EXPECT_EQ(capped.saw, moved);
  // Without a limit a capped reader follows end().
  b->ClearReaderLimit();
  follows.Start(*b, moved, /*capped=*/true, /*prompt=*/false);
  join.readers.push_back(&follows);
  commit(3);
  ASSERT_TRUE(follows.WokenWithin(std::chrono::seconds(30)));
  EXPECT_EQ(follows.saw, b->end());
}

}  // namespace
}  // namespace sluice::binlog
