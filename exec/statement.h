// exec/statement.h
//
// Running one parsed SQL statement of a session: the entry point below the
// wire. RunStatement applies what holds for every statement (the expired-
// password sandbox, max_execution_time for a SELECT, a KILL QUERY during it
// as 1317, the account refreshed after it), then runs it: transactions,
// DML, DDL and SELECT through TableExecutor; SET, SHOW, USE, KILL, FLUSH,
// SHUTDOWN, accounts and privileges, PURGE / RESET MASTER and INSTALL /
// UNINSTALL PLUGIN here (statement.cc), against the ExecEnv's services.
// The caller (server/executor.cc) parses, counts Questions and encodes the
// Outcome as OK / result set / error packets.
//
// Thread-safety: one statement at a time per SessionContext, on the
// statement's thread; different sessions run concurrently.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "exec/result_set.h"
#include "exec/session_context.h"
#include "sql/parser.h"

namespace sluice::exec {

class ExecEnv;

// SQL PREPARE / EXECUTE / DEALLOCATE PREPARE. The session's dispatcher runs
// them (server/prepared_commands.cc): prepared statements are shared with
// the binary protocol's COM_STMT_*, whose metadata it encodes; EXECUTE runs
// the stored statement through RunStatement again.
class PreparedSql {
 public:
  virtual ~PreparedSql() = default;
  virtual Outcome SqlPrepare(SessionContext& ctx, const sql::PrepareStmt& s) = 0;
  virtual Outcome SqlExecute(SessionContext& ctx, const sql::ExecuteStmt& s) = 0;
  virtual Outcome SqlDeallocate(SessionContext& ctx, const sql::DeallocatePrepareStmt& s) = 0;
};

// Runs `ps` with `params` bound to its '?'s (null: none). `prepared` runs
// PREPARE / EXECUTE / DEALLOCATE; null: they fail with 1295.
Outcome RunStatement(const ExecEnv& env, SessionContext& ctx, const sql::ParsedStatement& ps,
                     const std::vector<sql::Value>* params, PreparedSql* prepared);

// Checks that `db` exists and the account may use it (1049, 1044); on
// success makes it the session's database. USE, COM_INIT_DB and the
// handshake's database.
Status UseDatabase(const ExecEnv& env, SessionContext& ctx, const std::string& db);

}  // namespace sluice::exec
