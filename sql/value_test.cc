#include "sql/value.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sluice::sql {
namespace {

TEST(DecimalTest, ParseAndPrintKeepScale) {
  auto d = Decimal::Parse("-12.50");
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->is_negative());
  EXPECT_EQ(d->Unscaled(), -1250);
  EXPECT_EQ(d->scale, 2);
  EXPECT_EQ(d->ToString(), "-12.50");
  EXPECT_EQ(Decimal::Parse("0.05")->ToString(), "0.05");
  EXPECT_EQ(Decimal::Parse(".5")->ToString(), "0.5");
  EXPECT_EQ(Decimal::Parse("007")->ToString(), "7");
  EXPECT_FALSE(Decimal::Parse("1e5"));
  EXPECT_FALSE(Decimal::Parse(""));
  // 65 digits before the point, and no more.
  EXPECT_EQ(Decimal::Parse(std::string(65, '9'))->ToString(), std::string(65, '9'));
  EXPECT_FALSE(Decimal::Parse("1" + std::string(65, '0')));
}

TEST(DecimalTest, CompareByValue) {
  EXPECT_TRUE(*Decimal::Parse("1.50") == *Decimal::Parse("1.5"));
  EXPECT_EQ(Decimal::Compare(*Decimal::Parse("-0.1"), *Decimal::Parse("0.01")), -1);
  EXPECT_EQ(Decimal::Compare(*Decimal::Parse("2"), *Decimal::Parse("1.999")), 1);
}

TEST(DecimalTest, RescaleRoundsHalfAwayFromZero) {
  EXPECT_EQ(Decimal::Parse("2.345")->Rescaled(2)->ToString(), "2.35");
  EXPECT_EQ(Decimal::Parse("-2.345")->Rescaled(2)->ToString(), "-2.35");
  EXPECT_EQ(Decimal::Parse("2.5")->RoundToInteger(), 3);
  EXPECT_EQ(Decimal::Parse("-2.5")->RoundToInteger(), -3);
  EXPECT_EQ(Decimal::Parse("1.2")->Rescaled(4)->ToString(), "1.2000");
  EXPECT_EQ(Decimal::Parse("2.349")->RoundedTo(1, Decimal::Rounding::kTowardZero)->ToString(), "2.3");
}

TEST(DecimalTest, FromDoubleUsesShortestDigits) {
  EXPECT_EQ(Decimal::FromDouble(0.1)->ToString(), "0.1");
  EXPECT_EQ(Decimal::FromDouble(1e20)->ToString(), "100000000000000000000");
  EXPECT_EQ(Decimal::FromDouble(-2.5)->ToString(), "-2.5");
  EXPECT_EQ(Decimal::FromDouble(1e40)->ToString(), "1" + std::string(40, '0'));
  EXPECT_FALSE(Decimal::FromDouble(1e65));
}

TEST(FormatDoubleTest, MatchesMySQLTextForm) {
  EXPECT_EQ(FormatDouble(0.1), "0.1");
  EXPECT_EQ(FormatDouble(3.14), "3.14");
  EXPECT_EQ(FormatDouble(1e20), "1e20");
  EXPECT_EQ(FormatDouble(1e15), "1e15");
  EXPECT_EQ(FormatDouble(1e14), "100000000000000");
  EXPECT_EQ(FormatDouble(123456789012345678.0), "1.2345678901234568e17");
  EXPECT_EQ(FormatDouble(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(FormatDouble(0.00001), "0.00001");
  EXPECT_EQ(FormatDouble(1e-16), "1e-16");
  EXPECT_EQ(FormatDouble(-2.5), "-2.5");
  EXPECT_EQ(FormatDouble(2), "2");
  EXPECT_EQ(FormatDouble(0), "0");
}

TEST(ValueTest, ToStringByKind) {
  EXPECT_EQ(Value::Int(-5).ToString(), "-5");
  EXPECT_EQ(Value::UInt(18446744073709551615ULL).ToString(), "18446744073709551615");
  EXPECT_EQ(Value::Double(0.5).ToString(), "0.5");
  EXPECT_EQ(Value::Dec(*Decimal::Parse("1.50")).ToString(), "1.50");
  EXPECT_EQ(Value::String("x").ToString(), "x");
  EXPECT_EQ(Value::Null().ToString(), "");
}

TEST(ValueTest, StringsConvertByTheirNumericPrefix) {
  EXPECT_EQ(Value::String("  12abc").ToInt(), 12);
  EXPECT_EQ(Value::String("1.9").ToInt(), 1);
  EXPECT_EQ(Value::String("abc").ToInt(), 0);
  EXPECT_DOUBLE_EQ(Value::String("1.5e2x").ToDouble(), 150.0);
  EXPECT_DOUBLE_EQ(Value::String("-.5").ToDouble(), -0.5);
  EXPECT_DOUBLE_EQ(Value::String("inf").ToDouble(), 0.0);
  EXPECT_EQ(Value::String("99999999999999999999").ToInt(), INT64_MAX);
  EXPECT_EQ(Value::String("2.50").ToDecimal().ToString(), "2.50");
}

TEST(ValueTest, DecimalsRoundHalfAwayFromZeroDoublesHalfToEven) {
  EXPECT_EQ(Value::Double(2.5).ToInt(), 2);  // ties to even, as MySQL's rint()
  EXPECT_EQ(Value::Double(-2.5).ToInt(), -2);
  EXPECT_EQ(Value::Double(3.5).ToInt(), 4);
  EXPECT_EQ(Value::Double(2.6).ToInt(), 3);
  EXPECT_EQ(Value::Dec(*Decimal::Parse("-1.5")).ToInt(), -2);
  EXPECT_EQ(Value::Double(1e30).ToInt(), INT64_MAX);
  EXPECT_EQ(Value::Int(-1).ToUInt(), UINT64_MAX);
}

TEST(ValueTest, TruthFollowsMySQL) {
  EXPECT_FALSE(Value::Null().ToBool().has_value());
  EXPECT_EQ(Value::Int(0).ToBool(), false);
  EXPECT_EQ(Value::String("0.5").ToBool(), true);
  EXPECT_EQ(Value::String("abc").ToBool(), false);
  EXPECT_EQ(Value::Dec(*Decimal::Parse("0.00")).ToBool(), false);
}

TEST(ValueTest, TemporalValuesReadAsNumbers) {
  Value dt = Value::Typed("2024-01-02 03:04:05", StringType::kDatetime);
  EXPECT_TRUE(dt.is_temporal());
  EXPECT_EQ(dt.ToInt(), 20240102030405);
  Value frac = Value::Typed("2024-01-02 03:04:05.250", StringType::kDatetime);
  EXPECT_EQ(frac.ToDecimal().ToString(), "20240102030405.250");
  EXPECT_EQ(Value::Typed("12:34:56", StringType::kTime).ToInt(), 123456);
}

}  // namespace
}  // namespace sluice::sql
