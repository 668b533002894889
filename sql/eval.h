// sql/eval.h
//
// The expression evaluator: computes an Expr to a Value with MySQL's typing
// rules (integer arithmetic with overflow errors, exact DECIMAL, DOUBLE for
// strings in arithmetic, '/' giving DECIMAL with 4 more digits of scale,
// three-valued logic, string comparison by collation (collation.h)) and the
// built-in functions listed in functions.cc.
//
// Everything the evaluator needs from the session and server comes through
// EvalContext, which the server implements per statement.
//
// Thread-safety: Evaluate is reentrant; an EvalContext is used by the one
// thread running the statement. Blocking: only SLEEP(), through
// EvalContext::SleepFor.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/ast.h"
#include "sql/value.h"

namespace sluice::er {
struct Error;  // base/mysql_error.h
}  // namespace sluice::er

namespace sluice::sql {

class EvalContext {
 public:
  virtual ~EvalContext() = default;

  // @@name, @@session.name (scope kSession), @@global.name (kGlobal);
  // kDefault means the session value if the variable has one, else the
  // global. Unknown name: ER_UNKNOWN_SYSTEM_VARIABLE (1193); a session-only
  // variable read as global: ER_INCORRECT_GLOBAL_LOCAL_VAR (1238).
  virtual Result<Value> GetSystemVariable(std::string_view name, VarScope scope) = 0;

  // User variables; names compare ignoring case. Unset reads as NULL.
  virtual Value GetUserVariable(std::string_view name) = 0;
  virtual void SetUserVariable(std::string_view name, const Value& value) = 0;

  // A column reference (for SHOW ... WHERE, and later table rows).
  // Default: ER_BAD_FIELD_ERROR (1054) "Unknown column 'x' in 'field list'".
  virtual Result<Value> GetColumn(const Expr& column);

  // The rows of a subquery (kSubquery, kExists, x IN (SELECT ...)): at
  // most `max_rows` of them (enough to answer: 1 for EXISTS, 2 for a
  // scalar subquery), each with `columns` values. Runs in this context, so
  // a correlated subquery sees the current row's columns.
  // Default: 1235 (no tables to read here).
  // The rows are shared, not copied, by every evaluation that reuses them
  // (an uncorrelated subquery's, or a correlated one's for an outer row seen
  // before), and so is the lookup set x IN (SELECT ...) builds over them.
  struct SubqueryRows {
    size_t columns = 0;
    std::vector<std::vector<Value>> rows;
    // x IN (SELECT ...)'s set of the first column's values (eval.cc),
    // built by the first IN that reads these rows.
    mutable std::shared_ptr<const InSet> in_set;
  };
  virtual Result<std::shared_ptr<const SubqueryRows>> RunSubquery(const SelectStmt& select, uint64_t max_rows);

  // The value bound to placeholder `index` (prepared statements).
  // Default: ER_WRONG_ARGUMENTS (1210) "Incorrect arguments to EXECUTE".
  virtual Result<Value> GetParameter(int index);

  virtual std::optional<std::string> CurrentDatabase() = 0;
  virtual std::string User() = 0;         // USER(): "name@client-host"
  virtual std::string CurrentUser() = 0;  // CURRENT_USER(): "name@host-pattern"
  virtual uint64_t ConnectionId() = 0;
  virtual uint64_t LastInsertId() = 0;
  virtual void SetLastInsertId(uint64_t id) = 0;
  virtual int64_t FoundRows() = 0;
  virtual int64_t RowCount() = 0;
  virtual std::string ServerVersion() = 0;

  // The statement's start time: NOW() and friends return it for the whole
  // statement (SYSDATE() reads the clock instead). Shown in the system's
  // local time zone; UTC_* functions in UTC.
  virtual std::chrono::system_clock::time_point StatementTime() = 0;

  // Sleeps for `duration` unless the statement or connection is killed
  // first. True when the full time passed, false when interrupted (SLEEP()
  // then returns 1, as MySQL does).
  virtual bool SleepFor(std::chrono::nanoseconds duration) = 0;

  // Whether the statement must stop (KILL, max_execution_time, a vanished
  // client, shutdown): OK to go on, else the error to end it with. Long
  // loops call it, in the evaluator (the regular expression matcher) and in
  // the server's row loops; cheap enough to call per row. Default: never.
  virtual Status CheckInterrupt() { return Status::OK(); }

  // A condition MySQL raises as a warning while it evaluates (1292
  // Truncated incorrect ... value, 1365 Division by 0, 1264, 1411, 1441,
  // 1210, 1301), with its message. OK: it is recorded for SHOW WARNINGS,
  // or not at all where MySQL keeps quiet (1365 without
  // ERROR_FOR_DIVISION_BY_ZERO), and the evaluation goes on with the value
  // MySQL gives. An error: the statement's strict mode makes the condition
  // one (INSERT, REPLACE, UPDATE and DELETE under STRICT_*_TABLES, without
  // IGNORE), and the evaluation ends with it, as the statement then does.
  [[nodiscard]] virtual Status Warn(const er::Error& condition, std::string message) = 0;
  // True the first time this statement asks about `source`: a constant (a
  // literal, a parameter) read as a number warns once per statement, as
  // MySQL converts it once, however many rows compare with it. Default:
  // always true.
  virtual bool FirstWarningFrom(const void* /*source*/) { return true; }

  // Results longer than this become NULL with warning 1301 (REPEAT, LPAD...).
  virtual uint64_t MaxAllowedPacket() { return 64 * 1024 * 1024; }

  // Functions the server answers because they read or change the
  // server's state (GTID sets, user-level locks; exec/session_eval.cc).
  // IsServerFunction says whether `name` (upper case) is one, before any
  // argument is evaluated (an unknown name is 1305 at once);
  // CallServerFunction answers it from the evaluated `args`. Default:
  // none.
  virtual bool IsServerFunction(std::string_view /*name*/) const { return false; }
  virtual Result<Value> CallServerFunction(std::string_view name, std::vector<Value>& args);
};

// Evaluates `expr`. Errors are MySQL errors for the client: 1690 on BIGINT
// or DOUBLE overflow, 1305 for an unknown function, 1582 for a wrong
// argument count, and whatever the context returns.
Result<Value> Evaluate(const Expr& expr, EvalContext& ctx);

// The truth of a condition's value, as WHERE, HAVING, AND / OR / XOR / NOT,
// IS TRUE / FALSE, IF() and CASE WHEN read it: nullopt for NULL, else
// whether it is not zero. A string is its leading number, and warns 1292
// `Truncated incorrect DOUBLE value` when more than spaces follow it, as
// MySQL does (an error in a strict INSERT / UPDATE / DELETE; `from`, the
// expression the value came from, lets a constant warn once a statement).
Result<std::optional<bool>> TruthOf(const Value& v, EvalContext& ctx, const Expr* from);
// Evaluates `cond` and returns its truth (TruthOf).
Result<std::optional<bool>> EvaluateTruth(const Expr& cond, EvalContext& ctx);

// The collation two strings compare with: binary when either is a binary
// string, else the collation of the one with the firmer coercibility (x
// COLLATE c over a column's collation over a literal's), `a`'s on a tie.
Collation ComparisonCollation(const Value& a, const Value& b);

// Three-way comparison with MySQL's rules: integers exactly, DECIMAL exactly,
// a number against a string as DOUBLE, a DATE/DATETIME/TIME against a string
// as temporal values, other strings by their ComparisonCollation (or by
// `collation` where given). nullopt when either side is NULL.
std::optional<int> CompareValues(const Value& a, const Value& b);
std::optional<int> CompareValues(const Value& a, const Value& b, Collation collation);
// ORDER BY's order of two values: as CompareValues, except that two ENUM
// values sort by their members' indexes (the order of the column's
// definition), as MySQL sorts an ENUM column, where comparisons and
// MIN()/MAX() take their text.
std::optional<int> CompareForOrder(const Value& a, const Value& b);

// The GROUP BY / DISTINCT / COUNT(DISTINCT) key of a value: two values get
// the same key exactly when MySQL puts them in one group. Strings by
// SortKey() under their collation ('a', 'A' and 'Á' share a key under the
// default utf8mb4_0900_ai_ci), binary strings and DATE/TIME values by their
// bytes, numbers by value, NULL by a key no other value has.
std::string GroupingKey(const Value& v);
// The same appended to *out.
void AppendGroupingKey(const Value& v, std::string* out);

}  // namespace sluice::sql
