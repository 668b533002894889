#include "exec/read_only.h"

#include "acl/account.h"
#include "base/mysql_error.h"
#include "exec/session_context.h"

namespace sluice::exec {

Status ReadOnlyMode::CheckSlow(const SessionContext& ctx) const {
  if (super_read_only_.load(std::memory_order_acquire)) {
    return MakeError(er::kOptionPreventsStatement, "--super-read-only");
  }
  if (ctx.account && ctx.account->HasDynamicOrSuper("CONNECTION_ADMIN")) return Status::OK();
  return MakeError(er::kOptionPreventsStatement, "--read-only");
}

}  // namespace sluice::exec
