#include "server/rpl/delegates.h"

#include <fmt/format.h>

namespace sluice::server::rpl {

namespace {
Status HookFailed(std::string_view hook, const Status& cause) {
  return Status::MySQL(1105, "HY000", fmt::format("Failed to run hook '{}': {}", hook, cause.message()));
}
}  // namespace

TransmitSession::~TransmitSession() { Stop(); }

Status TransmitSession::ReserveHeader(std::string& packet) {
  for (auto& e : observers_) {
    uint8_t header[32];
    size_t len = 0;
    Status s = e.observer->ReserveHeader(param_, header, sizeof(header), &len);
    if (!s.ok()) return HookFailed("reserve_header", s);
    packet.append(reinterpret_cast<const char*>(header), std::min(len, sizeof(header)));
  }
  return Status::OK();
}

Status TransmitSession::BeforeSendEvent(std::string& packet, std::string_view log_file, uint64_t log_pos) {
  for (auto& e : observers_) {
    Status s = e.observer->BeforeSendEvent(param_, packet, log_file, log_pos);
    if (!s.ok()) return HookFailed("before_send_event", s);
  }
  return Status::OK();
}

Status TransmitSession::AfterSendEvent(std::string_view event, std::string_view log_file, uint64_t log_pos) {
  for (auto& e : observers_) {
    Status s = e.observer->AfterSendEvent(param_, event, log_file, log_pos);
    if (!s.ok()) return HookFailed("after_send_event", s);
  }
  return Status::OK();
}

void TransmitSession::Stop() {
  if (stopped_) return;
  stopped_ = true;
  for (auto& a : asked_) {
    if (!a.owned) {
      (void)a.observer->TransmitStop(param_);
    } else if (std::shared_ptr<void> alive = a.owner.lock()) {
      (void)a.observer->TransmitStop(param_);
    }
  }
  observers_.clear();
  asked_.clear();
}

Result<TransmitSession> Registry::TransmitStart(TransmitParam param, std::string_view log_file, uint64_t log_pos) {
  TransmitSession session;
  session.param_ = std::move(param);
  session.stopped_ = false;
  for (const auto& e : transmit_.read()) {
    TransmitParam& p = session.param_;
    p.flags = 0;
    Status s = e.observer->TransmitStart(p, log_file, log_pos);
    session.asked_.push_back({e.observer, e.owner, e.owner != nullptr});
    if (!s.ok()) return HookFailed("transmit_start", s);
    // Neither flag: observed, as MySQL does for observers that predate them.
    const bool observe = (p.flags & TransmitParam::kObserve) || !(p.flags & TransmitParam::kDontObserve);
    if (observe) session.observers_.push_back(e);
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

void Registry::AfterFlush(const std::string& log_file, uint64_t log_pos) {
  if (storage_.empty()) return;
  for (const auto& e : storage_.read()) (void)e.observer->AfterFlush(log_file, log_pos);
}

void Registry::AfterSync(const std::string& log_file, uint64_t log_pos) {
  if (storage_.empty()) return;
  for (const auto& e : storage_.read()) (void)e.observer->AfterSync(log_file, log_pos);
}

void Registry::AfterResetMaster() {
  for (const auto& e : transmit_.read()) (void)e.observer->AfterResetMaster();
}

}  // namespace sluice::server::rpl
