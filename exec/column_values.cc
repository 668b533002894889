#include "exec/column_values.h"

#include <algorithm>
#include <cerrno>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

#include "base/mysql_error.h"
#include "base/utf8.h"
#include "protocol/constants.h"
#include "sql/collation.h"
#include "sql/json.h"
#include "sql/lexer.h"
#include "sql/temporal.h"
#include "sql/number.h"

namespace sluice::exec {

namespace {

using storage::ColumnDef;
using storage::ColumnType;
using storage::RowValue;
using i128 = __int128;

using er::kBlobCantHaveDefault;
using er::kCollationCharsetMismatch;
using er::kDuplicatedValueInType;
using er::kInvalidDefault;
using er::kInvalidOnUpdate;
using er::kNoDefaultForField;
using er::kTruncatedWrongTemporalForField;
using er::kWarnDataTruncated;
constexpr uint16_t kPartKeyFlag = protocol::PART_KEY_FLAG;

constexpr int64_t kMaxTimestampMicros = 2147483647LL * 1000000LL + 999999;

// ---- small helpers ----

std::string_view StripTrailingSpaces(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool SingleByteCharset(std::string_view cs) { return cs == "latin1" || cs == "ascii" || cs == "binary"; }

// Characters of `s` in charset `cs` (UTF-8 unless single-byte).
size_t CharCount(std::string_view cs, std::string_view s) {
  if (SingleByteCharset(cs)) return s.size();
  size_t n = 0;
  for (unsigned char b : s) n += (b & 0xC0) != 0x80;
  return n;
}

// Bytes of the first `chars` characters of `s`.
size_t CharPrefixBytes(std::string_view cs, std::string_view s, size_t chars) {
  if (SingleByteCharset(cs)) return std::min(s.size(), chars);
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == chars) return i;
      ++seen;
    }
  }
  return s.size();
}

// The longest prefix of `s` of at most `max_bytes` that does not split a
// UTF-8 character.
size_t BytePrefixOnCharBoundary(std::string_view cs, std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  if (SingleByteCharset(cs)) return max_bytes;
  size_t n = max_bytes;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

// A value as MySQL quotes it in a message ('%-.128s': at most 128 characters).
std::string MessageText(std::string_view s) {
  return std::string(s.substr(0, CharPrefixBytes("utf8mb4", s, 128)));
}

// The offset of the first byte that is not well formed in charset `cs`,
// or npos.
size_t FirstBadByte(std::string_view cs, std::string_view s) {
  if (cs == "latin1" || cs == "binary") return std::string_view::npos;
  if (cs == "ascii") {
    for (size_t i = 0; i < s.size(); ++i) {
      if (static_cast<unsigned char>(s[i]) >= 0x80) return i;
    }
    return std::string_view::npos;
  }
  const size_t max_len = cs == "utf8mb3" ? 3 : 4;
  for (size_t i = 0; i < s.size();) {
    const size_t len = base::Utf8CharLength(s.substr(i));
    if (len == 0 || len > max_len) return i;
    i += len;
  }
  return std::string_view::npos;
}

// Bytes from `pos` as MySQL shows a malformed string: up to 6 bytes, non-
// printable ones as \xHH, "..." when more follow.
std::string PrintableBytes(std::string_view s) {
  std::string out;
  const size_t n = std::min<size_t>(s.size(), 6);
  for (size_t i = 0; i < n; ++i) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x7F) {
      out.push_back(static_cast<char>(b));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\x%02X", b);
      out += buf;
    }
  }
  if (s.size() > n) out += "...";
  return out;
}

// ---- charsets ----

struct CollationName {
  std::string_view name;
  std::string_view charset;
};

constexpr CollationName kCollations[] = {
    {"utf8mb4_0900_ai_ci", "utf8mb4"}, {"utf8mb4_general_ci", "utf8mb4"},
    {"utf8mb4_bin", "utf8mb4"},        {"utf8mb4_unicode_ci", "utf8mb4"},
    {"utf8mb4_unicode_520_ci", "utf8mb4"}, {"utf8mb4_0900_as_cs", "utf8mb4"},
    {"utf8mb4_0900_as_ci", "utf8mb4"}, {"utf8mb4_0900_bin", "utf8mb4"},
    {"utf8mb3_general_ci", "utf8mb3"}, {"utf8mb3_bin", "utf8mb3"},
    {"utf8mb3_unicode_ci", "utf8mb3"}, {"utf8mb3_unicode_520_ci", "utf8mb3"},
    {"latin1_swedish_ci", "latin1"},   {"latin1_bin", "latin1"},
    {"latin1_general_ci", "latin1"},   {"latin1_general_cs", "latin1"},
    {"latin1_german1_ci", "latin1"},   {"latin1_german2_ci", "latin1"},
    {"latin1_danish_ci", "latin1"},    {"latin1_spanish_ci", "latin1"},
    {"ascii_general_ci", "ascii"},     {"ascii_bin", "ascii"},
    {"binary", "binary"},
};

// Canonical charset name ("utf8" -> "utf8mb3"); "" when unknown.
std::string CanonicalCharset(std::string_view name) {
  std::string cs = sql::AsciiLower(name);
  if (cs == "utf8") cs = "utf8mb3";
  if (cs == "utf8mb4" || cs == "utf8mb3" || cs == "latin1" || cs == "ascii" || cs == "binary") return cs;
  return "";
}

std::string DefaultCollation(std::string_view cs) {
  if (cs == "utf8mb4") return "utf8mb4_0900_ai_ci";
  if (cs == "utf8mb3") return "utf8mb3_general_ci";
  if (cs == "latin1") return "latin1_swedish_ci";
  if (cs == "ascii") return "ascii_general_ci";
  return "binary";
}

// Canonical collation name ("utf8_bin" -> "utf8mb3_bin") and its charset;
// nullopt when unknown.
std::optional<CollationName> FindCollation(std::string_view name) {
  std::string col = sql::AsciiLower(name);
  if (col.rfind("utf8_", 0) == 0) col = "utf8mb3_" + col.substr(5);
  for (const CollationName& c : kCollations) {
    if (c.name == col) return c;
  }
  return std::nullopt;
}

uint32_t MaxBytesPerChar(std::string_view cs) {
  if (SingleByteCharset(cs)) return 1;
  if (cs == "utf8mb3") return 3;
  return 4;
}

// ---- column facts ----

using storage::IntRange;
using storage::IntWidth;

uint64_t MaxBlobBytes(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyText: case ColumnType::kTinyBlob: return 255;
    case ColumnType::kText: case ColumnType::kBlob: return 65535;
    case ColumnType::kMediumText: case ColumnType::kMediumBlob: return 16777215;
    default: return 4294967295ull;
  }
}

uint32_t Precision(const ColumnDef& c) { return c.precision == 0 ? 10 : c.precision; }

// FLOAT(M,D) / DOUBLE(M,D): the catalog keeps M and D in precision/scale.
bool HasFloatScale(const ColumnDef& c) {
  return (c.type == ColumnType::kFloat || c.type == ColumnType::kDouble) && c.precision != 0;
}

std::string_view ColumnCharset(const ColumnDef& c) {
  if (storage::IsBinaryType(c.type)) return "binary";
  return c.charset.empty() ? std::string_view("utf8mb4") : std::string_view(c.charset);
}

// ---- assignment problems ----

// A value that does not fit: the error in strict mode, else a warning (and
// the caller goes on with the adjusted value).
Status Problem(AssignContext& cx, Status error) {
  if (cx.strict) return error;
  if (cx.warn) cx.warn(error.mysql_errno(), error.message());
  return Status::OK();
}

void Note(AssignContext& cx, const Status& s) {
  if (cx.warn) cx.warn(s.mysql_errno(), s.message());
}

Status OutOfRange(const ColumnDef& c, const AssignContext& cx) {
  return MakeError(er::kWarnDataOutOfRange, c.name, cx.row_number);
}
Status DataTruncated(const ColumnDef& c, const AssignContext& cx) {
  return MakeError(kWarnDataTruncated, c.name, cx.row_number);
}
Status IncorrectValue(std::string_view type, std::string_view value, const ColumnDef& c,
                      const AssignContext& cx) {
  return MakeError(er::kTruncatedWrongValueForField, type, MessageText(value), c.name, cx.row_number);
}
Status IncorrectTemporal(ColumnType t, std::string_view value, const ColumnDef& c, const AssignContext& cx) {
  std::string_view type = t == ColumnType::kDate ? "date" : t == ColumnType::kTime ? "time" : "datetime";
  return MakeError(kTruncatedWrongTemporalForField, type, MessageText(value), c.name, cx.row_number);
}

// ---- numbers from strings ----

enum class Parsed : uint8_t { kOk, kTruncated, kBad };

constexpr i128 kHuge = i128{1} << 100;  // beyond every column's range

i128 RoundDouble(double d) {
  const double r = std::round(d);
  if (std::isnan(r)) return 0;
  if (r >= 1e30) return kHuge;
  if (r <= -1e30) return -kHuge;
  return static_cast<i128>(r);
}

// A string's leading number rounded to an integer (half away from zero).
i128 IntegerOfPrefix(const sql::NumericPrefix& p) {
  std::string_view t = p.text;
  if (p.has_exponent) return RoundDouble(sql::ParseDoublePrefix(t));
  if (p.has_dot) {
    if (t.back() == '.') t.remove_suffix(1);
    if (auto d = sql::Decimal::Parse(t)) return d->RoundToInteger();
    return RoundDouble(sql::ParseDoublePrefix(t));
  }
  bool neg = false;
  if (!t.empty() && (t[0] == '+' || t[0] == '-')) {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  i128 v = 0;
  for (char ch : t) {
    v = v * 10 + (ch - '0');
    if (v > kHuge) {
      v = kHuge;
      break;
    }
  }
  return neg ? -v : v;
}

Parsed ParseIntegerString(std::string_view s, i128* out) {
  sql::NumericPrefix p = sql::ScanNumericPrefix(s);
  if (p.text.empty()) {
    *out = 0;
    return Parsed::kBad;
  }
  *out = IntegerOfPrefix(p);
  return p.complete ? Parsed::kOk : Parsed::kTruncated;
}

// The integer a value stands for, with MySQL's string rules (1366 when no
// number leads the string, 1265 for trailing garbage).
Result<i128> IntegerOf(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  switch (v.kind()) {
    case sql::ValueKind::kInt: return i128{v.int_value()};
    case sql::ValueKind::kUInt: return i128{v.uint_value()};
    case sql::ValueKind::kDouble: return RoundDouble(v.double_value());
    case sql::ValueKind::kDecimal: return v.decimal_value().RoundToInteger();
    case sql::ValueKind::kNull: return i128{0};
    case sql::ValueKind::kString: break;
  }
  if (v.is_enum()) return i128{v.enum_index()};
  if (v.is_temporal()) return v.ToDecimal().RoundToInteger();
  i128 out = 0;
  switch (ParseIntegerString(v.string_value(), &out)) {
    case Parsed::kOk: break;
    case Parsed::kBad:
      SLUICE_RETURN_IF_ERROR(Problem(cx, IncorrectValue("integer", v.string_value(), c, cx)));
      break;
    case Parsed::kTruncated:
      SLUICE_RETURN_IF_ERROR(Problem(cx, DataTruncated(c, cx)));
      break;
  }
  return out;
}

// ---- per type ----

Result<RowValue> ToInteger(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  Result<i128> iv = IntegerOf(c, v, cx);
  if (!iv.ok()) return iv.status();
  i128 x = *iv;
  i128 lo, hi;
  IntRange(c, &lo, &hi);
  if (x < lo || x > hi) {
    SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
    x = x < lo ? lo : hi;
  }
  if (c.is_unsigned) return RowValue(static_cast<uint64_t>(x));
  return RowValue(static_cast<int64_t>(x));
}

std::string DecimalMax(const ColumnDef& c, bool negative) {
  const uint32_t p = Precision(c);
  const uint32_t s = std::min(c.scale, p);
  std::string out = negative ? "-" : "";
  out += p > s ? std::string(p - s, '9') : std::string("0");
  if (s > 0) out += "." + std::string(s, '9');
  return out;
}

Result<RowValue> ToDecimalColumn(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  std::string text;
  switch (v.kind()) {
    case sql::ValueKind::kInt: text = std::to_string(v.int_value()); break;
    case sql::ValueKind::kUInt: text = std::to_string(v.uint_value()); break;
    case sql::ValueKind::kDecimal: text = v.decimal_value().ToString(); break;
    case sql::ValueKind::kDouble: {
      const double d = v.double_value();
      if (auto dec = sql::Decimal::FromDouble(d)) {
        text = dec->ToString();
      } else {
        SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
        text = std::isnan(d) ? "0" : DecimalMax(c, d < 0);
      }
      break;
    }
    case sql::ValueKind::kNull: text = "0"; break;
    case sql::ValueKind::kString: {
      if (v.is_temporal() || v.is_enum()) {
        text = v.ToDecimal().ToString();
        break;
      }
      sql::NumericPrefix p = sql::ScanNumericPrefix(v.string_value());
      if (p.text.empty() || !p.complete) {
        if (cx.strict) return IncorrectValue("decimal", v.string_value(), c, cx);
        Note(cx, p.text.empty() ? IncorrectValue("decimal", v.string_value(), c, cx) : DataTruncated(c, cx));
      }
      if (p.text.empty()) {
        text = "0";
      } else if (p.has_exponent) {
        text = sql::Value::String(std::string(p.text)).ToDecimal().ToString();
      } else {
        std::string_view t = p.text;
        if (t[0] == '+') t.remove_prefix(1);
        text = std::string(t);
      }
      break;
    }
  }
  if (c.is_unsigned && !text.empty() && text[0] == '-' && text.find_first_of("123456789") != std::string::npos) {
    SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
    text = "0";
  }
  // Fraction digits beyond the scale are rounded away: a note, as MySQL.
  if (const size_t dot = text.find('.'); dot != std::string::npos) {
    std::string_view frac = std::string_view(text).substr(dot + 1);
    if (frac.size() > c.scale && frac.substr(c.scale).find_first_not_of('0') != std::string_view::npos) {
      Note(cx, DataTruncated(c, cx));
    }
  }
  RowValue out = text;
  Status st = storage::CheckColumnValue(c, &out, cx.row_number);
  if (st.ok()) return out;
  if (st.mysql_errno() != er::kWarnDataOutOfRange.code) return st;
  SLUICE_RETURN_IF_ERROR(Problem(cx, st));
  out = DecimalMax(c, !text.empty() && text[0] == '-');
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

// `d` with `digits` decimals, in fixed notation.
std::string FixedText(double d, uint32_t digits) {
  char buf[400];
  std::snprintf(buf, sizeof(buf), "%.*f", static_cast<int>(std::min<uint32_t>(digits, 60)), d);
  return buf;
}

Result<RowValue> ToFloatColumn(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  double d = 0;
  if (v.is_string() && !v.is_temporal() && !v.is_enum()) {
    sql::NumericPrefix p = sql::ScanNumericPrefix(v.string_value());
    if (p.text.empty()) {
      SLUICE_RETURN_IF_ERROR(Problem(cx, DataTruncated(c, cx)));
    } else {
      const std::string t(p.text);
      errno = 0;
      d = std::strtod(t.c_str(), nullptr);
      if (errno == ERANGE && std::isinf(d)) {
        SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
        d = d < 0 ? -DBL_MAX : DBL_MAX;
      } else if (errno == ERANGE) {
        d = 0;  // underflow
      }
      if (!p.complete) SLUICE_RETURN_IF_ERROR(Problem(cx, DataTruncated(c, cx)));
    }
  } else {
    d = v.ToDouble();
  }
  if (std::isnan(d)) {
    SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
    d = 0;
  }
  double limit = c.type == ColumnType::kFloat ? FLT_MAX : DBL_MAX;
  if (HasFloatScale(c)) {
    // FLOAT(M,D): rounded to D decimals, |v| < 10^(M-D).
    const uint32_t m = c.precision;
    const uint32_t s = std::min(c.scale, m);
    d = std::strtod(FixedText(d, s).c_str(), nullptr);
    limit = std::pow(10.0, static_cast<double>(m - s)) - std::pow(10.0, -static_cast<double>(s));
  }
  if (std::fabs(d) > limit) {
    SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
    d = d < 0 ? -limit : limit;
  }
  if (c.is_unsigned && d < 0) {
    SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
    d = 0;
  }
  // FLOAT keeps single precision: the value as it reads back.
  if (c.type == ColumnType::kFloat) d = static_cast<double>(static_cast<float>(d));
  if (d == 0) d = 0;  // no -0
  RowValue out = d;
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

Result<RowValue> ToStringColumn(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  std::string s = v.ToString();
  const std::string_view cs = ColumnCharset(c);
  const bool binary = storage::IsBinaryType(c.type);
  if (!binary) {
    if (size_t bad = FirstBadByte(cs, s); bad != std::string_view::npos) {
      SLUICE_RETURN_IF_ERROR(Problem(
          cx, IncorrectValue("string", PrintableBytes(std::string_view(s).substr(bad)), c, cx)));
      s.resize(bad);
    }
  }
  size_t keep = s.size();
  bool too_long = false;
  if (c.type == ColumnType::kChar || c.type == ColumnType::kVarChar) {
    if (CharCount(cs, s) > c.length) {
      keep = CharPrefixBytes(cs, s, c.length);
      // Excess trailing spaces go silently (CheckColumnValue cuts them).
      too_long = std::string_view(s).substr(keep).find_first_not_of(' ') != std::string_view::npos;
    }
  } else if (c.type == ColumnType::kBinary || c.type == ColumnType::kVarBinary) {
    if (s.size() > c.length) {
      keep = c.length;
      too_long = true;
    }
  } else if (s.size() > MaxBlobBytes(c.type)) {
    keep = BytePrefixOnCharBoundary(cs, s, MaxBlobBytes(c.type));
    too_long = true;
  }
  if (too_long) {
    if (cx.strict) return MakeError(er::kDataTooLong, c.name, cx.row_number);
    Note(cx, DataTruncated(c, cx));
    s.resize(keep);
  }
  if (c.type == ColumnType::kBinary && s.size() < c.length) s.append(c.length - s.size(), '\0');
  RowValue out = std::move(s);
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

// A number as a DATETIME the way MySQL reads 20260102 / 260102 /
// 20260102030405; nullopt when invalid.
std::optional<sql::DateTime> NumberToDatetime(const sql::Value& v) {
  std::string text = v.kind() == sql::ValueKind::kDouble ? sql::Value::Dec(v.ToDecimal()).ToString() : v.ToString();
  if (text.empty() || text[0] == '-') return std::nullopt;
  const size_t dot = text.find('.');
  std::string digits = text.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
  if (digits.find_first_not_of('0') == std::string::npos && frac.find_first_not_of('0') == std::string::npos) {
    return sql::DateTime{};  // 0: the zero date
  }
  size_t width;
  if (digits.size() <= 6) {
    width = 6;
  } else if (digits.size() <= 8) {
    width = 8;
  } else if (digits.size() <= 12) {
    width = 12;
  } else if (digits.size() <= 14) {
    width = 14;
  } else {
    return std::nullopt;
  }
  digits.insert(0, width - digits.size(), '0');
  if (!frac.empty()) {
    if (width == 6 || width == 8) return std::nullopt;
    digits += "." + frac;
  }
  return sql::ParseDatetime(digits);
}

bool IsZeroDate(const sql::DateTime& dt) { return dt.year == 0 && dt.month == 0 && dt.day == 0; }

Result<RowValue> ToTemporal(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  const std::string text = v.ToString();
  // Invalid: an error, or (not strict) the zero value with a warning. The
  // engine cannot store the zero date, so only TIME has that fallback.
  auto invalid = [&]() -> Result<RowValue> {
    Status err = IncorrectTemporal(c.type, text, c, cx);
    if (c.type != ColumnType::kTime) return err;
    SLUICE_RETURN_IF_ERROR(Problem(cx, err));
    return RowValue(int64_t{0});
  };
  if (c.type == ColumnType::kTime) {
    std::optional<sql::DateTime> t = v.is_string() ? sql::ParseTime(text) : sql::ValueToTime(v);
    if (!t) return invalid();
    sql::DateTime dt = sql::RoundFraction(*t, static_cast<int>(c.fsp), true);
    RowValue out = storage::PackTime(dt.negative, dt.hour, dt.minute, dt.second, dt.micro);
    Status st = storage::CheckColumnValue(c, &out, cx.row_number);
    if (!st.ok()) return invalid();
    return out;
  }
  std::optional<sql::DateTime> parsed = v.is_string() ? sql::ParseDatetime(text) : NumberToDatetime(v);
  if (!parsed || IsZeroDate(*parsed)) return invalid();
  sql::DateTime dt = *parsed;
  if (c.type == ColumnType::kDate) {
    if (dt.hour != 0 || dt.minute != 0 || dt.second != 0 || dt.micro != 0) Note(cx, DataTruncated(c, cx));
    RowValue out = storage::PackDate(dt.year, dt.month, dt.day);
    Status st = storage::CheckColumnValue(c, &out, cx.row_number);
    if (!st.ok()) return invalid();
    return out;
  }
  dt = sql::RoundFraction(dt, static_cast<int>(c.fsp), false);
  if (c.type == ColumnType::kDateTime) {
    RowValue out = storage::PackDateTime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.micro);
    Status st = storage::CheckColumnValue(c, &out, cx.row_number);
    if (!st.ok()) return invalid();
    return out;
  }
  // TIMESTAMP: the session's (the system's) local time to UTC microseconds.
  std::optional<int64_t> secs = sql::LocalToUnixSeconds(dt);
  if (!secs || *secs < 1 || *secs > 2147483647LL) return invalid();
  RowValue out = *secs * 1000000LL + dt.micro;
  if (std::get<int64_t>(out) > kMaxTimestampMicros) return invalid();
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

Result<RowValue> ToYear(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  i128 y = 0;
  if (v.is_string() && (v.string_type() == sql::StringType::kDate ||
                        v.string_type() == sql::StringType::kDatetime)) {
    std::optional<sql::DateTime> dt = sql::ParseDatetime(v.string_value());
    y = dt ? dt->year : 0;
  } else if (v.is_string() && !v.is_temporal()) {
    // Strings: '0'..'99' are two-digit years ('0' and '00' are 2000).
    const std::string& s = v.string_value();
    sql::NumericPrefix p = sql::ScanNumericPrefix(s);
    Result<i128> iv = IntegerOf(c, v, cx);
    if (!iv.ok()) return iv.status();
    y = *iv;
    std::string_view digits = p.text;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
    const bool short_form = !p.has_dot && !p.has_exponent && digits.size() <= 2;
    if (short_form && y >= 0 && y <= 99 && !p.text.empty()) y = y < 70 ? 2000 + y : 1900 + y;
  } else {
    Result<i128> iv = IntegerOf(c, v, cx);
    if (!iv.ok()) return iv.status();
    y = *iv;
    if (y >= 1 && y <= 99) y = y < 70 ? 2000 + y : 1900 + y;
  }
  if (y != 0 && (y < 1901 || y > 2155)) {
    SLUICE_RETURN_IF_ERROR(Problem(cx, OutOfRange(c, cx)));
    y = 0;
  }
  RowValue out = static_cast<uint64_t>(y);
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

// ENUM members compare ignoring ASCII case and trailing spaces.
bool EnumMemberMatches(std::string_view member, std::string_view s) {
  return sql::EqualsIgnoreCase(StripTrailingSpaces(member), StripTrailingSpaces(s));
}

Result<RowValue> ToEnum(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  i128 index = 0;
  if (v.is_string()) {
    const std::string& s = v.string_value();
    for (size_t i = 0; i < c.enum_values.size(); ++i) {
      if (EnumMemberMatches(c.enum_values[i], s)) {
        index = static_cast<i128>(i + 1);
        break;
      }
    }
    if (index == 0) {
      // A number that is no member's text is an index.
      sql::NumericPrefix p = sql::ScanNumericPrefix(s);
      if (!p.text.empty() && p.complete && !p.has_dot && !p.has_exponent) index = IntegerOfPrefix(p);
    }
  } else {
    Result<i128> iv = IntegerOf(c, v, cx);
    if (!iv.ok()) return iv.status();
    index = *iv;
  }
  if (index < 1 || index > static_cast<i128>(c.enum_values.size())) {
    // MySQL stores '' (index 0) with a warning when not strict; the engine
    // has no '' value, so this is an error either way.
    return DataTruncated(c, cx);
  }
  RowValue out = static_cast<uint64_t>(index);
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

// The type's implicit default (0, '', first ENUM member, 00:00:00); nullopt
// where the engine cannot store it (the zero date).
std::optional<RowValue> ImplicitDefault(const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
    case ColumnType::kInt: case ColumnType::kBigInt:
      if (c.is_unsigned) return RowValue(uint64_t{0});
      return RowValue(int64_t{0});
    case ColumnType::kDecimal: {
      RowValue v = std::string("0");
      if (!storage::CheckColumnValue(c, &v, 1).ok()) return std::nullopt;
      return v;
    }
    case ColumnType::kFloat: case ColumnType::kDouble: return RowValue(0.0);
    case ColumnType::kBinary: return RowValue(std::string(c.length, '\0'));
    case ColumnType::kTime: return RowValue(int64_t{0});
    case ColumnType::kYear: return RowValue(uint64_t{0});
    case ColumnType::kEnum:
      if (c.enum_values.empty()) return std::nullopt;
      return RowValue(uint64_t{1});
    case ColumnType::kDate: case ColumnType::kDateTime: case ColumnType::kTimestamp:
      return std::nullopt;
    default:
      return RowValue(std::string());
  }
}

// ---- display ----

sql::DateTime FromParts(const storage::DateTimeParts& p) {
  sql::DateTime dt;
  dt.negative = p.negative;
  dt.year = p.year;
  dt.month = p.month;
  dt.day = p.day;
  dt.hour = p.hour;
  dt.minute = p.minute;
  dt.second = p.second;
  dt.micro = p.micros;
  return dt;
}

sql::DateTime TimestampToLocal(int64_t micros) {
  const auto tp = std::chrono::system_clock::time_point(std::chrono::microseconds(micros));
  return sql::FromTimePoint(tp, /*utc=*/false);
}

// FLOAT: the value to 6 significant digits, shortest form.
std::string FloatText(double d) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.5e", d);
  return sql::FormatDouble(std::strtod(buf, nullptr));
}

std::string TemporalText(const ColumnDef& c, int64_t v) {
  const int fsp = static_cast<int>(c.fsp);
  switch (c.type) {
    case ColumnType::kDate: return sql::FormatDate(FromParts(storage::UnpackDate(v)));
    case ColumnType::kTime: return sql::FormatTime(FromParts(storage::UnpackTime(v)), fsp);
    case ColumnType::kDateTime: return sql::FormatDatetime(FromParts(storage::UnpackDateTime(v)), fsp);
    default: return sql::FormatDatetime(TimestampToLocal(v), fsp);
  }
}


bool IsCurrentTimestampCall(const sql::Expr& e) {
  if (e.kind != sql::ExprKind::kFunction) return false;
  return sql::EqualsIgnoreCase(e.name, "CURRENT_TIMESTAMP") || sql::EqualsIgnoreCase(e.name, "NOW") ||
         sql::EqualsIgnoreCase(e.name, "LOCALTIME") || sql::EqualsIgnoreCase(e.name, "LOCALTIMESTAMP");
}

}  // namespace

// A string in single quotes as SHOW CREATE TABLE writes it.
std::string Quoted(std::string_view s) {
  std::string out = "'";
  for (char ch : s) {
    switch (ch) {
      case '\'': out += "''"; break;
      case '\\': out += "\\\\"; break;
      case '\0': out += "\\0"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\032': out += "\\Z"; break;
      default: out.push_back(ch); break;
    }
  }
  out += "'";
  return out;
}

// ---------------------------------------------------------------- assignment

// JSON columns store the binary form: text is parsed (3140 when it is not
// JSON), other values become JSON scalars (a number, a string).
Result<RowValue> ToJsonColumn(const ColumnDef& c, const sql::Value& v) {
  std::string text;
  if (v.string_type() == sql::StringType::kJson || (v.is_string() && !v.is_binary() && !v.is_temporal())) {
    text = v.string_value();
  } else {
    if (v.is_binary()) return MakeError(er::kInvalidJsonCharset, "binary");
    Result<sql::Value> j = sql::json::FromSql(v);
    if (!j.ok()) return j.status();
    text = j->string_value();
  }
  Result<std::string> bin = sql::json::TextToBinary(text, c.name);
  if (!bin.ok()) return bin.status();
  return RowValue(std::move(bin).value());
}

Result<RowValue> ToColumnValue(const ColumnDef& c, const sql::Value& v, AssignContext& cx) {
  if (v.is_null()) {
    if (c.nullable) return RowValue();
    Status err = MakeError(er::kBadNull, c.name);
    if (cx.strict) return err;
    // Not strict (UPDATE, multi-row INSERT): the implicit default, a warning.
    std::optional<RowValue> def = ImplicitDefault(c);
    if (!def) return err;
    Note(cx, err);
    return *def;
  }
  switch (c.type) {
    case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
    case ColumnType::kInt: case ColumnType::kBigInt:
      return ToInteger(c, v, cx);
    case ColumnType::kDecimal:
      return ToDecimalColumn(c, v, cx);
    case ColumnType::kFloat: case ColumnType::kDouble:
      return ToFloatColumn(c, v, cx);
    case ColumnType::kDate: case ColumnType::kTime: case ColumnType::kDateTime: case ColumnType::kTimestamp:
      return ToTemporal(c, v, cx);
    case ColumnType::kYear:
      return ToYear(c, v, cx);
    case ColumnType::kEnum:
      return ToEnum(c, v, cx);
    case ColumnType::kJson:
      return ToJsonColumn(c, v);
    default:
      return ToStringColumn(c, v, cx);
  }
}

sql::Value FromColumnValue(const ColumnDef& c, const RowValue& v) {
  if (storage::IsNull(v)) return sql::Value::Null();
  if (auto* i = std::get_if<int64_t>(&v)) {
    switch (c.type) {
      case ColumnType::kDate:
        return sql::Value::Typed(TemporalText(c, *i), sql::StringType::kDate);
      case ColumnType::kTime:
        return sql::Value::Typed(TemporalText(c, *i), sql::StringType::kTime);
      case ColumnType::kDateTime: case ColumnType::kTimestamp:
        return sql::Value::Typed(TemporalText(c, *i), sql::StringType::kDatetime);
      case ColumnType::kEnum: case ColumnType::kYear:
        break;  // below, as the unsigned form
      default:
        return sql::Value::Int(*i);
    }
  }
  uint64_t u = 0;
  if (auto* p = std::get_if<uint64_t>(&v)) {
    u = *p;
  } else if (auto* i = std::get_if<int64_t>(&v)) {
    u = static_cast<uint64_t>(*i);
  } else if (auto* d = std::get_if<double>(&v)) {
    return sql::Value::Double(*d);
  } else {
    const std::string& s = std::get<std::string>(v);
    if (c.type == ColumnType::kJson) {
      Result<std::string> text = sql::json::BinaryToText(s);
      return sql::Value::Typed(text.ok() ? std::move(text).value() : std::string("null"), sql::StringType::kJson);
    }
    if (c.type == ColumnType::kDecimal) {
      if (auto dec = sql::Decimal::Parse(s)) return sql::Value::Dec(*dec);
      return sql::Value::Double(std::strtod(s.c_str(), nullptr));  // never for a stored DECIMAL(M<=65)
    }
    sql::Value out = sql::Value::String(s, storage::IsBinaryType(c.type));
    // A text column compares under its collation (the default one needs no
    // mark: it is what an unmarked string gets).
    if (!c.collation.empty() && c.collation != "utf8mb4_0900_ai_ci" && !out.is_binary()) {
      if (std::optional<sql::Collation> coll = sql::CollationFromName(c.collation)) {
        out.set_collation(*coll, sql::Coercibility::kImplicit);
      }
    }
    return out;
  }
  switch (c.type) {
    case ColumnType::kEnum:
      if (u >= 1 && u <= c.enum_values.size()) return sql::Value::Enum(c.enum_values[u - 1], u);
      return sql::Value::Enum("", 0);
    case ColumnType::kYear:
      return sql::Value::Int(static_cast<int64_t>(u));
    default:
      return c.is_unsigned ? sql::Value::UInt(u) : sql::Value::Int(static_cast<int64_t>(u));
  }
}

std::optional<std::string> ColumnText(const ColumnDef& c, const RowValue& v) {
  if (storage::IsNull(v)) return std::nullopt;
  switch (c.type) {
    case ColumnType::kFloat: case ColumnType::kDouble: {
      const double d = std::holds_alternative<double>(v) ? std::get<double>(v) : 0.0;
      if (HasFloatScale(c)) return FixedText(d, std::min(c.scale, c.precision));
      return c.type == ColumnType::kFloat ? FloatText(d) : sql::FormatDouble(d);
    }
    case ColumnType::kDate: case ColumnType::kTime: case ColumnType::kDateTime: case ColumnType::kTimestamp:
      if (auto* i = std::get_if<int64_t>(&v)) return TemporalText(c, *i);
      break;
    case ColumnType::kDecimal:
      if (auto* s = std::get_if<std::string>(&v)) return *s;  // canonical: exactly `scale` digits
      break;
    case ColumnType::kYear: {
      sql::Value y = FromColumnValue(c, v);
      std::string s = std::to_string(y.ToInt());
      if (s.size() < 4) s.insert(0, 4 - s.size(), '0');
      return s;
    }
    default:
      break;
  }
  // Text and binary strings are their own text (FromColumnValue would wrap
  // them in a Value only for ToString to copy them out again).
  if (const auto* s = std::get_if<std::string>(&v); s != nullptr && c.type != ColumnType::kJson) return *s;
  sql::Value value = FromColumnValue(c, v);
  return value.ToString();
}

void AppendColumnCell(const ColumnDef& c, const RowValue& v, protocol::TextRows::RowWriter* w) {
  // The types whose text ColumnText computes even from a stored string.
  const bool computed = c.type == ColumnType::kFloat || c.type == ColumnType::kDouble ||
                        c.type == ColumnType::kYear || c.type == ColumnType::kJson;
  if (const auto* s = std::get_if<std::string>(&v); s != nullptr && !computed) {
    w->Cell(*s);
    return;
  }
  w->CellOrNull(ColumnText(c, v));
}

// ---------------------------------------------------------------- metadata

protocol::ColumnDefinition ColumnMetadata(const storage::TableDef& table, const ColumnDef& c,
                                          std::string_view name) {
  namespace p = protocol;
  p::ColumnDefinition m;
  m.schema = table.schema;
  m.table = table.name;
  m.org_table = table.name;
  m.name = std::string(name);
  m.org_name = c.name;
  m.collation = p::kCollationBinary;
  m.decimals = 0;
  uint16_t flags = 0;
  const uint16_t num = p::NUM_FLAG;
  switch (c.type) {
    case ColumnType::kTinyInt:
      m.type = p::MYSQL_TYPE_TINY;
      m.length = c.is_unsigned ? 3 : 4;
      flags |= num;
      break;
    case ColumnType::kSmallInt:
      m.type = p::MYSQL_TYPE_SHORT;
      m.length = c.is_unsigned ? 5 : 6;
      flags |= num;
      break;
    case ColumnType::kMediumInt:
      m.type = p::MYSQL_TYPE_INT24;
      m.length = c.is_unsigned ? 8 : 9;
      flags |= num;
      break;
    case ColumnType::kInt:
      m.type = p::MYSQL_TYPE_LONG;
      m.length = c.is_unsigned ? 10 : 11;
      flags |= num;
      break;
    case ColumnType::kBigInt:
      m.type = p::MYSQL_TYPE_LONGLONG;
      m.length = 20;
      flags |= num;
      break;
    case ColumnType::kDecimal: {
      const uint32_t prec = Precision(c);
      m.type = p::MYSQL_TYPE_NEWDECIMAL;
      m.length = prec + (c.scale > 0 ? 1 : 0) + (c.is_unsigned ? 0 : 1);
      m.decimals = static_cast<uint8_t>(c.scale);
      flags |= num;
      break;
    }
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      m.type = c.type == ColumnType::kFloat ? p::MYSQL_TYPE_FLOAT : p::MYSQL_TYPE_DOUBLE;
      if (HasFloatScale(c)) {
        m.length = c.precision;
        m.decimals = static_cast<uint8_t>(c.scale);
      } else {
        m.length = c.type == ColumnType::kFloat ? 12 : 22;
        m.decimals = 31;
      }
      flags |= num;
      break;
    case ColumnType::kChar:
    case ColumnType::kVarChar:
      m.type = c.type == ColumnType::kChar ? p::MYSQL_TYPE_STRING : p::MYSQL_TYPE_VAR_STRING;
      m.collation = p::kCollationUtf8mb4_0900_ai_ci;  // character_set_results = utf8mb4
      m.length = c.length * 4;
      break;
    case ColumnType::kBinary:
    case ColumnType::kVarBinary:
      m.type = c.type == ColumnType::kBinary ? p::MYSQL_TYPE_STRING : p::MYSQL_TYPE_VAR_STRING;
      m.length = c.length;
      flags |= p::BINARY_FLAG;
      break;
    case ColumnType::kTinyText: case ColumnType::kText: case ColumnType::kMediumText:
    case ColumnType::kLongText:
      m.type = p::MYSQL_TYPE_BLOB;
      m.collation = p::kCollationUtf8mb4_0900_ai_ci;
      m.length = static_cast<uint32_t>(std::min<uint64_t>(MaxBlobBytes(c.type) * 4, 4294967295ull));
      flags |= p::BLOB_FLAG;
      break;
    case ColumnType::kTinyBlob: case ColumnType::kBlob: case ColumnType::kMediumBlob:
    case ColumnType::kLongBlob:
      m.type = p::MYSQL_TYPE_BLOB;
      m.length = static_cast<uint32_t>(MaxBlobBytes(c.type));
      flags |= p::BLOB_FLAG | p::BINARY_FLAG;
      break;
    case ColumnType::kDate:
      m.type = p::MYSQL_TYPE_DATE;
      m.length = 10;
      flags |= p::BINARY_FLAG;
      break;
    case ColumnType::kTime:
      m.type = p::MYSQL_TYPE_TIME;
      m.length = 10 + (c.fsp > 0 ? c.fsp + 1 : 0);
      m.decimals = static_cast<uint8_t>(c.fsp);
      flags |= p::BINARY_FLAG;
      break;
    case ColumnType::kDateTime:
    case ColumnType::kTimestamp:
      m.type = c.type == ColumnType::kDateTime ? p::MYSQL_TYPE_DATETIME : p::MYSQL_TYPE_TIMESTAMP;
      m.length = 19 + (c.fsp > 0 ? c.fsp + 1 : 0);
      m.decimals = static_cast<uint8_t>(c.fsp);
      flags |= p::BINARY_FLAG;
      if (c.default_kind == ColumnDef::DefaultKind::kCurrentTimestamp || c.on_update_current_timestamp) {
        flags |= p::TIMESTAMP_FLAG;
      }
      if (c.on_update_current_timestamp) flags |= p::ON_UPDATE_NOW_FLAG;
      break;
    case ColumnType::kYear:
      m.type = p::MYSQL_TYPE_YEAR;
      m.length = 4;
      flags |= p::UNSIGNED_FLAG | p::ZEROFILL_FLAG | num;
      break;
    case ColumnType::kEnum: {
      m.type = p::MYSQL_TYPE_STRING;
      m.collation = p::kCollationUtf8mb4_0900_ai_ci;
      size_t longest = 0;
      for (const std::string& e : c.enum_values) longest = std::max(longest, CharCount(ColumnCharset(c), e));
      m.length = static_cast<uint32_t>(longest * 4);
      flags |= p::ENUM_FLAG;
      break;
    }
    case ColumnType::kJson:
      m.type = p::MYSQL_TYPE_JSON;
      m.length = 4294967295u;
      flags |= p::BLOB_FLAG | p::BINARY_FLAG;
      break;
  }
  if (storage::IsIntegerType(c.type) && c.length != 0) m.length = c.length;  // TINYINT(1)
  if (c.is_unsigned && (storage::IsIntegerType(c.type) || c.type == ColumnType::kDecimal ||
                        c.type == ColumnType::kFloat || c.type == ColumnType::kDouble)) {
    flags |= p::UNSIGNED_FLAG;
  }
  // Text with a binary collation (utf8mb4_bin, latin1_bin ...).
  if ((storage::IsTextType(c.type) || c.type == ColumnType::kEnum) && c.collation.size() >= 4 &&
      c.collation.compare(c.collation.size() - 4, 4, "_bin") == 0) {
    flags |= p::BINARY_FLAG;
  }
  if (!c.nullable) flags |= p::NOT_NULL_FLAG;
  if (c.auto_increment) flags |= p::AUTO_INCREMENT_FLAG;
  if (!c.nullable && !c.auto_increment && c.default_kind == ColumnDef::DefaultKind::kNone) {
    flags |= p::NO_DEFAULT_VALUE_FLAG;
  }
  // Keys. Without a PRIMARY KEY, MySQL treats the first UNIQUE index over
  // NOT NULL whole columns as the primary key.
  const storage::IndexDef* primary = nullptr;
  for (const storage::IndexDef& idx : table.indexes) {
    if (!idx.parts.empty() &&
        (idx.kind == storage::IndexKind::kClustered || sql::EqualsIgnoreCase(idx.name, storage::kPrimaryKeyName))) {
      primary = &idx;
    }
  }
  if (primary == nullptr) {
    for (const storage::IndexDef& idx : table.indexes) {
      if (!idx.unique || idx.parts.empty()) continue;
      bool all = true;
      for (const storage::KeyPart& part : idx.parts) {
        const ColumnDef* col = part.column < table.columns.size() ? &table.columns[part.column] : nullptr;
        if (col == nullptr || col->nullable || part.prefix_length != 0) all = false;
      }
      if (all) {
        primary = &idx;
        break;
      }
    }
  }
  for (const storage::IndexDef& idx : table.indexes) {
    for (size_t i = 0; i < idx.parts.size(); ++i) {
      const storage::KeyPart& part = idx.parts[i];
      const bool same = part.column_name.empty() ? part.column == c.ordinal : sql::EqualsIgnoreCase(part.column_name, c.name);
      if (!same) continue;
      flags |= kPartKeyFlag;
      if (&idx == primary) {
        flags |= p::PRI_KEY_FLAG;
      } else if (i == 0) {
        flags |= idx.unique && idx.parts.size() == 1 ? p::UNIQUE_KEY_FLAG : p::MULTIPLE_KEY_FLAG;
      }
    }
  }
  m.flags = flags;
  return m;
}

// ---------------------------------------------------------------- CREATE TABLE

Result<ColumnDef> ColumnFromDefinition(const sql::ColumnDefinition& def, std::string_view table_charset,
                                       std::string_view table_collation,
                                       const std::function<Result<sql::Value>(const sql::Expr&)>& eval_default) {
  ColumnDef c;
  c.name = def.name;
  c.comment = def.comment;
  c.generation_expr = def.generated_expr;
  c.generated_stored = def.generated_stored;
  const sql::DataType& t = def.type;
  std::string name = t.name;
  for (char& ch : name) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  }
  c.is_unsigned = t.is_unsigned || t.zerofill;
  bool serial = false;

  // Synonyms the parser normally folds.
  if (name == "INTEGER") name = "INT";
  if (name == "BOOL" || name == "BOOLEAN") name = "TINYINT(1)";
  if (name == "DEC" || name == "NUMERIC" || name == "FIXED") name = "DECIMAL";
  if (name == "REAL" || name == "DOUBLE PRECISION") name = "DOUBLE";
  if (name == "CHARACTER") name = "CHAR";
  if (name == "CHARACTER VARYING") name = "VARCHAR";
  if (name == "MIDDLEINT") name = "MEDIUMINT";
  if (name == "SERIAL") {
    name = "BIGINT";
    serial = true;
  }

  // Charset and collation (text types and ENUM).
  auto resolve_charset = [&](std::string* cs, std::string* col) -> Status {
    std::string charset;
    if (!t.charset.empty()) {
      charset = CanonicalCharset(t.charset);
      if (charset.empty()) return MakeError(er::kUnknownCharacterSet, t.charset);
    }
    std::string collation;
    if (!t.collation.empty()) {
      std::optional<CollationName> found = FindCollation(t.collation);
      if (!found) return MakeError(er::kUnknownCollation, t.collation);
      if (charset.empty()) {
        charset = std::string(found->charset);
      } else if (found->charset != charset) {
        return MakeError(kCollationCharsetMismatch, t.collation, t.charset);
      }
      collation = std::string(found->name);
    }
    if (charset.empty()) {
      charset = CanonicalCharset(table_charset.empty() ? std::string_view("utf8mb4") : table_charset);
      if (charset.empty()) return MakeError(er::kUnknownCharacterSet, table_charset);
      if (collation.empty() && !table_collation.empty()) {
        std::optional<CollationName> found = FindCollation(table_collation);
        if (!found) return MakeError(er::kUnknownCollation, table_collation);
        if (found->charset == charset) collation = std::string(found->name);
      }
    }
    if (collation.empty()) collation = DefaultCollation(charset);
    if (t.binary) collation = charset == "binary" ? "binary" : charset + "_bin";
    *cs = std::move(charset);
    *col = std::move(collation);
    return Status::OK();
  };
  const bool texty = name == "CHAR" || name == "VARCHAR" || name == "TINYTEXT" || name == "TEXT" ||
                     name == "MEDIUMTEXT" || name == "LONGTEXT" || name == "ENUM" || name == "LONG VARCHAR" ||
                     name == "LONG";
  if (texty) {
    SLUICE_RETURN_IF_ERROR(resolve_charset(&c.charset, &c.collation));
    // CHARACTER SET binary makes the binary type.
    if (c.charset == "binary") {
      if (name == "CHAR") name = "BINARY";
      else if (name == "VARCHAR") name = "VARBINARY";
      else if (name == "TINYTEXT") name = "TINYBLOB";
      else if (name == "TEXT") name = "BLOB";
      else if (name == "MEDIUMTEXT" || name == "LONG VARCHAR" || name == "LONG") name = "MEDIUMBLOB";
      else if (name == "LONGTEXT") name = "LONGBLOB";
    }
  }

  if (name == "TINYINT(1)") {
    c.type = ColumnType::kTinyInt;
    c.length = 1;
  } else if (name == "TINYINT" || name == "INT1") {
    c.type = ColumnType::kTinyInt;
    if (t.length == 1) c.length = 1;  // TINYINT(1) keeps its width (booleans)
  } else if (name == "SMALLINT" || name == "INT2") {
    c.type = ColumnType::kSmallInt;
  } else if (name == "MEDIUMINT" || name == "INT3") {
    c.type = ColumnType::kMediumInt;
  } else if (name == "INT" || name == "INT4") {
    c.type = ColumnType::kInt;
  } else if (name == "BIGINT" || name == "INT8") {
    c.type = ColumnType::kBigInt;
  } else if (name == "DECIMAL") {
    c.type = ColumnType::kDecimal;
    c.precision = t.length < 0 ? 10 : static_cast<uint32_t>(t.length);
    c.scale = t.scale < 0 ? 0 : static_cast<uint32_t>(t.scale);
  } else if (name == "FLOAT") {
    if (t.scale >= 0) {
      c.type = ColumnType::kFloat;  // FLOAT(M,D)
      c.precision = static_cast<uint32_t>(std::max(t.length, 0));
      c.scale = static_cast<uint32_t>(t.scale);
      if (c.scale > 30) return MakeError(er::kTooBigScale, c.scale, c.name, 30);
      if (c.precision > 255) return MakeError(er::kTooBigPrecision, c.precision, c.name, 255);
      if (c.scale > c.precision) return MakeError(er::kMBiggerThanD, c.name);
    } else if (t.length > 53) {
      return MakeError(er::kWrongFieldSpec, c.name);
    } else {
      c.type = t.length > 24 ? ColumnType::kDouble : ColumnType::kFloat;
    }
  } else if (name == "DOUBLE") {
    c.type = ColumnType::kDouble;
    if (t.scale >= 0) {
      c.precision = static_cast<uint32_t>(std::max(t.length, 0));
      c.scale = static_cast<uint32_t>(t.scale);
      if (c.scale > 30) return MakeError(er::kTooBigScale, c.scale, c.name, 30);
      if (c.precision > 255) return MakeError(er::kTooBigPrecision, c.precision, c.name, 255);
      if (c.scale > c.precision) return MakeError(er::kMBiggerThanD, c.name);
    }
  } else if (name == "CHAR" || name == "BINARY") {
    c.type = name == "CHAR" ? ColumnType::kChar : ColumnType::kBinary;
    c.length = t.length < 0 ? 1 : static_cast<uint32_t>(t.length);
  } else if (name == "VARCHAR" || name == "VARBINARY") {
    c.type = name == "VARCHAR" ? ColumnType::kVarChar : ColumnType::kVarBinary;
    if (t.length < 0) return MakeError(er::kWrongFieldSpec, c.name);
    c.length = static_cast<uint32_t>(t.length);
    const uint32_t max = 65535 / (c.type == ColumnType::kVarChar ? MaxBytesPerChar(c.charset) : 1);
    if (c.length > max) return MakeError(er::kTooBigFieldLength, c.name, max);
  } else if (name == "TINYTEXT" || name == "TEXT" || name == "MEDIUMTEXT" || name == "LONGTEXT" ||
             name == "LONG VARCHAR" || name == "LONG") {
    if (name == "TEXT" && t.length >= 0) {
      // TEXT(M): the smallest type that holds M characters.
      const uint64_t bytes = static_cast<uint64_t>(t.length) * MaxBytesPerChar(c.charset);
      c.type = bytes <= 255 ? ColumnType::kTinyText
               : bytes <= 65535 ? ColumnType::kText
               : bytes <= 16777215 ? ColumnType::kMediumText
                                   : ColumnType::kLongText;
    } else {
      c.type = name == "TINYTEXT" ? ColumnType::kTinyText
               : name == "TEXT"   ? ColumnType::kText
               : name == "LONGTEXT" ? ColumnType::kLongText
                                    : ColumnType::kMediumText;
    }
  } else if (name == "TINYBLOB" || name == "BLOB" || name == "MEDIUMBLOB" || name == "LONGBLOB") {
    if (name == "BLOB" && t.length >= 0) {
      const uint64_t bytes = static_cast<uint64_t>(t.length);
      c.type = bytes <= 255 ? ColumnType::kTinyBlob
               : bytes <= 65535 ? ColumnType::kBlob
               : bytes <= 16777215 ? ColumnType::kMediumBlob
                                   : ColumnType::kLongBlob;
    } else {
      c.type = name == "TINYBLOB" ? ColumnType::kTinyBlob
               : name == "BLOB"   ? ColumnType::kBlob
               : name == "MEDIUMBLOB" ? ColumnType::kMediumBlob
                                      : ColumnType::kLongBlob;
    }
  } else if (name == "JSON") {
    c.type = ColumnType::kJson;
  } else if (name == "DATE") {
    c.type = ColumnType::kDate;
  } else if (name == "TIME" || name == "DATETIME" || name == "TIMESTAMP") {
    c.type = name == "TIME" ? ColumnType::kTime : name == "DATETIME" ? ColumnType::kDateTime : ColumnType::kTimestamp;
    c.fsp = t.length < 0 ? 0 : static_cast<uint32_t>(t.length);
  } else if (name == "YEAR") {
    c.type = ColumnType::kYear;
    c.is_unsigned = false;
  } else if (name == "ENUM") {
    c.type = ColumnType::kEnum;
    for (const std::string& v : t.values) {
      std::string member(StripTrailingSpaces(v));  // MySQL drops trailing spaces
      for (const std::string& seen : c.enum_values) {
        if (EnumMemberMatches(seen, member)) return MakeError(kDuplicatedValueInType, c.name, member, "ENUM");
      }
      c.enum_values.push_back(std::move(member));
    }
  } else {
    // SET, BIT, GEOMETRY and the spatial types have no engine type.
    return MakeError(er::kNotSupportedYet, name);
  }
  if (storage::IsBinaryType(c.type)) {
    c.charset = "binary";
    c.collation = "binary";
  }
  if (!storage::IsIntegerType(c.type) && c.type != ColumnType::kDecimal && c.type != ColumnType::kFloat &&
      c.type != ColumnType::kDouble) {
    c.is_unsigned = false;
  }

  c.nullable = def.nullable.value_or(true);
  if (def.primary_key) c.nullable = false;
  c.auto_increment = def.auto_increment;
  if (serial) {
    c.is_unsigned = true;
    c.nullable = false;
    c.auto_increment = true;
  }
  // ON UPDATE CURRENT_TIMESTAMP: DATETIME and TIMESTAMP only.
  if (def.on_update_now) {
    if (c.type != ColumnType::kDateTime && c.type != ColumnType::kTimestamp) {
      return MakeError(kInvalidOnUpdate, c.name);
    }
    c.on_update_current_timestamp = true;
  }

  if (def.default_value != nullptr) SLUICE_RETURN_IF_ERROR(SetColumnDefault(&c, *def.default_value, eval_default));
  return c;
}

Status SetColumnDefault(ColumnDef* c, const sql::Expr& e,
                        const std::function<Result<sql::Value>(const sql::Expr&)>& eval_default) {
  auto invalid = [&] { return MakeError(kInvalidDefault, c->name); };
  if (c->auto_increment) return invalid();
  if (IsCurrentTimestampCall(e)) {
    if (c->type != ColumnType::kDateTime && c->type != ColumnType::kTimestamp) return invalid();
    uint32_t fsp = 0;
    if (!e.args.empty()) {
      Result<sql::Value> a = eval_default(*e.args[0]);
      if (!a.ok()) return a.status();
      fsp = static_cast<uint32_t>(a->ToInt());
    }
    if (fsp != c->fsp) return invalid();
    c->default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
    c->default_value.clear();
    return Status::OK();
  }
  Result<sql::Value> value = eval_default(e);
  if (!value.ok()) return value.status();
  if (value->is_null()) {
    if (!c->nullable) return invalid();
    c->default_kind = ColumnDef::DefaultKind::kNull;
    c->default_value.clear();
    return Status::OK();
  }
  if ((storage::IsBlobOrText(c->type) || c->type == ColumnType::kJson) && e.kind == sql::ExprKind::kLiteral) {
    return MakeError(kBlobCantHaveDefault, c->name);
  }
  AssignContext strict;
  strict.strict = true;
  Result<RowValue> stored = ToColumnValue(*c, *value, strict);
  if (!stored.ok()) return invalid();
  std::optional<std::string> text = ColumnText(*c, *stored);
  if (!text) return invalid();
  c->default_kind = ColumnDef::DefaultKind::kValue;
  c->default_value = std::move(*text);
  return Status::OK();
}

Status ApplyTableCharset(std::string_view charset, std::string_view collation, storage::TableOptions* options) {
  if (charset.empty() && collation.empty()) return Status::OK();
  std::string cs;
  if (!charset.empty()) {
    cs = CanonicalCharset(charset);
    if (cs.empty()) return MakeError(er::kUnknownCharacterSet, charset);
  }
  std::string col;
  if (!collation.empty()) {
    std::optional<CollationName> found = FindCollation(collation);
    if (!found) return MakeError(er::kUnknownCollation, collation);
    if (cs.empty()) cs = std::string(found->charset);
    if (found->charset != cs) return MakeError(kCollationCharsetMismatch, collation, charset);
    col = std::string(found->name);
  } else {
    col = DefaultCollation(cs);
  }
  options->charset = std::move(cs);
  options->collation = std::move(col);
  return Status::OK();
}

// ---------------------------------------------------------------- keys

Result<storage::IndexDef> IndexFromSpec(const sql::IndexSpec& spec) {
  if (spec.kind == sql::IndexSpec::Kind::kFulltext || spec.kind == sql::IndexSpec::Kind::kSpatial) {
    return MakeError(er::kNotSupportedYet, "FULLTEXT and SPATIAL indexes");
  }
  storage::IndexDef idx;
  idx.kind = spec.kind == sql::IndexSpec::Kind::kPrimary ? storage::IndexKind::kClustered
                                                        : storage::IndexKind::kSecondary;
  idx.unique = spec.kind != sql::IndexSpec::Kind::kKey;
  idx.name = idx.kind == storage::IndexKind::kClustered ? std::string(storage::kPrimaryKeyName) : spec.name;
  for (const sql::IndexPartSpec& p : spec.parts) {
    idx.parts.push_back(storage::KeyPart{p.column, 0, static_cast<uint32_t>(p.prefix_length), p.desc});
  }
  return idx;
}

std::string UnusedKeyName(std::string_view base, const std::vector<storage::IndexDef>& keys) {
  auto taken = [&](std::string_view name) {
    if (sql::EqualsIgnoreCase(name, storage::kPrimaryKeyName)) return true;
    return std::any_of(keys.begin(), keys.end(),
                       [&](const storage::IndexDef& k) { return sql::EqualsIgnoreCase(k.name, name); });
  };
  std::string name(base);
  for (int n = 2; taken(name); ++n) name = std::string(base) + "_" + std::to_string(n);
  return name;
}

// ---------------------------------------------------------------- SHOW CREATE TABLE

std::string ColumnTypeText(const ColumnDef& c) {
  std::string out;
  switch (c.type) {
    case ColumnType::kTinyInt: out = c.length == 1 ? "tinyint(1)" : "tinyint"; break;
    case ColumnType::kSmallInt: out = "smallint"; break;
    case ColumnType::kMediumInt: out = "mediumint"; break;
    case ColumnType::kInt: out = "int"; break;
    case ColumnType::kBigInt: out = "bigint"; break;
    case ColumnType::kDecimal:
      out = "decimal(" + std::to_string(Precision(c)) + "," + std::to_string(c.scale) + ")";
      break;
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      out = c.type == ColumnType::kFloat ? "float" : "double";
      if (HasFloatScale(c)) out += "(" + std::to_string(c.precision) + "," + std::to_string(c.scale) + ")";
      break;
    case ColumnType::kChar: out = "char(" + std::to_string(c.length) + ")"; break;
    case ColumnType::kVarChar: out = "varchar(" + std::to_string(c.length) + ")"; break;
    case ColumnType::kBinary: out = "binary(" + std::to_string(c.length) + ")"; break;
    case ColumnType::kVarBinary: out = "varbinary(" + std::to_string(c.length) + ")"; break;
    case ColumnType::kTinyText: out = "tinytext"; break;
    case ColumnType::kText: out = "text"; break;
    case ColumnType::kMediumText: out = "mediumtext"; break;
    case ColumnType::kLongText: out = "longtext"; break;
    case ColumnType::kTinyBlob: out = "tinyblob"; break;
    case ColumnType::kBlob: out = "blob"; break;
    case ColumnType::kMediumBlob: out = "mediumblob"; break;
    case ColumnType::kLongBlob: out = "longblob"; break;
    case ColumnType::kDate: out = "date"; break;
    case ColumnType::kTime: out = "time"; break;
    case ColumnType::kDateTime: out = "datetime"; break;
    case ColumnType::kTimestamp: out = "timestamp"; break;
    case ColumnType::kYear: out = "year"; break;
    case ColumnType::kJson: out = "json"; break;
    case ColumnType::kEnum: {
      out = "enum(";
      for (size_t i = 0; i < c.enum_values.size(); ++i) {
        if (i > 0) out += ",";
        out += Quoted(c.enum_values[i]);
      }
      out += ")";
      break;
    }
  }
  if ((c.type == ColumnType::kTime || c.type == ColumnType::kDateTime || c.type == ColumnType::kTimestamp) &&
      c.fsp > 0) {
    out += "(" + std::to_string(c.fsp) + ")";
  }
  if (c.is_unsigned && (storage::IsIntegerType(c.type) || c.type == ColumnType::kDecimal ||
                        c.type == ColumnType::kFloat || c.type == ColumnType::kDouble)) {
    out += " unsigned";
  }
  return out;
}

std::string ColumnDefaultClause(const ColumnDef& c) {
  switch (c.default_kind) {
    case ColumnDef::DefaultKind::kValue:
      return "DEFAULT " + Quoted(c.default_value);
    case ColumnDef::DefaultKind::kCurrentTimestamp:
      return c.fsp > 0 ? "DEFAULT CURRENT_TIMESTAMP(" + std::to_string(c.fsp) + ")" : "DEFAULT CURRENT_TIMESTAMP";
    case ColumnDef::DefaultKind::kNull:
    case ColumnDef::DefaultKind::kNone:
      // A nullable column defaults to NULL (not printed for BLOB/TEXT, nor
      // for AUTO_INCREMENT).
      if (!c.nullable || c.auto_increment || storage::IsBlobOrText(c.type) || c.type == ColumnType::kJson) return "";
      return "DEFAULT NULL";
  }
  return "";
}

std::string ColumnExtra(const ColumnDef& c) {
  if (c.generated()) return c.generated_stored ? "STORED GENERATED" : "VIRTUAL GENERATED";
  std::string extra = c.auto_increment ? "auto_increment" : "";
  if (c.default_kind == ColumnDef::DefaultKind::kCurrentTimestamp) extra = "DEFAULT_GENERATED";
  if (c.on_update_current_timestamp) {
    if (!extra.empty()) extra += ' ';
    extra += c.fsp ? fmt::format("on update CURRENT_TIMESTAMP({})", c.fsp) : "on update CURRENT_TIMESTAMP";
  }
  return extra;
}

Result<RowValue> CurrentTimestampValue(const ColumnDef& c, AssignContext& cx,
                                       std::chrono::system_clock::time_point statement_time) {
  RowValue out;
  if (c.type == ColumnType::kTimestamp) {
    out = std::chrono::duration_cast<std::chrono::microseconds>(statement_time.time_since_epoch()).count();
  } else {
    sql::DateTime dt = sql::FromTimePoint(statement_time, /*utc=*/false);
    out = storage::PackDateTime(dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.micro);
  }
  // CheckColumnValue truncates the fraction to the column's fsp (NOW(fsp)).
  SLUICE_RETURN_IF_ERROR(storage::CheckColumnValue(c, &out, cx.row_number));
  return out;
}

Status ApplyOnUpdateNow(const storage::TableDef& def, const storage::Row& before, const ColumnFlags& assigned,
                        storage::Row* updated, AssignContext& cx,
                        std::chrono::system_clock::time_point statement_time) {
  // Whether the row changed is asked only of a table with such a column
  // left unassigned: every other UPDATE pays no extra row comparison.
  std::optional<bool> changed;
  for (const ColumnDef& c : def.columns) {
    if (!c.on_update_current_timestamp || (c.ordinal < assigned.size() && assigned[c.ordinal])) continue;
    if (!changed) changed = !std::equal(before.begin(), before.begin() + def.columns.size(), updated->begin());
    if (!*changed) return Status::OK();
    Result<RowValue> now = CurrentTimestampValue(c, cx, statement_time);
    if (!now.ok()) return now.status();
    (*updated)[c.ordinal] = std::move(now).value();
  }
  return Status::OK();
}

Result<RowValue> ColumnDefault(const ColumnDef& c, AssignContext& cx,
                               std::chrono::system_clock::time_point statement_time) {
  switch (c.default_kind) {
    case ColumnDef::DefaultKind::kValue: {
      AssignContext quiet;
      quiet.strict = true;
      quiet.row_number = cx.row_number;
      return ToColumnValue(c, sql::Value::String(c.default_value, storage::IsBinaryType(c.type)), quiet);
    }
    case ColumnDef::DefaultKind::kNull:
      return RowValue();
    case ColumnDef::DefaultKind::kCurrentTimestamp:
      return CurrentTimestampValue(c, cx, statement_time);
    case ColumnDef::DefaultKind::kNone:
      break;
  }
  // AUTO_INCREMENT columns: NULL asks the caller for the next value.
  if (c.nullable || c.auto_increment) return RowValue();
  Status err = MakeError(kNoDefaultForField, c.name);
  if (cx.strict) return err;
  std::optional<RowValue> def = ImplicitDefault(c);
  if (!def) return err;  // the zero date: the engine cannot store it
  Note(cx, err);
  return *def;
}

}  // namespace sluice::exec
