// Tests for BinlogFileReader: files built with the event encoders, then cut,
// damaged, limited and grown.
#include "binlog/file_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "binlog/bytes_internal.h"
#include "binlog/event.h"

namespace sluice::binlog {
namespace {

namespace fs = std::filesystem;

Uuid TestSid() { return *Uuid::Parse("3e11fa47-71ca-11e1-9e33-c80aa9429562"); }

// Builds a binlog file in memory: magic, FDE, Previous_gtids, then events,
// each placed with PatchLogPos. `starts` holds every event's offset.
struct FileImage {
  explicit FileImage(Checksum checksum, uint16_t fde_flags = 0) : checksum(checksum) {
    bytes.assign(kBinlogMagic, 4);
    EventHeader h{.timestamp = 1700000000, .type = kFormatDescriptionEvent, .server_id = 1, .flags = fde_flags};
    Add(EncodeFormatDescription(h, "8.0.36-sluice", 1700000000, checksum), /*fde=*/true);
    EventHeader p{.timestamp = 1700000000, .type = kPreviousGtidsEvent, .server_id = 1};
    Add(EncodePreviousGtids(p, GtidSet(), checksum));
  }

  void Add(std::string ev, bool fde = false) {
    starts.push_back(bytes.size());
    // The FDE always carries a CRC, so patch it as CRC32 whatever the file's.
    PatchLogPos(ev.data(), static_cast<uint32_t>(bytes.size() + ev.size()), fde ? Checksum::kCrc32 : checksum);
    bytes += ev;
  }

  // One row-less transaction: Gtid, Query BEGIN, Query (statement), Xid.
  void AddTransaction(int64_t gno, const std::string& statement = "INSERT INTO t VALUES (1)") {
    GtidInfo g;
    g.sid = TestSid();
    g.gno = gno;
    g.last_committed = gno - 1;
    g.sequence_number = gno;
    g.immediate_commit_timestamp = 1700000000000000ull;
    EventHeader gh{.timestamp = 1700000000, .type = kGtidEvent, .server_id = 1};
    QueryInfo begin;
    begin.db = "test";
    begin.query = "BEGIN";
    QueryInfo stmt = begin;
    stmt.query = statement;
    EventHeader qh{.timestamp = 1700000000, .type = kQueryEvent, .server_id = 1};
    EventHeader xh{.timestamp = 1700000000, .type = kXidEvent, .server_id = 1};
    std::string q1 = EncodeQuery(qh, begin, checksum);
    std::string q2 = EncodeQuery(qh, stmt, checksum);
    std::string x = EncodeXid(xh, 100 + gno, checksum);
    g.transaction_length = q1.size() + q2.size() + x.size();
    g.transaction_length += GtidEventSize(g, checksum);
    Add(EncodeGtid(gh, g, checksum));
    Add(q1);
    Add(q2);
    Add(x);
  }

  void AddRotate(const std::string& next) {
    EventHeader h{.timestamp = 1700000000, .type = kRotateEvent, .server_id = 1};
    Add(EncodeRotate(h, 4, next, checksum));
  }

  Checksum checksum;
  std::string bytes;
  std::vector<uint64_t> starts;
};

class FileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sluice_file_reader_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& bytes) {
    std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  static void Append(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }

  // Every event until the end; fails the test on an error.
  static std::vector<BinlogFileReader::Event> ReadAll(BinlogFileReader& r) {
    std::vector<BinlogFileReader::Event> out;
    for (;;) {
      auto ev = r.Next();
      EXPECT_TRUE(ev.ok()) << ev.status().ToString();
      if (!ev.ok() || !ev->has_value()) break;
      out.push_back(std::move(**ev));
    }
    return out;
  }

  fs::path dir_;
};

TEST_F(FileReaderTest, MissingFileIsIOError) {
  auto r = BinlogFileReader::Open((dir_ / "nope.000001").string());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsIOError());
}

TEST_F(FileReaderTest, BadMagicIsCorruption) {
  auto r = BinlogFileReader::Open(Write("bad", "not a binlog at all, just text"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsCorruption());
  EXPECT_NE(r.status().message().find("Binlog has bad magic number"), std::string::npos);
  auto empty = BinlogFileReader::Open(Write("empty", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(empty.status().IsCorruption());
}

TEST_F(FileReaderTest, ReadsEveryEventWithOffsets) {
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1);
  img.AddTransaction(2);
  img.AddRotate("binlog.000002");
  auto r = BinlogFileReader::Open(Write("binlog.000001", img.bytes));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  BinlogFileReader& reader = **r;
  EXPECT_EQ(reader.format().checksum, Checksum::kCrc32);
  EXPECT_EQ(reader.format().server_version, "8.0.36-sluice");
  EXPECT_EQ(reader.file_size(), img.bytes.size());

  auto events = ReadAll(reader);
  ASSERT_EQ(events.size(), img.starts.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const auto& ev = events[i];
    EXPECT_EQ(ev.offset, img.starts[i]);
    EXPECT_EQ(ev.bytes.size(), ev.header.event_size);
    EXPECT_EQ(ev.header.log_pos, ev.offset + ev.header.event_size);
    EXPECT_EQ(ev.bytes, img.bytes.substr(ev.offset, ev.header.event_size));
  }
  EXPECT_EQ(events[0].offset, 4u);
  EXPECT_EQ(events[0].header.type, kFormatDescriptionEvent);
  EXPECT_EQ(events[0].bytes.size(), 122u);
  EXPECT_EQ(events[1].offset, 126u);
  EXPECT_EQ(events[1].header.type, kPreviousGtidsEvent);
  EXPECT_EQ(events[2].offset, 157u);
  EXPECT_EQ(events[2].header.type, kGtidEvent);
  EXPECT_EQ(events.back().header.type, kRotateEvent);
  EXPECT_FALSE(reader.truncated());
  EXPECT_EQ(reader.valid_end(), img.bytes.size());
  // The end stays the end.
  auto again = reader.Next();
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
}

TEST_F(FileReaderTest, ChecksumOffFile) {
  FileImage img(Checksum::kOff);
  img.AddTransaction(1);
  auto r = BinlogFileReader::Open(Write("off", img.bytes));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->format().checksum, Checksum::kOff);
  auto events = ReadAll(**r);
  ASSERT_EQ(events.size(), img.starts.size());
  EXPECT_EQ(events[0].bytes.size(), 122u);  // the FDE keeps its CRC
  EXPECT_EQ(events[1].bytes.size(), 27u);   // empty Previous_gtids without CRC
  EXPECT_EQ((*r)->valid_end(), img.bytes.size());
}

TEST_F(FileReaderTest, InUseFlagOnFdeStillVerifies) {
  // The FDE's CRC is computed with BINLOG_IN_USE_F clear; the flag is set
  // in place afterwards (as the server does on its open file).
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1);
  img.bytes[4 + 17] = static_cast<char>(img.bytes[4 + 17] | kLogEventBinlogInUse);
  auto r = BinlogFileReader::Open(Write("inuse", img.bytes));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto events = ReadAll(**r);
  EXPECT_EQ(events.size(), img.starts.size());
  EXPECT_EQ(events[0].header.flags & kLogEventBinlogInUse, kLogEventBinlogInUse);
}

TEST_F(FileReaderTest, TruncatedLastEventIsEndOfFile) {
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1);
  img.AddTransaction(2);
  const uint64_t last = img.starts.back();  // the second transaction's Xid
  // Cut inside the last event's body, then inside its header.
  for (uint64_t cut : {img.bytes.size() - 1, last + 25, last + 10, last + 1}) {
    SCOPED_TRACE(cut);
    auto r = BinlogFileReader::Open(Write("cut", img.bytes.substr(0, cut)));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto events = ReadAll(**r);
    EXPECT_EQ(events.size(), img.starts.size() - 1);
    EXPECT_TRUE((*r)->truncated());
    EXPECT_EQ((*r)->valid_end(), last);
  }
  // Cut exactly at an event boundary: a clean end.
  auto r = BinlogFileReader::Open(Write("boundary", img.bytes.substr(0, last)));
  ASSERT_TRUE(r.ok());
  ReadAll(**r);
  EXPECT_FALSE((*r)->truncated());
  EXPECT_EQ((*r)->valid_end(), last);
}

TEST_F(FileReaderTest, TruncatedFormatDescription) {
  FileImage img(Checksum::kCrc32);
  for (size_t cut : {size_t{4}, size_t{10}, size_t{100}}) {
    SCOPED_TRACE(cut);
    auto r = BinlogFileReader::Open(Write("fde_cut", img.bytes.substr(0, cut)));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    auto ev = (*r)->Next();
    ASSERT_TRUE(ev.ok());
    EXPECT_FALSE(ev->has_value());
    EXPECT_TRUE((*r)->truncated());
    EXPECT_EQ((*r)->valid_end(), 4u);
  }
}

TEST_F(FileReaderTest, BadEventSizeIsCorruption) {
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1);
  const uint64_t at = img.starts[3];  // Query BEGIN
  for (uint32_t bad : {0u, 18u, (1u << 30) + 1}) {
    SCOPED_TRACE(bad);
    std::string bytes = img.bytes;
    internal::StoreLE(bytes.data() + at + 9, bad, 4);
    auto r = BinlogFileReader::Open(Write("badsize", bytes));
    ASSERT_TRUE(r.ok());
    Status st;
    for (;;) {
      auto ev = (*r)->Next();
      if (!ev.ok()) {
        st = ev.status();
        break;
      }
      ASSERT_TRUE(ev->has_value()) << "reached the end without an error";
    }
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
    EXPECT_EQ((*r)->valid_end(), at);
  }
}

TEST_F(FileReaderTest, BadChecksum) {
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1, "INSERT INTO t VALUES ('abc')");
  std::string bytes = img.bytes;
  const uint64_t at = img.starts[4];  // the statement
  bytes[img.starts[5] - 8] ^= 0x20;   // a byte of the SQL text
  auto r = BinlogFileReader::Open(Write("crc", bytes));
  ASSERT_TRUE(r.ok());
  for (int i = 0; i < 4; ++i) {
    auto ev = (*r)->Next();
    ASSERT_TRUE(ev.ok() && ev->has_value());
  }
  auto bad = (*r)->Next();
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsCorruption());
  EXPECT_EQ((*r)->valid_end(), at);

  // Without verification the event is handed out as it is.
  auto lax = BinlogFileReader::Open(Write("crc", bytes), /*verify_checksums=*/false);
  ASSERT_TRUE(lax.ok());
  EXPECT_EQ(ReadAll(**lax).size(), img.starts.size());

  // A damaged FDE fails Open.
  std::string fde_bad = img.bytes;
  fde_bad[30] ^= 1;
  auto r2 = BinlogFileReader::Open(Write("fde_crc", fde_bad));
  ASSERT_FALSE(r2.ok());
  EXPECT_TRUE(r2.status().IsCorruption());
}

TEST_F(FileReaderTest, SeekAndLimit) {
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1);
  img.AddTransaction(2);
  auto r = BinlogFileReader::Open(Write("seek", img.bytes));
  ASSERT_TRUE(r.ok());
  BinlogFileReader& reader = **r;

  ASSERT_TRUE(reader.Seek(img.starts[6]).ok());  // second Gtid
  auto ev = reader.Next();
  ASSERT_TRUE(ev.ok() && ev->has_value());
  EXPECT_EQ((*ev)->offset, img.starts[6]);
  EXPECT_EQ((*ev)->header.type, kGtidEvent);

  EXPECT_FALSE(reader.Seek(3).ok());

  // Limit on a boundary: the events before it, then the end.
  ASSERT_TRUE(reader.Seek(4).ok());
  reader.set_limit(img.starts[6]);
  auto events = ReadAll(reader);
  EXPECT_EQ(events.size(), 6u);
  EXPECT_FALSE(reader.truncated());
  EXPECT_EQ(reader.valid_end(), img.starts[6]);

  // Raising the limit continues from there.
  reader.set_limit(UINT64_MAX);
  EXPECT_EQ(ReadAll(reader).size(), img.starts.size() - 6);

  // A limit inside an event whose bytes are all in the file: corruption
  // (the limit should be an event boundary), not truncation.
  ASSERT_TRUE(reader.Seek(img.starts[6]).ok());
  reader.set_limit(img.starts[6] + 20);
  auto mid = reader.Next();
  EXPECT_FALSE(mid.ok());
  EXPECT_TRUE(mid.status().IsCorruption());
}

TEST_F(FileReaderTest, GrowingFile) {
  FileImage img(Checksum::kCrc32);
  img.AddTransaction(1);
  const size_t first = img.bytes.size();
  img.AddTransaction(2);
  std::string path = Write("grow", img.bytes.substr(0, first));
  auto r = BinlogFileReader::Open(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ReadAll(**r).size(), 6u);
  EXPECT_FALSE((*r)->truncated());

  // Half an event appears: truncated for now.
  const size_t half = first + 30;
  Append(path, img.bytes.substr(first, half - first));
  EXPECT_EQ(ReadAll(**r).size(), 0u);
  EXPECT_TRUE((*r)->truncated());
  EXPECT_EQ((*r)->valid_end(), first);

  // The rest arrives: reading continues after a Seek to the valid end.
  Append(path, img.bytes.substr(half));
  ASSERT_TRUE((*r)->Seek((*r)->valid_end()).ok());
  auto more = ReadAll(**r);
  EXPECT_EQ(more.size(), 4u);
  EXPECT_FALSE((*r)->truncated());
  EXPECT_EQ((*r)->valid_end(), img.bytes.size());
  EXPECT_EQ((*r)->file_size(), img.bytes.size());
}

TEST_F(FileReaderTest, LargeEvent) {
  FileImage img(Checksum::kCrc32);
  std::string big = "INSERT INTO t VALUES ('" + std::string(3 << 20, 'x') + "')";
  img.AddTransaction(1, big);
  img.AddTransaction(2);
  auto r = BinlogFileReader::Open(Write("big", img.bytes));
  ASSERT_TRUE(r.ok());
  auto events = ReadAll(**r);
  ASSERT_EQ(events.size(), img.starts.size());
  EXPECT_GT(events[4].bytes.size(), 3u << 20);
  EXPECT_EQ(events[4].bytes, img.bytes.substr(img.starts[4], img.starts[5] - img.starts[4]));
}

// Views are the file's bytes wherever an event falls: inside the read-ahead
// buffer, across its end, or larger than it (just under, at and over 64 KiB).
TEST_F(FileReaderTest, NextViewIsEachEventInPlace) {
  FileImage img(Checksum::kCrc32);
  for (int i = 1; i <= 400; ++i) {
    const size_t len = i == 100 ? (64 << 10) - 120 : i == 200 ? (64 << 10) : i == 300 ? (200 << 10) : 37 * i;
    img.AddTransaction(i, "INSERT INTO t VALUES ('" + std::string(len, static_cast<char>('a' + i % 26)) + "')");
  }
  auto r = BinlogFileReader::Open(Write("views", img.bytes));
  ASSERT_TRUE(r.ok());
  BinlogFileReader::EventView v;
  size_t n = 0;
  for (;;) {
    Result<bool> got = (*r)->NextView(&v);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    if (!*got) break;
    ASSERT_LT(n, img.starts.size());
    const uint64_t end = n + 1 < img.starts.size() ? img.starts[n + 1] : img.bytes.size();
    EXPECT_EQ(v.offset, img.starts[n]);
    ASSERT_EQ(v.bytes.size(), end - img.starts[n]) << "event " << n;
    EXPECT_TRUE(v.bytes == std::string_view(img.bytes).substr(img.starts[n], end - img.starts[n])) << "event " << n;
    EXPECT_EQ(v.header.event_size, v.bytes.size());
    ++n;
  }
  EXPECT_EQ(n, img.starts.size());
  EXPECT_FALSE((*r)->truncated());
  EXPECT_EQ((*r)->valid_end(), img.bytes.size());
}

}  // namespace
}  // namespace sluice::binlog

namespace sluice::binlog {
namespace {

// What a reader gives, event by event: (offset, bytes), then how it ended.
struct Reading {
  std::vector<std::pair<uint64_t, std::string>> events;
  std::string error;  // the status that ended it, if one did
  uint64_t valid_end = 0;
  bool truncated = false;
};

Reading ReadByViews(BinlogFileReader& r) {
  Reading out;
  BinlogFileReader::EventView v;
  for (;;) {
    Result<bool> got = r.NextView(&v);
    if (!got.ok()) out.error = got.status().ToString();
    if (!got.ok() || !*got) break;
    out.events.emplace_back(v.offset, std::string(v.bytes));
  }
  out.valid_end = r.valid_end();
  out.truncated = r.truncated();
  return out;
}

Reading ReadByRuns(BinlogFileReader& r, size_t* runs) {
  Reading out;
  BinlogFileReader::EventRun run;
  *runs = 0;
  for (;;) {
    Result<bool> got = r.NextRun(&run);
    if (!got.ok()) out.error = got.status().ToString();
    if (!got.ok() || !*got) break;
    ++*runs;
    std::string_view rest = run.bytes;
    uint64_t at = run.offset;
    size_t n = 0;
    while (!rest.empty()) {
      const size_t size = internal::LoadLE(rest.data() + 9, 4);
      EXPECT_GE(size, kHeaderLen);
      EXPECT_LE(size, rest.size());
      if (size < kHeaderLen || size > rest.size()) break;
      out.events.emplace_back(at, std::string(rest.substr(0, size)));
      if (++n == run.count) EXPECT_EQ(at, run.last_offset);
      at += size;
      rest.remove_prefix(size);
    }
    EXPECT_EQ(n, run.count);
  }
  out.valid_end = r.valid_end();
  out.truncated = r.truncated();
  return out;
}

// NextRun gives the events NextView gives, in runs, and ends where and as
// NextView ends: at a limit, at a cut tail, at a bad size or checksum.
TEST_F(FileReaderTest, NextRunGivesWhatNextViewGivesInRuns) {
  FileImage img(Checksum::kCrc32);
  for (int i = 1; i <= 300; ++i) {
    const size_t len = i == 100 ? (64 << 10) - 120 : i == 200 ? (200 << 10) : 13 * i;
    img.AddTransaction(i, "INSERT INTO t VALUES ('" + std::string(len, static_cast<char>('a' + i % 26)) + "')");
  }
  const std::string whole = img.bytes;
  std::string bad_crc = whole;
  bad_crc[img.starts[500] + 30] ^= 1;
  std::string bad_size = whole;
  internal::StoreLE(bad_size.data() + img.starts[700] + 9, 7, 4);
  struct Case {
    const char* name;
    std::string bytes;
    bool verify;
    uint64_t limit;
    bool error = false;  // ends with a Corruption status
    bool truncated = false;
  };
  const std::vector<Case> cases = {
      {"whole", whole, true, UINT64_MAX},
      {"unverified", whole, false, UINT64_MAX},
      {"limited", whole, false, img.starts[333]},
      {"cut", whole.substr(0, img.starts[900] + 11), false, UINT64_MAX, false, true},
      {"bad_crc", bad_crc, true, UINT64_MAX, true},
      {"bad_size", bad_size, false, UINT64_MAX, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = Write(c.name, c.bytes);
    auto a = BinlogFileReader::Open(path, c.verify);
    auto b = BinlogFileReader::Open(path, c.verify);
    ASSERT_TRUE(a.ok() && b.ok());
    (*a)->set_limit(c.limit);
    (*b)->set_limit(c.limit);
    const Reading views = ReadByViews(**a);
    size_t runs = 0;
    const Reading in_runs = ReadByRuns(**b, &runs);
    ASSERT_EQ(views.events.size(), in_runs.events.size());
    for (size_t i = 0; i < views.events.size(); ++i) {
      ASSERT_EQ(views.events[i].first, in_runs.events[i].first) << i;
      ASSERT_TRUE(views.events[i].second == in_runs.events[i].second) << i;
    }
    EXPECT_EQ(views.error, in_runs.error);
    EXPECT_EQ(!views.error.empty(), c.error) << views.error;
    EXPECT_EQ(views.truncated, c.truncated);
    EXPECT_EQ(views.valid_end, in_runs.valid_end);
    EXPECT_EQ(views.truncated, in_runs.truncated);
    // Far fewer runs than events: a run is what the 64 KiB buffer holds.
    EXPECT_LT(runs * 4, views.events.size());
  }
}

}  // namespace
}  // namespace sluice::binlog
