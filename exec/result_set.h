// exec/result_set.h
//
// What running one statement produces (an OK, an error, or a text result
// set) and the helpers that build result sets; the server encodes them
// for the wire (server/executor.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "protocol/constants.h"
#include "protocol/response.h"
#include "protocol/text_rows.h"
#include "sql/value.h"

namespace sluice::exec {
namespace p = sluice::protocol;

// A text result set under construction. Its rows are kept in the text
// protocol's form (protocol/text_rows.h): a producer writes cells in place
// with rows.Open() ... rows.Close(), or adds a row of values with
// rows.push_back({...}).
struct ResultSet {
  std::vector<p::ColumnDefinition> columns;
  p::TextRows rows;

  void AddTextColumn(std::string name, uint32_t length = 256) {
    p::ColumnDefinition c;
    c.name = c.org_name = std::move(name);
    c.collation = p::kCollationUtf8GeneralCi;
    c.length = length * 3;
    c.type = p::MYSQL_TYPE_VAR_STRING;
    c.decimals = 0x1f;
    columns.push_back(std::move(c));
  }
  void AddIntColumn(std::string name, bool is_unsigned = true) {
    p::ColumnDefinition c;
    c.name = c.org_name = std::move(name);
    c.collation = p::kCollationBinary;
    c.length = 21;
    c.type = p::MYSQL_TYPE_LONGLONG;
    c.flags = p::NOT_NULL_FLAG | p::BINARY_FLAG | p::NUM_FLAG | (is_unsigned ? p::UNSIGNED_FLAG : 0);
    columns.push_back(std::move(c));
  }
};

// The column a computed value gets in a result set, from its kind.
inline p::ColumnDefinition ColumnFor(const std::string& name, const sql::Value& v) {
  p::ColumnDefinition c;
  c.name = name;
  switch (v.kind()) {
    case sql::ValueKind::kNull:
      c.type = p::MYSQL_TYPE_NULL;
      c.collation = p::kCollationBinary;
      c.flags = p::BINARY_FLAG;
      break;
    case sql::ValueKind::kInt:
    case sql::ValueKind::kUInt:
      c.type = p::MYSQL_TYPE_LONGLONG;
      c.collation = p::kCollationBinary;
      c.length = 21;
      c.flags = p::BINARY_FLAG | p::NUM_FLAG |
                (v.kind() == sql::ValueKind::kUInt ? p::UNSIGNED_FLAG : 0);
      break;
    case sql::ValueKind::kDouble:
      c.type = p::MYSQL_TYPE_DOUBLE;
      c.collation = p::kCollationBinary;
      c.length = 23;
      c.decimals = 0x1f;
      c.flags = p::BINARY_FLAG | p::NUM_FLAG;
      break;
    case sql::ValueKind::kDecimal:
      c.type = p::MYSQL_TYPE_NEWDECIMAL;
      c.collation = p::kCollationBinary;
      c.decimals = v.decimal_value().scale;
      c.length = 67;
      c.flags = p::BINARY_FLAG | p::NUM_FLAG;
      break;
    case sql::ValueKind::kString:
      if (v.is_temporal()) {
        // A date, time or datetime (NOW(), CURDATE(), DATE'...', CAST AS
        // DATE, DATE_ADD ...) is described as one, as MySQL does, so that
        // clients read a date, not a string; its fractional digits are the
        // column's decimals.
        const std::string& text = v.string_value();
        const size_t dot = text.find('.');
        const uint32_t fsp = dot == std::string::npos ? 0 : static_cast<uint32_t>(text.size() - dot - 1);
        c.collation = p::kCollationBinary;
        c.flags = p::BINARY_FLAG;
        c.decimals = static_cast<uint8_t>(fsp);
        switch (v.string_type()) {
          case sql::StringType::kDate:
            c.type = p::MYSQL_TYPE_DATE;
            c.length = 10;
            break;
          case sql::StringType::kTime:
            c.type = p::MYSQL_TYPE_TIME;
            c.length = 10 + (fsp > 0 ? fsp + 1 : 0);
            break;
          default:
            c.type = p::MYSQL_TYPE_DATETIME;
            c.length = 19 + (fsp > 0 ? fsp + 1 : 0);
            break;
        }
        break;
      }
      c.type = p::MYSQL_TYPE_VAR_STRING;
      c.collation = v.is_binary() ? p::kCollationBinary : p::kCollationUtf8mb4_0900_ai_ci;
      c.length = static_cast<uint32_t>(std::max<size_t>(v.string_value().size(), 1) * 4);
      c.decimals = 0x1f;
      if (v.is_binary()) c.flags = p::BINARY_FLAG;
      break;
  }
  return c;
}

inline std::optional<std::string> CellOf(const sql::Value& v) {
  if (v.is_null()) return std::nullopt;
  return v.ToString();
}

// The same written into a row in place (a string is not copied first).
inline void AppendCell(const sql::Value& v, p::TextRows::RowWriter* w) {
  if (v.is_null()) {
    w->Null();
  } else if (v.kind() == sql::ValueKind::kString) {
    w->Cell(v.string_value());
  } else {
    w->Cell(v.ToString());
  }
}

// The result of one statement.
struct Outcome {
  uint64_t last_insert_id = 0;      // the OK packet's (AUTO_INCREMENT)
  Status error;                   // not OK: an ERR packet
  std::optional<ResultSet> result;
  uint64_t affected_rows = 0;
  std::string info;
  bool close_connection = false;
};

}  // namespace sluice::exec
