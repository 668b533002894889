#include "base/thread_name.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <thread>

namespace sluice {
namespace {

// The name a new thread reads back after NameThisThread(name).
std::string NameSeenBy(const char* name) {
  std::string seen;
  std::thread t([&] {
    NameThisThread(name);
    char buf[32] = {};
    if (pthread_getname_np(pthread_self(), buf, sizeof(buf)) == 0) seen = buf;
  });
  t.join();
  return seen;
}

TEST(ThreadNameTest, NamesTheCallingThread) { EXPECT_EQ(NameSeenBy("sl_worker"), "sl_worker"); }

TEST(ThreadNameTest, ALongNameIsCutToWhatLinuxKeeps) {
  EXPECT_EQ(NameSeenBy("sl_a_name_longer_than_fifteen"), "sl_a_name_longe");
}

}  // namespace
}  // namespace sluice
