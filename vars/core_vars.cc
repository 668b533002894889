#include "vars/core_vars.h"

#include <fmt/format.h>

#include <chrono>
#include <limits>
#include <utility>
#include <vector>

#include "base/mysql_error.h"
#include "sql/lexer.h"

namespace sluice::vars {
namespace {

constexpr uint64_t kU32Max = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kU64Max = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kOneYearSeconds = 31536000;
// TIMESTAMP's upper bound on 64-bit platforms (MySQL 8.0.28+).
constexpr double kMaxTimestamp = 32536771199.999999;

// Errors MySQL sends that base/mysql_error.h does not list yet.
Status UnknownTimeZone(std::string_view tz) {
  return MakeError(er::kUnknownTimeZone, tz);
}
Status UnknownStorageEngine(std::string_view engine) {
  return MakeError(er::kUnknownStorageEngine, engine);
}
Status UnknownLocale(std::string_view locale) {
  return MakeError(er::kUnknownLocale, locale);
}

// {spelling a client may use, canonical name}.
constexpr std::pair<std::string_view, std::string_view> kCharsets[] = {
    {"utf8mb4", "utf8mb4"}, {"utf8mb3", "utf8mb3"}, {"utf8", "utf8mb3"},
    {"latin1", "latin1"},   {"ascii", "ascii"},     {"binary", "binary"},
};

constexpr std::pair<std::string_view, std::string_view> kCollations[] = {
    {"utf8mb4_0900_ai_ci", "utf8mb4_0900_ai_ci"},
    {"utf8mb4_0900_as_ci", "utf8mb4_0900_as_ci"},
    {"utf8mb4_0900_as_cs", "utf8mb4_0900_as_cs"},
    {"utf8mb4_0900_bin", "utf8mb4_0900_bin"},
    {"utf8mb4_general_ci", "utf8mb4_general_ci"},
    {"utf8mb4_bin", "utf8mb4_bin"},
    {"utf8mb4_unicode_ci", "utf8mb4_unicode_ci"},
    {"utf8mb4_unicode_520_ci", "utf8mb4_unicode_520_ci"},
    {"utf8mb3_general_ci", "utf8mb3_general_ci"},
    {"utf8mb3_bin", "utf8mb3_bin"},
    {"utf8mb3_unicode_ci", "utf8mb3_unicode_ci"},
    {"utf8_general_ci", "utf8mb3_general_ci"},
    {"utf8_bin", "utf8mb3_bin"},
    {"utf8_unicode_ci", "utf8mb3_unicode_ci"},
    {"latin1_swedish_ci", "latin1_swedish_ci"},
    {"latin1_general_ci", "latin1_general_ci"},
    {"latin1_bin", "latin1_bin"},
    {"ascii_general_ci", "ascii_general_ci"},
    {"ascii_bin", "ascii_bin"},
    {"binary", "binary"},
};

constexpr std::string_view kLocales[] = {
    "en_US", "en_GB", "en_AU", "en_CA", "en_IN", "en_NZ", "en_ZA", "de_DE", "de_AT", "de_CH",
    "fr_FR", "fr_BE", "fr_CA", "fr_CH", "es_ES", "es_MX", "es_AR", "it_IT", "it_CH", "pt_PT",
    "pt_BR", "nl_NL", "nl_BE", "sv_SE", "da_DK", "nb_NO", "no_NO", "fi_FI", "pl_PL", "cs_CZ",
    "sk_SK", "hu_HU", "ro_RO", "ru_RU", "uk_UA", "tr_TR", "el_GR", "he_IL", "ar_SA", "ja_JP",
    "ko_KR", "zh_CN", "zh_TW", "zh_HK", "th_TH", "vi_VN", "id_ID", "ms_MY", "hi_IN",
};

template <size_t N>
NameResolver TableResolver(const std::pair<std::string_view, std::string_view> (&table)[N]) {
  return [&table](std::string_view name) -> std::optional<std::string> {
    for (const auto& [spelling, canonical] : table) {
      if (sql::EqualsIgnoreCase(spelling, name)) return std::string(canonical);
    }
    return std::nullopt;
  };
}

// A check that canonicalises a name through `resolve` or fails with `error`.
CheckFn NameCheck(NameResolver resolve, Status (*error)(std::string_view)) {
  return [resolve = std::move(resolve), error](SetScope, sql::Value* value,
                                               const SessionVariables*) -> Status {
    if (value->is_null()) return Status::OK();  // only nullable variables get here with NULL
    std::optional<std::string> canonical = resolve(value->string_value());
    if (!canonical) return error(value->string_value());
    *value = sql::Value::String(std::move(*canonical));
    return Status::OK();
  };
}

Status UnknownCharset(std::string_view name) { return MakeError(er::kUnknownCharacterSet, name); }
Status UnknownCollation(std::string_view name) { return MakeError(er::kUnknownCollation, name); }

// 'SYSTEM', 'UTC', or an offset '[+-]H:MM' within -13:59..+14:00, stored as
// MySQL shows it ('+05:30').
Status CheckTimeZone(SetScope, sql::Value* value, const SessionVariables*) {
  const std::string text = value->string_value();
  if (sql::EqualsIgnoreCase(text, "SYSTEM")) {
    *value = sql::Value::String("SYSTEM");
    return Status::OK();
  }
  if (sql::EqualsIgnoreCase(text, "UTC")) {
    *value = sql::Value::String("UTC");
    return Status::OK();
  }
  std::string_view s = text;
  if (s.size() < 5 || (s[0] != '+' && s[0] != '-')) return UnknownTimeZone(text);
  bool negative = s[0] == '-';
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon < 2 || colon > 3 || s.size() != colon + 3) {
    return UnknownTimeZone(text);
  }
  auto number = [](std::string_view digits, int* out) {
    int n = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + (c - '0');
    }
    *out = n;
    return true;
  };
  int hours = 0, minutes = 0;
  if (!number(s.substr(1, colon - 1), &hours) || !number(s.substr(colon + 1), &minutes) ||
      minutes > 59) {
    return UnknownTimeZone(text);
  }
  int total = hours * 60 + minutes;
  if ((negative && total > 13 * 60 + 59) || (!negative && total > 14 * 60)) {
    return UnknownTimeZone(text);
  }
  *value = sql::Value::String(fmt::format("{}{:02d}:{:02d}", negative ? '-' : '+', hours, minutes));
  return Status::OK();
}

Status CheckLocale(SetScope, sql::Value* value, const SessionVariables*) {
  for (std::string_view locale : kLocales) {
    if (sql::EqualsIgnoreCase(locale, value->string_value())) {
      *value = sql::Value::String(std::string(locale));
      return Status::OK();
    }
  }
  return UnknownLocale(value->string_value());
}

// sluice has one engine; it answers to MySQL's name for it.
Status CheckStorageEngine(SetScope, sql::Value* value, const SessionVariables*) {
  if (!sql::EqualsIgnoreCase(value->string_value(), "InnoDB")) return UnknownStorageEngine(value->string_value());
  *value = sql::Value::String("InnoDB");
  return Status::OK();
}

double NowSeconds() {
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  return static_cast<double>(us) / 1e6;
}

}  // namespace

Status RegisterCoreVariables(SystemVariables& vars, const CoreVariableDefaults& d) {
  using S = VariableSpec;
  constexpr VarScope kG = VarScope::kGlobal;
  constexpr VarScope kS = VarScope::kSession;
  constexpr VarScope kB = VarScope::kBoth;
  NameResolver charset = d.resolve_charset ? d.resolve_charset : TableResolver(kCharsets);
  NameResolver collation = d.resolve_collation ? d.resolve_collation : TableResolver(kCollations);

  std::vector<VariableSpec> specs;
  auto add = [&specs](VariableSpec spec) -> VariableSpec& {
    specs.push_back(std::move(spec));
    return specs.back();
  };

  // ---- What the server is ----
  add(S::String("version", kG, d.version,
                "The server version clients see in the handshake and VERSION(); clients pick "
                "dialects from it, so it stays MySQL-shaped."))
      .ReadOnly().NotPersistable();
  add(S::String("version_comment", kG, d.version_comment,
                "Free text shown by the mysql client's banner after the version."))
      .ReadOnly().NotPersistable();
  add(S::String("version_compile_os", kG, d.version_compile_os,
                "The operating system the server was built for."))
      .ReadOnly().NotPersistable();
  add(S::String("version_compile_machine", kG, d.version_compile_machine,
                "The CPU architecture the server was built for."))
      .ReadOnly().NotPersistable();
  add(S::UInt("protocol_version", kG, 10, 0, 255,
              "Version of the client/server protocol; 10 since MySQL 3.22."))
      .ReadOnly().NotPersistable();
  add(S::String("license", kG, d.license, "The licence the server is distributed under."))
      .ReadOnly().NotPersistable();
  add(S::UInt("server_id", kG, 1, 0, kU32Max,
              "Identifies this server in a replication topology: written into every binlog "
              "event, and a replica whose server_id equals it refuses to connect."));
  add(S::String("server_uuid", kG, d.server_uuid,
                "The server's UUID (auto.cnf); the source part of the GTIDs it generates."))
      .ReadOnly().NotPersistable();
  add(S::String("hostname", kG, d.hostname, "The host name of the machine the server runs on."))
      .ReadOnly().NotPersistable();

  // ---- Where it listens and keeps its files ----
  add(S::UInt("port", kG, d.port, 0, 65535, "TCP port for client connections."))
      .ReadOnly();
  add(S::String("bind_address", kG, d.bind_address,
                "Address(es) the TCP listener binds; '*' means all IPv4 and IPv6 addresses."))
      .ReadOnly();
  add(S::String("socket", kG, d.socket, "Path of the Unix socket for local clients."))
      .ReadOnly();
  add(S::String("datadir", kG, d.datadir,
                "The data directory: tables, binlogs, auto.cnf and mysqld-auto.cnf."))
      .ReadOnly().NotPersistable();
  add(S::String("basedir", kG, d.basedir, "The installation directory."))
      .ReadOnly().NotPersistable();
  add(S::String("pid_file", kG, d.pid_file, "File the server writes its process id to."))
      .ReadOnly();
  add(S::String("tmpdir", kG, d.tmpdir,
                "Directory of temporary files (a transaction's binary log cache once it "
                "outgrows binlog_cache_size)."))
      .ReadOnly();
  add(S::String("log_error", kG, d.log_error,
                "Destination of the error log: a file, or stderr."))
      .ReadOnly();
  add(S::String("plugin_dir", kG, d.plugin_dir,
                "Directory INSTALL PLUGIN loads shared objects from; nothing outside it is "
                "loaded."))
      .ReadOnly();
  add(S::String("character_sets_dir", kG, d.character_sets_dir,
                "Directory of character set definition files."))
      .ReadOnly();
  add(S::UInt("lower_case_table_names", kG, d.lower_case_table_names, 0, 2,
              "0: table and database names are stored and compared as given; 1: stored "
              "lower-case, compared case-insensitively; 2: stored as given, compared "
              "lower-case. Fixed when the data directory is initialised."))
      .ReadOnly();
  add(S::UInt("open_files_limit", kG, d.open_files_limit, 0, kU64Max,
              "File descriptors the operating system granted the server."))
      .ReadOnly();
  add(S::UInt("back_log", kG, d.back_log, 1, 65535,
              "Length of the listen queue: connection attempts the OS holds while the server "
              "is busy accepting."))
      .ReadOnly();
  add(S::Bool("skip_name_resolve", kG, d.skip_name_resolve,
              "ON: client host names are not resolved, so accounts must use IP addresses; "
              "saves a DNS lookup per connection."))
      .ReadOnly();
  add(S::Bool("performance_schema", kG, false,
              "Whether the Performance Schema is enabled; sluice has none."))
      .ReadOnly();

  // ---- Connections and the network ----
  add(S::UInt("max_connections", kG, 151, 1, 100000,
              "Most client connections at once; one more is kept for an account with "
              "CONNECTION_ADMIN. Lowering it does not close existing connections."));
  add(S::UInt("max_user_connections", kB, 0, 0, kU32Max,
              "Most connections one account may have at once; 0 means no limit beyond "
              "max_connections."))
      .SessionReadOnly();
  add(S::UInt("max_allowed_packet", kB, 67108864, 1024, 1073741824,
              "Largest packet or generated string the server accepts or sends; the session "
              "value is copied from the global one at connect."))
      .SessionReadOnly()
      .BlockSize(1024);
  add(S::UInt("net_buffer_length", kB, 16384, 1024, 1048576,
              "Initial size of a connection's packet buffer; it grows up to "
              "max_allowed_packet as needed."))
      .SessionReadOnly()
      .BlockSize(1024);
  add(S::UInt("connect_timeout", kG, 10, 2, kOneYearSeconds,
              "Seconds the server waits for a handshake packet before giving up with 'Bad "
              "handshake'."));
  add(S::UInt("wait_timeout", kB, 28800, 1, kOneYearSeconds,
              "Seconds an idle non-interactive connection lives before the server closes it."));
  add(S::UInt("interactive_timeout", kB, 28800, 1, kOneYearSeconds,
              "Seconds an idle interactive connection (CLIENT_INTERACTIVE) lives; copied into "
              "wait_timeout at connect."));
  add(S::UInt("net_read_timeout", kB, 30, 1, kOneYearSeconds,
              "Seconds to wait for more data from a connection before aborting the read."));
  add(S::UInt("net_write_timeout", kB, 60, 1, kOneYearSeconds,
              "Seconds to wait for a block to be written to a connection before aborting the "
              "write."));
  add(S::UInt("net_retry_count", kB, 10, 1, kU64Max,
              "Times an interrupted read or write on a connection is retried before giving "
              "up."));
  add(S::UInt("thread_cache_size", kG, 9, 0, 16384,
              "Idle connection threads kept for reuse; larger values save thread creation "
              "when clients reconnect often."));
  add(S::UInt("table_open_cache", kG, 4000, 1, 524288,
              "Open table handles kept for reuse across statements and sessions."));
  add(S::Bool("require_secure_transport", kG, false,
              "ON: connections must use TLS or the Unix socket; others fail with error 3159."));
  add(S::String("have_ssl", kG, d.have_ssl ? "YES" : "DISABLED",
                "YES when the server can accept TLS connections, DISABLED when not "
                "configured."))
      .ReadOnly().NotPersistable();
  add(S::String("ssl_ca", kG, d.ssl_ca, "The certificate authority file for TLS."))
      .ReadOnly().Nullable();
  add(S::String("ssl_cert", kG, d.ssl_cert, "The server's TLS certificate file."))
      .ReadOnly().Nullable();
  add(S::String("ssl_key", kG, d.ssl_key, "The server's TLS private key file."))
      .ReadOnly().Nullable();
  add(S::String("tls_version", kG, "TLSv1.2,TLSv1.3", "TLS protocol versions the server accepts."))
      .ReadOnly();
  add(S::String("default_authentication_plugin", kG, "caching_sha2_password",
                "Authentication plugin for accounts created without one, and the one the "
                "server proposes in the handshake."))
      .ReadOnly();
  add(S::String("init_connect", kG, "",
                "SQL run for each new connection of an account without CONNECTION_ADMIN; an "
                "error in it closes the connection."));

  // ---- Statement behaviour ----
  add(S::Bool("autocommit", kB, true,
              "ON: each statement outside BEGIN commits on its own. OFF: a transaction stays "
              "open until COMMIT or ROLLBACK; setting it ON commits the open one."));
  add(S::Set("sql_mode", kB,
             {"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "NOT_USED",
              "ONLY_FULL_GROUP_BY", "NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "", "", "", "",
              "", "", "", "", "", "", "ANSI", "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES",
              "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE",
              "ALLOW_INVALID_DATES", "ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL", "",
              "HIGH_NOT_PRECEDENCE", "NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH",
              "TIME_TRUNCATE_FRACTIONAL"},
             "ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,"
             "ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION",
             "SQL dialect and strictness: STRICT_* turn bad data into errors instead of "
             "warnings, ANSI_QUOTES makes \" quote identifiers, and so on. It is written into "
             "binlog Query events so replicas parse the statement the same way."))
      .Composite("ANSI", {"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE",
                          "ONLY_FULL_GROUP_BY"})
      .Composite("TRADITIONAL", {"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE",
                                 "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO",
                                 "NO_ENGINE_SUBSTITUTION"});
  add(S::Enum("transaction_isolation", kB,
              {"READ-UNCOMMITTED", "READ-COMMITTED", "REPEATABLE-READ", "SERIALIZABLE"},
              "REPEATABLE-READ",
              "Isolation level of the next transactions: REPEATABLE-READ reads one snapshot per "
              "transaction, READ-COMMITTED a fresh one per statement."));
  add(S::Bool("transaction_read_only", kB, false,
              "ON: transactions may not change tables (except temporary ones)."));
  add(S::Bool("foreign_key_checks", kB, true,
              "OFF: foreign key constraints are not checked, e.g. while loading a dump in any "
              "order."));
  add(S::Bool("unique_checks", kB, true,
              "OFF: the engine may skip uniqueness checks on secondary indexes during bulk "
              "loads; the data must then really be unique."));
  add(S::Bool("sql_auto_is_null", kB, false,
              "ON: WHERE auto_inc_col IS NULL finds the row just inserted (ODBC "
              "compatibility)."));
  add(S::Bool("sql_safe_updates", kB, false,
              "ON: UPDATE and DELETE without a key in WHERE or a LIMIT are refused."));
  add(S::UInt("sql_select_limit", kB, kU64Max, 0, kU64Max,
              "Most rows a SELECT returns to the client when it has no LIMIT of its own."));
  add(S::UInt("max_execution_time", kB, 0, 0, kU32Max,
              "Milliseconds a read-only SELECT may run before it is interrupted; 0 means no "
              "limit."));
  add(S::UInt("regexp_time_limit", kG, 32, 0, std::numeric_limits<int32_t>::max(),
              "Steps the regular expression engine may take for one match before it fails with "
              "error 3699; 0 means no limit."));
  add(S::UInt("regexp_stack_limit", kG, 8000000, 0, std::numeric_limits<int32_t>::max(),
              "Bytes of backtrack stack the regular expression engine may use for one match before "
              "it fails with error 3698; 0 means no limit."));
  add(S::Bool("explicit_defaults_for_timestamp", kB, true,
              "ON: TIMESTAMP columns get no implicit DEFAULT CURRENT_TIMESTAMP, ON UPDATE or "
              "NOT NULL."));
  add(S::Bool("sql_notes", kB, true, "OFF: Note-level diagnostics are not recorded."));
  add(S::UInt("max_error_count", kB, 1024, 0, 65535,
              "Most errors, warnings and notes a statement keeps for SHOW WARNINGS; "
              "@@warning_count counts them all."));
  add(S::Bool("sql_warnings", kB, false,
              "ON: single-row INSERTs that produce warnings report them in the info string."));
  add(S::UInt("div_precision_increment", kB, 4, 0, 30,
              "Digits added to the scale of the result of the / operator."));
  add(S::UInt("group_concat_max_len", kB, 1024, 4, kU64Max,
              "Longest result GROUP_CONCAT() returns; longer ones are cut with a warning."));
  add(S::UInt("auto_increment_increment", kB, 1, 1, 65535,
              "Step between successive AUTO_INCREMENT values; with auto_increment_offset it "
              "keeps sources in a ring from generating the same ids."));
  add(S::UInt("auto_increment_offset", kB, 1, 1, 65535,
              "First AUTO_INCREMENT value of the sequence (ignored when larger than "
              "auto_increment_increment)."));
  add(S::UInt("innodb_buffer_pool_size", kG, 134217728, 5242880, uint64_t{1} << 40,
              "Bytes of table and index pages the engine caches (--innodb-buffer-pool-size); "
              "tables larger than it are read and written back through it."))
      .ReadOnly();
  add(S::UInt("innodb_flush_log_at_trx_commit", kG, 1, 0, 2,
              "1: a commit writes and fsyncs the redo log before it returns; 2: writes at commit, "
              "fsyncs once a second; 0: writes and fsyncs once a second."));
  add(S::UInt("innodb_lock_wait_timeout", kB, 50, 1, 1073741824,
              "Seconds a statement waits for a row lock before failing with error 1205; only "
              "that statement is rolled back."));
  add(S::String("innodb_version", kG, "8.0.36",
                "Version of the storage engine; sluice's engine answers as the InnoDB of the "
                "MySQL version it is compatible with."))
      .ReadOnly().NotPersistable();
  add(S::Bool("sql_quote_show_create", kB, true,
              "Whether SHOW CREATE TABLE quotes names (sluice always quotes them with backticks)."));
  add(S::UInt("lock_wait_timeout", kB, 31536000, 1, 31536000,
              "Seconds a statement waits for a metadata lock, LOCK TABLES or FLUSH TABLES WITH "
              "READ LOCK before failing with error 1205."));
  add(S::String("default_storage_engine", kB, "InnoDB",
                "Engine of tables created without ENGINE=; sluice has InnoDB only."))
      .Check(CheckStorageEngine);
  add(S::String("default_tmp_storage_engine", kB, "InnoDB",
                "Engine of CREATE TEMPORARY TABLE without ENGINE=."))
      .Check(CheckStorageEngine);
  add(S::String("lc_time_names", kB, "en_US",
                "Locale of the day and month names DATE_FORMAT(), DAYNAME() and MONTHNAME() "
                "produce."))
      .Check(CheckLocale);

  // ---- Character sets and time zones ----
  struct CharsetVar {
    const char* name;
    VarScope scope;
    const char* def;
    bool nullable;
    const char* help;
  };
  const CharsetVar charset_vars[] = {
      {"character_set_client", kB, "utf8mb4", false,
       "Character set of statements the client sends; SET NAMES sets it."},
      {"character_set_connection", kB, "utf8mb4", false,
       "Character set literals are converted to, and of number-to-string conversions."},
      {"character_set_results", kB, "utf8mb4", true,
       "Character set results and metadata are sent in; NULL sends them unconverted."},
      {"character_set_server", kB, "utf8mb4", false,
       "Default character set of new databases."},
      {"character_set_database", kB, "utf8mb4", false,
       "Character set of the default database (the server's when there is none)."},
      {"character_set_filesystem", kB, "binary", false,
       "Character set file names in statements are converted to; binary means none."},
  };
  for (const CharsetVar& v : charset_vars) {
    VariableSpec& spec =
        add(S::String(v.name, v.scope, v.def, v.help)).Check(NameCheck(charset, UnknownCharset));
    if (v.nullable) spec.Nullable();
  }
  add(S::String("character_set_system", kG, "utf8mb3",
                "Character set of identifiers (table and column names) in metadata."))
      .ReadOnly().NotPersistable();
  const std::pair<const char*, const char*> collation_vars[] = {
      {"collation_connection", "Collation of string literals and comparisons between them."},
      {"collation_server", "Default collation of new databases."},
      {"collation_database", "Collation of the default database."},
  };
  for (const auto& [name, help] : collation_vars) {
    add(S::String(name, kB, "utf8mb4_0900_ai_ci", help)).Check(NameCheck(collation, UnknownCollation));
  }
  add(S::Enum("default_collation_for_utf8mb4", kB, {"utf8mb4_0900_ai_ci", "utf8mb4_general_ci"},
              "utf8mb4_0900_ai_ci",
              "Collation used for utf8mb4 when none is named; replication sets it so replicas "
              "of older servers agree."));
  add(S::String("time_zone", kB, "SYSTEM",
                "Time zone for NOW() and TIMESTAMP conversions: SYSTEM (system_time_zone), UTC, "
                "or an offset from '-13:59' to '+14:00'."))
      .Check(CheckTimeZone);
  add(S::String("system_time_zone", kG, d.system_time_zone,
                "The operating system's time zone when the server started."))
      .ReadOnly().NotPersistable();

  // ---- Binary log and replication ----
  add(S::Bool("log_bin", kG, d.log_bin, "Whether the binary log is enabled."))
      .ReadOnly().NotPersistable();
  add(S::String("log_bin_basename", kG, d.log_bin_basename,
                "Path and base name of binary log files; NULL when the binary log is off."))
      .ReadOnly().Nullable().NotPersistable();
  add(S::Bool("log_replica_updates", kG, true,
              "Changes applied by a replication applier are also written to this server's "
              "binary log, so it can be a source for others."))
      .ReadOnly().Alias("log_slave_updates");
  add(S::Enum("binlog_format", kB, {"MIXED", "STATEMENT", "ROW"}, "ROW",
              "How changes are logged: ROW logs the changed rows (deterministic), STATEMENT "
              "the statement text, MIXED chooses per statement."));
  add(S::Enum("binlog_row_image", kB, {"MINIMAL", "NOBLOB", "FULL"}, "FULL",
              "Columns a row event carries: FULL all, MINIMAL only the key and changed ones, "
              "NOBLOB all but unchanged BLOB/TEXT; FULL is what change-data-capture readers "
              "expect."));
  add(S::Enum("binlog_row_metadata", kG, {"MINIMAL", "FULL"}, "MINIMAL",
              "Column metadata in Table_map events: FULL adds names, signedness and character "
              "sets for readers without the schema."));
  add(S::Enum("binlog_checksum", kG, {"NONE", "CRC32"}, "CRC32",
              "Checksum appended to each binary log event; readers that announce "
              "@master_binlog_checksum get it verified."));
  add(S::Enum("gtid_mode", kG, {"OFF", "OFF_PERMISSIVE", "ON_PERMISSIVE", "ON"}, "ON",
              "Whether transactions get global transaction identifiers; changes go one step at "
              "a time between OFF and ON."));
  add(S::Enum("enforce_gtid_consistency", kG, {"OFF", "ON", "WARN"}, "ON",
              "ON refuses statements that cannot be logged safely with GTIDs; WARN only warns."));
  add(S::UInt("sync_binlog", kG, 1, 0, kU32Max,
              "Fsync the binary log every N commit groups: 1 is crash-safe, 0 leaves it to "
              "the OS, larger values trade durability for throughput."));
  add(S::UInt("sluice_plain_reader_nice", kG, 19, 0, 19,
              "The nice value a binlog dump thread takes when no plugin observes its reader (plain "
              "replicas, mysqlbinlog, CDC readers; not semisync replicas): on a busy CPU the "
              "commits, statements and semisync replicas run first and such readers catch up "
              "as it frees; on an idle one nothing changes. 0 runs them as every other thread. "
              "Read when a dump starts."));
  add(S::UInt("max_binlog_size", kG, 1073741824, 4096, 1073741824,
              "Size after which the binary log rotates to a new file; a transaction is never "
              "split, so files can be larger."))
      .BlockSize(4096);
  add(S::String("log_bin_index", kG, d.log_bin_basename ? *d.log_bin_basename + ".index" : std::string(),
                "Path of the binary log index file; NULL when the binary log is off."))
      .ReadOnly().Nullable().NotPersistable();
  add(S::UInt("binlog_cache_size", kG, 32768, 4096, kU64Max,
              "Bytes of a transaction's binary log events kept in memory; larger transactions "
              "spill to a temporary file (Binlog_cache_disk_use)."))
      .BlockSize(4096);
  add(S::UInt("max_binlog_cache_size", kG, 18446744073709547520ull, 4096, 18446744073709547520ull,
              "Largest binary log cache of one transaction; beyond it the statement fails "
              "with error 1197."))
      .BlockSize(4096);
  add(S::UInt("binlog_row_event_max_size", kG, 8192, 256, kU32Max,
              "Rows events are split at about this many bytes."))
      .ReadOnly();
  add(S::UInt("binlog_expire_logs_seconds", kG, 2592000, 0, kU32Max,
              "Binary log files older than this many seconds are purged at rotation and "
              "start-up; 0 keeps them forever."));

  // ---- Operator switches ----
  // The server refuses writes while these are ON (server/server.h
  // CheckReadOnly()); the executor keeps the two consistent (super_read_only
  // ON turns read_only ON, read_only OFF turns super_read_only OFF).
  add(S::Bool("read_only", kG, false,
              "ON: clients without CONNECTION_ADMIN or SUPER may not change tables or "
              "accounts (error 1290); HA tools set it to demote a primary. Replication "
              "readers are not affected."));
  add(S::Bool("super_read_only", kG, false,
              "ON: nobody, not even CONNECTION_ADMIN or SUPER, may change tables or accounts; "
              "turning it ON turns read_only ON."));
  add(S::Bool("sql_log_bin", kS, true,
              "OFF: this session's changes (rows and DDL) are not written to the binary log "
              "and get no GTID, so replicas and change-data-capture readers never see them. "
              "Needs SYSTEM_VARIABLES_ADMIN, SESSION_VARIABLES_ADMIN or SUPER; not settable "
              "inside a transaction."));

  // ---- Session state ----
  add(S::UInt("last_insert_id", kS, 0, 0, kU64Max,
              "The value LAST_INSERT_ID() returns; the statement-based binlog records it."));
  add(S::UInt("insert_id", kS, 0, 0, kU64Max,
              "The value the next AUTO_INCREMENT insert uses (set by the binlog applier)."));
  add(S::UInt("pseudo_thread_id", kS, 0, 0, kU32Max,
              "The connection id used for temporary tables and CONNECTION_ID() when "
              "replaying binlog statements; starts as this connection's id."));
  add(S::Double("timestamp", kS, 0, 0, kMaxTimestamp,
                "The time NOW() returns for this session, in seconds since the epoch; DEFAULT "
                "or 0 returns to the clock."))
      .Getter([](const SessionVariables* session) {
        if (session != nullptr) {
          std::optional<sql::Value> own = session->OwnValue("timestamp");
          if (own && own->ToDouble() != 0) return *own;
        }
        return sql::Value::Double(NowSeconds());
      });
  add(S::UInt("warning_count", kS, 0, 0, kU64Max,
              "Errors, warnings and notes the last statement produced."))
      .ReadOnly().NotPersistable()
      .Getter([](const SessionVariables*) { return sql::Value::UInt(0); });
  add(S::UInt("error_count", kS, 0, 0, kU64Max, "Errors the last statement produced."))
      .ReadOnly().NotPersistable()
      .Getter([](const SessionVariables*) { return sql::Value::UInt(0); });

  for (VariableSpec& spec : specs) SLUICE_RETURN_IF_ERROR(vars.Register(std::move(spec)));
  return Status::OK();
}

}  // namespace sluice::vars
