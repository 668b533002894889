// DDL (engine.h, "DDL"): databases, CREATE/DROP/RENAME/TRUNCATE TABLE,
// ADD/DROP INDEX and table rebuilds (copy, then swap). Split from
// engine.cc as engine_purge.cc is; thread-safety as engine.h says.
#include "storage/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <unordered_set>
#include <utility>

#include "base/log.h"
#include "base/mysql_error.h"
#include "base/utf8.h"
#include "storage/btree/key_codec.h"
#include "storage/buffer/tablespace.h"
#include "storage/engine/engine_internal.h"
#include "storage/trx/version_chain.h"

namespace sluice::storage {

using engine_internal::KeyHasNull;
using engine_internal::KeyText;
using engine_internal::ParseRecord;

// --- DDL ---

Status Engine::CreateDatabase(const DatabaseDef& db) {
  return catalog_->CreateDatabase(db);
}

Result<std::shared_ptr<const TableDef>> Engine::CreateTable(TableDef table) {
  if (IsTempTableName(table.name)) return MakeError(er::kWrongTableName, table.name);
  MutexLock ddl(&ddl_mu_);
  return CreateTableLocked(std::move(table));
}

Result<std::shared_ptr<const TableDef>> Engine::CreateTableLocked(TableDef table) {
  Result<std::shared_ptr<const TableDef>> created = catalog_->CreateTable(std::move(table));
  if (!created.ok()) return created;
  const std::shared_ptr<const TableDef> def = *created;
  auto undo_catalog = [&](Status s) {
    (void)catalog_->DropTable(def->schema, def->name);
    return s;
  };
  Result<std::unique_ptr<Tablespace>> space = Tablespace::Create(fs_, SpacePath(def->space_id), def->space_id);
  if (!space.ok()) return undo_catalog(space.status());
  Status s = fs_->SyncDir(datadir_);
  if (!s.ok()) return undo_catalog(s);
  s = pool_->AddSpace(std::move(space).value());
  if (!s.ok()) return undo_catalog(s);
  auto t = std::make_shared<TableHandle>();
  for (size_t i = 0; i < def->indexes.size(); ++i) {
    BTreeOptions bo;
    bo.index_name = def->name + "." + def->indexes[i].name;
    Result<std::unique_ptr<BTree>> tree = BTree::Create(pool_.get(), def->space_id, bo);
    if (!tree.ok()) return undo_catalog(tree.status());
    if (i == 0) {
      t->clustered = std::move(tree).value();
    } else {
      t->secondary.push_back(std::move(tree).value());
    }
  }
  // The roots exist only in the redo log until a page flush: make it
  // durable before the catalog says they exist. A crash before the last
  // SetIndexRoot leaves a root of 0, which recovery reads as an unfinished
  // CREATE (CleanUpDdl).
  s = redo_->FlushUpTo(redo_->current_lsn());
  if (!s.ok()) return undo_catalog(s);
  for (size_t i = 0; i < def->indexes.size(); ++i) {
    BTree* tree = i == 0 ? t->clustered.get() : t->secondary[i - 1].get();
    s = catalog_->SetIndexRoot(def->id, def->indexes[i].id, tree->root_page());
    if (!s.ok()) return undo_catalog(s);
  }
  std::shared_ptr<const TableDef> stored = catalog_->snapshot()->FindTableById(def->id);
  if (stored == nullptr) return Status::Corruption("engine: created table vanished from the catalog");
  t->def = stored;
  t->InitAutoInc(std::max<uint64_t>(stored->auto_increment_next, 1));
  t->next_row_id.store(std::max<uint64_t>(stored->next_row_id, 1));
  for (const ColumnDef& c : stored->columns) {
    if (c.auto_increment) t->auto_inc_column = static_cast<int>(c.ordinal);
  }
  WriterMutexLock lock(&tables_mu_);
  tables_[stored->id] = std::move(t);
  return stored;
}

Status Engine::DropTable(std::string_view schema, std::string_view name) {
  MutexLock ddl(&ddl_mu_);
  return DropTableLocked(schema, name);
}

Status Engine::DropTableLocked(std::string_view schema, std::string_view name) {
  std::shared_ptr<const TableDef> def = FindTable(schema, name);
  uint32_t space_id = 0;
  SLUICE_RETURN_IF_ERROR(catalog_->DropTable(schema, name, &space_id));
  if (def != nullptr) {
    WriterMutexLock lock(&tables_mu_);
    tables_.erase(def->id);
  }
  return RemoveSpace(space_id);
}

Status Engine::DropDatabase(std::string_view name) {
  MutexLock ddl(&ddl_mu_);
  auto snap = catalog_->snapshot();
  std::vector<uint32_t> spaces;
  SLUICE_RETURN_IF_ERROR(catalog_->DropDatabase(name, &spaces));
  {
    WriterMutexLock lock(&tables_mu_);
    for (const auto& def : snap->AllTablesIn(name)) tables_.erase(def->id);
  }
  for (uint32_t space_id : spaces) SLUICE_RETURN_IF_ERROR(RemoveSpace(space_id));
  return Status::OK();
}

Status Engine::ReopenTable(std::shared_ptr<const TableDef> def, uint64_t added_index_id,
                           std::unique_ptr<BTree> added) {
  Result<std::shared_ptr<TableHandle>> old = FindHandle(def->id);
  if (!old.ok()) return old.status();
  TableHandle& o = **old;
  auto t = std::make_shared<TableHandle>();
  t->def = def;
  t->clustered = std::move(o.clustered);
  const TableDef& odef = *o.def;
  for (size_t i = 1; i < def->indexes.size(); ++i) {
    std::unique_ptr<BTree> tree;
    if (def->indexes[i].id == added_index_id) tree = std::move(added);
    for (size_t j = 1; !tree && j < odef.indexes.size(); ++j) {
      if (odef.indexes[j].id == def->indexes[i].id) tree = std::move(o.secondary[j - 1]);
    }
    t->secondary.push_back(std::move(tree));
  }
  t->auto_inc_column = o.auto_inc_column;
  {
    MutexLock lock(&o.mu);
    t->InitAutoInc(o.auto_inc_next);
  }
  t->next_row_id.store(o.next_row_id.load());
  WriterMutexLock lock(&tables_mu_);
  tables_[def->id] = std::move(t);
  return Status::OK();
}

Status Engine::AddIndex(std::string_view schema, std::string_view table, IndexDef index) {
  MutexLock ddl(&ddl_mu_);
  std::shared_ptr<const TableDef> def = FindTable(schema, table);
  if (def == nullptr) return MakeError(er::kNoSuchTable, schema, table);
  Result<std::shared_ptr<TableHandle>> th = FindHandle(def->id);
  if (!th.ok()) return th.status();
  TableDef next = *def;
  if (next.has_hidden_row_id()) next.indexes.erase(next.indexes.begin());  // the catalog adds it
  index.kind = IndexKind::kSecondary;
  index.id = 0;
  index.root_page = 0;
  next.indexes.push_back(index);
  // 1. The catalog names the index (root 0: a crash from here on drops it).
  Result<std::shared_ptr<const TableDef>> altered = catalog_->AlterTable(schema, table, next);
  if (!altered.ok()) return altered.status();
  const std::shared_ptr<const TableDef> stored = *altered;
  const IndexDef* idx = stored->FindIndex(index.name);
  if (idx == nullptr) return Status::Corruption("engine: added index vanished from the catalog");
  auto undo = [&](Status s) {
    TableDef back = *def;
    if (back.has_hidden_row_id()) back.indexes.erase(back.indexes.begin());
    (void)catalog_->AlterTable(schema, table, back);
    return s;
  };
  // 2. Build it from the latest rows (no transaction is open on the table).
  BTreeOptions bo;
  bo.index_name = stored->name + "." + idx->name;
  Result<std::unique_ptr<BTree>> tree = BTree::Create(pool_.get(), stored->space_id, bo);
  if (!tree.ok()) return undo(tree.status());
  BTree::Cursor c = (*th)->clustered->NewCursor();
  Status s = c.SeekToFirst();
  while (s.ok() && c.Valid()) {
    Result<StoredRecord> r = ParseRecord(c.value());
    if (!r.ok()) return undo(r.status());
    if (!r->delete_marked) {
      Result<Row> row = DecodeStored(**th, *r);
      if (!row.ok()) return undo(row.status());
      Result<std::string> ikey = EncodeIndexKey(*stored, *idx, *row);
      if (!ikey.ok()) return undo(ikey.status());
      if (idx->unique && !KeyHasNull(*idx, *row)) {
        BTree::Cursor d = (*tree)->NewCursor();
        s = d.Seek(*ikey);
        if (s.ok() && d.Valid() && d.key().starts_with(*ikey)) {
          return undo(MakeError(er::kDupEntry, KeyText(*stored, *idx, *row), stored->name + "." + idx->name));
        }
      }
      Result<bool> added = (*tree)->Upsert(*ikey + std::string(c.key()), "");
      if (!added.ok()) return undo(added.status());
    }
    s = c.Next();
  }
  if (!s.ok()) return undo(s);
  // 3. Durable tree, then the root in the catalog.
  s = redo_->FlushUpTo(redo_->current_lsn());
  if (!s.ok()) return undo(s);
  s = catalog_->SetIndexRoot(stored->id, idx->id, (*tree)->root_page());
  if (!s.ok()) return undo(s);
  std::shared_ptr<const TableDef> final_def = catalog_->snapshot()->FindTableById(stored->id);
  if (final_def == nullptr) return Status::Corruption("engine: altered table vanished from the catalog");
  return ReopenTable(final_def, idx->id, std::move(tree).value());
}

Status Engine::DropIndex(std::string_view schema, std::string_view table, std::string_view index) {
  MutexLock ddl(&ddl_mu_);
  std::shared_ptr<const TableDef> def = FindTable(schema, table);
  if (def == nullptr) return MakeError(er::kNoSuchTable, schema, table);
  const IndexDef* idx = def->FindIndex(index);
  if (idx == nullptr || idx->parts.empty()) return MakeError(er::kCantDropFieldOrKey, index);
  if (idx->kind == IndexKind::kClustered) {
    return MakeError(er::kNotSupportedYet, "dropping the PRIMARY KEY");
  }
  TableDef next = *def;
  const uint64_t dropped = idx->id;
  std::erase_if(next.indexes, [dropped](const IndexDef& i) { return i.id == dropped; });
  if (next.has_hidden_row_id()) next.indexes.erase(next.indexes.begin());
  Result<std::shared_ptr<const TableDef>> altered = catalog_->AlterTable(schema, table, next);
  if (!altered.ok()) return altered.status();
  return ReopenTable(*altered, 0, nullptr);
}

Status Engine::RenameTables(const std::vector<TableRename>& renames) {
  for (const TableRename& r : renames) {
    if (IsTempTableName(r.to_name)) return MakeError(er::kWrongTableName, r.to_name);
  }
  MutexLock ddl(&ddl_mu_);
  std::vector<std::shared_ptr<const TableDef>> renamed;
  SLUICE_RETURN_IF_ERROR(catalog_->RenameTables(renames, &renamed));
  // The open tables take their final definitions (a table may move twice).
  auto snap = catalog_->snapshot();
  for (const auto& def : renamed) {
    std::shared_ptr<const TableDef> now = snap->FindTableById(def->id);
    if (now == nullptr) return Status::Corruption("engine: renamed table vanished from the catalog");
    SLUICE_RETURN_IF_ERROR(ReopenTable(now, 0, nullptr));
  }
  return Status::OK();
}

Status Engine::RenameTable(std::string_view schema, std::string_view name, std::string_view new_schema,
                           std::string_view new_name) {
  return RenameTables({TableRename{std::string(schema), std::string(name), std::string(new_schema),
                                   std::string(new_name)}});
}

namespace {

// Rows a rebuild inserts per transaction: bounds its undo and locks.
constexpr uint64_t kCopyBatchRows = 1000;

// 1062 names the key '<table>.<index>': a rebuild's copy fails with its
// temporary table's name there, and the user altered `table`.
Status NameTableInDupEntry(Status s, std::string_view temp_name, std::string_view table) {
  if (s.mysql_errno() != er::kDupEntry.code) return s;
  std::string message = s.message();
  const std::string from = fmt::format("'{}.", temp_name);
  const size_t at = message.rfind(from);
  if (at == std::string::npos) return s;
  message.replace(at, from.size(), fmt::format("'{}.", table));
  return Status::MySQL(s.mysql_errno(), s.sqlstate(), std::move(message));
}

}  // namespace

Status Engine::CopyRows(uint64_t from, uint64_t to, const RowConverter& convert, uint64_t* copied) {
  // The reader's view sees every committed row: no transaction uses the
  // table (REQUIRES). The writer commits every kCopyBatchRows rows; on
  // failure the caller drops the whole table, so the rollback only keeps
  // the undo and locks in order.
  std::unique_ptr<EngineTrx> reader = Begin(IsolationLevel::kRepeatableRead);
  std::unique_ptr<EngineTrx> writer = Begin();
  Status failure;
  Status s = Scan(*reader, from, [&](const Row& row) {
    Result<Row> next = convert(row, *copied + 1);
    if (next.ok()) {
      Result<uint64_t> inserted = Insert(*writer, to, std::move(next).value());
      if (!inserted.ok()) failure = inserted.status();
    } else {
      failure = next.status();
    }
    if (!failure.ok()) return false;
    if (++*copied % kCopyBatchRows == 0) {
      failure = Commit(*writer);
      if (!failure.ok()) return false;
      writer = Begin();
    }
    return true;
  });
  if (s.ok()) s = failure;
  if (s.ok()) s = Commit(*writer);
  if (!s.ok() && writer->active()) (void)Rollback(*writer);
  (void)Commit(*reader);
  return s;
}

Result<uint64_t> Engine::RebuildTable(std::string_view schema, std::string_view name, TableDef new_def,
                                      const RowConverter& convert, std::optional<uint64_t> auto_increment) {
  std::shared_ptr<const TableDef> old = FindTable(schema, name);
  if (old == nullptr) return MakeError(er::kNoSuchTable, schema, name);
  Result<std::shared_ptr<TableHandle>> old_handle = FindHandle(old->id);
  if (!old_handle.ok()) return old_handle.status();
  const std::string final_schema = new_def.schema;
  const std::string final_name = new_def.name;
  if (final_schema != old->schema || final_name != old->name) {
    // Checked again by the swap; here so that a doomed rename copies nothing.
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(final_schema, NameKind::kDatabase));
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(final_name, NameKind::kTable));
    if (IsTempTableName(final_name)) return MakeError(er::kWrongTableName, final_name);
    auto snap = catalog_->snapshot();
    if (snap->FindDatabase(final_schema) == nullptr) return MakeError(er::kBadDb, final_schema);
    if (snap->FindTable(final_schema, final_name) != nullptr ||
        snap->FindBrokenTable(final_schema, final_name) != nullptr) {
      return MakeError(er::kTableExists, final_name);
    }
  }

  // 1. The new table, under a temporary name in the old table's database.
  TableDef temp = std::move(new_def);
  temp.schema = old->schema;
  temp.name = fmt::format("{}{}-{}", kTempTablePrefix, old->id, catalog_->snapshot()->next_table_id());
  temp.id = 0;
  temp.space_id = 0;
  temp.next_row_id = 1;
  if (auto_increment) {
    temp.auto_increment_next = *auto_increment;
  } else {
    MutexLock lock(&(*old_handle)->mu);
    temp.auto_increment_next = (*old_handle)->auto_inc_next;
  }
  // The catalog adds the hidden clustered index again when there is no
  // PRIMARY KEY, and numbers the indexes.
  std::erase_if(temp.indexes, [](const IndexDef& i) { return i.kind == IndexKind::kClustered && i.parts.empty(); });
  for (IndexDef& i : temp.indexes) {
    i.id = 0;
    i.root_page = 0;
  }
  Result<std::shared_ptr<const TableDef>> created = [&] {
    MutexLock ddl(&ddl_mu_);
    return CreateTableLocked(std::move(temp));
  }();
  if (!created.ok()) return created.status();
  const std::shared_ptr<const TableDef> tdef = *created;
  // After a failure the temporary table goes (ddl_mu_ held); one that
  // cannot be dropped now is dropped by the next Open.
  auto drop_temp_locked = [&]() REQUIRES(ddl_mu_) {
    Status dropped = DropTableLocked(tdef->schema, tdef->name);
    if (!dropped.ok()) {
      SLUICE_LOG_ERROR(base::GetLogger("InnoDB"), 0,
                       "could not drop table {}.{} of a failed rebuild ({}); the next start-up drops it",
                       tdef->schema, tdef->name, dropped.ToString());
    }
  };
  auto discard = [&](Status failure) -> Status {
    MutexLock ddl(&ddl_mu_);
    drop_temp_locked();
    return failure;
  };

  // 2. The rows.
  uint64_t copied = 0;
  if (convert) {
    Status s = CopyRows(old->id, tdef->id, convert, &copied);
    if (!s.ok()) return discard(NameTableInDupEntry(std::move(s), tdef->name, old->name));
  }

  // 3. Durable before the catalog names it: its counters, and the redo of
  // every copied row (commits may not have waited for it, per durability).
  Result<std::shared_ptr<TableHandle>> th = FindHandle(tdef->id);
  if (!th.ok()) return discard(th.status());
  uint64_t ai;
  {
    MutexLock lock(&(*th)->mu);
    ai = (*th)->auto_inc_next;
  }
  Status s = catalog_->SetCounters(tdef->id, ai, (*th)->next_row_id.load());
  if (s.ok()) s = redo_->FlushUpTo(redo_->current_lsn());
  if (!s.ok()) return discard(s);

  // 4. The swap: one catalog write. Before it the old table is the one
  // named (and Open would drop the temporary one); after it the new one.
  MutexLock ddl(&ddl_mu_);
  uint32_t old_space = 0;
  Result<std::shared_ptr<const TableDef>> swapped =
      catalog_->ReplaceTable(old->schema, old->name, tdef->name, final_schema, final_name, &old_space);
  if (!swapped.ok()) {
    drop_temp_locked();
    return swapped.status();
  }
  {
    WriterMutexLock lock(&tables_mu_);
    tables_.erase(old->id);
  }
  SLUICE_RETURN_IF_ERROR(ReopenTable(*swapped, 0, nullptr));  // the handle takes the final name
  s = RemoveSpace(old_space);
  if (!s.ok()) {
    // The table is replaced; the file no table refers to goes at the next Open.
    SLUICE_LOG_WARNING(base::GetLogger("InnoDB"), 0, "could not remove tablespace {} of {}.{}: {}",
                       SpacePath(old_space), old->schema, old->name, s.ToString());
  }
  return copied;
}

Status Engine::TruncateTable(std::string_view schema, std::string_view name) {
  std::shared_ptr<const TableDef> def = FindTable(schema, name);
  if (def == nullptr) return MakeError(er::kNoSuchTable, schema, name);
  return RebuildTable(schema, name, *def, nullptr, /*auto_increment=*/1).status();
}

Status Engine::RemoveSpace(uint32_t space_id) {
  if (space_id == 0) return Status::OK();  // a broken table whose space is unknown
  Result<std::unique_ptr<Tablespace>> space = pool_->DetachSpace(space_id, /*write_back=*/false);
  if (!space.ok()) {
    // Only a broken table's space can be missing from the pool (it did not
    // open at start): the file, if any, goes all the same.
    Result<bool> exists = fs_->Exists(SpacePath(space_id));
    if (!exists.ok()) return exists.status();
    return *exists ? fs_->Remove(SpacePath(space_id)) : Status::OK();
  }
  space->reset();
  return fs_->Remove(SpacePath(space_id));
}

}  // namespace sluice::storage
