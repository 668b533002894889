#include "base/utf8.h"

#include <fmt/format.h>

#include "base/mysql_error.h"

namespace sluice::base {

size_t Utf8CharLength(std::string_view s) {
  if (s.empty()) return 0;
  const auto b = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t len;
  uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;  // a continuation byte, C0/C1 (always overlong) or F5..FF
  }
  if (s.size() < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((b(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i) & 0x3F);
  }
  // Overlong 3- and 4-byte forms, surrogates, and beyond U+10FFFF.
  if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || (cp >= 0xD800 && cp <= 0xDFFF) ||
      cp > 0x10FFFF) {
    return 0;
  }
  return len;
}

bool IsValidUtf8(std::string_view s) {
  while (!s.empty()) {
    const size_t n = Utf8CharLength(s);
    if (n == 0) return false;
    s.remove_prefix(n);
  }
  return true;
}

size_t Utf8CharCount(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string PrintableUtf8(std::string_view s, size_t max_bytes, bool mb3) {
  std::string out;
  size_t shown = 0;
  while (!s.empty()) {
    if (shown >= max_bytes) {
      out += "...";
      break;
    }
    const size_t n = Utf8CharLength(s);
    const unsigned char c = static_cast<unsigned char>(s[0]);
    if (n == 0 || (n == 1 && c < 0x20) || (mb3 && n == 4)) {
      // Control characters too: the quoted text must not break a log line.
      const size_t bytes = n == 4 ? 4 : 1;
      for (size_t i = 0; i < bytes; ++i) out += fmt::format("\\x{:02X}", static_cast<unsigned char>(s[i]));
      s.remove_prefix(bytes);
      shown += bytes;
    } else {
      out.append(s.substr(0, n));
      s.remove_prefix(n);
      shown += n;
    }
  }
  return out;
}

Status CheckUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return Status::OK();
  return MakeError(er::kInvalidCharacterString, "utf8mb4", PrintableUtf8(s));
}

}  // namespace sluice::base
