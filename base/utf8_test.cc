#include "base/utf8.h"

#include <gtest/gtest.h>

namespace sluice::base {
namespace {

TEST(Utf8Test, AcceptsWellFormedUtf8mb4) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii"));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9"));                    // U+00E9
  EXPECT_TRUE(IsValidUtf8("\xE2\x82\xAC"));                   // U+20AC
  EXPECT_TRUE(IsValidUtf8("\xF0\x9F\x98\x80"));               // U+1F600
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));               // U+10FFFF
}

TEST(Utf8Test, RejectsMalformedBytes) {
  EXPECT_FALSE(IsValidUtf8("t\xFF"));
  EXPECT_FALSE(IsValidUtf8("\x80"));                          // lone continuation
  EXPECT_FALSE(IsValidUtf8("\xC3"));                          // truncated
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));                      // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));                  // overlong, 3 bytes
  EXPECT_FALSE(IsValidUtf8("\xF0\x80\x80\xAF"));              // overlong, 4 bytes
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));                  // surrogate U+D800
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));              // U+110000
  EXPECT_FALSE(IsValidUtf8("\xC3\x28"));                      // bad continuation
}

TEST(Utf8Test, CountsCharacters) {
  EXPECT_EQ(Utf8CharCount(""), 0u);
  EXPECT_EQ(Utf8CharCount("caf\xC3\xA9"), 4u);
  EXPECT_EQ(Utf8CharCount("\xF0\x9F\x98\x80x"), 2u);
}

TEST(Utf8Test, PrintableEscapesBadBytes) {
  EXPECT_EQ(PrintableUtf8("t\xFF"), "t\\xFF");
  EXPECT_EQ(PrintableUtf8("caf\xC3\xA9\xC3"), "caf\xC3\xA9\\xC3");
  EXPECT_EQ(PrintableUtf8("a\nb"), "a\\x0Ab");
  EXPECT_EQ(PrintableUtf8("abcdef", 3), "abc...");
  EXPECT_TRUE(IsValidUtf8(PrintableUtf8("\xFF\xFE\xC0")));
}

TEST(Utf8Test, CheckUtf8GivesMySqlError1300) {
  EXPECT_TRUE(CheckUtf8("ok").ok());
  Status s = CheckUtf8("t\xFF");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.mysql_errno(), 1300);
  EXPECT_NE(s.ToString().find("Invalid utf8mb4 character string: 't\\xFF'"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace sluice::base
