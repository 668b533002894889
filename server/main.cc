// sluiced: the server's entry point. Parses options, sets up logging,
// starts the Server and waits for SIGTERM, SIGINT or SHUTDOWN.
#include <csignal>
#include <ctime>
#include <cstdio>
#include <iostream>

#include "base/crash_report.h"
#include "base/log.h"
#include "server/options.h"
#include "server/server.h"

int main(int argc, char** argv) {
  // Block the shutdown signals in every thread; the server's signal_set
  // receives them through Asio.
  tzset();  // once, before any thread formats a time
  std::string help;
  auto options = sluice::server::ParseOptions(argc, argv, &help);
  sluice::base::LogOptions log_options;
  if (options.ok()) log_options.file = options->log_error;
  sluice::base::InitLogging(log_options);
  // Before any other thread: a fatal signal from here on leaves a report.
  sluice::base::InstallCrashReporter(sluice::base::ErrorLogFd(), sluice::kServerVersion);
  auto log = sluice::base::GetLogger("server");
  if (!options.ok()) {
    SLUICE_LOG_ERROR(log, 67, "{}", options.status().message());
    SLUICE_LOG_ERROR(log, 10119, "Aborting");
    sluice::base::ShutdownLogging();
    return 1;
  }
  if (options->help) {
    std::cout << help;
    return 0;
  }
  if (options->version) {
    std::cout << "sluiced  Ver " << sluice::kServerVersion << " for Linux on x86_64 ("
              << sluice::kVersionComment << ")\n";
    return 0;
  }
  std::signal(SIGPIPE, SIG_IGN);
  int rc = 0;
  {
    sluice::server::Server server(options.value());
    sluice::Status st = server.Start();
    if (!st.ok()) {
      SLUICE_LOG_ERROR(log, 10119, "{}", st.message());
      SLUICE_LOG_ERROR(log, 10119, "Aborting");
      rc = 1;
    } else if (!options->initialize && !options->initialize_insecure) {
      server.WaitForShutdown();
    }
  }
  sluice::base::ShutdownLogging();
  return rc;
}
