// base/log.h
//
// Error-log set-up in MySQL's shape:
//   2026-11-22T06:47:00.123456Z 4711 [System] [MY-010116] [Server] text
// (the number is the OS id of the thread that logged).
// One spdlog logger per module ("server", "net", "protocol", "sql", ...), all
// writing through one sink. The server's log is synchronous and written
// through line by line (each line is in the kernel when the call returns),
// so that the last lines before a kill -9 or a crash are in the file; the
// server logs per event (start, stop, errors), never per statement, so this
// costs the hot path nothing. Tools that log in bulk (sluice-lockbench) may
// ask for an asynchronous logger instead. Levels map to MySQL's priorities:
// info -> [System], warn -> [Warning], err -> [ERROR], debug -> [Note].
//
// Thread-safety: InitLogging() once at start, before any other thread;
// GetLogger() and the Log* helpers from any thread afterwards.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

namespace sluice::base {

struct LogOptions {
  std::string file;           // empty: stderr
  // true: a background thread writes (drops the oldest line rather than
  // block a caller); lines still queued are lost if the process dies.
  bool async = false;
  spdlog::level::level_enum level = spdlog::level::info;
};

// Sets up the sink and the module loggers. Returns false (and logs to
// stderr) when the file cannot be opened.
bool InitLogging(const LogOptions& options);

// Flushes and drops every logger; safe to call twice.
void ShutdownLogging();

// A descriptor open on the error log (append mode), or 2 for stderr, for
// the crash reporter (base/crash_report.h), which may not use spdlog in a
// signal handler. Stays open until the process ends.
int ErrorLogFd();

// The logger of `module`; created on first use with the common sink.
std::shared_ptr<spdlog::logger> GetLogger(const std::string& module);

}  // namespace sluice::base

// MySQL-style lines with an error code: SLUICE_LOG_SYSTEM(log, 10116, "...", args)
#define SLUICE_LOG_AT(logger, lvl, code, ...) \
  (logger)->log(lvl, "[MY-{:06d}] [Server] {}", code, fmt::format(__VA_ARGS__))
#define SLUICE_LOG_SYSTEM(logger, code, ...) SLUICE_LOG_AT(logger, spdlog::level::info, code, __VA_ARGS__)
#define SLUICE_LOG_WARNING(logger, code, ...) SLUICE_LOG_AT(logger, spdlog::level::warn, code, __VA_ARGS__)
#define SLUICE_LOG_ERROR(logger, code, ...) SLUICE_LOG_AT(logger, spdlog::level::err, code, __VA_ARGS__)
#define SLUICE_LOG_NOTE(logger, code, ...) SLUICE_LOG_AT(logger, spdlog::level::debug, code, __VA_ARGS__)
