#include "exec/statement.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "acl/access_control.h"
#include "base/mysql_error.h"
#include "base/strings.h"
#include "binlog/binlog.h"
#include "exec/binlog_statements.h"
#include "exec/exec_env.h"
#include "exec/global_read_lock.h"
#include "exec/information_schema.h"
#include "exec/read_only.h"
#include "exec/result_set.h"
#include "exec/session_eval.h"
#include "exec/settings.h"
#include "exec/system_schema.h"
#include "exec/table_executor.h"
#include "sql/eval.h"
#include "sql/like.h"
#include "storage/engine/engine.h"
#include "storage/lock/lock_manager.h"
#include "vars/core_status.h"
#include "vars/core_vars.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {
using acl::Priv;

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



// ---------------------------------------------------------------------------
// One statement.

class Statement {
 public:
  // `params`: the values of the statement's '?'s (prepared statements).
  Statement(const ExecEnv& env, SessionContext& ctx, PreparedSql* prepared, const std::vector<sql::Value>* params)
      : env_(env), prepared_(prepared), ctx_(ctx), eval_(env, ctx) {
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
  const vars::CoreStatus& cs() const { return env_.core_status(); }

  Outcome Select(const sql::SelectStmt& s);
  TableExecutor Tables() { return TableExecutor(env_, ctx_, eval_); }
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

  const ExecEnv& env_;
  PreparedSql* const prepared_;
  SessionContext& ctx_;
  SessionEval eval_;
};

}  // namespace

Result<acl::AccountName> Statement::ResolveUser(const sql::UserSpec& u) const {
  if (u.current_user) return acl::AccountName{ctx_.priv_user, ctx_.priv_host};
  return acl::AccountName{u.name, u.host};
}

void Statement::AddAclWarnings(const std::vector<acl::Warning>& ws) {
  for (const auto& w : ws) {
    ctx_.warnings.push_back({w.level == acl::Warning::Level::kNote ? Warning::Level::kNote
                                                                    : Warning::Level::kWarning,
                             w.code, w.message});
  }
}

Outcome Statement::Run(const sql::ParsedStatement& ps) {
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
      o.error = env_.read_only().Check(ctx_);  // account changes count as writes
      if (!o.error.ok()) return o;
      return SetPassword(st.As<sql::SetPasswordStmt>());
    }
    case sql::StmtKind::kShow:
      return Show(st.As<sql::ShowStmt>());
    case sql::StmtKind::kUse: {
      Count(cs().com_change_db);
      Outcome o;
      o.error = UseDatabase(env_, ctx_, st.As<sql::UseStmt>().database);
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
      env_.control().Shutdown(ctx_.priv_user);
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
      o.error = env_.read_only().Check(ctx_);
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
    case sql::StmtKind::kExecute:
    case sql::StmtKind::kDeallocatePrepare: {
      if (prepared_ == nullptr) {
        Outcome o;
        o.error = MakeError(er::kErrUnsupportedPs);
        return o;
      }
      if (st.kind == sql::StmtKind::kPrepare) return prepared_->SqlPrepare(ctx_, st.As<sql::PrepareStmt>());
      if (st.kind == sql::StmtKind::kExecute) return prepared_->SqlExecute(ctx_, st.As<sql::ExecuteStmt>());
      return prepared_->SqlDeallocate(ctx_, st.As<sql::DeallocatePrepareStmt>());
    }
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
      o.error = PurgeBinaryLogs(env_.binlog(), s, before);
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
      o.error = ResetMaster(env_.binlog(), st.As<sql::ResetMasterStmt>().to);
      // Observers forget positions of the files that are gone (semisync).
      if (o.error.ok()) env_.control().AfterResetMaster();
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
        o.error = env_.control().InstallPlugin(s.name, s.soname);
      } else {
        o.error = env_.control().UninstallPlugin(st.As<sql::UninstallPluginStmt>().name);
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

Outcome Statement::NeedDbPriv(const std::string& db, Priv priv, const char* what) {
  Outcome o;
  (void)what;
  if (!(ctx_.account && ctx_.account->HasDb(db, priv))) {
    o.error = MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, db);
  }
  return o;
}

Outcome Statement::NeedTablePriv(const sql::TableRef& t, Priv priv, const char* what) {
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

Outcome Statement::Select(const sql::SelectStmt& s) {
  Outcome o;
  // Tables and subqueries (privileges checked per table, 1142 before 1146
  // as in MySQL) are read by the TableExecutor.
  bool subquery = s.where && sql::HasSubquery(*s.where);
  for (const auto& item : s.items) subquery = subquery || (item.expr && sql::HasSubquery(*item.expr));
  if (!s.from.empty() || subquery) return Tables().Select(s);
  bool emit = true;
  if (s.where) {
    Result<std::optional<bool>> w = sql::EvaluateTruth(*s.where, eval_);
    if (!w.ok()) {
      o.error = w.status();
      return o;
    }
    emit = w->value_or(false);
  }
  uint64_t limit = UINT64_MAX, offset = 0;
  o.error = EvalLimit(s.limit.get(), s.offset.get(), &limit, &offset);
  if (!o.error.ok()) return o;
  if (offset > 0 || limit == 0) emit = false;
  ResultSet rs;
  p::TextRows::RowWriter row = rs.rows.Open();
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
    AppendCell(v.value(), &row);
  }
  if (emit) {
    rs.rows.Close();
  } else {
    rs.rows.Discard();
  }
  ctx_.found_rows = rs.rows.size();
  o.result = std::move(rs);
  return o;
}

Outcome Statement::Set(const sql::SetStmt& s) {
  Outcome o;
  auto& sv = env_.sys_vars();
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
        if (read_only_switch && !env_.global_read_lock().HeldBy(ctx_.connection_id)) {
          // As MySQL: turning read_only on waits for writes in progress and
          // for another session's FLUSH TABLES WITH READ LOCK (lock and let
          // go at once); a session holding FTWRL itself may set it.
          GlobalReadLock& grl = env_.global_read_lock();
          o.error = ctx_.LockWaitError(grl.Lock(ctx_.connection_id, LockWaitTimeout(env_, ctx_), &ctx_.killed));
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

Outcome Statement::SetTransaction(const sql::SetTransactionStmt& s) {
  Outcome o;
  auto& sv = env_.sys_vars();
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

Outcome Statement::SetPassword(const sql::SetPasswordStmt& s) {
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
  o.error = env_.acl().SetPassword(target, s.password);
  return o;
}

Outcome Statement::Kill(const sql::KillStmt& s) {
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
      for (const auto& pi : env_.control().ProcessList()) {
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
  o.error = env_.control().Kill(static_cast<uint32_t>(id), !s.query_only);
  return o;
}

Outcome Statement::Flush(const sql::FlushStmt& s) {
  Outcome o;
  if (!Has(Priv::kReload)) {
    o.error = NeedPrivileges("RELOAD");
    return o;
  }
  for (auto opt : s.options) {
    switch (opt) {
      case sql::FlushOption::kPrivileges:
        o.error = env_.acl().FlushPrivileges();
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
        if (env_.binlog() != nullptr) {
          o.error = env_.binlog()->Rotate();
          if (!o.error.ok()) return o;
        }
        break;
      default:
        break;  // logs, tables, hosts: nothing to flush yet
    }
  }
  return o;
}

Status Statement::FilterRows(const sql::ShowStmt& s, ResultSet* rs, size_t like_column) {
  if (s.like) {
    rs->rows.KeepIf([&](const p::Cells& row) {
      return row[like_column] && sql::LikeMatch(*row[like_column], *s.like);
    });
  }
  if (s.where) {
    std::vector<std::string> names;
    for (const auto& c : rs->columns) names.push_back(c.name);
    Status failed;
    rs->rows.KeepIf([&](p::Cells row) {
      if (!failed.ok()) return false;
      eval_.SetRow(&names, &row);
      Result<std::optional<bool>> v = sql::EvaluateTruth(*s.where, eval_);
      eval_.SetRow(nullptr, nullptr);
      if (!v.ok()) {
        failed = v.status();
        return false;
      }
      return v->value_or(false);
    });
    SLUICE_RETURN_IF_ERROR(failed);
  }
  return Status::OK();
}

Outcome Statement::Show(const sql::ShowStmt& s) {
  Outcome o;
  ResultSet rs;
  bool global = s.scope == sql::VarScope::kGlobal;
  switch (s.what) {
    case sql::ShowKind::kVariables: {
      Count(cs().com_show_variables);
      rs.AddTextColumn("Variable_name", 64);
      rs.AddTextColumn("Value", 1024);
      for (auto& r : env_.sys_vars().List(global ? vars::GetScope::kGlobal : vars::GetScope::kSession,
                                             ctx_.vars.get())) {
        rs.rows.push_back({r.name, r.value ? r.value : std::optional<std::string>("")});
      }
      break;
    }
    case sql::ShowKind::kStatus: {
      Count(cs().com_show_status);
      rs.AddTextColumn("Variable_name", 64);
      rs.AddTextColumn("Value", 1024);
      for (auto& r : env_.status_vars().List(global ? vars::StatusScope::kGlobal : vars::StatusScope::kSession,
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
      auto list = env_.control().ProcessList();
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
      for (const auto& db : AllSchemas(env_.engine())) {
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
        // Every condition counts, kept or not (max_error_count).
        rs.rows.push_back({std::to_string(errors_only ? ctx_.warnings.total_errors() : ctx_.warnings.total())});
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
        auto grants = env_.acl().ShowGrants(who);
        if (!grants.ok()) {
          o.error = grants.status();
          return o;
        }
        rs.AddTextColumn("Grants for " + who.user + "@" + who.host, 1024);
        for (auto& g : grants.value()) rs.rows.push_back({g});
      } else {
        auto text = env_.acl().ShowCreateUser(who);
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
        Result<ResultSet> logs = ShowBinaryLogs(env_.binlog());  // 1381 when log_bin is OFF
        if (!logs.ok()) {
          o.error = logs.status();
          return o;
        }
        o.result = std::move(logs).value();
        return o;
      }
      Count(cs().com_show_master_status);
      o.result = ShowMasterStatus(env_.binlog());  // no row when log_bin is OFF, as mysqld
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
      if (env_.binlog() == nullptr) return o;  // mysqld: an empty result with log_bin OFF
      Result<ResultSet> events = ShowBinlogEvents(env_.binlog(), s, limit, offset);
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
      for (const auto& r : env_.control().Replicas()) {
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
      storage::LockCounters c = env_.engine().lock_manager().Counters();
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
          env_.engine().lock_manager().LatestDeadlockText(), c.row_lock_waits, c.row_lock_current_waits,
          c.row_lock_time_ms, c.row_lock_time_avg_ms, c.row_lock_time_max_ms, c.deadlocks,
          c.lock_timeouts, storage::SchedulePolicyName(env_.engine().lock_manager().config().schedule()));
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
      for (const PluginInfo& p : env_.plugins().List()) {
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
      for (const auto& d : env_.acl().DynamicPrivileges()) rs.rows.push_back({d, "Server Admin", ""});
      break;
    }
  }
  o.error = FilterRows(s, &rs, 0);
  if (o.error.ok()) o.result = std::move(rs);
  return o;
}

Outcome Statement::UserStatement(const sql::Stmt& st) {
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
      o.error = env_.acl().CreateUser(to_specs(s.users, s.account_locked), s.if_not_exists, &warnings);
      break;
    }
    case sql::StmtKind::kAlterUser: {
      const auto& s = st.As<sql::AlterUserStmt>();
      o.error = env_.acl().AlterUser(to_specs(s.users, s.account_locked), s.if_exists, &warnings);
      break;
    }
    case sql::StmtKind::kDropUser: {
      Count(cs().com_drop_user);
      const auto& s = st.As<sql::DropUserStmt>();
      std::vector<acl::AccountName> names;
      for (const auto& u : s.users) names.push_back(ResolveUser(u).value());
      o.error = env_.acl().DropUser(names, s.if_exists, &warnings);
      break;
    }
    case sql::StmtKind::kRenameUser: {
      const auto& s = st.As<sql::RenameUserStmt>();
      std::vector<std::pair<acl::AccountName, acl::AccountName>> renames;
      for (const auto& [from, to] : s.renames) {
        renames.emplace_back(ResolveUser(from).value(), ResolveUser(to).value());
      }
      o.error = env_.acl().RenameUser(renames);
      break;
    }
    default:
      break;
  }
  AddAclWarnings(warnings);
  return o;
}

Status Statement::ResolvePrivLevel(const sql::PrivLevel& in, acl::PrivLevel* out) const {
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

Status Statement::CheckGrantOption(const acl::PrivLevel& level) const {
  // The grantor needs GRANT OPTION at that level; MySQL answers 1045 at the
  // global level and 1044 at a database.
  bool may = level.global ? (ctx_.account && ctx_.account->global_grant_option)
                          : (ctx_.account && ctx_.account->HasGrantOptionOn(level.db));
  if (may) return Status::OK();
  return level.global ? MakeError(er::kAccessDenied, ctx_.priv_user, ctx_.priv_host, "YES")
                      : MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, level.db);
}

std::vector<acl::AccountName> Statement::ResolveUsers(const std::vector<sql::UserSpec>& users) const {
  std::vector<acl::AccountName> out;
  for (const auto& u : users) out.push_back(ResolveUser(u).value());
  return out;
}

Outcome Statement::Grant(const sql::GrantStmt& s) {
  Outcome o;
  acl::PrivLevel level;
  o.error = ResolvePrivLevel(s.level, &level);
  if (o.error.ok()) o.error = CheckGrantOption(level);
  if (o.error.ok()) o.error = env_.acl().Grant(s.privileges, level, ResolveUsers(s.users), s.with_grant_option);
  return o;
}

Outcome Statement::Revoke(const sql::RevokeStmt& s) {
  Outcome o;
  if (s.all_and_grant_option) {
    o.error = Has(Priv::kCreateUser) ? env_.acl().RevokeAllAndGrantOption(ResolveUsers(s.users))
                                     : NeedPrivileges("CREATE USER");
    return o;
  }
  acl::PrivLevel level;
  o.error = ResolvePrivLevel(s.level, &level);
  if (o.error.ok()) o.error = CheckGrantOption(level);
  if (o.error.ok()) o.error = env_.acl().Revoke(s.privileges, level, ResolveUsers(s.users));
  return o;
}

// ---------------------------------------------------------------------------
// Entry points.

Status UseDatabase(const ExecEnv& env, SessionContext& ctx, const std::string& db) {
  bool access = db == "information_schema" ||
                (ctx.account && (ctx.account->HasAnyDbAccess(db) ||
                                 ctx.account->HasGlobal(Priv::kShowDatabases)));
  if (!access) return MakeError(er::kDbAccessDenied, ctx.priv_user, ctx.priv_host, db);
  if (!SchemaExists(env.engine(), db)) return MakeError(er::kBadDb, db);
  ctx.db = db;
  ctx.SetProcessDb(db);
  return Status::OK();
}

Outcome RunStatement(const ExecEnv& env, SessionContext& ctx, const sql::ParsedStatement& ps,
                     const std::vector<sql::Value>* params, PreparedSql* prepared) {
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
      if (!ms) ms = Settings::Of(env.sys_vars(), ctx).max_execution_time.count();
      if (*ms > 0) {
        ctx.SetStatementDeadline(std::chrono::steady_clock::now() + std::chrono::milliseconds(*ms));
        deadline_set = true;
      }
    }
    const Settings& settings = Settings::Of(env.sys_vars(), ctx);
    ctx.warnings.SetPolicy(settings.max_error_count, settings.sql_notes);
    Statement runner(env, ctx, prepared, params);
    ctx.statement_text = ps.text;
    o = runner.Run(ps);
    ctx.statement_text = {};
    if (deadline_set) ctx.SetStatementDeadline(std::nullopt);
    // A password change lifts the sandbox for the next statement.
    env.acl().RefreshIfChanged(&ctx.account, &ctx.acl_version);
  }
  if (ctx.kill_state() != KillState::kNone && o.error.ok() && !o.close_connection) {
    o.error = MakeError(er::kQueryInterrupted);
  }
  return o;
}

}  // namespace sluice::exec
