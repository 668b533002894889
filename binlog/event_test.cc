#include "binlog/event.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "binlog/bytes_internal.h"

namespace sluice::binlog {
namespace {

using internal::LoadLE;

constexpr char kUuidA[] = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
constexpr char kServerVersion[] = "8.0.36-sluice";

Uuid UuidA() { return *Uuid::Parse(kUuidA); }

EventHeader Header(uint32_t log_pos = 0, uint16_t flags = 0) {
  EventHeader h;
  h.timestamp = 1700000000;
  h.server_id = 1;
  h.log_pos = log_pos;
  h.flags = flags;
  return h;
}

FormatDescription Fd(Checksum checksum) {
  Result<FormatDescription> fd =
      DecodeFormatDescription(EncodeFormatDescription(Header(), kServerVersion, 0, checksum));
  EXPECT_TRUE(fd.ok());
  return *fd;
}

uint8_t Byte(const std::string& e, size_t i) { return static_cast<uint8_t>(e[i]); }
uint32_t EventSize(const std::string& e) { return static_cast<uint32_t>(LoadLE(e.data() + 9, 4)); }

// Re-sizes a hand-built event and appends a CRC when asked.
std::string Seal(std::string e, Checksum checksum) {
  const uint32_t size = static_cast<uint32_t>(e.size() + (checksum == Checksum::kCrc32 ? 4 : 0));
  internal::StoreLE(e.data() + 9, size, 4);
  if (checksum == Checksum::kCrc32) internal::PutLE(e, Crc32(e), 4);
  return e;
}

GtidInfo OriginGtid() {
  GtidInfo g;
  g.sid = UuidA();
  g.gno = 7;
  g.last_committed = 3;
  g.sequence_number = 4;
  g.immediate_commit_timestamp = 1700000000123456;
  g.original_commit_timestamp = 1700000000123456;
  g.transaction_length = 200;
  return g;
}

// ---- names ----

TEST(EventTypeNameTest, MatchesShowBinlogEvents) {
  EXPECT_EQ(EventTypeName(kQueryEvent), "Query");
  EXPECT_EQ(EventTypeName(kStopEvent), "Stop");
  EXPECT_EQ(EventTypeName(kRotateEvent), "Rotate");
  EXPECT_EQ(EventTypeName(kIntvarEvent), "Intvar");
  EXPECT_EQ(EventTypeName(kFormatDescriptionEvent), "Format_desc");
  EXPECT_EQ(EventTypeName(kXidEvent), "Xid");
  EXPECT_EQ(EventTypeName(kTableMapEvent), "Table_map");
  EXPECT_EQ(EventTypeName(kIncidentEvent), "Incident");
  EXPECT_EQ(EventTypeName(kHeartbeatEvent), "Heartbeat");
  EXPECT_EQ(EventTypeName(kIgnorableEvent), "Ignorable");
  EXPECT_EQ(EventTypeName(kRowsQueryEvent), "Rows_query");
  EXPECT_EQ(EventTypeName(kWriteRowsEvent), "Write_rows");
  EXPECT_EQ(EventTypeName(kUpdateRowsEvent), "Update_rows");
  EXPECT_EQ(EventTypeName(kDeleteRowsEvent), "Delete_rows");
  EXPECT_EQ(EventTypeName(kGtidEvent), "Gtid");
  EXPECT_EQ(EventTypeName(kAnonymousGtidEvent), "Anonymous_Gtid");
  EXPECT_EQ(EventTypeName(kPreviousGtidsEvent), "Previous_gtids");
  EXPECT_EQ(EventTypeName(0), "Unknown");
  EXPECT_EQ(EventTypeName(200), "Unknown");
}

// ---- Format_description ----

TEST(FormatDescriptionTest, Is122BytesWithThe8026PostHeaderTable) {
  static const uint8_t kTable[41] = {0, 13, 0, 8,  0,  0,  0,  0,  4,  0, 4,  0,  0,  0,  98, 0, 4, 26, 8,  0, 0,
                                     0, 8,  8, 8,  2,  0,  0,  0,  10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0};
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    std::string e = EncodeFormatDescription(Header(126), kServerVersion, 1700000000, c);
    ASSERT_EQ(e.size(), 122u);
    EXPECT_EQ(EventSize(e), 122u);
    EXPECT_EQ(Byte(e, 4), kFormatDescriptionEvent);
    EXPECT_EQ(LoadLE(e.data() + 13, 4), 126u);
    EXPECT_EQ(LoadLE(e.data() + 19, 2), 4u);  // binlog_version
    EXPECT_EQ(e.substr(21, 50), std::string(kServerVersion) + std::string(50 - 13, '\0'));
    EXPECT_EQ(LoadLE(e.data() + 71, 4), 1700000000u);
    EXPECT_EQ(Byte(e, 75), 19);
    EXPECT_EQ(e.substr(76, 41), std::string(reinterpret_cast<const char*>(kTable), 41));
    EXPECT_EQ(Byte(e, 117), static_cast<uint8_t>(c));
    EXPECT_EQ(LoadLE(e.data() + 118, 4), Crc32(std::string_view(e).substr(0, 118)));
    EXPECT_TRUE(VerifyChecksum(e));
  }
}

TEST(FormatDescriptionTest, CrcIsComputedWithBinlogInUseCleared) {
  std::string open = EncodeFormatDescription(Header(126, kLogEventBinlogInUse), kServerVersion, 0, Checksum::kCrc32);
  std::string closed = EncodeFormatDescription(Header(126), kServerVersion, 0, Checksum::kCrc32);
  EXPECT_EQ(Byte(open, 17), kLogEventBinlogInUse);
  EXPECT_EQ(Byte(closed, 17), 0);
  // Clearing the flag in place (as on close) leaves a valid event.
  EXPECT_EQ(open.substr(118), closed.substr(118));
  open[17] = 0;
  EXPECT_EQ(open, closed);
  EXPECT_TRUE(VerifyChecksum(closed));
}

TEST(FormatDescriptionTest, LongServerVersionIsTruncatedTo50) {
  std::string e = EncodeFormatDescription(Header(), std::string(60, 'v'), 0, Checksum::kCrc32);
  EXPECT_EQ(e.size(), 122u);
  EXPECT_EQ(DecodeFormatDescription(e)->server_version, std::string(50, 'v'));
}

TEST(FormatDescriptionTest, DecodeRoundTrip) {
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    std::string e = EncodeFormatDescription(Header(126, kLogEventBinlogInUse), kServerVersion, 42, c);
    Result<FormatDescription> fd = DecodeFormatDescription(e);
    ASSERT_TRUE(fd.ok()) << fd.status().ToString();
    EXPECT_EQ(fd->binlog_version, 4);
    EXPECT_EQ(fd->server_version, kServerVersion);
    EXPECT_EQ(fd->create_timestamp, 42u);
    EXPECT_EQ(fd->header_length, 19);
    ASSERT_EQ(fd->post_header_lengths.size(), 41u);
    EXPECT_EQ(fd->post_header_lengths[kQueryEvent - 1], 13);
    EXPECT_EQ(fd->post_header_lengths[kGtidEvent - 1], 42);
    EXPECT_EQ(fd->checksum, c);
  }
}

TEST(FormatDescriptionTest, DecodeAcceptsLongerAndShorterTables) {
  std::string e = EncodeFormatDescription(Header(), "8.4.0", 0, Checksum::kCrc32);
  // 8.4: one more table entry (42 types).
  std::string longer = e.substr(0, 117) + std::string(1, '\0') + e.substr(117, 1);
  longer = Seal(longer, Checksum::kCrc32);
  Result<FormatDescription> fd = DecodeFormatDescription(longer);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(fd->post_header_lengths.size(), 42u);
  EXPECT_EQ(fd->checksum, Checksum::kCrc32);
  // 5.7: 38 entries.
  std::string shorter = Seal(e.substr(0, 76 + 38) + e.substr(117, 1), Checksum::kCrc32);
  fd = DecodeFormatDescription(shorter);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(fd->post_header_lengths.size(), 38u);
  // Before 5.6.1: no checksum byte and no CRC.
  std::string old = EncodeFormatDescription(Header(), "5.5.62-log", 0, Checksum::kOff);
  old = Seal(old.substr(0, 76 + 27), Checksum::kOff);
  fd = DecodeFormatDescription(old);
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(fd->server_version, "5.5.62-log");
  EXPECT_EQ(fd->post_header_lengths.size(), 27u);
  EXPECT_EQ(fd->checksum, Checksum::kOff);
}

TEST(FormatDescriptionTest, DecodeRejectsBadInput) {
  std::string e = EncodeFormatDescription(Header(), kServerVersion, 0, Checksum::kCrc32);
  EXPECT_TRUE(DecodeFormatDescription(e.substr(0, 60)).status().IsCorruption());
  EXPECT_TRUE(DecodeFormatDescription(e.substr(0, 121)).status().IsCorruption());  // size mismatch
  EXPECT_TRUE(DecodeFormatDescription(EncodeStop(Header(), Checksum::kOff)).status().IsCorruption());
  std::string bad_alg = e;
  bad_alg[117] = 7;
  EXPECT_TRUE(DecodeFormatDescription(bad_alg).status().IsCorruption());
  std::string bad_header_len = e;
  bad_header_len[75] = 13;
  EXPECT_TRUE(DecodeFormatDescription(bad_header_len).status().IsCorruption());
}

// What BinlogSender produced by patching bytes in place before
// ResendFormatDescription existed: the reference the API must match.
std::string SenderPatchedFde(std::string ev, bool mid_file) {
  ev[17] = static_cast<char>(ev[17] & ~kLogEventBinlogInUse);
  if (mid_file) {
    internal::StoreLE(ev.data() + 13, 0, 4);
    internal::StoreLE(ev.data() + kHeaderLen + 2 + 50, 0, 4);
    internal::StoreLE(ev.data() + ev.size() - 4, Crc32(std::string_view(ev).substr(0, ev.size() - 4)), 4);
  }
  return ev;
}

TEST(FormatDescriptionTest, ResendMatchesWhatTheSenderPatched) {
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    for (uint16_t flags : {uint16_t{0}, kLogEventBinlogInUse}) {
      for (uint32_t created : {0u, 1700000000u}) {
        for (bool mid_file : {false, true}) {
          const std::string stored = EncodeFormatDescription(Header(126, flags), kServerVersion, created, c);
          Result<std::string> sent = ResendFormatDescription(stored, mid_file);
          ASSERT_TRUE(sent.ok()) << sent.status().ToString();
          EXPECT_EQ(*sent, SenderPatchedFde(stored, mid_file));
          EXPECT_EQ(sent->size(), stored.size());
          EXPECT_EQ(Byte(*sent, 17) & kLogEventBinlogInUse, 0);
          EXPECT_TRUE(VerifyChecksum(*sent));
          Result<EventHeader> h = ParseHeader(*sent);
          ASSERT_TRUE(h.ok());
          EXPECT_EQ(h->log_pos, mid_file ? 0u : 126u);
          EXPECT_EQ(h->timestamp, 1700000000u);  // the header's own time is kept
          Result<FormatDescription> fd = DecodeFormatDescription(*sent);
          ASSERT_TRUE(fd.ok());
          EXPECT_EQ(fd->create_timestamp, mid_file ? 0u : created);
          EXPECT_EQ(fd->checksum, c);
          EXPECT_EQ(fd->server_version, kServerVersion);
        }
      }
    }
  }
}

TEST(FormatDescriptionTest, ResendRejectsWhatIsNotAFormatDescription) {
  std::string e = EncodeFormatDescription(Header(126), kServerVersion, 0, Checksum::kCrc32);
  EXPECT_TRUE(ResendFormatDescription(e.substr(0, 60), true).status().IsCorruption());
  EXPECT_TRUE(ResendFormatDescription("", false).status().IsCorruption());
  std::string rotate = EncodeRotate(Header(), 4, std::string(80, 'f'), Checksum::kCrc32);
  EXPECT_TRUE(ResendFormatDescription(rotate, true).status().IsCorruption());
}

TEST(FormatDescriptionTest, MariadbCopyReachesItsCompressedRowsTypes) {
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    const std::string stored = EncodeFormatDescription(Header(126), kServerVersion, 1700000000u, c);
    Result<std::string> resent = ResendFormatDescription(stored, false);
    ASSERT_TRUE(resent.ok());
    Result<std::string> m = FormatDescriptionForMariadb(*resent);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    // 41 lengths become 171: every type up to MariaDB's v2 compressed rows.
    EXPECT_EQ(m->size(), stored.size() + 171 - 41);
    EXPECT_TRUE(VerifyChecksum(*m));
    Result<EventHeader> h = ParseHeader(*m);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(h->event_size, m->size());
    EXPECT_EQ(h->log_pos, 0u);
    const size_t lengths_at = kHeaderLen + 2 + 50 + 4 + 1;
    EXPECT_EQ(m->substr(lengths_at, 41), stored.substr(lengths_at, 41));  // MySQL's own types unchanged
    EXPECT_EQ(Byte(*m, lengths_at + 165 - 1), 13);  // Query_compressed
    EXPECT_EQ(Byte(*m, lengths_at + 166 - 1), 8);   // Write_rows_compressed v1
    EXPECT_EQ(Byte(*m, lengths_at + 169 - 1), 10);  // Write_rows_compressed v2
    EXPECT_EQ(Byte(*m, lengths_at + 171 - 1), 10);  // Delete_rows_compressed v2
    Result<FormatDescription> fd = DecodeFormatDescription(*m);
    ASSERT_TRUE(fd.ok()) << fd.status().ToString();
    EXPECT_EQ(fd->checksum, c);
    EXPECT_EQ(fd->create_timestamp, 1700000000u);
  }
  std::string rotate = EncodeRotate(Header(), 4, "binlog.000002", Checksum::kCrc32);
  EXPECT_TRUE(FormatDescriptionForMariadb(rotate).status().IsCorruption());
  EXPECT_TRUE(FormatDescriptionForMariadb("").status().IsCorruption());
}

// ---- Previous_gtids ----

TEST(PreviousGtidsTest, EmptyIs31Bytes) {
  std::string e = EncodePreviousGtids(Header(157), GtidSet{}, Checksum::kCrc32);
  ASSERT_EQ(e.size(), 31u);
  EXPECT_EQ(Byte(e, 4), kPreviousGtidsEvent);
  EXPECT_EQ(e.substr(19, 8), std::string(8, '\0'));
  EXPECT_TRUE(VerifyChecksum(e));
  EXPECT_EQ(EncodePreviousGtids(Header(), GtidSet{}, Checksum::kOff).size(), 27u);
}

TEST(PreviousGtidsTest, RoundTrip) {
  GtidSet set = *GtidSet::Parse(std::string(kUuidA) + ":1-5:7");
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    std::string e = EncodePreviousGtids(Header(), set, c);
    EXPECT_EQ(e.size(), 19 + set.EncodedSize() + (c == Checksum::kCrc32 ? 4 : 0));
    Result<GtidSet> d = DecodePreviousGtids(e, c);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(*d, set);
  }
  std::string e = EncodePreviousGtids(Header(), set, Checksum::kCrc32);
  EXPECT_FALSE(DecodePreviousGtids(e, Checksum::kOff).ok());  // CRC read as set bytes
  EXPECT_FALSE(DecodePreviousGtids(EncodeXid(Header(), 1, Checksum::kOff), Checksum::kOff).ok());
}

// ---- Gtid ----

// Appended after other events (the flush stage's group buffer), the event
// is the same bytes, its CRC over itself alone.
TEST(GtidEventTest, AppendedAfterOtherBytesIsTheSameEvent) {
  for (Checksum cs : {Checksum::kCrc32, Checksum::kOff}) {
    const GtidInfo g = OriginGtid();
    std::string buf = EncodeXid(Header(), 9, cs);
    const std::string before = buf;
    AppendGtid(buf, Header(), g, cs);
    EXPECT_EQ(buf, before + EncodeGtid(Header(), g, cs));
    if (cs == Checksum::kCrc32) EXPECT_TRUE(VerifyChecksum(std::string_view(buf).substr(before.size())));
  }
}

TEST(GtidEventTest, OriginServerLayout) {
  GtidInfo g = OriginGtid();
  std::string e = EncodeGtid(Header(), g, Checksum::kCrc32);
  ASSERT_EQ(e.size(), 19u + 42 + 7 + 1 + 4 + 4);
  EXPECT_EQ(GtidEventSize(g, Checksum::kCrc32), e.size());
  EXPECT_EQ(GtidEventSize(g, Checksum::kOff), e.size() - 4);
  EXPECT_EQ(EncodeGtid(Header(), g, Checksum::kOff).size(), e.size() - 4);
  EXPECT_EQ(Byte(e, 4), kGtidEvent);
  EXPECT_EQ(Byte(e, 19), 0);  // gtid_flags
  EXPECT_EQ(e.substr(20, 16), std::string(reinterpret_cast<const char*>(UuidA().bytes.data()), 16));
  EXPECT_EQ(LoadLE(e.data() + 36, 8), 7u);
  EXPECT_EQ(Byte(e, 44), 2);  // logical timestamp typecode
  EXPECT_EQ(LoadLE(e.data() + 45, 8), 3u);
  EXPECT_EQ(LoadLE(e.data() + 53, 8), 4u);
  EXPECT_EQ(LoadLE(e.data() + 61, 7), 1700000000123456u);  // bit 55 clear
  EXPECT_EQ(Byte(e, 68), 200);                            // transaction_length
  EXPECT_EQ(LoadLE(e.data() + 69, 4), 80036u);            // bit 31 clear
  EXPECT_TRUE(VerifyChecksum(e));
}

TEST(GtidEventTest, ZeroOriginalMeansSameAsImmediate) {
  GtidInfo g = OriginGtid();
  g.original_commit_timestamp = 0;
  g.original_server_version = 0;
  EXPECT_EQ(EncodeGtid(Header(), g, Checksum::kOff), EncodeGtid(Header(), OriginGtid(), Checksum::kOff));
}

TEST(GtidEventTest, ReplicatedTransactionCarriesOriginals) {
  GtidInfo g = OriginGtid();
  g.original_commit_timestamp = 1600000000000001;
  g.original_server_version = 80019;
  g.transaction_length = 70000;  // 3-byte lenenc... 0xfd + 3
  std::string e = EncodeGtid(Header(), g, Checksum::kCrc32);
  EXPECT_EQ(e.size(), 19u + 42 + 7 + 7 + 4 + 4 + 4 + 4);
  EXPECT_EQ(GtidEventSize(g, Checksum::kCrc32), e.size());
  EXPECT_EQ(LoadLE(e.data() + 61, 7), 1700000000123456u | (1ULL << 55));
  EXPECT_EQ(LoadLE(e.data() + 68, 7), 1600000000000001u);
  Result<GtidInfo> d = DecodeGtid(e, Checksum::kCrc32);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->immediate_commit_timestamp, g.immediate_commit_timestamp);
  EXPECT_EQ(d->original_commit_timestamp, g.original_commit_timestamp);
  EXPECT_EQ(d->transaction_length, 70000u);
  EXPECT_EQ(d->immediate_server_version, 80036u);
  EXPECT_EQ(d->original_server_version, 80019u);
}

TEST(GtidEventTest, TransactionLengthWidthChangesSize) {
  GtidInfo g = OriginGtid();
  g.transaction_length = 250;
  EXPECT_EQ(GtidEventSize(g, Checksum::kCrc32), 77u);
  g.transaction_length = 251;
  EXPECT_EQ(GtidEventSize(g, Checksum::kCrc32), 79u);
  EXPECT_EQ(EncodeGtid(Header(), g, Checksum::kCrc32).size(), 79u);
}

TEST(GtidEventTest, RoundTrip) {
  GtidInfo g = OriginGtid();
  std::string e = EncodeGtid(Header(), g, Checksum::kCrc32);
  Result<GtidInfo> d = DecodeGtid(e, Checksum::kCrc32);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(d->anonymous);
  EXPECT_EQ(d->sid, g.sid);
  EXPECT_EQ(d->gno, 7);
  EXPECT_EQ(d->last_committed, 3);
  EXPECT_EQ(d->sequence_number, 4);
  EXPECT_EQ(d->immediate_commit_timestamp, g.immediate_commit_timestamp);
  EXPECT_EQ(d->original_commit_timestamp, g.immediate_commit_timestamp);
  EXPECT_EQ(d->transaction_length, 200u);
  EXPECT_EQ(d->immediate_server_version, 80036u);
  EXPECT_EQ(d->original_server_version, 80036u);
}

TEST(GtidEventTest, AnonymousHasZeroSidAndGno) {
  GtidInfo g = OriginGtid();
  g.anonymous = true;
  std::string e = EncodeGtid(Header(), g, Checksum::kOff);
  EXPECT_EQ(Byte(e, 4), kAnonymousGtidEvent);
  EXPECT_EQ(e.substr(20, 24), std::string(24, '\0'));
  Result<GtidInfo> d = DecodeGtid(e, Checksum::kOff);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->anonymous);
  EXPECT_TRUE(d->sid.is_zero());
  EXPECT_EQ(d->gno, 0);
  EXPECT_EQ(d->sequence_number, 4);
}

TEST(GtidEventTest, DecodeOlderLayouts) {
  std::string e = EncodeGtid(Header(), OriginGtid(), Checksum::kOff);
  // 5.7: post-header only.
  Result<GtidInfo> d = DecodeGtid(Seal(e.substr(0, 61), Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->gno, 7);
  EXPECT_EQ(d->sequence_number, 4);
  EXPECT_EQ(d->immediate_commit_timestamp, 0u);
  EXPECT_EQ(d->transaction_length, 0u);
  // 8.0.2..8.0.13: no server versions.
  d = DecodeGtid(Seal(e.substr(0, 69), Checksum::kCrc32), Checksum::kCrc32);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->transaction_length, 200u);
  EXPECT_EQ(d->immediate_server_version, 0u);
  // 8.0.27+: a trailing commit_group_ticket is ignored.
  d = DecodeGtid(Seal(e + std::string(8, '\x01'), Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->immediate_server_version, 80036u);
  // Truncated post-header; original timestamp flagged but missing.
  EXPECT_FALSE(DecodeGtid(Seal(e.substr(0, 40), Checksum::kOff), Checksum::kOff).ok());
  std::string flagged = e.substr(0, 68);
  flagged[67] = static_cast<char>(flagged[67] | 0x80);
  EXPECT_FALSE(DecodeGtid(Seal(flagged, Checksum::kOff), Checksum::kOff).ok());
  EXPECT_FALSE(DecodeGtid(EncodeStop(Header(), Checksum::kOff), Checksum::kOff).ok());
}

// ---- Query ----

// The status-variable codes of a Query event, in order.
std::vector<int> StatusCodes(const std::string& e) {
  const size_t len = LoadLE(e.data() + 19 + 11, 2);
  std::string_view sv = std::string_view(e).substr(19 + 13, len);
  std::vector<int> codes;
  size_t i = 0;
  while (i < sv.size()) {
    const uint8_t code = static_cast<uint8_t>(sv[i++]);
    codes.push_back(code);
    switch (code) {
      case 0:  // FLAGS2
        i += 4;
        break;
      case 1:  // SQL_MODE
        i += 8;
        break;
      case 4:  // CHARSET
        i += 6;
        break;
      case 5:  // TIME_ZONE
      case 6:  // CATALOG_NZ
        i += 1 + static_cast<uint8_t>(sv[i]);
        break;
      case 12: {  // UPDATED_DB_NAMES
        const uint8_t n = static_cast<uint8_t>(sv[i++]);
        for (int k = 0; k < n && n != 254; ++k) i = sv.find('\0', i) + 1;
        break;
      }
      case 16:  // EXPLICIT_DEFAULTS_FOR_TIMESTAMP
      case 19:  // SQL_REQUIRE_PRIMARY_KEY
      case 20:  // DEFAULT_TABLE_ENCRYPTION
        i += 1;
        break;
      case 17:  // DDL_LOGGED_WITH_XID
        i += 8;
        break;
      case 18:  // DEFAULT_COLLATION_FOR_UTF8MB4
        i += 2;
        break;
      default:
        ADD_FAILURE() << "unexpected code " << int{code};
        return codes;
    }
  }
  EXPECT_EQ(i, sv.size());
  return codes;
}

TEST(QueryEventTest, BeginLayout) {
  QueryInfo q;
  q.thread_id = 8;
  q.query = "BEGIN";
  std::string e = EncodeQuery(Header(), q, Checksum::kCrc32);
  // status vars: FLAGS2 5 + SQL_MODE 9 + CATALOG_NZ 5 + CHARSET 7 + UTF8MB4 collation 3.
  EXPECT_EQ(e.size(), 19u + 13 + 29 + 1 + 5 + 4);
  EXPECT_EQ(Byte(e, 4), kQueryEvent);
  EXPECT_EQ(LoadLE(e.data() + 19, 4), 8u);
  EXPECT_EQ(Byte(e, 27), 0);  // db_len
  EXPECT_EQ(LoadLE(e.data() + 30, 2), 29u);
  EXPECT_EQ(StatusCodes(e), (std::vector<int>{0, 1, 6, 4, 18}));
  EXPECT_EQ(e.substr(32 + 14, 5), std::string("\x06\x03std", 5));
  EXPECT_EQ(e.substr(32 + 29, 6), std::string("\0BEGIN", 6));
  EXPECT_TRUE(VerifyChecksum(e));
}

TEST(QueryEventTest, DdlWritesStatusVarsInMySqlOrder) {
  QueryInfo q;
  q.db = "test";
  q.query = "CREATE TABLE t1 (a INT)";
  q.ddl = true;
  q.ddl_xid = 13;
  q.time_zone = "+00:00";
  q.updated_db_names = {"test"};
  std::string e = EncodeQuery(Header(), q, Checksum::kOff);
  EXPECT_EQ(StatusCodes(e), (std::vector<int>{0, 1, 6, 4, 5, 12, 16, 17, 18, 19, 20}));
  EXPECT_EQ(Byte(e, 27), 4);  // db_len
  EXPECT_EQ(e.substr(e.size() - q.query.size() - 5), std::string("test\0", 5) + q.query);
}

TEST(QueryEventTest, RoundTrip) {
  QueryInfo q;
  q.thread_id = 77;
  q.exec_time = 2;
  q.error_code = 1062;
  q.db = "shop";
  q.query = "ALTER TABLE t ADD COLUMN c INT";
  q.sql_mode = 0x4a000000ULL | (1ULL << 40);
  q.flags2 = 0x4000 | 0x4000000;
  q.charset_client = 33;
  q.collation_connection = 45;
  q.collation_server = 8;
  q.default_collation_for_utf8mb4 = 46;
  q.time_zone = "SYSTEM";
  q.ddl = true;
  q.ddl_xid = 1234567890123ULL;
  q.updated_db_names = {"shop", "other"};
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    Result<QueryInfo> d = DecodeQuery(EncodeQuery(Header(), q, c), c);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    EXPECT_EQ(d->thread_id, q.thread_id);
    EXPECT_EQ(d->exec_time, q.exec_time);
    EXPECT_EQ(d->error_code, q.error_code);
    EXPECT_EQ(d->db, q.db);
    EXPECT_EQ(d->query, q.query);
    EXPECT_EQ(d->sql_mode, q.sql_mode);
    EXPECT_EQ(d->flags2, q.flags2);
    EXPECT_EQ(d->charset_client, 33);
    EXPECT_EQ(d->collation_connection, 45);
    EXPECT_EQ(d->collation_server, 8);
    EXPECT_EQ(d->default_collation_for_utf8mb4, 46);
    EXPECT_EQ(d->time_zone, "SYSTEM");
    EXPECT_TRUE(d->ddl);
    EXPECT_EQ(d->ddl_xid, q.ddl_xid);
    EXPECT_EQ(d->updated_db_names, q.updated_db_names);
  }
  QueryInfo begin;
  begin.query = "BEGIN";
  Result<QueryInfo> d = DecodeQuery(EncodeQuery(Header(), begin, Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(d.ok());
  EXPECT_FALSE(d->ddl);
  EXPECT_FALSE(d->ddl_xid.has_value());
  EXPECT_TRUE(d->updated_db_names.empty());
  EXPECT_EQ(d->query, "BEGIN");
}

TEST(QueryEventTest, TooManyUpdatedDbNamesIsWrittenAs254) {
  QueryInfo q;
  q.query = "DROP TABLE a.t, b.t";
  q.ddl = true;
  for (int i = 0; i < 17; ++i) q.updated_db_names.push_back("db" + std::to_string(i));
  std::string e = EncodeQuery(Header(), q, Checksum::kOff);
  EXPECT_EQ(StatusCodes(e), (std::vector<int>{0, 1, 6, 4, 12, 16, 18, 19, 20}));
  Result<QueryInfo> d = DecodeQuery(e, Checksum::kOff);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->updated_db_names.empty());
}

TEST(QueryEventTest, DecodeSkipsKnownCodesAndStopsAtUnknown) {
  std::string sv;
  sv += std::string("\x03\x02\x00\x05\x00", 5);                  // AUTO_INCREMENT
  sv += std::string("\x0b\x04root\x09localhost", 16);            // INVOKER
  sv += std::string("\x0d\x01\x02\x03", 4);                      // MICROSECONDS
  sv += std::string("\x07\x00\x00\x08\x21\x00", 6);              // LC_TIME_NAMES, CHARSET_DATABASE
  sv += std::string("\x00\x00\x40\x00\x00", 5);                  // FLAGS2
  sv += std::string("\x63garbage", 8);                           // unknown code 99
  std::string e(19, '\0');
  e[4] = kQueryEvent;
  internal::PutLE(e, 5, 4);
  internal::PutLE(e, 0, 4);
  e.push_back(2);
  internal::PutLE(e, 0, 2);
  internal::PutLE(e, sv.size(), 2);
  e += sv + std::string("db\0INSERT INTO t VALUES (1)", 27);
  e = Seal(e, Checksum::kCrc32);
  Result<QueryInfo> d = DecodeQuery(e, Checksum::kCrc32);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->thread_id, 5u);
  EXPECT_EQ(d->flags2, 0x4000u);
  EXPECT_EQ(d->db, "db");
  EXPECT_EQ(d->query, "INSERT INTO t VALUES (1)");
}

TEST(QueryEventTest, DecodeRejectsTruncatedEvents) {
  QueryInfo q;
  q.db = "test";
  q.query = "BEGIN";
  std::string e = EncodeQuery(Header(), q, Checksum::kOff);
  EXPECT_FALSE(DecodeQuery(Seal(e.substr(0, 30), Checksum::kOff), Checksum::kOff).ok());
  EXPECT_FALSE(DecodeQuery(Seal(e.substr(0, 50), Checksum::kOff), Checksum::kOff).ok());
  // A status variable that runs past status_vars_len.
  std::string cut = e;
  cut[30] = 3;  // status_vars_len = 3 cuts FLAGS2
  EXPECT_FALSE(DecodeQuery(cut, Checksum::kOff).ok());
  EXPECT_FALSE(DecodeQuery(EncodeXid(Header(), 1, Checksum::kOff), Checksum::kOff).ok());
}

// ---- small events ----

TEST(SmallEventsTest, XidRoundTrip) {
  std::string e = EncodeXid(Header(), 0x0102030405060708ULL, Checksum::kCrc32);
  EXPECT_EQ(e.size(), 31u);
  EXPECT_EQ(Byte(e, 4), kXidEvent);
  EXPECT_EQ(LoadLE(e.data() + 19, 8), 0x0102030405060708ULL);
  EXPECT_EQ(*DecodeXid(e, Checksum::kCrc32), 0x0102030405060708ULL);
  EXPECT_EQ(*DecodeXid(EncodeXid(Header(), 9, Checksum::kOff), Checksum::kOff), 9u);
  EXPECT_FALSE(DecodeXid(Seal(e.substr(0, 25), Checksum::kOff), Checksum::kOff).ok());
}

TEST(SmallEventsTest, RotateRoundTrip) {
  std::string e = EncodeRotate(Header(500), 4, "binlog.000002", Checksum::kCrc32);
  EXPECT_EQ(e.size(), 19u + 8 + 13 + 4);
  EXPECT_EQ(Byte(e, 4), kRotateEvent);
  EXPECT_EQ(e.substr(27, 13), "binlog.000002");
  Result<RotateInfo> r = DecodeRotate(e, Checksum::kCrc32);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->position, 4u);
  EXPECT_EQ(r->next_file, "binlog.000002");
  r = DecodeRotate(EncodeRotate(Header(), 1234, "binlog.000010", Checksum::kOff), Checksum::kOff);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->position, 1234u);
  EXPECT_EQ(r->next_file, "binlog.000010");
  EXPECT_FALSE(DecodeRotate(Seal(e.substr(0, 23), Checksum::kOff), Checksum::kOff).ok());
}

TEST(SmallEventsTest, StopAndHeartbeat) {
  std::string stop = EncodeStop(Header(), Checksum::kCrc32);
  EXPECT_EQ(stop.size(), 23u);
  EXPECT_EQ(Byte(stop, 4), kStopEvent);
  EXPECT_TRUE(VerifyChecksum(stop));
  EXPECT_EQ(EncodeStop(Header(), Checksum::kOff).size(), 19u);

  EventHeader h;
  h.server_id = 1;
  h.log_pos = 4567;
  std::string hb = EncodeHeartbeat(h, "binlog.000003", Checksum::kOff);
  EXPECT_EQ(hb.size(), 19u + 13);
  EXPECT_EQ(Byte(hb, 4), kHeartbeatEvent);
  EXPECT_EQ(LoadLE(hb.data() + 13, 4), 4567u);
  EXPECT_EQ(LoadLE(hb.data(), 4), 0u);
  EXPECT_EQ(hb.substr(19), "binlog.000003");
  EXPECT_EQ(EncodeHeartbeat(h, "binlog.000003", Checksum::kCrc32).size(), 19u + 13 + 4);
}

TEST(SmallEventsTest, EncodersSetTheTypeCode) {
  EventHeader h = Header();
  h.type = kUnknownEvent;
  EXPECT_EQ(Byte(EncodeXid(h, 1, Checksum::kOff), 4), kXidEvent);
  EXPECT_EQ(Byte(EncodeStop(h, Checksum::kOff), 4), kStopEvent);
  EXPECT_EQ(Byte(EncodeQuery(h, QueryInfo{}, Checksum::kOff), 4), kQueryEvent);
}

TEST(SmallEventsTest, PatchLogPosKeepsCrcValid) {
  std::string e = EncodeXid(Header(), 5, Checksum::kCrc32);
  PatchLogPos(e.data(), 1000, Checksum::kCrc32);
  EXPECT_EQ(LoadLE(e.data() + 13, 4), 1000u);
  EXPECT_TRUE(VerifyChecksum(e));
  EXPECT_EQ(e, EncodeXid(Header(1000), 5, Checksum::kCrc32));
}

// ---- EventInfo ----

TEST(EventInfoTest, ControlEvents) {
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    FormatDescription fd = Fd(c);
    EXPECT_EQ(EventInfo(EncodeFormatDescription(Header(), kServerVersion, 0, c), fd),
              "Server ver: 8.0.36-sluice, Binlog ver: 4");
    EXPECT_EQ(EventInfo(EncodePreviousGtids(Header(), GtidSet{}, c), fd), "");
    GtidSet set = *GtidSet::Parse(std::string(kUuidA) + ":1-5,4e11fa47-71ca-11e1-9e33-c80aa9429563:3");
    EXPECT_EQ(EventInfo(EncodePreviousGtids(Header(), set, c), fd),
              std::string(kUuidA) + ":1-5,4e11fa47-71ca-11e1-9e33-c80aa9429563:3");
    EXPECT_EQ(EventInfo(EncodeGtid(Header(), OriginGtid(), c), fd),
              "SET @@SESSION.GTID_NEXT= '" + std::string(kUuidA) + ":7'");
    GtidInfo anon = OriginGtid();
    anon.anonymous = true;
    EXPECT_EQ(EventInfo(EncodeGtid(Header(), anon, c), fd), "SET @@SESSION.GTID_NEXT= 'ANONYMOUS'");
    EXPECT_EQ(EventInfo(EncodeXid(Header(), 14, c), fd), "COMMIT /* xid=14 */");
    EXPECT_EQ(EventInfo(EncodeRotate(Header(), 4, "binlog.000002", c), fd), "binlog.000002;pos=4");
    EXPECT_EQ(EventInfo(EncodeStop(Header(), c), fd), "");
  }
}

TEST(EventInfoTest, QueryEvents) {
  FormatDescription fd = Fd(Checksum::kCrc32);
  QueryInfo begin;
  begin.db = "test";
  begin.query = "BEGIN";
  EXPECT_EQ(EventInfo(EncodeQuery(Header(), begin, Checksum::kCrc32), fd), "BEGIN");
  QueryInfo ddl;
  ddl.db = "test";
  ddl.query = "CREATE TABLE t1 (a INT)";
  ddl.ddl = true;
  ddl.ddl_xid = 13;
  EXPECT_EQ(EventInfo(EncodeQuery(Header(), ddl, Checksum::kCrc32), fd),
            "use `test`; CREATE TABLE t1 (a INT) /* xid=13 */");
  ddl.ddl_xid.reset();
  ddl.db = "we`ird";
  EXPECT_EQ(EventInfo(EncodeQuery(Header(), ddl, Checksum::kCrc32), fd), "use `we``ird`; CREATE TABLE t1 (a INT)");
  // LOG_EVENT_SUPPRESS_USE_F (CREATE/DROP DATABASE) and no database.
  EXPECT_EQ(EventInfo(EncodeQuery(Header(0, 0x8), ddl, Checksum::kCrc32), fd), "CREATE TABLE t1 (a INT)");
  ddl.db.clear();
  EXPECT_EQ(EventInfo(EncodeQuery(Header(), ddl, Checksum::kCrc32), fd), "CREATE TABLE t1 (a INT)");
}

TEST(EventInfoTest, TableMapAndRowsEvents) {
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    FormatDescription fd = Fd(c);
    // Table_map: table_id 92, flags 1, "db"."t", 1 column LONG, no metadata.
    std::string tm(19, '\0');
    tm[4] = kTableMapEvent;
    tm += std::string("\x5c\x00\x00\x00\x00\x00\x01\x00", 8);
    tm += std::string("\x02" "db\0" "\x01" "t\0" "\x01\x03\x00\x00", 11);
    EXPECT_EQ(EventInfo(Seal(tm, c), fd), "table_id: 92 (db.t)");
    // Write_rows v2: table_id 92, flags STMT_END_F, extra_data_len 2.
    std::string rows(19, '\0');
    rows[4] = kWriteRowsEvent;
    rows += std::string("\x5c\x00\x00\x00\x00\x00\x01\x00\x02\x00", 10);
    rows += std::string("\x01\x01\x00\x01\x00\x00\x00", 7);
    EXPECT_EQ(EventInfo(Seal(rows, c), fd), "table_id: 92 flags: STMT_END_F");
    rows[25] = 0;
    rows[4] = kDeleteRowsEvent;
    EXPECT_EQ(EventInfo(Seal(rows, c), fd), "table_id: 92");
  }
}

TEST(EventInfoTest, OtherEvents) {
  FormatDescription fd = Fd(Checksum::kOff);
  std::string intvar(19, '\0');
  intvar[4] = kIntvarEvent;
  intvar += std::string("\x02\x09\x00\x00\x00\x00\x00\x00\x00", 9);
  EXPECT_EQ(EventInfo(Seal(intvar, Checksum::kOff), fd), "INSERT_ID=9");
  std::string rq(19, '\0');
  rq[4] = kRowsQueryEvent;
  rq += "\x0binsert t(1)";
  EXPECT_EQ(EventInfo(Seal(rq, Checksum::kOff), fd), "# insert t(1)");
  std::string incident(19, '\0');
  incident[4] = kIncidentEvent;
  incident += std::string("\x01\x00\x04lost", 7);
  EXPECT_EQ(EventInfo(Seal(incident, Checksum::kOff), fd), "#1 (LOST_EVENTS) lost");
  EXPECT_EQ(EventInfo("short", fd), "");
  // Fixed-size events ignore extra trailing bytes (a CRC read as body);
  // events whose size disagrees with their header give no info.
  EXPECT_EQ(EventInfo(EncodeXid(Header(), 1, Checksum::kCrc32), Fd(Checksum::kOff)), "COMMIT /* xid=1 */");
  EXPECT_EQ(EventInfo(EncodeRotate(Header(), 4, "b.1", Checksum::kCrc32).substr(0, 30), fd), "");
}

// ---- a whole file ----

// Builds a binlog file the way the writer will: magic, FDE, Previous_gtids,
// a row transaction's frame (Gtid, BEGIN, Xid), a DDL and a Rotate, with
// log_pos patched once each event's place is known. Set
// SLUICE_BINLOG_SAMPLE=<path> to keep the file for mysqlbinlog/mariadb-binlog.
TEST(BinlogFileTest, EventsChainWithConsistentPositions) {
  for (Checksum c : {Checksum::kCrc32, Checksum::kOff}) {
    std::string file(kBinlogMagic, 4);
    std::vector<size_t> starts;
    auto append = [&](std::string e) {
      starts.push_back(file.size());
      const uint32_t end = static_cast<uint32_t>(file.size() + e.size());
      if (static_cast<uint8_t>(e[4]) == kFormatDescriptionEvent) {
        // The FDE was built with its final log_pos: patching it would
        // recompute its CRC with BINLOG_IN_USE_F set.
        EXPECT_EQ(LoadLE(e.data() + 13, 4), end);
      } else {
        PatchLogPos(e.data(), end, c);
      }
      file += e;
    };
    append(EncodeFormatDescription(Header(126), kServerVersion, 1700000000, c));
    append(EncodePreviousGtids(Header(), GtidSet{}, c));
    GtidInfo g = OriginGtid();
    g.gno = 1;
    g.last_committed = 0;
    g.sequence_number = 1;
    QueryInfo begin;
    begin.db = "test";
    begin.query = "BEGIN";
    std::string begin_event = EncodeQuery(Header(0, 0x8), begin, c);
    std::string xid_event = EncodeXid(Header(), 14, c);
    g.transaction_length = GtidEventSize(g, c) + begin_event.size() + xid_event.size();
    append(EncodeGtid(Header(), g, c));
    append(begin_event);
    append(xid_event);
    GtidInfo g2 = OriginGtid();
    g2.gno = 2;
    g2.last_committed = 1;
    g2.sequence_number = 2;
    QueryInfo ddl;
    ddl.db = "test";
    ddl.query = "CREATE TABLE t1 (a INT)";
    ddl.ddl = true;
    ddl.ddl_xid = 15;
    ddl.updated_db_names = {"test"};
    std::string ddl_event = EncodeQuery(Header(), ddl, c);
    g2.transaction_length = GtidEventSize(g2, c) + ddl_event.size();
    append(EncodeGtid(Header(), g2, c));
    append(ddl_event);
    append(EncodeRotate(Header(), 4, "binlog.000002", c));

    EXPECT_EQ(starts[1], 126u);
    EXPECT_EQ(starts[2], c == Checksum::kCrc32 ? 157u : 153u);
    // Walk the file as a reader does.
    Result<FormatDescription> fd = DecodeFormatDescription(std::string_view(file).substr(4, 122));
    ASSERT_TRUE(fd.ok());
    EXPECT_EQ(fd->checksum, c);
    std::vector<std::string> infos;
    size_t pos = 4;
    for (size_t start : starts) {
      ASSERT_EQ(pos, start);
      Result<EventHeader> h = ParseHeader(std::string_view(file).substr(pos));
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(h->log_pos, pos + h->event_size);
      std::string_view e = std::string_view(file).substr(pos, h->event_size);
      if (c == Checksum::kCrc32 || h->type == kFormatDescriptionEvent) {
        EXPECT_TRUE(VerifyChecksum(e));
      }
      infos.push_back(std::string(EventTypeName(h->type)) + ": " + EventInfo(e, *fd));
      pos += h->event_size;
    }
    EXPECT_EQ(pos, file.size());
    const std::string gtid = "SET @@SESSION.GTID_NEXT= '" + std::string(kUuidA);
    EXPECT_EQ(infos, (std::vector<std::string>{
                         "Format_desc: Server ver: 8.0.36-sluice, Binlog ver: 4",
                         "Previous_gtids: ",
                         "Gtid: " + gtid + ":1'",
                         "Query: BEGIN",
                         "Xid: COMMIT /* xid=14 */",
                         "Gtid: " + gtid + ":2'",
                         "Query: use `test`; CREATE TABLE t1 (a INT) /* xid=15 */",
                         "Rotate: binlog.000002;pos=4",
                     }));
    if (const char* out = std::getenv("SLUICE_BINLOG_SAMPLE")) {
      std::ofstream f(std::string(out) + (c == Checksum::kCrc32 ? ".crc32" : ".none"), std::ios::binary);
      f.write(file.data(), static_cast<std::streamsize>(file.size()));
    }
  }
}

}  // namespace
}  // namespace sluice::binlog
