// exec/access_path.h
//
// How the rows of one table of a statement are read: the access path. It
// is chosen from the WHERE (or a join's ON) before any row is read
// (PlanAccess) and its bounds are evaluated when the rows are read
// (ReadRows), so one plan serves every outer row of a nested-loop join and
// EXPLAIN can print it without reading anything (ExplainAccess).
//
// A conjunct bounds the path when it compares one of the table's own
// columns with an expression that has none of them: a constant, a `?`, or a
// column of a table joined before this one (ExprOnlyOuter).
//
// Paths (MySQL's EXPLAIN `type`), in the order PlanAccess prefers them:
//   kConst  equality on every part of the PRIMARY KEY, or of a UNIQUE
//           index (`<=>` and IS NULL only on NOT NULL columns: a UNIQUE
//           index holds any number of NULLs), against constants
//   kEqRef  the same, against columns of an earlier table (a join)
//   kRef    equality (=, <=>, IN of one value, IS NULL) on the leading
//           parts of an index (the most parts wins; the PRIMARY KEY first
//           on a tie)
//   kRange  =, IN of one value, BETWEEN, <, <=, >, >= on one key part,
//           after equalities on the parts before it: the PRIMARY KEY's,
//           else a secondary index's; or IN of several values there, read
//           as one lookup per distinct value (MySQL's equality ranges)
//   kIndex  a whole index in its order, when that is ORDER BY's order
//           (the PRIMARY KEY; a secondary index only with a LIMIT, as the
//           executor can then stop early)
//   kAll    the whole clustered index
// Which key columns a path may use: ranges and ORDER BY only integer, DATE
// and DATETIME columns (their key order is their SQL order); equality also
// strings: BINARY/VARBINARY/BLOB columns, and text columns whose keys
// follow their collation (storage/catalog/row_codec.h: every index made
// since collation keys; an older one only under a binary collation), when
// the comparison's collation is the column's (`s = 'a' COLLATE
// utf8mb4_bin` on a utf8mb4_0900_ai_ci column reads without the key). FLOAT,
// DOUBLE, DECIMAL, TIME, TIMESTAMP, YEAR and ENUM key parts are not used
// yet. A bound value that the key column cannot hold exactly widens the
// read (to the whole table for an equality, to no bound for a range end),
// so a path never misses a row; every row read is re-checked against the
// whole condition by the caller.
//
// Locking reads (FOR UPDATE / FOR SHARE, the reads of UPDATE and DELETE,
// every read in SERIALIZABLE) do not lock through secondary indexes yet:
// whatever the path, they read the clustered index with the PRIMARY KEY
// bounds the condition gives (pk_key / pk_lo / pk_hi), in PRIMARY KEY
// order, taking the engine's record, gap and next-key locks.
//
// Thread-safety: plain values; ReadRows runs on the statement's thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "base/function_ref.h"
#include "base/status.h"
#include "sql/ast.h"
#include "sql/eval.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"
#include "storage/lock/lock_types.h"

namespace sluice::storage {
class Engine;
class EngineTrx;
}  // namespace sluice::storage

namespace sluice::exec {

// Conjuncts, key expressions, bounds: a statement has a handful, kept in
// place (planning a point query allocates nothing for them).
using ExprList = boost::container::small_vector<const sql::Expr*, 4>;

// A table as a statement names it: its definition and the name its columns
// are qualified with (the alias, else the table's name).
struct BoundTable {
  const storage::TableDef* def = nullptr;
  std::string qualifier;
  // True when `e` is a column of this table: qualified with `qualifier`
  // (case-insensitively), or unqualified and the table has that column.
  bool Owns(const sql::Expr& e) const;
  // True when `e` has a column of this table anywhere in it.
  bool Mentions(const sql::Expr& e) const;
};

struct AccessPath {
  enum class Type : uint8_t { kAll, kConst, kEqRef, kRange, kRef, kIndex };
  Type type = Type::kAll;
  // The index read (a position in def.indexes; 0 is the clustered index);
  // -1 for kAll.
  int index = -1;
  // kConst / kEqRef / kRef: one expression per key part looked up, in part
  // order (every part for kConst / kEqRef, the leading ones for kRef); for
  // kRange, the equal parts before the ranged one (usually none).
  ExprList key;
  // Per `key` entry: a NULL value looks up the NULL key (<=>, IS NULL)
  // instead of matching nothing (=).
  using KeyFlags = boost::container::small_vector<bool, 4>;
  KeyFlags key_null_safe;
  // kRange on part key.size() of the index: every bound given (the
  // tightest one wins at read time); `strict` for < and >.
  struct Bound {
    const sql::Expr* expr = nullptr;
    bool strict = false;
  };
  using Bounds = boost::container::small_vector<Bound, 2>;
  Bounds lo, hi;
  // kRange by a list instead (col IN (v1, v2, ...) on part key.size()):
  // the values looked up, each distinct one once, in key order.
  ExprList in_list;
  // The rows come in the ORDER BY order PlanAccess was given (every item a
  // plain column of this table, all in one direction): by the index, read
  // backwards when `reverse`. A locking read comes in PRIMARY KEY order
  // instead: see OrderedWhenLocking().
  bool ordered = false;
  bool reverse = false;
  // What locking reads use (see the top): equality on the PRIMARY KEY's
  // leading parts, then bounds on the next part.
  ExprList pk_key;
  Bounds pk_lo, pk_hi;
  ExprList pk_in_list;  // IN on the part after pk_key
  // EXPLAIN: the indexes (positions) some conjunct could read by
  // (possible_keys), and the conjuncts the key lookup itself enforces (the
  // rest make "Using where").
  boost::container::small_vector<int, 4> possible;
  ExprList key_conjuncts;
  // kRange: the conjuncts that gave `lo` / `hi` (col BETWEEN a AND b,
  // col < a, ...). With key_conjuncts, what a read of the clustered index
  // whose key values and bounds were all exact has enforced already
  // (ReadRows' *key_exact).
  ExprList range_conjuncts;

  // EXPLAIN's `type` column.
  std::string_view TypeName() const;
  // Whether a locking read along this path still comes in ORDER BY order:
  // a single-row path, or an ordered one on the clustered index forwards.
  bool OrderedWhenLocking() const;
};

// The conjuncts of `e` (its AND-ed parts, recursively) appended to `out`;
// nothing for null.
void SplitConjuncts(const sql::Expr* e, ExprList* out);

// Chooses the path for `table` from the conjuncts of `cond` (null: none).
// `order_by` (optional): the statement's ORDER BY, when its items are
// expressions (not select-list aliases or positions, which the caller
// resolves first); the path is marked `ordered` when it delivers that
// order, and a whole-index read in that order replaces a whole-table one
// for the PRIMARY KEY, or, with `has_limit`, for a secondary index.
AccessPath PlanAccess(const BoundTable& table, const sql::Expr* cond,
                      const std::vector<sql::OrderItem>* order_by = nullptr, bool has_limit = false);
// The same from a condition already split into conjuncts (a join level's).
AccessPath PlanAccess(const BoundTable& table, const ExprList& conjuncts,
                      const std::vector<sql::OrderItem>* order_by = nullptr, bool has_limit = false);

// Reads the rows of `table` along `path` (bounds evaluated in `eval`) in the
// index's order (backwards for a `reverse` path); a bound that is NULL reads
// nothing for an equality (but the NULL key for a null-safe one) and for a
// range. `lock`: FOR UPDATE / FOR SHARE (and the reads of UPDATE/DELETE)
// read the latest versions and lock them, next-key locks over a range,
// through the clustered index (see the top); SERIALIZABLE reads lock
// shared. Stops when `fn` returns false or an error.
//
// `key_exact` (optional) is set before the first row: true when the read
// went by the clustered index on integer key parts and every key value and
// bound was a value those columns hold exactly, so each row read satisfies
// path.key_conjuncts and path.range_conjuncts (a non-locking read only).
Status ReadRows(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table, const AccessPath& path,
                sql::EvalContext& eval, std::optional<storage::LockMode> lock,
                FunctionRef<Result<bool>(const storage::Row&)> fn, bool* key_exact = nullptr);

// How many rows ReadRows would read along `path` without a lock (EXPLAIN's
// `rows`; it reads them, so it costs what the read costs), at most `cap`.
Result<uint64_t> CountPathRows(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table,
                               const AccessPath& path, sql::EvalContext& eval, uint64_t cap = UINT64_MAX);

// One row of MySQL's traditional EXPLAIN for one table (the caller adds
// id, select_type and partitions). Absent values print as NULL.
struct ExplainRow {
  std::string table;
  std::optional<std::string> type;
  std::optional<std::string> possible_keys, key, key_len, ref;
  std::optional<uint64_t> rows;
  std::optional<double> filtered;
  std::optional<std::string> extra;
};

// What the statement adds to the path for EXPLAIN.
struct ExplainHints {
  // The condition the path was planned from: `cond`'s conjuncts and
  // `conjuncts`.
  const sql::Expr* cond = nullptr;
  ExprList conjuncts;
  uint64_t rows = 0;                // the estimate (CountPathRows, or the LIMIT of an ordered read)
  // The columns (ordinals) the statement uses from this table; null: all of
  // them. When they are all in the index read: "Using index".
  const std::vector<uint32_t>* columns = nullptr;
  bool temporary = false;  // "Using temporary" (grouping, DISTINCT)
  bool filesort = false;   // "Using filesort" (ORDER BY not delivered by the path)
  // How EXPLAIN's `ref` names a key expression that is another table's
  // column (MySQL: db.table.column); null: "func" for it. Constants print
  // as "const", other expressions as "func".
  std::function<std::string(const sql::Expr&)> ref_name;
};

// EXPLAIN's columns for `path` on `table`: type, possible_keys, key,
// key_len (MySQL's byte lengths of the key parts used: INT 4, BIGINT 8, +1
// when nullable, +2 for a variable-length string, ...), ref, rows,
// filtered (MySQL's default selectivities for conditions on columns no
// index covers: 10% for =, 33.33% for < and >, ...), and Extra.
ExplainRow ExplainAccess(const BoundTable& table, const AccessPath& path, const ExplainHints& hints);

}  // namespace sluice::exec
