// storage/trx/undo_record.h
//
// UndoRecord: what a transaction must remember to undo one change to a
// clustered record, and to rebuild the record's previous version for
// consistent reads. Three kinds:
//   - kInsert:     table id + primary key (undo = remove the record);
//   - kUpdate:     table id, primary key, the record's previous (trx id,
//                  roll pointer, delete mark) and the before-image of the
//                  changed columns as opaque column-id -> bytes pairs
//                  (nullopt = SQL NULL);
//   - kDeleteMark: as kUpdate; the change set the delete mark.
// EncodeUndoRecord / DecodeUndoRecord give the compact byte form kept in undo
// logs (varints; see undo_record.cc). The encoding is stored on disk: never
// renumber UndoType or reorder fields.
//
// Thread-safety: values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "storage/trx/trx_types.h"

namespace sluice::storage {

enum class UndoType : uint8_t {  // stored on disk; never renumber
  kInsert = 1,
  kUpdate = 2,
  kDeleteMark = 3,
};

struct UndoColumn {
  uint32_t column_id = 0;
  std::optional<std::string> before;  // nullopt: the column was NULL
  friend bool operator==(const UndoColumn&, const UndoColumn&) = default;
};

struct UndoRecord {
  UndoType type = UndoType::kInsert;
  uint64_t undo_no = 0;  // position in its transaction's log (set by UndoLog::Append)
  uint64_t table_id = 0;
  std::string primary_key;  // the clustered key, as the B+tree stores it
  // kUpdate / kDeleteMark only:
  TrxId prev_trx_id = kNoTrxId;
  RollPtr prev_roll_ptr;
  bool prev_delete_marked = false;  // kUpdate over a delete-marked record
  std::vector<UndoColumn> before_image;

  friend bool operator==(const UndoRecord&, const UndoRecord&) = default;
};

// Appends the encoding of `rec` to `*out`.
void EncodeUndoRecord(const UndoRecord& rec, std::string* out);

// Whether `bytes`, an EncodeUndoRecord encoding, is a kInsert record (its
// type is the first byte), without decoding it.
inline bool IsEncodedInsert(std::string_view bytes) {
  return !bytes.empty() && bytes[0] == static_cast<char>(UndoType::kInsert);
}

// Corruption on a truncated, trailing-garbage or unknown-type input.
Result<UndoRecord> DecodeUndoRecord(std::string_view bytes);

}  // namespace sluice::storage
