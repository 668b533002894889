// base/utf8.h
//
// UTF-8 (MySQL utf8mb4) checks for the text sluice stores: names, comments,
// ENUM values. utf8mb4 is MySQL's strict UTF-8: no overlong forms, no
// surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "base/status.h"

namespace sluice::base {

// Length in bytes of the well-formed utf8mb4 character at the start of `s`;
// 0 when `s` is empty or does not start with one.
size_t Utf8CharLength(std::string_view s);

// True when all of `s` is well-formed utf8mb4.
bool IsValidUtf8(std::string_view s);

// Characters in `s` (counts lead bytes; meant for valid text).
size_t Utf8CharCount(std::string_view s);

// `s` as an error message may quote it: well-formed characters as they are,
// every other byte as \xHH (MySQL's convert_to_printable). At most
// `max_bytes` of `s` are shown; "..." marks the rest.
// With `mb3`, characters above U+FFFF (not in utf8mb3) are escaped too.
std::string PrintableUtf8(std::string_view s, size_t max_bytes = 64, bool mb3 = false);

// 1300 ER_INVALID_CHARACTER_STRING "Invalid utf8mb4 character string:
// '<printable s>'" when `s` is not well-formed utf8mb4.
Status CheckUtf8(std::string_view s);

}  // namespace sluice::base
