// vars/json_internal.h
//
// The little JSON this module needs for <datadir>/mysqld-auto.cnf: a reader
// for objects, arrays, strings (all escapes, \u surrogate pairs to UTF-8),
// numbers (kept as their text), true/false/null; and a string quoter for the
// writer. Not a general JSON library: no streaming, nesting is capped.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

namespace sluice::vars::internal {

struct Json {
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kObject, kArray };

  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;  // kString: the decoded string; kNumber: the number as written
  std::vector<std::pair<std::string, Json>> members;  // kObject, in file order
  std::vector<Json> items;                            // kArray

  // The first member named `key`, or nullptr (also when not an object).
  const Json* Find(std::string_view key) const;

  // Declared here, defaulted in the .cc: implicit ones make clang (14, with
  // libstdc++ 12) instantiate std::pair<std::string, Json> while Json's
  // destructor is being declared, which it rejects as an incomplete type
  // (GCC accepts it). scripts/thread_safety.sh compiles this with clang.
  Json() = default;
  Json(const Json&);
  Json(Json&&) noexcept;
  Json& operator=(const Json&);
  Json& operator=(Json&&) noexcept;
  ~Json();
};

// Parses one JSON document (surrounding whitespace allowed).
// Corruption with the byte offset when the text is not valid JSON or nests
// deeper than 64 levels.
Result<Json> ParseJson(std::string_view text);

// Appends `s` as a quoted JSON string: ", \ and control characters escaped,
// other bytes copied as they are (the file is UTF-8).
void AppendJsonString(std::string* out, std::string_view s);

}  // namespace sluice::vars::internal
