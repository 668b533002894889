// sql/functions_internal.h
//
// What the files of built-in functions share (functions.cc holds the
// registry, the session, temporal, string and control-flow functions;
// functions_numeric.cc the mathematical ones, functions_text.cc encodings,
// network addresses and UUIDs). Module-private.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/mysql_error.h"
#include "base/status.h"
#include "sql/ast.h"
#include "sql/eval.h"
#include "sql/eval_internal.h"
#include "sql/value.h"

namespace sluice::sql {

// One call of a built-in function: its expression, its evaluated arguments
// (none for a lazy function, which evaluates expr.args itself) and its
// name in upper case.
struct Call {
  const Expr& expr;
  EvalContext& ctx;
  std::vector<Value> args;  // evaluated; empty for lazy functions
  std::string name;         // upper case

  // args[i] with hex literals read as numbers.
  Value Num(size_t i) const { return NumericOperand(*expr.args[i], args[i]); }
  // args[i] as a function reads a DOUBLE, an integer or a DECIMAL
  // argument: a string with more than a number in it warns (1292), as in
  // MySQL.
  Value Double(size_t i) { return ReadAs(i, "DOUBLE"); }
  int64_t Int(size_t i) { return ReadAs(i, "INTEGER").ToInt(); }
  Value Dec(size_t i) { return ReadAs(i, "DECIMAL"); }
  // args[i] as 64 bits (BIT_COUNT, BIN, CHAR, EXPORT_SET ...): an
  // unsigned integer as it is, anything else as a signed integer in two's
  // complement (-1 is 64 ones).
  uint64_t Bits(size_t i) {
    const Value n = Num(i);
    return n.kind() == ValueKind::kUInt ? n.uint_value() : static_cast<uint64_t>(Int(i));
  }
  bool AnyNull() const {
    for (const Value& v : args) {
      if (v.is_null()) return true;
    }
    return false;
  }
  // The collation args[i] and args[j] compare with.
  Collation CollationOf(size_t i, size_t j) const { return ComparisonCollation(args[i], args[j]); }
  // EvalContext::Warn from a helper that returns a value, not a status:
  // the first error strict mode makes of a warning ends the call (the
  // dispatcher returns it, whatever the handler returned).
  void Warn(const er::Error& condition, std::string message) {
    if (error.ok()) error = ctx.Warn(condition, std::move(message));
  }
  Status error;

 private:
  Value ReadAs(size_t i, const char* type) {
    Value v = Num(i);
    if (error.ok()) error = WarnIfNotNumber(v, type, ctx, expr.args[i].get());
    return v;
  }
};

using FunctionHandler = Result<Value> (*)(Call& c);

struct FunctionDef {
  int min_args;
  int max_args;  // -1: any number
  bool lazy;     // the handler evaluates expr.args itself
  FunctionHandler fn;
};

// Upper-case name -> definition.
using FunctionTable = std::unordered_map<std::string_view, FunctionDef>;

void AddNumericFunctions(FunctionTable* table);
void AddTextFunctions(FunctionTable* table);

// A string result (binary or in the connection's character set).
inline Value StringResult(std::string s, bool binary) { return Value::String(std::move(s), binary); }

// Whether any evaluated argument is a binary string.
bool AnyBinaryArg(const Call& c);

// NULL with warning 1301 when a result of `size` bytes would exceed
// max_allowed_packet; nullopt when it fits.
std::optional<Value> TooLongResult(Call& c, uint64_t size);

}  // namespace sluice::sql
