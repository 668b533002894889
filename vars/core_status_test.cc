#include "vars/core_status.h"

#include <gtest/gtest.h>

namespace sluice::vars {
namespace {

TEST(CoreStatusTest, RegistersMySqlNamesAndWiresProviders) {
  StatusVariables status;
  CoreStatusProviders providers;
  providers.uptime_seconds = [] { return uint64_t{99}; };
  providers.threads_connected = [] { return uint64_t{3}; };
  Result<CoreStatus> core = RegisterCoreStatus(status, providers);
  ASSERT_TRUE(core.ok()) << core.status().ToString();

  SessionStatus session(status);
  session.Add(core->questions);
  session.Add(core->com_select);
  session.Add(core->bytes_sent, 100);
  core->connections->Add();
  core->max_used_connections->UpdateMax(1);

  EXPECT_EQ(*status.Get("Questions", StatusScope::kGlobal, nullptr), "1");
  EXPECT_EQ(*status.Get("Com_select", StatusScope::kSession, &session), "1");
  EXPECT_EQ(*status.Get("Bytes_sent", StatusScope::kGlobal, nullptr), "100");
  EXPECT_EQ(*status.Get("Connections", StatusScope::kGlobal, nullptr), "1");
  EXPECT_EQ(*status.Get("Uptime", StatusScope::kGlobal, nullptr), "99");
  EXPECT_EQ(*status.Get("Threads_connected", StatusScope::kGlobal, nullptr), "3");
  EXPECT_EQ(*status.Get("Threads_running", StatusScope::kGlobal, nullptr), "0");
  EXPECT_EQ(*status.Get("Ssl_cipher", StatusScope::kSession, &session), "");
  for (const char* name : {"Com_set_option", "Com_show_variables", "Com_show_status", "Com_begin",
                           "Com_commit", "Com_rollback", "Com_insert", "Com_update", "Com_delete",
                           "Bytes_received", "Aborted_clients", "Aborted_connects",
                           "Threads_created", "Max_used_connections", "Ssl_accepts"}) {
    EXPECT_TRUE(status.Get(name, StatusScope::kGlobal, nullptr).ok()) << name;
  }
  // Registering twice fails: the names are taken.
  EXPECT_FALSE(RegisterCoreStatus(status, {}).ok());
}

}  // namespace
}  // namespace sluice::vars
