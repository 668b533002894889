// exec/prepared.h
//
// Prepared statements: what COM_STMT_PREPARE and SQL PREPARE keep per
// session (the parsed statement, its result columns as known at prepare
// time, the parameter types the client bound last, long data), the
// per-session store they share (statement ids from one per-connection
// counter starting at 1; SQL names compare ignoring case), and the
// conversion of binary-protocol parameter values to sql::Value.
//
// The commands themselves are Executor members (server/prepared_commands.cc).
//
// Thread-safety: a PreparedStatements belongs to one session and is used by
// one thread at a time; the global count it keeps (Prepared_stmt_count) is
// an atomic shared by all sessions.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/mysql_error.h"
#include "base/status.h"
#include "protocol/response.h"
#include "protocol/stmt.h"
#include "sql/parser.h"
#include "sql/value.h"

namespace sluice::exec {

// Prepared-statement errors (base/mysql_error.h).
using er::kErrMaxPreparedStmtCountReached;
using er::kErrStmtHasNoOpenCursor;
using er::kErrUnknownStmtHandler;
using er::kErrUnsupportedPs;

struct PreparedStatement {
  uint32_t id = 0;
  std::string name;  // SQL PREPARE name as given; "" for COM_STMT_PREPARE
  // The statement text; `parsed` points into it, so a PreparedStatement is
  // never moved once parsed (the store holds it by unique_ptr).
  std::string text;
  sql::ParsedStatement parsed;
  // The result columns sent at prepare time (empty: none known then, or no
  // result set); COM_STMT_EXECUTE sends the columns of each execution.
  std::vector<protocol::ColumnDefinition> columns;
  // The types of the last COM_STMT_EXECUTE that sent them.
  std::vector<protocol::ParamType> param_types;
  // COM_STMT_SEND_LONG_DATA per parameter since the last execute / reset.
  std::vector<std::optional<std::string>> long_data;
  // A bad COM_STMT_SEND_LONG_DATA (no reply is possible): the next execute
  // reports it.
  Status long_data_error;

  int param_count() const { return parsed.param_count; }
};

class PreparedStatements {
 public:
  PreparedStatements() = default;
  ~PreparedStatements();
  PreparedStatements(const PreparedStatements&) = delete;
  PreparedStatements& operator=(const PreparedStatements&) = delete;

  // Where the server counts every session's statements (Prepared_stmt_count).
  void BindGlobalCount(std::atomic<int64_t>* count) { global_ = count; }

  // The id the next statement gets (per connection, from 1; MySQL spends
  // one on every prepare attempt).
  uint32_t TakeId() { return next_id_++; }

  // Adds `stmt` unless the server already holds `max` statements (then
  // 1461). With a name, a statement of the same name (any case) was removed
  // by the caller first.
  Result<PreparedStatement*> Add(std::unique_ptr<PreparedStatement> stmt, uint64_t max);

  PreparedStatement* Find(uint32_t id);
  PreparedStatement* FindByName(std::string_view name);
  bool Remove(uint32_t id);
  // Every statement (COM_CHANGE_USER, COM_RESET_CONNECTION, session end).
  void Clear();
  size_t size() const { return by_id_.size(); }

 private:
  std::map<uint32_t, std::unique_ptr<PreparedStatement>> by_id_;
  std::atomic<int64_t>* global_ = nullptr;
  uint32_t next_id_ = 1;
};

// The SQL value a binary parameter binds to `?`: integers as Int/UInt by
// the UNSIGNED flag, FLOAT/DOUBLE as Double, DECIMAL as Dec, strings as
// text (BLOB types as binary strings, as mysqld gives them the binary
// character set), temporals as typed strings. kLongData takes `long_data`
// (binary when the bound type is a BLOB).
sql::Value ParamToValue(const protocol::ParamValue& v, const protocol::ParamType& type,
                        const std::optional<std::string>& long_data);

}  // namespace sluice::exec
