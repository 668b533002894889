// binlog/gtid.h
//
// GTIDs: a source UUID and a transaction number (GNO, 1..2^63-1), and
// GTID sets as MySQL writes them: "uuid:1-5:7,uuid2:3" (UUIDs sorted, each
// with sorted disjoint intervals) and, in Previous_gtids events and
// COM_BINLOG_DUMP_GTID, the binary form n_sids(8) then per SID uuid(16)
// n_intervals(8) [start(8) end_exclusive(8)]... (little-endian).
//
// Thread-safety: values.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sluice::binlog {

struct Uuid {
  std::array<uint8_t, 16> bytes{};
  // "3e11fa47-71ca-11e1-9e33-c80aa9429562" (also without dashes). 
  // InvalidArgument when malformed.
  static Result<Uuid> Parse(std::string_view text);
  std::string ToString() const;  // lower case, with dashes
  // The same 36 characters into `out`; returns the end of what it wrote.
  char* FormatTo(char* out) const;
  bool is_zero() const;
  auto operator<=>(const Uuid&) const = default;
};

// One GTID's text, "uuid:gno", is at most this long (GNOs have up to 19
// digits).
inline constexpr size_t kGtidTextMax = 36 + 1 + 19;
// "uuid:gno" into `out` (kGtidTextMax characters), without allocating;
// returns the text, which lives in `out`.
std::string_view FormatGtid(const Uuid& sid, int64_t gno, std::span<char, kGtidTextMax> out);
std::string GtidToString(const Uuid& sid, int64_t gno);

class GtidSet {
 public:
  // Closed interval [first, last] of GNOs.
  struct Interval {
    int64_t first;
    int64_t last;
    bool operator==(const Interval&) const = default;
  };

  // MySQL's text form; whitespace and newlines around elements are
  // accepted, "" is the empty set. MySQL error 1772 ("Malformed GTID set
  // specification 'x'.") when malformed.
  static Result<GtidSet> Parse(std::string_view text);
  // The binary form (Previous_gtids body, COM_BINLOG_DUMP_GTID data).
  // Corruption when truncated or inconsistent; `consumed` (if given) is
  // set to the bytes used.
  static Result<GtidSet> Decode(std::string_view bytes, size_t* consumed = nullptr);

  // "" when empty. MySQL separates SIDs with ",\n" in @@gtid_executed and
  // SHOW MASTER STATUS; pass "," for one line.
  std::string ToString(std::string_view sid_separator = ",\n") const;
  std::string Encode() const;
  size_t EncodedSize() const;

  void Add(const Uuid& sid, int64_t gno);
  void AddInterval(const Uuid& sid, int64_t first, int64_t last);
  void Add(const GtidSet& other);
  void Remove(const GtidSet& other);  // set difference
  bool Contains(const Uuid& sid, int64_t gno) const;
  bool Contains(const GtidSet& other) const;  // other ⊆ this
  bool empty() const { return sets_.empty(); }
  // The largest GNO of `sid` (0 when none).
  int64_t LastGno(const Uuid& sid) const;
  void Clear() { sets_.clear(); }
  const std::map<Uuid, std::vector<Interval>>& sids() const { return sets_; }
  bool operator==(const GtidSet&) const = default;

 private:
  std::map<Uuid, std::vector<Interval>> sets_;  // no empty vectors
};

}  // namespace sluice::binlog
