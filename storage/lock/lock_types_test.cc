#include "storage/lock/lock_types.h"

#include <gtest/gtest.h>

#include "storage/lock/lock_config.h"

namespace sluice::storage {
namespace {

constexpr LockMode kModes[] = {LockMode::kIS, LockMode::kIX, LockMode::kS, LockMode::kX, LockMode::kAutoInc};

TEST(LockTypesTest, TableCompatibilityIsInnoDBsMatrix) {
  // Rows: held; columns: requested (IS IX S X AI), from the reference table.
  const bool kExpect[5][5] = {
      {true, true, true, false, true},     // IS
      {true, true, false, false, true},    // IX
      {true, false, true, false, false},   // S
      {false, false, false, false, false}, // X
      {true, true, false, false, false},   // AUTO-INC
  };
  for (int h = 0; h < 5; ++h) {
    for (int r = 0; r < 5; ++r) {
      EXPECT_EQ(LockModesCompatible(kModes[h], kModes[r]), kExpect[h][r])
          << LockModeName(kModes[h]) << " vs " << LockModeName(kModes[r]);
      EXPECT_EQ(LockModesCompatible(kModes[h], kModes[r]), LockModesCompatible(kModes[r], kModes[h]));
    }
  }
}

TEST(LockTypesTest, StrongerOrEqualCoversWeakerModesOnly) {
  EXPECT_TRUE(LockModeStrongerOrEqual(LockMode::kX, LockMode::kAutoInc));
  EXPECT_TRUE(LockModeStrongerOrEqual(LockMode::kS, LockMode::kIS));
  EXPECT_TRUE(LockModeStrongerOrEqual(LockMode::kIX, LockMode::kIS));
  EXPECT_FALSE(LockModeStrongerOrEqual(LockMode::kIX, LockMode::kS));
  EXPECT_FALSE(LockModeStrongerOrEqual(LockMode::kS, LockMode::kIX));
  EXPECT_FALSE(LockModeStrongerOrEqual(LockMode::kAutoInc, LockMode::kIS));
  EXPECT_TRUE(LockModeStrongerOrEqual(LockMode::kAutoInc, LockMode::kAutoInc));
}

constexpr uint16_t kNextKey = 0;
constexpr uint16_t kGap = kGapBit;
constexpr uint16_t kRecNotGap = kRecNotGapBit;
constexpr uint16_t kII = kGapBit | kInsertIntentionBit;

TEST(LockTypesTest, RecordPrecisionRulesMatchInnoDB) {
  // requested \ held (X vs X): next-key, gap, rec-not-gap, insert-intention.
  const uint16_t types[] = {kNextKey, kGap, kRecNotGap, kII};
  const bool kWait[4][4] = {
      {true, false, true, false},    // next-key
      {false, false, false, false},  // gap
      {true, false, true, false},    // rec-not-gap
      {true, true, false, false},    // insert intention
  };
  for (int r = 0; r < 4; ++r) {
    for (int h = 0; h < 4; ++h) {
      EXPECT_EQ(RecLockHasToWait(LockMode::kX, types[r], LockMode::kX, types[h], false), kWait[r][h])
          << "req " << r << " held " << h;
    }
  }
}

TEST(LockTypesTest, SharedRecordLocksNeverConflict) {
  for (uint16_t a : {kNextKey, kGap, kRecNotGap}) {
    for (uint16_t b : {kNextKey, kGap, kRecNotGap}) {
      EXPECT_FALSE(RecLockHasToWait(LockMode::kS, a, LockMode::kS, b, false));
    }
  }
  EXPECT_TRUE(RecLockHasToWait(LockMode::kS, kNextKey, LockMode::kX, kRecNotGap, false));
  EXPECT_TRUE(RecLockHasToWait(LockMode::kX, kRecNotGap, LockMode::kS, kNextKey, false));
}

TEST(LockTypesTest, OnSupremumOnlyInsertIntentionWaits) {
  EXPECT_FALSE(RecLockHasToWait(LockMode::kX, kNextKey, LockMode::kX, kNextKey, true));
  EXPECT_TRUE(RecLockHasToWait(LockMode::kX, kII, LockMode::kS, kNextKey, true));
  EXPECT_TRUE(RecLockHasToWait(LockMode::kX, kII, LockMode::kX, kGap, true));
}

TEST(LockTypesTest, CoveringFollowsPrecision) {
  EXPECT_TRUE(RecLockCovers(LockMode::kX, kNextKey, LockMode::kS, kRecNotGap, false));
  EXPECT_TRUE(RecLockCovers(LockMode::kX, kNextKey, LockMode::kX, kGap, false));
  EXPECT_TRUE(RecLockCovers(LockMode::kS, kRecNotGap, LockMode::kS, kRecNotGap, false));
  EXPECT_FALSE(RecLockCovers(LockMode::kS, kRecNotGap, LockMode::kS, kNextKey, false));
  EXPECT_FALSE(RecLockCovers(LockMode::kX, kGap, LockMode::kX, kRecNotGap, false));
  EXPECT_FALSE(RecLockCovers(LockMode::kS, kNextKey, LockMode::kX, kNextKey, false));
  EXPECT_FALSE(RecLockCovers(LockMode::kX, kII, LockMode::kX, kGap, false));
  EXPECT_TRUE(RecLockCovers(LockMode::kX, kGap, LockMode::kX, kRecNotGap, true));
}

TEST(LockTypesTest, SchedulePolicyParsesCaseInsensitively) {
  SchedulePolicy p = SchedulePolicy::kCats;
  EXPECT_TRUE(ParseSchedulePolicy("fifo", &p));
  EXPECT_EQ(p, SchedulePolicy::kFifo);
  EXPECT_TRUE(ParseSchedulePolicy("Cats", &p));
  EXPECT_EQ(p, SchedulePolicy::kCats);
  EXPECT_FALSE(ParseSchedulePolicy("vats", &p));
  EXPECT_EQ(SchedulePolicyName(SchedulePolicy::kFifo), "FIFO");
}

}  // namespace
}  // namespace sluice::storage
