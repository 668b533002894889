#include "exec/system_schema.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace sluice::exec {
namespace {

using acl::Priv;

// The value of column `name` in `row` of `vt`.
const storage::RowValue& Cell(const VirtualTable& vt, size_t row, const std::string& name) {
  const storage::ColumnDef* c = vt.def->FindColumn(name);
  EXPECT_NE(c, nullptr) << name;
  return vt.rows.at(row).at(c->ordinal);
}

// 'Y' / 'N' of an enum('N','Y') cell.
char Flag(const storage::RowValue& v) { return std::get<uint64_t>(v) == 2 ? 'Y' : 'N'; }

acl::AccountRef MakeAccount(std::string user, std::string host, acl::PrivSet global,
                            std::vector<acl::DbGrant> dbs = {}) {
  auto a = std::make_shared<acl::Account>();
  a->user = std::move(user);
  a->host = std::move(host);
  a->plugin = std::string(acl::kNativePassword);
  a->auth_string = "*0123";
  a->global_privs = global;
  a->db_grants = std::move(dbs);
  return a;
}

TEST(SystemSchemaTest, NamesAreCaseInsensitive) {
  EXPECT_TRUE(IsSystemSchema("mysql"));
  EXPECT_TRUE(IsSystemSchema("MySQL"));
  EXPECT_TRUE(IsSystemSchema("INFORMATION_SCHEMA"));
  EXPECT_EQ(SystemSchemaName("Sys"), "sys");
  EXPECT_FALSE(IsSystemSchema("mysql2"));
  EXPECT_FALSE(IsSystemSchema(""));
}

TEST(SystemSchemaTest, UserRowsShowGlobalPrivilegesSortedByHostThenUser) {
  std::vector<acl::AccountRef> accounts = {
      MakeAccount("zed", "%", acl::PrivSet{}),
      MakeAccount("root", "localhost", acl::PrivSet::All()),
      MakeAccount("amy", "%", acl::PrivSet{Priv::kSelect, Priv::kProcess}),
  };
  VirtualTable vt = MysqlSchemaTable("USER", accounts);
  ASSERT_NE(vt.def, nullptr);
  EXPECT_EQ(vt.def->schema, "mysql");
  EXPECT_EQ(vt.def->name, "user");
  ASSERT_EQ(vt.rows.size(), 3u);
  for (const auto& row : vt.rows) EXPECT_EQ(row.size(), vt.def->columns.size());
  EXPECT_EQ(std::get<std::string>(Cell(vt, 0, "User")), "amy");
  EXPECT_EQ(std::get<std::string>(Cell(vt, 1, "User")), "zed");
  EXPECT_EQ(std::get<std::string>(Cell(vt, 2, "Host")), "localhost");
  EXPECT_EQ(Flag(Cell(vt, 0, "Select_priv")), 'Y');
  EXPECT_EQ(Flag(Cell(vt, 0, "Process_priv")), 'Y');
  EXPECT_EQ(Flag(Cell(vt, 0, "Insert_priv")), 'N');
  EXPECT_EQ(Flag(Cell(vt, 1, "Select_priv")), 'N');
  EXPECT_EQ(Flag(Cell(vt, 2, "Create_tablespace_priv")), 'Y');
  EXPECT_EQ(Flag(Cell(vt, 2, "Drop_role_priv")), 'Y');
  EXPECT_EQ(std::get<std::string>(Cell(vt, 0, "plugin")), "mysql_native_password");
  EXPECT_EQ(std::get<std::string>(Cell(vt, 0, "authentication_string")), "*0123");
  EXPECT_EQ(Flag(Cell(vt, 0, "account_locked")), 'N');
}

TEST(SystemSchemaTest, DbRowsOnePerDatabaseGrant) {
  acl::DbGrant g{"app", acl::PrivSet{Priv::kSelect, Priv::kInsert}, true};
  std::vector<acl::AccountRef> accounts = {MakeAccount("u", "%", acl::PrivSet{}, {g}),
                                           MakeAccount("v", "%", acl::PrivSet{})};
  VirtualTable vt = MysqlSchemaTable("db", accounts);
  ASSERT_NE(vt.def, nullptr);
  ASSERT_EQ(vt.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(Cell(vt, 0, "Db")), "app");
  EXPECT_EQ(Flag(Cell(vt, 0, "Select_priv")), 'Y');
  EXPECT_EQ(Flag(Cell(vt, 0, "Insert_priv")), 'Y');
  EXPECT_EQ(Flag(Cell(vt, 0, "Update_priv")), 'N');
  EXPECT_EQ(Flag(Cell(vt, 0, "Grant_priv")), 'Y');
}

TEST(SystemSchemaTest, LogTablesAndTablesPrivAreEmptyAndOnlyLogTablesAreListed) {
  for (const char* name : {"tables_priv", "general_log", "slow_log"}) {
    VirtualTable vt = MysqlSchemaTable(name, {MakeAccount("u", "%", acl::PrivSet::All())});
    ASSERT_NE(vt.def, nullptr) << name;
    EXPECT_TRUE(vt.rows.empty()) << name;
  }
  EXPECT_EQ(MysqlSchemaTable("no_such", {}).def, nullptr);
  EXPECT_EQ(MysqlSchemaTableDef("proc"), nullptr);
  auto listed = MysqlSchemaListedTables();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0]->name, "general_log");
  EXPECT_EQ(listed[1]->name, "slow_log");
  EXPECT_EQ(EngineOf(*listed[0]), "CSV");
  EXPECT_EQ(EngineOf(*MysqlSchemaTableDef("user")), "InnoDB");
}

}  // namespace
}  // namespace sluice::exec
