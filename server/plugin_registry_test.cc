#include "server/plugin_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <sys/socket.h>

#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>

#include "binlog/binlog.h"
#include "binlog/event.h"
#include "protocol/packet.h"
#include "server/rpl/binlog_sender.h"
#include "server/rpl/delegates.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLib = "sluice_example_plugin.so";

// Lines of /proc/self/maps naming `lib`.
int MappedCount(const std::string& lib) {
  std::ifstream in("/proc/self/maps");
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find(lib) != std::string::npos;
  return n;
}

class PluginRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("plugin_registry_test_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "mysql");
    registry_ = Make();
  }
  void TearDown() override {
    registry_.reset();
    fs::remove_all(dir_);
  }
  std::unique_ptr<PluginRegistry> Make() {
    PluginRegistry::Options o;
    o.plugin_dir = SLUICE_TEST_PLUGIN_DIR;
    o.datadir = dir_.string();
    o.sys_vars = &sys_;
    o.status_vars = &status_;
    o.replication = &rpl_;
    return std::make_unique<PluginRegistry>(std::move(o));
  }
  Result<sql::Value> Var(const std::string& name) { return sys_.Get(name, vars::GetScope::kGlobal, nullptr); }
  Status SetVar(const std::string& name, sql::Value v) {
    return sys_.Set(name, vars::SetScope::kGlobal, v, nullptr, &warnings_);
  }
  std::string Stat(const std::string& name) {
    auto r = status_.Get(name, vars::StatusScope::kGlobal, nullptr);
    return r.ok() ? r.value() : "<" + r.status().message() + ">";
  }
  // transmit_start for a dump connection that set @sluice_example_observe
  // (the example plugin observes it).
  Result<rpl::TransmitSession> StartObservedDump() {
    rpl::TransmitParam asked;
    asked.user_var = [](std::string_view n) {
      return n == "sluice_example_observe" ? std::string("1") : std::string();
    };
    return rpl_.TransmitStart(asked, "binlog.000001", 4);
  }
  // Installs the semisync source and turns it ON (timeout 30 s).
  void StartSemisyncSource() {
    ASSERT_TRUE(registry_->Install("rpl_semi_sync_source", "semisync_source.so").ok());
    ASSERT_TRUE(SetVar("rpl_semi_sync_source_timeout", sql::Value::Int(30000)).ok());
    ASSERT_TRUE(SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(1)).ok());
    ASSERT_EQ(Stat("Rpl_semi_sync_source_status"), "ON");
  }

  fs::path dir_;
  vars::SystemVariables sys_;
  vars::StatusVariables status_;
  rpl::Registry rpl_;
  std::vector<Status> warnings_;
  std::unique_ptr<PluginRegistry> registry_;
};

TEST_F(PluginRegistryTest, InstallUninstallRoundTrip) {
  EXPECT_EQ(Var("sluice_example_enabled").status().mysql_errno(), 1193);
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  EXPECT_TRUE(registry_->IsInstalled("SLUICE_EXAMPLE"));
  ASSERT_TRUE(Var("sluice_example_enabled").ok());
  EXPECT_EQ(Var("sluice_example_enabled")->ToInt(), 0);
  EXPECT_EQ(Var("sluice_example_limit")->ToInt(), 10);
  EXPECT_EQ(Stat("Sluice_example_limit"), "10");
  EXPECT_EQ(Stat("Sluice_example_enabled"), "OFF");

  // Storage, on_update and a check of the plugin's own.
  ASSERT_TRUE(SetVar("sluice_example_enabled", sql::Value::String("ON")).ok());
  EXPECT_EQ(Stat("Sluice_example_enabled"), "ON");
  ASSERT_TRUE(SetVar("sluice_example_limit", sql::Value::Int(20)).ok());
  EXPECT_EQ(Stat("Sluice_example_limit"), "20");
  Status s = SetVar("sluice_example_limit", sql::Value::Int(13));
  EXPECT_EQ(s.mysql_errno(), 1231) << s.ToString();
  EXPECT_EQ(Stat("Sluice_example_limit"), "20");
  warnings_.clear();
  ASSERT_TRUE(SetVar("sluice_example_limit", sql::Value::Int(5000)).ok());
  EXPECT_EQ(Var("sluice_example_limit")->ToInt(), 1000);
  EXPECT_EQ(warnings_.size(), 1u);

  // List: built-ins first, then the plugin with its library.
  auto list = registry_->List();
  ASSERT_GE(list.size(), 5u);
  EXPECT_EQ(list[0].name, "binlog");
  EXPECT_EQ(list.back().name, "sluice_example");
  EXPECT_EQ(list.back().library, kLib);
  EXPECT_EQ(list.back().version, "1.0");

  // The old name of a variable and of a status variable (aliases).
  ASSERT_TRUE(SetVar("sluice_example_old_limit", sql::Value::Int(30)).ok());
  EXPECT_EQ(Var("sluice_example_limit")->ToInt(), 30);
  EXPECT_EQ(Stat("Sluice_example_old_limit"), "30");

  ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  EXPECT_FALSE(registry_->IsInstalled("sluice_example"));
  EXPECT_EQ(Var("sluice_example_enabled").status().mysql_errno(), 1193);
  EXPECT_EQ(Var("sluice_example_old_limit").status().mysql_errno(), 1193);
  EXPECT_EQ(Stat("Sluice_example_old_limit")[0], '<');
  EXPECT_EQ(SetVar("sluice_example_limit", sql::Value::Int(1)).mysql_errno(), 1193);
  EXPECT_EQ(Stat("Sluice_example_limit")[0], '<');
}

TEST_F(PluginRegistryTest, Errors) {
  Status s = registry_->Install("sluice_example", "../plugin/sluice_example_plugin.so");
  EXPECT_EQ(s.mysql_errno(), 1124);
  EXPECT_EQ(s.message(), "No paths allowed for shared library");
  s = registry_->Install("sluice_example", "no_such_lib.so");
  EXPECT_EQ(s.mysql_errno(), 1126);
  EXPECT_NE(s.message().find("Can't open shared library '"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("cannot open shared object file"), std::string::npos) << s.message();
  s = registry_->Install("no_such_plugin", kLib);
  EXPECT_EQ(s.mysql_errno(), 1127) << s.ToString();
  s = registry_->Install("sluice_wrong_abi", "sluice_wrong_abi_plugin.so");
  EXPECT_EQ(s.mysql_errno(), 1126);
  EXPECT_NE(s.message().find("was built for plugin ABI 2.0, the server has 1.3"), std::string::npos) << s.message();
  s = registry_->Install("InnoDB", kLib);
  EXPECT_EQ(s.mysql_errno(), 1125);

  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  s = registry_->Install("Sluice_Example", kLib);
  EXPECT_EQ(s.mysql_errno(), 1125);
  EXPECT_EQ(s.message(), "Function 'Sluice_Example' already exists");

  s = registry_->Uninstall("nope");
  EXPECT_EQ(s.mysql_errno(), 1305);
  EXPECT_EQ(s.message(), "PLUGIN nope does not exist");
  EXPECT_EQ(registry_->Uninstall("InnoDB").mysql_errno(), 1619);

  // check_uninstall refuses with the plugin's own error.
  ASSERT_TRUE(SetVar("sluice_example_refuse_uninstall", sql::Value::Int(1)).ok());
  s = registry_->Uninstall("sluice_example");
  EXPECT_EQ(s.mysql_errno(), 1883);
  EXPECT_TRUE(registry_->IsInstalled("sluice_example"));
  ASSERT_TRUE(SetVar("sluice_example_refuse_uninstall", sql::Value::Int(0)).ok());
  EXPECT_TRUE(registry_->Uninstall("sluice_example").ok());
}

TEST_F(PluginRegistryTest, ObserversRunAndGoAtUninstall) {
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  EXPECT_EQ(rpl_.trans().read().size(), 1u);
  EXPECT_EQ(rpl_.transmit().read().size(), 1u);
  rpl::TransObserver::Param p;
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(rpl_.AfterCommit(p).ok());
  EXPECT_EQ(Stat("Sluice_example_after_commits"), "7");

  // transmit_start: observed only with the user variable set.
  rpl::TransmitParam plain;
  plain.user_var = [](std::string_view) { return std::string(); };
  auto session = rpl_.TransmitStart(plain, "binlog.000001", 4);
  ASSERT_TRUE(session.ok());
  EXPECT_FALSE(session->observed());
  auto observed = StartObservedDump();
  ASSERT_TRUE(observed.ok());
  EXPECT_TRUE(observed->observed());
  EXPECT_EQ(Stat("Sluice_example_transmit_starts"), "2");
  EXPECT_EQ(Stat("Sluice_example_observed_dumps"), "1");
  observed->Stop();

  ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  EXPECT_TRUE(rpl_.trans().empty());
  EXPECT_TRUE(rpl_.transmit().empty());
  // Counters restart at the next install (the library may stay mapped).
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  EXPECT_EQ(Stat("Sluice_example_after_commits"), "0");
}

TEST_F(PluginRegistryTest, UninstallWhileAnObservedDumpStreams) {
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  auto session = StartObservedDump();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->observed());
  ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  // Unregistered at once; the dump connection's hooks are no-ops now, and
  // the library stays mapped until that connection lets go.
  EXPECT_TRUE(rpl_.transmit().empty());
  std::string packet = "x";
  EXPECT_TRUE(session->ReserveHeader(packet).ok());
  EXPECT_EQ(packet, "x");
  EXPECT_GT(MappedCount(kLib), 0);
  session->Stop();
  EXPECT_EQ(MappedCount(kLib), 0);
}

// A dump thread enters an observing plugin's call gate once per run of
// events (TransmitSession::Events): UNINSTALL waits for the run as for a
// hook call, and the run's hooks after it are turned away.
TEST_F(PluginRegistryTest, UninstallWaitsForARunOfEvents) {
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  auto session = StartObservedDump();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(session->observed());
  auto run = std::make_unique<rpl::TransmitSession::Events>(*session);
  std::string packet = "x";
  EXPECT_TRUE(session->ReserveHeader(packet).ok());
  auto uninstall = std::async(std::launch::async, [&] { return registry_->Uninstall("sluice_example"); });
  EXPECT_EQ(uninstall.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
  run.reset();
  EXPECT_TRUE(uninstall.get().ok());
  EXPECT_TRUE(rpl_.transmit().empty());
  // The next run does not pin a retired gate, and its hooks are no-ops.
  run = std::make_unique<rpl::TransmitSession::Events>(*session);
  EXPECT_TRUE(session->ReserveHeader(packet).ok());
  EXPECT_EQ(packet, "x");
  run.reset();
  session->Stop();
  EXPECT_EQ(MappedCount(kLib), 0);
}

TEST_F(PluginRegistryTest, HooksAndReadsRaceInstallAndUninstall) {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> calls{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      rpl::TransObserver::Param p;
      while (!stop.load()) {
        EXPECT_TRUE(rpl_.AfterCommit(p).ok());
        if (i == 0) (void)sys_.Get("sluice_example_limit", vars::GetScope::kGlobal, nullptr);
        if (i == 1) (void)status_.List(vars::StatusScope::kGlobal, nullptr);
        calls.fetch_add(1);
      }
    });
  }
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
    ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  }
  stop = true;
  for (auto& t : threads) t.join();
  EXPECT_GT(calls.load(), 0u);
  EXPECT_TRUE(rpl_.trans().empty());
  EXPECT_EQ(MappedCount(kLib), 0);
}

TEST_F(PluginRegistryTest, RecordedAndLoadedAgain) {
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  ASSERT_TRUE(SetVar("sluice_example_limit", sql::Value::Int(42)).ok());
  std::ifstream in(dir_ / "mysql" / "plugin.tsv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "sluice_example\tsluice_example_plugin.so\n");
  registry_.reset();  // shutdown: deinit, variables gone
  EXPECT_EQ(Var("sluice_example_limit").status().mysql_errno(), 1193);

  registry_ = Make();
  registry_->LoadAtStart({});
  EXPECT_TRUE(registry_->IsInstalled("sluice_example"));
  EXPECT_EQ(registry_->Recorded().size(), 1u);
  ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  registry_ = Make();
  registry_->LoadAtStart({});
  EXPECT_FALSE(registry_->IsInstalled("sluice_example"));
}

TEST_F(PluginRegistryTest, PluginLoadAtStartIsNotRecorded) {
  registry_->LoadAtStart({"sluice_example_plugin.so", "missing=missing.so;sluice_wrong_abi=sluice_wrong_abi_plugin.so"});
  EXPECT_TRUE(registry_->IsInstalled("sluice_example"));
  EXPECT_TRUE(registry_->IsInstalled("sluice_example_two"));
  EXPECT_FALSE(registry_->IsInstalled("missing"));
  EXPECT_FALSE(registry_->IsInstalled("sluice_wrong_abi"));
  EXPECT_TRUE(registry_->Recorded().empty());
  EXPECT_FALSE(fs::exists(dir_ / "mysql" / "plugin.tsv"));
}

TEST_F(PluginRegistryTest, LooseStartupValuesUnlessPersisted) {
  PluginRegistry::Options o;
  o.plugin_dir = SLUICE_TEST_PLUGIN_DIR;
  o.sys_vars = &sys_;
  o.status_vars = &status_;
  o.replication = &rpl_;
  o.startup_values = {{"sluice_example_limit", "7"}, {"sluice_example_enabled", "ON"},
                      {"sluice_example_old_limit", "8"}};  // the alias, later: wins
  registry_ = std::make_unique<PluginRegistry>(std::move(o));
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  EXPECT_EQ(Var("sluice_example_limit")->ToInt(), 8);
  EXPECT_EQ(Var("sluice_example_enabled")->ToInt(), 1);
  EXPECT_EQ(Stat("Sluice_example_limit"), "8");  // storage written
  EXPECT_EQ(Stat("Sluice_example_enabled"), "ON");  // read at init
}

TEST_F(PluginRegistryTest, ParsePluginLoad) {
  auto r = PluginRegistry::ParsePluginLoad("a=a.so; b=b.so;c.so;");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[1], (std::pair<std::string, std::string>("b", "b.so")));
  EXPECT_EQ((*r)[2], (std::pair<std::string, std::string>("", "c.so")));
  EXPECT_FALSE(PluginRegistry::ParsePluginLoad("=x.so").ok());
  EXPECT_FALSE(PluginRegistry::ParsePluginLoad("").ok());
}

TEST_F(PluginRegistryTest, RepeatedInstallKeepsMappingsFlat) {
  ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
  ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  const int base = MappedCount(kLib);
  for (int i = 0; i < 200; ++i) {
    ASSERT_TRUE(registry_->Install("sluice_example", kLib).ok());
    ASSERT_TRUE(registry_->Uninstall("sluice_example").ok());
  }
  EXPECT_LE(MappedCount(kLib), base);
  EXPECT_EQ(base, 0);  // UNINSTALL closed the library
}


// ---------------------------------------------------------------- semisync

// A dump connection over a socketpair: the test plays the replica on the
// other end (writes acks); packets sent go to memory.
class PairConnection : public rpl::DumpConnection, public rpl::PacketSink {
 public:
  PairConnection() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  ~PairConnection() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  int fd() const override { return fds_[0]; }
  int ReadPacket(std::string* payload, size_t max, bool /*defer*/) override {
    std::lock_guard l(mu_);
    for (;;) {
      if (int taken = protocol::TakePacket(&in_, payload, max); taken != 0) return taken;
      char buf[512];
      ssize_t n = ::recv(fds_[0], buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        in_.append(buf, static_cast<size_t>(n));
        continue;
      }
      return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
  }
  Status Flush(int next_seq) override {
    if (next_seq >= 0) flushes_for_ack.fetch_add(1);
    return Status::OK();
  }
  void Close() override {
    closed = true;
    ::shutdown(fds_[0], SHUT_RDWR);
  }
  void Raw(const std::string& bytes) {
    ASSERT_EQ(::write(fds_[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  std::atomic<bool> closed{false};
  Status Send(std::string_view payload) override {
    std::lock_guard l(mu_);
    packets.emplace_back(payload);
    return Status::OK();
  }
  Status Flush() override { return Status::OK(); }
  // The replica's ack for (file, pos), sequence id 0.
  void Ack(const std::string& file, uint64_t pos) {
    std::string body(1, '\xEF');
    for (int i = 0; i < 8; ++i) body.push_back(static_cast<char>(pos >> (8 * i)));
    body += file;
    std::string pkt;
    pkt.push_back(static_cast<char>(body.size()));
    pkt.push_back(static_cast<char>(body.size() >> 8));
    pkt.push_back(static_cast<char>(body.size() >> 16));
    pkt.push_back('\0');
    pkt += body;
    ASSERT_EQ(::write(fds_[1], pkt.data(), pkt.size()), static_cast<ssize_t>(pkt.size()));
  }
  std::vector<std::string> Packets() {
    std::lock_guard l(mu_);
    return packets;
  }
  std::atomic<int> flushes_for_ack{0};

 private:
  int fds_[2];
  std::mutex mu_;
  std::string in_;
  std::vector<std::string> packets;
};

// Runs `run` when it goes out of scope (a test's clean-up that must happen
// even when an assertion returns early).
struct AtExit {
  std::function<void()> run;
  ~AtExit() { run(); }
};

// Polls `done` every 10 ms for up to 5 s; fails with `what` if it never
// holds (wrap the call in ASSERT_NO_FATAL_FAILURE).
template <typename Done>
void Await(Done done, const char* what) {
  for (int i = 0; i < 500 && !done(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(done()) << what;
}

// A binlog under dir/binlog, writing, with the registry's commit hooks.
std::unique_ptr<binlog::Binlog> OpenTestBinlog(const fs::path& dir, rpl::Registry& rpl) {
  fs::path bdir = dir / "binlog";
  fs::create_directories(bdir);
  binlog::Binlog::Options o;
  o.dir = bdir.string();
  o.server_id = 1;
  o.server_uuid = *binlog::Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562");
  auto opened = binlog::Binlog::Open(o, nullptr);
  EXPECT_TRUE(opened.ok());
  if (!opened.ok()) return nullptr;
  std::unique_ptr<binlog::Binlog> bl = std::move(opened).value();
  EXPECT_TRUE(bl->StartWriting().ok());
  bl->set_hooks(&rpl);
  return bl;
}

// Commits BEGIN ... Xid `xid` (after_sync included), then CommitDone as
// a session after its engine commit; the transaction's end.
binlog::Binlog::CommitResult CommitXid(binlog::Binlog& bl, uint64_t xid) {
  binlog::TransactionCache c;
  c.set_checksum(binlog::Checksum::kCrc32);
  binlog::EventHeader h;
  h.type = binlog::kQueryEvent;
  h.server_id = 1;
  binlog::QueryInfo q;
  q.query = "BEGIN";
  EXPECT_TRUE(c.Append(binlog::EncodeQuery(h, q, binlog::Checksum::kCrc32)).ok());
  h.type = binlog::kXidEvent;
  EXPECT_TRUE(c.Append(binlog::EncodeXid(h, xid, binlog::Checksum::kCrc32)).ok());
  binlog::Binlog::CommitResult written;
  EXPECT_TRUE(bl.Commit(c, 1, &written).ok());
  bl.CommitDone();
  return written;
}

// A dump from the first file's start to `conn` until `stop`; a semisync
// one sets @rpl_semi_sync_replica. The sender's hook calls go to hook_calls.
Status RunTestSender(binlog::Binlog& bl, rpl::Registry& rpl, PairConnection& conn, uint32_t server_id,
                     bool semisync, const std::atomic<bool>& stop, std::atomic<uint64_t>& hook_calls) {
  rpl::DumpRequest req;
  req.server_id = server_id;
  rpl::SenderOptions so;
  so.reader_checksum = binlog::Checksum::kCrc32;
  so.server_id = 1;
  so.poll = std::chrono::milliseconds(20);
  rpl::TransmitParam p;
  p.server_id = server_id;
  p.connection = &conn;
  p.user_var = [semisync](std::string_view n) {
    return semisync && n == "rpl_semi_sync_replica" ? std::string("1") : std::string();
  };
  rpl::BinlogSender sender(bl, rpl, req, so, p, conn, stop);
  Status s = sender.Run();
  hook_calls = sender.counters().hook_calls.load();
  return s;
}

// The semisync source on a real binlog: a plain reader beside a semisync
// one makes no hook call and takes no registry lock per event; the
// semisync reader's events carry EF 00 and the group end asks for an ack;
// while transaction 1 waits in after_sync for its ack, transaction 2 is
// written and synced (the pipeline), and one ack for 2's end releases
// both; a malformed ack closes the connection.
TEST_F(PluginRegistryTest, SemisyncSourceAcksPipelineAndPlainReaders) {
  std::unique_ptr<binlog::Binlog> bl = OpenTestBinlog(dir_, rpl_);
  ASSERT_NE(bl, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartSemisyncSource());

  auto commit = [&](uint64_t xid) { return CommitXid(*bl, xid); };
  std::atomic<bool> stop{false};
  auto run_sender = [&](PairConnection& conn, uint32_t server_id, bool semisync, std::atomic<uint64_t>& hook_calls) {
    return RunTestSender(*bl, rpl_, conn, server_id, semisync, stop, hook_calls);
  };
  PairConnection semi, plain;
  std::atomic<uint64_t> semi_hooks{0}, plain_hooks{0};
  const uint64_t locks = rpl_.transmit().lock_acquisitions();
  auto semi_done = std::async(std::launch::async, [&] { return run_sender(semi, 11, true, semi_hooks); });
  auto plain_done = std::async(std::launch::async, [&] { return run_sender(plain, 12, false, plain_hooks); });
  for (int i = 0; i < 500 && Stat("Rpl_semi_sync_source_clients") != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Stat("Rpl_semi_sync_source_clients"), "1");

  // Transaction 1 waits in after_sync, inside Binlog::Commit (no ack yet).
  std::future<binlog::Binlog::CommitResult> t1, t2;
  AtExit cleanup{[&] {  // on a failed assertion: end the waits and the dumps
    (void)SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0));
    stop = true;
  }};
  t1 = std::async(std::launch::async, [&] { return commit(1); });
  for (int i = 0; i < 500 && Stat("Rpl_semi_sync_source_wait_sessions") != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Stat("Rpl_semi_sync_source_wait_sessions"), "1");
  // The semisync reader has sent it and asked for an ack (else, on a busy
  // machine, it could read both transactions below as one batch).
  for (int i = 0; i < 500 && semi.flushes_for_ack.load() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(semi.flushes_for_ack.load(), 1);
  // ... and meanwhile transaction 2 is written, synced and published, and
  // waits too.
  t2 = std::async(std::launch::async, [&] { return commit(2); });
  for (int i = 0; i < 500 && Stat("Rpl_semi_sync_source_wait_sessions") != "2"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Stat("Rpl_semi_sync_source_wait_sessions"), "2");
  EXPECT_EQ(bl->stats().commits, 2u);
  EXPECT_EQ(t1.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  // The semisync reader got both; each group end, the newest when sent,
  // asked for an ack.
  for (int i = 0; i < 500 && semi.flushes_for_ack.load() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(semi.flushes_for_ack.load(), 2);
  // One ack for transaction 2's end releases both waits.
  const binlog::Binlog::End published = bl->end();
  semi.Ack(bl->FileName(published.file_number), published.offset);
  ASSERT_EQ(t1.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  ASSERT_EQ(t2.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const binlog::Binlog::CommitResult w1 = t1.get();
  const binlog::Binlog::CommitResult w2 = t2.get();
  EXPECT_GT(w2.end, w1.end);
  EXPECT_EQ(published.offset, w2.end);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "2");
  EXPECT_EQ(Stat("Rpl_semi_sync_source_no_tx"), "0");

  // Every semisync packet has EF; the flag byte is 01 exactly on the Xid
  // events ending at w1.end and w2.end. The plain reader's have neither.
  int flagged = 0;
  for (const std::string& pk : semi.Packets()) {
    ASSERT_GE(pk.size(), 3u);
    EXPECT_EQ(static_cast<uint8_t>(pk[1]), 0xEF);
    flagged += pk[2] == 1;
  }
  EXPECT_EQ(flagged, 2);
  const auto plain_packets = plain.Packets();
  ASSERT_FALSE(plain_packets.empty());
  for (const std::string& pk : plain_packets) EXPECT_NE(static_cast<uint8_t>(pk[1]), 0xEF);

  // A malformed ack ends the semisync connection; the plain one goes on.
  semi.Ack(w1.file, 4);  // well formed but behind: changes nothing
  semi.Raw(std::string("\x03\x00\x00\x00\x45\x46\x47", 7));  // no EF magic
  for (int i = 0; i < 500 && !semi.closed.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(semi.closed.load());
  EXPECT_FALSE(plain.closed.load());
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "2");
  stop = true;
  ASSERT_TRUE(semi_done.get().ok());
  ASSERT_TRUE(plain_done.get().ok());
  EXPECT_GT(semi_hooks.load(), 0u);
  EXPECT_EQ(plain_hooks.load(), 0u);
  EXPECT_EQ(rpl_.transmit().lock_acquisitions(), locks);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_clients"), "0");
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0)).ok());
  ASSERT_TRUE(registry_->Uninstall("rpl_semi_sync_source").ok());
  bl->set_hooks(nullptr);
}

// A semisync reader that finds several groups waiting asks for one ack, at
// the newest: an ack answers for every earlier position. Three transactions
// are written (semisync ON, no replica yet) and wait in after_sync, in one
// group or several; the reader then starts from the file's beginning and
// gets them in one batch. Only the last group's Xid is flagged, and its ack
// releases all three. A fourth transaction, the newest when it is sent,
// asks at once, and its commit waits until that ack.
TEST_F(PluginRegistryTest, SemisyncSourceAsksOnceForGroupsSentTogether) {
  std::unique_ptr<binlog::Binlog> bl = OpenTestBinlog(dir_, rpl_);
  ASSERT_NE(bl, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartSemisyncSource());

  PairConnection semi;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hooks{0};
  std::vector<std::future<binlog::Binlog::CommitResult>> commits;
  std::future<Status> semi_done;
  AtExit cleanup{[&] {  // on a failed assertion: end the waits and the dump
    (void)SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0));
    stop = true;
  }};

  for (uint64_t xid = 1; xid <= 3; ++xid) {
    commits.push_back(std::async(std::launch::async, [&bl, xid] { return CommitXid(*bl, xid); }));
  }
  // All three written, and every group's leader waiting in after_sync (so
  // each group's end is published: commits counts a group before its sync).
  auto all_waiting = [&] {
    const binlog::Binlog::Stats st = bl->stats();
    return st.commits == 3 && Stat("Rpl_semi_sync_source_wait_sessions") == std::to_string(st.groups);
  };
  for (int i = 0; i < 500 && !all_waiting(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(all_waiting());
  const binlog::Binlog::End batch_end = bl->end();

  semi_done = std::async(std::launch::async, [&] { return RunTestSender(*bl, rpl_, semi, 11, true, stop, hooks); });
  for (int i = 0; i < 500 && semi.flushes_for_ack.load() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(semi.flushes_for_ack.load(), 1);
  EXPECT_EQ(commits[0].wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  const std::string file = bl->FileName(batch_end.file_number);
  semi.Ack(file, batch_end.offset);
  uint64_t last_end = 0;
  for (auto& c : commits) {
    ASSERT_EQ(c.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    last_end = std::max(last_end, c.get().end);
  }
  EXPECT_EQ(last_end, batch_end.offset);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "3");

  // Exactly one flagged packet, the Xid ending at the batch's end (log_pos
  // is the event header's bytes 13..16, after the OK byte and EF 01).
  int flagged = 0;
  for (const std::string& pk : semi.Packets()) {
    ASSERT_GE(pk.size(), 3u);
    if (pk[2] != 1) continue;
    ++flagged;
    ASSERT_GE(pk.size(), 3u + 17u);
    uint32_t log_pos = 0;
    for (int i = 0; i < 4; ++i) log_pos |= static_cast<uint32_t>(static_cast<uint8_t>(pk[3 + 13 + i])) << (8 * i);
    EXPECT_EQ(log_pos, batch_end.offset);
  }
  EXPECT_EQ(flagged, 1);

  // The next transaction is the newest when it goes: it asks at once.
  auto t4 = std::async(std::launch::async, [&] { return CommitXid(*bl, 4); });
  for (int i = 0; i < 500 && semi.flushes_for_ack.load() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(semi.flushes_for_ack.load(), 2);
  EXPECT_EQ(t4.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  semi.Ack(file, bl->end().offset);
  ASSERT_EQ(t4.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(t4.get().end, bl->end().offset);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "4");

  stop = true;
  ASSERT_TRUE(semi_done.get().ok());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0)).ok());
  ASSERT_TRUE(registry_->Uninstall("rpl_semi_sync_source").ok());
  bl->set_hooks(nullptr);
}

// While commits wait, one of them reads the acks (docs/semisync.md, Acks).
// Two transactions wait in after_sync, each asked for its own ack; an ack
// for the first releases it alone, and the second, with no commit coming
// after it, must then read its own ack: a hand-off that did not happen
// would leave it waiting for the 30 s timeout, with the ack thread paused.
TEST_F(PluginRegistryTest, SemisyncSourceReleasedReceiverHandsOn) {
  std::unique_ptr<binlog::Binlog> bl = OpenTestBinlog(dir_, rpl_);
  ASSERT_NE(bl, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartSemisyncSource());

  PairConnection semi;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hooks{0};
  std::future<binlog::Binlog::CommitResult> t1, t2;
  AtExit cleanup{[&] {  // on a failed assertion: end the waits and the dump
    (void)SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0));
    stop = true;
  }};
  auto semi_done = std::async(std::launch::async, [&] { return RunTestSender(*bl, rpl_, semi, 11, true, stop, hooks); });
  for (int i = 0; i < 500 && Stat("Rpl_semi_sync_source_clients") != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Stat("Rpl_semi_sync_source_clients"), "1");

  t1 = std::async(std::launch::async, [&] { return CommitXid(*bl, 1); });
  ASSERT_NO_FATAL_FAILURE(Await([&] { return Stat("Rpl_semi_sync_source_wait_sessions") == "1"; }, "t1 waits"));
  ASSERT_NO_FATAL_FAILURE(Await([&] { return semi.flushes_for_ack.load() == 1; }, "t1 asked for its ack"));
  const binlog::Binlog::End first = bl->end();
  t2 = std::async(std::launch::async, [&] { return CommitXid(*bl, 2); });
  ASSERT_NO_FATAL_FAILURE(Await([&] { return Stat("Rpl_semi_sync_source_wait_sessions") == "2"; }, "t2 waits"));
  ASSERT_NO_FATAL_FAILURE(Await([&] { return semi.flushes_for_ack.load() == 2; }, "t2 asked for its ack"));
  const binlog::Binlog::End second = bl->end();
  ASSERT_GT(second.offset, first.offset);

  semi.Ack(bl->FileName(first.file_number), first.offset);
  ASSERT_EQ(t1.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(t1.get().end, first.offset);
  EXPECT_EQ(t2.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_wait_sessions"), "1");
  semi.Ack(bl->FileName(second.file_number), second.offset);
  ASSERT_EQ(t2.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(t2.get().end, second.offset);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "2");
  EXPECT_EQ(Stat("Rpl_semi_sync_source_no_tx"), "0");

  stop = true;
  ASSERT_TRUE(semi_done.get().ok());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0)).ok());
  ASSERT_TRUE(registry_->Uninstall("rpl_semi_sync_source").ok());
  bl->set_hooks(nullptr);
}

// A connection whose reads may wait for the dump thread's writes (as on
// TLS), here for as long as the test holds them, as a write to a replica
// that stopped reading would: a read that may defer answers kBusy (as the
// server's TLS connection does after its moment's wait), one that may not
// waits. Its acks are read by the ack thread, never by a committing
// session.
class StallingConnection : public PairConnection {
 public:
  bool ReadsWaitForWrites() const override { return true; }
  int ReadPacket(std::string* payload, size_t max, bool defer) override {
    {
      std::unique_lock l(stall_mu_);
      if (stalled_ && defer) {
        ++busy_answers;
        return kBusy;
      }
      stall_cv_.wait(l, [&] { return !stalled_; });
    }
    return PairConnection::ReadPacket(payload, max, defer);
  }
  void Release() {
    std::lock_guard l(stall_mu_);
    stalled_ = false;
    stall_cv_.notify_all();
  }
  std::atomic<int> busy_answers{0};

 private:
  std::mutex stall_mu_;
  std::condition_variable stall_cv_;
  bool stalled_ = true;
};

TEST_F(PluginRegistryTest, SemisyncSourceCommitNeverReadsWhereReadsWait) {
  std::unique_ptr<binlog::Binlog> bl = OpenTestBinlog(dir_, rpl_);
  ASSERT_NE(bl, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartSemisyncSource());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_timeout", sql::Value::Int(1000)).ok());

  StallingConnection semi;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hooks{0};
  std::future<binlog::Binlog::CommitResult> t1;
  AtExit cleanup{[&] {  // on a failed assertion: end the wait, the read and the dump
    (void)SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0));
    semi.Release();
    stop = true;
  }};
  auto semi_done = std::async(std::launch::async, [&] { return RunTestSender(*bl, rpl_, semi, 11, true, stop, hooks); });
  for (int i = 0; i < 500 && Stat("Rpl_semi_sync_source_clients") != "1"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(Stat("Rpl_semi_sync_source_clients"), "1");

  t1 = std::async(std::launch::async, [&] { return CommitXid(*bl, 1); });
  for (int i = 0; i < 500 && semi.flushes_for_ack.load() < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(semi.flushes_for_ack.load(), 1);
  // The ack arrives, and whoever reads it is held in the read.
  const binlog::Binlog::End end = bl->end();
  semi.Ack(bl->FileName(end.file_number), end.offset);
  ASSERT_EQ(t1.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the commit was held in a read";
  EXPECT_EQ(Stat("Rpl_semi_sync_source_no_tx"), "1");
  EXPECT_EQ(Stat("Rpl_semi_sync_source_status"), "OFF");

  semi.Release();
  stop = true;
  ASSERT_TRUE(semi_done.get().ok());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0)).ok());
  ASSERT_TRUE(registry_->Uninstall("rpl_semi_sync_source").ok());
  bl->set_hooks(nullptr);
}

// A TLS replica that stops reading holds its dump thread's write, and
// with it reads of its connection; the ack thread reads every replica's
// acks while a TLS one is connected. Its read answers busy instead of
// waiting (ABI 1.3), so another replica's ack still releases a commit at
// once; and once the stalled write ends, the stalled replica's ack is read
// on a retry (with wait_for_replica_count=2 a second commit needs it).
// Before, the ack thread waited in that read and every commit waited for
// its timeout.
TEST_F(PluginRegistryTest, SemisyncSourceStalledTlsReplicaHoldsNoOtherAcks) {
  std::unique_ptr<binlog::Binlog> bl = OpenTestBinlog(dir_, rpl_);
  ASSERT_NE(bl, nullptr);
  ASSERT_NO_FATAL_FAILURE(StartSemisyncSource());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_timeout", sql::Value::Int(30000)).ok());

  StallingConnection stalled;
  PairConnection healthy;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> hooks_a{0}, hooks_b{0};
  std::future<binlog::Binlog::CommitResult> t1, t2;
  AtExit cleanup{[&] {  // on a failed assertion: end the waits, the read and the dumps
    (void)SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0));
    stalled.Release();
    stop = true;
  }};
  auto stalled_done =
      std::async(std::launch::async, [&] { return RunTestSender(*bl, rpl_, stalled, 11, true, stop, hooks_a); });
  auto healthy_done =
      std::async(std::launch::async, [&] { return RunTestSender(*bl, rpl_, healthy, 12, true, stop, hooks_b); });
  ASSERT_NO_FATAL_FAILURE(Await([&] { return Stat("Rpl_semi_sync_source_clients") == "2"; }, "both connected"));

  t1 = std::async(std::launch::async, [&] { return CommitXid(*bl, 1); });
  ASSERT_NO_FATAL_FAILURE(Await([&] { return stalled.flushes_for_ack.load() == 1; }, "t1 sent to the stalled one"));
  ASSERT_NO_FATAL_FAILURE(Await([&] { return healthy.flushes_for_ack.load() == 1; }, "t1 sent to the healthy one"));
  const binlog::Binlog::End first = bl->end();
  // The stalled replica acks first: its socket is readable, its read
  // held (a server without ABI 1.3's answer would wait in it).
  stalled.Ack(bl->FileName(first.file_number), first.offset);
  for (int i = 0; i < 100 && stalled.busy_answers.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  healthy.Ack(bl->FileName(first.file_number), first.offset);
  ASSERT_EQ(t1.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the healthy ack was not read";
  EXPECT_EQ(t1.get().end, first.offset);
  EXPECT_GE(stalled.busy_answers.load(), 1);
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "1");
  EXPECT_EQ(Stat("Rpl_semi_sync_source_no_tx"), "0");
  // Retried while busy, not spun on: 1, 2, 4 ... 64 ms apart.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LT(stalled.busy_answers.load(), 20);

  // The write ends; the next retry reads the stalled replica's ack, which
  // a commit waiting for both replicas needs.
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_wait_for_replica_count", sql::Value::Int(2)).ok());
  stalled.Release();
  t2 = std::async(std::launch::async, [&] { return CommitXid(*bl, 2); });
  ASSERT_NO_FATAL_FAILURE(Await([&] { return stalled.flushes_for_ack.load() == 2; }, "t2 sent to the stalled one"));
  ASSERT_NO_FATAL_FAILURE(Await([&] { return healthy.flushes_for_ack.load() == 2; }, "t2 sent to the healthy one"));
  const binlog::Binlog::End second = bl->end();
  healthy.Ack(bl->FileName(second.file_number), second.offset);
  EXPECT_EQ(t2.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout) << "t2 needs both acks";
  stalled.Ack(bl->FileName(second.file_number), second.offset);
  ASSERT_EQ(t2.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the released replica's ack";
  EXPECT_EQ(Stat("Rpl_semi_sync_source_yes_tx"), "2");
  EXPECT_EQ(Stat("Rpl_semi_sync_source_no_tx"), "0");

  stop = true;
  ASSERT_TRUE(stalled_done.get().ok());
  ASSERT_TRUE(healthy_done.get().ok());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_wait_for_replica_count", sql::Value::Int(1)).ok());
  ASSERT_TRUE(SetVar("rpl_semi_sync_source_enabled", sql::Value::Int(0)).ok());
  ASSERT_TRUE(registry_->Uninstall("rpl_semi_sync_source").ok());
  bl->set_hooks(nullptr);
}

}  // namespace
}  // namespace sluice::server
