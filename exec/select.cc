// SELECT: tables joined by nested loops, subqueries, grouping, ordering.
//
// FROM is flattened left-deep (sql/ast.h TableRef::join) and read in
// the written order; RIGHT JOIN of the first two tables is turned into a
// LEFT JOIN with the tables swapped. Each table is a level of the nested
// loop with:
//   on      a LEFT JOIN's ON conjuncts: a row of the outer tuple with no
//           row of this table passing them gets a NULL-extended one;
//   filter  the conjuncts of WHERE and of inner joins' ON whose last table
//           is this one (checked as soon as their tables are read);
//   path    the access path (exec/access_path.h) planned from what may
//           narrow this table's read: its filter for an inner join, its ON
//           for a LEFT JOIN. Conjuncts with a subquery are never used to
//           plan (a correlated one reads columns the planner cannot see)
//           and are checked at the last level.
// Every tuple that passes reaches the grouping / output code, which is the
// same for one table or many.

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <type_traits>

#include <boost/container/small_vector.hpp>

#include "acl/access_control.h"
#include "base/function_ref.h"
#include "base/mysql_error.h"
#include "base/stack_guard.h"
#include "exec/access_path.h"
#include "exec/aggregate.h"
#include "exec/column_values.h"
#include "exec/exec_env.h"
#include "exec/information_schema.h"
#include "exec/row_eval.h"
#include "exec/system_schema.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"

namespace sluice::exec {

namespace {

using storage::ColumnDef;
using storage::EngineTrx;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

// Calls `fn` on every column reference in `e` (not inside subqueries).
Status ForEachColumn(const sql::Expr& e, FunctionRef<Status(const sql::Expr&)> fn) {
  if (e.kind == sql::ExprKind::kColumn) return fn(e);
  for (const auto& a : e.args) {
    if (a) SLUICE_RETURN_IF_ERROR(ForEachColumn(*a, fn));
  }
  return Status::OK();
}

sql::ExprPtr MakeColumn(const std::string& qualifier, const std::string& name) {
  auto c = std::make_unique<sql::Expr>(sql::ExprKind::kColumn);
  c->table = qualifier;
  c->name = name;
  return c;
}

sql::ExprPtr MakeBinary(sql::Op op, sql::ExprPtr a, sql::ExprPtr b) {
  auto e = std::make_unique<sql::Expr>(sql::ExprKind::kBinary);
  e->op = op;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

}  // namespace

Status TableExecutor::CheckSelectPrivilege(const std::string& schema, const std::string& table) {
  if (sql::EqualsIgnoreCase(schema, "information_schema")) return Status::OK();
  if (ctx_.account && ctx_.account->HasDb(schema, acl::Priv::kSelect)) return Status::OK();
  return MakeError(er::kTableAccessDenied, "SELECT", ctx_.priv_user, ctx_.host, table);
}

Outcome TableExecutor::Select(const sql::SelectStmt& s) {
  const bool locking = s.lock != sql::SelectStmt::Lock::kNone;
  const bool nowait = locking && s.lock_wait == sql::SelectStmt::LockWait::kNowait;
  const bool skip_locked = locking && s.lock_wait == sql::SelectStmt::LockWait::kSkipLocked;
  return RunDml([&](EngineTrx& trx) -> Outcome {
    Outcome r;
    // NOWAIT: any row lock that would wait fails at once (a zero lock wait
    // timeout for this statement), as 3572 instead of 1205. SKIP LOCKED:
    // the engine leaves such rows out instead.
    const std::optional<std::chrono::milliseconds> timeout = trx.lock_wait_timeout();
    if (nowait || skip_locked) trx.set_lock_wait_timeout(std::chrono::milliseconds(0));
    trx.set_skip_locked(skip_locked);
    Result<SelectRows> rows = RunSelect(s, trx, eval_, std::numeric_limits<uint64_t>::max(), false);
    trx.set_skip_locked(false);
    if (nowait || skip_locked) trx.set_lock_wait_timeout(timeout);
    if (!rows.ok()) {
      r.error = nowait && rows.status().mysql_errno() == er::kLockWaitTimeout.code ? MakeError(er::kLockNowait)
                                                                                   : rows.status();
      return r;
    }
    r.result = std::move(rows->result);
    return r;
  });
}

namespace {

// Whether the operands of a key conjunct (col = v, col BETWEEN a AND b,
// col < v) other than its column are literals or parameters: values the
// key read took once that the row filter would take again unchanged (not
// RAND(), not a column of another table read per outer row).
bool ValuesAreConstant(const sql::Expr& c) {
  size_t columns = 0;
  for (const auto& a : c.args) {
    if (a == nullptr) return false;
    if (a->kind == sql::ExprKind::kColumn) {
      ++columns;
    } else if (a->kind != sql::ExprKind::kLiteral && a->kind != sql::ExprKind::kParam) {
      return false;
    }
  }
  return columns == 1 && c.subquery == nullptr;
}

// A value's exact identity ('a' and 'A', 1 and 1.0 differ): a correlated
// subquery's rows may show the enclosing value itself, so only an
// identical one may reuse them.
std::string ExactKey(const sql::Value& v) {
  std::string key(1, static_cast<char>(v.kind()));
  key += static_cast<char>(v.is_binary());
  key += static_cast<char>(v.string_type());
  switch (v.kind()) {
    case sql::ValueKind::kNull: break;
    case sql::ValueKind::kInt: key += std::to_string(v.int_value()); break;
    case sql::ValueKind::kUInt: key += std::to_string(v.uint_value()); break;
    case sql::ValueKind::kDouble: key += fmt::format("{}", v.double_value()); break;
    case sql::ValueKind::kDecimal: key += v.decimal_value().ToString(); break;
    case sql::ValueKind::kString:
      key += fmt::format("{}:", static_cast<int>(v.collation()));
      key += v.string_value();
      break;
  }
  return key;
}

// Bounds on what correlated subqueries keep per statement.
constexpr size_t kMaxCachedSubqueryValues = 1 << 20;  // values over all rows kept
constexpr size_t kMaxColumnListsPerSubquery = 8;

}  // namespace

Result<std::shared_ptr<const sql::EvalContext::SubqueryRows>> TableExecutor::RunSubquery(const sql::SelectStmt& s,
                                                                                         RowEval& outer,
                                                                                         uint64_t max_rows) {
  // Each nesting level runs a whole SELECT (binding, planning, evaluation)
  // on top of the outer one's stack.
  SLUICE_RETURN_IF_ERROR(CheckStack());
  const SubqueryKey key(&s, max_rows);
  if (auto it = subquery_cache_.find(key); it != subquery_cache_.end()) return it->second;
  // A correlated subquery run before with the same values of the enclosing
  // columns it read gives the same rows (see RowEval::reads_outer).
  auto cached = correlated_cache_.find(key);
  if (cached != correlated_cache_.end()) {
    for (const auto& [columns, by_values] : cached->second.by_columns) {
      std::vector<std::string> values;
      bool readable = true;
      for (const sql::Expr* c : columns) {
        Result<sql::Value> v = outer.GetColumn(*c);
        if (!v.ok()) {
          readable = false;
          break;
        }
        values.push_back(ExactKey(*v));
      }
      if (!readable) continue;
      if (auto hit = by_values.find(values); hit != by_values.end()) return hit->second;
    }
  }
  Result<EngineTrx*> trx = Trx();
  if (!trx.ok()) return trx.status();
  Result<SelectRows> rows = RunSelect(s, **trx, outer, max_rows, true);
  if (!rows.ok()) return rows.status();
  auto made = std::make_shared<sql::EvalContext::SubqueryRows>();
  made->columns = rows->result.columns.size();
  made->rows = std::move(rows->values);
  std::shared_ptr<const sql::EvalContext::SubqueryRows> out = std::move(made);
  if (!rows->correlated) {
    subquery_cache_.emplace(key, out);
    return out;
  }
  const size_t values = out->rows.size() * out->columns + rows->outer_reads.size();
  if (!rows->outer_reads.empty() && correlated_cached_values_ + values <= kMaxCachedSubqueryValues) {
    std::vector<const sql::Expr*> columns;
    std::vector<std::string> keys;
    for (const auto& [c, v] : rows->outer_reads) {
      columns.push_back(c);
      keys.push_back(ExactKey(v));
    }
    CorrelatedRuns& runs = correlated_cache_[key];
    auto list = runs.by_columns.find(columns);
    if (list == runs.by_columns.end() && runs.by_columns.size() < kMaxColumnListsPerSubquery) {
      list = runs.by_columns.emplace(std::move(columns), decltype(list->second)()).first;
    }
    if (list != runs.by_columns.end()) {
      list->second.emplace(std::move(keys), out);
      correlated_cached_values_ += values;
    }
  }
  return out;
}

Result<TableExecutor::SelectRows> TableExecutor::RunSelect(const sql::SelectStmt& s, EngineTrx& trx,
                                                           sql::EvalContext& outer, uint64_t max_rows,
                                                           bool want_values) {
  // ---- the tables
  struct Level {
    std::shared_ptr<const TableDef> def;
    std::optional<VirtualTable> virtual_table;  // INFORMATION_SCHEMA
    const sql::TableRef* ref = nullptr;
    std::string qualifier;
    bool left = false;                   // LEFT JOIN: NULL-extended when no row passes `on`
    ExprList join;    // the ON (and USING / NATURAL) conjuncts of its join
    ExprList on;      // a LEFT JOIN's ON conjuncts
    ExprList filter;
    // `filter` less what an exact key read has enforced (ReadRows'
    // key_exact): the conjuncts that gave the path its key values and
    // bounds, where those are literals or parameters.
    ExprList filter_after_key;
    ExprList plan;    // what may narrow the read
    AccessPath path;
  };
  // A statement's usual one table in place (a level is about 1 KiB).
  boost::container::small_vector<Level, 1> levels(s.from.size());
  for (size_t i = 0; i < s.from.size(); ++i) {
    const sql::TableRef& ref = s.from[i];
    Level& l = levels[i];
    l.ref = &ref;
    const std::string schema = ref.schema.empty() ? ctx_.db : ref.schema;
    if (schema.empty()) return MakeError(er::kNoDb);
    SLUICE_RETURN_IF_ERROR(CheckSelectPrivilege(schema, ref.name));
    if (sql::EqualsIgnoreCase(schema, "information_schema")) {
      // SCHEMATA lists every schema to an account with SHOW DATABASES; the
      // other tables only what the account has some privilege in (MySQL).
      const bool schemata = sql::EqualsIgnoreCase(ref.name, "SCHEMATA");
      if (sql::EqualsIgnoreCase(ref.name, "PLUGINS")) {
        l.virtual_table = InformationSchemaPlugins(env_.plugins().List());
      } else {
      l.virtual_table = InformationSchemaTable(ref.name, *env_.engine().catalog().snapshot(),
                                               [this, schemata](const std::string& db) {
                                                 return sql::EqualsIgnoreCase(db, "information_schema") ||
                                                        (ctx_.account && ctx_.account->HasAnyDbAccess(db)) ||
                                                        (schemata && ctx_.account &&
                                                         ctx_.account->HasGlobal(acl::Priv::kShowDatabases));
                                               });
      }
      if (l.virtual_table->def == nullptr) return MakeError(er::kNoSuchTable, "information_schema", ref.name);
      if (s.lock != sql::SelectStmt::Lock::kNone) {
        return MakeError(er::kNotSupportedYet, "locking reads of INFORMATION_SCHEMA");
      }
      l.def = l.virtual_table->def;
    } else if (sql::EqualsIgnoreCase(schema, "mysql")) {
      // The account views and log tables (exec/system_schema.h); SELECT on
      // mysql was checked above.
      l.virtual_table = sql::EqualsIgnoreCase(ref.name, "plugin") ? MysqlPluginTable(env_.plugins().Recorded())
                                                                  : MysqlSchemaTable(ref.name, env_.acl().Accounts());
      if (l.virtual_table->def == nullptr) return MakeError(er::kNoSuchTable, "mysql", ref.name);
      if (s.lock != sql::SelectStmt::Lock::kNone) {
        return MakeError(er::kNotSupportedYet, "locking reads of the mysql schema");
      }
      l.def = l.virtual_table->def;
    } else {
      Result<Table> t = ResolveTable(ref);
      if (!t.ok()) return t.status();
      SLUICE_RETURN_IF_ERROR(UseTable(*t, ref, /*write=*/false));
      l.def = t->def;
    }
    l.qualifier = ref.alias.empty() ? l.def->name : ref.alias;
    for (size_t j = 0; j < i; ++j) {
      if (sql::EqualsIgnoreCase(levels[j].qualifier, l.qualifier)) return MakeError(er::kNonUniqTable, l.qualifier);
    }
  }
  // t1 RIGHT JOIN t2 ON c  is  t2 LEFT JOIN t1 ON c.
  if (levels.size() >= 2 && s.from[1].join == sql::JoinKind::kRight) std::swap(levels[0], levels[1]);
  for (size_t i = 0; i < levels.size(); ++i) {
    const sql::JoinKind join = s.from[i].join;
    if (join == sql::JoinKind::kRight && i != 1) return MakeError(er::kNotSupportedYet, "RIGHT JOIN after other joins");
    levels[i].left = join == sql::JoinKind::kLeft || join == sql::JoinKind::kRight;
  }

  RowEval::Sources sources;
  for (const Level& l : levels) sources.push_back({l.def.get(), l.qualifier, nullptr, {}});
  // USING (c) and NATURAL joins: ON left.c = right.c, and the right side's
  // c hidden from unqualified names (MySQL coalesces the two).
  std::vector<sql::ExprPtr> made;  // conditions made here, alive for the statement
  // SELECT *'s columns: MySQL puts a USING / NATURAL join's common columns
  // first (once, in the left side's order), then the left side's others,
  // then the right table's. Listed only for a SELECT that has a *.
  const bool any_star = std::any_of(s.items.begin(), s.items.end(), [](const auto& item) { return item.star; });
  std::vector<std::pair<int, const ColumnDef*>> star;
  if (!levels.empty() && any_star) {
    for (const ColumnDef& c : levels[0].def->columns) star.push_back({0, &c});
  }
  for (size_t i = 1; i < levels.size(); ++i) {
    // The ON / USING belong to the joined table as written (after a RIGHT
    // JOIN swap, to the pair).
    const sql::TableRef& ref = s.from[i];
    std::vector<std::string> using_columns = ref.using_columns;
    if (ref.natural) {
      for (const ColumnDef& c : levels[i].def->columns) {
        for (size_t j = 0; j < i; ++j) {
          if (levels[j].def->FindColumn(c.name) != nullptr) {
            using_columns.push_back(c.name);
            break;
          }
        }
      }
    }
    for (const std::string& name : using_columns) {
      const ColumnDef* right = levels[i].def->FindColumn(name);
      size_t j = 0;
      while (j < i && levels[j].def->FindColumn(name) == nullptr) ++j;
      if (right == nullptr || j == i) return MakeError(er::kBadField, name, "from clause");
      made.push_back(MakeBinary(sql::Op::kEq, MakeColumn(levels[j].qualifier, levels[j].def->FindColumn(name)->name),
                                MakeColumn(levels[i].qualifier, right->name)));
      levels[i].join.push_back(made.back().get());
      sources[i].hidden.push_back(right->ordinal);
    }
    SplitConjuncts(ref.on.get(), &levels[i].join);
    if (!any_star) continue;
    auto is_common = [&](const std::pair<int, const ColumnDef*>& col) {
      for (const std::string& name : using_columns) {
        if (sql::EqualsIgnoreCase(name, col.second->name)) return true;
      }
      return false;
    };
    std::stable_partition(star.begin(), star.end(), is_common);
    for (const ColumnDef& c : levels[i].def->columns) {
      const auto& hidden = sources[i].hidden;
      if (std::find(hidden.begin(), hidden.end(), c.ordinal) == hidden.end()) star.push_back({static_cast<int>(i), &c});
    }
  }
  RowEval re(*this, outer, std::move(sources));

  // ---- where each condition is checked
  // The last level a condition reads (-1: none, a constant); 1054 when it
  // names a table of a later level (an ON clause may only name tables
  // joined so far).
  auto last_level = [&](const sql::Expr& e, size_t limit, const char* clause) -> Result<int> {
    int last = -1;
    re.set_clause(clause);
    Status st = ForEachColumn(e, [&](const sql::Expr& col) -> Status {
      Result<std::pair<int, const ColumnDef*>> where = re.Resolve(col);
      if (!where.ok()) return where.status();
      if (where->first < 0) {
        // A column of an enclosing query (or unknown: reported when evaluated).
        return Status::OK();
      }
      if (static_cast<size_t>(where->first) > limit) return re.UnknownColumn(col);
      last = std::max(last, where->first);
      return Status::OK();
    });
    if (!st.ok()) return st;
    return last;
  };
  ExprList constant_conds;  // checked once, before reading
  auto place = [&](const sql::Expr* c, int last) {
    if (levels.empty() || (last < 0 && !sql::HasSubquery(*c))) {
      constant_conds.push_back(c);
      return;
    }
    Level& l = sql::HasSubquery(*c) ? levels.back() : levels[last];
    l.filter.push_back(c);
  };
  for (size_t i = 0; i < levels.size(); ++i) {
    for (const sql::Expr* c : levels[i].join) {
      Result<int> last = last_level(*c, i, "on clause");
      if (!last.ok()) return last.status();
      if (levels[i].left) {
        levels[i].on.push_back(c);
      } else {
        place(c, *last);
      }
    }
  }
  ExprList where_conds;
  SplitConjuncts(s.where.get(), &where_conds);
  for (const sql::Expr* c : where_conds) {
    Result<int> last = last_level(*c, levels.size(), "where clause");
    if (!last.ok()) return last.status();
    place(c, *last);
  }
  std::optional<storage::LockMode> lock;
  if (s.lock == sql::SelectStmt::Lock::kForUpdate) lock = storage::LockMode::kX;
  if (s.lock == sql::SelectStmt::Lock::kForShare) lock = storage::LockMode::kS;
  // ---- aggregates, in the select list, HAVING and ORDER BY
  Aggregates aggs;
  for (const auto& item : s.items) {
    if (item.expr) SLUICE_RETURN_IF_ERROR(aggs.Collect(*item.expr));
  }
  if (s.having) SLUICE_RETURN_IF_ERROR(aggs.Collect(*s.having));
  for (const auto& ob : s.order_by) SLUICE_RETURN_IF_ERROR(aggs.Collect(*ob.expr));
  if (s.where && ContainsAggregate(*s.where)) return MakeError(er::kInvalidGroupFuncUse);
  const bool grouped = !s.group_by.empty() || aggs.size() > 0;

  // ---- access paths. The first table may deliver the ORDER BY order
  // itself (then there is no sort, and LIMIT stops the read early) when
  // every ORDER BY item is a plain column (not a select-list alias or
  // position) and nothing regroups the rows.
  bool order_by_columns = !s.order_by.empty() && !grouped && !s.distinct;
  for (const auto& ob : s.order_by) {
    if (ob.expr->kind != sql::ExprKind::kColumn) order_by_columns = false;
    for (const auto& item : s.items) {
      if (item.has_alias && ob.expr->table.empty() && sql::EqualsIgnoreCase(item.alias, ob.expr->name)) {
        order_by_columns = false;
      }
    }
  }
  for (size_t i = 0; i < levels.size(); ++i) {
    Level& l = levels[i];
    for (const sql::Expr* c : l.left ? l.on : l.filter) {
      if (!sql::HasSubquery(*c)) l.plan.push_back(c);
    }
    if (l.virtual_table) continue;
    const bool order_here = i == 0 && order_by_columns;
    l.path = PlanAccess(BoundTable{l.def.get(), l.qualifier}, l.plan, order_here ? &s.order_by : nullptr,
                        s.limit != nullptr);
    for (const sql::Expr* c : l.filter) {
      const bool enforced = !l.left && ValuesAreConstant(*c) &&
                            (std::find(l.path.key_conjuncts.begin(), l.path.key_conjuncts.end(), c) !=
                                 l.path.key_conjuncts.end() ||
                             std::find(l.path.range_conjuncts.begin(), l.path.range_conjuncts.end(), c) !=
                                 l.path.range_conjuncts.end());
      if (!enforced) l.filter_after_key.push_back(c);
    }
  }
  const bool presorted = !levels.empty() && !levels[0].virtual_table && order_by_columns &&
                         (lock ? levels[0].path.OrderedWhenLocking() : levels[0].path.ordered);

  // ---- the result columns: * expands to the tables' columns
  struct Out {
    int source = -1;                    // a plain column (or *) of this source
    const ColumnDef* column = nullptr;
    const sql::Expr* expr = nullptr;
    std::string name;
    std::string alias;  // for ORDER BY / GROUP BY / HAVING references
  };
  boost::container::small_vector<Out, 4> outs;
  re.set_clause("field list");
  for (const auto& item : s.items) {
    if (item.star) {
      if (levels.empty()) return MakeError(er::kNoTablesUsed);
      if (item.star_table.empty()) {
        for (const auto& [i, c] : star) outs.push_back({i, c, nullptr, c->name, ""});
        continue;
      }
      bool found = false;
      for (size_t i = 0; i < levels.size(); ++i) {
        if (!sql::EqualsIgnoreCase(levels[i].qualifier, item.star_table)) continue;
        found = true;
        for (const auto& c : levels[i].def->columns) outs.push_back({static_cast<int>(i), &c, nullptr, c.name, ""});
      }
      if (!found) return MakeError(er::kBadTable, item.star_table);
      continue;
    }
    Out out;
    out.expr = item.expr.get();
    out.name = item.ColumnName();
    if (item.has_alias) out.alias = item.alias;
    if (item.expr->kind == sql::ExprKind::kColumn) {
      Result<std::pair<int, const ColumnDef*>> where = re.Resolve(*item.expr);
      if (!where.ok()) return where.status();
      if (where->first >= 0) {
        out.source = where->first;
        out.column = where->second;
        if (!item.has_alias) out.name = out.column->name;
      }
      // Otherwise an enclosing query's column (evaluated through `outer`),
      // or 1054 when evaluated.
    }
    outs.push_back(std::move(out));
  }
  // Other columns in the select list, GROUP BY, HAVING and ORDER BY may
  // name an enclosing query's columns too.
  for (const auto& item : s.items) {
    if (item.expr) SLUICE_RETURN_IF_ERROR(last_level(*item.expr, levels.size(), "field list").status());
  }
  // (There an unknown name may still be a select-list alias.)
  std::vector<std::pair<const sql::Expr*, const char*>> may_name_aliases;
  for (const auto& g : s.group_by) may_name_aliases.emplace_back(g.get(), "group statement");
  for (const auto& ob : s.order_by) may_name_aliases.emplace_back(ob.expr.get(), "order clause");
  if (s.having) may_name_aliases.emplace_back(s.having.get(), "having clause");
  for (const auto& [e, clause] : may_name_aliases) {
    Result<int> l = last_level(*e, levels.size(), clause);
    if (!l.ok() && l.status().mysql_errno() != er::kBadField.code) return l.status();
  }
  // (Whether the rows depend on the enclosing query is known once they are
  // made: RowEval::reads_outer, which also sees the reads of the
  // subqueries nested in this one.)

  // ORDER BY / GROUP BY n or alias: the select item it names (or -1).
  auto item_ref = [&](const sql::Expr& e) -> Result<int> {
    if (e.kind == sql::ExprKind::kLiteral && !e.value.is_null() && e.value.kind() != sql::ValueKind::kString) {
      uint64_t n = e.value.ToUInt();
      if (n < 1 || n > outs.size()) return MakeError(er::kBadField, std::to_string(n), "order clause");
      return static_cast<int>(n - 1);
    }
    if (e.kind == sql::ExprKind::kColumn && e.table.empty()) {
      for (size_t i = 0; i < outs.size(); ++i) {
        if (!outs[i].alias.empty() && sql::EqualsIgnoreCase(outs[i].alias, e.name)) return static_cast<int>(i);
      }
    }
    return -1;
  };
  uint64_t limit = std::numeric_limits<uint64_t>::max(), offset = 0;
  for (auto [expr, out] : {std::pair{s.limit.get(), &limit}, std::pair{s.offset.get(), &offset}}) {
    if (!expr) continue;
    Result<sql::Value> v = sql::Evaluate(*expr, eval_);
    if (!v.ok()) return v.status();
    *out = v->ToUInt();
  }
  limit = std::min(limit, max_rows);
  const uint64_t wanted = limit > std::numeric_limits<uint64_t>::max() - offset ? limit : offset + limit;

  // ORDER BY n or alias: the select item each ORDER BY item names (or -1).
  // Settled before any row, so ORDER BY 9 fails on an empty table too. A
  // plain column that is also a plain column item (ORDER BY c for SELECT
  // c) takes that item's value rather than reading the column again.
  re.set_clause("order clause");
  boost::container::small_vector<int, 2> order_refs;
  for (const auto& ob : s.order_by) {
    Result<int> ref = item_ref(*ob.expr);
    if (!ref.ok()) return ref.status();
    if (*ref < 0 && ob.expr->kind == sql::ExprKind::kColumn) {
      Result<std::pair<int, const ColumnDef*>> where = re.Resolve(*ob.expr);
      for (size_t i = 0; where.ok() && where->first >= 0 && i < outs.size(); ++i) {
        if (outs[i].column == where->second && outs[i].source == where->first) {
          *ref = static_cast<int>(i);
          break;
        }
      }
    }
    order_refs.push_back(*ref);
  }

  // ---- output rows. Each row's cells go into `staged` in the text
  // protocol's form as it is made; a Produced is kept only where rows are
  // reordered or compared (ORDER BY that the access path does not give,
  // DISTINCT) or the caller wants values.
  // A row's ORDER BY values are in `sort_values`, s.order_by.size() of
  // them from sort_at. (Every member moves without throwing, so the vector
  // grows by moving its rows, not copying them.)
  // SELECT DISTINCT: a row's key (each value's GroupingKey, length-prefixed)
  // is distinct_bytes[key_at, key_end).
  struct Produced {
    size_t row = 0;  // in `staged`
    size_t sort_at = 0;
    size_t key_at = 0, key_end = 0;
    std::vector<sql::Value> values;  // when want_values
  };
  static_assert(std::is_nothrow_move_constructible_v<Produced>);
  std::vector<sql::Value> sort_values;
  std::string distinct_bytes;
  const bool sorted_here = !s.order_by.empty() && !presorted;
  const bool keep_produced = sorted_here || s.distinct || want_values;
  // SELECT DISTINCT ... ORDER BY over exactly the select items (in any
  // order, as sysbench's SELECT DISTINCT c ... ORDER BY c): rows equal in
  // every item end up next to each other once sorted, so the repeats are
  // found there and no DISTINCT key is made while rows are produced (when
  // an item is not text, the keys are made after the sort from the sort
  // values, which hold every item: item i's is the sort value at
  // item_sort_at[i]).
  bool distinct_by_order = s.distinct && sorted_here;
  boost::container::small_vector<size_t, 4> item_sort_at;
  for (int ref : order_refs) distinct_by_order = distinct_by_order && ref >= 0;
  for (size_t i = 0; distinct_by_order && i < outs.size(); ++i) {
    const auto k = std::find(order_refs.begin(), order_refs.end(), static_cast<int>(i));
    distinct_by_order = k != order_refs.end();
    item_sort_at.push_back(static_cast<size_t>(k - order_refs.begin()));
  }
  p::TextRows staged;
  std::vector<Produced> produced;
  boost::container::small_vector<std::optional<sql::Value>, 4> first_values(outs.size());
  // Evaluates `e` for the current tuple; in a grouped query, aggregates
  // take the group's values (and plain columns the group's first tuple).
  const Aggregates::State* group = nullptr;
  auto eval_expr = [&](const sql::Expr& e) -> Result<sql::Value> {
    if (group == nullptr || !ContainsAggregate(e)) return sql::Evaluate(e, re);
    sql::ExprPtr bound = SubstituteExpr(e, [&](const sql::Expr& x) { return aggs.ValueOf(*group, x); });
    return sql::Evaluate(*bound, re);
  };
  // A plain column's Value (besides its text) is built only for what reads
  // it: HAVING's aliases, ORDER BY n / alias, DISTINCT, or the caller.
  bool order_reads_items = false;
  for (int ref : order_refs) order_reads_items = order_reads_items || ref >= 0;
  const bool need_column_values = want_values || (grouped && s.having) || order_reads_items || s.distinct;
  // A value's DISTINCT key after its length (4 bytes, patched once known).
  auto append_distinct_key = [&](const sql::Value& v) {
    const size_t at = distinct_bytes.size();
    distinct_bytes.append(4, '\0');
    sql::AppendGroupingKey(v, &distinct_bytes);
    const uint32_t len = static_cast<uint32_t>(distinct_bytes.size() - at - 4);
    std::memcpy(distinct_bytes.data() + at, &len, 4);
  };
  // One output row from the current tuple (and group).
  auto produce = [&]() -> Status {
    re.set_clause("field list");
    Produced p;
    p.row = staged.size();
    boost::container::small_vector<sql::Value, 4> values(outs.size());
    p::TextRows::RowWriter cells = staged.Open();
    for (size_t i = 0; i < outs.size(); ++i) {
      if (outs[i].column != nullptr) {
        const Row* row = re.source(outs[i].source).row;
        // Both arms lvalues: a temporary in one would copy the stored value.
        static const RowValue kNullValue;
        const RowValue& rv = row != nullptr ? (*row)[outs[i].column->ordinal] : kNullValue;
        AppendColumnCell(*outs[i].column, rv, &cells);
        if (need_column_values) values[i] = FromColumnValue(*outs[i].column, rv);
        continue;
      }
      Result<sql::Value> v = eval_expr(*outs[i].expr);
      if (!v.ok()) return v.status();  // the statement fails: `staged` is dropped
      if (!first_values[i] || first_values[i]->is_null()) first_values[i] = *v;
      AppendCell(*v, &cells);
      values[i] = std::move(v).value();
    }
    if (grouped && s.having) {
      std::vector<std::pair<std::string, sql::Value>> aliases;
      for (size_t i = 0; i < outs.size(); ++i) {
        if (!outs[i].alias.empty()) aliases.emplace_back(outs[i].alias, values[i]);
      }
      re.set_aliases(&aliases);
      re.set_clause("having clause");
      Result<sql::Value> h = eval_expr(*s.having);
      re.set_aliases(nullptr);
      if (!h.ok()) return h.status();
      Result<std::optional<bool>> holds = sql::TruthOf(*h, re, s.having.get());
      if (!holds.ok()) return holds.status();
      if (!holds->value_or(false)) {
        staged.Discard();
        return Status::OK();
      }
    }
    staged.Close();
    if (!keep_produced) return Status::OK();
    if (s.distinct && !distinct_by_order) {
      p.key_at = distinct_bytes.size();
      for (const sql::Value& v : values) append_distinct_key(v);
      p.key_end = distinct_bytes.size();
    }
    if (sorted_here) {
      re.set_clause("order clause");
      p.sort_at = sort_values.size();
      for (size_t k = 0; k < s.order_by.size(); ++k) {
        const int ref = order_refs[k];
        if (ref >= 0) {
          // An item's value moves into the sort key unless it is read again.
          const bool read_again = want_values || std::find(order_refs.begin() + k + 1, order_refs.end(), ref) !=
                                                     order_refs.end();
          sort_values.push_back(read_again ? values[ref] : std::move(values[ref]));
          continue;
        }
        Result<sql::Value> v = eval_expr(*s.order_by[k].expr);
        if (!v.ok()) return v.status();
        sort_values.push_back(std::move(v).value());
      }
    }
    if (want_values) p.values.assign(std::make_move_iterator(values.begin()), std::make_move_iterator(values.end()));
    produced.push_back(std::move(p));
    return Status::OK();
  };
  // Groups in first-seen order (MySQL 8.0 does not sort GROUP BY). A tuple
  // keeps one Row per table; an empty Row is a NULL-extended table.
  using Tuple = std::vector<Row>;
  struct Group {
    Tuple first;
    std::unique_ptr<Aggregates::State> state;
  };
  std::vector<Group> groups;
  std::map<std::vector<std::string>, size_t> group_index;
  auto set_tuple = [&](const Tuple& t) {
    for (size_t i = 0; i < t.size(); ++i) re.SetRow(i, t[i].empty() ? nullptr : &t[i]);
  };
  const bool early_stop = (s.order_by.empty() || presorted) && !s.distinct && !grouped;
  bool stop = false;
  // A tuple that passed every condition.
  auto accept = [&]() -> Status {
    if (!grouped) {
      SLUICE_RETURN_IF_ERROR(produce());
      stop = early_stop && staged.size() >= wanted;
      return Status::OK();
    }
    re.set_clause("group statement");
    std::vector<std::string> key;
    for (const auto& g : s.group_by) {
      Result<int> ref = item_ref(*g);
      if (!ref.ok()) return ref.status();
      Result<sql::Value> v = sql::Value::Null();
      if (*ref >= 0 && outs[*ref].expr != nullptr) {
        v = sql::Evaluate(*outs[*ref].expr, re);
      } else if (*ref >= 0) {
        const Row* row = re.source(outs[*ref].source).row;
        v = row ? FromColumnValue(*outs[*ref].column, (*row)[outs[*ref].column->ordinal]) : sql::Value::Null();
      } else {
        v = sql::Evaluate(*g, re);
      }
      if (!v.ok()) return v.status();
      // Groups compare as MySQL compares: under the collation for text.
      key.push_back(sql::GroupingKey(*v));
    }
    auto [it, added] = group_index.emplace(std::move(key), groups.size());
    if (added) {
      Tuple t(levels.size());
      for (size_t i = 0; i < levels.size(); ++i) {
        if (re.source(i).row != nullptr) t[i] = *re.source(i).row;
      }
      groups.push_back({std::move(t), aggs.NewGroup()});
    }
    return aggs.Add(*groups[it->second].state, re);
  };
  // The conditions of a level on the current tuple.
  auto passes = [&](const ExprList& conds, const char* clause) -> Result<bool> {
    re.set_clause(clause);
    for (const sql::Expr* c : conds) {
      Result<bool> ok = re.Test(c);
      if (!ok.ok() || !*ok) return ok;
    }
    return true;
  };
  // The nested loop: level i's rows for the current tuple of levels < i
  // (`self` is this lambda: it recurses without a std::function).
  auto join = [&](const auto& self, size_t i) -> Status {
    if (i == levels.size()) return accept();
    Level& l = levels[i];
    bool matched = false;
    bool key_exact = false;  // set by ReadRows before the first row
    auto visit = [&](const Row& row) -> Result<bool> {
      re.SetRow(i, &row);
      Result<bool> on = passes(l.on, "on clause");
      if (!on.ok()) return on.status();
      if (!*on) return true;
      matched = true;
      Result<bool> ok = passes(key_exact ? l.filter_after_key : l.filter, "where clause");
      if (!ok.ok()) return ok.status();
      if (*ok) SLUICE_RETURN_IF_ERROR(self(self, i + 1));
      return !stop;
    };
    Status st;
    if (l.virtual_table) {
      for (const Row& row : l.virtual_table->rows) {
        st = re.CheckInterrupt();
        if (!st.ok()) break;
        Result<bool> more = visit(row);
        if (!more.ok()) {
          st = more.status();
          break;
        }
        if (!*more) break;
      }
    } else {
      re.set_clause("where clause");
      st = ReadRows(env_.engine(), trx, BoundTable{l.def.get(), l.qualifier}, l.path, re, lock, visit, &key_exact);
    }
    re.SetRow(i, nullptr);
    if (!st.ok()) return st;
    if (l.left && !matched && !stop) {
      Result<bool> ok = passes(l.filter, "where clause");
      if (!ok.ok()) return ok.status();
      if (*ok) return self(self, i + 1);
    }
    return Status::OK();
  };
  {
    Result<bool> ok = passes(constant_conds, "where clause");
    if (!ok.ok()) return ok.status();
    if (*ok) {
      if (levels.empty()) {
        SLUICE_RETURN_IF_ERROR(accept());
      } else {
        SLUICE_RETURN_IF_ERROR(join(join, 0));
      }
    }
  }
  if (grouped) {
    // Without GROUP BY, aggregates over no rows still give one row.
    if (groups.empty() && s.group_by.empty()) groups.push_back({Tuple(levels.size()), aggs.NewGroup()});
    for (const Group& g : groups) {
      SLUICE_RETURN_IF_ERROR(re.CheckInterrupt());
      group = g.state.get();
      set_tuple(g.first);
      SLUICE_RETURN_IF_ERROR(produce());
    }
    group = nullptr;
  }
  // SELECT DISTINCT: repeated[i] when produced[i] repeats an earlier row.
  std::vector<bool> repeated;
  bool deduped = false;
  if (sorted_here) {
    const size_t n = s.order_by.size();
    // An item whose values are all text of one collation (or NULL) sorts
    // without CompareValues at every step of the sort: the usual ORDER BY
    // over a text column. Pure-ASCII text under a collation with an ASCII
    // order (the default one) compares by its rank table; other text by
    // collation keys (base/collation.h: memcmp order is the collation's
    // order) made once per row. Other items compare as values.
    // sort_values[i]'s key is key_bytes[key_spans[i]].
    enum class ItemSort : uint8_t { kValues, kAscii, kKeys };
    boost::container::small_vector<ItemSort, 2> how(n, ItemSort::kValues);
    boost::container::small_vector<sql::Collation, 2> coll(n, sql::kDefaultCollation);
    for (size_t k = 0; k < n; ++k) {
      bool text = true, seen = false, ascii = true;
      for (size_t i = k; text && i < sort_values.size(); i += n) {
        const sql::Value& v = sort_values[i];
        if (v.is_null()) continue;
        if (!v.is_string() || v.string_type() != sql::StringType::kText) {
          text = false;
          break;
        }
        const sql::Collation c = v.is_binary() ? sql::Collation::kBinary : v.collation();
        if (seen && c != coll[k]) text = false;
        coll[k] = c;
        seen = true;
        ascii = ascii && sql::IsAscii(v.string_value());
      }
      if (text && seen) how[k] = ascii && sql::HasAsciiOrder(coll[k]) ? ItemSort::kAscii : ItemSort::kKeys;
    }
    std::string key_bytes;
    std::vector<std::pair<size_t, size_t>> key_spans;
    if (std::find(how.begin(), how.end(), ItemSort::kKeys) != how.end()) {
      key_spans.resize(sort_values.size());
      for (size_t i = 0; i < sort_values.size(); ++i) {
        if (how[i % n] != ItemSort::kKeys || sort_values[i].is_null()) continue;
        const size_t at = key_bytes.size();
        sql::AppendSortKey(sort_values[i].string_value(), coll[i % n], &key_bytes);
        key_spans[i] = {at, key_bytes.size() - at};
      }
    }
    auto compare = [&](size_t k, const sql::Value& x, const sql::Value& y) {
      switch (how[k]) {
        case ItemSort::kValues:
          return sql::CompareForOrder(x, y).value_or(0);
        case ItemSort::kAscii:
          return sql::CompareAscii(x.string_value(), y.string_value(), coll[k]);
        case ItemSort::kKeys:
          break;
      }
      auto key = [&](const sql::Value& v) {
        const auto [at, len] = key_spans[static_cast<size_t>(&v - sort_values.data())];
        return std::string_view(key_bytes).substr(at, len);
      };
      const int c = key(x).compare(key(y));
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    };
    auto keys = [&](const Produced& p) { return std::span<const sql::Value>(sort_values.data() + p.sort_at, n); };
    // The first item's text, abbreviated: its first eight weights (or key
    // bytes) in one integer per row, whose order is the item's order where
    // two differ. Most comparisons end there; a tie, or a NULL, compares
    // the rows in full.
    const bool abbreviated = how[0] != ItemSort::kValues;
    std::vector<uint64_t> first_prefix;
    std::vector<uint8_t> first_null;
    if (abbreviated) {
      first_prefix.resize(produced.size());
      first_null.resize(produced.size());
      for (size_t r = 0; r < produced.size(); ++r) {
        const sql::Value& v = sort_values[produced[r].sort_at];
        if (v.is_null()) {
          first_null[r] = 1;
        } else if (how[0] == ItemSort::kAscii) {
          first_prefix[r] = sql::AsciiOrderPrefix(v.string_value(), coll[0]);
        } else {
          const auto [at, len] = key_spans[produced[r].sort_at];
          uint64_t p = 0;
          for (size_t i = 0; i < 8; ++i) p = (p << 8) | (i < len ? static_cast<uint8_t>(key_bytes[at + i]) : 0);
          first_prefix[r] = p;
        }
      }
    }
    const bool first_desc = s.order_by[0].desc;
    // The rows' positions are sorted, then the rows moved once: a merge
    // sort moves each element about log2(n) times.
    std::vector<size_t> order(produced.size());
    std::iota(order.begin(), order.end(), size_t{0});
    SLUICE_RETURN_IF_ERROR(InterruptibleSort(
        order.begin(), order.end(),
        [&](size_t a, size_t b) {
          if (abbreviated && first_prefix[a] != first_prefix[b] && !first_null[a] && !first_null[b]) {
            return first_desc ? first_prefix[a] > first_prefix[b] : first_prefix[a] < first_prefix[b];
          }
          return OrderedBefore(keys(produced[a]), keys(produced[b]), s.order_by, compare);
        },
        re));
    std::vector<Produced> in_order;
    in_order.reserve(produced.size());
    for (size_t i : order) in_order.push_back(std::move(produced[i]));
    produced.swap(in_order);
    if (distinct_by_order && std::find(how.begin(), how.end(), ItemSort::kValues) == how.end()) {
      // Text items only: equal under the sort's comparison is equal as
      // DISTINCT groups them (one collation's order and its keys agree).
      // The stable sort keeps the first-made row of each run first.
      repeated.assign(produced.size(), false);
      for (size_t i = 1; i < produced.size(); ++i) {
        const auto a = keys(produced[i - 1]), b = keys(produced[i]);
        bool same = true;
        for (size_t k = 0; same && k < n; ++k) {
          same = a[k].is_null() || b[k].is_null() ? a[k].is_null() == b[k].is_null() : compare(k, a[k], b[k]) == 0;
        }
        repeated[i] = same;
      }
      deduped = true;
    }
  }
  SelectRows out;
  // A column named here but never read (no row reached it) did not shape
  // the rows: what was read decides.
  out.correlated = re.reads_outer();
  out.outer_reads = re.TakeOuterReads();
  for (size_t i = 0; i < outs.size(); ++i) {
    if (outs[i].column != nullptr) {
      auto m = ColumnMetadata(*levels[outs[i].source].def, *outs[i].column, outs[i].name);
      m.table = levels[outs[i].source].qualifier;
      out.result.columns.push_back(std::move(m));
    } else {
      out.result.columns.push_back(ColumnFor(outs[i].name, first_values[i].value_or(sql::Value::Null())));
    }
  }
  if (!keep_produced) {
    // The rows as they were made: OFFSET and LIMIT are a range of them.
    if (offset == 0 && staged.size() <= limit) {
      out.result.rows = std::move(staged);
    } else {
      for (uint64_t i = offset; i < staged.size() && i - offset < limit; ++i) {
        out.result.rows.AppendEncoded(staged.payload(i));
      }
    }
    return out;
  }
  // SELECT DISTINCT keeps the first row of each key, in the rows' order:
  // positions sorted by key (stably, so the first of equals comes first).
  if (s.distinct && !deduped) {
    if (distinct_by_order) {
      // The keys were left for now: each item's value is among the row's
      // sort values.
      for (Produced& p : produced) {
        p.key_at = distinct_bytes.size();
        for (size_t k : item_sort_at) append_distinct_key(sort_values[p.sort_at + k]);
        p.key_end = distinct_bytes.size();
      }
    }
    auto key = [&](size_t i) {
      return std::string_view(distinct_bytes).substr(produced[i].key_at, produced[i].key_end - produced[i].key_at);
    };
    std::vector<size_t> by_key(produced.size());
    for (size_t i = 0; i < by_key.size(); ++i) by_key[i] = i;
    SLUICE_RETURN_IF_ERROR(InterruptibleSort(
        by_key.begin(), by_key.end(), [&](size_t a, size_t b) { return key(a) < key(b); }, re));
    repeated.assign(produced.size(), false);
    for (size_t i = 1; i < by_key.size(); ++i) {
      if (key(by_key[i]) == key(by_key[i - 1])) repeated[by_key[i]] = true;
    }
  }
  out.result.rows.reserve(produced.size(), staged.total_bytes());
  uint64_t skipped = 0;
  for (size_t i = 0; i < produced.size(); ++i) {
    Produced& p = produced[i];
    if (s.distinct && repeated[i]) continue;
    if (skipped < offset) {
      ++skipped;
      continue;
    }
    if (out.result.rows.size() >= limit) break;
    out.result.rows.AppendEncoded(staged.payload(p.row));
    if (want_values) out.values.push_back(std::move(p.values));
  }
  return out;
}

}  // namespace sluice::exec
