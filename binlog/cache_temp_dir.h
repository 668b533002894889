// binlog/cache_temp_dir.h
//
// Where a TransactionCache (binlog/binlog.h) spills once it outgrows
// binlog_cache_size: --tmpdir. Empty (the default): the C library's
// tmpfile(). Set once at start-up, before any cache spills.
#pragma once

#include <string>

namespace sluice::binlog {

void SetCacheTempDir(std::string dir);

}  // namespace sluice::binlog
