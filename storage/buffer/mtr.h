// storage/buffer/mtr.h
//
// Mtr: a mini-transaction. Every page change made while one is active on
// the thread becomes part of ONE redo record, written when it commits, and
// the changed pages stay exclusively latched (and pinned) until then, so no
// other thread sees, and no write-back writes, a change whose redo is not
// logged yet; recovery sees all of an mtr's changes or none of them.
//
//   {
//     Mtr mtr(pool);
//     auto page = pool->Fetch(id, LatchMode::kExclusive);
//     ... page->mutable_data() ...
//     page->Release();          // a modified page goes into the mtr's memo
//     SLUICE_RETURN_IF_ERROR(mtr.Commit());  // logs, stamps, releases
//   }
//
// How it works (physical redo, page diffs):
//   - The first time an exclusive PageGuard is marked dirty (MarkDirty or
//     the first mutable_data()) inside the mtr, the mtr copies the page (a
//     16 KiB before-image). A page made by BufferPool::NewPage is recorded
//     as "init" instead: its old contents do not matter, so it is diffed
//     against an all-zero page and replay zero-fills it first.
//   - Releasing such a modified guard moves its latch and pin into the
//     mtr's memo instead of dropping them. Fetching a page that is in the
//     memo again on the same thread (shared or exclusive) returns a
//     "borrowed" guard on the same frame: no new latch or pin; releasing it
//     gives it back to the memo.
//   - FreePage inside an mtr drops the page's frame (its contents are dead:
//     nothing of it is logged) and defers the bitmap change to Commit, which
//     marks the freed pages free in ascending page order before it diffs.
//     So the allocation pages are always latched last (see buffer_pool.h),
//     and a double free is reported by Commit.
//   - Commit diffs every memo page against its before-image (256-byte
//     chunks, then 8-byte words within a changed one; runs of changed bytes, merged when at most kMtrRangeMergeGap bytes
//     apart; the page LSN field is never logged since replay stamps it),
//     builds one payload for all pages and hands it to the pool's logger
//     (BufferPool::Options::mtr_log). The logger appends it to the redo log
//     and calls `stamp(end_lsn)` before returning; stamp sets every logged
//     page's LSN to end_lsn and its oldest modification (when it has none)
//     to the record's start LSN, end_lsn - RedoLog::FramedSize(size). Then
//     all memo latches and pins are released. Pages whose diff is empty are
//     released without being logged.
//   - When the logger fails, Commit still releases everything and returns
//     the error; the pages stay dirty without their redo, and the engine's
//     write-ahead check (the redo error is sticky) keeps them off disk.
//
// A pool without a logger (Options::mtr_log empty) makes Mtr a no-op:
// construction checks one flag and nothing is recorded or held.
//
// Nesting: an Mtr constructed while one of the same pool is active on the
// thread joins it: its Commit and destructor do nothing and the outer one
// commits everything. (Mtrs of different pools may nest: each records its
// own pool's pages.) The destructor commits an mtr that was not committed
// and drops the status: call Commit() to see logging errors.
//
// Rules for callers (breaking them deadlocks or loses redo):
//   - Construct the Mtr before the guards whose changes it covers and
//     release those guards before Commit (declare the Mtr first in a scope).
//   - While an mtr holds modified pages, do not wait for anything another
//     thread may hold while waiting for those pages (a B-tree's smo_mu_, a
//     fresh descent from a root): commit first. Latch order still applies
//     to the latches the memo holds.
//   - Call NewPage after taking every other page latch the mtr needs:
//     page 0 and the bitmaps it latches stay held to the end of the mtr.
//   - No FlushAll (nor anything else that waits for a page latch the
//     thread may hold) while the thread's mtr holds pages.
//   - With a logger installed, every page change must happen inside an Mtr.
//     A page marked dirty (or released dirty) with no active Mtr is counted
//     in BufferPool::mtr_violations() and aborts debug builds.
//
// Payload format (stored in the redo log: never change it; little-endian):
//   a sequence of page entries, each
//     [space u32][page u32][flags u8][range_count u16]
//     then range_count ranges [offset u16][length u16][length bytes]
//   flags bit 0 (kMtrPageInit): zero-fill the page before applying the
//   ranges (a page created by NewPage). Other bits are 0.
//   Ranges are in ascending offset order, do not overlap, have length >= 1,
//   and offset + length <= kPageSize. They never cover the page-LSN field
//   [16, 24), so a range is at most kPageSize - 24 bytes and fits a u16.
//   Replay (BufferPool::ApplyRedo) stamps the page LSN itself.
//
// Thread-safety: an Mtr belongs to the thread that constructed it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/buffer/buffer_pool.h"

namespace sluice::storage {

inline constexpr uint8_t kMtrPageInit = 1;
// Changed-byte runs at most this far apart are logged as one range (a
// range header costs 4 bytes).
inline constexpr size_t kMtrRangeMergeGap = 4;

// One page entry of an mtr payload, as parsed; views point into the payload.
struct MtrPageRecord {
  PageId id;
  bool init = false;
  struct Range {
    uint16_t offset = 0;
    std::string_view bytes;
  };
  std::vector<Range> ranges;
};

// Parses and validates a payload (see above). Corruption on any malformed
// entry or range.
Result<std::vector<MtrPageRecord>> ParseMtrPayload(std::string_view payload);

class Mtr {
 public:
  explicit Mtr(BufferPool* pool);
  // Commits when still active, dropping the status.
  ~Mtr();
  Mtr(const Mtr&) = delete;
  Mtr& operator=(const Mtr&) = delete;

  // Performs the deferred frees, logs the changes as one record, stamps the
  // pages and releases the memo. Returns the first error (a failed free or
  // the logger's error); everything is released either way. A no-op for a
  // joined, committed or logger-less Mtr. Afterwards the Mtr is inactive.
  Status Commit();

  // True while this Mtr records changes (the outermost Mtr of a pool with a
  // logger, not yet committed).
  bool active() const { return owner_; }

  // Whether an Mtr of `pool` records changes on the calling thread.
  static bool InMtr(const BufferPool* pool);

 private:
  friend class BufferPool;
  friend class PageGuard;

  struct Entry {
    BufferFrame* frame = nullptr;
    PageId id;
    char* data = nullptr;
    char* before = nullptr;  // before-image; null for init and full entries
    bool init = false;       // diff against zeros; replay zero-fills first
    bool full = false;       // no before-image (a rule was broken): log the whole page
    bool held = false;       // the memo owns the latch (exclusive) and the pin
    bool logged = false;     // part of the payload being committed
    uint32_t borrows = 0;    // borrowed guards outstanding
  };

  // A vector whose first N elements live inside the Mtr.
  template <typename T, size_t N>
  class SmallVec {
   public:
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    T* begin() { return spilled_ ? heap_.data() : inline_; }
    T* end() { return begin() + size_; }
    T& operator[](size_t i) { return begin()[i]; }
    T& push_back(const T& v) {
      if (!spilled_ && size_ == N) {
        heap_.assign(inline_, inline_ + N);
        spilled_ = true;
      }
      if (spilled_) {
        heap_.push_back(v);
      } else {
        inline_[size_] = v;
      }
      return begin()[size_++];
    }
    // Moves the last element into slot i (order is not kept).
    void erase_unordered(size_t i) {
      begin()[i] = begin()[size_ - 1];
      if (spilled_) heap_.pop_back();
      --size_;
    }
    void clear() {
      size_ = 0;
      heap_.clear();
      spilled_ = false;
    }

   private:
    T inline_[N];
    std::vector<T> heap_;
    size_t size_ = 0;
    bool spilled_ = false;
  };

  // The active recording Mtr of `pool` on this thread, or null.
  static Mtr* ActiveFor(const BufferPool* pool);

  Entry* Find(const BufferFrame* frame);
  Entry* FindHeld(PageId id);
  void DropEntry(Entry* e);
  // Appends the diff of `e` to `payload`; false when nothing changed.
  static bool AppendDiff(const Entry& e, std::string* payload);

  // Hooks called by PageGuard and BufferPool (see buffer_pool.cc).
  static void OnMarkDirty(PageGuard& guard);
  static void OnNewPage(PageGuard& guard);
  // True when the mtr took (or gave back) the guard's frame: the caller
  // must not unlatch or unpin.
  static bool OnRelease(PageGuard& guard);

  BufferPool* const pool_;
  Mtr* prev_ = nullptr;  // the thread's enclosing Mtr (any pool)
  bool owner_ = false;
  SmallVec<Entry, 16> entries_;
  SmallVec<PageId, 8> frees_;
};

}  // namespace sluice::storage
