// base/crash_report.h
//
// A MySQL-style crash report in the error log when the process dies of a
// fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT):
//
//   23:41:02 UTC - mysqld got signal 11 ;
//   Most likely, you have hit a bug, but this error can also be caused by ...
//   Server version: 8.0.36-sluice sluice MySQL-compatible replication primary
//   Thread id (OS): 4711
//   Attempting backtrace. ...
//   sluiced(_ZN6sluice6server6Server5StartEv+0x1f4)[0x55d0c1a2b3c4]
//   ...
//
// The "mysqld got signal" header is MySQL's, kept so that log watchers and
// operators' scripts that look for it find it. Function names come from the
// dynamic symbol table (sluiced links with -rdynamic); they are mangled
// (demangling allocates, which a signal handler may not do): c++filt reads
// them. The handler uses only async-signal-safe calls on a descriptor
// opened before (base::ErrorLogFd()), then re-raises the signal with the
// action it had before (the default one, or a sanitizer's handler), so the
// process still dies of it and dumps core where core dumps are enabled.
//
// Thread-safety: InstallCrashReporter() once, from the main thread, before
// other threads start (they inherit nothing, but the handlers are
// process-wide).
#pragma once

namespace sluice::base {

// Installs the handlers. `fd`: where the report goes (stays open for the
// life of the process). `version`: printed in the report; must outlive the
// process (a string literal).
void InstallCrashReporter(int fd, const char* version);

}  // namespace sluice::base
