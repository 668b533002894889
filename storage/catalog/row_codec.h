// storage/catalog/row_codec.h
//
// Row format and index keys for the tables the catalog describes.
//
// Values (RowValue) by column type:
//   NULL                                 std::monostate
//   TINYINT..BIGINT signed               int64_t
//   TINYINT..BIGINT UNSIGNED             uint64_t
//   FLOAT, DOUBLE                        double
//   DECIMAL(p,s)                         std::string, decimal text ("-12.50");
//                                        decoded in canonical form: no
//                                        leading zeros, exactly s decimals
//   CHAR..LONGTEXT, BINARY..LONGBLOB     std::string (bytes as stored)
//   DATE                                 int64_t PackDate()
//   TIME                                 int64_t PackTime() (signed microseconds)
//   DATETIME                             int64_t PackDateTime()
//   TIMESTAMP                            int64_t microseconds since the Unix epoch, UTC
//   YEAR                                 uint64_t (0, or 1901..2155)
//   ENUM                                 uint64_t 1-based index into enum_values
//
// Record (EncodeRow): [null bitmap: one bit per nullable column, in ordinal
// order, 1 = NULL, ceil(n/8) bytes] then each non-NULL column in ordinal
// order: fixed-width types little-endian in their width (TINYINT 1 ..
// BIGINT 8, FLOAT 4, DOUBLE 8, DATE 3, TIME 6, DATETIME/TIMESTAMP 8, YEAR 1,
// ENUM 2, DECIMAL(p,s) 1 + ceil(p/2), BINARY(n) n bytes zero-padded);
// CHAR, VARCHAR, VARBINARY, TEXT and BLOB as a LEB128 length then the bytes.
// CHAR is stored without trailing spaces (as MySQL returns it).
//
// DECIMAL bytes (row and key alike, memcmp-ordered): a sign byte (0x01 for
// >= 0, 0x00 for < 0) then p digits as BCD nibbles (a leading 0 nibble when
// p is odd), p-s integer digits then s fraction digits, each digit d written
// as 9-d for negatives.
//
// Index keys (storage/btree/key_codec.h): per key part, nullable columns get
// the NULL marker; integers in their width, FLOAT/DOUBLE as doubles, DECIMAL
// as above, strings as KeyEncoder strings (escaped, prefix-free), temporals
// as 8-byte signed ints, YEAR 1 byte, ENUM 2 bytes (by index, as MySQL
// sorts ENUM). A DESC part's bytes are complemented (each component is
// prefix-free, so this reverses its order). What a string's bytes are
// depends on the index's key_format (table_def.h):
//   kKeyFormatCollation  a text column's value (prefix-truncated in
//     characters, CHAR without trailing spaces) as its collation's
//     base::SortKey: values equal under the collation ('Bob' and 'bob'
//     under utf8mb4_0900_ai_ci; 'a' and 'a ' under a PAD SPACE one) have
//     one key, so PRIMARY KEY and UNIQUE refuse the second with 1062, a
//     lookup by either finds the row, and keys sort in the collation's
//     order. Binary strings (BINARY, VARBINARY, BLOB, binary collation):
//     their bytes.
//   kKeyFormatBytes (indexes made before) every string as its bytes,
//     CHAR/VARCHAR without trailing spaces.
// The clustered key is the PRIMARY KEY's parts, or the 6-byte row id for a
// GEN_CLUST_INDEX table. A secondary entry's key is its key parts followed
// by the clustered key.
//
// Strict-mode checks: the SQL layer calls CheckRow (or CheckColumnValue)
// on every row it inserts or updates before encoding. Encode* assume
// checked values and fail with the same errors otherwise.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/status.h"
#include "storage/catalog/table_def.h"

namespace sluice::storage {

using RowValue = std::variant<std::monostate, int64_t, uint64_t, double, std::string>;
using Row = std::vector<RowValue>;  // one value per column, in ordinal order

inline bool IsNull(const RowValue& v) { return std::holds_alternative<std::monostate>(v); }

// Temporal packing; all monotonic in the value's order.
int64_t PackDate(int year, int month, int day);
int64_t PackDateTime(int year, int month, int day, int hour, int minute, int second, int micros);
int64_t PackTime(bool negative, int hours, int minutes, int seconds, int micros);
struct DateTimeParts {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
  bool negative = false;  // TIME only
};
DateTimeParts UnpackDate(int64_t packed);
DateTimeParts UnpackDateTime(int64_t packed);
DateTimeParts UnpackTime(int64_t packed);

// Strict-mode checks for the value stored into `column` at 1-based
// `row_number`. Normalizes in place what MySQL adjusts silently: DECIMAL
// rounded to its scale and made canonical, fractional seconds truncated to
// fsp, CHAR/VARCHAR excess trailing spaces dropped, integers moved to the
// column's signedness. Errors:
//   1048 "Column '%s' cannot be null"            NULL in a NOT NULL column
//   1264 "Out of range value for column '%s' at row %lu"
//   1406 "Data too long for column '%s' at row %lu"
//   InvalidArgument                               wrong RowValue alternative
Status CheckColumnValue(const ColumnDef& column, RowValue* value, uint64_t row_number);

// The first `chars` characters of `s`, a value of column `c` (bytes for
// binary strings and single-byte charsets): what a prefix key part keeps.
std::string_view CharPrefix(const ColumnDef& c, std::string_view s, size_t chars);
// All columns; `row` must have one value per column.
Status CheckRow(const TableDef& table, Row* row, uint64_t row_number);

Result<std::string> EncodeRow(const TableDef& table, const Row& row);
// Corruption when the bytes do not match the table's layout.
Result<Row> DecodeRow(const TableDef& table, std::string_view record);
// The same into `*out`, reusing its storage (a scan decodes every row into
// one Row, so its vector and string buffers are allocated once); `*out` is
// unspecified after an error.
Status DecodeRowInto(const TableDef& table, std::string_view record, Row* out);

// Bytes an integer column takes (TINYINT 1 .. BIGINT 8), and its value range
// (by the column's signedness).
size_t IntWidth(ColumnType t);
void IntRange(const ColumnDef& c, __int128* lo, __int128* hi);

// The clustered index key: the PRIMARY KEY's parts, or `row_id` (6 bytes)
// when the table has a GEN_CLUST_INDEX.
Result<std::string> EncodeClusteredKey(const TableDef& table, const Row& row, uint64_t row_id);
// `index`'s key parts only (what a UNIQUE check or a lookup compares).
Result<std::string> EncodeIndexKey(const TableDef& table, const IndexDef& index, const Row& row);
// The value of an integer column encoded as the FIRST part of an index key
// (AppendKeyPart's form): nullopt when NULL, negative values as is.
// InvalidArgument for a non-integer column.
Result<std::optional<int64_t>> DecodeLeadingIntKeyPart(const ColumnDef& column, std::string_view key);
// A secondary index entry's key: EncodeIndexKey followed by the clustered key.
Result<std::string> EncodeSecondaryEntryKey(const TableDef& table, const IndexDef& index,
                                            const Row& row, uint64_t row_id);

// How many leading bytes of `entry` (a secondary entry key, or any key
// that starts with `index`'s key) are `index`'s key: the clustered key
// follows. Corruption when `entry` is too short for the parts.
Result<size_t> IndexKeyLength(const TableDef& table, const IndexDef& index, std::string_view entry);

// DECIMAL(precision, scale) text <-> its fixed 1 + ceil(p/2) bytes.
// 1264 (row `row_number`, column `column_name`) when the integer part does
// not fit; fraction digits beyond `scale` are rounded half away from zero.
Result<std::string> EncodeDecimal(std::string_view text, uint32_t precision, uint32_t scale,
                                  std::string_view column_name = "", uint64_t row_number = 1);
Result<std::string> DecodeDecimal(std::string_view bytes, uint32_t precision, uint32_t scale);

}  // namespace sluice::storage
