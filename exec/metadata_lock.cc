#include "exec/metadata_lock.h"

#include <algorithm>
#include <set>

#include "base/mysql_error.h"
#include "exec/lock_wait.h"
#include "sql/lexer.h"

namespace sluice::exec {

MetadataLocks::MetadataLocks() = default;
MetadataLocks::~MetadataLocks() = default;

std::string MetadataLocks::TableKey(std::string_view schema, std::string_view table) {
  // Lower case whatever lower_case_table_names says: two spellings of one
  // table then share a lock; the cost is only that `T` and `t` (distinct
  // tables when names are case-sensitive) share one too.
  return "t:" + sql::AsciiLower(std::string(schema)) + "." + sql::AsciiLower(std::string(table));
}

std::string MetadataLocks::SchemaKey(std::string_view schema) {
  return "s:" + sql::AsciiLower(std::string(schema));
}

// ---------------------------------------------------------------------------
// The key table and the fast path

MetadataLocks::Lock* MetadataLocks::Find(const std::string& key) const {
  ReaderMutexLock lock(&map_mu_);
  auto it = locks_.find(key);
  return it == locks_.end() ? nullptr : it->second.get();
}

MetadataLocks::Lock& MetadataLocks::InsertLocked(const std::string& key) {
  std::unique_ptr<Lock>& slot = locks_[key];
  if (!slot) slot = std::make_unique<Lock>(key);
  return *slot;
}

MetadataLocks::Lock& MetadataLocks::LockFor(const std::string& key) {
  if (Lock* e = Find(key)) return *e;
  WriterMutexLock lock(&map_mu_);
  return InsertLocked(key);
}

bool MetadataLocks::HoldsFast(const Owner& owner, const std::string& key) {
  return std::any_of(owner.fast_.begin(), owner.fast_.end(), [&](const Lock* e) { return e->key == key; });
}

namespace {
// One more fast-path shared lock, unless an exclusive one is held or waited
// for. The same word carries both, so an exclusive request that sets its bit
// and then reads the count sees every fast grant that beat it.
bool CountIn(std::atomic<uint64_t>& state, uint64_t obtrusive) {
  uint64_t s = state.load();
  while ((s & obtrusive) == 0) {
    if (state.compare_exchange_weak(s, s + 1)) return true;
  }
  return false;
}
}  // namespace

MetadataLocks::Lock* MetadataLocks::TryFastShared(const std::string& key) {
  // Counted in while map_mu_ is held: an eraser (map_mu_ exclusive) then
  // sees the count and leaves the lock alone.
  {
    ReaderMutexLock lock(&map_mu_);
    if (auto it = locks_.find(key); it != locks_.end()) {
      return CountIn(it->second->state, kObtrusive) ? it->second.get() : nullptr;
    }
  }
  WriterMutexLock lock(&map_mu_);
  Lock& e = InsertLocked(key);
  return CountIn(e.state, kObtrusive) ? &e : nullptr;
}

void MetadataLocks::ReleaseFast(Owner& owner, const std::vector<std::string>* keys) {
  bool wake = false;
  std::vector<Lock*>& fast = owner.fast_;
  for (size_t i = 0; i < fast.size();) {
    if (keys != nullptr && std::find(keys->begin(), keys->end(), fast[i]->key) == keys->end()) {
      ++i;
      continue;
    }
    // Once counted out the lock may be erased: nothing of it is read after.
    wake |= (fast[i]->state.fetch_sub(1) & kObtrusive) != 0;
    fast[i] = fast.back();
    fast.pop_back();
  }
  if (wake) {
    // An exclusive request waits for the count under mu_: taking mu_ here
    // orders this wake-up after its check.
    MutexLock lock(&mu_);
    cv_.NotifyAll();
  }
}

void MetadataLocks::RecordFastLocked(Owner& owner) {
  for (Lock* e : owner.fast_) {
    // Recorded, then counted out: an exclusive waiter never sees it free.
    e->shared[owner.id] = 1;
    std::vector<std::string>& keys = held_[owner.id];
    if (std::find(keys.begin(), keys.end(), e->key) == keys.end()) keys.push_back(e->key);
    e->state.fetch_sub(1);
  }
  if (!owner.fast_.empty()) owner.recorded_ = true;
  owner.fast_.clear();
}

void MetadataLocks::SyncObtrusive(Lock& e) {
  if (e.exclusive.has_value() || !e.exclusive_waiting.empty()) {
    e.state.fetch_or(kObtrusive);
  } else {
    e.state.fetch_and(~kObtrusive);
  }
}

void MetadataLocks::NoteRecordedLocked(Owner& owner) const { owner.recorded_ = held_.count(owner.id) != 0; }

// ---------------------------------------------------------------------------
// Recorded locks, waits and deadlocks

std::vector<uint32_t> MetadataLocks::BlockersLocked(const Lock& e, uint32_t owner, Mode mode) const {
  std::vector<uint32_t> out;
  if (e.exclusive && *e.exclusive != owner) out.push_back(*e.exclusive);
  if (mode == Mode::kExclusive) {
    for (const auto& [holder, n] : e.shared) {
      if (holder != owner) out.push_back(holder);
    }
    // (The requester's own fast-path locks were recorded before it got here.)
    if ((e.state.load() & kFastCount) != 0) out.push_back(kUnrecordedHolder);
  } else {
    // A queued exclusive request holds off new shared ones for this key.
    for (const auto& [waiter, n] : e.exclusive_waiting) {
      if (waiter != owner) out.push_back(waiter);
    }
  }
  return out;
}

bool MetadataLocks::ClosesCycleLocked(uint32_t owner, const std::vector<uint32_t>& blockers) const {
  std::vector<uint32_t> stack = blockers;
  std::set<uint32_t> seen;
  while (!stack.empty()) {
    const uint32_t p = stack.back();
    stack.pop_back();
    if (p == owner) return true;
    if (!seen.insert(p).second) continue;
    auto w = waiting_.find(p);
    if (w == waiting_.end()) continue;
    const Lock* e = Find(w->second.key);
    if (e == nullptr) continue;
    for (uint32_t q : BlockersLocked(*e, p, w->second.mode)) stack.push_back(q);
  }
  return false;
}

void MetadataLocks::EraseIfIdleLocked(const std::string& key) {
  WriterMutexLock lock(&map_mu_);
  auto it = locks_.find(key);
  if (it != locks_.end() && it->second->Idle()) locks_.erase(it);
}

bool MetadataLocks::TryAcquireSharedFast(Owner& owner, const std::string& key) {
  if (owner.recorded_) return false;
  if (HoldsFast(owner, key)) return true;
  Lock* e = TryFastShared(key);
  if (e == nullptr) return false;
  owner.fast_.push_back(e);
  return true;
}

Status MetadataLocks::Acquire(Owner& owner, std::vector<Request> requests, std::chrono::milliseconds timeout,
                              const std::atomic<int>* killed, const std::function<void()>& on_wait) {
  // Key order, one request per key (exclusive wins).
  std::sort(requests.begin(), requests.end(), [](const Request& a, const Request& b) {
    return a.key != b.key ? a.key < b.key : a.mode > b.mode;
  });
  requests.erase(std::unique(requests.begin(), requests.end(),
                             [](const Request& a, const Request& b) { return a.key == b.key; }),
                 requests.end());

  // The fast path: shared requests while the owner has nothing recorded.
  const size_t fast_before = owner.fast_.size();
  size_t next = 0;  // the first request the fast path did not take
  if (!owner.recorded_) {
    for (; next < requests.size(); ++next) {
      const Request& r = requests[next];
      if (r.mode != Mode::kShared || !TryAcquireSharedFast(owner, r.key)) break;
    }
    if (next == requests.size()) return Status::OK();
  }

  // By this call, undone on failure.
  std::vector<std::pair<std::string, Mode>> taken;
  for (size_t i = fast_before; i < owner.fast_.size(); ++i) taken.emplace_back(owner.fast_[i]->key, Mode::kShared);
  LockWaiter waiter(timeout, killed);
  MutexLock lock(&mu_);
  RecordFastLocked(owner);
  bool announced = false;
  for (size_t i = next; i < requests.size(); ++i) {
    const Request& r = requests[i];
    // Looked up again after every wait: another session's release erases
    // an idle lock, and a shared request waiting leaves none of its own.
    if (const Lock* e = Find(r.key);
        e != nullptr && (e->exclusive == owner.id || (r.mode == Mode::kShared && e->shared.count(owner.id)))) {
      continue;
    }
    bool queued = false;  // this request counted in exclusive_waiting
    if (r.mode == Mode::kExclusive) {
      // Marked before the first check: no fast-path grant gets in after it.
      Lock& e = LockFor(r.key);
      ++e.exclusive_waiting[owner.id];
      SyncObtrusive(e);
      queued = true;
    }
    Status failed;
    for (;;) {
      const std::vector<uint32_t> blockers = BlockersLocked(LockFor(r.key), owner.id, r.mode);
      if (blockers.empty()) break;
      if (ClosesCycleLocked(owner.id, blockers)) {
        failed = MakeError(er::kLockDeadlock);
      } else if (waiter.Over()) {
        failed = MakeError(waiter.outcome() == LockWait::kKilled ? er::kQueryInterrupted : er::kLockWaitTimeout);
      }
      if (!failed.ok()) break;
      waiting_[owner.id] = Waiting{r.key, r.mode};
      if (!announced && on_wait) {
        announced = true;
        on_wait();
      }
      // A killed session is noticed within a tenth of a second.
      waiter.WaitOnce(&cv_, &mu_);
    }
    waiting_.erase(owner.id);
    Lock& e = LockFor(r.key);
    if (queued && --e.exclusive_waiting[owner.id] == 0) e.exclusive_waiting.erase(owner.id);
    if (!failed.ok()) {
      SyncObtrusive(e);
      for (const auto& [key, mode] : taken) {
        Lock& t = LockFor(key);
        if (mode == Mode::kExclusive) {
          t.exclusive.reset();
          SyncObtrusive(t);
        } else {
          t.shared.erase(owner.id);
        }
        if (t.exclusive != owner.id && t.shared.count(owner.id) == 0) {  // (an upgrade keeps the shared lock)
          auto& keys = held_[owner.id];
          if (auto pos = std::find(keys.begin(), keys.end(), key); pos != keys.end()) keys.erase(pos);
        }
        EraseIfIdleLocked(key);
      }
      if (held_[owner.id].empty()) held_.erase(owner.id);
      NoteRecordedLocked(owner);
      EraseIfIdleLocked(r.key);
      // Shared requests queued behind this exclusive one may go now.
      cv_.NotifyAll();
      return failed;
    }
    if (r.mode == Mode::kExclusive) {
      e.exclusive = owner.id;
      SyncObtrusive(e);
    } else {
      e.shared[owner.id] = 1;
    }
    auto& keys = held_[owner.id];
    if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
    owner.recorded_ = true;
    taken.emplace_back(r.key, r.mode);
  }
  if (announced) cv_.NotifyAll();  // our queued exclusive requests are gone
  return Status::OK();
}

void MetadataLocks::ReleaseShared(Owner& owner) {
  ReleaseFast(owner, nullptr);
  if (!owner.recorded_) return;
  MutexLock lock(&mu_);
  auto h = held_.find(owner.id);
  if (h == held_.end()) {
    owner.recorded_ = false;
    return;
  }
  std::vector<std::string> kept;
  for (const std::string& key : h->second) {
    Lock* e = Find(key);
    if (e == nullptr) continue;
    e->shared.erase(owner.id);
    if (e->exclusive == owner.id) kept.push_back(key);
    EraseIfIdleLocked(key);
  }
  if (kept.empty()) {
    held_.erase(h);
  } else {
    h->second = std::move(kept);
  }
  NoteRecordedLocked(owner);
  cv_.NotifyAll();
}

void MetadataLocks::Release(Owner& owner, const std::vector<std::string>& keys) {
  ReleaseFast(owner, &keys);
  if (!owner.recorded_) return;
  MutexLock lock(&mu_);
  auto h = held_.find(owner.id);
  if (h == held_.end()) {
    owner.recorded_ = false;
    return;
  }
  for (const std::string& key : keys) {
    auto pos = std::find(h->second.begin(), h->second.end(), key);
    if (pos == h->second.end()) continue;
    h->second.erase(pos);
    Lock* e = Find(key);
    if (e == nullptr) continue;
    e->shared.erase(owner.id);
    if (e->exclusive == owner.id) {
      e->exclusive.reset();
      SyncObtrusive(*e);
    }
    EraseIfIdleLocked(key);
  }
  if (h->second.empty()) held_.erase(h);
  NoteRecordedLocked(owner);
  cv_.NotifyAll();
}

void MetadataLocks::ReleaseAll(Owner& owner) {
  ReleaseFast(owner, nullptr);
  if (!owner.recorded_) return;
  std::vector<std::string> keys;
  {
    MutexLock lock(&mu_);
    auto h = held_.find(owner.id);
    if (h == held_.end()) {
      owner.recorded_ = false;
      return;
    }
    keys = h->second;
  }
  Release(owner, keys);
}

bool MetadataLocks::Holds(const Owner& owner, const std::string& key, Mode mode) const {
  if (mode == Mode::kShared && HoldsFast(owner, key)) return true;
  if (!owner.recorded_) return false;
  MutexLock lock(&mu_);
  const Lock* e = Find(key);
  if (e == nullptr) return false;
  if (e->exclusive == owner.id) return true;
  return mode == Mode::kShared && e->shared.count(owner.id) != 0;
}

}  // namespace sluice::exec
