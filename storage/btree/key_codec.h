// storage/btree/key_codec.h
//
// Byte-comparable key encoding: KeyEncoder turns column values into bytes
// whose memcmp order (shorter first on a tie) is the values' order, so the
// B-tree compares keys with memcmp alone. Components concatenate: a
// composite key (a, b) encodes a then b, and a secondary index entry is the
// secondary key's encoding followed by the primary key's.
//
//   integers   big-endian, sign bit flipped for signed types, in the
//              column's width (TINYINT 1 ... BIGINT 8 bytes)
//   row id     6 bytes big-endian (the hidden DB_ROW_ID of a table with no
//              primary key)
//   double     IEEE bits, all flipped for negatives, sign flipped otherwise
//   strings    each 0x00 byte written as 0x00 0xFF, then the terminator
//              0x00 0x01, so a string never is a prefix of a longer one's
//              encoding and the next component compares only on ties
//   NULL       a nullable column starts with 0x00 (NULL; nothing follows)
//              or 0x01 (a value follows): NULL sorts first, as in MySQL
//
// Collations: a text key part is String() of its collation's sort key
// (storage/catalog/row_codec.h), so keys compare as the collation does;
// DESC key parts complement their component's bytes (row_codec.h too).
//
// Unique secondary indexes: an entry (key, pk) is unique as a whole even
// when the key repeats, so a unique index stores key -> pk (the pk as the
// value) for rows whose key has no NULL, and (key, pk) -> "" for rows with
// a NULL (NULLs never collide). Then BTree::Insert's duplicate check is the
// UNIQUE check.
//
// Thread-safety: values; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice::storage {

class KeyEncoder {
 public:
  KeyEncoder() = default;

  // Signed integer stored in `width` bytes (1, 2, 3, 4 or 8).
  // REQUIRES: v fits in `width` bytes.
  KeyEncoder& Int(int64_t v, size_t width = 8);
  // Unsigned integer stored in `width` bytes (1..8).
  KeyEncoder& Uint(uint64_t v, size_t width = 8);
  // The hidden 6-byte row id. REQUIRES: row_id < 2^48.
  KeyEncoder& RowId(uint64_t row_id) { return Uint(row_id, 6); }
  KeyEncoder& Double(double v);
  // A byte string: a binary string's bytes, or a text value's sort key.
  KeyEncoder& String(std::string_view s);
  // Nullable columns: Null() alone, or NotNull() followed by the value.
  KeyEncoder& Null();
  KeyEncoder& NotNull();

  const std::string& key() const { return key_; }
  std::string Release() { return std::move(key_); }
  void Clear() { key_.clear(); }

 private:
  std::string key_;
};

// Reads components back, in the order they were written. Corruption when
// the bytes run out or a string is not terminated. Borrows `key`: the bytes
// must outlive the decoder.
class KeyDecoder {
 public:
  explicit KeyDecoder(std::string_view key) : rest_(key) {}

  Result<int64_t> Int(size_t width = 8);
  Result<uint64_t> Uint(size_t width = 8);
  Result<uint64_t> RowId() { return Uint(6); }
  Result<double> Double();
  // Binary strings only: a sort key cannot be turned back into text.
  Result<std::string> String();
  // Consumes a nullable column's marker: true when the column is NULL.
  Result<bool> IsNull();

  bool done() const { return rest_.empty(); }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

}  // namespace sluice::storage
