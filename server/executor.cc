#include "server/executor.h"
#include "exec/result_set.h"
#include "exec/settings.h"
#include "exec/table_executor.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <optional>
#include <set>
#include <thread>
#include <unistd.h>

#include <fmt/format.h>

#include "acl/access_control.h"
#include "base/log.h"
#include "base/mysql_error.h"
#include "base/strings.h"
#include "binlog/binlog.h"
#include "exec/binlog_statements.h"
#include "exec/system_schema.h"
#include "protocol/command.h"
#include "protocol/constants.h"
#include "protocol/response.h"
#include "protocol/wire.h"
#include "server/options.h"
#include "server/plugin_registry.h"
#include "server/rpl/delegates.h"
#include "server/server.h"
#include "sql/eval.h"
#include "sql/lexer.h"
#include "sql/like.h"
#include "sql/parser.h"
#include "storage/engine/engine.h"
#include "storage/lock/lock_manager.h"
#include "vars/core_status.h"
#include "vars/core_vars.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
namespace p = sluice::protocol;
using acl::Priv;
using exec::CellOf;
using exec::ColumnFor;
using exec::GlobalReadLock;
using exec::IsSystemSchema;
using exec::KillState;
using exec::LockWaitTimeout;
using exec::MysqlSchemaTableDef;
using exec::Outcome;
using exec::PurgeBinaryLogs;
using exec::ResetMaster;
using exec::ResultSet;
using exec::SessionContext;
using exec::ShowBinaryLogs;
using exec::ShowBinlogEvents;
using exec::ShowMasterStatus;
using exec::SystemSchemaName;
using exec::SystemSchemaNames;
using exec::TableExecutor;
using exec::Warning;

namespace {

// Schemas that exist before the storage engine brings its own.
const std::vector<std::string>& BuiltinSchemas() { return SystemSchemaNames(); }

// The built-in schemas (any letter case) and the engine's databases.
bool SchemaExists(storage::Engine& engine, const std::string& db) {
  std::string l = base::AsciiLower(db);
  for (const auto& s : BuiltinSchemas()) {
    if (s == l) return true;
  }
  return engine.catalog().snapshot()->FindDatabase(db) != nullptr;
}

// Every schema, sorted as SHOW DATABASES lists them.
std::vector<std::string> AllSchemas(storage::Engine& engine) {
  std::vector<std::string> out = BuiltinSchemas();
  for (std::string& db : engine.catalog().snapshot()->DatabaseNames()) out.push_back(std::move(db));
  std::sort(out.begin(), out.end());
  return out;
}

Status NeedPrivileges(const char* which) { return MakeError(er::kSpecificAccessDenied, which); }

// The N of a MAX_EXECUTION_TIME(N) optimizer hint: MySQL reads hints only in
// a /*+ ... */ comment right after the query block's first keyword, here
// the SELECT that begins `text`. nullopt when there is none (or it is
// malformed: MySQL ignores a hint it cannot parse, with a warning).
std::optional<uint64_t> MaxExecutionTimeHint(std::string_view text) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip_space();
  if (text.size() - i < 6 || !sql::EqualsIgnoreCase(text.substr(i, 6), "SELECT")) return std::nullopt;
  i += 6;
  skip_space();
  if (text.substr(i, 3) != "/*+") return std::nullopt;
  const size_t close = text.find("*/", i + 3);
  if (close == std::string_view::npos) return std::nullopt;
  const std::string body = sql::AsciiUpper(text.substr(i + 3, close - i - 3));
  const size_t at = body.find("MAX_EXECUTION_TIME");
  if (at == std::string::npos) return std::nullopt;
  text = body;
  i = at + std::string_view("MAX_EXECUTION_TIME").size();
  skip_space();
  if (i >= text.size() || text[i] != '(') return std::nullopt;
  ++i;
  skip_space();
  uint64_t n = 0;
  size_t digits = 0;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && digits < 10; ++i, ++digits) {
    n = n * 10 + static_cast<uint64_t>(text[i] - '0');
  }
  skip_space();
  if (digits == 0 || i >= text.size() || text[i] != ')' || n > UINT32_MAX) return std::nullopt;
  return n;
}

// Not in base/mysql_error.h yet (kept local: that header is everyone's).
constexpr er::Error kVariableNotSettableInTransaction{1694, "HY000",
    "The system variable {} cannot be set when there is an ongoing transaction."};

// A statement that would change table `table` of database `db` (`priv` is
// what it needs: CREATE, DROP, INSERT, ...). The system schemas
// (exec/system_schema.h) hold views of server state and empty log tables,
// and no engine database may take their names, so nothing writes there:
//   - CREATE TABLE of a table the schema has passes (CreateTable answers
//     1050, or its note for IF NOT EXISTS, as for any existing table);
//   - any other change of a table of `mysql`: 1036 "Table 'x' is read only";
//   - anything else (new tables, the other schemas): 1044 on the database.
// OK for every other database.
Status CheckSystemSchemaWrite(const SessionContext& ctx, const std::string& db, const std::string& table,
                              Priv priv) {
  const std::string system = SystemSchemaName(db);
  if (system.empty()) return Status::OK();
  if (system == "mysql" && MysqlSchemaTableDef(table) != nullptr) {
    if (priv == Priv::kCreate) return Status::OK();
    return MakeError(er::kOpenAsReadonly, table);
  }
  return MakeError(er::kDbAccessDenied, ctx.priv_user, ctx.priv_host, system);
}

vars::GetScope ToGetScope(sql::VarScope s) {
  switch (s) {
    case sql::VarScope::kGlobal: return vars::GetScope::kGlobal;
    case sql::VarScope::kSession: return vars::GetScope::kSession;
    default: return vars::GetScope::kDefault;
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Expression context: what expressions see of the session and the server.

class SessionEval : public sql::EvalContext {
 public:
  SessionEval(Server& server, SessionContext& ctx) : server_(server), ctx_(ctx) {}

  // The values bound to the statement's '?'s (prepared statements); null:
  // none, and a '?' is error 1210.
  void SetParams(const std::vector<sql::Value>* params) { params_ = params; }

  // Column values for SHOW ... WHERE.
  void SetRow(const std::vector<std::string>* names, const std::vector<std::optional<std::string>>* row) {
    names_ = names;
    row_ = row;
  }

  Result<sql::Value> GetSystemVariable(std::string_view name, sql::VarScope scope) override {
    return server_.sys_vars().Get(name, ToGetScope(scope), ctx_.vars.get());
  }
  sql::Value GetUserVariable(std::string_view name) override {
    auto it = ctx_.user_vars.find(base::AsciiLower(name));
    if (it == ctx_.user_vars.end()) return sql::Value::Null();
    return it->second;
  }
  void SetUserVariable(std::string_view name, const sql::Value& v) override {
    ctx_.user_vars[base::AsciiLower(name)] = v;
  }
  Result<sql::Value> GetColumn(const sql::Expr& column) override {
    if (names_ && row_) {
      for (size_t i = 0; i < names_->size(); ++i) {
        if (base::AsciiLower((*names_)[i]) == base::AsciiLower(column.name)) {
          const auto& cell = (*row_)[i];
          return cell ? sql::Value::String(*cell) : sql::Value::Null();
        }
      }
    }
    return MakeError(er::kBadField, column.name, names_ ? "where clause" : "field list");
  }
  Result<sql::Value> GetParameter(int index) override {
    if (params_ == nullptr || index < 0 || static_cast<size_t>(index) >= params_->size()) {
      return sql::EvalContext::GetParameter(index);
    }
    return (*params_)[index];
  }
  std::optional<std::string> CurrentDatabase() override {
    if (ctx_.db.empty()) return std::nullopt;
    return ctx_.db;
  }
  std::string User() override { return ctx_.user + "@" + ctx_.host; }
  std::string CurrentUser() override { return ctx_.priv_user + "@" + ctx_.priv_host; }
  uint64_t ConnectionId() override { return ctx_.connection_id; }
  uint64_t LastInsertId() override { return ctx_.last_insert_id; }
  void SetLastInsertId(uint64_t id) override { ctx_.last_insert_id = id; }
  std::string ServerVersion() override {
    return ctx_.mariadb_binlog_client ? kMariadbBinlogVersion : kServerVersion;
  }
  int64_t RowCount() override { return ctx_.row_count; }
  int64_t FoundRows() override { return static_cast<int64_t>(ctx_.found_rows); }
  std::chrono::system_clock::time_point StatementTime() override { return statement_time_; }
  uint64_t MaxAllowedPacket() override { return server_.executor().MaxAllowedPacket(ctx_); }
  void AddWarning(uint16_t code, std::string message) override {
    ctx_.warnings.push_back({Warning::Level::kWarning, code, std::move(message)});
  }
  Status CheckInterrupt() override { return ctx_.CheckInterrupt(); }
  bool SleepFor(std::chrono::nanoseconds d) override {
    auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
      // max_execution_time ends the sleep as KILL QUERY does; the statement
      // itself ends without an error when SLEEP() was all it did (MySQL).
      if (ctx_.DeadlinePassed()) return false;
      KillState k = ctx_.kill_state();
      if (k == KillState::kQuery) {
        // MySQL: an interrupted SLEEP() returns 1 and, being all the query
        // did, the query ends without an error. The KILL QUERY is spent.
        int expected = static_cast<int>(KillState::kQuery);
        ctx_.killed.compare_exchange_strong(expected, static_cast<int>(KillState::kNone));
        return false;
      }
      if (k != KillState::kNone || server_.shutting_down()) return false;
      auto left = until - std::chrono::steady_clock::now();
      if (auto deadline = ctx_.statement_deadline()) left = std::min(left, *deadline - std::chrono::steady_clock::now());
      left = std::max<std::chrono::nanoseconds>(left, std::chrono::nanoseconds(0));
      std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(10)));
    }
    return true;
  }

 private:
  Server& server_;
  SessionContext& ctx_;
  const std::chrono::system_clock::time_point statement_time_ = std::chrono::system_clock::now();
  const std::vector<std::string>* names_ = nullptr;
  const std::vector<std::optional<std::string>>* row_ = nullptr;
  const std::vector<sql::Value>* params_ = nullptr;
};

// ---------------------------------------------------------------------------
// One statement.


class Executor::Statement {
 public:
  // `params`: the values of the statement's '?'s (prepared statements).
  Statement(Server& server, Executor& executor, SessionContext& ctx,
            const std::vector<sql::Value>* params = nullptr)
      : server_(server), executor_(executor), ctx_(ctx), eval_(server, ctx) {
    eval_.SetParams(params);
  }

  Outcome Run(const sql::ParsedStatement& ps);

 private:
  bool Has(Priv p) const { return ctx_.account && ctx_.account->HasGlobal(p); }
  bool HasDynamicOrSuper(std::string_view name) const {
    return ctx_.account && ctx_.account->HasDynamicOrSuper(name);
  }
  Result<sql::Value> Eval(const sql::Expr& e) { return sql::Evaluate(e, eval_); }
  // LIMIT [offset,] count: absent parts leave *limit / *offset unchanged.
  Status EvalLimit(const sql::Expr* limit_expr, const sql::Expr* offset_expr, uint64_t* limit,
                   uint64_t* offset) {
    for (auto [expr, out] : {std::pair{limit_expr, limit}, std::pair{offset_expr, offset}}) {
      if (!expr) continue;
      auto v = Eval(*expr);
      if (!v.ok()) return v.status();
      *out = v->ToUInt();
    }
    return Status::OK();
  }
  Status Count(vars::SessionCounter c) {
    if (ctx_.status) ctx_.status->Add(c);
    return Status::OK();
  }
  const vars::CoreStatus& cs() const { return server_.core_status(); }

  Outcome Select(const sql::SelectStmt& s);
  TableExecutor Tables() { return TableExecutor(server_.exec_env(), ctx_, eval_); }
  // 1044 / 1142 unless the account has `priv` on the database / table.
  Outcome NeedDbPriv(const std::string& db, Priv priv, const char* what);
  Outcome NeedTablePriv(const sql::TableRef& t, Priv priv, const char* what);
  Outcome Set(const sql::SetStmt& s);
  Outcome SetTransaction(const sql::SetTransactionStmt& s);
  Outcome SetPassword(const sql::SetPasswordStmt& s);
  Outcome Show(const sql::ShowStmt& s);
  Outcome Kill(const sql::KillStmt& s);
  Outcome Flush(const sql::FlushStmt& s);
  Outcome UserStatement(const sql::Stmt& s);
  Outcome Grant(const sql::GrantStmt& s);
  Outcome Revoke(const sql::RevokeStmt& s);

  // SHOW helpers: LIKE / WHERE filtering over name/value rows.
  Status FilterRows(const sql::ShowStmt& s, ResultSet* rs, size_t like_column);
  Result<acl::AccountName> ResolveUser(const sql::UserSpec& u) const;
  std::vector<acl::AccountName> ResolveUsers(const std::vector<sql::UserSpec>& users) const;
  Status ResolvePrivLevel(const sql::PrivLevel& in, acl::PrivLevel* out) const;
  Status CheckGrantOption(const acl::PrivLevel& level) const;
  void AddAclWarnings(const std::vector<acl::Warning>& w);

  Server& server_;
  Executor& executor_;
  SessionContext& ctx_;
  SessionEval eval_;
};

Result<acl::AccountName> Executor::Statement::ResolveUser(const sql::UserSpec& u) const {
  if (u.current_user) return acl::AccountName{ctx_.priv_user, ctx_.priv_host};
  return acl::AccountName{u.name, u.host};
}

void Executor::Statement::AddAclWarnings(const std::vector<acl::Warning>& ws) {
  for (const auto& w : ws) {
    ctx_.warnings.push_back({w.level == acl::Warning::Level::kNote ? Warning::Level::kNote
                                                                    : Warning::Level::kWarning,
                             w.code, w.message});
  }
}

Outcome Executor::Statement::Run(const sql::ParsedStatement& ps) {
  const sql::Stmt& st = *ps.stmt;
  switch (st.kind) {
    case sql::StmtKind::kEmpty:
      return {};
    case sql::StmtKind::kSelect:
      Count(cs().com_select);
      return Select(st.As<sql::SelectStmt>());
    case sql::StmtKind::kSet:
      Count(cs().com_set_option);
      return Set(st.As<sql::SetStmt>());
    case sql::StmtKind::kSetTransaction:
      Count(cs().com_set_option);
      return SetTransaction(st.As<sql::SetTransactionStmt>());
    case sql::StmtKind::kSetPassword: {
      Count(cs().com_set_option);
      Outcome o;
      o.error = server_.read_only_mode().Check(ctx_);  // account changes count as writes
      if (!o.error.ok()) return o;
      return SetPassword(st.As<sql::SetPasswordStmt>());
    }
    case sql::StmtKind::kShow:
      return Show(st.As<sql::ShowStmt>());
    case sql::StmtKind::kUse: {
      Count(cs().com_change_db);
      Outcome o;
      o.error = executor_.UseDatabase(ctx_, st.As<sql::UseStmt>().database);
      return o;
    }
    case sql::StmtKind::kKill:
      Count(cs().com_kill);
      return Kill(st.As<sql::KillStmt>());
    case sql::StmtKind::kShutdown: {
      Outcome o;
      if (!Has(Priv::kShutdown)) {
        o.error = NeedPrivileges("SHUTDOWN");
        return o;
      }
      SLUICE_LOG_SYSTEM(server_.log(), 10910, "Received SHUTDOWN from user {}. Shutting down sluiced.",
                        ctx_.priv_user);
      server_.RequestShutdown();
      return o;
    }
    case sql::StmtKind::kFlush:
      Count(cs().com_flush);
      return Flush(st.As<sql::FlushStmt>());
    case sql::StmtKind::kStartTransaction: {
      Count(cs().com_begin);
      const auto& s = st.As<sql::StartTransactionStmt>();
      Outcome o;
      o.error = Tables().Begin(s.consistent_snapshot, s.read_only.value_or(false));
      return o;
    }
    case sql::StmtKind::kCommit: {
      Count(cs().com_commit);
      Outcome o;
      o.error = Tables().Commit();
      return o;
    }
    case sql::StmtKind::kRollback: {
      const auto& s = st.As<sql::RollbackStmt>();
      Outcome o;
      if (!s.savepoint.empty()) {
        Count(cs().com_rollback_to_savepoint);
        o.error = Tables().RollbackToSavepoint(s.savepoint);
        return o;
      }
      Count(cs().com_rollback);
      o.error = Tables().Rollback();
      return o;
    }
    case sql::StmtKind::kSavepoint: {
      const auto& s = st.As<sql::SavepointStmt>();
      Count(s.release ? cs().com_release_savepoint : cs().com_savepoint);
      Outcome o;
      o.error = s.release ? Tables().ReleaseSavepoint(s.name) : Tables().Savepoint(s.name);
      return o;
    }
    case sql::StmtKind::kUnlockTables: {
      Count(cs().com_unlock_tables);
      Outcome o;
      o.error = Tables().UnlockTables();
      return o;
    }
    case sql::StmtKind::kLockTables: {
      Count(cs().com_lock_tables);
      return Tables().LockTables(st.As<sql::TableLocksStmt>());
    }
    case sql::StmtKind::kDo: {
      Outcome o;
      for (const auto& e : st.As<sql::DoStmt>().exprs) {
        auto v = Eval(*e);
        if (!v.ok()) {
          o.error = v.status();
          return o;
        }
      }
      return o;
    }
    case sql::StmtKind::kCreateUser:
    case sql::StmtKind::kAlterUser:
    case sql::StmtKind::kDropUser:
    case sql::StmtKind::kRenameUser:
    case sql::StmtKind::kGrant:
    case sql::StmtKind::kRevoke: {
      // read_only covers the accounts too (MySQL): an HA tool's demoted
      // primary must not diverge from its new source by a GRANT either.
      Outcome o;
      o.error = server_.read_only_mode().Check(ctx_);
      if (!o.error.ok()) return o;
      if (st.kind == sql::StmtKind::kGrant) {
        Count(cs().com_grant);
        return Grant(st.As<sql::GrantStmt>());
      }
      if (st.kind == sql::StmtKind::kRevoke) {
        Count(cs().com_revoke);
        return Revoke(st.As<sql::RevokeStmt>());
      }
      return UserStatement(st);
    }
    case sql::StmtKind::kPrepare:
      return executor_.SqlPrepare(ctx_, st.As<sql::PrepareStmt>());
    case sql::StmtKind::kExecute:
      return executor_.SqlExecute(ctx_, st.As<sql::ExecuteStmt>());
    case sql::StmtKind::kDeallocatePrepare:
      return executor_.SqlDeallocate(ctx_, st.As<sql::DeallocatePrepareStmt>());
    case sql::StmtKind::kPurgeBinaryLogs: {
      const auto& s = st.As<sql::PurgeBinaryLogsStmt>();
      Count(s.before ? cs().com_purge_before_date : cs().com_purge);
      Outcome o;
      if (!ctx_.account || !ctx_.account->HasDynamicOrSuper("BINLOG_ADMIN")) {
        o.error = NeedPrivileges("SUPER or BINLOG_ADMIN");
        return o;
      }
      o.error = Tables().Commit();  // implicit commit
      if (!o.error.ok()) return o;
      int64_t before = 0;
      if (s.before) {
        Result<sql::Value> v = Eval(*s.before);
        if (!v.ok()) {
          o.error = v.status();
          return o;
        }
        // A datetime in the server's local time, as mysqld reads it.
        struct tm tm {};
        const std::string text = v->is_null() ? std::string() : v->ToString();
        if (std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                        &tm.tm_min, &tm.tm_sec) < 3) {
          o.error = MakeError(er::kWrongArguments, "PURGE LOGS BEFORE");
          return o;
        }
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        tm.tm_isdst = -1;
        before = static_cast<int64_t>(mktime(&tm));
      }
      o.error = PurgeBinaryLogs(server_.binlog(), s, before);
      return o;
    }
    case sql::StmtKind::kResetMaster: {
      Count(cs().com_reset);
      Outcome o;
      if (!Has(Priv::kReload)) {
        o.error = NeedPrivileges("RELOAD");
        return o;
      }
      o.error = Tables().Commit();  // implicit commit
      if (!o.error.ok()) return o;
      o.error = ResetMaster(server_.binlog(), st.As<sql::ResetMasterStmt>().to);
      // Observers forget positions of the files that are gone (semisync).
      if (o.error.ok()) server_.replication().AfterResetMaster();
      return o;
    }
    case sql::StmtKind::kInstallPlugin:
    case sql::StmtKind::kUninstallPlugin: {
      // As MySQL: INSERT (INSTALL) or DELETE (UNINSTALL) on mysql.plugin,
      // an implicit commit, and nothing written to the binlog.
      const bool install = st.kind == sql::StmtKind::kInstallPlugin;
      Count(install ? cs().com_install_plugin : cs().com_uninstall_plugin);
      Outcome o;
      const Priv priv = install ? Priv::kInsert : Priv::kDelete;
      if (!(ctx_.account && ctx_.account->HasDb("mysql", priv))) {
        o.error = MakeError(er::kTableAccessDenied, install ? "INSERT" : "DELETE", ctx_.priv_user, ctx_.host,
                            "plugin");
        return o;
      }
      o.error = Tables().Commit();
      if (!o.error.ok()) return o;
      if (install) {
        const auto& s = st.As<sql::InstallPluginStmt>();
        o.error = server_.plugins().Install(s.name, s.soname);
      } else {
        o.error = server_.plugins().Uninstall(st.As<sql::UninstallPluginStmt>().name);
      }
      return o;
    }
    case sql::StmtKind::kCreateDatabase: {
      Count(cs().com_create_db);
      const auto& s = st.As<sql::CreateDatabaseStmt>();
      if (Outcome o = NeedDbPriv(s.name, Priv::kCreate, "CREATE"); !o.error.ok()) return o;
      if (IsSystemSchema(s.name)) {
        // It exists already (1007, a note with IF NOT EXISTS, as for any
        // database: dumps say CREATE DATABASE IF NOT EXISTS `mysql`), and an
        // engine database must never shadow it. information_schema: 1044.
        Outcome o;
        const std::string name = SystemSchemaName(s.name);
        if (name == "information_schema") {
          o.error = MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, name);
        } else if (s.if_not_exists) {
          ctx_.warnings.push_back({Warning::Level::kNote, er::kDbCreateExists.code,
                                   fmt::format("Can't create database '{}'; database exists", s.name)});
        } else {
          o.error = MakeError(er::kDbCreateExists, s.name);
        }
        return o;
      }
      return Tables().CreateDatabase(s);
    }
    case sql::StmtKind::kDropDatabase: {
      Count(cs().com_drop_db);
      const auto& s = st.As<sql::DropDatabaseStmt>();
      if (Outcome o = NeedDbPriv(s.name, Priv::kDrop, "DROP"); !o.error.ok()) return o;
      if (IsSystemSchema(s.name)) {
        Outcome o;
        o.error = MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, SystemSchemaName(s.name));
        return o;
      }
      return Tables().DropDatabase(s);
    }
    case sql::StmtKind::kCreateTable: {
      Count(cs().com_create_table);
      const auto& s = st.As<sql::CreateTableStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kCreate, "CREATE"); !o.error.ok()) return o;
      return Tables().CreateTable(s);
    }
    case sql::StmtKind::kDropTable: {
      Count(cs().com_drop_table);
      const auto& s = st.As<sql::DropTableStmt>();
      for (const auto& t : s.tables) {
        if (Outcome o = NeedTablePriv(t, Priv::kDrop, "DROP"); !o.error.ok()) return o;
      }
      return Tables().DropTable(s);
    }
    case sql::StmtKind::kCreateIndex: {
      Count(cs().com_create_index);
      const auto& s = st.As<sql::CreateIndexStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kIndex, "INDEX"); !o.error.ok()) return o;
      return Tables().CreateIndex(s);
    }
    case sql::StmtKind::kDropIndex: {
      Count(cs().com_drop_index);
      const auto& s = st.As<sql::DropIndexStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kIndex, "INDEX"); !o.error.ok()) return o;
      return Tables().DropIndex(s);
    }
    case sql::StmtKind::kAlterTable: {
      Count(cs().com_alter_table);
      const auto& s = st.As<sql::AlterTableStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kAlter, "ALTER"); !o.error.ok()) return o;
      // ALTER ... RENAME: also DROP on the old name, CREATE and INSERT on the new (MySQL).
      for (const auto& spec : s.specs) {
        if (spec.kind != sql::AlterSpec::Kind::kRenameTable) continue;
        if (Outcome o = NeedTablePriv(s.table, Priv::kDrop, "DROP"); !o.error.ok()) return o;
        if (Outcome o = NeedTablePriv(spec.new_table, Priv::kCreate, "CREATE"); !o.error.ok()) return o;
        if (Outcome o = NeedTablePriv(spec.new_table, Priv::kInsert, "INSERT"); !o.error.ok()) return o;
      }
      return Tables().AlterTable(s);
    }
    case sql::StmtKind::kRenameTable: {
      Count(cs().com_rename_table);
      const auto& s = st.As<sql::RenameTableStmt>();
      for (const auto& [from, to] : s.renames) {
        if (Outcome o = NeedTablePriv(from, Priv::kAlter, "ALTER"); !o.error.ok()) return o;
        if (Outcome o = NeedTablePriv(from, Priv::kDrop, "DROP"); !o.error.ok()) return o;
        if (Outcome o = NeedTablePriv(to, Priv::kCreate, "CREATE"); !o.error.ok()) return o;
        if (Outcome o = NeedTablePriv(to, Priv::kInsert, "INSERT"); !o.error.ok()) return o;
      }
      return Tables().RenameTable(s);
    }
    case sql::StmtKind::kTruncate: {
      Count(cs().com_truncate);
      const auto& s = st.As<sql::TruncateStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kDrop, "DROP"); !o.error.ok()) return o;
      return Tables().Truncate(s);
    }
    case sql::StmtKind::kInsert: {
      const auto& s = st.As<sql::InsertStmt>();
      Count(s.replace ? cs().com_replace : cs().com_insert);
      if (Outcome o = NeedTablePriv(s.table, Priv::kInsert, s.replace ? "REPLACE" : "INSERT"); !o.error.ok()) {
        return o;
      }
      return Tables().Insert(s);
    }
    case sql::StmtKind::kUpdate: {
      Count(cs().com_update);
      const auto& s = st.As<sql::UpdateStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kUpdate, "UPDATE"); !o.error.ok()) return o;
      return Tables().Update(s);
    }
    case sql::StmtKind::kDelete: {
      Count(cs().com_delete);
      const auto& s = st.As<sql::DeleteStmt>();
      if (Outcome o = NeedTablePriv(s.table, Priv::kDelete, "DELETE"); !o.error.ok()) return o;
      return Tables().Delete(s);
    }
    case sql::StmtKind::kExplain: {
      // The privileges of the explained statement (MySQL): SELECT on the
      // tables of a SELECT (checked per table by Explain), the statement's
      // own on the table of an UPDATE / DELETE / INSERT / REPLACE.
      // It counts as the explained statement (Com_select ...), as in MySQL.
      const auto& s = st.As<sql::ExplainStmt>();
      const sql::Stmt& inner = *s.stmt;
      Outcome o;
      if (inner.kind == sql::StmtKind::kSelect) {
        Count(cs().com_select);
      } else if (inner.kind == sql::StmtKind::kUpdate) {
        Count(cs().com_update);
        o = NeedTablePriv(inner.As<sql::UpdateStmt>().table, Priv::kUpdate, "UPDATE");
      } else if (inner.kind == sql::StmtKind::kDelete) {
        Count(cs().com_delete);
        o = NeedTablePriv(inner.As<sql::DeleteStmt>().table, Priv::kDelete, "DELETE");
      } else if (inner.kind == sql::StmtKind::kInsert) {
        const auto& ins = inner.As<sql::InsertStmt>();
        Count(ins.replace ? cs().com_replace : cs().com_insert);
        o = NeedTablePriv(ins.table, Priv::kInsert, ins.replace ? "REPLACE" : "INSERT");
      }
      if (!o.error.ok()) return o;
      return Tables().Explain(s);
    }
    default:
      break;
  }
  Outcome o;
  o.error = MakeError(er::kNotSupportedYet, "this statement");
  return o;
}

Outcome Executor::Statement::NeedDbPriv(const std::string& db, Priv priv, const char* what) {
  Outcome o;
  (void)what;
  if (!(ctx_.account && ctx_.account->HasDb(db, priv))) {
    o.error = MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, db);
  }
  return o;
}

Outcome Executor::Statement::NeedTablePriv(const sql::TableRef& t, Priv priv, const char* what) {
  Outcome o;
  std::string db = t.schema.empty() ? ctx_.db : t.schema;
  if (db.empty()) {
    o.error = MakeError(er::kNoDb);
  } else if (!(ctx_.account && ctx_.account->HasDb(db, priv))) {
    o.error = MakeError(er::kTableAccessDenied, what, ctx_.priv_user, ctx_.host, t.name);
  } else {
    // Every statement that changes a table comes through here.
    o.error = CheckSystemSchemaWrite(ctx_, db, t.name, priv);
  }
  return o;
}

Outcome Executor::Statement::Select(const sql::SelectStmt& s) {
  Outcome o;
  // Tables and subqueries (privileges checked per table, 1142 before 1146
  // as in MySQL) are read by the TableExecutor.
  bool subquery = s.where && sql::HasSubquery(*s.where);
  for (const auto& item : s.items) subquery = subquery || (item.expr && sql::HasSubquery(*item.expr));
  if (!s.from.empty() || subquery) return Tables().Select(s);
  bool emit = true;
  if (s.where) {
    auto w = Eval(*s.where);
    if (!w.ok()) {
      o.error = w.status();
      return o;
    }
    emit = w->ToBool().value_or(false);
  }
  uint64_t limit = UINT64_MAX, offset = 0;
  o.error = EvalLimit(s.limit.get(), s.offset.get(), &limit, &offset);
  if (!o.error.ok()) return o;
  if (offset > 0 || limit == 0) emit = false;
  ResultSet rs;
  std::vector<std::optional<std::string>> row;
  for (const auto& item : s.items) {
    if (item.star) {
      o.error = MakeError(er::kNoTablesUsed);
      return o;
    }
    auto v = Eval(*item.expr);
    if (!v.ok()) {
      o.error = v.status();
      return o;
    }
    rs.columns.push_back(ColumnFor(item.ColumnName(), v.value()));
    row.push_back(CellOf(v.value()));
  }
  if (emit) rs.rows.push_back(std::move(row));
  ctx_.found_rows = rs.rows.size();
  o.result = std::move(rs);
  return o;
}

Outcome Executor::Statement::Set(const sql::SetStmt& s) {
  Outcome o;
  auto& sv = server_.sys_vars();
  std::vector<Status> warnings;
  acl::AccountName me{ctx_.priv_user, ctx_.priv_host};
  vars::PersistedBy by{me.user, me.host};
  for (const auto& item : s.items) {
    switch (item.kind) {
      case sql::SetItem::Kind::kUserVar: {
        auto v = Eval(*item.value);
        if (!v.ok()) {
          o.error = v.status();
          return o;
        }
        ctx_.user_vars[base::AsciiLower(item.name)] = v.value();
        break;
      }
      case sql::SetItem::Kind::kSystemVar: {
        vars::SetScope scope = vars::SetScope::kDefault;
        switch (item.scope) {
          case sql::VarScope::kGlobal: scope = vars::SetScope::kGlobal; break;
          case sql::VarScope::kSession: scope = vars::SetScope::kSession; break;
          case sql::VarScope::kPersist: scope = vars::SetScope::kPersist; break;
          case sql::VarScope::kPersistOnly: scope = vars::SetScope::kPersistOnly; break;
          default: break;
        }
        if (!sv.Exists(item.name)) {
          o.error = MakeError(er::kUnknownSystemVariable, item.name);
          return o;
        }
        if (scope == vars::SetScope::kGlobal || scope == vars::SetScope::kPersist ||
            scope == vars::SetScope::kPersistOnly) {
          if (!HasDynamicOrSuper("SYSTEM_VARIABLES_ADMIN")) {
            o.error = NeedPrivileges("SUPER or SYSTEM_VARIABLES_ADMIN");
            return o;
          }
        }
        const std::string lname = base::AsciiLower(item.name);
        if (lname == "sql_log_bin" && (scope == vars::SetScope::kDefault || scope == vars::SetScope::kSession)) {
          // A restricted session variable (MySQL): it hides changes from
          // replicas, so it needs an admin privilege, and it must not
          // change half-way through a transaction's events.
          if (!HasDynamicOrSuper("SYSTEM_VARIABLES_ADMIN") && !HasDynamicOrSuper("SESSION_VARIABLES_ADMIN")) {
            o.error = NeedPrivileges("SUPER, SYSTEM_VARIABLES_ADMIN or SESSION_VARIABLES_ADMIN");
            return o;
          }
          if (ctx_.in_transaction || (ctx_.trx && ctx_.trx->active())) {
            o.error = MakeError(kVariableNotSettableInTransaction, "sql_log_bin");
            return o;
          }
        }
        const bool read_only_switch =
            (lname == "read_only" || lname == "super_read_only") &&
            (scope == vars::SetScope::kGlobal || scope == vars::SetScope::kPersist);
        if (read_only_switch && !server_.global_read_lock().HeldBy(ctx_.connection_id)) {
          // As MySQL: turning read_only on waits for writes in progress and
          // for another session's FLUSH TABLES WITH READ LOCK (lock and let
          // go at once); a session holding FTWRL itself may set it.
          GlobalReadLock& grl = server_.global_read_lock();
          o.error = ctx_.LockWaitError(grl.Lock(ctx_.connection_id, LockWaitTimeout(server_.exec_env(), ctx_), &ctx_.killed));
          if (!o.error.ok()) return o;
          grl.Unlock(ctx_.connection_id);
        }
        Status st;
        if (item.value->kind == sql::ExprKind::kDefault) {
          st = sv.SetDefault(item.name, scope, ctx_.vars.get(), &warnings, by);
        } else {
          Result<sql::Value> v = sql::Value();
          // Bare words (ON, OFF, TRADITIONAL) arrive as column references.
          if (item.value->kind == sql::ExprKind::kColumn && item.value->table.empty()) {
            v = sql::Value::String(item.value->name);
          } else {
            v = Eval(*item.value);
          }
          if (!v.ok()) {
            o.error = v.status();
            return o;
          }
          st = sv.Set(item.name, scope, v.value(), ctx_.vars.get(), &warnings, by);
        }
        if (st.ok() && read_only_switch) {
          // super_read_only ON implies read_only ON; read_only OFF implies
          // super_read_only OFF (MySQL keeps the pair consistent the same way).
          auto now = sv.Get(lname, vars::GetScope::kGlobal, nullptr);
          const bool on = now.ok() && now->ToInt() != 0;
          if (lname == "super_read_only" && on) {
            st = sv.Set("read_only", scope, sql::Value::Bool(true), ctx_.vars.get(), &warnings, by);
          } else if (lname == "read_only" && !on) {
            st = sv.Set("super_read_only", scope, sql::Value::Bool(false), ctx_.vars.get(), &warnings, by);
          }
        }
        if (!st.ok()) {
          o.error = st;
          return o;
        }
        break;
      }
      case sql::SetItem::Kind::kNames:
      case sql::SetItem::Kind::kCharset: {
        std::string cs = item.charset.empty() ? "utf8mb4" : base::AsciiLower(item.charset);
        if (cs == "utf8") cs = "utf8mb3";
        static const std::vector<std::string> known = {"utf8mb4", "utf8mb3", "latin1", "ascii", "binary"};
        if (std::find(known.begin(), known.end(), cs) == known.end()) {
          o.error = MakeError(er::kUnknownCharacterSet, item.charset);
          return o;
        }
        std::vector<std::string> names = {"character_set_client", "character_set_results"};
        if (item.kind == sql::SetItem::Kind::kNames) names.push_back("character_set_connection");
        for (const auto& n : names) {
          Status st = sv.Set(n, vars::SetScope::kSession, sql::Value::String(cs), ctx_.vars.get(), &warnings, by);
          if (!st.ok()) {
            o.error = st;
            return o;
          }
        }
        if (item.kind == sql::SetItem::Kind::kNames) {
          std::string coll = item.collation.empty()
                                 ? (cs == "utf8mb4" ? "utf8mb4_0900_ai_ci"
                                    : cs == "utf8mb3" ? "utf8mb3_general_ci"
                                    : cs == "latin1" ? "latin1_swedish_ci"
                                    : cs == "ascii" ? "ascii_general_ci" : "binary")
                                 : base::AsciiLower(item.collation);
          Status st = sv.Set("collation_connection", vars::SetScope::kSession, sql::Value::String(coll),
                             ctx_.vars.get(), &warnings, by);
          if (!st.ok()) {
            o.error = st;
            return o;
          }
        }
        break;
      }
    }
  }
  for (const auto& w : warnings) ctx_.warnings.push_back({Warning::Level::kWarning, w.mysql_errno(), w.message()});
  return o;
}

Outcome Executor::Statement::SetTransaction(const sql::SetTransactionStmt& s) {
  Outcome o;
  auto& sv = server_.sys_vars();
  std::vector<Status> warnings;
  vars::SetScope scope = s.scope == sql::VarScope::kGlobal ? vars::SetScope::kGlobal : vars::SetScope::kSession;
  if (scope == vars::SetScope::kGlobal && !HasDynamicOrSuper("SYSTEM_VARIABLES_ADMIN")) {
    o.error = NeedPrivileges("SUPER or SYSTEM_VARIABLES_ADMIN");
    return o;
  }
  if (s.isolation) {
    std::string level = sql::IsolationLevelName(*s.isolation);
    std::replace(level.begin(), level.end(), ' ', '-');
    o.error = sv.Set("transaction_isolation", scope, sql::Value::String(level), ctx_.vars.get(), &warnings);
    if (!o.error.ok()) return o;
  }
  if (s.read_only) {
    o.error = sv.Set("transaction_read_only", scope, sql::Value::Bool(*s.read_only), ctx_.vars.get(), &warnings);
  }
  return o;
}

Outcome Executor::Statement::SetPassword(const sql::SetPasswordStmt& s) {
  Outcome o;
  acl::AccountName target{ctx_.priv_user, ctx_.priv_host};
  if (s.user) {
    auto r = ResolveUser(*s.user);
    target = r.value();
    bool self = target.user == ctx_.priv_user && target.host == ctx_.priv_host;
    if (!self && !Has(Priv::kCreateUser)) {
      o.error = MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, "mysql");
      return o;
    }
  }
  o.error = server_.acl().SetPassword(target, s.password);
  return o;
}

Outcome Executor::Statement::Kill(const sql::KillStmt& s) {
  Outcome o;
  auto idv = Eval(*s.id);
  if (!idv.ok()) {
    o.error = idv.status();
    return o;
  }
  uint64_t id = idv->ToUInt();
  bool self = id == ctx_.connection_id;
  if (!self) {
    bool may = HasDynamicOrSuper("CONNECTION_ADMIN");
    if (!may) {
      // Without CONNECTION_ADMIN one may kill only one's own user's threads.
      bool own = false, found = false;
      for (const auto& pi : server_.ProcessList()) {
        if (pi.id == id) {
          found = true;
          own = pi.user == ctx_.user;
        }
      }
      if (!found) {
        o.error = MakeError(er::kNoSuchThread, id);
        return o;
      }
      if (!own) {
        o.error = MakeError(er::kKillDenied, id);
        return o;
      }
    }
  }
  if (self) {
    if (s.query_only) {
      o.error = MakeError(er::kQueryInterrupted);
    } else {
      o.close_connection = true;
      o.error = MakeError(er::kQueryInterrupted);
      ctx_.killed.store(static_cast<int>(KillState::kConnection));
    }
    return o;
  }
  o.error = server_.Kill(static_cast<uint32_t>(id), !s.query_only);
  return o;
}

Outcome Executor::Statement::Flush(const sql::FlushStmt& s) {
  Outcome o;
  if (!Has(Priv::kReload)) {
    o.error = NeedPrivileges("RELOAD");
    return o;
  }
  for (auto opt : s.options) {
    switch (opt) {
      case sql::FlushOption::kPrivileges:
        o.error = server_.acl().FlushPrivileges();
        if (!o.error.ok()) return o;
        break;
      case sql::FlushOption::kTablesWithReadLock:
        o.error = Tables().LockGlobalRead();
        if (!o.error.ok()) return o;
        break;
      case sql::FlushOption::kStatus:
        if (ctx_.status) ctx_.status->Flush();
        break;
      case sql::FlushOption::kBinaryLogs:
      case sql::FlushOption::kLogs:
        // FLUSH [BINARY] LOGS closes the binlog file and starts the next.
        if (server_.binlog() != nullptr) {
          o.error = server_.binlog()->Rotate();
          if (!o.error.ok()) return o;
        }
        break;
      default:
        break;  // logs, tables, hosts: nothing to flush yet
    }
  }
  return o;
}

Status Executor::Statement::FilterRows(const sql::ShowStmt& s, ResultSet* rs, size_t like_column) {
  if (s.like) {
    std::erase_if(rs->rows, [&](const auto& row) {
      return !row[like_column] || !sql::LikeMatch(*row[like_column], *s.like);
    });
  }
  if (s.where) {
    std::vector<std::string> names;
    for (const auto& c : rs->columns) names.push_back(c.name);
    std::vector<std::vector<std::optional<std::string>>> kept;
    for (auto& row : rs->rows) {
      eval_.SetRow(&names, &row);
      auto v = Eval(*s.where);
      eval_.SetRow(nullptr, nullptr);
      if (!v.ok()) return v.status();
      if (v->ToBool().value_or(false)) kept.push_back(std::move(row));
    }
    rs->rows = std::move(kept);
  }
  return Status::OK();
}

Outcome Executor::Statement::Show(const sql::ShowStmt& s) {
  Outcome o;
  ResultSet rs;
  bool global = s.scope == sql::VarScope::kGlobal;
  switch (s.what) {
    case sql::ShowKind::kVariables: {
      Count(cs().com_show_variables);
      rs.AddTextColumn("Variable_name", 64);
      rs.AddTextColumn("Value", 1024);
      for (auto& r : server_.sys_vars().List(global ? vars::GetScope::kGlobal : vars::GetScope::kSession,
                                             ctx_.vars.get())) {
        rs.rows.push_back({r.name, r.value ? r.value : std::optional<std::string>("")});
      }
      break;
    }
    case sql::ShowKind::kStatus: {
      Count(cs().com_show_status);
      rs.AddTextColumn("Variable_name", 64);
      rs.AddTextColumn("Value", 1024);
      for (auto& r : server_.status_vars().List(global ? vars::StatusScope::kGlobal : vars::StatusScope::kSession,
                                                ctx_.status.get())) {
        rs.rows.push_back({r.name, r.value});
      }
      break;
    }
    case sql::ShowKind::kProcesslist: {
      Count(cs().com_show_processlist);
      rs.AddIntColumn("Id");
      rs.AddTextColumn("User", 32);
      rs.AddTextColumn("Host", 261);
      rs.AddTextColumn("db", 64);
      rs.AddTextColumn("Command", 16);
      rs.AddIntColumn("Time", false);
      rs.AddTextColumn("State", 30);
      rs.AddTextColumn("Info", s.full ? 65535 : 100);
      bool all = Has(Priv::kProcess);
      auto now = std::chrono::steady_clock::now();
      auto list = server_.ProcessList();
      std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
      for (const auto& pi : list) {
        if (!all && pi.user != ctx_.user) continue;
        std::optional<std::string> info;
        if (pi.id == ctx_.connection_id) {
          info = ctx_.process_info().info;
        } else if (!pi.info.empty()) {
          info = pi.info;
        }
        if (info && !s.full && info->size() > 100) info->resize(100);
        rs.rows.push_back({std::to_string(pi.id), pi.user, pi.host,
                           pi.db.empty() ? std::nullopt : std::optional<std::string>(pi.db), pi.command,
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now - pi.since).count()),
                           pi.state, info});
      }
      break;
    }
    case sql::ShowKind::kDatabases: {
      Count(cs().com_show_databases);
      rs.AddTextColumn(s.like ? "Database (" + *s.like + ")" : "Database", 64);
      bool all = Has(Priv::kShowDatabases);
      for (const auto& db : AllSchemas(server_.engine())) {
        if (all || db == "information_schema" || (ctx_.account && ctx_.account->HasAnyDbAccess(db))) {
          rs.rows.push_back({db});
        }
      }
      break;
    }
    case sql::ShowKind::kWarnings:
    case sql::ShowKind::kErrors: {
      bool errors_only = s.what == sql::ShowKind::kErrors;
      Count(errors_only ? cs().com_show_errors : cs().com_show_warnings);
      std::vector<Warning> list;
      for (const auto& w : ctx_.warnings) {
        if (!errors_only || w.level == Warning::Level::kError) list.push_back(w);
      }
      if (s.count_only) {
        p::ColumnDefinition c = ColumnFor(errors_only ? "@@session.error_count" : "@@session.warning_count",
                                          sql::Value::UInt(0));
        rs.columns.push_back(c);
        rs.rows.push_back({std::to_string(list.size())});
        break;
      }
      uint64_t limit = UINT64_MAX, offset = 0;
      o.error = EvalLimit(s.limit.get(), s.offset.get(), &limit, &offset);
      if (!o.error.ok()) return o;
      rs.AddTextColumn("Level", 7);
      rs.AddIntColumn("Code");
      rs.AddTextColumn("Message", 512);
      for (size_t i = 0; i < list.size(); ++i) {
        if (i < offset || i - offset >= limit) continue;
        const auto& w = list[i];
        const char* level = w.level == Warning::Level::kNote ? "Note"
                            : w.level == Warning::Level::kError ? "Error" : "Warning";
        rs.rows.push_back({level, std::to_string(w.code), w.message});
      }
      o.result = std::move(rs);
      return o;  // SHOW WARNINGS keeps the diagnostics it shows
    }
    case sql::ShowKind::kGrants:
    case sql::ShowKind::kCreateUser: {
      acl::AccountName who{ctx_.priv_user, ctx_.priv_host};
      if (s.user) who = ResolveUser(*s.user).value();
      bool self = who.user == ctx_.priv_user && who.host == ctx_.priv_host;
      if (!self && !(ctx_.account && ctx_.account->HasDb("mysql", Priv::kSelect))) {
        o.error = MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, "mysql");
        return o;
      }
      if (s.what == sql::ShowKind::kGrants) {
        auto grants = server_.acl().ShowGrants(who);
        if (!grants.ok()) {
          o.error = grants.status();
          return o;
        }
        rs.AddTextColumn("Grants for " + who.user + "@" + who.host, 1024);
        for (auto& g : grants.value()) rs.rows.push_back({g});
      } else {
        auto text = server_.acl().ShowCreateUser(who);
        if (!text.ok()) {
          o.error = text.status();
          return o;
        }
        rs.AddTextColumn("CREATE USER for " + who.user + "@" + who.host, 1024);
        rs.rows.push_back({text.value()});
      }
      o.result = std::move(rs);
      return o;
    }
    case sql::ShowKind::kMasterStatus:
    case sql::ShowKind::kBinaryLogs: {
      if (!Has(Priv::kSuper) && !Has(Priv::kReplicationClient)) {
        o.error = NeedPrivileges("SUPER, REPLICATION CLIENT");
        return o;
      }
      if (s.what == sql::ShowKind::kBinaryLogs) {
        Count(cs().com_show_binlogs);
        Result<ResultSet> logs = ShowBinaryLogs(server_.binlog());  // 1381 when log_bin is OFF
        if (!logs.ok()) {
          o.error = logs.status();
          return o;
        }
        o.result = std::move(logs).value();
        return o;
      }
      Count(cs().com_show_master_status);
      o.result = ShowMasterStatus(server_.binlog());  // no row when log_bin is OFF, as mysqld
      return o;
    }
    case sql::ShowKind::kBinlogEvents: {
      Count(cs().com_show_binlog_events);
      if (!Has(Priv::kReplicationSlave)) {
        o.error = NeedPrivileges("REPLICATION SLAVE");
        return o;
      }
      uint64_t limit = UINT64_MAX, offset = 0;
      if (s.limit) {
        o.error = EvalLimit(s.limit.get(), s.offset.get(), &limit, &offset);
        if (!o.error.ok()) return o;
      }
      if (server_.binlog() == nullptr) return o;  // mysqld: an empty result with log_bin OFF
      Result<ResultSet> events = ShowBinlogEvents(server_.binlog(), s, limit, offset);
      if (!events.ok()) {
        o.error = events.status();
        return o;
      }
      o.result = std::move(events).value();
      return o;
    }
    case sql::ShowKind::kReplicas: {
      Count(cs().com_show_replicas);
      if (!Has(Priv::kReplicationSlave)) {
        o.error = NeedPrivileges("REPLICATION SLAVE");
        return o;
      }
      rs.AddIntColumn("Server_Id");
      rs.AddTextColumn("Host", 255);
      rs.AddIntColumn("Port");
      rs.AddIntColumn("Source_Id");
      rs.AddTextColumn("Replica_UUID", 36);
      for (const auto& r : server_.Replicas()) {
        rs.rows.push_back({std::to_string(r.server_id), r.host, std::to_string(r.port),
                           std::to_string(r.source_id), r.uuid});
      }
      o.result = std::move(rs);
      return o;
    }
    case sql::ShowKind::kEngines: {
      rs.AddTextColumn("Engine", 64);
      rs.AddTextColumn("Support", 8);
      rs.AddTextColumn("Comment", 80);
      rs.AddTextColumn("Transactions", 3);
      rs.AddTextColumn("XA", 3);
      rs.AddTextColumn("Savepoints", 3);
      rs.rows.push_back({"InnoDB", "DEFAULT", "sluice's InnoDB-like engine: transactions, row locks, MVCC",
                         "YES", "YES", "YES"});
      break;
    }
    case sql::ShowKind::kEngineStatus: {
      if (base::AsciiLower(s.engine) != "innodb") {
        o.error = MakeError(er::kUnknownStorageEngine, s.engine);
        return o;
      }
      if (!Has(Priv::kProcess)) {
        o.error = NeedPrivileges("PROCESS");
        return o;
      }
      storage::LockCounters c = server_.lock_manager().Counters();
      std::string text = fmt::format(
          "\n=====================================\n"
          "INNODB MONITOR OUTPUT (sluice lock manager)\n"
          "=====================================\n"
          "------------------------\nLATEST DETECTED DEADLOCK\n------------------------\n{}\n"
          "------------\nTRANSACTIONS\n------------\n"
          "Row lock waits: {}, current waits: {}, time waited: {} ms (avg {} ms, max {} ms)\n"
          "Deadlocks: {}, lock wait timeouts: {}\n"
          "Lock schedule: {}\n"
          "----------------------------\nEND OF INNODB MONITOR OUTPUT\n"
          "============================\n",
          server_.lock_manager().LatestDeadlockText(), c.row_lock_waits, c.row_lock_current_waits,
          c.row_lock_time_ms, c.row_lock_time_avg_ms, c.row_lock_time_max_ms, c.deadlocks,
          c.lock_timeouts, storage::SchedulePolicyName(server_.lock_manager().config().schedule()));
      rs.AddTextColumn("Type", 10);
      rs.AddTextColumn("Name", 10);
      rs.AddTextColumn("Status", 65535);
      rs.rows.push_back({"InnoDB", "", text});
      o.result = std::move(rs);
      return o;
    }
    case sql::ShowKind::kCharset: {
      rs.AddTextColumn("Charset", 32);
      rs.AddTextColumn("Description", 2048);
      rs.AddTextColumn("Default collation", 64);
      rs.AddIntColumn("Maxlen");
      rs.rows.push_back({"ascii", "US ASCII", "ascii_general_ci", "1"});
      rs.rows.push_back({"binary", "Binary pseudo charset", "binary", "1"});
      rs.rows.push_back({"latin1", "cp1252 West European", "latin1_swedish_ci", "1"});
      rs.rows.push_back({"utf8mb3", "UTF-8 Unicode", "utf8mb3_general_ci", "3"});
      rs.rows.push_back({"utf8mb4", "UTF-8 Unicode", "utf8mb4_0900_ai_ci", "4"});
      break;
    }
    case sql::ShowKind::kCollation: {
      rs.AddTextColumn("Collation", 64);
      rs.AddTextColumn("Charset", 32);
      rs.AddIntColumn("Id");
      rs.AddTextColumn("Default", 3);
      rs.AddTextColumn("Compiled", 3);
      rs.AddIntColumn("Sortlen");
      rs.AddTextColumn("Pad_attribute", 9);
      rs.rows.push_back({"ascii_general_ci", "ascii", "11", "Yes", "Yes", "1", "PAD SPACE"});
      rs.rows.push_back({"binary", "binary", "63", "Yes", "Yes", "1", "NO PAD"});
      rs.rows.push_back({"latin1_swedish_ci", "latin1", "8", "Yes", "Yes", "1", "PAD SPACE"});
      rs.rows.push_back({"utf8mb3_general_ci", "utf8mb3", "33", "Yes", "Yes", "1", "PAD SPACE"});
      rs.rows.push_back({"utf8mb4_0900_ai_ci", "utf8mb4", "255", "Yes", "Yes", "0", "NO PAD"});
      rs.rows.push_back({"utf8mb4_bin", "utf8mb4", "46", "", "Yes", "1", "PAD SPACE"});
      rs.rows.push_back({"utf8mb4_general_ci", "utf8mb4", "45", "", "Yes", "1", "PAD SPACE"});
      break;
    }
    case sql::ShowKind::kPlugins: {
      rs.AddTextColumn("Name", 64);
      rs.AddTextColumn("Status", 10);
      rs.AddTextColumn("Type", 80);
      rs.AddTextColumn("Library", 4096);
      rs.AddTextColumn("License", 80);
      for (const PluginInfo& p : server_.plugins().List()) {
        rs.rows.push_back({p.name, p.status, p.type,
                           p.library.empty() ? std::nullopt : std::optional<std::string>(p.library), p.license});
      }
      break;
    }
    case sql::ShowKind::kTables:
    case sql::ShowKind::kColumns:
    case sql::ShowKind::kCreateTable:
    case sql::ShowKind::kCreateDatabase:
    case sql::ShowKind::kIndex:
    case sql::ShowKind::kTableStatus: {
      TableExecutor tables = Tables();
      Outcome t;
      switch (s.what) {
        case sql::ShowKind::kTables: t = tables.ShowTables(s); break;
        case sql::ShowKind::kColumns: t = tables.ShowColumns(s); break;
        case sql::ShowKind::kCreateTable: t = tables.ShowCreateTable(s); break;
        case sql::ShowKind::kCreateDatabase: t = tables.ShowCreateDatabase(s); break;
        case sql::ShowKind::kIndex: t = tables.ShowIndex(s); break;
        default: t = tables.ShowTableStatus(s); break;
      }
      if (!t.error.ok() || !t.result) return t;
      rs = std::move(*t.result);
      break;
    }
    case sql::ShowKind::kPrivileges: {
      rs.AddTextColumn("Privilege", 64);
      rs.AddTextColumn("Context", 64);
      rs.AddTextColumn("Comment", 64);
      for (int i = 0; i < acl::kNumStaticPrivs; ++i) {
        rs.rows.push_back({std::string(acl::PrivName(static_cast<Priv>(i))), "Server Admin", ""});
      }
      for (const auto& d : server_.acl().DynamicPrivileges()) rs.rows.push_back({d, "Server Admin", ""});
      break;
    }
  }
  o.error = FilterRows(s, &rs, 0);
  if (o.error.ok()) o.result = std::move(rs);
  return o;
}

Outcome Executor::Statement::UserStatement(const sql::Stmt& st) {
  Outcome o;
  // ALTER USER of one's own account (ALTER USER USER() IDENTIFIED BY ...)
  // needs no privilege: it is how an expired password is changed.
  bool self_only = false;
  if (st.kind == sql::StmtKind::kAlterUser) {
    self_only = true;
    for (const auto& u : st.As<sql::AlterUserStmt>().users) {
      auto name = ResolveUser(u.user).value();
      if (name.user != ctx_.priv_user || name.host != ctx_.priv_host || !u.plugin.empty()) self_only = false;
    }
    if (st.As<sql::AlterUserStmt>().account_locked) self_only = false;
  }
  if (!self_only && !Has(Priv::kCreateUser)) {
    o.error = NeedPrivileges("CREATE USER");
    return o;
  }
  std::vector<acl::Warning> warnings;
  auto to_specs = [&](const std::vector<sql::UserAuth>& users, std::optional<bool> locked) {
    std::vector<acl::UserSpec> specs;
    for (const auto& u : users) {
      acl::UserSpec spec;
      auto name = ResolveUser(u.user).value();
      spec.user = name.user;
      spec.host = name.host;
      spec.plugin = base::AsciiLower(u.plugin);
      spec.password = u.password;
      spec.hash = u.auth_string;
      spec.account_locked = locked;
      specs.push_back(std::move(spec));
    }
    return specs;
  };
  switch (st.kind) {
    case sql::StmtKind::kCreateUser: {
      Count(cs().com_create_user);
      const auto& s = st.As<sql::CreateUserStmt>();
      o.error = server_.acl().CreateUser(to_specs(s.users, s.account_locked), s.if_not_exists, &warnings);
      break;
    }
    case sql::StmtKind::kAlterUser: {
      const auto& s = st.As<sql::AlterUserStmt>();
      o.error = server_.acl().AlterUser(to_specs(s.users, s.account_locked), s.if_exists, &warnings);
      break;
    }
    case sql::StmtKind::kDropUser: {
      Count(cs().com_drop_user);
      const auto& s = st.As<sql::DropUserStmt>();
      std::vector<acl::AccountName> names;
      for (const auto& u : s.users) names.push_back(ResolveUser(u).value());
      o.error = server_.acl().DropUser(names, s.if_exists, &warnings);
      break;
    }
    case sql::StmtKind::kRenameUser: {
      const auto& s = st.As<sql::RenameUserStmt>();
      std::vector<std::pair<acl::AccountName, acl::AccountName>> renames;
      for (const auto& [from, to] : s.renames) {
        renames.emplace_back(ResolveUser(from).value(), ResolveUser(to).value());
      }
      o.error = server_.acl().RenameUser(renames);
      break;
    }
    default:
      break;
  }
  AddAclWarnings(warnings);
  return o;
}

Status Executor::Statement::ResolvePrivLevel(const sql::PrivLevel& in, acl::PrivLevel* out) const {
  switch (in.kind) {
    case sql::PrivLevel::Kind::kGlobal:
      *out = acl::PrivLevel::Global();
      return Status::OK();
    case sql::PrivLevel::Kind::kCurrentDb:
    case sql::PrivLevel::Kind::kDatabase: {
      std::string db = in.kind == sql::PrivLevel::Kind::kCurrentDb ? ctx_.db : in.db;
      if (db.empty()) return MakeError(er::kNoDb);
      *out = acl::PrivLevel::Db(std::move(db));
      return Status::OK();
    }
    case sql::PrivLevel::Kind::kTable:
      break;
  }
  return MakeError(er::kNotSupportedYet, "table-level privileges");
}

Status Executor::Statement::CheckGrantOption(const acl::PrivLevel& level) const {
  // The grantor needs GRANT OPTION at that level; MySQL answers 1045 at the
  // global level and 1044 at a database.
  bool may = level.global ? (ctx_.account && ctx_.account->global_grant_option)
                          : (ctx_.account && ctx_.account->HasGrantOptionOn(level.db));
  if (may) return Status::OK();
  return level.global ? MakeError(er::kAccessDenied, ctx_.priv_user, ctx_.priv_host, "YES")
                      : MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, level.db);
}

std::vector<acl::AccountName> Executor::Statement::ResolveUsers(const std::vector<sql::UserSpec>& users) const {
  std::vector<acl::AccountName> out;
  for (const auto& u : users) out.push_back(ResolveUser(u).value());
  return out;
}

Outcome Executor::Statement::Grant(const sql::GrantStmt& s) {
  Outcome o;
  acl::PrivLevel level;
  o.error = ResolvePrivLevel(s.level, &level);
  if (o.error.ok()) o.error = CheckGrantOption(level);
  if (o.error.ok()) o.error = server_.acl().Grant(s.privileges, level, ResolveUsers(s.users), s.with_grant_option);
  return o;
}

Outcome Executor::Statement::Revoke(const sql::RevokeStmt& s) {
  Outcome o;
  if (s.all_and_grant_option) {
    o.error = Has(Priv::kCreateUser) ? server_.acl().RevokeAllAndGrantOption(ResolveUsers(s.users))
                                     : NeedPrivileges("CREATE USER");
    return o;
  }
  acl::PrivLevel level;
  o.error = ResolvePrivLevel(s.level, &level);
  if (o.error.ok()) o.error = CheckGrantOption(level);
  if (o.error.ok()) o.error = server_.acl().Revoke(s.privileges, level, ResolveUsers(s.users));
  return o;
}

// ---------------------------------------------------------------------------
// Commands.

std::string OkPacketFor(const SessionContext& ctx, uint16_t status, uint64_t affected, std::string info,
                        uint64_t last_insert_id) {
  p::OkPacket ok;
  ok.affected_rows = affected;
  ok.last_insert_id = last_insert_id;
  ok.status_flags = status;
  ok.warnings = ctx.warning_count();
  ok.info = std::move(info);
  return p::EncodeOk(ok, ctx.capabilities);
}

namespace {

}  // namespace

uint16_t Executor::StatusFlags(const SessionContext& ctx) const {
  uint16_t flags = 0;
  if (!ctx.vars || exec::Settings::Of(server_.sys_vars(), ctx).autocommit) flags |= p::SERVER_STATUS_AUTOCOMMIT;
  if (ctx.in_transaction || ctx.trx) flags |= p::SERVER_STATUS_IN_TRANS;
  return flags;
}

Status Executor::UseDatabase(SessionContext& ctx, const std::string& db) {
  bool access = db == "information_schema" ||
                (ctx.account && (ctx.account->HasAnyDbAccess(db) ||
                                 ctx.account->HasGlobal(Priv::kShowDatabases)));
  if (!access) return MakeError(er::kDbAccessDenied, ctx.priv_user, ctx.priv_host, db);
  if (!SchemaExists(server_.engine(), db)) return MakeError(er::kBadDb, db);
  ctx.db = db;
  ctx.SetProcessDb(db);
  return Status::OK();
}

void Executor::InitSession(SessionContext& ctx) {
  ctx.vars = std::make_unique<vars::SessionVariables>(server_.sys_vars().NewSession());
  ctx.status = std::make_shared<vars::SessionStatus>(server_.status_vars());
  SessionContext* c = &ctx;
  ctx.vars->BindComputed("warning_count", [c] { return sql::Value::UInt(c->warning_count()); });
  ctx.vars->BindComputed("error_count", [c] { return sql::Value::UInt(c->error_count()); });
  ctx.vars->BindComputed("pseudo_thread_id", [c] { return sql::Value::UInt(c->connection_id); });
  ctx.vars->BindComputed("last_insert_id", [c] { return sql::Value::UInt(c->last_insert_id); });
  ctx.status->BindComputed("Ssl_version", [c] { return c->secure_transport ? std::string(c->tls_version) : std::string(); });
  ctx.status->BindComputed("Ssl_cipher", [c] { return c->secure_transport ? std::string(c->tls_cipher) : std::string(); });
  ctx.status->BindComputed("Bytes_received", [c] { return std::to_string(c->bytes_received); });
  ctx.status->BindComputed("Bytes_sent", [c] { return std::to_string(c->bytes_sent); });
  InitPreparedSession(ctx);
}

void Executor::EndSession(SessionContext& ctx) {
  ctx.prepared.Clear();
  TableExecutor::EndSession(server_.exec_env(), ctx);
  if (ctx.status) {
    ctx.status->Add(server_.core_status().bytes_received, ctx.bytes_received);
    ctx.status->Add(server_.core_status().bytes_sent, ctx.bytes_sent);
    ctx.status->Flush();
  }
}

uint64_t Executor::GlobalUInt(std::string_view name, uint64_t fallback) const {
  auto v = server_.sys_vars().Get(name, vars::GetScope::kGlobal, nullptr);
  return v.ok() ? v->ToUInt() : fallback;
}

size_t Executor::MaxAllowedPacket(const SessionContext& ctx) const {
  return GlobalUInt("max_allowed_packet", server_.options().max_allowed_packet);
}
uint64_t Executor::ConnectTimeout() const {
  return GlobalUInt("connect_timeout", server_.options().connect_timeout);
}
uint64_t Executor::MaxConnections() const {
  return GlobalUInt("max_connections", server_.options().max_connections);
}
bool Executor::RequireSecureTransport() const {
  return GlobalUInt("require_secure_transport", server_.options().require_secure_transport) != 0;
}
uint64_t Executor::IdleTimeout(const SessionContext& ctx) const {
  const char* name = (ctx.capabilities & p::CLIENT_INTERACTIVE) ? "interactive_timeout" : "wait_timeout";
  if (ctx.vars) {
    auto v = server_.sys_vars().Get(name, vars::GetScope::kSession, ctx.vars.get());
    if (v.ok()) return std::max<uint64_t>(1, v->ToUInt());
  }
  return server_.options().wait_timeout;
}

uint64_t Executor::NetTimeout(const SessionContext& ctx, bool write) const {
  const char* name = write ? "net_write_timeout" : "net_read_timeout";
  auto v = server_.sys_vars().Get(name, ctx.vars ? vars::GetScope::kSession : vars::GetScope::kGlobal,
                                  ctx.vars.get());
  return v.ok() ? std::max<uint64_t>(1, v->ToUInt()) : (write ? 60 : 30);
}

Status Executor::RegisterVariables() {
  const ServerOptions& o = server_.options();
  vars::CoreVariableDefaults d;
  d.version = kServerVersion;
  d.version_comment = kVersionComment;
  d.server_uuid = server_.server_uuid();
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  d.hostname = host;
  d.port = o.port;
  d.bind_address = o.bind_address;
  d.datadir = std::filesystem::absolute(o.datadir).lexically_normal().string();
  if (d.datadir.empty() || d.datadir.back() != '/') d.datadir += "/";
  d.log_error = o.log_error.empty() ? "stderr" : o.log_error;
  d.socket = o.socket;
  d.pid_file = o.pid_file;
  d.tmpdir = o.tmpdir;
  d.basedir = o.basedir;
  d.plugin_dir = o.plugin_dir;
  if (d.plugin_dir.empty()) {
    // Beside the binary: build/bin/sluiced -> build/plugin/.
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) d.plugin_dir = (exe.parent_path().parent_path() / "plugin").string() + "/";
  }
  d.have_ssl = server_.tls_context() != nullptr;
  if (!o.ssl_ca.empty()) d.ssl_ca = o.ssl_ca;
  if (!o.ssl_cert.empty()) d.ssl_cert = o.ssl_cert;
  if (!o.ssl_key.empty()) d.ssl_key = o.ssl_key;
  if (!o.ssl_cert.empty()) {
  } else {
    d.ssl_ca = "ca.pem";
    d.ssl_cert = "server-cert.pem";
    d.ssl_key = "server-key.pem";
  }
  // localtime_r holds glibc's time-zone lock; reading tzname directly
  // would race with the log thread's time formatting.
  time_t now = time(nullptr);
  struct tm local;
  localtime_r(&now, &local);
  d.system_time_zone = local.tm_zone ? local.tm_zone : "UTC";
  d.log_bin = !o.log_bin.empty();
  if (d.log_bin) d.log_bin_basename = d.datadir + o.log_bin;
  auto& sv = server_.sys_vars();
  SLUICE_RETURN_IF_ERROR(vars::RegisterCoreVariables(sv, d));
  std::vector<Status> warnings;
  auto set_start = [&](const char* name, const std::string& v) { return sv.SetStartupValue(name, v, &warnings); };
  SLUICE_RETURN_IF_ERROR(set_start("server_id", std::to_string(o.server_id)));
  SLUICE_RETURN_IF_ERROR(set_start("max_connections", std::to_string(o.max_connections)));
  SLUICE_RETURN_IF_ERROR(set_start("max_allowed_packet", std::to_string(o.max_allowed_packet)));
  SLUICE_RETURN_IF_ERROR(set_start("require_secure_transport", o.require_secure_transport ? "ON" : "OFF"));
  SLUICE_RETURN_IF_ERROR(set_start("connect_timeout", std::to_string(o.connect_timeout)));
  SLUICE_RETURN_IF_ERROR(set_start("wait_timeout", std::to_string(o.wait_timeout)));
  SLUICE_RETURN_IF_ERROR(set_start("thread_cache_size", std::to_string(o.thread_cache_size)));
  SLUICE_RETURN_IF_ERROR(set_start("default_authentication_plugin", o.default_authentication_plugin));
  SLUICE_RETURN_IF_ERROR(set_start("innodb_buffer_pool_size", std::to_string(o.innodb_buffer_pool_size)));
  SLUICE_RETURN_IF_ERROR(
      set_start("innodb_flush_log_at_trx_commit", std::to_string(o.innodb_flush_log_at_trx_commit)));
  for (const auto& [name, value] : o.variables) SLUICE_RETURN_IF_ERROR(set_start(name.c_str(), value));
  SLUICE_RETURN_IF_ERROR(ApplyMysqlOptions());
  SLUICE_RETURN_IF_ERROR(RegisterPreparedVariables());
  Status st = sv.LoadPersisted(o.datadir);
  if (!st.ok()) SLUICE_LOG_WARNING(server_.log(), 13183, "{}", st.message());
  return WireReadOnlySwitches();
}

Status Executor::ApplyMysqlOptions() {
  const ServerOptions& o = server_.options();
  auto& sv = server_.sys_vars();
  auto log = server_.log();
  for (const std::string& w : o.warnings) SLUICE_LOG_WARNING(log, 67, "{}", w);
  std::vector<Status> warnings;
  std::set<std::string> ignored;
  bool charset_given = false, collation_given = false;
  for (const auto& [option, value] : o.mysql_options) {
    // Options whose variable has another name.
    std::string var = option == "default_time_zone" ? "time_zone" : option;
    if (!sv.Exists(var)) {
      if (ignored.insert(option).second) {
        std::string shown = option;
        std::replace(shown.begin(), shown.end(), '_', '-');
        SLUICE_LOG_WARNING(log, 0,
                           "option '{}' is a MySQL option that sluice accepts and ignores, unless a plugin loaded "
                           "at start declares it",
                           shown);
      }
      continue;
    }
    Status st = sv.SetStartupValue(var, value, &warnings);
    if (!st.ok()) {
      std::string shown = option;
      std::replace(shown.begin(), shown.end(), '_', '-');
      return Status::InvalidArgument(fmt::format("option '{}': {}", shown, st.message()));
    }
    charset_given |= var == "character_set_server";
    collation_given |= var == "collation_server";
  }
  if (charset_given && !collation_given) {
    // character-set-server alone: its default collation, as mysqld.
    auto cs = sv.Get("character_set_server", vars::GetScope::kGlobal, nullptr);
    const std::string c = cs.ok() ? cs->ToString() : "utf8mb4";
    const char* coll = c == "utf8mb3"  ? "utf8mb3_general_ci"
                       : c == "latin1" ? "latin1_swedish_ci"
                       : c == "ascii"  ? "ascii_general_ci"
                       : c == "binary" ? "binary"
                                       : "utf8mb4_0900_ai_ci";
    SLUICE_RETURN_IF_ERROR(sv.SetStartupValue("collation_server", coll, &warnings));
  }
  for (const Status& w : warnings) SLUICE_LOG_WARNING(log, w.mysql_errno(), "{}", w.message());
  return Status::OK();
}

Status Executor::WireReadOnlySwitches() {
  auto& sv = server_.sys_vars();
  auto global_on = [&sv](const char* name) {
    auto v = sv.Get(name, vars::GetScope::kGlobal, nullptr);
    return v.ok() && v->ToInt() != 0;
  };
  std::vector<Status> warnings;
  // A start-up or persisted super_read_only=ON implies read_only=ON.
  if (global_on("super_read_only") && !global_on("read_only")) {
    SLUICE_RETURN_IF_ERROR(sv.SetStartupValue("read_only", "ON", &warnings));
  }
  exec::ReadOnlyMode& mode = server_.read_only_mode();
  mode.SetReadOnly(global_on("read_only"));
  mode.SetSuperReadOnly(global_on("super_read_only"));
  for (const bool super : {false, true}) {
    SLUICE_RETURN_IF_ERROR(sv.AddHooks(
        super ? "super_read_only" : "read_only", nullptr,
        [&mode, super](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
          if (scope == vars::SetScope::kGlobal || scope == vars::SetScope::kPersist) {
            super ? mode.SetSuperReadOnly(v.ToInt() != 0) : mode.SetReadOnly(v.ToInt() != 0);
          }
        }));
  }
  return Status::OK();
}

Response Executor::Dispatch(SessionContext& ctx, std::string_view packet) {
  Response r;
  const uint8_t command = static_cast<uint8_t>(packet[0]);
  std::string_view body = packet.substr(1);
  server_.acl().RefreshIfChanged(&ctx.account, &ctx.acl_version);
  const auto& cs = server_.core_status();
  auto err = [&](const Status& st) { r.payloads.push_back(p::EncodeErr(st)); };
  auto need_repl_slave = [&]() {
    if (ctx.account && ctx.account->HasGlobal(Priv::kReplicationSlave)) return true;
    err(NeedPrivileges("REPLICATION SLAVE"));
    return false;
  };
  switch (command) {
    case p::COM_PING:
      ctx.status->Add(cs.com_admin_commands);
      r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      break;
    case p::COM_INIT_DB: {
      ctx.status->Add(cs.com_change_db);
      Status st = UseDatabase(ctx, std::string(body));
      if (st.ok()) {
        ctx.warnings.clear();
        r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      } else {
        err(st);
      }
      break;
    }
    case p::COM_QUERY:
      r = Query(ctx, body);
      break;
    case p::COM_STMT_PREPARE:
      r = StmtPrepare(ctx, body);
      break;
    case p::COM_STMT_EXECUTE:
      r = StmtExecute(ctx, body);
      break;
    case p::COM_STMT_SEND_LONG_DATA:
      r = StmtSendLongData(ctx, body);
      break;
    case p::COM_STMT_CLOSE:
      r = StmtClose(ctx, body);
      break;
    case p::COM_STMT_RESET:
      r = StmtReset(ctx, body);
      break;
    case p::COM_STMT_FETCH:
      r = StmtFetch(ctx, body);
      break;
    case p::COM_STATISTICS: {
      ctx.status->Add(cs.com_admin_commands);
      auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::steady_clock::now() - server_.start_time()).count();
      auto q = server_.status_vars().Get("Questions", vars::StatusScope::kGlobal, nullptr);
      uint64_t questions = q.ok() ? std::strtoull(q->c_str(), nullptr, 10) : 0;
      r.payloads.push_back(fmt::format(
          "Uptime: {}  Threads: {}  Questions: {}  Slow queries: 0  Opens: 0  Flush tables: 1  "
          "Open tables: 0  Queries per second avg: {:.3f}",
          uptime, server_.session_count(), questions,
          uptime > 0 ? static_cast<double>(questions) / static_cast<double>(uptime) : 0.0));
      break;
    }
    case p::COM_PROCESS_KILL: {
      Result<uint32_t> id = p::ParseProcessKill(body);
      if (!id.ok()) {
        err(id.status());
        break;
      }
      std::string sql = "KILL " + std::to_string(id.value());
      r = Query(ctx, sql);
      break;
    }
    case p::COM_FIELD_LIST:
      // No tables exist yet, so every table is unknown.
      err(MakeError(er::kNoSuchTable, ctx.db.empty() ? "" : ctx.db, std::string(p::ParseFieldList(body).table)));
      break;
    case p::COM_SET_OPTION: {
      Result<uint16_t> option = p::ParseSetOption(body);
      if (!option.ok()) {
        err(option.status());
        break;
      }
      if (option.value() == 0) {
        ctx.capabilities |= p::CLIENT_MULTI_STATEMENTS;
      } else {
        ctx.capabilities &= ~p::CLIENT_MULTI_STATEMENTS;
      }
      r.payloads.push_back(p::EncodeEof(ctx.warning_count(), StatusFlags(ctx)));
      break;
    }
    case p::COM_RESET_CONNECTION:
      ctx.prepared.Clear();
      ctx.user_vars.clear();
      ctx.warnings.clear();
      ctx.last_insert_id = 0;
      ctx.in_transaction = false;
      ctx.vars = std::make_unique<vars::SessionVariables>(server_.sys_vars().NewSession());
      r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      break;
    case p::COM_REGISTER_SLAVE: {
      if (!need_repl_slave()) break;
      Result<p::RegisterReplica> reg = p::ParseRegisterReplica(body);
      if (!reg.ok()) {
        err(reg.status());
        break;
      }
      Server::ReplicaInfo info;
      info.server_id = reg->server_id;
      info.host = std::string(reg->host);
      info.port = reg->port;
      info.source_id = reg->source_id ? reg->source_id : static_cast<uint32_t>(GlobalUInt("server_id", 1));
      info.connection_id = ctx.connection_id;
      for (const char* key : {"replica_uuid", "slave_uuid"}) {
        auto it = ctx.user_vars.find(key);
        if (it != ctx.user_vars.end() && !it->second.is_null()) info.uuid = it->second.ToString();
      }
      server_.RegisterReplica(std::move(info));
      r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      break;
    }
    // COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID never get here: the session
    // turns into a dump connection (Session::RunDump).
    default:
      err(MakeError(er::kUnknownCom));
      break;
  }
  return r;
}

sql::ParseOptions Executor::ParseOptionsFor(const SessionContext& ctx) const {
  sql::ParseOptions popts;
  const uint64_t mode = exec::Settings::Of(server_.sys_vars(), ctx).sql_mode;
  popts.lex.ansi_quotes = (mode & vars::sql_mode::kAnsiQuotes) != 0;
  popts.lex.no_backslash_escapes = (mode & vars::sql_mode::kNoBackslashEscapes) != 0;
  popts.pipes_as_concat = (mode & vars::sql_mode::kPipesAsConcat) != 0;
  return popts;
}

Outcome Executor::RunStatement(SessionContext& ctx, const sql::ParsedStatement& ps,
                               const std::vector<sql::Value>* params) {
  const sql::Stmt& st = *ps.stmt;
  Outcome o;
  if (ctx.account && ctx.account->password_expired && st.kind != sql::StmtKind::kAlterUser &&
      st.kind != sql::StmtKind::kSetPassword && st.kind != sql::StmtKind::kSet) {
    // The expired-password sandbox: only changing the password (and SET).
    o.error = MakeError(er::kMustChangePassword);
  } else {
    // max_execution_time (or the statement's MAX_EXECUTION_TIME hint)
    // bounds a SELECT, as in MySQL, not statements that change data; an
    // EXECUTE's SELECT gets it here too (the EXECUTE itself does not).
    bool deadline_set = false;
    if (st.kind == sql::StmtKind::kSelect && !ctx.statement_deadline()) {
      std::optional<uint64_t> ms = MaxExecutionTimeHint(ps.text);
      if (!ms) ms = exec::Settings::Of(server_.sys_vars(), ctx).max_execution_time.count();
      if (*ms > 0) {
        ctx.SetStatementDeadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(*ms));
        deadline_set = true;
      }
    }
    Statement runner(server_, *this, ctx, params);
    ctx.statement_text = ps.text;
    o = runner.Run(ps);
    ctx.statement_text = {};
    if (deadline_set) ctx.SetStatementDeadline(std::nullopt);
    // A password change lifts the sandbox for the next statement.
    server_.acl().RefreshIfChanged(&ctx.account, &ctx.acl_version);
  }
  if (ctx.kill_state() != KillState::kNone && o.error.ok() && !o.close_connection) {
    o.error = MakeError(er::kQueryInterrupted);
  }
  return o;
}

Response Executor::Query(SessionContext& ctx, std::string_view sql) {
  Response r;
  const auto& cs = server_.core_status();
  ctx.status->Add(cs.questions);
  ctx.SetCommand("Query", std::string(sql), "executing");
  sql::Parser parser(sql, ParseOptionsFor(ctx));
  bool multi = (ctx.capabilities & p::CLIENT_MULTI_STATEMENTS) != 0;
  bool first = true;
  while (!parser.AtEnd()) {
    auto parsed = parser.Next();
    if (!parsed.ok()) {
      ctx.warnings.clear();
      ctx.warnings.push_back({Warning::Level::kError, parsed.status().mysql_errno(), parsed.status().message()});
      r.payloads.push_back(p::EncodeErr(parsed.status()));
      break;
    }
    if (!first && !multi) {
      // Without CLIENT_MULTI_STATEMENTS a second statement is a syntax error
      // at its start, as MySQL reports it.
      Status st = MakeError(er::kParse, std::string(sql.substr(parsed->begin, 80)), 1);
      r.payloads.push_back(p::EncodeErr(st));
      break;
    }
    first = false;
    ctx.status->Add(cs.queries);
    const sql::Stmt& st = *parsed->stmt;
    bool keeps_diagnostics = st.kind == sql::StmtKind::kShow &&
                             (st.As<sql::ShowStmt>().what == sql::ShowKind::kWarnings ||
                              st.As<sql::ShowStmt>().what == sql::ShowKind::kErrors);
    bool reads_diagnostics = false;
    if (!keeps_diagnostics) {
      // SELECT @@warning_count reads the previous statement's count.
      reads_diagnostics = st.kind == sql::StmtKind::kSelect &&
                          parsed->text.find("_count") != std::string_view::npos;
      if (!reads_diagnostics) ctx.warnings.clear();
    }
    if (parser.AtEnd()) {
      // The last statement's text runs to the end of the query, trailing
      // comments included (/*! ENGINE = InnoDB */): the binlog logs DDL as
      // the client sent it, as MySQL does.
      size_t end = sql.size();
      while (end > parsed->begin && (sql[end - 1] == ';' || sql[end - 1] == '\0' ||
                                     std::isspace(static_cast<unsigned char>(sql[end - 1])))) {
        --end;
      }
      if (end > parsed->end) parsed->text = sql.substr(parsed->begin, end - parsed->begin);
    }
    Outcome o = RunStatement(ctx, parsed.value(), nullptr);
    if (reads_diagnostics) ctx.warnings.clear();
    if (!o.error.ok()) {
      if (!o.close_connection) {
        ctx.warnings.push_back({Warning::Level::kError, o.error.mysql_errno(), o.error.message()});
      }
      r.payloads.push_back(p::EncodeErr(o.error));
      r.close_connection = o.close_connection;
      break;
    }
    uint16_t flags = StatusFlags(ctx);
    if (!parser.AtEnd()) flags |= p::SERVER_MORE_RESULTS_EXISTS;
    if (o.result) {
      // SHOW WARNINGS shows the diagnostics; it does not add to them.
      uint16_t warnings = keeps_diagnostics ? 0 : ctx.warning_count();
      auto packets = p::EncodeTextResultSet(o.result->columns, o.result->rows, ctx.capabilities, flags,
                                            warnings);
      for (auto& pk : packets) r.payloads.push_back(std::move(pk));
      ctx.row_count = -1;
    } else {
      r.payloads.push_back(OkPacketFor(ctx, flags, o.affected_rows, o.info, o.last_insert_id));
      ctx.row_count = static_cast<int64_t>(o.affected_rows);
    }
    if (o.close_connection) {
      r.close_connection = true;
      break;
    }
  }
  ctx.SetCommand("Sleep", "");
  return r;
}

}  // namespace sluice::server
