// base/io/write_file_atomically_test.cc: WriteFileAtomically and
// ReadFileIfExists on both file systems, and on MemFileSystem a fault at
// each step of the replacement.
#include "base/io/write_file_atomically.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "base/io/mem_file_system.h"

namespace sluice::io {
namespace {

class WriteFileAtomicallyTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      fs_ = NewPosixFileSystem();
      std::string tmpl = ::testing::TempDir() + "sluice_atomic_XXXXXX";
      ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
      dir_ = tmpl;
    } else {
      fs_ = std::make_unique<MemFileSystem>();
      dir_ = "/data";
      ASSERT_TRUE(fs_->CreateDir(dir_).ok());
    }
  }
  void TearDown() override {
    if (!GetParam()) return;
    auto names = fs_->List(dir_);
    if (names.ok()) {
      for (const auto& n : *names) (void)fs_->Remove(dir_ + "/" + n);
    }
    (void)fs_->Remove(dir_);
  }

  std::unique_ptr<FileSystem> fs_;
  std::string dir_;
};

TEST_P(WriteFileAtomicallyTest, CreatesAndReplacesAndLeavesNoTempFile) {
  const std::string path = dir_ + "/f.cnf";
  auto missing = ReadFileIfExists(*fs_, path);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  bool renamed = false;
  ASSERT_TRUE(WriteFileAtomically(*fs_, path, "a long first version", {}, &renamed).ok());
  EXPECT_TRUE(renamed);
  ASSERT_TRUE(WriteFileAtomically(*fs_, path, "second").ok());
  auto text = ReadFileIfExists(*fs_, path);
  ASSERT_TRUE(text.ok());
  ASSERT_TRUE(text->has_value());
  EXPECT_EQ(**text, "second");
  EXPECT_EQ(*fs_->List(dir_), std::vector<std::string>{"f.cnf"});
}

TEST_P(WriteFileAtomicallyTest, LeftoverTempFileIsOverwritten) {
  const std::string path = dir_ + "/f";
  {
    auto tmp = fs_->Open(path + ".tmp", OpenMode::kCreateNew);
    ASSERT_TRUE(tmp.ok());
    ASSERT_TRUE((*tmp)->WriteAt(0, "garbage left by a crash, longer than the new file").ok());
  }
  ASSERT_TRUE(WriteFileAtomically(*fs_, path, "new").ok());
  EXPECT_EQ(**ReadFileIfExists(*fs_, path), "new");
  EXPECT_FALSE(*fs_->Exists(path + ".tmp"));
}

TEST_P(WriteFileAtomicallyTest, TempSuffixIsHonoured) {
  const std::string path = dir_ + "/binlog.index";
  AtomicWriteOptions o;
  o.temp_suffix = "_crash_safe";
  ASSERT_TRUE(WriteFileAtomically(*fs_, path, "./binlog.000001\n", o).ok());
  EXPECT_EQ(**ReadFileIfExists(*fs_, path), "./binlog.000001\n");
}

TEST_P(WriteFileAtomicallyTest, MissingDirectoryIsAnIoError) {
  Status s = WriteFileAtomically(*fs_, dir_ + "/no/such/dir/f", "x");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("creating the temporary file"), std::string::npos) << s.message();
}

TEST_P(WriteFileAtomicallyTest, CreateDirectoriesMakesTheMissingParents) {
  const std::string deep = dir_ + "/a/b/c";
  ASSERT_TRUE(CreateDirectories(*fs_, deep).ok());
  EXPECT_TRUE(*fs_->Exists(dir_ + "/a/b"));
  EXPECT_TRUE(*fs_->Exists(deep));
  EXPECT_TRUE(CreateDirectories(*fs_, deep).ok());  // there already
  ASSERT_TRUE(WriteFileAtomically(*fs_, deep + "/f", "x").ok());
  EXPECT_TRUE(CreateDirectories(*fs_, deep + "/f/g").IsIOError());  // a file in the way
  for (const std::string& p : {deep + "/f", deep, dir_ + "/a/b", dir_ + "/a"}) (void)fs_->Remove(p);
}

INSTANTIATE_TEST_SUITE_P(PosixAndMemory, WriteFileAtomicallyTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Posix" : "Memory"; });

TEST(WriteFileAtomicallyPosix, PermissionsApplyToTheNewFile) {
  auto fs = NewPosixFileSystem();
  std::string tmpl = ::testing::TempDir() + "sluice_atomic_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
  const std::string path = tmpl + "/key.pem";
  AtomicWriteOptions o;
  o.permissions = 0600;
  ASSERT_TRUE(WriteFileAtomically(*fs, path, "secret", o).ok());
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  (void)fs->Remove(path);
  (void)fs->Remove(tmpl);
}

TEST(ParentDir, OfEachForm) {
  EXPECT_EQ(ParentDir("/a/b"), "/a");
  EXPECT_EQ(ParentDir("/b"), "/");
  EXPECT_EQ(ParentDir("b"), ".");
  EXPECT_EQ(ParentDir("a/b/c"), "a/b");
}

// A fault at each step before the rename: an IOError that names the step,
// the old file intact, no temp file left. After the rename (the directory
// sync): an error, the new file in place, and `renamed` says so.
struct StepFault {
  MemFileSystem::Op op;
  const char* step;
  bool renamed;
};

class WriteFileAtomicallyFaultTest : public ::testing::TestWithParam<StepFault> {};

TEST_P(WriteFileAtomicallyFaultTest, FailedStepLeavesOldFileOrReportsRename) {
  const StepFault& p = GetParam();
  MemFileSystem fs;
  ASSERT_TRUE(fs.CreateDir("/data").ok());
  ASSERT_TRUE(WriteFileAtomically(fs, "/data/f", "old contents").ok());
  MemFileSystem::Fault f;
  f.op = p.op;
  f.torn_bytes = 3;
  fs.InjectFault(f);
  bool renamed = !p.renamed;
  Status s = WriteFileAtomically(fs, "/data/f", "new contents", {}, &renamed);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find(p.step), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("/data/f"), std::string::npos) << s.message();
  EXPECT_EQ(fs.faults_fired(), 1u);
  EXPECT_EQ(renamed, p.renamed);
  EXPECT_FALSE(*fs.Exists("/data/f.tmp"));
  fs.DropUnsyncedData();  // and after a crash
  EXPECT_EQ(**ReadFileIfExists(fs, "/data/f"), p.renamed ? "new contents" : "old contents");
}

INSTANTIATE_TEST_SUITE_P(
    EveryStep, WriteFileAtomicallyFaultTest,
    ::testing::Values(StepFault{MemFileSystem::Op::kWrite, "writing the temporary file", false},
                      StepFault{MemFileSystem::Op::kSync, "syncing the temporary file", false},
                      StepFault{MemFileSystem::Op::kRename, "renaming the temporary file", false},
                      StepFault{MemFileSystem::Op::kSyncDir, "syncing the directory", true}),
    [](const auto& info) {
      switch (info.param.op) {
        case MemFileSystem::Op::kWrite: return "Write";
        case MemFileSystem::Op::kSync: return "Sync";
        case MemFileSystem::Op::kRename: return "Rename";
        case MemFileSystem::Op::kSyncDir: return "SyncDir";
        default: return "Other";
      }
    });

TEST(ReadFileIfExists, ReadFailureIsAnError) {
  MemFileSystem fs;
  ASSERT_TRUE(WriteFileAtomically(fs, "/f", "bytes").ok());
  MemFileSystem::Fault f;
  f.op = MemFileSystem::Op::kRead;
  fs.InjectFault(f);
  auto r = ReadFileIfExists(fs, "/f");
  EXPECT_TRUE(r.status().IsIOError());
}

}  // namespace
}  // namespace sluice::io
