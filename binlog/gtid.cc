// GTIDs and GTID sets: MySQL's text form, the binary form of Previous_gtids
// and COM_BINLOG_DUMP_GTID, and the set algebra the binlog and the dump
// thread need.
#include "binlog/gtid.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>

#include "binlog/bytes_internal.h"

namespace sluice::binlog {
namespace {

using internal::ByteReader;
using internal::PutLE;

// MySQL's MAX_GNO is INT64_MAX and valid GNOs stay below it.
constexpr int64_t kMaxGno = std::numeric_limits<int64_t>::max() - 1;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// A cursor over GTID set text; every method skips leading whitespace.
class TextCursor {
 public:
  explicit TextCursor(std::string_view text) : text_(text) {}
  void SkipSpace() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // The longest run of hex digits and dashes (a UUID candidate).
  std::string_view UuidToken() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && (HexValue(text_[pos_]) >= 0 || text_[pos_] == '-')) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // A decimal GNO in [1, kMaxGno]; false when absent, zero or too large.
  bool Gno(int64_t* out) {
    SkipSpace();
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      int d = text_[pos_] - '0';
      if (v > (kMaxGno - d) / 10) return false;
      v = v * 10 + d;
      ++pos_;
    }
    if (pos_ == start || v < 1) return false;
    *out = v;
    return true;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

Status Malformed(std::string_view text) {
  return Status::MySQL(1772, "HY000", "Malformed GTID set specification '" + std::string(text) + "'.");
}

}  // namespace

// ---- Uuid ----

Result<Uuid> Uuid::Parse(std::string_view text) {
  auto malformed = [&] { return Status::InvalidArgument("malformed UUID '" + std::string(text) + "'"); };
  Uuid u;
  if (text.size() != 36 && text.size() != 32) return malformed();
  const bool dashed = text.size() == 36;
  size_t byte = 0;
  for (size_t i = 0; i < text.size();) {
    if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (text[i] != '-') return malformed();
      ++i;
      continue;
    }
    int hi = HexValue(text[i]);
    int lo = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
    if (hi < 0 || lo < 0) return malformed();
    u.bytes[byte++] = static_cast<uint8_t>(hi << 4 | lo);
    i += 2;
  }
  return u;
}

char* Uuid::FormatTo(char* out) const {
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) *out++ = '-';
    *out++ = kHex[bytes[i] >> 4];
    *out++ = kHex[bytes[i] & 0xf];
  }
  return out;
}

std::string Uuid::ToString() const {
  char text[36];
  return std::string(text, FormatTo(text));
}

std::string_view FormatGtid(const Uuid& sid, int64_t gno, std::span<char, kGtidTextMax> out) {
  char* p = sid.FormatTo(out.data());
  *p++ = ':';
  p = std::to_chars(p, out.data() + out.size(), gno).ptr;
  return std::string_view(out.data(), static_cast<size_t>(p - out.data()));
}

std::string GtidToString(const Uuid& sid, int64_t gno) {
  char text[kGtidTextMax];
  return std::string(FormatGtid(sid, gno, text));
}

bool Uuid::is_zero() const {
  return std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; });
}

// ---- GtidSet ----

Result<GtidSet> GtidSet::Parse(std::string_view text) {
  // Grammar (MySQL's, whitespace allowed between tokens):
  //   set      := [element] (',' [element])*
  //   element  := uuid (':' interval)*
  //   interval := gno ['-' gno]
  // Empty elements ("a,,b", trailing ",") are accepted as MySQL does.
  GtidSet set;
  TextCursor cur(text);
  while (!cur.AtEnd()) {
    if (cur.Consume(',')) continue;
    std::string_view token = cur.UuidToken();
    Result<Uuid> sid = Uuid::Parse(token);
    if (!sid.ok()) return Malformed(text);
    while (cur.Consume(':')) {
      int64_t first = 0;
      int64_t last = 0;
      if (!cur.Gno(&first)) return Malformed(text);
      last = first;
      if (cur.Consume('-')) {
        if (!cur.Gno(&last) || last < first) return Malformed(text);
      }
      set.AddInterval(*sid, first, last);
    }
    if (!cur.AtEnd() && !cur.Consume(',')) return Malformed(text);
  }
  return set;
}

Result<GtidSet> GtidSet::Decode(std::string_view bytes, size_t* consumed) {
  ByteReader r(bytes);
  GtidSet set;
  const uint64_t n_sids = r.LE(8);
  if (r.failed()) return Status::Corruption("GTID set truncated");
  // Each SID takes at least 24 bytes: refuse absurd counts before looping.
  if (n_sids > r.remaining() / 24) return Status::Corruption("GTID set truncated");
  for (uint64_t i = 0; i < n_sids; ++i) {
    Uuid sid;
    std::string_view raw = r.Bytes(16);
    const uint64_t n_intervals = r.LE(8);
    if (r.failed() || n_intervals > r.remaining() / 16) return Status::Corruption("GTID set truncated");
    std::copy(raw.begin(), raw.end(), sid.bytes.begin());
    for (uint64_t k = 0; k < n_intervals; ++k) {
      const uint64_t start = r.LE(8);
      const uint64_t end = r.LE(8);  // exclusive
      if (r.failed()) return Status::Corruption("GTID set truncated");
      if (start < 1 || end <= start || end - 1 > static_cast<uint64_t>(kMaxGno)) {
        return Status::Corruption("GTID set has an invalid interval");
      }
      set.AddInterval(sid, static_cast<int64_t>(start), static_cast<int64_t>(end - 1));
    }
  }
  if (consumed != nullptr) *consumed = r.pos();
  return set;
}

std::string GtidSet::ToString(std::string_view sid_separator) const {
  std::string out;
  bool first_sid = true;
  char buf[48];
  for (const auto& [sid, intervals] : sets_) {
    if (!first_sid) out.append(sid_separator);
    first_sid = false;
    out.append(sid.ToString());
    for (const Interval& iv : intervals) {
      if (iv.first == iv.last) {
        std::snprintf(buf, sizeof(buf), ":%lld", static_cast<long long>(iv.first));
      } else {
        std::snprintf(buf, sizeof(buf), ":%lld-%lld", static_cast<long long>(iv.first),
                      static_cast<long long>(iv.last));
      }
      out.append(buf);
    }
  }
  return out;
}

std::string GtidSet::Encode() const {
  std::string out;
  out.reserve(EncodedSize());
  PutLE(out, sets_.size(), 8);
  for (const auto& [sid, intervals] : sets_) {
    out.append(reinterpret_cast<const char*>(sid.bytes.data()), sid.bytes.size());
    PutLE(out, intervals.size(), 8);
    for (const Interval& iv : intervals) {
      PutLE(out, static_cast<uint64_t>(iv.first), 8);
      PutLE(out, static_cast<uint64_t>(iv.last) + 1, 8);
    }
  }
  return out;
}

size_t GtidSet::EncodedSize() const {
  size_t n = 8;
  for (const auto& [sid, intervals] : sets_) n += 16 + 8 + 16 * intervals.size();
  return n;
}

void GtidSet::Add(const Uuid& sid, int64_t gno) { AddInterval(sid, gno, gno); }

void GtidSet::AddInterval(const Uuid& sid, int64_t first, int64_t last) {
  // Invalid intervals are a caller bug; they are ignored rather than
  // corrupting the set's invariants.
  if (first < 1 || last < first || last > kMaxGno) return;
  std::vector<Interval>& v = sets_[sid];
  // First interval that overlaps or touches [first, last] from the left
  // (its last >= first - 1), then every one that starts by last + 1.
  auto lo = std::lower_bound(v.begin(), v.end(), first,
                             [](const Interval& iv, int64_t f) { return iv.last < f - 1; });
  auto hi = lo;
  int64_t new_first = first;
  int64_t new_last = last;
  while (hi != v.end() && hi->first - 1 <= last) {
    new_first = std::min(new_first, hi->first);
    new_last = std::max(new_last, hi->last);
    ++hi;
  }
  if (lo == hi) {
    v.insert(lo, Interval{new_first, new_last});
  } else {
    *lo = Interval{new_first, new_last};
    v.erase(lo + 1, hi);
  }
}

void GtidSet::Add(const GtidSet& other) {
  for (const auto& [sid, intervals] : other.sets_) {
    for (const Interval& iv : intervals) AddInterval(sid, iv.first, iv.last);
  }
}

void GtidSet::Remove(const GtidSet& other) {
  for (const auto& [sid, removed] : other.sets_) {
    auto it = sets_.find(sid);
    if (it == sets_.end()) continue;
    std::vector<Interval> kept;
    size_t r = 0;
    // Both lists are sorted and disjoint: walk them together.
    for (Interval iv : it->second) {
      while (r < removed.size() && removed[r].last < iv.first) ++r;
      size_t k = r;
      while (k < removed.size() && removed[k].first <= iv.last) {
        if (removed[k].first > iv.first) kept.push_back(Interval{iv.first, removed[k].first - 1});
        if (removed[k].last >= iv.last) {
          iv.first = iv.last + 1;  // nothing left of iv
          break;
        }
        iv.first = removed[k].last + 1;
        ++k;
      }
      if (iv.first <= iv.last) kept.push_back(iv);
    }
    if (kept.empty()) {
      sets_.erase(it);
    } else {
      it->second = std::move(kept);
    }
  }
}

bool GtidSet::Contains(const Uuid& sid, int64_t gno) const {
  auto it = sets_.find(sid);
  if (it == sets_.end()) return false;
  const std::vector<Interval>& v = it->second;
  auto pos = std::lower_bound(v.begin(), v.end(), gno, [](const Interval& iv, int64_t g) { return iv.last < g; });
  return pos != v.end() && pos->first <= gno;
}

bool GtidSet::Contains(const GtidSet& other) const {
  for (const auto& [sid, intervals] : other.sets_) {
    auto it = sets_.find(sid);
    if (it == sets_.end()) return false;
    const std::vector<Interval>& v = it->second;
    for (const Interval& iv : intervals) {
      // Intervals of `this` are merged, so one of them must cover all of iv.
      auto pos = std::lower_bound(v.begin(), v.end(), iv.first,
                                  [](const Interval& a, int64_t g) { return a.last < g; });
      if (pos == v.end() || pos->first > iv.first || pos->last < iv.last) return false;
    }
  }
  return true;
}

int64_t GtidSet::LastGno(const Uuid& sid) const {
  auto it = sets_.find(sid);
  return it == sets_.end() ? 0 : it->second.back().last;
}

}  // namespace sluice::binlog
