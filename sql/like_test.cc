#include "sql/like.h"

#include <gtest/gtest.h>

namespace sluice::sql {
namespace {

TEST(LikeMatchTest, PercentMatchesAnyRun) {
  EXPECT_TRUE(LikeMatch("max_connections", "max%"));
  EXPECT_TRUE(LikeMatch("max_connections", "%conn%"));
  EXPECT_TRUE(LikeMatch("", "%"));
  EXPECT_FALSE(LikeMatch("abc", "%d%"));
  EXPECT_TRUE(LikeMatch("aaab", "%a%b"));
}

TEST(LikeMatchTest, UnderscoreMatchesOneCharacter) {
  EXPECT_TRUE(LikeMatch("abc", "a_c"));
  EXPECT_FALSE(LikeMatch("ac", "a_c"));
  EXPECT_TRUE(LikeMatch("h\xC3\xA9llo", "h_llo"));  // é is one character
}

TEST(LikeMatchTest, IgnoresAsciiCaseUnlessCaseSensitive) {
  EXPECT_TRUE(LikeMatch("Max_Connections", "MAX%"));
  EXPECT_FALSE(LikeMatch("Max", "MAX", '\\', true));
}

TEST(LikeMatchTest, EscapeMakesWildcardsLiteral) {
  EXPECT_TRUE(LikeMatch("a_b", "a\\_b"));
  EXPECT_FALSE(LikeMatch("axb", "a\\_b"));
  EXPECT_TRUE(LikeMatch("50%", "50!%", '!'));
  EXPECT_FALSE(LikeMatch("500", "50!%", '!'));
  EXPECT_TRUE(LikeMatch("a\\", "a\\"));  // trailing escape stands for itself
}

TEST(LikeMatchTest, BacktracksWithoutBlowingUp) {
  std::string text(2000, 'a');
  EXPECT_FALSE(LikeMatch(text, "%a%a%a%a%a%b"));
  EXPECT_TRUE(LikeMatch(text + "b", "%a%a%a%a%a%b"));
}

}  // namespace
}  // namespace sluice::sql
