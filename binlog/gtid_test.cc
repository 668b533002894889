#include "binlog/gtid.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace sluice::binlog {
namespace {

constexpr char kUuidA[] = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
constexpr char kUuidB[] = "4e11fa47-71ca-11e1-9e33-c80aa9429563";

Uuid U(std::string_view text) {
  Result<Uuid> u = Uuid::Parse(text);
  EXPECT_TRUE(u.ok()) << text;
  return u.ok() ? *u : Uuid{};
}

GtidSet P(std::string_view text) {
  Result<GtidSet> s = GtidSet::Parse(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().ToString();
  return s.ok() ? *s : GtidSet{};
}

std::string A(std::string_view rest) { return std::string(kUuidA) + std::string(rest); }
std::string B(std::string_view rest) { return std::string(kUuidB) + std::string(rest); }

TEST(UuidTest, ParsesAndFormatsLowerCaseWithDashes) {
  Uuid u = U(kUuidA);
  EXPECT_EQ(u.bytes[0], 0x3e);
  EXPECT_EQ(u.bytes[15], 0x62);
  EXPECT_EQ(u.ToString(), kUuidA);
  EXPECT_EQ(U("3E11FA47-71CA-11E1-9E33-C80AA9429562"), u);
  EXPECT_EQ(U("3e11fa4771ca11e19e33c80aa9429562"), u);
  EXPECT_FALSE(u.is_zero());
  EXPECT_TRUE(Uuid{}.is_zero());
  EXPECT_EQ(Uuid{}.ToString(), "00000000-0000-0000-0000-000000000000");
}

TEST(UuidTest, RejectsMalformedText) {
  for (std::string_view bad : {"", "3e11fa47-71ca-11e1-9e33-c80aa942956", "3e11fa47-71ca-11e1-9e33-c80aa94295622",
                               "3e11fa4771ca-11e1-9e33-c80aa9429562-", "3e11fa47-71ca-11e1-9e33-c80aa942956g",
                               "3e11fa47:71ca-11e1-9e33-c80aa9429562"}) {
    Result<Uuid> u = Uuid::Parse(bad);
    EXPECT_FALSE(u.ok()) << bad;
    if (!u.ok()) {
      EXPECT_EQ(u.status().code(), Status::Code::kInvalidArgument);
    }
  }
}

TEST(GtidTextTest, FormatsUuidColonGnoUpToTheLargestGno) {
  const Uuid u = U(kUuidA);
  char text[kGtidTextMax];
  EXPECT_EQ(FormatGtid(u, 1, text), A(":1"));
  // The largest GNO (2^63 - 1, 19 digits) fills the buffer exactly.
  const std::string_view longest = FormatGtid(u, std::numeric_limits<int64_t>::max(), text);
  EXPECT_EQ(longest, A(":9223372036854775807"));
  EXPECT_EQ(longest.size(), kGtidTextMax);
  EXPECT_EQ(GtidToString(u, 42), A(":42"));
}

TEST(GtidSetTest, ParseAndFormatRoundTrip) {
  EXPECT_EQ(P(A(":1-5:7-9")).ToString(), A(":1-5:7-9"));
  EXPECT_EQ(P(A(":5")).ToString(), A(":5"));
  EXPECT_EQ(P(A(":1-1")).ToString(), A(":1"));
}

TEST(GtidSetTest, ParseMergesAdjacentAndOverlappingIntervals) {
  EXPECT_EQ(P(A(":1-3:4-6:5-10:12")).ToString(), A(":1-10:12"));
  EXPECT_EQ(P(A(":12:7:1-2:3")).ToString(), A(":1-3:7:12"));
  EXPECT_EQ(P(A(":1-5,") + A(":6-9")).ToString(), A(":1-9"));
}

TEST(GtidSetTest, ParseAcceptsWhitespaceUpperCaseAndManySids) {
  GtidSet s = P(" 4E11FA47-71CA-11E1-9E33-C80AA9429563 : 3 - 4 ,\n\t" + A(" :1-2 : 9") + " \n");
  EXPECT_EQ(s.ToString(), A(":1-2:9") + ",\n" + B(":3-4"));
  EXPECT_EQ(s.ToString(","), A(":1-2:9") + "," + B(":3-4"));
  EXPECT_EQ(s.sids().size(), 2u);
}

TEST(GtidSetTest, EmptyTextIsEmptySet) {
  for (std::string_view text : {"", "  \n ", ",", " , ,"}) {
    GtidSet s = P(text);
    EXPECT_TRUE(s.empty()) << text;
    EXPECT_EQ(s.ToString(), "");
  }
  // A SID without intervals adds nothing.
  EXPECT_TRUE(P(kUuidA).empty());
}

TEST(GtidSetTest, MalformedTextIsError1772) {
  for (std::string bad : {A(":0"), A(":5-3"), A(":"), A(":1-"), A(":-1"), std::string("xyz"), A(":1 ") + B(":2"),
                          A(":a"), A(":9223372036854775807"), A(":99999999999999999999"), A(":tag:5"),
                          std::string("3e11fa47-71ca-11e1-9e33:1"), A(":1;")}) {
    Result<GtidSet> s = GtidSet::Parse(bad);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.status().code(), Status::Code::kMySQL);
    EXPECT_EQ(s.status().mysql_errno(), 1772);
    EXPECT_EQ(s.status().sqlstate(), "HY000");
    EXPECT_EQ(s.status().message(), "Malformed GTID set specification '" + bad + "'.");
  }
  // The largest GNO MySQL accepts.
  EXPECT_EQ(P(A(":9223372036854775806")).LastGno(U(kUuidA)), 9223372036854775806LL);
}

TEST(GtidSetTest, AddKeepsIntervalsSortedAndMerged) {
  GtidSet s;
  Uuid a = U(kUuidA);
  s.Add(a, 5);
  s.Add(a, 3);
  EXPECT_EQ(s.ToString(), A(":3:5"));
  s.Add(a, 4);
  EXPECT_EQ(s.ToString(), A(":3-5"));
  s.AddInterval(a, 10, 20);
  s.AddInterval(a, 1, 1);
  EXPECT_EQ(s.ToString(), A(":1:3-5:10-20"));
  s.AddInterval(a, 2, 12);
  EXPECT_EQ(s.ToString(), A(":1-20"));
  s.AddInterval(a, 21, 21);
  s.AddInterval(a, 15, 16);
  EXPECT_EQ(s.ToString(), A(":1-21"));
  // Invalid input is ignored.
  s.AddInterval(a, 0, 3);
  s.AddInterval(a, 40, 30);
  s.Add(U(kUuidB), 0);
  EXPECT_EQ(s.ToString(), A(":1-21"));
}

TEST(GtidSetTest, AddSetIsUnion) {
  GtidSet s = P(A(":1-3:10"));
  s.Add(P(A(":4-6:20") + "," + B(":7")));
  EXPECT_EQ(s.ToString(","), A(":1-6:10:20") + "," + B(":7"));
  s.Add(GtidSet{});
  EXPECT_EQ(s.ToString(","), A(":1-6:10:20") + "," + B(":7"));
}

TEST(GtidSetTest, RemoveIsSetDifference) {
  GtidSet s = P(A(":1-10:20-30") + "," + B(":1-5"));
  s.Remove(P(A(":3-4:10:20") + "," + B(":1-5")));
  EXPECT_EQ(s.ToString(","), A(":1-2:5-9:21-30"));
  EXPECT_EQ(s.sids().count(U(kUuidB)), 0u);  // no empty SID left behind
  s.Remove(P(A(":1-100")));
  EXPECT_TRUE(s.empty());

  GtidSet t = P(A(":1-10"));
  t.Remove(P(B(":1-10")));
  EXPECT_EQ(t.ToString(), A(":1-10"));
  t.Remove(P(A(":2:4:6:8:10")));
  EXPECT_EQ(t.ToString(), A(":1:3:5:7:9"));
  t.Remove(P(A(":2-8")));
  EXPECT_EQ(t.ToString(), A(":1:9"));
}

TEST(GtidSetTest, Contains) {
  GtidSet s = P(A(":1-5:7-9") + "," + B(":3"));
  Uuid a = U(kUuidA);
  EXPECT_TRUE(s.Contains(a, 1));
  EXPECT_TRUE(s.Contains(a, 5));
  EXPECT_FALSE(s.Contains(a, 6));
  EXPECT_TRUE(s.Contains(a, 9));
  EXPECT_FALSE(s.Contains(a, 10));
  EXPECT_FALSE(s.Contains(U(kUuidB), 2));
  EXPECT_FALSE(GtidSet{}.Contains(a, 1));

  EXPECT_TRUE(s.Contains(GtidSet{}));
  EXPECT_TRUE(s.Contains(P(A(":2-4:8") + "," + B(":3"))));
  EXPECT_TRUE(s.Contains(s));
  EXPECT_FALSE(s.Contains(P(A(":4-7"))));
  EXPECT_FALSE(s.Contains(P(B(":3-4"))));
  EXPECT_FALSE(s.Contains(P("5e11fa47-71ca-11e1-9e33-c80aa9429563:1")));
  EXPECT_FALSE(GtidSet{}.Contains(s));
}

TEST(GtidSetTest, LastGno) {
  GtidSet s = P(A(":1-5:7-9"));
  EXPECT_EQ(s.LastGno(U(kUuidA)), 9);
  EXPECT_EQ(s.LastGno(U(kUuidB)), 0);
}

TEST(GtidSetTest, EncodesMySqlBinaryForm) {
  GtidSet s = P(A(":1-5:7"));
  const std::string expected = std::string(
                                   "\x01\x00\x00\x00\x00\x00\x00\x00"                  // n_sids
                                   "\x3e\x11\xfa\x47\x71\xca\x11\xe1\x9e\x33\xc8\x0a"  // uuid
                                   "\xa9\x42\x95\x62"
                                   "\x02\x00\x00\x00\x00\x00\x00\x00"  // n_intervals
                                   "\x01\x00\x00\x00\x00\x00\x00\x00"  // 1 ..
                                   "\x06\x00\x00\x00\x00\x00\x00\x00"  // .. 6 (exclusive)
                                   "\x07\x00\x00\x00\x00\x00\x00\x00"
                                   "\x08\x00\x00\x00\x00\x00\x00\x00",
                                   8 + 16 + 8 + 32);
  EXPECT_EQ(s.Encode(), expected);
  EXPECT_EQ(s.EncodedSize(), expected.size());
  EXPECT_EQ(GtidSet{}.Encode(), std::string(8, '\0'));
  EXPECT_EQ(GtidSet{}.EncodedSize(), 8u);
}

TEST(GtidSetTest, EncodeDecodeRoundTrip) {
  for (std::string text : {std::string(""), A(":1"), A(":1-5:7-9") + "," + B(":3:100-200")}) {
    GtidSet s = P(text);
    std::string bytes = s.Encode();
    EXPECT_EQ(bytes.size(), s.EncodedSize());
    size_t consumed = 0;
    Result<GtidSet> d = GtidSet::Decode(bytes + "trailing", &consumed);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(*d, s);
    EXPECT_EQ(consumed, bytes.size());
  }
}

TEST(GtidSetTest, DecodeRejectsTruncatedOrInvalidInput) {
  std::string bytes = P(A(":1-5:7-9") + "," + B(":3")).Encode();
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<GtidSet> d = GtidSet::Decode(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(d.ok()) << n;
    EXPECT_TRUE(d.status().IsCorruption());
  }
  // start 0, and end <= start.
  std::string zero = P(A(":1")).Encode();
  zero[32] = 0;
  EXPECT_TRUE(GtidSet::Decode(zero).status().IsCorruption());
  std::string empty_interval = P(A(":1")).Encode();
  empty_interval[40] = 1;
  EXPECT_TRUE(GtidSet::Decode(empty_interval).status().IsCorruption());
  // A huge SID count must not loop.
  std::string huge(8, '\xff');
  EXPECT_TRUE(GtidSet::Decode(huge).status().IsCorruption());
}

TEST(GtidSetTest, DecodeNormalizesUnsortedIntervals) {
  GtidSet expected = P(A(":1-9"));
  std::string bytes = P(A(":5-9")).Encode();
  // Append a second interval [1, 5) before the first by rewriting counts.
  bytes[24] = 2;
  bytes += std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00", 16);
  Result<GtidSet> d = GtidSet::Decode(bytes);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(*d, expected);
}

}  // namespace
}  // namespace sluice::binlog
