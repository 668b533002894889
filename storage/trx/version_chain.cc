#include "storage/trx/version_chain.h"

namespace sluice::storage {

Result<std::optional<RecordVersion>> BuildVisibleVersion(const RecordVersion& current, const ReadView* view,
                                                         VersionAccessor& accessor) {
  using Out = std::optional<RecordVersion>;
  RecordVersion v = current;
  // Versions need not go down in trx id: a transaction that got its id
  // early can write a row after a younger one committed a version of it.
  // A chain longer than any real history means a cycle (corruption).
  constexpr uint64_t kMaxHops = uint64_t{1} << 32;
  for (uint64_t hops = 0;; ++hops) {
    if (hops == kMaxHops) return Status::Corruption("version chain does not end");
    if (view == nullptr || view->Visible(v.trx_id)) {
      if (v.delete_marked) return Out();
      return Out(std::move(v));
    }
    // Not visible: the view predates this version. An insert has no older one.
    if (v.roll_ptr.is_insert()) return Out();
    if (v.roll_ptr.is_null()) return Status::Corruption("version chain ends at an invisible version");
    Result<UndoRecord> rec = accessor.FetchUndo(v.roll_ptr);
    if (!rec.ok()) return rec.status();
    if (rec->type == UndoType::kInsert) return Out();
    SLUICE_RETURN_IF_ERROR(accessor.ApplyBeforeImage(*rec, &v));
    v.trx_id = rec->prev_trx_id;
    v.roll_ptr = rec->prev_roll_ptr;
    v.delete_marked = rec->prev_delete_marked;
  }
}

}  // namespace sluice::storage
