#include "storage/catalog/row_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "storage/btree/key_codec.h"

namespace sluice::storage {
namespace {

ColumnDef Col(std::string name, ColumnType type, bool is_unsigned = false) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.is_unsigned = is_unsigned;
  return c;
}

// One column of every type, all nullable, no PRIMARY KEY.
TableDef AllTypes() {
  TableDef t;
  t.schema = "db";
  t.name = "all";
  const ColumnType ints[] = {ColumnType::kTinyInt, ColumnType::kSmallInt, ColumnType::kMediumInt,
                             ColumnType::kInt, ColumnType::kBigInt};
  for (ColumnType it : ints) {
    t.columns.push_back(Col(std::string(ColumnTypeName(it)), it));
    t.columns.push_back(Col(std::string(ColumnTypeName(it)) + "_u", it, true));
  }
  ColumnDef dec = Col("dec", ColumnType::kDecimal);
  dec.precision = 65;
  dec.scale = 30;
  t.columns.push_back(dec);
  t.columns.push_back(Col("f", ColumnType::kFloat));
  t.columns.push_back(Col("d", ColumnType::kDouble));
  ColumnDef ch = Col("ch", ColumnType::kChar);
  ch.length = 10;
  t.columns.push_back(ch);
  ColumnDef vc = Col("vc", ColumnType::kVarChar);
  vc.length = 20;
  t.columns.push_back(vc);
  ColumnDef bin = Col("bin", ColumnType::kBinary);
  bin.length = 4;
  t.columns.push_back(bin);
  ColumnDef vb = Col("vb", ColumnType::kVarBinary);
  vb.length = 300;
  t.columns.push_back(vb);
  for (ColumnType lob : {ColumnType::kTinyText, ColumnType::kText, ColumnType::kMediumText,
                         ColumnType::kLongText, ColumnType::kTinyBlob, ColumnType::kBlob,
                         ColumnType::kMediumBlob, ColumnType::kLongBlob}) {
    t.columns.push_back(Col(std::string(ColumnTypeName(lob)), lob));
  }
  t.columns.push_back(Col("date", ColumnType::kDate));
  ColumnDef tm = Col("time", ColumnType::kTime);
  tm.fsp = 6;
  t.columns.push_back(tm);
  ColumnDef dt = Col("datetime", ColumnType::kDateTime);
  dt.fsp = 6;
  t.columns.push_back(dt);
  ColumnDef ts = Col("ts", ColumnType::kTimestamp);
  ts.fsp = 3;
  t.columns.push_back(ts);
  t.columns.push_back(Col("year", ColumnType::kYear));
  ColumnDef en = Col("en", ColumnType::kEnum);
  en.enum_values = {"small", "medium", "large"};
  t.columns.push_back(en);
  EXPECT_TRUE(NormalizeTableDef(&t).ok());
  return t;
}

void ExpectRoundTrip(const TableDef& t, Row row) {
  ASSERT_TRUE(CheckRow(t, &row, 1).ok()) << CheckRow(t, &row, 1).ToString();
  Result<std::string> rec = EncodeRow(t, row);
  ASSERT_TRUE(rec.ok()) << rec.status().ToString();
  Result<Row> back = DecodeRow(t, *rec);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), row.size());
  for (size_t i = 0; i < row.size(); ++i) {
    EXPECT_EQ((*back)[i], row[i]) << "column " << t.columns[i].name;
  }
}

// AllTypes() rows at the low and high ends of every type.
Row LowRow() {
  return {int64_t{-128}, uint64_t{0}, int64_t{-32768}, uint64_t{0}, int64_t{-8388608}, uint64_t{0},
            int64_t{std::numeric_limits<int32_t>::min()}, uint64_t{0},
            std::numeric_limits<int64_t>::min(), uint64_t{0},
            std::string("-99999999999999999999999999999999999.999999999999999999999999999999"),
            double{-3.4028234663852886e38}, -std::numeric_limits<double>::max(),
            std::string(""), std::string(""), std::string("\0\0\0\0", 4), std::string(""),
            std::string(""), std::string(""), std::string(""), std::string(""),
            std::string(""), std::string(""), std::string(""), std::string(""),
            PackDate(1000, 1, 1), PackTime(true, 838, 59, 59, 0), PackDateTime(1000, 1, 1, 0, 0, 0, 0),
            int64_t{1000000}, uint64_t{1901}, uint64_t{1}};
}

Row HighRow() {
  return {int64_t{127}, uint64_t{255}, int64_t{32767}, uint64_t{65535}, int64_t{8388607},
            uint64_t{16777215}, int64_t{std::numeric_limits<int32_t>::max()},
            uint64_t{std::numeric_limits<uint32_t>::max()}, std::numeric_limits<int64_t>::max(),
            std::numeric_limits<uint64_t>::max(),
            std::string("99999999999999999999999999999999999.999999999999999999999999999999"),
            double{3.4028234663852886e38}, std::numeric_limits<double>::max(),
            std::string("ten chars!"), std::string("\xc3\xa9t\xc3\xa9 \xe2\x82\xac", 10),
            std::string("\x00\xff\x01\x02", 4), std::string(300, '\xff'), std::string(255, 'a'),
            std::string(65535, 'b'), std::string(70000, 'c'), std::string("y"), std::string(255, '\0'),
            std::string(65535, 'z'), std::string("\x00", 1), std::string("blob"),
            PackDate(9999, 12, 31), PackTime(false, 838, 59, 59, 0),
            PackDateTime(9999, 12, 31, 23, 59, 59, 999999), int64_t{2147483647LL * 1000000 + 999000},
            uint64_t{2155}, uint64_t{3}};
}

TEST(RowCodecTest, EveryTypeRoundTripsAtItsExtremes) {
  const TableDef t = AllTypes();
  const Row hi = HighRow();
  ExpectRoundTrip(t, LowRow());
  ExpectRoundTrip(t, hi);
  ExpectRoundTrip(t, Row(t.columns.size()));  // all NULL
  Row mixed = hi;
  for (size_t i = 0; i < mixed.size(); i += 2) mixed[i] = std::monostate{};
  ExpectRoundTrip(t, mixed);
}

// A scan decodes every row into one Row: whatever that Row held before
// (longer strings, NULLs, another table's wider row) must not show through.
TEST(RowCodecTest, DecodeIntoAReusedRowGivesEachRowAlone) {
  const TableDef t = AllTypes();
  Row mixed = HighRow();
  for (size_t i = 1; i < mixed.size(); i += 2) mixed[i] = std::monostate{};
  Row rows[] = {HighRow(), LowRow(), Row(t.columns.size()), mixed, HighRow()};
  Row into(t.columns.size() + 7, RowValue(std::string(100, 'x')));  // wider, all strings
  for (Row& row : rows) {
    ASSERT_TRUE(CheckRow(t, &row, 1).ok());
    Result<std::string> rec = EncodeRow(t, row);
    ASSERT_TRUE(rec.ok()) << rec.status().ToString();
    ASSERT_TRUE(DecodeRowInto(t, *rec, &into).ok());
    ASSERT_EQ(into.size(), row.size());
    for (size_t i = 0; i < row.size(); ++i) EXPECT_EQ(into[i], row[i]) << "column " << t.columns[i].name;
  }
  // A damaged record is an error, as DecodeRow's.
  Result<std::string> rec = EncodeRow(t, rows[0]);
  ASSERT_TRUE(rec.ok());
  EXPECT_FALSE(DecodeRowInto(t, std::string_view(*rec).substr(0, rec->size() - 1), &into).ok());
}

TEST(RowCodecTest, DateTimeSixDigitsRoundTrip) {
  const int64_t p = PackDateTime(2024, 2, 29, 13, 45, 7, 123456);
  DateTimeParts parts = UnpackDateTime(p);
  EXPECT_EQ(parts.year, 2024);
  EXPECT_EQ(parts.month, 2);
  EXPECT_EQ(parts.day, 29);
  EXPECT_EQ(parts.hour, 13);
  EXPECT_EQ(parts.minute, 45);
  EXPECT_EQ(parts.second, 7);
  EXPECT_EQ(parts.micros, 123456);
  DateTimeParts t = UnpackTime(PackTime(true, 12, 1, 2, 5));
  EXPECT_TRUE(t.negative);
  EXPECT_EQ(t.hour, 12);
  EXPECT_EQ(t.micros, 5);
}

TEST(RowCodecTest, CheckNormalizesDecimalAndFsp) {
  ColumnDef d = Col("d", ColumnType::kDecimal);
  d.precision = 5;
  d.scale = 2;
  RowValue v = std::string("-001.005");
  ASSERT_TRUE(CheckColumnValue(d, &v, 1).ok());
  EXPECT_EQ(std::get<std::string>(v), "-1.01");
  v = std::string("999.995");
  Status st = CheckColumnValue(d, &v, 3);
  EXPECT_EQ(st.mysql_errno(), 1264);
  EXPECT_EQ(st.message(), "Out of range value for column 'd' at row 3");
  v = std::string("-0.00");
  ASSERT_TRUE(CheckColumnValue(d, &v, 1).ok());
  EXPECT_EQ(std::get<std::string>(v), "0.00");

  ColumnDef dt = Col("dt", ColumnType::kDateTime);
  dt.fsp = 2;
  RowValue x = PackDateTime(2020, 1, 1, 0, 0, 0, 123456);
  ASSERT_TRUE(CheckColumnValue(dt, &x, 1).ok());
  EXPECT_EQ(std::get<int64_t>(x), PackDateTime(2020, 1, 1, 0, 0, 0, 120000));
}

TEST(RowCodecTest, StrictModeErrors) {
  ColumnDef i = Col("i", ColumnType::kInt);
  RowValue v = int64_t{2147483648LL};
  Status st = CheckColumnValue(i, &v, 7);
  EXPECT_EQ(st.mysql_errno(), 1264);
  EXPECT_EQ(st.message(), "Out of range value for column 'i' at row 7");
  ColumnDef u = Col("u", ColumnType::kBigInt, true);
  v = int64_t{-1};
  EXPECT_EQ(CheckColumnValue(u, &v, 1).mysql_errno(), 1264);
  v = int64_t{5};
  ASSERT_TRUE(CheckColumnValue(u, &v, 1).ok());
  EXPECT_EQ(v, RowValue(uint64_t{5}));  // moved to the column's signedness
  ColumnDef ti = Col("ti", ColumnType::kTinyInt, true);
  v = uint64_t{256};
  EXPECT_EQ(CheckColumnValue(ti, &v, 1).mysql_errno(), 1264);

  ColumnDef vc = Col("vc", ColumnType::kVarChar);
  vc.length = 3;
  vc.charset = "utf8mb4";
  v = std::string("\xc3\xa9\xc3\xa9\xc3\xa9");  // 3 characters, 6 bytes
  EXPECT_TRUE(CheckColumnValue(vc, &v, 1).ok());
  v = std::string("abcd");
  st = CheckColumnValue(vc, &v, 2);
  EXPECT_EQ(st.mysql_errno(), 1406);
  EXPECT_EQ(st.message(), "Data too long for column 'vc' at row 2");
  v = std::string("abc   ");  // excess trailing spaces are cut
  ASSERT_TRUE(CheckColumnValue(vc, &v, 1).ok());
  EXPECT_EQ(std::get<std::string>(v), "abc");
  ColumnDef tb = Col("tb", ColumnType::kTinyBlob);
  v = std::string(256, 'x');
  EXPECT_EQ(CheckColumnValue(tb, &v, 1).mysql_errno(), 1406);

  ColumnDef nn = Col("nn", ColumnType::kInt);
  nn.nullable = false;
  v = std::monostate{};
  st = CheckColumnValue(nn, &v, 1);
  EXPECT_EQ(st.mysql_errno(), 1048);
  EXPECT_EQ(st.message(), "Column 'nn' cannot be null");

  ColumnDef dt = Col("dt", ColumnType::kDate);
  v = PackDate(2023, 2, 29);
  EXPECT_EQ(CheckColumnValue(dt, &v, 1).mysql_errno(), 1264);
  ColumnDef yr = Col("y", ColumnType::kYear);
  v = uint64_t{1900};
  EXPECT_EQ(CheckColumnValue(yr, &v, 1).mysql_errno(), 1264);
  ColumnDef f = Col("f", ColumnType::kFloat);
  v = 1e39;
  EXPECT_EQ(CheckColumnValue(f, &v, 1).mysql_errno(), 1264);
  // Wrong C++ alternative is a caller bug, not a MySQL error.
  v = std::string("1");
  EXPECT_EQ(CheckColumnValue(i, &v, 1).code(), Status::Code::kInvalidArgument);
}

// ---- keys ----

TableDef OneKeyTable(ColumnDef c, bool desc = false, uint32_t prefix = 0) {
  TableDef t;
  t.schema = "db";
  t.name = "k";
  c.name = "k";
  t.columns.push_back(c);
  t.columns.push_back(Col("pk", ColumnType::kInt));
  IndexDef pk;
  pk.name = "PRIMARY";
  pk.kind = IndexKind::kClustered;
  pk.parts.push_back(KeyPart{"pk", 0, 0, false});
  t.indexes.push_back(pk);
  IndexDef sk;
  sk.name = "sk";
  sk.parts.push_back(KeyPart{"k", 0, prefix, desc});
  t.indexes.push_back(sk);
  EXPECT_TRUE(NormalizeTableDef(&t).ok());
  return t;
}

// Encodes each value as the secondary key (values sorted ascending) and
// checks the keys sort the same way.
void ExpectKeysSorted(const TableDef& t, const std::vector<RowValue>& ascending, bool desc = false) {
  std::vector<std::string> keys;
  for (const RowValue& v : ascending) {
    Row row = {v, int64_t{1}};
    auto k = EncodeIndexKey(t, t.indexes[1], row);
    ASSERT_TRUE(k.ok()) << k.status().ToString();
    keys.push_back(*k);
  }
  for (size_t i = 1; i < keys.size(); ++i) {
    if (desc) {
      EXPECT_GT(keys[i - 1], keys[i]) << "at " << i;
    } else {
      EXPECT_LT(keys[i - 1], keys[i]) << "at " << i;
    }
  }
}

TEST(KeyOrderTest, SignedIntegers) {
  for (ColumnType ty : {ColumnType::kTinyInt, ColumnType::kMediumInt, ColumnType::kBigInt}) {
    ColumnDef c = Col("k", ty);
    std::vector<RowValue> vals = {std::monostate{}, int64_t{-128}, int64_t{-1}, int64_t{0}, int64_t{1},
                                  int64_t{127}};
    if (ty == ColumnType::kBigInt) {
      vals.insert(vals.begin() + 1, std::numeric_limits<int64_t>::min());
      vals.push_back(std::numeric_limits<int64_t>::max());
    }
    ExpectKeysSorted(OneKeyTable(c), vals);
  }
}

TEST(KeyOrderTest, UnsignedIntegers) {
  ColumnDef c = Col("k", ColumnType::kBigInt, true);
  ExpectKeysSorted(OneKeyTable(c), {uint64_t{0}, uint64_t{1}, uint64_t{1} << 63,
                                    std::numeric_limits<uint64_t>::max()});
}

TEST(KeyOrderTest, DecimalsIncludingNegatives) {
  ColumnDef c = Col("k", ColumnType::kDecimal);
  c.precision = 65;
  c.scale = 30;
  ExpectKeysSorted(OneKeyTable(c),
                   {std::string("-99999999999999999999999999999999999.999999999999999999999999999999"),
                    std::string("-100.5"), std::string("-100.25"), std::string("-2"),
                    std::string("-0.000000000000000000000000000001"), std::string("0"),
                    std::string("0.000000000000000000000000000001"), std::string("1.5"),
                    std::string("10"), std::string("99999999999999999999999999999999999.9")});
  ColumnDef odd = Col("k", ColumnType::kDecimal);
  odd.precision = 5;
  odd.scale = 1;
  ExpectKeysSorted(OneKeyTable(odd), {std::string("-9999.9"), std::string("-0.1"), std::string("0"),
                                      std::string("0.1"), std::string("9999.9")});
}

TEST(KeyOrderTest, FloatsAndDoubles) {
  ExpectKeysSorted(OneKeyTable(Col("k", ColumnType::kDouble)),
                   {-1e300, -1.5, -1e-300, 0.0, 1e-300, 2.0, 1e300});
}

TEST(KeyOrderTest, BinaryStringsAndPrefixes) {
  ColumnDef c = Col("k", ColumnType::kVarBinary);
  c.length = 10;
  ExpectKeysSorted(OneKeyTable(c), {std::string(""), std::string("\x00", 1), std::string("\x00\x00", 2),
                                    std::string("\x00\x01", 2), std::string("a"), std::string("ab"),
                                    std::string("b"), std::string("\xff")});
}

TEST(KeyOrderTest, TemporalsYearEnum) {
  ColumnDef dt = Col("k", ColumnType::kDateTime);
  dt.fsp = 6;
  ExpectKeysSorted(OneKeyTable(dt), {PackDateTime(1000, 1, 1, 0, 0, 0, 0), PackDateTime(1999, 12, 31, 23, 59, 59, 999999),
                                     PackDateTime(2000, 1, 1, 0, 0, 0, 0), PackDateTime(2000, 1, 1, 0, 0, 0, 1)});
  ExpectKeysSorted(OneKeyTable(Col("k", ColumnType::kTime)),
                   {PackTime(true, 838, 0, 0, 0), PackTime(true, 0, 0, 1, 0), int64_t{0}, PackTime(false, 1, 0, 0, 0)});
  ExpectKeysSorted(OneKeyTable(Col("k", ColumnType::kYear)), {uint64_t{0}, uint64_t{1901}, uint64_t{2155}});
}

TEST(KeyOrderTest, DescendingPartReversesOrder) {
  ExpectKeysSorted(OneKeyTable(Col("k", ColumnType::kInt), /*desc=*/true),
                   {std::monostate{}, int64_t{-5}, int64_t{0}, int64_t{5}}, /*desc=*/true);
  ColumnDef s = Col("k", ColumnType::kVarBinary);
  s.length = 5;
  ExpectKeysSorted(OneKeyTable(s, true), {std::string(""), std::string("a"), std::string("ab")}, true);
}

TEST(KeyOrderTest, TextPrefixCountsCharacters) {
  TableDef t = OneKeyTable([] {
    ColumnDef c = Col("k", ColumnType::kText);
    c.charset = "utf8mb4";
    return c;
  }(), false, 2);
  Row a = {std::string("\xc3\xa9\xc3\xa9xyz"), int64_t{1}};
  Row b = {std::string("\xc3\xa9\xc3\xa9"), int64_t{1}};
  EXPECT_EQ(*EncodeIndexKey(t, t.indexes[1], a), *EncodeIndexKey(t, t.indexes[1], b));
}

ColumnDef TextCol(ColumnType type, std::string collation) {
  ColumnDef c = Col("k", type);
  c.length = 50;
  c.charset = "utf8mb4";
  c.collation = std::move(collation);
  return c;
}

std::string KeyOf(const TableDef& t, std::string v) {
  Row row = {std::move(v), int64_t{1}};
  auto k = EncodeIndexKey(t, t.indexes[1], row);
  EXPECT_TRUE(k.ok()) << k.status().ToString();
  return k.ok() ? *k : std::string();
}

TEST(KeyOrderTest, TextKeysCompareByTheColumnsCollation) {
  // utf8mb4_0900_ai_ci: case- and accent-insensitive, NO PAD.
  const TableDef ai = OneKeyTable(TextCol(ColumnType::kVarChar, "utf8mb4_0900_ai_ci"));
  EXPECT_EQ(KeyOf(ai, "Bob"), KeyOf(ai, "bob"));
  EXPECT_EQ(KeyOf(ai, "XYZ"), KeyOf(ai, "xyz"));
  EXPECT_EQ(KeyOf(ai, "r\xc3\xa9sum\xc3\xa9"), KeyOf(ai, "RESUME"));  // résumé
  EXPECT_NE(KeyOf(ai, "xyz "), KeyOf(ai, "xyz"));
  ExpectKeysSorted(ai, {std::string(""), std::string("a"), std::string("B"), std::string("b c"),
                        std::string("bc"), std::string("\xc3\xa9t\xc3\xa9"), std::string("Z")});
  // PAD SPACE: trailing spaces do not count.
  const TableDef general = OneKeyTable(TextCol(ColumnType::kVarChar, "utf8mb4_general_ci"));
  EXPECT_EQ(KeyOf(general, "xyz "), KeyOf(general, "XYZ"));
  const TableDef bin = OneKeyTable(TextCol(ColumnType::kVarChar, "utf8mb4_bin"));
  EXPECT_EQ(KeyOf(bin, "xyz  "), KeyOf(bin, "xyz"));
  EXPECT_NE(KeyOf(bin, "XYZ"), KeyOf(bin, "xyz"));
  // Case-sensitive and binary: distinct.
  const TableDef cs = OneKeyTable(TextCol(ColumnType::kVarChar, "utf8mb4_0900_as_cs"));
  EXPECT_NE(KeyOf(cs, "Bob"), KeyOf(cs, "bob"));
  ColumnDef vb = Col("k", ColumnType::kVarBinary);
  vb.length = 10;
  const TableDef binary = OneKeyTable(vb);
  EXPECT_NE(KeyOf(binary, "Bob"), KeyOf(binary, "bob"));
  EXPECT_NE(KeyOf(binary, "a "), KeyOf(binary, "a"));
  // A prefix index keeps characters, then collates; DESC reverses the order.
  const TableDef prefix = OneKeyTable(TextCol(ColumnType::kText, "utf8mb4_0900_ai_ci"), false, 3);
  EXPECT_EQ(KeyOf(prefix, "ABCdef"), KeyOf(prefix, "abcxyz"));
  ExpectKeysSorted(OneKeyTable(TextCol(ColumnType::kVarChar, ""), true),
                   {std::string("a"), std::string("B"), std::string("c")}, true);
}

TEST(KeyOrderTest, IndexesOfTheOldKeyFormatKeepStringBytes) {
  TableDef t = OneKeyTable(TextCol(ColumnType::kVarChar, "utf8mb4_0900_ai_ci"));
  t.indexes[1].key_format = kKeyFormatBytes;
  EXPECT_NE(KeyOf(t, "Bob"), KeyOf(t, "bob"));
  EXPECT_EQ(KeyOf(t, "xyz "), KeyOf(t, "xyz"));
  Row row = {std::string("xyz"), int64_t{1}};
  EXPECT_EQ(*EncodeIndexKey(t, t.indexes[1], row), KeyEncoder().NotNull().String("xyz").Release());
}

TEST(KeyTest, SecondaryEntryIsKeyThenPrimaryKey) {
  TableDef t = OneKeyTable(Col("k", ColumnType::kInt));
  Row row = {int64_t{7}, int64_t{42}};
  auto sk = EncodeIndexKey(t, t.indexes[1], row);
  auto pk = EncodeClusteredKey(t, row, 0);
  auto entry = EncodeSecondaryEntryKey(t, t.indexes[1], row, 0);
  ASSERT_TRUE(sk.ok() && pk.ok() && entry.ok());
  EXPECT_EQ(*entry, *sk + *pk);
  EXPECT_EQ(*pk, KeyEncoder().Int(42, 4).Release());  // NOT NULL pk: no marker
  EXPECT_EQ(*sk, KeyEncoder().NotNull().Int(7, 4).Release());
  // Entries with equal keys order by primary key.
  Row row2 = {int64_t{7}, int64_t{43}};
  EXPECT_LT(*entry, *EncodeSecondaryEntryKey(t, t.indexes[1], row2, 0));
}

TEST(KeyTest, IndexKeyLengthFindsWhereTheClusteredKeyStarts) {
  TableDef t = AllTypes();
  // Every column in some index (at most 16 parts each), some parts DESC,
  // TEXT/BLOB parts with a prefix.
  t.indexes.clear();
  for (uint32_t first = 0; first < t.columns.size(); first += 16) {
    IndexDef idx;
    idx.name = "i" + std::to_string(first);
    for (uint32_t i = first; i < std::min<size_t>(first + 16, t.columns.size()); ++i) {
      const bool lob = IsBlobOrText(t.columns[i].type);
      idx.parts.push_back(KeyPart{t.columns[i].name, i, lob ? 10u : 0u, /*desc=*/i % 3 == 1});
    }
    t.indexes.push_back(idx);
  }
  Status normalized = NormalizeTableDef(&t);
  ASSERT_TRUE(normalized.ok()) << normalized.ToString();
  Row mixed = HighRow();
  for (size_t i = 0; i < mixed.size(); i += 2) mixed[i] = std::monostate{};
  for (Row row : {LowRow(), HighRow(), Row(t.columns.size()), mixed}) {
    ASSERT_TRUE(CheckRow(t, &row, 1).ok());
    for (size_t i = 1; i < t.indexes.size(); ++i) {
      const IndexDef& idx = t.indexes[i];
      Result<std::string> key = EncodeIndexKey(t, idx, row);
      ASSERT_TRUE(key.ok()) << key.status().ToString();
      const std::string pk("\x00\x01\x00\xff pk", 7);  // looks like key bytes on purpose
      Result<size_t> n = IndexKeyLength(t, idx, *key + pk);
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      EXPECT_EQ(*n, key->size()) << idx.name;
      EXPECT_TRUE(IndexKeyLength(t, idx, key->substr(0, key->size() - 1)).status().IsCorruption());
    }
  }
}

TEST(KeyTest, HiddenRowIdTables) {
  TableDef t;
  t.schema = "db";
  t.name = "h";
  t.columns.push_back(Col("a", ColumnType::kInt));
  IndexDef sk;
  sk.name = "a";
  sk.parts.push_back(KeyPart{"a", 0, 0, false});
  t.indexes.push_back(sk);
  ASSERT_TRUE(NormalizeTableDef(&t).ok());
  ASSERT_TRUE(t.has_hidden_row_id());
  Row row = {int64_t{3}};
  auto pk = EncodeClusteredKey(t, row, 0x0102030405ull);
  ASSERT_TRUE(pk.ok());
  EXPECT_EQ(*pk, std::string("\x00\x01\x02\x03\x04\x05", 6));
  auto entry = EncodeSecondaryEntryKey(t, t.indexes[1], row, 0x0102030405ull);
  ASSERT_TRUE(entry.ok());
  EXPECT_EQ(*entry, KeyEncoder().NotNull().Int(3, 4).RowId(0x0102030405ull).Release());
  EXPECT_FALSE(EncodeClusteredKey(t, row, uint64_t{1} << 48).ok());
}

}  // namespace
}  // namespace sluice::storage
