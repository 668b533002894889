// tools/binlog/printer.h
//
// sluice-binlog's output: binlog files printed as mysqlbinlog 8.0 prints
// local files (`# at <pos>`, `#<yymmdd hh:mm:ss> server id N  end_log_pos P
// CRC32 0x........ \t<Type>...`, the session SET lines of Query events,
// BINLOG '...' base64 blocks, `###` row images with --verbose). Decoding
// is binlog/'s (event.h, row_event.h); this file only lays out the text.
//
// Thread-safety: one printer per thread.
#pragma once

#include <cstdint>
#include <ctime>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "base/status.h"
#include "binlog/event.h"
#include "binlog/file_reader.h"
#include "binlog/gtid.h"
#include "binlog/row_event.h"

namespace sluice::tools {

enum class Base64Output { kAuto, kNever, kDecodeRows };

struct PrintOptions {
  int verbose = 0;  // -v: `###` rows; -vv: plus type comments and Rows_query text
  Base64Output base64 = Base64Output::kAuto;
  uint64_t start_position = 4;                 // first file only
  std::optional<uint64_t> stop_position;       // last file only
  std::optional<std::time_t> start_datetime;   // every file
  std::optional<std::time_t> stop_datetime;    // every file
  std::optional<binlog::GtidSet> include_gtids;
  std::optional<binlog::GtidSet> exclude_gtids;
  bool hexdump = false;
  bool verify_checksums = false;
};

// Prints files to `out` in order, as one mysqlbinlog run: the preamble,
// DELIMITER /*!*/;, every file's events, the end of the last transaction
// (ROLLBACK when it was cut, GTID_NEXT back to AUTOMATIC), DELIMITER ; and
// the trailer (also after an error). As mysqlbinlog 8.0, the session state
// carries over from file to file (SETs only when changed), the GTID_NEXT
// reset is also printed before each later file's Format_description, and
// the rows events of a statement are printed as they come (headers) while
// their BINLOG block and `###` rows wait for the one with STMT_END_F.
//
// Errors end the run: a file that cannot be opened, a corrupt event (bad
// size; bad CRC with verify_checksums; an event binlog/ cannot decode), a
// truncated last event. As in mysqlbinlog, a file whose Format_description
// still says "in use" may end in a partial event (a crash, or the file
// being written) without error. Rows events DecodeRows refuses are printed
// as a `### Error` comment and reported as an error at the end. Warnings
// (a statement left without its STMT_END_F event) go to `warnings`.
class BinlogPrinter {
 public:
  BinlogPrinter(const PrintOptions& options, std::ostream& out, std::ostream* warnings = nullptr)
      : options_(options), out_(out), warnings_(warnings) {}
  Status PrintFiles(const std::vector<std::string>& paths);

 private:
  // What mysqlbinlog keeps for the run (its PRINT_EVENT_INFO and globals):
  // the session state already SET, table maps, the text held back until a
  // statement's last rows event, and the transaction/GTID-filter state.
  struct RunState {
    binlog::FormatDescription fd;  // the current file's
    std::string db;
    bool flags2_known = false;
    uint32_t flags2 = 0;
    bool sql_mode_known = false;
    uint64_t sql_mode = 0;
    bool thread_id_printed = false;
    uint32_t thread_id = 0;
    uint32_t auto_increment_increment = 0, auto_increment_offset = 0;  // 0: none SET yet
    bool charset_known = false;
    uint16_t charset[3] = {0, 0, 0};
    std::string time_zone;
    int lc_time_names = -1;
    int charset_database = -1;
    int default_collation_for_utf8mb4 = -1;
    std::map<uint64_t, binlog::TableMapInfo> tables;
    std::string head, body, footer;      // mysqlbinlog's head/body/footer caches
    bool filter_based_on_gtids = false;  // inside a transaction --include/--exclude-gtids drops
    bool in_transaction = false;         // after BEGIN, before COMMIT/Xid
    bool seen_gtid = false;              // after a Gtid event, before its transaction ended
    bool first_fd = true;
  };

  Status PrintFile(const std::string& path, bool first, bool last);
  Status PrintEvent(const binlog::BinlogFileReader::Event& ev, RunState& st);
  Status PrintEventText(const binlog::BinlogFileReader::Event& ev, RunState& st);
  bool FilteredByGtids(const binlog::BinlogFileReader::Event& ev, RunState& st, Status* error);
  void Header(const binlog::BinlogFileReader::Event& ev, const RunState& st, std::string& to);
  Status PrintQuery(const binlog::BinlogFileReader::Event& ev, RunState& st);
  Status PrintGtid(const binlog::BinlogFileReader::Event& ev, RunState& st);
  Status PrintRows(const binlog::BinlogFileReader::Event& ev, RunState& st);
  void EndBinlog(RunState& st);

  const PrintOptions& options_;
  std::ostream& out_;
  std::ostream* warnings_;
  RunState st_;
  bool stop_ = false;                    // --stop-position/--stop-datetime reached
  bool start_datetime_reached_ = false;  // from here on --start-datetime no longer skips
  std::string row_errors_;               // first rows event DecodeRows refused
};

// Helpers shared with the tests.
// mysqlbinlog's timestamp: "%02d%02d%02d %2d:%02d:%02d" in local time.
std::string FormatLogTime(std::time_t t);
// RFC 4648 base64 in lines of 76 characters joined by '\n' (no final '\n').
std::string Base64Lines(std::string_view bytes);
// `name` in backticks, inner backticks doubled (binlog/event.h's).
using binlog::QuoteIdentifier;
// "YYYY-MM-DD hh:mm:ss" in local time, as mysqlbinlog's --start-datetime /
// --stop-datetime (date and time both required). InvalidArgument
// ("Incorrect date and time argument: ...") when malformed.
Result<std::time_t> ParseDateTime(std::string_view text);

}  // namespace sluice::tools
