#include "base/thread_name.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <thread>

namespace sluice {
namespace {

std::string NameOf(pthread_t t) {
  char buf[32] = {};
  EXPECT_EQ(pthread_getname_np(t, buf, sizeof(buf)), 0);
  return buf;
}

TEST(ThreadNameTest, NamesTheCallingThread) {
  std::string seen;
  std::thread t([&] {
    NameThisThread("sl_worker");
    seen = NameOf(pthread_self());
  });
  t.join();
  EXPECT_EQ(seen, "sl_worker");
}

TEST(ThreadNameTest, ALongNameIsCutToWhatLinuxKeeps) {
  std::string seen;
  std::thread t([&] {
    NameThisThread("sl_a_name_longer_than_fifteen");
    seen = NameOf(pthread_self());
  });
  t.join();
  EXPECT_EQ(seen, "sl_a_name_longe");
}

}  // namespace
}  // namespace sluice
