#include "exec/foreign_keys.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "base/mysql_error.h"
#include "binlog/event.h"
#include "sql/lexer.h"

namespace sluice::exec {

namespace {

using binlog::QuoteIdentifier;
using storage::ColumnDef;
using storage::ColumnType;
using storage::ForeignKeyAction;
using storage::ForeignKeyDef;
using storage::IndexDef;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

bool SameName(std::string_view a, std::string_view b) { return sql::EqualsIgnoreCase(a, b); }

// n of a generated name <table>_ibfk_<n>; 0 when `name` is not one.
int GeneratedNumber(std::string_view table, std::string_view name) {
  std::optional<std::string_view> digits = storage::GeneratedForeignKeyDigits(table, name);
  if (!digits || digits->size() > 9) return 0;
  return std::atoi(std::string(*digits).c_str());
}

bool TableHasForeignKey(const TableDef& t, std::string_view name) {
  return std::any_of(t.foreign_keys.begin(), t.foreign_keys.end(),
                     [&](const ForeignKeyDef& f) { return SameName(f.name, name); });
}

ForeignKeyAction ActionOf(sql::ForeignKeySpec::Action a) {
  switch (a) {
    case sql::ForeignKeySpec::Action::kNoAction: return ForeignKeyAction::kNoAction;
    case sql::ForeignKeySpec::Action::kRestrict: return ForeignKeyAction::kRestrict;
    case sql::ForeignKeySpec::Action::kCascade: return ForeignKeyAction::kCascade;
    case sql::ForeignKeySpec::Action::kSetNull: return ForeignKeyAction::kSetNull;
    case sql::ForeignKeySpec::Action::kSetDefault: return ForeignKeyAction::kSetDefault;
  }
  return ForeignKeyAction::kNoAction;
}

// Whether a child column may reference a parent column (InnoDB's rules):
// the same type, signedness and DECIMAL precision and scale; strings of
// one kind (text or binary, CHAR and VARCHAR alike) in one charset and
// collation, whatever their lengths.
bool Compatible(const ColumnDef& child, const ColumnDef& parent) {
  auto is_char = [](ColumnType t) { return t == ColumnType::kChar || t == ColumnType::kVarChar; };
  auto is_bin = [](ColumnType t) { return t == ColumnType::kBinary || t == ColumnType::kVarBinary; };
  if (is_char(child.type) && is_char(parent.type)) {
    return child.charset == parent.charset && child.collation == parent.collation;
  }
  if (is_bin(child.type) && is_bin(parent.type)) return true;
  if (child.type != parent.type) return false;
  if (storage::IsBlobOrText(child.type) || child.type == ColumnType::kJson) return false;
  if (storage::IsIntegerType(child.type)) return child.is_unsigned == parent.is_unsigned;
  switch (child.type) {
    case ColumnType::kDecimal:
      return child.precision == parent.precision && child.scale == parent.scale &&
             child.is_unsigned == parent.is_unsigned;
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      return child.is_unsigned == parent.is_unsigned;
    case ColumnType::kEnum:
      return child.enum_values == parent.enum_values;
    default:
      return true;
  }
}

std::string QuotedList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + QuoteIdentifier(n);
  return out;
}

// What 1451 / 1452 / 1701 put in their parentheses: `db`.`child`, CONSTRAINT
// ... (MySQL cuts it at 192 bytes).
std::string ViolationText(const std::string& child_schema, const std::string& child_table, const ForeignKeyDef& fk,
                          bool qualify_parent = false) {
  std::string text = QuoteIdentifier(child_schema) + "." + QuoteIdentifier(child_table) + ", " +
                     ForeignKeyClause(qualify_parent ? std::string() : child_schema, fk);
  if (text.size() > 192) text.resize(192);
  return text;
}

// The ordinals of `columns` in `def`; nullopt when one is missing.
std::optional<std::vector<uint32_t>> Ordinals(const TableDef& def, const std::vector<std::string>& columns) {
  std::vector<uint32_t> out;
  for (const std::string& c : columns) {
    const ColumnDef* col = def.FindColumn(c);
    if (col == nullptr) return std::nullopt;
    out.push_back(col->ordinal);
  }
  return out;
}

// The values of `row` at `ordinals`; nullopt when one is NULL (MATCH
// SIMPLE: such a key references nothing).
std::optional<Row> KeyOf(const Row& row, const std::vector<uint32_t>& ordinals) {
  Row key;
  for (uint32_t o : ordinals) {
    if (storage::IsNull(row[o])) return std::nullopt;
    key.push_back(row[o]);
  }
  return key;
}

// The index's name for an added foreign key index that is not explicitly
// named: the first column's, made unique with _2, _3, ...
std::string UniqueIndexName(const TableDef& def, const std::string& base) {
  std::string name = base;
  for (int n = 2; def.FindIndex(name) != nullptr; ++n) name = base + "_" + std::to_string(n);
  return name;
}

}  // namespace

Row ClusteredKeyOf(const TableDef& def, const Row& row) {
  Row pk;
  if (def.has_hidden_row_id()) {
    pk.push_back(row.size() > def.columns.size() ? row[def.columns.size()] : RowValue(uint64_t{0}));
    return pk;
  }
  for (const auto& p : def.clustered().parts) pk.push_back(row[p.column]);
  return pk;
}

std::string ForeignKeyClause(const std::string& child_schema, const ForeignKeyDef& fk) {
  std::string parent = QuoteIdentifier(fk.ref_table);
  if (fk.ref_schema != child_schema) parent = QuoteIdentifier(fk.ref_schema) + "." + parent;
  std::string text = fmt::format("CONSTRAINT {} FOREIGN KEY ({}) REFERENCES {} ({})", QuoteIdentifier(fk.name),
                                 QuotedList(fk.columns), parent, QuotedList(fk.ref_columns));
  if (fk.on_delete != ForeignKeyAction::kNoAction) {
    text += " ON DELETE " + std::string(ForeignKeyActionName(fk.on_delete));
  }
  if (fk.on_update != ForeignKeyAction::kNoAction) {
    text += " ON UPDATE " + std::string(ForeignKeyActionName(fk.on_update));
  }
  return text;
}

int IndexLeadingWith(const TableDef& def, const std::vector<std::string>& columns) {
  int best = -1;
  for (size_t i = 0; i < def.indexes.size(); ++i) {
    const IndexDef& idx = def.indexes[i];
    if (idx.parts.size() < columns.size()) continue;
    bool leads = true;
    for (size_t p = 0; p < columns.size() && leads; ++p) {
      const std::string& part = idx.parts[p].column_name.empty() && idx.parts[p].column < def.columns.size()
                                    ? def.columns[idx.parts[p].column].name
                                    : idx.parts[p].column_name;
      leads = idx.parts[p].prefix_length == 0 && SameName(part, columns[p]);
    }
    if (!leads) continue;
    if (idx.kind == storage::IndexKind::kClustered) return static_cast<int>(i);
    if (best < 0 || idx.parts.size() < def.indexes[best].parts.size()) best = static_cast<int>(i);
  }
  return best;
}

Status AddForeignKeys(const std::vector<sql::ForeignKeySpec>& specs, const storage::CatalogSnapshot& snapshot,
                      bool checks, TableDef* def) {
  int next = 1;
  for (const ForeignKeyDef& f : def->foreign_keys) next = std::max(next, GeneratedNumber(def->name, f.name) + 1);
  const std::vector<storage::CatalogSnapshot::TablePtr> others = snapshot.AllTablesIn(def->schema);
  auto taken = [&](std::string_view name) {
    if (TableHasForeignKey(*def, name)) return true;
    return std::any_of(others.begin(), others.end(), [&](const storage::CatalogSnapshot::TablePtr& t) {
      return t->name != def->name && TableHasForeignKey(*t, name);
    });
  };
  for (const sql::ForeignKeySpec& spec : specs) {
    ForeignKeyDef fk;
    fk.name = spec.name.empty() ? storage::GeneratedForeignKeyName(def->name, std::to_string(next++)) : spec.name;
    SLUICE_RETURN_IF_ERROR(storage::CheckIdentifier(fk.name, storage::NameKind::kIndex));
    if (taken(fk.name)) return MakeError(er::kFkDupName, fk.name);
    std::vector<const ColumnDef*> cols;
    for (const std::string& c : spec.columns) {
      const ColumnDef* col = def->FindColumn(c);
      if (col == nullptr) return MakeError(er::kKeyColumnDoesNotExist, c);
      cols.push_back(col);
      fk.columns.push_back(col->name);
    }
    if (spec.ref_columns.size() != spec.columns.size()) {
      return MakeError(er::kWrongFkDef, fk.name, "Key reference and table reference don't match");
    }
    fk.ref_schema = spec.ref_table.schema.empty() ? def->schema : spec.ref_table.schema;
    fk.ref_table = spec.ref_table.name;
    fk.on_delete = ActionOf(spec.on_delete);
    fk.on_update = ActionOf(spec.on_update);
    if (fk.on_delete == ForeignKeyAction::kSetDefault || fk.on_update == ForeignKeyAction::kSetDefault) {
      return MakeError(er::kCannotAddForeign);  // InnoDB refuses SET DEFAULT
    }
    for (const ColumnDef* col : cols) {
      const bool set_null =
          fk.on_delete == ForeignKeyAction::kSetNull || fk.on_update == ForeignKeyAction::kSetNull;
      if (set_null && !col->nullable) return MakeError(er::kFkColumnNotNull, col->name, fk.name);
    }
    const bool self = fk.ref_schema == def->schema && fk.ref_table == def->name;
    storage::CatalogSnapshot::TablePtr held = self ? nullptr : snapshot.FindTable(fk.ref_schema, fk.ref_table);
    const TableDef* parent = self ? def : held.get();
    if (parent == nullptr) {
      if (checks) return MakeError(er::kFkCannotOpenParent, fk.ref_table);
      fk.ref_columns = spec.ref_columns;
    } else {
      for (size_t i = 0; i < spec.ref_columns.size(); ++i) {
        const ColumnDef* pc = parent->FindColumn(spec.ref_columns[i]);
        if (pc == nullptr) {
          if (checks) return MakeError(er::kFkNoColumnParent, spec.ref_columns[i], fk.name, fk.ref_table);
          fk.ref_columns.push_back(spec.ref_columns[i]);
          continue;
        }
        if (checks && !Compatible(*cols[i], *pc)) {
          return MakeError(er::kFkIncompatibleColumns, cols[i]->name, pc->name, fk.name);
        }
        fk.ref_columns.push_back(pc->name);
      }
      if (checks && IndexLeadingWith(*parent, fk.ref_columns) < 0) {
        return MakeError(er::kFkNoIndexParent, fk.name, fk.ref_table);
      }
    }
    // The child's index: one that leads with the columns, else a new one.
    if (IndexLeadingWith(*def, fk.columns) < 0) {
      IndexDef idx;
      idx.kind = storage::IndexKind::kSecondary;
      const std::string& given = !spec.name.empty() ? spec.name : spec.index_name;
      if (!given.empty()) {
        if (def->FindIndex(given) != nullptr) return MakeError(er::kDupKeyName, given);
        idx.name = given;
      } else {
        idx.name = UniqueIndexName(*def, fk.columns.front());
      }
      for (const std::string& c : fk.columns) idx.parts.push_back(storage::KeyPart{c, 0, 0, false});
      def->indexes.push_back(std::move(idx));
    }
    def->foreign_keys.push_back(std::move(fk));
  }
  return Status::OK();
}

Status AlterForeignKeys(const TableDef& old, const std::vector<std::string>& renamed_from,
                        const storage::CatalogSnapshot& snapshot, bool checks, TableDef* next) {
  // The new name of old column `name`; "" when it was dropped.
  auto new_name_of = [&](const std::string& name) -> std::string {
    for (size_t i = 0; i < renamed_from.size() && i < next->columns.size(); ++i) {
      if (!renamed_from[i].empty() && SameName(renamed_from[i], name)) return next->columns[i].name;
    }
    return "";
  };
  auto index_needed = [&](const std::vector<std::string>& old_columns) {
    const int i = IndexLeadingWith(old, old_columns);
    return MakeError(er::kDropIndexFk, i >= 0 ? old.indexes[i].name : std::string("PRIMARY"));
  };
  // The table's own keys follow their columns.
  for (ForeignKeyDef& fk : next->foreign_keys) {
    const std::vector<std::string> old_columns = fk.columns;
    for (std::string& c : fk.columns) {
      std::string renamed = new_name_of(c);
      if (renamed.empty()) return MakeError(er::kFkColumnCannotDrop, c, fk.name);
      c = std::move(renamed);
    }
    const bool self = fk.ref_schema == old.schema && fk.ref_table == old.name;
    if (self) {
      for (std::string& c : fk.ref_columns) {
        std::string renamed = new_name_of(c);
        if (renamed.empty()) return MakeError(er::kFkColumnCannotDrop, c, fk.name);
        c = std::move(renamed);
      }
    }
    if (IndexLeadingWith(*next, fk.columns) < 0) return index_needed(old_columns);
    storage::CatalogSnapshot::TablePtr held = self ? nullptr : snapshot.FindTable(fk.ref_schema, fk.ref_table);
    const TableDef* parent = self ? next : held.get();
    if (!checks || parent == nullptr) continue;
    for (size_t i = 0; i < fk.columns.size(); ++i) {
      const ColumnDef* c = next->FindColumn(fk.columns[i]);
      const ColumnDef* p = parent->FindColumn(fk.ref_columns[i]);
      if (c != nullptr && p != nullptr && !Compatible(*c, *p)) {
        return MakeError(er::kFkIncompatibleColumns, c->name, p->name, fk.name);
      }
    }
  }
  // Other tables' keys that reference this one: their columns stay (a
  // rename too: the children would have to change with it), with an index.
  for (const storage::CatalogSnapshot::ForeignKeyRef& ref : snapshot.ReferencingForeignKeys(old.schema, old.name)) {
    if (ref.child->id == old.id) continue;  // the table's own, done above
    const ForeignKeyDef& fk = ref.def();
    for (size_t i = 0; i < fk.ref_columns.size(); ++i) {
      const std::string& rc = fk.ref_columns[i];
      const std::string renamed = new_name_of(rc);
      if (renamed.empty()) return MakeError(er::kFkColumnCannotDropChild, rc, fk.name, ref.child->name);
      const ColumnDef* now = next->FindColumn(renamed);
      const ColumnDef* child_col = ref.child->FindColumn(fk.columns[i]);
      const bool incompatible = checks && now != nullptr && child_col != nullptr && !Compatible(*child_col, *now);
      if (!SameName(renamed, rc) || incompatible) {
        return MakeError(er::kFkColumnCannotChangeChild, rc, fk.name, ref.child->schema + "." + ref.child->name);
      }
    }
    if (checks && IndexLeadingWith(*next, fk.ref_columns) < 0) return index_needed(fk.ref_columns);
  }
  return Status::OK();
}

Status CheckDropReferenced(const storage::CatalogSnapshot& snapshot,
                           const std::vector<std::pair<std::string, std::string>>& tables) {
  for (const auto& [schema, name] : tables) {
    for (const storage::CatalogSnapshot::ForeignKeyRef& ref : snapshot.ReferencingForeignKeys(schema, name)) {
      const bool dropped_too = std::any_of(tables.begin(), tables.end(), [&](const auto& t) {
        return t.first == ref.child->schema && t.second == ref.child->name;
      });
      if (!dropped_too) return MakeError(er::kFkCannotDropParent, name, ref.def().name, ref.child->name);
    }
  }
  return Status::OK();
}

Status CheckTruncateReferenced(const storage::CatalogSnapshot& snapshot, const TableDef& def) {
  for (const storage::CatalogSnapshot::ForeignKeyRef& ref : snapshot.ReferencingForeignKeys(def.schema, def.name)) {
    if (ref.child->id == def.id) continue;
    return MakeError(er::kTruncateIllegalFk,
                     ViolationText(ref.child->schema, ref.child->name, ref.def(), /*qualify_parent=*/true));
  }
  return Status::OK();
}

const storage::CatalogSnapshot& ForeignKeyEnforcer::snapshot() {
  if (snapshot_ == nullptr) snapshot_ = engine_.catalog().snapshot();
  return *snapshot_;
}

Status ForeignKeyEnforcer::LockedRowsWith(const TableDef& def, const std::vector<std::string>& columns,
                                          const Row& key, storage::LockMode mode, std::vector<Row>* rows) {
  const int index = IndexLeadingWith(def, columns);
  auto collect = [&](const Row& r) {
    rows->push_back(r);
    return true;
  };
  if (index == 0 && key.size() == def.clustered().parts.size()) {
    // The whole PRIMARY KEY: that record alone (REC_NOT_GAP when found),
    // as InnoDB's check locks a parent it finds.
    Result<std::optional<Row>> row = engine_.GetLocked(trx_, def.id, key, mode);
    if (!row.ok()) return row.status();
    if (row->has_value()) rows->push_back(std::move(**row));
    return Status::OK();
  }
  if (index == 0) return engine_.ScanLocked(trx_, def.id, &key, &key, 0, mode, collect);
  if (index > 0) {
    const storage::Engine::KeyBound b{key, true};
    return engine_.IndexScanLocked(trx_, def.id, static_cast<size_t>(index), &b, &b, mode, collect);
  }
  // No index (a key made with foreign_key_checks off before its parent
  // had one): every row, locked, compared by value.
  std::optional<std::vector<uint32_t>> ordinals = Ordinals(def, columns);
  if (!ordinals) return Status::OK();
  return engine_.ScanLocked(trx_, def.id, nullptr, nullptr, 0, mode, [&](const Row& r) {
    std::optional<Row> k = KeyOf(r, *ordinals);
    if (k && *k == key) rows->push_back(r);
    return true;
  });
}

Status ForeignKeyEnforcer::CheckParents(const TableDef& def, const Row* before, const Row& after) {
  for (const ForeignKeyDef& fk : def.foreign_keys) {
    std::optional<std::vector<uint32_t>> ordinals = Ordinals(def, fk.columns);
    if (!ordinals) continue;
    std::optional<Row> key = KeyOf(after, *ordinals);
    if (!key) continue;
    if (before != nullptr) {
      std::optional<Row> old_key = KeyOf(*before, *ordinals);
      if (old_key && *old_key == *key) continue;
    }
    storage::CatalogSnapshot::TablePtr parent = snapshot().FindTable(fk.ref_schema, fk.ref_table);
    std::vector<Row> found;
    if (parent != nullptr) {
      SLUICE_RETURN_IF_ERROR(LockedRowsWith(*parent, fk.ref_columns, *key, storage::LockMode::kS, &found));
    }
    if (found.empty()) return MakeError(er::kNoReferencedRow2, ViolationText(def.schema, def.name, fk));
  }
  return Status::OK();
}

Status ForeignKeyEnforcer::ParentChanging(const TableDef& def, const Row& before, const Row* after, int depth) {
  if (after == nullptr) return ActOnChildren(def, before, after, depth);
  updating_.push_back(def.id);
  Status st = ActOnChildren(def, before, after, depth);
  updating_.pop_back();
  return st;
}

Status ForeignKeyEnforcer::ActOnChildren(const TableDef& def, const Row& before, const Row* after, int depth) {
  for (const storage::CatalogSnapshot::ForeignKeyRef& ref : snapshot().ReferencingForeignKeys(def.schema, def.name)) {
    const ForeignKeyDef& fk = ref.def();
    const TableDef& child = *ref.child;
    std::optional<std::vector<uint32_t>> parent_ordinals = Ordinals(def, fk.ref_columns);
    std::optional<std::vector<uint32_t>> child_ordinals = Ordinals(child, fk.columns);
    if (!parent_ordinals || !child_ordinals) continue;
    std::optional<Row> old_key = KeyOf(before, *parent_ordinals);
    if (!old_key) continue;
    Row new_key;
    if (after != nullptr) {
      for (uint32_t o : *parent_ordinals) new_key.push_back((*after)[o]);
      if (new_key == *old_key) continue;
    }
    ForeignKeyAction action = after != nullptr ? fk.on_update : fk.on_delete;
    std::vector<Row> rows;
    SLUICE_RETURN_IF_ERROR(LockedRowsWith(child, fk.columns, *old_key, storage::LockMode::kX, &rows));
    const bool self = child.id == def.id;
    if (after == nullptr) {
      // A row being deleted does not hold itself back.
      std::erase_if(rows, [&](const Row& r) {
        return self && std::equal(before.begin(), before.end(), r.begin(), r.begin() + child.columns.size());
      });
    } else if (std::find(updating_.begin(), updating_.end(), child.id) != updating_.end()) {
      // MySQL: an ON UPDATE CASCADE or SET NULL that would update a table
      // this change already updates (the table itself, or one up the
      // cascade) acts as RESTRICT.
      action = ForeignKeyAction::kRestrict;
    }
    if (rows.empty()) continue;
    if (action != ForeignKeyAction::kCascade && action != ForeignKeyAction::kSetNull) {
      return MakeError(er::kRowIsReferenced2, ViolationText(child.schema, child.name, fk));
    }
    if (depth >= kMaxForeignKeyCascadeDepth) return MakeError(er::kFkDepthExceeded, kMaxForeignKeyCascadeDepth);
    for (const Row& r : rows) {
      const Row columns(r.begin(), r.begin() + child.columns.size());
      const Row pk = ClusteredKeyOf(child, r);
      if (after == nullptr && action == ForeignKeyAction::kCascade) {
        SLUICE_RETURN_IF_ERROR(ParentChanging(child, columns, nullptr, depth + 1));
        Result<bool> del = engine_.Delete(trx_, child.id, pk);
        if (!del.ok()) return del.status();
        continue;
      }
      // SET NULL empties every column of the key; CASCADE copies the
      // referenced values that changed (an unchanged one keeps the child's
      // spelling, which may differ under a case-insensitive collation).
      Row updated = columns;
      for (size_t i = 0; i < child_ordinals->size(); ++i) {
        if (action == ForeignKeyAction::kSetNull) {
          updated[(*child_ordinals)[i]] = RowValue();
        } else if (new_key[i] != (*old_key)[i]) {
          updated[(*child_ordinals)[i]] = new_key[i];
        }
      }
      if (updated == columns) continue;
      if (finish_) SLUICE_RETURN_IF_ERROR(finish_(child, &updated));
      SLUICE_RETURN_IF_ERROR(ParentChanging(child, columns, &updated, depth + 1));
      Result<bool> up = engine_.Update(trx_, child.id, pk, updated);
      if (!up.ok()) return up.status();
    }
  }
  return Status::OK();
}

}  // namespace sluice::exec
