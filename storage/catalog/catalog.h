// storage/catalog/catalog.h
//
// The data dictionary: databases and tables (columns, indexes, space ids,
// index root pages, counters), persisted as one Protobuf file,
// <datadir>/catalog.pb, through the io::FileSystem seam.
//
// Snapshots: readers call snapshot() and get an immutable CatalogSnapshot
// (shared_ptr); a DDL builds a new snapshot, writes it to disk and swaps it
// in. Readers never block and never see a half-applied DDL.
//
// Atomic DDL: every change rewrites the whole file: write catalog.pb.tmp,
// Sync, Rename over catalog.pb, SyncDir. A crash at any point leaves the old
// or the new catalog on disk, never a mix; the in-memory snapshot changes
// only after the file is durable. If the rename succeeded but SyncDir
// failed, the on-disk state is unknown: the catalog turns read-only (every
// later DDL fails with the same error) until a restart re-reads the file.
//
// Data side: the catalog knows space ids, not files. After a crash the
// engine must make tablespaces agree with the catalog (drop spaces no table
// references: a crash between creating a space and committing CREATE TABLE,
// or between committing DROP TABLE and removing the space).
// The engine calls ReferencedSpaces() at recovery and removes every
// tablespace file whose id is not in the list.
//
// Rebuilds (ALTER TABLE by copy, TRUNCATE): the engine builds the new table
// under a temporary name (kTempTablePrefix, hidden from TablesIn) and swaps
// it in with ReplaceTable, one atomic write; a temporary table found at
// start-up is a rebuild a crash interrupted, and the engine drops it.
//
// Damaged definitions: a table whose entry in catalog.pb does not decode
// (edited by hand, or written by an older build that let a bad name
// through) does not stop the catalog from opening. It is kept aside as a
// BrokenTable, byte for byte: its name stays taken, its tablespace is kept,
// every later write carries it unchanged, and DROP TABLE removes it. Users
// get an error for it (1877) instead of its rows; the other tables work.
//
// Names (lower_case_table_names=0): database and table names are
// case-sensitive; column and index names are case-insensitive.
//
// Thread-safety: every method may be called from any thread. DDL methods
// serialize on ddl_mu_ (held across the file write: they block on disk);
// snapshot() and the lookups never block.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/io/file_system.h"
#include "base/mutex.h"
#include "base/status.h"
#include "storage/catalog/table_def.h"

namespace sluice::storage {

inline constexpr uint32_t kCatalogFormatVersion = 1;
inline constexpr std::string_view kCatalogFileName = "catalog.pb";
// io::WriteFileAtomically's temp file: <kCatalogFileName>.tmp.
inline constexpr std::string_view kCatalogTempFileName = "catalog.pb.tmp";

// Tables named so are the engine's, mid-rebuild (MySQL names its ALTER
// TABLE copies "#sql-..." too): TablesIn skips them, and the engine refuses
// them as names in CREATE TABLE and RENAME TABLE.
inline constexpr std::string_view kTempTablePrefix = "#sql-";
inline bool IsTempTableName(std::string_view name) { return name.starts_with(kTempTablePrefix); }

// One step of Catalog::RenameTables.
struct TableRename {
  std::string from_schema;
  std::string from_name;
  std::string to_schema;
  std::string to_name;
};

// A table definition that does not decode (see the file comment).
struct BrokenTable {
  std::string schema;     // empty when not even the names decode
  std::string name;
  uint64_t id = 0;        // 0 when unknown
  uint32_t space_id = 0;  // 0 when unknown (space ids start at 1)
  std::string reason;     // why it does not decode, for the error log
  std::string raw;        // the serialized catalogpb::Table, written back as is
};

// One immutable version of the catalog.
class CatalogSnapshot {
 public:
  using TablePtr = std::shared_ptr<const TableDef>;

  // nullptr when missing. Case-sensitive names.
  const DatabaseDef* FindDatabase(std::string_view name) const;
  TablePtr FindTable(std::string_view schema, std::string_view name) const;
  TablePtr FindTableById(uint64_t id) const;
  // The tables users see, sorted by name: without the temporary tables of
  // rebuilds in progress (IsTempTableName).
  std::vector<TablePtr> TablesIn(std::string_view schema) const;
  // Every table of the database, temporary ones included; sorted by name.
  std::vector<TablePtr> AllTablesIn(std::string_view schema) const;
  std::vector<std::string> DatabaseNames() const;
  size_t table_count() const { return by_id_.size(); }
  // Definitions that did not decode at Open; nullptr when `schema`.`name`
  // is not one.
  const BrokenTable* FindBrokenTable(std::string_view schema, std::string_view name) const;
  const std::vector<BrokenTable>& broken_tables() const { return broken_; }

  // A FOREIGN KEY as seen from the table it references: the table that
  // holds it (the child) and its position in the child's foreign_keys.
  struct ForeignKeyRef {
    TablePtr child;
    size_t index = 0;
    const ForeignKeyDef& def() const { return child->foreign_keys[index]; }
  };
  // The keys that reference `schema`.`name` (its children, itself included
  // when it references itself; not a rebuild's temporary copy), in child
  // table id order.
  std::vector<ForeignKeyRef> ReferencingForeignKeys(std::string_view schema, std::string_view name) const;

  uint64_t next_table_id() const { return next_table_id_; }
  uint32_t next_space_id() const { return next_space_id_; }
  uint64_t next_index_id() const { return next_index_id_; }

 private:
  friend class Catalog;
  friend struct CatalogCodec;

  std::map<std::string, DatabaseDef, std::less<>> databases_;
  std::map<std::pair<std::string, std::string>, TablePtr> by_name_;
  std::map<uint64_t, TablePtr> by_id_;
  std::vector<BrokenTable> broken_;
  // ReferencingForeignKeys' answers, by referenced {schema, name}: built by
  // IndexForeignKeys once a snapshot is complete, before it is published.
  std::multimap<std::pair<std::string, std::string>, ForeignKeyRef> referenced_by_;
  void IndexForeignKeys();
  uint64_t next_table_id_ = 1;
  uint32_t next_space_id_ = 1;
  uint64_t next_index_id_ = 1;
};

class Catalog {
 public:
  // Loads <datadir>/catalog.pb, or creates an empty catalog (and the file)
  // when there is none. A leftover catalog.pb.tmp (a DDL that crashed before
  // its rename) is removed. Corruption when the file is damaged (header,
  // checksum, framing); a table definition that does not decode becomes a
  // BrokenTable instead.
  // `fs` must outlive the Catalog.
  static Result<std::unique_ptr<Catalog>> Open(io::FileSystem* fs, std::string datadir);

  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  std::shared_ptr<const CatalogSnapshot> snapshot() const EXCLUDES(current_mu_) {
    MutexLock lock(&current_mu_);
    return current_;
  }

  // 1007 when it exists.
  Status CreateDatabase(const DatabaseDef& db);
  // 1008 when missing. Drops the database's tables too; returns their space
  // ids in *dropped_spaces (may be null) for the engine to delete.
  Status DropDatabase(std::string_view name, std::vector<uint32_t>* dropped_spaces = nullptr);

  // Validates (NormalizeTableDef), assigns the table id, the space id and
  // index ids, and persists. 1049 unknown database, 1050 exists, and the
  // validation errors. Returns the stored definition.
  Result<std::shared_ptr<const TableDef>> CreateTable(TableDef table);
  // 1051 "Unknown table 'db.t'" when missing. *space_id (may be null) gets
  // the dropped table's space for the engine to delete (0 for a broken
  // table whose space is unknown). Drops a broken table too.
  Status DropTable(std::string_view schema, std::string_view name, uint32_t* space_id = nullptr);
  // 1146 when the source is missing, 1049 when the target database is,
  // 1050 when the target exists.
  Status RenameTable(std::string_view from_schema, std::string_view from_name,
                     std::string_view to_schema, std::string_view to_name);
  // Several renames in one atomic write, applied in order (so a TO b, b TO
  // c and swaps through a third name work); RenameTable's errors for the
  // first step that fails, and then nothing changes. *renamed (may be
  // null) gets the renamed tables' new definitions, in step order.
  Status RenameTables(const std::vector<TableRename>& renames,
                      std::vector<std::shared_ptr<const TableDef>>* renamed = nullptr);
  // The last step of a rebuild, in one atomic write: drops `schema`.`name`
  // and renames `schema`.`temp_name` to `new_schema`.`new_name` (which may
  // be `name` itself). 1146 when either table is missing, 1049 / 1050 for
  // the new name as RenameTable; nothing changes then. *old_space_id gets
  // the dropped table's space for the engine to delete. Returns the
  // renamed table.
  Result<std::shared_ptr<const TableDef>> ReplaceTable(std::string_view schema, std::string_view name,
                                                       std::string_view temp_name, std::string_view new_schema,
                                                       std::string_view new_name, uint32_t* old_space_id);
  // Replaces a table's definition (ALTER TABLE). The table keeps its id,
  // space id and counters (auto_increment_next becomes the larger of old
  // and new). An index that keeps its name and key parts keeps its id and
  // root page; others get new ids and root page 0 (the engine builds them).
  // 1146 when missing, plus the validation errors.
  Result<std::shared_ptr<const TableDef>> AlterTable(std::string_view schema, std::string_view name,
                                                     TableDef new_def);

  // Records an index's root page once the engine has created it.
  // InvalidArgument when the table or index is unknown.
  Status SetIndexRoot(uint64_t table_id, uint64_t index_id, uint32_t root_page);
  // Persists counters (e.g. at checkpoint); each only moves forward.
  Status SetCounters(uint64_t table_id, uint64_t auto_increment_next, uint64_t next_row_id);

  // Every space id a table references, sorted. The engine deletes other
  // tablespace files at recovery (see the file comment).
  std::vector<uint32_t> ReferencedSpaces() const;

  const std::string& path() const { return path_; }

 private:
  Catalog(io::FileSystem* fs, std::string datadir);

  // Writes `next` to disk (atomically) and publishes it.
  Status CommitLocked(std::shared_ptr<CatalogSnapshot> next) REQUIRES(ddl_mu_);
  std::shared_ptr<CatalogSnapshot> CopyCurrent() const;
  // Renames table `t` of `next` (a snapshot being built) to (to_schema,
  // to_name): 1049 / 1050 as RenameTable. Returns the new definition.
  // Every foreign key of `next` that references `from_schema`.`from_name`
  // references `to_schema`.`to_name` instead (RENAME TABLE of a parent).
  static void RetargetForeignKeys(CatalogSnapshot* next, std::string_view from_schema, std::string_view from_name,
                                  std::string_view to_schema, std::string_view to_name);
  static Result<CatalogSnapshot::TablePtr> MoveTable(CatalogSnapshot* next, const CatalogSnapshot::TablePtr& t,
                                                     std::string_view to_schema, std::string_view to_name);
  // The old snapshot is released outside the mutex (it may be the last
  // reference).
  void Publish(std::shared_ptr<const CatalogSnapshot> next) EXCLUDES(current_mu_) {
    MutexLock lock(&current_mu_);
    current_.swap(next);
  }

  io::FileSystem* const fs_;  // borrowed
  const std::string datadir_;
  const std::string path_;
  const std::string tmp_path_;

  Mutex ddl_mu_;  // serializes DDL (and the file writes)
  Status sticky_error_ GUARDED_BY(ddl_mu_);
  // The published snapshot. A mutex rather than std::atomic<shared_ptr>:
  // libstdc++ 12's atomic<shared_ptr>::load unlocks with a relaxed store,
  // which ThreadSanitizer reports as a race with the next store; the
  // critical section is a reference-count increment.
  mutable Mutex current_mu_;
  std::shared_ptr<const CatalogSnapshot> current_ GUARDED_BY(current_mu_);
};

}  // namespace sluice::storage
