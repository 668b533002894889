#include "server/access_path.h"

#include "server/column_values.h"
#include "server/sql/lexer.h"
#include "storage/engine/engine.h"

namespace sluice::server {

namespace {

using storage::ColumnDef;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

bool HasColumn(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kColumn) return true;
  for (const auto& a : e.args) {
    if (a && HasColumn(*a)) return true;
  }
  return false;
}

// The key columns a key range can use: integer columns (whose stored order
// is their SQL order, unlike strings under a case-insensitive collation).
bool Rangeable(const ColumnDef& c) { return storage::IsIntegerType(c.type); }

// `col op val` with the table's column on the left, from a comparison in
// either order; nullopt when neither side is the column `ordinal`.
struct Comparison {
  sql::Op op;
  const sql::Expr* value;
};
std::optional<Comparison> CompareOn(const sql::Expr& e, const BoundTable& t, uint32_t ordinal) {
  auto is_col = [&](const sql::Expr& x) {
    if (!t.Owns(x)) return false;
    const ColumnDef* c = t.def->FindColumn(x.name);
    return c != nullptr && c->ordinal == ordinal;
  };
  if (e.kind != sql::ExprKind::kBinary || e.args.size() != 2) return std::nullopt;
  sql::Op op = e.op;
  const sql::Expr* col = e.args[0].get();
  const sql::Expr* val = e.args[1].get();
  if (!is_col(*col)) {
    std::swap(col, val);
    switch (op) {  // const op col  ->  col op' const
      case sql::Op::kLt: op = sql::Op::kGt; break;
      case sql::Op::kLe: op = sql::Op::kGe; break;
      case sql::Op::kGt: op = sql::Op::kLt; break;
      case sql::Op::kGe: op = sql::Op::kLe; break;
      default: break;
    }
    if (!is_col(*col)) return std::nullopt;
  }
  if (t.Mentions(*val)) return std::nullopt;
  return Comparison{op, val};
}

void Conjuncts(const sql::Expr* e, std::vector<const sql::Expr*>* out) {
  if (e == nullptr) return;
  if (e->kind == sql::ExprKind::kBinary && e->op == sql::Op::kAnd) {
    Conjuncts(e->args[0].get(), out);
    Conjuncts(e->args[1].get(), out);
    return;
  }
  out->push_back(e);
}

// The expression a conjunct equates column `ordinal` with (=, <=>, IN of
// one value), or null.
const sql::Expr* EqualityOn(const sql::Expr& e, const BoundTable& t, uint32_t ordinal) {
  if (e.kind == sql::ExprKind::kIn && !e.negated && e.args.size() == 2 && t.Owns(*e.args[0])) {
    const ColumnDef* c = t.def->FindColumn(e.args[0]->name);
    if (c != nullptr && c->ordinal == ordinal && !t.Mentions(*e.args[1])) return e.args[1].get();
    return nullptr;
  }
  std::optional<Comparison> c = CompareOn(e, t, ordinal);
  if (c && (c->op == sql::Op::kEq || c->op == sql::Op::kNullSafeEq)) return c->value;
  return nullptr;
}

}  // namespace

bool BoundTable::Owns(const sql::Expr& e) const {
  if (e.kind != sql::ExprKind::kColumn) return false;
  if (e.table.empty()) return def->FindColumn(e.name) != nullptr;
  return sql::EqualsIgnoreCase(e.table, qualifier);
}

bool BoundTable::Mentions(const sql::Expr& e) const {
  if (Owns(e)) return true;
  for (const auto& a : e.args) {
    if (a && Mentions(*a)) return true;
  }
  return false;
}

std::string_view AccessPath::TypeName() const {
  switch (type) {
    case Type::kConst: return "const";
    case Type::kEqRef: return "eq_ref";
    case Type::kRange: return "range";
    case Type::kAll: break;
  }
  return "ALL";
}

AccessPath PlanAccess(const BoundTable& table, const sql::Expr* cond) {
  AccessPath path;
  const TableDef& def = *table.def;
  if (cond == nullptr || def.has_hidden_row_id()) return path;
  std::vector<const sql::Expr*> conjuncts;
  Conjuncts(cond, &conjuncts);
  const storage::IndexDef& pk = def.clustered();
  for (const auto& part : pk.parts) {
    if (!Rangeable(def.columns[part.column]) || part.prefix_length != 0) return path;
  }
  // Equality on every part: one row.
  std::vector<const sql::Expr*> key;
  for (const auto& part : pk.parts) {
    const sql::Expr* eq = nullptr;
    for (const sql::Expr* c : conjuncts) {
      if ((eq = EqualityOn(*c, table, part.column)) != nullptr) break;
    }
    if (eq == nullptr) break;
    key.push_back(eq);
  }
  if (key.size() == pk.parts.size()) {
    path.index = 0;
    bool constant = true;
    for (const sql::Expr* k : key) constant = constant && !HasColumn(*k);
    path.type = constant ? AccessPath::Type::kConst : AccessPath::Type::kEqRef;
    path.key = std::move(key);
    return path;
  }
  // A range on the first part.
  const uint32_t first = pk.parts[0].column;
  for (const sql::Expr* c : conjuncts) {
    if (c->kind == sql::ExprKind::kBetween && !c->negated && table.Owns(*c->args[0]) &&
        def.FindColumn(c->args[0]->name)->ordinal == first && !table.Mentions(*c->args[1]) &&
        !table.Mentions(*c->args[2])) {
      path.lo.push_back({c->args[1].get(), false});
      path.hi.push_back({c->args[2].get(), false});
      continue;
    }
    if (const sql::Expr* eq = EqualityOn(*c, table, first)) {
      path.lo.push_back({eq, false});
      path.hi.push_back({eq, false});
      continue;
    }
    std::optional<Comparison> cmp = CompareOn(*c, table, first);
    if (!cmp) continue;
    switch (cmp->op) {
      case sql::Op::kGt: path.lo.push_back({cmp->value, true}); break;
      case sql::Op::kGe: path.lo.push_back({cmp->value, false}); break;
      case sql::Op::kLt: path.hi.push_back({cmp->value, true}); break;
      case sql::Op::kLe: path.hi.push_back({cmp->value, false}); break;
      default: break;
    }
  }
  if (!path.lo.empty() || !path.hi.empty()) {
    path.type = AccessPath::Type::kRange;
    path.index = 0;
  }
  return path;
}

Status ReadRows(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table, const AccessPath& path,
                sql::EvalContext& eval, std::optional<storage::LockMode> lock,
                const std::function<Result<bool>(const Row&)>& fn) {
  const TableDef& def = *table.def;
  Status inner;
  auto call = [&](const Row& row) -> bool {
    Result<bool> more = fn(row);
    if (!more.ok()) {
      inner = more.status();
      return false;
    }
    return *more;
  };
  // The key value of `v` for key column `c`, rounded to an integer: a safe
  // bound for a range (the caller re-checks every row); `exact` says whether
  // it equals v.
  auto to_key = [&](const ColumnDef& c, const sql::Value& v, bool* exact = nullptr) -> std::optional<RowValue> {
    AssignContext cx;
    cx.strict = true;
    Result<RowValue> rv = ToColumnValue(c, v, cx);
    if (!rv.ok()) return std::nullopt;
    if (exact != nullptr) *exact = CompareValues(FromColumnValue(c, *rv), v) == 0;
    return std::move(rv).value();
  };
  if (path.type == AccessPath::Type::kConst || path.type == AccessPath::Type::kEqRef) {
    Row key;
    for (size_t i = 0; i < path.key.size(); ++i) {
      const ColumnDef& c = def.columns[def.clustered().parts[i].column];
      Result<sql::Value> v = sql::Evaluate(*path.key[i], eval);
      if (!v.ok()) return v.status();
      if (v->is_null()) return Status::OK();
      bool exact = false;
      std::optional<RowValue> k = to_key(c, *v, &exact);
      if (!k || !exact) return Status::OK();  // a value the column cannot hold matches nothing
      key.push_back(std::move(*k));
    }
    Result<std::optional<Row>> row =
        lock ? engine.GetLocked(trx, def.id, key, *lock) : engine.Get(trx, def.id, key);
    if (!row.ok()) return row.status();
    if (row->has_value()) call(**row);
    return inner;
  }
  const ColumnDef* first = nullptr;
  std::optional<sql::Value> lo, hi;
  bool lo_strict = false, hi_strict = false;
  if (path.type == AccessPath::Type::kRange) {
    first = &def.columns[def.clustered().parts[0].column];
    for (const auto& b : path.lo) {
      Result<sql::Value> v = sql::Evaluate(*b.expr, eval);
      if (!v.ok()) return v.status();
      if (v->is_null()) return Status::OK();  // col > NULL: nothing
      if (!lo || CompareValues(*v, *lo).value_or(0) > 0) {
        lo = std::move(v).value();
        lo_strict = b.strict;
      }
    }
    for (const auto& b : path.hi) {
      Result<sql::Value> v = sql::Evaluate(*b.expr, eval);
      if (!v.ok()) return v.status();
      if (v->is_null()) return Status::OK();
      if (!hi || CompareValues(*v, *hi).value_or(0) < 0) {
        hi = std::move(v).value();
        hi_strict = b.strict;
      }
    }
  }
  std::optional<Row> from;
  if (lo) {
    if (std::optional<RowValue> k = to_key(*first, *lo)) from = Row{std::move(*k)};
  }
  // Rows past the upper bound end the scan.
  auto past_hi = [&](const Row& row) {
    if (!hi) return false;
    std::optional<int> c = CompareValues(FromColumnValue(*first, row[first->ordinal]), *hi);
    return c && (*c > 0 || (*c == 0 && hi_strict));
  };
  auto visit = [&](const Row& row) { return past_hi(row) ? false : call(row); };
  Status s;
  if (lock) {
    std::optional<Row> to;
    if (hi && !hi_strict) {
      if (std::optional<RowValue> k = to_key(*first, *hi)) to = Row{std::move(*k)};
    }
    s = engine.ScanLocked(trx, def.id, from ? &*from : nullptr, to ? &*to : nullptr, 0, *lock, visit);
  } else if (from) {
    s = engine.ScanRange(trx, def.id, *from, 0, visit);
  } else {
    s = engine.Scan(trx, def.id, visit);
  }
  if (!s.ok()) return s;
  (void)lo_strict;  // the first row equal to a strict lower bound fails the caller's re-check
  return inner;
}

}  // namespace sluice::server
