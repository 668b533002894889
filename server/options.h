// server/options.h
//
// sluiced's start-up options, in MySQL's names. They come from the command
// line and from an option file (--defaults-file, groups [mysqld] and
// [sluiced]); the command line wins. Names accept '-' and '_' alike, as
// mysqld does; boolean options take ON/OFF/1/0/TRUE/FALSE, and --skip-NAME
// sets NAME to OFF. Sizes accept K, M and G suffixes.
//
// Every option MySQL 8.0's mysqld knows (IsMysqldOption()) is accepted, so
// that an ordinary my.cnf starts: the ones sluice has a system variable for
// set it (sql-mode, transaction-isolation, character-set-server, ...), the
// others are ignored with one start-up warning each. A name MySQL does not
// know either aborts the start, as in MySQL, unless it has the loose-
// prefix (then a warning). Prefixes as mysqld: loose-, skip- / disable-
// (OFF), enable- (ON), maximum- (accepted, ignored).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/version.h"

namespace sluice::server {

struct ServerOptions {
  uint16_t port = 3306;
  std::string bind_address = "127.0.0.1";
  std::string datadir = "./data";
  uint32_t server_id = 1;
  std::string log_error;  // empty: stderr
  std::string socket;     // Unix socket path; empty: none
  std::string pid_file;   // empty: none written
  std::string user;       // --user: switch to it when started as root
  std::string tmpdir;     // temporary files (spilled binlog caches)
  std::string basedir;
  std::string plugin_dir;  // empty: <binary dir>/../plugin
  std::string plugin_load;  // --plugin-load: replaces earlier ones (last wins)
  std::vector<std::string> plugin_load_add;
  uint64_t max_connections = 151;
  uint64_t max_allowed_packet = 64ull << 20;
  std::string ssl_cert;
  std::string ssl_key;
  std::string ssl_ca;
  bool require_secure_transport = false;
  std::string default_authentication_plugin = "caching_sha2_password";
  uint64_t connect_timeout = 10;
  uint64_t wait_timeout = 28800;
  uint64_t thread_cache_size = 9;
  uint32_t io_threads = 0;  // 0: the usable CPUs (base/cpus.h)
  uint64_t innodb_buffer_pool_size = 128ull << 20;
  uint32_t innodb_flush_log_at_trx_commit = 1;  // 0, 1 or 2
  std::string log_bin = "binlog";  // binlog basename; empty: log_bin OFF
  // Start-up values of system variables (binlog_checksum, sync_binlog,
  // gtid_mode, ...), by variable name, in the order given.
  std::vector<std::pair<std::string, std::string>> variables;
  // Other MySQL options by variable name ('_' spelling) and value, in the
  // order given: set when sluice has a variable of that name, else ignored
  // with a warning (Executor::RegisterVariables).
  std::vector<std::pair<std::string, std::string>> mysql_options;
  // Start-up warnings from parsing (unknown loose- options, maximum-).
  std::vector<std::string> warnings;
  // The unknown loose- options ('_' name, value; file first, the last one
  // wins): a plugin's variables take their start-up values from them when
  // the plugin loads (my.cnf's loose-rpl_semi_sync_source_enabled=1).
  std::vector<std::pair<std::string, std::string>> loose_options;

  bool initialize = false;           // --initialize: random root password, then exit
  bool initialize_insecure = false;  // --initialize-insecure: empty password, then exit
  bool help = false;
  bool version = false;
};

// Parses argv (and the option file it names). On --help, returns options
// with help=true and fills *help_text. An unknown option or a bad value
// fails with a message naming it.
Result<ServerOptions> ParseOptions(int argc, const char* const* argv, std::string* help_text);

// Whether MySQL 8.0's mysqld knows `name` as an option or system variable
// ('-' and '_' alike, no prefix); the list is data (mysqld_options.cc).
bool IsMysqldOption(std::string_view name);
// Whether `name` is in sluice's own variable space (sluice_..., '-' and '_'
// alike): such an option sets the variable of that name at start, as a MySQL
// option does (sluice_lock_schedule, sluice_plain_reader_nice, ...).
bool IsSluiceVariableName(std::string_view name);

}  // namespace sluice::server
