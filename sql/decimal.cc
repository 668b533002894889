#include "sql/decimal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <boost/multiprecision/cpp_int.hpp>

#include "sql/number.h"

namespace sluice::sql {
namespace {

namespace mp = boost::multiprecision;

// A magnitude is under 10^95 (65 digits before the point, 30 after). Every
// intermediate fits: a product of two is under 10^190, a dividend scaled for
// division under 10^155, and 2^1023 > 10^307.
using Wide = mp::int1024_t;

constexpr int kMaxPow10 = 2 * (Decimal::kMaxDigits + Decimal::kMaxScale);  // 10^190

const Wide& Pow10W(int k) {
  static const std::array<Wide, kMaxPow10 + 1> table = [] {
    std::array<Wide, kMaxPow10 + 1> t;
    t[0] = 1;
    for (int i = 1; i <= kMaxPow10; ++i) t[i] = t[i - 1] * 10;
    return t;
  }();
  return table[static_cast<size_t>(k)];
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

unsigned __int128 Low128(const Decimal& d) {
  return (static_cast<unsigned __int128>(d.magnitude[1]) << 64) | d.magnitude[0];
}

bool FitsIn128Bits(const Decimal& d) { return (d.magnitude[2] | d.magnitude[3] | d.magnitude[4]) == 0; }

// Small values (under 2^125) add and subtract as __int128 without overflow.
bool Small(const Decimal& d) { return FitsIn128Bits(d) && d.magnitude[1] < (uint64_t{1} << 61); }
__int128 SmallValue(const Decimal& d) {
  const auto m = static_cast<__int128>(Low128(d));
  return d.negative ? -m : m;
}

Wide Magnitude(const Decimal& d) {
  Wide w = d.magnitude[4];
  for (int i = 3; i >= 0; --i) {
    w <<= 64;
    w |= d.magnitude[static_cast<size_t>(i)];
  }
  return w;
}

Wide Signed(const Decimal& d) { return d.negative ? Wide(-Magnitude(d)) : Magnitude(d); }

// REQUIRES: |w| < 2^320 (every caller has |w| < 10^95 or checks first).
Decimal Make(Wide w, int scale) {
  Decimal d;
  const bool negative = w < 0;
  if (negative) w = -w;
  for (uint64_t& limb : d.magnitude) {
    limb = static_cast<uint64_t>(w & std::numeric_limits<uint64_t>::max());
    w >>= 64;
  }
  d.negative = negative && !d.is_zero();
  d.scale = static_cast<uint8_t>(scale);
  return d;
}

// w / p rounded as `mode` says. REQUIRES: p != 0; kFloor and kCeiling only
// with p > 0.
Wide DivRounded(const Wide& w, const Wide& p, Decimal::Rounding mode) {
  Wide q;
  Wide r;
  mp::divide_qr(w, p, q, r);  // q truncated toward zero, r has w's sign
  if (r == 0) return q;
  switch (mode) {
    case Decimal::Rounding::kHalfAwayFromZero:
      if (mp::abs(r) * 2 >= mp::abs(p)) q += (w < 0) != (p < 0) ? -1 : 1;
      break;
    case Decimal::Rounding::kTowardZero:
      break;
    case Decimal::Rounding::kFloor:
      if (w < 0) q -= 1;
      break;
    case Decimal::Rounding::kCeiling:
      if (w > 0) q += 1;
      break;
  }
  return q;
}

// w / 10^scale as a Decimal; nullopt when its integer part needs more than
// 65 digits. REQUIRES: scale <= 30, |w| < 10^190.
std::optional<Decimal> Fit(const Wide& w, int scale) {
  if (mp::abs(w) >= Pow10W(Decimal::kMaxDigits + scale)) return std::nullopt;
  return Make(w, scale);
}

// Both values as integers at the larger of their scales.
struct Aligned {
  Wide a;
  Wide b;
  int scale;
};
Aligned Align(const Decimal& a, const Decimal& b) {
  const int s = std::max(a.scale, b.scale);
  return {Signed(a) * Pow10W(s - a.scale), Signed(b) * Pow10W(s - b.scale), s};
}

}  // namespace

std::optional<Decimal> Decimal::Parse(std::string_view text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    negative = text[i] == '-';
    ++i;
  }
  std::string digits;  // significant digits: the integer part, then the kept fraction
  bool any = false;
  for (; i < text.size() && IsDigit(text[i]); ++i) {
    any = true;
    if (digits.empty() && text[i] == '0') continue;
    if (static_cast<int>(digits.size()) >= kMaxDigits) return std::nullopt;
    digits.push_back(text[i]);
  }
  // Fraction digits past the 30th are rounded away.
  const int keep = kMaxScale;
  int scale = 0;
  bool round_up = false;
  bool rounded = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && IsDigit(text[i]); ++i) {
      any = true;
      if (scale < keep) {
        digits.push_back(text[i]);
        ++scale;
      } else if (!rounded) {
        round_up = text[i] >= '5';
        rounded = true;
      }
    }
  }
  if (!any || i != text.size()) return std::nullopt;
  Wide m = 0;
  for (size_t at = 0; at < digits.size();) {
    const size_t len = std::min<size_t>(18, digits.size() - at);
    uint64_t chunk = 0;
    std::from_chars(digits.data() + at, digits.data() + at + len, chunk);
    m = m * Pow10W(static_cast<int>(len)) + chunk;
    at += len;
  }
  if (round_up) m += 1;
  return Fit(negative ? Wide(-m) : m, scale);
}

std::string Decimal::ToString() const {
  std::string digits;
  if (FitsIn128Bits(*this)) {
    unsigned __int128 u = Low128(*this);
    char buf[40];
    int pos = sizeof(buf);
    do {
      buf[--pos] = static_cast<char>('0' + static_cast<int>(u % 10));
      u /= 10;
    } while (u != 0);
    digits.assign(buf + pos, sizeof(buf) - pos);
  } else {
    digits = Magnitude(*this).str();
  }
  if (scale > 0) {
    if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
    digits.insert(digits.size() - scale, 1, '.');
  }
  if (negative) digits.insert(0, 1, '-');
  return digits;
}

double Decimal::ToDouble() const {
  const std::string s = ToString();
  std::string_view t = s;
  if (negative) t.remove_prefix(1);
  double d = 0;
  std::from_chars(t.data(), t.data() + t.size(), d);
  return negative ? -d : d;
}

Decimal Decimal::FromInteger(__int128 v, int scale) {
  Decimal d;
  const unsigned __int128 u = v < 0 ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  d.magnitude[0] = static_cast<uint64_t>(u);
  d.magnitude[1] = static_cast<uint64_t>(u >> 64);
  d.negative = v < 0;
  d.scale = static_cast<uint8_t>(scale);
  return d;
}

std::optional<Decimal> Decimal::FromDouble(double d) {
  if (!std::isfinite(d) || std::fabs(d) >= 1e65) return std::nullopt;
  if (d == 0) return Decimal{};
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  const bool negative = s[0] == '-';
  if (negative) s.remove_prefix(1);
  const size_t e = s.find('e');
  int exp = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exp);
  uint64_t m = 0;  // at most 17 significant digits
  int n = 0;
  for (char c : s.substr(0, e)) {
    if (IsDigit(c)) {
      m = m * 10 + static_cast<uint64_t>(c - '0');
      ++n;
    }
  }
  // value = m * 10^(exp + 1 - n)
  const int shift = exp + 1 - n;
  Wide w = m;
  int scale = 0;
  if (shift >= 0) {
    if (n + shift > kMaxDigits) return std::nullopt;  // |d| < 1e65 makes this rare
    w *= Pow10W(shift);
  } else {
    scale = -shift;
    if (scale > kMaxScale) {
      // Digits below 10^-30 are rounded off; a value that has none above
      // it (1e-300) is 0.
      const int drop = scale - kMaxScale;
      w = drop > n ? Wide(0) : DivRounded(w, Pow10W(drop), Rounding::kHalfAwayFromZero);
      scale = kMaxScale;
    }
  }
  return Make(negative ? Wide(-w) : w, scale);
}

Decimal Decimal::Largest(int digits, int scale, bool negative) {
  const Wide m = Pow10W(digits) - 1;
  return Make(negative ? Wide(-m) : m, scale);
}

std::optional<__int128> Decimal::Unscaled() const {
  if (!FitsIn128Bits(*this)) return std::nullopt;
  const unsigned __int128 u = Low128(*this);
  constexpr unsigned __int128 kTop = static_cast<unsigned __int128>(1) << 127;
  if (u < kTop) return negative ? -static_cast<__int128>(u) : static_cast<__int128>(u);
  if (negative && u == kTop) return std::numeric_limits<__int128>::min();
  return std::nullopt;
}

__int128 Decimal::RoundToInteger() const {
  const Wide q = DivRounded(Signed(*this), Pow10W(scale), Rounding::kHalfAwayFromZero);
  if (std::optional<__int128> v = Make(q, 0).Unscaled()) return *v;
  return q < 0 ? std::numeric_limits<__int128>::min() : std::numeric_limits<__int128>::max();
}

std::optional<Decimal> Decimal::RoundedTo(int digits, Rounding mode) const {
  const int result_scale = std::max(digits, 0);
  if (digits >= scale) return Make(Signed(*this) * Pow10W(digits - scale), result_scale);
  const int drop = scale - digits;  // > 0
  // |value| < 10^65: rounding to a multiple of 10^66 or more leaves 0.
  if (-digits > kMaxDigits) {
    Decimal zero;
    zero.scale = static_cast<uint8_t>(result_scale);
    return zero;
  }
  Wide q = DivRounded(Signed(*this), Pow10W(drop), mode);
  if (digits < 0) q *= Pow10W(-digits);
  return Fit(q, result_scale);
}

std::optional<Decimal> Decimal::Rescaled(int new_scale) const {
  return RoundedTo(new_scale, Rounding::kHalfAwayFromZero);
}

int Decimal::Compare(const Decimal& a, const Decimal& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  const int sign = a.negative ? -1 : 1;
  if (a.scale == b.scale) {
    for (int i = 3; i >= 0; --i) {
      const uint64_t x = a.magnitude[static_cast<size_t>(i)];
      const uint64_t y = b.magnitude[static_cast<size_t>(i)];
      if (x != y) return x < y ? -sign : sign;
    }
    return 0;
  }
  if (Small(a) && Small(b)) {
    __int128 x = SmallValue(a);
    __int128 y = SmallValue(b);
    const bool overflow = a.scale < b.scale
                              ? __builtin_mul_overflow(x, Pow10(b.scale - a.scale), &x)
                              : __builtin_mul_overflow(y, Pow10(a.scale - b.scale), &y);
    if (!overflow) return x < y ? -1 : (x > y ? 1 : 0);
  }
  const Aligned v = Align(a, b);
  return v.a < v.b ? -1 : (v.a > v.b ? 1 : 0);
}

Decimal Decimal::Negated() const {
  Decimal d = *this;
  d.negative = !negative && !is_zero();
  return d;
}

Decimal Decimal::Abs() const {
  Decimal d = *this;
  d.negative = false;
  return d;
}

std::optional<Decimal> Decimal::Add(const Decimal& a, const Decimal& b) {
  if (a.scale == b.scale && Small(a) && Small(b)) {  // SUM() over integers and equal scales
    return FromInteger(SmallValue(a) + SmallValue(b), a.scale);
  }
  const Aligned v = Align(a, b);
  return Fit(v.a + v.b, v.scale);
}

std::optional<Decimal> Decimal::Sub(const Decimal& a, const Decimal& b) {
  if (a.scale == b.scale && Small(a) && Small(b)) {
    return FromInteger(SmallValue(a) - SmallValue(b), a.scale);
  }
  const Aligned v = Align(a, b);
  return Fit(v.a - v.b, v.scale);
}

std::optional<Decimal> Decimal::Mul(const Decimal& a, const Decimal& b) {
  Wide r = Signed(a) * Signed(b);
  int scale = a.scale + b.scale;
  if (scale > kMaxScale) {
    r = DivRounded(r, Pow10W(scale - kMaxScale), Rounding::kHalfAwayFromZero);
    scale = kMaxScale;
  }
  return Fit(r, scale);
}

std::optional<Decimal> Decimal::Div(const Decimal& a, const Decimal& b, int scale) {
  // quotient at `scale` = a.m * 10^(scale - a.scale + b.scale) / b.m
  const int shift = scale - a.scale + b.scale;
  Wide num = Signed(a);
  Wide den = Signed(b);
  if (shift >= 0) {
    num *= Pow10W(shift);
  } else {
    den *= Pow10W(-shift);
  }
  return Fit(DivRounded(num, den, Rounding::kHalfAwayFromZero), scale);
}

std::optional<Decimal> Decimal::Mod(const Decimal& a, const Decimal& b) {
  const Aligned v = Align(a, b);
  return Fit(v.a % v.b, v.scale);
}

std::optional<Decimal> Decimal::IntDiv(const Decimal& a, const Decimal& b) {
  const Aligned v = Align(a, b);
  return Fit(v.a / v.b, 0);
}

}  // namespace sluice::sql
