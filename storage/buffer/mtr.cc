// storage/buffer/mtr.cc
#include "storage/buffer/mtr.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "storage/buffer/buffer_frame.h"
#include "storage/redo/redo_log.h"  // RedoLog::FramedSize (header only)

namespace sluice::storage {
namespace {

constexpr size_t kEntryHeaderSize = 4 + 4 + 1 + 2;
constexpr size_t kRangeHeaderSize = 2 + 2;

// The innermost recording Mtr of this thread (any pool); each links to the
// one it was opened inside.
thread_local Mtr* t_top = nullptr;

// Before-image buffers, reused across mtrs so an mtr allocates nothing once
// the thread has warmed up.
thread_local std::vector<std::unique_ptr<char[]>> t_page_buffers;
// The payload under construction, kept for its capacity.
thread_local std::string t_payload;

alignas(64) const char kZeroPage[kPageSize] = {};

char* TakePageBuffer() {
  if (t_page_buffers.empty()) return new char[kPageSize];
  char* p = t_page_buffers.back().release();
  t_page_buffers.pop_back();
  return p;
}

void ReturnPageBuffer(char* p) { t_page_buffers.emplace_back(p); }

void PutU16(std::string* out, uint16_t v) {
  char b[2];
  StoreU16(b, v);
  out->append(b, 2);
}
void PutU32(std::string* out, uint32_t v) {
  char b[4];
  StoreU32(b, v);
  out->append(b, 4);
}

}  // namespace

// ------------------------------------------------------------------ payload

Result<std::vector<MtrPageRecord>> ParseMtrPayload(std::string_view payload) {
  std::vector<MtrPageRecord> out;
  size_t pos = 0;
  auto bad = [&](std::string_view what) {
    return Status::Corruption(fmt::format("mtr redo payload of {} bytes: {} at byte {}", payload.size(),
                                          what, pos));
  };
  while (pos < payload.size()) {
    if (payload.size() - pos < kEntryHeaderSize) return bad("truncated page entry");
    MtrPageRecord rec;
    const char* p = payload.data() + pos;
    rec.id = PageId{LoadU32(p), LoadU32(p + 4)};
    const uint8_t flags = static_cast<uint8_t>(p[8]);
    if ((flags & ~kMtrPageInit) != 0) return bad("unknown page flags");
    rec.init = (flags & kMtrPageInit) != 0;
    const uint16_t count = LoadU16(p + 9);
    pos += kEntryHeaderSize;
    rec.ranges.reserve(count);
    size_t prev_end = 0;
    for (uint16_t i = 0; i < count; ++i) {
      if (payload.size() - pos < kRangeHeaderSize) return bad("truncated range");
      const uint16_t offset = LoadU16(payload.data() + pos);
      const uint16_t length = LoadU16(payload.data() + pos + 2);
      if (length == 0 || size_t{offset} + length > kPageSize || (i > 0 && offset < prev_end)) {
        return bad(fmt::format("bad range [{}, +{})", offset, length));
      }
      pos += kRangeHeaderSize;
      if (payload.size() - pos < length) return bad("truncated range bytes");
      rec.ranges.push_back({offset, payload.substr(pos, length)});
      pos += length;
      prev_end = size_t{offset} + length;
    }
    out.push_back(std::move(rec));
  }
  return out;
}

bool Mtr::AppendDiff(const Entry& e, std::string* payload) {
  const size_t header_pos = payload->size();
  PutU32(payload, e.id.space);
  PutU32(payload, e.id.page);
  payload->push_back(static_cast<char>(e.init ? kMtrPageInit : 0));
  PutU16(payload, 0);  // range count, patched below
  const char* cur = e.data;
  uint16_t count = 0;
  auto emit = [&](size_t begin, size_t end) {
    PutU16(payload, static_cast<uint16_t>(begin));
    PutU16(payload, static_cast<uint16_t>(end - begin));
    payload->append(cur + begin, end - begin);
    ++count;
  };
  if (e.full) {
    emit(0, kPageLsnOffset);
    emit(kPageLsnOffset + 8, kPageSize);
  } else {
    const char* old = e.init ? kZeroPage : e.before;
    size_t begin = 0, end = 0;  // the pending range, when end > 0
    constexpr size_t kChunk = 256;
    for (size_t block = 0; block < kPageSize; block += kChunk) {
      if (std::memcmp(cur + block, old + block, kChunk) == 0) continue;  // most chunks are equal
      for (size_t w = block; w < block + kChunk; w += 8) {
        if (w == kPageLsnOffset) continue;  // replay stamps it
        const uint64_t x = LoadU64(cur + w) ^ LoadU64(old + w);
        if (x == 0) continue;
        // Little-endian: the low-order byte of the word comes first.
        const size_t lo = w + static_cast<size_t>(std::countr_zero(x)) / 8;
        const size_t hi = w + 8 - static_cast<size_t>(std::countl_zero(x)) / 8;
        if (end > 0 && lo <= end + kMtrRangeMergeGap) {
          end = hi;
          continue;
        }
        if (end > 0) emit(begin, end);
        begin = lo;
        end = hi;
      }
    }
    if (end > 0) emit(begin, end);
  }
  if (count == 0 && !e.init) {
    payload->resize(header_pos);
    return false;
  }
  StoreU16(payload->data() + header_pos + 9, count);
  return true;
}

// ---------------------------------------------------------------------- Mtr

Mtr::Mtr(BufferPool* pool) : pool_(pool) {
  if (!pool->logging_) return;
  if (ActiveFor(pool) != nullptr) return;  // joins the enclosing mtr
  owner_ = true;
  prev_ = t_top;
  t_top = this;
}

Mtr::~Mtr() {
  if (owner_) (void)Commit();
}

Mtr* Mtr::ActiveFor(const BufferPool* pool) {
  for (Mtr* m = t_top; m != nullptr; m = m->prev_) {
    if (m->pool_ == pool) return m;
  }
  return nullptr;
}

bool Mtr::InMtr(const BufferPool* pool) { return pool->logging_ && ActiveFor(pool) != nullptr; }

Mtr::Entry* Mtr::Find(const BufferFrame* frame) {
  for (Entry& e : entries_) {
    if (e.frame == frame) return &e;
  }
  return nullptr;
}

Mtr::Entry* Mtr::FindHeld(PageId id) {
  for (Entry& e : entries_) {
    if (e.held && e.id == id) return &e;
  }
  return nullptr;
}

void Mtr::DropEntry(Entry* e) {
  if (e->before != nullptr) ReturnPageBuffer(e->before);
  entries_.erase_unordered(static_cast<size_t>(e - entries_.begin()));
}

void Mtr::OnMarkDirty(PageGuard& guard) {
  Mtr* mtr = ActiveFor(guard.pool_);
  if (mtr == nullptr) {
    guard.pool_->ReportMtrViolation("a page was changed outside a mini-transaction", guard.id_);
    return;
  }
  if (mtr->Find(guard.frame_) != nullptr) return;
  Entry e;
  e.frame = guard.frame_;
  e.id = guard.id_;
  e.data = guard.data_;
  e.before = TakePageBuffer();
  std::memcpy(e.before, guard.data_, kPageSize);
  mtr->entries_.push_back(e);
}

void Mtr::OnNewPage(PageGuard& guard) {
  Mtr* mtr = ActiveFor(guard.pool_);
  if (mtr == nullptr || mtr->Find(guard.frame_) != nullptr) return;  // MarkDirty reports the former
  Entry e;
  e.frame = guard.frame_;
  e.id = guard.id_;
  e.data = guard.data_;
  e.init = true;
  mtr->entries_.push_back(e);
}

bool Mtr::OnRelease(PageGuard& guard) {
  Mtr* mtr = ActiveFor(guard.pool_);
  if (guard.borrowed_) {
    Entry* e = mtr != nullptr ? mtr->Find(guard.frame_) : nullptr;
    if (e == nullptr || !e->held || e->borrows == 0) {
      // The frame went back to the pool at commit: nothing left to give back.
      guard.pool_->ReportMtrViolation("a borrowed page guard outlived its mini-transaction", guard.id_);
      return true;
    }
    --e->borrows;
    return true;
  }
  // A modified exclusive guard of a pool with a logger.
  if (mtr == nullptr) {
    guard.pool_->ReportMtrViolation("a changed page was released outside a mini-transaction",
                                    guard.id_);
    return false;
  }
  Entry* e = mtr->Find(guard.frame_);
  if (e == nullptr) {
    // Changed before this mtr began (or in one that committed meanwhile):
    // no before-image, so the whole page is logged.
    guard.pool_->ReportMtrViolation("a page changed before its mini-transaction began", guard.id_);
    Entry full;
    full.frame = guard.frame_;
    full.id = guard.id_;
    full.data = guard.data_;
    full.full = true;
    e = &mtr->entries_.push_back(full);
  }
  e->held = true;
  return true;
}

Status Mtr::Commit() {
  if (!owner_) return Status::OK();
  Status first;
  if (!frees_.empty()) {
    // Ascending, so bitmap pages are visited in order.
    std::sort(frees_.begin(), frees_.end(),
              [](PageId a, PageId b) { return a.Packed() < b.Packed(); });
    for (size_t i = 0; i < frees_.size(); ++i) {
      Status s = pool_->MarkPageFree(frees_[i].space, frees_[i].page);
      if (!s.ok() && first.ok()) first = s;
    }
    frees_.clear();
  }

  std::string payload;
  payload.swap(t_payload);  // reuse its capacity
  payload.clear();
  for (Entry& e : entries_) {
    if (!e.held) {
      // Its guard is still out: it is logged, but stays latched by the guard.
      pool_->ReportMtrViolation("a changed page's guard is still held when its mini-transaction commits",
                                e.id);
    }
    if (e.borrows != 0) {
      pool_->ReportMtrViolation("a borrowed page guard is still held when its mini-transaction commits",
                                e.id);
    }
    e.logged = AppendDiff(e, &payload);
  }
  if (!payload.empty()) {
    struct StampContext {
      Mtr* mtr;
      uint64_t framed;
      bool stamped;
    } ctx{this, RedoLog::FramedSize(payload.size()), false};
    // One pointer captured: std::function keeps it inline (no allocation).
    const std::function<void(uint64_t)> stamp = [c = &ctx](uint64_t end_lsn) {
      const uint64_t start_lsn = end_lsn >= c->framed ? end_lsn - c->framed : 0;
      for (Entry& e : c->mtr->entries_) {
        if (e.logged) BufferPool::StampFrame(e.frame, start_lsn, end_lsn);
      }
      c->stamped = true;
    };
    Status s = pool_->options_.mtr_log(std::string_view(payload), stamp);
    if (!s.ok()) {
      if (first.ok()) first = s;
    } else if (!ctx.stamped) {
      pool_->ReportMtrViolation("the mtr logger returned without stamping the pages", entries_[0].id);
    }
  }
  payload.swap(t_payload);

  for (Entry& e : entries_) {
    if (e.before != nullptr) ReturnPageBuffer(e.before);
    if (e.held) pool_->ReleaseHeld(e.frame);
  }
  entries_.clear();
  owner_ = false;
  if (t_top == this) {
    t_top = prev_;
  } else {
    for (Mtr* m = t_top; m != nullptr; m = m->prev_) {
      if (m->prev_ == this) {
        m->prev_ = prev_;
        break;
      }
    }
  }
  prev_ = nullptr;
  return first;
}

}  // namespace sluice::storage
