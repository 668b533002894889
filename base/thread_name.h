// base/thread_name.h
//
// NameThisThread: gives the calling thread a name that `top -H`, `ps -L`,
// perf and /proc/PID/task/TID/comm show, so a profile or a count of context
// switches can be read per role (statement workers, dump senders, the
// binlog notifier, ...). Linux keeps 15 bytes; longer names are cut.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace sluice {

inline void NameThisThread(std::string_view name) {
  char buf[16];
  const size_t n = std::min(name.size(), sizeof(buf) - 1);
  std::memcpy(buf, name.data(), n);
  buf[n] = '\0';
  (void)pthread_setname_np(pthread_self(), buf);  // only fails on a long name
}

}  // namespace sluice
