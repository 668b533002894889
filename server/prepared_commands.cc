// server/prepared_commands.cc
//
// Prepared statements: the per-session store, and the Executor members for
// COM_STMT_PREPARE / EXECUTE / SEND_LONG_DATA / CLOSE / RESET / FETCH and
// SQL PREPARE / EXECUTE / DEALLOCATE PREPARE. A prepared statement runs
// through Executor::RunStatement, the path COM_QUERY takes, with its
// parameter values bound to the '?'s; COM_STMT_EXECUTE then sends the
// result in the binary protocol.
#include "exec/prepared.h"

#include <algorithm>

#include "acl/access_control.h"
#include "base/mysql_error.h"
#include "exec/column_values.h"
#include "exec/result_set.h"
#include "protocol/command.h"
#include "protocol/constants.h"
#include "protocol/response.h"
#include "protocol/stmt.h"
#include "protocol/wire.h"
#include "server/executor.h"
#include "server/server.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"
#include "vars/core_status.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
namespace p = sluice::protocol;
using acl::Priv;
using er::kErrStmtHasNoOpenCursor;
using er::kErrUnknownStmtHandler;
using er::kErrUnsupportedPs;
using exec::CellOf;
using exec::ColumnFor;
using exec::ColumnMetadata;
using exec::Outcome;
using exec::ParamToValue;
using exec::PreparedStatement;
using exec::SessionContext;
using exec::Warning;

namespace {

inline constexpr er::Error kErrPsManyParam{1390, "HY000", "Prepared statement contains too many placeholders"};

constexpr uint64_t kDefaultMaxPreparedStmtCount = 16382;


// How a statement treats the diagnostics of the one before, as COM_QUERY
// does: SHOW WARNINGS / ERRORS show them; a SELECT of @@warning_count /
// @@error_count reads them and then clears them; the rest clear them first.
enum class Diagnostics { kClear, kKeep, kReadThenClear };

Diagnostics DiagnosticsOf(const sql::ParsedStatement& ps) {
  const sql::Stmt& st = *ps.stmt;
  if (st.kind == sql::StmtKind::kShow && (st.As<sql::ShowStmt>().what == sql::ShowKind::kWarnings ||
                                          st.As<sql::ShowStmt>().what == sql::ShowKind::kErrors)) {
    return Diagnostics::kKeep;
  }
  if (st.kind == sql::StmtKind::kSelect && ps.text.find("_count") != std::string_view::npos) {
    return Diagnostics::kReadThenClear;
  }
  return Diagnostics::kClear;
}

// An error for the client that also becomes the session's diagnostics.
std::string ErrPayload(SessionState& ctx, const Status& st) {
  ctx.warnings.push_back({Warning::Level::kError, st.mysql_errno(), st.message()});
  return p::EncodeErr(st);
}

}  // namespace

// ---------------------------------------------------------------- setup

Status Executor::RegisterPreparedVariables() {
  SLUICE_RETURN_IF_ERROR(server_.sys_vars().Register(vars::VariableSpec::UInt(
      "max_prepared_stmt_count", vars::VarScope::kGlobal, kDefaultMaxPreparedStmtCount, 0, 4194304,
      "Most prepared statements the server holds at once, over all sessions (COM_STMT_PREPARE and SQL "
      "PREPARE); past it a prepare fails with 1461. Each holds its parsed statement in memory.")));
  auto& st = server_.status_vars();
  const struct {
    vars::SessionCounter PreparedCounters::*member;
    const char* name;
    const char* help;
  } counters[] = {
      {&PreparedCounters::com_stmt_reset, "Com_stmt_reset", "COM_STMT_RESET commands."},
      {&PreparedCounters::com_stmt_send_long_data, "Com_stmt_send_long_data",
       "COM_STMT_SEND_LONG_DATA commands."},
      {&PreparedCounters::com_stmt_fetch, "Com_stmt_fetch", "COM_STMT_FETCH commands."},
      {&PreparedCounters::com_stmt_reprepare, "Com_stmt_reprepare",
       "Prepared statements prepared again after a table changed (never: sluice re-reads tables at "
       "each execution)."},
      {&PreparedCounters::com_prepare_sql, "Com_prepare_sql", "SQL PREPARE statements."},
      {&PreparedCounters::com_execute_sql, "Com_execute_sql", "SQL EXECUTE statements."},
      {&PreparedCounters::com_dealloc_sql, "Com_dealloc_sql", "SQL DEALLOCATE PREPARE statements."},
  };
  for (const auto& c : counters) {
    auto handle = st.RegisterSessionCounter(c.name, c.help);
    if (!handle.ok()) return handle.status();
    ps_counters_.*c.member = handle.value();
  }
  return st.RegisterProvider("Prepared_stmt_count", "Prepared statements the server holds now.",
                             [this](const vars::SessionStatus*) {
                               return std::to_string(prepared_stmt_count_.load(std::memory_order_relaxed));
                             });
}

void Executor::InitPreparedSession(SessionContext& ctx) { ctx.prepared.BindGlobalCount(&prepared_stmt_count_); }

// ---------------------------------------------------------------- prepare

Result<std::vector<p::ColumnDefinition>> Executor::PrepareColumns(SessionContext& ctx, const sql::Stmt& st) {
  std::vector<p::ColumnDefinition> cols;
  // The table a statement names: 1046 without a database, 1142 without the
  // privilege (before 1146, as MySQL checks), 1146 when missing.
  auto resolve = [&](const sql::TableRef& t, Priv priv,
                     const char* what) -> Result<std::shared_ptr<const storage::TableDef>> {
    std::string db = t.schema.empty() ? ctx.db : t.schema;
    if (db.empty()) return MakeError(er::kNoDb);
    if (!(ctx.account && ctx.account->HasDb(db, priv))) {
      return MakeError(er::kTableAccessDenied, what, ctx.priv_user, ctx.host, t.name);
    }
    auto def = server_.engine().FindTable(db, t.name);
    if (def == nullptr) return MakeError(er::kNoSuchTable, db, t.name);
    return def;
  };
  // The type an expression's column gets; exact for plain columns and
  // literals, a best guess otherwise (COM_STMT_EXECUTE sends the real ones).
  auto guess = [&](const sql::Expr& e, const std::string& name) {
    if (e.kind == sql::ExprKind::kLiteral) return ColumnFor(name, e.value);
    if (e.kind == sql::ExprKind::kFunction && sql::EqualsIgnoreCase(e.name, "COUNT")) {
      return ColumnFor(name, sql::Value::Int(0));
    }
    return ColumnFor(name, sql::Value::String(std::string()));
  };
  switch (st.kind) {
    case sql::StmtKind::kSelect: {
      const auto& s = st.As<sql::SelectStmt>();
      if (s.from.size() > 1) return cols;  // joins: found out when run
      if (s.from.size() == 1) {
        const auto& t = s.from[0];
        // INFORMATION_SCHEMA: columns found out when run, as for SHOW.
        if (sql::AsciiLower(t.schema.empty() ? ctx.db : t.schema) == "information_schema") return cols;
      }
      std::shared_ptr<const storage::TableDef> def;
      if (s.from.size() == 1) {
        auto r = resolve(s.from[0], Priv::kSelect, "SELECT");
        if (!r.ok()) return r.status();
        def = std::move(r).value();
      }
      for (const auto& item : s.items) {
        if (item.star) {
          if (def == nullptr) return MakeError(er::kNoTablesUsed);
          for (const auto& c : def->columns) cols.push_back(ColumnMetadata(*def, c, c.name));
          continue;
        }
        const sql::Expr& e = *item.expr;
        if (def != nullptr && e.kind == sql::ExprKind::kColumn) {
          const storage::ColumnDef* c = def->FindColumn(e.name);
          if (c == nullptr) return MakeError(er::kBadField, e.name, "field list");
          cols.push_back(ColumnMetadata(*def, *c, item.has_alias ? item.alias : c->name));
          continue;
        }
        cols.push_back(guess(e, item.ColumnName()));
      }
      return cols;
    }
    case sql::StmtKind::kInsert: {
      const auto& s = st.As<sql::InsertStmt>();
      auto r = resolve(s.table, Priv::kInsert, s.replace ? "REPLACE" : "INSERT");
      if (!r.ok()) return r.status();
      return cols;
    }
    case sql::StmtKind::kUpdate: {
      auto r = resolve(st.As<sql::UpdateStmt>().table, Priv::kUpdate, "UPDATE");
      if (!r.ok()) return r.status();
      return cols;
    }
    case sql::StmtKind::kDelete: {
      auto r = resolve(st.As<sql::DeleteStmt>().table, Priv::kDelete, "DELETE");
      if (!r.ok()) return r.status();
      return cols;
    }
    default:
      // SHOW and the rest: no columns at prepare (clients read them from
      // COM_STMT_EXECUTE's answer, as mysqld's SHOW-like statements do).
      return cols;
  }
}

Result<PreparedStatement*> Executor::Prepare(SessionContext& ctx, std::string text, std::string name) {
  auto stmt = std::make_unique<PreparedStatement>();
  stmt->id = ctx.prepared.TakeId();
  stmt->name = std::move(name);
  stmt->text = std::move(text);
  sql::Parser parser(stmt->text, ParseOptionsFor(ctx));
  auto parsed = parser.Next();
  if (!parsed.ok()) return parsed.status();
  if (!parser.AtEnd()) {
    // One statement only: a second one is a syntax error at its start.
    auto next = parser.Next();
    if (!next.ok()) return next.status();
    return MakeError(er::kParse, std::string(std::string_view(stmt->text).substr(next->begin, 80)), 1);
  }
  switch (parsed->stmt->kind) {
    case sql::StmtKind::kEmpty:
      return MakeError(er::kEmptyQuery);
    case sql::StmtKind::kPrepare:
    case sql::StmtKind::kExecute:
    case sql::StmtKind::kDeallocatePrepare:
      return MakeError(kErrUnsupportedPs);
    default:
      break;
  }
  if (parsed->param_count > UINT16_MAX) return MakeError(kErrPsManyParam);
  auto columns = PrepareColumns(ctx, *parsed->stmt);
  if (!columns.ok()) return columns.status();
  if (columns->size() > UINT16_MAX) columns->clear();
  stmt->columns = std::move(columns).value();
  stmt->parsed = std::move(parsed).value();
  stmt->long_data.resize(static_cast<size_t>(stmt->param_count()));
  return ctx.prepared.Add(std::move(stmt), GlobalUInt("max_prepared_stmt_count", kDefaultMaxPreparedStmtCount));
}

// ---------------------------------------------------------------- commands

void Executor::StmtPrepare(SessionState& ctx, std::string_view sql, Response* out) {
  Response& r = *out;
  ctx.status->Add(server_.core_status().com_stmt_prepare);
  ctx.SetCommand("Prepare", sql, "starting");
  auto prepared = Prepare(ctx, std::string(sql), "");
  if (!prepared.ok()) {
    ctx.warnings.clear();
    r.payloads.push_back(ErrPayload(ctx, prepared.status()));
  } else {
    const PreparedStatement& ps = *prepared.value();
    // Preparing SHOW WARNINGS must leave the warnings it is to show.
    if (DiagnosticsOf(ps.parsed) == Diagnostics::kClear) ctx.warnings.clear();
    p::AppendStmtPrepareOk(ps.id, static_cast<uint16_t>(ps.param_count()), ps.columns, ctx.capabilities,
                           StatusFlags(ctx), ctx.warning_count(), &r.payloads);
  }
  ctx.SetCommand("Sleep", "");
}

void Executor::StmtExecute(SessionState& ctx, std::string_view body, Response* out) {
  Response& r = *out;
  const auto& cs = server_.core_status();
  ctx.status->Add(cs.questions);
  p::StmtExecuteHeader h;
  if (!p::ParseStmtExecuteHeader(body, &h)) {
    r.payloads.push_back(p::EncodeErr(MakeError(er::kMalformedPacket)));
    return;
  }
  ctx.status->Add(cs.com_stmt_execute);
  PreparedStatement* ps = ctx.prepared.Find(h.statement_id);
  if (ps == nullptr) {
    ctx.warnings.clear();
    r.payloads.push_back(ErrPayload(ctx, MakeError(kErrUnknownStmtHandler, h.statement_id, "mysqld_stmt_execute")));
    return;
  }
  // Cursors (flags READ_ONLY / FOR_UPDATE / SCROLLABLE) are not opened:
  // the whole result follows, without SERVER_STATUS_CURSOR_EXISTS, which
  // clients take as "no cursor" (mysqld does the same for statements
  // without a result set). The iteration count is always 1.
  ctx.SetCommand("Execute", ps->text, "executing");
  const size_t n = static_cast<size_t>(ps->param_count());
  std::vector<sql::Value> params;
  Status bind_error = ps->long_data_error;
  if (bind_error.ok()) {
    std::vector<bool> has_long(n);
    for (size_t i = 0; i < n; ++i) has_long[i] = ps->long_data[i].has_value();
    std::vector<p::ParamValue> values;
    bind_error = p::DecodeStmtParams(h.params, n, has_long, &ps->param_types, &values);
    if (bind_error.ok()) {
      params.reserve(n);
      for (size_t i = 0; i < n; ++i) params.push_back(ParamToValue(values[i], ps->param_types[i], ps->long_data[i]));
    }
  }
  // Long data serves one execution (mysqld resets the parameters after it).
  for (auto& ld : ps->long_data) ld.reset();
  ps->long_data_error = Status::OK();
  if (!bind_error.ok()) {
    ctx.warnings.clear();
    r.payloads.push_back(ErrPayload(ctx, bind_error));
    ctx.SetCommand("Sleep", "");
    return;
  }
  ctx.status->Add(cs.queries);
  const Diagnostics diagnostics = DiagnosticsOf(ps->parsed);
  const bool keeps_diagnostics = diagnostics == Diagnostics::kKeep;
  if (diagnostics == Diagnostics::kClear) ctx.warnings.clear();
  Outcome o = RunStatement(ctx, ps->parsed, &params);
  if (diagnostics == Diagnostics::kReadThenClear) ctx.warnings.clear();
  if (!o.error.ok()) {
    if (!o.close_connection) {
      ctx.warnings.push_back({Warning::Level::kError, o.error.mysql_errno(), o.error.message()});
    }
    r.payloads.push_back(p::EncodeErr(o.error));
    r.close_connection = o.close_connection;
  } else if (o.result) {
    uint16_t warnings = keeps_diagnostics ? 0 : ctx.warning_count();
    p::AppendBinaryResultSet(std::move(o.result->columns), o.result->rows, ctx.capabilities, StatusFlags(ctx),
                             warnings, &r.payloads);
    ctx.row_count = -1;
  } else {
    r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx), o.affected_rows, o.info, o.last_insert_id));
    ctx.row_count = static_cast<int64_t>(o.affected_rows);
  }
  if (o.close_connection) r.close_connection = true;
  ctx.SetCommand("Sleep", "");
}

void Executor::StmtSendLongData(SessionState& ctx, std::string_view body, Response* /*out: no reply*/) {
  // No reply, whatever happens: a problem is reported by the next execute.
  ctx.status->Add(ps_counters_.com_stmt_send_long_data);
  p::StmtLongData ld;
  if (!p::ParseStmtLongData(body, &ld)) return;
  PreparedStatement* ps = ctx.prepared.Find(ld.statement_id);
  if (ps == nullptr || !ps->long_data_error.ok()) return;
  if (ld.param_id >= ps->long_data.size()) {
    ps->long_data_error = MakeError(er::kWrongArguments, "mysqld_stmt_send_long_data");
    return;
  }
  auto& slot = ps->long_data[ld.param_id];
  if (!slot) slot.emplace();
  if (slot->size() + ld.data.size() > MaxAllowedPacket(ctx)) {
    ps->long_data_error = MakeError(er::kUnknown,
                                    "Parameter of prepared statement which is set through "
                                    "mysql_send_long_data() is longer than 'max_allowed_packet' bytes");
    slot.reset();
    return;
  }
  slot->append(ld.data);
}

void Executor::StmtClose(SessionState& ctx, std::string_view body, Response* /*out: no reply*/) {
  Result<uint32_t> id = p::ParseStatementId(body);
  if (id.ok()) {
    ctx.status->Add(server_.core_status().com_stmt_close);
    ctx.prepared.Remove(id.value());
  }
}

void Executor::StmtReset(SessionState& ctx, std::string_view body, Response* out) {
  Response& r = *out;
  ctx.status->Add(ps_counters_.com_stmt_reset);
  Result<uint32_t> id = p::ParseStatementId(body);
  if (!id.ok()) {
    r.payloads.push_back(p::EncodeErr(id.status()));
    return;
  }
  PreparedStatement* ps = ctx.prepared.Find(id.value());
  if (ps == nullptr) {
    r.payloads.push_back(ErrPayload(ctx, MakeError(kErrUnknownStmtHandler, id.value(), "mysqld_stmt_reset")));
    return;
  }
  for (auto& ld : ps->long_data) ld.reset();
  ps->long_data_error = Status::OK();
  r.payloads.push_back(OkPacketFor(ctx, StatusFlags(ctx)));
}

void Executor::StmtFetch(SessionState& ctx, std::string_view body, Response* out) {
  Response& r = *out;
  ctx.status->Add(ps_counters_.com_stmt_fetch);
  p::StmtFetch f;
  if (!p::ParseStmtFetch(body, &f)) {
    r.payloads.push_back(p::EncodeErr(MakeError(er::kMalformedPacket)));
    return;
  }
  if (ctx.prepared.Find(f.statement_id) == nullptr) {
    r.payloads.push_back(ErrPayload(ctx, MakeError(kErrUnknownStmtHandler, f.statement_id, "mysqld_stmt_fetch")));
  } else {
    // COM_STMT_EXECUTE never opens a cursor (see StmtExecute).
    r.payloads.push_back(ErrPayload(ctx, MakeError(kErrStmtHasNoOpenCursor, f.statement_id)));
  }
}

// ---------------------------------------------------------------- SQL

Outcome Executor::SqlPrepare(SessionContext& ctx, const sql::PrepareStmt& s) {
  ctx.status->Add(ps_counters_.com_prepare_sql);
  ctx.status->Add(server_.core_status().com_stmt_prepare);
  Outcome o;
  std::string text = s.text;
  if (s.from_variable) {
    auto it = ctx.user_vars.find(sql::AsciiLower(s.variable));
    text = it == ctx.user_vars.end() || it->second.is_null() ? "NULL" : it->second.ToString();
  }
  // A statement of the same name goes first, even when the new one fails.
  if (PreparedStatement* old = ctx.prepared.FindByName(s.name)) ctx.prepared.Remove(old->id);
  auto prepared = Prepare(ctx, std::move(text), s.name);
  if (!prepared.ok()) {
    o.error = prepared.status();
  } else {
    o.info = "Statement prepared";
  }
  return o;
}

Outcome Executor::SqlExecute(SessionContext& ctx, const sql::ExecuteStmt& s) {
  ctx.status->Add(ps_counters_.com_execute_sql);
  ctx.status->Add(server_.core_status().com_stmt_execute);
  Outcome o;
  PreparedStatement* ps = ctx.prepared.FindByName(s.name);
  if (ps == nullptr) {
    o.error = MakeError(kErrUnknownStmtHandler, s.name, "EXECUTE");
    return o;
  }
  if (s.using_variables.size() != static_cast<size_t>(ps->param_count())) {
    o.error = MakeError(er::kWrongArguments, "EXECUTE");
    return o;
  }
  std::vector<sql::Value> params;
  params.reserve(s.using_variables.size());
  for (const auto& name : s.using_variables) {
    auto it = ctx.user_vars.find(sql::AsciiLower(name));
    params.push_back(it == ctx.user_vars.end() ? sql::Value::Null() : it->second);
  }
  return RunStatement(ctx, ps->parsed, &params);
}

Outcome Executor::SqlDeallocate(SessionContext& ctx, const sql::DeallocatePrepareStmt& s) {
  ctx.status->Add(ps_counters_.com_dealloc_sql);
  ctx.status->Add(server_.core_status().com_stmt_close);
  Outcome o;
  PreparedStatement* ps = ctx.prepared.FindByName(s.name);
  if (ps == nullptr) {
    o.error = MakeError(kErrUnknownStmtHandler, s.name, "DEALLOCATE PREPARE");
    return o;
  }
  ctx.prepared.Remove(ps->id);
  return o;
}

}  // namespace sluice::server
