// server/rpl/delegates.h
//
// The replication observer registry: three delegates with MySQL's hook
// points, through which plugins (semisync) observe commits and binlog
// transmission.
//
//   TransDelegate          before_commit, after_commit, after_rollback
//   BinlogStorageDelegate  after_flush (one call per commit group), after_sync
//                          (one per transaction, by the group's leader)
//   BinlogTransmitDelegate transmit_start, transmit_stop, reserve_header,
//                          before_send_event, after_send_event,
//                          after_reset_master
//
// Each delegate holds an immutable snapshot of its observers; Add/Remove
// build a new snapshot under the delegate's mutex and publish it with one
// atomic store; the old one is retired. A hook call walks the snapshot
// inside a Reader: one increment and one decrement of a counter in a slot
// picked per thread (its own cache line; 32 slots), an epoch load and the
// snapshot load: no lock, no shared reference count.
// Reclamation (SRCU-like): Synchronize() takes the retired snapshots, waits
// until no reader of the earlier epoch is left, flips the epoch, waits for
// the readers of the old epoch, and frees them. An observer's owner (its
// plugin) is kept alive by a shared_ptr in the snapshot entry, so a removed
// observer's owner goes when the last snapshot (or TransmitSession) holding
// it goes: the plugin loader synchronizes at UNINSTALL, which lets the
// library be closed. Add/Remove never wait (a plugin may unregister from
// inside one of its hooks); retired snapshots wait for the next
// Synchronize() or the delegate's destruction.
//
// Transmission is negotiated per connection (MySQL Bug #70218's fix, taken
// further): TransmitStart() asks every transmit observer once and returns a
// TransmitSession holding only those that answered F_OBSERVE, each with
// one plugin reference for the connection's lifetime (those that declined
// are kept weakly, for transmit_stop only, so a plain reader pins no
// uninstalled plugin). The dump thread then
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
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "binlog/binlog.h"
#include "exec/exec_env.h"

namespace sluice::server::rpl {

// A dump connection's socket as transmit observers may use it: reading
// what the reader sends back (semisync acks), pushing what was sent.
class DumpConnection {
 public:
  virtual ~DumpConnection() = default;
  // The socket, for poll/epoll (plain or under TLS).
  virtual int fd() const = 0;
  // What ReadPacket answers besides 1 (a packet), 0 and -1.
  static constexpr int kBusy = 2;
  // One packet the reader sent, without blocking: 1 its payload is in
  // *payload, 0 none complete yet, -1 closed, failed, or longer than
  // `max`. Any thread (one at a time), while the dump thread writes.
  // Where reads wait for writes (ReadsWaitForWrites) and `defer` is set,
  // a read that would wait more than a moment for a write in progress
  // reads nothing and answers kBusy: try again later.
  virtual int ReadPacket(std::string* payload, size_t max, bool defer) = 0;
  // Dump thread only: writes what is buffered; next_seq >= 0 becomes the
  // sequence id of the next packet.
  virtual Status Flush(int next_seq) = 0;
  // Any thread: shuts the socket down; the dump ends at its next write.
  virtual void Close() = 0;
  // Whether ReadPacket may wait for a write in progress (TLS: both
  // directions share the stream's state; a reader that stops reading
  // holds a write for as long as it likes).
  virtual bool ReadsWaitForWrites() const { return false; }
};

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
  // Per-connection state an observer may keep (owned by the observer);
  // each observer sees its own (TransmitSession swaps them in and out).
  void* observer_data = nullptr;
  // The connection (null in tests); outlives the TransmitSession.
  DumpConnection* connection = nullptr;
};

class TransObserver {
 public:
  virtual ~TransObserver() = default;
  // Thread, GTID and binlog end of the committing transaction.
  using Param = exec::TransactionHooks::Param;
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
  // Bracket a run of events a dump thread sends (each event's hooks in
  // between, on that thread): an observer may make its per-event hooks
  // cheaper meanwhile. A plugin's adapter enters its call gate once per run
  // rather than three times an event.
  virtual void BeginEvents() {}
  virtual void EndEvents() {}
};

// Keeps an observer's plugin alive; null for built-in observers.
using ObserverOwner = std::shared_ptr<void>;

template <typename Observer>
class Delegate {
  static constexpr size_t kSlots = 32;
  struct alignas(64) Slot {
    std::atomic<int64_t> readers[2] = {0, 0};  // by epoch parity
  };

 public:
  struct Entry {
    Observer* observer;
    ObserverOwner owner;
  };
  using Snapshot = std::vector<Entry>;

  // A read-side critical section: the snapshot it gives stays valid (not
  // freed by Synchronize()) until the Reader is destroyed. Use as
  //   for (const auto& e : delegate.read()) ...
  class Reader {
   public:
    explicit Reader(const Delegate& d)
        : slot_(&d.slots_[ThreadSlot()]), parity_(d.epoch_.load(std::memory_order_seq_cst) & 1) {
      slot_->readers[parity_].fetch_add(1, std::memory_order_seq_cst);
      snapshot_ = d.current_.load(std::memory_order_seq_cst);
    }
    ~Reader() { slot_->readers[parity_].fetch_sub(1, std::memory_order_release); }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    const Snapshot& operator*() const { return *snapshot_; }
    const Snapshot* operator->() const { return snapshot_; }
    typename Snapshot::const_iterator begin() const { return snapshot_->begin(); }
    typename Snapshot::const_iterator end() const { return snapshot_->end(); }
    size_t size() const { return snapshot_->size(); }
    const Entry& operator[](size_t i) const { return (*snapshot_)[i]; }

   private:
    Slot* slot_;
    uint32_t parity_;
    const Snapshot* snapshot_;
  };

  Delegate() : live_(std::make_unique<Snapshot>()), current_(live_.get()) {}
  Delegate(const Delegate&) = delete;
  Delegate& operator=(const Delegate&) = delete;

  // InvalidArgument when `observer` is already registered.
  Status Add(Observer* observer, ObserverOwner owner = nullptr) {  // no EXCLUDES(mu_): see Remove
    MutexLock lock(&mu_);
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
  bool Remove(Observer* observer) {  // no EXCLUDES(mu_): clang 14 crashes on it via a member pointer
    MutexLock lock(&mu_);
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
  // The current observers, valid while the Reader lives.
  Reader read() const { return Reader(*this); }
  bool empty() const { return size_.load(std::memory_order_acquire) == 0; }
  // Times the registry mutex was taken (tests: never by hook calls).
  uint64_t lock_acquisitions() const { return lock_acquisitions_.load(std::memory_order_relaxed); }
  // Snapshots retired and not yet freed (tests).
  size_t retired_count() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return retired_.size();
  }

  // Frees the snapshots retired so far, once every reader that may hold
  // one has left; blocks until then. Must not be called from inside a hook
  // of this delegate (it would wait for itself).
  void Synchronize() EXCLUDES(sync_mu_, mu_) {
    MutexLock sync(&sync_mu_);
    std::vector<std::unique_ptr<Snapshot>> victims;
    {
      MutexLock lock(&mu_);
      victims.swap(retired_);
    }
    if (victims.empty()) return;
    const uint32_t e = epoch_.load(std::memory_order_seq_cst);
    WaitForReaders((e + 1) & 1);  // late readers of an earlier epoch
    epoch_.store(e + 1, std::memory_order_seq_cst);
    WaitForReaders(e & 1);
  }  // victims freed here

 private:
  void Publish(std::unique_ptr<Snapshot> next) REQUIRES(mu_) {
    // The old snapshot may still be read by a hook call in flight: it is
    // retired, freed by the next Synchronize().
    size_.store(next->size(), std::memory_order_release);
    current_.store(next.get(), std::memory_order_seq_cst);
    retired_.push_back(std::move(live_));
    live_ = std::move(next);
  }
  void WaitForReaders(uint32_t parity) {
    for (Slot& s : slots_) {
      while (s.readers[parity].load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
    }
  }
  // Threads take slots round-robin, once each.
  static size_t ThreadSlot() {
    static std::atomic<size_t> next{0};
    thread_local const size_t slot = next.fetch_add(1, std::memory_order_relaxed) % kSlots;
    return slot;
  }

  Mutex mu_;                            // Add/Remove
  Mutex sync_mu_ ACQUIRED_BEFORE(mu_);  // Synchronize
  std::unique_ptr<Snapshot> live_ GUARDED_BY(mu_);  // what current_ points to
  std::atomic<Snapshot*> current_;
  std::atomic<size_t> size_{0};
  std::vector<std::unique_ptr<Snapshot>> retired_ GUARDED_BY(mu_);  // replaced, not yet freed
  std::atomic<uint32_t> epoch_{0};
  mutable Slot slots_[kSlots];
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

  // BeginEvents on each observer now, EndEvents when it goes: around a run
  // of events sent on this thread.
  class Events {
   public:
    explicit Events(TransmitSession& t) : t_(t) {
      for (auto& o : t_.observers_) o.observer->BeginEvents();
    }
    ~Events() {
      for (auto it = t_.observers_.rbegin(); it != t_.observers_.rend(); ++it) it->observer->EndEvents();
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;

   private:
    TransmitSession& t_;
  };

 private:
  friend class Registry;
  TransmitParam param_;
  std::vector<Delegate<BinlogTransmitObserver>::Entry> observers_;  // F_OBSERVE ones, owners held
  std::vector<void*> observer_data_;  // each F_OBSERVE observer's observer_data
  // Every observer asked at start, for transmit_stop. Those that declined
  // are held weakly: a plain reader must not keep an uninstalled plugin
  // loaded; transmit_stop reaches them only while their owner lives.
  struct Asked {
    BinlogTransmitObserver* observer;
    std::weak_ptr<void> owner;
    bool owned;  // false: a built-in observer (no owner), always called
    void* data;    // its observer_data (when not observed)
    int observed;  // index into observer_data_, or -1
  };
  std::vector<Asked> asked_;
  bool stopped_ = true;
};

// The binlog's commit hooks call the storage observers:
// Binlog::set_hooks(&registry). after_flush once per group, under the flush
// lock; after_sync for each transaction of a group, in order, by the group's
// leader once the group is synced, outside every binlog lock, so the next
// group flushes and syncs while this one waits in after_sync (semisync
// AFTER_SYNC).
class Registry final : public binlog::CommitHooks, public exec::TransactionHooks {
 public:
  Delegate<TransObserver>& trans() { return trans_; }
  Delegate<BinlogStorageObserver>& storage() { return storage_; }
  Delegate<BinlogTransmitObserver>& transmit() { return transmit_; }

  // transmit_start for one dump connection (see the file comment). An
  // observer failing transmit_start fails the dump with its error.
  Result<TransmitSession> TransmitStart(TransmitParam param, std::string_view log_file, uint64_t log_pos);

  // Hook points of the commit path; each is one atomic load when empty.
  Status BeforeCommit(const TransObserver::Param& p) override;
  Status AfterCommit(const TransObserver::Param& p) override;
  Status AfterRollback(const TransObserver::Param& p) override;
  // A failing after_flush is logged (the group is written; it commits).
  void AfterFlush(const std::string& log_file, uint64_t log_pos) override;
  // The transaction ending at log_pos is written and synced; before its
  // engine commit (the binlog group's leader calls it). A failure is
  // logged: the transaction commits anyway.
  void AfterSync(const std::string& log_file, uint64_t log_pos) override;
  bool WantsAfterSync() const override { return !storage_.empty(); }
  void AfterResetMaster();

  // Holding plain readers (plugins: services->set_reader_limit): sets or,
  // with an empty file, clears the binlog's reader limit. False when there
  // is no binlog or the file is not one of its files.
  void set_binlog(binlog::Binlog* b) { binlog_.store(b, std::memory_order_release); }
  bool SetReaderLimit(std::string_view file, uint64_t pos);

 private:
  // Runs one storage hook on every storage observer; a failure is logged
  // (the transaction is in the binlog and commits, as MySQL).
  void RunStorageHook(const char* name, Status (BinlogStorageObserver::*hook)(std::string_view, uint64_t),
                      const std::string& log_file, uint64_t log_pos);
  std::atomic<binlog::Binlog*> binlog_{nullptr};
  Delegate<TransObserver> trans_;
  Delegate<BinlogStorageObserver> storage_;
  Delegate<BinlogTransmitObserver> transmit_;
};

}  // namespace sluice::server::rpl
