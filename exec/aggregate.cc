#include "exec/aggregate.h"

#include <algorithm>

#include "base/mysql_error.h"
#include "sql/lexer.h"

namespace sluice::exec {

namespace {

enum class Fn { kCount, kSum, kAvg, kMin, kMax, kNone };

Fn FnOf(const sql::Expr& e) {
  if (e.kind != sql::ExprKind::kFunction) return Fn::kNone;
  const std::string n = sql::AsciiLower(e.name);
  if (n == "count") return Fn::kCount;
  if (n == "sum") return Fn::kSum;
  if (n == "avg") return Fn::kAvg;
  if (n == "min") return Fn::kMin;
  if (n == "max") return Fn::kMax;
  return Fn::kNone;
}

std::optional<sql::Decimal> AsDecimal(const sql::Value& v) {
  switch (v.kind()) {
    case sql::ValueKind::kInt: return sql::Decimal::FromInteger(v.int_value());
    case sql::ValueKind::kUInt: return sql::Decimal::FromInteger(v.uint_value());
    case sql::ValueKind::kDecimal: return v.decimal_value();
    default: return std::nullopt;
  }
}

}  // namespace

bool IsAggregateFunction(const sql::Expr& e) { return FnOf(e) != Fn::kNone; }

bool ContainsAggregate(const sql::Expr& e) {
  if (IsAggregateFunction(e)) return true;
  for (const auto& a : e.args) {
    if (a && ContainsAggregate(*a)) return true;
  }
  return false;
}

sql::ExprPtr SubstituteExpr(const sql::Expr& e,
                            const std::function<std::optional<sql::Value>(const sql::Expr&)>& replace) {
  if (std::optional<sql::Value> v = replace(e)) {
    auto lit = std::make_unique<sql::Expr>(sql::ExprKind::kLiteral);
    lit->value = std::move(*v);
    lit->begin = e.begin;
    lit->end = e.end;
    return lit;
  }
  auto copy = std::make_unique<sql::Expr>(e.kind);
  copy->op = e.op;
  copy->value = e.value;
  copy->hex_literal = e.hex_literal;
  copy->name = e.name;
  copy->table = e.table;
  copy->schema = e.schema;
  copy->scope = e.scope;
  copy->is_what = e.is_what;
  copy->negated = e.negated;
  copy->star = e.star;
  copy->distinct = e.distinct;
  copy->has_operand = e.has_operand;
  copy->has_else = e.has_else;
  copy->trim_side = e.trim_side;
  copy->cast = e.cast;
  copy->param_index = e.param_index;
  copy->subquery = e.subquery;
  copy->begin = e.begin;
  copy->end = e.end;
  for (const auto& a : e.args) copy->args.push_back(a ? SubstituteExpr(*a, replace) : nullptr);
  return copy;
}

Status Aggregates::Collect(const sql::Expr& e) {
  if (IsAggregateFunction(e)) {
    for (const auto& a : e.args) {
      if (a && ContainsAggregate(*a)) return MakeError(er::kInvalidGroupFuncUse);
    }
    calls_.push_back(&e);
    return Status::OK();
  }
  for (const auto& a : e.args) {
    if (a) SLUICE_RETURN_IF_ERROR(Collect(*a));
  }
  return Status::OK();
}

std::unique_ptr<Aggregates::State> Aggregates::NewGroup() const {
  auto s = std::make_unique<State>();
  s->per_call.resize(calls_.size());
  return s;
}

Status Aggregates::Add(State& state, sql::EvalContext& row) const {
  for (size_t i = 0; i < calls_.size(); ++i) {
    const sql::Expr& call = *calls_[i];
    State::One& one = state.per_call[i];
    const Fn fn = FnOf(call);
    if (fn == Fn::kCount && (call.star || call.args.empty())) {
      ++one.count;
      continue;
    }
    if (call.args.empty()) return MakeError(er::kWrongParamcountToNativeFct, call.name);
    Result<sql::Value> v = sql::Evaluate(*call.args[0], row);
    if (!v.ok()) return v.status();
    if (v->is_null()) continue;
    if (call.distinct) {
      // Equal under the value's collation ('a', 'A', 'Á'): one value.
      if (!one.seen.insert(sql::GroupingKey(*v)).second) continue;
    }
    ++one.count;
    switch (fn) {
      case Fn::kSum:
      case Fn::kAvg: {
        std::optional<sql::Decimal> d = one.exact ? AsDecimal(*v) : std::nullopt;
        std::optional<sql::Decimal> next = d ? sql::Decimal::Add(one.sum, *d) : std::nullopt;
        if (next) {
          one.sum = *next;
        } else {
          one.exact = false;
        }
        one.dsum += v->ToDouble();
        break;
      }
      case Fn::kMin:
      case Fn::kMax: {
        if (!one.any) {
          one.best = *v;
        } else {
          std::optional<int> c = sql::CompareValues(*v, one.best);
          if (c && ((fn == Fn::kMin && *c < 0) || (fn == Fn::kMax && *c > 0))) one.best = *v;
        }
        break;
      }
      default:
        break;
    }
    one.any = true;
  }
  return Status::OK();
}

std::optional<sql::Value> Aggregates::ValueOf(const State& state, const sql::Expr& call) const {
  for (size_t i = 0; i < calls_.size(); ++i) {
    if (calls_[i] != &call) continue;
    const State::One& one = state.per_call[i];
    switch (FnOf(call)) {
      case Fn::kCount:
        return sql::Value::Int(static_cast<int64_t>(one.count));
      case Fn::kSum:
        if (!one.any) return sql::Value::Null();
        return one.exact ? sql::Value::Dec(one.sum) : sql::Value::Double(one.dsum);
      case Fn::kAvg: {
        if (!one.any) return sql::Value::Null();
        if (!one.exact) return sql::Value::Double(one.dsum / static_cast<double>(one.count));
        // The sum's scale plus div_precision_increment, rounded half away from zero.
        const int scale = std::min<int>(one.sum.scale + 4, sql::Decimal::kMaxScale);
        std::optional<sql::Decimal> avg = sql::Decimal::Div(
            one.sum, sql::Decimal::FromInteger(static_cast<__int128>(one.count)), scale);
        return avg ? sql::Value::Dec(*avg) : sql::Value::Double(one.dsum / static_cast<double>(one.count));
      }
      case Fn::kMin:
      case Fn::kMax:
        return one.any ? one.best : sql::Value::Null();
      case Fn::kNone:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

}  // namespace sluice::exec
