#include "protocol/command.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::protocol {
namespace {

using std::string_literals::operator""s;

TEST(CommandTest, ProcessKillNeedsFourBytes) {
  auto id = ParseProcessKill("\x2a\x00\x00\x00"s);
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id.value(), 42u);
  EXPECT_EQ(ParseProcessKill("\x2a\x00\x00"s).status().mysql_errno(), 1835);
  EXPECT_EQ(ParseProcessKill("").status().mysql_errno(), 1835);
}

TEST(CommandTest, SetOptionAcceptsOnlyZeroAndOne) {
  EXPECT_EQ(ParseSetOption("\x00\x00"s).value(), 0);
  EXPECT_EQ(ParseSetOption("\x01\x00"s).value(), 1);
  EXPECT_EQ(ParseSetOption("\x02\x00"s).status().mysql_errno(), 1047);
  EXPECT_EQ(ParseSetOption("\x01"s).status().mysql_errno(), 1047);
}

TEST(CommandTest, FieldListTableEndsAtNulOrTheEnd) {
  const std::string body = "t1\0a%"s;  // FieldList views into it
  FieldList f = ParseFieldList(body);
  EXPECT_EQ(f.table, "t1");
  EXPECT_EQ(f.wildcard, "a%");
  f = ParseFieldList("t2");
  EXPECT_EQ(f.table, "t2");
  EXPECT_EQ(f.wildcard, "");
  f = ParseFieldList("");
  EXPECT_EQ(f.table, "");
}

TEST(CommandTest, StatementIdNeedsFourBytes) {
  EXPECT_EQ(ParseStatementId("\x07\x00\x00\x00"s).value(), 7u);
  EXPECT_EQ(ParseStatementId("\x07"s).status().mysql_errno(), 1835);
}

TEST(CommandTest, RegisterReplicaWithAndWithoutRankAndSource) {
  const std::string base = "\x02\x00\x00\x00" "\x04" "host" "\x01" "u" "\x00" "\xea\x0c"s;
  auto r = ParseRegisterReplica(base);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->server_id, 2u);
  EXPECT_EQ(r->host, "host");
  EXPECT_EQ(r->user, "u");
  EXPECT_EQ(r->password, "");
  EXPECT_EQ(r->port, 3306);
  EXPECT_EQ(r->source_id, 0u);
  r = ParseRegisterReplica(base + "\x00\x00\x00\x00\x09\x00\x00\x00"s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->source_id, 9u);
  // A host length past the end, and a body cut before the port.
  EXPECT_EQ(ParseRegisterReplica("\x02\x00\x00\x00\xff" "ab"s).status().mysql_errno(), 1835);
  EXPECT_EQ(ParseRegisterReplica(base.substr(0, base.size() - 1)).status().mysql_errno(), 1835);
}

TEST(CommandTest, BinlogDumpDropsTrailingNuls) {
  // The result borrows the body.
  const std::string body = "\x04\x00\x00\x00" "\x01\x00" "\x05\x00\x00\x00" "binlog.000001\0"s;
  auto r = ParseBinlogDump(body);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->position, 4u);
  EXPECT_EQ(r->flags, 1);
  EXPECT_EQ(r->server_id, 5u);
  EXPECT_EQ(r->file, "binlog.000001");
  EXPECT_EQ(ParseBinlogDump("\x04\x00\x00\x00\x01\x00\x05\x00\x00"s).status().mysql_errno(), 1835);
}

TEST(CommandTest, BinlogDumpGtidLengthsMustFit) {
  const std::string head = "\x00\x00" "\x05\x00\x00\x00" "\x02\x00\x00\x00" "b1" "\x04\x00\x00\x00\x00\x00\x00\x00"s;
  auto r = ParseBinlogDumpGtid(head);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->file, "b1");
  EXPECT_EQ(r->position, 4u);
  EXPECT_FALSE(r->has_gtid_data);
  const std::string with_set = head + "\x03\x00\x00\x00" "abc"s;
  r = ParseBinlogDumpGtid(with_set);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->has_gtid_data);
  EXPECT_EQ(r->gtid_data, "abc");
  // The set's size and the file name's length past the end.
  EXPECT_EQ(ParseBinlogDumpGtid(head + "\xff\xff\xff\xff" "abc"s).status().mysql_errno(), 1835);
  EXPECT_EQ(ParseBinlogDumpGtid("\x00\x00\x05\x00\x00\x00\xff\xff\xff\xff" "b1"s).status().mysql_errno(), 1835);
}

}  // namespace
}  // namespace sluice::protocol
