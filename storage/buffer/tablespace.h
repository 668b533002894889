// storage/buffer/tablespace.h
//
// A tablespace: one file of 16 KiB pages (storage/buffer/page.h), page N at
// byte offset N * kPageSize. Page 0 is the space header:
//
//   offset size field (after the common 32-byte page header)
//   32     8    magic "SLUICEsp"
//   40     4    format version (1)
//   44     4    page size (16384)
//   48     4    space id (again)
//   52     4    page_count: pages [0, page_count) have been allocated at
//                least once; the file may be shorter (pages never written)
//   56     4    free_count: pages below page_count marked free
//   60     4    pages_per_group: pages one allocation bitmap covers
//   64     pages_per_group / 8 bytes: the bitmap of group 0
//
// Allocation bitmaps: the pages are split in groups of pages_per_group;
// group g's bitmap lives in page g * pages_per_group (page 0 for group 0, a
// kSpaceBitmap page at the same offset 64 for the others), and bit i set
// means page g * pages_per_group + i is free. Bitmap pages are never handed
// out. A bitmap page that was never written (all zero) has no free page.
// Pages at or above page_count are unallocated; the space grows by raising
// page_count. Allocation itself lives in BufferPool (NewPage/FreePage),
// because it changes these pages through the buffer pool like any other
// page change (so the redo log will describe it the same way). This class
// is only raw page I/O with checksums.
//
// Stored on disk; never change the layout.
//
// Thread-safety: ReadPage/WritePage/Sync may run concurrently from any
// thread (pread/pwrite). Ownership: owns its File.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "storage/buffer/page.h"
#include "base/io/file_system.h"

namespace sluice::storage {

// Space header fields (page 0), byte offsets in the page.
inline constexpr size_t kSpaceMagicOffset = 32;
inline constexpr size_t kSpaceVersionOffset = 40;
inline constexpr size_t kSpacePageSizeOffset = 44;
inline constexpr size_t kSpaceIdCopyOffset = 48;
inline constexpr size_t kSpacePageCountOffset = 52;
inline constexpr size_t kSpaceFreeCountOffset = 56;
inline constexpr size_t kSpacePagesPerGroupOffset = 60;
// Where the bitmap starts in page 0 and in every kSpaceBitmap page.
inline constexpr size_t kSpaceBitmapOffset = 64;
inline constexpr uint64_t kSpaceMagic = 0x70734543494c5553ull;  // "SLUICEsp"
inline constexpr uint32_t kSpaceFormatVersion = 1;
// 1 GiB of pages per bitmap page; the bitmap takes 8 KiB of it.
inline constexpr uint32_t kDefaultPagesPerGroup = 65536;
inline constexpr uint32_t kMaxPagesPerGroup = 8 * (kPageSize - kSpaceBitmapOffset) / 64 * 64;

class Tablespace {
 public:
  // Creates `path` (it must not exist), writes page 0 and syncs.
  // `pages_per_group` (a multiple of 64, at most kMaxPagesPerGroup) is
  // stored in the file; tests use small groups to exercise bitmap pages.
  static Result<std::unique_ptr<Tablespace>> Create(io::FileSystem* fs, const std::string& path,
                                                    uint32_t space_id,
                                                    uint32_t pages_per_group = kDefaultPagesPerGroup);
  // Opens an existing tablespace; Corruption when page 0 is not a valid
  // space header (bad checksum, magic, version, page size or group size).
  static Result<std::unique_ptr<Tablespace>> Open(io::FileSystem* fs, const std::string& path);

  Tablespace(const Tablespace&) = delete;
  Tablespace& operator=(const Tablespace&) = delete;

  uint32_t space_id() const { return space_id_; }
  uint32_t pages_per_group() const { return pages_per_group_; }
  const std::string& path() const { return file_->path(); }

  // Reads page `page_no` into `buf` (kPageSize bytes) and verifies it
  // (VerifyPage). A page past the end of the file reads as all zero (never
  // written). Corruption on a checksum mismatch, a misdirected page or a
  // partial page at the end of the file; IOError when the read fails.
  Status ReadPage(uint32_t page_no, char* buf);

  // Stamps the checksum into `buf` and writes it as page `page_no`.
  Status WritePage(uint32_t page_no, char* buf);

  Status Sync();

 private:
  Tablespace(std::unique_ptr<io::File> file, uint32_t space_id, uint32_t pages_per_group)
      : file_(std::move(file)), space_id_(space_id), pages_per_group_(pages_per_group) {}

  const std::unique_ptr<io::File> file_;
  const uint32_t space_id_;
  const uint32_t pages_per_group_;
};

}  // namespace sluice::storage
