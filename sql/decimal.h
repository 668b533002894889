// sql/decimal.h
//
// Decimal: an exact decimal number as MySQL computes DECIMAL values: up to
// 65 digits before the point and up to 30 after it,
//
//   value = (negative ? -1 : 1) * magnitude / 10^scale,
//   magnitude < 10^(65 + scale).
//
// A DECIMAL(M,D) column holds at most M <= 65 digits in all; a computed value
// may hold more (40 before the point and 30 after), as MySQL's own
// intermediate results may, so that a running SUM stays exact. Arithmetic is
// exact up to the result scale MySQL gives each operator; an operation whose
// integer part needs more than 65 digits returns nullopt, which the caller
// reports as MySQL does (1690 "DECIMAL value is out of range" for an
// expression, clipping or 1264 for a column).
//
// The magnitude is 320 bits kept as plain limbs, so this header stays light
// for the many files that include sql/value.h; decimal.cc computes with
// Boost.Multiprecision's fixed-width integers.
//
// Thread-safety: a value type; copy freely.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::sql {

struct Decimal {
  static constexpr int kMaxDigits = 65;  // the widest DECIMAL(M); digits before the point
  static constexpr int kMaxScale = 30;

  // Zero. Declared so that Decimal is no aggregate: Decimal{m, scale} would
  // otherwise compile as the first two limbs.
  Decimal() = default;

  std::array<uint64_t, 5> magnitude{};  // least significant limb first; < 10^95 < 2^316
  bool negative = false;                // never set for zero
  uint8_t scale = 0;                    // digits after the point, 0..30

  // "-12.50" -> 1250 at scale 2. Digits after the 30th fractional one are
  // rounded away (half away from zero); nullopt for text that is not
  // [+-]digits[.digits] or whose integer part needs more than 65 digits.
  static std::optional<Decimal> Parse(std::string_view text);
  std::string ToString() const;  // "-12.50"
  double ToDouble() const;

  // v / 10^scale; every __int128 fits (39 digits). REQUIRES: scale <= 30.
  static Decimal FromInteger(__int128 v, int scale = 0);
  // The shortest decimal that reads back as `d`, at most kMaxScale digits
  // after the point; nullopt for NaN, infinities and |d| >= 10^65.
  static std::optional<Decimal> FromDouble(double d);
  // The widest value with `digits` digits, `scale` of them after the point
  // (999.99 for 5, 2). REQUIRES: 1 <= digits <= 65, scale <= min(digits, 30).
  static Decimal Largest(int digits, int scale, bool negative);

  // The signed magnitude (value * 10^scale) when it fits in an __int128.
  std::optional<__int128> Unscaled() const;
  // Rounds half away from zero to an integer (MySQL's DECIMAL -> INT rule),
  // saturating at the __int128 range (callers range-check narrower types).
  __int128 RoundToInteger() const;

  enum class Rounding { kHalfAwayFromZero, kTowardZero, kFloor, kCeiling };
  // The value at `digits` places after the point, rounded as `mode` says when
  // places go (a negative `digits` rounds to tens, hundreds...: ROUND(x, -2))
  // and padded with zeros when they come. The result's scale is
  // max(digits, 0); nullopt when its integer part needs more than 65 digits.
  // REQUIRES: digits <= kMaxScale; kFloor and kCeiling only with digits >= -65.
  std::optional<Decimal> RoundedTo(int digits, Rounding mode) const;
  // RoundedTo(new_scale, half away from zero): exactly new_scale digits
  // after the point. REQUIRES: 0 <= new_scale <= 30.
  std::optional<Decimal> Rescaled(int new_scale) const;

  // -1, 0, 1 by value: 1.50 == 1.5.
  static int Compare(const Decimal& a, const Decimal& b);
  friend bool operator==(const Decimal& a, const Decimal& b) { return Compare(a, b) == 0; }

  bool is_zero() const {
    return (magnitude[0] | magnitude[1] | magnitude[2] | magnitude[3] | magnitude[4]) == 0;
  }
  bool is_negative() const { return negative; }
  Decimal Negated() const;
  Decimal Abs() const;

  // MySQL's arithmetic on exact values; nullopt when the integer part of the
  // result needs more than 65 digits.
  // + and -: scale max(a.scale, b.scale).
  static std::optional<Decimal> Add(const Decimal& a, const Decimal& b);
  static std::optional<Decimal> Sub(const Decimal& a, const Decimal& b);
  // *: scale min(a.scale + b.scale, 30), rounding half away from zero.
  static std::optional<Decimal> Mul(const Decimal& a, const Decimal& b);
  // a / b at `scale` digits after the point, rounding half away from zero.
  // REQUIRES: !b.is_zero(), scale <= 30.
  static std::optional<Decimal> Div(const Decimal& a, const Decimal& b, int scale);
  // a MOD b: the sign of a, scale max(a.scale, b.scale). REQUIRES: !b.is_zero().
  static std::optional<Decimal> Mod(const Decimal& a, const Decimal& b);
  // a DIV b: the quotient truncated toward zero, scale 0. REQUIRES: !b.is_zero().
  static std::optional<Decimal> IntDiv(const Decimal& a, const Decimal& b);
};

}  // namespace sluice::sql
