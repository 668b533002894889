// server/rpl/delegates.h
//
// The replication observer registry: three delegates with MySQL's hook
// points, through which plugins (semisync) observe commits and binlog
// transmission.
//
//   TransDelegate          before_commit, after_commit, after_rollback
//   BinlogStorageDelegate  after_flush, after_sync (one call per commit group)
//   BinlogTransmitDelegate transmit_start, transmit_stop, reserve_header,
//                          before_send_event, after_send_event,
//                          after_reset_master
//
// Each delegate holds an immutable snapshot of its observers; Add/Remove
// build a new snapshot under the delegate's mutex and publish it with one
// atomic store (old snapshots are retired, freed with the delegate), so a
// hook call is one atomic load and a loop: no lock, no reference count.
// An observer's owner (its plugin) is kept alive by a shared_ptr in the
// snapshot entry; since retired snapshots keep their entries, a removed
// observer's owner lives until the delegate goes (server shutdown), as a
// busy plugin in MySQL is "uninstalled on shutdown".
//
// Transmission is negotiated per connection (MySQL Bug #70218's fix, taken
// further): TransmitStart() asks every transmit observer once and returns a
// TransmitSession holding only those that answered F_OBSERVE, each with
// one plugin reference for the connection's lifetime. The dump thread then
// calls the per-event hooks on that session only; a plain reader's session
// is empty, so its per-event path makes no hook call, takes no lock and
// writes no shared cache line. Observers removed while a session holds them
// keep working for it (the session's references keep them alive) until its
// TransmitStop.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "binlog/binlog.h"

namespace sluice::server::rpl {

// What a transmit observer learns about a dump connection, and the answer
// it gives in `flags`.
struct TransmitParam {
  static constexpr uint32_t kObserve = 1;      // F_OBSERVE
  static constexpr uint32_t kDontObserve = 2;  // F_DONT_OBSERVE
  uint32_t server_id = 0;       // the reader's server_id
  uint32_t connection_id = 0;
  uint16_t dump_flags = 0;      // COM_BINLOG_DUMP flags
  std::string host;             // reader's address
  // The reader's user variable `name` as text, or "" when unset (a
  // semisync replica sets @rpl_semi_sync_replica / @rpl_semi_sync_slave).
  std::function<std::string(std::string_view name)> user_var;
  uint32_t flags = 0;           // set by observers: kObserve / kDontObserve
  // Per-connection state an observer may keep (owned by the observer).
  void* observer_data = nullptr;
};

class TransObserver {
 public:
  virtual ~TransObserver() = default;
  // Thread, GTID and binlog end of the committing transaction.
  struct Param {
    uint32_t connection_id = 0;
    std::string_view gtid;
    std::string_view log_file;
    uint64_t log_pos = 0;
  };
  virtual Status BeforeCommit(const Param&) { return Status::OK(); }
  virtual Status AfterCommit(const Param&) { return Status::OK(); }
  virtual Status AfterRollback(const Param&) { return Status::OK(); }
};

class BinlogStorageObserver {
 public:
  virtual ~BinlogStorageObserver() = default;
  virtual Status AfterFlush(std::string_view log_file, uint64_t log_pos) { return Status::OK(); }
  virtual Status AfterSync(std::string_view log_file, uint64_t log_pos) { return Status::OK(); }
};

class BinlogTransmitObserver {
 public:
  virtual ~BinlogTransmitObserver() = default;
  // Sets param.flags |= kObserve or kDontObserve (neither: observed, as MySQL).
  virtual Status TransmitStart(TransmitParam& param, std::string_view log_file, uint64_t log_pos) = 0;
  virtual Status TransmitStop(TransmitParam& param) { return Status::OK(); }
  // Writes up to `capacity` bytes of extra packet header (semisync: EF 00)
  // into `header` and sets *len.
  virtual Status ReserveHeader(TransmitParam& param, uint8_t* header, size_t capacity, size_t* len) {
    *len = 0;
    return Status::OK();
  }
  // May rewrite the extra header of the packet about to be sent (`packet`
  // starts with the OK byte and the reserved header).
  virtual Status BeforeSendEvent(TransmitParam& param, std::string& packet, std::string_view log_file,
                                 uint64_t log_pos) {
    return Status::OK();
  }
  virtual Status AfterSendEvent(TransmitParam& param, std::string_view event, std::string_view log_file,
                                uint64_t log_pos) {
    return Status::OK();
  }
  virtual Status AfterResetMaster() { return Status::OK(); }
};

// Keeps an observer's plugin alive; null for built-in observers.
using ObserverOwner = std::shared_ptr<void>;

template <typename Observer>
class Delegate {
 public:
  struct Entry {
    Observer* observer;
    ObserverOwner owner;
  };
  using Snapshot = std::vector<Entry>;

  Delegate() : current_(new Snapshot()) { retired_.emplace_back(current_.load()); }
  Delegate(const Delegate&) = delete;
  Delegate& operator=(const Delegate&) = delete;

  // InvalidArgument when `observer` is already registered.
  Status Add(Observer* observer, ObserverOwner owner = nullptr) {
    std::lock_guard lock(mu_);
    lock_acquisitions_.fetch_add(1, std::memory_order_relaxed);
    const Snapshot& cur = *current_.load(std::memory_order_acquire);
    for (const Entry& e : cur) {
      if (e.observer == observer) return Status::InvalidArgument("observer already registered");
    }
    auto next = std::make_unique<Snapshot>(cur);
    next->push_back({observer, std::move(owner)});
    Publish(std::move(next));
    return Status::OK();
  }
  // Returns whether it was registered.
  bool Remove(Observer* observer) {
    std::lock_guard lock(mu_);
    lock_acquisitions_.fetch_add(1, std::memory_order_relaxed);
    const Snapshot& cur = *current_.load(std::memory_order_acquire);
    auto next = std::make_unique<Snapshot>();
    for (const Entry& e : cur) {
      if (e.observer != observer) next->push_back(e);
    }
    if (next->size() == cur.size()) return false;
    Publish(std::move(next));
    return true;
  }
  // The current observers: valid until the delegate is destroyed.
  const Snapshot& snapshot() const { return *current_.load(std::memory_order_acquire); }
  bool empty() const { return snapshot().empty(); }
  // Times the registry mutex was taken (tests: never by hook calls).
  uint64_t lock_acquisitions() const { return lock_acquisitions_.load(std::memory_order_relaxed); }

 private:
  void Publish(std::unique_ptr<Snapshot> next) {
    // The old snapshot may still be read by a hook call in flight: it stays
    // in retired_ (Add/Remove are rare: plugin install/uninstall).
    current_.store(next.get(), std::memory_order_release);
    retired_.emplace_back(next.release());
  }

  std::mutex mu_;  // Add/Remove only
  std::atomic<Snapshot*> current_;
  std::vector<std::unique_ptr<Snapshot>> retired_;  // GUARDED_BY(mu_); all snapshots ever published
  std::atomic<uint64_t> lock_acquisitions_{0};
};

// One dump connection's transmit observers: those that answered F_OBSERVE.
class TransmitSession {
 public:
  TransmitSession() = default;
  TransmitSession(TransmitSession&&) = default;
  TransmitSession& operator=(TransmitSession&&) = default;
  ~TransmitSession();

  bool observed() const { return !observers_.empty(); }
  TransmitParam& param() { return param_; }
  // Per-event hooks; only called when observed(). The first failing hook's
  // error is returned ("Failed to run hook '<name>'", 1105).
  Status ReserveHeader(std::string& packet);
  Status BeforeSendEvent(std::string& packet, std::string_view log_file, uint64_t log_pos);
  Status AfterSendEvent(std::string_view event, std::string_view log_file, uint64_t log_pos);
  // Calls transmit_stop on every observer asked at start, once.
  void Stop();

 private:
  friend class Registry;
  TransmitParam param_;
  std::vector<Delegate<BinlogTransmitObserver>::Entry> observers_;  // F_OBSERVE ones, owners held
  std::vector<Delegate<BinlogTransmitObserver>::Entry> asked_;      // all asked at start (for stop)
  bool stopped_ = true;
};

// The binlog's commit hooks (after_flush, after_sync) call the storage
// observers: Binlog::set_hooks(&registry).
class Registry : public binlog::CommitHooks {
 public:
  Delegate<TransObserver>& trans() { return trans_; }
  Delegate<BinlogStorageObserver>& storage() { return storage_; }
  Delegate<BinlogTransmitObserver>& transmit() { return transmit_; }

  // transmit_start for one dump connection (see the file comment). An
  // observer failing transmit_start fails the dump with its error.
  Result<TransmitSession> TransmitStart(TransmitParam param, std::string_view log_file, uint64_t log_pos);

  // Hook points of the commit path; each is one atomic load when empty.
  Status BeforeCommit(const TransObserver::Param& p);
  Status AfterCommit(const TransObserver::Param& p);
  Status AfterRollback(const TransObserver::Param& p);
  void AfterFlush(const std::string& log_file, uint64_t log_pos) override;
  void AfterSync(const std::string& log_file, uint64_t log_pos) override;
  void AfterResetMaster();

 private:
  Delegate<TransObserver> trans_;
  Delegate<BinlogStorageObserver> storage_;
  Delegate<BinlogTransmitObserver> transmit_;
};

}  // namespace sluice::server::rpl
