// vars/core_vars.h
//
// The server's own system variables, with MySQL 8.0's names, types, scopes,
// ranges and defaults (storage, binlog and plugins register theirs
// themselves), and the sql_mode bits hot paths test with
// SystemVariables::GetFlags("sql_mode", ...).
//
// Values that come from options or the environment (port, datadir,
// server_uuid, ...) are passed in; the server applies other start-up
// options afterwards with SystemVariables::SetStartupValue().
//
// Thread-safety: RegisterCoreVariables() is called once, before the server
// serves clients; the check callbacks it installs are pure.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "vars/sys_vars.h"

namespace sluice::vars {

// sql_mode flags at MySQL's bit positions: visible to clients as
// SET sql_mode = <number> and written into binlog Query events. Never
// renumber. Bits 8-17 and 28 are modes removed in 8.0.
namespace sql_mode {
inline constexpr uint64_t kRealAsFloat = uint64_t{1} << 0;
inline constexpr uint64_t kPipesAsConcat = uint64_t{1} << 1;
inline constexpr uint64_t kAnsiQuotes = uint64_t{1} << 2;
inline constexpr uint64_t kIgnoreSpace = uint64_t{1} << 3;
inline constexpr uint64_t kNotUsed = uint64_t{1} << 4;
inline constexpr uint64_t kOnlyFullGroupBy = uint64_t{1} << 5;
inline constexpr uint64_t kNoUnsignedSubtraction = uint64_t{1} << 6;
inline constexpr uint64_t kNoDirInCreate = uint64_t{1} << 7;
inline constexpr uint64_t kAnsi = uint64_t{1} << 18;
inline constexpr uint64_t kNoAutoValueOnZero = uint64_t{1} << 19;
inline constexpr uint64_t kNoBackslashEscapes = uint64_t{1} << 20;
inline constexpr uint64_t kStrictTransTables = uint64_t{1} << 21;
inline constexpr uint64_t kStrictAllTables = uint64_t{1} << 22;
inline constexpr uint64_t kNoZeroInDate = uint64_t{1} << 23;
inline constexpr uint64_t kNoZeroDate = uint64_t{1} << 24;
inline constexpr uint64_t kAllowInvalidDates = uint64_t{1} << 25;
inline constexpr uint64_t kErrorForDivisionByZero = uint64_t{1} << 26;
inline constexpr uint64_t kTraditional = uint64_t{1} << 27;
inline constexpr uint64_t kHighNotPrecedence = uint64_t{1} << 29;
inline constexpr uint64_t kNoEngineSubstitution = uint64_t{1} << 30;
inline constexpr uint64_t kPadCharToFullLength = uint64_t{1} << 31;
inline constexpr uint64_t kTimeTruncateFractional = uint64_t{1} << 32;
}  // namespace sql_mode

// Resolves a character set or collation name as a client wrote it to its
// canonical name ("UTF8MB4" -> "utf8mb4", "utf8" -> "utf8mb3"); nullopt
// when unknown.
using NameResolver = std::function<std::optional<std::string>(std::string_view)>;

struct CoreVariableDefaults {
  // What the server is.
  std::string version = "8.0.36-sluice";
  std::string version_comment = "sluice";
  std::string version_compile_os = "Linux";
  std::string version_compile_machine = "x86_64";
  std::string license = "sluice";

  // From options and the environment (read-only variables).
  std::string server_uuid;
  std::string hostname;
  uint64_t port = 3306;
  std::string bind_address = "*";
  std::string datadir;
  std::string basedir;
  std::string socket;
  std::string pid_file;
  std::string tmpdir = "/tmp";
  std::string log_error = "stderr";
  std::string plugin_dir;
  std::string character_sets_dir;
  std::string system_time_zone = "UTC";
  uint64_t lower_case_table_names = 0;
  uint64_t open_files_limit = 10000;
  uint64_t back_log = 151;
  bool log_bin = false;  // OFF until the binlog exists
  std::optional<std::string> log_bin_basename;
  bool have_ssl = false;  // YES when TLS is configured, else DISABLED
  std::optional<std::string> ssl_ca;
  std::optional<std::string> ssl_cert;
  std::optional<std::string> ssl_key;
  bool skip_name_resolve = false;

  // Null: the built-in list of the character sets (utf8mb4, utf8mb3/utf8,
  // latin1, ascii, binary) and their common collations.
  NameResolver resolve_charset;
  NameResolver resolve_collation;
};

// Registers the server's variables (version, port, autocommit, sql_mode,
// character_set_*, timeouts, binlog_format, gtid_mode, ...). Some are
// computed: warning_count and error_count read 0 unless the session binds
// them (SessionVariables::BindComputed); timestamp reads the current time
// unless the session SET it (0 or DEFAULT: the clock again).
// InvalidArgument when a name is already registered.
Status RegisterCoreVariables(SystemVariables& vars, const CoreVariableDefaults& defaults);

}  // namespace sluice::vars
