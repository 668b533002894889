// exec/read_only.h
//
// ReadOnlyMode: @@read_only and @@super_read_only as statements test them.
// The variables' update hooks (server/executor.cc) mirror the global values
// here, so that a write tests an atomic rather than the variable registry.
//
// Thread-safety: thread-safe (atomics).
#pragma once

#include <atomic>

#include "base/status.h"

namespace sluice::exec {

struct SessionContext;

class ReadOnlyMode {
 public:
  // The global values as the variables now hold them (super_read_only=ON
  // sets read_only=ON too, in the variables).
  void SetReadOnly(bool on) { read_only_.store(on, std::memory_order_release); }
  void SetSuperReadOnly(bool on) { super_read_only_.store(on, std::memory_order_release); }
  // OK when the session of `ctx` may change tables or accounts now; 1290
  // naming --read-only (unless it has CONNECTION_ADMIN or SUPER) or
  // --super-read-only otherwise.
  Status Check(const SessionContext& ctx) const {
    if (!read_only_.load(std::memory_order_acquire)) return Status::OK();
    return CheckSlow(ctx);
  }

 private:
  Status CheckSlow(const SessionContext& ctx) const;

  std::atomic<bool> read_only_{false};
  std::atomic<bool> super_read_only_{false};
};

}  // namespace sluice::exec
