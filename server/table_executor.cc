#include "server/table_executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "base/mysql_error.h"
#include "server/acl/access_control.h"
#include "server/access_path.h"
#include "server/aggregate.h"
#include "server/column_values.h"
#include "server/information_schema.h"
#include "server/server.h"
#include "server/sql/lexer.h"
#include "server/vars/sys_vars.h"
#include "storage/engine/engine.h"

namespace sluice::server {

namespace {

using storage::ColumnDef;
using storage::Engine;
using storage::EngineTrx;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

// A character set's default collation (MySQL 8.0).
std::string DefaultCollation(std::string charset) {
  if (charset == "utf8mb4") return "utf8mb4_0900_ai_ci";
  if (charset == "utf8mb3" || charset == "utf8") return "utf8mb3_general_ci";
  if (charset == "latin1") return "latin1_swedish_ci";
  if (charset == "ascii") return "ascii_general_ci";
  if (charset == "binary") return "binary";
  return charset + "_general_ci";
}

// A condition holds when it is not NULL and not zero (strings as numbers).
bool Truthy(const sql::Value& v) { return !v.is_null() && v.ToDouble() != 0; }

std::chrono::milliseconds LockWaitTimeout(Server& server, SessionContext& ctx) {
  auto v = server.sys_vars().Get("lock_wait_timeout", vars::GetScope::kSession, ctx.vars.get());
  uint64_t secs = v.ok() ? v->ToUInt() : 31536000;
  return std::chrono::milliseconds(std::min<uint64_t>(secs, 31536000) * 1000);
}

storage::IsolationLevel SessionIsolation(Server& server, SessionContext& ctx) {
  auto v = server.sys_vars().Get("transaction_isolation", vars::GetScope::kSession, ctx.vars.get());
  std::string s = v.ok() ? v->ToString() : "REPEATABLE-READ";
  if (s == "READ-UNCOMMITTED") return storage::IsolationLevel::kReadUncommitted;
  if (s == "READ-COMMITTED") return storage::IsolationLevel::kReadCommitted;
  if (s == "SERIALIZABLE") return storage::IsolationLevel::kSerializable;
  return storage::IsolationLevel::kRepeatableRead;
}

}  // namespace

// A resolved table of the statement.
struct TableExecutor::Table {
  std::string schema;
  std::shared_ptr<const TableDef> def;
};

// Expressions over one row of one table: columns resolve to the row's
// values; everything else goes to the session's context.
class TableExecutor::RowEval : public sql::EvalContext {
 public:
  RowEval(sql::EvalContext& base, const TableDef& def, std::string_view alias)
      : base_(base), def_(def), alias_(alias) {}
  void SetRow(const Row* row) { row_ = row; }
  // Makes `row` current and says whether it satisfies `where` (none: yes).
  Result<bool> Matches(const Row& row, const sql::Expr* where) {
    row_ = &row;
    clause_ = "where clause";
    if (where == nullptr) return true;
    Result<sql::Value> w = sql::Evaluate(*where, *this);
    if (!w.ok()) return w.status();
    return Truthy(*w);
  }

  Result<sql::Value> GetColumn(const sql::Expr& column) override {
    if (aliases_ != nullptr && column.table.empty()) {
      for (const auto& [name, value] : *aliases_) {
        if (sql::AsciiLower(name) == sql::AsciiLower(column.name)) return value;
      }
    }
    if (!column.table.empty() && sql::AsciiLower(column.table) != sql::AsciiLower(alias_) && sql::AsciiLower(column.table) != sql::AsciiLower(def_.name)) {
      return MakeError(er::kBadField, column.table + "." + column.name, clause_);
    }
    const ColumnDef* c = def_.FindColumn(column.name);
    if (c == nullptr) return MakeError(er::kBadField, column.name, clause_);
    if (row_ == nullptr) return sql::Value::Null();
    return FromColumnValue(*c, (*row_)[c->ordinal]);
  }
  void set_clause(const char* clause) { clause_ = clause; }
  // Select-list aliases HAVING may name (null: none).
  void set_aliases(const std::vector<std::pair<std::string, sql::Value>>* aliases) { aliases_ = aliases; }

  Result<sql::Value> GetSystemVariable(std::string_view name, sql::VarScope scope) override {
    return base_.GetSystemVariable(name, scope);
  }
  sql::Value GetUserVariable(std::string_view name) override { return base_.GetUserVariable(name); }
  void SetUserVariable(std::string_view name, const sql::Value& v) override { base_.SetUserVariable(name, v); }
  Result<sql::Value> GetParameter(int index) override { return base_.GetParameter(index); }
  std::optional<std::string> CurrentDatabase() override { return base_.CurrentDatabase(); }
  std::string User() override { return base_.User(); }
  std::string CurrentUser() override { return base_.CurrentUser(); }
  uint64_t ConnectionId() override { return base_.ConnectionId(); }
  uint64_t LastInsertId() override { return base_.LastInsertId(); }
  void SetLastInsertId(uint64_t id) override { base_.SetLastInsertId(id); }
  int64_t FoundRows() override { return base_.FoundRows(); }
  int64_t RowCount() override { return base_.RowCount(); }
  std::string ServerVersion() override { return base_.ServerVersion(); }
  std::chrono::system_clock::time_point StatementTime() override { return base_.StatementTime(); }
  bool SleepFor(std::chrono::nanoseconds d) override { return base_.SleepFor(d); }
  void AddWarning(uint16_t code, std::string message) override { base_.AddWarning(code, std::move(message)); }
  uint64_t MaxAllowedPacket() override { return base_.MaxAllowedPacket(); }

 private:
  sql::EvalContext& base_;
  const TableDef& def_;
  std::string alias_;
  const Row* row_ = nullptr;
  const char* clause_ = "where clause";
  const std::vector<std::pair<std::string, sql::Value>>* aliases_ = nullptr;
};

// ---------------------------------------------------------------- transactions

bool TableExecutor::Autocommit() {
  auto v = server_.sys_vars().Get("autocommit", vars::GetScope::kSession, ctx_.vars.get());
  return !v.ok() || v->ToInt() != 0;
}

bool TableExecutor::Strict() {
  auto v = server_.sys_vars().Get("sql_mode", vars::GetScope::kSession, ctx_.vars.get());
  if (!v.ok()) return true;
  const std::string mode = v->ToString();
  return mode.find("STRICT_TRANS_TABLES") != std::string::npos || mode.find("STRICT_ALL_TABLES") != std::string::npos;
}

Result<EngineTrx*> TableExecutor::Trx() {
  if (ctx_.trx) return ctx_.trx.get();
  if (!ctx_.holds_metadata_lock) {
    if (!server_.metadata_lock().LockShared(LockWaitTimeout(server_, ctx_))) {
      return MakeError(er::kLockWaitTimeout);
    }
    ctx_.holds_metadata_lock = true;
  }
  ctx_.trx = server_.engine().Begin(SessionIsolation(server_, ctx_));
  auto v = server_.sys_vars().Get("innodb_lock_wait_timeout", vars::GetScope::kSession, ctx_.vars.get());
  if (v.ok()) ctx_.trx->set_lock_wait_timeout(std::chrono::milliseconds(v->ToUInt() * 1000));
  return ctx_.trx.get();
}

namespace {
void EndTrx(Server& server, SessionContext& ctx) {
  ctx.trx.reset();
  ctx.savepoints.clear();
  if (ctx.holds_metadata_lock) {
    server.metadata_lock().UnlockShared();
    ctx.holds_metadata_lock = false;
  }
}
}  // namespace

AssignContext TableExecutor::Assigning(bool strict, uint64_t row_number) {
  AssignContext cx;
  cx.strict = strict;
  cx.row_number = row_number;
  cx.warn = [this](uint16_t code, std::string msg) {
    ctx_.warnings.push_back({Warning::Level::kWarning, code, std::move(msg)});
  };
  return cx;
}

Status TableExecutor::BeginWrite() {
  if (in_write_) return Status::OK();
  if (ctx_.in_transaction && ctx_.read_only_transaction) return MakeError(er::kCantExecuteInReadOnlyTransaction);
  GlobalReadLock& grl = server_.global_read_lock();
  if (grl.HeldBy(ctx_.connection_id)) return MakeError(er::kCantUpdateWithReadlock);
  if (!grl.BeginWrite(ctx_.connection_id, LockWaitTimeout(server_, ctx_))) return MakeError(er::kLockWaitTimeout);
  in_write_ = true;
  return Status::OK();
}

void TableExecutor::EndWrite() {
  if (!in_write_) return;
  server_.global_read_lock().EndWrite();
  in_write_ = false;
}

namespace {
// The savepoint named `name` (case-insensitive, as MySQL), or end().
auto FindSavepoint(SessionContext& ctx, const std::string& name) {
  return std::find_if(ctx.savepoints.begin(), ctx.savepoints.end(),
                      [&](const auto& sp) { return sql::AsciiLower(sp.first) == sql::AsciiLower(name); });
}
}  // namespace

Status TableExecutor::Savepoint(const std::string& name) {
  // Outside a transaction (autocommit, no BEGIN) a savepoint ends with the
  // statement: nothing to keep.
  if (Autocommit() && !ctx_.in_transaction && !ctx_.trx) return Status::OK();
  Result<EngineTrx*> trx = Trx();
  if (!trx.ok()) return trx.status();
  if (auto it = FindSavepoint(ctx_, name); it != ctx_.savepoints.end()) ctx_.savepoints.erase(it);
  ctx_.savepoints.emplace_back(name, server_.engine().Savepoint(**trx));
  return Status::OK();
}

Status TableExecutor::RollbackToSavepoint(const std::string& name) {
  auto it = FindSavepoint(ctx_, name);
  if (it == ctx_.savepoints.end() || !ctx_.trx) return MakeError(er::kSpDoesNotExist, "SAVEPOINT", name);
  SLUICE_RETURN_IF_ERROR(server_.engine().RollbackToSavepoint(*ctx_.trx, it->second));
  ctx_.savepoints.erase(it + 1, ctx_.savepoints.end());  // later ones go, this one stays
  return Status::OK();
}

Status TableExecutor::ReleaseSavepoint(const std::string& name) {
  auto it = FindSavepoint(ctx_, name);
  if (it == ctx_.savepoints.end()) return MakeError(er::kSpDoesNotExist, "SAVEPOINT", name);
  ctx_.savepoints.erase(it, ctx_.savepoints.end());
  return Status::OK();
}

Status TableExecutor::LockGlobalRead() {
  if (!server_.global_read_lock().Lock(ctx_.connection_id, LockWaitTimeout(server_, ctx_))) {
    return MakeError(er::kLockWaitTimeout);
  }
  return Status::OK();
}

Status TableExecutor::UnlockTables() {
  server_.global_read_lock().Unlock(ctx_.connection_id);
  return Status::OK();
}

Status TableExecutor::Commit() {
  ctx_.in_transaction = false;
  ctx_.read_only_transaction = false;
  if (!ctx_.trx) return Status::OK();
  // A transaction that wrote commits only while no global read lock is held.
  const bool wrote = ctx_.trx->active() && ctx_.trx->id() != storage::kNoTrxId;
  const bool outer = !in_write_;
  if (wrote) {
    Status w = BeginWrite();
    if (!w.ok()) return w;
  }
  Status s = ctx_.trx->active() ? server_.engine().Commit(*ctx_.trx) : Status::OK();
  if (!s.ok() && ctx_.trx->active()) (void)server_.engine().Rollback(*ctx_.trx);
  EndTrx(server_, ctx_);
  if (wrote && outer) EndWrite();
  return s;
}

Status TableExecutor::Rollback() {
  ctx_.in_transaction = false;
  ctx_.read_only_transaction = false;
  if (!ctx_.trx) return Status::OK();
  Status s = ctx_.trx->active() ? server_.engine().Rollback(*ctx_.trx) : Status::OK();
  EndTrx(server_, ctx_);
  return s;
}

Status TableExecutor::Begin(bool consistent_snapshot, bool read_only) {
  SLUICE_RETURN_IF_ERROR(Commit());
  ctx_.in_transaction = true;
  ctx_.read_only_transaction = read_only;
  if (consistent_snapshot) {
    Result<EngineTrx*> trx = Trx();
    if (!trx.ok()) return trx.status();
    server_.engine().OpenReadView(**trx);
  }
  return Status::OK();
}

void TableExecutor::EndSession(Server& server, SessionContext& ctx) {
  server.global_read_lock().Unlock(ctx.connection_id);
  if (ctx.trx && ctx.trx->active()) (void)server.engine().Rollback(*ctx.trx);
  EndTrx(server, ctx);
  ctx.in_transaction = false;
}

Outcome TableExecutor::RunDml(const std::function<Outcome(EngineTrx&)>& body, bool writes) {
  Outcome o;
  if (writes) {
    o.error = BeginWrite();
    if (!o.error.ok()) return o;
  }
  struct EndWriteAtExit {
    TableExecutor* self;
    ~EndWriteAtExit() { self->EndWrite(); }
  } end_write{this};
  Result<EngineTrx*> trx = Trx();
  if (!trx.ok()) {
    o.error = trx.status();
    return o;
  }
  Engine& engine = server_.engine();
  const storage::UndoPos sp = engine.Savepoint(**trx);
  o = body(**trx);
  const bool autocommit = Autocommit() && !ctx_.in_transaction;
  if (!o.error.ok()) {
    if (o.error.mysql_errno() == er::kLockDeadlock.code || autocommit) {
      // A deadlock victim loses its whole transaction (InnoDB).
      (void)Rollback();
    } else {
      Status s = engine.RollbackToSavepoint(**trx, sp);
      if (!s.ok()) (void)Rollback();
    }
    return o;
  }
  engine.EndStatement(**trx);
  if (autocommit) {
    Status s = Commit();
    if (!s.ok()) o.error = s;
  }
  return o;
}

Status TableExecutor::BeginDdl() {
  SLUICE_RETURN_IF_ERROR(Commit());
  SLUICE_RETURN_IF_ERROR(BeginWrite());
  if (!server_.metadata_lock().LockExclusive(LockWaitTimeout(server_, ctx_))) {
    EndWrite();
    return MakeError(er::kLockWaitTimeout);
  }
  holds_ddl_lock_ = true;
  return Status::OK();
}

void TableExecutor::EndDdl() {
  if (holds_ddl_lock_) server_.metadata_lock().UnlockExclusive();
  holds_ddl_lock_ = false;
  EndWrite();
}

Result<TableExecutor::Table> TableExecutor::ResolveTable(const sql::TableRef& ref) {
  Table t;
  t.schema = ref.schema.empty() ? ctx_.db : ref.schema;
  if (t.schema.empty()) return MakeError(er::kNoDb);
  t.def = server_.engine().FindTable(t.schema, ref.name);
  if (t.def == nullptr) return MakeError(er::kNoSuchTable, t.schema, ref.name);
  return t;
}

// ---------------------------------------------------------------- DDL

Outcome TableExecutor::CreateDatabase(const sql::CreateDatabaseStmt& s) {
  Outcome o;
  o.error = BeginDdl();
  if (!o.error.ok()) return o;
  storage::DatabaseDef db;
  db.name = s.name;
  if (!s.charset.empty()) db.default_charset = sql::AsciiLower(s.charset);
  if (!s.collation.empty()) db.default_collation = sql::AsciiLower(s.collation);
  Status st = server_.engine().CreateDatabase(db);
  EndDdl();
  if (st.mysql_errno() == er::kDbCreateExists.code && s.if_not_exists) {
    ctx_.warnings.push_back({Warning::Level::kNote, st.mysql_errno(), st.message()});
    return o;
  }
  o.error = st;
  if (st.ok()) o.affected_rows = 1;
  return o;
}

Outcome TableExecutor::DropDatabase(const sql::DropDatabaseStmt& s) {
  Outcome o;
  o.error = BeginDdl();
  if (!o.error.ok()) return o;
  const size_t tables = server_.engine().catalog().snapshot()->TablesIn(s.name).size();
  Status st = server_.engine().DropDatabase(s.name);
  EndDdl();
  if (st.mysql_errno() == er::kDbDropExists.code && s.if_exists) {
    ctx_.warnings.push_back({Warning::Level::kNote, st.mysql_errno(), st.message()});
    return o;
  }
  o.error = st;
  if (st.ok()) {
    o.affected_rows = tables;
    if (sql::AsciiLower(ctx_.db) == sql::AsciiLower(s.name)) ctx_.db.clear();
  }
  return o;
}

Outcome TableExecutor::CreateTable(const sql::CreateTableStmt& s) {
  Outcome o;
  if (s.temporary) {
    o.error = MakeError(er::kNotSupportedYet, "CREATE TEMPORARY TABLE");
    return o;
  }
  if (!s.foreign_keys.empty()) {
    o.error = MakeError(er::kNotSupportedYet, "FOREIGN KEY");
    return o;
  }
  TableDef def;
  def.schema = s.table.schema.empty() ? ctx_.db : s.table.schema;
  if (def.schema.empty()) {
    o.error = MakeError(er::kNoDb);
    return o;
  }
  def.name = s.table.name;
  // The snapshot owns the DatabaseDef: keep it while `db` is used.
  const auto snap = server_.engine().catalog().snapshot();
  const storage::DatabaseDef* db = snap->FindDatabase(def.schema);
  if (db == nullptr) {
    o.error = MakeError(er::kBadDb, def.schema);
    return o;
  }
  if (s.like) {
    Result<Table> src = ResolveTable(*s.like);
    if (!src.ok()) {
      o.error = src.status();
      return o;
    }
    std::string schema = def.schema, name = def.name;
    def = *src->def;
    def.schema = schema;
    def.name = name;
    def.id = 0;
    def.space_id = 0;
    def.auto_increment_next = 1;
    def.next_row_id = 1;
    // The hidden clustered index is the catalog's to add again.
    if (def.has_hidden_row_id()) def.indexes.erase(def.indexes.begin());
    for (auto& idx : def.indexes) {
      idx.id = 0;
      idx.root_page = 0;
    }
  } else {
    def.options.charset = !s.options.charset.empty() ? sql::AsciiLower(s.options.charset) : db->default_charset;
    if (def.options.charset == "utf8") def.options.charset = "utf8mb3";
    def.options.collation = !s.options.collation.empty() ? sql::AsciiLower(s.options.collation)
                            : !s.options.charset.empty() ? DefaultCollation(def.options.charset)
                                                         : db->default_collation;
    def.options.comment = s.options.comment;
    if (!s.options.engine.empty() && sql::AsciiLower(s.options.engine) != "innodb") {
      // MySQL substitutes the default engine with a warning (NO_ENGINE_SUBSTITUTION
      // off); with it on (the default) an unknown engine is an error.
      o.error = MakeError(er::kUnknownStorageEngine, s.options.engine);
      return o;
    }
    auto eval_default = [this](const sql::Expr& e) { return sql::Evaluate(e, eval_); };
    std::vector<storage::IndexDef> inline_keys;
    for (const sql::ColumnDefinition& cd : s.columns) {
      Result<ColumnDef> c = ColumnFromDefinition(cd, def.options.charset, def.options.collation, eval_default);
      if (!c.ok()) {
        o.error = c.status();
        return o;
      }
      def.columns.push_back(std::move(c).value());
      if (cd.primary_key || cd.unique) {
        storage::IndexDef idx;
        idx.kind = cd.primary_key ? storage::IndexKind::kClustered : storage::IndexKind::kSecondary;
        idx.name = cd.primary_key ? std::string(storage::kPrimaryKeyName) : cd.name;
        idx.unique = true;
        idx.parts.push_back(storage::KeyPart{cd.name, 0, 0, false});
        inline_keys.push_back(std::move(idx));
      }
    }
    std::set<std::string> names;
    for (const auto& k : inline_keys) names.insert(sql::AsciiLower(k.name));
    std::vector<storage::IndexDef> keys;
    for (const sql::IndexSpec& spec : s.indexes) {
      if (spec.kind == sql::IndexSpec::Kind::kFulltext || spec.kind == sql::IndexSpec::Kind::kSpatial) {
        o.error = MakeError(er::kNotSupportedYet, "FULLTEXT and SPATIAL indexes");
        return o;
      }
      storage::IndexDef idx;
      idx.kind = spec.kind == sql::IndexSpec::Kind::kPrimary ? storage::IndexKind::kClustered
                                                            : storage::IndexKind::kSecondary;
      idx.unique = spec.kind != sql::IndexSpec::Kind::kKey;
      for (const auto& p : spec.parts) {
        idx.parts.push_back(storage::KeyPart{p.column, 0, static_cast<uint32_t>(p.prefix_length), p.desc});
      }
      if (idx.kind == storage::IndexKind::kClustered) {
        idx.name = std::string(storage::kPrimaryKeyName);
      } else if (!spec.name.empty()) {
        idx.name = spec.name;
      } else {
        // MySQL names an unnamed key after its first column: k, k_2, k_3...
        std::string base = spec.parts.empty() ? "key" : spec.parts[0].column;
        idx.name = base;
        for (int n = 2; names.count(sql::AsciiLower(idx.name)); ++n) idx.name = base + "_" + std::to_string(n);
      }
      names.insert(sql::AsciiLower(idx.name));
      keys.push_back(std::move(idx));
    }
    for (auto& k : inline_keys) def.indexes.push_back(std::move(k));
    for (auto& k : keys) def.indexes.push_back(std::move(k));
    if (s.options.auto_increment) def.auto_increment_next = std::max<uint64_t>(*s.options.auto_increment, 1);
  }
  o.error = BeginDdl();
  if (!o.error.ok()) return o;
  if (s.if_not_exists && server_.engine().FindTable(def.schema, def.name) != nullptr) {
    EndDdl();
    ctx_.warnings.push_back({Warning::Level::kNote, er::kTableExists.code,
                             fmt::format("Table '{}' already exists", def.name)});
    return o;
  }
  Result<std::shared_ptr<const TableDef>> created = server_.engine().CreateTable(std::move(def));
  EndDdl();
  o.error = created.status();
  return o;
}

Outcome TableExecutor::DropTable(const sql::DropTableStmt& s) {
  Outcome o;
  o.error = BeginDdl();
  if (!o.error.ok()) return o;
  std::vector<std::string> missing;
  for (const sql::TableRef& ref : s.tables) {
    std::string schema = ref.schema.empty() ? ctx_.db : ref.schema;
    if (schema.empty()) {
      o.error = MakeError(er::kNoDb);
      break;
    }
    Status st = server_.engine().DropTable(schema, ref.name);
    if (st.mysql_errno() == er::kBadTable.code) {
      missing.push_back(schema + "." + ref.name);
    } else if (!st.ok()) {
      o.error = st;
      break;
    }
  }
  EndDdl();
  if (o.error.ok() && !missing.empty()) {
    std::string list;
    for (const auto& m : missing) list += (list.empty() ? "" : ",") + m;
    if (s.if_exists) {
      for (const auto& m : missing) {
        ctx_.warnings.push_back({Warning::Level::kNote, er::kBadTable.code, fmt::format("Unknown table '{}'", m)});
      }
    } else {
      o.error = MakeError(er::kBadTable, list);
    }
  }
  return o;
}

Outcome TableExecutor::CreateIndex(const sql::CreateIndexStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  if (s.index.kind == sql::IndexSpec::Kind::kFulltext || s.index.kind == sql::IndexSpec::Kind::kSpatial) {
    o.error = MakeError(er::kNotSupportedYet, "FULLTEXT and SPATIAL indexes");
    return o;
  }
  if (s.index.kind == sql::IndexSpec::Kind::kPrimary) {
    o.error = MakeError(er::kNotSupportedYet, "adding a PRIMARY KEY");
    return o;
  }
  storage::IndexDef idx;
  idx.name = s.index.name;
  idx.unique = s.index.kind == sql::IndexSpec::Kind::kUnique;
  for (const auto& p : s.index.parts) {
    idx.parts.push_back(storage::KeyPart{p.column, 0, static_cast<uint32_t>(p.prefix_length), p.desc});
  }
  o.error = BeginDdl();
  if (!o.error.ok()) return o;
  o.error = server_.engine().AddIndex(t->schema, t->def->name, std::move(idx));
  EndDdl();
  return o;
}

Outcome TableExecutor::DropIndex(const sql::DropIndexStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  o.error = BeginDdl();
  if (!o.error.ok()) return o;
  o.error = server_.engine().DropIndex(t->schema, t->def->name, s.name);
  EndDdl();
  return o;
}

// ---------------------------------------------------------------- DML

namespace {

// LIMIT n of UPDATE / DELETE: no limit when absent.
Result<uint64_t> RowLimit(const sql::Expr* e, sql::EvalContext& eval) {
  if (e == nullptr) return std::numeric_limits<uint64_t>::max();
  Result<sql::Value> v = sql::Evaluate(*e, eval);
  if (!v.ok()) return v.status();
  return v->ToUInt();
}

// The clustered-key values of `row` (Get/Update/Delete's `pk`).
Row PkOf(const TableDef& def, const Row& row, uint64_t hidden_row_id = 0) {
  Row pk;
  if (def.has_hidden_row_id()) {
    pk.push_back(hidden_row_id);
    return pk;
  }
  for (const auto& p : def.clustered().parts) pk.push_back(row[p.column]);
  return pk;
}

}  // namespace

Outcome TableExecutor::Insert(const sql::InsertStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  const TableDef& def = *t->def;
  if (s.select) {
    o.error = MakeError(er::kNotSupportedYet, "INSERT ... SELECT");
    return o;
  }
  if (def.has_hidden_row_id() && (s.replace || !s.on_duplicate.empty())) {
    // Without a key nothing can be a duplicate: plain inserts.
  }
  // Target column ordinals, in the statement's order.
  std::vector<const ColumnDef*> targets;
  if (s.columns.empty()) {
    for (const auto& c : def.columns) targets.push_back(&c);
  } else {
    for (const auto& name : s.columns) {
      const ColumnDef* c = def.FindColumn(name);
      if (c == nullptr) {
        o.error = MakeError(er::kBadField, name, "field list");
        return o;
      }
      targets.push_back(c);
    }
  }
  const bool strict = Strict() && !s.ignore;
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    Engine& engine = server_.engine();
    uint64_t first_id = 0;
    uint64_t row_number = 0;
    for (const auto& values : s.rows) {
      ++row_number;
      if (values.size() != targets.size() && !(values.empty() && s.columns.empty())) {
        r.error = MakeError(er::kWrongValueCountOnRow, row_number);
        return r;
      }
      AssignContext cx = Assigning(strict, row_number);
      Row row(def.columns.size());
      std::vector<bool> given(def.columns.size(), false);
      for (size_t i = 0; i < values.size(); ++i) {
        const ColumnDef& c = *targets[i];
        given[c.ordinal] = true;
        if (values[i]->kind == sql::ExprKind::kDefault) {
          Result<RowValue> d = ColumnDefault(c, cx, eval_.StatementTime());
          if (!d.ok()) {
            r.error = d.status();
            return r;
          }
          row[c.ordinal] = std::move(d).value();
          continue;
        }
        Result<sql::Value> v = sql::Evaluate(*values[i], eval_);
        if (!v.ok()) {
          r.error = v.status();
          return r;
        }
        if (v->is_null() && c.auto_increment) continue;  // generated
        Result<RowValue> rv = ToColumnValue(c, *v, cx);
        if (!rv.ok()) {
          r.error = rv.status();
          return r;
        }
        row[c.ordinal] = std::move(rv).value();
      }
      for (const auto& c : def.columns) {
        if (given[c.ordinal] || c.auto_increment) continue;
        Result<RowValue> d = ColumnDefault(c, cx, eval_.StatementTime());
        if (!d.ok()) {
          r.error = d.status();
          return r;
        }
        row[c.ordinal] = std::move(d).value();
      }
      Result<uint64_t> id = engine.Insert(trx, def.id, row);
      if (!id.ok() && id.status().mysql_errno() == er::kDupEntry.code && !def.has_hidden_row_id() &&
          (s.replace || !s.on_duplicate.empty() || s.ignore)) {
        // Only a PRIMARY KEY duplicate is resolved here; a UNIQUE secondary
        // one is reported (or ignored).
        const Row pk = PkOf(def, row);
        Result<std::optional<Row>> old = engine.GetLocked(trx, def.id, pk, storage::LockMode::kX);
        if (!old.ok()) {
          r.error = old.status();
          return r;
        }
        if (!old->has_value() || s.ignore) {
          if (s.ignore) {
            ctx_.warnings.push_back({Warning::Level::kWarning, er::kDupEntry.code, id.status().message()});
            continue;
          }
          r.error = id.status();
          return r;
        }
        if (s.replace) {
          Result<bool> del = engine.Delete(trx, def.id, pk);
          if (!del.ok()) {
            r.error = del.status();
            return r;
          }
          id = engine.Insert(trx, def.id, row);
          if (id.ok()) r.affected_rows += 1;  // REPLACE counts the delete too
        } else {
          // ON DUPLICATE KEY UPDATE, over the old row; VALUES(col) is not
          // supported yet (it needs the new row in the evaluator).
          Row updated = **old;
          RowEval re(eval_, def, s.table.alias.empty() ? def.name : s.table.alias);
          re.set_clause("field list");
          for (const auto& a : s.on_duplicate) {
            const ColumnDef* c = def.FindColumn(a.column->name);
            if (c == nullptr) {
              r.error = MakeError(er::kBadField, a.column->name, "field list");
              return r;
            }
            re.SetRow(&updated);
            Result<sql::Value> v = a.value->kind == sql::ExprKind::kDefault ? Result<sql::Value>(sql::Value::Null())
                                                                            : sql::Evaluate(*a.value, re);
            if (!v.ok()) {
              r.error = v.status();
              return r;
            }
            Result<RowValue> rv = ToColumnValue(*c, *v, cx);
            if (!rv.ok()) {
              r.error = rv.status();
              return r;
            }
            updated[c->ordinal] = std::move(rv).value();
          }
          if (updated != **old) {
            Result<bool> up = engine.Update(trx, def.id, pk, updated);
            if (!up.ok()) {
              r.error = up.status();
              return r;
            }
            r.affected_rows += 2;  // MySQL: 2 for an updated row
          }
          continue;
        }
      }
      if (!id.ok()) {
        r.error = id.status();
        return r;
      }
      r.affected_rows += 1;
      if (*id != 0 && first_id == 0 && !def.has_hidden_row_id()) first_id = *id;
    }
    if (first_id != 0) {
      ctx_.last_insert_id = first_id;
      r.last_insert_id = first_id;
    }
    if (s.rows.size() > 1 || !ctx_.warnings.empty()) {
      r.info = fmt::format("Records: {}  Duplicates: {}  Warnings: {}", s.rows.size(), 0, ctx_.warning_count());
    }
    return r;
  }, /*writes=*/true);
}

Outcome TableExecutor::Update(const sql::UpdateStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  const TableDef& def = *t->def;
  const bool strict = Strict() && !s.ignore;
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    Engine& engine = server_.engine();
    RowEval re(eval_, def, s.table.alias.empty() ? def.name : s.table.alias);
    Result<uint64_t> row_limit = RowLimit(s.limit.get(), eval_);
    if (!row_limit.ok()) {
      r.error = row_limit.status();
      return r;
    }
    const uint64_t limit = *row_limit;
    if (!s.order_by.empty()) {
      r.error = MakeError(er::kNotSupportedYet, "UPDATE ... ORDER BY");
      return r;
    }
    // Read and lock the matching rows first, then change them.
    std::vector<Row> matched;
    const BoundTable bound{&def, s.table.alias.empty() ? def.name : s.table.alias};
    Status st = ReadRows(engine, trx, bound, PlanAccess(bound, s.where.get()), eval_, storage::LockMode::kX,
                         [&](const Row& row) -> Result<bool> {
                           Result<bool> match = re.Matches(row, s.where.get());
                           if (!match.ok()) return match.status();
                           if (!*match) return true;
                           matched.push_back(row);
                           return matched.size() < limit;
                         });
    if (!st.ok()) {
      r.error = st;
      return r;
    }
    uint64_t changed = 0, row_number = 0;
    for (const Row& old : matched) {
      ++row_number;
      Row updated = old;
      AssignContext cx = Assigning(strict, row_number);
      for (const auto& a : s.set) {
        const ColumnDef* c = def.FindColumn(a.column->name);
        if (c == nullptr) {
          r.error = MakeError(er::kBadField, a.column->name, "field list");
          return r;
        }
        // Later assignments see earlier ones (single-table UPDATE).
        re.SetRow(&updated);
        re.set_clause("field list");
        Result<RowValue> rv = RowValue{};
        if (a.value->kind == sql::ExprKind::kDefault) {
          rv = ColumnDefault(*c, cx, eval_.StatementTime());
        } else {
          Result<sql::Value> v = sql::Evaluate(*a.value, re);
          if (!v.ok()) {
            r.error = v.status();
            return r;
          }
          rv = ToColumnValue(*c, *v, cx);
        }
        if (!rv.ok()) {
          r.error = rv.status();
          return r;
        }
        updated[c->ordinal] = std::move(rv).value();
      }
      if (updated == old) continue;
      Result<bool> up = engine.Update(trx, def.id, PkOf(def, old), updated);
      if (!up.ok()) {
        r.error = up.status();
        return r;
      }
      if (*up) ++changed;
    }
    r.affected_rows = changed;
    r.info = fmt::format("Rows matched: {}  Changed: {}  Warnings: {}", matched.size(), changed,
                         ctx_.warning_count());
    return r;
  }, /*writes=*/true);
}

Outcome TableExecutor::Delete(const sql::DeleteStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  const TableDef& def = *t->def;
  if (def.has_hidden_row_id()) {
    o.error = MakeError(er::kNotSupportedYet, "DELETE from a table without a PRIMARY KEY");
    return o;
  }
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    Engine& engine = server_.engine();
    RowEval re(eval_, def, s.table.alias.empty() ? def.name : s.table.alias);
    Result<uint64_t> row_limit = RowLimit(s.limit.get(), eval_);
    if (!row_limit.ok()) {
      r.error = row_limit.status();
      return r;
    }
    const uint64_t limit = *row_limit;
    if (!s.order_by.empty()) {
      r.error = MakeError(er::kNotSupportedYet, "DELETE ... ORDER BY");
      return r;
    }
    std::vector<Row> pks;
    const BoundTable bound{&def, s.table.alias.empty() ? def.name : s.table.alias};
    Status st = ReadRows(engine, trx, bound, PlanAccess(bound, s.where.get()), eval_, storage::LockMode::kX,
                         [&](const Row& row) -> Result<bool> {
                           Result<bool> match = re.Matches(row, s.where.get());
                           if (!match.ok()) return match.status();
                           if (!*match) return true;
                           pks.push_back(PkOf(def, row));
                           return pks.size() < limit;
                         });
    if (!st.ok()) {
      r.error = st;
      return r;
    }
    for (const Row& pk : pks) {
      Result<bool> del = engine.Delete(trx, def.id, pk);
      if (!del.ok()) {
        r.error = del.status();
        return r;
      }
      if (*del) ++r.affected_rows;
    }
    return r;
  }, /*writes=*/true);
}

// ---------------------------------------------------------------- SELECT

Outcome TableExecutor::Select(const sql::SelectStmt& s) {
  Outcome o;
  if (s.from.size() != 1) {
    o.error = MakeError(er::kNotSupportedYet, "joins");
    return o;
  }
  // INFORMATION_SCHEMA tables are computed from the catalog.
  std::optional<VirtualTable> virtual_table;
  std::shared_ptr<const TableDef> def_ptr;
  const std::string schema = s.from[0].schema.empty() ? ctx_.db : s.from[0].schema;
  if (sql::AsciiLower(schema) == "information_schema") {
    virtual_table = InformationSchemaTable(s.from[0].name, *server_.engine().catalog().snapshot(),
                                           [this](const std::string& db) {
                                             return sql::AsciiLower(db) == "information_schema" ||
                                                    (ctx_.account && ctx_.account->HasAnyDbAccess(db));
                                           });
    if (virtual_table->def == nullptr) {
      o.error = MakeError(er::kNoSuchTable, "information_schema", s.from[0].name);
      return o;
    }
    def_ptr = virtual_table->def;
    if (s.lock != sql::SelectStmt::Lock::kNone) {
      o.error = MakeError(er::kNotSupportedYet, "locking reads of INFORMATION_SCHEMA");
      return o;
    }
  } else {
    Result<Table> t = ResolveTable(s.from[0]);
    if (!t.ok()) {
      o.error = t.status();
      return o;
    }
    def_ptr = t->def;
  }
  const TableDef& def = *def_ptr;
  // Aggregates, in the select list, HAVING and ORDER BY.
  Aggregates aggs;
  for (const auto& item : s.items) {
    if (item.expr) o.error = aggs.Collect(*item.expr);
    if (!o.error.ok()) return o;
  }
  if (s.having) o.error = aggs.Collect(*s.having);
  for (size_t i = 0; o.error.ok() && i < s.order_by.size(); ++i) o.error = aggs.Collect(*s.order_by[i].expr);
  if (!o.error.ok()) return o;
  if (s.where && ContainsAggregate(*s.where)) {
    o.error = MakeError(er::kInvalidGroupFuncUse);
    return o;
  }
  const bool grouped = !s.group_by.empty() || aggs.size() > 0;
  std::optional<storage::LockMode> lock;
  if (s.lock == sql::SelectStmt::Lock::kForUpdate) lock = storage::LockMode::kX;
  if (s.lock == sql::SelectStmt::Lock::kForShare) lock = storage::LockMode::kS;
  const std::string alias = s.from[0].alias.empty() ? def.name : s.from[0].alias;
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    RowEval re(eval_, def, alias);
    // The result columns: * expands to the table's columns.
    struct Out {
      const ColumnDef* column = nullptr;  // a plain column (or *)
      const sql::Expr* expr = nullptr;
      std::string name;
      std::string alias;  // for ORDER BY / GROUP BY / HAVING references
    };
    std::vector<Out> outs;
    for (const auto& item : s.items) {
      if (item.star) {
        for (const auto& c : def.columns) outs.push_back({&c, nullptr, c.name, ""});
        continue;
      }
      Out out;
      out.expr = item.expr.get();
      out.name = item.ColumnName();
      if (item.has_alias) out.alias = item.alias;
      if (item.expr->kind == sql::ExprKind::kColumn) {
        out.column = def.FindColumn(item.expr->name);
        if (out.column == nullptr) {
          r.error = MakeError(er::kBadField, item.expr->name, "field list");
          return r;
        }
        if (!item.has_alias) out.name = out.column->name;
      }
      outs.push_back(std::move(out));
    }
    // ORDER BY / GROUP BY n or alias: the select item it names (or -1).
    auto item_ref = [&](const sql::Expr& e) -> Result<int> {
      if (e.kind == sql::ExprKind::kLiteral && !e.value.is_null() && e.value.kind() != sql::ValueKind::kString) {
        uint64_t n = e.value.ToUInt();
        if (n < 1 || n > outs.size()) return MakeError(er::kBadField, std::to_string(n), "order clause");
        return static_cast<int>(n - 1);
      }
      if (e.kind == sql::ExprKind::kColumn && e.table.empty()) {
        for (size_t i = 0; i < outs.size(); ++i) {
          if (!outs[i].alias.empty() && sql::AsciiLower(outs[i].alias) == sql::AsciiLower(e.name)) return static_cast<int>(i);
        }
      }
      return -1;
    };
    uint64_t limit = std::numeric_limits<uint64_t>::max(), offset = 0;
    for (auto [expr, out] : {std::pair{s.limit.get(), &limit}, std::pair{s.offset.get(), &offset}}) {
      if (!expr) continue;
      Result<sql::Value> v = sql::Evaluate(*expr, eval_);
      if (!v.ok()) {
        r.error = v.status();
        return r;
      }
      *out = v->ToUInt();
    }
    struct Produced {
      std::vector<std::optional<std::string>> cells;
      std::vector<sql::Value> sort_keys;
    };
    std::vector<Produced> produced;
    std::vector<std::optional<sql::Value>> first_values(outs.size());
    // Evaluates `e` for the current row; in a grouped query, aggregates take
    // the group's values (and plain columns the group's first row).
    const Aggregates::State* group = nullptr;
    auto eval_expr = [&](const sql::Expr& e) -> Result<sql::Value> {
      if (group == nullptr || !ContainsAggregate(e)) return sql::Evaluate(e, re);
      sql::ExprPtr bound = SubstituteExpr(e, [&](const sql::Expr& x) { return aggs.ValueOf(*group, x); });
      return sql::Evaluate(*bound, re);
    };
    // One output row from the current row (and group).
    auto produce = [&](const Row* row) -> Result<bool> {
      re.set_clause("field list");
      Produced p;
      std::vector<sql::Value> values(outs.size());
      for (size_t i = 0; i < outs.size(); ++i) {
        if (outs[i].column != nullptr) {
          const RowValue& rv = row != nullptr ? (*row)[outs[i].column->ordinal] : RowValue{};
          p.cells.push_back(ColumnText(*outs[i].column, rv));
          values[i] = FromColumnValue(*outs[i].column, rv);
          continue;
        }
        Result<sql::Value> v = eval_expr(*outs[i].expr);
        if (!v.ok()) return v.status();
        if (!first_values[i] || first_values[i]->is_null()) first_values[i] = *v;
        p.cells.push_back(CellOf(*v));
        values[i] = std::move(v).value();
      }
      if (grouped && s.having) {
        std::vector<std::pair<std::string, sql::Value>> aliases;
        for (size_t i = 0; i < outs.size(); ++i) {
          if (!outs[i].alias.empty()) aliases.emplace_back(outs[i].alias, values[i]);
        }
        re.set_aliases(&aliases);
        re.set_clause("having clause");
        Result<sql::Value> h = eval_expr(*s.having);
        re.set_aliases(nullptr);
        if (!h.ok()) return h.status();
        if (!Truthy(*h)) return true;
      }
      re.set_clause("order clause");
      for (const auto& ob : s.order_by) {
        Result<int> ref = item_ref(*ob.expr);
        if (!ref.ok()) return ref.status();
        if (*ref >= 0) {
          p.sort_keys.push_back(values[*ref]);
          continue;
        }
        Result<sql::Value> v = eval_expr(*ob.expr);
        if (!v.ok()) return v.status();
        p.sort_keys.push_back(std::move(v).value());
      }
      produced.push_back(std::move(p));
      return true;
    };
    // Groups in first-seen order (MySQL 8.0 does not sort GROUP BY).
    struct Group {
      Row first;
      std::unique_ptr<Aggregates::State> state;
    };
    std::vector<Group> groups;
    std::map<std::vector<std::string>, size_t> group_index;
    const bool early_stop = s.order_by.empty() && !s.distinct && !grouped;
    auto rows = [&](const std::function<Result<bool>(const Row&)>& visit) -> Status {
      if (!virtual_table) {
        const BoundTable bound{&def, alias};
        return ReadRows(server_.engine(), trx, bound, PlanAccess(bound, s.where.get()), eval_, lock, visit);
      }
      for (const Row& row : virtual_table->rows) {
        Result<bool> more = visit(row);
        if (!more.ok()) return more.status();
        if (!*more) break;
      }
      return Status::OK();
    };
    Status st = rows([&](const Row& row) -> Result<bool> {
                           Result<bool> match = re.Matches(row, s.where.get());
                           if (!match.ok()) return match.status();
                           if (!*match) return true;
                           if (!grouped) {
                             Result<bool> more = produce(&row);
                             if (!more.ok()) return more.status();
                             return !early_stop || produced.size() < offset + limit;
                           }
                           re.set_clause("group statement");
                           std::vector<std::string> key;
                           for (const auto& g : s.group_by) {
                             Result<int> ref = item_ref(*g);
                             if (!ref.ok()) return ref.status();
                             Result<sql::Value> v = *ref >= 0 && outs[*ref].expr != nullptr
                                                        ? sql::Evaluate(*outs[*ref].expr, re)
                                                    : *ref >= 0 ? FromColumnValue(*outs[*ref].column,
                                                                                  row[outs[*ref].column->ordinal])
                                                                : sql::Evaluate(*g, re);
                             if (!v.ok()) return v.status();
                             // Groups compare as MySQL compares: case-insensitively for text.
                             std::string k = v->is_null() ? std::string("\0N") : sql::AsciiLower(v->ToString());
                             key.push_back(std::move(k));
                           }
                           auto [it, added] = group_index.emplace(std::move(key), groups.size());
                           if (added) groups.push_back({row, aggs.NewGroup()});
                           Status added_row = aggs.Add(*groups[it->second].state, re);
                           if (!added_row.ok()) return added_row;
                           return true;
                         });
    if (!st.ok()) {
      r.error = st;
      return r;
    }
    if (grouped) {
      // Without GROUP BY, aggregates over no rows still give one row.
      if (groups.empty() && s.group_by.empty()) groups.push_back({Row(), aggs.NewGroup()});
      for (const Group& g : groups) {
        group = g.state.get();
        const Row* row = g.first.empty() ? nullptr : &g.first;
        re.SetRow(row);
        Result<bool> ok = produce(row);
        if (!ok.ok()) {
          r.error = ok.status();
          return r;
        }
      }
      group = nullptr;
    }
    if (!s.order_by.empty()) {
      std::stable_sort(produced.begin(), produced.end(), [&](const Produced& a, const Produced& b) {
        for (size_t i = 0; i < s.order_by.size(); ++i) {
          // NULL first ascending, as MySQL.
          const sql::Value& x = a.sort_keys[i];
          const sql::Value& y = b.sort_keys[i];
          int c;
          if (x.is_null() || y.is_null()) {
            c = x.is_null() == y.is_null() ? 0 : (x.is_null() ? -1 : 1);
          } else {
            c = CompareValues(x, y).value_or(0);
          }
          if (c != 0) return s.order_by[i].desc ? c > 0 : c < 0;
        }
        return false;
      });
    }
    ResultSet rs;
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].column != nullptr) {
        rs.columns.push_back(ColumnMetadata(def, *outs[i].column, outs[i].name));
      } else {
        rs.columns.push_back(ColumnFor(outs[i].name, first_values[i].value_or(sql::Value::Null())));
      }
    }
    std::set<std::vector<std::optional<std::string>>> seen;
    uint64_t skipped = 0;
    for (auto& p : produced) {
      if (s.distinct && !seen.insert(p.cells).second) continue;
      if (skipped < offset) {
        ++skipped;
        continue;
      }
      if (rs.rows.size() >= limit) break;
      rs.rows.push_back(std::move(p.cells));
    }
    r.result = std::move(rs);
    return r;
  });
}

// ---------------------------------------------------------------- SHOW

Result<std::string> TableExecutor::ShowDatabase(const sql::ShowStmt& s) {
  std::string db = s.database.empty() ? ctx_.db : s.database;
  if (db.empty()) return MakeError(er::kNoDb);
  if (sql::AsciiLower(db) != "information_schema" && server_.engine().catalog().snapshot()->FindDatabase(db) == nullptr) {
    return MakeError(er::kBadDb, db);
  }
  return db;
}

Outcome TableExecutor::ShowTables(const sql::ShowStmt& s) {
  Outcome o;
  Result<std::string> resolved = ShowDatabase(s);
  if (!resolved.ok()) {
    o.error = resolved.status();
    return o;
  }
  const std::string& db = *resolved;
  auto snap = server_.engine().catalog().snapshot();
  const bool is = sql::AsciiLower(db) == "information_schema";
  ResultSet rs;
  rs.AddTextColumn("Tables_in_" + db + (s.like ? " (" + *s.like + ")" : ""), 64);
  if (s.full) rs.AddTextColumn("Table_type", 64);
  std::vector<std::string> names = is ? InformationSchemaTableNames() : std::vector<std::string>();
  if (!is) {
    for (const auto& t : snap->TablesIn(db)) names.push_back(t->name);
  }
  for (const auto& name : names) {
    std::vector<std::optional<std::string>> row{name};
    if (s.full) row.emplace_back(is ? "SYSTEM VIEW" : "BASE TABLE");
    rs.rows.push_back(std::move(row));
  }
  o.result = std::move(rs);
  return o;
}

Outcome TableExecutor::ShowColumns(const sql::ShowStmt& s) {
  Outcome o;
  sql::TableRef ref = s.table;
  if (!s.database.empty()) ref.schema = s.database;
  Result<Table> t = ResolveTable(ref);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  const TableDef& def = *t->def;
  ResultSet rs;
  rs.AddTextColumn("Field", 64);
  rs.AddTextColumn("Type", 64);
  if (s.full) rs.AddTextColumn("Collation", 64);
  rs.AddTextColumn("Null", 3);
  rs.AddTextColumn("Key", 3);
  rs.AddTextColumn("Default", 64);
  rs.AddTextColumn("Extra", 64);
  if (s.full) {
    rs.AddTextColumn("Privileges", 80);
    rs.AddTextColumn("Comment", 1024);
  }
  for (const auto& c : def.columns) {
    std::string key;
    for (const auto& idx : def.indexes) {
      if (idx.parts.empty() || idx.parts[0].column != c.ordinal) continue;
      std::string k = idx.kind == storage::IndexKind::kClustered ? "PRI" : idx.unique ? "UNI" : "MUL";
      if (key.empty() || k == "PRI" || (k == "UNI" && key == "MUL")) key = k;
    }
    std::optional<std::string> dflt;
    if (c.default_kind == ColumnDef::DefaultKind::kValue) dflt = c.default_value;
    if (c.default_kind == ColumnDef::DefaultKind::kCurrentTimestamp) {
      dflt = c.fsp ? fmt::format("CURRENT_TIMESTAMP({})", c.fsp) : "CURRENT_TIMESTAMP";
    }
    std::string extra = c.auto_increment ? "auto_increment" : "";
    if (c.on_update_current_timestamp) extra = "on update CURRENT_TIMESTAMP";
    std::vector<std::optional<std::string>> row{c.name, ColumnTypeText(c)};
    if (s.full) {
      row.push_back(IsTextType(c.type) ? std::optional<std::string>(c.collation) : std::nullopt);
    }
    row.insert(row.end(), {std::string(c.nullable ? "YES" : "NO"), key, dflt, extra});
    if (s.full) row.insert(row.end(), {std::string("select,insert,update,references"), std::string()});
    rs.rows.push_back(std::move(row));
  }
  o.result = std::move(rs);
  return o;
}

Outcome TableExecutor::ShowCreateTable(const sql::ShowStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  const TableDef& def = *t->def;
  std::string text = fmt::format("CREATE TABLE `{}` (\n", def.name);
  bool first = true;
  for (const auto& c : def.columns) {
    if (!first) text += ",\n";
    first = false;
    text += fmt::format("  `{}` {}", c.name, ColumnTypeText(c));
    if (IsTextType(c.type) && (c.charset != def.options.charset || c.collation != def.options.collation)) {
      if (c.charset != def.options.charset) text += " CHARACTER SET " + c.charset;
      if (!c.collation.empty()) text += " COLLATE " + c.collation;
    }
    if (!c.nullable) text += " NOT NULL";
    std::string d = ColumnDefaultClause(c);
    if (!d.empty()) text += " " + d;
    if (c.on_update_current_timestamp) {
      text += c.fsp ? fmt::format(" ON UPDATE CURRENT_TIMESTAMP({})", c.fsp) : " ON UPDATE CURRENT_TIMESTAMP";
    }
    if (c.auto_increment) text += " AUTO_INCREMENT";
  }
  for (const auto& idx : def.indexes) {
    if (idx.parts.empty()) continue;  // GEN_CLUST_INDEX
    std::string parts;
    for (const auto& p : idx.parts) {
      if (!parts.empty()) parts += ",";
      parts += fmt::format("`{}`", def.columns[p.column].name);
      if (p.prefix_length) parts += fmt::format("({})", p.prefix_length);
      if (p.desc) parts += " DESC";
    }
    if (idx.kind == storage::IndexKind::kClustered) {
      text += fmt::format(",\n  PRIMARY KEY ({})", parts);
    } else {
      text += fmt::format(",\n  {}KEY `{}` ({})", idx.unique ? "UNIQUE " : "", idx.name, parts);
    }
  }
  text += "\n) ENGINE=InnoDB";
  text += " DEFAULT CHARSET=" + def.options.charset;
  if (!def.options.collation.empty()) text += " COLLATE=" + def.options.collation;
  if (!def.options.comment.empty()) text += " COMMENT='" + def.options.comment + "'";
  ResultSet rs;
  rs.AddTextColumn("Table", 64);
  rs.AddTextColumn("Create Table", 1024);
  rs.rows.push_back({def.name, text});
  o.result = std::move(rs);
  return o;
}

Outcome TableExecutor::ShowIndex(const sql::ShowStmt& s) {
  Outcome o;
  sql::TableRef ref = s.table;
  if (!s.database.empty()) ref.schema = s.database;
  Result<Table> t = ResolveTable(ref);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  ResultSet rs;
  for (const char* name : {"Table", "Non_unique", "Key_name", "Seq_in_index", "Column_name", "Collation",
                           "Cardinality", "Sub_part", "Packed", "Null", "Index_type", "Comment",
                           "Index_comment", "Visible", "Expression"}) {
    rs.AddTextColumn(name, 64);
  }
  const TableDef& def = *t->def;
  for (const auto& idx : def.indexes) {
    for (size_t i = 0; i < idx.parts.size(); ++i) {
      const auto& p = idx.parts[i];
      const ColumnDef& c = def.columns[p.column];
      rs.rows.push_back({def.name, std::string(idx.unique ? "0" : "1"), idx.name, std::to_string(i + 1), c.name,
                         std::string(p.desc ? "D" : "A"), std::string("0"),
                         p.prefix_length ? std::optional<std::string>(std::to_string(p.prefix_length)) : std::nullopt,
                         std::nullopt, std::string(c.nullable ? "YES" : ""), std::string("BTREE"), std::string(),
                         std::string(), std::string("YES"), std::nullopt});
    }
  }
  o.result = std::move(rs);
  return o;
}

Outcome TableExecutor::ShowCreateDatabase(const sql::ShowStmt& s) {
  Outcome o;
  const auto snap = server_.engine().catalog().snapshot();  // owns *db
  const storage::DatabaseDef* db = snap->FindDatabase(s.database);
  if (db == nullptr) {
    o.error = MakeError(er::kBadDb, s.database);
    return o;
  }
  ResultSet rs;
  rs.AddTextColumn("Database", 64);
  rs.AddTextColumn("Create Database", 1024);
  rs.rows.push_back({db->name, fmt::format("CREATE DATABASE {}`{}` /*!40100 DEFAULT CHARACTER SET {} COLLATE {} */ "
                                           "/*!80016 DEFAULT ENCRYPTION='N' */",
                                           s.if_not_exists ? "/*!32312 IF NOT EXISTS*/ " : "", db->name,
                                           db->default_charset, db->default_collation)});
  o.result = std::move(rs);
  return o;
}

Outcome TableExecutor::ShowTableStatus(const sql::ShowStmt& s) {
  Outcome o;
  Result<std::string> resolved = ShowDatabase(s);
  if (!resolved.ok()) {
    o.error = resolved.status();
    return o;
  }
  const std::string& db = *resolved;
  auto snap = server_.engine().catalog().snapshot();
  ResultSet rs;
  for (const char* name : {"Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
                           "Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time",
                           "Update_time", "Check_time", "Collation", "Checksum", "Create_options", "Comment"}) {
    rs.AddTextColumn(name, 64);
  }
  for (const auto& t : snap->TablesIn(db)) {
    bool has_ai = false;
    for (const auto& c : t->columns) has_ai = has_ai || c.auto_increment;
    rs.rows.push_back({t->name, std::string("InnoDB"), std::string("10"), std::string("Dynamic"), std::string("0"),
                       std::string("0"), std::string("16384"), std::string("0"), std::string("0"), std::string("0"),
                       has_ai ? std::optional<std::string>(std::to_string(t->auto_increment_next)) : std::nullopt,
                       std::nullopt, std::nullopt, std::nullopt, t->options.collation, std::nullopt, std::string(),
                       t->options.comment});
  }
  o.result = std::move(rs);
  return o;
}

}  // namespace sluice::server
