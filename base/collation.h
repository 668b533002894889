// base/collation.h
//
// String collations: how two strings compare, sort and group, as MySQL 8.0's
// utf8mb4 collations do, on top of ICU's root collator (the Unicode
// Collation Algorithm with CLDR's root order, which is DUCET's for the
// characters MySQL users meet).
//
//   utf8mb4_0900_ai_ci  the default: case- and accent-insensitive ('a' = 'Á',
//                       'ß' = 'ss'), NO PAD ('a' = 'a ' is false)
//   utf8mb4_0900_as_ci  accent-sensitive, case-insensitive, NO PAD
//   utf8mb4_0900_as_cs  accent- and case-sensitive, NO PAD
//   utf8mb4_0900_bin    code point (= UTF-8 byte) order, NO PAD
//   utf8mb4_general_ci  case- and accent-insensitive, PAD SPACE (trailing
//                       spaces are ignored); also utf8mb4_unicode_ci and the
//                       other charsets' *_ci collations
//   utf8mb4_bin         byte order, PAD SPACE; also the other *_bin ones
//   binary              byte order, NO PAD (binary strings)
//
// Pure-ASCII strings under the case-insensitive collations take a fast path
// (a per-byte weight table derived from ICU once) and never call ICU.
//
// The SQL layer uses these through sql/collation.h; the storage engine
// through its index keys (storage/catalog/row_codec.h: a string key part
// is its collation's SortKey, so keys order and compare as the column
// does). Own target, sluice_collation, so that only they link ICU.
//
// Thread-safety: every function may be called from any thread. The ICU
// collators are created once, on first use, and are only used through ICU's
// const (thread-safe) calls afterwards.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::base {

enum class Collation : uint8_t {
  k0900AiCi,   // utf8mb4_0900_ai_ci (the default)
  k0900AsCi,   // utf8mb4_0900_as_ci
  k0900AsCs,   // utf8mb4_0900_as_cs
  k0900Bin,    // utf8mb4_0900_bin
  kGeneralCi,  // utf8mb4_general_ci, utf8mb4_unicode_ci, latin1_swedish_ci, ...
  kBin,        // utf8mb4_bin, latin1_bin, ...
  kBinary,     // binary
};

constexpr Collation kDefaultCollation = Collation::k0900AiCi;

// How firmly an operand's collation was chosen (MySQL's coercibility, fewer
// levels): an explicit COLLATE beats a column's collation, which beats a
// literal's or a function result's.
enum class Coercibility : uint8_t { kExplicit, kImplicit, kCoercible };

// The collation a name stands for, ignoring case: the names above, any
// "<charset>_..._0900_{ai_ci,as_ci,as_cs}" (localized variants use the root
// order), "<charset>_bin", "<charset>_..._ci" and "<charset>_..._cs" (the
// last as utf8mb4_0900_as_cs). nullopt when the name has none of these forms.
std::optional<Collation> CollationFromName(std::string_view name);

// utf8mb4_0900_ai_ci, ..., "binary".
std::string_view CollationName(Collation c);

// True for the collations that tell 'a' from 'A'.
bool IsCaseSensitive(Collation c);

// -1, 0 or 1 as `a` sorts before, equal to or after `b` under `c`.
// Malformed UTF-8 compares as U+FFFD under the ICU collations.
int CompareStrings(std::string_view a, std::string_view b, Collation c);

// A byte string such that SortKey(a, c) == SortKey(b, c) exactly when
// CompareStrings(a, b, c) == 0, and whose memcmp order (a proper prefix
// first) is CompareStrings' order: the key for hashing GROUP BY, DISTINCT
// and COUNT(DISTINCT) values, and the bytes of a string in an index key.
// Stored on disk (index keys): a change of any collation's keys needs a
// new key format (storage/catalog/table_def.h, IndexDef::key_format).
std::string SortKey(std::string_view s, Collation c);
// The same appended to *out.
void AppendSortKey(std::string_view s, Collation c, std::string* out);

// Many comparisons under one collation (a sort): where HasAsciiOrder(c),
// two pure-ASCII strings (IsAscii) compare by a rank table, with
// CompareAscii(a, b, c) == CompareStrings(a, b, c) and no sort key made.
// True for utf8mb4_0900_ai_ci and the _general_ci family.
bool HasAsciiOrder(Collation c);
bool IsAscii(std::string_view s);
// REQUIRES: HasAsciiOrder(c), IsAscii(a), IsAscii(b).
int CompareAscii(std::string_view a, std::string_view b, Collation c);
// The first eight weights CompareAscii(_, _, c) compares, big-endian, zero
// padded: AsciiOrderPrefix(a, c) < AsciiOrderPrefix(b, c) implies
// CompareAscii(a, b, c) < 0 (equal prefixes decide nothing). A sort
// compares these first and the strings only on a tie.
// REQUIRES: HasAsciiOrder(c), IsAscii(s).
uint64_t AsciiOrderPrefix(std::string_view s, Collation c);

// True when the characters `a` and `b` (one UTF-8 sequence each) are equal
// under `c`, character against character: what LIKE compares. No padding.
bool CharsEqual(std::string_view a, std::string_view b, Collation c);

// UPPER() / LOWER() of UTF-8 text: each code point's simple (one-to-one)
// case mapping, as MySQL's utf8mb4 does ('ß' stays 'ß'). Malformed bytes
// are copied unchanged.
std::string Utf8ToUpper(std::string_view s);
std::string Utf8ToLower(std::string_view s);

}  // namespace sluice::base
