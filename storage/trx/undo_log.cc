#include "storage/trx/undo_log.h"

#include <algorithm>
#include <string>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace sluice::storage {
namespace {
// In-memory roll pointer location: slot (31 bits) << 32 | index (32 bits).
constexpr int kIndexBits = 32;
constexpr uint64_t kMaxSlot = (uint64_t{1} << 31) - 1;
constexpr uint64_t kMaxIndex = (uint64_t{1} << kIndexBits) - 1;
}  // namespace

struct MemUndoStore::LogData {
  enum class State : uint8_t { kActive, kCommitted, kRolledBack };
  LogData(uint64_t s, TrxId t) : slot(s), trx(t) {}
  const uint64_t slot;
  const TrxId trx;
  mutable Mutex mu;
  // The records, encoded one after another (for readers; the owner appends
  // and rolls back under mu): record i ends at ends[i] and begins where
  // record i - 1 ends (Record(i)). A short transaction's are in place: no
  // allocation beyond the LogData itself.
  boost::container::small_vector<char, 192> bytes GUARDED_BY(mu);
  boost::container::small_vector<size_t, 4> ends GUARDED_BY(mu);
  State state GUARDED_BY(mu) = State::kActive;
  uint64_t commit_no GUARDED_BY(mu) = 0;

  size_t count() const REQUIRES(mu) { return ends.size(); }
  std::string_view Record(size_t i) const REQUIRES(mu) {
    const size_t begin = i == 0 ? 0 : ends[i - 1];
    return {bytes.data() + begin, ends[i] - begin};
  }
};

class MemUndoStore::Log final : public UndoLog {
 public:
  explicit Log(std::shared_ptr<LogData> data) : data_(std::move(data)) {}

  Result<RollPtr> Append(UndoRecord rec) override {
    rec.undo_no = position();  // the owner is the only one that appends
    std::string bytes;
    EncodeUndoRecord(rec, &bytes);
    return AppendEncoded(bytes);
  }

  Result<RollPtr> AppendEncoded(std::string_view encoded) override {
    uint64_t index;
    {
      MutexLock l(&data_->mu);
      if (data_->state != LogData::State::kActive) return Status::InvalidArgument("undo log has ended");
      index = data_->count();
      if (index > kMaxIndex) return Status::MySQL(1105, "HY000", "undo log full");
      data_->bytes.insert(data_->bytes.end(), encoded.begin(), encoded.end());
      data_->ends.push_back(data_->bytes.size());
    }
    return RollPtr::Make(IsEncodedInsert(encoded), (data_->slot << kIndexBits) | index);
  }

  UndoPos position() const override {
    MutexLock l(&data_->mu);
    return data_->count();
  }

  Status RollbackTo(UndoPos pos, const ApplyFn& apply) override {
    for (;;) {
      std::string bytes;
      uint64_t index;
      {
        MutexLock l(&data_->mu);
        if (pos > data_->count()) return Status::InvalidArgument("savepoint is past the end of the undo log");
        if (data_->count() == pos) return Status::OK();
        index = data_->count() - 1;
        bytes = data_->Record(index);
      }
      Result<UndoRecord> rec = DecodeUndoRecord(bytes);
      if (!rec.ok()) return rec.status();
      // The engine's callback runs without our mutex: it takes page latches.
      SLUICE_RETURN_IF_ERROR(
          apply(*rec, RollPtr::Make(rec->type == UndoType::kInsert, (data_->slot << kIndexBits) | index)));
      MutexLock l(&data_->mu);
      data_->ends.pop_back();
      data_->bytes.resize(data_->ends.empty() ? 0 : data_->ends.back());
    }
  }

  void MarkCommitted(uint64_t commit_no) override {
    MutexLock l(&data_->mu);
    data_->state = LogData::State::kCommitted;
    data_->commit_no = commit_no;
  }

  void MarkRolledBack() override {
    MutexLock l(&data_->mu);
    data_->state = LogData::State::kRolledBack;
  }

 private:
  std::shared_ptr<LogData> data_;
};

MemUndoStore::~MemUndoStore() = default;

void MemUndoStore::NoteGrowth(Shard& shard) {
  shard.peak = std::max(shard.peak, shard.logs.size() + shard.slot_of_trx.size());
}

void MemUndoStore::TrimIfEmpty(Shard& shard) {
  if (shard.peak <= kKeptNodes || !shard.logs.empty() || !shard.slot_of_trx.empty()) return;
  // An empty unordered_map still holds its bucket array, from the pool; a
  // new one holds nothing. Then nothing in the pool is in use.
  decltype(shard.slot_of_trx)(&shard.nodes).swap(shard.slot_of_trx);
  shard.nodes.release();
  shard.peak = 0;
}

Result<std::unique_ptr<UndoLog>> MemUndoStore::CreateLog(TrxId trx) {
  // Slots wrap (at 20000 transactions a second 2^31 - 1 of them last 30
  // hours) and skip one still in use: a purged log's slot is free again,
  // since no correct caller follows a roll pointer into a purged log.
  std::shared_ptr<LogData> data;
  uint64_t slot = 0;
  for (int tries = 0; data == nullptr; ++tries) {
    if (tries == 1024) return Status::MySQL(1105, "HY000", "undo slots exhausted");
    slot = (next_slot_.fetch_add(1, std::memory_order_relaxed) - 1) % kMaxSlot + 1;
    Shard& shard = ShardOfSlot(slot);
    WriterMutexLock l(&shard.mu);
    if (shard.logs.count(slot) != 0) continue;
    data = std::make_shared<LogData>(slot, trx);
    shard.logs.emplace(slot, data);
    NoteGrowth(shard);
  }
  {
    Shard& shard = ShardOfTrx(trx);
    WriterMutexLock l(&shard.mu);
    shard.slot_of_trx[trx] = slot;  // the transaction's newest log (its logs come one after another)
    NoteGrowth(shard);
  }
  return std::unique_ptr<UndoLog>(new Log(std::move(data)));
}

Result<UndoRecord> MemUndoStore::Fetch(RollPtr roll_ptr) const {
  uint64_t slot = roll_ptr.location() >> kIndexBits;
  uint64_t index = roll_ptr.location() & kMaxIndex;
  const Shard& shard = ShardOfSlot(slot);
  ReaderMutexLock l(&shard.mu);
  auto it = shard.logs.find(slot);
  if (it == shard.logs.end()) return Status::Corruption("undo record not found: log purged or never written");
  std::string bytes;
  {
    MutexLock dl(&it->second->mu);
    if (index >= it->second->count()) return Status::Corruption("undo record not found: rolled back");
    bytes = it->second->Record(index);
  }
  return DecodeUndoRecord(bytes);
}

Result<size_t> MemUndoStore::Purge(TrxId purge_limit, std::vector<PurgedLog>* committed) {
  std::vector<std::shared_ptr<LogData>> freed_committed;
  std::vector<std::pair<TrxId, uint64_t>> freed_slots;  // (trx, slot)
  for (Shard& shard : shards_) {
    WriterMutexLock l(&shard.mu);
    for (auto it = shard.logs.begin(); it != shard.logs.end();) {
      LogData& d = *it->second;
      bool drop, was_committed;
      {
        MutexLock dl(&d.mu);
        was_committed = d.state == LogData::State::kCommitted;
        drop = d.state == LogData::State::kRolledBack || (was_committed && d.commit_no < purge_limit);
      }
      if (!drop) {
        ++it;
        continue;
      }
      freed_slots.emplace_back(d.trx, d.slot);
      if (committed != nullptr && was_committed) freed_committed.push_back(it->second);
      it = shard.logs.erase(it);
    }
    TrimIfEmpty(shard);
  }
  // Between the two passes SeenByAll may find a slot whose log is gone: it
  // answers true, as it would once the slot goes (a log is freed only when
  // every read view sees its transaction's changes, or none are left).
  for (const auto& [trx, slot] : freed_slots) {
    Shard& shard = ShardOfTrx(trx);
    WriterMutexLock l(&shard.mu);
    if (auto t = shard.slot_of_trx.find(trx); t != shard.slot_of_trx.end() && t->second == slot) {
      shard.slot_of_trx.erase(t);
      TrimIfEmpty(shard);
    }
  }
  // Decoded outside the shards' locks, and without LogData::mu: the logs
  // are no longer reachable, and ended logs are never written again (which
  // the analysis cannot know, hence NO_THREAD_SAFETY_ANALYSIS).
  auto decode = [&]() NO_THREAD_SAFETY_ANALYSIS -> Status {
    std::sort(freed_committed.begin(), freed_committed.end(),
              [](const auto& a, const auto& b) NO_THREAD_SAFETY_ANALYSIS { return a->commit_no < b->commit_no; });
    Status bad;
    for (const auto& d : freed_committed) {
      PurgedLog out{d->trx, d->commit_no, {}};
      for (size_t i = 0; i < d->count(); ++i) {
        const std::string_view bytes = d->Record(i);
        if (IsEncodedInsert(bytes)) continue;  // inserts leave nothing to purge: not decoded
        Result<UndoRecord> rec = DecodeUndoRecord(bytes);
        if (!rec.ok()) {
          bad = rec.status();
          break;
        }
        out.records.push_back(std::move(rec).value());
      }
      if (!out.records.empty()) committed->push_back(std::move(out));
    }
    return bad;
  };
  Status bad = decode();
  if (!bad.ok()) return bad;
  return freed_slots.size();
}

bool MemUndoStore::SeenByAll(TrxId trx, TrxId purge_limit) const {
  uint64_t slot;
  {
    const Shard& shard = ShardOfTrx(trx);
    ReaderMutexLock l(&shard.mu);
    auto t = shard.slot_of_trx.find(trx);
    if (t == shard.slot_of_trx.end()) return true;
    slot = t->second;
  }
  const Shard& shard = ShardOfSlot(slot);
  ReaderMutexLock l(&shard.mu);
  auto it = shard.logs.find(slot);
  if (it == shard.logs.end()) return true;  // purged since
  const LogData& d = *it->second;
  MutexLock dl(&d.mu);
  return d.state == LogData::State::kRolledBack ||
         (d.state == LogData::State::kCommitted && d.commit_no < purge_limit);
}

size_t MemUndoStore::log_count() const {
  size_t n = 0;
  for (const Shard& shard : shards_) {
    ReaderMutexLock l(&shard.mu);
    n += shard.logs.size();
  }
  return n;
}

}  // namespace sluice::storage
