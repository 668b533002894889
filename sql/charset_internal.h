// sql/charset_internal.h
//
// The character set names sluice recognises (introducers, CONVERT ... USING,
// COLLATE). Only utf8mb4 and binary change how strings behave; the others
// are accepted by name. Module-private.
#pragma once

#include <string_view>

namespace sluice::sql {

// Case-insensitive; "utf8" counts as a name.
bool IsKnownCharset(std::string_view name);

// "binary", or "<known charset>_..." such as utf8mb4_0900_ai_ci.
bool IsKnownCollation(std::string_view name);

}  // namespace sluice::sql
