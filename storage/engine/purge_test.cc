// Purge: delete-marked records and stale secondary entries go once no read
// view needs them, never before; locked rows wait; a crash leaves work to
// the after-recovery sweep.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include "storage/engine/engine.h"
#include "storage/engine/engine_internal.h"
#include "storage/engine/engine_test_util.h"
#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

using namespace std::chrono_literals;
using test::Col;
using test::Idx;

constexpr char kDir[] = "/data";

// t(id BIGINT PRIMARY KEY, k BIGINT, v VARCHAR(64), KEY k_idx(k), KEY v_idx(v))
TableDef T() {
  TableDef t;
  t.schema = "db";
  t.name = "t";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  t.columns.push_back(Col("k", ColumnType::kBigInt));
  ColumnDef v = Col("v", ColumnType::kVarChar);
  v.length = 64;
  t.columns.push_back(v);
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("k_idx", {"k"}, false));
  t.indexes.push_back(Idx("v_idx", {"v"}, false));
  return t;
}

Row R(int64_t id, int64_t k, std::string v = "x") { return Row{id, k, std::move(v)}; }
Row Pk(int64_t id) { return Row{id}; }

class PurgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Open();
    ASSERT_TRUE(engine_->CreateDatabase(DatabaseDef{"db"}).ok());
    auto def = engine_->CreateTable(T());
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    t_ = (*def)->id;
  }

  void Open(std::chrono::milliseconds purge_interval = 0ms) {
    Engine::Options o;
    o.buffer_pool_bytes = size_t{8} << 20;
    o.checkpoint_interval = 0ms;
    o.log_flush_interval = 0ms;
    o.purge_interval = purge_interval;
    auto e = Engine::Open(&fs_, kDir, o);
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    if (auto def = engine_->FindTable("db", "t")) t_ = def->id;
  }

  void Committed(const std::function<void(EngineTrx&)>& body) {
    auto trx = engine_->Begin();
    body(*trx);
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  // The ids IndexLookup(index, key) returns to `trx`.
  std::vector<int64_t> Lookup(EngineTrx& trx, std::string_view index, RowValue key) {
    return test::LookupIds(*engine_, trx, t_, index, Row{std::move(key)});
  }

  Engine::PurgeStats PurgeNow() {
    Status s = engine_->Purge();
    EXPECT_TRUE(s.ok()) << s.ToString();
    return engine_->purge_stats();
  }

  void ExpectPurged() {
    Status s = engine_->CheckTable(t_, Engine::CheckLevel::kPurged);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }

  io::MemFileSystem fs_;
  std::unique_ptr<Engine> engine_;
  uint64_t t_ = 0;
};

TEST_F(PurgeTest, DeletedRowsAndTheirEntriesGoOnceCommitted) {
  Committed([&](EngineTrx& trx) {
    for (int64_t i = 0; i < 100; ++i) ASSERT_TRUE(engine_->Insert(trx, t_, R(i, i % 10)).ok());
  });
  Committed([&](EngineTrx& trx) {
    for (int64_t i = 0; i < 100; i += 2) ASSERT_TRUE(*engine_->Delete(trx, t_, Pk(i)));
  });
  EXPECT_TRUE(engine_->CheckTable(t_, Engine::CheckLevel::kPurged).IsCorruption());  // 50 delete-marked
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.rows_removed, 50u);
  EXPECT_EQ(st.entries_removed, 100u);  // k_idx and v_idx
  EXPECT_EQ(st.waiting, 0u);
  ExpectPurged();
  auto trx = engine_->Begin();
  EXPECT_EQ(Lookup(*trx, "k_idx", int64_t{1}), (std::vector<int64_t>{1, 11, 21, 31, 41, 51, 61, 71, 81, 91}));
  EXPECT_TRUE(Lookup(*trx, "k_idx", int64_t{2}).empty());
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(PurgeTest, AnOpenReadViewKeepsWhatItSeesUntilItCloses) {
  Committed([&](EngineTrx& trx) {
    ASSERT_TRUE(engine_->Insert(trx, t_, R(1, 10, "one")).ok());
    ASSERT_TRUE(engine_->Insert(trx, t_, R(2, 20, "two")).ok());
  });
  auto reader = engine_->Begin();  // REPEATABLE READ: the view is taken at the first read
  EXPECT_EQ(Lookup(*reader, "k_idx", int64_t{10}), std::vector<int64_t>{1});
  Committed([&](EngineTrx& trx) {
    ASSERT_TRUE(*engine_->Delete(trx, t_, Pk(1)));
    ASSERT_TRUE(*engine_->Update(trx, t_, Pk(2), R(2, 200, "two")));
  });
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.rows_removed, 0u);
  EXPECT_EQ(st.entries_removed, 0u);
  // The reader still finds the old versions through the old entries.
  EXPECT_EQ(Lookup(*reader, "k_idx", int64_t{10}), std::vector<int64_t>{1});
  EXPECT_EQ(Lookup(*reader, "k_idx", int64_t{20}), std::vector<int64_t>{2});
  EXPECT_EQ(Lookup(*reader, "v_idx", std::string("one")), std::vector<int64_t>{1});
  EXPECT_TRUE(Lookup(*reader, "k_idx", int64_t{200}).empty());
  ASSERT_TRUE(engine_->Commit(*reader).ok());

  st = PurgeNow();
  EXPECT_EQ(st.rows_removed, 1u);
  EXPECT_EQ(st.entries_removed, 3u);  // row 1's two, row 2's k=20
  ExpectPurged();
  auto trx = engine_->Begin();
  EXPECT_TRUE(Lookup(*trx, "k_idx", int64_t{20}).empty());
  EXPECT_EQ(Lookup(*trx, "k_idx", int64_t{200}), std::vector<int64_t>{2});
  EXPECT_EQ(Lookup(*trx, "v_idx", std::string("two")), std::vector<int64_t>{2});
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(PurgeTest, AnEntrySomeNewerVersionStillHasStays) {
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(engine_->Insert(trx, t_, R(1, 1)).ok()); });
  auto reader = engine_->Begin();
  ASSERT_TRUE(engine_->Get(*reader, t_, Pk(1)).ok());  // sees k=1
  // k: 1 -> 2 -> 1, each committed. The entry k=1 is the latest row's again.
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Update(trx, t_, Pk(1), R(1, 2))); });
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Update(trx, t_, Pk(1), R(1, 1))); });
  PurgeNow();  // the reader pins both updates
  EXPECT_EQ(Lookup(*reader, "k_idx", int64_t{1}), std::vector<int64_t>{1});
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.entries_removed, 1u);  // k=2 only
  ExpectPurged();
  auto trx = engine_->Begin();
  EXPECT_EQ(Lookup(*trx, "k_idx", int64_t{1}), std::vector<int64_t>{1});
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

TEST_F(PurgeTest, AnInsertThatReusedADeleteMarkedRecordLeavesOnlyTheOldEntries) {
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(engine_->Insert(trx, t_, R(3, 30, "old")).ok()); });
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Delete(trx, t_, Pk(3))); });
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(engine_->Insert(trx, t_, R(3, 31, "old")).ok()); });
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.rows_removed, 0u);      // the record lives on as the new row
  EXPECT_EQ(st.entries_removed, 1u);  // k=30; v='old' is the new row's too
  ExpectPurged();
}

TEST_F(PurgeTest, RolledBackChangesLeaveNothingToPurge) {
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(engine_->Insert(trx, t_, R(1, 1)).ok()); });
  auto trx = engine_->Begin();
  ASSERT_TRUE(*engine_->Update(*trx, t_, Pk(1), R(1, 5)));
  ASSERT_TRUE(*engine_->Delete(*trx, t_, Pk(1)));
  ASSERT_TRUE(engine_->Insert(*trx, t_, R(2, 2)).ok());
  ASSERT_TRUE(engine_->Rollback(*trx).ok());
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.rows_removed + st.entries_removed, 0u);
  ExpectPurged();
}

// A locking read holds a next-key lock on the delete-marked record: purging
// it would lose the gap the lock protects. It waits until the lock goes.
TEST_F(PurgeTest, ALockedRecordWaitsForItsLocksAndTheGapStaysProtected) {
  Committed([&](EngineTrx& trx) {
    for (int64_t i : {10, 20, 30}) ASSERT_TRUE(engine_->Insert(trx, t_, R(i, i)).ok());
  });
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Delete(trx, t_, Pk(20))); });
  auto locker = engine_->Begin();
  const Row from = Pk(15), to = Pk(25);
  std::vector<int64_t> seen;
  ASSERT_TRUE(engine_->ScanLocked(*locker, t_, &from, &to, 0, LockMode::kX, [&](const Row& r) {
    seen.push_back(std::get<int64_t>(r[0]));
    return true;
  }).ok());
  EXPECT_TRUE(seen.empty());
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.rows_removed, 0u);
  EXPECT_EQ(st.waiting, 1u);
  // The gap (10, 30) is still locked: an insert of 15 waits (here: times out).
  auto inserter = engine_->Begin();
  inserter->set_lock_wait_timeout(0ms);
  Result<uint64_t> ins = engine_->Insert(*inserter, t_, R(15, 15));
  EXPECT_EQ(ins.status().mysql_errno(), 1205) << ins.status().ToString();
  ASSERT_TRUE(engine_->Rollback(*inserter).ok());
  ASSERT_TRUE(engine_->Commit(*locker).ok());
  st = PurgeNow();
  EXPECT_EQ(st.rows_removed, 1u);
  EXPECT_EQ(st.waiting, 0u);
  ExpectPurged();
}

// An update of a table without secondary indexes leaves nothing a lock
// guards: purged while the row's next writer holds it, not left waiting
// (and retried every pass) behind it; the replaced version's overflow
// chain goes too.
TEST_F(PurgeTest, AnUpdateOfATableWithoutSecondaryIndexesDoesNotWaitForTheRowsLocks) {
  TableDef p;
  p.schema = "db";
  p.name = "p";
  p.columns.push_back(Col("id", ColumnType::kBigInt, false));
  ColumnDef v = Col("v", ColumnType::kVarChar);
  v.length = 30000;
  p.columns.push_back(v);
  p.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  auto def = engine_->CreateTable(p);
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  const uint64_t pt = (*def)->id;
  const std::string big(20000, 'x');
  Committed([&](EngineTrx& trx) {
    ASSERT_TRUE(engine_->Insert(trx, pt, Row{int64_t{1}, big}).ok());
    ASSERT_TRUE(engine_->Insert(trx, pt, Row{int64_t{2}, std::string("small")}).ok());
  });
  Committed([&](EngineTrx& trx) {
    ASSERT_TRUE(*engine_->Update(trx, pt, Pk(1), Row{int64_t{1}, std::string("was big")}));
    ASSERT_TRUE(*engine_->Update(trx, pt, Pk(2), Row{int64_t{2}, std::string("still small")}));
  });
  auto locker = engine_->Begin();
  ASSERT_TRUE(*engine_->Update(*locker, pt, Pk(1), Row{int64_t{1}, std::string("next")}));
  ASSERT_TRUE(*engine_->Update(*locker, pt, Pk(2), Row{int64_t{2}, std::string("next")}));
  const uint64_t chains_before = engine_->purge_stats().chains_freed;
  Engine::PurgeStats st = PurgeNow();
  EXPECT_EQ(st.waiting, 0u);
  EXPECT_EQ(st.chains_freed, chains_before + 1);
  ASSERT_TRUE(engine_->Commit(*locker).ok());
  st = PurgeNow();
  EXPECT_EQ(st.waiting, 0u);
  auto reader = engine_->Begin();
  Result<std::optional<Row>> row = engine_->Get(*reader, pt, Pk(1));
  ASSERT_TRUE(row.ok() && row->has_value());
  EXPECT_EQ(std::get<std::string>((**row)[1]), "next");
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  EXPECT_TRUE(engine_->CheckTable(pt, Engine::CheckLevel::kPurged).ok());
}

TEST_F(PurgeTest, ACrashLeavesWorkToTheSweepAndACleanCloseLeavesNone) {
  Committed([&](EngineTrx& trx) {
    for (int64_t i = 0; i < 40; ++i) ASSERT_TRUE(engine_->Insert(trx, t_, R(i, i)).ok());
  });
  Committed([&](EngineTrx& trx) {
    for (int64_t i = 0; i < 40; i += 4) ASSERT_TRUE(*engine_->Delete(trx, t_, Pk(i)));
    for (int64_t i = 1; i < 40; i += 4) ASSERT_TRUE(*engine_->Update(trx, t_, Pk(i), R(i, i + 1000)));
  });
  // Nothing purged; the process dies (a commit that returned is durable).
  fs_.DropUnsyncedData();
  engine_->SimulateCrashForTesting();
  engine_.reset();
  Open();
  EXPECT_TRUE(engine_->purge_stats().sweep_pending);
  EXPECT_TRUE(engine_->CheckTable(t_, Engine::CheckLevel::kPurged).IsCorruption());
  Engine::PurgeStats st = PurgeNow();
  EXPECT_FALSE(st.sweep_pending);
  EXPECT_EQ(st.rows_removed, 10u);
  EXPECT_EQ(st.entries_removed, 20u + 10u);  // the deleted rows' two, the updated rows' old k
  ExpectPurged();
  {
    auto trx = engine_->Begin();
    EXPECT_EQ(Lookup(*trx, "k_idx", int64_t{1001}), std::vector<int64_t>{1});
    EXPECT_TRUE(Lookup(*trx, "k_idx", int64_t{1}).empty());
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  // A clean Close purges what is left and says so: no sweep at the next Open.
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Delete(trx, t_, Pk(2))); });
  ASSERT_TRUE(engine_->Close().ok());
  engine_.reset();
  Open();
  EXPECT_FALSE(engine_->purge_stats().sweep_pending);
  ExpectPurged();
  // An idle engine's checkpoint writes nothing, so the clean state holds.
  const uint64_t before = engine_->redo().current_lsn();
  ASSERT_TRUE(engine_->Checkpoint().ok());
  EXPECT_EQ(engine_->redo().current_lsn(), before);
  engine_->SimulateCrashForTesting();
  engine_.reset();
  Open();
  EXPECT_FALSE(engine_->purge_stats().sweep_pending);
}

// Session threads free undo logs too (MaybePurge: every 32nd writing commit,
// under the purge limit of that moment, newer than the one the purge pass
// read). So a log can go while purge walks a row's versions, between
// SeenByAll saying the version's writer is not seen by all and the Fetch of
// its undo record. Purge failed there ("undo record not found: log purged
// or never written") and dropped the row's work, leaving its stale entry.
// A log that went is one every view sees: the walk ends there.
TEST_F(PurgeTest, AnUndoLogASessionFreesWhilePurgeFollowsItEndsTheWalk) {
  TableDef other = T();
  other.name = "t2";
  auto t2 = engine_->CreateTable(other);
  ASSERT_TRUE(t2.ok()) << t2.status().ToString();
  const uint64_t t2_id = (*t2)->id;
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(engine_->Insert(trx, t_, R(1, 1)).ok()); });
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Update(trx, t_, Pk(1), R(1, 2))); });
  auto reader = engine_->Begin();
  ASSERT_TRUE(engine_->Get(*reader, t_, Pk(1)).ok());  // sees k=2: pins the next update's undo
  Committed([&](EngineTrx& trx) { ASSERT_TRUE(*engine_->Update(trx, t_, Pk(1), R(1, 3))); });

  // The pass frees the first update's log and checks its k=1 entry: the
  // latest version (k=3) is the second update's, whose log the reader pins.
  // Just before purge fetches that log's record, the reader ends and a
  // session thread's FreeUndo frees the log.
  int fired = 0;
  engine_internal::sync_points.purge_before_undo_fetch = [&] {
    if (fired++ != 0) return;
    ASSERT_TRUE(engine_->Commit(*reader).ok());
    std::thread session([&] {
      // A new thread: its 32nd writing commit runs FreeUndo. Another table,
      // so its row locks are not in the lock shard the pass holds.
      for (int64_t i = 0; i < 32; ++i) {
        Committed([&](EngineTrx& trx) { ASSERT_TRUE(engine_->Insert(trx, t2_id, R(i, i)).ok()); });
      }
    });
    session.join();
  };
  Status s = engine_->Purge();
  engine_internal::sync_points.purge_before_undo_fetch = nullptr;
  EXPECT_EQ(fired, 1);
  EXPECT_TRUE(s.ok()) << s.ToString();
  Engine::PurgeStats st = PurgeNow();  // the second update's k=2, queued by the session thread
  EXPECT_EQ(st.entries_removed, 2u);   // k=1 and k=2; v='x' is the latest row's
  ExpectPurged();
  auto trx = engine_->Begin();
  EXPECT_TRUE(Lookup(*trx, "k_idx", int64_t{1}).empty());
  EXPECT_EQ(Lookup(*trx, "k_idx", int64_t{3}), std::vector<int64_t>{1});
  ASSERT_TRUE(engine_->Commit(*trx).ok());
}

// Writers insert, update (moving keys) and delete while the purge thread
// runs every millisecond and REPEATABLE READ readers check that what they
// see does not change under them. At the end nothing is left to purge.
TEST_F(PurgeTest, ConcurrentWritersReadersAndBackgroundPurgeAgree) {
  engine_.reset();
  Open(/*purge_interval=*/1ms);
  constexpr int kWriters = 3;
  constexpr int kKeys = 64;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(w);
      for (int i = 0; i < 400; ++i) {
        auto trx = engine_->Begin();
        Status s;
        for (int op = 0; op < 3 && s.ok(); ++op) {
          const int64_t id = rng() % kKeys;
          switch (rng() % 3) {
            case 0: s = engine_->Insert(*trx, t_, R(id, rng() % 8, "v" + std::to_string(rng() % 4))).status(); break;
            case 1: s = engine_->Update(*trx, t_, Pk(id), R(id, rng() % 8, "v" + std::to_string(rng() % 4))).status(); break;
            default: s = engine_->Delete(*trx, t_, Pk(id)).status(); break;
          }
          if (s.mysql_errno() == 1062) s = Status::OK();
        }
        if (s.ok() && rng() % 4 != 0) {
          s = engine_->Commit(*trx);
        } else {
          s = engine_->Rollback(*trx);
        }
        if (!s.ok()) ++failures;  // 1205/1213 roll back above; a failed end is a bug
      }
    });
  }
  auto snapshot = [&](EngineTrx& trx) {
    std::map<int64_t, std::vector<int64_t>> by_k;  // k -> ids, through k_idx
    for (int64_t k = 0; k < 8; ++k) by_k[k] = Lookup(trx, "k_idx", k);
    std::map<int64_t, int64_t> rows;  // id -> k, through the clustered index
    EXPECT_TRUE(engine_->Scan(trx, t_, [&](const Row& r) {
      rows[std::get<int64_t>(r[0])] = std::get<int64_t>(r[1]);
      return true;
    }).ok());
    return std::make_pair(by_k, rows);
  };
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        auto trx = engine_->Begin();
        auto [by_k, rows] = snapshot(*trx);
        std::this_thread::sleep_for(2ms);
        auto [by_k2, rows2] = snapshot(*trx);
        // Repeatable, and the secondary index agrees with the rows.
        if (by_k != by_k2 || rows != rows2) ++failures;
        size_t through_index = 0;
        for (auto& [k, ids] : by_k) {
          through_index += ids.size();
          for (int64_t id : ids) {
            if (!rows.count(id) || rows[id] != k) ++failures;
          }
        }
        if (through_index != rows.size()) ++failures;
        (void)engine_->Commit(*trx);
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  stop = true;
  for (size_t i = kWriters; i < threads.size(); ++i) threads[i].join();
  EXPECT_EQ(failures.load(), 0);
  PurgeNow();
  ExpectPurged();
  EXPECT_GT(engine_->purge_stats().passes, 1u);
}

}  // namespace
}  // namespace sluice::storage
