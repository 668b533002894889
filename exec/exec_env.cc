#include "exec/exec_env.h"

#include <cstdio>
#include <cstdlib>

namespace sluice::exec {

ExecEnv::ExecEnv(const Services& s) : s_(s) {
  // A missing service is a wiring mistake in the server or a test, found at
  // start rather than at the first statement that needs it.
  if (s.engine == nullptr || s.sys_vars == nullptr || s.status_vars == nullptr || s.core_status == nullptr ||
      s.acl == nullptr || s.metadata_locks == nullptr || s.global_read_lock == nullptr ||
      s.table_locks == nullptr || s.read_only == nullptr || s.hooks == nullptr || s.plugins == nullptr ||
      s.control == nullptr) {
    std::fputs("sluice: ExecEnv built without a required service\n", stderr);
    std::abort();
  }
}

}  // namespace sluice::exec
