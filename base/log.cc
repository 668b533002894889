#include "base/log.h"

#include <spdlog/async.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <fcntl.h>
#include <unistd.h>

#include "base/mutex.h"

namespace sluice::base {
namespace {

// %* -> MySQL's priority label.
class PriorityFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    std::string_view label;
    switch (msg.level) {
      case spdlog::level::critical:
      case spdlog::level::err: label = "[ERROR]"; break;
      case spdlog::level::warn: label = "[Warning]"; break;
      case spdlog::level::info: label = "[System]"; break;
      default: label = "[Note]"; break;
    }
    dest.append(label.data(), label.data() + label.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<PriorityFlag>();
  }
};

Mutex g_mu;
spdlog::sink_ptr g_sink GUARDED_BY(g_mu);
std::shared_ptr<spdlog::details::thread_pool> g_pool GUARDED_BY(g_mu);
LogOptions g_options GUARDED_BY(g_mu);
// See ErrorLogFd(); never closed (a signal handler may use it at any time).
int g_crash_fd GUARDED_BY(g_mu) = 2;

spdlog::sink_ptr DefaultSink() {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  return sink;
}

void ApplyFormat(const spdlog::sink_ptr& sink) {
  auto formatter = std::make_unique<spdlog::pattern_formatter>(spdlog::pattern_time_type::utc);
  formatter->add_flag<PriorityFlag>('*');
  // %t: the OS thread id, captured by the caller even with the async sink.
  formatter->set_pattern("%Y-%m-%dT%H:%M:%S.%fZ %t %* %v");
  sink->set_formatter(std::move(formatter));
}

}  // namespace

bool InitLogging(const LogOptions& options) {
  MutexLock lock(&g_mu);
  g_options = options;
  try {
    if (options.file.empty()) {
      g_sink = DefaultSink();
    } else {
      g_sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file);
    }
  } catch (const spdlog::spdlog_ex& e) {
    fprintf(stderr, "sluice: cannot open log file '%s': %s\n", options.file.c_str(), e.what());
    g_sink = DefaultSink();
    ApplyFormat(g_sink);
    return false;
  }
  ApplyFormat(g_sink);
  if (!options.file.empty()) {
    int fd = ::open(options.file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd >= 0) {
      if (g_crash_fd != 2) ::close(g_crash_fd);
      g_crash_fd = fd;
    }
  }
  if (options.async && !g_pool) {
    g_pool = std::make_shared<spdlog::details::thread_pool>(8192, 1);
  }
  spdlog::drop_all();
  return true;
}

void ShutdownLogging() {
  MutexLock lock(&g_mu);
  spdlog::apply_all([](const std::shared_ptr<spdlog::logger>& l) { l->flush(); });
  spdlog::drop_all();
  g_pool.reset();
}

int ErrorLogFd() {
  MutexLock lock(&g_mu);
  return g_crash_fd;
}

std::shared_ptr<spdlog::logger> GetLogger(const std::string& module) {
  if (auto existing = spdlog::get(module)) return existing;
  MutexLock lock(&g_mu);
  if (auto existing = spdlog::get(module)) return existing;
  if (!g_sink) {
    g_sink = DefaultSink();
    ApplyFormat(g_sink);
  }
  std::shared_ptr<spdlog::logger> logger;
  if (g_options.async && g_pool) {
    logger = std::make_shared<spdlog::async_logger>(module, g_sink, g_pool,
                                                    spdlog::async_overflow_policy::overrun_oldest);
  } else {
    logger = std::make_shared<spdlog::logger>(module, g_sink);
  }
  logger->set_level(g_options.level);
  // Write-through: every line reaches the file before the call returns
  // (see the header comment for why this is off the hot path).
  logger->flush_on(spdlog::level::trace);
  spdlog::register_logger(logger);
  return logger;
}

}  // namespace sluice::base
