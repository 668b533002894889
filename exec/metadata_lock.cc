#include "exec/metadata_lock.h"

#include <algorithm>
#include <set>

#include "base/mysql_error.h"
#include "exec/lock_wait.h"
#include "sql/lexer.h"

namespace sluice::exec {

std::string MetadataLocks::TableKey(std::string_view schema, std::string_view table) {
  // Lower case whatever lower_case_table_names says: two spellings of one
  // table then share a lock; the cost is only that `T` and `t` (distinct
  // tables when names are case-sensitive) share one too.
  return "t:" + sql::AsciiLower(std::string(schema)) + "." + sql::AsciiLower(std::string(table));
}

std::string MetadataLocks::SchemaKey(std::string_view schema) {
  return "s:" + sql::AsciiLower(std::string(schema));
}

std::vector<uint32_t> MetadataLocks::BlockersLocked(const Entry& e, uint32_t owner, Mode mode) const {
  std::vector<uint32_t> out;
  if (e.exclusive && *e.exclusive != owner) out.push_back(*e.exclusive);
  if (mode == Mode::kExclusive) {
    for (const auto& [holder, n] : e.shared) {
      if (holder != owner) out.push_back(holder);
    }
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
    auto e = entries_.find(w->second.key);
    if (e == entries_.end()) continue;
    for (uint32_t q : BlockersLocked(e->second, p, w->second.mode)) stack.push_back(q);
  }
  return false;
}

void MetadataLocks::EraseIfIdleLocked(const std::string& key) {
  auto it = entries_.find(key);
  if (it != entries_.end() && it->second.Idle()) entries_.erase(it);
}

Status MetadataLocks::Acquire(uint32_t owner, std::vector<Request> requests, std::chrono::milliseconds timeout,
                              const std::atomic<int>* killed, const std::function<void()>& on_wait) {
  // Key order, one request per key (exclusive wins).
  std::sort(requests.begin(), requests.end(), [](const Request& a, const Request& b) {
    return a.key != b.key ? a.key < b.key : a.mode > b.mode;
  });
  requests.erase(std::unique(requests.begin(), requests.end(),
                             [](const Request& a, const Request& b) { return a.key == b.key; }),
                 requests.end());
  LockWaiter waiter(timeout, killed);
  MutexLock lock(&mu_);
  std::vector<std::pair<std::string, Mode>> taken;  // by this call, undone on failure
  bool announced = false;
  for (const Request& r : requests) {
    // Looked up again after every wait: another session's release erases
    // an idle entry, and a shared request waiting leaves none of its own.
    if (const Entry& e = entries_[r.key];
        e.exclusive == owner || (r.mode == Mode::kShared && e.shared.count(owner))) {
      continue;
    }
    bool queued = false;  // this request counted in e.exclusive_waiting
    Status failed;
    for (;;) {
      Entry& e = entries_[r.key];
      const std::vector<uint32_t> blockers = BlockersLocked(e, owner, r.mode);
      if (blockers.empty()) break;
      if (ClosesCycleLocked(owner, blockers)) {
        failed = MakeError(er::kLockDeadlock);
      } else if (waiter.Over()) {
        failed = MakeError(waiter.outcome() == LockWait::kKilled ? er::kQueryInterrupted : er::kLockWaitTimeout);
      }
      if (!failed.ok()) break;
      if (r.mode == Mode::kExclusive && !queued) {
        ++e.exclusive_waiting[owner];
        queued = true;
      }
      waiting_[owner] = Waiting{r.key, r.mode};
      if (!announced && on_wait) {
        announced = true;
        on_wait();
      }
      // A killed session is noticed within a tenth of a second.
      waiter.WaitOnce(&cv_, &mu_);
    }
    waiting_.erase(owner);
    Entry& e = entries_[r.key];
    if (queued && --e.exclusive_waiting[owner] == 0) e.exclusive_waiting.erase(owner);
    if (!failed.ok()) {
      for (const auto& [key, mode] : taken) {
        Entry& t = entries_[key];
        if (mode == Mode::kExclusive) {
          t.exclusive.reset();
        } else {
          t.shared.erase(owner);
        }
        if (t.exclusive != owner && t.shared.count(owner) == 0) {  // (an upgrade keeps the shared lock)
          auto& keys = held_[owner];
          if (auto pos = std::find(keys.begin(), keys.end(), key); pos != keys.end()) keys.erase(pos);
        }
        EraseIfIdleLocked(key);
      }
      if (held_[owner].empty()) held_.erase(owner);
      EraseIfIdleLocked(r.key);
      // Shared requests queued behind this exclusive one may go now.
      cv_.NotifyAll();
      return failed;
    }
    if (r.mode == Mode::kExclusive) {
      e.exclusive = owner;
    } else {
      e.shared[owner] = 1;
    }
    auto& keys = held_[owner];
    if (std::find(keys.begin(), keys.end(), r.key) == keys.end()) keys.push_back(r.key);
    taken.emplace_back(r.key, r.mode);
  }
  if (announced) cv_.NotifyAll();  // our queued exclusive requests are gone
  return Status::OK();
}

void MetadataLocks::ReleaseShared(uint32_t owner) {
  MutexLock lock(&mu_);
  auto h = held_.find(owner);
  if (h == held_.end()) return;
  std::vector<std::string> kept;
  for (const std::string& key : h->second) {
    auto it = entries_.find(key);
    if (it == entries_.end()) continue;
    it->second.shared.erase(owner);
    if (it->second.exclusive == owner) kept.push_back(key);
    EraseIfIdleLocked(key);
  }
  if (kept.empty()) {
    held_.erase(h);
  } else {
    h->second = std::move(kept);
  }
  cv_.NotifyAll();
}

void MetadataLocks::Release(uint32_t owner, const std::vector<std::string>& keys) {
  MutexLock lock(&mu_);
  auto h = held_.find(owner);
  if (h == held_.end()) return;
  for (const std::string& key : keys) {
    auto pos = std::find(h->second.begin(), h->second.end(), key);
    if (pos == h->second.end()) continue;
    h->second.erase(pos);
    auto it = entries_.find(key);
    if (it == entries_.end()) continue;
    it->second.shared.erase(owner);
    if (it->second.exclusive == owner) it->second.exclusive.reset();
    EraseIfIdleLocked(key);
  }
  if (h->second.empty()) held_.erase(h);
  cv_.NotifyAll();
}

void MetadataLocks::ReleaseAll(uint32_t owner) {
  std::vector<std::string> keys;
  {
    MutexLock lock(&mu_);
    auto h = held_.find(owner);
    if (h == held_.end()) return;
    keys = h->second;
  }
  Release(owner, keys);
}

bool MetadataLocks::Holds(uint32_t owner, const std::string& key, Mode mode) const {
  MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  if (it->second.exclusive == owner) return true;
  return mode == Mode::kShared && it->second.shared.count(owner) != 0;
}

}  // namespace sluice::exec
