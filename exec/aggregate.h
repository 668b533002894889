// exec/aggregate.h
//
// Aggregate functions for SELECT with GROUP BY (or aggregates alone): COUNT(*),
// COUNT([DISTINCT] e), SUM([DISTINCT] e), AVG([DISTINCT] e), MIN(e), MAX(e),
// with MySQL's result types: COUNT is BIGINT; SUM of integers and DECIMALs
// is DECIMAL (exact; DOUBLE only past 65 digits before the point), of
// anything else DOUBLE;
// AVG is DECIMAL with 4 more digits of scale (DOUBLE for DOUBLE input);
// MIN/MAX keep their argument's type. NULLs are skipped; an empty group
// gives NULL (COUNT gives 0).
//
// Thread-safety: one instance per statement.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "base/status.h"
#include "sql/ast.h"
#include "sql/eval.h"
#include "sql/value.h"

namespace sluice::exec {

// True for COUNT, SUM, AVG, MIN, MAX (any letter case).
bool IsAggregateFunction(const sql::Expr& e);
bool ContainsAggregate(const sql::Expr& e);

// A deep copy of `e` in which every node `replace` gives a value for becomes
// a literal of that value.
sql::ExprPtr SubstituteExpr(const sql::Expr& e,
                            const std::function<std::optional<sql::Value>(const sql::Expr&)>& replace);

// The aggregates of one query and their running state per group.
class Aggregates {
 public:
  // Registers every aggregate call inside `e` (not nested ones: 1111).
  Status Collect(const sql::Expr& e);
  size_t size() const { return calls_.size(); }

  struct State;
  // Fresh state for a new group.
  std::unique_ptr<State> NewGroup() const;
  // Feeds one row (its columns resolved by `row`) to every aggregate.
  Status Add(State& state, sql::EvalContext& row) const;
  // The value of aggregate node `call` for the group, or nullopt when `call`
  // is not one of this query's aggregates.
  std::optional<sql::Value> ValueOf(const State& state, const sql::Expr& call) const;

 private:
  std::vector<const sql::Expr*> calls_;
};

// Deleter-visible definition (opaque to users).
struct Aggregates::State {
  struct One {
    uint64_t count = 0;
    bool any = false;
    bool exact = true;        // SUM/AVG so far over integers/DECIMALs only
    sql::Decimal sum;         // exact sum
    double dsum = 0;          // inexact sum
    sql::Value best;          // MIN / MAX
    std::set<std::string> seen;  // DISTINCT: the values' text forms
  };
  std::vector<One> per_call;
};

}  // namespace sluice::exec
