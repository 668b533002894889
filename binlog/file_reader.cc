// BinlogFileReader: whole events from one binlog file (see file_reader.h).
//
// Reads go through an io::File with a 64 KiB read-ahead buffer of the
// reader's own. A short read (the end of the file) keeps what it got, and a
// later read past the buffer reads the file again, so a file that grows (the
// active binlog) can be read further once more bytes are there. The buffer is
// filled only up to the limit set at the time (the published end of the
// active file): bytes past it may still be cut back by a failed group
// commit and written again, so they are never kept.
#include "binlog/file_reader.h"

#include <algorithm>
#include <cstring>

#include "binlog/bytes_internal.h"

namespace sluice::binlog {

namespace {

// MySQL caps events at max_allowed_packet (at most 1 GiB); a larger size in
// a header is garbage, not an event still being written.
constexpr uint64_t kMaxEventSize = uint64_t{1} << 30;
constexpr size_t kBufferSize = 64 * 1024;

std::string Where(uint64_t offset) { return " at offset " + std::to_string(offset); }

}  // namespace

BinlogFileReader::~BinlogFileReader() = default;

Status BinlogFileReader::ReadAt(uint64_t offset, char* out, size_t n, size_t* got) {
  *got = 0;
  if (offset >= buf_offset_ && offset + n <= buf_offset_ + buf_.size()) {
    std::memcpy(out, buf_.data() + (offset - buf_offset_), n);
    *got = n;
    return Status::OK();
  }
  if (n >= kBufferSize) {  // a large event: straight into the caller's memory
    Result<size_t> r = file_->ReadAt(offset, out, n);
    if (!r.ok()) return Status::IOError("cannot read binlog file" + Where(offset) + ": " + r.status().message());
    *got = *r;
    return Status::OK();
  }
  size_t want = kBufferSize;
  if (limit_ > offset) want = static_cast<size_t>(std::min<uint64_t>(want, limit_ - offset));
  want = std::max(want, n);
  buf_.resize(want);
  Result<size_t> r = file_->ReadAt(offset, buf_.data(), want);
  if (!r.ok()) {
    buf_.clear();
    return Status::IOError("cannot read binlog file" + Where(offset) + ": " + r.status().message());
  }
  buf_.resize(*r);
  buf_offset_ = offset;
  *got = std::min(n, buf_.size());
  std::memcpy(out, buf_.data(), *got);
  return Status::OK();
}

Result<std::unique_ptr<BinlogFileReader>> BinlogFileReader::Open(const std::string& path, bool verify_checksums,
                                                                 io::FileSystem* fs) {
  Result<std::unique_ptr<io::File>> f =
      (fs != nullptr ? *fs : io::DefaultFileSystem()).Open(path, io::OpenMode::kReadOnly);
  if (!f.ok()) return Status::IOError("cannot open binlog file '" + path + "': " + f.status().message());
  std::unique_ptr<BinlogFileReader> r(new BinlogFileReader());
  r->file_ = std::move(*f);
  r->verify_ = verify_checksums;
  Result<uint64_t> size = r->file_->Size();
  r->file_size_ = size.ok() ? *size : 0;  // 0: reads then find the end

  char magic[4] = {0, 0, 0, 0};
  size_t got = 0;
  SLUICE_RETURN_IF_ERROR(r->ReadAt(0, magic, 4, &got));
  if (got != 4 || std::memcmp(magic, kBinlogMagic, 4) != 0) {
    if (r->file_size_ >= 4 && std::memcmp(magic, "\xfd" "bin", 4) == 0) {
      return Status::NotSupported("binlog file '" + path + "' is encrypted");
    }
    return Status::Corruption("Binlog has bad magic number; It's not a binary log file that can be used by this "
                              "version of MySQL ('" + path + "')");
  }

  // The Format_description: read it through Next() (which verifies its CRC
  // and size), then rewind so that Next() hands it out first.
  r->pos_ = 4;
  r->valid_end_ = 4;
  Result<std::optional<Event>> fde = r->Next();
  if (!fde.ok()) return fde.status();
  if (!fde->has_value()) {
    // A crash right after creating the file: the magic and at most part of
    // the FDE. Open succeeds (recovery wants valid_end() == 4), format() is
    // the default and Next() reports the end at once with truncated().
    SLUICE_RETURN_IF_ERROR(r->Seek(4));
    r->truncated_ = true;
    return r;
  }
  const Event& ev = **fde;
  if (ev.header.type != kFormatDescriptionEvent) {
    return Status::Corruption("binlog file '" + path + "' does not start with a Format_description event");
  }
  Result<FormatDescription> fd = DecodeFormatDescription(ev.bytes);
  if (!fd.ok()) return fd.status();
  r->fd_ = std::move(*fd);
  SLUICE_RETURN_IF_ERROR(r->Seek(4));
  return r;
}

Status BinlogFileReader::Seek(uint64_t offset) {
  if (offset < 4) {
    return Status::InvalidArgument("binlog position " + std::to_string(offset) + " is before the first event");
  }
  pos_ = offset;
  valid_end_ = offset;
  truncated_ = false;
  return Status::OK();
}

Result<std::optional<BinlogFileReader::Event>> BinlogFileReader::Next() {
  Event ev;
  Result<bool> got = Next(&ev);
  if (!got.ok()) return got.status();
  if (!*got) return std::optional<Event>();
  return std::optional<Event>(std::move(ev));
}

Result<bool> BinlogFileReader::Next(Event* out) {
  using internal::LoadLE;
  if (pos_ >= limit_) {
    valid_end_ = pos_;
    return false;
  }
  // Whatever the file had when opened may have grown since (the active file).
  if (pos_ + kHeaderLen > file_size_) RefreshSize();

  char head[kHeaderLen];
  size_t got = 0;
  SLUICE_RETURN_IF_ERROR(ReadAt(pos_, head, kHeaderLen, &got));
  if (got == 0) {  // clean end of file
    valid_end_ = pos_;
    return false;
  }
  if (got < kHeaderLen) {  // part of a header: a crash mid-write
    valid_end_ = pos_;
    truncated_ = true;
    return false;
  }
  const uint64_t size = LoadLE(head + 9, 4);
  if (size < kHeaderLen || size > kMaxEventSize) {
    return Status::Corruption("binlog event has a bad event_size " + std::to_string(size) + Where(pos_));
  }
  if (pos_ + size > file_size_) RefreshSize();
  if (pos_ + size > file_size_) {  // the file ends inside this event
    valid_end_ = pos_;
    truncated_ = true;
    return false;
  }
  if (pos_ + size > limit_) {
    return Status::Corruption("binlog event of " + std::to_string(size) + " bytes" + Where(pos_) +
                              " runs past the readable end " + std::to_string(limit_));
  }

  Event& ev = *out;
  ev.offset = pos_;
  ev.bytes.resize(size);  // reuses the capacity of the caller's last event
  std::memcpy(ev.bytes.data(), head, kHeaderLen);
  SLUICE_RETURN_IF_ERROR(ReadAt(pos_ + kHeaderLen, ev.bytes.data() + kHeaderLen, size - kHeaderLen, &got));
  if (got < size - kHeaderLen) {  // the file shrank under us
    valid_end_ = pos_;
    truncated_ = true;
    return false;
  }
  Result<EventHeader> h = ParseHeader(ev.bytes);
  if (!h.ok()) return h.status();
  ev.header = *h;

  // The Format_description always carries a CRC (even when it announces
  // OFF); the other events carry one when it announces CRC32.
  const bool has_crc = ev.header.type == kFormatDescriptionEvent || fd_.checksum == Checksum::kCrc32;
  if (verify_ && has_crc) {
    if (size < kHeaderLen + kChecksumLen || !VerifyChecksum(ev.bytes)) {
      return Status::Corruption("binlog event" + Where(pos_) + " (type " + std::to_string(ev.header.type) +
                                ") has a bad checksum");
    }
  }
  pos_ += size;
  valid_end_ = pos_;
  return true;
}

}  // namespace sluice::binlog
