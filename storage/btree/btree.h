// storage/btree/btree.h
//
// BTree: a B+tree index over the buffer pool. Keys are byte strings compared
// with memcmp (storage/btree/key_codec.h builds them from column values);
// values are opaque bytes. A clustered index maps the primary key (or the
// hidden 6-byte row id) to the row; a secondary index is another BTree whose
// key is (secondary key bytes + primary key bytes) with an empty value (see
// key_codec.h for unique secondary indexes). Several trees share one
// tablespace; each is named by its root page, which never moves (a root
// split moves the root's records into two new children).
//
// Nodes are slotted pages (node_page.h). Leaves are linked both ways. Node
// splits go up to the root; a leaf emptied by deletes is unlinked and freed,
// its parent shrinks, and a root left with one child absorbs it. Records
// are at most kMaxRecordSize bytes (key + value, at least 4 per page);
// larger ones are NotSupported: the engine stores a larger row's bytes in
// an overflow chain (overflow.h) and only a reference in the record.
//
// Thread-safety: every method may be called concurrently from any thread;
// a Cursor is used by one thread at a time.
//
// Latching protocol (deadlock freedom rests on a single order: pages are
// latched root to leaf, and left to right within a level; the allocation
// pages NewPage/FreePage latch are innermost (buffer_pool.h): NewPage is
// called after every node latch a change needs is taken, and frees reach
// the bitmaps when the mtr commits; a page being created is unreachable
// until its creator links it, so its latch is outside the order):
//   - Readers, and writers whose change fits in the leaf ("optimistic"),
//     descend with latch coupling: shared latches on internal nodes, the
//     parent released once the child is latched; the leaf is latched shared
//     or exclusive. A change that needs a split (or a leaf that became
//     empty) releases everything and retries "pessimistically" (unless a
//     structure change finished while it waited for smo_mu_: then it
//     retries optimistically, as the split it waited for made room).
//     A writer lets the leaf's parent go before it latches the leaf, and
//     keeps the leaf only if no structure modification began or ended
//     meanwhile (smo_seq_); otherwise it descends again:
//   - Structure modifications are serialised per tree by smo_mu_ (like
//     InnoDB's index SX lock: readers are not blocked by it). Under it the
//     writer descends from the root with exclusive latches, releasing the
//     ancestors of any node that cannot split (or empty) any further, so
//     the latches it keeps cover every page the change touches. Readers
//     therefore never see a half-split node or a dangling child pointer.
//   - Freeing a leaf needs its left neighbour: the leaf is released and
//     relatched after the neighbour, which is safe because its parent stays
//     exclusively latched (no writer can reach it) and smo_mu_ is held.
//     When the root will absorb its last child, the internal nodes it
//     absorbs are latched (top down) before the leaves, and a leaf it
//     absorbs is the freed leaf's neighbour, already latched: a thread never
//     takes an internal node while holding a leaf (the modified neighbours
//     stay latched until the mtr commits).
//   - Cursors hold no latch between calls (see Cursor), so a thread can
//     hold a cursor and write to the same tree.
// Lock order: smo_mu_ -> page latches (above) -> buffer pool internals.
//
// Redo (storage/buffer/mtr.h): every public mutating method runs its page
// changes in mini-transactions; with a logger installed in the pool each
// mtr is one redo record and keeps the pages it changed latched until it
// commits. Mtr boundaries (each a complete, consistent change of the tree):
//   Create: the root's allocation and initialisation.
//   Insert/Upsert/Update (Write): mtr 1 is the latch-coupled descent and the
//     change in the leaf. If the leaf must split, that attempt changed
//     nothing; mtr 1 commits (holding nothing) and then, under smo_mu_,
//     mtr 2 covers the whole split: the leaf, its new right sibling, every
//     parent level that splits or takes a separator (a root split's two new
//     children), the next leaf's back link, and the allocation pages.
//   Delete: mtr 1 removes the record from its leaf and commits; if the
//     leaf is now empty, mtr 2 under smo_mu_ unlinks it (neighbours' links),
//     shrinks or frees the parents, lets the root absorb a lone child and
//     frees the pages (bitmaps and page 0 at commit).
//   Drop: one mtr frees every page of the tree.
// So a thread never waits for smo_mu_, nor starts a descent from the root,
// while its mtr holds latches; within an mtr pages are latched in the
// protocol's order, a page is released (and relatched after its left
// neighbour) only while unmodified, and allocation pages come last.
// Callers must not wrap these methods in their own Mtr of the same pool
// (they would join it and hold latches across smo_mu_; debug builds assert).
// Undo/MVCC build on Update/Delete's old_value and on values carrying trx
// id and roll pointer (row format owned by storage/trx).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/buffer/buffer_pool.h"

namespace sluice::storage {

class NodeView;  // node_page.h, private to the module

struct BTreeOptions {
  // Names the index in ER_DUP_ENTRY, e.g. "t1.PRIMARY" (MySQL 8.0 style).
  std::string index_name = "PRIMARY";
  // Renders an encoded key as the entry text of ER_DUP_ENTRY ("1-abc").
  // Empty: printable bytes as they are, anything else in hex.
  std::function<std::string(std::string_view key)> key_text;
};

class BTree {
 private:
  // How a descent picks the child of an internal node.
  enum class Target : uint8_t {
    kKey,     // the child whose range holds the key
    kBefore,  // the child holding the largest keys below the key
    kFirst,   // the leftmost child
    kLast,    // the rightmost child
  };

 public:
  // InnoDB's limit for a key with 16 KiB pages (MySQL refuses longer index
  // definitions with ER_TOO_LONG_KEY at CREATE time).
  static constexpr size_t kMaxKeySize = 3072;
  // Key + value. Four records of this size fit in a page.
  static constexpr size_t kMaxRecordSize = 4000;

  using Options = BTreeOptions;

  // Creates an empty tree (one empty root leaf) in `space_id`.
  // `pool` must outlive the tree.
  static Result<std::unique_ptr<BTree>> Create(BufferPool* pool, uint32_t space_id,
                                               Options options = {});
  // Opens the tree whose root is `root_page`. Corruption when that page is
  // not this tree's root node.
  static Result<std::unique_ptr<BTree>> Open(BufferPool* pool, uint32_t space_id,
                                             uint32_t root_page, Options options = {});

  BTree(const BTree&) = delete;
  BTree& operator=(const BTree&) = delete;

  uint32_t space_id() const { return space_id_; }
  uint32_t root_page() const { return root_page_; }

  // Adds (key, value). ER_DUP_ENTRY (1062, SQLSTATE 23000, "Duplicate entry
  // '<key text>' for key '<index name>'") when the key exists.
  // InvalidArgument when the key is longer than kMaxKeySize; NotSupported
  // when key + value exceed kMaxRecordSize.
  Status Insert(std::string_view key, std::string_view value);
  // The same, with a check that decides the insert under the leaf's
  // exclusive latch (as InnoDB's insert checks its locks under the page
  // latch), once the key is known to be absent and the record to fit.
  // `next` is what follows the new key: the next key or none; kUnknown only
  // past a run of empty leaves. OK lets the insert go ahead, and then only
  // the mini-transaction's commit can still fail; any other status aborts it
  // with nothing changed, and Insert returns that status. The check may
  // rewrite the bytes of `value` (the caller's buffer), never its length. It
  // runs under page latches: it must not touch this tree, nor wait.
  struct NextAfter {
    enum class Kind : uint8_t { kUnknown, kNone, kKey };
    Kind kind = Kind::kUnknown;
    std::string_view key;  // kKey: valid during the check only
  };
  class InsertCheck {
   public:
    virtual Status BeforeInsert(const NextAfter& next) = 0;

   protected:
    ~InsertCheck() = default;
  };
  Status Insert(std::string_view key, std::string_view value, InsertCheck* check);

  // Inserts or replaces. True when the key was new.
  Result<bool> Upsert(std::string_view key, std::string_view value);

  // Replaces the value of an existing key; false (and no change) when the
  // key is absent. `old_value`, when given, receives the previous value.
  Result<bool> Update(std::string_view key, std::string_view value,
                      std::string* old_value = nullptr);

  // Removes `key`; false when absent. A leaf left empty is then freed; if
  // that fails (I/O), the error is returned although the key is gone, and
  // the tree stays valid with the empty leaf in place.
  Result<bool> Delete(std::string_view key, std::string* old_value = nullptr);

  // True and the value when present.
  Result<bool> Get(std::string_view key, std::string* value) const;

  // Get and the first key after `key`, in one descent (a second one only
  // when that key is on a later leaf): what an insert checks before it
  // writes. `next` is nullopt at the end of the index.
  struct Probe {
    bool found = false;
    std::optional<std::string> next;
  };
  Result<Probe> ProbeKey(std::string_view key, std::string* value) const;

  // An ordered cursor. It copies the leaf it stands on and holds no latch
  // between calls, so it sees each leaf as of the moment it reached it:
  // a key it already passed may have changed, and a later key is read when
  // the cursor gets there. Keys never repeat or go out of order. Moving
  // past a leaf re-descends from the root to the next key range.
  class Cursor {
   public:
    Cursor(Cursor&&) = default;
    Cursor& operator=(Cursor&&) = default;

    // Each move returns OK and sets Valid() to whether the cursor is on a
    // record, or returns the error (Valid() false).
    Status SeekToFirst();
    Status SeekToLast();
    Status Seek(std::string_view key);         // first key >= key
    Status SeekForPrev(std::string_view key);  // last key <= key
    Status Next();                             // REQUIRES: Valid()
    Status Prev();                             // REQUIRES: Valid()

    bool Valid() const { return valid_; }
    // REQUIRES: Valid(). Views good until the next move.
    std::string_view key() const;
    std::string_view value() const;

   private:
    friend class BTree;
    explicit Cursor(const BTree* tree);
    Status Load(std::string_view key, Target target);
    Status SkipForward();
    Status SkipBackward();

    const BTree* tree_;
    std::unique_ptr<char[]> leaf_;  // copy of the current leaf page
    int slot_ = 0;
    bool valid_ = false;
    std::string lo_, hi_;  // the leaf's key range [lo_, hi_) when reached
    bool lo_inf_ = true, hi_inf_ = true;
  };
  Cursor NewCursor() const { return Cursor(this); }

  struct VerifyStats {
    int height = 0;  // 1 for a lone root leaf
    uint64_t leaf_pages = 0;
    uint64_t internal_pages = 0;
    uint64_t records = 0;
    uint64_t empty_leaves = 0;  // leaves besides the root with no record
  };
  // Walks the whole tree and checks: node headers and slot directories,
  // strictly increasing keys in every node, every key inside the range its
  // parent's separators give it, child levels, all leaves at one depth, and
  // the leaf chain's prev/next links in key order. Corruption, naming the
  // page, on the first violation. Blocks structure changes while it runs.
  Status Verify(VerifyStats* stats = nullptr) const;

  // Frees every page of the tree (DROP INDEX). The tree is unusable after.
  // REQUIRES: no concurrent use.
  Status Drop();

 private:
  enum class WriteOp : uint8_t { kInsert, kUpsert, kUpdate };
  enum class WriteResult : uint8_t { kInserted, kReplaced, kNotFound };
  struct Bounds;
  struct PathLevel;

  BTree(BufferPool* pool, uint32_t space_id, uint32_t root_page, Options options);

  Status CheckRecord(std::string_view key, std::string_view value) const;
  Status DuplicateKey(std::string_view key) const;
  Result<PageGuard> FetchNode(uint32_t page_no, LatchMode mode) const;
  // FetchNode, and Corruption when the node is not at `level`.
  Result<PageGuard> FetchNodeAtLevel(uint32_t page_no, LatchMode mode, int level) const;
  // Child `idx` of `parent`, latched in `mode`; Corruption when it is not
  // one level below its parent.
  Result<PageGuard> FetchChild(const NodeView& parent, int idx, LatchMode mode) const;
  Result<PageGuard> DescendToLeaf(std::string_view key, Target target, LatchMode leaf_mode,
                                  Bounds* bounds) const;
  Result<WriteResult> Write(std::string_view key, std::string_view value, WriteOp op,
                            std::string* old_value, InsertCheck* check = nullptr);
  // The change within the leaf, latch-coupled; nullopt (nothing changed)
  // when the leaf must split. `check`: see Insert.
  Result<std::optional<WriteResult>> WriteOptimistic(std::string_view key, std::string_view value,
                                                     WriteOp op, std::string* old_value, InsertCheck* check);
  // Inside an Mtr that holds nothing yet.
  Result<WriteResult> WritePessimistic(std::string_view key, std::string_view value, WriteOp op,
                                       std::string* old_value, InsertCheck* check) REQUIRES(smo_mu_);
  // Asks `check` about inserting a key absent from `leaf` at `pos`, with
  // `next_leaf` (latched, or invalid) the leaf after it.
  Status RunInsertCheck(InsertCheck* check, const PageGuard& leaf, int pos, const PageGuard* next_leaf) const;
  // Inside an Mtr that holds nothing yet.
  Status RemoveEmptyLeaf(std::string_view key) REQUIRES(smo_mu_);
  Status VerifyNode(const PageGuard& node, const std::string_view* lo, const std::string_view* hi,
                    int depth, void* state) const;
  Status DropNode(PageGuard node);

  BufferPool* const pool_;
  const uint32_t space_id_;
  const uint32_t root_page_;
  const uint64_t index_id_;
  const Options options_;
  // Serialises structure modifications (splits, leaf frees) and Verify.
  mutable Mutex smo_mu_;
  // Odd while a structure modification (split, leaf free, drop) runs,
  // bumped under smo_mu_ before its first latch and after its mtr commits.
  // A writer that waited for smo_mu_ while another split ran retries its
  // leaf first; a writer's descent lets the leaf's parent go before
  // latching the leaf, and keeps the leaf if the sequence did not move.
  std::atomic<uint64_t> smo_seq_{0};
  class SmoScope {
   public:
    explicit SmoScope(std::atomic<uint64_t>* seq) : seq_(seq) { seq_->fetch_add(1, std::memory_order_acq_rel); }
    ~SmoScope() { seq_->fetch_add(1, std::memory_order_release); }
    SmoScope(const SmoScope&) = delete;
    SmoScope& operator=(const SmoScope&) = delete;

   private:
    std::atomic<uint64_t>* const seq_;
  };
  // Whether the root was a leaf last time we looked; picks the root's latch
  // mode for writers. A stale hint costs a retry, never correctness.
  mutable std::atomic<bool> root_is_leaf_{true};
};

}  // namespace sluice::storage
