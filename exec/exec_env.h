// exec/exec_env.h
//
// ExecEnv: what statement execution needs from the process, and nothing
// more. exec/ runs statements against these services without knowing the
// Server, the network or the plugins behind them; the server builds one
// ExecEnv at start-up (Server::exec_env()), a test builds one over a real
// Engine and Binlog (exec/exec_test.cc).
//
//   engine            tables and transactions (storage/engine)
//   binlog            the binary log; null when log_bin is OFF
//   sys_vars          system variables (global values; sessions hold theirs)
//   acl               accounts and privileges
//   metadata_locks, global_read_lock, table_locks
//                     the server-wide locks statements take (exec/)
//   read_only         @@read_only / @@super_read_only (exec/read_only.h)
//   hooks             the replication observers' commit points
//                     (server/rpl's Registry implements TransactionHooks)
//   plugins           the loaded plugins, for INFORMATION_SCHEMA.PLUGINS
//                     and mysql.plugin (server's PluginRegistry)
//
// Thread-safety: the services are thread-safe; ExecEnv itself is immutable
// once built and shared by every session.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sluice::storage {
class Engine;
}  // namespace sluice::storage
namespace sluice::binlog {
class Binlog;
}  // namespace sluice::binlog
namespace sluice::vars {
class SystemVariables;
}  // namespace sluice::vars
namespace sluice::acl {
class AccessControl;
}  // namespace sluice::acl

namespace sluice::exec {

class MetadataLocks;
class GlobalReadLock;
class TableLocks;
class ReadOnlyMode;
struct PluginInfo;  // exec/information_schema.h

// The replication observers' points on the commit of a transaction that has
// binlog events (exec/session_binlog.cc), in order: before_commit, then the
// binlog's group commit (its after_flush is the binlog's own CommitHooks),
// after_sync once written and synced, the engine commit, after_commit; or
// after_rollback when the commit failed. A failure after the transaction is
// in the binlog is logged and the transaction commits.
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
  virtual Status AfterSync(std::string_view log_file, uint64_t log_pos) = 0;
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

class ExecEnv {
 public:
  ExecEnv(storage::Engine& engine, binlog::Binlog* binlog, vars::SystemVariables& sys_vars,
          acl::AccessControl& acl, MetadataLocks& metadata_locks, GlobalReadLock& global_read_lock,
          TableLocks& table_locks, const ReadOnlyMode& read_only, TransactionHooks& hooks, const PluginCatalog& plugins)
      : engine_(engine),
        binlog_(binlog),
        sys_vars_(sys_vars),
        acl_(acl),
        metadata_locks_(metadata_locks),
        global_read_lock_(global_read_lock),
        table_locks_(table_locks),
        read_only_(read_only),
        hooks_(hooks),
        plugins_(plugins) {}
  ExecEnv(const ExecEnv&) = delete;
  ExecEnv& operator=(const ExecEnv&) = delete;

  storage::Engine& engine() const { return engine_; }
  binlog::Binlog* binlog() const { return binlog_; }
  vars::SystemVariables& sys_vars() const { return sys_vars_; }
  acl::AccessControl& acl() const { return acl_; }
  MetadataLocks& metadata_locks() const { return metadata_locks_; }
  GlobalReadLock& global_read_lock() const { return global_read_lock_; }
  TableLocks& table_locks() const { return table_locks_; }
  const ReadOnlyMode& read_only() const { return read_only_; }
  TransactionHooks& hooks() const { return hooks_; }
  const PluginCatalog& plugins() const { return plugins_; }

 private:
  storage::Engine& engine_;
  binlog::Binlog* const binlog_;
  vars::SystemVariables& sys_vars_;
  acl::AccessControl& acl_;
  MetadataLocks& metadata_locks_;
  GlobalReadLock& global_read_lock_;
  TableLocks& table_locks_;
  const ReadOnlyMode& read_only_;
  TransactionHooks& hooks_;
  const PluginCatalog& plugins_;
};

}  // namespace sluice::exec
