#include "storage/catalog/row_codec.h"

#include <cfloat>
#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "base/collation.h"
#include "base/mysql_error.h"
#include "storage/btree/key_codec.h"

namespace sluice::storage {

namespace {

using i128 = __int128;

constexpr int64_t kMaxTimeMicros = ((838LL * 60 + 59) * 60 + 59) * 1000000LL + 999999;
constexpr int64_t kTimeBias = int64_t{1} << 47;  // TIME stored as value + bias in 6 bytes
constexpr int64_t kMaxTimestampMicros = 2147483647LL * 1000000LL + 999999;


uint64_t MaxBytes(const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kTinyText: case ColumnType::kTinyBlob: return 255;
    case ColumnType::kText: case ColumnType::kBlob: return 65535;
    case ColumnType::kMediumText: case ColumnType::kMediumBlob: return (1u << 24) - 1;
    case ColumnType::kLongText: case ColumnType::kLongBlob: case ColumnType::kJson: return 0xFFFFFFFFull;
    default: return c.length;  // BINARY/VARBINARY
  }
}

bool SingleByteCharset(std::string_view cs) {
  return cs == "latin1" || cs == "ascii" || cs == "binary";
}

// Characters in `s` (UTF-8 unless the charset is single-byte).
size_t CharCount(const ColumnDef& c, std::string_view s) {
  if (SingleByteCharset(c.charset)) return s.size();
  size_t n = 0;
  for (unsigned char b : s) n += (b & 0xC0) != 0x80;
  return n;
}

}  // namespace

std::string_view CharPrefix(const ColumnDef& c, std::string_view s, size_t chars) {
  if (SingleByteCharset(c.charset) || IsBinaryType(c.type)) return s.substr(0, std::min(s.size(), chars));
  size_t seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (seen == chars) return s.substr(0, i);
      ++seen;
    }
  }
  return s;
}

namespace {

std::string_view StripTrailingSpaces(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

Status OutOfRange(const ColumnDef& c, uint64_t row) {
  return MakeError(er::kWarnDataOutOfRange, c.name, row);
}
Status TooLong(const ColumnDef& c, uint64_t row) { return MakeError(er::kDataTooLong, c.name, row); }
Status WrongKind(const ColumnDef& c) {
  return Status::InvalidArgument("row codec: wrong value kind for " + std::string(ColumnTypeName(c.type)) +
                                 " column '" + c.name + "'");
}

// Integer value of an int64/uint64 alternative.
bool AsInt(const RowValue& v, i128* out) {
  if (auto* p = std::get_if<int64_t>(&v)) { *out = *p; return true; }
  if (auto* p = std::get_if<uint64_t>(&v)) { *out = *p; return true; }
  return false;
}

void PutLE(std::string* out, uint64_t v, size_t width) {
  for (size_t i = 0; i < width; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

class Reader {
 public:
  explicit Reader(std::string_view s) : rest_(s) {}
  bool LE(size_t width, uint64_t* v) {
    if (rest_.size() < width) return false;
    *v = 0;
    for (size_t i = 0; i < width; ++i) *v |= uint64_t{static_cast<unsigned char>(rest_[i])} << (8 * i);
    rest_.remove_prefix(width);
    return true;
  }
  bool Bytes(size_t n, std::string_view* out) {
    if (rest_.size() < n) return false;
    *out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return true;
  }
  bool Varint(uint64_t* v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (rest_.empty()) return false;
      const auto b = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      *v |= uint64_t{b & 0x7Fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool done() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

size_t DecimalBytes(uint32_t precision) { return 1 + (precision + 1) / 2; }

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
  return kDays[m - 1];
}

bool ValidDateParts(const DateTimeParts& p) {
  return p.year >= 1000 && p.year <= 9999 && p.month >= 1 && p.month <= 12 && p.day >= 1 &&
         p.day <= DaysInMonth(p.year, p.month);
}

int64_t TruncateMicros(int64_t micros_field, uint32_t fsp) {
  int64_t unit = 1;
  for (uint32_t i = fsp; i < 6; ++i) unit *= 10;
  return micros_field - micros_field % unit;
}

// The collation a text column's key parts sort by (its own, else its
// charset's default); binary strings and unknown names: bytes.
base::Collation KeyCollation(const ColumnDef& c) {
  if (!IsTextType(c.type)) return base::Collation::kBinary;
  if (!c.collation.empty()) return base::CollationFromName(c.collation).value_or(base::Collation::kBinary);
  if (c.charset.empty() || c.charset == "utf8mb4") return base::kDefaultCollation;
  if (c.charset == "binary") return base::Collation::kBinary;
  return base::Collation::kGeneralCi;  // latin1_swedish_ci, ascii_general_ci, utf8mb3_general_ci, ...
}

// Appends one key part's component (with the NULL marker when nullable).
Status AppendKeyPart(const ColumnDef& c, const KeyPart& part, uint32_t key_format, const RowValue& v,
                     std::string* key) {
  KeyEncoder e;
  std::string raw;  // DECIMAL bytes, appended after the encoder's
  if (c.nullable) {
    if (IsNull(v)) {
      e.Null();
    } else {
      e.NotNull();
    }
  } else if (IsNull(v)) {
    return MakeError(er::kBadNull, c.name);
  }
  if (!IsNull(v)) {
    i128 iv = 0;
    switch (c.type) {
      case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
      case ColumnType::kInt: case ColumnType::kBigInt: {
        if (!AsInt(v, &iv)) return WrongKind(c);
        i128 lo, hi;
        IntRange(c, &lo, &hi);
        if (iv < lo || iv > hi) return OutOfRange(c, 1);
        if (c.is_unsigned) {
          e.Uint(static_cast<uint64_t>(iv), IntWidth(c.type));
        } else {
          e.Int(static_cast<int64_t>(iv), IntWidth(c.type));
        }
        break;
      }
      case ColumnType::kFloat: case ColumnType::kDouble: {
        auto* d = std::get_if<double>(&v);
        if (d == nullptr) return WrongKind(c);
        double x = c.type == ColumnType::kFloat ? static_cast<double>(static_cast<float>(*d)) : *d;
        e.Double(x == 0 ? 0.0 : x);  // -0 == 0
        break;
      }
      case ColumnType::kDecimal: {
        auto* s = std::get_if<std::string>(&v);
        if (s == nullptr) return WrongKind(c);
        Result<std::string> bytes = EncodeDecimal(*s, c.precision, c.scale, c.name);
        if (!bytes.ok()) return bytes.status();
        raw = std::move(*bytes);
        break;
      }
      case ColumnType::kDate: case ColumnType::kTime: case ColumnType::kDateTime:
      case ColumnType::kTimestamp: {
        auto* p = std::get_if<int64_t>(&v);
        if (p == nullptr) return WrongKind(c);
        e.Int(*p, 8);
        break;
      }
      case ColumnType::kYear: {
        if (!AsInt(v, &iv)) return WrongKind(c);
        if (iv != 0 && (iv < 1901 || iv > 2155)) return OutOfRange(c, 1);
        e.Uint(iv == 0 ? 0 : static_cast<uint64_t>(iv - 1900), 1);
        break;
      }
      case ColumnType::kEnum: {
        if (!AsInt(v, &iv) || iv < 0 || iv > 65535) return WrongKind(c);
        e.Uint(static_cast<uint64_t>(iv), 2);
        break;
      }
      default: {  // strings
        auto* s = std::get_if<std::string>(&v);
        if (s == nullptr) return WrongKind(c);
        std::string_view sv = *s;
        if (key_format == kKeyFormatBytes) {
          if (c.type == ColumnType::kChar || c.type == ColumnType::kVarChar) sv = StripTrailingSpaces(sv);
          if (part.prefix_length != 0) sv = CharPrefix(c, sv, part.prefix_length);
          e.String(sv);
          break;
        }
        // The prefix first (a prefix index keeps characters), then the
        // collation's sort key: equal under the collation is equal as keys,
        // and PAD SPACE collations drop trailing spaces inside SortKey.
        if (part.prefix_length != 0) sv = CharPrefix(c, sv, part.prefix_length);
        if (c.type == ColumnType::kChar) sv = StripTrailingSpaces(sv);  // CHAR never keeps them
        e.String(base::SortKey(sv, KeyCollation(c)));
        break;
      }
    }
  }
  std::string component = e.Release() + raw;
  if (part.desc) {
    for (char& ch : component) ch = static_cast<char>(~static_cast<unsigned char>(ch));
  }
  *key += component;
  return Status::OK();
}

}  // namespace

size_t IntWidth(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyInt: return 1;
    case ColumnType::kSmallInt: return 2;
    case ColumnType::kMediumInt: return 3;
    case ColumnType::kInt: return 4;
    default: return 8;
  }
}

void IntRange(const ColumnDef& c, __int128* lo, __int128* hi) {
  const int bits = static_cast<int>(IntWidth(c.type)) * 8;
  if (c.is_unsigned) {
    *lo = 0;
    *hi = (i128{1} << bits) - 1;
  } else {
    *lo = -(i128{1} << (bits - 1));
    *hi = (i128{1} << (bits - 1)) - 1;
  }
}

// ---- temporals ----

int64_t PackDate(int year, int month, int day) { return (int64_t{year} * 13 + month) * 32 + day; }

int64_t PackDateTime(int year, int month, int day, int hour, int minute, int second, int micros) {
  return ((PackDate(year, month, day) * 24 + hour) * 60 + minute) * 60 * 1000000LL +
         int64_t{second} * 1000000LL + micros;
}

int64_t PackTime(bool negative, int hours, int minutes, int seconds, int micros) {
  const int64_t v = ((int64_t{hours} * 60 + minutes) * 60 + seconds) * 1000000LL + micros;
  return negative ? -v : v;
}

DateTimeParts UnpackDate(int64_t packed) {
  DateTimeParts p;
  p.day = static_cast<int>(packed % 32);
  packed /= 32;
  p.month = static_cast<int>(packed % 13);
  p.year = static_cast<int>(packed / 13);
  return p;
}

DateTimeParts UnpackDateTime(int64_t packed) {
  const int64_t micros = packed % 1000000LL;
  int64_t secs = packed / 1000000LL;
  DateTimeParts p = UnpackDate(secs / 86400);
  secs %= 86400;
  p.hour = static_cast<int>(secs / 3600);
  p.minute = static_cast<int>(secs / 60 % 60);
  p.second = static_cast<int>(secs % 60);
  p.micros = static_cast<int>(micros);
  return p;
}

DateTimeParts UnpackTime(int64_t packed) {
  DateTimeParts p;
  p.negative = packed < 0;
  const int64_t v = p.negative ? -packed : packed;
  p.micros = static_cast<int>(v % 1000000LL);
  const int64_t secs = v / 1000000LL;
  p.hour = static_cast<int>(secs / 3600);
  p.minute = static_cast<int>(secs / 60 % 60);
  p.second = static_cast<int>(secs % 60);
  return p;
}

// ---- DECIMAL ----

Result<std::string> EncodeDecimal(std::string_view text, uint32_t precision, uint32_t scale,
                                  std::string_view column_name, uint64_t row_number) {
  auto bad = [&] {
    return Status(MakeError(er::kWarnDataOutOfRange, column_name, row_number));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  std::string_view int_part = s.substr(0, dot);
  std::string_view frac_part = dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1);
  if (int_part.empty() && frac_part.empty()) return bad();
  for (char ch : int_part) if (ch < '0' || ch > '9') return bad();
  for (char ch : frac_part) if (ch < '0' || ch > '9') return bad();
  while (!int_part.empty() && int_part.front() == '0') int_part.remove_prefix(1);
  // Digits: integer part, then `scale` fraction digits (rounded).
  std::string digits(int_part);
  digits += std::string(frac_part.substr(0, std::min<size_t>(frac_part.size(), scale)));
  digits.append(scale - std::min<size_t>(frac_part.size(), scale), '0');
  if (frac_part.size() > scale && frac_part[scale] >= '5') {
    size_t i = digits.size();
    while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
    if (i == 0) {
      digits.insert(digits.begin(), '1');
    } else {
      ++digits[i - 1];
    }
  }
  if (digits.size() > precision) {
    // Leading zeros of a short integer part are fine; a real overflow is not.
    size_t extra = digits.size() - precision;
    for (size_t i = 0; i < extra; ++i) if (digits[i] != '0') return bad();
    digits.erase(0, extra);
  }
  digits.insert(0, precision - digits.size(), '0');
  if (precision % 2 == 1) digits.insert(digits.begin(), '0');
  if (digits.find_first_not_of('0') == std::string::npos) negative = false;  // -0 is 0
  std::string out;
  out.reserve(DecimalBytes(precision));
  out.push_back(negative ? '\x00' : '\x01');
  for (size_t i = 0; i < digits.size(); i += 2) {
    int hi = digits[i] - '0';
    int lo = digits[i + 1] - '0';
    if (negative) {
      hi = 9 - hi;
      lo = 9 - lo;
    }
    out.push_back(static_cast<char>((hi << 4) | lo));
  }
  return out;
}

Result<std::string> DecodeDecimal(std::string_view bytes, uint32_t precision, uint32_t scale) {
  if (bytes.size() != DecimalBytes(precision) || static_cast<unsigned char>(bytes[0]) > 1) {
    return Status::Corruption("row codec: bad DECIMAL bytes");
  }
  const bool negative = bytes[0] == 0;
  std::string digits;
  for (size_t i = 1; i < bytes.size(); ++i) {
    int hi = static_cast<unsigned char>(bytes[i]) >> 4;
    int lo = static_cast<unsigned char>(bytes[i]) & 0xF;
    if (negative) {
      hi = 9 - hi;
      lo = 9 - lo;
    }
    if (hi > 9 || lo > 9 || hi < 0 || lo < 0) return Status::Corruption("row codec: bad DECIMAL digit");
    digits.push_back(static_cast<char>('0' + hi));
    digits.push_back(static_cast<char>('0' + lo));
  }
  if (precision % 2 == 1) digits.erase(0, 1);
  std::string int_part = digits.substr(0, precision - scale);
  const std::string frac_part = digits.substr(precision - scale);
  const size_t nz = int_part.find_first_not_of('0');
  int_part = nz == std::string::npos ? "0" : int_part.substr(nz);
  std::string out = negative ? "-" : "";
  out += int_part;
  if (scale > 0) out += "." + frac_part;
  return out;
}

// ---- checks ----

Status CheckColumnValue(const ColumnDef& c, RowValue* v, uint64_t row) {
  if (IsNull(*v)) {
    if (!c.nullable) return MakeError(er::kBadNull, c.name);
    return Status::OK();
  }
  i128 iv = 0;
  switch (c.type) {
    case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
    case ColumnType::kInt: case ColumnType::kBigInt: {
      if (!AsInt(*v, &iv)) return WrongKind(c);
      i128 lo, hi;
      IntRange(c, &lo, &hi);
      if (iv < lo || iv > hi) return OutOfRange(c, row);
      if (c.is_unsigned) {
        *v = static_cast<uint64_t>(iv);
      } else {
        *v = static_cast<int64_t>(iv);
      }
      return Status::OK();
    }
    case ColumnType::kFloat: case ColumnType::kDouble: {
      auto* d = std::get_if<double>(v);
      if (d == nullptr) return WrongKind(c);
      const double limit = c.type == ColumnType::kFloat ? FLT_MAX : DBL_MAX;
      if (!std::isfinite(*d) || std::fabs(*d) > limit) return OutOfRange(c, row);
      if (c.is_unsigned && *d < 0) return OutOfRange(c, row);
      return Status::OK();
    }
    case ColumnType::kDecimal: {
      auto* s = std::get_if<std::string>(v);
      if (s == nullptr) return WrongKind(c);
      Result<std::string> bytes = EncodeDecimal(*s, c.precision, c.scale, c.name, row);
      if (!bytes.ok()) return bytes.status();
      Result<std::string> canonical = DecodeDecimal(*bytes, c.precision, c.scale);
      if (!canonical.ok()) return canonical.status();
      if (c.is_unsigned && !canonical->empty() && (*canonical)[0] == '-') return OutOfRange(c, row);
      *s = std::move(*canonical);
      return Status::OK();
    }
    case ColumnType::kDate: case ColumnType::kDateTime: {
      auto* p = std::get_if<int64_t>(v);
      if (p == nullptr) return WrongKind(c);
      if (*p < 0) return OutOfRange(c, row);
      DateTimeParts parts = c.type == ColumnType::kDate ? UnpackDate(*p) : UnpackDateTime(*p);
      if (!ValidDateParts(parts)) return OutOfRange(c, row);
      if (c.type == ColumnType::kDateTime) *p -= parts.micros - TruncateMicros(parts.micros, c.fsp);
      return Status::OK();
    }
    case ColumnType::kTime: {
      auto* p = std::get_if<int64_t>(v);
      if (p == nullptr) return WrongKind(c);
      if (*p > kMaxTimeMicros || *p < -kMaxTimeMicros) return OutOfRange(c, row);
      const int64_t mag = *p < 0 ? -*p : *p;
      const int64_t micros = mag % 1000000LL;
      const int64_t t = mag - micros + TruncateMicros(micros, c.fsp);
      *p = *p < 0 ? -t : t;
      return Status::OK();
    }
    case ColumnType::kTimestamp: {
      auto* p = std::get_if<int64_t>(v);
      if (p == nullptr) return WrongKind(c);
      if (*p < 1000000LL || *p > kMaxTimestampMicros) return OutOfRange(c, row);
      *p -= (*p % 1000000LL) - TruncateMicros(*p % 1000000LL, c.fsp);
      return Status::OK();
    }
    case ColumnType::kYear: {
      if (!AsInt(*v, &iv)) return WrongKind(c);
      if (iv != 0 && (iv < 1901 || iv > 2155)) return OutOfRange(c, row);
      *v = static_cast<uint64_t>(iv);
      return Status::OK();
    }
    case ColumnType::kEnum: {
      if (!AsInt(*v, &iv)) return WrongKind(c);
      // 0 is MySQL's '' error value, which strict mode rejects.
      if (iv < 1 || iv > static_cast<i128>(c.enum_values.size())) {
        return MakeError(er::kTruncatedWrongValueForField, "enum", std::to_string(static_cast<int64_t>(iv)),
                         c.name, row);
      }
      *v = static_cast<uint64_t>(iv);
      return Status::OK();
    }
    default:
      break;
  }
  auto* s = std::get_if<std::string>(v);
  if (s == nullptr) return WrongKind(c);
  if (c.type == ColumnType::kChar || c.type == ColumnType::kVarChar) {
    if (c.type == ColumnType::kChar) s->resize(StripTrailingSpaces(*s).size());
    if (CharCount(c, *s) > c.length) {
      // Excess trailing spaces are cut (a note in MySQL), anything else fails.
      std::string_view kept = CharPrefix(c, *s, c.length);
      if (std::string_view(*s).substr(kept.size()).find_first_not_of(' ') != std::string_view::npos) {
        return TooLong(c, row);
      }
      s->resize(kept.size());
    }
    return Status::OK();
  }
  if (s->size() > MaxBytes(c)) return TooLong(c, row);
  return Status::OK();
}

Status CheckRow(const TableDef& table, Row* row, uint64_t row_number) {
  if (row->size() != table.columns.size()) {
    return Status::InvalidArgument("row codec: row has " + std::to_string(row->size()) + " values for " +
                                   std::to_string(table.columns.size()) + " columns");
  }
  for (size_t i = 0; i < row->size(); ++i) {
    SLUICE_RETURN_IF_ERROR(CheckColumnValue(table.columns[i], &(*row)[i], row_number));
  }
  return Status::OK();
}

// ---- records ----

Result<std::string> EncodeRow(const TableDef& table, const Row& row) {
  if (row.size() != table.columns.size()) {
    return Status::InvalidArgument("row codec: row size does not match the table");
  }
  size_t nullable = 0;
  for (const ColumnDef& c : table.columns) nullable += c.nullable;
  std::string out((nullable + 7) / 8, '\0');
  size_t null_bit = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    const ColumnDef& c = table.columns[i];
    const RowValue& v = row[i];
    if (c.nullable) {
      const size_t bit = null_bit++;
      if (IsNull(v)) {
        out[bit / 8] = static_cast<char>(out[bit / 8] | (1 << (bit % 8)));
        continue;
      }
    } else if (IsNull(v)) {
      return MakeError(er::kBadNull, c.name);
    }
    i128 iv = 0;
    switch (c.type) {
      case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
      case ColumnType::kInt: case ColumnType::kBigInt: {
        if (!AsInt(v, &iv)) return WrongKind(c);
        i128 lo, hi;
        IntRange(c, &lo, &hi);
        if (iv < lo || iv > hi) return OutOfRange(c, 1);
        PutLE(&out, static_cast<uint64_t>(iv), IntWidth(c.type));
        break;
      }
      case ColumnType::kFloat: {
        auto* d = std::get_if<double>(&v);
        if (d == nullptr) return WrongKind(c);
        const float f = static_cast<float>(*d);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        PutLE(&out, bits, 4);
        break;
      }
      case ColumnType::kDouble: {
        auto* d = std::get_if<double>(&v);
        if (d == nullptr) return WrongKind(c);
        uint64_t bits;
        std::memcpy(&bits, d, 8);
        PutLE(&out, bits, 8);
        break;
      }
      case ColumnType::kDecimal: {
        auto* s = std::get_if<std::string>(&v);
        if (s == nullptr) return WrongKind(c);
        Result<std::string> bytes = EncodeDecimal(*s, c.precision, c.scale, c.name);
        if (!bytes.ok()) return bytes.status();
        out += *bytes;
        break;
      }
      case ColumnType::kDate: case ColumnType::kTime: case ColumnType::kDateTime:
      case ColumnType::kTimestamp: {
        auto* p = std::get_if<int64_t>(&v);
        if (p == nullptr) return WrongKind(c);
        if (c.type == ColumnType::kDate) {
          if (*p < 0 || *p >= (1 << 24)) return OutOfRange(c, 1);
          PutLE(&out, static_cast<uint64_t>(*p), 3);
        } else if (c.type == ColumnType::kTime) {
          if (*p > kMaxTimeMicros || *p < -kMaxTimeMicros) return OutOfRange(c, 1);
          PutLE(&out, static_cast<uint64_t>(*p + kTimeBias), 6);
        } else {
          PutLE(&out, static_cast<uint64_t>(*p), 8);
        }
        break;
      }
      case ColumnType::kYear: {
        if (!AsInt(v, &iv) || (iv != 0 && (iv < 1901 || iv > 2155))) return OutOfRange(c, 1);
        PutLE(&out, iv == 0 ? 0 : static_cast<uint64_t>(iv - 1900), 1);
        break;
      }
      case ColumnType::kEnum: {
        if (!AsInt(v, &iv) || iv < 0 || iv > 65535) return OutOfRange(c, 1);
        PutLE(&out, static_cast<uint64_t>(iv), 2);
        break;
      }
      case ColumnType::kBinary: {
        auto* s = std::get_if<std::string>(&v);
        if (s == nullptr) return WrongKind(c);
        if (s->size() > c.length) return TooLong(c, 1);
        out += *s;
        out.append(c.length - s->size(), '\0');
        break;
      }
      default: {
        auto* s = std::get_if<std::string>(&v);
        if (s == nullptr) return WrongKind(c);
        std::string_view sv = *s;
        if (c.type == ColumnType::kChar) sv = StripTrailingSpaces(sv);
        PutVarint(&out, sv.size());
        out += sv;
        break;
      }
    }
  }
  return out;
}

Result<Row> DecodeRow(const TableDef& table, std::string_view record) {
  Row row;
  SLUICE_RETURN_IF_ERROR(DecodeRowInto(table, record, &row));
  return row;
}

Status DecodeRowInto(const TableDef& table, std::string_view record, Row* out) {
  size_t nullable = 0;
  for (const ColumnDef& c : table.columns) nullable += c.nullable;
  const size_t bitmap_bytes = (nullable + 7) / 8;
  if (record.size() < bitmap_bytes) return Status::Corruption("row codec: record too short");
  std::string_view bitmap = record.substr(0, bitmap_bytes);
  Reader r(record.substr(bitmap_bytes));
  Row& row = *out;
  row.resize(table.columns.size());
  size_t col = 0;
  // A string column keeps its buffer from the row decoded into `out` before.
  auto set_bytes = [&](std::string_view b) {
    if (auto* s = std::get_if<std::string>(&row[col])) {
      s->assign(b);
    } else {
      row[col].emplace<std::string>(b);
    }
  };
  size_t null_bit = 0;
  auto corrupt = [](const ColumnDef& c) {
    return Status::Corruption("row codec: record truncated at column '" + c.name + "'");
  };
  for (; col < table.columns.size(); ++col) {
    const ColumnDef& c = table.columns[col];
    if (c.nullable) {
      const size_t bit = null_bit++;
      if (static_cast<unsigned char>(bitmap[bit / 8]) & (1 << (bit % 8))) {
        row[col] = std::monostate{};
        continue;
      }
    }
    uint64_t u = 0;
    std::string_view bytes;
    switch (c.type) {
      case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
      case ColumnType::kInt: case ColumnType::kBigInt: {
        const size_t w = IntWidth(c.type);
        if (!r.LE(w, &u)) return corrupt(c);
        if (c.is_unsigned) {
          row[col] = RowValue(u);
        } else {
          // Sign-extend from w bytes.
          const int shift = static_cast<int>(64 - 8 * w);
          row[col] = RowValue(static_cast<int64_t>(u << shift) >> shift);
        }
        break;
      }
      case ColumnType::kFloat: {
        if (!r.LE(4, &u)) return corrupt(c);
        const auto bits = static_cast<uint32_t>(u);
        float f;
        std::memcpy(&f, &bits, 4);
        row[col] = RowValue(static_cast<double>(f));
        break;
      }
      case ColumnType::kDouble: {
        if (!r.LE(8, &u)) return corrupt(c);
        double d;
        std::memcpy(&d, &u, 8);
        row[col] = RowValue(d);
        break;
      }
      case ColumnType::kDecimal: {
        if (!r.Bytes(DecimalBytes(c.precision), &bytes)) return corrupt(c);
        Result<std::string> text = DecodeDecimal(bytes, c.precision, c.scale);
        if (!text.ok()) return text.status();
        row[col] = std::move(*text);
        break;
      }
      case ColumnType::kDate:
        if (!r.LE(3, &u)) return corrupt(c);
        row[col] = RowValue(static_cast<int64_t>(u));
        break;
      case ColumnType::kTime:
        if (!r.LE(6, &u)) return corrupt(c);
        row[col] = RowValue(static_cast<int64_t>(u) - kTimeBias);
        break;
      case ColumnType::kDateTime: case ColumnType::kTimestamp:
        if (!r.LE(8, &u)) return corrupt(c);
        row[col] = RowValue(static_cast<int64_t>(u));
        break;
      case ColumnType::kYear:
        if (!r.LE(1, &u)) return corrupt(c);
        row[col] = RowValue(u == 0 ? uint64_t{0} : u + 1900);
        break;
      case ColumnType::kEnum:
        if (!r.LE(2, &u)) return corrupt(c);
        row[col] = RowValue(u);
        break;
      case ColumnType::kBinary:
        if (!r.Bytes(c.length, &bytes)) return corrupt(c);
        set_bytes(bytes);
        break;
      default:
        if (!r.Varint(&u) || !r.Bytes(u, &bytes)) return corrupt(c);
        set_bytes(bytes);
        break;
    }
  }
  if (!r.done()) return Status::Corruption("row codec: trailing bytes in record");
  return Status::OK();
}

// ---- keys ----

Result<std::string> EncodeIndexKey(const TableDef& table, const IndexDef& index, const Row& row) {
  if (row.size() != table.columns.size()) {
    return Status::InvalidArgument("row codec: row size does not match the table");
  }
  std::string key;
  for (const KeyPart& part : index.parts) {
    SLUICE_RETURN_IF_ERROR(
        AppendKeyPart(table.columns[part.column], part, index.key_format, row[part.column], &key));
  }
  return key;
}

Result<std::optional<int64_t>> DecodeLeadingIntKeyPart(const ColumnDef& c, std::string_view key) {
  switch (c.type) {
    case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
    case ColumnType::kInt: case ColumnType::kBigInt:
      break;
    default:
      return Status::InvalidArgument("row codec: " + c.name + " is not an integer column");
  }
  KeyDecoder d(key);
  if (c.nullable) {
    Result<bool> null = d.IsNull();
    if (!null.ok()) return null.status();
    if (*null) return std::optional<int64_t>();
  }
  if (c.is_unsigned) {
    Result<uint64_t> u = d.Uint(IntWidth(c.type));
    if (!u.ok()) return u.status();
    return std::optional<int64_t>(static_cast<int64_t>(std::min<uint64_t>(*u, INT64_MAX)));
  }
  Result<int64_t> i = d.Int(IntWidth(c.type));
  if (!i.ok()) return i.status();
  return std::optional<int64_t>(*i);
}

Result<std::string> EncodeClusteredKey(const TableDef& table, const Row& row, uint64_t row_id) {
  if (table.has_hidden_row_id()) {
    if (row_id >= (uint64_t{1} << 48)) return Status::InvalidArgument("row codec: row id over 2^48");
    return KeyEncoder().RowId(row_id).Release();
  }
  return EncodeIndexKey(table, table.clustered(), row);
}

Result<size_t> IndexKeyLength(const TableDef& table, const IndexDef& index, std::string_view entry) {
  size_t pos = 0;
  auto corrupt = [&index] {
    return Status::Corruption("row codec: index entry too short for index " + index.name);
  };
  for (const KeyPart& part : index.parts) {
    const ColumnDef& c = table.columns[part.column];
    const unsigned char flip = part.desc ? 0xff : 0x00;  // DESC parts are stored inverted
    auto at = [&](size_t i) { return static_cast<unsigned char>(static_cast<unsigned char>(entry[i]) ^ flip); };
    if (c.nullable) {
      if (pos >= entry.size()) return corrupt();
      if (at(pos++) == 0) continue;  // NULL: nothing follows
    }
    size_t width = 0;
    switch (c.type) {
      case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
      case ColumnType::kInt: case ColumnType::kBigInt:
        width = IntWidth(c.type);
        break;
      case ColumnType::kFloat: case ColumnType::kDouble:
      case ColumnType::kDate: case ColumnType::kTime: case ColumnType::kDateTime: case ColumnType::kTimestamp:
        width = 8;
        break;
      case ColumnType::kDecimal:
        width = DecimalBytes(c.precision);
        break;
      case ColumnType::kYear:
        width = 1;
        break;
      case ColumnType::kEnum:
        width = 2;
        break;
      default:  // strings: escaped bytes up to the 0x00 0x01 terminator
        for (;;) {
          if (pos + 1 >= entry.size()) return corrupt();
          const bool escape = at(pos) == 0;
          const unsigned char next = at(pos + 1);
          pos += escape ? 2 : 1;
          if (escape && next == 0x01) break;
        }
        continue;
    }
    if (entry.size() - pos < width) return corrupt();
    pos += width;
  }
  return pos;
}

Result<std::string> EncodeSecondaryEntryKey(const TableDef& table, const IndexDef& index, const Row& row,
                                            uint64_t row_id) {
  Result<std::string> key = EncodeIndexKey(table, index, row);
  if (!key.ok()) return key;
  Result<std::string> pk = EncodeClusteredKey(table, row, row_id);
  if (!pk.ok()) return pk;
  return *key + *pk;
}

}  // namespace sluice::storage
