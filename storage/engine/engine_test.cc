#include "storage/engine/engine.h"
#include "storage/engine/engine_test_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "storage/io/mem_file_system.h"

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

  MemFileSystem fs_;
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
