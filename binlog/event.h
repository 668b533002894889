// binlog/event.h
//
// MySQL 8.0 binary log events as bytes (v4 format; see
// ../shared/reference/binlog-format.md). Encoders build whole events:
// the 19-byte common header, post-header, body and, when asked, the CRC32
// trailer. Every encoder takes an EventHeader whose log_pos is the offset
// of the *next* event in the file (0 for artificial events); for events
// built before their place in the file is known (a transaction's cache),
// PatchLogPos() moves log_pos and recomputes the CRC once it is.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "binlog/gtid.h"

namespace sluice::binlog {

inline constexpr char kBinlogMagic[4] = {'\xfe', 'b', 'i', 'n'};
inline constexpr uint32_t kHeaderLen = 19;
inline constexpr uint32_t kChecksumLen = 4;

enum EventType : uint8_t {
  kUnknownEvent = 0,
  kQueryEvent = 2,
  kStopEvent = 3,
  kRotateEvent = 4,
  kIntvarEvent = 5,
  kFormatDescriptionEvent = 15,
  kXidEvent = 16,
  kTableMapEvent = 19,
  kIncidentEvent = 26,
  kHeartbeatEvent = 27,
  kIgnorableEvent = 28,
  kRowsQueryEvent = 29,
  kWriteRowsEvent = 30,
  kUpdateRowsEvent = 31,
  kDeleteRowsEvent = 32,
  kGtidEvent = 33,
  kAnonymousGtidEvent = 34,
  kPreviousGtidsEvent = 35,
  kHeartbeatEventV2 = 41,
  // MariaDB's compressed rows events (v2), sent only to MariaDB replicas.
  kMariadbWriteRowsCompressedEvent = 169,
  kMariadbUpdateRowsCompressedEvent = 170,
  kMariadbDeleteRowsCompressedEvent = 171,
};
// "Query", "Write_rows", ... (MySQL's SHOW BINLOG EVENTS Event_type names);
// "Unknown" for other codes.
std::string_view EventTypeName(uint8_t type);

// Header flags.
inline constexpr uint16_t kLogEventBinlogInUse = 0x1;
inline constexpr uint16_t kLogEventArtificial = 0x20;
inline constexpr uint16_t kLogEventIgnorable = 0x80;

// Rows event flags.
inline constexpr uint16_t kStmtEndF = 0x1;
inline constexpr uint16_t kNoForeignKeyChecksF = 0x2;  // rows events: foreign_key_checks was off

enum class Checksum : uint8_t { kOff = 0, kCrc32 = 1, kUndef = 255 };

struct EventHeader {
  uint32_t timestamp = 0;  // seconds since the epoch
  uint8_t type = 0;
  uint32_t server_id = 0;
  uint32_t event_size = 0;  // filled in by the encoders
  uint32_t log_pos = 0;     // end offset of this event in its file
  uint16_t flags = 0;
};
// Parses the first 19 bytes. Corruption when shorter.
Result<EventHeader> ParseHeader(std::string_view event);

// zlib crc32 over `data`.
uint32_t Crc32(std::string_view data);
// For an event whose last 4 bytes are a CRC32: true when it matches (for
// a Format_description, with BINLOG_IN_USE_F cleared first, as MySQL).
bool VerifyChecksum(std::string_view event);
// Sets the header's log_pos and, when `checksum` is kCrc32, recomputes the
// trailing CRC. REQUIRES: `event` points at a whole event of event_size bytes.
void PatchLogPos(char* event, uint32_t log_pos, Checksum checksum);

// ---- control events ----

// Format_description (type 15) with MySQL 8.0.26+'s 41-entry post-header
// table, binlog_version 4 and `server_version` (NUL-padded to 50). The
// checksum byte is `checksum` and the event always ends in a CRC32 (also
// for kOff), so with kCrc32 and kOff it is 122 bytes. `flags` usually
// kLogEventBinlogInUse on a file's own copy.
std::string EncodeFormatDescription(EventHeader h, std::string_view server_version, uint32_t create_timestamp,
                                    Checksum checksum);
// The Format_description a dump sender sends a reader for a file, made
// from the file's own copy `stored` (the whole event as read):
//   - BINLOG_IN_USE_F cleared: the flag tells whoever opens the file that
//     its writer did not close it; a reader streaming it must not take the
//     file for crashed. The CRC stays valid: it is computed with the flag
//     clear (see EncodeFormatDescription).
//   - `mid_file` (the dump starts past offset 4): log_pos and
//     create_timestamp zeroed, and the CRC recomputed. A replica moves its
//     position to a Format_description's log_pos, and takes a non-zero
//     create_timestamp for a server start (it drops its temporary tables);
//     neither holds for a copy resent in the middle of a file.
// Corruption when `stored` is not a Format_description or is shorter than
// its fixed part and CRC.
Result<std::string> ResendFormatDescription(std::string stored, bool mid_file);
// The Format_description a dump sends a MariaDB replica that may get
// MariaDB's compressed rows events (RowsCompressedForMariadb): its table of
// post-header lengths reaches MariaDB's types 160..171 (a MariaDB replica
// reads the entry of a compressed rows event's type from it), log_pos is 0
// (the replica then does not move its position by this longer copy's size:
// the next event's log_pos sets it), and the CRC is computed again.
// `resent` is what ResendFormatDescription gave. Corruption as there.
Result<std::string> FormatDescriptionForMariadb(std::string_view resent);
std::string EncodePreviousGtids(EventHeader h, const GtidSet& set, Checksum checksum);
// An Ignorable event (28) with no body and LOG_EVENT_IGNORABLE_F, h's
// other fields kept: what a dump sends in place of an event the reader
// must skip.
std::string EncodeIgnorable(EventHeader h, Checksum checksum);

struct GtidInfo {
  bool anonymous = false;    // Anonymous_gtid (34) when gtid_mode is OFF
  // gtid_flags bit 0, FLAG_MAY_HAVE_SBR: the transaction has statements
  // (DDL); clear for row-based ones (mysqlbinlog prints rbr_only=yes).
  bool may_have_sbr = false;
  Uuid sid;                  // zero for anonymous
  int64_t gno = 0;           // 0 for anonymous
  int64_t last_committed = 0;
  int64_t sequence_number = 0;
  uint64_t immediate_commit_timestamp = 0;  // µs since the epoch
  uint64_t original_commit_timestamp = 0;   // written only when != immediate; 0 = same as immediate
  uint64_t transaction_length = 0;          // whole transaction incl. this event and CRCs
  uint32_t immediate_server_version = 80036;
  uint32_t original_server_version = 80036;  // written only when != immediate; 0 = same as immediate
};
// The event's size depends on transaction_length's lenenc width; this
// returns the size for a given transaction_length (with CRC when kCrc32).
uint32_t GtidEventSize(const GtidInfo& g, Checksum checksum);
// Gtid (33) or Anonymous_gtid (34); gtid_flags from may_have_sbr.
std::string EncodeGtid(EventHeader h, const GtidInfo& g, Checksum checksum);
// The same event, appended to `out` (the commit pipeline builds a group's
// events in one buffer).
void AppendGtid(std::string& out, EventHeader h, const GtidInfo& g, Checksum checksum);

struct QueryInfo {
  uint32_t thread_id = 0;
  uint32_t exec_time = 0;
  uint16_t error_code = 0;
  std::string db;           // current database ("" allowed)
  std::string query;        // SQL text
  uint64_t sql_mode = 0;    // MySQL's sql_mode bits
  uint32_t flags2 = 0;      // OPTION_* bits
  uint16_t charset_client = 255;          // utf8mb4_0900_ai_ci
  uint16_t collation_connection = 255;
  uint16_t collation_server = 255;
  uint16_t default_collation_for_utf8mb4 = 255;
  std::string time_zone;    // written when non-empty
  // DDL: also EXPLICIT_DEFAULTS_FOR_TIMESTAMP, SQL_REQUIRE_PRIMARY_KEY,
  // DEFAULT_TABLE_ENCRYPTION and DDL_LOGGED_WITH_XID when `ddl_xid` is set.
  bool ddl = false;
  std::optional<uint64_t> ddl_xid;
  // Q_UPDATED_DB_NAMES; written for DDL when non-empty.
  std::vector<std::string> updated_db_names;
};
// Status vars written: FLAGS2, SQL_MODE, CATALOG_NZ("std"), CHARSET,
// [TIME_ZONE], [UPDATED_DB_NAMES], DEFAULT_COLLATION_FOR_UTF8MB4, and for
// DDL the extra four above (in MySQL's order by code).
std::string EncodeQuery(EventHeader h, const QueryInfo& q, Checksum checksum);
std::string EncodeXid(EventHeader h, uint64_t xid, Checksum checksum);
// The same events, appended to `out` (a session builds each event of its
// transaction in one buffer it keeps).
void AppendQuery(std::string& out, EventHeader h, const QueryInfo& q, Checksum checksum);
void AppendXid(std::string& out, EventHeader h, uint64_t xid, Checksum checksum);
// Rotate (4): position (8) then the next file's basename, no NUL.
std::string EncodeRotate(EventHeader h, uint64_t position, std::string_view next_file, Checksum checksum);
std::string EncodeStop(EventHeader h, Checksum checksum);
// Heartbeat (27): body = current file basename; header.log_pos = position.
std::string EncodeHeartbeat(EventHeader h, std::string_view file, Checksum checksum);

// `name` quoted as a MySQL identifier: `a``b` (Info texts, mysqlbinlog output).
std::string QuoteIdentifier(std::string_view name);

// ---- decoding (for SHOW BINLOG EVENTS, recovery and tools) ----

// A Format_description as read: what later events of the file need.
struct FormatDescription {
  uint16_t binlog_version = 4;
  std::string server_version;
  uint32_t create_timestamp = 0;
  uint8_t header_length = 19;
  std::vector<uint8_t> post_header_lengths;  // index type-1
  Checksum checksum = Checksum::kOff;
};
Result<FormatDescription> DecodeFormatDescription(std::string_view event);
Result<GtidSet> DecodePreviousGtids(std::string_view event, Checksum checksum);
Result<GtidInfo> DecodeGtid(std::string_view event, Checksum checksum);
Result<QueryInfo> DecodeQuery(std::string_view event, Checksum checksum);
Result<uint64_t> DecodeXid(std::string_view event, Checksum checksum);
struct RotateInfo {
  uint64_t position = 4;
  std::string next_file;
};
Result<RotateInfo> DecodeRotate(std::string_view event, Checksum checksum);

// MySQL's SHOW BINLOG EVENTS "Info" column for one event ("Server ver:
// 8.0.36-sluice, Binlog ver: 4", "BEGIN", "table_id: 92 (db.t)",
// "table_id: 92 flags: STMT_END_F", "COMMIT /* xid=14 */",
// "SET @@SESSION.GTID_NEXT= 'uuid:1'", "binlog.000002;pos=4", ...).
// `fd` is the file's Format_description (its checksum says whether the
// event carries a CRC).
std::string EventInfo(std::string_view event, const FormatDescription& fd);

}  // namespace sluice::binlog
