#include "storage/engine/engine.h"

#include <fmt/format.h>

#include <atomic>
#include <cctype>
#include <utility>

#include "base/mysql_error.h"
#include "storage/btree/key_codec.h"
#include "storage/buffer/tablespace.h"
#include "storage/trx/version_chain.h"

namespace sluice::storage {

namespace {

constexpr size_t kTrxIdBytes = 6;
constexpr size_t kRollPtrBytes = 8;
constexpr size_t kRecordHeaderBytes = kTrxIdBytes + kRollPtrBytes + 1;
// A consistent read can lose a race with a concurrent rollback that drops
// the undo record it was about to follow; it re-reads the record this many
// times.
constexpr int kReadRetries = 8;

void PutBigEndian(uint64_t v, size_t n, std::string* out) {
  for (size_t i = 0; i < n; ++i) out->push_back(static_cast<char>(v >> (8 * (n - 1 - i))));
}

uint64_t GetBigEndian(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::string MakeRecord(TrxId trx_id, RollPtr roll_ptr, bool delete_marked, std::string_view row) {
  std::string out;
  out.reserve(kRecordHeaderBytes + row.size());
  PutBigEndian(trx_id, kTrxIdBytes, &out);
  PutBigEndian(roll_ptr.raw(), kRollPtrBytes, &out);
  out.push_back(delete_marked ? 1 : 0);
  out.append(row);
  return out;
}

// FNV-1a over the space id and the key.
uint64_t HashKey(uint32_t space_id, std::string_view key) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (int i = 0; i < 4; ++i) mix(static_cast<unsigned char>(space_id >> (8 * i)));
  for (char c : key) mix(static_cast<unsigned char>(c));
  return h;
}

std::string ValueText(const RowValue& v) {
  if (std::holds_alternative<int64_t>(v)) return std::to_string(std::get<int64_t>(v));
  if (std::holds_alternative<uint64_t>(v)) return std::to_string(std::get<uint64_t>(v));
  if (std::holds_alternative<double>(v)) return fmt::format("{}", std::get<double>(v));
  if (std::holds_alternative<std::string>(v)) return std::get<std::string>(v);
  return "NULL";
}

bool KeyHasNull(const IndexDef& idx, const Row& row) {
  for (const KeyPart& p : idx.parts) {
    if (IsNull(row[p.column])) return true;
  }
  return false;
}

std::string KeyText(const IndexDef& idx, const Row& row) {
  std::string text;
  for (const KeyPart& p : idx.parts) {
    if (!text.empty()) text += "-";
    text += ValueText(row[p.column]);
  }
  return text;
}

// The pseudo-record locked for a UNIQUE secondary value.
std::string UniqueLockKey(const IndexDef& idx, std::string_view ikey) {
  std::string k("\xff\xffU", 3);
  PutBigEndian(idx.id, 8, &k);
  k.append(ikey);
  return k;
}

bool IsZeroOrNull(const RowValue& v) {
  if (IsNull(v)) return true;
  if (std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v) == 0;
  if (std::holds_alternative<uint64_t>(v)) return std::get<uint64_t>(v) == 0;
  return false;
}

}  // namespace

namespace engine_internal {
struct StoredRecord {
  TrxId trx_id = kNoTrxId;
  RollPtr roll_ptr;
  bool delete_marked = false;
  std::string row;
};
}  // namespace engine_internal

struct Engine::TableHandle {
  std::shared_ptr<const TableDef> def;
  std::unique_ptr<BTree> clustered;
  // secondary[i] is the tree of def->indexes[i + 1]; null when not built.
  std::vector<std::unique_ptr<BTree>> secondary;
  int auto_inc_column = -1;
  std::mutex mu;
  uint64_t auto_inc_next = 1;  // GUARDED_BY(mu)
  std::atomic<uint64_t> next_row_id{1};
};

namespace {

Result<engine_internal::StoredRecord> ParseRecord(std::string_view v) {
  if (v.size() < kRecordHeaderBytes) return Status::Corruption("engine: clustered record too short");
  engine_internal::StoredRecord r;
  r.trx_id = GetBigEndian(v.data(), kTrxIdBytes);
  r.roll_ptr = RollPtr(GetBigEndian(v.data() + kTrxIdBytes, kRollPtrBytes));
  const char dm = v[kTrxIdBytes + kRollPtrBytes];
  if (dm != 0 && dm != 1) return Status::Corruption("engine: bad delete mark");
  r.delete_marked = dm == 1;
  r.row.assign(v.substr(kRecordHeaderBytes));
  return r;
}

}  // namespace

// Undo access for BuildVisibleVersion: whole-row before-images (column 0).
class Engine::Accessor final : public VersionAccessor {
 public:
  explicit Accessor(const UndoStore* store) : store_(store) {}
  Result<UndoRecord> FetchUndo(RollPtr roll_ptr) override { return store_->Fetch(roll_ptr); }
  Status ApplyBeforeImage(const UndoRecord& rec, std::string* row) override {
    if (rec.before_image.size() != 1 || rec.before_image[0].column_id != 0 || !rec.before_image[0].before) {
      return Status::Corruption("engine: undo record without a whole-row before-image");
    }
    *row = *rec.before_image[0].before;
    return Status::OK();
  }

 private:
  const UndoStore* store_;
};

EngineTrx::~EngineTrx() {
  if (trx_ && active()) (void)engine_->Rollback(*this);
}

Engine::Engine(FileSystem* fs, std::string datadir) : fs_(fs), datadir_(std::move(datadir)) {}

Engine::~Engine() {
  tables_.clear();  // trees before the pool
}

std::string Engine::SpacePath(uint32_t space_id) const {
  return fmt::format("{}/space_{}.ibd", datadir_, space_id);
}

Result<std::unique_ptr<Engine>> Engine::Open(FileSystem* fs, std::string datadir, Options options) {
  SLUICE_RETURN_IF_ERROR(fs->CreateDir(datadir));
  std::unique_ptr<Engine> e(new Engine(fs, datadir));
  Result<std::unique_ptr<Catalog>> catalog = Catalog::Open(fs, datadir);
  if (!catalog.ok()) return catalog.status();
  e->catalog_ = std::move(catalog).value();
  BufferPool::Options bpo;
  bpo.pool_size_bytes = options.buffer_pool_bytes;
  e->pool_ = std::make_unique<BufferPool>(std::move(bpo));
  e->undo_store_ = std::make_unique<MemUndoStore>();
  if (options.lock_manager != nullptr) {
    e->locks_ = options.lock_manager;
  } else {
    e->owned_locks_ = std::make_unique<LockManager>();
    e->locks_ = e->owned_locks_.get();
  }

  // Open every table; find the largest trx id on disk so new ids (and read
  // views) order after every stored version (all committed: clean close).
  TrxId max_trx = kNoTrxId;
  auto snap = e->catalog_->snapshot();
  for (const std::string& db : snap->DatabaseNames()) {
    for (const auto& def : snap->TablesIn(db)) {
      SLUICE_RETURN_IF_ERROR(e->OpenTable(def));
      Result<std::shared_ptr<TableHandle>> t = e->FindHandle(def->id);
      if (!t.ok()) return t.status();
      BTree::Cursor c = (*t)->clustered->NewCursor();
      SLUICE_RETURN_IF_ERROR(c.SeekToFirst());
      std::string last_key;
      while (c.Valid()) {
        Result<StoredRecord> r = ParseRecord(c.value());
        if (!r.ok()) return r.status();
        max_trx = std::max(max_trx, r->trx_id);
        last_key.assign(c.key());
        SLUICE_RETURN_IF_ERROR(c.Next());
      }
      if (def->has_hidden_row_id() && !last_key.empty()) {
        KeyDecoder dec(last_key);
        Result<uint64_t> id = dec.RowId();
        if (!id.ok()) return id.status();
        if (*id + 1 > (*t)->next_row_id.load()) (*t)->next_row_id.store(*id + 1);
      }
    }
  }
  TrxSys::Options tso;
  tso.first_id = max_trx + 1;
  e->trx_sys_ = std::make_unique<TrxSys>(tso);
  return e;
}

Status Engine::OpenTable(std::shared_ptr<const TableDef> def) {
  auto t = std::make_shared<TableHandle>();
  t->def = def;
  t->auto_inc_next = std::max<uint64_t>(def->auto_increment_next, 1);
  t->next_row_id.store(std::max<uint64_t>(def->next_row_id, 1));
  for (const ColumnDef& c : def->columns) {
    if (c.auto_increment) t->auto_inc_column = static_cast<int>(c.ordinal);
  }
  if (pool_ != nullptr && !t->clustered) {
    Result<std::unique_ptr<Tablespace>> space = Tablespace::Open(fs_, SpacePath(def->space_id));
    if (!space.ok()) return space.status();
    SLUICE_RETURN_IF_ERROR(pool_->AddSpace(std::move(space).value()));
    for (size_t i = 0; i < def->indexes.size(); ++i) {
      const IndexDef& idx = def->indexes[i];
      if (idx.root_page == 0) {
        if (i == 0) return Status::Corruption("engine: table " + def->name + " has no clustered root");
        t->secondary.push_back(nullptr);
        continue;
      }
      BTreeOptions bo;
      bo.index_name = def->name + "." + idx.name;
      Result<std::unique_ptr<BTree>> tree = BTree::Open(pool_.get(), def->space_id, idx.root_page, bo);
      if (!tree.ok()) return tree.status();
      if (i == 0) {
        t->clustered = std::move(tree).value();
      } else {
        t->secondary.push_back(std::move(tree).value());
      }
    }
  }
  std::unique_lock lock(tables_mu_);
  tables_[def->id] = std::move(t);
  return Status::OK();
}

Result<std::shared_ptr<Engine::TableHandle>> Engine::FindHandle(uint64_t table_id) const {
  std::shared_lock lock(tables_mu_);
  auto it = tables_.find(table_id);
  if (it == tables_.end()) return Status::InvalidArgument(fmt::format("engine: unknown table id {}", table_id));
  return it->second;
}

Status Engine::Close() {
  if (closed_) return Status::OK();
  std::vector<std::shared_ptr<TableHandle>> handles;
  {
    std::shared_lock lock(tables_mu_);
    for (auto& [id, t] : tables_) handles.push_back(t);
  }
  for (auto& t : handles) {
    uint64_t ai;
    {
      std::lock_guard lock(t->mu);
      ai = t->auto_inc_next;
    }
    SLUICE_RETURN_IF_ERROR(catalog_->SetCounters(t->def->id, ai, t->next_row_id.load()));
  }
  SLUICE_RETURN_IF_ERROR(pool_->FlushAll());
  closed_ = true;
  return Status::OK();
}

// --- DDL ---

Status Engine::CreateDatabase(const DatabaseDef& db) {
  return catalog_->CreateDatabase(db);
}

Result<std::shared_ptr<const TableDef>> Engine::CreateTable(TableDef table) {
  Result<std::shared_ptr<const TableDef>> created = catalog_->CreateTable(std::move(table));
  if (!created.ok()) return created;
  const std::shared_ptr<const TableDef> def = *created;
  auto undo_catalog = [&](Status s) {
    (void)catalog_->DropTable(def->schema, def->name);
    return s;
  };
  Result<std::unique_ptr<Tablespace>> space = Tablespace::Create(fs_, SpacePath(def->space_id), def->space_id);
  if (!space.ok()) return undo_catalog(space.status());
  Status s = pool_->AddSpace(std::move(space).value());
  if (!s.ok()) return undo_catalog(s);
  auto t = std::make_shared<TableHandle>();
  for (size_t i = 0; i < def->indexes.size(); ++i) {
    BTreeOptions bo;
    bo.index_name = def->name + "." + def->indexes[i].name;
    Result<std::unique_ptr<BTree>> tree = BTree::Create(pool_.get(), def->space_id, bo);
    if (!tree.ok()) return undo_catalog(tree.status());
    s = catalog_->SetIndexRoot(def->id, def->indexes[i].id, (*tree)->root_page());
    if (!s.ok()) return undo_catalog(s);
    if (i == 0) {
      t->clustered = std::move(tree).value();
    } else {
      t->secondary.push_back(std::move(tree).value());
    }
  }
  std::shared_ptr<const TableDef> stored = catalog_->snapshot()->FindTableById(def->id);
  if (stored == nullptr) return Status::Corruption("engine: created table vanished from the catalog");
  t->def = stored;
  t->auto_inc_next = std::max<uint64_t>(stored->auto_increment_next, 1);
  t->next_row_id.store(std::max<uint64_t>(stored->next_row_id, 1));
  for (const ColumnDef& c : stored->columns) {
    if (c.auto_increment) t->auto_inc_column = static_cast<int>(c.ordinal);
  }
  std::unique_lock lock(tables_mu_);
  tables_[stored->id] = std::move(t);
  return stored;
}

Status Engine::DropTable(std::string_view schema, std::string_view name) {
  std::shared_ptr<const TableDef> def = FindTable(schema, name);
  uint32_t space_id = 0;
  SLUICE_RETURN_IF_ERROR(catalog_->DropTable(schema, name, &space_id));
  if (def != nullptr) {
    std::unique_lock lock(tables_mu_);
    tables_.erase(def->id);
  }
  Result<std::unique_ptr<Tablespace>> space = pool_->DetachSpace(space_id, /*write_back=*/false);
  if (!space.ok()) return space.status();
  space->reset();
  return fs_->Remove(SpacePath(space_id));
}

std::shared_ptr<const TableDef> Engine::FindTable(std::string_view schema, std::string_view name) const {
  return catalog_->snapshot()->FindTable(schema, name);
}

// --- transactions ---

std::unique_ptr<EngineTrx> Engine::Begin(IsolationLevel isolation) {
  std::unique_ptr<Trx> trx = trx_sys_->Begin(isolation);
  LockTrxPtr lt = locks_->CreateTrx(0);
  return std::unique_ptr<EngineTrx>(new EngineTrx(this, std::move(trx), std::move(lt)));
}

Status Engine::Commit(EngineTrx& trx) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<uint64_t> commit_no = trx_sys_->Commit(*trx.trx_);
  if (!commit_no.ok()) return commit_no.status();
  if (trx.undo_) trx.undo_->MarkCommitted(*commit_no);
  trx.sec_added_.clear();
  locks_->ReleaseAll(*trx.lock_trx_);
  MaybePurge(trx);
  return Status::OK();
}

void Engine::MaybePurge(const EngineTrx& trx) {
  // A read-only transaction left no undo, and PurgeLimit() visits every
  // TrxSys shard: purging after each commit made one-row transactions on
  // two threads slower than on one. Each thread purges after every 32nd
  // transaction that wrote undo.
  if (!trx.undo_) return;
  thread_local uint32_t writes_since_purge = 0;
  if (++writes_since_purge < 32) return;
  writes_since_purge = 0;
  undo_store_->Purge(trx_sys_->PurgeLimit());
}

Status Engine::Rollback(EngineTrx& trx) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.undo_) {
    SLUICE_RETURN_IF_ERROR(
        trx.undo_->RollbackTo(0, [this, &trx](const UndoRecord& rec, RollPtr rp) { return ApplyUndo(trx, rec, rp); }));
    trx.undo_->MarkRolledBack();
  }
  trx.sec_added_.clear();
  SLUICE_RETURN_IF_ERROR(trx_sys_->Rollback(*trx.trx_));
  locks_->ReleaseAll(*trx.lock_trx_);
  MaybePurge(trx);
  return Status::OK();
}

UndoPos Engine::Savepoint(const EngineTrx& trx) const {
  return trx.undo_ ? trx.undo_->position() : 0;
}

Status Engine::UndoFailedStatement(EngineTrx& trx, UndoPos sp, Status failure) {
  // A failed statement leaves nothing behind; if even the undo fails, that
  // is the error the caller must see.
  Status undo = RollbackToSavepoint(trx, sp);
  return undo.ok() ? failure : undo;
}

Status Engine::RollbackToSavepoint(EngineTrx& trx, UndoPos pos) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (!trx.undo_) {
    return pos == 0 ? Status::OK() : Status::InvalidArgument("engine: savepoint past the undo log");
  }
  return trx.undo_->RollbackTo(pos,
                               [this, &trx](const UndoRecord& rec, RollPtr rp) { return ApplyUndo(trx, rec, rp); });
}

void Engine::EndStatement(EngineTrx& trx) {
  if (trx.active()) trx_sys_->EndStatement(*trx.trx_);
}

Status Engine::ApplyUndo(EngineTrx& trx, const UndoRecord& rec, RollPtr roll_ptr) {
  Result<std::shared_ptr<TableHandle>> t = FindHandle(rec.table_id);
  if (!t.ok()) return t.status();
  // The secondary entries this change added (absent ones are fine: a
  // retried undo, or a write that failed).
  auto added = trx.sec_added_.find(roll_ptr.raw());
  if (added != trx.sec_added_.end()) {
    for (const auto& [index, entry] : added->second) {
      BTree* tree = index >= 1 && index <= (*t)->secondary.size() ? (*t)->secondary[index - 1].get() : nullptr;
      if (tree == nullptr) return Status::Corruption("engine: undo of a secondary entry of an unknown index");
      Result<bool> gone = tree->Delete(entry);
      if (!gone.ok()) return gone.status();
    }
    trx.sec_added_.erase(added);
  }
  if (rec.type == UndoType::kInsert) {
    Result<bool> gone = (*t)->clustered->Delete(rec.primary_key);
    return gone.status();  // absent is fine: the insert itself failed
  }
  if (rec.before_image.size() != 1 || !rec.before_image[0].before) {
    return Status::Corruption("engine: undo record without a whole-row before-image");
  }
  Result<bool> updated = (*t)->clustered->Update(
      rec.primary_key,
      MakeRecord(rec.prev_trx_id, rec.prev_roll_ptr, rec.prev_delete_marked, *rec.before_image[0].before));
  if (!updated.ok()) return updated.status();
  if (!*updated) return Status::Corruption("engine: undo of an update finds no record");
  return Status::OK();
}

// --- rows ---

Result<std::string> Engine::KeyFromPk(const TableDef& def, const Row& pk) const {
  if (def.has_hidden_row_id()) {
    if (pk.size() != 1) return Status::InvalidArgument("engine: expected the hidden row id");
    uint64_t id;
    if (std::holds_alternative<uint64_t>(pk[0])) {
      id = std::get<uint64_t>(pk[0]);
    } else if (std::holds_alternative<int64_t>(pk[0]) && std::get<int64_t>(pk[0]) >= 0) {
      id = static_cast<uint64_t>(std::get<int64_t>(pk[0]));
    } else {
      return Status::InvalidArgument("engine: bad hidden row id");
    }
    return EncodeClusteredKey(def, Row(def.columns.size()), id);
  }
  const auto& parts = def.clustered().parts;
  if (pk.size() != parts.size()) return Status::InvalidArgument("engine: wrong number of primary key values");
  Row sparse(def.columns.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    RowValue v = pk[i];
    SLUICE_RETURN_IF_ERROR(CheckColumnValue(def.columns[parts[i].column], &v, 1));
    sparse[parts[i].column] = std::move(v);
  }
  return EncodeClusteredKey(def, sparse, 0);
}

Status Engine::LockKey(EngineTrx& trx, const TableHandle& t, std::string_view key) {
  const uint64_t h = HashKey(t.def->space_id, key);
  RecordId rid;
  rid.space_id = t.def->space_id;
  rid.page_no = h >> 32;
  rid.heap_no = 2 + (h & 0xffff);
  return locks_->LockRecord(*trx.lock_trx_, rid, LockMode::kX, RecLockType::kRecNotGap, trx.lock_wait_timeout_);
}

Status Engine::PrepareWrite(EngineTrx& trx, const TableHandle& t, std::string_view key) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.trx_->id() == kNoTrxId) {
    Result<TrxId> id = trx_sys_->AssignId(*trx.trx_);
    if (!id.ok()) return id.status();
    trx.lock_trx_->set_id(*id);
  }
  if (!trx.undo_) {
    Result<std::unique_ptr<UndoLog>> log = undo_store_->CreateLog(trx.trx_->id());
    if (!log.ok()) return log.status();
    trx.undo_ = std::move(log).value();
  }
  SLUICE_RETURN_IF_ERROR(locks_->LockTable(*trx.lock_trx_, t.def->id, LockMode::kIX, trx.lock_wait_timeout_));
  return LockKey(trx, t, key);
}

Result<std::optional<Engine::StoredRecord>> Engine::ReadLatest(const TableHandle& t, std::string_view key) const {
  std::string value;
  Result<bool> found = t.clustered->Get(key, &value);
  if (!found.ok()) return found.status();
  if (!*found) return std::optional<StoredRecord>();
  Result<StoredRecord> r = ParseRecord(value);
  if (!r.ok()) return r.status();
  return std::optional<StoredRecord>(std::move(r).value());
}

// `record` is the latest version, read after the view was taken. A
// Corruption may mean a lost race with a rollback that dropped the undo
// record being followed; callers re-read the record and retry.
Result<std::optional<Row>> Engine::VisibleRow(EngineTrx& trx, const TableHandle& t, std::string_view record) {
  const ReadView* view = trx_sys_->GetReadView(*trx.trx_);
  Accessor accessor(undo_store_.get());
  Result<StoredRecord> r = ParseRecord(record);
  if (!r.ok()) return r.status();
  RecordVersion v{r->trx_id, r->roll_ptr, r->delete_marked, std::move(r->row)};
  Result<std::optional<RecordVersion>> visible = BuildVisibleVersion(v, view, accessor);
  if (!visible.ok()) return visible.status();
  if (!visible->has_value()) return std::optional<Row>();
  Result<Row> row = DecodeRow(*t.def, (*visible)->row);
  if (!row.ok()) return row.status();
  return std::optional<Row>(std::move(row).value());
}

Result<std::optional<Row>> Engine::Get(EngineTrx& trx, uint64_t table_id, const Row& pk) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return t.status();
  Result<std::string> key = KeyFromPk(*(*t)->def, pk);
  if (!key.ok()) return key.status();
  (void)trx_sys_->GetReadView(*trx.trx_);  // the view before the read
  Status last;
  for (int attempt = 0; attempt <= kReadRetries; ++attempt) {
    std::string value;
    Result<bool> found = (*t)->clustered->Get(*key, &value);
    if (!found.ok()) return found.status();
    if (!*found) return std::optional<Row>();
    Result<std::optional<Row>> row = VisibleRow(trx, **t, value);
    if (row.ok() && row->has_value()) Count(kRowsRead);
    if (row.ok() || row.status().code() != Status::Code::kCorruption) return row;
    last = row.status();
  }
  return last;
}

Status Engine::Scan(EngineTrx& trx, uint64_t table_id, const std::function<bool(const Row&)>& fn) {
  return ScanFrom(trx, table_id, nullptr, 0, fn);
}

Status Engine::ScanRange(EngineTrx& trx, uint64_t table_id, const Row& from_pk, uint64_t limit,
                         const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return t.status();
  Result<std::string> key = KeyFromPk(*(*t)->def, from_pk);
  if (!key.ok()) return key.status();
  return ScanFrom(trx, table_id, &*key, limit, fn);
}

Status Engine::ScanFrom(EngineTrx& trx, uint64_t table_id, const std::string* start, uint64_t limit,
                        const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return t.status();
  (void)trx_sys_->GetReadView(*trx.trx_);
  BTree::Cursor c = (*t)->clustered->NewCursor();
  SLUICE_RETURN_IF_ERROR(start == nullptr ? c.SeekToFirst() : c.Seek(*start));
  uint64_t returned = 0;
  while (c.Valid()) {
    Result<std::optional<Row>> row = VisibleRow(trx, **t, c.value());
    for (int attempt = 0; !row.ok() && row.status().code() == Status::Code::kCorruption &&
                          attempt < kReadRetries;
         ++attempt) {
      std::string value;
      Result<bool> found = (*t)->clustered->Get(c.key(), &value);
      if (!found.ok()) return found.status();
      if (!*found) {
        row = std::optional<Row>();
        break;
      }
      row = VisibleRow(trx, **t, value);
    }
    if (!row.ok()) {
      Count(kRowsRead, returned);
      return row.status();
    }
    if (row->has_value()) {
      ++returned;
      if (!fn(**row) || returned == limit) break;
    }
    Status s = c.Next();
    if (!s.ok()) {
      Count(kRowsRead, returned);
      return s;
    }
  }
  Count(kRowsRead, returned);
  return Status::OK();
}

Status Engine::LockAndCheckUnique(EngineTrx& trx, const TableHandle& t, const std::string& key,
                                  const Row* old_row, const Row* new_row) {
  const TableDef& def = *t.def;
  for (size_t i = 1; i < def.indexes.size(); ++i) {
    const IndexDef& idx = def.indexes[i];
    if (!idx.unique || t.secondary[i - 1] == nullptr) continue;
    std::optional<std::string> old_ikey, new_ikey;
    if (old_row != nullptr && !KeyHasNull(idx, *old_row)) {
      Result<std::string> k = EncodeIndexKey(def, idx, *old_row);
      if (!k.ok()) return k.status();
      old_ikey = std::move(k).value();
    }
    if (new_row != nullptr && !KeyHasNull(idx, *new_row)) {
      Result<std::string> k = EncodeIndexKey(def, idx, *new_row);
      if (!k.ok()) return k.status();
      new_ikey = std::move(k).value();
    }
    if (old_ikey && new_ikey && *old_ikey == *new_ikey) continue;  // unchanged
    if (old_ikey) SLUICE_RETURN_IF_ERROR(LockKey(trx, t, UniqueLockKey(idx, *old_ikey)));
    if (!new_ikey) continue;
    SLUICE_RETURN_IF_ERROR(LockKey(trx, t, UniqueLockKey(idx, *new_ikey)));
    BTree::Cursor c = t.secondary[i - 1]->NewCursor();
    SLUICE_RETURN_IF_ERROR(c.Seek(*new_ikey));
    while (c.Valid() && c.key().starts_with(*new_ikey)) {
      const std::string other(c.key().substr(new_ikey->size()));
      if (other != key) {
        Result<std::optional<StoredRecord>> cur = ReadLatest(t, other);
        if (!cur.ok()) return cur.status();
        if (cur->has_value() && !(*cur)->delete_marked) {
          Result<Row> row = DecodeRow(def, (*cur)->row);
          if (!row.ok()) return row.status();
          Result<std::string> k = EncodeIndexKey(def, idx, *row);
          if (!k.ok()) return k.status();
          if (*k == *new_ikey) {
            return MakeError(er::kDupEntry, KeyText(idx, *new_row), def.name + "." + idx.name);
          }
        }
      }
      SLUICE_RETURN_IF_ERROR(c.Next());
    }
  }
  return Status::OK();
}

Status Engine::AddSecondaryEntries(EngineTrx& trx, const TableHandle& t, const std::string& key,
                                   const Row* old_row, const Row& new_row, RollPtr roll_ptr) {
  const TableDef& def = *t.def;
  for (size_t i = 1; i < def.indexes.size(); ++i) {
    BTree* tree = t.secondary[i - 1].get();
    if (tree == nullptr) continue;
    const IndexDef& idx = def.indexes[i];
    Result<std::string> ikey = EncodeIndexKey(def, idx, new_row);
    if (!ikey.ok()) return ikey.status();
    if (old_row != nullptr) {
      Result<std::string> old_ikey = EncodeIndexKey(def, idx, *old_row);
      if (!old_ikey.ok()) return old_ikey.status();
      if (*old_ikey == *ikey) continue;  // this index's key did not change
    }
    std::string entry = std::move(ikey).value() + key;
    Result<bool> added = tree->Upsert(entry, "");
    if (!added.ok()) return added.status();
    if (*added) trx.sec_added_[roll_ptr.raw()].emplace_back(i, std::move(entry));
  }
  return Status::OK();
}

Status Engine::IndexLookup(EngineTrx& trx, uint64_t table_id, std::string_view index_name, const Row& key,
                           const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableHandle& t = **th;
  const TableDef& def = *t.def;
  auto same_name = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
        return false;
      }
    }
    return true;
  };
  size_t index = 0;
  for (size_t i = 1; i < def.indexes.size(); ++i) {
    if (same_name(def.indexes[i].name, index_name)) index = i;
  }
  if (index == 0 || t.secondary[index - 1] == nullptr) {
    return Status::InvalidArgument(fmt::format("engine: no secondary index '{}' on {}", index_name, def.name));
  }
  const IndexDef& idx = def.indexes[index];
  if (key.size() != idx.parts.size()) return Status::InvalidArgument("engine: wrong number of index key values");
  Row sparse(def.columns.size());
  for (size_t i = 0; i < idx.parts.size(); ++i) {
    RowValue v = key[i];
    if (!IsNull(v)) SLUICE_RETURN_IF_ERROR(CheckColumnValue(def.columns[idx.parts[i].column], &v, 1));
    sparse[idx.parts[i].column] = std::move(v);
  }
  Result<std::string> ikey = EncodeIndexKey(def, idx, sparse);
  if (!ikey.ok()) return ikey.status();
  (void)trx_sys_->GetReadView(*trx.trx_);  // the view before the read
  BTree::Cursor c = t.secondary[index - 1]->NewCursor();
  SLUICE_RETURN_IF_ERROR(c.Seek(*ikey));
  while (c.Valid() && c.key().starts_with(*ikey)) {
    const std::string pk(c.key().substr(ikey->size()));
    Result<std::optional<Row>> row = std::optional<Row>();
    for (int attempt = 0; attempt <= kReadRetries; ++attempt) {
      std::string value;
      Result<bool> found = t.clustered->Get(pk, &value);
      if (!found.ok()) return found.status();
      if (!*found) {
        row = std::optional<Row>();
        break;
      }
      row = VisibleRow(trx, t, value);
      if (row.ok() || row.status().code() != Status::Code::kCorruption) break;
    }
    if (!row.ok()) return row.status();
    if (row->has_value()) {
      // Entries are not versioned: the visible version must still have the key.
      Result<std::string> k = EncodeIndexKey(def, idx, **row);
      if (!k.ok()) return k.status();
      if (*k == *ikey) {
        Count(kRowsRead);
        if (!fn(**row)) break;
      }
    }
    SLUICE_RETURN_IF_ERROR(c.Next());
  }
  return Status::OK();
}

Status Engine::InsertLocked(EngineTrx& trx, TableHandle& t, const std::string& key, const Row& row) {
  const TableDef& def = *t.def;
  Result<std::string> enc = EncodeRow(def, row);
  if (!enc.ok()) return enc.status();
  Result<std::optional<StoredRecord>> cur = ReadLatest(t, key);
  if (!cur.ok()) return cur.status();
  if (cur->has_value() && !(*cur)->delete_marked) {
    std::string text;
    for (const KeyPart& p : def.clustered().parts) {
      if (!text.empty()) text += "-";
      text += ValueText(row[p.column]);
    }
    return MakeError(er::kDupEntry, text, def.name + "." + def.clustered().name);
  }
  SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, key, nullptr, &row));
  UndoRecord u;
  u.table_id = def.id;
  u.primary_key = key;
  if (!cur->has_value()) {
    u.type = UndoType::kInsert;
    Result<RollPtr> rp = trx.undo_->Append(std::move(u));
    if (!rp.ok()) return rp.status();
    SLUICE_RETURN_IF_ERROR(t.clustered->Insert(key, MakeRecord(trx.id(), *rp, false, *enc)));
    return AddSecondaryEntries(trx, t, key, nullptr, row, *rp);
  }
  // Over a delete-marked record of the same key: an update of it.
  const StoredRecord& old = **cur;
  u.type = UndoType::kUpdate;
  u.prev_trx_id = old.trx_id;
  u.prev_roll_ptr = old.roll_ptr;
  u.prev_delete_marked = true;
  u.before_image.push_back(UndoColumn{0, old.row});
  Result<RollPtr> rp = trx.undo_->Append(std::move(u));
  if (!rp.ok()) return rp.status();
  Result<bool> updated = t.clustered->Update(key, MakeRecord(trx.id(), *rp, false, *enc));
  if (!updated.ok()) return updated.status();
  // The delete-marked row's entries were kept; existing ones stay as they are.
  return AddSecondaryEntries(trx, t, key, nullptr, row, *rp);
}

Status Engine::DeleteMarkLocked(EngineTrx& trx, TableHandle& t, const std::string& key, const StoredRecord& cur) {
  // The secondary entries stay (see engine.h); the unique values are locked.
  Result<Row> old_row = DecodeRow(*t.def, cur.row);
  if (!old_row.ok()) return old_row.status();
  SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, key, &*old_row, nullptr));
  UndoRecord u;
  u.type = UndoType::kDeleteMark;
  u.table_id = t.def->id;
  u.primary_key = key;
  u.prev_trx_id = cur.trx_id;
  u.prev_roll_ptr = cur.roll_ptr;
  u.prev_delete_marked = cur.delete_marked;
  u.before_image.push_back(UndoColumn{0, cur.row});
  Result<RollPtr> rp = trx.undo_->Append(std::move(u));
  if (!rp.ok()) return rp.status();
  Result<bool> updated = t.clustered->Update(key, MakeRecord(trx.id(), *rp, true, cur.row));
  return updated.status();
}

Result<uint64_t> Engine::Insert(EngineTrx& trx, uint64_t table_id, Row row) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  TableHandle& t = **th;
  const TableDef& def = *t.def;
  if (row.size() != def.columns.size()) return Status::InvalidArgument("engine: wrong number of column values");
  uint64_t generated = 0;
  if (t.auto_inc_column >= 0) {
    RowValue& v = row[t.auto_inc_column];
    const bool is_unsigned = def.columns[t.auto_inc_column].is_unsigned;
    std::lock_guard lock(t.mu);
    if (IsZeroOrNull(v)) {
      generated = t.auto_inc_next++;
      v = is_unsigned ? RowValue(generated) : RowValue(static_cast<int64_t>(generated));
    } else {
      uint64_t given = 0;
      if (std::holds_alternative<uint64_t>(v)) given = std::get<uint64_t>(v);
      if (std::holds_alternative<int64_t>(v) && std::get<int64_t>(v) > 0) given = std::get<int64_t>(v);
      if (given >= t.auto_inc_next) t.auto_inc_next = given + 1;
    }
  }
  SLUICE_RETURN_IF_ERROR(CheckRow(def, &row, 1));
  uint64_t row_id = 0;
  if (def.has_hidden_row_id()) {
    row_id = t.next_row_id.fetch_add(1);
    generated = row_id;
  }
  Result<std::string> key = EncodeClusteredKey(def, row, row_id);
  if (!key.ok()) return key.status();
  SLUICE_RETURN_IF_ERROR(PrepareWrite(trx, t, *key));
  const UndoPos sp = trx.undo_->position();
  Status s = InsertLocked(trx, t, *key, row);
  if (!s.ok()) return UndoFailedStatement(trx, sp, std::move(s));
  Count(kRowsInserted);
  return generated;
}

Result<bool> Engine::Update(EngineTrx& trx, uint64_t table_id, const Row& pk, Row new_row) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  TableHandle& t = **th;
  const TableDef& def = *t.def;
  if (new_row.size() != def.columns.size()) return Status::InvalidArgument("engine: wrong number of column values");
  SLUICE_RETURN_IF_ERROR(CheckRow(def, &new_row, 1));
  Result<std::string> key = KeyFromPk(def, pk);
  if (!key.ok()) return key.status();
  SLUICE_RETURN_IF_ERROR(PrepareWrite(trx, t, *key));
  Result<std::optional<StoredRecord>> cur = ReadLatest(t, *key);
  if (!cur.ok()) return cur.status();
  if (!cur->has_value() || (*cur)->delete_marked) return false;
  std::string new_key = *key;
  if (!def.has_hidden_row_id()) {
    Result<std::string> k = EncodeClusteredKey(def, new_row, 0);
    if (!k.ok()) return k.status();
    new_key = std::move(k).value();
  }
  if (new_key != *key) {
    // Primary key change: delete-mark the old row, insert the new one; the
    // statement is undone as a whole when the insert fails.
    const UndoPos sp = trx.undo_->position();
    Status s = DeleteMarkLocked(trx, t, *key, **cur);
    if (s.ok()) s = LockKey(trx, t, new_key);
    if (s.ok()) s = InsertLocked(trx, t, new_key, new_row);
    if (!s.ok()) return UndoFailedStatement(trx, sp, std::move(s));
    Count(kRowsUpdated);
    return true;
  }
  Result<std::string> enc = EncodeRow(def, new_row);
  if (!enc.ok()) return enc.status();
  Result<Row> old_row = DecodeRow(def, (*cur)->row);
  if (!old_row.ok()) return old_row.status();
  SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, *key, &*old_row, &new_row));
  UndoRecord u;
  u.type = UndoType::kUpdate;
  u.table_id = def.id;
  u.primary_key = *key;
  u.prev_trx_id = (*cur)->trx_id;
  u.prev_roll_ptr = (*cur)->roll_ptr;
  u.prev_delete_marked = false;
  u.before_image.push_back(UndoColumn{0, (*cur)->row});
  const UndoPos sp = trx.undo_->position();
  Result<RollPtr> rp = trx.undo_->Append(std::move(u));
  if (!rp.ok()) return rp.status();
  Result<bool> updated = t.clustered->Update(*key, MakeRecord(trx.id(), *rp, false, *enc));
  Status s = updated.status();
  // Only the indexes whose key changed get a new entry; the old entry stays.
  if (s.ok()) s = AddSecondaryEntries(trx, t, *key, &*old_row, new_row, *rp);
  if (!s.ok()) return UndoFailedStatement(trx, sp, std::move(s));
  Count(kRowsUpdated);
  return true;
}

Result<bool> Engine::Delete(EngineTrx& trx, uint64_t table_id, const Row& pk) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  TableHandle& t = **th;
  Result<std::string> key = KeyFromPk(*t.def, pk);
  if (!key.ok()) return key.status();
  SLUICE_RETURN_IF_ERROR(PrepareWrite(trx, t, *key));
  Result<std::optional<StoredRecord>> cur = ReadLatest(t, *key);
  if (!cur.ok()) return cur.status();
  if (!cur->has_value() || (*cur)->delete_marked) return false;
  SLUICE_RETURN_IF_ERROR(DeleteMarkLocked(trx, t, *key, **cur));
  Count(kRowsDeleted);
  return true;
}

namespace {
// A thread's counter shard: threads take shards round-robin at first use.
size_t ThreadCounterShard() {
  static std::atomic<size_t> next{0};
  thread_local const size_t shard = next.fetch_add(1, std::memory_order_relaxed);
  return shard;
}
}  // namespace

void Engine::Count(CounterId id, uint64_t n) {
  if (n == 0) return;
  counter_shards_[ThreadCounterShard() % kCounterShards].v[id].fetch_add(n, std::memory_order_relaxed);
}

EngineCounters Engine::Counters() const {
  uint64_t sum[kNumCounters] = {};
  for (size_t i = 0; i < kCounterShards; ++i) {
    for (size_t c = 0; c < kNumCounters; ++c) sum[c] += counter_shards_[i].v[c].load(std::memory_order_relaxed);
  }
  EngineCounters out;
  out.innodb_rows_inserted = sum[kRowsInserted];
  out.innodb_rows_read = sum[kRowsRead];
  out.innodb_rows_updated = sum[kRowsUpdated];
  out.innodb_rows_deleted = sum[kRowsDeleted];
  return out;
}

}  // namespace sluice::storage
