// base/io/mem_file_system.cc
#include "base/io/mem_file_system.h"

#include <algorithm>
#include <cstring>
#include <ctime>

#include <fmt/format.h>

namespace sluice::io {
namespace {

// Unsynced data is tracked in blocks of this size, so Sync() copies only
// what changed since the previous one.
constexpr uint64_t kBlock = 4096;

std::string Normalize(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string Parent(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

struct MemFileSystem::FileData {
  Mutex mu;
  std::string data GUARDED_BY(mu);  // what reads see
  std::string durable GUARDED_BY(mu);  // as of the last Sync
  std::set<uint64_t> unsynced_blocks GUARDED_BY(mu);
  uint64_t min_size_since_sync GUARDED_BY(mu) = 0;  // smallest size since the last Sync
  int64_t mtime GUARDED_BY(mu) = static_cast<int64_t>(std::time(nullptr));

  void WriteLocked(uint64_t offset, std::string_view bytes) REQUIRES(mu) {
    if (bytes.empty()) return;
    mtime = static_cast<int64_t>(std::time(nullptr));
    if (data.size() < offset + bytes.size()) data.resize(offset + bytes.size(), '\0');
    std::memcpy(data.data() + offset, bytes.data(), bytes.size());
    for (uint64_t b = offset / kBlock; b <= (offset + bytes.size() - 1) / kBlock; ++b) {
      unsynced_blocks.insert(b);
    }
  }

  void SyncLocked() REQUIRES(mu) {
    // Bytes cut by a truncation since the last sync must not reappear from
    // the old durable image when the file grows again.
    if (durable.size() > min_size_since_sync) durable.resize(min_size_since_sync);
    durable.resize(data.size(), '\0');
    for (uint64_t b : unsynced_blocks) {
      uint64_t begin = b * kBlock;
      if (begin >= data.size()) break;
      uint64_t len = std::min<uint64_t>(kBlock, data.size() - begin);
      std::memcpy(durable.data() + begin, data.data() + begin, len);
    }
    unsynced_blocks.clear();
    min_size_since_sync = data.size();
  }
};

class MemFileSystem::MemFile final : public File {
 public:
  MemFile(MemFileSystem* fs, std::string path, std::shared_ptr<FileData> data, bool read_only)
      : fs_(fs), path_(std::move(path)), data_(std::move(data)), read_only_(read_only) {}

  Result<size_t> ReadAt(uint64_t offset, char* buf, size_t n) override {
    size_t torn = 0;
    if (fs_->ShouldFail(Op::kRead, path_, &torn)) {
      return Status::IOError(fmt::format("injected read failure on '{}'", path_));
    }
    MutexLock lock(&data_->mu);
    if (offset >= data_->data.size()) return size_t{0};
    size_t len = std::min<uint64_t>(n, data_->data.size() - offset);
    std::memcpy(buf, data_->data.data() + offset, len);
    return len;
  }

  Status WriteAt(uint64_t offset, std::string_view bytes) override {
    if (read_only_) return Status::IOError(fmt::format("write to read-only file '{}'", path_));
    size_t torn = 0;
    if (fs_->ShouldFail(Op::kWrite, path_, &torn)) {
      MutexLock lock(&data_->mu);
      data_->WriteLocked(offset, bytes.substr(0, std::min(torn, bytes.size())));
      return Status::IOError(fmt::format("injected write failure on '{}'", path_));
    }
    MutexLock lock(&data_->mu);
    data_->WriteLocked(offset, bytes);
    return Status::OK();
  }

  Status Sync() override {
    size_t torn = 0;
    if (fs_->ShouldFail(Op::kSync, path_, &torn)) {
      return Status::IOError(fmt::format("injected sync failure on '{}'", path_));
    }
    MutexLock lock(&data_->mu);
    data_->SyncLocked();
    return Status::OK();
  }

  Status Truncate(uint64_t size) override {
    if (read_only_) return Status::IOError(fmt::format("truncate of read-only file '{}'", path_));
    MutexLock lock(&data_->mu);
    data_->data.resize(size, '\0');
    data_->mtime = static_cast<int64_t>(std::time(nullptr));
    data_->min_size_since_sync = std::min<uint64_t>(data_->min_size_since_sync, size);
    return Status::OK();
  }

  Result<uint64_t> Size() override {
    MutexLock lock(&data_->mu);
    return static_cast<uint64_t>(data_->data.size());
  }

  const std::string& path() const override { return path_; }

 private:
  MemFileSystem* const fs_;
  const std::string path_;
  const std::shared_ptr<FileData> data_;
  const bool read_only_;
};

MemFileSystem::MemFileSystem() { dirs_.insert("/"); }
MemFileSystem::~MemFileSystem() = default;

void MemFileSystem::InjectFault(const Fault& fault) {
  MutexLock lock(&mu_);
  faults_[static_cast<size_t>(fault.op)] = ArmedFault{fault, 0};
}

void MemFileSystem::ClearFaults() {
  MutexLock lock(&mu_);
  for (auto& f : faults_) f.reset();
}

uint64_t MemFileSystem::op_count(Op op) const {
  MutexLock lock(&mu_);
  return op_counts_[static_cast<size_t>(op)];
}

uint64_t MemFileSystem::faults_fired() const {
  MutexLock lock(&mu_);
  return faults_fired_;
}

bool MemFileSystem::ShouldFail(Op op, const std::string& path, size_t* torn_bytes) {
  MutexLock lock(&mu_);
  ++op_counts_[static_cast<size_t>(op)];
  auto& armed = faults_[static_cast<size_t>(op)];
  if (!armed) return false;
  const Fault& f = armed->fault;
  if (!f.path_contains.empty() && path.find(f.path_contains) == std::string::npos) return false;
  ++armed->seen;
  if (armed->seen < f.nth) return false;
  *torn_bytes = f.torn_bytes;
  ++faults_fired_;
  if (!f.sticky) armed.reset();
  return true;
}

void MemFileSystem::DropUnsyncedData() {
  MutexLock lock(&mu_);
  for (auto& [path, file] : files_) {
    MutexLock file_lock(&file->mu);
    file->data = file->durable;
    file->unsynced_blocks.clear();
    file->min_size_since_sync = file->data.size();
  }
}

Result<std::unique_ptr<File>> MemFileSystem::Open(const std::string& raw_path, OpenMode mode,
                                                  uint32_t /*permissions*/) {
  std::string path = Normalize(raw_path);
  MutexLock lock(&mu_);
  if (dirs_.count(path) != 0) return Status::IOError(fmt::format("open '{}': is a directory", path));
  auto it = files_.find(path);
  if (it == files_.end()) {
    if (mode == OpenMode::kReadOnly || mode == OpenMode::kOpenExisting) {
      return Status::IOError(fmt::format("open '{}': No such file or directory", path));
    }
    std::string parent = Parent(path);
    if (!parent.empty() && dirs_.count(parent) == 0) {
      return Status::IOError(fmt::format("open '{}': No such file or directory", path));
    }
    it = files_.emplace(path, std::make_shared<FileData>()).first;
  } else if (mode == OpenMode::kCreateNew) {
    return Status::IOError(fmt::format("open '{}': File exists", path));
  }
  return std::unique_ptr<File>(
      std::make_unique<MemFile>(this, path, it->second, mode == OpenMode::kReadOnly));
}

Status MemFileSystem::Rename(const std::string& raw_from, const std::string& raw_to) {
  std::string from = Normalize(raw_from), to = Normalize(raw_to);
  size_t torn = 0;
  if (ShouldFail(Op::kRename, from, &torn)) {
    return Status::IOError(fmt::format("injected rename failure on '{}'", from));
  }
  MutexLock lock(&mu_);
  auto it = files_.find(from);
  if (it == files_.end()) {
    return Status::IOError(fmt::format("rename '{}': No such file or directory", from));
  }
  auto data = it->second;
  files_.erase(it);
  files_[to] = std::move(data);
  return Status::OK();
}

Status MemFileSystem::Remove(const std::string& raw_path) {
  std::string path = Normalize(raw_path);
  MutexLock lock(&mu_);
  if (files_.erase(path) != 0) return Status::OK();
  if (dirs_.count(path) != 0) {
    std::string prefix = path == "/" ? "/" : path + "/";
    auto f = files_.lower_bound(prefix);
    auto d = dirs_.upper_bound(path);
    bool empty = (f == files_.end() || f->first.compare(0, prefix.size(), prefix) != 0) &&
                 (d == dirs_.end() || d->compare(0, prefix.size(), prefix) != 0);
    if (!empty) return Status::IOError(fmt::format("remove '{}': Directory not empty", path));
    dirs_.erase(path);
    return Status::OK();
  }
  return Status::IOError(fmt::format("remove '{}': No such file or directory", path));
}

Result<std::vector<std::string>> MemFileSystem::List(const std::string& raw_dir) {
  std::string dir = Normalize(raw_dir);
  MutexLock lock(&mu_);
  if (dirs_.count(dir) == 0) {
    return Status::IOError(fmt::format("opendir '{}': No such file or directory", dir));
  }
  std::string prefix = dir == "/" ? "/" : dir + "/";
  std::vector<std::string> names;
  auto add = [&](const std::string& path) {
    if (path.size() <= prefix.size() || path.compare(0, prefix.size(), prefix) != 0) return;
    std::string rest = path.substr(prefix.size());
    if (rest.find('/') == std::string::npos) names.push_back(std::move(rest));
  };
  for (const auto& [path, data] : files_) add(path);
  for (const auto& d : dirs_) add(d);
  std::sort(names.begin(), names.end());
  return names;
}

Result<bool> MemFileSystem::Exists(const std::string& raw_path) {
  std::string path = Normalize(raw_path);
  MutexLock lock(&mu_);
  return files_.count(path) != 0 || dirs_.count(path) != 0;
}

Status MemFileSystem::CreateDir(const std::string& raw_path) {
  std::string path = Normalize(raw_path);
  MutexLock lock(&mu_);
  if (files_.count(path) != 0) return Status::IOError(fmt::format("mkdir '{}': File exists", path));
  std::string parent = Parent(path);
  if (!parent.empty() && dirs_.count(parent) == 0) {
    return Status::IOError(fmt::format("mkdir '{}': No such file or directory", path));
  }
  dirs_.insert(path);
  return Status::OK();
}

Status MemFileSystem::SyncDir(const std::string& raw_dir) {
  std::string dir = Normalize(raw_dir);
  size_t torn = 0;
  if (ShouldFail(Op::kSyncDir, dir, &torn)) {
    return Status::IOError(fmt::format("injected directory sync failure on '{}'", dir));
  }
  MutexLock lock(&mu_);
  if (dirs_.count(dir) == 0) {
    return Status::IOError(fmt::format("open '{}': No such file or directory", dir));
  }
  return Status::OK();
}

Result<std::unique_ptr<File>> MemFileSystem::NewTempFile(const std::string& dir) {
  // Outside files_: no name reaches it, List() does not show it and a
  // crash (DropUnsyncedData) has nothing to keep. Faults match on the
  // made-up path "<dir>/#temp<n>".
  uint64_t n;
  {
    MutexLock lock(&mu_);
    n = ++temp_files_;
  }
  std::string path = Normalize(dir.empty() ? "/tmp" : dir) + "/#temp" + std::to_string(n);
  return std::unique_ptr<File>(std::make_unique<MemFile>(this, std::move(path), std::make_shared<FileData>(),
                                                         /*read_only=*/false));
}

Result<int64_t> MemFileSystem::ModificationTime(const std::string& raw_path) {
  std::string path = Normalize(raw_path);
  std::shared_ptr<FileData> file;
  {
    MutexLock lock(&mu_);
    auto it = files_.find(path);
    if (it == files_.end()) {
      return Status::IOError(fmt::format("stat '{}': No such file or directory", path));
    }
    file = it->second;
  }
  MutexLock file_lock(&file->mu);
  return file->mtime;
}

}  // namespace sluice::io
