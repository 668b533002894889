#include "storage/trx/trx_sys.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

namespace sluice::storage {

struct TrxSys::Shard {
  Mutex mu;
  std::vector<TrxId> active GUARDED_BY(mu);  // unsorted
  std::vector<TrxId> view_limits GUARDED_BY(mu);  // low limits of open views (multiset)
  // Keeps shards on separate cache lines.
  alignas(64) char pad[1] = {};
};

namespace {
// Holds every shard's mutex (ascending), for a consistent view of all of
// them. The analysis cannot follow a run-time number of locks: code that
// reads a shard under it states so with shard.mu.AssertHeld().
template <class Shard>  // TrxSys::Shard (private)
class AllShardsLock {
 public:
  AllShardsLock(Shard* shards, size_t n) NO_THREAD_SAFETY_ANALYSIS : shards_(shards), n_(n) {
    for (size_t i = 0; i < n_; ++i) shards_[i].mu.Lock();
  }
  ~AllShardsLock() NO_THREAD_SAFETY_ANALYSIS {
    for (size_t i = n_; i > 0; --i) shards_[i - 1].mu.Unlock();
  }
  AllShardsLock(const AllShardsLock&) = delete;
  AllShardsLock& operator=(const AllShardsLock&) = delete;

 private:
  Shard* const shards_;
  const size_t n_;
};

void EraseOne(std::vector<TrxId>& v, TrxId x) {
  auto it = std::find(v.begin(), v.end(), x);
  assert(it != v.end());
  if (it == v.end()) return;
  *it = v.back();
  v.pop_back();
}
}  // namespace

Trx::~Trx() {
  // A transaction dropped while active is a bug in the caller; end it so the
  // registry does not keep its id forever.
  if (state_ == State::kActive) {
    assert(false && "Trx destroyed while active");
    (void)sys_->Rollback(*this);
  }
}

TrxSys::TrxSys(const Options& options)
    : options_(options),
      shards_(new Shard[std::max<size_t>(options.num_shards, 1)]),
      next_id_(std::max<TrxId>(options.first_id, 1)) {}

TrxSys::TrxSys() : TrxSys(Options{}) {}
TrxSys::~TrxSys() = default;

TrxSys::Shard& TrxSys::ShardOf(const Trx& trx) const { return shards_[trx.shard_]; }

std::unique_ptr<Trx> TrxSys::Begin(IsolationLevel isolation) {
  return std::unique_ptr<Trx>(new Trx(MakeTrx(isolation)));
}

Trx TrxSys::MakeTrx(IsolationLevel isolation) {
  const size_t n = std::max<size_t>(options_.num_shards, 1);
  const size_t shard = next_shard_.fetch_add(1, std::memory_order_relaxed) % n;
  return Trx(this, isolation, shard);
}

std::unique_ptr<Trx> TrxSys::Recover(TrxId id) {
  std::unique_ptr<Trx> trx = Begin(IsolationLevel::kRepeatableRead);
  Recover(*trx, id);
  return trx;
}

void TrxSys::Recover(Trx& trx, TrxId id) {
  assert(id != kNoTrxId && id < next_id_.load());
  assert(trx.id_ == kNoTrxId && trx.state_ == Trx::State::kActive);
  Shard& s = ShardOf(trx);
  MutexLock l(&s.mu);
  active_count_.fetch_add(1, std::memory_order_seq_cst);
  s.active.push_back(id);
  trx.id_ = id;
}

Result<TrxId> TrxSys::AssignId(Trx& trx) {
  if (trx.state_ != Trx::State::kActive) return Status::InvalidArgument("transaction is not active");
  if (trx.id_ != kNoTrxId) return trx.id_;
  Shard& s = ShardOf(trx);
  MutexLock l(&s.mu);
  // Counted before the id is drawn, and the id drawn under the shard mutex:
  // see the header for why views depend on both.
  active_count_.fetch_add(1, std::memory_order_seq_cst);
  TrxId id = next_id_.fetch_add(1, std::memory_order_seq_cst);
  if (id > kMaxTrxId) {
    active_count_.fetch_sub(1, std::memory_order_seq_cst);
    return Status::MySQL(1105, "HY000", "transaction ids exhausted");
  }
  s.active.push_back(id);
  trx.id_ = id;
  if (trx.view_) trx.view_->set_creator(id);
  return id;
}

const ReadView* TrxSys::GetReadView(Trx& trx) {
  assert(trx.state_ == Trx::State::kActive);
  if (trx.isolation_ == IsolationLevel::kReadUncommitted) return nullptr;
  if (trx.view_) return &*trx.view_;
  Shard& own = ShardOf(trx);
  {
    // The usual case for a reader: no other read-write transaction is
    // active, and the view is the counter alone, made under this shard's
    // mutex only (which keeps PurgeLimit from passing it before it is
    // registered). The header says why the three reads, in this order, are
    // a consistent snapshot.
    MutexLock l(&own.mu);
    const TrxId low_limit = next_id_.load(std::memory_order_seq_cst);
    const size_t others = active_count_.load(std::memory_order_seq_cst) - (trx.id_ != kNoTrxId ? 1 : 0);
    if (others == 0 && next_id_.load(std::memory_order_seq_cst) == low_limit) {
      trx.view_.emplace(trx.id_, low_limit, std::vector<TrxId>{});
      own.view_limits.push_back(low_limit);
      return &*trx.view_;
    }
  }
  size_t n = std::max<size_t>(options_.num_shards, 1);
  AllShardsLock locks(shards_.get(), n);
  TrxId low_limit = next_id_.load(std::memory_order_relaxed);
  std::vector<TrxId> active;
  for (size_t i = 0; i < n; ++i) {
    shards_[i].mu.AssertHeld();  // locks
    for (TrxId id : shards_[i].active) {
      if (id != trx.id_) active.push_back(id);
    }
  }
  trx.view_.emplace(trx.id_, low_limit, std::move(active));
  own.mu.AssertHeld();  // locks
  own.view_limits.push_back(low_limit);
  return &*trx.view_;
}

void TrxSys::CloseViewLocked(Shard& shard, Trx& trx) {
  shard.mu.AssertHeld();  // REQUIRES(shard.mu): Shard is incomplete in the header
  if (!trx.view_) return;
  EraseOne(shard.view_limits, trx.view_->low_limit_id());
  trx.view_.reset();
}

void TrxSys::EndStatement(Trx& trx) {
  if (trx.isolation_ != IsolationLevel::kReadCommitted || !trx.view_) return;
  Shard& s = ShardOf(trx);
  MutexLock l(&s.mu);
  CloseViewLocked(s, trx);
}

void TrxSys::EndLocked(Shard& shard, Trx& trx) {
  shard.mu.AssertHeld();  // as CloseViewLocked
  if (trx.id_ != kNoTrxId) {
    EraseOne(shard.active, trx.id_);
    active_count_.fetch_sub(1, std::memory_order_seq_cst);
  }
  CloseViewLocked(shard, trx);
}

Result<uint64_t> TrxSys::Commit(Trx& trx) {
  if (trx.state_ != Trx::State::kActive) return Status::InvalidArgument("transaction is not active");
  Shard& s = ShardOf(trx);
  MutexLock l(&s.mu);
  if (trx.id_ != kNoTrxId) {
    // Same counter as ids: a view whose low limit is above this number was
    // made after this commit (both happen under this shard's mutex), and
    // before the transaction leaves active_count_ (EndLocked).
    trx.commit_no_ = next_id_.fetch_add(1, std::memory_order_seq_cst);
  }
  EndLocked(s, trx);
  trx.state_ = Trx::State::kCommitted;
  return trx.commit_no_;
}

Status TrxSys::Rollback(Trx& trx) {
  if (trx.state_ != Trx::State::kActive) return Status::InvalidArgument("transaction is not active");
  Shard& s = ShardOf(trx);
  MutexLock l(&s.mu);
  EndLocked(s, trx);
  trx.state_ = Trx::State::kRolledBack;
  return Status::OK();
}

TrxId TrxSys::PurgeLimit() const {
  size_t n = std::max<size_t>(options_.num_shards, 1);
  AllShardsLock locks(shards_.get(), n);
  TrxId limit = next_id_.load(std::memory_order_relaxed);
  for (size_t i = 0; i < n; ++i) {
    shards_[i].mu.AssertHeld();  // locks
    for (TrxId v : shards_[i].view_limits) limit = std::min(limit, v);
  }
  return limit;
}

std::vector<TrxId> TrxSys::ActiveIds() const {
  size_t n = std::max<size_t>(options_.num_shards, 1);
  std::vector<TrxId> out;
  for (size_t i = 0; i < n; ++i) {
    MutexLock l(&shards_[i].mu);
    out.insert(out.end(), shards_[i].active.begin(), shards_[i].active.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t TrxSys::open_views() const {
  size_t n = std::max<size_t>(options_.num_shards, 1);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) {
    MutexLock l(&shards_[i].mu);
    total += shards_[i].view_limits.size();
  }
  return total;
}

}  // namespace sluice::storage
