// exec/table_executor.h
//
// TableExecutor: runs the statements that touch tables on the storage engine
// (storage/engine): DDL (here, and ALTER/RENAME/TRUNCATE in table_ddl.cc),
// INSERT/REPLACE, UPDATE, DELETE, LOCK TABLES, and SELECT with joins and
// subqueries (select.cc), inside the session's engine transaction
// (autocommit, BEGIN ... COMMIT/ROLLBACK, statement rollback on error).
//
// How each table is read is its access path (exec/access_path.h); every
// row read is re-checked against the whole condition.
//
// DDL and transactions (exec/metadata_lock.h): a statement takes the
// metadata lock of each table it uses shared (UseTable), kept until the
// transaction ends, released at the statement's end when no transaction is
// open. DDL commits the open transaction first (as MySQL's implicit commit)
// and takes the locks of the tables it changes exclusive, so it waits only
// for the transactions that used those tables.
//
// Thread-safety: one instance per statement, on the session's thread.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/function_ref.h"
#include "exec/metadata_lock.h"
#include "exec/result_set.h"
#include "exec/session_binlog.h"
#include "exec/session_context.h"
#include "exec/transaction.h"
#include "sql/ast.h"
#include "sql/eval.h"

namespace sluice::storage {
struct TableDef;
}  // namespace sluice::storage

namespace sluice::exec {

class ExecEnv;
struct AssignContext;  // column_values.h

// The session's lock_wait_timeout: how long a statement waits for a metadata
// lock, FLUSH TABLES WITH READ LOCK or LOCK TABLES before 1205.
std::chrono::milliseconds LockWaitTimeout(const ExecEnv& env, SessionContext& ctx);

struct ParsedCheck;
struct ParsedGenerated;
class ForeignKeyEnforcer;

class TableExecutor {
 public:
  TableExecutor(const ExecEnv& env, SessionContext& ctx, sql::EvalContext& eval)
      : env_(env), ctx_(ctx), eval_(eval) {}
  // The statement ends: with no transaction open, the metadata locks its
  // tables took go.
  ~TableExecutor();
  TableExecutor(const TableExecutor&) = delete;
  TableExecutor& operator=(const TableExecutor&) = delete;

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
  // SELECT over tables (FROM with joins) or with subqueries (exec/select.cc).
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
  // locks and the global read lock.
  static void EndSession(const ExecEnv& env, SessionContext& ctx);

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
  // The session's transaction coordinator (exec/transaction.h).
  Transaction Txn();
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
  Outcome RunDml(FunctionRef<Outcome(storage::EngineTrx&)> body, bool writes = false);
  // Waits out FLUSH TABLES WITH READ LOCK held by another session (1223
  // when this session holds it); EndWrite pairs with a successful one.
  Status BeginWrite();
  void EndWrite();
  // Implicit commit and the metadata locks of a DDL statement: `requests`
  // (see DdlLocks), waited for up to lock_wait_timeout (1205), 1213 when
  // the wait would close a cycle. Can be called again to add locks (DROP
  // DATABASE: the schema's first, then its tables').
  Status BeginDdl(std::vector<MetadataLocks::Request> requests);
  // Exclusive locks of `tables` ({schema, name}) and shared ones of their
  // schemas (held off by DROP DATABASE).
  static std::vector<MetadataLocks::Request> DdlLocks(
      const std::vector<std::pair<std::string, std::string>>& tables);
  // Waits for `requests` for this session; the process list shows
  // "Waiting for table metadata lock" meanwhile.
  Status AcquireMetadataLocks(std::vector<MetadataLocks::Request> requests);
  // Releases what BeginDdl took. With `result` OK, first logs the
  // statement to the binlog (while other sessions still wait, so the DDL
  // precedes their transactions there); a logging failure becomes `result`.
  // The CHECKs of `def` (ParseEnforcedChecks) on a row a statement writes:
  // 3819 for the first one FALSE (NULL passes); with `ignore`, warning 3819
  // and false, for the caller to skip the row.
  // Fills `row`'s generated columns (ParseGeneratedColumns) from its other
  // values, in column order, by the assignment rules of `cx`.
  Status ComputeGenerated(const std::vector<ParsedGenerated>& generated, const storage::TableDef& def,
                          storage::Row* row, AssignContext& cx);
  // The statement's foreign key enforcement in `trx`, computing the
  // generated columns of the child rows its cascades change.
  ForeignKeyEnforcer Enforcer(storage::EngineTrx& trx);
  Result<bool> EnforceChecks(const std::vector<ParsedCheck>& checks, const storage::TableDef& def,
                       const storage::Row& row, bool ignore);
  void EndDdl();
  void EndDdl(Status& result);
  Outcome AlterTableLocked(const sql::AlterTableStmt& s);
  Result<Table> ResolveTable(const sql::TableRef& ref);

  // SELECT's rows (exec/select.cc), read in `trx` with expressions in
  // `outer` (the session's context, or the enclosing query's for a
  // subquery). At most `max_rows`. Cells hold the text protocol's values;
  // `values` the same as sql::Value when `want_values`.
  struct SelectRows {
    ResultSet result;
    std::vector<std::vector<sql::Value>> values;
    bool correlated = false;  // it read columns of an enclosing query
    // Those columns and their values (RowEval::TakeOuterReads); empty when
    // correlated but too many to keep.
    std::vector<std::pair<const sql::Expr*, sql::Value>> outer_reads;
  };
  Result<SelectRows> RunSelect(const sql::SelectStmt& s, storage::EngineTrx& trx, sql::EvalContext& outer,
                               uint64_t max_rows, bool want_values);
  // A subquery of an expression `outer` evaluates (RowEval::RunSubquery):
  // an uncorrelated one runs once per statement, a correlated one once per
  // distinct set of values of the enclosing query's columns it read.
  Result<std::shared_ptr<const sql::EvalContext::SubqueryRows>> RunSubquery(const sql::SelectStmt& s, RowEval& outer,
                                                                            uint64_t max_rows);
  // A statement is about to read (or write) table `t`, named as `ref`:
  // under LOCK TABLES it must be locked under that name (1100), for a
  // write with WRITE (1099); otherwise waits out other sessions'
  // conflicting LOCK TABLES (1205 after lock_wait_timeout). Then takes the
  // table's metadata lock shared (waiting out DDL on it) and reads `t`'s
  // definition again, as a DDL waited for may have changed or dropped it
  // (1146).
  Status UseTable(Table& t, const sql::TableRef& ref, bool write);
  // With foreign_key_checks on, takes the metadata locks (shared) of the
  // tables `def`'s foreign keys reach: its parents, and its children and
  // theirs through cascades, so that no DDL changes them while the
  // statement checks or changes their rows (MySQL 8.0 locks them too).
  Status UseForeignKeyTables(const storage::TableDef& def);
  // `o` (a failed UseTable before RunDml); after 1213 the transaction is
  // rolled back first.
  Outcome EndOnLockError(Outcome o);
  // The table INSERT, UPDATE or DELETE changes: resolved (ResolveTable),
  // taken for writing (UseTable) with the tables its foreign keys reach
  // (UseForeignKeyTables). Empty, with `o` what the statement returns,
  // when it cannot be.
  std::optional<Table> WriteTarget(const sql::TableRef& ref, Outcome* o);
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
  // The session's foreign_key_checks (exec/foreign_keys.h).
  bool ForeignKeyChecks();
  // Assignments of row `row_number`: their warnings go to the session.
  AssignContext Assigning(bool strict, uint64_t row_number);
  bool Strict();

  const ExecEnv& env_;
  SessionContext& ctx_;
  sql::EvalContext& eval_;
  // Uncorrelated subqueries' rows, by statement node and row limit.
  using SubqueryKey = std::pair<const sql::SelectStmt*, uint64_t>;
  std::map<SubqueryKey, std::shared_ptr<const sql::EvalContext::SubqueryRows>> subquery_cache_;
  // Correlated subqueries' rows, by statement node and row limit, then by
  // the enclosing columns a run read (usually one such list per subquery),
  // then by those columns' values (ExactKey in select.cc).
  struct CorrelatedRuns {
    std::map<std::vector<const sql::Expr*>,
             std::map<std::vector<std::string>, std::shared_ptr<const sql::EvalContext::SubqueryRows>>>
        by_columns;
    size_t runs = 0;
  };
  std::map<SubqueryKey, CorrelatedRuns> correlated_cache_;
  size_t correlated_cached_values_ = 0;  // bounds the memory it takes
  bool holds_ddl_lock_ = false;
  std::vector<std::string> ddl_keys_;  // the metadata locks BeginDdl took
  bool in_write_ = false;
};

}  // namespace sluice::exec
