#include "exec/session_context.h"

#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "exec/result_set.h"
#include "exec/row_eval.h"
#include "storage/engine/engine.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {
namespace {

using namespace std::chrono_literals;

// A computed date, time or datetime is described as one (clients then
// return a date, not a string), its fraction digits as the decimals.
TEST(ResultColumns, TemporalValuesGetTemporalTypes) {
  using sql::StringType;
  using sql::Value;
  EXPECT_EQ(ColumnFor("d", Value::Typed("2024-01-31", StringType::kDate)).type, p::MYSQL_TYPE_DATE);
  const p::ColumnDefinition dt = ColumnFor("dt", Value::Typed("2024-01-31 10:20:30.123", StringType::kDatetime));
  EXPECT_EQ(dt.type, p::MYSQL_TYPE_DATETIME);
  EXPECT_EQ(dt.decimals, 3);
  EXPECT_EQ(dt.length, 23u);
  EXPECT_EQ(ColumnFor("t", Value::Typed("-838:59:59", StringType::kTime)).type, p::MYSQL_TYPE_TIME);
  EXPECT_EQ(ColumnFor("s", Value::String("2024-01-31")).type, p::MYSQL_TYPE_VAR_STRING);
}

TEST(StatementInterrupt, KillIsSeenAtTheNextCheck) {
  SessionContext ctx;
  EXPECT_TRUE(ctx.CheckInterrupt().ok());
  ctx.killed.store(static_cast<int>(KillState::kQuery));
  EXPECT_EQ(ctx.CheckInterrupt().mysql_errno(), 1317);
  ctx.killed.store(static_cast<int>(KillState::kConnection));
  EXPECT_EQ(ctx.CheckInterrupt().mysql_errno(), 1317);
}

TEST(StatementInterrupt, DeadlineEndsTheStatementWith3024) {
  SessionContext ctx;
  const auto start = std::chrono::steady_clock::now();
  ctx.SetStatementDeadline(start + 20ms);
  Status st;
  // A row loop: checks until the deadline passes (bounded at 5 s).
  while ((st = ctx.CheckInterrupt()).ok() && std::chrono::steady_clock::now() - start < 5s) {
  }
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.mysql_errno(), 3024);
  EXPECT_GE(took, 20ms);
  EXPECT_LT(took, 1s);
  // Once passed, every check fails (no clock read needed).
  EXPECT_EQ(ctx.CheckInterrupt().mysql_errno(), 3024);
  EXPECT_TRUE(ctx.DeadlinePassed());
  // The next statement starts without a deadline.
  ctx.SetStatementDeadline(std::nullopt);
  EXPECT_TRUE(ctx.CheckInterrupt().ok());
  EXPECT_FALSE(ctx.DeadlinePassed());
}

// An EvalContext whose statement is interrupted after `after` checks.
class CountingEval : public sql::EvalContext {
 public:
  explicit CountingEval(uint64_t after) : after_(after) {}
  Status CheckInterrupt() override {
    return ++checks_ >= after_ ? MakeError(er::kQueryInterrupted) : Status::OK();
  }
  Result<sql::Value> GetSystemVariable(std::string_view, sql::VarScope) override { return sql::Value::Null(); }
  sql::Value GetUserVariable(std::string_view) override { return sql::Value::Null(); }
  void SetUserVariable(std::string_view, const sql::Value&) override {}
  std::optional<std::string> CurrentDatabase() override { return std::nullopt; }
  std::string User() override { return ""; }
  std::string CurrentUser() override { return ""; }
  uint64_t ConnectionId() override { return 1; }
  uint64_t LastInsertId() override { return 0; }
  void SetLastInsertId(uint64_t) override {}
  int64_t FoundRows() override { return 0; }
  int64_t RowCount() override { return 0; }
  std::string ServerVersion() override { return ""; }
  std::chrono::system_clock::time_point StatementTime() override { return {}; }
  bool SleepFor(std::chrono::nanoseconds) override { return true; }
  Status Warn(const er::Error&, std::string) override { return Status::OK(); }

  uint64_t checks() const { return checks_; }

 private:
  uint64_t after_;
  uint64_t checks_ = 0;
};

TEST(StatementInterrupt, SortStopsWhenInterrupted) {
  std::vector<int> v(100000);
  std::iota(v.rbegin(), v.rend(), 0);
  CountingEval stop_soon(1000);
  Status st = InterruptibleSort(v.begin(), v.end(), std::less<int>(), stop_soon);
  EXPECT_EQ(st.mysql_errno(), 1317);
  EXPECT_EQ(stop_soon.checks(), 1000u);  // after 1000 * kInterruptCheckEvery comparisons
  std::vector<int> sorted = v;
  CountingEval never(UINT64_MAX);
  ASSERT_TRUE(InterruptibleSort(sorted.begin(), sorted.end(), std::less<int>(), never).ok());
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  EXPECT_EQ(sorted.size(), v.size());
}

}  // namespace
}  // namespace sluice::exec
