// sluice-lockbench: drives storage::LockManager directly, no engine in the
// path, the way Berkeley DB's lock_bench probes its lock region. Each thread
// has its own transaction handle (locker) and loops for --seconds.
//
// Modes:
//   distinct  each thread X-locks its own objects and releases (no conflict):
//             measures the lock/unlock path and how it scales.
//   shared    all threads S-lock the same --objects objects and release.
//   skew      short transactions: IX on a table, then --locks X record locks
//             on rows drawn from a Pareto distribution over --rows (sysbench's
//             h=0.2), then commit; 1205/1213 roll back. Reports commits/s,
//             waits, deadlocks.
//   deadlock  transactions X-lock --locks rows of --rows in random order
//             (with --hold-us of work after each lock): deadlocks often.
//             --print-deadlocks on|off|both (innodb_print_all_deadlocks).
//
// --baseline runs the same loop against a lock table under one global mutex
// (global_lock_table.h) and prints both and the ratio sharded/global.
// One line per run; --json prints one JSON object per line instead.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "base/log.h"
#include "storage/lock/lock_manager.h"
#include "tools/lock_bench/global_lock_table.h"

namespace sluice::tools {
namespace {

using storage::LockMode;
using storage::RecLockType;
using storage::RecordId;
using Clock = std::chrono::steady_clock;

struct Config {
  std::string mode = "distinct";
  std::vector<int> threads = {1};
  double seconds = 3;
  size_t shards = 256;
  storage::SchedulePolicy policy = storage::SchedulePolicy::kCats;
  bool baseline = false;
  std::string print = "off";  // on | off | both
  bool json = false;
  int repeat = 1;
  uint64_t objects = 8;   // distinct: per thread; shared: in all
  uint64_t rows = 0;      // skew / deadlock; 0 = mode default
  int locks = 0;          // per transaction; 0 = mode default
  int hold_us = -1;       // -1 = mode default
  bool inline_detect = true;
  int spin_us = -1;  // -1: LockManager's default
  std::string error_log = "/tmp/sluice-lockbench.err";
};

struct Result {
  double seconds = 0;
  uint64_t ops = 0;        // lock+unlock pairs (distinct, shared) or commits (skew, deadlock)
  uint64_t lock_calls = 0;
  uint64_t rollbacks = 0;
  uint64_t waits = 0;
  uint64_t deadlocks = 0;
  uint64_t timeouts = 0;
  double ops_per_sec() const { return seconds > 0 ? ops / seconds : 0; }
};

void Spin(int us) {
  if (us <= 0) return;
  const auto end = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < end) {
  }
}

// sysbench's Pareto: h = 0.2 puts ~28% of 10k-row picks on row 0.
uint64_t Pareto(std::mt19937_64& rng, uint64_t n) {
  static const double power = std::log(0.2) / std::log(0.8);
  const double u = std::uniform_real_distribution<double>(0, 1)(rng);
  return std::min<uint64_t>(n - 1, static_cast<uint64_t>(n * std::pow(u, power)));
}

RecordId Row(uint64_t row) { return RecordId{7, row / 64, 2 + row % 64}; }

// Adapters with one shape for both lock tables.
struct Sharded {
  storage::LockManager& lm;
  using TrxPtr = storage::LockTrxPtr;
  TrxPtr NewTrx(uint64_t id) { return lm.CreateTrx(id); }
  Status Table(storage::LockTrx& t, storage::TableId id, LockMode m) {
    return lm.LockTable(t, id, m, std::chrono::seconds(10));
  }
  Status Record(storage::LockTrx& t, const RecordId& r, LockMode m, RecLockType type) {
    return lm.LockRecord(t, r, m, type, std::chrono::seconds(10));
  }
  void Release(storage::LockTrx& t) { lm.ReleaseAll(t); }
};

struct Global {
  GlobalLockTable& table;
  using TrxPtr = std::unique_ptr<GlobalLockTable::Trx>;
  TrxPtr NewTrx(uint64_t id) { return table.CreateTrx(id); }
  Status Table(GlobalLockTable::Trx& t, storage::TableId id, LockMode m) {
    return table.LockTable(t, id, m, std::chrono::seconds(10));
  }
  Status Record(GlobalLockTable::Trx& t, const RecordId& r, LockMode m, RecLockType type) {
    return table.LockRecord(t, r, m, type, std::chrono::seconds(10));
  }
  void Release(GlobalLockTable::Trx& t) { table.ReleaseAll(t); }
};

struct ThreadStats {
  uint64_t ops = 0, lock_calls = 0, rollbacks = 0, deadlocks = 0, timeouts = 0;
  char pad[64 - 5 * sizeof(uint64_t) % 64];
};

template <typename Adapter>
Result RunLoop(Adapter adapter, const Config& cfg, int threads) {
  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<ThreadStats> stats(threads);
  const uint64_t rows = cfg.rows != 0 ? cfg.rows : (cfg.mode == "skew" ? 10000 : 4);
  const int locks = cfg.locks != 0 ? cfg.locks : (cfg.mode == "skew" ? 4 : 2);
  const int hold_us = cfg.hold_us >= 0 ? cfg.hold_us : (cfg.mode == "deadlock" ? 2 : 0);

  auto worker = [&](int t) {
    auto trx = adapter.NewTrx(static_cast<uint64_t>(t + 1) << 40);
    std::mt19937_64 rng(42 + t);
    ThreadStats local;
    ready.fetch_add(1);
    while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
    uint64_t i = 0;
    std::vector<uint64_t> picks;
    while (!stop.load(std::memory_order_relaxed)) {
      if (cfg.mode == "distinct") {
        // This thread's own objects: records on a page of its own (record
        // locks are sharded by page, as InnoDB's are).
        const RecordId r{1, static_cast<uint64_t>(t) + 1000, 2 + i % cfg.objects};
        Status s = adapter.Record(*trx, r, LockMode::kX, RecLockType::kRecNotGap);
        adapter.Release(*trx);
        local.ops += s.ok();
        ++local.lock_calls;
      } else if (cfg.mode == "shared") {
        const RecordId r{1, i % cfg.objects, 2};
        Status s = adapter.Record(*trx, r, LockMode::kS, RecLockType::kRecNotGap);
        adapter.Release(*trx);
        local.ops += s.ok();
        ++local.lock_calls;
      } else {
        picks.clear();
        if (cfg.mode == "skew") {
          for (int k = 0; k < locks; ++k) picks.push_back(Pareto(rng, rows));
        } else {
          while (static_cast<int>(picks.size()) < std::min<int>(locks, static_cast<int>(rows))) {
            const uint64_t p = rng() % rows;
            if (std::find(picks.begin(), picks.end(), p) == picks.end()) picks.push_back(p);
          }
        }
        Status s = cfg.mode == "skew" ? adapter.Table(*trx, 1, LockMode::kIX) : Status::OK();
        local.lock_calls += cfg.mode == "skew";
        for (uint64_t p : picks) {
          if (!s.ok()) break;
          s = adapter.Record(*trx, Row(p), LockMode::kX, RecLockType::kRecNotGap);
          ++local.lock_calls;
          Spin(hold_us);
        }
        adapter.Release(*trx);  // commit or roll back
        if (s.ok()) {
          ++local.ops;
        } else {
          ++local.rollbacks;
          if (storage::IsDeadlock(s)) ++local.deadlocks;
          if (storage::IsLockWaitTimeout(s)) ++local.timeouts;
        }
      }
      ++i;
    }
    stats[t] = local;
  };

  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker, t);
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = Clock::now();
  go.store(true, std::memory_order_release);
  std::this_thread::sleep_for(std::chrono::duration<double>(cfg.seconds));
  stop.store(true);
  for (auto& th : pool) th.join();
  Result r;
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (const auto& s : stats) {
    r.ops += s.ops;
    r.lock_calls += s.lock_calls;
    r.rollbacks += s.rollbacks;
    r.deadlocks += s.deadlocks;
    r.timeouts += s.timeouts;
  }
  return r;
}

Result RunSharded(const Config& cfg, int threads, bool print) {
  storage::LockManager::Options options;
  options.record_shards = cfg.shards;
  options.table_shards = std::max<size_t>(1, cfg.shards / 4);
  options.logger = base::GetLogger("storage");
  if (cfg.spin_us >= 0) options.wait_spin = std::chrono::microseconds(cfg.spin_us);
  storage::LockManager lm(options);
  lm.config().set_schedule(cfg.policy);
  lm.config().set_print_all_deadlocks(print);
  lm.config().set_inline_deadlock_detect(cfg.inline_detect);
  Result r = RunLoop(Sharded{lm}, cfg, threads);
  r.waits = lm.Counters().row_lock_waits + lm.Counters().table_lock_waits;
  lm.FlushDeadlockLog();
  return r;
}

Result RunGlobal(const Config& cfg, int threads, bool print) {
  GlobalLockTable table(base::GetLogger("storage"));
  table.set_print_all_deadlocks(print);
  Result r = RunLoop(Global{table}, cfg, threads);
  r.waits = table.waits();
  return r;
}

void Emit(const Config& cfg, int threads, const char* print, const Result& r, const Result* base,
          const Result* print_off, const Result* base_print_off) {
  const std::string policy(storage::SchedulePolicyName(cfg.policy));
  const bool txn_mode = cfg.mode == "skew" || cfg.mode == "deadlock";
  char line[1024];
  int n;
  if (cfg.json) {
    n = std::snprintf(line, sizeof line,
                      "{\"mode\":\"%s\",\"threads\":%d,\"shards\":%zu,\"policy\":\"%s\",\"print_deadlocks\":\"%s\","
                      "\"seconds\":%.3f,\"ops_per_sec\":%.0f,\"lock_calls\":%llu,\"waits\":%llu,\"deadlocks\":%llu,"
                      "\"timeouts\":%llu,\"rollbacks\":%llu",
                      cfg.mode.c_str(), threads, cfg.shards, policy.c_str(), print, r.seconds, r.ops_per_sec(),
                      (unsigned long long)r.lock_calls, (unsigned long long)r.waits,
                      (unsigned long long)r.deadlocks, (unsigned long long)r.timeouts,
                      (unsigned long long)r.rollbacks);
    if (base != nullptr) {
      n += std::snprintf(line + n, sizeof line - n, ",\"baseline_ops_per_sec\":%.0f,\"ratio\":%.3f",
                         base->ops_per_sec(), base->ops_per_sec() > 0 ? r.ops_per_sec() / base->ops_per_sec() : 0);
    }
    if (print_off != nullptr) {
      n += std::snprintf(line + n, sizeof line - n, ",\"print_on_vs_off\":%.3f",
                         print_off->ops_per_sec() > 0 ? r.ops_per_sec() / print_off->ops_per_sec() : 0);
    }
    if (base != nullptr && base_print_off != nullptr) {
      n += std::snprintf(line + n, sizeof line - n, ",\"baseline_print_on_vs_off\":%.3f",
                         base_print_off->ops_per_sec() > 0 ? base->ops_per_sec() / base_print_off->ops_per_sec() : 0);
    }
    std::snprintf(line + n, sizeof line - n, "}");
  } else {
    n = std::snprintf(line, sizeof line, "mode=%s threads=%d shards=%zu policy=%s", cfg.mode.c_str(), threads,
                      cfg.shards, policy.c_str());
    if (cfg.mode == "deadlock") n += std::snprintf(line + n, sizeof line - n, " print=%s", print);
    n += std::snprintf(line + n, sizeof line - n, " %s=%.0f", txn_mode ? "commits/s" : "ops/s", r.ops_per_sec());
    if (txn_mode) {
      n += std::snprintf(line + n, sizeof line - n, " waits=%llu deadlocks=%llu deadlocks/s=%.0f timeouts=%llu",
                         (unsigned long long)r.waits, (unsigned long long)r.deadlocks, r.deadlocks / r.seconds,
                         (unsigned long long)r.timeouts);
    }
    if (base != nullptr) {
      n += std::snprintf(line + n, sizeof line - n, " baseline_%s=%.0f ratio=%.2f", txn_mode ? "commits/s" : "ops/s",
                         base->ops_per_sec(), base->ops_per_sec() > 0 ? r.ops_per_sec() / base->ops_per_sec() : 0);
    }
    if (print_off != nullptr) {
      n += std::snprintf(line + n, sizeof line - n, " print_on/off=%.3f",
                         print_off->ops_per_sec() > 0 ? r.ops_per_sec() / print_off->ops_per_sec() : 0);
    }
    if (base != nullptr && base_print_off != nullptr) {
      n += std::snprintf(line + n, sizeof line - n, " baseline_print_on/off=%.3f",
                         base_print_off->ops_per_sec() > 0 ? base->ops_per_sec() / base_print_off->ops_per_sec() : 0);
    }
  }
  std::puts(line);
  std::fflush(stdout);
}

[[noreturn]] void Usage(const char* error) {
  if (error != nullptr) std::fprintf(stderr, "sluice-lockbench: %s\n", error);
  std::fprintf(stderr,
               "usage: sluice-lockbench [--mode distinct|shared|skew|deadlock] [--threads N[,N...]]\n"
               "         [--seconds S] [--shards N] [--policy cats|fifo] [--baseline] [--json]\n"
               "         [--print-deadlocks on|off|both] [--repeat N] [--objects N] [--rows N]\n"
               "         [--locks N] [--hold-us N] [--inline-detect on|off] [--spin-us N]\n"
               "         [--error-log PATH]\n");
  std::exit(error != nullptr ? 2 : 0);
}

Config Parse(int argc, char** argv) {
  Config cfg;
  std::map<std::string, std::string> kv;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") Usage(nullptr);
    if (arg.rfind("--", 0) != 0) Usage(("unexpected argument " + arg).c_str());
    arg = arg.substr(2);
    if (arg == "baseline" || arg == "json") {
      kv[arg] = "1";
      continue;
    }
    const size_t eq = arg.find('=');
    if (eq != std::string::npos) {
      kv[arg.substr(0, eq)] = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      kv[arg] = argv[++i];
    } else {
      Usage(("missing value for --" + arg).c_str());
    }
  }
  for (const auto& [k, v] : kv) {
    if (k == "mode") {
      cfg.mode = v;
      if (v != "distinct" && v != "shared" && v != "skew" && v != "deadlock") Usage("bad --mode");
    } else if (k == "threads") {
      cfg.threads.clear();
      size_t pos = 0;
      while (pos <= v.size()) {
        const size_t comma = v.find(',', pos);
        const int t = std::atoi(v.substr(pos, comma - pos).c_str());
        if (t <= 0) Usage("bad --threads");
        cfg.threads.push_back(t);
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    } else if (k == "seconds") {
      cfg.seconds = std::atof(v.c_str());
    } else if (k == "shards") {
      cfg.shards = std::max(1, std::atoi(v.c_str()));
    } else if (k == "policy") {
      if (!storage::ParseSchedulePolicy(v, &cfg.policy)) Usage("bad --policy");
    } else if (k == "baseline") {
      cfg.baseline = true;
    } else if (k == "json") {
      cfg.json = true;
    } else if (k == "print-deadlocks") {
      if (v != "on" && v != "off" && v != "both") Usage("bad --print-deadlocks");
      cfg.print = v;
    } else if (k == "repeat") {
      cfg.repeat = std::max(1, std::atoi(v.c_str()));
    } else if (k == "objects") {
      cfg.objects = std::max(1, std::atoi(v.c_str()));
    } else if (k == "rows") {
      cfg.rows = std::max(1, std::atoi(v.c_str()));
    } else if (k == "locks") {
      cfg.locks = std::max(1, std::atoi(v.c_str()));
    } else if (k == "hold-us") {
      cfg.hold_us = std::max(0, std::atoi(v.c_str()));
    } else if (k == "spin-us") {
      cfg.spin_us = std::max(0, std::atoi(v.c_str()));
    } else if (k == "inline-detect") {
      cfg.inline_detect = v == "on";
    } else if (k == "error-log") {
      cfg.error_log = v;
    } else {
      Usage(("unknown option --" + k).c_str());
    }
  }
  return cfg;
}

}  // namespace
}  // namespace sluice::tools

int main(int argc, char** argv) {
  using namespace sluice::tools;
  const Config cfg = Parse(argc, argv);
  sluice::base::LogOptions log;
  log.file = cfg.error_log;
  log.async = true;
  log.level = spdlog::level::debug;  // deadlock reports are [Note]s
  sluice::base::InitLogging(log);
  // Lets the log thread finish one run's backlog before the next run starts,
  // so that no run pays for another's error-log writing.
  auto drain_log = [&log] {
    sluice::base::ShutdownLogging();
    sluice::base::InitLogging(log);
  };

  for (int rep = 0; rep < cfg.repeat; ++rep) {
    for (int threads : cfg.threads) {
      std::vector<bool> prints;
      if (cfg.mode != "deadlock" || cfg.print == "off") {
        prints = {false};
      } else if (cfg.print == "on") {
        prints = {true};
      } else {
        prints = {false, true};
      }
      Result off, base_off;
      for (bool print : prints) {
        const Result r = RunSharded(cfg, threads, print);
        drain_log();
        Result base;
        if (cfg.baseline) {
          base = RunGlobal(cfg, threads, print);
          drain_log();
        }
        const bool compare = print && cfg.print == "both";
        Emit(cfg, threads, print ? "on" : "off", r, cfg.baseline ? &base : nullptr, compare ? &off : nullptr,
             compare && cfg.baseline ? &base_off : nullptr);
        if (!print) {
          off = r;
          base_off = base;
        }
      }
    }
  }
  sluice::base::ShutdownLogging();
  return 0;
}
