// storage/buffer/page_test.cc
#include "storage/buffer/page.h"

#include <memory>

#include <gtest/gtest.h>

#include "storage/buffer/tablespace.h"
#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

TEST(PageTest, StampedPageVerifies) {
  auto page = std::make_unique<char[]>(kPageSize);
  InitPage(page.get(), PageId{3, 7}, PageType::kBTreeNode);
  page[1000] = 'x';
  StampPageChecksum(page.get());
  EXPECT_TRUE(VerifyPage(page.get(), PageId{3, 7}).ok());
}

TEST(PageTest, EveryFlippedByteIsDetected) {
  auto page = std::make_unique<char[]>(kPageSize);
  InitPage(page.get(), PageId{1, 2}, PageType::kBTreeNode);
  for (size_t i = 0; i < kPageSize; ++i) page[i] = static_cast<char>(i * 31 + 7);
  StoreU32(page.get() + kPageSpaceIdOffset, 1);
  StoreU32(page.get() + kPageNoOffset, 2);
  StampPageChecksum(page.get());
  for (size_t i : {size_t{0}, size_t{5}, size_t{17}, size_t{4096}, kPageSize - 1}) {
    page[i] ^= 0x10;
    Status s = VerifyPage(page.get(), PageId{1, 2});
    EXPECT_TRUE(s.IsCorruption()) << "byte " << i;
    page[i] ^= 0x10;
  }
}

TEST(PageTest, MisdirectedPageIsCorruption) {
  auto page = std::make_unique<char[]>(kPageSize);
  InitPage(page.get(), PageId{1, 2}, PageType::kBTreeNode);
  StampPageChecksum(page.get());
  Status s = VerifyPage(page.get(), PageId{1, 3});
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_NE(s.message().find("misdirected"), std::string::npos) << s.message();
}

TEST(PageTest, AllZeroPageVerifiesAsUnwritten) {
  auto page = std::make_unique<char[]>(kPageSize);
  std::memset(page.get(), 0, kPageSize);
  EXPECT_TRUE(VerifyPage(page.get(), PageId{1, 9}).ok());
  EXPECT_EQ(GetPageType(page.get()), PageType::kUnwritten);
}

TEST(TablespaceTest, CreateThenOpenReadsTheHeader) {
  io::MemFileSystem fs;
  auto created = Tablespace::Create(&fs, "/t.ibd", 42);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  created->reset();
  auto opened = Tablespace::Open(&fs, "/t.ibd");
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ((*opened)->space_id(), 42u);
  auto page = std::make_unique<char[]>(kPageSize);
  // Past the end of the file: never written, reads as zeros.
  ASSERT_TRUE((*opened)->ReadPage(5, page.get()).ok());
  EXPECT_EQ(GetPageType(page.get()), PageType::kUnwritten);
}

TEST(TablespaceTest, OpenRejectsAFileThatIsNotATablespace) {
  io::MemFileSystem fs;
  auto f = fs.Open("/junk", io::OpenMode::kCreateNew);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->WriteAt(0, std::string(kPageSize, 'j')).ok());
  auto opened = Tablespace::Open(&fs, "/junk");
  EXPECT_TRUE(opened.status().IsCorruption()) << opened.status().ToString();
  auto short_file = fs.Open("/short", io::OpenMode::kCreateNew);
  ASSERT_TRUE(short_file.ok());
  EXPECT_TRUE(Tablespace::Open(&fs, "/short").status().IsCorruption());
}

TEST(TablespaceTest, PartialLastPageIsCorruption) {
  io::MemFileSystem fs;
  auto space = Tablespace::Create(&fs, "/t.ibd", 1);
  ASSERT_TRUE(space.ok());
  auto f = fs.Open("/t.ibd", io::OpenMode::kOpenExisting);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->WriteAt(kPageSize, "half a page").ok());
  auto page = std::make_unique<char[]>(kPageSize);
  EXPECT_TRUE((*space)->ReadPage(1, page.get()).IsCorruption());
}

}  // namespace
}  // namespace sluice::storage
