#include "server/datadir.h"

#include <gtest/gtest.h>

#include <filesystem>

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

}  // namespace
}  // namespace sluice::server
