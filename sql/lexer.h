// sql/lexer.h
//
// The SQL lexer: turns query text into MySQL tokens, one at a time. Handles
// MySQL's quoting (`ident`, 'str', "str", '' doubling and backslash escapes),
// charset introducers (_utf8mb4'x', _binary'x', N'x'), numbers, hex and bit
// literals, @user and @@[scope.]system variables, and comments, including
// versioned comments /*!NNNNN ... */ whose body is lexed as SQL when the
// version is at most kServerVersionId. Keywords are not classified here:
// every unquoted word is a kIdent and the parser decides what it means.
//
// Thread-safety: a Lexer is used by one thread; it borrows the query text,
// which must outlive it and every Token's use of offsets.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.h"

namespace sluice::sql {

// Versioned comments /*!NNNNN ...*/ run when NNNNN <= this (MySQL 8.0.36).
inline constexpr int kServerVersionId = 80036;

// The sql_mode flags that change how text is lexed or parsed.
struct LexOptions {
  bool ansi_quotes = false;           // "x" is an identifier, not a string
  bool no_backslash_escapes = false;  // '\' is an ordinary character in strings
};

// Scope of a system variable: @@x / @@session.x / @@global.x, and the SET
// keywords. kPersist and kPersistOnly appear only in SET.
enum class VarScope : uint8_t { kDefault, kSession, kGlobal, kPersist, kPersistOnly };

enum class TokenKind : uint8_t {
  kEnd,          // end of input (or of the lexer's range)
  kError,        // unterminated string/identifier/comment or a bad literal
  kIdent,        // unquoted word, keyword or not; text = the word as typed
  kQuotedIdent,  // `name` (or "name" under ANSI_QUOTES); text = decoded name
  kString,       // 'x' / "x"; text = decoded bytes; charset = introducer
  kInteger,      // 123; text = digits
  kDecimal,      // 1.5 / .5 / 1.; text as typed
  kFloat,        // 1e3 / 1.5E-3; text as typed
  kHex,          // X'4A' / 0x4a; text = decoded bytes; charset = introducer
  kBit,          // b'101' / 0b101; text = decoded bytes; charset = introducer
  kUserVar,      // @name / @'name' / @`name`; text = name
  kSysVar,       // @@[scope.]name; text = name (may be "component.name")
  kParam,        // ?
  kPunct,        // operator or punctuation; see punct
};

enum class Punct : uint8_t {
  kNone,
  kEq,          // =
  kAssign,      // :=
  kNullSafeEq,  // <=>
  kNe,          // != or <>
  kLt,
  kLe,
  kGt,
  kGe,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kPercent,
  kAndAnd,  // &&
  kOrOr,    // ||
  kBang,    // !
  kAmp,
  kPipe,
  kCaret,
  kTilde,
  kShl,  // <<
  kShr,  // >>
  kComma,
  kLParen,
  kRParen,
  kDot,
  kSemicolon,
  kLBrace,
  kRBrace,
  kJsonExtract,          // ->
  kJsonUnquotedExtract,  // ->>
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  Punct punct = Punct::kNone;
  VarScope scope = VarScope::kDefault;  // kSysVar only
  uint32_t offset = 0;                  // first byte in the query text
  uint32_t end = 0;                     // one past the last byte
  std::string text;                     // see TokenKind
  std::string charset;                  // introducer, lower case; "" if none
  bool follows_comment = false;         // a comment was skipped just before it

  bool Is(Punct p) const { return kind == TokenKind::kPunct && punct == p; }
  // An unquoted word equal to `keyword` ignoring ASCII case.
  // REQUIRES: `keyword` is upper case.
  bool IsKeyword(std::string_view keyword) const {
    return kind == TokenKind::kIdent && base::EqualsIgnoreCase(text, keyword);
  }
};

class Lexer {
 public:
  // Lexes query[begin, end).
  Lexer(std::string_view query, LexOptions options, size_t begin = 0,
        size_t end = std::string_view::npos);

  // The next token; kEnd at the end of the range and forever after.
  // After kError, every later call returns kEnd.
  Token Next();
  // The same into *out, reusing its strings' buffers (the parser lexes into
  // its lookahead ring's slots).
  void Next(Token* out);

  // Number of comments (of any form) skipped so far.
  int comment_count() const { return comment_count_; }

 private:
  bool AtEnd() const { return pos_ >= end_; }
  char Peek(size_t ahead = 0) const { return pos_ + ahead < end_ ? query_[pos_ + ahead] : '\0'; }
  // Skips spaces and comments; false (with error_at_ set) on an unterminated comment.
  bool SkipSpaceAndComments();
  // Each writes the token it lexes into `t`, every field set.
  void NextAfterComments(Token& t);
  // Resets `t` to a token of `kind` from `start` to pos_.
  void Make(Token& t, TokenKind kind, size_t start) const;
  void Error(Token& t, size_t start);
  void LexWord(Token& t, size_t start);
  void LexNumber(Token& t, size_t start);
  void LexQuoted(Token& t, size_t start, char quote, TokenKind kind);
  void LexHexOrBitString(Token& t, size_t start, bool hex, size_t body_start);
  void LexUserVar(Token& t, size_t start);
  void LexSysVar(Token& t, size_t start);
  void LexPunct(Token& t, size_t start);
  // Reads `quote`...`quote` at pos_; false if unterminated.
  bool ReadQuotedBody(char quote, bool backslash_escapes, std::string* out);
  // An unquoted or backtick-quoted name at pos_ (for @@ variables).
  bool ReadName(std::string* out);

  std::string_view query_;
  LexOptions options_;
  size_t pos_;
  size_t end_;
  bool in_versioned_comment_ = false;
  int comment_count_ = 0;
  bool failed_ = false;
  size_t error_at_ = 0;  // start of an unterminated comment
  TokenKind prev_kind_ = TokenKind::kEnd;
  Punct prev_punct_ = Punct::kNone;
};

// All tokens up to and including the first kEnd or kError (for tests and tools).
std::vector<Token> Tokenize(std::string_view query, LexOptions options = {});

// Upper-cases ASCII letters.
std::string AsciiUpper(std::string_view s);
using base::AsciiLower;  // base/strings.h
using base::EqualsIgnoreCase;

}  // namespace sluice::sql
