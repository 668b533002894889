// server/lock_vars.h
//
// Wires the storage lock manager's run-time settings and counters to the
// system and status variable registries, under MySQL's names where MySQL
// has one:
//   innodb_lock_wait_timeout     (existing core variable; the global value
//                                 becomes the manager's default)
//   innodb_deadlock_detect       ON: detect deadlocks, roll back a victim
//   innodb_print_all_deadlocks   ON: every deadlock to the error log
//                                 (asynchronously, rate-limited)
//   innodb_rollback_on_timeout   read-only; ON: a lock wait timeout rolls
//                                 back the whole transaction
//   sluice_lock_schedule         CATS | FIFO: which waiter a release grants
//   sluice_deadlock_detect_inline ON: also check for a cycle when a request
//                                 starts to wait (the background detector
//                                 runs either way)
// Status: Innodb_row_lock_waits, Innodb_row_lock_current_waits,
// Innodb_row_lock_time, Innodb_row_lock_time_avg, Innodb_row_lock_time_max,
// Innodb_deadlocks.
//
// Thread-safety: call once at start-up, after RegisterCoreVariables.
#pragma once

#include "base/status.h"

namespace sluice::storage {
class LockManager;
}
namespace sluice::vars {
class SystemVariables;
class StatusVariables;
}  // namespace sluice::vars

namespace sluice::server {

// `locks` must outlive both registries' use of the variables.
Status RegisterLockVariables(vars::SystemVariables& sys, vars::StatusVariables& status,
                             storage::LockManager& locks);

// Pushes the registries' current global values (after option files and
// SET PERSIST were applied) into the lock manager's configuration.
void ApplyLockVariables(vars::SystemVariables& sys, storage::LockManager& locks);

}  // namespace sluice::server
