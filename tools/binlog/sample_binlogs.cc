// Sample binlog files for sluice-binlog's tests (see sample_binlogs.h).
#include "tools/binlog/sample_binlogs.h"

#include <fstream>
#include <utility>

#include "binlog/bytes_internal.h"
#include "binlog/event.h"
#include "binlog/event_internal.h"
#include "binlog/gtid.h"
#include "binlog/row_event.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"

namespace sluice::tools {
namespace {

using binlog::Checksum;
using binlog::EventHeader;
using storage::ColumnDef;
using storage::ColumnType;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

constexpr uint32_t kServerId = 1;
constexpr uint32_t kT0 = 1700000000;  // 2023-11-14 22:13:20 UTC

binlog::Uuid Sid(const char* text) { return *binlog::Uuid::Parse(text); }

ColumnDef Col(const char* name, ColumnType type, bool nullable = true) {
  ColumnDef c;
  c.name = name;
  c.type = type;
  c.nullable = nullable;
  return c;
}

// A table with most of the engine's column types.
Result<TableDef> ItemsTable() {
  TableDef t;
  t.schema = "shop";
  t.name = "items";
  t.columns.push_back(Col("id", ColumnType::kInt, false));
  t.columns.push_back(Col("tiny", ColumnType::kTinyInt));
  ColumnDef small = Col("small", ColumnType::kSmallInt);
  small.is_unsigned = true;
  t.columns.push_back(small);
  t.columns.push_back(Col("med", ColumnType::kMediumInt));
  t.columns.push_back(Col("big", ColumnType::kBigInt));
  ColumnDef price = Col("price", ColumnType::kDecimal);
  price.precision = 10;
  price.scale = 2;
  t.columns.push_back(price);
  t.columns.push_back(Col("f", ColumnType::kFloat));
  t.columns.push_back(Col("d", ColumnType::kDouble));
  ColumnDef code = Col("code", ColumnType::kChar);
  code.length = 8;
  t.columns.push_back(code);
  ColumnDef name = Col("name", ColumnType::kVarChar);
  name.length = 64;
  t.columns.push_back(name);
  ColumnDef bin = Col("bin", ColumnType::kBinary);
  bin.length = 4;
  t.columns.push_back(bin);
  ColumnDef vb = Col("vb", ColumnType::kVarBinary);
  vb.length = 300;  // 2-byte length prefix
  t.columns.push_back(vb);
  t.columns.push_back(Col("note", ColumnType::kText));
  t.columns.push_back(Col("data", ColumnType::kBlob));
  t.columns.push_back(Col("day", ColumnType::kDate));
  ColumnDef tm = Col("tm", ColumnType::kTime);
  tm.fsp = 3;
  t.columns.push_back(tm);
  ColumnDef at = Col("at", ColumnType::kDateTime);
  at.fsp = 6;
  t.columns.push_back(at);
  t.columns.push_back(Col("ts", ColumnType::kTimestamp));
  t.columns.push_back(Col("yr", ColumnType::kYear));
  ColumnDef color = Col("color", ColumnType::kEnum);
  color.enum_values = {"red", "green", "blue"};
  t.columns.push_back(color);
  storage::IndexDef pk;
  pk.name = std::string(storage::kPrimaryKeyName);
  pk.kind = storage::IndexKind::kClustered;
  pk.unique = true;
  pk.parts.push_back(storage::KeyPart{.column_name = "id"});
  t.indexes.push_back(pk);
  SLUICE_RETURN_IF_ERROR(storage::NormalizeTableDef(&t));
  return t;
}

Row ItemRow(int64_t id, int variant) {
  using storage::PackDate;
  using storage::PackDateTime;
  using storage::PackTime;
  if (variant == 0) {
    return Row{RowValue(id), RowValue(int64_t{-5}), RowValue(uint64_t{65535}), RowValue(int64_t{-8388608}),
               RowValue(int64_t{-9000000000000000000}), RowValue(std::string("1234.56")), RowValue(1.5),
               RowValue(-2.25), RowValue(std::string("AB")), RowValue(std::string("it's a \"name\"\\")),
               RowValue(std::string("\x01\x00\xff\x7f", 4)), RowValue(std::string("vb\n\t")),
               RowValue(std::string("some text")), RowValue(std::string("\x00\x01\x02", 3)),
               RowValue(PackDate(2024, 1, 2)), RowValue(PackTime(false, 12, 34, 56, 789000)),
               RowValue(PackDateTime(2024, 2, 29, 23, 59, 58, 123456)), RowValue(int64_t{1700000000} * 1000000),
               RowValue(uint64_t{2024}), RowValue(uint64_t{2})};
  }
  if (variant == 1) {  // NULLs everywhere they may be
    Row r(20, RowValue(std::monostate{}));
    r[0] = RowValue(id);
    return r;
  }
  return Row{RowValue(id), RowValue(int64_t{127}), RowValue(uint64_t{0}), RowValue(int64_t{8388607}),
             RowValue(int64_t{42}), RowValue(std::string("-0.01")), RowValue(0.0), RowValue(1e100),
             RowValue(std::string("")), RowValue(std::string("")), RowValue(std::string("\0\0\0\0", 4)),
             RowValue(std::string("")), RowValue(std::string(300, 'x')), RowValue(std::string("")),
             RowValue(PackDate(1999, 12, 31)), RowValue(PackTime(true, 838, 59, 59, 0)),
             RowValue(PackDateTime(1000, 1, 1, 0, 0, 0, 0)), RowValue(int64_t{1} * 1000000),
             RowValue(uint64_t{0}), RowValue(uint64_t{3})};
}

// A small table without a PRIMARY KEY.
Result<TableDef> LogTable() {
  TableDef t;
  t.schema = "shop";
  t.name = "log";
  t.columns.push_back(Col("n", ColumnType::kBigInt, false));
  ColumnDef msg = Col("msg", ColumnType::kVarChar);
  msg.length = 200;
  t.columns.push_back(msg);
  SLUICE_RETURN_IF_ERROR(storage::NormalizeTableDef(&t));
  return t;
}

class FileBuilder {
 public:
  FileBuilder(Checksum checksum, const binlog::GtidSet& previous, bool in_use) : checksum_(checksum) {
    bytes_.assign(binlog::kBinlogMagic, 4);
    EventHeader fde{.timestamp = kT0, .type = binlog::kFormatDescriptionEvent, .server_id = kServerId};
    std::string ev = binlog::EncodeFormatDescription(fde, "8.0.36-sluice", kT0, checksum);
    Place(ev, Checksum::kCrc32);  // the FDE always carries a CRC
    if (in_use) ev[17] = static_cast<char>(ev[17] | binlog::kLogEventBinlogInUse);  // set after the CRC, as MySQL
    bytes_ += ev;
    EventHeader prev{.timestamp = kT0, .type = binlog::kPreviousGtidsEvent, .server_id = kServerId};
    Add(binlog::EncodePreviousGtids(prev, previous, checksum));
  }

  Checksum checksum() const { return checksum_; }
  uint32_t Now() { return kT0 + (clock_ += 7); }
  EventHeader H(uint8_t type) { return EventHeader{.timestamp = Now(), .type = type, .server_id = kServerId}; }

  void Add(std::string ev) {
    Place(ev, checksum_);
    bytes_ += ev;
  }

  // Gtid (or Anonymous_gtid when `sid` is null) then `body`.
  void AddTransaction(const binlog::Uuid* sid, int64_t gno, const std::vector<std::string>& body) {
    binlog::GtidInfo g;
    g.anonymous = sid == nullptr;
    if (sid != nullptr) g.sid = *sid;
    g.gno = sid != nullptr ? gno : 0;
    ++sequence_;
    g.last_committed = sequence_ - 1;
    g.sequence_number = sequence_;
    g.immediate_commit_timestamp = (uint64_t{kT0} + clock_) * 1000000 + 123456;
    g.original_commit_timestamp = g.immediate_commit_timestamp;
    uint64_t body_bytes = 0;
    for (const auto& e : body) body_bytes += e.size();
    // transaction_length includes the Gtid event, whose size depends on it.
    g.transaction_length = body_bytes;
    for (int i = 0; i < 3; ++i) g.transaction_length = body_bytes + binlog::GtidEventSize(g, checksum_);
    EventHeader h = H(sid != nullptr ? binlog::kGtidEvent : binlog::kAnonymousGtidEvent);
    // The body was built first: keep the file's timestamps in order.
    if (!body.empty()) h.timestamp = static_cast<uint32_t>(binlog::internal::LoadLE(body.front().data(), 4));
    Add(binlog::EncodeGtid(h, g, checksum_));
    for (const auto& e : body) Add(e);
  }

  std::string Query(const std::string& db, const std::string& sql, bool ddl = false, uint64_t xid = 0) {
    binlog::QueryInfo q;
    q.thread_id = 8;
    q.db = db;
    q.query = sql;
    q.sql_mode = 1168113696;
    q.ddl = ddl;
    if (ddl) q.ddl_xid = xid;
    return binlog::EncodeQuery(H(binlog::kQueryEvent), q, checksum_);
  }
  std::string Xid(uint64_t xid) { return binlog::EncodeXid(H(binlog::kXidEvent), xid, checksum_); }
  std::string TableMap(uint64_t id, const TableDef& t) {
    return binlog::EncodeTableMap(H(binlog::kTableMapEvent), id, t, binlog::RowMetadata::kMinimal, checksum_);
  }
  std::string RowsQuery(const std::string& sql) {
    std::string body(1, static_cast<char>(std::min<size_t>(sql.size(), 255)));
    body += sql;
    EventHeader h = H(binlog::kRowsQueryEvent);
    h.flags = binlog::kLogEventIgnorable;
    return binlog::internal::FinishEvent(h, body, checksum_);
  }
  // The rows events of one statement.
  Result<std::vector<std::string>> Rows(uint8_t type, uint64_t id, const TableDef& t,
                                        const std::vector<std::pair<Row, Row>>& rows, size_t max_bytes = 8192) {
    binlog::RowsEventBuilder b(H(type), type, id, t, binlog::RowImage::kFull, checksum_, max_bytes);
    for (const auto& [before, after] : rows) {
      SLUICE_RETURN_IF_ERROR(b.AddRow(type == binlog::kWriteRowsEvent ? nullptr : &before,
                                      type == binlog::kDeleteRowsEvent ? nullptr : &after));
    }
    return b.Finish(true);
  }

  void AddRotate(const std::string& next) {
    Add(binlog::EncodeRotate(H(binlog::kRotateEvent), 4, next, checksum_));
  }
  void AddStop() { Add(binlog::EncodeStop(H(binlog::kStopEvent), checksum_)); }

  Status WriteTo(const std::string& path) const {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes_.data(), static_cast<std::streamsize>(bytes_.size()));
    out.close();
    if (!out) return Status::IOError("cannot write " + path);
    return Status::OK();
  }

 private:
  void Place(std::string& ev, Checksum checksum) {
    binlog::PatchLogPos(ev.data(), static_cast<uint32_t>(bytes_.size() + ev.size()), checksum);
  }

  Checksum checksum_;
  std::string bytes_;
  uint32_t clock_ = 0;
  int64_t sequence_ = 0;
};

void Append(std::vector<std::string>& to, std::vector<std::string> more) {
  for (auto& e : more) to.push_back(std::move(e));
}

}  // namespace

Result<std::vector<std::string>> WriteSampleBinlogs(const std::string& dir) {
  auto items_or = ItemsTable();
  if (!items_or.ok()) return items_or.status();
  const TableDef& items = *items_or;
  auto log_or = LogTable();
  if (!log_or.ok()) return log_or.status();
  const TableDef& log = *log_or;
  const binlog::Uuid sid = Sid("3e11fa47-71ca-11e1-9e33-c80aa9429562");
  const binlog::Uuid other = Sid("0b9f7f5a-0b0e-11ef-8f6d-0242ac120002");
  std::vector<std::string> paths;

  // ---- binlog.000001 ----
  {
    FileBuilder f(Checksum::kCrc32, binlog::GtidSet(), /*in_use=*/false);
    f.AddTransaction(&sid, 1,
                     {f.Query("shop",
                              "CREATE TABLE items (id INT PRIMARY KEY, tiny TINYINT, small SMALLINT UNSIGNED, "
                              "med MEDIUMINT, big BIGINT, price DECIMAL(10,2), f FLOAT, d DOUBLE, code CHAR(8), "
                              "name VARCHAR(64), bin BINARY(4), vb VARBINARY(300), note TEXT, data BLOB, day DATE, "
                              "tm TIME(3), at DATETIME(6), ts TIMESTAMP, yr YEAR, color ENUM('red','green','blue'))",
                              /*ddl=*/true, 10)});
    std::vector<std::string> trx = {f.Query("shop", "BEGIN"), f.TableMap(92, items)};
    auto ins = f.Rows(binlog::kWriteRowsEvent, 92, items,
                      {{Row(), ItemRow(1, 0)}, {Row(), ItemRow(2, 1)}, {Row(), ItemRow(3, 2)}});
    if (!ins.ok()) return ins.status();
    Append(trx, std::move(*ins));
    trx.push_back(f.Xid(11));
    f.AddTransaction(&sid, 2, trx);

    trx = {f.Query("shop", "BEGIN"), f.TableMap(92, items)};
    auto upd = f.Rows(binlog::kUpdateRowsEvent, 92, items,
                      {{ItemRow(1, 0), ItemRow(1, 2)}, {ItemRow(2, 1), ItemRow(2, 0)}});
    if (!upd.ok()) return upd.status();
    Append(trx, std::move(*upd));
    trx.push_back(f.Xid(12));
    f.AddTransaction(&sid, 3, trx);

    // A DELETE of many rows: several rows events, STMT_END_F on the last.
    trx = {f.Query("shop", "BEGIN"), f.TableMap(92, items)};
    std::vector<std::pair<Row, Row>> many;
    for (int64_t i = 100; i < 140; ++i) many.push_back({ItemRow(i, static_cast<int>(i % 3)), Row()});
    auto del = f.Rows(binlog::kDeleteRowsEvent, 92, items, many, 1024);
    if (!del.ok()) return del.status();
    Append(trx, std::move(*del));
    trx.push_back(f.Xid(13));
    f.AddTransaction(&sid, 4, trx);

    // Two tables in one transaction, two statements.
    trx = {f.Query("shop", "BEGIN"), f.TableMap(92, items)};
    auto ins2 = f.Rows(binlog::kWriteRowsEvent, 92, items, {{Row(), ItemRow(5, 0)}});
    if (!ins2.ok()) return ins2.status();
    Append(trx, std::move(*ins2));
    trx.push_back(f.TableMap(93, log));
    auto ins3 = f.Rows(binlog::kWriteRowsEvent, 93, log,
                       {{Row(), Row{RowValue(int64_t{1}), RowValue(std::string("one"))}},
                        {Row(), Row{RowValue(int64_t{2}), RowValue(std::monostate{})}}});
    if (!ins3.ok()) return ins3.status();
    Append(trx, std::move(*ins3));
    trx.push_back(f.Xid(14));
    f.AddTransaction(&sid, 5, trx);
    f.AddRotate("binlog.000002");
    paths.push_back(dir + "/binlog.000001");
    SLUICE_RETURN_IF_ERROR(f.WriteTo(paths.back()));
  }

  // ---- binlog.000002 ----
  {
    binlog::GtidSet previous;
    previous.AddInterval(sid, 1, 5);
    previous.AddInterval(other, 1, 3);
    previous.Add(other, 7);
    FileBuilder f(Checksum::kCrc32, previous, /*in_use=*/false);
    std::vector<std::string> trx = {f.Query("shop", "BEGIN"),
                                    f.RowsQuery("INSERT INTO log VALUES (10, 'ten'),\n  (11, REPEAT('y', 180))"),
                                    f.TableMap(93, log)};
    auto ins = f.Rows(binlog::kWriteRowsEvent, 93, log,
                      {{Row(), Row{RowValue(int64_t{10}), RowValue(std::string("ten"))}},
                       {Row(), Row{RowValue(int64_t{11}), RowValue(std::string(180, 'y'))}}});
    if (!ins.ok()) return ins.status();
    Append(trx, std::move(*ins));
    trx.push_back(f.Xid(21));
    f.AddTransaction(&sid, 6, trx);

    trx = {f.Query("", "BEGIN"), f.TableMap(93, log)};
    auto upd = f.Rows(binlog::kUpdateRowsEvent, 93, log,
                      {{Row{RowValue(int64_t{10}), RowValue(std::string("ten"))},
                        Row{RowValue(int64_t{-10}), RowValue(std::monostate{})}}});
    if (!upd.ok()) return upd.status();
    Append(trx, std::move(*upd));
    auto del = f.Rows(binlog::kDeleteRowsEvent, 93, log,
                      {{Row{RowValue(int64_t{11}), RowValue(std::string(180, 'y'))}, Row()}});
    if (!del.ok()) return del.status();
    trx.push_back(f.TableMap(93, log));
    Append(trx, std::move(*del));
    trx.push_back(f.Xid(22));
    f.AddTransaction(&other, 8, trx);
    f.AddTransaction(&sid, 7, {f.Query("shop", "DROP TABLE log", /*ddl=*/true, 23)});
    f.AddStop();
    paths.push_back(dir + "/binlog.000002");
    SLUICE_RETURN_IF_ERROR(f.WriteTo(paths.back()));
  }

  // ---- binlog.000003: checksum NONE, anonymous, still open ----
  {
    FileBuilder f(Checksum::kOff, binlog::GtidSet(), /*in_use=*/true);
    f.AddTransaction(nullptr, 0, {f.Query("shop", "CREATE DATABASE other", /*ddl=*/true, 31)});
    std::vector<std::string> trx = {f.Query("shop", "BEGIN"), f.TableMap(94, items)};
    auto ins = f.Rows(binlog::kWriteRowsEvent, 94, items, {{Row(), ItemRow(7, 0)}, {Row(), ItemRow(8, 2)}});
    if (!ins.ok()) return ins.status();
    Append(trx, std::move(*ins));
    trx.push_back(f.Xid(32));
    f.AddTransaction(nullptr, 0, trx);
    paths.push_back(dir + "/binlog.000003");
    SLUICE_RETURN_IF_ERROR(f.WriteTo(paths.back()));
  }
  return paths;
}

}  // namespace sluice::tools
