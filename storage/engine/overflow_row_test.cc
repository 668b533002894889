// storage/engine/overflow_row_test.cc
//
// Rows too large for a B+tree record (engine.h, "Off-page rows"): stored as
// overflow chains, read through MVCC, undone by rollback, freed by purge,
// and recovered after a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <map>
#include <string>

#include "base/io/mem_file_system.h"
#include "storage/btree/overflow.h"
#include "storage/engine/engine.h"
#include "storage/engine/engine_test_util.h"

namespace sluice::storage {
namespace {

using namespace std::chrono_literals;
using test::Col;
using test::Idx;

constexpr char kDir[] = "/data";

// big(id BIGINT PRIMARY KEY, b LONGBLOB, k BIGINT, KEY(k))
TableDef Big() {
  TableDef t;
  t.schema = "db";
  t.name = "big";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  t.columns.push_back(Col("b", ColumnType::kLongBlob));
  t.columns.push_back(Col("k", ColumnType::kBigInt));
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("k_idx", {"k"}, false));
  return t;
}

std::string Blob(size_t n, char seed) {
  std::string v(n, '\0');
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(seed + (i * 7919) % 253);
  return v;
}

Row R(int64_t id, std::string b, int64_t k) { return Row{id, std::move(b), k}; }

class OverflowRowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    ASSERT_TRUE(engine_->CreateDatabase(DatabaseDef{"db"}).ok());
    auto def = engine_->CreateTable(Big());
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    t_ = (*def)->id;
  }

  void Open() {
    Engine::Options o;
    o.buffer_pool_bytes = size_t{4} << 20;  // smaller than the largest row
    o.checkpoint_interval = 0ms;
    o.log_flush_interval = 0ms;
    o.purge_interval = 3600s;  // purge when the test says
    auto e = Engine::Open(&fs_, kDir, o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    auto def = engine_->FindTable("db", "big");
    if (def) t_ = def->id;
  }

  void Crash() {
    fs_.InjectFault({io::MemFileSystem::Op::kWrite, 1, true});
    fs_.InjectFault({io::MemFileSystem::Op::kSync, 1, true});
    fs_.DropUnsyncedData();
    engine_->SimulateCrashForTesting();
    engine_.reset();
    fs_.ClearFaults();
  }

  std::optional<Row> Get(EngineTrx& trx, int64_t id) {
    auto r = engine_->Get(trx, t_, Row{id});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }

  std::optional<Row> GetCommitted(int64_t id) {
    auto trx = engine_->Begin();
    auto r = Get(*trx, id);
    EXPECT_TRUE(engine_->Commit(*trx).ok());
    return r;
  }

  void Insert(Row row) {
    auto trx = engine_->Begin();
    auto r = engine_->Insert(*trx, t_, std::move(row));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  void Update(Row row) {
    auto trx = engine_->Begin();
    auto r = engine_->Update(*trx, t_, Row{row[0]}, row);
    ASSERT_TRUE(r.ok() && *r) << r.status().ToString();
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  uint32_t UsedPages() {
    auto usage = engine_->buffer_pool().GetSpaceUsage(engine_->FindTable("db", "big")->space_id);
    EXPECT_TRUE(usage.ok());
    return usage.ok() ? usage->page_count - usage->free_pages : 0;
  }

  void ExpectChecked() {
    Status s = engine_->CheckTable(t_);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }

  io::MemFileSystem fs_;
  std::unique_ptr<Engine> engine_;
  uint64_t t_ = 0;
};

TEST_F(OverflowRowTest, LargeRowsRoundTripThroughInsertUpdateScanAndIndex) {
  const std::string a = Blob(3990, 'a'), b = Blob(100000, 'b'), c = Blob(size_t{6} << 20, 'c');
  Insert(R(1, a, 10));
  Insert(R(2, b, 20));
  Insert(R(3, c, 30));
  Insert(R(4, "small", 40));
  EXPECT_EQ(GetCommitted(1), R(1, a, 10));
  EXPECT_EQ(GetCommitted(2), R(2, b, 20));
  EXPECT_EQ(GetCommitted(3), R(3, c, 30));
  // Big to small, small to big, big to big.
  Update(R(3, "now small", 31));
  Update(R(4, c, 41));
  Update(R(2, a, 21));
  std::map<int64_t, Row> seen;
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Scan(*trx, t_, [&](const Row& r) {
    seen[std::get<int64_t>(r[0])] = r;
    return true;
  }).ok());
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[1], R(1, a, 10));
  EXPECT_EQ(seen[2], R(2, a, 21));
  EXPECT_EQ(seen[3], R(3, "now small", 31));
  EXPECT_EQ(seen[4], R(4, c, 41));
  std::vector<int64_t> ids = test::LookupIds(*engine_, *trx, t_, "k_idx", Row{int64_t{41}});
  EXPECT_EQ(ids, std::vector<int64_t>{4});
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  ExpectChecked();
}

TEST_F(OverflowRowTest, ReadViewsKeepOldVersionsAndPurgeFreesTheirPages) {
  const std::string v0 = Blob(200000, '0');
  Insert(R(1, v0, 1));
  ASSERT_TRUE(engine_->Purge().ok());
  const uint32_t base = UsedPages();
  auto reader = engine_->Begin(IsolationLevel::kRepeatableRead);
  EXPECT_EQ(Get(*reader, 1), R(1, v0, 1));
  for (int i = 1; i <= 20; ++i) Update(R(1, Blob(200000, static_cast<char>('0' + i)), 1 + i));
  // The reader still sees the first version, built from undo and its chain.
  EXPECT_EQ(Get(*reader, 1), R(1, v0, 1));
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  EXPECT_EQ(GetCommitted(1), R(1, Blob(200000, '0' + 20), 21));
  ASSERT_TRUE(engine_->Purge().ok());
  EXPECT_GE(engine_->purge_stats().chains_freed, 20u);
  // Twenty versions written, one kept: the space holds about one again.
  EXPECT_LE(UsedPages(), base + 2);
  // A delete frees the last chain at purge.
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Delete(*trx, t_, Row{int64_t{1}}).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->Purge().ok());
  EXPECT_LE(UsedPages(), base - 200000 / kPageSize + 1);
  Status s = engine_->CheckTable(t_, Engine::CheckLevel::kPurged);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(OverflowRowTest, RollbackFreesTheChainsItsChangesWrote) {
  const std::string old_v = Blob(50000, 'o');
  Insert(R(1, old_v, 1));
  ASSERT_TRUE(engine_->Purge().ok());
  const uint32_t base = UsedPages();
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, t_, R(2, Blob(80000, 'n'), 2)).ok());
  ASSERT_TRUE(engine_->Update(*trx, t_, Row{int64_t{1}}, R(1, Blob(90000, 'u'), 1)).ok());
  ASSERT_TRUE(engine_->Update(*trx, t_, Row{int64_t{1}}, R(1, Blob(70000, 'w'), 1)).ok());
  ASSERT_TRUE(engine_->Delete(*trx, t_, Row{int64_t{1}}).ok());
  // Over its own delete-marked record: an update of it.
  ASSERT_TRUE(engine_->Insert(*trx, t_, R(1, Blob(60000, 'i'), 1)).ok());
  EXPECT_GE(UsedPages(), base + 300000 / kOverflowPayload);
  ASSERT_TRUE(engine_->Rollback(*trx).ok());
  EXPECT_EQ(GetCommitted(1), R(1, old_v, 1));
  EXPECT_EQ(GetCommitted(2), std::nullopt);
  ASSERT_TRUE(engine_->Purge().ok());
  EXPECT_EQ(UsedPages(), base);
  ExpectChecked();
}

TEST_F(OverflowRowTest, DuplicateKeyLeavesNoChainBehind) {
  Insert(R(1, Blob(40000, 'x'), 1));
  const uint32_t base = UsedPages();
  auto trx = engine_->Begin();
  auto dup = engine_->Insert(*trx, t_, R(1, Blob(40000, 'y'), 1));
  EXPECT_EQ(dup.status().mysql_errno(), 1062);
  ASSERT_TRUE(engine_->Rollback(*trx).ok());
  EXPECT_EQ(UsedPages(), base);
}

TEST_F(OverflowRowTest, CommittedLargeRowsSurviveACrashAndUncommittedOnesGo) {
  const std::string a = Blob(size_t{3} << 20, 'a'), b = Blob(300000, 'b');
  Insert(R(1, a, 1));
  Insert(R(2, Blob(1000, 's'), 2));
  auto open = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*open, t_, R(3, b, 3)).ok());
  ASSERT_TRUE(engine_->Update(*open, t_, Row{int64_t{1}}, R(1, b, 1)).ok());
  ASSERT_TRUE(engine_->Update(*open, t_, Row{int64_t{2}}, R(2, b, 2)).ok());
  Insert(R(5, "later", 5));  // its commit makes the open transaction's redo durable too
  open.reset();
  Crash();
  Open();
  EXPECT_EQ(GetCommitted(1), R(1, a, 1));
  EXPECT_EQ(GetCommitted(2), R(2, Blob(1000, 's'), 2));
  EXPECT_EQ(GetCommitted(3), std::nullopt);
  EXPECT_EQ(GetCommitted(5), R(5, "later", 5));
  EXPECT_GE(engine_->recovery_info().rolled_back, 1u);
  ExpectChecked();
  // The rolled-back versions' chains were freed by the recovery's rollback.
  ASSERT_TRUE(engine_->Purge().ok());
  const uint32_t used = UsedPages();
  EXPECT_LE(used, (size_t{3} << 20) / kPageSize + 16);
}

// READ UNCOMMITTED reads take no view, so purge may free the chain of the
// version a reader just found: the read must then retry, never return
// another version's bytes or fail.
TEST_F(OverflowRowTest, ReadUncommittedReadersRacingPurgeSeeWholeVersions) {
  engine_.reset();
  {
    Engine::Options o;
    o.buffer_pool_bytes = size_t{4} << 20;
    o.purge_interval = 1ms;
    auto e = Engine::Open(&fs_, kDir, o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
  }
  constexpr size_t kLen = 40000;
  Insert(R(1, Blob(kLen, 'a'), 0));
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0}, reads{0};
  std::thread reader([&] {
    while (!stop.load()) {
      auto trx = engine_->Begin(IsolationLevel::kReadUncommitted);
      auto r = engine_->Get(*trx, t_, Row{int64_t{1}});
      if (!r.ok() || !r->has_value()) {
        bad.fetch_add(1);
      } else {
        const int64_t k = std::get<int64_t>((**r)[2]);
        if (std::get<std::string>((**r)[1]) != Blob(kLen, static_cast<char>('a' + k % 26))) bad.fetch_add(1);
      }
      (void)engine_->Commit(*trx);
      reads.fetch_add(1);
    }
  });
  for (int i = 1; i <= 300; ++i) {
    Update(R(1, Blob(kLen, static_cast<char>('a' + i % 26)), i));
    if (i % 10 == 0) (void)engine_->Purge();
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(bad.load(), 0) << "of " << reads.load() << " reads";
  EXPECT_GT(engine_->purge_stats().chains_freed, 0u);
}

}  // namespace
}  // namespace sluice::storage
