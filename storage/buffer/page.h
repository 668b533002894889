// storage/buffer/page.h
//
// The 16 KiB page every tablespace is made of, and its common header.
// All multi-byte fields on disk are little-endian.
//
//   offset size field
//   0      4    checksum   zlib crc32 of bytes [4, kPageSize), set on write-back
//   4      4    space_id
//   8      4    page_no
//   12     2    page_type  (PageType)
//   14     2    reserved (0)
//   16     8    page_lsn   LSN of the redo record of the page's last change
//   24     8    reserved (0)
//   32          body, owned by whoever allocated the page (B-tree node, ...)
//
// The page size and this layout are stored on disk: never change them.
// A page whose 16 KiB are all zero is "never written" (allocated, then a
// crash before its first write-back): it verifies as OK with type kUnwritten
// and the layer above decides what that means.
//
// Thread-safety: free functions on caller-owned memory.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>

#include "base/status.h"

namespace sluice::storage {

inline constexpr size_t kPageSize = 16384;
inline constexpr uint32_t kInvalidPageNo = 0xFFFFFFFF;

// Stored on disk; never renumber. Later parts add their types here.
enum class PageType : uint16_t {
  kUnwritten = 0,     // all zero: never written
  kSpaceHeader = 1,   // page 0 of every tablespace (and its first allocation bitmap)
  kSpaceBitmap = 2,   // allocation bitmap of a later group of pages
  kBTreeNode = 3,     // storage/btree
  kOverflow = 4,      // storage/btree/overflow.h: part of a value stored off its record's page
};

inline constexpr size_t kPageChecksumOffset = 0;
inline constexpr size_t kPageSpaceIdOffset = 4;
inline constexpr size_t kPageNoOffset = 8;
inline constexpr size_t kPageTypeOffset = 12;
inline constexpr size_t kPageLsnOffset = 16;
inline constexpr size_t kPageHeaderSize = 32;

struct PageId {
  uint32_t space = 0;
  uint32_t page = 0;

  uint64_t Packed() const { return (uint64_t{space} << 32) | page; }
  static PageId FromPacked(uint64_t v) {
    return PageId{static_cast<uint32_t>(v >> 32), static_cast<uint32_t>(v)};
  }
  friend bool operator==(PageId a, PageId b) { return a.Packed() == b.Packed(); }
};

// Little-endian loads and stores at unaligned addresses.
static_assert(std::endian::native == std::endian::little, "page codec assumes little-endian");
inline uint16_t LoadU16(const char* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }
inline uint32_t LoadU32(const char* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
inline uint64_t LoadU64(const char* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }
inline void StoreU16(char* p, uint16_t v) { std::memcpy(p, &v, 2); }
inline void StoreU32(char* p, uint32_t v) { std::memcpy(p, &v, 4); }
inline void StoreU64(char* p, uint64_t v) { std::memcpy(p, &v, 8); }

inline PageType GetPageType(const char* page) {
  return static_cast<PageType>(LoadU16(page + kPageTypeOffset));
}
inline uint64_t GetPageLsn(const char* page) { return LoadU64(page + kPageLsnOffset); }

// Zeroes `page` and writes its header (checksum left 0, LSN 0).
void InitPage(char* page, PageId id, PageType type);

// crc32 of bytes [4, kPageSize).
uint32_t ComputePageChecksum(const char* page);
void StampPageChecksum(char* page);

// OK when `page` (kPageSize bytes read from disk) is intact and is page
// `expected`, or is all zero. Corruption, naming the page, on a checksum
// mismatch or when the header names another page (a misdirected write).
Status VerifyPage(const char* page, PageId expected);

}  // namespace sluice::storage

template <>
struct std::hash<sluice::storage::PageId> {
  size_t operator()(sluice::storage::PageId id) const noexcept {
    // Fibonacci hashing spreads consecutive page numbers across shards.
    return static_cast<size_t>((id.Packed() * 0x9E3779B97F4A7C15ull) >> 17);
  }
};
