// base/io/mem_file_system.h
//
// MemFileSystem: an in-memory FileSystem for tests of every durable file,
// with fault injection:
//   - fail the Nth read, write, sync, directory sync or rename from now
//     (once, or that one and every later one), optionally only on paths
//     containing a substring (a rename matches on its source path, a
//     directory sync on the directory);
//   - tear a failing write: its first `torn_bytes` bytes land, the rest not;
//   - DropUnsyncedData(): every file goes back to what its last successful
//     Sync() made durable, as after a power loss.
//
// Crash model: file data and size are durable only through File::Sync().
// Creations, renames and removals are durable at once (as if every
// directory operation were followed by SyncDir); a file created and never
// synced comes back empty after a crash. An injected SyncDir failure
// therefore undoes nothing: the rename before it stands, as it may on disk.
//
// Thread-safety: every method may be called from any thread. Files opened
// from a MemFileSystem must not outlive it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "base/io/file_system.h"
#include "base/mutex.h"

namespace sluice::io {

class MemFileSystem final : public FileSystem {
 public:
  // kSyncDir and kRename count only SyncDir() and Rename(), so faults and
  // counts of file syncs (kSync) are the same as before they existed.
  enum class Op : uint8_t { kRead = 0, kWrite = 1, kSync = 2, kSyncDir = 3, kRename = 4 };
  static constexpr size_t kNumOps = 5;

  struct Fault {
    Op op = Op::kWrite;
    uint64_t nth = 1;           // the nth matching operation from now fails; 1 = the next one
    bool sticky = false;        // ... and so does every matching one after it
    size_t torn_bytes = 0;      // kWrite: this many leading bytes of the failed write land
    std::string path_contains;  // empty: any path
  };

  MemFileSystem();
  ~MemFileSystem() override;
  MemFileSystem(const MemFileSystem&) = delete;
  MemFileSystem& operator=(const MemFileSystem&) = delete;

  // Arms `fault`, replacing any fault armed for the same Op.
  void InjectFault(const Fault& fault);
  void ClearFaults();
  // Operations of kind `op` attempted since construction, failed ones included.
  uint64_t op_count(Op op) const;
  // Injected failures that fired since construction.
  uint64_t faults_fired() const;

  // Simulates a crash: each file's contents and size revert to its last
  // successful Sync(). Open Files stay usable and see the reverted data.
  void DropUnsyncedData();

  // FileSystem:
  // `permissions` are not modelled: every file is readable by its tests.
  Result<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode,
                                     uint32_t permissions = kDefaultPermissions) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Result<std::vector<std::string>> List(const std::string& dir) override;
  Result<bool> Exists(const std::string& path) override;
  Status CreateDir(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;
  Result<int64_t> ModificationTime(const std::string& path) override;
  // Unnamed, in memory; its reads and writes count and fail as any file's,
  // on the path "<dir>/#temp<n>" (n = 1, 2, ... per MemFileSystem).
  Result<std::unique_ptr<File>> NewTempFile(const std::string& dir) override;

 private:
  class MemFile;
  struct FileData;  // contents, durable contents, unsynced ranges
  struct ArmedFault {
    Fault fault;
    uint64_t seen = 0;  // matching operations since armed
  };

  // Counts the operation and decides whether it fails. On failure for a
  // write, *torn_bytes says how much of it lands.
  bool ShouldFail(Op op, const std::string& path, size_t* torn_bytes);

  mutable Mutex mu_;
  std::map<std::string, std::shared_ptr<FileData>> files_ GUARDED_BY(mu_);
  std::set<std::string> dirs_ GUARDED_BY(mu_);
  std::array<std::optional<ArmedFault>, kNumOps> faults_ GUARDED_BY(mu_);
  std::array<uint64_t, kNumOps> op_counts_ GUARDED_BY(mu_) = {};
  uint64_t faults_fired_ GUARDED_BY(mu_) = 0;
  uint64_t temp_files_ GUARDED_BY(mu_) = 0;  // NewTempFile() calls
};

}  // namespace sluice::io
