#include "server/lock_vars.h"

#include <string>

#include "storage/lock/lock_manager.h"
#include "vars/status_vars.h"
#include "vars/sys_vars.h"

namespace sluice::server {
namespace {

using vars::SetScope;
using vars::VariableSpec;
using vars::VarScope;

bool IsGlobal(SetScope scope) { return scope == SetScope::kGlobal || scope == SetScope::kPersist; }

}  // namespace

Status RegisterLockVariables(vars::SystemVariables& sys, vars::StatusVariables& status,
                             storage::LockManager& locks) {
  storage::LockConfig& cfg = locks.config();
  auto on_global = [](auto apply) {
    return [apply](SetScope scope, const sql::Value& v, vars::SessionVariables*) {
      if (IsGlobal(scope)) apply(v);
    };
  };
  SLUICE_RETURN_IF_ERROR(sys.Register(
      VariableSpec::Bool("innodb_deadlock_detect", VarScope::kGlobal, true,
                         "Detect deadlocks and roll back the lighter transaction with error 1213. "
                         "OFF relies on innodb_lock_wait_timeout alone.")
          .OnUpdate(on_global([&cfg](const sql::Value& v) { cfg.set_deadlock_detect(v.ToInt() != 0); }))));
  SLUICE_RETURN_IF_ERROR(sys.Register(
      VariableSpec::Bool("sluice_deadlock_detect_inline", VarScope::kGlobal, true,
                         "Also look for a cycle when a lock request starts to wait, so a deadlock "
                         "is broken at once; the background detector runs either way.")
          .OnUpdate(on_global([&cfg](const sql::Value& v) { cfg.set_inline_deadlock_detect(v.ToInt() != 0); }))));
  SLUICE_RETURN_IF_ERROR(sys.Register(
      VariableSpec::Bool("innodb_print_all_deadlocks", VarScope::kGlobal, false,
                         "Write every deadlock report to the error log. Reports are formatted and "
                         "written off the lock path and rate-limited, so ON costs no throughput.")
          .OnUpdate(on_global([&cfg](const sql::Value& v) { cfg.set_print_all_deadlocks(v.ToInt() != 0); }))));
  SLUICE_RETURN_IF_ERROR(sys.Register(
      VariableSpec::Bool("innodb_rollback_on_timeout", VarScope::kGlobal, false,
                         "ON: a lock wait timeout rolls back the whole transaction; OFF: only the "
                         "statement that timed out.")
          .ReadOnly()));
  SLUICE_RETURN_IF_ERROR(sys.Register(
      VariableSpec::Enum("sluice_lock_schedule", VarScope::kGlobal, {"CATS", "FIFO"}, "CATS",
                         "Which waiting lock a release grants: CATS, the one whose transaction "
                         "blocks the most others (ties by wait time), or FIFO, arrival order.")
          .OnUpdate(on_global([&cfg](const sql::Value& v) {
            storage::SchedulePolicy p;
            if (storage::ParseSchedulePolicy(v.ToString(), &p)) cfg.set_schedule(p);
          }))));
  SLUICE_RETURN_IF_ERROR(sys.AddHooks(
      "innodb_lock_wait_timeout", nullptr,
      on_global([&cfg](const sql::Value& v) { cfg.set_lock_wait_timeout_ms(v.ToUInt() * 1000); })));

  storage::LockManager* lm = &locks;
  auto counter = [&status, lm](const char* name, const char* help, auto field) {
    return status.RegisterProvider(name, help, [lm, field](const vars::SessionStatus*) {
      return std::to_string(field(lm->Counters()));
    });
  };
  using C = storage::LockCounters;
  SLUICE_RETURN_IF_ERROR(counter("Innodb_row_lock_waits", "Row lock requests that had to wait.",
                                 [](const C& c) { return c.row_lock_waits; }));
  SLUICE_RETURN_IF_ERROR(counter("Innodb_row_lock_current_waits", "Row lock requests waiting now.",
                                 [](const C& c) { return c.row_lock_current_waits; }));
  SLUICE_RETURN_IF_ERROR(counter("Innodb_row_lock_time", "Milliseconds spent waiting for row locks.",
                                 [](const C& c) { return c.row_lock_time_ms; }));
  SLUICE_RETURN_IF_ERROR(counter("Innodb_row_lock_time_avg", "Average row lock wait, milliseconds.",
                                 [](const C& c) { return c.row_lock_time_avg_ms; }));
  SLUICE_RETURN_IF_ERROR(counter("Innodb_row_lock_time_max", "Longest row lock wait, milliseconds.",
                                 [](const C& c) { return c.row_lock_time_max_ms; }));
  SLUICE_RETURN_IF_ERROR(counter("Innodb_deadlocks", "Deadlocks detected and broken.",
                                 [](const C& c) { return c.deadlocks; }));
  return Status::OK();
}

void ApplyLockVariables(vars::SystemVariables& sys, storage::LockManager& locks) {
  storage::LockConfig& cfg = locks.config();
  auto get = [&sys](const char* name) { return sys.Get(name, vars::GetScope::kGlobal, nullptr); };
  if (auto v = get("innodb_lock_wait_timeout"); v.ok()) cfg.set_lock_wait_timeout_ms(v->ToUInt() * 1000);
  if (auto v = get("innodb_deadlock_detect"); v.ok()) cfg.set_deadlock_detect(v->ToInt() != 0);
  if (auto v = get("sluice_deadlock_detect_inline"); v.ok()) cfg.set_inline_deadlock_detect(v->ToInt() != 0);
  if (auto v = get("innodb_print_all_deadlocks"); v.ok()) cfg.set_print_all_deadlocks(v->ToInt() != 0);
  if (auto v = get("innodb_rollback_on_timeout"); v.ok()) cfg.set_rollback_on_timeout(v->ToInt() != 0);
  if (auto v = get("sluice_lock_schedule"); v.ok()) {
    storage::SchedulePolicy p;
    if (storage::ParseSchedulePolicy(v->ToString(), &p)) cfg.set_schedule(p);
  }
}

}  // namespace sluice::server
