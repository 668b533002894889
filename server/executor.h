// server/executor.h
//
// Executor: runs one client command (COM_QUERY and the other non-I/O
// commands) against a session's SessionState and returns the response payloads.
// Runs on a WorkerPool thread; never called on an I/O thread.
//
// Thread-safety: Dispatch may run concurrently for different sessions;
// one call at a time per SessionContext.
#pragma once

#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "exec/result_set.h"
#include "exec/session_context.h"
#include "exec/statement.h"
#include "protocol/payloads.h"
#include "server/session_state.h"
#include "sql/ast.h"
#include "sql/parser.h"
#include "vars/status_vars.h"

namespace sluice::server {

// The OK packet ending a statement without a result set, with the session's
// warning count (executor.cc).
std::string OkPacketFor(const SessionState& ctx, uint16_t status, uint64_t affected = 0, std::string info = {},
                        uint64_t last_insert_id = 0);

class Server;

struct Response {
  protocol::Payloads payloads;        // framed with consecutive sequence ids
  bool close_connection = false;      // after sending (KILL of self, SHUTDOWN)
};

class Executor : private exec::PreparedSql {
 public:
  explicit Executor(Server& server) : server_(server) {}

  // `packet` is the whole command packet (command byte first). The reply
  // replaces what `*r` held (a session keeps one Response, so its buffers
  // are reused from command to command).
  void Dispatch(SessionState& ctx, std::string_view packet, Response* r);

  // Checks that `db` exists and the account may use it (1049, 1044); on
  // success makes it the session's database. Used by COM_INIT_DB, USE and
  // the handshake's database.
  Status UseDatabase(exec::SessionContext& ctx, const std::string& db);

  // Sets up a freshly authenticated session (variables, status counters).
  void InitSession(SessionState& ctx);
  // Folds a closing session's counters into the global totals.
  void EndSession(SessionState& ctx);

  // Registers the core system variables (at start, before listening).
  Status RegisterVariables();

  // Current values the session's I/O needs; cheap, any thread.
  size_t MaxAllowedPacket(const exec::SessionContext& ctx) const;
  uint64_t ConnectTimeout() const;
  uint64_t MaxConnections() const;
  bool RequireSecureTransport() const;
  uint64_t IdleTimeout(const SessionState& ctx) const;  // wait_ or interactive_timeout
  uint64_t NetTimeout(const exec::SessionContext& ctx, bool write) const;  // net_read/write_timeout
  uint16_t StatusFlags(const exec::SessionContext& ctx) const;

 private:
  void Query(SessionState& ctx, std::string_view sql, Response* out);
  uint64_t GlobalUInt(std::string_view name, uint64_t fallback) const;
  // The parser options the session's sql_mode asks for.
  sql::ParseOptions ParseOptionsFor(const exec::SessionContext& ctx) const;
  // Runs one parsed statement with `params` bound to its '?'s
  // (exec::RunStatement, with this Executor for PREPARE / EXECUTE).
  exec::Outcome RunStatement(exec::SessionContext& ctx, const sql::ParsedStatement& ps,
                       const std::vector<sql::Value>* params);

  // Prepared statements (prepared.cc): the protocol commands (`body`
  // follows the command byte) and the SQL statements.
  void StmtPrepare(SessionState& ctx, std::string_view sql, Response* out);
  void StmtExecute(SessionState& ctx, std::string_view body, Response* out);
  void StmtSendLongData(SessionState& ctx, std::string_view body, Response* out);  // no reply
  void StmtClose(SessionState& ctx, std::string_view body, Response* out);         // no reply
  void StmtReset(SessionState& ctx, std::string_view body, Response* out);
  void StmtFetch(SessionState& ctx, std::string_view body, Response* out);
  // exec::PreparedSql: SQL PREPARE / EXECUTE / DEALLOCATE PREPARE.
  exec::Outcome SqlPrepare(exec::SessionContext& ctx, const sql::PrepareStmt& s) override;
  exec::Outcome SqlExecute(exec::SessionContext& ctx, const sql::ExecuteStmt& s) override;
  exec::Outcome SqlDeallocate(exec::SessionContext& ctx, const sql::DeallocatePrepareStmt& s) override;
  // Parses `text` (one statement), works out its result columns and stores
  // it. 1064 / 1065 as COM_QUERY; 1295 for PREPARE / EXECUTE / DEALLOCATE
  // inside; 1046 / 1142 / 1146 / 1054 for tables and columns; 1461 past
  // max_prepared_stmt_count.
  Result<exec::PreparedStatement*> Prepare(exec::SessionContext& ctx, std::string text, std::string name);
  // The result columns of `st` known without running it (empty for
  // statements without a result set and for SHOW).
  Result<std::vector<protocol::ColumnDefinition>> PrepareColumns(exec::SessionContext& ctx, const sql::Stmt& st);
  Status RegisterPreparedVariables();
  // Mirrors @@read_only / @@super_read_only into the Server's flags (now,
  // and on every global SET) after the start-up and persisted values.
  Status WireReadOnlySwitches();
  // The MySQL options that have no sluice option of their own
  // (ServerOptions::mysql_options): the start-up value of the variable of
  // that name, or one warning that it is ignored. A bad value aborts.
  Status ApplyMysqlOptions();
  void InitPreparedSession(exec::SessionContext& ctx);

  struct PreparedCounters {
    vars::SessionCounter com_stmt_reset;
    vars::SessionCounter com_stmt_send_long_data;
    vars::SessionCounter com_stmt_fetch;
    vars::SessionCounter com_stmt_reprepare;
    vars::SessionCounter com_prepare_sql;
    vars::SessionCounter com_execute_sql;
    vars::SessionCounter com_dealloc_sql;
  };

  Server& server_;
  PreparedCounters ps_counters_;
  std::atomic<int64_t> prepared_stmt_count_{0};  // Prepared_stmt_count
};

}  // namespace sluice::server
