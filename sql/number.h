// sql/number.h
//
// Number-parsing helpers: the leading number of a string as MySQL reads it,
// 128-bit decimal text. Shared by value.cc, the lexer, the evaluator and
// exec/'s column conversions (exec/column_values.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::sql {

// 10^k for 0 <= k <= 38.
__int128 Pow10(int k);

std::string Int128ToString(__int128 v);

// The leading number of a string as MySQL reads it when a string is used as a
// number: optional spaces, sign, digits, point, digits, exponent.
struct NumericPrefix {
  std::string_view text;  // empty when no digits lead the string
  bool has_dot = false;
  bool has_exponent = false;
  bool complete = false;  // nothing but spaces follows the number
};
NumericPrefix ScanNumericPrefix(std::string_view s);

// strtod over the numeric prefix; 0 when there is none; saturates on overflow.
double ParseDoublePrefix(std::string_view s);

// The leading integer (sign and digits); nullopt when there is none.
// Saturates to INT64_MIN/MAX and sets *overflow when out of range.
std::optional<int64_t> ParseInt64Prefix(std::string_view s, bool* overflow);

}  // namespace sluice::sql
