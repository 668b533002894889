// base/strings.h
//
// ASCII case folding: the one copy for names that compare without regard
// to letter case (identifiers, variable and option names, host names,
// plugin names). Bytes outside A-Z / a-z are left as they are, so UTF-8
// passes through; collation-aware folding is sql/collation.h's.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace sluice::base {

inline char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
inline char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

}  // namespace sluice::base
