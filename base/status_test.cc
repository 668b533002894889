#include "base/status.h"

#include <gtest/gtest.h>

#include "base/mysql_error.h"

namespace sluice {
namespace {

TEST(StatusTest, OkHasNoError) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.mysql_errno(), 0);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, MakeErrorFormatsMySqlText) {
  Status s = MakeError(er::kAccessDenied, "bob", "localhost", "YES");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.mysql_errno(), 1045);
  EXPECT_EQ(s.sqlstate(), "28000");
  EXPECT_EQ(s.message(), "Access denied for user 'bob'@'localhost' (using password: YES)");
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> good = 7;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  Result<int> bad = MakeError(er::kBadDb, "x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().mysql_errno(), 1049);
}

}  // namespace
}  // namespace sluice
