// sluice-binlog-samples DIR: writes the sample binlog files of
// sample_binlogs.h into DIR and prints their paths, one a line (for
// tests/binlog/compare_mariadb_binlog.sh).
#include <filesystem>
#include <iostream>

#include "tools/binlog/sample_binlogs.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: sluice-binlog-samples DIR\n";
    return 2;
  }
  std::error_code ec;
  std::filesystem::create_directories(argv[1], ec);
  auto paths = sluice::tools::WriteSampleBinlogs(argv[1]);
  if (!paths.ok()) {
    std::cerr << "sluice-binlog-samples: " << paths.status().ToString() << "\n";
    return 1;
  }
  for (const auto& p : *paths) std::cout << p << "\n";
  return 0;
}
