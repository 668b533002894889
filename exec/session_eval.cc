#include "exec/session_eval.h"

#include <algorithm>
#include <thread>

#include "base/mysql_error.h"
#include "base/strings.h"
#include "base/version.h"
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
