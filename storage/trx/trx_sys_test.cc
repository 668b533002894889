#include "storage/trx/trx_sys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

namespace sluice::storage {
namespace {

TrxId Write(TrxSys& sys, Trx& trx) {
  Result<TrxId> id = sys.AssignId(trx);
  EXPECT_TRUE(id.ok()) << id.status().ToString();
  return id.ok() ? *id : kNoTrxId;
}

TEST(TrxSysTest, IdsAreMonotonicAndAssignedOnFirstWriteOnly) {
  TrxSys sys;
  auto a = sys.Begin();
  auto b = sys.Begin();
  EXPECT_EQ(a->id(), kNoTrxId);
  TrxId ib = Write(sys, *b);
  TrxId ia = Write(sys, *a);
  EXPECT_LT(ib, ia);
  EXPECT_EQ(Write(sys, *a), ia);  // idempotent
  EXPECT_EQ(sys.ActiveIds(), (std::vector<TrxId>{ib, ia}));
  ASSERT_TRUE(sys.Commit(*a).ok());
  ASSERT_TRUE(sys.Rollback(*b).ok());
  EXPECT_TRUE(sys.ActiveIds().empty());
}

TEST(TrxSysTest, ReadOnlyCommitGetsNoCommitNumber) {
  TrxSys sys;
  auto t = sys.Begin();
  Result<uint64_t> no = sys.Commit(*t);
  ASSERT_TRUE(no.ok());
  EXPECT_EQ(*no, 0u);
  EXPECT_EQ(t->state(), Trx::State::kCommitted);
}

TEST(TrxSysTest, EndingTwiceIsInvalidArgument) {
  TrxSys sys;
  auto t = sys.Begin();
  ASSERT_TRUE(sys.Commit(*t).ok());
  EXPECT_EQ(sys.Commit(*t).status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(sys.Rollback(*t).code(), Status::Code::kInvalidArgument);
  EXPECT_FALSE(sys.AssignId(*t).ok());
}

TEST(TrxSysTest, ViewTreatsActiveAsInvisibleCommittedAsVisibleAndLaterAsInvisible) {
  TrxSys sys;
  auto committed = sys.Begin();
  TrxId ic = Write(sys, *committed);
  ASSERT_TRUE(sys.Commit(*committed).ok());
  auto active = sys.Begin();
  TrxId ia = Write(sys, *active);
  auto reader = sys.Begin(IsolationLevel::kRepeatableRead);
  const ReadView* v = sys.GetReadView(*reader);
  ASSERT_NE(v, nullptr);
  auto later = sys.Begin();
  TrxId il = Write(sys, *later);
  EXPECT_TRUE(v->Visible(ic));
  EXPECT_FALSE(v->Visible(ia));
  EXPECT_EQ(v->active_ids(), std::vector<TrxId>{ia});
  EXPECT_FALSE(v->Visible(il));
  EXPECT_GE(il, v->low_limit_id());
  for (auto* t : {active.get(), reader.get(), later.get()}) ASSERT_TRUE(sys.Commit(*t).ok());
}

TEST(TrxSysTest, RepeatableReadDoesNotSeeLaterCommits) {
  TrxSys sys;
  auto reader = sys.Begin(IsolationLevel::kRepeatableRead);
  auto writer = sys.Begin();
  TrxId w = Write(sys, *writer);
  const ReadView* v1 = sys.GetReadView(*reader);
  EXPECT_FALSE(v1->Visible(w));
  ASSERT_TRUE(sys.Commit(*writer).ok());
  sys.EndStatement(*reader);
  const ReadView* v2 = sys.GetReadView(*reader);
  EXPECT_EQ(v1, v2);
  EXPECT_FALSE(v2->Visible(w));
  ASSERT_TRUE(sys.Commit(*reader).ok());
}

TEST(TrxSysTest, SerializableKeepsOneViewForTheWholeTransaction) {
  TrxSys sys;
  auto reader = sys.Begin(IsolationLevel::kSerializable);
  const ReadView* v1 = sys.GetReadView(*reader);
  auto writer = sys.Begin();
  TrxId w = Write(sys, *writer);
  ASSERT_TRUE(sys.Commit(*writer).ok());
  sys.EndStatement(*reader);
  EXPECT_EQ(sys.GetReadView(*reader), v1);
  EXPECT_FALSE(v1->Visible(w));
  ASSERT_TRUE(sys.Commit(*reader).ok());
}

TEST(TrxSysTest, ReadCommittedSeesEachStatementsCommittedState) {
  TrxSys sys;
  auto reader = sys.Begin(IsolationLevel::kReadCommitted);
  auto w1 = sys.Begin();
  auto w2 = sys.Begin();
  TrxId i1 = Write(sys, *w1);
  TrxId i2 = Write(sys, *w2);

  // Statement 1: neither committed.
  const ReadView* v = sys.GetReadView(*reader);
  EXPECT_FALSE(v->Visible(i1));
  EXPECT_FALSE(v->Visible(i2));
  ASSERT_TRUE(sys.Commit(*w1).ok());
  EXPECT_FALSE(sys.GetReadView(*reader)->Visible(i1));  // same statement, same view
  sys.EndStatement(*reader);

  // Statement 2: w1 committed, w2 still active.
  v = sys.GetReadView(*reader);
  EXPECT_TRUE(v->Visible(i1));
  EXPECT_FALSE(v->Visible(i2));
  ASSERT_TRUE(sys.Commit(*w2).ok());
  sys.EndStatement(*reader);

  // Statement 3: both.
  v = sys.GetReadView(*reader);
  EXPECT_TRUE(v->Visible(i1));
  EXPECT_TRUE(v->Visible(i2));
  ASSERT_TRUE(sys.Commit(*reader).ok());
  EXPECT_EQ(sys.open_views(), 0u);
}

TEST(TrxSysTest, ReadUncommittedUsesNoView) {
  TrxSys sys;
  auto reader = sys.Begin(IsolationLevel::kReadUncommitted);
  EXPECT_EQ(sys.GetReadView(*reader), nullptr);
  EXPECT_EQ(sys.open_views(), 0u);
  ASSERT_TRUE(sys.Commit(*reader).ok());
}

TEST(TrxSysTest, ReaderThatStartsWritingSeesItsOwnChanges) {
  TrxSys sys;
  auto trx = sys.Begin(IsolationLevel::kRepeatableRead);
  const ReadView* v = sys.GetReadView(*trx);
  TrxId own = Write(sys, *trx);
  EXPECT_GE(own, v->low_limit_id());
  EXPECT_TRUE(v->Visible(own));
  ASSERT_TRUE(sys.Commit(*trx).ok());
}

TEST(TrxSysTest, CommitNumberOrdersCommitsAgainstViews) {
  TrxSys sys;
  auto w = sys.Begin();
  Write(sys, *w);
  auto before = sys.Begin();
  const ReadView* vb = sys.GetReadView(*before);
  Result<uint64_t> no = sys.Commit(*w);
  ASSERT_TRUE(no.ok());
  auto after = sys.Begin();
  const ReadView* va = sys.GetReadView(*after);
  EXPECT_GE(*no, vb->low_limit_id());
  EXPECT_LT(*no, va->low_limit_id());
  ASSERT_TRUE(sys.Commit(*before).ok());
  ASSERT_TRUE(sys.Commit(*after).ok());
}

TEST(TrxSysTest, PurgeLimitAdvancesOnlyWhenOldViewsClose) {
  TrxSys sys;
  auto old_reader = sys.Begin();
  TrxId old_limit = sys.GetReadView(*old_reader)->low_limit_id();
  EXPECT_EQ(sys.PurgeLimit(), old_limit);

  // Writers commit; a newer view opens. The old view still pins the limit.
  for (int i = 0; i < 3; ++i) {
    auto w = sys.Begin();
    Write(sys, *w);
    ASSERT_TRUE(sys.Commit(*w).ok());
  }
  auto new_reader = sys.Begin();
  TrxId new_limit = sys.GetReadView(*new_reader)->low_limit_id();
  EXPECT_GT(new_limit, old_limit);
  EXPECT_EQ(sys.PurgeLimit(), old_limit);

  ASSERT_TRUE(sys.Commit(*old_reader).ok());
  EXPECT_EQ(sys.PurgeLimit(), new_limit);
  ASSERT_TRUE(sys.Commit(*new_reader).ok());
  EXPECT_EQ(sys.PurgeLimit(), sys.next_id());
  EXPECT_GE(sys.PurgeLimit(), new_limit);
}

TEST(TrxSysTest, ReadCommittedStatementEndLetsPurgeLimitAdvance) {
  TrxSys sys;
  auto rc = sys.Begin(IsolationLevel::kReadCommitted);
  TrxId l1 = sys.GetReadView(*rc)->low_limit_id();
  auto w = sys.Begin();
  Write(sys, *w);
  ASSERT_TRUE(sys.Commit(*w).ok());
  EXPECT_EQ(sys.PurgeLimit(), l1);
  sys.EndStatement(*rc);
  EXPECT_GT(sys.PurgeLimit(), l1);
  ASSERT_TRUE(sys.Commit(*rc).ok());
}

// Writers begin, write and commit (or roll back) while readers open views.
// Afterwards every recorded view must agree with the commit order: an id
// below its low limit is visible exactly when that transaction committed
// with a number below the low limit. `idle_writers`: each writer yields
// between its transactions, so readers often find none active and make
// their views on GetReadView's one-shard path. Run under
// -DSLUICE_SANITIZE=thread too.
void CheckConcurrentViews(int kWriters, int kReaders, int kIters, bool idle_writers) {
  TrxSys sys(TrxSys::Options{.num_shards = 4});
  struct Done {
    TrxId id;
    uint64_t commit_no;  // 0: rolled back
  };
  std::vector<std::vector<Done>> done(kWriters);
  std::vector<std::vector<ReadView>> views(kReaders);
  std::atomic<bool> purge_went_back{false};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kIters; ++i) {
        auto t = sys.Begin(i % 3 == 0 ? IsolationLevel::kReadCommitted : IsolationLevel::kRepeatableRead);
        if (i % 4 == 0) (void)sys.GetReadView(*t);
        Result<TrxId> id = sys.AssignId(*t);
        ASSERT_TRUE(id.ok());
        if (i % 5 == 0) {
          ASSERT_TRUE(sys.Rollback(*t).ok());
          done[w].push_back({*id, 0});
        } else {
          Result<uint64_t> no = sys.Commit(*t);
          ASSERT_TRUE(no.ok());
          done[w].push_back({*id, *no});
        }
        if (idle_writers) {
          for (int y = 0; y < 20; ++y) std::this_thread::yield();
        }
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      TrxId last_purge = 0;
      for (int i = 0; i < kIters; ++i) {
        auto t = sys.Begin(IsolationLevel::kReadCommitted);
        const ReadView* v = sys.GetReadView(*t);
        if (i % 3 == 0) views[r].push_back(*v);
        TrxId p = sys.PurgeLimit();
        if (p < last_purge) purge_went_back = true;
        last_purge = p;
        sys.EndStatement(*t);
        ASSERT_TRUE(sys.Commit(*t).ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(purge_went_back.load());
  EXPECT_TRUE(sys.ActiveIds().empty());
  EXPECT_EQ(sys.open_views(), 0u);

  std::map<TrxId, uint64_t> commit_of;
  for (auto& d : done) {
    for (const Done& x : d) commit_of[x.id] = x.commit_no;
  }
  size_t checked = 0;
  for (auto& vs : views) {
    for (const ReadView& v : vs) {
      // Check a window below the low limit (older ids are committed long ago).
      TrxId from = v.low_limit_id() > 64 ? v.low_limit_id() - 64 : 1;
      for (auto it = commit_of.lower_bound(from); it != commit_of.end() && it->first < v.low_limit_id(); ++it) {
        bool committed_before = it->second != 0 && it->second < v.low_limit_id();
        bool active_at_view = it->second == 0 ? std::binary_search(v.active_ids().begin(), v.active_ids().end(),
                                                                    it->first)
                                              : !committed_before;
        if (it->second != 0) {
          ASSERT_EQ(v.Visible(it->first), committed_before) << "id " << it->first << " low " << v.low_limit_id();
        } else {
          // A rolled-back transaction's changes are undone before it leaves
          // the active set, so visibility only matters while it was active.
          if (active_at_view) {
            ASSERT_FALSE(v.Visible(it->first));
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 0u);
}

TEST(TrxSysTest, ConcurrentBeginsCommitsAndViewsStayConsistent) {
  CheckConcurrentViews(/*writers=*/4, /*readers=*/2, /*iters=*/1500, /*idle_writers=*/false);
}

// Views made while no writer is active take one shard's mutex, not all.
TEST(TrxSysTest, ViewsMadeBetweenWritersStayConsistent) {
  CheckConcurrentViews(/*writers=*/1, /*readers=*/3, /*iters=*/3000, /*idle_writers=*/true);
}

TEST(TrxSysTest, ViewWithNoOtherWriterActiveHasNoActiveIds) {
  TrxSys sys;
  auto w = sys.Begin();
  const TrxId own = Write(sys, *w);
  const ReadView* v = sys.GetReadView(*w);  // only itself is active
  EXPECT_TRUE(v->active_ids().empty());
  EXPECT_TRUE(v->Visible(own));
  EXPECT_EQ(v->low_limit_id(), sys.next_id());
  auto r = sys.Begin();
  const ReadView* rv = sys.GetReadView(*r);  // w is active: it is in the view
  EXPECT_EQ(rv->active_ids(), std::vector<TrxId>{own});
  EXPECT_FALSE(rv->Visible(own));
  EXPECT_EQ(sys.PurgeLimit(), v->low_limit_id());
  ASSERT_TRUE(sys.Commit(*w).ok());
  auto r2 = sys.Begin();
  const ReadView* rv2 = sys.GetReadView(*r2);
  EXPECT_TRUE(rv2->active_ids().empty());
  EXPECT_TRUE(rv2->Visible(own));
  EXPECT_EQ(sys.open_views(), 2u);
  ASSERT_TRUE(sys.Commit(*r).ok());
  ASSERT_TRUE(sys.Commit(*r2).ok());
  EXPECT_EQ(sys.open_views(), 0u);
}

}  // namespace
}  // namespace sluice::storage
