// Control and statement events (Format_description, Previous_gtids, Gtid,
// Query, Xid, Rotate, Stop, Heartbeat): encoders, decoders and the SHOW
// BINLOG EVENTS "Info" text. Layouts: ../shared/reference/binlog-format.md.
#include <algorithm>
#include <string>

#include "binlog/bytes_internal.h"
#include "binlog/event.h"
#include "binlog/event_internal.h"

namespace sluice::binlog {
namespace {

using internal::ByteReader;
using internal::EventPayload;
using internal::FinishEvent;
using internal::FinishStartedEventIn;
using internal::LenencSize;
using internal::PutLE;
using internal::PutLenenc;
using internal::StartEventIn;
using internal::StoreLE;

// MySQL 8.0.26+ post-header lengths, entry i for type i+1 (41 types).
// Persisted in every file's Format_description: never change.
constexpr uint8_t kPostHeaderLengths[] = {
    0,  13, 0,  8,  0,  0,  0,  0,  4,  0,   // 1..10
    4,  0,  0,  0,  98, 0,  4,  26, 8,  0,   // 11..20
    0,  0,  8,  8,  8,  2,  0,  0,  0,  10,  // 21..30
    10, 10, 42, 42, 0,  18, 52, 0,  10, 40,  // 31..40
    0,                                       // 41
};
constexpr size_t kServerVersionLen = 50;
// binlog_version(2) + server_version(50) + create_timestamp(4) + header_length(1).
constexpr size_t kFdeFixedLen = 2 + kServerVersionLen + 4 + 1;

constexpr uint32_t kGtidPostHeaderLen = 42;
constexpr uint8_t kLogicalTimestampTypecode = 2;
constexpr uint64_t kOriginalTimestampFlag = 1ULL << 55;
constexpr uint32_t kOriginalServerVersionFlag = 1U << 31;

constexpr uint32_t kQueryPostHeaderLen = 13;
constexpr uint16_t kLogEventSuppressUse = 0x8;

// Query status variable codes (a persisted wire format).
enum QueryStatusCode : uint8_t {
  kQFlags2 = 0,
  kQSqlMode = 1,
  kQCatalog = 2,
  kQAutoIncrement = 3,
  kQCharset = 4,
  kQTimeZone = 5,
  kQCatalogNz = 6,
  kQLcTimeNames = 7,
  kQCharsetDatabase = 8,
  kQTableMapForUpdate = 9,
  kQMasterDataWritten = 10,
  kQInvoker = 11,
  kQUpdatedDbNames = 12,
  kQMicroseconds = 13,
  kQExplicitDefaultsForTimestamp = 16,
  kQDdlLoggedWithXid = 17,
  kQDefaultCollationForUtf8mb4 = 18,
  kQSqlRequirePrimaryKey = 19,
  kQDefaultTableEncryption = 20,
  kQHrnow = 128,  // MariaDB
};
// MySQL writes at most this many names in Q_UPDATED_DB_NAMES, and the
// count 254 ("too many") with no names beyond it.
constexpr size_t kMaxUpdatedDbNames = 16;
constexpr uint8_t kOverMaxDbNames = 254;

constexpr uint64_t kMask56 = (1ULL << 56) - 1;

Status WrongType(const char* what) { return Status::Corruption(std::string("binlog event is not a ") + what); }

// Header checked for `type`, then the post-header and body.
Result<std::string_view> TypedPayload(std::string_view event, Checksum checksum, uint8_t type, const char* what) {
  if (event.size() < kHeaderLen) return Status::Corruption("binlog event shorter than its header");
  if (static_cast<uint8_t>(event[4]) != type) return WrongType(what);
  return EventPayload(event, checksum == Checksum::kCrc32 ? Checksum::kCrc32 : Checksum::kOff);
}

// "8.0.36-sluice" -> 80036; 0 when the leading X.Y.Z is not numeric.
uint32_t VersionNumber(std::string_view v) {
  uint32_t parts[3] = {0, 0, 0};
  size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    size_t start = pos;
    while (pos < v.size() && v[pos] >= '0' && v[pos] <= '9' && pos - start < 4) {
      parts[i] = parts[i] * 10 + (v[pos] - '0');
      ++pos;
    }
    if (pos == start) return 0;
    if (i < 2) {
      if (pos >= v.size() || v[pos] != '.') return 0;
      ++pos;
    }
  }
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

std::string Decimal(uint64_t v) { return std::to_string(v); }


bool IsTransactionControl(std::string_view q) {
  auto iequals = [](std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      char x = a[i];
      if (x >= 'a' && x <= 'z') x = static_cast<char>(x - 'a' + 'A');
      if (x != b[i]) return false;
    }
    return true;
  };
  return iequals(q, "BEGIN") || iequals(q, "COMMIT") || iequals(q, "ROLLBACK");
}

uint8_t PostHeaderLen(const FormatDescription& fd, uint8_t type, uint8_t fallback) {
  if (type >= 1 && type <= fd.post_header_lengths.size()) return fd.post_header_lengths[type - 1];
  return fallback;
}

// Table id and flags of a Table_map or Rows event (post-header 6: 4-byte
// table id of pre-5.1.4 servers; otherwise 6 bytes).
bool ReadTableIdAndFlags(ByteReader& r, uint8_t post_header_len, uint64_t* table_id, uint16_t* flags) {
  const int id_width = post_header_len == 6 ? 4 : 6;
  *table_id = r.LE(id_width);
  *flags = static_cast<uint16_t>(r.LE(2));
  if (r.failed()) return false;
  if (post_header_len > id_width + 2) r.Skip(post_header_len - id_width - 2);
  return !r.failed();
}

std::string TableMapInfo(std::string_view payload, const FormatDescription& fd) {
  ByteReader r(payload);
  uint64_t table_id = 0;
  uint16_t flags = 0;
  if (!ReadTableIdAndFlags(r, PostHeaderLen(fd, kTableMapEvent, 8), &table_id, &flags)) return "";
  std::string_view db = r.Bytes(r.LE(1));
  r.Skip(1);
  std::string_view table = r.Bytes(r.LE(1));
  if (r.failed()) return "";
  return "table_id: " + Decimal(table_id) + " (" + std::string(db) + "." + std::string(table) + ")";
}

std::string RowsInfo(std::string_view payload, const FormatDescription& fd, uint8_t type) {
  ByteReader r(payload);
  uint64_t table_id = 0;
  uint16_t flags = 0;
  const uint8_t fallback = type >= kWriteRowsEvent ? 10 : 8;
  if (!ReadTableIdAndFlags(r, PostHeaderLen(fd, type, fallback), &table_id, &flags)) return "";
  std::string out = "table_id: " + Decimal(table_id);
  if (flags & kStmtEndF) out += " flags: STMT_END_F";
  return out;
}

std::string IntvarInfo(std::string_view payload) {
  ByteReader r(payload);
  const uint8_t type = static_cast<uint8_t>(r.LE(1));
  const uint64_t value = r.LE(8);
  if (r.failed()) return "";
  const char* name = type == 1 ? "LAST_INSERT_ID" : type == 2 ? "INSERT_ID" : "INVALID_INT";
  return std::string(name) + "=" + Decimal(value);
}

std::string IncidentInfo(std::string_view payload) {
  ByteReader r(payload);
  const uint16_t incident = static_cast<uint16_t>(r.LE(2));
  if (r.failed()) return "";
  std::string_view message;
  if (r.remaining() > 0) message = r.Bytes(r.LE(1));
  const char* desc = incident == 0 ? "NONE" : incident == 1 ? "LOST_EVENTS" : "UNKNOWN";
  std::string out = "#" + Decimal(incident) + " (" + desc + ")";
  if (!r.failed() && !message.empty()) out += " " + std::string(message);
  return out;
}

}  // namespace

std::string_view EventTypeName(uint8_t type) {
  switch (type) {
    case kStopEvent:
      return "Stop";
    case kQueryEvent:
      return "Query";
    case kRotateEvent:
      return "Rotate";
    case kIntvarEvent:
      return "Intvar";
    case 9:
      return "Append_block";
    case 11:
      return "Delete_file";
    case 13:
      return "RAND";
    case 14:
      return "User var";
    case kFormatDescriptionEvent:
      return "Format_desc";
    case kXidEvent:
      return "Xid";
    case 17:
      return "Begin_load_query";
    case 18:
      return "Execute_load_query";
    case kTableMapEvent:
      return "Table_map";
    case 23:
      return "Write_rows_v1";
    case 24:
      return "Update_rows_v1";
    case 25:
      return "Delete_rows_v1";
    case kIncidentEvent:
      return "Incident";
    case kHeartbeatEvent:
      return "Heartbeat";
    case kIgnorableEvent:
      return "Ignorable";
    case kRowsQueryEvent:
      return "Rows_query";
    case kWriteRowsEvent:
      return "Write_rows";
    case kUpdateRowsEvent:
      return "Update_rows";
    case kDeleteRowsEvent:
      return "Delete_rows";
    case kGtidEvent:
      return "Gtid";
    case kAnonymousGtidEvent:
      return "Anonymous_Gtid";
    case kPreviousGtidsEvent:
      return "Previous_gtids";
    case 36:
      return "Transaction_context";
    case 37:
      return "View_change";
    case 38:
      return "XA_prepare";
    case 39:
      return "Update_rows_partial";
    case 40:
      return "Transaction_payload";
    case kHeartbeatEventV2:
      return "Heartbeat_v2";
    default:
      return "Unknown";
  }
}

// ---- encoders ----

std::string EncodeFormatDescription(EventHeader h, std::string_view server_version, uint32_t create_timestamp,
                                    Checksum checksum) {
  std::string p;
  p.reserve(kFdeFixedLen + sizeof(kPostHeaderLengths) + 1);
  PutLE(p, 4, 2);
  std::string_view v = server_version.substr(0, kServerVersionLen);
  p.append(v);
  p.append(kServerVersionLen - v.size(), '\0');
  PutLE(p, create_timestamp, 4);
  p.push_back(static_cast<char>(kHeaderLen));
  p.append(reinterpret_cast<const char*>(kPostHeaderLengths), sizeof(kPostHeaderLengths));
  p.push_back(static_cast<char>(checksum));
  // The FDE always carries a CRC, computed with BINLOG_IN_USE_F clear so
  // that clearing the flag in place on close keeps the CRC valid.
  h.type = kFormatDescriptionEvent;
  const uint16_t in_use = h.flags & kLogEventBinlogInUse;
  h.flags &= static_cast<uint16_t>(~kLogEventBinlogInUse);
  std::string out = FinishEvent(h, p, Checksum::kCrc32);
  out[17] = static_cast<char>(out[17] | in_use);
  return out;
}

Result<std::string> ResendFormatDescription(std::string stored, bool mid_file) {
  if (stored.size() < kHeaderLen + kFdeFixedLen + kChecksumLen) {
    return Status::Corruption("Format_description event truncated");
  }
  if (static_cast<uint8_t>(stored[4]) != kFormatDescriptionEvent) return WrongType("Format_description");
  stored[17] = static_cast<char>(stored[17] & ~kLogEventBinlogInUse);
  if (mid_file) {
    internal::StoreLE(stored.data() + 13, 0, 4);                                  // log_pos
    internal::StoreLE(stored.data() + kHeaderLen + 2 + kServerVersionLen, 0, 4);  // create_timestamp
    const size_t crc_at = stored.size() - kChecksumLen;
    internal::StoreLE(stored.data() + crc_at, Crc32(std::string_view(stored).substr(0, crc_at)), 4);
  }
  return stored;
}

Result<std::string> FormatDescriptionForMariadb(std::string_view resent) {
  if (resent.size() < kHeaderLen + kFdeFixedLen + 1 + kChecksumLen) {
    return Status::Corruption("Format_description event truncated");
  }
  if (static_cast<uint8_t>(resent[4]) != kFormatDescriptionEvent) return WrongType("Format_description");
  // Post-header lengths of MariaDB's own types: Annotate_rows (160),
  // Binlog_checkpoint, Gtid, Gtid_list, Start_encryption, Query_compressed,
  // the v1 compressed rows events (166..168) and the v2 ones (169..171).
  static constexpr uint8_t kMariadbTypes[] = {0, 4, 19, 4, 0, 13, 8, 8, 8, 10, 10, 10};
  constexpr size_t kFirstMariadbType = 160;
  const size_t lengths_at = kHeaderLen + kFdeFixedLen;
  const size_t tail_at = resent.size() - 1 - kChecksumLen;  // the checksum algorithm byte
  const size_t have = tail_at - lengths_at;
  if (have >= kFirstMariadbType) return std::string(resent);  // already reaches them
  std::string out(resent.substr(0, tail_at));
  out.append(kFirstMariadbType - 1 - have, '\0');  // types no one sends
  out.append(reinterpret_cast<const char*>(kMariadbTypes), sizeof(kMariadbTypes));
  out.push_back(resent[tail_at]);
  out.append(kChecksumLen, '\0');
  internal::StoreLE(out.data() + 9, out.size(), 4);   // event_size
  internal::StoreLE(out.data() + 13, 0, 4);           // log_pos
  const size_t crc_at = out.size() - kChecksumLen;
  internal::StoreLE(out.data() + crc_at, Crc32(std::string_view(out).substr(0, crc_at)), 4);
  return out;
}

std::string EncodeIgnorable(EventHeader h, Checksum checksum) {
  h.type = kIgnorableEvent;
  h.flags |= kLogEventIgnorable;
  return FinishEvent(h, "", checksum);
}

std::string EncodePreviousGtids(EventHeader h, const GtidSet& set, Checksum checksum) {
  h.type = kPreviousGtidsEvent;
  return FinishEvent(h, set.Encode(), checksum);
}

namespace {
// Zero "original" values mean "same as immediate" (the originating server).
bool HasOriginalTimestamp(const GtidInfo& g) {
  return g.original_commit_timestamp != 0 && g.original_commit_timestamp != g.immediate_commit_timestamp;
}
bool HasOriginalServerVersion(const GtidInfo& g) {
  return g.original_server_version != 0 && g.original_server_version != g.immediate_server_version;
}
}  // namespace

uint32_t GtidEventSize(const GtidInfo& g, Checksum checksum) {
  uint32_t n = kHeaderLen + kGtidPostHeaderLen + 7 + (HasOriginalTimestamp(g) ? 7 : 0);
  n += static_cast<uint32_t>(LenencSize(g.transaction_length));
  n += 4 + (HasOriginalServerVersion(g) ? 4 : 0);
  if (checksum == Checksum::kCrc32) n += kChecksumLen;
  return n;
}

std::string EncodeGtid(EventHeader h, const GtidInfo& g, Checksum checksum) {
  std::string out;
  AppendGtid(out, h, g, checksum);
  return out;
}

void AppendGtid(std::string& p, EventHeader h, const GtidInfo& g, Checksum checksum) {
  const size_t start = StartEventIn(p, kGtidPostHeaderLen + 7 + 7 + 9 + 8);
  p.push_back(g.may_have_sbr ? '\1' : '\0');  // gtid_flags: FLAG_MAY_HAVE_SBR
  if (g.anonymous) {
    p.append(16, '\0');
    PutLE(p, 0, 8);
  } else {
    p.append(reinterpret_cast<const char*>(g.sid.bytes.data()), g.sid.bytes.size());
    PutLE(p, static_cast<uint64_t>(g.gno), 8);
  }
  p.push_back(static_cast<char>(kLogicalTimestampTypecode));
  PutLE(p, static_cast<uint64_t>(g.last_committed), 8);
  PutLE(p, static_cast<uint64_t>(g.sequence_number), 8);
  if (HasOriginalTimestamp(g)) {
    PutLE(p, (g.immediate_commit_timestamp & kMask56) | kOriginalTimestampFlag, 7);
    PutLE(p, g.original_commit_timestamp & kMask56 & ~kOriginalTimestampFlag, 7);
  } else {
    PutLE(p, g.immediate_commit_timestamp & kMask56 & ~kOriginalTimestampFlag, 7);
  }
  PutLenenc(p, g.transaction_length);
  if (HasOriginalServerVersion(g)) {
    PutLE(p, g.immediate_server_version | kOriginalServerVersionFlag, 4);
    PutLE(p, g.original_server_version & ~kOriginalServerVersionFlag, 4);
  } else {
    PutLE(p, g.immediate_server_version & ~kOriginalServerVersionFlag, 4);
  }
  h.type = g.anonymous ? kAnonymousGtidEvent : kGtidEvent;
  FinishStartedEventIn(h, p, start, checksum);
}

std::string EncodeQuery(EventHeader h, const QueryInfo& q, Checksum checksum) {
  std::string out;
  AppendQuery(out, h, q, checksum);
  return out;
}

void AppendQuery(std::string& p, EventHeader h, const QueryInfo& q, Checksum checksum) {
  const std::string_view db = std::string_view(q.db).substr(0, 255);
  // The status variables (at most some 600 bytes) are written in place;
  // their length, before them, is set once they are.
  const size_t start = StartEventIn(p, kQueryPostHeaderLen + 64 + db.size() + 1 + q.query.size());
  PutLE(p, q.thread_id, 4);
  PutLE(p, q.exec_time, 4);
  p.push_back(static_cast<char>(db.size()));
  PutLE(p, q.error_code, 2);
  const size_t sv_len_at = p.size();
  PutLE(p, 0, 2);
  const size_t sv_start = p.size();
  std::string& sv = p;  // the status variables go straight into the event
  // Status variables in the order MySQL 8.0 writes them (not by code):
  // readers without per-variable lengths stop at the first unknown code.
  sv.push_back(static_cast<char>(kQFlags2));
  PutLE(sv, q.flags2, 4);
  sv.push_back(static_cast<char>(kQSqlMode));
  PutLE(sv, q.sql_mode, 8);
  sv.push_back(static_cast<char>(kQCatalogNz));
  sv.push_back(3);
  sv.append("std");
  sv.push_back(static_cast<char>(kQCharset));
  PutLE(sv, q.charset_client, 2);
  PutLE(sv, q.collation_connection, 2);
  PutLE(sv, q.collation_server, 2);
  if (!q.time_zone.empty()) {
    std::string_view tz = std::string_view(q.time_zone).substr(0, 255);
    sv.push_back(static_cast<char>(kQTimeZone));
    sv.push_back(static_cast<char>(tz.size()));
    sv.append(tz);
  }
  if (!q.updated_db_names.empty()) {
    sv.push_back(static_cast<char>(kQUpdatedDbNames));
    if (q.updated_db_names.size() > kMaxUpdatedDbNames) {
      sv.push_back(static_cast<char>(kOverMaxDbNames));
    } else {
      sv.push_back(static_cast<char>(q.updated_db_names.size()));
      for (const std::string& name : q.updated_db_names) {
        sv.append(name);
        sv.push_back('\0');
      }
    }
  }
  if (q.ddl) {
    sv.push_back(static_cast<char>(kQExplicitDefaultsForTimestamp));
    sv.push_back(1);  // explicit_defaults_for_timestamp = ON (8.0 default)
  }
  if (q.ddl_xid.has_value()) {
    sv.push_back(static_cast<char>(kQDdlLoggedWithXid));
    PutLE(sv, *q.ddl_xid, 8);
  }
  sv.push_back(static_cast<char>(kQDefaultCollationForUtf8mb4));
  PutLE(sv, q.default_collation_for_utf8mb4, 2);
  if (q.ddl) {
    sv.push_back(static_cast<char>(kQSqlRequirePrimaryKey));
    sv.push_back(0);
    sv.push_back(static_cast<char>(kQDefaultTableEncryption));
    sv.push_back(0);
  }

  StoreLE(p.data() + sv_len_at, p.size() - sv_start, 2);
  p.append(db);
  p.push_back('\0');
  p.append(q.query);
  h.type = kQueryEvent;
  FinishStartedEventIn(h, p, start, checksum);
}

std::string EncodeXid(EventHeader h, uint64_t xid, Checksum checksum) {
  std::string out;
  AppendXid(out, h, xid, checksum);
  return out;
}

void AppendXid(std::string& p, EventHeader h, uint64_t xid, Checksum checksum) {
  const size_t start = StartEventIn(p, 8);
  PutLE(p, xid, 8);
  h.type = kXidEvent;
  FinishStartedEventIn(h, p, start, checksum);
}

std::string EncodeRotate(EventHeader h, uint64_t position, std::string_view next_file, Checksum checksum) {
  std::string p;
  p.reserve(8 + next_file.size());
  PutLE(p, position, 8);
  p.append(next_file);
  h.type = kRotateEvent;
  return FinishEvent(h, p, checksum);
}

std::string EncodeStop(EventHeader h, Checksum checksum) {
  h.type = kStopEvent;
  return FinishEvent(h, {}, checksum);
}

std::string EncodeHeartbeat(EventHeader h, std::string_view file, Checksum checksum) {
  h.type = kHeartbeatEvent;
  return FinishEvent(h, file, checksum);
}

// ---- decoders ----

Result<FormatDescription> DecodeFormatDescription(std::string_view event) {
  Result<EventHeader> h = ParseHeader(event);
  if (!h.ok()) return h.status();
  if (h->type != kFormatDescriptionEvent) return WrongType("Format_description");
  if (h->event_size != event.size()) return Status::Corruption("binlog event size does not match its header");
  std::string_view body = event.substr(kHeaderLen);
  if (body.size() < kFdeFixedLen) return Status::Corruption("Format_description event truncated");

  FormatDescription fd;
  ByteReader r(body);
  fd.binlog_version = static_cast<uint16_t>(r.LE(2));
  std::string_view version = r.Bytes(kServerVersionLen);
  fd.server_version = std::string(version.substr(0, version.find('\0')));
  fd.create_timestamp = static_cast<uint32_t>(r.LE(4));
  fd.header_length = static_cast<uint8_t>(r.LE(1));
  if (fd.header_length < kHeaderLen) return Status::Corruption("Format_description header length below 19");
  std::string_view rest = r.Rest();
  // Servers from 5.6.1 on end the event with the checksum algorithm and a
  // CRC32 (present even when the algorithm is OFF); older ones with neither.
  if (VersionNumber(fd.server_version) >= 50601) {
    if (rest.size() < 1 + kChecksumLen) return Status::Corruption("Format_description event truncated");
    const uint8_t alg = static_cast<uint8_t>(rest[rest.size() - 1 - kChecksumLen]);
    switch (alg) {
      case 0:
        fd.checksum = Checksum::kOff;
        break;
      case 1:
        fd.checksum = Checksum::kCrc32;
        break;
      case 255:
        fd.checksum = Checksum::kUndef;
        break;
      default:
        return Status::Corruption("Format_description has unknown checksum algorithm " + Decimal(alg));
    }
    rest.remove_suffix(1 + kChecksumLen);
  } else {
    fd.checksum = Checksum::kOff;
  }
  fd.post_header_lengths.assign(rest.begin(), rest.end());
  return fd;
}

Result<GtidSet> DecodePreviousGtids(std::string_view event, Checksum checksum) {
  Result<std::string_view> p = TypedPayload(event, checksum, kPreviousGtidsEvent, "Previous_gtids event");
  if (!p.ok()) return p.status();
  size_t consumed = 0;
  Result<GtidSet> set = GtidSet::Decode(*p, &consumed);
  if (!set.ok()) return set.status();
  if (consumed != p->size()) return Status::Corruption("Previous_gtids event has trailing bytes");
  return set;
}

Result<GtidInfo> DecodeGtid(std::string_view event, Checksum checksum) {
  const uint8_t type = event.size() >= kHeaderLen ? static_cast<uint8_t>(event[4]) : uint8_t{kGtidEvent};
  Result<std::string_view> p =
      TypedPayload(event, checksum, type == kAnonymousGtidEvent ? kAnonymousGtidEvent : kGtidEvent, "Gtid event");
  if (!p.ok()) return p.status();
  GtidInfo g;
  g.anonymous = type == kAnonymousGtidEvent;
  ByteReader r(*p);
  g.may_have_sbr = (r.LE(1) & 1) != 0;  // gtid_flags
  std::string_view sid = r.Bytes(16);
  g.gno = static_cast<int64_t>(r.LE(8));
  if (r.failed()) return Status::Corruption("Gtid event truncated");
  std::copy(sid.begin(), sid.end(), g.sid.bytes.begin());
  // Each later part is optional (older servers): parse by remaining length.
  if (r.remaining() >= 17) {
    const uint8_t typecode = static_cast<uint8_t>(r.LE(1));
    if (typecode != kLogicalTimestampTypecode) return Status::Corruption("Gtid event has unknown timestamp typecode");
    g.last_committed = static_cast<int64_t>(r.LE(8));
    g.sequence_number = static_cast<int64_t>(r.LE(8));
  }
  if (r.remaining() >= 7) {
    uint64_t ts = r.LE(7);
    if (ts & kOriginalTimestampFlag) {
      g.immediate_commit_timestamp = ts & ~kOriginalTimestampFlag;
      g.original_commit_timestamp = r.LE(7);
      if (r.failed()) return Status::Corruption("Gtid event truncated");
    } else {
      g.immediate_commit_timestamp = ts;
      g.original_commit_timestamp = ts;
    }
  }
  if (r.remaining() > 0) {
    g.transaction_length = r.Lenenc();
    if (r.failed()) return Status::Corruption("Gtid event truncated");
  }
  if (r.remaining() >= 4) {
    uint32_t v = static_cast<uint32_t>(r.LE(4));
    if (v & kOriginalServerVersionFlag) {
      g.immediate_server_version = v & ~kOriginalServerVersionFlag;
      g.original_server_version = static_cast<uint32_t>(r.LE(4));
      if (r.failed()) return Status::Corruption("Gtid event truncated");
    } else {
      g.immediate_server_version = v;
      g.original_server_version = v;
    }
  } else {
    // Before 8.0.14 no versions were logged: MySQL's UNKNOWN_SERVER_VERSION.
    g.immediate_server_version = 0;
    g.original_server_version = 0;
  }
  // Anything after (8.0.27+ commit_group_ticket) is not needed here.
  return g;
}

Result<QueryInfo> DecodeQuery(std::string_view event, Checksum checksum) {
  Result<std::string_view> p = TypedPayload(event, checksum, kQueryEvent, "Query event");
  if (!p.ok()) return p.status();
  ByteReader r(*p);
  QueryInfo q;
  q.thread_id = static_cast<uint32_t>(r.LE(4));
  q.exec_time = static_cast<uint32_t>(r.LE(4));
  const size_t db_len = r.LE(1);
  q.error_code = static_cast<uint16_t>(r.LE(2));
  const size_t sv_len = r.LE(2);
  std::string_view status_vars = r.Bytes(sv_len);
  std::string_view db = r.Bytes(db_len);
  r.Skip(1);  // db's NUL
  if (r.failed()) return Status::Corruption("Query event truncated");
  q.db = std::string(db);
  q.query = std::string(r.Rest());

  ByteReader s(status_vars);
  bool known = true;
  while (known && s.remaining() > 0 && !s.failed()) {
    const uint8_t code = static_cast<uint8_t>(s.LE(1));
    switch (code) {
      case kQFlags2:
        q.flags2 = static_cast<uint32_t>(s.LE(4));
        break;
      case kQSqlMode:
        q.sql_mode = s.LE(8);
        break;
      case kQCatalog:
        s.Skip(s.LE(1) + 1);
        break;
      case kQAutoIncrement:
        s.Skip(4);
        break;
      case kQCharset:
        q.charset_client = static_cast<uint16_t>(s.LE(2));
        q.collation_connection = static_cast<uint16_t>(s.LE(2));
        q.collation_server = static_cast<uint16_t>(s.LE(2));
        break;
      case kQTimeZone:
        q.time_zone = std::string(s.Bytes(s.LE(1)));
        break;
      case kQCatalogNz:
        s.Skip(s.LE(1));
        break;
      case kQLcTimeNames:
      case kQCharsetDatabase:
        s.Skip(2);
        break;
      case kQTableMapForUpdate:
        s.Skip(8);
        break;
      case kQMasterDataWritten:
        s.Skip(4);
        break;
      case kQInvoker:
        s.Skip(s.LE(1));
        s.Skip(s.LE(1));
        break;
      case kQUpdatedDbNames: {
        const uint8_t count = static_cast<uint8_t>(s.LE(1));
        if (count == kOverMaxDbNames) break;
        for (uint8_t i = 0; i < count && !s.failed(); ++i) {
          std::string_view rest = status_vars.substr(s.pos());
          size_t nul = rest.find('\0');
          if (nul == std::string_view::npos) {
            s.Skip(s.remaining() + 1);  // marks the reader failed
            break;
          }
          q.updated_db_names.emplace_back(s.Bytes(nul));
          s.Skip(1);
        }
        break;
      }
      case kQMicroseconds:
        s.Skip(3);
        break;
      case kQExplicitDefaultsForTimestamp:
        s.Skip(1);
        q.ddl = true;
        break;
      case kQDdlLoggedWithXid:
        q.ddl_xid = s.LE(8);
        break;
      case kQDefaultCollationForUtf8mb4:
        q.default_collation_for_utf8mb4 = static_cast<uint16_t>(s.LE(2));
        break;
      case kQSqlRequirePrimaryKey:
      case kQDefaultTableEncryption:
        s.Skip(1);
        q.ddl = true;
        break;
      case kQHrnow:
        s.Skip(3);
        break;
      default:
        // No per-variable length: nothing after an unknown code can be read.
        known = false;
        break;
    }
  }
  if (s.failed()) return Status::Corruption("Query event status variables truncated");
  return q;
}

Result<uint64_t> DecodeXid(std::string_view event, Checksum checksum) {
  Result<std::string_view> p = TypedPayload(event, checksum, kXidEvent, "Xid event");
  if (!p.ok()) return p.status();
  ByteReader r(*p);
  uint64_t xid = r.LE(8);
  if (r.failed()) return Status::Corruption("Xid event truncated");
  return xid;
}

Result<RotateInfo> DecodeRotate(std::string_view event, Checksum checksum) {
  Result<std::string_view> p = TypedPayload(event, checksum, kRotateEvent, "Rotate event");
  if (!p.ok()) return p.status();
  ByteReader r(*p);
  RotateInfo info;
  info.position = r.LE(8);
  if (r.failed()) return Status::Corruption("Rotate event truncated");
  info.next_file = std::string(r.Rest());
  return info;
}

// ---- SHOW BINLOG EVENTS ----

std::string EventInfo(std::string_view event, const FormatDescription& fd) {
  if (event.size() < kHeaderLen) return "";
  const uint8_t type = static_cast<uint8_t>(event[4]);
  const uint16_t flags = static_cast<uint16_t>(internal::LoadLE(event.data() + 17, 2));
  const Checksum checksum = fd.checksum == Checksum::kCrc32 ? Checksum::kCrc32 : Checksum::kOff;
  switch (type) {
    case kFormatDescriptionEvent: {
      Result<FormatDescription> f = DecodeFormatDescription(event);
      if (!f.ok()) return "";
      return "Server ver: " + f->server_version + ", Binlog ver: " + Decimal(f->binlog_version);
    }
    case kPreviousGtidsEvent: {
      Result<GtidSet> set = DecodePreviousGtids(event, checksum);
      return set.ok() ? set->ToString(",") : "";
    }
    case kGtidEvent:
    case kAnonymousGtidEvent: {
      Result<GtidInfo> g = DecodeGtid(event, checksum);
      if (!g.ok()) return "";
      if (g->anonymous) return "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'";
      return "SET @@SESSION.GTID_NEXT= '" + GtidToString(g->sid, g->gno) + "'";
    }
    case kQueryEvent: {
      Result<QueryInfo> q = DecodeQuery(event, checksum);
      if (!q.ok()) return "";
      std::string out;
      // MySQL marks BEGIN/COMMIT (and CREATE/DROP DATABASE) with
      // LOG_EVENT_SUPPRESS_USE_F; BEGIN/COMMIT never show a database.
      if (!(flags & kLogEventSuppressUse) && !q->db.empty() && !IsTransactionControl(q->query)) {
        out = "use " + QuoteIdentifier(q->db) + "; ";
      }
      out += q->query;
      if (q->ddl_xid.has_value()) out += " /* xid=" + Decimal(*q->ddl_xid) + " */";
      return out;
    }
    case kXidEvent: {
      Result<uint64_t> xid = DecodeXid(event, checksum);
      return xid.ok() ? "COMMIT /* xid=" + Decimal(*xid) + " */" : "";
    }
    case kRotateEvent: {
      Result<RotateInfo> rot = DecodeRotate(event, checksum);
      return rot.ok() ? rot->next_file + ";pos=" + Decimal(rot->position) : "";
    }
    default:
      break;
  }
  Result<std::string_view> payload = EventPayload(event, checksum);
  if (!payload.ok()) return "";
  switch (type) {
    case kTableMapEvent:
      return TableMapInfo(*payload, fd);
    case 23:
    case 24:
    case 25:
    case kWriteRowsEvent:
    case kUpdateRowsEvent:
    case kDeleteRowsEvent:
    case 39:  // PARTIAL_UPDATE_ROWS_EVENT
      return RowsInfo(*payload, fd, type);
    case kIntvarEvent:
      return IntvarInfo(*payload);
    case kRowsQueryEvent:
      // One (ignored, truncated) length byte, then the statement.
      return payload->empty() ? "" : "# " + std::string(payload->substr(1));
    case kIncidentEvent:
      return IncidentInfo(*payload);
    case kIgnorableEvent:
      return "# Ignorable event type " + Decimal(type) + " (" + std::string(EventTypeName(type)) + ")";
    default:
      return "";
  }
}

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out.push_back('`');
    out.push_back(c);
  }
  out.push_back('`');
  return out;
}

}  // namespace sluice::binlog
