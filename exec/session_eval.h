// exec/session_eval.h
//
// SessionEval: what expressions see of a session and the server (the
// sql::EvalContext statements evaluate in): variables, the user and
// database, LAST_INSERT_ID(), the statement's '?' parameters, SHOW's rows
// for SHOW ... WHERE, and SLEEP() that KILL QUERY, max_execution_time and
// shutdown end.
//
// Thread-safety: the statement's thread only, as its SessionContext.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "exec/session_context.h"
#include "sql/eval.h"

namespace sluice::vars {
enum class GetScope : uint8_t;  // vars/sys_vars.h
}  // namespace sluice::vars

namespace sluice::exec {

class ExecEnv;

class SessionEval : public sql::EvalContext {
 public:
  SessionEval(const ExecEnv& env, SessionContext& ctx);

  // The values bound to the statement's '?'s (prepared statements); null:
  // none, and a '?' is error 1210.
  void SetParams(const std::vector<sql::Value>* params) { params_ = params; }

  // Column values for SHOW ... WHERE.
  void SetRow(const std::vector<std::string>* names, const std::vector<std::optional<std::string>>* row) {
    names_ = names;
    row_ = row;
  }

  Result<sql::Value> GetSystemVariable(std::string_view name, sql::VarScope scope) override;
  sql::Value GetUserVariable(std::string_view name) override;
  void SetUserVariable(std::string_view name, const sql::Value& v) override;
  Result<sql::Value> GetColumn(const sql::Expr& column) override;
  Result<sql::Value> GetParameter(int index) override;
  std::optional<std::string> CurrentDatabase() override;
  std::string User() override { return ctx_.user + "@" + ctx_.host; }
  std::string CurrentUser() override { return ctx_.priv_user + "@" + ctx_.priv_host; }
  uint64_t ConnectionId() override { return ctx_.connection_id; }
  uint64_t LastInsertId() override { return ctx_.last_insert_id; }
  void SetLastInsertId(uint64_t id) override { ctx_.last_insert_id = id; }
  std::string ServerVersion() override;
  int64_t RowCount() override { return ctx_.row_count; }
  int64_t FoundRows() override { return static_cast<int64_t>(ctx_.found_rows); }
  std::chrono::system_clock::time_point StatementTime() override { return statement_time_; }
  uint64_t MaxAllowedPacket() override;
  Status Warn(const er::Error& condition, std::string message) override;
  bool FirstWarningFrom(const void* source) override;
  Status CheckInterrupt() override { return ctx_.CheckInterrupt(); }
  bool SleepFor(std::chrono::nanoseconds d) override;
  // GTID_SUBSET, GTID_SUBTRACT, WAIT_FOR_EXECUTED_GTID_SET,
  // SOURCE_POS_WAIT / MASTER_POS_WAIT, and the user-level locks.
  bool IsServerFunction(std::string_view name) const override;
  Result<sql::Value> CallServerFunction(std::string_view name, std::vector<sql::Value>& args) override;

 private:
  const ExecEnv& env_;
  SessionContext& ctx_;
  // The clock at the statement's start, or SET TIMESTAMP's time.
  const std::chrono::system_clock::time_point statement_time_;
  const std::vector<std::string>* names_ = nullptr;
  const std::vector<std::optional<std::string>>* row_ = nullptr;
  const std::vector<sql::Value>* params_ = nullptr;
  // The constants that warned in this statement (FirstWarningFrom).
  std::vector<const void*> warned_from_;
};

// The variables' scope for a sql::VarScope (@@GLOBAL., @@SESSION., @@).
vars::GetScope ToGetScope(sql::VarScope s);

}  // namespace sluice::exec
