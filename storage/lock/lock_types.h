// storage/lock/lock_types.h
//
// Lock modes, record-lock precision and the compatibility rules of InnoDB
// (MySQL 8.0), as plain constexpr functions so that the lock manager, the
// reference table in tools/lock_bench and the tests share one definition.
//
// Table locks: IS, IX, S, X, AUTO-INC with InnoDB's 5x5 matrix.
// Record locks: S or X, refined by a precision:
//   next-key (InnoDB LOCK_ORDINARY)  the record and the gap before it
//   gap                              the gap before the record only
//   rec-not-gap                      the record only
//   insert-intention                 X + gap + "I want to insert into it"
// The numeric values of the precision bits are InnoDB's (LOCK_GAP 512,
// LOCK_REC_NOT_GAP 1024, LOCK_INSERT_INTENTION 2048) so that reports read the
// same; they are not persisted anywhere.
//
// Thread-safety: values and pure functions.
#pragma once

#include <cstdint>
#include <functional>

namespace sluice::storage {

using TableId = uint64_t;

enum class LockMode : uint8_t {
  kIS = 0,
  kIX = 1,
  kS = 2,
  kX = 3,
  kAutoInc = 4,  // table locks only; statement duration (ReleaseTable at statement end)
};
inline constexpr int kNumLockModes = 5;

// Record-lock precision. Insert-intention implies gap (and mode X).
enum class RecLockType : uint16_t {
  kNextKey = 0,
  kGap = 512,
  kRecNotGap = 1024,
  kInsertIntention = 512 | 2048,
};

// Precision bits as stored in a request.
inline constexpr uint16_t kGapBit = 512;
inline constexpr uint16_t kRecNotGapBit = 1024;
inline constexpr uint16_t kInsertIntentionBit = 2048;

// A record: (space, page, heap number), InnoDB's addressing. Record locks are
// sharded by (space_id, page_no), so an engine that locks keys rather than
// heap slots puts a key-group number in page_no and the key's ordinal (or
// hash) in heap_no. heap_no kSupremumHeapNo is the page's supremum
// pseudo-record: every lock on it is a gap lock ("the gap above the last
// record").
struct RecordId {
  uint64_t space_id = 0;
  uint64_t page_no = 0;
  uint64_t heap_no = 0;
  friend bool operator==(const RecordId&, const RecordId&) = default;
};
inline constexpr uint64_t kSupremumHeapNo = 1;

const char* LockModeName(LockMode mode);  // "IS", "IX", "S", "X", "AUTO-INC"

// InnoDB's table-lock compatibility (symmetric).
constexpr bool LockModesCompatible(LockMode a, LockMode b) {
  //                                   IS     IX     S      X      AI
  constexpr bool kCompat[5][5] = {/*IS*/ {true, true, true, false, true},
                                  /*IX*/ {true, true, false, false, true},
                                  /*S */ {true, false, true, false, false},
                                  /*X */ {false, false, false, false, false},
                                  /*AI*/ {true, true, false, false, false}};
  return kCompat[static_cast<int>(a)][static_cast<int>(b)];
}

// True when holding `a` makes a request for `b` redundant:
// X covers everything, S covers IS, IX covers IS, AUTO-INC covers itself.
constexpr bool LockModeStrongerOrEqual(LockMode a, LockMode b) {
  //                                   IS     IX     S      X      AI
  constexpr bool kStrength[5][5] = {/*IS*/ {true, false, false, false, false},
                                    /*IX*/ {true, true, false, false, false},
                                    /*S */ {true, false, true, false, false},
                                    /*X */ {true, true, true, true, true},
                                    /*AI*/ {false, false, false, false, true}};
  return kStrength[static_cast<int>(a)][static_cast<int>(b)];
}

// Must a record-lock request (req_mode, req_bits) of one transaction wait for
// a lock (held_mode, held_bits) of another transaction on the same record?
// InnoDB's rules (lock_rec_has_to_wait), restated:
//  - only S-S is compatible as a mode; a compatible mode never waits;
//  - a gap request, or any request on the supremum, that is not an insert
//    intention never waits (gap locks are purely inhibitive);
//  - a non-insert-intention request never waits for a gap-only lock;
//  - a gap request (insert intention included) never waits for rec-not-gap;
//  - nobody waits for an insert-intention lock.
constexpr bool RecLockHasToWait(LockMode req_mode, uint16_t req_bits, LockMode held_mode,
                                uint16_t held_bits, bool on_supremum) {
  if (req_mode == LockMode::kS && held_mode == LockMode::kS) return false;
  const bool req_ii = (req_bits & kInsertIntentionBit) != 0;
  if ((on_supremum || (req_bits & kGapBit) != 0) && !req_ii) return false;
  if (!req_ii && (held_bits & kGapBit) != 0) return false;
  if ((req_bits & kGapBit) != 0 && (held_bits & kRecNotGapBit) != 0) return false;
  if ((held_bits & kInsertIntentionBit) != 0) return false;
  return true;
}

// Does a granted lock (held_mode, held_bits) of a transaction make its own new
// request (req_mode, req_bits) redundant? (InnoDB lock_rec_has_expl.)
// Next-key covers every precision; rec-not-gap covers rec-not-gap; gap covers
// gap; on the supremum precision is irrelevant. Insert-intention locks cover
// nothing.
constexpr bool RecLockCovers(LockMode held_mode, uint16_t held_bits, LockMode req_mode,
                             uint16_t req_bits, bool on_supremum) {
  if ((held_bits & kInsertIntentionBit) != 0) return false;
  if (!LockModeStrongerOrEqual(held_mode, req_mode)) return false;
  if (on_supremum) return true;
  if ((held_bits & kRecNotGapBit) != 0 && (req_bits & kRecNotGapBit) == 0) return false;
  if ((held_bits & kGapBit) != 0 && (req_bits & kGapBit) == 0) return false;
  return true;
}

}  // namespace sluice::storage

template <>
struct std::hash<sluice::storage::RecordId> {
  size_t operator()(const sluice::storage::RecordId& r) const noexcept {
    uint64_t h = r.space_id * 0x9E3779B97F4A7C15ull ^ (r.page_no + 0x632BE59BD9B4E019ull);
    h ^= r.heap_no * 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return static_cast<size_t>(h * 0x9E3779B97F4A7C15ull);
  }
};
