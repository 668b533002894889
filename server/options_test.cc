#include "server/options.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace sluice::server {
namespace {

Result<ServerOptions> Parse(std::vector<const char*> args) {
  args.insert(args.begin(), "sluiced");
  std::string help;
  return ParseOptions(static_cast<int>(args.size()), args.data(), &help);
}

TEST(OptionsTest, DefaultsAreMySqlDefaults) {
  auto o = Parse({});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->port, 3306);
  EXPECT_EQ(o->bind_address, "127.0.0.1");
  EXPECT_EQ(o->max_connections, 151u);
  EXPECT_EQ(o->max_allowed_packet, 64u << 20);
  EXPECT_EQ(o->default_authentication_plugin, "caching_sha2_password");
}

TEST(OptionsTest, UnderscoresDashesAndSizeSuffixes) {
  auto o = Parse({"--max_connections=7", "--max-allowed-packet=16M", "--server_id=42",
                  "--require-secure-transport"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->max_connections, 7u);
  EXPECT_EQ(o->max_allowed_packet, 16u << 20);
  EXPECT_EQ(o->server_id, 42u);
  EXPECT_TRUE(o->require_secure_transport);
}

TEST(OptionsTest, RepeatedOptionTakesItsLastValue) {
  auto o = Parse({"--port=3306", "--port=4406", "--max_connections=5", "--max-connections=6"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->port, 4406);
  EXPECT_EQ(o->max_connections, 6u);
}

TEST(OptionsTest, SkipPrefixTurnsBooleanOff) {
  auto o = Parse({"--skip-require-secure-transport"});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->require_secure_transport);
}

TEST(OptionsTest, UnknownOptionIsAClearError) {
  auto o = Parse({"--no-such-thing=1"});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("unknown variable 'no-such-thing"), std::string::npos)
      << o.status().message();
}

TEST(OptionsTest, MysqldOptionNamesAreKnownOthersAreNot) {
  EXPECT_TRUE(IsMysqldOption("innodb-flush-method"));
  EXPECT_TRUE(IsMysqldOption("innodb_log_file_size"));
  EXPECT_TRUE(IsMysqldOption("performance_schema"));
  EXPECT_TRUE(IsMysqldOption("skip-name-resolve"));
  EXPECT_TRUE(IsMysqldOption("character-set-server"));
  EXPECT_FALSE(IsMysqldOption("query_cache_size"));  // removed in 8.0: mysqld aborts too
  EXPECT_FALSE(IsMysqldOption("no-such-thing"));
  EXPECT_FALSE(IsMysqldOption(""));
}

TEST(OptionsTest, MysqlOptionsArePassedOnWithPrefixesApplied) {
  auto o = Parse({"--sql-mode=ANSI", "--skip-external-locking", "--enable-performance-schema",
                  "--disable-innodb-doublewrite", "--loose-innodb-flush-method=O_DIRECT",
                  "--default_time_zone=+01:00", "--skip-name-resolve"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  std::vector<std::pair<std::string, std::string>> want = {
      {"sql_mode", "ANSI"},         {"external_locking", "OFF"},      {"performance_schema", "ON"},
      {"innodb_doublewrite", "OFF"}, {"innodb_flush_method", "O_DIRECT"}, {"default_time_zone", "+01:00"},
      {"skip_name_resolve", "ON"}};
  EXPECT_EQ(o->mysql_options, want);
  EXPECT_TRUE(o->warnings.empty());
}

TEST(OptionsTest, SluiceVariablesAreSetAtStartLikeMysqlOptions) {
  EXPECT_TRUE(IsSluiceVariableName("sluice_plain_reader_nice"));
  EXPECT_TRUE(IsSluiceVariableName("sluice-lock-schedule"));
  EXPECT_FALSE(IsSluiceVariableName("sluice"));
  EXPECT_FALSE(IsSluiceVariableName("sluiced_x"));
  auto o = Parse({"--sluice-plain-reader-nice=0", "--sluice_lock_schedule=FIFO", "--skip-sluice-deadlock-detect-inline"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  std::vector<std::pair<std::string, std::string>> want = {
      {"sluice_plain_reader_nice", "0"}, {"sluice_lock_schedule", "FIFO"}, {"sluice_deadlock_detect_inline", "OFF"}};
  EXPECT_EQ(o->mysql_options, want);
}

TEST(OptionsTest, LooseUnknownIsAWarningMaximumIsIgnored) {
  auto o = Parse({"--loose-no-such-plugin-var=3", "--maximum-sort-buffer-size=1M", "--loose-port=4407"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->port, 4407);
  ASSERT_EQ(o->warnings.size(), 2u);
  EXPECT_NE(o->warnings[0].find("unknown variable 'loose-no-such-plugin-var=3'"), std::string::npos);
  EXPECT_NE(o->warnings[1].find("maximum-sort-buffer-size"), std::string::npos);
  EXPECT_TRUE(o->mysql_options.empty());
}

TEST(OptionsTest, UnknownNameAfterAPrefixStillAborts) {
  for (const char* bad : {"--skip-no-such-thing", "--enable-no-such-thing", "--query-cache-size=0"}) {
    auto o = Parse({bad});
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_NE(o.status().message().find("unknown variable"), std::string::npos) << o.status().message();
  }
}

TEST(OptionsTest, SocketPidFileUserTmpdir) {
  auto o = Parse({"--socket=/tmp/s.sock", "--pid-file=/tmp/s.pid", "--user=mysql", "--tmpdir=/var/tmp"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->socket, "/tmp/s.sock");
  EXPECT_EQ(o->pid_file, "/tmp/s.pid");
  EXPECT_EQ(o->user, "mysql");
  EXPECT_EQ(o->tmpdir, "/var/tmp");
}

TEST(OptionsTest, CommandLineMysqlOptionWinsOverTheFile) {
  std::string path = testing::TempDir() + "/sluice_opts_mysql.cnf";
  {
    std::ofstream f(path);
    f << "[mysqld]\nsql-mode=ANSI\ninnodb-lock-wait-timeout=9\nperformance-schema\n";
  }
  std::string arg = "--defaults-file=" + path;
  auto o = Parse({arg.c_str(), "--sql_mode=TRADITIONAL"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  std::vector<std::pair<std::string, std::string>> want = {
      {"innodb_lock_wait_timeout", "9"}, {"performance_schema", "ON"}, {"sql_mode", "TRADITIONAL"}};
  EXPECT_EQ(o->mysql_options, want);
  std::remove(path.c_str());
}

TEST(OptionsTest, BadValueNamesTheOption) {
  auto o = Parse({"--port=http"});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.status().message().find("port"), std::string::npos);
}

TEST(OptionsTest, OptionFileGroupsAndCommandLineWins) {
  std::string path = testing::TempDir() + "/sluice_opts.cnf";
  {
    std::ofstream f(path);
    f << "[client]\nport=1\n[mysqld]\nport = 4000\nserver_id=9\n# comment\n"
         "[sluiced]\nmax-connections=20\nlog-error=\"/tmp/x.log\"\n";
  }
  std::string arg = "--defaults-file=" + path;
  auto o = Parse({arg.c_str(), "--server-id=11"});
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->port, 4000);
  EXPECT_EQ(o->server_id, 11u);
  EXPECT_EQ(o->max_connections, 20u);
  EXPECT_EQ(o->log_error, "/tmp/x.log");
  std::remove(path.c_str());
}

TEST(OptionsTest, MissingOptionFileIsAnError) {
  auto o = Parse({"--defaults-file=/nonexistent/my.cnf"});
  EXPECT_FALSE(o.ok());
}

}  // namespace
}  // namespace sluice::server
