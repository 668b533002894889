#include "vars/sys_vars.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/io/mem_file_system.h"
#include "base/io/write_file_atomically.h"
#include "vars/json_internal.h"

namespace sluice::vars {
namespace {

using sql::Value;

class SysVarsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(vars_.Register(VariableSpec::Bool("autocommit", VarScope::kBoth, true,
                                                  "Commit each statement.")).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::UInt("max_connections", VarScope::kGlobal, 151, 1,
                                                  100000, "Connections at once.")).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::Int("offset_secs", VarScope::kBoth, 0, -100, 100,
                                                 "A signed test variable.")).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::UInt("max_allowed_packet", VarScope::kBoth, 67108864,
                                                  1024, 1073741824, "Largest packet.")
                                   .SessionReadOnly()
                                   .BlockSize(1024)).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::String("version", VarScope::kGlobal, "8.0.36-sluice",
                                                    "Version.")
                                   .ReadOnly()
                                   .NotPersistable()).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::UInt("port", VarScope::kGlobal, 3306, 0, 65535,
                                                  "TCP port.")
                                   .ReadOnly()).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::UInt("last_insert_id", VarScope::kSession, 0, 0,
                                                  UINT64_MAX, "LAST_INSERT_ID().")).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::Enum("binlog_format", VarScope::kBoth,
                                                  {"MIXED", "STATEMENT", "ROW"}, "ROW",
                                                  "Binlog format.")).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::Set("modes", VarScope::kBoth,
                                                 {"A_FLAG", "B_FLAG", "", "C_FLAG", "COMBO"},
                                                 "B_FLAG,A_FLAG", "Some flags.")
                                   .Composite("COMBO", {"A_FLAG", "C_FLAG"})).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::String("init_connect", VarScope::kGlobal, "",
                                                    "SQL at connect.")).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::String("character_set_results", VarScope::kBoth,
                                                    "utf8mb4", "Results charset.")
                                   .Nullable()).ok());
    ASSERT_TRUE(vars_.Register(VariableSpec::Double("long_query_time", VarScope::kBoth, 10, 0,
                                                    31536000, "Slow query threshold.")).ok());
  }

  Value GetOk(std::string_view name, GetScope scope = GetScope::kDefault,
              const SessionVariables* s = nullptr) {
    Result<Value> r = vars_.Get(name, scope, s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Value();
  }
  std::string Text(std::string_view name, GetScope scope = GetScope::kDefault,
                   const SessionVariables* s = nullptr) {
    return GetOk(name, scope, s).ToString();
  }

  SystemVariables vars_;
  std::vector<Status> warnings_;
};

void ExpectError(const Status& st, uint16_t code, std::string_view message) {
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(st.mysql_errno(), code) << st.ToString();
  EXPECT_EQ(st.message(), message);
}

// ---- Get ----

TEST_F(SysVarsTest, GetUnknownVariableFailsWith1193) {
  ExpectError(vars_.Get("NoSuch", GetScope::kDefault, nullptr).status(), 1193,
              "Unknown system variable 'NoSuch'");
}

TEST_F(SysVarsTest, GetSessionScopeOfGlobalOnlyVariableFailsWith1238) {
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Get("max_connections", GetScope::kSession, &s).status(), 1238,
              "Variable 'max_connections' is a GLOBAL variable");
}

TEST_F(SysVarsTest, GetGlobalScopeOfSessionOnlyVariableFailsWith1238) {
  ExpectError(vars_.Get("last_insert_id", GetScope::kGlobal, nullptr).status(), 1238,
              "Variable 'last_insert_id' is a SESSION variable");
}

TEST_F(SysVarsTest, GetIsCaseInsensitive) {
  EXPECT_EQ(Text("MAX_Connections"), "151");
  EXPECT_TRUE(vars_.Exists("AutoCommit"));
}

TEST_F(SysVarsTest, BoolReadsAsIntegerOneOrZero) {
  Value v = GetOk("autocommit");
  EXPECT_EQ(v.kind(), sql::ValueKind::kInt);
  EXPECT_EQ(v.int_value(), 1);
}

TEST_F(SysVarsTest, TypesReadInTheirValueKinds) {
  EXPECT_EQ(GetOk("max_connections").kind(), sql::ValueKind::kUInt);
  EXPECT_EQ(GetOk("offset_secs").kind(), sql::ValueKind::kInt);
  EXPECT_EQ(GetOk("long_query_time").kind(), sql::ValueKind::kDouble);
  EXPECT_EQ(Text("binlog_format"), "ROW");
  EXPECT_EQ(Text("modes"), "A_FLAG,B_FLAG");  // definition order, not the order given
  EXPECT_EQ(Text("init_connect"), "");
}

TEST_F(SysVarsTest, DefaultScopeReadsSessionValueWhenThereIsOne) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kSession, Value::Int(0), &s, &warnings_).ok());
  EXPECT_EQ(GetOk("autocommit", GetScope::kDefault, &s).int_value(), 0);
  EXPECT_EQ(GetOk("autocommit", GetScope::kGlobal, &s).int_value(), 1);
  EXPECT_EQ(Text("max_connections", GetScope::kDefault, &s), "151");
}

// ---- Set: errors ----

TEST_F(SysVarsTest, SetUnknownVariableFailsWith1193) {
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Set("nope", SetScope::kSession, Value::Int(1), &s, &warnings_), 1193,
              "Unknown system variable 'nope'");
}

TEST_F(SysVarsTest, SetReadOnlyVariableFailsWith1238) {
  ExpectError(vars_.Set("version", SetScope::kGlobal, Value::String("x"), nullptr, &warnings_),
              1238, "Variable 'version' is a read only variable");
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Set("port", SetScope::kSession, Value::Int(1), &s, &warnings_), 1238,
              "Variable 'port' is a read only variable");
}

TEST_F(SysVarsTest, SetSessionOfGlobalOnlyVariableFailsWith1229) {
  SessionVariables s = vars_.NewSession();
  const char* msg = "Variable 'max_connections' is a GLOBAL variable and should be set with SET GLOBAL";
  ExpectError(vars_.Set("max_connections", SetScope::kSession, Value::Int(10), &s, &warnings_),
              1229, msg);
  ExpectError(vars_.Set("max_connections", SetScope::kDefault, Value::Int(10), &s, &warnings_),
              1229, msg);
}

TEST_F(SysVarsTest, SetGlobalOfSessionOnlyVariableFailsWith1228) {
  ExpectError(vars_.Set("last_insert_id", SetScope::kGlobal, Value::Int(1), nullptr, &warnings_),
              1228, "Variable 'last_insert_id' is a SESSION variable and can't be used with SET GLOBAL");
}

TEST_F(SysVarsTest, SetSessionOfSessionReadOnlyVariableFailsWith1621) {
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Set("max_allowed_packet", SetScope::kSession, Value::Int(4096), &s, &warnings_),
              1621,
              "SESSION variable 'max_allowed_packet' is read-only. Use SET GLOBAL to assign the value");
  EXPECT_TRUE(
      vars_.Set("max_allowed_packet", SetScope::kGlobal, Value::Int(4096), nullptr, &warnings_).ok());
}

TEST_F(SysVarsTest, SetValueOutsideDomainFailsWith1231) {
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Set("autocommit", SetScope::kSession, Value::Int(2), &s, &warnings_), 1231,
              "Variable 'autocommit' can't be set to the value of '2'");
  ExpectError(vars_.Set("autocommit", SetScope::kSession, Value::String("maybe"), &s, &warnings_),
              1231, "Variable 'autocommit' can't be set to the value of 'maybe'");
  ExpectError(vars_.Set("binlog_format", SetScope::kSession, Value::String("JSON"), &s, &warnings_),
              1231, "Variable 'binlog_format' can't be set to the value of 'JSON'");
  ExpectError(vars_.Set("binlog_format", SetScope::kSession, Value::Int(3), &s, &warnings_), 1231,
              "Variable 'binlog_format' can't be set to the value of '3'");
}

TEST_F(SysVarsTest, SetNullOnNonNullableVariableFailsWith1231NamingNull) {
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Set("autocommit", SetScope::kSession, Value::Null(), &s, &warnings_), 1231,
              "Variable 'autocommit' can't be set to the value of 'NULL'");
  ExpectError(vars_.Set("init_connect", SetScope::kGlobal, Value::Null(), nullptr, &warnings_),
              1231, "Variable 'init_connect' can't be set to the value of 'NULL'");
}

TEST_F(SysVarsTest, SetNullOnNullableStringStoresNull) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(
      vars_.Set("character_set_results", SetScope::kSession, Value::Null(), &s, &warnings_).ok());
  EXPECT_TRUE(GetOk("character_set_results", GetScope::kSession, &s).is_null());
}

TEST_F(SysVarsTest, SetValueOfWrongTypeFailsWith1232) {
  SessionVariables s = vars_.NewSession();
  const char* msg = "Incorrect argument type to variable 'max_connections'";
  ExpectError(vars_.Set("max_connections", SetScope::kGlobal, Value::String("10"), nullptr,
                        &warnings_), 1232, msg);
  ExpectError(vars_.Set("max_connections", SetScope::kGlobal, Value::Double(1.5), nullptr,
                        &warnings_), 1232, msg);
  ExpectError(vars_.Set("max_connections", SetScope::kGlobal, Value::Null(), nullptr, &warnings_),
              1232, msg);
  ExpectError(vars_.Set("autocommit", SetScope::kSession, Value::Double(1.0), &s, &warnings_), 1232,
              "Incorrect argument type to variable 'autocommit'");
  ExpectError(vars_.Set("init_connect", SetScope::kGlobal, Value::Int(5), nullptr, &warnings_),
              1232, "Incorrect argument type to variable 'init_connect'");
  ExpectError(vars_.Set("long_query_time", SetScope::kSession, Value::String("1"), &s, &warnings_),
              1232, "Incorrect argument type to variable 'long_query_time'");
}

TEST_F(SysVarsTest, FailedSetChangesNothing) {
  ASSERT_FALSE(
      vars_.Set("max_connections", SetScope::kGlobal, Value::String("x"), nullptr, &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "151");
}

TEST_F(SysVarsTest, SetSessionWithoutSessionIsInvalidArgument) {
  Status st = vars_.Set("autocommit", SetScope::kSession, Value::Int(0), nullptr, &warnings_);
  EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
}

// ---- Set: values ----

TEST_F(SysVarsTest, BoolAcceptsOnOffTrueFalseOneZero) {
  SessionVariables s = vars_.NewSession();
  struct Case {
    Value in;
    int64_t want;
  } cases[] = {{Value::String("OFF"), 0},  {Value::String("on"), 1},   {Value::String("False"), 0},
               {Value::String("TRUE"), 1}, {Value::String("0"), 0},    {Value::String("1"), 1},
               {Value::Int(0), 0},         {Value::UInt(1), 1}};
  for (const Case& c : cases) {
    ASSERT_TRUE(vars_.Set("autocommit", SetScope::kSession, c.in, &s, &warnings_).ok())
        << c.in.ToString();
    EXPECT_EQ(GetOk("autocommit", GetScope::kSession, &s).int_value(), c.want) << c.in.ToString();
  }
  EXPECT_TRUE(warnings_.empty());
}

TEST_F(SysVarsTest, EnumAcceptsNamesInAnyCaseAndIndexes) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("binlog_format", SetScope::kSession, Value::String("statement"), &s,
                        &warnings_).ok());
  EXPECT_EQ(Text("binlog_format", GetScope::kSession, &s), "STATEMENT");
  ASSERT_TRUE(vars_.Set("binlog_format", SetScope::kSession, Value::Int(0), &s, &warnings_).ok());
  EXPECT_EQ(Text("binlog_format", GetScope::kSession, &s), "MIXED");
}

TEST_F(SysVarsTest, SetVariableCanonicalisesOrderAndCase) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(
      vars_.Set("modes", SetScope::kSession, Value::String("c_flag,a_flag"), &s, &warnings_).ok());
  EXPECT_EQ(Text("modes", GetScope::kSession, &s), "A_FLAG,C_FLAG");
}

TEST_F(SysVarsTest, SetVariableAcceptsEmptyValue) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("modes", SetScope::kSession, Value::String(""), &s, &warnings_).ok());
  EXPECT_EQ(Text("modes", GetScope::kSession, &s), "");
}

TEST_F(SysVarsTest, SetVariableAcceptsBitmask) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("modes", SetScope::kSession, Value::Int(0b1010), &s, &warnings_).ok());
  EXPECT_EQ(Text("modes", GetScope::kSession, &s), "B_FLAG,C_FLAG");
  // Bit 2 is an unused flag.
  ExpectError(vars_.Set("modes", SetScope::kSession, Value::Int(4), &s, &warnings_), 1231,
              "Variable 'modes' can't be set to the value of '4'");
  ExpectError(vars_.Set("modes", SetScope::kSession, Value::Int(-1), &s, &warnings_), 1231,
              "Variable 'modes' can't be set to the value of '-1'");
}

TEST_F(SysVarsTest, SetVariableErrorNamesTheFirstBadFlag) {
  SessionVariables s = vars_.NewSession();
  ExpectError(vars_.Set("modes", SetScope::kSession, Value::String("A_FLAG,BOGUS,ALSO_BAD"), &s,
                        &warnings_), 1231, "Variable 'modes' can't be set to the value of 'BOGUS'");
}

TEST_F(SysVarsTest, CompositeFlagExpandsAndStaysSet) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("modes", SetScope::kSession, Value::String("combo"), &s, &warnings_).ok());
  EXPECT_EQ(Text("modes", GetScope::kSession, &s), "A_FLAG,C_FLAG,COMBO");
  Result<uint64_t> bits = vars_.GetFlags("modes", GetScope::kSession, &s);
  ASSERT_TRUE(bits.ok());
  EXPECT_EQ(*bits, 0b11001u);
}

TEST_F(SysVarsTest, UnsignedOutOfRangeClampsWithWarning1292) {
  ASSERT_TRUE(
      vars_.Set("max_connections", SetScope::kGlobal, Value::Int(0), nullptr, &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "1");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].mysql_errno(), 1292);
  EXPECT_EQ(warnings_[0].message(), "Truncated incorrect max_connections value: '0'");

  warnings_.clear();
  ASSERT_TRUE(vars_.Set("max_connections", SetScope::kGlobal, Value::UInt(UINT64_MAX), nullptr,
                        &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "100000");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].message(),
            "Truncated incorrect max_connections value: '18446744073709551615'");

  warnings_.clear();
  ASSERT_TRUE(
      vars_.Set("max_connections", SetScope::kGlobal, Value::Int(-5), nullptr, &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "1");
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].message(), "Truncated incorrect max_connections value: '-5'");
}

TEST_F(SysVarsTest, SignedOutOfRangeClampsWithWarning) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("offset_secs", SetScope::kSession, Value::Int(-1000), &s, &warnings_).ok());
  EXPECT_EQ(Text("offset_secs", GetScope::kSession, &s), "-100");
  ASSERT_TRUE(
      vars_.Set("offset_secs", SetScope::kSession, Value::UInt(UINT64_MAX), &s, &warnings_).ok());
  EXPECT_EQ(Text("offset_secs", GetScope::kSession, &s), "100");
  EXPECT_EQ(warnings_.size(), 2u);
  ASSERT_TRUE(vars_.Set("offset_secs", SetScope::kSession, Value::Int(-7), &s, &warnings_).ok());
  EXPECT_EQ(Text("offset_secs", GetScope::kSession, &s), "-7");
  EXPECT_EQ(warnings_.size(), 2u);
}

TEST_F(SysVarsTest, DoubleOutOfRangeClampsWithWarning) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(
      vars_.Set("long_query_time", SetScope::kSession, Value::Double(-1), &s, &warnings_).ok());
  EXPECT_EQ(GetOk("long_query_time", GetScope::kSession, &s).double_value(), 0);
  EXPECT_EQ(warnings_.size(), 1u);
  ASSERT_TRUE(vars_.Set("long_query_time", SetScope::kSession, Value::Int(2), &s, &warnings_).ok());
  EXPECT_EQ(GetOk("long_query_time", GetScope::kSession, &s).double_value(), 2);
}

TEST_F(SysVarsTest, BlockSizeRoundsDownWithWarning) {
  ASSERT_TRUE(vars_.Set("max_allowed_packet", SetScope::kGlobal, Value::Int(5000), nullptr,
                        &warnings_).ok());
  EXPECT_EQ(Text("max_allowed_packet", GetScope::kGlobal), "4096");
  EXPECT_EQ(warnings_.size(), 1u);
}

TEST_F(SysVarsTest, NullWarningsPointerIsAllowed) {
  EXPECT_TRUE(vars_.Set("max_connections", SetScope::kGlobal, Value::Int(0), nullptr, nullptr).ok());
}

// ---- DEFAULT ----

TEST_F(SysVarsTest, SetGlobalDefaultRestoresCompiledDefault) {
  ASSERT_TRUE(
      vars_.Set("max_connections", SetScope::kGlobal, Value::Int(500), nullptr, &warnings_).ok());
  ASSERT_TRUE(vars_.SetDefault("max_connections", SetScope::kGlobal, nullptr, &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "151");
}

TEST_F(SysVarsTest, SetSessionDefaultCopiesCurrentGlobalValue) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(
      vars_.Set("binlog_format", SetScope::kGlobal, Value::String("MIXED"), nullptr, &warnings_).ok());
  EXPECT_EQ(Text("binlog_format", GetScope::kSession, &s), "ROW");  // connect-time value
  ASSERT_TRUE(vars_.SetDefault("binlog_format", SetScope::kSession, &s, &warnings_).ok());
  EXPECT_EQ(Text("binlog_format", GetScope::kSession, &s), "MIXED");
}

TEST_F(SysVarsTest, SetDefaultOfSessionOnlyVariableRestoresDefault) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("last_insert_id", SetScope::kSession, Value::Int(42), &s, &warnings_).ok());
  EXPECT_EQ(Text("last_insert_id", GetScope::kDefault, &s), "42");
  ASSERT_TRUE(s.OwnValue("last_insert_id").has_value());
  ASSERT_TRUE(vars_.SetDefault("last_insert_id", SetScope::kDefault, &s, &warnings_).ok());
  EXPECT_EQ(Text("last_insert_id", GetScope::kDefault, &s), "0");
  EXPECT_FALSE(s.OwnValue("last_insert_id").has_value());
}

TEST_F(SysVarsTest, SetDefaultFollowsTheSameScopeRules) {
  ExpectError(vars_.SetDefault("version", SetScope::kGlobal, nullptr, &warnings_), 1238,
              "Variable 'version' is a read only variable");
  SessionVariables s = vars_.NewSession();
  EXPECT_EQ(vars_.SetDefault("max_connections", SetScope::kSession, &s, &warnings_).mysql_errno(),
            1229);
}

// ---- Session isolation ----

TEST_F(SysVarsTest, SetGlobalDoesNotChangeExistingSessions) {
  SessionVariables before = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kGlobal, Value::Int(0), nullptr, &warnings_).ok());
  SessionVariables after = vars_.NewSession();
  EXPECT_EQ(GetOk("autocommit", GetScope::kDefault, &before).int_value(), 1);
  EXPECT_EQ(GetOk("autocommit", GetScope::kDefault, &after).int_value(), 0);
  EXPECT_EQ(GetOk("autocommit", GetScope::kGlobal, &before).int_value(), 0);
}

TEST_F(SysVarsTest, SetSessionChangesOnlyThatSession) {
  SessionVariables a = vars_.NewSession();
  SessionVariables b = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kSession, Value::Int(0), &a, &warnings_).ok());
  EXPECT_EQ(GetOk("autocommit", GetScope::kDefault, &a).int_value(), 0);
  EXPECT_EQ(GetOk("autocommit", GetScope::kDefault, &b).int_value(), 1);
  EXPECT_EQ(GetOk("autocommit", GetScope::kGlobal).int_value(), 1);
}

TEST_F(SysVarsTest, GlobalOnlyVariablesAreLiveInSessions) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(
      vars_.Set("max_connections", SetScope::kGlobal, Value::Int(7), nullptr, &warnings_).ok());
  EXPECT_EQ(Text("max_connections", GetScope::kDefault, &s), "7");
}

TEST_F(SysVarsTest, SessionSeesGlobalOfVariableRegisteredAfterItStarted) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Register(VariableSpec::Bool("rpl_semi_sync_source_enabled", VarScope::kGlobal,
                                                false, "Semisync on.")).ok());
  ASSERT_TRUE(vars_.Register(VariableSpec::UInt("plugin_session_knob", VarScope::kBoth, 3, 0, 10,
                                                "A plugin's session knob.")).ok());
  EXPECT_EQ(Text("plugin_session_knob", GetScope::kSession, &s), "3");
  EXPECT_EQ(GetOk("rpl_semi_sync_source_enabled", GetScope::kDefault, &s).int_value(), 0);
}

TEST_F(SysVarsTest, SessionsAreMovable) {
  SessionVariables a = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kSession, Value::Int(0), &a, &warnings_).ok());
  SessionVariables b = std::move(a);
  EXPECT_EQ(GetOk("autocommit", GetScope::kSession, &b).int_value(), 0);
}

// ---- Callbacks ----

TEST_F(SysVarsTest, CheckCallbackRejectsWithItsOwnError) {
  ASSERT_TRUE(vars_.AddHooks("max_connections",
                             [](SetScope, Value* v, const SessionVariables*) -> Status {
                               if (v->ToUInt() == 13) {
                                 return Status::MySQL(1210, "HY000", "unlucky");
                               }
                               return Status::OK();
                             },
                             nullptr).ok());
  ExpectError(vars_.Set("max_connections", SetScope::kGlobal, Value::Int(13), nullptr, &warnings_),
              1210, "unlucky");
  EXPECT_EQ(Text("max_connections"), "151");
  EXPECT_TRUE(vars_.Set("max_connections", SetScope::kGlobal, Value::Int(14), nullptr, &warnings_).ok());
}

TEST_F(SysVarsTest, CheckCallbackMayCanonicaliseTheValue) {
  ASSERT_TRUE(vars_.AddHooks("character_set_results",
                             [](SetScope, Value* v, const SessionVariables*) -> Status {
                               if (!v->is_null() && v->string_value() == "UTF8") {
                                 *v = Value::String("utf8mb3");
                               }
                               return Status::OK();
                             },
                             nullptr).ok());
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("character_set_results", SetScope::kSession, Value::String("UTF8"), &s,
                        &warnings_).ok());
  EXPECT_EQ(Text("character_set_results", GetScope::kSession, &s), "utf8mb3");
}

TEST_F(SysVarsTest, UpdateCallbackSeesNewValueAndScope) {
  std::vector<std::pair<SetScope, std::string>> seen;
  ASSERT_TRUE(vars_.AddHooks("autocommit", nullptr,
                             [&seen](SetScope scope, const Value& v, SessionVariables*) {
                               seen.emplace_back(scope, v.ToString());
                             }).ok());
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kDefault, Value::String("OFF"), &s, &warnings_).ok());
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kGlobal, Value::String("OFF"), nullptr, &warnings_).ok());
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].first, SetScope::kSession);
  EXPECT_EQ(seen[0].second, "0");
  EXPECT_EQ(seen[1].first, SetScope::kGlobal);
}

TEST_F(SysVarsTest, GetterComputesValueAndSessionBindingOverridesIt) {
  ASSERT_TRUE(vars_.Register(VariableSpec::UInt("warning_count", VarScope::kSession, 0, 0,
                                                UINT64_MAX, "Warnings of the last statement.")
                                 .ReadOnly()
                                 .NotPersistable()
                                 .Getter([](const SessionVariables*) { return Value::UInt(0); })).ok());
  SessionVariables s = vars_.NewSession();
  EXPECT_EQ(Text("warning_count", GetScope::kDefault, &s), "0");
  uint64_t count = 3;
  s.BindComputed("WARNING_COUNT", [&count] { return Value::UInt(count); });
  EXPECT_EQ(Text("warning_count", GetScope::kDefault, &s), "3");
  count = 5;
  EXPECT_EQ(Text("warning_count", GetScope::kSession, &s), "5");
  ExpectError(vars_.Set("warning_count", SetScope::kSession, Value::Int(1), &s, &warnings_), 1238,
              "Variable 'warning_count' is a read only variable");
}

// ---- Listing ----

TEST_F(SysVarsTest, ListGlobalIsSortedAndOmitsSessionOnlyVariables) {
  std::vector<VariableRow> rows = vars_.List(GetScope::kGlobal, nullptr);
  ASSERT_FALSE(rows.empty());
  for (size_t i = 1; i < rows.size(); ++i) EXPECT_LT(rows[i - 1].name, rows[i].name);
  for (const VariableRow& r : rows) EXPECT_NE(r.name, "last_insert_id");
  auto find = [&](std::string_view name) -> const VariableRow* {
    for (const VariableRow& r : rows) {
      if (r.name == name) return &r;
    }
    return nullptr;
  };
  ASSERT_NE(find("autocommit"), nullptr);
  EXPECT_EQ(find("autocommit")->value, "ON");
  EXPECT_EQ(find("long_query_time")->value, "10.000000");
  EXPECT_EQ(find("modes")->value, "A_FLAG,B_FLAG");
  EXPECT_EQ(find("max_connections")->value, "151");
}

TEST_F(SysVarsTest, ListSessionShowsSessionValuesAndGlobalOnlyOnes) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("autocommit", SetScope::kSession, Value::Int(0), &s, &warnings_).ok());
  ASSERT_TRUE(
      vars_.Set("character_set_results", SetScope::kSession, Value::Null(), &s, &warnings_).ok());
  std::vector<VariableRow> rows = vars_.List(GetScope::kSession, &s);
  std::map<std::string, std::optional<std::string>> by_name;
  for (const VariableRow& r : rows) by_name[r.name] = r.value;
  EXPECT_EQ(by_name.size(), rows.size());
  EXPECT_EQ(by_name["autocommit"], "OFF");
  EXPECT_EQ(by_name["max_connections"], "151");
  EXPECT_EQ(by_name["last_insert_id"], "0");
  EXPECT_EQ(by_name["character_set_results"], std::nullopt);
}

// ---- Registration ----

TEST_F(SysVarsTest, RegisterRejectsDuplicatesAndBadSpecs) {
  EXPECT_EQ(vars_.Register(VariableSpec::Bool("AUTOCOMMIT", VarScope::kBoth, true, "dup")).code(),
            Status::Code::kInvalidArgument);
  EXPECT_FALSE(vars_.Register(VariableSpec::UInt("bad_range", VarScope::kGlobal, 5, 10, 1, "x")).ok());
  EXPECT_FALSE(vars_.Register(VariableSpec::UInt("bad_default", VarScope::kGlobal, 50, 1, 10, "x")).ok());
  EXPECT_FALSE(vars_.Register(VariableSpec::Enum("bad_enum", VarScope::kGlobal, {"A"}, "B", "x")).ok());
  EXPECT_FALSE(vars_.Register(VariableSpec::String("bad_null", VarScope::kGlobal, std::nullopt, "x")).ok());
  EXPECT_FALSE(vars_.Register(VariableSpec::Bool("bad_sro", VarScope::kGlobal, true, "x")
                                  .SessionReadOnly()).ok());
  EXPECT_FALSE(vars_.Register(VariableSpec::Bool("x_alias", VarScope::kGlobal, true, "x")
                                  .Alias("autocommit")).ok());
  EXPECT_FALSE(vars_.Exists("x_alias"));
}

TEST_F(SysVarsTest, AliasesShareOneValueAndAreListed) {
  ASSERT_TRUE(vars_.Register(VariableSpec::Bool("rpl_semi_sync_source_enabled", VarScope::kGlobal,
                                                false, "Semisync on.")
                                 .Alias("rpl_semi_sync_master_enabled")).ok());
  ASSERT_TRUE(vars_.Set("RPL_SEMI_SYNC_MASTER_ENABLED", SetScope::kGlobal, Value::String("ON"),
                        nullptr, &warnings_).ok());
  EXPECT_EQ(GetOk("rpl_semi_sync_source_enabled").int_value(), 1);
  int listed = 0;
  for (const VariableRow& r : vars_.List(GetScope::kGlobal, nullptr)) {
    if (r.name == "rpl_semi_sync_master_enabled" || r.name == "rpl_semi_sync_source_enabled") {
      EXPECT_EQ(r.value, "ON");
      ++listed;
    }
  }
  EXPECT_EQ(listed, 2);
  ExpectError(vars_.Set("rpl_semi_sync_master_enabled", SetScope::kGlobal, Value::Int(7), nullptr,
                        &warnings_), 1231,
              "Variable 'rpl_semi_sync_source_enabled' can't be set to the value of '7'");
  ASSERT_TRUE(vars_.Unregister("rpl_semi_sync_master_enabled").ok());
  EXPECT_FALSE(vars_.Exists("rpl_semi_sync_source_enabled"));
}

TEST_F(SysVarsTest, UnregisterMakesVariableUnknown) {
  ASSERT_TRUE(vars_.Unregister("binlog_format").ok());
  EXPECT_EQ(vars_.Get("binlog_format", GetScope::kDefault, nullptr).status().mysql_errno(), 1193);
  EXPECT_EQ(vars_.Unregister("binlog_format").mysql_errno(), 1193);
}

TEST_F(SysVarsTest, ReRegisteredVariableIgnoresStaleSessionValues) {
  SessionVariables s = vars_.NewSession();
  ASSERT_TRUE(vars_.Set("binlog_format", SetScope::kSession, Value::String("MIXED"), &s,
                        &warnings_).ok());
  ASSERT_TRUE(vars_.Unregister("binlog_format").ok());
  ASSERT_TRUE(vars_.Register(VariableSpec::UInt("binlog_format", VarScope::kBoth, 9, 0, 10,
                                                "Now a number.")).ok());
  EXPECT_EQ(Text("binlog_format", GetScope::kSession, &s), "9");
}

TEST_F(SysVarsTest, DescribeReportsTheDefinition) {
  std::optional<VariableInfo> info = vars_.Describe("Binlog_Format");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->name, "binlog_format");
  EXPECT_EQ(info->type, VarType::kEnum);
  EXPECT_EQ(info->scope, VarScope::kBoth);
  EXPECT_EQ(info->names.size(), 3u);
  EXPECT_FALSE(vars_.Describe("nope").has_value());
}

TEST_F(SysVarsTest, GetFlagsReturnsStoredNumbers) {
  EXPECT_EQ(*vars_.GetFlags("autocommit", GetScope::kGlobal, nullptr), 1u);
  EXPECT_EQ(*vars_.GetFlags("binlog_format", GetScope::kGlobal, nullptr), 2u);
  EXPECT_EQ(*vars_.GetFlags("max_connections", GetScope::kGlobal, nullptr), 151u);
  EXPECT_FALSE(vars_.GetFlags("init_connect", GetScope::kGlobal, nullptr).ok());
  EXPECT_EQ(vars_.GetFlags("nope", GetScope::kGlobal, nullptr).status().mysql_errno(), 1193);
}

// ---- Start-up values ----

TEST_F(SysVarsTest, StartupValueAcceptsSuffixesAndReadOnlyVariables) {
  ASSERT_TRUE(vars_.SetStartupValue("max_allowed_packet", "16M", &warnings_).ok());
  EXPECT_EQ(Text("max_allowed_packet", GetScope::kGlobal), "16777216");
  ASSERT_TRUE(vars_.SetStartupValue("port", "13306", &warnings_).ok());
  EXPECT_EQ(Text("port"), "13306");
  ASSERT_TRUE(vars_.SetStartupValue("autocommit", "OFF", &warnings_).ok());
  EXPECT_EQ(GetOk("autocommit", GetScope::kGlobal).int_value(), 0);
  ASSERT_TRUE(vars_.SetStartupValue("modes", "c_flag", &warnings_).ok());
  EXPECT_EQ(Text("modes", GetScope::kGlobal), "C_FLAG");
  ASSERT_TRUE(vars_.SetStartupValue("long_query_time", "0.5", &warnings_).ok());
  EXPECT_EQ(GetOk("long_query_time", GetScope::kGlobal).double_value(), 0.5);
  EXPECT_TRUE(warnings_.empty());
  // The compiled default stays the default.
  ASSERT_TRUE(vars_.SetDefault("max_allowed_packet", SetScope::kGlobal, nullptr, &warnings_).ok());
  EXPECT_EQ(Text("max_allowed_packet", GetScope::kGlobal), "67108864");
}

TEST_F(SysVarsTest, StartupValueRejectsGarbage) {
  EXPECT_EQ(vars_.SetStartupValue("max_connections", "lots", &warnings_).mysql_errno(), 1231);
  EXPECT_EQ(vars_.SetStartupValue("max_connections", "99999999999999999999", &warnings_).mysql_errno(),
            1231);
  EXPECT_EQ(vars_.SetStartupValue("long_query_time", "1.5s", &warnings_).mysql_errno(), 1231);
  EXPECT_EQ(vars_.SetStartupValue("nope", "1", &warnings_).mysql_errno(), 1193);
}

// ---- PERSIST ----

class PersistTest : public SysVarsTest {
 protected:
  void SetUp() override {
    SysVarsTest::SetUp();
    char tmpl[] = "/tmp/sluice_vars_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string ReadAll(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  // A second registry with the same definitions, as after a restart.
  std::unique_ptr<SystemVariables> Restart() {
    auto fresh = std::make_unique<SystemVariables>();
    EXPECT_TRUE(fresh->Register(VariableSpec::UInt("max_connections", VarScope::kGlobal, 151, 1,
                                                   100000, "x")).ok());
    EXPECT_TRUE(fresh->Register(VariableSpec::Set("modes", VarScope::kBoth,
                                                  {"A_FLAG", "B_FLAG", "", "C_FLAG", "COMBO"},
                                                  "B_FLAG", "x")).ok());
    EXPECT_TRUE(fresh->Register(VariableSpec::UInt("port", VarScope::kGlobal, 3306, 0, 65535, "x")
                                    .ReadOnly()).ok());
    EXPECT_TRUE(fresh->Register(VariableSpec::String("init_connect", VarScope::kGlobal, "", "x")).ok());
    return fresh;
  }

  std::string dir_;
};

TEST_F(PersistTest, PersistWithoutDataDirectoryFails) {
  Status st = vars_.Set("max_connections", SetScope::kPersist, Value::Int(5), nullptr, &warnings_);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(Text("max_connections"), "151");  // nothing changed
}

TEST_F(PersistTest, MissingFileLoadsNothing) {
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  EXPECT_EQ(vars_.persisted_file(), dir_ + "/mysqld-auto.cnf");
  EXPECT_FALSE(std::filesystem::exists(vars_.persisted_file()));
}

TEST_F(PersistTest, PersistedValuesSurviveARestart) {
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  ASSERT_TRUE(vars_.Set("max_connections", SetScope::kPersist, Value::Int(500), nullptr, &warnings_,
                        PersistedBy{"admin", "10.0.0.1"}).ok());
  EXPECT_EQ(Text("max_connections"), "500");  // PERSIST also sets the global value
  ASSERT_TRUE(vars_.Set("modes", SetScope::kPersist, Value::String("c_flag,a_flag"), nullptr,
                        &warnings_).ok());
  ASSERT_TRUE(vars_.Set("init_connect", SetScope::kPersist, Value::String("SET @a=\"x\\y\"\n"),
                        nullptr, &warnings_).ok());

  // The file is MySQL 8.0's JSON layout.
  Result<internal::Json> json = internal::ParseJson(ReadAll(dir_ + "/mysqld-auto.cnf"));
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  ASSERT_NE(json->Find("Version"), nullptr);
  EXPECT_EQ(json->Find("Version")->text, "1");
  const internal::Json* entry = json->Find("mysql_server")->Find("max_connections");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->Find("Value")->text, "500");
  EXPECT_EQ(entry->Find("Metadata")->Find("User")->text, "admin");
  EXPECT_EQ(entry->Find("Metadata")->Find("Host")->text, "10.0.0.1");
  EXPECT_EQ(entry->Find("Metadata")->Find("Timestamp")->kind, internal::Json::Kind::kNumber);

  auto fresh = Restart();
  ASSERT_TRUE(fresh->LoadPersisted(dir_).ok());
  EXPECT_EQ(fresh->Get("max_connections", GetScope::kGlobal, nullptr)->ToString(), "500");
  EXPECT_EQ(fresh->Get("modes", GetScope::kGlobal, nullptr)->ToString(), "A_FLAG,C_FLAG");
  EXPECT_EQ(fresh->Get("init_connect", GetScope::kGlobal, nullptr)->ToString(), "SET @a=\"x\\y\"\n");
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/mysqld-auto.cnf.tmp"));
}

TEST_F(PersistTest, PersistOnlyWritesTheFileButNotTheRuntimeValue) {
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  int updates = 0;
  ASSERT_TRUE(vars_.AddHooks("max_connections", nullptr,
                             [&updates](SetScope, const Value&, SessionVariables*) { ++updates; }).ok());
  ASSERT_TRUE(vars_.Set("max_connections", SetScope::kPersistOnly, Value::Int(42), nullptr,
                        &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "151");
  EXPECT_EQ(updates, 0);
  auto fresh = Restart();
  ASSERT_TRUE(fresh->LoadPersisted(dir_).ok());
  EXPECT_EQ(fresh->Get("max_connections", GetScope::kGlobal, nullptr)->ToString(), "42");
}

TEST_F(PersistTest, PersistOnlyOfReadOnlyVariableGoesToStaticOptions) {
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  ExpectError(vars_.Set("port", SetScope::kPersist, Value::Int(3307), nullptr, &warnings_), 1238,
              "Variable 'port' is a read only variable");
  ASSERT_TRUE(vars_.Set("port", SetScope::kPersistOnly, Value::Int(3307), nullptr, &warnings_).ok());
  EXPECT_EQ(Text("port"), "3306");
  ExpectError(vars_.Set("version", SetScope::kPersistOnly, Value::String("9"), nullptr, &warnings_),
              1238, "Variable 'version' is a non persistent read only variable");

  Result<internal::Json> json = internal::ParseJson(ReadAll(dir_ + "/mysqld-auto.cnf"));
  ASSERT_TRUE(json.ok());
  const internal::Json* statics = json->Find("mysql_server")->Find("mysql_server_static_options");
  ASSERT_NE(statics, nullptr);
  EXPECT_EQ(statics->Find("port")->Find("Value")->text, "3307");

  auto fresh = Restart();
  ASSERT_TRUE(fresh->LoadPersisted(dir_).ok());
  EXPECT_EQ(fresh->Get("port", GetScope::kGlobal, nullptr)->ToString(), "3307");
}

TEST_F(PersistTest, PersistOfSessionOnlyVariableFailsWith1228) {
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  EXPECT_EQ(vars_.Set("last_insert_id", SetScope::kPersist, Value::Int(1), nullptr, &warnings_)
                .mysql_errno(), 1228);
}

TEST_F(PersistTest, UnknownNamesAreKeptAndAppliedWhenRegistered) {
  {
    std::ofstream out(dir_ + "/mysqld-auto.cnf");
    out << R"({ "Version" : 1 , "mysql_server" : {
      "rpl_semi_sync_source_timeout" : { "Value" : "2500" , "Metadata" : { "Timestamp" : 1700000000000000 , "User" : "root" , "Host" : "localhost" } } ,
      "max_connections" : { "Value" : "not a number" , "Metadata" : { "Timestamp" : 1 , "User" : "root" , "Host" : "localhost" } } } })";
  }
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());  // the bad value is logged, not fatal
  EXPECT_EQ(Text("max_connections"), "151");
  // Rewriting the file keeps the unknown name.
  ASSERT_TRUE(
      vars_.Set("autocommit", SetScope::kPersist, Value::Int(0), nullptr, &warnings_).ok());
  std::string text = ReadAll(dir_ + "/mysqld-auto.cnf");
  EXPECT_NE(text.find("rpl_semi_sync_source_timeout"), std::string::npos);
  EXPECT_NE(text.find("1700000000000000"), std::string::npos);
  // The plugin registers its variable later: the persisted value applies.
  ASSERT_TRUE(vars_.Register(VariableSpec::UInt("rpl_semi_sync_source_timeout", VarScope::kGlobal,
                                                10000, 0, UINT32_MAX, "Ack wait in ms.")).ok());
  EXPECT_EQ(Text("rpl_semi_sync_source_timeout"), "2500");
}

TEST_F(PersistTest, CorruptFileIsReportedAsCorruption) {
  {
    std::ofstream out(dir_ + "/mysqld-auto.cnf");
    out << R"({ "Version" : 1 , "mysql_server" : { "x" : )";
  }
  Status st = vars_.LoadPersisted(dir_);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
}

TEST_F(PersistTest, ResetPersistRemovesEntries) {
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  ASSERT_TRUE(vars_.Set("max_connections", SetScope::kPersist, Value::Int(9), nullptr, &warnings_).ok());
  ASSERT_TRUE(vars_.Set("modes", SetScope::kPersist, Value::String(""), nullptr, &warnings_).ok());
  ASSERT_TRUE(vars_.ResetPersist("MAX_CONNECTIONS", false, &warnings_).ok());
  EXPECT_EQ(Text("max_connections"), "9");  // runtime value unchanged
  ExpectError(vars_.ResetPersist("max_connections", false, &warnings_), 3615,
              "Variable max_connections does not exist in persisted config file");
  ASSERT_TRUE(vars_.ResetPersist("max_connections", true, &warnings_).ok());
  ASSERT_EQ(warnings_.size(), 1u);
  EXPECT_EQ(warnings_[0].mysql_errno(), 3615);

  auto fresh = Restart();
  ASSERT_TRUE(fresh->LoadPersisted(dir_).ok());
  EXPECT_EQ(fresh->Get("max_connections", GetScope::kGlobal, nullptr)->ToString(), "151");
  EXPECT_EQ(fresh->Get("modes", GetScope::kGlobal, nullptr)->ToString(), "");

  ASSERT_TRUE(vars_.ResetPersist(std::nullopt, false, &warnings_).ok());
  auto again = Restart();
  ASSERT_TRUE(again->LoadPersisted(dir_).ok());
  EXPECT_EQ(again->Get("modes", GetScope::kGlobal, nullptr)->ToString(), "B_FLAG");
}

TEST_F(PersistTest, ReadsVersion2Layout) {
  {
    std::ofstream out(dir_ + "/mysqld-auto.cnf");
    out << R"({"Version": 2,
      "mysql_dynamic_variables": {"max_connections": {"Value": "77", "Metadata": {"Timestamp": 5, "User": "u", "Host": "h"}}},
      "mysql_static_variables": {"port": {"Value": "4406", "Metadata": {"Timestamp": 5, "User": "u", "Host": "h"}}},
      "mysql_sensitive_variables": {"key": "zzz"}})";
  }
  ASSERT_TRUE(vars_.LoadPersisted(dir_).ok());
  EXPECT_EQ(Text("max_connections"), "77");
  EXPECT_EQ(Text("port"), "4406");
}

// ---- Concurrency ----

TEST_F(SysVarsTest, RegisterAndUnregisterWhileOthersRead) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      SessionVariables s = vars_.NewSession();
      std::vector<Status> w;
      while (!stop.load()) {
        EXPECT_EQ(vars_.Get("max_connections", GetScope::kGlobal, &s)->ToUInt(), 151u);
        Result<Value> plugin = vars_.Get("plugin_var", GetScope::kDefault, &s);
        if (!plugin.ok()) {
          EXPECT_EQ(plugin.status().mysql_errno(), 1193);
        }
        Status set = vars_.Set("plugin_var", SetScope::kSession, Value::Int(t), &s, &w);
        if (!set.ok()) {
          EXPECT_EQ(set.mysql_errno(), 1193);
        }
        Status set_global = vars_.Set("plugin_var", SetScope::kGlobal, Value::Int(t), nullptr, &w);
        if (!set_global.ok()) {
          EXPECT_EQ(set_global.mysql_errno(), 1193);
        }
        EXPECT_GE(vars_.List(GetScope::kSession, &s).size(), 12u);
      }
    });
  }
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(vars_.Register(VariableSpec::UInt("plugin_var", VarScope::kBoth, 1, 0, 100,
                                                  "A plugin's variable.")
                                   .Alias("plugin_var_old")).ok());
    ASSERT_TRUE(vars_.Unregister("plugin_var").ok());
  }
  stop = true;
  for (std::thread& t : readers) t.join();
  EXPECT_FALSE(vars_.Exists("plugin_var_old"));
}

// ---- PERSIST through an injected fault (io::MemFileSystem) ----

// A SET PERSIST whose file write fails at any step before the rename
// returns an error, leaves mysqld-auto.cnf as it was and the runtime value
// unchanged; the next SET PERSIST works again.
class PersistFaultTest : public ::testing::TestWithParam<io::MemFileSystem::Op> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs_.CreateDir("/data").ok());
    SystemVariables::Options o;
    o.fs = &fs_;
    vars_ = std::make_unique<SystemVariables>(o);
    ASSERT_TRUE(vars_->Register(VariableSpec::UInt("max_connections", VarScope::kGlobal, 151, 1,
                                                   100000, "x")).ok());
    ASSERT_TRUE(vars_->LoadPersisted("/data").ok());
  }
  std::string PersistedValue() {
    auto text = io::ReadFileIfExists(fs_, "/data/mysqld-auto.cnf");
    EXPECT_TRUE(text.ok() && text->has_value());
    if (!text.ok() || !text->has_value()) return "";
    Result<internal::Json> json = internal::ParseJson(**text);
    EXPECT_TRUE(json.ok());
    if (!json.ok()) return "";
    return json->Find("mysql_server")->Find("max_connections")->Find("Value")->text;
  }
  std::string Global() { return vars_->Get("max_connections", GetScope::kGlobal, nullptr)->ToString(); }

  io::MemFileSystem fs_;
  std::unique_ptr<SystemVariables> vars_;
  std::vector<Status> warnings_;
};

TEST_P(PersistFaultTest, FailedWriteKeepsOldFileAndValue) {
  ASSERT_TRUE(vars_->Set("max_connections", SetScope::kPersist, Value::Int(500), nullptr, &warnings_).ok());
  io::MemFileSystem::Fault f;
  f.op = GetParam();
  f.torn_bytes = 5;
  fs_.InjectFault(f);
  Status st = vars_->Set("max_connections", SetScope::kPersist, Value::Int(600), nullptr, &warnings_);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(st.IsIOError()) << st.ToString();
  EXPECT_EQ(fs_.faults_fired(), 1u);
  EXPECT_EQ(Global(), "500");
  EXPECT_EQ(PersistedValue(), "500");
  EXPECT_FALSE(*fs_.Exists("/data/mysqld-auto.cnf.tmp"));
  fs_.DropUnsyncedData();  // a crash right after
  EXPECT_EQ(PersistedValue(), "500");

  ASSERT_TRUE(vars_->Set("max_connections", SetScope::kPersist, Value::Int(700), nullptr, &warnings_).ok());
  EXPECT_EQ(PersistedValue(), "700");
  SystemVariables::Options o;
  o.fs = &fs_;
  SystemVariables fresh(o);
  ASSERT_TRUE(fresh.Register(VariableSpec::UInt("max_connections", VarScope::kGlobal, 151, 1, 100000, "x")).ok());
  ASSERT_TRUE(fresh.LoadPersisted("/data").ok());
  EXPECT_EQ(fresh.Get("max_connections", GetScope::kGlobal, nullptr)->ToString(), "700");
}

INSTANTIATE_TEST_SUITE_P(EveryStep, PersistFaultTest,
                         ::testing::Values(io::MemFileSystem::Op::kWrite, io::MemFileSystem::Op::kSync,
                                           io::MemFileSystem::Op::kRename),
                         [](const auto& info) {
                           switch (info.param) {
                             case io::MemFileSystem::Op::kWrite: return "Write";
                             case io::MemFileSystem::Op::kSync: return "Sync";
                             default: return "Rename";
                           }
                         });

TEST(PersistFault, UnreadableFileFailsLoad) {
  io::MemFileSystem fs;
  ASSERT_TRUE(fs.CreateDir("/data").ok());
  ASSERT_TRUE(io::WriteFileAtomically(fs, "/data/mysqld-auto.cnf", "{ \"Version\" : 1 }").ok());
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kRead;
  fs.InjectFault(f);
  SystemVariables::Options o;
  o.fs = &fs;
  SystemVariables vars(o);
  EXPECT_TRUE(vars.LoadPersisted("/data").IsIOError());
}

}  // namespace
}  // namespace sluice::vars
