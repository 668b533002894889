// storage/btree/btree_recovery_test.cc
//
// B-trees over a pool with an mtr logger (storage/buffer/mtr.h) that keeps
// every redo payload: after a crash (the pool dropped unflushed, unsynced
// file data lost), replaying the records into a fresh pool must give back
// exactly the trees the operations built, however the flushes and
// evictions before the crash left the files.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "storage/btree/btree.h"
#include "storage/btree/key_codec.h"
#include "storage/buffer/mtr.h"
#include "base/io/mem_file_system.h"
#include "storage/redo/redo_log.h"

namespace sluice::storage {
namespace {

constexpr uint32_t kSpace = 9;
constexpr uint32_t kPagesPerGroup = 64;  // small groups: bitmap pages get used
const char* const kPath = "/r.ibd";

using Model = std::map<std::string, std::string>;

std::string IntKey(int64_t v) { return KeyEncoder().Int(v).Release(); }

std::string ValueFor(int64_t k, uint64_t version, size_t len) {
  std::string v = std::to_string(k) + "/" + std::to_string(version) + ":";
  while (v.size() < len) v.push_back(static_cast<char>('a' + (v.size() * 7 + k) % 26));
  v.resize(len);
  return v;
}

// The redo log stand-in: every payload with its end LSN; LSNs advance by
// the framed record size, as in RedoLog. Everything logged counts as
// durable unless `durable` says otherwise.
struct CapturedRedo {
  std::mutex mu;
  std::vector<std::pair<std::string, uint64_t>> records;
  uint64_t lsn = 0;

  Status Log(std::string_view payload, const std::function<void(uint64_t)>& stamp) {
    std::lock_guard<std::mutex> lock(mu);
    lsn += RedoLog::FramedSize(payload.size());
    records.emplace_back(std::string(payload), lsn);
    stamp(lsn);
    return Status::OK();
  }
  size_t size() {
    std::lock_guard<std::mutex> lock(mu);
    return records.size();
  }
};

class BTreeRecoveryTest : public ::testing::Test {
 protected:
  BufferPool::Options PoolOptions(size_t pages, bool logger) {
    BufferPool::Options o;
    o.pool_size_bytes = pages * kPageSize;
    o.num_shards = 8;
    o.free_frame_timeout = std::chrono::milliseconds(5000);
    o.write_ahead_check = [this](uint64_t page_lsn) {
      return page_lsn <= durable_.load() ? Status::OK() : Status::IOError("redo not durable yet");
    };
    if (logger) {
      o.mtr_log = [this](std::string_view payload, const std::function<void(uint64_t)>& stamp) {
        return redo_.Log(payload, stamp);
      };
    }
    return o;
  }

  void CreateSpace(size_t pool_pages) {
    pool_ = std::make_unique<BufferPool>(PoolOptions(pool_pages, /*logger=*/true));
    auto space = Tablespace::Create(fs_.get(), kPath, kSpace, kPagesPerGroup);
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    space_ = space->get();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
    checkpoint_ = 0;
  }

  // A fuzzy checkpoint, as the engine takes one: the current end of the log
  // (read first), or the oldest modification of a page not yet written if
  // that is older; then the space is synced, so every write made before is
  // durable. Recovery replays the records from there on.
  void Checkpoint() {
    uint64_t lsn;
    {
      std::lock_guard<std::mutex> lock(redo_.mu);
      lsn = redo_.lsn;
    }
    const uint64_t ckpt = std::min(lsn, pool_->OldestModification());
    Status s = space_->Sync();
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (s.ok()) checkpoint_ = ckpt;
  }

  BTree* AddTree() {
    auto t = BTree::Create(pool_.get(), kSpace);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    if (!t.ok()) return nullptr;
    roots_.push_back((*t)->root_page());
    trees_.push_back(std::move(*t));
    return trees_.back().get();
  }

  // Drops the pool without writing anything back, and loses every file
  // write that was not synced.
  void Crash() {
    ASSERT_EQ(pool_->mtr_violations(), 0u);
    trees_.clear();
    pool_.reset();
    fs_->DropUnsyncedData();
  }

  // A fresh pool on the files; replays the first `count` records from the
  // last checkpoint on, `passes` times, then opens the trees.
  void Recover(size_t pool_pages, size_t count, int passes, bool logger) {
    pool_ = std::make_unique<BufferPool>(PoolOptions(pool_pages, logger));
    auto space = Tablespace::Open(fs_.get(), kPath);
    ASSERT_TRUE(space.ok()) << space.status().ToString();
    space_ = space->get();
    ASSERT_TRUE(pool_->AddSpace(std::move(*space)).ok());
    const size_t before = redo_.size();
    for (int pass = 0; pass < passes; ++pass) {
      for (size_t i = 0; i < count; ++i) {
        const auto& [payload, end_lsn] = redo_.records[i];
        if (end_lsn - RedoLog::FramedSize(payload.size()) < checkpoint_) continue;
        Status s = pool_->ApplyRedo(redo_.records[i].first, redo_.records[i].second);
        ASSERT_TRUE(s.ok()) << "record " << i << ": " << s.ToString();
      }
    }
    EXPECT_EQ(redo_.size(), before);  // replay logs nothing
    for (uint32_t root : roots_) {
      auto t = BTree::Open(pool_.get(), kSpace, root);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      trees_.push_back(std::move(*t));
    }
  }

  void ExpectTree(BTree* tree, const Model& model) {
    BTree::VerifyStats stats;
    Status s = tree->Verify(&stats);
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(stats.records, model.size());
    auto c = tree->NewCursor();
    ASSERT_TRUE(c.SeekToFirst().ok());
    auto it = model.begin();
    size_t mismatches = 0;
    for (; c.Valid() && it != model.end(); ++it) {
      if (c.key() != it->first || c.value() != it->second) {
        if (++mismatches <= 3) ADD_FAILURE() << "record " << std::distance(model.begin(), it) << " differs";
      }
      if (!c.Next().ok()) break;
    }
    EXPECT_FALSE(c.Valid());
    EXPECT_TRUE(it == model.end());
  }

  enum class OpKind { kWrite, kDelete, kRangeDelete };

  // One random change to `tree`, mirrored in `model`. A write is one redo
  // record at most, a split included; a Delete is one, plus one more when
  // it empties a leaf (the leaf's removal).
  OpKind RandomOp(BTree* tree, Model* model, std::mt19937_64& rng, int64_t key_space,
                  uint64_t version) {
    const size_t records_before = redo_.size();
    const OpKind kind = RandomOpImpl(tree, model, rng, key_space, version);
    const size_t records = redo_.size() - records_before;
    if (kind == OpKind::kWrite) {
      EXPECT_LE(records, 1u);
    } else if (kind == OpKind::kDelete) {
      EXPECT_LE(records, 2u);
    }
    return kind;
  }

  OpKind RandomOpImpl(BTree* tree, Model* model, std::mt19937_64& rng, int64_t key_space,
                      uint64_t version) {
    const int op = static_cast<int>(rng() % 100);
    const int64_t k = static_cast<int64_t>(rng() % key_space);
    const std::string key = IntKey(k);
    if (op < 55) {
      std::string v = ValueFor(k, version, rng() % 700);
      auto r = tree->Upsert(key, v);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return OpKind::kWrite;
      EXPECT_EQ(*r, model->count(key) == 0);
      (*model)[key] = std::move(v);
      return OpKind::kWrite;
    }
    if (op < 65) {
      std::string v = ValueFor(k, version, rng() % 300);
      Status s = tree->Insert(key, v);
      if (model->count(key) != 0) {
        EXPECT_EQ(s.mysql_errno(), 1062);
      } else {
        EXPECT_TRUE(s.ok()) << s.ToString();
        (*model)[key] = std::move(v);
      }
      return OpKind::kWrite;
    }
    if (op < 75) {
      std::string v = ValueFor(k, version, rng() % 1200);
      auto r = tree->Update(key, v);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) return OpKind::kWrite;
      EXPECT_EQ(*r, model->count(key) != 0);
      if (*r) (*model)[key] = std::move(v);
      return OpKind::kWrite;
    }
    if (op < 99) {
      auto r = tree->Delete(key);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (r.ok()) {
        EXPECT_EQ(*r, model->erase(key) == 1);
      }
      return OpKind::kDelete;
    }
    // A key range: empties whole leaves.
    for (int64_t j = k; j < k + 50; ++j) {
      auto r = tree->Delete(IntKey(j));
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (r.ok()) {
        EXPECT_EQ(*r, model->erase(IntKey(j)) == 1);
      }
    }
    return OpKind::kRangeDelete;
  }

  std::unique_ptr<io::MemFileSystem> fs_ = std::make_unique<io::MemFileSystem>();
  CapturedRedo redo_;
  std::atomic<uint64_t> durable_{UINT64_MAX};
  std::unique_ptr<BufferPool> pool_;
  Tablespace* space_ = nullptr;  // owned by pool_
  uint64_t checkpoint_ = 0;      // recovery starts here
  std::vector<uint32_t> roots_;
  std::vector<std::unique_ptr<BTree>> trees_;
};

// A pool much smaller than the trees, so evictions write pages back at
// every stage, plus whole flushes at random moments; two crashes.
TEST_F(BTreeRecoveryTest, ReplayRebuildsTheTreesAfterCrashesAndIsIdempotent) {
  CreateSpace(24);
  AddTree();
  AddTree();
  Model models[2];
  std::mt19937_64 rng(42);
  uint64_t version = 0;
  auto run = [&](int ops) {
    for (int i = 0; i < ops; ++i) {
      const int t = static_cast<int>(rng() % 2);
      RandomOp(trees_[t].get(), &models[t], rng, 5000, ++version);
      if (HasFatalFailure()) return;
      if (rng() % 1500 == 0) {
        ASSERT_TRUE(pool_->FlushAll().ok());
      }
      if (rng() % 300 == 0) Checkpoint();
    }
  };
  run(12000);
  ASSERT_FALSE(HasFatalFailure());
  // Empty a wide key range of the first tree: its leaves are freed, and
  // reused after the crash.
  for (int64_t k = 0; k < 1500; ++k) {
    auto r = trees_[0]->Delete(IntKey(k));
    ASSERT_TRUE(r.ok());
    models[0].erase(IntKey(k));
  }
  for (int t = 0; t < 2; ++t) ExpectTree(trees_[t].get(), models[t]);
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  EXPECT_GT(usage->page_count, 2 * kPagesPerGroup);  // bitmap pages in use
  EXPECT_GT(usage->free_pages, 5u);                  // leaves were freed

  const uint64_t first_checkpoint = checkpoint_;
  EXPECT_GT(first_checkpoint, 0u);
  Crash();
  // Recovery into a small pool with the logger on: replay must not log.
  Recover(24, redo_.records.size(), /*passes=*/1, /*logger=*/true);
  ASSERT_FALSE(HasFatalFailure());
  for (int t = 0; t < 2; ++t) ExpectTree(trees_[t].get(), models[t]);

  // Keep going on the recovered trees, then crash again.
  run(4000);
  ASSERT_FALSE(HasFatalFailure());
  EXPECT_GT(checkpoint_, first_checkpoint);
  Crash();
  Recover(256, redo_.records.size(), /*passes=*/2, /*logger=*/false);
  ASSERT_FALSE(HasFatalFailure());
  for (int t = 0; t < 2; ++t) ExpectTree(trees_[t].get(), models[t]);
  auto recovered = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(recovered.ok());

  // Flushed, then reopened with nothing to replay: the same trees.
  ASSERT_TRUE(pool_->FlushAll().ok());
  trees_.clear();
  pool_.reset();
  Recover(64, 0, 0, /*logger=*/false);
  ASSERT_FALSE(HasFatalFailure());
  for (int t = 0; t < 2; ++t) ExpectTree(trees_[t].get(), models[t]);
  auto reopened = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ(reopened->page_count, recovered->page_count);
  EXPECT_EQ(reopened->free_pages, recovered->free_pages);
}

// The log is cut at record k (what came after was never durable); pages
// could only be written while their LSN was covered by the durable prefix.
// Recovery gives the trees as of record k.
TEST_F(BTreeRecoveryTest, ADurablePrefixOfTheLogRecoversTheTreeAsOfItsLastRecord) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE(round);
    fs_ = std::make_unique<io::MemFileSystem>();
    redo_.records.clear();
    redo_.lsn = 0;
    roots_.clear();
    durable_ = UINT64_MAX;
    CreateSpace(512);  // no evictions: a refused write-back would fail the operation
    BTree* tree = AddTree();
    Model model, model_at_cut;
    std::mt19937_64 rng(100 + round);
    const int ops = 4000;
    const int cut = ops / 3 + static_cast<int>(rng() % (ops / 3));
    // Round 0 cuts between two operations; the others right after the
    // first record of a Delete that emptied its leaf, before the record
    // that removes the leaf (a valid tree with an empty leaf).
    const bool mid_delete = round > 0;
    bool cut_done = false;
    size_t cut_records = 0;
    auto cut_here = [&](size_t records) {
      cut_records = records;
      durable_ = redo_.records[records - 1].second;
      model_at_cut = model;
      cut_done = true;
    };
    for (int i = 0; i < ops; ++i) {
      if (i == cut && !mid_delete) cut_here(redo_.size());
      if (i == cut && mid_delete) {
        // Delete keys upwards from a random one until a leaf empties.
        for (int64_t k = static_cast<int64_t>(rng() % 2000); !cut_done && k < 2500; ++k) {
          const size_t before = redo_.size();
          auto r = tree->Delete(IntKey(k));
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          model.erase(IntKey(k));
          if (redo_.size() == before + 2) cut_here(before + 1);
        }
      }
      RandomOp(tree, &model, rng, 2500, static_cast<uint64_t>(i));
      ASSERT_FALSE(HasFatalFailure());
      if (!cut_done && rng() % 300 == 0) Checkpoint();
      if (rng() % 700 == 0) (void)pool_->FlushAll();  // after the cut, newer pages are refused
    }
    ASSERT_TRUE(cut_done);
    (void)pool_->FlushAll();
    ASSERT_GT(redo_.size(), cut_records);
    Crash();
    Recover(512, cut_records, /*passes=*/1, /*logger=*/false);
    ASSERT_FALSE(HasFatalFailure());
    ExpectTree(trees_[0].get(), model_at_cut);
    if (mid_delete) {
      BTree::VerifyStats stats;
      ASSERT_TRUE(trees_[0]->Verify(&stats).ok());
      EXPECT_EQ(stats.empty_leaves, 1u);
    }
    trees_.clear();
    pool_.reset();
  }
}

TEST_F(BTreeRecoveryTest, DropIsOneRecordThatFreesEveryPage) {
  CreateSpace(64);
  BTree* keep = AddTree();
  BTree* drop = AddTree();
  Model model;
  for (int64_t k = 0; k < 1500; ++k) {
    ASSERT_TRUE(drop->Insert(IntKey(k), ValueFor(k, 1, 200)).ok());
    if (k % 3 == 0) {
      ASSERT_TRUE(keep->Insert(IntKey(k), ValueFor(k, 2, 100)).ok());
      model[IntKey(k)] = ValueFor(k, 2, 100);
    }
  }
  auto before = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(before.ok());
  const size_t records = redo_.size();
  ASSERT_TRUE(drop->Drop().ok());
  EXPECT_EQ(redo_.size(), records + 1);
  auto after = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(after.ok());
  EXPECT_GT(after->free_pages, before->free_pages + 20);
  roots_.pop_back();
  trees_.pop_back();
  Crash();
  Recover(64, redo_.records.size(), 1, /*logger=*/false);
  ASSERT_FALSE(HasFatalFailure());
  ExpectTree(trees_[0].get(), model);
  auto recovered = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(recovered->page_count, after->page_count);
  EXPECT_EQ(recovered->free_pages, after->free_pages);
}

// Long keys make a three-level tree; deleting every key in random order
// frees all its leaves and internal nodes, and the root absorbs its last
// child (the neighbour the leaf removal just relinked, lent back from the
// mtr's memo). Recovery from the log alone gives the same empty tree and
// the same free pages.
TEST_F(BTreeRecoveryTest, DeletingEverythingCollapsesTheRootAndRecovers) {
  CreateSpace(48);
  BTree* tree = AddTree();
  // A long common prefix: separators cannot be shortened below it.
  auto long_key = [](int64_t k) { return std::string(600, 'k') + IntKey(k); };
  std::vector<int64_t> keys;
  for (int64_t k = 0; k < 2000; ++k) {
    ASSERT_TRUE(tree->Insert(long_key(k), ValueFor(k, 1, 300)).ok());
    keys.push_back(k);
  }
  BTree::VerifyStats stats;
  ASSERT_TRUE(tree->Verify(&stats).ok());
  EXPECT_GE(stats.height, 3);
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(5));
  for (int64_t k : keys) {
    auto r = tree->Delete(long_key(k));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(*r);
  }
  ExpectTree(tree, Model());
  ASSERT_TRUE(tree->Verify(&stats).ok());
  EXPECT_EQ(stats.height, 1);
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  const uint32_t bitmap_pages = (usage->page_count - 1) / kPagesPerGroup;
  EXPECT_EQ(usage->free_pages, usage->page_count - 2 - bitmap_pages);  // all but page 0 and the root
  Crash();
  Recover(48, redo_.records.size(), 1, /*logger=*/false);
  ASSERT_FALSE(HasFatalFailure());
  ExpectTree(trees_[0].get(), Model());
  auto recovered = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(recovered.ok());
  EXPECT_EQ(recovered->page_count, usage->page_count);
  EXPECT_EQ(recovered->free_pages, usage->free_pages);
}

// Writers on two trees of one space at once, with the logger on: splits,
// leaf frees and allocations of both trees contend for the same space
// header and bitmaps while each mtr holds its pages to commit. No deadlock,
// valid trees, and the interleaved log recovers them. Meant for TSan too.
TEST_F(BTreeRecoveryTest, ConcurrentWritersOnTwoTreesInOneSpaceRecover) {
  CreateSpace(64);
  AddTree();
  AddTree();
  constexpr int kThreads = 4;  // two per tree, on disjoint keys
  constexpr int kOpsPerThread = 2500;
  Model models[kThreads];
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      BTree* tree = trees_[t % 2].get();
      Model& model = models[t];
      std::mt19937_64 rng(7 + t);
      auto fail = [&](const std::string& what) {
        if (failures.fetch_add(1) < 5) ADD_FAILURE() << "thread " << t << ": " << what;
      };
      // This thread's keys: blocks of 64 consecutive keys, every
      // kThreads-th block, so emptying a block empties whole leaves while
      // the other writer of the tree splits the leaves around it.
      auto key_of = [&](int64_t block, int64_t i) { return (block * kThreads + t) * 64 + i; };
      auto delete_block = [&](int64_t block) {
        for (int64_t i = 0; i < 64; ++i) {
          auto r = tree->Delete(IntKey(key_of(block, i)));
          if (!r.ok()) fail("block delete: " + r.status().ToString());
          model.erase(IntKey(key_of(block, i)));
        }
      };
      for (int i = 0; i < kOpsPerThread && failures.load() == 0; ++i) {
        const int op = static_cast<int>(rng() % 100);
        const int64_t block = static_cast<int64_t>(rng() % 40);
        const int64_t k = key_of(block, static_cast<int64_t>(rng() % 64));
        const std::string key = IntKey(k);
        if (op < 65) {
          std::string v = ValueFor(k, i, rng() % 600);
          auto r = tree->Upsert(key, v);
          if (!r.ok()) fail("upsert: " + r.status().ToString());
          model[key] = std::move(v);
        } else if (op < 98) {
          auto r = tree->Delete(key);
          if (!r.ok()) fail("delete: " + r.status().ToString());
          model.erase(key);
        } else {
          delete_block(block);
        }
      }
      for (int64_t block = 0; block < 8; ++block) delete_block(block);
    });
  }
  std::atomic<bool> done{false};
  std::thread checkpointer([&] {
    for (int i = 0; !done.load(); ++i) {
      if (i % 8 == 7) {
        Status s = pool_->FlushAll();  // lets the checkpoint move past the hot roots
        EXPECT_TRUE(s.ok()) << s.ToString();
      }
      Checkpoint();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  for (auto& th : threads) th.join();
  done = true;
  checkpointer.join();
  ASSERT_EQ(failures.load(), 0);
  EXPECT_GT(checkpoint_, 0u);
  Model merged[2];
  for (int t = 0; t < kThreads; ++t) merged[t % 2].insert(models[t].begin(), models[t].end());
  for (int t = 0; t < 2; ++t) ExpectTree(trees_[t].get(), merged[t]);
  auto usage = pool_->GetSpaceUsage(kSpace);
  ASSERT_TRUE(usage.ok());
  EXPECT_GT(usage->page_count, kPagesPerGroup);
  EXPECT_GT(usage->free_pages, 0u);
  Crash();
  Recover(64, redo_.records.size(), 1, /*logger=*/false);
  ASSERT_FALSE(HasFatalFailure());
  for (int t = 0; t < 2; ++t) ExpectTree(trees_[t].get(), merged[t]);
}

}  // namespace
}  // namespace sluice::storage
