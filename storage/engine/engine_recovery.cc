// Crash recovery at Open (engine.h, "Recovery"): the DDL clean-up, the
// redo scan that rolls unfinished transactions back and resurrects
// prepared ones, and the tables' counters restored after it.
// Split from engine.cc as engine_purge.cc is; runs on the opening thread
// before any other thread uses the engine.
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

using engine_internal::MakeRecord;
using engine_internal::TrxPayload;
using engine_internal::kRedoCommit;
using engine_internal::kRedoMtr;
using engine_internal::kRedoPrepare;
using engine_internal::kRedoRollback;
using engine_internal::kRedoShutdown;
using engine_internal::kRedoTrxIds;
using engine_internal::kRedoUndo;

Status Engine::CleanUpDdl() {
  // CREATE TABLE records the table first and its index roots last (after
  // the redo describing the new trees is durable): a table with a root
  // still 0 is a CREATE the crash interrupted. Drop it.
  // AddIndex records the index first and its root last: a secondary index
  // with root 0 is an unfinished CREATE INDEX. Drop it.
  // A table with a temporary name is a rebuild (ALTER TABLE, TRUNCATE) the
  // crash interrupted before its swap: the old table is still the one
  // named. Drop it.
  auto snap = catalog_->snapshot();
  for (const std::string& db : snap->DatabaseNames()) {
    for (const auto& def : snap->AllTablesIn(db)) {
      if (def->indexes.empty() || def->indexes[0].root_page == 0 || IsTempTableName(def->name)) {
        uint32_t space_id = 0;
        SLUICE_RETURN_IF_ERROR(catalog_->DropTable(def->schema, def->name, &space_id));
        ++recovery_info_.incomplete_ddl;
        continue;
      }
      TableDef next = *def;
      std::erase_if(next.indexes, [](const IndexDef& idx) { return idx.root_page == 0; });
      if (next.indexes.size() == def->indexes.size()) continue;
      if (next.has_hidden_row_id()) next.indexes.erase(next.indexes.begin());  // the catalog adds it
      Result<std::shared_ptr<const TableDef>> altered = catalog_->AlterTable(def->schema, def->name, next);
      if (!altered.ok()) return altered.status();
      ++recovery_info_.incomplete_ddl;
    }
  }
  // Tablespace files no table refers to: a CREATE that failed before its
  // catalog entry, or a DROP that crashed before removing the file.
  std::vector<uint32_t> referenced = catalog_->ReferencedSpaces();
  std::sort(referenced.begin(), referenced.end());
  Result<std::vector<std::string>> names = fs_->List(datadir_);
  if (!names.ok()) return names.status();
  for (const std::string& name : *names) {
    unsigned id = 0;
    char tail = 0;
    if (std::sscanf(name.c_str(), "space_%u.ib%c", &id, &tail) != 2 || tail != 'd' ||
        name != fmt::format("space_{}.ibd", id)) {
      continue;
    }
    if (std::binary_search(referenced.begin(), referenced.end(), id)) continue;
    SLUICE_RETURN_IF_ERROR(fs_->Remove(SpacePath(id)));
    ++recovery_info_.orphan_spaces;
  }
  return Status::OK();
}

struct Engine::RecoveredTrx {
  uint64_t first_lsn = 0;
  bool prepared = false;
  std::string xid;
  std::vector<std::string> undo;  // EncodeUndoRecord bytes, in log order
};

Status Engine::Recover() {
  auto snap = catalog_->snapshot();
  std::vector<std::shared_ptr<const TableDef>> defs;
  std::unordered_set<uint32_t> spaces;
  for (const std::string& db : snap->DatabaseNames()) {
    for (const auto& def : snap->AllTablesIn(db)) {
      SLUICE_RETURN_IF_ERROR(OpenSpace(*def));
      spaces.insert(def->space_id);
      defs.push_back(def);
    }
  }
  // Tables whose definitions do not decode: say which and why, and keep
  // their rows (redo still reaches their pages) until they are dropped.
  for (const BrokenTable& b : snap->broken_tables()) {
    SLUICE_LOG_ERROR(base::GetLogger("InnoDB"), 0,
                     "table '{}.{}' (id {}, space {}) has a definition that cannot be read and cannot be "
                     "used until it is dropped: {}",
                     base::PrintableUtf8(b.schema), base::PrintableUtf8(b.name), b.id, b.space_id, b.reason);
    if (b.space_id == 0 || spaces.count(b.space_id) != 0) continue;
    TableDef stub;
    stub.space_id = b.space_id;
    Status st = OpenSpace(stub);
    if (!st.ok()) {
      SLUICE_LOG_ERROR(base::GetLogger("InnoDB"), 0, "tablespace {} of the unreadable table '{}.{}': {}",
                       b.space_id, base::PrintableUtf8(b.schema), base::PrintableUtf8(b.name), st.ToString());
      continue;
    }
    spaces.insert(b.space_id);
  }

  // 1. Redo: page diffs go to their pages; transaction records tell which
  // transactions were still open at the crash.
  std::map<TrxId, RecoveredTrx> open;
  TrxId max_id = kNoTrxId;
  auto space_known = [&spaces](uint32_t id) { return spaces.count(id) != 0; };
  uint8_t last_type = 0;
  auto on_record = [&](const RedoLog::Record& r) -> Status {
    last_type = r.type;
    if (r.type == kRedoMtr) {
      ++recovery_info_.records_applied;
      return pool_->ApplyRedo(r.payload, r.end_lsn, space_known);
    }
    if (r.payload.size() < 8) return Status::Corruption("engine: short redo record");
    const uint64_t v = LoadU64(r.payload.data());
    switch (r.type) {
      case kRedoTrxIds:
      case kRedoShutdown:
        if (v > 0) max_id = std::max(max_id, v - 1);
        return Status::OK();
      case kRedoUndo: {
        if (r.payload.size() < 16) return Status::Corruption("engine: short undo redo record");
        RecoveredTrx& t = open[v];
        if (t.first_lsn == 0) t.first_lsn = r.start_lsn;
        t.undo.emplace_back(r.payload.substr(16));
        break;
      }
      case kRedoCommit:
      case kRedoRollback:
        open.erase(v);
        break;
      case kRedoPrepare: {
        RecoveredTrx& t = open[v];
        if (t.first_lsn == 0) t.first_lsn = r.start_lsn;
        t.prepared = true;
        t.xid.assign(r.payload.substr(8));
        break;
      }
      default:
        return Status::Corruption(fmt::format("engine: unknown redo record type {} at LSN {}", r.type, r.start_lsn));
    }
    max_id = std::max(max_id, v);
    return Status::OK();
  };
  RedoLog::Options ro;
  ro.flush_interval = options_.log_flush_interval;
  Result<std::unique_ptr<RedoLog>> redo = RedoLog::Open(fs_, datadir_, ro, on_record);
  if (!redo.ok()) return redo.status();
  redo_ = std::move(redo).value();
  recovery_info_.checkpoint_lsn = redo_->checkpoint_lsn();
  recovery_info_.end_lsn = redo_->current_lsn();
  // After a clean Close the shutdown record is the last one: nothing to
  // redo or roll back, nothing left to purge, nothing to checkpoint. (An
  // empty log is a new datadir.)
  const bool clean = last_type == kRedoShutdown || redo_->current_lsn() == 0;
  {
    // Purge work left at a crash is lost with the in-memory undo: sweep.
    MutexLock lock(&purge_mu_);
    sweep_pending_ = !clean;
  }

  // 2. The trees (their roots may have come back only through the redo).
  for (const auto& def : defs) {
    SLUICE_RETURN_IF_ERROR(OpenTable(def));
    Result<std::shared_ptr<TableHandle>> t = FindHandle(def->id);
    if (!t.ok()) return t.status();
    SLUICE_RETURN_IF_ERROR(RestoreCounters(**t));
  }
  TrxSys::Options tso;
  tso.first_id = max_id + 1;
  trx_sys_ = std::make_unique<TrxSys>(tso);

  // 3. Unfinished transactions: roll back, or keep prepared.
  for (auto& [id, rt] : open) {
    if (rt.prepared) {
      SLUICE_RETURN_IF_ERROR(ResurrectPrepared(id, rt));
      ++recovery_info_.prepared;
      continue;
    }
    for (auto it = rt.undo.rbegin(); it != rt.undo.rend(); ++it) {
      Result<UndoRecord> rec = DecodeUndoRecord(*it);
      if (!rec.ok()) return rec.status();
      SLUICE_RETURN_IF_ERROR(RecoveryUndo(id, *rec));
      ++recovery_info_.undo_applied;
    }
    Result<uint64_t> end = redo_->Append(TrxPayload(id), kRedoRollback);
    if (!end.ok()) return end.status();
    ++recovery_info_.rolled_back;
  }
  if (clean) {
    MutexLock lock(&ddl_mu_);  // nobody else yet; for the analysis
    quiet_lsn_ = redo_->current_lsn();
    return Status::OK();
  }
  return Checkpoint();
}

Status Engine::ResurrectPrepared(TrxId id, RecoveredTrx& rt) {
  std::unique_ptr<EngineTrx> et(
      new EngineTrx(this, *trx_sys_, IsolationLevel::kRepeatableRead, locks_->CreateTrx(0)));
  trx_sys_->Recover(et->trx_, id);
  et->lock_trx_->set_id(id);
  Result<std::unique_ptr<UndoLog>> log = undo_store_->CreateLog(id);
  if (!log.ok()) return log.status();
  et->undo_ = std::move(log).value();
  // The roll pointers stored in the records and in the undo chain pointed
  // into the crashed process's undo store. Rebuild the chain: the newest
  // undo record of a row is what the row's current version points to, and
  // each record's predecessor (by this transaction, same row) is what its
  // prev_roll_ptr points to.
  std::map<std::pair<uint64_t, std::string>, RollPtr> newest;
  for (const std::string& bytes : rt.undo) {
    Result<UndoRecord> rec = DecodeUndoRecord(bytes);
    if (!rec.ok()) return rec.status();
    const auto row = std::make_pair(rec->table_id, rec->primary_key);
    auto prev = newest.find(row);
    if (rec->prev_trx_id == id && prev != newest.end()) rec->prev_roll_ptr = prev->second;
    rec->undo_no = et->undo_->position();
    Result<RollPtr> rp = et->undo_->Append(std::move(rec).value());
    if (!rp.ok()) return rp.status();
    newest[row] = *rp;
  }
  for (const auto& [row, rp] : newest) {
    Result<std::shared_ptr<TableHandle>> t = FindHandle(row.first);
    if (!t.ok()) return t.status();
    SLUICE_RETURN_IF_ERROR(locks_->LockTable(*et->lock_trx_, row.first, LockMode::kIX, std::nullopt));
    SLUICE_RETURN_IF_ERROR(LockKey(*et, **t, row.second));
    Result<std::optional<StoredRecord>> cur = ReadLatest(**t, row.second);
    if (!cur.ok()) return cur.status();
    if (!cur->has_value() || (*cur)->trx_id != id) continue;
    Result<bool> fixed =
        (*t)->clustered->Update(row.second, MakeRecord(id, rp, (*cur)->delete_marked, (*cur)->external, (*cur)->row));
    if (!fixed.ok()) return fixed.status();
  }
  et->first_lsn_ = rt.first_lsn;
  et->prepared_ = true;
  et->recovered_ = true;
  et->xid_ = rt.xid;
  {
    MutexLock lock(&active_mu_);
    active_first_lsn_[id] = rt.first_lsn;
  }
  MutexLock lock(&xa_mu_);
  xids_in_use_[rt.xid] = id;
  recovered_prepared_[rt.xid] = std::move(et);
  return Status::OK();
}

Status Engine::RecoveryUndo(TrxId trx_id, const UndoRecord& rec) {
  Result<std::shared_ptr<TableHandle>> th = FindHandle(rec.table_id);
  if (!th.ok()) return Status::OK();  // the table is gone
  TableHandle& t = **th;
  const TableDef& def = *t.def;
  Result<std::optional<StoredRecord>> cur = ReadLatest(t, rec.primary_key);
  if (!cur.ok()) return cur.status();
  // Not this transaction's version: the change never reached the tree (or
  // a statement rollback already undid it).
  if (!cur->has_value() || (*cur)->trx_id != trx_id) return Status::OK();
  Result<Row> cur_row = DecodeStored(t, **cur);
  if (!cur_row.ok()) return cur_row.status();
  std::optional<Row> restored;
  if (rec.type != UndoType::kInsert) {
    std::string before_row;
    bool before_external = false;
    SLUICE_RETURN_IF_ERROR(engine_internal::BeforeRow(rec, &before_row, &before_external));
    Result<Row> before = DecodeStored(t, before_row, before_external);
    if (!before.ok()) return before.status();
    restored = std::move(before).value();
  }
  SLUICE_RETURN_IF_ERROR(UndoRecordChange(t, rec, *cur));
  // Secondary entries: which ones this change added is not logged, so the
  // entry of the undone version goes when the restored version does not
  // have it, and the restored version's entry is (re)made. After a crash no
  // read view needs any older entry.
  for (size_t i = 1; i < def.indexes.size(); ++i) {
    BTree* tree = t.secondary[i - 1].get();
    if (tree == nullptr) continue;
    Result<std::string> undone = EncodeIndexKey(def, def.indexes[i], *cur_row);
    if (!undone.ok()) return undone.status();
    std::string undone_entry = *undone + rec.primary_key;
    std::string kept_entry;
    if (restored) {
      Result<std::string> k = EncodeIndexKey(def, def.indexes[i], *restored);
      if (!k.ok()) return k.status();
      kept_entry = *k + rec.primary_key;
    }
    if (undone_entry != kept_entry) {
      Result<bool> gone = tree->Delete(undone_entry);
      if (!gone.ok()) return gone.status();
    }
    if (restored) {
      Result<bool> added = tree->Upsert(kept_entry, "");
      if (!added.ok()) return added.status();
    }
  }
  return Status::OK();
}

Status Engine::RestoreCounters(TableHandle& t) {
  const TableDef& def = *t.def;
  if (def.has_hidden_row_id()) {
    BTree::Cursor c = t.clustered->NewCursor();
    SLUICE_RETURN_IF_ERROR(c.SeekToLast());
    if (c.Valid()) {
      KeyDecoder dec(c.key());
      Result<uint64_t> id = dec.RowId();
      if (!id.ok()) return id.status();
      if (*id + 1 > t.next_row_id.load()) t.next_row_id.store(*id + 1);
    }
  }
  if (t.auto_inc_column < 0) return Status::OK();
  // MySQL requires an index that starts with the AUTO_INCREMENT column;
  // its largest key is at least the largest value used.
  for (size_t i = 0; i < def.indexes.size(); ++i) {
    const IndexDef& idx = def.indexes[i];
    if (idx.parts.empty() || idx.parts[0].column != static_cast<uint32_t>(t.auto_inc_column)) continue;
    BTree* tree = i == 0 ? t.clustered.get() : t.secondary[i - 1].get();
    if (tree == nullptr) continue;
    BTree::Cursor c = tree->NewCursor();
    SLUICE_RETURN_IF_ERROR(c.SeekToLast());
    if (!c.Valid()) return Status::OK();
    Result<std::optional<int64_t>> v = DecodeLeadingIntKeyPart(def.columns[t.auto_inc_column], c.key());
    if (!v.ok()) return v.status();
    if (v->has_value() && **v > 0) {
      MutexLock lock(&t.mu);
      t.auto_inc_next = std::max<uint64_t>(t.auto_inc_next, static_cast<uint64_t>(**v) + 1);
    }
    return Status::OK();
  }
  return Status::OK();
}

}  // namespace sluice::storage
