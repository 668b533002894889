#include "exec/column_values.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <utility>
#include <vector>

#include "protocol/constants.h"

namespace sluice::exec {
namespace {

using storage::ColumnDef;
using storage::ColumnType;
using storage::RowValue;
namespace p = sluice::protocol;

// ---- helpers ----

ColumnDef Col(ColumnType type, std::string name = "c") {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  if (storage::IsTextType(type) || type == ColumnType::kEnum) {
    c.charset = "utf8mb4";
    c.collation = "utf8mb4_0900_ai_ci";
  } else if (storage::IsBinaryType(type)) {
    c.charset = c.collation = "binary";
  }
  return c;
}

ColumnDef Sized(ColumnType type, uint32_t length) {
  ColumnDef c = Col(type);
  c.length = length;
  return c;
}

ColumnDef Dec(uint32_t precision, uint32_t scale) {
  ColumnDef c = Col(ColumnType::kDecimal);
  c.precision = precision;
  c.scale = scale;
  return c;
}

struct Warnings {
  std::vector<std::pair<uint16_t, std::string>> list;
  AssignContext Context(bool strict, uint64_t row = 1) {
    AssignContext cx;
    cx.strict = strict;
    cx.row_number = row;
    cx.warn = [this](uint16_t code, std::string message) { list.emplace_back(code, std::move(message)); };
    return cx;
  }
};

Result<RowValue> Strict(const ColumnDef& c, const sql::Value& v, uint64_t row = 1) {
  AssignContext cx;
  cx.row_number = row;
  return ToColumnValue(c, v, cx);
}

// Stores `v` in a one-column table through the row codec and reads it back
// as the text a client sees.
std::string StoreAndShow(const ColumnDef& column, const sql::Value& v) {
  Result<RowValue> stored = Strict(column, v);
  EXPECT_TRUE(stored.ok()) << stored.status().ToString();
  if (!stored.ok()) return "<error>";
  storage::TableDef t;
  t.schema = "db";
  t.name = "t";
  t.columns.push_back(column);
  EXPECT_TRUE(storage::NormalizeTableDef(&t).ok());
  Result<std::string> record = storage::EncodeRow(t, {*stored});
  EXPECT_TRUE(record.ok()) << record.status().ToString();
  if (!record.ok()) return "<error>";
  Result<storage::Row> row = storage::DecodeRow(t, *record);
  EXPECT_TRUE(row.ok()) << row.status().ToString();
  if (!row.ok()) return "<error>";
  EXPECT_EQ((*row)[0], *stored) << "engine value changed on the way through the codec";
  std::optional<std::string> text = ColumnText(t.columns[0], (*row)[0]);
  // A result row written in place holds the same cell.
  protocol::TextRows rows;
  protocol::TextRows::RowWriter w = rows.Open();
  AppendColumnCell(t.columns[0], (*row)[0], &w);
  rows.Close();
  EXPECT_EQ(rows.payload(0), protocol::EncodeTextRow({text}));
  return text.value_or("NULL");
}

void ExpectError(const Result<RowValue>& r, uint16_t code, const std::string& message) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().mysql_errno(), code) << r.status().ToString();
  EXPECT_EQ(r.status().message(), message);
}

sql::ExprPtr Lit(sql::Value v) {
  auto e = std::make_unique<sql::Expr>(sql::ExprKind::kLiteral);
  e->value = std::move(v);
  return e;
}

sql::ExprPtr Call(std::string name, int fsp = -1) {
  auto e = std::make_unique<sql::Expr>(sql::ExprKind::kFunction);
  e->name = std::move(name);
  if (fsp >= 0) e->args.push_back(Lit(sql::Value::Int(fsp)));
  return e;
}

Result<sql::Value> EvalLiteral(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kLiteral) return e.value;
  if (e.kind == sql::ExprKind::kUnary && e.op == sql::Op::kNeg) {
    Result<sql::Value> v = EvalLiteral(*e.args[0]);
    if (!v.ok()) return v;
    return sql::Value::Int(-v->ToInt());
  }
  return Status::NotSupported("not a literal");
}

sql::DataType Type(std::string name, int length = -1, int scale = -1) {
  sql::DataType t;
  t.name = std::move(name);
  t.length = length;
  t.scale = scale;
  return t;
}

sql::ColumnDefinition Def(std::string name, sql::DataType type) {
  sql::ColumnDefinition d;
  d.name = std::move(name);
  d.type = std::move(type);
  return d;
}

Result<ColumnDef> FromDef(const sql::ColumnDefinition& d, std::string_view charset = "utf8mb4",
                          std::string_view collation = "utf8mb4_0900_ai_ci") {
  return ColumnFromDefinition(d, charset, collation, EvalLiteral);
}

// Runs the test body with TZ=UTC so TIMESTAMP conversions are predictable.
class UtcZone {
 public:
  UtcZone() {
    const char* old = std::getenv("TZ");
    had_ = old != nullptr;
    if (had_) old_ = old;
    setenv("TZ", "UTC", 1);
    tzset();
  }
  ~UtcZone() {
    if (had_) {
      setenv("TZ", old_.c_str(), 1);
    } else {
      unsetenv("TZ");
    }
    tzset();
  }

 private:
  bool had_ = false;
  std::string old_;
};

// ---- round trips, one per ColumnType ----

TEST(ColumnValuesTest, IntegerRoundTrips) {
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kTinyInt), sql::Value::Int(-128)), "-128");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kSmallInt), sql::Value::String("32767")), "32767");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kMediumInt), sql::Value::Double(-8388607.6)), "-8388608");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kInt), sql::Value::Dec(*sql::Decimal::Parse("2.5"))), "3");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kBigInt), sql::Value::Int(INT64_MIN)), "-9223372036854775808");
  ColumnDef u = Col(ColumnType::kBigInt);
  u.is_unsigned = true;
  EXPECT_EQ(StoreAndShow(u, sql::Value::String("18446744073709551615")), "18446744073709551615");
  Result<RowValue> r = Strict(u, sql::Value::UInt(7));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<uint64_t>(*r), 7u);
  sql::Value back = FromColumnValue(u, *r);
  EXPECT_EQ(back.kind(), sql::ValueKind::kUInt);
  EXPECT_EQ(FromColumnValue(Col(ColumnType::kInt), RowValue(int64_t{-3})).int_value(), -3);
  // Numeric strings round like numbers; spaces around are fine.
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kInt), sql::Value::String(" 12.5 ")), "13");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kInt), sql::Value::String("1e3")), "1000");
}

TEST(ColumnValuesTest, DecimalRoundTrips) {
  EXPECT_EQ(StoreAndShow(Dec(10, 2), sql::Value::String("-12.5")), "-12.50");
  EXPECT_EQ(StoreAndShow(Dec(10, 2), sql::Value::Int(7)), "7.00");
  EXPECT_EQ(StoreAndShow(Dec(10, 0), sql::Value::Double(2.5)), "3");
  EXPECT_EQ(StoreAndShow(Dec(5, 3), sql::Value::String(".5")), "0.500");
  EXPECT_EQ(StoreAndShow(Dec(65, 0), sql::Value::String("12345678901234567890123456789012345678901234567890")),
            "12345678901234567890123456789012345678901234567890");
  Result<RowValue> r = Strict(Dec(10, 2), sql::Value::String("1.5"));
  ASSERT_TRUE(r.ok());
  sql::Value v = FromColumnValue(Dec(10, 2), *r);
  ASSERT_EQ(v.kind(), sql::ValueKind::kDecimal);
  EXPECT_EQ(v.ToString(), "1.50");
}

TEST(ColumnValuesTest, DecimalRoundingIsANote) {
  Warnings w;
  AssignContext cx = w.Context(/*strict=*/true);
  Result<RowValue> r = ToColumnValue(Dec(5, 2), sql::Value::String("1.235"), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<std::string>(*r), "1.24");
  ASSERT_EQ(w.list.size(), 1u);
  EXPECT_EQ(w.list[0].first, 1265);
  EXPECT_EQ(w.list[0].second, "Data truncated for column 'c' at row 1");
}

TEST(ColumnValuesTest, FloatAndDoubleRoundTrips) {
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDouble), sql::Value::Double(0.1)), "0.1");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDouble), sql::Value::String("1.5e300")), "1.5e300");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDouble), sql::Value::Double(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kFloat), sql::Value::Double(3.14)), "3.14");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kFloat), sql::Value::Int(1234567)), "1234570");  // 6 digits
  ColumnDef fixed = Col(ColumnType::kFloat);  // FLOAT(7,4)
  fixed.precision = 7;
  fixed.scale = 4;
  EXPECT_EQ(StoreAndShow(fixed, sql::Value::String("999.00009")), "999.0001");
  EXPECT_EQ(FromColumnValue(Col(ColumnType::kDouble), RowValue(2.5)).double_value(), 2.5);
}

TEST(ColumnValuesTest, StringRoundTrips) {
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kChar, 5), sql::Value::String("ab  ")), "ab");
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kVarChar, 3), sql::Value::String("h\xC3\xA9!")), "h\xC3\xA9!");
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kVarChar, 3), sql::Value::String("abc   ")), "abc");
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kVarChar, 10), sql::Value::Int(-42)), "-42");
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kBinary, 4), sql::Value::String("ab", true)), std::string("ab\0\0", 4));
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kVarBinary, 4), sql::Value::String("\x01\xFF", true)), "\x01\xFF");
  for (ColumnType t : {ColumnType::kTinyText, ColumnType::kText, ColumnType::kMediumText, ColumnType::kLongText,
                       ColumnType::kTinyBlob, ColumnType::kBlob, ColumnType::kMediumBlob, ColumnType::kLongBlob}) {
    EXPECT_EQ(StoreAndShow(Col(t), sql::Value::String("hello")), "hello") << storage::ColumnTypeName(t);
  }
  sql::Value text = FromColumnValue(Col(ColumnType::kText), RowValue(std::string("x")));
  EXPECT_FALSE(text.is_binary());
  sql::Value blob = FromColumnValue(Col(ColumnType::kBlob), RowValue(std::string("x")));
  EXPECT_TRUE(blob.is_binary());
}

TEST(ColumnValuesTest, TemporalRoundTrips) {
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDate), sql::Value::String("2026-01-02")), "2026-01-02");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDate), sql::Value::Int(20260102)), "2026-01-02");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDate), sql::Value::String("26-1-2")), "2026-01-02");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDateTime), sql::Value::String("2026-01-02 03:04:05")),
            "2026-01-02 03:04:05");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDateTime), sql::Value::Int(20260102030405)), "2026-01-02 03:04:05");
  ColumnDef dt3 = Col(ColumnType::kDateTime);
  dt3.fsp = 3;
  EXPECT_EQ(StoreAndShow(dt3, sql::Value::String("2026-01-02 03:04:05.1234")), "2026-01-02 03:04:05.123");
  // Fractions are rounded to the column's fsp, carrying into the date.
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDateTime), sql::Value::String("2025-12-31 23:59:59.5")),
            "2026-01-01 00:00:00");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kTime), sql::Value::String("-838:59:59")), "-838:59:59");
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kTime), sql::Value::Int(123456)), "12:34:56");
  ColumnDef t6 = Col(ColumnType::kTime);
  t6.fsp = 6;
  EXPECT_EQ(StoreAndShow(t6, sql::Value::String("1 02:03:04.5")), "26:03:04.500000");
  sql::Value d = FromColumnValue(Col(ColumnType::kDate), RowValue(storage::PackDate(2026, 1, 2)));
  EXPECT_EQ(d.string_type(), sql::StringType::kDate);
  EXPECT_EQ(d.ToString(), "2026-01-02");
  sql::Value tm = FromColumnValue(Col(ColumnType::kTime), RowValue(storage::PackTime(false, 1, 2, 3, 0)));
  EXPECT_EQ(tm.string_type(), sql::StringType::kTime);
  EXPECT_EQ(tm.ToString(), "01:02:03");
  sql::Value typed = sql::Value::Typed("2026-01-02 03:04:05", sql::StringType::kDatetime);
  EXPECT_EQ(StoreAndShow(Col(ColumnType::kDateTime), typed), "2026-01-02 03:04:05");
}

TEST(ColumnValuesTest, TimestampIsUtcMicroseconds) {
  UtcZone utc;
  ColumnDef ts = Col(ColumnType::kTimestamp);
  Result<RowValue> r = Strict(ts, sql::Value::String("1970-01-02 00:00:00"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(std::get<int64_t>(*r), 86400LL * 1000000);
  EXPECT_EQ(StoreAndShow(ts, sql::Value::String("2038-01-19 03:14:07")), "2038-01-19 03:14:07");
  ts.fsp = 6;
  EXPECT_EQ(StoreAndShow(ts, sql::Value::String("2026-01-02 03:04:05.000007")), "2026-01-02 03:04:05.000007");
  sql::Value v = FromColumnValue(ts, RowValue(int64_t{1000000}));
  EXPECT_EQ(v.string_type(), sql::StringType::kDatetime);
  EXPECT_EQ(v.ToString(), "1970-01-01 00:00:01.000000");
  ExpectError(Strict(Col(ColumnType::kTimestamp), sql::Value::String("1960-01-01")), 1292,
              "Incorrect datetime value: '1960-01-01' for column 'c' at row 1");
  ExpectError(Strict(Col(ColumnType::kTimestamp), sql::Value::String("2038-01-19 03:14:08")), 1292,
              "Incorrect datetime value: '2038-01-19 03:14:08' for column 'c' at row 1");
}

TEST(ColumnValuesTest, YearRoundTrips) {
  ColumnDef y = Col(ColumnType::kYear);
  EXPECT_EQ(StoreAndShow(y, sql::Value::Int(2024)), "2024");
  EXPECT_EQ(StoreAndShow(y, sql::Value::Int(0)), "0000");
  EXPECT_EQ(StoreAndShow(y, sql::Value::String("0")), "2000");
  EXPECT_EQ(StoreAndShow(y, sql::Value::Int(69)), "2069");
  EXPECT_EQ(StoreAndShow(y, sql::Value::String("70")), "1970");
  EXPECT_EQ(StoreAndShow(y, sql::Value::Typed("2031-05-06", sql::StringType::kDate)), "2031");
  sql::Value v = FromColumnValue(y, RowValue(uint64_t{1999}));
  EXPECT_EQ(v.ToInt(), 1999);
  ExpectError(Strict(y, sql::Value::Int(1900)), 1264, "Out of range value for column 'c' at row 1");
}

TEST(ColumnValuesTest, EnumRoundTrips) {
  ColumnDef e = Col(ColumnType::kEnum);
  e.enum_values = {"small", "Medium", "large"};
  EXPECT_EQ(StoreAndShow(e, sql::Value::String("MEDIUM")), "Medium");
  EXPECT_EQ(StoreAndShow(e, sql::Value::String("large ")), "large");
  EXPECT_EQ(StoreAndShow(e, sql::Value::Int(1)), "small");
  EXPECT_EQ(StoreAndShow(e, sql::Value::String("3")), "large");
  Result<RowValue> r = Strict(e, sql::Value::String("small"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<uint64_t>(*r), 1u);
  EXPECT_EQ(FromColumnValue(e, *r).ToString(), "small");
  ExpectError(Strict(e, sql::Value::String("huge"), 4), 1265, "Data truncated for column 'c' at row 4");
  ExpectError(Strict(e, sql::Value::String("")), 1265, "Data truncated for column 'c' at row 1");
  ExpectError(Strict(e, sql::Value::Int(4)), 1265, "Data truncated for column 'c' at row 1");
}

TEST(ColumnValuesTest, NullRoundTrips) {
  ColumnDef c = Col(ColumnType::kInt);
  Result<RowValue> r = Strict(c, sql::Value::Null());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(storage::IsNull(*r));
  EXPECT_TRUE(FromColumnValue(c, *r).is_null());
  EXPECT_FALSE(ColumnText(c, *r).has_value());
}

// ---- strict mode: errors ----

TEST(ColumnValuesTest, StrictErrorsHaveMySqlTexts) {
  ColumnDef k = Col(ColumnType::kInt, "k");
  ExpectError(Strict(k, sql::Value::Int(2147483648LL), 3), 1264, "Out of range value for column 'k' at row 3");
  ExpectError(Strict(k, sql::Value::String("abc")), 1366, "Incorrect integer value: 'abc' for column 'k' at row 1");
  ExpectError(Strict(k, sql::Value::String("")), 1366, "Incorrect integer value: '' for column 'k' at row 1");
  ExpectError(Strict(k, sql::Value::String("12abc")), 1265, "Data truncated for column 'k' at row 1");
  ColumnDef u = Col(ColumnType::kTinyInt, "u");
  u.is_unsigned = true;
  ExpectError(Strict(u, sql::Value::Int(-1)), 1264, "Out of range value for column 'u' at row 1");
  ExpectError(Strict(Sized(ColumnType::kVarChar, 3), sql::Value::String("abcd"), 2), 1406,
              "Data too long for column 'c' at row 2");
  ExpectError(Strict(Sized(ColumnType::kChar, 2), sql::Value::String("h\xC3\xA9y")), 1406,
              "Data too long for column 'c' at row 1");
  ExpectError(Strict(Sized(ColumnType::kVarBinary, 2), sql::Value::String("abc", true)), 1406,
              "Data too long for column 'c' at row 1");
  ExpectError(Strict(Col(ColumnType::kTinyText), sql::Value::String(std::string(256, 'x'))), 1406,
              "Data too long for column 'c' at row 1");
  ExpectError(Strict(Col(ColumnType::kDate, "d"), sql::Value::String("2026-02-30")), 1292,
              "Incorrect date value: '2026-02-30' for column 'd' at row 1");
  ExpectError(Strict(Col(ColumnType::kDate, "d"), sql::Value::String("0000-00-00")), 1292,
              "Incorrect date value: '0000-00-00' for column 'd' at row 1");
  ExpectError(Strict(Col(ColumnType::kDateTime, "d"), sql::Value::String("yesterday")), 1292,
              "Incorrect datetime value: 'yesterday' for column 'd' at row 1");
  ExpectError(Strict(Col(ColumnType::kTime, "t"), sql::Value::String("12:61:00")), 1292,
              "Incorrect time value: '12:61:00' for column 't' at row 1");
  ExpectError(Strict(Dec(5, 2), sql::Value::String("1000")), 1264, "Out of range value for column 'c' at row 1");
  ExpectError(Strict(Dec(5, 2), sql::Value::String("1x")), 1366,
              "Incorrect decimal value: '1x' for column 'c' at row 1");
  ExpectError(Strict(Col(ColumnType::kDouble), sql::Value::String("abc")), 1265,
              "Data truncated for column 'c' at row 1");
  ExpectError(Strict(Col(ColumnType::kDouble), sql::Value::String("1e400")), 1264,
              "Out of range value for column 'c' at row 1");
  ExpectError(Strict(Col(ColumnType::kFloat), sql::Value::Double(1e39)), 1264,
              "Out of range value for column 'c' at row 1");
  ColumnDef nn = Col(ColumnType::kInt, "nn");
  nn.nullable = false;
  ExpectError(Strict(nn, sql::Value::Null()), 1048, "Column 'nn' cannot be null");
}

TEST(ColumnValuesTest, MalformedStringsAreRejected) {
  ExpectError(Strict(Sized(ColumnType::kVarChar, 10), sql::Value::String("a\xFF" "b", true)), 1366,
              "Incorrect string value: '\\xFFb' for column 'c' at row 1");
  ColumnDef mb3 = Sized(ColumnType::kVarChar, 10);
  mb3.charset = "utf8mb3";
  mb3.collation = "utf8mb3_general_ci";
  ExpectError(Strict(mb3, sql::Value::String("\xF0\x9F\x98\x80")), 1366,
              "Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column 'c' at row 1");
  // The same emoji is fine in utf8mb4 and counts as one character.
  EXPECT_EQ(StoreAndShow(Sized(ColumnType::kVarChar, 1), sql::Value::String("\xF0\x9F\x98\x80")),
            "\xF0\x9F\x98\x80");
}

// ---- not strict: warnings and adjusted values ----

TEST(ColumnValuesTest, NonStrictAdjustsWithWarnings) {
  Warnings w;
  AssignContext cx = w.Context(/*strict=*/false, 2);
  ColumnDef k = Col(ColumnType::kInt, "k");
  Result<RowValue> r = ToColumnValue(k, sql::Value::Int(5000000000LL), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 2147483647);
  r = ToColumnValue(k, sql::Value::String("12abc"), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 12);
  r = ToColumnValue(k, sql::Value::String("abc"), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 0);
  ColumnDef v = Sized(ColumnType::kVarChar, 3);
  v.name = "v";
  r = ToColumnValue(v, sql::Value::String("abcdef"), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<std::string>(*r), "abc");
  ColumnDef t = Col(ColumnType::kTime, "t");
  r = ToColumnValue(t, sql::Value::String("bad"), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 0);
  ColumnDef d = Dec(4, 1);
  d.name = "d";
  r = ToColumnValue(d, sql::Value::String("-12345"), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<std::string>(*r), "-999.9");
  ColumnDef nn = Col(ColumnType::kVarChar, "nn");
  nn.length = 5;
  nn.nullable = false;
  r = ToColumnValue(nn, sql::Value::Null(), cx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<std::string>(*r), "");
  const std::vector<std::pair<uint16_t, std::string>> expected = {
      {1264, "Out of range value for column 'k' at row 2"},
      {1265, "Data truncated for column 'k' at row 2"},
      {1366, "Incorrect integer value: 'abc' for column 'k' at row 2"},
      {1265, "Data truncated for column 'v' at row 2"},
      {1292, "Incorrect time value: 'bad' for column 't' at row 2"},
      {1264, "Out of range value for column 'd' at row 2"},
      {1048, "Column 'nn' cannot be null"},
  };
  EXPECT_EQ(w.list, expected);
}

TEST(ColumnValuesTest, NonStrictCannotStoreTheZeroDate) {
  Warnings w;
  AssignContext cx = w.Context(/*strict=*/false);
  ExpectError(ToColumnValue(Col(ColumnType::kDate, "d"), sql::Value::String("nope"), cx), 1292,
              "Incorrect date value: 'nope' for column 'd' at row 1");
}

// ---- defaults ----

TEST(ColumnValuesTest, ColumnDefaultWhenOmitted) {
  const auto now = std::chrono::system_clock::now();
  ColumnDef nn = Col(ColumnType::kInt, "x");
  nn.nullable = false;
  AssignContext strict;
  ExpectError(ColumnDefault(nn, strict, now), 1364, "Field 'x' doesn't have a default value");
  Warnings w;
  AssignContext loose = w.Context(false);
  Result<RowValue> r = ColumnDefault(nn, loose, now);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 0);
  ASSERT_EQ(w.list.size(), 1u);
  EXPECT_EQ(w.list[0], (std::pair<uint16_t, std::string>{1364, "Field 'x' doesn't have a default value"}));

  ColumnDef nullable = Col(ColumnType::kInt);
  r = ColumnDefault(nullable, strict, now);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(storage::IsNull(*r));

  ColumnDef ai = nn;
  ai.auto_increment = true;
  r = ColumnDefault(ai, strict, now);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(storage::IsNull(*r)) << "AUTO_INCREMENT asks the caller for the next value";

  ColumnDef with = nn;
  with.default_kind = ColumnDef::DefaultKind::kValue;
  with.default_value = "42";
  r = ColumnDefault(with, strict, now);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 42);
}

TEST(ColumnValuesTest, CurrentTimestampDefault) {
  UtcZone utc;
  const auto when = std::chrono::system_clock::time_point(std::chrono::microseconds(86400LL * 1000000 + 123456));
  AssignContext cx;
  ColumnDef ts = Col(ColumnType::kTimestamp);
  ts.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
  Result<RowValue> r = ColumnDefault(ts, cx, when);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(std::get<int64_t>(*r), 86400LL * 1000000);  // fsp 0: fraction dropped
  ColumnDef dt = Col(ColumnType::kDateTime);
  dt.fsp = 3;
  dt.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
  r = ColumnDefault(dt, cx, when);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ColumnText(dt, *r).value(), "1970-01-02 00:00:00.123");
}

TEST(ColumnValuesTest, OnUpdateCurrentTimestampSetsUnassignedColumnsOfAChangedRow) {
  UtcZone utc;
  const auto when = std::chrono::system_clock::time_point(std::chrono::microseconds(86400LL * 1000000 + 500000));
  storage::TableDef t;
  t.name = "t";
  ColumnDef v = Col(ColumnType::kInt, "v");
  v.ordinal = 0;
  ColumnDef ts = Col(ColumnType::kTimestamp, "ts");
  ts.ordinal = 1;
  ts.on_update_current_timestamp = true;
  ColumnDef dt = Col(ColumnType::kDateTime, "dt");
  dt.ordinal = 2;
  dt.fsp = 3;
  dt.on_update_current_timestamp = true;
  t.columns = {v, ts, dt};
  AssignContext cx;
  const storage::Row before{RowValue(int64_t{1}), RowValue(int64_t{7}), RowValue()};

  // Nothing changed: the times stay.
  storage::Row same = before;
  ASSERT_TRUE(ApplyOnUpdateNow(t, before, {true, false, false}, &same, cx, when).ok());
  EXPECT_EQ(same, before);

  // v changed; ts was assigned by the statement (to what it was), dt was not.
  storage::Row changed = before;
  changed[0] = int64_t{2};
  ASSERT_TRUE(ApplyOnUpdateNow(t, before, {true, true, false}, &changed, cx, when).ok());
  EXPECT_EQ(std::get<int64_t>(changed[1]), 7);
  EXPECT_EQ(ColumnText(dt, changed[2]).value(), "1970-01-02 00:00:00.500");
  EXPECT_EQ(ColumnExtra(dt), "on update CURRENT_TIMESTAMP(3)");
}

// ---- CREATE TABLE ----

TEST(ColumnValuesTest, SysbenchColumns) {
  // id INTEGER NOT NULL AUTO_INCREMENT
  sql::ColumnDefinition id = Def("id", Type("INT"));
  id.nullable = false;
  id.auto_increment = true;
  Result<ColumnDef> c = FromDef(id);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->type, ColumnType::kInt);
  EXPECT_FALSE(c->nullable);
  EXPECT_TRUE(c->auto_increment);
  EXPECT_EQ(ColumnTypeText(*c), "int");
  EXPECT_EQ(ColumnDefaultClause(*c), "");

  // k INTEGER DEFAULT '0' NOT NULL
  sql::ColumnDefinition k = Def("k", Type("INT"));
  k.default_value = Lit(sql::Value::String("0"));
  k.nullable = false;
  c = FromDef(k);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->default_kind, ColumnDef::DefaultKind::kValue);
  EXPECT_EQ(c->default_value, "0");
  EXPECT_EQ(ColumnTypeText(*c) + " NOT NULL " + ColumnDefaultClause(*c), "int NOT NULL DEFAULT '0'");

  // c CHAR(120) DEFAULT '' NOT NULL
  sql::ColumnDefinition ch = Def("c", Type("CHAR", 120));
  ch.default_value = Lit(sql::Value::String(""));
  ch.nullable = false;
  c = FromDef(ch);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->type, ColumnType::kChar);
  EXPECT_EQ(c->length, 120u);
  EXPECT_EQ(c->charset, "utf8mb4");
  EXPECT_EQ(c->collation, "utf8mb4_0900_ai_ci");
  EXPECT_EQ(ColumnTypeText(*c) + " NOT NULL " + ColumnDefaultClause(*c), "char(120) NOT NULL DEFAULT ''");
  AssignContext cx;
  Result<RowValue> def = ColumnDefault(*c, cx, std::chrono::system_clock::now());
  ASSERT_TRUE(def.ok());
  EXPECT_EQ(std::get<std::string>(*def), "");

  // pad CHAR(60) DEFAULT '' NOT NULL; sbtest's secondary k_1 index is elsewhere.
  sql::ColumnDefinition pad = Def("pad", Type("CHAR", 60));
  pad.default_value = Lit(sql::Value::String(""));
  pad.nullable = false;
  c = FromDef(pad);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ColumnTypeText(*c), "char(60)");
}

TEST(ColumnValuesTest, SerialAsTheParserFoldsIt) {
  sql::DataType t = Type("BIGINT");
  t.is_unsigned = true;
  sql::ColumnDefinition id = Def("id", t);
  id.nullable = false;
  id.auto_increment = true;
  Result<ColumnDef> c = FromDef(id);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->type, ColumnType::kBigInt);
  EXPECT_TRUE(c->is_unsigned);
  EXPECT_FALSE(c->nullable);
  EXPECT_TRUE(c->auto_increment);
  EXPECT_EQ(ColumnTypeText(*c), "bigint unsigned");
  EXPECT_EQ(ColumnDefaultClause(*c), "");
  // The unfolded name gives the same column.
  Result<ColumnDef> s = FromDef(Def("id", Type("SERIAL")));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->type, ColumnType::kBigInt);
  EXPECT_TRUE(s->is_unsigned && !s->nullable && s->auto_increment);
}

TEST(ColumnValuesTest, TypeMappingAndShowCreateText) {
  struct Case {
    sql::DataType type;
    std::string text;
  };
  sql::DataType uint = Type("INT", 11);
  uint.is_unsigned = true;
  sql::DataType zf = Type("SMALLINT", 5);
  zf.zerofill = true;
  sql::DataType en = Type("ENUM");
  en.values = {"a", "it's", "c  "};
  std::vector<Case> cases;
  cases.push_back({Type("INT", 11), "int"});
  cases.push_back({uint, "int unsigned"});
  cases.push_back({zf, "smallint unsigned"});
  cases.push_back({Type("TINYINT", 1), "tinyint(1)"});
  cases.push_back({Type("BOOLEAN"), "tinyint(1)"});
  cases.push_back({Type("TINYINT", 4), "tinyint"});
  cases.push_back({Type("MEDIUMINT"), "mediumint"});
  cases.push_back({Type("BIGINT", 20), "bigint"});
  cases.push_back({Type("DECIMAL"), "decimal(10,0)"});
  cases.push_back({Type("DECIMAL", 10, 2), "decimal(10,2)"});
  cases.push_back({Type("DECIMAL", 7), "decimal(7,0)"});
  cases.push_back({Type("FLOAT"), "float"});
  cases.push_back({Type("FLOAT", 24), "float"});
  cases.push_back({Type("FLOAT", 25), "double"});
  cases.push_back({Type("FLOAT", 7, 4), "float(7,4)"});
  cases.push_back({Type("DOUBLE"), "double"});
  cases.push_back({Type("CHAR"), "char(1)"});
  cases.push_back({Type("VARCHAR", 128), "varchar(128)"});
  cases.push_back({Type("BINARY", 16), "binary(16)"});
  cases.push_back({Type("VARBINARY", 16), "varbinary(16)"});
  cases.push_back({Type("TINYTEXT"), "tinytext"});
  cases.push_back({Type("TEXT"), "text"});
  cases.push_back({Type("TEXT", 100), "text"});  // 400 bytes in utf8mb4
  cases.push_back({Type("TEXT", 50), "tinytext"});
  cases.push_back({Type("MEDIUMTEXT"), "mediumtext"});
  cases.push_back({Type("LONGTEXT"), "longtext"});
  cases.push_back({Type("BLOB"), "blob"});
  cases.push_back({Type("LONGBLOB"), "longblob"});
  cases.push_back({Type("DATE"), "date"});
  cases.push_back({Type("TIME"), "time"});
  cases.push_back({Type("TIME", 3), "time(3)"});
  cases.push_back({Type("DATETIME"), "datetime"});
  cases.push_back({Type("DATETIME", 6), "datetime(6)"});
  cases.push_back({Type("TIMESTAMP", 2), "timestamp(2)"});
  cases.push_back({Type("YEAR"), "year"});
  cases.push_back({en, "enum('a','it''s','c')"});
  for (const Case& tc : cases) {
    Result<ColumnDef> c = FromDef(Def("x", tc.type));
    ASSERT_TRUE(c.ok()) << tc.type.name << ": " << c.status().ToString();
    EXPECT_EQ(ColumnTypeText(*c), tc.text) << tc.type.name;
  }
  sql::DataType chb = Type("CHAR", 4);
  chb.charset = "binary";
  Result<ColumnDef> c = FromDef(Def("x", chb));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(ColumnTypeText(*c), "binary(4)");
}

TEST(ColumnValuesTest, DefaultClauses) {
  auto clause = [](sql::DataType type, sql::ExprPtr def, bool not_null = false) -> std::string {
    sql::ColumnDefinition d = Def("x", std::move(type));
    d.default_value = std::move(def);
    if (not_null) d.nullable = false;
    Result<ColumnDef> c = FromDef(d);
    if (!c.ok()) return c.status().ToString();
    return ColumnDefaultClause(*c);
  };
  EXPECT_EQ(clause(Type("VARCHAR", 128), nullptr), "DEFAULT NULL");
  EXPECT_EQ(clause(Type("VARCHAR", 128), nullptr, true), "");
  EXPECT_EQ(clause(Type("TEXT"), nullptr), "");
  EXPECT_EQ(clause(Type("INT"), Lit(sql::Value::Null())), "DEFAULT NULL");
  EXPECT_EQ(clause(Type("INT"), Lit(sql::Value::Int(0))), "DEFAULT '0'");
  sql::ExprPtr neg = std::make_unique<sql::Expr>(sql::ExprKind::kUnary);
  neg->op = sql::Op::kNeg;
  neg->args.push_back(Lit(sql::Value::Int(1)));
  EXPECT_EQ(clause(Type("INT"), std::move(neg)), "DEFAULT '-1'");
  EXPECT_EQ(clause(Type("DECIMAL", 10, 2), Lit(sql::Value::Int(1))), "DEFAULT '1.00'");
  EXPECT_EQ(clause(Type("DOUBLE"), Lit(sql::Value::Dec(*sql::Decimal::Parse("1.5")))), "DEFAULT '1.5'");
  EXPECT_EQ(clause(Type("VARCHAR", 10), Lit(sql::Value::String("it's"))), "DEFAULT 'it''s'");
  EXPECT_EQ(clause(Type("DATE"), Lit(sql::Value::String("2026-1-2"))), "DEFAULT '2026-01-02'");
  EXPECT_EQ(clause(Type("DATETIME"), Call("CURRENT_TIMESTAMP")), "DEFAULT CURRENT_TIMESTAMP");
  EXPECT_EQ(clause(Type("TIMESTAMP", 3), Call("NOW", 3)), "DEFAULT CURRENT_TIMESTAMP(3)");
  sql::DataType en = Type("ENUM");
  en.values = {"a", "b"};
  EXPECT_EQ(clause(en, Lit(sql::Value::String("B")), true), "DEFAULT 'b'");
}

TEST(ColumnValuesTest, InvalidDefaults) {
  auto status = [](sql::DataType type, sql::ExprPtr def, bool not_null = false, bool ai = false) {
    sql::ColumnDefinition d = Def("x", std::move(type));
    d.default_value = std::move(def);
    if (not_null) d.nullable = false;
    d.auto_increment = ai;
    Result<ColumnDef> c = FromDef(d);
    return c.ok() ? Status::OK() : c.status();
  };
  Status s = status(Type("INT"), Lit(sql::Value::String("abc")));
  EXPECT_EQ(s.mysql_errno(), 1067);
  EXPECT_EQ(s.message(), "Invalid default value for 'x'");
  EXPECT_EQ(status(Type("TINYINT"), Lit(sql::Value::Int(300))).mysql_errno(), 1067);
  EXPECT_EQ(status(Type("VARCHAR", 2), Lit(sql::Value::String("abc"))).mysql_errno(), 1067);
  EXPECT_EQ(status(Type("INT"), Lit(sql::Value::Null()), true).mysql_errno(), 1067);
  EXPECT_EQ(status(Type("INT"), Lit(sql::Value::Int(1)), true, true).mysql_errno(), 1067);
  EXPECT_EQ(status(Type("INT"), Call("CURRENT_TIMESTAMP")).mysql_errno(), 1067);
  EXPECT_EQ(status(Type("DATETIME", 3), Call("CURRENT_TIMESTAMP")).mysql_errno(), 1067);
  EXPECT_EQ(status(Type("DATE"), Lit(sql::Value::String("2026-13-01"))).mysql_errno(), 1067);
  Status blob = status(Type("TEXT"), Lit(sql::Value::String("x")));
  EXPECT_EQ(blob.mysql_errno(), 1101);
  EXPECT_EQ(blob.message(), "BLOB, TEXT, GEOMETRY or JSON column 'x' can't have a default value");
}

TEST(ColumnValuesTest, UnsupportedTypesAndCharsets) {
  for (const char* name : {"SET", "BIT", "GEOMETRY", "POINT"}) {
    Result<ColumnDef> c = FromDef(Def("x", Type(name)));
    ASSERT_FALSE(c.ok()) << name;
    EXPECT_EQ(c.status().mysql_errno(), 1235);
    EXPECT_EQ(c.status().message(), std::string("This version of MySQL doesn't yet support '") + name + "'");
  }
  sql::DataType t = Type("VARCHAR", 10);
  t.charset = "klingon";
  Result<ColumnDef> c = FromDef(Def("x", t));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1115);
  EXPECT_EQ(c.status().message(), "Unknown character set: 'klingon'");
  t.charset = "";
  t.collation = "utf8mb4_klingon_ci";
  c = FromDef(Def("x", t));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1273);
  EXPECT_EQ(c.status().message(), "Unknown collation: 'utf8mb4_klingon_ci'");
  t.charset = "latin1";
  t.collation = "utf8mb4_bin";
  c = FromDef(Def("x", t));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1253);

  // Known charsets and collations.
  auto resolved = [](std::string cs, std::string col, bool binary = false) {
    sql::DataType d = Type("VARCHAR", 10);
    d.charset = std::move(cs);
    d.collation = std::move(col);
    d.binary = binary;
    Result<ColumnDef> r = FromDef(Def("x", d));
    return r.ok() ? r->charset + "/" + r->collation : r.status().ToString();
  };
  EXPECT_EQ(resolved("", ""), "utf8mb4/utf8mb4_0900_ai_ci");
  EXPECT_EQ(resolved("utf8", ""), "utf8mb3/utf8mb3_general_ci");
  EXPECT_EQ(resolved("UTF8MB3", ""), "utf8mb3/utf8mb3_general_ci");
  EXPECT_EQ(resolved("latin1", ""), "latin1/latin1_swedish_ci");
  EXPECT_EQ(resolved("ascii", ""), "ascii/ascii_general_ci");
  EXPECT_EQ(resolved("", "utf8mb4_bin"), "utf8mb4/utf8mb4_bin");
  EXPECT_EQ(resolved("", "utf8_bin"), "utf8mb3/utf8mb3_bin");
  EXPECT_EQ(resolved("utf8mb4", "", true), "utf8mb4/utf8mb4_bin");
  // The table's defaults apply to columns that name neither.
  Result<ColumnDef> latin = FromDef(Def("x", Type("VARCHAR", 10)), "latin1", "latin1_bin");
  ASSERT_TRUE(latin.ok());
  EXPECT_EQ(latin->charset, "latin1");
  EXPECT_EQ(latin->collation, "latin1_bin");
}

TEST(ColumnValuesTest, LengthLimits) {
  Result<ColumnDef> c = FromDef(Def("v", Type("VARCHAR", 16384)));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1074);
  EXPECT_EQ(c.status().message(), "Column length too big for column 'v' (max = 16383); use BLOB or TEXT instead");
  sql::DataType latin = Type("VARCHAR", 16384);
  latin.charset = "latin1";
  EXPECT_TRUE(FromDef(Def("v", latin)).ok());
  c = FromDef(Def("f", Type("FLOAT", 54)));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1063);
  sql::DataType dup = Type("ENUM");
  dup.values = {"a", "A"};
  c = FromDef(Def("e", dup));
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1291);
  EXPECT_EQ(c.status().message(), "Column 'e' has duplicated value 'A' in ENUM");
  sql::ColumnDefinition ou = Def("i", Type("INT"));
  ou.on_update_now = true;
  c = FromDef(ou);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().mysql_errno(), 1294);
}

// ---- result metadata ----

storage::TableDef SbTest() {
  storage::TableDef t;
  t.schema = "sbtest";
  t.name = "sbtest1";
  ColumnDef id = Col(ColumnType::kInt, "id");
  id.nullable = false;
  id.auto_increment = true;
  ColumnDef k = Col(ColumnType::kInt, "k");
  k.nullable = false;
  k.default_kind = ColumnDef::DefaultKind::kValue;
  k.default_value = "0";
  ColumnDef c = Sized(ColumnType::kChar, 120);
  c.name = "c";
  c.nullable = false;
  c.default_kind = ColumnDef::DefaultKind::kValue;
  c.default_value = "";
  ColumnDef pad = Sized(ColumnType::kChar, 60);
  pad.name = "pad";
  pad.nullable = false;
  t.columns = {id, k, c, pad};
  storage::IndexDef pk;
  pk.name = "PRIMARY";
  pk.kind = storage::IndexKind::kClustered;
  pk.unique = true;
  pk.parts.push_back({"id"});
  storage::IndexDef k1;
  k1.name = "k_1";
  k1.parts.push_back({"k"});
  t.indexes = {pk, k1};
  EXPECT_TRUE(storage::NormalizeTableDef(&t).ok());
  return t;
}

TEST(ColumnValuesTest, MetadataForIntPrimaryKeyAutoIncrement) {
  storage::TableDef t = SbTest();
  protocol::ColumnDefinition m = ColumnMetadata(t, t.columns[0], "ident");
  EXPECT_EQ(m.schema, "sbtest");
  EXPECT_EQ(m.table, "sbtest1");
  EXPECT_EQ(m.org_table, "sbtest1");
  EXPECT_EQ(m.name, "ident");
  EXPECT_EQ(m.org_name, "id");
  EXPECT_EQ(m.type, p::MYSQL_TYPE_LONG);
  EXPECT_EQ(m.length, 11u);
  EXPECT_EQ(m.collation, p::kCollationBinary);
  EXPECT_EQ(m.decimals, 0);
  // MySQL: NOT_NULL PRI_KEY AUTO_INCREMENT NUM PART_KEY.
  EXPECT_EQ(m.flags, p::NOT_NULL_FLAG | p::PRI_KEY_FLAG | p::AUTO_INCREMENT_FLAG | p::NUM_FLAG | 16384);

  protocol::ColumnDefinition k = ColumnMetadata(t, t.columns[1], "k");
  EXPECT_EQ(k.flags, p::NOT_NULL_FLAG | p::MULTIPLE_KEY_FLAG | p::NUM_FLAG | 16384);
}

TEST(ColumnValuesTest, MetadataForCharNotNull) {
  storage::TableDef t = SbTest();
  protocol::ColumnDefinition c = ColumnMetadata(t, t.columns[2], "c");
  EXPECT_EQ(c.type, p::MYSQL_TYPE_STRING);
  EXPECT_EQ(c.length, 480u);
  EXPECT_EQ(c.collation, p::kCollationUtf8mb4_0900_ai_ci);
  EXPECT_EQ(c.decimals, 0);
  EXPECT_EQ(c.flags, p::NOT_NULL_FLAG);
  // Without a DEFAULT: NOT_NULL NO_DEFAULT_VALUE.
  protocol::ColumnDefinition pad = ColumnMetadata(t, t.columns[3], "pad");
  EXPECT_EQ(pad.flags, p::NOT_NULL_FLAG | p::NO_DEFAULT_VALUE_FLAG);
}

TEST(ColumnValuesTest, MetadataForOtherTypes) {
  storage::TableDef t;
  t.schema = "db";
  t.name = "meta";
  auto add = [&t](ColumnDef c) { t.columns.push_back(std::move(c)); };
  ColumnDef tiu = Col(ColumnType::kTinyInt, "tiu");
  tiu.is_unsigned = true;
  add(tiu);
  ColumnDef d = Dec(6, 2);
  d.name = "d";
  add(d);
  ColumnDef du = d;
  du.name = "du";
  du.is_unsigned = true;
  add(du);
  add(Col(ColumnType::kFloat, "f"));
  add(Col(ColumnType::kDouble, "x"));
  add(Col(ColumnType::kYear, "y"));
  add(Col(ColumnType::kDate, "dt"));
  ColumnDef tm = Col(ColumnType::kTime, "tm");
  tm.fsp = 3;
  add(tm);
  ColumnDef ts = Col(ColumnType::kTimestamp, "ts");
  ts.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
  ts.on_update_current_timestamp = true;
  add(ts);
  ColumnDef v = Sized(ColumnType::kVarChar, 20);
  v.name = "v";
  add(v);
  add(Col(ColumnType::kText, "txt"));
  ColumnDef b = Sized(ColumnType::kBinary, 3);
  b.name = "b";
  add(b);
  add(Col(ColumnType::kBlob, "blob_col"));
  ColumnDef e = Col(ColumnType::kEnum, "e");
  e.enum_values = {"ab", "abcd"};
  add(e);
  ColumnDef vb = Sized(ColumnType::kVarChar, 10);
  vb.name = "vbin";
  vb.collation = "utf8mb4_bin";
  add(vb);
  ColumnDef i = Col(ColumnType::kInt, "i");
  add(i);
  storage::IndexDef uk;
  uk.name = "uk_i";
  uk.unique = true;
  uk.parts.push_back({"i"});
  storage::IndexDef kv;
  kv.name = "k_v";
  storage::KeyPart prefix{"v"};
  prefix.prefix_length = 3;
  kv.parts.push_back(prefix);
  t.indexes = {uk, kv};
  ASSERT_TRUE(storage::NormalizeTableDef(&t).ok());
  auto meta = [&t](std::string_view name) { return ColumnMetadata(t, *t.FindColumn(name), name); };

  EXPECT_EQ(meta("tiu").length, 3u);
  EXPECT_EQ(meta("tiu").flags, p::UNSIGNED_FLAG | p::NUM_FLAG);
  EXPECT_EQ(meta("d").type, p::MYSQL_TYPE_NEWDECIMAL);
  EXPECT_EQ(meta("d").length, 8u);
  EXPECT_EQ(meta("d").decimals, 2);
  EXPECT_EQ(meta("du").length, 7u);
  EXPECT_EQ(meta("du").flags, p::UNSIGNED_FLAG | p::NUM_FLAG);
  EXPECT_EQ(meta("f").type, p::MYSQL_TYPE_FLOAT);
  EXPECT_EQ(meta("f").length, 12u);
  EXPECT_EQ(meta("f").decimals, 31);
  EXPECT_EQ(meta("x").type, p::MYSQL_TYPE_DOUBLE);
  EXPECT_EQ(meta("x").length, 22u);
  EXPECT_EQ(meta("y").type, p::MYSQL_TYPE_YEAR);
  EXPECT_EQ(meta("y").length, 4u);
  EXPECT_EQ(meta("y").flags, p::UNSIGNED_FLAG | p::ZEROFILL_FLAG | p::NUM_FLAG);
  EXPECT_EQ(meta("dt").type, p::MYSQL_TYPE_DATE);
  EXPECT_EQ(meta("dt").length, 10u);
  EXPECT_EQ(meta("dt").flags, p::BINARY_FLAG);
  EXPECT_EQ(meta("tm").type, p::MYSQL_TYPE_TIME);
  EXPECT_EQ(meta("tm").length, 14u);
  EXPECT_EQ(meta("tm").decimals, 3);
  EXPECT_EQ(meta("ts").type, p::MYSQL_TYPE_TIMESTAMP);
  EXPECT_EQ(meta("ts").length, 19u);
  EXPECT_EQ(meta("ts").flags, p::BINARY_FLAG | p::TIMESTAMP_FLAG | p::ON_UPDATE_NOW_FLAG);
  EXPECT_EQ(meta("v").type, p::MYSQL_TYPE_VAR_STRING);
  EXPECT_EQ(meta("v").length, 80u);
  EXPECT_EQ(meta("v").flags, p::MULTIPLE_KEY_FLAG | 16384);
  EXPECT_EQ(meta("txt").type, p::MYSQL_TYPE_BLOB);
  EXPECT_EQ(meta("txt").length, 262140u);
  EXPECT_EQ(meta("txt").collation, p::kCollationUtf8mb4_0900_ai_ci);
  EXPECT_EQ(meta("txt").flags, p::BLOB_FLAG);
  EXPECT_EQ(meta("b").type, p::MYSQL_TYPE_STRING);
  EXPECT_EQ(meta("b").length, 3u);
  EXPECT_EQ(meta("b").collation, p::kCollationBinary);
  EXPECT_EQ(meta("b").flags, p::BINARY_FLAG);
  EXPECT_EQ(meta("blob_col").type, p::MYSQL_TYPE_BLOB);
  EXPECT_EQ(meta("blob_col").length, 65535u);
  EXPECT_EQ(meta("blob_col").flags, p::BLOB_FLAG | p::BINARY_FLAG);
  EXPECT_EQ(meta("e").type, p::MYSQL_TYPE_STRING);
  EXPECT_EQ(meta("e").length, 16u);
  EXPECT_EQ(meta("e").flags, p::ENUM_FLAG);
  EXPECT_EQ(meta("vbin").collation, p::kCollationUtf8mb4_0900_ai_ci);
  EXPECT_EQ(meta("vbin").flags, p::BINARY_FLAG);
  EXPECT_EQ(meta("i").flags, p::UNIQUE_KEY_FLAG | p::NUM_FLAG | 16384);
}

TEST(ColumnValuesTest, MetadataForBooleanAndUniqueNotNullAsPrimary) {
  storage::TableDef t;
  t.schema = "db";
  t.name = "t";
  ColumnDef flag = Col(ColumnType::kTinyInt, "flag");
  flag.length = 1;  // TINYINT(1)
  ColumnDef u = Col(ColumnType::kBigInt, "u");
  u.nullable = false;
  t.columns = {flag, u};
  storage::IndexDef uk;
  uk.name = "u";
  uk.unique = true;
  uk.parts.push_back({"u"});
  t.indexes = {uk};
  ASSERT_TRUE(storage::NormalizeTableDef(&t).ok());
  EXPECT_EQ(ColumnMetadata(t, t.columns[0], "flag").length, 1u);
  // No PRIMARY KEY: the UNIQUE NOT NULL index stands in for it.
  EXPECT_EQ(ColumnMetadata(t, t.columns[1], "u").flags,
            p::NOT_NULL_FLAG | p::PRI_KEY_FLAG | p::NO_DEFAULT_VALUE_FLAG | p::NUM_FLAG | 16384);
}

TEST(ColumnValuesTest, SetColumnDefaultChecksLikeADefinition) {
  ColumnDef c = Col(ColumnType::kInt);
  ASSERT_TRUE(SetColumnDefault(&c, *Lit(sql::Value::String("7")), EvalLiteral).ok());
  EXPECT_EQ(ColumnDefaultClause(c), "DEFAULT '7'");
  EXPECT_EQ(SetColumnDefault(&c, *Lit(sql::Value::String("x")), EvalLiteral).mysql_errno(), 1067);
  EXPECT_EQ(ColumnDefaultClause(c), "DEFAULT '7'");  // unchanged by the failure
  ASSERT_TRUE(SetColumnDefault(&c, *Lit(sql::Value::Null()), EvalLiteral).ok());
  EXPECT_EQ(ColumnDefaultClause(c), "DEFAULT NULL");
  c.nullable = false;
  EXPECT_EQ(SetColumnDefault(&c, *Lit(sql::Value::Null()), EvalLiteral).mysql_errno(), 1067);
  ColumnDef text = Col(ColumnType::kText);
  EXPECT_EQ(SetColumnDefault(&text, *Lit(sql::Value::String("x")), EvalLiteral).mysql_errno(), 1101);
  ColumnDef ts = Col(ColumnType::kDateTime);
  ts.fsp = 3;
  ASSERT_TRUE(SetColumnDefault(&ts, *Call("NOW", 3), EvalLiteral).ok());
  EXPECT_EQ(ColumnDefaultClause(ts), "DEFAULT CURRENT_TIMESTAMP(3)");
  EXPECT_EQ(SetColumnDefault(&ts, *Call("NOW"), EvalLiteral).mysql_errno(), 1067);  // fsp differs
}

TEST(ColumnValuesTest, ApplyTableCharsetResolvesAsMySQL) {
  storage::TableOptions o;
  ASSERT_TRUE(ApplyTableCharset("", "", &o).ok());
  EXPECT_EQ(o.charset, "utf8mb4");
  ASSERT_TRUE(ApplyTableCharset("latin1", "", &o).ok());
  EXPECT_EQ(o.collation, "latin1_swedish_ci");
  ASSERT_TRUE(ApplyTableCharset("", "utf8mb4_bin", &o).ok());
  EXPECT_EQ(o.charset, "utf8mb4");
  EXPECT_EQ(o.collation, "utf8mb4_bin");
  ASSERT_TRUE(ApplyTableCharset("utf8", "utf8_bin", &o).ok());
  EXPECT_EQ(o.charset, "utf8mb3");
  EXPECT_EQ(o.collation, "utf8mb3_bin");
  EXPECT_EQ(ApplyTableCharset("nope", "", &o).mysql_errno(), 1115);
  EXPECT_EQ(ApplyTableCharset("", "nope", &o).mysql_errno(), 1273);
  EXPECT_EQ(ApplyTableCharset("latin1", "utf8mb4_bin", &o).mysql_errno(), 1253);
  EXPECT_EQ(o.charset, "utf8mb3");  // unchanged by the failures
}

TEST(ColumnValuesTest, IndexFromSpecAndUnusedKeyNames) {
  sql::IndexSpec spec;
  spec.kind = sql::IndexSpec::Kind::kPrimary;
  spec.parts.push_back({"a", 0, false});
  Result<storage::IndexDef> pk = IndexFromSpec(spec);
  ASSERT_TRUE(pk.ok());
  EXPECT_EQ(pk->name, "PRIMARY");
  EXPECT_TRUE(pk->unique);
  EXPECT_EQ(pk->kind, storage::IndexKind::kClustered);
  spec.kind = sql::IndexSpec::Kind::kKey;
  spec.parts.push_back({"b", 4, true});
  Result<storage::IndexDef> key = IndexFromSpec(spec);
  ASSERT_TRUE(key.ok());
  EXPECT_EQ(key->name, "");
  EXPECT_FALSE(key->unique);
  EXPECT_EQ(key->parts[1].prefix_length, 4u);
  EXPECT_TRUE(key->parts[1].desc);
  spec.kind = sql::IndexSpec::Kind::kFulltext;
  EXPECT_EQ(IndexFromSpec(spec).status().mysql_errno(), 1235);

  std::vector<storage::IndexDef> keys(2);
  keys[0].name = "a";
  keys[1].name = "A_2";
  EXPECT_EQ(UnusedKeyName("b", keys), "b");
  EXPECT_EQ(UnusedKeyName("a", keys), "a_3");
  EXPECT_EQ(UnusedKeyName("primary", keys), "primary_2");
}

}  // namespace
}  // namespace sluice::exec
