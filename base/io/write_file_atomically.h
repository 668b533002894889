// base/io/write_file_atomically.h
//
// Whole-file replacement through a FileSystem, the one copy of the
// temp-file-then-rename pattern that the catalog, the binlog index, the ACL
// file, mysqld-auto.cnf and the datadir's files (auto.cnf, keys,
// certificates) use; whole-file reads to go with it; and mkdir -p.
//
// Thread-safety: as the FileSystem's; callers serialize writes to one path
// (two writers would share the temp file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/io/file_system.h"
#include "base/status.h"

namespace sluice::io {

struct AtomicWriteOptions {
  // Mode bits of the new file (private keys and the ACL file: 0600).
  uint32_t permissions = FileSystem::kDefaultPermissions;
  // The temp file is <path><temp_suffix>, in the same directory so that the
  // rename is atomic ("_crash_safe" for the binlog index, MySQL's name).
  std::string temp_suffix = ".tmp";
};

// Replaces the file at `path` with `bytes` so that a reader, and the file
// after a crash, is the old file or the new one whole, never a mix: writes
// the temp file (created, or truncated when left over), syncs it, renames it
// over `path`, syncs the directory.
//
// Errors are IOError naming the step and the file. A failure before the
// rename removes the temp file (best effort) and leaves `path` as it was. A
// failed directory sync comes after the rename: `path` already holds the
// new bytes, but whether that survives a crash is unknown; `*renamed` (when
// not null) is set to whether the rename happened, for callers that must
// then stop trusting the file (the catalog's sticky error).
Status WriteFileAtomically(FileSystem& fs, const std::string& path, std::string_view bytes,
                           const AtomicWriteOptions& options = {}, bool* renamed = nullptr);

// The whole file at `path`; nullopt (not an error) when it does not exist.
// IOError when it exists but cannot be opened or read.
Result<std::optional<std::string>> ReadFileIfExists(FileSystem& fs, const std::string& path);

// The directory part of `path` ("/a/b" -> "/a", "b" -> ".", "/b" -> "/").
std::string ParentDir(const std::string& path);

// Creates directory `dir` and its missing parents, as mkdir -p; a path
// that exists already is left as it is (OK when `dir` exists). The first
// error (from Exists or CreateDir) otherwise.
Status CreateDirectories(FileSystem& fs, const std::string& dir);

}  // namespace sluice::io
