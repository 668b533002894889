// sluice-binlog's printing: mysqlbinlog 8.0's text for local binlog files.
#include "tools/binlog/printer.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "binlog/bytes_internal.h"

namespace sluice::tools {

using binlog::BinlogFileReader;
using binlog::Checksum;

namespace {

using binlog::internal::LoadLE;

constexpr const char* kDelimiter = "/*!*/;";

// Header flags mysqlbinlog looks at.
constexpr uint16_t kThreadSpecificF = 0x4;
constexpr uint16_t kSuppressUseF = 0x8;

// Query flags2 bits (OPTION_*).
constexpr uint32_t kOptionAutoIsNull = 1u << 14;
constexpr uint32_t kOptionNotAutocommit = 1u << 19;
constexpr uint32_t kOptionNoForeignKeyChecks = 1u << 26;
constexpr uint32_t kOptionRelaxedUniqueChecks = 1u << 27;

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n < 0) return std::string();
  if (static_cast<size_t>(n) < sizeof(buf)) return std::string(buf, static_cast<size_t>(n));
  std::string out(static_cast<size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(out.data(), out.size(), fmt, ap);
  va_end(ap);
  out.resize(static_cast<size_t>(n));
  return out;
}

// The character set mysqlbinlog names in its `/*!\C name */` line, for the
// collation ids a MySQL 8.0 server uses; "" for others (no line).
std::string_view CharsetOfCollation(uint16_t id) {
  if (id == 45 || id == 46 || (id >= 224 && id <= 247) || (id >= 255 && id <= 323)) return "utf8mb4";
  if (id == 33 || id == 76 || id == 83 || (id >= 192 && id <= 215) || id == 223) return "utf8mb3";
  if (id == 5 || id == 8 || id == 15 || id == 31 || id == 47 || id == 48 || id == 49 || id == 94) return "latin1";
  if (id == 11 || id == 65) return "ascii";
  if (id == 63) return "binary";
  return "";
}

// The Query status variables mysqlbinlog prints that binlog::QueryInfo does
// not carry (or whose presence it does not say). A local walk of the
// status-variable block (its layout is in binlog-format.md §9); stops at an
// unknown code, as MySQL does.
struct QueryStatusVars {
  bool has_flags2 = false, has_sql_mode = false, has_charset = false;
  uint16_t auto_increment_increment = 1, auto_increment_offset = 1;
  int lc_time_names = 0;
  int charset_database = 0;
  int default_collation_for_utf8mb4 = 0;
  std::optional<uint32_t> microseconds;
  std::optional<int> explicit_defaults_ts, sql_require_primary_key, default_table_encryption;
};

QueryStatusVars ScanQueryStatusVars(std::string_view event) {
  QueryStatusVars v;
  if (event.size() < binlog::kHeaderLen + 13) return v;
  const char* post = event.data() + binlog::kHeaderLen;
  const size_t vars_len = LoadLE(post + 11, 2);
  const size_t vars_at = binlog::kHeaderLen + 13;
  binlog::internal::ByteReader r(event.substr(vars_at, std::min(vars_len, event.size() - vars_at)));
  while (r.remaining() > 0 && !r.failed()) {
    const uint8_t code = static_cast<uint8_t>(r.LE(1));
    switch (code) {
      case 0: v.has_flags2 = true; r.Skip(4); break;
      case 1: v.has_sql_mode = true; r.Skip(8); break;
      case 2: r.Skip(r.LE(1) + 1); break;
      case 3: v.auto_increment_increment = static_cast<uint16_t>(r.LE(2));
              v.auto_increment_offset = static_cast<uint16_t>(r.LE(2)); break;
      case 4: v.has_charset = true; r.Skip(6); break;
      case 5: case 6: r.Skip(r.LE(1)); break;
      case 7: v.lc_time_names = static_cast<int>(r.LE(2)); break;
      case 8: v.charset_database = static_cast<int>(r.LE(2)); break;
      case 9: r.Skip(8); break;
      case 10: r.Skip(4); break;
      case 11: r.Skip(r.LE(1)); r.Skip(r.LE(1)); break;
      case 12: {
        const uint64_t n = r.LE(1);
        if (n != 254) {
          for (uint64_t i = 0; i < n && !r.failed(); ++i) {
            while (r.remaining() > 0 && r.LE(1) != 0) {
            }
          }
        }
        break;
      }
      case 13: v.microseconds = static_cast<uint32_t>(r.LE(3)); break;
      case 16: v.explicit_defaults_ts = static_cast<int>(r.LE(1)); break;
      case 17: r.Skip(8); break;
      case 18: v.default_collation_for_utf8mb4 = static_cast<int>(r.LE(2)); break;
      case 19: v.sql_require_primary_key = static_cast<int>(r.LE(1)); break;
      case 20: v.default_table_encryption = static_cast<int>(r.LE(1)); break;
      case 128: r.Skip(3); break;
      default: return v;  // unknown: nothing after it can be parsed
    }
  }
  return v;
}

bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(s[i])) != std::toupper(static_cast<unsigned char>(prefix[i]))) {
      return false;
    }
  }
  return true;
}

// mysqlbinlog's transaction boundaries in Query events.
bool EndsGroup(std::string_view q) {
  return q == "COMMIT" || (StartsWithNoCase(q, "ROLLBACK") && !StartsWithNoCase(q, "ROLLBACK TO "));
}
bool StartsGroup(std::string_view q) { return q == "BEGIN" || q.substr(0, 8) == "XA START"; }

bool IsTransKeyword(std::string_view q) {
  auto starts = [&](std::string_view w) {
    if (q.size() < w.size()) return false;
    for (size_t i = 0; i < w.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(q[i])) != w[i]) return false;
    }
    return true;
  };
  return starts("BEGIN") || starts("COMMIT") || starts("ROLLBACK") || starts("SAVEPOINT") || starts("XA ");
}

// "2024-05-05 07:27:00.627724 UTC" for a µs timestamp, in local time.
std::string FormatMicros(uint64_t micros) {
  std::time_t secs = static_cast<std::time_t>(micros / 1000000);
  struct tm tm;
  localtime_r(&secs, &tm);
  char date[64], zone[64];
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S", &tm);
  std::strftime(zone, sizeof(zone), "%Z", &tm);
  return Printf("%s.%06u %s", date, static_cast<unsigned>(micros % 1000000), zone);
}

// mysqlbinlog --hexdump's block (after the header line's "\n"): the common
// header on a labelled line, then 16 bytes a line with offsets and the
// alphanumeric bytes shown; ends with "# " so the event text follows.
std::string HexDump(std::string_view ev, uint64_t offset) {
  std::string out = "# Position  Timestamp   Type   Source ID        Size      Source Pos    Flags \n";
  const auto b = [&](size_t i) { return static_cast<unsigned>(static_cast<uint8_t>(ev[i])); };
  out += Printf("# %8.8" PRIx64 " %02x %02x %02x %02x   %02x   %02x %02x %02x %02x   %02x %02x %02x %02x   "
                "%02x %02x %02x %02x   %02x %02x\n",
                offset, b(0), b(1), b(2), b(3), b(4), b(5), b(6), b(7), b(8), b(9), b(10), b(11), b(12), b(13), b(14),
                b(15), b(16), b(17), b(18));
  const uint64_t base = offset + binlog::kHeaderLen;
  std::string_view rest = ev.substr(binlog::kHeaderLen);
  for (size_t line = 0; line < rest.size(); line += 16) {
    std::string hex, chars;
    for (size_t i = line; i < std::min(rest.size(), line + 16); ++i) {
      const unsigned char c = static_cast<unsigned char>(rest[i]);
      hex += Printf(i % 16 <= 7 ? "%02x " : " %02x", c);
      chars.push_back(std::isalnum(c) ? static_cast<char>(c) : '.');
    }
    hex.resize(48, ' ');
    out += Printf("# %8.8" PRIx64 " %s |%s|\n", base + line, hex.c_str(), chars.c_str());
  }
  out += "# ";
  return out;
}

std::string_view RowsEventName(uint8_t type) {
  switch (type) {
    case binlog::kWriteRowsEvent: return "Write_rows";
    case binlog::kUpdateRowsEvent: return "Update_rows";
    case binlog::kDeleteRowsEvent: return "Delete_rows";
    default: return binlog::EventTypeName(type);
  }
}

}  // namespace

std::string FormatLogTime(std::time_t t) {
  struct tm tm;
  localtime_r(&t, &tm);
  return Printf("%02d%02d%02d %2d:%02d:%02d", tm.tm_year % 100, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                tm.tm_sec);
}

std::string Base64Lines(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve(bytes.size() * 4 / 3 + bytes.size() / 57 + 4);
  size_t col = 0;
  auto put = [&](char c) {
    if (col == 76) {
      out.push_back('\n');
      col = 0;
    }
    out.push_back(c);
    ++col;
  };
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    put(kAlphabet[v >> 18]);
    put(kAlphabet[(v >> 12) & 63]);
    put(kAlphabet[(v >> 6) & 63]);
    put(kAlphabet[v & 63]);
  }
  const size_t left = bytes.size() - i;
  if (left > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (left == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    put(kAlphabet[v >> 18]);
    put(kAlphabet[(v >> 12) & 63]);
    put(left == 2 ? kAlphabet[(v >> 6) & 63] : '=');
    put('=');
  }
  return out;
}


Result<std::time_t> ParseDateTime(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  std::string t(text);
  char rest = 0;
  int n = std::sscanf(t.c_str(), "%d-%d-%d %d:%d:%d%c", &y, &mo, &d, &h, &mi, &s, &rest);
  if (n != 6) n = std::sscanf(t.c_str(), "%d-%d-%dT%d:%d:%d%c", &y, &mo, &d, &h, &mi, &s, &rest);
  if (n != 6 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 ||
      s > 59) {
    return Status::InvalidArgument("Incorrect date and time argument: " + t);
  }
  struct tm tm {};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  std::time_t r = std::mktime(&tm);
  if (r == static_cast<std::time_t>(-1)) return Status::InvalidArgument("Incorrect date and time argument: " + t);
  return r;
}

Status BinlogPrinter::PrintFiles(const std::vector<std::string>& paths) {
  out_ << "# The proper term is pseudo_replica_mode, but we use this compatibility alias\n"
          "# to make the statement usable on server versions 8.0.24 and older.\n"
          "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=1*/;\n"
          "/*!50003 SET @OLD_COMPLETION_TYPE=@@COMPLETION_TYPE,COMPLETION_TYPE=0*/;\n"
          "DELIMITER /*!*/;\n";
  Status result;
  for (size_t i = 0; i < paths.size(); ++i) {
    result = PrintFile(paths[i], i == 0, i + 1 == paths.size());
    if (!result.ok() || stop_) break;
  }
  st_.head.clear();  // "# at" lines of events filtered out at the end: dropped, as mysqlbinlog
  if (!st_.body.empty() || !st_.footer.empty()) {
    // As mysqlbinlog: a statement's rows are printed at its STMT_END_F event.
    if (warnings_ != nullptr) {
      *warnings_ << "WARNING: The range of printed events ends with a row event or a table map event that does not "
                    "have the STMT_END_F flag set. This might be because the last statement was not fully written "
                    "to the log, or because you are using a --stop-position or --stop-datetime that refers to an "
                    "event in the middle of a statement. The event(s) from the partial statement have not been "
                    "written to output.\n";
    }
    st_.body.clear();
    st_.footer.clear();
  }
  EndBinlog(st_);
  out_ << "DELIMITER ;\n"
          "# End of log file\n"
          "/*!50003 SET COMPLETION_TYPE=@OLD_COMPLETION_TYPE*/;\n"
          "/*!50530 SET @@SESSION.PSEUDO_SLAVE_MODE=0*/;\n";
  out_.flush();
  if (result.ok() && !row_errors_.empty()) return Status::Corruption(row_errors_);
  return result;
}

void BinlogPrinter::EndBinlog(RunState& st) {
  if (st.in_transaction) {
    out_ << "ROLLBACK /* added by mysqlbinlog */ " << kDelimiter << "\n";
  } else if (st.seen_gtid) {
    out_ << "BEGIN /*added by mysqlbinlog */ " << kDelimiter << "\nROLLBACK /* added by mysqlbinlog */ "
         << kDelimiter << "\n";
  }
  out_ << "SET @@SESSION.GTID_NEXT= 'AUTOMATIC' /* added by mysqlbinlog */ " << kDelimiter << "\n";
  st.in_transaction = false;
  st.seen_gtid = false;
}

Status BinlogPrinter::PrintFile(const std::string& path, bool first, bool last) {
  auto opened = BinlogFileReader::Open(path, options_.verify_checksums);
  if (!opened.ok()) {
    const Status& e = opened.status();
    return e.IsIOError() ? Status::IOError(e.message())
           : e.IsNotSupported() ? Status::NotSupported(path + ": " + e.message())
                                : Status::Corruption(path + ": " + e.message());
  }
  BinlogFileReader& reader = **opened;
  RunState& st = st_;
  st.fd = reader.format();

  const uint64_t start = first ? options_.start_position : 4;
  const std::optional<uint64_t> stop = last ? options_.stop_position : std::nullopt;
  bool in_use = false;  // FDE flag: the file was not closed (a crash or still written)
  Status status;
  uint64_t failed_at = 0;
  // One event, or nullopt at the end / on an error (then `status` is set).
  auto next = [&]() -> std::optional<BinlogFileReader::Event> {
    auto ev = reader.Next();
    if (!ev.ok()) {
      status = ev.status();
      failed_at = reader.valid_end();
      return std::nullopt;
    }
    return std::move(*ev);
  };
  // Whether an event ends the run (--stop-position, --stop-datetime), and
  // whether --start-datetime skips it (the FDE never; after the first event
  // at or past it, nothing).
  auto stops = [&](const BinlogFileReader::Event& ev) {
    return (stop && ev.offset >= *stop) ||
           (options_.stop_datetime && static_cast<std::time_t>(ev.header.timestamp) >= *options_.stop_datetime);
  };
  auto skipped_by_time = [&](const BinlogFileReader::Event& ev) {
    if (ev.header.type == binlog::kFormatDescriptionEvent) return false;
    if (!start_datetime_reached_ && options_.start_datetime &&
        static_cast<std::time_t>(ev.header.timestamp) < *options_.start_datetime) {
      return true;
    }
    start_datetime_reached_ = true;
    return false;
  };

  std::optional<BinlogFileReader::Event> ev = next();
  if (ev) {
    in_use = (ev->header.flags & binlog::kLogEventBinlogInUse) != 0;
    if (start > 4) {
      // mysqlbinlog reads the file's header events (Format_description,
      // Previous_gtids) up to the first other one or --start-position, and
      // prints the Format_description "at" where that read ended.
      BinlogFileReader::Event fde = std::move(*ev);
      if (start < fde.offset + fde.bytes.size()) {
        status = Status::InvalidArgument("--start-position " + std::to_string(start) +
                                         " is inside the Format_description event");
      }
      uint64_t pos = fde.offset + fde.bytes.size();
      while (status.ok() && pos < start) {
        std::optional<BinlogFileReader::Event> h = next();
        if (!h) break;
        fde.offset = h->offset;
        pos = h->offset + h->bytes.size();
        if (h->header.type != binlog::kPreviousGtidsEvent) break;
      }
      if (status.ok()) status = reader.Seek(start);
      if (status.ok()) {
        ev = std::move(fde);
      } else {
        failed_at = start;
        ev.reset();
      }
    }
  }
  while (ev) {
    if (stops(*ev)) {
      stop_ = true;
      break;
    }
    if (!skipped_by_time(*ev)) {
      Status printed = PrintEvent(*ev, st);
      if (!printed.ok()) {
        // Not a read error: the event is there but cannot be printed.
        const std::string what = printed.IsCorruption() ? "Could not decode the event at offset " +
                                                              std::to_string(ev->offset) + ": " + printed.message()
                                                        : printed.message();
        return Status(printed.IsCorruption() ? Status::Corruption(path + ": " + what)
                                             : Status::InvalidArgument(path + ": " + what));
      }
    }
    ev = next();
  }
  // As mysqlbinlog: a file not closed properly may end in a partial event
  // (treated as its end); otherwise a partial event is an error.
  if (status.ok() && reader.truncated() && !in_use) {
    status = Status::Corruption("the file ends inside an event (file size " + std::to_string(reader.file_size()) +
                                ")");
    failed_at = reader.valid_end();
  }
  if (!status.ok()) {
    return Status::Corruption(path + ": Could not read entry at offset " + std::to_string(failed_at) + ": " +
                              status.message());
  }
  return Status::OK();
}

void BinlogPrinter::Header(const BinlogFileReader::Event& ev, const RunState& st, std::string& to) {
  const binlog::EventHeader& h = ev.header;
  to += "#" + FormatLogTime(h.timestamp) + " server id " + std::to_string(h.server_id) + "  end_log_pos " +
        std::to_string(h.log_pos) + " ";
  if (st.fd.checksum == Checksum::kCrc32 && ev.bytes.size() >= binlog::kHeaderLen + binlog::kChecksumLen) {
    to += Printf("CRC32 0x%08x ", static_cast<unsigned>(LoadLE(ev.bytes.data() + ev.bytes.size() - 4, 4)));
  }
  if (options_.hexdump) to += "\n" + HexDump(ev.bytes, ev.offset);
}

Status BinlogPrinter::PrintEvent(const BinlogFileReader::Event& ev, RunState& st) {
  // As mysqlbinlog, "# at" goes to the head cache first: for an event
  // --include-gtids/--exclude-gtids drops, it stays there and is printed
  // with the next event that is.
  st.head += "# at " + std::to_string(ev.offset) + "\n";
  Status filter_error;
  if (FilteredByGtids(ev, st, &filter_error)) return filter_error;
  Status status = PrintEventText(ev, st);
  // The head is printed after every event; a statement's rows events keep
  // their BINLOG text and `###` rows (body, footer) until its last one.
  out_ << st.head;
  st.head.clear();
  return status;
}

bool BinlogPrinter::FilteredByGtids(const BinlogFileReader::Event& ev, RunState& st, Status* error) {
  if (!options_.include_gtids && !options_.exclude_gtids) return false;
  switch (ev.header.type) {
    case binlog::kGtidEvent:
    case binlog::kAnonymousGtidEvent: {
      auto g = binlog::DecodeGtid(ev.bytes, st.fd.checksum);
      if (!g.ok()) {
        *error = g.status();
        return true;
      }
      // An anonymous transaction is in no GTID set.
      const bool anonymous = ev.header.type == binlog::kAnonymousGtidEvent;
      bool filtered = false;
      if (options_.include_gtids) filtered = anonymous || !options_.include_gtids->Contains(g->sid, g->gno);
      if (options_.exclude_gtids && !anonymous) filtered = filtered || options_.exclude_gtids->Contains(g->sid, g->gno);
      st.filter_based_on_gtids = filtered;
      return filtered;
    }
    case binlog::kPreviousGtidsEvent:
    case binlog::kStopEvent:
    case binlog::kFormatDescriptionEvent:
    case binlog::kRotateEvent:
    case binlog::kIgnorableEvent:
    case binlog::kIncidentEvent:
      return false;
    case binlog::kXidEvent: {
      const bool filtered = st.filter_based_on_gtids;
      st.filter_based_on_gtids = false;
      return filtered;
    }
    case binlog::kQueryEvent: {
      const bool filtered = st.filter_based_on_gtids;
      auto q = binlog::DecodeQuery(ev.bytes, st.fd.checksum);
      if (q.ok() && EndsGroup(q->query)) st.filter_based_on_gtids = false;
      return filtered;
    }
    default:
      return st.filter_based_on_gtids;
  }
}

Status BinlogPrinter::PrintEventText(const BinlogFileReader::Event& ev, RunState& st) {
  const uint8_t type = ev.header.type;
  const Checksum ck = st.fd.checksum;
  switch (type) {
    case binlog::kFormatDescriptionEvent: {
      auto fd = binlog::DecodeFormatDescription(ev.bytes);
      if (!fd.ok()) return fd.status();
      // A later file (a real FDE, not the first): end the previous one's
      // transaction state first (printed before this event's "# at").
      if (ev.header.log_pos > 0 && !st.first_fd) EndBinlog(st);
      st.first_fd = false;
      Header(ev, st, st.head);
      st.head += "\tStart: binlog v " + std::to_string(fd->binlog_version) + ", server v " + fd->server_version +
                 " created " + FormatLogTime(ev.header.timestamp) + (fd->create_timestamp != 0 ? " at startup" : "") +
                 "\n";
      if (ev.header.flags & binlog::kLogEventBinlogInUse) {
        st.head += "# Warning: this binlog is either in use or was not closed properly.\n";
      }
      if (fd->create_timestamp != 0 && !(ev.header.flags & binlog::kLogEventArtificial)) {
        st.head += std::string("ROLLBACK") + kDelimiter + "\n";
      }
      if (options_.base64 == Base64Output::kAuto) {
        st.head += "BINLOG '\n" + Base64Lines(ev.bytes) + "\n'" + kDelimiter + "\n";
      }
      break;
    }
    case binlog::kPreviousGtidsEvent: {
      auto set = binlog::DecodePreviousGtids(ev.bytes, ck);
      if (!set.ok()) return set.status();
      Header(ev, st, st.head);
      st.head += "\tPrevious-GTIDs\n# " + (set->empty() ? std::string("[empty]") : set->ToString(",\n# ")) + "\n";
      break;
    }
    case binlog::kGtidEvent:
    case binlog::kAnonymousGtidEvent:
      st.seen_gtid = true;
      SLUICE_RETURN_IF_ERROR(PrintGtid(ev, st));
      break;
    case binlog::kQueryEvent:
      SLUICE_RETURN_IF_ERROR(PrintQuery(ev, st));
      break;
    case binlog::kXidEvent: {
      auto xid = binlog::DecodeXid(ev.bytes, ck);
      if (!xid.ok()) return xid.status();
      st.in_transaction = false;
      st.seen_gtid = false;
      Header(ev, st, st.head);
      st.head += "\tXid = " + std::to_string(*xid) + "\nCOMMIT" + kDelimiter + "\n";
      break;
    }
    case binlog::kRotateEvent: {
      auto rot = binlog::DecodeRotate(ev.bytes, ck);
      if (!rot.ok()) return rot.status();
      Header(ev, st, st.head);
      st.head += "\tRotate to " + rot->next_file + "  pos: " + std::to_string(rot->position) + "\n";
      break;
    }
    case binlog::kStopEvent:
      Header(ev, st, st.head);
      st.head += "\tStop\n";
      break;
    case binlog::kTableMapEvent: {
      if (options_.base64 == Base64Output::kNever) {
        return Status::InvalidArgument(
            "--base64-output=never specified, but binlog contains a Table_map_log_event event which must be "
            "printed in base64.");
      }
      auto map = binlog::DecodeTableMap(ev.bytes, ck);
      if (!map.ok()) return map.status();
      Header(ev, st, st.head);
      st.head += "\tTable_map: " + QuoteIdentifier(map->schema) + "." + QuoteIdentifier(map->table) +
                 " mapped to number " + std::to_string(map->table_id) + "\n";
      st.head += "# has_generated_invisible_primary_key=0\n";
      if (options_.base64 == Base64Output::kAuto) {
        if (st.body.empty()) st.body = "\nBINLOG '\n";
        st.body += Base64Lines(ev.bytes) + "\n";
      }
      st.tables[map->table_id] = std::move(*map);
      break;
    }
    case binlog::kWriteRowsEvent:
    case binlog::kUpdateRowsEvent:
    case binlog::kDeleteRowsEvent:
      return PrintRows(ev, st);
    case binlog::kRowsQueryEvent: {
      if (options_.verbose < 2) break;
      Header(ev, st, st.head);
      st.head += "\tRows_query\n";
      // Body: one (ignored) length byte, then the statement to the end.
      const size_t end = ev.bytes.size() - (ck == Checksum::kCrc32 ? binlog::kChecksumLen : 0);
      std::string_view text;
      if (end > binlog::kHeaderLen + 1) {
        text = std::string_view(ev.bytes).substr(binlog::kHeaderLen + 1, end - binlog::kHeaderLen - 1);
      }
      size_t p = 0;
      while (p < text.size()) {
        size_t nl = text.find('\n', p);
        if (nl == std::string_view::npos) nl = text.size();
        if (nl > p) st.head += "# " + std::string(text.substr(p, nl - p)) + "\n";
        p = nl + 1;
      }
      if (options_.base64 == Base64Output::kAuto) {
        if (st.body.empty()) st.body = "\nBINLOG '\n";
        st.body += Base64Lines(ev.bytes) + "\n";
      }
      break;
    }
    case binlog::kIntvarEvent: {
      Header(ev, st, st.head);
      if (ev.bytes.size() >= binlog::kHeaderLen + 9) {
        const uint8_t kind = static_cast<uint8_t>(ev.bytes[binlog::kHeaderLen]);
        const uint64_t value = LoadLE(ev.bytes.data() + binlog::kHeaderLen + 1, 8);
        st.head += std::string("\tIntvar\nSET ") + (kind == 1 ? "LAST_INSERT_ID" : "INSERT_ID") + "=" +
                   std::to_string(value) + kDelimiter + "\n";
      } else {
        st.head += "\tIntvar\n";
      }
      break;
    }
    case binlog::kIncidentEvent: {
      Header(ev, st, st.head);
      const uint64_t incident =
          ev.bytes.size() >= binlog::kHeaderLen + 2 ? LoadLE(ev.bytes.data() + binlog::kHeaderLen, 2) : 0;
      st.head += std::string("\n# Incident: ") + (incident == 1 ? "LOST_EVENTS" : "NOTHING") +
                 "\nRELOAD DATABASE; # Shall generate syntax error\n";
      break;
    }
    default:
      Header(ev, st, st.head);
      if (ev.header.flags & binlog::kLogEventIgnorable) {
        st.head += "\tIgnorable\n# Unrecognized ignorable event\n";
      } else {
        st.head += "\t" + std::string(binlog::EventTypeName(type)) + "\n# event type " + std::to_string(type) +
                   " is not printed by sluice-binlog\n";
      }
      break;
  }
  return Status::OK();
}

Status BinlogPrinter::PrintGtid(const BinlogFileReader::Event& ev, RunState& st) {
  auto g = binlog::DecodeGtid(ev.bytes, st.fd.checksum);
  if (!g.ok()) return g.status();
  const bool anonymous = ev.header.type == binlog::kAnonymousGtidEvent;
  // gtid_flags bit 0 = FLAG_MAY_HAVE_SBR (the first post-header byte).
  const bool may_have_sbr = ev.bytes.size() > binlog::kHeaderLen && (ev.bytes[binlog::kHeaderLen] & 1) != 0;
  const uint64_t original = g->original_commit_timestamp != 0 ? g->original_commit_timestamp
                                                              : g->immediate_commit_timestamp;
  const uint32_t original_version = g->original_server_version != 0 ? g->original_server_version
                                                                     : g->immediate_server_version;
  Header(ev, st, st.head);
  st.head += Printf("\t%s\tlast_committed=%" PRId64 "\tsequence_number=%" PRId64
                    "\trbr_only=%s\toriginal_committed_timestamp=%" PRIu64 "\timmediate_commit_timestamp=%" PRIu64
                    "\ttransaction_length=%" PRIu64 "\n",
                    anonymous ? "Anonymous_GTID" : "GTID", g->last_committed, g->sequence_number,
                    may_have_sbr ? "no" : "yes", original, g->immediate_commit_timestamp, g->transaction_length);
  if (!may_have_sbr) {
    st.head += std::string("/*!50718 SET TRANSACTION ISOLATION LEVEL READ COMMITTED*/") + kDelimiter + "\n";
  }
  st.head += Printf("# original_commit_timestamp=%" PRIu64 " (%s)\n", original, FormatMicros(original).c_str());
  st.head += Printf("# immediate_commit_timestamp=%" PRIu64 " (%s)\n", g->immediate_commit_timestamp,
                    FormatMicros(g->immediate_commit_timestamp).c_str());
  st.head += Printf("/*!80001 SET @@session.original_commit_timestamp=%" PRIu64 "*/%s\n", original, kDelimiter);
  st.head += Printf("/*!80014 SET @@session.original_server_version=%u*/%s\n", original_version, kDelimiter);
  st.head += Printf("/*!80014 SET @@session.immediate_server_version=%u*/%s\n", g->immediate_server_version,
                    kDelimiter);
  const std::string next = anonymous ? "ANONYMOUS" : binlog::GtidToString(g->sid, g->gno);
  st.head += "SET @@SESSION.GTID_NEXT= '" + next + "'" + kDelimiter + "\n";
  return Status::OK();
}

Status BinlogPrinter::PrintQuery(const BinlogFileReader::Event& ev, RunState& st) {
  auto q = binlog::DecodeQuery(ev.bytes, st.fd.checksum);
  if (!q.ok()) return q.status();
  const QueryStatusVars vars = ScanQueryStatusVars(ev.bytes);
  // The transaction state EndBinlog() closes.
  if (EndsGroup(q->query)) {
    st.in_transaction = false;
    st.seen_gtid = false;
  } else if (StartsGroup(q->query)) {
    st.in_transaction = true;
  } else if (!st.in_transaction) {
    st.seen_gtid = false;  // a DDL commits itself
  }
  std::string& h = st.head;
  Header(ev, st, h);
  h += Printf("\tQuery\tthread_id=%u\texec_time=%u\terror_code=%d", q->thread_id, q->exec_time,
              static_cast<int>(q->error_code));
  h += q->ddl_xid ? Printf("\tXid = %" PRIu64 "\n", *q->ddl_xid) : std::string("\n");

  if (ev.header.flags & kSuppressUseF) {
    if (!IsTransKeyword(q->query)) st.db.clear();
  } else if (q->db != st.db) {
    st.db = q->db;
    if (!q->db.empty()) h += "use " + QuoteIdentifier(q->db) + kDelimiter + "\n";
  }
  h += "SET TIMESTAMP=" + std::to_string(ev.header.timestamp);
  if (vars.microseconds && *vars.microseconds != 0) h += Printf(".%06u", *vars.microseconds);
  h += std::string(kDelimiter) + "\n";
  if (!st.thread_id_printed || ((ev.header.flags & kThreadSpecificF) && q->thread_id != st.thread_id)) {
    h += "SET @@session.pseudo_thread_id=" + std::to_string(q->thread_id) + kDelimiter + "\n";
    st.thread_id = q->thread_id;
    st.thread_id_printed = true;
  }
  if (vars.has_flags2) {
    const uint32_t changed = st.flags2_known ? (st.flags2 ^ q->flags2) : ~0u;
    // As mysqlbinlog: any changed bit prints the SET line, which names
    // only the four options it knows.
    if (changed != 0) {
      std::string set = "SET ";
      bool comma = false;
      auto option = [&](uint32_t bit, bool value, const char* name) {
        if (!(changed & bit)) return;
        if (comma) set += ", ";
        set += Printf("%s=%d", name, value ? 1 : 0);
        comma = true;
      };
      option(kOptionNoForeignKeyChecks, !(q->flags2 & kOptionNoForeignKeyChecks), "@@session.foreign_key_checks");
      option(kOptionAutoIsNull, q->flags2 & kOptionAutoIsNull, "@@session.sql_auto_is_null");
      option(kOptionRelaxedUniqueChecks, !(q->flags2 & kOptionRelaxedUniqueChecks), "@@session.unique_checks");
      option(kOptionNotAutocommit, !(q->flags2 & kOptionNotAutocommit), "@@session.autocommit");
      h += set + kDelimiter + "\n";
    }
    st.flags2_known = true;
    st.flags2 = q->flags2;
  }
  if (vars.has_sql_mode && (!st.sql_mode_known || st.sql_mode != q->sql_mode)) {
    // Modes removed in 8.0.5 (0x1003ff00) are masked for newer servers.
    h += "SET @@session.sql_mode=" + std::to_string(q->sql_mode) +
         ((q->sql_mode & 0x1003ff00) != 0 ? "/*!80005 &~0x1003ff00*/" : "") + kDelimiter + "\n";
    st.sql_mode = q->sql_mode;
    st.sql_mode_known = true;
  }
  if (st.auto_increment_increment != vars.auto_increment_increment ||
      st.auto_increment_offset != vars.auto_increment_offset) {
    h += Printf("SET @@session.auto_increment_increment=%u, @@session.auto_increment_offset=%u%s\n",
                vars.auto_increment_increment, vars.auto_increment_offset, kDelimiter);
    st.auto_increment_increment = vars.auto_increment_increment;
    st.auto_increment_offset = vars.auto_increment_offset;
  }
  const uint16_t charset[3] = {q->charset_client, q->collation_connection, q->collation_server};
  if (vars.has_charset && (!st.charset_known || std::memcmp(st.charset, charset, sizeof(charset)) != 0)) {
    std::string_view name = CharsetOfCollation(q->charset_client);
    if (!name.empty()) h += "/*!\\C " + std::string(name) + " */" + kDelimiter + "\n";
    h += Printf("SET @@session.character_set_client=%d,@@session.collation_connection=%d,"
                "@@session.collation_server=%d%s\n",
                charset[0], charset[1], charset[2], kDelimiter);
    std::memcpy(st.charset, charset, sizeof(charset));
    st.charset_known = true;
  }
  if (!q->time_zone.empty() && q->time_zone != st.time_zone) {
    h += "SET @@session.time_zone='" + q->time_zone + "'" + kDelimiter + "\n";
    st.time_zone = q->time_zone;
  }
  if (vars.lc_time_names != st.lc_time_names) {
    h += "SET @@session.lc_time_names=" + std::to_string(vars.lc_time_names) + kDelimiter + "\n";
    st.lc_time_names = vars.lc_time_names;
  }
  if (vars.charset_database != st.charset_database) {
    h += vars.charset_database != 0 ? "SET @@session.collation_database=" + std::to_string(vars.charset_database)
                                    : std::string("SET @@session.collation_database=DEFAULT");
    h += std::string(kDelimiter) + "\n";
    st.charset_database = vars.charset_database;
  }
  if (vars.explicit_defaults_ts) {
    h += "SET @@session.explicit_defaults_for_timestamp=" + std::to_string(*vars.explicit_defaults_ts ? 1 : 0) +
         kDelimiter + "\n";
  }
  if (vars.default_collation_for_utf8mb4 != st.default_collation_for_utf8mb4) {
    if (vars.default_collation_for_utf8mb4 != 0) {
      h += Printf("/*!80011 SET @@session.default_collation_for_utf8mb4=%d*/%s\n", vars.default_collation_for_utf8mb4,
                  kDelimiter);
    }
    st.default_collation_for_utf8mb4 = vars.default_collation_for_utf8mb4;
  }
  if (vars.sql_require_primary_key) {
    h += Printf("/*!80013 SET @@session.sql_require_primary_key=%d*/%s\n", *vars.sql_require_primary_key, kDelimiter);
  }
  if (vars.default_table_encryption) {
    h += Printf("/*!80016 SET @@session.default_table_encryption=%d*/%s\n", *vars.default_table_encryption,
                kDelimiter);
  }
  h += q->query + "\n" + kDelimiter + "\n";
  return Status::OK();
}

Status BinlogPrinter::PrintRows(const BinlogFileReader::Event& ev, RunState& st) {
  if (options_.base64 == Base64Output::kNever) {
    return Status::InvalidArgument(
        "--base64-output=never specified, but binlog contains a " + std::string(RowsEventName(ev.header.type)) +
        "_log_event event which must be printed in base64.");
  }
  const uint8_t type = ev.header.type;
  // table_id (6) and flags (2) lead the post-header.
  if (ev.bytes.size() < binlog::kHeaderLen + 8) return Status::Corruption("rows event too short");
  const uint64_t table_id = LoadLE(ev.bytes.data() + binlog::kHeaderLen, 6);
  const uint16_t flags = static_cast<uint16_t>(LoadLE(ev.bytes.data() + binlog::kHeaderLen + 6, 2));
  const bool stmt_end = (flags & binlog::kStmtEndF) != 0;

  Header(ev, st, st.head);
  st.head += "\t" + std::string(RowsEventName(type)) + ": table id " + std::to_string(table_id) +
             (stmt_end ? " flags: STMT_END_F" : "") + "\n";
  if (options_.base64 == Base64Output::kAuto) {
    if (st.body.empty()) st.body = "\nBINLOG '\n";
    st.body += Base64Lines(ev.bytes) + "\n";
  }
  if (options_.verbose > 0) {
    std::string& f = st.footer;
    auto it = st.tables.find(table_id);
    if (it == st.tables.end()) {
      f += "### Row event for unknown table #" + std::to_string(table_id) + "\n";
    } else {
      const binlog::TableMapInfo& map = it->second;
      auto rows = binlog::DecodeRows(ev.bytes, map, st.fd.checksum);
      if (!rows.ok()) {
        f += "### Error decoding " + std::string(RowsEventName(type)) + " at " + std::to_string(ev.offset) + ": " +
             rows.status().message() + "\n";
        if (row_errors_.empty()) {
          row_errors_ = "cannot decode the rows event at " + std::to_string(ev.offset) + ": " + rows.status().message();
        }
      } else {
        const std::string table = QuoteIdentifier(map.schema) + "." + QuoteIdentifier(map.table);
        const char* command = type == binlog::kWriteRowsEvent    ? "INSERT INTO"
                              : type == binlog::kDeleteRowsEvent ? "DELETE FROM"
                                                                 : "UPDATE";
        auto image = [&](const std::vector<binlog::DecodedValue>& values, const char* clause) {
          f += clause;
          for (const binlog::DecodedValue& v : values) {
            f += "###   @" + std::to_string(v.column + 1) + "=" + v.text;
            if (options_.verbose > 1 && !v.type_comment.empty()) f += " " + v.type_comment;
            f += "\n";
          }
        };
        if (type == binlog::kWriteRowsEvent && rows->rows.empty()) {
          f += "### INSERT INTO " + table + " VALUES ()\n";
        }
        for (const binlog::DecodedRow& row : rows->rows) {
          f += std::string("### ") + command + " " + table + "\n";
          if (type == binlog::kWriteRowsEvent) {
            image(row.after, "### SET\n");
          } else if (type == binlog::kDeleteRowsEvent) {
            image(row.before, "### WHERE\n");
          } else {
            image(row.before, "### WHERE\n");
            image(row.after, "### SET\n");
          }
        }
      }
    }
  }
  if (stmt_end) {
    out_ << st.head;
    if (!st.body.empty()) out_ << st.body << "'" << kDelimiter << "\n";
    out_ << st.footer;
    st.head.clear();
    st.body.clear();
    st.footer.clear();
    // MySQL's applier forgets the table maps at the end of a statement.
    st.tables.clear();
  }
  return Status::OK();
}

}  // namespace sluice::tools
