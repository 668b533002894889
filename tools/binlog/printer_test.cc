// sluice-binlog's printer on the sample files (sample_binlogs.h): mysqlbinlog
// 8.0's layout, the options, and positions checked against the reader.
#include "tools/binlog/printer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "binlog/file_reader.h"
#include "tools/binlog/sample_binlogs.h"

namespace sluice::tools {
namespace {

namespace fs = std::filesystem;

class PrinterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    setenv("TZ", "UTC", 1);
    tzset();
    dir_ = new fs::path(fs::temp_directory_path() / ("sluice_binlog_printer_test_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
    auto p = WriteSampleBinlogs(dir_->string());
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    paths_ = new std::vector<std::string>(*p);
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    delete paths_;
  }

  static std::string Print(const PrintOptions& options, const std::vector<std::string>& files, Status* st = nullptr) {
    std::ostringstream out;
    BinlogPrinter printer(options, out);
    Status s = printer.PrintFiles(files);
    if (st != nullptr) {
      *st = s;
    } else {
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    return out.str();
  }
  static std::string Print(const PrintOptions& options, size_t file) { return Print(options, {(*paths_)[file]}); }

  static std::vector<uint64_t> Numbers(const std::string& text, const std::string& re) {
    std::vector<uint64_t> out;
    std::regex r(re);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), r); it != std::sregex_iterator(); ++it) {
      out.push_back(std::stoull((*it)[1]));
    }
    return out;
  }
  static size_t Count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
  }

  // Every event of a file as the reader sees it.
  static std::vector<binlog::BinlogFileReader::Event> Events(size_t file) {
    auto r = binlog::BinlogFileReader::Open((*paths_)[file]);
    EXPECT_TRUE(r.ok());
    std::vector<binlog::BinlogFileReader::Event> out;
    for (;;) {
      auto ev = (*r)->Next();
      EXPECT_TRUE(ev.ok());
      if (!ev.ok() || !ev->has_value()) break;
      out.push_back(std::move(**ev));
    }
    return out;
  }

  static fs::path* dir_;
  static std::vector<std::string>* paths_;
};
fs::path* PrinterTest::dir_ = nullptr;
std::vector<std::string>* PrinterTest::paths_ = nullptr;

TEST(PrinterHelpers, Base64Lines) {
  EXPECT_EQ(Base64Lines(""), "");
  EXPECT_EQ(Base64Lines("M"), "TQ==");
  EXPECT_EQ(Base64Lines("Ma"), "TWE=");
  EXPECT_EQ(Base64Lines("Man"), "TWFu");
  // 57 bytes fill exactly one 76-character line; the 58th starts another.
  EXPECT_EQ(Base64Lines(std::string(57, '\0')), std::string(76, 'A'));
  EXPECT_EQ(Base64Lines(std::string(58, '\0')), std::string(76, 'A') + "\nAA==");
}

TEST(PrinterHelpers, QuoteAndTime) {
  EXPECT_EQ(QuoteIdentifier("t"), "`t`");
  EXPECT_EQ(QuoteIdentifier("a`b"), "`a``b`");
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(FormatLogTime(1700000000), "231114 22:13:20");
  EXPECT_EQ(FormatLogTime(1714894020 - 7 * 3600 - 27 * 60), "240505  0:00:00");
  auto t = ParseDateTime("2023-11-14 22:13:20");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, 1700000000);
  EXPECT_FALSE(ParseDateTime("2023-11-15").ok());  // mysqlbinlog wants date and time
  EXPECT_FALSE(ParseDateTime("yesterday").ok());
  EXPECT_FALSE(ParseDateTime("2023-13-01 00:00:00").ok());
}

TEST_F(PrinterTest, PreambleAndTrailer) {
  std::string out = Print(PrintOptions(), 0);
  EXPECT_EQ(out.rfind("# The proper term is pseudo_replica_mode, but we use this compatibility alias\n"
                      "# to make the statement usable on server versions 8.0.24 and older.\n"
                      "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
                      "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
                      "DELIMITER /*!*/;\n"
                      "# at 4\n",
                      0),
            0u);
  const std::string tail =
      "SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\n"
      "DELIMITER ;\n"
      "# End of log file\n"
      "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
      "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n";
  ASSERT_GE(out.size(), tail.size());
  EXPECT_EQ(out.substr(out.size() - tail.size()), tail);
}

TEST_F(PrinterTest, PositionsMatchTheFile) {
  for (size_t file = 0; file < paths_->size(); ++file) {
    SCOPED_TRACE((*paths_)[file]);
    auto events = Events(file);
    PrintOptions o;
    o.verbose = 2;  // every event prints its header line
    std::string out = Print(o, file);
    std::vector<uint64_t> at = Numbers(out, "\n# at ([0-9]+)\n");
    std::vector<uint64_t> end = Numbers(out, " end_log_pos ([0-9]+) ");
    ASSERT_EQ(at.size(), events.size());
    ASSERT_EQ(end.size(), events.size());
    for (size_t i = 0; i < events.size(); ++i) {
      EXPECT_EQ(at[i], events[i].offset);
      EXPECT_EQ(end[i], events[i].header.log_pos);
    }
  }
}

TEST_F(PrinterTest, ControlEvents) {
  std::string out = Print(PrintOptions(), 0);
  EXPECT_NE(out.find("# at 4\n#231114 22:13:20 server id 1  end_log_pos 126 CRC32 0x"), std::string::npos);
  EXPECT_NE(out.find(" \tStart: binlog v 4, server v 8.0.36-sluice created 231114 22:13:20 at startup\n"
                     "ROLLBACK/*!*/;\nBINLOG '\n"),
            std::string::npos);
  EXPECT_NE(out.find("# at 126\n#231114 22:13:20 server id 1  end_log_pos 157 CRC32 0x"), std::string::npos);
  EXPECT_NE(out.find(" \tPrevious-GTIDs\n# [empty]\n# at 157\n"), std::string::npos);
  EXPECT_NE(out.find("\tXid = 11\nCOMMIT/*!*/;\n"), std::string::npos);
  EXPECT_NE(out.find(" \tRotate to binlog.000002  pos: 4\n"), std::string::npos);

  std::string out2 = Print(PrintOptions(), 1);
  EXPECT_NE(out2.find(" \tPrevious-GTIDs\n"
                      "# 0b9f7f5a-0b0e-11ef-8f6d-0242ac120002:1-3:7,\n"
                      "# 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5\n"),
            std::string::npos);
  EXPECT_NE(out2.find(" \tStop\n"), std::string::npos);

  // binlog_checksum=NONE: no CRC32 field; a file still open says so.
  std::string out3 = Print(PrintOptions(), 2);
  EXPECT_EQ(out3.find("CRC32 0x"), std::string::npos);
  EXPECT_NE(out3.find("#231114 22:13:20 server id 1  end_log_pos 126 \tStart: binlog v 4"), std::string::npos);
  EXPECT_NE(out3.find("# Warning: this binlog is either in use or was not closed properly.\n"), std::string::npos);
  EXPECT_NE(out3.find("\tAnonymous_GTID\tlast_committed=0\tsequence_number=1\t"), std::string::npos);
  EXPECT_NE(out3.find("SET @@SESSION.GTID_NEXT= 'ANONYMOUS'/*!*/;\n"), std::string::npos);
}

TEST_F(PrinterTest, GtidAndQuery) {
  std::string out = Print(PrintOptions(), 0);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m,
      std::regex("# at 157\n#231114 22:13:27 server id 1  end_log_pos 236 CRC32 0x[0-9a-f]{8} \tGTID\t"
                 "last_committed=0\tsequence_number=1\trbr_only=yes\toriginal_committed_timestamp=1700000007123456\t"
                 "immediate_commit_timestamp=1700000007123456\ttransaction_length=([0-9]+)\n")));
  const std::string gtid_block =
      "/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*//*!*/;\n"
      "# original_commit_timestamp=1700000007123456 (2023-11-14 22:13:27.123456 UTC)\n"
      "# immediate_commit_timestamp=1700000007123456 (2023-11-14 22:13:27.123456 UTC)\n"
      "/*!80001 SET @@session.original_commit_timestamp=1700000007123456*//*!*/;\n"
      "/*!80014 SET @@session.original_server_version=80036*//*!*/;\n"
      "/*!80014 SET @@session.immediate_server_version=80036*//*!*/;\n"
      "SET @@SESSION.GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:1'/*!*/;\n"
      "# at 236\n";
  EXPECT_NE(out.find(gtid_block), std::string::npos);

  // The first Query sets the whole session; a DDL logged with its xid.
  const std::string first_query =
      " \tQuery\tthread_id=8\texec_time=0\terror_code=0\tXid = 10\n"
      "use `shop`/*!*/;\n"
      "SET TIMESTAMP=1700000007/*!*/;\n"
      "SET @@session.pseudo_thread_id=8/*!*/;\n"
      "SET @@session.foreign_key_checks=1, @@session.sql_auto_is_null=0, @@session.unique_checks=1, "
      "@@session.autocommit=1/*!*/;\n"
      "SET @@session.sql_mode=1168113696/*!*/;\n"
      "SET @@session.auto_increment_increment=1, @@session.auto_increment_offset=1/*!*/;\n"
      "/*!\\C utf8mb4 *//*!*/;\n"
      "SET @@session.character_set_client=255,@@session.collation_connection=255,@@session.collation_server=255"
      "/*!*/;\n"
      "SET @@session.lc_time_names=0/*!*/;\n"
      "SET @@session.collation_database=DEFAULT/*!*/;\n"
      "SET @@session.explicit_defaults_for_timestamp=1/*!*/;\n"
      "/*!80011 SET @@session.default_collation_for_utf8mb4=255*//*!*/;\n"
      "/*!80013 SET @@session.sql_require_primary_key=0*//*!*/;\n"
      "/*!80016 SET @@session.default_table_encryption=0*//*!*/;\n"
      "CREATE TABLE items (";
  EXPECT_NE(out.find(first_query), std::string::npos);
  // Later ones only what changed.
  EXPECT_NE(
      out.find(" \tQuery\tthread_id=8\texec_time=0\terror_code=0\nSET TIMESTAMP=1700000021/*!*/;\nBEGIN\n/*!*/;\n"),
      std::string::npos);
  EXPECT_EQ(Count(out, "SET @@session.pseudo_thread_id="), 1u);
  EXPECT_EQ(Count(out, "use `shop`"), 1u);
}

TEST_F(PrinterTest, RowsAuto) {
  PrintOptions o;
  o.verbose = 1;
  std::string out = Print(o, 0);
  // Table_map header, then the rows event header, then one BINLOG block
  // with both events, then the decoded rows.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m,
      std::regex("\tTable_map: `shop`.`items` mapped to number 92\n# has_generated_invisible_primary_key=0\n"
                 "# at [0-9]+\n#[^\n]*\tWrite_rows: table id 92 flags: STMT_END_F\n\nBINLOG '\n([A-Za-z0-9+/=\n]+)\n"
                 "'/\\*!\\*/;\n### INSERT INTO `shop`.`items`\n### SET\n###   @1=1\n###   @2=-5 \\(251\\)\n")));
  // The BINLOG text is the two events, each its own base64 run.
  auto events = Events(0);
  std::string expected_b64;
  for (const auto& ev : events) {
    if (ev.header.type == binlog::kTableMapEvent || ev.header.type == binlog::kWriteRowsEvent) {
      expected_b64 += Base64Lines(ev.bytes) + "\n";
      if (ev.header.type == binlog::kWriteRowsEvent) break;
    }
  }
  EXPECT_EQ(m[1].str() + "\n", expected_b64);

  EXPECT_NE(out.find("### UPDATE `shop`.`items`\n### WHERE\n###   @1=1\n"), std::string::npos);
  EXPECT_NE(out.find("### DELETE FROM `shop`.`items`\n### WHERE\n###   @1=100\n"), std::string::npos);
  EXPECT_NE(out.find("### INSERT INTO `shop`.`log`\n### SET\n###   @1=2\n###   @2=NULL\n"), std::string::npos);
  EXPECT_EQ(out.find(" meta="), std::string::npos);  // type comments need -vv
}

TEST_F(PrinterTest, MultiEventStatementIsOneBlock) {
  // The 40-row DELETE spans several rows events: all their headers, then
  // one BINLOG block, then all the rows.
  PrintOptions o;
  o.verbose = 1;
  std::string out = Print(o, 0);
  size_t first = out.find("\tDelete_rows: table id 92\n");
  ASSERT_NE(first, std::string::npos);
  size_t last = out.find("\tDelete_rows: table id 92 flags: STMT_END_F\n");
  ASSERT_NE(last, std::string::npos);
  EXPECT_LT(first, last);
  const std::string between = out.substr(first, last - first);
  EXPECT_EQ(between.find("BINLOG"), std::string::npos);
  EXPECT_EQ(between.find("###"), std::string::npos);
  EXPECT_GE(Count(between, "\tDelete_rows: table id 92\n"), 2u);
  EXPECT_EQ(Count(out, "### DELETE FROM `shop`.`items`\n"), 40u);
}

TEST_F(PrinterTest, StatementCutByStopPosition) {
  // Stop inside the multi-event DELETE: its headers are out, its BINLOG
  // block and rows are dropped with mysqlbinlog's warning.
  auto events = Events(0);
  size_t third = 0;
  for (size_t i = 0, n = 0; i < events.size(); ++i) {
    if (events[i].header.type == binlog::kDeleteRowsEvent && ++n == 3) third = i;
  }
  ASSERT_GT(third, 0u);
  PrintOptions o;
  o.verbose = 1;
  o.stop_position = events[third].offset;
  std::ostringstream out, warnings;
  BinlogPrinter printer(o, out, &warnings);
  ASSERT_TRUE(printer.PrintFiles({(*paths_)[0]}).ok());
  EXPECT_EQ(Count(out.str(), "\tDelete_rows: table id 92\n"), 2u);
  EXPECT_EQ(out.str().find("### DELETE"), std::string::npos);
  EXPECT_NE(warnings.str().find("does not have the STMT_END_F flag set"), std::string::npos);
  EXPECT_NE(out.str().find("ROLLBACK /* added by mysqlbinlog */ /*!*/;\n"), std::string::npos);
}

TEST_F(PrinterTest, DecodeRowsAndVeryVerbose) {
  PrintOptions o;
  o.base64 = Base64Output::kDecodeRows;
  std::string quiet = Print(o, 0);
  EXPECT_EQ(quiet.find("BINLOG '"), std::string::npos);
  EXPECT_EQ(quiet.find("###"), std::string::npos);
  EXPECT_NE(quiet.find("\tWrite_rows: table id 92 flags: STMT_END_F\n# at "), std::string::npos);

  o.verbose = 1;
  std::string v = Print(o, 0);
  EXPECT_EQ(v.find("BINLOG '"), std::string::npos);
  EXPECT_NE(v.find("\tWrite_rows: table id 92 flags: STMT_END_F\n### INSERT INTO `shop`.`items`\n"), std::string::npos);

  o.verbose = 2;
  std::string vv = Print(o, 1);
  EXPECT_NE(vv.find("###   @1=10 /* LONGINT meta=0 nullable=0 is_null=0 */\n"), std::string::npos);
  EXPECT_NE(vv.find(" \tRows_query\n# INSERT INTO log VALUES (10, 'ten'),\n#   (11, REPEAT('y', 180))\n# at "),
            std::string::npos);
  o.verbose = 1;
  EXPECT_EQ(Print(o, 1).find("Rows_query"), std::string::npos);
}

TEST_F(PrinterTest, Base64Never) {
  PrintOptions o;
  o.base64 = Base64Output::kNever;
  Status st;
  std::string out = Print(o, {(*paths_)[0]}, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("--base64-output=never specified"), std::string::npos);
  EXPECT_EQ(out.find("BINLOG '"), std::string::npos);
}

TEST_F(PrinterTest, StartAndStopPosition) {
  auto events = Events(0);
  const uint64_t start = events[4].offset;  // the second transaction's Gtid
  const uint64_t stop = events[9].offset;   // the third's
  PrintOptions o;
  o.start_position = start;
  o.stop_position = stop;
  std::string out = Print(o, 0);
  std::vector<uint64_t> at = Numbers(out, "\n# at ([0-9]+)\n");
  ASSERT_EQ(at.size(), 1u + 5u);  // the FDE, then events 4..8
  // mysqlbinlog 8.0 prints the Format_description "at" the end of its read
  // of the file's header events: the first event after Previous_gtids.
  EXPECT_EQ(at[0], 157u);
  for (size_t i = 1; i < at.size(); ++i) EXPECT_EQ(at[i], events[3 + i].offset);
  EXPECT_EQ(events[4].header.type, binlog::kGtidEvent);
  EXPECT_EQ(events[9].header.type, binlog::kGtidEvent);

  // Over several files: --start-position applies to the first file,
  // --stop-position to the last.
  PrintOptions o2;
  o2.start_position = start;
  o2.stop_position = 253;
  std::string two = Print(o2, {(*paths_)[0], (*paths_)[1]});
  std::vector<uint64_t> at2 = Numbers(two, "\n# at ([0-9]+)\n");
  EXPECT_EQ(at2.size(), 1u + (events.size() - 4) + 2u);
  EXPECT_EQ(at2[0], 157u);
  EXPECT_EQ(at2.back(), 126u);

  // Within the header events: "at" the last header event read.
  PrintOptions o3;
  o3.start_position = 157;
  std::vector<uint64_t> at3 = Numbers(Print(o3, 0), "\n# at ([0-9]+)\n");
  ASSERT_GE(at3.size(), 2u);
  EXPECT_EQ(at3[0], 126u);
  EXPECT_EQ(at3[1], 157u);
  PrintOptions o4;
  o4.start_position = 100;  // inside the Format_description
  Status st;
  Print(o4, {(*paths_)[0]}, &st);
  EXPECT_FALSE(st.ok());
  // One DELIMITER pair and one session for the run; the GTID_NEXT reset
  // also comes before the next file's Format_description.
  EXPECT_EQ(Count(two, "DELIMITER /*!*/;\n"), 1u);
  EXPECT_EQ(Count(two, "DELIMITER ;\n"), 1u);
  EXPECT_EQ(Count(two, "# End of log file\n"), 1u);
  EXPECT_EQ(Count(two, "SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\n"), 2u);
  EXPECT_NE(two.find("SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\n# at 4\n"),
            std::string::npos);
}

TEST_F(PrinterTest, SessionAndTransactionState) {
  // Both files in one run: the session SETs are not repeated in the second.
  std::string both = Print(PrintOptions(), {(*paths_)[0], (*paths_)[1]});
  EXPECT_EQ(Count(both, "SET @@session.pseudo_thread_id="), 1u);
  EXPECT_EQ(Count(both, "SET @@session.sql_mode="), 1u);
  EXPECT_EQ(Count(both, "use `shop`"), 2u);  // again after a BEGIN without a database

  // Stopping inside a transaction rolls it back; after its Gtid only, a
  // BEGIN/ROLLBACK pair consumes the GTID.
  auto events = Events(0);
  PrintOptions o;
  o.stop_position = events[8].offset;  // the second transaction's Xid
  ASSERT_EQ(events[8].header.type, binlog::kXidEvent);
  std::string cut = Print(o, 0);
  EXPECT_NE(cut.find("ROLLBACK /* added by mysqlbinlog */ /*!*/;\n"
                     "SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ /*!*/;\nDELIMITER ;\n"),
            std::string::npos);
  o.stop_position = events[5].offset;  // its BEGIN
  std::string after_gtid = Print(o, 0);
  EXPECT_NE(after_gtid.find("BEGIN /*added by mysqlbinlog */ /*!*/;\nROLLBACK /* added by mysqlbinlog */ /*!*/;\n"
                            "SET @@SESSION.GTID_NEXT= 'AUTOMATIC'"),
            std::string::npos);
  o.stop_position = events[9].offset;  // the next Gtid: nothing to roll back
  EXPECT_EQ(Print(o, 0).find("added by mysqlbinlog */ /*!*/;\nROLLBACK"), std::string::npos);
}

TEST_F(PrinterTest, Datetimes) {
  auto events = Events(0);
  // From the second transaction's Gtid (whose timestamp is its BEGIN's) on.
  PrintOptions o;
  o.start_datetime = events[4].header.timestamp;
  o.stop_datetime = events[9].header.timestamp;
  std::string out = Print(o, 0);
  std::vector<uint64_t> at = Numbers(out, "\n# at ([0-9]+)\n");
  ASSERT_FALSE(at.empty());
  EXPECT_EQ(at[0], 4u);  // the FDE always
  ASSERT_GE(at.size(), 2u);
  EXPECT_EQ(at[1], events[4].offset);
  EXPECT_LT(at.back(), events[9].offset);
}

TEST_F(PrinterTest, GtidFilters) {
  PrintOptions inc;
  inc.include_gtids =
      *binlog::GtidSet::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:2,3e11fa47-71ca-11e1-9e33-c80aa9429562:5");
  std::string out = Print(inc, 0);
  EXPECT_EQ(Count(out, "SET @@SESSION.GTID_NEXT= '3e11fa47"), 2u);
  EXPECT_NE(out.find("GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:2'"), std::string::npos);
  EXPECT_NE(out.find("GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:5'"), std::string::npos);
  EXPECT_EQ(out.find("CREATE TABLE"), std::string::npos);
  EXPECT_EQ(Count(out, "\tXid = "), 2u);
  EXPECT_NE(out.find("\tRotate to binlog.000002"), std::string::npos);  // control events stay
  // As mysqlbinlog, the "# at" lines of dropped events stay and come out
  // before the next printed event.
  auto events = Events(0);
  EXPECT_NE(out.find("# at " + std::to_string(events[2].offset) + "\n# at " + std::to_string(events[3].offset) +
                     "\n# at " + std::to_string(events[4].offset) + "\n#"),
            std::string::npos);

  PrintOptions exc;
  exc.exclude_gtids = *binlog::GtidSet::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-4");
  std::string out2 = Print(exc, 0);
  EXPECT_EQ(Count(out2, "SET @@SESSION.GTID_NEXT= '3e11fa47"), 1u);
  EXPECT_NE(out2.find("GTID_NEXT= '3e11fa47-71ca-11e1-9e33-c80aa9429562:5'"), std::string::npos);

  // Anonymous transactions are never in an --include-gtids set.
  std::string anon = Print(inc, 2);
  EXPECT_EQ(anon.find("Anonymous_GTID"), std::string::npos);
  EXPECT_EQ(anon.find("CREATE DATABASE"), std::string::npos);
}

TEST_F(PrinterTest, Hexdump) {
  PrintOptions o;
  o.hexdump = true;
  o.base64 = Base64Output::kDecodeRows;
  std::string out = Print(o, 0);
  auto events = Events(0);
  const std::string& fde = events[0].bytes;
  char line[128];
  std::snprintf(line, sizeof(line), "0x%02x%02x%02x%02x \n", static_cast<uint8_t>(fde[121]),
                static_cast<uint8_t>(fde[120]), static_cast<uint8_t>(fde[119]), static_cast<uint8_t>(fde[118]));
  const std::string expected =
      std::string("# at 4\n#231114 22:13:20 server id 1  end_log_pos 126 CRC32 ") + line +
      "# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags \n"
      "# 00000004 00 f1 53 65   0f   01 00 00 00   7a 00 00 00   7e 00 00 00   00 00\n"
      "# 00000017 04 00 38 2e 30 2e 33 36  2d 73 6c 75 69 63 65 00 |..8.0.36.sluice.|\n"
      "# 00000027 00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00 |................|\n";
  EXPECT_NE(out.find(expected), std::string::npos) << out.substr(0, 1200);
  std::snprintf(line, sizeof(line), "# 00000077 28 00 01 %02x %02x %02x %02x", static_cast<uint8_t>(fde[118]),
                static_cast<uint8_t>(fde[119]), static_cast<uint8_t>(fde[120]), static_cast<uint8_t>(fde[121]));
  // 7 bytes: 21 characters of hex padded to 48, then " |" and the 7 shown.
  EXPECT_NE(out.find(line + std::string(1 + 27 + 1, ' ') + "|.......|\n"), std::string::npos);
  EXPECT_NE(out.find("|\n# \tStart: binlog v 4"), std::string::npos);
}

TEST_F(PrinterTest, TruncatedAndCorruptFiles) {
  std::ifstream in((*paths_)[0], std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto events = Events(0);
  const std::string cut_path = (*dir_ / "cut.000001").string();
  {
    std::ofstream out(cut_path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(events[6].offset + 10));
  }
  Status st;
  std::string out = Print(PrintOptions(), {cut_path}, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("offset " + std::to_string(events[6].offset)), std::string::npos) << st.message();
  EXPECT_NE(out.find("# at " + std::to_string(events[5].offset) + "\n"), std::string::npos);
  EXPECT_EQ(out.find("# at " + std::to_string(events[6].offset) + "\n"), std::string::npos);
  EXPECT_NE(out.find("# End of log file\n"), std::string::npos);

  // A flipped byte: only --verify-binlog-checksum notices.
  const std::string bad_path = (*dir_ / "bad.000001").string();
  ASSERT_EQ(events[5].header.type, binlog::kQueryEvent);  // BEGIN
  bytes[events[5].offset + events[5].bytes.size() - 6] ^= 0x01;  // "BEGIN" -> "BEFIN"
  {
    std::ofstream out2(bad_path, std::ios::binary | std::ios::trunc);
    out2.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  Print(PrintOptions(), {bad_path}, &st);
  EXPECT_TRUE(st.ok()) << st.ToString();
  PrintOptions verify;
  verify.verify_checksums = true;
  Print(verify, {bad_path}, &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("checksum"), std::string::npos) << st.message();

  Print(PrintOptions(), {(*dir_ / "missing.000001").string()}, &st);
  EXPECT_FALSE(st.ok());

  // A file still "in use" (not closed) may end in a partial event: that is
  // its end, as mysqlbinlog treats it.
  std::ifstream in3((*paths_)[2], std::ios::binary);
  std::string open_bytes((std::istreambuf_iterator<char>(in3)), std::istreambuf_iterator<char>());
  const std::string open_cut = (*dir_ / "open.000003").string();
  {
    std::ofstream out3(open_cut, std::ios::binary | std::ios::trunc);
    out3.write(open_bytes.data(), static_cast<std::streamsize>(open_bytes.size() - 5));
  }
  std::string tail = Print(PrintOptions(), {open_cut}, &st);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_NE(tail.find("# End of log file\n"), std::string::npos);
}

}  // namespace
}  // namespace sluice::tools
