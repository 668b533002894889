// storage/buffer/mtr_test.cc
#include "storage/buffer/mtr.h"

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "base/io/mem_file_system.h"
#include "storage/redo/redo_log.h"

namespace sluice::storage {
namespace {

constexpr uint32_t kSpace = 5;

// Where two page images first differ past the checksum field (which is
// only meaningful on disk), or -1.
long FirstDifference(const std::string& a, const std::string& b) {
  for (size_t i = 4; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) return static_cast<long>(i);
  }
  return a.size() == b.size() ? -1 : static_cast<long>(std::min(a.size(), b.size()));
}

// A stand-in for the redo log: keeps every payload with its end LSN, LSNs
// advancing by the framed record size as in RedoLog.
struct CapturedRedo {
  std::mutex mu;
  std::vector<std::pair<std::string, uint64_t>> records;
  uint64_t lsn = 1000;
  bool fail = false;

  Status Log(std::string_view payload, const std::function<void(uint64_t)>& stamp) {
    std::lock_guard<std::mutex> lock(mu);
    if (fail) return Status::IOError("redo write failed (injected)");
    lsn += RedoLog::FramedSize(payload.size());
    records.emplace_back(std::string(payload), lsn);
    stamp(lsn);
    return Status::OK();
  }
};

class MtrTest : public ::testing::Test {
 protected:
  void OpenPool(bool logger, bool create = true, uint32_t pages_per_group = 64) {
    pool_.reset();
    BufferPool::Options o;
    o.pool_size_bytes = 64 * kPageSize;
    o.num_shards = 4;
    o.free_frame_timeout = std::chrono::milliseconds(2000);
    if (logger) {
      o.mtr_log = [this](std::string_view payload, const std::function<void(uint64_t)>& stamp) {
        return redo_.Log(payload, stamp);
      };
    }
    pool_ = std::make_unique<BufferPool>(o);
    auto space = create ? Tablespace::Create(&fs_, "/m.ibd", kSpace, pages_per_group)
                        : Tablespace::Open(&fs_, "/m.ibd");
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  }

  // Allocates a page in its own mtr and returns its number.
  uint32_t NewPage() {
    Mtr mtr(pool_.get());
    auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    uint32_t no = g->id().page;
    g->Release();
    EXPECT_TRUE(mtr.Commit().ok());
    return no;
  }

  std::string PageCopy(uint32_t page_no) {
    auto g = pool_->Fetch(PageId{kSpace, page_no}, LatchMode::kShared);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return std::string(g->data(), kPageSize);
  }

  // True when another thread can latch the page (it must not be held).
  bool OtherThreadCanLatch(uint32_t page_no) {
    bool got = false;
    std::thread t([&] {
      auto g = pool_->Fetch(PageId{kSpace, page_no}, LatchMode::kShared);
      got = g.ok();
    });
    t.join();
    return got;
  }

  io::MemFileSystem fs_;
  CapturedRedo redo_;
  std::unique_ptr<BufferPool> pool_;
};

TEST_F(MtrTest, WithoutALoggerAnMtrIsANoOp) {
  OpenPool(/*logger=*/false);
  const uint32_t p = NewPage();
  Mtr mtr(pool_.get());
  EXPECT_FALSE(mtr.active());
  EXPECT_FALSE(Mtr::InMtr(pool_.get()));
  {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    g->mutable_data()[100] = 7;
  }
  // Released at once: another exclusive fetch on this thread does not
  // deadlock, and nothing is logged.
  auto again = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->data()[100], 7);
  again->Release();
  EXPECT_TRUE(mtr.Commit().ok());
  EXPECT_TRUE(redo_.records.empty());
  EXPECT_EQ(pool_->mtr_violations(), 0u);
}

TEST_F(MtrTest, OneRecordPerCommitStampsPagesWithStartLsnAsOldestModification) {
  OpenPool(/*logger=*/true);
  ASSERT_TRUE(pool_->FlushAll().ok());
  uint32_t a, b;
  {
    Mtr mtr(pool_.get());
    EXPECT_TRUE(mtr.active());
    EXPECT_TRUE(Mtr::InMtr(pool_.get()));
    auto ga = pool_->NewPage(kSpace, PageType::kBTreeNode);
    ASSERT_TRUE(ga.ok());
    auto gb = pool_->NewPage(kSpace, PageType::kBTreeNode);  // page 0 again: borrowed
    ASSERT_TRUE(gb.ok());
    a = ga->id().page;
    b = gb->id().page;
    StoreU64(ga->mutable_data() + 200, 0x1122334455667788ull);
    gb->mutable_data()[kPageSize - 1] = 'z';
    ga->Release();
    gb->Release();
    EXPECT_TRUE(redo_.records.empty());
    ASSERT_TRUE(mtr.Commit().ok());
    EXPECT_FALSE(mtr.active());
  }
  ASSERT_EQ(redo_.records.size(), 1u);
  const auto& [payload, end_lsn] = redo_.records[0];
  const uint64_t start_lsn = end_lsn - RedoLog::FramedSize(payload.size());
  auto parsed = ParseMtrPayload(payload);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 3u);  // page 0, a, b
  int inits = 0;
  for (const MtrPageRecord& rec : *parsed) {
    EXPECT_EQ(rec.id.space, kSpace);
    if (rec.id.page == 0) {
      EXPECT_FALSE(rec.init);
    } else {
      EXPECT_TRUE(rec.init);
      ++inits;
    }
    for (const auto& r : rec.ranges) {
      // The page LSN field is never logged.
      EXPECT_TRUE(r.offset + r.bytes.size() <= kPageLsnOffset || r.offset >= kPageLsnOffset + 8);
    }
  }
  EXPECT_EQ(inits, 2);
  for (uint32_t p : {0u, a, b}) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g->page_lsn(), end_lsn) << "page " << p;
  }
  EXPECT_EQ(pool_->OldestModification(), start_lsn);

  // A second mtr moves the page LSN, not the oldest modification.
  {
    Mtr mtr(pool_.get());
    auto g = pool_->Fetch(PageId{kSpace, a}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    g->mutable_data()[300] = 1;
    g->Release();
    ASSERT_TRUE(mtr.Commit().ok());
  }
  ASSERT_EQ(redo_.records.size(), 2u);
  auto g = pool_->Fetch(PageId{kSpace, a}, LatchMode::kShared);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->page_lsn(), redo_.records[1].second);
  g->Release();
  EXPECT_EQ(pool_->OldestModification(), start_lsn);
  EXPECT_EQ(pool_->mtr_violations(), 0u);
}

// The oldest modification is a start LSN, and LSN 0 (the log's first
// record) is one; a page whose write is in flight still counts, so a
// checkpoint computed meanwhile cannot pass it.
TEST_F(MtrTest, OldestModificationCountsLsnZeroAndWritesInFlight) {
  redo_.lsn = 0;
  std::vector<uint64_t> seen_during_write;
  BufferPool::Options o;
  o.pool_size_bytes = 64 * kPageSize;
  o.mtr_log = [this](std::string_view payload, const std::function<void(uint64_t)>& stamp) {
    return redo_.Log(payload, stamp);
  };
  o.write_ahead_check = [&](uint64_t) {
    seen_during_write.push_back(pool_->OldestModification());
    return Status::OK();
  };
  pool_ = std::make_unique<BufferPool>(o);
  auto space = Tablespace::Create(&fs_, "/m.ibd", kSpace, 64);
  ASSERT_TRUE(space.ok());
  ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  EXPECT_EQ(pool_->OldestModification(), BufferPool::kNoModification);
  NewPage();
  ASSERT_EQ(redo_.records.size(), 1u);
  EXPECT_EQ(redo_.records[0].second, RedoLog::FramedSize(redo_.records[0].first.size()));
  EXPECT_EQ(pool_->OldestModification(), 0u);  // the first record starts at LSN 0
  ASSERT_TRUE(pool_->FlushAll().ok());
  ASSERT_EQ(seen_during_write.size(), 2u);  // page 0 and the new page
  for (uint64_t lsn : seen_during_write) EXPECT_EQ(lsn, 0u);
  EXPECT_EQ(pool_->OldestModification(), BufferPool::kNoModification);
}

TEST_F(MtrTest, ChangedPagesStayLatchedUntilCommitAndAreLentBackToTheSameThread) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  const uint32_t q = NewPage();
  Mtr mtr(pool_.get());
  {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    g->mutable_data()[500] = 'x';
  }
  {
    // Not changed: really released.
    auto g = pool_->Fetch(PageId{kSpace, q}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
  }
  EXPECT_TRUE(OtherThreadCanLatch(q));
  // The same thread fetches p again, shared and exclusive, without
  // deadlocking on its own latch.
  {
    auto s = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->data()[500], 'x');
  }
  {
    auto x = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(x.ok());
    x->mutable_data()[501] = 'y';
  }
  std::atomic<bool> got{false};
  std::thread other([&] {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    EXPECT_TRUE(g.ok());
    if (g.ok()) {
      EXPECT_EQ(g->data()[500], 'x');
      EXPECT_EQ(g->data()[501], 'y');
      EXPECT_EQ(g->page_lsn(), redo_.lsn);  // stamped before it was let go
    }
    got = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(got.load());
  ASSERT_TRUE(mtr.Commit().ok());
  other.join();
  EXPECT_TRUE(got.load());
  EXPECT_EQ(pool_->mtr_violations(), 0u);
}

TEST_F(MtrTest, DiffRangesCoverExactlyTheChangedBytes) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  const std::string before = PageCopy(p);
  const size_t first = redo_.records.size();
  {
    Mtr mtr(pool_.get());
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    char* d = g->mutable_data();
    d[40] ^= 1;             // one byte
    d[43] ^= 1;             // 2 bytes away: merged with the one above
    d[1000] ^= 0x80;        // far away: its own range
    std::memset(d + 5000, 0x5a, 300);  // a run across words
    d[kPageSize - 1] ^= 1;  // the last byte
    g->Release();
    ASSERT_TRUE(mtr.Commit().ok());
  }
  ASSERT_EQ(redo_.records.size(), first + 1);
  auto parsed = ParseMtrPayload(redo_.records.back().first);
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 1u);
  const MtrPageRecord& rec = (*parsed)[0];
  EXPECT_FALSE(rec.init);
  ASSERT_EQ(rec.ranges.size(), 4u);
  EXPECT_EQ(rec.ranges[0].offset, 40);
  EXPECT_EQ(rec.ranges[0].bytes.size(), 4u);
  EXPECT_EQ(rec.ranges[1].offset, 1000);
  EXPECT_EQ(rec.ranges[1].bytes.size(), 1u);
  EXPECT_EQ(rec.ranges[2].offset, 5000);
  EXPECT_EQ(rec.ranges[2].bytes.size(), 300u);
  EXPECT_EQ(rec.ranges[3].offset, kPageSize - 1);
  // Applying the ranges to the before-image gives the page (LSN aside).
  std::string rebuilt = before;
  for (const auto& r : rec.ranges) rebuilt.replace(r.offset, r.bytes.size(), r.bytes);
  std::string after = PageCopy(p);
  std::memset(rebuilt.data() + kPageLsnOffset, 0, 8);
  std::memset(after.data() + kPageLsnOffset, 0, 8);
  EXPECT_EQ(FirstDifference(rebuilt, after), -1);
}

TEST_F(MtrTest, AnUnchangedPageIsReleasedButNotLogged) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  const size_t n = redo_.records.size();
  {
    Mtr mtr(pool_.get());
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    g->mutable_data()[700] ^= 1;
    g->mutable_data()[700] ^= 1;  // back as it was
    g->Release();
    ASSERT_TRUE(mtr.Commit().ok());
  }
  EXPECT_EQ(redo_.records.size(), n);
  EXPECT_TRUE(OtherThreadCanLatch(p));
}

TEST_F(MtrTest, NestedMtrJoinsTheOuterOne) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  const size_t n = redo_.records.size();
  {
    Mtr outer(pool_.get());
    {
      Mtr inner(pool_.get());
      EXPECT_FALSE(inner.active());
      auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
      ASSERT_TRUE(g.ok());
      g->mutable_data()[64] = 1;
      g->Release();
      EXPECT_TRUE(inner.Commit().ok());
    }
    EXPECT_EQ(redo_.records.size(), n);
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);  // still in outer's memo
    ASSERT_TRUE(g.ok());
    g->mutable_data()[65] = 2;
    g->Release();
  }  // the destructor commits
  EXPECT_EQ(redo_.records.size(), n + 1);
  EXPECT_FALSE(Mtr::InMtr(pool_.get()));
  EXPECT_EQ(pool_->mtr_violations(), 0u);
}

TEST_F(MtrTest, FreeInsideAnMtrTakesEffectAtCommitAndDoubleFreeIsReportedThere) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  const uint32_t q = NewPage();
  {
    Mtr mtr(pool_.get());
    {
      auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
      ASSERT_TRUE(g.ok());
      g->mutable_data()[100] = 1;  // changed, then freed: not logged
      g->Release();
      auto again = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);  // borrowed
      ASSERT_TRUE(again.ok());
      ASSERT_TRUE(pool_->FreePage(std::move(*again)).ok());
    }
    auto usage = pool_->GetSpaceUsage(kSpace);
    ASSERT_TRUE(usage.ok());
    EXPECT_EQ(usage->free_pages, 0u);  // not yet
    ASSERT_TRUE(mtr.Commit().ok());
  }
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->free_pages, 1u);
  auto parsed = ParseMtrPayload(redo_.records.back().first);
  ASSERT_TRUE(parsed.ok());
  for (const auto& rec : *parsed) EXPECT_NE(rec.id.page, p);
  // The freed page is handed out again, as an init page.
  {
    Mtr mtr(pool_.get());
    auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(g->id().page, p);
    g->Release();
    ASSERT_TRUE(mtr.Commit().ok());
  }
  {
    Mtr mtr(pool_.get());
    auto g = pool_->Fetch(PageId{kSpace, q}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(pool_->FreePage(std::move(*g)).ok());
    Status s = mtr.Commit();
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  {
    Mtr mtr(pool_.get());
    auto g = pool_->Fetch(PageId{kSpace, q}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(pool_->FreePage(std::move(*g)).ok());
    Status s = mtr.Commit();
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << s.ToString();
  }
  EXPECT_EQ(pool_->mtr_violations(), 0u);
}

TEST_F(MtrTest, LoggerFailureReleasesThePagesAndReturnsTheError) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  redo_.fail = true;
  Mtr mtr(pool_.get());
  {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    g->mutable_data()[100] = 9;
  }
  Status s = mtr.Commit();
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_TRUE(OtherThreadCanLatch(p));
  EXPECT_GT(pool_->GetStats().pages_dirty, 0u);
}

// Crash after some mtrs (nothing flushed but the space header), replay the
// records into a fresh pool, and get the same pages; replaying twice too.
TEST_F(MtrTest, ApplyRedoRebuildsThePagesAndIsIdempotent) {
  OpenPool(/*logger=*/true, /*create=*/true, /*pages_per_group=*/64);
  std::vector<uint32_t> pages;
  for (int i = 0; i < 150; ++i) pages.push_back(NewPage());  // crosses into group 1 and 2
  for (int round = 0; round < 3; ++round) {
    Mtr mtr(pool_.get());
    for (size_t i = round; i < pages.size(); i += 7) {
      auto g = pool_->Fetch(PageId{kSpace, pages[i]}, LatchMode::kExclusive);
      ASSERT_TRUE(g.ok());
      std::memset(g->mutable_data() + 64 + 100 * round, static_cast<int>('a' + i % 26), 50 + i);
    }
    ASSERT_TRUE(mtr.Commit().ok());
  }
  // Free a few (group 0, 1 and 2 bitmaps) and reuse one.
  {
    Mtr mtr(pool_.get());
    for (size_t i : {3u, 70u, 140u}) {
      auto g = pool_->Fetch(PageId{kSpace, pages[i]}, LatchMode::kExclusive);
      ASSERT_TRUE(g.ok());
      ASSERT_TRUE(pool_->FreePage(std::move(*g)).ok());
    }
    ASSERT_TRUE(mtr.Commit().ok());
  }
  const uint32_t reused = NewPage();
  EXPECT_EQ(reused, pages[3]);
  std::vector<std::pair<uint32_t, std::string>> expected;
  for (uint32_t p = 0; p < 155; ++p) {
    if (p == pages[70] || p == pages[140]) continue;  // free: contents are dead
    expected.emplace_back(p, PageCopy(p));
  }
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());

  // Crash: drop the pool without flushing and lose unsynced file data.
  pool_.reset();
  fs_.DropUnsyncedData();
  OpenPool(/*logger=*/false, /*create=*/false);
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [payload, lsn] : redo_.records) {
      Status s = pool_->ApplyRedo(payload, lsn);
      ASSERT_TRUE(s.ok()) << s.ToString();
    }
    for (const auto& [p, want] : expected) {
      std::string got = PageCopy(p);
      if (GetPageType(want.data()) == PageType::kUnwritten) continue;  // bitmap slots never written
      EXPECT_EQ(FirstDifference(got, want), -1) << "page " << p << " pass " << pass;
    }
    auto u = pool_->GetSpaceUsage(kSpace);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u->page_count, usage->page_count);
    EXPECT_EQ(u->free_pages, usage->free_pages);
  }
  // Flushed and replayed again: every record is skipped (pages are newer).
  ASSERT_TRUE(pool_->FlushAll().ok());
  OpenPool(/*logger=*/false, /*create=*/false);
  for (const auto& [payload, lsn] : redo_.records) ASSERT_TRUE(pool_->ApplyRedo(payload, lsn).ok());
  for (const auto& [p, want] : expected) {
    if (GetPageType(want.data()) == PageType::kUnwritten) continue;
    EXPECT_EQ(FirstDifference(PageCopy(p), want), -1) << "page " << p;
  }
}

TEST_F(MtrTest, ApplyRedoSkipsSpacesThatAreNotOpen) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  ASSERT_FALSE(redo_.records.empty());
  OpenPool(/*logger=*/false, /*create=*/false);
  for (const auto& [payload, lsn] : redo_.records) {
    EXPECT_TRUE(pool_->ApplyRedo(payload, lsn, [](uint32_t) { return false; }).ok());
  }
  auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->type(), PageType::kUnwritten);  // not replayed
}

TEST_F(MtrTest, ParseRejectsMalformedPayloads) {
  OpenPool(/*logger=*/true);
  NewPage();
  const std::string good = redo_.records.back().first;
  ASSERT_TRUE(ParseMtrPayload(good).ok());
  EXPECT_FALSE(ParseMtrPayload(good.substr(0, good.size() - 1)).ok());
  EXPECT_FALSE(ParseMtrPayload(good.substr(0, 5)).ok());
  std::string bad_flags = good;
  bad_flags[8] = 4;
  EXPECT_FALSE(ParseMtrPayload(bad_flags).ok());
  std::string bad_range = good;
  StoreU16(bad_range.data() + 11, static_cast<uint16_t>(kPageSize - 1));  // offset
  StoreU16(bad_range.data() + 13, 2);                                     // past the page
  EXPECT_FALSE(ParseMtrPayload(bad_range).ok());
  EXPECT_TRUE(ParseMtrPayload("").ok());
}

#ifdef NDEBUG
// Debug builds abort instead.
TEST_F(MtrTest, ChangingAPageOutsideAnMtrIsCountedAsAViolation) {
  OpenPool(/*logger=*/true);
  const uint32_t p = NewPage();
  ::testing::internal::CaptureStderr();
  {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    g->mutable_data()[100] = 1;
  }
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_GE(pool_->mtr_violations(), 1u);
  EXPECT_NE(err.find("mini-transaction"), std::string::npos);
}
#endif

}  // namespace
}  // namespace sluice::storage
