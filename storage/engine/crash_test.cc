// The SIGKILL crash test (issue 4): 50 rounds. In each, a child process
// (this binary again, running CrashChild.Run) opens the engine on a real
// directory, recovers whatever the last round left, and runs random
// concurrent transactions from 4 threads, reporting each commit on fd 3
// after Commit returned. The parent kills it with SIGKILL at a random
// moment, recovers the directory itself and checks:
//   - every transaction whose commit was reported is there, and nothing of
//     a transaction that did not commit (each thread's rows equal the
//     thread's model state after exactly its recovered number of
//     transactions, which is the reported count or one more);
//   - a row every fourth transaction increments under a lock (shared by
//     all threads) equals the number of such transactions recovered;
//   - CheckTable: every B+tree verifies and the secondary index has every
//     row's entry; lookups through it return exactly the model's rows;
//   - after the after-crash sweep and a purge, no delete-marked record and
//     no stale secondary entry is left (CheckLevel::kPurged);
//   - every eighth upsert writes a pad of 4 KB to 40 KB, a row stored off
//     the page (engine.h, "Off-page rows"); every pad read back has the
//     bytes its (v, length) give, so a chain freed too early, reused or
//     half recovered shows.
// The transactions are generated from per-(round, thread) seeds, so the
// parent regenerates the child's work.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "storage/engine/engine.h"
#include "storage/engine/engine_test_util.h"
#include "base/io/file_system.h"

extern char** environ;

namespace sluice::storage {
namespace {

using namespace std::chrono_literals;
using test::Col;
using test::Idx;

constexpr int kThreads = 4;
constexpr int kRounds = 50;
constexpr int64_t kRangePerThread = 1000;
constexpr int64_t kRowsPerThread = 60;  // ids k*1000 + [0, 60)
constexpr int64_t kProgressRow = 999;   // k*1000 + 999: the thread's transaction count
constexpr int64_t kCounterRow = 1000000;
constexpr char kChildDirEnv[] = "SLUICE_CRASH_CHILD_DIR";
constexpr char kChildRoundEnv[] = "SLUICE_CRASH_CHILD_ROUND";

// t(id BIGINT PRIMARY KEY, v BIGINT NOT NULL, pad MEDIUMBLOB, KEY(v))
TableDef Table() {
  TableDef t;
  t.schema = "db";
  t.name = "t";
  t.columns.push_back(Col("id", ColumnType::kBigInt, false));
  t.columns.push_back(Col("v", ColumnType::kBigInt, false));
  t.columns.push_back(Col("pad", ColumnType::kMediumBlob, true));
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("v_idx", {"v"}, false));
  return t;
}

struct Op {
  int64_t id;
  bool erase;  // else upsert with v / pad
  int64_t v;
  size_t pad;
};
struct Txn {
  std::vector<Op> ops;
  bool bump_counter;
};

// Thread k's transaction number `seq` (1-based) of `round`.
Txn MakeTxn(std::mt19937_64& rng, int k) {
  Txn t;
  const int n = 1 + static_cast<int>(rng() % 6);
  for (int i = 0; i < n; ++i) {
    Op op;
    op.id = k * kRangePerThread + static_cast<int64_t>(rng() % kRowsPerThread);
    op.erase = rng() % 4 == 0;
    op.v = k * 1000000 + static_cast<int64_t>(rng() % 40);
    op.pad = rng() % 8 == 0 ? 4000 + rng() % 36000 : rng() % 300;
    t.ops.push_back(op);
  }
  t.bump_counter = rng() % 4 == 0;
  return t;
}

std::mt19937_64 RngFor(int round, int k) { return std::mt19937_64(uint64_t(round) * 7919 + k + 1); }

using Model = std::map<int64_t, std::pair<int64_t, size_t>>;  // id -> (v, pad length)

void ApplyToModel(const Txn& t, int k, int64_t seq, Model* m) {
  for (const Op& op : t.ops) {
    if (op.erase) {
      m->erase(op.id);
    } else {
      (*m)[op.id] = {op.v, op.pad};
    }
  }
  (*m)[k * kRangePerThread + kProgressRow] = {seq, 0};
}

// The pad a row with `v` has: its bytes depend on v and on the offset.
std::string Pad(int64_t v, size_t len) {
  std::string p(len, '\0');
  for (size_t i = 0; i < len; ++i) p[i] = static_cast<char>('a' + (static_cast<uint64_t>(v) + i / 7) % 26);
  return p;
}

Row MakeRow(int64_t id, int64_t v, size_t pad) { return Row{id, v, Pad(v, pad)}; }

Engine::Options EngineOptions(int round) {
  Engine::Options o;
  o.buffer_pool_bytes = size_t{2} << 20;  // 128 pages: eviction under load
  o.checkpoint_interval = 100ms;
  o.purge_interval = 10ms;
  o.log_flush_interval = 200ms;
  // 1 and 2 both survive a process kill (2 has written to the OS).
  o.durability = round % 2 == 0 ? Durability::kSyncEachCommit : Durability::kWriteEachCommit;
  return o;
}

// ---------------------------------------------------------------- child

Status RunTxn(Engine& e, uint64_t table, const Txn& t, int k, int64_t seq) {
  auto trx = e.Begin(IsolationLevel::kReadCommitted);
  auto fail = [&](Status s) {
    (void)e.Rollback(*trx);
    return s;
  };
  for (const Op& op : t.ops) {
    if (op.erase) {
      Result<bool> r = e.Delete(*trx, table, Row{op.id});
      if (!r.ok()) return fail(r.status());
      continue;
    }
    Result<bool> r = e.Update(*trx, table, Row{op.id}, MakeRow(op.id, op.v, op.pad));
    if (!r.ok()) return fail(r.status());
    if (!*r) {
      Result<uint64_t> ins = e.Insert(*trx, table, MakeRow(op.id, op.v, op.pad));
      if (!ins.ok()) return fail(ins.status());
    }
  }
  const int64_t progress = k * kRangePerThread + kProgressRow;
  Result<bool> p = e.Update(*trx, table, Row{progress}, MakeRow(progress, seq, 0));
  if (!p.ok()) return fail(p.status());
  if (!*p) {
    Result<uint64_t> ins = e.Insert(*trx, table, MakeRow(progress, seq, 0));
    if (!ins.ok()) return fail(ins.status());
  }
  if (t.bump_counter) {
    // A locking read (FOR UPDATE): the latest value, locked.
    Result<std::optional<Row>> cur = e.GetLocked(*trx, table, Row{kCounterRow}, LockMode::kX);
    if (!cur.ok()) return fail(cur.status());
    if (!cur->has_value()) return fail(Status::Corruption("counter row missing"));
    const int64_t n = std::get<int64_t>((**cur)[1]);
    Result<bool> bumped = e.Update(*trx, table, Row{kCounterRow}, MakeRow(kCounterRow, n + 1, 0));
    if (!bumped.ok()) return fail(bumped.status());
  }
  return e.Commit(*trx);
}

TEST(CrashChild, Run) {
  const char* dir = std::getenv(kChildDirEnv);
  const char* round_env = std::getenv(kChildRoundEnv);
  if (dir == nullptr || round_env == nullptr) GTEST_SKIP() << "runs only as the crash test's child";
  const int round = std::atoi(round_env);
  std::unique_ptr<io::FileSystem> fs = io::NewPosixFileSystem();
  auto e = Engine::Open(fs.get(), dir, EngineOptions(round));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  Engine& engine = **e;
  auto def = engine.FindTable("db", "t");
  ASSERT_NE(def, nullptr);
  const uint64_t table = def->id;
  ASSERT_EQ(::write(3, "ready\n", 6), 6);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([&, k] {
      std::mt19937_64 rng = RngFor(round, k);
      for (int64_t seq = 1;; ++seq) {
        Txn t = MakeTxn(rng, k);
        Status s = RunTxn(engine, table, t, k, seq);
        if (!s.ok()) {
          std::fprintf(stderr, "child: thread %d txn %lld: %s\n", k, static_cast<long long>(seq),
                       s.ToString().c_str());
          std::_Exit(3);
        }
        const std::string line = std::to_string(k) + " " + std::to_string(seq) + "\n";
        if (::write(3, line.data(), line.size()) != static_cast<ssize_t>(line.size())) std::_Exit(4);
      }
    });
  }
  for (auto& t : threads) t.join();  // never: the parent kills us
}

// ---------------------------------------------------------------- parent

class CrashTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice-crash-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs_ = io::NewPosixFileSystem();
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  // Runs the child for `round`, kills it after `ms`; returns the last
  // reported sequence number of each thread.
  std::vector<int64_t> RunChild(int round, int ms) {
    std::vector<int64_t> reported(kThreads, 0);
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // Close the read end first: it may itself be fd 3.
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 3);
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
    env_strings.push_back(std::string(kChildDirEnv) + "=" + dir_);
    env_strings.push_back(std::string(kChildRoundEnv) + "=" + std::to_string(round));
    std::vector<char*> envp;
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string exe = std::filesystem::read_symlink("/proc/self/exe");
    std::string filter = "--gtest_filter=CrashChild.Run";
    std::string quiet = "--gtest_brief=1";
    char* argv[] = {exe.data(), filter.data(), quiet.data(), nullptr};
    pid_t pid = 0;
    EXPECT_EQ(posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    std::string buf;
    char chunk[4096];
    // Wait for "ready" (recovery done), then let it run `ms`.
    while (buf.find("ready\n") == std::string::npos) {
      ssize_t n = ::read(fds[0], chunk, sizeof chunk);
      if (n <= 0) break;
      buf.append(chunk, n);
    }
    EXPECT_NE(buf.find("ready\n"), std::string::npos) << "the child died during recovery";
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    ::kill(pid, SIGKILL);
    for (;;) {
      ssize_t n = ::read(fds[0], chunk, sizeof chunk);
      if (n <= 0) break;
      buf.append(chunk, n);
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        << "the child exited by itself (status " << status << ")";
    size_t pos = buf.find("ready\n") + 6;
    while (pos < buf.size()) {
      size_t end = buf.find('\n', pos);
      if (end == std::string::npos) break;  // a torn last line: not reported
      int k = 0;
      long long seq = 0;
      if (std::sscanf(buf.c_str() + pos, "%d %lld", &k, &seq) == 2 && k >= 0 && k < kThreads) {
        reported[k] = std::max<int64_t>(reported[k], seq);
      }
      pos = end + 1;
    }
    return reported;
  }

  std::string dir_;
  std::unique_ptr<io::FileSystem> fs_;
};

TEST_F(CrashTest, FiftyRoundsOfSigkillLoseNoCommitAndKeepNoUncommittedChange) {
  {
    auto e = Engine::Open(fs_.get(), dir_, EngineOptions(0));
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ASSERT_TRUE((*e)->CreateDatabase(DatabaseDef{"db"}).ok());
    auto def = (*e)->CreateTable(Table());
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    auto trx = (*e)->Begin();
    ASSERT_TRUE((*e)->Insert(*trx, (*def)->id, MakeRow(kCounterRow, 0, 0)).ok());
    ASSERT_TRUE((*e)->Commit(*trx).ok());
    ASSERT_TRUE((*e)->Close().ok());
  }
  Model model;  // everything but the counter row
  int64_t counter = 0;
  std::mt19937_64 timing(20261122);
  uint64_t total_txns = 0, rolled_back = 0, swept_rows = 0;
  for (int round = 0; round < kRounds; ++round) {
    const int ms = 30 + static_cast<int>(timing() % 300);
    std::vector<int64_t> reported = RunChild(round, ms);
    if (HasFailure()) return;

    auto e = Engine::Open(fs_.get(), dir_, EngineOptions(round));
    ASSERT_TRUE(e.ok()) << "round " << round << ": " << e.status().ToString();
    Engine& engine = **e;
    rolled_back += engine.recovery_info().rolled_back;
    const uint64_t table = engine.FindTable("db", "t")->id;
    ASSERT_TRUE(engine.CheckTable(table).ok()) << "round " << round << ": " << engine.CheckTable(table).ToString();
    Model found;
    int64_t found_counter = -1;
    {
      auto trx = engine.Begin();
      ASSERT_TRUE(engine.Scan(*trx, table, [&](const Row& r) {
                          const int64_t id = std::get<int64_t>(r[0]);
                          const int64_t v = std::get<int64_t>(r[1]);
                          if (id == kCounterRow) {
                            found_counter = v;
                          } else {
                            const std::string& pad = std::get<std::string>(r[2]);
                            // A pad with the wrong bytes counts as a wrong length.
                            found[id] = {v, pad == Pad(v, pad.size()) ? pad.size() : SIZE_MAX};
                          }
                          return true;
                        }).ok());
      ASSERT_TRUE(engine.Commit(*trx).ok());
    }
    for (int k = 0; k < kThreads; ++k) {
      // The thread's progress row says how many of its transactions
      // recovered: the reported ones, or one more (committed, not reported).
      const int64_t progress_id = k * kRangePerThread + kProgressRow;
      Model before;
      for (auto it = model.lower_bound(k * kRangePerThread);
           it != model.end() && it->first < (k + 1) * kRangePerThread; ++it) {
        before.insert(*it);
      }
      // Progress rows are deleted between rounds, so the row holds the
      // number of this round's transactions that recovered (absent: none).
      auto pit = found.find(progress_id);
      const int64_t m = pit == found.end() ? 0 : pit->second.first;
      std::mt19937_64 rng = RngFor(round, k);
      Model state = before;
      int64_t bumps = 0;
      std::vector<Txn> txns;
      for (int64_t seq = 1; seq <= reported[k] + 1; ++seq) txns.push_back(MakeTxn(rng, k));
      ASSERT_TRUE(m == reported[k] || m == reported[k] + 1)
          << "round " << round << " thread " << k << ": reported " << reported[k] << ", recovered " << m;
      for (int64_t seq = 1; seq <= m; ++seq) {
        ApplyToModel(txns[seq - 1], k, seq, &state);
        if (txns[seq - 1].bump_counter) ++bumps;
      }
      Model got;
      for (auto it = found.lower_bound(k * kRangePerThread);
           it != found.end() && it->first < (k + 1) * kRangePerThread; ++it) {
        got.insert(*it);
      }
      ASSERT_EQ(got, state) << "round " << round << " thread " << k << " after " << m << " transactions";
      for (auto it = state.begin(); it != state.end(); ++it) model[it->first] = it->second;
      for (auto it = model.lower_bound(k * kRangePerThread);
           it != model.end() && it->first < (k + 1) * kRangePerThread;) {
        it = state.count(it->first) ? std::next(it) : model.erase(it);
      }
      counter += bumps;
      total_txns += m;
    }
    ASSERT_EQ(found_counter, counter) << "round " << round;
    // The secondary index answers as the model says.
    std::map<int64_t, std::vector<int64_t>> by_v;
    for (const auto& [id, vp] : model) by_v[vp.first].push_back(id);
    // The counter row is not in the model, but its v (the count) is in the
    // index too, and small counts fall in thread 0's range of v: after a
    // short first round (a slow build: TSan) v 0, 7, ... found it. Its id
    // is above every thread's, so it comes last among its v's ids.
    by_v[counter].push_back(kCounterRow);
    {
      auto trx = engine.Begin();
      for (int k = 0; k < kThreads; ++k) {
        for (int64_t v = k * 1000000; v < k * 1000000 + 40; v += 7) {
          std::vector<int64_t> ids;
          ASSERT_TRUE(engine.IndexLookup(*trx, table, "v_idx", Row{v}, [&](const Row& r) {
                                ids.push_back(std::get<int64_t>(r[0]));
                                return true;
                              }).ok());
          std::vector<int64_t> want = by_v.count(v) ? by_v[v] : std::vector<int64_t>{};
          ASSERT_EQ(ids, want) << "round " << round << " v " << v;
        }
      }
      ASSERT_TRUE(engine.Commit(*trx).ok());
    }
    // Start every round from a fresh progress count: reset progress rows.
    {
      auto trx = engine.Begin();
      for (int k = 0; k < kThreads; ++k) {
        const int64_t id = k * kRangePerThread + kProgressRow;
        Result<bool> r = engine.Delete(*trx, table, Row{id});
        ASSERT_TRUE(r.ok());
        model.erase(id);
      }
      ASSERT_TRUE(engine.Commit(*trx).ok());
    }
    // The sweep (the child died) and purge leave no delete-marked record
    // and no entry that is not the latest row's.
    ASSERT_TRUE(engine.Purge().ok());
    swept_rows += engine.purge_stats().rows_removed;
    ASSERT_TRUE(engine.CheckTable(table, Engine::CheckLevel::kPurged).ok())
        << "round " << round << ": " << engine.CheckTable(table, Engine::CheckLevel::kPurged).ToString();
    ASSERT_TRUE(engine.Close().ok());
  }
  std::printf("crash test: %d rounds, %llu transactions recovered as committed, %llu rolled back at recovery, "
              "%llu delete-marked rows purged after recovery\n",
              kRounds, static_cast<unsigned long long>(total_txns), static_cast<unsigned long long>(rolled_back),
              static_cast<unsigned long long>(swept_rows));
}

}  // namespace
}  // namespace sluice::storage
