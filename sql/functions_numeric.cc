// sql/functions_numeric.cc
//
// Mathematical built-in functions: PI EXP LN LOG LOG2 LOG10 SIN COS TAN
// COT ASIN ACOS ATAN ATAN2 RADIANS DEGREES BIT_COUNT CRC32, and the base
// conversions CONV BIN OCT. Results are DOUBLE where MySQL's are (PI()
// prints all its digits: sluice keeps no display scale on a DOUBLE,
// where MySQL shows PI() with six decimals). A logarithm of a number
// that is not positive is NULL with warning 3020; EXP and COT out of
// DOUBLE's range are error 1690, as in MySQL.
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>

#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

// A DOUBLE result, or 1690 when it left DOUBLE's range.
Result<Value> DoubleResult(Call& c, double d) {
  if (std::isinf(d)) return OutOfRange("DOUBLE", c.expr);
  if (std::isnan(d)) return Value::Null();
  return Value::Double(d);
}

Result<Value> Unary(Call& c, double (*f)(double)) {
  if (c.AnyNull()) return Value::Null();
  return DoubleResult(c, f(c.Double(0).ToDouble()));
}

Result<Value> FnPi(Call&) { return Value::Double(std::numbers::pi); }
Result<Value> FnExp(Call& c) { return Unary(c, [](double x) { return std::exp(x); }); }
Result<Value> FnSin(Call& c) { return Unary(c, [](double x) { return std::sin(x); }); }
Result<Value> FnCos(Call& c) { return Unary(c, [](double x) { return std::cos(x); }); }
Result<Value> FnTan(Call& c) { return Unary(c, [](double x) { return std::tan(x); }); }
Result<Value> FnRadians(Call& c) { return Unary(c, [](double x) { return x * (std::numbers::pi / 180); }); }
Result<Value> FnDegrees(Call& c) { return Unary(c, [](double x) { return x * (180 / std::numbers::pi); }); }

Result<Value> FnCot(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const double t = std::tan(c.Double(0).ToDouble());
  if (t == 0) return OutOfRange("DOUBLE", c.expr);
  return DoubleResult(c, 1 / t);
}

// ASIN / ACOS outside -1..1 are NULL.
Result<Value> FnAsin(Call& c) { return Unary(c, [](double x) { return std::asin(x); }); }
Result<Value> FnAcos(Call& c) { return Unary(c, [](double x) { return std::acos(x); }); }

Result<Value> FnAtan(Call& c) {
  if (c.AnyNull()) return Value::Null();
  if (c.args.size() == 2) return DoubleResult(c, std::atan2(c.Double(0).ToDouble(), c.Double(1).ToDouble()));
  return DoubleResult(c, std::atan(c.Double(0).ToDouble()));
}

// MySQL's formulas, so that the last digit agrees: LN and LOG(x) are
// log(), LOG10 is log10(), LOG2 and LOG(b, x) divide natural logarithms.
// A logarithm of a number that is not positive, or in a base that is not
// positive or is 1, is NULL with warning 3020.
Result<Value> Logarithm(Call& c, double x, double (*f)(double)) {
  if (x <= 0) {
    c.Warn(er::kInvalidArgumentForLogarithm, er::kInvalidArgumentForLogarithm.format);
    return Value::Null();
  }
  return DoubleResult(c, f(x));
}

Result<Value> FnLn(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Logarithm(c, c.Double(0).ToDouble(), [](double x) { return std::log(x); });
}

// LOG(x) is LN(x); LOG(b, x) is x's logarithm in base b.
Result<Value> FnLog(Call& c) {
  if (c.AnyNull()) return Value::Null();
  if (c.args.size() == 1) return FnLn(c);
  const double base = c.Double(0).ToDouble();
  const double x = c.Double(1).ToDouble();
  if (base <= 0 || base == 1 || x <= 0) {
    c.Warn(er::kInvalidArgumentForLogarithm, er::kInvalidArgumentForLogarithm.format);
    return Value::Null();
  }
  return DoubleResult(c, std::log(x) / std::log(base));
}

Result<Value> FnLog2(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Logarithm(c, c.Double(0).ToDouble(), [](double x) { return std::log(x) / std::numbers::ln2; });
}

Result<Value> FnLog10(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Logarithm(c, c.Double(0).ToDouble(), [](double x) { return std::log10(x); });
}

// Set bits of an integer (two's complement, 64 bits), or of a binary
// string's bytes.
Result<Value> FnBitCount(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const Value& v = c.args[0];
  if (v.is_string() && v.is_binary() && !c.expr.args[0]->hex_literal) {
    int64_t n = 0;
    for (unsigned char b : v.string_value()) n += __builtin_popcount(b);
    return Value::Int(n);
  }
  return Value::Int(__builtin_popcountll(c.Bits(0)));
}

Result<Value> FnCrc32(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const uLong crc = crc32_z(0L, reinterpret_cast<const Bytef*>(s.data()), s.size());
  return Value::UInt(static_cast<uint64_t>(crc));
}

// The digit `ch` stands for in `base` (2..36), or -1.
int DigitValue(char ch, int base) {
  int d = -1;
  if (ch >= '0' && ch <= '9') d = ch - '0';
  else if (ch >= 'a' && ch <= 'z') d = ch - 'a' + 10;
  else if (ch >= 'A' && ch <= 'Z') d = ch - 'A' + 10;
  return d < base ? d : -1;
}

// MySQL's CONV: `text` read in |from| (a negative base reads a signed
// number), written in |to| (a negative base writes a negative number with
// its sign, a positive one as unsigned 64 bits). Reading stops at the
// first character that is not a digit of the base; past 64 bits it
// saturates. NULL for a base outside 2..36.
std::optional<std::string> Convert(std::string_view text, int from, int to) {
  const bool signed_in = from < 0, signed_out = to < 0;
  from = std::abs(from);
  to = std::abs(to);
  if (from < 2 || from > 36 || to < 2 || to > 36) return std::nullopt;
  size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  uint64_t magnitude = 0;
  bool overflow = false;
  for (; i < text.size(); ++i) {
    const int d = DigitValue(text[i], from);
    if (d < 0) break;
    if (__builtin_mul_overflow(magnitude, static_cast<uint64_t>(from), &magnitude) ||
        __builtin_add_overflow(magnitude, static_cast<uint64_t>(d), &magnitude)) {
      overflow = true;
    }
  }
  uint64_t bits;
  if (signed_in) {
    const uint64_t limit = negative ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
    if (overflow || magnitude > limit) magnitude = limit;
    bits = negative ? static_cast<uint64_t>(-static_cast<__int128>(magnitude)) : magnitude;
  } else {
    if (overflow) magnitude = UINT64_MAX;
    bits = negative ? 0 - magnitude : magnitude;
  }
  std::string out;
  bool minus = false;
  if (signed_out && static_cast<int64_t>(bits) < 0) {
    minus = true;
    bits = 0 - bits;
  }
  do {
    out.push_back("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[bits % static_cast<uint64_t>(to)]);
    bits /= static_cast<uint64_t>(to);
  } while (bits != 0);
  if (minus) out.push_back('-');
  return std::string(out.rbegin(), out.rend());
}

// The text CONV reads of args[i]: a number's decimal digits (DOUBLE and
// DECIMAL by their integer part), a string as it is.
std::string ConvInput(Call& c, size_t i) {
  const Value v = c.Num(i);
  if (v.is_string()) return v.string_value();
  if (v.kind() == ValueKind::kUInt) return std::to_string(v.uint_value());
  if (v.kind() == ValueKind::kInt) return std::to_string(v.int_value());
  return std::to_string(v.ToInt());
}

Result<Value> ConvResult(std::string_view text, int from, int to) {
  std::optional<std::string> out = Convert(text, from, to);
  return out ? Value::String(std::move(*out)) : Value::Null();
}

Result<Value> FnConv(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t from = c.Int(1), to = c.Int(2);
  if (from < -36 || from > 36 || to < -36 || to > 36) return Value::Null();
  return ConvResult(ConvInput(c, 0), static_cast<int>(from), static_cast<int>(to));
}

// BIN(n) and OCT(n): CONV(n, 10, 2 / 8) of n's integer value.
Result<Value> InBase(Call& c, int base) {
  if (c.AnyNull()) return Value::Null();
  return ConvResult(std::to_string(c.Bits(0)), 10, base);
}
Result<Value> FnBin(Call& c) { return InBase(c, 2); }
Result<Value> FnOct(Call& c) { return InBase(c, 8); }

}  // namespace

void AddNumericFunctions(FunctionTable* table) {
  table->insert({
      {"PI", {0, 0, false, FnPi}},
      {"EXP", {1, 1, false, FnExp}},
      {"LN", {1, 1, false, FnLn}},
      {"LOG", {1, 2, false, FnLog}},
      {"LOG2", {1, 1, false, FnLog2}},
      {"LOG10", {1, 1, false, FnLog10}},
      {"SIN", {1, 1, false, FnSin}},
      {"COS", {1, 1, false, FnCos}},
      {"TAN", {1, 1, false, FnTan}},
      {"COT", {1, 1, false, FnCot}},
      {"ASIN", {1, 1, false, FnAsin}},
      {"ACOS", {1, 1, false, FnAcos}},
      {"ATAN", {1, 2, false, FnAtan}},
      {"ATAN2", {2, 2, false, FnAtan}},
      {"RADIANS", {1, 1, false, FnRadians}},
      {"DEGREES", {1, 1, false, FnDegrees}},
      {"BIT_COUNT", {1, 1, false, FnBitCount}},
      {"CRC32", {1, 1, false, FnCrc32}},
      {"CONV", {3, 3, false, FnConv}},
      {"BIN", {1, 1, false, FnBin}},
      {"OCT", {1, 1, false, FnOct}},
  });
}

}  // namespace sluice::sql
