#include "server/server.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

#include "acl/access_control.h"
#include "base/cpus.h"
#include "base/log.h"
#include "base/mysql_error.h"
#include "base/thread_name.h"
#include "binlog/binlog.h"
#include "protocol/auth.h"
#include "server/asio.h"
#include "server/datadir.h"
#include "server/executor.h"
#include "server/lock_vars.h"
#include "server/plugin_registry.h"
#include "server/rpl/delegates.h"
#include "base/io/file_system.h"
#include "base/io/write_file_atomically.h"
#include "server/session.h"
#include "storage/engine/engine.h"
#include "storage/lock/lock_manager.h"
#include "vars/core_status.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
namespace fs = std::filesystem;
using exec::ProcessInfo;

struct Server::Net {
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::local::stream_protocol::acceptor local_acceptor{io};  // --socket
  asio::signal_set signals{io, SIGTERM, SIGINT};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::vector<std::thread> threads;
};

Server::Server(ServerOptions options) : Server(std::move(options), io::NewPosixFileSystem()) {}

Server::Server(ServerOptions options, std::unique_ptr<io::FileSystem> fs)
    : options_(std::move(options)),
      log_(base::GetLogger("server")),
      fs_(fs != nullptr ? std::move(fs) : io::NewPosixFileSystem()),
      replication_(std::make_unique<rpl::Registry>()) {}

Server::~Server() {
  StopEverything();
  CloseEngine();
}

Status Server::OpenEngine() {
  storage::Engine::Options eo;
  eo.buffer_pool_bytes = options_.innodb_buffer_pool_size;
  eo.lock_manager = lock_manager_.get();
  eo.durability = static_cast<storage::Durability>(options_.innodb_flush_log_at_trx_commit);
  auto engine = storage::Engine::Open(fs_.get(), options_.datadir, eo);
  if (!engine.ok()) return engine.status();
  engine_ = std::move(engine).value();
  const storage::Engine::RecoveryInfo& ri = engine_->recovery_info();
  if (ri.records_applied > 0 || ri.rolled_back > 0 || ri.prepared > 0 || ri.incomplete_ddl > 0) {
    SLUICE_LOG_SYSTEM(log_, 13090,
                      "InnoDB: crash recovery from checkpoint LSN {} to {}: {} redo records applied, {} "
                      "transactions rolled back, {} prepared, {} unfinished CREATE TABLEs dropped",
                      ri.checkpoint_lsn, ri.end_lsn, ri.records_applied, ri.rolled_back, ri.prepared,
                      ri.incomplete_ddl);
  }
  auto apply_flush = [this](const sql::Value& v) {
    engine_->set_durability(static_cast<storage::Durability>(std::min<uint64_t>(v.ToUInt(), 2)));
  };
  if (auto v = sys_vars_->Get("innodb_flush_log_at_trx_commit", vars::GetScope::kGlobal, nullptr); v.ok()) {
    apply_flush(*v);  // a persisted value
  }
  SLUICE_RETURN_IF_ERROR(sys_vars_->AddHooks(
      "innodb_flush_log_at_trx_commit", nullptr,
      [apply_flush](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
        if (scope == vars::SetScope::kGlobal || scope == vars::SetScope::kPersist) apply_flush(v);
      }));
  // Innodb_* status variables, computed when read.
  for (const auto& [name, value] : engine_->StatusVars()) {
    std::string n(name);
    SLUICE_RETURN_IF_ERROR(status_vars_->RegisterProvider(
        n, "storage engine counter", [this, n](const vars::SessionStatus*) -> std::string {
          for (const auto& [k, v] : engine_->StatusVars()) {
            if (k == n) return std::to_string(v);
          }
          return "0";
        }));
  }
  return Status::OK();
}

void Server::CloseEngine() {
  exec_env_.reset();
  if (binlog_) {
    if (replication_) replication_->set_binlog(nullptr);
    Status b = binlog_->Close();
    if (!b.ok()) SLUICE_LOG_ERROR(log_, 0, "binlog: close failed: {}", b.ToString());
    binlog_.reset();
  }
  if (!engine_) return;
  Status s = engine_->Close();
  if (!s.ok()) SLUICE_LOG_ERROR(log_, 0, "InnoDB: shutdown failed: {}", s.ToString());
  engine_.reset();
}

Status Server::InitializeDatadir(bool insecure) {
  SLUICE_RETURN_IF_ERROR(CreateDatadir(options_.datadir));
  auto uuid = LoadOrCreateServerUuid(options_.datadir, fs_.get());
  if (!uuid.ok()) return uuid.status();
  std::optional<std::string> password;
  if (!insecure) password = RandomPassword();
  acl::AccessControl::Options acl_options;
  acl_options.default_authentication_plugin = options_.default_authentication_plugin;
  acl_options.fs = fs_.get();
  acl::AccessControl acl(acl_options);
  SLUICE_RETURN_IF_ERROR(acl.InitializeDatadir(options_.datadir, password));
  if (password) {
    // mysqld logs this as a Note; it must be seen whatever the verbosity.
    SLUICE_LOG_SYSTEM(log_, 10454, "A temporary password is generated for root@localhost: {}", *password);
  } else {
    SLUICE_LOG_WARNING(log_, 10453,
                       "root@localhost is created with an empty password ! Please consider switching "
                       "off the --initialize-insecure option.");
  }
  bool generated = false;
  return EnsureCertificates(options_.datadir, &generated, fs_.get());
}

Status Server::LoadTls() {
  std::string cert = options_.ssl_cert, key = options_.ssl_key, ca = options_.ssl_ca;
  if (cert.empty()) {
    bool generated = false;
    SLUICE_RETURN_IF_ERROR(EnsureCertificates(options_.datadir, &generated, fs_.get()));
    if (generated) SLUICE_LOG_SYSTEM(log_, 10068, "CA certificate ca.pem is self signed.");
    cert = (fs::path(options_.datadir) / "server-cert.pem").string();
    key = (fs::path(options_.datadir) / "server-key.pem").string();
    ca = (fs::path(options_.datadir) / "ca.pem").string();
  }
  auto ctx = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
  error_code ec;
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1 | asio::ssl::context::single_dh_use,
                   ec);
  ctx->use_certificate_chain_file(cert, ec);
  if (ec) return Status::IOError("cannot load ssl-cert '" + cert + "': " + ec.message());
  ctx->use_private_key_file(key, asio::ssl::context::pem, ec);
  if (ec) return Status::IOError("cannot load ssl-key '" + key + "': " + ec.message());
  if (!ca.empty()) {
    ctx->load_verify_file(ca, ec);
    if (ec) return Status::IOError("cannot load ssl-ca '" + ca + "': " + ec.message());
  }
  tls_context_ = std::move(ctx);

  // caching_sha2_password's RSA pair lives in the datadir.
  auto pem = ReadFile(*fs_, (fs::path(options_.datadir) / "private_key.pem").string());
  if (!pem.ok()) return pem.status();
  auto keys = protocol::RsaKeyPair::FromPrivatePem(pem.value());
  if (!keys.ok()) return keys.status();
  rsa_keys_ = std::make_unique<protocol::RsaKeyPair>(std::move(keys).value());
  return Status::OK();
}

Status Server::WritePidFile() {
  if (options_.pid_file.empty()) return Status::OK();
  // Written whole under a temporary name and renamed (through fs_, like every
  // file of the server), so that a reader never sees a half-written pid.
  // Readable by everyone, as a pid file written with the default umask.
  io::AtomicWriteOptions write_options;
  write_options.permissions = 0644;
  Status s = io::WriteFileAtomically(*fs_, options_.pid_file, fmt::format("{}\n", getpid()), write_options);
  if (!s.ok()) {
    return Status::IOError(fmt::format("Could not create the pid file '{}': {}", options_.pid_file, s.message()));
  }
  wrote_pid_file_ = true;
  return Status::OK();
}

Status Server::SwitchUser() {
  const std::string& user = options_.user;
  if (user.empty()) return Status::OK();
  struct passwd pw_buf;
  struct passwd* pw = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r(user.c_str(), &pw_buf, buf.data(), buf.size(), &pw) != 0 || pw == nullptr) {
    return Status::InvalidArgument(fmt::format("Fatal error: Can't change to run as user '{}' ;  Please check "
                                               "that the user exists!", user));
  }
  if (geteuid() != 0) {
    // As mysqld: only root can switch; anyone else runs as itself.
    if (pw->pw_uid != geteuid()) {
      SLUICE_LOG_WARNING(log_, 10112, "One can only use the --user switch if running as root");
    }
    return Status::OK();
  }
  if (pw->pw_uid == 0) return Status::OK();  // --user=root: stays root
  if (setgid(pw->pw_gid) != 0 || initgroups(pw->pw_name, pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0) {
    return Status::IOError(fmt::format("Fatal error: Can't change to run as user '{}': {}", user,
                                       std::strerror(errno)));
  }
  return Status::OK();
}

Status Server::Start() {
  start_time_ = std::chrono::steady_clock::now();
  SLUICE_LOG_SYSTEM(log_, 10116, "sluiced (sluiced {}) starting as process {}", kServerVersion, getpid());
  // Before any file of the data directory is opened, so that the files it
  // creates belong to that user (as mysqld, which also switches before it
  // listens: a port below 1024 then needs CAP_NET_BIND_SERVICE).
  SLUICE_RETURN_IF_ERROR(SwitchUser());
  if (!options_.tmpdir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(options_.tmpdir, ec)) {
      return Status::InvalidArgument(fmt::format("tmpdir '{}' is not a directory", options_.tmpdir));
    }
  }

  if (options_.initialize || options_.initialize_insecure) {
    if (!DatadirIsEmpty(options_.datadir, {options_.log_error, options_.pid_file})) {
      return Status::InvalidArgument("--initialize specified but the data directory has files in it. Aborting.");
    }
    SLUICE_LOG_SYSTEM(log_, 13169, "sluiced (sluiced {}) initializing of server in progress as process {}",
                      kServerVersion, getpid());
    SLUICE_RETURN_IF_ERROR(InitializeDatadir(options_.initialize_insecure));
    SLUICE_LOG_SYSTEM(log_, 13170, "sluiced (sluiced {}) initializing of server has completed", kServerVersion);
    return Status::OK();
  }
  if (DatadirIsEmpty(options_.datadir, {options_.log_error, options_.pid_file})) {
    SLUICE_RETURN_IF_ERROR(InitializeDatadir(/*insecure=*/true));
  }
  auto uuid = LoadOrCreateServerUuid(options_.datadir, fs_.get());
  if (!uuid.ok()) return uuid.status();
  server_uuid_ = uuid.value();

  acl::AccessControl::Options acl_options;
  acl_options.default_authentication_plugin = options_.default_authentication_plugin;
  acl_options.fs = fs_.get();
  acl_ = std::make_unique<acl::AccessControl>(acl_options);
  SLUICE_RETURN_IF_ERROR(acl_->Open(options_.datadir));
  SLUICE_RETURN_IF_ERROR(LoadTls());

  sys_vars_ = std::make_unique<vars::SystemVariables>(
      vars::SystemVariables::Options{base::GetLogger("server"), fs_.get()});
  status_vars_ = std::make_unique<vars::StatusVariables>();
  workers_ = std::make_unique<WorkerPool>(WorkerPool::Options{options_.thread_cache_size});
  executor_ = std::make_unique<Executor>(*this);
  lock_manager_ = std::make_unique<storage::LockManager>();
  SLUICE_RETURN_IF_ERROR(executor_->RegisterVariables());
  SLUICE_RETURN_IF_ERROR(RegisterLockVariables(*sys_vars_, *status_vars_, *lock_manager_));
  // Persisted values of the variables registered just now apply here.
  ApplyLockVariables(*sys_vars_, *lock_manager_);
  SLUICE_RETURN_IF_ERROR(OpenEngine());
  SLUICE_RETURN_IF_ERROR(OpenBinlog());
  {
    // Installed plugins and --plugin-load[-add]: after the variables (a
    // persisted value of a plugin's variable applies when it registers) and
    // the binlog (its hooks). A plugin that fails is logged and skipped.
    PluginRegistry::Options po;
    auto dir = sys_vars_->Get("plugin_dir", vars::GetScope::kGlobal, nullptr);
    po.plugin_dir = dir.ok() ? dir->ToString() : options_.plugin_dir;
    po.datadir = options_.datadir;
    po.sys_vars = sys_vars_.get();
    po.status_vars = status_vars_.get();
    po.replication = replication_.get();
    po.log = log_;
    po.fs = fs_.get();
    // A plugin variable's start-up value: a loose- option, or one of the
    // MySQL options the plugin declares (rpl_semi_sync_source_enabled=1 in
    // my.cnf beside plugin-load-add, as MySQL documents it).
    po.startup_values = options_.mysql_options;
    po.startup_values.insert(po.startup_values.end(), options_.loose_options.begin(), options_.loose_options.end());
    plugins_ = std::make_unique<PluginRegistry>(std::move(po));
    std::vector<std::string> load;
    if (!options_.plugin_load.empty()) load.push_back(options_.plugin_load);
    load.insert(load.end(), options_.plugin_load_add.begin(), options_.plugin_load_add.end());
    plugins_->LoadAtStart(load);
  }
  vars::CoreStatusProviders providers;
  providers.uptime_seconds = [this] {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::steady_clock::now() - start_time_).count());
  };
  providers.threads_connected = [this] { return static_cast<uint64_t>(session_count()); };
  providers.threads_running = [this] {
    return static_cast<uint64_t>(std::max<int64_t>(0, threads_running.load()));
  };
  auto core = vars::RegisterCoreStatus(*status_vars_, providers);
  if (!core.ok()) return core.status();
  core_status_ = std::make_unique<vars::CoreStatus>(core.value());
  exec::ExecEnv::Services services;
  services.engine = engine_.get();
  services.binlog = binlog_.get();
  services.sys_vars = sys_vars_.get();
  services.status_vars = status_vars_.get();
  services.core_status = core_status_.get();
  services.acl = acl_.get();
  services.metadata_locks = &metadata_locks_;
  services.global_read_lock = &global_read_lock_;
  services.table_locks = &table_locks_;
  services.read_only = &read_only_mode_;
  services.hooks = replication_.get();
  services.plugins = plugins_.get();
  services.control = this;
  exec_env_ = std::make_unique<exec::ExecEnv>(services);

  net_ = std::make_unique<Net>();
  error_code ec;
  auto address = asio::ip::make_address(options_.bind_address == "*" ? "0.0.0.0" : options_.bind_address, ec);
  if (ec) return Status::InvalidArgument("bind-address '" + options_.bind_address + "' is not an IP address");
  tcp::endpoint endpoint(address, options_.port);
  net_->acceptor.open(endpoint.protocol(), ec);
  if (!ec) net_->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) net_->acceptor.bind(endpoint, ec);
  if (!ec) net_->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IOError(fmt::format("Can't start server: Bind on TCP/IP port: {} ({}:{})",
                                       ec.message(), options_.bind_address, options_.port));
  }
  net_->signals.async_wait([this](error_code ec, int sig) {
    if (!ec) {
      SLUICE_LOG_SYSTEM(log_, 10931, "Received signal {}: shutting down", sig);
      RequestShutdown();
    }
  });
  if (!options_.socket.empty()) SLUICE_RETURN_IF_ERROR(ListenOnSocket());
  SLUICE_RETURN_IF_ERROR(WritePidFile());
  StartAccept();
  if (listening_socket_) StartAcceptLocal();
  net_->work.emplace(net_->io.get_executor());
  unsigned n = options_.io_threads ? options_.io_threads : UsableCpus();
  for (unsigned i = 0; i < n; ++i) {
    net_->threads.emplace_back([this] {
      NameThisThread("sl_io");
      net_->io.run();
    });
  }
  uint16_t port = net_->acceptor.local_endpoint(ec).port();
  SLUICE_LOG_SYSTEM(log_, 10931, "sluiced: ready for connections. Version: '{}'  socket: '{}'  port: {}  {}.",
                    kServerVersion, options_.socket, port, kVersionComment);
  return Status::OK();
}

void Server::StartAccept() {
  net_->acceptor.async_accept(asio::make_strand(net_->io), [this](error_code ec, tcp::socket socket) {
    if (ec) {
      if (ec == asio::error::operation_aborted || !net_->acceptor.is_open()) return;
      SLUICE_LOG_WARNING(log_, 10000, "accept failed: {}", ec.message());
    } else {
      socket.set_option(tcp::no_delay(true), ec);
      Session::Peer peer = Session::TcpPeer(socket);
      auto session = std::make_shared<Session>(*this, Session::StreamSocket(std::move(socket)), std::move(peer),
                                               NextConnectionId());
      AddSession(session);
      session->Start();
    }
    StartAccept();
  });
}

void Server::StartAcceptLocal() {
  net_->local_acceptor.async_accept(
      asio::make_strand(net_->io), [this](error_code ec, asio::local::stream_protocol::socket socket) {
        if (ec) {
          if (ec == asio::error::operation_aborted || !net_->local_acceptor.is_open()) return;
          SLUICE_LOG_WARNING(log_, 10000, "accept on the Unix socket failed: {}", ec.message());
        } else {
          auto session = std::make_shared<Session>(*this, Session::StreamSocket(std::move(socket)),
                                                   Session::UnixPeer(), NextConnectionId());
          AddSession(session);
          session->Start();
        }
        StartAcceptLocal();
      });
}

Status Server::ListenOnSocket() {
  const std::string& path = options_.socket;
  using local = asio::local::stream_protocol;
  error_code ec;
  std::error_code fs_ec;
  // A socket file left by a server that died is removed; one a live server
  // answers on is not (MySQL refuses to start the same way).
  if (fs::exists(fs::symlink_status(path, fs_ec))) {
    local::socket probe(net_->io);
    probe.connect(local::endpoint(path), ec);
    if (!ec) {
      return Status::IOError(fmt::format(
          "Can't start server : Bind on unix socket: another process is listening on the socket file {}", path));
    }
    fs::remove(path, fs_ec);
  }
  local::endpoint endpoint(path);
  net_->local_acceptor.open(endpoint.protocol(), ec);
  if (!ec) net_->local_acceptor.bind(endpoint, ec);
  if (!ec) net_->local_acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return Status::IOError(
        fmt::format("Can't start server : Bind on unix socket: {} ({})", ec.message(), path));
  }
  // Any local user may connect; accounts decide what they may do (MySQL
  // makes its socket world-writable too).
  fs::permissions(path, fs::perms::all, fs_ec);
  listening_socket_ = true;
  return Status::OK();
}

void Server::AddSession(const std::shared_ptr<Session>& s) {
  s->TakeSlot();
  MutexLock lock(&sessions_mu_);
  sessions_[s->id()] = s;
  if (core_status_) core_status_->max_used_connections->UpdateMax(sessions_.size());
}

void Server::RemoveSession(uint32_t id) {
  bool empty_now;
  {
    MutexLock lock(&sessions_mu_);
    sessions_.erase(id);
    empty_now = sessions_.empty();
  }
  if (empty_now && shutting_down()) {
    // Under the mutex: StopEverything checks session_count() holding it,
    // so the notification cannot fall between its check and its wait.
    MutexLock lock(&shutdown_mu_);
    shutdown_cv_.NotifyAll();
  }
}

size_t Server::session_count() const {
  MutexLock lock(&sessions_mu_);
  return sessions_.size();
}

std::vector<ProcessInfo> Server::ProcessList() const {
  std::vector<std::shared_ptr<Session>> live;
  {
    MutexLock lock(&sessions_mu_);
    for (const auto& [id, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  std::vector<ProcessInfo> out;
  out.reserve(live.size());
  for (const auto& s : live) out.push_back(s->process_info());
  return out;
}

Status Server::Kill(uint32_t id, bool connection) {
  std::shared_ptr<Session> target;
  {
    MutexLock lock(&sessions_mu_);
    auto it = sessions_.find(id);
    if (it != sessions_.end()) target = it->second.lock();
  }
  if (!target) return MakeError(er::kNoSuchThread, id);
  target->Kill(connection);
  return Status::OK();
}

void Server::RequestShutdown() {
  {
    MutexLock lock(&shutdown_mu_);
    shutting_down_.store(true, std::memory_order_release);
  }
  shutdown_cv_.NotifyAll();
}

void Server::Shutdown(std::string_view user) {
  SLUICE_LOG_SYSTEM(log_, 10910, "Received SHUTDOWN from user {}. Shutting down sluiced.", user);
  RequestShutdown();
}

Status Server::InstallPlugin(const std::string& name, const std::string& soname) {
  return plugins_->Install(name, soname);
}

Status Server::UninstallPlugin(const std::string& name) { return plugins_->Uninstall(name); }

void Server::AfterResetMaster() { replication_->AfterResetMaster(); }

void Server::WaitForShutdown() {
  {
    MutexLock lock(&shutdown_mu_);
    while (!shutting_down()) shutdown_cv_.Wait(&shutdown_mu_);
  }
  StopEverything();
}

void Server::StopEverything() {
  if (!net_) return;
  shutting_down_.store(true, std::memory_order_release);
  SLUICE_LOG_SYSTEM(log_, 10910, "sluiced: Shutdown in progress ({} connections open)", session_count());
  // 1. Stop accepting.
  asio::post(net_->io, [this] {
    error_code ec;
    net_->acceptor.close(ec);
    net_->local_acceptor.close(ec);
    net_->signals.cancel(ec);
  });
  // 2. Close every session; 3. wait for them to end, up to a deadline.
  std::vector<std::shared_ptr<Session>> live;
  {
    MutexLock lock(&sessions_mu_);
    for (const auto& [id, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
    }
  }
  for (auto& s : live) s->Shutdown();
  live.clear();
  {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    MutexLock lock(&shutdown_mu_);
    while (session_count() != 0) {
      if (!shutdown_cv_.WaitUntil(&shutdown_mu_, deadline)) break;
    }
  }
  // 4. Stop the I/O threads and the workers.
  net_->work.reset();
  net_->io.stop();
  for (auto& t : net_->threads) t.join();
  net_->threads.clear();
  if (workers_) workers_->Stop();
  net_.reset();
  // No session is left to call into a plugin: deinit them all.
  if (plugins_) plugins_->Shutdown();
  // 5. No session is left: the engine purges, checkpoints and closes.
  CloseEngine();
  // A clean stop leaves neither the socket file nor the pid file behind.
  std::error_code fs_ec;
  if (listening_socket_) fs::remove(options_.socket, fs_ec);
  if (wrote_pid_file_) {
    Status removed = fs_->Remove(options_.pid_file);
    (void)removed;  // already gone: nothing to clean up
  }
  SLUICE_LOG_SYSTEM(log_, 10910, "sluiced: Shutdown complete (sluiced {}).", kServerVersion);
}

}  // namespace sluice::server

namespace sluice::server {

void Server::RegisterDump(uint32_t connection_id, uint32_t server_id, const std::string& uuid) {
  std::vector<uint32_t> zombies;
  {
    MutexLock lock(&sessions_mu_);
    for (const auto& [id, d] : dumps_) {
      if (id == connection_id) continue;
      const bool same = !uuid.empty() ? d.uuid == uuid : (d.uuid.empty() && server_id != 0 && d.server_id == server_id);
      if (same) zombies.push_back(id);
    }
    dumps_[connection_id] = DumpInfo{server_id, uuid};
  }
  for (uint32_t id : zombies) {
    SLUICE_LOG_NOTE(log_, 10941, "While initializing dump thread for replica with {} <{}>, found a zombie dump "
                    "thread with the same {}; killing it (connection {}).",
                    uuid.empty() ? "server_id" : "UUID", uuid.empty() ? std::to_string(server_id) : uuid,
                    uuid.empty() ? "server_id" : "UUID", id);
    (void)Kill(id, /*connection=*/true);
  }
}

void Server::UnregisterDump(uint32_t connection_id) {
  MutexLock lock(&sessions_mu_);
  dumps_.erase(connection_id);
}

void Server::RegisterReplica(ReplicaInfo info) {
  MutexLock lock(&sessions_mu_);
  replicas_[info.server_id] = std::move(info);
}

void Server::UnregisterReplicaOf(uint32_t connection_id) {
  MutexLock lock(&sessions_mu_);
  for (auto it = replicas_.begin(); it != replicas_.end();) {
    if (it->second.connection_id == connection_id) {
      it = replicas_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<Server::ReplicaInfo> Server::Replicas() const {
  MutexLock lock(&sessions_mu_);
  std::vector<ReplicaInfo> out;
  for (const auto& [id, r] : replicas_) out.push_back(r);
  return out;
}

}  // namespace sluice::server
