// BinlogFileReader: whole events from one binlog file (see file_reader.h).
//
// Reads go through std::FILE with a 64 KiB buffer; the reader keeps its own
// position and re-seeks after a short read, so a file that grows (the active
// binlog) can be read further once more bytes are there.
#include "binlog/file_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "binlog/bytes_internal.h"

namespace sluice::binlog {

namespace {

// MySQL caps events at max_allowed_packet (at most 1 GiB); a larger size in
// a header is garbage, not an event still being written.
constexpr uint64_t kMaxEventSize = uint64_t{1} << 30;
constexpr size_t kBufferSize = 64 * 1024;

std::string Where(uint64_t offset) { return " at offset " + std::to_string(offset); }

// The file's current size (0 when fstat fails: reads then find the end).
uint64_t FileSize(std::FILE* f) {
  struct stat st;
  return ::fstat(fileno(f), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// Reads up to `n` bytes at `offset`; `*got` < n at the end of the file.
// The FILE is normally at `offset` already (sequential reads); it is
// re-seeked when not, and a short read clears EOF so that a growing file
// can be read further later.
Status ReadAt(std::FILE* f, uint64_t offset, char* out, size_t n, size_t* got) {
  if (ftello(f) != static_cast<off_t>(offset) && fseeko(f, static_cast<off_t>(offset), SEEK_SET) != 0) {
    const int err = errno;
    return Status::IOError("cannot seek in binlog file: " + std::string(std::strerror(err)));
  }
  *got = std::fread(out, 1, n, f);
  if (*got < n) {
    const bool error = std::ferror(f) != 0;
    const int err = errno;
    std::clearerr(f);
    if (error) return Status::IOError("cannot read binlog file" + Where(offset) + ": " + std::strerror(err));
  }
  return Status::OK();
}

}  // namespace

BinlogFileReader::~BinlogFileReader() {
  if (file_ != nullptr) std::fclose(file_);
}

Result<std::unique_ptr<BinlogFileReader>> BinlogFileReader::Open(const std::string& path, bool verify_checksums) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    return Status::IOError("cannot open binlog file '" + path + "': " + std::strerror(err));
  }
  std::unique_ptr<BinlogFileReader> r(new BinlogFileReader());
  r->file_ = f;
  r->verify_ = verify_checksums;
  std::setvbuf(f, nullptr, _IOFBF, kBufferSize);
  r->file_size_ = FileSize(f);

  char magic[4] = {0, 0, 0, 0};
  if (std::fread(magic, 1, 4, f) != 4 || std::memcmp(magic, kBinlogMagic, 4) != 0) {
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
  if (fseeko(file_, static_cast<off_t>(offset), SEEK_SET) != 0) {
    const int err = errno;
    return Status::IOError("cannot seek in binlog file: " + std::string(std::strerror(err)));
  }
  pos_ = offset;
  valid_end_ = offset;
  truncated_ = false;
  return Status::OK();
}

Result<std::optional<BinlogFileReader::Event>> BinlogFileReader::Next() {
  using internal::LoadLE;
  if (pos_ >= limit_) {
    valid_end_ = pos_;
    return std::optional<Event>();
  }
  // Whatever the file had when opened may have grown since (the active file).
  if (pos_ + kHeaderLen > file_size_) file_size_ = FileSize(file_);

  char head[kHeaderLen];
  size_t got = 0;
  SLUICE_RETURN_IF_ERROR(ReadAt(file_, pos_, head, kHeaderLen, &got));
  if (got == 0) {  // clean end of file
    valid_end_ = pos_;
    return std::optional<Event>();
  }
  if (got < kHeaderLen) {  // part of a header: a crash mid-write
    valid_end_ = pos_;
    truncated_ = true;
    return std::optional<Event>();
  }
  const uint64_t size = LoadLE(head + 9, 4);
  if (size < kHeaderLen || size > kMaxEventSize) {
    return Status::Corruption("binlog event has a bad event_size " + std::to_string(size) + Where(pos_));
  }
  if (pos_ + size > file_size_) file_size_ = FileSize(file_);
  if (pos_ + size > file_size_) {  // the file ends inside this event
    valid_end_ = pos_;
    truncated_ = true;
    return std::optional<Event>();
  }
  if (pos_ + size > limit_) {
    return Status::Corruption("binlog event of " + std::to_string(size) + " bytes" + Where(pos_) +
                              " runs past the readable end " + std::to_string(limit_));
  }

  Event ev;
  ev.offset = pos_;
  ev.bytes.resize(size);
  std::memcpy(ev.bytes.data(), head, kHeaderLen);
  SLUICE_RETURN_IF_ERROR(ReadAt(file_, pos_ + kHeaderLen, ev.bytes.data() + kHeaderLen, size - kHeaderLen, &got));
  if (got < size - kHeaderLen) {  // the file shrank under us
    valid_end_ = pos_;
    truncated_ = true;
    return std::optional<Event>();
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
  return std::optional<Event>(std::move(ev));
}

}  // namespace sluice::binlog
