// exec/foreign_keys.h
//
// FOREIGN KEY constraints, as InnoDB keeps them in MySQL 8.0: defined with
// the child table (storage::ForeignKeyDef), checked by the statements that
// write either side, row by row, inside the statement's transaction.
//
// Definition (CREATE TABLE, ALTER TABLE ADD/DROP FOREIGN KEY): the child
// needs an index whose leading columns are the key's columns in order (one
// is added when none is, named by the CONSTRAINT symbol, else the FOREIGN KEY
// index name, else the first column), and, with foreign_key_checks on, the
// parent must exist (1824) with an index leading with the referenced
// columns (1822) of compatible types (3780). With foreign_key_checks off the
// parent is not looked at, so a dump can create its tables in any order.
//
// Enforcement (with foreign_key_checks on):
//   - a child row written (INSERT, REPLACE, UPDATE of the key's columns) with
//     no NULL in the key must find its parent row, which it locks shared to
//     the end of the transaction (1452 when there is none);
//   - a parent row deleted, or updated in its referenced columns, looks up
//     the child rows that reference it (the latest versions, locked
//     exclusively with the gaps around them, through the child's index as
//     Engine::IndexScanLocked reads): NO ACTION and RESTRICT refuse (1451),
//     CASCADE deletes
//     or updates them, SET NULL sets their key columns to NULL, each
//     recursively for the child's own children, at most 15 deep (3008);
//     an update cascade into a table it already updates (a table that
//     references itself) acts as RESTRICT, as MySQL documents.
// A child row that appears concurrently must first lock its parent row
// shared, which the parent's writer holds exclusively: the two serialize on
// the parent record, as in InnoDB. Cascaded changes are not written to the
// binlog (MySQL 8.0 leaves them to the replica's engine, which has the same
// keys); rows events of a session with foreign_key_checks off carry
// NO_FOREIGN_KEY_CHECKS_F so a replica applies them unchecked too.
//
// Thread-safety: free functions over values the caller owns; a
// ForeignKeyEnforcer belongs to one statement on its thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "sql/ast.h"
#include "storage/catalog/catalog.h"
#include "storage/catalog/table_def.h"
#include "storage/engine/engine.h"

namespace sluice::exec {

// How many cascades deep a change may go (MySQL's FK_MAX_CASCADE_DEL).
inline constexpr int kMaxForeignKeyCascadeDepth = 15;

// CREATE TABLE / ALTER TABLE ... ADD FOREIGN KEY: appends `specs` to
// `def->foreign_keys`; `def`'s columns and indexes are final (ALTER: the
// new ones). Unnamed keys are named <table>_ibfk_<n>. An unqualified parent
// is in `def`'s schema; a key may reference `def` itself. Errors: 1072 an
// unknown column, 1239 column counts that differ, 1826 a name taken in the
// schema, 1830 SET NULL on a NOT NULL column, 1215 SET DEFAULT, 1061 an
// index name taken; with `checks` (foreign_key_checks) also 1824, 3734,
// 3780 and 1822 against the parent.
Status AddForeignKeys(const std::vector<sql::ForeignKeySpec>& specs, const storage::CatalogSnapshot& snapshot,
                      bool checks, storage::TableDef* def);

// ALTER TABLE: whether `next` (the new definition of `old`, `renamed_from`
// giving for each of next's columns the old column's name, "" for an added
// one) keeps its foreign keys and those of the tables that reference it
// whole. Child keys follow renamed columns (updated in `next`). Errors:
// 1828 a key's column dropped, 1829 / 1833 a column another table's key
// references dropped / changed (type or name), 3780 a key column's new
// type, 1553 an index a key needs dropped.
Status AlterForeignKeys(const storage::TableDef& old, const std::vector<std::string>& renamed_from,
                        const storage::CatalogSnapshot& snapshot, bool checks, storage::TableDef* next);

// DROP TABLE of `tables` ({schema, name}, together): 3730 for a table
// another table (not among `tables`) references.
Status CheckDropReferenced(const storage::CatalogSnapshot& snapshot,
                           const std::vector<std::pair<std::string, std::string>>& tables);
// TRUNCATE TABLE: 1701 when another table references `def`.
Status CheckTruncateReferenced(const storage::CatalogSnapshot& snapshot, const storage::TableDef& def);

// The key as SHOW CREATE TABLE shows it, and as 1451 / 1452 quote it:
// CONSTRAINT `fk` FOREIGN KEY (`a`) REFERENCES `p` (`id`) ON DELETE CASCADE
// (the parent's schema shown when it is not `child_schema`; pass "" to
// always show it, as 1701 does).
std::string ForeignKeyClause(const std::string& child_schema, const storage::ForeignKeyDef& fk);

// The index of `def` that leads with `columns` in order (whole columns, no
// prefix), as a position in def.indexes; -1 when none. The clustered one
// first, then the smallest.
int IndexLeadingWith(const storage::TableDef& def, const std::vector<std::string>& columns);

// The clustered-key values of `row` of `def` (what Engine::Update / Delete
// take): for a table without PRIMARY KEY, the hidden row id a locking read
// puts after the columns.
storage::Row ClusteredKeyOf(const storage::TableDef& def, const storage::Row& row);

// Enforcement for one statement: `snapshot` the catalog it runs against.
class ForeignKeyEnforcer {
 public:
  // The catalog's snapshot is taken at the first check (a statement on a
  // table no key touches never takes it).
  ForeignKeyEnforcer(storage::Engine& engine, storage::EngineTrx& trx) : engine_(engine), trx_(trx) {}

  // `after` is about to be written to `def` (inserted: `before` null;
  // updated from `before`): each key of `def` whose columns hold no NULL
  // and changed must find its parent row (locked S): 1452.
  Status CheckParents(const storage::TableDef& def, const storage::Row* before, const storage::Row& after);

  // Row `before` of `def` (columns only) is about to be deleted (`after`
  // null) or updated to `after`: the keys that reference `def` act on the
  // child rows holding its old referenced values (see the top).
  Status ParentChanging(const storage::TableDef& def, const storage::Row& before, const storage::Row* after) {
    return ParentChanging(def, before, after, 0);
  }

  // A statement calls CheckParents for a table with keys
  // (!def.foreign_keys.empty()) and ParentChanging for one that is
  // referenced (def.referenced); neither for others.

  // Called on each child row a cascade changes (CASCADE or SET NULL on
  // UPDATE or DELETE), before it is written: the SQL layer computes the
  // child's generated columns again from the new key values.
  using RowFinisher = std::function<Status(const storage::TableDef&, storage::Row*)>;
  void set_row_finisher(RowFinisher f) { finish_ = std::move(f); }

 private:
  Status ParentChanging(const storage::TableDef& def, const storage::Row& before, const storage::Row* after,
                        int depth);
  Status ActOnChildren(const storage::TableDef& def, const storage::Row& before, const storage::Row* after,
                       int depth);
  // The rows of `def` whose `columns` equal `key`, latest versions locked
  // with `mode`, each with its hidden row id after the columns when `def`
  // has no PRIMARY KEY.
  Status LockedRowsWith(const storage::TableDef& def, const std::vector<std::string>& columns,
                        const storage::Row& key, storage::LockMode mode, std::vector<storage::Row>* rows);

  storage::Engine& engine_;
  storage::EngineTrx& trx_;
  const storage::CatalogSnapshot& snapshot();

  std::shared_ptr<const storage::CatalogSnapshot> snapshot_;  // see snapshot()
  RowFinisher finish_;
  // The tables an update cascade is updating, outermost first.
  std::vector<uint64_t> updating_;
};

}  // namespace sluice::exec
