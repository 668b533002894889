#include "server/rpl/mariadb_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "binlog/event.h"
#include "binlog/row_event.h"

namespace sluice::server::rpl {
namespace {

using binlog::Checksum;
using storage::ColumnDef;
using storage::ColumnType;
using storage::Row;
using storage::RowValue;

constexpr Checksum kCs = Checksum::kCrc32;

storage::TableDef JsonTable() {
  storage::TableDef t;
  t.schema = "d";
  t.name = "j";
  ColumnDef id;
  id.name = "id";
  id.type = ColumnType::kInt;
  ColumnDef doc;
  doc.name = "doc";
  doc.type = ColumnType::kJson;
  doc.nullable = true;
  t.columns = {id, doc};
  storage::IndexDef pk;
  pk.name = "PRIMARY";
  pk.kind = storage::IndexKind::kClustered;
  storage::KeyPart part;
  part.column_name = "id";
  pk.parts.push_back(part);
  t.indexes.push_back(pk);
  Status st = storage::NormalizeTableDef(&t);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return t;
}

binlog::EventHeader At(uint32_t log_pos) {
  binlog::EventHeader h;
  h.timestamp = 1700000000;
  h.server_id = 1;
  h.log_pos = log_pos;
  return h;
}

// One rows event of `rows` documents, each `doc`; STMT_END_F when stmt_end.
std::string Rows(const std::vector<std::string>& docs, bool stmt_end = true, uint32_t log_pos = 1000) {
  const storage::TableDef table = JsonTable();  // the builder keeps a pointer to it
  binlog::RowsEventBuilder b(At(0), binlog::kWriteRowsEvent, 7, table, binlog::RowImage::kFull, kCs, 1 << 20);
  int64_t id = 0;
  for (const std::string& d : docs) {
    Row r{RowValue(++id), RowValue(d)};
    Status st = b.AddRow(nullptr, &r);
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  std::vector<std::string> ev = b.Finish(stmt_end);
  EXPECT_EQ(ev.size(), 1u);
  binlog::PatchLogPos(ev[0].data(), log_pos, kCs);
  return ev[0];
}

struct Fixture {
  // The test's stand-in for sql::json::BinaryToText: `text` per document.
  std::string text;
  MariadbJsonRewriter rw{[this](std::string_view) -> Result<std::string> { return text; }};

  std::string Send(std::string_view event) {
    Result<std::optional<std::string>> r = rw.Rewrite(event, kCs);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return "";
    return r->has_value() ? **r : std::string(event);
  }
  void MapTable() {
    const std::string map = binlog::EncodeTableMap(At(500), 7, JsonTable(), binlog::RowMetadata::kMinimal, kCs);
    const std::string sent = Send(map);
    EXPECT_LT(sent.size(), map.size() + 1);
    Result<binlog::TableMapInfo> info = binlog::DecodeTableMap(sent, kCs);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->column_types[1], 0xFC);  // LONGBLOB
  }
};

std::string Gtid(uint32_t log_pos) {
  binlog::GtidInfo g;
  g.gno = 5;
  g.sid.bytes[0] = 1;
  g.last_committed = 1;
  g.sequence_number = 2;
  return binlog::EncodeGtid(At(log_pos), g, kCs);
}

TEST(MariadbJsonRewriterTest, PositionsStayInsideTheNextEvent) {
  Fixture f;
  // The Format_description reaches MariaDB's compressed types, log_pos 0.
  const std::string fde = binlog::EncodeFormatDescription(At(126), "8.0.36-sluice", 0, kCs);
  const std::string sent_fde = f.Send(fde);
  EXPECT_GT(sent_fde.size(), fde.size());
  EXPECT_EQ(binlog::ParseHeader(sent_fde)->log_pos, 0u);
  EXPECT_EQ(f.rw.overshoot(), 0u);
  // No overshoot: the Gtid event goes as it is.
  const std::string gtid = Gtid(300);
  EXPECT_EQ(f.Send(gtid), gtid);
  f.MapTable();
  // Text 5 bytes longer than the binary value: the replica runs 5 ahead.
  const std::string binary = "0123456789";
  f.text = binary + "abcde";
  const std::string rows = Rows({binary});
  const std::string sent = f.Send(rows);
  EXPECT_EQ(sent.size(), rows.size() + 5);
  EXPECT_EQ(f.rw.overshoot(), 5u);
  EXPECT_EQ(binlog::ParseHeader(sent)->log_pos, 1000u);  // the primary's
  const std::string xid = binlog::EncodeXid(At(1100), 9, kCs);
  EXPECT_EQ(f.Send(xid), xid);
  EXPECT_EQ(f.rw.overshoot(), 5u);
  // The next transaction's Gtid event goes as an empty Ignorable one: back to 0.
  const std::string ignorable = f.Send(Gtid(1200));
  Result<binlog::EventHeader> ih = binlog::ParseHeader(ignorable);
  ASSERT_TRUE(ih.ok());
  EXPECT_EQ(ih->type, binlog::kIgnorableEvent);
  EXPECT_NE(ih->flags & binlog::kLogEventIgnorable, 0);
  EXPECT_EQ(ih->log_pos, 1200u);
  EXPECT_EQ(ignorable.size(), binlog::kHeaderLen + 4u);
  EXPECT_TRUE(binlog::VerifyChecksum(ignorable));
  EXPECT_EQ(f.rw.overshoot(), 0u);
  // A Rotate also resets it.
  f.Send(rows);
  EXPECT_EQ(f.rw.overshoot(), 5u);
  f.Send(binlog::EncodeRotate(At(2000), 4, "binlog.000002", kCs));
  EXPECT_EQ(f.rw.overshoot(), 0u);
  // So does the dump's own (artificial, log_pos 0) one at a file's start.
  f.Send(rows);
  binlog::EventHeader fake = At(0);
  fake.flags = binlog::kLogEventArtificial;
  f.Send(binlog::EncodeRotate(fake, 4, "binlog.000002", kCs));
  EXPECT_EQ(f.rw.overshoot(), 0u);
}

TEST(MariadbJsonRewriterTest, LongerTextGoesCompressedThenCompactThenIsRefused) {
  Fixture f;
  f.MapTable();
  // Many rows whose text is long but repetitive: compressed, under the original.
  f.text = std::string(400, 'x');
  const std::string big = Rows(std::vector<std::string>(20, std::string(100, 'b')));
  std::string sent = f.Send(big);
  EXPECT_EQ(binlog::ParseHeader(sent)->type, binlog::kMariadbWriteRowsCompressedEvent);
  EXPECT_LE(sent.size(), big.size());
  EXPECT_EQ(f.rw.compressed(), 1u);
  EXPECT_EQ(f.rw.overshoot(), 0u);
  // One small value whose text has spaces to spare: compact text.
  f.text = "[1,    2,    3,    4,    5,    6,    7,    8,    9]";
  const std::string small = Rows({"12345"});
  sent = f.Send(small);
  EXPECT_EQ(f.rw.compacted(), 1u);
  EXPECT_NE(sent.find("[1,2,3,4,5,6,7,8,9]"), std::string::npos);
  EXPECT_LE(f.rw.overshoot(), MariadbJsonRewriter::kMaxOvershoot);
  // Text far longer and incompressible: the dump must stop.
  f.text.clear();
  for (int i = 0; i < 60; ++i) f.text += std::to_string(i * 7919 % 1000003) + ",";
  Result<std::optional<std::string>> r = f.rw.Rewrite(small, kCs);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("`d`.`j`"), std::string::npos) << r.status().ToString();
}

TEST(MariadbJsonRewriterTest, NoCompressedEventAfterATrackedOneOfTheSameStatement) {
  Fixture f;
  f.MapTable();
  // The statement's first event goes plain without STMT_END_F (the replica
  // tracks it); its last cannot then go compressed.
  f.text = "0123456789ab";
  f.Send(Rows({"0123456789"}, /*stmt_end=*/false));
  f.text = std::string(400, 'x');
  Result<std::optional<std::string>> r = f.rw.Rewrite(Rows(std::vector<std::string>(20, "b")), kCs);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(f.rw.compressed(), 0u);
}

TEST(MariadbJsonRewriterTest, CompactTextKeepsStrings) {
  EXPECT_EQ(CompactJsonText(R"({"a b": [1, "x \" y", {"k": null}], "c\\": " "})"),
            R"({"a b":[1,"x \" y",{"k":null}],"c\\":" "})");
}

}  // namespace
}  // namespace sluice::server::rpl
