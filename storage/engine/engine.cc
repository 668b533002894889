#include "storage/engine/engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <random>
#include <unordered_set>
#include <utility>

#include "base/log.h"
#include "base/mysql_error.h"
#include "base/scratch.h"
#include "base/utf8.h"
#include "storage/btree/key_codec.h"
#include "storage/btree/overflow.h"
#include "storage/buffer/tablespace.h"
#include "storage/engine/engine_internal.h"
#include "storage/lock/lock_errors.h"
#include "storage/trx/version_chain.h"

namespace sluice::storage {

namespace {

// Little-endian u64s, as the page format stores them (page.h).
void PutU64(std::string* out, uint64_t v) {
  out->resize(out->size() + 8);
  StoreU64(out->data() + out->size() - 8, v);
}

constexpr size_t kTrxIdBytes = 6;
constexpr size_t kRollPtrBytes = 8;
constexpr size_t kRecordHeaderBytes = kTrxIdBytes + kRollPtrBytes + 1;
// The record's flags byte (engine.h).
constexpr uint8_t kDeleteMarkFlag = 1;
constexpr uint8_t kExternalFlag = 2;
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



// The pseudo-record locked for a UNIQUE secondary value.
std::string UniqueLockKey(const IndexDef& idx, std::string_view ikey) {
  std::string k("\xff\xffU", 3);
  PutBigEndian(idx.id, 8, &k);
  k.append(ikey);
  return k;
}

// The encoding of the first values.size() key parts of `idx` (each value
// checked as CheckColumnValue does; NULL is the NULL key part): a prefix of
// every key whose leading parts have these values. REQUIRES: 1 <= size <=
// idx.parts.size().
Result<std::string> EncodeKeyPrefix(const TableDef& def, const IndexDef& idx, const Row& values) {
  IndexDef prefix;
  prefix.key_format = idx.key_format;
  prefix.parts.assign(idx.parts.begin(), idx.parts.begin() + static_cast<std::ptrdiff_t>(values.size()));
  Row sparse(def.columns.size());
  for (size_t i = 0; i < values.size(); ++i) {
    RowValue v = values[i];
    if (!IsNull(v)) SLUICE_RETURN_IF_ERROR(CheckColumnValue(def.columns[prefix.parts[i].column], &v, 1));
    sparse[prefix.parts[i].column] = std::move(v);
  }
  return EncodeIndexKey(def, prefix, sparse);
}

// The smallest byte string greater than every string that starts with
// `prefix`; nullopt when there is none (the prefix is all 0xff bytes).
std::optional<std::string> PrefixSuccessor(std::string prefix) {
  while (!prefix.empty() && static_cast<unsigned char>(prefix.back()) == 0xff) prefix.pop_back();
  if (prefix.empty()) return std::nullopt;
  prefix.back() = static_cast<char>(static_cast<unsigned char>(prefix.back()) + 1);
  return prefix;
}

// -1, 0 or 1: how `key`'s leading parts compare with the encoded prefix
// `bound` (keys starting with `bound` compare equal). Components are
// prefix-free (key_codec.h), so comparing the first bound.size() bytes
// compares the parts.
int ComparePrefix(std::string_view key, std::string_view bound) {
  const int c = key.substr(0, bound.size()).compare(bound);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

bool IsZeroOrNull(const RowValue& v) {
  if (IsNull(v)) return true;
  if (std::holds_alternative<int64_t>(v)) return std::get<int64_t>(v) == 0;
  if (std::holds_alternative<uint64_t>(v)) return std::get<uint64_t>(v) == 0;
  return false;
}


// The encoded ends of an IndexScan / IndexScanLocked range over `idx`
// (each left empty when its bound is null).
Status EncodeBounds(const TableDef& def, const IndexDef& idx, const Engine::KeyBound* lo,
                    const Engine::KeyBound* hi, std::string* lo_key, std::string* hi_key) {
  for (auto [bound, out] : {std::pair{lo, lo_key}, std::pair{hi, hi_key}}) {
    if (bound == nullptr) continue;
    if (bound->key.empty() || bound->key.size() > idx.parts.size()) {
      return Status::InvalidArgument("engine: wrong number of index key values");
    }
    Result<std::string> k = EncodeKeyPrefix(def, idx, bound->key);
    if (!k.ok()) return k.status();
    *out = std::move(k).value();
  }
  return Status::OK();
}

// Positions `c` on the first key of a forward range from `lo` (encoded
// `lo_key`; null: the index's start). Past an inclusive bound means past
// every key starting with it: its prefix successor. False when no key can
// follow the bound.
Result<bool> SeekRangeStart(BTree::Cursor& c, const Engine::KeyBound* lo, const std::string& lo_key) {
  if (lo == nullptr) {
    SLUICE_RETURN_IF_ERROR(c.SeekToFirst());
  } else if (lo->inclusive) {
    SLUICE_RETURN_IF_ERROR(c.Seek(lo_key));
  } else if (std::optional<std::string> next = PrefixSuccessor(lo_key)) {
    SLUICE_RETURN_IF_ERROR(c.Seek(*next));
  } else {
    return false;
  }
  return true;
}

}  // namespace

namespace engine_internal {

Result<StoredRecordView> ParseRecordView(std::string_view v) {
  if (v.size() < kRecordHeaderBytes) return Status::Corruption("engine: clustered record too short");
  StoredRecordView r;
  r.trx_id = GetBigEndian(v.data(), kTrxIdBytes);
  r.roll_ptr = RollPtr(GetBigEndian(v.data() + kTrxIdBytes, kRollPtrBytes));
  const uint8_t flags = static_cast<uint8_t>(v[kTrxIdBytes + kRollPtrBytes]);
  if ((flags & ~(kDeleteMarkFlag | kExternalFlag)) != 0) return Status::Corruption("engine: bad record flags");
  r.delete_marked = (flags & kDeleteMarkFlag) != 0;
  r.external = (flags & kExternalFlag) != 0;
  r.row = v.substr(kRecordHeaderBytes);
  return r;
}

Result<StoredRecord> ParseRecord(std::string_view v) {
  Result<StoredRecordView> view = ParseRecordView(v);
  if (!view.ok()) return view.status();
  StoredRecord r;
  r.trx_id = view->trx_id;
  r.roll_ptr = view->roll_ptr;
  r.delete_marked = view->delete_marked;
  r.external = view->external;
  r.row.assign(view->row);
  return r;
}

UndoColumn RowImage(std::string row, bool external) { return UndoColumn{external ? 1u : 0u, std::move(row)}; }

Status BeforeRow(const UndoRecord& rec, std::string* row, bool* external) {
  if (rec.before_image.size() != 1 || rec.before_image[0].column_id > 1 || !rec.before_image[0].before) {
    return Status::Corruption("engine: undo record without a whole-row before-image");
  }
  *row = *rec.before_image[0].before;
  *external = rec.before_image[0].column_id == 1;
  return Status::OK();
}

std::string TrxPayload(TrxId id) {
  std::string p;
  PutU64(&p, id);
  return p;
}

void SetRecordRollPtr(std::string* record, RollPtr roll_ptr) {
  std::string bytes;
  PutBigEndian(roll_ptr.raw(), kRollPtrBytes, &bytes);
  record->replace(kTrxIdBytes, kRollPtrBytes, bytes);
}

std::string MakeRecord(TrxId trx_id, RollPtr roll_ptr, bool delete_marked, bool external, std::string_view row) {
  std::string out;
  out.reserve(kRecordHeaderBytes + row.size());
  PutBigEndian(trx_id, kTrxIdBytes, &out);
  PutBigEndian(roll_ptr.raw(), kRollPtrBytes, &out);
  out.push_back(static_cast<char>((delete_marked ? kDeleteMarkFlag : 0) | (external ? kExternalFlag : 0)));
  out.append(row);
  return out;
}

bool KeyHasNull(const IndexDef& idx, const Row& row) {
  for (const KeyPart& p : idx.parts) {
    if (IsNull(row[p.column])) return true;
  }
  return false;
}

std::string KeyText(const TableDef& def, const IndexDef& idx, const Row& row) {
  std::string text;
  for (const KeyPart& p : idx.parts) {
    if (!text.empty()) text += "-";
    const std::string v = ValueText(row[p.column]);
    // A prefix key's entry holds its first characters: MySQL shows those.
    const bool prefix = p.prefix_length != 0 && std::holds_alternative<std::string>(row[p.column]);
    text += prefix ? CharPrefix(def.columns[p.column], v, p.prefix_length) : std::string_view(v);
  }
  return text;
}

}  // namespace engine_internal

using engine_internal::KeyHasNull;
using engine_internal::KeyText;
using engine_internal::MakeRecord;
using engine_internal::SetRecordRollPtr;
using engine_internal::ParseRecord;
using engine_internal::ParseRecordView;
using engine_internal::StoredRecordView;
using engine_internal::TrxPayload;
using engine_internal::kRedoCommit;
using engine_internal::kRedoMtr;
using engine_internal::kRedoPrepare;
using engine_internal::kRedoRollback;
using engine_internal::kRedoShutdown;
using engine_internal::kRedoTrxIds;
using engine_internal::kRedoUndo;

// Undo access for BuildVisibleVersion: whole-row before-images (column 0).
class Engine::Accessor final : public VersionAccessor {
 public:
  explicit Accessor(const UndoStore* store) : store_(store) {}
  Result<UndoRecord> FetchUndo(RollPtr roll_ptr) override { return store_->Fetch(roll_ptr); }
  Status ApplyBeforeImage(const UndoRecord& rec, RecordVersion* version) override {
    return engine_internal::BeforeRow(rec, &version->row, &version->external);
  }

 private:
  const UndoStore* store_;
};

EngineTrx::~EngineTrx() {
  if (!active()) return;
  if (prepared_ || engine_->crashed_.load()) {
    // A prepared transaction outlives its handle: its prepare record stays
    // in the redo log, so the next recovery brings it back prepared. Here
    // it only leaves memory (no undo applied, nothing logged).
    (void)engine_->trx_sys_->Rollback(trx_);
    engine_->locks_->ReleaseAll(*lock_trx_);
    return;
  }
  (void)engine_->Rollback(*this);
}

Engine::Engine(io::FileSystem* fs, std::string datadir, Options options)
    : fs_(fs), datadir_(std::move(datadir)), options_(options), durability_(options.durability) {}

Engine::~Engine() {
  StopBackgroundThreads();
  recovered_prepared_.clear();
  tables_.clear();  // trees before the pool
}

std::string Engine::SpacePath(uint32_t space_id) const {
  return fmt::format("{}/space_{}.ibd", datadir_, space_id);
}

Result<std::unique_ptr<Engine>> Engine::Open(io::FileSystem* fs, std::string datadir, Options options) {
  SLUICE_RETURN_IF_ERROR(fs->CreateDir(datadir));
  std::unique_ptr<Engine> e(new Engine(fs, datadir, options));
  {
    // Chains written before a restart keep their tags: start far from them.
    std::random_device rd;
    e->next_overflow_tag_.store((uint64_t{rd()} << 32) ^ rd());
  }
  Result<std::unique_ptr<Catalog>> catalog = Catalog::Open(fs, datadir);
  if (!catalog.ok()) return catalog.status();
  e->catalog_ = std::move(catalog).value();
  Engine* self = e.get();
  BufferPool::Options bpo;
  bpo.pool_size_bytes = options.buffer_pool_bytes;
  // Write-ahead logging: a page goes to disk only after the redo that
  // describes it. During replay (no log object yet) every page LSN comes
  // from a record already on disk.
  bpo.write_ahead_check = [self](uint64_t page_lsn) -> Status {
    RedoLog* redo = self->redo_.get();
    return redo == nullptr ? Status::OK() : redo->FlushUpTo(page_lsn);
  };
  bpo.mtr_log = [self](std::string_view payload, const std::function<void(uint64_t)>& stamp) -> Status {
    RedoLog* redo = self->redo_.get();
    if (redo == nullptr) return Status::Corruption("engine: a page change before the redo log is open");
    SharedLatchGuard hold(self->log_latch_, ShardedRwLatch::ThisThreadSlot());
    Result<uint64_t> end = redo->Append(payload, kRedoMtr);
    if (!end.ok()) return end.status();
    stamp(*end);
    return Status::OK();
  };
  e->pool_ = std::make_unique<BufferPool>(std::move(bpo));
  e->undo_store_ = std::make_unique<MemUndoStore>();
  if (options.lock_manager != nullptr) {
    e->locks_ = options.lock_manager;
  } else {
    e->owned_locks_ = std::make_unique<LockManager>();
    e->locks_ = e->owned_locks_.get();
  }
  SLUICE_RETURN_IF_ERROR(e->CleanUpDdl());
  SLUICE_RETURN_IF_ERROR(e->Recover());
  if (options.checkpoint_interval.count() > 0) {
    e->checkpointer_.Start("sl_checkpoint", options.checkpoint_interval, [self] {
      Status s = self->Checkpoint();
      if (!s.ok()) SLUICE_LOG_ERROR(base::GetLogger("InnoDB"), 0, "checkpoint failed: {}", s.ToString());
    });
  }
  if (options.purge_interval.count() > 0) {
    e->purger_.Start("sl_purge", options.purge_interval, [self] {
      Status s = self->Purge();
      if (!s.ok()) SLUICE_LOG_ERROR(base::GetLogger("InnoDB"), 0, "purge failed: {}", s.ToString());
    });
  }
  return e;
}

Status Engine::OpenSpace(const TableDef& def) {
  Result<std::unique_ptr<Tablespace>> space = Tablespace::Open(fs_, SpacePath(def.space_id));
  if (!space.ok()) return space.status();
  return pool_->AddSpace(std::move(space).value());
}

Status Engine::OpenTable(std::shared_ptr<const TableDef> def) {
  auto t = std::make_shared<TableHandle>();
  t->def = def;
  t->InitAutoInc(std::max<uint64_t>(def->auto_increment_next, 1));
  t->next_row_id.store(std::max<uint64_t>(def->next_row_id, 1));
  for (const ColumnDef& c : def->columns) {
    if (c.auto_increment) t->auto_inc_column = static_cast<int>(c.ordinal);
  }
  if (pool_ != nullptr && !t->clustered) {
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
  WriterMutexLock lock(&tables_mu_);
  tables_[def->id] = std::move(t);
  return Status::OK();
}

Result<std::shared_ptr<Engine::TableHandle>> Engine::FindHandle(uint64_t table_id) const {
  ReaderMutexLock lock(&tables_mu_);
  auto it = tables_.find(table_id);
  if (it == tables_.end()) return Status::InvalidArgument(fmt::format("engine: unknown table id {}", table_id));
  return it->second;
}

Status Engine::Close() {
  if (closed_) return Status::OK();
  StopBackgroundThreads();
  // No transaction is active: one pass frees all undo (rows a recovered
  // prepared transaction has locked stay waiting).
  SLUICE_RETURN_IF_ERROR(PurgePass(/*sweep=*/false));
  std::vector<std::shared_ptr<TableHandle>> handles;
  {
    ReaderMutexLock lock(&tables_mu_);
    for (auto& [id, t] : tables_) handles.push_back(t);
  }
  for (auto& t : handles) {
    uint64_t ai;
    {
      MutexLock lock(&t->mu);
      ai = t->auto_inc_next;
    }
    SLUICE_RETURN_IF_ERROR(catalog_->SetCounters(t->def->id, ai, t->next_row_id.load()));
  }
  SLUICE_RETURN_IF_ERROR(Checkpoint());
  bool all_purged;
  {
    MutexLock lock(&purge_mu_);
    MutexLock qlock(&purge_queue_mu_);
    all_purged = purge_waiting_.empty() && purge_queue_.empty() && !sweep_pending_;
  }
  if (all_purged) {
    Result<uint64_t> end = redo_->Append(TrxPayload(trx_sys_->next_id()), kRedoShutdown);
    if (!end.ok()) return end.status();
    SLUICE_RETURN_IF_ERROR(redo_->FlushUpTo(*end));
  }
  SLUICE_RETURN_IF_ERROR(redo_->Close());
  closed_ = true;
  return Status::OK();
}

Status Engine::Checkpoint() {
  MutexLock ddl(&ddl_mu_);
  // Every mini-transaction and transaction record appends under log_latch_
  // shared and stamps its pages / registers its transaction before letting
  // go; so with the latch exclusive, every change below `now` is on a page
  // already marked with it, and every transaction that will ever register
  // a first LSN below `now` already has.
  uint64_t now, oldest_trx;
  {
    ExclusiveLatchGuard hold(log_latch_);
    now = redo_->current_lsn();
    if (now == quiet_lsn_) return Status::OK();  // nothing new since the last one
    MutexLock lock(&active_mu_);
    oldest_trx = now;
    for (const auto& [id, lsn] : active_first_lsn_) oldest_trx = std::min(oldest_trx, lsn);
  }
  // Pages changed before `now` go to disk (after their redo: the
  // write-ahead check); later changes have oldest modifications >= now.
  SLUICE_RETURN_IF_ERROR(pool_->FlushAll());
  // Transaction ids survive the checkpoint in a record recovery will read.
  Result<uint64_t> end = redo_->Append(TrxPayload(trx_sys_ ? trx_sys_->next_id() : 1), kRedoTrxIds);
  if (!end.ok()) return end.status();
  SLUICE_RETURN_IF_ERROR(redo_->FlushUpTo(*end));
  if (redo_->current_lsn() == *end) quiet_lsn_ = *end;
  const uint64_t target = std::min(now, oldest_trx);
  if (target <= redo_->checkpoint_lsn()) return Status::OK();
  return redo_->Checkpoint(target);
}

void Engine::StopBackgroundThreads() {
  purger_.Stop();
  checkpointer_.Stop();
}

Result<uint64_t> Engine::LogTrxRecord(EngineTrx& trx, uint8_t type, std::string_view payload) {
  SharedLatchGuard hold(log_latch_, ShardedRwLatch::ThisThreadSlot());
  if (trx.first_lsn_ == 0) {
    // Any LSN at or before the record's start will do; current_lsn() read
    // under the latch is one that a concurrent checkpoint cannot pass.
    trx.first_lsn_ = std::max<uint64_t>(redo_->current_lsn(), 1);
    MutexLock lock(&active_mu_);
    active_first_lsn_[trx.id()] = trx.first_lsn_;
  }
  return redo_->Append(payload, type);
}

void Engine::ForgetActive(EngineTrx& trx) {
  if (trx.first_lsn_ != 0) {
    MutexLock lock(&active_mu_);
    active_first_lsn_.erase(trx.id());
  }
  if (!trx.xid_.empty()) {
    MutexLock lock(&xa_mu_);
    xids_in_use_.erase(trx.xid_);
  }
}

Result<RollPtr> Engine::AppendUndo(EngineTrx& trx, UndoRecord rec) {
  rec.undo_no = trx.undo_->position();
  // The redo record (trx id, roll pointer, the undo record) is built in a
  // buffer each thread keeps; the undo log keeps the record's bytes from
  // it, and the roll pointer goes in once the log has given it.
  thread_local std::string payload;  // scratch: empty between calls
  PutU64(&payload, trx.id());
  PutU64(&payload, 0);
  EncodeUndoRecord(rec, &payload);
  Result<RollPtr> rp = trx.undo_->AppendEncoded(std::string_view(payload).substr(16));
  if (!rp.ok()) {
    ClearScratch(payload);
    return rp;
  }
  StoreU64(payload.data() + 8, rp->raw());
  Result<uint64_t> end = LogTrxRecord(trx, kRedoUndo, payload);
  ClearScratch(payload);  // a big row's before image is not kept
  if (!end.ok()) return end.status();
  return rp;
}

std::shared_ptr<const TableDef> Engine::FindTable(std::string_view schema, std::string_view name) const {
  return catalog_->snapshot()->FindTable(schema, name);
}

// --- transactions ---

std::unique_ptr<EngineTrx> Engine::Begin(IsolationLevel isolation) {
  return std::unique_ptr<EngineTrx>(new EngineTrx(this, *trx_sys_, isolation, locks_->CreateTrx(0)));
}

Status Engine::Commit(EngineTrx& trx, bool decided_elsewhere) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.first_lsn_ != 0) {
    // Durable (as innodb_flush_log_at_trx_commit says) before anyone can
    // see it or take its locks -- unless the decision is durable elsewhere.
    Result<uint64_t> end = LogTrxRecord(trx, kRedoCommit, TrxPayload(trx.id()));
    if (!end.ok()) return end.status();
    if (!(decided_elsewhere && trx.prepared_)) {
      SLUICE_RETURN_IF_ERROR(FlushLogUpTo(*end));
    }
  }
  ForgetActive(trx);
  Result<uint64_t> commit_no = trx_sys_->Commit(trx.trx_);
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
  // two threads slower than on one. Every 32nd writing commit is enough.
  if (!trx.undo_) return;
  thread_local uint32_t writes_since_purge = 0;
  if (++writes_since_purge < 32) return;
  writes_since_purge = 0;
  Result<bool> queued = FreeUndo();
  if (!queued.ok()) {
    SLUICE_LOG_ERROR(base::GetLogger("InnoDB"), 0, "purge failed: {}", queued.status().ToString());
  } else if (*queued) {
    purger_.Wake();
  }
}

Status Engine::Rollback(EngineTrx& trx) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.undo_) {
    SLUICE_RETURN_IF_ERROR(trx.undo_->RollbackTo(0, [this, &trx](const UndoRecord& rec, RollPtr rp) {
      return trx.recovered_ ? RecoveryUndo(trx.id(), rec) : ApplyUndo(trx, rec, rp);
    }));
    trx.undo_->MarkRolledBack();
  }
  if (trx.first_lsn_ != 0) {
    // No wait: if this record is lost, recovery rolls back again (a no-op).
    Result<uint64_t> end = LogTrxRecord(trx, kRedoRollback, TrxPayload(trx.id()));
    if (!end.ok()) return end.status();
  }
  ForgetActive(trx);
  trx.sec_added_.clear();
  SLUICE_RETURN_IF_ERROR(trx_sys_->Rollback(trx.trx_));
  locks_->ReleaseAll(*trx.lock_trx_);
  MaybePurge(trx);
  return Status::OK();
}

Status Engine::FlushLogUpTo(uint64_t lsn) {
  return redo_->WaitFlushed(lsn, durability_.load(std::memory_order_relaxed));
}

Status Engine::Prepare(EngineTrx& trx, std::string xid, uint64_t* flush_mark) {
  if (flush_mark != nullptr) *flush_mark = 0;
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.prepared_) return Status::InvalidArgument("engine: transaction is already prepared");
  if (xid.empty()) return Status::InvalidArgument("engine: empty xid");
  {
    MutexLock lock(&xa_mu_);
    if (!xids_in_use_.emplace(xid, trx.id()).second) {
      return MakeError(er::kXaerDupid);
    }
  }
  if (trx.first_lsn_ != 0) {
    std::string payload = TrxPayload(trx.id());
    payload += xid;
    Result<uint64_t> end = LogTrxRecord(trx, kRedoPrepare, payload);
    Status s = end.status();
    if (s.ok() && flush_mark != nullptr) {
      *flush_mark = *end;
    } else if (s.ok()) {
      s = FlushLogUpTo(*end);
    }
    if (!s.ok()) {
      MutexLock lock(&xa_mu_);
      xids_in_use_.erase(xid);
      return s;
    }
  }
  trx.prepared_ = true;
  trx.xid_ = std::move(xid);
  return Status::OK();
}

std::vector<std::string> Engine::RecoveredPrepared() const {
  MutexLock lock(&xa_mu_);
  std::vector<std::string> out;
  for (const auto& [xid, trx] : recovered_prepared_) out.push_back(xid);
  return out;
}

Result<std::unique_ptr<EngineTrx>> Engine::TakeRecoveredPrepared(std::string_view xid) {
  MutexLock lock(&xa_mu_);
  auto it = recovered_prepared_.find(xid);
  if (it == recovered_prepared_.end()) return MakeError(er::kXaerNota);
  std::unique_ptr<EngineTrx> trx = std::move(it->second);
  recovered_prepared_.erase(it);
  return trx;
}

Status Engine::CommitByXid(std::string_view xid) {
  Result<std::unique_ptr<EngineTrx>> trx = TakeRecoveredPrepared(xid);
  return trx.ok() ? Commit(**trx) : trx.status();
}

Status Engine::RollbackByXid(std::string_view xid) {
  Result<std::unique_ptr<EngineTrx>> trx = TakeRecoveredPrepared(xid);
  return trx.ok() ? Rollback(**trx) : trx.status();
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

void Engine::OpenReadView(EngineTrx& trx) {
  if (trx.active() && trx.isolation() == IsolationLevel::kRepeatableRead) (void)trx_sys_->GetReadView(trx.trx_);
}

void Engine::EndStatement(EngineTrx& trx) {
  if (trx.active()) trx_sys_->EndStatement(trx.trx_);
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
  Result<std::optional<StoredRecord>> cur = ReadLatest(**t, rec.primary_key);
  if (!cur.ok()) return cur.status();
  return UndoRecordChange(**t, rec, *cur);
}

Status Engine::UndoRecordChange(const TableHandle& t, const UndoRecord& rec, const std::optional<StoredRecord>& cur) {
  // The record being undone owns its overflow chain unless the version it
  // goes back to has the same one (a delete mark changes no row bytes).
  if (rec.type == UndoType::kInsert) {
    if (!cur.has_value()) return Status::OK();  // the insert itself failed
    Result<bool> gone = t.clustered->Delete(rec.primary_key);
    if (!gone.ok()) return gone.status();
    return FreeStored(t, cur->row, cur->external);
  }
  std::string before_row;
  bool before_external = false;
  SLUICE_RETURN_IF_ERROR(engine_internal::BeforeRow(rec, &before_row, &before_external));
  if (!cur.has_value()) return Status::Corruption("engine: undo of an update finds no record");
  Result<bool> updated = t.clustered->Update(
      rec.primary_key,
      MakeRecord(rec.prev_trx_id, rec.prev_roll_ptr, rec.prev_delete_marked, before_external, before_row));
  if (!updated.ok()) return updated.status();
  if (!*updated) return Status::Corruption("engine: undo of an update finds no record");
  if (cur->external && (!before_external || cur->row != before_row)) return FreeStored(t, cur->row, true);
  return Status::OK();
}

// --- rows ---

Result<std::string> Engine::KeyFromPk(const TableDef& def, const Row& pk, bool allow_prefix) const {
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
  if (allow_prefix ? pk.empty() || pk.size() > parts.size() : pk.size() != parts.size()) {
    return Status::InvalidArgument("engine: wrong number of primary key values");
  }
  if (pk.size() < parts.size()) return EncodeKeyPrefix(def, def.clustered(), pk);
  Row sparse(def.columns.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    RowValue v = pk[i];
    SLUICE_RETURN_IF_ERROR(CheckColumnValue(def.columns[parts[i].column], &v, 1));
    sparse[parts[i].column] = std::move(v);
  }
  return EncodeClusteredKey(def, sparse, 0);
}

RecordId Engine::SupremumLockId(const TableHandle& t) {
  RecordId rid;
  rid.space_id = t.def->space_id;
  rid.page_no = 0xffffffffu;
  rid.heap_no = kSupremumHeapNo;
  return rid;
}

RecordId Engine::RowLockId(const TableHandle& t, std::string_view key) const {
  const uint64_t h = HashKey(t.def->space_id, key);
  RecordId rid;
  rid.space_id = t.def->space_id;
  rid.page_no = h >> 32;
  rid.heap_no = 2 + (h & 0xffff);
  return rid;
}

RecordId Engine::EntryLockId(const TableHandle& t, size_t index, std::string_view entry) const {
  // The index's id mixed in: an entry never shares a lock with a clustered
  // key or another index's entry (but for hash collisions, which only make
  // a lock wait that did not have to).
  const uint64_t h = HashKey(t.def->space_id, entry) ^ (t.def->indexes[index].id * 0x9e3779b97f4a7c15ull);
  RecordId rid;
  rid.space_id = t.def->space_id;
  rid.page_no = h >> 32;
  rid.heap_no = 2 + (h & 0xffff);
  return rid;
}

RecordId Engine::IndexSupremumLockId(const TableHandle& t, size_t index) {
  RecordId rid;
  rid.space_id = t.def->space_id;
  rid.page_no = 0xffffffffu - static_cast<uint32_t>(index);
  rid.heap_no = kSupremumHeapNo;
  return rid;
}

Status Engine::LockKey(EngineTrx& trx, const TableHandle& t, std::string_view key, LockMode mode,
                       RecLockType type) {
  return locks_->LockRecord(*trx.lock_trx_, RowLockId(t, key), mode, type, trx.lock_wait_timeout_);
}

Status Engine::LockSupremum(EngineTrx& trx, const TableHandle& t, LockMode mode, RecLockType type) {
  return locks_->LockRecord(*trx.lock_trx_, SupremumLockId(t), mode, type, trx.lock_wait_timeout_);
}

Result<std::optional<std::string>> Engine::NextKey(const TableHandle& t, std::string_view key) const {
  Result<BTree::Probe> p = t.clustered->ProbeKey(key, nullptr);
  if (!p.ok()) return p.status();
  return std::move(p->next);
}

Status Engine::LockBefore(EngineTrx& trx, const TableHandle& t, const std::optional<std::string>& next,
                          LockMode mode, RecLockType type) {
  return next.has_value() ? LockKey(trx, t, *next, mode, type) : LockSupremum(trx, t, mode, type);
}

Result<std::optional<Row>> Engine::GetLocked(EngineTrx& trx, uint64_t table_id, const Row& pk, LockMode mode) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (mode != LockMode::kS && mode != LockMode::kX) return Status::InvalidArgument("engine: lock mode S or X");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableHandle& t = **th;
  Result<std::string> key = KeyFromPk(*t.def, pk);
  if (!key.ok()) return key.status();
  SLUICE_RETURN_IF_ERROR(locks_->LockTable(*trx.lock_trx_, t.def->id,
                                           mode == LockMode::kX ? LockMode::kIX : LockMode::kIS,
                                           trx.lock_wait_timeout_));
  const bool gaps = trx.isolation() >= IsolationLevel::kRepeatableRead;
  // SKIP LOCKED: a record lock that would wait leaves the row out.
  for (;;) {
    Result<std::optional<StoredRecord>> cur = ReadLatest(t, *key);
    if (!cur.ok()) return cur.status();
    // A record, live or delete-marked, is locked as a record (SKIP LOCKED:
    // one whose lock would wait leaves the row out); a missing or
    // delete-marked one also has its gap locked.
    if (cur->has_value()) {
      Status s = LockKey(trx, t, *key, mode, RecLockType::kRecNotGap);
      if (!s.ok()) {
        if (trx.skip_locked_ && IsLockWaitTimeout(s)) return std::optional<Row>();
        return s;
      }
    }
    if (gaps && (!cur->has_value() || (*cur)->delete_marked)) {
      Result<std::optional<std::string>> next = NextKey(t, *key);
      if (!next.ok()) return next.status();
      SLUICE_RETURN_IF_ERROR(LockBefore(trx, t, *next, mode, RecLockType::kGap));
      // A key that appeared in that gap before the lock: lock again.
      Result<std::optional<std::string>> again = NextKey(t, *key);
      if (!again.ok()) return again.status();
      if (*again != *next) continue;
    }
    // Read again under the lock (it may have waited for a writer).
    Result<std::optional<StoredRecord>> locked = ReadLatest(t, *key);
    if (!locked.ok()) return locked.status();
    if (!locked->has_value() || (*locked)->delete_marked) {
      if (cur->has_value() != locked->has_value()) continue;  // it appeared: lock it as a record
      return std::optional<Row>();
    }
    if (!cur->has_value() || (*cur)->delete_marked) continue;  // it came back: REC_NOT_GAP it
    Result<Row> row = DecodeStored(t, **locked);
    if (!row.ok()) return row.status();
    Count(kRowsRead);
    return std::optional<Row>(std::move(row).value());
  }
}

Status Engine::ScanLocked(EngineTrx& trx, uint64_t table_id, const Row* from_pk, const Row* to_pk, uint64_t limit,
                          LockMode mode, const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (mode != LockMode::kS && mode != LockMode::kX) return Status::InvalidArgument("engine: lock mode S or X");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableHandle& t = **th;
  std::optional<std::string> from, to;
  if (from_pk != nullptr) {
    Result<std::string> k = KeyFromPk(*t.def, *from_pk, /*allow_prefix=*/true);
    if (!k.ok()) return k.status();
    from = std::move(k).value();
  }
  if (to_pk != nullptr) {
    Result<std::string> k = KeyFromPk(*t.def, *to_pk, /*allow_prefix=*/true);
    if (!k.ok()) return k.status();
    to = std::move(k).value();
  }
  SLUICE_RETURN_IF_ERROR(locks_->LockTable(*trx.lock_trx_, t.def->id,
                                           mode == LockMode::kX ? LockMode::kIX : LockMode::kIS,
                                           trx.lock_wait_timeout_));
  const bool gaps = trx.isolation() >= IsolationLevel::kRepeatableRead;
  const RecLockType rec_type = gaps ? RecLockType::kNextKey : RecLockType::kRecNotGap;
  // The key after `last` (or the first >= from when nothing is processed).
  std::optional<std::string> last;
  auto candidate = [&]() -> Result<std::optional<std::string>> {
    if (last) return NextKey(t, *last);
    BTree::Cursor c = t.clustered->NewCursor();
    SLUICE_RETURN_IF_ERROR(from ? c.Seek(*from) : c.SeekToFirst());
    if (!c.Valid()) return std::optional<std::string>();
    return std::optional<std::string>(std::string(c.key()));
  };
  uint64_t returned = 0;
  Status result;
  for (;;) {
    Result<std::optional<std::string>> k = candidate();
    if (!k.ok()) {
      result = k.status();
      break;
    }
    const bool past = !k->has_value() || (to && ComparePrefix(**k, *to) > 0);
    if (past && !gaps) break;
    Status s = LockBefore(trx, t, *k, mode, rec_type);
    if (!s.ok()) {
      if (trx.skip_locked_ && IsLockWaitTimeout(s)) {
        if (past) break;  // the record past the range: its gap stays unlocked
        last = std::move(*k);  // SKIP LOCKED: leave this record out
        continue;
      }
      result = s;
      break;
    }
    // A key may have been inserted before the locked one meanwhile: it is
    // in the locked gap's range, so take it first.
    Result<std::optional<std::string>> again = candidate();
    if (!again.ok()) {
      result = again.status();
      break;
    }
    if (*again != *k) continue;
    if (past) break;
    Result<std::optional<StoredRecord>> cur = ReadLatest(t, **k);
    if (!cur.ok()) {
      result = cur.status();
      break;
    }
    last = std::move(*k);
    if (!cur->has_value() || (*cur)->delete_marked) continue;
    Result<Row> row = DecodeStored(t, **cur);
    if (!row.ok()) {
      result = row.status();
      break;
    }
    if (t.def->has_hidden_row_id()) {
      // The row id, so the caller can Update / Delete the row.
      Result<uint64_t> id = KeyDecoder(*last).RowId();
      if (!id.ok()) {
        result = id.status();
        break;
      }
      row->push_back(*id);
    }
    ++returned;
    if (!fn(*row) || returned == limit) break;
  }
  Count(kRowsRead, returned);
  return result;
}

Status Engine::PrepareWrite(EngineTrx& trx, const TableHandle& t, std::string_view key) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.prepared_) return MakeError(er::kXaerRmfail, "PREPARED");
  if (trx.trx_.id() == kNoTrxId) {
    Result<TrxId> id = trx_sys_->AssignId(trx.trx_);
    if (!id.ok()) return id.status();
    trx.lock_trx_->set_id(*id);
  }
  if (!trx.undo_) {
    Result<std::unique_ptr<UndoLog>> log = undo_store_->CreateLog(trx.trx_.id());
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

Result<std::string> Engine::StoreRow(const TableHandle& t, std::string_view key, std::string enc, bool* external) {
  *external = key.size() + kRecordHeaderBytes + enc.size() > BTree::kMaxRecordSize;
  if (!*external) return enc;
  const uint64_t tag = next_overflow_tag_.fetch_add(1, std::memory_order_relaxed);
  Result<OverflowRef> ref = WriteOverflow(pool_.get(), t.def->space_id, enc, tag);
  if (!ref.ok()) return ref.status();
  return EncodeOverflowRef(*ref);
}

Result<Row> Engine::DecodeStored(const TableHandle& t, std::string_view row, bool external) const {
  Row out;
  SLUICE_RETURN_IF_ERROR(DecodeStoredInto(t, row, external, &out));
  return out;
}

Status Engine::DecodeStoredInto(const TableHandle& t, std::string_view row, bool external, Row* out) const {
  if (!external) return DecodeRowInto(*t.def, row, out);
  Result<OverflowRef> ref = DecodeOverflowRef(row);
  if (!ref.ok()) return ref.status();
  Result<std::string> bytes = ReadOverflow(pool_.get(), t.def->space_id, *ref);
  if (!bytes.ok()) return bytes.status();
  return DecodeRowInto(*t.def, *bytes, out);
}

Result<Row> Engine::DecodeStored(const TableHandle& t, const StoredRecord& r) const {
  return DecodeStored(t, r.row, r.external);
}

Status Engine::FreeStored(const TableHandle& t, std::string_view row, bool external) {
  if (!external) return Status::OK();
  Result<OverflowRef> ref = DecodeOverflowRef(row);
  if (!ref.ok()) return ref.status();
  return FreeOverflow(pool_.get(), t.def->space_id, *ref);
}

// `record` is the latest version, read after the view was taken. A
// Corruption may mean a lost race with a rollback that dropped the undo
// record being followed; callers re-read the record and retry.
Result<bool> Engine::VisibleRow(EngineTrx& trx, const TableHandle& t, std::string_view record, Row* out) {
  const ReadView* view = trx_sys_->GetReadView(trx.trx_);
  Result<StoredRecordView> r = ParseRecordView(record);
  if (!r.ok()) return r.status();
  // Most reads see the latest version: decode it where it lies.
  if (view == nullptr || view->Visible(r->trx_id)) {
    if (r->delete_marked) return false;
    SLUICE_RETURN_IF_ERROR(DecodeStoredInto(t, r->row, r->external, out));
    return true;
  }
  Accessor accessor(undo_store_.get());
  const RecordVersion v{r->trx_id, r->roll_ptr, r->delete_marked, std::string(r->row), r->external};
  Result<std::optional<RecordVersion>> visible = BuildVisibleVersion(v, view, accessor);
  if (!visible.ok()) return visible.status();
  if (!visible->has_value()) return false;
  SLUICE_RETURN_IF_ERROR(DecodeStoredInto(t, (*visible)->row, (*visible)->external, out));
  return true;
}

Result<std::optional<Row>> Engine::Get(EngineTrx& trx, uint64_t table_id, const Row& pk) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (trx.isolation() == IsolationLevel::kSerializable) return GetLocked(trx, table_id, pk, LockMode::kS);
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return t.status();
  Result<std::string> key = KeyFromPk(*(*t)->def, pk);
  if (!key.ok()) return key.status();
  (void)trx_sys_->GetReadView(trx.trx_);  // the view before the read
  Row row;
  Result<bool> visible = VisibleRowAt(trx, **t, *key, &row);
  if (!visible.ok()) return visible.status();
  if (!*visible) return std::optional<Row>();
  Count(kRowsRead);
  return std::optional<Row>(std::move(row));
}

Status Engine::Scan(EngineTrx& trx, uint64_t table_id, const std::function<bool(const Row&)>& fn) {
  if (trx.isolation() == IsolationLevel::kSerializable) {
    return ScanLocked(trx, table_id, nullptr, nullptr, 0, LockMode::kS, fn);
  }
  return ScanFrom(trx, table_id, nullptr, 0, fn);
}

Status Engine::ScanRange(EngineTrx& trx, uint64_t table_id, const Row& from_pk, uint64_t limit,
                         const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return t.status();
  if (trx.isolation() == IsolationLevel::kSerializable) {
    return ScanLocked(trx, table_id, &from_pk, nullptr, limit, LockMode::kS, fn);
  }
  Result<std::string> key = KeyFromPk(*(*t)->def, from_pk);
  if (!key.ok()) return key.status();
  return ScanFrom(trx, table_id, &*key, limit, fn);
}

Status Engine::ScanFrom(EngineTrx& trx, uint64_t table_id, const std::string* start, uint64_t limit,
                        const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return t.status();
  (void)trx_sys_->GetReadView(trx.trx_);
  BTree::Cursor c = (*t)->clustered->NewCursor();
  SLUICE_RETURN_IF_ERROR(start == nullptr ? c.SeekToFirst() : c.Seek(*start));
  uint64_t returned = 0;
  Row row;  // every row is decoded into this one
  while (c.Valid()) {
    Result<bool> visible = VisibleRow(trx, **t, c.value(), &row);
    if (!visible.ok() && visible.status().code() == Status::Code::kCorruption) {
      visible = VisibleRowAt(trx, **t, c.key(), &row);
    }
    if (!visible.ok()) {
      Count(kRowsRead, returned);
      return visible.status();
    }
    if (*visible) {
      ++returned;
      if (!fn(row) || returned == limit) break;
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
          Result<Row> row = DecodeStored(t, **cur);
          if (!row.ok()) return row.status();
          Result<std::string> k = EncodeIndexKey(def, idx, *row);
          if (!k.ok()) return k.status();
          if (*k == *new_ikey) {
            return MakeError(er::kDupEntry, KeyText(def, idx, *new_row), def.name + "." + idx.name);
          }
        }
      }
      SLUICE_RETURN_IF_ERROR(c.Next());
    }
  }
  return Status::OK();
}

// A secondary entry's insert, decided under its leaf's exclusive latch as
// NewKeyCheck decides a clustered one: an insert-intention lock on the
// next entry (or the index's supremum), tried without waiting.
class Engine::EntryCheck final : public BTree::InsertCheck {
 public:
  EntryCheck(Engine* engine, EngineTrx* trx, const TableHandle* t, size_t index)
      : engine_(engine), trx_(trx), t_(t), index_(index) {}

  Status BeforeInsert(const BTree::NextAfter& next) override {
    if (next.kind == BTree::NextAfter::Kind::kUnknown) {
      unknown_next_ = true;
      return Status::OK();
    }
    const RecordId rid = next.kind == BTree::NextAfter::Kind::kKey
                             ? engine_->EntryLockId(*t_, index_, next.key)
                             : IndexSupremumLockId(*t_, index_);
    if (engine_->locks_->TryInsertIntention(*trx_->lock_trx_, rid)) return Status::OK();
    must_wait_ = true;
    wait_on_ = rid;
    return LockWaitTimeoutError();  // (seen by nobody: AddSecondaryEntries waits)
  }

  bool must_wait() const { return must_wait_; }
  const RecordId& wait_on() const { return wait_on_; }
  bool unknown_next() const { return unknown_next_; }

 private:
  Engine* engine_;
  EngineTrx* trx_;
  const TableHandle* t_;
  size_t index_;
  bool must_wait_ = false;
  RecordId wait_on_;
  bool unknown_next_ = false;
};

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
    // The entry goes in only when no other transaction's gap lock covers
    // its place (IndexScanLocked): an insert-intention lock on the entry
    // after it, decided under the leaf latch; when it would wait, the
    // insert waits for it holding no latch and tries again.
    for (;;) {
      EntryCheck check(this, &trx, &t, i);
      Status st = tree->Insert(entry, "", &check);
      if (st.ok()) {
        if (check.unknown_next()) {
          // The next entry lay past an empty leaf: locked after the insert.
          Result<BTree::Probe> p = tree->ProbeKey(entry, nullptr);
          if (!p.ok()) return p.status();
          const RecordId rid = p->next ? EntryLockId(t, i, *p->next) : IndexSupremumLockId(t, i);
          SLUICE_RETURN_IF_ERROR(locks_->LockRecord(*trx.lock_trx_, rid, LockMode::kX,
                                                    RecLockType::kInsertIntention, trx.lock_wait_timeout_));
        }
        trx.sec_added_[roll_ptr.raw()].emplace_back(i, std::move(entry));
        break;
      }
      if (check.must_wait()) {
        SLUICE_RETURN_IF_ERROR(locks_->LockRecord(*trx.lock_trx_, check.wait_on(), LockMode::kX,
                                                  RecLockType::kInsertIntention, trx.lock_wait_timeout_));
        continue;
      }
      if (st.mysql_errno() == er::kDupEntry.code) break;  // the entry is there already (kept since)
      return st;
    }
  }
  return Status::OK();
}

std::optional<uint64_t> Engine::NextAutoIncrement(uint64_t table_id) const {
  Result<std::shared_ptr<TableHandle>> t = FindHandle(table_id);
  if (!t.ok()) return std::nullopt;
  MutexLock lock(&(*t)->mu);
  return (*t)->auto_inc_next;
}

Status Engine::IndexLookup(EngineTrx& trx, uint64_t table_id, std::string_view index_name, const Row& key,
                           const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableDef& def = *(*th)->def;
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
  if (index == 0 || (*th)->secondary[index - 1] == nullptr) {
    return Status::InvalidArgument(fmt::format("engine: no secondary index '{}' on {}", index_name, def.name));
  }
  if (key.size() != def.indexes[index].parts.size()) {
    return Status::InvalidArgument("engine: wrong number of index key values");
  }
  const KeyBound bound{key, true};
  return IndexScan(trx, table_id, index, &bound, &bound, /*reverse=*/false, fn);
}

Status Engine::IndexScanLocked(EngineTrx& trx, uint64_t table_id, size_t index, const KeyBound* lo,
                               const KeyBound* hi, LockMode mode, const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  if (mode != LockMode::kS && mode != LockMode::kX) return Status::InvalidArgument("engine: lock mode S or X");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableHandle& t = **th;
  const TableDef& def = *t.def;
  if (index == 0 || index >= def.indexes.size() || t.secondary[index - 1] == nullptr) {
    return Status::InvalidArgument(fmt::format("engine: no secondary index #{} on {}", index, def.name));
  }
  const IndexDef& idx = def.indexes[index];
  const BTree& tree = *t.secondary[index - 1];
  std::string lo_key, hi_key;
  SLUICE_RETURN_IF_ERROR(EncodeBounds(def, idx, lo, hi, &lo_key, &hi_key));
  auto after_hi = [&](std::string_view key) {
    if (hi == nullptr) return false;
    const int c = ComparePrefix(key, hi_key);
    return c > 0 || (c == 0 && !hi->inclusive);
  };
  SLUICE_RETURN_IF_ERROR(locks_->LockTable(*trx.lock_trx_, def.id,
                                           mode == LockMode::kX ? LockMode::kIX : LockMode::kIS,
                                           trx.lock_wait_timeout_));
  const bool gaps = trx.isolation() >= IsolationLevel::kRepeatableRead;
  // The entry after `last`, or the first in the range when nothing is
  // processed yet; nullopt past the index's end.
  std::optional<std::string> last;
  auto candidate = [&]() -> Result<std::optional<std::string>> {
    BTree::Cursor c = tree.NewCursor();
    if (last) {
      SLUICE_RETURN_IF_ERROR(c.Seek(*last));
      if (c.Valid() && c.key() == *last) SLUICE_RETURN_IF_ERROR(c.Next());
    } else {
      Result<bool> positioned = SeekRangeStart(c, lo, lo_key);
      if (!positioned.ok()) return positioned.status();
      if (!*positioned) return std::optional<std::string>();
    }
    if (!c.Valid()) return std::optional<std::string>();
    return std::optional<std::string>(std::string(c.key()));
  };
  uint64_t returned = 0;
  for (;;) {
    Result<std::optional<std::string>> k = candidate();
    if (!k.ok()) return k.status();
    const bool past = !k->has_value() || after_hi(**k);
    if (past && !gaps) break;
    // The entry (with the gap before it), or for the first one past the
    // range only the gap.
    const RecordId rid = k->has_value() ? EntryLockId(t, index, **k) : IndexSupremumLockId(t, index);
    const RecLockType type = past ? RecLockType::kGap : gaps ? RecLockType::kNextKey : RecLockType::kRecNotGap;
    Status s = locks_->LockRecord(*trx.lock_trx_, rid, mode, type, trx.lock_wait_timeout_);
    if (!s.ok()) {
      if (!(trx.skip_locked_ && IsLockWaitTimeout(s))) return s;
      if (past) break;
      last = std::move(*k);  // SKIP LOCKED: leave this entry out
      continue;
    }
    // An entry may have come in before the locked one meanwhile: it lies in
    // the locked gap's range, so take it first.
    Result<std::optional<std::string>> again = candidate();
    if (!again.ok()) return again.status();
    if (*again != *k) continue;
    if (past) break;
    last = std::move(*k);
    Result<size_t> klen = IndexKeyLength(def, idx, *last);
    if (!klen.ok()) return klen.status();
    const std::string pk = last->substr(*klen);
    s = LockKey(trx, t, pk, mode, RecLockType::kRecNotGap);
    if (!s.ok()) {
      if (trx.skip_locked_ && IsLockWaitTimeout(s)) continue;
      return s;
    }
    Result<std::optional<StoredRecord>> cur = ReadLatest(t, pk);
    if (!cur.ok()) return cur.status();
    if (!cur->has_value() || (*cur)->delete_marked) continue;
    Result<Row> row = DecodeStored(t, **cur);
    if (!row.ok()) return row.status();
    // Entries are not versioned: the latest version must still have this
    // entry's key (else the row comes under its own key's entry).
    Result<std::string> ik = EncodeIndexKey(def, idx, *row);
    if (!ik.ok()) return ik.status();
    if (*ik != std::string_view(*last).substr(0, *klen)) continue;
    if (def.has_hidden_row_id()) {
      Result<uint64_t> id = KeyDecoder(pk).RowId();
      if (!id.ok()) return id.status();
      row->push_back(*id);
    }
    ++returned;
    if (!fn(*row)) break;
  }
  Count(kRowsRead, returned);
  return Status::OK();
}

Result<bool> Engine::VisibleRowAt(EngineTrx& trx, const TableHandle& t, std::string_view key, Row* out) {
  Result<bool> visible = false;
  std::string value;
  for (int attempt = 0; attempt <= kReadRetries; ++attempt) {
    Result<bool> found = t.clustered->Get(key, &value);
    if (!found.ok()) return found.status();
    if (!*found) return false;
    visible = VisibleRow(trx, t, value, out);
    if (visible.ok() || visible.status().code() != Status::Code::kCorruption) break;
  }
  return visible;
}

Status Engine::IndexScan(EngineTrx& trx, uint64_t table_id, size_t index, const KeyBound* lo, const KeyBound* hi,
                         bool reverse, const std::function<bool(const Row&)>& fn) {
  if (!trx.active()) return Status::InvalidArgument("engine: transaction is not active");
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableHandle& t = **th;
  const TableDef& def = *t.def;
  if (index >= def.indexes.size() || (index > 0 && t.secondary[index - 1] == nullptr)) {
    return Status::InvalidArgument(fmt::format("engine: no index #{} on {}", index, def.name));
  }
  const IndexDef& idx = def.indexes[index];
  const BTree& tree = index == 0 ? *t.clustered : *t.secondary[index - 1];
  std::string lo_key, hi_key;
  SLUICE_RETURN_IF_ERROR(EncodeBounds(def, idx, lo, hi, &lo_key, &hi_key));
  // Whether `key` lies before the lower / after the upper bound.
  auto before_lo = [&](std::string_view key) {
    if (lo == nullptr) return false;
    const int c = ComparePrefix(key, lo_key);
    return c < 0 || (c == 0 && !lo->inclusive);
  };
  auto after_hi = [&](std::string_view key) {
    if (hi == nullptr) return false;
    const int c = ComparePrefix(key, hi_key);
    return c > 0 || (c == 0 && !hi->inclusive);
  };
  (void)trx_sys_->GetReadView(trx.trx_);  // the view before the read
  BTree::Cursor c = tree.NewCursor();
  // Position on the first key of the range in the scan's direction. Past
  // an inclusive bound means past every key starting with it: its prefix
  // successor.
  if (!reverse) {
    Result<bool> positioned = SeekRangeStart(c, lo, lo_key);
    if (!positioned.ok()) return positioned.status();
    if (!*positioned) return Status::OK();  // nothing sorts after the bound
  } else {
    std::optional<std::string> end;  // the first key past the range
    if (hi != nullptr) end = hi->inclusive ? PrefixSuccessor(hi_key) : std::optional<std::string>(hi_key);
    if (end) {
      SLUICE_RETURN_IF_ERROR(c.Seek(*end));
      SLUICE_RETURN_IF_ERROR(c.Valid() ? c.Prev() : c.SeekToLast());
    } else {
      SLUICE_RETURN_IF_ERROR(c.SeekToLast());
    }
  }
  uint64_t returned = 0;
  Status result;
  Row row;  // every row is decoded into this one
  for (; c.Valid(); result = reverse ? c.Prev() : c.Next()) {  // a failed move ends the loop: !Valid()
    const std::string_view key = c.key();
    if (reverse ? before_lo(key) : after_hi(key)) break;
    Result<bool> visible = false;
    if (index == 0) {
      visible = VisibleRow(trx, t, c.value(), &row);
      if (!visible.ok() && visible.status().code() == Status::Code::kCorruption) {
        visible = VisibleRowAt(trx, t, key, &row);
      }
    } else {
      Result<size_t> klen = IndexKeyLength(def, idx, key);
      if (!klen.ok()) {
        result = klen.status();
        break;
      }
      visible = VisibleRowAt(trx, t, key.substr(*klen), &row);
      if (visible.ok() && *visible) {
        // Entries are not versioned: the visible version must still have
        // this entry's key (else it comes under its own key's entry).
        Result<std::string> k = EncodeIndexKey(def, idx, row);
        if (!k.ok()) {
          result = k.status();
          break;
        }
        if (*k != key.substr(0, *klen)) visible = false;
      }
    }
    if (!visible.ok()) {
      result = visible.status();
      break;
    }
    if (!*visible) continue;
    ++returned;
    if (!fn(row)) break;
  }
  Count(kRowsRead, returned);
  return result;
}

// A new key's insert, decided under its leaf's exclusive latch (as InnoDB's
// lock_rec_insert_check_and_lock): the insert-intention lock on the key's
// successor is tried without waiting, and granted it leaves no lock; only
// then is the undo record written and its roll pointer put in the record.
// When the lock would wait, the insert is abandoned and the successor kept,
// for the caller to wait on holding no latch. The lock manager is only
// tried (TryInsertIntention); undo and redo logs never take page latches,
// so they may be entered under one.
class Engine::NewKeyCheck final : public BTree::InsertCheck {
 public:
  NewKeyCheck(Engine* engine, EngineTrx* trx, const TableHandle* t, const std::string* key, std::string* record)
      : engine_(engine), trx_(trx), t_(t), key_(key), record_(record) {}

  Status BeforeInsert(const BTree::NextAfter& next) override {
    if (next.kind != BTree::NextAfter::Kind::kUnknown) {
      const RecordId rid = next.kind == BTree::NextAfter::Kind::kKey ? engine_->RowLockId(*t_, next.key)
                                                                     : SupremumLockId(*t_);
      if (!engine_->locks_->TryInsertIntention(*trx_->lock_trx_, rid)) {
        must_wait_ = true;
        if (next.kind == BTree::NextAfter::Kind::kKey) wait_on_.emplace(next.key);
        return LockWaitTimeoutError();  // (seen by nobody: InsertLocked waits)
      }
    }
    unknown_next_ = next.kind == BTree::NextAfter::Kind::kUnknown;
    UndoRecord u;
    u.type = UndoType::kInsert;
    u.table_id = t_->def->id;
    u.primary_key = *key_;
    Result<RollPtr> rp = engine_->AppendUndo(*trx_, std::move(u));
    if (!rp.ok()) return rp.status();
    roll_ptr_ = *rp;
    SetRecordRollPtr(record_, *rp);
    return Status::OK();
  }

  // After an abandoned insert: whether it waits for the lock before the
  // successor `wait_on()` (nullopt: the supremum).
  bool must_wait() const { return must_wait_; }
  const std::optional<std::string>& wait_on() const { return wait_on_; }
  // After an insert: its undo record, and whether the successor is still
  // to be locked (it sat past an empty leaf).
  RollPtr roll_ptr() const { return roll_ptr_; }
  bool unknown_next() const { return unknown_next_; }

 private:
  Engine* engine_;
  EngineTrx* trx_;
  const TableHandle* t_;
  const std::string* key_;
  std::string* record_;
  bool must_wait_ = false;
  std::optional<std::string> wait_on_;
  RollPtr roll_ptr_;
  bool unknown_next_ = false;
};

// A chain StoreRow wrote for a new version that no record refers to yet:
// freed when the guard goes, unless Keep() says a record took it.
class Engine::PendingChain {
 public:
  PendingChain(Engine* engine, const TableHandle& t, const std::string& row, bool external)
      : engine_(engine), t_(t), row_(row), owned_(external) {}
  PendingChain(const PendingChain&) = delete;
  PendingChain& operator=(const PendingChain&) = delete;
  ~PendingChain() {
    if (owned_) (void)engine_->FreeStored(t_, row_, /*external=*/true);
  }
  void Keep() { owned_ = false; }

 private:
  Engine* engine_;
  const TableHandle& t_;
  const std::string& row_;
  bool owned_;
};

Status Engine::InsertLocked(EngineTrx& trx, TableHandle& t, const std::string& key, const Row& row) {
  const TableDef& def = *t.def;
  Result<std::string> enc = EncodeRow(def, row);
  if (!enc.ok()) return enc.status();
  auto duplicate = [&]() {
    return MakeError(er::kDupEntry, KeyText(def, def.clustered(), row), def.name + "." + def.clustered().name);
  };
  // A duplicate primary key is reported before a duplicate unique value,
  // as InnoDB's clustered insert comes before the secondary ones; the
  // unique values are locked and checked before the row goes in.
  bool unique_checked = false;
  const bool has_unique =
      std::any_of(def.indexes.begin() + 1, def.indexes.end(), [](const IndexDef& i) { return i.unique; });
  if (has_unique) {
    Result<std::optional<StoredRecord>> cur = ReadLatest(t, key);
    if (!cur.ok()) return cur.status();
    if (cur->has_value() && !(*cur)->delete_marked) return duplicate();
    SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, key, nullptr, &row));
    unique_checked = true;
  }
  bool external = false;
  Result<std::string> stored = StoreRow(t, key, std::move(enc).value(), &external);
  if (!stored.ok()) return stored.status();
  PendingChain chain(this, t, *stored, external);
  std::string record = MakeRecord(trx.id(), RollPtr(), false, external, *stored);
  for (;;) {
    NewKeyCheck check(this, &trx, &t, &key, &record);
    Status s = t.clustered->Insert(key, record, &check);
    if (s.ok()) {
      chain.Keep();
      if (check.unknown_next()) {
        // Locked after the insert: the next key lay past an empty leaf.
        Result<std::optional<std::string>> next = NextKey(t, key);
        if (!next.ok()) return next.status();
        SLUICE_RETURN_IF_ERROR(LockBefore(trx, t, *next, LockMode::kX, RecLockType::kInsertIntention));
      }
      return AddSecondaryEntries(trx, t, key, nullptr, row, check.roll_ptr());
    }
    if (check.must_wait()) {
      // A gap lock covers the key: wait for it without latches, then try again.
      SLUICE_RETURN_IF_ERROR(LockBefore(trx, t, check.wait_on(), LockMode::kX, RecLockType::kInsertIntention));
      continue;
    }
    if (s.mysql_errno() != er::kDupEntry.code) return s;
    // The key is there. Live, it is a duplicate; delete-marked, the insert
    // updates it; gone (purged meanwhile), the insert tries again.
    Result<std::optional<StoredRecord>> cur = ReadLatest(t, key);
    if (!cur.ok()) return cur.status();
    if (!cur->has_value()) continue;
    if (!(*cur)->delete_marked) return duplicate();
    if (!unique_checked) SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, key, nullptr, &row));
    const StoredRecord& old = **cur;
    UndoRecord u;
    u.table_id = def.id;
    u.primary_key = key;
    u.type = UndoType::kUpdate;
    u.prev_trx_id = old.trx_id;
    u.prev_roll_ptr = old.roll_ptr;
    u.prev_delete_marked = true;
    u.before_image.push_back(engine_internal::RowImage(old.row, old.external));
    Result<RollPtr> rp = AppendUndo(trx, std::move(u));
    if (!rp.ok()) return rp.status();
    Result<bool> updated = t.clustered->Update(key, MakeRecord(trx.id(), *rp, false, external, *stored));
    if (!updated.ok()) return updated.status();
    // The undo record holds the row it replaced (its chain goes at purge);
    // this version's chain is the record's now.
    chain.Keep();
    // The delete-marked row's entries were kept; existing ones stay as they are.
    return AddSecondaryEntries(trx, t, key, nullptr, row, *rp);
  }
}

Status Engine::DeleteMarkLocked(EngineTrx& trx, TableHandle& t, const std::string& key, const StoredRecord& cur) {
  // The secondary entries stay (see engine.h); the unique values are locked.
  Result<Row> old_row = DecodeStored(t, cur);
  if (!old_row.ok()) return old_row.status();
  SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, key, &*old_row, nullptr));
  UndoRecord u;
  u.type = UndoType::kDeleteMark;
  u.table_id = t.def->id;
  u.primary_key = key;
  u.prev_trx_id = cur.trx_id;
  u.prev_roll_ptr = cur.roll_ptr;
  u.prev_delete_marked = cur.delete_marked;
  u.before_image.push_back(engine_internal::RowImage(cur.row, cur.external));
  Result<RollPtr> rp = AppendUndo(trx, std::move(u));
  if (!rp.ok()) return rp.status();
  // The delete-marked record keeps the row, and its chain, until purge.
  Result<bool> updated = t.clustered->Update(key, MakeRecord(trx.id(), *rp, true, cur.external, cur.row));
  return updated.status();
}

Result<uint64_t> Engine::Insert(EngineTrx& trx, uint64_t table_id, Row row, Row* stored) {
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
    MutexLock lock(&t.mu);
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
  if (stored != nullptr) *stored = std::move(row);
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
  Result<Row> old_row = DecodeStored(t, **cur);
  if (!old_row.ok()) return old_row.status();
  SLUICE_RETURN_IF_ERROR(LockAndCheckUnique(trx, t, *key, &*old_row, &new_row));
  // A new version always gets a chain of its own: every chain has one owner.
  bool external = false;
  Result<std::string> stored = StoreRow(t, *key, std::move(enc).value(), &external);
  if (!stored.ok()) return stored.status();
  UndoRecord u;
  u.type = UndoType::kUpdate;
  u.table_id = def.id;
  u.primary_key = *key;
  u.prev_trx_id = (*cur)->trx_id;
  u.prev_roll_ptr = (*cur)->roll_ptr;
  u.prev_delete_marked = false;
  u.before_image.push_back(engine_internal::RowImage((*cur)->row, (*cur)->external));
  const UndoPos sp = trx.undo_->position();
  Result<RollPtr> rp = AppendUndo(trx, std::move(u));
  PendingChain chain(this, t, *stored, external);
  if (!rp.ok()) return rp.status();
  Result<bool> updated = t.clustered->Update(*key, MakeRecord(trx.id(), *rp, false, external, *stored));
  if (updated.ok() && *updated) chain.Keep();  // the record's now; undoing the statement frees it
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

void Engine::SimulateCrashForTesting() {
  crashed_.store(true);
  StopBackgroundThreads();
  closed_ = true;
}

Status Engine::CheckTable(uint64_t table_id, CheckLevel level) {
  Result<std::shared_ptr<TableHandle>> th = FindHandle(table_id);
  if (!th.ok()) return th.status();
  const TableHandle& t = **th;
  const TableDef& def = *t.def;
  SLUICE_RETURN_IF_ERROR(t.clustered->Verify());
  for (const auto& tree : t.secondary) {
    if (tree) SLUICE_RETURN_IF_ERROR(tree->Verify());
  }
  const bool purged = level == CheckLevel::kPurged;
  BTree::Cursor c = t.clustered->NewCursor();
  SLUICE_RETURN_IF_ERROR(c.SeekToFirst());
  std::string ignored;
  while (c.Valid()) {
    Result<StoredRecord> r = ParseRecord(c.value());
    if (!r.ok()) return r.status();
    if (r->delete_marked && purged) {
      return Status::Corruption(fmt::format("engine: {} has a delete-marked record purge left", def.name));
    }
    Result<Row> row = r->delete_marked ? Result<Row>(Row{}) : DecodeStored(t, *r);
    if (!row.ok()) return row.status();
    for (size_t i = 1; !r->delete_marked && i < def.indexes.size(); ++i) {
      BTree* tree = t.secondary[i - 1].get();
      if (tree == nullptr) continue;
      Result<std::string> k = EncodeIndexKey(def, def.indexes[i], *row);
      if (!k.ok()) return k.status();
      Result<bool> found = tree->Get(*k + std::string(c.key()), &ignored);
      if (!found.ok()) return found.status();
      if (!*found) {
        return Status::Corruption(fmt::format("engine: index {}.{} has no entry for a row of {}", def.name,
                                              def.indexes[i].name, def.name));
      }
    }
    SLUICE_RETURN_IF_ERROR(c.Next());
  }
  // Every entry belongs to the latest row (so the counts match).
  for (size_t i = 1; purged && i < def.indexes.size(); ++i) {
    BTree* tree = t.secondary[i - 1].get();
    if (tree == nullptr) continue;
    BTree::Cursor e = tree->NewCursor();
    SLUICE_RETURN_IF_ERROR(e.SeekToFirst());
    while (e.Valid()) {
      Result<size_t> n = IndexKeyLength(def, def.indexes[i], e.key());
      if (!n.ok()) return n.status();
      Result<std::optional<StoredRecord>> cur = ReadLatest(t, e.key().substr(*n));
      if (!cur.ok()) return cur.status();
      Result<std::string> k = Status::Corruption("no row");
      if (cur->has_value() && !(*cur)->delete_marked) {
        Result<Row> row = DecodeStored(t, **cur);
        if (!row.ok()) return row.status();
        k = EncodeIndexKey(def, def.indexes[i], *row);
      }
      if (!k.ok() || *k != e.key().substr(0, *n)) {
        return Status::Corruption(fmt::format("engine: index {}.{} has an entry purge left", def.name,
                                              def.indexes[i].name));
      }
      SLUICE_RETURN_IF_ERROR(e.Next());
    }
  }
  return Status::OK();
}

std::vector<std::pair<std::string_view, uint64_t>> Engine::StatusVars() const {
  std::vector<std::pair<std::string_view, uint64_t>> out = Counters().AsStatusVars();
  const BufferPoolStats bp = pool_->GetStats();
  const RedoLog::Stats log = redo_->stats();
  out.insert(out.end(), {
      {"Innodb_buffer_pool_pages_data", bp.pages_data},
      {"Innodb_buffer_pool_pages_dirty", bp.pages_dirty},
      {"Innodb_buffer_pool_pages_flushed", bp.pages_flushed},
      {"Innodb_buffer_pool_pages_free", bp.pages_free},
      {"Innodb_buffer_pool_pages_total", bp.pages_total},
      {"Innodb_buffer_pool_read_requests", bp.read_requests},
      {"Innodb_buffer_pool_reads", bp.reads},
      {"Innodb_buffer_pool_wait_free", bp.wait_free},
      {"Innodb_data_fsyncs", bp.data_fsyncs + log.fsyncs},
      {"Innodb_data_read", bp.data_read},
      {"Innodb_data_reads", bp.data_reads},
      {"Innodb_data_writes", bp.data_writes + log.writes},
      {"Innodb_data_written", bp.data_written + log.bytes_written},
      {"Innodb_log_writes", log.writes},
      {"Innodb_os_log_fsyncs", log.fsyncs},
      {"Innodb_os_log_written", log.bytes_written},
      {"Innodb_pages_created", bp.pages_created},
      {"Innodb_pages_read", bp.pages_read},
      {"Innodb_pages_written", bp.pages_written},
  });
  return out;
}

}  // namespace sluice::storage
