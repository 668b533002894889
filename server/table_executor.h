// server/table_executor.h
//
// TableExecutor: runs the statements that touch tables on the storage engine
// (storage/engine): CREATE/DROP DATABASE, CREATE/DROP TABLE, INSERT/REPLACE,
// UPDATE, DELETE and single-table SELECT, inside the session's engine
// transaction (autocommit, BEGIN ... COMMIT/ROLLBACK, statement rollback on
// error).
//
// Access paths: an equality or range on the PRIMARY KEY's first column
// (=, IN of one value, BETWEEN, <, <=, >, >= with constants) reads only
// that range; anything else scans the table. Every row read is re-checked
// against the whole WHERE.
//
// DDL and transactions: DDL commits the open transaction first (as MySQL's
// implicit commit) and waits, through the server's metadata lock, until no
// other transaction is open on any table (MySQL waits per table; one lock
// for all tables is the first version).
//
// Thread-safety: one instance per statement, on the session's thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "server/result_set.h"
#include "server/session_context.h"
#include "server/sql/ast.h"
#include "server/sql/eval.h"

namespace sluice::server {

class Server;
struct AssignContext;  // column_values.h

class TableExecutor {
 public:
  TableExecutor(Server& server, SessionContext& ctx, sql::EvalContext& eval)
      : server_(server), ctx_(ctx), eval_(eval) {}

  Outcome CreateDatabase(const sql::CreateDatabaseStmt& s);
  Outcome DropDatabase(const sql::DropDatabaseStmt& s);
  Outcome CreateTable(const sql::CreateTableStmt& s);
  Outcome DropTable(const sql::DropTableStmt& s);
  Outcome CreateIndex(const sql::CreateIndexStmt& s);
  Outcome DropIndex(const sql::DropIndexStmt& s);
  Outcome Insert(const sql::InsertStmt& s);
  Outcome Update(const sql::UpdateStmt& s);
  Outcome Delete(const sql::DeleteStmt& s);
  // SELECT with one table in FROM.
  Outcome Select(const sql::SelectStmt& s);

  // SHOW TABLES / SHOW COLUMNS / SHOW CREATE TABLE rows (the caller filters).
  Outcome ShowTables(const sql::ShowStmt& s);
  Outcome ShowColumns(const sql::ShowStmt& s);
  Outcome ShowCreateTable(const sql::ShowStmt& s);
  Outcome ShowIndex(const sql::ShowStmt& s);
  Outcome ShowCreateDatabase(const sql::ShowStmt& s);
  Outcome ShowTableStatus(const sql::ShowStmt& s);

  // BEGIN / START TRANSACTION, COMMIT, ROLLBACK; and the implicit commit of
  // DDL. Each ends the open engine transaction (if any).
  Status Begin(bool consistent_snapshot = false, bool read_only = false);
  Status Commit();
  Status Rollback();

  // Session end: rolls back an open transaction, releases the metadata
  // lock and the global read lock.
  static void EndSession(Server& server, SessionContext& ctx);

  // SAVEPOINT / ROLLBACK TO / RELEASE SAVEPOINT (1305 for an unknown name).
  Status Savepoint(const std::string& name);
  Status RollbackToSavepoint(const std::string& name);
  Status ReleaseSavepoint(const std::string& name);

  // FLUSH TABLES WITH READ LOCK / UNLOCK TABLES.
  Status LockGlobalRead();
  Status UnlockTables();

 private:
  struct Table;
  class RowEval;
  // The session's transaction, begun when there is none.
  Result<storage::EngineTrx*> Trx();
  // Runs a data statement: takes a savepoint, calls `body`, then commits
  // (autocommit) or keeps the transaction; on error undoes the statement
  // (the whole transaction after a deadlock), as InnoDB does.
  Outcome RunDml(const std::function<Outcome(storage::EngineTrx&)>& body, bool writes = false);
  // Waits out FLUSH TABLES WITH READ LOCK held by another session (1223
  // when this session holds it); EndWrite pairs with a successful one.
  Status BeginWrite();
  void EndWrite();
  // Implicit commit and the exclusive metadata lock for DDL.
  Status BeginDdl();
  void EndDdl();
  Result<Table> ResolveTable(const sql::TableRef& ref);
  // SHOW ... [FROM db]: the database (1046 none, 1049 unknown).
  Result<std::string> ShowDatabase(const sql::ShowStmt& s);
  bool Autocommit();
  // Assignments of row `row_number`: their warnings go to the session.
  AssignContext Assigning(bool strict, uint64_t row_number);
  bool Strict();

  Server& server_;
  SessionContext& ctx_;
  sql::EvalContext& eval_;
  bool holds_ddl_lock_ = false;
  bool in_write_ = false;
};

}  // namespace sluice::server
