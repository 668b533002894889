#include "vars/status_vars.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace sluice::vars {
namespace {

class StatusVarsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    questions_ = *status_.RegisterSessionCounter("Questions", "Statements from clients.");
    com_select_ = *status_.RegisterSessionCounter("Com_select", "SELECTs.");
    connections_ = *status_.RegisterGlobalCounter("Connections", "Connection attempts.");
    ASSERT_TRUE(status_.RegisterProvider("Uptime", "Seconds up.",
                                         [](const SessionStatus*) { return std::string("42"); }).ok());
  }

  std::string Value(std::string_view name, StatusScope scope, const SessionStatus* s = nullptr) {
    Result<std::string> r = status_.Get(name, scope, s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : "";
  }

  StatusVariables status_;
  SessionCounter questions_;
  SessionCounter com_select_;
  GlobalCounter* connections_ = nullptr;
};

TEST_F(StatusVarsTest, GlobalValueSumsLiveSessions) {
  SessionStatus a(status_);
  SessionStatus b(status_);
  a.Add(questions_);
  a.Add(questions_, 2);
  b.Add(questions_, 10);
  EXPECT_EQ(status_.Total(questions_), 13u);
  EXPECT_EQ(Value("Questions", StatusScope::kGlobal), "13");
  EXPECT_EQ(Value("questions", StatusScope::kSession, &a), "3");
  EXPECT_EQ(Value("Questions", StatusScope::kSession, &b), "10");
  EXPECT_EQ(status_.live_sessions(), 2u);
}

TEST_F(StatusVarsTest, EndedSessionsCountsMergeIntoTotals) {
  {
    SessionStatus a(status_);
    a.Add(com_select_, 5);
  }
  EXPECT_EQ(status_.live_sessions(), 0u);
  SessionStatus b(status_);
  b.Add(com_select_, 1);
  EXPECT_EQ(status_.Total(com_select_), 6u);
  EXPECT_EQ(Value("Com_select", StatusScope::kSession, &b), "1");
}

TEST_F(StatusVarsTest, FlushMovesSessionCountsToTotals) {
  SessionStatus a(status_);
  a.Add(questions_, 4);
  a.Flush();
  EXPECT_EQ(a.Get(questions_), 0u);
  EXPECT_EQ(status_.Total(questions_), 4u);
}

TEST_F(StatusVarsTest, GlobalCountersAndProviders) {
  connections_->Add();
  connections_->Add(2);
  EXPECT_EQ(Value("Connections", StatusScope::kGlobal), "3");
  SessionStatus a(status_);
  EXPECT_EQ(Value("Connections", StatusScope::kSession, &a), "3");  // global in SESSION too
  EXPECT_EQ(Value("UPTIME", StatusScope::kGlobal), "42");

  GlobalCounter* max_used = *status_.RegisterGlobalCounter("Max_used_connections", "Peak.");
  max_used->UpdateMax(5);
  max_used->UpdateMax(3);
  EXPECT_EQ(max_used->value(), 5u);
}

TEST_F(StatusVarsTest, ListIsSortedByNameWithSessionOrGlobalValues) {
  SessionStatus a(status_);
  SessionStatus b(status_);
  a.Add(questions_, 1);
  b.Add(questions_, 2);
  std::vector<StatusRow> global = status_.List(StatusScope::kGlobal, &a);
  std::vector<StatusRow> want = {
      {"Com_select", "0"}, {"Connections", "0"}, {"Questions", "3"}, {"Uptime", "42"}};
  EXPECT_EQ(global, want);
  std::vector<StatusRow> session = status_.List(StatusScope::kSession, &a);
  want[2].value = "1";
  EXPECT_EQ(session, want);
}

TEST_F(StatusVarsTest, SessionBindingOverridesProviderInSessionScope) {
  ASSERT_TRUE(status_.RegisterProvider("Ssl_cipher", "Cipher.",
                                       [](const SessionStatus*) { return std::string(); }).ok());
  SessionStatus a(status_);
  a.BindComputed("SSL_CIPHER", [] { return std::string("TLS_AES_256_GCM_SHA384"); });
  EXPECT_EQ(Value("Ssl_cipher", StatusScope::kSession, &a), "TLS_AES_256_GCM_SHA384");
  EXPECT_EQ(Value("Ssl_cipher", StatusScope::kGlobal, &a), "");
  bool listed = false;
  for (const StatusRow& r : status_.List(StatusScope::kSession, &a)) {
    if (r.name == "Ssl_cipher") {
      EXPECT_EQ(r.value, "TLS_AES_256_GCM_SHA384");
      listed = true;
    }
  }
  EXPECT_TRUE(listed);
}

TEST_F(StatusVarsTest, SessionBindingOverridesCounterInSessionScopeOnly) {
  SessionStatus a(status_);
  a.Add(questions_, 2);
  a.BindComputed("Questions", [] { return std::string("live"); });
  EXPECT_EQ(Value("Questions", StatusScope::kSession, &a), "live");
  EXPECT_EQ(Value("Questions", StatusScope::kGlobal, &a), "2");
  std::vector<StatusRow> rows = status_.List(StatusScope::kSession, &a);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2], (StatusRow{"Questions", "live"}));
}

TEST_F(StatusVarsTest, RegistrationErrors) {
  EXPECT_FALSE(status_.RegisterSessionCounter("QUESTIONS", "dup").ok());
  EXPECT_FALSE(status_.RegisterGlobalCounter("Questions", "dup").ok());
  EXPECT_FALSE(status_.RegisterProvider("Uptime", "dup", [](const SessionStatus*) {
    return std::string();
  }).ok());
  EXPECT_FALSE(status_.RegisterProvider("Empty", "no fn", nullptr).ok());
  EXPECT_FALSE(status_.Get("Nope", StatusScope::kGlobal, nullptr).ok());
  EXPECT_FALSE(status_.Unregister("Nope").ok());
}

TEST_F(StatusVarsTest, ReRegisteringANameReusesItsSlotAndCounts) {
  SessionStatus a(status_);
  a.Add(com_select_, 7);
  ASSERT_TRUE(status_.Unregister("Com_select").ok());
  EXPECT_FALSE(status_.Get("Com_select", StatusScope::kGlobal, nullptr).ok());
  Result<SessionCounter> again = status_.RegisterSessionCounter("Com_select", "SELECTs.");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->slot, com_select_.slot);
  EXPECT_EQ(status_.Total(*again), 7u);

  ASSERT_TRUE(status_.Unregister("Connections").ok());
  connections_->Add();
  EXPECT_EQ(*status_.RegisterGlobalCounter("Connections", "again"), connections_);
  ASSERT_TRUE(status_.Unregister("Connections").ok());
  EXPECT_FALSE(status_.RegisterSessionCounter("Connections", "kind changed").ok());
}

TEST_F(StatusVarsTest, SessionCounterSlotsRunOut) {
  StatusVariables small(StatusVariables::Options{2});
  EXPECT_TRUE(small.RegisterSessionCounter("A", "a").ok());
  EXPECT_TRUE(small.RegisterSessionCounter("B", "b").ok());
  EXPECT_FALSE(small.RegisterSessionCounter("C", "c").ok());
}

TEST_F(StatusVarsTest, ConcurrentSessionsAndReadersAgreeOnTotals) {
  constexpr int kThreads = 4;
  constexpr int kSessionsPerThread = 50;
  constexpr int kBumps = 100;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    uint64_t last = 0;
    while (!done.load()) {
      uint64_t now = status_.Total(questions_);
      EXPECT_GE(now, last);  // sessions ending never lose counts
      last = now;
      status_.List(StatusScope::kGlobal, nullptr);
    }
  });
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&] {
      for (int s = 0; s < kSessionsPerThread; ++s) {
        SessionStatus session(status_);
        for (int i = 0; i < kBumps; ++i) session.Add(questions_);
        connections_->Add();
      }
    });
  }
  for (std::thread& w : workers) w.join();
  done = true;
  reader.join();
  EXPECT_EQ(status_.Total(questions_), uint64_t{kThreads} * kSessionsPerThread * kBumps);
  EXPECT_EQ(connections_->value(), uint64_t{kThreads} * kSessionsPerThread);
}

}  // namespace
}  // namespace sluice::vars
