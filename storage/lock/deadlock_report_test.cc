#include "storage/lock/deadlock_report.h"

#include <gtest/gtest.h>

#include "storage/lock/lock_test_util.h"

namespace sluice::storage {
namespace {

std::shared_ptr<DeadlockReport> TwoTrxReport(uint64_t number) {
  auto r = std::make_shared<DeadlockReport>();
  r->number = number;
  r->when = std::chrono::system_clock::now();
  r->trxs.resize(2);
  r->trxs[0].trx_id = 11;
  r->trxs[0].waiting_for = {true, false, 0, RecordId{2, 4, 3}, LockMode::kX, kRecNotGapBit, true};
  r->trxs[0].holds = {true, false, 0, RecordId{2, 4, 5}, LockMode::kS, 0, false};
  r->trxs[1].trx_id = 12;
  r->trxs[1].waiting_for = {true, true, 9, RecordId{}, LockMode::kX, 0, true};
  r->trxs[1].holds = {true, false, 0, RecordId{2, 4, 3}, LockMode::kX, kGapBit | kInsertIntentionBit, false};
  r->victim = 1;
  return r;
}

TEST(DeadlockReportTest, FormatHasInnoDBsSectionsAndLockWording) {
  const std::string text = FormatDeadlockReport(*TwoTrxReport(1));
  EXPECT_NE(text.find("*** (1) TRANSACTION:\nTRANSACTION 11"), std::string::npos) << text;
  EXPECT_NE(text.find("*** (2) HOLDS THE LOCK(S):"), std::string::npos) << text;
  EXPECT_NE(text.find("RECORD LOCKS space id 2 page no 4 heap no 3 trx id 11 lock_mode X locks rec but not gap waiting"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("trx id 11 lock mode S\n"), std::string::npos) << text;
  EXPECT_NE(text.find("locks gap before rec insert intention"), std::string::npos) << text;
  EXPECT_NE(text.find("TABLE LOCK table id 9 trx id 12 lock mode X waiting"), std::string::npos) << text;
  EXPECT_NE(text.find("*** WE ROLL BACK TRANSACTION (2)"), std::string::npos) << text;
}

TEST(DeadlockReportTest, HistoryIsBoundedAndNewestFirst) {
  auto sink = std::make_shared<testing::CaptureSink>();
  DeadlockReporter::Options options;
  options.history = 3;
  DeadlockReporter reporter(testing::MakeCaptureLogger(sink), options);
  for (uint64_t i = 1; i <= 5; ++i) reporter.Publish(TwoTrxReport(i), /*print=*/false);
  auto recent = reporter.Recent();
  ASSERT_EQ(recent.size(), 3u);
  EXPECT_EQ(recent[0]->number, 5u);
  EXPECT_EQ(recent[2]->number, 3u);
  EXPECT_EQ(reporter.Latest()->number, 5u);
  reporter.Drain();
  EXPECT_TRUE(sink->lines().empty());
}

TEST(DeadlockReportTest, PrintingIsRateLimitedAndTheRestAreCounted) {
  auto sink = std::make_shared<testing::CaptureSink>();
  DeadlockReporter::Options options;
  options.max_per_second = 2;
  options.queue_capacity = 1000;
  DeadlockReporter reporter(testing::MakeCaptureLogger(sink), options);
  for (uint64_t i = 1; i <= 50; ++i) reporter.Publish(TwoTrxReport(i), /*print=*/true);
  reporter.Drain();
  EXPECT_EQ(reporter.printed() + reporter.suppressed(), 50u);
  EXPECT_GE(reporter.printed(), 1u);
  EXPECT_LT(reporter.printed(), 10u);
  int reports = 0;
  int summaries = 0;
  for (const auto& line : sink->lines()) {
    if (line.find("Transactions deadlock detected") != std::string::npos) ++reports;
    if (line.find("not printed") != std::string::npos) ++summaries;
  }
  EXPECT_EQ(static_cast<uint64_t>(reports), reporter.printed());
  EXPECT_GE(summaries, 1);
}

}  // namespace
}  // namespace sluice::storage
