// binlog/row_event.h
//
// Table_map (19) and Write/Update/Delete_rows v2 (30/31/32) events for the
// engine's tables, built from storage::TableDef and storage::Row (see
// storage/catalog/row_codec.h for the in-memory values).
//
// Column mapping (MySQL type code in the Table_map, metadata, row value):
//   TINYINT..BIGINT  TINY 1/SHORT 2/INT24 9/LONG 3/LONGLONG 8, no metadata
//   DECIMAL(p,s)     NEWDECIMAL 0xF6, meta (p, s), binary decimal
//   FLOAT            FLOAT 4, meta 4, IEEE float (the stored double, narrowed)
//   DOUBLE           DOUBLE 5, meta 8
//   CHAR(n)          STRING 0xFE, meta (real_type 0xFE folded, n*maxlen bytes),
//                    value without trailing spaces
//   BINARY(n)        STRING 0xFE, meta (0xFE, n), value without trailing 0x00
//   VARCHAR/VARBINARY VARCHAR 15, meta max bytes (2 LE)
//   *TEXT / *BLOB    BLOB 0xFC, meta pack length 1/2/3/4
//   DATE             DATE 10 in the map (MySQL's Field_newdate::binlog_type;
//                    readers take it as NEWDATE), 3 bytes LE
//                    day | month << 5 | year << 9
//   TIME(fsp)        TIME2 19, meta fsp (binlog-format.md §11)
//   DATETIME(fsp)    DATETIME2 18, meta fsp, 5 BE bytes then fsp bytes
//   TIMESTAMP(fsp)   TIMESTAMP2 17, meta fsp, 4 BE seconds then fsp bytes
//   YEAR             YEAR 13, 1 byte (year - 1900; 0 stays 0)
//   ENUM             STRING 0xFE, meta (0xF7, 1 or 2), index LE in 1 byte
//                    when <= 255 values, else 2
// Max bytes per character by charset: utf8mb4 4, utf8mb3/utf8 3, latin1,
// ascii and binary 1. Collation ids: MySQL's numbers (utf8mb4_0900_ai_ci
// 255, utf8mb4_bin 46, utf8mb4_general_ci 45, utf8mb3_general_ci 33,
// latin1_swedish_ci 8, latin1_bin 47, ascii_general_ci 11, binary 63, ...).
//
// Thread-safety: the functions are pure; a RowsEventBuilder is used by one
// thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "binlog/event.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"

namespace sluice::binlog {

enum class RowMetadata { kMinimal, kFull };    // binlog_row_metadata
enum class RowImage { kFull, kMinimal, kNoBlob };  // binlog_row_image

// MySQL's collation id for a collation name (0 when unknown).
uint16_t CollationId(std::string_view collation);

// Table_map with the optional metadata binlog_row_metadata asks for, in
// MySQL 8.0's order: MINIMAL: SIGNEDNESS (when there are numeric columns),
// DEFAULT_CHARSET or COLUMN_CHARSET (MySQL's choice of the shorter; when
// there are character columns); FULL adds COLUMN_NAME,
// ENUM_AND_SET_DEFAULT_CHARSET or _COLUMN_CHARSET and ENUM_STR_VALUE (when
// there are ENUM columns; MySQL writes the ENUM charsets only with FULL),
// SIMPLE_PRIMARY_KEY or PRIMARY_KEY_WITH_PREFIX (not for a table without
// PRIMARY KEY: the hidden row id is not a column), COLUMN_VISIBILITY.
// flags = TM_BIT_LEN_EXACT_F (1).
std::string EncodeTableMap(EventHeader h, uint64_t table_id, const storage::TableDef& table, RowMetadata metadata,
                           Checksum checksum);
// The same event, appended to `out`.
void AppendTableMap(std::string& out, EventHeader h, uint64_t table_id, const storage::TableDef& table,
                    RowMetadata metadata, Checksum checksum);

// Builds the rows events of one statement on one table (v2, extra_data_len
// 2, flags 0 but STMT_END_F). Rows are added in order; a row that would
// take the pending event above `max_event_bytes` (MySQL's
// binlog_row_event_max_size, 8192; whole event with header and CRC) starts
// a new event, as does a row whose image has other columns than the
// pending event's (MINIMAL/NOBLOB: the column bitmaps are per event). A
// single row larger than the limit gets an event of its own.
// Finish(stmt_end) closes the last one (STMT_END_F when stmt_end).
class RowsEventBuilder {
 public:
  // type: kWriteRowsEvent, kUpdateRowsEvent or kDeleteRowsEvent.
  RowsEventBuilder(EventHeader h, uint8_t type, uint64_t table_id, const storage::TableDef& table, RowImage image,
                   Checksum checksum, size_t max_event_bytes = 8192);

  // WRITE: after image only; DELETE: before only; UPDATE: both.
  // MINIMAL images: before = primary key columns (every column when the
  // table has no PRIMARY KEY), after = the columns whose value changed
  // (for WRITE: every column). NOBLOB: like FULL minus unchanged
  // BLOB/TEXT columns (before image keeps them only when no PK, or when
  // they are part of it).
  // Corruption when a value does not fit its column's type (wrong RowValue
  // alternative, out of range, too long, NULL in a NOT NULL column);
  // InvalidArgument when an image the type needs is missing or a row's
  // width is not the table's. A failed row leaves the builder unchanged.
  Status AddRow(const storage::Row* before, const storage::Row* after);
  // The same for rows as the engine stores them: the table's columns, then
  // perhaps more (a hidden row id) that are not logged.
  Status AddStoredRow(const storage::Row* before, const storage::Row* after);

  // Starts over, as if newly constructed, keeping the memory its buffers
  // hold (a session's builder serves statement after statement).
  void Reset(EventHeader h, uint8_t type, uint64_t table_id, const storage::TableDef& table, RowImage image,
             Checksum checksum, size_t max_event_bytes = 8192);

  // Whole events finished so far (log_pos 0: the caller patches it); the
  // builder keeps the pending one. Takes them out.
  std::vector<std::string> TakeFinished();
  // The same, in place: ClearFinished drops them, keeping their buffers
  // for the next events.
  std::span<const std::string> finished() const { return {finished_.data(), finished_count_}; }
  void ClearFinished();
  // Finishes the pending event (if it has rows) into finished(), with
  // STMT_END_F when `stmt_end`.
  void FinishStatement(bool stmt_end) { FinishPending(stmt_end); }
  // Finishes the pending event (if it has rows) with STMT_END_F when
  // `stmt_end`, and returns every event not yet taken.
  // The builder is empty afterwards and may build the next statement's.
  std::vector<std::string> Finish(bool stmt_end);
  // No rows pending and no finished events held.
  bool empty() const;
  uint8_t type() const { return type_; }
  uint64_t table_id() const { return table_id_; }
  // NO_FOREIGN_KEY_CHECKS_F on the events (the session's
  // foreign_key_checks is off): the replica applies them unchecked.
  void set_no_foreign_key_checks(bool on) { no_foreign_key_checks_ = on; }

 private:
  // Size of the pending event with `extra_row_bytes` more row bytes.
  size_t EventSizeWith(size_t extra_row_bytes) const;
  // Finishes the pending event (when it has rows) into finished_.
  void FinishPending(bool stmt_end);
  // AddRow; `exact`: the rows must be as wide as the table, else at least.
  Status Add(const storage::Row* before, const storage::Row* after, bool exact);

  EventHeader h_;
  uint8_t type_;
  uint64_t table_id_;
  bool no_foreign_key_checks_ = false;
  const storage::TableDef* table_;
  RowImage image_;
  Checksum checksum_;
  size_t max_event_bytes_;
  std::vector<std::string> finished_;  // the first finished_count_ are events; the rest, spare buffers
  size_t finished_count_ = 0;
  // The pending event: its rows' bytes, row count and column bitmaps (all
  // its rows share them; a row with other present columns starts a new one).
  std::string pending_rows_;
  size_t pending_count_ = 0;
  std::vector<bool> pending_before_, pending_after_;
  // Add's working space, kept so that a row allocates nothing once the
  // builder has seen a row as wide.
  std::vector<bool> in_pk_, before_cols_, after_cols_, nulls_;
  std::string row_;
};

// ---- decoding (tools, SHOW BINLOG EVENTS, tests) ----

struct TableMapInfo {
  uint64_t table_id = 0;
  std::string schema, table;
  std::vector<uint8_t> column_types;
  std::vector<uint16_t> column_meta;  // per column, the metadata as a number (0 when none)
  std::vector<bool> nullable;
  // Optional metadata, when present.
  std::vector<bool> is_unsigned;       // per column (false for non-numeric)
  std::vector<std::string> column_names;
  std::vector<uint32_t> primary_key;   // column indexes
  std::vector<std::vector<std::string>> enum_values;  // per ENUM column
};
Result<TableMapInfo> DecodeTableMap(std::string_view event, Checksum checksum);

// One value of a decoded row image, as MySQL 8.0's mysqlbinlog --verbose
// prints it plus its -vv type comment ("/* INT meta=0 nullable=1
// is_null=0 */"). Integers signed, with the unsigned reading appended
// when negative ("-1 (4294967295)"); DECIMAL 1234.56; FLOAT "%-20g"
// (padded to 20 characters), DOUBLE "%-.20g"; strings quoted with \n,
// \', \xNN escapes; DATE '2024:01:02' (sic, colons); DATETIME
// '2024-01-02 03:04:05[.ffffff]'; TIME '-838:59:59'; TIMESTAMP as epoch
// seconds (1704164645[.fff]); YEAR 4 digits (0 prints as 1900, as
// mysqlbinlog does); ENUM its 1-based index; NULL.
struct DecodedValue {
  uint32_t column = 0;  // 0-based column index
  bool is_null = false;
  std::string text;     // as mysqlbinlog -v prints it
  std::string type_comment;
};
struct DecodedRow {
  std::vector<DecodedValue> before, after;  // present columns only
};
struct RowsInfo {
  uint8_t type = 0;
  uint64_t table_id = 0;
  uint16_t flags = 0;
  uint32_t column_count = 0;
  std::vector<DecodedRow> rows;
};
Result<RowsInfo> DecodeRows(std::string_view event, const TableMapInfo& map, Checksum checksum);


// ---- rewriting for MariaDB replicas ----
//
// A MariaDB replica cannot apply MySQL's JSON type: its SQL thread stops at
// column type 245. MariaDB's own JSON is LONGTEXT. These give a dump thread
// the events such a replica can apply, with the header (log_pos included)
// kept and the checksum computed again:
//   - a Table_map whose JSON columns are LONGBLOB (252; the metadata, the
//     pack length 4, is the same byte) and which has no optional metadata
//     (its charset lists would no longer match the column types);
//   - a rows event (v2) whose JSON values are text, as `to_text` gives it.
// nullopt when the event has no JSON column: send it as it is.
Result<std::optional<std::string>> TableMapJsonAsLongblob(std::string_view event, Checksum checksum);
using JsonToText = std::function<Result<std::string>(std::string_view binary)>;
Result<std::optional<std::string>> RowsJsonAsText(std::string_view event, const TableMapInfo& map,
                                                  Checksum checksum, const JsonToText& to_text);
// MariaDB's compressed form of a rows event (v2): type 169..171 for
// 30..32; the post-header, column count and column bitmaps as they are;
// then the row images as one buffer: 0x80 | n, their length in n
// big-endian bytes (n = 1..4, the fewest that hold it), zlib's compress()
// stream. A MariaDB replica's IO thread inflates it back into the v2 event
// and advances its position by the compressed size. The reader must have
// had FormatDescriptionForMariadb's Format_description.
Result<std::string> RowsCompressedForMariadb(std::string_view event, Checksum checksum);

}  // namespace sluice::binlog
