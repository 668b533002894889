// base/io/write_file_atomically.cc: see write_file_atomically.h.
#include "base/io/write_file_atomically.h"

#include <memory>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace sluice::io {
namespace {

// The FileSystem's message already names the file and the OS reason; this
// says which step of the replacement failed.
Status StepError(std::string_view step, const std::string& path, const Status& cause) {
  return Status::IOError(fmt::format("cannot replace '{}': {} failed: {}", path, step, cause.message()));
}

}  // namespace

std::string ParentDir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Status CreateDirectories(FileSystem& fs, const std::string& dir) {
  // The missing ones, deepest first; then created from the top down.
  std::vector<std::string> missing;
  for (std::string d = dir; !d.empty() && d != "/" && d != ".";) {
    Result<bool> exists = fs.Exists(d);
    if (!exists.ok()) return exists.status();
    if (*exists) break;
    missing.push_back(d);
    std::string parent = ParentDir(d);
    if (parent == d) break;
    d = std::move(parent);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) SLUICE_RETURN_IF_ERROR(fs.CreateDir(*it));
  return Status::OK();
}

Status WriteFileAtomically(FileSystem& fs, const std::string& path, std::string_view bytes,
                           const AtomicWriteOptions& options, bool* renamed) {
  if (renamed != nullptr) *renamed = false;
  const std::string tmp = path + options.temp_suffix;
  // Any failure up to the rename: the temp file goes, `path` stays as it was.
  auto fail = [&](std::string_view step, const Status& cause) {
    (void)fs.Remove(tmp);
    return StepError(step, path, cause);
  };
  {
    Result<std::unique_ptr<File>> file = fs.Open(tmp, OpenMode::kOpenOrCreate, options.permissions);
    if (!file.ok()) return StepError("creating the temporary file", path, file.status());
    // A temp file left by a crash may be longer than `bytes`.
    if (Status s = (*file)->Truncate(0); !s.ok()) return fail("truncating the temporary file", s);
    if (Status s = (*file)->WriteAt(0, bytes); !s.ok()) return fail("writing the temporary file", s);
    if (Status s = (*file)->Sync(); !s.ok()) return fail("syncing the temporary file", s);
  }
  if (Status s = fs.Rename(tmp, path); !s.ok()) return fail("renaming the temporary file", s);
  if (renamed != nullptr) *renamed = true;
  if (Status s = fs.SyncDir(ParentDir(path)); !s.ok()) return StepError("syncing the directory", path, s);
  return Status::OK();
}

Result<std::optional<std::string>> ReadFileIfExists(FileSystem& fs, const std::string& path) {
  Result<bool> exists = fs.Exists(path);
  if (!exists.ok()) return exists.status();
  if (!*exists) return std::optional<std::string>();
  Result<std::unique_ptr<File>> file = fs.Open(path, OpenMode::kReadOnly);
  if (!file.ok()) return file.status();
  Result<uint64_t> size = (*file)->Size();
  if (!size.ok()) return size.status();
  std::string data(*size, '\0');
  Result<size_t> got = (*file)->ReadAt(0, data.data(), data.size());
  if (!got.ok()) return got.status();
  data.resize(*got);  // shorter only if the file shrank meanwhile
  return std::optional<std::string>(std::move(data));
}

}  // namespace sluice::io
