// Table_map and rows events (v2) for the engine's tables, and their
// decoders. Byte layouts: ../shared/reference/binlog-format.md §10-11.
#include "binlog/row_event.h"

#include <strings.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <utility>

#include <zlib.h>

#include "base/scratch.h"
#include "binlog/bytes_internal.h"
#include "binlog/event_internal.h"

namespace sluice::binlog {

namespace {

using internal::ByteReader;
using internal::LenencSize;
using internal::PutBE;
using internal::PutLE;
using internal::PutLenenc;
using storage::ColumnDef;
using storage::ColumnType;
using storage::RowValue;
using storage::TableDef;

// MySQL's enum_field_types codes.
constexpr uint8_t kMysqlDecimal = 0;
constexpr uint8_t kMysqlTiny = 1;
constexpr uint8_t kMysqlShort = 2;
constexpr uint8_t kMysqlLong = 3;
constexpr uint8_t kMysqlFloat = 4;
constexpr uint8_t kMysqlDouble = 5;
constexpr uint8_t kMysqlTimestamp = 7;
constexpr uint8_t kMysqlLongLong = 8;
constexpr uint8_t kMysqlInt24 = 9;
constexpr uint8_t kMysqlDate = 10;
constexpr uint8_t kMysqlTime = 11;
constexpr uint8_t kMysqlDateTime = 12;
constexpr uint8_t kMysqlYear = 13;
constexpr uint8_t kMysqlNewDate = 14;
constexpr uint8_t kMysqlVarchar = 15;
constexpr uint8_t kMysqlBit = 16;
constexpr uint8_t kMysqlTimestamp2 = 17;
constexpr uint8_t kMysqlDateTime2 = 18;
constexpr uint8_t kMysqlTime2 = 19;
constexpr uint8_t kMysqlJson = 0xF5;
constexpr uint8_t kMysqlNewDecimal = 0xF6;
constexpr uint8_t kMysqlEnum = 0xF7;
constexpr uint8_t kMysqlSet = 0xF8;
constexpr uint8_t kMysqlTinyBlob = 0xF9;
constexpr uint8_t kMysqlMediumBlob = 0xFA;
constexpr uint8_t kMysqlLongBlob = 0xFB;
constexpr uint8_t kMysqlBlob = 0xFC;
constexpr uint8_t kMysqlVarString = 0xFD;
constexpr uint8_t kMysqlString = 0xFE;
constexpr uint8_t kMysqlGeometry = 0xFF;

// Optional metadata field types (binlog_row_metadata).
enum OptionalMetadata : uint8_t {
  kSignedness = 1,
  kDefaultCharset = 2,
  kColumnCharset = 3,
  kColumnName = 4,
  kSetStrValue = 5,
  kEnumStrValue = 6,
  kGeometryType = 7,
  kSimplePrimaryKey = 8,
  kPrimaryKeyWithPrefix = 9,
  kEnumAndSetDefaultCharset = 10,
  kEnumAndSetColumnCharset = 11,
  kColumnVisibility = 12,
};

constexpr uint16_t kBinaryCollation = 63;
constexpr uint32_t kRowsPostHeaderLen = 10;

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

uint32_t MaxBytesPerChar(std::string_view charset) {
  if (EqualsNoCase(charset, "latin1") || EqualsNoCase(charset, "ascii") || EqualsNoCase(charset, "binary")) return 1;
  if (EqualsNoCase(charset, "utf8mb3") || EqualsNoCase(charset, "utf8")) return 3;
  if (EqualsNoCase(charset, "ucs2")) return 2;
  return 4;  // utf8mb4 and anything unknown
}

// The default collation of a character set (MySQL 8.0's defaults).
std::string_view DefaultCollation(std::string_view charset) {
  if (EqualsNoCase(charset, "utf8mb4")) return "utf8mb4_0900_ai_ci";
  if (EqualsNoCase(charset, "utf8mb3") || EqualsNoCase(charset, "utf8")) return "utf8mb3_general_ci";
  if (EqualsNoCase(charset, "latin1")) return "latin1_swedish_ci";
  if (EqualsNoCase(charset, "ascii")) return "ascii_general_ci";
  if (EqualsNoCase(charset, "binary")) return "binary";
  if (EqualsNoCase(charset, "ucs2")) return "ucs2_general_ci";
  return "utf8mb4_0900_ai_ci";
}

std::string_view ColumnCharset(const TableDef& t, const ColumnDef& c) {
  if (storage::IsBinaryType(c.type)) return "binary";
  return c.charset.empty() ? std::string_view(t.options.charset) : std::string_view(c.charset);
}

// The collation id MySQL writes for a character, ENUM or binary column.
uint16_t ColumnCollation(const TableDef& t, const ColumnDef& c) {
  if (storage::IsBinaryType(c.type)) return kBinaryCollation;
  std::string_view cs = ColumnCharset(t, c);
  uint16_t id = 0;
  if (!c.collation.empty()) {
    id = CollationId(c.collation);
  } else if (EqualsNoCase(cs, t.options.charset) && !t.options.collation.empty()) {
    id = CollationId(t.options.collation);
  }
  if (id == 0) id = CollationId(DefaultCollation(cs));
  return id;
}

int BlobPackLength(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyText: case ColumnType::kTinyBlob: return 1;
    case ColumnType::kText: case ColumnType::kBlob: return 2;
    case ColumnType::kMediumText: case ColumnType::kMediumBlob: return 3;
    default: return 4;
  }
}

int EnumPackLength(const ColumnDef& c) { return c.enum_values.size() <= 255 ? 1 : 2; }

// Max bytes of a CHAR/BINARY/VARCHAR/VARBINARY value.
uint32_t StringMaxBytes(const TableDef& t, const ColumnDef& c) {
  if (c.type == ColumnType::kChar || c.type == ColumnType::kVarChar) {
    return c.length * MaxBytesPerChar(ColumnCharset(t, c));
  }
  return c.length;
}

uint32_t DecimalPrecision(const ColumnDef& c) { return c.precision == 0 ? 10 : c.precision; }

// The type code in the Table_map (MySQL's Field::binlog_type()).
uint8_t BinlogType(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyInt: return kMysqlTiny;
    case ColumnType::kSmallInt: return kMysqlShort;
    case ColumnType::kMediumInt: return kMysqlInt24;
    case ColumnType::kInt: return kMysqlLong;
    case ColumnType::kBigInt: return kMysqlLongLong;
    case ColumnType::kDecimal: return kMysqlNewDecimal;
    case ColumnType::kFloat: return kMysqlFloat;
    case ColumnType::kDouble: return kMysqlDouble;
    case ColumnType::kChar: case ColumnType::kBinary: case ColumnType::kEnum: return kMysqlString;
    case ColumnType::kVarChar: case ColumnType::kVarBinary: return kMysqlVarchar;
    case ColumnType::kDate: return kMysqlDate;
    case ColumnType::kTime: return kMysqlTime2;
    case ColumnType::kDateTime: return kMysqlDateTime2;
    case ColumnType::kTimestamp: return kMysqlTimestamp2;
    case ColumnType::kYear: return kMysqlYear;
    case ColumnType::kJson: return kMysqlJson;
    default: return kMysqlBlob;  // *TEXT, *BLOB
  }
}

void AppendColumnMeta(std::string& out, const TableDef& t, const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kDecimal:
      out.push_back(static_cast<char>(DecimalPrecision(c)));
      out.push_back(static_cast<char>(c.scale));
      break;
    case ColumnType::kFloat: out.push_back(4); break;
    case ColumnType::kDouble: out.push_back(8); break;
    case ColumnType::kChar: case ColumnType::kBinary: {
      // Lengths above 255 bytes fold their bits 8-9 into the type byte.
      const uint32_t len = StringMaxBytes(t, c);
      out.push_back(static_cast<char>(kMysqlString ^ ((len & 0x300) >> 4)));
      out.push_back(static_cast<char>(len & 0xff));
      break;
    }
    case ColumnType::kEnum:
      out.push_back(static_cast<char>(kMysqlEnum));
      out.push_back(static_cast<char>(EnumPackLength(c)));
      break;
    case ColumnType::kVarChar: case ColumnType::kVarBinary:
      PutLE(out, StringMaxBytes(t, c), 2);
      break;
    case ColumnType::kTime: case ColumnType::kDateTime: case ColumnType::kTimestamp:
      out.push_back(static_cast<char>(c.fsp));
      break;
    case ColumnType::kJson:
      out.push_back(4);  // the length prefix's width, as MySQL always writes it
      break;
    default:
      if (storage::IsBlobOrText(c.type)) out.push_back(static_cast<char>(BlobPackLength(c.type)));
      break;
  }
}

bool IsNumericBinlogType(uint8_t t) {
  switch (t) {
    case kMysqlTiny: case kMysqlShort: case kMysqlInt24: case kMysqlLong: case kMysqlLongLong:
    case kMysqlNewDecimal: case kMysqlFloat: case kMysqlDouble:
      return true;
    default:
      return false;
  }
}

// Columns with a character set in the optional metadata: CHAR/BINARY,
// VARCHAR/VARBINARY, TEXT/BLOB (MySQL: real type STRING, VARCHAR, BLOB).
bool IsCharacterColumn(const ColumnDef& c) { return storage::IsTextType(c.type) || storage::IsBinaryType(c.type); }

void PutTlv(std::string& out, uint8_t type, std::string_view value) {
  out.push_back(static_cast<char>(type));
  PutLenenc(out, value.size());
  out.append(value);
}

// Appends a bitmap one bit at a time: LSB first in each byte (rows events,
// the Table_map's NULL bitmap) or MSB first (the optional metadata's).
enum class BitOrder { kLsbFirst, kMsbFirst };
class BitmapAppender {
 public:
  BitmapAppender(std::string& out, BitOrder order) : out_(out), at_(out.size()), order_(order) {}
  void Add(bool bit) {
    if (n_ % 8 == 0) out_.push_back('\0');
    const unsigned shift = order_ == BitOrder::kLsbFirst ? n_ % 8 : 7 - n_ % 8;
    if (bit) out_[at_ + n_ / 8] = static_cast<char>(out_[at_ + n_ / 8] | (1u << shift));
    ++n_;
  }

 private:
  std::string& out_;
  const size_t at_;
  const BitOrder order_;
  size_t n_ = 0;
};

// MSB-first bitmap of `bits`.
std::string MsbBitmap(const std::vector<bool>& bits) {
  std::string out;
  BitmapAppender bitmap(out, BitOrder::kMsbFirst);
  for (const bool bit : bits) bitmap.Add(bit);
  return out;
}

// DEFAULT_CHARSET or COLUMN_CHARSET (or their ENUM/SET forms), whichever
// MySQL would pick: COLUMN_* when the column count is below 1 + 2 * (columns
// not using the most used collation).
void AppendCharsetField(std::string& out, const std::vector<uint16_t>& collations, uint8_t default_type,
                        uint8_t column_type) {
  if (collations.empty()) return;
  std::map<uint16_t, size_t> counts;
  for (uint16_t id : collations) ++counts[id];
  uint16_t most_used = 0;
  size_t most_used_count = 0;
  for (const auto& [id, n] : counts) {
    if (n > most_used_count) {
      most_used = id;
      most_used_count = n;
    }
  }
  std::string value;
  if (collations.size() < 1 + (collations.size() - most_used_count) * 2) {
    for (uint16_t id : collations) PutLenenc(value, id);
    PutTlv(out, column_type, value);
  } else {
    PutLenenc(value, most_used);
    for (size_t i = 0; i < collations.size(); ++i) {
      if (collations[i] == most_used) continue;
      PutLenenc(value, i);
      PutLenenc(value, collations[i]);
    }
    PutTlv(out, default_type, value);
  }
}

// A key part has a prefix when it does not cover the whole column.
bool KeyPartHasPrefix(const ColumnDef& c, const storage::KeyPart& part) {
  if (part.prefix_length == 0) return false;
  if (storage::IsBlobOrText(c.type)) return true;
  return part.prefix_length < c.length;
}

void AppendOptionalMetadata(std::string& out, const TableDef& t, RowMetadata metadata) {
  // SIGNEDNESS over the numeric columns: an MSB-first bitmap, written in place.
  auto is_numeric = [](const ColumnDef& c) { return IsNumericBinlogType(BinlogType(c.type)); };
  const size_t numeric = static_cast<size_t>(std::count_if(t.columns.begin(), t.columns.end(), is_numeric));
  if (numeric != 0) {
    out.push_back(static_cast<char>(kSignedness));
    PutLenenc(out, (numeric + 7) / 8);
    BitmapAppender unsigned_bits(out, BitOrder::kMsbFirst);
    for (const ColumnDef& c : t.columns) {
      if (is_numeric(c)) unsigned_bits.Add(c.is_unsigned);
    }
  }
  // Character sets of the character columns.
  std::vector<uint16_t> collations;
  for (const ColumnDef& c : t.columns) {
    if (IsCharacterColumn(c)) collations.push_back(ColumnCollation(t, c));
  }
  AppendCharsetField(out, collations, kDefaultCharset, kColumnCharset);
  if (metadata != RowMetadata::kFull) return;

  std::string names;
  for (const ColumnDef& c : t.columns) {
    PutLenenc(names, c.name.size());
    names += c.name;
  }
  PutTlv(out, kColumnName, names);

  std::vector<uint16_t> enum_collations;
  std::string enum_values;
  for (const ColumnDef& c : t.columns) {
    if (c.type != ColumnType::kEnum) continue;
    enum_collations.push_back(ColumnCollation(t, c));
    PutLenenc(enum_values, c.enum_values.size());
    for (const std::string& v : c.enum_values) {
      PutLenenc(enum_values, v.size());
      enum_values += v;
    }
  }
  AppendCharsetField(out, enum_collations, kEnumAndSetDefaultCharset, kEnumAndSetColumnCharset);
  if (!enum_collations.empty()) PutTlv(out, kEnumStrValue, enum_values);

  // The hidden row id of a table without PRIMARY KEY is not a column.
  if (!t.indexes.empty() && !t.has_hidden_row_id()) {
    const storage::IndexDef& pk = t.clustered();
    bool has_prefix = false;
    for (const storage::KeyPart& part : pk.parts) {
      if (part.column < t.columns.size() && KeyPartHasPrefix(t.columns[part.column], part)) has_prefix = true;
    }
    std::string value;
    for (const storage::KeyPart& part : pk.parts) {
      PutLenenc(value, part.column);
      if (has_prefix) {
        const bool prefixed = part.column < t.columns.size() && KeyPartHasPrefix(t.columns[part.column], part);
        PutLenenc(value, prefixed ? part.prefix_length : 0);
      }
    }
    PutTlv(out, has_prefix ? kPrimaryKeyWithPrefix : kSimplePrimaryKey, value);
  }

  std::vector<bool> visible(t.columns.size(), true);
  PutTlv(out, kColumnVisibility, MsbBitmap(visible));
}

// ---- row values ----

Status ValueError(const ColumnDef& c, std::string_view what) {
  return Status::Corruption("binlog rows: column '" + c.name + "': " + std::string(what));
}

bool AsInteger(const RowValue& v, __int128* out) {
  if (const auto* i = std::get_if<int64_t>(&v)) {
    *out = *i;
    return true;
  }
  if (const auto* u = std::get_if<uint64_t>(&v)) {
    *out = *u;
    return true;
  }
  return false;
}

// Truncates `micros` to `fsp` fractional digits.
int64_t TruncateMicros(int64_t micros, uint32_t fsp) {
  static constexpr int64_t kScale[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
  if (fsp > 6) fsp = 6;
  return micros / kScale[fsp] * kScale[fsp];
}

// Fractional-second bytes of DATETIME2/TIMESTAMP2 (and TIME2 fsp <= 4 with
// a signed `frac`), big-endian.
void PutFsp(std::string& out, int64_t frac, uint32_t fsp) {
  switch (fsp) {
    case 1: case 2: out.push_back(static_cast<char>(static_cast<int8_t>(frac / 10000))); break;
    case 3: case 4: PutBE(out, static_cast<uint16_t>(static_cast<int16_t>(frac / 100)), 2); break;
    case 5: case 6: PutBE(out, static_cast<uint32_t>(frac) & 0xffffff, 3); break;
    default: break;
  }
}

// MySQL's binary DECIMAL: 9-digit groups in 4 bytes, leftover digits in
// 1-4 bytes, integer part then fraction, big-endian; negatives inverted;
// the first byte's top bit flipped.
constexpr int kDigitsToBytes[10] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

size_t BinaryDecimalSize(uint32_t precision, uint32_t scale) {
  const uint32_t intg = precision - scale;
  return (intg / 9) * 4 + kDigitsToBytes[intg % 9] + (scale / 9) * 4 + kDigitsToBytes[scale % 9];
}

uint32_t DigitsValue(std::string_view digits) {
  uint32_t v = 0;
  for (char ch : digits) v = v * 10 + static_cast<uint32_t>(ch - '0');
  return v;
}

Status AppendBinaryDecimal(std::string& out, const ColumnDef& c, std::string_view text) {
  const uint32_t precision = DecimalPrecision(c);
  const uint32_t scale = c.scale;
  if (scale > precision) return ValueError(c, "DECIMAL scale above precision");
  Result<std::string> packed = storage::EncodeDecimal(text, precision, scale, c.name);
  if (!packed.ok()) return ValueError(c, "DECIMAL value does not fit");
  Result<std::string> canonical = storage::DecodeDecimal(*packed, precision, scale);
  if (!canonical.ok()) return ValueError(c, "bad DECIMAL value");
  std::string_view s = *canonical;
  const bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  const size_t dot = s.find('.');
  std::string int_digits(s.substr(0, dot));
  std::string frac_digits(dot == std::string_view::npos ? std::string_view() : s.substr(dot + 1));
  const uint32_t intg = precision - scale;
  if (int_digits.size() > intg) {
    if (int_digits.find_first_not_of('0') != std::string::npos &&
        int_digits.size() - int_digits.find_first_not_of('0') > intg) {
      return ValueError(c, "DECIMAL value does not fit");
    }
    int_digits.erase(0, int_digits.size() - intg);
  }
  int_digits.insert(0, intg - int_digits.size(), '0');
  frac_digits.resize(scale, '0');

  std::string bytes;
  const uint32_t lead = intg % 9;
  if (lead > 0) PutBE(bytes, DigitsValue(std::string_view(int_digits).substr(0, lead)), kDigitsToBytes[lead]);
  for (uint32_t i = lead; i < intg; i += 9) PutBE(bytes, DigitsValue(std::string_view(int_digits).substr(i, 9)), 4);
  const uint32_t full_frac = scale / 9 * 9;
  for (uint32_t i = 0; i < full_frac; i += 9) {
    PutBE(bytes, DigitsValue(std::string_view(frac_digits).substr(i, 9)), 4);
  }
  const uint32_t trail = scale % 9;
  if (trail > 0) {
    PutBE(bytes, DigitsValue(std::string_view(frac_digits).substr(full_frac, trail)), kDigitsToBytes[trail]);
  }
  const bool is_zero = int_digits.find_first_not_of('0') == std::string::npos &&
                       frac_digits.find_first_not_of('0') == std::string::npos;
  if (negative && !is_zero) {
    for (char& b : bytes) b = static_cast<char>(~b);
  }
  if (!bytes.empty()) bytes[0] = static_cast<char>(bytes[0] ^ 0x80);
  out += bytes;
  return Status::OK();
}

// Appends the binlog form of a non-NULL value of column `c`.
Status AppendValue(std::string& out, const TableDef& t, const ColumnDef& c, const RowValue& v) {
  __int128 iv = 0;
  switch (c.type) {
    case ColumnType::kTinyInt: case ColumnType::kSmallInt: case ColumnType::kMediumInt:
    case ColumnType::kInt: case ColumnType::kBigInt: {
      if (!AsInteger(v, &iv)) return ValueError(c, "integer column without an integer value");
      __int128 lo, hi;
      storage::IntRange(c, &lo, &hi);
      if (iv < lo || iv > hi) return ValueError(c, "integer out of range");
      PutLE(out, static_cast<uint64_t>(iv), static_cast<int>(storage::IntWidth(c.type)));
      return Status::OK();
    }
    case ColumnType::kFloat: case ColumnType::kDouble: {
      const auto* d = std::get_if<double>(&v);
      if (d == nullptr) return ValueError(c, "floating-point column without a double value");
      if (c.type == ColumnType::kFloat) {
        const float f = static_cast<float>(*d);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        PutLE(out, bits, 4);
      } else {
        uint64_t bits;
        std::memcpy(&bits, d, 8);
        PutLE(out, bits, 8);
      }
      return Status::OK();
    }
    case ColumnType::kDecimal: {
      const auto* s = std::get_if<std::string>(&v);
      if (s == nullptr) return ValueError(c, "DECIMAL column without a text value");
      return AppendBinaryDecimal(out, c, *s);
    }
    case ColumnType::kDate: {
      const auto* p = std::get_if<int64_t>(&v);
      if (p == nullptr || *p < 0) return ValueError(c, "bad DATE value");
      const storage::DateTimeParts d = storage::UnpackDate(*p);
      if (d.year > 9999) return ValueError(c, "DATE out of range");
      PutLE(out, static_cast<uint32_t>(d.day | d.month << 5 | d.year << 9), 3);
      return Status::OK();
    }
    case ColumnType::kTime: {
      const auto* p = std::get_if<int64_t>(&v);
      if (p == nullptr) return ValueError(c, "bad TIME value");
      const storage::DateTimeParts d = storage::UnpackTime(*p);
      if (d.hour > 1023) return ValueError(c, "TIME out of range");
      const int64_t frac = TruncateMicros(d.micros, c.fsp);
      int64_t nr = ((int64_t{d.hour} << 12 | d.minute << 6 | d.second) << 24) + frac;
      if (d.negative) nr = -nr;
      constexpr int64_t kIntOffset = 0x800000;
      if (c.fsp >= 5) {
        PutBE(out, static_cast<uint64_t>(nr + 0x800000000000LL), 6);
      } else {
        PutBE(out, static_cast<uint64_t>(kIntOffset + (nr >> 24)), 3);
        PutFsp(out, nr % (int64_t{1} << 24), c.fsp);
      }
      return Status::OK();
    }
    case ColumnType::kDateTime: {
      const auto* p = std::get_if<int64_t>(&v);
      if (p == nullptr || *p < 0) return ValueError(c, "bad DATETIME value");
      const storage::DateTimeParts d = storage::UnpackDateTime(*p);
      if (d.year > 9999) return ValueError(c, "DATETIME out of range");
      const int64_t ymd = ((int64_t{d.year} * 13 + d.month) << 5) | d.day;
      const int64_t hms = d.hour << 12 | d.minute << 6 | d.second;
      PutBE(out, static_cast<uint64_t>(((ymd << 17) | hms) + 0x8000000000LL), 5);
      PutFsp(out, TruncateMicros(d.micros, c.fsp), c.fsp);
      return Status::OK();
    }
    case ColumnType::kTimestamp: {
      const auto* p = std::get_if<int64_t>(&v);
      if (p == nullptr || *p < 0 || *p / 1000000 > 0xffffffffLL) return ValueError(c, "bad TIMESTAMP value");
      PutBE(out, static_cast<uint64_t>(*p / 1000000), 4);
      PutFsp(out, TruncateMicros(*p % 1000000, c.fsp), c.fsp);
      return Status::OK();
    }
    case ColumnType::kYear: {
      if (!AsInteger(v, &iv) || (iv != 0 && (iv < 1901 || iv > 2155))) return ValueError(c, "bad YEAR value");
      out.push_back(static_cast<char>(iv == 0 ? 0 : iv - 1900));
      return Status::OK();
    }
    case ColumnType::kEnum: {
      if (!AsInteger(v, &iv) || iv < 0 || iv > static_cast<__int128>(c.enum_values.size())) {
        return ValueError(c, "bad ENUM value");
      }
      PutLE(out, static_cast<uint64_t>(iv), EnumPackLength(c));
      return Status::OK();
    }
    default:
      break;
  }
  const auto* s = std::get_if<std::string>(&v);
  if (s == nullptr) return ValueError(c, "string column without a string value");
  std::string_view bytes = *s;
  if (storage::IsBlobOrText(c.type) || c.type == ColumnType::kJson) {  // JSON: the binary document
    const int pack = BlobPackLength(c.type);
    if (pack < 4 && bytes.size() >= (uint64_t{1} << (8 * pack))) return ValueError(c, "value too long");
    if (bytes.size() > 0xffffffffULL) return ValueError(c, "value too long");
    PutLE(out, bytes.size(), pack);
    out.append(bytes);
    return Status::OK();
  }
  // CHAR and BINARY lose their padding, as MySQL packs them.
  if (c.type == ColumnType::kChar) {
    while (!bytes.empty() && bytes.back() == ' ') bytes.remove_suffix(1);
  } else if (c.type == ColumnType::kBinary) {
    while (!bytes.empty() && bytes.back() == '\0') bytes.remove_suffix(1);
  }
  const uint32_t max_bytes = StringMaxBytes(t, c);
  if (bytes.size() > max_bytes) return ValueError(c, "value too long");
  PutLE(out, bytes.size(), max_bytes < 256 ? 1 : 2);
  out.append(bytes);
  return Status::OK();
}

bool IsBlob(const ColumnDef& c) { return storage::IsBlobOrText(c.type) || c.type == ColumnType::kJson; }

// LSB-first bitmap of `bits`.
std::string LsbBitmap(const std::vector<bool>& bits) {
  std::string out;
  BitmapAppender bitmap(out, BitOrder::kLsbFirst);
  for (const bool bit : bits) bitmap.Add(bit);
  return out;
}

}  // namespace

// ---- collations ----

uint16_t CollationId(std::string_view collation) {
  static constexpr std::pair<std::string_view, uint16_t> kCollations[] = {
      {"big5_chinese_ci", 1},         {"latin1_german1_ci", 5},      {"latin1_swedish_ci", 8},
      {"ascii_general_ci", 11},       {"latin1_danish_ci", 15},      {"latin1_german2_ci", 31},
      {"utf8mb3_general_ci", 33},     {"utf8_general_ci", 33},       {"ucs2_general_ci", 35},
      {"utf8mb4_general_ci", 45},     {"utf8mb4_bin", 46},           {"latin1_bin", 47},
      {"latin1_general_ci", 48},      {"latin1_general_cs", 49},     {"binary", 63},
      {"ascii_bin", 65},              {"utf8mb3_tolower_ci", 76},    {"utf8mb3_bin", 83},
      {"utf8_bin", 83},               {"ucs2_bin", 90},              {"latin1_spanish_ci", 94},
      {"utf8mb3_unicode_ci", 192},    {"utf8_unicode_ci", 192},      {"utf8mb3_unicode_520_ci", 214},
      {"utf8_unicode_520_ci", 214},   {"utf8mb3_general_mysql500_ci", 223},
      {"utf8mb4_unicode_ci", 224},    {"utf8mb4_unicode_520_ci", 246},
      {"utf8mb4_0900_ai_ci", 255},    {"utf8mb4_de_pb_0900_ai_ci", 256},
      {"utf8mb4_0900_as_cs", 278},    {"utf8mb4_0900_as_ci", 305},   {"utf8mb4_0900_bin", 309},
  };
  for (const auto& [name, id] : kCollations) {
    if (EqualsNoCase(name, collation)) return id;
  }
  return 0;
}

// ---- Table_map ----

std::string EncodeTableMap(EventHeader h, uint64_t table_id, const TableDef& table, RowMetadata metadata,
                           Checksum checksum) {
  std::string out;
  AppendTableMap(out, h, table_id, table, metadata, checksum);
  return out;
}

void AppendTableMap(std::string& p, EventHeader h, uint64_t table_id, const TableDef& table, RowMetadata metadata,
                    Checksum checksum) {
  h.type = kTableMapEvent;
  const size_t start =
      internal::StartEventIn(p, 32 + table.schema.size() + table.name.size() + 4 * table.columns.size());
  PutLE(p, table_id, 6);
  PutLE(p, 1, 2);  // TM_BIT_LEN_EXACT_F
  const std::string_view schema = std::string_view(table.schema).substr(0, 255);
  const std::string_view name = std::string_view(table.name).substr(0, 255);
  p.push_back(static_cast<char>(schema.size()));
  p.append(schema);
  p.push_back('\0');
  p.push_back(static_cast<char>(name.size()));
  p.append(name);
  p.push_back('\0');
  PutLenenc(p, table.columns.size());
  for (const ColumnDef& c : table.columns) p.push_back(static_cast<char>(BinlogType(c.type)));
  // The metadata block goes straight into the event, after a one-byte
  // length; a block of 251 bytes or more (over some 125 columns) moves
  // over for the longer length.
  const size_t meta_len_at = p.size();
  p.push_back('\0');
  for (const ColumnDef& c : table.columns) AppendColumnMeta(p, table, c);
  const size_t meta_size = p.size() - meta_len_at - 1;
  if (meta_size < 251) {
    p[meta_len_at] = static_cast<char>(meta_size);
  } else {
    std::string len;
    PutLenenc(len, meta_size);
    p.replace(meta_len_at, 1, len);
  }
  // The NULL-able columns.
  BitmapAppender nullable(p, BitOrder::kLsbFirst);
  for (const ColumnDef& c : table.columns) nullable.Add(c.nullable);
  AppendOptionalMetadata(p, table, metadata);
  internal::FinishStartedEventIn(h, p, start, checksum);
}

// ---- rows events ----

RowsEventBuilder::RowsEventBuilder(EventHeader h, uint8_t type, uint64_t table_id, const TableDef& table,
                                   RowImage image, Checksum checksum, size_t max_event_bytes) {
  Reset(h, type, table_id, table, image, checksum, max_event_bytes);
}

void RowsEventBuilder::Reset(EventHeader h, uint8_t type, uint64_t table_id, const TableDef& table, RowImage image,
                             Checksum checksum, size_t max_event_bytes) {
  h_ = h;
  h_.type = type;
  h_.log_pos = 0;
  type_ = type;
  table_id_ = table_id;
  table_ = &table;
  image_ = image;
  checksum_ = checksum;
  max_event_bytes_ = max_event_bytes;
  no_foreign_key_checks_ = false;
  ClearFinished();
  pending_rows_.clear();
  pending_count_ = 0;
  pending_before_.clear();
  pending_after_.clear();
}

size_t RowsEventBuilder::EventSizeWith(size_t extra_row_bytes) const {
  const size_t n = table_->columns.size();
  const size_t bitmaps = (type_ == kUpdateRowsEvent ? 2 : 1) * ((n + 7) / 8);
  return kHeaderLen + kRowsPostHeaderLen + LenencSize(n) + bitmaps + pending_rows_.size() + extra_row_bytes +
         (checksum_ == Checksum::kCrc32 ? kChecksumLen : 0);
}

void RowsEventBuilder::FinishPending(bool stmt_end) {
  if (pending_count_ == 0) return;
  if (finished_count_ == finished_.size()) finished_.emplace_back();
  std::string& p = finished_[finished_count_++];  // empty: a spare, or new
  const size_t start = internal::StartEventIn(p, EventSizeWith(0) - kHeaderLen);
  PutLE(p, table_id_, 6);
  PutLE(p, (stmt_end ? kStmtEndF : 0) | (no_foreign_key_checks_ ? kNoForeignKeyChecksF : 0), 2);
  PutLE(p, 2, 2);  // extra_data_len: no extra data
  PutLenenc(p, table_->columns.size());
  if (type_ == kWriteRowsEvent) {
    p += LsbBitmap(pending_after_);
  } else {
    p += LsbBitmap(pending_before_);
    if (type_ == kUpdateRowsEvent) p += LsbBitmap(pending_after_);
  }
  p += pending_rows_;
  internal::FinishStartedEventIn(h_, p, start, checksum_);
  pending_rows_.clear();
  pending_count_ = 0;
}

Status RowsEventBuilder::AddRow(const storage::Row* before, const storage::Row* after) {
  return Add(before, after, /*exact=*/true);
}

Status RowsEventBuilder::AddStoredRow(const storage::Row* before, const storage::Row* after) {
  return Add(before, after, /*exact=*/false);
}

Status RowsEventBuilder::Add(const storage::Row* before, const storage::Row* after, bool exact) {
  const TableDef& t = *table_;
  const size_t n = t.columns.size();
  const bool want_before = type_ == kDeleteRowsEvent || type_ == kUpdateRowsEvent;
  const bool want_after = type_ == kWriteRowsEvent || type_ == kUpdateRowsEvent;
  if (type_ != kWriteRowsEvent && type_ != kUpdateRowsEvent && type_ != kDeleteRowsEvent) {
    return Status::InvalidArgument("binlog rows: not a rows event type");
  }
  if ((want_before && before == nullptr) || (want_after && after == nullptr)) {
    return Status::InvalidArgument("binlog rows: missing row image");
  }
  auto fits = [&](const storage::Row* r) { return exact ? r->size() == n : r->size() >= n; };
  if ((want_before && !fits(before)) || (want_after && !fits(after))) {
    return Status::InvalidArgument("binlog rows: row width does not match the table");
  }
  const bool has_pk = !t.indexes.empty() && !t.has_hidden_row_id();
  std::vector<bool>& in_pk = in_pk_;
  in_pk.assign(n, false);
  if (has_pk && image_ != RowImage::kFull) {
    for (const storage::KeyPart& part : t.clustered().parts) {
      if (part.column < n) in_pk[part.column] = true;
    }
  }
  // Present columns of each image.
  std::vector<bool>& before_cols = before_cols_;
  std::vector<bool>& after_cols = after_cols_;
  before_cols.assign(n, false);
  after_cols.assign(n, false);
  if (want_before) {
    for (size_t i = 0; i < n; ++i) {
      switch (image_) {
        case RowImage::kFull: before_cols[i] = true; break;
        case RowImage::kMinimal: before_cols[i] = !has_pk || in_pk[i]; break;
        case RowImage::kNoBlob: before_cols[i] = !has_pk || in_pk[i] || !IsBlob(t.columns[i]); break;
      }
    }
  }
  if (want_after) {
    for (size_t i = 0; i < n; ++i) {
      const bool changed = type_ == kWriteRowsEvent || (*before)[i] != (*after)[i];
      switch (image_) {
        case RowImage::kFull: after_cols[i] = true; break;
        case RowImage::kMinimal: after_cols[i] = changed; break;
        case RowImage::kNoBlob: after_cols[i] = changed || !IsBlob(t.columns[i]); break;
      }
    }
  }
  // The row: per image, a NULL bitmap over its present columns, then values.
  std::string& row = row_;
  row.clear();
  auto append_image = [&](const storage::Row& values, const std::vector<bool>& cols) -> Status {
    std::vector<bool>& nulls = nulls_;
    nulls.clear();
    for (size_t i = 0; i < n; ++i) {
      if (cols[i]) nulls.push_back(storage::IsNull(values[i]));
    }
    row += LsbBitmap(nulls);
    for (size_t i = 0; i < n; ++i) {
      if (!cols[i]) continue;
      const ColumnDef& c = t.columns[i];
      if (storage::IsNull(values[i])) {
        if (!c.nullable) return ValueError(c, "NULL in a NOT NULL column");
        continue;
      }
      SLUICE_RETURN_IF_ERROR(AppendValue(row, t, c, values[i]));
    }
    return Status::OK();
  };
  if (want_before) SLUICE_RETURN_IF_ERROR(append_image(*before, before_cols));
  if (want_after) SLUICE_RETURN_IF_ERROR(append_image(*after, after_cols));

  // One event holds rows with the same column bitmaps, up to max_event_bytes
  // (a single larger row gets an event of its own).
  const bool same_columns = before_cols == pending_before_ && after_cols == pending_after_;
  if (pending_count_ > 0 && (!same_columns || EventSizeWith(row.size()) > max_event_bytes_)) {
    FinishPending(false);
  }
  if (pending_count_ == 0) {
    pending_before_ = before_cols;
    pending_after_ = after_cols;
  }
  pending_rows_ += row;
  ++pending_count_;
  return Status::OK();
}

std::vector<std::string> RowsEventBuilder::TakeFinished() {
  std::vector<std::string> out;
  out.swap(finished_);
  out.resize(finished_count_);
  finished_count_ = 0;
  return out;
}

std::vector<std::string> RowsEventBuilder::Finish(bool stmt_end) {
  FinishPending(stmt_end);
  return TakeFinished();
}

void RowsEventBuilder::ClearFinished() {
  // (A big row's event is not kept for the session's later statements.)
  for (size_t i = 0; i < finished_count_; ++i) ClearScratch(finished_[i]);
  finished_count_ = 0;
}

bool RowsEventBuilder::empty() const { return pending_count_ == 0 && finished_count_ == 0; }

// ---- decoding ----

namespace {

// Metadata bytes of a column type in a Table_map, and the number
// mysqlbinlog shows (STRING/NEWDECIMAL: byte0 << 8 | byte1; BIT: byte0 |
// byte1 << 8; VARCHAR: LE; others the byte).
bool ReadColumnMeta(ByteReader& r, uint8_t type, uint16_t* meta) {
  switch (type) {
    case kMysqlFloat: case kMysqlDouble: case kMysqlBlob: case kMysqlTinyBlob: case kMysqlMediumBlob:
    case kMysqlLongBlob: case kMysqlGeometry: case kMysqlJson: case kMysqlTimestamp2: case kMysqlDateTime2:
    case kMysqlTime2:
      *meta = static_cast<uint16_t>(r.LE(1));
      break;
    case kMysqlVarchar: case kMysqlVarString: case kMysqlBit:
      *meta = static_cast<uint16_t>(r.LE(2));
      break;
    case kMysqlNewDecimal: case kMysqlString: case kMysqlEnum: case kMysqlSet: case kMysqlDecimal:
      *meta = static_cast<uint16_t>(r.BE(2));
      break;
    default:
      *meta = 0;
      break;
  }
  return !r.failed();
}

Status RowsCorruption(std::string_view what) { return Status::Corruption("binlog rows event: " + std::string(what)); }

// mysqlbinlog's quoting of string values: \b \f \n \r \t \\ \' and other
// bytes below 0x20 as \xNN; everything else as is.
std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (unsigned char ch : s) {
    switch (ch) {
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      default:
        if (ch < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\x%02x", ch);
          out += buf;
        } else {
          out.push_back(static_cast<char>(ch));
        }
    }
  }
  out += "'";
  return out;
}

std::string SignedAndUnsigned(int64_t s, uint64_t u) {
  std::string out = std::to_string(s);
  if (s < 0) out += " (" + std::to_string(u) + ")";
  return out;
}

std::string Fraction(int64_t micros, uint32_t dec) {
  if (dec == 0) return "";
  static constexpr int64_t kScale[7] = {1000000, 100000, 10000, 1000, 100, 10, 1};
  char buf[16];
  std::snprintf(buf, sizeof(buf), ".%0*" PRId64, static_cast<int>(dec), micros / kScale[dec]);
  return buf;
}

std::string BitString(std::string_view bytes, uint32_t nbits) {
  std::string out = "b'";
  const uint32_t nbits8 = static_cast<uint32_t>(bytes.size()) * 8;
  for (uint32_t bit = nbits8 - nbits; bit < nbits8; ++bit) {
    out.push_back((static_cast<uint8_t>(bytes[bit / 8]) >> (7 - bit % 8)) & 1 ? '1' : '0');
  }
  return out + "'";
}

// Decodes MySQL's binary DECIMAL as decimal2string writes it.
bool DecodeBinaryDecimal(ByteReader& r, uint32_t precision, uint32_t scale, std::string* text) {
  if (scale > precision || precision == 0) return false;
  const size_t size = BinaryDecimalSize(precision, scale);
  std::string bytes(r.Bytes(size));
  if (r.failed() || bytes.empty()) return false;
  const bool negative = (static_cast<uint8_t>(bytes[0]) & 0x80) == 0;
  bytes[0] = static_cast<char>(bytes[0] ^ 0x80);
  if (negative) {
    for (char& b : bytes) b = static_cast<char>(~b);
  }
  const uint32_t intg = precision - scale;
  size_t pos = 0;
  auto group = [&](int ndigits) {
    const int nbytes = kDigitsToBytes[ndigits];
    const uint64_t v = internal::LoadBE(bytes.data() + pos, nbytes);
    pos += nbytes;
    char buf[16];
    std::snprintf(buf, sizeof(buf), "%0*" PRIu64, ndigits, v);
    return std::string(buf);
  };
  std::string int_digits, frac_digits;
  if (intg % 9) int_digits += group(intg % 9);
  for (uint32_t i = 0; i < intg / 9; ++i) int_digits += group(9);
  for (uint32_t i = 0; i < scale / 9; ++i) frac_digits += group(9);
  if (scale % 9) frac_digits += group(scale % 9);
  if (int_digits.size() > intg || frac_digits.size() > scale) return false;  // a group above its digits
  const size_t nz = int_digits.find_first_not_of('0');
  int_digits = nz == std::string::npos ? "0" : int_digits.substr(nz);
  *text = negative ? "-" : "";
  *text += int_digits;
  if (scale > 0) *text += "." + frac_digits;
  return true;
}

// One value as mysqlbinlog -v prints it; `typestr` as -vv names the type.
bool DecodeValue(ByteReader& r, uint8_t type, uint16_t meta, std::string* text, std::string* typestr) {
  char buf[96];
  uint32_t length = 0;
  if (type == kMysqlString) {
    if (meta >= 256) {
      const uint32_t byte0 = meta >> 8, byte1 = meta & 0xff;
      if ((byte0 & 0x30) != 0x30) {
        length = byte1 | (((byte0 & 0x30) ^ 0x30) << 4);
        type = static_cast<uint8_t>(byte0 | 0x30);
      } else {
        length = byte1;
        if (byte0 == kMysqlEnum || byte0 == kMysqlSet) type = static_cast<uint8_t>(byte0);
      }
    } else {
      length = meta;
    }
  } else if (type == kMysqlDate) {
    type = kMysqlNewDate;  // DATE in a Table_map is the 3-byte NEWDATE
  }
  const bool null = text == nullptr;
  switch (type) {
    case kMysqlTiny: {
      *typestr = "TINYINT";
      if (null) return true;
      const uint64_t u = r.LE(1);
      *text = SignedAndUnsigned(static_cast<int8_t>(u), u);
      break;
    }
    case kMysqlShort: {
      *typestr = "SHORTINT";
      if (null) return true;
      const uint64_t u = r.LE(2);
      *text = SignedAndUnsigned(static_cast<int16_t>(u), u);
      break;
    }
    case kMysqlInt24: {
      *typestr = "MEDIUMINT";
      if (null) return true;
      const uint64_t u = r.LE(3);
      const int64_t s = (u & 0x800000) ? static_cast<int64_t>(u) - 0x1000000 : static_cast<int64_t>(u);
      *text = SignedAndUnsigned(s, u);
      break;
    }
    case kMysqlLong: {
      *typestr = "INT";
      if (null) return true;
      const uint64_t u = r.LE(4);
      *text = SignedAndUnsigned(static_cast<int32_t>(u), u);
      break;
    }
    case kMysqlLongLong: {
      *typestr = "LONGINT";
      if (null) return true;
      const uint64_t u = r.LE(8);
      *text = SignedAndUnsigned(static_cast<int64_t>(u), u);
      break;
    }
    case kMysqlNewDecimal: {
      const uint32_t precision = meta >> 8, scale = meta & 0xff;
      std::snprintf(buf, sizeof(buf), "DECIMAL(%u,%u)", precision, scale);
      *typestr = buf;
      if (null) return true;
      if (!DecodeBinaryDecimal(r, precision, scale, text)) return false;
      break;
    }
    case kMysqlFloat: {
      *typestr = "FLOAT";
      if (null) return true;
      const uint32_t bits = static_cast<uint32_t>(r.LE(4));
      float f;
      std::memcpy(&f, &bits, 4);
      std::snprintf(buf, sizeof(buf), "%-20g", static_cast<double>(f));
      *text = buf;
      break;
    }
    case kMysqlDouble: {
      *typestr = "DOUBLE";
      if (null) return true;
      const uint64_t bits = r.LE(8);
      double d;
      std::memcpy(&d, &bits, 8);
      std::snprintf(buf, sizeof(buf), "%-.20g", d);
      *text = buf;
      break;
    }
    case kMysqlBit: {
      const uint32_t nbits = (meta >> 8) * 8 + (meta & 0xff);
      std::snprintf(buf, sizeof(buf), "BIT(%u)", nbits);
      *typestr = buf;
      if (null) return true;
      std::string_view bytes = r.Bytes((nbits + 7) / 8);
      if (r.failed()) return false;
      *text = BitString(bytes, nbits);
      break;
    }
    case kMysqlTimestamp: {
      *typestr = "TIMESTAMP";
      if (null) return true;
      *text = std::to_string(static_cast<int32_t>(r.LE(4)));
      break;
    }
    case kMysqlTimestamp2: {
      std::snprintf(buf, sizeof(buf), "TIMESTAMP(%u)", meta);
      *typestr = buf;
      if (null) return true;
      const uint64_t secs = r.BE(4);
      int64_t frac = 0;
      switch (meta) {
        case 1: case 2: frac = static_cast<int64_t>(static_cast<int8_t>(r.BE(1))) * 10000; break;
        case 3: case 4: frac = static_cast<int64_t>(static_cast<int16_t>(r.BE(2))) * 100; break;
        case 5: case 6: frac = static_cast<int64_t>(r.BE(3)); break;
        default: break;
      }
      *text = std::to_string(secs) + Fraction(frac, meta > 6 ? 6 : meta);
      break;
    }
    case kMysqlDateTime: {
      *typestr = "DATETIME";
      if (null) return true;
      const uint64_t v = r.LE(8);
      const uint64_t d = v / 1000000, t = v % 1000000;
      std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d", static_cast<int>(d / 10000),
                    static_cast<int>(d % 10000 / 100), static_cast<int>(d % 100), static_cast<int>(t / 10000),
                    static_cast<int>(t % 10000 / 100), static_cast<int>(t % 100));
      *text = buf;
      break;
    }
    case kMysqlDateTime2: {
      std::snprintf(buf, sizeof(buf), "DATETIME(%u)", meta);
      *typestr = buf;
      if (null) return true;
      const int64_t intpart = static_cast<int64_t>(r.BE(5)) - 0x8000000000LL;
      int64_t frac = 0;
      switch (meta) {
        case 1: case 2: frac = static_cast<int64_t>(static_cast<int8_t>(r.BE(1))) * 10000; break;
        case 3: case 4: frac = static_cast<int64_t>(static_cast<int16_t>(r.BE(2))) * 100; break;
        case 5: case 6: {
          const uint64_t u = r.BE(3);
          frac = (u & 0x800000) ? static_cast<int64_t>(u) - 0x1000000 : static_cast<int64_t>(u);
          break;
        }
        default: break;
      }
      const int64_t ymd = intpart >> 17, hms = intpart % (1 << 17);
      const int64_t ym = ymd >> 5;
      std::snprintf(buf, sizeof(buf), "%04d-%02d-%02d %02d:%02d:%02d", static_cast<int>(ym / 13),
                    static_cast<int>(ym % 13), static_cast<int>(ymd % 32), static_cast<int>(hms >> 12),
                    static_cast<int>((hms >> 6) % 64), static_cast<int>(hms % 64));
      *text = QuoteString(std::string(buf) + Fraction(frac, meta > 6 ? 6 : meta));
      break;
    }
    case kMysqlTime: {
      *typestr = "TIME";
      if (null) return true;
      const uint64_t v = r.LE(3);
      std::snprintf(buf, sizeof(buf), "'%02d:%02d:%02d'", static_cast<int>(v / 10000),
                    static_cast<int>(v % 10000 / 100), static_cast<int>(v % 100));
      *text = buf;
      break;
    }
    case kMysqlTime2: {
      std::snprintf(buf, sizeof(buf), "TIME(%u)", meta);
      *typestr = buf;
      if (null) return true;
      int64_t packed = 0;
      if (meta >= 5) {
        packed = static_cast<int64_t>(r.BE(6)) - 0x800000000000LL;
      } else {
        int64_t intpart = static_cast<int64_t>(r.BE(3)) - 0x800000;
        int64_t frac = 0;
        if (meta == 1 || meta == 2) {
          frac = static_cast<int64_t>(r.BE(1));
          if (intpart < 0 && frac != 0) {
            ++intpart;  // negative values keep their fraction reversed
            frac -= 0x100;
          }
          frac *= 10000;
        } else if (meta == 3 || meta == 4) {
          frac = static_cast<int64_t>(r.BE(2));
          if (intpart < 0 && frac != 0) {
            ++intpart;
            frac -= 0x10000;
          }
          frac *= 100;
        }
        packed = intpart * (int64_t{1} << 24) + frac;
      }
      const bool negative = packed < 0;
      if (negative) packed = -packed;
      const int64_t hms = packed >> 24;
      const int64_t micros = packed % (int64_t{1} << 24);
      std::snprintf(buf, sizeof(buf), "%s%02d:%02d:%02d", negative ? "-" : "", static_cast<int>((hms >> 12) % 1024),
                    static_cast<int>((hms >> 6) % 64), static_cast<int>(hms % 64));
      *text = QuoteString(std::string(buf) + Fraction(micros, meta > 6 ? 6 : meta));
      break;
    }
    case kMysqlNewDate: {
      *typestr = "DATE";
      if (null) return true;
      const uint64_t v = r.LE(3);
      std::snprintf(buf, sizeof(buf), "'%04d:%02d:%02d'", static_cast<int>((v >> 9) % 10000),
                    static_cast<int>((v >> 5) & 15), static_cast<int>(v & 31));
      *text = buf;
      break;
    }
    case kMysqlYear: {
      *typestr = "YEAR";
      if (null) return true;
      std::snprintf(buf, sizeof(buf), "%04d", static_cast<int>(r.LE(1)) + 1900);
      *text = buf;
      break;
    }
    case kMysqlEnum: {
      const uint32_t pack = meta & 0xff;
      if (pack != 1 && pack != 2) return false;
      *typestr = pack == 1 ? "ENUM(1 byte)" : "ENUM(2 bytes)";
      if (null) return true;
      *text = std::to_string(r.LE(static_cast<int>(pack)));
      break;
    }
    case kMysqlSet: {
      const uint32_t pack = meta & 0xff;
      std::snprintf(buf, sizeof(buf), "SET(%u bytes)", pack);
      *typestr = buf;
      if (null) return true;
      std::string_view bytes = r.Bytes(pack);
      if (r.failed()) return false;
      *text = BitString(bytes, pack * 8);
      break;
    }
    case kMysqlBlob: case kMysqlGeometry: case kMysqlJson: {
      static constexpr const char* kNames[5] = {"", "TINYBLOB/TINYTEXT", "BLOB/TEXT", "MEDIUMBLOB/MEDIUMTEXT",
                                                "LONGBLOB/LONGTEXT"};
      if (meta < 1 || meta > 4) return false;
      *typestr = type == kMysqlJson ? "JSON" : type == kMysqlGeometry ? "GEOMETRY" : kNames[meta];
      if (null) return true;
      const uint64_t len = r.LE(static_cast<int>(meta));
      std::string_view bytes = r.Bytes(len);
      if (r.failed()) return false;
      *text = QuoteString(bytes);
      break;
    }
    case kMysqlVarchar: case kMysqlVarString: case kMysqlString: {
      if (type == kMysqlString) {
        std::snprintf(buf, sizeof(buf), "STRING(%u)", length);
      } else {
        length = meta;
        std::snprintf(buf, sizeof(buf), "VARSTRING(%u)", length);
      }
      *typestr = buf;
      if (null) return true;
      const uint64_t len = r.LE(length < 256 ? 1 : 2);
      std::string_view bytes = r.Bytes(len);
      if (r.failed()) return false;
      *text = QuoteString(bytes);
      break;
    }
    default:
      return false;
  }
  return !r.failed();
}

}  // namespace

Result<TableMapInfo> DecodeTableMap(std::string_view event, Checksum checksum) {
  Result<std::string_view> payload = internal::EventPayload(event, checksum);
  if (!payload.ok()) return payload.status();
  if (static_cast<uint8_t>(event[4]) != kTableMapEvent) return Status::Corruption("not a Table_map event");
  ByteReader r(*payload);
  TableMapInfo info;
  info.table_id = r.LE(6);
  r.LE(2);  // flags
  info.schema = std::string(r.Bytes(r.LE(1)));
  r.Skip(1);
  info.table = std::string(r.Bytes(r.LE(1)));
  r.Skip(1);
  const uint64_t n = r.Lenenc();
  if (r.failed() || n > r.remaining()) return Status::Corruption("Table_map: truncated");
  std::string_view types = r.Bytes(n);
  info.column_types.assign(types.begin(), types.end());
  const uint64_t meta_len = r.Lenenc();
  std::string_view meta_bytes = r.Bytes(meta_len);
  if (r.failed()) return Status::Corruption("Table_map: truncated metadata");
  ByteReader meta(meta_bytes);
  info.column_meta.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!ReadColumnMeta(meta, info.column_types[i], &info.column_meta[i])) {
      return Status::Corruption("Table_map: metadata shorter than its columns need");
    }
  }
  std::string_view null_bits = r.Bytes((n + 7) / 8);
  if (r.failed()) return Status::Corruption("Table_map: truncated NULL bitmap");
  info.nullable.resize(n);
  for (size_t i = 0; i < n; ++i) info.nullable[i] = (static_cast<uint8_t>(null_bits[i / 8]) >> (i % 8)) & 1;
  info.is_unsigned.assign(n, false);

  // Optional metadata: TLVs to the end.
  while (r.remaining() > 0) {
    const uint8_t field = static_cast<uint8_t>(r.LE(1));
    const uint64_t len = r.Lenenc();
    std::string_view value = r.Bytes(len);
    if (r.failed()) return Status::Corruption("Table_map: truncated optional metadata");
    ByteReader v(value);
    switch (field) {
      case kSignedness: {
        size_t bit = 0;
        for (size_t i = 0; i < n; ++i) {
          if (!IsNumericBinlogType(info.column_types[i])) continue;
          if (bit / 8 >= value.size()) return Status::Corruption("Table_map: short SIGNEDNESS");
          info.is_unsigned[i] = (static_cast<uint8_t>(value[bit / 8]) >> (7 - bit % 8)) & 1;
          ++bit;
        }
        break;
      }
      case kColumnName:
        while (v.remaining() > 0 && !v.failed()) info.column_names.emplace_back(v.Bytes(v.Lenenc()));
        break;
      case kSimplePrimaryKey:
        while (v.remaining() > 0 && !v.failed()) info.primary_key.push_back(static_cast<uint32_t>(v.Lenenc()));
        break;
      case kPrimaryKeyWithPrefix:
        while (v.remaining() > 0 && !v.failed()) {
          info.primary_key.push_back(static_cast<uint32_t>(v.Lenenc()));
          v.Lenenc();  // prefix length
        }
        break;
      case kEnumStrValue:
        while (v.remaining() > 0 && !v.failed()) {
          // Each value takes at least its one-byte length: a count beyond
          // the bytes left is corruption, not a huge allocation.
          const uint64_t count = v.Lenenc();
          if (v.failed() || count > v.remaining()) return Status::Corruption("Table_map: bad ENUM value count");
          std::vector<std::string> values(count);
          for (std::string& s : values) s = std::string(v.Bytes(v.Lenenc()));
          info.enum_values.push_back(std::move(values));
        }
        break;
      default:
        break;  // charsets, SET values, geometry, visibility: not kept
    }
    if (v.failed()) return Status::Corruption("Table_map: bad optional metadata field " + std::to_string(field));
  }
  return info;
}

namespace {

// A rows event (v2) read up to its row images.
struct RowsHead {
  std::string_view payload;  // post-header and body
  uint8_t type = 0;
  uint64_t table_id = 0;
  uint16_t flags = 0;
  uint64_t columns = 0;
  std::vector<bool> first_cols, after_cols;  // after_cols: UPDATE only
  size_t images_at = 0;                       // where the row images start in payload
};

Result<RowsHead> ReadRowsHead(std::string_view event, Checksum checksum) {
  Result<std::string_view> payload = internal::EventPayload(event, checksum);
  if (!payload.ok()) return payload.status();
  RowsHead head;
  head.payload = *payload;
  head.type = static_cast<uint8_t>(event[4]);
  if (head.type < kWriteRowsEvent || head.type > kDeleteRowsEvent) return RowsCorruption("not a rows event (v2)");
  ByteReader r(*payload);
  head.table_id = r.LE(6);
  head.flags = static_cast<uint16_t>(r.LE(2));
  const uint64_t extra_len = r.LE(2);
  if (extra_len < 2) return RowsCorruption("bad extra_data_len");
  r.Skip(extra_len - 2);
  const uint64_t n = r.Lenenc();
  if (r.failed() || n > r.remaining() * 8) return RowsCorruption("truncated header");
  head.columns = n;
  auto read_bitmap = [&]() {
    std::string_view bytes = r.Bytes((n + 7) / 8);
    std::vector<bool> bits(n, false);
    if (r.failed()) return bits;
    for (size_t i = 0; i < n; ++i) bits[i] = (static_cast<uint8_t>(bytes[i / 8]) >> (i % 8)) & 1;
    return bits;
  };
  head.first_cols = read_bitmap();
  if (head.type == kUpdateRowsEvent) head.after_cols = read_bitmap();
  if (r.failed()) return RowsCorruption("truncated column bitmaps");
  head.images_at = r.pos();
  return head;
}

}  // namespace

Result<RowsInfo> DecodeRows(std::string_view event, const TableMapInfo& map, Checksum checksum) {
  Result<RowsHead> head = ReadRowsHead(event, checksum);
  if (!head.ok()) return head.status();
  const uint64_t n = head->columns;
  if (n != map.column_types.size() || map.column_meta.size() != n || map.nullable.size() != n) {
    return RowsCorruption("column count does not match the Table_map");
  }
  RowsInfo info;
  info.type = head->type;
  info.table_id = head->table_id;
  info.flags = head->flags;
  info.column_count = static_cast<uint32_t>(n);
  const std::vector<bool>& first_cols = head->first_cols;
  const std::vector<bool>& after_cols = head->after_cols;
  ByteReader r(head->payload);
  r.Skip(head->images_at);

  auto read_image = [&](const std::vector<bool>& cols, std::vector<DecodedValue>* out) -> Status {
    size_t present = 0;
    for (bool b : cols) present += b;
    std::string_view null_bits = r.Bytes((present + 7) / 8);
    if (r.failed()) return RowsCorruption("truncated NULL bitmap");
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!cols[i]) continue;
      DecodedValue v;
      v.column = static_cast<uint32_t>(i);
      v.is_null = (static_cast<uint8_t>(null_bits[k / 8]) >> (k % 8)) & 1;
      ++k;
      std::string typestr;
      if (v.is_null) {
        if (!DecodeValue(r, map.column_types[i], map.column_meta[i], nullptr, &typestr)) {
          return RowsCorruption("unsupported column type " + std::to_string(map.column_types[i]));
        }
        v.text = "NULL";
      } else if (!DecodeValue(r, map.column_types[i], map.column_meta[i], &v.text, &typestr)) {
        return RowsCorruption("bad value for column " + std::to_string(i + 1));
      }
      v.type_comment = "/* " + typestr + " meta=" + std::to_string(map.column_meta[i]) +
                       " nullable=" + (map.nullable[i] ? "1" : "0") + " is_null=" + (v.is_null ? "1" : "0") + " */";
      out->push_back(std::move(v));
    }
    return Status::OK();
  };
  while (r.remaining() > 0) {
    const size_t before = r.remaining();
    DecodedRow row;
    if (info.type == kWriteRowsEvent) {
      SLUICE_RETURN_IF_ERROR(read_image(first_cols, &row.after));
    } else {
      SLUICE_RETURN_IF_ERROR(read_image(first_cols, &row.before));
      if (info.type == kUpdateRowsEvent) SLUICE_RETURN_IF_ERROR(read_image(after_cols, &row.after));
    }
    // Column bitmaps with no column set make rows of zero bytes: the bytes
    // left would be read as rows forever.
    if (r.remaining() == before) return RowsCorruption("row image of no columns");
    info.rows.push_back(std::move(row));
  }
  return info;
}

namespace {

// Where a Table_map's column types start and its fixed part (up to the NULL
// bitmap, before the optional metadata) ends.
struct TableMapLayout {
  size_t types_at = 0;
  size_t columns = 0;
  size_t fixed_end = 0;
};
Result<TableMapLayout> LayoutOf(std::string_view payload) {
  ByteReader r(payload);
  TableMapLayout l;
  r.Skip(8);              // table id, flags
  r.Skip(r.LE(1) + 1);    // schema and its NUL
  r.Skip(r.LE(1) + 1);    // table and its NUL
  l.columns = r.Lenenc();
  if (r.failed() || l.columns > r.remaining()) return Status::Corruption("Table_map: truncated");
  l.types_at = r.pos();
  r.Skip(l.columns);
  r.Skip(r.Lenenc());     // metadata
  r.Skip((l.columns + 7) / 8);
  if (r.failed()) return Status::Corruption("Table_map: truncated");
  l.fixed_end = r.pos();
  return l;
}

bool HasJson(const std::vector<uint8_t>& types) {
  return std::find(types.begin(), types.end(), kMysqlJson) != types.end();
}

}  // namespace

Result<std::optional<std::string>> TableMapJsonAsLongblob(std::string_view event, Checksum checksum) {
  if (event.size() < 5 || static_cast<uint8_t>(event[4]) != kTableMapEvent) {
    return Status::Corruption("not a Table_map event");
  }
  Result<std::string_view> payload = internal::EventPayload(event, checksum);
  if (!payload.ok()) return payload.status();
  Result<TableMapLayout> l = LayoutOf(*payload);
  if (!l.ok()) return l.status();
  std::string out(payload->substr(0, l->fixed_end));
  bool any = false;
  for (size_t i = 0; i < l->columns; ++i) {
    char& type = out[l->types_at + i];
    if (static_cast<uint8_t>(type) != kMysqlJson) continue;
    type = static_cast<char>(kMysqlBlob);
    any = true;
  }
  if (!any) return std::optional<std::string>();
  Result<EventHeader> h = ParseHeader(event);
  if (!h.ok()) return h.status();
  return std::optional<std::string>(internal::FinishEvent(*h, out, checksum));
}

Result<std::optional<std::string>> RowsJsonAsText(std::string_view event, const TableMapInfo& map,
                                                  Checksum checksum, const JsonToText& to_text) {
  if (!HasJson(map.column_types)) return std::optional<std::string>();
  Result<RowsHead> head = ReadRowsHead(event, checksum);
  if (!head.ok()) return head.status();
  const uint64_t n = head->columns;
  if (n != map.column_types.size() || map.column_meta.size() != n) {
    return RowsCorruption("column count does not match the Table_map");
  }
  const uint8_t type = head->type;
  const std::vector<bool>& first_cols = head->first_cols;
  const std::vector<bool>& after_cols = head->after_cols;
  const std::string_view payload = head->payload;
  ByteReader r(payload);
  r.Skip(head->images_at);
  std::string out(payload.substr(0, r.pos()));
  std::string scratch, typestr;
  // Copies one row image, JSON values turned into text.
  auto copy_image = [&](const std::vector<bool>& cols) -> Status {
    size_t present = 0;
    for (bool b : cols) present += b;
    std::string_view null_bits = r.Bytes((present + 7) / 8);
    if (r.failed()) return RowsCorruption("truncated NULL bitmap");
    out.append(null_bits);
    size_t k = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!cols[i]) continue;
      const bool is_null = (static_cast<uint8_t>(null_bits[k / 8]) >> (k % 8)) & 1;
      ++k;
      if (is_null) continue;
      const uint16_t meta = map.column_meta[i];
      if (map.column_types[i] == kMysqlJson) {
        if (meta < 1 || meta > 4) return RowsCorruption("bad JSON length size");
        std::string_view binary = r.Bytes(r.LE(meta));
        if (r.failed()) return RowsCorruption("bad value for column " + std::to_string(i + 1));
        Result<std::string> text = to_text(binary);
        if (!text.ok()) return text.status();
        if (meta < 4 && text->size() >> (8 * meta) != 0) return RowsCorruption("JSON text too long for its column");
        PutLE(out, text->size(), meta);
        out += *text;
        continue;
      }
      const size_t start = r.pos();
      if (!DecodeValue(r, map.column_types[i], meta, &scratch, &typestr)) {
        return RowsCorruption("bad value for column " + std::to_string(i + 1));
      }
      out.append(payload.substr(start, r.pos() - start));
    }
    return Status::OK();
  };
  while (r.remaining() > 0) {
    const size_t before = r.remaining();
    SLUICE_RETURN_IF_ERROR(copy_image(first_cols));
    if (type == kUpdateRowsEvent) SLUICE_RETURN_IF_ERROR(copy_image(after_cols));
    if (r.remaining() == before) return RowsCorruption("row image of no columns");
  }
  Result<EventHeader> h = ParseHeader(event);
  if (!h.ok()) return h.status();
  return std::optional<std::string>(internal::FinishEvent(*h, out, checksum));
}

Result<std::string> RowsCompressedForMariadb(std::string_view event, Checksum checksum) {
  Result<RowsHead> head = ReadRowsHead(event, checksum);
  if (!head.ok()) return head.status();
  const std::string_view rows = head->payload.substr(head->images_at);
  if (rows.size() > 0xffffffffULL) return RowsCorruption("row images over 4 GiB");
  uLongf zlen = compressBound(static_cast<uLong>(rows.size()));
  std::string z(zlen, '\0');
  if (compress(reinterpret_cast<Bytef*>(z.data()), &zlen, reinterpret_cast<const Bytef*>(rows.data()),
               static_cast<uLong>(rows.size())) != Z_OK) {
    return Status::IOError("zlib could not compress a rows event");
  }
  z.resize(zlen);
  const int len_bytes = rows.size() < (1u << 8) ? 1 : rows.size() < (1u << 16) ? 2 : rows.size() < (1u << 24) ? 3 : 4;
  std::string out(head->payload.substr(0, head->images_at));
  out.push_back(static_cast<char>(0x80 | len_bytes));
  PutBE(out, rows.size(), len_bytes);
  out += z;
  Result<EventHeader> h = ParseHeader(event);
  if (!h.ok()) return h.status();
  h->type = static_cast<uint8_t>(kMariadbWriteRowsCompressedEvent + (head->type - kWriteRowsEvent));
  return internal::FinishEvent(*h, out, checksum);
}

}  // namespace sluice::binlog
