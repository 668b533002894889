#include "vars/core_vars.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

namespace sluice::vars {
namespace {

using sql::Value;

class CoreVarsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CoreVariableDefaults d;
    d.server_uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    d.hostname = "db1";
    d.port = 3307;
    d.datadir = "/var/lib/sluice/";
    d.have_ssl = true;
    Status st = RegisterCoreVariables(vars_, d);
    ASSERT_TRUE(st.ok()) << st.ToString();
    session_ = std::make_unique<SessionVariables>(vars_.NewSession());
  }

  std::string Text(std::string_view name, GetScope scope = GetScope::kDefault) {
    Result<Value> r = vars_.Get(name, scope, session_.get());
    EXPECT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    return r.ok() ? r->ToString() : "";
  }
  Status SetSession(std::string_view name, Value v) {
    return vars_.Set(name, SetScope::kSession, v, session_.get(), &warnings_);
  }
  Status SetGlobal(std::string_view name, Value v) {
    return vars_.Set(name, SetScope::kGlobal, v, nullptr, &warnings_);
  }

  SystemVariables vars_;
  std::unique_ptr<SessionVariables> session_;
  std::vector<Status> warnings_;
};

TEST_F(CoreVarsTest, DefaultsMatchMySql80) {
  EXPECT_EQ(Text("version"), "8.0.36-sluice");
  EXPECT_EQ(Text("version_comment"), "sluice");
  EXPECT_EQ(Text("protocol_version"), "10");
  EXPECT_EQ(Text("server_id"), "1");
  EXPECT_EQ(Text("port"), "3307");
  EXPECT_EQ(Text("hostname"), "db1");
  EXPECT_EQ(Text("have_ssl"), "YES");
  EXPECT_EQ(Text("max_connections"), "151");
  EXPECT_EQ(Text("max_allowed_packet"), "67108864");
  EXPECT_EQ(Text("net_buffer_length"), "16384");
  EXPECT_EQ(Text("wait_timeout"), "28800");
  EXPECT_EQ(Text("autocommit"), "1");
  EXPECT_EQ(Text("sql_mode"),
            "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
            "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION");
  EXPECT_EQ(Text("character_set_client"), "utf8mb4");
  EXPECT_EQ(Text("character_set_system"), "utf8mb3");
  EXPECT_EQ(Text("character_set_filesystem"), "binary");
  EXPECT_EQ(Text("collation_connection"), "utf8mb4_0900_ai_ci");
  EXPECT_EQ(Text("transaction_isolation"), "REPEATABLE-READ");
  EXPECT_EQ(Text("time_zone"), "SYSTEM");
  EXPECT_EQ(Text("binlog_format"), "ROW");
  EXPECT_EQ(Text("binlog_row_image"), "FULL");
  EXPECT_EQ(Text("binlog_checksum"), "CRC32");
  EXPECT_EQ(Text("gtid_mode"), "ON");
  EXPECT_EQ(Text("enforce_gtid_consistency"), "ON");
  EXPECT_EQ(Text("sync_binlog"), "1");
  EXPECT_EQ(Text("sql_select_limit"), "18446744073709551615");
  EXPECT_EQ(Text("default_authentication_plugin"), "caching_sha2_password");
  EXPECT_EQ(Text("lower_case_table_names"), "0");
  EXPECT_EQ(Text("log_bin"), "0");
  EXPECT_TRUE(vars_.Get("log_bin_basename", GetScope::kDefault, nullptr)->is_null());
  EXPECT_EQ(Text("default_storage_engine"), "InnoDB");
  EXPECT_EQ(Text("lc_time_names"), "en_US");
}

TEST_F(CoreVarsTest, ScopesMatchMySql80) {
  EXPECT_EQ(vars_.Get("binlog_checksum", GetScope::kSession, session_.get()).status().mysql_errno(),
            1238);
  EXPECT_EQ(vars_.Get("gtid_mode", GetScope::kSession, session_.get()).status().mysql_errno(), 1238);
  EXPECT_EQ(vars_.Get("last_insert_id", GetScope::kGlobal, nullptr).status().mysql_errno(), 1238);
  EXPECT_EQ(vars_.Get("warning_count", GetScope::kGlobal, nullptr).status().mysql_errno(), 1238);
  EXPECT_TRUE(vars_.Get("autocommit", GetScope::kSession, session_.get()).ok());
  EXPECT_TRUE(vars_.Get("autocommit", GetScope::kGlobal, nullptr).ok());
  EXPECT_EQ(SetSession("server_id", Value::Int(2)).mysql_errno(), 1229);
  EXPECT_EQ(SetGlobal("pseudo_thread_id", Value::Int(2)).mysql_errno(), 1228);
  EXPECT_EQ(SetGlobal("port", Value::Int(1)).mysql_errno(), 1238);
  EXPECT_EQ(SetGlobal("log_bin", Value::Int(1)).mysql_errno(), 1238);
}

TEST_F(CoreVarsTest, MaxAllowedPacketSessionIsReadOnly) {
  Status st = SetSession("max_allowed_packet", Value::Int(1024));
  EXPECT_EQ(st.mysql_errno(), 1621);
  EXPECT_EQ(st.message(),
            "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value");
  EXPECT_TRUE(SetGlobal("max_allowed_packet", Value::Int(1 << 20)).ok());
  EXPECT_EQ(SetSession("net_buffer_length", Value::Int(1024)).mysql_errno(), 1621);
}

TEST_F(CoreVarsTest, TraditionalExpandsAsMySqlDoes) {
  ASSERT_TRUE(SetSession("sql_mode", Value::String("traditional")).ok());
  EXPECT_EQ(Text("sql_mode"),
            "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
            "ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION");
  Result<uint64_t> bits = vars_.GetFlags("sql_mode", GetScope::kSession, session_.get());
  ASSERT_TRUE(bits.ok());
  EXPECT_TRUE(*bits & sql_mode::kStrictAllTables);
  EXPECT_TRUE(*bits & sql_mode::kTraditional);
  EXPECT_FALSE(*bits & sql_mode::kAnsiQuotes);
}

TEST_F(CoreVarsTest, AnsiExpandsAsMySqlDoes) {
  ASSERT_TRUE(SetSession("sql_mode", Value::String("ANSI")).ok());
  EXPECT_EQ(Text("sql_mode"),
            "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI");
}

TEST_F(CoreVarsTest, SqlModeBitsAreMySqlsBitPositions) {
  ASSERT_TRUE(SetSession("sql_mode", Value::UInt(sql_mode::kNoBackslashEscapes |
                                                  sql_mode::kTimeTruncateFractional |
                                                  sql_mode::kAnsiQuotes))
                  .ok());
  EXPECT_EQ(Text("sql_mode"), "ANSI_QUOTES,NO_BACKSLASH_ESCAPES,TIME_TRUNCATE_FRACTIONAL");
  ASSERT_TRUE(SetSession("sql_mode", Value::String("")).ok());
  EXPECT_EQ(Text("sql_mode"), "");
  // Bit 8 was a mode removed in 8.0.
  EXPECT_EQ(SetSession("sql_mode", Value::UInt(uint64_t{1} << 8)).mysql_errno(), 1231);
  Status st = SetSession("sql_mode", Value::String("STRICT_TRANS_TABLES,NO_AUTO_CREATE_USER"));
  EXPECT_EQ(st.message(), "Variable 'sql_mode' can't be set to the value of 'NO_AUTO_CREATE_USER'");
}

TEST_F(CoreVarsTest, SettingAutocommitAndTransactionIsolation) {
  ASSERT_TRUE(SetSession("AUTOCOMMIT", Value::Int(0)).ok());
  EXPECT_EQ(Text("autocommit"), "0");
  ASSERT_TRUE(SetSession("transaction_isolation", Value::String("read-committed")).ok());
  EXPECT_EQ(Text("transaction_isolation"), "READ-COMMITTED");
  EXPECT_EQ(SetSession("transaction_isolation", Value::String("SNAPSHOT")).mysql_errno(), 1231);
}

TEST_F(CoreVarsTest, CharacterSetsAreCanonicalised) {
  ASSERT_TRUE(SetSession("character_set_client", Value::String("UTF8")).ok());
  EXPECT_EQ(Text("character_set_client"), "utf8mb3");
  ASSERT_TRUE(SetSession("character_set_connection", Value::String("Latin1")).ok());
  EXPECT_EQ(Text("character_set_connection"), "latin1");
  Status st = SetSession("character_set_client", Value::String("klingon"));
  EXPECT_EQ(st.mysql_errno(), 1115);
  EXPECT_EQ(st.message(), "Unknown character set: 'klingon'");
  ASSERT_TRUE(SetSession("character_set_results", Value::Null()).ok());
  EXPECT_TRUE(vars_.Get("character_set_results", GetScope::kSession, session_.get())->is_null());
  EXPECT_EQ(SetSession("character_set_client", Value::Null()).mysql_errno(), 1231);
  ASSERT_TRUE(SetSession("collation_connection", Value::String("UTF8MB4_GENERAL_CI")).ok());
  EXPECT_EQ(Text("collation_connection"), "utf8mb4_general_ci");
  EXPECT_EQ(SetSession("collation_connection", Value::String("utf8mb4_nope")).mysql_errno(), 1273);
}

TEST_F(CoreVarsTest, CustomResolverReplacesBuiltInCharsets) {
  SystemVariables vars;
  CoreVariableDefaults d;
  d.resolve_charset = [](std::string_view name) -> std::optional<std::string> {
    if (name == "utf8mb4" || name == "koi8r") return std::string(name);
    return std::nullopt;
  };
  ASSERT_TRUE(RegisterCoreVariables(vars, d).ok());
  SessionVariables s = vars.NewSession();
  EXPECT_TRUE(vars.Set("character_set_client", SetScope::kSession, Value::String("koi8r"), &s,
                       nullptr).ok());
  EXPECT_EQ(vars.Set("character_set_client", SetScope::kSession, Value::String("latin1"), &s,
                     nullptr).mysql_errno(), 1115);
}

TEST_F(CoreVarsTest, TimeZoneAcceptsSystemUtcAndOffsets) {
  ASSERT_TRUE(SetSession("time_zone", Value::String("+1:00")).ok());
  EXPECT_EQ(Text("time_zone"), "+01:00");
  ASSERT_TRUE(SetSession("time_zone", Value::String("-13:59")).ok());
  EXPECT_EQ(Text("time_zone"), "-13:59");
  ASSERT_TRUE(SetSession("time_zone", Value::String("+14:00")).ok());
  ASSERT_TRUE(SetSession("time_zone", Value::String("system")).ok());
  EXPECT_EQ(Text("time_zone"), "SYSTEM");
  ASSERT_TRUE(SetSession("time_zone", Value::String("utc")).ok());
  EXPECT_EQ(Text("time_zone"), "UTC");
  for (const char* bad : {"+14:01", "-14:00", "Europe/Nowhere", "+1:60", "+01", "1:00", "+ab:cd"}) {
    Status st = SetSession("time_zone", Value::String(bad));
    EXPECT_EQ(st.mysql_errno(), 1298) << bad;
  }
  EXPECT_EQ(SetSession("time_zone", Value::String("+5:99")).message(),
            "Unknown or incorrect time zone: '+5:99'");
}

TEST_F(CoreVarsTest, StorageEngineAndLocaleAreValidated) {
  ASSERT_TRUE(SetSession("default_storage_engine", Value::String("innodb")).ok());
  EXPECT_EQ(Text("default_storage_engine"), "InnoDB");
  EXPECT_EQ(SetSession("default_storage_engine", Value::String("MyISAM")).mysql_errno(), 1286);
  ASSERT_TRUE(SetSession("lc_time_names", Value::String("DE_de")).ok());
  EXPECT_EQ(Text("lc_time_names"), "de_DE");
  EXPECT_EQ(SetSession("lc_time_names", Value::String("xx_YY")).mysql_errno(), 1649);
}

TEST_F(CoreVarsTest, TimestampFollowsTheClockUntilSet) {
  double now = std::chrono::duration<double>(
                   std::chrono::system_clock::now().time_since_epoch()).count();
  Result<Value> ts = vars_.Get("timestamp", GetScope::kDefault, session_.get());
  ASSERT_TRUE(ts.ok());
  EXPECT_EQ(ts->kind(), sql::ValueKind::kDouble);
  EXPECT_LT(std::fabs(ts->double_value() - now), 60.0);

  ASSERT_TRUE(SetSession("timestamp", Value::Int(1000000000)).ok());
  EXPECT_EQ(vars_.Get("timestamp", GetScope::kDefault, session_.get())->double_value(), 1e9);
  SessionVariables other = vars_.NewSession();
  EXPECT_GT(vars_.Get("timestamp", GetScope::kDefault, &other)->double_value(), 1.5e9);

  ASSERT_TRUE(SetSession("timestamp", Value::Int(0)).ok());
  EXPECT_GT(vars_.Get("timestamp", GetScope::kDefault, session_.get())->double_value(), 1.5e9);
  ASSERT_TRUE(SetSession("timestamp", Value::Int(1000000000)).ok());
  ASSERT_TRUE(vars_.SetDefault("timestamp", SetScope::kSession, session_.get(), nullptr).ok());
  EXPECT_GT(vars_.Get("timestamp", GetScope::kDefault, session_.get())->double_value(), 1.5e9);
  EXPECT_EQ(SetSession("timestamp", Value::String("x")).mysql_errno(), 1232);
}

TEST_F(CoreVarsTest, WarningAndErrorCountComeFromTheSession) {
  EXPECT_EQ(Text("warning_count"), "0");
  session_->BindComputed("warning_count", [] { return Value::UInt(2); });
  session_->BindComputed("error_count", [] { return Value::UInt(1); });
  EXPECT_EQ(Text("warning_count"), "2");
  EXPECT_EQ(Text("error_count"), "1");
  EXPECT_EQ(SetSession("warning_count", Value::Int(0)).mysql_errno(), 1238);
}

TEST_F(CoreVarsTest, ReplicaUpdatesAnswersToBothNames) {
  EXPECT_EQ(Text("log_slave_updates"), "1");
  EXPECT_EQ(Text("log_replica_updates"), "1");
}

TEST_F(CoreVarsTest, ShowVariablesPrintsMySqlForms) {
  std::map<std::string, std::optional<std::string>> rows;
  for (const VariableRow& r : vars_.List(GetScope::kSession, session_.get())) rows[r.name] = r.value;
  EXPECT_EQ(rows["autocommit"], "ON");
  EXPECT_EQ(rows["log_bin"], "OFF");
  EXPECT_EQ(rows["log_bin_basename"], std::nullopt);
  EXPECT_EQ(rows["binlog_checksum"], "CRC32");
  EXPECT_EQ(rows["server_id"], "1");
  EXPECT_EQ(rows["datadir"], "/var/lib/sluice/");
  EXPECT_EQ(rows.count("warning_count"), 1u);
  EXPECT_EQ(rows.count("tx_isolation"), 0u);  // removed in 8.0
  EXPECT_EQ(rows.count("query_cache_size"), 0u);

  std::map<std::string, std::optional<std::string>> global;
  for (const VariableRow& r : vars_.List(GetScope::kGlobal, nullptr)) global[r.name] = r.value;
  EXPECT_EQ(global.count("warning_count"), 0u);
  EXPECT_EQ(global.count("timestamp"), 0u);
  EXPECT_EQ(global["binlog_checksum"], "CRC32");
}

TEST_F(CoreVarsTest, EveryVariableHasHelpText) {
  for (const VariableRow& r : vars_.List(GetScope::kSession, session_.get())) {
    std::optional<VariableInfo> info = vars_.Describe(r.name);
    ASSERT_TRUE(info.has_value()) << r.name;
    EXPECT_GT(info->help.size(), 10u) << r.name;
  }
}

TEST_F(CoreVarsTest, RegisteringTwiceFails) {
  EXPECT_FALSE(RegisterCoreVariables(vars_, CoreVariableDefaults()).ok());
}

}  // namespace
}  // namespace sluice::vars
