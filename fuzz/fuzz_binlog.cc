// fuzz/fuzz_binlog.cc
//
// libFuzzer target: the binlog event decoders (binlog/) and sluice-binlog's
// reading path (tools/binlog: BinlogFileReader + BinlogPrinter).
//   input "\xfebin...": a whole binlog file, printed as `sluice-binlog -vv`
//       prints it (BINLOG blocks and `###` rows with type comments), with
//       checksums verified or not (input size odd / even), then read by
//       BinlogFileReader event by event and in runs, which must agree;
//   else byte 0: bit 0 = the events carry a CRC32; bit 1 = mode:
//     0  one event: its header, CRC, every decoder (Format_description,
//        Previous_gtids and its GTID set, Gtid, Query, Xid, Rotate,
//        Table_map) and SHOW BINLOG EVENTS' Info text;
//     1  a Table_map event (its size in bytes 1-2, little-endian) and then
//        rows events, each cut at its header's event_size, decoded against
//        that table map.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/event.h"
#include "binlog/file_reader.h"
#include "binlog/gtid.h"
#include "binlog/row_event.h"
#include "tools/binlog/printer.h"

namespace {

using namespace sluice;
using namespace sluice::binlog;

void Check(bool cond) {
  if (!cond) std::abort();
}

void OneEvent(std::string_view ev, Checksum checksum) {
  Result<EventHeader> h = ParseHeader(ev);
  if (!h.ok()) return;
  (void)VerifyChecksum(ev);
  (void)EventTypeName(h->type);
  (void)DecodeFormatDescription(ev);
  if (auto set = DecodePreviousGtids(ev, checksum); set.ok()) {
    auto again = GtidSet::Decode(set->Encode());
    Check(again.ok() && again.value() == set.value());
  }
  (void)DecodeGtid(ev, checksum);
  (void)DecodeQuery(ev, checksum);
  (void)DecodeXid(ev, checksum);
  (void)DecodeRotate(ev, checksum);
  (void)DecodeTableMap(ev, checksum);
  FormatDescription fd;
  fd.checksum = checksum;
  (void)EventInfo(ev, fd);
}

void TableMapAndRows(std::string_view in, Checksum checksum) {
  if (in.size() < 2) return;
  const size_t map_size = static_cast<uint8_t>(in[0]) | (static_cast<size_t>(static_cast<uint8_t>(in[1])) << 8);
  in.remove_prefix(2);
  if (map_size > in.size()) return;
  Result<TableMapInfo> map = DecodeTableMap(in.substr(0, map_size), checksum);
  in.remove_prefix(map_size);
  if (!map.ok()) return;
  while (in.size() >= kHeaderLen) {
    Result<EventHeader> h = ParseHeader(in);
    size_t n = h.ok() && h->event_size >= kHeaderLen && h->event_size <= in.size() ? h->event_size : in.size();
    std::string_view ev = in.substr(0, n);
    in.remove_prefix(n);
    Result<RowsInfo> rows = DecodeRows(ev, map.value(), checksum);
    FormatDescription fd;
    fd.checksum = checksum;
    (void)EventInfo(ev, fd);
    if (!rows.ok()) continue;
    for (const DecodedRow& row : rows->rows) {
      for (const DecodedValue& v : row.after) Check(v.column < map->column_types.size());
    }
  }
}

// A dump's two ways through a file agree: NextRun gives the events NextView
// gives, in runs, and ends where and as it does (the same status, end and
// truncation), with or without a limit inside the file.
void RunsMatchViews(const std::string& path, bool verify, uint64_t limit) {
  Result<std::unique_ptr<BinlogFileReader>> a = BinlogFileReader::Open(path, verify);
  Result<std::unique_ptr<BinlogFileReader>> b = BinlogFileReader::Open(path, verify);
  Check(a.ok() == b.ok());
  if (!a.ok()) return;
  (*a)->set_limit(limit);
  (*b)->set_limit(limit);
  std::string by_views, by_runs, end_a, end_b;
  BinlogFileReader::EventView v;
  for (;;) {
    Result<bool> got = (*a)->NextView(&v);
    if (!got.ok()) end_a = got.status().ToString();
    if (!got.ok() || !*got) break;
    by_views.append(v.bytes);
  }
  BinlogFileReader::EventRun run;
  for (;;) {
    Result<bool> got = (*b)->NextRun(&run);
    if (!got.ok()) end_b = got.status().ToString();
    if (!got.ok() || !*got) break;
    Check(run.count >= 1 && run.last_offset >= run.offset && run.last_offset < run.offset + run.bytes.size());
    by_runs.append(run.bytes);
  }
  Check(by_views == by_runs && end_a == end_b);
  Check((*a)->valid_end() == (*b)->valid_end() && (*a)->truncated() == (*b)->truncated());
}

void PrintFile(std::string_view file, bool verify) {
  static int fd = memfd_create("fuzz_binlog", 0);
  if (fd < 0) std::abort();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, file.data(), file.size(), 0) != static_cast<ssize_t>(file.size())) {
    std::abort();
  }
  tools::PrintOptions options;
  options.verbose = 2;
  options.verify_checksums = verify;
  std::ostringstream out, warnings;
  tools::BinlogPrinter printer(options, out, &warnings);
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  (void)printer.PrintFiles({path});
  RunsMatchViews(path, verify, file.size() % 3 == 0 ? file.size() / 2 : UINT64_MAX);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.substr(0, 4) == std::string_view(kBinlogMagic, 4)) {
    PrintFile(in, size & 1);
    return 0;
  }
  if (in.empty()) return 0;
  const Checksum checksum = (data[0] & 1) ? Checksum::kCrc32 : Checksum::kOff;
  const bool rows = (data[0] & 2) != 0;
  in.remove_prefix(1);
  if (rows) {
    TableMapAndRows(in, checksum);
  } else {
    OneEvent(in, checksum);
  }
  return 0;
}
