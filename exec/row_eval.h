// exec/row_eval.h
//
// TableExecutor::RowEval: the expression context of a statement over table
// rows. Columns resolve to the current row of one of the statement's tables
// (one for INSERT/UPDATE/DELETE, one per FROM entry for a SELECT with
// joins); a column none of them has goes to the enclosing query's RowEval
// (a correlated subquery) and otherwise is 1054. Subqueries run through the
// TableExecutor in the same transaction. Everything else (variables,
// parameters, NOW(), warnings) goes to the session's context.
//
// Thread-safety: the statement's thread only.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "base/mysql_error.h"
#include "exec/column_values.h"
#include "exec/table_executor.h"
#include "sql/eval.h"
#include "sql/lexer.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"

namespace sluice::exec {

// ORDER BY: whether a row whose ORDER BY values are `a` comes before one
// with `b` (one value per item of `order_by`; NULL first ascending, as
// MySQL). `compare(i, x, y)` orders two non-NULL values of item i (-1, 0,
// 1); the plain form uses CompareForOrder. SELECT and UPDATE / DELETE ...
// ORDER BY sort with it.
template <typename Compare>
inline bool OrderedBefore(std::span<const sql::Value> a, std::span<const sql::Value> b,
                          const std::vector<sql::OrderItem>& order_by, Compare&& compare) {
  for (size_t i = 0; i < order_by.size(); ++i) {
    const sql::Value& x = a[i];
    const sql::Value& y = b[i];
    int c = x.is_null() || y.is_null() ? (x.is_null() == y.is_null() ? 0 : (x.is_null() ? -1 : 1))
                                       : compare(i, x, y);
    if (c != 0) return order_by[i].desc ? c > 0 : c < 0;
  }
  return false;
}
inline bool OrderedBefore(std::span<const sql::Value> a, std::span<const sql::Value> b,
                          const std::vector<sql::OrderItem>& order_by) {
  return OrderedBefore(a, b, order_by,
                       [](size_t, const sql::Value& x, const sql::Value& y) { return sql::CompareForOrder(x, y).value_or(0); });
}

// std::stable_sort(begin, end, less) that stops when `eval`'s statement is
// interrupted (KILL, max_execution_time): a sort of millions of rows must
// not outlast its statement. Every kInterruptCheckEvery-th comparison
// checks it (a check through the evaluation contexts cost as much as a
// comparison of two short strings, and a sort of 100 rows makes about 600);
// an interruption unwinds the sort by an exception caught here, leaving the
// range in some order, and returns the statement's error.
inline constexpr uint32_t kInterruptCheckEvery = 64;
template <typename It, typename Less>
Status InterruptibleSort(It begin, It end, Less less, sql::EvalContext& eval) {
  struct Interrupted {
    Status status;
  };
  uint32_t comparisons = 0;
  try {
    std::stable_sort(begin, end, [&](const auto& a, const auto& b) {
      if (++comparisons % kInterruptCheckEvery == 0) {
        if (Status st = eval.CheckInterrupt(); !st.ok()) throw Interrupted{std::move(st)};
      }
      return less(a, b);
    });
  } catch (Interrupted& i) {
    return std::move(i.status);
  }
  return Status::OK();
}

class TableExecutor::RowEval : public sql::EvalContext {
 public:
  struct Source {
    const storage::TableDef* def = nullptr;
    std::string qualifier;              // the alias, else the table's name
    const storage::Row* row = nullptr;  // the current row; null reads as NULLs
    // Columns an unqualified name does not find here (the right side's
    // copy of a USING / NATURAL join column).
    std::vector<uint32_t> hidden;
  };
  // One per table; a statement's one or two in place.
  using Sources = boost::container::small_vector<Source, 2>;

  // One table.
  RowEval(TableExecutor& ex, sql::EvalContext& base, const storage::TableDef& def, std::string_view alias)
      : ex_(ex), base_(base), outer_(dynamic_cast<RowEval*>(&base)) {
    sources_.push_back(Source{&def, std::string(alias), nullptr, {}});
  }
  // The tables of a join, in FROM order.
  RowEval(TableExecutor& ex, sql::EvalContext& base, Sources sources)
      : ex_(ex), base_(base), outer_(dynamic_cast<RowEval*>(&base)), sources_(std::move(sources)) {}

  size_t size() const { return sources_.size(); }
  const Source& source(size_t i) const { return sources_[i]; }
  void SetRow(const storage::Row* row) { sources_[0].row = row; }
  void SetRow(size_t i, const storage::Row* row) { sources_[i].row = row; }

  // Makes `row` current (one table) and says whether it satisfies `where`
  // (none: yes).
  Result<bool> Matches(const storage::Row& row, const sql::Expr* where) {
    sources_[0].row = &row;
    clause_ = "where clause";
    return Test(where);
  }
  // Whether `cond` holds for the current rows (none: yes).
  Result<bool> Test(const sql::Expr* cond) {
    if (cond == nullptr) return true;
    Result<std::optional<bool>> t = sql::EvaluateTruth(*cond, *this);
    if (!t.ok()) return t.status();
    return t->value_or(false);
  }

  // Where column reference `column` points: {source, column}, or {-1,
  // nullptr} when no table here has it; 1054 for a table here without
  // that column, 1052 when an unqualified name is in several tables.
  Result<std::pair<int, const storage::ColumnDef*>> Resolve(const sql::Expr& column) const {
    if (!column.table.empty()) {
      for (size_t i = 0; i < sources_.size(); ++i) {
        const Source& s = sources_[i];
        if (!sql::EqualsIgnoreCase(s.qualifier, column.table)) continue;
        if (!column.schema.empty() && !sql::EqualsIgnoreCase(s.def->schema, column.schema)) continue;
        const storage::ColumnDef* c = s.def->FindColumn(column.name);
        if (c == nullptr) return UnknownColumn(column);
        return std::pair<int, const storage::ColumnDef*>(static_cast<int>(i), c);
      }
      return std::pair<int, const storage::ColumnDef*>(-1, nullptr);
    }
    std::pair<int, const storage::ColumnDef*> found(-1, nullptr);
    for (size_t i = 0; i < sources_.size(); ++i) {
      const storage::ColumnDef* c = sources_[i].def->FindColumn(column.name);
      if (c == nullptr) continue;
      const auto& hidden = sources_[i].hidden;
      if (std::find(hidden.begin(), hidden.end(), c->ordinal) != hidden.end()) continue;
      if (found.second != nullptr) return MakeError(er::kNonUniq, column.name, clause_);
      found = {static_cast<int>(i), c};
    }
    return found;
  }

  Result<sql::Value> GetColumn(const sql::Expr& column) override {
    if (aliases_ != nullptr && column.table.empty()) {
      for (const auto& [name, value] : *aliases_) {
        if (sql::EqualsIgnoreCase(name, column.name)) return value;
      }
    }
    Result<std::pair<int, const storage::ColumnDef*>> r = Resolve(column);
    if (!r.ok()) return r.status();
    if (r->first < 0) {
      if (outer_ != nullptr) {
        Result<sql::Value> v = outer_->GetColumn(column);
        // The enclosing row stays put while this query runs: one entry per
        // column reference is enough.
        const bool known = std::any_of(outer_reads_.begin(), outer_reads_.end(),
                                       [&](const auto& read) { return read.first == &column; });
        if (v.ok() && !known) {
          if (outer_reads_.size() < kMaxOuterReads) {
            outer_reads_.emplace_back(&column, *v);
          } else {
            too_many_outer_reads_ = true;
          }
        }
        reads_outer_ = true;
        return v;
      }
      return UnknownColumn(column);
    }
    const storage::Row* row = sources_[r->first].row;
    if (row == nullptr) return sql::Value::Null();
    return FromColumnValue(*r->second, (*row)[r->second->ordinal]);
  }
  Result<std::shared_ptr<const SubqueryRows>> RunSubquery(const sql::SelectStmt& select, uint64_t max_rows) override {
    return ex_.RunSubquery(select, *this, max_rows);
  }

  // Whether a column was read from the enclosing query's row (here or by a
  // subquery nested in this query): then this query's rows depend on it.
  // A subquery that read none gives the same rows whatever the enclosing
  // row is (evaluation is deterministic in what it reads), so it is run
  // once per statement, however deep the nesting.
  bool reads_outer() const { return reads_outer_; }
  // The enclosing query's columns read and their values, in read order
  // (each read once or more); empty with reads_outer() true when there
  // were too many to keep.
  using OuterReads = std::vector<std::pair<const sql::Expr*, sql::Value>>;
  OuterReads TakeOuterReads() {
    if (too_many_outer_reads_) return {};
    return std::move(outer_reads_);
  }

  void set_clause(const char* clause) { clause_ = clause; }
  const char* clause() const { return clause_; }
  // Select-list aliases HAVING may name (null: none).
  void set_aliases(const std::vector<std::pair<std::string, sql::Value>>* aliases) { aliases_ = aliases; }

  Result<sql::Value> GetSystemVariable(std::string_view name, sql::VarScope scope) override {
    return base_.GetSystemVariable(name, scope);
  }
  sql::Value GetUserVariable(std::string_view name) override { return base_.GetUserVariable(name); }
  void SetUserVariable(std::string_view name, const sql::Value& v) override { base_.SetUserVariable(name, v); }
  Result<sql::Value> GetParameter(int index) override { return base_.GetParameter(index); }
  std::optional<std::string> CurrentDatabase() override { return base_.CurrentDatabase(); }
  std::string User() override { return base_.User(); }
  std::string CurrentUser() override { return base_.CurrentUser(); }
  uint64_t ConnectionId() override { return base_.ConnectionId(); }
  uint64_t LastInsertId() override { return base_.LastInsertId(); }
  void SetLastInsertId(uint64_t id) override { base_.SetLastInsertId(id); }
  int64_t FoundRows() override { return base_.FoundRows(); }
  int64_t RowCount() override { return base_.RowCount(); }
  std::string ServerVersion() override { return base_.ServerVersion(); }
  std::chrono::system_clock::time_point StatementTime() override { return base_.StatementTime(); }
  bool SleepFor(std::chrono::nanoseconds d) override { return base_.SleepFor(d); }
  bool IsServerFunction(std::string_view name) const override { return base_.IsServerFunction(name); }
  Result<sql::Value> CallServerFunction(std::string_view name, std::vector<sql::Value>& args) override {
    return base_.CallServerFunction(name, args);
  }
  Status CheckInterrupt() override { return base_.CheckInterrupt(); }
  Status Warn(const er::Error& condition, std::string message) override {
    return base_.Warn(condition, std::move(message));
  }
  bool FirstWarningFrom(const void* source) override { return base_.FirstWarningFrom(source); }
  uint64_t MaxAllowedPacket() override { return base_.MaxAllowedPacket(); }

  // 1054 for `column` in the current clause.
  Status UnknownColumn(const sql::Expr& column) const {
    std::string name = column.name;
    if (!column.table.empty()) name = column.table + "." + name;
    return MakeError(er::kBadField, name, clause_);
  }

 private:
  static constexpr size_t kMaxOuterReads = 64;

  TableExecutor& ex_;
  sql::EvalContext& base_;
  RowEval* outer_;  // the enclosing query's context (a subquery), or null
  Sources sources_;
  const char* clause_ = "where clause";
  const std::vector<std::pair<std::string, sql::Value>>* aliases_ = nullptr;
  bool reads_outer_ = false;
  bool too_many_outer_reads_ = false;
  OuterReads outer_reads_;
};

}  // namespace sluice::exec
