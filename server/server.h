// server/server.h
//
// Server: sluiced's root object. It owns, and starts and stops in order,
// the data directory state, the system/status variable registries, access
// control, the statement worker pool, the Asio I/O threads with the
// acceptor, and the registry of live sessions (process list, KILL).
//
// Thread-safety: Start() and WaitForShutdown() from the main thread;
// everything else from any thread. Lock order: sessions_mu_ is a leaf.
// Asio stays out of this header (see server/asio.h).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "exec/exec_env.h"
#include "exec/global_read_lock.h"
#include "exec/metadata_lock.h"
#include "exec/read_only.h"
#include "exec/session_context.h"
#include "exec/table_locks.h"
#include "server/options.h"
#include "server/worker_pool.h"

namespace spdlog {
class logger;
}
namespace boost::asio::ssl {
class context;
}
namespace sluice::vars {
class SystemVariables;
class StatusVariables;
struct CoreStatus;
}  // namespace sluice::vars
namespace sluice::acl {
class AccessControl;
}
namespace sluice::protocol {
class RsaKeyPair;
}
namespace sluice::binlog {
class Binlog;
class EngineFlush;
}
namespace sluice::server::rpl {
class Registry;
}
namespace sluice::io {
class FileSystem;
}
namespace sluice::storage {
class Engine;
class LockManager;
}

namespace sluice::server {

class Session;
class Executor;
class PluginRegistry;

class Server final : public exec::ServerControl {
 public:
  explicit Server(ServerOptions options);
  // Every file the server reads or writes in the datadir (tablespaces, redo,
  // catalog, binlog, ACL file, mysqld-auto.cnf, auto.cnf, keys and
  // certificates, the plugin record, the pid file) and the binlog caches'
  // spill files go through `fs`, so that a test swaps one object. The
  // one-argument form (and a null `fs`) uses POSIX (io::NewPosixFileSystem()).
  Server(ServerOptions options, std::unique_ptr<io::FileSystem> fs);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Initialises the datadir if empty, loads state, binds the listener and
  // starts the threads. With --initialize[-insecure] it initialises and
  // returns without listening.
  Status Start();
  // Blocks until SIGTERM/SIGINT or SHUTDOWN, then stops everything.
  void WaitForShutdown();
  // Thread-safe; returns at once.
  void RequestShutdown();
  bool shutting_down() const override { return shutting_down_.load(std::memory_order_acquire); }

  const ServerOptions& options() const { return options_; }
  const std::string& server_uuid() const { return server_uuid_; }
  std::chrono::steady_clock::time_point start_time() const { return start_time_; }
  vars::SystemVariables& sys_vars() { return *sys_vars_; }
  vars::StatusVariables& status_vars() { return *status_vars_; }
  acl::AccessControl& acl() { return *acl_; }
  WorkerPool& workers() { return *workers_; }
  Executor& executor() { return *executor_; }
  PluginRegistry& plugins() { return *plugins_; }
  // Row and table locks; the storage engine takes them through this.
  storage::LockManager& lock_manager() { return *lock_manager_; }
  // The storage engine (tables, transactions); valid after Start().
  storage::Engine& engine() { return *engine_; }
  // The binary log; null when log_bin is OFF (--skip-log-bin).
  binlog::Binlog* binlog() { return binlog_.get(); }
  // The replication observer registry (server/rpl/delegates.h).
  rpl::Registry& replication() { return *replication_; }

  // Dump connections. A new dump replaces (kills) a connected one with the
  // same @replica_uuid / @slave_uuid, or, when neither sent a UUID, the same
  // server_id (0 replaces nothing), as MySQL's zombie-dump handling.
  void RegisterDump(uint32_t connection_id, uint32_t server_id, const std::string& uuid);
  void UnregisterDump(uint32_t connection_id);
  exec::MetadataLocks& metadata_locks() { return metadata_locks_; }
  exec::GlobalReadLock& global_read_lock() { return global_read_lock_; }
  exec::TableLocks& table_locks() { return table_locks_; }
  // What statements run against (exec/exec_env.h); valid after Start().
  const exec::ExecEnv& exec_env() const { return *exec_env_; }
  const protocol::RsaKeyPair& rsa_keys() const { return *rsa_keys_; }
  // Null when TLS is not available.
  boost::asio::ssl::context* tls_context() { return tls_context_.get(); }
  std::shared_ptr<spdlog::logger> log() const { return log_; }

  // Session registry.
  void AddSession(const std::shared_ptr<Session>& s);
  void RemoveSession(uint32_t id);
  size_t session_count() const;
  // max_connections slots: AddSession takes one for the session (Session::
  // TakeSlot), which gives
  // it back (GiveBackConnectionSlot, once) as soon as it knows it is ending,
  // before the client can learn so; a client that reconnects at once is not
  // refused for the slot its last connection still held.
  size_t connection_slots_in_use() const { return connection_slots_.load(std::memory_order_acquire); }
  void TakeConnectionSlot() { connection_slots_.fetch_add(1, std::memory_order_acq_rel); }
  void GiveBackConnectionSlot() { connection_slots_.fetch_sub(1, std::memory_order_acq_rel); }
  std::vector<exec::ProcessInfo> ProcessList() const override;
  // KILL [QUERY|CONNECTION] id. 1094 for an unknown id.
  Status Kill(uint32_t id, bool connection) override;
  uint32_t NextConnectionId() { return next_connection_id_.fetch_add(1, std::memory_order_relaxed); }

  // @@read_only / @@super_read_only as statements test them (exec/read_only.h).
  exec::ReadOnlyMode& read_only_mode() { return read_only_mode_; }

  // Status counters (Connections, Questions, Com_*...); valid after Start().
  const vars::CoreStatus& core_status() const { return *core_status_; }
  std::atomic<int64_t> threads_running{0};

  // Replicas registered with COM_REGISTER_SLAVE (SHOW REPLICAS).
  using ReplicaInfo = exec::ReplicaInfo;
  void RegisterReplica(ReplicaInfo info);
  void UnregisterReplicaOf(uint32_t connection_id);
  std::vector<ReplicaInfo> Replicas() const override;

  // The rest of exec::ServerControl (SHUTDOWN, INSTALL / UNINSTALL PLUGIN,
  // RESET MASTER's observers).
  void Shutdown(std::string_view user) override;
  Status InstallPlugin(const std::string& name, const std::string& soname) override;
  Status UninstallPlugin(const std::string& name) override;
  void AfterResetMaster() override;

 private:
  struct Net;  // Asio objects
  Status InitializeDatadir(bool insecure);
  Status LoadTls();
  Status OpenEngine();
  void CloseEngine();
  // Opens the binlog, resolves the engine's prepared transactions against
  // it (crash recovery), and starts a new binlog file.
  Status OpenBinlog();
  Status RegisterBinlogVariables();
  void StartAccept();
  void StartAcceptLocal();
  // --socket: the Unix socket listener; --pid-file; --user (server.cc).
  Status ListenOnSocket();
  Status WritePidFile();
  Status SwitchUser();
  void StopEverything();

  const ServerOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  std::chrono::steady_clock::time_point start_time_;
  std::string server_uuid_;
  // Declared before every member that borrows it, so destroyed after them.
  std::unique_ptr<io::FileSystem> fs_;
  std::unique_ptr<vars::SystemVariables> sys_vars_;
  std::unique_ptr<vars::StatusVariables> status_vars_;
  std::unique_ptr<acl::AccessControl> acl_;
  std::unique_ptr<protocol::RsaKeyPair> rsa_keys_;
  std::unique_ptr<boost::asio::ssl::context> tls_context_;
  std::unique_ptr<storage::LockManager> lock_manager_;
  std::unique_ptr<storage::Engine> engine_;
  std::unique_ptr<rpl::Registry> replication_;
  std::unique_ptr<binlog::EngineFlush> engine_flush_;  // the engine's redo, for the binlog's flush stage
  std::unique_ptr<binlog::Binlog> binlog_;
  exec::MetadataLocks metadata_locks_;
  exec::GlobalReadLock global_read_lock_;
  exec::TableLocks table_locks_;
  exec::ReadOnlyMode read_only_mode_;
  std::unique_ptr<WorkerPool> workers_;
  std::unique_ptr<Executor> executor_;
  std::unique_ptr<exec::ExecEnv> exec_env_;
  // After the registries its plugins registered into: destroyed first.
  std::unique_ptr<PluginRegistry> plugins_;
  std::unique_ptr<Net> net_;

  std::unique_ptr<vars::CoreStatus> core_status_;
  std::atomic<bool> shutting_down_{false};
  bool listening_socket_ = false;  // options_.socket is ours to remove at stop
  bool wrote_pid_file_ = false;    // options_.pid_file likewise
  std::atomic<uint32_t> next_connection_id_{1};
  // Signalled when shutdown is requested and when the last session ends
  // during it; taken before sessions_mu_ (the wait reads session_count()).
  Mutex shutdown_mu_;
  CondVar shutdown_cv_;

  std::atomic<size_t> connection_slots_{0};
  mutable Mutex sessions_mu_;
  std::map<uint32_t, std::weak_ptr<Session>> sessions_ GUARDED_BY(sessions_mu_);
  std::map<uint32_t, ReplicaInfo> replicas_ GUARDED_BY(sessions_mu_);  // by server_id
  struct DumpInfo {
    uint32_t server_id;
    std::string uuid;
  };
  std::map<uint32_t, DumpInfo> dumps_ GUARDED_BY(sessions_mu_);  // by connection id
};

}  // namespace sluice::server
