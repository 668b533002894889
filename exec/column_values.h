// exec/column_values.h
//
// Between the SQL layer's values (sql::Value) and the storage engine's
// column values (storage::RowValue, in the form storage/catalog/row_codec.h
// documents for each ColumnType), with MySQL 8.0's assignment and display
// rules; and between CREATE / ALTER TABLE's column and key definitions
// (sql::ColumnDefinition, sql::IndexSpec) and the catalog's (storage::ColumnDef,
// storage::IndexDef).
//
// Thread-safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "base/status.h"
#include "protocol/response.h"
#include "protocol/text_rows.h"
#include "sql/ast.h"
#include "sql/value.h"
#include "storage/catalog/row_codec.h"
#include "storage/catalog/table_def.h"

namespace sluice::exec {

// How an assignment treats a value that does not fit (sql_mode).
struct AssignContext {
  // STRICT_TRANS_TABLES / STRICT_ALL_TABLES in effect and not INSERT IGNORE:
  // a bad value is an error; otherwise it is adjusted with a warning.
  bool strict = true;
  // The 1-based row number for messages ("... at row N").
  uint64_t row_number = 1;
  // Receives warnings (code, message) when not strict (and notes).
  std::function<void(uint16_t code, std::string message)> warn;
};

// The engine value to store in column `c` for `v` (INSERT / UPDATE), as
// MySQL converts it:
//   - NULL into a NOT NULL column: 1048 "Column 'c' cannot be null" (the
//     caller decides when NULL means the default instead).
//   - integers: from numbers (DOUBLE/DECIMAL rounded half away from zero)
//     and from strings ('12' -> 12; '12abc' -> 1265/1366 as MySQL: strict
//     error 1366 "Incorrect integer value: '12abc' for column 'c' at row N",
//     otherwise 12 with warning 1265/1366); out of range: strict 1264 "Out
//     of range value for column 'c' at row N", else clipped with warning 1264.
//   - DECIMAL: text in the column's scale (rounded; 1264 when too large).
//   - FLOAT/DOUBLE: from numbers and numeric strings.
//   - CHAR/VARCHAR/TEXT/BINARY/BLOB: the value's string form; longer than the
//     column: strict 1406 "Data too long for column 'c' at row N", else cut
//     with warning 1265 (trailing spaces of CHAR/VARCHAR cut silently).
//     Length counts characters for text (utf8mb4), bytes for binary types.
//   - DATE/TIME/DATETIME/TIMESTAMP: from 'YYYY-MM-DD[ hh:mm:ss[.ffffff]]' and
//     the other forms MySQL accepts, and from numbers (20260102 ->
//     2026-01-02); invalid: strict 1292 "Incorrect date value: 'x' for
//     column 'c' at row N" (datetime/time likewise), else zero value with a
//     warning. Packed as row_codec.h's PackDate/PackDateTime/PackTime;
//     TIMESTAMP as row_codec.h documents it.
//   - YEAR: 1901..2155, 0, and 2-digit forms; ENUM: by member text (case-
//     insensitive) or by 1-based index; '' or unknown -> 1265 "Data
//     truncated for column 'c' at row N" (strict: error).
Result<storage::RowValue> ToColumnValue(const storage::ColumnDef& c, const sql::Value& v, AssignContext& cx);

// The SQL value of a stored column value: integers as kInt/kUInt, DECIMAL as
// kDecimal, FLOAT/DOUBLE as kDouble, text as a text string (binary types as
// binary strings), temporals as typed strings (StringType::kDate etc.) in
// MySQL's display form, ENUM as its member text, YEAR as an integer.
sql::Value FromColumnValue(const storage::ColumnDef& c, const storage::RowValue& v);

// The text-protocol cell for a stored value (nullopt for NULL), as mysqld
// prints it: DECIMAL with exactly `scale` digits, DATETIME(fsp)/TIME(fsp)
// with `fsp` fraction digits, FLOAT with 6 significant digits and DOUBLE
// with up to 17 (MySQL's %g-like shortest form), YEAR as 4 digits.
std::optional<std::string> ColumnText(const storage::ColumnDef& c, const storage::RowValue& v);
// The same written into a result row in place: a stored string (text,
// binary, DECIMAL, a temporal kept as text) goes in without a copy.
void AppendColumnCell(const storage::ColumnDef& c, const storage::RowValue& v, protocol::TextRows::RowWriter* w);

// Result-set metadata for column `c` of `table` (MYSQL_TYPE_*, length,
// flags NOT_NULL/PRI_KEY/UNIQUE_KEY/MULTIPLE_KEY/UNSIGNED/ZEROFILL/BINARY/
// AUTO_INCREMENT/ENUM/BLOB/NUM, decimals, character set), as mysqld sends it
// for `SELECT col FROM table`. `name` is the column's name in the result
// (an alias or the column name); org_name, table, org_table and schema are
// filled from `table`.
protocol::ColumnDefinition ColumnMetadata(const storage::TableDef& table, const storage::ColumnDef& c,
                                          std::string_view name);

// CREATE TABLE: the catalog column for `def` (MySQL's type mapping and
// defaults: INT's display width dropped, DECIMAL default (10,0), FLOAT(p)
// with p > 24 -> DOUBLE, SERIAL already folded by the parser, BOOL ->
// TINYINT(1)). The DEFAULT expression is evaluated by `eval_default` (a
// literal, a signed number, or an expression) and checked against the
// column like an assignment in strict mode (1067 "Invalid default value
// for 'c'" when it does not fit); CURRENT_TIMESTAMP becomes kCurrentTimestamp.
// `table_charset` / `table_collation` are the table's defaults. Errors:
// 1074 (CHAR/VARCHAR too long: suggest BLOB/TEXT), 1063/1067 as MySQL, and
// NotSupported-as-MySQL-error 1235 for SET, BIT, JSON and spatial types.
Result<storage::ColumnDef> ColumnFromDefinition(
    const sql::ColumnDefinition& def, std::string_view table_charset, std::string_view table_collation,
    const std::function<Result<sql::Value>(const sql::Expr&)>& eval_default);

// The DEFAULT `e` of column `*c` (a column definition's, or ALTER TABLE ...
// ALTER COLUMN c SET DEFAULT), checked as ColumnFromDefinition says (1067,
// 1101 for a BLOB/TEXT literal), stored in c->default_kind / default_value.
Status SetColumnDefault(storage::ColumnDef* c, const sql::Expr& e,
                        const std::function<Result<sql::Value>(const sql::Expr&)>& eval_default);

// Table options [DEFAULT] CHARSET x / COLLATE y, as MySQL resolves them,
// into options->charset / collation: a charset alone brings its default
// collation, a collation alone its charset ("" leaves a part unsaid; both
// "" change nothing). 1115 unknown charset, 1273 unknown collation, 1253
// a collation of another charset.
Status ApplyTableCharset(std::string_view charset, std::string_view collation, storage::TableOptions* options);

// The catalog index for an index definition of CREATE TABLE / ALTER TABLE
// ADD: PRIMARY KEY is the clustered "PRIMARY", UNIQUE and PRIMARY are
// unique; key parts by column name. `name` stays "" when the definition
// has none (see UnusedKeyName). 1235 for FULLTEXT and SPATIAL.
Result<storage::IndexDef> IndexFromSpec(const sql::IndexSpec& spec);

// The name MySQL gives an unnamed key: `base` (its first column), or base_2,
// base_3 ... when a key in `keys` (or PRIMARY) has it, ignoring case.
std::string UnusedKeyName(std::string_view base, const std::vector<storage::IndexDef>& keys);

// The column's type as SHOW CREATE TABLE and SHOW COLUMNS print it:
// "int", "int unsigned", "bigint", "decimal(10,2)", "varchar(120)",
// "char(60)", "datetime(6)", "enum('a','b')", "text", "varbinary(16)".
std::string ColumnTypeText(const storage::ColumnDef& c);

// `s` in single quotes as SHOW CREATE TABLE writes it ('' for a quote,
// backslash escapes for \\, NUL, newline, CR and ^Z).
std::string Quoted(std::string_view s);

// The column's DEFAULT as SHOW CREATE TABLE prints it ("DEFAULT NULL",
// "DEFAULT '0'", "DEFAULT CURRENT_TIMESTAMP(3)"), "" when it has none.
std::string ColumnDefaultClause(const storage::ColumnDef& c);

// The EXTRA of INFORMATION_SCHEMA.COLUMNS and SHOW COLUMNS: "auto_increment",
// "DEFAULT_GENERATED", "DEFAULT_GENERATED on update CURRENT_TIMESTAMP(3)".
std::string ColumnExtra(const storage::ColumnDef& c);

// The default value an INSERT that omits column `c` stores (its DEFAULT, NULL
// for a nullable column without one, the statement time for
// CURRENT_TIMESTAMP). For a NOT NULL column without a DEFAULT: strict 1364
// "Field 'c' doesn't have a default value", else the type's implicit default
// (0, '', zero date) with warning 1364.
Result<storage::RowValue> ColumnDefault(const storage::ColumnDef& c, AssignContext& cx,
                                        std::chrono::system_clock::time_point statement_time);

// The statement's time as column `c` (TIMESTAMP or DATETIME) stores it, its
// fraction cut to the column's fsp: CURRENT_TIMESTAMP(fsp).
Result<storage::RowValue> CurrentTimestampValue(const storage::ColumnDef& c, AssignContext& cx,
                                                std::chrono::system_clock::time_point statement_time);

// A flag per column of a table (by ordinal); up to 64 in place.
using ColumnFlags = boost::container::small_vector<bool, 64>;

// ON UPDATE CURRENT_TIMESTAMP: when an UPDATE (or INSERT ... ON DUPLICATE KEY
// UPDATE) changes the row from `before`, each such column that the statement
// did not assign (`assigned`, by ordinal) takes the statement's time. A row
// left as it was keeps its time, as MySQL does.
Status ApplyOnUpdateNow(const storage::TableDef& def, const storage::Row& before, const ColumnFlags& assigned,
                        storage::Row* updated, AssignContext& cx,
                        std::chrono::system_clock::time_point statement_time);

}  // namespace sluice::exec
