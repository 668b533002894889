// exec/table_ddl.cc
//
// TableExecutor's ALTER TABLE, RENAME TABLE and TRUNCATE TABLE (declared in
// table_executor.h; the rest of the executor is in table_executor.cc).
//
// ALTER TABLE first works out the new definition from the old one and the
// specs, matching them as MySQL does: DROP, MODIFY, CHANGE, RENAME COLUMN
// and ALTER COLUMN name the OLD table's columns, AFTER names a column of the
// new list, keys lose the parts of dropped columns (and go when none is
// left), and ADD INDEX names an unnamed key after its first column. Then it
// takes the cheapest way the engine offers:
//   - only RENAME TO (or nothing): Engine::RenameTables;
//   - only ADD/DROP of secondary indexes (perhaps with RENAME TO):
//     Engine::AddIndex / DropIndex, no copy;
//   - anything else: Engine::RebuildTable, a copy of every row into a new
//     table under a temporary name that is then swapped in (crash-safe, see
//     engine.h). Each value goes through the new column's assignment rules
//     (column_values.h): in strict mode 1264/1265/1366/1406/1292 abort the
//     ALTER and leave the table as it was; otherwise they are warnings.
// Affected rows are what MySQL reports: the rows copied when MySQL 8.0 would
// copy them too (a column's type changes, a column becomes AUTO_INCREMENT,
// the PRIMARY KEY goes without a new one), else 0 (MySQL alters in place).
//
// TRUNCATE is Engine::TruncateTable (MySQL's drop and re-create, the
// AUTO_INCREMENT counter back at 1). All three are DDL: BeginDdl commits the
// open transaction and takes the metadata locks of the tables they change
// exclusively (RENAME: both names).

#include <fmt/format.h>

#include <algorithm>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/mysql_error.h"
#include "exec/check_constraints.h"
#include "exec/exec_env.h"
#include "exec/column_values.h"
#include "exec/foreign_keys.h"
#include "exec/settings.h"
#include "exec/table_executor.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"

namespace sluice::exec {

namespace {

using storage::ColumnDef;
using storage::IndexDef;
using storage::Row;
using storage::RowValue;
using storage::TableDef;
using EvalDefault = std::function<Result<sql::Value>(const sql::Expr&)>;
using Kind = sql::AlterSpec::Kind;
using Position = sql::AlterSpec::Position;

// A column of the new definition and where its values come from.
struct NewColumn {
  ColumnDef def;
  int source = -1;  // its ordinal in the old table; -1: added by the ALTER
};

// What an ALTER TABLE makes of a table, before it is carried out.
struct AlterPlan {
  std::vector<NewColumn> columns;
  std::vector<IndexDef> keys;  // GEN_CLUST_INDEX left to the catalog
  storage::TableOptions options;
  std::optional<uint64_t> auto_increment;  // AUTO_INCREMENT = n
  std::string schema;                      // the final name (RENAME TO)
  std::string name;
  // How to carry it out: secondary keys added / dropped (by stored name),
  // and whether anything else changes (then the table is copied).
  std::vector<IndexDef> added_keys;
  std::vector<std::string> dropped_keys;
  bool rebuild = false;
};

bool SameName(std::string_view a, std::string_view b) { return sql::EqualsIgnoreCase(a, b); }

// The first spec of `kinds` not used yet whose `name` is `name`.
const sql::AlterSpec* TakeSpec(const sql::AlterTableStmt& s, std::vector<bool>& used,
                               std::initializer_list<Kind> kinds, std::string_view name) {
  for (size_t i = 0; i < s.specs.size(); ++i) {
    const sql::AlterSpec& spec = s.specs[i];
    if (used[i] || std::find(kinds.begin(), kinds.end(), spec.kind) == kinds.end()) continue;
    if (!SameName(spec.name, name)) continue;
    used[i] = true;
    return &spec;
  }
  return nullptr;
}

// The first unused spec of `kinds`, or null.
const sql::AlterSpec* Unused(const sql::AlterTableStmt& s, const std::vector<bool>& used,
                             std::initializer_list<Kind> kinds) {
  for (size_t i = 0; i < s.specs.size(); ++i) {
    if (!used[i] && std::find(kinds.begin(), kinds.end(), s.specs[i].kind) != kinds.end()) return &s.specs[i];
  }
  return nullptr;
}

// A key on one column, as a column definition's PRIMARY KEY / UNIQUE makes.
IndexDef ColumnKey(const std::string& column, bool primary) {
  IndexDef idx;
  idx.kind = primary ? storage::IndexKind::kClustered : storage::IndexKind::kSecondary;
  idx.name = primary ? std::string(storage::kPrimaryKeyName) : "";
  idx.unique = true;
  idx.parts.push_back(storage::KeyPart{column, 0, 0, false});
  return idx;
}

// The new table's columns (AlterTable's first half): specs matched against
// the old columns, then added and moved columns placed.
Status PlanColumns(const TableDef& old, const sql::AlterTableStmt& s, const EvalDefault& eval_default,
                   std::vector<bool>& used, AlterPlan* plan) {
  auto unknown_column = [&](const std::string& name) { return MakeError(er::kBadField, name, old.name); };
  auto from_definition = [&](const sql::ColumnDefinition& def) {
    return ColumnFromDefinition(def, plan->options.charset, plan->options.collation, eval_default);
  };
  // Changed columns with FIRST / AFTER, placed below with the added ones.
  std::vector<std::pair<const sql::AlterSpec*, NewColumn>> moved;
  for (const ColumnDef& c : old.columns) {
    if (TakeSpec(s, used, {Kind::kDropColumn}, c.name) != nullptr) {
      plan->rebuild = true;
      continue;
    }
    NewColumn nc{c, static_cast<int>(c.ordinal)};
    const sql::AlterSpec* change =
        TakeSpec(s, used, {Kind::kModifyColumn, Kind::kChangeColumn, Kind::kRenameColumn}, c.name);
    if (change != nullptr) {
      plan->rebuild = true;
      if (change->kind == Kind::kRenameColumn) {
        nc.def.name = change->new_name;
      } else {
        Result<ColumnDef> def = from_definition(change->column);
        if (!def.ok()) return def.status();
        nc.def = std::move(def).value();
      }
    }
    // ALTER COLUMN names an old column that no other spec changes (MySQL;
    // else it stays unmatched: 1054).
    while (const sql::AlterSpec* d =
               change ? nullptr : TakeSpec(s, used, {Kind::kSetDefault, Kind::kDropDefault}, c.name)) {
      plan->rebuild = true;
      if (d->kind == Kind::kDropDefault) {
        nc.def.default_kind = ColumnDef::DefaultKind::kNone;
        nc.def.default_value.clear();
      } else {
        SLUICE_RETURN_IF_ERROR(SetColumnDefault(&nc.def, *d->default_value, eval_default));
      }
    }
    if (change != nullptr && change->position != Position::kLast) {
      moved.emplace_back(change, std::move(nc));
    } else {
      plan->columns.push_back(std::move(nc));
    }
  }
  if (const sql::AlterSpec* bad = Unused(s, used, {Kind::kModifyColumn, Kind::kChangeColumn, Kind::kRenameColumn})) {
    return unknown_column(bad->name);
  }
  // Added columns, and the moved ones, in statement order.
  for (const sql::AlterSpec& spec : s.specs) {
    NewColumn nc;
    if (spec.kind == Kind::kAddColumn) {
      Result<ColumnDef> def = from_definition(spec.column);
      if (!def.ok()) return def.status();
      nc.def = std::move(def).value();
      plan->rebuild = true;
    } else if (spec.kind == Kind::kModifyColumn || spec.kind == Kind::kChangeColumn) {
      auto it = std::find_if(moved.begin(), moved.end(), [&](const auto& m) { return m.first == &spec; });
      if (it == moved.end()) continue;  // kept its place
      nc = std::move(it->second);
    } else {
      continue;
    }
    auto at = plan->columns.end();
    if (spec.position == Position::kFirst) {
      at = plan->columns.begin();
    } else if (spec.position == Position::kAfter) {
      at = std::find_if(plan->columns.begin(), plan->columns.end(),
                        [&](const NewColumn& c) { return SameName(c.def.name, spec.after); });
      if (at == plan->columns.end()) return unknown_column(spec.after);
      ++at;
    }
    plan->columns.insert(at, std::move(nc));
  }
  if (const sql::AlterSpec* bad = Unused(s, used, {Kind::kSetDefault, Kind::kDropDefault})) {
    return unknown_column(bad->name);
  }
  if (plan->columns.empty()) return MakeError(er::kCantRemoveAllFields);
  return Status::OK();
}

// The new table's keys (AlterTable's second half): the old ones without the
// dropped keys and columns, then the added ones.
Status PlanKeys(const TableDef& old, const sql::AlterTableStmt& s, std::vector<bool>& used, AlterPlan* plan) {
  for (const IndexDef& idx : old.indexes) {
    if (idx.parts.empty()) continue;  // GEN_CLUST_INDEX
    const bool primary = idx.kind == storage::IndexKind::kClustered;
    const sql::AlterSpec* drop = TakeSpec(s, used, {Kind::kDropIndex}, idx.name);
    if (drop == nullptr && primary) drop = TakeSpec(s, used, {Kind::kDropPrimaryKey}, "");
    // DROP CONSTRAINT of a PRIMARY KEY or UNIQUE key drops the key.
    for (size_t i = 0; drop == nullptr && idx.unique && i < s.specs.size(); ++i) {
      const sql::AlterSpec& spec = s.specs[i];
      if (used[i] || spec.kind != Kind::kDropCheck || !spec.constraint || !SameName(spec.name, idx.name)) continue;
      used[i] = true;
      drop = &spec;
    }
    if (drop != nullptr) {
      if (primary) {
        plan->rebuild = true;
      } else {
        plan->dropped_keys.push_back(idx.name);
      }
      continue;
    }
    IndexDef key = idx;
    key.id = 0;
    key.root_page = 0;
    key.parts.clear();
    for (const storage::KeyPart& part : idx.parts) {
      auto col = std::find_if(plan->columns.begin(), plan->columns.end(),
                              [&](const NewColumn& c) { return c.source == static_cast<int>(part.column); });
      if (col == plan->columns.end()) continue;  // the column was dropped: so is the key part
      storage::KeyPart p = part;
      p.column_name = col->def.name;
      const ColumnDef& c = col->def;
      // A prefix that the new type cannot have, or that covers the whole
      // column, becomes the whole column.
      const bool prefixable = storage::IsTextType(c.type) || storage::IsBinaryType(c.type);
      if (p.prefix_length != 0 && (!prefixable || (!storage::IsBlobOrText(c.type) && p.prefix_length >= c.length))) {
        p.prefix_length = 0;
      }
      key.parts.push_back(std::move(p));
    }
    if (key.parts.empty()) continue;  // every column of the key was dropped
    if (const sql::AlterSpec* rename = TakeSpec(s, used, {Kind::kRenameIndex}, idx.name)) {
      key.name = rename->new_name;
      plan->rebuild = true;
    }
    plan->keys.push_back(std::move(key));
  }
  // Added keys, and the keys of added or changed columns, in statement order.
  for (const sql::AlterSpec& spec : s.specs) {
    std::vector<IndexDef> added;
    if (spec.kind == Kind::kAddIndex) {
      Result<IndexDef> idx = IndexFromSpec(spec.index);
      if (!idx.ok()) return idx.status();
      added.push_back(std::move(idx).value());
    } else if (spec.kind == Kind::kAddColumn || spec.kind == Kind::kModifyColumn ||
               spec.kind == Kind::kChangeColumn) {
      if (spec.column.primary_key) added.push_back(ColumnKey(spec.column.name, true));
      if (spec.column.unique) added.push_back(ColumnKey(spec.column.name, false));
    }
    for (IndexDef& key : added) {
      if (key.kind == storage::IndexKind::kClustered) {
        const bool has_primary = std::any_of(plan->keys.begin(), plan->keys.end(), [](const IndexDef& k) {
          return k.kind == storage::IndexKind::kClustered;
        });
        if (has_primary) return MakeError(er::kMultiplePriKey);
        plan->rebuild = true;
      } else {
        if (key.name.empty()) {
          // Named after its first column, spelt as the column is.
          std::string base = key.parts[0].column_name;
          for (const NewColumn& c : plan->columns) {
            if (SameName(c.def.name, base)) base = c.def.name;
          }
          key.name = UnusedKeyName(base, plan->keys);
        }
        plan->added_keys.push_back(key);
      }
      plan->keys.push_back(std::move(key));
    }
  }
  if (const sql::AlterSpec* bad = Unused(s, used, {Kind::kRenameIndex})) {
    return MakeError(er::kKeyDoesNotExist, bad->name, old.name);
  }
  if (const sql::AlterSpec* bad = Unused(s, used, {Kind::kDropIndex, Kind::kDropColumn})) {
    return MakeError(er::kCantDropFieldOrKey, bad->name);
  }
  if (Unused(s, used, {Kind::kDropPrimaryKey}) != nullptr) {
    return MakeError(er::kCantDropFieldOrKey, storage::kPrimaryKeyName);
  }
  return Status::OK();
}

// Whether MySQL 8.0 would copy the rows for this change (ALGORITHM=COPY)
// rather than alter in place; it then reports the rows as affected. Not in
// strict mode, a column made NOT NULL is copied too (NULLs become the
// implicit default with a warning, which InnoDB cannot do in place).
bool MySqlCopies(const TableDef& old, const TableDef& next, const std::vector<NewColumn>& columns, bool strict) {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].source < 0) continue;
    const ColumnDef& from = old.columns[columns[i].source];
    const ColumnDef& to = next.columns[i];
    if (to.auto_increment && !from.auto_increment) return true;
    if (!strict && from.nullable && !to.nullable) return true;
    if (from.type != to.type || from.is_unsigned != to.is_unsigned || from.precision != to.precision ||
        from.scale != to.scale || from.fsp != to.fsp || from.charset != to.charset ||
        from.collation != to.collation) {
      return true;
    }
    // ENUM: members added at the end are in place.
    if (to.enum_values.size() < from.enum_values.size() ||
        !std::equal(from.enum_values.begin(), from.enum_values.end(), to.enum_values.begin())) {
      return true;
    }
    if (storage::IsIntegerType(from.type) || from.length == to.length) continue;  // display width
    // VARCHAR grows in place while its length prefix keeps its size.
    const bool var = from.type == storage::ColumnType::kVarChar || from.type == storage::ColumnType::kVarBinary;
    const uint32_t from_bytes = storage::MaxKeyPartBytes(from, 0);
    const uint32_t to_bytes = storage::MaxKeyPartBytes(to, 0);
    if (!var || to.length < from.length || (from_bytes <= 255) != (to_bytes <= 255)) return true;
  }
  const bool had_primary = !old.has_hidden_row_id();
  return had_primary && next.has_hidden_row_id();
}

// Same stored form: a value can be copied as it is.
bool SameStoredType(const ColumnDef& a, const ColumnDef& b) {
  return a.type == b.type && a.is_unsigned == b.is_unsigned && a.length == b.length && a.precision == b.precision &&
         a.scale == b.scale && a.fsp == b.fsp && a.charset == b.charset && a.enum_values == b.enum_values;
}

}  // namespace

Outcome TableExecutor::AlterTable(const sql::AlterTableStmt& s) {
  Outcome o;
  // The table, the new name of a RENAME [TO], and the parents of added
  // foreign keys.
  const std::string schema = s.table.schema.empty() ? ctx_.db : s.table.schema;
  std::vector<std::pair<std::string, std::string>> names{{schema, s.table.name}};
  for (const sql::AlterSpec& spec : s.specs) {
    if (spec.kind != sql::AlterSpec::Kind::kRenameTable) continue;
    names.emplace_back(spec.new_table.schema.empty() ? ctx_.db : spec.new_table.schema, spec.new_table.name);
  }
  for (const sql::ForeignKeySpec& fk : s.foreign_keys) {
    std::pair<std::string, std::string> parent{fk.ref_table.schema.empty() ? schema : fk.ref_table.schema,
                                               fk.ref_table.name};
    if (std::find(names.begin(), names.end(), parent) == names.end()) names.push_back(std::move(parent));
  }
  o.error = BeginDdl(DdlLocks(names));
  if (!o.error.ok()) return o;
  o = AlterTableLocked(s);
  EndDdl(o.error);
  return o;
}

Outcome TableExecutor::AlterTableLocked(const sql::AlterTableStmt& s) {
  Outcome o;
  storage::Engine& engine = env_.engine();
  Result<Table> t = ResolveTable(s.table);
  if (!t.ok()) {
    o.error = t.status();
    return o;
  }
  const TableDef& old = *t->def;
  if (s.keys_toggled) {
    Status note = MakeError(er::kIllegalHaOption, old.name);
    ctx_.warnings.push_back({Warning::Level::kNote, note.mysql_errno(), note.message()});
  }

  // 1. The new definition.
  AlterPlan plan;
  plan.options = old.options;
  plan.schema = t->schema;
  plan.name = old.name;
  const sql::TableOptions& opt = s.options;
  if (!opt.engine.empty() && sql::AsciiLower(opt.engine) != "innodb") {
    o.error = MakeError(er::kUnknownStorageEngine, opt.engine);
    return o;
  }
  o.error = ApplyTableCharset(opt.charset, opt.collation, &plan.options);
  if (!o.error.ok()) return o;
  if (!opt.comment.empty()) plan.options.comment = opt.comment;
  if (opt.auto_increment) plan.auto_increment = std::max<uint64_t>(*opt.auto_increment, 1);
  // Any table option, and ENGINE= alone (MySQL's "null ALTER"), rebuilds.
  plan.rebuild = !opt.engine.empty() || !opt.charset.empty() || !opt.collation.empty() || !opt.comment.empty() ||
                 opt.auto_increment.has_value() || !opt.row_format.empty();
  for (const sql::AlterSpec& spec : s.specs) {
    if (spec.kind == Kind::kForce) plan.rebuild = true;
    if (spec.kind != Kind::kRenameTable) continue;
    // An unqualified new name is in the current database (MySQL).
    plan.schema = spec.new_table.schema.empty() ? ctx_.db : spec.new_table.schema;
    plan.name = spec.new_table.name;
    if (plan.schema.empty()) {
      o.error = MakeError(er::kNoDb);
      return o;
    }
  }
  auto eval_default = [this](const sql::Expr& e) { return sql::Evaluate(e, eval_); };
  std::vector<bool> used(s.specs.size(), false);
  o.error = PlanColumns(old, s, eval_default, used, &plan);
  if (o.error.ok()) o.error = PlanKeys(old, s, used, &plan);
  if (!o.error.ok()) return o;
  TableDef next;
  next.schema = plan.schema;
  next.name = plan.name;
  next.options = plan.options;
  for (const NewColumn& c : plan.columns) next.columns.push_back(c.def);
  next.indexes = plan.keys;
  // CHECKs: the old ones, dropped or (un)enforced by name, then the added
  // ones; any change copies the table, which checks every row.
  next.checks = old.checks;
  for (size_t i = 0; i < s.specs.size(); ++i) {
    const sql::AlterSpec& spec = s.specs[i];
    if (used[i] || (spec.kind != Kind::kDropCheck && spec.kind != Kind::kAlterCheck)) continue;
    auto it = std::find_if(next.checks.begin(), next.checks.end(),
                           [&](const storage::CheckDef& c) { return SameName(c.name, spec.name); });
    if (it == next.checks.end()) {
      if (!spec.constraint) {
        o.error = MakeError(er::kCheckConstraintNotFound, spec.name);
      } else if (old.FindIndex(spec.name) != nullptr) {
        o.error = MakeError(er::kNotSupportedYet, "ALTER CONSTRAINT of an index");
      } else {
        o.error = MakeError(er::kConstraintNotFound, spec.name);
      }
      return o;
    }
    if (spec.kind == Kind::kDropCheck) {
      next.checks.erase(it);
    } else {
      it->enforced = spec.enforced;
    }
    plan.rebuild = true;
  }
  if (!s.checks.empty()) {
    o.error = AddCheckConstraints(s.checks, *engine.catalog().snapshot(), &next);
    if (!o.error.ok()) return o;
    plan.rebuild = true;
  }
  // FOREIGN KEYs: the old ones, minus those dropped, following their
  // columns; then the added ones. A change copies the table.
  next.foreign_keys = old.foreign_keys;
  for (size_t i = 0; i < s.specs.size(); ++i) {
    const sql::AlterSpec& spec = s.specs[i];
    if (spec.kind != Kind::kDropForeignKey) continue;
    used[i] = true;
    auto it = std::find_if(next.foreign_keys.begin(), next.foreign_keys.end(),
                           [&](const storage::ForeignKeyDef& f) { return SameName(f.name, spec.name); });
    if (it == next.foreign_keys.end()) {
      o.error = MakeError(er::kCantDropFieldOrKey, spec.name);
      return o;
    }
    next.foreign_keys.erase(it);
    plan.rebuild = true;
  }
  const bool fk_checks = ForeignKeyChecks();
  {
    std::vector<std::string> renamed_from;
    for (const NewColumn& c : plan.columns) renamed_from.push_back(c.source >= 0 ? old.columns[c.source].name : "");
    o.error = AlterForeignKeys(old, renamed_from, *engine.catalog().snapshot(), fk_checks, &next);
    if (!o.error.ok()) return o;
  }
  const size_t kept_foreign_keys = next.foreign_keys.size();
  if (!s.foreign_keys.empty()) {
    o.error = AddForeignKeys(s.foreign_keys, *engine.catalog().snapshot(), fk_checks, &next);
    if (!o.error.ok()) return o;
    plan.rebuild = true;
  }
  o.error = CheckConstraintColumnsExist(next);
  if (o.error.ok()) o.error = ValidateGeneratedColumns(next, /*altering=*/true);
  if (!o.error.ok()) return o;
  Result<std::vector<ParsedCheck>> checks = ParseEnforcedChecks(next);
  Result<std::vector<ParsedGenerated>> generated = ParseGeneratedColumns(next);
  if (!checks.ok() || !generated.ok()) {
    o.error = checks.ok() ? generated.status() : checks.status();
    return o;
  }
  // Validated before anything changes (1060, 1061, 1068, 1072, 1075, ...);
  // `checked` also has what the catalog derives (PRIMARY KEY columns NOT
  // NULL, ordinals), which the copy below converts to.
  TableDef checked = next;
  o.error = storage::NormalizeTableDef(&checked);
  if (!o.error.ok()) return o;
  const bool renamed = plan.schema != t->schema || plan.name != old.name;
  // A key dropped and added again under its name needs the copy.
  for (const IndexDef& added : plan.added_keys) {
    for (const std::string& dropped : plan.dropped_keys) plan.rebuild |= SameName(added.name, dropped);
  }

  // 2a. Nothing but a new name (or nothing at all).
  if (!plan.rebuild && plan.added_keys.empty() && plan.dropped_keys.empty()) {
    if (renamed) o.error = engine.RenameTable(t->schema, old.name, plan.schema, plan.name);
    return o;
  }
  // 2b. Secondary keys only: built and dropped in place. Added first, so
  // that a failing one (1062) can be undone by dropping those added.
  if (!plan.rebuild) {
    if (renamed) {
      auto snap = engine.catalog().snapshot();
      if (snap->FindDatabase(plan.schema) == nullptr) {
        o.error = MakeError(er::kBadDb, plan.schema);
      } else if (snap->FindTable(plan.schema, plan.name) != nullptr) {
        o.error = MakeError(er::kTableExists, plan.name);
      }
      if (!o.error.ok()) return o;
    }
    for (size_t i = 0; i < plan.added_keys.size(); ++i) {
      o.error = engine.AddIndex(t->schema, old.name, plan.added_keys[i]);
      if (!o.error.ok()) {
        for (size_t j = 0; j < i; ++j) (void)engine.DropIndex(t->schema, old.name, plan.added_keys[j].name);
        return o;
      }
    }
    for (const std::string& name : plan.dropped_keys) {
      o.error = engine.DropIndex(t->schema, old.name, name);
      if (!o.error.ok()) return o;
    }
    if (renamed) o.error = engine.RenameTable(t->schema, old.name, plan.schema, plan.name);
    if (o.error.ok()) o.info = fmt::format("Records: 0  Duplicates: 0  Warnings: {}", ctx_.warning_count());
    return o;
  }

  // 2c. A copy. Each new column's value: the old column's, converted by the
  // assignment rules when its type changed; an added column's default.
  // Under a strict sql_mode the conditions the evaluator raises while it
  // computes generated columns end the ALTER too (MySQL's copy aborts on
  // a warning), and the old table stays.
  const bool strict = Strict();
  const StrictStatement strict_statement(ctx_, strict);
  // With foreign_key_checks, every row must have its parent under each
  // added key (1452). The parents are read, and locked shared, in a
  // transaction of the ALTER's own, held until the copy is in place.
  TableDef added_keys = checked;
  added_keys.foreign_keys.erase(added_keys.foreign_keys.begin(),
                                added_keys.foreign_keys.begin() + static_cast<long>(kept_foreign_keys));
  std::unique_ptr<storage::EngineTrx> fk_trx;
  std::optional<ForeignKeyEnforcer> fks;
  if (fk_checks && !added_keys.foreign_keys.empty()) {
    fk_trx = engine.Begin(storage::IsolationLevel::kReadCommitted);
    const Settings& settings = Settings::Of(env_.sys_vars(), ctx_);
    if (settings.has_innodb_lock_wait_timeout) fk_trx->set_lock_wait_timeout(settings.innodb_lock_wait_timeout);
    fks.emplace(engine, *fk_trx);
  }
  const bool mysql_copies = MySqlCopies(old, checked, plan.columns, strict);
  const auto now = eval_.StatementTime();
  std::vector<std::optional<RowValue>> added(checked.columns.size());
  auto convert = [&](const Row& row, uint64_t n) -> Result<Row> {
    // KILL stops the copy: the rebuild then drops its temporary table and
    // the old one stays as it was.
    SLUICE_RETURN_IF_ERROR(ctx_.CheckInterrupt());
    Row out(checked.columns.size());
    for (size_t i = 0; i < out.size(); ++i) {
      const ColumnDef& to = checked.columns[i];
      const int source = plan.columns[i].source;
      if (source < 0) {
        if (!added[i]) {
          // Once per ALTER (the statement's time for CURRENT_TIMESTAMP). A
          // NOT NULL column without DEFAULT takes its type's implicit
          // default, quietly, as in MySQL; the engine has no zero date.
          AssignContext quiet;
          quiet.strict = false;
          Result<RowValue> v = ColumnDefault(to, quiet, now);
          if (!v.ok()) {
            const bool date = to.type == storage::ColumnType::kDate;
            return MakeError(er::kTruncatedWrongTemporalForField, date ? "date" : "datetime",
                             date ? "0000-00-00" : "0000-00-00 00:00:00", to.name, n);
          }
          added[i] = std::move(v).value();
        }
        out[i] = *added[i];
        continue;
      }
      const ColumnDef& from = old.columns[source];
      const RowValue& v = row[source];
      if (storage::IsNull(v)) {
        if (to.nullable || to.auto_increment) continue;  // NULL (AUTO_INCREMENT: the next value)
        // NULL into a NOT NULL column, as MySQL: in strict mode 1138 where
        // it alters in place, 1265 where it copies; otherwise the implicit
        // default with warning 1265.
        if (strict && !mysql_copies) return MakeError(er::kInvalidUseOfNull);
        if (strict) return MakeError(er::kWarnDataTruncated, to.name, n);
        AssignContext quiet;
        quiet.strict = false;
        Result<RowValue> zero = ToColumnValue(to, sql::Value::Null(), quiet);
        if (!zero.ok()) return zero.status();
        out[i] = std::move(zero).value();
        ctx_.warnings.push_back({Warning::Level::kWarning, er::kWarnDataTruncated.code,
                                 fmt::format(fmt::runtime(er::kWarnDataTruncated.format), to.name, n)});
        continue;
      }
      if (SameStoredType(from, to)) {
        out[i] = v;
        continue;
      }
      AssignContext cx = Assigning(strict, n);
      Result<RowValue> converted = ToColumnValue(to, FromColumnValue(from, v), cx);
      if (!converted.ok()) return converted.status();
      out[i] = std::move(converted).value();
    }
    // Generated columns are computed again, from the new definition.
    if (!generated->empty()) {
      AssignContext cx = Assigning(strict, n);
      SLUICE_RETURN_IF_ERROR(ComputeGenerated(*generated, checked, &out, cx));
    }
    // Every copied row meets the enforced CHECKs (3819 stops the copy).
    Result<bool> ok = EnforceChecks(*checks, checked, out, /*ignore=*/false);
    if (!ok.ok()) return ok.status();
    if (fks) SLUICE_RETURN_IF_ERROR(fks->CheckParents(added_keys, nullptr, out));
    return out;
  };
  Result<uint64_t> copied = engine.RebuildTable(t->schema, old.name, std::move(next), convert, plan.auto_increment);
  if (fk_trx) (void)engine.Rollback(*fk_trx);  // it only read and locked
  if (!copied.ok()) {
    o.error = copied.status();
    return o;
  }
  o.affected_rows = mysql_copies ? *copied : 0;
  o.info = fmt::format("Records: {}  Duplicates: 0  Warnings: {}", o.affected_rows, ctx_.warning_count());
  return o;
}

Outcome TableExecutor::RenameTable(const sql::RenameTableStmt& s) {
  Outcome o;
  std::vector<storage::TableRename> renames;
  for (const auto& [from, to] : s.renames) {
    storage::TableRename r{from.schema.empty() ? ctx_.db : from.schema, from.name,
                           to.schema.empty() ? ctx_.db : to.schema, to.name};
    if (r.from_schema.empty() || r.to_schema.empty()) {
      o.error = MakeError(er::kNoDb);
      return o;
    }
    renames.push_back(std::move(r));
  }
  std::vector<std::pair<std::string, std::string>> names;
  for (const auto& r : renames) {
    names.emplace_back(r.from_schema, r.from_name);
    names.emplace_back(r.to_schema, r.to_name);
  }
  o.error = BeginDdl(DdlLocks(names));
  if (!o.error.ok()) return o;
  o.error = env_.engine().RenameTables(renames);
  EndDdl(o.error);
  return o;
}

Outcome TableExecutor::Truncate(const sql::TruncateStmt& s) {
  Outcome o;
  o.error = BeginDdl(DdlLocks({{s.table.schema.empty() ? ctx_.db : s.table.schema, s.table.name}}));
  if (!o.error.ok()) return o;
  Result<Table> t = ResolveTable(s.table);
  o.error = t.status();
  // A table another one's foreign key references is not truncated (1701).
  if (o.error.ok() && ForeignKeyChecks()) {
    o.error = CheckTruncateReferenced(*env_.engine().catalog().snapshot(), *t->def);
  }
  if (o.error.ok()) o.error = env_.engine().TruncateTable(t->schema, t->def->name);
  EndDdl(o.error);
  return o;
}

}  // namespace sluice::exec
