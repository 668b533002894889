#include "storage/engine/engine.h"
#include "storage/engine/engine_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

using namespace std::chrono_literals;
using test::Col;
using test::Idx;
using test::LookupIds;

constexpr char kDir[] = "/data";

// t1(id BIGINT PRIMARY KEY, v VARCHAR(32), n BIGINT NULL, KEY(v))
TableDef T1() {
  TableDef t;
  t.schema = "db";
  t.name = "t1";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  ColumnDef v = Col("v", ColumnType::kVarChar);
  v.length = 32;
  t.columns.push_back(v);
  t.columns.push_back(Col("n", ColumnType::kBigInt));
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("v_idx", {"v"}, false));
  return t;
}

Row R(int64_t id, std::string v, int64_t n) { return Row{id, std::move(v), n}; }
Row Pk(int64_t id) { return Row{id}; }

class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    OpenEngine();
    ASSERT_TRUE(engine_->CreateDatabase(DatabaseDef{"db"}).ok());
    auto def = engine_->CreateTable(T1());
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    t1_ = (*def)->id;
  }

  void OpenEngine() {
    auto e = Engine::Open(&fs_, kDir, Engine::Options{size_t{8} << 20});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
  }

  std::optional<Row> Get(EngineTrx& trx, int64_t id) {
    auto r = engine_->Get(trx, t1_, Pk(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::nullopt;
  }

  void InsertCommitted(std::vector<Row> rows) {
    auto trx = engine_->Begin();
    for (auto& row : rows) ASSERT_TRUE(engine_->Insert(*trx, t1_, row).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  io::MemFileSystem fs_;
  std::unique_ptr<Engine> engine_;
  uint64_t t1_ = 0;
};

TEST_F(EngineTest, InsertGetUpdateDeleteInOneTransaction) {
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(1, "a", 10)).ok());
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(2, "b", 20)).ok());
  EXPECT_EQ(Get(*trx, 1), R(1, "a", 10));
  auto up = engine_->Update(*trx, t1_, Pk(1), R(1, "aa", 11));
  ASSERT_TRUE(up.ok() && *up);
  EXPECT_EQ(Get(*trx, 1), R(1, "aa", 11));
  auto del = engine_->Delete(*trx, t1_, Pk(2));
  ASSERT_TRUE(del.ok() && *del);
  EXPECT_EQ(Get(*trx, 2), std::nullopt);
  auto del_again = engine_->Delete(*trx, t1_, Pk(2));
  ASSERT_TRUE(del_again.ok());
  EXPECT_FALSE(*del_again);
  auto up_missing = engine_->Update(*trx, t1_, Pk(3), R(3, "c", 3));
  ASSERT_TRUE(up_missing.ok());
  EXPECT_FALSE(*up_missing);
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 1), R(1, "aa", 11));
  EXPECT_EQ(Get(*reader, 2), std::nullopt);
}

TEST_F(EngineTest, RepeatableReadDoesNotSeeUncommittedOrLaterCommittedChanges) {
  InsertCommitted({R(1, "a", 1)});
  auto reader = engine_->Begin(IsolationLevel::kRepeatableRead);
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));  // the view is taken here
  auto writer = engine_->Begin();
  ASSERT_TRUE(engine_->Update(*writer, t1_, Pk(1), R(1, "b", 2)).ok());
  ASSERT_TRUE(engine_->Insert(*writer, t1_, R(2, "new", 2)).ok());
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));
  EXPECT_EQ(Get(*reader, 2), std::nullopt);
  ASSERT_TRUE(engine_->Commit(*writer).ok());
  engine_->EndStatement(*reader);
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));
  EXPECT_EQ(Get(*reader, 2), std::nullopt);
  auto writer2 = engine_->Begin();
  ASSERT_TRUE(engine_->Delete(*writer2, t1_, Pk(1)).ok());
  ASSERT_TRUE(engine_->Commit(*writer2).ok());
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  auto fresh = engine_->Begin();
  EXPECT_EQ(Get(*fresh, 1), std::nullopt);
  EXPECT_EQ(Get(*fresh, 2), R(2, "new", 2));
}

TEST_F(EngineTest, ReadCommittedSeesCommittedChangesAtNextStatement) {
  InsertCommitted({R(1, "a", 1)});
  auto reader = engine_->Begin(IsolationLevel::kReadCommitted);
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));
  engine_->EndStatement(*reader);
  auto writer = engine_->Begin();
  ASSERT_TRUE(engine_->Update(*writer, t1_, Pk(1), R(1, "b", 2)).ok());
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));  // uncommitted: not seen
  engine_->EndStatement(*reader);
  ASSERT_TRUE(engine_->Commit(*writer).ok());
  EXPECT_EQ(Get(*reader, 1), R(1, "b", 2));
  ASSERT_TRUE(engine_->Commit(*reader).ok());
}

TEST_F(EngineTest, RollbackRestoresInsertedUpdatedAndDeletedRows) {
  InsertCommitted({R(1, "a", 1), R(2, "b", 2)});
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(3, "c", 3)).ok());
  ASSERT_TRUE(engine_->Update(*trx, t1_, Pk(1), R(1, "changed", 100)).ok());
  ASSERT_TRUE(engine_->Delete(*trx, t1_, Pk(2)).ok());
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(2, "reinserted", 5)).ok());  // over the delete mark
  ASSERT_TRUE(engine_->Rollback(*trx).ok());
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));
  EXPECT_EQ(Get(*reader, 2), R(2, "b", 2));
  EXPECT_EQ(Get(*reader, 3), std::nullopt);
  // Locks were released: another writer gets the rows at once.
  auto writer = engine_->Begin();
  writer->set_lock_wait_timeout(0ms);
  EXPECT_TRUE(engine_->Update(*writer, t1_, Pk(1), R(1, "x", 0)).ok());
  EXPECT_TRUE(engine_->Commit(*writer).ok());
}

TEST_F(EngineTest, RollbackToSavepointUndoesOnlyLaterChanges) {
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(1, "a", 1)).ok());
  const UndoPos sp = engine_->Savepoint(*trx);
  ASSERT_TRUE(engine_->Update(*trx, t1_, Pk(1), R(1, "b", 2)).ok());
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(2, "c", 3)).ok());
  ASSERT_TRUE(engine_->RollbackToSavepoint(*trx, sp).ok());
  EXPECT_EQ(Get(*trx, 1), R(1, "a", 1));
  EXPECT_EQ(Get(*trx, 2), std::nullopt);
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 1), R(1, "a", 1));
}

TEST_F(EngineTest, DuplicatePrimaryKeyFailsWith1062) {
  InsertCommitted({R(1, "a", 1)});
  auto trx = engine_->Begin();
  auto dup = engine_->Insert(*trx, t1_, R(1, "again", 2));
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().mysql_errno(), 1062);
  EXPECT_NE(dup.status().ToString().find("t1.PRIMARY"), std::string::npos) << dup.status().ToString();
  // A deleted key can be inserted again.
  ASSERT_TRUE(engine_->Delete(*trx, t1_, Pk(1)).ok());
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(1, "again", 2)).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 1), R(1, "again", 2));
}

TEST_F(EngineTest, UpdateChangingPrimaryKeyMovesTheRow) {
  InsertCommitted({R(1, "a", 1), R(2, "b", 2)});
  auto trx = engine_->Begin();
  auto clash = engine_->Update(*trx, t1_, Pk(1), R(2, "x", 0));
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().mysql_errno(), 1062);
  EXPECT_EQ(Get(*trx, 1), R(1, "a", 1));  // the failed statement left nothing
  auto moved = engine_->Update(*trx, t1_, Pk(1), R(5, "a", 1));
  ASSERT_TRUE(moved.ok() && *moved);
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 1), std::nullopt);
  EXPECT_EQ(Get(*reader, 5), R(5, "a", 1));
}

TEST_F(EngineTest, SecondWriterOfSameRowTimesOutWith1205) {
  InsertCommitted({R(1, "a", 1)});
  auto first = engine_->Begin();
  ASSERT_TRUE(engine_->Update(*first, t1_, Pk(1), R(1, "first", 1)).ok());
  auto second = engine_->Begin();
  second->set_lock_wait_timeout(100ms);
  const auto start = std::chrono::steady_clock::now();
  auto r = engine_->Update(*second, t1_, Pk(1), R(1, "second", 2));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().mysql_errno(), 1205);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 90ms);
  // Same for a second insert of a key another transaction inserted.
  ASSERT_TRUE(engine_->Insert(*first, t1_, R(7, "x", 7)).ok());
  auto ins = engine_->Insert(*second, t1_, R(7, "y", 7));
  ASSERT_FALSE(ins.ok());
  EXPECT_EQ(ins.status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Commit(*first).ok());
  auto after = engine_->Update(*second, t1_, Pk(1), R(1, "second", 2));
  ASSERT_TRUE(after.ok() && *after);
  ASSERT_TRUE(engine_->Commit(*second).ok());
}

TEST_F(EngineTest, TwoTransactionDeadlockFailsOneWith1213) {
  InsertCommitted({R(1, "a", 1), R(2, "b", 2)});
  auto t_a = engine_->Begin();
  auto t_b = engine_->Begin();
  t_a->set_lock_wait_timeout(20s);
  t_b->set_lock_wait_timeout(20s);
  ASSERT_TRUE(engine_->Update(*t_a, t1_, Pk(1), R(1, "A", 1)).ok());
  ASSERT_TRUE(engine_->Update(*t_b, t1_, Pk(2), R(2, "B", 2)).ok());
  Status status_a;
  std::thread th([&] {
    auto r = engine_->Update(*t_a, t1_, Pk(2), R(2, "A", 2));
    status_a = r.status();
    if (!r.ok()) {
      ASSERT_TRUE(engine_->Rollback(*t_a).ok());
    }
  });
  while (engine_->lock_manager().Census().waiting == 0) std::this_thread::sleep_for(1ms);
  auto r_b = engine_->Update(*t_b, t1_, Pk(1), R(1, "B", 1));
  if (!r_b.ok()) {
    ASSERT_TRUE(engine_->Rollback(*t_b).ok());
  }
  th.join();
  const int deadlocks = (status_a.mysql_errno() == 1213) + (r_b.status().mysql_errno() == 1213);
  EXPECT_EQ(deadlocks, 1) << status_a.ToString() << " / " << r_b.status().ToString();
  EXPECT_TRUE(status_a.ok() || r_b.ok());
  if (t_a->active()) {
    ASSERT_TRUE(engine_->Commit(*t_a).ok());
  }
  if (t_b->active()) {
    ASSERT_TRUE(engine_->Commit(*t_b).ok());
  }
  auto reader = engine_->Begin();
  const std::string winner = status_a.ok() ? "A" : "B";
  EXPECT_EQ(Get(*reader, 1), R(1, winner, 1));
  EXPECT_EQ(Get(*reader, 2), R(2, winner, 2));
}

TEST_F(EngineTest, ScanReturnsVisibleRowsInKeyOrder) {
  InsertCommitted({R(3, "c", 3), R(1, "a", 1), R(2, "b", 2)});
  auto reader = engine_->Begin();
  auto writer = engine_->Begin();
  ASSERT_TRUE(engine_->Delete(*writer, t1_, Pk(2)).ok());
  ASSERT_TRUE(engine_->Insert(*writer, t1_, R(4, "d", 4)).ok());
  ASSERT_TRUE(engine_->Get(*reader, t1_, Pk(1)).ok());  // take the view
  ASSERT_TRUE(engine_->Commit(*writer).ok());
  std::vector<int64_t> ids;
  ASSERT_TRUE(engine_->Scan(*reader, t1_, [&](const Row& row) {
    ids.push_back(std::get<int64_t>(row[0]));
    return true;
  }).ok());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3}));
  auto fresh = engine_->Begin();
  ids.clear();
  ASSERT_TRUE(engine_->Scan(*fresh, t1_, [&](const Row& row) {
    ids.push_back(std::get<int64_t>(row[0]));
    return true;
  }).ok());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 3, 4}));
}

TEST_F(EngineTest, ReopenAfterCleanCloseFindsCommittedRows) {
  TableDef hidden;
  hidden.schema = "db";
  hidden.name = "h";
  hidden.columns.push_back(Col("x", ColumnType::kInt));
  auto hdef = engine_->CreateTable(hidden);
  ASSERT_TRUE(hdef.ok()) << hdef.status().ToString();
  const uint64_t h = (*hdef)->id;
  TableDef ai;
  ai.schema = "db";
  ai.name = "ai";
  ColumnDef id = Col("id", ColumnType::kBigInt, false);
  id.auto_increment = true;
  ai.columns.push_back(id);
  ai.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  auto adef = engine_->CreateTable(ai);
  ASSERT_TRUE(adef.ok()) << adef.status().ToString();
  const uint64_t a = (*adef)->id;

  InsertCommitted({R(1, "a", 1), R(2, "b", 2)});
  {
    auto trx = engine_->Begin();
    auto r1 = engine_->Insert(*trx, h, Row{int64_t{42}});
    ASSERT_TRUE(r1.ok());
    EXPECT_EQ(*r1, 1u);
    auto a1 = engine_->Insert(*trx, a, Row{RowValue()});
    ASSERT_TRUE(a1.ok()) << a1.status().ToString();
    EXPECT_EQ(*a1, 1u);
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Update(*trx, t1_, Pk(1), R(1, "updated", 9)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();

  OpenEngine();
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 1), R(1, "updated", 9));
  EXPECT_EQ(Get(*reader, 2), R(2, "b", 2));
  auto hrow = engine_->Get(*reader, h, Row{uint64_t{1}});
  ASSERT_TRUE(hrow.ok());
  EXPECT_EQ(*hrow, (Row{int64_t{42}}));
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  // Counters and trx ids continue after the stored ones.
  auto trx = engine_->Begin();
  auto r2 = engine_->Insert(*trx, h, Row{int64_t{43}});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(*r2, 2u);
  auto a2 = engine_->Insert(*trx, a, Row{RowValue()});
  ASSERT_TRUE(a2.ok());
  EXPECT_EQ(*a2, 2u);
  ASSERT_TRUE(engine_->Update(*trx, t1_, Pk(2), R(2, "new", 0)).ok());
  auto other = engine_->Begin();
  EXPECT_EQ(Get(*other, 2), R(2, "b", 2));  // the new trx's change is invisible
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  ASSERT_TRUE(engine_->Commit(*other).ok());
}

TEST_F(EngineTest, DropTableRemovesItsTablespace) {
  InsertCommitted({R(1, "a", 1)});
  const uint32_t space = engine_->FindTable("db", "t1")->space_id;
  ASSERT_TRUE(engine_->DropTable("db", "t1").ok());
  EXPECT_EQ(engine_->FindTable("db", "t1"), nullptr);
  EXPECT_FALSE(*fs_.Exists("/data/space_" + std::to_string(space) + ".ibd"));
  auto again = engine_->DropTable("db", "t1");
  EXPECT_EQ(again.mysql_errno(), 1051);
}

TEST_F(EngineTest, ConcurrentReadersSeeWholeTransactionsOnly) {
  // Writers insert pairs (k, k + 100000) in one transaction, or roll them
  // back, or delete a committed pair; readers' snapshots always hold whole
  // pairs.
  constexpr int kWriters = 4;
  constexpr int kTrxPerWriter = 150;
  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kTrxPerWriter; ++i) {
        const int64_t k = w * 10000 + i;
        auto trx = engine_->Begin();
        bool ok = engine_->Insert(*trx, t1_, R(k, std::string(30, 'x'), k)).ok() &&
                  engine_->Insert(*trx, t1_, R(k + 100000, "pair", k)).ok();
        if (i % 5 == 4 && i > 0) {  // delete the previous pair too
          auto d1 = engine_->Delete(*trx, t1_, Pk(k - 1));
          auto d2 = engine_->Delete(*trx, t1_, Pk(k - 1 + 100000));
          ok = ok && d1.ok() && d2.ok();
        }
        if (!ok) failures++;
        if (i % 3 == 0) {
          if (!engine_->Rollback(*trx).ok()) failures++;
        } else if (!engine_->Commit(*trx).ok()) {
          failures++;
        }
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!done.load()) {
        auto trx = engine_->Begin();
        int64_t low = 0, high = 0;
        Status s = engine_->Scan(*trx, t1_, [&](const Row& row) {
          (std::get<int64_t>(row[0]) < 100000 ? low : high)++;
          return true;
        });
        if (!s.ok() || low != high) failures++;
        (void)engine_->Commit(*trx);
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  done = true;
  for (size_t i = kWriters; i < threads.size(); ++i) threads[i].join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(engine_->lock_manager().Census().granted, 0u);
}

// --- secondary indexes ---


using Ids = std::vector<int64_t>;

// t2(id BIGINT PRIMARY KEY, u VARCHAR(32) NULL, w BIGINT NULL, UNIQUE KEY uw(u, w))
TableDef T2() {
  TableDef t;
  t.schema = "db";
  t.name = "t2";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  ColumnDef u = Col("u", ColumnType::kVarChar);
  u.length = 32;
  t.columns.push_back(u);
  t.columns.push_back(Col("w", ColumnType::kBigInt));
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  IndexDef uw = Idx("uw", {"u", "w"}, false);
  uw.unique = true;
  t.indexes.push_back(uw);
  return t;
}

TEST_F(EngineTest, SecondaryIndexFindsInsertedRows) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 20), R(3, "a", 30)});
  auto trx = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), (Ids{1, 3}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "V_IDX", {std::string("b")}), (Ids{2}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("zz")}), Ids{});
  // Rows are returned whole.
  std::vector<Row> rows;
  ASSERT_TRUE(engine_->IndexLookup(*trx, t1_, "v_idx", {std::string("b")}, [&](const Row& r) {
    rows.push_back(r);
    return true;
  }).ok());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], R(2, "b", 20));
  EXPECT_FALSE(engine_->IndexLookup(*trx, t1_, "nope", {std::string("a")}, [](const Row&) { return true; }).ok());
  EXPECT_FALSE(engine_->IndexLookup(*trx, t1_, "v_idx", {}, [](const Row&) { return true; }).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

// t1's n column as a new secondary index.
IndexDef NIndex(bool unique) {
  IndexDef idx = Idx("n_idx", {"n"}, false);
  idx.unique = unique;
  return idx;
}

TEST_F(EngineTest, AddIndexBuildsFromTheRowsAndSurvivesReopen) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 20), R(3, "c", 10)});
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(*engine_->Delete(*trx, t1_, Pk(2)));  // delete-marked: no entry
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->AddIndex("db", "t1", NIndex(false)).ok());
  EXPECT_EQ(engine_->AddIndex("db", "t1", NIndex(false)).mysql_errno(), 1061);  // duplicate name
  using Ids = std::vector<int64_t>;
  {
    auto trx = engine_->Begin();
    EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "n_idx", {int64_t{10}}), (Ids{1, 3}));
    EXPECT_TRUE(LookupIds(*engine_, *trx, t1_, "n_idx", {int64_t{20}}).empty());
    // New writes maintain it.
    ASSERT_TRUE(engine_->Insert(*trx, t1_, R(4, "d", 20)).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->CheckTable(t1_).ok());
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  OpenEngine();
  auto trx = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "n_idx", {int64_t{20}}), (Ids{4}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  trx.reset();
  ASSERT_TRUE(engine_->CheckTable(t1_).ok());
  ASSERT_TRUE(engine_->DropIndex("db", "t1", "N_IDX").ok());
  EXPECT_EQ(engine_->DropIndex("db", "t1", "n_idx").mysql_errno(), 1091);
  auto trx2 = engine_->Begin();
  EXPECT_FALSE(engine_->IndexLookup(*trx2, t1_, "n_idx", {int64_t{20}}, [](const Row&) { return true; }).ok());
  ASSERT_TRUE(engine_->Commit(*trx2).ok());
}

TEST_F(EngineTest, AddUniqueIndexOverDuplicatesFailsAndLeavesTheTableAsItWas) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 10), R(3, "c", 30)});
  Status s = engine_->AddIndex("db", "t1", NIndex(true));
  EXPECT_EQ(s.mysql_errno(), 1062) << s.ToString();
  EXPECT_EQ(engine_->FindTable("db", "t1")->FindIndex("n_idx"), nullptr);
  ASSERT_TRUE(engine_->CheckTable(t1_).ok());
}

TEST_F(EngineTest, AnIndexWhoseBuildACrashInterruptedIsDroppedAtOpen) {
  InsertCommitted({R(1, "a", 10)});
  // What AddIndex does first: the catalog names the index, root still 0.
  TableDef next = *engine_->FindTable("db", "t1");
  next.indexes.push_back(NIndex(false));
  ASSERT_TRUE(engine_->catalog().AlterTable("db", "t1", next).ok());
  engine_->SimulateCrashForTesting();
  engine_.reset();
  OpenEngine();
  EXPECT_EQ(engine_->recovery_info().incomplete_ddl, 1u);
  auto def = engine_->FindTable("db", "t1");
  ASSERT_NE(def, nullptr);  // the table stays
  EXPECT_EQ(def->FindIndex("n_idx"), nullptr);
  auto trx = engine_->Begin();
  EXPECT_EQ(Get(*trx, 1), R(1, "a", 10));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(EngineTest, UpdateOfIndexedColumnMovesTheEntry) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 20)});
  {
    auto trx = engine_->Begin();
    auto up = engine_->Update(*trx, t1_, Pk(1), R(1, "c", 11));
    ASSERT_TRUE(up.ok() && *up);
    // Unindexed column only: the entry stays where it is.
    up = engine_->Update(*trx, t1_, Pk(2), R(2, "b", 21));
    ASSERT_TRUE(up.ok() && *up);
    EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), Ids{});
    EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("c")}), (Ids{1}));
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto trx = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), Ids{});
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("c")}), (Ids{1}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("b")}), (Ids{2}));
  // Changing it back finds the row under "a" again; a PK change moves it.
  auto up = engine_->Update(*trx, t1_, Pk(1), R(1, "a", 12));
  ASSERT_TRUE(up.ok() && *up);
  up = engine_->Update(*trx, t1_, Pk(2), R(7, "b", 22));
  ASSERT_TRUE(up.ok() && *up);
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), (Ids{1}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("c")}), Ids{});
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("b")}), (Ids{7}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(EngineTest, RollbackRestoresSecondaryIndexState) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 20)});
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, t1_, R(3, "a", 30)).ok());
  const UndoPos sp = engine_->Savepoint(*trx);
  auto up = engine_->Update(*trx, t1_, Pk(1), R(1, "x", 10));
  ASSERT_TRUE(up.ok() && *up);
  auto del = engine_->Delete(*trx, t1_, Pk(2));
  ASSERT_TRUE(del.ok() && *del);
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), (Ids{3}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("x")}), (Ids{1}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("b")}), Ids{});
  ASSERT_TRUE(engine_->RollbackToSavepoint(*trx, sp).ok());
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), (Ids{1, 3}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("x")}), Ids{});
  EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("b")}), (Ids{2}));
  up = engine_->Update(*trx, t1_, Pk(2), R(2, "y", 20));
  ASSERT_TRUE(up.ok() && *up);
  ASSERT_TRUE(engine_->Rollback(*trx).ok());

  auto r = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *r, t1_, "v_idx", {std::string("a")}), (Ids{1}));
  EXPECT_EQ(LookupIds(*engine_, *r, t1_, "v_idx", {std::string("b")}), (Ids{2}));
  EXPECT_EQ(LookupIds(*engine_, *r, t1_, "v_idx", {std::string("x")}), Ids{});
  EXPECT_EQ(LookupIds(*engine_, *r, t1_, "v_idx", {std::string("y")}), Ids{});
  ASSERT_TRUE(engine_->Commit(*r).ok());
  // Deleting then committing keeps lookups correct.
  auto d = engine_->Begin();
  del = engine_->Delete(*d, t1_, Pk(1));
  ASSERT_TRUE(del.ok() && *del);
  ASSERT_TRUE(engine_->Commit(*d).ok());
  auto r2 = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *r2, t1_, "v_idx", {std::string("a")}), Ids{});
  ASSERT_TRUE(engine_->Commit(*r2).ok());
}

TEST_F(EngineTest, UniqueSecondaryIndexFailsWith1062AndAllowsNulls) {
  auto def = engine_->CreateTable(T2());
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  const uint64_t t2 = (*def)->id;
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{1}, std::string("a"), int64_t{1}}).ok());
    ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{2}, std::string("a"), int64_t{2}}).ok());
    // NULLs never collide.
    ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{3}, std::string("n"), RowValue{}}).ok());
    ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{4}, std::string("n"), RowValue{}}).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto trx = engine_->Begin();
  auto dup = engine_->Insert(*trx, t2, Row{int64_t{5}, std::string("a"), int64_t{1}});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().mysql_errno(), 1062);
  EXPECT_EQ(dup.status().message(), "Duplicate entry 'a-1' for key 't2.uw'");
  // The failed statement left nothing behind.
  EXPECT_FALSE(engine_->Get(*trx, t2, Pk(5))->has_value());
  EXPECT_EQ(LookupIds(*engine_, *trx, t2, "uw", {std::string("a"), int64_t{1}}), (Ids{1}));
  // An update into a taken value fails too and keeps the row.
  auto up = engine_->Update(*trx, t2, Pk(2), Row{int64_t{2}, std::string("a"), int64_t{1}});
  ASSERT_FALSE(up.ok());
  EXPECT_EQ(up.status().mysql_errno(), 1062);
  auto row2 = engine_->Get(*trx, t2, Pk(2));
  ASSERT_TRUE(row2.ok() && row2->has_value());
  EXPECT_EQ(**row2, (Row{int64_t{2}, std::string("a"), int64_t{2}}));
  EXPECT_EQ(LookupIds(*engine_, *trx, t2, "uw", {std::string("a"), int64_t{2}}), (Ids{2}));
  // NULL lookups (IS NULL) find both rows.
  EXPECT_EQ(LookupIds(*engine_, *trx, t2, "uw", {std::string("n"), RowValue{}}), (Ids{3, 4}));
  // A value freed by a delete (or an update) can be reused, in the same trx.
  auto del = engine_->Delete(*trx, t2, Pk(1));
  ASSERT_TRUE(del.ok() && *del);
  ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{6}, std::string("a"), int64_t{1}}).ok());
  up = engine_->Update(*trx, t2, Pk(2), Row{int64_t{2}, std::string("b"), int64_t{2}});
  ASSERT_TRUE(up.ok() && *up);
  ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{7}, std::string("a"), int64_t{2}}).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  auto r = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *r, t2, "uw", {std::string("a"), int64_t{1}}), (Ids{6}));
  EXPECT_EQ(LookupIds(*engine_, *r, t2, "uw", {std::string("a"), int64_t{2}}), (Ids{7}));
  EXPECT_EQ(LookupIds(*engine_, *r, t2, "uw", {std::string("b"), int64_t{2}}), (Ids{2}));
  dup = engine_->Insert(*r, t2, Row{int64_t{8}, std::string("a"), int64_t{2}});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().mysql_errno(), 1062);
  ASSERT_TRUE(engine_->Commit(*r).ok());
}

TEST_F(EngineTest, UniqueValueFreedByUncommittedDeleteWaits) {
  auto def = engine_->CreateTable(T2());
  ASSERT_TRUE(def.ok());
  const uint64_t t2 = (*def)->id;
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx, t2, Row{int64_t{1}, std::string("a"), int64_t{1}}).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto a = engine_->Begin();
  auto del = engine_->Delete(*a, t2, Pk(1));
  ASSERT_TRUE(del.ok() && *del);
  auto b = engine_->Begin();
  b->set_lock_wait_timeout(50ms);
  auto ins = engine_->Insert(*b, t2, Row{int64_t{2}, std::string("a"), int64_t{1}});
  ASSERT_FALSE(ins.ok());
  EXPECT_EQ(ins.status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Rollback(*a).ok());
  ins = engine_->Insert(*b, t2, Row{int64_t{2}, std::string("a"), int64_t{1}});
  ASSERT_FALSE(ins.ok());
  EXPECT_EQ(ins.status().mysql_errno(), 1062);
  ASSERT_TRUE(engine_->Rollback(*b).ok());
}

TEST_F(EngineTest, RepeatableReadIndexLookupSeesOldRowAfterIndexedColumnUpdate) {
  InsertCommitted({R(1, "a", 10)});
  auto reader = engine_->Begin(IsolationLevel::kRepeatableRead);
  EXPECT_EQ(LookupIds(*engine_, *reader, t1_, "v_idx", {std::string("a")}), (Ids{1}));
  {
    auto w = engine_->Begin();
    auto up = engine_->Update(*w, t1_, Pk(1), R(1, "b", 10));
    ASSERT_TRUE(up.ok() && *up);
    ASSERT_TRUE(engine_->Commit(*w).ok());
  }
  {
    auto w = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*w, t1_, R(2, "a", 20)).ok());
    ASSERT_TRUE(engine_->Commit(*w).ok());
  }
  // The old version is still found under "a", and not under "b".
  std::vector<Row> rows;
  ASSERT_TRUE(engine_->IndexLookup(*reader, t1_, "v_idx", {std::string("a")}, [&](const Row& r) {
    rows.push_back(r);
    return true;
  }).ok());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], R(1, "a", 10));
  EXPECT_EQ(LookupIds(*engine_, *reader, t1_, "v_idx", {std::string("b")}), Ids{});
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  auto fresh = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *fresh, t1_, "v_idx", {std::string("a")}), (Ids{2}));
  EXPECT_EQ(LookupIds(*engine_, *fresh, t1_, "v_idx", {std::string("b")}), (Ids{1}));
  ASSERT_TRUE(engine_->Commit(*fresh).ok());
}

TEST_F(EngineTest, RowCountersMatchTheOperations) {
  EngineCounters c0 = engine_->Counters();
  EXPECT_EQ(c0.innodb_rows_inserted, 0u);
  EXPECT_EQ(c0.innodb_rows_read, 0u);
  EXPECT_EQ(c0.innodb_rows_updated, 0u);
  EXPECT_EQ(c0.innodb_rows_deleted, 0u);
  InsertCommitted({R(1, "a", 1), R(2, "b", 2), R(3, "a", 3), R(4, "c", 4)});
  auto trx = engine_->Begin();
  EXPECT_EQ(Get(*trx, 1), R(1, "a", 1));  // read 1
  EXPECT_EQ(Get(*trx, 9), std::nullopt);   // a miss reads nothing
  ASSERT_TRUE(*engine_->Update(*trx, t1_, Pk(2), R(2, "bb", 2)));
  ASSERT_FALSE(*engine_->Update(*trx, t1_, Pk(9), R(9, "x", 9)));  // not counted
  ASSERT_TRUE(*engine_->Delete(*trx, t1_, Pk(4)));
  ASSERT_FALSE(*engine_->Delete(*trx, t1_, Pk(4)));  // not counted
  EXPECT_FALSE(engine_->Insert(*trx, t1_, R(1, "dup", 0)).ok());  // 1062: not counted
  int scanned = 0;
  ASSERT_TRUE(engine_->Scan(*trx, t1_, [&](const Row&) { return ++scanned, true; }).ok());
  EXPECT_EQ(scanned, 3);  // read 3 (4 is deleted)
  int stopped = 0;
  ASSERT_TRUE(engine_->Scan(*trx, t1_, [&](const Row&) { return ++stopped, false; }).ok());
  EXPECT_EQ(stopped, 1);  // read 1
  int found = 0;
  ASSERT_TRUE(engine_->IndexLookup(*trx, t1_, "v_idx", Row{std::string("a")}, [&](const Row&) {
    return ++found, true;
  }).ok());
  EXPECT_EQ(found, 2);  // read 2
  ASSERT_TRUE(engine_->Commit(*trx).ok());

  EngineCounters c = engine_->Counters();
  EXPECT_EQ(c.innodb_rows_inserted, 4u);
  EXPECT_EQ(c.innodb_rows_read, 1u + 3u + 1u + 2u);
  EXPECT_EQ(c.innodb_rows_updated, 1u);
  EXPECT_EQ(c.innodb_rows_deleted, 1u);
  auto vars = c.AsStatusVars();
  ASSERT_EQ(vars.size(), 4u);
  EXPECT_EQ(vars[0].first, "Innodb_rows_inserted");
  EXPECT_EQ(vars[1].first, "Innodb_rows_read");
  EXPECT_EQ(vars[1].second, 7u);
  EXPECT_EQ(vars[2].first, "Innodb_rows_updated");
  EXPECT_EQ(vars[3].first, "Innodb_rows_deleted");
}

TEST_F(EngineTest, RowCountersSumAcrossThreads) {
  constexpr int kThreads = 4, kPerThread = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        auto trx = engine_->Begin();
        const int64_t id = t * 1000 + i;
        ASSERT_TRUE(engine_->Insert(*trx, t1_, R(id, "x", i)).ok());
        ASSERT_TRUE(engine_->Get(*trx, t1_, Pk(id)).ok());
        ASSERT_TRUE(engine_->Commit(*trx).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  EngineCounters c = engine_->Counters();
  EXPECT_EQ(c.innodb_rows_inserted, uint64_t{kThreads * kPerThread});
  EXPECT_EQ(c.innodb_rows_read, uint64_t{kThreads * kPerThread});
}

TEST_F(EngineTest, ScanRangeStartsAtTheKeyAndStopsAtTheLimit) {
  InsertCommitted({R(10, "a", 1), R(20, "b", 2), R(30, "c", 3), R(40, "d", 4), R(50, "e", 5)});
  auto del = engine_->Begin();
  ASSERT_TRUE(*engine_->Delete(*del, t1_, Pk(30)));
  ASSERT_TRUE(engine_->Commit(*del).ok());
  auto trx = engine_->Begin();
  auto ids = [&](int64_t from, uint64_t limit) {
    std::vector<int64_t> out;
    EXPECT_TRUE(engine_->ScanRange(*trx, t1_, Pk(from), limit, [&](const Row& r) {
      out.push_back(std::get<int64_t>(r[0]));
      return true;
    }).ok());
    return out;
  };
  EXPECT_EQ(ids(15, 2), (std::vector<int64_t>{20, 40}));  // skips the deleted 30
  EXPECT_EQ(ids(20, 0), (std::vector<int64_t>{20, 40, 50}));
  EXPECT_EQ(ids(51, 5), (std::vector<int64_t>{}));
  EXPECT_EQ(ids(0, 1), (std::vector<int64_t>{10}));
  EXPECT_FALSE(engine_->ScanRange(*trx, t1_, Row{}, 1, [](const Row&) { return true; }).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

// ---- RENAME TABLE, rebuilds (ALTER TABLE by copy), TRUNCATE

// Every row of table `id`, in clustered order.
std::vector<Row> AllRows(Engine& e, uint64_t id) {
  std::vector<Row> rows;
  auto trx = e.Begin();
  Status s = e.Scan(*trx, id, [&](const Row& r) {
    rows.push_back(r);
    return true;
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(e.Commit(*trx).ok());
  return rows;
}

// The names of the tables in `db`, temporary ones included.
std::vector<std::string> AllTableNames(Engine& e, std::string_view db) {
  std::vector<std::string> names;
  for (const auto& t : e.catalog().snapshot()->AllTablesIn(db)) names.push_back(t->name);
  return names;
}

TEST_F(EngineTest, RenameTableMovesRowsIndexesAndDatabase) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 20)});
  ASSERT_TRUE(engine_->CreateDatabase(DatabaseDef{"db2"}).ok());
  ASSERT_TRUE(engine_->CreateTable(TableDef{.schema = "db2", .name = "taken", .columns = {Col("x", ColumnType::kInt)}})
                  .ok());
  EXPECT_EQ(engine_->RenameTable("db", "nope", "db", "x").mysql_errno(), 1146);
  EXPECT_EQ(engine_->RenameTable("db", "t1", "db2", "taken").mysql_errno(), 1050);
  EXPECT_EQ(engine_->RenameTable("db", "t1", "nodb", "t1").mysql_errno(), 1049);
  EXPECT_EQ(engine_->RenameTable("db", "t1", "db", "#sql-x").mysql_errno(), 1103);
  EXPECT_EQ(engine_->CreateTable(TableDef{.schema = "db", .name = "#sql-1", .columns = {Col("x", ColumnType::kInt)}})
                .status()
                .mysql_errno(),
            1103);

  ASSERT_TRUE(engine_->RenameTable("db", "t1", "db2", "moved").ok());
  EXPECT_EQ(engine_->FindTable("db", "t1"), nullptr);
  auto def = engine_->FindTable("db2", "moved");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->id, t1_);  // same table, same trees
  {
    auto trx = engine_->Begin();
    EXPECT_EQ(Get(*trx, 2), R(2, "b", 20));
    EXPECT_EQ(LookupIds(*engine_, *trx, t1_, "v_idx", {std::string("a")}), (std::vector<int64_t>{1}));
    ASSERT_TRUE(engine_->Insert(*trx, t1_, R(3, "a", 30)).ok());
    auto dup = engine_->Insert(*trx, t1_, R(3, "c", 30));
    EXPECT_EQ(dup.status().message(), "Duplicate entry '3' for key 'moved.PRIMARY'");
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  // Several renames at once, as a swap through a third name.
  ASSERT_TRUE(engine_->RenameTables({{"db2", "moved", "db2", "tmp"},
                                     {"db2", "taken", "db2", "moved"},
                                     {"db2", "tmp", "db2", "taken"}})
                  .ok());
  EXPECT_EQ(engine_->FindTable("db2", "taken")->id, t1_);
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  OpenEngine();
  EXPECT_EQ(engine_->FindTable("db2", "taken")->id, t1_);
  EXPECT_EQ(AllRows(*engine_, t1_).size(), 3u);
  ASSERT_TRUE(engine_->CheckTable(t1_).ok());
}

// t1 with a new column `w` (INT) first and without `n`: the converter of
// such a rebuild.
TableDef T1Altered() {
  TableDef t;
  t.schema = "db";
  t.name = "t1";
  t.columns.push_back(Col("w", ColumnType::kInt));
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  ColumnDef v = Col("v", ColumnType::kVarChar);
  v.length = 32;
  t.columns.push_back(v);
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("v_idx", {"v"}, false));
  return t;
}

Result<Row> ToAltered(const Row& row, uint64_t) { return Row{int64_t{7}, row[0], row[1]}; }

TEST_F(EngineTest, RebuildCopiesConvertedRowsAndReplacesTheTable) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 20), R(3, "a", 30)});
  const uint32_t old_space = engine_->FindTable("db", "t1")->space_id;
  auto copied = engine_->RebuildTable("db", "t1", T1Altered(), ToAltered);
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(*copied, 3u);
  auto def = engine_->FindTable("db", "t1");
  ASSERT_NE(def, nullptr);
  EXPECT_NE(def->id, t1_);  // a new table in a new space
  EXPECT_EQ(def->columns[0].name, "w");
  EXPECT_EQ(engine_->catalog().snapshot()->FindTableById(t1_), nullptr);
  EXPECT_FALSE(*fs_.Exists("/data/space_" + std::to_string(old_space) + ".ibd"));
  EXPECT_EQ(AllTableNames(*engine_, "db"), (std::vector<std::string>{"t1"}));
  const uint64_t id = def->id;
  EXPECT_EQ(AllRows(*engine_, id),
            (std::vector<Row>{{int64_t{7}, int64_t{1}, std::string("a")},
                              {int64_t{7}, int64_t{2}, std::string("b")},
                              {int64_t{7}, int64_t{3}, std::string("a")}}));
  {
    auto trx = engine_->Begin();
    std::vector<int64_t> ids;
    ASSERT_TRUE(engine_->IndexLookup(*trx, id, "v_idx", {std::string("a")}, [&](const Row& r) {
                       ids.push_back(std::get<int64_t>(r[1]));
                       return true;
                     }).ok());
    EXPECT_EQ(ids, (std::vector<int64_t>{1, 3}));
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->CheckTable(id).ok());
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  OpenEngine();
  EXPECT_EQ(engine_->FindTable("db", "t1")->id, id);
  EXPECT_EQ(AllRows(*engine_, id).size(), 3u);
  EXPECT_EQ(engine_->recovery_info().incomplete_ddl, 0u);
}

TEST_F(EngineTest, FailedRebuildLeavesTheTableAsItWas) {
  InsertCommitted({R(1, "a", 10), R(2, "b", 10), R(3, "c", 30)});
  const std::vector<Row> before = AllRows(*engine_, t1_);
  // The converter's error aborts (e.g. strict mode's 1264).
  auto failed = engine_->RebuildTable("db", "t1", T1Altered(), [](const Row& row, uint64_t n) -> Result<Row> {
    if (n == 2) return Status::MySQL(1264, "22003", "Out of range value for column 'w' at row 2");
    return ToAltered(row, n);
  });
  EXPECT_EQ(failed.status().mysql_errno(), 1264);
  // A new UNIQUE key over duplicates: 1062 naming the altered table.
  TableDef unique = *engine_->FindTable("db", "t1");
  unique.indexes.push_back(Idx("n_idx", {"n"}, false));
  unique.indexes.back().unique = true;
  failed = engine_->RebuildTable("db", "t1", unique, [](const Row& row, uint64_t) -> Result<Row> { return row; });
  EXPECT_EQ(failed.status().mysql_errno(), 1062);
  EXPECT_EQ(failed.status().message(), "Duplicate entry '10' for key 't1.n_idx'");
  // The new name taken: nothing is copied.
  ASSERT_TRUE(engine_->CreateTable(TableDef{.schema = "db", .name = "u", .columns = {Col("x", ColumnType::kInt)}})
                  .ok());
  TableDef renamed = T1Altered();
  renamed.name = "u";
  EXPECT_EQ(engine_->RebuildTable("db", "t1", renamed, ToAltered).status().mysql_errno(), 1050);
  EXPECT_EQ(engine_->RebuildTable("db", "nope", renamed, ToAltered).status().mysql_errno(), 1146);

  EXPECT_EQ(engine_->FindTable("db", "t1")->id, t1_);
  EXPECT_EQ(AllRows(*engine_, t1_), before);
  EXPECT_EQ(AllTableNames(*engine_, "db"), (std::vector<std::string>{"t1", "u"}));
  EXPECT_EQ(engine_->catalog().ReferencedSpaces().size(), 2u);
  ASSERT_TRUE(engine_->CheckTable(t1_).ok());
}

TEST_F(EngineTest, RebuildCarriesTheAutoIncrementCounterAndMayRename) {
  TableDef ai;
  ai.schema = "db";
  ai.name = "ai";
  ColumnDef id = Col("id", ColumnType::kBigInt, false);
  id.auto_increment = true;
  ai.columns.push_back(id);
  ai.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  auto adef = engine_->CreateTable(ai);
  ASSERT_TRUE(adef.ok());
  {
    auto trx = engine_->Begin();
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(engine_->Insert(*trx, (*adef)->id, Row{RowValue()}).ok());
    ASSERT_TRUE(*engine_->Delete(*trx, (*adef)->id, Row{int64_t{5}}));
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  ASSERT_TRUE(engine_->CreateDatabase(DatabaseDef{"db2"}).ok());
  TableDef next = ai;
  next.schema = "db2";
  next.name = "renamed";
  next.columns.push_back(Col("extra", ColumnType::kInt));
  auto copied = engine_->RebuildTable("db", "ai", next, [](const Row& row, uint64_t) -> Result<Row> {
    return Row{row[0], RowValue()};
  });
  ASSERT_TRUE(copied.ok()) << copied.status().ToString();
  EXPECT_EQ(*copied, 4u);
  EXPECT_EQ(engine_->FindTable("db", "ai"), nullptr);
  auto def = engine_->FindTable("db2", "renamed");
  ASSERT_NE(def, nullptr);
  auto trx = engine_->Begin();
  auto gen = engine_->Insert(*trx, def->id, Row{RowValue(), RowValue()});
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(*gen, 6u);  // 5 was used before the rebuild
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  // AUTO_INCREMENT = n sets it (copied values can only raise it).
  copied = engine_->RebuildTable("db2", "renamed", *def, [](const Row& row, uint64_t) -> Result<Row> { return row; },
                                 100);
  ASSERT_TRUE(copied.ok());
  def = engine_->FindTable("db2", "renamed");
  auto trx2 = engine_->Begin();
  gen = engine_->Insert(*trx2, def->id, Row{RowValue(), RowValue()});
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(*gen, 100u);
  ASSERT_TRUE(engine_->Commit(*trx2).ok());
}

TEST_F(EngineTest, TruncateEmptiesTheTableAndResetsAutoIncrement) {
  TableDef ai;
  ai.schema = "db";
  ai.name = "ai";
  ColumnDef id = Col("id", ColumnType::kBigInt, false);
  id.auto_increment = true;
  ai.columns.push_back(id);
  ai.columns.push_back(Col("n", ColumnType::kInt));
  ai.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  ai.indexes.push_back(Idx("n_idx", {"n"}, false));
  auto adef = engine_->CreateTable(ai);
  ASSERT_TRUE(adef.ok());
  {
    auto trx = engine_->Begin();
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(engine_->Insert(*trx, (*adef)->id, Row{RowValue(), int64_t{i}}).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  EXPECT_EQ(engine_->TruncateTable("db", "nope").mysql_errno(), 1146);
  ASSERT_TRUE(engine_->TruncateTable("db", "ai").ok());
  auto def = engine_->FindTable("db", "ai");
  ASSERT_NE(def, nullptr);
  EXPECT_NE(def->FindIndex("n_idx"), nullptr);
  EXPECT_TRUE(AllRows(*engine_, def->id).empty());
  auto trx = engine_->Begin();
  auto gen = engine_->Insert(*trx, def->id, Row{RowValue(), int64_t{9}});
  ASSERT_TRUE(gen.ok());
  EXPECT_EQ(*gen, 1u);
  EXPECT_EQ(LookupIds(*engine_, *trx, def->id, "n_idx", {int64_t{9}}), (std::vector<int64_t>{1}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  // A table without a PRIMARY KEY (hidden row ids) too.
  auto hdef = engine_->CreateTable(TableDef{.schema = "db", .name = "h", .columns = {Col("x", ColumnType::kInt)}});
  ASSERT_TRUE(hdef.ok());
  {
    auto trx2 = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx2, (*hdef)->id, Row{int64_t{1}}).ok());
    ASSERT_TRUE(engine_->Commit(*trx2).ok());
  }
  ASSERT_TRUE(engine_->TruncateTable("db", "h").ok());
  def = engine_->FindTable("db", "h");
  EXPECT_TRUE(def->has_hidden_row_id());
  EXPECT_TRUE(AllRows(*engine_, def->id).empty());
}

}  // namespace
}  // namespace sluice::storage

namespace sluice::storage {
namespace {

class LockingReadTest : public EngineTest {
 protected:
  // A writer with a short lock wait: OK, or the MySQL errno it got.
  int TryInsert(int64_t id) {
    auto w = engine_->Begin();
    w->set_lock_wait_timeout(30ms);
    auto r = engine_->Insert(*w, t1_, R(id, "w", 0));
    const int err = r.ok() ? 0 : r.status().mysql_errno();
    EXPECT_TRUE(engine_->Rollback(*w).ok());
    return err;
  }
};

TEST_F(LockingReadTest, ForUpdateRowBlocksWritersAndReadsTheLatestVersion) {
  InsertCommitted({R(10, "a", 1)});
  auto reader = engine_->Begin();
  EXPECT_EQ(Get(*reader, 10), R(10, "a", 1));  // the snapshot is taken
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(*engine_->Update(*trx, t1_, Pk(10), R(10, "b", 2)));
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto locked = engine_->GetLocked(*reader, t1_, Pk(10), LockMode::kX);
  ASSERT_TRUE(locked.ok());
  EXPECT_EQ(*locked, R(10, "b", 2));   // latest, not the snapshot
  EXPECT_EQ(Get(*reader, 10), R(10, "a", 1));  // a plain read still uses the snapshot
  auto w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(10), R(10, "c", 3)).status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  ASSERT_TRUE(engine_->Commit(*reader).ok());
}

// A locking read through a secondary index (what a foreign key check reads
// too): the latest versions, each row once, under the key it has now.
TEST_F(LockingReadTest, IndexScanLockedReadsTheLatestVersionsEachOnce) {
  InsertCommitted({R(1, "a", 1), R(2, "a", 2), R(3, "b", 3), R(6, "z", 6)});
  auto reader = engine_->Begin();
  EXPECT_EQ(LookupIds(*engine_, *reader, t1_, "v_idx", {std::string("a")}), (Ids{1, 2}));  // the snapshot
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(engine_->Insert(*trx, t1_, R(4, "a", 4)).ok());
    ASSERT_TRUE(*engine_->Update(*trx, t1_, Pk(1), R(1, "c", 1)));  // its "a" entry is now stale
    ASSERT_TRUE(*engine_->Update(*trx, t1_, Pk(3), R(3, "a", 3)));
    ASSERT_TRUE(*engine_->Update(*trx, t1_, Pk(3), R(3, "b", 3)));  // and back: two entries, one "a"
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  std::vector<int64_t> ids;
  const Engine::KeyBound a{{std::string("a")}, true};
  ASSERT_TRUE(engine_->IndexScanLocked(*reader, t1_, 1, &a, &a, LockMode::kX, [&](const Row& r) {
                        ids.push_back(std::get<int64_t>(r[0]));
                        return true;
                      }).ok());
  EXPECT_EQ(ids, (std::vector<int64_t>{2, 4}));  // latest, each once; 1 and 3 are not "a" now
  EXPECT_EQ(LookupIds(*engine_, *reader, t1_, "v_idx", {std::string("a")}), (Ids{1, 2}));  // still the snapshot
  auto w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(4), R(4, "a", 40)).status().mysql_errno(), 1205);  // locked
  // A row whose stale entry was examined is locked too, as InnoDB locks
  // what it examines; a row with no entry under "a" is not.
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(3), R(3, "b", 30)).status().mysql_errno(), 1205);
  EXPECT_TRUE(engine_->Update(*w, t1_, Pk(6), R(6, "z", 60)).ok());
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  const Engine::KeyBound none{{}, true};
  EXPECT_FALSE(engine_->IndexScanLocked(*reader, t1_, 1, &none, &none, LockMode::kS, [](const Row&) { return true; })
                   .ok());
  EXPECT_FALSE(engine_->IndexScanLocked(*reader, t1_, 0, &a, &a, LockMode::kS, [](const Row&) { return true; }).ok());
  EXPECT_FALSE(engine_->IndexScanLocked(*reader, t1_, 9, &a, &a, LockMode::kS, [](const Row&) { return true; }).ok());
  ASSERT_TRUE(engine_->Commit(*reader).ok());
}

// A locking read by a secondary key locks those entries, the gaps around
// them and their rows, not the table (issue 18's UPDATE ... WHERE k = 1).
TEST_F(LockingReadTest, IndexScanLockedLocksTheEntriesTheirGapsAndTheirRowsOnly) {
  InsertCommitted({R(1, "a", 1), R(2, "b", 2), R(3, "b", 3), R(4, "d", 4)});
  auto trx = engine_->Begin();
  const Engine::KeyBound b{{std::string("b")}, true};
  std::vector<int64_t> ids;
  ASSERT_TRUE(engine_->IndexScanLocked(*trx, t1_, 1, &b, &b, LockMode::kX, [&](const Row& r) {
                        ids.push_back(std::get<int64_t>(r[0]));
                        return true;
                      }).ok());
  EXPECT_EQ(ids, (std::vector<int64_t>{2, 3}));
  auto w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(2), R(2, "b", 20)).status().mysql_errno(), 1205);  // its row
  EXPECT_TRUE(engine_->Update(*w, t1_, Pk(1), R(1, "a", 10)).ok());  // other rows are free
  EXPECT_TRUE(engine_->Update(*w, t1_, Pk(4), R(4, "d", 40)).ok());
  EXPECT_EQ(engine_->Insert(*w, t1_, R(5, "b", 5)).status().mysql_errno(), 1205);  // a phantom "b"
  EXPECT_EQ(engine_->Insert(*w, t1_, R(6, "c", 6)).status().mysql_errno(), 1205);  // the gap up to "d"
  EXPECT_EQ(engine_->Insert(*w, t1_, R(0, "az", 0)).status().mysql_errno(), 1205);  // the gap before "b"
  EXPECT_TRUE(engine_->Insert(*w, t1_, R(7, "e", 7)).ok());  // past the locked gaps
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  // READ COMMITTED: the entries and rows, no gaps.
  auto rc = engine_->Begin(IsolationLevel::kReadCommitted);
  ASSERT_TRUE(engine_->IndexScanLocked(*rc, t1_, 1, &b, &b, LockMode::kX, [](const Row&) { return true; }).ok());
  w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_TRUE(engine_->Insert(*w, t1_, R(5, "b", 5)).ok());
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(3), R(3, "b", 30)).status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  ASSERT_TRUE(engine_->Commit(*rc).ok());
}

// Purge leaves an entry whose gap a transaction locked: removing it would
// widen the next entry's unlocked gap over the locked one (InnoDB hands
// the gap lock to the next record; here the entry waits, as a locked
// delete-marked row does).
TEST_F(LockingReadTest, PurgeKeepsALockedSecondaryEntry) {
  InsertCommitted({R(20, "p", 1), R(21, "r", 2)});
  {
    auto trx = engine_->Begin();
    ASSERT_TRUE(*engine_->Update(*trx, t1_, Pk(21), R(21, "s", 2)));  // ("r", 21) is stale now
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  auto reader = engine_->Begin();
  const Engine::KeyBound b{{std::string("p")}, true};
  ASSERT_TRUE(engine_->IndexScanLocked(*reader, t1_, 1, &b, &b, LockMode::kX, [](const Row&) { return true; }).ok());
  // ("r", 21) bounds the locked gap after "p": purge must keep it.
  ASSERT_TRUE(engine_->Purge().ok());
  auto w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_EQ(engine_->Insert(*w, t1_, R(23, "p", 3)).status().mysql_errno(), 1205);
  EXPECT_EQ(engine_->Insert(*w, t1_, R(24, "q", 4)).status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  // Unlocked, it goes at the next pass.
  const uint64_t removed = engine_->purge_stats().entries_removed;
  ASSERT_TRUE(engine_->Purge().ok());
  ASSERT_TRUE(engine_->Purge().ok());
  EXPECT_GT(engine_->purge_stats().entries_removed, removed);
  EXPECT_TRUE(engine_->CheckTable(t1_, Engine::CheckLevel::kPurged).ok());
}

TEST_F(LockingReadTest, RangeForUpdateInRepeatableReadLocksTheGaps) {
  InsertCommitted({R(10, "a", 1), R(20, "b", 2), R(30, "c", 3)});
  auto trx = engine_->Begin();
  const Row from = Pk(10), to = Pk(20);
  std::vector<int64_t> ids;
  ASSERT_TRUE(engine_->ScanLocked(*trx, t1_, &from, &to, 0, LockMode::kX, [&](const Row& r) {
                        ids.push_back(std::get<int64_t>(r[0]));
                        return true;
                      }).ok());
  EXPECT_EQ(ids, (std::vector<int64_t>{10, 20}));
  EXPECT_EQ(TryInsert(15), 1205);  // inside the range
  EXPECT_EQ(TryInsert(25), 1205);  // the gap before the next key, 30
  EXPECT_EQ(TryInsert(5), 1205);   // the gap before 10
  EXPECT_EQ(TryInsert(35), 0);     // past 30: free
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  EXPECT_EQ(TryInsert(15), 0);
}

TEST_F(LockingReadTest, AnInsertWaitingForAGapLockGoesInWhenTheLockGoes) {
  InsertCommitted({R(10, "a", 1), R(20, "b", 2)});
  auto trx = engine_->Begin();
  const Row from = Pk(10), to = Pk(20);
  ASSERT_TRUE(engine_->ScanLocked(*trx, t1_, &from, &to, 0, LockMode::kS, [](const Row&) { return true; }).ok());
  // One insert into the locked gap, one past the last key (the supremum).
  auto w = engine_->Begin();
  std::thread inserter([&] {
    EXPECT_TRUE(engine_->Insert(*w, t1_, R(15, "w", 0)).ok());
    EXPECT_TRUE(engine_->Insert(*w, t1_, R(40, "w", 0)).ok());
    EXPECT_TRUE(engine_->Commit(*w).ok());
  });
  std::this_thread::sleep_for(50ms);
  auto seen = engine_->Begin();
  EXPECT_FALSE(Get(*seen, 15).has_value());  // still waiting
  ASSERT_TRUE(engine_->Rollback(*seen).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  inserter.join();
  auto after = engine_->Begin();
  EXPECT_EQ(Get(*after, 15), R(15, "w", 0));
  EXPECT_EQ(Get(*after, 40), R(40, "w", 0));
  ASSERT_TRUE(engine_->Commit(*after).ok());
}

TEST_F(LockingReadTest, SkipLockedLeavesOutTheRowsOthersHold) {
  InsertCommitted({R(10, "a", 1), R(20, "b", 2), R(30, "c", 3)});
  auto holder = engine_->Begin();
  ASSERT_TRUE(engine_->GetLocked(*holder, t1_, Pk(20), LockMode::kX).ok());
  auto trx = engine_->Begin();
  trx->set_lock_wait_timeout(0ms);
  trx->set_skip_locked(true);
  std::vector<int64_t> ids;
  ASSERT_TRUE(engine_->ScanLocked(*trx, t1_, nullptr, nullptr, 0, LockMode::kX, [&](const Row& r) {
                        ids.push_back(std::get<int64_t>(r[0]));
                        return true;
                      }).ok());
  EXPECT_EQ(ids, (std::vector<int64_t>{10, 30}));
  auto held = engine_->GetLocked(*trx, t1_, Pk(20), LockMode::kS);
  ASSERT_TRUE(held.ok());
  EXPECT_FALSE(held->has_value());
  // Without it, the same read fails at once (the zero timeout).
  trx->set_skip_locked(false);
  EXPECT_EQ(engine_->GetLocked(*trx, t1_, Pk(20), LockMode::kS).status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  ASSERT_TRUE(engine_->Commit(*holder).ok());
}

TEST_F(LockingReadTest, ReadCommittedLocksOnlyTheRecords) {
  InsertCommitted({R(10, "a", 1), R(20, "b", 2)});
  auto trx = engine_->Begin(IsolationLevel::kReadCommitted);
  ASSERT_TRUE(engine_->ScanLocked(*trx, t1_, nullptr, nullptr, 0, LockMode::kS, [](const Row&) { return true; }).ok());
  EXPECT_EQ(TryInsert(15), 0);
  auto w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(20), R(20, "x", 0)).status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(LockingReadTest, MissingRowForShareLocksItsGapAndSerializableReadsLock) {
  InsertCommitted({R(10, "a", 1), R(20, "b", 2)});
  auto trx = engine_->Begin();
  auto none = engine_->GetLocked(*trx, t1_, Pk(15), LockMode::kS);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(TryInsert(15), 1205);
  EXPECT_EQ(TryInsert(12), 1205);  // same gap
  EXPECT_EQ(TryInsert(25), 0);
  ASSERT_TRUE(engine_->Commit(*trx).ok());

  auto ser = engine_->Begin(IsolationLevel::kSerializable);
  EXPECT_EQ(Get(*ser, 10), R(10, "a", 1));
  auto w = engine_->Begin();
  w->set_lock_wait_timeout(30ms);
  EXPECT_EQ(engine_->Update(*w, t1_, Pk(10), R(10, "x", 0)).status().mysql_errno(), 1205);
  ASSERT_TRUE(engine_->Rollback(*w).ok());
  ASSERT_TRUE(engine_->Commit(*ser).ok());
}

}  // namespace
}  // namespace sluice::storage

namespace sluice::storage {
namespace {

// IndexScan over t2(id BIGINT PRIMARY KEY, k INT NULL, c VARCHAR(8) NULL,
// KEY k_idx(k), KEY kc_idx(k, c), KEY kd_idx(k DESC)) and a table with a
// two-part PRIMARY KEY, t3(a INT, b INT, PRIMARY KEY(a, b)).
class IndexScanTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    TableDef t2;
    t2.schema = "db";
    t2.name = "t2";
    t2.columns.push_back(Col("id", ColumnType::kBigInt, false));
    t2.columns.push_back(Col("k", ColumnType::kInt));
    ColumnDef c = Col("c", ColumnType::kVarChar);
    c.length = 8;
    t2.columns.push_back(c);
    t2.indexes.push_back(Idx("PRIMARY", {"id"}, true));
    t2.indexes.push_back(Idx("k_idx", {"k"}, false));
    t2.indexes.push_back(Idx("kc_idx", {"k", "c"}, false));
    IndexDef kd = Idx("kd_idx", {"k"}, false);
    kd.parts[0].desc = true;
    t2.indexes.push_back(kd);
    auto def2 = engine_->CreateTable(t2);
    ASSERT_TRUE(def2.ok()) << def2.status().ToString();
    t2_ = (*def2)->id;
    TableDef t3;
    t3.schema = "db";
    t3.name = "t3";
    t3.columns.push_back(Col("a", ColumnType::kInt, false));
    t3.columns.push_back(Col("b", ColumnType::kInt, false));
    t3.indexes.push_back(Idx("PRIMARY", {"a", "b"}, true));
    auto def3 = engine_->CreateTable(t3);
    ASSERT_TRUE(def3.ok()) << def3.status().ToString();
    t3_ = (*def3)->id;

    auto trx = engine_->Begin();
    for (Row row : {Row{int64_t{1}, int64_t{5}, std::string("x")}, Row{int64_t{2}, int64_t{3}, std::string("b")},
                    Row{int64_t{3}, int64_t{5}, std::string("a")}, Row{int64_t{4}, RowValue{}, std::string("n")},
                    Row{int64_t{5}, int64_t{8}, std::string("z")}, Row{int64_t{6}, int64_t{1}, std::string("q")},
                    Row{int64_t{7}, int64_t{5}, std::string("c")}}) {
      ASSERT_TRUE(engine_->Insert(*trx, t2_, row).ok());
    }
    for (auto [a, b] : {std::pair{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 1}}) {
      ASSERT_TRUE(engine_->Insert(*trx, t3_, Row{int64_t{a}, int64_t{b}}).ok());
    }
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  using Bound = Engine::KeyBound;
  static Bound B(Row key, bool inclusive = true) { return Bound{std::move(key), inclusive}; }

  // Column 0 of each row IndexScan returns (t3: a * 10 + b); at most
  // `stop_after` rows when not 0.
  std::vector<int64_t> Ids(EngineTrx& trx, uint64_t table, size_t index, const Bound* lo, const Bound* hi,
                           bool reverse = false, size_t stop_after = 0) {
    std::vector<int64_t> ids;
    Status s = engine_->IndexScan(trx, table, index, lo, hi, reverse, [&](const Row& row) {
      ids.push_back(table == t3_ ? std::get<int64_t>(row[0]) * 10 + std::get<int64_t>(row[1])
                                 : std::get<int64_t>(row[0]));
      return ids.size() != stop_after;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return ids;
  }
  std::vector<int64_t> K(EngineTrx& trx, const Bound* lo, const Bound* hi, bool reverse = false) {
    return Ids(trx, t2_, kK, lo, hi, reverse);
  }
  static Row I(int64_t v) { return Row{v}; }

  static constexpr size_t kK = 1, kKc = 2, kKd = 3;  // positions in t2's indexes
  uint64_t t2_ = 0, t3_ = 0;
  using V = std::vector<int64_t>;
};

TEST_F(IndexScanTest, SecondaryRangeInIndexOrderBothWays) {
  auto trx = engine_->Begin();
  const Bound ge3 = B(I(3)), gt3 = B(I(3), false), le5 = B(I(5)), lt5 = B(I(5), false), gt1 = B(I(1), false);
  EXPECT_EQ(K(*trx, &ge3, &le5), (V{2, 1, 3, 7}));  // k, then id
  EXPECT_EQ(K(*trx, &gt3, &le5), (V{1, 3, 7}));
  EXPECT_EQ(K(*trx, &ge3, &lt5), (V{2}));
  EXPECT_EQ(K(*trx, &gt1, nullptr), (V{2, 1, 3, 7, 5}));
  EXPECT_EQ(K(*trx, nullptr, &lt5), (V{4, 6, 2}));  // NULL sorts first
  EXPECT_EQ(K(*trx, &ge3, &le5, true), (V{7, 3, 1, 2}));
  EXPECT_EQ(K(*trx, &gt3, &lt5, true), (V{}));
  EXPECT_EQ(K(*trx, nullptr, nullptr, true), (V{5, 7, 3, 1, 2, 6, 4}));
  EXPECT_EQ(K(*trx, nullptr, &le5, true), (V{7, 3, 1, 2, 6, 4}));
  EXPECT_EQ(K(*trx, &gt1, nullptr, true), (V{5, 7, 3, 1, 2}));
  // NULL as a bound value: IS NULL, and IS NOT NULL as "after NULL".
  const Bound null = B(Row{RowValue{}}), after_null = B(Row{RowValue{}}, false);
  EXPECT_EQ(K(*trx, &null, &null), (V{4}));
  EXPECT_EQ(K(*trx, &after_null, nullptr), (V{6, 2, 1, 3, 7, 5}));
  // Stops when fn says so, in either direction.
  EXPECT_EQ(Ids(*trx, t2_, kK, &ge3, nullptr, false, 2), (V{2, 1}));
  EXPECT_EQ(Ids(*trx, t2_, kK, nullptr, nullptr, true, 3), (V{5, 7, 3}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(IndexScanTest, PrefixBoundsOnATwoPartIndexAndDescKeyParts) {
  auto trx = engine_->Begin();
  const Bound k5 = B(I(5));
  EXPECT_EQ(Ids(*trx, t2_, kKc, &k5, &k5), (V{3, 7, 1}));  // k = 5, ordered by c
  EXPECT_EQ(Ids(*trx, t2_, kKc, &k5, &k5, true), (V{1, 7, 3}));
  const Bound from_b = B(Row{int64_t{5}, std::string("b")});
  EXPECT_EQ(Ids(*trx, t2_, kKc, &from_b, &k5), (V{7, 1}));  // k = 5 AND c >= 'b'
  const Bound after_c = B(Row{int64_t{5}, std::string("c")}, false);
  EXPECT_EQ(Ids(*trx, t2_, kKc, &after_c, nullptr), (V{1, 5}));
  // A DESC part: the index's order is k descending (NULL last), and the
  // bounds are ends in that order.
  EXPECT_EQ(Ids(*trx, t2_, kKd, nullptr, nullptr), (V{5, 1, 3, 7, 2, 6, 4}));
  const Bound d5 = B(I(5)), d3 = B(I(3));
  EXPECT_EQ(Ids(*trx, t2_, kKd, &d5, &d3), (V{1, 3, 7, 2}));
  EXPECT_EQ(Ids(*trx, t2_, kKd, &d5, &d3, true), (V{2, 7, 3, 1}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(IndexScanTest, ClusteredIndexForwardBackwardAndByPrimaryKeyPrefix) {
  auto trx = engine_->Begin();
  EXPECT_EQ(Ids(*trx, t2_, 0, nullptr, nullptr, true), (V{7, 6, 5, 4, 3, 2, 1}));
  const Bound le5 = B(I(5)), gt3 = B(I(3), false), lt6 = B(I(6), false);
  EXPECT_EQ(Ids(*trx, t2_, 0, nullptr, &le5, true, 2), (V{5, 4}));  // ORDER BY id DESC LIMIT 2
  EXPECT_EQ(Ids(*trx, t2_, 0, &gt3, &lt6), (V{4, 5}));
  EXPECT_EQ(Ids(*trx, t2_, 0, &gt3, &lt6, true), (V{5, 4}));
  const Bound a2 = B(I(2));
  EXPECT_EQ(Ids(*trx, t3_, 0, &a2, &a2), (V{21, 22, 23}));
  EXPECT_EQ(Ids(*trx, t3_, 0, &a2, &a2, true), (V{23, 22, 21}));
  const Bound after_22 = B(Row{int64_t{2}, int64_t{2}}, false), a3 = B(I(3));
  EXPECT_EQ(Ids(*trx, t3_, 0, &after_22, &a3), (V{23, 31}));
  const Bound before_22 = B(Row{int64_t{2}, int64_t{2}}, false);
  EXPECT_EQ(Ids(*trx, t3_, 0, nullptr, &before_22, true), (V{21, 12, 11}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(IndexScanTest, BadArgumentsAreInvalid) {
  auto trx = engine_->Begin();
  auto scan = [&](uint64_t table, size_t index, const Bound* lo) {
    return engine_->IndexScan(*trx, table, index, lo, nullptr, false, [](const Row&) { return true; });
  };
  const Bound empty, too_many = B(Row{int64_t{1}, int64_t{2}}), wrong_kind = B(Row{std::string("x")});
  EXPECT_FALSE(scan(t2_, 4, nullptr).ok());
  EXPECT_FALSE(scan(t2_, kK, &empty).ok());
  EXPECT_FALSE(scan(t2_, kK, &too_many).ok());
  EXPECT_FALSE(scan(t2_, kK, &wrong_kind).ok());
  EXPECT_FALSE(scan(t2_ + 1000, 0, nullptr).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(IndexScanTest, AnOlderReadViewSeesTheOldKeys) {
  auto reader = engine_->Begin(IsolationLevel::kRepeatableRead);
  const Bound k3 = B(I(3)), k5 = B(I(5)), k9 = B(I(9));
  EXPECT_EQ(K(*reader, &k5, &k5), (V{1, 3, 7}));  // the view is taken here
  auto writer = engine_->Begin();
  ASSERT_TRUE(*engine_->Update(*writer, t2_, Row{int64_t{1}}, Row{int64_t{1}, int64_t{9}, std::string("x")}));
  ASSERT_TRUE(*engine_->Delete(*writer, t2_, Row{int64_t{2}}));
  ASSERT_TRUE(engine_->Insert(*writer, t2_, Row{int64_t{8}, int64_t{5}, std::string("m")}).ok());
  // The writer sees its own changes; the reader does not, committed or not.
  EXPECT_EQ(K(*writer, &k5, &k5), (V{3, 7, 8}));
  EXPECT_EQ(K(*writer, &k9, &k9), (V{1}));
  EXPECT_EQ(K(*reader, &k9, &k9), (V{}));
  ASSERT_TRUE(engine_->Commit(*writer).ok());
  EXPECT_EQ(K(*reader, &k5, &k5), (V{1, 3, 7}));
  EXPECT_EQ(K(*reader, &k3, &k3), (V{2}));
  EXPECT_EQ(K(*reader, &k9, &k9), (V{}));
  EXPECT_EQ(K(*reader, &k3, nullptr, true), (V{5, 7, 3, 1, 2}));  // each row once, under its old key
  EXPECT_EQ(Ids(*reader, t2_, kKd, nullptr, nullptr), (V{5, 1, 3, 7, 2, 6, 4}));
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  auto fresh = engine_->Begin();
  EXPECT_EQ(K(*fresh, &k5, &k5), (V{3, 7, 8}));
  EXPECT_EQ(K(*fresh, &k3, &k3), (V{}));
  EXPECT_EQ(K(*fresh, &k3, nullptr, true), (V{1, 5, 8, 7, 3}));
  EXPECT_EQ(K(*fresh, &k3, nullptr), (V{3, 7, 8, 5, 1}));
  // IndexLookup is the one-key case.
  EXPECT_EQ(LookupIds(*engine_, *fresh, t2_, "k_idx", Row{int64_t{9}}), (V{1}));
  ASSERT_TRUE(engine_->Commit(*fresh).ok());
}

TEST_F(IndexScanTest, RolledBackKeyChangesLeaveNoRowsBehind) {
  auto writer = engine_->Begin();
  ASSERT_TRUE(*engine_->Update(*writer, t2_, Row{int64_t{3}}, Row{int64_t{3}, int64_t{6}, std::string("a")}));
  ASSERT_TRUE(engine_->Insert(*writer, t2_, Row{int64_t{9}, int64_t{6}, std::string("y")}).ok());
  const Bound k6 = B(I(6));
  EXPECT_EQ(K(*writer, &k6, &k6), (V{3, 9}));
  ASSERT_TRUE(engine_->Rollback(*writer).ok());
  auto trx = engine_->Begin();
  EXPECT_EQ(K(*trx, &k6, &k6), (V{}));
  EXPECT_EQ(K(*trx, nullptr, nullptr), (V{4, 6, 2, 1, 3, 7, 5}));
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  ASSERT_TRUE(engine_->CheckTable(t2_).ok());
}

// Readers scanning a secondary index while writers move rows between keys
// (and purge removes the stale entries) see every row exactly once, in key
// order: each entry counts only under the key its visible version has.
TEST_F(IndexScanTest, ConcurrentKeyChangesNeitherLoseNorRepeatRows) {
  constexpr int64_t kRows = 40;
  {
    auto trx = engine_->Begin();
    for (int64_t id = 100; id < 100 + kRows; ++id) {
      ASSERT_TRUE(engine_->Insert(*trx, t2_, Row{id, id % 7, std::string("w")}).ok());
    }
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::thread writer([&] {
    uint64_t n = 0;
    while (!stop.load()) {
      auto trx = engine_->Begin();
      const int64_t id = 100 + static_cast<int64_t>(n * 7 % kRows);
      auto up = engine_->Update(*trx, t2_, Row{id}, Row{id, static_cast<int64_t>(n % 11), std::string("w")});
      if (!up.ok() || !*up || !engine_->Commit(*trx).ok()) failures.fetch_add(1);
      ++n;
    }
  });
  const Bound from = B(I(0));
  for (int round = 0; round < 200; ++round) {
    const bool reverse = round % 2 == 1;
    auto trx = engine_->Begin();
    std::vector<int64_t> ids;
    int64_t last_k = reverse ? INT64_MAX : INT64_MIN;
    bool ordered = true;
    ASSERT_TRUE(engine_->IndexScan(*trx, t2_, kK, &from, nullptr, reverse, [&](const Row& row) {
                          const int64_t k = std::get<int64_t>(row[1]);
                          ordered = ordered && (reverse ? k <= last_k : k >= last_k);
                          last_k = k;
                          if (std::get<int64_t>(row[0]) >= 100) ids.push_back(std::get<int64_t>(row[0]));
                          return true;
                        }).ok());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
    std::sort(ids.begin(), ids.end());
    ASSERT_EQ(ids.size(), static_cast<size_t>(kRows)) << "round " << round;
    for (int64_t i = 0; i < kRows; ++i) ASSERT_EQ(ids[i], 100 + i);
    ASSERT_TRUE(ordered);
  }
  stop.store(true);
  writer.join();
  EXPECT_EQ(failures.load(), 0);
  ASSERT_TRUE(engine_->CheckTable(t2_).ok());
}

TEST_F(IndexScanTest, ScanLockedTakesPrimaryKeyPrefixes) {
  auto trx = engine_->Begin();
  const Row a2{int64_t{2}};
  std::vector<int64_t> ids;
  ASSERT_TRUE(engine_->ScanLocked(*trx, t3_, &a2, &a2, 0, LockMode::kX, [&](const Row& r) {
                        ids.push_back(std::get<int64_t>(r[0]) * 10 + std::get<int64_t>(r[1]));
                        return true;
                      }).ok());
  EXPECT_EQ(ids, (V{21, 22, 23}));
  auto try_insert = [&](int64_t a, int64_t b) {
    auto w = engine_->Begin();
    w->set_lock_wait_timeout(30ms);
    auto r = engine_->Insert(*w, t3_, Row{a, b});
    const int err = r.ok() ? 0 : r.status().mysql_errno();
    EXPECT_TRUE(engine_->Rollback(*w).ok());
    return err;
  };
  EXPECT_EQ(try_insert(2, 9), 1205);  // inside the range: gap before (3, 1)
  EXPECT_EQ(try_insert(1, 9), 1205);  // gap before (2, 1)
  EXPECT_EQ(try_insert(3, 5), 0);     // past (3, 1)
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

// Keys on text compare under the column's collation (row_codec.h): a
// case-insensitive PRIMARY KEY or UNIQUE refuses 'bob' after 'Bob', and a
// lookup by either spelling finds the row as it was written.
TEST_F(EngineTest, TextKeysFollowTheColumnsCollation) {
  TableDef def;
  def.schema = "db";
  def.name = "people";
  ColumnDef name = Col("name", ColumnType::kVarChar, false);
  name.length = 50;  // the table's default collation: utf8mb4_0900_ai_ci
  def.columns.push_back(name);
  ColumnDef email = Col("email", ColumnType::kVarChar);
  email.length = 50;
  email.collation = "utf8mb4_general_ci";  // PAD SPACE
  def.columns.push_back(email);
  def.indexes.push_back(Idx("PRIMARY", {"name"}, true));
  IndexDef u = Idx("email", {"email"}, false);
  u.unique = true;
  def.indexes.push_back(u);
  auto created = engine_->CreateTable(def);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const uint64_t id = (*created)->id;
  EXPECT_EQ((*created)->indexes[0].key_format, kCurrentKeyFormat);
  auto trx = engine_->Begin();
  ASSERT_TRUE(engine_->Insert(*trx, id, Row{std::string("Bob"), std::string("bob@x")}).ok());
  EXPECT_EQ(engine_->Insert(*trx, id, Row{std::string("bob"), std::string("other@x")}).status().mysql_errno(), 1062);
  EXPECT_EQ(engine_->Insert(*trx, id, Row{std::string("Ann"), std::string("BOB@X  ")}).status().mysql_errno(),
            1062);
  // NO PAD: a trailing space makes another key.
  ASSERT_TRUE(engine_->Insert(*trx, id, Row{std::string("bob "), std::string("b2@x")}).ok());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
  auto reader = engine_->Begin();
  auto got = engine_->Get(*reader, id, Row{std::string("BOB")});
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ(**got, (Row{std::string("Bob"), std::string("bob@x")}));
  std::vector<std::string> names;
  ASSERT_TRUE(engine_->IndexLookup(*reader, id, "email", Row{std::string("BOB@x ")}, [&](const Row& r) {
    names.push_back(std::get<std::string>(r[0]));
    return true;
  }).ok());
  EXPECT_EQ(names, std::vector<std::string>{"Bob"});
  ASSERT_TRUE(engine_->Commit(*reader).ok());
}

}  // namespace
}  // namespace sluice::storage
