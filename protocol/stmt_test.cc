#include "protocol/stmt.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace sluice::protocol {
namespace {

using std::string_literals::operator""s;
using Kind = ParamValue::Kind;

TEST(StmtTest, ExecuteHeaderFromTheDocsExample) {
  // COM_STMT_EXECUTE example (after the 0x17 byte): statement 1, no cursor,
  // one iteration, NULL bitmap 0, new_params_bound 1, VARCHAR, "foo".
  const std::string body = "\x01\x00\x00\x00\x00\x01\x00\x00\x00\x00\x01\x0f\x00\x03" "foo"s;
  StmtExecuteHeader h;
  ASSERT_TRUE(ParseStmtExecuteHeader(body, &h));
  EXPECT_EQ(h.statement_id, 1u);
  EXPECT_EQ(h.flags, CURSOR_TYPE_NO_CURSOR);
  EXPECT_EQ(h.iteration_count, 1u);
  std::vector<ParamType> types;
  std::vector<ParamValue> values;
  ASSERT_TRUE(DecodeStmtParams(h.params, 1, {}, &types, &values).ok());
  ASSERT_EQ(types.size(), 1u);
  EXPECT_EQ(types[0].type, MYSQL_TYPE_VARCHAR);
  EXPECT_FALSE(types[0].is_unsigned);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].kind, Kind::kString);
  EXPECT_EQ(values[0].text, "foo");
  EXPECT_FALSE(ParseStmtExecuteHeader("\x01\x00\x00\x00\x00\x01\x00\x00"s, &h));
}

TEST(StmtTest, IntegersBySizeAndUnsignedFlag) {
  const std::string block =
      "\x00"          // NULL bitmap
      "\x01"          // new_params_bound
      "\x01\x00" "\x01\x80" "\x02\x00" "\x03\x00" "\x08\x00" "\x08\x80" "\x0d\x00"
      "\xff"                                // TINY -1
      "\xff"                                // TINY UNSIGNED 255
      "\xfe\xff"                            // SHORT -2
      "\x00\x00\x00\x80"                    // LONG INT32_MIN
      "\xff\xff\xff\xff\xff\xff\xff\x7f"    // LONGLONG INT64_MAX
      "\xff\xff\xff\xff\xff\xff\xff\xff"    // LONGLONG UNSIGNED UINT64_MAX
      "\xe8\x07"s;                          // YEAR 2024
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  ASSERT_TRUE(DecodeStmtParams(block, 7, {}, &types, &v).ok());
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0].kind, Kind::kInt);
  EXPECT_EQ(v[0].i, -1);
  EXPECT_EQ(v[1].kind, Kind::kUInt);
  EXPECT_EQ(v[1].u, 255u);
  EXPECT_EQ(v[2].i, -2);
  EXPECT_EQ(v[3].i, INT32_MIN);
  EXPECT_EQ(v[4].i, INT64_MAX);
  EXPECT_EQ(v[5].kind, Kind::kUInt);
  EXPECT_EQ(v[5].u, UINT64_MAX);
  EXPECT_EQ(v[6].kind, Kind::kUInt);
  EXPECT_EQ(v[6].u, 2024u);
}

TEST(StmtTest, NullBitmapSkipsValuesAndTypesAreReusedWhenNotResent) {
  // Nine parameters: two bitmap bytes; 0 and 8 are NULL.
  std::string block = "\x01\x01\x01"s;
  for (int i = 0; i < 9; ++i) block += "\x03\x00"s;  // LONG
  for (int i = 1; i < 8; ++i) block += std::string(1, static_cast<char>(i)) + "\x00\x00\x00"s;
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  ASSERT_TRUE(DecodeStmtParams(block, 9, {}, &types, &v).ok());
  EXPECT_EQ(v[0].kind, Kind::kNull);
  EXPECT_EQ(v[8].kind, Kind::kNull);
  for (int i = 1; i < 8; ++i) EXPECT_EQ(v[i].i, i);
  // Next execution: new_params_bound 0, same types.
  std::string again = "\x00\x00\x00"s;
  for (int i = 0; i < 9; ++i) again += std::string(1, static_cast<char>(10 + i)) + "\x00\x00\x00"s;
  ASSERT_TRUE(DecodeStmtParams(again, 9, {}, &types, &v).ok());
  for (int i = 0; i < 9; ++i) EXPECT_EQ(v[i].i, 10 + i);
  // Without types ever sent: 1210.
  std::vector<ParamType> none;
  Status st = DecodeStmtParams(again, 9, {}, &none, &v);
  EXPECT_EQ(st.mysql_errno(), 1210);
  EXPECT_EQ(st.message(), "Incorrect arguments to mysqld_stmt_execute");
}

TEST(StmtTest, FloatingPointDecimalAndStrings) {
  float f = 1.5f;
  double d = -2.25;
  uint32_t fb;
  uint64_t db;
  std::memcpy(&fb, &f, 4);
  std::memcpy(&db, &d, 8);
  std::string block = "\x00\x01\x04\x00\x05\x00\xf6\x00\xfc\x00\xfe\x00"s;
  block.append(reinterpret_cast<const char*>(&fb), 4);
  block.append(reinterpret_cast<const char*>(&db), 8);
  block += "\x06-12.50" "\x03" "b\x00z" "\x00"s;
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  ASSERT_TRUE(DecodeStmtParams(block, 5, {}, &types, &v).ok());
  EXPECT_EQ(v[0].kind, Kind::kDouble);
  EXPECT_EQ(v[0].d, 1.5);
  EXPECT_EQ(v[1].d, -2.25);
  EXPECT_EQ(v[2].kind, Kind::kDecimal);
  EXPECT_EQ(v[2].text, "-12.50");
  EXPECT_EQ(v[3].kind, Kind::kBlob);
  EXPECT_EQ(v[3].text, "b\x00z"s);
  EXPECT_EQ(v[4].kind, Kind::kString);
  EXPECT_EQ(v[4].text, "");
}

TEST(StmtTest, Temporals) {
  const std::string block =
      "\x00\x01"
      "\x0a\x00" "\x0c\x00" "\x07\x00" "\x0b\x00" "\x0b\x00" "\x0c\x00"
      "\x04\xda\x07\x0a\x11"                                  // DATE 2010-10-17
      "\x0b\xda\x07\x0a\x11\x13\x1b\x1e\x01\x00\x00\x00"      // DATETIME .000001
      "\x00"                                                  // TIMESTAMP zero
      "\x0c\x01\x78\x00\x00\x00\x13\x1b\x1e\x01\x00\x00\x00"  // TIME -2899:27:30.000001
      "\x00"                                                  // TIME 0
      "\x04\xda\x07\x0a\x11"s;                                // DATETIME, date only
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  ASSERT_TRUE(DecodeStmtParams(block, 6, {}, &types, &v).ok());
  EXPECT_EQ(v[0].kind, Kind::kDate);
  EXPECT_EQ(v[0].text, "2010-10-17");
  EXPECT_EQ(v[1].kind, Kind::kDatetime);
  EXPECT_EQ(v[1].text, "2010-10-17 19:27:30.000001");
  EXPECT_EQ(v[2].text, "0000-00-00 00:00:00");
  EXPECT_EQ(v[3].kind, Kind::kTime);
  EXPECT_EQ(v[3].text, "-2899:27:30.000001");
  EXPECT_EQ(v[4].text, "00:00:00");
  EXPECT_EQ(v[5].text, "2010-10-17 00:00:00");
}

TEST(StmtTest, TemporalLengthsAreReadAsMysqldReadsThem) {
  // DATETIME of 5 bytes: the date only; TIME with 1234567 us: carried.
  const std::string block =
      "\x00\x01" "\x0c\x00" "\x0b\x00"
      "\x05\xda\x07\x0a\x11\x13"
      "\x0c\x00\x00\x00\x00\x00\x00\x00\x3b\x87\xd6\x12\x00"s;
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  ASSERT_TRUE(DecodeStmtParams(block, 2, {}, &types, &v).ok());
  EXPECT_EQ(v[0].text, "2010-10-17 00:00:00");
  EXPECT_EQ(v[1].text, "00:01:00.234567");
}

TEST(StmtTest, LongDataParametersHaveNoValueInTheBlock) {
  const std::string block = "\x00\x01\xfc\x00\x03\x00" "\x05\x00\x00\x00"s;
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  ASSERT_TRUE(DecodeStmtParams(block, 2, {true, false}, &types, &v).ok());
  EXPECT_EQ(v[0].kind, Kind::kLongData);
  EXPECT_EQ(v[1].i, 5);
}

TEST(StmtTest, TruncatedOrUnknownIs1210) {
  std::vector<ParamType> types;
  std::vector<ParamValue> v;
  for (const std::string& block : {""s, "\x00"s, "\x00\x01\x03"s, "\x00\x01\x03\x00\x01\x00"s,
                                   "\x00\x01\x0f\x00\x05" "ab"s, "\x00\x01\x63\x00\x00"s,
                                   "\x00\x01\x0c\x00\x05\x00\x00"s}) {
    types.clear();
    EXPECT_EQ(DecodeStmtParams(block, 1, {}, &types, &v).mysql_errno(), 1210) << block.size();
  }
  // No parameters: the block is ignored.
  EXPECT_TRUE(DecodeStmtParams("garbage", 0, {}, &types, &v).ok());
}

TEST(StmtTest, EncodeRoundTrips) {
  std::vector<ParamType> types = {{MYSQL_TYPE_LONGLONG, false}, {MYSQL_TYPE_LONG, true},
                                  {MYSQL_TYPE_DOUBLE, false},   {MYSQL_TYPE_VAR_STRING, false},
                                  {MYSQL_TYPE_DATETIME, false}, {MYSQL_TYPE_TIME, false},
                                  {MYSQL_TYPE_DATE, false},     {MYSQL_TYPE_NULL, false},
                                  {MYSQL_TYPE_VAR_STRING, false}};
  std::vector<ParamValue> in(9);
  in[0].kind = Kind::kInt;
  in[0].i = -42;
  in[1].kind = Kind::kUInt;
  in[1].u = 4000000000u;
  in[2].kind = Kind::kDouble;
  in[2].d = 0.1;
  in[3].kind = Kind::kString;
  in[3].text = "héllo";
  in[4].kind = Kind::kDatetime;
  in[4].text = "2024-02-29 23:59:58.123456";
  in[5].kind = Kind::kTime;
  in[5].text = "-30:00:01";
  in[6].kind = Kind::kDate;
  in[6].text = "1999-12-31";
  in[7].kind = Kind::kNull;
  in[8].kind = Kind::kNull;
  std::string block = EncodeStmtParams(types, in);
  std::vector<ParamType> got_types;
  std::vector<ParamValue> out;
  ASSERT_TRUE(DecodeStmtParams(block, 9, {}, &got_types, &out).ok());
  EXPECT_EQ(got_types, types);
  EXPECT_EQ(out[0].i, -42);
  EXPECT_EQ(out[1].u, 4000000000u);
  EXPECT_EQ(out[2].d, 0.1);
  EXPECT_EQ(out[3].text, "héllo");
  EXPECT_EQ(out[4].text, "2024-02-29 23:59:58.123456");
  EXPECT_EQ(out[5].text, "-30:00:01");
  EXPECT_EQ(out[6].text, "1999-12-31");
  EXPECT_EQ(out[7].kind, Kind::kNull);
  EXPECT_EQ(out[8].kind, Kind::kNull);
}

TEST(StmtTest, LongDataAndFetchHeaders) {
  StmtLongData ld;
  const std::string body = "\x02\x00\x00\x00\x01\x00" "abc"s;  // ld.data points into it
  ASSERT_TRUE(ParseStmtLongData(body, &ld));
  EXPECT_EQ(ld.statement_id, 2u);
  EXPECT_EQ(ld.param_id, 1u);
  EXPECT_EQ(ld.data, "abc");
  EXPECT_FALSE(ParseStmtLongData("\x02\x00\x00\x00\x01"s, &ld));
  StmtFetch f;
  ASSERT_TRUE(ParseStmtFetch("\x03\x00\x00\x00\x0a\x00\x00\x00"s, &f));
  EXPECT_EQ(f.statement_id, 3u);
  EXPECT_EQ(f.num_rows, 10u);
  EXPECT_FALSE(ParseStmtFetch("\x03\x00\x00\x00"s, &f));
}

}  // namespace
}  // namespace sluice::protocol
