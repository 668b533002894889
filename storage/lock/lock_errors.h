// storage/lock/lock_errors.h
//
// The MySQL errors the lock manager returns. 1205 and 1213 are not in
// base/mysql_error.h yet, so they are defined here in the catalogue's shape
// (number, SQLSTATE, MySQL's exact text: clients match on them; never
// renumber, keep the wording) until the lead moves them there; 1317 comes
// from the catalogue.
//
// Thread-safety: constants and value factories.
#pragma once

#include <cstdint>

#include "base/mysql_error.h"
#include "base/status.h"

namespace sluice::storage {


inline Status LockWaitTimeoutError() { return MakeError(er::kLockWaitTimeout); }
inline Status LockDeadlockError() { return MakeError(er::kLockDeadlock); }
inline Status QueryInterruptedError() { return MakeError(er::kQueryInterrupted); }

inline bool IsLockWaitTimeout(const Status& s) { return s.mysql_errno() == er::kLockWaitTimeout.code; }
inline bool IsDeadlock(const Status& s) { return s.mysql_errno() == er::kLockDeadlock.code; }

}  // namespace sluice::storage
