#include "exec/information_schema.h"
#include "exec/exec_env.h"

#include <algorithm>
#include <optional>

#include "exec/check_constraints.h"
#include "exec/foreign_keys.h"
#include "exec/column_values.h"
#include "exec/system_schema.h"
#include "sql/lexer.h"

namespace sluice::exec {

namespace {

using storage::ColumnDef;
using storage::ColumnType;
using storage::IndexDef;
using storage::IndexKind;
using storage::Row;
using storage::RowValue;
using storage::TableDef;

// Column shapes of the virtual tables.
ColumnDef Text(std::string name, uint32_t length = 64, bool nullable = false) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = ColumnType::kVarChar;
  c.length = length;
  c.nullable = nullable;
  c.charset = "utf8mb3";
  c.collation = "utf8mb3_general_ci";
  return c;
}
ColumnDef Int(std::string name, bool nullable = true) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = ColumnType::kBigInt;
  c.is_unsigned = true;
  c.nullable = nullable;
  return c;
}

std::shared_ptr<TableDef> Def(std::string name, std::vector<ColumnDef> columns) {
  auto def = std::make_shared<TableDef>();
  def->schema = "information_schema";
  def->name = std::move(name);
  def->columns = std::move(columns);
  for (uint32_t i = 0; i < def->columns.size(); ++i) def->columns[i].ordinal = i;
  def->options.charset = "utf8mb3";
  def->options.collation = "utf8mb3_general_ci";
  return def;
}

RowValue S(std::string v) { return RowValue(std::move(v)); }
RowValue U(uint64_t v) { return RowValue(v); }
RowValue Null() { return RowValue(); }

// DATA_TYPE: the type name alone ("int", "varchar").
std::string DataType(const ColumnDef& c) {
  std::string t = ColumnTypeText(c);
  return t.substr(0, t.find_first_of("( "));
}

bool IsTemporal(ColumnType t) {
  return t == ColumnType::kDate || t == ColumnType::kTime || t == ColumnType::kDateTime ||
         t == ColumnType::kTimestamp || t == ColumnType::kYear;
}

// Max bytes per character of a charset.
uint64_t MaxBytes(const std::string& charset) {
  if (charset == "utf8mb4") return 4;
  if (charset == "utf8mb3" || charset == "utf8") return 3;
  return 1;
}

std::optional<uint64_t> CharMaxLength(const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kChar: case ColumnType::kVarChar: case ColumnType::kBinary: case ColumnType::kVarBinary:
      return c.length;
    case ColumnType::kTinyText: case ColumnType::kTinyBlob: return 255;
    case ColumnType::kText: case ColumnType::kBlob: return 65535;
    case ColumnType::kMediumText: case ColumnType::kMediumBlob: return 16777215;
    case ColumnType::kLongText: case ColumnType::kLongBlob: return 4294967295ull;
    case ColumnType::kEnum: {
      uint64_t m = 0;
      for (const auto& v : c.enum_values) m = std::max<uint64_t>(m, v.size());
      return m;
    }
    default: return std::nullopt;
  }
}

std::optional<uint64_t> NumericPrecision(const ColumnDef& c) {
  switch (c.type) {
    case ColumnType::kTinyInt: return 3;
    case ColumnType::kSmallInt: return 5;
    case ColumnType::kMediumInt: return 7;
    case ColumnType::kInt: return 10;
    case ColumnType::kBigInt: return c.is_unsigned ? 20 : 19;
    case ColumnType::kDecimal: return c.precision ? c.precision : 10;
    case ColumnType::kFloat: return 12;
    case ColumnType::kDouble: return 22;
    default: return std::nullopt;
  }
}

std::string ColumnKey(const TableDef& t, const ColumnDef& c) {
  std::string key;
  for (const IndexDef& idx : t.indexes) {
    if (idx.parts.empty() || idx.parts[0].column != c.ordinal) continue;
    std::string k = idx.kind == IndexKind::kClustered ? "PRI" : (idx.unique && idx.parts.size() == 1) ? "UNI" : "MUL";
    if (key.empty() || k == "PRI" || (k == "UNI" && key == "MUL")) key = k;
  }
  return key;
}

std::optional<std::string> DefaultText(const ColumnDef& c) {
  switch (c.default_kind) {
    case ColumnDef::DefaultKind::kValue: return c.default_value;
    case ColumnDef::DefaultKind::kCurrentTimestamp:
      return c.fsp ? "CURRENT_TIMESTAMP(" + std::to_string(c.fsp) + ")" : std::string("CURRENT_TIMESTAMP");
    default: return std::nullopt;
  }
}

using Visible = std::function<bool(const std::string&)>;
using Extra = std::vector<std::shared_ptr<const TableDef>>;

// The tables of the schemas `visible` accepts: the engine's, then `extra`
// (the system schemas' listed tables), each as (schema, table).
std::vector<std::pair<std::string, std::shared_ptr<const TableDef>>> VisibleTables(
    const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra) {
  std::vector<std::pair<std::string, std::shared_ptr<const TableDef>>> out;
  for (const auto& t : extra) {
    if (visible(t->schema)) out.emplace_back(t->schema, t);
  }
  for (const std::string& db : cat.DatabaseNames()) {
    if (!visible(db)) continue;
    for (const auto& t : cat.TablesIn(db)) out.emplace_back(db, t);
  }
  return out;
}

VirtualTable Schemata(const storage::CatalogSnapshot& cat, const Visible& visible) {
  VirtualTable v;
  v.def = Def("SCHEMATA", {Text("CATALOG_NAME"), Text("SCHEMA_NAME"), Text("DEFAULT_CHARACTER_SET_NAME"),
                           Text("DEFAULT_COLLATION_NAME"), Text("SQL_PATH", 512, true), Text("DEFAULT_ENCRYPTION", 3)});
  std::vector<std::pair<std::string, std::pair<std::string, std::string>>> all = {
      {"information_schema", {"utf8mb3", "utf8mb3_general_ci"}},
      {"mysql", {"utf8mb4", "utf8mb4_0900_ai_ci"}},
      {"performance_schema", {"utf8mb4", "utf8mb4_0900_ai_ci"}},
      {"sys", {"utf8mb4", "utf8mb4_0900_ai_ci"}}};
  for (const std::string& db : cat.DatabaseNames()) {
    const storage::DatabaseDef* d = cat.FindDatabase(db);
    all.push_back({db, {d->default_charset, d->default_collation}});
  }
  std::sort(all.begin(), all.end());
  for (const auto& [name, cs] : all) {
    if (!visible(name)) continue;
    v.rows.push_back({S("def"), S(name), S(cs.first), S(cs.second), Null(), S("NO")});
  }
  return v;
}

VirtualTable Tables(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra) {
  VirtualTable v;
  v.def = Def("TABLES",
              {Text("TABLE_CATALOG"), Text("TABLE_SCHEMA"), Text("TABLE_NAME"), Text("TABLE_TYPE"),
               Text("ENGINE", 64, true), Int("VERSION"), Text("ROW_FORMAT", 10, true), Int("TABLE_ROWS"),
               Int("AVG_ROW_LENGTH"), Int("DATA_LENGTH"), Int("MAX_DATA_LENGTH"), Int("INDEX_LENGTH"),
               Int("DATA_FREE"), Int("AUTO_INCREMENT"), Text("CREATE_TIME", 19, true), Text("UPDATE_TIME", 19, true),
               Text("CHECK_TIME", 19, true), Text("TABLE_COLLATION", 64, true), Int("CHECKSUM"),
               Text("CREATE_OPTIONS", 256, true), Text("TABLE_COMMENT", 2048, true)});
  for (const auto& [db, t] : VisibleTables(cat, visible, extra)) {
    bool has_ai = false;
    for (const auto& c : t->columns) has_ai = has_ai || c.auto_increment;
    v.rows.push_back({S("def"), S(db), S(t->name), S("BASE TABLE"), S(EngineOf(*t)), U(10), S("Dynamic"), U(0),
                      U(0), U(16384), U(0), U(0), U(0), has_ai ? U(t->auto_increment_next) : Null(), Null(),
                      Null(), Null(), S(t->options.collation), Null(), S(""), S(t->options.comment)});
  }
  return v;
}

VirtualTable Columns(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& system_tables) {
  VirtualTable v;
  v.def = Def("COLUMNS",
              {Text("TABLE_CATALOG"), Text("TABLE_SCHEMA"), Text("TABLE_NAME"), Text("COLUMN_NAME"),
               Int("ORDINAL_POSITION", false), Text("COLUMN_DEFAULT", 65535, true), Text("IS_NULLABLE", 3),
               Text("DATA_TYPE"), Int("CHARACTER_MAXIMUM_LENGTH"), Int("CHARACTER_OCTET_LENGTH"),
               Int("NUMERIC_PRECISION"), Int("NUMERIC_SCALE"), Int("DATETIME_PRECISION"),
               Text("CHARACTER_SET_NAME", 64, true), Text("COLLATION_NAME", 64, true), Text("COLUMN_TYPE", 65535),
               Text("COLUMN_KEY", 3), Text("EXTRA", 256, true), Text("PRIVILEGES", 154, true),
               Text("COLUMN_COMMENT", 1024), Text("GENERATION_EXPRESSION", 65535), Int("SRS_ID")});
  for (const auto& [db, t] : VisibleTables(cat, visible, system_tables)) {
    for (const ColumnDef& c : t->columns) {
      auto opt = [](std::optional<uint64_t> x) { return x ? U(*x) : Null(); };
      const bool text = storage::IsTextType(c.type) || c.type == ColumnType::kEnum;
      std::optional<uint64_t> chars = CharMaxLength(c);
      std::optional<uint64_t> octets = chars;
      if (chars && text && c.type != ColumnType::kTinyText && c.type != ColumnType::kText &&
          c.type != ColumnType::kMediumText && c.type != ColumnType::kLongText) {
        octets = *chars * MaxBytes(c.charset);
      }
      std::optional<uint64_t> scale;
      if (storage::IsIntegerType(c.type)) scale = 0;
      if (c.type == ColumnType::kDecimal) scale = c.scale;
      std::optional<uint64_t> dt_precision;
      if (c.type == ColumnType::kTime || c.type == ColumnType::kDateTime || c.type == ColumnType::kTimestamp) {
        dt_precision = c.fsp;
      }
      const std::string extra = ColumnExtra(c);
      std::optional<std::string> dflt = DefaultText(c);
      v.rows.push_back({S("def"), S(db), S(t->name), S(c.name), U(c.ordinal + 1), dflt ? S(*dflt) : Null(),
                        S(c.nullable ? "YES" : "NO"), S(DataType(c)), opt(chars), opt(octets),
                        opt(NumericPrecision(c)), opt(scale), opt(dt_precision),
                        text ? S(c.charset) : Null(), text ? S(c.collation) : Null(), S(ColumnTypeText(c)),
                        S(ColumnKey(*t, c)), S(extra), S("select,insert,update,references"), S(c.comment),
                        S(c.generated() ? ExprClauseText(c.generation_expr) : ""), Null()});
      (void)IsTemporal;
    }
  }
  return v;
}

// The (index, part) rows of STATISTICS / SHOW INDEX for every table.
template <typename Fn>
void ForEachIndexPart(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra, Fn fn) {
  for (const auto& [db, t] : VisibleTables(cat, visible, extra)) {
    for (const IndexDef& idx : t->indexes) {
      for (size_t i = 0; i < idx.parts.size(); ++i) fn(db, *t, idx, i);
    }
  }
}

VirtualTable Statistics(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra) {
  VirtualTable v;
  v.def = Def("STATISTICS",
              {Text("TABLE_CATALOG"), Text("TABLE_SCHEMA"), Text("TABLE_NAME"), Int("NON_UNIQUE", false),
               Text("INDEX_SCHEMA"), Text("INDEX_NAME"), Int("SEQ_IN_INDEX", false), Text("COLUMN_NAME", 64, true),
               Text("COLLATION", 1, true), Int("CARDINALITY"), Int("SUB_PART"), Text("PACKED", 10, true),
               Text("NULLABLE", 3), Text("INDEX_TYPE", 11), Text("COMMENT", 8), Text("INDEX_COMMENT", 2048),
               Text("IS_VISIBLE", 3), Text("EXPRESSION", 65535, true)});
  ForEachIndexPart(cat, visible, extra, [&](const std::string& db, const TableDef& t, const IndexDef& idx, size_t i) {
    const storage::KeyPart& p = idx.parts[i];
    const ColumnDef& c = t.columns[p.column];
    v.rows.push_back({S("def"), S(db), S(t.name), U(idx.unique ? 0 : 1), S(db), S(idx.name), U(i + 1), S(c.name),
                      S(p.desc ? "D" : "A"), U(0), p.prefix_length ? U(p.prefix_length) : Null(), Null(),
                      S(c.nullable ? "YES" : ""), S("BTREE"), S(""), S(""), S("YES"), Null()});
  });
  return v;
}

VirtualTable KeyColumnUsage(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra) {
  VirtualTable v;
  v.def = Def("KEY_COLUMN_USAGE",
              {Text("CONSTRAINT_CATALOG"), Text("CONSTRAINT_SCHEMA"), Text("CONSTRAINT_NAME"), Text("TABLE_CATALOG"),
               Text("TABLE_SCHEMA"), Text("TABLE_NAME"), Text("COLUMN_NAME", 64, true), Int("ORDINAL_POSITION", false),
               Int("POSITION_IN_UNIQUE_CONSTRAINT"), Text("REFERENCED_TABLE_SCHEMA", 64, true),
               Text("REFERENCED_TABLE_NAME", 64, true), Text("REFERENCED_COLUMN_NAME", 64, true)});
  ForEachIndexPart(cat, visible, extra, [&](const std::string& db, const TableDef& t, const IndexDef& idx, size_t i) {
    if (!idx.unique) return;  // PRIMARY KEY and UNIQUE constraints only
    v.rows.push_back({S("def"), S(db), S(idx.name), S("def"), S(db), S(t.name),
                      S(t.columns[idx.parts[i].column].name), U(i + 1), Null(), Null(), Null(), Null()});
  });
  for (const auto& [db, t] : VisibleTables(cat, visible, extra)) {
    for (const storage::ForeignKeyDef& fk : t->foreign_keys) {
      for (size_t i = 0; i < fk.columns.size(); ++i) {
        v.rows.push_back({S("def"), S(db), S(fk.name), S("def"), S(db), S(t->name), S(fk.columns[i]), U(i + 1),
                          U(i + 1), S(fk.ref_schema), S(fk.ref_table), S(fk.ref_columns[i])});
      }
    }
  }
  return v;
}

VirtualTable ReferentialConstraints(const storage::CatalogSnapshot& cat, const Visible& visible,
                                    const Extra& extra) {
  VirtualTable v;
  v.def = Def("REFERENTIAL_CONSTRAINTS",
              {Text("CONSTRAINT_CATALOG"), Text("CONSTRAINT_SCHEMA"), Text("CONSTRAINT_NAME"),
               Text("UNIQUE_CONSTRAINT_CATALOG"), Text("UNIQUE_CONSTRAINT_SCHEMA"),
               Text("UNIQUE_CONSTRAINT_NAME", 64, true), Text("MATCH_OPTION", 7), Text("UPDATE_RULE", 11),
               Text("DELETE_RULE", 11), Text("TABLE_NAME"), Text("REFERENCED_TABLE_NAME")});
  for (const auto& [db, t] : VisibleTables(cat, visible, extra)) {
    for (const storage::ForeignKeyDef& fk : t->foreign_keys) {
      // The parent's index the key uses (none while the parent is missing).
      storage::CatalogSnapshot::TablePtr parent = cat.FindTable(fk.ref_schema, fk.ref_table);
      const int index = parent != nullptr ? IndexLeadingWith(*parent, fk.ref_columns) : -1;
      v.rows.push_back({S("def"), S(db), S(fk.name), S("def"), S(fk.ref_schema),
                        index >= 0 ? S(parent->indexes[index].name) : Null(), S("NONE"),
                        S(std::string(storage::ForeignKeyActionName(fk.on_update))),
                        S(std::string(storage::ForeignKeyActionName(fk.on_delete))), S(t->name), S(fk.ref_table)});
    }
  }
  return v;
}

VirtualTable TableConstraints(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra) {
  VirtualTable v;
  v.def = Def("TABLE_CONSTRAINTS", {Text("CONSTRAINT_CATALOG"), Text("CONSTRAINT_SCHEMA"), Text("CONSTRAINT_NAME"),
                                    Text("TABLE_SCHEMA"), Text("TABLE_NAME"), Text("CONSTRAINT_TYPE", 11),
                                    Text("ENFORCED", 3)});
  for (const auto& [db, t] : VisibleTables(cat, visible, extra)) {
    for (const IndexDef& idx : t->indexes) {
      if (!idx.unique || idx.parts.empty()) continue;
      const bool primary = idx.kind == storage::IndexKind::kClustered;
      v.rows.push_back({S("def"), S(db), S(idx.name), S(db), S(t->name), S(primary ? "PRIMARY KEY" : "UNIQUE"),
                        S("YES")});
    }
    for (const storage::ForeignKeyDef& fk : t->foreign_keys) {
      v.rows.push_back({S("def"), S(db), S(fk.name), S(db), S(t->name), S("FOREIGN KEY"), S("YES")});
    }
    for (const storage::CheckDef& c : t->checks) {
      v.rows.push_back({S("def"), S(db), S(c.name), S(db), S(t->name), S("CHECK"), S(c.enforced ? "YES" : "NO")});
    }
  }
  return v;
}

VirtualTable CheckConstraints(const storage::CatalogSnapshot& cat, const Visible& visible, const Extra& extra) {
  VirtualTable v;
  v.def = Def("CHECK_CONSTRAINTS", {Text("CONSTRAINT_CATALOG"), Text("CONSTRAINT_SCHEMA"), Text("CONSTRAINT_NAME"),
                                    Text("CHECK_CLAUSE", 65535)});
  for (const auto& [db, t] : VisibleTables(cat, visible, extra)) {
    for (const storage::CheckDef& c : t->checks) {
      v.rows.push_back({S("def"), S(db), S(c.name), S(CheckClauseText(c))});
    }
  }
  return v;
}

}  // namespace

namespace {

// Tables sluice has nothing to put in (no tablespaces files, triggers,
// routines or views), with MySQL 8.0's columns, so that dump
// and CDC tools that query them get an empty answer instead of 1109.
VirtualTable Empty(std::string_view name) {
  auto texts = [](std::initializer_list<const char*> names) {
    std::vector<ColumnDef> cols;
    for (const char* n : names) cols.push_back(Text(n, 64, true));
    return cols;
  };
  VirtualTable vt;
  if (name == "FILES") {
    std::vector<ColumnDef> cols = {Int("FILE_ID")};
    for (auto& c : texts({"FILE_NAME", "FILE_TYPE", "TABLESPACE_NAME", "TABLE_CATALOG", "TABLE_SCHEMA",
                          "TABLE_NAME", "LOGFILE_GROUP_NAME"})) {
      cols.push_back(std::move(c));
    }
    cols.push_back(Int("LOGFILE_GROUP_NUMBER"));
    cols.push_back(Text("ENGINE", 64, true));
    cols.push_back(Text("FULLTEXT_KEYS", 64, true));
    for (const char* n : {"DELETED_ROWS", "UPDATE_COUNT", "FREE_EXTENTS", "TOTAL_EXTENTS", "EXTENT_SIZE",
                          "INITIAL_SIZE", "MAXIMUM_SIZE", "AUTOEXTEND_SIZE"}) {
      cols.push_back(Int(n));
    }
    for (auto& c : texts({"CREATION_TIME", "LAST_UPDATE_TIME", "LAST_ACCESS_TIME", "RECOVER_TIME"})) {
      cols.push_back(std::move(c));
    }
    cols.push_back(Int("TRANSACTION_COUNTER"));
    cols.push_back(Int("VERSION"));
    cols.push_back(Text("ROW_FORMAT", 10, true));
    for (const char* n : {"TABLE_ROWS", "AVG_ROW_LENGTH", "DATA_LENGTH", "MAX_DATA_LENGTH", "INDEX_LENGTH",
                          "DATA_FREE"}) {
      cols.push_back(Int(n));
    }
    for (auto& c : texts({"CREATE_TIME", "UPDATE_TIME", "CHECK_TIME"})) cols.push_back(std::move(c));
    cols.push_back(Int("CHECKSUM"));
    cols.push_back(Text("STATUS", 20, true));
    cols.push_back(Text("EXTRA", 255, true));
    vt.def = Def("FILES", std::move(cols));
  } else if (name == "TRIGGERS") {
    vt.def = Def("TRIGGERS", texts({"TRIGGER_CATALOG", "TRIGGER_SCHEMA", "TRIGGER_NAME", "EVENT_MANIPULATION",
                                    "EVENT_OBJECT_CATALOG", "EVENT_OBJECT_SCHEMA", "EVENT_OBJECT_TABLE",
                                    "ACTION_ORDER", "ACTION_CONDITION", "ACTION_STATEMENT", "ACTION_ORIENTATION",
                                    "ACTION_TIMING", "CREATED", "SQL_MODE", "DEFINER", "CHARACTER_SET_CLIENT",
                                    "COLLATION_CONNECTION", "DATABASE_COLLATION"}));
  } else if (name == "ROUTINES") {
    vt.def = Def("ROUTINES", texts({"SPECIFIC_NAME", "ROUTINE_CATALOG", "ROUTINE_SCHEMA", "ROUTINE_NAME",
                                    "ROUTINE_TYPE", "DATA_TYPE", "ROUTINE_BODY", "ROUTINE_DEFINITION",
                                    "IS_DETERMINISTIC", "SQL_DATA_ACCESS", "SECURITY_TYPE", "CREATED",
                                    "LAST_ALTERED", "SQL_MODE", "ROUTINE_COMMENT", "DEFINER"}));
  } else if (name == "VIEWS") {
    vt.def = Def("VIEWS", texts({"TABLE_CATALOG", "TABLE_SCHEMA", "TABLE_NAME", "VIEW_DEFINITION", "CHECK_OPTION",
                                 "IS_UPDATABLE", "DEFINER", "SECURITY_TYPE", "CHARACTER_SET_CLIENT",
                                 "COLLATION_CONNECTION"}));
  }
  return vt;
}

}  // namespace

std::vector<std::string> InformationSchemaTableNames() {
  return {"CHECK_CONSTRAINTS", "COLUMNS", "FILES", "KEY_COLUMN_USAGE", "PLUGINS", "REFERENTIAL_CONSTRAINTS",
          "ROUTINES", "SCHEMATA", "STATISTICS", "TABLES", "TABLE_CONSTRAINTS", "TRIGGERS", "VIEWS"};
}

VirtualTable InformationSchemaTable(std::string_view name, const storage::CatalogSnapshot& catalog,
                                    const std::function<bool(const std::string&)>& visible) {
  const Extra extra = MysqlSchemaListedTables();
  const std::string n = sql::AsciiUpper(name);
  if (n == "SCHEMATA") return Schemata(catalog, visible);
  if (n == "TABLES") return Tables(catalog, visible, extra);
  if (n == "COLUMNS") return Columns(catalog, visible, extra);
  if (n == "STATISTICS") return Statistics(catalog, visible, extra);
  if (n == "KEY_COLUMN_USAGE") return KeyColumnUsage(catalog, visible, extra);
  if (n == "TABLE_CONSTRAINTS") return TableConstraints(catalog, visible, extra);
  if (n == "CHECK_CONSTRAINTS") return CheckConstraints(catalog, visible, extra);
  if (n == "REFERENTIAL_CONSTRAINTS") return ReferentialConstraints(catalog, visible, extra);
  return Empty(n);
}

VirtualTable InformationSchemaPlugins(const std::vector<PluginInfo>& plugins) {
  VirtualTable vt;
  vt.def = Def("PLUGINS", {Text("PLUGIN_NAME"), Text("PLUGIN_VERSION", 20), Text("PLUGIN_STATUS", 10),
                           Text("PLUGIN_TYPE", 80), Text("PLUGIN_TYPE_VERSION", 20), Text("PLUGIN_LIBRARY", 64, true),
                           Text("PLUGIN_LIBRARY_VERSION", 20, true), Text("PLUGIN_AUTHOR", 64, true),
                           Text("PLUGIN_DESCRIPTION", 65535, true), Text("PLUGIN_LICENSE", 80, true),
                           Text("LOAD_OPTION", 64)});
  auto opt = [](const std::string& s) { return s.empty() ? Null() : S(s); };
  for (const PluginInfo& p : plugins) {
    vt.rows.push_back({S(p.name), S(p.version), S(p.status), S(p.type), S(p.type_version), opt(p.library),
                       opt(p.library_version), opt(p.author), opt(p.description), opt(p.license), S(p.load_option)});
  }
  return vt;
}

}  // namespace sluice::exec
