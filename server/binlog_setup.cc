// Server start-up and shutdown of the binary log, its system and status
// variables. (Part of Server; kept apart from server.cc.)
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "base/io/write_file_atomically.h"
#include "base/log.h"
#include "binlog/binlog.h"
#include "exec/session_binlog.h"
#include "server/rpl/delegates.h"
#include "server/server.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
using exec::GlobalBinlogCacheCounters;

namespace {

sql::Value GlobalVar(vars::SystemVariables& sv, std::string_view name) {
  auto v = sv.Get(name, vars::GetScope::kGlobal, nullptr);
  return v.ok() ? *v : sql::Value::Null();
}

bool GtidModeOn(const std::string& mode) {
  return sql::EqualsIgnoreCase(mode, "ON") || sql::EqualsIgnoreCase(mode, "ON_PERMISSIVE");
}

binlog::Checksum ChecksumOf(const std::string& v) {
  return sql::EqualsIgnoreCase(v, "NONE") ? binlog::Checksum::kOff : binlog::Checksum::kCrc32;
}

}  // namespace

namespace {
// The binlog group leader flushes the engine's redo for its group.
class EngineRedoFlush final : public binlog::EngineFlush {
 public:
  explicit EngineRedoFlush(storage::Engine& engine) : engine_(engine) {}
  Status FlushUpTo(uint64_t mark) override { return engine_.FlushLogUpTo(mark); }

 private:
  storage::Engine& engine_;
};
}  // namespace

Status Server::OpenBinlog() {
  SLUICE_RETURN_IF_ERROR(RegisterBinlogVariables());
  if (options_.log_bin.empty()) return Status::OK();
  vars::SystemVariables& sv = *sys_vars_;
  binlog::Binlog::Options bo;
  std::filesystem::path base(options_.log_bin);
  bo.dir = base.has_parent_path() ? (std::filesystem::path(options_.datadir) / base.parent_path()).string()
                                  : options_.datadir;
  bo.basename = base.filename().string();
  bo.server_id = static_cast<uint32_t>(GlobalVar(sv, "server_id").ToUInt());
  Result<binlog::Uuid> uuid = binlog::Uuid::Parse(server_uuid_);
  if (!uuid.ok()) return Status::Corruption("server_uuid '" + server_uuid_ + "' is not a UUID");
  bo.server_uuid = *uuid;
  bo.server_version = kServerVersion;
  bo.gtid_mode = GtidModeOn(GlobalVar(sv, "gtid_mode").ToString());
  bo.checksum = ChecksumOf(GlobalVar(sv, "binlog_checksum").ToString());
  bo.max_size = GlobalVar(sv, "max_binlog_size").ToUInt();
  bo.sync_binlog = static_cast<uint32_t>(GlobalVar(sv, "sync_binlog").ToUInt());
  bo.expire_seconds = GlobalVar(sv, "binlog_expire_logs_seconds").ToUInt();
  bo.fs = fs_.get();
  bo.cache_temp_dir = options_.tmpdir;
  // The directory of --log-bin=dir/name, with its parents; a failure shows
  // when the binlog opens there.
  (void)io::CreateDirectories(*fs_, bo.dir);

  binlog::Binlog::RecoveryInfo ri;
  auto opened = binlog::Binlog::Open(bo, &ri);
  if (!opened.ok()) return opened.status();
  binlog_ = std::move(opened).value();

  // Crash recovery: a transaction prepared in the engine commits when its
  // Xid reached the binlog, and rolls back otherwise.
  uint64_t committed = 0, rolled_back = 0;
  for (const std::string& xid : engine_->RecoveredPrepared()) {
    uint64_t n = 0;
    bool numeric = !xid.empty() && std::all_of(xid.begin(), xid.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (numeric) n = std::stoull(xid);
    Status s;
    if (numeric && ri.xids.count(n)) {
      s = engine_->CommitByXid(xid);
      ++committed;
    } else {
      s = engine_->RollbackByXid(xid);
      ++rolled_back;
    }
    SLUICE_RETURN_IF_ERROR(s);
  }
  if (ri.crashed || committed > 0 || rolled_back > 0 || ri.truncated_bytes > 0) {
    SLUICE_LOG_SYSTEM(log_, 13052,
                      "Binlog recovery of '{}': {} prepared transactions committed, {} rolled back, {} bytes of "
                      "an incomplete transaction truncated",
                      ri.last_file, committed, rolled_back, ri.truncated_bytes);
  }
  SLUICE_RETURN_IF_ERROR(binlog_->StartWriting());
  binlog_->set_hooks(replication_.get());
  engine_flush_ = std::make_unique<EngineRedoFlush>(*engine_);
  binlog_->set_engine_flush(engine_flush_.get());
  replication_->set_binlog(binlog_.get());

  // Run-time changes of the binlog's variables.
  binlog::Binlog* bl = binlog_.get();
  auto global = [](vars::SetScope scope) {
    return scope == vars::SetScope::kGlobal || scope == vars::SetScope::kPersist;
  };
  SLUICE_RETURN_IF_ERROR(sv.AddHooks("sync_binlog", nullptr,
                                     [bl, global](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
                                       if (global(scope)) bl->set_sync_binlog(static_cast<uint32_t>(v.ToUInt()));
                                     }));
  SLUICE_RETURN_IF_ERROR(sv.AddHooks("max_binlog_size", nullptr,
                                     [bl, global](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
                                       if (global(scope)) bl->set_max_size(v.ToUInt());
                                     }));
  SLUICE_RETURN_IF_ERROR(sv.AddHooks("binlog_expire_logs_seconds", nullptr,
                                     [bl, global](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
                                       if (global(scope)) bl->set_expire_seconds(v.ToUInt());
                                     }));
  SLUICE_RETURN_IF_ERROR(sv.AddHooks("server_id", nullptr,
                                     [bl, global](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
                                       if (global(scope)) bl->set_server_id(static_cast<uint32_t>(v.ToUInt()));
                                     }));
  SLUICE_RETURN_IF_ERROR(sv.AddHooks("gtid_mode", nullptr,
                                     [bl, global](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
                                       if (global(scope)) bl->set_gtid_mode(GtidModeOn(v.ToString()));
                                     }));
  auto log = log_;
  SLUICE_RETURN_IF_ERROR(sv.AddHooks(
      "binlog_checksum", nullptr, [bl, global, log](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
        if (!global(scope)) return;
        Status s = bl->SetChecksum(ChecksumOf(v.ToString()));
        if (!s.ok()) SLUICE_LOG_ERROR(log, 0, "binlog rotation for binlog_checksum failed: {}", s.ToString());
      }));
  return Status::OK();
}

Status Server::RegisterBinlogVariables() {
  using S = vars::VariableSpec;
  const vars::VarScope kG = vars::VarScope::kGlobal;
  SLUICE_RETURN_IF_ERROR(sys_vars_->Register(
      S::String("gtid_executed", kG, "",
                "The GTIDs of every transaction this server has logged (its binary log, purged "
                "files included).")
          .ReadOnly()
          .NotPersistable()
          .Getter([this](const vars::SessionVariables*) {
            return sql::Value::String(binlog_ ? binlog_->gtid_executed().ToString() : std::string());
          })));
  SLUICE_RETURN_IF_ERROR(sys_vars_->Register(
      S::String("gtid_purged", kG, "",
                "The GTIDs of transactions whose binary log files have been purged.")
          .ReadOnly()
          .NotPersistable()
          .Getter([this](const vars::SessionVariables*) {
            return sql::Value::String(binlog_ ? binlog_->gtid_purged().ToString() : std::string());
          })));
  auto counter = [this](std::string name, std::string help, std::function<uint64_t()> f) {
    return status_vars_->RegisterProvider(std::move(name), std::move(help),
                                          [f](const vars::SessionStatus*) { return std::to_string(f()); });
  };
  SLUICE_RETURN_IF_ERROR(counter("Binlog_cache_use", "Transactions that used the binary log cache", [] {
    return GlobalBinlogCacheCounters().cache_use.load(std::memory_order_relaxed);
  }));
  SLUICE_RETURN_IF_ERROR(counter("Binlog_cache_disk_use",
                                 "Transactions whose binary log cache spilled to a temporary file", [] {
                                   return GlobalBinlogCacheCounters().cache_disk_use.load(std::memory_order_relaxed);
                                 }));
  SLUICE_RETURN_IF_ERROR(counter("Binlog_commits", "Transactions written to the binary log",
                                 [this] { return binlog_ ? binlog_->stats().commits : 0; }));
  SLUICE_RETURN_IF_ERROR(counter("Binlog_group_commits", "Commit groups written to the binary log",
                                 [this] { return binlog_ ? binlog_->stats().groups : 0; }));
  SLUICE_RETURN_IF_ERROR(counter("Binlog_fsyncs", "fsyncs of the binary log (commits per fsync = Binlog_commits / this)",
                                 [this] { return binlog_ ? binlog_->stats().syncs : 0; }));
  return Status::OK();
}

}  // namespace sluice::server
