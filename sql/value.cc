#include "sql/value.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "sql/number.h"

namespace sluice::sql {

namespace {

constexpr __int128 kPow10Table[] = {
    // 10^0 .. 10^38, built without floating point.
    static_cast<__int128>(1),
    static_cast<__int128>(10),
    static_cast<__int128>(100),
    static_cast<__int128>(1000),
    static_cast<__int128>(10000),
    static_cast<__int128>(100000),
    static_cast<__int128>(1000000),
    static_cast<__int128>(10000000),
    static_cast<__int128>(100000000),
    static_cast<__int128>(1000000000),
    static_cast<__int128>(10000000000LL),
    static_cast<__int128>(100000000000LL),
    static_cast<__int128>(1000000000000LL),
    static_cast<__int128>(10000000000000LL),
    static_cast<__int128>(100000000000000LL),
    static_cast<__int128>(1000000000000000LL),
    static_cast<__int128>(10000000000000000LL),
    static_cast<__int128>(100000000000000000LL),
    static_cast<__int128>(1000000000000000000LL),
    static_cast<__int128>(1000000000000000000LL) * 10,
    static_cast<__int128>(1000000000000000000LL) * 100,
    static_cast<__int128>(1000000000000000000LL) * 1000,
    static_cast<__int128>(1000000000000000000LL) * 10000,
    static_cast<__int128>(1000000000000000000LL) * 100000,
    static_cast<__int128>(1000000000000000000LL) * 1000000,
    static_cast<__int128>(1000000000000000000LL) * 10000000,
    static_cast<__int128>(1000000000000000000LL) * 100000000,
    static_cast<__int128>(1000000000000000000LL) * 1000000000,
    static_cast<__int128>(1000000000000000000LL) * 10000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 100000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 1000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 10000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 100000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 1000000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 10000000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 100000000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 1000000000000000000LL,
    static_cast<__int128>(1000000000000000000LL) * 1000000000000000000LL * 10,
    static_cast<__int128>(1000000000000000000LL) * 1000000000000000000LL * 100,
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The numeric text of a temporal value: "2024-01-02 03:04:05.5" ->
// "20240102030405.5", "-12:00:00" -> "-120000".
std::string TemporalNumericText(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  if (i < s.size() && s[i] == '-') {
    out.push_back('-');
    ++i;
  }
  bool in_fraction = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (IsDigit(c)) {
      out.push_back(c);
    } else if (c == '.' && !in_fraction) {
      in_fraction = true;
      out.push_back('.');
    }
  }
  if (out.empty() || out == "-") return "0";
  return out;
}

}  // namespace

// ---- helpers shared with the evaluator (value_internal.h) ----

__int128 Pow10(int k) { return kPow10Table[k]; }

std::string Int128ToString(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  // Works for every value we produce (|v| < 10^38 < 2^127).
  unsigned __int128 u = neg ? static_cast<unsigned __int128>(-(v + 1)) + 1
                            : static_cast<unsigned __int128>(v);
  char buf[48];
  int pos = sizeof(buf);
  while (u != 0) {
    buf[--pos] = static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  if (neg) buf[--pos] = '-';
  return std::string(buf + pos, sizeof(buf) - pos);
}

NumericPrefix ScanNumericPrefix(std::string_view s) {
  NumericPrefix p;
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  size_t start = i;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t int_digits = 0;
  while (i < s.size() && IsDigit(s[i])) {
    ++i;
    ++int_digits;
  }
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    size_t j = i + 1;
    while (j < s.size() && IsDigit(s[j])) {
      ++j;
      ++frac_digits;
    }
    if (int_digits + frac_digits > 0) {
      i = j;
      p.has_dot = true;
    }
  }
  if (int_digits + frac_digits == 0) {
    p.text = std::string_view();
    p.complete = s.find_first_not_of(" \t\n\r\f\v") == std::string_view::npos;
    return p;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    if (j < s.size() && IsDigit(s[j])) {
      while (j < s.size() && IsDigit(s[j])) ++j;
      i = j;
      p.has_exponent = true;
    }
  }
  p.text = s.substr(start, i - start);
  size_t rest = i;
  while (rest < s.size() && IsSpace(s[rest])) ++rest;
  p.complete = rest == s.size();
  return p;
}

double ParseDoublePrefix(std::string_view s) {
  NumericPrefix p = ScanNumericPrefix(s);
  if (p.text.empty()) return 0.0;
  std::string_view t = p.text;
  bool neg = false;
  if (t[0] == '+' || t[0] == '-') {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  double d = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), d);
  if (r.ec == std::errc::result_out_of_range) {
    // Overflow saturates like strtod; underflow reads as 0.
    bool huge = false;
    for (char c : t) {
      if (c == 'e' || c == 'E') break;
      if (c >= '1' && c <= '9') {
        huge = true;
        break;
      }
    }
    size_t e = t.find_first_of("eE");
    if (e != std::string_view::npos && e + 1 < t.size() && t[e + 1] == '-') huge = false;
    d = huge ? std::numeric_limits<double>::max() : 0.0;
  }
  return neg ? -d : d;
}

std::optional<int64_t> ParseInt64Prefix(std::string_view s, bool* overflow) {
  if (overflow != nullptr) *overflow = false;
  size_t i = 0;
  while (i < s.size() && IsSpace(s[i])) ++i;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    ++i;
  }
  if (i >= s.size() || !IsDigit(s[i])) return std::nullopt;
  unsigned __int128 acc = 0;
  bool big = false;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    if (!big) {
      acc = acc * 10 + static_cast<unsigned>(s[i] - '0');
      if (acc > (static_cast<unsigned __int128>(1) << 64)) big = true;
    }
  }
  __int128 v = neg ? -static_cast<__int128>(acc) : static_cast<__int128>(acc);
  if (big || v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) {
    if (overflow != nullptr) *overflow = true;
    return neg ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  }
  return static_cast<int64_t>(v);
}

// ---- FormatDouble ----

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  if (d == 0) return "0";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof(buf), d, std::chars_format::scientific);
  std::string_view s(buf, r.ptr - buf);
  std::string out;
  if (s[0] == '-') {
    out.push_back('-');
    s.remove_prefix(1);
  }
  size_t e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e)) {
    if (IsDigit(c)) digits.push_back(c);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int exp = 0;
  std::from_chars(s.data() + e + 1 + (s[e + 1] == '+' ? 1 : 0), s.data() + s.size(), exp);
  const int len = static_cast<int>(digits.size());
  const int decpt = exp + 1;  // value = 0.DIGITS * 10^decpt
  constexpr int kMaxDecptForFixed = 15;
  if (decpt >= -kMaxDecptForFixed + 1 && (decpt <= kMaxDecptForFixed || len > decpt)) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-decpt), '0');
      out += digits;
    } else if (decpt >= len) {
      out += digits;
      out.append(static_cast<size_t>(decpt - len), '0');
    } else {
      out += digits.substr(0, decpt);
      out.push_back('.');
      out += digits.substr(decpt);
    }
    return out;
  }
  out.push_back(digits[0]);
  if (len > 1) {
    out.push_back('.');
    out += digits.substr(1);
  }
  out.push_back('e');
  out += std::to_string(exp);
  return out;
}

// ---- Value ----

Value Value::Int(int64_t v) {
  Value out;
  out.kind_ = ValueKind::kInt;
  out.i_ = v;
  return out;
}

Value Value::UInt(uint64_t v) {
  Value out;
  out.kind_ = ValueKind::kUInt;
  out.u_ = v;
  return out;
}

Value Value::Double(double v) {
  Value out;
  out.kind_ = ValueKind::kDouble;
  out.d_ = v;
  return out;
}

Value Value::Dec(Decimal v) {
  Value out;
  out.kind_ = ValueKind::kDecimal;
  out.dec_ = v;
  return out;
}

Value Value::String(std::string v, bool binary) {
  Value out;
  out.kind_ = ValueKind::kString;
  out.binary_ = binary;
  out.s_ = std::move(v);
  return out;
}

Value Value::Typed(std::string v, StringType type) {
  Value out = String(std::move(v));
  out.string_type_ = type;
  return out;
}

Value Value::Enum(std::string text, uint64_t index) {
  Value out = Typed(std::move(text), StringType::kEnum);
  out.u_ = index;
  return out;
}

int64_t Value::ToInt() const {
  switch (kind_) {
    case ValueKind::kNull:
      return 0;
    case ValueKind::kInt:
      return i_;
    case ValueKind::kUInt:
      return static_cast<int64_t>(u_);
    case ValueKind::kDouble: {
      // Nearest, ties to even, as MySQL's rint(): CAST(2.5e0 AS SIGNED) is 2.
      double r = std::nearbyint(d_);
      if (std::isnan(r)) return 0;
      if (r >= 9223372036854775807.0) return std::numeric_limits<int64_t>::max();
      if (r <= -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(r);
    }
    case ValueKind::kDecimal: {
      __int128 r = dec_.RoundToInteger();
      if (r > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
      if (r < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
      return static_cast<int64_t>(r);
    }
    case ValueKind::kString:
      if (is_enum()) return static_cast<int64_t>(u_);
      if (is_temporal()) return Value::Dec(ToDecimal()).ToInt();
      return ParseInt64Prefix(s_, nullptr).value_or(0);
  }
  return 0;
}

uint64_t Value::ToUInt() const {
  switch (kind_) {
    case ValueKind::kNull:
      return 0;
    case ValueKind::kInt:
      return static_cast<uint64_t>(i_);
    case ValueKind::kUInt:
      return u_;
    case ValueKind::kDouble: {
      double r = std::nearbyint(d_);
      if (std::isnan(r)) return 0;
      if (r >= 18446744073709551615.0) return std::numeric_limits<uint64_t>::max();
      if (r < 0) return static_cast<uint64_t>(Value::Double(d_).ToInt());
      return static_cast<uint64_t>(r);
    }
    case ValueKind::kDecimal: {
      __int128 r = dec_.RoundToInteger();
      if (r > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
        return std::numeric_limits<uint64_t>::max();
      }
      if (r < 0) return static_cast<uint64_t>(Value::Dec(dec_).ToInt());
      return static_cast<uint64_t>(r);
    }
    case ValueKind::kString: {
      if (is_enum()) return u_;
      if (is_temporal()) return static_cast<uint64_t>(ToInt());
      size_t i = 0;
      while (i < s_.size() && IsSpace(s_[i])) ++i;
      if (i < s_.size() && s_[i] == '-') return static_cast<uint64_t>(ToInt());
      if (i < s_.size() && s_[i] == '+') ++i;
      unsigned __int128 acc = 0;
      for (; i < s_.size() && IsDigit(s_[i]); ++i) {
        acc = acc * 10 + static_cast<unsigned>(s_[i] - '0');
        if (acc > std::numeric_limits<uint64_t>::max()) return std::numeric_limits<uint64_t>::max();
      }
      return static_cast<uint64_t>(acc);
    }
  }
  return 0;
}

double Value::ToDouble() const {
  switch (kind_) {
    case ValueKind::kNull:
      return 0;
    case ValueKind::kInt:
      return static_cast<double>(i_);
    case ValueKind::kUInt:
      return static_cast<double>(u_);
    case ValueKind::kDouble:
      return d_;
    case ValueKind::kDecimal:
      return dec_.ToDouble();
    case ValueKind::kString:
      if (is_enum()) return static_cast<double>(u_);
      if (is_temporal()) return ParseDoublePrefix(TemporalNumericText(s_));
      return ParseDoublePrefix(s_);
  }
  return 0;
}

Decimal Value::ToDecimal() const {
  auto clamp = [](bool negative) {
    return Decimal::Largest(Decimal::kMaxDigits, 0, negative);
  };
  switch (kind_) {
    case ValueKind::kNull:
      return Decimal{};
    case ValueKind::kInt:
      return Decimal::FromInteger(i_);
    case ValueKind::kUInt:
      return Decimal::FromInteger(u_);
    case ValueKind::kDouble: {
      if (std::isnan(d_)) return Decimal{};
      auto d = Decimal::FromDouble(d_);
      return d ? *d : clamp(d_ < 0);
    }
    case ValueKind::kDecimal:
      return dec_;
    case ValueKind::kString: {
      if (is_enum()) return Decimal::FromInteger(u_);
      std::string numeric = is_temporal() ? TemporalNumericText(s_) : std::string();
      NumericPrefix p = ScanNumericPrefix(is_temporal() ? std::string_view(numeric)
                                                        : std::string_view(s_));
      if (p.text.empty()) return Decimal{};
      if (!p.has_exponent) {
        std::string_view t = p.text;
        if (t.back() == '.') t.remove_suffix(1);
        auto d = Decimal::Parse(t);
        if (d) return *d;
      }
      return Value::Double(ParseDoublePrefix(p.text)).ToDecimal();
    }
  }
  return Decimal{};
}

std::string Value::ToString() const {
  switch (kind_) {
    case ValueKind::kNull:
      return "";
    case ValueKind::kInt:
      return std::to_string(i_);
    case ValueKind::kUInt:
      return std::to_string(u_);
    case ValueKind::kDouble:
      return FormatDouble(d_);
    case ValueKind::kDecimal:
      return dec_.ToString();
    case ValueKind::kString:
      return s_;
  }
  return "";
}

std::optional<bool> Value::ToBool() const {
  switch (kind_) {
    case ValueKind::kNull:
      return std::nullopt;
    case ValueKind::kInt:
      return i_ != 0;
    case ValueKind::kUInt:
      return u_ != 0;
    case ValueKind::kDouble:
      return d_ != 0;
    case ValueKind::kDecimal:
      return !dec_.is_zero();
    case ValueKind::kString:
      return ToDouble() != 0;
  }
  return std::nullopt;
}

}  // namespace sluice::sql
