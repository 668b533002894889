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

// Globals another session SETs are seen at the next Of(), as a read by
// name would see them; the session's own values and SET TIMESTAMP too.
TEST_F(SettingsTest, FollowsGlobalSetsAndTheSessionsTimeAndConnectionValues) {
  EXPECT_EQ(Settings::Of(vars_, ctx_).max_allowed_packet, 67108864u);
  EXPECT_EQ(Settings::Of(vars_, ctx_).row_metadata, binlog::RowMetadata::kMinimal);
  ASSERT_TRUE(vars_.Set("max_allowed_packet", SetScope::kGlobal, Value::Int(1 << 20), nullptr, nullptr).ok());
  ASSERT_TRUE(vars_.Set("binlog_row_metadata", SetScope::kGlobal, Value::String("FULL"), nullptr, nullptr).ok());
  ASSERT_TRUE(vars_.Set("binlog_cache_size", SetScope::kGlobal, Value::Int(8192), nullptr, nullptr).ok());
  const Settings& g = Settings::Of(vars_, ctx_);
  EXPECT_EQ(g.max_allowed_packet, 1u << 20);
  EXPECT_EQ(g.row_metadata, binlog::RowMetadata::kFull);
  EXPECT_EQ(g.binlog_cache_size, 8192u);

  EXPECT_FALSE(Settings::Of(vars_, ctx_).fixed_time.has_value());
  EXPECT_EQ(Settings::Of(vars_, ctx_).time_zone, "");
  SetSession("timestamp", Value::Double(1700000000.25));
  SetSession("time_zone", Value::String("+02:00"));
  SetSession("net_write_timeout", Value::Int(5));
  SetSession("collation_connection", Value::String("latin1_swedish_ci"));
  const Settings& s = Settings::Of(vars_, ctx_);
  ASSERT_TRUE(s.fixed_time.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::microseconds>(s.fixed_time->time_since_epoch()).count(),
            1700000000250000);
  EXPECT_EQ(s.time_zone, "+02:00");
  EXPECT_EQ(s.net_write_timeout, 5u);
  EXPECT_EQ(s.collation_connection, 8);  // latin1_swedish_ci
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
