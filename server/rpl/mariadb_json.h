// server/rpl/mariadb_json.h
//
// MariadbJsonRewriter: the events a dump sends a MariaDB replica in place
// of those it cannot apply. MariaDB has no JSON type (its JSON is LONGTEXT)
// and its SQL thread stops at MySQL's column type 245, so a registered
// MariaDB replica gets:
//   - each file's Format_description as binlog::FormatDescriptionForMariadb
//     makes it (it must know MariaDB's compressed rows types);
//   - Table_maps with JSON columns as binlog::TableMapJsonAsLongblob;
//   - their rows events with each JSON value as MySQL's text (`to_text`).
//
// Positions. A MariaDB IO thread adds each event's size to its position,
// moves it up to an event's log_pos when that is further on (the "holes"
// master-side filtering leaves), and takes a Rotate's position as is. The
// events keep the primary's log_pos, and the SQL thread's position
// (Exec_Master_Log_Pos, MASTER_POS_WAIT) is always the primary's. The IO
// thread's may run ahead: by what rewritten events added beyond their
// originals, the "overshoot". It is kept under the smallest event there is
// (kMaxOvershoot < 27 bytes, an Xid without checksum), so the position the
// replica reconnects with lies inside the event after the last one it has,
// and the dump resumes at the event boundary just before it (the sender's
// ResumePoint). Heartbeats carry the primary's position plus the overshoot
// (a replica whose position is past a heartbeat's stops). The overshoot
// goes back to zero at the next event that shrinks enough: the Gtid event
// of the next transaction, which a MariaDB replica ignores, goes as a
// 19-byte Ignorable event while there is an overshoot.
//
// A rows event goes, of these, as the first that keeps the overshoot in
// bounds: its JSON as MySQL's text; the same in MariaDB's compressed rows
// event; the text without optional spaces ({"a":1} for {"a": 1}). When
// none does (a few small values whose text is much longer, such as five
// 17-digit doubles), the dump stops with 1236 rather than send a position
// the primary's file does not have.
//
// MariaDB's IO thread does not track compressed v2 rows events in its
// end-of-statement check and checks what it tracked at the next event it
// does not: a compressed event goes only when no plain rows event of the
// same statement went before it.
//
// Thread-safety: one per dump thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"
#include "binlog/event.h"
#include "binlog/row_event.h"

namespace sluice::server::rpl {

class MariadbJsonRewriter {
 public:
  static constexpr uint64_t kMaxOvershoot = 26;

  explicit MariadbJsonRewriter(binlog::JsonToText to_text) : to_text_(std::move(to_text)) {}

  // What to send instead of `event` (a whole event with its checksum, as
  // the file has it), or nullopt: send it as it is. An error: the dump
  // must stop (its message says why).
  Result<std::optional<std::string>> Rewrite(std::string_view event, binlog::Checksum checksum);
  // How far the replica's IO position is past the primary's.
  uint64_t overshoot() const { return overshoot_; }
  // Rows events sent compressed / with compact text so far (tests).
  uint64_t compressed() const { return compressed_; }
  uint64_t compacted() const { return compacted_; }

 private:
  Result<std::optional<std::string>> RewriteRows(std::string_view event, const binlog::TableMapInfo& map,
                                                 bool stmt_end, binlog::Checksum checksum);
  // The overshoot after sending `sent` bytes for an event of `original` bytes.
  uint64_t OvershootAfter(size_t original, size_t sent) const {
    return sent > original ? overshoot_ + (sent - original)
                           : (original - sent >= overshoot_ ? 0 : overshoot_ - (original - sent));
  }

  binlog::JsonToText to_text_;
  // The Table_maps of tables with JSON columns, as logged (type 245), by
  // table id; a later Table_map of the id replaces or drops its entry.
  std::unordered_map<uint64_t, binlog::TableMapInfo> json_tables_;
  // A plain rows event without STMT_END_F went out: the replica tracks the
  // statement until an event with STMT_END_F.
  bool statement_tracked_ = false;
  uint64_t overshoot_ = 0;
  uint64_t compressed_ = 0;
  uint64_t compacted_ = 0;
};

// `text` (MySQL's JSON text form) without the spaces outside strings.
std::string CompactJsonText(std::string_view text);

}  // namespace sluice::server::rpl
