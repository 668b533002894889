#include "vars/status_vars.h"

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "base/strings.h"

namespace sluice::vars {
namespace {

Status Unknown(std::string_view name) {
  return Status::InvalidArgument(fmt::format("unknown status variable '{}'", name));
}

}  // namespace

StatusVariables::StatusVariables() : StatusVariables(Options()) {}

StatusVariables::StatusVariables(Options options)
    : options_(options), totals_(options.max_session_counters, 0) {}

StatusVariables::~StatusVariables() = default;

Result<SessionCounter> StatusVariables::RegisterSessionCounter(std::string name,
                                                               std::string help) {
  std::string key = base::AsciiLower(name);
  MutexLock lock(&mu_);
  if (entries_.count(key) != 0) {
    return Status::InvalidArgument(fmt::format("status variable '{}' already registered", name));
  }
  if (global_counters_.count(key) != 0) {
    return Status::InvalidArgument(fmt::format("'{}' was a global counter", name));
  }
  uint32_t slot;
  if (auto it = slots_.find(key); it != slots_.end()) {
    slot = it->second;
  } else {
    if (slots_.size() >= options_.max_session_counters) {
      return Status::InvalidArgument(
          fmt::format("no slot left for session counter '{}' ({} in use)", name, slots_.size()));
    }
    slot = static_cast<uint32_t>(slots_.size());
    slots_.emplace(key, slot);
  }
  entries_.emplace(std::move(key), Entry{std::move(name), std::move(help), Kind::kSessionCounter,
                                         slot, nullptr, nullptr});
  return SessionCounter{slot};
}

Result<GlobalCounter*> StatusVariables::RegisterGlobalCounter(std::string name, std::string help) {
  std::string key = base::AsciiLower(name);
  MutexLock lock(&mu_);
  if (entries_.count(key) != 0) {
    return Status::InvalidArgument(fmt::format("status variable '{}' already registered", name));
  }
  if (slots_.count(key) != 0) {
    return Status::InvalidArgument(fmt::format("'{}' was a session counter", name));
  }
  std::unique_ptr<GlobalCounter>& counter = global_counters_[key];
  if (!counter) counter = std::make_unique<GlobalCounter>();
  GlobalCounter* raw = counter.get();
  entries_.emplace(std::move(key), Entry{std::move(name), std::move(help), Kind::kGlobalCounter,
                                         SessionCounter::kInvalid, raw, nullptr});
  return raw;
}

Status StatusVariables::RegisterProvider(std::string name, std::string help,
                                         StatusProvider provider) {
  if (!provider) return Status::InvalidArgument(fmt::format("'{}' without a provider", name));
  std::string key = base::AsciiLower(name);
  MutexLock lock(&mu_);
  if (entries_.count(key) != 0) {
    return Status::InvalidArgument(fmt::format("status variable '{}' already registered", name));
  }
  entries_.emplace(std::move(key), Entry{std::move(name), std::move(help), Kind::kProvider,
                                         SessionCounter::kInvalid, nullptr, std::move(provider)});
  return Status::OK();
}

Status StatusVariables::Unregister(std::string_view name) {
  MutexLock lock(&mu_);
  auto it = entries_.find(base::AsciiLower(name));
  if (it == entries_.end()) return Unknown(name);
  entries_.erase(it);
  return Status::OK();
}

std::vector<uint64_t> StatusVariables::SumLocked() const {
  std::vector<uint64_t> sums = totals_;
  const size_t used = slots_.size();
  for (const SessionStatus* s : live_) {
    for (size_t i = 0; i < used; ++i) sums[i] += s->counters_[i].load(std::memory_order_relaxed);
  }
  return sums;
}

uint64_t StatusVariables::Total(SessionCounter counter) const {
  if (counter.slot >= options_.max_session_counters) return 0;
  MutexLock lock(&mu_);
  uint64_t sum = totals_[counter.slot];
  for (const SessionStatus* s : live_) {
    sum += s->counters_[counter.slot].load(std::memory_order_relaxed);
  }
  return sum;
}

size_t StatusVariables::live_sessions() const {
  MutexLock lock(&mu_);
  return live_.size();
}

Result<std::string> StatusVariables::Get(std::string_view name, StatusScope scope,
                                         const SessionStatus* session) const {
  const std::string key = base::AsciiLower(name);
  const SessionStatus* for_session = scope == StatusScope::kSession ? session : nullptr;
  StatusProvider provider;
  {
    MutexLock lock(&mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return Unknown(name);
    const Entry& e = it->second;
    if (for_session == nullptr || for_session->computed_.count(key) == 0) {
      switch (e.kind) {
        case Kind::kSessionCounter: {
          if (for_session != nullptr) {
            return std::to_string(for_session->Get(SessionCounter{e.slot}));
          }
          uint64_t sum = totals_[e.slot];
          for (const SessionStatus* s : live_) {
            sum += s->counters_[e.slot].load(std::memory_order_relaxed);
          }
          return std::to_string(sum);
        }
        case Kind::kGlobalCounter:
          return std::to_string(e.global->value());
        case Kind::kProvider:
          provider = e.provider;
          break;
      }
    }
  }
  // Outside mu_: a provider or binding may take its own locks.
  if (for_session != nullptr) {
    auto it = for_session->computed_.find(key);
    if (it != for_session->computed_.end()) return it->second();
  }
  return provider(for_session);
}

std::vector<StatusRow> StatusVariables::List(StatusScope scope,
                                             const SessionStatus* session) const {
  const SessionStatus* for_session = scope == StatusScope::kSession ? session : nullptr;
  struct Pending {
    std::string key;
    StatusProvider provider;
  };
  std::vector<StatusRow> rows;
  std::vector<std::pair<size_t, Pending>> pending;  // row index -> provider to call
  {
    MutexLock lock(&mu_);
    std::vector<uint64_t> sums;
    if (for_session == nullptr) sums = SumLocked();
    rows.reserve(entries_.size());
    for (const auto& [key, e] : entries_) {
      std::string value;
      if (for_session != nullptr && for_session->computed_.count(key) != 0) {
        pending.emplace_back(rows.size(), Pending{key, nullptr});
        rows.push_back(StatusRow{e.name, std::move(value)});
        continue;
      }
      switch (e.kind) {
        case Kind::kSessionCounter:
          value = std::to_string(for_session != nullptr ? for_session->Get(SessionCounter{e.slot})
                                                        : sums[e.slot]);
          break;
        case Kind::kGlobalCounter:
          value = std::to_string(e.global->value());
          break;
        case Kind::kProvider:
          pending.emplace_back(rows.size(), Pending{key, e.provider});
          break;
      }
      rows.push_back(StatusRow{e.name, std::move(value)});
    }
  }
  for (auto& [index, p] : pending) {
    if (for_session != nullptr) {
      auto it = for_session->computed_.find(p.key);
      if (it != for_session->computed_.end()) {
        rows[index].value = it->second();
        continue;
      }
    }
    rows[index].value = p.provider(for_session);
  }
  return rows;
}

void StatusVariables::Link(SessionStatus* session) {
  MutexLock lock(&mu_);
  live_.insert(session);
}

void StatusVariables::Retire(SessionStatus* session, bool unlink) {
  // Under mu_, so a concurrent sum counts these either in the session or in
  // the totals, never in both or neither.
  MutexLock lock(&mu_);
  for (uint32_t i = 0; i < session->capacity_; ++i) {
    totals_[i] += session->counters_[i].exchange(0, std::memory_order_relaxed);
  }
  if (unlink) live_.erase(session);
}

SessionStatus::SessionStatus(StatusVariables& registry)
    : registry_(registry),
      capacity_(registry.options_.max_session_counters),
      counters_(std::make_unique<std::atomic<uint64_t>[]>(capacity_)) {
  registry_.Link(this);
}

SessionStatus::~SessionStatus() { registry_.Retire(this, /*unlink=*/true); }

void SessionStatus::BindComputed(std::string name, std::function<std::string()> fn) {
  computed_[base::AsciiLower(name)] = std::move(fn);
}

void SessionStatus::Flush() { registry_.Retire(this, /*unlink=*/false); }

}  // namespace sluice::vars
