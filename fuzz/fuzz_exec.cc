// fuzz/fuzz_exec.cc
//
// libFuzzer target: statements executed, as a session runs them, against
// the engine, the binlog (log_bin ON, row format) and the accounts, with no
// network (exec::RunStatement, what server/executor.cc calls per statement).
// The input is query text, several statements allowed, run in order by
// two sessions in turn: the first runs the text up to the first \x02 byte,
// the second what follows up to the next, and so on (so one session's
// uncommitted rows, locks and read views meet the other's statements).
// Both are root, in a database `fz` made afresh for each input:
//   t1  the common types, a secondary and a unique key, AUTO_INCREMENT;
//   t2  unsigned, binary, time types, a foreign key to t1
//       (ON DELETE CASCADE);
//   t3  a text key under a case-insensitive collation, a stored generated
//       column and a CHECK constraint;
// each with a few rows. After the input both sessions end (their
// transactions rolled back), `fz` is dropped, and every 256 inputs the whole world
// (engine, binlog, accounts, variables) is made again, so what one input
// leaves behind stays bounded. An input whose statements cannot be run
// from a fresh world in one process may not reproduce alone.
//
// What is not the executor's to bound: SLEEP(), GET_LOCK() and
// WAIT_FOR_EXECUTED_GTID_SET() return at once (the server reads as
// shutting down to them); a statement still running after a second is
// killed (KILL QUERY) by a watchdog, so a hang libFuzzer reports is a loop
// KILL does not reach. scripts/fuzz.sh caps inputs at -max_len=4096.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "base/mysql_error.h"
#include "binlog/binlog.h"
#include "exec/session_context.h"
#include "exec/statement.h"
#include "exec/table_executor.h"
#include "exec/testing/exec_world.h"
#include "sql/parser.h"

namespace {

using namespace sluice;
using namespace sluice::exec;
namespace fs = std::filesystem;

constexpr int kInputsPerWorld = 256;

constexpr const char* kSchema[] = {
    "CREATE DATABASE fz",
    "CREATE TABLE fz.t1 (id INT PRIMARY KEY AUTO_INCREMENT, a INT, b VARCHAR(20), c DECIMAL(10,2), "
    "d DATETIME(3), e TEXT, f JSON, g DOUBLE, h ENUM('x','y','z'), KEY ka (a), UNIQUE KEY kb (b))",
    "CREATE TABLE fz.t2 (id BIGINT UNSIGNED PRIMARY KEY, p INT, q BLOB, s CHAR(3), "
    "t TIME(2), u YEAR, v DATE, w TINYINT, x FLOAT, y VARBINARY(8), z TIMESTAMP NULL, KEY kp (p), "
    "FOREIGN KEY (p) REFERENCES fz.t1 (id) ON DELETE CASCADE)",
    "CREATE TABLE fz.t3 (k VARCHAR(32) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, "
    "n INT GENERATED ALWAYS AS (CHAR_LENGTH(k)) STORED, m CHAR(4), CHECK (n < 30))",
    "INSERT INTO fz.t1 (a, b, c, d, e, f, g, h) VALUES "
    "(1, 'one', 1.50, '2024-01-02 03:04:05.678', 'first', '{\"k\": [1, 2, {\"z\": null}]}', 1e10, 'x'), "
    "(2, 'two', -2.25, '1999-12-31 23:59:59', REPEAT('e', 300), '[1, \"s\", true]', -0.5, 'y'), "
    "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
    "(4, 'Four', 99999999.99, '2038-01-19 03:14:07', '', '\"text\"', 0, 'z')",
    "INSERT INTO fz.t2 VALUES (1, 1, x'00ff', 'a,c', '-838:59:59', 2155, '2000-02-29', -128, 3.5, "
    "x'0102', '2020-06-01 00:00:00'), "
    "(18446744073709551615, 2, NULL, '', '00:00:00.5', 1901, '9999-12-31', 127, NULL, '', NULL), "
    "(7, NULL, REPEAT(x'ab', 1000), 'b', NULL, NULL, NULL, 0, -1e-5, NULL, NULL)",
    "INSERT INTO fz.t3 (k, m) VALUES ('abc', 'x'), ('Straße', 'yy'), ('ÅÄÖ', NULL), ('', '')",
};

class FuzzHooks : public TransactionHooks, public binlog::CommitHooks {
 public:
  Status BeforeCommit(const Param&) override { return Status::OK(); }
  Status AfterCommit(const Param&) override { return Status::OK(); }
  Status AfterRollback(const Param&) override { return Status::OK(); }
  void AfterFlush(const std::string&, uint64_t) override {}
  bool WantsAfterSync() const override { return false; }
};

// The rest of the process as statements see it: no other session, nothing
// to install; reads as shutting down so that waits end at once.
class FuzzControl : public ServerControl {
 public:
  std::vector<ProcessInfo> ProcessList() const override { return {}; }
  Status Kill(uint32_t id, bool) override { return MakeError(er::kNoSuchThread, id); }
  void Shutdown(std::string_view) override {}
  bool shutting_down() const override { return true; }
  std::vector<ReplicaInfo> Replicas() const override { return {}; }
  Status InstallPlugin(const std::string& name, const std::string&) override {
    return MakeError(er::kCantOpenLibrary, name, 2, "not in the fuzzer");
  }
  Status UninstallPlugin(const std::string& name) override { return MakeError(er::kSpDoesNotExist, "PLUGIN", name); }
  void AfterResetMaster() override {}
};

void Check(bool ok, std::string_view what, const Status& st) {
  if (ok) return;
  std::fprintf(stderr, "fuzz_exec: %.*s: %s\n", static_cast<int>(what.size()), what.data(), st.ToString().c_str());
  std::abort();
}

// Everything a statement reaches, made in a directory of its own.
class World {
 public:
  explicit World(const fs::path& dir) {
    ExecWorld::Options o;
    o.dir = dir;
    o.sync_binlog = 0;  // nothing here outlives the process
    o.hooks = &hooks_;
    o.commit_hooks = &hooks_;
    o.control = &control_;
    auto w = ExecWorld::Open(o);
    Check(w.ok(), "world", w.status());
    w_ = std::move(w).value();
  }

  const ExecEnv& env() const { return w_->env(); }

  // A root session in no database.
  std::unique_ptr<SessionContext> NewSession(uint32_t id) {
    auto ctx = std::make_unique<SessionContext>();
    Status st = w_->Login(*ctx, id, "root", "localhost");
    Check(st.ok(), "login", st);
    return ctx;
  }

 private:
  FuzzHooks hooks_;
  FuzzControl control_;
  std::unique_ptr<ExecWorld> w_;  // goes before the hooks it calls
};

// KILL QUERY for a statement that runs past a second.
class Watchdog {
 public:
  Watchdog() : thread_([this] { Loop(); }) { thread_.detach(); }

  void Start(SessionContext* ctx) {
    std::lock_guard<std::mutex> l(mu_);
    ctx_ = ctx;
    started_ = std::chrono::steady_clock::now();
  }
  void Stop() {
    std::lock_guard<std::mutex> l(mu_);
    ctx_ = nullptr;
  }

 private:
  void Loop() {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      std::lock_guard<std::mutex> l(mu_);
      if (ctx_ != nullptr && std::chrono::steady_clock::now() - started_ > std::chrono::seconds(1)) {
        int none = static_cast<int>(KillState::kNone);
        ctx_->killed.compare_exchange_strong(none, static_cast<int>(KillState::kQuery));
      }
    }
  }

  std::mutex mu_;
  SessionContext* ctx_ = nullptr;
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;
};

Outcome RunOne(const ExecEnv& env, SessionContext& ctx, Watchdog& dog, const sql::ParsedStatement& ps) {
  ctx.warnings.clear();
  int killed = static_cast<int>(KillState::kQuery);
  ctx.killed.compare_exchange_strong(killed, static_cast<int>(KillState::kNone));  // spent, as between commands
  dog.Start(&ctx);
  Outcome o = RunStatement(env, ctx, ps, nullptr, nullptr);
  dog.Stop();
  return o;
}

// Runs `text` statement by statement: the first error, if any (a text
// that does not parse is a 1064 like any other). Stops once the session
// is killed.
Status RunText(const ExecEnv& env, SessionContext& ctx, Watchdog& dog, std::string_view text) {
  Status first;
  sql::Parser parser(text);
  while (!parser.AtEnd()) {
    auto parsed = parser.Next();
    if (!parsed.ok()) return first.ok() ? parsed.status() : first;
    Outcome o = RunOne(env, ctx, dog, *parsed);
    if (first.ok() && !o.error.ok()) first = o.error;
    if (ctx.kill_state() == KillState::kConnection) break;
  }
  return first;
}

std::unique_ptr<World> world;
int inputs_in_world = 0;
uint32_t next_session = 1;
Watchdog* watchdog = nullptr;

// `fz` made in the current world; false when a statement failed (an
// earlier input took root's privileges, say).
bool MakeSchema(const fs::path& dir, bool fresh) {
  if (world == nullptr) world = std::make_unique<World>(dir);
  auto setup = world->NewSession(next_session++);
  Status st;
  for (const char* stmt : kSchema) {
    st = RunText(world->env(), *setup, *watchdog, stmt);
    Check(!fresh || st.ok(), stmt, st);  // a fresh world must take the schema
    if (!st.ok()) break;
  }
  TableExecutor::EndSession(world->env(), *setup);
  return st.ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = fs::temp_directory_path() / ("sluice_fuzz_exec_" + std::to_string(::getpid()));
  if (watchdog == nullptr) watchdog = new Watchdog();
  if (++inputs_in_world > kInputsPerWorld) {
    world.reset();
    inputs_in_world = 1;
  }
  if (!MakeSchema(dir, world == nullptr)) {
    world.reset();
    inputs_in_world = 1;
    MakeSchema(dir, true);
  }
  const ExecEnv& env = world->env();
  {
    // Two sessions; the input's \x02 bytes pass the turn from one to the
    // other. A wait for a lock the other holds ends after a second (1205,
    // or the watchdog's KILL QUERY when the input raised the timeouts).
    std::unique_ptr<SessionContext> sessions[2];
    for (auto& ctx : sessions) {
      ctx = world->NewSession(next_session++);
      ctx->db = "fz";
      (void)RunText(env, *ctx, *watchdog, "SET innodb_lock_wait_timeout = 1, lock_wait_timeout = 1");
    }
    std::string_view text(reinterpret_cast<const char*>(data), size);
    for (size_t turn = 0;; ++turn) {
      const size_t cut = text.find('\x02');
      SessionContext& ctx = *sessions[turn % 2];
      if (ctx.kill_state() != KillState::kConnection) (void)RunText(env, ctx, *watchdog, text.substr(0, cut));
      if (cut == std::string_view::npos) break;
      text.remove_prefix(cut + 1);
    }
    for (auto& ctx : sessions) TableExecutor::EndSession(env, *ctx);
  }
  {
    // Whatever the input did to the session's state or the global one,
    // `fz` goes; where it cannot, the next input starts a new world.
    auto cleanup = world->NewSession(next_session++);
    (void)RunText(env, *cleanup, *watchdog, "SET GLOBAL super_read_only = OFF");
    (void)RunText(env, *cleanup, *watchdog, "SET GLOBAL read_only = OFF");
    (void)RunText(env, *cleanup, *watchdog, "SET FOREIGN_KEY_CHECKS = 0");
    Status st = RunText(env, *cleanup, *watchdog, "DROP DATABASE IF EXISTS fz");
    TableExecutor::EndSession(env, *cleanup);
    if (!st.ok()) world.reset();
  }
  return 0;
}
