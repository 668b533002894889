// base/io/file_system_test.cc
#include <stdlib.h>

#include <string>

#include <gtest/gtest.h>

#include "base/io/file_system.h"
#include "base/io/mem_file_system.h"

namespace sluice::io {
namespace {

std::string ReadAll(File* f) {
  auto size = f->Size();
  EXPECT_TRUE(size.ok());
  std::string out(*size, '\0');
  auto n = f->ReadAt(0, out.data(), out.size());
  EXPECT_TRUE(n.ok());
  out.resize(*n);
  return out;
}

// The same behaviour is expected of both implementations.
class FileSystemContractTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    if (GetParam()) {
      fs_ = NewPosixFileSystem();
      std::string tmpl = ::testing::TempDir() + "sluice_io_XXXXXX";
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

TEST_P(FileSystemContractTest, WriteAtExtendsWithZerosAndReadAtStopsAtEnd) {
  auto f = fs_->Open(dir_ + "/a", OpenMode::kCreateNew);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  ASSERT_TRUE((*f)->WriteAt(4, "abc").ok());
  EXPECT_EQ(*(*f)->Size(), 7u);
  EXPECT_EQ(ReadAll(f->get()), std::string("\0\0\0\0abc", 7));
  char buf[10];
  auto n = (*f)->ReadAt(5, buf, sizeof(buf));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 2u);
  n = (*f)->ReadAt(100, buf, sizeof(buf));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, 0u);
  ASSERT_TRUE((*f)->Truncate(2).ok());
  EXPECT_EQ(*(*f)->Size(), 2u);
  ASSERT_TRUE((*f)->Sync().ok());
}

TEST_P(FileSystemContractTest, OpenModesEnforceExistence) {
  EXPECT_FALSE(fs_->Open(dir_ + "/missing", OpenMode::kOpenExisting).ok());
  EXPECT_FALSE(fs_->Open(dir_ + "/missing", OpenMode::kReadOnly).ok());
  ASSERT_TRUE(fs_->Open(dir_ + "/x", OpenMode::kOpenOrCreate).ok());
  EXPECT_FALSE(fs_->Open(dir_ + "/x", OpenMode::kCreateNew).ok());
  auto ro = fs_->Open(dir_ + "/x", OpenMode::kReadOnly);
  ASSERT_TRUE(ro.ok());
  EXPECT_FALSE((*ro)->WriteAt(0, "z").ok());
}

TEST_P(FileSystemContractTest, RenameReplacesAndListIsSorted) {
  {
    auto a = fs_->Open(dir_ + "/b", OpenMode::kCreateNew);
    ASSERT_TRUE(a.ok());
    ASSERT_TRUE((*a)->WriteAt(0, "new").ok());
    auto c = fs_->Open(dir_ + "/c", OpenMode::kCreateNew);
    ASSERT_TRUE(c.ok());
    ASSERT_TRUE((*c)->WriteAt(0, "old").ok());
  }
  ASSERT_TRUE(fs_->CreateDir(dir_ + "/sub").ok());
  ASSERT_TRUE(fs_->CreateDir(dir_ + "/sub").ok());  // idempotent
  ASSERT_TRUE(fs_->Rename(dir_ + "/b", dir_ + "/c").ok());
  ASSERT_TRUE(fs_->SyncDir(dir_).ok());
  auto names = fs_->List(dir_);
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"c", "sub"}));
  auto c = fs_->Open(dir_ + "/c", OpenMode::kReadOnly);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ReadAll(c->get()), "new");
  EXPECT_FALSE(*fs_->Exists(dir_ + "/b"));
  ASSERT_TRUE(fs_->Remove(dir_ + "/c").ok());
  ASSERT_TRUE(fs_->Remove(dir_ + "/sub").ok());
  EXPECT_FALSE(fs_->Remove(dir_ + "/c").ok());
  EXPECT_FALSE(*fs_->Exists(dir_ + "/c"));
}

TEST_P(FileSystemContractTest, TempFileIsUnnamedAndReadWrite) {
  auto t = fs_->NewTempFile(dir_);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_TRUE((*t)->WriteAt(0, "spilled").ok());
  ASSERT_TRUE((*t)->WriteAt(7, " bytes").ok());
  char buf[32];
  auto n = (*t)->ReadAt(0, buf, sizeof(buf));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(std::string(buf, *n), "spilled bytes");
  ASSERT_TRUE((*t)->Truncate(7).ok());
  EXPECT_EQ(*(*t)->Size(), 7u);
  EXPECT_FALSE((*t)->path().empty());
  // No name in the directory, before or after it is closed.
  auto names = fs_->List(dir_);
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
  t->reset();
  EXPECT_TRUE(fs_->List(dir_)->empty());
}

INSTANTIATE_TEST_SUITE_P(PosixAndMemory, FileSystemContractTest, ::testing::Values(true, false),
                         [](const auto& info) { return info.param ? "Posix" : "Memory"; });

MemFileSystem::Fault MakeFault(MemFileSystem::Op op, uint64_t nth) {
  MemFileSystem::Fault f;
  f.op = op;
  f.nth = nth;
  return f;
}

class MemFileSystemFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto f = fs_.Open("/f", OpenMode::kCreateNew);
    ASSERT_TRUE(f.ok());
    file_ = std::move(*f);
  }
  MemFileSystem fs_;
  std::unique_ptr<File> file_;
};

TEST_F(MemFileSystemFaultTest, NthWriteFailsOnceAndLeavesDataUnchanged) {
  fs_.InjectFault(MakeFault(MemFileSystem::Op::kWrite, 3));
  EXPECT_TRUE(file_->WriteAt(0, "1").ok());
  EXPECT_TRUE(file_->WriteAt(1, "2").ok());
  Status s = file_->WriteAt(2, "3");
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_TRUE(file_->WriteAt(3, "4").ok());
  EXPECT_EQ(ReadAll(file_.get()), std::string("12\0" "4", 4));
  EXPECT_EQ(fs_.faults_fired(), 1u);
  EXPECT_EQ(fs_.op_count(MemFileSystem::Op::kWrite), 4u);
}

TEST_F(MemFileSystemFaultTest, StickyFaultFailsEveryLaterWrite) {
  auto fault = MakeFault(MemFileSystem::Op::kWrite, 2);
  fault.sticky = true;
  fs_.InjectFault(fault);
  EXPECT_TRUE(file_->WriteAt(0, "a").ok());
  for (int i = 0; i < 5; ++i) EXPECT_FALSE(file_->WriteAt(1, "b").ok());
  fs_.ClearFaults();
  EXPECT_TRUE(file_->WriteAt(1, "b").ok());
}

TEST_F(MemFileSystemFaultTest, TornWriteLandsOnlyItsPrefix) {
  auto fault = MakeFault(MemFileSystem::Op::kWrite, 1);
  fault.torn_bytes = 3;
  fs_.InjectFault(fault);
  EXPECT_FALSE(file_->WriteAt(0, "abcdef").ok());
  EXPECT_EQ(ReadAll(file_.get()), "abc");
}

TEST_F(MemFileSystemFaultTest, FaultOnlyHitsMatchingPaths) {
  auto other = fs_.Open("/other.log", OpenMode::kCreateNew);
  ASSERT_TRUE(other.ok());
  auto fault = MakeFault(MemFileSystem::Op::kSync, 1);
  fault.path_contains = ".log";
  fs_.InjectFault(fault);
  EXPECT_TRUE(file_->Sync().ok());
  EXPECT_FALSE((*other)->Sync().ok());
  EXPECT_TRUE((*other)->Sync().ok());
}

TEST_F(MemFileSystemFaultTest, FailedSyncDoesNotMakeDataDurable) {
  ASSERT_TRUE(file_->WriteAt(0, "durable").ok());
  ASSERT_TRUE(file_->Sync().ok());
  ASSERT_TRUE(file_->WriteAt(0, "LOST!!!").ok());
  fs_.InjectFault(MakeFault(MemFileSystem::Op::kSync, 1));
  EXPECT_FALSE(file_->Sync().ok());
  fs_.DropUnsyncedData();
  EXPECT_EQ(ReadAll(file_.get()), "durable");
}

TEST_F(MemFileSystemFaultTest, CrashDropsUnsyncedWritesAndRestoresSize) {
  std::string big(10000, 'x');
  ASSERT_TRUE(file_->WriteAt(0, big).ok());
  ASSERT_TRUE(file_->Sync().ok());
  ASSERT_TRUE(file_->WriteAt(9000, std::string(5000, 'y')).ok());
  ASSERT_TRUE(file_->WriteAt(1, "z").ok());
  fs_.DropUnsyncedData();
  EXPECT_EQ(ReadAll(file_.get()), big);

  auto never_synced = fs_.Open("/new", OpenMode::kCreateNew);
  ASSERT_TRUE(never_synced.ok());
  ASSERT_TRUE((*never_synced)->WriteAt(0, "gone").ok());
  fs_.DropUnsyncedData();
  EXPECT_TRUE(*fs_.Exists("/new"));
  EXPECT_EQ(*(*never_synced)->Size(), 0u);
}

TEST_F(MemFileSystemFaultTest, TruncateThenGrowDoesNotResurrectOldBytesAfterCrash) {
  ASSERT_TRUE(file_->WriteAt(0, std::string(8192, 'a')).ok());
  ASSERT_TRUE(file_->Sync().ok());
  ASSERT_TRUE(file_->Truncate(100).ok());
  ASSERT_TRUE(file_->WriteAt(8000, "b").ok());
  ASSERT_TRUE(file_->Sync().ok());
  fs_.DropUnsyncedData();
  std::string got = ReadAll(file_.get());
  ASSERT_EQ(got.size(), 8001u);
  EXPECT_EQ(got.substr(0, 100), std::string(100, 'a'));
  EXPECT_EQ(got.substr(100, 7900), std::string(7900, '\0'));
  EXPECT_EQ(got.back(), 'b');
}

TEST_F(MemFileSystemFaultTest, TempFileWritesFailOnTheirMadeUpPath) {
  MemFileSystem::Fault f = MakeFault(MemFileSystem::Op::kWrite, 1);
  f.path_contains = "/#temp";
  fs_.InjectFault(f);
  EXPECT_TRUE(file_->WriteAt(0, "named").ok());  // not a temp file
  auto t = fs_.NewTempFile("/tmp");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->path(), "/tmp/#temp1");
  EXPECT_TRUE((*t)->WriteAt(0, "x").IsIOError());
  EXPECT_TRUE((*t)->WriteAt(0, "x").ok());  // once
  EXPECT_EQ(fs_.faults_fired(), 1u);
}

TEST_F(MemFileSystemFaultTest, NthReadFails) {
  ASSERT_TRUE(file_->WriteAt(0, "abc").ok());
  fs_.InjectFault(MakeFault(MemFileSystem::Op::kRead, 2));
  char buf[3];
  EXPECT_TRUE(file_->ReadAt(0, buf, 3).ok());
  EXPECT_TRUE(file_->ReadAt(0, buf, 3).status().IsIOError());
  EXPECT_TRUE(file_->ReadAt(0, buf, 3).ok());
}

}  // namespace
}  // namespace sluice::io
