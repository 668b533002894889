#include "exec/check_constraints.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "base/mysql_error.h"
#include "sql/lexer.h"
#include "sql/parser.h"

namespace sluice::exec {

namespace {

using storage::CheckDef;
using storage::TableDef;

// Functions a CHECK may not call (MySQL: non-deterministic ones, those that
// read the session or the server, and aggregates).
bool DisallowedFunction(std::string_view lower) {
  static const std::set<std::string, std::less<>> kNames = {
      "avg", "benchmark", "bit_and", "bit_or", "bit_xor", "connection_id", "count", "curdate", "current_date",
      "current_role", "current_time", "current_timestamp", "current_user", "curtime", "database",
      "found_rows", "get_lock", "group_concat", "is_free_lock", "is_used_lock", "json_arrayagg",
      "json_objectagg", "last_insert_id", "load_file", "localtime", "localtimestamp", "master_pos_wait",
      "max", "min", "now", "rand", "release_all_locks", "release_lock", "row_count", "schema",
      "session_user", "sleep", "source_pos_wait", "std", "stddev", "stddev_pop", "stddev_samp", "sum",
      "sysdate", "system_user", "unix_timestamp", "user", "utc_date", "utc_time", "utc_timestamp", "uuid",
      "uuid_short", "var_pop", "var_samp", "variance", "version"};
  return kNames.count(lower) != 0;
}

std::string GeneratedName(std::string_view table, int n) {
  return storage::GeneratedCheckName(table, std::to_string(n));
}

// n of a generated name <table>_chk_<n>; 0 when `name` is not one.
int GeneratedNumber(std::string_view table, std::string_view name) {
  std::optional<std::string_view> digits = storage::GeneratedCheckDigits(table, name);
  if (!digits || digits->size() > 9) return 0;
  return std::atoi(std::string(*digits).c_str());
}

// Calls `fn` on `e` and on each expression under it, left to right, until
// one returns an error.
template <typename Fn>
Status ForEachNode(const sql::Expr& e, Fn fn) {
  std::vector<const sql::Expr*> pending{&e};
  while (!pending.empty()) {
    const sql::Expr& x = *pending.back();
    pending.pop_back();
    SLUICE_RETURN_IF_ERROR(fn(x));
    for (auto a = x.args.rbegin(); a != x.args.rend(); ++a) {
      if (*a) pending.push_back(a->get());
    }
  }
  return Status::OK();
}

// What a stored expression (CHECK, generated column) may not hold, in one
// node: a variable, a construct (subquery, parameter, DEFAULT), or a
// disallowed function.
enum class Forbidden : uint8_t { kNone, kVariable, kConstruct, kFunction };
Forbidden ForbiddenIn(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kUserVar:
    case sql::ExprKind::kAssignUserVar:
    case sql::ExprKind::kSysVar:
      return Forbidden::kVariable;
    case sql::ExprKind::kParam:
    case sql::ExprKind::kSubquery:
    case sql::ExprKind::kExists:
    case sql::ExprKind::kDefault:
      return Forbidden::kConstruct;
    case sql::ExprKind::kFunction:
      if (DisallowedFunction(sql::AsciiLower(e.name))) return Forbidden::kFunction;
      break;
    default:
      break;
  }
  return e.subquery ? Forbidden::kConstruct : Forbidden::kNone;
}

// The first problem with `e` as the expression of CHECK `name` over `def`
// (`column`: a column CHECK's column, else empty).
Status ValidateExpr(const sql::Expr& e, const TableDef& def, const std::string& name, const std::string& column) {
  return ForEachNode(e, [&](const sql::Expr& x) -> Status {
    switch (ForbiddenIn(x)) {
      case Forbidden::kVariable: return MakeError(er::kCheckConstraintVariables, name);
      case Forbidden::kConstruct: return MakeError(er::kCheckConstraintFunctionNotAllowed, name);
      case Forbidden::kFunction:
        return MakeError(er::kCheckConstraintNamedFunctionNotAllowed, name, sql::AsciiLower(x.name));
      case Forbidden::kNone: break;
    }
    if (x.kind != sql::ExprKind::kColumn) return Status::OK();
    const storage::ColumnDef* c = def.FindColumn(x.name);
    if (c == nullptr) return MakeError(er::kCheckConstraintRefersUnknownColumn, name, x.name);
    if (!column.empty() && !sql::EqualsIgnoreCase(column, x.name)) {
      return MakeError(er::kColumnCheckReferencesOtherColumn, name);
    }
    if (c->auto_increment) return MakeError(er::kCheckConstraintRefersAutoIncrementColumn, name);
    return Status::OK();
  });
}

bool TableHasCheck(const TableDef& def, std::string_view name) {
  return std::any_of(def.checks.begin(), def.checks.end(),
                     [&](const CheckDef& c) { return sql::EqualsIgnoreCase(c.name, name); });
}

}  // namespace

Status AddCheckConstraints(const std::vector<sql::CheckSpec>& specs, const storage::CatalogSnapshot& snapshot,
                           TableDef* def) {
  int next = 1;
  for (const CheckDef& c : def->checks) next = std::max(next, GeneratedNumber(def->name, c.name) + 1);
  const std::vector<storage::CatalogSnapshot::TablePtr> others = snapshot.AllTablesIn(def->schema);
  auto taken = [&](std::string_view name) {
    if (TableHasCheck(*def, name)) return true;
    return std::any_of(others.begin(), others.end(), [&](const storage::CatalogSnapshot::TablePtr& t) {
      return !sql::EqualsIgnoreCase(t->name, def->name) && TableHasCheck(*t, name);
    });
  };
  for (const sql::CheckSpec& spec : specs) {
    CheckDef c;
    c.name = spec.name.empty() ? GeneratedName(def->name, next++) : spec.name;
    SLUICE_RETURN_IF_ERROR(storage::CheckIdentifier(c.name, storage::NameKind::kIndex));
    if (taken(c.name)) return MakeError(er::kCheckConstraintDupName, c.name);
    Result<sql::ExprPtr> parsed = sql::ParseExpression(spec.expr);
    if (!parsed.ok()) return parsed.status();
    SLUICE_RETURN_IF_ERROR(ValidateExpr(**parsed, *def, c.name, spec.column));
    c.expr = spec.expr;
    c.enforced = spec.enforced;
    def->checks.push_back(std::move(c));
  }
  // Kept in name order, MySQL's order in SHOW CREATE TABLE and of checking.
  std::stable_sort(def->checks.begin(), def->checks.end(), [](const CheckDef& a, const CheckDef& b) {
    return sql::AsciiLower(a.name) < sql::AsciiLower(b.name);
  });
  return Status::OK();
}

Status CheckConstraintColumnsExist(const TableDef& def) {
  for (const CheckDef& c : def.checks) {
    Result<sql::ExprPtr> parsed = sql::ParseExpression(c.expr);
    if (!parsed.ok()) return parsed.status();
    SLUICE_RETURN_IF_ERROR(ForEachNode(**parsed, [&](const sql::Expr& x) {
      if (x.kind != sql::ExprKind::kColumn || def.FindColumn(x.name) != nullptr) return Status::OK();
      return MakeError(er::kDependentByCheckConstraint, c.name, x.name);
    }));
  }
  return Status::OK();
}

void RenameCopiedChecks(TableDef* def) {
  int n = 1;
  for (CheckDef& c : def->checks) c.name = GeneratedName(def->name, n++);
}

Result<std::vector<ParsedCheck>> ParseEnforcedChecks(const TableDef& def) {
  std::vector<ParsedCheck> out;
  for (const CheckDef& c : def.checks) {
    if (!c.enforced) continue;
    Result<sql::ExprPtr> parsed = sql::ParseExpression(c.expr);
    if (!parsed.ok()) return parsed.status();
    out.push_back(ParsedCheck{c.name, std::move(parsed).value()});
  }
  return out;
}

std::string CheckClauseText(const CheckDef& check) { return ExprClauseText(check.expr); }

std::string ExprClauseText(std::string_view expr) {
  Result<sql::ExprPtr> parsed = sql::ParseExpression(expr);
  if (!parsed.ok()) return "(" + std::string(expr) + ")";
  std::string text = sql::ExprToString(**parsed);
  // MySQL prints every clause in parentheses: (`a` > 0), (`a` in (1,2)).
  if (text.empty() || text.front() != '(' || text.back() != ')') text = "(" + text + ")";
  return text;
}

Status ValidateGeneratedColumns(const TableDef& def, bool altering) {
  for (const storage::ColumnDef& g : def.columns) {
    if (!g.generated()) continue;
    Result<sql::ExprPtr> parsed = sql::ParseExpression(g.generation_expr);
    if (!parsed.ok()) return parsed.status();
    SLUICE_RETURN_IF_ERROR(ForEachNode(**parsed, [&](const sql::Expr& x) -> Status {
      if (ForbiddenIn(x) != Forbidden::kNone) return MakeError(er::kGeneratedColumnFunctionNotAllowed, g.name);
      if (x.kind != sql::ExprKind::kColumn) return Status::OK();
      const storage::ColumnDef* c = def.FindColumn(x.name);
      if (c == nullptr) {
        return altering ? MakeError(er::kDependentByGeneratedColumn, x.name)
                        : MakeError(er::kBadField, x.name, "generated column function");
      }
      // (Positions, not ordinals: a new definition has none yet.)
      if (c->generated() && c >= &g) return MakeError(er::kGeneratedColumnNonPrior);
      if (c->auto_increment) return MakeError(er::kGeneratedColumnRefAutoInc, g.name);
      return Status::OK();
    }));
  }
  return Status::OK();
}

Result<std::vector<ParsedGenerated>> ParseGeneratedColumns(const TableDef& def) {
  std::vector<ParsedGenerated> out;
  for (size_t i = 0; i < def.columns.size(); ++i) {
    const storage::ColumnDef& c = def.columns[i];
    if (!c.generated()) continue;
    Result<sql::ExprPtr> parsed = sql::ParseExpression(c.generation_expr);
    if (!parsed.ok()) return parsed.status();
    out.push_back(ParsedGenerated{static_cast<uint32_t>(i), std::move(parsed).value()});
  }
  return out;
}

}  // namespace sluice::exec
