#include "storage/btree/overflow.h"

#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "storage/buffer/mtr.h"

namespace sluice::storage {

namespace {

constexpr uint8_t kRefVersion = 1;

Status ChainChanged(uint32_t space_id, uint32_t page_no) {
  return Status::Corruption(
      fmt::format("overflow chain changed while read: page {} of space {} is not part of it", page_no, space_id));
}

// The page's chain fields, checked against `tag`.
struct ChainPage {
  uint32_t next = 0;
  uint32_t used = 0;
};
Result<ChainPage> CheckChainPage(const PageGuard& page, uint64_t tag) {
  const char* d = page.data();
  if (page.type() != PageType::kOverflow || LoadU64(d + kOverflowTagOffset) != tag) {
    return ChainChanged(page.id().space, page.id().page);
  }
  ChainPage p{LoadU32(d + kOverflowNextOffset), LoadU32(d + kOverflowUsedOffset)};
  if (p.used == 0 || p.used > kOverflowPayload) return ChainChanged(page.id().space, page.id().page);
  return p;
}

}  // namespace

std::string EncodeOverflowRef(const OverflowRef& ref) {
  std::string out(kOverflowRefSize, '\0');
  out[0] = static_cast<char>(kRefVersion);
  StoreU32(out.data() + 1, ref.first_page);
  StoreU64(out.data() + 5, ref.length);
  StoreU64(out.data() + 13, ref.tag);
  return out;
}

Result<OverflowRef> DecodeOverflowRef(std::string_view bytes) {
  if (bytes.size() != kOverflowRefSize || static_cast<uint8_t>(bytes[0]) != kRefVersion) {
    return Status::Corruption("bad overflow reference");
  }
  OverflowRef ref;
  ref.first_page = LoadU32(bytes.data() + 1);
  ref.length = LoadU64(bytes.data() + 5);
  ref.tag = LoadU64(bytes.data() + 13);
  if (ref.first_page == 0 || ref.length == 0) return Status::Corruption("bad overflow reference");
  return ref;
}

Result<OverflowRef> WriteOverflow(BufferPool* pool, uint32_t space_id, std::string_view value, uint64_t tag) {
  if (value.empty()) return Status::InvalidArgument("overflow: empty value");
  const size_t pages = (value.size() + kOverflowPayload - 1) / kOverflowPayload;
  // Last page first: each page is written once, complete, with its successor.
  uint32_t next = 0;
  size_t i = pages;
  while (i > 0) {
    Mtr mtr(pool);
    for (size_t n = 0; n < kOverflowPagesPerMtr && i > 0; ++n) {
      --i;
      const size_t begin = i * kOverflowPayload;
      const std::string_view chunk = value.substr(begin, kOverflowPayload);
      Result<PageGuard> page = pool->NewPage(space_id, PageType::kOverflow);
      if (!page.ok()) {
        // The pages written so far go (the caller has no reference to them).
        (void)mtr.Commit();
        if (next != 0) (void)FreeOverflow(pool, space_id, OverflowRef{next, value.size() - begin - chunk.size(), tag});
        return page.status();
      }
      char* d = page->mutable_data();
      StoreU64(d + kOverflowTagOffset, tag);
      StoreU32(d + kOverflowNextOffset, next);
      StoreU32(d + kOverflowUsedOffset, static_cast<uint32_t>(chunk.size()));
      std::memcpy(d + kOverflowDataOffset, chunk.data(), chunk.size());
      next = page->id().page;
      page->Release();
    }
    Status s = mtr.Commit();
    if (!s.ok()) return s;  // redo failed: sticky, the pages never reach disk
  }
  return OverflowRef{next, value.size(), tag};
}

Result<std::string> ReadOverflow(BufferPool* pool, uint32_t space_id, const OverflowRef& ref) {
  std::string out;
  out.reserve(ref.length);
  uint32_t page_no = ref.first_page;
  while (page_no != 0) {
    Result<PageGuard> page = pool->Fetch(PageId{space_id, page_no}, LatchMode::kShared);
    if (!page.ok()) return page.status();
    Result<ChainPage> p = CheckChainPage(*page, ref.tag);
    if (!p.ok()) return p.status();
    if (out.size() + p->used > ref.length) return ChainChanged(space_id, page_no);
    out.append(page->data() + kOverflowDataOffset, p->used);
    page_no = p->next;
  }
  if (out.size() != ref.length) return ChainChanged(space_id, ref.first_page);
  return out;
}

Status FreeOverflow(BufferPool* pool, uint32_t space_id, const OverflowRef& ref) {
  uint32_t page_no = ref.first_page;
  while (page_no != 0) {
    Mtr mtr(pool);
    Status s;
    for (size_t n = 0; n < kOverflowPagesPerMtr && page_no != 0; ++n) {
      Result<PageGuard> page = pool->Fetch(PageId{space_id, page_no}, LatchMode::kExclusive);
      if (!page.ok()) {
        s = page.status();
        break;
      }
      Result<ChainPage> p = CheckChainPage(*page, ref.tag);
      if (!p.ok()) {
        s = p.status();
        break;
      }
      page_no = p->next;
      s = pool->FreePage(std::move(page).value());
      if (!s.ok()) break;
    }
    Status committed = mtr.Commit();
    if (!s.ok()) return s;
    if (!committed.ok()) return committed;
  }
  return Status::OK();
}

}  // namespace sluice::storage
