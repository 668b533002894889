// sql/value.h
//
// Value: one SQL value as the executor computes it (NULL, signed and
// unsigned 64-bit integers, DOUBLE, exact DECIMAL, and strings with a
// collation). Conversions follow MySQL's rules for the common cases:
// a string used as a number is parsed from its leading numeric prefix,
// a number used as a string is its text form, DECIMAL keeps its scale.
//
// Thread-safety: a value type; copy freely.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sql/collation.h"
#include "sql/decimal.h"

namespace sluice::sql {

// Text of `d` as MySQL sends it in a text resultset: the shortest digits that
// read back as `d`, in fixed notation when the decimal point lies within
// 10^-15 .. 10^15 (or inside the digits), otherwise as 1.5e20 / 1e-20.
std::string FormatDouble(double d);

// What a string value stands for beyond its text. Temporal values are kept in
// MySQL's text form ("2024-01-02 03:04:05.123"); the tag lets the server pick
// a column type and lets arithmetic use MySQL's numeric form of a temporal
// value (NOW() + 0 -> 20240102030405). An ENUM column's value (kEnum) is its
// member's text that also carries the member's index: as a number it is the
// index (e + 0, e = 2, SUM(e)), as a string its text, and ORDER BY sorts it
// by index (CompareForOrder), as MySQL does.
enum class StringType : uint8_t { kText, kDate, kTime, kDatetime, kJson, kEnum };

enum class ValueKind : uint8_t { kNull, kInt, kUInt, kDouble, kDecimal, kString };

class Value {
 public:
  Value() = default;  // NULL
  static Value Null() { return Value(); }
  static Value Int(int64_t v);
  static Value UInt(uint64_t v);
  static Value Double(double v);
  static Value Dec(Decimal v);
  // `binary` marks a binary string (VARBINARY, BLOB, _binary '...', X'..').
  static Value String(std::string v, bool binary = false);
  static Value Bool(bool v) { return Int(v ? 1 : 0); }
  // A non-binary string with a type tag (temporal text, JSON).
  static Value Typed(std::string v, StringType type);
  // An ENUM column's value: member `index` (1-based; 0 is the '' of an
  // invalid value) whose text is `text`.
  static Value Enum(std::string text, uint64_t index);

  ValueKind kind() const { return kind_; }
  bool is_null() const { return kind_ == ValueKind::kNull; }
  bool is_string() const { return kind_ == ValueKind::kString; }
  bool is_numeric() const { return !is_null() && !is_string(); }
  bool is_binary() const { return binary_; }
  // The collation a string value compares with: kBinary for binary strings;
  // otherwise what it was tagged with (utf8mb4_0900_ai_ci unless COLLATE or
  // a column's collation set another), and how firmly.
  Collation collation() const { return binary_ ? Collation::kBinary : collation_; }
  Coercibility coercibility() const { return coercibility_; }
  // Tags a non-binary string with a collation: kExplicit for x COLLATE c,
  // kImplicit for a column's value. No effect on other values.
  void set_collation(Collation c, Coercibility how) {
    if (kind_ != ValueKind::kString || binary_) return;
    collation_ = c;
    coercibility_ = how;
  }
  // kText for every non-string and for plain strings.
  StringType string_type() const { return string_type_; }
  bool is_enum() const { return string_type_ == StringType::kEnum; }
  // REQUIRES: is_enum().
  uint64_t enum_index() const { return u_; }
  bool is_temporal() const {
    return string_type_ == StringType::kDate || string_type_ == StringType::kTime ||
           string_type_ == StringType::kDatetime;
  }

  // Raw accessors; REQUIRES: the matching kind.
  int64_t int_value() const { return i_; }
  uint64_t uint_value() const { return u_; }
  double double_value() const { return d_; }
  const Decimal& decimal_value() const { return dec_; }
  const std::string& string_value() const { return s_; }

  // Conversions with MySQL's rules. A NULL converts to 0 / "" (callers test
  // is_null() first where NULL matters). `ToInt` rounds DECIMAL half away
  // from zero, DOUBLE to the nearest integer with ties to even (MySQL's
  // rint(): 2.5e0 -> 2, 3.5e0 -> 4), and parses strings by their numeric
  // prefix.
  int64_t ToInt() const;
  uint64_t ToUInt() const;
  double ToDouble() const;
  Decimal ToDecimal() const;
  // The text form a client sees in a text resultset: 1, -5, 1.50, 0.1 (DOUBLE
  // with up to 17 significant digits, shortest round-trip form as MySQL's %g).
  std::string ToString() const;
  // MySQL truth: NULL -> nullopt; numbers != 0; strings by numeric prefix.
  std::optional<bool> ToBool() const;

 private:
  ValueKind kind_ = ValueKind::kNull;
  bool binary_ = false;
  StringType string_type_ = StringType::kText;
  Collation collation_ = kDefaultCollation;
  Coercibility coercibility_ = Coercibility::kCoercible;
  int64_t i_ = 0;
  uint64_t u_ = 0;
  double d_ = 0;
  Decimal dec_;
  std::string s_;
};

}  // namespace sluice::sql
