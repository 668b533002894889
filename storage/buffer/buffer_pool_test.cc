// storage/buffer/buffer_pool_test.cc
#include "storage/buffer/buffer_pool.h"

#include <stdlib.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

constexpr uint32_t kSpace = 1;
constexpr size_t kBodyOffset = 64;

BufferPool::Options SmallPool(size_t pages) {
  BufferPool::Options o;
  o.pool_size_bytes = pages * kPageSize;
  o.num_shards = 4;
  o.free_frame_timeout = std::chrono::milliseconds(2000);
  return o;
}

void WriteStamp(PageGuard& g, uint64_t v) { StoreU64(g.mutable_data() + kBodyOffset, v); }
uint64_t ReadStamp(const PageGuard& g) { return LoadU64(g.data() + kBodyOffset); }

class BufferPoolTest : public ::testing::Test {
 protected:
  void OpenPool(size_t pages, bool create) {
    pool_.reset();
    pool_ = std::make_unique<BufferPool>(SmallPool(pages));
    auto space = create ? Tablespace::Create(&fs_, "/t1.ibd", kSpace) : Tablespace::Open(&fs_, "/t1.ibd");
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  }

  // Allocates `n` pages, stamping each with its page number * 10.
  std::vector<uint32_t> AllocateStamped(size_t n) {
    std::vector<uint32_t> pages;
    for (size_t i = 0; i < n; ++i) {
      auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
      EXPECT_TRUE(g.ok()) << g.status().ToString();
      if (!g.ok()) break;
      WriteStamp(*g, uint64_t{g->id().page} * 10);
      pages.push_back(g->id().page);
    }
    return pages;
  }

  io::MemFileSystem fs_;
  std::unique_ptr<BufferPool> pool_;
};

TEST_F(BufferPoolTest, PagesLargerThanThePoolSurviveEvictionAndWriteBack) {
  OpenPool(8, true);
  std::vector<uint32_t> pages = AllocateStamped(40);
  ASSERT_EQ(pages.size(), 40u);
  EXPECT_EQ(pages.front(), 1u);
  EXPECT_EQ(pages.back(), 40u);
  for (uint32_t p : pages) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(ReadStamp(*g), uint64_t{p} * 10);
    EXPECT_EQ(g->type(), PageType::kBTreeNode);
  }
  BufferPoolStats st = pool_->GetStats();
  EXPECT_EQ(st.pages_total, 8u);
  EXPECT_GT(st.reads, 0u);          // evicted pages came back from disk
  EXPECT_GT(st.data_writes, 30u);   // dirty victims were written back
  EXPECT_GE(st.read_requests, 40u);
  EXPECT_EQ(st.pages_created, 40u);
  EXPECT_LE(st.pages_data, 8u);
}

TEST_F(BufferPoolTest, FlushAllThenReopenFindsEveryPage) {
  OpenPool(8, true);
  std::vector<uint32_t> pages = AllocateStamped(20);
  ASSERT_TRUE(pool_->FlushAll().ok());
  EXPECT_EQ(pool_->GetStats().pages_dirty, 0u);
  fs_.DropUnsyncedData();  // a crash right after FlushAll loses nothing
  OpenPool(8, false);
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->page_count, 21u);
  for (uint32_t p : pages) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(ReadStamp(*g), uint64_t{p} * 10);
  }
}

TEST_F(BufferPoolTest, FreedPagesAreReusedLowestFirstBeforeTheSpaceGrows) {
  OpenPool(8, true);
  std::vector<uint32_t> pages = AllocateStamped(5);
  for (uint32_t p : {pages[3], pages[1]}) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(pool_->FreePage(std::move(*g)).ok());
  }
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->free_pages, 2u);
  auto a = pool_->NewPage(kSpace, PageType::kBTreeNode);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->id().page, pages[1]);
  EXPECT_EQ(ReadStamp(*a), 0u);  // body zeroed
  auto b = pool_->NewPage(kSpace, PageType::kBTreeNode);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->id().page, pages[3]);
  auto c = pool_->NewPage(kSpace, PageType::kBTreeNode);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->id().page, 6u);
  EXPECT_EQ(pool_->GetSpaceUsage(kSpace)->free_pages, 0u);
}

TEST_F(BufferPoolTest, FreeingAPageTwiceIsCorruption) {
  OpenPool(8, true);
  std::vector<uint32_t> pages = AllocateStamped(2);
  auto g = pool_->Fetch(PageId{kSpace, pages[0]}, LatchMode::kExclusive);
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(pool_->FreePage(std::move(*g)).ok());
  g = pool_->Fetch(PageId{kSpace, pages[0]}, LatchMode::kExclusive);
  ASSERT_TRUE(g.ok());
  EXPECT_TRUE(pool_->FreePage(std::move(*g)).IsCorruption());
  g = pool_->Fetch(PageId{kSpace, 0}, LatchMode::kExclusive);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(pool_->FreePage(std::move(*g)).code(), Status::Code::kInvalidArgument);
}

// Groups of 64 pages: pages 64, 128, ... are bitmap pages, never handed out;
// frees and reuse work across groups, through eviction and a reopen.
TEST_F(BufferPoolTest, BitmapGroupsTrackFreePagesAcrossEvictionAndReopen) {
  pool_ = std::make_unique<BufferPool>(SmallPool(8));
  auto space = Tablespace::Create(&fs_, "/t1.ibd", kSpace, /*pages_per_group=*/64);
  ASSERT_TRUE(space.ok()) << space.status().ToString();
  ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  std::vector<uint32_t> pages = AllocateStamped(300);
  ASSERT_EQ(pages.size(), 300u);
  for (uint32_t p : pages) EXPECT_NE(p % 64, 0u) << p;
  EXPECT_EQ(pages.back(), 304u);  // 300 pages + page 0 + bitmaps 64, 128, 192, 256
  std::vector<uint32_t> freed;
  for (size_t i = 0; i < pages.size(); i += 7) {
    auto g = pool_->Fetch(PageId{kSpace, pages[i]}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    ASSERT_TRUE(pool_->FreePage(std::move(*g)).ok());
    freed.push_back(pages[i]);
  }
  ASSERT_TRUE(pool_->FlushAll().ok());
  fs_.DropUnsyncedData();
  OpenPool(8, false);
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->page_count, 305u);
  EXPECT_EQ(usage->free_pages, freed.size());
  std::vector<uint32_t> again;
  for (size_t i = 0; i < freed.size(); ++i) {
    auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    again.push_back(g->id().page);
  }
  std::sort(again.begin(), again.end());
  EXPECT_EQ(again, freed);
  auto next = pool_->NewPage(kSpace, PageType::kBTreeNode);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->id().page, 305u);
  // Untouched pages kept their contents.
  for (uint32_t p : pages) {
    if (std::find(freed.begin(), freed.end(), p) != freed.end()) continue;
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(ReadStamp(*g), uint64_t{p} * 10);
  }
}

TEST_F(BufferPoolTest, ConcurrentAllocationAndFreeingNeverHandOutAPageTwice) {
  pool_ = std::make_unique<BufferPool>(SmallPool(32));
  auto space = Tablespace::Create(&fs_, "/t1.ibd", kSpace, /*pages_per_group=*/64);
  ASSERT_TRUE(space.ok());
  ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  constexpr int kThreads = 4;
  std::vector<std::vector<uint32_t>> owned(kThreads);
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 600; ++i) {
        if (owned[t].size() < 5 || rng() % 3 != 0) {
          auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
          if (!g.ok()) {
            errors.fetch_add(1);
            continue;
          }
          WriteStamp(*g, 1000 + t);
          owned[t].push_back(g->id().page);
        } else {
          size_t idx = rng() % owned[t].size();
          uint32_t p = owned[t][idx];
          owned[t].erase(owned[t].begin() + idx);
          auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
          if (!g.ok() || ReadStamp(*g) != uint64_t(1000 + t)) errors.fetch_add(1);
          if (!g.ok() || !pool_->FreePage(std::move(*g)).ok()) errors.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  std::vector<uint32_t> all;
  for (auto& v : owned) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  auto usage = pool_->GetSpaceUsage(kSpace);
  const uint32_t bitmaps = (usage->page_count + 63) / 64;  // page 0 included
  EXPECT_EQ(usage->page_count - usage->free_pages - bitmaps, all.size());
}

TEST_F(BufferPoolTest, WriteFailureKeepsThePageDirtyUntilARetrySucceeds) {
  OpenPool(8, true);
  AllocateStamped(3);
  io::MemFileSystem::Fault fault;
  fault.op = io::MemFileSystem::Op::kWrite;
  fault.sticky = true;
  fs_.InjectFault(fault);
  Status s = pool_->FlushAll();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(pool_->GetStats().pages_dirty, 4u);  // 3 pages and page 0
  fs_.ClearFaults();
  ASSERT_TRUE(pool_->FlushAll().ok());
  EXPECT_EQ(pool_->GetStats().pages_dirty, 0u);
}

TEST_F(BufferPoolTest, WriteAheadCheckSeesThePageLsnBeforeTheWrite) {
  std::vector<uint64_t> seen;
  bool refuse = true;
  auto options = SmallPool(8);
  options.write_ahead_check = [&](uint64_t lsn) {
    seen.push_back(lsn);
    return refuse ? Status::IOError("redo not flushed") : Status::OK();
  };
  pool_ = std::make_unique<BufferPool>(options);
  auto space = Tablespace::Create(&fs_, "/t1.ibd", kSpace);
  ASSERT_TRUE(space.ok());
  ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  {
    auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
    ASSERT_TRUE(g.ok());
    g->set_page_lsn(1234);
    g->set_page_lsn(1300);
  }
  EXPECT_EQ(pool_->OldestModification(), 1234u);  // the first change counts
  uint64_t writes_before = pool_->GetStats().data_writes;
  EXPECT_FALSE(pool_->FlushAll().ok());
  EXPECT_EQ(pool_->GetStats().data_writes, writes_before);  // nothing written past the check
  EXPECT_NE(std::find(seen.begin(), seen.end(), 1300u), seen.end());
  EXPECT_EQ(pool_->OldestModification(), 1234u);
  refuse = false;
  ASSERT_TRUE(pool_->FlushAll().ok());
  EXPECT_EQ(pool_->OldestModification(), BufferPool::kNoModification);
}

TEST_F(BufferPoolTest, ReadFailureIsReportedAndLeaksNoFrame) {
  OpenPool(8, true);
  std::vector<uint32_t> pages = AllocateStamped(3);
  ASSERT_TRUE(pool_->FlushAll().ok());
  OpenPool(8, false);
  size_t free_before = pool_->GetStats().pages_free;
  io::MemFileSystem::Fault fault;
  fault.op = io::MemFileSystem::Op::kRead;
  fs_.InjectFault(fault);
  auto g = pool_->Fetch(PageId{kSpace, pages[0]}, LatchMode::kShared);
  EXPECT_TRUE(g.status().IsIOError()) << g.status().ToString();
  EXPECT_EQ(pool_->GetStats().pages_free, free_before);
  g = pool_->Fetch(PageId{kSpace, pages[0]}, LatchMode::kShared);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(ReadStamp(*g), uint64_t{pages[0]} * 10);
}

TEST_F(BufferPoolTest, FetchFailsWithOutOfResourcesWhenEveryFrameIsPinned) {
  auto options = SmallPool(8);
  options.free_frame_timeout = std::chrono::milliseconds(20);
  pool_ = std::make_unique<BufferPool>(options);
  auto space = Tablespace::Create(&fs_, "/t1.ibd", kSpace);
  ASSERT_TRUE(space.ok());
  ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  std::vector<PageGuard> held;
  for (int i = 0; i < 7; ++i) {
    auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
    ASSERT_TRUE(g.ok());
    held.push_back(std::move(*g));
  }
  auto page0 = pool_->Fetch(PageId{kSpace, 0}, LatchMode::kShared);  // the 8th frame
  ASSERT_TRUE(page0.ok());
  auto more = pool_->Fetch(PageId{kSpace, 0}, LatchMode::kShared);  // cached: fine
  ASSERT_TRUE(more.ok());
  more->Release();
  auto g = pool_->Fetch(PageId{kSpace, 100}, LatchMode::kShared);
  EXPECT_EQ(g.status().mysql_errno(), 1041) << g.status().ToString();
  EXPECT_GE(pool_->GetStats().wait_free, 1u);
  held.pop_back();
  g = pool_->Fetch(PageId{kSpace, 100}, LatchMode::kShared);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
}

TEST_F(BufferPoolTest, UnknownSpaceIsInvalidArgument) {
  OpenPool(8, true);
  auto g = pool_->Fetch(PageId{99, 1}, LatchMode::kShared);
  EXPECT_EQ(g.status().code(), Status::Code::kInvalidArgument);
}

TEST_F(BufferPoolTest, DetachSpaceWritesBackAndFreesItsFrames) {
  OpenPool(8, true);
  std::vector<uint32_t> pages = AllocateStamped(5);
  auto detached = pool_->DetachSpace(kSpace, /*write_back=*/true);
  ASSERT_TRUE(detached.ok()) << detached.status().ToString();
  BufferPoolStats st = pool_->GetStats();
  EXPECT_EQ(st.pages_free, 8u);
  EXPECT_EQ(st.pages_dirty, 0u);
  EXPECT_FALSE(pool_->Fetch(PageId{kSpace, 1}, LatchMode::kShared).ok());
  ASSERT_TRUE(pool_->AddSpace(std::move(*detached)).ok());
  for (uint32_t p : pages) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(ReadStamp(*g), uint64_t{p} * 10);
  }
}

TEST_F(BufferPoolTest, DetachWithoutWriteBackDiscardsChanges) {
  OpenPool(8, true);
  AllocateStamped(2);
  ASSERT_TRUE(pool_->FlushAll().ok());
  {
    auto g = pool_->Fetch(PageId{kSpace, 1}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    WriteStamp(*g, 777);
  }
  auto detached = pool_->DetachSpace(kSpace, /*write_back=*/false);
  ASSERT_TRUE(detached.ok());
  ASSERT_TRUE(pool_->AddSpace(std::move(*detached)).ok());
  auto g = pool_->Fetch(PageId{kSpace, 1}, LatchMode::kShared);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(ReadStamp(*g), 10u);
}

// Each thread pins random pages; exclusive holders bump a counter in the
// page. Eviction and write-back run all the time (16 frames, 64 pages): a
// lost update or a torn latch shows up as a wrong total.
TEST_F(BufferPoolTest, ConcurrentPinUnpinFromThreadsLosesNoUpdate) {
  OpenPool(16, true);
  constexpr int kPages = 64;
  std::vector<uint32_t> pages = AllocateStamped(kPages);
  for (uint32_t p : pages) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kExclusive);
    ASSERT_TRUE(g.ok());
    WriteStamp(*g, 0);
  }
  constexpr int kThreads = 4;
  constexpr int kOps = 3000;
  std::atomic<uint64_t> increments{0};
  std::atomic<int> errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t + 1);
      for (int i = 0; i < kOps; ++i) {
        uint32_t p = pages[rng() % kPages];
        bool write = rng() % 4 == 0;
        auto g = pool_->Fetch(PageId{kSpace, p}, write ? LatchMode::kExclusive : LatchMode::kShared);
        if (!g.ok()) {
          errors.fetch_add(1);
          continue;
        }
        if (g->type() != PageType::kBTreeNode) errors.fetch_add(1);
        if (write) {
          WriteStamp(*g, ReadStamp(*g) + 1);
          increments.fetch_add(1);
        }
        if (i % 500 == 0 && t == 0) {
          g->Release();
          if (!pool_->FlushAll().ok()) errors.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors.load(), 0);
  uint64_t total = 0;
  for (uint32_t p : pages) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok());
    total += ReadStamp(*g);
  }
  EXPECT_EQ(total, increments.load());
  EXPECT_GT(pool_->GetStats().reads, 0u);
}

class BufferPoolPosixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_ = io::NewPosixFileSystem();
    std::string tmpl = ::testing::TempDir() + "sluice_buf_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/t1.ibd";
  }
  void TearDown() override {
    pool_.reset();
    (void)fs_->Remove(path_);
    (void)fs_->Remove(dir_);
  }
  void OpenPool(bool create) {
    pool_.reset();
    pool_ = std::make_unique<BufferPool>(SmallPool(8));
    auto space = create ? Tablespace::Create(fs_.get(), path_, kSpace) : Tablespace::Open(fs_.get(), path_);
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  }
  void FlipByte(uint64_t offset) {
    auto f = fs_->Open(path_, io::OpenMode::kOpenExisting);
    ASSERT_TRUE(f.ok());
    char c;
    ASSERT_EQ(*(*f)->ReadAt(offset, &c, 1), 1u);
    c ^= 0x01;
    ASSERT_TRUE((*f)->WriteAt(offset, std::string_view(&c, 1)).ok());
  }

  std::unique_ptr<io::FileSystem> fs_;
  std::string dir_, path_;
  std::unique_ptr<BufferPool> pool_;
};

TEST_F(BufferPoolPosixTest, FlippedByteInTheFileIsCorruptionOnRead) {
  OpenPool(true);
  for (int i = 0; i < 3; ++i) {
    auto g = pool_->NewPage(kSpace, PageType::kBTreeNode);
    ASSERT_TRUE(g.ok());
    WriteStamp(*g, 5);
  }
  ASSERT_TRUE(pool_->FlushAll().ok());
  pool_.reset();
  FlipByte(2 * kPageSize + 9000);
  OpenPool(false);
  auto bad = pool_->Fetch(PageId{kSpace, 2}, LatchMode::kShared);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsCorruption()) << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("checksum mismatch in space 1 page 2"), std::string::npos)
      << bad.status().message();
  // Still corrupt on the next read, and the neighbours are fine.
  EXPECT_TRUE(pool_->Fetch(PageId{kSpace, 2}, LatchMode::kExclusive).status().IsCorruption());
  for (uint32_t p : {1u, 3u}) {
    auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    EXPECT_EQ(ReadStamp(*g), 5u);
  }
}

TEST_F(BufferPoolPosixTest, FlippedByteInTheSpaceHeaderFailsOpen) {
  OpenPool(true);
  ASSERT_TRUE(pool_->FlushAll().ok());
  pool_.reset();
  FlipByte(40);
  auto space = Tablespace::Open(fs_.get(), path_);
  EXPECT_TRUE(space.status().IsCorruption()) << space.status().ToString();
}

}  // namespace
}  // namespace sluice::storage
