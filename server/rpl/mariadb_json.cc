#include "server/rpl/mariadb_json.h"

#include <fmt/format.h>

namespace sluice::server::rpl {

using binlog::Checksum;

std::string CompactJsonText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      out.push_back(c);
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (c == '"') in_string = true;
    out.push_back(c);
  }
  return out;
}

Result<std::optional<std::string>> MariadbJsonRewriter::Rewrite(std::string_view event, Checksum checksum) {
  Result<binlog::EventHeader> h = binlog::ParseHeader(event);
  if (!h.ok()) return h.status();
  std::optional<std::string> out;
  switch (h->type) {
    case binlog::kRotateEvent:
      overshoot_ = 0;  // the replica takes the Rotate's position
      return out;
    case binlog::kFormatDescriptionEvent: {
      json_tables_.clear();  // a new file, or the primary restarted: table ids start over
      statement_tracked_ = false;
      Result<std::string> fde = binlog::FormatDescriptionForMariadb(event);
      if (!fde.ok()) return fde.status();
      out = std::move(fde).value();  // log_pos 0: the replica's position does not move
      return out;
    }
    case binlog::kGtidEvent:
    case binlog::kAnonymousGtidEvent:
      // A MariaDB replica ignores MySQL's Gtid events; while the replica is
      // ahead, an empty Ignorable event in its place brings it back.
      if (overshoot_ > 0) out = binlog::EncodeIgnorable(*h, checksum);
      break;
    case binlog::kTableMapEvent: {
      Result<binlog::TableMapInfo> map = binlog::DecodeTableMap(event, checksum);
      if (!map.ok()) return map.status();
      Result<std::optional<std::string>> as_blob = binlog::TableMapJsonAsLongblob(event, checksum);
      if (!as_blob.ok()) return as_blob.status();
      if (as_blob->has_value()) {
        json_tables_[map->table_id] = std::move(map).value();
      } else {
        json_tables_.erase(map->table_id);
      }
      out = std::move(as_blob).value();
      break;
    }
    case binlog::kWriteRowsEvent:
    case binlog::kUpdateRowsEvent:
    case binlog::kDeleteRowsEvent: {
      // The table id (6 bytes) and flags (2) follow the header.
      if (event.size() < binlog::kHeaderLen + 8) return Status::Corruption("binlog rows event: truncated header");
      uint64_t table_id = 0;
      for (int i = 5; i >= 0; --i) table_id = table_id << 8 | static_cast<uint8_t>(event[binlog::kHeaderLen + i]);
      const bool stmt_end = (static_cast<uint8_t>(event[binlog::kHeaderLen + 6]) & binlog::kStmtEndF) != 0;
      auto it = json_tables_.find(table_id);
      if (it != json_tables_.end()) {
        Result<std::optional<std::string>> rows = RewriteRows(event, it->second, stmt_end, checksum);
        if (!rows.ok()) return rows.status();
        out = std::move(rows).value();
      } else {
        statement_tracked_ = !stmt_end;
      }
      break;
    }
    default:
      break;
  }
  if (h->log_pos != 0) overshoot_ = OvershootAfter(event.size(), out ? out->size() : event.size());
  return out;
}

Result<std::optional<std::string>> MariadbJsonRewriter::RewriteRows(std::string_view event,
                                                                    const binlog::TableMapInfo& map, bool stmt_end,
                                                                    Checksum checksum) {
  auto fits = [&](const std::string& e) { return OvershootAfter(event.size(), e.size()) <= kMaxOvershoot; };
  auto plain = [&](std::string e) -> Result<std::optional<std::string>> {
    statement_tracked_ = !stmt_end;
    return std::optional<std::string>(std::move(e));
  };
  Result<std::optional<std::string>> text = binlog::RowsJsonAsText(event, map, checksum, to_text_);
  if (!text.ok()) return text.status();
  std::string& as_text = **text;
  if (as_text.size() <= event.size()) return plain(std::move(as_text));
  // Larger as text: compressed (when the statement has no tracked event),
  // plain within the overshoot bound, or compact text.
  if (!statement_tracked_) {
    Result<std::string> z = binlog::RowsCompressedForMariadb(as_text, checksum);
    if (!z.ok()) return z.status();
    if (z->size() < as_text.size() && fits(*z)) {
      ++compressed_;
      return std::optional<std::string>(std::move(z).value());
    }
  }
  if (fits(as_text)) return plain(std::move(as_text));
  binlog::JsonToText compact = [this](std::string_view binary) -> Result<std::string> {
    Result<std::string> t = to_text_(binary);
    if (!t.ok()) return t.status();
    return CompactJsonText(*t);
  };
  Result<std::optional<std::string>> small = binlog::RowsJsonAsText(event, map, checksum, compact);
  if (!small.ok()) return small.status();
  if (fits(**small)) {
    ++compacted_;
    return plain(std::move(**small));
  }
  return Status::NotSupported(fmt::format(
      "the JSON values of a rows event on `{}`.`{}` take {} bytes as text where the binary log has {}: a "
      "MariaDB replica cannot take that event and keep the source's positions",
      map.schema, map.table, as_text.size(), event.size()));
}

}  // namespace sluice::server::rpl
