#include "base/crash_report.h"

#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

namespace sluice::base {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr int kMaxFrames = 64;

int g_fd = 2;
const char* g_version = "";
std::atomic<bool> g_reporting{false};
// What each signal did before (SIG_DFL, or a sanitizer's handler): put back
// after the report, so that the signal then does what it would have done.
struct sigaction g_previous[NSIG];
// An alternate stack for the main thread, so that a stack overflow there
// can still be reported (other threads run the handler on their own stack).
alignas(16) char g_alt_stack[64 * 1024];

// Everything below runs in the signal handler: write(2) only, no malloc,
// no locks, no stdio.
void Put(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    ssize_t w = ::write(g_fd, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// Decimal, at least `width` digits (zero-padded).
void PutNumber(unsigned long long v, int width = 1) {
  char buf[24];
  int i = sizeof(buf);
  buf[--i] = '\0';
  do {
    buf[--i] = static_cast<char>('0' + v % 10);
    v /= 10;
    --width;
  } while (v != 0 || width > 0);
  Put(buf + i);
}

void Report(int sig) {
  struct timespec now {};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const unsigned long long day_seconds = static_cast<unsigned long long>(now.tv_sec) % 86400;
  Put("\n");
  PutNumber(day_seconds / 3600, 2);
  Put(":");
  PutNumber(day_seconds / 60 % 60, 2);
  Put(":");
  PutNumber(day_seconds % 60, 2);
  Put(" UTC - mysqld got signal ");
  PutNumber(static_cast<unsigned>(sig));
  Put(" ;\n");
  Put("Most likely, you have hit a bug, but this error can also be caused by malfunctioning hardware.\n");
  Put("Server version: ");
  Put(g_version);
  Put("\nThread id (OS): ");
  PutNumber(static_cast<unsigned long long>(::syscall(SYS_gettid)));
  Put("\nAttempting backtrace. You can use the following information to find out\n"
      "where sluiced died. If you see no messages after this, something went\n"
      "terribly wrong...\n");
  void* frames[kMaxFrames];
  int n = ::backtrace(frames, kMaxFrames);
  ::backtrace_symbols_fd(frames, n, g_fd);
  Put("The backtrace's names are mangled C++ names: c++filt prints them as source names.\n");
}

void OnFatalSignal(int sig) {
  if (g_reporting.exchange(true)) {
    // Another thread is writing the report and will end the process.
    for (;;) {
      struct timespec ts {1, 0};
      ::nanosleep(&ts, nullptr);
    }
  }
  Report(sig);
  // Die of the signal itself, with the previous action (the default: core
  // dump; under a sanitizer: its report): the signal is blocked while this
  // handler runs, so it arrives as soon as we return.
  ::sigaction(sig, &g_previous[sig], nullptr);
  ::raise(sig);
}

}  // namespace

void InstallCrashReporter(int fd, const char* version) {
  g_fd = fd;
  g_version = version;
  // backtrace() loads libgcc on its first call (which allocates): do it
  // now, not in the handler.
  void* warm[2];
  (void)::backtrace(warm, 2);
  stack_t ss {};
  ss.ss_sp = g_alt_stack;
  ss.ss_size = sizeof(g_alt_stack);
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = OnFatalSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_ONSTACK;
  for (int sig : kFatalSignals) ::sigaction(sig, &sa, &g_previous[sig]);
}

}  // namespace sluice::base
