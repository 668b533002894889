// storage/buffer/buffer_pool.cc
#include "base/mysql_error.h"
#include "storage/buffer/buffer_pool.h"

#include <pthread.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "storage/buffer/buffer_frame.h"
#include "storage/buffer/mtr.h"
#include "storage/redo/redo_log.h"  // RedoLog::FramedSize (header only)

namespace sluice::storage {

struct BufferPool::Shard {
  Mutex mu;
  std::unordered_map<uint64_t, BufferFrame*> map GUARDED_BY(mu);
  uint64_t read_requests GUARDED_BY(mu) = 0;
  uint64_t reads GUARDED_BY(mu) = 0;
};

namespace {

size_t FramesFor(size_t bytes) { return std::max(BufferPool::kMinFrames, bytes / kPageSize); }

size_t PowerOfTwoAtLeast(size_t n) {
  size_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

Status OutOfFrames(size_t frames) {
  // ER_OUT_OF_RESOURCES; the text is MySQL's.
  return MakeError(er::kOutOfResources, fmt::format("all {} buffer pool pages are pinned", frames));
}

// Scratch page for write-backs, so the page latch is held only for a copy.
char* WriteBackBuffer() {
  thread_local std::unique_ptr<char[]> buf(new char[kPageSize]);
  return buf.get();
}

}  // namespace

// ---------------------------------------------------------------- PageGuard

PageGuard& PageGuard::operator=(PageGuard&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = other.pool_;
    frame_ = other.frame_;
    data_ = other.data_;
    id_ = other.id_;
    mode_ = other.mode_;
    dirty_marked_ = other.dirty_marked_;
    borrowed_ = other.borrowed_;
    other.frame_ = nullptr;
    other.data_ = nullptr;
    other.dirty_marked_ = false;
    other.borrowed_ = false;
  }
  return *this;
}

void PageGuard::MarkDirty() {
  assert(mode_ == LatchMode::kExclusive);
  pool_->MarkDirty(frame_);
  dirty_marked_ = true;
  if (pool_->logging_) Mtr::OnMarkDirty(*this);
}

void PageGuard::set_page_lsn(uint64_t start_lsn, uint64_t end_lsn) {
  (void)mutable_data();
  BufferPool::StampFrame(frame_, start_lsn, end_lsn);
}

void PageGuard::Release() {
  if (frame_ == nullptr) return;
  if (borrowed_ || (dirty_marked_ && pool_->logging_)) {
    if (Mtr::OnRelease(*this)) {
      frame_ = nullptr;
      data_ = nullptr;
      dirty_marked_ = false;
      borrowed_ = false;
      return;
    }
  }
  if (mode_ == LatchMode::kExclusive) {
    frame_->latch.unlock();
  } else {
    frame_->latch.unlock_shared();
  }
  pool_->Unpin(frame_);
  frame_ = nullptr;
  data_ = nullptr;
  dirty_marked_ = false;
  borrowed_ = false;
}

// --------------------------------------------------------------- BufferPool

BufferPool::BufferPool(Options options)
    : options_(std::move(options)),
      logging_(static_cast<bool>(options_.mtr_log)),
      num_frames_(FramesFor(options_.pool_size_bytes)),
      memory_(static_cast<char*>(std::aligned_alloc(4096, num_frames_ * kPageSize)), &std::free),
      frames_(new BufferFrame[num_frames_]),
      shards_(new Shard[PowerOfTwoAtLeast(std::max<size_t>(1, options_.num_shards))]),
      shard_mask_(PowerOfTwoAtLeast(std::max<size_t>(1, options_.num_shards)) - 1) {
  free_frames_.reserve(num_frames_);
  for (size_t i = num_frames_; i-- > 0;) {
    frames_[i].data = memory_.get() + i * kPageSize;
    free_frames_.push_back(&frames_[i]);
  }
}

BufferPool::~BufferPool() = default;

BufferPool::Shard& BufferPool::ShardFor(PageId id) const {
  return shards_[std::hash<PageId>()(id) & shard_mask_];
}

Tablespace* BufferPool::FindSpace(uint32_t space_id) const {
  ReaderMutexLock lock(&spaces_mu_);
  auto it = spaces_.find(space_id);
  return it == spaces_.end() ? nullptr : it->second.get();
}

Status BufferPool::AddSpace(std::unique_ptr<Tablespace> space) {
  WriterMutexLock lock(&spaces_mu_);
  uint32_t id = space->space_id();
  if (!spaces_.emplace(id, std::move(space)).second) {
    return Status::InvalidArgument(fmt::format("tablespace {} is already open", id));
  }
  return Status::OK();
}

Result<PageGuard> BufferPool::Fetch(PageId id, LatchMode mode) {
  return FetchInternal(id, mode, /*create=*/false);
}

Result<PageGuard> BufferPool::FetchInternal(PageId id, LatchMode mode, bool create, FetchHow how) {
  if (logging_ && how != FetchHow::kNoMtr) {
    // A page this thread's mtr holds: hand out the frame it already has
    // latched (exclusively) instead of latching it again.
    if (Mtr* mtr = Mtr::ActiveFor(this)) {
      if (Mtr::Entry* e = mtr->FindHeld(id)) {
        ++e->borrows;
        return PageGuard(this, e->frame, e->data, id, mode, /*borrowed=*/true);
      }
    }
  }
  Shard& shard = ShardFor(id);
  const uint64_t key = id.Packed();
  bool counted = false;
  for (;;) {
    BufferFrame* frame = nullptr;
    {
      MutexLock lock(&shard.mu);
      if (!counted) ++shard.read_requests;
      counted = true;
      auto it = shard.map.find(key);
      if (it != shard.map.end()) {
        frame = it->second;
        frame->pin.fetch_add(1, std::memory_order_relaxed);
      }
    }
    if (frame != nullptr) {
      // Blocks while another thread reads the page in: it holds the latch.
      if (how == FetchHow::kPoll) {
        // See the lock order in buffer_pool.h: whoever else holds it lets
        // go without waiting for us. Try-locks record no lock order.
        while (!(mode == LatchMode::kExclusive ? frame->latch.try_lock()
                                               : frame->latch.try_lock_shared())) {
          std::this_thread::yield();
        }
      } else if (mode == LatchMode::kExclusive) {
        frame->latch.lock();
      } else {
        frame->latch.lock_shared();
      }
      if (frame->state.load(std::memory_order_acquire) == FrameState::kValid) {
        if (!frame->ref.load(std::memory_order_relaxed)) {
          frame->ref.store(true, std::memory_order_relaxed);
        }
        return PageGuard(this, frame, frame->data, id, mode);
      }
      Status error = frame->load_error;  // kFailed: the loader's read failed
      if (mode == LatchMode::kExclusive) {
        frame->latch.unlock();
      } else {
        frame->latch.unlock_shared();
      }
      Unpin(frame);
      return error;
    }

    Tablespace* space = FindSpace(id.space);
    if (space == nullptr) {
      return Status::InvalidArgument(fmt::format("tablespace {} is not open", id.space));
    }
    auto got = GetFrame();
    if (!got.ok()) return got.status();
    frame = *got;
    // Latched before it becomes visible, so nobody sees it half-read; and
    // before the shard mutex, keeping the order latch -> shard mutex.
    // Nobody else can reach a frame we own, so the try-lock cannot fail. It
    // is a try-lock on purpose: lock-order checkers (TSan) record no order
    // for it, and a page just created or read in has no place in the latch
    // order yet (a new B-tree node becomes the parent of nodes its creator
    // holds latched).
    frame->latch.Reset();
    if (!frame->latch.try_lock()) {
      std::fprintf(stderr, "sluice: the latch of an owned buffer frame is taken\n");
      std::abort();
    }
    {
      MutexLock lock(&shard.mu);
      if (shard.map.count(key) != 0) {
        // Another thread loaded the page meanwhile: use its frame.
        frame->latch.unlock();
        PutFreeFrame(frame);
        continue;
      }
      frame->id.store(key, std::memory_order_relaxed);
      frame->pin.store(1, std::memory_order_relaxed);
      frame->ref.store(true, std::memory_order_relaxed);
      frame->dirty.store(false, std::memory_order_relaxed);
      frame->oldest_modification.store(0, std::memory_order_relaxed);
      frame->state.store(create ? FrameState::kValid : FrameState::kLoading,
                         std::memory_order_release);
      shard.map.emplace(key, frame);
      if (!create) ++shard.reads;
    }
    if (create) {
      std::memset(frame->data, 0, kPageSize);
      MarkDirty(frame);
      if (mode == LatchMode::kShared) {
        frame->latch.unlock();
        frame->latch.lock_shared();
      }
      return PageGuard(this, frame, frame->data, id, mode);
    }
    Status s = space->ReadPage(id.page, frame->data);
    data_reads_.fetch_add(1, std::memory_order_relaxed);
    if (!s.ok()) {
      {
        MutexLock lock(&shard.mu);
        shard.map.erase(key);
      }
      frame->load_error = s;
      frame->state.store(FrameState::kFailed, std::memory_order_release);
      frame->latch.unlock();
      Unpin(frame);
      return s;
    }
    frame->state.store(FrameState::kValid, std::memory_order_release);
    if (mode == LatchMode::kShared) {
      frame->latch.unlock();
      frame->latch.lock_shared();
    }
    return PageGuard(this, frame, frame->data, id, mode);
  }
}

void BufferPool::PutFreeFrame(BufferFrame* frame) {
  frame->state.store(FrameState::kFree, std::memory_order_release);
  MutexLock lock(&free_mu_);
  free_frames_.push_back(frame);
  if (free_waiters_.load() > 0) free_cv_.NotifyAll();
}

void BufferPool::Unpin(BufferFrame* frame) {
  if (frame->pin.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    // A failed frame is unmapped, so its pin count only falls: exactly one
    // thread sees it reach zero and frees it.
    if (frame->state.load(std::memory_order_acquire) == FrameState::kFailed) {
      PutFreeFrame(frame);
      return;
    }
    if (free_waiters_.load() > 0) {
      MutexLock lock(&free_mu_);
      free_cv_.NotifyAll();
    }
  }
}

void BufferPool::MarkDirty(BufferFrame* frame) {
  if (!frame->dirty.exchange(true, std::memory_order_acq_rel)) {
    pages_dirty_.fetch_add(1, std::memory_order_relaxed);
  }
}

Result<BufferFrame*> BufferPool::GetFrame() {
  {
    MutexLock lock(&free_mu_);
    if (!free_frames_.empty()) {
      BufferFrame* f = free_frames_.back();
      free_frames_.pop_back();
      f->state.store(FrameState::kOwned, std::memory_order_relaxed);
      return f;
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + options_.free_frame_timeout;
  bool counted_wait = false;
  for (;;) {
    // CLOCK: two sweeps give every referenced frame its second chance.
    for (size_t i = 0; i < 2 * num_frames_; ++i) {
      BufferFrame* f = &frames_[clock_hand_.fetch_add(1, std::memory_order_relaxed) % num_frames_];
      if (f->pin.load(std::memory_order_acquire) != 0) continue;
      if (f->state.load(std::memory_order_acquire) != FrameState::kValid) continue;
      if (f->ref.load(std::memory_order_relaxed)) {
        f->ref.store(false, std::memory_order_relaxed);
        continue;
      }
      auto evicted = TryEvict(f);
      if (!evicted.ok()) return evicted.status();
      if (*evicted) return f;
    }
    MutexLock lock(&free_mu_);
    if (!free_frames_.empty()) {
      BufferFrame* f = free_frames_.back();
      free_frames_.pop_back();
      f->state.store(FrameState::kOwned, std::memory_order_relaxed);
      return f;
    }
    if (!counted_wait) wait_free_.fetch_add(1, std::memory_order_relaxed);
    counted_wait = true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return OutOfFrames(num_frames_);
    // Unpin notifies; the slice bounds a wake-up missed between the sweep
    // and the wait.
    free_waiters_.fetch_add(1);
    free_cv_.WaitUntil(&free_mu_, std::min(deadline, now + std::chrono::milliseconds(10)));
    free_waiters_.fetch_sub(1);
  }
}

Result<bool> BufferPool::TryEvict(BufferFrame* frame) {
  const uint64_t key = frame->id.load(std::memory_order_acquire);
  Shard& shard = ShardFor(PageId::FromPacked(key));
  {
    MutexLock lock(&shard.mu);
    auto it = shard.map.find(key);
    if (it == shard.map.end() || it->second != frame ||
        frame->pin.load(std::memory_order_acquire) != 0 ||
        frame->state.load(std::memory_order_acquire) != FrameState::kValid) {
      return false;
    }
    if (!frame->dirty.load(std::memory_order_acquire)) {
      // Pins are raised only under this mutex, so nobody can reach it now.
      shard.map.erase(it);
      frame->state.store(FrameState::kOwned, std::memory_order_relaxed);
      return true;
    }
    frame->pin.fetch_add(1, std::memory_order_relaxed);
  }
  // Dirty: write it back while it stays mapped (readers may still use it).
  auto written = WriteBack(frame, /*wait=*/false);
  if (!written.ok() || !*written) {
    Unpin(frame);
    return written;
  }
  {
    MutexLock lock(&shard.mu);
    if (frame->pin.load(std::memory_order_acquire) == 1 &&
        !frame->dirty.load(std::memory_order_acquire)) {
      shard.map.erase(key);
      frame->pin.store(0, std::memory_order_relaxed);
      frame->state.store(FrameState::kOwned, std::memory_order_relaxed);
      return true;
    }
  }
  Unpin(frame);  // someone pinned or re-dirtied it meanwhile
  return false;
}

Result<bool> BufferPool::WriteBack(BufferFrame* frame, bool wait) {
  std::unique_lock<std::mutex> io(frame->io_mu, std::defer_lock);
  if (wait) {
    io.lock();
  } else if (!io.try_lock()) {
    return false;
  }
  if (!frame->dirty.load(std::memory_order_acquire)) return true;
  // An evicting thread may hold other latches: it must never wait for this
  // one, or two threads could wait for each other.
  if (wait) {
    frame->latch.lock_shared();
  } else if (!frame->latch.try_lock_shared()) {
    return false;
  }
  char* copy = WriteBackBuffer();
  std::memcpy(copy, frame->data, kPageSize);
  // Cleared under the shared latch: a writer (exclusive latch) that dirties
  // the page again afterwards sets it again, and its change is written later.
  if (frame->dirty.exchange(false, std::memory_order_acq_rel)) {
    pages_dirty_.fetch_sub(1, std::memory_order_relaxed);
  }
  // The oldest modification moves aside until the write is done, so that
  // OldestModification (what a checkpoint may advance to) keeps counting
  // it; changes made meanwhile start a new one.
  const uint64_t oldest = frame->oldest_modification.load(std::memory_order_relaxed);
  frame->flushing_oldest.store(oldest, std::memory_order_release);
  frame->oldest_modification.store(0, std::memory_order_release);
  frame->latch.unlock_shared();

  const PageId id = PageId::FromPacked(frame->id.load(std::memory_order_relaxed));
  Status s;
  if (options_.write_ahead_check) s = options_.write_ahead_check(GetPageLsn(copy));
  if (s.ok()) {
    Tablespace* space = FindSpace(id.space);
    s = space != nullptr ? space->WritePage(id.page, copy)
                         : Status::InvalidArgument(fmt::format("tablespace {} is not open", id.space));
  }
  if (!s.ok()) {
    MarkDirty(frame);
    if (oldest != 0) {
      // Back to the older of the two (a change made meanwhile may have set one).
      uint64_t cur = frame->oldest_modification.load(std::memory_order_relaxed);
      while ((cur == 0 || cur > oldest) &&
             !frame->oldest_modification.compare_exchange_weak(cur, oldest, std::memory_order_release,
                                                               std::memory_order_relaxed)) {
      }
    }
    frame->flushing_oldest.store(0, std::memory_order_release);
    return s;
  }
  frame->flushing_oldest.store(0, std::memory_order_release);
  data_writes_.fetch_add(1, std::memory_order_relaxed);
  pages_flushed_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

Status BufferPool::FlushSpaces(const std::vector<uint32_t>* only) {
  Status first;
  ReaderMutexLock lock(&spaces_mu_);
  for (auto& [id, space] : spaces_) {
    if (only != nullptr && std::find(only->begin(), only->end(), id) == only->end()) continue;
    Status s = space->Sync();
    data_fsyncs_.fetch_add(1, std::memory_order_relaxed);
    if (!s.ok() && first.ok()) first = s;
  }
  return first;
}

Status BufferPool::FlushAll() {
  Status first;
  for (size_t i = 0; i < num_frames_; ++i) {
    BufferFrame* f = &frames_[i];
    if (!f->dirty.load(std::memory_order_acquire)) continue;
    const uint64_t key = f->id.load(std::memory_order_acquire);
    Shard& shard = ShardFor(PageId::FromPacked(key));
    {
      MutexLock lock(&shard.mu);
      auto it = shard.map.find(key);
      if (it == shard.map.end() || it->second != f ||
          f->state.load(std::memory_order_acquire) != FrameState::kValid) {
        continue;
      }
      f->pin.fetch_add(1, std::memory_order_relaxed);
    }
    auto written = WriteBack(f, /*wait=*/true);
    Unpin(f);
    if (!written.ok() && first.ok()) first = written.status();
  }
  Status s = FlushSpaces(nullptr);
  return first.ok() ? s : first;
}

Result<std::unique_ptr<Tablespace>> BufferPool::DetachSpace(uint32_t space_id, bool write_back) {
  if (FindSpace(space_id) == nullptr) {
    return Status::InvalidArgument(fmt::format("tablespace {} is not open", space_id));
  }
  Status first;
  const auto deadline = std::chrono::steady_clock::now() + options_.free_frame_timeout;
  for (size_t i = 0; i < num_frames_; ++i) {
    BufferFrame* f = &frames_[i];
    for (;;) {
      const uint64_t key = f->id.load(std::memory_order_acquire);
      if (PageId::FromPacked(key).space != space_id) break;
      Shard& shard = ShardFor(PageId::FromPacked(key));
      MutexLock lock(&shard.mu);
      auto it = shard.map.find(key);
      if (it == shard.map.end() || it->second != f) break;
      if (f->pin.load(std::memory_order_acquire) != 0) {
        // Only an eviction or flush in flight can hold it (the caller
        // guarantees no guard does); it finishes without waiting for us.
        lock.Unlock();
        if (std::chrono::steady_clock::now() >= deadline) {
          return Status::InvalidArgument(
              fmt::format("tablespace {} page {} is still in use", space_id, PageId::FromPacked(key).page));
        }
        std::this_thread::yield();
        continue;
      }
      if (write_back && f->dirty.load(std::memory_order_acquire)) {
        f->pin.fetch_add(1, std::memory_order_relaxed);
        lock.Unlock();
        auto written = WriteBack(f, /*wait=*/true);
        Unpin(f);
        if (!written.ok()) return written.status();
        continue;  // look again: it is clean now unless re-dirtied
      }
      shard.map.erase(it);
      if (f->dirty.exchange(false, std::memory_order_acq_rel)) {
        pages_dirty_.fetch_sub(1, std::memory_order_relaxed);
      }
      f->oldest_modification.store(0, std::memory_order_relaxed);
      f->state.store(FrameState::kOwned, std::memory_order_relaxed);
      lock.Unlock();
      PutFreeFrame(f);
      break;
    }
  }
  if (write_back) {
    std::vector<uint32_t> only{space_id};
    SLUICE_RETURN_IF_ERROR(FlushSpaces(&only));
  }
  WriterMutexLock lock(&spaces_mu_);
  auto it = spaces_.find(space_id);
  if (it == spaces_.end()) {
    return Status::InvalidArgument(fmt::format("tablespace {} is not open", space_id));
  }
  std::unique_ptr<Tablespace> space = std::move(it->second);
  spaces_.erase(it);
  return space;
}

namespace {

// Bit i of a bitmap is bit i % 8 of byte i / 8, which is bit i % 64 of the
// little-endian word i / 64.
int FindSetBit(const char* bitmap, uint32_t limit) {
  for (uint32_t w = 0; uint64_t{w} * 64 < limit; ++w) {
    const uint64_t word = LoadU64(bitmap + 8 * w);
    if (word == 0) continue;
    const uint32_t bit = w * 64 + static_cast<uint32_t>(std::countr_zero(word));
    return bit < limit ? static_cast<int>(bit) : -1;
  }
  return -1;
}
bool TestBit(const char* bitmap, uint32_t i) { return (bitmap[i / 8] >> (i % 8)) & 1; }
void SetBit(char* bitmap, uint32_t i) { bitmap[i / 8] = static_cast<char>(bitmap[i / 8] | (1 << (i % 8))); }
void ClearBit(char* bitmap, uint32_t i) {
  bitmap[i / 8] = static_cast<char>(bitmap[i / 8] & ~(1 << (i % 8)));
}

}  // namespace

// Page 0, then bitmap pages (see the lock order in buffer_pool.h): whatever
// the caller holds, these are always the innermost latches, so allocation
// can never be part of a latch cycle.
Result<PageGuard> BufferPool::NewPage(uint32_t space_id, PageType type) {
  uint32_t page_no = kInvalidPageNo;
  {
    auto header = FetchInternal(PageId{space_id, 0}, LatchMode::kExclusive, false);
    if (!header.ok()) return header.status();
    if (header->type() != PageType::kSpaceHeader) {
      return Status::Corruption(fmt::format("page 0 of tablespace {} is not a space header", space_id));
    }
    char* h = header->mutable_data();
    const uint32_t page_count = LoadU32(h + kSpacePageCountOffset);
    const uint32_t group = LoadU32(h + kSpacePagesPerGroupOffset);
    const uint32_t free = LoadU32(h + kSpaceFreeCountOffset);
    if (free > 0) {
      // Claim one free page. Its bit is in group 0 (right here) or in a
      // later group's bitmap, searched below without page 0 latched.
      StoreU32(h + kSpaceFreeCountOffset, free - 1);
      const int bit = FindSetBit(h + kSpaceBitmapOffset, std::min(page_count, group));
      if (bit >= 0) {
        ClearBit(h + kSpaceBitmapOffset, static_cast<uint32_t>(bit));
        page_no = static_cast<uint32_t>(bit);
      }
    } else {
      uint64_t p = page_count;
      if (p % group == 0) ++p;  // the slot of a bitmap page: skip it
      if (p >= kInvalidPageNo) {
        return Status::NotSupported(fmt::format("tablespace {} is full", space_id));
      }
      StoreU32(h + kSpacePageCountOffset, static_cast<uint32_t>(p + 1));
      page_no = static_cast<uint32_t>(p);
    }
  }
  if (page_no == kInvalidPageNo) {
    auto claimed = ClaimFreePageInGroups(space_id);
    if (!claimed.ok()) return claimed.status();
    page_no = *claimed;
  }
  // A reused page's old contents do not matter: no read.
  auto page = FetchInternal(PageId{space_id, page_no}, LatchMode::kExclusive, /*create=*/true);
  if (!page.ok()) {
    (void)MarkPageFree(space_id, page_no);  // best effort; a failure leaks the page
    return page.status();
  }
  if (logging_) Mtr::OnNewPage(*page);  // before its first change: no before-image needed
  InitPage(page->mutable_data(), page->id(), type);
  pages_created_.fetch_add(1, std::memory_order_relaxed);
  return page;
}

Result<uint32_t> BufferPool::ClaimFreePageInGroups(uint32_t space_id) {
  // The free count we took guarantees a set bit somewhere in groups >= 1:
  // group 0 had none when we claimed, and a page's bit is set before the
  // count is raised. Other claimers may take bits we pass over, so scan
  // until one is ours.
  for (int pass = 0; pass < 100; ++pass) {
    uint32_t page_count, group;
    {
      auto header = Fetch(PageId{space_id, 0}, LatchMode::kShared);
      if (!header.ok()) return header.status();
      page_count = LoadU32(header->data() + kSpacePageCountOffset);
      group = LoadU32(header->data() + kSpacePagesPerGroupOffset);
    }
    for (uint64_t first = group; first < page_count; first += group) {
      auto bitmap = FetchInternal(PageId{space_id, static_cast<uint32_t>(first)}, LatchMode::kExclusive,
                                  false, AllocationPageFetch(space_id));
      if (!bitmap.ok()) return bitmap.status();
      if (bitmap->type() != PageType::kSpaceBitmap) continue;  // never written: nothing free
      const int bit = FindSetBit(bitmap->data() + kSpaceBitmapOffset, group);
      if (bit < 0) continue;
      ClearBit(bitmap->mutable_data() + kSpaceBitmapOffset, static_cast<uint32_t>(bit));
      return static_cast<uint32_t>(first + bit);
    }
    std::this_thread::yield();
  }
  return Status::Corruption(
      fmt::format("the free page count of tablespace {} is ahead of its bitmaps", space_id));
}

BufferPool::FetchHow BufferPool::AllocationPageFetch(uint32_t space_id) const {
  if (!logging_) return FetchHow::kNormal;
  Mtr* mtr = Mtr::ActiveFor(this);
  return mtr != nullptr && mtr->FindHeld(PageId{space_id, 0}) != nullptr ? FetchHow::kPoll
                                                                         : FetchHow::kNormal;
}

Status BufferPool::MarkPageFree(uint32_t space_id, uint32_t page_no) {
  Tablespace* space = FindSpace(space_id);
  if (space == nullptr) {
    return Status::InvalidArgument(fmt::format("tablespace {} is not open", space_id));
  }
  const uint32_t group = space->pages_per_group();
  const uint32_t first = page_no - page_no % group;
  const uint32_t bit = page_no % group;
  if (bit == 0) {
    return Status::InvalidArgument(
        fmt::format("page {} of tablespace {} holds an allocation bitmap", page_no, space_id));
  }
  auto double_free = [&] {
    return Status::Corruption(
        fmt::format("page {} of tablespace {} is freed twice", page_no, space_id));
  };
  // Page 0 first, then the bitmap page: the order NewPage takes them in.
  auto header = Fetch(PageId{space_id, 0}, LatchMode::kExclusive);
  if (!header.ok()) return header.status();
  if (page_no >= LoadU32(header->data() + kSpacePageCountOffset)) {
    return Status::InvalidArgument(
        fmt::format("page {} of tablespace {} was never allocated", page_no, space_id));
  }
  if (first != 0) {
    // We hold page 0 exclusively; inside an mtr the bitmap is polled for.
    auto bitmap = FetchInternal(PageId{space_id, first}, LatchMode::kExclusive, false,
                                logging_ && Mtr::InMtr(this) ? FetchHow::kPoll : FetchHow::kNormal);
    if (!bitmap.ok()) return bitmap.status();
    if (bitmap->type() == PageType::kUnwritten) {
      InitPage(bitmap->mutable_data(), bitmap->id(), PageType::kSpaceBitmap);
    } else if (bitmap->type() != PageType::kSpaceBitmap) {
      return Status::Corruption(fmt::format("page {} of tablespace {} should be an allocation bitmap",
                                            first, space_id));
    }
    if (TestBit(bitmap->data() + kSpaceBitmapOffset, bit)) return double_free();
    SetBit(bitmap->mutable_data() + kSpaceBitmapOffset, bit);
  } else {
    if (TestBit(header->data() + kSpaceBitmapOffset, bit)) return double_free();
    SetBit(header->mutable_data() + kSpaceBitmapOffset, bit);
  }
  char* h = header->mutable_data();
  StoreU32(h + kSpaceFreeCountOffset, LoadU32(h + kSpaceFreeCountOffset) + 1);
  return Status::OK();
}

bool BufferPool::DiscardPage(PageGuard page) {
  BufferFrame* frame = page.frame_;
  const uint64_t key = page.id().Packed();
  Shard& shard = ShardFor(page.id());
  bool discarded = false;
  {
    MutexLock lock(&shard.mu);
    auto it = shard.map.find(key);
    // Only our guard may pin it; a flush in flight keeps it cached instead
    // (it is then written back with stale contents, which is harmless).
    if (it != shard.map.end() && it->second == frame &&
        frame->pin.load(std::memory_order_acquire) == 1) {
      shard.map.erase(it);
      if (frame->dirty.exchange(false, std::memory_order_acq_rel)) {
        pages_dirty_.fetch_sub(1, std::memory_order_relaxed);
      }
      frame->oldest_modification.store(0, std::memory_order_relaxed);
      frame->state.store(FrameState::kOwned, std::memory_order_relaxed);
      discarded = true;
    }
  }
  if (!discarded) {
    page.Release();
    return false;
  }
  frame->latch.unlock();
  frame->pin.store(0, std::memory_order_relaxed);
  page.frame_ = nullptr;  // already unlatched and unpinned
  page.dirty_marked_ = false;
  PutFreeFrame(frame);
  return true;
}

Status BufferPool::FreePage(PageGuard page) {
  if (!page.valid() || page.mode() != LatchMode::kExclusive) {
    return Status::InvalidArgument("FreePage needs an exclusively latched page");
  }
  const PageId id = page.id();
  Tablespace* space = FindSpace(id.space);
  if (space == nullptr) {
    return Status::InvalidArgument(fmt::format("tablespace {} is not open", id.space));
  }
  if (id.page % space->pages_per_group() == 0) {
    return Status::InvalidArgument(fmt::format(
        "page {} of tablespace {} holds the space header or an allocation bitmap", id.page, id.space));
  }
  Mtr* mtr = logging_ ? Mtr::ActiveFor(this) : nullptr;
  if (mtr == nullptr) {
    // The page's contents are dead: drop its frame rather than write it.
    DiscardPage(std::move(page));
    return MarkPageFree(id.space, id.page);
  }
  BufferFrame* frame = page.frame_;
  if (page.borrowed_) {
    // The memo's latch and pin pass to this guard, and back to the memo
    // below if the frame cannot be dropped.
    Mtr::Entry* e = mtr->Find(frame);
    if (e != nullptr) {
      --e->borrows;
      e->held = false;
    }
    page.borrowed_ = false;
    page.dirty_marked_ = true;
  }
  if (DiscardPage(std::move(page))) {
    // Nothing of the page is logged: its changes in this mtr died with it.
    if (Mtr::Entry* e = mtr->Find(frame)) mtr->DropEntry(e);
  }
  // Else a write-back pins the frame: the page stays in the memo and its
  // changes are logged as usual, so the stale copy that may still be
  // written is covered by the redo (write-ahead).
  mtr->frees_.push_back(id);  // marked free by Commit
  return Status::OK();
}

void BufferPool::ReleaseHeld(BufferFrame* frame) {
  frame->latch.unlock();
  Unpin(frame);
}

void BufferPool::StampFrame(BufferFrame* frame, uint64_t start_lsn, uint64_t end_lsn) {
  StoreU64(frame->data + kPageLsnOffset, end_lsn);
  uint64_t expected = 0;  // stored + 1: see BufferFrame
  frame->oldest_modification.compare_exchange_strong(expected, start_lsn + 1, std::memory_order_relaxed);
}

void BufferPool::ReportMtrViolation(const char* what, PageId id) {
  const uint64_t n = mtr_violations_.fetch_add(1, std::memory_order_relaxed);
  if (n < 10) {
    std::fprintf(stderr, "sluice: mini-transaction rule broken: %s (space %u page %u)\n", what, id.space,
                 id.page);
  }
#ifndef NDEBUG
  std::abort();
#endif
}

Status BufferPool::ApplyRedo(std::string_view payload, uint64_t end_lsn,
                             const std::function<bool(uint32_t space_id)>& space_known) {
  auto records = ParseMtrPayload(payload);
  if (!records.ok()) return records.status();
  const uint64_t framed = RedoLog::FramedSize(payload.size());
  const uint64_t start_lsn = end_lsn >= framed ? end_lsn - framed : 0;
  for (const MtrPageRecord& rec : *records) {
    if (FindSpace(rec.id.space) == nullptr) continue;  // dropped
    if (space_known && !space_known(rec.id.space)) continue;
    // An init page is not read: it may be past the end of the file, and its
    // old contents do not matter. Any other page is read (a page past the
    // end of the file reads as zeros, as it was before its first change).
    auto page = FetchInternal(rec.id, LatchMode::kExclusive, rec.init, FetchHow::kNoMtr);
    if (!page.ok()) return page.status();
    if (!rec.init && page->page_lsn() >= end_lsn) continue;  // already on disk
    char* d = page->data_;
    if (rec.init) std::memset(d, 0, kPageSize);
    for (const MtrPageRecord::Range& r : rec.ranges) {
      std::memcpy(d + r.offset, r.bytes.data(), r.bytes.size());
    }
    StampFrame(page->frame_, start_lsn, end_lsn);
    MarkDirty(page->frame_);  // not through the guard: nothing is logged
  }
  return Status::OK();
}

Result<BufferPool::SpaceUsage> BufferPool::GetSpaceUsage(uint32_t space_id) {
  auto header = Fetch(PageId{space_id, 0}, LatchMode::kShared);
  if (!header.ok()) return header.status();
  SpaceUsage usage;
  usage.page_count = LoadU32(header->data() + kSpacePageCountOffset);
  usage.free_pages = LoadU32(header->data() + kSpaceFreeCountOffset);
  return usage;
}

uint64_t BufferPool::OldestModification() const {
  uint64_t oldest = 0;  // + 1, as stored
  for (size_t i = 0; i < num_frames_; ++i) {
    const BufferFrame& f = frames_[i];
    // Read in this order: WriteBack sets flushing_oldest before it clears
    // oldest_modification.
    for (uint64_t v : {f.oldest_modification.load(std::memory_order_acquire),
                       f.flushing_oldest.load(std::memory_order_acquire)}) {
      if (v != 0 && (oldest == 0 || v < oldest)) oldest = v;
    }
  }
  return oldest == 0 ? kNoModification : oldest - 1;
}

BufferPoolStats BufferPool::GetStats() const {
  BufferPoolStats st;
  st.pages_total = num_frames_;
  for (size_t i = 0; i <= shard_mask_; ++i) {
    MutexLock lock(&shards_[i].mu);
    st.pages_data += shards_[i].map.size();
    st.read_requests += shards_[i].read_requests;
    st.reads += shards_[i].reads;
  }
  {
    MutexLock lock(&free_mu_);
    st.pages_free = free_frames_.size();
  }
  st.pages_dirty = pages_dirty_.load(std::memory_order_relaxed);
  st.pages_flushed = pages_flushed_.load(std::memory_order_relaxed);
  st.wait_free = wait_free_.load(std::memory_order_relaxed);
  st.pages_created = pages_created_.load(std::memory_order_relaxed);
  st.pages_read = st.reads;
  st.pages_written = st.pages_flushed;
  st.data_reads = data_reads_.load(std::memory_order_relaxed);
  st.data_writes = data_writes_.load(std::memory_order_relaxed);
  st.data_read = st.data_reads * kPageSize;
  st.data_written = st.data_writes * kPageSize;
  st.data_fsyncs = data_fsyncs_.load(std::memory_order_relaxed);
  return st;
}

}  // namespace sluice::storage
