// storage/btree/btree_test.cc
#include "storage/btree/btree.h"

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "storage/btree/key_codec.h"
#include "storage/btree/node_page.h"
#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

constexpr uint32_t kSpace = 7;

std::string IntKey(int64_t v) { return KeyEncoder().Int(v).Release(); }
// For cursor loops: a failed step ends the loop (the cursor turns invalid).
void StepOk(const Status& s) { EXPECT_TRUE(s.ok()) << s.ToString(); }
int64_t KeyInt(std::string_view k) { return *KeyDecoder(k).Int(); }

std::string ValueFor(int64_t k, int version, size_t len) {
  std::string v = std::to_string(k) + "/" + std::to_string(version) + ":";
  while (v.size() < len) v.push_back(static_cast<char>('a' + (v.size() + k) % 26));
  v.resize(std::max(len, size_t{0}));
  return v;
}

class BTreeTest : public ::testing::Test {
 protected:
  void OpenPool(size_t pages, bool create) {
    tree_.reset();
    pool_.reset();
    BufferPool::Options o;
    o.pool_size_bytes = pages * kPageSize;
    o.num_shards = 8;
    pool_ = std::make_unique<BufferPool>(o);
    auto space = create ? Tablespace::Create(&fs_, "/t.ibd", kSpace) : Tablespace::Open(&fs_, "/t.ibd");
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
  }
  void CreateTree(size_t pool_pages = 256, BTree::Options options = {}) {
    OpenPool(pool_pages, true);
    auto t = BTree::Create(pool_.get(), kSpace, options);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tree_ = std::move(*t);
  }

  void ExpectVerified(BTree::VerifyStats* stats = nullptr) {
    BTree::VerifyStats local;
    Status s = tree_->Verify(&local);
    ASSERT_TRUE(s.ok()) << s.ToString();
    if (stats != nullptr) *stats = local;
  }

  // The whole tree, scanned forward, must equal `model`, and backward its reverse.
  void ExpectTreeEquals(const std::map<std::string, std::string>& model) {
    auto c = tree_->NewCursor();
    ASSERT_TRUE(c.SeekToFirst().ok());
    auto it = model.begin();
    for (; c.Valid(); StepOk(c.Next()), ++it) {
      ASSERT_NE(it, model.end()) << "tree has extra key " << KeyInt(c.key());
      ASSERT_EQ(c.key(), it->first);
      ASSERT_EQ(c.value(), it->second);
    }
    EXPECT_EQ(it, model.end());
    ASSERT_TRUE(c.SeekToLast().ok());
    auto rit = model.rbegin();
    for (; c.Valid(); StepOk(c.Prev()), ++rit) {
      ASSERT_NE(rit, model.rend());
      ASSERT_EQ(c.key(), rit->first);
    }
    EXPECT_EQ(rit, model.rend());
  }

  io::MemFileSystem fs_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<BTree> tree_;
};

TEST_F(BTreeTest, EmptyTreeHasNothingToFindOrScan) {
  CreateTree();
  std::string v;
  EXPECT_FALSE(*tree_->Get(IntKey(1), &v));
  EXPECT_FALSE(*tree_->Delete(IntKey(1)));
  EXPECT_FALSE(*tree_->Update(IntKey(1), "x"));
  auto c = tree_->NewCursor();
  ASSERT_TRUE(c.SeekToFirst().ok());
  EXPECT_FALSE(c.Valid());
  ASSERT_TRUE(c.SeekToLast().ok());
  EXPECT_FALSE(c.Valid());
  BTree::VerifyStats st;
  ExpectVerified(&st);
  EXPECT_EQ(st.height, 1);
  EXPECT_EQ(st.records, 0u);
}

TEST_F(BTreeTest, RandomOperationsMatchAStdMap) {
  CreateTree(/*pool_pages=*/96);  // small enough that pages get evicted
  std::map<std::string, std::string> model;
  std::mt19937_64 rng(20240611);
  constexpr int kOps = 100000;
  constexpr int64_t kKeySpace = 30000;
  for (int i = 0; i < kOps; ++i) {
    const int64_t k = static_cast<int64_t>(rng() % kKeySpace) - kKeySpace / 2;
    const std::string key = IntKey(k);
    size_t len = rng() % 200;
    if (rng() % 100 == 0) len = 1000 + rng() % 2900;  // occasional big record
    const std::string value = ValueFor(k, i, len);
    const int op = rng() % 10;
    if (op < 4) {
      Status s = tree_->Insert(key, value);
      if (model.count(key) != 0) {
        ASSERT_EQ(s.mysql_errno(), 1062) << s.ToString();
      } else {
        ASSERT_TRUE(s.ok()) << s.ToString();
        model[key] = value;
      }
    } else if (op < 5) {
      auto r = tree_->Upsert(key, value);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(*r, model.count(key) == 0);
      model[key] = value;
    } else if (op < 6) {
      std::string old;
      auto r = tree_->Update(key, value, &old);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(*r, model.count(key) != 0);
      if (*r) {
        EXPECT_EQ(old, model[key]);
        model[key] = value;
      }
    } else if (op < 8) {
      std::string old;
      auto r = tree_->Delete(key, &old);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(*r, model.count(key) != 0);
      if (*r) {
        EXPECT_EQ(old, model[key]);
        model.erase(key);
      }
    } else {
      std::string got;
      auto r = tree_->Get(key, &got);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      ASSERT_EQ(*r, model.count(key) != 0) << k;
      if (*r) {
        ASSERT_EQ(got, model[key]);
      }
    }
    if (i % 20000 == 19999) ExpectVerified();
  }
  BTree::VerifyStats st;
  ExpectVerified(&st);
  EXPECT_EQ(st.records, model.size());
  EXPECT_GE(st.height, 2);
  ExpectTreeEquals(model);
  EXPECT_GT(pool_->GetStats().reads, 0u);
}

class BulkLoadTest : public BTreeTest, public ::testing::WithParamInterface<bool> {};

TEST_P(BulkLoadTest, SequentialInsertsFillLeavesAndStayOrdered) {
  const bool ascending = GetParam();
  CreateTree(256);
  constexpr int kRows = 50000;
  std::map<std::string, std::string> model;
  for (int i = 0; i < kRows; ++i) {
    const int64_t k = ascending ? i : kRows - i;
    const std::string key = IntKey(k);
    const std::string value = ValueFor(k, 0, 100);
    ASSERT_TRUE(tree_->Insert(key, value).ok());
    model[key] = value;
  }
  BTree::VerifyStats st;
  ExpectVerified(&st);
  EXPECT_EQ(st.records, static_cast<uint64_t>(kRows));
  // Leaves keep what they had when the load moved past them: close to full.
  const double bytes = static_cast<double>(kRows) * EntrySize(8, 100);
  const double min_leaves = bytes / kNodeCapacity;
  EXPECT_LT(st.leaf_pages, static_cast<uint64_t>(min_leaves * 1.05) + 2)
      << "leaves " << st.leaf_pages << " for at least " << min_leaves;
  EXPECT_EQ(st.height, 2);  // short separators: one level of ~1000-way fanout
  ExpectTreeEquals(model);
}

INSTANTIATE_TEST_SUITE_P(Directions, BulkLoadTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Ascending" : "Descending"; });

TEST_F(BTreeTest, ProbeKeyFindsTheKeyAndTheNextOneOnAnyLeaf) {
  CreateTree();
  std::map<std::string, std::string> model;
  // Even keys only, values big enough for many leaves; then a stretch
  // deleted, so some next keys are several leaves on.
  for (int64_t k = 0; k < 4000; k += 2) {
    const std::string v = ValueFor(k, 0, 300);
    ASSERT_TRUE(tree_->Insert(IntKey(k), v).ok());
    model[IntKey(k)] = v;
  }
  for (int64_t k = 1000; k < 1600; k += 2) {
    ASSERT_TRUE(*tree_->Delete(IntKey(k)));
    model.erase(IntKey(k));
  }
  for (int64_t k = -3; k < 4004; ++k) {
    const std::string key = IntKey(k);
    std::string value;
    auto p = tree_->ProbeKey(key, &value);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    const auto it = model.find(key);
    ASSERT_EQ(p->found, it != model.end()) << k;
    if (p->found) EXPECT_EQ(value, it->second) << k;
    const auto next = model.upper_bound(key);
    ASSERT_EQ(p->next.has_value(), next != model.end()) << k;
    if (p->next) EXPECT_EQ(*p->next, next->first) << k;
  }
}

// Records what an insert's check was told, and answers with `answer`.
class RecordingCheck final : public BTree::InsertCheck {
 public:
  Status BeforeInsert(const BTree::NextAfter& next) override {
    ++calls;
    kind = next.kind;
    key.assign(next.key);
    if (rewrite != nullptr) (*rewrite)[0] = 'Z';
    return answer;
  }
  int calls = 0;
  BTree::NextAfter::Kind kind = BTree::NextAfter::Kind::kUnknown;
  std::string key;
  Status answer;
  std::string* rewrite = nullptr;
};

TEST_F(BTreeTest, AnInsertsCheckIsToldTheTrueNextKey) {
  CreateTree();
  std::map<std::string, std::string> model;
  for (int64_t k = 0; k < 4000; k += 4) {
    const std::string v = ValueFor(k, 0, 300);
    ASSERT_TRUE(tree_->Insert(IntKey(k), v).ok());
    model[IntKey(k)] = v;
  }
  // Odd keys between the others (some end a leaf, some split one), then
  // keys past the end: the check always hears the key after the new one.
  for (int64_t k = 1; k < 4200; k += 6) {
    const std::string key = IntKey(k);
    RecordingCheck check;
    ASSERT_TRUE(tree_->Insert(key, ValueFor(k, 0, 300), &check).ok());
    ASSERT_EQ(check.calls, 1);
    const auto next = model.upper_bound(key);
    model[key] = ValueFor(k, 0, 300);
    if (next == model.end()) {
      EXPECT_EQ(check.kind, BTree::NextAfter::Kind::kNone) << k;
    } else {
      ASSERT_EQ(check.kind, BTree::NextAfter::Kind::kKey) << k;
      EXPECT_EQ(check.key, next->first) << k;
    }
  }
  // A duplicate is refused before the check is asked.
  RecordingCheck check;
  EXPECT_EQ(tree_->Insert(IntKey(8), "x", &check).mysql_errno(), 1062);
  EXPECT_EQ(check.calls, 0);
  ExpectTreeEquals(model);
}

TEST_F(BTreeTest, ARefusingCheckLeavesTheTreeAsItWasAndAnAcceptingOneMayRewriteTheValue) {
  CreateTree();
  std::map<std::string, std::string> model;
  for (int64_t k = 0; k < 3000; k += 2) {
    const std::string v = ValueFor(k, 0, 200);
    ASSERT_TRUE(tree_->Insert(IntKey(k), v).ok());
    model[IntKey(k)] = v;
  }
  // Refused inserts, in leaves with room and in full ones (a split's pages
  // are given back): nothing changes.
  for (int64_t k = 1; k < 3200; k += 10) {
    RecordingCheck check;
    check.answer = Status::InvalidArgument("no");
    EXPECT_EQ(tree_->Insert(IntKey(k), ValueFor(k, 1, 200), &check).code(), Status::Code::kInvalidArgument);
    EXPECT_EQ(check.calls, 1);
  }
  ExpectTreeEquals(model);
  ExpectVerified();
  // Accepted, the value goes in as the check left it.
  for (int64_t k = 1; k < 3200; k += 10) {
    std::string value = ValueFor(k, 1, 200);
    RecordingCheck check;
    check.rewrite = &value;
    ASSERT_TRUE(tree_->Insert(IntKey(k), value, &check).ok());
    model[IntKey(k)] = value;
    EXPECT_EQ(value[0], 'Z');
  }
  ExpectTreeEquals(model);
  ExpectVerified();
}

TEST_F(BTreeTest, RangeScansRunBothWaysFromAnyStart) {
  CreateTree();
  for (int64_t k = 0; k < 20000; k += 2) ASSERT_TRUE(tree_->Insert(IntKey(k), ValueFor(k, 0, 40)).ok());
  auto c = tree_->NewCursor();
  // Seek lands on the first key >= target, SeekForPrev on the last <= target.
  ASSERT_TRUE(c.Seek(IntKey(1001)).ok());
  ASSERT_TRUE(c.Valid());
  EXPECT_EQ(KeyInt(c.key()), 1002);
  ASSERT_TRUE(c.Seek(IntKey(1002)).ok());
  EXPECT_EQ(KeyInt(c.key()), 1002);
  ASSERT_TRUE(c.SeekForPrev(IntKey(1001)).ok());
  EXPECT_EQ(KeyInt(c.key()), 1000);
  ASSERT_TRUE(c.SeekForPrev(IntKey(-5)).ok());
  EXPECT_FALSE(c.Valid());
  ASSERT_TRUE(c.Seek(IntKey(19999)).ok());
  EXPECT_FALSE(c.Valid());
  ASSERT_TRUE(c.SeekForPrev(IntKey(1000000)).ok());
  EXPECT_EQ(KeyInt(c.key()), 19998);

  // Forward [5001, 15001): 5002..15000 step 2, across many leaves.
  ASSERT_TRUE(c.Seek(IntKey(5001)).ok());
  int64_t expect = 5002;
  int n = 0;
  while (c.Valid() && c.key() < IntKey(15001)) {
    ASSERT_EQ(KeyInt(c.key()), expect);
    ASSERT_EQ(c.value(), ValueFor(expect, 0, 40));
    expect += 2;
    ++n;
    ASSERT_TRUE(c.Next().ok());
  }
  EXPECT_EQ(n, 5000);
  // Backward from 15001 down to 5001.
  ASSERT_TRUE(c.SeekForPrev(IntKey(15001)).ok());
  expect = 15000;
  n = 0;
  while (c.Valid() && c.key() >= IntKey(5001)) {
    ASSERT_EQ(KeyInt(c.key()), expect);
    expect -= 2;
    ++n;
    ASSERT_TRUE(c.Prev().ok());
  }
  EXPECT_EQ(n, 5000);
  // Turning around mid-scan.
  ASSERT_TRUE(c.Seek(IntKey(7000)).ok());
  ASSERT_TRUE(c.Next().ok());
  ASSERT_TRUE(c.Next().ok());
  EXPECT_EQ(KeyInt(c.key()), 7004);
  ASSERT_TRUE(c.Prev().ok());
  EXPECT_EQ(KeyInt(c.key()), 7002);
}

TEST_F(BTreeTest, DuplicateKeyIsError1062WithTheCallersKeyTextAndIndexName) {
  BTree::Options options;
  options.index_name = "t1.PRIMARY";
  options.key_text = [](std::string_view key) { return std::to_string(KeyInt(key)); };
  CreateTree(256, options);
  ASSERT_TRUE(tree_->Insert(IntKey(42), "first").ok());
  Status s = tree_->Insert(IntKey(42), "second");
  EXPECT_EQ(s.code(), Status::Code::kMySQL);
  EXPECT_EQ(s.mysql_errno(), 1062);
  EXPECT_EQ(s.sqlstate(), "23000");
  EXPECT_EQ(s.message(), "Duplicate entry '42' for key 't1.PRIMARY'");
  std::string v;
  ASSERT_TRUE(*tree_->Get(IntKey(42), &v));
  EXPECT_EQ(v, "first");
}

TEST_F(BTreeTest, DuplicateIsDetectedWhenTheLeafIsFullAndLeaksNoPage) {
  CreateTree();
  for (int k = 0; k < 2000; ++k) ASSERT_TRUE(tree_->Insert(IntKey(k), std::string(300, 'v')).ok());
  auto before = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(before.ok());
  for (int k = 0; k < 2000; k += 97) {
    // A big value takes the pessimistic path on a full leaf.
    EXPECT_EQ(tree_->Insert(IntKey(k), std::string(3900, 'w')).mysql_errno(), 1062);
  }
  auto after = pool_->GetSpaceUsage(kSpace);
  EXPECT_EQ(after->page_count - after->free_pages, before->page_count - before->free_pages);
  ExpectVerified();
}

TEST_F(BTreeTest, DefaultKeyTextIsHexForBinaryKeys) {
  CreateTree();
  ASSERT_TRUE(tree_->Insert("abc", "").ok());
  EXPECT_EQ(tree_->Insert("abc", "").message(), "Duplicate entry 'abc' for key 'PRIMARY'");
  ASSERT_TRUE(tree_->Insert(std::string("\x01\xff", 2), "").ok());
  EXPECT_EQ(tree_->Insert(std::string("\x01\xff", 2), "").message(),
            "Duplicate entry '0x01FF' for key 'PRIMARY'");
}

TEST_F(BTreeTest, OversizedRecordsAreRefusedClearly) {
  CreateTree();
  Status s = tree_->Insert("k", std::string(BTree::kMaxRecordSize, 'v'));
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.message().find("overflow pages"), std::string::npos);
  s = tree_->Insert(std::string(BTree::kMaxKeySize + 1, 'k'), "");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument) << s.ToString();
  ASSERT_TRUE(tree_->Insert("k", "small").ok());
  EXPECT_TRUE(tree_->Update("k", std::string(BTree::kMaxRecordSize, 'v')).status().IsNotSupported());
}

TEST_F(BTreeTest, MaximumSizeRecordsAndKeysSplitCleanly) {
  CreateTree();
  std::map<std::string, std::string> model;
  std::mt19937 rng(3);
  for (int i = 0; i < 400; ++i) {
    // Long keys make fat separators, so internal nodes split too.
    std::string key = KeyEncoder().String(std::string(BTree::kMaxKeySize - 40, 'k')).Int(rng()).Release();
    std::string value(BTree::kMaxRecordSize - key.size(), static_cast<char>('a' + i % 26));
    ASSERT_TRUE(tree_->Insert(key, value).ok()) << i;
    model[key] = value;
  }
  BTree::VerifyStats st;
  ExpectVerified(&st);
  EXPECT_GE(st.height, 3);
  ExpectTreeEquals(model);
}

TEST_F(BTreeTest, UpdatesThatGrowValuesSplitLeavesInPlace) {
  CreateTree();
  std::map<std::string, std::string> model;
  for (int k = 0; k < 3000; ++k) {
    ASSERT_TRUE(tree_->Insert(IntKey(k), ValueFor(k, 0, 10)).ok());
    model[IntKey(k)] = ValueFor(k, 0, 10);
  }
  for (int round = 1; round <= 3; ++round) {
    for (int k = 0; k < 3000; ++k) {
      const std::string v = ValueFor(k, round, round % 2 == 1 ? 10 + 150 * round : 5);
      std::string old;
      ASSERT_TRUE(*tree_->Update(IntKey(k), v, &old));
      EXPECT_EQ(old, model[IntKey(k)]);
      model[IntKey(k)] = v;
    }
    ExpectVerified();
  }
  ExpectTreeEquals(model);
}

TEST_F(BTreeTest, DeletingEveryKeyFreesAllPagesButTheRoot) {
  CreateTree(128);
  std::vector<int> keys(20000);
  for (int i = 0; i < 20000; ++i) keys[i] = i;
  std::shuffle(keys.begin(), keys.end(), std::mt19937(5));
  for (int k : keys) ASSERT_TRUE(tree_->Insert(IntKey(k), std::string(50, 'x')).ok());
  BTree::VerifyStats st;
  ExpectVerified(&st);
  EXPECT_GE(st.height, 2);
  std::shuffle(keys.begin(), keys.end(), std::mt19937(6));
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(*tree_->Delete(IntKey(keys[i])));
    if (i % 5000 == 0) {
      ExpectVerified(&st);
      EXPECT_EQ(st.empty_leaves, 0u);
    }
  }
  ExpectVerified(&st);
  EXPECT_EQ(st.height, 1);
  EXPECT_EQ(st.leaf_pages, 1u);
  EXPECT_EQ(st.records, 0u);
  auto usage = pool_->GetSpaceUsage(kSpace);
  EXPECT_EQ(usage->page_count - usage->free_pages, 2u);  // page 0 and the root
  // The freed pages come back for the next load.
  for (int k = 0; k < 20000; ++k) ASSERT_TRUE(tree_->Insert(IntKey(k), std::string(50, 'x')).ok());
  ExpectVerified(&st);
  EXPECT_EQ(st.records, 20000u);
  EXPECT_EQ(pool_->GetSpaceUsage(kSpace)->page_count, usage->page_count);
}

TEST_F(BTreeTest, DeletingAKeyRangeUnlinksItsLeaves) {
  CreateTree();
  std::map<std::string, std::string> model;
  for (int k = 0; k < 20000; ++k) {
    ASSERT_TRUE(tree_->Insert(IntKey(k), "v").ok());
    model[IntKey(k)] = "v";
  }
  for (int k = 5000; k < 15000; ++k) {
    ASSERT_TRUE(*tree_->Delete(IntKey(k)));
    model.erase(IntKey(k));
  }
  BTree::VerifyStats st;
  ExpectVerified(&st);
  EXPECT_EQ(st.empty_leaves, 0u);
  ExpectTreeEquals(model);
  auto c = tree_->NewCursor();
  ASSERT_TRUE(c.Seek(IntKey(5000)).ok());
  EXPECT_EQ(KeyInt(c.key()), 15000);
  ASSERT_TRUE(c.Prev().ok());
  EXPECT_EQ(KeyInt(c.key()), 4999);
}

// The acceptance criterion: a table larger than the buffer pool.
TEST_F(BTreeTest, TreeFiveTimesLargerThanThePoolIsWrittenScannedUpdatedAndReopened) {
  constexpr size_t kPoolPages = 64;  // 1 MiB
  CreateTree(kPoolPages);
  std::vector<int64_t> keys(30000);
  for (size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<int64_t>(i) * 7;
  std::shuffle(keys.begin(), keys.end(), std::mt19937(11));
  for (int64_t k : keys) ASSERT_TRUE(tree_->Insert(IntKey(k), ValueFor(k, 0, 200)).ok());
  BTree::VerifyStats st;
  ExpectVerified(&st);
  ASSERT_GE(st.leaf_pages + st.internal_pages, 5 * kPoolPages)
      << "the tree must be at least five times the pool";

  // Full scan, in order.
  auto c = tree_->NewCursor();
  ASSERT_TRUE(c.SeekToFirst().ok());
  int64_t expect = 0;
  for (; c.Valid(); StepOk(c.Next()), expect += 7) {
    ASSERT_EQ(KeyInt(c.key()), expect);
    ASSERT_EQ(c.value(), ValueFor(expect, 0, 200));
  }
  EXPECT_EQ(expect, 30000 * 7);

  // Update every row in random order; values change size.
  std::shuffle(keys.begin(), keys.end(), std::mt19937(12));
  for (int64_t k : keys) ASSERT_TRUE(*tree_->Update(IntKey(k), ValueFor(k, 1, 150 + k % 100)));
  ExpectVerified(&st);
  const uint32_t root = tree_->root_page();
  BufferPoolStats ps = pool_->GetStats();
  EXPECT_GT(ps.reads, 1000u);
  EXPECT_GT(ps.data_writes, 1000u);

  ASSERT_TRUE(pool_->FlushAll().ok());
  fs_.DropUnsyncedData();  // a crash now loses nothing
  OpenPool(kPoolPages, false);
  auto reopened = BTree::Open(pool_.get(), kSpace, root);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  tree_ = std::move(*reopened);
  ExpectVerified(&st);
  EXPECT_EQ(st.records, 30000u);
  auto c2 = tree_->NewCursor();
  ASSERT_TRUE(c2.SeekToLast().ok());
  expect = 29999 * 7;
  for (; c2.Valid(); StepOk(c2.Prev()), expect -= 7) {
    ASSERT_EQ(KeyInt(c2.key()), expect);
    ASSERT_EQ(c2.value(), ValueFor(expect, 1, 150 + expect % 100));
  }
  EXPECT_EQ(expect, -7);
  std::string v;
  for (int64_t k : {0, 7 * 1234, 7 * 29999}) {
    ASSERT_TRUE(*tree_->Get(IntKey(k), &v));
    EXPECT_EQ(v, ValueFor(k, 1, 150 + k % 100));
  }
  EXPECT_FALSE(*tree_->Get(IntKey(8), &v));
}

TEST_F(BTreeTest, OpenRejectsAPageThatIsNotThisTreesRoot) {
  CreateTree();
  for (int k = 0; k < 2000; ++k) ASSERT_TRUE(tree_->Insert(IntKey(k), std::string(100, 'v')).ok());
  auto other = BTree::Open(pool_.get(), kSpace, tree_->root_page() + 1);
  EXPECT_TRUE(other.status().IsCorruption()) << other.status().ToString();
  auto header = BTree::Open(pool_.get(), kSpace, 0);
  EXPECT_TRUE(header.status().IsCorruption());
}

TEST_F(BTreeTest, ClusteredAndSecondaryIndexesShareATablespace) {
  CreateTree();
  auto secondary = BTree::Create(pool_.get(), kSpace, BTree::Options{"t1.k", {}});
  ASSERT_TRUE(secondary.ok());
  // Row (pk, k) with k = pk % 10: the secondary index holds (k, pk).
  for (int64_t pk = 0; pk < 5000; ++pk) {
    ASSERT_TRUE(tree_->Insert(IntKey(pk), "row").ok());
    ASSERT_TRUE((*secondary)->Insert(KeyEncoder().Int(pk % 10).Int(pk).Release(), "").ok());
  }
  // All rows with k = 3, in pk order, from the secondary index.
  auto c = (*secondary)->NewCursor();
  const std::string prefix = KeyEncoder().Int(3).Release();
  ASSERT_TRUE(c.Seek(prefix).ok());
  int64_t expect_pk = 3, n = 0;
  for (; c.Valid() && c.key().substr(0, 8) == prefix; StepOk(c.Next()), expect_pk += 10, ++n) {
    KeyDecoder d(c.key());
    ASSERT_EQ(*d.Int(), 3);
    int64_t pk = *d.Int();
    ASSERT_EQ(pk, expect_pk);
    ASSERT_TRUE(*tree_->Get(IntKey(pk), nullptr));
  }
  EXPECT_EQ(n, 500);
  ExpectVerified();
  ASSERT_TRUE((*secondary)->Verify().ok());
}

TEST_F(BTreeTest, DropReturnsEveryPageToTheFreeList) {
  CreateTree();
  for (int k = 0; k < 10000; ++k) ASSERT_TRUE(tree_->Insert(IntKey(k), std::string(100, 'v')).ok());
  ASSERT_TRUE(tree_->Drop().ok());
  auto usage = pool_->GetSpaceUsage(kSpace);
  EXPECT_EQ(usage->page_count - usage->free_pages, 1u);  // page 0
}

TEST_F(BTreeTest, CorruptLeafOnDiskIsReportedNotCrashed) {
  CreateTree(64);
  for (int k = 0; k < 5000; ++k) ASSERT_TRUE(tree_->Insert(IntKey(k), std::string(100, 'v')).ok());
  const uint32_t root = tree_->root_page();
  ASSERT_TRUE(pool_->FlushAll().ok());
  // Find a leaf holding key 2500 and flip a byte of it in the file.
  uint32_t victim = 0;
  {
    auto c = tree_->NewCursor();
    ASSERT_TRUE(c.Seek(IntKey(2500)).ok());
    for (uint32_t p = 1; p < 200 && victim == 0; ++p) {
      auto g = pool_->Fetch(PageId{kSpace, p}, LatchMode::kShared);
      if (!g.ok() || g->type() != PageType::kBTreeNode) continue;
      NodeView n(g->data());
      if (n.is_leaf() && n.slot_count() > 0 && n.key(0) <= IntKey(2500) &&
          IntKey(2500) <= n.key(n.slot_count() - 1)) {
        victim = p;
      }
    }
  }
  ASSERT_NE(victim, 0u);
  tree_.reset();
  pool_.reset();
  {
    auto f = fs_.Open("/t.ibd", io::OpenMode::kOpenExisting);
    ASSERT_TRUE(f.ok());
    char byte;
    ASSERT_EQ(*(*f)->ReadAt(uint64_t{victim} * kPageSize + 5000, &byte, 1), 1u);
    byte ^= 0x40;
    ASSERT_TRUE((*f)->WriteAt(uint64_t{victim} * kPageSize + 5000, std::string_view(&byte, 1)).ok());
  }
  OpenPool(64, false);
  auto t = BTree::Open(pool_.get(), kSpace, root);
  ASSERT_TRUE(t.ok());
  tree_ = std::move(*t);
  std::string v;
  EXPECT_TRUE(tree_->Get(IntKey(2500), &v).status().IsCorruption());
  EXPECT_TRUE(tree_->Insert(IntKey(2500), "x").IsCorruption());
  EXPECT_TRUE(tree_->Verify().IsCorruption());
  auto c = tree_->NewCursor();
  Status s = c.SeekToFirst();
  while (s.ok() && c.Valid()) s = c.Next();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_FALSE(c.Valid());
  EXPECT_TRUE(*tree_->Get(IntKey(10), &v));  // other leaves still readable
}

// A split that cannot get its pages (the eviction it needs fails to write)
// fails before changing anything: the tree stays valid and complete.
TEST_F(BTreeTest, WriteFailuresDuringSplitsLeaveTheTreeValid) {
  CreateTree(16);
  std::map<std::string, std::string> model;
  int failures = 0;
  std::mt19937 rng(9);
  for (int i = 0; i < 6000; ++i) {
    if (i % 500 == 0) {
      io::MemFileSystem::Fault fault;
      fault.op = io::MemFileSystem::Op::kWrite;
      fault.nth = 1 + rng() % 5;
      fs_.InjectFault(fault);
    }
    const int64_t k = static_cast<int64_t>(rng() % 100000);
    const std::string key = IntKey(k);
    Status s = tree_->Insert(key, std::string(120, 'v'));
    if (s.IsIOError()) {
      ++failures;
      continue;
    }
    if (s.mysql_errno() == 1062) continue;
    ASSERT_TRUE(s.ok()) << s.ToString();
    model[key] = std::string(120, 'v');
  }
  fs_.ClearFaults();
  EXPECT_GT(failures, 0);
  ExpectVerified();
  ExpectTreeEquals(model);
}

}  // namespace
}  // namespace sluice::storage
