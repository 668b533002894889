// storage/trx/version_chain.h
//
// BuildVisibleVersion: given the latest version of a clustered record and a
// read view, follow the record's undo chain back to the version the view
// sees. The record format stays the engine's business: a VersionAccessor
// fetches undo records and applies before-images to row bytes.
//
// Thread-safety: a pure function of its inputs and the accessor.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "storage/trx/read_view.h"
#include "storage/trx/trx_types.h"
#include "storage/trx/undo_record.h"

namespace sluice::storage {

// One version of a clustered record: its system columns and its bytes.
struct RecordVersion {
  TrxId trx_id = kNoTrxId;
  RollPtr roll_ptr;
  bool delete_marked = false;
  std::string row;
  bool external = false;  // the engine's: `row` refers to bytes stored off the page
  friend bool operator==(const RecordVersion&, const RecordVersion&) = default;
};

class VersionAccessor {
 public:
  virtual ~VersionAccessor() = default;
  // Usually UndoStore::Fetch.
  virtual Result<UndoRecord> FetchUndo(RollPtr roll_ptr) = 0;
  // Rewrites `version`'s row (and `external`) to the version before the
  // change `rec` describes (puts back `rec.before_image`'s columns); the
  // caller sets the system columns.
  virtual Status ApplyBeforeImage(const UndoRecord& rec, RecordVersion* version) = 0;
};

// The version of `current` that `view` sees; nullopt when none exists for it
// (inserted after the view, or delete-marked in the visible version).
// `view` == nullptr means READ UNCOMMITTED: the latest version.
// Corruption when the chain is broken (a needed undo record is missing, or
// trx ids grow going back in time).
Result<std::optional<RecordVersion>> BuildVisibleVersion(const RecordVersion& current, const ReadView* view,
                                                         VersionAccessor& accessor);

}  // namespace sluice::storage
