#include "protocol/response.h"

#include <gtest/gtest.h>

#include <string>

#include "base/mysql_error.h"
#include "protocol/wire.h"

namespace sluice::protocol {
namespace {

using std::string_literals::operator""s;

TEST(ResponseTest, OkWithProtocol41HasStatusAndWarningsAndNoEmptyInfo) {
  OkPacket ok;
  ok.affected_rows = 3;
  ok.last_insert_id = 300;  // lenenc 0xFC 2C 01
  ok.status_flags = SERVER_STATUS_AUTOCOMMIT;
  ok.warnings = 1;
  EXPECT_EQ(EncodeOk(ok, CLIENT_PROTOCOL_41), "\x00\x03\xFC\x2C\x01\x02\x00\x01\x00"s);
}

TEST(ResponseTest, OkInfoIsLenencWhenPresent) {
  OkPacket ok;
  ok.info = "Rows matched: 1";
  EXPECT_EQ(EncodeOk(ok, CLIENT_PROTOCOL_41),
            "\x00\x00\x00\x00\x00\x00\x00\x0F"
            "Rows matched: 1"s);
}

TEST(ResponseTest, OkWithoutProtocol41) {
  OkPacket ok;
  ok.status_flags = SERVER_STATUS_AUTOCOMMIT;
  ok.warnings = 9;
  EXPECT_EQ(EncodeOk(ok, CLIENT_TRANSACTIONS), "\x00\x00\x00\x02\x00"s);
  EXPECT_EQ(EncodeOk(ok, 0), "\x00\x00\x00"s);
}

TEST(ResponseTest, OkAsTerminatorHasEofHeaderAndIsRecognisedAsEof) {
  OkPacket ok;
  ok.status_flags = SERVER_STATUS_AUTOCOMMIT;
  const std::string p = EncodeOk(ok, CLIENT_PROTOCOL_41, /*eof_header=*/true);
  EXPECT_EQ(p, "\xFE\x00\x00\x02\x00\x00\x00"s);
  EXPECT_TRUE(IsEofPacket(p));
}

TEST(ResponseTest, ErrHasSqlstateUnderProtocol41) {
  EXPECT_EQ(EncodeErr(1045, "28000", "Access denied"),
            "\xFF\x15\x04#28000Access denied"s);
  EXPECT_EQ(EncodeErr(1040, "08004", "Too many connections", /*protocol41=*/false),
            "\xFF\x10\x04Too many connections"s);
}

TEST(ResponseTest, ErrFromStatusUsesItsErrnoStateAndMessage) {
  const Status s = MakeError(er::kBadDb, "nope");
  EXPECT_EQ(EncodeErr(s), "\xFF\x19\x04#42000Unknown database 'nope'"s);
}

TEST(ResponseTest, EofLayoutAndDetection) {
  const std::string eof = EncodeEof(2, SERVER_MORE_RESULTS_EXISTS);
  EXPECT_EQ(eof, "\xFE\x02\x00\x08\x00"s);
  EXPECT_TRUE(IsEofPacket(eof));
  EXPECT_FALSE(IsEofPacket(""));
  EXPECT_FALSE(IsEofPacket("\x00\x00\x00"s));
  // A row whose first value is >= 16 MiB starts with 0xFE but is long.
  EXPECT_FALSE(IsEofPacket("\xFE\x00\x00\x00\x01\x00\x00\x00\x00"s));
}

TEST(ResponseTest, ColumnDefinitionLayout) {
  ColumnDefinition c;
  c.name = "Value";
  c.org_name = "Value";
  c.collation = 255;
  c.length = 4096;
  c.type = MYSQL_TYPE_VAR_STRING;
  c.flags = NOT_NULL_FLAG;
  c.decimals = 0x1F;
  EXPECT_EQ(EncodeColumnDefinition(c),
            "\x03" "def" "\x00" "\x00" "\x00" "\x05" "Value" "\x05" "Value"
            "\x0C" "\xFF\x00" "\x00\x10\x00\x00" "\xFD" "\x01\x00" "\x1F" "\x00\x00"s);
}

TEST(ResponseTest, TextRowEncodesNullAsFB) {
  EXPECT_EQ(EncodeTextRow({std::string("a"), std::nullopt, std::string("")}),
            "\x01" "a" "\xFB" "\x00"s);
}

std::vector<ColumnDefinition> TwoColumns() {
  ColumnDefinition a;
  a.name = "Variable_name";
  ColumnDefinition b;
  b.name = "Value";
  return {a, b};
}

TEST(ResponseTest, TextResultSetWithEofPackets) {
  const auto packets = EncodeTextResultSet(
      TwoColumns(), {{std::string("binlog_checksum"), std::string("CRC32")}}, CLIENT_PROTOCOL_41,
      SERVER_STATUS_AUTOCOMMIT, 0);
  ASSERT_EQ(packets.size(), 6u);  // count, 2 defs, EOF, row, EOF
  EXPECT_EQ(packets[0], "\x02");
  EXPECT_EQ(packets[1], EncodeColumnDefinition(TwoColumns()[0]));
  EXPECT_EQ(packets[3], "\xFE\x00\x00\x02\x00"s);
  EXPECT_EQ(packets[4], "\x0F" "binlog_checksum" "\x05" "CRC32"s);
  EXPECT_EQ(packets[5], "\xFE\x00\x00\x02\x00"s);
}

TEST(ResponseTest, TextResultSetUnderDeprecateEofEndsWithOkFE) {
  const auto packets =
      EncodeTextResultSet(TwoColumns(), {{std::string("a"), std::nullopt}, {std::nullopt, std::nullopt}},
                          CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, SERVER_STATUS_AUTOCOMMIT, 1);
  ASSERT_EQ(packets.size(), 6u);  // count, 2 defs, 2 rows, OK(0xFE)
  EXPECT_EQ(packets[3], "\x01" "a" "\xFB"s);
  EXPECT_EQ(packets[4], "\xFB\xFB"s);
  EXPECT_EQ(packets[5], "\xFE\x00\x00\x02\x00\x01\x00"s);
  EXPECT_TRUE(IsEofPacket(packets[5]));
  for (size_t i = 1; i < 5; ++i) EXPECT_FALSE(IsEofPacket(packets[i])) << i;
}

TEST(ResponseTest, EmptyTextResultSet) {
  const auto packets = EncodeTextResultSet(TwoColumns(), {}, CLIENT_PROTOCOL_41, 0, 0);
  ASSERT_EQ(packets.size(), 5u);  // count, 2 defs, EOF, EOF
  EXPECT_TRUE(IsEofPacket(packets[3]));
  EXPECT_TRUE(IsEofPacket(packets[4]));
}

// ---------------------------------------------------------------- prepared

TEST(ResponseTest, StmtPrepareOkWithParamsAndColumns) {
  ColumnDefinition col;
  col.name = "c";
  const auto packets = EncodeStmtPrepareOk(7, 2, {col}, CLIENT_PROTOCOL_41, SERVER_STATUS_AUTOCOMMIT, 0);
  ASSERT_EQ(packets.size(), 6u);  // OK, 2 params, EOF, 1 column, EOF
  EXPECT_EQ(packets[0], "\x00\x07\x00\x00\x00\x01\x00\x02\x00\x00\x00\x00"s);
  // mysqld's parameter definition (docs example of COM_STMT_PREPARE_OK).
  EXPECT_EQ(packets[1],
            "\x03" "def" "\x00\x00\x00\x01?\x00" "\x0c" "\x3f\x00" "\x00\x00\x00\x00" "\xfd" "\x80\x00" "\x00"
            "\x00\x00"s);
  EXPECT_EQ(packets[2], packets[1]);
  EXPECT_EQ(packets[3], "\xFE\x00\x00\x02\x00"s);
  EXPECT_EQ(packets[4], EncodeColumnDefinition(col));
  EXPECT_EQ(packets[5], "\xFE\x00\x00\x02\x00"s);
}

TEST(ResponseTest, StmtPrepareOkUnderDeprecateEofHasNoEofs) {
  ColumnDefinition col;
  auto packets = EncodeStmtPrepareOk(1, 1, {col, col}, CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, 0, 3);
  ASSERT_EQ(packets.size(), 4u);  // OK, 1 param, 2 columns
  EXPECT_EQ(packets[0], "\x00\x01\x00\x00\x00\x02\x00\x01\x00\x00\x03\x00"s);
  // No parameters and no columns: the OK alone, EOFs or not.
  packets = EncodeStmtPrepareOk(0x01020304, 0, {}, CLIENT_PROTOCOL_41, 0, 0);
  ASSERT_EQ(packets.size(), 1u);
  EXPECT_EQ(packets[0], "\x00\x04\x03\x02\x01\x00\x00\x00\x00\x00\x00\x00"s);
}

std::string Bin(ColumnType type, std::string_view text, uint16_t flags = 0) {
  std::string out;
  EXPECT_TRUE(AppendBinaryValue(type, flags, text, &out)) << text;
  return out;
}

bool Fits(ColumnType type, std::string_view text, uint16_t flags = 0) {
  std::string out = "x";
  bool ok = AppendBinaryValue(type, flags, text, &out);
  if (!ok) {
    EXPECT_EQ(out, "x");  // untouched on failure
  }
  return ok;
}

TEST(ResponseTest, BinaryIntegers) {
  EXPECT_EQ(Bin(MYSQL_TYPE_LONGLONG, "1"), "\x01\x00\x00\x00\x00\x00\x00\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_LONGLONG, "-2"), "\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_LONGLONG, "18446744073709551615", UNSIGNED_FLAG), "\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_LONG, "1"), "\x01\x00\x00\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_INT24, "-1"), "\xFF\xFF\xFF\xFF"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_SHORT, "1"), "\x01\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_YEAR, "2024"), "\xE8\x07"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TINY, "1"), "\x01"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TINY, "-128"), "\x80"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TINY, "255", UNSIGNED_FLAG), "\xFF"s);
  EXPECT_FALSE(Fits(MYSQL_TYPE_TINY, "128"));
  EXPECT_FALSE(Fits(MYSQL_TYPE_TINY, "-1", UNSIGNED_FLAG));
  EXPECT_FALSE(Fits(MYSQL_TYPE_LONGLONG, "18446744073709551615"));  // signed column
  EXPECT_FALSE(Fits(MYSQL_TYPE_LONGLONG, "abc"));
  EXPECT_FALSE(Fits(MYSQL_TYPE_LONGLONG, "1.5"));
  EXPECT_FALSE(Fits(MYSQL_TYPE_LONGLONG, ""));
}

TEST(ResponseTest, BinaryFloatingPoint) {
  // Docs examples: DOUBLE 35 and FLOAT 35.
  EXPECT_EQ(Bin(MYSQL_TYPE_DOUBLE, "35"), "\x00\x00\x00\x00\x00\x80\x41\x40"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_FLOAT, "35"), "\x00\x00\x0c\x42"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_DOUBLE, "-1.5e20").size(), 8u);
  EXPECT_FALSE(Fits(MYSQL_TYPE_DOUBLE, "x1"));
}

TEST(ResponseTest, BinaryTemporals) {
  // Docs examples of DATETIME and TIME in the binary protocol.
  EXPECT_EQ(Bin(MYSQL_TYPE_DATETIME, "2010-10-17 19:27:30.000001"),
            "\x0b\xda\x07\x0a\x11\x13\x1b\x1e\x01\x00\x00\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_DATETIME, "2010-10-17 19:27:30"), "\x07\xda\x07\x0a\x11\x13\x1b\x1e"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TIMESTAMP, "2010-10-17 00:00:00"), "\x04\xda\x07\x0a\x11"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_DATE, "2010-10-17"), "\x04\xda\x07\x0a\x11"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_DATE, "0000-00-00"), "\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_DATETIME, "0000-00-00 00:00:00"), "\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_DATETIME, "2024-01-02 03:04:05.5"),
            "\x0b\xe8\x07\x01\x02\x03\x04\x05\x20\xa1\x07\x00"s);  // 500000 us
  EXPECT_EQ(Bin(MYSQL_TYPE_TIME, "-2899:27:30.000001"), "\x0c\x01\x78\x00\x00\x00\x13\x1b\x1e\x01\x00\x00\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TIME, "-2899:27:30"), "\x08\x01\x78\x00\x00\x00\x13\x1b\x1e"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TIME, "12:00:01"), "\x08\x00\x00\x00\x00\x00\x0c\x00\x01"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_TIME, "00:00:00"), "\x00"s);
  EXPECT_FALSE(Fits(MYSQL_TYPE_DATE, "2024-13-01"));
  EXPECT_FALSE(Fits(MYSQL_TYPE_DATETIME, "2024-01-01T00:00:00"));
  EXPECT_FALSE(Fits(MYSQL_TYPE_TIME, "12:61:00"));
  EXPECT_FALSE(Fits(MYSQL_TYPE_DATE, "hello"));
}

TEST(ResponseTest, BinaryStringsAreLenenc) {
  EXPECT_EQ(Bin(MYSQL_TYPE_VAR_STRING, "foobar"), "\x06" "foobar"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_NEWDECIMAL, "-12.50"), "\x06-12.50"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_BLOB, ""), "\x00"s);
  EXPECT_EQ(Bin(MYSQL_TYPE_STRING, std::string(300, 'a')), "\xFC\x2C\x01"s + std::string(300, 'a'));
}

ColumnDefinition Col(ColumnType type, uint16_t flags = 0) {
  ColumnDefinition c;
  c.type = type;
  c.flags = flags;
  return c;
}

TEST(ResponseTest, BinaryRowHeaderAndNullBitmapWithOffsetTwo) {
  // Docs example: one VAR_STRING column holding "foobar".
  EXPECT_EQ(EncodeBinaryRow({Col(MYSQL_TYPE_VAR_STRING)}, {std::string("foobar")}), "\x00\x00\x06" "foobar"s);
  // Three columns, the third NULL: bit 2 + 2 = 4 of the first byte.
  EXPECT_EQ(EncodeBinaryRow({Col(MYSQL_TYPE_LONG), Col(MYSQL_TYPE_TINY), Col(MYSQL_TYPE_VAR_STRING)},
                            {std::string("1"), std::string("2"), std::nullopt}),
            "\x00\x10\x01\x00\x00\x00\x02"s);
  // Seven columns need two bitmap bytes ((7 + 9) / 8); the 7th is bit 0 of byte 2.
  std::vector<ColumnDefinition> seven(7, Col(MYSQL_TYPE_TINY));
  std::vector<std::optional<std::string>> row(7, std::string("0"));
  row[0] = std::nullopt;
  row[6] = std::nullopt;
  EXPECT_EQ(EncodeBinaryRow(seven, row), "\x00\x04\x01\x00\x00\x00\x00\x00"s);
}

TEST(ResponseTest, BinaryResultSetFramingMatchesTextResultSet) {
  std::vector<ColumnDefinition> cols = {Col(MYSQL_TYPE_LONGLONG), Col(MYSQL_TYPE_VAR_STRING)};
  std::vector<std::vector<std::optional<std::string>>> rows = {{std::string("5"), std::string("x")},
                                                               {std::nullopt, std::nullopt}};
  auto packets = EncodeBinaryResultSet(cols, rows, CLIENT_PROTOCOL_41, SERVER_STATUS_AUTOCOMMIT, 0);
  ASSERT_EQ(packets.size(), 7u);  // count, 2 defs, EOF, 2 rows, EOF
  EXPECT_EQ(packets[0], "\x02"s);
  EXPECT_EQ(packets[1], EncodeColumnDefinition(cols[0]));
  EXPECT_EQ(packets[3], "\xFE\x00\x00\x02\x00"s);
  EXPECT_EQ(packets[4], "\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00\x01x"s);
  EXPECT_EQ(packets[5], "\x00\x0C"s);
  EXPECT_EQ(packets[6], "\xFE\x00\x00\x02\x00"s);
  packets = EncodeBinaryResultSet(cols, rows, CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF, SERVER_STATUS_AUTOCOMMIT, 1);
  ASSERT_EQ(packets.size(), 6u);  // count, 2 defs, 2 rows, OK(0xFE)
  EXPECT_EQ(packets[5], "\xFE\x00\x00\x02\x00\x01\x00"s);
}

// A session keeps one Payloads for every reply: each reply must read back
// alone after clear(), whatever the one before it held.
TEST(ResponseTest, PayloadsKeepEachPacketAndAreReusedAcrossReplies) {
  Payloads p;
  EXPECT_TRUE(p.empty());
  p.push_back("abc");
  p.push_back("");  // an empty payload is a packet too
  WireWriter(p.Open()).Int1(7).LenencString("xy");
  p.Close();
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0], "abc");
  EXPECT_EQ(p[1], "");
  EXPECT_EQ(p[2], "\x07\x02xy"s);
  EXPECT_EQ(p.total_bytes(), 7u);
  std::vector<std::vector<std::optional<std::string>>> rows = {{std::string("1")}, {std::nullopt}};
  TextRows text_rows;
  for (const auto& row : rows) text_rows.push_back(row);
  const std::vector<ColumnDefinition> cols = {Col(MYSQL_TYPE_LONGLONG)};
  for (uint32_t caps : {uint32_t{CLIENT_PROTOCOL_41}, uint32_t{CLIENT_PROTOCOL_41 | CLIENT_DEPRECATE_EOF}}) {
    p.clear();
    EXPECT_TRUE(p.empty());
    AppendTextResultSet(cols, text_rows, caps, 0, 0, &p);
    EXPECT_EQ(p.ToVector(), EncodeTextResultSet(cols, rows, caps, 0, 0));
    p.clear();
    AppendBinaryResultSet(cols, text_rows, caps, 0, 0, &p);
    EXPECT_EQ(p.ToVector(), EncodeBinaryResultSet(cols, rows, caps, 0, 0));
  }
  // A reply bigger than a session keeps: cleared, its buffer is let go.
  p.clear();
  p.push_back(std::string(kKeptScratchBytes + 1, 'z'));
  p.clear();
  EXPECT_TRUE(p.empty());
  p.push_back("after");
  EXPECT_EQ(p.ToVector(), std::vector<std::string>{"after"});
}

// Rows kept in their text-protocol form: what a producer writes in place
// reads back cell for cell (NULL, empty, a cell past 250 bytes with a
// three-byte length), and is byte for byte the row EncodeTextRow makes.
TEST(ResponseTest, TextRowsKeepEachRowAsItsTextPayload) {
  const std::string big(300, 'b');
  TextRows rows;
  EXPECT_TRUE(rows.empty());
  TextRows::RowWriter w = rows.Open();
  w.Cell("abc");
  w.Null();
  w.Cell("");
  w.Cell(std::string_view(big));
  rows.Close();
  rows.push_back({std::string("x"), std::nullopt});
  rows.Open();  // a row of no cells
  rows.Close();
  ASSERT_EQ(rows.size(), 3u);
  const Cells first = {std::string("abc"), std::nullopt, std::string(""), big};
  EXPECT_EQ(rows[0], first);
  EXPECT_EQ(rows.payload(0), EncodeTextRow(first));
  EXPECT_EQ(rows[1], (Cells{std::string("x"), std::nullopt}));
  EXPECT_EQ(rows[2], Cells{});
  std::vector<Cells> iterated;
  for (const Cells& row : rows) iterated.push_back(row);
  EXPECT_EQ(iterated, (std::vector<Cells>{first, {std::string("x"), std::nullopt}, {}}));

  TextRows copy;
  copy.AppendEncoded(rows.payload(1));
  EXPECT_EQ(copy[0], rows[1]);
  rows.KeepIf([](const Cells& row) { return !row.empty() && row[0] != std::string("abc"); });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0], copy[0]);
  rows.clear();
  EXPECT_TRUE(rows.empty());

  // A payload that is not a row's cells is refused, not read past its end.
  int cells = 0;
  EXPECT_FALSE(ForEachTextCell("\x05" "ab"s, [&](std::optional<std::string_view>) { ++cells; }));  // 5 bytes said, 2 there
  EXPECT_FALSE(ForEachTextCell("\x01x\xFC\x01"s, [&](std::optional<std::string_view>) { ++cells; }));
  EXPECT_EQ(cells, 1);
}

TEST(ResponseTest, BinaryResultSetRetypesAColumnWhoseValuesDoNotFit) {
  // A computed column typed LONGLONG from its first row, later holding text.
  ColumnDefinition c = Col(MYSQL_TYPE_LONGLONG, BINARY_FLAG | NUM_FLAG);
  c.collation = kCollationBinary;
  auto packets = EncodeBinaryResultSet({c}, {{std::string("1")}, {std::string("abc")}}, CLIENT_PROTOCOL_41, 0, 0);
  ASSERT_EQ(packets.size(), 6u);
  ColumnDefinition expected = c;
  expected.type = MYSQL_TYPE_VAR_STRING;
  expected.collation = kCollationUtf8mb4_0900_ai_ci;
  expected.flags = 0;
  expected.decimals = 0x1f;
  expected.length = 255;
  EXPECT_EQ(packets[1], EncodeColumnDefinition(expected));
  EXPECT_EQ(packets[3], "\x00\x00\x01" "1"s);
  EXPECT_EQ(packets[4], "\x00\x00\x03" "abc"s);
}

}  // namespace
}  // namespace sluice::protocol
