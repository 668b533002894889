#include "acl/privilege.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace sluice::acl {
namespace {

TEST(PrivilegeTest, AllStaticPrivilegesFormatInShowGrantsOrder) {
  EXPECT_EQ(FormatPrivList(PrivSet::All()),
            "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, RELOAD, SHUTDOWN, PROCESS, FILE, "
            "REFERENCES, INDEX, ALTER, SHOW DATABASES, SUPER, CREATE TEMPORARY TABLES, LOCK "
            "TABLES, EXECUTE, REPLICATION SLAVE, REPLICATION CLIENT, CREATE VIEW, SHOW VIEW, "
            "CREATE ROUTINE, ALTER ROUTINE, CREATE USER, EVENT, TRIGGER, CREATE TABLESPACE, "
            "CREATE ROLE, DROP ROLE");
  EXPECT_EQ(FormatPrivList({Priv::kInsert, Priv::kSelect}), "SELECT, INSERT");
  EXPECT_EQ(FormatPrivList({}), "");
}

TEST(PrivilegeTest, NamesRoundTripAndAliasIsAccepted) {
  for (int i = 0; i < kNumStaticPrivs; ++i) {
    auto p = static_cast<Priv>(i);
    EXPECT_EQ(StaticPrivFromName(PrivName(p)), p);
  }
  EXPECT_EQ(StaticPrivFromName("REPLICATION REPLICA"), Priv::kReplicationSlave);
  EXPECT_EQ(StaticPrivFromName("BACKUP_ADMIN"), std::nullopt);
}

TEST(PrivilegeTest, GlobalOnlyPrivilegesAreNotDbLevel) {
  for (Priv p : {Priv::kReload, Priv::kShutdown, Priv::kProcess, Priv::kFile,
                 Priv::kShowDatabases, Priv::kSuper, Priv::kReplicationSlave,
                 Priv::kReplicationClient, Priv::kCreateUser, Priv::kCreateTablespace,
                 Priv::kCreateRole, Priv::kDropRole}) {
    EXPECT_TRUE(IsGlobalOnly(p)) << PrivName(p);
  }
  EXPECT_FALSE(IsGlobalOnly(Priv::kSelect));
  EXPECT_FALSE(IsGlobalOnly(Priv::kTrigger));
  EXPECT_EQ(FormatPrivList(PrivSet::DbLevel()),
            "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, REFERENCES, INDEX, ALTER, CREATE "
            "TEMPORARY TABLES, LOCK TABLES, EXECUTE, CREATE VIEW, SHOW VIEW, CREATE ROUTINE, "
            "ALTER ROUTINE, EVENT, TRIGGER");
}

TEST(PrivilegeTest, BuiltinDynamicPrivilegesAreSortedAndCoverTheServersNeeds) {
  auto list = BuiltinDynamicPrivileges();
  EXPECT_TRUE(std::is_sorted(list.begin(), list.end()));
  for (std::string_view needed :
       {"SYSTEM_VARIABLES_ADMIN", "CONNECTION_ADMIN", "REPLICATION_SLAVE_ADMIN", "BINLOG_ADMIN",
        "SESSION_VARIABLES_ADMIN", "PERSIST_RO_VARIABLES_ADMIN", "REPLICATION_APPLIER",
        "BACKUP_ADMIN", "SYSTEM_USER"}) {
    EXPECT_TRUE(std::binary_search(list.begin(), list.end(), needed)) << needed;
  }
}

TEST(PrivilegeTest, NormalizeUppercasesAndCollapsesBlanks) {
  EXPECT_EQ(NormalizePrivName("  show   databases "), "SHOW DATABASES");
  EXPECT_EQ(NormalizePrivName("backup_admin"), "BACKUP_ADMIN");
}

}  // namespace
}  // namespace sluice::acl
