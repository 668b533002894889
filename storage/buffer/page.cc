// storage/buffer/page.cc
#include "storage/buffer/page.h"

#include <zlib.h>

#include <fmt/format.h>

namespace sluice::storage {

void InitPage(char* page, PageId id, PageType type) {
  std::memset(page, 0, kPageSize);
  StoreU32(page + kPageSpaceIdOffset, id.space);
  StoreU32(page + kPageNoOffset, id.page);
  StoreU16(page + kPageTypeOffset, static_cast<uint16_t>(type));
}

uint32_t ComputePageChecksum(const char* page) {
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, reinterpret_cast<const Bytef*>(page + 4), static_cast<uInt>(kPageSize - 4));
  return static_cast<uint32_t>(crc);
}

void StampPageChecksum(char* page) { StoreU32(page + kPageChecksumOffset, ComputePageChecksum(page)); }

namespace {
bool AllZero(const char* page) {
  // Word-at-a-time scan; pages are at least 8-byte aligned in practice but
  // LoadU64 does not rely on it.
  for (size_t i = 0; i < kPageSize; i += 8) {
    if (LoadU64(page + i) != 0) return false;
  }
  return true;
}
}  // namespace

Status VerifyPage(const char* page, PageId expected) {
  uint32_t stored = LoadU32(page + kPageChecksumOffset);
  uint32_t computed = ComputePageChecksum(page);
  if (stored != computed) {
    if (stored == 0 && AllZero(page)) return Status::OK();
    return Status::Corruption(fmt::format(
        "page checksum mismatch in space {} page {}: stored {:#010x}, computed {:#010x}",
        expected.space, expected.page, stored, computed));
  }
  uint32_t space = LoadU32(page + kPageSpaceIdOffset);
  uint32_t page_no = LoadU32(page + kPageNoOffset);
  if (space != expected.space || page_no != expected.page) {
    return Status::Corruption(fmt::format(
        "misdirected page: read space {} page {} and found the header of space {} page {}",
        expected.space, expected.page, space, page_no));
  }
  return Status::OK();
}

}  // namespace sluice::storage
