// EXPLAIN [FORMAT = TRADITIONAL] of SELECT, UPDATE, DELETE, INSERT and
// REPLACE: MySQL 8.0's table (id, select_type, table, partitions, type,
// possible_keys, key, key_len, ref, rows, filtered, Extra), one row per
// table, from the access path the statement takes (PlanAccess; the
// per-table columns are ExplainAccess's, exec/access_path.h).
//
// `rows` is counted by reading the path without locks (CountPathRows): an
// exact "estimate", which is what MySQL's index dives and statistics give
// for small tables. A const table is read as MySQL's optimizer reads it:
// no row gives "no matching row in const table", a row the rest of the
// WHERE rejects "Impossible WHERE noticed after reading const tables".
//
// Not like MySQL yet: no Note 1003 with the rewritten query; a SELECT with
// several tables gets one SIMPLE row per FROM table (in FROM order, each
// planned from the conjuncts whose last table it is; a LEFT JOIN's inner
// table from its ON), subqueries no rows of their own; no covering-index
// scans (a query reading only indexed columns still reads the table).

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "base/mysql_error.h"
#include "exec/exec_env.h"
#include "exec/access_path.h"
#include "exec/aggregate.h"
#include "exec/row_eval.h"
#include "exec/system_schema.h"
#include "exec/table_executor.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"

namespace sluice::exec {

namespace {

using storage::EngineTrx;
using storage::Row;
using storage::TableDef;
using Cells = std::vector<std::optional<std::string>>;

// ER_UNKNOWN_EXPLAIN_FORMAT.
constexpr er::Error kUnknownExplainFormat{1791, "HY000", "Unknown EXPLAIN format name: '{}'"};

// MySQL's EXPLAIN columns: id and rows are BIGINT, filtered a FLOAT with two
// decimals, the rest strings in the system character set; all nullable.
ResultSet ExplainResultSet() {
  ResultSet rs;
  auto add_number = [&rs](const char* name, p::ColumnType type, uint32_t length, uint8_t decimals, uint16_t flags) {
    p::ColumnDefinition c;
    c.name = c.org_name = name;
    c.collation = p::kCollationBinary;
    c.length = length;
    c.type = type;
    c.decimals = decimals;
    c.flags = p::BINARY_FLAG | p::NUM_FLAG | flags;
    rs.columns.push_back(std::move(c));
  };
  add_number("id", p::MYSQL_TYPE_LONGLONG, 3, 0, 0);
  rs.AddTextColumn("select_type", 19);
  rs.AddTextColumn("table", 64);
  rs.AddTextColumn("partitions", 64);
  rs.AddTextColumn("type", 10);
  rs.AddTextColumn("possible_keys", 4096);
  rs.AddTextColumn("key", 64);
  rs.AddTextColumn("key_len", 4096);
  rs.AddTextColumn("ref", 1024);
  add_number("rows", p::MYSQL_TYPE_LONGLONG, 10, 0, p::UNSIGNED_FLAG);
  add_number("filtered", p::MYSQL_TYPE_FLOAT, 4, 2, 0);
  rs.AddTextColumn("Extra", 255);
  return rs;
}

Cells TableCells(std::string_view select_type, const ExplainRow& r) {
  std::optional<std::string> rows, filtered;
  if (r.rows) rows = std::to_string(*r.rows);
  if (r.filtered) filtered = fmt::format("{:.2f}", *r.filtered);
  return {std::string("1"), std::string(select_type), r.table, std::nullopt, r.type, r.possible_keys, r.key,
          r.key_len, r.ref, rows, filtered, r.extra};
}

// A row for no table: "No tables used", "Impossible WHERE", ...
Cells NoTableCells(std::string_view select_type, std::string extra) {
  Cells c(12);
  c[0] = "1";
  c[1] = std::string(select_type);
  c[11] = std::move(extra);
  return c;
}

bool HasColumn(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kColumn || e.subquery) return true;
  for (const auto& a : e.args) {
    if (a && HasColumn(*a)) return true;
  }
  return false;
}


// Adds the columns of `t` that `e` uses (outside subqueries) to `cols`.
void CollectColumns(const BoundTable& t, const sql::Expr& e, std::vector<uint32_t>* cols) {
  if (t.Owns(e)) {
    if (const storage::ColumnDef* c = t.def->FindColumn(e.name)) cols->push_back(c->ordinal);
    return;
  }
  for (const auto& a : e.args) {
    if (a) CollectColumns(t, *a, cols);
  }
}

// Whether every bound of `path` can be evaluated without a row of another
// table (a join's eq_ref / ref cannot: their rows are not counted).
bool Evaluable(const AccessPath& path) {
  for (const sql::Expr* k : path.key) {
    if (HasColumn(*k)) return false;
  }
  for (const auto* bounds : {&path.lo, &path.hi}) {
    for (const AccessPath::Bound& b : *bounds) {
      if (HasColumn(*b.expr)) return false;
    }
  }
  return true;
}

// What the helpers below need from the executor.
struct ExplainEnv {
  storage::Engine& engine;
  EngineTrx& trx;
  sql::EvalContext& eval;
  std::string db;  // the current database
  std::function<Status(const std::string& schema, const std::string& table)> check_select;
  // Whether `row` of `t` passes `cond` (a const table's read).
  std::function<Result<bool>(const BoundTable& t, const Row& row, const sql::Expr* cond)> matches;
};

// The table `ref` names: 1046 without a database, 1146 when missing.
Result<std::shared_ptr<const TableDef>> Resolve(ExplainEnv& env, const sql::TableRef& ref) {
  const std::string schema = ref.schema.empty() ? env.db : ref.schema;
  if (schema.empty()) return MakeError(er::kNoDb);
  std::shared_ptr<const TableDef> def = env.engine.FindTable(schema, ref.name);
  if (def == nullptr) return MakeError(er::kNoSuchTable, schema, ref.name);
  return def;
}

// The rows EXPLAIN shows for `path`: counted along it, at most `cap`.
Result<uint64_t> EstimateRows(ExplainEnv& env, const BoundTable& t, const AccessPath& path, uint64_t cap) {
  if (path.type == AccessPath::Type::kConst || path.type == AccessPath::Type::kEqRef) return 1;
  if (!Evaluable(path)) {
    if (path.type == AccessPath::Type::kRef) return 1;  // one outer row's worth: a guess
    return CountPathRows(env.engine, env.trx, t, AccessPath{}, env.eval, cap);
  }
  return CountPathRows(env.engine, env.trx, t, path, env.eval, cap);
}

// A LIMIT / OFFSET expression's value (0 when absent).
Result<uint64_t> EvalCount(ExplainEnv& env, const sql::Expr* e) {
  if (e == nullptr) return 0;
  Result<sql::Value> v = sql::Evaluate(*e, env.eval);
  if (!v.ok()) return v.status();
  return v->ToUInt();
}

// Whether `where` is a constant that is not true ("Impossible WHERE").
Result<bool> ImpossibleWhere(ExplainEnv& env, const sql::Expr* where) {
  if (where == nullptr || HasColumn(*where)) return false;
  Result<std::optional<bool>> t = sql::EvaluateTruth(*where, env.eval);
  if (!t.ok()) return t.status();
  return !t->value_or(false);
}

Status ExplainSelect(ExplainEnv& env, const sql::SelectStmt& s, ResultSet* rs) {
  Result<bool> impossible = ImpossibleWhere(env, s.where.get());
  if (!impossible.ok()) return impossible.status();
  if (s.from.empty()) {
    rs->rows.push_back(NoTableCells("SIMPLE", *impossible ? "Impossible WHERE" : "No tables used"));
    return Status::OK();
  }
  // Privileges first, then existence (1142 before 1146, as MySQL).
  struct Level {
    std::shared_ptr<const TableDef> def;
    BoundTable bound;
    bool information_schema = false;
    ExprList plan;   // conjuncts the path may use
    ExprList check;  // conjuncts checked at this table
  };
  std::vector<Level> levels;
  for (const sql::TableRef& ref : s.from) {
    const std::string schema = ref.schema.empty() ? env.db : ref.schema;
    if (schema.empty()) return MakeError(er::kNoDb);
    SLUICE_RETURN_IF_ERROR(env.check_select(schema, ref.name));
  }
  for (const sql::TableRef& ref : s.from) {
    Level l;
    const std::string schema = ref.schema.empty() ? env.db : ref.schema;
    // Tables computed on each read (INFORMATION_SCHEMA, the mysql schema's
    // views, exec/system_schema.h) are read whole: an ALL row.
    const std::string system = SystemSchemaName(schema);
    if (system == "mysql" && MysqlSchemaTableDef(ref.name) == nullptr) {
      return MakeError(er::kNoSuchTable, schema, ref.name);
    }
    l.information_schema = system == "information_schema" || system == "mysql";
    if (!l.information_schema) {
      Result<std::shared_ptr<const TableDef>> def = Resolve(env, ref);
      if (!def.ok()) return def.status();
      l.def = std::move(def).value();
    }
    l.bound.def = l.def.get();
    l.bound.qualifier = ref.alias.empty() ? ref.name : ref.alias;
    levels.push_back(std::move(l));
  }
  if (*impossible) {
    rs->rows.push_back(NoTableCells("SIMPLE", "Impossible WHERE"));
    return Status::OK();
  }
  Result<uint64_t> limit = EvalCount(env, s.limit.get());
  if (!limit.ok()) return limit.status();
  Result<uint64_t> offset = EvalCount(env, s.offset.get());
  if (!offset.ok()) return offset.status();
  if (s.limit && *limit == 0) {
    rs->rows.push_back(NoTableCells("SIMPLE", "Zero limit"));
    return Status::OK();
  }
  // Each conjunct goes to the last table it reads (the level where the
  // nested loop can first check it); a LEFT / RIGHT JOIN's inner table is
  // planned from its ON only.
  auto last_table = [&](const sql::Expr& e) {
    int last = 0;
    std::function<void(const sql::Expr&)> walk = [&](const sql::Expr& x) {
      if (x.kind == sql::ExprKind::kColumn) {
        for (size_t i = 0; i < levels.size(); ++i) {
          if (levels[i].def != nullptr && levels[i].bound.Owns(x)) {
            last = std::max(last, static_cast<int>(i));
            break;
          }
        }
        return;
      }
      for (const auto& a : x.args) {
        if (a) walk(*a);
      }
    };
    walk(e);
    return static_cast<size_t>(last);
  };
  auto assign = [&](const sql::Expr* cond, bool plan, std::optional<size_t> only) {
    ExprList conjuncts;
    SplitConjuncts(cond, &conjuncts);
    for (const sql::Expr* c : conjuncts) {
      const size_t at = only ? *only : last_table(*c);
      levels[at].check.push_back(c);
      if (plan && !sql::HasSubquery(*c)) levels[at].plan.push_back(c);
    }
  };
  std::vector<bool> outer_inner(levels.size(), false);
  for (size_t i = 0; i < s.from.size(); ++i) {
    const sql::TableRef& ref = s.from[i];
    const bool outer = ref.join == sql::JoinKind::kLeft || ref.join == sql::JoinKind::kRight;
    outer_inner[i] = outer;
    if (ref.on) assign(ref.on.get(), true, outer ? std::optional<size_t>(i) : std::nullopt);
  }
  {
    ExprList conjuncts;
    SplitConjuncts(s.where.get(), &conjuncts);
    for (const sql::Expr* c : conjuncts) {
      const size_t at = last_table(*c);
      levels[at].check.push_back(c);
      if (!outer_inner[at] && !sql::HasSubquery(*c)) levels[at].plan.push_back(c);
    }
  }
  // What the statement does after reading: grouping, DISTINCT, sorting.
  bool aggregates = !s.group_by.empty();
  for (const auto& item : s.items) aggregates = aggregates || (item.expr && ContainsAggregate(*item.expr));
  const bool temporary = !s.group_by.empty() || (s.distinct && !aggregates);
  // ORDER BY can come from the first table's index when its items are that
  // table's columns (not select-list aliases) and nothing regroups rows.
  const std::vector<sql::OrderItem>* order_hint = nullptr;
  if (!s.order_by.empty() && !aggregates && !s.distinct && levels[0].def != nullptr) {
    bool plain = true;
    for (const sql::OrderItem& item : s.order_by) {
      plain = plain && item.expr && levels[0].bound.Owns(*item.expr);
      for (const auto& sel : s.items) {
        plain = plain && !(item.expr && item.expr->table.empty() && sel.has_alias &&
                           sql::EqualsIgnoreCase(sel.alias, item.expr->name));
      }
    }
    if (plain) order_hint = &s.order_by;
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    Level& l = levels[i];
    if (l.information_schema) {
      ExplainRow r;
      r.table = l.bound.qualifier;
      r.type = "ALL";
      r.filtered = 100;
      if (!l.check.empty()) r.extra = "Using where";
      rs->rows.push_back(TableCells("SIMPLE", r));
      continue;
    }
    const bool first = i == 0;
    AccessPath path = PlanAccess(l.bound, l.plan, first ? order_hint : nullptr, s.limit != nullptr);
    if (path.type == AccessPath::Type::kConst && levels.size() == 1) {
      // The optimizer reads a const table before planning the rest.
      std::optional<Row> found;
      Status st = ReadRows(env.engine, env.trx, l.bound, path, env.eval, std::nullopt, [&](const Row& row) -> Result<bool> {
        found = row;
        return false;
      });
      if (!st.ok()) return st;
      if (!found) {
        rs->rows.push_back(NoTableCells("SIMPLE", "no matching row in const table"));
        return Status::OK();
      }
      Result<bool> match = env.matches(l.bound, *found, s.where.get());
      if (!match.ok()) return match.status();
      if (!*match) {
        rs->rows.push_back(NoTableCells("SIMPLE", "Impossible WHERE noticed after reading const tables"));
        return Status::OK();
      }
    }
    ExplainHints hints;
    hints.conjuncts = l.check;
    std::vector<uint32_t> columns;
    bool all_columns = false;
    for (const auto& item : s.items) {
      if (item.star && (item.star_table.empty() || sql::EqualsIgnoreCase(item.star_table, l.bound.qualifier))) {
        all_columns = true;
      }
      if (item.expr) CollectColumns(l.bound, *item.expr, &columns);
    }
    for (const sql::Expr* e : {s.where.get(), s.having.get()}) {
      if (e) CollectColumns(l.bound, *e, &columns);
    }
    for (const auto& g : s.group_by) CollectColumns(l.bound, *g, &columns);
    for (const auto& o : s.order_by) CollectColumns(l.bound, *o.expr, &columns);
    for (const sql::TableRef& ref : s.from) {
      if (ref.on) CollectColumns(l.bound, *ref.on, &columns);
    }
    hints.columns = all_columns ? nullptr : &columns;
    if (first) {
      hints.temporary = temporary;
      hints.filesort = !s.order_by.empty() && !path.ordered;
    }
    const uint64_t wanted = *limit + *offset;
    // A whole-index read in ORDER BY order shows the rows the LIMIT needs
    // (MySQL's estimate once it picks an index for the order).
    const bool stops_early =
        path.type == AccessPath::Type::kIndex && s.limit != nullptr && levels.size() == 1 && !temporary;
    Result<uint64_t> rows = EstimateRows(env, l.bound, path, stops_early ? wanted : UINT64_MAX);
    if (!rows.ok()) return rows.status();
    hints.rows = *rows;
    if (l.def != nullptr) {
      const std::string schema = l.def->schema;
      hints.ref_name = [&levels, schema](const sql::Expr& col) {
        for (const Level& other : levels) {
          if (other.def == nullptr || !other.bound.Owns(col)) continue;
          const storage::ColumnDef* c = other.def->FindColumn(col.name);
          return fmt::format("{}.{}.{}", other.def->schema, other.bound.qualifier, c ? c->name : col.name);
        }
        return std::string("func");
      };
    }
    rs->rows.push_back(TableCells("SIMPLE", ExplainAccess(l.bound, path, hints)));
  }
  return Status::OK();
}

// UPDATE / DELETE: single-table statements read through MySQL's range
// optimizer, so an equality shows as `range` (ref const); Extra is
// "Using where" when there is a WHERE.
Status ExplainUpdateOrDelete(ExplainEnv& env, std::string_view select_type, const sql::TableRef& ref,
                             const sql::Expr* where, const std::vector<sql::OrderItem>& order_by,
                             const sql::Expr* limit_expr, ResultSet* rs) {
  Result<std::shared_ptr<const TableDef>> def = Resolve(env, ref);
  if (!def.ok()) return def.status();
  Result<bool> impossible = ImpossibleWhere(env, where);
  if (!impossible.ok()) return impossible.status();
  if (*impossible) {
    rs->rows.push_back(NoTableCells(select_type, "Impossible WHERE"));
    return Status::OK();
  }
  const BoundTable bound{def->get(), ref.alias.empty() ? ref.name : ref.alias};
  AccessPath path = PlanAccess(bound, where);
  ExplainHints hints;
  hints.cond = where;
  Result<uint64_t> rows = EstimateRows(env, bound, path, UINT64_MAX);
  if (!rows.ok()) return rows.status();
  hints.rows = *rows;
  if (limit_expr != nullptr) {
    Result<uint64_t> limit = EvalCount(env, limit_expr);
    if (!limit.ok()) return limit.status();
    (void)limit;  // MySQL's rows ignore a LIMIT without ORDER BY
  }
  ExplainRow r = ExplainAccess(bound, path, hints);
  if (path.type == AccessPath::Type::kConst || path.type == AccessPath::Type::kEqRef ||
      path.type == AccessPath::Type::kRef) {
    r.type = "range";
  }
  std::vector<std::string_view> extra;
  if (where != nullptr) extra.push_back("Using where");
  if (!order_by.empty()) extra.push_back("Using filesort");
  r.extra.reset();
  for (std::string_view e : extra) r.extra = (r.extra ? *r.extra + "; " : std::string()) + std::string(e);
  rs->rows.push_back(TableCells(select_type, r));
  return Status::OK();
}

}  // namespace

Outcome TableExecutor::Explain(const sql::ExplainStmt& s) {
  Outcome o;
  if (!s.format.empty() && s.format != "TRADITIONAL") {
    o.error = s.format == "JSON" || s.format == "TREE" ? MakeError(er::kNotSupportedYet, "EXPLAIN FORMAT=" + s.format)
                                                        : MakeError(kUnknownExplainFormat, s.format);
    return o;
  }
  const sql::Stmt& inner = *s.stmt;
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    ExplainEnv env{env_.engine(), trx, eval_, ctx_.db,
                   [this](const std::string& schema, const std::string& table) {
                     return CheckSelectPrivilege(schema, table);
                   },
                   [this](const BoundTable& t, const Row& row, const sql::Expr* cond) -> Result<bool> {
                     RowEval re(*this, eval_, *t.def, t.qualifier);
                     return re.Matches(row, cond);
                   }};
    ResultSet rs = ExplainResultSet();
    switch (inner.kind) {
      case sql::StmtKind::kSelect:
        r.error = ExplainSelect(env, inner.As<sql::SelectStmt>(), &rs);
        break;
      case sql::StmtKind::kUpdate: {
        const auto& u = inner.As<sql::UpdateStmt>();
        r.error = ExplainUpdateOrDelete(env, "UPDATE", u.table, u.where.get(), u.order_by, u.limit.get(), &rs);
        break;
      }
      case sql::StmtKind::kDelete: {
        const auto& d = inner.As<sql::DeleteStmt>();
        r.error = ExplainUpdateOrDelete(env, "DELETE", d.table, d.where.get(), d.order_by, d.limit.get(), &rs);
        break;
      }
      case sql::StmtKind::kInsert: {
        const auto& ins = inner.As<sql::InsertStmt>();
        Result<std::shared_ptr<const TableDef>> def = Resolve(env, ins.table);
        if (!def.ok()) {
          r.error = def.status();
          break;
        }
        // MySQL shows the inserted table as ALL with nothing known.
        ExplainRow row;
        row.table = ins.table.name;
        row.type = "ALL";
        rs.rows.push_back(TableCells(ins.replace ? "REPLACE" : "INSERT", row));
        if (ins.select) r.error = ExplainSelect(env, *ins.select, &rs);
        break;
      }
      default:
        r.error = MakeError(er::kNotSupportedYet, "EXPLAIN of this statement");
        break;
    }
    if (r.error.ok()) r.result = std::move(rs);
    return r;
  });
}

}  // namespace sluice::exec
