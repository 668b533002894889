// storage/btree/btree.cc
#include "base/mysql_error.h"
#include "storage/btree/btree.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "storage/btree/node_page.h"
#include "storage/buffer/mtr.h"

namespace sluice::storage {
namespace {

constexpr size_t kChildSize = 4;
// The largest separator entry a split can push into a parent.
constexpr size_t kMaxSeparatorEntry = EntrySize(BTree::kMaxKeySize, kChildSize);
static_assert(4 * EntrySize(0, BTree::kMaxRecordSize) <= kNodeCapacity);
static_assert(BTree::kMaxKeySize <= BTree::kMaxRecordSize);

std::string EncodeChild(uint32_t page_no) {
  std::string s(kChildSize, '\0');
  StoreU32(s.data(), page_no);
  return s;
}

uint32_t DecodeChild(std::string_view v) { return LoadU32(v.data()); }

std::string DefaultKeyText(std::string_view key) {
  bool printable = std::all_of(key.begin(), key.end(),
                               [](char c) { return c >= 0x20 && c < 0x7f && c != '\''; });
  if (printable) return std::string(key);
  std::string out = "0x";
  for (unsigned char c : key) out += fmt::format("{:02X}", c);
  return out;
}

// The shortest s with left < s <= right. REQUIRES: left < right.
std::string_view ShortestSeparator(std::string_view left, std::string_view right) {
  size_t i = 0;
  while (i < left.size() && i < right.size() && left[i] == right[i]) ++i;
  return right.substr(0, std::min(right.size(), i + 1));
}

struct Rec {
  std::string_view key;
  std::string_view value;
  size_t size() const { return EntrySize(key.size(), value.size()); }
};

// A node's records with (k, v) inserted at `pos`, or replacing slot `pos`.
std::vector<Rec> GatherWith(const NodeView& node, int pos, std::string_view k, std::string_view v,
                            bool replace = false) {
  std::vector<Rec> recs;
  recs.reserve(node.slot_count() + 1);
  for (int i = 0; i < node.slot_count(); ++i) {
    if (i == pos) {
      recs.push_back({k, v});
      if (replace) continue;
    }
    recs.push_back({node.key(i), node.value(i)});
  }
  if (pos == node.slot_count()) recs.push_back({k, v});
  return recs;
}

size_t SumSizes(const std::vector<Rec>& recs, size_t begin, size_t end) {
  size_t total = 0;
  for (size_t i = begin; i < end; ++i) total += recs[i].size();
  return total;
}

// Where to cut `recs` (which overflow one node) in two. For a leaf, the
// left node keeps [0, m) and the right [m, n). For an internal node the
// left keeps [0, m), recs[m] moves up and the right keeps (m, n).
// Inserts at the far right (left) end of a level keep the old node full,
// so ascending (descending) bulk loads fill pages instead of halving them.
// Returns -1 if no cut fits (impossible with kMaxRecordSize).
int ChooseSplit(const std::vector<Rec>& recs, int new_pos, bool leaf, bool at_left_end,
                bool at_right_end) {
  const int n = static_cast<int>(recs.size());
  auto fits = [&](int m) {
    if (leaf) {
      return m >= 1 && m <= n - 1 && SumSizes(recs, 0, m) <= kNodeCapacity &&
             SumSizes(recs, m, n) <= kNodeCapacity;
    }
    return m >= 1 && m <= n - 2 && SumSizes(recs, 0, m) <= kNodeCapacity &&
           SumSizes(recs, m + 1, n) <= kNodeCapacity;
  };
  if (at_right_end && new_pos == n - 1 && fits(leaf ? n - 1 : n - 2)) return leaf ? n - 1 : n - 2;
  if (at_left_end && new_pos == 0 && fits(1)) return 1;
  const size_t total = SumSizes(recs, 0, n);
  size_t acc = 0;
  int m = 1;
  for (; m < n; ++m) {
    acc += recs[m - 1].size();
    if (acc >= total / 2) break;
  }
  if (fits(m)) return m;
  for (int delta = 1; delta < n; ++delta) {
    if (fits(m - delta)) return m - delta;
    if (fits(m + delta)) return m + delta;
  }
  return -1;
}

}  // namespace

struct BTree::Bounds {
  std::string lo, hi;
  bool lo_inf = true, hi_inf = true;
};

struct BTree::PathLevel {
  PageGuard page;
  int child_idx = -1;  // which child of the level above this is
  bool leftmost = true;
  bool rightmost = true;
};

BTree::BTree(BufferPool* pool, uint32_t space_id, uint32_t root_page, Options options)
    : pool_(pool),
      space_id_(space_id),
      root_page_(root_page),
      index_id_((uint64_t{space_id} << 32) | root_page),
      options_(std::move(options)) {}

Result<std::unique_ptr<BTree>> BTree::Create(BufferPool* pool, uint32_t space_id, Options options) {
  assert(!Mtr::InMtr(pool));
  Mtr mtr(pool);  // the allocation and the empty root: one redo record
  uint32_t root_page;
  {
    auto root = pool->NewPage(space_id, PageType::kBTreeNode);
    if (!root.ok()) return root.status();
    root_page = root->id().page;
    NodeWriter(root->mutable_data()).Init((uint64_t{space_id} << 32) | root_page, 0);
  }
  SLUICE_RETURN_IF_ERROR(mtr.Commit());
  return std::unique_ptr<BTree>(new BTree(pool, space_id, root_page, std::move(options)));
}

Result<std::unique_ptr<BTree>> BTree::Open(BufferPool* pool, uint32_t space_id, uint32_t root_page,
                                           Options options) {
  std::unique_ptr<BTree> tree(new BTree(pool, space_id, root_page, std::move(options)));
  auto root = tree->FetchNode(root_page, LatchMode::kShared);
  if (!root.ok()) return root.status();
  tree->root_is_leaf_.store(NodeView(root->data()).is_leaf(), std::memory_order_relaxed);
  return tree;
}

Status BTree::CheckRecord(std::string_view key, std::string_view value) const {
  if (key.size() > kMaxKeySize) {
    return Status::InvalidArgument(fmt::format(
        "key of {} bytes for index '{}' exceeds the maximum key length of {} bytes", key.size(),
        options_.index_name, kMaxKeySize));
  }
  if (key.size() + value.size() > kMaxRecordSize) {
    return Status::NotSupported(fmt::format(
        "record of {} bytes (key {}, value {}) for index '{}' exceeds {} bytes; records stored off "
        "the page (overflow pages) are not implemented yet",
        key.size() + value.size(), key.size(), value.size(), options_.index_name, kMaxRecordSize));
  }
  return Status::OK();
}

Status BTree::DuplicateKey(std::string_view key) const {
  std::string text = options_.key_text ? options_.key_text(key) : DefaultKeyText(key);
  // ER_DUP_ENTRY prints each argument with %-.192s.
  if (text.size() > 192) text.resize(192);
  std::string index = options_.index_name.substr(0, 192);
  return MakeError(er::kDupEntry, text, index);
}

Result<PageGuard> BTree::FetchChild(const NodeView& parent, int idx, LatchMode mode) const {
  return FetchNodeAtLevel(parent.child(idx), mode, parent.level() - 1);
}

Result<PageGuard> BTree::FetchNodeAtLevel(uint32_t page_no, LatchMode mode, int level) const {
  auto page = FetchNode(page_no, mode);
  if (!page.ok()) return page.status();
  if (NodeView(page->data()).level() != level) {
    return Status::Corruption(fmt::format("space {} page {} of index '{}' is at the wrong level",
                                          space_id_, page_no, options_.index_name));
  }
  return page;
}

Result<PageGuard> BTree::FetchNode(uint32_t page_no, LatchMode mode) const {
  auto page = pool_->Fetch(PageId{space_id_, page_no}, mode);
  if (!page.ok()) return page.status();
  NodeView node(page->data());
  if (page->type() != PageType::kBTreeNode || node.index_id() != index_id_) {
    return Status::Corruption(fmt::format(
        "space {} page {} is not a node of index '{}' (page type {}, index id {:#x}, expected {:#x})",
        space_id_, page_no, options_.index_name, static_cast<unsigned>(page->type()),
        node.index_id(), index_id_));
  }
  const size_t slots_end = kNodeSlotsOffset + kSlotSize * static_cast<size_t>(node.slot_count());
  if (node.heap_top() > kPageSize || slots_end > node.heap_top() ||
      node.garbage() > kPageSize - node.heap_top()) {
    return Status::Corruption(fmt::format("space {} page {} of index '{}' has a bad node header",
                                          space_id_, page_no, options_.index_name));
  }
  return page;
}

Result<PageGuard> BTree::DescendToLeaf(std::string_view key, Target target, LatchMode leaf_mode,
                                       Bounds* bounds) const {
  for (;;) {
    const bool root_leaf_hint = root_is_leaf_.load(std::memory_order_relaxed);
    const LatchMode root_mode =
        leaf_mode == LatchMode::kExclusive && root_leaf_hint ? LatchMode::kExclusive : LatchMode::kShared;
    auto root = FetchNode(root_page_, root_mode);
    if (!root.ok()) return root.status();
    if (bounds != nullptr) *bounds = Bounds();
    PageGuard cur = std::move(*root);
    if (NodeView(cur.data()).is_leaf()) {
      if (root_mode == leaf_mode) return cur;
      root_is_leaf_.store(true, std::memory_order_relaxed);  // retry with the right latch
      continue;
    }
    if (root_leaf_hint) root_is_leaf_.store(false, std::memory_order_relaxed);
    for (;;) {
      NodeView node(cur.data());
      int idx = 0;
      switch (target) {
        case Target::kKey: idx = node.UpperBound(key); break;
        case Target::kBefore: idx = node.LowerBound(key); break;
        case Target::kFirst: idx = 0; break;
        case Target::kLast: idx = node.slot_count(); break;
      }
      if (bounds != nullptr) {
        if (idx > 0) {
          bounds->lo.assign(node.key(idx - 1));
          bounds->lo_inf = false;
        }
        if (idx < node.slot_count()) {
          bounds->hi.assign(node.key(idx));
          bounds->hi_inf = false;
        }
      }
      const int child_level = node.level() - 1;
      if (child_level == 0 && leaf_mode == LatchMode::kExclusive) {
        // A writer does not hold the parent while it queues for its leaf:
        // holding it there kept a split (which needs the parent exclusive)
        // waiting for the whole queue on the leaf, and, the latch
        // preferring writers, every new descent waiting behind the split.
        // The parent is let go first; the leaf is still the key's if no
        // structure change began or ended meanwhile (one that touched the
        // leaf released its latch before we took it, after bumping the
        // sequence: we see the bump).
        const uint64_t seq = smo_seq_.load(std::memory_order_acquire);
        if ((seq & 1) == 0) {
          const uint32_t leaf_no = node.child(idx);
          cur.Release();
          auto leaf = FetchNodeAtLevel(leaf_no, leaf_mode, 0);
          if (smo_seq_.load(std::memory_order_acquire) != seq) break;  // moved: descend again
          return leaf;
        }
      }
      auto child = FetchChild(node, idx, child_level == 0 ? leaf_mode : LatchMode::kShared);
      if (!child.ok()) return child.status();
      cur = std::move(*child);  // latch coupling: the parent goes once the child is held
      if (child_level == 0) return cur;
    }
  }
}

Result<bool> BTree::Get(std::string_view key, std::string* value) const {
  auto leaf = DescendToLeaf(key, Target::kKey, LatchMode::kShared, nullptr);
  if (!leaf.ok()) return leaf.status();
  NodeView node(leaf->data());
  const int pos = node.LowerBound(key);
  if (pos == node.slot_count() || node.key(pos) != key) return false;
  if (value != nullptr) value->assign(node.value(pos));
  return true;
}

Result<BTree::Probe> BTree::ProbeKey(std::string_view key, std::string* value) const {
  Probe out;
  {
    auto leaf = DescendToLeaf(key, Target::kKey, LatchMode::kShared, nullptr);
    if (!leaf.ok()) return leaf.status();
    NodeView node(leaf->data());
    int pos = node.LowerBound(key);
    if (pos < node.slot_count() && node.key(pos) == key) {
      out.found = true;
      if (value != nullptr) value->assign(node.value(pos));
      ++pos;
    }
    if (pos < node.slot_count()) {
      out.next.emplace(node.key(pos));
      return out;
    }
    if (node.next() == kInvalidPageNo) return out;  // the last leaf: nothing after it
  }
  // The next key is on a later leaf: a cursor goes there (past empty
  // leaves), with this leaf's latch already released.
  Cursor c = NewCursor();
  SLUICE_RETURN_IF_ERROR(c.Seek(key));
  if (c.Valid() && c.key() == key) SLUICE_RETURN_IF_ERROR(c.Next());
  if (c.Valid()) out.next.emplace(c.key());
  return out;
}

Status BTree::Insert(std::string_view key, std::string_view value) { return Insert(key, value, nullptr); }

Status BTree::Insert(std::string_view key, std::string_view value, InsertCheck* check) {
  auto r = Write(key, value, WriteOp::kInsert, nullptr, check);
  return r.ok() ? Status::OK() : r.status();
}

Status BTree::RunInsertCheck(InsertCheck* check, const PageGuard& leaf, int pos, const PageGuard* next_leaf) const {
  NodeView node(leaf.data());
  NextAfter next;
  if (pos < node.slot_count()) {
    next.kind = NextAfter::Kind::kKey;
    next.key = node.key(pos);
    return check->BeforeInsert(next);
  }
  if (node.next() == kInvalidPageNo) {
    next.kind = NextAfter::Kind::kNone;
    return check->BeforeInsert(next);
  }
  // The next key heads the next leaf, latched shared after this one: leaves
  // are latched left to right, as splits and leaf removals do. (A split
  // holds it already.) An empty next leaf, left by a failed free, is
  // answered kUnknown rather than walked.
  PageGuard later;
  const PageGuard* right = next_leaf;
  if (right == nullptr || !right->valid()) {
    auto g = FetchNode(node.next(), LatchMode::kShared);
    if (!g.ok()) return g.status();
    later = std::move(*g);
    right = &later;
  }
  NodeView r(right->data());
  if (r.slot_count() > 0) {
    next.kind = NextAfter::Kind::kKey;
    next.key = r.key(0);
  }
  return check->BeforeInsert(next);
}

Result<bool> BTree::Upsert(std::string_view key, std::string_view value) {
  auto r = Write(key, value, WriteOp::kUpsert, nullptr);
  if (!r.ok()) return r.status();
  return *r == WriteResult::kInserted;
}

Result<bool> BTree::Update(std::string_view key, std::string_view value, std::string* old_value) {
  auto r = Write(key, value, WriteOp::kUpdate, old_value);
  if (!r.ok()) return r.status();
  return *r == WriteResult::kReplaced;
}

Result<BTree::WriteResult> BTree::Write(std::string_view key, std::string_view value, WriteOp op,
                                        std::string* old_value, InsertCheck* check) {
  assert(check == nullptr || op == WriteOp::kInsert);
  SLUICE_RETURN_IF_ERROR(CheckRecord(key, value));
  assert(!Mtr::InMtr(pool_));  // an enclosing mtr would hold latches across smo_mu_
  for (;;) {
    const uint64_t smo_seen = smo_seq_.load(std::memory_order_acquire);
    {
      // Mtr 1: the leaf alone. An attempt that needs a split changed
      // nothing, so committing it leaves this thread holding no latch
      // before smo_mu_.
      Mtr mtr(pool_);
      auto r = WriteOptimistic(key, value, op, old_value, check);
      Status committed = mtr.Commit();
      if (!r.ok()) return r.status();
      if (r->has_value()) {
        if (!committed.ok()) return committed;
        return **r;
      }
    }
    MutexLock smo(&smo_mu_);
    // Writers that found the same full leaf queue here behind the one that
    // splits it. Once that split is done their leaf has room again: they go
    // back to the leaf alone instead of each descending from the root with
    // exclusive latches in turn (which stalled every other descent, the
    // convoy of an append-only key).
    if (smo_seq_.load(std::memory_order_relaxed) != smo_seen) continue;
    // Mtr 2: the whole structure change (every split level, the new pages
    // and their allocation, the next leaf's back link) is one redo record.
    SmoScope in_smo(&smo_seq_);
    Mtr mtr(pool_);
    auto r = WritePessimistic(key, value, op, old_value, check);
    Status committed = mtr.Commit();
    if (!r.ok()) return r.status();
    if (!committed.ok()) return committed;
    return *r;
  }
}

Result<std::optional<BTree::WriteResult>> BTree::WriteOptimistic(std::string_view key,
                                                                 std::string_view value, WriteOp op,
                                                                 std::string* old_value, InsertCheck* check) {
  auto leaf = DescendToLeaf(key, Target::kKey, LatchMode::kExclusive, nullptr);
  if (!leaf.ok()) return leaf.status();
  NodeView node(leaf->data());
  const int pos = node.LowerBound(key);
  const bool found = pos < node.slot_count() && node.key(pos) == key;
  if (found && op == WriteOp::kInsert) return DuplicateKey(key);
  if (!found && op == WriteOp::kUpdate) return std::optional<WriteResult>(WriteResult::kNotFound);
  const size_t need = EntrySize(key.size(), value.size());
  if (found) {
    if (old_value != nullptr) old_value->assign(node.value(pos));
    if (node.value(pos).size() == value.size()) {
      NodeWriter(leaf->mutable_data()).OverwriteValue(pos, value);
      return std::optional<WriteResult>(WriteResult::kReplaced);
    }
    if (node.available() + node.record_size(pos) + kSlotSize >= need) {
      NodeWriter w(leaf->mutable_data());
      w.Remove(pos);
      bool ok = w.Insert(pos, key, value);
      assert(ok);
      (void)ok;
      return std::optional<WriteResult>(WriteResult::kReplaced);
    }
  } else if (node.Fits(need)) {
    if (check != nullptr) SLUICE_RETURN_IF_ERROR(RunInsertCheck(check, *leaf, pos, nullptr));
    NodeWriter(leaf->mutable_data()).Insert(pos, key, value);
    return std::optional<WriteResult>(WriteResult::kInserted);
  }
  return std::optional<WriteResult>();  // needs a split; nothing changed
}

Result<BTree::WriteResult> BTree::WritePessimistic(std::string_view key, std::string_view value,
                                                   WriteOp op, std::string* old_value, InsertCheck* check) {
  const size_t need = EntrySize(key.size(), value.size());

  // Descend with exclusive latches, keeping only the part of the path a
  // split can reach: below the deepest node that can take a separator.
  std::vector<PathLevel> path;
  {
    auto root = FetchNode(root_page_, LatchMode::kExclusive);
    if (!root.ok()) return root.status();
    path.push_back(PathLevel{std::move(*root), -1, true, true});
  }
  for (;;) {
    NodeView node(path.back().page.data());
    if (node.is_leaf()) break;
    const int idx = node.UpperBound(key);
    auto child = FetchChild(node, idx, LatchMode::kExclusive);
    if (!child.ok()) return child.status();
    NodeView c(child->data());
    const bool leftmost = path.back().leftmost && idx == 0;
    const bool rightmost = path.back().rightmost && idx == node.slot_count();
    if (c.Fits(c.is_leaf() ? need : kMaxSeparatorEntry)) path.clear();
    path.push_back(PathLevel{std::move(*child), idx, leftmost, rightmost});
  }

  PathLevel& leaf = path.back();
  NodeView node(leaf.page.data());
  int pos = node.LowerBound(key);
  const bool found = pos < node.slot_count() && node.key(pos) == key;
  if (found && op == WriteOp::kInsert) return DuplicateKey(key);
  if (!found && op == WriteOp::kUpdate) return WriteResult::kNotFound;
  const WriteResult result = found ? WriteResult::kReplaced : WriteResult::kInserted;
  if (found) {
    if (old_value != nullptr) old_value->assign(node.value(pos));
    if (node.value(pos).size() == value.size()) {
      NodeWriter(leaf.page.mutable_data()).OverwriteValue(pos, value);
      return result;
    }
    if (node.available() + node.record_size(pos) + kSlotSize >= need) {
      NodeWriter w(leaf.page.mutable_data());
      w.Remove(pos);
      w.Insert(pos, key, value);
      return result;
    }
  } else if (node.Fits(need)) {
    // (The leaf filled up after the optimistic attempt and emptied again.)
    if (check != nullptr) SLUICE_RETURN_IF_ERROR(RunInsertCheck(check, leaf.page, pos, nullptr));
    NodeWriter(leaf.page.mutable_data()).Insert(pos, key, value);
    return result;
  }

  // A split is needed. Count the pages the cascade takes with a dry run of
  // it (nothing changes under our latches, so the real run decides the
  // same), and take them before changing anything: a failure to get them
  // (no frame, I/O error) leaves the tree as it was.
  size_t new_pages = 0;
  {
    std::string_view k = key, v = value;
    std::string sep;
    const std::string child(kChildSize, '\0');
    for (size_t i = path.size(); i-- > 0;) {
      const bool is_leaf = i + 1 == path.size();
      const int at = is_leaf ? pos : path[i + 1].child_idx;
      NodeView nv(path[i].page.data());
      if (!is_leaf && nv.Fits(EntrySize(k.size(), v.size()))) break;
      if (path[i].page.id().page == root_page_) {
        new_pages += 2;
        break;
      }
      ++new_pages;
      std::vector<Rec> recs = GatherWith(nv, at, k, v, is_leaf && found);
      const int m = ChooseSplit(recs, at, is_leaf, is_leaf ? nv.prev() == kInvalidPageNo : path[i].leftmost,
                                is_leaf ? nv.next() == kInvalidPageNo : path[i].rightmost);
      if (m < 0) {
        return Status::Corruption(fmt::format("cannot split space {} page {} of index '{}'", space_id_,
                                              path[i].page.id().page, options_.index_name));
      }
      std::string next_sep(is_leaf ? ShortestSeparator(recs[m - 1].key, recs[m].key) : recs[m].key);
      sep = std::move(next_sep);
      k = sep;
      v = child;
    }
  }
  // The next leaf (its back link changes) before the new pages: page 0
  // and the bitmaps NewPage latches stay in this thread's mtr until it
  // commits, so they must be the last latches taken (buffer_pool.h).
  PageGuard next_leaf;
  if (node.next() != kInvalidPageNo) {
    auto n = FetchNode(node.next(), LatchMode::kExclusive);
    if (!n.ok()) return n.status();
    next_leaf = std::move(*n);
  }
  std::vector<PageGuard> spare;
  auto free_spare = [&]() {
    for (auto& p : spare) (void)pool_->FreePage(std::move(p));
    spare.clear();
  };
  for (size_t i = 0; i < new_pages; ++i) {
    auto p = pool_->NewPage(space_id_, PageType::kBTreeNode);
    if (!p.ok()) {
      free_spare();
      return p.status();
    }
    spare.push_back(std::move(*p));
  }
  // Asked last: from here on only corruption can stop the split.
  if (check != nullptr) {
    Status ok = RunInsertCheck(check, leaf.page, pos, &next_leaf);
    if (!ok.ok()) {
      free_spare();
      return ok;
    }
  }

  if (found) NodeWriter(leaf.page.mutable_data()).Remove(pos);
  std::string_view k = key, v = value;
  std::string sep_key, sep_value;
  for (size_t i = path.size(); i-- > 0;) {
    PathLevel& level = path[i];
    if (i + 1 < path.size()) pos = path[i + 1].child_idx;  // right after the child that split
    NodeWriter w(level.page.mutable_data());
    if (w.Insert(pos, k, v)) break;

    char copy[kPageSize];
    std::memcpy(copy, level.page.data(), kPageSize);
    NodeView old(copy);
    const bool is_leaf = old.is_leaf();
    const bool is_root = level.page.id().page == root_page_;
    std::vector<Rec> recs = GatherWith(old, pos, k, v);
    const int m = ChooseSplit(recs, pos, is_leaf, is_leaf ? old.prev() == kInvalidPageNo : level.leftmost,
                              is_leaf ? old.next() == kInvalidPageNo : level.rightmost);
    if (m < 0 || spare.size() < (is_root ? 2u : 1u)) {
      return Status::Corruption(fmt::format("cannot split space {} page {} of index '{}'", space_id_,
                                            level.page.id().page, options_.index_name));
    }
    // Non-root: `level` keeps the left half and a new right sibling takes the
    // rest. Root: both halves go to new pages, the root stays put.
    PageGuard right = std::move(spare.back());
    spare.pop_back();
    PageGuard root_left;
    if (is_root) {
      root_left = std::move(spare.back());
      spare.pop_back();
    }
    PageGuard& left_page = is_root ? root_left : level.page;
    NodeWriter left(left_page.mutable_data());
    NodeWriter rnode(right.mutable_data());
    left.Init(index_id_, old.level());
    rnode.Init(index_id_, old.level());
    std::string new_sep;
    if (is_leaf) {
      for (int j = 0; j < m; ++j) left.Append(recs[j].key, recs[j].value);
      for (int j = m; j < static_cast<int>(recs.size()); ++j) rnode.Append(recs[j].key, recs[j].value);
      left.set_prev(old.prev());
      left.set_next(right.id().page);
      rnode.set_prev(left_page.id().page);
      rnode.set_next(old.next());
      if (next_leaf.valid()) NodeWriter(next_leaf.mutable_data()).set_prev(right.id().page);
      new_sep.assign(ShortestSeparator(recs[m - 1].key, recs[m].key));
    } else {
      left.set_leftmost_child(old.leftmost_child());
      for (int j = 0; j < m; ++j) left.Append(recs[j].key, recs[j].value);
      rnode.set_leftmost_child(DecodeChild(recs[m].value));
      for (int j = m + 1; j < static_cast<int>(recs.size()); ++j) rnode.Append(recs[j].key, recs[j].value);
      new_sep.assign(recs[m].key);
    }
    if (is_root) {
      NodeWriter root(level.page.mutable_data());
      root.Init(index_id_, static_cast<uint16_t>(old.level() + 1));
      root.set_leftmost_child(root_left.id().page);
      root.Append(new_sep, EncodeChild(right.id().page));
      root_is_leaf_.store(false, std::memory_order_relaxed);
      break;
    }
    if (i == 0) {
      return Status::Corruption(fmt::format("index '{}': split reached a node with no parent latched",
                                            options_.index_name));
    }
    sep_key = std::move(new_sep);
    sep_value = EncodeChild(right.id().page);
    k = sep_key;
    v = sep_value;
  }
  free_spare();  // none left when the dry run was right
  return result;
}

Result<bool> BTree::Delete(std::string_view key, std::string* old_value) {
  assert(!Mtr::InMtr(pool_));  // an enclosing mtr would hold latches across smo_mu_
  bool emptied = false;
  {
    // Mtr 1: the record's removal from its leaf, committed (the leaf
    // released) before smo_mu_ is taken below.
    Mtr mtr(pool_);
    {
      auto leaf = DescendToLeaf(key, Target::kKey, LatchMode::kExclusive, nullptr);
      if (!leaf.ok()) return leaf.status();
      NodeView node(leaf->data());
      const int pos = node.LowerBound(key);
      if (pos == node.slot_count() || node.key(pos) != key) return false;
      if (old_value != nullptr) old_value->assign(node.value(pos));
      NodeWriter(leaf->mutable_data()).Remove(pos);
      emptied = node.slot_count() == 0 && leaf->id().page != root_page_;
    }
    SLUICE_RETURN_IF_ERROR(mtr.Commit());
  }
  if (emptied) {
    // Mtr 2: unlinking and freeing the leaf, the parents that lose it, the
    // root's absorption of a lone child, and the frees: one redo record.
    MutexLock smo(&smo_mu_);
    SmoScope in_smo(&smo_seq_);
    Mtr mtr(pool_);
    Status s = RemoveEmptyLeaf(key);
    Status committed = mtr.Commit();
    SLUICE_RETURN_IF_ERROR(s);
    SLUICE_RETURN_IF_ERROR(committed);
  }
  return true;
}

Status BTree::RemoveEmptyLeaf(std::string_view key) {
  std::vector<PathLevel> path;
  {
    auto root = FetchNode(root_page_, LatchMode::kExclusive);
    if (!root.ok()) return root.status();
    path.push_back(PathLevel{std::move(*root), -1, true, true});
  }
  for (;;) {
    NodeView node(path.back().page.data());
    if (node.is_leaf()) break;
    const int idx = node.UpperBound(key);
    auto child = FetchChild(node, idx, LatchMode::kExclusive);
    if (!child.ok()) return child.status();
    NodeView c(child->data());
    if (c.is_leaf() && c.slot_count() > 0) return Status::OK();  // refilled meanwhile
    // A node with two or more children survives losing one: what is above
    // it does not change.
    if (!c.is_leaf() && c.slot_count() > 0) path.clear();
    path.push_back(PathLevel{std::move(*child), idx, false, false});
  }
  if (path.size() < 2) return Status::OK();  // the root itself: stays, empty

  // What changes, decided before anything else is latched. path[1..] below
  // path[0] have one child each, so they go with the leaf; path[0] loses
  // its pointer to path[1] (a root without any child left becomes an empty
  // leaf). A root left with one child absorbs it, and that child's only
  // child, and so on: the tree gets shallower, the root page stays put.
  PathLevel& top = path.front();
  const bool top_is_root = top.page.id().page == root_page_;
  const int top_slots = NodeView(top.page.data()).slot_count();
  const int removed_idx = path[1].child_idx;
  const bool root_emptied = top_is_root && top_slots == 0;
  const bool collapse = top_is_root && top_slots == 1;

  PathLevel& leaf = path.back();
  const uint32_t leaf_no = leaf.page.id().page;
  const uint32_t prev_no = NodeView(leaf.page.data()).prev();
  const uint32_t next_no = NodeView(leaf.page.data()).next();

  // Latch order: top down, then the leaves left to right. So the internal
  // nodes the root absorbs come first, with the leaf let go (it is
  // relatched after its left neighbour). The leaf cannot change meanwhile:
  // writers reach it only through its parent, which we hold exclusively,
  // and smo_mu_ keeps every other structure change out. Nothing has been
  // changed in this mtr yet, so the release really unlatches it (a changed
  // page would stay latched in the mtr's memo).
  if (collapse || prev_no != kInvalidPageNo) leaf.page.Release();
  std::vector<PageGuard> absorbed;  // internal nodes, top down
  uint32_t absorbed_leaf = kInvalidPageNo;
  if (collapse) {
    NodeView r(top.page.data());
    uint32_t child = r.child(removed_idx == 0 ? 1 : 0);
    for (int level = r.level() - 1;; --level) {
      if (level == 0) {
        absorbed_leaf = child;  // the leaf's neighbour: latched below
        break;
      }
      auto c = FetchNodeAtLevel(child, LatchMode::kExclusive, level);
      if (!c.ok()) return c.status();
      NodeView cv(c->data());
      const bool more = cv.slot_count() == 0;
      child = cv.leftmost_child();
      absorbed.push_back(std::move(*c));
      if (!more) break;
    }
  }
  PageGuard prev, next;
  if (prev_no != kInvalidPageNo) {
    auto p = FetchNode(prev_no, LatchMode::kExclusive);
    if (!p.ok()) return p.status();
    if (NodeView(p->data()).next() != leaf_no) {
      return Status::Corruption(fmt::format("index '{}': leaf {} does not link to its right neighbour {}",
                                            options_.index_name, prev_no, leaf_no));
    }
    prev = std::move(*p);
  }
  if (!leaf.page.valid()) {
    auto l = FetchNode(leaf_no, LatchMode::kExclusive);
    if (!l.ok()) return l.status();
    leaf.page = std::move(*l);
  }
  if (NodeView(leaf.page.data()).slot_count() != 0) return Status::OK();
  if (next_no != kInvalidPageNo) {
    auto n = FetchNode(next_no, LatchMode::kExclusive);
    if (!n.ok()) return n.status();
    if (NodeView(n->data()).prev() != leaf_no) {
      return Status::Corruption(fmt::format("index '{}': leaf {} does not link back to its left neighbour {}",
                                            options_.index_name, next_no, leaf_no));
    }
    next = std::move(*n);
  }
  if (absorbed_leaf != kInvalidPageNo && absorbed_leaf != prev_no && absorbed_leaf != next_no) {
    return Status::Corruption(fmt::format("index '{}': the root's last leaf {} is not a neighbour of leaf {}",
                                          options_.index_name, absorbed_leaf, leaf_no));
  }

  // Every page is latched: change them.
  if (prev.valid()) NodeWriter(prev.mutable_data()).set_next(next_no);
  if (next.valid()) NodeWriter(next.mutable_data()).set_prev(prev_no);
  std::vector<PageGuard> to_free;
  to_free.push_back(std::move(leaf.page));
  for (size_t i = path.size() - 1; i-- > 1;) to_free.push_back(std::move(path[i].page));
  NodeWriter w(top.page.mutable_data());
  if (root_emptied) {
    w.Init(index_id_, 0);  // the tree is empty again
    root_is_leaf_.store(true, std::memory_order_relaxed);
  } else if (removed_idx == 0) {
    w.set_leftmost_child(w.child(1));
    w.Remove(0);
  } else {
    w.Remove(removed_idx - 1);
  }
  if (collapse) {
    auto absorb = [&](PageGuard& child) {
      std::memcpy(top.page.mutable_data() + kPageHeaderSize, child.data() + kPageHeaderSize,
                  kPageSize - kPageHeaderSize);
      to_free.push_back(std::move(child));
    };
    for (PageGuard& c : absorbed) absorb(c);
    if (absorbed_leaf != kInvalidPageNo) {
      absorb(absorbed_leaf == prev_no ? prev : next);
      w.set_prev(kInvalidPageNo);
      w.set_next(kInvalidPageNo);
      root_is_leaf_.store(true, std::memory_order_relaxed);
    }
  }
  // Last: the frees latch the allocation pages (with a logger, at commit).
  Status first;
  for (auto& page : to_free) {
    Status s = pool_->FreePage(std::move(page));
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

// ------------------------------------------------------------------ Verify

namespace {
struct VerifyState {
  int leaf_depth = -1;
  uint32_t last_leaf = kInvalidPageNo;
  uint32_t last_leaf_next = kInvalidPageNo;
  BTree::VerifyStats stats;
};
}  // namespace

Status BTree::Verify(VerifyStats* stats) const {
  MutexLock smo(&smo_mu_);
  auto root = FetchNode(root_page_, LatchMode::kShared);
  if (!root.ok()) return root.status();
  VerifyState state;
  SLUICE_RETURN_IF_ERROR(VerifyNode(*root, nullptr, nullptr, 0, &state));
  if (state.last_leaf_next != kInvalidPageNo) {
    return Status::Corruption(fmt::format("index '{}': the last leaf {} links to page {}",
                                          options_.index_name, state.last_leaf, state.last_leaf_next));
  }
  state.stats.height = state.leaf_depth + 1;
  if (stats != nullptr) *stats = state.stats;
  return Status::OK();
}

Status BTree::VerifyNode(const PageGuard& page, const std::string_view* lo,
                         const std::string_view* hi, int depth, void* opaque) const {
  VerifyState* state = static_cast<VerifyState*>(opaque);
  const uint32_t page_no = page.id().page;
  auto fail = [&](std::string_view what) {
    return Status::Corruption(
        fmt::format("index '{}' space {} page {}: {}", options_.index_name, space_id_, page_no, what));
  };
  NodeView node(page.data());
  const int n = node.slot_count();
  size_t heap_bytes = node.garbage();
  for (int i = 0; i < n; ++i) {
    const size_t off = node.record_offset(i);
    if (off < node.heap_top() || off + kRecordHeaderSize > kPageSize ||
        off + node.record_size(i) > kPageSize) {
      return fail(fmt::format("slot {} points outside the record heap", i));
    }
    heap_bytes += node.record_size(i);
    if (node.key(i).size() > kMaxKeySize) return fail(fmt::format("slot {} has an oversized key", i));
    if (!node.is_leaf() && node.value(i).size() != kChildSize) {
      return fail(fmt::format("separator {} has no child pointer", i));
    }
    if (i > 0 && !(node.key(i - 1) < node.key(i))) {
      return fail(fmt::format("keys of slots {} and {} are out of order", i - 1, i));
    }
  }
  if (heap_bytes != kPageSize - node.heap_top()) return fail("record heap accounting is off");
  if (n > 0 && lo != nullptr && node.key(0) < *lo) return fail("first key is below its lower bound");
  if (n > 0 && hi != nullptr && !(node.key(n - 1) < *hi)) return fail("last key is not below its upper bound");

  if (node.is_leaf()) {
    if (state->leaf_depth < 0) state->leaf_depth = depth;
    if (state->leaf_depth != depth) return fail("leaves at different depths");
    if (node.prev() != state->last_leaf) {
      return fail(fmt::format("prev link is {}, the leaf before it is {}", node.prev(), state->last_leaf));
    }
    if (state->last_leaf != kInvalidPageNo && state->last_leaf_next != page_no) {
      return fail(fmt::format("the leaf before it ({}) links to {}", state->last_leaf, state->last_leaf_next));
    }
    state->last_leaf = page_no;
    state->last_leaf_next = node.next();
    ++state->stats.leaf_pages;
    state->stats.records += n;
    if (n == 0 && page_no != root_page_) ++state->stats.empty_leaves;
    return Status::OK();
  }
  ++state->stats.internal_pages;
  for (int c = 0; c <= n; ++c) {
    std::string_view child_lo, child_hi;
    const std::string_view* clo = lo;
    const std::string_view* chi = hi;
    if (c > 0) {
      child_lo = node.key(c - 1);
      clo = &child_lo;
    }
    if (c < n) {
      child_hi = node.key(c);
      chi = &child_hi;
    }
    auto child = FetchNode(node.child(c), LatchMode::kShared);
    if (!child.ok()) return child.status();
    if (NodeView(child->data()).level() + 1 != node.level()) {
      return fail(fmt::format("child {} (page {}) is at level {}", c, node.child(c),
                              NodeView(child->data()).level()));
    }
    SLUICE_RETURN_IF_ERROR(VerifyNode(*child, clo, chi, depth + 1, state));
  }
  return Status::OK();
}

// -------------------------------------------------------------------- Drop

Status BTree::Drop() {
  assert(!Mtr::InMtr(pool_));
  MutexLock smo(&smo_mu_);
  SmoScope in_smo(&smo_seq_);
  // One mtr: the whole tree's pages become free at once (its frees are
  // applied to the bitmaps at commit, after every node latch is gone).
  Mtr mtr(pool_);
  Status s;
  {
    auto root = FetchNode(root_page_, LatchMode::kExclusive);
    s = root.ok() ? DropNode(std::move(*root)) : root.status();
  }
  Status committed = mtr.Commit();
  SLUICE_RETURN_IF_ERROR(s);
  return committed;
}

Status BTree::DropNode(PageGuard page) {
  NodeView node(page.data());
  if (!node.is_leaf()) {
    for (int c = 0; c <= node.slot_count(); ++c) {
      auto child = FetchNode(node.child(c), LatchMode::kExclusive);
      if (!child.ok()) return child.status();
      SLUICE_RETURN_IF_ERROR(DropNode(std::move(*child)));
    }
  }
  return pool_->FreePage(std::move(page));
}

// ------------------------------------------------------------------ Cursor

BTree::Cursor::Cursor(const BTree* tree) : tree_(tree), leaf_(new char[kPageSize]) {}

std::string_view BTree::Cursor::key() const { return NodeView(leaf_.get()).key(slot_); }
std::string_view BTree::Cursor::value() const { return NodeView(leaf_.get()).value(slot_); }

Status BTree::Cursor::Load(std::string_view key, Target target) {
  Bounds bounds;
  auto leaf = tree_->DescendToLeaf(key, target, LatchMode::kShared, &bounds);
  if (!leaf.ok()) {
    valid_ = false;
    return leaf.status();
  }
  std::memcpy(leaf_.get(), leaf->data(), kPageSize);
  lo_ = std::move(bounds.lo);
  hi_ = std::move(bounds.hi);
  lo_inf_ = bounds.lo_inf;
  hi_inf_ = bounds.hi_inf;
  return Status::OK();
}

// Moves to the next leaf range until the slot is on a record. Each step
// starts at the previous leaf's upper bound, which strictly grows.
Status BTree::Cursor::SkipForward() {
  while (slot_ >= NodeView(leaf_.get()).slot_count()) {
    if (hi_inf_) {
      valid_ = false;
      return Status::OK();
    }
    const std::string from = hi_;
    SLUICE_RETURN_IF_ERROR(Load(from, Target::kKey));
    slot_ = NodeView(leaf_.get()).LowerBound(from);
  }
  valid_ = true;
  return Status::OK();
}

// Moves to earlier leaf ranges until the slot is on a record: each step
// looks below the previous leaf's lower bound, which strictly falls.
Status BTree::Cursor::SkipBackward() {
  while (slot_ < 0) {
    if (lo_inf_) {
      valid_ = false;
      return Status::OK();
    }
    const std::string below = lo_;
    SLUICE_RETURN_IF_ERROR(Load(below, Target::kBefore));
    slot_ = NodeView(leaf_.get()).LowerBound(below) - 1;
  }
  valid_ = true;
  return Status::OK();
}

Status BTree::Cursor::SeekToFirst() {
  SLUICE_RETURN_IF_ERROR(Load("", Target::kFirst));
  slot_ = 0;
  return SkipForward();
}

Status BTree::Cursor::SeekToLast() {
  SLUICE_RETURN_IF_ERROR(Load("", Target::kLast));
  slot_ = NodeView(leaf_.get()).slot_count() - 1;
  return SkipBackward();
}

Status BTree::Cursor::Seek(std::string_view key) {
  SLUICE_RETURN_IF_ERROR(Load(key, Target::kKey));
  slot_ = NodeView(leaf_.get()).LowerBound(key);
  return SkipForward();
}

Status BTree::Cursor::SeekForPrev(std::string_view key) {
  SLUICE_RETURN_IF_ERROR(Load(key, Target::kKey));
  slot_ = NodeView(leaf_.get()).UpperBound(key) - 1;
  return SkipBackward();
}

Status BTree::Cursor::Next() {
  assert(valid_);
  ++slot_;
  return SkipForward();
}

Status BTree::Cursor::Prev() {
  assert(valid_);
  --slot_;
  return SkipBackward();
}

}  // namespace sluice::storage
