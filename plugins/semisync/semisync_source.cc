// plugins/semisync/semisync_source.cc
//
// The semisync source plugin: semisync_source.so (rpl_semi_sync_source,
// MySQL 8.0.26+ names) and, built with SEMISYNC_OLD_NAMES, semisync_master.so
// (rpl_semi_sync_master). Either answers to both name sets of its variables
// and status variables: the other set is an alias (a MariaDB replica asks
// for rpl_semi_sync_master_enabled, go-mysql for either).
//
// How it works (../docs/semisync.md has the whole story):
//   transmit_start  a dump connection that set @rpl_semi_sync_replica or
//                   @rpl_semi_sync_slave is a semisync replica: observed,
//                   its socket goes to the ack receiver, and its start
//                   position counts as acknowledged. Any other connection
//                   is not observed: it never reaches this plugin again.
//   reserve_header  EF 00 after the OK byte of every packet of a replica.
//   after_flush     (the binlog's flush stage, once per group) remembers
//                   the group's end, which a replica will be asked to ack.
//   before_send_event  sets the flag byte to 01 on an event ending at such
//                   a position when it is the newest one or kAckEvery bytes
//                   past the last flagged (while OFF: at or past the newest
//                   one, to notice a replica catching up).
//   after_send_event   after a flagged event: flush, next sequence id 1.
//   after_sync / after_commit  (wait_point) a transaction's commit waits
//                   (after_sync: in its binlog group's leader, for each
//                   transaction in turn; after_commit: in its own session)
//                   for the end of that transaction to be acknowledged
//                   by wait_for_replica_count replicas, at most timeout ms
//                   (each on its own condition variable, woken by the ack
//                   that releases it);
//                   a timeout switches semisync OFF until a replica acks
//                   the newest position.
//   ack receiver    reads acks (EF, 8-byte position, file name) from
//                   every replica's socket; a malformed one closes that
//                   connection. While commits wait, one waiting commit
//                   reads them itself (the receiver, in its own epoll
//                   set), so the ack that releases it wakes it directly;
//                   the ack thread reads them once no commit has waited
//                   for kAckThreadPause. A TLS connection whose read
//                   answers busy (its dump thread's write holds it, ABI
//                   1.3) leaves the ack thread's epoll set and is retried
//                   after kBusyRetryFirst, doubling to kBusyRetryMax.
//
// Positions compare as (file number, offset): binlog files are
// <basename>.NNNNNN, all of one basename.
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sluice/plugin.h"

namespace {

#ifdef SEMISYNC_OLD_NAMES
#define SEMISYNC_NAMES(new_name, old_name) old_name, new_name
constexpr const char* kPluginName = "rpl_semi_sync_master";
constexpr const char* kUninstallRefusal = "Stop any active semisynchronous slaves of this master first.";
#else
#define SEMISYNC_NAMES(new_name, old_name) new_name, old_name
constexpr const char* kPluginName = "rpl_semi_sync_source";
constexpr const char* kUninstallRefusal = "Stop any active semisynchronous replicas of this source first.";
#endif

constexpr uint8_t kPacketMagic = 0xEF;
constexpr uint8_t kPacketFlagSync = 0x01;
constexpr size_t kMaxFileName = 512;  // FN_REFLEN
// A dump asks its reader for an ack at least this often (bytes of binlog)
// while later groups are already waiting to be sent.
constexpr uint64_t kAckEvery = 64 * 1024;
// The ack thread stays away from the replicas' sockets while commits wait
// for acks, and this long after the last one began waiting: under a steady
// load the waiting commits read the acks, and the ack thread neither wakes
// for each ack nor competes with them for it. Acks nobody waits for (a
// replica catching up while semisync is OFF) are read at most about twice
// this late.
constexpr auto kAckThreadPause = std::chrono::milliseconds(20);
// A connection whose read answered busy is read again after this, then
// twice as late each time it is still busy, up to kBusyRetryMax: a replica
// that stops reading costs the ack thread a bounded share of its time
// (the server waits up to 2 ms before answering busy).
constexpr auto kBusyRetryFirst = std::chrono::milliseconds(1);
constexpr auto kBusyRetryMax = std::chrono::milliseconds(64);
// dump_read_packet's answer for a read a write in progress held (ABI 1.3).
constexpr int kReadBusy = 2;

// ------------------------------------------------------------- variables

int32_t enabled_var = 0;
uint64_t timeout_var = 10000;  // ms
uint64_t wait_point_var = 0;   // 0 AFTER_SYNC, 1 AFTER_COMMIT
uint64_t wait_count_var = 1;
int32_t wait_no_replica_var = 1;
uint64_t trace_level_var = 32;
int32_t hold_plain_readers_var = 0;  // sluice_semi_sync_hold_plain_readers
uint64_t spin_wait_var = 0;          // sluice_semi_sync_spin_wait (µs)

const char* const kWaitPoints[] = {"AFTER_SYNC", "AFTER_COMMIT", nullptr};

const sluice_plugin_services* svc = nullptr;

void Log(sluice_log_level level, const char* format, ...) __attribute__((format(printf, 2, 3)));
void Log(sluice_log_level level, const char* format, ...) {
  if (svc == nullptr) return;
  char buf[1024];
  va_list ap;
  va_start(ap, format);
  vsnprintf(buf, sizeof(buf), format, ap);
  va_end(ap);
  svc->log(svc->handle, level, buf);
}

// The hint a spin-wait loop gives the CPU on each turn (x86 PAUSE, ARM
// YIELD): base/cpu_relax.h's, which a plugin may not include (it sees the
// plugin ABI, include/sluice/, alone: scripts/check_layers.py).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// ------------------------------------------------------------- positions

struct Pos {
  uint32_t file = 0;  // the file's number
  uint64_t offset = 0;
  std::string name;
  bool operator<(const Pos& o) const { return file != o.file ? file < o.file : offset < o.offset; }
  bool operator<=(const Pos& o) const { return !(o < *this); }
};

Pos MakePos(const char* file, size_t len, uint64_t offset) {
  Pos p;
  p.name.assign(file, len);
  p.offset = offset;
  const size_t dot = p.name.rfind('.');
  if (dot != std::string::npos) {
    uint64_t n = 0;
    for (size_t i = dot + 1; i < p.name.size() && p.name[i] >= '0' && p.name[i] <= '9'; ++i) {
      n = n * 10 + static_cast<uint64_t>(p.name[i] - '0');
    }
    p.file = static_cast<uint32_t>(n);
  }
  return p;
}

// ------------------------------------------------------------- state

// One semisync replica (a dump connection that asked for semisync).
struct Replica {
  sluice_dump_connection* conn = nullptr;
  int fd = -1;
  // Reading its acks may wait for the dump thread's write (TLS; ABI 1.2):
  // a committing session does not read them (CommitTrx).
  bool reads_wait = true;
  uint32_t server_id = 0;
  uint64_t id = 0;       // the ack receiver's key
  bool flagged = false;  // dump thread only: the last event sent asked for an ack
  Pos asked_at;          // dump thread only: the last event that asked for an ack, or the start
  bool acked = false;    // under Source::mu: last_ack is set
  Pos last_ack;
  // Under Source::ack_mu_: its last read answered busy; it is out of the
  // ack thread's epoll set until retry_at.
  bool busy = false;
  std::chrono::milliseconds retry_in{0};
  std::chrono::steady_clock::time_point retry_at;
};

struct Counters {
  std::atomic<uint64_t> clients{0};
  std::atomic<int32_t> status{0};
  std::atomic<uint64_t> yes_tx{0}, no_tx{0}, no_times{0}, timefunc_failures{0}, wait_pos_backtraverse{0};
  std::atomic<uint64_t> wait_sessions{0}, tx_wait_time{0}, tx_waits{0};
  std::atomic<uint64_t> zero{0};  // the net_* counters: no dump thread waits for acks
  void Reset() {
    yes_tx = 0;
    no_tx = 0;
    no_times = 0;
    timefunc_failures = 0;
    wait_pos_backtraverse = 0;
    tx_wait_time = 0;
    tx_waits = 0;
  }
};
Counters counters;

class Source {
 public:
  void Start();
  void Stop();

  // Hooks.
  void AddReplica(Replica* r, const Pos& start);
  void RemoveReplica(Replica* r);
  // Whether the event ending at p, about to go to r, asks r for an ack.
  bool NeedsAck(Replica& r, const Pos& p);
  void AfterFlush(const Pos& p);
  void CommitTrx(const Pos& p);
  // Variables.
  void SetEnabled(bool on);
  void SetWaitNoReplica(bool on);
  void SetWaitCount();
  void SetHold() {
    std::lock_guard l(mu_);
    UpdateHold();
  }
  void ResetMaster();
  uint64_t clients() {
    std::lock_guard l(mu_);
    return replicas_.size();
  }

 private:
  void AckLoop();
  // The acks of the sockets epoll_wait found ready (`n` events); the wake
  // event (data 0) is drained from `wake_fd`.
  void ReadReady(const epoll_event* events, int n, int wake_fd);
  void ReadAcks(uint64_t id);
  // A read of r answered busy: out of the ack thread's epoll set until
  // its retry (REQUIRES ack_mu_).
  void SetBusy(Replica* r);
  // The ack thread's epoll_wait timeout (ms): its usual second, or until
  // the first busy connection's retry.
  int AckWaitMs();
  // Reads the busy connections whose retry is due.
  void RetryBusy();
  // The receiver's turn: one wait on rx_epfd_ (until `deadline`), and the
  // acks it finds. Until `spin_until` it polls without sleeping. False
  // once the deadline has passed.
  bool ReceiveAcks(std::chrono::steady_clock::time_point deadline, std::chrono::steady_clock::time_point spin_until);
  // A waiting commit that is not the receiver, before it sleeps on its
  // condition variable: watches wake_gen_ until it moves past `gen` or
  // `spin_until` comes, holding no lock.
  void SpinForWake(uint64_t gen, std::chrono::steady_clock::time_point spin_until) const;
  // Adds or removes a replica's socket in the ack thread's epoll set and,
  // unless its reads may wait, the receiver's.
  void WatchSocket(int op, const Replica& r);
  void HandleAck(Replica* r, const Pos& p);     // REQUIRES mu_
  void ReportCounted(uint32_t server_id);       // REQUIRES mu_
  void ReportReply(const Pos& p, uint32_t server_id);  // REQUIRES mu_
  void SwitchOff();                              // REQUIRES mu_
  // Fewer semisync replicas connected than wait_for_replica_count.
  bool TooFewReplicas() const {                  // REQUIRES mu_
    return replicas_.size() < SLUICE_PLUGIN_LOAD(&wait_count_var);
  }
  // wait_no_replica=OFF: switches OFF while there are too few.
  void FallBackIfTooFew();                       // REQUIRES mu_
  void SetOn(bool on) {                          // REQUIRES mu_
    on_ = on;
    counters.status.store(on ? 1 : 0, std::memory_order_relaxed);
    UpdateHold();
  }
  // sluice_semi_sync_hold_plain_readers: while it is ON and semisync is
  // ON, plain readers get nothing beyond the acknowledged position.
  void UpdateHold();                             // REQUIRES mu_
  bool Enabled() const { return SLUICE_PLUGIN_LOAD(&enabled_var) != 0; }

  // Wakes the commits waiting at or before the acknowledged position (all
  // of them when `all`): each waits on its own condition variable, so an
  // ack wakes only those it releases, not every waiting commit.
  void WakeWaiters(bool all);                    // REQUIRES mu_
  // Commits waiting, none reading acks (the receiver was released, or the
  // last replica whose reads may wait left): the first of them takes over.
  void HandOffReceiving();                       // REQUIRES mu_
  bool Acked(const Pos& p) const {               // REQUIRES mu_
    return have_reply_ && p <= reply_;
  }
  // A waiting commit reads acks (CommitTrx); it waits in epoll_wait, not on
  // its condition variable.
  bool receiving_ = false;                       // GUARDED_BY(mu_)
  // Replicas whose acks a read may wait for (TLS): while there is one, the
  // ack thread reads every ack and commits wait on their condition
  // variables (a commit held behind a stalled write would outlive its
  // timeout).
  size_t waiting_readers_ = 0;                   // GUARDED_BY(mu_)
  std::chrono::steady_clock::time_point last_wait_;  // GUARDED_BY(mu_)
  std::condition_variable ack_thread_cv_;        // the ack thread's pause
  bool ack_thread_polling_ = false;              // GUARDED_BY(mu_)

  std::mutex mu_;
  std::multimap<Pos, std::condition_variable*> waiters_;  // commits waiting, by position
  // Moves (under mu_) whenever a waiter's condition variable would be
  // notified (WakeWaiters, HandOffReceiving): what a spinning waiter
  // (sluice_semi_sync_spin_wait) watches instead.
  std::atomic<uint64_t> wake_gen_{0};
  bool on_ = false;
  bool have_reply_ = false;
  Pos reply_;  // the acknowledged position
  bool have_commit_ = false;
  Pos commit_;  // the newest group end
  std::set<Pos> pending_;  // group ends flushed while ON, not acknowledged yet
  bool have_waited_ = false;
  Pos max_waited_;
  std::set<Replica*> replicas_;
  bool holding_ = false;  // a reader limit is set

  // Ack receiver. ack_mu_ is held while a connection is read, so
  // RemoveReplica (which takes it) never frees one being read.
  std::mutex ack_mu_;
  std::map<uint64_t, Replica*> by_id_;  // GUARDED_BY(ack_mu_)
  std::vector<uint64_t> busy_;          // GUARDED_BY(ack_mu_): ids to retry
  uint64_t next_id_ = 1;
  int epfd_ = -1;     // the ack thread's: replicas' sockets, wake_fd_
  int wake_fd_ = -1;
  int rx_epfd_ = -1;  // the receiving commit's: replicas' sockets, rx_wake_fd_
  int rx_wake_fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

Source source;

void Source::UpdateHold() {
  const Pos* at = nullptr;
  if (SLUICE_PLUGIN_LOAD(&hold_plain_readers_var) != 0 && Enabled() && on_) {
    // Nothing acknowledged yet: what was written before is not protected
    // anyway; hold everything after it.
    at = have_reply_ ? &reply_ : have_commit_ ? &commit_ : nullptr;
  }
  if (svc == nullptr || svc->set_reader_limit == nullptr) return;
  if (at != nullptr) {
    holding_ = svc->set_reader_limit(svc->handle, at->name.data(), at->name.size(), at->offset) == 0;
  } else if (holding_) {
    svc->set_reader_limit(svc->handle, nullptr, 0, 0);
    holding_ = false;
  }
}

void Source::Start() {
  {
    std::lock_guard l(mu_);
    have_reply_ = have_commit_ = have_waited_ = false;
    pending_.clear();
    SetOn(Enabled() && (SLUICE_PLUGIN_LOAD(&wait_no_replica_var) != 0));
  }
  counters.Reset();
  counters.clients = 0;
  stop_ = false;
  epfd_ = epoll_create1(EPOLL_CLOEXEC);
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = 0;
  epoll_ctl(epfd_, EPOLL_CTL_ADD, wake_fd_, &ev);
  rx_epfd_ = epoll_create1(EPOLL_CLOEXEC);
  rx_wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  epoll_ctl(rx_epfd_, EPOLL_CTL_ADD, rx_wake_fd_, &ev);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "sl_semi_ack");
    AckLoop();
  });
}

void Source::Stop() {
  // deinit: no hook call is in flight (the server retired them), so no
  // commit is receiving.
  {
    std::lock_guard l(mu_);
    stop_ = true;
    ack_thread_cv_.notify_all();
  }
  uint64_t one = 1;
  (void)!write(wake_fd_, &one, sizeof(one));
  if (thread_.joinable()) thread_.join();
  for (int* fd : {&epfd_, &wake_fd_, &rx_epfd_, &rx_wake_fd_}) {
    close(*fd);
    *fd = -1;
  }
  std::lock_guard a(ack_mu_);
  std::lock_guard l(mu_);
  SetOn(false);
  WakeWaiters(/*all=*/true);
  // Connections still streaming get no more hook calls (the server ends
  // them): their transmit_stop will not come.
  for (Replica* r : replicas_) delete r;
  replicas_.clear();
  waiting_readers_ = 0;
  by_id_.clear();
  busy_.clear();
  counters.clients = 0;
}

// Set while this thread is the receiving commit (CommitTrx).
thread_local bool tl_receiving = false;

// Adds or removes r's socket in one epoll set.
void Watch(int epfd, int op, const Replica& r) {
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.u64 = r.id;
  epoll_ctl(epfd, op, r.fd, &ev);
}

void Source::AckLoop() {
  epoll_event events[32];
  while (!stop_.load()) {
    {
      std::unique_lock l(mu_);
      ack_thread_polling_ = false;
      if (stop_.load()) break;
      if (waiting_readers_ == 0 &&
          (!waiters_.empty() || std::chrono::steady_clock::now() - last_wait_ < kAckThreadPause)) {
        ack_thread_cv_.wait_for(l, kAckThreadPause);
        continue;
      }
      ack_thread_polling_ = true;
    }
    ReadReady(events, epoll_wait(epfd_, events, 32, AckWaitMs()), wake_fd_);
    RetryBusy();
  }
}

int Source::AckWaitMs() {
  std::lock_guard a(ack_mu_);
  if (busy_.empty()) return 1000;
  auto first = std::chrono::steady_clock::time_point::max();
  for (uint64_t id : busy_) {
    auto it = by_id_.find(id);
    if (it != by_id_.end()) first = std::min(first, it->second->retry_at);
  }
  if (first == std::chrono::steady_clock::time_point::max()) return 0;  // only stale ids: drop them
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(first - std::chrono::steady_clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, 1000));
}

void Source::RetryBusy() {
  std::vector<uint64_t> due;
  {
    std::lock_guard a(ack_mu_);
    if (busy_.empty()) return;
    const auto now = std::chrono::steady_clock::now();
    std::erase_if(busy_, [&](uint64_t id) {
      auto it = by_id_.find(id);
      if (it == by_id_.end()) return true;  // removed meanwhile
      if (it->second->retry_at > now) return false;
      due.push_back(id);
      return true;
    });
  }
  for (uint64_t id : due) ReadAcks(id);
}

void Source::SetBusy(Replica* r) {
  if (!r->busy) {
    r->busy = true;
    r->retry_in = kBusyRetryFirst;
    epoll_ctl(epfd_, EPOLL_CTL_DEL, r->fd, nullptr);  // readable all along: no spinning on it
  } else {
    r->retry_in = std::min<std::chrono::milliseconds>(r->retry_in * 2, kBusyRetryMax);
  }
  r->retry_at = std::chrono::steady_clock::now() + r->retry_in;
  busy_.push_back(r->id);
}

void Source::ReadReady(const epoll_event* events, int n, int wake_fd) {
  for (int i = 0; i < n; ++i) {
    if (events[i].data.u64 == 0) {
      uint64_t v;
      (void)!read(wake_fd, &v, sizeof(v));
      continue;
    }
    ReadAcks(events[i].data.u64);
  }
}

void Source::ReadAcks(uint64_t id) {
  std::lock_guard a(ack_mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return;  // removed after epoll_wait returned
  Replica* r = it->second;
  uint8_t buf[1 + 8 + kMaxFileName + 16];
  for (;;) {
    size_t len = 0;
    const int rc = svc->dump_read_packet(svc->handle, r->conn, buf, sizeof(buf), &len);
    if (rc == kReadBusy) {
      SetBusy(r);
      return;
    }
    if (rc == 0) {
      if (r->busy) {  // read through: back in the ack thread's epoll set
        r->busy = false;
        Watch(epfd_, EPOLL_CTL_ADD, *r);
      }
      return;
    }
    const char* bad = nullptr;
    if (rc < 0) {
      bad = "";  // closed (or a packet too long to be an ack)
    } else if (len < 1 || buf[0] != kPacketMagic) {
      bad = "bad magic number";
    } else if (len < 9) {
      bad = "packet too small";
    } else if (len - 9 >= kMaxFileName) {
      bad = "file name too long";
    }
    if (bad != nullptr) {
      // Stop reading it; a malformed ack also ends the connection (the
      // dump thread's transmit_stop then removes the replica).
      WatchSocket(EPOLL_CTL_DEL, *r);
      by_id_.erase(it);
      if (*bad != '\0') {
        Log(SLUICE_LOG_ERROR, "Read semi-sync reply from replica (server_id: %u) failed: %s; closing its connection",
            r->server_id, bad);
        svc->dump_close(svc->handle, r->conn);
      }
      return;
    }
    uint64_t pos = 0;
    for (int b = 0; b < 8; ++b) pos |= static_cast<uint64_t>(buf[1 + b]) << (8 * b);
    const Pos p = MakePos(reinterpret_cast<const char*>(buf) + 9, len - 9, pos);
    if (SLUICE_PLUGIN_LOAD(&trace_level_var) & 16) {
      Log(SLUICE_LOG_INFO, "Got reply at (%s, %llu) from replica (server_id: %u)", p.name.c_str(),
          static_cast<unsigned long long>(pos), r->server_id);
    }
    std::lock_guard l(mu_);
    HandleAck(r, p);
  }
}

void Source::AddReplica(Replica* r, const Pos& start) {
  if (r->fd >= 0) {
    std::lock_guard a(ack_mu_);
    r->id = next_id_++;
    by_id_[r->id] = r;
    WatchSocket(EPOLL_CTL_ADD, *r);
  }
  std::lock_guard l(mu_);
  replicas_.insert(r);
  if (r->reads_wait && waiting_readers_++ == 0) ack_thread_cv_.notify_all();  // it reads every ack now
  counters.clients.store(replicas_.size(), std::memory_order_relaxed);
  // Where it starts is what it has.
  HandleAck(r, start);
  if (Enabled() && !on_ && SLUICE_PLUGIN_LOAD(&wait_no_replica_var) == 0 && !TooFewReplicas() && !have_commit_) {
    SetOn(true);
  }
}

void Source::WatchSocket(int op, const Replica& r) {
  Watch(epfd_, op, r);
  // A committing session never reads where a read may wait.
  if (!r.reads_wait) Watch(rx_epfd_, op, r);
}

bool Source::ReceiveAcks(std::chrono::steady_clock::time_point deadline,
                         std::chrono::steady_clock::time_point spin_until) {
  epoll_event events[32];
  int n = 0;
  // Polled first while the spin lasts: where CPUs are idle, the sleep and
  // the wake-up on the ack's arrival cost tens of µs of its round trip.
  for (auto now = std::chrono::steady_clock::now(); now < spin_until && now < deadline;
       now = std::chrono::steady_clock::now()) {
    n = epoll_wait(rx_epfd_, events, 32, 0);
    if (n != 0) break;
    CpuRelax();
  }
  if (n == 0) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return false;
    // Rounded up: a wait that ends early would only come back here.
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    n = epoll_wait(rx_epfd_, events, 32, static_cast<int>(std::min<int64_t>(ms, 1 << 30)));
  }
  tl_receiving = true;
  ReadReady(events, n, rx_wake_fd_);
  tl_receiving = false;
  return n != 0 || std::chrono::steady_clock::now() < deadline;
}

void Source::SpinForWake(uint64_t gen, std::chrono::steady_clock::time_point spin_until) const {
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (wake_gen_.load(std::memory_order_acquire) != gen) return;
      CpuRelax();
    }
    if (std::chrono::steady_clock::now() >= spin_until) return;
  }
}

void Source::RemoveReplica(Replica* r) {
  {
    std::lock_guard a(ack_mu_);
    if (by_id_.erase(r->id) > 0) WatchSocket(EPOLL_CTL_DEL, *r);
  }
  std::lock_guard l(mu_);
  if (replicas_.erase(r) > 0 && r->reads_wait) --waiting_readers_;
  counters.clients.store(replicas_.size(), std::memory_order_relaxed);
  HandOffReceiving();
  FallBackIfTooFew();
}

void Source::FallBackIfTooFew() {
  if (Enabled() && on_ && SLUICE_PLUGIN_LOAD(&wait_no_replica_var) == 0 && TooFewReplicas()) SwitchOff();
}

void Source::HandleAck(Replica* r, const Pos& p) {
  const uint64_t need = std::max<uint64_t>(1, SLUICE_PLUGIN_LOAD(&wait_count_var));
  if (!r->acked || r->last_ack < p) {
    r->last_ack = p;
    r->acked = true;
  }
  if (need == 1) {
    ReportReply(p, r->server_id);
    return;
  }
  ReportCounted(r->server_id);
}

void Source::ReportCounted(uint32_t server_id) {
  const uint64_t need = std::max<uint64_t>(1, SLUICE_PLUGIN_LOAD(&wait_count_var));
  // Acknowledged by `need` replicas: the smallest of the `need` most
  // advanced acks (mysql-server PR #509).
  std::vector<const Pos*> acks;
  for (Replica* x : replicas_) {
    if (x->acked) acks.push_back(&x->last_ack);
  }
  if (acks.size() < need) return;
  std::nth_element(acks.begin(), acks.begin() + static_cast<long>(need - 1), acks.end(),
                   [](const Pos* a, const Pos* b) { return *b < *a; });
  ReportReply(*acks[need - 1], server_id);
}

void Source::ReportReply(const Pos& p, uint32_t server_id) {
  if (!have_reply_ || reply_ < p) {
    reply_ = p;
    have_reply_ = true;
    pending_.erase(pending_.begin(), pending_.upper_bound(p));
    WakeWaiters(/*all=*/false);
    if (holding_ || SLUICE_PLUGIN_LOAD(&hold_plain_readers_var) != 0) UpdateHold();
  }
  if (Enabled() && !on_ && (!have_commit_ || commit_ <= reply_)) {
    SetOn(true);
    // MySQL logs both switches as Notes, which its default verbosity
    // hides; here an operator sees when the guarantee goes and comes back.
    Log(SLUICE_LOG_SYSTEM, "Semi-sync replication switched ON with replica (server_id: %u) at (%s, %llu)", server_id,
        reply_.name.c_str(), static_cast<unsigned long long>(reply_.offset));
  }
}

void Source::SwitchOff() {
  if (!on_) return;
  SetOn(false);
  counters.no_times.fetch_add(1, std::memory_order_relaxed);
  pending_.clear();
  WakeWaiters(/*all=*/true);
  Log(SLUICE_LOG_WARNING, "Semi-sync replication switched OFF.");
}

bool Source::NeedsAck(Replica& r, const Pos& p) {
  if (!Enabled()) return false;
  bool ask;
  {
    std::lock_guard l(mu_);
    if (on_) {
      // A group end someone may wait for. An ack answers for every
      // earlier position too, so while a later group is already flushed
      // (its events follow at once) the ack is asked there instead: a
      // reader catching up acks once per batch, not once per group. At
      // least every kAckEvery bytes, so that a reader that stays behind
      // still releases the commits it has passed.
      const auto it = pending_.find(p);
      ask = it != pending_.end() &&
            (std::next(it) == pending_.end() || r.asked_at.file != p.file ||
             p.offset - r.asked_at.offset >= kAckEvery);
    } else {
      // OFF: ask for the newest position, to learn when a replica caught up.
      ask = have_commit_ && commit_ <= p;
    }
  }
  if (ask) r.asked_at = p;
  return ask;
}

void Source::AfterFlush(const Pos& p) {
  std::lock_guard l(mu_);
  if (!have_commit_ || commit_ < p) {
    commit_ = p;
    have_commit_ = true;
  }
  if (Enabled() && on_ && (!have_reply_ || reply_ < p)) pending_.insert(p);
}

void Source::CommitTrx(const Pos& p) {
  if (!Enabled()) return;
  std::unique_lock l(mu_);
  if (!on_) {
    counters.no_tx.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (Acked(p)) {
    counters.yes_tx.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // A transaction flushed before semisync turned ON is in no group end
  // a replica is asked to acknowledge: nothing will answer for it.
  if (pending_.empty() || *pending_.rbegin() < p) {
    counters.no_tx.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (have_waited_ && p < max_waited_) {
    counters.wait_pos_backtraverse.fetch_add(1, std::memory_order_relaxed);
  } else {
    max_waited_ = p;
    have_waited_ = true;
  }
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + std::chrono::milliseconds(SLUICE_PLUGIN_LOAD(&timeout_var));
  // sluice_semi_sync_spin_wait: how long this wait polls before it sleeps.
  const auto spin_until = start + std::chrono::microseconds(SLUICE_PLUGIN_LOAD(&spin_wait_var));
  counters.wait_sessions.fetch_add(1, std::memory_order_relaxed);
  std::condition_variable cv;
  const auto me = waiters_.emplace(p, &cv);
  last_wait_ = start;
  bool acked = false;
  for (;;) {
    if (Acked(p)) {
      acked = true;
      break;
    }
    if (!on_) break;
    bool timed_out;
    if (!receiving_ && waiting_readers_ == 0) {
      // No one reads acks for the waiting commits: this one does. The ack
      // thread, if it is polling, pauses (else an ack would wake both).
      receiving_ = true;
      if (ack_thread_polling_) {
        ack_thread_polling_ = false;
        uint64_t one = 1;
        (void)!write(wake_fd_, &one, sizeof(one));
      }
      l.unlock();
      timed_out = !ReceiveAcks(deadline, spin_until);
      l.lock();
      receiving_ = false;
    } else if (std::chrono::steady_clock::now() < spin_until) {
      // Whatever releases this commit runs WakeWaiters: watched without
      // the lock, then everything above is checked again.
      const uint64_t gen = wake_gen_.load(std::memory_order_acquire);
      l.unlock();
      SpinForWake(gen, std::min(spin_until, deadline));
      l.lock();
      timed_out = false;
    } else {
      timed_out = cv.wait_until(l, deadline) == std::cv_status::timeout;
    }
    if (timed_out && !Acked(p)) {
      if (on_) {
        Log(SLUICE_LOG_WARNING,
            "Timeout waiting for reply of binlog (file: %s, pos: %llu), semi-sync up to file %s, position %llu.",
            p.name.c_str(), static_cast<unsigned long long>(p.offset), have_reply_ ? reply_.name.c_str() : "",
            static_cast<unsigned long long>(have_reply_ ? reply_.offset : 0));
        SwitchOff();
      }
      break;
    }
  }
  waiters_.erase(me);
  HandOffReceiving();
  counters.wait_sessions.fetch_sub(1, std::memory_order_relaxed);
  const auto waited =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  if (acked) {
    counters.yes_tx.fetch_add(1, std::memory_order_relaxed);
    counters.tx_waits.fetch_add(1, std::memory_order_relaxed);
    counters.tx_wait_time.fetch_add(static_cast<uint64_t>(waited), std::memory_order_relaxed);
  } else {
    counters.no_tx.fetch_add(1, std::memory_order_relaxed);
  }
}

void Source::SetEnabled(bool enable) {
  std::lock_guard l(mu_);
  if (enable) {
    if (!on_) {
      SetOn(SLUICE_PLUGIN_LOAD(&wait_no_replica_var) != 0 || !TooFewReplicas());
      // Nothing flushed before now is waited for; the next ack at or past
      // the newest position is what counts.
    }
    Log(SLUICE_LOG_INFO, "Semi-sync replication enabled on the source.");
  } else {
    if (on_) {
      SetOn(false);
      pending_.clear();
      WakeWaiters(/*all=*/true);
    }
    Log(SLUICE_LOG_INFO, "Semi-sync replication disabled on the source.");
  }
}

void Source::SetWaitNoReplica(bool on) {
  std::lock_guard l(mu_);
  if (!Enabled()) return;
  if (on) {
    if (!on_) SetOn(true);
  } else if (TooFewReplicas()) {
    SwitchOff();
  }
}

void Source::SetWaitCount() {
  std::lock_guard l(mu_);
  // Fewer acks needed now: what the replicas already acknowledged may
  // release waiters at once.
  if (!replicas_.empty()) ReportCounted((*replicas_.begin())->server_id);
  FallBackIfTooFew();
}

void Source::ResetMaster() {
  std::lock_guard l(mu_);
  have_reply_ = have_commit_ = have_waited_ = false;
  pending_.clear();
  for (Replica* r : replicas_) r->acked = false;
  counters.Reset();
  WakeWaiters(/*all=*/true);
}

void Source::HandOffReceiving() {
  if (!receiving_ && waiting_readers_ == 0 && !waiters_.empty()) {
    wake_gen_.fetch_add(1, std::memory_order_release);  // it may be spinning
    waiters_.begin()->second->notify_one();
  }
}

void Source::WakeWaiters(bool all) {
  wake_gen_.fetch_add(1, std::memory_order_release);
  for (const auto& [pos, cv] : waiters_) {
    if (!all && !Acked(pos)) break;
    cv->notify_one();
  }
  // The receiving commit waits in epoll_wait: an ack another thread read
  // (the ack thread, before it paused) or a switch OFF reaches it there.
  if (receiving_ && !tl_receiving) {
    uint64_t one = 1;
    (void)!write(rx_wake_fd_, &one, sizeof(one));
  }
}

// ------------------------------------------------------------- hooks

int TransmitStart(void*, sluice_transmit_param* param, const char* file, size_t file_len, uint64_t pos) {
  char buf[32];
  bool semisync = false;
  for (const char* name : {"rpl_semi_sync_replica", "rpl_semi_sync_slave"}) {
    const int64_t n = param->user_var(param, name, buf, sizeof(buf));
    if (n > 0) {
      semisync = std::strtoll(buf, nullptr, 10) != 0;
      break;
    }
  }
  if (!semisync) {
    param->flags |= SLUICE_TRANSMIT_DONT_OBSERVE;
    return 0;
  }
  auto* r = new Replica;
  r->conn = param->connection;
  r->fd = param->socket_fd;
  // Before ABI 1.2 the server does not say: assume reads may wait.
  r->reads_wait = SLUICE_PLUGIN_ABI_MINOR_OF(svc->abi_version) < 2 || param->reads_wait_for_writes != 0;
  r->server_id = param->server_id;
  param->observer_data = r;
  param->flags |= SLUICE_TRANSMIT_OBSERVE;
  const Pos start = MakePos(file, file_len, pos);
  r->asked_at = start;
  source.AddReplica(r, start);
  Log(SLUICE_LOG_INFO, "Start semi-sync binlog_dump to replica (server_id: %u), pos(%s, %llu)", r->server_id,
      start.name.c_str(), static_cast<unsigned long long>(pos));
  if (r->fd < 0) {
    Log(SLUICE_LOG_WARNING,
        "Semi-sync replica (server_id: %u) has no connection this source can read acks from: it will not count "
        "as acknowledging",
        r->server_id);
  }
  return 0;
}

int TransmitStop(void*, sluice_transmit_param* param) {
  auto* r = static_cast<Replica*>(param->observer_data);
  if (r == nullptr) return 0;
  source.RemoveReplica(r);
  Log(SLUICE_LOG_INFO, "Stop semi-sync binlog_dump to replica (server_id: %u).", r->server_id);
  delete r;
  param->observer_data = nullptr;
  return 0;
}

int ReserveHeader(void*, sluice_transmit_param*, uint8_t* header, size_t capacity, size_t* len) {
  if (capacity < 2) return 1;
  header[0] = kPacketMagic;
  header[1] = 0;
  *len = 2;
  return 0;
}

// Whether an event of this type never ends a transaction (so never a
// group's end, where an ack is asked): most of a transaction's events pass
// BeforeSendEvent without the source's mutex (four semisync dump threads:
// it and MakePos were an eighth of their CPU). Types from MySQL's
// Log_event_type.
bool NeverEndsTransaction(uint8_t type) {
  switch (type) {
    case 5:   // Intvar
    case 13:  // Rand
    case 14:  // User_var
    case 19:  // Table_map
    case 23:  // Write_rows v1
    case 24:  // Update_rows v1
    case 25:  // Delete_rows v1
    case 29:  // Rows_query
    case 30:  // Write_rows
    case 31:  // Update_rows
    case 32:  // Delete_rows
    case 33:  // Gtid
    case 34:  // Anonymous_gtid
    case 39:  // Partial_update_rows
    // What a MariaDB replica gets in their place (server/rpl/mariadb_json.h):
    // an Ignorable event for a Gtid, MariaDB's compressed rows events.
    case 28:   // Ignorable
    case 166:  // Write_rows_compressed v1
    case 167:  // Update_rows_compressed v1
    case 168:  // Delete_rows_compressed v1
    case 169:  // Write_rows_compressed
    case 170:  // Update_rows_compressed
    case 171:  // Delete_rows_compressed
      return true;
    default:
      return false;
  }
}

int BeforeSendEvent(void*, sluice_transmit_param* param, uint8_t* packet, size_t packet_len, const char* file,
                    size_t file_len, uint64_t pos) {
  auto* r = static_cast<Replica*>(param->observer_data);
  if (r == nullptr) return 0;
  r->flagged = false;
  if (pos == 0 || packet_len < 3 || packet[1] != kPacketMagic || r->fd < 0) return 0;
  // The event follows the OK byte and this plugin's two header bytes; its
  // type is the byte after the 4-byte timestamp.
  constexpr size_t kTypeAt = 3 + 4;
  if (packet_len > kTypeAt && NeverEndsTransaction(packet[kTypeAt])) return 0;
  if (source.NeedsAck(*r, MakePos(file, file_len, pos))) {
    packet[2] = kPacketFlagSync;
    r->flagged = true;
  }
  return 0;
}

int AfterSendEvent(void*, sluice_transmit_param* param, const uint8_t*, size_t, const char*, size_t, uint64_t) {
  auto* r = static_cast<Replica*>(param->observer_data);
  if (r == nullptr || !r->flagged) return 0;
  r->flagged = false;
  // The reader acks now, with sequence id 0: the next event is number 1.
  return svc->dump_flush(svc->handle, r->conn, 1) == 0 ? 0 : 1;
}

int AfterResetMaster(void*) {
  source.ResetMaster();
  return 0;
}

int AfterFlush(void*, const char* file, size_t len, uint64_t pos) {
  source.AfterFlush(MakePos(file, len, pos));
  return 0;
}

int AfterSync(void*, const char* file, size_t len, uint64_t pos) {
  if (SLUICE_PLUGIN_LOAD(&wait_point_var) == 0) source.CommitTrx(MakePos(file, len, pos));
  return 0;
}

int AfterCommit(void*, const sluice_trans_param* param) {
  if (SLUICE_PLUGIN_LOAD(&wait_point_var) == 1 && param->log_file_len > 0) {
    source.CommitTrx(MakePos(param->log_file, param->log_file_len, param->log_pos));
  }
  return 0;
}

const sluice_binlog_transmit_observer kTransmitObserver = {
    sizeof(sluice_binlog_transmit_observer), nullptr, TransmitStart, TransmitStop, ReserveHeader,
    BeforeSendEvent, AfterSendEvent, AfterResetMaster};
const sluice_binlog_storage_observer kStorageObserver = {sizeof(sluice_binlog_storage_observer), nullptr, AfterFlush,
                                                          AfterSync};
const sluice_trans_observer kTransObserver = {sizeof(sluice_trans_observer), nullptr, nullptr, AfterCommit, nullptr};

// ------------------------------------------------------------- declarations

void EnabledUpdate(void*, const sluice_var_value* v) { source.SetEnabled(v->i != 0); }
void WaitNoReplicaUpdate(void*, const sluice_var_value* v) { source.SetWaitNoReplica(v->i != 0); }
void WaitCountUpdate(void*, const sluice_var_value*) { source.SetWaitCount(); }
void HoldUpdate(void*, const sluice_var_value*) { source.SetHold(); }

void AvgWaitTime(void*, sluice_status_value* v) {
  const uint64_t waits = counters.tx_waits.load(std::memory_order_relaxed);
  v->u = waits == 0 ? 0 : counters.tx_wait_time.load(std::memory_order_relaxed) / waits;
}

const sluice_sysvar kSysvars[] = {
    {SEMISYNC_NAMES("rpl_semi_sync_source_enabled", "rpl_semi_sync_master_enabled"), SLUICE_VAR_BOOL, 0,
     "Enable semi-synchronous replication on the source.", 0, 0, 1, 0, 0, 0, nullptr, nullptr, &enabled_var, 0,
     nullptr, EnabledUpdate, nullptr},
    {SEMISYNC_NAMES("rpl_semi_sync_source_timeout", "rpl_semi_sync_master_timeout"), SLUICE_VAR_UINT, 0,
     "The timeout value (in ms) for semi-synchronous replication on the source.", 0, 0, 0, 10000, 0, 4294967295ull,
     nullptr, nullptr, &timeout_var, 0, nullptr, nullptr, nullptr},
    {SEMISYNC_NAMES("rpl_semi_sync_source_wait_point", "rpl_semi_sync_master_wait_point"), SLUICE_VAR_ENUM, 0,
     "Where the committing session waits for the replica's ack: AFTER_SYNC (before the engine commit, lossless) "
     "or AFTER_COMMIT.",
     0, 0, 0, 0, 0, 1, kWaitPoints, nullptr, &wait_point_var, 0, nullptr, nullptr, nullptr},
    {SEMISYNC_NAMES("rpl_semi_sync_source_wait_for_replica_count", "rpl_semi_sync_master_wait_for_slave_count"),
     SLUICE_VAR_UINT, 0, "How many replicas must acknowledge a transaction before it returns.", 0, 0, 0, 1, 1, 65535,
     nullptr, nullptr, &wait_count_var, 0, nullptr, WaitCountUpdate, nullptr},
    {SEMISYNC_NAMES("rpl_semi_sync_source_wait_no_replica", "rpl_semi_sync_master_wait_no_slave"), SLUICE_VAR_BOOL,
     0, "Stay ON (and wait up to the timeout) while fewer replicas than wait_for_replica_count are connected.", 1, 0,
     1, 0, 0, 0, nullptr, nullptr, &wait_no_replica_var, 0, nullptr, WaitNoReplicaUpdate, nullptr},
    {SEMISYNC_NAMES("rpl_semi_sync_source_trace_level", "rpl_semi_sync_master_trace_level"), SLUICE_VAR_UINT, 0,
     "The tracing level: 1 general, 16 detail (each ack), 32 network wait, 64 function.", 0, 0, 0, 32, 0,
     4294967295ull, nullptr, nullptr, &trace_level_var, 0, nullptr, nullptr, nullptr},
    {"sluice_semi_sync_hold_plain_readers", nullptr, SLUICE_VAR_BOOL, 0,
     "While semisync is ON, send dump readers that are not semisync replicas (CDC readers, plain replicas) nothing "
     "beyond the position the semisync replicas acknowledged, so none of them holds a transaction a failover to a "
     "semisync replica could lose. Released while semisync is OFF.",
     0, 0, 1, 0, 0, 0, nullptr, nullptr, &hold_plain_readers_var, 0, nullptr, HoldUpdate, nullptr},
    {"sluice_semi_sync_spin_wait", nullptr, SLUICE_VAR_UINT, 0,
     "Microseconds a commit waiting for its ack polls for it before it sleeps (0, the default: it sleeps at "
     "once). For a source with idle CPUs, where a sleep and its wake-up cost a share of each ack's round trip; "
     "each waiting commit keeps a CPU busy meanwhile.",
     0, 0, 0, 0, 0, 10000, nullptr, nullptr, &spin_wait_var, 0, nullptr, nullptr, nullptr},
    {}};

#define SEMISYNC_STATUS(suffix) \
  SEMISYNC_NAMES("Rpl_semi_sync_source_" suffix, "Rpl_semi_sync_master_" suffix)

const sluice_statusvar kStatusvars[] = {
    {SEMISYNC_STATUS("clients"), SLUICE_STATUS_UINT, &counters.clients, nullptr},
    {SEMISYNC_STATUS("net_avg_wait_time"), SLUICE_STATUS_UINT, &counters.zero, nullptr},
    {SEMISYNC_STATUS("net_wait_time"), SLUICE_STATUS_UINT, &counters.zero, nullptr},
    {SEMISYNC_STATUS("net_waits"), SLUICE_STATUS_UINT, &counters.zero, nullptr},
    {SEMISYNC_STATUS("no_times"), SLUICE_STATUS_UINT, &counters.no_times, nullptr},
    {SEMISYNC_STATUS("no_tx"), SLUICE_STATUS_UINT, &counters.no_tx, nullptr},
    {SEMISYNC_STATUS("status"), SLUICE_STATUS_BOOL, &counters.status, nullptr},
    {SEMISYNC_STATUS("timefunc_failures"), SLUICE_STATUS_UINT, &counters.timefunc_failures, nullptr},
    {SEMISYNC_STATUS("tx_avg_wait_time"), SLUICE_STATUS_UINT, nullptr, AvgWaitTime},
    {SEMISYNC_STATUS("tx_wait_time"), SLUICE_STATUS_UINT, &counters.tx_wait_time, nullptr},
    {SEMISYNC_STATUS("tx_waits"), SLUICE_STATUS_UINT, &counters.tx_waits, nullptr},
    {SEMISYNC_STATUS("wait_pos_backtraverse"), SLUICE_STATUS_UINT, &counters.wait_pos_backtraverse, nullptr},
    {SEMISYNC_STATUS("wait_sessions"), SLUICE_STATUS_UINT, &counters.wait_sessions, nullptr},
    {SEMISYNC_STATUS("yes_tx"), SLUICE_STATUS_UINT, &counters.yes_tx, nullptr},
    {}};

int Init(const sluice_plugin_services* services, void** plugin_data, sluice_plugin_error* error) {
  if (SLUICE_PLUGIN_ABI_MINOR_OF(services->abi_version) < 1) {
    error->code = 1123;
    std::snprintf(error->sqlstate, sizeof(error->sqlstate), "HY000");
    std::snprintf(error->message, sizeof(error->message),
                  "Can't initialize function '%s'; the server's plugin ABI lacks dump connections (1.1)", kPluginName);
    return 1;
  }
  svc = services;
  *plugin_data = nullptr;
  source.Start();
  if (svc->register_binlog_transmit_observer(svc->handle, &kTransmitObserver) != 0 ||
      svc->register_binlog_storage_observer(svc->handle, &kStorageObserver) != 0 ||
      svc->register_trans_observer(svc->handle, &kTransObserver) != 0) {
    svc->unregister_binlog_transmit_observer(svc->handle, &kTransmitObserver);
    svc->unregister_binlog_storage_observer(svc->handle, &kStorageObserver);
    source.Stop();
    svc = nullptr;
    return 1;
  }
  if (SLUICE_PLUGIN_LOAD(&enabled_var)) Log(SLUICE_LOG_INFO, "Semi-sync replication enabled on the source.");
  return 0;
}

void Deinit(void*) {
  // The server has unregistered the observers and waited for hook calls
  // in flight, so no committer waits any more.
  source.Stop();
  svc = nullptr;
}

int CheckUninstall(void*, sluice_plugin_error* error) {
  if (SLUICE_PLUGIN_LOAD(&enabled_var) == 0 || source.clients() == 0) return 0;
  error->code = 1883;
  std::snprintf(error->sqlstate, sizeof(error->sqlstate), "HY000");
  std::snprintf(error->message, sizeof(error->message), "%s", kUninstallRefusal);
  return 1;
}

}  // namespace

extern "C" SLUICE_PLUGIN_EXPORT const sluice_plugin_descriptor sluice_plugin_declarations[] = {
    {SLUICE_PLUGIN_ABI_VERSION, sizeof(sluice_plugin_descriptor), kPluginName, "sluice",
     "Semi-synchronous replication source", "GPL", "1.0", Init, Deinit, CheckUninstall, kSysvars, kStatusvars},
    {}};
