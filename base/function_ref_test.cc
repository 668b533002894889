#include "base/function_ref.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace sluice {
namespace {

int Apply(FunctionRef<int(int)> f, int x) { return f(x); }

TEST(FunctionRefTest, CallsWhatItRefersToWithItsCaptures) {
  const std::string big(100, 'x');  // more captured than std::function holds in place
  int calls = 0;
  auto add = [&, big](int x) {
    ++calls;
    return x + static_cast<int>(big.size());
  };
  EXPECT_EQ(Apply(add, 1), 101);
  EXPECT_EQ(Apply(add, 2), 102);
  EXPECT_EQ(calls, 2);
}

TEST(FunctionRefTest, PassesMoveOnlyArgumentsAndReturnsTheResult) {
  auto keep = [](std::unique_ptr<int> p) {
    *p *= 2;
    return p;
  };
  FunctionRef<std::unique_ptr<int>(std::unique_ptr<int>)> f = keep;
  EXPECT_EQ(*f(std::make_unique<int>(21)), 42);
}

TEST(FunctionRefTest, RefersToAFunctionPointerAndAConstCallable) {
  struct Twice {
    int operator()(int x) const { return 2 * x; }
  };
  const Twice t;
  EXPECT_EQ(Apply(t, 4), 8);
  EXPECT_EQ(Apply(+[](int x) { return x - 1; }, 4), 3);
}

}  // namespace
}  // namespace sluice
