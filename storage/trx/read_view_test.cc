#include "storage/trx/read_view.h"

#include <gtest/gtest.h>

namespace sluice::storage {
namespace {

TEST(ReadViewTest, OwnChangesAreVisibleEvenWhenAboveLowLimit) {
  ReadView v(/*creator=*/12, /*low_limit_id=*/10, {3, 7});
  EXPECT_TRUE(v.Visible(12));
  EXPECT_FALSE(v.Visible(11));
}

TEST(ReadViewTest, IdsBelowUpLimitAreVisible) {
  ReadView v(0, 10, {7, 3});
  EXPECT_EQ(v.up_limit_id(), 3u);
  EXPECT_TRUE(v.Visible(1));
  EXPECT_TRUE(v.Visible(2));
  EXPECT_TRUE(v.Visible(kNoTrxId));
}

TEST(ReadViewTest, IdsInActiveListAreInvisibleOthersBetweenLimitsVisible) {
  ReadView v(0, 10, {3, 7});
  EXPECT_FALSE(v.Visible(3));
  EXPECT_TRUE(v.Visible(4));
  EXPECT_TRUE(v.Visible(6));
  EXPECT_FALSE(v.Visible(7));
  EXPECT_TRUE(v.Visible(9));
}

TEST(ReadViewTest, IdsAtOrAboveLowLimitAreInvisible) {
  ReadView v(0, 10, {});
  EXPECT_EQ(v.up_limit_id(), 10u);
  EXPECT_TRUE(v.Visible(9));
  EXPECT_FALSE(v.Visible(10));
  EXPECT_FALSE(v.Visible(1000));
}

TEST(ReadViewTest, ReadOnlyCreatorDoesNotMakeIdZeroSpecial) {
  ReadView v(kNoTrxId, 5, {2});
  EXPECT_TRUE(v.Visible(kNoTrxId));
  EXPECT_FALSE(v.Visible(2));
  v.set_creator(8);
  EXPECT_TRUE(v.Visible(8));
}

}  // namespace
}  // namespace sluice::storage
