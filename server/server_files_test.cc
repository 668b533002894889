// Server start and stop against the FileSystem it is given: the pid file is
// written and removed through it, and a failure to write it fails Start()
// with the error mysqld users know.
//
// The datadir is a real directory (the TLS context reads the certificates
// by name), so the FileSystem is POSIX with a fault on chosen paths.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "base/io/file_system.h"
#include "server/server.h"

namespace sluice::server {
namespace {
namespace fs = std::filesystem;

// POSIX, except that creating a file whose path contains `fail_on` fails,
// and that it counts the files it opened and removed under that name.
class FaultOnPathFileSystem final : public io::FileSystem {
 public:
  explicit FaultOnPathFileSystem(std::string watch, bool fail) : watch_(std::move(watch)), fail_(fail) {}

  Result<std::unique_ptr<io::File>> Open(const std::string& path, io::OpenMode mode,
                                         uint32_t permissions = kDefaultPermissions) override {
    if (path.find(watch_) != std::string::npos) {
      ++opened;
      if (fail_) return Status::IOError("open '" + path + "': injected failure");
    }
    return posix_->Open(path, mode, permissions);
  }
  Status Rename(const std::string& from, const std::string& to) override { return posix_->Rename(from, to); }
  Status Remove(const std::string& path) override {
    if (path.find(watch_) != std::string::npos) ++removed;
    return posix_->Remove(path);
  }
  Result<std::vector<std::string>> List(const std::string& dir) override { return posix_->List(dir); }
  Result<bool> Exists(const std::string& path) override { return posix_->Exists(path); }
  Status CreateDir(const std::string& path) override { return posix_->CreateDir(path); }
  Status SyncDir(const std::string& dir) override { return posix_->SyncDir(dir); }
  Result<int64_t> ModificationTime(const std::string& path) override { return posix_->ModificationTime(path); }
  Result<std::unique_ptr<io::File>> NewTempFile(const std::string& dir) override {
    return posix_->NewTempFile(dir);
  }

  int opened = 0;
  int removed = 0;

 private:
  const std::unique_ptr<io::FileSystem> posix_ = io::NewPosixFileSystem();
  const std::string watch_;
  const bool fail_;
};

class ServerFilesTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("sluice_server_files_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  ServerOptions Options() const {
    ServerOptions o;
    o.port = 0;  // any free port
    o.bind_address = "127.0.0.1";
    o.datadir = (dir_ / "data").string();
    o.pid_file = (dir_ / "sluiced.pid").string();
    o.tmpdir = dir_.string();
    o.io_threads = 1;
    o.innodb_buffer_pool_size = 16ull << 20;
    return o;
  }

  fs::path dir_;
};

TEST_F(ServerFilesTest, PidFileIsWrittenAndRemovedThroughTheFileSystem) {
  auto owned = std::make_unique<FaultOnPathFileSystem>("sluiced.pid", /*fail=*/false);
  FaultOnPathFileSystem* files = owned.get();
  {
    Server server(Options(), std::move(owned));
    Status s = server.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
    EXPECT_GE(files->opened, 1);
    std::ifstream in(dir_ / "sluiced.pid");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_EQ(text.str(), std::to_string(::getpid()) + "\n");
    EXPECT_FALSE(fs::exists(dir_ / "sluiced.pid.tmp"));
    server.RequestShutdown();
    server.WaitForShutdown();
    // A clean stop removes it, through the same FileSystem.
    EXPECT_EQ(files->removed, 1);
    EXPECT_FALSE(fs::exists(dir_ / "sluiced.pid"));
  }
}

TEST_F(ServerFilesTest, PidFileWriteFailureFailsStart) {
  Server server(Options(), std::make_unique<FaultOnPathFileSystem>("sluiced.pid", /*fail=*/true));
  Status s = server.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("Could not create the pid file '" + (dir_ / "sluiced.pid").string() + "'"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("injected failure"), std::string::npos) << s.message();
  EXPECT_FALSE(fs::exists(dir_ / "sluiced.pid"));
  EXPECT_FALSE(fs::exists(dir_ / "sluiced.pid.tmp"));
}

}  // namespace
}  // namespace sluice::server
