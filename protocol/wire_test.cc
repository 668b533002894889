#include "protocol/wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sluice::protocol {
namespace {

TEST(WireTest, FixedIntegersRoundTripLittleEndian) {
  WireWriter w;
  w.Int1(0xAB).Int2(0x1234).Int3(0xABCDEF).Int4(0xDEADBEEF).Int6(0x123456789ABCull).Int8(
      0x0102030405060708ull);
  const std::string bytes = w.Take();
  ASSERT_EQ(bytes.size(), 1u + 2 + 3 + 4 + 6 + 8);
  EXPECT_EQ(bytes.substr(1, 2), std::string("\x34\x12", 2));
  EXPECT_EQ(bytes.substr(3, 3), std::string("\xEF\xCD\xAB", 3));

  WireReader r(bytes);
  uint8_t v1 = 0;
  uint16_t v2 = 0;
  uint32_t v3 = 0, v4 = 0;
  uint64_t v6 = 0, v8 = 0;
  ASSERT_TRUE(r.ReadInt1(&v1));
  ASSERT_TRUE(r.ReadInt2(&v2));
  ASSERT_TRUE(r.ReadInt3(&v3));
  ASSERT_TRUE(r.ReadInt4(&v4));
  ASSERT_TRUE(r.ReadInt6(&v6));
  ASSERT_TRUE(r.ReadInt8(&v8));
  EXPECT_EQ(v1, 0xAB);
  EXPECT_EQ(v2, 0x1234);
  EXPECT_EQ(v3, 0xABCDEFu);
  EXPECT_EQ(v4, 0xDEADBEEFu);
  EXPECT_EQ(v6, 0x123456789ABCull);
  EXPECT_EQ(v8, 0x0102030405060708ull);
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_FALSE(r.failed());
}

TEST(WireTest, LenencIntRoundTripsAtEveryWidthBoundary) {
  const std::vector<std::pair<uint64_t, size_t>> cases = {
      {0, 1},          {250, 1},         {251, 3},          {0xFFFF, 3},
      {0x10000, 4},    {0xFFFFFF, 4},    {0x1000000, 9},    {~0ull, 9},
  };
  for (const auto& [value, size] : cases) {
    WireWriter w;
    w.LenencInt(value);
    const std::string bytes = w.Take();
    EXPECT_EQ(bytes.size(), size) << value;
    EXPECT_EQ(LenencIntSize(value), size) << value;
    WireReader r(bytes);
    uint64_t got = 0;
    ASSERT_TRUE(r.ReadLenencInt(&got)) << value;
    EXPECT_EQ(got, value);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(WireTest, LenencIntPrefixBytesMatchProtocol) {
  WireWriter w;
  w.LenencInt(251).LenencInt(0x10000).LenencInt(0x1000000);
  const std::string b = w.Take();
  EXPECT_EQ(static_cast<uint8_t>(b[0]), 0xFC);
  EXPECT_EQ(static_cast<uint8_t>(b[3]), 0xFD);
  EXPECT_EQ(static_cast<uint8_t>(b[7]), 0xFE);
}

TEST(WireTest, LenencNullAcceptedOnlyWhenAsked) {
  const std::string nul("\xFB", 1);
  {
    WireReader r(nul);
    uint64_t v = 7;
    EXPECT_FALSE(r.ReadLenencInt(&v));
    EXPECT_TRUE(r.failed());
  }
  {
    WireReader r(nul);
    uint64_t v = 7;
    bool is_null = false;
    ASSERT_TRUE(r.ReadLenencInt(&v, &is_null));
    EXPECT_TRUE(is_null);
    EXPECT_EQ(r.remaining(), 0u);
  }
  {
    WireReader r(std::string_view("\x05", 1));
    uint64_t v = 0;
    bool is_null = true;
    ASSERT_TRUE(r.ReadLenencInt(&v, &is_null));
    EXPECT_FALSE(is_null);
    EXPECT_EQ(v, 5u);
  }
}

TEST(WireTest, LenencIntRejectsErrHeaderByte) {
  WireReader r(std::string_view("\xFF\x01\x02", 3));
  uint64_t v = 0;
  bool is_null = false;
  EXPECT_FALSE(r.ReadLenencInt(&v, &is_null));
  EXPECT_TRUE(r.failed());
}

TEST(WireTest, StringsRoundTrip) {
  const std::string big(300, 'x');
  WireWriter w;
  w.LenencString("hello").LenencString("").LenencString(big).NulString("abc").Bytes("xyz").Zeros(
      3);
  w.Bytes("tail");
  const std::string bytes = w.Take();

  WireReader r(bytes);
  std::string_view s;
  ASSERT_TRUE(r.ReadLenencString(&s));
  EXPECT_EQ(s, "hello");
  ASSERT_TRUE(r.ReadLenencString(&s));
  EXPECT_EQ(s, "");
  ASSERT_TRUE(r.ReadLenencString(&s));
  EXPECT_EQ(s, big);
  ASSERT_TRUE(r.ReadNulString(&s));
  EXPECT_EQ(s, "abc");
  ASSERT_TRUE(r.ReadFixed(3, &s));
  EXPECT_EQ(s, "xyz");
  ASSERT_TRUE(r.Skip(3));
  EXPECT_EQ(r.ReadRest(), "tail");
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_FALSE(r.failed());
}

TEST(WireTest, WriterAppendsToExternalString) {
  std::string out = "pre";
  WireWriter w(&out);
  w.Int1('!');
  EXPECT_EQ(out, "pre!");
}

TEST(WireTest, CopiedOrMovedWriterKeepsItsOwnBuffer) {
  WireWriter a;
  a.Bytes("ab");
  WireWriter b = a;  // copy
  b.Bytes("c");
  EXPECT_EQ(a.data(), "ab");
  EXPECT_EQ(b.data(), "abc");
  WireWriter c = std::move(b);
  c.Bytes("d");
  EXPECT_EQ(c.data(), "abcd");
}

TEST(WireTest, EveryReadFailsOnTruncatedInput) {
  // Each case: full encoding, and a reader op over a prefix.
  WireWriter w;
  w.LenencInt(0x123456789ull);
  const std::string lenenc8 = w.Take();
  for (size_t n = 0; n < lenenc8.size(); ++n) {
    WireReader r(std::string_view(lenenc8).substr(0, n));
    uint64_t v = 0;
    EXPECT_FALSE(r.ReadLenencInt(&v)) << n;
    EXPECT_TRUE(r.failed());
  }
  const std::string str = WireWriter().LenencString("hello").Take();
  for (size_t n = 0; n < str.size(); ++n) {
    WireReader r(std::string_view(str).substr(0, n));
    std::string_view v;
    EXPECT_FALSE(r.ReadLenencString(&v)) << n;
  }
  {
    WireReader r("no-nul");
    std::string_view v;
    EXPECT_FALSE(r.ReadNulString(&v));
  }
  const std::string eight(8, '\x01');
  for (size_t n = 0; n < 8; ++n) {
    std::string_view p = std::string_view(eight).substr(0, n);
    uint8_t v1;
    uint16_t v2;
    uint32_t v4;
    uint64_t v8;
    std::string_view s;
    if (n < 1) {
      EXPECT_FALSE(WireReader(p).ReadInt1(&v1));
    }
    if (n < 2) {
      EXPECT_FALSE(WireReader(p).ReadInt2(&v2));
    }
    if (n < 3) {
      EXPECT_FALSE(WireReader(p).ReadInt3(&v4));
    }
    if (n < 4) {
      EXPECT_FALSE(WireReader(p).ReadInt4(&v4));
    }
    if (n < 6) {
      EXPECT_FALSE(WireReader(p).ReadInt6(&v8));
    }
    EXPECT_FALSE(WireReader(p).ReadInt8(&v8));
    EXPECT_FALSE(WireReader(p).ReadFixed(n + 1, &s));
    EXPECT_FALSE(WireReader(p).Skip(n + 1));
  }
}

TEST(WireTest, LenencStringLengthBeyondBufferFails) {
  // Claims 0xFFFF bytes, has 2.
  WireReader r(std::string_view("\xFC\xFF\xFF" "ab", 5));
  std::string_view v;
  EXPECT_FALSE(r.ReadLenencString(&v));
  EXPECT_TRUE(r.failed());
  // A huge 8-byte length must not overflow the bounds check.
  WireReader r2(std::string_view("\xFE\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF" "ab", 11));
  EXPECT_FALSE(r2.ReadLenencString(&v));
}

TEST(WireTest, FailureIsSticky) {
  WireReader r(std::string_view("\x01", 1));
  uint16_t v2;
  uint8_t v1;
  EXPECT_FALSE(r.ReadInt2(&v2));
  EXPECT_FALSE(r.ReadInt1(&v1));  // a byte is there, but the reader has failed
  EXPECT_TRUE(r.failed());
  EXPECT_EQ(r.ReadRest(), "");
}

}  // namespace
}  // namespace sluice::protocol
