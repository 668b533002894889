// exec/exec_test.cc
//
// Statement execution below the wire: SQL text parsed by sql::Parser and
// run through exec::RunStatement against an ExecEnv of a real
// storage::Engine (in-memory FileSystem), a real binlog::Binlog (files in a
// temp dir), the core system variables and a real acl::AccessControl
// (an ExecWorld, exec/testing/exec_world.h), as
// server/executor.cc runs COM_QUERY, with no socket and no Server. Each test
// checks the rows (through SELECT), the events the binlog file holds, and
// the calls the replication observers' TransactionHooks saw; what needs
// the process (KILL, SHUTDOWN, SHOW PROCESSLIST) goes to a recording
// ServerControl.
//
// Thread-safety: single-threaded tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "acl/access_control.h"
#include "base/io/mem_file_system.h"
#include "base/mysql_error.h"
#include "binlog/binlog.h"
#include "binlog/file_reader.h"
#include "binlog/row_event.h"
#include "exec/information_schema.h"
#include "exec/read_only.h"
#include "exec/session_context.h"
#include "exec/statement.h"
#include "exec/table_executor.h"
#include "exec/testing/exec_world.h"
#include "sql/lexer.h"
#include "sql/parser.h"
#include "storage/engine/engine.h"
#include "vars/sys_vars.h"

namespace sluice::exec {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUuid = kWorldUuid;

// Records the commit points in order; BeforeCommit fails while `fail_before_commit`.
// The transaction hooks, and the binlog's after_sync (its leader runs it
// inside Binlog::Commit), in the order they come.
class RecordingHooks : public TransactionHooks, public binlog::CommitHooks {
 public:
  struct Call {
    std::string hook;  // "before_commit", "after_sync", "after_commit", "after_rollback"
    std::string gtid;
    std::string log_file;
    uint64_t log_pos = 0;
  };

  Status BeforeCommit(const Param& p) override {
    Record("before_commit", p);
    if (fail_before_commit) return MakeError(er::kUnknown, "before_commit refused (test)");
    return Status::OK();
  }
  void AfterFlush(const std::string&, uint64_t) override {}
  void AfterSync(const std::string& log_file, uint64_t log_pos) override {
    calls.push_back({"after_sync", "", log_file, log_pos});
  }
  Status AfterCommit(const Param& p) override {
    Record("after_commit", p);
    return Status::OK();
  }
  Status AfterRollback(const Param& p) override {
    Record("after_rollback", p);
    return Status::OK();
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> out;
    for (const Call& c : calls) out.push_back(c.hook);
    return out;
  }

  std::vector<Call> calls;
  bool fail_before_commit = false;

 private:
  void Record(const char* hook, const Param& p) {
    calls.push_back({hook, std::string(p.gtid), std::string(p.log_file), p.log_pos});
  }
};

// The process as statements see it: one other session (id 42, user app),
// and the KILLs and SHUTDOWNs asked for.
class RecordingControl : public ServerControl {
 public:
  std::vector<ProcessInfo> ProcessList() const override {
    ProcessInfo other;
    other.id = 42;
    other.user = "app";
    other.host = "127.0.0.1:5000";
    other.command = "Sleep";
    return {other};
  }
  Status Kill(uint32_t id, bool connection) override {
    if (id != 42) return MakeError(er::kNoSuchThread, id);
    kills.push_back(std::to_string(id) + (connection ? " connection" : " query"));
    return Status::OK();
  }
  void Shutdown(std::string_view user) override { shutdown_by = std::string(user); }
  bool shutting_down() const override { return false; }
  std::vector<ReplicaInfo> Replicas() const override { return {}; }
  Status InstallPlugin(const std::string& name, const std::string&) override {
    return MakeError(er::kCantOpenLibrary, name, 2, "not in this test");
  }
  Status UninstallPlugin(const std::string& name) override { return MakeError(er::kSpDoesNotExist, "PLUGIN", name); }
  void AfterResetMaster() override {}

  std::vector<std::string> kills;
  std::string shutdown_by;
};

class ExecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ExecWorld::Options o;
    o.dir = fs::temp_directory_path() / ("sluice_exec_test_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    o.hooks = &hooks_;
    o.commit_hooks = &hooks_;
    o.control = &control_;
    auto world = ExecWorld::Open(o);
    ASSERT_TRUE(world.ok()) << world.status().ToString();
    w_ = std::move(world).value();
    ASSERT_TRUE(w_->engine->CreateDatabase(storage::DatabaseDef{"db"}).ok());

    acl::UserSpec app;
    app.user = "app";
    app.host = "%";
    ASSERT_TRUE(w_->acl.CreateUser({app}, false, nullptr).ok());
    ASSERT_TRUE(
        w_->acl.Grant({"SELECT", "INSERT", "UPDATE", "DELETE"}, acl::PrivLevel::Global(), {{"app", "%"}}, false).ok());

    Login(ctx_, 1, "root", "localhost");

    ASSERT_EQ(Run("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(16))"), "OK");
    Forget();
  }

  void TearDown() override {
    if (!w_) return;
    TableExecutor::EndSession(w_->env(), ctx_);
    if (app_ctx_.vars) TableExecutor::EndSession(w_->env(), app_ctx_);
    EXPECT_TRUE(w_->Close().ok());
  }

  // A connection of `user`@`host` (the account of that name), in database db.
  void Login(SessionContext& ctx, uint32_t id, const std::string& user, const std::string& host) {
    ASSERT_TRUE(w_->Login(ctx, id, user, host).ok());
    ctx.db = "db";
  }

  // From here on, Events() and hooks_ show only what follows.
  void Forget() {
    start_ = w_->binlog->CurrentPosition();
    hooks_.calls.clear();
  }

  // Runs `sql` (one or more statements) as COM_QUERY does: "OK", the rows'
  // count ("2 rows"), or the first error as "ERROR <errno>".
  std::string Run(std::string_view sql) { return Run(ctx_, sql); }
  std::string Run(SessionContext& ctx, std::string_view sql) {
    std::string out;
    sql::Parser parser(sql);
    while (!parser.AtEnd()) {
      auto parsed = parser.Next();
      if (!parsed.ok()) return "PARSE " + parsed.status().ToString();
      Outcome o = RunOne(ctx, *parsed);
      if (!o.error.ok()) return "ERROR " + std::to_string(o.error.mysql_errno());
      out = o.result ? std::to_string(o.result->rows.size()) + " rows" : "OK";
    }
    return out;
  }

  // One statement, as server/executor.cc runs it (no PREPARE / EXECUTE:
  // those belong to the dispatcher).
  Outcome RunOne(SessionContext& ctx, const sql::ParsedStatement& ps) {
    ctx.warnings.clear();
    return RunStatement(w_->env(), ctx, ps, nullptr, nullptr);
  }

  // The rows of a SELECT, each as its cells joined by ',' (NULL: "NULL").
  std::vector<std::string> Rows(std::string_view select) {
    auto parsed = sql::ParseAll(select);
    EXPECT_TRUE(parsed.ok() && parsed->size() == 1) << select;
    if (!parsed.ok() || parsed->size() != 1) return {};
    Outcome o = RunOne(ctx_, (*parsed)[0]);
    EXPECT_TRUE(o.error.ok() && o.result) << select << ": " << o.error.ToString();
    std::vector<std::string> out;
    if (!o.result) return out;
    for (const auto& row : o.result->rows) {
      std::string line;
      for (size_t i = 0; i < row.size(); ++i) line += (i ? "," : "") + row[i].value_or("NULL");
      out.push_back(line);
    }
    return out;
  }
  std::vector<std::string> TableRows() { return Rows("SELECT id, v FROM t ORDER BY id"); }

  // The binlog's events since Forget(), one line each: "Gtid", "Query
  // BEGIN", "Table_map db.t", "Write_rows [1,'a'] [2,'b']", "Update_rows
  // [1,'a' -> 1,'b']", "Xid". `end`, when given, gets the last event's end.
  std::vector<std::string> Events(uint64_t* end = nullptr) {
    std::vector<std::string> out;
    const std::string path = w_->binlog->FilePath(start_.first);
    auto reader = binlog::BinlogFileReader::Open(path);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    EXPECT_TRUE((*reader)->Seek(start_.second).ok());
    const binlog::Checksum cs = (*reader)->format().checksum;
    binlog::TableMapInfo map;
    auto image = [](const std::vector<binlog::DecodedValue>& values) {
      std::string s;
      for (size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + (values[i].is_null ? "NULL" : values[i].text);
      return s;
    };
    while (true) {
      auto ev = (*reader)->Next();
      EXPECT_TRUE(ev.ok()) << ev.status().ToString();
      if (!ev.ok() || !ev->has_value()) break;
      const auto& e = **ev;
      if (end != nullptr) *end = e.offset + e.bytes.size();
      switch (e.header.type) {
        case binlog::kGtidEvent:
          out.push_back("Gtid");
          break;
        case binlog::kQueryEvent: {
          auto q = binlog::DecodeQuery(e.bytes, cs);
          out.push_back("Query " + (q.ok() ? q->query : q.status().ToString()));
          break;
        }
        case binlog::kTableMapEvent: {
          auto m = binlog::DecodeTableMap(e.bytes, cs);
          EXPECT_TRUE(m.ok()) << m.status().ToString();
          if (m.ok()) map = *m;
          out.push_back("Table_map " + map.schema + "." + map.table);
          break;
        }
        case binlog::kWriteRowsEvent:
        case binlog::kUpdateRowsEvent:
        case binlog::kDeleteRowsEvent: {
          std::string line = e.header.type == binlog::kWriteRowsEvent    ? "Write_rows"
                             : e.header.type == binlog::kUpdateRowsEvent ? "Update_rows"
                                                                         : "Delete_rows";
          auto rows = binlog::DecodeRows(e.bytes, map, cs);
          EXPECT_TRUE(rows.ok()) << rows.status().ToString();
          if (!rows.ok()) break;
          for (const auto& r : rows->rows) {
            if (e.header.type == binlog::kWriteRowsEvent) {
              line += " [" + image(r.after) + "]";
            } else if (e.header.type == binlog::kUpdateRowsEvent) {
              line += " [" + image(r.before) + " -> " + image(r.after) + "]";
            } else {
              line += " [" + image(r.before) + "]";
            }
          }
          out.push_back(line);
          break;
        }
        case binlog::kXidEvent:
          out.push_back("Xid");
          break;
        default:
          out.push_back("type " + std::to_string(e.header.type));
      }
    }
    return out;
  }

  std::string Gtid(int n) const { return std::string(kUuid) + ":" + std::to_string(n); }

  RecordingHooks hooks_;
  RecordingControl control_;
  std::unique_ptr<ExecWorld> w_;
  // Destroyed before the services above (an open engine transaction goes first).
  SessionContext ctx_;
  SessionContext app_ctx_;  // 'app'@'%': no SUPER, no CONNECTION_ADMIN
  std::pair<std::string, uint64_t> start_;
};

const std::vector<std::string> kNone;

TEST_F(ExecTest, AutocommitInsertIsOneBinlogTransactionWithHooksInOrder) {
  EXPECT_EQ(Run("INSERT INTO t VALUES (1, 'a'), (2, 'b')"), "OK");
  EXPECT_EQ(TableRows(), (std::vector<std::string>{"1,a", "2,b"}));

  uint64_t end = 0;
  EXPECT_EQ(Events(&end), (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t",
                                                    "Write_rows [1,'a'] [2,'b']", "Xid"}));
  EXPECT_EQ(end, w_->binlog->CurrentPosition().second);

  ASSERT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_sync", "after_commit"}));
  const auto& sync = hooks_.calls[1];
  EXPECT_EQ(sync.log_file, start_.first);
  EXPECT_EQ(sync.log_pos, end);  // the transaction's end, once written and synced
  const auto& commit = hooks_.calls[2];
  EXPECT_EQ(commit.log_pos, end);
  EXPECT_EQ(commit.gtid, Gtid(2));  // 1 was CREATE TABLE
}

TEST_F(ExecTest, RollbackLeavesNothingInTheBinlogAndCallsNoHook) {
  ASSERT_EQ(Run("INSERT INTO t VALUES (1, 'a')"), "OK");
  Forget();

  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (2, 'b'); UPDATE t SET v = 'z' WHERE id = 1"), "OK");
  EXPECT_EQ(TableRows(), (std::vector<std::string>{"1,z", "2,b"}));  // the transaction sees its own
  EXPECT_EQ(Run("ROLLBACK"), "OK");

  EXPECT_EQ(TableRows(), (std::vector<std::string>{"1,a"}));
  EXPECT_EQ(Events(), kNone);
  EXPECT_EQ(hooks_.Names(), kNone);
}

TEST_F(ExecTest, FailingBeforeCommitRollsBackAndTheNextTransactionCommits) {
  hooks_.fail_before_commit = true;
  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (1, 'a')"), "OK");
  EXPECT_EQ(Run("COMMIT"), "ERROR 1105");
  EXPECT_EQ(TableRows(), kNone);
  EXPECT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_rollback"}));
  EXPECT_EQ(Events(), kNone);

  hooks_.fail_before_commit = false;
  hooks_.calls.clear();
  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (2, 'b'); COMMIT"), "OK");
  EXPECT_EQ(TableRows(), (std::vector<std::string>{"2,b"}));
  EXPECT_EQ(Events(), (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t", "Write_rows [2,'b']",
                                                "Xid"}));
  ASSERT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_sync", "after_commit"}));
  EXPECT_EQ(hooks_.calls[2].gtid, Gtid(2));  // the failed one took no GTID
}

TEST_F(ExecTest, SavepointsKeepOnlyTheRowsNotRolledBack) {
  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (1, 'a'); SAVEPOINT s1; INSERT INTO t VALUES (2, 'b');"
                "SAVEPOINT s2; INSERT INTO t VALUES (3, 'c'); ROLLBACK TO SAVEPOINT s1;"
                "INSERT INTO t VALUES (4, 'd'); RELEASE SAVEPOINT s1"),
            "OK");
  // s1 was released, s2 went with the rollback to s1.
  EXPECT_EQ(Run("ROLLBACK TO SAVEPOINT s1"), "ERROR 1305");
  EXPECT_EQ(Run("RELEASE SAVEPOINT s2"), "ERROR 1305");
  EXPECT_EQ(Run("ROLLBACK TO SAVEPOINT nope"), "ERROR 1305");
  EXPECT_EQ(Run("COMMIT"), "OK");

  EXPECT_EQ(TableRows(), (std::vector<std::string>{"1,a", "4,d"}));
  EXPECT_EQ(Events(), (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t", "Write_rows [1,'a']",
                                                "Table_map db.t", "Write_rows [4,'d']", "Xid"}));
  EXPECT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_sync", "after_commit"}));
}

TEST_F(ExecTest, AFailingStatementUndoesOnlyItself) {
  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (1, 'a'), (2, 'b')"), "OK");
  // Row 3 goes in before row 1 collides: the statement's undo takes it out.
  EXPECT_EQ(Run("INSERT INTO t VALUES (3, 'c'), (1, 'x')"), "ERROR 1062");
  EXPECT_EQ(Run("UPDATE t SET v = 'B' WHERE id = 2; COMMIT"), "OK");

  EXPECT_EQ(TableRows(), (std::vector<std::string>{"1,a", "2,B"}));
  EXPECT_EQ(Events(),
            (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t", "Write_rows [1,'a'] [2,'b']",
                                      "Table_map db.t", "Update_rows [2,'b' -> 2,'B']", "Xid"}));
  EXPECT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_sync", "after_commit"}));
}

TEST_F(ExecTest, DdlIsItsOwnTransactionUnlessSqlLogBinIsOff) {
  const std::string create = "CREATE TABLE t2 (id INT PRIMARY KEY)";
  EXPECT_EQ(Run(create), "OK");
  uint64_t end = 0;
  EXPECT_EQ(Events(&end), (std::vector<std::string>{"Gtid", "Query " + create}));
  ASSERT_EQ(hooks_.Names(), (std::vector<std::string>{"after_sync", "after_commit"}));
  EXPECT_EQ(hooks_.calls[0].log_pos, end);
  EXPECT_EQ(hooks_.calls[1].gtid, Gtid(2));

  // DDL inside a transaction commits it first (MySQL's implicit commit).
  Forget();
  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (1, 'a'); CREATE TABLE t3 (id INT PRIMARY KEY)"), "OK");
  EXPECT_EQ(Events(), (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t", "Write_rows [1,'a']",
                                                "Xid", "Gtid", "Query CREATE TABLE t3 (id INT PRIMARY KEY)"}));
  EXPECT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_sync", "after_commit", "after_sync",
                                                      "after_commit"}));

  Forget();
  ASSERT_TRUE(w_->sys_vars.Set("sql_log_bin", vars::SetScope::kSession, sql::Value::Int(0), ctx_.vars.get(), nullptr)
                  .ok());
  EXPECT_EQ(Run("CREATE TABLE t4 (id INT PRIMARY KEY); INSERT INTO t4 VALUES (1)"), "OK");
  EXPECT_EQ(Rows("SELECT id FROM t4"), (std::vector<std::string>{"1"}));
  EXPECT_EQ(Events(), kNone);
  EXPECT_EQ(hooks_.Names(), kNone);
}

TEST_F(ExecTest, WithoutTheBinlogCommitsGoToTheEngineOnly) {
  w_->UseBinlog(false);
  EXPECT_EQ(Run("INSERT INTO t VALUES (1, 'a')"), "OK");
  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (2, 'b'); UPDATE t SET v = 'A' WHERE id = 1; COMMIT"), "OK");
  EXPECT_EQ(Run("CREATE TABLE t2 (id INT PRIMARY KEY)"), "OK");
  EXPECT_EQ(TableRows(), (std::vector<std::string>{"1,A", "2,b"}));
  EXPECT_EQ(Events(), kNone);
  EXPECT_EQ(hooks_.Names(), kNone);
}

TEST_F(ExecTest, ReadOnlyRefusesWritesOfAccountsWithoutSuper) {
  Login(app_ctx_, 2, "app", "%");
  w_->read_only.SetReadOnly(true);
  EXPECT_EQ(Run(app_ctx_, "INSERT INTO t VALUES (1, 'a')"), "ERROR 1290");
  EXPECT_EQ(Run(app_ctx_, "SELECT * FROM t"), "0 rows");  // reads go on
  EXPECT_EQ(Run("INSERT INTO t VALUES (2, 'b')"), "OK");  // root has SUPER

  w_->read_only.SetReadOnly(false);
  EXPECT_EQ(Run(app_ctx_, "INSERT INTO t VALUES (3, 'c')"), "OK");
  EXPECT_EQ(TableRows(), (std::vector<std::string>{"2,b", "3,c"}));
  EXPECT_EQ(Events(), (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t", "Write_rows [2,'b']", "Xid",
                                                "Gtid", "Query BEGIN", "Table_map db.t", "Write_rows [3,'c']",
                                                "Xid"}));
  EXPECT_EQ(hooks_.Names(), (std::vector<std::string>{"before_commit", "after_sync", "after_commit", "before_commit",
                                                      "after_sync", "after_commit"}));
}

// SET, SHOW, USE, KILL and SHUTDOWN run below the wire too; what needs
// the process goes to ServerControl.
TEST_F(ExecTest, SessionStatementsRunWithoutAServer) {
  EXPECT_EQ(Run("SET autocommit = 0, @x = 5"), "OK");
  EXPECT_FALSE(Settings::Of(w_->sys_vars, ctx_).autocommit);
  EXPECT_EQ(Rows("SHOW VARIABLES LIKE 'autocommit'"), (std::vector<std::string>{"autocommit,OFF"}));
  EXPECT_EQ(Rows("SELECT @x + 1"), (std::vector<std::string>{"6"}));
  EXPECT_EQ(Run("SET autocommit = 1"), "OK");

  EXPECT_EQ(Run("USE nope"), "ERROR 1049");
  EXPECT_EQ(Run("USE mysql"), "OK");
  EXPECT_EQ(ctx_.db, "mysql");

  // 'app' may kill its own user's sessions only; root has CONNECTION_ADMIN.
  Login(app_ctx_, 2, "app", "%");
  EXPECT_EQ(Run(app_ctx_, "KILL 7"), "ERROR 1094");
  EXPECT_EQ(Run(app_ctx_, "KILL QUERY 42"), "OK");
  EXPECT_EQ(Run("KILL 42"), "OK");
  EXPECT_EQ(control_.kills, (std::vector<std::string>{"42 query", "42 connection"}));
  EXPECT_EQ(Rows("SHOW PROCESSLIST").size(), 1u);

  EXPECT_EQ(Run(app_ctx_, "SHUTDOWN"), "ERROR 1227");
  EXPECT_EQ(control_.shutdown_by, "");
  EXPECT_EQ(Run("SHUTDOWN"), "OK");
  EXPECT_EQ(control_.shutdown_by, "root");

  // PREPARE needs the dispatcher (server/prepared_commands.cc).
  EXPECT_EQ(Run("PREPARE s FROM 'SELECT 1'"), "ERROR 1295");
  EXPECT_EQ(Events(), kNone);
}

// A transaction past binlog_cache_size spills its events into a temporary
// file of the binlog's FileSystem. When that file fails, the statement fails
// with 1026 and is undone; the transaction and the session go on.
TEST_F(ExecTest, BinlogCacheSpillFailureFailsTheStatementAndTheSessionGoesOn) {
  // The binlog on the in-memory file system, whose temp files can fail.
  ASSERT_TRUE(w_->fs.CreateDir("/binlog").ok());
  ASSERT_TRUE(w_->fs.CreateDir("/tmp").ok());
  binlog::Binlog::Options bo = w_->BinlogOptions();
  bo.dir = "/binlog";
  bo.fs = &w_->fs;
  bo.cache_temp_dir = "/tmp";
  ASSERT_TRUE(w_->ReopenBinlog(bo).ok());
  ASSERT_TRUE(w_->sys_vars.Set("binlog_cache_size", vars::SetScope::kGlobal, sql::Value::Int(4096), nullptr, nullptr)
                  .ok());

  std::string big = "INSERT INTO t VALUES ";
  for (int i = 100; i < 400; ++i) big += (i > 100 ? ", (" : "(") + std::to_string(i) + ", 'vvvvvvvvvvvvvvvv')";
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kWrite;
  f.path_contains = "/tmp/#temp";
  w_->fs.InjectFault(f);

  EXPECT_EQ(Run("BEGIN; INSERT INTO t VALUES (1, 'a')"), "OK");
  EXPECT_EQ(Run(big), "ERROR 1026");
  EXPECT_EQ(w_->fs.faults_fired(), 1u);
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM t"), std::vector<std::string>{"1"});
  // The session goes on: the same statement spills now, the transaction commits.
  EXPECT_EQ(Run("INSERT INTO t VALUES (2, 'b')"), "OK");
  EXPECT_EQ(Run(big), "OK");
  EXPECT_EQ(Run("COMMIT"), "OK");
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM t"), std::vector<std::string>{"302"});

  // In the binlog: the transaction once, with its 302 rows.
  auto reader = binlog::BinlogFileReader::Open(w_->binlog->FilePath(w_->binlog->CurrentPosition().first), true, &w_->fs);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  int gtids = 0, xids = 0, rows_events = 0;
  while (true) {
    auto ev = (*reader)->Next();
    ASSERT_TRUE(ev.ok()) << ev.status().ToString();
    if (!ev->has_value()) break;
    const uint8_t type = (*ev)->header.type;
    gtids += type == binlog::kGtidEvent;
    xids += type == binlog::kXidEvent;
    rows_events += type == binlog::kWriteRowsEvent;
  }
  EXPECT_EQ(gtids, 1);
  EXPECT_EQ(xids, 1);
  EXPECT_GE(rows_events, 3);
}

TEST_F(ExecTest, AStrictUpdateEndsWithTheConditionAndChangesNothingNorLogsIt) {
  ASSERT_EQ(Run("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')"), "OK");
  const std::string before = Rows("SELECT COUNT(*) FROM t")[0];
  // v is text: comparing it with 0 reads each row's v as a number.
  EXPECT_EQ(Run("UPDATE t SET v = 'z' WHERE v = 0"), "ERROR 1292");
  EXPECT_EQ(Run("UPDATE t SET v = 'z' WHERE id = '2abc'"), "ERROR 1292");
  EXPECT_EQ(Run("DELETE FROM t WHERE id = 1 / 0"), "ERROR 1365");
  EXPECT_EQ(Run("INSERT INTO t VALUES (4, 1 / 0)"), "ERROR 1365");
  EXPECT_EQ(Rows("SELECT v FROM t ORDER BY id"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM t")[0], before);
  // Only the first INSERT reached the binlog.
  EXPECT_EQ(Events(), (std::vector<std::string>{"Gtid", "Query BEGIN", "Table_map db.t",
                                               "Write_rows [1,'a'] [2,'b'] [3,'c']", "Xid"}));
  // IGNORE, and a mode that is not strict: warnings, and the rows change.
  EXPECT_EQ(Run("UPDATE IGNORE t SET v = 'y' WHERE id = '2abc'"), "OK");
  ASSERT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_EQ(ctx_.warnings[0].code, 1292);
  EXPECT_EQ(Run("SET sql_mode = ''; UPDATE t SET v = 'x' WHERE id = '3abc'"), "OK");
  EXPECT_EQ(ctx_.warnings.size(), 1u);
  EXPECT_EQ(Rows("SELECT v FROM t ORDER BY id"), (std::vector<std::string>{"a", "y", "x"}));
}

// An unknown function is 1305 before its arguments run (nothing they do
// happens); a server function (GET_LOCK) runs them and answers.
TEST_F(ExecTest, AnUnknownFunctionEvaluatesNoArgument) {
  EXPECT_EQ(Run("SELECT no_such_function(@x := 1)"), "ERROR 1305");
  EXPECT_EQ(Rows("SELECT @x IS NULL"), std::vector<std::string>{"1"});
  EXPECT_EQ(Rows("SELECT GET_LOCK(CONCAT('l', @y := 2), 0)"), std::vector<std::string>{"1"});
  EXPECT_EQ(Rows("SELECT @y, IS_USED_LOCK('l2') = CONNECTION_ID(), RELEASE_ALL_LOCKS()"),
            std::vector<std::string>{"2,1,1"});
}

TEST_F(ExecTest, AStatementKeepsAtMostMaxErrorCountWarnings) {
  std::string insert = "INSERT INTO t VALUES ";
  for (int i = 0; i < 1500; ++i) insert += (i ? ", (" : "(") + std::to_string(i) + ", 'x" + std::to_string(i) + "')";
  ASSERT_EQ(Run(insert), "OK");
  // Each row's v read as a number warns: 1500 rows, 1024 kept, all counted.
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM t WHERE v = 0"), std::vector<std::string>{"1500"});
  EXPECT_EQ(ctx_.warnings.size(), 1024u);
  EXPECT_EQ(ctx_.warnings.total(), 1500u);
  // max_error_count sets how many are kept; INSERT IGNORE's truncations
  // (each row's) are kept no more than the evaluator's.
  ASSERT_EQ(Run("SET max_error_count = 10"), "OK");
  ASSERT_EQ(Run("CREATE TABLE narrow (v VARCHAR(1))"), "OK");
  ASSERT_EQ(Run("INSERT IGNORE INTO narrow SELECT v FROM t"), "OK");
  EXPECT_EQ(ctx_.warnings.size(), 10u);
  EXPECT_EQ(ctx_.warnings.total(), 1500u);
  EXPECT_EQ(ctx_.warning_count(), 1500u);
  ASSERT_EQ(Run("SET max_error_count = DEFAULT"), "OK");
  // A constant warns once, however many rows it meets.
  EXPECT_EQ(Rows("SELECT COUNT(*) FROM t WHERE id < '10abc'"), std::vector<std::string>{"10"});
  EXPECT_EQ(ctx_.warnings.size(), 1u);
}

}  // namespace
}  // namespace sluice::exec
