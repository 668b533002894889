// binlog/file_reader.h
//
// Reads one binlog file event by event: checks the magic, reads the
// Format_description first (which says whether the events carry a CRC32),
// then hands out whole events with their offsets. Used by crash recovery,
// SHOW BINLOG EVENTS, PURGE/gtid bookkeeping and sluice-binlog; dump
// threads (issue 7) read the same way up to the published end.
//
// A truncated last event (a crash mid-write) is reported as end of file
// with truncated() true and valid_end() the offset after the last whole
// event; a bad size or (when verify_checksums) a bad CRC is Corruption.
//
// Reads go through an io::FileSystem (null: io::DefaultFileSystem(), POSIX),
// the binlog's own when it hands one out (Binlog::file_system()).
//
// Thread-safety: one reader per thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/io/file_system.h"
#include "base/status.h"
#include "binlog/event.h"

namespace sluice::binlog {

class BinlogFileReader {
 public:
  struct Event {
    uint64_t offset = 0;  // where the event starts in the file
    EventHeader header;
    std::string bytes;    // the whole event, header and CRC included
  };
  // An event read without copying it: `bytes` points into the reader's
  // buffer and is valid until the reader's next Next(), NextView() or Seek().
  struct EventView {
    uint64_t offset = 0;
    EventHeader header;
    std::string_view bytes;
  };

  // Opens `path`; reads and checks the magic and the Format_description.
  // NotFound-like IOError when missing; Corruption for a file that is not
  // a binlog ("Binlog has bad magic number").
  static Result<std::unique_ptr<BinlogFileReader>> Open(const std::string& path, bool verify_checksums = true,
                                                        io::FileSystem* fs = nullptr);
  ~BinlogFileReader();

  const FormatDescription& format() const { return fd_; }
  // Next event, starting with the Format_description at offset 4;
  // nullopt at the end of the file (or at `limit` when set).
  Result<std::optional<Event>> Next();
  // The same into `*out` (false at the end), reusing its buffer: a reader
  // that keeps one Event allocates nothing per event once warm.
  Result<bool> Next(Event* out);
  // The same as a view into the reader's buffer (a dump thread sends each
  // event from there).
  Result<bool> NextView(EventView* out);
  // Consecutive whole events from the current position as one view into
  // the reader's buffer: the event NextView() gives, then each event after
  // it that the buffer already holds and that passes NextView()'s checks
  // (size, limit, file end, checksum when verifying). Where one does not,
  // the run ends before it and the next call reports it as NextView()
  // would. At most the buffer (64 KiB), or the one event larger than that.
  // A plain dump frames a run in one loop (rpl::AppendEventPackets) instead
  // of a call chain per event. Valid until the next read or Seek().
  struct EventRun {
    uint64_t offset = 0;       // of the first event
    uint64_t last_offset = 0;  // of the last
    size_t count = 0;
    std::string_view bytes;
  };
  Result<bool> NextRun(EventRun* out);
  // Continue at `offset` (an event boundary; >= 4).
  Status Seek(uint64_t offset);
  // Stop at `limit` bytes (e.g. the published end of the active file).
  void set_limit(uint64_t limit) { limit_ = limit; }
  // The same for a limit the file is known to have written up to (the
  // published end of the active binlog): reads up to it ask no file size.
  void set_written_limit(uint64_t limit) {
    limit_ = limit;
    file_size_ = std::max(file_size_, limit);
  }
  bool truncated() const { return truncated_; }
  uint64_t valid_end() const { return valid_end_; }
  uint64_t file_size() const { return file_size_; }

 private:
  BinlogFileReader() = default;
  // Up to `n` bytes at `offset` in place: in buf_, read again from `offset`
  // when it does not hold them all, or in large_ for `n` >= the buffer's
  // size. `*got` < n at the end of the file.
  Result<const char*> Window(uint64_t offset, size_t n, size_t* got);
  // Fills buf_ with what the file has from `offset` (at least `n` bytes
  // asked for), never past the limit.
  Status Fill(uint64_t offset, size_t n);
  // file_size_ = the file's current size (unchanged when that fails: reads
  // then find the end).
  void RefreshSize() {
    if (Result<uint64_t> s = file_->Size(); s.ok()) file_size_ = *s;
  }

  std::unique_ptr<io::File> file_;
  // Read-ahead: the file's bytes from buf_offset_, never past the limit
  // that was set when they were read (see file_reader.cc).
  // kBufferSize bytes once first filled, buf_len_ of them read; not
  // cleared before a read (a fill reads only what the file has).
  std::unique_ptr<char[]> buf_;
  size_t buf_len_ = 0;
  uint64_t buf_offset_ = 0;
  std::string large_;  // NextView's event when it is larger than buf_ holds
  FormatDescription fd_;
  bool verify_ = true;
  uint64_t pos_ = 4;
  uint64_t limit_ = UINT64_MAX;
  uint64_t file_size_ = 0;
  uint64_t valid_end_ = 4;
  bool truncated_ = false;
};

}  // namespace sluice::binlog
