#include "base/collation.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

namespace sluice::base {
namespace {

// UTF-8 spellings used below.
const char* const kAAcute = "\xC3\x81";    // Á
const char* const kaacute = "\xC3\xA1";    // á
const char* const kEszett = "\xC3\x9F";    // ß
const char* const kEAcute = "\xC3\xA9";    // é
const char* const kEUpper = "\xC3\x89";    // É
const char* const kOUmlaut = "\xC3\xB6";   // ö

TEST(CollationTest, NamesMapToCollations) {
  EXPECT_EQ(CollationFromName("utf8mb4_0900_ai_ci"), Collation::k0900AiCi);
  EXPECT_EQ(CollationFromName("UTF8MB4_0900_AI_CI"), Collation::k0900AiCi);
  EXPECT_EQ(CollationFromName("utf8mb4_de_pb_0900_ai_ci"), Collation::k0900AiCi);
  EXPECT_EQ(CollationFromName("utf8mb4_0900_as_ci"), Collation::k0900AsCi);
  EXPECT_EQ(CollationFromName("utf8mb4_0900_as_cs"), Collation::k0900AsCs);
  EXPECT_EQ(CollationFromName("utf8mb4_0900_bin"), Collation::k0900Bin);
  EXPECT_EQ(CollationFromName("utf8mb4_general_ci"), Collation::kGeneralCi);
  EXPECT_EQ(CollationFromName("utf8mb4_unicode_ci"), Collation::kGeneralCi);
  EXPECT_EQ(CollationFromName("latin1_swedish_ci"), Collation::kGeneralCi);
  EXPECT_EQ(CollationFromName("utf8mb4_bin"), Collation::kBin);
  EXPECT_EQ(CollationFromName("binary"), Collation::kBinary);
  EXPECT_EQ(CollationFromName("utf8mb4"), std::nullopt);
  EXPECT_EQ(CollationName(Collation::k0900AiCi), "utf8mb4_0900_ai_ci");
  EXPECT_EQ(kDefaultCollation, Collation::k0900AiCi);
}

TEST(CollationTest, AiCiIgnoresCaseAndAccents) {
  const Collation c = Collation::k0900AiCi;
  EXPECT_EQ(CompareStrings("a", "A", c), 0);
  EXPECT_EQ(CompareStrings("a", kAAcute, c), 0);
  EXPECT_EQ(CompareStrings(kEszett, "ss", c), 0);
  EXPECT_EQ(CompareStrings(std::string("caf") + kEAcute, "CAFE", c), 0);
  EXPECT_LT(CompareStrings("a", "b", c), 0);
  EXPECT_GT(CompareStrings("B", "a", c), 0);
  EXPECT_LT(CompareStrings(kaacute, "b", c), 0);
  EXPECT_LT(CompareStrings(kOUmlaut, "p", c), 0);
}

TEST(CollationTest, NineHundredCollationsDoNotPad) {
  for (Collation c : {Collation::k0900AiCi, Collation::k0900AsCi, Collation::k0900AsCs,
                      Collation::k0900Bin, Collation::kBinary}) {
    EXPECT_NE(CompareStrings("a", "a ", c), 0) << CollationName(c);
    EXPECT_LT(CompareStrings("a", "a ", c), 0) << CollationName(c);
  }
}

TEST(CollationTest, LegacyCollationsPadWithSpaces) {
  EXPECT_EQ(CompareStrings("a", "a  ", Collation::kGeneralCi), 0);
  EXPECT_EQ(CompareStrings("A", "a ", Collation::kGeneralCi), 0);
  EXPECT_EQ(CompareStrings("a", "a  ", Collation::kBin), 0);
  EXPECT_NE(CompareStrings("A", "a", Collation::kBin), 0);
  // Padding compares the rest of the longer string with spaces.
  EXPECT_GT(CompareStrings("a", "a\t", Collation::kBin), 0);
  EXPECT_LT(CompareStrings("a", "a!", Collation::kBin), 0);
}

TEST(CollationTest, AsCiSeesAccentsNotCase) {
  const Collation c = Collation::k0900AsCi;
  EXPECT_EQ(CompareStrings("a", "A", c), 0);
  EXPECT_NE(CompareStrings("a", kaacute, c), 0);
  EXPECT_EQ(CompareStrings(kEAcute, kEUpper, c), 0);
}

TEST(CollationTest, AsCsSeesAccentsAndCase) {
  const Collation c = Collation::k0900AsCs;
  EXPECT_NE(CompareStrings("a", "A", c), 0);
  EXPECT_LT(CompareStrings("a", "A", c), 0);  // lower case first, as the UCA
  EXPECT_LT(CompareStrings("A", "b", c), 0);  // but letters before case
  EXPECT_NE(CompareStrings(kEAcute, kEUpper, c), 0);
  EXPECT_EQ(CompareStrings("abc", "abc", c), 0);
}

TEST(CollationTest, BinaryComparesBytes) {
  EXPECT_LT(CompareStrings("B", "a", Collation::kBinary), 0);
  EXPECT_NE(CompareStrings("a", "A", Collation::kBinary), 0);
  EXPECT_LT(CompareStrings("B", "a", Collation::k0900Bin), 0);
}

TEST(CollationTest, UcaOrderForPunctuationAndDigits) {
  const Collation c = Collation::k0900AiCi;
  // The UCA sorts '_' before '-', punctuation before digits before letters,
  // unlike byte order.
  EXPECT_LT(CompareStrings("a_b", "a-b", c), 0);
  EXPECT_LT(CompareStrings("{", "0", c), 0);
  EXPECT_LT(CompareStrings("9", "a", c), 0);
  // Control characters are ignorable.
  EXPECT_EQ(CompareStrings("a\x01" "b", "ab", c), 0);
}

// Up to max_len - 1 characters drawn from `alphabet`.
std::string RandomString(std::mt19937& rng, std::string_view alphabet, unsigned max_len) {
  std::string s;
  const unsigned n = rng() % max_len;
  for (unsigned i = 0; i < n; ++i) s.push_back(alphabet[rng() % alphabet.size()]);
  return s;
}

// The ASCII fast paths must agree with ICU: compare random ASCII strings
// with a non-ASCII character put in front of both (which takes the ICU path
// and leaves the order of the rest alone).
TEST(CollationTest, AsciiFastPathAgreesWithIcu) {
  std::mt19937 rng(7);
  auto random_string = [&rng] { return RandomString(rng, "aAbBzZ09 _-.,'!~{}\t", 6); };
  for (int i = 0; i < 3000; ++i) {
    const std::string a = random_string();
    const std::string b = random_string();
    for (Collation c : {Collation::k0900AiCi, Collation::kGeneralCi}) {
      const int fast = CompareStrings(a, b, c);
      const int slow = CompareStrings(kEszett + a, kEszett + b, c);
      ASSERT_EQ(fast, slow) << "'" << a << "' vs '" << b << "' " << CollationName(c);
      ASSERT_EQ(SortKey(a, c) == SortKey(b, c), fast == 0) << "'" << a << "' vs '" << b << "'";
      // ORDER BY sorts by the keys' bytes: their order is the collation's,
      // on the fast path and ICU's alike.
      auto sign = [](int x) { return x < 0 ? -1 : x > 0 ? 1 : 0; };
      ASSERT_EQ(sign(SortKey(a, c).compare(SortKey(b, c))), fast) << "'" << a << "' vs '" << b << "'";
      ASSERT_EQ(sign(SortKey(kEszett + a, c).compare(SortKey(kEszett + b, c))), slow) << "'" << a << "' vs '" << b << "'";
      std::string appended = "prefix";
      AppendSortKey(a, c, &appended);
      ASSERT_EQ(appended, "prefix" + SortKey(a, c));
      // What a sort of pure-ASCII text compares with instead of keys.
      ASSERT_TRUE(HasAsciiOrder(c) && IsAscii(a) && IsAscii(b));
      ASSERT_EQ(CompareAscii(a, b, c), fast) << "'" << a << "' vs '" << b << "' " << CollationName(c);
    }
  }
}

TEST(CollationTest, AsciiOrderPrefixOrdersAsCompareAscii) {
  // Strings around the prefix's eight weights, from an alphabet with case
  // pairs, ignorable and trailing spaces (PAD SPACE under _general_ci):
  // a smaller prefix means a smaller string, a smaller string never has a
  // bigger prefix, equal strings have equal prefixes.
  std::mt19937 rng(11);
  auto random_string = [&rng] { return RandomString(rng, "aAb 0_\t", 13); };
  for (int i = 0; i < 20000; ++i) {
    const std::string a = random_string();
    const std::string b = random_string();
    for (Collation c : {Collation::k0900AiCi, Collation::kGeneralCi}) {
      const int cmp = CompareAscii(a, b, c);
      const uint64_t pa = AsciiOrderPrefix(a, c), pb = AsciiOrderPrefix(b, c);
      if (pa < pb) ASSERT_LT(cmp, 0) << "'" << a << "' vs '" << b << "' " << CollationName(c);
      if (pa > pb) ASSERT_GT(cmp, 0) << "'" << a << "' vs '" << b << "' " << CollationName(c);
      if (cmp == 0) ASSERT_EQ(pa, pb) << "'" << a << "' vs '" << b << "' " << CollationName(c);
    }
  }
  EXPECT_EQ(AsciiOrderPrefix("", Collation::k0900AiCi), 0u);
  EXPECT_EQ(AsciiOrderPrefix("abcdefghij", Collation::k0900AiCi),
            AsciiOrderPrefix("ABCDEFGHxy", Collation::k0900AiCi));
  EXPECT_EQ(AsciiOrderPrefix("ab  ", Collation::kGeneralCi), AsciiOrderPrefix("ab", Collation::kGeneralCi));
}

TEST(CollationTest, OnlyThePrimaryCollationsHaveAnAsciiOrder) {
  EXPECT_TRUE(HasAsciiOrder(Collation::k0900AiCi));
  EXPECT_TRUE(HasAsciiOrder(Collation::kGeneralCi));
  for (Collation c : {Collation::k0900AsCi, Collation::k0900AsCs, Collation::k0900Bin, Collation::kBin,
                      Collation::kBinary}) {
    EXPECT_FALSE(HasAsciiOrder(c)) << CollationName(c);
  }
  EXPECT_TRUE(IsAscii("plain text, 0-9 and ~"));
  EXPECT_FALSE(IsAscii(std::string("abcdefgh") + kaacute));
}

TEST(CollationTest, SortKeysAreEqualExactlyForEqualStrings) {
  const Collation c = Collation::k0900AiCi;
  EXPECT_EQ(SortKey("a", c), SortKey("A", c));
  EXPECT_EQ(SortKey("a", c), SortKey(kAAcute, c));
  EXPECT_EQ(SortKey("strasse", c), SortKey(std::string("STRA") + kEszett + "E", c));
  EXPECT_NE(SortKey("a", c), SortKey("b", c));
  EXPECT_NE(SortKey("a", c), SortKey("a ", c));
  EXPECT_EQ(SortKey("a", Collation::kGeneralCi), SortKey("A  ", Collation::kGeneralCi));
  EXPECT_EQ(SortKey("a", Collation::kBin), SortKey("a ", Collation::kBin));
  EXPECT_NE(SortKey("a", Collation::kBin), SortKey("A", Collation::kBin));
  EXPECT_NE(SortKey("a", Collation::k0900AsCs), SortKey("A", Collation::k0900AsCs));
  EXPECT_EQ(SortKey("a", Collation::k0900AsCi), SortKey("A", Collation::k0900AsCi));
  EXPECT_NE(SortKey("a", Collation::k0900AsCi), SortKey(kaacute, Collation::k0900AsCi));
  EXPECT_EQ(SortKey("ab", Collation::kBinary), "ab");
}

TEST(CollationTest, CharsEqualComparesSingleCharacters) {
  EXPECT_TRUE(CharsEqual("a", kAAcute, Collation::k0900AiCi));
  EXPECT_TRUE(CharsEqual("a", "A", Collation::k0900AiCi));
  EXPECT_FALSE(CharsEqual("a", "b", Collation::k0900AiCi));
  EXPECT_FALSE(CharsEqual("a", "A", Collation::k0900AsCs));
  EXPECT_FALSE(CharsEqual("a", kaacute, Collation::k0900AsCi));
  EXPECT_FALSE(CharsEqual("a", "A", Collation::kBinary));
}

TEST(CollationTest, CaseMappingIsPerCodePoint) {
  EXPECT_EQ(Utf8ToUpper(std::string("stra") + kEszett + "e " + kaacute), std::string("STRA") + kEszett + "E " + kAAcute);
  EXPECT_EQ(Utf8ToLower(std::string("CAF") + kEUpper), std::string("caf") + kEAcute);
  EXPECT_EQ(Utf8ToUpper("a\xFF" "b"), "A\xFF" "B");  // malformed bytes stay
}

TEST(CollationTest, ConcurrentUseIsSafe) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures]() {
      for (int i = 0; i < 2000; ++i) {
        if (CompareStrings(kAAcute, "a", Collation::k0900AiCi) != 0) ++failures[t];
        if (SortKey(kEszett, Collation::k0900AiCi) != SortKey("SS", Collation::k0900AiCi)) ++failures[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int f : failures) EXPECT_EQ(f, 0);
}

}  // namespace
}  // namespace sluice::base
