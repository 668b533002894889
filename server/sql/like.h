// server/sql/like.h
//
// SQL LIKE matching: '%' matches any run of characters, '_' exactly one
// character (a whole UTF-8 sequence), and `escape` makes the next pattern
// character literal. Used by the evaluator and by the server for
// SHOW ... LIKE 'pattern'.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace sluice::sql {

// True when `text` matches `pattern`. Letters compare ignoring ASCII case
// unless `case_sensitive` (binary strings, *_bin collations). An escape
// character at the very end of the pattern stands for itself. Pass
// escape = '\0' for no escape character.
bool LikeMatch(std::string_view text, std::string_view pattern, char escape = '\\',
               bool case_sensitive = false);

}  // namespace sluice::sql
