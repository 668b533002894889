#include "acl/access_control.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "acl/acl_file_internal.h"
#include "base/io/mem_file_system.h"
#include "base/io/write_file_atomically.h"
#include "protocol/auth.h"

namespace sluice::acl {
namespace {

namespace fs = std::filesystem;

const char* const kRootStatic =
    "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD, SHUTDOWN, PROCESS, FILE, "
    "REFERENCES, INDEX, ALTER, SHOW DATABASES, SUPER, CREATE TEMPORARY TABLES, LOCK TABLES, "
    "EXECUTE, REPLICATION SLAVE, REPLICATION CLIENT, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, "
    "ALTER ROUTINE, CREATE USER, EVENT, TRIGGER, CREATE TABLESPACE, CREATE ROLE, DROP ROLE ON "
    "*.* TO `root`@`localhost` WITH GRANT OPTION";
const char* const kRootDynamic =
    "GRANT APPLICATION_PASSWORD_ADMIN,AUDIT_ABORT_EXEMPT,AUDIT_ADMIN,AUTHENTICATION_POLICY_ADMIN,"
    "BACKUP_ADMIN,BINLOG_ADMIN,BINLOG_ENCRYPTION_ADMIN,CLONE_ADMIN,CONNECTION_ADMIN,"
    "ENCRYPTION_KEY_ADMIN,FIREWALL_EXEMPT,FLUSH_OPTIMIZER_COSTS,FLUSH_STATUS,FLUSH_TABLES,"
    "FLUSH_USER_RESOURCES,GROUP_REPLICATION_ADMIN,GROUP_REPLICATION_STREAM,"
    "INNODB_REDO_LOG_ARCHIVE,INNODB_REDO_LOG_ENABLE,PASSWORDLESS_USER_ADMIN,"
    "PERSIST_RO_VARIABLES_ADMIN,REPLICATION_APPLIER,REPLICATION_SLAVE_ADMIN,RESOURCE_GROUP_ADMIN,"
    "RESOURCE_GROUP_USER,ROLE_ADMIN,SENSITIVE_VARIABLES_OBSERVER,SERVICE_CONNECTION_ADMIN,"
    "SESSION_VARIABLES_ADMIN,SET_USER_ID,SHOW_ROUTINE,SYSTEM_USER,SYSTEM_VARIABLES_ADMIN,"
    "TABLE_ENCRYPTION_ADMIN,TELEMETRY_LOG_ADMIN,XA_RECOVER_ADMIN ON *.* TO `root`@`localhost` "
    "WITH GRANT OPTION";

const std::string kScramble = "abcdefghij0123456789";  // 20 bytes, as the handshake sends

UserSpec User(std::string user, std::string host, std::optional<std::string> password = {},
              std::string plugin = "") {
  UserSpec s;
  s.user = std::move(user);
  s.host = std::move(host);
  s.password = std::move(password);
  s.plugin = std::move(plugin);
  return s;
}

class AccessControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sluice_acl_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    acl_ = Make();
    ASSERT_TRUE(acl_->InitializeDatadir(dir_, std::nullopt).ok());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::unique_ptr<AccessControl> Make() {
    AccessControl::Options options;
    options.write_file = [this](const std::string& path, std::string_view bytes) {
      if (fail_writes_) return Status::IOError("injected write failure");
      return io::WriteFileAtomically(io::DefaultFileSystem(), path, bytes);
    };
    return std::make_unique<AccessControl>(std::move(options));
  }

  void Create(std::string user, std::string host, std::optional<std::string> password = {},
              std::string plugin = "") {
    Status s = acl_->CreateUser({User(std::move(user), std::move(host), std::move(password),
                                      std::move(plugin))},
                                false, nullptr);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  AccountRef Login(std::string_view user, std::string_view peer) {
    return acl_->FindAccountForLogin(user, ResolveClientHost(peer));
  }

  std::vector<std::string> Grants(std::string user, std::string host) {
    Result<std::vector<std::string>> r = acl_->ShowGrants({std::move(user), std::move(host)});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<std::string>{};
  }

  std::string dir_;
  bool fail_writes_ = false;
  std::unique_ptr<AccessControl> acl_;
};

// ---- Data directory ----

TEST_F(AccessControlTest, InitializeCreatesRootWithEveryPrivilegeWithGrantOption) {
  EXPECT_EQ(Grants("root", "localhost"), (std::vector<std::string>{kRootStatic, kRootDynamic}));
  AccountRef root = acl_->Lookup({"root", "localhost"});
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(root->plugin, "caching_sha2_password");
  EXPECT_EQ(root->auth_string, "");
  EXPECT_TRUE(fs::exists(fs::path(dir_) / "mysql" / "acl.pb"));
}

TEST_F(AccessControlTest, InitializeWithPasswordStoresSha2CryptHash) {
  char tmpl[] = "/tmp/sluice_acl_init_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  AccessControl acl({});
  ASSERT_TRUE(acl.InitializeDatadir(tmpl, "s3cret").ok());
  AccountRef root = acl.Lookup({"root", "localhost"});
  ASSERT_NE(root, nullptr);
  EXPECT_TRUE(root->auth_string.starts_with("$A$005$"));
  EXPECT_TRUE(acl.VerifyCleartext(*root, "s3cret"));
  EXPECT_FALSE(acl.VerifyCleartext(*root, "wrong"));
  fs::remove_all(tmpl);
}

TEST_F(AccessControlTest, GeneratedRootPasswordIsExpiredUntilChangedAndSurvivesReopen) {
  char tmpl[] = "/tmp/sluice_acl_exp_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  {
    AccessControl acl({});
    ASSERT_TRUE(acl.InitializeDatadir(tmpl, "temp").ok());
    EXPECT_TRUE(acl.Lookup({"root", "localhost"})->password_expired);
  }
  AccessControl reopened({});
  ASSERT_TRUE(reopened.Open(tmpl).ok());
  EXPECT_TRUE(reopened.Lookup({"root", "localhost"})->password_expired);
  ASSERT_TRUE(reopened.SetPassword({"root", "localhost"}, "chosen").ok());
  AccountRef root = reopened.Lookup({"root", "localhost"});
  EXPECT_FALSE(root->password_expired);
  EXPECT_TRUE(reopened.VerifyCleartext(*root, "chosen"));
  fs::remove_all(tmpl);
}

TEST_F(AccessControlTest, InsecureInitializeLeavesRootUsable) {
  EXPECT_FALSE(acl_->Lookup({"root", "localhost"})->password_expired);
}

TEST_F(AccessControlTest, InitializeRefusesAnInitializedDatadir) {
  AccessControl other({});
  Status s = other.InitializeDatadir(dir_, std::nullopt);
  EXPECT_FALSE(s.ok());
}

TEST_F(AccessControlTest, OpenOnFreshDatadirCreatesMysqlDirAndHasNoAccounts) {
  fs::path fresh = fs::path(dir_) / "fresh";
  AccessControl acl({});
  ASSERT_TRUE(acl.Open(fresh.string()).ok());
  EXPECT_TRUE(fs::is_directory(fresh / "mysql"));
  EXPECT_TRUE(acl.Accounts().empty());
  EXPECT_EQ(acl.FindAccountForLogin("root", ResolveClientHost("127.0.0.1")), nullptr);
}

TEST_F(AccessControlTest, ChangesSurviveReopen) {
  Create("app", "10.0.%", "pw1", "mysql_native_password");
  Create("ro", "%");
  ASSERT_TRUE(acl_->Grant({"SELECT", "INSERT"}, PrivLevel::Global(), {{"app", "10.0.%"}}, false).ok());
  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Db("shop"), {{"ro", "%"}}, true).ok());
  ASSERT_TRUE(acl_->Grant({"BINLOG_ADMIN"}, PrivLevel::Global(), {{"ro", "%"}}, false).ok());
  ASSERT_TRUE(acl_->AlterUser({[] {
                                UserSpec s = User("ro", "%");
                                s.account_locked = true;
                                return s;
                              }()},
                              false, nullptr)
                  .ok());

  AccessControl reopened({});
  ASSERT_TRUE(reopened.Open(dir_).ok());
  for (const AccountName& n :
       std::vector<AccountName>{{"root", "localhost"}, {"app", "10.0.%"}, {"ro", "%"}}) {
    Result<std::vector<std::string>> before = acl_->ShowGrants(n);
    Result<std::vector<std::string>> after = reopened.ShowGrants(n);
    ASSERT_TRUE(after.ok()) << n.Quoted();
    EXPECT_EQ(*after, *before);
    EXPECT_EQ(*reopened.ShowCreateUser(n), *acl_->ShowCreateUser(n));
  }
  AccountRef app = reopened.FindAccountForLogin("app", ResolveClientHost("10.0.1.1"));
  ASSERT_NE(app, nullptr);
  EXPECT_TRUE(reopened.VerifyCleartext(*app, "pw1"));
  EXPECT_TRUE(reopened.Lookup({"ro", "%"})->locked);
}

TEST_F(AccessControlTest, FailedWriteLeavesMemoryAndDiskUnchanged) {
  Create("bob", "%");
  const uint64_t version = acl_->version();
  std::vector<std::string> grants = Grants("bob", "%");
  fail_writes_ = true;

  Status s = acl_->CreateUser({User("carol", "%")}, false, nullptr);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(acl_->Lookup({"carol", "%"}), nullptr);
  EXPECT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Global(), {{"bob", "%"}}, false).IsIOError());
  EXPECT_EQ(Grants("bob", "%"), grants);
  EXPECT_TRUE(acl_->DropUser({{"bob", "%"}}, false, nullptr).IsIOError());
  EXPECT_NE(acl_->Lookup({"bob", "%"}), nullptr);
  EXPECT_EQ(acl_->version(), version);

  AccessControl reopened({});
  ASSERT_TRUE(reopened.Open(dir_).ok());
  EXPECT_EQ(reopened.Lookup({"carol", "%"}), nullptr);
  EXPECT_NE(reopened.Lookup({"bob", "%"}), nullptr);

  fail_writes_ = false;
  EXPECT_TRUE(acl_->CreateUser({User("carol", "%")}, false, nullptr).ok());
}

TEST_F(AccessControlTest, AtomicWriteLeavesNoTemporaryFile) {
  Create("bob", "%");
  EXPECT_FALSE(fs::exists(fs::path(dir_) / "mysql" / "acl.pb.tmp"));
}

TEST_F(AccessControlTest, WriteIntoMissingDirectoryFailsWithIoError) {
  Status s = io::WriteFileAtomically(io::DefaultFileSystem(), dir_ + "/no/such/dir/acl.pb", "x");
  EXPECT_TRUE(s.IsIOError());
}

TEST_F(AccessControlTest, CorruptFileFailsOpenAndKeepsState) {
  {
    std::ofstream out(fs::path(dir_) / "mysql" / "acl.pb", std::ios::binary | std::ios::trunc);
    out << "\xff\xff\xff garbage";
  }
  AccessControl other({});
  EXPECT_TRUE(other.Open(dir_).IsCorruption());
  // FLUSH PRIVILEGES re-reads: the error comes back and the table is kept.
  EXPECT_TRUE(acl_->FlushPrivileges().IsCorruption());
  EXPECT_NE(acl_->Lookup({"root", "localhost"}), nullptr);
}

TEST_F(AccessControlTest, FlushPrivilegesWithMissingFileKeepsTable) {
  fs::remove(fs::path(dir_) / "mysql" / "acl.pb");
  EXPECT_TRUE(acl_->FlushPrivileges().IsIOError());
  EXPECT_NE(acl_->Lookup({"root", "localhost"}), nullptr);
}

// ---- Login matching ----

TEST_F(AccessControlTest, LoopbackClientPrefersLocalhostAccountOverPercent) {
  Create("bob", "%");
  Create("bob", "localhost");
  EXPECT_EQ(Login("bob", "127.0.0.1")->host, "localhost");
  EXPECT_EQ(Login("bob", "::1")->host, "localhost");
  EXPECT_EQ(Login("bob", "10.0.0.1")->host, "%");
}

TEST_F(AccessControlTest, SpecificIpBeatsLongerPatternBeatsShorterPattern) {
  Create("bob", "%");
  Create("bob", "10.%");
  Create("bob", "10.0.%");
  Create("bob", "10.0.0.5");
  EXPECT_EQ(Login("bob", "10.0.0.5")->host, "10.0.0.5");
  EXPECT_EQ(Login("bob", "10.0.0.6")->host, "10.0.%");
  EXPECT_EQ(Login("bob", "10.9.0.6")->host, "10.%");
  EXPECT_EQ(Login("bob", "192.168.0.1")->host, "%");
}

TEST_F(AccessControlTest, AnonymousLocalhostAccountShadowsNamedPercentAccount) {
  // MySQL's classic surprise: host specificity decides before the user name.
  Create("bob", "%");
  Create("", "localhost");
  AccountRef a = Login("bob", "127.0.0.1");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->user, "");
  EXPECT_EQ(Login("bob", "10.0.0.1")->user, "bob");
}

TEST_F(AccessControlTest, NamedUserBeatsAnonymousOnSameHost) {
  Create("", "%");
  Create("bob", "%");
  EXPECT_EQ(Login("bob", "10.0.0.1")->user, "bob");
  EXPECT_EQ(Login("alice", "10.0.0.1")->user, "");
}

TEST_F(AccessControlTest, UnknownUserOrHostFindsNoAccount) {
  Create("bob", "10.0.%");
  EXPECT_EQ(Login("bob", "10.1.0.1"), nullptr);
  EXPECT_EQ(Login("alice", "10.0.0.1"), nullptr);
  EXPECT_EQ(Login("root", "10.0.0.1"), nullptr);  // root is @localhost only
  EXPECT_NE(Login("root", "127.0.0.1"), nullptr);
}

TEST_F(AccessControlTest, HostPartIsStoredLowerCaseAndMatchedCaseInsensitively) {
  Create("bob", "LocalHost");
  EXPECT_NE(acl_->Lookup({"bob", "localhost"}), nullptr);
  EXPECT_NE(acl_->Lookup({"bob", "LOCALHOST"}), nullptr);
  EXPECT_EQ(Login("bob", "127.0.0.1")->host, "localhost");
}

// ---- CREATE / ALTER / DROP / RENAME / SET PASSWORD ----

TEST_F(AccessControlTest, CreateExistingUserFails1396) {
  Create("bob", "%");
  Status s = acl_->CreateUser({User("bob", "%")}, false, nullptr);
  EXPECT_EQ(s.mysql_errno(), 1396);
  EXPECT_EQ(s.message(), "Operation CREATE USER failed for 'bob'@'%'");
}

TEST_F(AccessControlTest, CreateIfNotExistsOnExistingUserLeavesNote3163) {
  Create("bob", "%", "old");
  std::vector<Warning> warnings;
  ASSERT_TRUE(acl_->CreateUser({User("bob", "%", "new")}, true, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].level, Warning::Level::kNote);
  EXPECT_EQ(warnings[0].code, 3163);
  EXPECT_EQ(warnings[0].message, "Authorization ID 'bob'@'%' already exists.");
  EXPECT_TRUE(acl_->VerifyCleartext(*acl_->Lookup({"bob", "%"}), "old"));
}

TEST_F(AccessControlTest, CreateSeveralUsersIsAllOrNothing) {
  Create("b", "%");
  Status s = acl_->CreateUser({User("a", "%"), User("b", "%"), User("c", "h")}, false, nullptr);
  EXPECT_EQ(s.message(), "Operation CREATE USER failed for 'b'@'%'");
  EXPECT_EQ(acl_->Lookup({"a", "%"}), nullptr);
  EXPECT_EQ(acl_->Lookup({"c", "h"}), nullptr);
}

TEST_F(AccessControlTest, CreateUsesDefaultPluginUnlessNamed) {
  Create("s", "%", "pw");
  Create("n", "%", "pw", "mysql_native_password");
  EXPECT_EQ(acl_->Lookup({"s", "%"})->plugin, "caching_sha2_password");
  EXPECT_EQ(acl_->Lookup({"n", "%"})->plugin, "mysql_native_password");
  EXPECT_EQ(acl_->Lookup({"n", "%"})->auth_string, protocol::NativePasswordHex("pw"));
}

TEST_F(AccessControlTest, CreateWithDefaultNativePluginOption) {
  AccessControl::Options options;
  options.default_authentication_plugin = "mysql_native_password";
  AccessControl acl(options);
  ASSERT_TRUE(acl.Open(dir_).ok());
  ASSERT_TRUE(acl.CreateUser({User("n", "%", "pw")}, false, nullptr).ok());
  EXPECT_EQ(acl.Lookup({"n", "%"})->plugin, "mysql_native_password");
}

TEST_F(AccessControlTest, CreateRejectsUnknownPluginBadHashAndLongName) {
  Status s = acl_->CreateUser({User("x", "%", "pw", "sha256_password")}, false, nullptr);
  EXPECT_EQ(s.mysql_errno(), 1524);
  EXPECT_EQ(s.message(), "Plugin 'sha256_password' is not loaded");

  UserSpec bad = User("x", "%", std::nullopt, "mysql_native_password");
  bad.hash = "*1234";
  s = acl_->CreateUser({bad}, false, nullptr);
  EXPECT_EQ(s.mysql_errno(), 1827);
  bad.plugin = "caching_sha2_password";
  bad.hash = "$A$005$short";
  EXPECT_EQ(acl_->CreateUser({bad}, false, nullptr).mysql_errno(), 1827);

  s = acl_->CreateUser({User(std::string(33, 'u'), "%")}, false, nullptr);
  EXPECT_EQ(s.mysql_errno(), 1470);
  EXPECT_EQ(acl_->Accounts().size(), 1u);
}

TEST_F(AccessControlTest, CreateWithHashStoresItVerbatim) {
  const std::string native = protocol::NativePasswordHex("pw");
  const std::string sha2 = protocol::Sha2CryptHash("pw", protocol::MakeSha2Salt());
  UserSpec n = User("n", "%", std::nullopt, "mysql_native_password");
  n.hash = native;
  UserSpec s = User("s", "%", std::nullopt, "caching_sha2_password");
  s.hash = sha2;
  ASSERT_TRUE(acl_->CreateUser({n, s}, false, nullptr).ok());
  EXPECT_EQ(acl_->Lookup({"n", "%"})->auth_string, native);
  EXPECT_EQ(acl_->Lookup({"s", "%"})->auth_string, sha2);
  EXPECT_TRUE(acl_->VerifyCleartext(*acl_->Lookup({"s", "%"}), "pw"));
}

TEST_F(AccessControlTest, AlterMissingUserFails1396OrNotesWithIfExists) {
  Status s = acl_->AlterUser({User("ghost", "%", "pw")}, false, nullptr);
  EXPECT_EQ(s.mysql_errno(), 1396);
  EXPECT_EQ(s.message(), "Operation ALTER USER failed for 'ghost'@'%'");
  std::vector<Warning> warnings;
  ASSERT_TRUE(acl_->AlterUser({User("ghost", "%", "pw")}, true, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].code, 3162);
  EXPECT_EQ(warnings[0].message, "Authorization ID 'ghost'@'%' does not exist.");
}

TEST_F(AccessControlTest, AlterPasswordKeepsPluginAndWithPluginAloneClearsPassword) {
  Create("n", "%", "old", "mysql_native_password");
  ASSERT_TRUE(acl_->AlterUser({User("n", "%", "new")}, false, nullptr).ok());
  AccountRef n = acl_->Lookup({"n", "%"});
  EXPECT_EQ(n->plugin, "mysql_native_password");
  EXPECT_TRUE(acl_->VerifyCleartext(*n, "new"));
  EXPECT_FALSE(acl_->VerifyCleartext(*n, "old"));

  ASSERT_TRUE(
      acl_->AlterUser({User("n", "%", std::nullopt, "caching_sha2_password")}, false, nullptr).ok());
  n = acl_->Lookup({"n", "%"});
  EXPECT_EQ(n->plugin, "caching_sha2_password");
  EXPECT_EQ(n->auth_string, "");
}

TEST_F(AccessControlTest, AlterLocksAndUnlocks) {
  Create("bob", "%");
  UserSpec lock = User("bob", "%");
  lock.account_locked = true;
  ASSERT_TRUE(acl_->AlterUser({lock}, false, nullptr).ok());
  EXPECT_TRUE(Login("bob", "10.0.0.1")->locked);
  EXPECT_TRUE(acl_->ShowCreateUser({"bob", "%"})->find("ACCOUNT LOCK") != std::string::npos);
  lock.account_locked = false;
  ASSERT_TRUE(acl_->AlterUser({lock}, false, nullptr).ok());
  EXPECT_FALSE(Login("bob", "10.0.0.1")->locked);
}

TEST_F(AccessControlTest, DropRemovesUserAndMissingFails1396) {
  Create("bob", "%");
  Status s = acl_->DropUser({{"bob", "%"}, {"ghost", "%"}, {"gone", "h"}}, false, nullptr);
  EXPECT_EQ(s.message(), "Operation DROP USER failed for 'ghost'@'%','gone'@'h'");
  EXPECT_NE(acl_->Lookup({"bob", "%"}), nullptr);

  std::vector<Warning> warnings;
  ASSERT_TRUE(acl_->DropUser({{"bob", "%"}, {"ghost", "%"}}, true, &warnings).ok());
  EXPECT_EQ(acl_->Lookup({"bob", "%"}), nullptr);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].code, 3162);
}

TEST_F(AccessControlTest, RenameCarriesPrivilegesAndRefusesClashes) {
  Create("a", "%");
  Create("b", "%");
  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Db("db1"), {{"a", "%"}}, false).ok());

  Status s = acl_->RenameUser({{{"a", "%"}, {"b", "%"}}});
  EXPECT_EQ(s.message(), "Operation RENAME USER failed for 'a'@'%'");
  s = acl_->RenameUser({{{"ghost", "%"}, {"c", "%"}}});
  EXPECT_EQ(s.message(), "Operation RENAME USER failed for 'ghost'@'%'");

  ASSERT_TRUE(acl_->RenameUser({{{"a", "%"}, {"c", "10.%"}}, {{"c", "10.%"}, {"d", "%"}}}).ok());
  EXPECT_EQ(acl_->Lookup({"a", "%"}), nullptr);
  EXPECT_EQ(acl_->Lookup({"c", "10.%"}), nullptr);
  EXPECT_EQ(Grants("d", "%"), (std::vector<std::string>{"GRANT USAGE ON *.* TO `d`@`%`",
                                                         "GRANT SELECT ON `db1`.* TO `d`@`%`"}));
}

TEST_F(AccessControlTest, SetPasswordHashesWithAccountPluginAndMissingFails1133) {
  Create("n", "%", "old", "mysql_native_password");
  ASSERT_TRUE(acl_->SetPassword({"n", "%"}, "new").ok());
  EXPECT_TRUE(acl_->VerifyCleartext(*acl_->Lookup({"n", "%"}), "new"));
  Status s = acl_->SetPassword({"ghost", "%"}, "x");
  EXPECT_EQ(s.mysql_errno(), 1133);
  EXPECT_EQ(s.message(), "Can't find any matching row in the user table");
}

// ---- GRANT / REVOKE / SHOW GRANTS ----

TEST_F(AccessControlTest, GrantGlobalOnlyPrivilegeOnDatabaseFails1221) {
  Create("bob", "%");
  Status s = acl_->Grant({"SELECT", "SUPER"}, PrivLevel::Db("db1"), {{"bob", "%"}}, false);
  EXPECT_EQ(s.mysql_errno(), 1221);
  EXPECT_EQ(s.message(), "Incorrect usage of DB GRANT and GLOBAL PRIVILEGES");
  EXPECT_EQ(acl_->Grant({"RELOAD"}, PrivLevel::Db("db1"), {{"bob", "%"}}, false).mysql_errno(),
            1221);
  EXPECT_EQ(Grants("bob", "%").size(), 1u);
}

TEST_F(AccessControlTest, GrantDynamicPrivilegeOnDatabaseFails3619) {
  Create("bob", "%");
  Status s = acl_->Grant({"binlog_admin"}, PrivLevel::Db("db1"), {{"bob", "%"}}, false);
  EXPECT_EQ(s.mysql_errno(), 3619);
  EXPECT_EQ(s.message(), "Illegal privilege level specified for BINLOG_ADMIN");
}

TEST_F(AccessControlTest, GrantUnknownPrivilegeFails1149) {
  Create("bob", "%");
  Status s = acl_->Grant({"FROBNICATE"}, PrivLevel::Global(), {{"bob", "%"}}, false);
  EXPECT_EQ(s.mysql_errno(), 1149);
  EXPECT_EQ(acl_->Grant({"GRANT OPTION"}, PrivLevel::Global(), {{"bob", "%"}}, false).mysql_errno(),
            1149);
}

TEST_F(AccessControlTest, GrantToMissingUserFails1410) {
  Create("bob", "%");
  Status s = acl_->Grant({"SELECT"}, PrivLevel::Global(), {{"bob", "%"}, {"ghost", "%"}}, false);
  EXPECT_EQ(s.mysql_errno(), 1410);
  EXPECT_EQ(s.message(), "You are not allowed to create a user with GRANT");
  EXPECT_EQ(Grants("bob", "%"), (std::vector<std::string>{"GRANT USAGE ON *.* TO `bob`@`%`"}));
}

TEST_F(AccessControlTest, ShowGrantsListsGlobalDynamicAndDatabaseGrants) {
  Create("app", "%");
  ASSERT_TRUE(acl_->Grant({"insert", "select", "process"}, PrivLevel::Global(), {{"app", "%"}},
                          false)
                  .ok());
  ASSERT_TRUE(acl_->Grant({"SYSTEM_VARIABLES_ADMIN", "BINLOG_ADMIN"}, PrivLevel::Global(),
                          {{"app", "%"}}, false)
                  .ok());
  ASSERT_TRUE(acl_->Grant({"BACKUP_ADMIN"}, PrivLevel::Global(), {{"app", "%"}}, true).ok());
  ASSERT_TRUE(acl_->Grant({"ALL"}, PrivLevel::Db("shop"), {{"app", "%"}}, false).ok());
  ASSERT_TRUE(acl_->Grant({"UPDATE", "DELETE"}, PrivLevel::Db("audit"), {{"app", "%"}}, true).ok());
  EXPECT_EQ(Grants("app", "%"),
            (std::vector<std::string>{
                "GRANT SELECT, INSERT, PROCESS ON *.* TO `app`@`%`",
                "GRANT BINLOG_ADMIN,SYSTEM_VARIABLES_ADMIN ON *.* TO `app`@`%`",
                "GRANT BACKUP_ADMIN ON *.* TO `app`@`%` WITH GRANT OPTION",
                "GRANT UPDATE, DELETE ON `audit`.* TO `app`@`%` WITH GRANT OPTION",
                "GRANT ALL PRIVILEGES ON `shop`.* TO `app`@`%`",
            }));
}

TEST_F(AccessControlTest, GrantAllGlobalGivesEveryStaticAndDynamicPrivilege) {
  Create("admin", "%");
  ASSERT_TRUE(acl_->Grant({"ALL PRIVILEGES"}, PrivLevel::Global(), {{"admin", "%"}}, true).ok());
  std::vector<std::string> expected = {kRootStatic, kRootDynamic};
  for (std::string& line : expected) {
    line.replace(line.find("`root`@`localhost`"), 18, "`admin`@`%`");
  }
  EXPECT_EQ(Grants("admin", "%"), expected);
}

TEST_F(AccessControlTest, ShowGrantsQuotesIdentifiers) {
  Create("we`ird", "%");
  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Db("d`b"), {{"we`ird", "%"}}, false).ok());
  EXPECT_EQ(Grants("we`ird", "%")[1], "GRANT SELECT ON `d``b`.* TO `we``ird`@`%`");
}

TEST_F(AccessControlTest, ShowGrantsForUnknownAccountFails1141) {
  Result<std::vector<std::string>> r = acl_->ShowGrants({"ghost", "%"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().mysql_errno(), 1141);
  EXPECT_EQ(r.status().message(), "There is no such grant defined for user 'ghost' on host '%'");
}

TEST_F(AccessControlTest, RevokeOnDatabaseWithoutGrantFails1141) {
  Create("bob", "%");
  Status s = acl_->Revoke({"SELECT"}, PrivLevel::Db("db1"), {{"bob", "%"}});
  EXPECT_EQ(s.mysql_errno(), 1141);
  EXPECT_EQ(s.message(), "There is no such grant defined for user 'bob' on host '%'");
  EXPECT_EQ(acl_->Revoke({"SELECT"}, PrivLevel::Global(), {{"ghost", "%"}}).mysql_errno(), 1141);
}

TEST_F(AccessControlTest, RevokeGlobalPrivilegeNotHeldSucceeds) {
  Create("bob", "%");
  EXPECT_TRUE(acl_->Revoke({"SELECT", "BACKUP_ADMIN"}, PrivLevel::Global(), {{"bob", "%"}}).ok());
}

TEST_F(AccessControlTest, RevokeRemovesPrivilegesAndEmptyDatabaseRows) {
  Create("bob", "%");
  ASSERT_TRUE(acl_->Grant({"SELECT", "INSERT"}, PrivLevel::Db("db1"), {{"bob", "%"}}, true).ok());
  ASSERT_TRUE(acl_->Grant({"SELECT", "SUPER", "BACKUP_ADMIN"}, PrivLevel::Global(), {{"bob", "%"}},
                          true)
                  .ok());
  ASSERT_TRUE(acl_->Revoke({"INSERT", "GRANT OPTION"}, PrivLevel::Db("db1"), {{"bob", "%"}}).ok());
  ASSERT_TRUE(acl_->Revoke({"SUPER", "BACKUP_ADMIN", "GRANT OPTION"}, PrivLevel::Global(),
                           {{"bob", "%"}})
                  .ok());
  EXPECT_EQ(Grants("bob", "%"), (std::vector<std::string>{"GRANT SELECT ON *.* TO `bob`@`%`",
                                                           "GRANT SELECT ON `db1`.* TO `bob`@`%`"}));
  ASSERT_TRUE(acl_->Revoke({"SELECT"}, PrivLevel::Db("db1"), {{"bob", "%"}}).ok());
  EXPECT_EQ(Grants("bob", "%").size(), 1u);
  EXPECT_EQ(acl_->Revoke({"SELECT"}, PrivLevel::Db("db1"), {{"bob", "%"}}).mysql_errno(), 1141);
}

TEST_F(AccessControlTest, RevokeAllAtGlobalKeepsGrantOptionAndDatabaseRows) {
  Create("bob", "%");
  ASSERT_TRUE(acl_->Grant({"ALL"}, PrivLevel::Global(), {{"bob", "%"}}, true).ok());
  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Db("db1"), {{"bob", "%"}}, false).ok());
  ASSERT_TRUE(acl_->Revoke({"ALL"}, PrivLevel::Global(), {{"bob", "%"}}).ok());
  EXPECT_EQ(Grants("bob", "%"),
            (std::vector<std::string>{"GRANT USAGE ON *.* TO `bob`@`%` WITH GRANT OPTION",
                                      "GRANT SELECT ON `db1`.* TO `bob`@`%`"}));
}

TEST_F(AccessControlTest, RevokeAllAndGrantOptionClearsEverything) {
  Create("bob", "%");
  ASSERT_TRUE(acl_->Grant({"ALL"}, PrivLevel::Global(), {{"bob", "%"}}, true).ok());
  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Db("db1"), {{"bob", "%"}}, true).ok());
  ASSERT_TRUE(acl_->RevokeAllAndGrantOption({{"bob", "%"}}).ok());
  EXPECT_EQ(Grants("bob", "%"), (std::vector<std::string>{"GRANT USAGE ON *.* TO `bob`@`%`"}));
  Status s = acl_->RevokeAllAndGrantOption({{"ghost", "%"}});
  EXPECT_EQ(s.mysql_errno(), 1269);
}

TEST_F(AccessControlTest, RegisteredDynamicPrivilegeCanBeGranted) {
  Create("bob", "%");
  EXPECT_EQ(acl_->Grant({"MY_PLUGIN_ADMIN"}, PrivLevel::Global(), {{"bob", "%"}}, false)
                .mysql_errno(),
            1149);
  ASSERT_TRUE(acl_->RegisterDynamicPrivilege("my_plugin_admin").ok());
  EXPECT_FALSE(acl_->RegisterDynamicPrivilege("SELECT").ok());
  ASSERT_TRUE(acl_->Grant({"MY_PLUGIN_ADMIN"}, PrivLevel::Global(), {{"bob", "%"}}, false).ok());
  EXPECT_TRUE(acl_->Lookup({"bob", "%"})->HasDynamic("MY_PLUGIN_ADMIN"));
}

// ---- SHOW CREATE USER ----

TEST_F(AccessControlTest, ShowCreateUserPrintsPluginHashAndDefaults) {
  Create("n", "%", "pw", "mysql_native_password");
  Create("e", "localhost");
  EXPECT_EQ(*acl_->ShowCreateUser({"n", "%"}),
            "CREATE USER `n`@`%` IDENTIFIED WITH 'mysql_native_password' AS '" +
                protocol::NativePasswordHex("pw") +
                "' REQUIRE NONE PASSWORD EXPIRE DEFAULT ACCOUNT UNLOCK PASSWORD HISTORY DEFAULT "
                "PASSWORD REUSE INTERVAL DEFAULT PASSWORD REQUIRE CURRENT DEFAULT");
  EXPECT_EQ(*acl_->ShowCreateUser({"e", "localhost"}),
            "CREATE USER `e`@`localhost` IDENTIFIED WITH 'caching_sha2_password' REQUIRE NONE "
            "PASSWORD EXPIRE DEFAULT ACCOUNT UNLOCK PASSWORD HISTORY DEFAULT PASSWORD REUSE "
            "INTERVAL DEFAULT PASSWORD REQUIRE CURRENT DEFAULT");
  Result<std::string> missing = acl_->ShowCreateUser({"ghost", "%"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "Operation SHOW CREATE USER failed for 'ghost'@'%'");
}

TEST_F(AccessControlTest, ShowCreateUserOfSha2HashRoundTripsThroughCreateAs) {
  Create("s", "%", "pw");
  std::string shown = *acl_->ShowCreateUser({"s", "%"});
  const std::string& hash = acl_->Lookup({"s", "%"})->auth_string;
  EXPECT_TRUE(shown.starts_with("CREATE USER `s`@`%` IDENTIFIED WITH 'caching_sha2_password' AS '"));
  // The hash is printed as a string literal: quote and backslash escaped.
  std::string escaped;
  for (char c : hash) {
    if (c == '\'' || c == '\\') escaped += '\\';
    escaped += c;
  }
  EXPECT_NE(shown.find("AS '" + escaped + "' REQUIRE NONE"), std::string::npos);
}

// ---- Privilege checks and sessions ----

TEST_F(AccessControlTest, PrivilegeChecksFollowGrants) {
  Create("bob", "%");
  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Db("shop"), {{"bob", "%"}}, false).ok());
  ASSERT_TRUE(acl_->Grant({"PROCESS", "CONNECTION_ADMIN"}, PrivLevel::Global(), {{"bob", "%"}},
                          false)
                  .ok());
  AccountRef bob = acl_->Lookup({"bob", "%"});
  EXPECT_TRUE(bob->HasGlobal(Priv::kProcess));
  EXPECT_FALSE(bob->HasGlobal(Priv::kSelect));
  EXPECT_TRUE(bob->HasDb("shop", Priv::kSelect));
  EXPECT_FALSE(bob->HasDb("shop", Priv::kInsert));
  EXPECT_FALSE(bob->HasDb("Shop", Priv::kSelect));  // database names are case-sensitive
  EXPECT_TRUE(bob->HasAnyDbAccess("shop"));
  EXPECT_FALSE(bob->HasAnyDbAccess("other"));  // PROCESS is not a database privilege
  EXPECT_TRUE(bob->HasDynamic("CONNECTION_ADMIN"));
  EXPECT_FALSE(bob->HasDynamic("SYSTEM_VARIABLES_ADMIN"));
  EXPECT_FALSE(bob->HasDynamicOrSuper("SYSTEM_VARIABLES_ADMIN"));

  ASSERT_TRUE(acl_->Grant({"SUPER", "INSERT"}, PrivLevel::Global(), {{"bob", "%"}}, false).ok());
  bob = acl_->Lookup({"bob", "%"});
  EXPECT_TRUE(bob->HasDynamicOrSuper("SYSTEM_VARIABLES_ADMIN"));
  EXPECT_FALSE(bob->HasDynamic("SYSTEM_VARIABLES_ADMIN"));
  EXPECT_TRUE(bob->HasDb("anything", Priv::kInsert));  // global implies every database
  EXPECT_TRUE(bob->HasAnyDbAccess("anything"));
  EXPECT_FALSE(bob->HasGrantOptionOn("shop"));

  AccountRef root = acl_->Lookup({"root", "localhost"});
  EXPECT_TRUE(root->HasGrantOptionOn("shop"));
  EXPECT_TRUE(root->HasDynamicGrantOption("SYSTEM_USER"));
}

TEST_F(AccessControlTest, SessionRefreshSeesGrantsAndSurvivesDrop) {
  Create("bob", "%");
  AccountRef session = Login("bob", "10.0.0.1");
  uint64_t seen = 0;
  acl_->RefreshIfChanged(&session, &seen);
  EXPECT_EQ(seen, acl_->version());
  const Account* before = session.get();
  acl_->RefreshIfChanged(&session, &seen);
  EXPECT_EQ(session.get(), before);  // unchanged table: same snapshot

  ASSERT_TRUE(acl_->Grant({"SELECT"}, PrivLevel::Global(), {{"bob", "%"}}, false).ok());
  EXPECT_FALSE(session->HasGlobal(Priv::kSelect));  // the old snapshot is immutable
  acl_->RefreshIfChanged(&session, &seen);
  EXPECT_TRUE(session->HasGlobal(Priv::kSelect));

  ASSERT_TRUE(acl_->DropUser({{"bob", "%"}}, false, nullptr).ok());
  acl_->RefreshIfChanged(&session, &seen);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->user, "bob");
  EXPECT_FALSE(session->HasGlobal(Priv::kSelect));
}

TEST_F(AccessControlTest, ConcurrentReadersSeeConsistentSnapshotsDuringChanges) {
  Create("bob", "%");
  std::atomic<bool> stop{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      AccountRef session = acl_->FindAccountForLogin("bob", ResolveClientHost("10.0.0.1"));
      uint64_t seen = 0;
      while (!stop.load()) {
        acl_->RefreshIfChanged(&session, &seen);
        // SELECT and INSERT are granted and revoked together.
        EXPECT_EQ(session->HasDb("db", Priv::kSelect), session->HasDb("db", Priv::kInsert));
        (void)acl_->FindAccountForLogin("root", ResolveClientHost("::1"));
      }
    });
  }
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(acl_->Grant({"SELECT", "INSERT"}, PrivLevel::Db("db"), {{"bob", "%"}}, false).ok());
    ASSERT_TRUE(acl_->Revoke({"SELECT", "INSERT"}, PrivLevel::Db("db"), {{"bob", "%"}}).ok());
  }
  stop = true;
  for (std::thread& t : readers) t.join();
}

// ---- Authentication ----

TEST_F(AccessControlTest, NativeAccountWithoutPasswordAcceptsOnlyEmptyReply) {
  Create("n", "%", std::nullopt, "mysql_native_password");
  AccountRef n = acl_->Lookup({"n", "%"});
  EXPECT_TRUE(acl_->VerifyNativeReply(*n, kScramble, ""));
  EXPECT_FALSE(acl_->VerifyNativeReply(*n, kScramble, protocol::NativeScramble("x", kScramble)));
  EXPECT_TRUE(acl_->VerifyCleartext(*n, ""));
  EXPECT_FALSE(acl_->VerifyCleartext(*n, "x"));
}

TEST_F(AccessControlTest, NativeAccountVerifiesScrambledReply) {
  Create("n", "%", "secret", "mysql_native_password");
  AccountRef n = acl_->Lookup({"n", "%"});
  EXPECT_TRUE(acl_->VerifyNativeReply(*n, kScramble, protocol::NativeScramble("secret", kScramble)));
  EXPECT_FALSE(acl_->VerifyNativeReply(*n, kScramble, protocol::NativeScramble("wrong", kScramble)));
  EXPECT_FALSE(acl_->VerifyNativeReply(*n, kScramble, ""));
  EXPECT_TRUE(acl_->VerifyCleartext(*n, "secret"));
  EXPECT_FALSE(acl_->VerifyCleartext(*n, "wrong"));
  // A caching_sha2 account never passes the native check.
  Create("s", "%");
  EXPECT_FALSE(acl_->VerifyNativeReply(*acl_->Lookup({"s", "%"}), kScramble, ""));
}

TEST_F(AccessControlTest, Sha2AccountWithoutPasswordFastAuthsOnEmptyToken) {
  AccountRef root = Login("root", "127.0.0.1");
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*root, kScramble, ""), Sha2FastAuth::kOk);
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*root, kScramble,
                                        protocol::CachingSha2Scramble("x", kScramble)),
            Sha2FastAuth::kMismatch);
  EXPECT_TRUE(acl_->VerifyCleartext(*root, ""));
  EXPECT_FALSE(acl_->VerifyCleartext(*root, "x"));
}

TEST_F(AccessControlTest, Sha2FastAuthMissesUntilFullAuthFillsTheCache) {
  Create("s", "%", "secret");
  AccountRef s = Login("s", "10.0.0.1");
  const std::string token = protocol::CachingSha2Scramble("secret", kScramble);
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, token), Sha2FastAuth::kNotCached);

  ASSERT_TRUE(acl_->VerifyCleartext(*s, "secret"));
  EXPECT_FALSE(acl_->VerifyCleartext(*s, "wrong"));
  acl_->CacheSha2Digest(*s, "secret");
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, token), Sha2FastAuth::kOk);
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble,
                                        protocol::CachingSha2Scramble("wrong", kScramble)),
            Sha2FastAuth::kMismatch);
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, ""), Sha2FastAuth::kMismatch);
}

TEST_F(AccessControlTest, FlushPrivilegesEmptiesTheFastAuthCache) {
  Create("s", "%", "secret");
  AccountRef s = Login("s", "10.0.0.1");
  acl_->CacheSha2Digest(*s, "secret");
  const std::string token = protocol::CachingSha2Scramble("secret", kScramble);
  ASSERT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, token), Sha2FastAuth::kOk);
  ASSERT_TRUE(acl_->FlushPrivileges().ok());
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, token), Sha2FastAuth::kNotCached);
}

TEST_F(AccessControlTest, AlterDropAndRenameEvictTheAccountsCacheEntryOnly) {
  Create("s", "%", "secret");
  Create("t", "%", "other");
  AccountRef s = Login("s", "10.0.0.1");
  AccountRef t = Login("t", "10.0.0.1");
  acl_->CacheSha2Digest(*s, "secret");
  acl_->CacheSha2Digest(*t, "other");
  const std::string s_token = protocol::CachingSha2Scramble("secret", kScramble);
  const std::string t_token = protocol::CachingSha2Scramble("other", kScramble);

  ASSERT_TRUE(acl_->AlterUser({User("s", "%", "changed")}, false, nullptr).ok());
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, s_token), Sha2FastAuth::kNotCached);
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*t, kScramble, t_token), Sha2FastAuth::kOk);

  // A login that fully authenticated with the old password before the ALTER
  // must not put the old digest back.
  acl_->CacheSha2Digest(*s, "secret");
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s, kScramble, s_token), Sha2FastAuth::kNotCached);

  ASSERT_TRUE(acl_->RenameUser({{{"t", "%"}, {"u", "%"}}}).ok());
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*t, kScramble, t_token), Sha2FastAuth::kNotCached);

  AccountRef s2 = Login("s", "10.0.0.1");
  acl_->CacheSha2Digest(*s2, "changed");
  ASSERT_TRUE(acl_->DropUser({{"s", "%"}}, false, nullptr).ok());
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*s2, kScramble,
                                        protocol::CachingSha2Scramble("changed", kScramble)),
            Sha2FastAuth::kNotCached);
}

TEST_F(AccessControlTest, NativeAccountNeverFastAuthsAsSha2) {
  Create("n", "%", "pw", "mysql_native_password");
  AccountRef n = acl_->Lookup({"n", "%"});
  acl_->CacheSha2Digest(*n, "pw");  // ignored
  EXPECT_EQ(acl_->VerifyCachingSha2Fast(*n, kScramble,
                                        protocol::CachingSha2Scramble("pw", kScramble)),
            Sha2FastAuth::kMismatch);
}

// acl.pb through an injected fault (io::MemFileSystem): a failed write at
// any step before the rename is an IOError, the old file stays whole (on
// disk and after a crash) and the account table in memory is unchanged.
class AclFileFaultTest : public ::testing::TestWithParam<io::MemFileSystem::Op> {};

TEST_P(AclFileFaultTest, FailedWriteKeepsOldFile) {
  io::MemFileSystem mem;
  AccessControl::Options options;
  options.fs = &mem;
  AccessControl acl(options);
  ASSERT_TRUE(acl.InitializeDatadir("/data", std::nullopt).ok());
  ASSERT_TRUE(acl.CreateUser({User("bob", "%")}, false, nullptr).ok());
  const std::string before = **io::ReadFileIfExists(mem, "/data/mysql/acl.pb");

  io::MemFileSystem::Fault f;
  f.op = GetParam();
  f.torn_bytes = 4;
  mem.InjectFault(f);
  Status s = acl.CreateUser({User("carol", "%")}, false, nullptr);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ(mem.faults_fired(), 1u);
  EXPECT_EQ(acl.Lookup({"carol", "%"}), nullptr);
  EXPECT_EQ(**io::ReadFileIfExists(mem, "/data/mysql/acl.pb"), before);
  EXPECT_FALSE(*mem.Exists("/data/mysql/acl.pb.tmp"));

  mem.DropUnsyncedData();  // a crash: the old table comes back
  AccessControl reopened(options);
  ASSERT_TRUE(reopened.Open("/data").ok());
  EXPECT_NE(reopened.Lookup({"bob", "%"}), nullptr);
  EXPECT_EQ(reopened.Lookup({"carol", "%"}), nullptr);

  // The fault was one-off: the next write works.
  EXPECT_TRUE(acl.CreateUser({User("carol", "%")}, false, nullptr).ok());
  AccessControl again(options);
  ASSERT_TRUE(again.Open("/data").ok());
  EXPECT_NE(again.Lookup({"carol", "%"}), nullptr);
}

INSTANTIATE_TEST_SUITE_P(EveryStep, AclFileFaultTest,
                         ::testing::Values(io::MemFileSystem::Op::kWrite, io::MemFileSystem::Op::kSync,
                                           io::MemFileSystem::Op::kRename),
                         [](const auto& info) {
                           switch (info.param) {
                             case io::MemFileSystem::Op::kWrite: return "Write";
                             case io::MemFileSystem::Op::kSync: return "Sync";
                             default: return "Rename";
                           }
                         });

TEST(AclFileFault, UnreadableFileFailsOpen) {
  io::MemFileSystem mem;
  AccessControl::Options options;
  options.fs = &mem;
  {
    AccessControl acl(options);
    ASSERT_TRUE(acl.InitializeDatadir("/data", std::nullopt).ok());
  }
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kRead;
  mem.InjectFault(f);
  AccessControl acl(options);
  EXPECT_TRUE(acl.Open("/data").IsIOError());
}

}  // namespace
}  // namespace sluice::acl
