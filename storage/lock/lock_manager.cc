#include "storage/lock/lock_manager.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include <boost/container/small_vector.hpp>

#include "base/cpu_relax.h"
#include "base/cpus.h"
#include "base/log.h"
#include "base/thread_name.h"
#include "storage/lock/lock_internal.h"

namespace sluice::storage {

using lock_internal::LockKey;
using lock_internal::Mix64;
using lock_internal::QueueList;
using lock_internal::WaiterList;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kInitialBuckets = 16;  // per shard; doubles at load factor 2
constexpr size_t kReleaseBatch = 256;   // ReleaseAll lets a writer in this often
// InnoDB: a lock wait timeout above 100000000 s means "wait forever".
constexpr int64_t kInfiniteWaitMs = int64_t{100'000'000} * 1000;

void CheckOrDie(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "sluice lock manager: %s\n", what);
    std::abort();
  }
}

// Independent hashes for the shard (high bits of one mix) and the bucket
// within the shard (another mix): taking both from the same bits would put
// every key of a shard into the same few buckets.
inline uint64_t PageHash(uint64_t space, uint64_t page) {
  return Mix64(space * 0x9E3779B97F4A7C15ull ^ (page + 0x632BE59BD9B4E019ull));
}
inline uint64_t RecordBucketHash(uint64_t page_hash, uint64_t heap) {
  return Mix64(page_hash ^ (heap * 0xD6E8FEB86659FD93ull + 0x2545F4914F6CDD1Dull));
}
inline uint64_t TableHash(TableId table) { return Mix64(table + 0x9E3779B97F4A7C15ull); }
// Maps the high 32 bits of `hash` onto [0, n) without a division.
inline uint32_t ShardIndex(uint64_t hash, size_t n) {
  return static_cast<uint32_t>(((hash >> 32) * static_cast<uint64_t>(n)) >> 32);
}

constexpr uint8_t CoveringModes(LockMode mode) {
  uint8_t mask = 0;
  for (int m = 0; m < kNumLockModes; ++m) {
    if (LockModeStrongerOrEqual(static_cast<LockMode>(m), mode)) mask |= uint8_t(1u << m);
  }
  return mask;
}

}  // namespace

// ---------------------------------------------------------------------------
// Shard

namespace lock_internal {

void* AllocateLines(size_t bytes) {
  bytes = (bytes + kCacheLinePair - 1) / kCacheLinePair * kCacheLinePair;
  return ::operator new(bytes, std::align_val_t{kCacheLinePair});
}

void FreeLines(void* p) { ::operator delete(p, std::align_val_t{kCacheLinePair}); }

namespace {
Queue** NewBuckets(size_t n) {
  auto** b = static_cast<Queue**>(AllocateLines(n * sizeof(Queue*)));
  std::fill(b, b + n, nullptr);
  return b;
}
}  // namespace

Shard::Shard() : buckets(NewBuckets(kInitialBuckets)), n_buckets(kInitialBuckets) {}

Shard::~Shard() {
  FreeLines(buckets);
}

Queue* Shard::Find(const LockKey& key, uint64_t hash) const {
  for (Queue* q = buckets[hash & (n_buckets - 1)]; q != nullptr; q = q->hash_next) {
    if (q->hash == hash && q->key == key) return q;
  }
  return nullptr;
}

Queue* Shard::Insert(const LockKey& key, uint64_t hash) {
  if (queues >= n_buckets * 2) {
    const size_t grown_n = n_buckets * 2;
    Queue** grown = NewBuckets(grown_n);
    for (size_t i = 0; i < n_buckets; ++i) {
      for (Queue* head = buckets[i]; head != nullptr;) {
        Queue* next = head->hash_next;
        Queue*& slot = grown[head->hash & (grown_n - 1)];
        head->hash_next = slot;
        slot = head;
        head = next;
      }
    }
    FreeLines(buckets);
    buckets = grown;
    n_buckets = grown_n;
  }
  Queue* q = queue_pool.Take();
  q->key = key;
  q->hash = hash;
  Queue*& head = buckets[hash & (n_buckets - 1)];
  q->hash_next = head;
  head = q;
  ++queues;
  return q;
}

void Shard::Erase(Queue* q) {
  Queue** p = &buckets[q->hash & (n_buckets - 1)];
  while (*p != q) p = &(*p)->hash_next;
  *p = q->hash_next;
  queue_pool.Give(q);
  --queues;
}

}  // namespace lock_internal

// ---------------------------------------------------------------------------
// LockTrx

LockTrx::~LockTrx() = default;

LockTrx::Request* LockTrx::NewRequest() { return requests_.Take(); }

void LockTrx::FreeRequest(Request* r) {
  r->t_prev = nullptr;
  requests_.Give(r);
}

bool LockTrx::TableCovered(TableId table, LockMode mode) const {
  for (const HeldTable& h : tables_) {
    if (h.table == table) return (h.modes & CoveringModes(mode)) != 0;
  }
  return false;
}

void LockTrx::NoteTableGranted(TableId table, LockMode mode) {
  const uint8_t bit = uint8_t(1u << static_cast<int>(mode));
  for (HeldTable& h : tables_) {
    if (h.table == table) {
      h.modes |= bit;
      return;
    }
  }
  tables_.push_back({table, bit});
}

void LockTrx::ForgetTable(TableId table, LockMode mode) {
  for (HeldTable& h : tables_) {
    if (h.table == table) h.modes &= uint8_t(~(1u << static_cast<int>(mode)));
  }
}

void LockTrxDeleter::operator()(LockTrx* trx) const {
  if (trx != nullptr) manager->ReturnTrx(trx);
}

// ---------------------------------------------------------------------------
// Per-thread pieces

// Status counters of the threads using one latch slot. Written on waits only,
// by (usually) one thread; summed by Counters().
struct alignas(128) LockManager::CounterSlot {
  // Spin-then-park history of the threads on this slot: +1 when a spin ended
  // in a grant, -2 when it ran out; no spinning at 0 except every 16th wait
  // (a probe), so spinning stops by itself when holders are not running
  // (more threads than CPUs) and resumes when it pays.
  std::atomic<int32_t> spin_score{4};
  std::atomic<uint32_t> spin_probe{0};
  std::atomic<uint64_t> row_waits{0};
  std::atomic<int64_t> current_waits{0};
  std::atomic<uint64_t> wait_us{0};
  std::atomic<uint64_t> max_wait_us{0};
  std::atomic<uint64_t> table_waits{0};
  std::atomic<uint64_t> timeouts{0};
};

// Transactions granted under a shard latch, woken after it is released.
// Notifying a LockTrx after the latch is gone is safe because LockTrx memory
// is never freed while the manager lives, and a stale notification is only a
// spurious wake-up (every wait re-checks its outcome under wait_mu_).
struct LockManager::WakeList {
  LockTrx* first[8];
  size_t n = 0;
  std::vector<LockTrx*> more;
  void Add(LockTrx* t) {
    if (n < 8) {
      first[n++] = t;
    } else {
      more.push_back(t);
    }
  }
};

void LockManager::Wake(WakeList& wake) {
  for (size_t i = 0; i < wake.n; ++i) wake.first[i]->wait_cv_.NotifyOne();
  for (LockTrx* t : wake.more) t->wait_cv_.NotifyOne();
  wake.n = 0;
  wake.more.clear();
}

struct LockManager::DetectorScratch {
  struct Node {
    LockTrx* trx;
    LockTrx* blocker;  // recorded (functional) edge
  };
  std::vector<Node> nodes;
  std::vector<std::pair<LockTrx*, LockTrx*>> edges;  // waiter -> holder, all of them
  std::vector<int64_t> parent;
  std::vector<uint32_t> indegree;
  std::vector<uint64_t> weight;
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, uint32_t>> adj;  // (from, to), sorted
  std::vector<uint32_t> adj_begin;
  std::vector<uint8_t> color;
  std::vector<std::pair<uint32_t, uint32_t>> dfs;  // (node, next edge)
};

LockManager::CounterSlot& LockManager::MyCounters() {
  return counters_[ShardedRwLatch::ThisThreadSlot()];
}

// ---------------------------------------------------------------------------
// Construction

LockManager::LockManager(Options options)
    : options_(std::move(options)),
      n_record_shards_(std::max<size_t>(1, options_.record_shards)),
      n_table_shards_(std::max<size_t>(1, options_.table_shards)),
      logger_(options_.logger != nullptr ? options_.logger : base::GetLogger("storage")),
      record_shards_(std::make_unique<Shard[]>(n_record_shards_)),
      table_shards_(std::make_unique<Shard[]>(n_table_shards_)),
      counters_(std::make_unique<CounterSlot[]>(ShardedRwLatch::kSlots)),
      max_spinners_(std::max(1, static_cast<int>(UsableCpus() / 2))),
      scratch_(std::make_unique<DetectorScratch>()),
      reporter_(std::make_unique<DeadlockReporter>(logger_, options_.reporter)) {
  if (options_.start_detector) detector_thread_ = std::thread([this] {
      NameThisThread("sl_lock_detect");
      DetectorMain();
    });
}

LockManager::~LockManager() {
  {
    MutexLock lock(&detector_mu_);
    detector_stop_ = true;
  }
  detector_cv_.NotifyAll();
  if (detector_thread_.joinable()) detector_thread_.join();
  reporter_.reset();
}

LockTrxPtr LockManager::CreateTrx(uint64_t trx_id) {
  LockTrx* trx = nullptr;
  {
    MutexLock lock(&trx_pool_mu_);
    if (free_trxs_ != nullptr) {
      trx = free_trxs_;
      free_trxs_ = trx->pool_next_;
    } else {
      all_trxs_.push_back(std::unique_ptr<LockTrx>(new LockTrx()));
      trx = all_trxs_.back().get();
    }
  }
  trx->pool_next_ = nullptr;
  trx->set_id(trx_id);
  trx->set_thread_id(0);
  trx->set_weight_hint(0);
  trx->schedule_weight_.store(0, std::memory_order_relaxed);
  return LockTrxPtr(trx, LockTrxDeleter{this});
}

void LockManager::ReturnTrx(LockTrx* trx) {
  CheckOrDie(!trx->waiting(), "LockTrx destroyed while waiting");
  if (!trx->locks_.empty()) ReleaseAll(*trx);
  trx->tables_.clear();
  MutexLock lock(&trx_pool_mu_);
  trx->pool_next_ = free_trxs_;
  free_trxs_ = trx;
}

LockManager::Shard& LockManager::ShardOf(bool is_table, uint32_t index) {
  return is_table ? table_shards_[index] : record_shards_[index];
}

LockManager::Shard& LockManager::ShardOf(const Request& r) { return ShardOf(r.is_table, r.shard); }

// ---------------------------------------------------------------------------
// Queue logic

bool LockManager::HasToWait(const Queue& q, LockMode req_mode, uint16_t req_bits, const Request& other) {
  if (q.is_table) return !LockModesCompatible(req_mode, other.mode);
  return RecLockHasToWait(req_mode, req_bits, other.mode, other.bits, q.supremum);
}

bool LockManager::HoldsCovering(const Queue& q, const LockTrx& trx, LockMode mode, uint16_t bits) {
  for (const Request* g = q.granted.front(); g != nullptr; g = QueueList::Next(g)) {
    if (g->trx == &trx && RecLockCovers(g->mode, g->bits, mode, bits, q.supremum)) return true;
  }
  return false;
}

bool LockManager::HoldsGrantedBlocker(const Queue& q, const LockTrx& trx, const Request& waiter) {
  for (const Request* g = q.granted.front(); g != nullptr; g = QueueList::Next(g)) {
    if (g->trx == &trx && HasToWait(q, waiter.mode, waiter.bits, *g)) return true;
  }
  return false;
}

namespace {
// InnoDB 8.0's CAN_BYPASS: an X (non-insert-intention) record request need
// not queue behind a waiting X request that already waits for a lock the
// requester holds; that waiter cannot be granted before the requester
// finishes anyway, and queueing behind it would be a certain deadlock (the
// classic S -> X upgrade with a waiter in between).
inline bool MayBypass(bool is_table, LockMode mode, uint16_t bits, LockMode waiter_mode) {
  return !is_table && (bits & kInsertIntentionBit) == 0 && mode == LockMode::kX &&
         waiter_mode == LockMode::kX;
}
}  // namespace

LockTrx* LockManager::GrantedBlockerOf(const Queue& q, const LockTrx& trx, LockMode mode, uint16_t bits) {
  if (q.is_table && !q.MayConflictWithGranted(mode)) return nullptr;
  for (const Request* g = q.granted.front(); g != nullptr; g = QueueList::Next(g)) {
    if (g->trx != &trx && HasToWait(q, mode, bits, *g)) return g->trx;
  }
  return nullptr;
}

LockTrx* LockManager::FindBlockerForNew(const Queue& q, const LockTrx& trx, LockMode mode, uint16_t bits) {
  if (LockTrx* b = GrantedBlockerOf(q, trx, mode, bits)) return b;
  // Newcomers queue behind incompatible waiters instead of barging.
  for (const Request* w = q.waiting.front(); w != nullptr; w = QueueList::Next(w)) {
    if (w->trx == &trx || w->cancelled || !HasToWait(q, mode, bits, *w)) continue;
    if (MayBypass(q.is_table, mode, bits, w->mode) && HoldsGrantedBlocker(q, trx, *w)) continue;
    return w->trx;
  }
  return nullptr;
}

LockTrx* LockManager::GrantedBlocker(const Queue& q, const Request& r) {
  return GrantedBlockerOf(q, *r.trx, r.mode, r.bits);
}

LockTrx* LockManager::EarlierWaiterBlocker(const Queue& q, const Request& r) {
  for (const Request* w = q.waiting.front(); w != nullptr && w != &r; w = QueueList::Next(w)) {
    if (w->trx == r.trx || w->cancelled || !HasToWait(q, r.mode, r.bits, *w)) continue;
    if (MayBypass(q.is_table, r.mode, r.bits, w->mode) && HoldsGrantedBlocker(q, *r.trx, *w)) continue;
    return w->trx;
  }
  return nullptr;
}

void LockManager::GrantLocked(Shard& shard, Queue& q, Request* r, WakeList& wake) REQUIRES(shard.mu) {
  q.waiting.Remove(r);
  q.AddGranted(r);
  shard.waiters.Remove(r);
  shard.n_waiters.store(static_cast<uint32_t>(shard.waiters.size()), std::memory_order_relaxed);
  r->waiting = false;
  LockTrx* t = r->trx;
  // The owner sleeps until told, so this thread is the only writer now.
  t->n_locks_.store(t->n_locks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  t->blocking_trx_.store(nullptr, std::memory_order_relaxed);
  t->wait_request_.store(nullptr, std::memory_order_release);
  {
    MutexLock lock(&t->wait_mu_);
    t->SetOutcomeLocked(WaitOutcome::kGranted);
  }
  wake.Add(t);
}

void LockManager::GrantWaitersLocked(Shard& shard, Queue& q, WakeList& wake) REQUIRES(shard.mu) {
  if (q.waiting.empty()) return;

  if (config_.schedule() == SchedulePolicy::kFifo) {
    // Arrival order: a waiter is granted when it conflicts with no granted
    // lock and no earlier waiter.
    for (Request* w = q.waiting.front(); w != nullptr;) {
      Request* next = QueueList::Next(w);
      if (!w->cancelled) {
        LockTrx* b = GrantedBlocker(q, *w);
        if (b == nullptr) b = EarlierWaiterBlocker(q, *w);
        if (b == nullptr) {
          GrantLocked(shard, q, w, wake);
        } else if (w->trx->blocking_trx_.load(std::memory_order_relaxed) != b) {
          w->trx->blocking_trx_.store(b, std::memory_order_release);
        }
      }
      w = next;
    }
    return;
  }

  // CATS: heaviest first (weights from the detector's last round), stable so
  // that equal weights keep arrival (= wait start) order; a waiter passed
  // over by later arrivals more than twice the queue length goes first
  // (anti-starvation). Each is granted if no granted lock, including those
  // granted in this pass, conflicts.
  struct Candidate {
    Request* r;
    uint64_t key;
    uint32_t arrival;
  };
  Candidate local[16];
  std::vector<Candidate> spill;
  Candidate* cand = local;
  size_t n = 0;
  const size_t waiting = q.waiting.size();
  if (waiting > 16) {
    spill.resize(waiting);
    cand = spill.data();
  }
  for (Request* w = q.waiting.front(); w != nullptr; w = QueueList::Next(w)) {
    if (w->cancelled) continue;
    cand[n] = {w, 0, static_cast<uint32_t>(n)};
    ++n;
  }
  if (n == 0) return;
  if (n > 1) {
    for (size_t i = 0; i < n; ++i) {
      const Request* w = cand[i].r;
      const uint64_t weight = w->trx->schedule_weight_.load(std::memory_order_relaxed);
      const bool starving = w->passed_over > 2 * n;
      cand[i].key = (starving ? (uint64_t{1} << 62) : 0) + std::min<uint64_t>(weight, uint64_t{1} << 61);
    }
    std::stable_sort(cand, cand + n, [](const Candidate& a, const Candidate& b) { return a.key > b.key; });
  }
  int64_t last_granted_arrival = -1;
  for (size_t i = 0; i < n; ++i) {
    Request* w = cand[i].r;
    LockTrx* b = GrantedBlocker(q, *w);
    if (b == nullptr) {
      GrantLocked(shard, q, w, wake);
      last_granted_arrival = std::max<int64_t>(last_granted_arrival, cand[i].arrival);
    } else if (w->trx->blocking_trx_.load(std::memory_order_relaxed) != b) {
      w->trx->blocking_trx_.store(b, std::memory_order_release);
    }
  }
  if (n > 1 && last_granted_arrival >= 0) {
    for (size_t i = 0; i < n; ++i) {
      Request* w = cand[i].r;
      if (w->waiting && static_cast<int64_t>(cand[i].arrival) < last_granted_arrival) ++w->passed_over;
    }
  }
}

void LockManager::ReleaseGrantedLocked(Shard& shard, Request* r, WakeList& wake) REQUIRES(shard.mu) {
  Queue* q = r->queue;
  q->RemoveGranted(r);
  if (!q->waiting.empty()) GrantWaitersLocked(shard, *q, wake);
  if (q->granted.empty() && q->waiting.empty()) shard.Erase(q);
}

void LockManager::WithdrawWaitingLocked(Shard& shard, Request* r, WakeList& wake) REQUIRES(shard.mu) {
  Queue* q = r->queue;
  q->waiting.Remove(r);
  shard.waiters.Remove(r);
  shard.n_waiters.store(static_cast<uint32_t>(shard.waiters.size()), std::memory_order_relaxed);
  r->waiting = false;
  LockTrx* t = r->trx;
  t->blocking_trx_.store(nullptr, std::memory_order_relaxed);
  t->wait_request_.store(nullptr, std::memory_order_release);
  // Waiters queued behind the withdrawn request may proceed now.
  GrantWaitersLocked(shard, *q, wake);
  if (q->granted.empty() && q->waiting.empty()) shard.Erase(q);
}

// ---------------------------------------------------------------------------
// Acquire

Status LockManager::LockTable(LockTrx& trx, TableId table, LockMode mode,
                              std::optional<std::chrono::milliseconds> timeout) {
  // Repeated IS/IX from row operations: answered from the transaction's own
  // list without touching a shard.
  if (trx.TableCovered(table, mode)) return Status::OK();
  const uint64_t h = TableHash(table);
  const uint32_t shard = ShardIndex(h, n_table_shards_);
  return Acquire(trx, /*is_table=*/true, shard, LockKey{table, 0, 0}, Mix64(h ^ 0x5851F42D4C957F2Dull), mode,
                 0, timeout);
}

Status LockManager::LockRecord(LockTrx& trx, const RecordId& record, LockMode mode, RecLockType type,
                               std::optional<std::chrono::milliseconds> timeout) {
  if (mode != LockMode::kS && mode != LockMode::kX) {
    return Status::InvalidArgument("record locks are S or X");
  }
  uint16_t bits = static_cast<uint16_t>(type);
  if ((bits & kInsertIntentionBit) != 0 && mode != LockMode::kX) {
    return Status::InvalidArgument("an insert-intention lock is X");
  }
  // On the supremum every lock is a gap lock.
  if (record.heap_no == kSupremumHeapNo && (bits & kInsertIntentionBit) == 0) bits = kGapBit;
  const uint64_t page_hash = PageHash(record.space_id, record.page_no);
  const uint32_t shard = ShardIndex(page_hash, n_record_shards_);
  return Acquire(trx, /*is_table=*/false, shard, LockKey{record.space_id, record.page_no, record.heap_no},
                 RecordBucketHash(page_hash, record.heap_no), mode, bits, timeout);
}

bool LockManager::TryInsertIntention(LockTrx& trx, const RecordId& record) {
  const uint64_t page_hash = PageHash(record.space_id, record.page_no);
  Shard& shard = record_shards_[ShardIndex(page_hash, n_record_shards_)];
  const LockKey key{record.space_id, record.page_no, record.heap_no};
  const size_t slot = ShardedRwLatch::ThisThreadSlot();
  if (!latch_.TryLockShared(slot)) return false;
  if (!shard.mu.try_lock()) {
    latch_.UnlockShared(slot);
    return false;
  }
  const Queue* q = shard.Find(key, RecordBucketHash(page_hash, record.heap_no));
  const bool free = q == nullptr ||
                    FindBlockerForNew(*q, trx, LockMode::kX, static_cast<uint16_t>(RecLockType::kInsertIntention)) ==
                        nullptr;
  shard.mu.unlock();
  latch_.UnlockShared(slot);
  return free;
}

Status LockManager::Acquire(LockTrx& trx, bool is_table, uint32_t shard_index, const LockKey& key,
                            uint64_t hash, LockMode mode, uint16_t bits,
                            std::optional<std::chrono::milliseconds> timeout) {
  CheckOrDie(trx.wait_request_.load(std::memory_order_relaxed) == nullptr,
             "lock request from a transaction that is already waiting");
  const bool insert_intention = (bits & kInsertIntentionBit) != 0;
  Shard& shard = ShardOf(is_table, shard_index);
  const size_t slot = ShardedRwLatch::ThisThreadSlot();

  latch_.LockShared(slot);
  shard.mu.lock();
  Queue* q = shard.Find(key, hash);
  LockTrx* blocker = nullptr;
  if (q != nullptr) {
    // A table lock the transaction already covers never gets here: LockTable
    // answered it from the transaction's own list, which notes every table
    // lock granted and forgets every one released.
    if (!insert_intention && !is_table && HoldsCovering(*q, trx, mode, bits)) {
      shard.mu.unlock();
      latch_.UnlockShared(slot);
      return Status::OK();
    }
    blocker = FindBlockerForNew(*q, trx, mode, bits);
  }

  if (blocker == nullptr) {
    if (insert_intention) {
      // As InnoDB: an insert that need not wait leaves no lock behind.
      shard.mu.unlock();
      latch_.UnlockShared(slot);
      return Status::OK();
    }
    if (q == nullptr) {
      q = shard.Insert(key, hash);
      q->is_table = is_table;
      q->supremum = !is_table && key.c == kSupremumHeapNo;
    }
    Request* r = trx.NewRequest();
    r->trx = &trx;
    r->queue = q;
    r->shard = shard_index;
    r->is_table = is_table;
    r->mode = mode;
    r->bits = bits;
    r->waiting = false;
    r->cancelled = false;
    q->AddGranted(r);
    shard.mu.unlock();
    latch_.UnlockShared(slot);
    trx.locks_.PushBack(r);
    trx.n_locks_.store(trx.n_locks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (is_table) trx.NoteTableGranted(key.a, mode);
    return Status::OK();
  }

  const std::chrono::milliseconds limit = std::min(
      timeout.has_value() ? *timeout
                          : std::chrono::milliseconds(std::min<uint64_t>(config_.lock_wait_timeout_ms(),
                                                                         kInfiniteWaitMs)),
      std::chrono::milliseconds(kInfiniteWaitMs));
  if (limit.count() <= 0) {
    shard.mu.unlock();
    latch_.UnlockShared(slot);
    return LockWaitTimeoutError();
  }

  Request* r = trx.NewRequest();
  r->trx = &trx;
  r->queue = q;
  r->shard = shard_index;
  r->is_table = is_table;
  r->mode = mode;
  r->bits = bits;
  r->waiting = true;
  r->cancelled = false;
  r->cancel_reason = WaitOutcome::kNone;
  r->passed_over = 0;
  r->wait_start = Clock::now();
  q->waiting.PushBack(r);
  shard.waiters.PushBack(r);
  shard.n_waiters.store(static_cast<uint32_t>(shard.waiters.size()), std::memory_order_relaxed);
  // CATS weights only matter where two or more wait in one queue.
  const bool queue_contended = q->waiting.size() > 1;
  trx.locks_.PushBack(r);
  trx.schedule_weight_.store(0, std::memory_order_relaxed);
  {
    MutexLock lock(&trx.wait_mu_);
    trx.SetOutcomeLocked(WaitOutcome::kWaiting);
  }
  trx.blocking_trx_.store(blocker, std::memory_order_release);
  trx.wait_request_.store(r, std::memory_order_release);
  shard.mu.unlock();
  latch_.UnlockShared(slot);
  return WaitForGrant(trx, r, limit, queue_contended);
}

Status LockManager::WaitForGrant(LockTrx& trx, Request* req, std::chrono::milliseconds limit,
                                 bool queue_contended) {
  // Fields we set ourselves before publishing the request; nobody changes them.
  const bool is_table = req->is_table;
  const TableId table = req->queue->key.a;
  const LockMode mode = req->mode;
  const Clock::time_point start = req->wait_start;

  CounterSlot& counters = MyCounters();
  if (is_table) {
    counters.table_waits.fetch_add(1, std::memory_order_relaxed);
  } else {
    counters.row_waits.fetch_add(1, std::memory_order_relaxed);
    counters.current_waits.fetch_add(1, std::memory_order_relaxed);
  }
  if (options_.observer != nullptr) options_.observer->OnWaitStart(trx);

  const bool detect = config_.deadlock_detect();
  const bool inline_detect = detect && config_.inline_deadlock_detect();
  if (inline_detect) CheckDeadlockInline(trx);
  // The background round computes CATS weights and finds the cycles the
  // inline walk cannot see. Wake it when detection is its job alone, or when
  // CATS has an order to decide (two or more waiters in this queue);
  // otherwise its periodic run is enough. Each wake-up costs the lock paths
  // nothing: the round latches one shard at a time.
  if ((detect && !inline_detect) ||
      (queue_contended && config_.schedule() == SchedulePolicy::kCats)) {
    WakeDetector();
  }

  SpinForGrant(trx, start + limit);
  WaitOutcome seen;
  {
    MutexLock lock(&trx.wait_mu_);
    if (limit.count() >= kInfiniteWaitMs) {
      while (trx.outcome_ == WaitOutcome::kWaiting) trx.wait_cv_.Wait(&trx.wait_mu_);
    } else {
      while (trx.outcome_ == WaitOutcome::kWaiting) {
        if (!trx.wait_cv_.WaitUntil(&trx.wait_mu_, start + limit)) break;
      }
    }
    seen = trx.outcome_;
  }
  const WaitOutcome outcome = EndWait(trx, req, seen);

  if (!is_table) {
    const auto us = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count());
    counters.wait_us.fetch_add(us, std::memory_order_relaxed);
    uint64_t max = counters.max_wait_us.load(std::memory_order_relaxed);
    while (us > max && !counters.max_wait_us.compare_exchange_weak(max, us, std::memory_order_relaxed)) {
    }
    counters.current_waits.fetch_sub(1, std::memory_order_relaxed);
  }
  switch (outcome) {
    case WaitOutcome::kGranted:
      if (is_table) trx.NoteTableGranted(table, mode);
      return Status::OK();
    case WaitOutcome::kDeadlock:
      return LockDeadlockError();
    case WaitOutcome::kInterrupted:
      return QueryInterruptedError();
    default:
      counters.timeouts.fetch_add(1, std::memory_order_relaxed);
      return LockWaitTimeoutError();
  }
}

void LockManager::SpinForGrant(LockTrx& trx, Clock::time_point deadline) {
  // Spin-then-park: when the blocker is running, its transaction may well end
  // within microseconds, and a waiter that is awake when granted skips the
  // sleep/wake pair that otherwise turns every handoff of a hot row into a
  // context switch (a lock convoy). Bounded in time and in the number of
  // spinners, so that spinning never takes the CPUs the holders need.
  if (options_.wait_spin.count() <= 0) return;
  const LockTrx* blocker = trx.blocking_trx_.load(std::memory_order_acquire);
  if (blocker == nullptr || blocker->waiting()) return;  // a waiting blocker will not release soon
  CounterSlot& mine = MyCounters();
  const int32_t score = mine.spin_score.load(std::memory_order_relaxed);
  if (score <= 0 && (mine.spin_probe.fetch_add(1, std::memory_order_relaxed) & 15) != 0) return;
  int spinners = spinners_.load(std::memory_order_relaxed);
  do {
    if (spinners >= max_spinners_) return;
  } while (!spinners_.compare_exchange_weak(spinners, spinners + 1, std::memory_order_relaxed));
  const Clock::time_point end = std::min(deadline, Clock::now() + options_.wait_spin);
  bool granted = false;
  for (uint32_t i = 1;; ++i) {
    if (trx.decided_.load(std::memory_order_acquire)) {
      granted = true;
      break;
    }
    CpuRelax();
    if ((i & 31) == 0) {
      if (Clock::now() >= end) break;
      blocker = trx.blocking_trx_.load(std::memory_order_acquire);
      if (blocker != nullptr && blocker->waiting()) break;
    }
  }
  spinners_.fetch_sub(1, std::memory_order_relaxed);
  mine.spin_score.store(granted ? std::min(score + 1, 16) : std::max(score - 2, 0), std::memory_order_relaxed);
}

LockManager::WaitOutcome LockManager::EndWait(LockTrx& trx, Request* req, WaitOutcome seen) {
  WaitOutcome result = WaitOutcome::kGranted;
  if (seen != WaitOutcome::kGranted) {
    // Timed out, or cancelled (deadlock victim, KILL): withdraw the request
    // unless a grant slipped in after the wait ended.
    Shard& shard = ShardOf(*req);
    const size_t slot = ShardedRwLatch::ThisThreadSlot();
    WakeList wake;
    latch_.LockShared(slot);
    shard.mu.lock();
    if (req->waiting) {
      result = req->cancelled ? req->cancel_reason : WaitOutcome::kTimeout;
      WithdrawWaitingLocked(shard, req, wake);
    }
    shard.mu.unlock();
    latch_.UnlockShared(slot);
    Wake(wake);
    if (result != WaitOutcome::kGranted) {
      trx.locks_.Remove(req);
      trx.FreeRequest(req);
    }
  }
  MutexLock lock(&trx.wait_mu_);
  trx.SetOutcomeLocked(WaitOutcome::kNone);
  return result;
}

// ---------------------------------------------------------------------------
// Release

void LockManager::ReleaseAll(LockTrx& trx) {
  CheckOrDie(trx.wait_request_.load(std::memory_order_relaxed) == nullptr,
             "ReleaseAll while the transaction waits");
  trx.tables_.clear();
  if (trx.locks_.empty()) return;
  const size_t slot = ShardedRwLatch::ThisThreadSlot();
  WakeList wake;
  size_t batch = 0;
  latch_.LockShared(slot);
  while (Request* first = trx.locks_.front()) {
    // A run of requests in one shard under one hold of its latch.
    Shard& shard = ShardOf(*first);
    shard.mu.lock();
    Request* r;
    while ((r = trx.locks_.front()) != nullptr && &ShardOf(*r) == &shard && batch < kReleaseBatch) {
      trx.locks_.PopFront();
      ReleaseGrantedLocked(shard, r, wake);
      trx.FreeRequest(r);
      ++batch;
    }
    shard.mu.unlock();
    if (batch == kReleaseBatch && trx.locks_.front() != nullptr) {
      // A big transaction must not hold off the detector's exclusive latch.
      latch_.UnlockShared(slot);
      Wake(wake);
      latch_.LockShared(slot);
      batch = 0;
    }
  }
  latch_.UnlockShared(slot);
  Wake(wake);
  trx.n_locks_.store(0, std::memory_order_relaxed);
}

bool LockManager::RunIfUnlocked(const RecordId& record, FunctionRef<void()> fn) {
  return RunIfUnlocked(std::span<const RecordId>(&record, 1), fn);
}

// A variable set of shard latches, taken in shard order: more than the
// analysis can follow, hence unannotated.
bool LockManager::RunIfUnlocked(std::span<const RecordId> records, FunctionRef<void()> fn)
    NO_THREAD_SAFETY_ANALYSIS {
  struct Probe {
    uint32_t shard;
    uint64_t bucket;
    LockKey key;
  };
  // A purge's few records in place.
  boost::container::small_vector<Probe, 8> probes;
  probes.reserve(records.size());
  for (const RecordId& r : records) {
    const uint64_t page_hash = PageHash(r.space_id, r.page_no);
    probes.push_back({ShardIndex(page_hash, n_record_shards_), RecordBucketHash(page_hash, r.heap_no),
                      LockKey{r.space_id, r.page_no, r.heap_no}});
  }
  boost::container::small_vector<uint32_t, 8> shards;
  shards.reserve(probes.size());
  for (const Probe& p : probes) shards.push_back(p.shard);
  std::sort(shards.begin(), shards.end());
  shards.erase(std::unique(shards.begin(), shards.end()), shards.end());
  const size_t slot = ShardedRwLatch::ThisThreadSlot();
  latch_.LockShared(slot);
  for (uint32_t s : shards) record_shards_[s].mu.lock();
  bool unlocked = true;
  for (const Probe& p : probes) {
    if (record_shards_[p.shard].Find(p.key, p.bucket) != nullptr) {
      unlocked = false;
      break;
    }
  }
  if (unlocked) fn();
  for (auto it = shards.rbegin(); it != shards.rend(); ++it) record_shards_[*it].mu.unlock();
  latch_.UnlockShared(slot);
  return unlocked;
}

size_t LockManager::ReleaseRecord(LockTrx& trx, const RecordId& record, LockMode mode) {
  if (record.heap_no == kSupremumHeapNo) return 0;  // only gap locks there
  const uint64_t page_hash = PageHash(record.space_id, record.page_no);
  const uint32_t shard_index = ShardIndex(page_hash, n_record_shards_);
  const LockKey key{record.space_id, record.page_no, record.heap_no};
  Shard& shard = record_shards_[shard_index];
  const size_t slot = ShardedRwLatch::ThisThreadSlot();
  WakeList wake;
  Request* released[4];
  size_t n = 0;
  latch_.LockShared(slot);
  shard.mu.lock();
  if (Queue* q = shard.Find(key, RecordBucketHash(page_hash, record.heap_no)); q != nullptr) {
    for (Request* g = q->granted.front(); g != nullptr && n < 4;) {
      Request* next = QueueList::Next(g);
      if (g->trx == &trx && g->mode == mode && (g->bits & kGapBit) == 0) {
        q->RemoveGranted(g);
        released[n++] = g;
      }
      g = next;
    }
    if (n > 0) {
      GrantWaitersLocked(shard, *q, wake);
      if (q->granted.empty() && q->waiting.empty()) shard.Erase(q);
    }
  }
  shard.mu.unlock();
  latch_.UnlockShared(slot);
  Wake(wake);
  for (size_t i = 0; i < n; ++i) {
    trx.locks_.Remove(released[i]);
    trx.FreeRequest(released[i]);
  }
  trx.n_locks_.store(trx.n_locks_.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
  return n;
}

bool LockManager::ReleaseTable(LockTrx& trx, TableId table, LockMode mode) {
  const uint64_t h = TableHash(table);
  const uint32_t shard_index = ShardIndex(h, n_table_shards_);
  Shard& shard = table_shards_[shard_index];
  const size_t slot = ShardedRwLatch::ThisThreadSlot();
  WakeList wake;
  Request* released = nullptr;
  latch_.LockShared(slot);
  shard.mu.lock();
  if (Queue* q = shard.Find(LockKey{table, 0, 0}, Mix64(h ^ 0x5851F42D4C957F2Dull)); q != nullptr) {
    for (Request* g = q->granted.front(); g != nullptr; g = QueueList::Next(g)) {
      if (g->trx == &trx && g->mode == mode) {
        released = g;
        break;
      }
    }
    if (released != nullptr) ReleaseGrantedLocked(shard, released, wake);
  }
  shard.mu.unlock();
  latch_.UnlockShared(slot);
  Wake(wake);
  if (released == nullptr) return false;
  trx.locks_.Remove(released);
  trx.FreeRequest(released);
  trx.n_locks_.store(trx.n_locks_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
  trx.ForgetTable(table, mode);
  return true;
}

// ---------------------------------------------------------------------------
// Deadlocks

void LockManager::CheckDeadlockInline(LockTrx& trx) {
  // Follow the one recorded edge per waiter without any latch. LockTrx memory
  // is never freed while the manager lives, so a stale pointer is still a
  // LockTrx; whatever is found is verified under the exclusive latch.
  std::vector<LockTrx*> path;
  path.reserve(8);
  path.push_back(&trx);
  LockTrx* cur = trx.blocking_trx_.load(std::memory_order_acquire);
  while (cur != nullptr && path.size() <= options_.inline_detect_max_depth) {
    if (cur == &trx) {
      ResolveCycle(path, /*found_inline=*/true);
      return;
    }
    // A cycle that does not pass through us is the background thread's.
    if (std::find(path.begin(), path.end(), cur) != path.end()) return;
    path.push_back(cur);
    cur = cur->blocking_trx_.load(std::memory_order_acquire);
  }
}

bool LockManager::EdgeHoldsLocked(LockTrx* waiter, LockTrx* holder) const {
  const Request* r = waiter->wait_request_.load(std::memory_order_relaxed);
  if (r == nullptr || !r->waiting || r->cancelled || waiter == holder) return false;
  if (waiter->blocking_trx_.load(std::memory_order_relaxed) == holder) return true;
  const Queue& q = *r->queue;
  for (const Request* g = q.granted.front(); g != nullptr; g = QueueList::Next(g)) {
    if (g->trx == holder && HasToWait(q, r->mode, r->bits, *g)) return true;
  }
  for (const Request* w = q.waiting.front(); w != nullptr && w != r; w = QueueList::Next(w)) {
    if (w->trx == holder && !w->cancelled && HasToWait(q, r->mode, r->bits, *w)) return true;
  }
  return false;
}

namespace {

DeadlockLockInfo Describe(const lock_internal::LockRequest& r) {
  DeadlockLockInfo info;
  info.valid = true;
  info.is_table = r.is_table;
  if (r.is_table) {
    info.table = r.queue->key.a;
  } else {
    info.record = RecordId{r.queue->key.a, r.queue->key.b, r.queue->key.c};
  }
  info.mode = r.mode;
  info.precision = r.bits;
  info.waiting = r.waiting;
  return info;
}

uint64_t VictimWeight(const LockTrx& t) { return t.lock_count() + t.weight_hint(); }

}  // namespace

void LockManager::CancelLocked(Request* r, WaitOutcome reason) {
  r->cancelled = true;
  r->cancel_reason = reason;
  LockTrx* t = r->trx;
  MutexLock lock(&t->wait_mu_);
  t->SetOutcomeLocked(reason);
}

LockTrx* LockManager::ResolveCycle(const std::vector<LockTrx*>& cycle, bool found_inline) {
  const size_t n = cycle.size();
  if (n < 2) return nullptr;
  auto report = std::make_shared<DeadlockReport>();
  report->trxs.resize(n);
  LockTrx* victim = nullptr;
  {
    ExclusiveLatchGuard exclusive(latch_);
    for (size_t i = 0; i < n; ++i) {
      if (!EdgeHoldsLocked(cycle[i], cycle[(i + 1) % n])) return nullptr;  // gone meanwhile
    }
    // InnoDB's choice: roll back the lighter transaction; on a tie, the one
    // that started waiting last.
    size_t v = 0;
    for (size_t i = 1; i < n; ++i) {
      const uint64_t wi = VictimWeight(*cycle[i]);
      const uint64_t wv = VictimWeight(*cycle[v]);
      const Request* ri = cycle[i]->wait_request_.load(std::memory_order_relaxed);
      const Request* rv = cycle[v]->wait_request_.load(std::memory_order_relaxed);
      if (wi < wv || (wi == wv && ri->wait_start > rv->wait_start)) v = i;
    }
    victim = cycle[v];
    report->victim = v;

    // Copy the facts; formatting happens later, off the latch.
    const Clock::time_point now = Clock::now();
    for (size_t i = 0; i < n; ++i) {
      LockTrx* t = cycle[i];
      const Request* r = t->wait_request_.load(std::memory_order_relaxed);
      DeadlockTrxInfo& info = report->trxs[i];
      info.trx_id = t->id();
      info.thread_id = t->thread_id();
      info.locks_held = t->lock_count();
      info.weight = VictimWeight(*t);
      info.waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - r->wait_start).count();
      info.waiting_for = Describe(*r);
      // What cycle[i] holds that cycle[i - 1] waits for.
      const Request* prev = cycle[(i + n - 1) % n]->wait_request_.load(std::memory_order_relaxed);
      const Queue& q = *prev->queue;
      for (const Request* g = q.granted.front(); g != nullptr; g = QueueList::Next(g)) {
        if (g->trx == t && HasToWait(q, prev->mode, prev->bits, *g)) {
          info.holds = Describe(*g);
          break;
        }
      }
      if (!info.holds.valid && r->queue == prev->queue) info.holds = Describe(*r);
    }
    CancelLocked(victim->wait_request_.load(std::memory_order_relaxed), WaitOutcome::kDeadlock);
    report->number = deadlocks_.fetch_add(1, std::memory_order_relaxed) + 1;
  }
  victim->wait_cv_.NotifyOne();
  report->when = std::chrono::system_clock::now();
  report->found_inline = found_inline;
  reporter_->Publish(report, config_.print_all_deadlocks());
  if (options_.observer != nullptr) options_.observer->OnDeadlock(*report);
  return victim;
}

bool LockManager::CancelWait(LockTrx& trx) {
  {
    ExclusiveLatchGuard exclusive(latch_);
    Request* r = trx.wait_request_.load(std::memory_order_relaxed);
    if (r == nullptr || !r->waiting || r->cancelled) return false;
    CancelLocked(r, WaitOutcome::kInterrupted);
  }
  trx.wait_cv_.NotifyOne();
  return true;
}

void LockManager::WakeDetector() {
  if (!options_.start_detector) return;
  // Only the first waiter since the last round pays for the notification.
  if (detector_pending_.load(std::memory_order_relaxed)) return;
  if (detector_pending_.exchange(true, std::memory_order_relaxed)) return;
  MutexLock lock(&detector_mu_);
  detector_cv_.NotifyOne();
}

void LockManager::DetectorMain() {
  MutexLock lock(&detector_mu_);
  while (!detector_stop_) {
    auto deadline = std::chrono::steady_clock::now() + options_.detector_interval;
    while (!detector_stop_ && !detector_pending_.load(std::memory_order_relaxed)) {
      if (!detector_cv_.WaitUntil(&detector_mu_, deadline)) break;
    }
    if (detector_stop_) break;
    detector_pending_.store(false, std::memory_order_relaxed);
    lock.Unlock();
    RunDetectorOnce();
    lock.Lock();
    // Each round stops the world briefly: bound how often waits can ask.
    deadline = std::chrono::steady_clock::now() + options_.detector_min_interval;
    while (!detector_stop_) {
      if (!detector_cv_.WaitUntil(&detector_mu_, deadline)) break;
    }
  }
}

void LockManager::RunDetectorOnce() {
  MutexLock round(&round_mu_);
  DetectorScratch& s = *scratch_;
  s.nodes.clear();
  s.edges.clear();
  const bool detect = config_.deadlock_detect();

  // 1. Snapshot the wait-for edges shard by shard (global latch shared, one
  //    shard latch at a time, shards with no waiter skipped): each waiter's
  //    recorded blocker plus every granted lock its request conflicts with.
  //    Not a consistent cut across shards, which is fine: weights are
  //    heuristics, and every cycle found is re-verified under the exclusive
  //    latch before anyone is rolled back (InnoDB's protocol). A real
  //    deadlock is stable, so a later round sees it whole.
  {
    const size_t slot = ShardedRwLatch::ThisThreadSlot();
    auto snapshot = [&](Shard& shard) {
      if (shard.n_waiters.load(std::memory_order_relaxed) == 0) return;
      SharedLatchGuard shared(latch_, slot);
      SpinLatchGuard guard(&shard.mu);
      for (const Request* w = shard.waiters.front(); w != nullptr; w = WaiterList::Next(w)) {
        if (w->cancelled) continue;
        LockTrx* t = w->trx;
        LockTrx* b = t->blocking_trx_.load(std::memory_order_relaxed);
        s.nodes.push_back({t, b});
        if (!detect) continue;
        if (b != nullptr) s.edges.emplace_back(t, b);
        const Queue& q = *w->queue;
        for (const Request* g = q.granted.front(); g != nullptr; g = QueueList::Next(g)) {
          if (g->trx != t && g->trx != b && HasToWait(q, w->mode, w->bits, *g)) s.edges.emplace_back(t, g->trx);
        }
      }
    };
    for (size_t i = 0; i < n_record_shards_; ++i) snapshot(record_shards_[i]);
    for (size_t i = 0; i < n_table_shards_; ++i) snapshot(table_shards_[i]);
  }
  if (s.nodes.empty()) return;

  // 2. Index the waiters (a transaction waits for at most one request).
  std::sort(s.nodes.begin(), s.nodes.end(),
            [](const DetectorScratch::Node& a, const DetectorScratch::Node& b) { return a.trx < b.trx; });
  // Without a consistent cut a transaction can be seen waiting twice (it
  // moved on to another shard between our visits): keep one.
  s.nodes.erase(std::unique(s.nodes.begin(), s.nodes.end(),
                            [](const DetectorScratch::Node& a, const DetectorScratch::Node& b) {
                              return a.trx == b.trx;
                            }),
                s.nodes.end());
  const size_t n = s.nodes.size();
  auto index_of = [&s](LockTrx* t) -> int64_t {
    auto it = std::lower_bound(s.nodes.begin(), s.nodes.end(), t,
                               [](const DetectorScratch::Node& a, LockTrx* b) { return a.trx < b; });
    return (it != s.nodes.end() && it->trx == t) ? it - s.nodes.begin() : -1;
  };

  // 3. CATS weights on the recorded edges (a forest, plus cycles): a waiter's
  //    weight is 1 + the weights of the waiters that wait for it, i.e. how
  //    many transactions wait behind it, itself included. Leaves first.
  s.parent.assign(n, -1);
  s.indegree.assign(n, 0);
  s.weight.assign(n, 1);
  for (size_t i = 0; i < n; ++i) {
    if (s.nodes[i].blocker != nullptr) s.parent[i] = index_of(s.nodes[i].blocker);
    if (s.parent[i] >= 0) ++s.indegree[s.parent[i]];
  }
  s.stack.clear();
  for (size_t i = 0; i < n; ++i) {
    if (s.indegree[i] == 0) s.stack.push_back(static_cast<uint32_t>(i));
  }
  while (!s.stack.empty()) {
    const uint32_t i = s.stack.back();
    s.stack.pop_back();
    const int64_t p = s.parent[i];
    if (p < 0) continue;
    s.weight[p] += s.weight[i];
    if (--s.indegree[p] == 0) s.stack.push_back(static_cast<uint32_t>(p));
  }
  for (size_t i = 0; i < n; ++i) s.nodes[i].trx->schedule_weight_.store(s.weight[i], std::memory_order_relaxed);

  if (!detect) return;

  // 4. Cycles over all edges (iterative DFS). Edges to transactions that do
  //    not wait lead nowhere.
  s.adj.clear();
  for (const auto& [from, to] : s.edges) {
    const int64_t u = index_of(from);
    const int64_t v = index_of(to);
    if (u >= 0 && v >= 0) s.adj.emplace_back(static_cast<uint32_t>(u), static_cast<uint32_t>(v));
  }
  std::sort(s.adj.begin(), s.adj.end());
  s.adj_begin.assign(n + 1, 0);
  for (const auto& e : s.adj) ++s.adj_begin[e.first + 1];
  for (size_t i = 0; i < n; ++i) s.adj_begin[i + 1] += s.adj_begin[i];
  s.color.assign(n, 0);  // 0 unvisited, 1 on the DFS stack, 2 done
  std::vector<std::vector<LockTrx*>> cycles;
  for (size_t root = 0; root < n && cycles.size() < 64; ++root) {
    if (s.color[root] != 0) continue;
    s.dfs.clear();
    s.dfs.emplace_back(static_cast<uint32_t>(root), s.adj_begin[root]);
    s.color[root] = 1;
    while (!s.dfs.empty()) {
      auto& [u, next] = s.dfs.back();
      if (next == s.adj_begin[u + 1]) {
        s.color[u] = 2;
        s.dfs.pop_back();
        continue;
      }
      const uint32_t v = s.adj[next++].second;
      if (s.color[v] == 0) {
        s.color[v] = 1;
        s.dfs.emplace_back(v, s.adj_begin[v]);
      } else if (s.color[v] == 1) {
        // Back edge u -> v: the stack from v to u is a cycle.
        std::vector<LockTrx*> cycle;
        bool in = false;
        for (const auto& frame : s.dfs) {
          if (frame.first == v) in = true;
          if (in) cycle.push_back(s.nodes[frame.first].trx);
        }
        cycles.push_back(std::move(cycle));
      }
    }
  }

  // 5. Resolve each under the exclusive latch (re-verified there).
  for (const auto& cycle : cycles) ResolveCycle(cycle, /*found_inline=*/false);
}

// ---------------------------------------------------------------------------
// Introspection

LockCounters LockManager::Counters() const {
  LockCounters c;
  uint64_t wait_us = 0;
  uint64_t max_us = 0;
  for (size_t i = 0; i < ShardedRwLatch::kSlots; ++i) {
    const CounterSlot& slot = counters_[i];
    c.row_lock_waits += slot.row_waits.load(std::memory_order_relaxed);
    c.row_lock_current_waits += slot.current_waits.load(std::memory_order_relaxed);
    wait_us += slot.wait_us.load(std::memory_order_relaxed);
    max_us = std::max(max_us, slot.max_wait_us.load(std::memory_order_relaxed));
    c.table_lock_waits += slot.table_waits.load(std::memory_order_relaxed);
    c.lock_timeouts += slot.timeouts.load(std::memory_order_relaxed);
  }
  c.row_lock_time_ms = wait_us / 1000;
  c.row_lock_time_avg_ms = c.row_lock_waits == 0 ? 0 : wait_us / 1000 / c.row_lock_waits;
  c.row_lock_time_max_ms = max_us / 1000;
  c.deadlocks = deadlocks_.load(std::memory_order_relaxed);
  c.deadlock_reports_printed = reporter_->printed();
  c.deadlock_reports_suppressed = reporter_->suppressed();
  return c;
}

std::vector<std::shared_ptr<const DeadlockReport>> LockManager::RecentDeadlocks() const {
  return reporter_->Recent();
}

std::string LockManager::LatestDeadlockText() const {
  auto latest = reporter_->Latest();
  if (latest == nullptr) return "";
  return "------------------------\nLATEST DETECTED DEADLOCK\n------------------------\n" +
         FormatDeadlockReport(*latest);
}

void LockManager::FlushDeadlockLog() { reporter_->Drain(); }

LockCensus LockManager::Census() const {
  LockCensus census;
  ExclusiveLatchGuard exclusive(latch_);
  auto count = [&census](const Shard& shard, bool is_table) {
    shard.mu.AssertHeld();  // the exclusive latch excludes every holder
    for (size_t b = 0; b < shard.n_buckets; ++b) {
      for (const Queue* q = shard.buckets[b]; q != nullptr; q = q->hash_next) {
        ++census.queues;
        census.granted += q->granted.size();
        census.waiting += q->waiting.size();
        (is_table ? census.table_granted : census.record_granted) += q->granted.size();
      }
    }
  };
  for (size_t i = 0; i < n_record_shards_; ++i) count(record_shards_[i], false);
  for (size_t i = 0; i < n_table_shards_; ++i) count(table_shards_[i], true);
  return census;
}

}  // namespace sluice::storage
