// exec/testing/exec_world.h
//
// ExecWorld: everything a statement reaches below the wire, made for a
// test or a fuzz target with no Server and no network. A storage::Engine
// on an in-memory file system, a binlog::Binlog writing files under
// `dir`/binlog (log_bin ON, row format), the core system and status
// variables, the accounts (root@localhost, no password), the server-wide
// locks, no plugins, and an ExecEnv over them. The replication hooks and
// the process (ServerControl) are the caller's: a test records what they
// see, a fuzz target answers at once.
//
// The parts are public: a test reaches into the engine, the binlog, the
// variables and the accounts as the server's own code does. Sessions made
// by Login() must end (TableExecutor::EndSession) before the world goes.
//
// Thread-safety: the parts are as thread-safe as in the server; Open,
// UseBinlog, ReopenBinlog and Close are not, and run with no statement in
// flight.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "acl/access_control.h"
#include "base/io/mem_file_system.h"
#include "base/status.h"
#include "binlog/binlog.h"
#include "exec/exec_env.h"
#include "exec/global_read_lock.h"
#include "exec/information_schema.h"
#include "exec/metadata_lock.h"
#include "exec/read_only.h"
#include "exec/session_context.h"
#include "exec/table_locks.h"
#include "storage/engine/engine.h"
#include "vars/core_status.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

inline constexpr char kWorldUuid[] = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
inline constexpr uint32_t kWorldServerId = 7;

// INFORMATION_SCHEMA.PLUGINS and mysql.plugin of a server with none.
class NoPlugins : public PluginCatalog {
 public:
  std::vector<PluginInfo> List() const override { return {}; }
  std::vector<std::pair<std::string, std::string>> Recorded() const override { return {}; }
};

class ExecWorld {
 public:
  struct Options {
    std::filesystem::path dir;  // made afresh; the binlog's files go in dir/binlog
    uint32_t sync_binlog = 1;
    TransactionHooks* hooks = nullptr;          // required
    binlog::CommitHooks* commit_hooks = nullptr;  // the binlog's after_sync; may be null
    ServerControl* control = nullptr;           // required
  };

  // Opens every part and the ExecEnv, with the binlog.
  static Result<std::unique_ptr<ExecWorld>> Open(const Options& options);
  ~ExecWorld();
  ExecWorld(const ExecWorld&) = delete;
  ExecWorld& operator=(const ExecWorld&) = delete;

  const ExecEnv& env() const { return *env_; }

  // The ExecEnv again, with the binlog (log_bin ON) or without (OFF).
  void UseBinlog(bool on);
  // Closes the binlog and opens one with `bo` in its place (hooks set,
  // writing), with a new ExecEnv over it.
  Status ReopenBinlog(const binlog::Binlog::Options& bo);
  // Closes the binlog (the destructor does when this was not called) and
  // removes `dir`.
  Status Close();

  // A connection of `user`@`host`, the account of that name, in no
  // database.
  Status Login(SessionContext& ctx, uint32_t id, const std::string& user, const std::string& host);

  // The binlog's options as Open made them, to change for ReopenBinlog.
  binlog::Binlog::Options BinlogOptions() const;

  io::MemFileSystem fs;
  std::unique_ptr<storage::Engine> engine;
  std::unique_ptr<binlog::Binlog> binlog;
  vars::SystemVariables sys_vars;
  vars::StatusVariables status_vars;
  vars::CoreStatus core_status;
  acl::AccessControl acl{acl::AccessControl::Options{}};
  MetadataLocks metadata_locks;
  GlobalReadLock global_read_lock;
  TableLocks table_locks;
  ReadOnlyMode read_only;
  NoPlugins plugins;

 private:
  explicit ExecWorld(const Options& options) : options_(options) {}
  Status OpenParts();

  const Options options_;
  bool closed_ = false;
  std::unique_ptr<ExecEnv> env_;
};

}  // namespace sluice::exec
