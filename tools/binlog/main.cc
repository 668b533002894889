// sluice-binlog: mysqlbinlog's interface for local binlog files.
//
//   sluice-binlog [options] binlog.000001 [binlog.000002 ...]
//
// Prints the events as mysqlbinlog 8.0 does (see printer.h). Options follow
// mysqlbinlog's names: -v/--verbose (twice: type comments), --base64-output,
// --start-position/-j, --stop-position, --start-datetime, --stop-datetime,
// --include-gtids, --exclude-gtids, --hexdump/-H, --verify-binlog-checksum/-c,
// --result-file/-r, --help/-?.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "binlog/gtid.h"
#include "tools/binlog/printer.h"

namespace sluice::tools {
namespace {

namespace po = boost::program_options;

std::string Upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// mysqlbinlog accepts "--start_position" as "--start-position"; and -v is
// counted (-v, -vv, -vvv, --verbose...), which program_options cannot do,
// so those are taken out here.
std::vector<std::string> Normalize(int argc, char** argv, int* verbose) {
  std::vector<std::string> out;
  bool positional_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (positional_only) {
      out.push_back(a);
      continue;
    }
    if (a == "--") {
      positional_only = true;
      out.push_back(a);
      continue;
    }
    if (a == "--verbose") {
      ++*verbose;
      continue;
    }
    if (a.size() >= 2 && a[0] == '-' && a[1] == 'v' && a.find_first_not_of('v', 1) == std::string::npos) {
      *verbose += static_cast<int>(a.size() - 1);
      continue;
    }
    if (a.rfind("--", 0) == 0) {
      const size_t eq = a.find('=');
      std::replace(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(eq == std::string::npos ? a.size() : eq), '_',
                   '-');
    }
    out.push_back(a);
  }
  return out;
}

void Usage(std::ostream& os, const po::options_description& desc) {
  os << "sluice-binlog: dumps a MySQL binary log in a format usable for viewing or for piping to\n"
        "the mysql command line client (mysqlbinlog's output for local files).\n"
        "Usage: sluice-binlog [options] log-files\n"
     << desc;
}

int Main(int argc, char** argv) {
  int verbose = 0;
  std::vector<std::string> args = Normalize(argc, argv, &verbose);

  po::options_description desc("Options");
  // -v is counted by Normalize() and never reaches the parser; listed for --help.
  desc.add_options()("help,?", "Display this help and exit.")(
      "verbose,v", "Reconstruct pseudo-SQL statements out of row events (### lines); -vv adds comments on column "
      "data types and prints Rows_query events.")(
      "base64-output", po::value<std::string>()->default_value("AUTO"),
      "AUTO (BINLOG statements for row events and the Format_description), NEVER (fails on row events) or "
      "DECODE-ROWS (no BINLOG statements; with --verbose the rows as commented pseudo-SQL).")(
      "start-position,j", po::value<uint64_t>(), "Start at this position of the first file (an event boundary).")(
      "stop-position", po::value<uint64_t>(),
      "Stop before the first event at or after this position of the last file.")(
      "start-datetime", po::value<std::string>(),
      "Start at the first event with a timestamp >= this local time ('YYYY-MM-DD hh:mm:ss').")(
      "stop-datetime", po::value<std::string>(), "Stop at the first event with a timestamp >= this local time.")(
      "include-gtids", po::value<std::string>(), "Print only the transactions of this GTID set.")(
      "exclude-gtids", po::value<std::string>(), "Do not print the transactions of this GTID set.")(
      "hexdump,H", po::bool_switch(), "Augment the output with a hex dump of each event, in comments.")(
      "verify-binlog-checksum,c", po::bool_switch(), "Verify the CRC32 of every event.")(
      "result-file,r", po::value<std::string>(), "Write the output to this file instead of stdout.");
  po::options_description hidden;
  hidden.add_options()("files", po::value<std::vector<std::string>>()->composing());
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description positional;
  positional.add("files", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const std::exception& e) {
    std::cerr << "sluice-binlog: [ERROR] " << e.what() << "\n";
    return 1;
  }
  if (vm.count("help")) {
    Usage(std::cout, desc);
    return 0;
  }

  PrintOptions options;
  options.verbose = verbose;
  // Case-insensitive; a unique prefix will do (as mysqlbinlog's typelib).
  std::string base64 = Upper(vm["base64-output"].as<std::string>());
  std::replace(base64.begin(), base64.end(), '_', '-');
  const std::pair<const char*, Base64Output> kModes[] = {
      {"NEVER", Base64Output::kNever}, {"AUTO", Base64Output::kAuto}, {"DECODE-ROWS", Base64Output::kDecodeRows}};
  int matches = 0;
  for (const auto& [name, mode] : kModes) {
    if (!base64.empty() && std::string_view(name).substr(0, base64.size()) == base64) {
      options.base64 = mode;
      ++matches;
    }
  }
  if (matches != 1) {
    std::cerr << "sluice-binlog: [ERROR] Unknown option to base64-output: " << base64 << "\n";
    return 1;
  }
  if (vm.count("start-position")) {
    options.start_position = vm["start-position"].as<uint64_t>();
    if (options.start_position < 4) {
      std::cerr << "sluice-binlog: [ERROR] --start-position must be at least 4\n";
      return 1;
    }
  }
  if (vm.count("stop-position")) options.stop_position = vm["stop-position"].as<uint64_t>();
  for (const char* name : {"start-datetime", "stop-datetime"}) {
    if (!vm.count(name)) continue;
    auto t = ParseDateTime(vm[name].as<std::string>());
    if (!t.ok()) {
      std::cerr << "sluice-binlog: [ERROR] " << t.status().message() << "\n";
      return 1;
    }
    (std::string(name) == "start-datetime" ? options.start_datetime : options.stop_datetime) = *t;
  }
  for (const char* name : {"include-gtids", "exclude-gtids"}) {
    if (!vm.count(name)) continue;
    auto set = binlog::GtidSet::Parse(vm[name].as<std::string>());
    if (!set.ok()) {
      std::cerr << "sluice-binlog: [ERROR] Could not configure --" << name << ": " << set.status().message() << "\n";
      return 1;
    }
    (std::string(name) == "include-gtids" ? options.include_gtids : options.exclude_gtids) = std::move(*set);
  }
  options.hexdump = vm["hexdump"].as<bool>();
  options.verify_checksums = vm["verify-binlog-checksum"].as<bool>();

  std::vector<std::string> files;
  if (vm.count("files")) files = vm["files"].as<std::vector<std::string>>();
  if (files.empty()) {
    Usage(std::cerr, desc);
    return 1;
  }

  std::ofstream file_out;
  std::ostream* out = &std::cout;
  if (vm.count("result-file")) {
    file_out.open(vm["result-file"].as<std::string>(), std::ios::binary | std::ios::trunc);
    if (!file_out) {
      std::cerr << "sluice-binlog: [ERROR] cannot create result file '" << vm["result-file"].as<std::string>()
                << "'\n";
      return 1;
    }
    out = &file_out;
  }
  BinlogPrinter printer(options, *out, &std::cerr);
  Status st = printer.PrintFiles(files);
  out->flush();
  if (!st.ok()) {
    std::cerr << "ERROR: " << st.message() << "\n";
    return 1;
  }
  if (!*out) {
    std::cerr << "ERROR: write error on the output\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace sluice::tools

int main(int argc, char** argv) { return sluice::tools::Main(argc, argv); }
