#include "exec/session_binlog.h"

#include <algorithm>
#include <chrono>

#include "base/log.h"
#include "base/mysql_error.h"
#include "base/scratch.h"
#include "exec/exec_env.h"
#include "exec/session_context.h"
#include "exec/settings.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

uint32_t BinlogTimestamp() {
  return static_cast<uint32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

namespace {

// SET sql_log_bin = 0: the session's changes stay out of the binlog (and
// so get no GTID). It cannot change inside a transaction (the executor
// refuses with 1694), so testing it at the transaction's first event and
// at each DDL is enough.
bool SqlLogBinOff(const ExecEnv& env, SessionContext& ctx) { return !Settings::Of(env.sys_vars(), ctx).sql_log_bin; }

binlog::QueryInfo BaseQuery(const ExecEnv& env, SessionContext& ctx) {
  binlog::QueryInfo q;
  q.thread_id = ctx.connection_id;
  q.db = ctx.db;
  const Settings& settings = Settings::Of(env.sys_vars(), ctx);
  q.sql_mode = settings.sql_mode;
  if (!settings.autocommit) q.flags2 |= 0x80000;  // OPTION_NOT_AUTOCOMMIT
  if (!settings.foreign_key_checks) q.flags2 |= 0x4000000;  // OPTION_NO_FOREIGN_KEY_CHECKS
  q.charset_client = settings.collation_connection;
  if (q.charset_client == 0) q.charset_client = ctx.collation;
  q.collation_connection = q.charset_client;
  q.collation_server = settings.collation_server;
  if (q.collation_server == 0) q.collation_server = 255;
  q.time_zone = settings.time_zone;
  return q;
}

binlog::EventHeader Header(const ExecEnv& env, uint8_t type) {
  binlog::EventHeader h;
  h.timestamp = BinlogTimestamp();
  h.type = type;
  h.server_id = env.binlog()->server_id();
  return h;
}

binlog::RowImage SessionRowImage(const ExecEnv& env, SessionContext& ctx) {
  return Settings::Of(env.sys_vars(), ctx).row_image;
}

// The cache's events are built without a CRC: the flush computes each one
// as it patches the event's log_pos (TransactionCache::AppendWithoutCrc).
constexpr binlog::Checksum kNoCrc = binlog::Checksum::kOff;

binlog::RowMetadata RowMetadataSetting(const ExecEnv& env, SessionContext& ctx) {
  return Settings::Of(env.sys_vars(), ctx).row_metadata;
}

}  // namespace

BinlogCacheCounters& GlobalBinlogCacheCounters() {
  static BinlogCacheCounters counters;
  return counters;
}

template <typename Encode>
Status SessionBinlog::AppendEvent(Encode&& encode) {
  encode(event_);
  Status s = cache_.AppendWithoutCrc(event_);
  ClearScratch(event_);  // a long statement's Query event is not kept
  return s;
}

Status SessionBinlog::LogRow(const ExecEnv& env, SessionContext& ctx, const storage::TableDef& table, RowKind kind,
                             const storage::Row* before, const storage::Row* after) {
  binlog::Binlog* bl = env.binlog();
  if (bl == nullptr) return Status::OK();
  if (cache_.empty() && !building_) {
    if (SqlLogBinOff(env, ctx)) return Status::OK();
    // The transaction's first event: settings are taken now, and BEGIN.
    const Settings& settings = Settings::Of(env.sys_vars(), ctx);
    cache_.set_limits(settings.binlog_cache_size, settings.max_binlog_cache_size);
    cache_.set_temp_files(&bl->file_system(), bl->cache_temp_dir());
    cache_.set_checksum(bl->checksum());
    binlog::QueryInfo q = BaseQuery(env, ctx);
    q.db.clear();
    q.query = "BEGIN";
    SLUICE_RETURN_IF_ERROR(AppendEvent(
        [&](std::string& out) { binlog::AppendQuery(out, Header(env, binlog::kQueryEvent), q, kNoCrc); }));
  }
  const uint8_t type = kind == RowKind::kWrite    ? binlog::kWriteRowsEvent
                       : kind == RowKind::kUpdate ? binlog::kUpdateRowsEvent
                                                  : binlog::kDeleteRowsEvent;
  if (building_ && (builder_->table_id() != table.id || builder_->type() != type)) {
    SLUICE_RETURN_IF_ERROR(FlushPending(/*stmt_end=*/false));
  }
  if (!building_) {
    if (std::find(mapped_.begin(), mapped_.end(), table.id) == mapped_.end()) {
      mapped_.push_back(table.id);
      SLUICE_RETURN_IF_ERROR(AppendEvent([&](std::string& out) {
        binlog::AppendTableMap(out, Header(env, binlog::kTableMapEvent), table.id, table,
                               RowMetadataSetting(env, ctx), kNoCrc);
      }));
    }
    if (builder_) {
      builder_->Reset(Header(env, type), type, table.id, table, SessionRowImage(env, ctx), kNoCrc);
    } else {
      builder_.emplace(Header(env, type), type, table.id, table, SessionRowImage(env, ctx), kNoCrc);
    }
    building_ = true;
    builder_->set_no_foreign_key_checks(!Settings::Of(env.sys_vars(), ctx).foreign_key_checks);
  }
  // Only the table's own columns are logged (a hidden row id may trail).
  SLUICE_RETURN_IF_ERROR(builder_->AddStoredRow(before, after));
  return AppendFinished();
}

Status SessionBinlog::AppendFinished() {
  Status s;
  for (const std::string& ev : builder_->finished()) {
    s = cache_.AppendWithoutCrc(ev);
    if (!s.ok()) break;
  }
  builder_->ClearFinished();
  return s;
}

Status SessionBinlog::FlushPending(bool stmt_end) {
  if (!building_) return Status::OK();
  builder_->FinishStatement(stmt_end);
  building_ = false;
  return AppendFinished();
}

Status SessionBinlog::EndStatement() {
  Status s = FlushPending(/*stmt_end=*/true);
  mapped_.clear();
  return s;
}

uint64_t SessionBinlog::Mark() { return cache_.size(); }

Status SessionBinlog::RollbackTo(uint64_t mark) {
  building_ = false;
  mapped_.clear();
  // Back to an empty transaction also drops BEGIN: nothing is left.
  return cache_.Truncate(mark);
}

void SessionBinlog::Clear() {
  building_ = false;
  mapped_.clear();
  cache_.Clear();
}

Status SessionBinlog::Seal() { return FlushPending(/*stmt_end=*/true); }

Status SessionBinlog::AppendXid(const ExecEnv& env, uint64_t xid) {
  return AppendEvent([&](std::string& out) { binlog::AppendXid(out, Header(env, binlog::kXidEvent), xid, kNoCrc); });
}

void SessionBinlog::CountCacheUse() const {
  BinlogCacheCounters& counters = GlobalBinlogCacheCounters();
  counters.cache_use.fetch_add(1, std::memory_order_relaxed);
  if (cache_.spilled()) counters.cache_disk_use.fetch_add(1, std::memory_order_relaxed);
}

Result<std::unique_ptr<binlog::TransactionCache>> SessionBinlog::DdlEvents(const ExecEnv& env, SessionContext& ctx,
                                                                           std::string_view query) {
  binlog::Binlog* bl = env.binlog();
  if (bl == nullptr || SqlLogBinOff(env, ctx)) return std::unique_ptr<binlog::TransactionCache>();
  auto cache = std::make_unique<binlog::TransactionCache>();
  cache->set_temp_files(&bl->file_system(), bl->cache_temp_dir());
  cache->set_checksum(bl->checksum());
  cache->set_has_statements(true);
  binlog::QueryInfo q = BaseQuery(env, ctx);
  q.query = std::string(query);
  q.ddl = true;
  SLUICE_RETURN_IF_ERROR(cache->AppendWithoutCrc(binlog::EncodeQuery(Header(env, binlog::kQueryEvent), q, kNoCrc)));
  return cache;
}

}  // namespace sluice::exec
