// exec/exec_env.h
//
// ExecEnv: what statement execution needs from the process, and nothing
// more. exec/ runs statements against these services without knowing the
// Server, the network or the plugins behind them; the server builds one
// ExecEnv at start-up (Server::exec_env()), a test or a fuzz target builds
// one over a real Engine and Binlog (ExecWorld, exec/testing/exec_world.h).
//
//   engine            tables, transactions and the lock manager (storage/engine)
//   binlog            the binary log; null when log_bin is OFF
//   sys_vars          system variables (global values; sessions hold theirs)
//   status_vars, core_status
//                     status variables and the core counters (Com_*, ...)
//   acl               accounts and privileges
//   metadata_locks, global_read_lock, table_locks
//                     the server-wide locks statements take (exec/)
//   read_only         @@read_only / @@super_read_only (exec/read_only.h)
//   hooks             the replication observers' commit points
//                     (server/rpl's Registry implements TransactionHooks)
//   plugins           the loaded plugins, for INFORMATION_SCHEMA.PLUGINS
//                     and mysql.plugin (server's PluginRegistry)
//   control           what only the process can do: the other sessions
//                     (SHOW PROCESSLIST, KILL), SHUTDOWN, the registered
//                     replicas, INSTALL / UNINSTALL PLUGIN (the Server)
//
// Thread-safety: the services are thread-safe; ExecEnv itself is immutable
// once built and shared by every session.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "exec/user_locks.h"

namespace sluice::storage {
class Engine;
}  // namespace sluice::storage
namespace sluice::binlog {
class Binlog;
}  // namespace sluice::binlog
namespace sluice::vars {
class SystemVariables;
}  // namespace sluice::vars
namespace sluice::vars {
class StatusVariables;
struct CoreStatus;
}  // namespace sluice::vars
namespace sluice::acl {
class AccessControl;
}  // namespace sluice::acl

namespace sluice::exec {

class MetadataLocks;
class GlobalReadLock;
class TableLocks;
class ReadOnlyMode;
struct PluginInfo;   // exec/information_schema.h
struct ProcessInfo;  // exec/session_context.h

// The replication observers' points on the commit of a transaction that has
// binlog events (exec/session_binlog.cc), in order: before_commit, then the
// binlog's group commit (its after_flush and after_sync are the binlog's own
// CommitHooks, run by the group's leader), the engine commit, after_commit;
// or after_rollback when the commit failed. A failure after the transaction
// is in the binlog is logged and the transaction commits.
class TransactionHooks {
 public:
  struct Param {
    uint32_t connection_id = 0;
    std::string_view gtid;
    std::string_view log_file;
    uint64_t log_pos = 0;
  };
  virtual ~TransactionHooks() = default;
  virtual Status BeforeCommit(const Param& p) = 0;
  virtual Status AfterCommit(const Param& p) = 0;
  virtual Status AfterRollback(const Param& p) = 0;
};

// The plugins the server knows, as the system tables show them.
class PluginCatalog {
 public:
  virtual ~PluginCatalog() = default;
  // INFORMATION_SCHEMA.PLUGINS / SHOW PLUGINS rows.
  virtual std::vector<PluginInfo> List() const = 0;
  // mysql.plugin: {name, library} of each INSTALLed plugin.
  virtual std::vector<std::pair<std::string, std::string>> Recorded() const = 0;
};

// A replica registered with COM_REGISTER_SLAVE (SHOW REPLICAS).
struct ReplicaInfo {
  uint32_t server_id = 0;
  std::string host;
  uint16_t port = 0;
  uint32_t source_id = 0;
  std::string uuid;
  uint32_t connection_id = 0;  // of the session that registered it
};

// What statements ask of the process rather than of a storage or
// replication service. The Server implements it; all thread-safe.
class ServerControl {
 public:
  virtual ~ServerControl() = default;
  // Every session's process-list row (SHOW PROCESSLIST, KILL's owner check).
  virtual std::vector<ProcessInfo> ProcessList() const = 0;
  // KILL [QUERY|CONNECTION] of another session: 1094 for an unknown id.
  virtual Status Kill(uint32_t id, bool connection) = 0;
  // SHUTDOWN by `user` (logged); returns at once.
  virtual void Shutdown(std::string_view user) = 0;
  // Whether the server is stopping (SLEEP() ends early).
  virtual bool shutting_down() const = 0;
  virtual std::vector<ReplicaInfo> Replicas() const = 0;
  // INSTALL PLUGIN name SONAME 'soname' / UNINSTALL PLUGIN name.
  virtual Status InstallPlugin(const std::string& name, const std::string& soname) = 0;
  virtual Status UninstallPlugin(const std::string& name) = 0;
  // After RESET MASTER: the replication observers forget the positions of
  // the files that are gone.
  virtual void AfterResetMaster() = 0;
};

class ExecEnv {
 public:
  // Every service but `binlog` is required.
  struct Services {
    storage::Engine* engine = nullptr;
    binlog::Binlog* binlog = nullptr;
    vars::SystemVariables* sys_vars = nullptr;
    vars::StatusVariables* status_vars = nullptr;
    const vars::CoreStatus* core_status = nullptr;
    acl::AccessControl* acl = nullptr;
    MetadataLocks* metadata_locks = nullptr;
    GlobalReadLock* global_read_lock = nullptr;
    TableLocks* table_locks = nullptr;
    const ReadOnlyMode* read_only = nullptr;
    TransactionHooks* hooks = nullptr;
    const PluginCatalog* plugins = nullptr;
    ServerControl* control = nullptr;
  };
  explicit ExecEnv(const Services& s);
  ExecEnv(const ExecEnv&) = delete;
  ExecEnv& operator=(const ExecEnv&) = delete;

  storage::Engine& engine() const { return *s_.engine; }
  binlog::Binlog* binlog() const { return s_.binlog; }
  vars::SystemVariables& sys_vars() const { return *s_.sys_vars; }
  vars::StatusVariables& status_vars() const { return *s_.status_vars; }
  const vars::CoreStatus& core_status() const { return *s_.core_status; }
  acl::AccessControl& acl() const { return *s_.acl; }
  MetadataLocks& metadata_locks() const { return *s_.metadata_locks; }
  GlobalReadLock& global_read_lock() const { return *s_.global_read_lock; }
  TableLocks& table_locks() const { return *s_.table_locks; }
  const ReadOnlyMode& read_only() const { return *s_.read_only; }
  TransactionHooks& hooks() const { return *s_.hooks; }
  const PluginCatalog& plugins() const { return *s_.plugins; }
  ServerControl& control() const { return *s_.control; }
  // GET_LOCK's locks: the ExecEnv's own, one per server.
  UserLocks& user_locks() const { return user_locks_; }

 private:
  const Services s_;
  mutable UserLocks user_locks_;
};

}  // namespace sluice::exec
