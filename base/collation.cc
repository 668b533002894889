#include "base/collation.h"

#include <unicode/uchar.h>
#include <unicode/ucol.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "base/strings.h"

namespace sluice::base {

namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool IsAscii(std::string_view s) {
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    if (w & 0x8080808080808080ULL) return false;
  }
  for (; n > 0; ++p, --n) {
    if (static_cast<unsigned char>(*p) >= 0x80) return false;
  }
  return true;
}

namespace {

std::string_view StripTrailingSpaces(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

int Sign(int c) { return c < 0 ? -1 : c > 0 ? 1 : 0; }

int CompareBytes(std::string_view a, std::string_view b) { return Sign(a.compare(b)); }

// PAD SPACE byte comparison: the shorter string compares as if padded with
// spaces, so 'a' = 'a  ' and 'a' > 'a\t'.
int ComparePadSpaceBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = std::memcmp(a.data(), b.data(), n);
  if (c != 0) return Sign(c);
  std::string_view rest = a.size() > n ? a.substr(n) : b.substr(n);
  const int sign = a.size() > n ? 1 : -1;
  for (char ch : rest) {
    if (ch != ' ') return static_cast<unsigned char>(ch) > ' ' ? sign : -sign;
  }
  return 0;
}

// ICU's sort key of UTF-8 text (malformed bytes as U+FFFD), without the
// terminating zero byte.
std::string IcuSortKey(const UCollator* coll, std::string_view s) {
  UErrorCode status = U_ZERO_ERROR;
  std::vector<UChar> utf16(s.size() + 1);
  int32_t len = 0;
  u_strFromUTF8WithSub(utf16.data(), static_cast<int32_t>(utf16.size()), &len, s.data(),
                       static_cast<int32_t>(s.size()), 0xFFFD, nullptr, &status);
  if (U_FAILURE(status)) return std::string(s);
  std::string key(s.size() * 4 + 16, '\0');
  int32_t n = ucol_getSortKey(coll, utf16.data(), len, reinterpret_cast<uint8_t*>(key.data()),
                              static_cast<int32_t>(key.size()));
  if (n > static_cast<int32_t>(key.size())) {
    key.resize(n);
    n = ucol_getSortKey(coll, utf16.data(), len, reinterpret_cast<uint8_t*>(key.data()), n);
  }
  key.resize(n > 0 ? n - 1 : 0);  // drop the terminating 0
  return key;
}

// ICU's root collator at the three strengths MySQL's collations use, and the
// ASCII weight table of the primary one.
class Collators {
 public:
  static const Collators& Get() {
    static const Collators collators;
    return collators;
  }
  ~Collators() {
    for (UCollator* c : {primary_, secondary_, tertiary_}) {
      if (c != nullptr) ucol_close(c);
    }
  }
  Collators(const Collators&) = delete;
  Collators& operator=(const Collators&) = delete;

  // Null when ICU has no collation data (then strings compare ignoring
  // ASCII case, as before ICU).
  const UCollator* ForStrength(Collation c) const {
    switch (c) {
      case Collation::k0900AsCi: return secondary_;
      case Collation::k0900AsCs: return tertiary_;
      default: return primary_;
    }
  }

  // The ASCII fast path: rank 0 is a completely ignorable character (the C0
  // controls but TAB..CR, and DEL); equal ranks are equal at primary
  // strength; rank order is the collation's. `weights` are the characters'
  // primary sort-key bytes, which concatenate into ICU's sort key of a
  // pure-ASCII string (checked when the table is built).
  bool ascii_ok() const { return ascii_ok_; }
  uint8_t rank(char ch) const { return rank_[static_cast<unsigned char>(ch)]; }
  // Appends the weights of pure-ASCII `s` (the sort key the fast path
  // makes) with one resize and a fixed-size copy per character.
  void AppendAsciiWeights(std::string_view s, std::string* out) const {
    const size_t at = out->size();
    out->resize(at + s.size() * kMaxWeight);
    char* p = out->data() + at;
    for (char ch : s) {
      const unsigned char u = static_cast<unsigned char>(ch);
      std::memcpy(p, packed_[u].data(), kMaxWeight);
      p += packed_len_[u];
    }
    out->resize(static_cast<size_t>(p - out->data()));
  }

 private:
  Collators() {
    primary_ = Open(UCOL_PRIMARY);
    secondary_ = Open(UCOL_SECONDARY);
    tertiary_ = Open(UCOL_TERTIARY);
    if (primary_ != nullptr) BuildAsciiTable();
  }

  static UCollator* Open(UCollationStrength strength) {
    UErrorCode status = U_ZERO_ERROR;
    UCollator* c = ucol_open("", &status);  // root: UCA with CLDR's root order
    if (U_FAILURE(status) || c == nullptr) {
      if (c != nullptr) ucol_close(c);
      return nullptr;
    }
    ucol_setStrength(c, strength);
    return c;
  }

  int Compare(std::string_view a, std::string_view b) const {
    UErrorCode status = U_ZERO_ERROR;
    UCollationResult r = ucol_strcollUTF8(primary_, a.data(), static_cast<int32_t>(a.size()),
                                          b.data(), static_cast<int32_t>(b.size()), &status);
    return r == UCOL_LESS ? -1 : r == UCOL_GREATER ? 1 : 0;
  }

  void BuildAsciiTable() {
    std::vector<char> order;
    for (int ch = 0; ch < 128; ++ch) {
      const char c = static_cast<char>(ch);
      if (Compare(std::string_view(&c, 1), {}) != 0) order.push_back(c);
    }
    std::stable_sort(order.begin(), order.end(), [&](char x, char y) {
      return Compare(std::string_view(&x, 1), std::string_view(&y, 1)) < 0;
    });
    uint8_t next = 0;
    for (size_t i = 0; i < order.size(); ++i) {
      if (i == 0 || Compare(std::string_view(&order[i - 1], 1), std::string_view(&order[i], 1)) != 0) {
        ++next;
      }
      rank_[static_cast<unsigned char>(order[i])] = next;
    }
    for (int ch = 0; ch < 128; ++ch) {
      const char c = static_cast<char>(ch);
      weight_[ch] = IcuSortKey(primary_, std::string_view(&c, 1));
      if ((rank_[ch] == 0) != weight_[ch].empty()) return;
      if (weight_[ch].size() > kMaxWeight) return;
      std::memcpy(packed_[ch].data(), weight_[ch].data(), weight_[ch].size());
      packed_len_[ch] = static_cast<uint8_t>(weight_[ch].size());
    }
    // The fast paths are exact when every character has its own weight
    // bytes (no contractions or lead-byte compression between neighbours),
    // no character's weight is a prefix of another's, and the weights sort
    // as the ranks do. All of that holds for ICU's root order; verify rather
    // than assume, so another ICU version can only make things slower.
    for (int x = 0; x < 128; ++x) {
      for (int y = 0; y < 128; ++y) {
        const char pair[2] = {static_cast<char>(x), static_cast<char>(y)};
        if (IcuSortKey(primary_, std::string_view(pair, 2)) != weight_[x] + weight_[y]) return;
        if (rank_[x] == 0 || rank_[y] == 0 || x == y) continue;
        const std::string& wx = weight_[x];
        const std::string& wy = weight_[y];
        if (rank_[x] == rank_[y]) {
          if (wx != wy) return;
          continue;
        }
        if (wy.compare(0, wx.size(), wx) == 0 || wx.compare(0, wy.size(), wy) == 0) return;
        if ((rank_[x] < rank_[y]) != (wx < wy)) return;
      }
    }
    ascii_ok_ = true;
  }

 private:
  UCollator* primary_ = nullptr;
  UCollator* secondary_ = nullptr;
  UCollator* tertiary_ = nullptr;
  bool ascii_ok_ = false;
  std::array<uint8_t, 128> rank_{};
  std::array<std::string, 128> weight_{};
  static constexpr size_t kMaxWeight = 4;  // bytes; ICU's root order uses 2 or 3 for ASCII
  std::array<std::array<char, kMaxWeight>, 128> packed_{};  // weight_, zero-padded
  std::array<uint8_t, 128> packed_len_{};
};

// Primary-strength comparison of two pure-ASCII strings by the rank table.
inline int CompareAsciiPrimary(const Collators& t, std::string_view a, std::string_view b) {
  // A common prefix of identical bytes weighs the same on both sides.
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) ++i;
  size_t j = i;
  for (;;) {
    uint8_t x = 0, y = 0;
    while (i < a.size() && (x = t.rank(a[i])) == 0) ++i;
    while (j < b.size() && (y = t.rank(b[j])) == 0) ++j;
    if (i == a.size() || j == b.size()) {
      if (i == a.size() && j == b.size()) return 0;
      return i == a.size() ? -1 : 1;
    }
    if (x != y) return x < y ? -1 : 1;
    ++i;
    ++j;
  }
}

char FoldAscii(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string FoldAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = FoldAscii(c);
  return out;
}

int IcuCompare(const UCollator* coll, std::string_view a, std::string_view b) {
  UErrorCode status = U_ZERO_ERROR;
  UCollationResult r = ucol_strcollUTF8(coll, a.data(), static_cast<int32_t>(a.size()), b.data(),
                                        static_cast<int32_t>(b.size()), &status);
  if (U_FAILURE(status)) return CompareBytes(a, b);
  return r == UCOL_LESS ? -1 : r == UCOL_GREATER ? 1 : 0;
}

// Case- or accent-insensitive comparison (the ICU collations).
int CompareCollated(std::string_view a, std::string_view b, Collation c) {
  const Collators& t = Collators::Get();
  if (HasAsciiOrder(c) && IsAscii(a) && IsAscii(b)) return CompareAsciiPrimary(t, a, b);
  const UCollator* coll = t.ForStrength(c);
  if (coll == nullptr) return CompareBytes(FoldAscii(a), FoldAscii(b));
  return IcuCompare(coll, a, b);
}

std::string ChangeCase(std::string_view s, bool upper) {
  std::string out;
  out.reserve(s.size());
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const int32_t n = static_cast<int32_t>(s.size());
  int32_t i = 0;
  while (i < n) {
    if (p[i] < 0x80) {
      char ch = static_cast<char>(p[i++]);
      if (upper && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
      if (!upper && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
      out.push_back(ch);
      continue;
    }
    const int32_t start = i;
    UChar32 cp;
    U8_NEXT(p, i, n, cp);
    if (cp < 0) {
      out.append(s.substr(start, i - start));
      continue;
    }
    const UChar32 mapped = upper ? u_toupper(cp) : u_tolower(cp);
    uint8_t buf[U8_MAX_LENGTH];
    int32_t len = 0;
    U8_APPEND_UNSAFE(buf, len, mapped);
    out.append(reinterpret_cast<const char*>(buf), len);
  }
  return out;
}

}  // namespace

std::optional<Collation> CollationFromName(std::string_view name) {
  if (EqualsIgnoreCase(name, "binary")) return Collation::kBinary;
  std::string lower(name);
  for (char& ch : lower) ch = FoldAscii(ch);
  if (lower.find('_') == std::string::npos) return std::nullopt;
  if (lower.find("_0900_") != std::string::npos) {
    if (EndsWith(lower, "_ai_ci")) return Collation::k0900AiCi;
    if (EndsWith(lower, "_as_ci")) return Collation::k0900AsCi;
    if (EndsWith(lower, "_as_cs")) return Collation::k0900AsCs;
    if (EndsWith(lower, "_0900_bin")) return Collation::k0900Bin;
    return std::nullopt;
  }
  if (EndsWith(lower, "_bin")) return Collation::kBin;
  if (EndsWith(lower, "_ci")) return Collation::kGeneralCi;
  if (EndsWith(lower, "_cs")) return Collation::k0900AsCs;
  return std::nullopt;
}

std::string_view CollationName(Collation c) {
  switch (c) {
    case Collation::k0900AiCi: return "utf8mb4_0900_ai_ci";
    case Collation::k0900AsCi: return "utf8mb4_0900_as_ci";
    case Collation::k0900AsCs: return "utf8mb4_0900_as_cs";
    case Collation::k0900Bin: return "utf8mb4_0900_bin";
    case Collation::kGeneralCi: return "utf8mb4_general_ci";
    case Collation::kBin: return "utf8mb4_bin";
    case Collation::kBinary: return "binary";
  }
  return "binary";
}

bool IsCaseSensitive(Collation c) {
  return c != Collation::k0900AiCi && c != Collation::k0900AsCi && c != Collation::kGeneralCi;
}

int CompareStrings(std::string_view a, std::string_view b, Collation c) {
  if (a == b) return 0;  // equal bytes are equal under every collation
  switch (c) {
    case Collation::kBinary:
    case Collation::k0900Bin:
      return CompareBytes(a, b);
    case Collation::kBin:
      return ComparePadSpaceBytes(a, b);
    case Collation::kGeneralCi:
      return CompareCollated(StripTrailingSpaces(a), StripTrailingSpaces(b), c);
    case Collation::k0900AiCi:
    case Collation::k0900AsCi:
    case Collation::k0900AsCs:
      return CompareCollated(a, b, c);
  }
  return CompareBytes(a, b);
}

void AppendSortKey(std::string_view s, Collation c, std::string* out) {
  switch (c) {
    case Collation::kBinary:
    case Collation::k0900Bin:
      out->append(s);
      return;
    case Collation::kBin:
      out->append(StripTrailingSpaces(s));
      return;
    case Collation::kGeneralCi:
      s = StripTrailingSpaces(s);
      break;
    default:
      break;
  }
  const Collators& t = Collators::Get();
  if (HasAsciiOrder(c) && IsAscii(s)) {
    t.AppendAsciiWeights(s, out);
    return;
  }
  const UCollator* coll = t.ForStrength(c);
  out->append(coll == nullptr ? FoldAscii(s) : IcuSortKey(coll, s));
}

bool HasAsciiOrder(Collation c) {
  return (c == Collation::k0900AiCi || c == Collation::kGeneralCi) && Collators::Get().ascii_ok();
}

int CompareAscii(std::string_view a, std::string_view b, Collation c) {
  if (c == Collation::kGeneralCi) {
    a = StripTrailingSpaces(a);
    b = StripTrailingSpaces(b);
  }
  // Sorts call this for each comparison: a reference checked inline, not
  // a call to Collators::Get() each time.
  static const Collators& t = Collators::Get();
  return CompareAsciiPrimary(t, a, b);
}

uint64_t AsciiOrderPrefix(std::string_view s, Collation c) {
  if (c == Collation::kGeneralCi) s = StripTrailingSpaces(s);
  static const Collators& t = Collators::Get();
  // CompareAsciiPrimary skips what weighs nothing (rank 0) and compares the
  // rest rank by rank, a shorter run first: so do these eight bytes.
  uint64_t prefix = 0;
  int taken = 0;
  for (size_t i = 0; i < s.size() && taken < 8; ++i) {
    const uint8_t r = t.rank(s[i]);
    if (r == 0) continue;
    prefix = (prefix << 8) | r;
    ++taken;
  }
  return taken == 0 ? 0 : prefix << (8 * (8 - taken));
}

std::string SortKey(std::string_view s, Collation c) {
  std::string key;
  AppendSortKey(s, c, &key);
  return key;
}

bool CharsEqual(std::string_view a, std::string_view b, Collation c) {
  switch (c) {
    case Collation::kBinary:
    case Collation::k0900Bin:
    case Collation::kBin:
      return a == b;
    default:
      break;
  }
  if (a == b) return true;
  const Collators& t = Collators::Get();
  if (a.size() == 1 && b.size() == 1 && IsAscii(a) && IsAscii(b) && t.ascii_ok()) {
    // ASCII letters differ from each other only in case, at the tertiary level.
    if (c == Collation::k0900AsCs) return false;
    return t.rank(a[0]) == t.rank(b[0]);
  }
  const UCollator* coll = t.ForStrength(c);
  if (coll == nullptr) return FoldAscii(a) == FoldAscii(b);
  return IcuCompare(coll, a, b) == 0;
}

std::string Utf8ToUpper(std::string_view s) { return ChangeCase(s, true); }
std::string Utf8ToLower(std::string_view s) { return ChangeCase(s, false); }

}  // namespace sluice::base
