#include "exec/access_path.h"

#include <fmt/format.h>

#include <algorithm>

#include "exec/column_values.h"
#include "sql/lexer.h"
#include "storage/engine/engine.h"

namespace sluice::exec {

namespace {

using storage::ColumnDef;
using storage::ColumnType;
using storage::IndexDef;
using storage::KeyPart;
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

// The literal IS NULL looks up: a NULL key.
const sql::Expr& NullLiteral() {
  static const sql::Expr null_literal(sql::ExprKind::kLiteral);
  return null_literal;
}

bool BinaryCollation(const ColumnDef& c) {
  const std::string& n = c.collation;
  return n == "binary" || c.charset == "binary" || (n.size() >= 4 && n.compare(n.size() - 4, 4, "_bin") == 0);
}

// What a key part can do for a path (see the top of the header):
// kRange columns key in their SQL order (ranges, ORDER BY, equality);
// kEquality columns only compare exactly (equality).
// Text keys: exact under a binary collation, and in an index of the
// collation key format (row_codec.h) under the column's own collation,
// which ToKey checks is the comparison's.
enum class KeyUse : uint8_t { kNone, kEquality, kRange };
KeyUse UseOf(const ColumnDef& c, const IndexDef& idx) {
  if (storage::IsIntegerType(c.type) || c.type == ColumnType::kDate || c.type == ColumnType::kDateTime) {
    return KeyUse::kRange;
  }
  if (storage::IsBinaryType(c.type)) return KeyUse::kEquality;
  if (storage::IsTextType(c.type) && (BinaryCollation(c) || idx.key_format >= storage::kKeyFormatCollation)) {
    return KeyUse::kEquality;
  }
  return KeyUse::kNone;
}

const ColumnDef& ColumnOf(const TableDef& def, const KeyPart& p) { return def.columns[p.column]; }

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


// The column of this table `e` is (or null).
const ColumnDef* OwnColumn(const BoundTable& t, const sql::Expr& e) {
  return t.Owns(e) ? t.def->FindColumn(e.name) : nullptr;
}

// An equality a conjunct puts on column `ordinal`: =, <=> and IN of one
// value against an expression without this table's columns, and IS NULL.
struct Equality {
  const sql::Expr* value = nullptr;
  bool null_safe = false;
};
std::optional<Equality> EqualityOn(const sql::Expr& e, const BoundTable& t, uint32_t ordinal) {
  if (e.kind == sql::ExprKind::kIn && !e.negated && e.args.size() == 2 && !e.subquery) {
    const ColumnDef* c = OwnColumn(t, *e.args[0]);
    if (c != nullptr && c->ordinal == ordinal && !t.Mentions(*e.args[1])) return Equality{e.args[1].get(), false};
    return std::nullopt;
  }
  if (e.kind == sql::ExprKind::kIs && !e.negated && e.is_what == sql::IsWhat::kNull && e.args.size() == 1) {
    const ColumnDef* c = OwnColumn(t, *e.args[0]);
    if (c != nullptr && c->ordinal == ordinal) return Equality{&NullLiteral(), true};
    return std::nullopt;
  }
  std::optional<Comparison> c = CompareOn(e, t, ordinal);
  if (c && (c->op == sql::Op::kEq || c->op == sql::Op::kNullSafeEq)) {
    return Equality{c->value, c->op == sql::Op::kNullSafeEq};
  }
  return std::nullopt;
}

bool HasCollate(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kCollate) return true;
  for (const auto& a : e.args) {
    if (a && HasCollate(*a)) return true;
  }
  return false;
}

// What the conjuncts give one index: equalities on its leading parts, then
// range bounds on the next part.
struct IndexMatch {
  ExprList key;
  AccessPath::KeyFlags null_safe;
  ExprList key_conjuncts;  // the equalities, when the key enforces them
  bool whole_columns = true;                    // no key part in `key` is a column prefix
  AccessPath::Bounds lo, hi;
  ExprList in_list;  // IN of several values, on the part after `key`
  ExprList range_conjuncts;  // the conjuncts that gave lo / hi
  bool ranged() const { return !lo.empty() || !hi.empty() || !in_list.empty(); }
  size_t used() const { return key.size() + (ranged() ? 1 : 0); }
};

IndexMatch MatchIndex(const BoundTable& t, const IndexDef& idx, const ExprList& conjuncts) {
  IndexMatch m;
  for (const KeyPart& part : idx.parts) {
    const ColumnDef& c = ColumnOf(*t.def, part);
    const KeyUse use = UseOf(c, idx);
    if (use == KeyUse::kNone) break;
    std::optional<Equality> eq;
    const sql::Expr* eq_conjunct = nullptr;
    for (const sql::Expr* conj : conjuncts) {
      if ((eq = EqualityOn(*conj, t, part.column))) {
        eq_conjunct = conj;
        break;
      }
    }
    // A value under an explicit COLLATE compares under that collation: a
    // text key in the column's may miss rows (ToKey checks again at read
    // time, for collations that come from elsewhere).
    if (eq && storage::IsTextType(c.type) && !BinaryCollation(c) && HasCollate(*eq->value)) break;
    if (eq) {
      m.key.push_back(eq->value);
      m.null_safe.push_back(eq->null_safe);
      if (part.prefix_length == 0) {
        m.key_conjuncts.push_back(eq_conjunct);
      } else {
        m.whole_columns = false;
      }
      continue;
    }
    if (part.prefix_length != 0) break;
    // col IN (v1, v2, ...): a lookup per value (equality is all it needs).
    for (const sql::Expr* conj : conjuncts) {
      if (conj->kind != sql::ExprKind::kIn || conj->negated || conj->subquery || conj->args.size() < 3) continue;
      const ColumnDef* col = OwnColumn(t, *conj->args[0]);
      if (col == nullptr || col->ordinal != part.column) continue;
      bool outside = true;
      for (size_t i = 1; i < conj->args.size() && outside; ++i) outside = !t.Mentions(*conj->args[i]);
      if (!outside) continue;
      for (size_t i = 1; i < conj->args.size(); ++i) m.in_list.push_back(conj->args[i].get());
      break;
    }
    if (!m.in_list.empty() || use != KeyUse::kRange) break;
    for (const sql::Expr* conj : conjuncts) {
      if (conj->kind == sql::ExprKind::kBetween && !conj->negated) {
        const ColumnDef* col = OwnColumn(t, *conj->args[0]);
        if (col != nullptr && col->ordinal == part.column && !t.Mentions(*conj->args[1]) &&
            !t.Mentions(*conj->args[2])) {
          m.lo.push_back({conj->args[1].get(), false});
          m.hi.push_back({conj->args[2].get(), false});
          m.range_conjuncts.push_back(conj);
        }
        continue;
      }
      std::optional<Comparison> cmp = CompareOn(*conj, t, part.column);
      if (!cmp) continue;
      switch (cmp->op) {
        case sql::Op::kGt: m.lo.push_back({cmp->value, true}); break;
        case sql::Op::kGe: m.lo.push_back({cmp->value, false}); break;
        case sql::Op::kLt: m.hi.push_back({cmp->value, true}); break;
        case sql::Op::kLe: m.hi.push_back({cmp->value, false}); break;
        default: continue;
      }
      m.range_conjuncts.push_back(conj);
    }
    break;
  }
  return m;
}

// Whether reading index `index` (its first `fixed` parts held equal)
// delivers `order_by`, and backwards or not. A secondary index's entries
// continue with the PRIMARY KEY, so ORDER BY k, id follows KEY(k).
std::optional<bool> OrderOf(const BoundTable& t, size_t index, size_t fixed,
                            const std::vector<sql::OrderItem>& order_by) {
  const TableDef& def = *t.def;
  std::vector<KeyPart> parts = def.indexes[index].parts;
  if (parts.empty()) return std::nullopt;  // GEN_CLUST_INDEX: row id order means nothing
  if (index != 0 && !def.has_hidden_row_id()) {
    for (const KeyPart& pk : def.clustered().parts) {
      bool in = false;
      for (const KeyPart& p : parts) in = in || (p.column == pk.column && p.prefix_length == 0);
      if (!in) parts.push_back(pk);
    }
  }
  size_t pos = 0;
  std::optional<bool> reverse;
  for (const sql::OrderItem& item : order_by) {
    const ColumnDef* c = item.expr ? OwnColumn(t, *item.expr) : nullptr;
    if (c == nullptr) return std::nullopt;
    while (pos < fixed && parts[pos].column != c->ordinal) ++pos;  // equal parts: constants
    if (pos < parts.size() && parts[pos].column == c->ordinal && parts[pos].prefix_length == 0 &&
        UseOf(*c, def.indexes[index]) == KeyUse::kRange) {
      const bool backwards = item.desc != parts[pos].desc;
      if (reverse && *reverse != backwards) return std::nullopt;
      reverse = backwards;
      ++pos;
      continue;
    }
    bool constant = false;
    for (size_t i = 0; i < fixed && i < parts.size(); ++i) constant = constant || parts[i].column == c->ordinal;
    if (!constant) return std::nullopt;
  }
  return reverse.value_or(false);
}

// ---- reading

// The key value of `v` for key column `c`: nullopt when it cannot be one
// (a string column and a non-string value compare as numbers, not as
// keys); `exact` says whether it equals `v` (else it is the nearest value
// the column holds: rounded, truncated).
std::optional<RowValue> ToKey(const ColumnDef& c, const sql::Value& v, bool* exact) {
  *exact = false;
  const bool string_key = storage::IsBinaryType(c.type) || storage::IsTextType(c.type);
  if (string_key && !v.is_string()) return std::nullopt;
  AssignContext cx;
  cx.strict = true;
  Result<RowValue> rv = ToColumnValue(c, v, cx);
  if (!rv.ok()) return std::nullopt;
  const sql::Value as_column = FromColumnValue(c, *rv);
  // Text keys follow the column's collation: a comparison under another
  // one (x = 'a' COLLATE utf8mb4_bin, a column of another collation) may
  // match rows the key lookup would not find.
  if (string_key && sql::ComparisonCollation(as_column, v) != as_column.collation()) return std::nullopt;
  *exact = CompareValues(as_column, v) == 0;
  return std::move(rv).value();
}

// The values of key expressions `exprs` for the leading parts of `idx`.
enum class KeyOutcome : uint8_t {
  kKey,        // *out holds them
  kNoRows,     // no row can match (= NULL; a number an integer column cannot equal)
  kUnbounded,  // a value the key cannot express: read without the key
};
Result<KeyOutcome> EvalKey(const TableDef& def, const IndexDef& idx, const ExprList& exprs,
                           const AccessPath::KeyFlags& null_safe, sql::EvalContext& eval, Row* out) {
  out->clear();
  for (size_t i = 0; i < exprs.size(); ++i) {
    const ColumnDef& c = ColumnOf(def, idx.parts[i]);
    Result<sql::Value> v = sql::Evaluate(*exprs[i], eval);
    if (!v.ok()) return v.status();
    if (v->is_null()) {
      if (i >= null_safe.size() || !null_safe[i] || !c.nullable) return KeyOutcome::kNoRows;
      out->push_back(RowValue{});
      continue;
    }
    bool exact = false;
    std::optional<RowValue> k = ToKey(c, *v, &exact);
    if (!k || !exact) {
      // An integer column equals no number it cannot hold exactly; strings
      // ('5abc' = 5) and other types compare in ways a key cannot follow.
      if (storage::IsIntegerType(c.type) && v->is_numeric()) return KeyOutcome::kNoRows;
      return KeyOutcome::kUnbounded;
    }
    out->push_back(std::move(*k));
  }
  return KeyOutcome::kKey;
}

// The tightest range ends `lo` / `hi` give key column `c`, in SQL value
// order. A bound the key cannot express is left out (an integer one is
// rounded and made inclusive instead: still a superset).
struct RangeEnd {
  RowValue value;
  bool strict = false;
};
struct Range {
  std::optional<RangeEnd> lo, hi;
  bool empty = false;  // a NULL bound: no row
  bool exact = true;   // every bound was a value of the column (none left out or rounded)
};
Result<Range> EvalRange(const ColumnDef& c, const AccessPath::Bounds& lo, const AccessPath::Bounds& hi,
                        sql::EvalContext& eval) {
  Range r;
  for (bool lower : {true, false}) {
    for (const AccessPath::Bound& b : lower ? lo : hi) {
      Result<sql::Value> v = sql::Evaluate(*b.expr, eval);
      if (!v.ok()) return v.status();
      if (v->is_null()) {  // col > NULL: nothing
        r.empty = true;
        return r;
      }
      bool exact = false;
      std::optional<RowValue> k = ToKey(c, *v, &exact);
      r.exact = r.exact && k && exact;
      if (!k || (!exact && !storage::IsIntegerType(c.type))) continue;
      const bool strict = exact && b.strict;
      std::optional<RangeEnd>& end = lower ? r.lo : r.hi;
      if (!end || (lower ? *k > end->value : *k < end->value) || (*k == end->value && strict)) {
        end = RangeEnd{std::move(*k), strict};
      }
    }
  }
  return r;
}

// The distinct key values of an IN list for key column `c`, in SQL value
// order (for a DESC part: the index's order is the reverse). NULL and
// numbers an integer column cannot hold match nothing and are left out;
// kUnbounded when a value is one the key cannot express.
Result<KeyOutcome> EvalPoints(const ColumnDef& c, const ExprList& list, sql::EvalContext& eval,
                              std::vector<RowValue>* points) {
  points->clear();
  for (const sql::Expr* e : list) {
    Result<sql::Value> v = sql::Evaluate(*e, eval);
    if (!v.ok()) return v.status();
    if (v->is_null()) continue;
    bool exact = false;
    std::optional<RowValue> k = ToKey(c, *v, &exact);
    if (!k || !exact) {
      if (storage::IsIntegerType(c.type) && v->is_numeric()) continue;
      return KeyOutcome::kUnbounded;
    }
    points->push_back(std::move(*k));
  }
  // Duplicates in the list must not read a row twice.
  std::sort(points->begin(), points->end());
  points->erase(std::unique(points->begin(), points->end()), points->end());
  return points->empty() ? KeyOutcome::kNoRows : KeyOutcome::kKey;
}

// The ends of a kRange path's read of `idx` in the index's order, `key`
// being the equal parts before the ranged one; nullopt when no row can be
// in the range.
struct IndexRange {
  std::optional<storage::Engine::KeyBound> lo, hi;
};
Result<std::optional<IndexRange>> RangeOf(const TableDef& def, const IndexDef& idx, const Row& key,
                                          const AccessPath& path, sql::EvalContext& eval, bool* exact = nullptr) {
  using Bound = storage::Engine::KeyBound;
  const KeyPart& part = idx.parts[key.size()];
  const ColumnDef& c = ColumnOf(def, part);
  Result<Range> r = EvalRange(c, path.lo, path.hi, eval);
  if (!r.ok()) return r.status();
  if (exact != nullptr) *exact = r->exact;
  if (r->empty) return std::optional<IndexRange>();
  // The ends in SQL value order; a range excludes NULL, the smallest key.
  IndexRange ends;
  auto with = [&key](RowValue v) {
    Row out = key;
    out.push_back(std::move(v));
    return out;
  };
  if (r->lo) {
    ends.lo = Bound{with(r->lo->value), !r->lo->strict};
  } else if (c.nullable) {
    ends.lo = Bound{with(RowValue{}), false};
  } else if (!key.empty()) {
    ends.lo = Bound{key, true};
  }
  if (r->hi) {
    ends.hi = Bound{with(r->hi->value), !r->hi->strict};
  } else if (!key.empty()) {
    ends.hi = Bound{key, true};
  }
  if (part.desc) std::swap(ends.lo, ends.hi);  // the index's order is the reverse
  return std::optional<IndexRange>(std::move(ends));
}

// Whether parts [0, n) of `idx` are integer columns (ReadRows' key_exact).
bool IntegerParts(const TableDef& def, const IndexDef& idx, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (i >= idx.parts.size() || !storage::IsIntegerType(ColumnOf(def, idx.parts[i]).type)) return false;
  }
  return true;
}

// Reads along `path` without locks (`exact`: ReadRows' key_exact).
Status ReadPath(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table, const AccessPath& path,
                sql::EvalContext& eval, FunctionRef<bool(const Row&)> fn, bool* exact) {
  const TableDef& def = *table.def;
  using Bound = storage::Engine::KeyBound;
  if (path.type == AccessPath::Type::kAll || path.index < 0) {
    return engine.IndexScan(trx, def.id, 0, nullptr, nullptr, false, fn);
  }
  const size_t index = static_cast<size_t>(path.index);
  const IndexDef& idx = def.indexes[index];
  if (path.type == AccessPath::Type::kIndex) return engine.IndexScan(trx, def.id, index, nullptr, nullptr, path.reverse, fn);
  Row key;
  Result<KeyOutcome> k = EvalKey(def, idx, path.key, path.key_null_safe, eval, &key);
  if (!k.ok()) return k.status();
  if (*k == KeyOutcome::kNoRows) return Status::OK();
  if (*k == KeyOutcome::kUnbounded) {  // the whole index, still in its order
    return engine.IndexScan(trx, def.id, index, nullptr, nullptr, path.reverse, fn);
  }
  if (path.type != AccessPath::Type::kRange) {
    *exact = index == 0 && IntegerParts(def, idx, key.size());
    if (index == 0 && key.size() == idx.parts.size()) {  // one row by its PRIMARY KEY
      Result<std::optional<Row>> row = engine.Get(trx, def.id, key);
      if (!row.ok()) return row.status();
      if (row->has_value()) fn(**row);
      return Status::OK();
    }
    const Bound b{key, true};
    return engine.IndexScan(trx, def.id, index, &b, &b, path.reverse, fn);
  }
  const KeyPart& part = idx.parts[key.size()];
  const ColumnDef& c = ColumnOf(def, part);
  if (!path.in_list.empty()) {
    std::vector<RowValue> points;
    Result<KeyOutcome> p = EvalPoints(c, path.in_list, eval, &points);
    if (!p.ok()) return p.status();
    if (*p == KeyOutcome::kNoRows) return Status::OK();
    if (*p == KeyOutcome::kUnbounded) return engine.IndexScan(trx, def.id, index, nullptr, nullptr, path.reverse, fn);
    if (part.desc != path.reverse) std::reverse(points.begin(), points.end());
    bool more = true;
    auto visit = [&](const Row& row) { return more = fn(row); };
    for (RowValue& point : points) {
      Row k = key;
      k.push_back(std::move(point));
      if (index == 0 && k.size() == idx.parts.size()) {  // one row by its PRIMARY KEY
        Result<std::optional<Row>> row = engine.Get(trx, def.id, k);
        if (!row.ok()) return row.status();
        if (row->has_value()) visit(**row);
      } else {
        const Bound b{std::move(k), true};
        SLUICE_RETURN_IF_ERROR(engine.IndexScan(trx, def.id, index, &b, &b, path.reverse, visit));
      }
      if (!more) break;
    }
    return Status::OK();
  }
  bool bounds_exact = false;
  Result<std::optional<IndexRange>> range = RangeOf(def, idx, key, path, eval, &bounds_exact);
  if (!range.ok()) return range.status();
  if (!range->has_value()) return Status::OK();
  *exact = index == 0 && bounds_exact && IntegerParts(def, idx, key.size() + 1);
  const IndexRange& ends = **range;
  return engine.IndexScan(trx, def.id, index, ends.lo ? &*ends.lo : nullptr, ends.hi ? &*ends.hi : nullptr,
                          path.reverse, fn);
}

// Locking reads: through a secondary index the path looks up by equality,
// a range or an IN list, its entries and the rows they lead to
// (Engine::IndexScanLocked); else the clustered index with the PRIMARY KEY
// bounds.
Status ReadLocked(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table, const AccessPath& path,
                  sql::EvalContext& eval, storage::LockMode lock, FunctionRef<bool(const Row&)> fn) {
  const TableDef& def = *table.def;
  const IndexDef& pk = def.clustered();
  const bool by_secondary = path.index > 0 && path.in_list.empty() &&
                            (path.type == AccessPath::Type::kRef || path.type == AccessPath::Type::kEqRef ||
                             path.type == AccessPath::Type::kConst || path.type == AccessPath::Type::kRange);
  if (by_secondary) {
    const size_t index = static_cast<size_t>(path.index);
    const IndexDef& idx = def.indexes[index];
    Row key;
    Result<KeyOutcome> k = EvalKey(def, idx, path.key, path.key_null_safe, eval, &key);
    if (!k.ok()) return k.status();
    if (*k == KeyOutcome::kNoRows) return Status::OK();  // a NULL looked up by =
    if (*k == KeyOutcome::kKey && path.type == AccessPath::Type::kRange) {
      Result<std::optional<IndexRange>> range = RangeOf(def, idx, key, path, eval);
      if (!range.ok()) return range.status();
      if (!range->has_value()) return Status::OK();
      const IndexRange& ends = **range;
      return engine.IndexScanLocked(trx, def.id, index, ends.lo ? &*ends.lo : nullptr, ends.hi ? &*ends.hi : nullptr,
                                    lock, fn);
    }
    if (*k == KeyOutcome::kKey && !key.empty()) {
      const storage::Engine::KeyBound b{std::move(key), true};
      return engine.IndexScanLocked(trx, def.id, index, &b, &b, lock, fn);
    }
    // No usable key (a value the column cannot hold exactly): the
    // clustered read below, as before.
  }
  // An IN list on a secondary index part: one locked equality read per
  // value, so that only those entries, their gaps and rows are locked.
  if (path.index > 0 && path.type == AccessPath::Type::kRange && !path.in_list.empty()) {
    const size_t index = static_cast<size_t>(path.index);
    const IndexDef& idx = def.indexes[index];
    Row key;
    Result<KeyOutcome> k = EvalKey(def, idx, path.key, path.key_null_safe, eval, &key);
    if (!k.ok()) return k.status();
    if (*k == KeyOutcome::kNoRows) return Status::OK();
    if (*k == KeyOutcome::kKey && key.size() < idx.parts.size()) {
      std::vector<RowValue> points;
      Result<KeyOutcome> p = EvalPoints(ColumnOf(def, idx.parts[key.size()]), path.in_list, eval, &points);
      if (!p.ok()) return p.status();
      if (*p == KeyOutcome::kNoRows) return Status::OK();
      if (*p == KeyOutcome::kKey) {
        bool more = true;
        auto visit = [&](const Row& row) { return more = fn(row); };
        for (RowValue& point : points) {
          Row one = key;
          one.push_back(std::move(point));
          const storage::Engine::KeyBound b{std::move(one), true};
          SLUICE_RETURN_IF_ERROR(engine.IndexScanLocked(trx, def.id, index, &b, &b, lock, visit));
          if (!more) break;
        }
        return Status::OK();
      }
    }
    // A value the key cannot express: the clustered read below.
  }
  Row key;
  Result<KeyOutcome> k = EvalKey(def, pk, path.pk_key, {}, eval, &key);
  if (!k.ok()) return k.status();
  if (*k == KeyOutcome::kNoRows) return Status::OK();
  if (*k == KeyOutcome::kUnbounded) key.clear();
  if (*k == KeyOutcome::kKey && !key.empty() && key.size() == pk.parts.size()) {
    Result<std::optional<Row>> row = engine.GetLocked(trx, def.id, key, lock);
    if (!row.ok()) return row.status();
    if (row->has_value()) fn(**row);
    return Status::OK();
  }
  // An IN list completing the PRIMARY KEY: one locked lookup per value,
  // in PRIMARY KEY order.
  if (*k == KeyOutcome::kKey && !path.pk_in_list.empty() && key.size() + 1 == pk.parts.size()) {
    std::vector<RowValue> points;
    Result<KeyOutcome> p = EvalPoints(ColumnOf(def, pk.parts[key.size()]), path.pk_in_list, eval, &points);
    if (!p.ok()) return p.status();
    if (*p == KeyOutcome::kNoRows) return Status::OK();
    if (*p == KeyOutcome::kKey) {
      if (pk.parts[key.size()].desc) std::reverse(points.begin(), points.end());
      for (RowValue& point : points) {
        Row one = key;
        one.push_back(std::move(point));
        Result<std::optional<Row>> row = engine.GetLocked(trx, def.id, one, lock);
        if (!row.ok()) return row.status();
        if (row->has_value() && !fn(**row)) break;
      }
      return Status::OK();
    }
    // kUnbounded: the scan below, bounded by `key` alone.
  }
  std::optional<Row> from, to;
  if (!key.empty()) from = to = key;
  // A range on the next part (ascending parts only: the engine's bounds are
  // in the index's order).
  std::optional<RangeEnd> strict_hi;
  const KeyPart* part = *k == KeyOutcome::kKey && key.size() < pk.parts.size() ? &pk.parts[key.size()] : nullptr;
  if (part != nullptr && !part->desc && (!path.pk_lo.empty() || !path.pk_hi.empty())) {
    Result<Range> r = EvalRange(ColumnOf(def, *part), path.pk_lo, path.pk_hi, eval);
    if (!r.ok()) return r.status();
    if (r->empty) return Status::OK();
    if (r->lo) {  // inclusive: the row equal to a strict bound fails the caller's re-check
      from = key;
      from->push_back(r->lo->value);
    }
    if (r->hi && !r->hi->strict) {
      to = key;
      to->push_back(r->hi->value);
    }
    if (r->hi && r->hi->strict) strict_hi = r->hi;
  }
  // Rows at or past a strict upper bound end the scan (the engine has
  // locked the first of them, as InnoDB does).
  std::optional<sql::Value> stop_at;
  if (strict_hi) stop_at = FromColumnValue(ColumnOf(def, *part), strict_hi->value);
  auto visit = [&](const Row& row) {
    if (stop_at && CompareValues(FromColumnValue(ColumnOf(def, *part), row[part->column]), *stop_at) >= 0) {
      return false;
    }
    return fn(row);
  };
  return engine.ScanLocked(trx, def.id, from ? &*from : nullptr, to ? &*to : nullptr, 0, lock, visit);
}

}  // namespace

bool BoundTable::Owns(const sql::Expr& e) const {
  if (e.kind != sql::ExprKind::kColumn) return false;
  if (e.table.empty()) return def->FindColumn(e.name) != nullptr;
  return sql::EqualsIgnoreCase(e.table, qualifier);
}

void SplitConjuncts(const sql::Expr* e, ExprList* out) {
  if (e == nullptr) return;
  if (e->kind == sql::ExprKind::kBinary && e->op == sql::Op::kAnd) {
    SplitConjuncts(e->args[0].get(), out);
    SplitConjuncts(e->args[1].get(), out);
    return;
  }
  out->push_back(e);
}

bool BoundTable::Mentions(const sql::Expr& e) const {
  // A subquery may be correlated to this table through columns the
  // expression tree does not show: never a bound.
  if (Owns(e) || e.subquery) return true;
  for (const auto& a : e.args) {
    if (a && Mentions(*a)) return true;
  }
  return false;
}

std::string_view AccessPath::TypeName() const {
  switch (type) {
    case Type::kConst: return "const";
    case Type::kEqRef: return "eq_ref";
    case Type::kRef: return "ref";
    case Type::kRange: return "range";
    case Type::kIndex: return "index";
    case Type::kAll: break;
  }
  return "ALL";
}

bool AccessPath::OrderedWhenLocking() const {
  if (!ordered) return false;
  if (type == Type::kConst || type == Type::kEqRef) return true;
  return index == 0 && !reverse;
}

AccessPath PlanAccess(const BoundTable& table, const sql::Expr* cond, const std::vector<sql::OrderItem>* order_by,
                      bool has_limit) {
  ExprList conjuncts;
  SplitConjuncts(cond, &conjuncts);
  return PlanAccess(table, conjuncts, order_by, has_limit);
}

AccessPath PlanAccess(const BoundTable& table, const ExprList& given,
                      const std::vector<sql::OrderItem>* order_by, bool has_limit) {
  AccessPath path;
  const TableDef& def = *table.def;
  ExprList conjuncts;
  for (const sql::Expr* c : given) SplitConjuncts(c, &conjuncts);
  boost::container::small_vector<IndexMatch, 4> matches;
  for (const IndexDef& idx : def.indexes) matches.push_back(MatchIndex(table, idx, conjuncts));
  for (size_t i = 0; i < matches.size(); ++i) {
    if (matches[i].used() > 0) path.possible.push_back(static_cast<int>(i));
  }
  path.pk_key = matches[0].key;
  path.pk_lo = matches[0].lo;
  path.pk_hi = matches[0].hi;
  path.pk_in_list = matches[0].in_list;
  auto take = [&](size_t i, AccessPath::Type type) {
    IndexMatch& m = matches[i];
    path.index = static_cast<int>(i);
    path.type = type;
    if (type == AccessPath::Type::kConst) {
      bool constant = true;
      for (const sql::Expr* k : m.key) constant = constant && !HasColumn(*k);
      if (!constant) path.type = AccessPath::Type::kEqRef;
    }
    path.key = m.key;
    path.key_null_safe = m.null_safe;
    path.key_conjuncts = m.key_conjuncts;
    if (type == AccessPath::Type::kRange) {
      path.lo = m.lo;
      path.hi = m.hi;
      path.in_list = m.in_list;
      path.range_conjuncts = m.range_conjuncts;
    }
  };
  // 1. Every part of the PRIMARY KEY, then of a UNIQUE index, equal: one row.
  auto one_row = [&](size_t i) {
    const IndexDef& idx = def.indexes[i];
    const IndexMatch& m = matches[i];
    if (idx.parts.empty() || m.key.size() != idx.parts.size() || !m.whole_columns) return false;
    if (i != 0 && !idx.unique) return false;
    for (size_t p = 0; p < m.key.size(); ++p) {  // a UNIQUE index holds any number of NULLs
      if (m.null_safe[p] && ColumnOf(def, idx.parts[p]).nullable) return false;
    }
    return true;
  };
  std::optional<size_t> chosen;
  for (size_t i = 0; i < matches.size() && !chosen; ++i) {
    if (one_row(i)) {
      chosen = i;
      take(i, AccessPath::Type::kConst);
    }
  }
  // 2. Equality on leading parts (ref), or on leading parts and a range on
  // the next (range): the index that uses the most parts.
  if (!chosen) {
    for (size_t i = 0; i < matches.size(); ++i) {
      if (matches[i].key.empty()) continue;
      if (!chosen || matches[i].used() > matches[*chosen].used()) chosen = i;
    }
    if (chosen) take(*chosen, matches[*chosen].ranged() ? AccessPath::Type::kRange : AccessPath::Type::kRef);
  }
  // 3. A range on the first part: the PRIMARY KEY's, else a secondary index's.
  for (size_t i = 0; i < matches.size() && !chosen; ++i) {
    if (matches[i].ranged()) {
      chosen = i;
      take(i, AccessPath::Type::kRange);
    }
  }
  if (order_by == nullptr || order_by->empty()) return path;
  // ORDER BY: does the path deliver it? A whole-table read may become a
  // whole-index read in that order.
  switch (path.type) {
    case AccessPath::Type::kConst:
    case AccessPath::Type::kEqRef:
      path.ordered = true;
      break;
    case AccessPath::Type::kRef:
    case AccessPath::Type::kRange:
      if (std::optional<bool> reverse = OrderOf(table, static_cast<size_t>(path.index), path.key.size(), *order_by)) {
        path.ordered = true;
        path.reverse = *reverse;
      }
      break;
    case AccessPath::Type::kAll:
    case AccessPath::Type::kIndex:
      for (size_t i = 0; i < def.indexes.size(); ++i) {
        if (i > 0 && !has_limit) break;  // without LIMIT, sorting beats a lookup per row
        if (std::optional<bool> reverse = OrderOf(table, i, 0, *order_by)) {
          path.type = AccessPath::Type::kIndex;
          path.index = static_cast<int>(i);
          path.ordered = true;
          path.reverse = *reverse;
          break;
        }
      }
      break;
  }
  return path;
}

Status ReadRows(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table, const AccessPath& path,
                sql::EvalContext& eval, std::optional<storage::LockMode> lock,
                FunctionRef<Result<bool>(const Row&)> fn, bool* key_exact) {
  bool exact = false;
  if (key_exact == nullptr) key_exact = &exact;
  *key_exact = false;
  // SERIALIZABLE turns plain reads into shared locking reads (as the
  // engine's Get/Scan do).
  if (!lock && trx.isolation() == storage::IsolationLevel::kSerializable) lock = storage::LockMode::kS;
  Status inner;
  auto call = [&](const Row& row) -> bool {
    // Every row of every table a statement reads comes through here: the
    // one place a scan or a join's inner loop notices KILL or a deadline.
    inner = eval.CheckInterrupt();
    if (!inner.ok()) return false;
    Result<bool> more = fn(row);
    if (!more.ok()) {
      inner = more.status();
      return false;
    }
    return *more;
  };
  Status s = lock ? ReadLocked(engine, trx, table, path, eval, *lock, call)
                  : ReadPath(engine, trx, table, path, eval, call, key_exact);
  if (!s.ok()) return s;
  return inner;
}

Result<uint64_t> CountPathRows(storage::Engine& engine, storage::EngineTrx& trx, const BoundTable& table,
                               const AccessPath& path, sql::EvalContext& eval, uint64_t cap) {
  uint64_t n = 0;
  Status inner;
  bool exact = false;
  Status s = ReadPath(
      engine, trx, table, path, eval,
      [&](const Row&) {
        inner = eval.CheckInterrupt();
        return inner.ok() && ++n < cap;
      },
      &exact);
  if (!s.ok()) return s;
  if (!inner.ok()) return inner;
  return n;
}

// ---- EXPLAIN

namespace {

uint32_t MaxBytesPerChar(std::string_view charset) {
  if (charset == "latin1" || charset == "ascii" || charset == "binary") return 1;
  if (charset == "ucs2") return 2;
  if (charset == "utf8mb3" || charset == "utf8") return 3;
  return 4;  // utf8mb4, utf16, utf32
}

// DECIMAL(p, s)'s bytes in MySQL's binary format: 4 bytes per 9 digits,
// fewer for the leftover digits, integer and fraction parts apart.
uint32_t DecimalBytes(uint32_t precision, uint32_t scale) {
  static constexpr uint32_t kLeftover[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};
  if (precision == 0) precision = 10;
  const uint32_t whole = precision - scale;
  return whole / 9 * 4 + kLeftover[whole % 9] + scale / 9 * 4 + kLeftover[scale % 9];
}

// EXPLAIN's key_len of one key part: MySQL's key image length.
uint32_t KeyPartLength(const ColumnDef& c, const KeyPart& p) {
  uint32_t n = 0;
  const uint32_t fsp_bytes = (c.fsp + 1) / 2;
  switch (c.type) {
    case ColumnType::kTinyInt: n = 1; break;
    case ColumnType::kSmallInt: n = 2; break;
    case ColumnType::kMediumInt: n = 3; break;
    case ColumnType::kInt: n = 4; break;
    case ColumnType::kBigInt: n = 8; break;
    case ColumnType::kFloat: n = 4; break;
    case ColumnType::kDouble: n = 8; break;
    case ColumnType::kDecimal: n = DecimalBytes(c.precision, c.scale); break;
    case ColumnType::kDate: n = 3; break;
    case ColumnType::kTime: n = 3 + fsp_bytes; break;
    case ColumnType::kDateTime: n = 5 + fsp_bytes; break;
    case ColumnType::kTimestamp: n = 4 + fsp_bytes; break;
    case ColumnType::kYear: n = 1; break;
    case ColumnType::kEnum: n = c.enum_values.size() < 256 ? 1 : 2; break;
    case ColumnType::kChar:
    case ColumnType::kBinary: {
      const uint32_t chars = p.prefix_length != 0 ? std::min(p.prefix_length, c.length) : c.length;
      n = chars * (c.type == ColumnType::kChar ? MaxBytesPerChar(c.charset) : 1);
      break;
    }
    default: {  // VARCHAR, VARBINARY, TEXT, BLOB: the bytes and a 2-byte length
      const uint32_t chars = p.prefix_length != 0 ? p.prefix_length : c.length;
      n = chars * (storage::IsTextType(c.type) ? MaxBytesPerChar(c.charset) : 1) + 2;
      break;
    }
  }
  return n + (c.nullable ? 1 : 0);
}

// MySQL's guesses for how many rows a condition on a column no index
// covers lets through (it has no statistics for such columns).
double Selectivity(const sql::Expr& e) {
  constexpr double kEquality = 0.1, kInequality = 1.0 / 3, kBetween = 1.0 / 9;
  switch (e.kind) {
    case sql::ExprKind::kBinary:
      switch (e.op) {
        case sql::Op::kEq:
        case sql::Op::kNullSafeEq: return kEquality;
        case sql::Op::kNe: return 1 - kEquality;
        case sql::Op::kLt:
        case sql::Op::kLe:
        case sql::Op::kGt:
        case sql::Op::kGe: return kInequality;
        default: return 1;
      }
    case sql::ExprKind::kBetween: return e.negated ? 1 : kBetween;
    case sql::ExprKind::kIn:
      if (e.negated || e.subquery) return 1;
      return std::min(kEquality * static_cast<double>(e.args.size() - 1), 0.5);
    case sql::ExprKind::kIs:
      if (e.is_what != sql::IsWhat::kNull) return 1;
      return e.negated ? 1 - kEquality : kEquality;
    default: return 1;
  }
}

// The column of this table a simple predicate constrains (col op value,
// col BETWEEN, col IN, col IS NULL), or null.
const ColumnDef* PredicateColumn(const BoundTable& t, const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kBinary: {
      if (e.args.size() != 2) return nullptr;
      for (int side : {0, 1}) {
        const ColumnDef* c = OwnColumn(t, *e.args[side]);
        if (c != nullptr && !t.Mentions(*e.args[1 - side])) return c;
      }
      return nullptr;
    }
    case sql::ExprKind::kBetween:
    case sql::ExprKind::kIn:
    case sql::ExprKind::kIs: {
      if (e.args.empty() || e.subquery) return nullptr;
      const ColumnDef* c = OwnColumn(t, *e.args[0]);
      if (c == nullptr) return nullptr;
      for (size_t i = 1; i < e.args.size(); ++i) {
        if (t.Mentions(*e.args[i])) return nullptr;
      }
      return c;
    }
    default: return nullptr;
  }
}

// Whether every column of this table `e` mentions is in `cols`.
bool OnlyColumns(const BoundTable& t, const sql::Expr& e, const std::vector<bool>& cols) {
  if (const ColumnDef* c = OwnColumn(t, e)) return cols[c->ordinal];
  for (const auto& a : e.args) {
    if (a && !OnlyColumns(t, *a, cols)) return false;
  }
  return true;
}

}  // namespace

ExplainRow ExplainAccess(const BoundTable& table, const AccessPath& path, const ExplainHints& hints) {
  using Type = AccessPath::Type;
  const TableDef& def = *table.def;
  ExplainRow row;
  row.table = table.qualifier;
  row.type = std::string(path.TypeName());
  auto names = [&](const auto& positions) -> std::optional<std::string> {
    if (positions.empty()) return std::nullopt;
    std::string out;
    for (int i : positions) out += (out.empty() ? "" : ",") + def.indexes[static_cast<size_t>(i)].name;
    return out;
  };
  row.possible_keys = names(path.possible);
  const IndexDef* idx = path.index >= 0 ? &def.indexes[static_cast<size_t>(path.index)] : nullptr;
  if (idx != nullptr) {
    row.key = idx->name;
    size_t parts = idx->parts.size();
    if (path.type == Type::kConst || path.type == Type::kEqRef || path.type == Type::kRef) parts = path.key.size();
    if (path.type == Type::kRange) parts = std::min(path.key.size() + 1, idx->parts.size());
    uint32_t len = 0;
    for (size_t i = 0; i < parts; ++i) len += KeyPartLength(ColumnOf(def, idx->parts[i]), idx->parts[i]);
    row.key_len = std::to_string(len);
  }
  if (path.type == Type::kConst || path.type == Type::kEqRef || path.type == Type::kRef) {
    std::string ref;
    for (const sql::Expr* k : path.key) {
      std::string one = "func";
      if (!HasColumn(*k)) {
        one = "const";
      } else if (k->kind == sql::ExprKind::kColumn && hints.ref_name) {
        one = hints.ref_name(*k);
      }
      ref += (ref.empty() ? "" : ",") + one;
    }
    row.ref = std::move(ref);
  }
  row.rows = path.type == Type::kConst || path.type == Type::kEqRef ? 1 : hints.rows;

  // The conjuncts left after the key lookup, and what they constrain.
  ExprList conjuncts, residual;
  SplitConjuncts(hints.cond, &conjuncts);
  for (const sql::Expr* c : hints.conjuncts) SplitConjuncts(c, &conjuncts);
  for (const sql::Expr* c : conjuncts) {
    if (std::find(path.key_conjuncts.begin(), path.key_conjuncts.end(), c) == path.key_conjuncts.end()) {
      residual.push_back(c);
    }
  }
  std::vector<bool> indexed(def.columns.size(), false), in_key(def.columns.size(), false);
  for (const IndexDef& i : def.indexes) {
    for (const KeyPart& p : i.parts) indexed[p.column] = true;
  }
  if (idx != nullptr) {
    for (const KeyPart& p : idx->parts) in_key[p.column] = in_key[p.column] || p.prefix_length == 0;
    if (path.index != 0) {
      for (const KeyPart& p : def.clustered().parts) in_key[p.column] = true;
    }
  }
  double filtered = 1;
  if (path.type != Type::kConst) {
    for (const sql::Expr* c : residual) {
      const ColumnDef* col = PredicateColumn(table, *c);
      if (col != nullptr && !indexed[col->ordinal]) filtered *= Selectivity(*c);
    }
  }
  row.filtered = filtered * 100;

  bool covering = idx != nullptr;
  if (covering) {
    if (hints.columns == nullptr) {
      covering = std::all_of(in_key.begin(), in_key.end(), [](bool b) { return b; });
    } else {
      for (uint32_t c : *hints.columns) covering = covering && c < in_key.size() && in_key[c];
    }
  }
  std::vector<std::string_view> extra;
  const bool secondary = idx != nullptr && path.index != 0;
  bool pushed = false, where = false;  // "Using index condition", "Using where"
  switch (path.type) {
    case Type::kConst:
      break;
    case Type::kEqRef:
    case Type::kRef:
    case Type::kRange:
      if (path.type == Type::kRange) {
        if (secondary && !covering) {
          pushed = true;
        } else {
          where = true;
        }
      }
      for (const sql::Expr* c : residual) {
        if (secondary && !covering && OnlyColumns(table, *c, in_key)) {
          pushed = true;
        } else {
          where = true;
        }
      }
      break;
    case Type::kIndex:
    case Type::kAll:
      where = !conjuncts.empty();
      break;
  }
  if (pushed) extra.push_back("Using index condition");
  if (where) extra.push_back("Using where");
  if (path.reverse) extra.push_back("Backward index scan");
  if (covering) extra.push_back("Using index");
  if (hints.temporary) extra.push_back("Using temporary");
  if (hints.filesort) extra.push_back("Using filesort");
  if (!extra.empty()) {
    std::string text;
    for (std::string_view e : extra) text += fmt::format("{}{}", text.empty() ? "" : "; ", e);
    row.extra = std::move(text);
  }
  return row;
}

}  // namespace sluice::exec
