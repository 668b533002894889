// sql/ast.h
//
// The syntax tree the parser builds: expressions (Expr) and statements (Stmt
// and its subclasses, one per StmtKind). Nodes own their children through
// unique_ptr; a statement tree is immutable once parsed and may be read from
// any thread. Source spans (begin/end) are byte offsets into the query text
// the statement was parsed from.
//
// Growing the grammar: add an ExprKind or a StmtKind and a struct deriving
// from Stmt; callers dispatch on `kind` and downcast with Stmt::As<T>().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "sql/lexer.h"
#include "sql/value.h"

namespace sluice::sql {

// ---------------------------------------------------------------- expressions

enum class ExprKind : uint8_t {
  kLiteral,       // value; hex_literal for X'..' / 0x.. / b'..'
  kUserVar,       // @name: name
  kAssignUserVar, // @name := args[0]
  kSysVar,        // @@[scope.]name: name, scope
  kColumn,        // [schema.][table.]name
  kParam,         // ? : param_index (0-based, in statement order)
  kDefault,       // DEFAULT (only as a SET value)
  kUnary,         // op args[0]: kNeg, kBitNot, kNot
  kBinary,        // args[0] op args[1]
  kIs,            // args[0] IS [NOT] is_what
  kLike,          // args[0] [NOT] LIKE args[1] [ESCAPE args[2]]
  kRegexp,        // args[0] [NOT] REGEXP args[1]
  kIn,            // args[0] [NOT] IN (args[1..])
  kBetween,       // args[0] [NOT] BETWEEN args[1] AND args[2]
  kCase,          // CASE [operand] WHEN..THEN.. [ELSE]: see Expr::has_operand
  kCast,          // CAST(args[0] AS cast), CONVERT(args[0], cast), BINARY args[0]
  kConvertUsing,  // CONVERT(args[0] USING name)
  kCollate,       // args[0] COLLATE name
  kFunction,      // name(args): name as typed (compare ignoring case)
  kSubquery,      // (SELECT ...) as a value: `subquery`
  kExists,        // EXISTS (SELECT ...): `subquery`
};

enum class Op : uint8_t {
  kNone,
  // logical
  kOr,
  kXor,
  kAnd,
  kNot,
  // comparison
  kEq,
  kNullSafeEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  // bit
  kBitOr,
  kBitAnd,
  kBitXor,
  kShl,
  kShr,
  kBitNot,
  // arithmetic
  kAdd,
  kSub,
  kMul,
  kDiv,     // /
  kIntDiv,  // DIV
  kMod,     // % and MOD
  kNeg,
  kConcat,  // || under PIPES_AS_CONCAT
};

enum class IsWhat : uint8_t { kNull, kTrue, kFalse, kUnknown };

enum class CastType : uint8_t {
  kSigned,
  kUnsigned,
  kChar,
  kBinary,
  kDecimal,
  kDouble,
  kFloat,
  kDate,
  kDatetime,
  kTime,
  kJson,
};

struct CastSpec {
  CastType type = CastType::kChar;
  int length = -1;     // CHAR(n) / BINARY(n); -1 when absent
  int precision = -1;  // DECIMAL(p[,s]); DATETIME(fsp) / TIME(fsp) in `scale`
  int scale = -1;
  std::string charset;  // CHAR CHARACTER SET x; "" when absent
};

enum class TrimSide : uint8_t { kBoth, kLeading, kTrailing };

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;
// An expression's operands: two in place (most operators and functions
// take one or two), so parsing `a = 1` allocates no list for them.
using ExprArgs = boost::container::small_vector<ExprPtr, 2>;
struct SelectStmt;
class InSet;  // eval.cc

struct Expr {
  explicit Expr(ExprKind k) : kind(k) {}
  // Frees the subtree without recursing: a 20,000-term a+b+... chain is a
  // 20,000-deep tree, and unique_ptr's own recursion would overflow the
  // stack (subqueries still recurse, as deep as the parser lets them nest).
  ~Expr();
  Expr(Expr&&) = default;
  Expr& operator=(Expr&&) = default;

  ExprKind kind;
  Op op = Op::kNone;
  Value value;               // kLiteral
  bool hex_literal = false;  // kLiteral written as hex/bit: a number in numeric context
  std::string name;          // variable, column, function, charset or collation name
  std::string table;         // kColumn qualifier; "" if none
  std::string schema;        // kColumn schema qualifier; "" if none
  VarScope scope = VarScope::kDefault;  // kSysVar
  IsWhat is_what = IsWhat::kNull;       // kIs
  bool negated = false;      // IS NOT / NOT LIKE / NOT IN / NOT BETWEEN / NOT REGEXP
  bool star = false;         // kFunction: COUNT(*)
  bool distinct = false;     // kFunction: COUNT(DISTINCT ...)
  bool has_operand = false;  // kCase: args[0] is the CASE operand
  bool has_else = false;     // kCase: the last arg is the ELSE result
  TrimSide trim_side = TrimSide::kBoth;  // kFunction TRIM with explicit side
  CastSpec cast;             // kCast
  int param_index = -1;      // kParam
  // kSubquery, kExists, and kIn with a subquery (x IN (SELECT ...): args
  // is {x}). Shared so that an Expr stays cheap to copy by SubstituteExpr.
  std::shared_ptr<const SelectStmt> subquery;
  ExprArgs args;
  uint32_t begin = 0;  // source span in the query text
  uint32_t end = 0;
  // Parser bookkeeping: levels of the tree from this node down, subqueries
  // included (see kMaxExprHeight in parser.h); 0 until the parser sets it.
  uint32_t height = 0;
  // kIn over constants only (literals): the lookup set of its items, built
  // on first evaluation and kept with the statement (the items never
  // change), so each row's test is a hash lookup, not a pass over the list.
  mutable std::shared_ptr<const InSet> in_set;
};

// MySQL-like printed form for messages: (1 + 2), cast(`a` as signed), now().
std::string ExprToString(const Expr& e);

// True when `e` has a subquery in it (kSubquery, kExists, IN (SELECT ...)).
bool HasSubquery(const Expr& e);

// ---------------------------------------------------------------- statements

enum class StmtKind : uint8_t {
  kEmpty,  // only comments: answer OK
  kSelect,
  kSet,
  kSetTransaction,
  kSetPassword,
  kShow,
  kUse,
  kKill,
  kShutdown,
  kFlush,
  kStartTransaction,  // BEGIN / START TRANSACTION
  kCommit,
  kRollback,
  kDo,
  kCreateUser,
  kAlterUser,
  kDropUser,
  kRenameUser,
  kGrant,
  kRevoke,
  kInstallPlugin,
  kUninstallPlugin,
  kCreateDatabase,
  kDropDatabase,
  kCreateTable,
  kDropTable,
  kTruncate,
  kSavepoint,  // SAVEPOINT / RELEASE SAVEPOINT
  kLockTables,
  kUnlockTables,
  kInsert,   // INSERT and REPLACE
  kUpdate,
  kDelete,
  kCreateIndex,  // CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX name ON t (key_parts)
  kDropIndex,    // DROP INDEX name ON t
  kAlterTable,   // ALTER TABLE t alter_spec, ...
  kRenameTable,  // RENAME TABLE a TO b, ...
  kPrepare,           // PREPARE name FROM 'text' | @var
  kExecute,           // EXECUTE name [USING @a, ...]
  kDeallocatePrepare, // {DEALLOCATE | DROP} PREPARE name
  kExplain,           // {EXPLAIN | DESCRIBE | DESC} [FORMAT = f] explainable statement
  kPurgeBinaryLogs,   // PURGE {BINARY | MASTER} LOGS {TO 'name' | BEFORE expr}
  kResetMaster,       // RESET MASTER [TO n] / RESET BINARY LOGS AND GTIDS [TO n]
};

struct Stmt {
  explicit Stmt(StmtKind k) : kind(k) {}
  virtual ~Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // REQUIRES: T is the struct for `kind`.
  template <typename T>
  const T& As() const {
    return static_cast<const T&>(*this);
  }

  const StmtKind kind;
};

// 'name'@'host'. Host defaults to "%" and is lower-cased.
struct UserSpec {
  std::string name;
  std::string host = "%";
  bool current_user = false;  // CURRENT_USER[()] (or USER() in ALTER USER)
  std::string ToString() const;  // 'name'@'host', or CURRENT_USER
};

// ---- SELECT

struct SelectItem {
  ExprPtr expr;              // null for * and t.*
  bool star = false;
  std::string star_table;    // t in t.*
  std::string alias;
  bool has_alias = false;
  std::string text;          // the expression as typed
  // The result column name MySQL gives: the alias, else a string literal's
  // value, else "NULL" for NULL, else the expression text as typed.
  std::string ColumnName() const;
};

// How a table in FROM joins the tables before it.
enum class JoinKind : uint8_t {
  kComma,     // FROM a, b (and the first table)
  kInner,     // [INNER | CROSS] JOIN, STRAIGHT_JOIN
  kLeft,      // LEFT [OUTER] JOIN
  kRight,     // RIGHT [OUTER] JOIN
};

struct TableRef {
  std::string schema;  // "" if unqualified
  std::string name;
  std::string alias;   // "" if none
  // In a SELECT's FROM list, each table after the first joins the ones
  // before it (left-deep: a JOIN b ON x JOIN c ON y).
  JoinKind join = JoinKind::kComma;
  bool natural = false;                    // NATURAL [LEFT|RIGHT] JOIN
  std::shared_ptr<const Expr> on;          // ON condition; null if none
  std::vector<std::string> using_columns;  // USING (a, b)
};

struct OrderItem {
  ExprPtr expr;
  bool desc = false;
};

struct SelectStmt : Stmt {
  SelectStmt() : Stmt(StmtKind::kSelect) {}
  bool distinct = false;
  bool calc_found_rows = false;
  bool sql_no_cache = false;
  std::vector<SelectItem> items;
  bool from_dual = false;
  std::vector<TableRef> from;  // empty without FROM (and for FROM DUAL)
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<OrderItem> order_by;
  ExprPtr limit;   // integer literal or ?; null if absent
  ExprPtr offset;  // null if absent
  // FOR UPDATE / FOR SHARE / LOCK IN SHARE MODE (a locking read).
  enum class Lock : uint8_t { kNone, kForUpdate, kForShare };
  Lock lock = Lock::kNone;
  // FOR UPDATE / FOR SHARE ... NOWAIT or SKIP LOCKED.
  enum class LockWait : uint8_t { kWait, kNowait, kSkipLocked };
  LockWait lock_wait = LockWait::kWait;
};

// ---- SET

struct SetItem {
  enum class Kind : uint8_t {
    kUserVar,    // @name = value
    kSystemVar,  // [scope] name = value / @@[scope.]name = value
    kNames,      // NAMES charset [COLLATE collation]
    kCharset,    // CHARACTER SET charset / CHARSET charset
  };
  Kind kind = Kind::kUserVar;
  VarScope scope = VarScope::kDefault;
  std::string name;  // variable name; "component.name" for component variables
  // kUserVar / kSystemVar. A kDefault node for DEFAULT. For system variables a
  // bare word (ON, OFF, TRADITIONAL, utf8mb4) arrives as a string literal.
  ExprPtr value;
  std::string charset;    // kNames / kCharset; "" for DEFAULT
  std::string collation;  // kNames COLLATE; "" if absent or DEFAULT
};

struct SetStmt : Stmt {
  SetStmt() : Stmt(StmtKind::kSet) {}
  std::vector<SetItem> items;
};

enum class IsolationLevel : uint8_t {
  kReadUncommitted,
  kReadCommitted,
  kRepeatableRead,
  kSerializable,
};

// "READ-COMMITTED" etc., the spelling of transaction_isolation values.
const char* IsolationLevelName(IsolationLevel level);

struct SetTransactionStmt : Stmt {
  SetTransactionStmt() : Stmt(StmtKind::kSetTransaction) {}
  VarScope scope = VarScope::kDefault;  // kDefault: the next transaction only
  std::optional<IsolationLevel> isolation;
  std::optional<bool> read_only;
};

struct SetPasswordStmt : Stmt {
  SetPasswordStmt() : Stmt(StmtKind::kSetPassword) {}
  std::optional<UserSpec> user;  // absent: the current user
  std::string password;
};

// ---- SHOW

enum class ShowKind : uint8_t {
  kVariables,
  kStatus,
  kProcesslist,
  kDatabases,
  kWarnings,
  kErrors,
  kGrants,
  kCreateUser,
  kMasterStatus,  // SHOW MASTER STATUS / SHOW BINARY LOG STATUS
  kBinaryLogs,    // SHOW BINARY LOGS / SHOW MASTER LOGS
  kReplicas,      // SHOW REPLICAS / SHOW SLAVE HOSTS
  kEngines,
  kEngineStatus,  // SHOW ENGINE <engine> STATUS
  kCharset,
  kCollation,
  kPlugins,
  kPrivileges,
  kTables,          // SHOW [FULL] TABLES [FROM db] [LIKE | WHERE]
  kColumns,         // SHOW [FULL] COLUMNS|FIELDS FROM t [FROM db] [LIKE | WHERE]; DESCRIBE t
  kCreateTable,     // SHOW CREATE TABLE t
  kCreateDatabase,  // SHOW CREATE DATABASE|SCHEMA [IF NOT EXISTS] db
  kIndex,           // SHOW INDEX|INDEXES|KEYS FROM t [FROM db]
  kTableStatus,     // SHOW TABLE STATUS [FROM db] [LIKE | WHERE]
  kBinlogEvents,    // SHOW BINLOG EVENTS [IN 'log'] [FROM pos] [LIMIT [offset,] count]
};

struct ShowStmt : Stmt {
  ShowStmt() : Stmt(StmtKind::kShow) {}
  ShowKind what = ShowKind::kVariables;
  VarScope scope = VarScope::kDefault;  // VARIABLES / STATUS
  bool full = false;                    // PROCESSLIST
  bool count_only = false;              // SHOW COUNT(*) WARNINGS|ERRORS
  std::optional<std::string> like;      // LIKE 'pattern'
  ExprPtr where;                        // WHERE expr
  ExprPtr limit;                        // WARNINGS / ERRORS / BINLOG EVENTS LIMIT
  ExprPtr offset;
  std::optional<UserSpec> user;         // GRANTS FOR / CREATE USER
  std::string engine;                   // ENGINE <engine> STATUS
  std::string database;                 // TABLES / COLUMNS / INDEX / TABLE STATUS FROM db;
                                        // CREATE DATABASE db
  TableRef table;                       // COLUMNS / CREATE TABLE / INDEX
  bool if_not_exists = false;           // SHOW CREATE DATABASE IF NOT EXISTS
  std::string log_name;                 // BINLOG EVENTS IN 'log'; "" for the first file
  std::optional<uint64_t> from_pos;     // BINLOG EVENTS FROM pos
};

// ---- session and server control

struct UseStmt : Stmt {
  UseStmt() : Stmt(StmtKind::kUse) {}
  std::string database;
};

struct KillStmt : Stmt {
  KillStmt() : Stmt(StmtKind::kKill) {}
  bool query_only = false;  // KILL QUERY
  ExprPtr id;
};

struct ShutdownStmt : Stmt {
  ShutdownStmt() : Stmt(StmtKind::kShutdown) {}
};

enum class FlushOption : uint8_t {
  kPrivileges,
  kLogs,
  kBinaryLogs,
  kEngineLogs,
  kErrorLogs,
  kGeneralLogs,
  kRelayLogs,
  kSlowLogs,
  kTables,
  kTablesWithReadLock,
  kStatus,
  kHosts,
  kUserResources,
  kOptimizerCosts,
};

struct FlushStmt : Stmt {
  FlushStmt() : Stmt(StmtKind::kFlush) {}
  bool no_write_to_binlog = false;  // LOCAL / NO_WRITE_TO_BINLOG
  std::vector<FlushOption> options;
};

struct StartTransactionStmt : Stmt {
  StartTransactionStmt() : Stmt(StmtKind::kStartTransaction) {}
  bool consistent_snapshot = false;
  std::optional<bool> read_only;
};

struct CommitStmt : Stmt {
  CommitStmt() : Stmt(StmtKind::kCommit) {}
};

struct RollbackStmt : Stmt {
  RollbackStmt() : Stmt(StmtKind::kRollback) {}
  std::string savepoint;  // ROLLBACK [WORK] TO [SAVEPOINT] name; "" for a whole ROLLBACK
};

// SAVEPOINT name / RELEASE SAVEPOINT name.
struct SavepointStmt : Stmt {
  SavepointStmt() : Stmt(StmtKind::kSavepoint) {}
  std::string name;
  bool release = false;
};

// UNLOCK TABLES; LOCK TABLES (parsed, not supported yet: no details kept).
// LOCK TABLES t [[AS] a] {READ [LOCAL] | [LOW_PRIORITY] WRITE}, ... / UNLOCK TABLES.
struct TableLocksStmt : Stmt {
  explicit TableLocksStmt(bool lock) : Stmt(lock ? StmtKind::kLockTables : StmtKind::kUnlockTables) {}
  struct Item {
    TableRef table;
    bool write = false;
  };
  std::vector<Item> tables;  // LOCK TABLES only
};

struct DoStmt : Stmt {
  DoStmt() : Stmt(StmtKind::kDo) {}
  std::vector<ExprPtr> exprs;
};

struct EmptyStmt : Stmt {
  EmptyStmt() : Stmt(StmtKind::kEmpty) {}
};

// ---- accounts and privileges

struct UserAuth {
  UserSpec user;
  bool identified = false;              // any IDENTIFIED clause
  std::string plugin;                   // IDENTIFIED WITH plugin; "" if absent
  std::optional<std::string> password;  // BY 'cleartext'
  std::optional<std::string> auth_string;  // AS 'hash'
};

struct CreateUserStmt : Stmt {
  CreateUserStmt() : Stmt(StmtKind::kCreateUser) {}
  bool if_not_exists = false;
  std::vector<UserAuth> users;
  std::optional<bool> account_locked;  // ACCOUNT LOCK / UNLOCK
};

struct AlterUserStmt : Stmt {
  AlterUserStmt() : Stmt(StmtKind::kAlterUser) {}
  bool if_exists = false;
  std::vector<UserAuth> users;
  std::optional<bool> account_locked;
};

struct DropUserStmt : Stmt {
  DropUserStmt() : Stmt(StmtKind::kDropUser) {}
  bool if_exists = false;
  std::vector<UserSpec> users;
};

struct RenameUserStmt : Stmt {
  RenameUserStmt() : Stmt(StmtKind::kRenameUser) {}
  std::vector<std::pair<UserSpec, UserSpec>> renames;  // from, to
};

// ON *.* / ON * / ON db.* / ON db.tbl / ON tbl.
struct PrivLevel {
  enum class Kind : uint8_t {
    kGlobal,     // *.*
    kCurrentDb,  // *  (all tables of the current database)
    kDatabase,   // db.*
    kTable,      // db.tbl, or tbl with db == ""
  };
  Kind kind = Kind::kGlobal;
  std::string db;
  std::string table;
};

struct GrantStmt : Stmt {
  GrantStmt() : Stmt(StmtKind::kGrant) {}
  // Upper case, words joined by one space: "SELECT", "REPLICATION SLAVE",
  // "ALL" for ALL [PRIVILEGES], or a dynamic privilege "BINLOG_ADMIN".
  std::vector<std::string> privileges;
  PrivLevel level;
  std::vector<UserSpec> users;
  bool with_grant_option = false;
};

struct RevokeStmt : Stmt {
  RevokeStmt() : Stmt(StmtKind::kRevoke) {}
  // REVOKE ALL [PRIVILEGES], GRANT OPTION FROM ...: privileges and level unset.
  bool all_and_grant_option = false;
  std::vector<std::string> privileges;
  PrivLevel level;
  std::vector<UserSpec> users;
};

struct InstallPluginStmt : Stmt {
  InstallPluginStmt() : Stmt(StmtKind::kInstallPlugin) {}
  std::string name;
  std::string soname;
};

struct UninstallPluginStmt : Stmt {
  UninstallPluginStmt() : Stmt(StmtKind::kUninstallPlugin) {}
  std::string name;
};

// ---- DDL

struct CreateDatabaseStmt : Stmt {
  CreateDatabaseStmt() : Stmt(StmtKind::kCreateDatabase) {}
  bool if_not_exists = false;
  std::string name;
  std::string charset;    // [DEFAULT] CHARACTER SET|CHARSET [=] x; "" when absent
  std::string collation;  // [DEFAULT] COLLATE [=] x; "" when absent
};

struct DropDatabaseStmt : Stmt {
  DropDatabaseStmt() : Stmt(StmtKind::kDropDatabase) {}
  bool if_exists = false;
  std::string name;
};

// A column's type as written, with MySQL's synonyms folded: INTEGER -> INT,
// BOOL/BOOLEAN -> TINYINT(1), DEC/NUMERIC/FIXED -> DECIMAL, REAL and DOUBLE
// PRECISION -> DOUBLE, CHARACTER -> CHAR, CHARACTER VARYING -> VARCHAR,
// NATIONAL/NCHAR/NVARCHAR -> CHAR/VARCHAR with charset utf8mb3, INT1..INT8
// -> TINYINT..BIGINT, MIDDLEINT -> MEDIUMINT, LONG VARCHAR -> MEDIUMTEXT.
struct DataType {
  std::string name;  // upper case: TINYINT .. BIGINT, DECIMAL, FLOAT, DOUBLE,
                     // CHAR, VARCHAR, BINARY, VARBINARY, TINYTEXT .. LONGTEXT,
                     // TINYBLOB .. LONGBLOB, DATE, TIME, DATETIME, TIMESTAMP,
                     // YEAR, ENUM, SET, BIT, JSON
  int length = -1;   // (M): integer display width, CHAR/BINARY length, TEXT(M),
                     // DECIMAL precision, FLOAT(p); fsp of TIME/DATETIME/TIMESTAMP;
                     // -1 when absent
  int scale = -1;    // DECIMAL(M,D), FLOAT(M,D), DOUBLE(M,D); -1 when absent
  bool is_unsigned = false;
  bool zerofill = false;               // implies UNSIGNED in MySQL
  bool binary = false;                 // CHAR(n) BINARY: the charset's _bin collation
  std::vector<std::string> values;     // ENUM / SET members, unquoted
  std::string charset;                 // CHARACTER SET|CHARSET x; "" when absent
  std::string collation;               // COLLATE x; "" when absent
};

struct ColumnDefinition {
  std::string name;
  DataType type;
  std::optional<bool> nullable;  // NULL / NOT NULL; nullopt when not said
  ExprPtr default_value;         // DEFAULT literal | (expr) | CURRENT_TIMESTAMP[(fsp)]; null if absent
  bool on_update_now = false;    // ON UPDATE CURRENT_TIMESTAMP[(fsp)]
  bool auto_increment = false;
  bool primary_key = false;      // [PRIMARY] KEY on the column
  bool unique = false;           // UNIQUE [KEY] on the column
  std::string comment;           // COMMENT 'x'
  // [GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED]: the expression's text
  // as typed ("" for an ordinary column).
  std::string generated_expr;
  bool generated_stored = false;
};

struct IndexPartSpec {
  std::string column;
  int prefix_length = 0;  // col(N); 0 when absent
  bool desc = false;      // DESC (ASC is the default)
};

struct IndexSpec {
  enum class Kind : uint8_t { kPrimary, kUnique, kKey, kFulltext, kSpatial };
  Kind kind = Kind::kKey;
  std::string name;  // "" when not given (PRIMARY KEY has none)
  std::vector<IndexPartSpec> parts;
  std::string comment;  // COMMENT 'x'
};

// FOREIGN KEY clauses are parsed and kept only as text (MySQL's InnoDB
// enforces them; sluice reports them unsupported).

// CHECK (expr) [[NOT] ENFORCED], of a table or of one column.
struct CheckSpec {
  std::string name;      // CONSTRAINT name; "" when not given
  std::string expr;      // the expression's text as typed, without CHECK's parentheses
  bool enforced = true;  // NOT ENFORCED: kept and shown, not checked
  std::string column;    // a column's CHECK: that column; "" for a table's
};

// [CONSTRAINT [name]] FOREIGN KEY [index_name] (col, ...) REFERENCES
// [db.]t (col, ...) [MATCH ...] [ON DELETE action] [ON UPDATE action].
struct ForeignKeySpec {
  enum class Action : uint8_t { kNoAction, kRestrict, kCascade, kSetNull, kSetDefault };
  std::string name;        // CONSTRAINT name; "" when not given
  std::string index_name;  // FOREIGN KEY index_name; "" when not given
  std::vector<std::string> columns;
  TableRef ref_table;
  std::vector<std::string> ref_columns;
  Action on_delete = Action::kNoAction;
  Action on_update = Action::kNoAction;
};

struct TableOptions {
  std::string engine;     // ENGINE [=] x; "" when absent
  std::string charset;    // [DEFAULT] CHARACTER SET|CHARSET [=] x
  std::string collation;  // [DEFAULT] COLLATE [=] x
  std::string comment;    // COMMENT [=] 'x'
  std::optional<uint64_t> auto_increment;  // AUTO_INCREMENT [=] n
  std::string row_format;  // ROW_FORMAT [=] x (accepted, not used)
};

struct CreateTableStmt : Stmt {
  CreateTableStmt() : Stmt(StmtKind::kCreateTable) {}
  bool if_not_exists = false;
  bool temporary = false;  // CREATE TEMPORARY TABLE
  TableRef table;
  std::vector<ColumnDefinition> columns;
  std::vector<IndexSpec> indexes;  // table-level PRIMARY KEY / UNIQUE / KEY / INDEX
  std::vector<ForeignKeySpec> foreign_keys;
  std::vector<CheckSpec> checks;          // table and column CHECKs, in order
  TableOptions options;
  std::optional<TableRef> like;  // CREATE TABLE t LIKE u / (LIKE u)
};

struct DropTableStmt : Stmt {
  DropTableStmt() : Stmt(StmtKind::kDropTable) {}
  bool if_exists = false;
  bool temporary = false;
  std::vector<TableRef> tables;
};

struct TruncateStmt : Stmt {
  TruncateStmt() : Stmt(StmtKind::kTruncate) {}
  TableRef table;
};

// One alter_spec of ALTER TABLE. Column names are as typed (compare them
// ignoring case).
struct AlterSpec {
  enum class Kind : uint8_t {
    kAddColumn,      // ADD [COLUMN] column [position]; ADD [COLUMN] (col, ...) gives one each
    kAddIndex,       // ADD {INDEX|KEY|UNIQUE|PRIMARY KEY|FULLTEXT|SPATIAL} ...: index
    kDropColumn,     // DROP [COLUMN] name
    kDropIndex,      // DROP {INDEX|KEY} name
    kDropPrimaryKey, // DROP PRIMARY KEY
    kModifyColumn,   // MODIFY [COLUMN] column [position]: column.name is the column changed
    kChangeColumn,   // CHANGE [COLUMN] name column [position]
    kRenameColumn,   // RENAME COLUMN name TO new_name
    kRenameIndex,    // RENAME {INDEX|KEY} name TO new_name
    kSetDefault,     // ALTER [COLUMN] name SET DEFAULT default_value
    kDropDefault,    // ALTER [COLUMN] name DROP DEFAULT
    kRenameTable,    // RENAME [TO|AS] new_table
    kForce,          // FORCE (rebuild)
    kDropCheck,      // DROP {CHECK | CONSTRAINT} name
    kAlterCheck,     // ALTER {CHECK | CONSTRAINT} name [NOT] ENFORCED: enforced
    kDropForeignKey, // DROP FOREIGN KEY name
  };
  // Where an added or changed column goes: kLast keeps a changed column in
  // its place and appends an added one.
  enum class Position : uint8_t { kLast, kFirst, kAfter };

  Kind kind = Kind::kAddColumn;
  std::string name;      // the column or index the spec names
  std::string new_name;  // kRenameColumn / kRenameIndex
  ColumnDefinition column;
  Position position = Position::kLast;
  std::string after;     // kAfter: the column
  IndexSpec index;       // kAddIndex
  ExprPtr default_value; // kSetDefault, as DEFAULT in a column definition
  TableRef new_table;    // kRenameTable
  bool enforced = true;  // kAlterCheck
  bool constraint = false;  // kDropCheck / kAlterCheck: CONSTRAINT (any kind) rather than CHECK
};

// ALTER TABLE [db.]t [alter_spec [, alter_spec] ...]. Table options
// (ENGINE, CHARSET, COLLATE, COMMENT, AUTO_INCREMENT, ...) may appear among
// the specs and are merged into `options`; ALGORITHM and LOCK are accepted
// and dropped.
struct AlterTableStmt : Stmt {
  AlterTableStmt() : Stmt(StmtKind::kAlterTable) {}
  TableRef table;
  std::vector<AlterSpec> specs;  // in statement order
  TableOptions options;
  std::vector<ForeignKeySpec> foreign_keys;  // ADD [CONSTRAINT] FOREIGN KEY ...
  std::vector<CheckSpec> checks;          // ADD CHECK (...) and added columns' CHECKs
  bool keys_toggled = false;  // DISABLE KEYS / ENABLE KEYS (a note for InnoDB)
};

// RENAME TABLE a TO b [, c TO d] ...: done in order, all or nothing.
struct RenameTableStmt : Stmt {
  RenameTableStmt() : Stmt(StmtKind::kRenameTable) {}
  std::vector<std::pair<TableRef, TableRef>> renames;  // from, to
};

// ---- DML

// col = expr in UPDATE ... SET and ON DUPLICATE KEY UPDATE. `value` may be a
// kDefault node (SET col = DEFAULT).
struct Assignment {
  ExprPtr column;  // a kColumn
  ExprPtr value;
};

struct InsertStmt : Stmt {
  InsertStmt() : Stmt(StmtKind::kInsert) {}
  bool replace = false;  // REPLACE
  bool ignore = false;   // INSERT IGNORE
  TableRef table;
  std::vector<std::string> columns;  // (a, b, ...); empty: every column in order
  // VALUES|VALUE (...), (...): each expression may be a kDefault node. SET
  // a = x, b = y arrives as `columns` plus one row.
  std::vector<std::vector<ExprPtr>> rows;
  std::unique_ptr<SelectStmt> select;  // INSERT ... SELECT (then rows is empty)
  std::vector<Assignment> on_duplicate;  // ON DUPLICATE KEY UPDATE
  std::string row_alias;                 // VALUES (...) AS alias (8.0.19+); "" if none
};

struct UpdateStmt : Stmt {
  UpdateStmt() : Stmt(StmtKind::kUpdate) {}
  bool ignore = false;
  TableRef table;  // single-table UPDATE
  std::vector<Assignment> set;
  ExprPtr where;
  std::vector<OrderItem> order_by;
  ExprPtr limit;  // null if absent
};

struct DeleteStmt : Stmt {
  DeleteStmt() : Stmt(StmtKind::kDelete) {}
  bool ignore = false;
  bool quick = false;
  TableRef table;  // single-table DELETE
  ExprPtr where;
  std::vector<OrderItem> order_by;
  ExprPtr limit;  // null if absent
};

// CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX name [USING type] ON t (key_part, ...)
// [index options] [ALGORITHM|LOCK ...]: index.kind is kKey unless UNIQUE /
// FULLTEXT / SPATIAL is given.
struct CreateIndexStmt : Stmt {
  CreateIndexStmt() : Stmt(StmtKind::kCreateIndex) {}
  IndexSpec index;
  TableRef table;
};

// DROP INDEX name ON t [ALGORITHM|LOCK ...].
struct DropIndexStmt : Stmt {
  DropIndexStmt() : Stmt(StmtKind::kDropIndex) {}
  std::string name;
  TableRef table;
};

// ---- SQL prepared statements (sharing the session's statement store with
// COM_STMT_PREPARE)

struct PrepareStmt : Stmt {
  PrepareStmt() : Stmt(StmtKind::kPrepare) {}
  std::string name;      // compared ignoring case
  std::string text;      // FROM 'text' (decoded); unused when from_variable
  bool from_variable = false;
  std::string variable;  // FROM @variable: its name
};

struct ExecuteStmt : Stmt {
  ExecuteStmt() : Stmt(StmtKind::kExecute) {}
  std::string name;
  std::vector<std::string> using_variables;  // USING @a, @b: the names
};

struct DeallocatePrepareStmt : Stmt {
  DeallocatePrepareStmt() : Stmt(StmtKind::kDeallocatePrepare) {}
  std::string name;
};

// ---- binary log administration

// PURGE {BINARY | MASTER} LOGS {TO 'log_name' | BEFORE expr}: exactly one of
// `to` (non-empty) and `before` (non-null) is set.
struct PurgeBinaryLogsStmt : Stmt {
  PurgeBinaryLogsStmt() : Stmt(StmtKind::kPurgeBinaryLogs) {}
  std::string to;
  ExprPtr before;  // a DATETIME-like expression (mysqld takes UNIX_TIMESTAMP(expr))
};

// RESET MASTER [TO n] / RESET BINARY LOGS AND GTIDS [TO n] (8.2+ name).
// The parser checks 1 <= n <= 2000000000 (3567 otherwise, as mysqld).
struct ResetMasterStmt : Stmt {
  ResetMasterStmt() : Stmt(StmtKind::kResetMaster) {}
  std::optional<uint64_t> to;  // the first file's number; absent: 1
};

// ---- EXPLAIN

// {EXPLAIN | DESCRIBE | DESC} [FORMAT = TRADITIONAL | JSON | TREE]
// {SELECT | UPDATE | DELETE | INSERT | REPLACE} ... ({DESCRIBE | EXPLAIN}
// tbl is SHOW COLUMNS, a ShowStmt).
struct ExplainStmt : Stmt {
  ExplainStmt() : Stmt(StmtKind::kExplain) {}
  std::string format;  // upper-cased FORMAT value; "" when absent (TRADITIONAL)
  std::unique_ptr<Stmt> stmt;  // the explained statement
};

}  // namespace sluice::sql
