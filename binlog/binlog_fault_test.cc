// binlog/binlog_fault_test.cc: the binlog on io::MemFileSystem with
// injected faults: a failed sync is sticky and no commit is acknowledged
// from the group that hit it on; a failed index write leaves the old index.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "base/io/mem_file_system.h"
#include "base/io/write_file_atomically.h"
#include "binlog/binlog.h"
#include "binlog/file_reader.h"

namespace sluice::binlog {
namespace {

constexpr char kDir[] = "/data";
constexpr char kUuid[] = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

class BinlogFaultTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(mem_.CreateDir(kDir).ok()); }

  Binlog::Options Opts() {
    Binlog::Options o;
    o.dir = kDir;
    o.server_id = 7;
    o.server_uuid = *Uuid::Parse(kUuid);
    o.fs = &mem_;
    return o;
  }

  std::unique_ptr<Binlog> OpenStarted(Binlog::RecoveryInfo* ri = nullptr) {
    auto b = Binlog::Open(Opts(), ri);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok()) return nullptr;
    EXPECT_TRUE((*b)->StartWriting().ok());
    return std::move(b).value();
  }

  // The events of a transaction (server_id 7, CRC32).
  static std::string QueryEvent(std::string text) {
    EventHeader h;
    h.type = kQueryEvent;
    h.server_id = 7;
    QueryInfo q;
    q.query = std::move(text);
    return EncodeQuery(h, q, Checksum::kCrc32);
  }
  static std::string XidEvent(uint64_t xid) {
    EventHeader h;
    h.type = kXidEvent;
    h.server_id = 7;
    return EncodeXid(h, xid, Checksum::kCrc32);
  }

  // A transaction: BEGIN, Xid.
  static void FillTrx(TransactionCache& c, uint64_t xid) {
    c.set_checksum(Checksum::kCrc32);
    EXPECT_TRUE(c.Append(QueryEvent("BEGIN")).ok());
    EXPECT_TRUE(c.Append(XidEvent(xid)).ok());
  }

  // Commits as a session does: CommitDone() only after an OK.
  static Status Commit(Binlog& b, uint64_t xid) {
    TransactionCache c;
    FillTrx(c, xid);
    Status s = b.Commit(c, 1700000000);
    if (s.ok()) b.CommitDone();
    return s;
  }

  void ArmSyncFault(uint64_t nth) {
    io::MemFileSystem::Fault f;
    f.op = io::MemFileSystem::Op::kSync;
    f.nth = nth;
    f.path_contains = "binlog.0";  // the binlog files, not the index
    mem_.InjectFault(f);
  }

  io::MemFileSystem mem_;
};

TEST_F(BinlogFaultTest, SyncFailureIsStickyAndNothingAfterItIsAcknowledged) {
  auto b = OpenStarted();
  ASSERT_TRUE(Commit(*b, 1).ok());
  const Binlog::End before = b->end();
  EXPECT_EQ(b->gtid_executed().ToString(), std::string(kUuid) + ":1");

  // A one-off fault: what stays broken afterwards is the binlog's doing.
  ArmSyncFault(1);
  Status hit = Commit(*b, 2);
  EXPECT_EQ(hit.mysql_errno(), 1598) << hit.ToString();
  EXPECT_NE(hit.message().find("sync stage of the commit"), std::string::npos) << hit.message();
  EXPECT_EQ(mem_.faults_fired(), 1u);
  mem_.ClearFaults();

  // Every later commit is refused with the same error, and writes nothing.
  const uint64_t writes = mem_.op_count(io::MemFileSystem::Op::kWrite);
  const uint64_t syncs = mem_.op_count(io::MemFileSystem::Op::kSync);
  for (uint64_t xid = 3; xid < 6; ++xid) {
    Status s = Commit(*b, xid);
    EXPECT_EQ(s.mysql_errno(), 1598) << s.ToString();
  }
  EXPECT_EQ(mem_.op_count(io::MemFileSystem::Op::kWrite), writes);
  EXPECT_EQ(mem_.op_count(io::MemFileSystem::Op::kSync), syncs);
  EXPECT_EQ(b->sync_error().mysql_errno(), 1598);
  EXPECT_EQ(b->Rotate().mysql_errno(), 1598);
  EXPECT_EQ(b->Reset().mysql_errno(), 1598);

  // Nothing of the failed group was published or counted as executed.
  EXPECT_EQ(b->end().file_number, before.file_number);
  EXPECT_EQ(b->end().offset, before.offset);
  EXPECT_EQ(b->gtid_executed().ToString(), std::string(kUuid) + ":1");
  EXPECT_EQ(b->stats().syncs, 1u);  // transaction 1's group

  // Close does not mark the file complete: the next start recovers it as
  // after a crash, and only transaction 1 is there.
  EXPECT_FALSE(b->Close().ok());
  b.reset();
  mem_.DropUnsyncedData();
  Binlog::RecoveryInfo ri;
  auto reopened = Binlog::Open(Opts(), &ri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_TRUE(ri.crashed);
  EXPECT_EQ(ri.xids, (std::set<uint64_t>{1}));
  EXPECT_EQ((*reopened)->gtid_executed().ToString(), std::string(kUuid) + ":1");
  ASSERT_TRUE((*reopened)->StartWriting().ok());
  EXPECT_TRUE((*reopened)->sync_error().ok());
  ASSERT_TRUE(Commit(**reopened, 6).ok());
  EXPECT_EQ((*reopened)->gtid_executed().ToString(), std::string(kUuid) + ":1-2");
}

TEST_F(BinlogFaultTest, NoCommitOfTheGroupThatHitTheFailureOrLaterIsAcknowledged) {
  // The first group's flush is held back so that the other committers
  // queue behind it and (most likely) go as one group, whose sync (the 2nd
  // from now; the first group's is the 1st) fails. However they group, each
  // of them must get the error.
  struct SlowFirstFlush : CommitHooks {
    std::atomic<int> calls{0};
    void AfterFlush(const std::string&, uint64_t) override {
      if (calls.fetch_add(1) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } hooks;
  auto b = OpenStarted();
  b->set_hooks(&hooks);
  ArmSyncFault(2);
  std::vector<Status> results(6);
  std::vector<std::thread> threads;
  threads.emplace_back([&] { results[0] = Commit(*b, 100); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (size_t i = 1; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = Commit(*b, 100 + i); });
  }
  for (auto& t : threads) t.join();
  b->set_hooks(nullptr);

  EXPECT_TRUE(results[0].ok()) << results[0].ToString();
  for (size_t i = 1; i < results.size(); ++i) {
    EXPECT_EQ(results[i].mysql_errno(), 1598) << i << ": " << results[i].ToString();
  }
  EXPECT_EQ(b->gtid_executed().ToString(), std::string(kUuid) + ":1");
  EXPECT_EQ(Commit(*b, 200).mysql_errno(), 1598);

  b.reset();
  mem_.DropUnsyncedData();
  Binlog::RecoveryInfo ri;
  auto reopened = Binlog::Open(Opts(), &ri);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(ri.xids, (std::set<uint64_t>{100}));
}

TEST_F(BinlogFaultTest, FailedIndexWriteLeavesTheOldIndex) {
  auto b = OpenStarted();
  ASSERT_TRUE(Commit(*b, 1).ok());
  const std::string index = **io::ReadFileIfExists(mem_, "/data/binlog.index");
  EXPECT_EQ(index, "./binlog.000001\n");
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kRename;
  f.path_contains = "binlog.index_crash_safe";
  mem_.InjectFault(f);
  Status s = b->Rotate();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(**io::ReadFileIfExists(mem_, "/data/binlog.index"), index);
  EXPECT_FALSE(*mem_.Exists("/data/binlog.index_crash_safe"));
}

TEST_F(BinlogFaultTest, FilesAreReadThroughTheSameFileSystem) {
  auto b = OpenStarted();
  ASSERT_TRUE(Commit(*b, 1).ok());
  auto r = BinlogFileReader::Open(b->FilePath("binlog.000001"), true, &b->file_system());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  int events = 0;
  while (true) {
    auto ev = (*r)->Next();
    ASSERT_TRUE(ev.ok()) << ev.status().ToString();
    if (!ev->has_value()) break;
    ++events;
  }
  EXPECT_EQ(events, 5);  // FDE, Previous_gtids, Gtid, BEGIN, Xid
  auto files = b->ListFiles();
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].size, b->end().offset);
}

// A large transaction's cache spills into a temporary file of the same
// FileSystem; when that fails, the Append fails with 1026, the cache keeps
// everything before it, and the transaction can go on and commit.
TEST_F(BinlogFaultTest, CacheSpillFailureFailsTheAppendAndTheCacheGoesOn) {
  ASSERT_TRUE(mem_.CreateDir("/tmp").ok());
  auto b = OpenStarted();
  TransactionCache c;
  c.set_temp_files(&mem_, "/tmp");
  c.set_limits(400, 1 << 20);
  c.set_checksum(Checksum::kCrc32);
  ASSERT_TRUE(c.Append(QueryEvent("BEGIN")).ok());
  const std::string stmt = QueryEvent("INSERT INTO t VALUES ('" + std::string(100, 'x') + "')");
  ASSERT_TRUE(c.Append(stmt).ok());
  EXPECT_FALSE(c.spilled());

  // The spill's first write fails: nothing changes.
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kWrite;
  f.path_contains = "/tmp/#temp";
  mem_.InjectFault(f);
  const uint64_t before = c.size();
  Status s = c.Append(stmt);
  EXPECT_EQ(s.mysql_errno(), 1026) << s.ToString();
  EXPECT_NE(s.message().find("binlog cache"), std::string::npos) << s.message();
  EXPECT_EQ(c.size(), before);
  EXPECT_FALSE(c.spilled());

  // The next statement spills, a rollback to a point inside the file and
  // more events work, and the transaction commits whole.
  ASSERT_TRUE(c.Append(stmt).ok());
  EXPECT_TRUE(c.spilled());
  const uint64_t mark = c.size();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c.Append(stmt).ok());
  ASSERT_TRUE(c.Truncate(mark).ok());
  ASSERT_TRUE(c.Append(stmt).ok());
  ASSERT_TRUE(c.Append(XidEvent(1)).ok());
  EXPECT_EQ(c.size(), mark + stmt.size() + XidEvent(1).size());
  ASSERT_TRUE(b->Commit(c, 1700000000).ok());
  b->CommitDone();

  // In the binlog: BEGIN, three INSERTs (the failed one is not there), Xid.
  auto r = BinlogFileReader::Open(b->FilePath("binlog.000001"), true, &mem_);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  int queries = 0, xids = 0;
  while (true) {
    auto ev = (*r)->Next();
    ASSERT_TRUE(ev.ok()) << ev.status().ToString();
    if (!ev->has_value()) break;
    if ((*ev)->header.type == kQueryEvent) ++queries;
    if ((*ev)->header.type == kXidEvent) ++xids;
  }
  EXPECT_EQ(queries, 4);
  EXPECT_EQ(xids, 1);
  c.Clear();
  EXPECT_FALSE(c.spilled());
}

}  // namespace
}  // namespace sluice::binlog
