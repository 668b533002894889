#include "exec/prepared.h"

#include "base/mysql_error.h"
#include "sql/lexer.h"

namespace sluice::exec {
namespace p = sluice::protocol;

namespace {

bool IsBlob(p::ColumnType t) {
  return t == p::MYSQL_TYPE_TINY_BLOB || t == p::MYSQL_TYPE_MEDIUM_BLOB || t == p::MYSQL_TYPE_LONG_BLOB ||
         t == p::MYSQL_TYPE_BLOB;
}

}  // namespace

// ---------------------------------------------------------------- store

PreparedStatements::~PreparedStatements() { Clear(); }

Result<PreparedStatement*> PreparedStatements::Add(std::unique_ptr<PreparedStatement> stmt, uint64_t max) {
  if (global_ != nullptr) {
    int64_t now = global_->fetch_add(1, std::memory_order_relaxed) + 1;
    if (now < 0 || static_cast<uint64_t>(now) > max) {
      global_->fetch_sub(1, std::memory_order_relaxed);
      return MakeError(kErrMaxPreparedStmtCountReached, max);
    }
  } else if (by_id_.size() >= max) {
    return MakeError(kErrMaxPreparedStmtCountReached, max);
  }
  PreparedStatement* raw = stmt.get();
  by_id_[raw->id] = std::move(stmt);
  return raw;
}

PreparedStatement* PreparedStatements::Find(uint32_t id) {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second.get();
}

PreparedStatement* PreparedStatements::FindByName(std::string_view name) {
  for (auto& [id, stmt] : by_id_) {
    if (!stmt->name.empty() && sql::EqualsIgnoreCase(stmt->name, name)) return stmt.get();
  }
  return nullptr;
}

bool PreparedStatements::Remove(uint32_t id) {
  if (by_id_.erase(id) == 0) return false;
  if (global_ != nullptr) global_->fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void PreparedStatements::Clear() {
  if (global_ != nullptr) global_->fetch_sub(static_cast<int64_t>(by_id_.size()), std::memory_order_relaxed);
  by_id_.clear();
}

sql::Value ParamToValue(const p::ParamValue& v, const p::ParamType& type,
                        const std::optional<std::string>& long_data) {
  using Kind = p::ParamValue::Kind;
  switch (v.kind) {
    case Kind::kNull:
      return sql::Value::Null();
    case Kind::kInt:
      return sql::Value::Int(v.i);
    case Kind::kUInt:
      return sql::Value::UInt(v.u);
    case Kind::kDouble:
      return sql::Value::Double(v.d);
    case Kind::kDecimal:
      if (auto d = sql::Decimal::Parse(v.text)) return sql::Value::Dec(*d);
      return sql::Value::String(v.text);
    case Kind::kString:
      return sql::Value::String(v.text);
    case Kind::kBlob:
      return sql::Value::String(v.text, /*binary=*/true);
    case Kind::kDate:
      return sql::Value::Typed(v.text, sql::StringType::kDate);
    case Kind::kDatetime:
      return sql::Value::Typed(v.text, sql::StringType::kDatetime);
    case Kind::kTime:
      return sql::Value::Typed(v.text, sql::StringType::kTime);
    case Kind::kLongData:
      return sql::Value::String(long_data.value_or(std::string()), IsBlob(type.type));
  }
  return sql::Value::Null();
}

}  // namespace sluice::exec
