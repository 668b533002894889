#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "storage/trx/undo_log.h"
#include "storage/trx/undo_record.h"

namespace sluice::storage {
namespace {

UndoRecord InsertRec(uint64_t table, std::string pk) {
  UndoRecord r;
  r.type = UndoType::kInsert;
  r.table_id = table;
  r.primary_key = std::move(pk);
  return r;
}

UndoRecord UpdateRec(uint64_t table, std::string pk, TrxId prev, RollPtr prev_roll,
                     std::vector<UndoColumn> cols, UndoType type = UndoType::kUpdate) {
  UndoRecord r;
  r.type = type;
  r.table_id = table;
  r.primary_key = std::move(pk);
  r.prev_trx_id = prev;
  r.prev_roll_ptr = prev_roll;
  r.before_image = std::move(cols);
  return r;
}

TEST(UndoRecordTest, EncodeDecodeRoundTripsEveryType) {
  std::vector<UndoRecord> recs;
  recs.push_back(InsertRec(7, std::string("k\0ey", 4)));
  recs.push_back(UpdateRec(1ull << 40, "pk", 123456789, RollPtr::Make(true, 0x1234567890ull),
                           {{3, std::string(300, 'x')}, {0, std::nullopt}, {9, std::string()}}));
  UndoRecord del = UpdateRec(2, "", kMaxTrxId, RollPtr(~0ull), {}, UndoType::kDeleteMark);
  del.undo_no = 99;
  recs.push_back(del);
  UndoRecord reinsert = UpdateRec(2, "z", 5, RollPtr::Make(false, 42), {{1, "a"}});
  reinsert.prev_delete_marked = true;
  recs.push_back(reinsert);
  for (const UndoRecord& r : recs) {
    std::string bytes;
    EncodeUndoRecord(r, &bytes);
    Result<UndoRecord> back = DecodeUndoRecord(bytes);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, r);
  }
}

TEST(UndoRecordTest, InsertRecordIsCompact) {
  std::string bytes;
  EncodeUndoRecord(InsertRec(5, "abcd"), &bytes);
  EXPECT_EQ(bytes.size(), 1u + 1 + 1 + 1 + 4);
}

TEST(UndoRecordTest, DecodeRejectsTruncatedTrailingAndUnknownType) {
  std::string bytes;
  EncodeUndoRecord(UpdateRec(3, "pk", 8, RollPtr::Make(false, 77), {{1, "before"}, {2, std::nullopt}}), &bytes);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_TRUE(DecodeUndoRecord(std::string_view(bytes).substr(0, n)).status().IsCorruption()) << n;
  }
  EXPECT_TRUE(DecodeUndoRecord(bytes + "x").status().IsCorruption());
  std::string bad = bytes;
  bad[0] = 9;
  EXPECT_TRUE(DecodeUndoRecord(bad).status().IsCorruption());
}

TEST(RollPtrTest, InsertFlagAndLocationRoundTrip) {
  RollPtr p = RollPtr::Make(true, 0xabcdef);
  EXPECT_TRUE(p.is_insert());
  EXPECT_EQ(p.location(), 0xabcdefu);
  EXPECT_FALSE(RollPtr::Make(false, 1).is_insert());
  EXPECT_TRUE(RollPtr().is_null());
}

TEST(UndoLogTest, AppendNumbersRecordsAndFlagsInserts) {
  MemUndoStore store;
  auto log = store.CreateLog(1);
  ASSERT_TRUE(log.ok());
  Result<RollPtr> a = (*log)->Append(InsertRec(1, "a"));
  Result<RollPtr> b = (*log)->Append(UpdateRec(1, "b", 0, RollPtr(), {{0, "old"}}));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->is_insert());
  EXPECT_FALSE(b->is_insert());
  EXPECT_EQ((*log)->position(), 2u);
  Result<UndoRecord> rb = store.Fetch(*b);
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(rb->undo_no, 1u);
  EXPECT_EQ(rb->primary_key, "b");
}

// A server that runs long enough hands out 2^31 - 1 slots; the next one
// wraps to 1 instead of failing every transaction from then on.
TEST(UndoLogTest, AppendEncodedStoresTheCallersBytes) {
  MemUndoStore store;
  auto log = std::move(store.CreateLog(5).value());
  std::vector<RollPtr> ptrs;
  for (int i = 0; i < 40; ++i) {  // past what a log keeps in place
    UndoRecord rec = i % 2 == 0 ? InsertRec(1, "k" + std::to_string(i))
                                : UpdateRec(1, "u", 0, RollPtr(), {{0, std::string(i, 'x')}});
    rec.undo_no = log->position();
    std::string bytes;
    EncodeUndoRecord(rec, &bytes);
    RollPtr p = log->AppendEncoded(bytes).value();
    EXPECT_EQ(p.is_insert(), i % 2 == 0);
    ptrs.push_back(p);
  }
  EXPECT_EQ(log->position(), 40u);
  for (int i = 0; i < 40; ++i) {
    UndoRecord got = store.Fetch(ptrs[i]).value();
    EXPECT_EQ(got.undo_no, static_cast<uint64_t>(i));
    if (i % 2 == 0) {
      EXPECT_EQ(got.primary_key, "k" + std::to_string(i));
    } else {
      ASSERT_EQ(got.before_image.size(), 1u);
      EXPECT_EQ(got.before_image[0].before, std::string(i, 'x'));
    }
  }
  // Rolled back to 10: the later records go, the earlier stay readable.
  std::vector<uint64_t> undone;
  ASSERT_TRUE(log->RollbackTo(10, [&](const UndoRecord& r, RollPtr) {
                   undone.push_back(r.undo_no);
                   return Status::OK();
                 }).ok());
  ASSERT_EQ(undone.size(), 30u);
  EXPECT_EQ(undone.front(), 39u);
  EXPECT_EQ(undone.back(), 10u);
  EXPECT_EQ(log->position(), 10u);
  EXPECT_EQ(store.Fetch(ptrs[9]).value().undo_no, 9u);
  EXPECT_TRUE(store.Fetch(ptrs[10]).status().IsCorruption());
  EXPECT_EQ(log->Append(InsertRec(1, "again")).value().location(), ptrs[10].location());
}

TEST(UndoLogTest, SlotsWrapAfterTheLast) {
  constexpr uint64_t kLastSlot = (uint64_t{1} << 31) - 1;
  MemUndoStore store(kLastSlot - 1);
  std::vector<std::unique_ptr<UndoLog>> logs;
  std::vector<RollPtr> ptrs;
  for (TrxId trx = 1; trx <= 4; ++trx) {
    auto log = store.CreateLog(trx);
    ASSERT_TRUE(log.ok()) << trx;
    Result<RollPtr> p = (*log)->Append(UpdateRec(trx, "k" + std::to_string(trx), 0, RollPtr(), {{0, "v"}}));
    ASSERT_TRUE(p.ok());
    ptrs.push_back(*p);
    logs.push_back(std::move(log).value());
  }
  EXPECT_EQ(ptrs[0].location() >> 32, kLastSlot - 1);
  EXPECT_EQ(ptrs[1].location() >> 32, kLastSlot);
  EXPECT_EQ(ptrs[2].location() >> 32, 1u);
  EXPECT_EQ(ptrs[3].location() >> 32, 2u);
  for (size_t i = 0; i < ptrs.size(); ++i) {
    Result<UndoRecord> rec = store.Fetch(ptrs[i]);
    ASSERT_TRUE(rec.ok());
    EXPECT_EQ(rec->primary_key, "k" + std::to_string(i + 1));
  }
  for (size_t i = 0; i < logs.size(); ++i) logs[i]->MarkCommitted(i + 1);
  EXPECT_EQ(store.Purge(100).value(), 4u);
  EXPECT_EQ(store.log_count(), 0u);
  EXPECT_TRUE(store.SeenByAll(3, 100));
}

// A transaction's newest log is the one created last, also when its slot
// wrapped to below the older one's.
TEST(UndoLogTest, SeenByAllAsksTheNewestLogAcrossTheWrap) {
  constexpr uint64_t kLastSlot = (uint64_t{1} << 31) - 1;
  MemUndoStore store(kLastSlot);
  auto older = std::move(store.CreateLog(5).value());  // slot kLastSlot
  auto newer = std::move(store.CreateLog(5).value());  // slot 1
  ASSERT_TRUE(older->Append(UpdateRec(5, "a", 0, RollPtr(), {{0, "v"}})).ok());
  ASSERT_TRUE(newer->Append(UpdateRec(5, "b", 0, RollPtr(), {{0, "v"}})).ok());
  older->MarkCommitted(1);
  EXPECT_FALSE(store.SeenByAll(5, 100));  // the newer log is still active
  newer->MarkCommitted(2);
  EXPECT_TRUE(store.SeenByAll(5, 100));
}

TEST(UndoLogTest, RollbackToSavepointHandsRecordsNewestFirst) {
  MemUndoStore store;
  auto log = std::move(store.CreateLog(1).value());
  for (const char* pk : {"s1a", "s1b"}) ASSERT_TRUE(log->Append(InsertRec(1, pk)).ok());
  UndoPos stmt2 = log->position();
  for (const char* pk : {"s2a", "s2b", "s2c"}) ASSERT_TRUE(log->Append(InsertRec(1, pk)).ok());

  std::vector<std::string> seen;
  auto collect = [&](const UndoRecord& r, RollPtr) {
    seen.push_back(r.primary_key);
    return Status::OK();
  };
  ASSERT_TRUE(log->RollbackTo(stmt2, collect).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"s2c", "s2b", "s2a"}));
  EXPECT_EQ(log->position(), stmt2);

  // The transaction goes on after the statement rollback.
  ASSERT_TRUE(log->Append(InsertRec(1, "s3")).ok());
  seen.clear();
  ASSERT_TRUE(log->RollbackTo(0, collect).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"s3", "s1b", "s1a"}));
  EXPECT_EQ(log->position(), 0u);
  EXPECT_EQ(log->RollbackTo(1, collect).code(), Status::Code::kInvalidArgument);
}

TEST(UndoLogTest, RollbackStopsAtFirstErrorAndCanBeRetried) {
  MemUndoStore store;
  auto log = std::move(store.CreateLog(1).value());
  for (const char* pk : {"a", "b", "c"}) ASSERT_TRUE(log->Append(InsertRec(1, pk)).ok());
  int calls = 0;
  Status st = log->RollbackTo(0, [&](const UndoRecord& r, RollPtr) {
    ++calls;
    return r.primary_key == "b" ? Status::IOError("page read failed") : Status::OK();
  });
  EXPECT_TRUE(st.IsIOError());
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(log->position(), 2u);  // "c" undone; "b" and "a" remain
  std::vector<std::string> seen;
  ASSERT_TRUE(log->RollbackTo(0, [&](const UndoRecord& r, RollPtr) {
                   seen.push_back(r.primary_key);
                   return Status::OK();
                 }).ok());
  EXPECT_EQ(seen, (std::vector<std::string>{"b", "a"}));
}

TEST(UndoLogTest, PurgeFreesRolledBackAndCommittedBelowLimitOnly) {
  MemUndoStore store;
  auto committed_old = std::move(store.CreateLog(1).value());
  auto committed_new = std::move(store.CreateLog(2).value());
  auto rolled_back = std::move(store.CreateLog(3).value());
  auto active = std::move(store.CreateLog(4).value());
  RollPtr p_old = committed_old->Append(UpdateRec(1, "x", 0, RollPtr(), {})).value();
  RollPtr p_new = committed_new->Append(UpdateRec(1, "y", 0, RollPtr(), {})).value();
  RollPtr p_act = active->Append(UpdateRec(1, "z", 0, RollPtr(), {})).value();
  committed_old->MarkCommitted(10);
  committed_new->MarkCommitted(20);
  rolled_back->MarkRolledBack();
  EXPECT_FALSE(committed_old->Append(InsertRec(1, "late")).ok());

  EXPECT_EQ(store.Purge(/*purge_limit=*/10).value(), 1u);  // only the rolled-back log
  EXPECT_TRUE(store.Fetch(p_old).ok());
  EXPECT_EQ(store.Purge(11).value(), 1u);
  EXPECT_TRUE(store.Fetch(p_old).status().IsCorruption());
  EXPECT_TRUE(store.Fetch(p_new).ok());
  EXPECT_TRUE(store.Fetch(p_act).ok());
  EXPECT_EQ(store.Purge(1000).value(), 1u);
  EXPECT_EQ(store.log_count(), 1u);  // the active log stays
}

TEST(UndoLogTest, PurgeHandsOverCommittedLogsOldestFirstAndSeenByAllFollows) {
  MemUndoStore store;
  auto later = std::move(store.CreateLog(7).value());
  auto earlier = std::move(store.CreateLog(8).value());
  auto rolled_back = std::move(store.CreateLog(9).value());
  auto active = std::move(store.CreateLog(10).value());
  ASSERT_TRUE(later->Append(UpdateRec(1, "a", 0, RollPtr(), {{0, "old-a"}})).ok());
  ASSERT_TRUE(later->Append(InsertRec(1, "b")).ok());
  ASSERT_TRUE(earlier->Append(UpdateRec(2, "c", 0, RollPtr(), {})).ok());
  later->MarkCommitted(30);
  earlier->MarkCommitted(20);
  rolled_back->MarkRolledBack();
  EXPECT_FALSE(store.SeenByAll(7, 30));  // committed at 30: a view with low limit 30 does not see it
  EXPECT_TRUE(store.SeenByAll(7, 31));
  EXPECT_FALSE(store.SeenByAll(10, kMaxTrxId));  // still active
  EXPECT_TRUE(store.SeenByAll(9, 0));             // rolled back: wrote nothing that stays
  std::vector<UndoStore::PurgedLog> logs;
  EXPECT_EQ(store.Purge(100, &logs).value(), 3u);
  ASSERT_EQ(logs.size(), 2u);
  EXPECT_EQ(logs[0].trx, 8u);
  EXPECT_EQ(logs[0].commit_no, 20u);
  ASSERT_EQ(logs[1].records.size(), 1u);  // the insert is left out
  EXPECT_EQ(logs[1].records[0].primary_key, "a");
  EXPECT_EQ(logs[1].records[0].before_image[0].before, "old-a");
  EXPECT_TRUE(store.SeenByAll(7, 0));  // purged: everyone sees it
  EXPECT_EQ(store.log_count(), 1u);
}

// A long history (more logs than a shard's pool keeps) purged to nothing
// gives the pools back; the store goes on as before (run under ASan too: a
// map must hold nothing from a pool given back).
TEST(UndoLogTest, AStoreEmptiedAfterALongHistoryKeepsWorking) {
  MemUndoStore store;
  constexpr TrxId kLogs = 16 * 4096 * 2;
  for (TrxId t = 1; t <= kLogs; ++t) {
    auto log = std::move(store.CreateLog(t).value());
    ASSERT_TRUE(log->Append(UpdateRec(1, "k" + std::to_string(t), 0, RollPtr(), {})).ok());
    log->MarkCommitted(t);
  }
  EXPECT_EQ(store.log_count(), kLogs);
  EXPECT_FALSE(store.SeenByAll(kLogs, kLogs));
  EXPECT_EQ(store.Purge(kLogs + 1).value(), kLogs);
  EXPECT_EQ(store.log_count(), 0u);
  EXPECT_TRUE(store.SeenByAll(kLogs, 0));
  for (TrxId t = kLogs + 1; t <= kLogs + 100; ++t) {
    auto log = std::move(store.CreateLog(t).value());
    RollPtr p = log->Append(UpdateRec(1, "again", 0, RollPtr(), {})).value();
    EXPECT_EQ(store.Fetch(p).value().primary_key, "again");
    EXPECT_FALSE(store.SeenByAll(t, kMaxTrxId));
    log->MarkCommitted(t);
  }
  EXPECT_EQ(store.Purge(kMaxTrxId).value(), 100u);
  EXPECT_EQ(store.log_count(), 0u);
}

// Owners append, roll back and commit while readers fetch other
// transactions' committed records and purge runs. Run under TSan too.
TEST(UndoLogTest, ConcurrentAppendFetchAndPurgeAreSafe) {
  MemUndoStore store;
  constexpr int kOwners = 3;
  constexpr int kIters = 400;
  std::atomic<uint64_t> published_raw{0};  // a committed record others may read
  std::atomic<uint64_t> commit_no{1};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int o = 0; o < kOwners; ++o) {
    threads.emplace_back([&, o] {
      for (int i = 0; i < kIters; ++i) {
        auto log = std::move(store.CreateLog(o + 1).value());
        RollPtr p = log->Append(UpdateRec(1, "k" + std::to_string(i), 0, RollPtr(), {{0, "v"}})).value();
        ASSERT_TRUE(log->Append(InsertRec(1, "tmp")).ok());
        ASSERT_TRUE(log->RollbackTo(1, [](const UndoRecord&, RollPtr) { return Status::OK(); }).ok());
        if (i % 2 == 0) {
          log->MarkCommitted(commit_no.fetch_add(1));
          published_raw.store(p.raw(), std::memory_order_release);
        } else {
          ASSERT_TRUE(log->RollbackTo(0, [](const UndoRecord&, RollPtr) { return Status::OK(); }).ok());
          log->MarkRolledBack();
        }
      }
    });
  }
  std::thread reader([&] {
    while (!stop.load()) {
      uint64_t raw = published_raw.load(std::memory_order_acquire);
      if (raw == 0) continue;
      Result<UndoRecord> r = store.Fetch(RollPtr(raw));
      // Either still there, or purged: never torn.
      if (r.ok()) EXPECT_EQ(r->before_image.size(), 1u);
      else EXPECT_TRUE(r.status().IsCorruption());
      // Looks a transaction's newest slot up in one shard and its log in
      // another while purge frees both.
      for (TrxId trx = 1; trx <= kOwners; ++trx) (void)store.SeenByAll(trx, commit_no.load() / 2);
    }
  });
  std::thread purger([&] {
    while (!stop.load()) ASSERT_TRUE(store.Purge(commit_no.load() / 2).ok());
  });
  for (auto& t : threads) t.join();
  stop = true;
  reader.join();
  purger.join();
  ASSERT_TRUE(store.Purge(kMaxTrxId).ok());
  EXPECT_EQ(store.log_count(), 0u);
}

}  // namespace
}  // namespace sluice::storage
