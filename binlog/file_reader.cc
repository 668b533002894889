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

Status BinlogFileReader::Fill(uint64_t offset, size_t n) {
  size_t want = kBufferSize;
  if (limit_ > offset) want = static_cast<size_t>(std::min<uint64_t>(want, limit_ - offset));
  want = std::max(want, n);  // n < kBufferSize (Window)
  if (!buf_) buf_.reset(new char[kBufferSize]);
  buf_len_ = 0;
  Result<size_t> r = file_->ReadAt(offset, buf_.get(), want);
  if (!r.ok()) return Status::IOError("cannot read binlog file" + Where(offset) + ": " + r.status().message());
  buf_len_ = *r;
  buf_offset_ = offset;
  return Status::OK();
}

Result<const char*> BinlogFileReader::Window(uint64_t offset, size_t n, size_t* got) {
  *got = 0;
  if (offset >= buf_offset_ && offset + n <= buf_offset_ + buf_len_) {
    *got = n;
    return static_cast<const char*>(buf_.get() + (offset - buf_offset_));
  }
  if (n >= kBufferSize) {  // a large event: a buffer of its own
    large_.resize(n);
    Result<size_t> r = file_->ReadAt(offset, large_.data(), n);
    if (!r.ok()) return Status::IOError("cannot read binlog file" + Where(offset) + ": " + r.status().message());
    *got = *r;
    return static_cast<const char*>(large_.data());
  }
  SLUICE_RETURN_IF_ERROR(Fill(offset, n));
  *got = std::min(n, buf_len_);
  return static_cast<const char*>(buf_.get());
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

  size_t got = 0;
  Result<const char*> magic = r->Window(0, 4, &got);
  if (!magic.ok()) return magic.status();
  if (got != 4 || std::memcmp(*magic, kBinlogMagic, 4) != 0) {
    if (r->file_size_ >= 4 && got == 4 && std::memcmp(*magic, "\xfd" "bin", 4) == 0) {
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
  EventView v;
  Result<bool> got = NextView(&v);
  if (!got.ok() || !*got) return got;
  out->offset = v.offset;
  out->header = v.header;
  out->bytes.assign(v.bytes);  // reuses the capacity of the caller's last event
  return true;
}

Result<bool> BinlogFileReader::NextView(EventView* out) {
  using internal::LoadLE;
  // The last event's own buffer (one larger than buf_) is not kept.
  if (!large_.empty()) std::string().swap(large_);
  if (pos_ >= limit_) {
    valid_end_ = pos_;
    return false;
  }
  // Whatever the file had when opened may have grown since (the active file).
  if (pos_ + kHeaderLen > file_size_) RefreshSize();

  size_t got = 0;
  Result<const char*> head = Window(pos_, kHeaderLen, &got);
  if (!head.ok()) return head.status();
  if (got == 0) {  // clean end of file
    valid_end_ = pos_;
    return false;
  }
  if (got < kHeaderLen) {  // part of a header: a crash mid-write
    valid_end_ = pos_;
    truncated_ = true;
    return false;
  }
  const uint64_t size = LoadLE(*head + 9, 4);
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

  Result<const char*> whole = Window(pos_, static_cast<size_t>(size), &got);
  if (!whole.ok()) return whole.status();
  if (got < size) {  // the file shrank under us
    valid_end_ = pos_;
    truncated_ = true;
    return false;
  }
  const std::string_view bytes(*whole, static_cast<size_t>(size));
  Result<EventHeader> h = ParseHeader(bytes);
  if (!h.ok()) return h.status();

  // The Format_description always carries a CRC (even when it announces
  // OFF); the other events carry one when it announces CRC32.
  const bool has_crc = h->type == kFormatDescriptionEvent || fd_.checksum == Checksum::kCrc32;
  if (verify_ && has_crc) {
    if (size < kHeaderLen + kChecksumLen || !VerifyChecksum(bytes)) {
      return Status::Corruption("binlog event" + Where(pos_) + " (type " + std::to_string(h->type) +
                                ") has a bad checksum");
    }
  }
  out->offset = pos_;
  out->header = *h;
  out->bytes = bytes;
  pos_ += size;
  valid_end_ = pos_;
  return true;
}

Result<bool> BinlogFileReader::NextRun(EventRun* out) {
  using internal::LoadLE;
  EventView first;
  Result<bool> got = NextView(&first);
  if (!got.ok() || !*got) return got;
  out->offset = first.offset;
  out->last_offset = first.offset;
  out->count = 1;
  size_t len = first.bytes.size();
  // An event read into large_ stands alone; the others lie in buf_, and so
  // do the events after them up to the buffer's end.
  if (large_.empty()) {
    const uint64_t buf_end = buf_offset_ + buf_len_;
    const uint64_t end = std::min({buf_end, limit_, file_size_});
    const bool has_crc = fd_.checksum == Checksum::kCrc32;
    for (;;) {
      const uint64_t at = pos_;
      if (at + kHeaderLen > end) break;
      const char* const event = buf_.get() + (at - buf_offset_);
      const uint64_t size = LoadLE(event + 9, 4);
      if (size < kHeaderLen || at + size > end) break;
      const bool crc = has_crc || static_cast<uint8_t>(event[4]) == kFormatDescriptionEvent;
      if (verify_ && crc &&
          (size < kHeaderLen + kChecksumLen || !VerifyChecksum(std::string_view(event, static_cast<size_t>(size))))) {
        break;
      }
      out->last_offset = at;
      ++out->count;
      len += static_cast<size_t>(size);
      pos_ = at + size;
    }
    valid_end_ = pos_;
  }
  out->bytes = std::string_view(first.bytes.data(), len);
  return true;
}

}  // namespace sluice::binlog
