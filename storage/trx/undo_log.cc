#include "storage/trx/undo_log.h"

#include <string>
#include <vector>

namespace sluice::storage {
namespace {
// In-memory roll pointer location: slot (31 bits) << 32 | index (32 bits).
constexpr int kIndexBits = 32;
constexpr uint64_t kMaxSlot = (uint64_t{1} << 31) - 1;
constexpr uint64_t kMaxIndex = (uint64_t{1} << kIndexBits) - 1;
}  // namespace

struct MemUndoStore::LogData {
  enum class State : uint8_t { kActive, kCommitted, kRolledBack };
  explicit LogData(uint64_t s) : slot(s) {}
  const uint64_t slot;
  mutable std::mutex mu;
  std::vector<std::string> records;  // GUARDED_BY(mu) for readers; owner mutates under mu
  State state = State::kActive;      // GUARDED_BY(mu)
  uint64_t commit_no = 0;            // GUARDED_BY(mu)
};

class MemUndoStore::Log final : public UndoLog {
 public:
  explicit Log(std::shared_ptr<LogData> data) : data_(std::move(data)) {}

  Result<RollPtr> Append(UndoRecord rec) override {
    std::string bytes;
    uint64_t index;
    {
      std::lock_guard<std::mutex> l(data_->mu);
      if (data_->state != LogData::State::kActive) return Status::InvalidArgument("undo log has ended");
      index = data_->records.size();
      if (index > kMaxIndex) return Status::MySQL(1105, "HY000", "undo log full");
    }
    rec.undo_no = index;
    EncodeUndoRecord(rec, &bytes);
    {
      std::lock_guard<std::mutex> l(data_->mu);
      data_->records.push_back(std::move(bytes));
    }
    return RollPtr::Make(rec.type == UndoType::kInsert, (data_->slot << kIndexBits) | index);
  }

  UndoPos position() const override {
    std::lock_guard<std::mutex> l(data_->mu);
    return data_->records.size();
  }

  Status RollbackTo(UndoPos pos, const ApplyFn& apply) override {
    for (;;) {
      std::string bytes;
      uint64_t index;
      {
        std::lock_guard<std::mutex> l(data_->mu);
        if (pos > data_->records.size()) return Status::InvalidArgument("savepoint is past the end of the undo log");
        if (data_->records.size() == pos) return Status::OK();
        index = data_->records.size() - 1;
        bytes = data_->records.back();
      }
      Result<UndoRecord> rec = DecodeUndoRecord(bytes);
      if (!rec.ok()) return rec.status();
      // The engine's callback runs without our mutex: it takes page latches.
      SLUICE_RETURN_IF_ERROR(
          apply(*rec, RollPtr::Make(rec->type == UndoType::kInsert, (data_->slot << kIndexBits) | index)));
      std::lock_guard<std::mutex> l(data_->mu);
      data_->records.pop_back();
    }
  }

  void MarkCommitted(uint64_t commit_no) override {
    std::lock_guard<std::mutex> l(data_->mu);
    data_->state = LogData::State::kCommitted;
    data_->commit_no = commit_no;
  }

  void MarkRolledBack() override {
    std::lock_guard<std::mutex> l(data_->mu);
    data_->state = LogData::State::kRolledBack;
  }

 private:
  std::shared_ptr<LogData> data_;
};

MemUndoStore::~MemUndoStore() = default;

Result<std::unique_ptr<UndoLog>> MemUndoStore::CreateLog(TrxId /*trx*/) {
  std::unique_lock<std::shared_mutex> l(map_mu_);
  if (next_slot_ > kMaxSlot) return Status::MySQL(1105, "HY000", "undo slots exhausted");
  uint64_t slot = next_slot_++;
  auto data = std::make_shared<LogData>(slot);
  logs_.emplace(slot, data);
  return std::unique_ptr<UndoLog>(new Log(std::move(data)));
}

Result<UndoRecord> MemUndoStore::Fetch(RollPtr roll_ptr) const {
  uint64_t slot = roll_ptr.location() >> kIndexBits;
  uint64_t index = roll_ptr.location() & kMaxIndex;
  std::shared_lock<std::shared_mutex> l(map_mu_);
  auto it = logs_.find(slot);
  if (it == logs_.end()) return Status::Corruption("undo record not found: log purged or never written");
  std::string bytes;
  {
    std::lock_guard<std::mutex> dl(it->second->mu);
    if (index >= it->second->records.size()) return Status::Corruption("undo record not found: rolled back");
    bytes = it->second->records[index];
  }
  return DecodeUndoRecord(bytes);
}

size_t MemUndoStore::Purge(TrxId purge_limit) {
  std::unique_lock<std::shared_mutex> l(map_mu_);
  size_t freed = 0;
  for (auto it = logs_.begin(); it != logs_.end();) {
    bool drop;
    {
      std::lock_guard<std::mutex> dl(it->second->mu);
      drop = it->second->state == LogData::State::kRolledBack ||
             (it->second->state == LogData::State::kCommitted && it->second->commit_no < purge_limit);
    }
    if (drop) {
      it = logs_.erase(it);
      ++freed;
    } else {
      ++it;
    }
  }
  return freed;
}

size_t MemUndoStore::log_count() const {
  std::shared_lock<std::shared_mutex> l(map_mu_);
  return logs_.size();
}

}  // namespace sluice::storage
