#include "server/plugin_registry.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "server/rpl/delegates.h"
#include "server/vars/status_vars.h"
#include "server/vars/sys_vars.h"

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
  EXPECT_NE(s.message().find("was built for plugin ABI 2.0, the server has 1.1"), std::string::npos) << s.message();
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
  rpl::TransmitParam asked;
  asked.user_var = [](std::string_view n) { return n == "sluice_example_observe" ? std::string("1") : std::string(); };
  auto observed = rpl_.TransmitStart(asked, "binlog.000001", 4);
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
  rpl::TransmitParam asked;
  asked.user_var = [](std::string_view n) { return n == "sluice_example_observe" ? std::string("1") : std::string(); };
  auto session = rpl_.TransmitStart(asked, "binlog.000001", 4);
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

}  // namespace
}  // namespace sluice::server
