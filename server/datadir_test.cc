#include "server/datadir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "base/io/mem_file_system.h"

namespace sluice::server {
namespace {
namespace fs = std::filesystem;

class DatadirTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(testing::TempDir()) / ("sluice_datadir_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(DatadirTest, ServerUuidIsCreatedOnceAndKept) {
  ASSERT_TRUE(DatadirIsEmpty(dir_.string()));
  ASSERT_TRUE(CreateDatadir(dir_.string()).ok());
  auto first = LoadOrCreateServerUuid(dir_.string());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size(), 36u);
  auto second = LoadOrCreateServerUuid(dir_.string());
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
  EXPECT_FALSE(DatadirIsEmpty(dir_.string()));
}

TEST_F(DatadirTest, TheServersOwnErrorLogDoesNotMakeADataDirectory) {
  ASSERT_TRUE(CreateDatadir(dir_.string()).ok());
  const std::string log = (dir_ / "host.err").string();
  { std::ofstream(log) << "starting\n"; }
  EXPECT_TRUE(DatadirIsEmpty(dir_.string(), {log, ""}));
  EXPECT_FALSE(DatadirIsEmpty(dir_.string()));
  { std::ofstream((dir_ / "other").string()) << "x"; }
  EXPECT_FALSE(DatadirIsEmpty(dir_.string(), {log}));
}

TEST_F(DatadirTest, CertificatesAreGeneratedOnlyWhenMissing) {
  ASSERT_TRUE(CreateDatadir(dir_.string()).ok());
  bool generated = false;
  ASSERT_TRUE(EnsureCertificates(dir_.string(), &generated).ok());
  EXPECT_TRUE(generated);
  for (const char* f : {"ca.pem", "ca-key.pem", "server-cert.pem", "server-key.pem", "client-cert.pem",
                        "client-key.pem", "private_key.pem", "public_key.pem"}) {
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  }
  auto perms = fs::status(dir_ / "server-key.pem").permissions();
  EXPECT_EQ(perms & fs::perms::others_read, fs::perms::none);
  ASSERT_TRUE(EnsureCertificates(dir_.string(), &generated).ok());
  EXPECT_FALSE(generated);
}

TEST_F(DatadirTest, RandomPasswordHasRequestedLength) {
  EXPECT_EQ(RandomPassword(12).size(), 12u);
  EXPECT_NE(RandomPassword(), RandomPassword());
}

// auto.cnf through an injected fault: no half-written file, an error, and
// the next start writes it.
TEST(DatadirFault, FailedServerUuidWriteLeavesNoFile) {
  io::MemFileSystem mem;
  ASSERT_TRUE(mem.CreateDir("/data").ok());
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kSync;
  mem.InjectFault(f);
  auto failed = LoadOrCreateServerUuid("/data", &mem);
  EXPECT_TRUE(failed.status().IsIOError()) << failed.status().ToString();
  EXPECT_FALSE(*mem.Exists("/data/auto.cnf"));
  EXPECT_FALSE(*mem.Exists("/data/auto.cnf.tmp"));
  auto first = LoadOrCreateServerUuid("/data", &mem);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto again = LoadOrCreateServerUuid("/data", &mem);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*first, *again);
}

}  // namespace
}  // namespace sluice::server
