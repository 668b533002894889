#include "exec/settings.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "exec/session_context.h"
#include "sql/lexer.h"
#include "vars/core_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

bool Settings::strict() const {
  return (sql_mode & (vars::sql_mode::kStrictTransTables | vars::sql_mode::kStrictAllTables)) != 0;
}

Settings Settings::Read(const vars::SystemVariables& vars, const vars::SessionVariables* session) {
  constexpr auto kSession = vars::GetScope::kSession;
  Settings s;
  if (auto v = vars.GetFlags("autocommit", kSession, session); v.ok()) s.autocommit = *v != 0;
  if (auto v = vars.GetFlags("sql_mode", kSession, session); v.ok()) {
    s.sql_mode = *v;
  } else {
    s.sql_mode = vars::sql_mode::kStrictTransTables;  // unreadable: strict, as MySQL's default
  }
  if (auto v = vars.Get("transaction_isolation", kSession, session); v.ok()) {
    const std::string level = v->ToString();
    if (level == "READ-UNCOMMITTED") s.isolation = storage::IsolationLevel::kReadUncommitted;
    if (level == "READ-COMMITTED") s.isolation = storage::IsolationLevel::kReadCommitted;
    if (level == "SERIALIZABLE") s.isolation = storage::IsolationLevel::kSerializable;
  }
  if (auto v = vars.GetFlags("lock_wait_timeout", kSession, session); v.ok()) {
    s.lock_wait_timeout = std::chrono::seconds(std::min<uint64_t>(*v, 31536000));
  }
  if (auto v = vars.GetFlags("innodb_lock_wait_timeout", kSession, session); v.ok()) {
    s.has_innodb_lock_wait_timeout = true;
    s.innodb_lock_wait_timeout = std::chrono::milliseconds(*v * 1000);
  }
  if (auto v = vars.GetFlags("sql_log_bin", kSession, session); v.ok()) s.sql_log_bin = *v != 0;
  if (auto v = vars.GetFlags("foreign_key_checks", kSession, session); v.ok()) s.foreign_key_checks = *v != 0;
  if (auto v = vars.Get("binlog_row_image", kSession, session); v.ok()) {
    const std::string image = v->ToString();
    if (sql::EqualsIgnoreCase(image, "MINIMAL")) s.row_image = binlog::RowImage::kMinimal;
    if (sql::EqualsIgnoreCase(image, "NOBLOB")) s.row_image = binlog::RowImage::kNoBlob;
  }
  if (auto v = vars.GetFlags("max_execution_time", kSession, session); v.ok()) {
    s.max_execution_time = std::chrono::milliseconds(*v);
  }
  if (auto v = vars.GetFlags("max_error_count", kSession, session); v.ok()) s.max_error_count = *v;
  if (auto v = vars.GetFlags("sql_notes", kSession, session); v.ok()) s.sql_notes = *v != 0;
  auto seconds = [&](std::string_view name, uint64_t* out) {
    if (auto v = vars.GetFlags(name, kSession, session); v.ok()) *out = std::max<uint64_t>(1, *v);
  };
  seconds("net_read_timeout", &s.net_read_timeout);
  seconds("net_write_timeout", &s.net_write_timeout);
  seconds("wait_timeout", &s.wait_timeout);
  seconds("interactive_timeout", &s.interactive_timeout);
  if (auto v = vars.Get("collation_connection", kSession, session); v.ok()) {
    s.collation_connection = binlog::CollationId(v->ToString());
  }
  if (auto v = vars.Get("collation_server", kSession, session); v.ok()) {
    s.collation_server = binlog::CollationId(v->ToString());
  }
  if (auto v = vars.Get("time_zone", kSession, session); v.ok()) {
    s.time_zone = v->ToString();
    if (sql::EqualsIgnoreCase(s.time_zone, "SYSTEM")) s.time_zone.clear();
  }
  constexpr auto kGlobal = vars::GetScope::kGlobal;
  if (auto v = vars.GetFlags("max_allowed_packet", kGlobal, nullptr); v.ok()) s.max_allowed_packet = *v;
  if (auto v = vars.GetFlags("binlog_cache_size", kGlobal, nullptr); v.ok()) s.binlog_cache_size = *v;
  if (auto v = vars.GetFlags("max_binlog_cache_size", kGlobal, nullptr); v.ok()) s.max_binlog_cache_size = *v;
  if (auto v = vars.Get("binlog_row_metadata", kGlobal, nullptr); v.ok() && sql::EqualsIgnoreCase(v->ToString(), "FULL")) {
    s.row_metadata = binlog::RowMetadata::kFull;
  }
  if (session != nullptr) {
    if (std::optional<sql::Value> own = session->OwnValue("timestamp"); own && own->ToDouble() > 0) {
      const auto micros = static_cast<int64_t>(std::llround(own->ToDouble() * 1e6));
      s.fixed_time = std::chrono::system_clock::time_point(std::chrono::microseconds(micros));
    }
  }
  return s;
}

const Settings& Settings::Of(const vars::SystemVariables& vars, const SessionContext& ctx) {
  const uint64_t version = ctx.vars ? ctx.vars->version() : 0;
  const uint64_t globals = vars.globals_version();
  if (version == 0 || version != ctx.settings_version || globals != ctx.settings_globals_version) {
    ctx.settings = Read(vars, ctx.vars.get());
    ctx.settings_version = version;
    ctx.settings_globals_version = globals;
  }
  return ctx.settings;
}

}  // namespace sluice::exec
