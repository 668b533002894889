// sql/like.h
//
// SQL LIKE matching: '%' matches any run of characters, '_' exactly one
// character (a whole UTF-8 sequence), and `escape` makes the next pattern
// character literal. Used by the evaluator and by the server for
// SHOW ... LIKE 'pattern'.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "sql/collation.h"

namespace sluice::sql {

// True when `text` matches `pattern`. Characters compare one against one
// under `collation` (CharsEqual: under the default utf8mb4_0900_ai_ci,
// 'Ábc' LIKE 'a%' is true); no padding, so 'a ' LIKE 'a' is false under
// every collation. An escape character at the very end of the pattern stands
// for itself. Pass escape = '\0' for no escape character.
bool LikeMatch(std::string_view text, std::string_view pattern, char escape,
               Collation collation);

// The same with letters compared ignoring case (utf8mb4_0900_ai_ci), or
// exactly when `case_sensitive` (SHOW ... LIKE).
bool LikeMatch(std::string_view text, std::string_view pattern, char escape = '\\',
               bool case_sensitive = false);

}  // namespace sluice::sql
