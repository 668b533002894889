// base/io/file_system.h
//
// The file-system seam. Every durable file of the server goes through a
// FileSystem: the storage engine's tablespaces, redo log and catalog, the
// binlog files and their index, the ACL file, mysqld-auto.cnf and the
// datadir's own files (auto.cnf, keys, certificates, the pid file); and the
// one scratch file kind, a spilled binlog cache (NewTempFile). Tests swap in
// MemFileSystem (base/io/mem_file_system.h) and fail the Nth write or sync,
// tear a write, fail a rename or a directory sync, or drop everything that
// was not synced to simulate a crash. The replace-a-whole-file pattern
// (temp file, sync, rename, sync the directory) is WriteFileAtomically
// (base/io/write_file_atomically.h), the one copy of it.
//
// Library sluice_io, beside sluice_base rather than in it: the layers that
// never touch files (the SQL layer, the protocol) link base without it.
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

namespace sluice::io {

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
  static constexpr uint32_t kDefaultPermissions = 0640;

  virtual ~FileSystem() = default;

  // IOError when the mode's existence condition is not met or the OS refuses.
  // `permissions` (mode bits, before the umask) apply to a file this call
  // creates; private keys ask for 0600. Overrides keep the same default.
  virtual Result<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode,
                                             uint32_t permissions = kDefaultPermissions) = 0;

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

  // When the file's data last changed, in seconds since the Unix epoch
  // (PURGE BINARY LOGS BEFORE, binlog_expire_logs_seconds).
  virtual Result<int64_t> ModificationTime(const std::string& path) = 0;

  // A new empty read-write scratch file in directory `dir` (empty: $TMPDIR,
  // else /tmp) that no name reaches and that is gone once the File is
  // closed, even after a crash (O_TMPFILE; where the file system lacks it, a
  // file created and unlinked at once). Never durable, never synced: the
  // binlog caches of large transactions spill into one. path() names it for
  // messages only.
  virtual Result<std::unique_ptr<File>> NewTempFile(const std::string& dir) = 0;
};

// The real one: open/pread/pwrite/fdatasync/ftruncate/rename/unlink.
std::unique_ptr<FileSystem> NewPosixFileSystem();

// A process-wide POSIX FileSystem (never destroyed), the default of every
// component that takes a FileSystem* and was given none.
FileSystem& DefaultFileSystem();

}  // namespace sluice::io
