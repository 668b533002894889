// base/version.h
//
// The version sluiced reports: VERSION(), @@version, the handshake, the
// binlog's Format_description and the error log.
#pragma once

namespace sluice {

inline constexpr const char* kServerVersion = "8.0.36-sluice";
// VERSION() for mariadb-binlog, which reads only servers whose version
// number starts with 3, 4, 5 or 10 (its check_master_version); the events'
// own Format_description still says 8.0.36.
inline constexpr const char* kMariadbBinlogVersion = "5.7.99-8.0.36-sluice";
inline constexpr const char* kVersionComment = "sluice MySQL-compatible replication primary";

}  // namespace sluice
