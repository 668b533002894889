#include "sql/eval.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_set>

#include "base/mysql_error.h"
#include "base/stack_guard.h"
#include "sql/charset_internal.h"
#include "sql/eval_internal.h"
#include "sql/json.h"
#include "sql/like.h"
#include "sql/regexp.h"
#include "sql/temporal.h"
#include "sql/number.h"

namespace sluice::sql {

namespace {

constexpr int kDivPrecisionIncrement = 4;  // MySQL's div_precision_increment default

// How a value takes part in arithmetic and numeric comparison.
enum class NumClass { kInt, kDecimal, kDouble };

NumClass ClassOf(const Value& v) {
  switch (v.kind()) {
    case ValueKind::kNull:
    case ValueKind::kInt:
    case ValueKind::kUInt:
      return NumClass::kInt;
    case ValueKind::kDecimal:
      return NumClass::kDecimal;
    case ValueKind::kDouble:
      return NumClass::kDouble;
    case ValueKind::kString:
      if (v.is_enum()) return NumClass::kInt;  // its index
      // NOW() + 0 is 20240102030405; NOW(3) + 0 keeps its fraction.
      if (v.is_temporal()) {
        return v.string_value().find('.') == std::string::npos ? NumClass::kInt
                                                               : NumClass::kDecimal;
      }
      return NumClass::kDouble;
  }
  return NumClass::kDouble;
}

__int128 AsInt128(const Value& v) {
  if (v.kind() == ValueKind::kInt) return v.int_value();
  if (v.kind() == ValueKind::kUInt) return v.uint_value();
  return v.ToInt();
}

// 1292 "Truncated incorrect <type> value: '<text>'".
Status TruncatedWarning(EvalContext& ctx, const char* type, std::string_view text) {
  return ctx.Warn(er::kTruncatedWrongValue, fmt::format(fmt::runtime(er::kTruncatedWrongValue.format), type, text));
}

// A number compared with a string compares as DOUBLE: the string is read
// as a number. `a` and `b` came from `ea` and `eb` (null: unknown).
Status WarnIfComparedAsNumber(const Value& a, const Value& b, EvalContext& ctx, const Expr* ea, const Expr* eb) {
  if (a.is_string() == b.is_string()) return Status::OK();  // both strings, or neither
  const bool a_text = a.is_string();
  if (!(a_text ? b : a).is_numeric()) return Status::OK();
  return WarnIfNotNumber(a_text ? a : b, "DOUBLE", ctx, a_text ? ea : eb);
}

Result<Value> DivisionByZero(EvalContext& ctx) {
  SLUICE_RETURN_IF_ERROR(ctx.Warn(er::kDivisionByZero, er::kDivisionByZero.format));
  return Value::Null();
}

Result<Value> IntegerResult(__int128 r, bool is_unsigned, const Expr& node) {
  if (is_unsigned) {
    if (r < 0 || r > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
      return OutOfRange("BIGINT UNSIGNED", node);
    }
    return Value::UInt(static_cast<uint64_t>(r));
  }
  if (r < std::numeric_limits<int64_t>::min() || r > std::numeric_limits<int64_t>::max()) {
    return OutOfRange("BIGINT", node);
  }
  return Value::Int(static_cast<int64_t>(r));
}

Result<Value> DoubleArithmetic(Op op, double x, double y, const Expr& node, EvalContext& ctx) {
  double r = 0;
  switch (op) {
    case Op::kAdd: r = x + y; break;
    case Op::kSub: r = x - y; break;
    case Op::kMul: r = x * y; break;
    case Op::kDiv:
      if (y == 0) return DivisionByZero(ctx);
      r = x / y;
      break;
    case Op::kMod:
      if (y == 0) return DivisionByZero(ctx);
      r = std::fmod(x, y);
      break;
    case Op::kIntDiv: {
      if (y == 0) return DivisionByZero(ctx);
      double q = std::trunc(x / y);
      if (!(q >= -9223372036854775808.0 && q < 9223372036854775808.0)) {
        return OutOfRange("BIGINT", node);
      }
      return Value::Int(static_cast<int64_t>(q));
    }
    default:
      return Status::InvalidArgument("not an arithmetic operator");
  }
  if (!std::isfinite(r)) return OutOfRange("DOUBLE", node);
  return Value::Double(r);
}

Result<Value> DecimalArithmetic(Op op, const Value& av, const Value& bv, const Expr& node,
                                EvalContext& ctx) {
  const Decimal a = av.ToDecimal();
  const Decimal b = bv.ToDecimal();
  std::optional<Decimal> r;
  switch (op) {
    case Op::kAdd: r = Decimal::Add(a, b); break;
    case Op::kSub: r = Decimal::Sub(a, b); break;
    case Op::kMul: r = Decimal::Mul(a, b); break;
    case Op::kDiv:
      if (b.is_zero()) return DivisionByZero(ctx);
      r = Decimal::Div(a, b, std::min(a.scale + kDivPrecisionIncrement, Decimal::kMaxScale));
      break;
    case Op::kMod:
      if (b.is_zero()) return DivisionByZero(ctx);
      r = Decimal::Mod(a, b);
      break;
    case Op::kIntDiv: {
      if (b.is_zero()) return DivisionByZero(ctx);
      std::optional<Decimal> q = Decimal::IntDiv(a, b);
      std::optional<__int128> v = q ? q->Unscaled() : std::nullopt;
      if (!v) return OutOfRange("BIGINT", node);
      return IntegerResult(*v, false, node);
    }
    default:
      return Status::InvalidArgument("not an arithmetic operator");
  }
  // More than 65 digits before the point: MySQL's 1690.
  if (!r) return OutOfRange("DECIMAL", node);
  return Value::Dec(*r);
}

Result<Value> IntegerArithmetic(Op op, const Value& a, const Value& b, const Expr& node,
                                EvalContext& ctx) {
  const __int128 x = AsInt128(a);
  const __int128 y = AsInt128(b);
  bool is_unsigned = a.kind() == ValueKind::kUInt || b.kind() == ValueKind::kUInt;
  __int128 r = 0;
  switch (op) {
    case Op::kAdd: r = x + y; break;
    case Op::kSub: r = x - y; break;
    case Op::kMul:
      if (__builtin_mul_overflow(x, y, &r)) {
        return OutOfRange(is_unsigned ? "BIGINT UNSIGNED" : "BIGINT", node);
      }
      break;
    case Op::kIntDiv:
      if (y == 0) return DivisionByZero(ctx);
      r = x / y;
      break;
    case Op::kMod:
      if (y == 0) return DivisionByZero(ctx);
      r = x % y;
      is_unsigned = a.kind() == ValueKind::kUInt;
      break;
    default:
      return Status::InvalidArgument("not an arithmetic operator");
  }
  return IntegerResult(r, is_unsigned, node);
}

Result<Value> Negate(const Value& v, const Expr& node) {
  switch (v.kind()) {
    case ValueKind::kNull:
      return Value::Null();
    case ValueKind::kInt:
      if (v.int_value() == std::numeric_limits<int64_t>::min()) return OutOfRange("BIGINT", node);
      return Value::Int(-v.int_value());
    case ValueKind::kUInt: {
      const __int128 u = v.uint_value();
      if (u <= static_cast<__int128>(1) << 63) return Value::Int(static_cast<int64_t>(-u));
      return Value::Dec(Decimal::FromInteger(-u));
    }
    case ValueKind::kDouble:
      return Value::Double(-v.double_value());
    case ValueKind::kDecimal:
      return Value::Dec(v.decimal_value().Negated());
    case ValueKind::kString:
      switch (ClassOf(v)) {
        case NumClass::kInt: return Negate(Value::Int(v.ToInt()), node);
        case NumClass::kDecimal: return Negate(Value::Dec(v.ToDecimal()), node);
        case NumClass::kDouble: return Value::Double(-v.ToDouble());
      }
  }
  return Value::Null();
}

uint64_t BitOperand(const Value& v) {
  if (v.kind() == ValueKind::kString) {
    // Strings go through DOUBLE ('1.9' | 0 is 2); temporal values keep digits.
    return v.is_temporal() ? Value::Dec(v.ToDecimal()).ToUInt()
                           : Value::Double(v.ToDouble()).ToUInt();
  }
  return v.ToUInt();
}

Value BitOperation(Op op, const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return Value::Null();
  const uint64_t x = BitOperand(a);
  const uint64_t y = BitOperand(b);
  switch (op) {
    case Op::kBitOr: return Value::UInt(x | y);
    case Op::kBitAnd: return Value::UInt(x & y);
    case Op::kBitXor: return Value::UInt(x ^ y);
    case Op::kShl: return Value::UInt(y >= 64 ? 0 : x << y);
    case Op::kShr: return Value::UInt(y >= 64 ? 0 : x >> y);
    default: return Value::Null();
  }
}

bool IsNumericValue(const Value& v) { return v.is_numeric(); }

Value FromTruth(std::optional<bool> b) { return b ? Value::Bool(*b) : Value::Null(); }

Result<Value> EvalComparison(const Expr& e, EvalContext& ctx) {
  Result<Value> ra = Evaluate(*e.args[0], ctx);
  if (!ra.ok()) return ra;
  Result<Value> rb = Evaluate(*e.args[1], ctx);
  if (!rb.ok()) return rb;
  Value a = std::move(ra).value();
  Value b = std::move(rb).value();
  if (IsNumericValue(b)) a = NumericOperand(*e.args[0], a);
  if (IsNumericValue(a)) b = NumericOperand(*e.args[1], b);
  SLUICE_RETURN_IF_ERROR(WarnIfComparedAsNumber(a, b, ctx, e.args[0].get(), e.args[1].get()));
  if (e.op == Op::kNullSafeEq) {
    if (a.is_null() || b.is_null()) return Value::Bool(a.is_null() && b.is_null());
    return Value::Bool(CompareValues(a, b) == 0);
  }
  std::optional<int> c = CompareValues(a, b);
  if (!c) return Value::Null();
  switch (e.op) {
    case Op::kEq: return Value::Bool(*c == 0);
    case Op::kNe: return Value::Bool(*c != 0);
    case Op::kLt: return Value::Bool(*c < 0);
    case Op::kLe: return Value::Bool(*c <= 0);
    case Op::kGt: return Value::Bool(*c > 0);
    case Op::kGe: return Value::Bool(*c >= 0);
    default: return Value::Null();
  }
}

Result<Value> EvalLogic(const Expr& e, EvalContext& ctx) {
  auto l = EvaluateTruth(*e.args[0], ctx);
  if (!l.ok()) return l.status();
  if (e.op == Op::kAnd && *l == std::optional<bool>(false)) return Value::Bool(false);
  if (e.op == Op::kOr && *l == std::optional<bool>(true)) return Value::Bool(true);
  auto r = EvaluateTruth(*e.args[1], ctx);
  if (!r.ok()) return r.status();
  const std::optional<bool> x = *l, y = *r;
  switch (e.op) {
    case Op::kAnd:
      if (y == std::optional<bool>(false)) return Value::Bool(false);
      if (!x || !y) return Value::Null();
      return Value::Bool(true);
    case Op::kOr:
      if (y == std::optional<bool>(true)) return Value::Bool(true);
      if (!x || !y) return Value::Null();
      return Value::Bool(false);
    case Op::kXor:
      if (!x || !y) return Value::Null();
      return Value::Bool(*x != *y);
    default:
      return Value::Null();
  }
}

Result<Value> EvalBinary(const Expr& e, EvalContext& ctx) {
  switch (e.op) {
    case Op::kAnd:
    case Op::kOr:
    case Op::kXor:
      return EvalLogic(e, ctx);
    case Op::kEq:
    case Op::kNullSafeEq:
    case Op::kNe:
    case Op::kLt:
    case Op::kLe:
    case Op::kGt:
    case Op::kGe:
      return EvalComparison(e, ctx);
    default:
      break;
  }
  Result<Value> ra = Evaluate(*e.args[0], ctx);
  if (!ra.ok()) return ra;
  Result<Value> rb = Evaluate(*e.args[1], ctx);
  if (!rb.ok()) return rb;
  if (e.op == Op::kConcat) {
    if (ra->is_null() || rb->is_null()) return Value::Null();
    return Value::String(ra->ToString() + rb->ToString(), ra->is_binary() || rb->is_binary());
  }
  Value a = NumericOperand(*e.args[0], *ra);
  Value b = NumericOperand(*e.args[1], *rb);
  const bool bitwise = e.op == Op::kBitOr || e.op == Op::kBitAnd || e.op == Op::kBitXor || e.op == Op::kShl ||
                       e.op == Op::kShr;
  if (!a.is_null() && !b.is_null()) {
    const char* type = bitwise ? "INTEGER" : "DOUBLE";
    SLUICE_RETURN_IF_ERROR(WarnIfNotNumber(a, type, ctx, e.args[0].get()));
    SLUICE_RETURN_IF_ERROR(WarnIfNotNumber(b, type, ctx, e.args[1].get()));
  }
  return bitwise ? BitOperation(e.op, a, b) : Arithmetic(e.op, a, b, e, ctx);
}

Result<Value> EvalUnary(const Expr& e, EvalContext& ctx) {
  Result<Value> r = Evaluate(*e.args[0], ctx);
  if (!r.ok()) return r;
  Value v = NumericOperand(*e.args[0], *r);
  switch (e.op) {
    case Op::kNot: {
      Result<std::optional<bool>> t = TruthOf(v, ctx, e.args[0].get());
      if (!t.ok()) return t.status();
      return FromTruth(*t ? std::optional<bool>(!**t) : std::nullopt);
    }
    case Op::kNeg:
      SLUICE_RETURN_IF_ERROR(WarnIfNotNumber(v, "DOUBLE", ctx, e.args[0].get()));
      return Negate(v, e);
    case Op::kBitNot:
      if (v.is_null()) return Value::Null();
      return Value::UInt(~BitOperand(v));
    default:
      return Value::Null();
  }
}

Result<Value> EvalIs(const Expr& e, EvalContext& ctx) {
  Result<Value> r = Evaluate(*e.args[0], ctx);
  if (!r.ok()) return r;
  bool result = false;
  switch (e.is_what) {
    case IsWhat::kNull:
    case IsWhat::kUnknown:
      result = r->is_null();
      break;
    case IsWhat::kTrue:
    case IsWhat::kFalse: {
      Result<std::optional<bool>> t = TruthOf(*r, ctx, e.args[0].get());
      if (!t.ok()) return t.status();
      result = *t == std::optional<bool>(e.is_what == IsWhat::kTrue);
      break;
    }
  }
  return Value::Bool(result != e.negated);
}

Result<Value> EvalLike(const Expr& e, EvalContext& ctx) {
  Result<Value> text = Evaluate(*e.args[0], ctx);
  if (!text.ok()) return text;
  Result<Value> pattern = Evaluate(*e.args[1], ctx);
  if (!pattern.ok()) return pattern;
  char escape = '\\';
  if (e.args.size() > 2) {
    Result<Value> esc = Evaluate(*e.args[2], ctx);
    if (!esc.ok()) return esc;
    std::string s = esc->ToString();
    if (s.size() > 1) return MakeError(er::kWrongArguments, "ESCAPE");
    escape = s.empty() ? '\\' : s[0];
  }
  if (text->is_null() || pattern->is_null()) return Value::Null();
  const Collation collation = ComparisonCollation(*text, *pattern);
  bool match = LikeMatch(text->ToString(), pattern->ToString(), escape, collation);
  return Value::Bool(match != e.negated);
}

// regexp_time_limit / regexp_stack_limit (global, as in MySQL); their
// defaults where the context has no such variables.
RegexpLimits RegexpLimitsOf(EvalContext& ctx) {
  RegexpLimits limits;
  auto read = [&](std::string_view name, int32_t* out) {
    Result<Value> v = ctx.GetSystemVariable(name, VarScope::kGlobal);
    if (v.ok() && !v->is_null()) {
      *out = static_cast<int32_t>(std::min<uint64_t>(v->ToUInt(), std::numeric_limits<int32_t>::max()));
    }
  };
  read("regexp_time_limit", &limits.time_limit);
  read("regexp_stack_limit", &limits.stack_limit);
  return limits;
}

Result<Value> EvalRegexp(const Expr& e, EvalContext& ctx) {
  Result<Value> text = Evaluate(*e.args[0], ctx);
  if (!text.ok()) return text;
  Result<Value> pattern = Evaluate(*e.args[1], ctx);
  if (!pattern.ok()) return pattern;
  if (text->is_null() || pattern->is_null()) return Value::Null();
  const bool cs = IsCaseSensitive(ComparisonCollation(*text, *pattern));
  Result<bool> match = RegexpSearch(text->ToString(), pattern->ToString(), !cs, RegexpLimitsOf(ctx),
                                    [&ctx] { return ctx.CheckInterrupt(); });
  if (!match.ok()) return match.status();
  return Value::Bool(*match != e.negated);
}

// A subquery's rows for a value (1 column; `max_rows` of them at most).
Result<std::shared_ptr<const EvalContext::SubqueryRows>> OneColumnRows(const Expr& e, EvalContext& ctx,
                                                                       uint64_t max_rows) {
  Result<std::shared_ptr<const EvalContext::SubqueryRows>> r = ctx.RunSubquery(*e.subquery, max_rows);
  if (r.ok() && (*r)->columns != 1) return MakeError(er::kOperandColumns, 1);
  return r;
}

// (SELECT ...) as a value: NULL without rows, 1242 with more than one.
Result<Value> EvalScalarSubquery(const Expr& e, EvalContext& ctx) {
  Result<std::shared_ptr<const EvalContext::SubqueryRows>> r = OneColumnRows(e, ctx, 2);
  if (!r.ok()) return r.status();
  const auto& rows = (*r)->rows;
  if (rows.empty()) return Value::Null();
  if (rows.size() > 1) return MakeError(er::kSubqueryNo1Row);
  return rows[0][0];
}

}  // namespace

Result<Value> EvalContext::CallServerFunction(std::string_view name, std::vector<Value>& /*args*/) {
  return MakeError(er::kSpDoesNotExist, "FUNCTION", std::string(name));
}

Result<std::optional<bool>> TruthOf(const Value& v, EvalContext& ctx, const Expr* from) {
  if (from != nullptr && from->hex_literal) return NumericOperand(*from, v).ToBool();  // b'101', 0x41
  SLUICE_RETURN_IF_ERROR(WarnIfNotNumber(v, "DOUBLE", ctx, from));
  return v.ToBool();
}

Result<std::optional<bool>> EvaluateTruth(const Expr& cond, EvalContext& ctx) {
  Result<Value> v = Evaluate(cond, ctx);
  if (!v.ok()) return v.status();
  return TruthOf(*v, ctx, &cond);
}

Status WarnIfNotNumber(const Value& v, const char* type, EvalContext& ctx, const Expr* from) {
  if (!v.is_string() || v.is_temporal() || v.is_enum() || v.string_type() == StringType::kJson) {
    return Status::OK();
  }
  const NumericPrefix p = ScanNumericPrefix(v.string_value());
  if (!p.text.empty() && p.complete) return Status::OK();
  const bool constant = from != nullptr && (from->kind == ExprKind::kLiteral || from->kind == ExprKind::kParam);
  if (constant && !ctx.FirstWarningFrom(from)) return Status::OK();
  return TruncatedWarning(ctx, type, v.string_value());
}

// The items of an IN as a hash set, for lists long enough that a pass per
// row costs. It answers only for a value that compares with every item the
// way GroupingKey groups (see Contains); for anything else the caller
// compares item by item as before, so results never change.
class InSet {
 public:
  // Shorter lists are compared item by item.
  static constexpr size_t kMinItems = 8;

  explicit InSet(const std::vector<const Value*>& items) {
    for (const Value* v : items) {
      if (v->is_null()) {
        has_null_ = true;
        continue;
      }
      Class c = Class::kMixed;
      if (v->kind() == ValueKind::kInt || v->kind() == ValueKind::kUInt) {
        c = Class::kInteger;
      } else if (v->is_string() && v->string_type() == StringType::kText) {
        c = Class::kText;
        if (class_ == Class::kText && v->collation() != collation_) c = Class::kMixed;
        collation_ = v->collation();
      }
      if (class_ == Class::kEmpty) class_ = c;
      if (class_ != c) class_ = Class::kMixed;
      if (class_ == Class::kMixed) return;
      keys_.insert(GroupingKey(*v));
    }
  }

  // Whether `v` (not NULL) equals an item; nullopt when the set cannot
  // tell: integers against integers compare exactly, and strings against
  // strings of one collation compare by their sort keys, as GROUP BY
  // groups them; any other pair goes by CompareValues' conversions.
  std::optional<bool> Contains(const Value& v) const {
    switch (class_) {
      case Class::kEmpty: return false;
      case Class::kMixed: return std::nullopt;
      case Class::kInteger:
        if (v.kind() != ValueKind::kInt && v.kind() != ValueKind::kUInt) return std::nullopt;
        break;
      case Class::kText:
        if (!v.is_string() || v.string_type() != StringType::kText || v.collation() != collation_) {
          return std::nullopt;
        }
        break;
    }
    return keys_.count(GroupingKey(v)) != 0;
  }
  bool has_null() const { return has_null_; }

 private:
  enum class Class : uint8_t { kEmpty, kInteger, kText, kMixed };
  Class class_ = Class::kEmpty;
  Collation collation_ = kDefaultCollation;
  bool has_null_ = false;
  std::unordered_set<std::string> keys_;
};

namespace {

// The lookup set of `e`'s items: the subquery's rows' (kept with them), or
// a list of plain literals' (kept with `e`); null when there is none.
const InSet* InSetFor(const Expr& e, const EvalContext::SubqueryRows* rows) {
  if (rows != nullptr) {
    if (rows->rows.size() < InSet::kMinItems) return nullptr;
    if (!rows->in_set) {
      std::vector<const Value*> items;
      items.reserve(rows->rows.size());
      for (const auto& row : rows->rows) items.push_back(&row[0]);
      rows->in_set = std::make_shared<const InSet>(items);
    }
    return rows->in_set.get();
  }
  if (e.args.size() - 1 < InSet::kMinItems) return nullptr;
  if (!e.in_set) {
    std::vector<const Value*> items;
    for (size_t i = 1; i < e.args.size(); ++i) {
      const Expr& item = *e.args[i];
      // A hex literal is a number next to a number: not a plain value.
      if (item.kind != ExprKind::kLiteral || item.hex_literal) return nullptr;
      items.push_back(&item.value);
    }
    e.in_set = std::make_shared<const InSet>(items);
  }
  return e.in_set.get();
}

Result<Value> EvalIn(const Expr& e, EvalContext& ctx) {
  Result<Value> left = Evaluate(*e.args[0], ctx);
  if (!left.ok()) return left;
  // x IN (SELECT ...): the subquery's values are the list.
  std::shared_ptr<const EvalContext::SubqueryRows> listed;
  if (e.subquery) {
    Result<std::shared_ptr<const EvalContext::SubqueryRows>> r =
        OneColumnRows(e, ctx, std::numeric_limits<uint64_t>::max());
    if (!r.ok()) return r.status();
    listed = std::move(r).value();
    if (listed->rows.empty()) return Value::Bool(e.negated);  // even NULL IN (empty) is false
  }
  if (left->is_null()) return Value::Null();
  if (const InSet* set = InSetFor(e, listed.get())) {
    if (std::optional<bool> found = set->Contains(*left)) {
      // Not found: NULL when an item was NULL (x IN (..., NULL)).
      if (*found) return Value::Bool(!e.negated);
      return set->has_null() ? Value::Null() : Value::Bool(e.negated);
    }
  }
  bool saw_null = false;
  const size_t count = e.subquery ? listed->rows.size() : e.args.size() - 1;
  for (size_t i = 0; i < count; ++i) {
    const Expr* item_expr = e.subquery ? nullptr : e.args[i + 1].get();
    Result<Value> item = item_expr ? Evaluate(*item_expr, ctx) : Result<Value>(listed->rows[i][0]);
    if (!item.ok()) return item;
    Value a = *left;
    Value b = *item;
    if (IsNumericValue(b)) a = NumericOperand(*e.args[0], a);
    if (IsNumericValue(a) && item_expr) b = NumericOperand(*item_expr, b);
    SLUICE_RETURN_IF_ERROR(WarnIfComparedAsNumber(a, b, ctx, e.args[0].get(), item_expr));
    std::optional<int> c = CompareValues(a, b);
    if (!c) {
      saw_null = true;
    } else if (*c == 0) {
      return Value::Bool(!e.negated);
    }
  }
  if (saw_null) return Value::Null();
  return Value::Bool(e.negated);
}

Result<Value> EvalBetween(const Expr& e, EvalContext& ctx) {
  Result<Value> v = Evaluate(*e.args[0], ctx);
  if (!v.ok()) return v;
  Result<Value> lo = Evaluate(*e.args[1], ctx);
  if (!lo.ok()) return lo;
  Result<Value> hi = Evaluate(*e.args[2], ctx);
  if (!hi.ok()) return hi;
  // One comparison type for the three: with a number among them, hex and
  // bit literals are numbers too (0x41 BETWEEN 65 AND 66).
  if (IsNumericValue(*v) || IsNumericValue(*lo) || IsNumericValue(*hi)) {
    *v = NumericOperand(*e.args[0], *v);
    *lo = NumericOperand(*e.args[1], *lo);
    *hi = NumericOperand(*e.args[2], *hi);
  }
  SLUICE_RETURN_IF_ERROR(WarnIfComparedAsNumber(*v, *lo, ctx, e.args[0].get(), e.args[1].get()));
  SLUICE_RETURN_IF_ERROR(WarnIfComparedAsNumber(*v, *hi, ctx, e.args[0].get(), e.args[2].get()));
  std::optional<int> c1 = CompareValues(*v, *lo);
  std::optional<int> c2 = CompareValues(*v, *hi);
  // v >= lo AND v <= hi with three-valued AND.
  std::optional<bool> ge = c1 ? std::optional<bool>(*c1 >= 0) : std::nullopt;
  std::optional<bool> le = c2 ? std::optional<bool>(*c2 <= 0) : std::nullopt;
  std::optional<bool> in;
  if (ge == std::optional<bool>(false) || le == std::optional<bool>(false)) in = false;
  else if (ge && le) in = true;
  if (!in) return Value::Null();
  return Value::Bool(*in != e.negated);
}

Result<Value> EvalCase(const Expr& e, EvalContext& ctx) {
  size_t i = 0;
  Value operand;
  if (e.has_operand) {
    Result<Value> r = Evaluate(*e.args[0], ctx);
    if (!r.ok()) return r;
    operand = std::move(r).value();
    i = 1;
  }
  const size_t pairs_end = e.args.size() - (e.has_else ? 1 : 0);
  for (; i + 1 < pairs_end; i += 2) {
    Result<Value> w = Evaluate(*e.args[i], ctx);
    if (!w.ok()) return w;
    bool hit;
    if (e.has_operand) {
      SLUICE_RETURN_IF_ERROR(WarnIfComparedAsNumber(operand, *w, ctx, e.args[0].get(), e.args[i].get()));
      hit = CompareValues(operand, *w) == 0;
    } else {
      Result<std::optional<bool>> t = TruthOf(*w, ctx, e.args[i].get());
      if (!t.ok()) return t.status();
      hit = *t == std::optional<bool>(true);
    }
    if (hit) return Evaluate(*e.args[i + 1], ctx);
  }
  if (e.has_else) return Evaluate(*e.args.back(), ctx);
  return Value::Null();
}

Result<Value> EvalConvertUsing(const Expr& e, EvalContext& ctx) {
  if (!IsKnownCharset(e.name)) return MakeError(er::kUnknownCharacterSet, e.name);
  Result<Value> v = Evaluate(*e.args[0], ctx);
  if (!v.ok()) return v;
  if (v->is_null()) return Value::Null();
  return Value::String(v->ToString(), e.name == "binary");
}

}  // namespace

// ------------------------------------------------------------------ shared helpers

Status OutOfRange(const char* type, const Expr& node) {
  return MakeError(er::kDataOutOfRange, type, ExprToString(node));
}

Value NumericOperand(const Expr& arg, const Value& v) {
  if (!(arg.kind == ExprKind::kLiteral && arg.hex_literal && v.is_string())) return v;
  const std::string& bytes = v.string_value();
  uint64_t n = 0;
  size_t start = bytes.size() > 8 ? bytes.size() - 8 : 0;
  for (size_t i = start; i < bytes.size(); ++i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  return Value::UInt(n);
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

Result<Value> Arithmetic(Op op, const Value& a, const Value& b, const Expr& node,
                         EvalContext& ctx) {
  if (a.is_null() || b.is_null()) return Value::Null();
  const NumClass ca = ClassOf(a);
  const NumClass cb = ClassOf(b);
  if (ca == NumClass::kDouble || cb == NumClass::kDouble) {
    // DIV of anything but two integers is exact, through DECIMAL, as in
    // MySQL (-9223372036854775808 DIV '3.5' is -2635249153387078802, not
    // the nearest DOUBLE); beyond DECIMAL's 65 digits, through DOUBLE.
    const auto fits = [](const Value& v) { return std::fabs(v.ToDouble()) < 1e65; };
    if (op == Op::kIntDiv && fits(a) && fits(b)) return DecimalArithmetic(op, a, b, node, ctx);
    return DoubleArithmetic(op, a.ToDouble(), b.ToDouble(), node, ctx);
  }
  if (op == Op::kDiv || ca == NumClass::kDecimal || cb == NumClass::kDecimal) {
    return DecimalArithmetic(op, a, b, node, ctx);
  }
  return IntegerArithmetic(op, a, b, node, ctx);
}

Collation ComparisonCollation(const Value& a, const Value& b) {
  if (a.is_binary() || b.is_binary()) return Collation::kBinary;
  if (!b.is_string()) return a.collation();
  if (!a.is_string()) return b.collation();
  return b.coercibility() < a.coercibility() ? b.collation() : a.collation();
}

namespace {

// A DATE/DATETIME/TIME against a string compares as temporal values
// (DATE'2024-01-02' = '2024-01-02 00:00:00'); nullopt when either side does
// not read as one, and the strings compare as strings.
std::optional<int> CompareTemporal(const Value& a, const Value& b) {
  const bool as_time = (a.string_type() == StringType::kTime || !a.is_temporal()) &&
                       (b.string_type() == StringType::kTime || !b.is_temporal());
  if (as_time) {
    std::optional<DateTime> x = ParseTime(a.string_value());
    std::optional<DateTime> y = ParseTime(b.string_value());
    if (!x || !y) return std::nullopt;
    auto micros = [](const DateTime& t) {
      int64_t v = ((static_cast<int64_t>(t.hour) * 60 + t.minute) * 60 + t.second) * 1000000 + t.micro;
      return t.negative ? -v : v;
    };
    const int64_t p = micros(*x), q = micros(*y);
    return p < q ? -1 : p > q ? 1 : 0;
  }
  std::optional<DateTime> x = ParseDatetime(a.string_value());
  std::optional<DateTime> y = ParseDatetime(b.string_value());
  if (!x || !y) return std::nullopt;
  const int p[] = {x->year, x->month, x->day, x->hour, x->minute, x->second, x->micro};
  const int q[] = {y->year, y->month, y->day, y->hour, y->minute, y->second, y->micro};
  for (size_t i = 0; i < std::size(p); ++i) {
    if (p[i] != q[i]) return p[i] < q[i] ? -1 : 1;
  }
  return 0;
}

std::optional<int> CompareNonStrings(const Value& a, const Value& b) {
  const NumClass ca = ClassOf(a);
  const NumClass cb = ClassOf(b);
  if (ca == NumClass::kInt && cb == NumClass::kInt) {
    __int128 x = AsInt128(a), y = AsInt128(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (ca != NumClass::kDouble && cb != NumClass::kDouble) {
    return Decimal::Compare(a.ToDecimal(), b.ToDecimal());
  }
  double x = a.ToDouble(), y = b.ToDouble();
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

std::optional<int> CompareValues(const Value& a, const Value& b) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  if (a.string_type() == StringType::kJson || b.string_type() == StringType::kJson) return json::Compare(a, b);
  if (a.is_string() && b.is_string()) return CompareValues(a, b, ComparisonCollation(a, b));
  return CompareNonStrings(a, b);
}

std::optional<int> CompareValues(const Value& a, const Value& b, Collation collation) {
  if (a.is_null() || b.is_null()) return std::nullopt;
  if (a.string_type() == StringType::kJson || b.string_type() == StringType::kJson) return json::Compare(a, b);
  if (!a.is_string() || !b.is_string()) return CompareNonStrings(a, b);
  if ((a.is_temporal() || b.is_temporal()) && !a.is_binary() && !b.is_binary()) {
    // Two DATEs or two DATETIMEs are in canonical text form, which sorts as
    // the values do (ORDER BY over a column needs no parsing).
    const bool same_form = a.string_type() == b.string_type() && a.string_type() != StringType::kTime;
    if (same_form) {
      const int c = a.string_value().compare(b.string_value());
      return c < 0 ? -1 : c > 0 ? 1 : 0;
    }
    if (std::optional<int> c = CompareTemporal(a, b)) return c;
  }
  return CompareStrings(a.string_value(), b.string_value(), collation);
}

std::optional<int> CompareForOrder(const Value& a, const Value& b) {
  if (a.is_enum() && b.is_enum()) {
    return a.enum_index() < b.enum_index() ? -1 : a.enum_index() > b.enum_index() ? 1 : 0;
  }
  return CompareValues(a, b);
}

void AppendGroupingKey(const Value& v, std::string* out) {
  switch (v.kind()) {
    case ValueKind::kNull:
      out->push_back('N');
      return;
    case ValueKind::kInt:
      out->push_back('I');
      out->append(std::to_string(v.int_value()));
      return;
    case ValueKind::kUInt:
      out->push_back('I');
      out->append(std::to_string(v.uint_value()));
      return;
    case ValueKind::kDecimal: {
      // 1.50 and 1.5 are one value.
      std::string text = v.decimal_value().ToString();
      if (text.find('.') != std::string::npos) {
        while (text.back() == '0') text.pop_back();
        if (text.back() == '.') text.pop_back();
      }
      if (text == "-0") text = "0";
      out->push_back('D');
      out->append(text);
      return;
    }
    case ValueKind::kDouble:
      out->push_back('F');
      out->append(FormatDouble(v.double_value() == 0 ? 0.0 : v.double_value()));
      return;
    case ValueKind::kString:
      if (v.is_temporal()) {
        out->push_back('T');
        out->append(v.string_value());
      } else if (v.string_type() == StringType::kJson) {
        out->push_back('J');
        out->append(json::GroupingKey(v));
      } else {
        out->push_back('S');
        AppendSortKey(v.string_value(), v.collation(), out);
      }
      return;
  }
  out->push_back('N');
}

std::string GroupingKey(const Value& v) {
  std::string key;
  AppendGroupingKey(v, &key);
  return key;
}

// ------------------------------------------------------------------ CAST

namespace {


Result<Value> CastToInteger(const Value& v, bool to_unsigned, EvalContext& ctx) {
  if (v.kind() == ValueKind::kString && !v.is_temporal() && !v.is_enum()) {
    const std::string& s = v.string_value();
    bool overflow = false;
    std::optional<int64_t> parsed;
    uint64_t unsigned_value = 0;
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    bool negative = i < s.size() && s[i] == '-';
    if (to_unsigned && !negative) {
      // Up to UINT64_MAX without going through int64.
      size_t j = i + (i < s.size() && s[i] == '+' ? 1 : 0);
      size_t digits_start = j;
      unsigned __int128 acc = 0;
      for (; j < s.size() && s[j] >= '0' && s[j] <= '9'; ++j) {
        if (acc <= std::numeric_limits<uint64_t>::max()) acc = acc * 10 + (s[j] - '0');
      }
      if (j > digits_start) parsed = 0;
      if (acc > std::numeric_limits<uint64_t>::max()) {
        overflow = true;
        acc = std::numeric_limits<uint64_t>::max();
      }
      unsigned_value = static_cast<uint64_t>(acc);
      i = j;
    } else {
      parsed = ParseInt64Prefix(s, &overflow);
      size_t j = i;
      if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
      i = j;
      unsigned_value = static_cast<uint64_t>(parsed.value_or(0));
    }
    // Anything after the digits, trailing spaces included, is truncated
    // with a warning (MySQL's strtoll10 stops at the first non-digit).
    const size_t rest = i;
    Value result = to_unsigned ? Value::UInt(unsigned_value)
                               : Value::Int(static_cast<int64_t>(unsigned_value));
    if (!parsed || overflow || rest != s.size()) {
      SLUICE_RETURN_IF_ERROR(TruncatedWarning(ctx, "INTEGER", s));
    }
    return result;
  }
  if (to_unsigned) return Value::UInt(v.ToUInt());
  if (v.kind() == ValueKind::kUInt) return Value::Int(static_cast<int64_t>(v.uint_value()));
  return Value::Int(v.ToInt());
}

std::string CastName(const Expr& node) { return ExprToString(node); }

Result<Value> CastToDecimal(const Value& v, const Expr& node, EvalContext& ctx) {
  const CastSpec& spec = node.cast;
  const int precision = spec.precision >= 0 ? spec.precision : 10;
  const int scale = spec.scale >= 0 ? spec.scale : 0;
  if (precision > 65) {
    return MakeError(er::kTooBigPrecision, precision, ExprToString(*node.args[0]), 65);
  }
  if (scale > Decimal::kMaxScale) {
    return MakeError(er::kTooBigScale, scale, ExprToString(*node.args[0]), 30);
  }
  if (scale > precision) {
    return MakeError(er::kMBiggerThanD, ExprToString(*node.args[0]));
  }
  const int digits = std::min(std::max(precision, 1), Decimal::kMaxDigits);
  const Decimal d = v.ToDecimal();
  std::optional<Decimal> r = d.Rescaled(scale);
  const Decimal largest = Decimal::Largest(digits, scale, false);
  if (!r || Decimal::Compare(r->Abs(), largest) > 0) {
    SLUICE_RETURN_IF_ERROR(ctx.Warn(er::kWarnDataOutOfRange, fmt::format(fmt::runtime(er::kWarnDataOutOfRange.format),
                                                                           CastName(node), 1)));
    return Value::Dec(d.is_negative() ? largest.Negated() : largest);
  }
  return Value::Dec(*r);
}

}  // namespace

Result<Value> CastValue(const Value& in, const Expr& node, EvalContext& ctx) {
  if (in.is_null()) return Value::Null();
  const CastSpec& spec = node.cast;
  const Value numeric = NumericOperand(*node.args[0], in);
  switch (spec.type) {
    case CastType::kSigned:
      return CastToInteger(numeric, false, ctx);
    case CastType::kUnsigned:
      return CastToInteger(numeric, true, ctx);
    case CastType::kDecimal:
      return CastToDecimal(numeric, node, ctx);
    case CastType::kDouble:
      SLUICE_RETURN_IF_ERROR(WarnIfNotNumber(numeric, "DOUBLE", ctx, node.args[0].get()));
      return Value::Double(numeric.ToDouble());
    case CastType::kFloat: {
      SLUICE_RETURN_IF_ERROR(WarnIfNotNumber(numeric, "DOUBLE", ctx, node.args[0].get()));
      // FLOAT keeps FLT_DIG significant digits, as MySQL prints it.
      float f = static_cast<float>(numeric.ToDouble());
      std::string text = fmt::format("{:.6g}", f);
      return Value::Double(Value::String(text).ToDouble());
    }
    case CastType::kChar:
    case CastType::kBinary: {
      std::string s = in.ToString();
      const bool binary = spec.type == CastType::kBinary;
      if (spec.length >= 0 && static_cast<uint64_t>(spec.length) > ctx.MaxAllowedPacket()) {
        SLUICE_RETURN_IF_ERROR(ctx.Warn(er::kWarnAllowedPacketOverflowed,
                                        fmt::format(fmt::runtime(er::kWarnAllowedPacketOverflowed.format),
                                                    binary ? "cast_as_binary" : "cast_as_char", ctx.MaxAllowedPacket())));
        return Value::Null();
      }
      if (spec.length >= 0) {
        if (binary) {
          if (s.size() > static_cast<size_t>(spec.length)) {
            SLUICE_RETURN_IF_ERROR(TruncatedWarning(ctx, ("BINARY(" + std::to_string(spec.length) + ")").c_str(), s));
            s.resize(spec.length);
          } else {
            s.resize(spec.length, '\0');
          }
        } else if (Utf8Length(s) > static_cast<size_t>(spec.length)) {
          size_t chars = 0, i = 0;
          while (i < s.size()) {
            if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
              if (chars == static_cast<size_t>(spec.length)) break;
              ++chars;
            }
            ++i;
          }
          SLUICE_RETURN_IF_ERROR(TruncatedWarning(ctx, ("CHAR(" + std::to_string(spec.length) + ")").c_str(), s));
          s.resize(i);
        }
      }
      if (!binary && !spec.charset.empty() && !IsKnownCharset(spec.charset)) {
        return MakeError(er::kUnknownCharacterSet, spec.charset);
      }
      return Value::String(std::move(s), binary);
    }
    case CastType::kDate:
    case CastType::kDatetime: {
      std::optional<DateTime> dt = ValueToDatetime(in);
      if (!dt) {
        SLUICE_RETURN_IF_ERROR(ctx.Warn(er::kTruncatedWrongValue, "Incorrect datetime value: '" + in.ToString() + "'"));
        return Value::Null();
      }
      if (spec.type == CastType::kDate) return Value::Typed(FormatDate(*dt), StringType::kDate);
      const int fsp = std::max(spec.scale, 0);
      if (fsp > 6) {
        return MakeError(er::kTooBigPrecision, fsp, ExprToString(*node.args[0]), 6);
      }
      DateTime r = RoundFraction(*dt, fsp, false);
      return Value::Typed(FormatDatetime(r, fsp), StringType::kDatetime);
    }
    case CastType::kTime: {
      std::optional<DateTime> t = ValueToTime(in);
      if (!t) {
        SLUICE_RETURN_IF_ERROR(
            ctx.Warn(er::kTruncatedWrongValue, "Truncated incorrect time value: '" + in.ToString() + "'"));
        return Value::Null();
      }
      const int fsp = std::min(std::max(spec.scale, 0), 6);
      DateTime r = RoundFraction(*t, fsp, true);
      return Value::Typed(FormatTime(r, fsp), StringType::kTime);
    }
    case CastType::kJson: {
      // Text is parsed as JSON; other values become JSON scalars.
      if (in.is_null()) return Value::Null();
      if (in.string_type() == StringType::kJson) return in;
      if (in.is_string() && !in.is_binary() && !in.is_temporal()) {
        Result<std::string> text = json::Canonical(in.string_value(), 1, "cast_as_json");
        if (!text.ok()) return text.status();
        return Value::Typed(std::move(text).value(), StringType::kJson);
      }
      return json::FromSql(in);
    }
  }
  return Value::Null();
}

// ------------------------------------------------------------------ EvalContext defaults

Result<Value> EvalContext::GetColumn(const Expr& column) {
  std::string name = column.name;
  if (!column.table.empty()) name = column.table + "." + name;
  if (!column.schema.empty()) name = column.schema + "." + name;
  return MakeError(er::kBadField, name, "field list");
}

Result<std::shared_ptr<const EvalContext::SubqueryRows>> EvalContext::RunSubquery(const SelectStmt&, uint64_t) {
  return MakeError(er::kNotSupportedYet, "subqueries here");
}

Result<Value> EvalContext::GetParameter(int index) {
  return MakeError(er::kWrongArguments, "EXECUTE");
}

// ------------------------------------------------------------------ Evaluate

Result<Value> Evaluate(const Expr& e, EvalContext& ctx) {
  // The parser bounds a tree's height; this keeps the evaluation of one
  // that is allowed but evaluated deep inside nested subqueries (or on a
  // thread with a smaller stack) from running off the stack.
  if (!e.args.empty()) SLUICE_RETURN_IF_ERROR(CheckStack());
  switch (e.kind) {
    case ExprKind::kLiteral:
      return e.value;
    case ExprKind::kUserVar:
      return ctx.GetUserVariable(e.name);
    case ExprKind::kAssignUserVar: {
      Result<Value> v = Evaluate(*e.args[0], ctx);
      if (!v.ok()) return v;
      ctx.SetUserVariable(e.name, *v);
      return v;
    }
    case ExprKind::kSysVar:
      return ctx.GetSystemVariable(e.name, e.scope);
    case ExprKind::kColumn:
      return ctx.GetColumn(e);
    case ExprKind::kParam:
      return ctx.GetParameter(e.param_index);
    case ExprKind::kDefault:
      return Status::InvalidArgument("DEFAULT has no value outside SET");
    case ExprKind::kUnary:
      return EvalUnary(e, ctx);
    case ExprKind::kBinary:
      return EvalBinary(e, ctx);
    case ExprKind::kIs:
      return EvalIs(e, ctx);
    case ExprKind::kLike:
      return EvalLike(e, ctx);
    case ExprKind::kRegexp:
      return EvalRegexp(e, ctx);
    case ExprKind::kIn:
      return EvalIn(e, ctx);
    case ExprKind::kBetween:
      return EvalBetween(e, ctx);
    case ExprKind::kCase:
      return EvalCase(e, ctx);
    case ExprKind::kCast: {
      Result<Value> v = Evaluate(*e.args[0], ctx);
      if (!v.ok()) return v;
      return CastValue(*v, e, ctx);
    }
    case ExprKind::kConvertUsing:
      return EvalConvertUsing(e, ctx);
    case ExprKind::kCollate: {
      std::optional<Collation> collation = CollationFromName(e.name);
      if (!collation || !IsKnownCollation(e.name)) return MakeError(er::kUnknownCollation, e.name);
      Result<Value> v = Evaluate(*e.args[0], ctx);
      if (!v.ok()) return v;
      v->set_collation(*collation, Coercibility::kExplicit);
      return v;
    }
    case ExprKind::kFunction:
      return CallFunction(e, ctx);
    case ExprKind::kSubquery:
      return EvalScalarSubquery(e, ctx);
    case ExprKind::kExists: {
      Result<std::shared_ptr<const EvalContext::SubqueryRows>> r = ctx.RunSubquery(*e.subquery, 1);
      if (!r.ok()) return r.status();
      return Value::Bool(!(*r)->rows.empty());
    }
  }
  return Status::InvalidArgument("unknown expression kind");
}

}  // namespace sluice::sql
