#include "exec/table_executor.h"

#include <boost/container/small_vector.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "acl/access_control.h"
#include "base/mysql_error.h"
#include "binlog/event.h"
#include "exec/access_path.h"
#include "exec/aggregate.h"
#include "exec/check_constraints.h"
#include "exec/column_values.h"
#include "exec/exec_env.h"
#include "exec/foreign_keys.h"
#include "exec/global_read_lock.h"
#include "exec/read_only.h"
#include "exec/table_locks.h"
#include "exec/transaction.h"
#include "exec/information_schema.h"
#include "exec/row_eval.h"
#include "exec/session_binlog.h"
#include "exec/settings.h"
#include "exec/system_schema.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

std::chrono::milliseconds LockWaitTimeout(const ExecEnv& env, SessionContext& ctx) {
  return Settings::Of(env.sys_vars(), ctx).lock_wait_timeout;
}

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

}  // namespace


// ---------------------------------------------------------------- transactions

Transaction TableExecutor::Txn() { return Transaction(env_, ctx_); }

Status TableExecutor::LogRow(const TableDef& def, SessionBinlog::RowKind kind, const Row* before, const Row* after) {
  if (env_.binlog() == nullptr) return Status::OK();
  return Txn().events().LogRow(env_, ctx_, def, kind, before, after);
}

bool TableExecutor::Autocommit() { return Settings::Of(env_.sys_vars(), ctx_).autocommit; }

bool TableExecutor::Strict() { return Settings::Of(env_.sys_vars(), ctx_).strict(); }

bool TableExecutor::ForeignKeyChecks() { return Settings::Of(env_.sys_vars(), ctx_).foreign_key_checks; }

Result<EngineTrx*> TableExecutor::Trx() { return Txn().Open(); }

TableExecutor::~TableExecutor() {
  // A statement that ended without a transaction (autocommit, or one that
  // failed before reading) keeps no table's lock.
  if (!ctx_.trx) {
    if (ctx_.mdl.MayHold()) env_.metadata_locks().ReleaseShared(ctx_.mdl);
  }
  // Every DDL path ends with EndDdl; this is the backstop.
  if (holds_ddl_lock_) EndDdl();
}

Status TableExecutor::AcquireMetadataLocks(std::vector<MetadataLocks::Request> requests) {
  bool waited = false;
  Status st = env_.metadata_locks().Acquire(ctx_.mdl, std::move(requests),
                                               LockWaitTimeout(env_, ctx_), &ctx_.killed, [&] {
                                                 waited = true;
                                                 ctx_.SetState("Waiting for table metadata lock");
                                               });
  if (waited) ctx_.SetState("executing");
  return st;
}

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
  SLUICE_RETURN_IF_ERROR(env_.read_only().Check(ctx_));
  GlobalReadLock& grl = env_.global_read_lock();
  if (grl.HeldBy(ctx_.connection_id)) return MakeError(er::kCantUpdateWithReadlock);
  SLUICE_RETURN_IF_ERROR(
      ctx_.LockWaitError(grl.BeginWrite(ctx_.connection_id, LockWaitTimeout(env_, ctx_), &ctx_.killed)));
  in_write_ = true;
  return Status::OK();
}

void TableExecutor::EndWrite() {
  if (!in_write_) return;
  env_.global_read_lock().EndWrite();
  in_write_ = false;
}

Status TableExecutor::Savepoint(const std::string& name) { return Txn().Savepoint(name, Autocommit()); }

Status TableExecutor::RollbackToSavepoint(const std::string& name) { return Txn().RollbackToSavepoint(name); }

Status TableExecutor::ReleaseSavepoint(const std::string& name) { return Txn().ReleaseSavepoint(name); }

Status TableExecutor::LockGlobalRead() {
  return ctx_.LockWaitError(
      env_.global_read_lock().Lock(ctx_.connection_id, LockWaitTimeout(env_, ctx_), &ctx_.killed));
}

Status TableExecutor::UnlockTables() {
  env_.global_read_lock().Unlock(ctx_.connection_id);
  if (ctx_.locked_tables.empty()) return Status::OK();
  // UNLOCK TABLES commits when LOCK TABLES was in force (MySQL).
  Status st = Commit();
  env_.table_locks().UnlockAll(ctx_.connection_id);
  ctx_.locked_tables.clear();
  return st;
}

Outcome TableExecutor::LockTables(const sql::TableLocksStmt& s) {
  Outcome o;
  o.error = Commit();  // implicit commit
  if (!o.error.ok()) return o;
  env_.table_locks().UnlockAll(ctx_.connection_id);
  ctx_.locked_tables.clear();
  std::vector<SessionContext::LockedTable> tables;
  std::vector<std::pair<std::string, bool>> keys;
  for (const auto& item : s.tables) {
    const std::string schema = item.table.schema.empty() ? ctx_.db : item.table.schema;
    if (schema.empty()) {
      o.error = MakeError(er::kNoDb);
      return o;
    }
    o.error = CheckSelectPrivilege(schema, item.table.name);
    if (!o.error.ok()) return o;
    if (const std::string system = SystemSchemaName(schema); !system.empty()) {
      // The mysql schema's tables are computed on each read: READ has
      // nothing to hold (reads of them never wait, locked or not), WRITE is
      // refused as every write to them is. Nothing else there is a table.
      if (system != "mysql" || MysqlSchemaTableDef(item.table.name) == nullptr) {
        o.error = system == "mysql" ? MakeError(er::kNoSuchTable, schema, item.table.name)
                                    : MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, system);
        return o;
      }
      if (item.write) {
        o.error = MakeError(er::kOpenAsReadonly, item.table.name);
        return o;
      }
      continue;
    }
    Result<Table> t = ResolveTable(item.table);
    if (!t.ok()) {
      o.error = t.status();
      return o;
    }
    tables.push_back({t->schema, t->def->name, item.table.alias, item.write});
    keys.emplace_back(TableLocks::Key(t->schema, t->def->name), item.write);
  }
  o.error = ctx_.LockWaitError(
      env_.table_locks().Lock(ctx_.connection_id, keys, LockWaitTimeout(env_, ctx_), &ctx_.killed));
  if (!o.error.ok()) return o;
  ctx_.locked_tables = std::move(tables);
  return o;
}

Status TableExecutor::UseTable(Table& t, const sql::TableRef& ref, bool write) {
  if (!ctx_.locked_tables.empty()) {
    const std::string& shown = ref.alias.empty() ? ref.name : ref.alias;
    bool found = false;
    for (const auto& lt : ctx_.locked_tables) {
      if (lt.schema == t.schema && sql::EqualsIgnoreCase(lt.name, t.def->name) &&
          sql::EqualsIgnoreCase(lt.alias, ref.alias)) {
        if (write && !lt.write) return MakeError(er::kTableNotLockedForWrite, shown);
        found = true;
        break;
      }
    }
    if (!found) return MakeError(er::kTableNotLocked, shown);
  } else if (env_.table_locks().AnyHeld()) {
    // (The common case, no LOCK TABLES anywhere, skips the key and the
    // timeout lookup.)
    SLUICE_RETURN_IF_ERROR(ctx_.LockWaitError(env_.table_locks().WaitAccess(
        ctx_.connection_id, TableLocks::Key(t.schema, t.def->name), write, LockWaitTimeout(env_, ctx_),
        &ctx_.killed)));
  }
  const std::string key = MetadataLocks::TableKey(t.schema, t.def->name);
  if (ctx_.mdl.MayHold() && env_.metadata_locks().Holds(ctx_.mdl, key, MetadataLocks::Mode::kShared)) {
    return Status::OK();
  }
  const std::string name = t.def->name;
  if (!env_.metadata_locks().TryAcquireSharedFast(ctx_.mdl, key)) {
    SLUICE_RETURN_IF_ERROR(AcquireMetadataLocks({{key, MetadataLocks::Mode::kShared}}));
  }
  // The definition read before the lock may be one a DDL has since replaced.
  t.def = env_.engine().FindTable(t.schema, name);
  if (t.def == nullptr) return MakeError(er::kNoSuchTable, t.schema, name);
  return Status::OK();
}

Status TableExecutor::UseForeignKeyTables(const TableDef& def) {
  if ((def.foreign_keys.empty() && !def.referenced) || !ForeignKeyChecks()) return Status::OK();
  const auto snap = env_.engine().catalog().snapshot();  // owns what `pending` points to
  std::vector<std::pair<std::string, std::string>> related;
  for (const storage::ForeignKeyDef& fk : def.foreign_keys) related.emplace_back(fk.ref_schema, fk.ref_table);
  // The children, and theirs, as far as a cascade can go.
  std::vector<const TableDef*> pending{&def};
  std::set<uint64_t> seen{def.id};
  for (size_t i = 0; i < pending.size(); ++i) {
    for (const auto& ref : snap->ReferencingForeignKeys(pending[i]->schema, pending[i]->name)) {
      if (!seen.insert(ref.child->id).second) continue;
      related.emplace_back(ref.child->schema, ref.child->name);
      pending.push_back(ref.child.get());
    }
  }
  std::vector<MetadataLocks::Request> requests;
  for (const auto& [schema, name] : related) {
    if (schema == def.schema && name == def.name) continue;
    std::string key = MetadataLocks::TableKey(schema, name);
    if (ctx_.mdl.MayHold() && env_.metadata_locks().Holds(ctx_.mdl, key, MetadataLocks::Mode::kShared)) {
      continue;
    }
    requests.push_back({std::move(key), MetadataLocks::Mode::kShared});
  }
  if (requests.empty()) return Status::OK();
  return AcquireMetadataLocks(std::move(requests));
}

Outcome TableExecutor::EndOnLockError(Outcome o) {
  // A deadlock victim loses its whole transaction (as RunDml does), so
  // that the other side of the cycle goes on.
  if (o.error.mysql_errno() == er::kLockDeadlock.code) (void)Rollback();
  return o;
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
  Status s = Txn().Commit();
  if (wrote && outer) EndWrite();
  return s;
}

Status TableExecutor::Rollback() {
  ctx_.in_transaction = false;
  ctx_.read_only_transaction = false;
  return Txn().Rollback();
}

Status TableExecutor::Begin(bool consistent_snapshot, bool read_only) {
  SLUICE_RETURN_IF_ERROR(Commit());
  // START TRANSACTION releases LOCK TABLES (MySQL).
  if (!ctx_.locked_tables.empty()) {
    env_.table_locks().UnlockAll(ctx_.connection_id);
    ctx_.locked_tables.clear();
  }
  ctx_.in_transaction = true;
  ctx_.read_only_transaction = read_only;
  if (consistent_snapshot) {
    Result<EngineTrx*> trx = Trx();
    if (!trx.ok()) return trx.status();
    env_.engine().OpenReadView(**trx);
  }
  return Status::OK();
}

void TableExecutor::EndSession(const ExecEnv& env, SessionContext& ctx) {
  env.global_read_lock().Unlock(ctx.connection_id);
  env.table_locks().UnlockAll(ctx.connection_id);
  env.user_locks().ReleaseAll(ctx.connection_id);
  ctx.locked_tables.clear();
  Transaction(env, ctx).EndSession();
  ctx.in_transaction = false;
}

Outcome TableExecutor::RunDml(FunctionRef<Outcome(EngineTrx&)> body, bool writes) {
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
  Transaction txn = Txn();
  const Transaction::Mark mark = txn.StartStatement(**trx);
  o = body(**trx);
  const bool autocommit = Autocommit() && !ctx_.in_transaction;
  if (o.error.ok()) o.error = txn.EndStatement(**trx);
  if (!o.error.ok()) {
    if (o.error.mysql_errno() == er::kLockDeadlock.code || autocommit) {
      // A deadlock victim loses its whole transaction (InnoDB).
      (void)Rollback();
    } else {
      txn.UndoStatement(**trx, mark);
    }
    return o;
  }
  if (autocommit) {
    Status s = Commit();
    if (!s.ok()) o.error = s;
  }
  return o;
}

std::vector<MetadataLocks::Request> TableExecutor::DdlLocks(
    const std::vector<std::pair<std::string, std::string>>& tables) {
  std::vector<MetadataLocks::Request> out;
  for (const auto& [schema, name] : tables) {
    if (schema.empty()) continue;  // 1046 comes from the statement
    out.push_back({MetadataLocks::SchemaKey(schema), MetadataLocks::Mode::kShared});
    out.push_back({MetadataLocks::TableKey(schema, name), MetadataLocks::Mode::kExclusive});
  }
  return out;
}

Status TableExecutor::BeginDdl(std::vector<MetadataLocks::Request> requests) {
  if (!holds_ddl_lock_) {
    SLUICE_RETURN_IF_ERROR(Commit());
    SLUICE_RETURN_IF_ERROR(BeginWrite());
  }
  std::vector<std::string> keys;
  for (const auto& r : requests) keys.push_back(r.key);
  Status st = AcquireMetadataLocks(std::move(requests));
  if (!st.ok()) {
    EndDdl();
    return st;
  }
  // Keys this session already held (shared from LOCK TABLES' statements)
  // go with the DDL's: its transaction has just ended.
  ddl_keys_.insert(ddl_keys_.end(), keys.begin(), keys.end());
  holds_ddl_lock_ = true;
  return Status::OK();
}

void TableExecutor::EndDdl() {
  if (!ddl_keys_.empty()) env_.metadata_locks().Release(ctx_.mdl, ddl_keys_);
  ddl_keys_.clear();
  holds_ddl_lock_ = false;
  EndWrite();
}

void TableExecutor::EndDdl(Status& result) {
  if (result.ok() && holds_ddl_lock_) result = Txn().LogDdl(ctx_.statement_text);
  EndDdl();
}

Result<TableExecutor::Table> TableExecutor::ResolveTable(const sql::TableRef& ref) {
  Table t;
  t.schema = ref.schema.empty() ? ctx_.db : ref.schema;
  if (t.schema.empty()) return MakeError(er::kNoDb);
  t.def = env_.engine().FindTable(t.schema, ref.name);
  if (t.def == nullptr) {
    // A definition the catalog could not read at start (the error log has
    // why): say it is damaged rather than missing. DROP TABLE removes it.
    if (env_.engine().catalog().snapshot()->FindBrokenTable(t.schema, ref.name) != nullptr) {
      return MakeError(er::kTableCorrupt, t.schema, ref.name);
    }
    return MakeError(er::kNoSuchTable, t.schema, ref.name);
  }
  return t;
}

// ---------------------------------------------------------------- DDL

Outcome TableExecutor::CreateDatabase(const sql::CreateDatabaseStmt& s) {
  Outcome o;
  o.error = BeginDdl({{MetadataLocks::SchemaKey(s.name), MetadataLocks::Mode::kExclusive}});
  if (!o.error.ok()) return o;
  storage::DatabaseDef db;
  db.name = s.name;
  if (!s.charset.empty()) db.default_charset = sql::AsciiLower(s.charset);
  if (!s.collation.empty()) db.default_collation = sql::AsciiLower(s.collation);
  Status st = env_.engine().CreateDatabase(db);
  EndDdl(st);
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
  // The schema first: once it is held no table can be created in it, so
  // the list of tables to lock next is complete.
  o.error = BeginDdl({{MetadataLocks::SchemaKey(s.name), MetadataLocks::Mode::kExclusive}});
  if (!o.error.ok()) return o;
  std::vector<MetadataLocks::Request> table_locks;
  const auto in_schema = env_.engine().catalog().snapshot()->TablesIn(s.name);
  for (const auto& t : in_schema) {
    table_locks.push_back({MetadataLocks::TableKey(s.name, t->name), MetadataLocks::Mode::kExclusive});
  }
  o.error = BeginDdl(std::move(table_locks));
  if (!o.error.ok()) return o;
  const size_t tables = in_schema.size();
  Status st = env_.engine().DropDatabase(s.name);
  EndDdl(st);
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
  TableDef def;
  def.schema = s.table.schema.empty() ? ctx_.db : s.table.schema;
  if (def.schema.empty()) {
    o.error = MakeError(er::kNoDb);
    return o;
  }
  def.name = s.table.name;
  if (IsSystemSchema(def.schema)) {
    // Only a table the schema has gets here (Executor refuses the others
    // with 1044): CREATE TABLE IF NOT EXISTS of one, as mariadb-dump writes
    // for mysql.general_log and slow_log, is the usual note.
    if (!s.if_not_exists) {
      o.error = MakeError(er::kTableExists, def.name);
      return o;
    }
    ctx_.warnings.push_back({Warning::Level::kNote, er::kTableExists.code,
                             fmt::format("Table '{}' already exists", def.name)});
    return o;
  }
  // The names before anything else, as MySQL's parser checks them (1300,
  // 1059, 1102, 1103): a malformed database name is refused as such, not
  // as an unknown database.
  o.error = storage::CheckIdentifier(def.schema, storage::NameKind::kDatabase);
  if (o.error.ok()) o.error = storage::CheckIdentifier(def.name, storage::NameKind::kTable);
  if (!o.error.ok()) return o;
  // The snapshot owns the DatabaseDef: keep it while `db` is used.
  const auto snap = env_.engine().catalog().snapshot();
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
    RenameCopiedChecks(&def);
    def.foreign_keys.clear();  // LIKE copies no foreign keys (MySQL)
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
  // The parents of its foreign keys are locked as the table is (MySQL):
  // their writers' statements end before the keys apply to them.
  std::vector<std::pair<std::string, std::string>> locked{{def.schema, def.name}};
  for (const sql::ForeignKeySpec& fk : s.foreign_keys) {
    std::pair<std::string, std::string> parent{fk.ref_table.schema.empty() ? def.schema : fk.ref_table.schema,
                                               fk.ref_table.name};
    if (std::find(locked.begin(), locked.end(), parent) == locked.end()) locked.push_back(std::move(parent));
  }
  std::vector<MetadataLocks::Request> locks = DdlLocks(locked);
  if (s.like) {
    locks.push_back({MetadataLocks::TableKey(s.like->schema.empty() ? ctx_.db : s.like->schema, s.like->name),
                     MetadataLocks::Mode::kShared});
  }
  o.error = BeginDdl(std::move(locks));
  if (!o.error.ok()) return o;
  if (s.if_not_exists && env_.engine().FindTable(def.schema, def.name) != nullptr) {
    EndDdl();
    ctx_.warnings.push_back({Warning::Level::kNote, er::kTableExists.code,
                             fmt::format("Table '{}' already exists", def.name)});
    return o;
  }
  o.error = ValidateGeneratedColumns(def, /*altering=*/false);
  if (!o.error.ok()) {
    EndDdl(o.error);
    return o;
  }
  // CHECKs and FOREIGN KEYs last, against the final columns (their names
  // unique in the schema, which the DDL lock holds still).
  if (!s.checks.empty()) o.error = AddCheckConstraints(s.checks, *env_.engine().catalog().snapshot(), &def);
  if (o.error.ok() && !s.foreign_keys.empty()) {
    o.error = AddForeignKeys(s.foreign_keys, *env_.engine().catalog().snapshot(), ForeignKeyChecks(), &def);
  }
  if (!o.error.ok()) {
    EndDdl(o.error);
    return o;
  }
  Result<std::shared_ptr<const TableDef>> created = env_.engine().CreateTable(std::move(def));
  o.error = created.status();
  EndDdl(o.error);
  return o;
}

Outcome TableExecutor::DropTable(const sql::DropTableStmt& s) {
  Outcome o;
  std::vector<std::pair<std::string, std::string>> names;
  for (const sql::TableRef& ref : s.tables) names.emplace_back(ref.schema.empty() ? ctx_.db : ref.schema, ref.name);
  o.error = BeginDdl(DdlLocks(names));
  if (!o.error.ok()) return o;
  // A table another one's foreign key references stays (3730), unless
  // that one goes too or foreign_key_checks is off.
  if (ForeignKeyChecks()) o.error = CheckDropReferenced(*env_.engine().catalog().snapshot(), names);
  if (!o.error.ok()) {
    EndDdl();
    return o;
  }
  std::vector<std::string> missing;
  for (const sql::TableRef& ref : s.tables) {
    std::string schema = ref.schema.empty() ? ctx_.db : ref.schema;
    if (schema.empty()) {
      o.error = MakeError(er::kNoDb);
      break;
    }
    Status st = env_.engine().DropTable(schema, ref.name);
    if (st.mysql_errno() == er::kBadTable.code) {
      missing.push_back(schema + "." + ref.name);
    } else if (!st.ok()) {
      o.error = st;
      break;
    }
  }
  if (o.error.ok() && (missing.empty() || s.if_exists)) {
    EndDdl(o.error);
  } else {
    EndDdl();
  }
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
  o.error = BeginDdl(DdlLocks({{t->schema, t->def->name}}));
  if (!o.error.ok()) return o;
  o.error = env_.engine().AddIndex(t->schema, t->def->name, std::move(idx));
  EndDdl(o.error);
  return o;
}

Outcome TableExecutor::DropIndex(const sql::DropIndexStmt& s) {
  Outcome o;
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  o.error = BeginDdl(DdlLocks({{t->schema, t->def->name}}));
  if (!o.error.ok()) return o;
  // An index a foreign key needs stays (1553).
  TableDef without = *t->def;
  std::erase_if(without.indexes, [&](const storage::IndexDef& i) { return sql::EqualsIgnoreCase(i.name, s.name); });
  std::vector<std::string> same_columns;
  for (const ColumnDef& c : without.columns) same_columns.push_back(c.name);
  o.error = AlterForeignKeys(*t->def, same_columns, *env_.engine().catalog().snapshot(), ForeignKeyChecks(), &without);
  if (o.error.ok()) o.error = env_.engine().DropIndex(t->schema, t->def->name, s.name);
  EndDdl(o.error);
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

// 1093: UPDATE / DELETE may not read the table they change in a subquery.
bool SubqueryReadsTable(const sql::Expr* e, const std::string& schema, const std::string& name,
                        const std::string& current_db) {
  if (e == nullptr) return false;
  if (e->subquery) {
    const sql::SelectStmt& q = *e->subquery;
    for (const auto& ref : q.from) {
      const std::string& db = ref.schema.empty() ? current_db : ref.schema;
      if (db == schema && sql::EqualsIgnoreCase(ref.name, name)) return true;
      if (SubqueryReadsTable(ref.on.get(), schema, name, current_db)) return true;
    }
    if (SubqueryReadsTable(q.where.get(), schema, name, current_db)) return true;
    if (SubqueryReadsTable(q.having.get(), schema, name, current_db)) return true;
    for (const auto& item : q.items) {
      if (SubqueryReadsTable(item.expr.get(), schema, name, current_db)) return true;
    }
  }
  for (const auto& a : e->args) {
    if (SubqueryReadsTable(a.get(), schema, name, current_db)) return true;
  }
  return false;
}

// UPDATE / DELETE ... ORDER BY ... [LIMIT n]: sorts the matched rows by
// the ORDER BY values (OrderedBefore) and keeps the first `limit`.
// `value_of` evaluates an ORDER BY expression for a row.
Status OrderRows(const std::function<Result<sql::Value>(const Row&, const sql::Expr&)>& value_of,
                 const std::vector<sql::OrderItem>& order_by, uint64_t limit, std::vector<Row>* rows,
                 sql::EvalContext& eval) {
  if (order_by.empty()) return Status::OK();
  std::vector<std::pair<std::vector<sql::Value>, size_t>> keys;
  keys.reserve(rows->size());
  for (size_t i = 0; i < rows->size(); ++i) {
    std::vector<sql::Value> key;
    for (const auto& ob : order_by) {
      Result<sql::Value> v = value_of((*rows)[i], *ob.expr);
      if (!v.ok()) return v.status();
      key.push_back(std::move(v).value());
    }
    keys.emplace_back(std::move(key), i);
  }
  SLUICE_RETURN_IF_ERROR(InterruptibleSort(
      keys.begin(), keys.end(),
      [&](const auto& a, const auto& b) { return OrderedBefore(a.first, b.first, order_by); }, eval));
  std::vector<Row> sorted;
  for (size_t i = 0; i < keys.size() && sorted.size() < limit; ++i) sorted.push_back(std::move((*rows)[keys[i].second]));
  *rows = std::move(sorted);
  return Status::OK();
}

// The rows a single-table UPDATE / DELETE changes: those of `table`
// matching `where`, locked (X), in ORDER BY order when there is one, at
// most LIMIT `limit_expr` (evaluated in `eval`). A subquery in `where`
// that reads the table itself is refused first (1093). `re` is the
// statement's RowEval; `current_db` the session's database.
template <typename RowEvalT>
Status ReadForChange(Engine& engine, EngineTrx& trx, const BoundTable& table, const sql::Expr* where,
                     const std::vector<sql::OrderItem>& order_by, const sql::Expr* limit_expr,
                     sql::EvalContext& eval, const std::string& current_db, RowEvalT& re,
                     std::vector<Row>* matched) {
  Result<uint64_t> row_limit = RowLimit(limit_expr, eval);
  if (!row_limit.ok()) return row_limit.status();
  const uint64_t limit = *row_limit;
  if (SubqueryReadsTable(where, table.def->schema, table.def->name, current_db)) {
    return MakeError(er::kUpdateTableUsed, table.def->name);
  }
  // All matches when ORDER BY picks which.
  const uint64_t read_limit = order_by.empty() ? limit : std::numeric_limits<uint64_t>::max();
  Status st = ReadRows(engine, trx, table, PlanAccess(table, where), re, storage::LockMode::kX,
                       [&](const Row& row) -> Result<bool> {
                         Result<bool> match = re.Matches(row, where);
                         if (!match.ok()) return match.status();
                         if (!*match) return true;
                         matched->push_back(row);
                         return matched->size() < read_limit;
                       });
  if (!st.ok()) return st;
  return OrderRows([&](const Row& row, const sql::Expr& e) {
    re.SetRow(&row);
    re.set_clause("order clause");
    return sql::Evaluate(e, re);
  }, order_by, limit, matched, re);
}

// The row a UNIQUE secondary index says already has `row`'s key (the
// first such index), as `trx`'s read view sees it; nullopt when none
// (a key with a NULL part never collides).
Result<std::optional<Row>> UniqueKeyHolder(Engine& engine, EngineTrx& trx, const TableDef& def, const Row& row) {
  for (size_t i = 1; i < def.indexes.size(); ++i) {
    const storage::IndexDef& idx = def.indexes[i];
    if (!idx.unique) continue;
    Row key;
    bool null_part = false;
    for (const auto& part : idx.parts) {
      null_part = null_part || std::holds_alternative<std::monostate>(row[part.column]);
      key.push_back(row[part.column]);
    }
    if (null_part) continue;
    std::optional<Row> found;
    Status st = engine.IndexLookup(trx, def.id, idx.name, key, [&](const Row& r) {
      found = r;
      return false;
    });
    if (!st.ok()) return st;
    if (found) return found;
  }
  return std::optional<Row>();
}

}  // namespace

Status TableExecutor::ComputeGenerated(const std::vector<ParsedGenerated>& generated, const TableDef& def, Row* row,
                                       AssignContext& cx) {
  if (generated.empty()) return Status::OK();
  RowEval re(*this, eval_, def, def.name);
  re.SetRow(row);
  for (const ParsedGenerated& g : generated) {
    Result<sql::Value> v = sql::Evaluate(*g.expr, re);
    if (!v.ok()) return v.status();
    Result<RowValue> rv = ToColumnValue(def.columns[g.column], *v, cx);
    if (!rv.ok()) return rv.status();
    (*row)[g.column] = std::move(rv).value();
  }
  return Status::OK();
}

Result<bool> TableExecutor::EnforceChecks(const std::vector<ParsedCheck>& checks, const TableDef& def,
                                          const Row& row, bool ignore) {
  if (checks.empty()) return true;
  RowEval re(*this, eval_, def, def.name);
  re.SetRow(&row);
  for (const ParsedCheck& c : checks) {
    Result<sql::Value> v = sql::Evaluate(*c.expr, re);
    if (!v.ok()) return v.status();
    if (v->is_null() || v->ToDouble() != 0) continue;  // NULL passes, as in MySQL
    Status violated = MakeError(er::kCheckConstraintViolated, c.name);
    if (!ignore) return violated;
    ctx_.warnings.push_back({Warning::Level::kWarning, violated.mysql_errno(), violated.message()});
    return false;
  }
  return true;
}

ForeignKeyEnforcer TableExecutor::Enforcer(EngineTrx& trx) {
  ForeignKeyEnforcer fks(env_.engine(), trx);
  fks.set_row_finisher([this](const TableDef& def, Row* row) -> Status {
    const bool generated =
        std::any_of(def.columns.begin(), def.columns.end(), [](const ColumnDef& c) { return c.generated(); });
    if (!generated) return Status::OK();
    Result<std::vector<ParsedGenerated>> parsed = ParseGeneratedColumns(def);
    if (!parsed.ok()) return parsed.status();
    AssignContext cx = Assigning(Strict(), 0);
    return ComputeGenerated(*parsed, def, row, cx);
  });
  return fks;
}

std::optional<TableExecutor::Table> TableExecutor::WriteTarget(const sql::TableRef& ref, Outcome* o) {
  Result<Table> t = ResolveTable(ref);
  if (!t.ok()) {
    o->error = t.status();
    return std::nullopt;
  }
  o->error = UseTable(*t, ref, /*write=*/true);
  // The tables its foreign keys reach: no DDL changes them meanwhile.
  if (o->error.ok()) o->error = UseForeignKeyTables(*t->def);
  if (!o->error.ok()) {
    *o = EndOnLockError(std::move(*o));
    return std::nullopt;
  }
  return std::move(t).value();
}

Outcome TableExecutor::Insert(const sql::InsertStmt& s) {
  Outcome o;
  std::optional<Table> t = WriteTarget(s.table, &o);
  if (!t) return o;
  const TableDef& def = *t->def;
  Result<std::vector<ParsedCheck>> checks = ParseEnforcedChecks(def);
  Result<std::vector<ParsedGenerated>> generated = ParseGeneratedColumns(def);
  if (!checks.ok() || !generated.ok()) {
    o.error = checks.ok() ? generated.status() : checks.status();
    return EndOnLockError(o);
  }
  // Without a key nothing can be a duplicate: REPLACE and ON DUPLICATE KEY
  // UPDATE are plain inserts on a table without a PRIMARY KEY.
  // Target column ordinals, in the statement's order.
  // (In place for up to 32 columns: no allocation for a typical INSERT.)
  boost::container::small_vector<const ColumnDef*, 32> targets;
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
  const StrictStatement strict_statement(ctx_, strict);
  const bool fk_checks = ForeignKeyChecks();
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    Engine& engine = env_.engine();
    ForeignKeyEnforcer fks = Enforcer(trx);
    const bool is_child = fk_checks && !def.foreign_keys.empty();
    const bool is_parent = fk_checks && def.referenced;
    uint64_t first_id = 0;
    uint64_t row_number = 0, duplicates = 0;
    // INSERT ... SELECT: the SELECT's rows are read first (so a table may
    // be inserted into from itself).
    std::vector<std::vector<sql::Value>> selected;
    if (s.select) {
      Result<SelectRows> rows = RunSelect(*s.select, trx, eval_, std::numeric_limits<uint64_t>::max(), true);
      if (!rows.ok()) {
        r.error = rows.status();
        return r;
      }
      if (rows->result.columns.size() != targets.size()) {
        r.error = MakeError(er::kWrongValueCountOnRow, 1);
        return r;
      }
      selected = std::move(rows->values);
    }
    const size_t row_count = s.select ? selected.size() : s.rows.size();
    // MySQL 8.0.20 deprecates VALUES(col) in favour of the row alias.
    std::function<bool(const sql::Expr&)> uses_values = [&](const sql::Expr& e) {
      if (e.kind == sql::ExprKind::kFunction && sql::EqualsIgnoreCase(e.name, "VALUES")) return true;
      for (const auto& a : e.args) {
        if (a && uses_values(*a)) return true;
      }
      return false;
    };
    for (const auto& a : s.on_duplicate) {
      if (uses_values(*a.value)) {
        Status w = MakeError(er::kWarnDeprecatedSyntax, "VALUES function",
                             "an alias (INSERT INTO ... VALUES (...) AS alias) and replace "
                             "VALUES(col) in the ON DUPLICATE KEY UPDATE clause with alias.col");
        ctx_.warnings.push_back({Warning::Level::kWarning, w.mysql_errno(), w.message()});
        break;
      }
    }
    for (size_t n = 0; n < row_count; ++n) {
      if (Status st = ctx_.CheckInterrupt(); !st.ok()) {
        r.error = st;
        return r;
      }
      ++row_number;
      const size_t width = s.select ? targets.size() : s.rows[n].size();
      if (width != targets.size() && !(width == 0 && s.columns.empty())) {
        r.error = MakeError(er::kWrongValueCountOnRow, row_number);
        return r;
      }
      AssignContext cx = Assigning(strict, row_number);
      Row row(def.columns.size());
      ColumnFlags given(def.columns.size(), false);
      for (size_t i = 0; i < width; ++i) {
        const ColumnDef& c = *targets[i];
        given[c.ordinal] = true;
        if (c.generated()) {
          // Computed below; only DEFAULT may be given for it.
          if (!s.select && s.rows[n][i]->kind == sql::ExprKind::kDefault) continue;
          r.error = MakeError(er::kNonDefaultValueForGeneratedColumn, c.name, def.name);
          return r;
        }
        if (!s.select && s.rows[n][i]->kind == sql::ExprKind::kDefault) {
          Result<RowValue> d = ColumnDefault(c, cx, eval_.StatementTime());
          if (!d.ok()) {
            r.error = d.status();
            return r;
          }
          row[c.ordinal] = std::move(d).value();
          continue;
        }
        Result<sql::Value> v = s.select ? Result<sql::Value>(selected[n][i]) : sql::Evaluate(*s.rows[n][i], eval_);
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
        if (given[c.ordinal] || c.auto_increment || c.generated()) continue;
        Result<RowValue> d = ColumnDefault(c, cx, eval_.StatementTime());
        if (!d.ok()) {
          r.error = d.status();
          return r;
        }
        row[c.ordinal] = std::move(d).value();
      }
      if (Status g = ComputeGenerated(*generated, def, &row, cx); !g.ok()) {
        r.error = g;
        return r;
      }
      // CHECKs before the duplicate-key check, as MySQL; IGNORE skips the row.
      if (Result<bool> ck = EnforceChecks(*checks, def, row, s.ignore); !ck.ok() || !*ck) {
        if (ck.ok()) continue;
        r.error = ck.status();
        return r;
      }
      // The binlog and the foreign keys get the row as stored (generated
      // AUTO_INCREMENT filled).
      const bool binlogging = env_.binlog() != nullptr;
      Row stored;
      Result<uint64_t> id = engine.Insert(trx, def.id, row, binlogging || is_child ? &stored : nullptr);
      // Checked once the row is in: a row may reference itself.
      auto log_insert = [&]() -> Status {
        if (is_child) SLUICE_RETURN_IF_ERROR(fks.CheckParents(def, nullptr, stored));
        return binlogging ? LogRow(def, SessionBinlog::RowKind::kWrite, nullptr, &stored) : Status::OK();
      };
      if (id.ok()) {
        Status ls = log_insert();
        if (!ls.ok()) {
          r.error = ls;
          return r;
        }
      }
      bool handled = false;  // ignored, or updated by ON DUPLICATE KEY UPDATE
      // REPLACE deletes every row the new one collides with (one per
      // unique key at most), so it may go round more than once.
      for (size_t round = 0; round < def.indexes.size() && !id.ok() &&
                             id.status().mysql_errno() == er::kDupEntry.code && !def.has_hidden_row_id() &&
                             (s.replace || !s.on_duplicate.empty() || s.ignore);
           ++round) {
        // The row holding the duplicate key: the PRIMARY KEY's, else a
        // UNIQUE index's (found in the read view, then locked and re-read).
        Row pk = ClusteredKeyOf(def, row);
        Result<std::optional<Row>> old = engine.GetLocked(trx, def.id, pk, storage::LockMode::kX);
        if (old.ok() && !old->has_value()) {
          Result<std::optional<Row>> holder = UniqueKeyHolder(engine, trx, def, row);
          if (!holder.ok()) {
            old = holder.status();
          } else if (holder->has_value()) {
            pk = ClusteredKeyOf(def, **holder);
            old = engine.GetLocked(trx, def.id, pk, storage::LockMode::kX);
          }
        }
        if (!old.ok()) {
          r.error = old.status();
          return r;
        }
        // IGNORE skips a duplicate, unless ON DUPLICATE KEY UPDATE says
        // what to do with it (MySQL: the update still happens).
        const bool skip = s.ignore && s.on_duplicate.empty();
        if (!old->has_value() || skip) {
          if (s.ignore) {
            ctx_.warnings.push_back({Warning::Level::kWarning, er::kDupEntry.code, id.status().message()});
            ++duplicates;
            handled = true;
            break;
          }
          r.error = id.status();
          return r;
        }
        ++duplicates;
        if (s.replace) {
          if (is_parent) {
            if (Status fk = fks.ParentChanging(def, **old, nullptr); !fk.ok()) {
              r.error = fk;
              return r;
            }
          }
          Result<bool> del = engine.Delete(trx, def.id, pk);
          if (!del.ok()) {
            r.error = del.status();
            return r;
          }
          if (Status ls = LogRow(def, SessionBinlog::RowKind::kDelete, &**old, nullptr); !ls.ok()) {
            r.error = ls;
            return r;
          }
          id = engine.Insert(trx, def.id, row, binlogging || is_child ? &stored : nullptr);
          if (id.ok()) {
            if (Status ls = log_insert(); !ls.ok()) {
              r.error = ls;
              return r;
            }
          }
          r.affected_rows += 1;  // REPLACE counts each delete too
          continue;
        } else {
          // ON DUPLICATE KEY UPDATE, over the old row. VALUES(col) and
          // the row alias's columns (VALUES (...) AS new ... new.col) are
          // the row that was to be inserted.
          Row updated = **old;
          RowEval re(*this, eval_, def, s.table.alias.empty() ? def.name : s.table.alias);
          re.set_clause("field list");
          auto inserted = [&](const sql::Expr& x) -> std::optional<sql::Value> {
            const sql::Expr* col = nullptr;
            if (x.kind == sql::ExprKind::kFunction && sql::EqualsIgnoreCase(x.name, "VALUES") && x.args.size() == 1 &&
                x.args[0]->kind == sql::ExprKind::kColumn) {
              col = x.args[0].get();
            } else if (x.kind == sql::ExprKind::kColumn && !s.row_alias.empty() &&
                       sql::EqualsIgnoreCase(x.table, s.row_alias)) {
              col = &x;
            }
            const ColumnDef* c = col != nullptr ? def.FindColumn(col->name) : nullptr;
            if (c == nullptr) return std::nullopt;
            return FromColumnValue(*c, row[c->ordinal]);
          };
          ColumnFlags assigned(def.columns.size(), false);
          for (const auto& a : s.on_duplicate) {
            const ColumnDef* c = def.FindColumn(a.column->name);
            if (c == nullptr) {
              r.error = MakeError(er::kBadField, a.column->name, "field list");
              return r;
            }
            assigned[c->ordinal] = true;
            if (c->generated()) {
              if (a.value->kind == sql::ExprKind::kDefault) continue;
              r.error = MakeError(er::kNonDefaultValueForGeneratedColumn, c->name, def.name);
              return r;
            }
            re.SetRow(&updated);
            Result<sql::Value> v = sql::Value::Null();
            if (a.value->kind != sql::ExprKind::kDefault) {
              v = sql::Evaluate(*SubstituteExpr(*a.value, inserted), re);
            }
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
          if (Status on = ApplyOnUpdateNow(def, **old, assigned, &updated, cx, eval_.StatementTime()); !on.ok()) {
            r.error = on;
            return r;
          }
          if (Status g = ComputeGenerated(*generated, def, &updated, cx); !g.ok()) {
            r.error = g;
            return r;
          }
          if (Result<bool> ck = EnforceChecks(*checks, def, updated, s.ignore); !ck.ok() || !*ck) {
            if (!ck.ok()) {
              r.error = ck.status();
              return r;
            }
            handled = true;
            break;
          }
          if (updated != **old) {
            if (is_parent) {
              if (Status fk = fks.ParentChanging(def, **old, &updated); !fk.ok()) {
                r.error = fk;
                return r;
              }
            }
            Result<bool> up = engine.Update(trx, def.id, pk, updated);
            if (!up.ok()) {
              r.error = up.status();
              return r;
            }
            if (is_child) {
              if (Status fk = fks.CheckParents(def, &**old, updated); !fk.ok()) {
                r.error = fk;
                return r;
              }
            }
            if (Status ls = LogRow(def, SessionBinlog::RowKind::kUpdate, &**old, &updated); !ls.ok()) {
              r.error = ls;
              return r;
            }
            r.affected_rows += 2;  // MySQL: 2 for an updated row
          }
          handled = true;
          break;
        }
      }
      if (handled) continue;
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
    if (row_count > 1 || s.select || !ctx_.warnings.empty()) {
      r.info = fmt::format("Records: {}  Duplicates: {}  Warnings: {}", row_count, duplicates, ctx_.warning_count());
    }
    return r;
  }, /*writes=*/true);
}

Outcome TableExecutor::Update(const sql::UpdateStmt& s) {
  Outcome o;
  std::optional<Table> t = WriteTarget(s.table, &o);
  if (!t) return o;
  const TableDef& def = *t->def;
  const bool strict = Strict() && !s.ignore;
  const StrictStatement strict_statement(ctx_, strict);
  Result<std::vector<ParsedCheck>> checks = ParseEnforcedChecks(def);
  Result<std::vector<ParsedGenerated>> generated = ParseGeneratedColumns(def);
  if (!checks.ok() || !generated.ok()) {
    o.error = checks.ok() ? generated.status() : checks.status();
    return EndOnLockError(o);
  }
  const bool fk_checks = ForeignKeyChecks();
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    Engine& engine = env_.engine();
    ForeignKeyEnforcer fks = Enforcer(trx);
    const bool is_child = fk_checks && !def.foreign_keys.empty();
    const bool is_parent = fk_checks && def.referenced;
    const std::string& alias = s.table.alias.empty() ? def.name : s.table.alias;
    RowEval re(*this, eval_, def, alias);
    // Read and lock the matching rows first (all of them when ORDER BY
    // picks which), then change them.
    std::vector<Row> matched;
    Status st = ReadForChange(engine, trx, BoundTable{&def, alias}, s.where.get(), s.order_by, s.limit.get(), eval_,
                              ctx_.db, re, &matched);
    if (!st.ok()) {
      r.error = st;
      return r;
    }
    uint64_t changed = 0, row_number = 0;
    for (const Row& old : matched) {
      if (Status interrupted = ctx_.CheckInterrupt(); !interrupted.ok()) {
        r.error = interrupted;
        return r;
      }
      ++row_number;
      // The columns (a table without PRIMARY KEY has its row id after them,
      // left out of a copy).
      const bool has_row_id = old.size() != def.columns.size();
      const Row without_row_id = has_row_id ? Row(old.begin(), old.begin() + def.columns.size()) : Row();
      const Row& before = has_row_id ? without_row_id : old;
      Row updated = before;
      AssignContext cx = Assigning(strict, row_number);
      ColumnFlags assigned(def.columns.size(), false);
      for (const auto& a : s.set) {
        const ColumnDef* c = def.FindColumn(a.column->name);
        if (c == nullptr) {
          r.error = MakeError(er::kBadField, a.column->name, "field list");
          return r;
        }
        assigned[c->ordinal] = true;
        if (c->generated()) {
          if (a.value->kind == sql::ExprKind::kDefault) continue;  // recomputed below
          r.error = MakeError(er::kNonDefaultValueForGeneratedColumn, c->name, def.name);
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
      if (Status on = ApplyOnUpdateNow(def, before, assigned, &updated, cx, eval_.StatementTime()); !on.ok()) {
        r.error = on;
        return r;
      }
      if (Status g = ComputeGenerated(*generated, def, &updated, cx); !g.ok()) {
        r.error = g;
        return r;
      }
      if (updated == before) continue;
      if (Result<bool> ck = EnforceChecks(*checks, def, updated, s.ignore); !ck.ok() || !*ck) {
        if (ck.ok()) continue;  // IGNORE: the row stays as it was
        r.error = ck.status();
        return r;
      }
      if (is_parent) {
        if (Status fk = fks.ParentChanging(def, before, &updated); !fk.ok()) {
          r.error = fk;
          return r;
        }
      }
      Result<bool> up = engine.Update(trx, def.id, ClusteredKeyOf(def, old), updated);
      if (!up.ok()) {
        r.error = up.status();
        return r;
      }
      if (is_child && *up) {
        if (Status fk = fks.CheckParents(def, &before, updated); !fk.ok()) {
          r.error = fk;
          return r;
        }
      }
      if (*up) {
        ++changed;
        if (Status ls = LogRow(def, SessionBinlog::RowKind::kUpdate, &before, &updated); !ls.ok()) {
          r.error = ls;
          return r;
        }
      }
    }
    r.affected_rows = changed;
    r.info = fmt::format("Rows matched: {}  Changed: {}  Warnings: {}", matched.size(), changed,
                         ctx_.warning_count());
    return r;
  }, /*writes=*/true);
}

Outcome TableExecutor::Delete(const sql::DeleteStmt& s) {
  Outcome o;
  std::optional<Table> t = WriteTarget(s.table, &o);
  if (!t) return o;
  const TableDef& def = *t->def;
  const bool fk_checks = ForeignKeyChecks();
  const StrictStatement strict_statement(ctx_, Strict() && !s.ignore);
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    Engine& engine = env_.engine();
    ForeignKeyEnforcer fks = Enforcer(trx);
    const bool is_parent = fk_checks && def.referenced;
    const std::string& alias = s.table.alias.empty() ? def.name : s.table.alias;
    RowEval re(*this, eval_, def, alias);
    std::vector<Row> matched;
    Status st = ReadForChange(engine, trx, BoundTable{&def, alias}, s.where.get(), s.order_by, s.limit.get(), eval_,
                              ctx_.db, re, &matched);
    if (!st.ok()) {
      r.error = st;
      return r;
    }
    for (const Row& row : matched) {
      if (Status interrupted = ctx_.CheckInterrupt(); !interrupted.ok()) {
        r.error = interrupted;
        return r;
      }
      const Row pk = ClusteredKeyOf(def, row);
      if (is_parent) {
        // A row a cascade already deleted is left alone.
        Result<std::optional<Row>> still = engine.GetLocked(trx, def.id, pk, storage::LockMode::kX);
        if (!still.ok()) {
          r.error = still.status();
          return r;
        }
        if (!still->has_value()) continue;
        const Row columns(still->value().begin(), still->value().begin() + def.columns.size());
        if (Status fk = fks.ParentChanging(def, columns, nullptr); !fk.ok()) {
          r.error = fk;
          return r;
        }
      }
      Result<bool> del = engine.Delete(trx, def.id, pk);
      if (!del.ok()) {
        r.error = del.status();
        return r;
      }
      if (*del) {
        ++r.affected_rows;
        if (Status ls = LogRow(def, SessionBinlog::RowKind::kDelete, &row, nullptr); !ls.ok()) {
          r.error = ls;
          return r;
        }
      }
    }
    return r;
  }, /*writes=*/true);
}

// ---------------------------------------------------------------- SHOW

bool TableExecutor::MaySeeDatabase(const std::string& db) const {
  if (sql::EqualsIgnoreCase(db, "information_schema")) return true;
  return ctx_.account && ctx_.account->HasAnyDbAccess(IsSystemSchema(db) ? SystemSchemaName(db) : db);
}

Status TableExecutor::CheckShowDbAccess(const std::string& db) const {
  if (MaySeeDatabase(db)) return Status::OK();
  return MakeError(er::kDbAccessDenied, ctx_.priv_user, ctx_.priv_host, db);
}

Result<std::string> TableExecutor::ShowDatabase(const sql::ShowStmt& s) {
  std::string db = s.database.empty() ? ctx_.db : s.database;
  if (db.empty()) return MakeError(er::kNoDb);
  // The privilege first: an account without any in `db` gets 1044 whether
  // or not it exists, and so learns nothing about it (MySQL).
  SLUICE_RETURN_IF_ERROR(CheckShowDbAccess(db));
  if (!IsSystemSchema(db) && env_.engine().catalog().snapshot()->FindDatabase(db) == nullptr) {
    return MakeError(er::kBadDb, db);
  }
  return db;
}

Result<TableExecutor::Table> TableExecutor::ResolveShowTable(const sql::TableRef& ref, const char* command) {
  Table t;
  t.schema = ref.schema.empty() ? ctx_.db : ref.schema;
  if (t.schema.empty()) return MakeError(er::kNoDb);
  // 1142 before 1146, as for SELECT: the name of a table the account may
  // not see says nothing about whether it exists.
  if (!MaySeeDatabase(t.schema)) {
    return MakeError(er::kTableAccessDenied, command, ctx_.priv_user, ctx_.host, ref.name);
  }
  const std::string system = SystemSchemaName(t.schema);
  if (system == "information_schema") {
    t.def = sql::EqualsIgnoreCase(ref.name, "PLUGINS")
                ? InformationSchemaPlugins({}).def
                : InformationSchemaTable(ref.name, *env_.engine().catalog().snapshot(),
                                         [](const std::string&) { return false; }).def;
  } else if (system == "mysql") {
    t.def = MysqlSchemaTableDef(ref.name);
  } else if (system.empty()) {
    t.def = env_.engine().FindTable(t.schema, ref.name);
  }
  if (t.def == nullptr) return MakeError(er::kNoSuchTable, t.schema, ref.name);
  return t;
}

Outcome TableExecutor::ShowTables(const sql::ShowStmt& s) {
  Outcome o;
  Result<std::string> resolved = ShowDatabase(s);
  if (!resolved.ok()) {
    o.error = resolved.status();
    return o;
  }
  const std::string& db = *resolved;
  auto snap = env_.engine().catalog().snapshot();
  const std::string system = SystemSchemaName(db);
  const bool is = system == "information_schema";
  ResultSet rs;
  rs.AddTextColumn("Tables_in_" + db + (s.like ? " (" + *s.like + ")" : ""), 64);
  if (s.full) rs.AddTextColumn("Table_type", 64);
  std::vector<std::string> names = is ? InformationSchemaTableNames() : std::vector<std::string>();
  if (system == "mysql") {
    for (const auto& t : MysqlSchemaListedTables()) names.push_back(t->name);
  } else if (system.empty()) {
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
  Result<Table> t = ResolveShowTable(ref, "SELECT");
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
    const std::string extra = ColumnExtra(c);
    std::vector<std::optional<std::string>> row{c.name, ColumnTypeText(c)};
    if (s.full) {
      row.push_back(IsTextType(c.type) ? std::optional<std::string>(c.collation) : std::nullopt);
    }
    row.insert(row.end(), {std::string(c.nullable ? "YES" : "NO"), key, dflt, extra});
    if (s.full) row.insert(row.end(), {std::string("select,insert,update,references"), c.comment});
    rs.rows.push_back(std::move(row));
  }
  o.result = std::move(rs);
  return o;
}

Outcome TableExecutor::ShowCreateTable(const sql::ShowStmt& s) {
  Outcome o;
  Result<Table> t = ResolveShowTable(s.table, "SHOW");
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
    if (c.generated()) {
      text += fmt::format(" GENERATED ALWAYS AS ({}) {}", ExprClauseText(c.generation_expr),
                          c.generated_stored ? "STORED" : "VIRTUAL");
      if (!c.nullable) text += " NOT NULL";
      if (!c.comment.empty()) text += " COMMENT " + Quoted(c.comment);
      continue;
    }
    if (!c.nullable) text += " NOT NULL";
    std::string d = ColumnDefaultClause(c);
    if (!d.empty()) text += " " + d;
    if (c.on_update_current_timestamp) {
      text += c.fsp ? fmt::format(" ON UPDATE CURRENT_TIMESTAMP({})", c.fsp) : " ON UPDATE CURRENT_TIMESTAMP";
    }
    if (c.auto_increment) text += " AUTO_INCREMENT";
    if (!c.comment.empty()) text += " COMMENT " + Quoted(c.comment);
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
  for (const storage::ForeignKeyDef& fk : def.foreign_keys) text += ",\n  " + ForeignKeyClause(def.schema, fk);
  for (const storage::CheckDef& c : def.checks) {
    text += fmt::format(",\n  CONSTRAINT {} CHECK ({}){}", binlog::QuoteIdentifier(c.name), CheckClauseText(c),
                        c.enforced ? "" : " /*!80016 NOT ENFORCED */");
  }
  text += "\n) ENGINE=" + EngineOf(def);
  // MySQL shows the counter once it has moved past 1.
  const bool has_auto_increment =
      std::any_of(def.columns.begin(), def.columns.end(), [](const ColumnDef& c) { return c.auto_increment; });
  if (has_auto_increment) {
    std::optional<uint64_t> next = env_.engine().NextAutoIncrement(def.id);
    if (next && *next > 1) text += fmt::format(" AUTO_INCREMENT={}", *next);
  }
  text += " DEFAULT CHARSET=" + def.options.charset;
  if (!def.options.collation.empty()) text += " COLLATE=" + def.options.collation;
  if (!def.options.comment.empty()) text += " COMMENT=" + Quoted(def.options.comment);
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
  Result<Table> t = ResolveShowTable(ref, "SELECT");
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
  o.error = CheckShowDbAccess(s.database);
  if (!o.error.ok()) return o;
  const auto snap = env_.engine().catalog().snapshot();  // owns *db
  std::string name, charset, collation;
  if (IsSystemSchema(s.database)) {
    name = SystemSchemaName(s.database);
    SchemaCharset cs = SystemSchemaCharset(name);
    charset = cs.charset;
    collation = cs.collation;
  } else if (const storage::DatabaseDef* db = snap->FindDatabase(s.database); db != nullptr) {
    name = db->name;
    charset = db->default_charset;
    collation = db->default_collation;
  } else {
    o.error = MakeError(er::kBadDb, s.database);
    return o;
  }
  ResultSet rs;
  rs.AddTextColumn("Database", 64);
  rs.AddTextColumn("Create Database", 1024);
  rs.rows.push_back({name, fmt::format("CREATE DATABASE {}`{}` /*!40100 DEFAULT CHARACTER SET {} COLLATE {} */ "
                                       "/*!80016 DEFAULT ENCRYPTION='N' */",
                                       s.if_not_exists ? "/*!32312 IF NOT EXISTS*/ " : "", name, charset,
                                       collation)});
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
  auto snap = env_.engine().catalog().snapshot();
  ResultSet rs;
  for (const char* name : {"Name", "Engine", "Version", "Row_format", "Rows", "Avg_row_length", "Data_length",
                           "Max_data_length", "Index_length", "Data_free", "Auto_increment", "Create_time",
                           "Update_time", "Check_time", "Collation", "Checksum", "Create_options", "Comment"}) {
    rs.AddTextColumn(name, 64);
  }
  std::vector<std::shared_ptr<const TableDef>> tables;
  const std::string system = SystemSchemaName(db);
  if (system == "mysql") {
    tables = MysqlSchemaListedTables();
  } else if (system.empty()) {
    tables = snap->TablesIn(db);
  }
  for (const auto& t : tables) {
    bool has_ai = false;
    for (const auto& c : t->columns) has_ai = has_ai || c.auto_increment;
    rs.rows.push_back({t->name, EngineOf(*t), std::string("10"), std::string("Dynamic"), std::string("0"),
                       std::string("0"), std::string("16384"), std::string("0"), std::string("0"), std::string("0"),
                       has_ai ? std::optional<std::string>(std::to_string(t->auto_increment_next)) : std::nullopt,
                       std::nullopt, std::nullopt, std::nullopt, t->options.collation, std::nullopt, std::string(),
                       t->options.comment});
  }
  o.result = std::move(rs);
  return o;
}

}  // namespace sluice::exec
