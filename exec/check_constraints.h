// exec/check_constraints.h
//
// Expressions a table definition keeps: CHECK constraints and generated
// columns.
//
// CHECK constraints (MySQL 8.0.16+): naming and validating them when a
// table is created or altered, and the parsed form a statement that writes
// rows evaluates on each (TableExecutor::EnforceChecks, 3819). The catalog
// keeps each expression as the user typed it (storage::CheckDef); SHOW
// CREATE TABLE and INFORMATION_SCHEMA print it as MySQL does ((`a` > 0)).
//
// Thread-safety: free functions over values the caller owns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sql/ast.h"
#include "storage/catalog/catalog.h"
#include "storage/catalog/table_def.h"

namespace sluice::exec {

// Appends `specs` to `def->checks`; `def`'s columns are final. An unnamed
// CHECK is named <table>_chk_<n>, n counting on from the highest such name
// the table has. Each expression is checked against the columns: 3820 an
// unknown column, 3813 a column's CHECK naming another column, 3818 an
// AUTO_INCREMENT column, 3816 a variable, 3814 a non-deterministic or
// aggregate function, 3815 a subquery or parameter. 3822 for a name the
// table already has or another table of `snapshot`'s schema has.
Status AddCheckConstraints(const std::vector<sql::CheckSpec>& specs, const storage::CatalogSnapshot& snapshot,
                           storage::TableDef* def);

// After an ALTER TABLE changed `def`'s columns: 3959 for a CHECK that uses
// a column no longer there (dropped or renamed), as MySQL refuses them.
Status CheckConstraintColumnsExist(const storage::TableDef& def);

// CREATE TABLE ... LIKE: the copied CHECKs get new generated names (names
// are unique in a schema).
void RenameCopiedChecks(storage::TableDef* def);

// An enforced CHECK, parsed.
struct ParsedCheck {
  std::string name;
  sql::ExprPtr expr;
};
// The enforced CHECKs of `def`, for a statement that writes its rows.
Result<std::vector<ParsedCheck>> ParseEnforcedChecks(const storage::TableDef& def);

// The expression as MySQL shows it in SHOW CREATE TABLE and
// INFORMATION_SCHEMA.CHECK_CONSTRAINTS: (`a` > 0).
std::string CheckClauseText(const storage::CheckDef& check);
// The same for any stored expression text (generated columns).
std::string ExprClauseText(std::string_view expr);

// Generated columns ([GENERATED ALWAYS] AS (expr) [VIRTUAL | STORED]), kept
// in the row and computed by the SQL layer on every write, in column order.
// Their expressions against `def`'s columns: 1054 an unknown column (3108
// naming it when `altering`: a column an ALTER dropped or renamed), 3107 a
// generated column not defined before, 3109 an AUTO_INCREMENT column, 3102
// a variable, subquery, parameter or disallowed function.
Status ValidateGeneratedColumns(const storage::TableDef& def, bool altering);

struct ParsedGenerated {
  uint32_t column = 0;
  sql::ExprPtr expr;
};
// `def`'s generated columns, parsed, in column order.
Result<std::vector<ParsedGenerated>> ParseGeneratedColumns(const storage::TableDef& def);

}  // namespace sluice::exec
