#include "sql/eval.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/mysql_error.h"
#include "sql/parser.h"

namespace sluice::sql {
namespace {

class FakeContext : public EvalContext {
 public:
  Result<Value> GetSystemVariable(std::string_view name, VarScope scope) override {
    last_scope = scope;
    if (name == "version") return Value::String("8.0.36-sluice");
    if (name == "max_connections") return Value::Int(151);
    if (name == "time_zone") return Value::String(time_zone);
    if (name == "regexp_time_limit" && regexp_time_limit) return Value::UInt(*regexp_time_limit);
    return MakeError(er::kUnknownSystemVariable, name);
  }
  Value GetUserVariable(std::string_view name) override {
    auto it = user_vars.find(std::string(name));
    return it == user_vars.end() ? Value::Null() : it->second;
  }
  void SetUserVariable(std::string_view name, const Value& value) override {
    user_vars[std::string(name)] = value;
  }
  std::optional<std::string> CurrentDatabase() override { return db; }
  std::string User() override { return "root@localhost"; }
  std::string CurrentUser() override { return "root@%"; }
  uint64_t ConnectionId() override { return 42; }
  uint64_t LastInsertId() override { return last_insert_id; }
  void SetLastInsertId(uint64_t id) override { last_insert_id = id; }
  int64_t FoundRows() override { return 7; }
  int64_t RowCount() override { return -1; }
  std::string ServerVersion() override { return "8.0.36-sluice"; }
  std::chrono::system_clock::time_point StatementTime() override { return now; }
  bool SleepFor(std::chrono::nanoseconds d) override {
    slept.push_back(d);
    return !killed;
  }
  Status Warn(const er::Error& condition, std::string message) override {
    if (strict) return Status::MySQL(condition.code, condition.sqlstate, std::move(message));
    warnings.emplace_back(condition.code, std::move(message));
    return Status::OK();
  }
  bool strict = false;  // every condition an error, as in a strict INSERT
  Status CheckInterrupt() override {
    ++interrupt_checks;
    if (interrupt_after && interrupt_checks >= *interrupt_after) return MakeError(er::kQueryInterrupted);
    return Status::OK();
  }

  std::optional<uint64_t> regexp_time_limit;
  std::optional<uint64_t> interrupt_after;  // CheckInterrupt fails from this call on
  uint64_t interrupt_checks = 0;

  std::map<std::string, Value> user_vars;
  std::optional<std::string> db;
  uint64_t last_insert_id = 0;
  std::chrono::system_clock::time_point now =
      std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
  bool killed = false;
  std::vector<std::chrono::nanoseconds> slept;
  std::vector<std::pair<uint16_t, std::string>> warnings;
  VarScope last_scope = VarScope::kDefault;
  std::string time_zone = "SYSTEM";
};

class EvalTest : public ::testing::Test {
 protected:
  Result<Value> Eval(std::string_view text) {
    auto e = ParseExpression(text);
    if (!e.ok()) return e.status();
    exprs_.push_back(std::move(e).value());
    return Evaluate(*exprs_.back(), ctx_);
  }
  // The value as a client sees it: text, "NULL", or "ERROR <code>".
  std::string Text(std::string_view text) {
    auto v = Eval(text);
    if (!v.ok()) return "ERROR " + std::to_string(v.status().mysql_errno());
    return v->is_null() ? "NULL" : v->ToString();
  }
  // name(args...) assembled here from parsed arguments, in the shape the
  // parser gives INTERVAL forms: DATE_ADD(d, INTERVAL 1 DAY) is
  // Call("DATE_ADD", {"d", "1", "'DAY'"}). Independent of their syntax.
  std::string Call(std::string name, std::vector<std::string> args) {
    auto e = std::make_unique<Expr>(ExprKind::kFunction);
    e->name = std::move(name);
    for (const std::string& a : args) {
      auto arg = ParseExpression(a);
      if (!arg.ok()) return "PARSE ERROR " + a;
      e->args.push_back(std::move(arg).value());
    }
    exprs_.push_back(std::move(e));
    auto v = Evaluate(*exprs_.back(), ctx_);
    if (!v.ok()) return "ERROR " + std::to_string(v.status().mysql_errno());
    return v->is_null() ? "NULL" : v->ToString();
  }
  ValueKind Kind(std::string_view text) {
    auto v = Eval(text);
    EXPECT_TRUE(v.ok()) << text;
    return v.ok() ? v->kind() : ValueKind::kNull;
  }

  FakeContext ctx_;
  std::vector<ExprPtr> exprs_;
};

// ------------------------------------------------------------------ arithmetic typing

TEST_F(EvalTest, IntegerArithmeticStaysInteger) {
  EXPECT_EQ(Text("1 + 2 * 3"), "7");
  EXPECT_EQ(Kind("1 + 1"), ValueKind::kInt);
  EXPECT_EQ(Text("7 DIV 2"), "3");
  EXPECT_EQ(Text("-7 DIV 2"), "-3");
  EXPECT_EQ(Text("7 % 3"), "1");
  EXPECT_EQ(Text("-7 MOD 3"), "-1");
  EXPECT_EQ(Text("MOD(10, 4)"), "2");
}

TEST_F(EvalTest, DivisionGivesDecimalWithFourMoreDigits) {
  EXPECT_EQ(Text("1 / 3"), "0.3333");
  EXPECT_EQ(Kind("1 / 3"), ValueKind::kDecimal);
  EXPECT_EQ(Text("2 / 3"), "0.6667");
  EXPECT_EQ(Text("1.5 / 3"), "0.50000");
  EXPECT_EQ(Text("10 / 4"), "2.5000");
  EXPECT_EQ(Text("-1 / 3"), "-0.3333");
}

TEST_F(EvalTest, DivisionByZeroIsNullWithWarning) {
  EXPECT_EQ(Text("1 / 0"), "NULL");
  ASSERT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_EQ(ctx_.warnings[0].first, 1365);
  EXPECT_EQ(ctx_.warnings[0].second, "Division by 0");
  EXPECT_EQ(Text("1 DIV 0"), "NULL");
  EXPECT_EQ(Text("1 % 0"), "NULL");
  EXPECT_EQ(Text("1.5 / 0.0"), "NULL");
  EXPECT_EQ(Text("1e0 / 0"), "NULL");
}

TEST_F(EvalTest, DecimalArithmeticIsExact) {
  EXPECT_EQ(Text("0.1 + 0.2"), "0.3");
  EXPECT_EQ(Kind("0.1 + 0.2"), ValueKind::kDecimal);
  EXPECT_EQ(Text("1.10 * 2.5"), "2.750");
  EXPECT_EQ(Text("1.5 - 2"), "-0.5");
  EXPECT_EQ(Text("5.5 DIV 2"), "2");
  // DIV of a DOUBLE or a string is exact too (through DECIMAL, as MySQL).
  EXPECT_EQ(Text("-9223372036854775808 DIV '3.5'"), "-2635249153387078802");
  EXPECT_EQ(Text("9007199254740993 DIV 1e0"), "9007199254740993");  // the integer is not rounded to a DOUBLE
  EXPECT_EQ(Text("'10' DIV '3'"), "3");
  EXPECT_EQ(Text("7.5e0 DIV 2"), "3");
  // BETWEEN with a number among its operands reads hex literals as numbers.
  EXPECT_EQ(Text("0x41 BETWEEN 65 AND 66"), "1");
  EXPECT_EQ(Text("0x41 BETWEEN 0x41 AND 0.5"), "0");
  EXPECT_EQ(Text("0x41 BETWEEN 'A' AND 'B'"), "1");
  EXPECT_EQ(Text("5.5 % 2"), "1.5");
}

TEST_F(EvalTest, DecimalArithmeticIsExactToSixtyFiveDigits) {
  // Issue 18: past 38 digits the result stayed DOUBLE (1e20).
  EXPECT_EQ(Text("99999999999999999999 + 1"), "100000000000000000000");
  EXPECT_EQ(Kind("99999999999999999999 + 1"), ValueKind::kDecimal);
  EXPECT_EQ(Text("1234567890123456789012345678901234567890 * 98765432109876543210"),
            "121932631137021795224965706422496570642237463801111263526900");
  EXPECT_EQ(Text("1234567890123456789012345678901234567890 / 3"),
            "411522630041152263004115226300411522630.0000");
  EXPECT_EQ(Text("-" + std::string(64, '9') + " - 1"), "-1" + std::string(64, '0'));
  EXPECT_EQ(Text("CAST(1 AS DECIMAL(65,30)) / 3"), "0.333333333333333333333333333333");
  EXPECT_EQ(Text("ROUND(" + std::string(60, '4') + ".5)"), std::string(59, '4') + "5");
  EXPECT_EQ(Text("FLOOR(-" + std::string(50, '1') + ".5)"), "-" + std::string(49, '1') + "2");
  EXPECT_EQ(Text(std::string(40, '1') + " DIV 1"), "ERROR 1690");
}

TEST_F(EvalTest, DecimalOverflowIsAnError) {
  const std::string nines(65, '9');
  auto v = Eval(nines + " + 1");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().mysql_errno(), 1690);
  EXPECT_EQ(v.status().message(), "DECIMAL value is out of range in '(" + nines + " + 1)'");
  EXPECT_EQ(Text("1" + std::string(40, '0') + " * 1" + std::string(40, '0')), "ERROR 1690");
  EXPECT_EQ(Text("ROUND(" + nines + ", -1)"), "ERROR 1690");
  // CAST clips to the type's widest value with a warning, as for a column.
  EXPECT_EQ(Text("CAST(" + nines + " AS DECIMAL(65,30))"), std::string(35, '9') + "." + std::string(30, '9'));
  EXPECT_EQ(Text("CAST(-123.456 AS DECIMAL(4,2))"), "-99.99");
}

TEST_F(EvalTest, FloatsAndStringsMakeDouble) {
  EXPECT_EQ(Kind("1e0 + 1"), ValueKind::kDouble);
  EXPECT_EQ(Text("0.1e0 + 0.2e0"), "0.30000000000000004");
  EXPECT_EQ(Text("'1' + 1"), "2");
  EXPECT_EQ(Kind("'1' + 1"), ValueKind::kDouble);
  EXPECT_EQ(Text("'1.5abc' * 2"), "3");
  EXPECT_EQ(Text("1e20"), "1e20");
}

TEST_F(EvalTest, AStringReadAsANumberWarnsWhenMoreThanSpacesFollowIt) {
  auto warned = [&](std::string_view text) {
    ctx_.warnings.clear();
    const std::string v = Text(text);
    std::string out = v;
    for (const auto& [code, message] : ctx_.warnings) out += " | " + std::to_string(code) + " " + message;
    return out;
  };
  EXPECT_EQ(warned("'1.5abc' * 2"), "3 | 1292 Truncated incorrect DOUBLE value: '1.5abc'");
  EXPECT_EQ(warned("' 12 ' + 1"), "13");
  EXPECT_EQ(warned("'1e2' + 0"), "100");
  EXPECT_EQ(warned("'' + 0"), "0 | 1292 Truncated incorrect DOUBLE value: ''");
  EXPECT_EQ(warned("'.' + 0"), "0 | 1292 Truncated incorrect DOUBLE value: '.'");
  EXPECT_EQ(warned("1 = '1x'"), "1 | 1292 Truncated incorrect DOUBLE value: '1x'");
  EXPECT_EQ(warned("'1x' <=> 1"), "1 | 1292 Truncated incorrect DOUBLE value: '1x'");
  EXPECT_EQ(warned("2 IN (1, '2y')"), "1 | 1292 Truncated incorrect DOUBLE value: '2y'");
  EXPECT_EQ(warned("2 BETWEEN '1z' AND 3"), "1 | 1292 Truncated incorrect DOUBLE value: '1z'");
  EXPECT_EQ(warned("CASE 1 WHEN '1w' THEN 'y' END"), "y | 1292 Truncated incorrect DOUBLE value: '1w'");
  EXPECT_EQ(warned("-'5v'"), "-5 | 1292 Truncated incorrect DOUBLE value: '5v'");
  EXPECT_EQ(warned("1 | '2u'"), "3 | 1292 Truncated incorrect INTEGER value: '2u'");
  EXPECT_EQ(warned("CAST('4t' AS DOUBLE)"), "4 | 1292 Truncated incorrect DOUBLE value: '4t'");
  // Functions' numeric arguments: DOUBLE or INTEGER as the function reads them.
  EXPECT_EQ(warned("ABS('-3x')"), "3 | 1292 Truncated incorrect DOUBLE value: '-3x'");
  EXPECT_EQ(warned("MOD('7q', 4)"), "3 | 1292 Truncated incorrect DOUBLE value: '7q'");
  EXPECT_EQ(warned("LEFT('abc', '2y')"), "ab | 1292 Truncated incorrect INTEGER value: '2y'");
  EXPECT_EQ(warned("ROUND(2.345, '1 ')"), "2.3");
  EXPECT_EQ(warned("SQRT('16 ')"), "4");
  EXPECT_EQ(warned("FIELD(1, '1a', '1')"), "1 | 1292 Truncated incorrect DOUBLE value: '1a'");
  EXPECT_EQ(warned("FIELD('b', 'a', 'b')"), "2");
  EXPECT_EQ(warned("GREATEST(1, '2a')"), "2 | 1292 Truncated incorrect DOUBLE value: '2a'");
  EXPECT_EQ(warned("LEAST('b', 'a')"), "a");
  EXPECT_EQ(warned("FROM_UNIXTIME('1x') IS NOT NULL"), "1 | 1292 Truncated incorrect DECIMAL value: '1x'");
  // A string's truth value is its leading number, with the same warning.
  EXPECT_EQ(warned("'abc' IS TRUE"), "0 | 1292 Truncated incorrect DOUBLE value: 'abc'");
  EXPECT_EQ(warned("NOT 'x'"), "1 | 1292 Truncated incorrect DOUBLE value: 'x'");
  EXPECT_EQ(warned("'1y' AND 1"), "1 | 1292 Truncated incorrect DOUBLE value: '1y'");
  EXPECT_EQ(warned("IF('q', 1, 2)"), "2 | 1292 Truncated incorrect DOUBLE value: 'q'");
  EXPECT_EQ(warned("CASE WHEN 'w' THEN 1 ELSE 0 END"), "0 | 1292 Truncated incorrect DOUBLE value: 'w'");
  EXPECT_EQ(warned("' 1 ' IS TRUE"), "1");
  // A hex or bit literal's truth is its number's, with no warning.
  EXPECT_EQ(warned("b'101' AND 1"), "1");
  EXPECT_EQ(warned("NOT 0x00"), "1");
  EXPECT_EQ(warned("IF(X'41', 'y', 'n')"), "y");
  // Strings against strings, temporal strings, and NULL read nothing as a number.
  EXPECT_EQ(warned("'1x' = 'abc'"), "0");
  EXPECT_EQ(warned("DATE'2024-01-02' = 20240102"), "1");
  EXPECT_EQ(warned("NULL = 'x'"), "NULL");
  EXPECT_EQ(warned("'x' + NULL"), "NULL");
}

TEST_F(EvalTest, AContextThatMakesAConditionAnErrorEndsTheEvaluation) {
  // As SessionEval does in a strict INSERT, UPDATE or DELETE.
  ctx_.strict = true;
  auto v = Eval("1 + '2x'");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().mysql_errno(), 1292);
  EXPECT_EQ(v.status().sqlstate(), "22007");
  EXPECT_EQ(v.status().message(), "Truncated incorrect DOUBLE value: '2x'");
  EXPECT_EQ(Text("1 / 0"), "ERROR 1365");
  EXPECT_EQ(Text("CAST('1x' AS SIGNED)"), "ERROR 1292");
  EXPECT_EQ(Text("STR_TO_DATE('x', '%Y')"), "ERROR 1411");
  EXPECT_EQ(Text("DATE_ADD('9999-12-31', INTERVAL 1 DAY)"), "ERROR 1441");
  EXPECT_EQ(Text("LEFT('abc', '2y')"), "ERROR 1292");
  EXPECT_EQ(Text("SQRT('4w')"), "ERROR 1292");
  EXPECT_EQ(Text("1 + 1"), "2");
  EXPECT_TRUE(ctx_.warnings.empty());
}

TEST_F(EvalTest, BigintOverflowIsAnError) {
  auto v = Eval("9223372036854775807 + 1");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().mysql_errno(), 1690);
  EXPECT_EQ(v.status().message(), "BIGINT value is out of range in '(9223372036854775807 + 1)'");
  auto u = Eval("CAST(0 AS UNSIGNED) - 1");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(),
            "BIGINT UNSIGNED value is out of range in '(cast(0 as unsigned) - 1)'");
  EXPECT_EQ(Text("9223372036854775807 * 2"), "ERROR 1690");
  EXPECT_EQ(Text("-(-9223372036854775808)"), "ERROR 1690");
  EXPECT_EQ(Text("1e308 * 10"), "ERROR 1690");
}

TEST_F(EvalTest, UnsignedLiteralsAndNegation) {
  EXPECT_EQ(Kind("18446744073709551615"), ValueKind::kUInt);
  EXPECT_EQ(Text("18446744073709551615 + 0"), "18446744073709551615");
  EXPECT_EQ(Text("-9223372036854775808"), "-9223372036854775808");
  EXPECT_EQ(Kind("-9223372036854775808"), ValueKind::kInt);
  EXPECT_EQ(Text("-18446744073709551615"), "-18446744073709551615");
  EXPECT_EQ(Text("CAST(5 AS UNSIGNED) + -3"), "2");
}

TEST_F(EvalTest, HexLiteralsAreNumbersInNumericContext) {
  EXPECT_EQ(Text("X'41'"), "A");
  EXPECT_EQ(Text("0x41 + 0"), "65");
  EXPECT_EQ(Text("X'41' = 'A'"), "1");
  EXPECT_EQ(Text("0x41 = 65"), "1");
  EXPECT_EQ(Text("b'101' | 0"), "5");
}

TEST_F(EvalTest, BitOperationsUseUnsigned64) {
  EXPECT_EQ(Text("~0"), "18446744073709551615");
  EXPECT_EQ(Text("1 << 3"), "8");
  EXPECT_EQ(Text("1 << 64"), "0");
  EXPECT_EQ(Text("6 & 3"), "2");
  EXPECT_EQ(Text("6 | 3"), "7");
  EXPECT_EQ(Text("6 ^ 3"), "5");
  EXPECT_EQ(Text("-1 >> 60"), "15");
}

// ------------------------------------------------------------------ logic and comparison

TEST_F(EvalTest, ThreeValuedLogic) {
  EXPECT_EQ(Text("NULL AND 0"), "0");
  EXPECT_EQ(Text("NULL AND 1"), "NULL");
  EXPECT_EQ(Text("NULL OR 1"), "1");
  EXPECT_EQ(Text("NULL OR 0"), "NULL");
  EXPECT_EQ(Text("NULL XOR 1"), "NULL");
  EXPECT_EQ(Text("1 XOR 1"), "0");
  EXPECT_EQ(Text("NOT NULL"), "NULL");
  EXPECT_EQ(Text("NOT 0"), "1");
  EXPECT_EQ(Text("!1"), "0");
  EXPECT_EQ(Text("1 && 2"), "1");
  EXPECT_EQ(Text("0 || 0"), "0");
}

TEST_F(EvalTest, AndShortCircuits) {
  EXPECT_EQ(Text("0 AND SLEEP(5)"), "0");
  EXPECT_TRUE(ctx_.slept.empty());
}

TEST_F(EvalTest, ComparisonsFollowMySQLRules) {
  EXPECT_EQ(Text("'abc' = 'ABC'"), "1");
  EXPECT_EQ(Text("BINARY 'abc' = 'ABC'"), "0");
  EXPECT_EQ(Text("'abc' = 'ABC' COLLATE utf8mb4_bin"), "0");
  EXPECT_EQ(Text("'a' < 'B'"), "1");
  EXPECT_EQ(Text("1 = '1'"), "1");
  EXPECT_EQ(Text("'10' > 9"), "1");
  EXPECT_EQ(Text("'10' > '9'"), "0");
  EXPECT_EQ(Text("1.0 = 1"), "1");
  EXPECT_EQ(Text("18446744073709551615 > -1"), "1");
  EXPECT_EQ(Text("NULL = NULL"), "NULL");
  EXPECT_EQ(Text("NULL <=> NULL"), "1");
  EXPECT_EQ(Text("1 <=> NULL"), "0");
  EXPECT_EQ(Text("1 != 2"), "1");
  EXPECT_EQ(Text("2 <> 2"), "0");
}

TEST_F(EvalTest, IsInBetweenCase) {
  EXPECT_EQ(Text("NULL IS NULL"), "1");
  EXPECT_EQ(Text("1 IS NOT NULL"), "1");
  EXPECT_EQ(Text("0 IS FALSE"), "1");
  EXPECT_EQ(Text("NULL IS TRUE"), "0");
  EXPECT_EQ(Text("NULL IS UNKNOWN"), "1");
  EXPECT_EQ(Text("2 IN (1, 2, 3)"), "1");
  EXPECT_EQ(Text("'B' IN ('a', 'b')"), "1");
  EXPECT_EQ(Text("4 IN (1, NULL)"), "NULL");
  EXPECT_EQ(Text("4 NOT IN (1, 2)"), "1");
  EXPECT_EQ(Text("NULL IN (1)"), "NULL");
  EXPECT_EQ(Text("2 BETWEEN 1 AND 3"), "1");
  EXPECT_EQ(Text("5 NOT BETWEEN 1 AND 3"), "1");
  EXPECT_EQ(Text("5 BETWEEN NULL AND 3"), "0");
  EXPECT_EQ(Text("2 BETWEEN NULL AND 3"), "NULL");
  EXPECT_EQ(Text("CASE 2 WHEN 1 THEN 'a' WHEN 2 THEN 'b' ELSE 'c' END"), "b");
  EXPECT_EQ(Text("CASE WHEN 0 THEN 'a' END"), "NULL");
  EXPECT_EQ(Text("CASE WHEN NULL THEN 'a' ELSE 'z' END"), "z");
}

// KILL reaches a match that no time limit bounds: the engine calls
// CheckInterrupt every step and stops at its error.
TEST_F(EvalTest, RegexpStopsWhenInterrupted) {
  ctx_.regexp_time_limit = 0;
  ctx_.interrupt_after = 5;
  EXPECT_EQ(Text("REPEAT('a', 40) REGEXP '(a+)+b'"), "ERROR 1317");
  EXPECT_EQ(ctx_.interrupt_checks, 5u);
}

TEST_F(EvalTest, LikeAndRegexp) {
  EXPECT_EQ(Text("'Hello' LIKE 'h%'"), "1");
  EXPECT_EQ(Text("'Hello' LIKE BINARY 'h%'"), "0");
  EXPECT_EQ(Text("'a_c' LIKE 'a\\_c'"), "1");
  EXPECT_EQ(Text("'abc' LIKE 'a\\_c'"), "0");
  EXPECT_EQ(Text("'a%c' LIKE 'a|%c' ESCAPE '|'"), "1");
  EXPECT_EQ(Text("'abc' NOT LIKE 'a_c'"), "0");
  EXPECT_EQ(Text("NULL LIKE 'a'"), "NULL");
  EXPECT_EQ(Text("'abc' REGEXP '^A'"), "1");
  EXPECT_EQ(Text("'abc' NOT REGEXP 'z'"), "1");
  // ICU's pattern errors as MySQL reports them.
  EXPECT_EQ(Text("'abc' REGEXP '('"), "ERROR 3691");
  EXPECT_EQ(Text("'abc' REGEXP ''"), "ERROR 3685");
  EXPECT_EQ(Text("'abc' REGEXP 'a{2,1}'"), "ERROR 3693");
  // The engine is iterative: a long subject is no threat to the thread's
  // stack; regexp_time_limit (32 steps by default) ends runaway matches.
  EXPECT_EQ(Text("REPEAT('a', 100000) REGEXP '(a|b)*c'"), "ERROR 3699");
  EXPECT_EQ(Text("REPEAT('a', 28) REGEXP '(a+)+b'"), "ERROR 3699");
  EXPECT_EQ(Text("REPEAT('a', 100000) REGEXP 'a$'"), "1");
  // ICU's syntax: character classes, word boundaries, Unicode case folding.
  EXPECT_EQ(Text("'x1y' REGEXP '[[:digit:]]'"), "1");
  EXPECT_EQ(Text("'a b' REGEXP '\\\\bb'"), "1");
  EXPECT_EQ(Text("'ÀB' REGEXP '^àb$'"), "1");
}

// ------------------------------------------------------------------ variables and columns

TEST_F(EvalTest, VariablesComeFromTheContext) {
  EXPECT_EQ(Text("@@version"), "8.0.36-sluice");
  EXPECT_EQ(Text("@@global.max_connections"), "151");
  EXPECT_EQ(ctx_.last_scope, VarScope::kGlobal);
  EXPECT_EQ(Text("@@nope"), "ERROR 1193");
  EXPECT_EQ(Text("@unset"), "NULL");
  EXPECT_EQ(Text("@x := 5"), "5");
  EXPECT_EQ(Text("@x + 1"), "6");
}

TEST_F(EvalTest, UnknownColumnIs1054ByDefault) {
  auto v = Eval("t.foo");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().mysql_errno(), 1054);
  EXPECT_EQ(v.status().message(), "Unknown column 't.foo' in 'field list'");
}

// ------------------------------------------------------------------ functions

TEST_F(EvalTest, SessionFunctions) {
  EXPECT_EQ(Text("VERSION()"), "8.0.36-sluice");
  EXPECT_EQ(Text("DATABASE()"), "NULL");
  ctx_.db = "test";
  EXPECT_EQ(Text("SCHEMA()"), "test");
  EXPECT_EQ(Text("USER()"), "root@localhost");
  EXPECT_EQ(Text("SESSION_USER()"), "root@localhost");
  EXPECT_EQ(Text("CURRENT_USER"), "root@%");
  EXPECT_EQ(Text("CURRENT_USER()"), "root@%");
  EXPECT_EQ(Text("CONNECTION_ID()"), "42");
  EXPECT_EQ(Text("FOUND_ROWS()"), "7");
  EXPECT_EQ(Text("ROW_COUNT()"), "-1");
  EXPECT_EQ(Text("LAST_INSERT_ID()"), "0");
  EXPECT_EQ(Text("LAST_INSERT_ID(9)"), "9");
  EXPECT_EQ(Text("LAST_INSERT_ID()"), "9");
}

TEST_F(EvalTest, UnknownFunctionNamesTheDatabase) {
  auto v = Eval("nosuch(1)");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().mysql_errno(), 1305);
  EXPECT_EQ(v.status().message(), "FUNCTION nosuch does not exist");
  ctx_.db = "test";
  EXPECT_EQ(Eval("NoSuch()").status().message(), "FUNCTION test.NoSuch does not exist");
  EXPECT_EQ(Text("CONCAT()"), "ERROR 1582");
}

TEST_F(EvalTest, TimeFunctionsUseStatementTime) {
  EXPECT_EQ(Text("UNIX_TIMESTAMP()"), "1700000000");
  EXPECT_EQ(Text("UTC_TIMESTAMP()"), "2023-11-14 22:13:20");
  EXPECT_EQ(Text("UTC_TIMESTAMP(3)"), "2023-11-14 22:13:20.000");
  EXPECT_EQ(Text("UTC_DATE()"), "2023-11-14");
  EXPECT_EQ(Text("UTC_TIME()"), "22:13:20");
  EXPECT_EQ(Text("UNIX_TIMESTAMP(NOW())"), "1700000000");
  EXPECT_EQ(Text("UNIX_TIMESTAMP(CURRENT_TIMESTAMP)"), "1700000000");
  EXPECT_EQ(Text("NOW(7)"), "ERROR 1426");
  auto now = Eval("NOW()");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(now->string_type(), StringType::kDatetime);
  EXPECT_EQ(now->ToString().size(), 19u);
  EXPECT_EQ(Text("LENGTH(NOW(6))"), "26");
  EXPECT_EQ(Text("LENGTH(CURDATE())"), "10");
  EXPECT_EQ(Text("LENGTH(CURTIME())"), "8");
  EXPECT_EQ(Text("UTC_TIMESTAMP() + 0"), "20231114221320");
}

TEST_F(EvalTest, UnixTimestampOfALocalDatetimeString) {
  auto v = Eval("UNIX_TIMESTAMP(FROM_NOWHERE)");  // column: error passes through
  EXPECT_FALSE(v.ok());
  // A local time string round-trips through NOW().
  auto now = Eval("NOW()");
  ASSERT_TRUE(now.ok());
  EXPECT_EQ(Text("UNIX_TIMESTAMP('" + now->ToString() + "')"), "1700000000");
  EXPECT_EQ(Text("UNIX_TIMESTAMP('" + now->ToString() + ".5')"), "1700000000.5");
  EXPECT_EQ(Text("UNIX_TIMESTAMP('garbage')"), "0");
}

TEST_F(EvalTest, StringFunctions) {
  EXPECT_EQ(Text("CONCAT('a', 1, 2.50)"), "a12.50");
  EXPECT_EQ(Text("CONCAT('a', NULL)"), "NULL");
  EXPECT_EQ(Text("CONCAT_WS(',', 'a', NULL, 'b')"), "a,b");
  EXPECT_EQ(Text("LENGTH('h\xC3\xA9')"), "3");
  EXPECT_EQ(Text("CHAR_LENGTH('h\xC3\xA9')"), "2");
  EXPECT_EQ(Text("UPPER('abc')"), "ABC");
  EXPECT_EQ(Text("LCASE('ABC')"), "abc");
  EXPECT_EQ(Text("SUBSTRING('Quadratically', 5)"), "ratically");
  EXPECT_EQ(Text("SUBSTRING('Quadratically', 5, 6)"), "ratica");
  EXPECT_EQ(Text("SUBSTRING('Sakila', -3)"), "ila");
  EXPECT_EQ(Text("SUBSTRING('Sakila' FROM -5 FOR 3)"), "aki");
  EXPECT_EQ(Text("SUBSTR('abc', 0)"), "");
  EXPECT_EQ(Text("MID('h\xC3\xA9llo', 2, 2)"), "\xC3\xA9l");
  EXPECT_EQ(Text("LEFT('foobar', 3)"), "foo");
  EXPECT_EQ(Text("RIGHT('foobar', 4)"), "obar");
  EXPECT_EQ(Text("REPLACE('www.mysql.com', 'w', 'Ww')"), "WwWwWw.mysql.com");
  EXPECT_EQ(Text("TRIM('  bar   ')"), "bar");
  EXPECT_EQ(Text("TRIM(LEADING 'x' FROM 'xxxbarxxx')"), "barxxx");
  EXPECT_EQ(Text("TRIM(BOTH 'x' FROM 'xxxbarxxx')"), "bar");
  EXPECT_EQ(Text("TRIM(TRAILING 'xyz' FROM 'barxxyz')"), "barx");
  EXPECT_EQ(Text("TRIM('x' FROM 'xbarx')"), "bar");
  EXPECT_EQ(Text("LTRIM('  a ')"), "a ");
  EXPECT_EQ(Text("RTRIM('  a ')"), "  a");
  EXPECT_EQ(Text("REPEAT('ab', 3)"), "ababab");
  EXPECT_EQ(Text("REPEAT('ab', 0)"), "");
  EXPECT_EQ(Text("REVERSE('abc')"), "cba");
  EXPECT_EQ(Text("LOCATE('bar', 'foobarbar')"), "4");
  EXPECT_EQ(Text("LOCATE('bar', 'foobarbar', 5)"), "7");
  EXPECT_EQ(Text("LOCATE('BAR', 'foobar')"), "4");
  EXPECT_EQ(Text("POSITION('x' IN 'abc')"), "0");
  EXPECT_EQ(Text("INSTR('foobarbar', 'bar')"), "4");
  EXPECT_EQ(Text("LPAD('hi', 5, '?!')"), "?!?hi");
  EXPECT_EQ(Text("LPAD('hello', 2, '?')"), "he");
  EXPECT_EQ(Text("RPAD('hi', 5, '?')"), "hi???");
  EXPECT_EQ(Text("RPAD('hi', 5, '')"), "NULL");
  EXPECT_EQ(Text("HEX('abc')"), "616263");
  EXPECT_EQ(Text("HEX(255)"), "FF");
  EXPECT_EQ(Text("HEX(-1)"), "FFFFFFFFFFFFFFFF");
  EXPECT_EQ(Text("UNHEX('4D7953514C')"), "MySQL");
  EXPECT_EQ(Text("UNHEX('GG')"), "NULL");
  EXPECT_EQ(Text("ASCII('A')"), "65");
  EXPECT_EQ(Text("STRCMP('a', 'B')"), "-1");
  EXPECT_EQ(Text("CONCAT(SPACE(2), 'x')"), "  x");
}

TEST_F(EvalTest, RepeatBeyondMaxPacketIsNullWithWarning) {
  EXPECT_EQ(Text("REPEAT('a', 100000000)"), "NULL");
  ASSERT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_EQ(ctx_.warnings[0].first, 1301);
  EXPECT_EQ(Text("REPEAT('ab', 9223372036854775807)"), "NULL");
  EXPECT_EQ(Text("LPAD('a', 9223372036854775807, 'b')"), "NULL");
  EXPECT_EQ(Text("CAST('a' AS BINARY(999999999))"), "NULL");
}

TEST_F(EvalTest, ControlFlowFunctions) {
  EXPECT_EQ(Text("IF(1 > 2, 'yes', 'no')"), "no");
  EXPECT_EQ(Text("IF(NULL, 1, 2)"), "2");
  EXPECT_EQ(Text("IFNULL(NULL, 'x')"), "x");
  EXPECT_EQ(Text("IFNULL(0, 'x')"), "0");
  EXPECT_EQ(Text("NULLIF(1, 1)"), "NULL");
  EXPECT_EQ(Text("NULLIF(1, 2)"), "1");
  EXPECT_EQ(Text("COALESCE(NULL, NULL, 3)"), "3");
  EXPECT_EQ(Text("ISNULL(1 / 0)"), "1");
  EXPECT_EQ(Text("IF(1, 0, SLEEP(5))"), "0");
  EXPECT_TRUE(ctx_.slept.empty());
}

TEST_F(EvalTest, MathFunctions) {
  EXPECT_EQ(Text("ABS(-5)"), "5");
  EXPECT_EQ(Text("ABS(-1.50)"), "1.50");
  EXPECT_EQ(Text("ABS(-9223372036854775808)"), "ERROR 1690");
  EXPECT_EQ(Text("CEIL(1.2)"), "2");
  EXPECT_EQ(Text("CEILING(-1.2)"), "-1");
  EXPECT_EQ(Text("FLOOR(-1.2)"), "-2");
  EXPECT_EQ(Text("FLOOR(1.5e0)"), "1");
  EXPECT_EQ(Text("ROUND(2.5)"), "3");
  EXPECT_EQ(Text("ROUND(-2.5)"), "-3");
  EXPECT_EQ(Text("ROUND(2.5e0)"), "2");
  EXPECT_EQ(Text("ROUND(1.298, 1)"), "1.3");
  EXPECT_EQ(Text("ROUND(1.298, 0)"), "1");
  EXPECT_EQ(Text("ROUND(23.298, -1)"), "20");
  EXPECT_EQ(Text("ROUND(155, -1)"), "160");
  EXPECT_EQ(Text("TRUNCATE(1.223, 1)"), "1.2");
  EXPECT_EQ(Text("TRUNCATE(1.999, 0)"), "1");
  EXPECT_EQ(Text("TRUNCATE(-1.999, 1)"), "-1.9");
  EXPECT_EQ(Text("TRUNCATE(122, -2)"), "100");
  EXPECT_EQ(Text("POW(2, 10)"), "1024");
  EXPECT_EQ(Text("POWER(2, -1)"), "0.5");
  EXPECT_EQ(Text("POW(10, 400)"), "ERROR 1690");
  EXPECT_EQ(Text("SQRT(16)"), "4");
  EXPECT_EQ(Text("SQRT(-1)"), "NULL");
  EXPECT_EQ(Text("SIGN(-3.5)"), "-1");
  EXPECT_EQ(Text("SIGN(0)"), "0");
  EXPECT_EQ(Text("GREATEST(2, 0, 7)"), "7");
  EXPECT_EQ(Text("LEAST('b', 'A', 'c')"), "A");
  EXPECT_EQ(Text("GREATEST(1, 2.5)"), "2.5");
  EXPECT_EQ(Text("GREATEST(3, 2.5)"), "3.0");
  EXPECT_EQ(Text("GREATEST(1, NULL)"), "NULL");
}

TEST_F(EvalTest, Hashes) {
  EXPECT_EQ(Text("MD5('abc')"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Text("SHA1('abc')"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Text("SHA('abc')"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(Text("SHA2('abc', 256)"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Text("LENGTH(SHA2('abc', 512))"), "128");
  EXPECT_EQ(Text("SHA2('abc', 7)"), "NULL");
  EXPECT_EQ(Text("MD5(NULL)"), "NULL");
}

TEST_F(EvalTest, UuidAndRand) {
  auto a = Eval("UUID()");
  auto b = Eval("UUID()");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->ToString().size(), 36u);
  EXPECT_EQ(a->ToString()[14], '1');  // version 1
  EXPECT_NE(a->ToString(), b->ToString());
  auto r = Eval("RAND()");
  ASSERT_TRUE(r.ok());
  EXPECT_GE(r->ToDouble(), 0.0);
  EXPECT_LT(r->ToDouble(), 1.0);
  EXPECT_EQ(Text("RAND(3) = RAND(3)"), "1");
  EXPECT_EQ(Text("RAND(1)"), "0.40540353712197724");  // MySQL's value for seed 1
}

TEST_F(EvalTest, SleepReturnsOneWhenInterrupted) {
  EXPECT_EQ(Text("SLEEP(0.5)"), "0");
  ASSERT_EQ(ctx_.slept.size(), 1u);
  EXPECT_EQ(ctx_.slept[0], std::chrono::milliseconds(500));
  ctx_.killed = true;
  EXPECT_EQ(Text("SLEEP(10)"), "1");
  EXPECT_EQ(Text("SLEEP(-1)"), "0");
  EXPECT_EQ(ctx_.warnings.back().first, 1210);
}

TEST_F(EvalTest, AggregatesNeedATable) {
  EXPECT_EQ(Text("COUNT(*)"), "ERROR 1235");
}

// ------------------------------------------------------------------ CAST

TEST_F(EvalTest, CastToIntegers) {
  EXPECT_EQ(Text("CAST('12' AS SIGNED)"), "12");
  EXPECT_EQ(Text("CAST(1.5 AS SIGNED)"), "2");
  EXPECT_EQ(Text("CAST(-1.5e0 AS SIGNED)"), "-2");
  EXPECT_EQ(Text("CAST(-1 AS UNSIGNED)"), "18446744073709551615");
  EXPECT_EQ(Text("CAST(18446744073709551615 AS SIGNED)"), "-1");
  EXPECT_EQ(Text("CAST('18446744073709551615' AS UNSIGNED)"), "18446744073709551615");
  EXPECT_TRUE(ctx_.warnings.empty());
  EXPECT_EQ(Text("CAST('abc' AS SIGNED)"), "0");
  ASSERT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_EQ(ctx_.warnings[0].first, 1292);
  EXPECT_EQ(ctx_.warnings[0].second, "Truncated incorrect INTEGER value: 'abc'");
  EXPECT_EQ(Text("CAST(X'0102' AS UNSIGNED)"), "258");
  EXPECT_EQ(Kind("CAST(1 AS UNSIGNED)"), ValueKind::kUInt);
}

TEST_F(EvalTest, CastToStringsAndDecimal) {
  EXPECT_EQ(Text("CAST(123 AS CHAR)"), "123");
  EXPECT_EQ(Text("CAST('abcdef' AS CHAR(3))"), "abc");
  auto b = Eval("CAST('ab' AS BINARY(4))");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->string_value(), std::string("ab\0\0", 4));
  EXPECT_TRUE(b->is_binary());
  EXPECT_EQ(Text("CAST(1.005 AS DECIMAL(5,2))"), "1.01");
  EXPECT_EQ(Text("CAST('3.14159' AS DECIMAL(10,3))"), "3.142");
  EXPECT_EQ(Text("CAST(12345 AS DECIMAL(3,1))"), "99.9");
  EXPECT_EQ(ctx_.warnings.back().first, 1264);
  EXPECT_EQ(Text("CAST(1 AS DECIMAL)"), "1");
  EXPECT_EQ(Text("CAST(1 AS DECIMAL(2,3))"), "ERROR 1427");
  EXPECT_EQ(Text("CAST('1.5' AS DOUBLE)"), "1.5");
  EXPECT_EQ(Text("CAST(0.1 AS FLOAT)"), "0.1");
  EXPECT_EQ(Text("CONVERT('abc', CHAR(2))"), "ab");
  auto u = Eval("CONVERT('x' USING binary)");
  ASSERT_TRUE(u.ok());
  EXPECT_TRUE(u->is_binary());
  EXPECT_EQ(Text("CONVERT('x' USING nosuch)"), "ERROR 1115");
  EXPECT_EQ(Text("'a' COLLATE nosuch_ci"), "ERROR 1273");
  EXPECT_EQ(Text("CAST('{\"b\": 1, \"a\": [2]}' AS JSON)"), "{\"a\": [2], \"b\": 1}");
}

TEST_F(EvalTest, CastToTemporalTypes) {
  EXPECT_EQ(Text("CAST('2024-01-02 03:04:05' AS DATE)"), "2024-01-02");
  EXPECT_EQ(Text("CAST('2024-1-2 3:4:5' AS DATETIME)"), "2024-01-02 03:04:05");
  EXPECT_EQ(Text("CAST('2024-01-02 03:04:05.6' AS DATETIME)"), "2024-01-02 03:04:06");
  EXPECT_EQ(Text("CAST('2024-12-31 23:59:59.9' AS DATETIME)"), "2025-01-01 00:00:00");
  EXPECT_EQ(Text("CAST('2024-01-02 03:04:05.123456' AS DATETIME(3))"), "2024-01-02 03:04:05.123");
  EXPECT_EQ(Text("CAST(20240102 AS DATE)"), "2024-01-02");
  EXPECT_EQ(Text("CAST('12:34:56' AS TIME)"), "12:34:56");
  EXPECT_EQ(Text("CAST('-838:59:59' AS TIME)"), "-838:59:59");
  EXPECT_EQ(Text("CAST(123456 AS TIME)"), "12:34:56");
  EXPECT_EQ(Text("CAST('2024-02-30' AS DATE)"), "NULL");
  EXPECT_EQ(ctx_.warnings.back().second, "Incorrect datetime value: '2024-02-30'");
  EXPECT_EQ(Text("DATE '2024-05-06'"), "2024-05-06");
  EXPECT_EQ(Text("CAST('2024-01-02' AS DATE) + 0"), "20240102");
}

// ------------------------------------------------------------------ column naming

TEST_F(EvalTest, SelectColumnNamesAreTheTextAsTyped) {
  auto r = ParseAll("SELECT @@version, 1+1, 'abc', CONCAT('a','b') AS c, now( )");
  ASSERT_TRUE(r.ok());
  const auto& s = (*r)[0].stmt->As<SelectStmt>();
  std::vector<std::string> names;
  for (const auto& item : s.items) names.push_back(item.ColumnName());
  EXPECT_EQ(names, (std::vector<std::string>{"@@version", "1+1", "abc", "c", "now( )"}));
  auto v = Evaluate(*s.items[1].expr, ctx_);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->ToString(), "2");
}

// Mutated expressions evaluate to a value or a clean error, never UB
// (run under ASan/UBSan in CI).
TEST_F(EvalTest, MutatedExpressionsNeverCrash) {
  const char* corpus[] = {
      "9223372036854775807 + 1 * -9223372036854775808 DIV 3 % 7",
      "18446744073709551615 - 1.5e308 / 0.0000001 + 99999999999999999999.99",
      "ROUND(-155.555, -2) + TRUNCATE(1e300, 5) + CEIL(-9.5) + ABS(-3)",
      "CAST('2024-12-31 23:59:59.999999' AS DATETIME(2)) + 0",
      "LPAD('ab', 7, 'xy') LIKE '%b' AND 'a' REGEXP 'A' OR 1 << 63 >> 2",
      "CONCAT_WS(',', HEX(-1), UNHEX('414'), SUBSTRING('abc', -2, 5), 0x41 + 1)",
      "CASE 1 WHEN 2 THEN 3 ELSE GREATEST(1, 2.5, '3') END IN (1, NULL, 3)",
  };
  uint64_t state = 0x2545F4914F6CDD1DULL;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const char kBytes[] = "0123456789-+*/%.e'()9";
  for (int i = 0; i < 10000; ++i) {
    std::string q = corpus[next() % (sizeof(corpus) / sizeof(corpus[0]))];
    for (int e = 0; e < 2 && !q.empty(); ++e) {
      size_t pos = next() % q.size();
      if (next() % 2 == 0) {
        q[pos] = kBytes[next() % (sizeof(kBytes) - 1)];
      } else {
        q.insert(pos, 1, kBytes[next() % (sizeof(kBytes) - 1)]);
      }
    }
    auto v = Eval(q);
    (void)v;
  }
}

TEST_F(EvalTest, RoundsIntegersToTens) {
  EXPECT_EQ(Text("ROUND(1250, -2)"), "1300");
  EXPECT_EQ(Text("ROUND(-1250, -2)"), "-1300");
  EXPECT_EQ(Text("ROUND(-1249, -2)"), "-1200");
  EXPECT_EQ(Text("TRUNCATE(-1299, -2)"), "-1200");
}

// ------------------------------------------------------------------ collations

TEST_F(EvalTest, DefaultCollationIgnoresCaseAndAccentsWithoutPadding) {
  EXPECT_EQ(Text("'a' = '\xC3\x81'"), "1");  // 'a' = 'Á'
  EXPECT_EQ(Text("'\xC3\x9F' = 'ss'"), "1");  // 'ß' = 'ss'
  EXPECT_EQ(Text("'a' = 'a '"), "0");
  EXPECT_EQ(Text("'a' < 'a '"), "1");
  EXPECT_EQ(Text("'a_b' < 'a-b'"), "1");  // the UCA's punctuation order
  EXPECT_EQ(Text("'\xC3\xA9t\xC3\xA9' IN ('ETE', 'x')"), "1");
  EXPECT_EQ(Text("'B' BETWEEN 'a' AND 'c'"), "1");
  EXPECT_EQ(Text("STRCMP('\xC3\xA1', 'A')"), "0");
  EXPECT_EQ(Text("STRCMP('a', 'b')"), "-1");
  EXPECT_EQ(Text("GREATEST('a', 'B', '\xC3\xA1')"), "B");
  EXPECT_EQ(Text("LEAST('b', 'A', 'c')"), "A");
  EXPECT_EQ(Text("FIELD('B', 'a', 'b')"), "2");
  EXPECT_EQ(Text("FIND_IN_SET('\xC3\xA0', 'x,A,y')"), "2");
  EXPECT_EQ(Text("LOCATE('\xC3\xA9', 'cafe')"), "4");
  EXPECT_EQ(Text("NULLIF('A', 'a')"), "NULL");
}

TEST_F(EvalTest, ExplicitCollationsAndBinaryStrings) {
  EXPECT_EQ(Text("'a' = 'A' COLLATE utf8mb4_0900_as_cs"), "0");
  EXPECT_EQ(Text("'a' = '\xC3\xA1' COLLATE utf8mb4_0900_as_ci"), "0");
  EXPECT_EQ(Text("'a' = 'A' COLLATE utf8mb4_0900_as_ci"), "1");
  EXPECT_EQ(Text("'a' = 'a ' COLLATE utf8mb4_general_ci"), "1");
  EXPECT_EQ(Text("'a' = 'A ' COLLATE utf8mb4_bin"), "0");
  EXPECT_EQ(Text("'a' = 'a ' COLLATE utf8mb4_bin"), "1");
  EXPECT_EQ(Text("'a' = 'a ' COLLATE utf8mb4_0900_bin"), "0");
  EXPECT_EQ(Text("'a' COLLATE utf8mb4_bin = 'A'"), "0");
  EXPECT_EQ(Text("_binary 'a' = 'A'"), "0");
  EXPECT_EQ(Text("CAST('a' AS BINARY) = 'a'"), "1");
  EXPECT_EQ(Text("STRCMP('a' COLLATE utf8mb4_bin, 'A')"), "1");
  EXPECT_EQ(Text("'a' IN ('A' COLLATE utf8mb4_bin)"), "0");
}

TEST_F(EvalTest, LikeMatchesByCollation) {
  EXPECT_EQ(Text("'\xC3\x81" "bc' LIKE 'a%'"), "1");  // 'Ábc' LIKE 'a%'
  EXPECT_EQ(Text("'abc' LIKE '_B_'"), "1");
  EXPECT_EQ(Text("'a ' LIKE 'a'"), "0");
  EXPECT_EQ(Text("'\xC3\x81" "bc' LIKE 'a%' COLLATE utf8mb4_0900_as_cs"), "0");
  EXPECT_EQ(Text("'Abc' LIKE 'a%' COLLATE utf8mb4_bin"), "0");
  EXPECT_EQ(Text("_binary '\xC3\xA9' LIKE '__'"), "1");  // bytes under binary
  EXPECT_EQ(Text("'\xC3\xA9' LIKE '_'"), "1");
}

TEST_F(EvalTest, GroupingKeysFollowTheCollation) {
  auto key = [&](std::string_view text) {
    auto v = Eval(text);
    EXPECT_TRUE(v.ok()) << text;
    return v.ok() ? GroupingKey(*v) : std::string();
  };
  EXPECT_EQ(key("'a'"), key("'A'"));
  EXPECT_EQ(key("'a'"), key("'\xC3\x81'"));
  EXPECT_NE(key("'a'"), key("'a '"));
  EXPECT_NE(key("'a'"), key("'b'"));
  EXPECT_NE(key("'a' COLLATE utf8mb4_bin"), key("'A' COLLATE utf8mb4_bin"));
  EXPECT_NE(key("_binary 'a'"), key("_binary 'A'"));
  EXPECT_NE(key("NULL"), key("''"));
  EXPECT_NE(key("NULL"), key("'N'"));
  EXPECT_EQ(key("1.50"), key("1.5"));
  EXPECT_EQ(key("1"), key("1"));
  EXPECT_NE(key("1"), key("2"));
}

TEST_F(EvalTest, CaseMappingCoversUnicode) {
  EXPECT_EQ(Text("UPPER('stra\xC3\x9F" "e \xC3\xA1')"), "STRA\xC3\x9F" "E \xC3\x81");
  EXPECT_EQ(Text("LOWER('\xC3\x89T\xC3\x89')"), "\xC3\xA9t\xC3\xA9");
}

TEST_F(EvalTest, TemporalValuesCompareAsTemporal) {
  EXPECT_EQ(Text("DATE '2024-01-02' = '2024-01-02 00:00:00'"), "1");
  EXPECT_EQ(Text("DATE '2024-01-02' < '2024-1-3'"), "1");
  EXPECT_EQ(Text("TIME '10:00:00' = '10:00'"), "1");
  EXPECT_EQ(Text("DATE '2024-01-02' = 20240102"), "1");
}

// ------------------------------------------------------------------ more string functions

TEST_F(EvalTest, ListFunctions) {
  EXPECT_EQ(Text("FIELD('Bb', 'Aa', 'Bb', 'Cc')"), "2");
  EXPECT_EQ(Text("FIELD('Gg', 'Aa', 'Bb')"), "0");
  EXPECT_EQ(Text("FIELD(NULL, 'a')"), "0");
  EXPECT_EQ(Text("FIELD(2, 1, 2.0, 3)"), "2");
  EXPECT_EQ(Text("ELT(1, 'Aa', 'Bb')"), "Aa");
  EXPECT_EQ(Text("ELT(4, 'Aa', 'Bb')"), "NULL");
  EXPECT_EQ(Text("ELT(0, 'Aa')"), "NULL");
  EXPECT_EQ(Text("FIND_IN_SET('b', 'a,b,c,d')"), "2");
  EXPECT_EQ(Text("FIND_IN_SET('e', 'a,b,c,d')"), "0");
  EXPECT_EQ(Text("FIND_IN_SET('a,b', 'a,b')"), "0");
  EXPECT_EQ(Text("FIND_IN_SET('', '')"), "0");
  EXPECT_EQ(Text("FIND_IN_SET(NULL, 'a')"), "NULL");
}

TEST_F(EvalTest, FormatAndQuote) {
  EXPECT_EQ(Text("FORMAT(12332.123456, 4)"), "12,332.1235");
  EXPECT_EQ(Text("FORMAT(12332.1, 4)"), "12,332.1000");
  EXPECT_EQ(Text("FORMAT(12332.2, 0)"), "12,332");
  EXPECT_EQ(Text("FORMAT(12332.2, 2, 'de_DE')"), "12.332,20");
  EXPECT_EQ(Text("FORMAT(-1234567.891, 2)"), "-1,234,567.89");
  EXPECT_EQ(Text("FORMAT(123, 2)"), "123.00");
  EXPECT_EQ(Text("FORMAT(1234.5e0, 1)"), "1,234.5");
  EXPECT_EQ(Text("FORMAT(NULL, 2)"), "NULL");
  EXPECT_EQ(Text("QUOTE('Don\\'t!')"), "'Don\\'t!'");
  EXPECT_EQ(Text("QUOTE(NULL)"), "NULL");
  EXPECT_EQ(Kind("QUOTE(NULL)"), ValueKind::kString);
  EXPECT_EQ(Text("QUOTE('a\\\\b')"), "'a\\\\b'");
}

TEST_F(EvalTest, SubstringIndexAndInsert) {
  EXPECT_EQ(Text("SUBSTRING_INDEX('www.mysql.com', '.', 2)"), "www.mysql");
  EXPECT_EQ(Text("SUBSTRING_INDEX('www.mysql.com', '.', -2)"), "mysql.com");
  EXPECT_EQ(Text("SUBSTRING_INDEX('www.mysql.com', '.', 5)"), "www.mysql.com");
  EXPECT_EQ(Text("SUBSTRING_INDEX('www.mysql.com', '.', 0)"), "");
  EXPECT_EQ(Text("INSERT('Quadratic', 3, 4, 'What')"), "QuWhattic");
  EXPECT_EQ(Text("INSERT('Quadratic', -1, 4, 'What')"), "Quadratic");
  EXPECT_EQ(Text("INSERT('Quadratic', 3, 100, 'What')"), "QuWhat");
}

// ------------------------------------------------------------------ date functions

TEST_F(EvalTest, DateParts) {
  EXPECT_EQ(Text("YEAR('1987-01-01')"), "1987");
  EXPECT_EQ(Text("MONTH('2008-02-03')"), "2");
  EXPECT_EQ(Text("DAY('2007-02-03')"), "3");
  EXPECT_EQ(Text("DAYOFMONTH('2008-00-00')"), "0");
  EXPECT_EQ(Text("HOUR('10:05:03')"), "10");
  EXPECT_EQ(Text("HOUR('272:59:59')"), "272");
  EXPECT_EQ(Text("MINUTE('2008-02-03 10:05:03')"), "5");
  EXPECT_EQ(Text("SECOND('10:05:03')"), "3");
  EXPECT_EQ(Text("MICROSECOND('12:00:00.123456')"), "123456");
  EXPECT_EQ(Text("DAYOFWEEK('2007-02-03')"), "7");
  EXPECT_EQ(Text("WEEKDAY('2008-02-03 22:23:00')"), "6");
  EXPECT_EQ(Text("DAYOFYEAR('2007-02-03')"), "34");
  EXPECT_EQ(Text("QUARTER('2008-04-01')"), "2");
  EXPECT_EQ(Text("DAYNAME('2007-02-03')"), "Saturday");
  EXPECT_EQ(Text("MONTHNAME('2008-02-03')"), "February");
  EXPECT_EQ(Text("TO_DAYS(950501)"), "728779");
  EXPECT_EQ(Text("WEEK('2008-02-20')"), "7");
  EXPECT_EQ(Text("WEEK('2008-02-20', 1)"), "8");
  EXPECT_EQ(Text("WEEK('2008-12-31', 1)"), "53");
  EXPECT_EQ(Text("WEEK('2000-01-01', 0)"), "0");
  EXPECT_EQ(Text("WEEK('2000-01-01', 2)"), "52");
  EXPECT_EQ(Text("LAST_DAY('2003-02-05')"), "2003-02-28");
  EXPECT_EQ(Text("LAST_DAY('2004-02-05')"), "2004-02-29");
  EXPECT_EQ(Text("LAST_DAY('2004-01-01 01:01:01')"), "2004-01-31");
  EXPECT_EQ(Text("LAST_DAY('2003-03-32')"), "NULL");
  ASSERT_FALSE(ctx_.warnings.empty());
  EXPECT_EQ(ctx_.warnings.back().first, 1292);
  EXPECT_EQ(ctx_.warnings.back().second, "Incorrect datetime value: '2003-03-32'");
  EXPECT_EQ(Text("DATE('2003-12-31 01:02:03')"), "2003-12-31");
  EXPECT_EQ(Text("TIME('2003-12-31 01:02:03')"), "01:02:03");
  EXPECT_EQ(Text("TIME('2003-12-31 01:02:03.000123')"), "01:02:03.000123");
}

TEST_F(EvalTest, DateDifferences) {
  EXPECT_EQ(Text("DATEDIFF('2007-12-31 23:59:59', '2007-12-30')"), "1");
  EXPECT_EQ(Text("DATEDIFF('2010-11-30 23:59:59', '2010-12-31')"), "-31");
  EXPECT_EQ(Text("TIMESTAMPDIFF(MONTH, '2003-02-01', '2003-05-01')"), "3");
  EXPECT_EQ(Text("TIMESTAMPDIFF(YEAR, '2002-05-01', '2001-01-01')"), "-1");
  EXPECT_EQ(Text("TIMESTAMPDIFF(MINUTE, '2003-02-01', '2003-05-01 12:05:55')"), "128885");
  EXPECT_EQ(Text("TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-02-29')"), "0");
  EXPECT_EQ(Text("TIMESTAMPDIFF(MONTH, '2024-01-31', '2024-03-31')"), "2");
  EXPECT_EQ(Text("TIMESTAMPDIFF(DAY, '2024-03-02', '2024-03-01 00:00:01')"), "0");
  EXPECT_EQ(Text("TIMESTAMPADD(MINUTE, 1, '2003-01-02')"), "2003-01-02 00:01:00");
  EXPECT_EQ(Text("TIMESTAMPADD(WEEK, 1, '2003-01-02')"), "2003-01-09");
  EXPECT_EQ(Call("TIMESTAMPDIFF", {"FORTNIGHT", "'2003-01-02'", "'2003-01-03'"}), "ERROR 1210");
}

// MySQL's documented examples of the TIME and day-number functions.
TEST_F(EvalTest, TimeArithmeticAndDayNumbers) {
  EXPECT_EQ(Text("TIME_TO_SEC('22:23:00')"), "80580");
  EXPECT_EQ(Text("TIME_TO_SEC('00:39:38')"), "2378");
  EXPECT_EQ(Text("SEC_TO_TIME(2378)"), "00:39:38");
  EXPECT_EQ(Text("MAKETIME(12, 15, 30)"), "12:15:30");
  EXPECT_EQ(Text("MAKETIME(12, 60, 30)"), "NULL");
  EXPECT_EQ(Text("TIMEDIFF('2000-01-01 00:00:00', '2000-01-01 00:00:00.000001')"), "-00:00:00.000001");
  EXPECT_EQ(Text("TIMEDIFF('2008-12-31 23:59:59.000001', '2008-12-30 01:01:01.000002')"), "46:58:57.999999");
  EXPECT_EQ(Text("TIMEDIFF('10:00:00', '2000-01-01 00:00:00')"), "NULL");
  EXPECT_EQ(Text("TIMEDIFF('3.5', '12')"), "-00:00:08.5");
  EXPECT_EQ(Text("ADDTIME('2007-12-31 23:59:59.999999', '1 1:1:1.000002')"), "2008-01-02 01:01:01.000001");
  EXPECT_EQ(Text("ADDTIME('01:00:00.999999', '02:00:00.999998')"), "03:00:01.999997");
  EXPECT_EQ(Text("SUBTIME('2007-12-31 23:59:59.999999', '1 1:1:1.000002')"), "2007-12-30 22:58:58.999997");
  EXPECT_EQ(Text("SUBTIME('01:00:00.999999', '02:00:00.999998')"), "-00:59:59.999999");
  ctx_.warnings.clear();
  EXPECT_EQ(Text("SEC_TO_TIME(3600 * 900)"), "838:59:59");
  ASSERT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_EQ(ctx_.warnings[0].first, 1292);
  EXPECT_EQ(Text("MAKEDATE(2011, 31)"), "2011-01-31");
  EXPECT_EQ(Text("MAKEDATE(2011, 32)"), "2011-02-01");
  EXPECT_EQ(Text("MAKEDATE(2014, 365)"), "2014-12-31");
  EXPECT_EQ(Text("MAKEDATE(2011, 0)"), "NULL");
  EXPECT_EQ(Text("FROM_DAYS(730669)"), "2000-07-03");
  EXPECT_EQ(Text("FROM_DAYS(TO_DAYS('2024-02-29'))"), "2024-02-29");
  EXPECT_EQ(Text("TO_SECONDS(950501)"), "62966505600");  // 1995-05-01
  EXPECT_EQ(Text("TO_SECONDS('2009-11-29')"), "63426672000");
  EXPECT_EQ(Text("TO_SECONDS('2009-11-29 13:43:32')"), "63426721412");
  EXPECT_EQ(Text("PERIOD_ADD(200801, 2)"), "200803");
  EXPECT_EQ(Text("PERIOD_ADD(0812, 1)"), "200901");
  EXPECT_EQ(Text("PERIOD_DIFF(200802, 200703)"), "11");
  EXPECT_EQ(Text("WEEKOFYEAR('2008-02-20')"), "8");
  EXPECT_EQ(Text("YEARWEEK('1987-01-01')"), "198652");
  EXPECT_EQ(Text("TIMESTAMP('2003-12-31')"), "2003-12-31 00:00:00");
  EXPECT_EQ(Text("TIMESTAMP('2003-12-31 12:00:00', '12:00:00')"), "2004-01-01 00:00:00");
  EXPECT_EQ(Text("CONVERT_TZ('2004-01-01 12:00:00', '+00:00', '+10:00')"), "2004-01-01 22:00:00");
  EXPECT_EQ(Text("CONVERT_TZ('2004-01-01 12:00:00.5', '-05:30', 'UTC')"), "2004-01-01 17:30:00.5");
  EXPECT_EQ(Text("CONVERT_TZ('2004-01-01 12:00:00', 'GMT', 'MET')"), "NULL");
  EXPECT_EQ(Text("CONVERT_TZ('1960-01-01 12:00:00', '+00:00', '+10:00')"), "1960-01-01 12:00:00");
}

// DATE_ADD(d, INTERVAL n unit) reaches the evaluator as DATE_ADD(d, n, 'unit').
TEST_F(EvalTest, IntervalArithmetic) {
  EXPECT_EQ(Call("DATE_ADD", {"'2018-05-01'", "1", "'DAY'"}), "2018-05-02");
  EXPECT_EQ(Call("DATE_SUB", {"'2018-05-01'", "1", "'YEAR'"}), "2017-05-01");
  EXPECT_EQ(Call("DATE_ADD", {"'2020-12-31 23:59:59'", "1", "'SECOND'"}), "2021-01-01 00:00:00");
  EXPECT_EQ(Call("DATE_ADD", {"'2018-12-31 23:59:59'", "1", "'DAY'"}), "2019-01-01 23:59:59");
  EXPECT_EQ(Call("DATE_ADD", {"'2100-12-31 23:59:59'", "'1:1'", "'MINUTE_SECOND'"}), "2101-01-01 00:01:00");
  EXPECT_EQ(Call("DATE_SUB", {"'2025-01-01 00:00:00'", "'1 1:1:1'", "'DAY_SECOND'"}), "2024-12-30 22:58:59");
  EXPECT_EQ(Call("DATE_ADD", {"'1900-01-01 00:00:00'", "'-1 10'", "'DAY_HOUR'"}), "1899-12-30 14:00:00");
  EXPECT_EQ(Call("DATE_SUB", {"'1998-01-02'", "31", "'DAY'"}), "1997-12-02");
  EXPECT_EQ(Call("DATE_ADD", {"'1992-12-31 23:59:59.000002'", "'1.999999'", "'SECOND_MICROSECOND'"}),
            "1993-01-01 00:00:01.000001");
  EXPECT_EQ(Call("DATE_ADD", {"'2024-01-31'", "1", "'MONTH'"}), "2024-02-29");
  EXPECT_EQ(Call("DATE_ADD", {"'2024-01-01'", "1", "'HOUR'"}), "2024-01-01 01:00:00");
  EXPECT_EQ(Call("DATE_ADD", {"'2024-01-01'", "1.5", "'SECOND'"}), "2024-01-01 00:00:01.500000");
  EXPECT_EQ(Call("DATE_ADD", {"'2024-01-01'", "1", "'QUARTER'"}), "2024-04-01");
  EXPECT_EQ(Call("DATE_ADD", {"'2024-01-01'", "'2-3'", "'YEAR_MONTH'"}), "2026-04-01");
  EXPECT_EQ(Text("ADDDATE('2008-01-02', 31)"), "2008-02-02");
  EXPECT_EQ(Text("SUBDATE('2008-01-02 12:00:00', 31)"), "2007-12-02 12:00:00");
  EXPECT_EQ(Call("DATE_ADD", {"'9999-12-31'", "1", "'DAY'"}), "NULL");
  ASSERT_FALSE(ctx_.warnings.empty());
  EXPECT_EQ(ctx_.warnings.back().first, 1441);
  EXPECT_EQ(Call("DATE_ADD", {"NULL", "1", "'DAY'"}), "NULL");
  EXPECT_EQ(Call("DATE_ADD", {"DATE '2024-02-28'", "1", "'DAY'"}), "2024-02-29");
  EXPECT_EQ(Call("DATE_ADD", {"TIME '10:00:00'", "90", "'MINUTE'"}), "11:30:00");
  EXPECT_EQ(Text("ADDDATE('2024-01-01', 1) = '2024-01-02'"), "1");
}

TEST_F(EvalTest, ExtractParts) {
  EXPECT_EQ(Call("EXTRACT", {"'YEAR'", "'2019-07-02'"}), "2019");
  EXPECT_EQ(Call("EXTRACT", {"'YEAR_MONTH'", "'2019-07-02 01:02:03'"}), "201907");
  EXPECT_EQ(Call("EXTRACT", {"'DAY_MINUTE'", "'2019-07-02 01:02:03'"}), "20102");
  EXPECT_EQ(Call("EXTRACT", {"'MICROSECOND'", "'2003-01-02 10:30:00.000123'"}), "123");
  EXPECT_EQ(Call("EXTRACT", {"'HOUR_SECOND'", "'10:30:05'"}), "103005");
}

TEST_F(EvalTest, DateFormatSpecifiers) {
  EXPECT_EQ(Text("DATE_FORMAT('2009-10-04 22:23:00', '%W %M %Y')"), "Sunday October 2009");
  EXPECT_EQ(Text("DATE_FORMAT('2007-10-04 22:23:00', '%H:%i:%s')"), "22:23:00");
  EXPECT_EQ(Text("DATE_FORMAT('1900-10-04 22:23:00', '%D %y %a %d %m %b %j')"),
            "4th 00 Thu 04 10 Oct 277");
  EXPECT_EQ(Text("DATE_FORMAT('1997-10-04 22:23:00', '%H %k %I %r %T %S %w')"),
            "22 22 10 10:23:00 PM 22:23:00 00 6");
  EXPECT_EQ(Text("DATE_FORMAT('1999-01-01', '%X %V')"), "1998 52");
  EXPECT_EQ(Text("DATE_FORMAT('2006-06-00', '%d')"), "00");
  EXPECT_EQ(Text("DATE_FORMAT('2024-03-05 07:08:09.012345', '%e %c %l %p %f %%')"),
            "5 3 7 AM 012345 %");
  EXPECT_EQ(Text("DATE_FORMAT('2024-01-01', '%U %u %V %v %x')"), "00 01 53 01 2024");
}

TEST_F(EvalTest, StrToDate) {
  EXPECT_EQ(Text("STR_TO_DATE('01,5,2013', '%d,%m,%Y')"), "2013-05-01");
  EXPECT_EQ(Text("STR_TO_DATE('May 1, 2013', '%M %d,%Y')"), "2013-05-01");
  EXPECT_EQ(Text("STR_TO_DATE('a09:30:17', 'a%h:%i:%s')"), "09:30:17");
  EXPECT_EQ(Text("STR_TO_DATE('a09:30:17', '%h:%i:%s')"), "NULL");
  ASSERT_FALSE(ctx_.warnings.empty());
  EXPECT_EQ(ctx_.warnings.back().first, 1411);
  EXPECT_EQ(Text("STR_TO_DATE('2013-05-01 10:11:12.5', '%Y-%m-%d %H:%i:%s.%f')"),
            "2013-05-01 10:11:12.500000");
  EXPECT_EQ(Text("STR_TO_DATE('04/31/2004', '%m/%d/%Y')"), "NULL");
  EXPECT_EQ(Text("STR_TO_DATE('10:30 PM', '%h:%i %p')"), "22:30:00");
  EXPECT_EQ(Text("STR_TO_DATE('abc', 'abc')"), "NULL");
}

TEST_F(EvalTest, UnixTimeUsesTheSessionZone) {
  ctx_.time_zone = "+00:00";
  EXPECT_EQ(Text("UNIX_TIMESTAMP('2015-11-13 10:20:19')"), "1447410019");
  EXPECT_EQ(Text("UNIX_TIMESTAMP('2015-11-13 10:20:19.012')"), "1447410019.012");
  EXPECT_EQ(Text("FROM_UNIXTIME(1447430881)"), "2015-11-13 16:08:01");
  EXPECT_EQ(Text("FROM_UNIXTIME(1447430881.5)"), "2015-11-13 16:08:01.5");
  EXPECT_EQ(Text("FROM_UNIXTIME(1447430881, '%Y %D %M %h:%i:%s %x')"),
            "2015 13th November 04:08:01 2015");
  EXPECT_EQ(Text("FROM_UNIXTIME(-1)"), "NULL");
  ctx_.time_zone = "+05:30";
  EXPECT_EQ(Text("FROM_UNIXTIME(0)"), "1970-01-01 05:30:00");
  EXPECT_EQ(Text("UNIX_TIMESTAMP('1970-01-01 05:30:00')"), "0");
  EXPECT_EQ(Text("NOW()"), "2023-11-15 03:43:20");  // 1700000000 + 5:30
}

// Issue 14 (fuzz_sql, fuzz/regressions/sql/interval_minute_second_overflow):
// an interval whose count fits 64 bits but whose microseconds do not is out
// of any date's reach (NULL), not a signed overflow.
TEST_F(EvalTest, HugeIntervalsAreNullNotOverflow) {
  EXPECT_EQ(Call("DATE_ADD", {"'2003-01-01 03:59:59'", "'02233720368547758:12'", "'MINUTE_SECOND'"}), "NULL");
  EXPECT_EQ(Call("DATE_ADD", {"'2003-01-01'", "'99999999999999999 1:2:3'", "'DAY_SECOND'"}), "NULL");
  EXPECT_EQ(Call("DATE_ADD", {"'2003-01-01'", "3999999999999", "'HOUR'"}), "NULL");
  EXPECT_EQ(Call("DATE_SUB", {"'2003-01-01'", "3999999999999", "'MINUTE'"}), "NULL");
  EXPECT_EQ(Call("DATE_ADD", {"'2003-01-01'", "'-1:30'", "'MINUTE_SECOND'"}), "2002-12-31 23:58:30");
  EXPECT_EQ(Call("DATE_ADD", {"'2003-01-01'", "'1 1:1:1.5'", "'DAY_MICROSECOND'"}), "2003-01-02 01:01:01.500000");
}

// Issue 14 (fuzz_sql, fuzz/regressions/sql/from_unixtime_past_2262): a
// time_point in nanoseconds overflows after 2262; FROM_UNIXTIME goes to 3001.
TEST_F(EvalTest, FromUnixtimeAfter2262) {
  ctx_.time_zone = "+00:00";
  EXPECT_EQ(Text("FROM_UNIXTIME(14474360881)"), "2428-09-03 07:48:01");
  EXPECT_EQ(Text("FROM_UNIXTIME(32536771199.999999)"), "3001-01-18 23:59:59.999999");
  EXPECT_EQ(Text("FROM_UNIXTIME(32536771200)"), "NULL");
  ctx_.time_zone = "-12:00";
  EXPECT_EQ(Text("FROM_UNIXTIME(32536771199, '%Y-%m-%d %H')"), "3001-01-18 11");
}

// An ENUM column's value is its member's text as a string and its index as a
// number; ORDER BY (CompareForOrder) sorts two of them by index.
TEST_F(EvalTest, EnumValueIsItsIndexAsANumber) {
  const Value a = Value::Enum("a", 2), z = Value::Enum("z", 1), bad = Value::Enum("", 0);
  EXPECT_TRUE(a.is_string());
  EXPECT_EQ(a.ToString(), "a");
  EXPECT_EQ(a.ToInt(), 2);
  EXPECT_EQ(a.ToUInt(), 2u);
  EXPECT_EQ(a.ToDouble(), 2.0);
  EXPECT_EQ(a.ToDecimal().ToString(), "2");
  EXPECT_EQ(a.ToBool(), std::optional<bool>(true));
  EXPECT_EQ(bad.ToBool(), std::optional<bool>(false));
  // Against a number: by index; against a string or another ENUM: by text.
  EXPECT_EQ(CompareValues(a, Value::Int(2)), std::optional<int>(0));
  EXPECT_EQ(CompareValues(a, Value::Double(1.5)), std::optional<int>(1));
  EXPECT_EQ(CompareValues(a, Value::String("A")), std::optional<int>(0));
  EXPECT_EQ(CompareValues(a, z), std::optional<int>(-1));
  EXPECT_EQ(CompareForOrder(a, z), std::optional<int>(1));
  EXPECT_EQ(CompareForOrder(bad, z), std::optional<int>(-1));
  EXPECT_EQ(CompareForOrder(a, Value::Null()), std::nullopt);
  EXPECT_EQ(CompareForOrder(Value::String("a"), Value::String("z")), std::optional<int>(-1));
  // Grouped by text, as MySQL groups an ENUM column.
  EXPECT_EQ(GroupingKey(a), GroupingKey(Value::String("a")));
}

}  // namespace
}  // namespace sluice::sql
