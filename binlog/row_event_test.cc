#include "binlog/row_event.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <zlib.h>

#include "binlog/bytes_internal.h"
#include "binlog/event_internal.h"

namespace sluice::binlog {
namespace {

using storage::ColumnDef;
using storage::ColumnType;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

std::string Hex(std::string_view s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    std::snprintf(buf, sizeof(buf), "%s%02X", out.empty() ? "" : " ", c);
    out += buf;
  }
  return out;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

ColumnDef Col(std::string name, ColumnType type, bool nullable = true) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.nullable = nullable;
  return c;
}

TableDef MakeTable(std::string schema, std::string name, std::vector<ColumnDef> columns,
                   std::vector<std::string> pk = {}, std::vector<uint32_t> prefixes = {}) {
  TableDef t;
  t.schema = std::move(schema);
  t.name = std::move(name);
  t.columns = std::move(columns);
  if (!pk.empty()) {
    storage::IndexDef idx;
    idx.name = "PRIMARY";
    idx.kind = storage::IndexKind::kClustered;
    for (size_t i = 0; i < pk.size(); ++i) {
      storage::KeyPart part;
      part.column_name = pk[i];
      part.prefix_length = i < prefixes.size() ? prefixes[i] : 0;
      idx.parts.push_back(part);
    }
    t.indexes.push_back(idx);
  }
  Status st = storage::NormalizeTableDef(&t);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return t;
}

EventHeader Header() {
  EventHeader h;
  h.timestamp = 1704164645;
  h.server_id = 1;
  return h;
}

// The rows part of a one-row WRITE event with checksums off: after the
// post-header, column count, bitmap and NULL bitmap.
std::string WrittenValue(const TableDef& t, const Row& row) {
  RowsEventBuilder b(Header(), kWriteRowsEvent, 7, t, RowImage::kFull, Checksum::kOff);
  Status st = b.AddRow(nullptr, &row);
  EXPECT_TRUE(st.ok()) << st.ToString();
  std::vector<std::string> events = b.Finish(true);
  EXPECT_EQ(events.size(), 1u);
  if (events.empty()) return "";
  const size_t n = t.columns.size();
  const size_t skip = kHeaderLen + 10 + 1 + (n + 7) / 8 + (n + 7) / 8;
  return events[0].substr(skip);
}

// ---- every column type ----

TableDef AllTypesTable() {
  std::vector<ColumnDef> cols;
  cols.push_back(Col("id", ColumnType::kInt, false));
  cols.push_back(Col("ti", ColumnType::kTinyInt));
  cols.push_back(Col("tiu", ColumnType::kTinyInt));
  cols.back().is_unsigned = true;
  cols.push_back(Col("si", ColumnType::kSmallInt));
  cols.push_back(Col("mi", ColumnType::kMediumInt));
  cols.push_back(Col("bi", ColumnType::kBigInt));
  cols.push_back(Col("biu", ColumnType::kBigInt));
  cols.back().is_unsigned = true;
  cols.push_back(Col("dec", ColumnType::kDecimal));
  cols.back().precision = 10;
  cols.back().scale = 2;
  cols.push_back(Col("f", ColumnType::kFloat));
  cols.push_back(Col("d", ColumnType::kDouble));
  cols.push_back(Col("c", ColumnType::kChar));
  cols.back().length = 10;
  cols.push_back(Col("vc", ColumnType::kVarChar));
  cols.back().length = 20;
  cols.push_back(Col("b", ColumnType::kBinary));
  cols.back().length = 4;
  cols.push_back(Col("vb", ColumnType::kVarBinary));
  cols.back().length = 10;
  cols.push_back(Col("tt", ColumnType::kTinyText));
  cols.push_back(Col("t", ColumnType::kText));
  cols.push_back(Col("mt", ColumnType::kMediumText));
  cols.push_back(Col("lt", ColumnType::kLongText));
  cols.push_back(Col("tb", ColumnType::kTinyBlob));
  cols.push_back(Col("bl", ColumnType::kBlob));
  cols.push_back(Col("mb", ColumnType::kMediumBlob));
  cols.push_back(Col("lb", ColumnType::kLongBlob));
  cols.push_back(Col("dt", ColumnType::kDate));
  cols.push_back(Col("tm", ColumnType::kTime));
  cols.push_back(Col("tm3", ColumnType::kTime));
  cols.back().fsp = 3;
  cols.push_back(Col("dtm", ColumnType::kDateTime));
  cols.push_back(Col("dtm6", ColumnType::kDateTime));
  cols.back().fsp = 6;
  cols.push_back(Col("ts", ColumnType::kTimestamp));
  cols.push_back(Col("ts2", ColumnType::kTimestamp));
  cols.back().fsp = 2;
  cols.push_back(Col("y", ColumnType::kYear));
  cols.push_back(Col("e", ColumnType::kEnum));
  cols.back().enum_values = {"a", "b", "c"};
  cols.push_back(Col("lc", ColumnType::kVarChar));
  cols.back().length = 5;
  cols.back().charset = "latin1";
  cols.push_back(Col("iu", ColumnType::kInt));
  cols.back().is_unsigned = true;
  return MakeTable("db", "all_types", std::move(cols), {"id"});
}

constexpr int64_t kTs = 1704164645;  // 2024-01-02 03:04:05 UTC

Row AllTypesRow() {
  return Row{
      int64_t{1},
      int64_t{-5},
      uint64_t{200},
      int64_t{-300},
      int64_t{8388607},
      int64_t{-9000000000},
      uint64_t{18446744073709551615ULL},
      std::string("-1234.56"),
      1.5,
      0.1,
      std::string("abc"),
      std::string("it's\n"),
      std::string("\x01\x02\0\0", 4),
      std::string("xyz"),
      std::string("tiny"),
      std::string("text"),
      std::string("medium"),
      std::string("long"),
      std::string("tb"),
      std::string("blob"),
      std::string("mb"),
      std::string("lb"),
      storage::PackDate(2024, 1, 2),
      storage::PackTime(true, 838, 59, 59, 0),
      storage::PackTime(false, 12, 34, 56, 789000),
      storage::PackDateTime(2024, 1, 2, 3, 4, 5, 0),
      storage::PackDateTime(2024, 1, 2, 3, 4, 5, 123456),
      int64_t{kTs * 1000000},
      int64_t{kTs * 1000000 + 120000},
      uint64_t{2024},
      uint64_t{2},
      std::string("cafe"),
      uint64_t{4294967295ULL},
  };
}

Row NullRow(int64_t id, size_t n) {
  Row r(n);
  r[0] = id;
  return r;
}

// What MySQL 8.0's mysqlbinlog -v prints for AllTypesRow(), per column.
const std::vector<std::string>& AllTypesText() {
  static const std::vector<std::string> kText = {
      "1",
      "-5 (251)",
      "-56 (200)",
      "-300 (65236)",
      "8388607",
      "-9000000000 (18446744064709551616)",
      "-1 (18446744073709551615)",
      "-1234.56",
      "1.5                 ",
      "0.10000000000000000555",
      "'abc'",
      "'it\\'s\\n'",
      "'\\x01\\x02'",
      "'xyz'",
      "'tiny'",
      "'text'",
      "'medium'",
      "'long'",
      "'tb'",
      "'blob'",
      "'mb'",
      "'lb'",
      "'2024:01:02'",
      "'-838:59:59'",
      "'12:34:56.789'",
      "'2024-01-02 03:04:05'",
      "'2024-01-02 03:04:05.123456'",
      "1704164645",
      "1704164645.12",
      "2024",
      "2",
      "'cafe'",
      "-1 (4294967295)",
  };
  return kText;
}

const std::vector<std::string>& AllTypesComments() {
  static const std::vector<std::string> kTypes = {
      "INT meta=0 nullable=0",
      "TINYINT meta=0 nullable=1",
      "TINYINT meta=0 nullable=1",
      "SHORTINT meta=0 nullable=1",
      "MEDIUMINT meta=0 nullable=1",
      "LONGINT meta=0 nullable=1",
      "LONGINT meta=0 nullable=1",
      "DECIMAL(10,2) meta=2562 nullable=1",
      "FLOAT meta=4 nullable=1",
      "DOUBLE meta=8 nullable=1",
      "STRING(40) meta=65064 nullable=1",
      "VARSTRING(80) meta=80 nullable=1",
      "STRING(4) meta=65028 nullable=1",
      "VARSTRING(10) meta=10 nullable=1",
      "TINYBLOB/TINYTEXT meta=1 nullable=1",
      "BLOB/TEXT meta=2 nullable=1",
      "MEDIUMBLOB/MEDIUMTEXT meta=3 nullable=1",
      "LONGBLOB/LONGTEXT meta=4 nullable=1",
      "TINYBLOB/TINYTEXT meta=1 nullable=1",
      "BLOB/TEXT meta=2 nullable=1",
      "MEDIUMBLOB/MEDIUMTEXT meta=3 nullable=1",
      "LONGBLOB/LONGTEXT meta=4 nullable=1",
      "DATE meta=0 nullable=1",
      "TIME(0) meta=0 nullable=1",
      "TIME(3) meta=3 nullable=1",
      "DATETIME(0) meta=0 nullable=1",
      "DATETIME(6) meta=6 nullable=1",
      "TIMESTAMP(0) meta=0 nullable=1",
      "TIMESTAMP(2) meta=2 nullable=1",
      "YEAR meta=0 nullable=1",
      "ENUM(1 byte) meta=63233 nullable=1",
      "VARSTRING(5) meta=5 nullable=1",
      "INT meta=0 nullable=1",
  };
  return kTypes;
}

TEST(CollationIdTest, KnownNames) {
  EXPECT_EQ(CollationId("utf8mb4_0900_ai_ci"), 255);
  EXPECT_EQ(CollationId("UTF8MB4_BIN"), 46);
  EXPECT_EQ(CollationId("utf8mb4_general_ci"), 45);
  EXPECT_EQ(CollationId("utf8mb3_general_ci"), 33);
  EXPECT_EQ(CollationId("utf8_general_ci"), 33);
  EXPECT_EQ(CollationId("latin1_swedish_ci"), 8);
  EXPECT_EQ(CollationId("latin1_bin"), 47);
  EXPECT_EQ(CollationId("ascii_general_ci"), 11);
  EXPECT_EQ(CollationId("binary"), 63);
  EXPECT_EQ(CollationId("no_such_collation"), 0);
}

TEST(TableMapTest, SmallTableBytesMinimal) {
  std::vector<ColumnDef> cols = {Col("id", ColumnType::kInt, false), Col("name", ColumnType::kVarChar)};
  cols[1].length = 10;
  TableDef t = MakeTable("db", "t", cols, {"id"});
  std::string ev = EncodeTableMap(Header(), 42, t, RowMetadata::kMinimal, Checksum::kOff);
  const std::string payload = Bytes({
      0x2A, 0, 0, 0, 0, 0, 0x01, 0x00,  // table_id, flags
      2, 'd', 'b', 0, 1, 't', 0,        // schema, table
      2, 0x03, 0x0F,                    // columns: LONG, VARCHAR
      2, 0x28, 0x00,                    // metadata: VARCHAR(10) utf8mb4 = 40 bytes
      0x02,                             // nullable: name
      1, 1, 0x00,                       // SIGNEDNESS: id signed
      2, 3, 0xFC, 0xFF, 0x00,           // DEFAULT_CHARSET 255
  });
  ASSERT_EQ(ev.size(), kHeaderLen + payload.size());
  EXPECT_EQ(Hex(ev.substr(kHeaderLen)), Hex(payload));
  Result<EventHeader> h = ParseHeader(ev);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->type, kTableMapEvent);
  EXPECT_EQ(h->event_size, ev.size());
  EXPECT_EQ(h->timestamp, 1704164645u);
  EXPECT_EQ(h->server_id, 1u);
}

TEST(TableMapTest, SmallTableBytesFull) {
  std::vector<ColumnDef> cols = {Col("id", ColumnType::kInt, false), Col("name", ColumnType::kVarChar)};
  cols[0].is_unsigned = true;
  cols[1].length = 10;
  TableDef t = MakeTable("db", "t", cols, {"id"});
  std::string ev = EncodeTableMap(Header(), 42, t, RowMetadata::kFull, Checksum::kCrc32);
  const std::string payload = Bytes({
      0x2A, 0, 0, 0, 0, 0, 0x01, 0x00, 2, 'd', 'b', 0, 1, 't', 0, 2, 0x03, 0x0F, 2, 0x28, 0x00, 0x02,
      1, 1, 0x80,                                       // SIGNEDNESS: id unsigned
      2, 3, 0xFC, 0xFF, 0x00,                           // DEFAULT_CHARSET 255
      4, 8, 2, 'i', 'd', 4, 'n', 'a', 'm', 'e',         // COLUMN_NAME
      8, 1, 0,                                          // SIMPLE_PRIMARY_KEY (0)
      12, 1, 0xC0,                                      // COLUMN_VISIBILITY
  });
  ASSERT_EQ(ev.size(), kHeaderLen + payload.size() + 4);
  EXPECT_EQ(Hex(ev.substr(kHeaderLen, payload.size())), Hex(payload));
  EXPECT_TRUE(VerifyChecksum(ev));

  Result<TableMapInfo> info = DecodeTableMap(ev, Checksum::kCrc32);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->table_id, 42u);
  EXPECT_EQ(info->schema, "db");
  EXPECT_EQ(info->table, "t");
  EXPECT_EQ(info->column_types, (std::vector<uint8_t>{3, 15}));
  EXPECT_EQ(info->column_meta, (std::vector<uint16_t>{0, 40}));
  EXPECT_EQ(info->nullable, (std::vector<bool>{false, true}));
  EXPECT_EQ(info->is_unsigned, (std::vector<bool>{true, false}));
  EXPECT_EQ(info->column_names, (std::vector<std::string>{"id", "name"}));
  EXPECT_EQ(info->primary_key, (std::vector<uint32_t>{0}));
}

TEST(TableMapTest, AllTypesMetadata) {
  TableDef t = AllTypesTable();
  std::string ev = EncodeTableMap(Header(), 300, t, RowMetadata::kFull, Checksum::kCrc32);
  Result<TableMapInfo> info = DecodeTableMap(ev, Checksum::kCrc32);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->table_id, 300u);
  const std::vector<uint8_t> types = {3,    1,    1,    2,    9,    8,    8,    0xF6, 4,    5,    0xFE,
                                      15,   0xFE, 15,   0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC, 0xFC,
                                      10,   19,   19,   18,   18,   17,   17,   13,   0xFE, 15,   3};
  EXPECT_EQ(info->column_types, types);
  const std::vector<uint16_t> expected_meta = {0, 0, 0, 0, 0, 0, 0, 0x0A02, 4, 8, 0xFE28, 80, 0xFE04, 10, 1, 2, 3,
                                               4, 1, 2, 3, 4, 0, 0, 3, 0, 6, 0, 2, 0, 0xF701, 5, 0};
  EXPECT_EQ(info->column_meta, expected_meta);
  std::vector<bool> is_unsigned(33, false);
  is_unsigned[2] = is_unsigned[6] = is_unsigned[32] = true;
  EXPECT_EQ(info->is_unsigned, is_unsigned);
  ASSERT_EQ(info->column_names.size(), 33u);
  EXPECT_EQ(info->column_names[7], "dec");
  EXPECT_EQ(info->primary_key, (std::vector<uint32_t>{0}));
  ASSERT_EQ(info->enum_values.size(), 1u);
  EXPECT_EQ(info->enum_values[0], (std::vector<std::string>{"a", "b", "c"}));

  // The character columns' collations: 16 utf8mb4 text/char, 8 binary, 1
  // latin1 -> DEFAULT_CHARSET 255 with exceptions.
  const std::string ev_min = EncodeTableMap(Header(), 300, t, RowMetadata::kMinimal, Checksum::kOff);
  // SIGNEDNESS over 11 numeric columns (id ti tiu si mi bi biu dec f d iu):
  // unsigned tiu(2), biu(6), iu(10) -> 0010 0010 001x xxxx.
  const std::string signedness = Bytes({1, 2, 0x22, 0x20});
  EXPECT_NE(ev_min.find(signedness), std::string::npos) << Hex(ev_min);
  // Character columns in order: c vc b vb tt t mt lt tb bl mb lb lc
  // = 255 255 63 63 255 255 255 255 63 63 63 63 8: 13 columns, at most 6
  // share one collation; 13 < 1 + 7 * 2 -> COLUMN_CHARSET.
  const std::string charsets = Bytes({3, 25, 0xFC, 0xFF, 0, 0xFC, 0xFF, 0, 63, 63, 0xFC, 0xFF, 0, 0xFC, 0xFF, 0,
                                      0xFC, 0xFF, 0, 0xFC, 0xFF, 0, 63, 63, 63, 63, 8});
  EXPECT_NE(ev_min.find(charsets), std::string::npos) << Hex(ev_min);
  // MINIMAL has no names, ENUM values or keys.
  Result<TableMapInfo> min_info = DecodeTableMap(ev_min, Checksum::kOff);
  ASSERT_TRUE(min_info.ok());
  EXPECT_TRUE(min_info->column_names.empty());
  EXPECT_TRUE(min_info->enum_values.empty());
  EXPECT_TRUE(min_info->primary_key.empty());
}

TEST(TableMapTest, NoPrimaryKeyHasNoKeyMetadata) {
  TableDef t = MakeTable("db", "nopk", {Col("a", ColumnType::kInt), Col("b", ColumnType::kInt)});
  ASSERT_TRUE(t.has_hidden_row_id());
  std::string ev = EncodeTableMap(Header(), 5, t, RowMetadata::kFull, Checksum::kOff);
  Result<TableMapInfo> info = DecodeTableMap(ev, Checksum::kOff);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->primary_key.empty());
  EXPECT_EQ(info->column_names, (std::vector<std::string>{"a", "b"}));
  // Neither SIMPLE_PRIMARY_KEY (8) nor PRIMARY_KEY_WITH_PREFIX (9): the
  // optional block is SIGNEDNESS, COLUMN_NAME, COLUMN_VISIBILITY.
  const std::string tail = Bytes({1, 1, 0x00, 4, 4, 1, 'a', 1, 'b', 12, 1, 0xC0});
  EXPECT_EQ(Hex(ev.substr(ev.size() - tail.size())), Hex(tail));
}

TEST(TableMapTest, PrimaryKeyWithPrefix) {
  std::vector<ColumnDef> cols = {Col("a", ColumnType::kInt, false), Col("s", ColumnType::kVarChar, false),
                                 Col("t", ColumnType::kText, false)};
  cols[1].length = 100;
  TableDef t = MakeTable("db", "pfx", cols, {"a", "s", "t"}, {0, 10, 20});
  std::string ev = EncodeTableMap(Header(), 5, t, RowMetadata::kFull, Checksum::kOff);
  const std::string pk = Bytes({9, 6, 0, 0, 1, 10, 2, 20});
  EXPECT_NE(ev.find(pk), std::string::npos) << Hex(ev);
  Result<TableMapInfo> info = DecodeTableMap(ev, Checksum::kOff);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->primary_key, (std::vector<uint32_t>{0, 1, 2}));
}

TEST(TableMapTest, LongCharFoldsLengthIntoType) {
  std::vector<ColumnDef> cols = {Col("c", ColumnType::kChar)};
  cols[0].length = 255;  // utf8mb4: 1020 bytes
  TableDef t = MakeTable("db", "lc", cols);
  std::string ev = EncodeTableMap(Header(), 5, t, RowMetadata::kMinimal, Checksum::kOff);
  // types FE, metadata length 2: 0xFE ^ 0x30 = 0xCE, 0x3FC & 0xFF = 0xFC.
  EXPECT_NE(ev.find(Bytes({1, 0xFE, 2, 0xCE, 0xFC})), std::string::npos) << Hex(ev);
  // Values of a column over 255 bytes take a 2-byte length.
  EXPECT_EQ(Hex(WrittenValue(t, Row{std::string("ab ")})), "02 00 61 62");
  Result<TableMapInfo> info = DecodeTableMap(ev, Checksum::kOff);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->column_meta[0], 0xCEFC);
}

TEST(TableMapTest, MetadataOf251BytesOrMoreTakesTheLongerLength) {
  // 130 VARCHAR columns, two metadata bytes each: a 260-byte block, whose
  // length is 0xFC 04 01; 125 of them (250 bytes) keep the one-byte length.
  for (size_t n : {125u, 126u, 130u}) {
    std::vector<ColumnDef> cols;
    for (size_t i = 0; i < n; ++i) {
      cols.push_back(Col("c" + std::to_string(i), ColumnType::kVarChar, i % 2 == 0));
      cols.back().length = 10;
    }
    TableDef t = MakeTable("db", "wide", cols);
    std::string ev = EncodeTableMap(Header(), 9, t, RowMetadata::kFull, Checksum::kCrc32);
    const std::string len = n * 2 < 251 ? Bytes({static_cast<uint8_t>(n * 2)})
                                        : Bytes({0xFC, static_cast<uint8_t>(n * 2 & 0xFF), static_cast<uint8_t>(n * 2 >> 8)});
    EXPECT_NE(ev.find(std::string(n, '\x0F') + len), std::string::npos) << n;
    Result<TableMapInfo> info = DecodeTableMap(ev, Checksum::kCrc32);
    ASSERT_TRUE(info.ok()) << n << ": " << info.status().ToString();
    ASSERT_EQ(info->column_meta.size(), n);
    EXPECT_EQ(info->column_meta[n - 1], 40);  // utf8mb4: 10 characters, 40 bytes
    ASSERT_EQ(info->nullable.size(), n);
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(info->nullable[i], i % 2 == 0) << i;
    ASSERT_EQ(info->column_names.size(), n);
    EXPECT_EQ(info->column_names[n - 1], "c" + std::to_string(n - 1));
  }
}

TEST(TableMapTest, AppendedAfterOtherBytesIsTheSameEvent) {
  TableDef t = AllTypesTable();
  for (Checksum cs : {Checksum::kOff, Checksum::kCrc32}) {
    const std::string alone = EncodeTableMap(Header(), 300, t, RowMetadata::kFull, cs);
    std::string buf = "earlier bytes";
    AppendTableMap(buf, Header(), 300, t, RowMetadata::kFull, cs);
    EXPECT_EQ(Hex(buf.substr(13)), Hex(alone));
    EXPECT_EQ(buf.substr(0, 13), "earlier bytes");
  }
}

// ---- value encodings ----

TEST(RowValueTest, DecimalBytes) {
  std::vector<ColumnDef> cols = {Col("d", ColumnType::kDecimal)};
  cols[0].precision = 10;
  cols[0].scale = 2;
  TableDef t = MakeTable("db", "d", cols);
  EXPECT_EQ(Hex(WrittenValue(t, Row{std::string("1234.56")})), "80 00 04 D2 38");
  EXPECT_EQ(Hex(WrittenValue(t, Row{std::string("-1234.56")})), "7F FF FB 2D C7");
  EXPECT_EQ(Hex(WrittenValue(t, Row{std::string("0.00")})), "80 00 00 00 00");
  EXPECT_EQ(Hex(WrittenValue(t, Row{std::string("-0.5")})), "7F FF FF FF CD");

  // 9-digit groups: DECIMAL(20,10) = 1 byte (1 int digit) + 4 + 4 + 1 (1 frac digit).
  std::vector<ColumnDef> wide = {Col("d", ColumnType::kDecimal)};
  wide[0].precision = 20;
  wide[0].scale = 10;
  TableDef tw = MakeTable("db", "d", wide);
  EXPECT_EQ(Hex(WrittenValue(tw, Row{std::string("1234567890.0123456789")})), "81 0D FB 38 D2 00 BC 61 4E 09");
}

TEST(RowValueTest, DecimalOutOfRangeIsCorruption) {
  std::vector<ColumnDef> cols = {Col("d", ColumnType::kDecimal)};
  cols[0].precision = 4;
  cols[0].scale = 2;
  TableDef t = MakeTable("db", "d", cols);
  RowsEventBuilder b(Header(), kWriteRowsEvent, 7, t, RowImage::kFull, Checksum::kOff);
  Row row{std::string("123.45")};
  EXPECT_TRUE(b.AddRow(nullptr, &row).IsCorruption());
}

TEST(RowValueTest, TemporalBytes) {
  std::vector<ColumnDef> cols = {Col("a", ColumnType::kDateTime)};
  TableDef t0 = MakeTable("db", "dt", cols);
  EXPECT_EQ(Hex(WrittenValue(t0, Row{storage::PackDateTime(2024, 1, 2, 3, 4, 5, 0)})), "99 B2 44 31 05");
  cols[0].fsp = 3;
  TableDef t3 = MakeTable("db", "dt", cols);
  EXPECT_EQ(Hex(WrittenValue(t3, Row{storage::PackDateTime(2024, 1, 2, 3, 4, 5, 123000)})), "99 B2 44 31 05 04 CE");

  std::vector<ColumnDef> tc = {Col("t", ColumnType::kTime)};
  TableDef time0 = MakeTable("db", "t", tc);
  EXPECT_EQ(Hex(WrittenValue(time0, Row{storage::PackTime(true, 1, 0, 0, 0)})), "7F F0 00");
  EXPECT_EQ(Hex(WrittenValue(time0, Row{storage::PackTime(false, 1, 0, 0, 0)})), "80 10 00");
  tc[0].fsp = 2;
  TableDef time2 = MakeTable("db", "t", tc);
  // -00:00:01.50: the integer part borrows one unit, the fraction byte is -50.
  EXPECT_EQ(Hex(WrittenValue(time2, Row{storage::PackTime(true, 0, 0, 1, 500000)})), "7F FF FE CE");
  tc[0].fsp = 6;
  TableDef time6 = MakeTable("db", "t", tc);
  EXPECT_EQ(Hex(WrittenValue(time6, Row{storage::PackTime(true, 0, 0, 1, 500000)})), "7F FF FE F8 5E E0");

  std::vector<ColumnDef> ts = {Col("ts", ColumnType::kTimestamp)};
  TableDef ts0 = MakeTable("db", "ts", ts);
  EXPECT_EQ(Hex(WrittenValue(ts0, Row{int64_t{kTs * 1000000}})), "65 93 7D 25");
  ts[0].fsp = 6;
  TableDef ts6 = MakeTable("db", "ts", ts);
  EXPECT_EQ(Hex(WrittenValue(ts6, Row{int64_t{kTs * 1000000 + 1}})), "65 93 7D 25 00 00 01");

  std::vector<ColumnDef> dc = {Col("d", ColumnType::kDate), Col("y", ColumnType::kYear)};
  TableDef dy = MakeTable("db", "d", dc);
  // 2 | 1 << 5 | 2024 << 9 = 0x0FD022; YEAR 2024 - 1900 = 124.
  EXPECT_EQ(Hex(WrittenValue(dy, Row{storage::PackDate(2024, 1, 2), uint64_t{2024}})), "22 D0 0F 7C");
  EXPECT_EQ(Hex(WrittenValue(dy, Row{storage::PackDate(2024, 1, 2), uint64_t{0}})), "22 D0 0F 00");
}

TEST(RowValueTest, IntegersEnumsAndStrings) {
  std::vector<ColumnDef> cols = {Col("a", ColumnType::kTinyInt), Col("b", ColumnType::kSmallInt),
                                 Col("c", ColumnType::kMediumInt), Col("d", ColumnType::kInt),
                                 Col("e", ColumnType::kBigInt), Col("f", ColumnType::kEnum),
                                 Col("g", ColumnType::kChar), Col("h", ColumnType::kBinary)};
  cols[5].enum_values = {"x", "y"};
  cols[6].length = 3;
  cols[6].charset = "latin1";
  cols[7].length = 3;
  TableDef t = MakeTable("db", "i", cols);
  Row row{int64_t{-1}, int64_t{-2}, int64_t{-3}, int64_t{-4}, int64_t{-5}, uint64_t{2}, std::string("a  "),
          std::string("\x01\0\0", 3)};
  EXPECT_EQ(Hex(WrittenValue(t, row)), "FF FE FF FD FF FF FC FF FF FF FB FF FF FF FF FF FF FF 02 01 61 01 01");

  std::vector<ColumnDef> big = {Col("e", ColumnType::kEnum)};
  for (int i = 0; i < 300; ++i) big[0].enum_values.push_back("v" + std::to_string(i));
  TableDef tb = MakeTable("db", "e", big);
  EXPECT_EQ(Hex(WrittenValue(tb, Row{uint64_t{258}})), "02 01");
  std::string ev = EncodeTableMap(Header(), 1, tb, RowMetadata::kMinimal, Checksum::kOff);
  EXPECT_NE(ev.find(Bytes({1, 0xFE, 2, 0xF7, 2})), std::string::npos);
}

TEST(RowValueTest, BadValuesAreCorruption) {
  std::vector<ColumnDef> cols = {Col("a", ColumnType::kTinyInt, false), Col("s", ColumnType::kVarChar)};
  cols[1].length = 2;
  cols[1].charset = "latin1";
  TableDef t = MakeTable("db", "bad", cols);
  RowsEventBuilder b(Header(), kWriteRowsEvent, 7, t, RowImage::kFull, Checksum::kOff);
  Row out_of_range{int64_t{200}, std::monostate{}};
  EXPECT_TRUE(b.AddRow(nullptr, &out_of_range).IsCorruption());
  Row wrong_kind{std::string("1"), std::monostate{}};
  EXPECT_TRUE(b.AddRow(nullptr, &wrong_kind).IsCorruption());
  Row null_not_null{std::monostate{}, std::monostate{}};
  EXPECT_TRUE(b.AddRow(nullptr, &null_not_null).IsCorruption());
  Row too_long{int64_t{1}, std::string("abc")};
  EXPECT_TRUE(b.AddRow(nullptr, &too_long).IsCorruption());
  Row narrow{int64_t{1}};
  EXPECT_FALSE(b.AddRow(nullptr, &narrow).ok());
  EXPECT_FALSE(b.AddRow(nullptr, nullptr).ok());
  EXPECT_TRUE(b.empty());
  EXPECT_TRUE(b.Finish(true).empty());
}

// ---- round trips ----

void ExpectAllTypesImage(const std::vector<DecodedValue>& image, bool nulls) {
  ASSERT_EQ(image.size(), 33u);
  for (size_t i = 0; i < image.size(); ++i) {
    SCOPED_TRACE("column " + std::to_string(i));
    EXPECT_EQ(image[i].column, i);
    const bool is_null = nulls && i > 0;
    EXPECT_EQ(image[i].is_null, is_null);
    if (is_null) {
      EXPECT_EQ(image[i].text, "NULL");
    } else if (nulls) {
      EXPECT_EQ(image[i].text, "2");
    } else {
      EXPECT_EQ(image[i].text, AllTypesText()[i]);
    }
    EXPECT_EQ(image[i].type_comment,
              "/* " + AllTypesComments()[i] + " is_null=" + (is_null ? "1" : "0") + " */");
  }
}

TEST(RowsEventTest, EveryTypeRoundTrips) {
  TableDef t = AllTypesTable();
  const std::string map_event = EncodeTableMap(Header(), 300, t, RowMetadata::kFull, Checksum::kCrc32);
  Result<TableMapInfo> map = DecodeTableMap(map_event, Checksum::kCrc32);
  ASSERT_TRUE(map.ok());

  RowsEventBuilder b(Header(), kWriteRowsEvent, 300, t, RowImage::kFull, Checksum::kCrc32);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.type(), kWriteRowsEvent);
  EXPECT_EQ(b.table_id(), 300u);
  Row full = AllTypesRow();
  Row nulls = NullRow(2, t.columns.size());
  ASSERT_TRUE(b.AddRow(nullptr, &full).ok());
  ASSERT_TRUE(b.AddRow(nullptr, &nulls).ok());
  EXPECT_FALSE(b.empty());
  std::vector<std::string> events = b.Finish(true);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(b.empty());
  const std::string& ev = events[0];
  EXPECT_TRUE(VerifyChecksum(ev));
  Result<EventHeader> h = ParseHeader(ev);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->type, kWriteRowsEvent);
  EXPECT_EQ(h->log_pos, 0u);
  EXPECT_EQ(h->event_size, ev.size());
  // Post-header: table_id 300, STMT_END_F, extra_data_len 2.
  EXPECT_EQ(Hex(ev.substr(kHeaderLen, 10)), "2C 01 00 00 00 00 01 00 02 00");

  Result<RowsInfo> rows = DecodeRows(ev, *map, Checksum::kCrc32);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->type, kWriteRowsEvent);
  EXPECT_EQ(rows->table_id, 300u);
  EXPECT_EQ(rows->flags, kStmtEndF);
  EXPECT_EQ(rows->column_count, 33u);
  ASSERT_EQ(rows->rows.size(), 2u);
  EXPECT_TRUE(rows->rows[0].before.empty());
  ExpectAllTypesImage(rows->rows[0].after, false);
  ExpectAllTypesImage(rows->rows[1].after, true);
}

TEST(RowsEventTest, UpdateAndDeleteFullImages) {
  TableDef t = AllTypesTable();
  Result<TableMapInfo> map = DecodeTableMap(EncodeTableMap(Header(), 9, t, RowMetadata::kMinimal, Checksum::kOff),
                                            Checksum::kOff);
  ASSERT_TRUE(map.ok());
  Row a = AllTypesRow();
  Row b = NullRow(2, t.columns.size());

  RowsEventBuilder upd(Header(), kUpdateRowsEvent, 9, t, RowImage::kFull, Checksum::kOff);
  ASSERT_TRUE(upd.AddRow(&a, &b).ok());
  std::vector<std::string> events = upd.Finish(true);
  ASSERT_EQ(events.size(), 1u);
  Result<RowsInfo> rows = DecodeRows(events[0], *map, Checksum::kOff);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->type, kUpdateRowsEvent);
  ASSERT_EQ(rows->rows.size(), 1u);
  ExpectAllTypesImage(rows->rows[0].before, false);
  ExpectAllTypesImage(rows->rows[0].after, true);

  RowsEventBuilder del(Header(), kDeleteRowsEvent, 9, t, RowImage::kFull, Checksum::kOff);
  ASSERT_TRUE(del.AddRow(&a, nullptr).ok());
  events = del.Finish(false);
  ASSERT_EQ(events.size(), 1u);
  rows = DecodeRows(events[0], *map, Checksum::kOff);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->flags, 0);
  ASSERT_EQ(rows->rows.size(), 1u);
  ExpectAllTypesImage(rows->rows[0].before, false);
  EXPECT_TRUE(rows->rows[0].after.empty());
}

TEST(RowsEventTest, DecodedYearZeroAndEscapes) {
  std::vector<ColumnDef> cols = {Col("y", ColumnType::kYear), Col("s", ColumnType::kBlob)};
  TableDef t = MakeTable("db", "y", cols);
  Result<TableMapInfo> map =
      DecodeTableMap(EncodeTableMap(Header(), 1, t, RowMetadata::kMinimal, Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(map.ok());
  RowsEventBuilder b(Header(), kWriteRowsEvent, 1, t, RowImage::kFull, Checksum::kOff);
  Row row{uint64_t{0}, std::string("a\\b\tc\x1f\xc3\xa9", 8)};
  ASSERT_TRUE(b.AddRow(nullptr, &row).ok());
  Result<RowsInfo> rows = DecodeRows(b.Finish(true)[0], *map, Checksum::kOff);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->rows[0].after[0].text, "1900");  // mysqlbinlog prints YEAR 0 as 1900
  EXPECT_EQ(rows->rows[0].after[1].text, "'a\\\\b\\tc\\x1f\xc3\xa9'");
}

// MINIMAL: before = PK, after = changed columns; rows with other column
// sets start another event.
TEST(RowsEventTest, MinimalImages) {
  std::vector<ColumnDef> cols = {Col("id", ColumnType::kInt, false), Col("a", ColumnType::kInt),
                                 Col("b", ColumnType::kVarChar)};
  cols[2].length = 10;
  TableDef t = MakeTable("db", "m", cols, {"id"});
  Result<TableMapInfo> map =
      DecodeTableMap(EncodeTableMap(Header(), 3, t, RowMetadata::kMinimal, Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(map.ok());

  RowsEventBuilder upd(Header(), kUpdateRowsEvent, 3, t, RowImage::kMinimal, Checksum::kOff);
  Row b1{int64_t{1}, int64_t{10}, std::string("x")}, a1{int64_t{1}, int64_t{11}, std::string("x")};
  Row b2{int64_t{2}, int64_t{20}, std::string("y")}, a2{int64_t{2}, int64_t{21}, std::string("y")};
  Row b3{int64_t{3}, int64_t{30}, std::string("z")}, a3{int64_t{3}, int64_t{30}, std::monostate{}};
  ASSERT_TRUE(upd.AddRow(&b1, &a1).ok());
  ASSERT_TRUE(upd.AddRow(&b2, &a2).ok());
  ASSERT_TRUE(upd.AddRow(&b3, &a3).ok());
  // The third row changes another column: the first event is finished.
  std::vector<std::string> first = upd.TakeFinished();
  ASSERT_EQ(first.size(), 1u);
  std::vector<std::string> rest = upd.Finish(true);
  ASSERT_EQ(rest.size(), 1u);

  // Bitmaps: before = {id}, after = {a}.
  EXPECT_EQ(Hex(first[0].substr(kHeaderLen + 10, 3)), "03 01 02");
  Result<RowsInfo> r1 = DecodeRows(first[0], *map, Checksum::kOff);
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_EQ(r1->flags, 0);
  ASSERT_EQ(r1->rows.size(), 2u);
  ASSERT_EQ(r1->rows[0].before.size(), 1u);
  EXPECT_EQ(r1->rows[0].before[0].column, 0u);
  EXPECT_EQ(r1->rows[0].before[0].text, "1");
  ASSERT_EQ(r1->rows[0].after.size(), 1u);
  EXPECT_EQ(r1->rows[0].after[0].column, 1u);
  EXPECT_EQ(r1->rows[0].after[0].text, "11");
  EXPECT_EQ(r1->rows[1].after[0].text, "21");

  Result<RowsInfo> r2 = DecodeRows(rest[0], *map, Checksum::kOff);
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->flags, kStmtEndF);
  ASSERT_EQ(r2->rows.size(), 1u);
  ASSERT_EQ(r2->rows[0].after.size(), 1u);
  EXPECT_EQ(r2->rows[0].after[0].column, 2u);
  EXPECT_TRUE(r2->rows[0].after[0].is_null);

  // DELETE: the key only. WRITE: every column.
  RowsEventBuilder del(Header(), kDeleteRowsEvent, 3, t, RowImage::kMinimal, Checksum::kOff);
  ASSERT_TRUE(del.AddRow(&b1, nullptr).ok());
  Result<RowsInfo> rd = DecodeRows(del.Finish(true)[0], *map, Checksum::kOff);
  ASSERT_TRUE(rd.ok());
  ASSERT_EQ(rd->rows[0].before.size(), 1u);
  EXPECT_EQ(rd->rows[0].before[0].text, "1");
  RowsEventBuilder ins(Header(), kWriteRowsEvent, 3, t, RowImage::kMinimal, Checksum::kOff);
  ASSERT_TRUE(ins.AddRow(nullptr, &a1).ok());
  Result<RowsInfo> ri = DecodeRows(ins.Finish(true)[0], *map, Checksum::kOff);
  ASSERT_TRUE(ri.ok());
  EXPECT_EQ(ri->rows[0].after.size(), 3u);

  // Without a PRIMARY KEY the before image has every column.
  TableDef nopk = MakeTable("db", "n", cols);
  Result<TableMapInfo> nmap =
      DecodeTableMap(EncodeTableMap(Header(), 4, nopk, RowMetadata::kMinimal, Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(nmap.ok());
  RowsEventBuilder nupd(Header(), kUpdateRowsEvent, 4, nopk, RowImage::kMinimal, Checksum::kOff);
  ASSERT_TRUE(nupd.AddRow(&b1, &a1).ok());
  Result<RowsInfo> rn = DecodeRows(nupd.Finish(true)[0], *nmap, Checksum::kOff);
  ASSERT_TRUE(rn.ok());
  EXPECT_EQ(rn->rows[0].before.size(), 3u);
  EXPECT_EQ(rn->rows[0].after.size(), 1u);
}

TEST(RowsEventTest, NoBlobImages) {
  std::vector<ColumnDef> cols = {Col("id", ColumnType::kInt, false), Col("a", ColumnType::kInt),
                                 Col("t", ColumnType::kText), Col("b", ColumnType::kBlob)};
  TableDef t = MakeTable("db", "nb", cols, {"id"});
  Result<TableMapInfo> map =
      DecodeTableMap(EncodeTableMap(Header(), 3, t, RowMetadata::kMinimal, Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(map.ok());
  Row before{int64_t{1}, int64_t{10}, std::string("t"), std::string("b")};
  Row after{int64_t{1}, int64_t{10}, std::string("t2"), std::string("b")};
  RowsEventBuilder upd(Header(), kUpdateRowsEvent, 3, t, RowImage::kNoBlob, Checksum::kOff);
  ASSERT_TRUE(upd.AddRow(&before, &after).ok());
  std::vector<std::string> events = upd.Finish(true);
  // before = {id, a}, after = {id, a, t (changed)}.
  EXPECT_EQ(Hex(events[0].substr(kHeaderLen + 10, 3)), "04 03 07");
  Result<RowsInfo> rows = DecodeRows(events[0], *map, Checksum::kOff);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->rows[0].after.size(), 3u);
  EXPECT_EQ(rows->rows[0].after[2].text, "'t2'");

  RowsEventBuilder ins(Header(), kWriteRowsEvent, 3, t, RowImage::kNoBlob, Checksum::kOff);
  ASSERT_TRUE(ins.AddRow(nullptr, &after).ok());
  EXPECT_EQ(Hex(ins.Finish(true)[0].substr(kHeaderLen + 10, 2)), "04 0F");

  // No PRIMARY KEY: the before image keeps the blobs.
  TableDef nopk = MakeTable("db", "nb2", cols);
  RowsEventBuilder del(Header(), kDeleteRowsEvent, 3, nopk, RowImage::kNoBlob, Checksum::kOff);
  ASSERT_TRUE(del.AddRow(&before, nullptr).ok());
  EXPECT_EQ(Hex(del.Finish(true)[0].substr(kHeaderLen + 10, 2)), "04 0F");
}

TEST(RowsEventTest, SplitsAtMaxEventBytes) {
  std::vector<ColumnDef> cols = {Col("id", ColumnType::kInt, false), Col("s", ColumnType::kVarChar)};
  cols[1].length = 100;
  TableDef t = MakeTable("db", "s", cols, {"id"});
  Result<TableMapInfo> map =
      DecodeTableMap(EncodeTableMap(Header(), 3, t, RowMetadata::kMinimal, Checksum::kCrc32), Checksum::kCrc32);
  ASSERT_TRUE(map.ok());
  constexpr size_t kMax = 300;
  RowsEventBuilder b(Header(), kWriteRowsEvent, 3, t, RowImage::kFull, Checksum::kCrc32, kMax);
  std::vector<std::string> events;
  for (int i = 0; i < 40; ++i) {
    Row row{int64_t{i}, std::string(30, static_cast<char>('a' + i % 26))};  // 1 + 4 + 2 + 30 bytes
    ASSERT_TRUE(b.AddRow(nullptr, &row).ok());
    for (std::string& e : b.TakeFinished()) events.push_back(std::move(e));
  }
  EXPECT_FALSE(b.empty());  // the last event is still pending
  for (std::string& e : b.Finish(true)) events.push_back(std::move(e));
  ASSERT_GT(events.size(), 4u);
  int next_id = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_LE(events[i].size(), kMax);
    EXPECT_TRUE(VerifyChecksum(events[i]));
    Result<RowsInfo> rows = DecodeRows(events[i], *map, Checksum::kCrc32);
    ASSERT_TRUE(rows.ok());
    EXPECT_EQ(rows->flags, i + 1 == events.size() ? kStmtEndF : 0);
    EXPECT_GE(rows->rows.size(), 1u);
    for (const DecodedRow& r : rows->rows) EXPECT_EQ(r.after[0].text, std::to_string(next_id++));
  }
  EXPECT_EQ(next_id, 40);
  // Full events hold as many rows as fit: 19 + 10 + 1 + 1 + 4 = 35 bytes
  // of framing, 37 per row (VARCHAR(100) utf8mb4 has a 2-byte length) ->
  // 7 rows (294 bytes).
  EXPECT_EQ(events[0].size(), 35u + 7 * 37);

  // A row larger than the limit gets an event of its own.
  RowsEventBuilder small(Header(), kWriteRowsEvent, 3, t, RowImage::kFull, Checksum::kCrc32, 50);
  Row big{int64_t{1}, std::string(100, 'x')};
  ASSERT_TRUE(small.AddRow(nullptr, &big).ok());
  ASSERT_TRUE(small.AddRow(nullptr, &big).ok());
  std::vector<std::string> two = small.Finish(false);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(DecodeRows(two[1], *map, Checksum::kCrc32)->flags, 0);
}

// A session keeps one builder for all its statements: after Reset it
// builds exactly what a new builder would, whatever it built before, and
// rows as the engine stores them (a hidden row id after the columns) log
// the table's columns only.
TEST(RowsEventTest, ResetBuildsWhatANewBuilderBuilds) {
  std::vector<ColumnDef> cols = {Col("id", ColumnType::kInt, false), Col("a", ColumnType::kInt),
                                 Col("b", ColumnType::kVarChar)};
  cols[2].length = 10;
  TableDef t = MakeTable("db", "m", cols, {"id"});
  std::vector<ColumnDef> ncols = {Col("x", ColumnType::kInt), Col("y", ColumnType::kVarChar)};
  ncols[1].length = 50;
  TableDef nopk = MakeTable("db", "n", ncols);
  Row b1{int64_t{1}, int64_t{10}, std::string("x")}, a1{int64_t{1}, int64_t{11}, std::string("x")};
  Row b2{int64_t{2}, int64_t{20}, std::string("y")}, a2{int64_t{2}, int64_t{21}, std::monostate{}};
  struct Step {
    uint8_t type;
    uint64_t table_id;
    const TableDef* table;
    RowImage image;
    Checksum checksum;
    std::vector<std::pair<const Row*, const Row*>> rows;
    bool stmt_end;
    size_t max_bytes;
  };
  Row n1{int64_t{5}, std::string(40, 'q')}, n2{std::monostate{}, std::string("r")};
  const std::vector<Step> steps = {
      {kUpdateRowsEvent, 3, &t, RowImage::kMinimal, Checksum::kOff, {{&b1, &a1}, {&b2, &a2}}, true, 8192},
      {kWriteRowsEvent, 4, &nopk, RowImage::kFull, Checksum::kCrc32, {{nullptr, &n1}, {nullptr, &n2}}, false, 60},
      {kDeleteRowsEvent, 3, &t, RowImage::kFull, Checksum::kOff, {{&b2, nullptr}}, true, 8192},
      {kUpdateRowsEvent, 3, &t, RowImage::kNoBlob, Checksum::kCrc32, {{&b1, &a1}}, true, 8192},
  };
  auto run = [](RowsEventBuilder& b, const Step& s, bool stored) {
    std::vector<std::string> out;
    b.set_no_foreign_key_checks(s.type == kDeleteRowsEvent);
    for (const auto& [before, after] : s.rows) {
      Status st;
      if (stored) {
        // The engine's rows: a hidden row id may trail the columns.
        Row wb = before ? *before : Row{}, wa = after ? *after : Row{};
        wb.push_back(int64_t{999});
        wa.push_back(int64_t{999});
        st = b.AddStoredRow(before ? &wb : nullptr, after ? &wa : nullptr);
      } else {
        st = b.AddRow(before, after);
      }
      EXPECT_TRUE(st.ok()) << st.ToString();
      for (const std::string& e : b.finished()) out.push_back(e);
      b.ClearFinished();
    }
    b.FinishStatement(s.stmt_end);
    for (const std::string& e : b.finished()) out.push_back(e);
    b.ClearFinished();
    return out;
  };
  std::optional<RowsEventBuilder> reused;
  for (size_t i = 0; i < steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    const Step& s = steps[i];
    RowsEventBuilder fresh(Header(), s.type, s.table_id, *s.table, s.image, s.checksum, s.max_bytes);
    std::vector<std::string> want = run(fresh, s, /*stored=*/false);
    ASSERT_FALSE(want.empty());
    if (reused) {
      reused->Reset(Header(), s.type, s.table_id, *s.table, s.image, s.checksum, s.max_bytes);
    } else {
      reused.emplace(Header(), s.type, s.table_id, *s.table, s.image, s.checksum, s.max_bytes);
    }
    std::vector<std::string> got = run(*reused, s, /*stored=*/true);
    ASSERT_EQ(got.size(), want.size());
    for (size_t j = 0; j < want.size(); ++j) EXPECT_EQ(Hex(got[j]), Hex(want[j])) << "event " << j;
    // A row the next Reset must drop, as a rolled-back statement's.
    ASSERT_TRUE(reused->AddRow(s.rows[0].first, s.rows[0].second).ok());
  }
  // AddStoredRow still refuses a row narrower than the table; AddRow one of
  // any other width.
  RowsEventBuilder b(Header(), kWriteRowsEvent, 3, t, RowImage::kFull, Checksum::kOff);
  Row narrow{int64_t{1}, int64_t{2}};
  Row wide{int64_t{1}, int64_t{2}, std::string("w"), int64_t{3}};
  EXPECT_EQ(b.AddStoredRow(nullptr, &narrow).code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(b.AddRow(nullptr, &wide).code(), Status::Code::kInvalidArgument);
  EXPECT_TRUE(b.AddStoredRow(nullptr, &wide).ok());
}

// Truncated or damaged events fail cleanly (no crash, no read past the end).
// ---- JSON for MariaDB replicas ----

TEST(MariadbJsonTest, TableMapDeclaresJsonAsLongblobWithoutOptionalMetadata) {
  TableDef t = MakeTable("d", "j", {Col("id", ColumnType::kInt, false), Col("doc", ColumnType::kJson),
                                    Col("v", ColumnType::kVarChar)}, {"id"});
  t.columns[2].length = 10;
  EventHeader h = Header();
  h.log_pos = 1234;
  for (Checksum cs : {Checksum::kOff, Checksum::kCrc32}) {
    const std::string map = EncodeTableMap(h, 9, t, RowMetadata::kFull, cs);
    Result<std::optional<std::string>> out = TableMapJsonAsLongblob(map, cs);
    ASSERT_TRUE(out.ok() && out->has_value()) << out.status().ToString();
    const std::string& ev = **out;
    EXPECT_LT(ev.size(), map.size());  // the optional metadata is gone
    if (cs == Checksum::kCrc32) {
      EXPECT_TRUE(VerifyChecksum(ev));
    }
    Result<EventHeader> eh = ParseHeader(ev);
    ASSERT_TRUE(eh.ok());
    EXPECT_EQ(eh->log_pos, 1234u);  // the primary's position: MariaDB treats the shrink as a hole
    EXPECT_EQ(eh->event_size, ev.size());
    Result<TableMapInfo> info = DecodeTableMap(ev, cs);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    EXPECT_EQ(info->column_types, (std::vector<uint8_t>{3, 0xFC, 15}));
    EXPECT_EQ(info->column_meta[1], 4);
    EXPECT_TRUE(info->column_names.empty());
  }
  // No JSON column: nothing to change.
  TableDef plain = MakeTable("d", "p", {Col("id", ColumnType::kInt, false)}, {"id"});
  Result<std::optional<std::string>> none =
      TableMapJsonAsLongblob(EncodeTableMap(h, 9, plain, RowMetadata::kFull, Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(MariadbJsonTest, RowsCarryJsonAsText) {
  TableDef t = MakeTable("d", "j", {Col("id", ColumnType::kInt, false), Col("doc", ColumnType::kJson),
                                    Col("v", ColumnType::kVarChar)}, {"id"});
  t.columns[2].length = 10;
  Result<TableMapInfo> map = DecodeTableMap(EncodeTableMap(Header(), 9, t, RowMetadata::kMinimal, Checksum::kCrc32),
                                            Checksum::kCrc32);
  ASSERT_TRUE(map.ok());
  // The converter is the caller's (sql::json::BinaryToText in the server).
  JsonToText to_text = [](std::string_view binary) -> Result<std::string> {
    if (binary == "bad") return Status::Corruption("bad JSON");
    return "<" + std::string(binary) + ">";
  };
  Row a{RowValue(int64_t{1}), RowValue(std::string("\x00\x01", 2) + "binary"), RowValue(std::string("keep"))};
  Row b{RowValue(int64_t{1}), RowValue(), RowValue(std::string("x"))};
  EventHeader h = Header();
  RowsEventBuilder upd(h, kUpdateRowsEvent, 9, t, RowImage::kFull, Checksum::kCrc32);
  ASSERT_TRUE(upd.AddRow(&a, &b).ok());
  ASSERT_TRUE(upd.AddRow(&b, &a).ok());
  std::vector<std::string> events = upd.Finish(true);
  ASSERT_EQ(events.size(), 1u);
  Result<std::optional<std::string>> out = RowsJsonAsText(events[0], *map, Checksum::kCrc32, to_text);
  ASSERT_TRUE(out.ok() && out->has_value()) << out.status().ToString();
  EXPECT_TRUE(VerifyChecksum(**out));
  EXPECT_EQ(out->value().size(), events[0].size() + 4);  // two values, two brackets each
  // Read back as the replica will: column 2 is a LONGBLOB now.
  TableMapInfo as_blob = *map;
  as_blob.column_types[1] = 0xFC;
  Result<RowsInfo> rows = DecodeRows(**out, as_blob, Checksum::kCrc32);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->rows.size(), 2u);
  EXPECT_EQ(rows->flags, 1);  // STMT_END_F kept
  EXPECT_EQ(rows->rows[0].before[1].text, "'<\\x00\\x01binary>'");
  EXPECT_TRUE(rows->rows[0].after[1].is_null);
  EXPECT_EQ(rows->rows[0].after[2].text, "'x'");
  EXPECT_EQ(rows->rows[1].after[1].text, "'<\\x00\\x01binary>'");

  // A value the converter refuses is an error, not a half-written event.
  Row bad{RowValue(int64_t{2}), RowValue(std::string("bad")), RowValue()};
  RowsEventBuilder ins(h, kWriteRowsEvent, 9, t, RowImage::kFull, Checksum::kCrc32);
  ASSERT_TRUE(ins.AddRow(nullptr, &bad).ok());
  events = ins.Finish(true);
  EXPECT_FALSE(RowsJsonAsText(events[0], *map, Checksum::kCrc32, to_text).ok());
  // Truncated events fail cleanly.
  for (size_t cut : {20u, 30u, 35u}) {
    std::string ev = events[0].substr(0, cut);
    EXPECT_FALSE(RowsJsonAsText(ev, *map, Checksum::kOff, to_text).ok()) << cut;
  }
}

TEST(MariadbJsonTest, CompressedRowsInflateToTheSameEvent) {
  TableDef t = MakeTable("d", "j", {Col("id", ColumnType::kInt, false), Col("doc", ColumnType::kJson)}, {"id"});
  for (Checksum cs : {Checksum::kOff, Checksum::kCrc32}) {
    for (uint8_t type : {kWriteRowsEvent, kUpdateRowsEvent, kDeleteRowsEvent}) {
      RowsEventBuilder b(Header(), type, 9, t, RowImage::kFull, cs);
      for (int64_t i = 0; i < 10; ++i) {
        Row row{RowValue(i), RowValue(std::string(300, static_cast<char>('a' + i % 3)))};
        ASSERT_TRUE(b.AddRow(type == kWriteRowsEvent ? nullptr : &row, type == kDeleteRowsEvent ? nullptr : &row).ok());
      }
      std::vector<std::string> events = b.Finish(true);
      ASSERT_EQ(events.size(), 1u);
      std::string& ev = events[0];
      PatchLogPos(ev.data(), 777, cs);
      Result<std::string> z = RowsCompressedForMariadb(ev, cs);
      ASSERT_TRUE(z.ok()) << z.status().ToString();
      EXPECT_LT(z->size(), ev.size() / 4);  // repetitive rows compress well
      Result<EventHeader> zh = ParseHeader(*z);
      ASSERT_TRUE(zh.ok());
      EXPECT_EQ(zh->type, kMariadbWriteRowsCompressedEvent + (type - kWriteRowsEvent));
      EXPECT_EQ(zh->log_pos, 777u);
      if (cs == Checksum::kCrc32) {
        EXPECT_TRUE(VerifyChecksum(*z));
      }
      // Inflate as the replica does: the prefix up to the row images is the
      // original's; then 0x80|n, n big-endian length bytes, the zlib stream.
      const size_t prefix = kHeaderLen + 10 + 1 + (type == kUpdateRowsEvent ? 2 : 1);
      const size_t tail = cs == Checksum::kCrc32 ? 4 : 0;
      ASSERT_EQ(z->substr(kHeaderLen, prefix - kHeaderLen), ev.substr(kHeaderLen, prefix - kHeaderLen));
      const uint8_t b0 = static_cast<uint8_t>((*z)[prefix]);
      ASSERT_EQ(b0 & 0xF8, 0x80);
      const int n = b0 & 7;
      uint64_t len = 0;
      for (int i = 0; i < n; ++i) len = len << 8 | static_cast<uint8_t>((*z)[prefix + 1 + i]);
      EXPECT_EQ(len, ev.size() - prefix - tail);
      std::string rows(len, '\0');
      uLongf out_len = len;
      const std::string_view stream = std::string_view(*z).substr(prefix + 1 + n, z->size() - prefix - 1 - n - tail);
      ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(rows.data()), &out_len,
                           reinterpret_cast<const Bytef*>(stream.data()), stream.size()),
                Z_OK);
      EXPECT_EQ(rows, ev.substr(prefix, len));
    }
  }
  EXPECT_FALSE(RowsCompressedForMariadb(std::string(10, 'x'), Checksum::kOff).ok());
}

TEST(RowsEventTest, MalformedEventsFailCleanly) {
  TableDef t = AllTypesTable();
  const std::string map_event = EncodeTableMap(Header(), 300, t, RowMetadata::kFull, Checksum::kOff);
  Result<TableMapInfo> map = DecodeTableMap(map_event, Checksum::kOff);
  ASSERT_TRUE(map.ok());
  RowsEventBuilder b(Header(), kUpdateRowsEvent, 300, t, RowImage::kFull, Checksum::kOff);
  Row full = AllTypesRow();
  Row nulls = NullRow(2, t.columns.size());
  ASSERT_TRUE(b.AddRow(&full, &nulls).ok());
  const std::string rows_event = b.Finish(true)[0];
  EventHeader rh = *ParseHeader(rows_event);
  EventHeader mh = *ParseHeader(map_event);
  const std::string rows_payload = rows_event.substr(kHeaderLen);
  const std::string map_payload = map_event.substr(kHeaderLen);
  for (size_t k = 0; k < rows_payload.size(); ++k) {
    Result<RowsInfo> r = DecodeRows(internal::FinishEvent(rh, rows_payload.substr(0, k), Checksum::kOff), *map,
                                    Checksum::kOff);
    // 21 bytes (post-header, column count, two bitmaps) is an event with no rows.
    EXPECT_EQ(r.ok(), k == 21) << k;
  }
  for (size_t k = 0; k < map_payload.size(); ++k) {
    (void)DecodeTableMap(internal::FinishEvent(mh, map_payload.substr(0, k), Checksum::kOff), Checksum::kOff);
  }
  uint32_t seed = 12345;
  for (int i = 0; i < 2000; ++i) {
    seed = seed * 1103515245 + 12345;
    std::string p = i % 2 ? rows_payload : map_payload;
    p[(seed >> 8) % p.size()] = static_cast<char>(seed >> 24);
    if (i % 2) {
      (void)DecodeRows(internal::FinishEvent(rh, p, Checksum::kOff), *map, Checksum::kOff);
    } else {
      Result<TableMapInfo> m = DecodeTableMap(internal::FinishEvent(mh, p, Checksum::kOff), Checksum::kOff);
      if (m.ok()) (void)DecodeRows(rows_event, *m, Checksum::kOff);
    }
  }
  // A size that disagrees with the header, or a map of another width.
  EXPECT_FALSE(DecodeRows(rows_event.substr(0, rows_event.size() - 1), *map, Checksum::kOff).ok());
  TableMapInfo narrow = *map;
  narrow.column_types.pop_back();
  EXPECT_FALSE(DecodeRows(rows_event, narrow, Checksum::kOff).ok());
}

// ---- the real decoder ----

// A Format_description as MySQL 8.0.26+ writes it (binlog-format.md §5),
// built here so this test does not depend on event.cc. It always ends in
// a CRC32; `checksum` is the algorithm byte for the rest of the file.
std::string TestFormatDescription(Checksum checksum) {
  using internal::PutLE;
  std::string p;
  PutLE(p, 4, 2);
  std::string version = "8.0.36";
  version.resize(50, '\0');
  p += version;
  PutLE(p, 0, 4);
  p.push_back(19);
  p += Bytes({0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10,
              10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0});
  p.push_back(static_cast<char>(checksum));
  EventHeader h = Header();
  h.type = kFormatDescriptionEvent;
  return internal::FinishEvent(h, p, Checksum::kCrc32);
}

// An empty Previous_gtids: 8 zero bytes (31 bytes with header and CRC).
std::string TestPreviousGtids(Checksum checksum) {
  EventHeader h = Header();
  h.type = kPreviousGtidsEvent;
  return internal::FinishEvent(h, std::string(8, '\0'), checksum);
}

std::string TestQuery(std::string_view sql, Checksum checksum) {
  using internal::PutLE;
  std::string status;
  status.push_back(0);  // Q_FLAGS2_CODE
  PutLE(status, 0, 4);
  status.push_back(1);  // Q_SQL_MODE_CODE
  PutLE(status, 0, 8);
  status += Bytes({6, 3, 's', 't', 'd'});  // Q_CATALOG_NZ_CODE
  status.push_back(4);                      // Q_CHARSET_CODE: utf8mb4_general_ci
  PutLE(status, 45, 2);
  PutLE(status, 45, 2);
  PutLE(status, 45, 2);
  std::string p;
  PutLE(p, 1, 4);  // thread_id
  PutLE(p, 0, 4);  // exec_time
  p.push_back(0);  // db_len
  PutLE(p, 0, 2);  // error_code
  PutLE(p, status.size(), 2);
  p += status;
  p.push_back('\0');  // empty db
  p += sql;
  EventHeader h = Header();
  h.type = kQueryEvent;
  return internal::FinishEvent(h, p, checksum);
}

std::string TestXid(uint64_t xid, Checksum checksum) {
  std::string p;
  internal::PutLE(p, xid, 8);
  EventHeader h = Header();
  h.type = kXidEvent;
  return internal::FinishEvent(h, p, checksum);
}

// Magic, then the events with their log_pos patched (the FDE always has a CRC).
std::string WriteBinlogFile(const std::vector<std::string>& events, Checksum checksum) {
  std::string file(kBinlogMagic, 4);
  for (size_t i = 0; i < events.size(); ++i) {
    std::string e = events[i];
    PatchLogPos(e.data(), static_cast<uint32_t>(file.size() + e.size()), i == 0 ? Checksum::kCrc32 : checksum);
    file += e;
  }
  return file;
}

bool OnPath(const std::string& tool) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  std::stringstream ss(path);
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    if (!dir.empty() && access((dir + "/" + tool).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string RunCommand(const std::string& cmd, int* status) {
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  if (f == nullptr) {
    *status = -1;
    return out;
  }
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  *status = pclose(f);
  return out;
}

std::vector<std::string> LinesWithPrefix(const std::string& output, std::string_view prefix) {
  std::vector<std::string> lines;
  std::stringstream ss(output);
  std::string line;
  while (std::getline(ss, line)) {
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  }
  return lines;
}

// mariadb-binlog escapes strings unlike MySQL's mysqlbinlog: it leaves '
// alone and writes control bytes as \xNN.
std::string MariadbText(const std::string& mysql_text) {
  if (mysql_text == "'it\\'s\\n'") return "'it's\\x0a'";
  return mysql_text;
}

// The "### ..." lines mysqlbinlog -vv prints for one rows event, from our
// own decoder (whose values the other tests pin down).
void AppendExpectedLines(const std::string& event, const TableMapInfo& map, Checksum checksum,
                         std::vector<std::string>* lines) {
  Result<RowsInfo> rows = DecodeRows(event, map, checksum);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const std::string table = "`" + map.schema + "`.`" + map.table + "`";
  auto image = [&](const std::vector<DecodedValue>& values) {
    for (const DecodedValue& v : values) {
      lines->push_back("###   @" + std::to_string(v.column + 1) + "=" + MariadbText(v.text) + " " + v.type_comment);
    }
  };
  for (const DecodedRow& row : rows->rows) {
    switch (rows->type) {
      case kWriteRowsEvent:
        lines->push_back("### INSERT INTO " + table);
        lines->push_back("### SET");
        image(row.after);
        break;
      case kUpdateRowsEvent:
        lines->push_back("### UPDATE " + table);
        lines->push_back("### WHERE");
        image(row.before);
        lines->push_back("### SET");
        image(row.after);
        break;
      default:
        lines->push_back("### DELETE FROM " + table);
        lines->push_back("### WHERE");
        image(row.before);
        break;
    }
  }
}

class MariadbBinlogTest : public testing::TestWithParam<Checksum> {};

// Writes a binlog file with one transaction (INSERT of every column type
// and of NULLs, a MINIMAL UPDATE, a MINIMAL DELETE) and checks what
// `mariadb-binlog -vv` decodes from it, values and type comments.
TEST_P(MariadbBinlogTest, DecodesEveryColumnType) {
  if (!OnPath("mariadb-binlog")) GTEST_SKIP() << "mariadb-binlog is not on PATH";
  const Checksum checksum = GetParam();
  TableDef t = AllTypesTable();
  RowsEventBuilder ins(Header(), kWriteRowsEvent, 300, t, RowImage::kFull, checksum);
  Row full = AllTypesRow();
  Row nulls = NullRow(2, t.columns.size());
  ASSERT_TRUE(ins.AddRow(nullptr, &full).ok());
  ASSERT_TRUE(ins.AddRow(nullptr, &nulls).ok());
  RowsEventBuilder upd(Header(), kUpdateRowsEvent, 300, t, RowImage::kMinimal, checksum);
  Row changed = full;
  changed[7] = std::string("0.05");
  changed[24] = storage::PackTime(true, 0, 0, 1, 500000);
  ASSERT_TRUE(upd.AddRow(&full, &changed).ok());
  RowsEventBuilder del(Header(), kDeleteRowsEvent, 300, t, RowImage::kMinimal, checksum);
  ASSERT_TRUE(del.AddRow(&nulls, nullptr).ok());

  const std::string map_event = EncodeTableMap(Header(), 300, t, RowMetadata::kFull, checksum);
  Result<TableMapInfo> map = DecodeTableMap(map_event, checksum);
  ASSERT_TRUE(map.ok());
  std::vector<std::string> events = {TestFormatDescription(checksum), TestPreviousGtids(checksum),
                                     TestQuery("BEGIN", checksum)};
  std::vector<std::string> expected;
  for (auto* b : {&ins, &upd, &del}) {
    events.push_back(map_event);
    for (std::string& e : b->Finish(true)) {
      AppendExpectedLines(e, *map, checksum, &expected);
      events.push_back(std::move(e));
    }
  }
  events.push_back(TestXid(14, checksum));
  const std::string bytes = WriteBinlogFile(events, checksum);

  char dir_template[] = "/tmp/sluice_row_event_XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string path = std::string(dir_template) + "/binlog.000001";
  {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  int status = 0;
  const std::string output = RunCommand(
      "mariadb-binlog -vv --verify-binlog-checksum --base64-output=decode-rows " + path + " 2>&1", &status);
  std::filesystem::remove_all(dir_template);
  ASSERT_EQ(status, 0) << output;

  // The values as written, spelled out for the first row and the UPDATE.
  ASSERT_EQ(expected.size(), 2u + 33 + 2 + 33 + 6 + 3);
  for (size_t i = 0; i < 33; ++i) {
    EXPECT_EQ(expected[2 + i].substr(0, expected[2 + i].find(" /* ")),
              "###   @" + std::to_string(i + 1) + "=" + MariadbText(AllTypesText()[i]));
  }
  EXPECT_EQ(expected[2 + 33 + 2 + 33 + 4], "###   @8=0.05 /* DECIMAL(10,2) meta=2562 nullable=1 is_null=0 */");
  EXPECT_EQ(expected[2 + 33 + 2 + 33 + 5], "###   @25='-00:00:01.500' /* TIME(3) meta=3 nullable=1 is_null=0 */");

  EXPECT_EQ(LinesWithPrefix(output, "### "), expected) << output;
  EXPECT_EQ(LinesWithPrefix(output, "# Number of rows: "),
            (std::vector<std::string>{"# Number of rows: 2", "# Number of rows: 1", "# Number of rows: 1"}));
  EXPECT_NE(output.find("Table_map: `db`.`all_types` mapped to number 300"), std::string::npos) << output;
  EXPECT_NE(output.find("Write_rows: table id 300 flags: STMT_END_F"), std::string::npos) << output;
  EXPECT_NE(output.find("Xid = 14"), std::string::npos) << output;
  EXPECT_NE(output.find("end_log_pos " + std::to_string(bytes.size())), std::string::npos) << output;
  EXPECT_EQ(output.find("ERROR"), std::string::npos) << output;
  EXPECT_EQ(output.find("!!"), std::string::npos) << output;
}

INSTANTIATE_TEST_SUITE_P(Checksums, MariadbBinlogTest, testing::Values(Checksum::kCrc32, Checksum::kOff),
                         [](const testing::TestParamInfo<Checksum>& info) {
                           return info.param == Checksum::kCrc32 ? "Crc32" : "NoChecksum";
                         });

}  // namespace
}  // namespace sluice::binlog

namespace sluice::binlog {
namespace {

// Issue 14 (fuzz_binlog, fuzz/regressions/binlog/rows_event_empty_column_bitmap):
// a Write_rows event whose column bitmap has no column set has rows of no
// bytes; DecodeRows read its remaining bytes as such rows forever.
TEST(RowEventDecodeTest, EmptyColumnBitmapIsCorruptionNotALoop) {
  TableMapInfo map;
  map.table_id = 2;
  map.column_types = {3, 15};  // LONG, VARCHAR
  map.column_meta = {0, 20};
  map.nullable = {true, true};
  const std::string payload = std::string("\x02\x00\x00\x00\x00\x00", 6) + std::string("\x01\x00", 2) +
                              std::string("\x02\x00", 2) + "\x02" + std::string("\x00", 1) + "\x01\x02\x03";
  EventHeader h;
  h.type = kWriteRowsEvent;
  const std::string ev = internal::FinishEvent(h, payload, Checksum::kOff);
  Result<RowsInfo> rows = DecodeRows(ev, map, Checksum::kOff);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("row image of no columns"), std::string::npos) << rows.status().ToString();
  // The same event with no row bytes at all decodes to no rows.
  const std::string empty = internal::FinishEvent(h, payload.substr(0, payload.size() - 3), Checksum::kOff);
  rows = DecodeRows(empty, map, Checksum::kOff);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->rows.empty());
}

}  // namespace
}  // namespace sluice::binlog
