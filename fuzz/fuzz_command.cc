// fuzz/fuzz_command.cc
//
// libFuzzer target: every COM_* body the server decodes after login. The
// first byte is the command byte, as on the wire; the rest is its body:
//   COM_STMT_EXECUTE      header, then the parameter block for a statement
//                         whose parameter count, long-data marks and
//                         previously bound types come from the first three
//                         body bytes (the server takes them from the
//                         prepared statement); values become sql::Values
//                         as the executor converts them, and are printed,
//                         compared and grouped;
//   COM_STMT_SEND_LONG_DATA, COM_STMT_FETCH, COM_STMT_CLOSE, COM_STMT_RESET,
//   COM_CHANGE_USER, COM_BINLOG_DUMP, COM_BINLOG_DUMP_GTID (and its GTID
//   set, whose encoding must round-trip), COM_REGISTER_SLAVE,
//   COM_FIELD_LIST, COM_SET_OPTION, COM_PROCESS_KILL.
// COM_QUERY and COM_STMT_PREPARE carry SQL text: fuzz_sql's part.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "binlog/gtid.h"
#include "protocol/command.h"
#include "protocol/constants.h"
#include "protocol/handshake.h"
#include "protocol/stmt.h"
#include "sql/eval.h"
#include "sql/value.h"

namespace {

using namespace sluice;
namespace p = sluice::protocol;

void Check(bool cond) {
  if (!cond) std::abort();
}

bool IsBlob(p::ColumnType t) {
  return t == p::MYSQL_TYPE_TINY_BLOB || t == p::MYSQL_TYPE_MEDIUM_BLOB || t == p::MYSQL_TYPE_LONG_BLOB ||
         t == p::MYSQL_TYPE_BLOB;
}

// The executor's conversion (exec/prepared.cc ParamToValue).
sql::Value ToValue(const p::ParamValue& v, const p::ParamType& type, const std::optional<std::string>& long_data) {
  using Kind = p::ParamValue::Kind;
  switch (v.kind) {
    case Kind::kNull: return sql::Value::Null();
    case Kind::kInt: return sql::Value::Int(v.i);
    case Kind::kUInt: return sql::Value::UInt(v.u);
    case Kind::kDouble: return sql::Value::Double(v.d);
    case Kind::kDecimal:
      if (auto d = sql::Decimal::Parse(v.text)) return sql::Value::Dec(*d);
      return sql::Value::String(v.text);
    case Kind::kString: return sql::Value::String(v.text);
    case Kind::kBlob: return sql::Value::String(v.text, /*binary=*/true);
    case Kind::kDate: return sql::Value::Typed(v.text, sql::StringType::kDate);
    case Kind::kDatetime: return sql::Value::Typed(v.text, sql::StringType::kDatetime);
    case Kind::kTime: return sql::Value::Typed(v.text, sql::StringType::kTime);
    case Kind::kLongData: return sql::Value::String(long_data.value_or(std::string()), IsBlob(type.type));
  }
  return sql::Value::Null();
}

void StmtExecute(std::string_view body) {
  if (body.size() < 3) return;
  const size_t n = static_cast<uint8_t>(body[0]);
  const uint8_t long_bits = static_cast<uint8_t>(body[1]);
  const bool bound_before = body[2] & 1;
  body.remove_prefix(3);
  p::StmtExecuteHeader h;
  if (!p::ParseStmtExecuteHeader(body, &h)) return;
  std::vector<bool> has_long(n);
  std::vector<std::optional<std::string>> long_data(n);
  for (size_t i = 0; i < n && i < 8; ++i) {
    has_long[i] = (long_bits >> i) & 1;
    if (has_long[i]) long_data[i] = std::string(i, 'x');
  }
  std::vector<p::ParamType> types;
  if (bound_before) types.assign(n, p::ParamType{p::MYSQL_TYPE_LONGLONG, false});
  std::vector<p::ParamValue> values;
  Status st = p::DecodeStmtParams(h.params, n, has_long, &types, &values);
  if (!st.ok()) {
    Check(st.mysql_errno() != 0);
    return;
  }
  Check(values.size() == n && types.size() == n);
  std::vector<sql::Value> params;
  for (size_t i = 0; i < n; ++i) params.push_back(ToValue(values[i], types[i], long_data[i]));
  for (size_t i = 0; i < n; ++i) {
    const sql::Value& v = params[i];
    (void)v.ToString();
    (void)v.ToDouble();
    (void)sql::GroupingKey(v);
    (void)sql::CompareValues(v, v);
    if (i > 0) (void)sql::CompareValues(params[i - 1], v);
  }
}

void BinlogDumpGtid(std::string_view body) {
  auto req = p::ParseBinlogDumpGtid(body);
  if (!req.ok() || !req->has_gtid_data) return;
  auto set = binlog::GtidSet::Decode(req->gtid_data);
  if (!set.ok()) return;
  (void)set->ToString();
  auto again = binlog::GtidSet::Decode(set->Encode());
  Check(again.ok() && again.value() == set.value());
  auto text = binlog::GtidSet::Parse(set->ToString(","));
  Check(text.ok() && text.value() == set.value());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0]) {
    case p::COM_STMT_EXECUTE:
      StmtExecute(body);
      break;
    case p::COM_STMT_SEND_LONG_DATA: {
      p::StmtLongData ld;
      (void)p::ParseStmtLongData(body, &ld);
      break;
    }
    case p::COM_STMT_FETCH: {
      p::StmtFetch f;
      (void)p::ParseStmtFetch(body, &f);
      break;
    }
    case p::COM_STMT_CLOSE:
    case p::COM_STMT_RESET:
      (void)p::ParseStatementId(body);
      break;
    case p::COM_CHANGE_USER:
      (void)p::ParseChangeUser(body, p::kServerCapabilities);
      (void)p::ParseChangeUser(body, p::CLIENT_PROTOCOL_41);
      break;
    case p::COM_BINLOG_DUMP:
      (void)p::ParseBinlogDump(body);
      break;
    case p::COM_BINLOG_DUMP_GTID:
      BinlogDumpGtid(body);
      break;
    case p::COM_REGISTER_SLAVE:
      (void)p::ParseRegisterReplica(body);
      break;
    case p::COM_FIELD_LIST:
      (void)p::ParseFieldList(body);
      break;
    case p::COM_SET_OPTION:
      (void)p::ParseSetOption(body);
      break;
    case p::COM_PROCESS_KILL:
      (void)p::ParseProcessKill(body);
      break;
    default:
      break;
  }
  return 0;
}
