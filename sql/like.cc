#include "sql/like.h"

#include <vector>

namespace sluice::sql {

namespace {

// Length in bytes of the UTF-8 sequence starting with `lead` (1 for
// malformed bytes, so every input still advances).
size_t CharLength(unsigned char lead) {
  if (lead < 0xC0) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

struct PatternItem {
  enum Kind { kChar, kAnyOne, kAnyRun } kind;
  std::string_view ch;  // kChar: one character's bytes
};

}  // namespace

bool LikeMatch(std::string_view text, std::string_view pattern, char escape,
               bool case_sensitive) {
  return LikeMatch(text, pattern, escape,
                   case_sensitive ? Collation::k0900Bin : Collation::k0900AiCi);
}

bool LikeMatch(std::string_view text, std::string_view pattern, char escape,
               Collation collation) {
  // Binary strings match byte against byte, text character against character.
  const bool bytes = collation == Collation::kBinary;
  auto char_len = [bytes](char lead) -> size_t {
    return bytes ? 1 : CharLength(static_cast<unsigned char>(lead));
  };
  std::vector<PatternItem> items;
  for (size_t i = 0; i < pattern.size();) {
    char c = pattern[i];
    if (escape != '\0' && c == escape && i + 1 < pattern.size()) {
      size_t len = char_len(pattern[i + 1]);
      items.push_back({PatternItem::kChar, pattern.substr(i + 1, len)});
      i += 1 + len;
    } else if (c == '%') {
      if (items.empty() || items.back().kind != PatternItem::kAnyRun) {
        items.push_back({PatternItem::kAnyRun, {}});
      }
      ++i;
    } else if (c == '_') {
      items.push_back({PatternItem::kAnyOne, {}});
      ++i;
    } else {
      size_t len = char_len(c);
      items.push_back({PatternItem::kChar, pattern.substr(i, len)});
      i += len;
    }
  }

  auto same_char = [&](std::string_view a, std::string_view b) {
    return CharsEqual(a, b, collation);
  };

  // Greedy match with backtracking to the last '%': linear in practice and
  // never exponential, since only the latest '%' is ever retried.
  size_t t = 0, p = 0;
  size_t star_p = std::string_view::npos, star_t = 0;
  while (t < text.size()) {
    size_t len = char_len(text[t]);
    if (t + len > text.size()) len = text.size() - t;
    std::string_view ch = text.substr(t, len);
    if (p < items.size() && items[p].kind == PatternItem::kAnyRun) {
      star_p = p++;
      star_t = t;
      continue;
    }
    if (p < items.size() && (items[p].kind == PatternItem::kAnyOne ||
                             (items[p].kind == PatternItem::kChar && same_char(items[p].ch, ch)))) {
      ++p;
      t += len;
      continue;
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    star_t += char_len(text[star_t]);
    t = star_t;
  }
  while (p < items.size() && items[p].kind == PatternItem::kAnyRun) ++p;
  return p == items.size();
}

}  // namespace sluice::sql
