#include "exec/binlog_statements.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "binlog/binlog.h"
#include "binlog/event.h"
#include "sql/parser.h"

namespace sluice::exec {
namespace {

namespace fs = std::filesystem;
using Row = std::vector<std::optional<std::string>>;

constexpr char kUuid[] = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

std::vector<std::string> ColumnNames(const ResultSet& rs) {
  std::vector<std::string> names;
  for (const auto& c : rs.columns) names.push_back(c.name);
  return names;
}

std::string Cell(const Row& row, size_t i) { return row.at(i).value_or("NULL"); }

// Parses one statement of type T (the text as a client sends it).
template <typename T>
std::unique_ptr<T> Parse(std::string_view q) {
  auto r = sql::ParseAll(q);
  EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  if (!r.ok() || r->size() != 1) return nullptr;
  return std::unique_ptr<T>(static_cast<T*>((*r)[0].stmt.release()));
}

TEST(BinlogStatementsTest, LogBinOff) {
  Result<ResultSet> logs = ShowBinaryLogs(nullptr);
  ASSERT_FALSE(logs.ok());
  EXPECT_EQ(logs.status().mysql_errno(), 1381);
  EXPECT_EQ(logs.status().message(), "You are not using binary logging");

  ResultSet status = ShowMasterStatus(nullptr);
  EXPECT_EQ(ColumnNames(status),
            (std::vector<std::string>{"File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set"}));
  EXPECT_TRUE(status.rows.empty());

  auto show = Parse<sql::ShowStmt>("SHOW BINLOG EVENTS");
  Result<ResultSet> events = ShowBinlogEvents(nullptr, *show);
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(ColumnNames(*events),
            (std::vector<std::string>{"Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info"}));
  EXPECT_TRUE(events->rows.empty());

  auto purge = Parse<sql::PurgeBinaryLogsStmt>("PURGE BINARY LOGS TO 'binlog.000001'");
  EXPECT_TRUE(PurgeBinaryLogs(nullptr, *purge).ok());
  EXPECT_TRUE(ResetMaster(nullptr, std::nullopt).ok());
}

class BinlogStatementsFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sluice_binlog_statements_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    binlog::Binlog::Options o;
    o.dir = dir_.string();
    o.server_id = 7;
    o.server_uuid = binlog::Uuid::Parse(kUuid).value();
    binlog::Binlog::RecoveryInfo recovery;
    auto opened = binlog::Binlog::Open(o, &recovery);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    binlog_ = std::move(opened).value();
    ASSERT_TRUE(binlog_->StartWriting().ok());
  }
  void TearDown() override {
    if (binlog_) (void)binlog_->Close();
    binlog_.reset();
    fs::remove_all(dir_);
  }

  // Commits BEGIN; `query`; Xid.
  void CommitTransaction(const std::string& query) {
    const binlog::Checksum c = binlog_->checksum();
    binlog::EventHeader h;
    h.timestamp = 1700000000;
    h.server_id = 7;
    binlog::QueryInfo q;
    q.db = "test";
    q.query = "BEGIN";
    binlog::TransactionCache cache;
    cache.set_checksum(c);
    ASSERT_TRUE(cache.Append(binlog::EncodeQuery(h, q, c)).ok());
    q.query = query;
    ASSERT_TRUE(cache.Append(binlog::EncodeQuery(h, q, c)).ok());
    ASSERT_TRUE(cache.Append(binlog::EncodeXid(h, binlog_->NextXid(), c)).ok());
    Status st = binlog_->Commit(cache, h.timestamp);
    ASSERT_TRUE(st.ok()) << st.ToString();
    binlog_->CommitDone();
  }

  Result<ResultSet> Events(std::string_view q) {
    auto show = Parse<sql::ShowStmt>(q);
    if (show == nullptr) return Status::InvalidArgument("bad test statement");
    uint64_t limit = UINT64_MAX, offset = 0;
    if (show->limit) limit = static_cast<uint64_t>(show->limit->value.int_value());
    if (show->offset) offset = static_cast<uint64_t>(show->offset->value.int_value());
    return ShowBinlogEvents(binlog_.get(), *show, limit, offset);
  }

  fs::path dir_;
  std::unique_ptr<binlog::Binlog> binlog_;
};

TEST_F(BinlogStatementsFileTest, ShowBinaryLogsAndMasterStatus) {
  CommitTransaction("INSERT INTO t VALUES (1)");
  CommitTransaction("INSERT INTO t VALUES (2)");
  auto [file, position] = binlog_->CurrentPosition();
  EXPECT_EQ(file, "binlog.000001");

  Result<ResultSet> logs = ShowBinaryLogs(binlog_.get());
  ASSERT_TRUE(logs.ok());
  EXPECT_EQ(ColumnNames(*logs), (std::vector<std::string>{"Log_name", "File_size", "Encrypted"}));
  ASSERT_EQ(logs->rows.size(), 1u);
  EXPECT_EQ(logs->rows[0], (Row{"binlog.000001", std::to_string(position), "No"}));

  ResultSet status = ShowMasterStatus(binlog_.get());
  ASSERT_EQ(status.rows.size(), 1u);
  EXPECT_EQ(status.rows[0], (Row{"binlog.000001", std::to_string(position), "", "", std::string(kUuid) + ":1-2"}));

  ASSERT_TRUE(binlog_->Rotate().ok());
  logs = ShowBinaryLogs(binlog_.get());
  ASSERT_TRUE(logs.ok());
  ASSERT_EQ(logs->rows.size(), 2u);
  EXPECT_EQ(Cell(logs->rows[0], 0), "binlog.000001");
  EXPECT_EQ(Cell(logs->rows[0], 1), std::to_string(fs::file_size(dir_ / "binlog.000001")));
  EXPECT_EQ(Cell(logs->rows[1], 0), "binlog.000002");
  EXPECT_EQ(Cell(logs->rows[1], 1), std::to_string(binlog_->CurrentPosition().second));
  status = ShowMasterStatus(binlog_.get());
  EXPECT_EQ(Cell(status.rows[0], 0), "binlog.000002");
  EXPECT_EQ(Cell(status.rows[0], 4), std::string(kUuid) + ":1-2");
}

TEST_F(BinlogStatementsFileTest, ShowBinlogEventsListsEveryEventInOrder) {
  CommitTransaction("INSERT INTO t VALUES (1)");
  Result<ResultSet> all = Events("SHOW BINLOG EVENTS");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  // Format_desc, Previous_gtids, then Gtid, Query BEGIN, Query, Xid.
  ASSERT_EQ(all->rows.size(), 6u);
  const std::vector<std::string> types = {"Format_desc", "Previous_gtids", "Gtid", "Query", "Query", "Xid"};
  uint64_t pos = 4;
  for (size_t i = 0; i < all->rows.size(); ++i) {
    const Row& r = all->rows[i];
    EXPECT_EQ(Cell(r, 0), "binlog.000001");
    EXPECT_EQ(Cell(r, 1), std::to_string(pos)) << i;
    EXPECT_EQ(Cell(r, 2), types[i]) << i;
    EXPECT_EQ(Cell(r, 3), "7") << i;
    pos = std::stoull(Cell(r, 4));
  }
  EXPECT_EQ(Cell(all->rows[1], 1), "126");  // after the 122-byte Format_description
  EXPECT_EQ(pos, binlog_->CurrentPosition().second);
  EXPECT_EQ(Cell(all->rows[3], 5), "BEGIN");
  EXPECT_EQ(Cell(all->rows[5], 5).rfind("COMMIT /* xid=", 0), 0u) << Cell(all->rows[5], 5);
  EXPECT_EQ(Cell(all->rows[2], 5), std::string("SET @@SESSION.GTID_NEXT= '") + kUuid + ":1'");

  // IN the first file names the same; LIMIT [offset,] count.
  Result<ResultSet> in = Events("SHOW BINLOG EVENTS IN 'binlog.000001'");
  ASSERT_TRUE(in.ok());
  EXPECT_EQ(in->rows, all->rows);
  Result<ResultSet> limited = Events("SHOW BINLOG EVENTS LIMIT 2, 3");
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->rows, (std::vector<Row>{all->rows[2], all->rows[3], all->rows[4]}));
  Result<ResultSet> first = Events("SHOW BINLOG EVENTS LIMIT 1");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->rows, (std::vector<Row>{all->rows[0]}));
  Result<ResultSet> none = Events("SHOW BINLOG EVENTS LIMIT 0");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->rows.empty());

  // FROM an event's start; FROM 0..3 is FROM 4, as mysqld.
  Result<ResultSet> from = Events("SHOW BINLOG EVENTS FROM " + Cell(all->rows[3], 1) + " LIMIT 1, 1");
  ASSERT_TRUE(from.ok());
  EXPECT_EQ(from->rows, (std::vector<Row>{all->rows[4]}));
  Result<ResultSet> from0 = Events("SHOW BINLOG EVENTS FROM 0");
  ASSERT_TRUE(from0.ok());
  EXPECT_EQ(from0->rows, all->rows);
  // FROM the end: nothing.
  Result<ResultSet> at_end = Events("SHOW BINLOG EVENTS FROM " + std::to_string(pos));
  ASSERT_TRUE(at_end.ok()) << at_end.status().ToString();
  EXPECT_TRUE(at_end->rows.empty());
}

TEST_F(BinlogStatementsFileTest, ShowBinlogEventsErrors) {
  CommitTransaction("INSERT INTO t VALUES (1)");
  const uint64_t end = binlog_->CurrentPosition().second;
  auto expect_error = [&](const std::string& q, const std::string& why) {
    Result<ResultSet> r = Events(q);
    ASSERT_FALSE(r.ok()) << q;
    EXPECT_EQ(r.status().mysql_errno(), 1220) << q;
    EXPECT_EQ(r.status().sqlstate(), "HY000") << q;
    EXPECT_EQ(r.status().message(), "Error when executing command SHOW BINLOG EVENTS: " + why) << q;
  };
  expect_error("SHOW BINLOG EVENTS IN 'binlog.000009'", "Could not find target log");
  expect_error("SHOW BINLOG EVENTS IN 'nonsense'", "Could not find target log");
  expect_error("SHOW BINLOG EVENTS FROM 5", "Wrong offset or I/O error");
  expect_error("SHOW BINLOG EVENTS FROM 127", "Wrong offset or I/O error");
  expect_error("SHOW BINLOG EVENTS FROM " + std::to_string(end - 1), "Wrong offset or I/O error");
  expect_error("SHOW BINLOG EVENTS FROM " + std::to_string(end + 1), "Wrong offset or I/O error");
  expect_error("SHOW BINLOG EVENTS FROM 100000000", "Wrong offset or I/O error");
  // A directory part is dropped, as mysqld.
  Result<ResultSet> r = Events("SHOW BINLOG EVENTS IN '/elsewhere/binlog.000001' LIMIT 1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 1u);
}

TEST_F(BinlogStatementsFileTest, ShowBinlogEventsAcrossRotation) {
  CommitTransaction("INSERT INTO t VALUES (1)");
  ASSERT_TRUE(binlog_->Rotate().ok());
  CommitTransaction("INSERT INTO t VALUES (2)");

  Result<ResultSet> first = Events("SHOW BINLOG EVENTS IN 'binlog.000001'");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_FALSE(first->rows.empty());
  const Row& rotate = first->rows.back();
  EXPECT_EQ(Cell(rotate, 2), "Rotate");
  EXPECT_EQ(Cell(rotate, 5), "binlog.000002;pos=4");
  EXPECT_EQ(Cell(rotate, 4), std::to_string(fs::file_size(dir_ / "binlog.000001")));

  Result<ResultSet> second = Events("SHOW BINLOG EVENTS IN 'binlog.000002'");
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->rows.size(), 6u);
  EXPECT_EQ(Cell(second->rows[0], 0), "binlog.000002");
  EXPECT_EQ(Cell(second->rows[1], 5), std::string(kUuid) + ":1");  // Previous_gtids
  EXPECT_EQ(Cell(second->rows[2], 5), std::string("SET @@SESSION.GTID_NEXT= '") + kUuid + ":2'");
  EXPECT_EQ(Cell(second->rows.back(), 4), std::to_string(binlog_->CurrentPosition().second));

  // No IN: the first file in the index.
  Result<ResultSet> plain = Events("SHOW BINLOG EVENTS");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->rows, first->rows);
}

TEST_F(BinlogStatementsFileTest, PurgeAndReset) {
  CommitTransaction("INSERT INTO t VALUES (1)");
  ASSERT_TRUE(binlog_->Rotate().ok());
  CommitTransaction("INSERT INTO t VALUES (2)");
  ASSERT_TRUE(binlog_->Rotate().ok());

  auto unknown = Parse<sql::PurgeBinaryLogsStmt>("PURGE BINARY LOGS TO 'binlog.000042'");
  Status st = PurgeBinaryLogs(binlog_.get(), *unknown);
  EXPECT_EQ(st.mysql_errno(), 1373);
  EXPECT_EQ(st.message(), "Target log not found in binlog index");

  auto to = Parse<sql::PurgeBinaryLogsStmt>("PURGE MASTER LOGS TO 'binlog.000002'");
  ASSERT_TRUE(PurgeBinaryLogs(binlog_.get(), *to).ok());
  Result<ResultSet> logs = ShowBinaryLogs(binlog_.get());
  ASSERT_TRUE(logs.ok());
  ASSERT_EQ(logs->rows.size(), 2u);
  EXPECT_EQ(Cell(logs->rows[0], 0), "binlog.000002");
  EXPECT_FALSE(fs::exists(dir_ / "binlog.000001"));
  Result<ResultSet> gone = Events("SHOW BINLOG EVENTS IN 'binlog.000001'");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.status().mysql_errno(), 1220);

  // BEFORE a time after every file's last change: all but the active one.
  auto before = Parse<sql::PurgeBinaryLogsStmt>("PURGE BINARY LOGS BEFORE NOW()");
  ASSERT_TRUE(PurgeBinaryLogs(binlog_.get(), *before, static_cast<int64_t>(::time(nullptr)) + 10).ok());
  logs = ShowBinaryLogs(binlog_.get());
  ASSERT_EQ(logs->rows.size(), 1u);
  EXPECT_EQ(Cell(logs->rows[0], 0), "binlog.000003");

  ASSERT_TRUE(ResetMaster(binlog_.get(), 7).ok());
  logs = ShowBinaryLogs(binlog_.get());
  ASSERT_EQ(logs->rows.size(), 1u);
  EXPECT_EQ(Cell(logs->rows[0], 0), "binlog.000007");
  ResultSet status = ShowMasterStatus(binlog_.get());
  EXPECT_EQ(status.rows[0], (Row{"binlog.000007", Cell(logs->rows[0], 1), "", "", ""}));

  ASSERT_TRUE(ResetMaster(binlog_.get(), std::nullopt).ok());
  logs = ShowBinaryLogs(binlog_.get());
  ASSERT_EQ(logs->rows.size(), 1u);
  EXPECT_EQ(Cell(logs->rows[0], 0), "binlog.000001");
  Result<ResultSet> fresh = Events("SHOW BINLOG EVENTS");
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(fresh->rows.size(), 2u);  // Format_desc, Previous_gtids
  EXPECT_EQ(Cell(fresh->rows[1], 5), "");
}

}  // namespace
}  // namespace sluice::exec
