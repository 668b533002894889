// storage/trx/trx_types.h
//
// Small value types shared by the transaction system, undo and MVCC:
// transaction ids, isolation levels and roll pointers.
//
// Thread-safety: values; copy freely.
#pragma once

#include <cstdint>

namespace sluice::storage {

// A transaction id, stored in every clustered record (DB_TRX_ID, 6 bytes on
// disk). 0 means "no transaction" (always visible); ids start at 1. Commit
// serialisation numbers are drawn from the same counter, so an id and a
// commit number can be compared.
using TrxId = uint64_t;
inline constexpr TrxId kNoTrxId = 0;
inline constexpr TrxId kMaxTrxId = (uint64_t{1} << 48) - 1;

// MySQL's transaction_isolation values, in MySQL's order.
enum class IsolationLevel : uint8_t {
  kReadUncommitted,
  kReadCommitted,
  kRepeatableRead,  // the default
  kSerializable,
};

// DB_ROLL_PTR: where the undo record for a record's latest change lives.
// Bit 63 is the insert flag (the change was an insert: there is no older
// version). The low 63 bits are a location chosen by the UndoStore that made
// it (page-backed: page number and offset; in-memory: log slot and index).
// 0 is "none". Stored on disk; never change the layout of bit 63.
class RollPtr {
 public:
  constexpr RollPtr() = default;
  constexpr explicit RollPtr(uint64_t raw) : raw_(raw) {}
  static constexpr RollPtr Make(bool insert, uint64_t location) {
    return RollPtr((insert ? kInsertBit : 0) | (location & ~kInsertBit));
  }

  constexpr uint64_t raw() const { return raw_; }
  constexpr bool is_null() const { return raw_ == 0; }
  constexpr bool is_insert() const { return (raw_ & kInsertBit) != 0; }
  constexpr uint64_t location() const { return raw_ & ~kInsertBit; }

  friend constexpr bool operator==(RollPtr a, RollPtr b) = default;

 private:
  static constexpr uint64_t kInsertBit = uint64_t{1} << 63;
  uint64_t raw_ = 0;
};

}  // namespace sluice::storage
