// base/io/posix_file_system.cc: FileSystem over POSIX calls.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <system_error>

#include <fmt/format.h>

#include "base/io/file_system.h"

namespace sluice::io {
namespace {

Status OsError(std::string_view op, const std::string& path, int err) {
  return Status::IOError(
      fmt::format("{} '{}': {} (errno {})", op, path, std::generic_category().message(err), err));
}

class PosixFile final : public File {
 public:
  PosixFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFile() override { ::close(fd_); }
  PosixFile(const PosixFile&) = delete;
  PosixFile& operator=(const PosixFile&) = delete;

  Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) override {
    size_t done = 0;
    while (done < n) {
      ssize_t r = ::pread(fd_, buf + done, n - done, static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return OsError("pread", path_, errno);
      }
      if (r == 0) break;  // end of file
      done += static_cast<size_t>(r);
    }
    return done;
  }

  Status WriteAt(uint64_t offset, std::string_view data) override {
    size_t done = 0;
    while (done < data.size()) {
      ssize_t r = ::pwrite(fd_, data.data() + done, data.size() - done,
                           static_cast<off_t>(offset + done));
      if (r < 0) {
        if (errno == EINTR) continue;
        return OsError("pwrite", path_, errno);
      }
      done += static_cast<size_t>(r);
    }
    return Status::OK();
  }

  Status Sync() override {
    if (::fdatasync(fd_) != 0) return OsError("fdatasync", path_, errno);
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    if (::ftruncate(fd_, static_cast<off_t>(size)) != 0) return OsError("ftruncate", path_, errno);
    return Status::OK();
  }

  Result<uint64_t> Size() override {
    struct stat st;
    if (::fstat(fd_, &st) != 0) return OsError("fstat", path_, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  const std::string& path() const override { return path_; }

 private:
  const std::string path_;
  const int fd_;
};

class PosixFileSystem final : public FileSystem {
 public:
  Result<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode,
                                     uint32_t permissions = kDefaultPermissions) override {
    int flags = O_CLOEXEC;
    switch (mode) {
      case OpenMode::kReadOnly: flags |= O_RDONLY; break;
      case OpenMode::kOpenExisting: flags |= O_RDWR; break;
      case OpenMode::kCreateNew: flags |= O_RDWR | O_CREAT | O_EXCL; break;
      case OpenMode::kOpenOrCreate: flags |= O_RDWR | O_CREAT; break;
    }
    // A read-only open does not update the file's access time on each read
    // (a dump thread reads the binlog while it is written, so relatime
    // would write the inode back every time). O_NOATIME needs the file's
    // owner: for a file of another user, open it without.
    if (mode == OpenMode::kReadOnly) flags |= O_NOATIME;
    int fd;
    for (;;) {
      fd = ::open(path.c_str(), flags, static_cast<mode_t>(permissions));
      if (fd >= 0) break;
      if (errno == EINTR) continue;
      if (errno == EPERM && (flags & O_NOATIME) != 0) {
        flags &= ~O_NOATIME;
        continue;
      }
      break;
    }
    if (fd < 0) return OsError("open", path, errno);
    return std::unique_ptr<File>(std::make_unique<PosixFile>(path, fd));
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) return OsError("rename", from + "' to '" + to, errno);
    return Status::OK();
  }

  Status Remove(const std::string& path) override {
    if (::remove(path.c_str()) != 0) return OsError("remove", path, errno);
    return Status::OK();
  }

  Result<std::vector<std::string>> List(const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return OsError("opendir", dir, errno);
    std::vector<std::string> names;
    errno = 0;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name(e->d_name);
      if (name != "." && name != "..") names.emplace_back(name);
    }
    int err = errno;
    ::closedir(d);
    if (err != 0) return OsError("readdir", dir, err);
    std::sort(names.begin(), names.end());
    return names;
  }

  Result<bool> Exists(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) == 0) return true;
    if (errno == ENOENT || errno == ENOTDIR) return false;
    return OsError("stat", path, errno);
  }

  Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0750) == 0) return Status::OK();
    int err = errno;
    struct stat st;
    if (err == EEXIST && ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return Status::OK();
    return OsError("mkdir", path, err);
  }

  Status SyncDir(const std::string& dir) override {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return OsError("open", dir, errno);
    int rc = ::fsync(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return OsError("fsync", dir, err);
    return Status::OK();
  }

  Result<int64_t> ModificationTime(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return OsError("stat", path, errno);
    return static_cast<int64_t>(st.st_mtime);
  }

  Result<std::unique_ptr<File>> NewTempFile(const std::string& dir) override {
    std::string where = dir;
    if (where.empty()) {
      const char* env = std::getenv("TMPDIR");
      where = env != nullptr && *env != '\0' ? env : "/tmp";
    }
    // An unnamed file: gone when closed, even after a crash.
    int fd;
    do {
      fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    } while (fd < 0 && errno == EINTR);
    if (fd >= 0) return std::unique_ptr<File>(std::make_unique<PosixFile>(where + "/(temporary file)", fd));
    // File systems without O_TMPFILE: a named file, unlinked at once.
    std::string path = where + "/sluice-tmp-XXXXXX";
    fd = ::mkostemp(path.data(), O_CLOEXEC);
    if (fd < 0) return OsError("create a temporary file in", where, errno);
    ::unlink(path.c_str());
    return std::unique_ptr<File>(std::make_unique<PosixFile>(path, fd));
  }
};

}  // namespace

std::unique_ptr<FileSystem> NewPosixFileSystem() { return std::make_unique<PosixFileSystem>(); }

FileSystem& DefaultFileSystem() {
  // Leaked on purpose: usable from static destructors and detached threads.
  static FileSystem* const fs = new PosixFileSystem();
  return *fs;
}

}  // namespace sluice::io
