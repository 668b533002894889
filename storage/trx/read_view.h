// storage/trx/read_view.h
//
// ReadView: a consistent-read snapshot. It decides whether the changes of a
// transaction id are visible, with InnoDB's rules:
//   - the creator's own changes are visible;
//   - ids <  up_limit_id are visible (committed before the snapshot);
//   - ids >= low_limit_id are invisible (began after the snapshot);
//   - ids in between are visible unless in the (sorted) active list.
// TrxSys makes them (TrxSys::GetReadView); tests may build them directly.
//
// Thread-safety: immutable after construction except set_creator(), which
// only the owning transaction calls; share const references freely.
#pragma once

#include <algorithm>
#include <vector>

#include "storage/trx/trx_types.h"

namespace sluice::storage {

class ReadView {
 public:
  // `active` need not be sorted; it is sorted here. REQUIRES: every id in
  // `active` is < low_limit_id.
  ReadView(TrxId creator, TrxId low_limit_id, std::vector<TrxId> active);

  // True when the changes of `trx_id` are part of this snapshot.
  bool Visible(TrxId trx_id) const {
    if (trx_id == creator_ && creator_ != kNoTrxId) return true;
    if (trx_id < up_limit_id_) return true;
    if (trx_id >= low_limit_id_) return false;
    return !std::binary_search(active_.begin(), active_.end(), trx_id);
  }

  TrxId creator() const { return creator_; }
  // A read-only transaction that starts writing gets an id after its view
  // was made; its own changes must still be visible to it.
  void set_creator(TrxId id) { creator_ = id; }

  TrxId low_limit_id() const { return low_limit_id_; }
  TrxId up_limit_id() const { return up_limit_id_; }
  const std::vector<TrxId>& active_ids() const { return active_; }

 private:
  TrxId creator_;
  TrxId low_limit_id_;
  TrxId up_limit_id_;  // min(active) or low_limit_id when none
  std::vector<TrxId> active_;
};

}  // namespace sluice::storage
