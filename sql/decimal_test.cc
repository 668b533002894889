#include "sql/decimal.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace sluice::sql {
namespace {

Decimal D(std::string_view text) {
  std::optional<Decimal> d = Decimal::Parse(text);
  EXPECT_TRUE(d.has_value()) << text;
  return d.value_or(Decimal{});
}

std::string Str(const std::optional<Decimal>& d) { return d ? d->ToString() : "overflow"; }

const std::string k65Nines(65, '9');
// DECIMAL(65,30)'s largest value: 35 digits, the point, 30 digits.
const std::string kWidest = std::string(35, '9') + "." + std::string(30, '9');

TEST(DecimalTest, HoldsSixtyFiveDigits) {
  EXPECT_EQ(D(k65Nines).ToString(), k65Nines);
  EXPECT_EQ(D(kWidest).ToString(), kWidest);
  EXPECT_EQ(D("-" + kWidest).ToString(), "-" + kWidest);
  EXPECT_EQ(D("12345678901234567890123456789012345678901234567890").scale, 0);
  EXPECT_FALSE(Decimal::Parse("1" + std::string(65, '0')));
  // Leading zeros are not digits; "-0.00" is zero, printed without a sign.
  EXPECT_EQ(D("000" + k65Nines).ToString(), k65Nines);
  EXPECT_EQ(D("-0.00").ToString(), "0.00");
  EXPECT_FALSE(D("-0.00").is_negative());
}

TEST(DecimalTest, ParseRoundsAwayWhatDoesNotFit) {
  // The 31st fraction digit rounds the 30th.
  EXPECT_EQ(D("0.1234567890123456789012345678905").ToString(), "0.123456789012345678901234567891");
  EXPECT_EQ(D("0.1234567890123456789012345678904").ToString(), "0.123456789012345678901234567890");
  // A carry can reach the integer part.
  EXPECT_EQ(D("9." + std::string(30, '9') + "5").ToString(), "10." + std::string(30, '0'));
  EXPECT_FALSE(Decimal::Parse(k65Nines + "." + std::string(31, '9')));
  // A computed value may have 65 digits before the point and 30 after.
  EXPECT_EQ(D(k65Nines + ".123456").ToString(), k65Nines + ".123456");
}

TEST(DecimalTest, IntegersOfEveryWidthConvert) {
  const __int128 min = std::numeric_limits<__int128>::min();
  const __int128 max = std::numeric_limits<__int128>::max();
  EXPECT_EQ(Decimal::FromInteger(min).ToString(), "-170141183460469231731687303715884105728");
  EXPECT_EQ(Decimal::FromInteger(max).ToString(), "170141183460469231731687303715884105727");
  EXPECT_EQ(Decimal::FromInteger(min).Unscaled(), min);
  EXPECT_EQ(Decimal::FromInteger(-1250, 2).ToString(), "-12.50");
  EXPECT_FALSE(D("170141183460469231731687303715884105728").Unscaled());
  EXPECT_EQ(D("2.5").RoundToInteger(), 3);
  EXPECT_EQ(D("-2.5").RoundToInteger(), -3);
  EXPECT_EQ(D("1" + std::string(60, '0')).RoundToInteger(), max);  // saturates
  EXPECT_EQ(D("-1" + std::string(60, '0')).RoundToInteger(), min);
}

TEST(DecimalTest, AdditionIsExactToSixtyFiveDigits) {
  // The case: 20 digits + 1 stays exact.
  EXPECT_EQ(Str(Decimal::Add(D("99999999999999999999"), D("1"))), "100000000000000000000");
  EXPECT_EQ(Str(Decimal::Add(D(std::string(64, '9')), D("1"))), "1" + std::string(64, '0'));
  EXPECT_EQ(Str(Decimal::Add(D(k65Nines), D("1"))), "overflow");
  EXPECT_EQ(Str(Decimal::Sub(D("-" + k65Nines), D("1"))), "overflow");
  EXPECT_EQ(Str(Decimal::Sub(D("0.1"), D("0.25"))), "-0.15");
  EXPECT_EQ(Str(Decimal::Add(D("1.5"), D("-1.5"))), "0.0");
  // Wider than any column, still exact: a running SUM loses nothing.
  EXPECT_EQ(Str(Decimal::Add(D(kWidest), D(kWidest))),
            "1" + std::string(35, '9') + "." + std::string(29, '9') + "8");
  std::optional<Decimal> sum = Decimal::Add(D("1.5"), D(kWidest));
  sum = Decimal::Sub(*sum, D(kWidest));
  EXPECT_EQ(Str(Decimal::Add(*sum, D("0.000000000000000000000000000001"))), "1.500000000000000000000000000001");
}

TEST(DecimalTest, ProductsKeepThirtyFractionDigits) {
  const std::string a = "1234567890123456789012345678901234567890";  // 40 digits
  const std::string b = "98765432109876543210";                      // 20 digits
  EXPECT_EQ(Str(Decimal::Mul(D(a), D(b))), "121932631137021795224965706422496570642237463801111263526900");
  EXPECT_EQ(Str(Decimal::Mul(D("-1.10"), D("2.5"))), "-2.750");
  // Scale 16 + 16 = 32 is cut to 30, rounding half away from zero.
  EXPECT_EQ(Str(Decimal::Mul(D("0.0000000000000015"), D("0.0000000000000001"))),
            "0.000000000000000000000000000000");
  EXPECT_EQ(Str(Decimal::Mul(D("0.0000000000000015"), D("0.0000000000000005"))),
            "0.000000000000000000000000000001");
  EXPECT_EQ(Str(Decimal::Mul(D("1" + std::string(40, '0')), D("1" + std::string(40, '0')))), "overflow");
}

TEST(DecimalTest, QuotientsRoundAtTheScaleAsked) {
  EXPECT_EQ(Str(Decimal::Div(D("1"), D("3"), 4)), "0.3333");
  EXPECT_EQ(Str(Decimal::Div(D("2"), D("3"), 4)), "0.6667");
  EXPECT_EQ(Str(Decimal::Div(D("-2"), D("3"), 4)), "-0.6667");
  EXPECT_EQ(Str(Decimal::Div(D("2"), D("-3"), 4)), "-0.6667");
  EXPECT_EQ(Str(Decimal::Div(D("1" + std::string(60, '0')), D("7"), 4)),
            "142857142857142857142857142857142857142857142857142857142857.1429");
  EXPECT_EQ(Str(Decimal::Div(D("1" + std::string(60, '0')), D("0.00001"), 4)), "overflow");
  EXPECT_EQ(Str(Decimal::Div(D("1"), D("0.3"), 5)), "3.33333");
}

TEST(DecimalTest, ModAndIntegerDivision) {
  EXPECT_EQ(Str(Decimal::Mod(D("10.5"), D("3"))), "1.5");
  EXPECT_EQ(Str(Decimal::Mod(D("-10.5"), D("3"))), "-1.5");
  EXPECT_EQ(Str(Decimal::Mod(D("10.5"), D("-3"))), "1.5");
  EXPECT_EQ(Str(Decimal::IntDiv(D("1" + std::string(40, '0')), D("3"))), std::string(40, '3'));
  EXPECT_EQ(Str(Decimal::IntDiv(D("-7.5"), D("2"))), "-3");
}

TEST(DecimalTest, RoundingToAnyPlace) {
  using R = Decimal::Rounding;
  EXPECT_EQ(Str(D("155").RoundedTo(-1, R::kHalfAwayFromZero)), "160");
  EXPECT_EQ(Str(D("-155").RoundedTo(-1, R::kHalfAwayFromZero)), "-160");
  EXPECT_EQ(Str(D("155.5").RoundedTo(-1, R::kTowardZero)), "150");
  EXPECT_EQ(Str(D("-1.5").RoundedTo(0, R::kFloor)), "-2");
  EXPECT_EQ(Str(D("-1.5").RoundedTo(0, R::kCeiling)), "-1");
  EXPECT_EQ(Str(D("1.2").RoundedTo(0, R::kCeiling)), "2");
  EXPECT_EQ(Str(D("1.25").RoundedTo(4, R::kHalfAwayFromZero)), "1.2500");
  EXPECT_EQ(Str(D(k65Nines).RoundedTo(-70, R::kHalfAwayFromZero)), "0");
  EXPECT_EQ(Str(D(k65Nines).RoundedTo(-1, R::kHalfAwayFromZero)), "overflow");
  EXPECT_EQ(Str(D(k65Nines).RoundedTo(1, R::kHalfAwayFromZero)), k65Nines + ".0");
  EXPECT_EQ(Str(D("2.349").RoundedTo(1, R::kTowardZero)), "2.3");
}

TEST(DecimalTest, CompareAcrossScalesAndWidths) {
  EXPECT_EQ(Decimal::Compare(D("1.50"), D("1.5")), 0);
  EXPECT_EQ(Decimal::Compare(D("-0.1"), D("0.01")), -1);
  EXPECT_EQ(Decimal::Compare(D("-0.1"), D("-0.01")), -1);
  EXPECT_EQ(Decimal::Compare(D(k65Nines), D(kWidest)), 1);
  EXPECT_EQ(Decimal::Compare(D("-" + k65Nines), D("-" + kWidest)), -1);
  EXPECT_EQ(Decimal::Compare(D(std::string(35, '9') + ".5"), D(kWidest)), -1);
  EXPECT_EQ(Decimal::Compare(D("0"), D("-0.000")), 0);
  EXPECT_EQ(Decimal::Largest(5, 2, true).ToString(), "-999.99");
  EXPECT_EQ(Decimal::Largest(65, 30, false).ToString(), kWidest);
}

TEST(DecimalTest, DoublesConvertUpToSixtyFiveDigits) {
  EXPECT_EQ(Str(Decimal::FromDouble(1e64)), "1" + std::string(64, '0'));
  EXPECT_EQ(Str(Decimal::FromDouble(-1.5e-31)), "0.000000000000000000000000000000");
  EXPECT_EQ(Str(Decimal::FromDouble(-5e-31)), "-0.000000000000000000000000000001");
  // Far below 10^-30 (the fuzzer's FROM_UNIXTIME(1555999998 / 1e99...)):
  // zero, not a read past the powers of ten.
  EXPECT_EQ(Str(Decimal::FromDouble(1e-300)), "0.000000000000000000000000000000");
  EXPECT_EQ(Str(Decimal::FromDouble(-2.5e-200)), "0.000000000000000000000000000000");
  EXPECT_EQ(Str(Decimal::FromDouble(4.9e-308)), "0.000000000000000000000000000000");
  EXPECT_FALSE(Decimal::FromDouble(1e65));
  EXPECT_DOUBLE_EQ(D("-" + kWidest).ToDouble(), -1e35);
}

}  // namespace
}  // namespace sluice::sql
