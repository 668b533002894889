// sql/json.h
//
// The JSON type (../shared/reference/json-binary.md): MySQL 8.0's binary
// form, which the engine stores and row events carry (type 245), its text
// form as MySQL prints it, and the JSON functions.
//
// Values: a JSON value in the SQL layer is Value::Typed(text, kJson) whose
// text is the canonical text form (ToText); a column stores the binary form
// (TextToBinary / BinaryToText convert). Parsing follows MySQL: duplicate
// keys keep the last, members sort by key length then bytes, non-negative
// integers up to 2^32-1 are signed, larger ones up to 2^64-1 unsigned,
// anything else with a fraction or exponent a double; nesting deeper than
// 100 is 3157.
//
// Functions (Call): JSON_VALID, JSON_TYPE, JSON_QUOTE, JSON_UNQUOTE,
// JSON_EXTRACT (and `->`, `->>`), JSON_OBJECT, JSON_ARRAY, JSON_LENGTH,
// JSON_DEPTH, JSON_KEYS, JSON_CONTAINS, JSON_CONTAINS_PATH, JSON_SET,
// JSON_INSERT, JSON_REPLACE, JSON_REMOVE, JSON_ARRAY_APPEND,
// JSON_MERGE_PATCH. Paths: `$`, `.key`, `."quoted key"`, `.*`, `[N]`,
// `[last]`, `[last-N]`, `[*]`, `[M to N]` and `**` (the modifying functions
// refuse wildcards and ranges: 3149).
//
// Comparisons (=, <, ORDER BY, ...) with a JSON operand follow MySQL's JSON
// rules (Compare). Not yet (docs/sql.md, "JSON"): DECIMAL and temporal
// scalars inside documents (a DECIMAL becomes a DOUBLE, a temporal its
// text), JSON_TABLE, JSON_SEARCH, JSON_MERGE_PRESERVE and the aggregates.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/value.h"

namespace sluice::sql {
class EvalContext;
}

namespace sluice::sql::json {

// Where and why text is not JSON: MySQL's message ("Invalid value.") and
// the byte offset it reports.
struct TextError {
  std::string message;
  size_t position = 0;
};

// Parses JSON text into the binary form. On invalid text, *error (when
// given) says why and the status is 3140 naming `column` (or, with an empty
// column, a generic InvalidArgument).
Result<std::string> TextToBinary(std::string_view text, std::string_view column = {},
                                 TextError* error = nullptr);

// The text form of a binary document (Corruption when it is malformed).
Result<std::string> BinaryToText(std::string_view binary);

// The canonical text of JSON text (parsed and printed again); 3141 naming
// argument `arg` of `function` when it is not JSON.
Result<std::string> Canonical(std::string_view text, int arg, std::string_view function);

// An SQL value as a JSON value (what JSON_ARRAY makes of an argument):
// numbers as numbers, strings as JSON strings, JSON as itself.
Result<Value> FromSql(const Value& v);

// -1, 0 or 1 by MySQL's JSON comparison rules (type precedence BOOLEAN >
// ARRAY > OBJECT > STRING > numbers > null, then within the type: numbers
// by value, strings by bytes, arrays element-wise, objects by size then
// members), for a JSON value against a JSON value or an SQL scalar (an SQL
// string is a JSON string, not parsed). nullopt when either is NULL.
std::optional<int> Compare(const Value& a, const Value& b);

// The GROUP BY / DISTINCT key of a JSON value: equal exactly when Compare
// says so (1 and 1.0 are one group).
std::string GroupingKey(const Value& v);

// True when `upper_name` is one of the functions above.
bool IsFunction(std::string_view upper_name);

// Calls JSON function `upper_name` (IsFunction) on evaluated arguments.
Result<Value> Call(std::string_view upper_name, const std::vector<Value>& args, EvalContext& ctx);

}  // namespace sluice::sql::json
