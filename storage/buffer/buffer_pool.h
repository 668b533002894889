// storage/buffer/buffer_pool.h
//
// BufferPool: caches 16 KiB pages of several tablespaces in a fixed number of
// frames (innodb_buffer_pool_size / 16 KiB), so tables larger than memory
// work. Callers Fetch a page and get a PageGuard that holds it pinned (never
// evicted) and latched (shared for readers, exclusive for modifiers) until
// the guard is released. Unpinned pages are evicted by CLOCK (second chance);
// a dirty victim is written back first, after the write-ahead check.
// Reads from disk verify the page checksum: a bad page is Status::Corruption.
//
// Page allocation: NewPage/FreePage keep each tablespace's page count and
// allocation bitmaps (storage/buffer/tablespace.h) in its page 0 and bitmap
// pages, changed through the pool like any page.
//
// Thread-safety: every method may be called from any thread; concurrent
// readers and writers of different pages run in parallel, readers of the
// same page too.
//
// Lock order (outermost first):
//   caller's page latches (B-tree: root to leaf, left to right)
//     -> page 0 of a space (space header and first allocation bitmap)
//     -> that space's bitmap pages
//   frame latch -> shard mutex -> free-frame mutex
//   Frame::io_mu -> frame latch (try-lock only when evicting)
//   The spaces mutex is a leaf; no mutex is held while waiting for a latch
//   or doing I/O.
// Allocation pages: NewPage latches page 0, then (when group 0 has no free
// page) the bitmap pages; FreePage marks a page free with page 0 latched
// before its bitmap page. Without a logger each is released before the call
// returns. With a logger (see Mtr) the modified ones stay latched until the
// mtr commits, so a thread that allocates or frees holds page 0 for the
// rest of its mtr, which serialises allocation per space; FreePage defers
// its bitmap change to Mtr::Commit, and NewPage is called after the
// caller's other latches are taken, so page 0 and the bitmaps are always the
// innermost page latches. A thread holding page 0 exclusively in its mtr
// takes bitmap pages by try-latch polling (only write-backs, which hold
// nothing else, can hold them then), so no order among bitmaps is needed.
// Callers never latch page 0 or a bitmap page themselves.
//
// Blocking: Fetch blocks on the page latch (held by another guard or by the
// thread reading the page in) and on disk reads; finding a frame may write a
// dirty victim back, but eviction only try-latches victims, so a thread that
// holds latches never waits for another thread's latch through eviction.
// When every frame is pinned, Fetch waits up to Options::free_frame_timeout
// for an unpin and then fails with ER_OUT_OF_RESOURCES (1041).
//
// Redo: with Options::mtr_log set, every page change happens inside a
// mini-transaction (storage/buffer/mtr.h) that logs it as a physical page
// diff and stamps the page LSN and the page's oldest modification (the
// START lsn of its first record not yet on disk); ApplyRedo replays those
// records at recovery. Options::write_ahead_check runs before any dirty
// page is written, so the redo log can be flushed up to the page's LSN
// first (write-ahead logging); OldestModification() is what a checkpoint
// may advance to. Without mtr_log nothing is logged (tests, tools).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/buffer/page.h"
#include "storage/buffer/tablespace.h"

namespace sluice::storage {

enum class LatchMode : uint8_t { kShared, kExclusive };

// Named after the MySQL status variables the server exposes them as.
struct BufferPoolStats {
  uint64_t pages_total = 0;    // Innodb_buffer_pool_pages_total
  uint64_t pages_free = 0;     // Innodb_buffer_pool_pages_free
  uint64_t pages_data = 0;     // Innodb_buffer_pool_pages_data (cached pages)
  uint64_t pages_dirty = 0;    // Innodb_buffer_pool_pages_dirty
  uint64_t read_requests = 0;  // Innodb_buffer_pool_read_requests (Fetch calls)
  uint64_t reads = 0;          // Innodb_buffer_pool_reads (fetches that read from disk)
  uint64_t pages_flushed = 0;  // Innodb_buffer_pool_pages_flushed
  uint64_t wait_free = 0;      // Innodb_buffer_pool_wait_free
  uint64_t pages_created = 0;  // Innodb_pages_created
  uint64_t pages_read = 0;     // Innodb_pages_read
  uint64_t pages_written = 0;  // Innodb_pages_written
  uint64_t data_reads = 0;     // Innodb_data_reads
  uint64_t data_writes = 0;    // Innodb_data_writes
  uint64_t data_read = 0;      // Innodb_data_read (bytes)
  uint64_t data_written = 0;   // Innodb_data_written (bytes)
  uint64_t data_fsyncs = 0;    // Innodb_data_fsyncs
};

class BufferPool;
class Mtr;           // mtr.h
struct BufferFrame;  // buffer_frame.h

// A pinned, latched page. Movable, not copyable; releases on destruction.
// A guard must not outlive its BufferPool.
class PageGuard {
 public:
  PageGuard() = default;
  PageGuard(PageGuard&& other) noexcept { *this = std::move(other); }
  PageGuard& operator=(PageGuard&& other) noexcept;
  PageGuard(const PageGuard&) = delete;
  PageGuard& operator=(const PageGuard&) = delete;
  ~PageGuard() { Release(); }

  bool valid() const { return frame_ != nullptr; }
  PageId id() const { return id_; }
  LatchMode mode() const { return mode_; }
  const char* data() const { return data_; }
  PageType type() const { return GetPageType(data_); }
  uint64_t page_lsn() const { return GetPageLsn(data_); }

  // The page's bytes for modification; marks the page dirty.
  // REQUIRES: mode() == kExclusive.
  char* mutable_data() {
    if (!dirty_marked_) MarkDirty();
    return data_;
  }
  // REQUIRES: mode() == kExclusive.
  void MarkDirty();
  // Stamps the LSN of the redo record that describes this page's change
  // and, when the page has none, its oldest modification (the record's
  // start LSN; the one-argument form uses `lsn` for both).
  // REQUIRES: mode() == kExclusive.
  void set_page_lsn(uint64_t lsn) { set_page_lsn(lsn, lsn); }
  void set_page_lsn(uint64_t start_lsn, uint64_t end_lsn);

  // Unlatches and unpins; the guard becomes invalid. Idempotent. Inside an
  // Mtr (pool with a logger), a page this guard modified stays latched and
  // pinned in the mtr's memo until it commits, and a borrowed guard (a
  // Fetch of a page already in the memo) just returns it there.
  void Release();

 private:
  friend class BufferPool;
  friend class Mtr;
  PageGuard(BufferPool* pool, BufferFrame* frame, char* data, PageId id, LatchMode mode,
            bool borrowed = false)
      : pool_(pool), frame_(frame), data_(data), id_(id), mode_(mode), borrowed_(borrowed) {}

  BufferPool* pool_ = nullptr;
  BufferFrame* frame_ = nullptr;
  char* data_ = nullptr;
  PageId id_;
  LatchMode mode_ = LatchMode::kShared;
  bool dirty_marked_ = false;
  bool borrowed_ = false;  // the frame's latch and pin belong to the thread's Mtr
};

class BufferPool {
 public:
  struct Options {
    // innodb_buffer_pool_size; rounded down to whole pages, at least
    // kMinFrames pages. MySQL's default is 128 MiB.
    size_t pool_size_bytes = size_t{128} << 20;
    size_t num_shards = 16;  // page-table shards; rounded up to a power of two
    // Runs before a dirty page with this page LSN is written; a non-OK
    // status aborts the write (the page stays dirty). Empty: no check.
    // Wired to the redo log's flush-to-LSN.
    std::function<Status(uint64_t page_lsn)> write_ahead_check;
    // How long a Fetch waits for a frame when every frame is pinned.
    std::chrono::milliseconds free_frame_timeout{10000};
    // The mini-transaction logger (storage/buffer/mtr.h). Called by
    // Mtr::Commit with the mtr's payload while its pages are latched; it
    // appends the payload as one redo record (of type kMtrRecordType) and,
    // before returning OK, calls `stamp` with the record's end LSN, which
    // stamps the pages. Empty: no logging, Mtr is a no-op.
    std::function<Status(std::string_view payload,
                         const std::function<void(uint64_t end_lsn)>& stamp)>
        mtr_log;
  };
  static constexpr size_t kMinFrames = 8;
  // The redo record type the engine logs mtr payloads with.
  static constexpr uint8_t kMtrRecordType = 2;

  explicit BufferPool(Options options);
  // Does not write dirty pages: call FlushAll first to keep them.
  // REQUIRES: no PageGuard outstanding.
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Makes `space` available to Fetch. InvalidArgument when its id is taken.
  Status AddSpace(std::unique_ptr<Tablespace> space);

  // Removes a space (DROP TABLE, shutdown of one table) and returns it, so
  // the caller can close or delete its file. With `write_back` its dirty
  // pages are written and the file synced first; without, they are
  // discarded. REQUIRES: no page of the space is pinned by a guard and no
  // Fetch of it runs concurrently.
  Result<std::unique_ptr<Tablespace>> DetachSpace(uint32_t space_id, bool write_back);

  // Pins and latches page `id`, reading it from disk when not cached.
  // Corruption when the page fails verification; InvalidArgument for an
  // unknown space; IOError; 1041 when no frame frees up in time.
  Result<PageGuard> Fetch(PageId id, LatchMode mode);

  // Allocates a page of `space_id` (the lowest free page of the first
  // group with one, else by growing the space), initialised as `type` with
  // a zeroed body, latched exclusively and dirty. A reused page is not read.
  Result<PageGuard> NewPage(uint32_t space_id, PageType type);

  // Marks the page free in its space's bitmap and drops the guard (and the
  // page's cached copy). Corruption when it is already free. Inside an Mtr
  // the bitmap change is made by Mtr::Commit, which reports a double free.
  // REQUIRES: `page` is exclusive and no other reference to the page
  // remains in the caller's structures.
  Status FreePage(PageGuard page);

  // Replays one mtr redo record (storage/buffer/mtr.h) whose end LSN is
  // `end_lsn`: for each page entry of a space that is open here (and, when
  // `space_known` is given, for which it returns true; others belong to
  // dropped tables and are skipped), the page is fetched exclusively (an
  // init page without reading it) and, unless its page LSN is already >=
  // end_lsn (an init page is always applied: records are replayed in LSN
  // order, so later ones rebuild anything newer), zero-filled when init,
  // patched, stamped with end_lsn (oldest modification: the record's start
  // LSN) and marked dirty. Never logs, even when the pool has a logger.
  // Corruption for a malformed payload or a page that fails its checksum
  // (there is no doublewrite buffer yet, so a torn page cannot be repaired).
  Status ApplyRedo(std::string_view payload, uint64_t end_lsn,
                   const std::function<bool(uint32_t space_id)>& space_known = {});

  // Whether Options::mtr_log is set.
  bool logging() const { return logging_; }
  // Page changes made outside an Mtr while a logger is installed (bugs; see
  // mtr.h). Debug builds abort on the first.
  uint64_t mtr_violations() const { return mtr_violations_.load(std::memory_order_relaxed); }

  // Pages the space has allocated at least once (its page_count, page 0
  // and bitmap pages included) and how many of those are free.
  struct SpaceUsage {
    uint32_t page_count = 0;
    uint32_t free_pages = 0;
  };
  Result<SpaceUsage> GetSpaceUsage(uint32_t space_id);

  // Writes every dirty page back, then syncs every tablespace. Returns the
  // first error; pages that failed stay dirty.
  // REQUIRES: the calling thread holds no page latch.
  Status FlushAll();

  // The smallest oldest-modification LSN (set by set_page_lsn or an mtr's
  // stamp: the start LSN of the oldest record whose change is not on disk)
  // among pages whose changes are not written yet (a write in flight still
  // counts), or kNoModification when there is none. LSN 0 is a valid
  // value (the log's first record starts there). A checkpoint may advance
  // to min(the log's end LSN read BEFORE this call, this), once the
  // tablespaces are synced.
  static constexpr uint64_t kNoModification = UINT64_MAX;
  uint64_t OldestModification() const;

  BufferPoolStats GetStats() const;
  size_t capacity_pages() const { return num_frames_; }

 private:
  friend class PageGuard;
  friend class Mtr;
  struct Shard;
  // How FetchInternal takes a page.
  enum class FetchHow : uint8_t {
    kNormal,   // a page in the thread's Mtr memo comes back borrowed
    kPoll,     // as kNormal, but latch by try-lock polling (allocation pages under page 0)
    kNoMtr,    // ignore any Mtr (ApplyRedo)
  };

  Shard& ShardFor(PageId id) const;
  // Takes `id` pinned and latched in `mode`; with `create`, a page that is
  // not cached is not read but zero-filled (a page beyond the space's
  // page_count) and marked dirty.
  Result<PageGuard> FetchInternal(PageId id, LatchMode mode, bool create,
                                  FetchHow how = FetchHow::kNormal);
  // How to latch an allocation page other than page 0 of `space_id`.
  FetchHow AllocationPageFetch(uint32_t space_id) const;
  // A frame owned by the caller (in no shard, not on the free-frame list).
  Result<BufferFrame*> GetFrame();
  // OK(true) when `frame` was evicted and is now owned by the caller.
  Result<bool> TryEvict(BufferFrame* frame);
  // Writes a pinned frame back if dirty. With `wait` false, gives up
  // (returns false) instead of waiting for the latch or another writer.
  Result<bool> WriteBack(BufferFrame* frame, bool wait);
  void PutFreeFrame(BufferFrame* frame);
  // Takes a free page from the bitmaps of groups 1 and up, after NewPage
  // claimed one from the free count.
  Result<uint32_t> ClaimFreePageInGroups(uint32_t space_id);
  Status MarkPageFree(uint32_t space_id, uint32_t page_no);
  // Unmaps the page's frame when only `page` pins it (true), else just
  // releases the guard (false).
  bool DiscardPage(PageGuard page);
  // Drops a latch (exclusive) and pin the Mtr memo held.
  void ReleaseHeld(BufferFrame* frame);
  // Sets the page LSN to end_lsn and, when it has none, the frame's oldest
  // modification to start_lsn. REQUIRES: the frame is latched exclusively.
  static void StampFrame(BufferFrame* frame, uint64_t start_lsn, uint64_t end_lsn);
  void ReportMtrViolation(const char* what, PageId id);
  void Unpin(BufferFrame* frame);
  void MarkDirty(BufferFrame* frame);
  Tablespace* FindSpace(uint32_t space_id) const;
  Status FlushSpaces(const std::vector<uint32_t>* only);

  const Options options_;
  const bool logging_;
  const size_t num_frames_;
  std::unique_ptr<char, void (*)(void*)> memory_;  // num_frames_ pages
  std::unique_ptr<BufferFrame[]> frames_;
  std::unique_ptr<Shard[]> shards_;
  const size_t shard_mask_;

  std::atomic<uint64_t> clock_hand_{0};

  mutable Mutex free_mu_;
  CondVar free_cv_;
  std::vector<BufferFrame*> free_frames_ GUARDED_BY(free_mu_);
  std::atomic<int> free_waiters_{0};

  mutable SharedMutex spaces_mu_;
  std::unordered_map<uint32_t, std::unique_ptr<Tablespace>> spaces_ GUARDED_BY(spaces_mu_);

  std::atomic<uint64_t> pages_dirty_{0};
  std::atomic<uint64_t> pages_flushed_{0};
  std::atomic<uint64_t> wait_free_{0};
  std::atomic<uint64_t> pages_created_{0};
  std::atomic<uint64_t> data_reads_{0};
  std::atomic<uint64_t> data_writes_{0};
  std::atomic<uint64_t> data_fsyncs_{0};
  std::atomic<uint64_t> mtr_violations_{0};
};

}  // namespace sluice::storage
