// exec/testing/exec_world.cc
#include "exec/testing/exec_world.h"

#include <optional>
#include <system_error>

#include "base/mysql_error.h"
#include "vars/core_vars.h"

namespace sluice::exec {

namespace fs = std::filesystem;

Result<std::unique_ptr<ExecWorld>> ExecWorld::Open(const Options& options) {
  std::unique_ptr<ExecWorld> world(new ExecWorld(options));
  Status st = world->OpenParts();
  if (!st.ok()) return st;
  return world;
}

Status ExecWorld::OpenParts() {
  std::error_code ec;
  fs::remove_all(options_.dir, ec);
  fs::create_directories(options_.dir / "binlog", ec);
  if (ec) return MakeError(er::kUnknown, "cannot make " + options_.dir.string() + ": " + ec.message());

  auto e = storage::Engine::Open(&fs, "/data", storage::Engine::Options{size_t{8} << 20});
  if (!e.ok()) return e.status();
  engine = std::move(e).value();

  vars::CoreVariableDefaults d;
  d.server_uuid = kWorldUuid;
  d.log_bin = true;
  SLUICE_RETURN_IF_ERROR(vars::RegisterCoreVariables(sys_vars, d));
  auto core = vars::RegisterCoreStatus(status_vars, vars::CoreStatusProviders{});
  if (!core.ok()) return core.status();
  core_status = std::move(core).value();
  SLUICE_RETURN_IF_ERROR(acl.InitializeDatadir(options_.dir.string(), std::nullopt));

  return ReopenBinlog(BinlogOptions());
}

binlog::Binlog::Options ExecWorld::BinlogOptions() const {
  binlog::Binlog::Options bo;
  bo.dir = (options_.dir / "binlog").string();
  bo.server_id = kWorldServerId;
  bo.sync_binlog = options_.sync_binlog;
  bo.server_uuid = *binlog::Uuid::Parse(kWorldUuid);
  return bo;
}

Status ExecWorld::ReopenBinlog(const binlog::Binlog::Options& bo) {
  env_.reset();
  if (binlog) SLUICE_RETURN_IF_ERROR(binlog->Close());
  binlog.reset();
  auto bl = binlog::Binlog::Open(bo, nullptr);
  if (!bl.ok()) return bl.status();
  binlog = std::move(bl).value();
  SLUICE_RETURN_IF_ERROR(binlog->StartWriting());
  if (options_.commit_hooks != nullptr) binlog->set_hooks(options_.commit_hooks);
  UseBinlog(true);
  return Status::OK();
}

void ExecWorld::UseBinlog(bool on) {
  ExecEnv::Services s;
  s.engine = engine.get();
  s.binlog = on ? binlog.get() : nullptr;
  s.sys_vars = &sys_vars;
  s.status_vars = &status_vars;
  s.core_status = &core_status;
  s.acl = &acl;
  s.metadata_locks = &metadata_locks;
  s.global_read_lock = &global_read_lock;
  s.table_locks = &table_locks;
  s.read_only = &read_only;
  s.hooks = options_.hooks;
  s.plugins = &plugins;
  s.control = options_.control;
  env_ = std::make_unique<ExecEnv>(s);
}

Status ExecWorld::Login(SessionContext& ctx, uint32_t id, const std::string& user, const std::string& host) {
  ctx.connection_id = id;
  ctx.mdl.id = id;
  ctx.user = ctx.priv_user = user;
  ctx.host = ctx.priv_host = host;
  ctx.account = acl.Lookup(acl::AccountName{user, host});
  if (ctx.account == nullptr) return MakeError(er::kUnknown, "no account '" + user + "'@'" + host + "'");
  ctx.vars = std::make_unique<vars::SessionVariables>(sys_vars.NewSession());
  return Status::OK();
}

Status ExecWorld::Close() {
  if (closed_) return Status::OK();
  closed_ = true;
  env_.reset();
  Status st = binlog ? binlog->Close() : Status::OK();
  binlog.reset();
  std::error_code ec;
  fs::remove_all(options_.dir, ec);
  return st;
}

ExecWorld::~ExecWorld() { (void)Close(); }

}  // namespace sluice::exec
