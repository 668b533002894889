// storage/btree/btree_bench.cc — sluice-btree-bench
//
// Point inserts, point lookups and range scans on one BTree over the buffer
// pool (no transactions, no redo), at each requested thread count. Every
// thread count starts from a fresh tablespace. Keys are 8-byte encoded
// integers inserted in random order; each thread owns the keys congruent to
// its index, so inserts never collide. --ascending hands the keys out in
// order from one counter instead (an AUTO_INCREMENT key: every thread
// appends to the same rightmost leaf).
//
//   sluice-btree-bench [--rows=N] [--threads=1,2] [--value_size=B] [--ascending]
//                      [--scan_len=L] [--pool_mb=M] [--dir=PATH] [--mem] [--mtr_log]
// --mtr_log installs a mini-transaction logger (storage/buffer/mtr.h) that
// only counts the redo bytes, to measure the cost of capturing page diffs.
//
// Prints one line per phase: "<phase> threads=T ops=N seconds=S ops/s=R".
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/btree/btree.h"
#include "storage/btree/key_codec.h"
#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

struct Flags {
  int64_t rows = 500000;
  std::vector<int> threads = {1, 2};
  size_t value_size = 100;
  int scan_len = 100;
  size_t pool_mb = 256;
  std::string dir;
  bool mem = false;
  bool mtr_log = false;
  bool ascending = false;
};

bool Parse(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* name) -> const char* {
      size_t n = std::strlen(name);
      return a.compare(0, n, name) == 0 ? a.c_str() + n : nullptr;
    };
    if (const char* v = val("--rows=")) {
      f->rows = std::atoll(v);
    } else if (const char* v = val("--threads=")) {
      f->threads.clear();
      std::string s = v;
      size_t pos = 0;
      while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        if (comma == std::string::npos) comma = s.size();
        f->threads.push_back(std::atoi(s.substr(pos, comma - pos).c_str()));
        pos = comma + 1;
      }
    } else if (const char* v = val("--value_size=")) {
      f->value_size = std::atoll(v);
    } else if (const char* v = val("--scan_len=")) {
      f->scan_len = std::atoi(v);
    } else if (const char* v = val("--pool_mb=")) {
      f->pool_mb = std::atoll(v);
    } else if (const char* v = val("--dir=")) {
      f->dir = v;
    } else if (a == "--mem") {
      f->mem = true;
    } else if (a == "--mtr_log") {
      f->mtr_log = true;
    } else if (a == "--ascending") {
      f->ascending = true;
    } else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

std::string Key(int64_t k) { return KeyEncoder().Int(k).Release(); }

template <typename Fn>
double RunThreads(int n, Fn fn) {
  std::vector<std::thread> threads;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < n; ++t) threads.emplace_back(fn, t);
  for (auto& th : threads) th.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void Report(const char* phase, int threads, int64_t ops, double seconds, const char* unit = "ops") {
  std::printf("%-13s threads=%d %s=%lld seconds=%.3f %s/s=%.0f\n", phase, threads, unit,
              static_cast<long long>(ops), seconds, unit, ops / seconds);
  std::fflush(stdout);
}

int Run(const Flags& flags) {
  std::unique_ptr<io::FileSystem> fs = flags.mem
                                            ? std::unique_ptr<io::FileSystem>(std::make_unique<io::MemFileSystem>())
                                            : io::NewPosixFileSystem();
  std::string dir = flags.dir;
  bool made_dir = false;
  if (dir.empty()) {
    if (flags.mem) {
      dir = "/bench";
      (void)fs->CreateDir(dir);
    } else {
      char tmpl[] = "/tmp/sluice_btree_bench_XXXXXX";
      if (mkdtemp(tmpl) == nullptr) return 1;
      dir = tmpl;
      made_dir = true;
    }
  }
  std::printf("rows=%lld value_size=%zu scan_len=%d pool_mb=%zu fs=%s order=%s\n",
              static_cast<long long>(flags.rows), flags.value_size, flags.scan_len, flags.pool_mb,
              flags.mem ? "memory" : "posix", flags.ascending ? "ascending" : "random");
  const std::string value(flags.value_size, 'v');
  for (int nthreads : flags.threads) {
    const std::string path = dir + "/bench_" + std::to_string(nthreads) + ".ibd";
    (void)fs->Remove(path);
    BufferPool::Options po;
    po.pool_size_bytes = flags.pool_mb << 20;
    std::mutex log_mu;
    uint64_t log_lsn = 0, log_records = 0;
    if (flags.mtr_log) {
      po.mtr_log = [&](std::string_view payload, const std::function<void(uint64_t)>& stamp) {
        std::lock_guard<std::mutex> lock(log_mu);
        log_lsn += 9 + payload.size();  // RedoLog's framing
        ++log_records;
        stamp(log_lsn);
        return Status::OK();
      };
    }
    BufferPool pool(po);
    auto space = Tablespace::Create(fs.get(), path, 1);
    if (!space.ok()) {
      std::fprintf(stderr, "%s\n", space.status().ToString().c_str());
      return 1;
    }
    (void)pool.AddSpace(std::move(*space));
    auto tree = BTree::Create(&pool, 1);
    if (!tree.ok()) return 1;
    BTree* t = tree->get();
    std::atomic<int> errors{0};

    const int64_t per_thread = flags.rows / nthreads;
    std::atomic<int64_t> next_key{0};
    double secs = RunThreads(nthreads, [&](int id) {
      if (flags.ascending) {
        for (int64_t k = next_key.fetch_add(1); k < per_thread * nthreads; k = next_key.fetch_add(1)) {
          if (!t->Insert(Key(k), value).ok()) errors.fetch_add(1);
        }
        return;
      }
      std::vector<int64_t> keys(per_thread);
      for (int64_t i = 0; i < per_thread; ++i) keys[i] = i * nthreads + id;
      std::shuffle(keys.begin(), keys.end(), std::mt19937_64(id + 1));
      for (int64_t k : keys) {
        if (!t->Insert(Key(k), value).ok()) errors.fetch_add(1);
      }
    });
    const int64_t total = per_thread * nthreads;
    Report("point_insert", nthreads, total, secs);
    if (flags.mtr_log) {
      std::printf("  mtr_log records=%llu bytes=%llu bytes/insert=%.1f\n",
                  static_cast<unsigned long long>(log_records), static_cast<unsigned long long>(log_lsn),
                  static_cast<double>(log_lsn) / total);
    }

    secs = RunThreads(nthreads, [&](int id) {
      std::mt19937_64 rng(id + 100);
      std::string v;
      for (int64_t i = 0; i < per_thread; ++i) {
        auto r = t->Get(Key(static_cast<int64_t>(rng() % total)), &v);
        if (!r.ok() || !*r) errors.fetch_add(1);
      }
    });
    Report("point_lookup", nthreads, total, secs);

    const int64_t scans_per_thread = std::max<int64_t>(1, per_thread / flags.scan_len);
    std::atomic<int64_t> rows_seen{0};
    secs = RunThreads(nthreads, [&](int id) {
      std::mt19937_64 rng(id + 200);
      auto c = t->NewCursor();
      int64_t seen = 0;
      for (int64_t i = 0; i < scans_per_thread; ++i) {
        Status s = c.Seek(Key(static_cast<int64_t>(rng() % total)));
        for (int n = 0; s.ok() && c.Valid() && n < flags.scan_len; ++n) {
          ++seen;
          s = c.Next();
        }
        if (!s.ok()) errors.fetch_add(1);
      }
      rows_seen.fetch_add(seen);
    });
    Report("range_scan", nthreads, scans_per_thread * nthreads, secs, "scans");
    Report("range_scan", nthreads, rows_seen.load(), secs, "rows");

    BTree::VerifyStats st;
    Status vs = t->Verify(&st);
    BufferPoolStats ps = pool.GetStats();
    std::printf("  verify=%s height=%d leaves=%llu internal=%llu records=%llu pool_reads=%llu "
                "pool_writes=%llu errors=%d\n",
                vs.ok() ? "ok" : vs.ToString().c_str(), st.height,
                static_cast<unsigned long long>(st.leaf_pages),
                static_cast<unsigned long long>(st.internal_pages),
                static_cast<unsigned long long>(st.records), static_cast<unsigned long long>(ps.reads),
                static_cast<unsigned long long>(ps.data_writes), errors.load());
    tree->reset();
    (void)pool.DetachSpace(1, /*write_back=*/false);
    (void)fs->Remove(path);
    if (!vs.ok() || errors.load() != 0) return 1;
  }
  if (made_dir) (void)fs->Remove(dir);
  return 0;
}

}  // namespace
}  // namespace sluice::storage

int main(int argc, char** argv) {
  sluice::storage::Flags flags;
  if (!sluice::storage::Parse(argc, argv, &flags)) return 2;
  return sluice::storage::Run(flags);
}
