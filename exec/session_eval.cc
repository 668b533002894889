#include "exec/session_eval.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "base/mysql_error.h"
#include "base/strings.h"
#include "base/version.h"
#include "binlog/binlog.h"
#include "binlog/gtid.h"
#include "exec/exec_env.h"
#include "exec/settings.h"
#include "vars/core_vars.h"
#include "vars/sys_vars.h"

namespace sluice::exec {

vars::GetScope ToGetScope(sql::VarScope s) {
  switch (s) {
    case sql::VarScope::kGlobal: return vars::GetScope::kGlobal;
    case sql::VarScope::kSession: return vars::GetScope::kSession;
    default: return vars::GetScope::kDefault;
  }
}

SessionEval::SessionEval(const ExecEnv& env, SessionContext& ctx)
    : env_(env),
      ctx_(ctx),
      statement_time_(Settings::Of(env.sys_vars(), ctx).fixed_time.value_or(std::chrono::system_clock::now())) {}

Result<sql::Value> SessionEval::GetSystemVariable(std::string_view name, sql::VarScope scope) {
  return env_.sys_vars().Get(name, ToGetScope(scope), ctx_.vars.get());
}

sql::Value SessionEval::GetUserVariable(std::string_view name) {
  auto it = ctx_.user_vars.find(base::AsciiLower(name));
  if (it == ctx_.user_vars.end()) return sql::Value::Null();
  return it->second;
}

void SessionEval::SetUserVariable(std::string_view name, const sql::Value& v) {
  ctx_.user_vars[base::AsciiLower(name)] = v;
}

Result<sql::Value> SessionEval::GetColumn(const sql::Expr& column) {
  if (names_ && row_) {
    for (size_t i = 0; i < names_->size(); ++i) {
      if (base::AsciiLower((*names_)[i]) == base::AsciiLower(column.name)) {
        const auto& cell = (*row_)[i];
        return cell ? sql::Value::String(*cell) : sql::Value::Null();
      }
    }
  }
  return MakeError(er::kBadField, column.name, names_ ? "where clause" : "field list");
}

Result<sql::Value> SessionEval::GetParameter(int index) {
  if (params_ == nullptr || index < 0 || static_cast<size_t>(index) >= params_->size()) {
    return sql::EvalContext::GetParameter(index);
  }
  return (*params_)[index];
}

std::optional<std::string> SessionEval::CurrentDatabase() {
  if (ctx_.db.empty()) return std::nullopt;
  return ctx_.db;
}

std::string SessionEval::ServerVersion() {
  return ctx_.mariadb_binlog_client ? kMariadbBinlogVersion : kServerVersion;
}

uint64_t SessionEval::MaxAllowedPacket() {
  // The global value: the session's is read-only and equal to it (MySQL).
  return Settings::Of(env_.sys_vars(), ctx_).max_allowed_packet;
}

namespace {

// The conditions strict mode makes errors in INSERT, REPLACE, UPDATE and
// DELETE (MySQL's list, as far as the evaluator raises them).
bool StrictModeError(uint16_t code) {
  switch (code) {
    case 1210:  // ER_WRONG_ARGUMENTS
    case 1264:  // ER_WARN_DATA_OUT_OF_RANGE
    case 1292:  // ER_TRUNCATED_WRONG_VALUE
    case 1365:  // ER_DIVISION_BY_ZERO (with ERROR_FOR_DIVISION_BY_ZERO)
    case 1411:  // ER_WRONG_VALUE_FOR_TYPE
    case 1441:  // ER_DATETIME_FUNCTION_OVERFLOW
      return true;
    default:
      return false;
  }
}

}  // namespace

bool SessionEval::FirstWarningFrom(const void* source) {
  // A statement has few constants that warn: a short list is enough.
  if (std::find(warned_from_.begin(), warned_from_.end(), source) != warned_from_.end()) return false;
  warned_from_.push_back(source);
  return true;
}

Status SessionEval::Warn(const er::Error& condition, std::string message) {
  if (condition.code == er::kDivisionByZero.code) {
    // Without ERROR_FOR_DIVISION_BY_ZERO a division by zero is NULL and
    // says nothing, in any statement (MySQL 8.0).
    const uint64_t mode = Settings::Of(env_.sys_vars(), ctx_).sql_mode;
    if ((mode & vars::sql_mode::kErrorForDivisionByZero) == 0) return Status::OK();
  }
  if (ctx_.strict_statement && StrictModeError(condition.code)) {
    return Status::MySQL(condition.code, condition.sqlstate, std::move(message));
  }
  ctx_.warnings.push_back({Warning::Level::kWarning, condition.code, std::move(message)});
  return Status::OK();
}

namespace {

Status WrongArgCount(std::string_view name) { return MakeError(er::kWrongParamcountToNativeFct, std::string(name)); }

// A wait of `seconds` from now; nullopt (for ever) when `forever_if`.
std::optional<std::chrono::steady_clock::time_point> DeadlineAfter(double seconds, bool forever_if) {
  if (forever_if) return std::nullopt;
  const double capped = std::min(seconds, 365.0 * 24 * 3600);
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(capped));
}

}  // namespace

bool SessionEval::IsServerFunction(std::string_view name) const {
  static constexpr std::string_view kNames[] = {
      "GTID_SUBSET",  "GTID_SUBTRACT", "WAIT_FOR_EXECUTED_GTID_SET", "SOURCE_POS_WAIT", "MASTER_POS_WAIT",
      "GET_LOCK",     "RELEASE_LOCK",  "RELEASE_ALL_LOCKS",          "IS_FREE_LOCK",    "IS_USED_LOCK"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

Result<sql::Value> SessionEval::CallServerFunction(std::string_view name, std::vector<sql::Value>& args) {
  using sql::Value;
  const size_t n = args.size();
  auto any_null = [&] { return std::any_of(args.begin(), args.end(), [](const Value& v) { return v.is_null(); }); };
  auto interrupted = [&] {
    return ctx_.kill_state() != KillState::kNone || ctx_.DeadlinePassed() || env_.control().shutting_down();
  };
  // The statement's error for a wait that ended early: KILL or
  // max_execution_time.
  auto wait_error = [&]() -> Status {
    Status st = ctx_.CheckInterrupt();
    return st.ok() ? MakeError(er::kQueryInterrupted) : st;
  };
  // GTID sets (MySQL 8.0's GTID_SUBSET, GTID_SUBTRACT): 1772 for a
  // malformed set.
  if (name == "GTID_SUBSET" || name == "GTID_SUBTRACT") {
    if (n != 2) return WrongArgCount(name);
    if (any_null()) return Value::Null();
    Result<binlog::GtidSet> a = binlog::GtidSet::Parse(args[0].ToString());
    if (!a.ok()) return a.status();
    Result<binlog::GtidSet> b = binlog::GtidSet::Parse(args[1].ToString());
    if (!b.ok()) return b.status();
    if (name == "GTID_SUBSET") return Value::Bool(b->Contains(*a));
    a->Remove(*b);
    return Value::String(a->ToString());
  }
  // WAIT_FOR_EXECUTED_GTID_SET(set [, timeout]): 0 once every GTID of the
  // set has committed here, 1 when `timeout` seconds passed first (none or
  // 0: no limit).
  if (name == "WAIT_FOR_EXECUTED_GTID_SET") {
    if (n < 1 || n > 2) return WrongArgCount(name);
    if (args[0].is_null()) return Value::Null();
    Result<binlog::GtidSet> want = binlog::GtidSet::Parse(args[0].ToString());
    if (!want.ok()) return want.status();
    const double timeout = n == 2 && !args[1].is_null() ? args[1].ToDouble() : 0;
    if (timeout < 0) return MakeError(er::kWrongArguments, "WAIT_FOR_EXECUTED_GTID_SET.");
    const auto deadline = DeadlineAfter(timeout, timeout == 0);
    for (;;) {
      if (env_.binlog() != nullptr && env_.binlog()->gtid_executed().Contains(*want)) return Value::Int(0);
      if (deadline && std::chrono::steady_clock::now() >= *deadline) return Value::Int(1);
      if (interrupted()) return wait_error();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  // This server replicates from nobody: a wait for a source position is
  // NULL at once, as on a MySQL server whose replication is not running.
  if (name == "SOURCE_POS_WAIT" || name == "MASTER_POS_WAIT") {
    if (n < 2 || n > 4) return WrongArgCount(name);
    return Value::Null();
  }
  // User-level locks (exec/user_locks.h).
  UserLocks& locks = env_.user_locks();
  auto lock_name = [&](const Value& v) -> Result<std::string> {
    if (v.is_null()) return MakeError(er::kUserLockWrongName, "NULL");
    std::string text = v.ToString();
    SLUICE_RETURN_IF_ERROR(UserLocks::CheckName(text));
    return text;
  };
  if (name == "GET_LOCK") {
    if (n != 2) return WrongArgCount(name);
    Result<std::string> lock = lock_name(args[0]);
    if (!lock.ok()) return lock.status();
    // Seconds; a negative timeout waits for ever.
    const double timeout = args[1].is_null() ? 0 : args[1].ToDouble();
    Result<UserLocks::Outcome> got =
        locks.Acquire(ctx_.connection_id, *lock, DeadlineAfter(std::max(timeout, 0.0), timeout < 0), interrupted);
    if (!got.ok()) return got.status();
    switch (*got) {
      case UserLocks::Outcome::kAcquired: return Value::Int(1);
      case UserLocks::Outcome::kTimedOut: return Value::Int(0);
      case UserLocks::Outcome::kInterrupted: return wait_error();
    }
    return Value::Null();
  }
  if (name == "RELEASE_LOCK" || name == "IS_FREE_LOCK" || name == "IS_USED_LOCK") {
    if (n != 1) return WrongArgCount(name);
    Result<std::string> lock = lock_name(args[0]);
    if (!lock.ok()) return lock.status();
    if (name == "RELEASE_LOCK") {
      std::optional<bool> released = locks.Release(ctx_.connection_id, *lock);
      return released ? Value::Bool(*released) : Value::Null();
    }
    std::optional<uint64_t> holder = locks.Holder(*lock);
    if (name == "IS_FREE_LOCK") return Value::Bool(!holder);
    return holder ? Value::UInt(*holder) : Value::Null();
  }
  if (name == "RELEASE_ALL_LOCKS") {
    if (n != 0) return WrongArgCount(name);
    return Value::UInt(locks.ReleaseAll(ctx_.connection_id));
  }
  return EvalContext::CallServerFunction(name, args);  // not one (IsServerFunction says which)
}

bool SessionEval::SleepFor(std::chrono::nanoseconds d) {
  auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
    // max_execution_time ends the sleep as KILL QUERY does; the statement
    // itself ends without an error when SLEEP() was all it did (MySQL).
    if (ctx_.DeadlinePassed()) return false;
    KillState k = ctx_.kill_state();
    if (k == KillState::kQuery) {
      // MySQL: an interrupted SLEEP() returns 1 and, being all the query
      // did, the query ends without an error. The KILL QUERY is spent.
      int expected = static_cast<int>(KillState::kQuery);
      ctx_.killed.compare_exchange_strong(expected, static_cast<int>(KillState::kNone));
      return false;
    }
    if (k != KillState::kNone || env_.control().shutting_down()) return false;
    auto left = until - std::chrono::steady_clock::now();
    if (auto deadline = ctx_.statement_deadline()) left = std::min(left, *deadline - std::chrono::steady_clock::now());
    left = std::max<std::chrono::nanoseconds>(left, std::chrono::nanoseconds(0));
    std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(left, std::chrono::milliseconds(10)));
  }
  return true;
}

}  // namespace sluice::exec
