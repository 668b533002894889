#include "sql/lexer.h"

#include <algorithm>
#include <array>

#include "sql/charset_internal.h"

namespace sluice::sql {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsHexDigit(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
// Bytes that may appear in an unquoted identifier: ASCII letters, digits,
// '_', '$' and every byte of a multi-byte UTF-8 character.
bool IsIdentChar(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' ||
         c == '$' || u >= 0x80;
}
int HexValue(char c) {
  if (IsDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return c - 'A' + 10;
}

// Character sets whose names may follow '_' as an introducer.
constexpr std::array<std::string_view, 42> kCharsets = {
    "armscii8", "ascii",   "big5",    "binary",  "cp1250",  "cp1251", "cp1256",
    "cp1257",   "cp850",   "cp852",   "cp866",   "cp932",   "dec8",   "eucjpms",
    "euckr",    "gb18030", "gb2312",  "gbk",     "geostd8", "greek",  "hebrew",
    "hp8",      "keybcs2", "koi8r",   "koi8u",   "latin1",  "latin2", "latin5",
    "latin7",   "macce",   "macroman", "sjis",   "swe7",    "tis620", "ucs2",
    "ujis",     "utf16",   "utf16le", "utf32",   "utf8",    "utf8mb3", "utf8mb4",
};

bool IsCharsetName(std::string_view name) { return IsKnownCharset(name); }

std::string DecodeHex(std::string_view digits) {
  std::string out;
  size_t i = 0;
  if (digits.size() % 2 == 1) {
    out.push_back(static_cast<char>(HexValue(digits[0])));
    i = 1;
  }
  for (; i < digits.size(); i += 2) {
    out.push_back(static_cast<char>(HexValue(digits[i]) * 16 + HexValue(digits[i + 1])));
  }
  return out;
}

std::string DecodeBits(std::string_view bits) {
  std::string padded(bits.size() % 8 == 0 ? 0 : 8 - bits.size() % 8, '0');
  padded.append(bits);
  std::string out;
  for (size_t i = 0; i < padded.size(); i += 8) {
    int byte = 0;
    for (size_t j = 0; j < 8; ++j) byte = byte * 2 + (padded[i + j] - '0');
    out.push_back(static_cast<char>(byte));
  }
  return out;
}

}  // namespace

std::string AsciiUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = base::AsciiUpper(c);
  return out;
}

bool IsKnownCharset(std::string_view name) {
  std::string lower = AsciiLower(name);
  return std::find(kCharsets.begin(), kCharsets.end(), lower) != kCharsets.end();
}

bool IsKnownCollation(std::string_view name) {
  if (EqualsIgnoreCase(name, "binary")) return true;
  size_t underscore = name.find('_');
  return underscore != std::string_view::npos && underscore + 1 < name.size() &&
         IsKnownCharset(name.substr(0, underscore));
}

Lexer::Lexer(std::string_view query, LexOptions options, size_t begin, size_t end)
    : query_(query), options_(options), pos_(begin), end_(std::min(end, query.size())) {}

void Lexer::Make(Token& t, TokenKind kind, size_t start) const {
  t.kind = kind;
  t.punct = Punct::kNone;
  t.scope = VarScope::kDefault;
  t.offset = static_cast<uint32_t>(start);
  t.end = static_cast<uint32_t>(pos_);
  t.text.clear();  // keeps the slot's buffer
  t.charset.clear();
  t.follows_comment = false;
}

void Lexer::Error(Token& t, size_t start) {
  failed_ = true;
  Make(t, TokenKind::kError, start);
  t.end = static_cast<uint32_t>(start);
}

bool Lexer::SkipSpaceAndComments() {
  for (;;) {
    while (!AtEnd() && IsSpace(Peek())) ++pos_;
    if (AtEnd()) return true;
    char c = Peek();
    if (c == '#' || (c == '-' && Peek(1) == '-' &&
                     (pos_ + 2 >= end_ || IsSpace(Peek(2)) ||
                      static_cast<unsigned char>(Peek(2)) < 0x20))) {
      ++comment_count_;
      while (!AtEnd() && Peek() != '\n') ++pos_;
      continue;
    }
    if (c == '/' && Peek(1) == '*') {
      const size_t start = pos_;
      ++comment_count_;
      if (Peek(2) == '!' && !in_versioned_comment_) {
        size_t p = pos_ + 3;
        bool has_version = p + 5 <= end_;
        int version = 0;
        for (size_t i = 0; has_version && i < 5; ++i) {
          if (!IsDigit(query_[p + i])) has_version = false;
          else version = version * 10 + (query_[p + i] - '0');
        }
        if (!has_version || version <= kServerVersionId) {
          // The body is SQL: lex on from after the marker; the closing "*/"
          // is skipped when we reach it.
          pos_ = has_version ? p + 5 : p;
          in_versioned_comment_ = true;
          continue;
        }
      }
      size_t close = query_.substr(0, end_).find("*/", pos_ + 2);
      if (close == std::string_view::npos) {
        pos_ = start;
        error_at_ = start;
        return false;
      }
      pos_ = close + 2;
      continue;
    }
    if (c == '*' && Peek(1) == '/' && in_versioned_comment_) {
      in_versioned_comment_ = false;
      pos_ += 2;
      continue;
    }
    return true;
  }
}

Token Lexer::Next() {
  Token t;
  Next(&t);
  return t;
}

void Lexer::Next(Token* out) {
  Token& t = *out;
  if (failed_) {
    Make(t, TokenKind::kEnd, end_);
    t.end = static_cast<uint32_t>(end_);
    return;
  }
  const int comments_before = comment_count_;
  NextAfterComments(t);
  t.follows_comment = comment_count_ != comments_before;
}

void Lexer::NextAfterComments(Token& t) {
  if (!SkipSpaceAndComments()) return Error(t, error_at_);
  if (AtEnd()) {
    if (in_versioned_comment_) return Error(t, pos_);
    return Make(t, TokenKind::kEnd, pos_);
  }
  const size_t start = pos_;
  const char c = Peek();
  if (c == '\'') {
    LexQuoted(t, start, '\'', TokenKind::kString);
  } else if (c == '"') {
    LexQuoted(t, start, '"', options_.ansi_quotes ? TokenKind::kQuotedIdent : TokenKind::kString);
  } else if (c == '`') {
    LexQuoted(t, start, '`', TokenKind::kQuotedIdent);
  } else if ((c == 'x' || c == 'X') && Peek(1) == '\'') {
    LexHexOrBitString(t, start, /*hex=*/true, start + 1);
  } else if ((c == 'b' || c == 'B') && Peek(1) == '\'') {
    LexHexOrBitString(t, start, /*hex=*/false, start + 1);
  } else if ((c == 'n' || c == 'N') && Peek(1) == '\'') {
    ++pos_;
    LexQuoted(t, start, '\'', TokenKind::kString);
    if (t.kind == TokenKind::kString) t.charset = "utf8mb3";
  } else if (IsDigit(c) ||
             (c == '.' && IsDigit(Peek(1)) && prev_kind_ != TokenKind::kIdent &&
              prev_kind_ != TokenKind::kQuotedIdent &&
              !(prev_kind_ == TokenKind::kPunct && prev_punct_ == Punct::kRParen))) {
    LexNumber(t, start);
  } else if (IsIdentChar(c)) {
    LexWord(t, start);
  } else if (c == '@') {
    if (Peek(1) == '@') {
      LexSysVar(t, start);
    } else {
      LexUserVar(t, start);
    }
  } else if (c == '?') {
    ++pos_;
    Make(t, TokenKind::kParam, start);
  } else {
    LexPunct(t, start);
  }
  prev_kind_ = t.kind;
  prev_punct_ = t.punct;
}

void Lexer::LexWord(Token& t, size_t start) {
  while (!AtEnd() && IsIdentChar(Peek())) ++pos_;
  std::string_view word = query_.substr(start, pos_ - start);
  if (word.size() > 1 && word[0] == '_' && IsCharsetName(word.substr(1))) {
    // A charset introducer applies to the literal that follows it.
    size_t after_word = pos_;
    while (!AtEnd() && IsSpace(Peek())) ++pos_;
    char c = Peek();
    Token& lit = t;
    bool matched = true;
    if (c == '\'' || (c == '"' && !options_.ansi_quotes)) {
      LexQuoted(lit, start, c, TokenKind::kString);
    } else if ((c == 'x' || c == 'X') && Peek(1) == '\'') {
      LexHexOrBitString(lit, start, true, pos_ + 1);
    } else if ((c == 'b' || c == 'B') && Peek(1) == '\'') {
      LexHexOrBitString(lit, start, false, pos_ + 1);
    } else if (c == '0' && (Peek(1) == 'x' || Peek(1) == 'b')) {
      LexNumber(lit, start);
      if (lit.kind != TokenKind::kHex && lit.kind != TokenKind::kBit) matched = false;
    } else {
      matched = false;
    }
    if (matched) {
      if (lit.kind != TokenKind::kError) {
        lit.offset = static_cast<uint32_t>(start);
        lit.charset = AsciiLower(word.substr(1));
        if (lit.charset == "utf8") lit.charset = "utf8mb3";
      }
      return;
    }
    failed_ = false;
    pos_ = after_word;
  }
  Make(t, TokenKind::kIdent, start);
  t.text.assign(word);
}

void Lexer::LexNumber(Token& t, size_t start) {
  // pos_ may differ from start when called for an introducer (_binary 0x41).
  const size_t num_start = pos_;
  if (Peek() == '0' && (Peek(1) == 'x' || Peek(1) == 'b')) {
    const bool hex = Peek(1) == 'x';
    size_t j = pos_ + 2;
    while (j < end_ && (hex ? IsHexDigit(query_[j]) : (query_[j] == '0' || query_[j] == '1'))) ++j;
    if (j > pos_ + 2 && (j >= end_ || !IsIdentChar(query_[j]))) {
      std::string_view digits = query_.substr(pos_ + 2, j - pos_ - 2);
      pos_ = j;
      Make(t, hex ? TokenKind::kHex : TokenKind::kBit, start);
      t.text = hex ? DecodeHex(digits) : DecodeBits(digits);
      return;
    }
  }
  while (!AtEnd() && IsDigit(Peek())) ++pos_;
  TokenKind kind = TokenKind::kInteger;
  if (Peek() == '.') {
    ++pos_;
    while (!AtEnd() && IsDigit(Peek())) ++pos_;
    kind = TokenKind::kDecimal;
  }
  if (Peek() == 'e' || Peek() == 'E') {
    size_t j = pos_ + 1;
    if (j < end_ && (query_[j] == '+' || query_[j] == '-')) ++j;
    if (j < end_ && IsDigit(query_[j])) {
      while (j < end_ && IsDigit(query_[j])) ++j;
      pos_ = j;
      kind = TokenKind::kFloat;
    }
  }
  if (kind == TokenKind::kInteger && !AtEnd() && IsIdentChar(Peek())) {
    // MySQL identifiers may start with digits: 1abc, 0xg, 1e.
    return LexWord(t, num_start);
  }
  Make(t, kind, start);
  t.text.assign(query_.substr(num_start, pos_ - num_start));
}

bool Lexer::ReadQuotedBody(char quote, bool backslash_escapes, std::string* out) {
  ++pos_;  // opening quote
  while (!AtEnd()) {
    char ch = Peek();
    if (ch == quote) {
      if (Peek(1) == quote) {
        out->push_back(quote);
        pos_ += 2;
        continue;
      }
      ++pos_;
      return true;
    }
    if (ch == '\\' && backslash_escapes && pos_ + 1 < end_) {
      char e = Peek(1);
      pos_ += 2;
      switch (e) {
        case '0': out->push_back('\0'); break;
        case 'b': out->push_back('\b'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'Z': out->push_back('\x1a'); break;
        case '%':
        case '_':
          // Kept with the backslash so LIKE patterns can still escape them.
          out->push_back('\\');
          out->push_back(e);
          break;
        default: out->push_back(e); break;
      }
      continue;
    }
    out->push_back(ch);
    ++pos_;
  }
  return false;
}

void Lexer::LexQuoted(Token& t, size_t start, char quote, TokenKind kind) {
  const bool escapes = quote != '`' && kind == TokenKind::kString && !options_.no_backslash_escapes;
  Make(t, kind, start);
  if (!ReadQuotedBody(quote, escapes, &t.text)) return Error(t, start);
  t.end = static_cast<uint32_t>(pos_);
}

void Lexer::LexHexOrBitString(Token& t, size_t start, bool hex, size_t body_start) {
  // body_start points at the opening quote.
  size_t close = query_.substr(0, end_).find('\'', body_start + 1);
  if (close == std::string_view::npos) return Error(t, start);
  std::string_view digits = query_.substr(body_start + 1, close - body_start - 1);
  for (char ch : digits) {
    if (hex ? !IsHexDigit(ch) : (ch != '0' && ch != '1')) return Error(t, start);
  }
  if (hex && digits.size() % 2 == 1) return Error(t, start);
  pos_ = close + 1;
  Make(t, hex ? TokenKind::kHex : TokenKind::kBit, start);
  t.text = hex ? DecodeHex(digits) : DecodeBits(digits);
}

void Lexer::LexUserVar(Token& t, size_t start) {
  ++pos_;  // '@'
  std::string name;
  char c = Peek();
  if (c == '\'' || c == '"' || c == '`') {
    if (!ReadQuotedBody(c, c != '`' && !options_.no_backslash_escapes, &name)) return Error(t, start);
  } else {
    while (!AtEnd() && (IsIdentChar(Peek()) || Peek() == '.')) name.push_back(query_[pos_++]);
    if (name.empty()) return Error(t, start);
  }
  Make(t, TokenKind::kUserVar, start);
  t.text = std::move(name);
}

bool Lexer::ReadName(std::string* out) {
  if (Peek() == '`') return ReadQuotedBody('`', false, out) && !out->empty();
  while (!AtEnd() && IsIdentChar(Peek())) out->push_back(query_[pos_++]);
  return !out->empty();
}

void Lexer::LexSysVar(Token& t, size_t start) {
  pos_ += 2;  // "@@"
  std::string name;
  if (!ReadName(&name)) return Error(t, start);
  VarScope scope = VarScope::kDefault;
  if (Peek() == '.') {
    std::string upper = AsciiUpper(name);
    if (upper == "GLOBAL") scope = VarScope::kGlobal;
    else if (upper == "SESSION" || upper == "LOCAL") scope = VarScope::kSession;
    else if (upper == "PERSIST") scope = VarScope::kPersist;
    else if (upper == "PERSIST_ONLY") scope = VarScope::kPersistOnly;
    if (scope != VarScope::kDefault) {
      ++pos_;
      name.clear();
      if (!ReadName(&name)) return Error(t, start);
    }
  }
  // Component variables: @@validate_password.length.
  if (Peek() == '.' && (IsIdentChar(Peek(1)) || Peek(1) == '`')) {
    ++pos_;
    std::string component;
    if (!ReadName(&component)) return Error(t, start);
    name += "." + component;
  }
  Make(t, TokenKind::kSysVar, start);
  t.text = std::move(name);
  t.scope = scope;
}

void Lexer::LexPunct(Token& t, size_t start) {
  const char c = Peek();
  const char n = Peek(1);
  Punct p = Punct::kNone;
  size_t len = 1;
  switch (c) {
    case '=': p = Punct::kEq; break;
    case ':':
      if (n == '=') {
        p = Punct::kAssign;
        len = 2;
      }
      break;
    case '<':
      if (n == '=' && Peek(2) == '>') {
        p = Punct::kNullSafeEq;
        len = 3;
      } else if (n == '=') {
        p = Punct::kLe;
        len = 2;
      } else if (n == '>') {
        p = Punct::kNe;
        len = 2;
      } else if (n == '<') {
        p = Punct::kShl;
        len = 2;
      } else {
        p = Punct::kLt;
      }
      break;
    case '>':
      if (n == '=') {
        p = Punct::kGe;
        len = 2;
      } else if (n == '>') {
        p = Punct::kShr;
        len = 2;
      } else {
        p = Punct::kGt;
      }
      break;
    case '!':
      if (n == '=') {
        p = Punct::kNe;
        len = 2;
      } else {
        p = Punct::kBang;
      }
      break;
    case '&':
      if (n == '&') {
        p = Punct::kAndAnd;
        len = 2;
      } else {
        p = Punct::kAmp;
      }
      break;
    case '|':
      if (n == '|') {
        p = Punct::kOrOr;
        len = 2;
      } else {
        p = Punct::kPipe;
      }
      break;
    case '^': p = Punct::kCaret; break;
    case '~': p = Punct::kTilde; break;
    case '+': p = Punct::kPlus; break;
    case '-':
      if (n == '>') {  // col->'path', col->>'path'
        p = Peek(2) == '>' ? Punct::kJsonUnquotedExtract : Punct::kJsonExtract;
        len = Peek(2) == '>' ? 3 : 2;
      } else {
        p = Punct::kMinus;
      }
      break;
    case '*': p = Punct::kStar; break;
    case '/': p = Punct::kSlash; break;
    case '%': p = Punct::kPercent; break;
    case ',': p = Punct::kComma; break;
    case '(': p = Punct::kLParen; break;
    case ')': p = Punct::kRParen; break;
    case '.': p = Punct::kDot; break;
    case ';': p = Punct::kSemicolon; break;
    case '{': p = Punct::kLBrace; break;
    case '}': p = Punct::kRBrace; break;
    default: break;
  }
  if (p == Punct::kNone) return Error(t, start);
  pos_ += len;
  Make(t, TokenKind::kPunct, start);
  t.punct = p;
}

std::vector<Token> Tokenize(std::string_view query, LexOptions options) {
  Lexer lexer(query, options);
  std::vector<Token> out;
  for (;;) {
    out.push_back(lexer.Next());
    if (out.back().kind == TokenKind::kEnd || out.back().kind == TokenKind::kError) break;
  }
  return out;
}

}  // namespace sluice::sql
