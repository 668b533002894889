#include "exec/settings.h"

#include <gtest/gtest.h>

#include <memory>

#include "exec/session_context.h"
#include "vars/core_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {
namespace {

using sql::Value;
using vars::SetScope;

class SettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(vars::RegisterCoreVariables(vars_, vars::CoreVariableDefaults{}).ok());
    ctx_.vars = std::make_unique<vars::SessionVariables>(vars_.NewSession());
  }
  void SetSession(std::string_view name, Value v) {
    Status s = vars_.Set(name, SetScope::kSession, v, ctx_.vars.get(), nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  vars::SystemVariables vars_;
  SessionContext ctx_;
};

TEST_F(SettingsTest, DefaultsAreMysqls) {
  const Settings& s = Settings::Of(vars_, ctx_);
  EXPECT_TRUE(s.autocommit);
  EXPECT_TRUE(s.strict());
  EXPECT_EQ(s.sql_mode & vars::sql_mode::kOnlyFullGroupBy, vars::sql_mode::kOnlyFullGroupBy);
  EXPECT_EQ(s.isolation, storage::IsolationLevel::kRepeatableRead);
  EXPECT_EQ(s.lock_wait_timeout, std::chrono::seconds(31536000));
  EXPECT_TRUE(s.has_innodb_lock_wait_timeout);
  EXPECT_EQ(s.innodb_lock_wait_timeout, std::chrono::seconds(50));
  EXPECT_TRUE(s.sql_log_bin);
  EXPECT_EQ(s.row_image, binlog::RowImage::kFull);
  EXPECT_EQ(s.max_execution_time.count(), 0);
}

// The copy is read again after a session SET, and only then.
TEST_F(SettingsTest, FollowsTheSessionsSets) {
  EXPECT_TRUE(Settings::Of(vars_, ctx_).autocommit);
  SetSession("autocommit", Value::Int(0));
  SetSession("sql_mode", Value::String("ANSI_QUOTES"));
  SetSession("transaction_isolation", Value::String("READ-COMMITTED"));
  SetSession("lock_wait_timeout", Value::Int(7));
  SetSession("binlog_row_image", Value::String("minimal"));
  const Settings& s = Settings::Of(vars_, ctx_);
  EXPECT_FALSE(s.autocommit);
  EXPECT_FALSE(s.strict());
  EXPECT_EQ(s.sql_mode, vars::sql_mode::kAnsiQuotes);
  EXPECT_EQ(s.isolation, storage::IsolationLevel::kReadCommitted);
  EXPECT_EQ(s.lock_wait_timeout, std::chrono::seconds(7));
  EXPECT_EQ(s.row_image, binlog::RowImage::kMinimal);
  // A global change does not reach an existing session's values (MySQL):
  // the copy stays right without being read again.
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kGlobal, Value::Int(1), nullptr, nullptr).ok());
  EXPECT_FALSE(Settings::Of(vars_, ctx_).autocommit);
}

// COM_CHANGE_USER gives the session new variables from the current
// globals: never mistaken for the old ones.
TEST_F(SettingsTest, NewSessionVariablesAreReadAgain) {
  EXPECT_TRUE(Settings::Of(vars_, ctx_).autocommit);
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kGlobal, Value::Int(0), nullptr, nullptr).ok());
  ctx_.vars = std::make_unique<vars::SessionVariables>(vars_.NewSession());
  EXPECT_FALSE(Settings::Of(vars_, ctx_).autocommit);
}

// The sql_mode bits are MySQL's (binlog Query events carry them).
TEST_F(SettingsTest, SqlModeBitsAreMysqls) {
  SetSession("sql_mode", Value::String("TRADITIONAL"));
  const uint64_t mode = Settings::Of(vars_, ctx_).sql_mode;
  EXPECT_NE(mode & vars::sql_mode::kTraditional, 0u);
  EXPECT_NE(mode & vars::sql_mode::kStrictAllTables, 0u);
  EXPECT_NE(mode & vars::sql_mode::kNoZeroDate, 0u);
}

}  // namespace
}  // namespace sluice::exec
