// server/table_executor.h
//
// TableExecutor: runs the statements that touch tables on the storage engine
// (storage/engine): DDL (here, and ALTER/RENAME/TRUNCATE in table_ddl.cc),
// INSERT/REPLACE, UPDATE, DELETE, LOCK TABLES, and SELECT with joins and
// subqueries (select.cc), inside the session's engine transaction
// (autocommit, BEGIN ... COMMIT/ROLLBACK, statement rollback on error).
//
// How each table is read is its access path (server/access_path.h); every
// row read is re-checked against the whole condition.
//
// DDL and transactions: DDL commits the open transaction first (as MySQL's
// implicit commit) and waits, through the server's metadata lock, until no
// other transaction is open on any table (MySQL waits per table; one lock
// for all tables is the first version).
//
// Thread-safety: one instance per statement, on the session's thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/result_set.h"
#include "server/session_binlog.h"
#include "server/session_context.h"
#include "server/sql/ast.h"
#include "server/sql/eval.h"

namespace sluice::storage {
struct TableDef;
}  // namespace sluice::storage

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
  // ALTER TABLE, RENAME TABLE, TRUNCATE TABLE (table_ddl.cc): MySQL 8.0's
  // matching of the specs and errors; a column change copies the table
  // (Engine::RebuildTable), secondary index changes are made in place.
  Outcome AlterTable(const sql::AlterTableStmt& s);
  Outcome RenameTable(const sql::RenameTableStmt& s);
  Outcome Truncate(const sql::TruncateStmt& s);
  Outcome Insert(const sql::InsertStmt& s);
  Outcome Update(const sql::UpdateStmt& s);
  Outcome Delete(const sql::DeleteStmt& s);
  // SELECT over tables (FROM with joins) or with subqueries (server/select.cc).
  Outcome Select(const sql::SelectStmt& s);
  // EXPLAIN (explain.cc): MySQL 8.0's traditional EXPLAIN table for a
  // SELECT, UPDATE, DELETE, INSERT or REPLACE, one row per table, from the
  // access paths the statement would take. FORMAT=JSON/TREE: 1235.
  Outcome Explain(const sql::ExplainStmt& s);

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

  // FLUSH TABLES WITH READ LOCK / UNLOCK TABLES (both kinds of lock).
  Status LockGlobalRead();
  Status UnlockTables();
  // LOCK TABLES: commits, releases this session's table locks, then takes
  // the listed ones (waiting for other sessions' conflicting locks).
  Outcome LockTables(const sql::TableLocksStmt& s);

 private:
  // The session's binlog state (made on first use).
  SessionBinlog& Binlog();
  // Records a row change for the binlog (nothing when log_bin is OFF).
  Status LogRow(const storage::TableDef& def, SessionBinlog::RowKind kind, const storage::Row* before,
                const storage::Row* after);
  // A resolved table of the statement.
  struct Table {
    std::string schema;
    std::shared_ptr<const storage::TableDef> def;
  };
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
  // Releases what BeginDdl took. With `result` OK, first logs the
  // statement to the binlog (while other sessions still wait, so the DDL
  // precedes their transactions there); a logging failure becomes `result`.
  void EndDdl();
  void EndDdl(Status& result);
  Outcome AlterTableLocked(const sql::AlterTableStmt& s);
  Result<Table> ResolveTable(const sql::TableRef& ref);

  // SELECT's rows (server/select.cc), read in `trx` with expressions in
  // `outer` (the session's context, or the enclosing query's for a
  // subquery). At most `max_rows`. Cells hold the text protocol's values;
  // `values` the same as sql::Value when `want_values`.
  struct SelectRows {
    ResultSet result;
    std::vector<std::vector<sql::Value>> values;
    bool correlated = false;  // it read columns of an enclosing query
  };
  Result<SelectRows> RunSelect(const sql::SelectStmt& s, storage::EngineTrx& trx, sql::EvalContext& outer,
                               uint64_t max_rows, bool want_values);
  // A subquery of an expression `outer` evaluates (RowEval::RunSubquery);
  // uncorrelated ones run once per statement.
  Result<sql::EvalContext::SubqueryRows> RunSubquery(const sql::SelectStmt& s, RowEval& outer, uint64_t max_rows);
  // A statement is about to read (or write) table `t`, named as `ref`:
  // under LOCK TABLES it must be locked under that name (1100), for a
  // write with WRITE (1099); otherwise waits out other sessions'
  // conflicting LOCK TABLES (1205 after lock_wait_timeout).
  Status UseTable(const Table& t, const sql::TableRef& ref, bool write);
  // SELECT privilege on a table a statement reads (1142).
  Status CheckSelectPrivilege(const std::string& schema, const std::string& table);
  // SHOW ... [FROM db]: the database (1046 none, 1044 when the account has
  // no privilege in it, 1049 unknown).
  Result<std::string> ShowDatabase(const sql::ShowStmt& s);
  // Whether SHOW and INFORMATION_SCHEMA may show the account database `db`
  // and its tables: some privilege in it (or globally), as MySQL decides
  // (sluice has no table-level privileges); information_schema always.
  bool MaySeeDatabase(const std::string& db) const;
  // 1044 unless MaySeeDatabase(db).
  Status CheckShowDbAccess(const std::string& db) const;
  // The table SHOW COLUMNS / INDEX / CREATE TABLE names, engine or system
  // (INFORMATION_SCHEMA, mysql): 1046 without a database, 1142 "`command`
  // command denied" when the account may not see it (before 1146, so a
  // denied account learns nothing of what exists).
  Result<Table> ResolveShowTable(const sql::TableRef& ref, const char* command);
  bool Autocommit();
  // Assignments of row `row_number`: their warnings go to the session.
  AssignContext Assigning(bool strict, uint64_t row_number);
  bool Strict();

  Server& server_;
  SessionContext& ctx_;
  sql::EvalContext& eval_;
  // Uncorrelated subqueries' rows, by statement node and row limit.
  std::map<std::pair<const sql::SelectStmt*, uint64_t>, sql::EvalContext::SubqueryRows> subquery_cache_;
  bool holds_ddl_lock_ = false;
  bool in_write_ = false;
};

}  // namespace sluice::server
