// Purge: removes the delete-marked records and stale secondary entries no
// read view needs any more (engine.h, "Purge").
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <utility>

#include <boost/container/small_vector.hpp>

#include "storage/engine/engine.h"
#include "storage/engine/engine_internal.h"

namespace sluice::storage {

using engine_internal::ParseRecord;

engine_internal::SyncPoints engine_internal::sync_points;

namespace {
// Work items per hold of ddl_mu_ (DDL and checkpoints wait for a hold).
constexpr size_t kItemsPerHold = 64;
// Records the sweep reads per hold of ddl_mu_.
constexpr size_t kSweepRecordsPerHold = 256;
// A version chain longer than this is kept whole (no entry removed): a
// guard against a corrupt chain, far past any real one.
constexpr int kMaxChainHops = 1 << 20;
}  // namespace

Status Engine::Purge() { return PurgePass(/*sweep=*/true); }

Engine::PurgeStats Engine::purge_stats() const {
  MutexLock lock(&purge_mu_);
  PurgeStats s = purge_stats_;
  s.waiting = purge_waiting_.size();
  s.sweep_pending = sweep_pending_;
  MutexLock qlock(&purge_queue_mu_);
  s.undo_logs_freed = undo_logs_freed_;
  s.waiting += purge_queue_.size();
  return s;
}

Result<bool> Engine::FreeUndo() {
  std::vector<UndoStore::PurgedLog> logs;
  Result<size_t> freed = undo_store_->Purge(trx_sys_->PurgeLimit(), &logs);
  std::vector<PurgeItem> items;
  for (UndoStore::PurgedLog& log : logs) {
    for (UndoRecord& rec : log.records) {
      // An update or a delete leaves the row before it (its one whole-row
      // before-image); the store leaves inserts out.
      std::string before;
      bool before_external = false;
      if (!engine_internal::BeforeRow(rec, &before, &before_external).ok()) continue;
      PurgeItem item;
      item.table_id = rec.table_id;
      item.key = std::move(rec.primary_key);
      item.trx = log.trx;
      item.delete_mark = rec.type == UndoType::kDeleteMark;
      item.before_row = std::move(before);
      item.before_external = before_external;
      items.push_back(std::move(item));
    }
  }
  MutexLock lock(&purge_queue_mu_);
  if (freed.ok()) undo_logs_freed_ += *freed;
  const bool queued = !items.empty();
  if (purge_queue_.empty()) {
    purge_queue_ = std::move(items);
  } else {
    std::move(items.begin(), items.end(), std::back_inserter(purge_queue_));
  }
  if (!freed.ok()) return freed.status();
  return queued;
}

Status Engine::PurgePass(bool sweep) {
  MutexLock lock(&purge_mu_);
  // Older work first: rows left waiting, then the sweep, then what the
  // undo freed since (by the session threads, and now).
  std::vector<PurgeItem> work;
  work.swap(purge_waiting_);
  Status status;
  if (sweep && sweep_pending_) {
    status = Sweep(&work);
    if (status.ok()) sweep_pending_ = false;
  }
  Result<bool> freed = FreeUndo();
  if (!freed.ok() && status.ok()) status = freed.status();
  {
    MutexLock qlock(&purge_queue_mu_);
    std::move(purge_queue_.begin(), purge_queue_.end(), std::back_inserter(work));
    purge_queue_.clear();
  }
  // Read after the logs went: every view open now or later sees every
  // transaction committed below it (and every one whose log is gone).
  const TrxId limit = trx_sys_->PurgeLimit();
  for (size_t i = 0; i < work.size();) {
    MutexLock ddl(&ddl_mu_);  // the table cannot be dropped meanwhile
    for (const size_t end = std::min(i + kItemsPerHold, work.size()); i < end; ++i) {
      PurgeItem& item = work[i];
      Result<std::shared_ptr<TableHandle>> th = FindHandle(item.table_id);
      if (!th.ok()) continue;  // dropped: nothing left to purge
      TableHandle& t = **th;
      Result<PurgeOutcome> outcome = PurgeOutcome::kLater;
      Result<PurgeCandidates> candidates = PurgeEntries(t, item);
      if (!candidates.ok()) {
        if (status.ok()) status = candidates.status();
        continue;
      }
      bool ran = true;
      if (!PurgeNeedsLocks(*t.def, item)) {
        // Purged now, not retried every pass while the row's next writers
        // hold it.
        outcome = PurgeRow(t, item, limit, *candidates);
      } else {
        boost::container::small_vector<RecordId, 8> ids{RowLockId(t, item.key)};
        for (const auto* keys : {&candidates->latest, &candidates->older}) {
          for (const auto& [i, ikey] : *keys) ids.push_back(EntryLockId(t, i, ikey + item.key));
        }
        // RunIfUnlocked calls fn on this thread before it returns: purge_mu_ is held.
        const std::span<const RecordId> records(ids.data(), ids.size());
        ran = locks_->RunIfUnlocked(records,
                                    [&]() REQUIRES(purge_mu_) { outcome = PurgeRow(t, item, limit, *candidates); });
      }
      for (const std::string& ref : chains_to_free_) {
        Status freed_chain = FreeStored(t, ref, /*external=*/true);
        if (freed_chain.ok()) {
          ++purge_stats_.chains_freed;
        } else if (status.ok()) {
          status = freed_chain;
        }
      }
      chains_to_free_.clear();
      if (!outcome.ok()) {
        if (status.ok()) status = outcome.status();
        continue;
      }
      if (!ran || *outcome == PurgeOutcome::kLater) purge_waiting_.push_back(std::move(item));
    }
  }
  ++purge_stats_.passes;
  return status;
}

namespace {
// The keys of `row` in every secondary index, appended to `out`.
Status AppendIndexKeys(const TableDef& def, const Row& row, std::vector<std::pair<size_t, std::string>>* out) {
  for (size_t i = 1; i < def.indexes.size(); ++i) {
    Result<std::string> k = EncodeIndexKey(def, def.indexes[i], row);
    if (!k.ok()) return k.status();
    out->emplace_back(i, std::move(k).value());
  }
  return Status::OK();
}
}  // namespace

Result<Engine::PurgeCandidates> Engine::PurgeEntries(const TableHandle& t, const PurgeItem& item) const {
  const TableDef& def = *t.def;
  PurgeCandidates c;
  if (def.indexes.size() <= 1) return c;
  if (item.delete_mark) {
    Result<std::optional<StoredRecord>> cur = ReadLatest(t, item.key);
    if (!cur.ok()) return cur.status();
    if (cur->has_value() && (*cur)->delete_marked) {
      Result<Row> row = DecodeStored(t, **cur);
      if (!row.ok()) return row.status();
      SLUICE_RETURN_IF_ERROR(AppendIndexKeys(def, *row, &c.latest));
    }
  }
  if (item.index_id != 0) {
    for (size_t i = 1; i < def.indexes.size(); ++i) {
      if (def.indexes[i].id == item.index_id) c.older.emplace_back(i, item.index_key);
    }
    return c;
  }
  Result<Row> before = DecodeStored(t, item.before_row, item.before_external);
  if (!before.ok()) {
    c.older_status = before.status();
    return c;
  }
  SLUICE_RETURN_IF_ERROR(AppendIndexKeys(def, *before, &c.older));
  return c;
}

Result<Engine::PurgeOutcome> Engine::PurgeRow(TableHandle& t, const PurgeItem& item, TrxId limit,
                                              const PurgeCandidates& c) {
  const TableDef& def = *t.def;
  // The version an update replaced owned its overflow chain (engine.h,
  // "Off-page rows"); no view builds it any more: its writer's log is gone.
  const bool frees_chain = !item.delete_mark && item.before_external;
  // An update of a table without secondary indexes leaves nothing else.
  if (!PurgeNeedsLocks(def, item)) {
    if (frees_chain) FreeChain(item.before_row);
    return PurgeOutcome::kDone;
  }
  Result<std::optional<StoredRecord>> cur = ReadLatest(t, item.key);
  if (!cur.ok()) return cur.status();
  if (item.delete_mark && cur->has_value() && (*cur)->delete_marked && (*cur)->trx_id == item.trx) {
    // Still the record this delete left. Once every view sees the delete,
    // no view can build any version of the row: it goes, with every entry
    // of its keys (older versions' other keys went with their own changes)
    // and its chain.
    if (!undo_store_->SeenByAll(item.trx, limit)) return PurgeOutcome::kLater;
    Result<Row> row = DecodeStored(t, **cur);
    if (!row.ok()) return row.status();
    std::vector<IndexKey> keys;
    SLUICE_RETURN_IF_ERROR(AppendIndexKeys(def, *row, &keys));
    // Locked were the keys PurgeEntries read; the row may have changed since.
    if (keys != c.latest) return PurgeOutcome::kLater;
    for (const auto& [i, ikey] : keys) {
      if (t.secondary[i - 1] == nullptr) continue;
      Result<bool> gone = t.secondary[i - 1]->Delete(ikey + item.key);
      if (!gone.ok()) return gone.status();
      purge_stats_.entries_removed += *gone ? 1 : 0;
    }
    Result<bool> gone = t.clustered->Delete(item.key);
    if (!gone.ok()) return gone.status();
    purge_stats_.rows_removed += *gone ? 1 : 0;
    if ((*cur)->external) FreeChain((*cur)->row);
    return PurgeOutcome::kDone;
  }
  // The row changed since (or this was an update): the older version's
  // entries go unless a version some view may build still has the key.
  // They are the ones locked: they come from the item, not the row.
  if (!c.older_status.ok()) {
    // A deleted row's chain, freed already by the purge of the insert
    // that reused its key: that item had the same row, so the same keys,
    // and took care of them.
    if (item.delete_mark && item.before_external && c.older_status.code() == Status::Code::kCorruption) {
      return PurgeOutcome::kDone;
    }
    return c.older_status;
  }
  for (const auto& [i, ikey] : c.older) {
    if (t.secondary[i - 1] == nullptr) continue;
    Result<bool> needed = EntryNeeded(t, *cur, i, ikey, limit);
    if (!needed.ok()) return needed.status();
    if (*needed) continue;
    Result<bool> gone = t.secondary[i - 1]->Delete(ikey + item.key);
    if (!gone.ok()) return gone.status();
    purge_stats_.entries_removed += *gone ? 1 : 0;
  }
  if (frees_chain) FreeChain(item.before_row);
  return PurgeOutcome::kDone;
}

void Engine::FreeChain(std::string_view ref) {
  // Freed by PurgePass once RunIfUnlocked has returned: a long chain's
  // pages are not walked while the lock manager's shard is held.
  chains_to_free_.emplace_back(ref);
}

Result<bool> Engine::EntryNeeded(const TableHandle& t, const std::optional<StoredRecord>& cur, size_t index,
                                 std::string_view ikey, TrxId limit) const {
  if (!cur.has_value()) return false;
  const TableDef& def = *t.def;
  TrxId trx_id = cur->trx_id;
  RollPtr roll_ptr = cur->roll_ptr;
  bool delete_marked = cur->delete_marked;
  std::string row = cur->row;
  bool external = cur->external;
  for (int hop = 0; hop < kMaxChainHops; ++hop) {
    // A version every view sees is the oldest any view builds; if it is a
    // delete, no view builds any.
    const bool seen_by_all = undo_store_->SeenByAll(trx_id, limit);
    if (seen_by_all && delete_marked) return false;
    Result<Row> decoded = DecodeStored(t, row, external);
    if (!decoded.ok()) return decoded.status();
    Result<std::string> k = EncodeIndexKey(def, def.indexes[index], *decoded);
    if (!k.ok()) return k.status();
    if (*k == ikey) return true;
    if (seen_by_all || roll_ptr.is_null() || roll_ptr.is_insert()) return false;
    // Its writer was not seen by all just now, so its undo was in the
    // store; but session threads free undo too (MaybePurge -> FreeUndo),
    // under a purge limit newer than `limit`, and the log may have gone
    // since. The store frees a log only once every view, open now or later,
    // sees its writer: this version is then the oldest any view builds, and
    // it does not have the key (checked above). SeenByAll says so for a log
    // that is gone; any other failed Fetch is a real error.
    if (engine_internal::sync_points.purge_before_undo_fetch) engine_internal::sync_points.purge_before_undo_fetch();
    Result<UndoRecord> rec = undo_store_->Fetch(roll_ptr);
    if (!rec.ok()) {
      if (undo_store_->SeenByAll(trx_id, limit)) return false;
      return rec.status();
    }
    SLUICE_RETURN_IF_ERROR(engine_internal::BeforeRow(*rec, &row, &external));
    trx_id = rec->prev_trx_id;
    roll_ptr = rec->prev_roll_ptr;
    delete_marked = rec->prev_delete_marked;
  }
  return true;
}

Status Engine::Sweep(std::vector<PurgeItem>* items) {
  std::vector<std::shared_ptr<TableHandle>> handles;
  {
    ReaderMutexLock lock(&tables_mu_);
    for (const auto& [id, t] : tables_) handles.push_back(t);
  }
  // Walks `tree` in chunks, each under ddl_mu_ (and only while the table
  // still exists), calling visit(key, value) for every record.
  auto walk = [this](const TableHandle& t, BTree& tree,
                     const std::function<Status(std::string_view, std::string_view)>& visit) -> Status {
    std::optional<std::string> after;
    for (;;) {
      MutexLock ddl(&ddl_mu_);
      if (!FindHandle(t.def->id).ok()) return Status::OK();  // dropped meanwhile
      BTree::Cursor c = tree.NewCursor();
      SLUICE_RETURN_IF_ERROR(after ? c.Seek(*after) : c.SeekToFirst());
      if (after && c.Valid() && c.key() == *after) SLUICE_RETURN_IF_ERROR(c.Next());
      for (size_t n = 0; n < kSweepRecordsPerHold; ++n) {
        if (!c.Valid()) return Status::OK();
        SLUICE_RETURN_IF_ERROR(visit(c.key(), c.value()));
        after = std::string(c.key());
        SLUICE_RETURN_IF_ERROR(c.Next());
      }
    }
  };
  for (const auto& th : handles) {
    const TableHandle& t = *th;
    const TableDef& def = *t.def;
    SLUICE_RETURN_IF_ERROR(walk(t, *t.clustered, [&](std::string_view key, std::string_view value) -> Status {
      Result<StoredRecord> r = ParseRecord(value);
      if (!r.ok()) return r.status();
      if (!r->delete_marked) return Status::OK();
      PurgeItem item;
      item.table_id = def.id;
      item.key = std::string(key);
      item.trx = r->trx_id;
      item.delete_mark = true;
      item.before_row = std::move(r->row);
      item.before_external = r->external;
      items->push_back(std::move(item));
      return Status::OK();
    }));
    for (size_t i = 1; i < def.indexes.size(); ++i) {
      BTree* tree = t.secondary[i - 1].get();
      if (tree == nullptr) continue;
      SLUICE_RETURN_IF_ERROR(walk(t, *tree, [&](std::string_view entry, std::string_view) -> Status {
        Result<size_t> n = IndexKeyLength(def, def.indexes[i], entry);
        if (!n.ok()) return n.status();
        const std::string_view ikey = entry.substr(0, *n);
        const std::string_view pk = entry.substr(*n);
        Result<std::optional<StoredRecord>> cur = ReadLatest(t, pk);
        if (!cur.ok()) return cur.status();
        if (cur->has_value() && !(*cur)->delete_marked) {
          Result<Row> row = DecodeStored(t, **cur);
          if (!row.ok()) return row.status();
          Result<std::string> k = EncodeIndexKey(def, def.indexes[i], *row);
          if (!k.ok()) return k.status();
          if (*k == ikey) return Status::OK();  // the latest row's own entry
        }
        PurgeItem item;
        item.table_id = def.id;
        item.key = std::string(pk);
        item.index_id = def.indexes[i].id;
        item.index_key = std::string(ikey);
        items->push_back(std::move(item));
        return Status::OK();
      }));
    }
  }
  return Status::OK();
}

}  // namespace sluice::storage
