#include "exec/session_binlog.h"

#include <chrono>

#include "base/log.h"
#include "base/mysql_error.h"
#include "exec/exec_env.h"
#include "exec/session_context.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

namespace {

uint32_t NowSeconds() {
  return static_cast<uint32_t>(
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
}

std::string Var(const ExecEnv& env, SessionContext& ctx, std::string_view name, vars::GetScope scope) {
  auto v = env.sys_vars().Get(name, scope, scope == vars::GetScope::kSession ? ctx.vars.get() : nullptr);
  return v.ok() ? v->ToString() : std::string();
}

uint64_t VarUInt(const ExecEnv& env, std::string_view name, uint64_t fallback) {
  auto v = env.sys_vars().Get(name, vars::GetScope::kGlobal, nullptr);
  return v.ok() ? v->ToUInt() : fallback;
}

// MySQL's sql_mode bits (Query events carry them).
// SET sql_log_bin = 0: the session's changes stay out of the binlog (and
// so get no GTID). It cannot change inside a transaction (the executor
// refuses with 1694), so testing it at the transaction's first event and
// at each DDL is enough.
bool SqlLogBinOff(const ExecEnv& env, SessionContext& ctx) {
  auto v = env.sys_vars().Get("sql_log_bin", vars::GetScope::kSession, ctx.vars.get());
  return v.ok() && v->ToInt() == 0;
}

uint64_t SqlModeBits(std::string_view modes) {
  static const std::pair<std::string_view, uint64_t> kBits[] = {
      {"REAL_AS_FLOAT", 0x1},
      {"PIPES_AS_CONCAT", 0x2},
      {"ANSI_QUOTES", 0x4},
      {"IGNORE_SPACE", 0x8},
      {"ONLY_FULL_GROUP_BY", 0x20},
      {"NO_UNSIGNED_SUBTRACTION", 0x40},
      {"NO_DIR_IN_CREATE", 0x80},
      {"ANSI", 0x40000},
      {"NO_AUTO_VALUE_ON_ZERO", 0x80000},
      {"NO_BACKSLASH_ESCAPES", 0x100000},
      {"STRICT_TRANS_TABLES", 0x200000},
      {"STRICT_ALL_TABLES", 0x400000},
      {"NO_ZERO_IN_DATE", 0x800000},
      {"NO_ZERO_DATE", 0x1000000},
      {"ALLOW_INVALID_DATES", 0x2000000},
      {"ERROR_FOR_DIVISION_BY_ZERO", 0x4000000},
      {"TRADITIONAL", 0x8000000},
      {"HIGH_NOT_PRECEDENCE", 0x20000000},
      {"NO_ENGINE_SUBSTITUTION", 0x40000000},
      {"PAD_CHAR_TO_FULL_LENGTH", 0x80000000},
      {"TIME_TRUNCATE_FRACTIONAL", 0x100000000},
  };
  uint64_t bits = 0;
  size_t start = 0;
  while (start <= modes.size()) {
    size_t comma = modes.find(',', start);
    std::string_view m = modes.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    for (const auto& [name, bit] : kBits) {
      if (sql::EqualsIgnoreCase(m, name)) bits |= bit;
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return bits;
}

binlog::QueryInfo BaseQuery(const ExecEnv& env, SessionContext& ctx) {
  binlog::QueryInfo q;
  q.thread_id = ctx.connection_id;
  q.db = ctx.db;
  q.sql_mode = SqlModeBits(Var(env, ctx, "sql_mode", vars::GetScope::kSession));
  auto autocommit = env.sys_vars().Get("autocommit", vars::GetScope::kSession, ctx.vars.get());
  if (autocommit.ok() && autocommit->ToInt() == 0) q.flags2 |= 0x80000;  // OPTION_NOT_AUTOCOMMIT
  q.charset_client = binlog::CollationId(Var(env, ctx, "collation_connection", vars::GetScope::kSession));
  if (q.charset_client == 0) q.charset_client = ctx.collation;
  q.collation_connection = q.charset_client;
  q.collation_server = binlog::CollationId(Var(env, ctx, "collation_server", vars::GetScope::kSession));
  if (q.collation_server == 0) q.collation_server = 255;
  std::string tz = Var(env, ctx, "time_zone", vars::GetScope::kSession);
  if (!tz.empty() && !sql::EqualsIgnoreCase(tz, "SYSTEM")) q.time_zone = tz;
  return q;
}

binlog::EventHeader Header(const ExecEnv& env, uint8_t type) {
  binlog::EventHeader h;
  h.timestamp = NowSeconds();
  h.type = type;
  h.server_id = env.binlog()->server_id();
  return h;
}

binlog::RowImage SessionRowImage(const ExecEnv& env, SessionContext& ctx) {
  std::string v = Var(env, ctx, "binlog_row_image", vars::GetScope::kSession);
  if (sql::EqualsIgnoreCase(v, "MINIMAL")) return binlog::RowImage::kMinimal;
  if (sql::EqualsIgnoreCase(v, "NOBLOB")) return binlog::RowImage::kNoBlob;
  return binlog::RowImage::kFull;
}

binlog::RowMetadata RowMetadataSetting(const ExecEnv& env, SessionContext& ctx) {
  return sql::EqualsIgnoreCase(Var(env, ctx, "binlog_row_metadata", vars::GetScope::kGlobal), "FULL")
             ? binlog::RowMetadata::kFull
             : binlog::RowMetadata::kMinimal;
}

}  // namespace

BinlogCacheCounters& GlobalBinlogCacheCounters() {
  static BinlogCacheCounters counters;
  return counters;
}

Status SessionBinlog::Append(const ExecEnv& env, SessionContext& ctx, std::string_view event) {
  return cache_.Append(event);
}

Status SessionBinlog::LogRow(const ExecEnv& env, SessionContext& ctx, const storage::TableDef& table, RowKind kind,
                             const storage::Row* before, const storage::Row* after) {
  binlog::Binlog* bl = env.binlog();
  if (bl == nullptr) return Status::OK();
  if (cache_.empty() && builder_ == nullptr) {
    if (SqlLogBinOff(env, ctx)) return Status::OK();
    // The transaction's first event: settings are taken now, and BEGIN.
    cache_.set_limits(VarUInt(env, "binlog_cache_size", 32768), VarUInt(env, "max_binlog_cache_size", UINT64_MAX));
    cache_.set_checksum(bl->checksum());
    binlog::QueryInfo q = BaseQuery(env, ctx);
    q.db.clear();
    q.query = "BEGIN";
    SLUICE_RETURN_IF_ERROR(cache_.Append(binlog::EncodeQuery(Header(env, binlog::kQueryEvent), q, cache_.checksum())));
  }
  const uint8_t type = kind == RowKind::kWrite    ? binlog::kWriteRowsEvent
                       : kind == RowKind::kUpdate ? binlog::kUpdateRowsEvent
                                                  : binlog::kDeleteRowsEvent;
  if (builder_ != nullptr && (builder_->table_id() != table.id || builder_->type() != type)) {
    SLUICE_RETURN_IF_ERROR(FlushPending(/*stmt_end=*/false));
  }
  if (builder_ == nullptr) {
    if (mapped_.insert(table.id).second) {
      SLUICE_RETURN_IF_ERROR(cache_.Append(binlog::EncodeTableMap(Header(env, binlog::kTableMapEvent), table.id,
                                                                   table, RowMetadataSetting(env, ctx),
                                                                   cache_.checksum())));
    }
    builder_ = std::make_unique<binlog::RowsEventBuilder>(Header(env, type), type, table.id, table,
                                                          SessionRowImage(env, ctx), cache_.checksum());
  }
  // Only the table's own columns (a hidden row id may trail).
  const size_t n = table.columns.size();
  storage::Row b, a;
  if (before != nullptr) b.assign(before->begin(), before->begin() + static_cast<long>(std::min(n, before->size())));
  if (after != nullptr) a.assign(after->begin(), after->begin() + static_cast<long>(std::min(n, after->size())));
  SLUICE_RETURN_IF_ERROR(builder_->AddRow(before != nullptr ? &b : nullptr, after != nullptr ? &a : nullptr));
  for (const std::string& ev : builder_->TakeFinished()) SLUICE_RETURN_IF_ERROR(cache_.Append(ev));
  return Status::OK();
}

Status SessionBinlog::FlushPending(bool stmt_end) {
  if (builder_ == nullptr) return Status::OK();
  std::vector<std::string> events = builder_->Finish(stmt_end);
  builder_.reset();
  for (const std::string& ev : events) SLUICE_RETURN_IF_ERROR(cache_.Append(ev));
  return Status::OK();
}

Status SessionBinlog::EndStatement() {
  Status s = FlushPending(/*stmt_end=*/true);
  mapped_.clear();
  return s;
}

uint64_t SessionBinlog::Mark() { return cache_.size(); }

Status SessionBinlog::RollbackTo(uint64_t mark) {
  builder_.reset();
  mapped_.clear();
  // Back to an empty transaction also drops BEGIN: nothing is left.
  return cache_.Truncate(mark);
}

void SessionBinlog::Clear() {
  builder_.reset();
  mapped_.clear();
  cache_.Clear();
}

Status SessionBinlog::Seal() { return FlushPending(/*stmt_end=*/true); }

Status SessionBinlog::AppendXid(const ExecEnv& env, uint64_t xid) {
  return cache_.Append(binlog::EncodeXid(Header(env, binlog::kXidEvent), xid, cache_.checksum()));
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
  cache->set_checksum(bl->checksum());
  cache->set_has_statements(true);
  binlog::QueryInfo q = BaseQuery(env, ctx);
  q.query = std::string(query);
  q.ddl = true;
  SLUICE_RETURN_IF_ERROR(cache->Append(binlog::EncodeQuery(Header(env, binlog::kQueryEvent), q, cache->checksum())));
  return cache;
}

}  // namespace sluice::exec
