#include "base/cpus.h"

#include <sched.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace sluice {

namespace {

std::optional<uint64_t> ParseU64(std::string_view s) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string ReadSmallFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The smallest quota of the process's cgroup (v2) and its ancestors.
std::optional<unsigned> CgroupQuotaCpus() {
  // "0::/some/path" on cgroup v2.
  const std::string self = ReadSmallFile("/proc/self/cgroup");
  const size_t at = self.find("0::");
  if (at == std::string::npos) return std::nullopt;
  std::string path = self.substr(at + 3);
  path = path.substr(0, path.find('\n'));
  std::optional<unsigned> least;
  for (;;) {
    if (std::optional<unsigned> n = CpusOfQuota(ReadSmallFile("/sys/fs/cgroup" + path + "/cpu.max"))) {
      least = least ? std::min(*least, *n) : *n;
    }
    if (path.empty() || path == "/") break;
    const size_t slash = path.rfind('/');
    path = slash == std::string::npos || slash == 0 ? std::string() : path.substr(0, slash);
  }
  return least;
}

unsigned ComputeUsableCpus() {
  // The smallest of the limits that are known (0: unknown).
  unsigned n = 0;
  const auto limit = [&n](unsigned cpus) {
    if (cpus != 0) n = n == 0 ? cpus : std::min(n, cpus);
  };
  limit(std::thread::hardware_concurrency());
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) limit(static_cast<unsigned>(CPU_COUNT(&set)));
  if (std::optional<unsigned> quota = CgroupQuotaCpus()) limit(*quota);
  return std::max(n, 1u);
}

}  // namespace

std::optional<unsigned> CpusOfQuota(std::string_view cpu_max) {
  while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' ')) cpu_max.remove_suffix(1);
  const size_t space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota = cpu_max.substr(0, space);
  if (quota == "max") return std::nullopt;
  const std::optional<uint64_t> q = ParseU64(quota);
  const std::optional<uint64_t> period = ParseU64(cpu_max.substr(space + 1));
  if (!q || !period || *q == 0 || *period == 0) return std::nullopt;
  return static_cast<unsigned>(std::max<uint64_t>(1, (*q + *period - 1) / *period));
}

unsigned UsableCpus() {
  static const unsigned n = ComputeUsableCpus();
  return n;
}

}  // namespace sluice
