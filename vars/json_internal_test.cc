#include "vars/json_internal.h"

#include <gtest/gtest.h>

namespace sluice::vars::internal {
namespace {

TEST(JsonTest, ParsesNestedObjectsInOrder) {
  Result<Json> j = ParseJson(R"( { "a" : 1 , "b" : { "c" : "x", "d": [true, false, null, -2.5e3] } } )");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  ASSERT_EQ(j->members.size(), 2u);
  EXPECT_EQ(j->members[0].first, "a");
  EXPECT_EQ(j->Find("a")->kind, Json::Kind::kNumber);
  EXPECT_EQ(j->Find("a")->text, "1");
  const Json* b = j->Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->Find("c")->text, "x");
  const Json* d = b->Find("d");
  ASSERT_EQ(d->items.size(), 4u);
  EXPECT_TRUE(d->items[0].boolean);
  EXPECT_EQ(d->items[1].kind, Json::Kind::kBool);
  EXPECT_FALSE(d->items[1].boolean);
  EXPECT_EQ(d->items[2].kind, Json::Kind::kNull);
  EXPECT_EQ(d->items[3].text, "-2.5e3");
  EXPECT_EQ(j->Find("zzz"), nullptr);
}

TEST(JsonTest, DecodesEscapesAndSurrogatePairs) {
  Result<Json> j = ParseJson(R"("q\" b\\ s\/ \n\t\r\b\f \u00e9 \ud83d\ude00")");
  ASSERT_TRUE(j.ok()) << j.status().ToString();
  EXPECT_EQ(j->text, "q\" b\\ s/ \n\t\r\b\f \xC3\xA9 \xF0\x9F\x98\x80");
}

TEST(JsonTest, RejectsMalformedDocumentsAsCorruption) {
  const char* bad[] = {"",          "{",          "{\"a\" 1}",     "{\"a\":1,}", "[1 2]",
                       "\"abc",     "\"\\x\"",    "\"\\ud800\"",   "01x",        "{} {}",
                       "\"a\nb\"",  "tru",        "-",             "1.",         "{1:2}"};
  for (const char* text : bad) {
    Result<Json> j = ParseJson(text);
    EXPECT_FALSE(j.ok()) << text;
    if (!j.ok()) {
      EXPECT_TRUE(j.status().IsCorruption());
    }
  }
}

TEST(JsonTest, RejectsDeepNesting) {
  std::string deep(200, '[');
  deep += std::string(200, ']');
  EXPECT_FALSE(ParseJson(deep).ok());
}

TEST(JsonTest, QuotedStringsRoundTrip) {
  std::string nasty = std::string("a\"b\\c\nd\x01") + "\xC3\xA9";
  std::string out;
  AppendJsonString(&out, nasty);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\nd\\u0001\xC3\xA9\"");
  Result<Json> j = ParseJson(out);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->text, nasty);
}

}  // namespace
}  // namespace sluice::vars::internal
