#include "server/options.h"

#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "base/strings.h"

namespace sluice::server {
namespace po = boost::program_options;
namespace {

Result<bool> ParseBool(const std::string& name, const std::string& v) {
  std::string l = base::AsciiLower(v);
  if (l == "on" || l == "1" || l == "true" || l == "yes" || l.empty()) return true;
  if (l == "off" || l == "0" || l == "false" || l == "no") return false;
  return Status::InvalidArgument("option '" + name + "': boolean value '" + v + "' was not recognised");
}

Result<uint64_t> ParseSize(const std::string& name, const std::string& v, uint64_t min,
                           uint64_t max) {
  if (v.empty()) return Status::InvalidArgument("option '" + name + "' requires a value");
  size_t pos = 0;
  unsigned long long n = 0;
  try {
    n = std::stoull(v, &pos);
  } catch (...) {
    return Status::InvalidArgument("option '" + name + "': invalid value '" + v + "'");
  }
  std::string rest = base::AsciiLower(v.substr(pos));
  uint64_t mult = 1;
  if (rest == "k") mult = 1ull << 10;
  else if (rest == "m") mult = 1ull << 20;
  else if (rest == "g") mult = 1ull << 30;
  else if (!rest.empty()) return Status::InvalidArgument("option '" + name + "': invalid value '" + v + "'");
  uint64_t r = n * mult;
  if (r < min || r > max) {
    return Status::InvalidArgument("option '" + name + "': value " + v + " is out of range [" +
                                   std::to_string(min) + ", " + std::to_string(max) + "]");
  }
  return r;
}

// Options that only give a system variable its start-up value.
constexpr const char* kVariableOptions[] = {
    "binlog-checksum",   "sync-binlog",        "max-binlog-size",       "binlog-expire-logs-seconds",
    "gtid-mode",         "enforce-gtid-consistency", "binlog-format",   "binlog-row-image",
    "binlog-row-metadata", "binlog-cache-size", "max-binlog-cache-size",
};

const std::set<std::string>& BoolOptions() {
  static const std::set<std::string> k = {"require-secure-transport", "initialize",
                                          "initialize-insecure", "help", "version", "verbose"};
  return k;
}

// "--max_connections=5" -> "--max-connections=5"; "--skip-foo" -> "--foo=OFF";
// bare boolean "--foo" -> "--foo=ON".
std::string NormalizeArg(const std::string& arg) {
  if (arg.rfind("--", 0) != 0) return arg;
  std::string body = arg.substr(2);
  size_t eq = body.find('=');
  std::string name = body.substr(0, eq);
  std::string value = eq == std::string::npos ? "" : body.substr(eq);
  std::replace(name.begin(), name.end(), '_', '-');
  if (name.rfind("skip-", 0) == 0 && BoolOptions().count(name.substr(5)) && value.empty()) {
    return "--" + name.substr(5) + "=OFF";
  }
  if (BoolOptions().count(name) && value.empty()) return "--" + name + "=ON";
  // --log-bin alone: the default basename; --skip-log-bin / --disable-log-bin: off.
  if (name == "log-bin" && value.empty()) return "--log-bin=binlog";
  if ((name == "skip-log-bin" || name == "disable-log-bin") && value.empty()) return "--log-bin=OFF";
  return "--" + name + value;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Reads the [mysqld] and [sluiced] groups of a MySQL option file.
Result<std::vector<std::string>> ReadOptionFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("Could not open required defaults file: " + path);
  std::vector<std::string> args;
  std::string line, group;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';' || line[0] == '!') continue;
    if (line[0] == '[') {
      size_t close = line.find(']');
      group = base::AsciiLower(Trim(line.substr(1, close == std::string::npos ? std::string::npos : close - 1)));
      continue;
    }
    if (group != "mysqld" && group != "sluiced") continue;
    size_t eq = line.find('=');
    std::string key = Trim(line.substr(0, eq));
    if (eq == std::string::npos) {
      args.push_back(NormalizeArg("--" + key));
      continue;
    }
    std::string value = Trim(line.substr(eq + 1));
    size_t hash = value.find(" #");
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    } else if (hash != std::string::npos) {
      value = Trim(value.substr(0, hash));
    }
    args.push_back(NormalizeArg("--" + key + "=" + value));
  }
  return args;
}

// The arguments split by who handles them: sluice's own options (for
// program_options), other MySQL options, and warnings.
struct SortedArgs {
  std::vector<std::string> own;
  std::vector<std::pair<std::string, std::string>> mysql;  // '_' name, value
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, std::string>> loose;  // unknown loose- ones: '_' name, value
};

std::string Underscored(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// Sorts normalized "--name[=value]" arguments (see NormalizeArg) by
// mysqld's rules: a name sluice has is its own option; else a name MySQL
// knows, with prefixes as mysqld (skip-/disable- OFF, enable- ON,
// maximum- ignored); else unknown: an error, or with loose- a warning.
Status SortArgs(const po::options_description& desc, const std::vector<std::string>& args, SortedArgs* out) {
  auto ours = [&desc](const std::string& name) { return desc.find_nothrow(name, false) != nullptr; };
  for (const std::string& raw : args) {
    if (raw.rfind("--", 0) != 0) {  // short options (-P 3306) and values
      out->own.push_back(raw);
      continue;
    }
    std::string arg = raw;
    bool loose = false;
    if (arg.rfind("--loose-", 0) == 0) {
      loose = true;
      arg = NormalizeArg("--" + arg.substr(8));
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    const bool has_value = eq != std::string::npos;
    const std::string value = has_value ? arg.substr(eq + 1) : std::string();
    if (ours(name)) {
      out->own.push_back(arg);
      continue;
    }
    if (IsMysqldOption(name) || IsSluiceVariableName(name)) {
      out->mysql.emplace_back(Underscored(name), has_value ? value : "ON");
      continue;
    }
    bool handled = false;
    for (const char* prefix : {"skip-", "disable-", "enable-", "maximum-"}) {
      const std::string p = prefix;
      if (name.rfind(p, 0) != 0) continue;
      const std::string base = name.substr(p.size());
      const bool on = p == "enable-";
      if (p == "maximum-" && (ours(base) || IsMysqldOption(base))) {
        out->warnings.push_back("option '--" + name + "' is accepted for compatibility and ignored: sluice has "
                                "no per-session maximum of '" + base + "'");
        handled = true;
      } else if (p != "maximum-" && ours(base)) {
        out->own.push_back("--" + base + "=" + (on ? (has_value ? value : "ON") : "OFF"));
        handled = true;
      } else if (p != "maximum-" && (IsMysqldOption(base) || IsSluiceVariableName(base))) {
        out->mysql.emplace_back(Underscored(base), on ? (has_value ? value : "ON") : "OFF");
        handled = true;
      }
      break;
    }
    if (handled) continue;
    const std::string shown = (loose ? "loose-" : "") + name + (has_value ? "=" + value : "");
    if (!loose) return Status::InvalidArgument("unknown variable '" + shown + "'.");
    out->warnings.push_back("unknown variable '" + shown + "'.");
    out->loose.emplace_back(Underscored(name), has_value ? value : "ON");  // a plugin's, maybe
  }
  return Status::OK();
}

}  // namespace

Result<ServerOptions> ParseOptions(int argc, const char* const* argv, std::string* help_text) {
  po::options_description desc("sluiced options (MySQL names; '-' and '_' are interchangeable)");
  // Every option is read as a string and converted below, so that values
  // get MySQL's forms (ON/OFF, 64M) and errors name the option.
  auto s = [](const char* def = nullptr) {
    auto* v = po::value<std::string>();
    if (def) v->default_value(def);
    return v;
  };
  desc.add_options()
      ("help", s(), "Display this help and exit.")
      ("verbose", s(), "With --help, print every option.")
      ("version", s(), "Print the version and exit.")
      ("defaults-file", s(), "Read options from this file only (groups [mysqld] and [sluiced]). Must be given first.")
      ("initialize", s(), "Create the data directory with a random root password written to the error log, then exit.")
      ("initialize-insecure", s(), "Create the data directory with an empty root password, then exit.")
      ("port,P", s("3306"), "TCP port to listen on.")
      ("bind-address", s("127.0.0.1"), "Address to listen on.")
      ("datadir,h", s("./data"), "Data directory; initialised on first start if empty.")
      ("server-id", s("1"), "This server's replication id (server_id).")
      ("log-error", s(""), "Error log file; empty writes to stderr. Written through line by line; a crash leaves a report with a backtrace there.")
      ("socket", s(""), "Unix socket file to listen on as well (mariadb -S); empty: none. Its clients count as localhost.")
      ("pid-file", s(""), "File to write the process id to; removed at a clean stop. Empty: none.")
      ("user", s(""), "When started as root, run as this user (switched to before the data directory is opened).")
      ("tmpdir", s(""), "Directory of temporary files (large transactions' binlog caches); default $TMPDIR or /tmp.")
      ("basedir", s(""), "Installation directory (@@basedir).")
      ("plugin-dir", s(""), "Directory of plugin shared objects.")
      ("plugin-load", s(""), "name=library.so;... plugins to load at start (the last --plugin-load wins).")
      ("plugin-load-add", po::value<std::vector<std::string>>()->composing(), "name=library.so plugin to load at start; may repeat.")
      ("max-connections", s("151"), "Maximum concurrent client connections.")
      ("max-allowed-packet", s("64M"), "Largest packet or statement accepted (1024 .. 1G).")
      ("ssl-cert", s(""), "Server certificate (PEM); default: generated in the datadir.")
      ("ssl-key", s(""), "Server private key (PEM).")
      ("ssl-ca", s(""), "CA certificate (PEM).")
      ("require-secure-transport", s("OFF"), "Refuse connections that do not use TLS.")
      ("default-authentication-plugin", s("caching_sha2_password"), "Plugin for new accounts: caching_sha2_password or mysql_native_password.")
      ("connect-timeout", s("10"), "Seconds to wait for a client's handshake.")
      ("wait-timeout", s("28800"), "Seconds an idle connection may stay open.")
      ("thread-cache-size", s("9"), "Idle statement threads kept for reuse.")
      ("io-threads", s("0"), "Asio I/O threads (0: one per usable CPU).")
      ("innodb-buffer-pool-size", s("128M"), "Bytes of table and index pages cached in memory (5M .. 1T).")
      ("innodb-flush-log-at-trx-commit", s("1"), "1: write and fsync the redo log at each commit; 2: write at commit, fsync once a second; 0: both once a second.")
      ("log-bin", s("binlog"), "Binary log basename (files <datadir>/<name>.NNNNNN); --skip-log-bin or --disable-log-bin turns the binary log off.");
  // Start-up values of system variables, checked by the variable itself.
  for (const char* name : kVariableOptions) {
    desc.add_options()(name, s(), "Start-up value of the system variable of this name.");
  }

  std::vector<std::string> cmdline;
  std::string defaults_file;
  for (int i = 1; i < argc; ++i) {
    std::string a = NormalizeArg(argv[i]);
    if (a.rfind("--defaults-file=", 0) == 0) {
      defaults_file = a.substr(16);
      continue;
    }
    cmdline.push_back(a);
  }

  // As mysqld: an option given twice takes its last value (scripts append
  // to defaults); --plugin-load-add accumulates.
  auto keep_last = [](std::vector<std::string> args) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (auto it = args.rbegin(); it != args.rend(); ++it) {
      std::string name = it->substr(0, it->find('='));
      if (it->rfind("--", 0) == 0 && name != "--plugin-load-add" && !seen.insert(name).second) continue;
      out.push_back(*it);
    }
    return std::vector<std::string>(out.rbegin(), out.rend());
  };
  cmdline = keep_last(std::move(cmdline));

  SortedArgs from_cmdline, from_file;
  SLUICE_RETURN_IF_ERROR(SortArgs(desc, cmdline, &from_cmdline));
  if (!defaults_file.empty()) {
    auto file_args = ReadOptionFile(defaults_file);
    if (!file_args.ok()) return file_args.status();
    SLUICE_RETURN_IF_ERROR(SortArgs(desc, keep_last(std::move(file_args).value()), &from_file));
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(from_cmdline.own).options(desc).run(), vm);
    if (!defaults_file.empty()) po::store(po::command_line_parser(from_file.own).options(desc).run(), vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    std::string name = e.get_option_name();
    if (name.rfind("--", 0) == 0) name = name.substr(2);
    return Status::InvalidArgument("unknown variable '" + name + "'.");
  } catch (const po::error& e) {
    return Status::InvalidArgument(e.what());
  }

  ServerOptions o;
  auto str = [&](const char* name) { return vm.count(name) ? vm[name].as<std::string>() : std::string(); };
  auto flag = [&](const char* name) -> Result<bool> {
    if (!vm.count(name)) return false;
    return ParseBool(name, vm[name].as<std::string>());
  };
#define SLUICE_TAKE(expr, target)            \
  do {                                       \
    auto _r = (expr);                        \
    if (!_r.ok()) return _r.status();        \
    target = static_cast<decltype(target)>(_r.value()); \
  } while (0)
  SLUICE_TAKE(flag("help"), o.help);
  SLUICE_TAKE(flag("version"), o.version);
  SLUICE_TAKE(flag("initialize"), o.initialize);
  SLUICE_TAKE(flag("initialize-insecure"), o.initialize_insecure);
  SLUICE_TAKE(ParseSize("port", str("port"), 0, 65535), o.port);
  o.bind_address = str("bind-address");
  o.datadir = str("datadir");
  SLUICE_TAKE(ParseSize("server-id", str("server-id"), 0, 4294967295ull), o.server_id);
  o.log_error = str("log-error");
  o.socket = str("socket");
  o.pid_file = str("pid-file");
  o.user = str("user");
  o.tmpdir = str("tmpdir");
  if (o.tmpdir.empty()) {
    const char* env = std::getenv("TMPDIR");
    o.tmpdir = env != nullptr && *env != '\0' ? env : "/tmp";
  }
  o.basedir = str("basedir");
  // MySQL options without a sluice option of their own; the command line
  // wins over the file, and the last of repeated ones wins.
  {
    std::set<std::string> from_command_line;
    for (const auto& [name, value] : from_cmdline.mysql) from_command_line.insert(name);
    for (const auto& [name, value] : from_file.mysql) {
      if (!from_command_line.count(name)) o.mysql_options.emplace_back(name, value);
    }
    for (const auto& kv : from_cmdline.mysql) o.mysql_options.push_back(kv);
    o.warnings = std::move(from_file.warnings);
    o.warnings.insert(o.warnings.end(), from_cmdline.warnings.begin(), from_cmdline.warnings.end());
    o.loose_options = std::move(from_file.loose);
    o.loose_options.insert(o.loose_options.end(), from_cmdline.loose.begin(), from_cmdline.loose.end());
  }
  o.plugin_dir = str("plugin-dir");
  o.plugin_load = str("plugin-load");
  if (vm.count("plugin-load-add")) o.plugin_load_add = vm["plugin-load-add"].as<std::vector<std::string>>();
  SLUICE_TAKE(ParseSize("max-connections", str("max-connections"), 1, 100000), o.max_connections);
  SLUICE_TAKE(ParseSize("max-allowed-packet", str("max-allowed-packet"), 1024, 1ull << 30), o.max_allowed_packet);
  o.ssl_cert = str("ssl-cert");
  o.ssl_key = str("ssl-key");
  o.ssl_ca = str("ssl-ca");
  SLUICE_TAKE(flag("require-secure-transport"), o.require_secure_transport);
  o.default_authentication_plugin = base::AsciiLower(str("default-authentication-plugin"));
  if (o.default_authentication_plugin != "caching_sha2_password" &&
      o.default_authentication_plugin != "mysql_native_password") {
    return Status::InvalidArgument("option 'default-authentication-plugin': unknown plugin '" +
                                   o.default_authentication_plugin + "'");
  }
  SLUICE_TAKE(ParseSize("connect-timeout", str("connect-timeout"), 2, 31536000), o.connect_timeout);
  SLUICE_TAKE(ParseSize("wait-timeout", str("wait-timeout"), 1, 31536000), o.wait_timeout);
  SLUICE_TAKE(ParseSize("thread-cache-size", str("thread-cache-size"), 0, 16384), o.thread_cache_size);
  SLUICE_TAKE(ParseSize("io-threads", str("io-threads"), 0, 256), o.io_threads);
  SLUICE_TAKE(ParseSize("innodb-buffer-pool-size", str("innodb-buffer-pool-size"), 5ull << 20, 1ull << 40),
              o.innodb_buffer_pool_size);
  SLUICE_TAKE(ParseSize("innodb-flush-log-at-trx-commit", str("innodb-flush-log-at-trx-commit"), 0, 2),
              o.innodb_flush_log_at_trx_commit);
  o.log_bin = str("log-bin");
  if (o.log_bin == "OFF" || o.log_bin == "0") o.log_bin.clear();
  for (const char* name : kVariableOptions) {
    if (!vm.count(name)) continue;
    std::string var = name;
    std::replace(var.begin(), var.end(), '-', '_');
    o.variables.emplace_back(var, str(name));
  }
#undef SLUICE_TAKE
  if ((!o.ssl_cert.empty()) != (!o.ssl_key.empty())) {
    return Status::InvalidArgument("ssl-cert and ssl-key must be given together");
  }
  if (help_text) {
    std::ostringstream os;
    os << "sluiced  Ver " << kServerVersion << " for Linux (" << kVersionComment << ")\n"
       << "Usage: sluiced [OPTIONS]\n\n"
       << desc;
    *help_text = os.str();
  }
  return o;
}

}  // namespace sluice::server
