#include "sql/lexer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::sql {
namespace {

std::vector<Token> Lex(std::string_view q, LexOptions options = {}) { return Tokenize(q, options); }

// The kinds of all tokens but the final kEnd.
std::vector<TokenKind> Kinds(std::string_view q) {
  std::vector<TokenKind> out;
  for (const Token& t : Lex(q)) {
    if (t.kind != TokenKind::kEnd) out.push_back(t.kind);
  }
  return out;
}

TEST(LexerTest, WordsAreIdentifiersWithOffsets) {
  auto t = Lex("SELECT  foo_1$, `b``q`");
  ASSERT_EQ(t.size(), 5u);
  EXPECT_EQ(t[0].kind, TokenKind::kIdent);
  EXPECT_TRUE(t[0].IsKeyword("SELECT"));
  EXPECT_EQ(t[0].offset, 0u);
  EXPECT_EQ(t[1].text, "foo_1$");
  EXPECT_EQ(t[1].offset, 8u);
  EXPECT_EQ(t[1].end, 14u);
  EXPECT_TRUE(t[2].Is(Punct::kComma));
  EXPECT_EQ(t[3].kind, TokenKind::kQuotedIdent);
  EXPECT_EQ(t[3].text, "b`q");
  EXPECT_EQ(t[4].kind, TokenKind::kEnd);
}

TEST(LexerTest, KeywordsMatchIgnoringCase) {
  auto t = Lex("sElEcT");
  EXPECT_TRUE(t[0].IsKeyword("SELECT"));
  EXPECT_FALSE(t[0].IsKeyword("SELECTS"));
}

TEST(LexerTest, StringsDecodeDoublingAndBackslashEscapes) {
  auto t = Lex(R"('it''s' "say ""hi""" 'a\nb\tc\0d\\e\'f\"g\Zh\bi\rj\%k\_l\qm')");
  ASSERT_EQ(t[0].kind, TokenKind::kString);
  EXPECT_EQ(t[0].text, "it's");
  EXPECT_EQ(t[1].text, "say \"hi\"");
  EXPECT_EQ(t[2].text, std::string("a\nb\tc\0d\\e'f\"g\x1ah\bi\rj\\%k\\_lqm", 27));
}

TEST(LexerTest, NoBackslashEscapesKeepsBackslashes) {
  LexOptions options;
  options.no_backslash_escapes = true;
  auto t = Lex(R"('a\nb')", options);
  EXPECT_EQ(t[0].text, R"(a\nb)");
}

TEST(LexerTest, AnsiQuotesMakeDoubleQuotesIdentifiers) {
  LexOptions options;
  options.ansi_quotes = true;
  auto t = Lex(R"("col")", options);
  EXPECT_EQ(t[0].kind, TokenKind::kQuotedIdent);
  EXPECT_EQ(t[0].text, "col");
}

TEST(LexerTest, CharsetIntroducersAttachToTheLiteral) {
  auto t = Lex("_utf8mb4'x' _binary 'y' N'z' _latin1 X'41' _utf8 'w'");
  ASSERT_EQ(t[0].kind, TokenKind::kString);
  EXPECT_EQ(t[0].charset, "utf8mb4");
  EXPECT_EQ(t[0].text, "x");
  EXPECT_EQ(t[0].offset, 0u);
  EXPECT_EQ(t[1].charset, "binary");
  EXPECT_EQ(t[1].text, "y");
  EXPECT_EQ(t[2].charset, "utf8mb3");
  EXPECT_EQ(t[2].text, "z");
  EXPECT_EQ(t[3].kind, TokenKind::kHex);
  EXPECT_EQ(t[3].charset, "latin1");
  EXPECT_EQ(t[3].text, "A");
  EXPECT_EQ(t[4].charset, "utf8mb3");
}

TEST(LexerTest, UnderscoreWordWithoutLiteralIsAnIdentifier) {
  auto t = Lex("_utf8mb4 + _foo 'x'");
  EXPECT_EQ(t[0].kind, TokenKind::kIdent);
  EXPECT_EQ(t[0].text, "_utf8mb4");
  EXPECT_EQ(t[2].kind, TokenKind::kIdent);
  EXPECT_EQ(t[3].kind, TokenKind::kString);
  EXPECT_EQ(t[3].charset, "");
}

TEST(LexerTest, NumbersAreIntegerDecimalOrFloat) {
  auto t = Lex("42 1.5 .5 3. 1e3 2.5E-2 18446744073709551616");
  EXPECT_EQ(t[0].kind, TokenKind::kInteger);
  EXPECT_EQ(t[0].text, "42");
  EXPECT_EQ(t[1].kind, TokenKind::kDecimal);
  EXPECT_EQ(t[2].kind, TokenKind::kDecimal);
  EXPECT_EQ(t[2].text, ".5");
  EXPECT_EQ(t[3].kind, TokenKind::kDecimal);
  EXPECT_EQ(t[4].kind, TokenKind::kFloat);
  EXPECT_EQ(t[5].kind, TokenKind::kFloat);
  EXPECT_EQ(t[5].text, "2.5E-2");
  EXPECT_EQ(t[6].kind, TokenKind::kInteger);
}

TEST(LexerTest, DigitsFollowedByLettersFormAnIdentifier) {
  auto t = Lex("1abc 0xg 1e");
  EXPECT_EQ(t[0].kind, TokenKind::kIdent);
  EXPECT_EQ(t[0].text, "1abc");
  EXPECT_EQ(t[1].kind, TokenKind::kIdent);
  EXPECT_EQ(t[2].kind, TokenKind::kIdent);
}

TEST(LexerTest, HexAndBitLiteralsDecodeToBytes) {
  auto t = Lex("X'4142' x'' 0x414 b'1000001' 0b11 B'1'");
  EXPECT_EQ(t[0].kind, TokenKind::kHex);
  EXPECT_EQ(t[0].text, "AB");
  EXPECT_EQ(t[1].text, "");
  EXPECT_EQ(t[2].kind, TokenKind::kHex);
  EXPECT_EQ(t[2].text, std::string("\x04\x14", 2));
  EXPECT_EQ(t[3].kind, TokenKind::kBit);
  EXPECT_EQ(t[3].text, "A");
  EXPECT_EQ(t[4].text, "\x03");
  EXPECT_EQ(t[5].text, "\x01");
}

TEST(LexerTest, OddHexStringIsAnError) {
  auto t = Lex("SELECT X'414'");
  EXPECT_EQ(t.back().kind, TokenKind::kError);
  EXPECT_EQ(t.back().offset, 7u);
}

TEST(LexerTest, UserVariablesInAllQuotings) {
  auto t = Lex("@a.b_c @'x y' @`q` @\"d\"");
  for (int i = 0; i < 4; ++i) EXPECT_EQ(t[i].kind, TokenKind::kUserVar) << i;
  EXPECT_EQ(t[0].text, "a.b_c");
  EXPECT_EQ(t[1].text, "x y");
  EXPECT_EQ(t[2].text, "q");
  EXPECT_EQ(t[3].text, "d");
}

TEST(LexerTest, SystemVariablesCarryScope) {
  auto t = Lex("@@version @@global.max_connections @@SESSION.sql_mode @@local.x "
               "@@persist.y @@validate_password.length @@global.`a`");
  EXPECT_EQ(t[0].kind, TokenKind::kSysVar);
  EXPECT_EQ(t[0].text, "version");
  EXPECT_EQ(t[0].scope, VarScope::kDefault);
  EXPECT_EQ(t[1].text, "max_connections");
  EXPECT_EQ(t[1].scope, VarScope::kGlobal);
  EXPECT_EQ(t[2].scope, VarScope::kSession);
  EXPECT_EQ(t[3].scope, VarScope::kSession);
  EXPECT_EQ(t[4].scope, VarScope::kPersist);
  EXPECT_EQ(t[5].text, "validate_password.length");
  EXPECT_EQ(t[5].scope, VarScope::kDefault);
  EXPECT_EQ(t[6].text, "a");
}

TEST(LexerTest, OperatorsLexLongestFirst) {
  auto t = Lex("= := <=> != <> <= >= < > + - * / % && || ! & | ^ ~ << >> , ( ) . ; ?");
  std::vector<Punct> want = {
      Punct::kEq,    Punct::kAssign, Punct::kNullSafeEq, Punct::kNe,     Punct::kNe,
      Punct::kLe,    Punct::kGe,     Punct::kLt,         Punct::kGt,     Punct::kPlus,
      Punct::kMinus, Punct::kStar,   Punct::kSlash,      Punct::kPercent, Punct::kAndAnd,
      Punct::kOrOr,  Punct::kBang,   Punct::kAmp,        Punct::kPipe,   Punct::kCaret,
      Punct::kTilde, Punct::kShl,    Punct::kShr,        Punct::kComma,  Punct::kLParen,
      Punct::kRParen, Punct::kDot,   Punct::kSemicolon,
  };
  for (size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(t[i].Is(want[i])) << i;
  EXPECT_EQ(t[want.size()].kind, TokenKind::kParam);
}

TEST(LexerTest, CommentsAreSkipped) {
  EXPECT_EQ(Kinds("SELECT -- comment\n 1 # another\n /* block\n */ + 2"),
            (std::vector<TokenKind>{TokenKind::kIdent, TokenKind::kInteger, TokenKind::kPunct,
                                    TokenKind::kInteger}));
}

TEST(LexerTest, DoubleDashWithoutSpaceIsTwoMinuses) {
  auto t = Lex("1--2");
  EXPECT_EQ(t[0].kind, TokenKind::kInteger);
  EXPECT_TRUE(t[1].Is(Punct::kMinus));
  EXPECT_TRUE(t[2].Is(Punct::kMinus));
  EXPECT_EQ(t[3].text, "2");
}

TEST(LexerTest, VersionedCommentBodyIsLexedWhenVersionIsOld) {
  auto t = Lex("SELECT /*!40101 1 + */ 2 /*! 3 */");
  ASSERT_EQ(t.size(), 6u);
  EXPECT_EQ(t[1].text, "1");
  EXPECT_TRUE(t[2].Is(Punct::kPlus));
  EXPECT_EQ(t[3].text, "2");
  EXPECT_EQ(t[4].text, "3");
  EXPECT_EQ(t[1].offset, 16u);
}

TEST(LexerTest, VersionedCommentIsIgnoredWhenVersionIsNewer) {
  EXPECT_EQ(Kinds("SELECT /*!90000 1 + */ 2"),
            (std::vector<TokenKind>{TokenKind::kIdent, TokenKind::kInteger}));
  EXPECT_EQ(Kinds("SELECT /*!80036 1, */ 2").size(), 4u);
  EXPECT_EQ(Kinds("SELECT /*!80037 1, */ 2").size(), 2u);
}

TEST(LexerTest, OptimizerHintsAreIgnored) {
  EXPECT_EQ(Kinds("SELECT /*+ MAX_EXECUTION_TIME(10) */ 1"),
            (std::vector<TokenKind>{TokenKind::kIdent, TokenKind::kInteger}));
}

TEST(LexerTest, UnterminatedTokensAreErrorsAtTheirStart) {
  EXPECT_EQ(Lex("SELECT 'abc").back().kind, TokenKind::kError);
  EXPECT_EQ(Lex("SELECT 'abc").back().offset, 7u);
  EXPECT_EQ(Lex("SELECT `abc").back().kind, TokenKind::kError);
  EXPECT_EQ(Lex("SELECT 1 /* x").back().kind, TokenKind::kError);
  EXPECT_EQ(Lex("SELECT 1 /* x").back().offset, 9u);
}

TEST(LexerTest, TokensRecordWhetherACommentPrecededThem) {
  auto t = Lex("/* c */ SELECT 1");
  EXPECT_TRUE(t[0].follows_comment);
  EXPECT_FALSE(t[1].follows_comment);
}

// The parser lexes into the slots of its lookahead ring (Next(Token*)),
// which still hold an earlier token: every field must be the new token's.
TEST(LexerTest, LexingIntoAUsedTokenLeavesNothingOfTheOldOne) {
  const std::string q =
      "SELECT _utf8mb4'a' /* c */ , @@global.max_connections, @v, ?, x'41', N'n', 1.5e3, `q`, <=> ; 'open";
  const std::vector<Token> fresh = Tokenize(q);
  Lexer lexer(q, LexOptions{});
  Token slot;
  for (size_t i = 0; i < fresh.size(); ++i) {
    lexer.Next(&slot);
    const Token& want = fresh[i];
    EXPECT_EQ(slot.kind, want.kind) << i;
    EXPECT_EQ(slot.punct, want.punct) << i;
    EXPECT_EQ(slot.scope, want.scope) << i;
    EXPECT_EQ(slot.offset, want.offset) << i;
    EXPECT_EQ(slot.end, want.end) << i;
    EXPECT_EQ(slot.text, want.text) << i;
    EXPECT_EQ(slot.charset, want.charset) << i;
    EXPECT_EQ(slot.follows_comment, want.follows_comment) << i;
  }
  EXPECT_EQ(fresh.back().kind, TokenKind::kError);
  lexer.Next(&slot);  // after an error: kEnd, nothing of the error left
  EXPECT_EQ(slot.kind, TokenKind::kEnd);
  EXPECT_TRUE(slot.text.empty());
}

}  // namespace
}  // namespace sluice::sql
