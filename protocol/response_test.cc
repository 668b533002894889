#include "protocol/response.h"

#include <gtest/gtest.h>

#include <string>

#include "base/mysql_error.h"

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

}  // namespace
}  // namespace sluice::protocol
