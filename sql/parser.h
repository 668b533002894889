// sql/parser.h
//
// A hand-written recursive-descent parser for the SQL sluice understands.
// A query text may hold several statements separated by ';'
// (CLIENT_MULTI_STATEMENTS). Parser yields them one at a time so the server
// can run each before the next is parsed, as MySQL does: a syntax error in
// the third statement surfaces only after the first two have run.
//
// Errors: ER_STACK_OVERRUN_NEED_MORE (1436) for nesting past the limits
// below; ER_PARSE_ERROR (1064) with MySQL's text, "... near '<rest of the
// query from the offending token, at most 80 characters>' at line N", where
// N counts from the start of the statement; ER_EMPTY_QUERY (1065) for a
// query (or a statement between two ';') with nothing but spaces in it. A
// statement of comments alone parses to kEmpty (MySQL answers it with OK).
// Like MySQL, trailing spaces and ';' are dropped from the query first.
//
// Thread-safety: a Parser is used by one thread. It borrows the query text,
// which must outlive the Parser and every ParsedStatement::text.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/ast.h"
#include "sql/lexer.h"

namespace sluice::sql {

// Limits on nesting, so that every recursive walk over a parsed statement
// (evaluation, planning, EXPLAIN, printing, copying) fits in a statement
// thread's stack (base/stack_guard.h). Past either the statement fails with
// ER_STACK_OVERRUN_NEED_MORE (1436), as mysqld answers such statements, and
// so does a parse that finds the stack itself running low.
//   kMaxParseDepth: the parser's own recursion: parentheses, function
//   arguments, CASE parts, NOT / - / ~ / ! / BINARY prefixes, the upper
//   bound of BETWEEN, subqueries.
//   kMaxExprHeight: levels of an expression tree, subqueries included.
//   Left-associative chains (a + b + c ...) are as deep as they are long,
//   except AND, OR and XOR: long chains of those are built balanced (same
//   operands in the same order, associativity regrouped), so 5,000 ORs are
//   13 levels.
inline constexpr int kMaxParseDepth = 1000;
inline constexpr uint32_t kMaxExprHeight = 3000;

// The sql_mode flags that change parsing.
struct ParseOptions {
  LexOptions lex;                // ANSI_QUOTES, NO_BACKSLASH_ESCAPES
  bool pipes_as_concat = false;  // PIPES_AS_CONCAT: || is CONCAT, not OR
};

struct ParsedStatement {
  std::unique_ptr<Stmt> stmt;
  uint32_t begin = 0;     // byte span of the statement in the query text,
  uint32_t end = 0;       // without the separating ';'
  std::string_view text;  // query.substr(begin, end - begin)
  int param_count = 0;    // number of ? placeholders
};

class Parser {
 public:
  explicit Parser(std::string_view query, ParseOptions options = {});
  ~Parser();
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // True when every statement has been returned, or after an error.
  bool AtEnd() const;

  // The next statement, or its 1064 / 1065 error (after which AtEnd()).
  // REQUIRES: !AtEnd().
  Result<ParsedStatement> Next();

 private:
  friend Result<ExprPtr> ParseExpression(std::string_view text, ParseOptions options);
  class Impl;
  // The parser's state lives in the Parser (on its caller's stack), not on
  // the heap: a statement's parse allocates only its tree. parser.cc checks
  // that Impl fits.
  static constexpr size_t kImplBytes = 1280;
  alignas(16) unsigned char impl_storage_[kImplBytes];
  Impl* impl_;
};

// Every statement of `query`; the first error stops parsing.
Result<std::vector<ParsedStatement>> ParseAll(std::string_view query, ParseOptions options = {});

// One expression that must span all of `text` (for tests and for values such
// as system variable defaults). Spans in the result index `text`.
Result<ExprPtr> ParseExpression(std::string_view text, ParseOptions options);
inline Result<ExprPtr> ParseExpression(std::string_view text) {
  return ParseExpression(text, ParseOptions{});
}

}  // namespace sluice::sql
