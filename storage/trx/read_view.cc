#include "storage/trx/read_view.h"

#include <cassert>
#include <utility>

namespace sluice::storage {

ReadView::ReadView(TrxId creator, TrxId low_limit_id, std::vector<TrxId> active)
    : creator_(creator), low_limit_id_(low_limit_id), active_(std::move(active)) {
  std::sort(active_.begin(), active_.end());
  active_.erase(std::unique(active_.begin(), active_.end()), active_.end());
  assert(active_.empty() || active_.back() < low_limit_id_);
  up_limit_id_ = active_.empty() ? low_limit_id_ : active_.front();
}

}  // namespace sluice::storage
