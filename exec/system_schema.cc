#include "exec/system_schema.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>

#include "acl/privilege.h"
#include "sql/lexer.h"

namespace sluice::exec {

namespace {

using acl::Priv;
using storage::ColumnDef;
using storage::ColumnType;
using storage::IndexDef;
using storage::IndexKind;
using storage::RowValue;
using storage::TableDef;

// ---- column shapes (MySQL 8.0's types for these tables)

ColumnDef Column(std::string name, ColumnType type) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  return c;
}

// CHAR(n) NOT NULL DEFAULT '' in `charset`.
ColumnDef Char(std::string name, uint32_t length, const char* charset, const char* collation) {
  ColumnDef c = Column(std::move(name), ColumnType::kChar);
  c.length = length;
  c.nullable = false;
  c.charset = charset;
  c.collation = collation;
  c.default_kind = ColumnDef::DefaultKind::kValue;
  return c;
}

ColumnDef HostColumn() { return Char("Host", 255, "ascii", "ascii_general_ci"); }
ColumnDef UserColumn() { return Char("User", 32, "utf8mb3", "utf8mb3_bin"); }
ColumnDef DbColumn() { return Char("Db", 64, "utf8mb3", "utf8mb3_bin"); }

// enum('N','Y') NOT NULL DEFAULT 'N': a privilege flag.
ColumnDef Flag(std::string name, bool nullable = false) {
  ColumnDef c = Column(std::move(name), ColumnType::kEnum);
  c.enum_values = {"N", "Y"};
  c.nullable = nullable;
  c.charset = "utf8mb3";
  c.collation = "utf8mb3_general_ci";
  c.default_kind = nullable ? ColumnDef::DefaultKind::kNull : ColumnDef::DefaultKind::kValue;
  c.default_value = "N";
  return c;
}

ColumnDef Unsigned(std::string name, ColumnType type, bool nullable, const char* dflt = nullptr) {
  ColumnDef c = Column(std::move(name), type);
  c.is_unsigned = true;
  c.nullable = nullable;
  if (dflt != nullptr) {
    c.default_kind = ColumnDef::DefaultKind::kValue;
    c.default_value = dflt;
  } else if (nullable) {
    c.default_kind = ColumnDef::DefaultKind::kNull;
  }
  return c;
}

ColumnDef Text(std::string name, ColumnType type, bool nullable, const char* charset = "utf8mb3",
               const char* collation = "utf8mb3_bin") {
  ColumnDef c = Column(std::move(name), type);
  c.nullable = nullable;
  c.charset = charset;
  c.collation = collation;
  if (nullable) c.default_kind = ColumnDef::DefaultKind::kNull;
  return c;
}

ColumnDef Blob(std::string name, ColumnType type, bool nullable) {
  ColumnDef c = Column(std::move(name), type);
  c.nullable = nullable;
  if (nullable) c.default_kind = ColumnDef::DefaultKind::kNull;
  return c;
}

// TIMESTAMP(fsp) NOT NULL DEFAULT CURRENT_TIMESTAMP(fsp) ON UPDATE ...: the
// log tables' event time.
ColumnDef EventTime(std::string name) {
  ColumnDef c = Column(std::move(name), ColumnType::kTimestamp);
  c.fsp = 6;
  c.nullable = false;
  c.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
  c.on_update_current_timestamp = true;
  return c;
}

std::shared_ptr<TableDef> Def(std::string name, std::vector<ColumnDef> columns, std::vector<std::string> key,
                              std::string charset, std::string collation, std::string comment) {
  auto def = std::make_shared<TableDef>();
  def->schema = "mysql";
  def->name = std::move(name);
  def->columns = std::move(columns);
  for (uint32_t i = 0; i < def->columns.size(); ++i) def->columns[i].ordinal = i;
  if (!key.empty()) {
    IndexDef pk;
    pk.name = std::string(storage::kPrimaryKeyName);
    pk.kind = IndexKind::kClustered;
    pk.unique = true;
    for (const std::string& k : key) {
      storage::KeyPart part;
      part.column_name = k;
      const ColumnDef* c = def->FindColumn(k);
      part.column = c != nullptr ? c->ordinal : 0;
      pk.parts.push_back(std::move(part));
    }
    def->indexes.push_back(std::move(pk));
  }
  def->options.charset = std::move(charset);
  def->options.collation = std::move(collation);
  def->options.comment = std::move(comment);
  return def;
}

// mysql.user's static privilege columns, in MySQL 8.0's column order (which
// is not the Priv order), with the privilege each shows. Grant_priv (no
// privilege: GRANT OPTION) is the null entry.
struct PrivColumn {
  const char* name;
  std::optional<Priv> priv;
};
constexpr PrivColumn kUserPrivColumns[] = {
    {"Select_priv", Priv::kSelect},
    {"Insert_priv", Priv::kInsert},
    {"Update_priv", Priv::kUpdate},
    {"Delete_priv", Priv::kDelete},
    {"Create_priv", Priv::kCreate},
    {"Drop_priv", Priv::kDrop},
    {"Reload_priv", Priv::kReload},
    {"Shutdown_priv", Priv::kShutdown},
    {"Process_priv", Priv::kProcess},
    {"File_priv", Priv::kFile},
    {"Grant_priv", std::nullopt},
    {"References_priv", Priv::kReferences},
    {"Index_priv", Priv::kIndex},
    {"Alter_priv", Priv::kAlter},
    {"Show_db_priv", Priv::kShowDatabases},
    {"Super_priv", Priv::kSuper},
    {"Create_tmp_table_priv", Priv::kCreateTemporaryTables},
    {"Lock_tables_priv", Priv::kLockTables},
    {"Execute_priv", Priv::kExecute},
    {"Repl_slave_priv", Priv::kReplicationSlave},
    {"Repl_client_priv", Priv::kReplicationClient},
    {"Create_view_priv", Priv::kCreateView},
    {"Show_view_priv", Priv::kShowView},
    {"Create_routine_priv", Priv::kCreateRoutine},
    {"Alter_routine_priv", Priv::kAlterRoutine},
    {"Create_user_priv", Priv::kCreateUser},
    {"Event_priv", Priv::kEvent},
    {"Trigger_priv", Priv::kTrigger},
    {"Create_tablespace_priv", Priv::kCreateTablespace},
};

// mysql.db's privilege columns, in MySQL 8.0's order.
constexpr PrivColumn kDbPrivColumns[] = {
    {"Select_priv", Priv::kSelect},
    {"Insert_priv", Priv::kInsert},
    {"Update_priv", Priv::kUpdate},
    {"Delete_priv", Priv::kDelete},
    {"Create_priv", Priv::kCreate},
    {"Drop_priv", Priv::kDrop},
    {"Grant_priv", std::nullopt},
    {"References_priv", Priv::kReferences},
    {"Index_priv", Priv::kIndex},
    {"Alter_priv", Priv::kAlter},
    {"Create_tmp_table_priv", Priv::kCreateTemporaryTables},
    {"Lock_tables_priv", Priv::kLockTables},
    {"Create_view_priv", Priv::kCreateView},
    {"Show_view_priv", Priv::kShowView},
    {"Create_routine_priv", Priv::kCreateRoutine},
    {"Alter_routine_priv", Priv::kAlterRoutine},
    {"Execute_priv", Priv::kExecute},
    {"Event_priv", Priv::kEvent},
    {"Trigger_priv", Priv::kTrigger},
};

std::shared_ptr<TableDef> UserDef() {
  std::vector<ColumnDef> cols = {HostColumn(), UserColumn()};
  for (const PrivColumn& p : kUserPrivColumns) cols.push_back(Flag(p.name));
  ColumnDef ssl_type = Column("ssl_type", ColumnType::kEnum);
  ssl_type.enum_values = {"", "ANY", "X509", "SPECIFIED"};
  ssl_type.nullable = false;
  ssl_type.charset = "utf8mb3";
  ssl_type.collation = "utf8mb3_general_ci";
  ssl_type.default_kind = ColumnDef::DefaultKind::kValue;
  cols.push_back(std::move(ssl_type));
  cols.push_back(Blob("ssl_cipher", ColumnType::kBlob, false));
  cols.push_back(Blob("x509_issuer", ColumnType::kBlob, false));
  cols.push_back(Blob("x509_subject", ColumnType::kBlob, false));
  for (const char* n : {"max_questions", "max_updates", "max_connections", "max_user_connections"}) {
    cols.push_back(Unsigned(n, ColumnType::kInt, false, "0"));
  }
  ColumnDef plugin = Char("plugin", 64, "ascii", "ascii_bin");
  plugin.default_value = "caching_sha2_password";
  cols.push_back(std::move(plugin));
  cols.push_back(Text("authentication_string", ColumnType::kText, true));
  cols.push_back(Flag("password_expired"));
  ColumnDef changed = Column("password_last_changed", ColumnType::kTimestamp);
  changed.default_kind = ColumnDef::DefaultKind::kNull;
  cols.push_back(std::move(changed));
  cols.push_back(Unsigned("password_lifetime", ColumnType::kSmallInt, true));
  cols.push_back(Flag("account_locked"));
  cols.push_back(Flag("Create_role_priv"));
  cols.push_back(Flag("Drop_role_priv"));
  cols.push_back(Unsigned("Password_reuse_history", ColumnType::kSmallInt, true));
  cols.push_back(Unsigned("Password_reuse_time", ColumnType::kSmallInt, true));
  cols.push_back(Flag("Password_require_current", /*nullable=*/true));
  // JSON in MySQL; sluice has no JSON column type, and it is always NULL here.
  cols.push_back(Text("User_attributes", ColumnType::kLongText, true, "utf8mb4", "utf8mb4_bin"));
  return Def("user", std::move(cols), {"Host", "User"}, "utf8mb3", "utf8mb3_bin",
             "Users and global privileges");
}

std::shared_ptr<TableDef> DbDef() {
  std::vector<ColumnDef> cols = {HostColumn(), DbColumn(), UserColumn()};
  for (const PrivColumn& p : kDbPrivColumns) cols.push_back(Flag(p.name));
  return Def("db", std::move(cols), {"Host", "Db", "User"}, "utf8mb3", "utf8mb3_bin",
             "Database privileges");
}

std::shared_ptr<TableDef> TablesPrivDef() {
  std::vector<ColumnDef> cols = {HostColumn(), DbColumn(), UserColumn(),
                                 Char("Table_name", 64, "utf8mb3", "utf8mb3_bin")};
  ColumnDef grantor = Column("Grantor", ColumnType::kVarChar);
  grantor.length = 288;
  grantor.nullable = false;
  grantor.charset = "utf8mb3";
  grantor.collation = "utf8mb3_bin";
  grantor.default_kind = ColumnDef::DefaultKind::kValue;
  cols.push_back(std::move(grantor));
  ColumnDef ts = Column("Timestamp", ColumnType::kTimestamp);
  ts.nullable = false;
  ts.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
  ts.on_update_current_timestamp = true;
  cols.push_back(std::move(ts));
  // SET(...) columns in MySQL; sluice has no SET type. The table is always
  // empty: sluice grants privileges at *.* and db.* only.
  for (const char* n : {"Table_priv", "Column_priv"}) {
    ColumnDef c = Column(n, ColumnType::kVarChar);
    c.length = 255;
    c.nullable = false;
    c.charset = "utf8mb3";
    c.collation = "utf8mb3_general_ci";
    c.default_kind = ColumnDef::DefaultKind::kValue;
    cols.push_back(std::move(c));
  }
  return Def("tables_priv", std::move(cols), {"Host", "Db", "User", "Table_name"}, "utf8mb3", "utf8mb3_bin",
             "Table privileges");
}

std::shared_ptr<TableDef> GeneralLogDef() {
  return Def("general_log",
             {EventTime("event_time"), Text("user_host", ColumnType::kMediumText, false, "utf8mb3",
                                            "utf8mb3_general_ci"),
              Unsigned("thread_id", ColumnType::kBigInt, false), Unsigned("server_id", ColumnType::kInt, false),
              [] {
                ColumnDef c = Column("command_type", ColumnType::kVarChar);
                c.length = 64;
                c.nullable = false;
                return c;
              }(),
              Blob("argument", ColumnType::kMediumBlob, false)},
             {}, "utf8mb3", "utf8mb3_general_ci", "General log");
}

std::shared_ptr<TableDef> SlowLogDef() {
  auto time6 = [](const char* n) {
    ColumnDef c = Column(n, ColumnType::kTime);
    c.fsp = 6;
    c.nullable = false;
    return c;
  };
  auto int_nn = [](const char* n) {
    ColumnDef c = Column(n, ColumnType::kInt);
    c.nullable = false;
    return c;
  };
  ColumnDef db = Column("db", ColumnType::kVarChar);
  db.length = 512;
  db.nullable = false;
  return Def("slow_log",
             {EventTime("start_time"),
              Text("user_host", ColumnType::kMediumText, false, "utf8mb3", "utf8mb3_general_ci"),
              time6("query_time"), time6("lock_time"), int_nn("rows_sent"), int_nn("rows_examined"), db,
              int_nn("last_insert_id"), int_nn("insert_id"), Unsigned("server_id", ColumnType::kInt, false),
              Blob("sql_text", ColumnType::kMediumBlob, false), Unsigned("thread_id", ColumnType::kBigInt, false)},
             {}, "utf8mb3", "utf8mb3_general_ci", "Slow log");
}

std::shared_ptr<TableDef> PluginDef() {
  return Def("plugin",
             {Char("name", 64, "utf8mb3", "utf8mb3_general_ci"), Char("dl", 128, "utf8mb3", "utf8mb3_general_ci")},
             {"name"}, "utf8mb3", "utf8mb3_general_ci", "MySQL plugins");
}

// The definitions, made once (they never change).
struct Defs {
  std::shared_ptr<const TableDef> plugin = PluginDef();
  std::shared_ptr<const TableDef> user = UserDef();
  std::shared_ptr<const TableDef> db = DbDef();
  std::shared_ptr<const TableDef> tables_priv = TablesPrivDef();
  std::shared_ptr<const TableDef> general_log = GeneralLogDef();
  std::shared_ptr<const TableDef> slow_log = SlowLogDef();
};
const Defs& AllDefs() {
  static const Defs defs;
  return defs;
}

RowValue Yn(bool y) { return RowValue(uint64_t{y ? 2u : 1u}); }  // enum('N','Y'): 1-based

// Accounts in the order of mysql.user's primary key (Host, User).
std::vector<acl::AccountRef> ByHostUser(std::vector<acl::AccountRef> accounts) {
  std::sort(accounts.begin(), accounts.end(), [](const acl::AccountRef& a, const acl::AccountRef& b) {
    return std::tie(a->host, a->user) < std::tie(b->host, b->user);
  });
  return accounts;
}

VirtualTable UserRows(const std::vector<acl::AccountRef>& accounts) {
  VirtualTable vt;
  vt.def = AllDefs().user;
  for (const acl::AccountRef& a : ByHostUser(accounts)) {
    storage::Row row = {RowValue(a->host), RowValue(a->user)};
    for (const PrivColumn& p : kUserPrivColumns) {
      row.push_back(Yn(p.priv ? a->global_privs.Has(*p.priv) : a->global_grant_option));
    }
    row.push_back(RowValue(uint64_t{1}));  // ssl_type ''
    for (int i = 0; i < 3; ++i) row.push_back(RowValue(std::string()));
    for (int i = 0; i < 4; ++i) row.push_back(RowValue(uint64_t{0}));
    row.push_back(RowValue(a->plugin));
    // The stored hash, as MySQL shows it to readers of mysql.user (never
    // the password); readers need SELECT on mysql.
    row.push_back(RowValue(a->auth_string));
    row.push_back(Yn(a->password_expired));
    row.push_back(RowValue());  // password_last_changed: not recorded
    row.push_back(RowValue());  // password_lifetime: the global policy
    row.push_back(Yn(a->locked));
    row.push_back(Yn(a->global_privs.Has(Priv::kCreateRole)));
    row.push_back(Yn(a->global_privs.Has(Priv::kDropRole)));
    row.push_back(RowValue());
    row.push_back(RowValue());
    row.push_back(RowValue());
    row.push_back(RowValue());
    vt.rows.push_back(std::move(row));
  }
  return vt;
}

VirtualTable DbRows(const std::vector<acl::AccountRef>& accounts) {
  VirtualTable vt;
  vt.def = AllDefs().db;
  struct Entry {
    const acl::Account* account;
    const acl::DbGrant* grant;
  };
  std::vector<Entry> entries;
  for (const acl::AccountRef& a : accounts) {
    for (const acl::DbGrant& g : a->db_grants) entries.push_back({a.get(), &g});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& x, const Entry& y) {
    return std::tie(x.account->host, x.grant->db, x.account->user) <
           std::tie(y.account->host, y.grant->db, y.account->user);
  });
  for (const Entry& e : entries) {
    storage::Row row = {RowValue(e.account->host), RowValue(e.grant->db), RowValue(e.account->user)};
    for (const PrivColumn& p : kDbPrivColumns) {
      row.push_back(Yn(p.priv ? e.grant->privs.Has(*p.priv) : e.grant->grant_option));
    }
    vt.rows.push_back(std::move(row));
  }
  return vt;
}

}  // namespace

const std::vector<std::string>& SystemSchemaNames() {
  static const std::vector<std::string> k = {"information_schema", "mysql", "performance_schema", "sys"};
  return k;
}

std::string SystemSchemaName(std::string_view db) {
  const std::string lower = sql::AsciiLower(db);
  for (const std::string& s : SystemSchemaNames()) {
    if (s == lower) return s;
  }
  return "";
}

bool IsSystemSchema(std::string_view db) { return !SystemSchemaName(db).empty(); }

SchemaCharset SystemSchemaCharset(std::string_view db) {
  if (SystemSchemaName(db) == "information_schema") return {"utf8mb3", "utf8mb3_general_ci"};
  return {"utf8mb4", "utf8mb4_0900_ai_ci"};
}

std::shared_ptr<const storage::TableDef> MysqlSchemaTableDef(std::string_view name) {
  const std::string n = sql::AsciiLower(name);
  const Defs& d = AllDefs();
  if (n == "user") return d.user;
  if (n == "db") return d.db;
  if (n == "tables_priv") return d.tables_priv;
  if (n == "plugin") return d.plugin;
  if (n == "general_log") return d.general_log;
  if (n == "slow_log") return d.slow_log;
  return nullptr;
}

VirtualTable MysqlSchemaTable(std::string_view name, const std::vector<acl::AccountRef>& accounts) {
  const std::string n = sql::AsciiLower(name);
  if (n == "user") return UserRows(accounts);
  if (n == "db") return DbRows(accounts);
  VirtualTable vt;
  vt.def = MysqlSchemaTableDef(n);  // tables_priv and the log tables: no rows
  return vt;
}

std::vector<std::shared_ptr<const storage::TableDef>> MysqlSchemaListedTables() {
  return {AllDefs().general_log, AllDefs().slow_log};
}

std::string EngineOf(const storage::TableDef& def) {
  if (def.schema == "mysql" && (def.name == "general_log" || def.name == "slow_log")) return "CSV";
  return "InnoDB";
}

VirtualTable MysqlPluginTable(std::vector<std::pair<std::string, std::string>> recorded) {
  std::sort(recorded.begin(), recorded.end());
  VirtualTable vt;
  vt.def = AllDefs().plugin;
  for (auto& [name, dl] : recorded) vt.rows.push_back({RowValue(std::move(name)), RowValue(std::move(dl))});
  return vt;
}

}  // namespace sluice::exec
