#include "base/stack_guard.h"

#include <pthread.h>

#include <gtest/gtest.h>

#include <string>

namespace sluice {
namespace {

// Recurses until CheckStack refuses; a 1436 instead of SIGSEGV is the point.
Status Recurse(int depth, int* reached) {
  char pad[512];
  pad[0] = static_cast<char>(depth);
  asm volatile("" : : "r"(pad) : "memory");  // keep the frame's size
  SLUICE_RETURN_IF_ERROR(CheckStack(64 * 1024));
  *reached = depth;
  Status s = Recurse(depth + 1, reached);
  asm volatile("" : : "r"(pad) : "memory");  // no tail call: the frame stays
  return s;
}

struct ThreadResult {
  Status status;
  int reached = 0;
  size_t size = 0;
};

void* RunRecurse(void* arg) {
  auto* r = static_cast<ThreadResult*>(arg);
  r->size = StackSize();
  r->status = Recurse(0, &r->reached);
  return nullptr;
}

TEST(StackGuardTest, DeepRecursionOnASmallStackGets1436) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  const size_t kSize = 512 * 1024 * kStackScale;
  pthread_attr_setstacksize(&attr, kSize);
  ThreadResult r;
  pthread_t t;
  ASSERT_EQ(pthread_create(&t, &attr, RunRecurse, &r), 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_GE(r.size, kSize);
  EXPECT_EQ(r.status.mysql_errno(), 1436);
  EXPECT_EQ(r.status.sqlstate(), "HY000");
  EXPECT_GT(r.reached, 10);
  EXPECT_NE(r.status.message().find("Thread stack overrun:  "), std::string::npos);
  EXPECT_NE(r.status.message().find("bytes needed.  Use 'mysqld --thread_stack=#' to specify a bigger stack."),
            std::string::npos);
}

TEST(StackGuardTest, ShallowCallIsOk) {
  EXPECT_TRUE(CheckStack().ok());
  EXPECT_GT(StackSize(), 0u);
  EXPECT_GT(StackUsed(), 0u);
  EXPECT_LT(StackUsed(), StackSize());
}

TEST(StackGuardTest, MessageHasMySqlWording) {
  Status s = StackOverrunError(1000);
  EXPECT_EQ(s.mysql_errno(), 1436);
  EXPECT_NE(s.message().find("byte stack, and 1000 bytes needed."), std::string::npos) << s.message();
}

}  // namespace
}  // namespace sluice
