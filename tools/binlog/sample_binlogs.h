// tools/binlog/sample_binlogs.h
//
// Binlog files built with binlog/'s encoders, for testing sluice-binlog and
// comparing it with mariadb-binlog (tests/binlog/compare_mariadb_binlog.sh):
//   binlog.000001  CRC32, GTIDs: DDL, INSERT/UPDATE/DELETE of a table with
//                  most column types (NULLs included), a DELETE split over
//                  several rows events, a multi-table transaction, Rotate.
//   binlog.000002  CRC32, non-empty Previous_gtids, Rows_query, a table
//                  without PRIMARY KEY, wide rows, Stop.
//   binlog.000003  binlog_checksum=NONE, Anonymous_GTID, still "in use"
//                  (BINLOG_IN_USE_F set, no Stop/Rotate).
// Timestamps are fixed so the output is the same on every run.
//
// Thread-safety: pure functions (writes files).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace sluice::tools {

// Writes the files into `dir` (which must exist); returns their paths in
// order.
Result<std::vector<std::string>> WriteSampleBinlogs(const std::string& dir);

}  // namespace sluice::tools
