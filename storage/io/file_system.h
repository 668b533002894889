// storage/io/file_system.h
//
// The file-system seam of the storage engine. Every byte the engine reads or
// writes (tablespaces, and later the redo log and undo files) goes through a
// FileSystem, so tests can swap in MemFileSystem (storage/io/mem_file_system.h)
// and fail the Nth write or sync, tear a write, or drop everything that was
// not synced to simulate a crash.
//
// Paths are plain strings ("/datadir/db/t1.ibd"); a FileSystem does not
// resolve them against a working directory of its own.
//
// Thread-safety: a FileSystem may be used from any thread. A File may be used
// from several threads at once: ReadAt/WriteAt at disjoint ranges run in
// parallel (pread/pwrite), Sync may run concurrently with them. Overlapping
// concurrent writes leave unspecified bytes, as with POSIX.
//
// Ownership: Open returns a File the caller owns; the File borrows nothing
// from its FileSystem except in MemFileSystem, whose files must not outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sluice::storage {

enum class OpenMode : uint8_t {
  kReadOnly,      // must exist; writes fail
  kOpenExisting,  // must exist; read-write
  kCreateNew,     // must not exist; created empty, read-write
  kOpenOrCreate,  // created empty when missing, read-write
};

class File {
 public:
  virtual ~File() = default;

  // Reads up to `n` bytes at `offset` into `buf`. Fewer than `n` bytes (down
  // to 0) only when the file ends before offset + n. IOError on failure.
  virtual Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) = 0;

  // Writes all of `data` at `offset`, extending the file (with zeros in any
  // gap) when needed. On IOError some prefix of `data` may have landed.
  virtual Status WriteAt(uint64_t offset, std::string_view data) = 0;

  // Makes the file's data (and size) durable (fdatasync). After an IOError
  // the durability of earlier writes is unknown: callers treat a failed sync
  // of a log as sticky and never retry it.
  virtual Status Sync() = 0;

  // Sets the file's size; a larger size appends zeros.
  virtual Status Truncate(uint64_t size) = 0;

  virtual Result<uint64_t> Size() = 0;

  virtual const std::string& path() const = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // IOError when the mode's existence condition is not met or the OS refuses.
  virtual Result<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) = 0;

  // Atomically replaces `to` with `from` (rename(2)). Durable once the
  // directory is synced (SyncDir).
  virtual Status Rename(const std::string& from, const std::string& to) = 0;

  // Removes a file or an empty directory. IOError when missing.
  virtual Status Remove(const std::string& path) = 0;

  // Names (not paths) of the entries of directory `dir`, sorted, without "."
  // and "..".
  virtual Result<std::vector<std::string>> List(const std::string& dir) = 0;

  virtual Result<bool> Exists(const std::string& path) = 0;

  // Creates directory `path`; OK when it already exists as a directory.
  virtual Status CreateDir(const std::string& path) = 0;

  // Makes creations, renames and removals in directory `dir` durable.
  virtual Status SyncDir(const std::string& dir) = 0;
};

// The real one: open/pread/pwrite/fdatasync/ftruncate/rename/unlink.
std::unique_ptr<FileSystem> NewPosixFileSystem();

}  // namespace sluice::storage
