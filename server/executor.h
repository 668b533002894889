// server/executor.h
//
// Executor: runs one client command (COM_QUERY and the other non-I/O
// commands) against a SessionContext and returns the response payloads.
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
#include "server/result_set.h"
#include "server/session_context.h"
#include "server/sql/ast.h"
#include "server/sql/parser.h"
#include "server/vars/status_vars.h"

namespace sluice::server {

class Server;

struct Response {
  std::vector<std::string> payloads;  // framed with consecutive sequence ids
  bool close_connection = false;      // after sending (KILL of self, SHUTDOWN)
};

class Executor {
 public:
  explicit Executor(Server& server) : server_(server) {}

  // `packet` is the whole command packet (command byte first).
  Response Dispatch(SessionContext& ctx, std::string_view packet);

  // Checks that `db` exists and the account may use it (1049, 1044); on
  // success makes it the session's database. Used by COM_INIT_DB, USE and
  // the handshake's database.
  Status UseDatabase(SessionContext& ctx, const std::string& db);

  // Sets up a freshly authenticated session (variables, status counters).
  void InitSession(SessionContext& ctx);
  // Folds a closing session's counters into the global totals.
  void EndSession(SessionContext& ctx);

  // Registers the core system variables (at start, before listening).
  Status RegisterVariables();

  // Current values the session's I/O needs; cheap, any thread.
  size_t MaxAllowedPacket(const SessionContext& ctx) const;
  uint64_t ConnectTimeout() const;
  uint64_t MaxConnections() const;
  bool RequireSecureTransport() const;
  uint64_t IdleTimeout(const SessionContext& ctx) const;  // wait_ or interactive_timeout
  uint64_t NetTimeout(const SessionContext& ctx, bool write) const;  // net_read/write_timeout
  uint16_t StatusFlags(const SessionContext& ctx) const;

 private:
  class Statement;  // runs one parsed statement (executor.cc)
  Response Query(SessionContext& ctx, std::string_view sql);
  uint64_t GlobalUInt(std::string_view name, uint64_t fallback) const;
  // The parser options the session's sql_mode asks for.
  sql::ParseOptions ParseOptionsFor(const SessionContext& ctx) const;
  // Runs one parsed statement with `params` bound to its '?'s (the
  // expired-password sandbox, privileges and counters as for COM_QUERY);
  // a KILL QUERY during it becomes 1317.
  Outcome RunStatement(SessionContext& ctx, const sql::ParsedStatement& ps,
                       const std::vector<sql::Value>* params);

  // Prepared statements (prepared.cc): the protocol commands (`body`
  // follows the command byte) and the SQL statements.
  Response StmtPrepare(SessionContext& ctx, std::string_view sql);
  Response StmtExecute(SessionContext& ctx, std::string_view body);
  Response StmtSendLongData(SessionContext& ctx, std::string_view body);  // no reply
  Response StmtClose(SessionContext& ctx, std::string_view body);         // no reply
  Response StmtReset(SessionContext& ctx, std::string_view body);
  Response StmtFetch(SessionContext& ctx, std::string_view body);
  Outcome SqlPrepare(SessionContext& ctx, const sql::PrepareStmt& s);
  Outcome SqlExecute(SessionContext& ctx, const sql::ExecuteStmt& s);
  Outcome SqlDeallocate(SessionContext& ctx, const sql::DeallocatePrepareStmt& s);
  // Parses `text` (one statement), works out its result columns and stores
  // it. 1064 / 1065 as COM_QUERY; 1295 for PREPARE / EXECUTE / DEALLOCATE
  // inside; 1046 / 1142 / 1146 / 1054 for tables and columns; 1461 past
  // max_prepared_stmt_count.
  Result<PreparedStatement*> Prepare(SessionContext& ctx, std::string text, std::string name);
  // The result columns of `st` known without running it (empty for
  // statements without a result set and for SHOW).
  Result<std::vector<protocol::ColumnDefinition>> PrepareColumns(SessionContext& ctx, const sql::Stmt& st);
  Status RegisterPreparedVariables();
  // Mirrors @@read_only / @@super_read_only into the Server's flags (now,
  // and on every global SET) after the start-up and persisted values.
  Status WireReadOnlySwitches();
  // The MySQL options that have no sluice option of their own
  // (ServerOptions::mysql_options): the start-up value of the variable of
  // that name, or one warning that it is ignored. A bad value aborts.
  Status ApplyMysqlOptions();
  void InitPreparedSession(SessionContext& ctx);

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
