// storage/buffer/tablespace.cc
#include "storage/buffer/tablespace.h"

#include <fmt/format.h>

namespace sluice::storage {

Result<std::unique_ptr<Tablespace>> Tablespace::Create(io::FileSystem* fs, const std::string& path,
                                                       uint32_t space_id, uint32_t pages_per_group) {
  if (pages_per_group == 0 || pages_per_group % 64 != 0 || pages_per_group > kMaxPagesPerGroup) {
    return Status::InvalidArgument(fmt::format("bad pages per bitmap group {}", pages_per_group));
  }
  auto file = fs->Open(path, io::OpenMode::kCreateNew);
  if (!file.ok()) return file.status();
  auto page = std::make_unique<char[]>(kPageSize);
  InitPage(page.get(), PageId{space_id, 0}, PageType::kSpaceHeader);
  StoreU64(page.get() + kSpaceMagicOffset, kSpaceMagic);
  StoreU32(page.get() + kSpaceVersionOffset, kSpaceFormatVersion);
  StoreU32(page.get() + kSpacePageSizeOffset, kPageSize);
  StoreU32(page.get() + kSpaceIdCopyOffset, space_id);
  StoreU32(page.get() + kSpacePageCountOffset, 1);
  StoreU32(page.get() + kSpaceFreeCountOffset, 0);
  StoreU32(page.get() + kSpacePagesPerGroupOffset, pages_per_group);
  std::unique_ptr<Tablespace> space(new Tablespace(std::move(*file), space_id, pages_per_group));
  SLUICE_RETURN_IF_ERROR(space->WritePage(0, page.get()));
  SLUICE_RETURN_IF_ERROR(space->Sync());
  return space;
}

Result<std::unique_ptr<Tablespace>> Tablespace::Open(io::FileSystem* fs, const std::string& path) {
  auto file = fs->Open(path, io::OpenMode::kOpenExisting);
  if (!file.ok()) return file.status();
  auto page = std::make_unique<char[]>(kPageSize);
  auto n = (*file)->ReadAt(0, page.get(), kPageSize);
  if (!n.ok()) return n.status();
  if (*n != kPageSize) {
    return Status::Corruption(fmt::format("tablespace '{}' is too short for its header page", path));
  }
  uint32_t space_id = LoadU32(page.get() + kPageSpaceIdOffset);
  SLUICE_RETURN_IF_ERROR(VerifyPage(page.get(), PageId{space_id, 0}));
  if (GetPageType(page.get()) != PageType::kSpaceHeader ||
      LoadU64(page.get() + kSpaceMagicOffset) != kSpaceMagic ||
      LoadU32(page.get() + kSpaceIdCopyOffset) != space_id) {
    return Status::Corruption(fmt::format("'{}' is not a sluice tablespace", path));
  }
  const uint32_t group = LoadU32(page.get() + kSpacePagesPerGroupOffset);
  if (group == 0 || group % 64 != 0 || group > kMaxPagesPerGroup) {
    return Status::Corruption(fmt::format("tablespace '{}' has a bad bitmap group size {}", path, group));
  }
  if (LoadU32(page.get() + kSpaceVersionOffset) != kSpaceFormatVersion ||
      LoadU32(page.get() + kSpacePageSizeOffset) != kPageSize) {
    return Status::Corruption(fmt::format(
        "tablespace '{}' has format version {} and page size {}; this build reads version {} with "
        "page size {}",
        path, LoadU32(page.get() + kSpaceVersionOffset), LoadU32(page.get() + kSpacePageSizeOffset),
        kSpaceFormatVersion, kPageSize));
  }
  return std::unique_ptr<Tablespace>(new Tablespace(std::move(*file), space_id, group));
}

Status Tablespace::ReadPage(uint32_t page_no, char* buf) {
  auto n = file_->ReadAt(uint64_t{page_no} * kPageSize, buf, kPageSize);
  if (!n.ok()) return n.status();
  if (*n == 0) {
    std::memset(buf, 0, kPageSize);
    return Status::OK();
  }
  if (*n != kPageSize) {
    return Status::Corruption(fmt::format("space {} page {} is cut short at the end of '{}'",
                                          space_id_, page_no, path()));
  }
  Status s = VerifyPage(buf, PageId{space_id_, page_no});
  if (!s.ok()) return Status::Corruption(s.message() + fmt::format(" (file '{}')", path()));
  return Status::OK();
}

Status Tablespace::WritePage(uint32_t page_no, char* buf) {
  StampPageChecksum(buf);
  return file_->WriteAt(uint64_t{page_no} * kPageSize, std::string_view(buf, kPageSize));
}

Status Tablespace::Sync() { return file_->Sync(); }

}  // namespace sluice::storage
