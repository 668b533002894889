#include "server/rpl/delegates.h"

#include <fmt/format.h>

#include "base/log.h"
#include "base/mysql_error.h"

namespace sluice::server::rpl {

namespace {
// ER_RUN_HOOK_ERROR (kept local: base/mysql_error.h is everyone's header).
constexpr er::Error kRunHookError{3100, "HY000", "Error on observer while running replication hook '{}'."};

// An observer's failure, as MySQL reports it to the client (3100, naming
// the hook); the observer's own error goes to the error log.
Status HookFailed(std::string_view hook, const Status& cause) {
  if (auto log = base::GetLogger("server")) {
    log->error("Replication hook '{}' failed: {}", hook, cause.message());
  }
  return MakeError(kRunHookError, hook);
}

// Gives one observer its own observer_data for one call.
struct DataScope {
  DataScope(TransmitParam& p, void*& data) : p(p), data(data) { p.observer_data = data; }
  ~DataScope() { data = p.observer_data; }
  TransmitParam& p;
  void*& data;
};
}  // namespace

TransmitSession::~TransmitSession() { Stop(); }

Status TransmitSession::ReserveHeader(std::string& packet) {
  for (size_t i = 0; i < observers_.size(); ++i) {
    uint8_t header[32];
    size_t len = 0;
    DataScope d(param_, observer_data_[i]);
    Status s = observers_[i].observer->ReserveHeader(param_, header, sizeof(header), &len);
    if (!s.ok()) return HookFailed("reserve_header", s);
    packet.append(reinterpret_cast<const char*>(header), std::min(len, sizeof(header)));
  }
  return Status::OK();
}

Status TransmitSession::BeforeSendEvent(std::string& packet, std::string_view log_file, uint64_t log_pos) {
  for (size_t i = 0; i < observers_.size(); ++i) {
    DataScope d(param_, observer_data_[i]);
    Status s = observers_[i].observer->BeforeSendEvent(param_, packet, log_file, log_pos);
    if (!s.ok()) return HookFailed("before_send_event", s);
  }
  return Status::OK();
}

Status TransmitSession::AfterSendEvent(std::string_view event, std::string_view log_file, uint64_t log_pos) {
  for (size_t i = 0; i < observers_.size(); ++i) {
    DataScope d(param_, observer_data_[i]);
    Status s = observers_[i].observer->AfterSendEvent(param_, event, log_file, log_pos);
    if (!s.ok()) return HookFailed("after_send_event", s);
  }
  return Status::OK();
}

void TransmitSession::Stop() {
  if (stopped_) return;
  stopped_ = true;
  for (auto& a : asked_) {
    // An observed one's data may have changed in per-event hooks.
    DataScope d(param_, a.observed >= 0 ? observer_data_[static_cast<size_t>(a.observed)] : a.data);
    if (!a.owned) {
      (void)a.observer->TransmitStop(param_);
    } else if (std::shared_ptr<void> alive = a.owner.lock()) {
      (void)a.observer->TransmitStop(param_);
    }
  }
  observers_.clear();
  observer_data_.clear();
  asked_.clear();
}

Result<TransmitSession> Registry::TransmitStart(TransmitParam param, std::string_view log_file, uint64_t log_pos) {
  TransmitSession session;
  session.param_ = std::move(param);
  session.stopped_ = false;
  for (const auto& e : transmit_.read()) {
    TransmitParam& p = session.param_;
    p.flags = 0;
    p.observer_data = nullptr;
    Status s = e.observer->TransmitStart(p, log_file, log_pos);
    // Neither flag: observed, as MySQL does for observers that predate them.
    const bool observe =
        s.ok() && ((p.flags & TransmitParam::kObserve) || !(p.flags & TransmitParam::kDontObserve));
    session.asked_.push_back({e.observer, e.owner, e.owner != nullptr, p.observer_data,
                              observe ? static_cast<int>(session.observers_.size()) : -1});
    if (!s.ok()) return HookFailed("transmit_start", s);
    if (observe) {
      session.observers_.push_back(e);
      session.observer_data_.push_back(p.observer_data);
    }
  }
  return session;
}

Status Registry::BeforeCommit(const TransObserver::Param& p) {
  if (trans_.empty()) return Status::OK();  // no plugin: not even a Reader
  for (const auto& e : trans_.read()) {
    Status s = e.observer->BeforeCommit(p);
    if (!s.ok()) return HookFailed("before_commit", s);
  }
  return Status::OK();
}

Status Registry::AfterCommit(const TransObserver::Param& p) {
  if (trans_.empty()) return Status::OK();
  for (const auto& e : trans_.read()) {
    Status s = e.observer->AfterCommit(p);
    if (!s.ok()) return HookFailed("after_commit", s);
  }
  return Status::OK();
}

Status Registry::AfterRollback(const TransObserver::Param& p) {
  if (trans_.empty()) return Status::OK();
  for (const auto& e : trans_.read()) {
    Status s = e.observer->AfterRollback(p);
    if (!s.ok()) return HookFailed("after_rollback", s);
  }
  return Status::OK();
}

void Registry::RunStorageHook(const char* name, Status (BinlogStorageObserver::*hook)(std::string_view, uint64_t),
                              const std::string& log_file, uint64_t log_pos) {
  if (storage_.empty()) return;
  for (const auto& e : storage_.read()) {
    Status s = (e.observer->*hook)(log_file, log_pos);
    if (!s.ok()) {
      if (auto log = base::GetLogger("server")) {
        log->error("Failed to run '{}' hooks (binlog {} at {}): {}", name, log_file, log_pos, s.message());
      }
    }
  }
}

void Registry::AfterFlush(const std::string& log_file, uint64_t log_pos) {
  RunStorageHook("after_flush", &BinlogStorageObserver::AfterFlush, log_file, log_pos);
}

void Registry::AfterSync(const std::string& log_file, uint64_t log_pos) {
  RunStorageHook("after_sync", &BinlogStorageObserver::AfterSync, log_file, log_pos);
}

bool Registry::SetReaderLimit(std::string_view file, uint64_t pos) {
  binlog::Binlog* b = binlog_.load(std::memory_order_acquire);
  if (b == nullptr) return false;
  if (file.empty()) {
    b->ClearReaderLimit();
    return true;
  }
  return b->SetReaderLimit(file, pos);
}

void Registry::AfterResetMaster() {
  for (const auto& e : transmit_.read()) (void)e.observer->AfterResetMaster();
}

}  // namespace sluice::server::rpl
