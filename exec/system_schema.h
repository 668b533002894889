// exec/system_schema.h
//
// The schemas sluiced has without the storage engine: information_schema,
// mysql, performance_schema and sys. SHOW DATABASES lists them, so each must
// answer USE, SHOW TABLES, SHOW CREATE DATABASE and the like, and none may be
// written to or shadowed by an engine database of the same name.
//
// The `mysql` schema holds read-only views of the account table (which
// lives in <datadir>/mysql/acl.pb, see acl/access_control.h): mysql.user,
// mysql.db and mysql.tables_priv, with MySQL 8.0's column names and types for
// the columns tools read; and MySQL's log tables general_log and slow_log,
// always empty (sluiced keeps no log tables).
//
// Listing: SHOW TABLES FROM mysql and INFORMATION_SCHEMA list only the log
// tables. The account views answer SELECT, SHOW COLUMNS and SHOW CREATE TABLE
// when named, but are not listed: a dump tool (mariadb-dump --all-databases)
// copies every listed table of `mysql` as rows to INSERT, and sluiced could
// not load them back (accounts change through CREATE USER / GRANT). MySQL 8.0
// keeps its data-dictionary tables out of listings the same way. The log
// tables are what mariadb-dump asks for by name (it dumps their structure as
// CREATE TABLE IF NOT EXISTS and never their rows).
//
// Thread-safety: pure functions of their arguments.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "acl/account.h"
#include "base/mysql_error.h"
#include "exec/information_schema.h"
#include "storage/catalog/table_def.h"

namespace sluice {
namespace er {
// 1036 ER_OPEN_AS_READONLY, for writes to the tables of `mysql`. Here and
// not in base/mysql_error.h only to keep that header (which nearly every
// object includes) unchanged in this change; move it there with the next
// edit of that file.
inline constexpr Error kOpenAsReadonly{1036, "HY000", "Table '{}' is read only"};
}  // namespace er
}  // namespace sluice

namespace sluice::exec {

// "information_schema", "mysql", "performance_schema", "sys", sorted.
const std::vector<std::string>& SystemSchemaNames();

// True when `db` names one of them, in any letter case (MySQL treats these
// names case-insensitively whatever lower_case_table_names says).
bool IsSystemSchema(std::string_view db);

// The lower-case name of the system schema `db` names ("" when none).
std::string SystemSchemaName(std::string_view db);

// The default character set and collation SHOW CREATE DATABASE and
// INFORMATION_SCHEMA.SCHEMATA report for a system schema.
struct SchemaCharset {
  std::string charset;
  std::string collation;
};
SchemaCharset SystemSchemaCharset(std::string_view db);

// A table of the `mysql` schema: its definition (schema "mysql") and the
// rows it shows for `accounts` (every account, as AccessControl::Accounts()
// gives them). def is null when `name` (any letter case) is not one.
VirtualTable MysqlSchemaTable(std::string_view name, const std::vector<acl::AccountRef>& accounts);

// The definition alone (no rows); null when `name` is not a `mysql` table.
std::shared_ptr<const storage::TableDef> MysqlSchemaTableDef(std::string_view name);

// The `mysql` tables that SHOW TABLES and INFORMATION_SCHEMA list (the log
// tables), sorted by name; see the header comment for why not the others.
std::vector<std::shared_ptr<const storage::TableDef>> MysqlSchemaListedTables();

// mysql.plugin (name, dl): the plugins INSTALL PLUGIN recorded (see
// exec/plugin_registry.h), sorted by name; not listed, as the account views.
VirtualTable MysqlPluginTable(std::vector<std::pair<std::string, std::string>> recorded);

// The ENGINE SHOW CREATE TABLE, SHOW TABLE STATUS and
// INFORMATION_SCHEMA.TABLES report for `def` ("CSV" for the log tables,
// "InnoDB" otherwise).
std::string EngineOf(const storage::TableDef& def);

}  // namespace sluice::exec
