// sql/eval_internal.h
//
// Pieces of the evaluator shared between eval.cc (operators, CAST) and
// functions.cc (built-in functions). Module-private.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "sql/ast.h"
#include "sql/eval.h"
#include "sql/value.h"

namespace sluice::sql {

// a `op` b for + - * / DIV MOD with MySQL's result types; `node` names the
// expression in out-of-range errors. Division by zero: NULL and warning 1365.
Result<Value> Arithmetic(Op op, const Value& a, const Value& b, const Expr& node, EvalContext& ctx);

// A hex/bit literal (X'41', 0x41, b'1') is a number in numeric context.
Value NumericOperand(const Expr& arg, const Value& v);

// A string used as a number is its leading number (ScanNumericPrefix):
// warning 1292 "Truncated incorrect <type> value" (DOUBLE, or INTEGER where
// an integer is read) when more than spaces follow that number or none
// leads the string; the error instead in a strict INSERT, UPDATE or DELETE
// (EvalContext::Warn). `from`, the expression that gave `v` (null:
// unknown), warns once per statement when a literal or a parameter.
Status WarnIfNotNumber(const Value& v, const char* type, EvalContext& ctx, const Expr* from = nullptr);

// CAST(v AS node.cast); `node.args[0]` produced v.
Result<Value> CastValue(const Value& v, const Expr& node, EvalContext& ctx);

// Built-in function call. 1305 for an unknown name, 1582 for a wrong count.
Result<Value> CallFunction(const Expr& call, EvalContext& ctx);

// "DOUBLE value is out of range in '<expr>'" and friends.
Status OutOfRange(const char* type, const Expr& node);

// Number of characters in a UTF-8 string.
size_t Utf8Length(std::string_view s);

}  // namespace sluice::sql
