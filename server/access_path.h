// server/access_path.h
//
// How the rows of one table of a statement are read: the access path. It
// is chosen from the WHERE (or a join's ON) before any row is read
// (PlanAccess) and its bounds are evaluated when the rows are read
// (ReadRows), so one plan serves every outer row of a nested-loop join and
// EXPLAIN can print it without reading anything.
//
// A conjunct bounds the path when it compares one of the table's own
// columns with an expression that has none of them: a constant, a `?`, or a
// column of a table joined before this one (ExprOnlyOuter).
//
// Paths (MySQL's EXPLAIN `type`):
//   kConst  equality on every part of the PRIMARY KEY, against constants
//   kEqRef  the same, against columns of an earlier table (a join)
//   kRange  =, IN of one value, BETWEEN, <, <=, >, >= on the PRIMARY KEY's
//           first part
//   kAll    the whole clustered index
// Key ranges are used only on integer key columns (string keys are stored
// in binary order, not their collation's). Every row read is re-checked
// against the whole condition by the caller.
//
// Thread-safety: plain values; ReadRows runs on the statement's thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "server/sql/ast.h"
#include "server/sql/eval.h"
#include "storage/catalog/table_def.h"
#include "storage/catalog/row_codec.h"
#include "storage/lock/lock_types.h"

namespace sluice::storage {
class Engine;
class EngineTrx;
}  // namespace sluice::storage

namespace sluice::server {

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
  enum class Type : uint8_t { kAll, kConst, kEqRef, kRange };
  Type type = Type::kAll;
  // The index read (a position in def.indexes; 0 is the clustered index);
  // -1 for kAll.
  int index = -1;
  // kConst / kEqRef: one expression per key part, in part order.
  std::vector<const sql::Expr*> key;
  // kRange on the index's first part: every bound given (the tightest one
  // wins at read time); `strict` for < and >.
  struct Bound {
    const sql::Expr* expr = nullptr;
    bool strict = false;
  };
  std::vector<Bound> lo, hi;
  // EXPLAIN's `type` column.
  std::string_view TypeName() const;
};

// Chooses the path for `table` from the conjuncts of `cond` (null: none).
AccessPath PlanAccess(const BoundTable& table, const sql::Expr* cond);

// Reads the rows of `table` along `path` (bounds evaluated in `eval`) in the
// index's order; a bound that is NULL or that the key column cannot hold
// reads nothing for an equality. `lock`: FOR UPDATE / FOR SHARE (and the
// reads of UPDATE/DELETE) read the latest versions and lock them, next-key
// locks over a range. Stops when `fn` returns false or an error.
Status ReadRows(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table, const AccessPath& path,
                sql::EvalContext& eval, std::optional<storage::LockMode> lock,
                const std::function<Result<bool>(const storage::Row&)>& fn);

}  // namespace sluice::server
