// sql/regexp.h
//
// MySQL 8.0's regular expressions (REGEXP / RLIKE): ICU's engine, as MySQL
// uses, so patterns have MySQL's syntax and case-insensitive matching
// follows Unicode case folding. The match engine is iterative (its
// backtrack stack is a heap buffer), bounded by MySQL's two limits:
// regexp_stack_limit (bytes of that stack, 3698 past it) and
// regexp_time_limit (steps of the engine, 3699 past it), and it calls back
// every step so that KILL and max_execution_time stop a long match.
//
// Thread-safety: reentrant; nothing is shared between calls.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "base/status.h"

namespace sluice::sql {

struct RegexpLimits {
  int32_t time_limit = 32;         // regexp_time_limit; 0: none
  int32_t stack_limit = 8000000;   // regexp_stack_limit, bytes; 0: none
};

// Whether `pattern` matches somewhere in `subject` (both UTF-8; invalid
// bytes match as U+FFFD). `interrupt` is called every engine step: a
// non-OK status stops the match and is returned. Errors: an empty or
// malformed pattern as MySQL reports ICU's errors (3685-3697, 3700), 3698,
// 3699.
Result<bool> RegexpSearch(std::string_view subject, std::string_view pattern, bool case_insensitive,
                          const RegexpLimits& limits, const std::function<Status()>& interrupt);

}  // namespace sluice::sql
