// storage/io/mem_file_system.h
//
// MemFileSystem: an in-memory FileSystem for tests of every storage layer,
// with fault injection:
//   - fail the Nth read, write or sync from now (once, or that one and every
//     later one), optionally only on paths containing a substring;
//   - tear a failing write: its first `torn_bytes` bytes land, the rest not;
//   - DropUnsyncedData(): every file goes back to what its last successful
//     Sync() made durable, as after a power loss.
//
// Crash model: file data and size are durable only through File::Sync().
// Creations, renames and removals are durable at once (as if every
// directory operation were followed by SyncDir); a file created and never
// synced comes back empty after a crash.
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

#include "base/mutex.h"
#include "storage/io/file_system.h"

namespace sluice::storage {

class MemFileSystem final : public FileSystem {
 public:
  enum class Op : uint8_t { kRead = 0, kWrite = 1, kSync = 2 };

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
  Result<std::unique_ptr<File>> Open(const std::string& path, OpenMode mode) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status Remove(const std::string& path) override;
  Result<std::vector<std::string>> List(const std::string& dir) override;
  Result<bool> Exists(const std::string& path) override;
  Status CreateDir(const std::string& path) override;
  Status SyncDir(const std::string& dir) override;

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
  std::array<std::optional<ArmedFault>, 3> faults_ GUARDED_BY(mu_);
  std::array<uint64_t, 3> op_counts_ GUARDED_BY(mu_) = {};
  uint64_t faults_fired_ GUARDED_BY(mu_) = 0;
};

}  // namespace sluice::storage
