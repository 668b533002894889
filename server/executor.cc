#include "server/executor.h"
#include "exec/result_set.h"
#include "exec/settings.h"
#include "exec/table_executor.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <unistd.h>

#include <fmt/format.h>

#include "acl/access_control.h"
#include "base/log.h"
#include "base/mysql_error.h"
#include "protocol/command.h"
#include "protocol/constants.h"
#include "protocol/response.h"
#include "protocol/wire.h"
#include "server/options.h"
#include "server/server.h"
#include "sql/parser.h"
#include "vars/core_status.h"
#include "vars/core_vars.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
namespace p = sluice::protocol;
using acl::Priv;
using exec::Outcome;
using exec::SessionContext;
using exec::TableExecutor;
using exec::Warning;

// ---------------------------------------------------------------------------
// Commands.

std::string OkPacketFor(const SessionState& ctx, uint16_t status, uint64_t affected, std::string info,
                        uint64_t last_insert_id) {
  p::OkPacket ok;
  ok.affected_rows = affected;
  ok.last_insert_id = last_insert_id;
  ok.status_flags = status;
  ok.warnings = ctx.warning_count();
  ok.info = std::move(info);
  return p::EncodeOk(ok, ctx.capabilities);
}

uint16_t Executor::StatusFlags(const SessionContext& ctx) const {
  uint16_t flags = 0;
  if (!ctx.vars || exec::Settings::Of(server_.sys_vars(), ctx).autocommit) flags |= p::SERVER_STATUS_AUTOCOMMIT;
  if (ctx.in_transaction || ctx.trx) flags |= p::SERVER_STATUS_IN_TRANS;
  return flags;
}


Status Executor::UseDatabase(SessionContext& ctx, const std::string& db) {
  return exec::UseDatabase(server_.exec_env(), ctx, db);
}

void Executor::InitSession(SessionState& ctx) {
  ctx.vars = std::make_unique<vars::SessionVariables>(server_.sys_vars().NewSession());
  ctx.status = std::make_shared<vars::SessionStatus>(server_.status_vars());
  SessionState* c = &ctx;
  ctx.vars->BindComputed("warning_count", [c] { return sql::Value::UInt(c->warnings.total()); });
  ctx.vars->BindComputed("error_count", [c] { return sql::Value::UInt(c->warnings.total_errors()); });
  ctx.vars->BindComputed("pseudo_thread_id", [c] { return sql::Value::UInt(c->connection_id); });
  ctx.vars->BindComputed("last_insert_id", [c] { return sql::Value::UInt(c->last_insert_id); });
  ctx.status->BindComputed("Ssl_version", [c] { return c->secure_transport ? std::string(c->tls_version) : std::string(); });
  ctx.status->BindComputed("Ssl_cipher", [c] { return c->secure_transport ? std::string(c->tls_cipher) : std::string(); });
  ctx.status->BindComputed("Bytes_received", [c] { return std::to_string(c->bytes_received); });
  ctx.status->BindComputed("Bytes_sent", [c] { return std::to_string(c->bytes_sent); });
  InitPreparedSession(ctx);
}

void Executor::EndSession(SessionState& ctx) {
  ctx.prepared.Clear();
  TableExecutor::EndSession(server_.exec_env(), ctx);
  if (ctx.status) {
    ctx.status->Add(server_.core_status().bytes_received, ctx.bytes_received);
    ctx.status->Add(server_.core_status().bytes_sent, ctx.bytes_sent);
    ctx.status->Flush();
  }
}

uint64_t Executor::GlobalUInt(std::string_view name, uint64_t fallback) const {
  auto v = server_.sys_vars().Get(name, vars::GetScope::kGlobal, nullptr);
  return v.ok() ? v->ToUInt() : fallback;
}

size_t Executor::MaxAllowedPacket(const SessionContext& ctx) const {
  return exec::Settings::Of(server_.sys_vars(), ctx).max_allowed_packet;
}
uint64_t Executor::ConnectTimeout() const {
  return GlobalUInt("connect_timeout", server_.options().connect_timeout);
}
uint64_t Executor::MaxConnections() const {
  return GlobalUInt("max_connections", server_.options().max_connections);
}
bool Executor::RequireSecureTransport() const {
  return GlobalUInt("require_secure_transport", server_.options().require_secure_transport) != 0;
}
uint64_t Executor::IdleTimeout(const SessionState& ctx) const {
  const exec::Settings& settings = exec::Settings::Of(server_.sys_vars(), ctx);
  return (ctx.capabilities & p::CLIENT_INTERACTIVE) ? settings.interactive_timeout : settings.wait_timeout;
}

uint64_t Executor::NetTimeout(const SessionContext& ctx, bool write) const {
  const exec::Settings& settings = exec::Settings::Of(server_.sys_vars(), ctx);
  return write ? settings.net_write_timeout : settings.net_read_timeout;
}

Status Executor::RegisterVariables() {
  const ServerOptions& o = server_.options();
  vars::CoreVariableDefaults d;
  d.version = kServerVersion;
  d.version_comment = kVersionComment;
  d.server_uuid = server_.server_uuid();
  char host[256] = {0};
  gethostname(host, sizeof(host) - 1);
  d.hostname = host;
  d.port = o.port;
  d.bind_address = o.bind_address;
  d.datadir = std::filesystem::absolute(o.datadir).lexically_normal().string();
  if (d.datadir.empty() || d.datadir.back() != '/') d.datadir += "/";
  d.log_error = o.log_error.empty() ? "stderr" : o.log_error;
  d.socket = o.socket;
  d.pid_file = o.pid_file;
  d.tmpdir = o.tmpdir;
  d.basedir = o.basedir;
  d.plugin_dir = o.plugin_dir;
  if (d.plugin_dir.empty()) {
    // Beside the binary: build/bin/sluiced -> build/plugin/.
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) d.plugin_dir = (exe.parent_path().parent_path() / "plugin").string() + "/";
  }
  d.have_ssl = server_.tls_context() != nullptr;
  if (!o.ssl_ca.empty()) d.ssl_ca = o.ssl_ca;
  if (!o.ssl_cert.empty()) d.ssl_cert = o.ssl_cert;
  if (!o.ssl_key.empty()) d.ssl_key = o.ssl_key;
  if (!o.ssl_cert.empty()) {
  } else {
    d.ssl_ca = "ca.pem";
    d.ssl_cert = "server-cert.pem";
    d.ssl_key = "server-key.pem";
  }
  // localtime_r holds glibc's time-zone lock; reading tzname directly
  // would race with the log thread's time formatting.
  time_t now = time(nullptr);
  struct tm local;
  localtime_r(&now, &local);
  d.system_time_zone = local.tm_zone ? local.tm_zone : "UTC";
  d.log_bin = !o.log_bin.empty();
  if (d.log_bin) d.log_bin_basename = d.datadir + o.log_bin;
  auto& sv = server_.sys_vars();
  SLUICE_RETURN_IF_ERROR(vars::RegisterCoreVariables(sv, d));
  std::vector<Status> warnings;
  auto set_start = [&](const char* name, const std::string& v) { return sv.SetStartupValue(name, v, &warnings); };
  SLUICE_RETURN_IF_ERROR(set_start("server_id", std::to_string(o.server_id)));
  SLUICE_RETURN_IF_ERROR(set_start("max_connections", std::to_string(o.max_connections)));
  SLUICE_RETURN_IF_ERROR(set_start("max_allowed_packet", std::to_string(o.max_allowed_packet)));
  SLUICE_RETURN_IF_ERROR(set_start("require_secure_transport", o.require_secure_transport ? "ON" : "OFF"));
  SLUICE_RETURN_IF_ERROR(set_start("connect_timeout", std::to_string(o.connect_timeout)));
  SLUICE_RETURN_IF_ERROR(set_start("wait_timeout", std::to_string(o.wait_timeout)));
  SLUICE_RETURN_IF_ERROR(set_start("thread_cache_size", std::to_string(o.thread_cache_size)));
  SLUICE_RETURN_IF_ERROR(set_start("default_authentication_plugin", o.default_authentication_plugin));
  SLUICE_RETURN_IF_ERROR(set_start("innodb_buffer_pool_size", std::to_string(o.innodb_buffer_pool_size)));
  SLUICE_RETURN_IF_ERROR(
      set_start("innodb_flush_log_at_trx_commit", std::to_string(o.innodb_flush_log_at_trx_commit)));
  for (const auto& [name, value] : o.variables) SLUICE_RETURN_IF_ERROR(set_start(name.c_str(), value));
  SLUICE_RETURN_IF_ERROR(ApplyMysqlOptions());
  SLUICE_RETURN_IF_ERROR(RegisterPreparedVariables());
  Status st = sv.LoadPersisted(o.datadir);
  if (!st.ok()) SLUICE_LOG_WARNING(server_.log(), 13183, "{}", st.message());
  return WireReadOnlySwitches();
}

Status Executor::ApplyMysqlOptions() {
  const ServerOptions& o = server_.options();
  auto& sv = server_.sys_vars();
  auto log = server_.log();
  for (const std::string& w : o.warnings) SLUICE_LOG_WARNING(log, 67, "{}", w);
  std::vector<Status> warnings;
  std::set<std::string> ignored;
  bool charset_given = false, collation_given = false;
  for (const auto& [option, value] : o.mysql_options) {
    // Options whose variable has another name.
    std::string var = option == "default_time_zone" ? "time_zone" : option;
    if (!sv.Exists(var)) {
      if (ignored.insert(option).second) {
        std::string shown = option;
        std::replace(shown.begin(), shown.end(), '_', '-');
        if (IsSluiceVariableName(option)) {
          SLUICE_LOG_WARNING(log, 0, "option '{}' names no sluice variable, nor one a plugin loaded at start declares; "
                             "ignored", shown);
        } else {
          SLUICE_LOG_WARNING(log, 0,
                             "option '{}' is a MySQL option that sluice accepts and ignores, unless a plugin loaded "
                             "at start declares it",
                             shown);
        }
      }
      continue;
    }
    Status st = sv.SetStartupValue(var, value, &warnings);
    if (!st.ok()) {
      std::string shown = option;
      std::replace(shown.begin(), shown.end(), '_', '-');
      return Status::InvalidArgument(fmt::format("option '{}': {}", shown, st.message()));
    }
    charset_given |= var == "character_set_server";
    collation_given |= var == "collation_server";
  }
  if (charset_given && !collation_given) {
    // character-set-server alone: its default collation, as mysqld.
    auto cs = sv.Get("character_set_server", vars::GetScope::kGlobal, nullptr);
    const std::string c = cs.ok() ? cs->ToString() : "utf8mb4";
    const char* coll = c == "utf8mb3"  ? "utf8mb3_general_ci"
                       : c == "latin1" ? "latin1_swedish_ci"
                       : c == "ascii"  ? "ascii_general_ci"
                       : c == "binary" ? "binary"
                                       : "utf8mb4_0900_ai_ci";
    SLUICE_RETURN_IF_ERROR(sv.SetStartupValue("collation_server", coll, &warnings));
  }
  for (const Status& w : warnings) SLUICE_LOG_WARNING(log, w.mysql_errno(), "{}", w.message());
  return Status::OK();
}

Status Executor::WireReadOnlySwitches() {
  auto& sv = server_.sys_vars();
  auto global_on = [&sv](const char* name) {
    auto v = sv.Get(name, vars::GetScope::kGlobal, nullptr);
    return v.ok() && v->ToInt() != 0;
  };
  std::vector<Status> warnings;
  // A start-up or persisted super_read_only=ON implies read_only=ON.
  if (global_on("super_read_only") && !global_on("read_only")) {
    SLUICE_RETURN_IF_ERROR(sv.SetStartupValue("read_only", "ON", &warnings));
  }
  exec::ReadOnlyMode& mode = server_.read_only_mode();
  mode.SetReadOnly(global_on("read_only"));
  mode.SetSuperReadOnly(global_on("super_read_only"));
  for (const bool super : {false, true}) {
    SLUICE_RETURN_IF_ERROR(sv.AddHooks(
        super ? "super_read_only" : "read_only", nullptr,
        [&mode, super](vars::SetScope scope, const sql::Value& v, vars::SessionVariables*) {
          if (scope == vars::SetScope::kGlobal || scope == vars::SetScope::kPersist) {
            super ? mode.SetSuperReadOnly(v.ToInt() != 0) : mode.SetReadOnly(v.ToInt() != 0);
          }
        }));
  }
  return Status::OK();
}

void Executor::Dispatch(SessionState& ctx, std::string_view packet, Response* out) {
  Response& r = *out;
  r.payloads.clear();
  r.close_connection = false;
  const uint8_t command = static_cast<uint8_t>(packet[0]);
  std::string_view body = packet.substr(1);
  server_.acl().RefreshIfChanged(&ctx.account, &ctx.acl_version);
  const auto& cs = server_.core_status();
  auto err = [&](const Status& st) { r.payloads.push_back(p::EncodeErr(st)); };
  auto need_repl_slave = [&]() {
    if (ctx.account && ctx.account->HasGlobal(Priv::kReplicationSlave)) return true;
    err(MakeError(er::kSpecificAccessDenied, "REPLICATION SLAVE"));
    return false;
  };
  switch (command) {
    case p::COM_PING:
      ctx.status->Add(cs.com_admin_commands);
      r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      break;
    case p::COM_INIT_DB: {
      ctx.status->Add(cs.com_change_db);
      Status st = UseDatabase(ctx, std::string(body));
      if (st.ok()) {
        ctx.warnings.clear();
        r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      } else {
        err(st);
      }
      break;
    }
    case p::COM_QUERY:
      Query(ctx, body, out);
      break;
    case p::COM_STMT_PREPARE:
      StmtPrepare(ctx, body, out);
      break;
    case p::COM_STMT_EXECUTE:
      StmtExecute(ctx, body, out);
      break;
    case p::COM_STMT_SEND_LONG_DATA:
      StmtSendLongData(ctx, body, out);
      break;
    case p::COM_STMT_CLOSE:
      StmtClose(ctx, body, out);
      break;
    case p::COM_STMT_RESET:
      StmtReset(ctx, body, out);
      break;
    case p::COM_STMT_FETCH:
      StmtFetch(ctx, body, out);
      break;
    case p::COM_STATISTICS: {
      ctx.status->Add(cs.com_admin_commands);
      auto uptime = std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::steady_clock::now() - server_.start_time()).count();
      auto q = server_.status_vars().Get("Questions", vars::StatusScope::kGlobal, nullptr);
      uint64_t questions = q.ok() ? std::strtoull(q->c_str(), nullptr, 10) : 0;
      r.payloads.push_back(fmt::format(
          "Uptime: {}  Threads: {}  Questions: {}  Slow queries: 0  Opens: 0  Flush tables: 1  "
          "Open tables: 0  Queries per second avg: {:.3f}",
          uptime, server_.session_count(), questions,
          uptime > 0 ? static_cast<double>(questions) / static_cast<double>(uptime) : 0.0));
      break;
    }
    case p::COM_PROCESS_KILL: {
      Result<uint32_t> id = p::ParseProcessKill(body);
      if (!id.ok()) {
        err(id.status());
        break;
      }
      std::string sql = "KILL " + std::to_string(id.value());
      Query(ctx, sql, out);
      break;
    }
    case p::COM_FIELD_LIST:
      // No tables exist yet, so every table is unknown.
      err(MakeError(er::kNoSuchTable, ctx.db.empty() ? "" : ctx.db, std::string(p::ParseFieldList(body).table)));
      break;
    case p::COM_SET_OPTION: {
      Result<uint16_t> option = p::ParseSetOption(body);
      if (!option.ok()) {
        err(option.status());
        break;
      }
      if (option.value() == 0) {
        ctx.capabilities |= p::CLIENT_MULTI_STATEMENTS;
      } else {
        ctx.capabilities &= ~p::CLIENT_MULTI_STATEMENTS;
      }
      r.payloads.push_back(p::EncodeEof(ctx.warning_count(), StatusFlags(ctx)));
      break;
    }
    case p::COM_RESET_CONNECTION:
      server_.exec_env().user_locks().ReleaseAll(ctx.connection_id);
      ctx.prepared.Clear();
      ctx.user_vars.clear();
      ctx.warnings.clear();
      ctx.last_insert_id = 0;
      ctx.in_transaction = false;
      ctx.vars = std::make_unique<vars::SessionVariables>(server_.sys_vars().NewSession());
      r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      break;
    case p::COM_REGISTER_SLAVE: {
      if (!need_repl_slave()) break;
      Result<p::RegisterReplica> reg = p::ParseRegisterReplica(body);
      if (!reg.ok()) {
        err(reg.status());
        break;
      }
      Server::ReplicaInfo info;
      info.server_id = reg->server_id;
      info.host = std::string(reg->host);
      info.port = reg->port;
      info.source_id = reg->source_id ? reg->source_id : static_cast<uint32_t>(GlobalUInt("server_id", 1));
      info.connection_id = ctx.connection_id;
      for (const char* key : {"replica_uuid", "slave_uuid"}) {
        auto it = ctx.user_vars.find(key);
        if (it != ctx.user_vars.end() && !it->second.is_null()) info.uuid = it->second.ToString();
      }
      server_.RegisterReplica(std::move(info));
      r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
      break;
    }
    // COM_BINLOG_DUMP and COM_BINLOG_DUMP_GTID never get here: the session
    // turns into a dump connection (Session::RunDump).
    default:
      err(MakeError(er::kUnknownCom));
      break;
  }
}

Outcome Executor::RunStatement(SessionContext& ctx, const sql::ParsedStatement& ps,
                               const std::vector<sql::Value>* params) {
  return exec::RunStatement(server_.exec_env(), ctx, ps, params, this);
}

sql::ParseOptions Executor::ParseOptionsFor(const SessionContext& ctx) const {
  sql::ParseOptions popts;
  const uint64_t mode = exec::Settings::Of(server_.sys_vars(), ctx).sql_mode;
  popts.lex.ansi_quotes = (mode & vars::sql_mode::kAnsiQuotes) != 0;
  popts.lex.no_backslash_escapes = (mode & vars::sql_mode::kNoBackslashEscapes) != 0;
  popts.pipes_as_concat = (mode & vars::sql_mode::kPipesAsConcat) != 0;
  return popts;
}


void Executor::Query(SessionState& ctx, std::string_view sql, Response* out) {
  Response& r = *out;
  const auto& cs = server_.core_status();
  ctx.status->Add(cs.questions);
  ctx.SetCommand("Query", sql, "executing");
  sql::Parser parser(sql, ParseOptionsFor(ctx));
  bool multi = (ctx.capabilities & p::CLIENT_MULTI_STATEMENTS) != 0;
  bool first = true;
  while (!parser.AtEnd()) {
    auto parsed = parser.Next();
    if (!parsed.ok()) {
      ctx.warnings.clear();
      ctx.warnings.push_back({Warning::Level::kError, parsed.status().mysql_errno(), parsed.status().message()});
      r.payloads.push_back(p::EncodeErr(parsed.status()));
      break;
    }
    if (!first && !multi) {
      // Without CLIENT_MULTI_STATEMENTS a second statement is a syntax error
      // at its start, as MySQL reports it.
      Status st = MakeError(er::kParse, std::string(sql.substr(parsed->begin, 80)), 1);
      r.payloads.push_back(p::EncodeErr(st));
      break;
    }
    first = false;
    ctx.status->Add(cs.queries);
    const sql::Stmt& st = *parsed->stmt;
    bool keeps_diagnostics = st.kind == sql::StmtKind::kShow &&
                             (st.As<sql::ShowStmt>().what == sql::ShowKind::kWarnings ||
                              st.As<sql::ShowStmt>().what == sql::ShowKind::kErrors);
    bool reads_diagnostics = false;
    if (!keeps_diagnostics) {
      // SELECT @@warning_count reads the previous statement's count.
      reads_diagnostics = st.kind == sql::StmtKind::kSelect &&
                          parsed->text.find("_count") != std::string_view::npos;
      if (!reads_diagnostics) ctx.warnings.clear();
    }
    if (parser.AtEnd()) {
      // The last statement's text runs to the end of the query, trailing
      // comments included (/*! ENGINE = InnoDB */): the binlog logs DDL as
      // the client sent it, as MySQL does.
      size_t end = sql.size();
      while (end > parsed->begin && (sql[end - 1] == ';' || sql[end - 1] == '\0' ||
                                     std::isspace(static_cast<unsigned char>(sql[end - 1])))) {
        --end;
      }
      if (end > parsed->end) parsed->text = sql.substr(parsed->begin, end - parsed->begin);
    }
    Outcome o = RunStatement(ctx, parsed.value(), nullptr);
    if (reads_diagnostics) ctx.warnings.clear();
    if (!o.error.ok()) {
      if (!o.close_connection) {
        ctx.warnings.push_back({Warning::Level::kError, o.error.mysql_errno(), o.error.message()});
      }
      r.payloads.push_back(p::EncodeErr(o.error));
      r.close_connection = o.close_connection;
      break;
    }
    uint16_t flags = StatusFlags(ctx);
    if (!parser.AtEnd()) flags |= p::SERVER_MORE_RESULTS_EXISTS;
    if (o.result) {
      // SHOW WARNINGS shows the diagnostics; it does not add to them.
      uint16_t warnings = keeps_diagnostics ? 0 : ctx.warning_count();
      p::AppendTextResultSet(o.result->columns, o.result->rows, ctx.capabilities, flags, warnings, &r.payloads);
      ctx.row_count = -1;
    } else {
      r.payloads.push_back(OkPacketFor(ctx, flags, o.affected_rows, o.info, o.last_insert_id));
      ctx.row_count = static_cast<int64_t>(o.affected_rows);
    }
    if (o.close_connection) {
      r.close_connection = true;
      break;
    }
  }
  ctx.SetCommand("Sleep", "");
}

}  // namespace sluice::server
