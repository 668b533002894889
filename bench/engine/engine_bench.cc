// bench/engine/engine_bench.cc
//
// sluice-engine-bench: micro-benchmark of the storage engine facade on the
// POSIX file system. For 1 and 2 threads, each on a fresh engine and
// datadir (a temp dir, removed at exit), with a table
//   sbtest(id BIGINT PRIMARY KEY, k INT, pad VARCHAR(100)):
//   insert:     point inserts, one per transaction (autocommit style), each
//               thread its own key range; --rows in all (capped by
//               --insert-max-seconds)
//   lookup:     Get of a random existing key, one per transaction, for
//               --seconds
//   range_scan: ScanRange of --scan-rows rows from a random existing key,
//               one per transaction, for --seconds
// Prints one line per phase and thread count:
//   phase=insert threads=2 ops/s=... ratio_2_1=...
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/engine/engine.h"
#include "base/io/file_system.h"

namespace sluice::storage {
namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  uint64_t rows = 200000;
  double seconds = 3;
  size_t buffer_pool_mb = 256;
  double insert_max_seconds = 60;
  uint64_t scan_rows = 100;
  int flush_log_at_trx_commit = 1;  // innodb_flush_log_at_trx_commit
};

struct PhaseResult {
  double ops_per_s = 0;
  double rows_per_s = 0;  // range_scan only
  uint64_t ops = 0;
};

ColumnDef Col(std::string name, ColumnType type, bool nullable) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.nullable = nullable;
  return c;
}

TableDef BenchTable() {
  TableDef t;
  t.schema = "bench";
  t.name = "sbtest";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  t.columns.push_back(Col("k", ColumnType::kInt, false));
  ColumnDef pad = Col("pad", ColumnType::kVarChar, false);
  pad.length = 100;
  t.columns.push_back(pad);
  IndexDef pk;
  pk.name = "PRIMARY";
  pk.kind = IndexKind::kClustered;
  pk.parts.push_back(KeyPart{"id", 0, 0, false});
  t.indexes.push_back(pk);
  return t;
}

[[noreturn]] void Die(const std::string& what, const Status& s) {
  std::fprintf(stderr, "sluice-engine-bench: %s: %s\n", what.c_str(), s.ToString().c_str());
  std::exit(1);
}

std::string Pad(std::mt19937_64& rng) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(60, ' ');
  for (char& c : s) c = kChars[rng() % (sizeof(kChars) - 1)];
  return s;
}

// Runs `threads` workers until each returns false from `step` or `deadline`
// passes; returns total ops and elapsed seconds.
template <typename Step>
std::pair<uint64_t, double> RunThreads(int threads, Clock::time_point deadline, Step step) {
  std::vector<std::thread> workers;
  std::vector<uint64_t> ops(threads, 0);
  std::atomic<bool> go{false};
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      uint64_t n = 0;
      std::mt19937_64 rng(0x5eed + t);
      while ((n & 63) != 0 || Clock::now() < deadline) {
        if (!step(t, n, rng)) break;
        ++n;
      }
      ops[t] = n;
    });
  }
  const auto start = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto& w : workers) w.join();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  uint64_t total = 0;
  for (uint64_t n : ops) total += n;
  return {total, secs};
}

struct ThreadRunResults {
  PhaseResult insert, lookup, scan;
};

ThreadRunResults RunAt(int threads, const Config& cfg, io::FileSystem* fs, const std::string& datadir) {
  ThreadRunResults out;
  Engine::Options opts;
  opts.buffer_pool_bytes = cfg.buffer_pool_mb << 20;
  opts.durability = static_cast<Durability>(cfg.flush_log_at_trx_commit);
  auto opened = Engine::Open(fs, datadir, opts);
  if (!opened.ok()) Die("open", opened.status());
  std::unique_ptr<Engine> engine = std::move(opened).value();
  if (Status s = engine->CreateDatabase(DatabaseDef{"bench"}); !s.ok()) Die("create database", s);
  auto def = engine->CreateTable(BenchTable());
  if (!def.ok()) Die("create table", def.status());
  const uint64_t table = (*def)->id;

  // --- insert: thread t inserts ids [t * per_thread, (t + 1) * per_thread).
  const uint64_t per_thread = cfg.rows / threads;
  std::vector<std::atomic<uint64_t>> inserted(threads);
  {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(cfg.insert_max_seconds));
    auto [ops, secs] = RunThreads(threads, deadline, [&](int t, uint64_t n, std::mt19937_64& rng) {
      if (n >= per_thread) return false;
      const int64_t id = static_cast<int64_t>(t * per_thread + n);
      auto trx = engine->Begin();
      auto r = engine->Insert(*trx, table, Row{id, static_cast<int64_t>(rng() % 1000000), Pad(rng)});
      if (!r.ok()) Die("insert", r.status());
      if (Status s = engine->Commit(*trx); !s.ok()) Die("commit", s);
      inserted[t].store(n + 1, std::memory_order_relaxed);
      return true;
    });
    out.insert.ops = ops;
    out.insert.ops_per_s = ops / secs;
  }
  // Existing keys: thread t's range up to what it inserted.
  auto random_key = [&](std::mt19937_64& rng) {
    for (;;) {
      const int t = static_cast<int>(rng() % threads);
      const uint64_t n = inserted[t].load(std::memory_order_relaxed);
      if (n > 0) return static_cast<int64_t>(t * per_thread + rng() % n);
    }
  };
  const auto phase_deadline = [&] {
    return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(cfg.seconds));
  };

  // --- lookup
  {
    auto [ops, secs] = RunThreads(threads, phase_deadline(), [&](int, uint64_t, std::mt19937_64& rng) {
      auto trx = engine->Begin();
      auto r = engine->Get(*trx, table, Row{random_key(rng)});
      if (!r.ok()) Die("get", r.status());
      if (!r->has_value()) Die("get", Status::Corruption("an inserted key is missing"));
      if (Status s = engine->Commit(*trx); !s.ok()) Die("commit", s);
      return true;
    });
    out.lookup.ops = ops;
    out.lookup.ops_per_s = ops / secs;
  }

  // --- range scan
  {
    std::atomic<uint64_t> rows{0};
    auto [ops, secs] = RunThreads(threads, phase_deadline(), [&](int, uint64_t, std::mt19937_64& rng) {
      auto trx = engine->Begin();
      uint64_t n = 0;
      Status s = engine->ScanRange(*trx, table, Row{random_key(rng)}, cfg.scan_rows, [&](const Row&) {
        ++n;
        return true;
      });
      if (!s.ok()) Die("scan", s);
      if (Status c = engine->Commit(*trx); !c.ok()) Die("commit", c);
      rows.fetch_add(n, std::memory_order_relaxed);
      return true;
    });
    out.scan.ops = ops;
    out.scan.ops_per_s = ops / secs;
    out.scan.rows_per_s = rows.load() / secs;
  }

  const EngineCounters c = engine->Counters();
  std::fprintf(stderr,
               "# threads=%d inserted=%llu Innodb_rows_inserted=%llu Innodb_rows_read=%llu\n", threads,
               static_cast<unsigned long long>(out.insert.ops),
               static_cast<unsigned long long>(c.innodb_rows_inserted),
               static_cast<unsigned long long>(c.innodb_rows_read));
  if (Status s = engine->Close(); !s.ok()) Die("close", s);
  return out;
}

void PrintLine(const char* phase, int threads, const PhaseResult& r, const PhaseResult* one, bool rows) {
  std::printf("phase=%s threads=%d ops/s=%.0f", phase, threads, r.ops_per_s);
  if (rows) std::printf(" rows/s=%.0f", r.rows_per_s);
  if (one != nullptr && one->ops_per_s > 0) {
    std::printf(" ratio_2_1=%.2f", r.ops_per_s / one->ops_per_s);
  } else {
    std::printf(" ratio_2_1=-");
  }
  std::printf("\n");
}

int Main(int argc, char** argv) {
  Config cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "sluice-engine-bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--rows") {
      cfg.rows = std::strtoull(next(), nullptr, 10);
    } else if (a == "--seconds") {
      cfg.seconds = std::strtod(next(), nullptr);
    } else if (a == "--buffer-pool-mb") {
      cfg.buffer_pool_mb = std::strtoull(next(), nullptr, 10);
    } else if (a == "--insert-max-seconds") {
      cfg.insert_max_seconds = std::strtod(next(), nullptr);
    } else if (a == "--scan-rows") {
      cfg.scan_rows = std::strtoull(next(), nullptr, 10);
    } else if (a == "--flush-log-at-trx-commit") {
      cfg.flush_log_at_trx_commit = std::atoi(next());
    } else {
      std::fprintf(stderr,
                   "usage: sluice-engine-bench [--rows N (200000)] [--seconds S (3)] [--buffer-pool-mb M (256)]\n"
                   "                           [--insert-max-seconds S (60)] [--scan-rows N (100)]\n"
                   "                           [--flush-log-at-trx-commit 0|1|2 (1)]\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (cfg.rows < 2 || cfg.seconds <= 0 || cfg.buffer_pool_mb == 0 || cfg.scan_rows == 0 ||
      cfg.flush_log_at_trx_commit < 0 || cfg.flush_log_at_trx_commit > 2) {
    std::fprintf(stderr, "sluice-engine-bench: bad option value\n");
    return 2;
  }

  std::string tmpl = (std::filesystem::temp_directory_path() / "sluice-engine-bench.XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string root = tmpl;
  std::unique_ptr<io::FileSystem> fs = io::NewPosixFileSystem();
  std::printf("# rows=%llu seconds=%g buffer-pool-mb=%zu scan-rows=%llu flush-log-at-trx-commit=%d datadir=%s\n",
              static_cast<unsigned long long>(cfg.rows), cfg.seconds, cfg.buffer_pool_mb,
              static_cast<unsigned long long>(cfg.scan_rows), cfg.flush_log_at_trx_commit, root.c_str());
  std::fflush(stdout);
  ThreadRunResults r1 = RunAt(1, cfg, fs.get(), root + "/t1");
  ThreadRunResults r2 = RunAt(2, cfg, fs.get(), root + "/t2");
  std::error_code ec;
  std::filesystem::remove_all(root, ec);

  PrintLine("insert", 1, r1.insert, nullptr, false);
  PrintLine("insert", 2, r2.insert, &r1.insert, false);
  PrintLine("lookup", 1, r1.lookup, nullptr, false);
  PrintLine("lookup", 2, r2.lookup, &r1.lookup, false);
  PrintLine("range_scan", 1, r1.scan, nullptr, true);
  PrintLine("range_scan", 2, r2.scan, &r1.scan, true);
  return 0;
}

}  // namespace
}  // namespace sluice::storage

int main(int argc, char** argv) { return sluice::storage::Main(argc, argv); }
