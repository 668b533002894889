#include "sql/regexp.h"

#include <unicode/uregex.h>
#include <unicode/ustring.h>

#include <limits>
#include <memory>
#include <vector>

#include "base/mysql_error.h"

namespace sluice::sql {

namespace {

// UTF-8 -> UTF-16 for ICU; an invalid sequence becomes U+FFFD. The buffer
// always has room for one unit, so data() is never null (uregex_setText
// refuses a null text even when empty).
Result<std::vector<UChar>> ToUtf16(std::string_view s) {
  if (s.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max() / 2)) {
    return MakeError(er::kRegexpIllegalArgument);
  }
  std::vector<UChar> out(s.size() + 1);
  int32_t len = 0;
  UErrorCode st = U_ZERO_ERROR;
  u_strFromUTF8WithSub(out.data(), static_cast<int32_t>(out.size()), &len, s.data(), static_cast<int32_t>(s.size()),
                       0xFFFD, nullptr, &st);
  if (U_FAILURE(st)) return MakeError(er::kRegexpIllegalArgument);
  out.resize(static_cast<size_t>(len));
  return out;
}

// ICU's error as MySQL reports it.
Status IcuError(UErrorCode code, const UParseError& where) {
  switch (code) {
    case U_ILLEGAL_ARGUMENT_ERROR: return MakeError(er::kRegexpIllegalArgument);
    case U_INDEX_OUTOFBOUNDS_ERROR: return MakeError(er::kRegexpIndexOutOfBounds);
    case U_REGEX_RULE_SYNTAX: return MakeError(er::kRegexpRuleSyntax, where.line, where.offset);
    case U_REGEX_BAD_ESCAPE_SEQUENCE: return MakeError(er::kRegexpBadEscapeSequence);
    case U_REGEX_UNIMPLEMENTED: return MakeError(er::kRegexpUnimplemented);
    case U_REGEX_MISMATCHED_PAREN: return MakeError(er::kRegexpMismatchedParen);
    case U_REGEX_BAD_INTERVAL: return MakeError(er::kRegexpBadInterval);
    case U_REGEX_MAX_LT_MIN: return MakeError(er::kRegexpMaxLtMin);
    case U_REGEX_INVALID_BACK_REF: return MakeError(er::kRegexpInvalidBackRef);
    case U_REGEX_LOOK_BEHIND_LIMIT: return MakeError(er::kRegexpLookBehindLimit);
    case U_REGEX_MISSING_CLOSE_BRACKET: return MakeError(er::kRegexpMissingCloseBracket);
    case U_REGEX_INVALID_RANGE: return MakeError(er::kRegexpInvalidRange);
    case U_REGEX_STACK_OVERFLOW: return MakeError(er::kRegexpStackOverflow);
    case U_REGEX_TIME_OUT: return MakeError(er::kRegexpTimeOut);
    case U_REGEX_PATTERN_TOO_BIG: return MakeError(er::kRegexpPatternTooBig);
    case U_REGEX_INTERNAL_ERROR:
    case U_MEMORY_ALLOCATION_ERROR: return MakeError(er::kRegexpInternalError);
    default: return MakeError(er::kRegexpIllegalArgument);
  }
}

struct Callback {
  const std::function<Status()>* interrupt;
  Status status;
};

// Called by the engine every step; false stops the match
// (U_REGEX_STOPPED_BY_CALLER).
UBool U_CALLCONV OnStep(const void* context, int32_t /*steps*/) {
  auto* cb = static_cast<Callback*>(const_cast<void*>(context));
  cb->status = (*cb->interrupt)();
  return cb->status.ok();
}

}  // namespace

Result<bool> RegexpSearch(std::string_view subject, std::string_view pattern, bool case_insensitive,
                          const RegexpLimits& limits, const std::function<Status()>& interrupt) {
  Result<std::vector<UChar>> p = ToUtf16(pattern);
  if (!p.ok()) return p.status();
  Result<std::vector<UChar>> text = ToUtf16(subject);
  if (!text.ok()) return text.status();
  UParseError where{};
  UErrorCode st = U_ZERO_ERROR;
  // An empty pattern is ICU's U_ILLEGAL_ARGUMENT_ERROR: 3685, as in MySQL.
  std::unique_ptr<URegularExpression, decltype(&uregex_close)> re(
      uregex_open(p->data(), static_cast<int32_t>(p->size()), case_insensitive ? UREGEX_CASE_INSENSITIVE : 0,
                  &where, &st),
      &uregex_close);
  if (U_FAILURE(st)) return IcuError(st, where);
  Callback cb{&interrupt, Status::OK()};
  uregex_setText(re.get(), text->data(), static_cast<int32_t>(text->size()), &st);
  uregex_setTimeLimit(re.get(), limits.time_limit, &st);
  uregex_setStackLimit(re.get(), limits.stack_limit, &st);
  uregex_setMatchCallback(re.get(), &OnStep, &cb, &st);
  if (U_FAILURE(st)) return IcuError(st, where);
  const bool found = uregex_find(re.get(), 0, &st) != 0;
  if (st == U_REGEX_STOPPED_BY_CALLER) return cb.status;
  if (U_FAILURE(st)) return IcuError(st, where);
  return found;
}

}  // namespace sluice::sql
