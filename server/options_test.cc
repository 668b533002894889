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
