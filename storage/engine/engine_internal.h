// storage/engine/engine_internal.h
//
// What engine.cc, engine_recovery.cc, engine_ddl.cc and engine_purge.cc
// share: the redo record types, the clustered record's format, key helpers
// and the open table.
// Not for use outside storage/engine.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "storage/btree/btree.h"
#include "storage/catalog/table_def.h"
#include "storage/engine/engine.h"
#include "storage/trx/trx_types.h"
#include "storage/trx/undo_record.h"

namespace sluice::storage::engine_internal {

// A clustered record's value (engine.h): system columns, then the row,
// which `Bytes` holds (std::string) or points at in the record
// (std::string_view).
template <typename Bytes>
struct RecordParts {
  TrxId trx_id = kNoTrxId;
  RollPtr roll_ptr;
  bool delete_marked = false;
  // `row` is an overflow reference (storage/btree/overflow.h) to the
  // EncodeRow bytes, which did not fit in the record (engine.h, "Off-page
  // rows"); else it is those bytes.
  bool external = false;
  Bytes row;
};
struct StoredRecord : RecordParts<std::string> {};
using StoredRecordView = RecordParts<std::string_view>;

// Redo record types (engine.h lists their payloads). Stored on disk.
inline constexpr uint8_t kRedoMtr = BufferPool::kMtrRecordType;
inline constexpr uint8_t kRedoUndo = 3;
inline constexpr uint8_t kRedoCommit = 4;
inline constexpr uint8_t kRedoRollback = 5;
inline constexpr uint8_t kRedoPrepare = 6;
inline constexpr uint8_t kRedoTrxIds = 7;
inline constexpr uint8_t kRedoShutdown = 8;

// A redo record's payload that is one transaction id (commit, rollback,
// prepare, shutdown, next id): 8 bytes, little-endian.
std::string TrxPayload(TrxId id);

// A clustered record's value from its parts (see StoredRecord).
std::string MakeRecord(TrxId trx_id, RollPtr roll_ptr, bool delete_marked, bool external, std::string_view row);
// Rewrites a record's roll pointer in place (its length stays).
void SetRecordRollPtr(std::string* record, RollPtr roll_ptr);

// Whether `row` has a NULL in a column of `idx`'s key, and the key's values
// as a 1062 message shows them ("1-abc").
bool KeyHasNull(const IndexDef& idx, const Row& row);
std::string KeyText(const TableDef& def, const IndexDef& idx, const Row& row);

// Corruption when `value` is too short or its flags byte is not valid.
Result<StoredRecord> ParseRecord(std::string_view value);
// The same without copying the row: `row` points into `value`.
Result<StoredRecordView> ParseRecordView(std::string_view value);

// The whole-row before-image of a stored row (engine.h): column_id 0 for
// EncodeRow bytes, 1 for an overflow reference.
UndoColumn RowImage(std::string row, bool external);
// The row before the change `rec` describes: its whole-row before-image,
// and whether that is an overflow reference. Corruption otherwise.
Status BeforeRow(const UndoRecord& rec, std::string* row, bool* external);

// Sync points for tests that force an interleaving: each, when set, runs on
// the engine's thread at the step it names. Never set outside tests; set
// only while no engine thread can reach the step.
struct SyncPoints {
  // Engine::EntryNeeded: after SeenByAll said a version's writer is not
  // seen by all, before the Fetch of that writer's undo record.
  std::function<void()> purge_before_undo_fetch;
};
extern SyncPoints sync_points;

}  // namespace sluice::storage::engine_internal

namespace sluice::storage {

// One open table: its definition, its B+trees and its counters.
struct Engine::TableHandle {
  std::shared_ptr<const TableDef> def;
  std::unique_ptr<BTree> clustered;
  // secondary[i] is the tree of def->indexes[i + 1]; null when not built.
  std::vector<std::unique_ptr<BTree>> secondary;
  int auto_inc_column = -1;
  Mutex mu;
  uint64_t auto_inc_next GUARDED_BY(mu) = 1;
  std::atomic<uint64_t> next_row_id{1};

  // Sets auto_inc_next on a handle not yet in tables_: nobody else can
  // see it, so no mutex (the analysis cannot know that).
  void InitAutoInc(uint64_t next) NO_THREAD_SAFETY_ANALYSIS { auto_inc_next = next; }
};

}  // namespace sluice::storage
