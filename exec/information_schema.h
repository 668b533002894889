// exec/information_schema.h
//
// INFORMATION_SCHEMA tables computed from the engine's catalog, with MySQL
// 8.0's columns (upper-case names) and contents: SCHEMATA, TABLES, COLUMNS,
// STATISTICS, KEY_COLUMN_USAGE — what CDC readers (python-mysql-replication,
// go-mysql/canal, Debezium) read column names and keys from. Also the rows
// of SHOW INDEX, which shows the same facts as STATISTICS.
//
// Thread-safety: pure functions of a catalog snapshot.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/catalog/catalog.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"

namespace sluice::exec {

struct VirtualTable {
  std::shared_ptr<const storage::TableDef> def;  // schema "information_schema"
  std::vector<storage::Row> rows;
};

// The INFORMATION_SCHEMA table `name` (any letter case), with the rows of
// the schemas `visible` accepts (the caller's privilege filter: an account
// sees only what it has some privilege in): the engine's databases and the
// listed tables of the system schemas (mysql.general_log / slow_log, see
// exec/system_schema.h). nullptr-def when there is no such table.
VirtualTable InformationSchemaTable(std::string_view name, const storage::CatalogSnapshot& catalog,
                                    const std::function<bool(const std::string& schema)>& visible);

// One row of SHOW PLUGINS / INFORMATION_SCHEMA.PLUGINS (the server's
// PluginRegistry lists them, through exec::PluginCatalog).
struct PluginInfo {
  std::string name;
  std::string status = "ACTIVE";
  std::string type;           // "AUTHENTICATION", "STORAGE ENGINE", "REPLICATION", ...
  std::string type_version;   // PLUGIN_TYPE_VERSION
  std::string library;        // empty: built in (NULL)
  std::string library_version;  // PLUGIN_LIBRARY_VERSION (the ABI), empty for built-ins
  std::string version;        // PLUGIN_VERSION
  std::string author;
  std::string description;
  std::string license = "GPL";
  std::string load_option = "ON";  // ON, FORCE (built-ins)
};

// INFORMATION_SCHEMA.PLUGINS with MySQL 8.0's columns, one row per plugin
// (PluginRegistry::List()).
VirtualTable InformationSchemaPlugins(const std::vector<PluginInfo>& plugins);

// The names of the INFORMATION_SCHEMA tables (SHOW TABLES FROM information_schema).
std::vector<std::string> InformationSchemaTableNames();

}  // namespace sluice::exec
