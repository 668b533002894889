#include "sql/json.h"

#include <gtest/gtest.h>

#include <string>

namespace sluice::sql::json {
namespace {

std::string Hex(std::string_view s) {
  static const char* d = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += d[c >> 4];
    out += d[c & 15];
  }
  return out;
}

std::string Bin(std::string_view text) {
  auto b = TextToBinary(text, "c");
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? *b : std::string();
}

// The worked example of json-binary.md §2, checked there against three
// readers.
TEST(JsonBinaryTest, MatchesTheReferenceLayout) {
  EXPECT_EQ(Hex(Bin(R"({"b": [true, "x"], "a": 1})")),
            "00 02 00 20 00 12 00 01 00 13 00 01 00 05 01 00 02 14 00 61 62 02 00 0C 00 04 01 00 0C 0A 00 01 78");
  EXPECT_EQ(Hex(Bin("null")), "04 00");
  EXPECT_EQ(Hex(Bin("true")), "04 01");
  EXPECT_EQ(Hex(Bin("1")), "05 01 00");
  EXPECT_EQ(Hex(Bin(R"("hi")")), "0C 02 68 69");
  EXPECT_EQ(Hex(Bin("{}")), "00 00 00 04 00");
  EXPECT_EQ(Hex(Bin("[]")), "02 00 00 04 00");
  // Key order: length first, then bytes.
  EXPECT_EQ(*BinaryToText(Bin(R"({"aa": 1, "b": 2, "B": 3})")), R"({"B": 3, "b": 2, "aa": 1})");
}

TEST(JsonBinaryTest, TextRoundTripsThroughBothFormats) {
  for (std::string_view text : {
           R"({"a": [1, -2, 70000, -70000, 4294967295, 4294967296, 18446744073709551615, 1.5, 1.0, -0.0]})",
           R"(["s\u00e9", "q\"\\\n\t", null, false, {"k": {}}, []])",
       }) {
    auto b = TextToBinary(text, "c");
    ASSERT_TRUE(b.ok());
    auto back = BinaryToText(*b);
    ASSERT_TRUE(back.ok());
    auto again = TextToBinary(*back, "c");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *b) << *back;
  }
  // Over 64 KiB: the large format, int32/uint32 inlined in the entries.
  std::string big = R"({"n": 70000, "u": 4000000000, "s": ")" + std::string(70000, 'x') + R"("})";
  auto b = TextToBinary(big, "c");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(static_cast<unsigned char>((*b)[0]), 0x01);  // large object
  auto back = BinaryToText(*b);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->substr(0, 30), R"({"n": 70000, "s": "xxxxxxxxxxx)");
  EXPECT_NE(back->find(R"("u": 4000000000)"), std::string::npos);
}

TEST(JsonBinaryTest, BadInputIsAnErrorNeverACrash) {
  TextError err;
  auto r = TextToBinary(R"({"a": 1)", "doc", &err);
  EXPECT_EQ(r.status().mysql_errno(), 3140);
  EXPECT_EQ(TextToBinary(std::string(101, '[') + std::string(101, ']'), "doc").status().mysql_errno(), 3157);
  EXPECT_TRUE(TextToBinary(std::string(100, '[') + std::string(100, ']'), "doc").ok());
  EXPECT_EQ(TextToBinary("1e400", "doc").status().mysql_errno(), 3140);
  // Truncated or garbled binary documents are Corruption.
  const std::string good = Bin(R"({"a": [1, 2, "three"]})");
  for (size_t n = 1; n < good.size(); ++n) EXPECT_FALSE(BinaryToText(good.substr(0, n)).ok()) << n;
  EXPECT_FALSE(BinaryToText("\x0E").ok());
  EXPECT_EQ(*BinaryToText(""), "null");  // MySQL reads a zero-length document as null
}

}  // namespace
}  // namespace sluice::sql::json
