// storage/catalog/table_def.h
//
// Plain C++ descriptions of databases, tables, columns and indexes: what the
// SQL layer builds for CREATE TABLE and what the engine reads to lay out
// rows and index keys. The Protobuf form (catalog.proto) is private to
// catalog.cc.
//
// Thread-safety: values. Shared as shared_ptr<const TableDef> in catalog
// snapshots; never modified once published.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace sluice::storage {

// Values match catalogpb::ColumnType (on-disk): never renumber.
enum class ColumnType : uint8_t {
  kTinyInt = 1, kSmallInt = 2, kMediumInt = 3, kInt = 4, kBigInt = 5,
  kDecimal = 6, kFloat = 7, kDouble = 8,
  kChar = 9, kVarChar = 10, kBinary = 11, kVarBinary = 12,
  kTinyText = 13, kText = 14, kMediumText = 15, kLongText = 16,
  kTinyBlob = 17, kBlob = 18, kMediumBlob = 19, kLongBlob = 20,
  kDate = 21, kTime = 22, kDateTime = 23, kTimestamp = 24, kYear = 25, kEnum = 26,
  kJson = 27,  // MySQL's binary JSON (sql/json.h), stored as a LONGBLOB is
};

bool IsIntegerType(ColumnType t);
bool IsTextType(ColumnType t);    // CHAR, VARCHAR, *TEXT (have a charset)
bool IsBinaryType(ColumnType t);  // BINARY, VARBINARY, *BLOB
bool IsBlobOrText(ColumnType t);  // *TEXT, *BLOB (need a key prefix)
std::string_view ColumnTypeName(ColumnType t);  // "INT", "VARCHAR", ...

struct ColumnDef {
  enum class DefaultKind : uint8_t { kNone, kValue, kNull, kCurrentTimestamp };

  std::string name;
  uint32_t ordinal = 0;  // assigned by the catalog: position in `columns`
  ColumnType type = ColumnType::kInt;
  bool is_unsigned = false;
  uint32_t length = 0;     // CHAR/VARCHAR chars; BINARY/VARBINARY bytes
  uint32_t precision = 0;  // DECIMAL; 0 = MySQL's default 10
  uint32_t scale = 0;      // DECIMAL
  uint32_t fsp = 0;        // TIME/DATETIME/TIMESTAMP, 0..6
  bool nullable = true;
  DefaultKind default_kind = DefaultKind::kNone;
  std::string default_value;  // text form, when default_kind == kValue
  bool on_update_current_timestamp = false;
  bool auto_increment = false;
  std::string charset;    // empty: the table's
  std::string collation;  // empty: the charset's default
  std::vector<std::string> enum_values;
  std::string comment;    // COMMENT 'x'
  // A generated column: its expression as typed ("" for an ordinary one).
  // VIRTUAL and STORED ones are both kept in the row: the SQL layer
  // computes them on every write.
  std::string generation_expr;
  bool generated_stored = false;
  bool generated() const { return !generation_expr.empty(); }
};

struct KeyPart {
  std::string column_name;  // what the SQL layer gives; resolved by the catalog
  uint32_t column = 0;      // ordinal, filled in by the catalog
  uint32_t prefix_length = 0;  // 0 = whole column
  bool desc = false;
};

enum class IndexKind : uint8_t { kClustered = 1, kSecondary = 2 };

inline constexpr std::string_view kPrimaryKeyName = "PRIMARY";
inline constexpr std::string_view kHiddenClusteredName = "GEN_CLUST_INDEX";

// IndexDef::key_format values. Stored on disk: never renumber.
//   0  strings as their bytes (CHAR/VARCHAR without trailing spaces): the
//      format of every index made before collation-aware keys
//   1  text by its collation's sort key (base/collation.h), binary strings
//      as their bytes
inline constexpr uint32_t kKeyFormatBytes = 0;
inline constexpr uint32_t kKeyFormatCollation = 1;
inline constexpr uint32_t kCurrentKeyFormat = kKeyFormatCollation;

struct IndexDef {
  uint64_t id = 0;  // assigned by the catalog, unique in the catalog
  std::string name;
  bool unique = false;
  // kClustered marks the PRIMARY KEY (name "PRIMARY"). The catalog adds a
  // clustered GEN_CLUST_INDEX with no parts when a table has no PRIMARY KEY.
  IndexKind kind = IndexKind::kSecondary;
  std::vector<KeyPart> parts;
  uint32_t root_page = 0;  // 0 = not built yet (set by Catalog::SetIndexRoot)
  // How the index's keys encode strings (row_codec.h, "Index keys"). Kept
  // with the tree: an index built by an older version keeps its format
  // until a rebuild (ALTER TABLE ... FORCE, or any copying ALTER) makes it
  // anew; the catalog gives every new index kCurrentKeyFormat.
  uint32_t key_format = kCurrentKeyFormat;
};

struct TableOptions {
  std::string comment;
  std::string charset = "utf8mb4";
  std::string collation = "utf8mb4_0900_ai_ci";
};

// A CHECK constraint: the SQL layer parses and evaluates `expr`; the
// catalog only keeps it. Names are unique in their schema (3822).
struct CheckDef {
  std::string name;
  std::string expr;  // as typed, without CHECK's parentheses
  bool enforced = true;
  friend bool operator==(const CheckDef&, const CheckDef&) = default;
};

// MySQL's name for a table's unnamed CHECKs, <table>_chk_<digits>: the
// digits of `name` when it is one for `table` (the table name compared
// ignoring case), else nullopt.
std::optional<std::string_view> GeneratedCheckDigits(std::string_view table, std::string_view name);
std::string GeneratedCheckName(std::string_view table, std::string_view digits);

// What a foreign key does to the child rows when its parent row is deleted
// or its referenced columns change. Stored: never renumber.
enum class ForeignKeyAction : uint8_t {
  kNoAction = 0,  // what an omitted clause means (checked as RESTRICT)
  kRestrict = 1,
  kCascade = 2,
  kSetNull = 3,
  kSetDefault = 4,  // parsed; refused at CREATE, as InnoDB refuses it
};
std::string_view ForeignKeyActionName(ForeignKeyAction a);  // "NO ACTION", "CASCADE", ...

// A FOREIGN KEY of the table that holds it (the child). Columns are kept by
// name (case-insensitive, as column names), the parent by its schema and
// table name (case-sensitive): the parent may not exist yet when it was
// created with foreign_key_checks=0, as dumps do. The SQL layer checks and
// enforces it (exec/foreign_keys.h); RENAME TABLE of the parent updates
// `ref_schema` and `ref_table` of every key that references it.
struct ForeignKeyDef {
  std::string name;  // unique in the schema; unnamed ones get <table>_ibfk_<n>
  std::vector<std::string> columns;
  std::string ref_schema;
  std::string ref_table;
  std::vector<std::string> ref_columns;  // as many as `columns`
  ForeignKeyAction on_delete = ForeignKeyAction::kNoAction;
  ForeignKeyAction on_update = ForeignKeyAction::kNoAction;
  friend bool operator==(const ForeignKeyDef&, const ForeignKeyDef&) = default;
};

// MySQL's names for unnamed foreign keys, <table>_ibfk_<digits>, as
// GeneratedCheckDigits / GeneratedCheckName for CHECKs.
std::optional<std::string_view> GeneratedForeignKeyDigits(std::string_view table, std::string_view name);
std::string GeneratedForeignKeyName(std::string_view table, std::string_view digits);

struct TableDef {
  uint64_t id = 0;        // assigned by the catalog
  std::string schema;
  std::string name;
  std::vector<ColumnDef> columns;
  std::vector<IndexDef> indexes;  // after validation: clustered first
  uint32_t space_id = 0;          // assigned by the catalog
  uint64_t auto_increment_next = 1;
  uint64_t next_row_id = 1;
  TableOptions options;
  std::vector<CheckDef> checks;
  std::vector<ForeignKeyDef> foreign_keys;
  // Derived, not stored: whether some table's FOREIGN KEY (its own
  // included) references this one. Every snapshot the catalog publishes
  // has it right (CatalogSnapshot::ReferencingForeignKeys lists them), so a
  // statement on a table no key touches looks nothing up.
  bool referenced = false;

  // After validation indexes[0] is the clustered index.
  const IndexDef& clustered() const { return indexes.front(); }
  // True when the clustered index is GEN_CLUST_INDEX (6-byte row id key).
  bool has_hidden_row_id() const { return !indexes.empty() && indexes.front().parts.empty(); }
  // Case-insensitive, as MySQL column names. nullptr when missing.
  const ColumnDef* FindColumn(std::string_view name) const;
  const IndexDef* FindIndex(std::string_view name) const;  // case-insensitive
};

struct DatabaseDef {
  std::string name;
  std::string default_charset = "utf8mb4";
  std::string default_collation = "utf8mb4_0900_ai_ci";
};

// The names and texts a definition stores, checked as MySQL checks them
// before anything reaches the catalog file (which must always read back).
enum class NameKind : uint8_t { kDatabase, kTable, kColumn, kIndex };
inline constexpr size_t kMaxIdentifierChars = 64;       // NAME_CHAR_LEN
inline constexpr size_t kMaxTableCommentChars = 2048;   // TABLE_COMMENT_MAXLEN
inline constexpr size_t kMaxColumnCommentChars = 1024;  // COLUMN_COMMENT_MAXLEN
inline constexpr size_t kMaxEnumValueChars = 255;

// One identifier: 1300 when it is not well-formed utf8mb4, 1059 when
// longer than 64 characters, and the kind's "incorrect name" error (1102
// database, 1103 table, 1166 column, 1280 index) when it is empty, ends
// with a space, or holds U+0000; 1300 "Invalid utf8mb3 character string"
// for a character above U+FFFF (MySQL keeps identifiers in utf8mb3).
Status CheckIdentifier(std::string_view name, NameKind kind);

// Every name and text of `table` (database and table names, columns,
// indexes, COMMENTs, ENUM values): CheckIdentifier's errors, 1628 / 1629
// for a table / column COMMENT over 2048 / 1024 characters, 1097 for an
// ENUM value over 255 characters, 1300 for malformed utf8mb4 in any.
// With `old` (ALTER TABLE), what `table` keeps unchanged from `old` is not
// checked again: a table a datadir already holds stays alterable.
Status CheckTableDefText(const TableDef& table, const TableDef* old = nullptr);

// Checks `table` and fills in what MySQL derives: ordinals, key-part column
// ordinals, NOT NULL on PRIMARY KEY columns, DECIMAL's default precision,
// column charsets from the table, a GEN_CLUST_INDEX when there is no PRIMARY
// KEY, and the clustered index first. Index ids, the table id and space id
// are left to the catalog. Errors (MySQL numbers): 1060 duplicate column,
// 1061 duplicate key name, 1063 AUTO_INCREMENT on a non-numeric column,
// 1068 several primary keys, 1071 key longer than 3072 bytes, 1072 key
// column missing, 1075 bad AUTO_INCREMENT, 1170 BLOB/TEXT key without a
// prefix, 1425/1426/1427 DECIMAL scale/precision, 1074 CHAR longer than 255,
// 1113 no columns, 1426 for fsp > 6.
Status NormalizeTableDef(TableDef* table);

// Largest number of bytes a key part can take (for the 3072-byte limit):
// characters times the charset's maximum bytes per character for text.
uint32_t MaxKeyPartBytes(const ColumnDef& column, uint32_t prefix_length);

}  // namespace sluice::storage
