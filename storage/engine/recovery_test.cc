// Crash recovery, two-phase commit, checkpoints and larger-than-memory
// tables, on io::MemFileSystem (a "crash" drops every byte not synced).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "storage/engine/engine.h"
#include "storage/engine/engine_test_util.h"
#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

using namespace std::chrono_literals;
using test::Col;
using test::Idx;

constexpr char kDir[] = "/data";

// t(id BIGINT PRIMARY KEY, v VARCHAR(1000), n BIGINT, KEY(n))
TableDef T() {
  TableDef t;
  t.schema = "db";
  t.name = "t";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  ColumnDef v = Col("v", ColumnType::kVarChar);
  v.length = 1000;
  t.columns.push_back(v);
  t.columns.push_back(Col("n", ColumnType::kBigInt));
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("n_idx", {"n"}, false));
  return t;
}

Row R(int64_t id, std::string v, int64_t n) { return Row{id, std::move(v), n}; }

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    ASSERT_TRUE(engine_->CreateDatabase(DatabaseDef{"db"}).ok());
    auto def = engine_->CreateTable(T());
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    t_ = (*def)->id;
  }

  void Open(size_t pool_bytes = size_t{8} << 20) {
    Engine::Options o;
    o.buffer_pool_bytes = pool_bytes;
    o.checkpoint_interval = 0ms;
    o.log_flush_interval = 0ms;
    auto e = Engine::Open(&fs_, kDir, o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    auto def = engine_->FindTable("db", "t");
    if (def) t_ = def->id;
  }

  // The process dies: nothing unsynced survives, nothing more is written.
  void Crash(std::vector<std::unique_ptr<EngineTrx>>* open_trxs = nullptr) {
    fs_.InjectFault({io::MemFileSystem::Op::kWrite, 1, true});
    fs_.InjectFault({io::MemFileSystem::Op::kSync, 1, true});
    fs_.DropUnsyncedData();
    engine_->SimulateCrashForTesting();
    if (open_trxs) open_trxs->clear();
    engine_.reset();
    fs_.ClearFaults();
  }

  std::map<int64_t, Row> Contents() {
    std::map<int64_t, Row> out;
    auto trx = engine_->Begin();
    Status s = engine_->Scan(*trx, t_, [&](const Row& r) {
      out[std::get<int64_t>(r[0])] = r;
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(engine_->Commit(*trx).ok());
    return out;
  }

  std::vector<int64_t> IdsWithN(int64_t n) {
    std::vector<int64_t> ids;
    auto trx = engine_->Begin();
    Status s = engine_->IndexLookup(*trx, t_, "n_idx", Row{n}, [&](const Row& r) {
      ids.push_back(std::get<int64_t>(r[0]));
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_TRUE(engine_->Commit(*trx).ok());
    return ids;
  }

  io::MemFileSystem fs_;
  std::unique_ptr<Engine> engine_;
  uint64_t t_ = 0;
};

TEST_F(RecoveryTest, CommittedSurvivesAndUncommittedIsRolledBack) {
  {
    auto trx = engine_->Begin();
    for (int i = 1; i <= 5; ++i) ASSERT_TRUE(engine_->Insert(*trx, t_, R(i, "c" + std::to_string(i), i)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(*engine_->Update(*trx, t_, Row{int64_t{2}}, R(2, "two", 20)));
    ASSERT_TRUE(*engine_->Delete(*trx, t_, Row{int64_t{3}}));
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  std::vector<std::unique_ptr<EngineTrx>> open;
  open.push_back(engine_->Begin());
  EngineTrx& u = *open.back();
  ASSERT_TRUE(engine_->Insert(u, t_, R(9, "uncommitted", 9)).ok());
  ASSERT_TRUE(*engine_->Update(u, t_, Row{int64_t{1}}, R(1, "changed", 100)));
  ASSERT_TRUE(*engine_->Update(u, t_, Row{int64_t{1}}, R(1, "changed twice", 101)));
  ASSERT_TRUE(*engine_->Delete(u, t_, Row{int64_t{4}}));
  ASSERT_TRUE(engine_->redo().FlushUpTo(engine_->redo().current_lsn()).ok());  // its redo is on disk
  Crash(&open);

  Open();
  EXPECT_EQ(engine_->recovery_info().rolled_back, 1u);
  auto rows = Contents();
  std::map<int64_t, Row> want{{1, R(1, "c1", 1)}, {2, R(2, "two", 20)}, {4, R(4, "c4", 4)}, {5, R(5, "c5", 5)}};
  EXPECT_EQ(rows, want);
  EXPECT_TRUE(engine_->CheckTable(t_).ok());
  EXPECT_EQ(IdsWithN(1), std::vector<int64_t>{1});
  EXPECT_TRUE(IdsWithN(101).empty());
  EXPECT_EQ(IdsWithN(20), std::vector<int64_t>{2});
  EXPECT_TRUE(IdsWithN(9).empty());
  // Work goes on: new ids order after the recovered ones.
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, t_, R(9, "again", 9)).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  EXPECT_EQ(Contents().size(), 5u);
  ASSERT_TRUE(engine_->Close().ok());
}

TEST_F(RecoveryTest, CommitReturnedMeansDurableWithoutAnyPageFlush) {
  for (int i = 0; i < 50; ++i) {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx, t_, R(i, std::string(200, 'x'), i % 7)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  Crash();
  Open();
  EXPECT_GT(engine_->recovery_info().records_applied, 0u);
  EXPECT_EQ(Contents().size(), 50u);
  EXPECT_EQ(IdsWithN(3).size(), 7u);
  EXPECT_TRUE(engine_->CheckTable(t_).ok());
}

TEST_F(RecoveryTest, CheckpointIsHeldBackByTheOldestActiveTransaction) {
  auto old = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*old, t_, R(1, "old", 1)).ok());
  const uint64_t before = engine_->redo().current_lsn();
  for (int i = 2; i < 40; ++i) {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx, t_, R(i, "x", i)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->Checkpoint().ok());
  EXPECT_LE(engine_->redo().checkpoint_lsn(), before);
  ASSERT_TRUE(engine_->Commit(*old).ok());
  ASSERT_TRUE(engine_->Checkpoint().ok());
  EXPECT_GT(engine_->redo().checkpoint_lsn(), before);
  old.reset();
  Crash();
  Open();
  EXPECT_EQ(Contents().size(), 39u);
}

TEST_F(RecoveryTest, PreparedTransactionComesBackPreparedWithItsLocks) {
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx, t_, R(1, "a", 1)).ok());
    ASSERT_TRUE(engine_->Insert(*trx, t_, R(2, "b", 2)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  std::vector<std::unique_ptr<EngineTrx>> open;
  for (int k = 0; k < 2; ++k) {
    open.push_back(engine_->Begin());
    EngineTrx& p = *open.back();
    ASSERT_TRUE(*engine_->Update(p, t_, Row{int64_t{1 + k}}, R(1 + k, "prepared", 50 + k)));
    ASSERT_TRUE(*engine_->Update(p, t_, Row{int64_t{1 + k}}, R(1 + k, "prepared twice", 60 + k)));
    ASSERT_TRUE(engine_->Insert(p, t_, R(10 + k, "new", 70 + k)).ok());
    ASSERT_TRUE(engine_->Prepare(p, "xid-" + std::to_string(k)).ok());
    EXPECT_EQ(engine_->Prepare(p, "xid-again").code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(engine_->Insert(p, t_, R(30, "late", 0)).status().mysql_errno(), 1399);
  }
  auto dup = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*dup, t_, R(20, "d", 0)).ok());
  EXPECT_EQ(engine_->Prepare(*dup, "xid-0").mysql_errno(), 1440);
  ASSERT_TRUE(engine_->Rollback(*dup).ok());
  dup.reset();
  Crash(&open);

  Open();
  EXPECT_EQ(engine_->recovery_info().prepared, 2u);
  EXPECT_EQ(engine_->RecoveredPrepared(), (std::vector<std::string>{"xid-0", "xid-1"}));
  // Readers see the committed versions (through the rebuilt undo).
  auto rows = Contents();
  EXPECT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1], R(1, "a", 1));
  EXPECT_EQ(rows[2], R(2, "b", 2));
  // Writers wait for the prepared transaction's row locks.
  {
    auto w = engine_->Begin();
    w->set_lock_wait_timeout(50ms);
    EXPECT_EQ(engine_->Update(*w, t_, Row{int64_t{1}}, R(1, "blocked", 0)).status().mysql_errno(), 1205);
    ASSERT_TRUE(engine_->Rollback(*w).ok());
  }
  EXPECT_EQ(engine_->CommitByXid("nope").mysql_errno(), 1397);
  ASSERT_TRUE(engine_->CommitByXid("xid-0").ok());
  ASSERT_TRUE(engine_->RollbackByXid("xid-1").ok());
  EXPECT_TRUE(engine_->RecoveredPrepared().empty());
  rows = Contents();
  std::map<int64_t, Row> want{{1, R(1, "prepared twice", 60)}, {2, R(2, "b", 2)}, {10, R(10, "new", 70)}};
  EXPECT_EQ(rows, want);
  EXPECT_EQ(IdsWithN(60), std::vector<int64_t>{1});
  EXPECT_TRUE(IdsWithN(61).empty());
  EXPECT_EQ(IdsWithN(2), std::vector<int64_t>{2});
  EXPECT_TRUE(engine_->CheckTable(t_).ok());
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  Open();
  EXPECT_TRUE(engine_->RecoveredPrepared().empty());
  EXPECT_EQ(Contents(), want);
}

TEST_F(RecoveryTest, PreparedTransactionSurvivesACleanRestartToo) {
  auto p = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*p, t_, R(1, "p", 1)).ok());
  ASSERT_TRUE(engine_->Prepare(*p, "x").ok());
  p.reset();  // its handle goes; the prepared transaction stays in the log
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  Open();
  EXPECT_EQ(engine_->RecoveredPrepared(), std::vector<std::string>{"x"});
  ASSERT_TRUE(engine_->CommitByXid("x").ok());
  EXPECT_EQ(Contents().size(), 1u);
}

TEST_F(RecoveryTest, RandomWorkWithASmallPoolRecoversToTheCommittedState) {
  engine_.reset();
  Open(size_t{1} << 20);  // 64 pages: constant eviction
  std::mt19937_64 rng(7);
  std::map<int64_t, Row> model;
  std::vector<std::unique_ptr<EngineTrx>> open;
  for (int round = 0; round < 3; ++round) {
    for (int txn = 0; txn < 60; ++txn) {
      auto trx = engine_->Begin();
      std::map<int64_t, Row> next = model;
      for (int op = 0; op < 8; ++op) {
        const int64_t id = static_cast<int64_t>(rng() % 300);
        const int64_t n = static_cast<int64_t>(rng() % 20);
        std::string v(100 + rng() % 700, static_cast<char>('a' + rng() % 26));
        if (next.count(id) && rng() % 3 == 0) {
          ASSERT_TRUE(*engine_->Delete(*trx, t_, Row{id}));
          next.erase(id);
        } else if (next.count(id)) {
          ASSERT_TRUE(*engine_->Update(*trx, t_, Row{id}, R(id, v, n)));
          next[id] = R(id, v, n);
        } else {
          ASSERT_TRUE(engine_->Insert(*trx, t_, R(id, v, n)).ok());
          next[id] = R(id, v, n);
        }
      }
      if (rng() % 5 == 0) {
        ASSERT_TRUE(engine_->Rollback(*trx).ok());
      } else {
        ASSERT_TRUE(engine_->Commit(*trx).ok());
        model = std::move(next);
      }
      if (txn % 25 == 0) {
        ASSERT_TRUE(engine_->Checkpoint().ok());
      }
    }
    // An open transaction at the crash.
    open.push_back(engine_->Begin());
    for (int64_t id = 0; id < 300; id += 7) {
      if (model.count(id)) {
        ASSERT_TRUE(*engine_->Update(*open.back(), t_, Row{id}, R(id, "lost", -1)));
      }
    }
    ASSERT_TRUE(engine_->redo().FlushUpTo(engine_->redo().current_lsn()).ok());
    Crash(&open);
    Open(size_t{1} << 20);
    ASSERT_EQ(Contents(), model) << "round " << round;
    ASSERT_TRUE(engine_->CheckTable(t_).ok());
    EXPECT_TRUE(IdsWithN(-1).empty());
    EXPECT_EQ(engine_->buffer_pool().mtr_violations(), 0u);
  }
  ASSERT_TRUE(engine_->Close().ok());
}

TEST_F(RecoveryTest, IncompleteCreateTableAndOrphanSpacesAreCleanedUp) {
  // A tablespace file no table refers to (a crash between file and catalog).
  {
    auto f = fs_.Open("/data/space_999.ibd", io::OpenMode::kCreateNew);
    ASSERT_TRUE(f.ok());
  }
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  Open();
  EXPECT_EQ(engine_->recovery_info().orphan_spaces, 1u);
  EXPECT_FALSE(*fs_.Exists("/data/space_999.ibd"));
  EXPECT_NE(engine_->FindTable("db", "t"), nullptr);
}

// t with `v` dropped and `n` doubled: what a rebuild (ALTER TABLE by
// copy) below makes of it.
TableDef TWithoutV() {
  TableDef t = T();
  t.columns.erase(t.columns.begin() + 1);
  return t;
}

Result<Row> DropV(const Row& row, uint64_t) { return Row{row[0], std::get<int64_t>(row[2]) * 2}; }

TEST_F(RecoveryTest, RebuildInterruptedBeforeItsSwapLeavesTheOldTable) {
  std::map<int64_t, Row> model;
  {
    auto trx = engine_->Begin();
    for (int64_t i = 1; i <= 50; ++i) {
      ASSERT_TRUE(engine_->Insert(*trx, t_, R(i, "v" + std::to_string(i), i)).ok());
      model[i] = R(i, "v" + std::to_string(i), i);
    }
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  const size_t spaces = engine_->catalog().ReferencedSpaces().size();
  // Every row is copied (and committed); then the catalog can no longer be
  // written, so the swap fails, and so does dropping the new table: the
  // process dies with the temporary table named in the catalog.
  auto rebuilt = engine_->RebuildTable("db", "t", TWithoutV(), [&](const Row& row, uint64_t n) {
    if (n == 50) fs_.InjectFault({io::MemFileSystem::Op::kWrite, 1, true, 0, "catalog.pb.tmp"});
    return DropV(row, n);
  });
  EXPECT_FALSE(rebuilt.ok());
  bool temp_named = false;
  for (const auto& t : engine_->catalog().snapshot()->AllTablesIn("db")) temp_named |= IsTempTableName(t->name);
  EXPECT_TRUE(temp_named);
  Crash();
  Open();
  EXPECT_EQ(engine_->recovery_info().incomplete_ddl, 1u);
  EXPECT_EQ(engine_->recovery_info().orphan_spaces, 1u);  // the temporary table's space
  ASSERT_EQ(engine_->catalog().snapshot()->AllTablesIn("db").size(), 1u);
  EXPECT_EQ(engine_->catalog().ReferencedSpaces().size(), spaces);
  EXPECT_EQ(Contents(), model);
  EXPECT_EQ(IdsWithN(7), (std::vector<int64_t>{7}));
  ASSERT_TRUE(engine_->CheckTable(t_).ok());
  // And the ALTER can run again.
  auto again = engine_->RebuildTable("db", "t", TWithoutV(), DropV);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(*again, 50u);
}

TEST_F(RecoveryTest, RebuildIsDurableTheMomentItReturns) {
  // innodb_flush_log_at_trx_commit=0: the copy's commits do not wait for
  // the redo, so the rebuild must flush it before the swap.
  engine_->set_durability(Durability::kNone);
  {
    auto trx = engine_->Begin();
    for (int64_t i = 1; i <= 2500; ++i) ASSERT_TRUE(engine_->Insert(*trx, t_, R(i, "x", i % 10)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->Checkpoint().ok());
  const uint32_t old_space = engine_->FindTable("db", "t")->space_id;
  auto rebuilt = engine_->RebuildTable("db", "t", TWithoutV(), DropV);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_EQ(*rebuilt, 2500u);
  Crash();
  Open();
  auto def = engine_->FindTable("db", "t");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->columns.size(), 2u);
  EXPECT_FALSE(*fs_.Exists("/data/space_" + std::to_string(old_space) + ".ibd"));
  uint64_t rows = 0;
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Scan(*trx, def->id, [&](const Row& r) {
                        EXPECT_EQ(std::get<int64_t>(r[1]), (std::get<int64_t>(r[0]) % 10) * 2);
                        ++rows;
                        return true;
                      }).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  EXPECT_EQ(rows, 2500u);
  ASSERT_TRUE(engine_->CheckTable(def->id).ok());
}

TEST_F(RecoveryTest, TruncateSurvivesACrashRightAfterIt) {
  {
    auto trx = engine_->Begin();
    for (int64_t i = 1; i <= 10; ++i) ASSERT_TRUE(engine_->Insert(*trx, t_, R(i, "x", i)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->TruncateTable("db", "t").ok());
  Crash();
  Open();
  EXPECT_TRUE(Contents().empty());
  EXPECT_EQ(engine_->catalog().snapshot()->AllTablesIn("db").size(), 1u);
  ASSERT_TRUE(engine_->CheckTable(t_).ok());
}

TEST_F(RecoveryTest, TableFiveTimesThePoolIsWrittenScannedAndUpdated) {
  engine_.reset();
  Open(size_t{1} << 20);  // 1 MiB pool
  constexpr int kRows = 6000;  // ~6 MiB of rows
  const std::string big(900, 'r');
  for (int i = 0; i < kRows; i += 100) {
    auto trx = engine_->Begin();
    for (int j = i; j < i + 100; ++j) ASSERT_TRUE(engine_->Insert(*trx, t_, R(j, big, j % 10)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto usage = engine_->buffer_pool().GetSpaceUsage(engine_->FindTable("db", "t")->space_id);
  ASSERT_TRUE(usage.ok());
  EXPECT_GE(uint64_t{usage->page_count} * kPageSize, uint64_t{5} << 20);
  int seen = 0;
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Scan(*trx, t_, [&](const Row& r) {
                  EXPECT_EQ(std::get<int64_t>(r[0]), seen);
                  ++seen;
                  return true;
                }).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  EXPECT_EQ(seen, kRows);
  for (int i = 0; i < kRows; i += 200) {
    auto trx = engine_->Begin();
    for (int j = i; j < i + 200; ++j) {
      ASSERT_TRUE(*engine_->Update(*trx, t_, Row{int64_t{j}}, R(j, std::string(900, 'u'), j % 10 + 100)));
    }
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto status = engine_->StatusVars();
  std::map<std::string, uint64_t> vars(status.begin(), status.end());
  EXPECT_GT(vars["Innodb_buffer_pool_reads"], 0u);
  EXPECT_GT(vars["Innodb_buffer_pool_read_requests"], vars["Innodb_buffer_pool_reads"]);
  EXPECT_GT(vars["Innodb_data_fsyncs"], 0u);
  EXPECT_GT(vars["Innodb_os_log_written"], uint64_t{5} << 20);
  EXPECT_EQ(vars["Innodb_rows_updated"], uint64_t{kRows});
  EXPECT_EQ(engine_->buffer_pool().mtr_violations(), 0u);
  Crash();
  Open(size_t{1} << 20);
  EXPECT_EQ(IdsWithN(105).size(), size_t{kRows / 10});
  EXPECT_TRUE(IdsWithN(5).empty());
  EXPECT_TRUE(engine_->CheckTable(t_).ok());
}

}  // namespace
}  // namespace sluice::storage
