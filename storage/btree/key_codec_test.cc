// storage/btree/key_codec_test.cc
#include "storage/btree/key_codec.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace sluice::storage {
namespace {

int Sign(int c) { return (c > 0) - (c < 0); }

TEST(KeyCodecTest, SignedIntegersSortLikeTheirValuesInEveryWidth) {
  struct Width { size_t bytes; int64_t min, max; };
  for (Width w : {Width{1, -128, 127}, Width{2, -32768, 32767}, Width{3, -8388608, 8388607},
                  Width{4, INT32_MIN, INT32_MAX}, Width{8, INT64_MIN, INT64_MAX}}) {
    std::vector<int64_t> vals = {w.min, w.min + 1, -1, 0, 1, w.max - 1, w.max};
    for (int64_t a : vals) {
      for (int64_t b : vals) {
        std::string ka = KeyEncoder().Int(a, w.bytes).Release();
        std::string kb = KeyEncoder().Int(b, w.bytes).Release();
        ASSERT_EQ(ka.size(), w.bytes);
        EXPECT_EQ(Sign(ka.compare(kb)), Sign(a < b ? -1 : a > b ? 1 : 0)) << a << " vs " << b;
      }
      const std::string encoded = KeyEncoder().Int(a, w.bytes).Release();
      KeyDecoder d(encoded);
      auto back = d.Int(w.bytes);
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, a);
    }
  }
}

TEST(KeyCodecTest, RandomUnsignedAndSignedPairsKeepTheirOrder) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 10000; ++i) {
    uint64_t a = rng(), b = rng();
    EXPECT_EQ(KeyEncoder().Uint(a).key() < KeyEncoder().Uint(b).key(), a < b);
    int64_t sa = static_cast<int64_t>(a), sb = static_cast<int64_t>(b);
    EXPECT_EQ(KeyEncoder().Int(sa).key() < KeyEncoder().Int(sb).key(), sa < sb);
  }
}

TEST(KeyCodecTest, RowIdIsSixBytesBigEndian) {
  std::string k = KeyEncoder().RowId(0x010203040506).Release();
  EXPECT_EQ(k, std::string("\x01\x02\x03\x04\x05\x06", 6));
  EXPECT_EQ(*KeyDecoder(k).RowId(), 0x010203040506u);
}

TEST(KeyCodecTest, DoublesSortLikeTheirValues) {
  std::vector<double> vals = {-std::numeric_limits<double>::infinity(), -1e300, -2.5, -1e-300, -0.0,
                              0.0, 1e-300, 2.5, 1e300, std::numeric_limits<double>::infinity()};
  for (size_t i = 0; i + 1 < vals.size(); ++i) {
    std::string a = KeyEncoder().Double(vals[i]).Release();
    std::string b = KeyEncoder().Double(vals[i + 1]).Release();
    if (vals[i] == vals[i + 1]) {
      EXPECT_EQ(a, b);
    } else {
      EXPECT_LT(a, b) << vals[i] << " vs " << vals[i + 1];
    }
    EXPECT_EQ(*KeyDecoder(a).Double(), vals[i] == 0 ? 0.0 : vals[i]);
  }
}

TEST(KeyCodecTest, StringsWithZeroBytesSortAndRoundTrip) {
  std::vector<std::string> vals = {"", std::string("\0", 1), std::string("\0\0", 2),
                                   std::string("a", 1), std::string("a\0", 2), std::string("a\0b", 3),
                                   "a\x01", "ab", "b", "\xff"};
  for (size_t i = 0; i < vals.size(); ++i) {
    for (size_t j = 0; j < vals.size(); ++j) {
      // A trailing component must not change the order of differing strings.
      std::string a = KeyEncoder().String(vals[i]).Int(5).Release();
      std::string b = KeyEncoder().String(vals[j]).Int(-5).Release();
      if (i != j) {
        EXPECT_EQ(a < b, vals[i] < vals[j]) << i << " vs " << j;
      }
    }
    const std::string encoded = KeyEncoder().String(vals[i]).Int(3).Release();
    KeyDecoder d(encoded);
    EXPECT_EQ(*d.String(), vals[i]);
    EXPECT_EQ(*d.Int(), 3);
    EXPECT_TRUE(d.done());
  }
}

TEST(KeyCodecTest, NullSortsBeforeEveryValue) {
  std::string null_key = KeyEncoder().Null().Release();
  std::string min_int = KeyEncoder().NotNull().Int(INT64_MIN).Release();
  std::string empty_string = KeyEncoder().NotNull().String("").Release();
  EXPECT_LT(null_key, min_int);
  EXPECT_LT(null_key, empty_string);
  KeyDecoder d(min_int);
  EXPECT_FALSE(*d.IsNull());
  EXPECT_EQ(*d.Int(), INT64_MIN);
}

TEST(KeyCodecTest, TruncatedKeysAreCorruption) {
  EXPECT_TRUE(KeyDecoder("ab").Int(4).status().IsCorruption());
  EXPECT_TRUE(KeyDecoder("abc").String().status().IsCorruption());
  EXPECT_TRUE(KeyDecoder(std::string("a\0\x07", 3)).String().status().IsCorruption());
  EXPECT_TRUE(KeyDecoder("").IsNull().status().IsCorruption());
}

}  // namespace
}  // namespace sluice::storage
