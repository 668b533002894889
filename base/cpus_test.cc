#include "base/cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <thread>

namespace sluice {
namespace {

TEST(CpusTest, QuotaOfCpuMax) {
  EXPECT_EQ(CpusOfQuota("max 100000\n"), std::nullopt);
  EXPECT_EQ(CpusOfQuota("200000 100000\n"), 2u);
  EXPECT_EQ(CpusOfQuota("150000 100000"), 2u);  // 1.5 CPUs: rounded up
  EXPECT_EQ(CpusOfQuota("50000 100000"), 1u);
  EXPECT_EQ(CpusOfQuota("1600000 100000\n"), 16u);
  EXPECT_EQ(CpusOfQuota(""), std::nullopt);
  EXPECT_EQ(CpusOfQuota("100000"), std::nullopt);
  EXPECT_EQ(CpusOfQuota("x 100000"), std::nullopt);
  EXPECT_EQ(CpusOfQuota("100000 0"), std::nullopt);
}

TEST(CpusTest, UsableCpusIsWithinTheAffinityMask) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  const unsigned n = UsableCpus();
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, static_cast<unsigned>(CPU_COUNT(&set)));
  EXPECT_LE(n, std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(UsableCpus(), n);  // computed once
}

}  // namespace
}  // namespace sluice
