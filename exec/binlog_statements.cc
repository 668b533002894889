// exec/binlog_statements.cc: SHOW BINARY LOGS / MASTER STATUS / BINLOG
// EVENTS, PURGE BINARY LOGS, RESET MASTER (see binlog_statements.h).
#include "exec/binlog_statements.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "base/mysql_error.h"
#include "binlog/binlog.h"
#include "binlog/event.h"
#include "binlog/file_reader.h"

namespace sluice::exec {

namespace {

constexpr uint64_t kFirstEventOffset = 4;  // after the magic

Status ShowEventsError(const char* why) { return MakeError(er::kErrorWhenExecutingCommand, "SHOW BINLOG EVENTS", why); }

// mysqld's SHOW BINLOG EVENTS columns (Log_event::init_show_field_list).
ResultSet BinlogEventsColumns() {
  ResultSet rs;
  rs.AddTextColumn("Log_name", 20);
  rs.AddIntColumn("Pos");
  rs.AddTextColumn("Event_type", 20);
  rs.AddIntColumn("Server_id");
  rs.columns.back().type = p::MYSQL_TYPE_LONG;
  rs.columns.back().length = 10;
  rs.AddIntColumn("End_log_pos");
  rs.AddTextColumn("Info", 20);
  return rs;
}

// The readable end of `name` (a file in `files`, oldest first): the
// published end for the active file; 4 for a file newer than the published
// one (being created: nothing in it is visible yet); none for older files,
// which are complete.
std::optional<uint64_t> ReadableEnd(const binlog::Binlog& binlog, const std::vector<binlog::BinlogFileInfo>& files,
                                    const std::string& name, const binlog::Binlog::End& end) {
  if (end.file_number == 0) return std::nullopt;  // nothing published yet (not writing)
  const std::string active = binlog.FileName(end.file_number);
  if (name == active) return end.offset;
  auto it_active = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.name == active; });
  auto it_name = std::find_if(files.begin(), files.end(), [&](const auto& f) { return f.name == name; });
  if (it_active != files.end() && it_name > it_active) return kFirstEventOffset;
  if (it_active == files.end() && !files.empty() && name == files.back().name) return kFirstEventOffset;
  return std::nullopt;
}

}  // namespace

Result<ResultSet> ShowBinaryLogs(binlog::Binlog* binlog) {
  if (binlog == nullptr) return MakeError(er::kNoBinaryLogging);
  ResultSet rs;
  rs.AddTextColumn("Log_name", 255);
  rs.AddIntColumn("File_size");
  rs.AddTextColumn("Encrypted", 3);
  const std::vector<binlog::BinlogFileInfo> files = binlog->ListFiles();
  const binlog::Binlog::End end = binlog->end();
  for (const auto& f : files) {
    uint64_t size = f.size;
    if (std::optional<uint64_t> e = ReadableEnd(*binlog, files, f.name, end); e && *e != kFirstEventOffset) {
      size = *e;
    }
    rs.rows.push_back({f.name, std::to_string(size), "No"});
  }
  return rs;
}

ResultSet ShowMasterStatus(binlog::Binlog* binlog) {
  ResultSet rs;
  rs.AddTextColumn("File", 512);
  rs.AddIntColumn("Position");
  rs.AddTextColumn("Binlog_Do_DB", 255);
  rs.AddTextColumn("Binlog_Ignore_DB", 255);
  rs.AddTextColumn("Executed_Gtid_Set", 1024);
  if (binlog == nullptr) return rs;
  // As mysqld: the GTID set first, then the position (a transaction may
  // commit in between; the position is then the newer one).
  const std::string gtids = binlog->gtid_executed().ToString();
  auto [file, position] = binlog->CurrentPosition();
  rs.rows.push_back({std::move(file), std::to_string(position), "", "", gtids});
  return rs;
}

Result<ResultSet> ShowBinlogEvents(binlog::Binlog* binlog, const sql::ShowStmt& s, uint64_t limit, uint64_t offset) {
  ResultSet rs = BinlogEventsColumns();
  if (binlog == nullptr) {
    // mysqld reads nothing when the binlog is closed: an empty result.
    return rs;
  }
  const std::vector<binlog::BinlogFileInfo> files = binlog->ListFiles();
  std::string name;
  if (s.log_name.empty()) {
    if (files.empty()) return ShowEventsError("Could not find target log");
    name = files.front().name;
  } else {
    // mysqld keeps only the file name of what is given and looks for it in
    // the binlog directory's index.
    name = s.log_name.substr(s.log_name.find_last_of('/') + 1);
    if (std::none_of(files.begin(), files.end(), [&](const auto& f) { return f.name == name; })) {
      return ShowEventsError("Could not find target log");
    }
  }
  // The end is read after the list, so a file in the list is either older
  // than the published one (complete), the published one, or newer.
  const std::optional<uint64_t> readable_end = ReadableEnd(*binlog, files, name, binlog->end());

  auto opened = binlog::BinlogFileReader::Open(binlog->FilePath(name), /*verify_checksums=*/true,
                                               &binlog->file_system());
  if (!opened.ok()) return ShowEventsError("Could not open log file");
  binlog::BinlogFileReader& reader = **opened;
  const uint64_t end = readable_end.value_or(reader.file_size());
  if (readable_end) reader.set_limit(*readable_end);

  const uint64_t from = std::max(s.from_pos.value_or(kFirstEventOffset), kFirstEventOffset);
  if (from > end) return ShowEventsError("Wrong offset or I/O error");
  if (!reader.Seek(from).ok()) return ShowEventsError("Wrong offset or I/O error");

  // LIMIT offset, count: skip `offset` events, show `limit`.
  const uint64_t stop = limit > UINT64_MAX - offset ? UINT64_MAX : offset + limit;
  bool first = true;
  for (uint64_t count = 0; count < stop; ++count) {
    auto next = reader.Next();
    if (!next.ok()) return ShowEventsError("Wrong offset or I/O error");
    if (!next->has_value()) {
      // The end: a clean one, or one inside an event (FROM in the middle
      // of the last event, or a file cut short).
      if (reader.truncated()) return ShowEventsError("Wrong offset or I/O error");
      break;
    }
    const binlog::BinlogFileReader::Event& ev = **next;
    // Every event of a binlog file has log_pos = its end: what FROM finds
    // in the middle of an event fails this (if its size and CRC got by).
    if (first && ev.header.log_pos != ev.offset + ev.bytes.size()) {
      return ShowEventsError("Wrong offset or I/O error");
    }
    first = false;
    if (count < offset) continue;
    rs.rows.push_back({name, std::to_string(ev.offset), std::string(binlog::EventTypeName(ev.header.type)),
                       std::to_string(ev.header.server_id), std::to_string(ev.header.log_pos),
                       binlog::EventInfo(ev.bytes, reader.format())});
  }
  return rs;
}

Status PurgeBinaryLogs(binlog::Binlog* binlog, const sql::PurgeBinaryLogsStmt& s, int64_t before_unix_seconds) {
  if (binlog == nullptr) return Status::OK();  // mysqld: OK, nothing to purge
  if (s.before == nullptr) {
    const std::string name = s.to.substr(s.to.find_last_of('/') + 1);
    return binlog->PurgeTo(name);
  }
  return binlog->PurgeBefore(before_unix_seconds);
}

Status ResetMaster(binlog::Binlog* binlog, std::optional<uint64_t> to) {
  if (binlog == nullptr) return Status::OK();
  return binlog->Reset(to.value_or(1));
}

}  // namespace sluice::exec
