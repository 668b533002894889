// storage/btree/btree_concurrency_test.cc
//
// Readers and writers on one tree at once, with a pool small enough that
// pages are evicted and read back while they run. Meant for TSan too.
#include <atomic>
#include <functional>
#include <map>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "storage/btree/btree.h"
#include "storage/btree/key_codec.h"
#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

constexpr uint32_t kSpace = 3;

std::string IntKey(int64_t v) { return KeyEncoder().Int(v).Release(); }
// For cursor loops: a failed step ends the loop (the cursor turns invalid).
void StepOk(const Status& s) { EXPECT_TRUE(s.ok()) << s.ToString(); }
int64_t KeyInt(std::string_view k) { return *KeyDecoder(k).Int(); }
std::string StableValue(int64_t k) { return "stable-" + std::to_string(k) + std::string(60, 's'); }

class BTreeConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BufferPool::Options o;
    o.pool_size_bytes = 48 * kPageSize;
    o.num_shards = 8;
    pool_ = std::make_unique<BufferPool>(o);
    auto space = Tablespace::Create(&fs_, "/c.ibd", kSpace);
    ASSERT_TRUE(space.ok());
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
    auto t = BTree::Create(pool_.get(), kSpace);
    ASSERT_TRUE(t.ok());
    tree_ = std::move(*t);
  }

  // The tree verifies and holds exactly the keys 0, step, 2 * step, ...
  // below `end`, each with value_of(key).
  void ExpectValidTreeHolding(int64_t end, int64_t step, const std::function<std::string(int64_t)>& value_of) {
    BTree::VerifyStats st;
    Status s = tree_->Verify(&st);
    ASSERT_TRUE(s.ok()) << s.ToString();
    auto c = tree_->NewCursor();
    ASSERT_TRUE(c.SeekToFirst().ok());
    int64_t expect = 0;
    for (; c.Valid(); StepOk(c.Next()), expect += step) {
      ASSERT_EQ(KeyInt(c.key()), expect);
      ASSERT_EQ(c.value(), value_of(expect));
    }
    EXPECT_EQ(expect, end);
  }

  io::MemFileSystem fs_;
  std::unique_ptr<BufferPool> pool_;
  std::unique_ptr<BTree> tree_;
};

// Even keys are inserted first and never touched again; one writer inserts,
// grows and deletes odd keys (splits and leaf frees all the time) while
// readers check that every even key stays visible, with its value, to point
// lookups and to scans in both directions.
TEST_F(BTreeConcurrencyTest, ReadersSeeEveryStableKeyWhileOneWriterSplitsAndFrees) {
  constexpr int64_t kStable = 4000;  // keys 0, 2, ..., 2 * (kStable - 1)
  for (int64_t i = 0; i < kStable; ++i) ASSERT_TRUE(tree_->Insert(IntKey(2 * i), StableValue(2 * i)).ok());

  std::atomic<bool> done{false};
  std::atomic<int> failures{0};
  auto fail = [&](const std::string& what) {
    if (failures.fetch_add(1) < 5) ADD_FAILURE() << what;
  };

  std::thread writer([&] {
    std::mt19937_64 rng(1);
    for (int i = 0; i < 12000; ++i) {
      const int64_t k = 2 * static_cast<int64_t>(rng() % kStable) + 1;
      const int op = rng() % 3;
      if (op == 0) {
        Status s = tree_->Insert(IntKey(k), std::string(rng() % 400, 'o'));
        if (!s.ok() && s.mysql_errno() != 1062) fail("insert: " + s.ToString());
      } else if (op == 1) {
        auto r = tree_->Upsert(IntKey(k), std::string(rng() % 1500, 'u'));
        if (!r.ok()) fail("upsert: " + r.status().ToString());
      } else {
        auto r = tree_->Delete(IntKey(k));
        if (!r.ok()) fail("delete: " + r.status().ToString());
      }
    }
    // Then empty the odd keys entirely, freeing leaves while readers run.
    for (int64_t k = 1; k < 2 * kStable; k += 2) {
      if (!tree_->Delete(IntKey(k)).ok()) fail("final delete");
    }
    done.store(true);
  });

  auto reader = [&](int seed) {
    std::mt19937_64 rng(seed);
    std::string v;
    while (!done.load()) {
      const int64_t k = 2 * static_cast<int64_t>(rng() % kStable);
      auto r = tree_->Get(IntKey(k), &v);
      if (!r.ok() || !*r || v != StableValue(k)) fail("get " + std::to_string(k));
      // A short scan from a random point must step through consecutive
      // stable keys, never repeating or going backwards.
      auto c = tree_->NewCursor();
      const bool forward = rng() % 2 == 0;
      Status s = forward ? c.Seek(IntKey(k)) : c.SeekForPrev(IntKey(k));
      int64_t next_stable = k;
      int64_t last = forward ? -1 : INT64_MAX;
      for (int n = 0; s.ok() && c.Valid() && n < 60; ++n) {
        const int64_t got = KeyInt(c.key());
        if (forward ? got <= last : got >= last) fail("scan order");
        last = got;
        if (got % 2 == 0) {
          if (got != next_stable) fail("scan skipped stable key " + std::to_string(next_stable));
          if (c.value() != StableValue(got)) fail("scan value");
          next_stable += forward ? 2 : -2;
        }
        s = forward ? c.Next() : c.Prev();
      }
      if (!s.ok()) fail("scan: " + s.ToString());
    }
  };
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) readers.emplace_back(reader, 100 + t);
  writer.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);

  BTree::VerifyStats st;
  Status s = tree_->Verify(&st);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(st.records, static_cast<uint64_t>(kStable));
  EXPECT_EQ(st.empty_leaves, 0u);
}

// Writers on disjoint key ranges split and free pages concurrently (the
// pessimistic path serialises structure changes per tree); nothing is lost.
TEST_F(BTreeConcurrencyTest, ConcurrentWritersOnDisjointRangesLoseNothing) {
  constexpr int kThreads = 3;
  constexpr int kPerThread = 5000;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<int64_t> keys;
      for (int i = 0; i < kPerThread; ++i) keys.push_back(static_cast<int64_t>(i) * kThreads + t);
      std::shuffle(keys.begin(), keys.end(), rng);
      for (int64_t k : keys) {
        if (!tree_->Insert(IntKey(k), std::string(100 + k % 50, 'w')).ok()) failures.fetch_add(1);
      }
      // Delete every key not divisible by 4 again.
      for (int64_t k : keys) {
        if (k % 4 != 0 && !*tree_->Delete(IntKey(k))) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ExpectValidTreeHolding(static_cast<int64_t>(kThreads) * kPerThread, 4,
                         [](int64_t k) { return std::string(100 + k % 50, 'w'); });
}

// An AUTO_INCREMENT primary key: every writer appends to the rightmost leaf,
// so they all find it full together and queue for smo_mu_ behind the one
// that splits it; the others then retry the (new) leaf alone. Nothing is
// lost or duplicated and the tree stays valid.
TEST_F(BTreeConcurrencyTest, WritersAppendingToOneHotLeafLoseNothing) {
  constexpr int kThreads = 6;
  constexpr int64_t kKeys = 12000;
  std::atomic<int64_t> next{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int64_t k = next.fetch_add(1); k < kKeys; k = next.fetch_add(1)) {
        if (!tree_->Insert(IntKey(k), std::string(40 + k % 90, 'a')).ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ExpectValidTreeHolding(kKeys, 1, [](int64_t k) { return std::string(40 + k % 90, 'a'); });
}

}  // namespace
}  // namespace sluice::storage
