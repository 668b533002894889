// storage/btree/node_page_test.cc
#include "storage/btree/node_page.h"

#include <memory>
#include <string>

#include <gtest/gtest.h>

namespace sluice::storage {
namespace {

class NodePageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InitPage(page_.get(), PageId{1, 5}, PageType::kBTreeNode);
    NodeWriter(page_.get()).Init(77, 0);
  }
  std::unique_ptr<char[]> page_{new char[kPageSize]};
};

TEST_F(NodePageTest, InsertKeepsSlotsInKeyOrderAndBinarySearchFindsThem) {
  NodeWriter w(page_.get());
  for (std::string k : {"m", "c", "x", "a", "p"}) {
    ASSERT_TRUE(w.Insert(w.LowerBound(k), k, "v" + k));
  }
  ASSERT_EQ(w.slot_count(), 5);
  EXPECT_EQ(w.key(0), "a");
  EXPECT_EQ(w.key(4), "x");
  EXPECT_EQ(w.value(2), "vm");
  EXPECT_EQ(w.LowerBound("m"), 2);
  EXPECT_EQ(w.UpperBound("m"), 3);
  EXPECT_EQ(w.LowerBound("b"), 1);
  EXPECT_EQ(w.LowerBound("z"), 5);
  EXPECT_EQ(w.index_id(), 77u);
  EXPECT_EQ(w.prev(), kInvalidPageNo);
}

TEST_F(NodePageTest, FreedSpaceIsReusedThroughCompaction) {
  NodeWriter w(page_.get());
  const std::string value(1000, 'v');
  int n = 0;
  while (w.Insert(n, std::string(1, static_cast<char>('a' + n)), value)) ++n;
  EXPECT_EQ(n, static_cast<int>(kNodeCapacity / EntrySize(1, 1000)));
  const size_t full_free = w.available();
  w.Remove(3);
  w.Remove(5);
  EXPECT_GT(w.garbage(), 0);
  EXPECT_LT(w.contiguous_free(), EntrySize(1, 1500));
  // Needs the garbage: the insert compacts first.
  ASSERT_TRUE(w.Insert(3, "d", std::string(1500, 'w')));
  EXPECT_EQ(w.garbage(), 0);
  EXPECT_EQ(w.available(), full_free + 2 * EntrySize(1, 1000) - EntrySize(1, 1500));
  EXPECT_EQ(w.value(3), std::string(1500, 'w'));
  EXPECT_EQ(w.value(4), value);
  EXPECT_FALSE(w.Insert(0, "0", std::string(4000, 'z')));
}

TEST_F(NodePageTest, RemovingTheLowestRecordGivesItsBytesBackDirectly) {
  NodeWriter w(page_.get());
  ASSERT_TRUE(w.Insert(0, "a", "1"));
  ASSERT_TRUE(w.Insert(1, "b", "2"));  // lowest in the heap
  w.Remove(1);
  EXPECT_EQ(w.garbage(), 0);
  EXPECT_EQ(w.available(), kNodeCapacity - EntrySize(1, 1));
}

TEST_F(NodePageTest, InternalNodeChildrenFollowTheSeparators) {
  NodeWriter w(page_.get());
  w.Init(77, 1);
  w.set_leftmost_child(10);
  char c[4];
  StoreU32(c, 11);
  ASSERT_TRUE(w.Insert(0, "k", std::string_view(c, 4)));
  EXPECT_EQ(w.child(0), 10u);
  EXPECT_EQ(w.child(1), 11u);
  w.set_child(1, 12);
  EXPECT_EQ(w.child(1), 12u);
  EXPECT_EQ(w.UpperBound("a"), 0);  // keys < "k" go to child 0
  EXPECT_EQ(w.UpperBound("k"), 1);  // "k" itself to child 1
}

}  // namespace
}  // namespace sluice::storage
