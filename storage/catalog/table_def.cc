#include "storage/catalog/table_def.h"

#include <strings.h>

#include <algorithm>

#include "base/mysql_error.h"
#include "base/strings.h"
#include "base/utf8.h"

namespace sluice::storage {

bool IsIntegerType(ColumnType t) {
  return t == ColumnType::kTinyInt || t == ColumnType::kSmallInt || t == ColumnType::kMediumInt ||
         t == ColumnType::kInt || t == ColumnType::kBigInt;
}
bool IsTextType(ColumnType t) {
  return t == ColumnType::kChar || t == ColumnType::kVarChar || t == ColumnType::kTinyText ||
         t == ColumnType::kText || t == ColumnType::kMediumText || t == ColumnType::kLongText;
}
bool IsBinaryType(ColumnType t) {
  return t == ColumnType::kBinary || t == ColumnType::kVarBinary || t == ColumnType::kTinyBlob ||
         t == ColumnType::kBlob || t == ColumnType::kMediumBlob || t == ColumnType::kLongBlob;
}
bool IsBlobOrText(ColumnType t) {
  return (t >= ColumnType::kTinyText && t <= ColumnType::kLongBlob);
}

std::string_view ColumnTypeName(ColumnType t) {
  switch (t) {
    case ColumnType::kTinyInt: return "TINYINT";
    case ColumnType::kSmallInt: return "SMALLINT";
    case ColumnType::kMediumInt: return "MEDIUMINT";
    case ColumnType::kInt: return "INT";
    case ColumnType::kBigInt: return "BIGINT";
    case ColumnType::kDecimal: return "DECIMAL";
    case ColumnType::kFloat: return "FLOAT";
    case ColumnType::kDouble: return "DOUBLE";
    case ColumnType::kChar: return "CHAR";
    case ColumnType::kVarChar: return "VARCHAR";
    case ColumnType::kBinary: return "BINARY";
    case ColumnType::kVarBinary: return "VARBINARY";
    case ColumnType::kTinyText: return "TINYTEXT";
    case ColumnType::kText: return "TEXT";
    case ColumnType::kMediumText: return "MEDIUMTEXT";
    case ColumnType::kLongText: return "LONGTEXT";
    case ColumnType::kTinyBlob: return "TINYBLOB";
    case ColumnType::kBlob: return "BLOB";
    case ColumnType::kMediumBlob: return "MEDIUMBLOB";
    case ColumnType::kLongBlob: return "LONGBLOB";
    case ColumnType::kDate: return "DATE";
    case ColumnType::kTime: return "TIME";
    case ColumnType::kDateTime: return "DATETIME";
    case ColumnType::kTimestamp: return "TIMESTAMP";
    case ColumnType::kYear: return "YEAR";
    case ColumnType::kEnum: return "ENUM";
    case ColumnType::kJson: return "JSON";
  }
  return "?";
}

namespace {

bool EqualsNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

uint32_t MaxBytesPerChar(std::string_view charset) {
  if (charset == "latin1" || charset == "ascii" || charset == "binary") return 1;
  if (charset == "utf8mb3" || charset == "utf8") return 3;
  if (charset == "ucs2") return 2;
  return 4;  // utf8mb4 and anything unknown: the safe upper bound
}

}  // namespace

namespace {

// The digits of `name` when it is <table><infix><digits> (the table name
// compared ignoring case), else nullopt.
std::optional<std::string_view> GeneratedDigits(std::string_view table, std::string_view infix,
                                                std::string_view name) {
  const std::string prefix = std::string(table) + std::string(infix);
  if (name.size() <= prefix.size() || !base::EqualsIgnoreCase(name.substr(0, prefix.size()), prefix)) {
    return std::nullopt;
  }
  const std::string_view digits = name.substr(prefix.size());
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  return digits;
}

}  // namespace

std::optional<std::string_view> GeneratedCheckDigits(std::string_view table, std::string_view name) {
  return GeneratedDigits(table, "_chk_", name);
}

std::string GeneratedCheckName(std::string_view table, std::string_view digits) {
  return std::string(table) + "_chk_" + std::string(digits);
}

std::optional<std::string_view> GeneratedForeignKeyDigits(std::string_view table, std::string_view name) {
  return GeneratedDigits(table, "_ibfk_", name);
}

std::string GeneratedForeignKeyName(std::string_view table, std::string_view digits) {
  return std::string(table) + "_ibfk_" + std::string(digits);
}

std::string_view ForeignKeyActionName(ForeignKeyAction a) {
  switch (a) {
    case ForeignKeyAction::kNoAction: return "NO ACTION";
    case ForeignKeyAction::kRestrict: return "RESTRICT";
    case ForeignKeyAction::kCascade: return "CASCADE";
    case ForeignKeyAction::kSetNull: return "SET NULL";
    case ForeignKeyAction::kSetDefault: return "SET DEFAULT";
  }
  return "NO ACTION";
}

const ColumnDef* TableDef::FindColumn(std::string_view name) const {
  for (const ColumnDef& c : columns) {
    if (EqualsNoCase(c.name, name)) return &c;
  }
  return nullptr;
}

const IndexDef* TableDef::FindIndex(std::string_view name) const {
  for (const IndexDef& i : indexes) {
    if (EqualsNoCase(i.name, name)) return &i;
  }
  return nullptr;
}

uint32_t MaxKeyPartBytes(const ColumnDef& c, uint32_t prefix_length) {
  switch (c.type) {
    case ColumnType::kTinyInt: case ColumnType::kYear: return 1;
    case ColumnType::kSmallInt: case ColumnType::kEnum: return 2;
    case ColumnType::kMediumInt: case ColumnType::kDate: return 3;
    case ColumnType::kInt: case ColumnType::kFloat: return 4;
    case ColumnType::kBigInt: case ColumnType::kDouble: case ColumnType::kDateTime:
    case ColumnType::kTimestamp: return 8;
    case ColumnType::kTime: return 6;
    case ColumnType::kDecimal: return 1 + (c.precision + 1) / 2;
    default: break;
  }
  uint32_t chars = c.length;
  if (IsBlobOrText(c.type)) chars = prefix_length;  // validated to be > 0
  else if (prefix_length != 0) chars = std::min(chars, prefix_length);
  return IsTextType(c.type) ? chars * MaxBytesPerChar(c.charset) : chars;
}

Status CheckIdentifier(std::string_view name, NameKind kind) {
  SLUICE_RETURN_IF_ERROR(base::CheckUtf8(name));
  if (base::Utf8CharCount(name) > kMaxIdentifierChars) return MakeError(er::kTooLongIdent, name);
  bool bad = name.empty() || name.back() == ' ';
  for (std::string_view rest = name; !bad && !rest.empty();) {
    const size_t n = base::Utf8CharLength(rest);  // > 0: checked above
    // MySQL keeps identifiers in utf8mb3: a character above U+FFFF is
    // refused as that character set's 1300.
    if (n == 4) return MakeError(er::kInvalidCharacterString, "utf8mb3", base::PrintableUtf8(name, 64, /*mb3=*/true));
    bad = rest[0] == '\0';
    rest.remove_prefix(n);
  }
  if (!bad) return Status::OK();
  const std::string shown = base::PrintableUtf8(name);
  switch (kind) {
    case NameKind::kDatabase: return MakeError(er::kWrongDbName, shown);
    case NameKind::kTable: return MakeError(er::kWrongTableName, shown);
    case NameKind::kColumn: return MakeError(er::kWrongColumnName, shown);
    case NameKind::kIndex: return MakeError(er::kWrongNameForIndex, shown);
  }
  return MakeError(er::kWrongTableName, shown);
}

Status CheckTableDefText(const TableDef& t, const TableDef* old) {
  if (old == nullptr || t.schema != old->schema || t.name != old->name) {
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(t.schema, NameKind::kDatabase));
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(t.name, NameKind::kTable));
  }
  if (old == nullptr || t.options.comment != old->options.comment) {
    SLUICE_RETURN_IF_ERROR(base::CheckUtf8(t.options.comment));
    if (base::Utf8CharCount(t.options.comment) > kMaxTableCommentChars) {
      return MakeError(er::kTooLongTableComment, t.name, kMaxTableCommentChars);
    }
  }
  for (const ColumnDef& c : t.columns) {
    const ColumnDef* was = old == nullptr ? nullptr : old->FindColumn(c.name);
    if (was != nullptr && was->name == c.name && was->comment == c.comment && was->enum_values == c.enum_values &&
        was->charset == c.charset) {
      continue;
    }
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(c.name, NameKind::kColumn));
    SLUICE_RETURN_IF_ERROR(base::CheckUtf8(c.comment));
    if (base::Utf8CharCount(c.comment) > kMaxColumnCommentChars) {
      return MakeError(er::kTooLongFieldComment, c.name, kMaxColumnCommentChars);
    }
    for (const std::string& v : c.enum_values) {
      // A binary ENUM holds bytes, not characters.
      if (c.charset != "binary") SLUICE_RETURN_IF_ERROR(base::CheckUtf8(v));
      const size_t chars = c.charset == "binary" ? v.size() : base::Utf8CharCount(v);
      if (chars > kMaxEnumValueChars) return MakeError(er::kTooLongSetEnumValue, c.name);
    }
  }
  for (const IndexDef& i : t.indexes) {
    const IndexDef* was = old == nullptr ? nullptr : old->FindIndex(i.name);
    if (was == nullptr || was->name != i.name) SLUICE_RETURN_IF_ERROR(CheckIdentifier(i.name, NameKind::kIndex));
  }
  return Status::OK();
}

Status NormalizeTableDef(TableDef* t) {
  if (t->columns.empty()) return MakeError(er::kTableMustHaveColumns);
  // Columns.
  for (size_t i = 0; i < t->columns.size(); ++i) {
    ColumnDef& c = t->columns[i];
    c.ordinal = static_cast<uint32_t>(i);
    for (size_t j = 0; j < i; ++j) {
      if (EqualsNoCase(t->columns[j].name, c.name)) return MakeError(er::kDupFieldName, c.name);
    }
    if (IsTextType(c.type)) {
      if (c.charset.empty()) c.charset = t->options.charset;
      if (c.collation.empty()) c.collation = c.charset == t->options.charset ? t->options.collation : "";
    } else if (IsBinaryType(c.type)) {
      c.charset = "binary";
      c.collation = "binary";
    }
    switch (c.type) {
      case ColumnType::kDecimal:
        if (c.precision == 0) c.precision = 10;
        if (c.precision > 65) return MakeError(er::kTooBigPrecision, c.precision, c.name, 65);
        if (c.scale > 30) return MakeError(er::kTooBigScale, c.scale, c.name, 30);
        if (c.scale > c.precision) return MakeError(er::kMBiggerThanD, c.name);
        break;
      case ColumnType::kChar:
      case ColumnType::kBinary:
        if (c.length > 255) return MakeError(er::kTooBigFieldLength, c.name, 255);
        break;
      case ColumnType::kTime:
      case ColumnType::kDateTime:
      case ColumnType::kTimestamp:
        if (c.fsp > 6) return MakeError(er::kTooBigPrecision, c.fsp, c.name, 6);
        break;
      case ColumnType::kEnum:
        if (c.enum_values.empty() || c.enum_values.size() > 65535) {
          return MakeError(er::kTooBigFieldLength, c.name, 65535);
        }
        break;
      default:
        break;
    }
    if (c.auto_increment && !IsIntegerType(c.type) && c.type != ColumnType::kFloat &&
        c.type != ColumnType::kDouble) {
      return MakeError(er::kWrongFieldSpec, c.name);
    }
  }
  // Indexes: resolve parts, one PRIMARY, distinct names.
  const IndexDef* primary = nullptr;
  for (IndexDef& idx : t->indexes) {
    if (idx.kind == IndexKind::kClustered || EqualsNoCase(idx.name, kPrimaryKeyName)) {
      if (primary != nullptr) return MakeError(er::kMultiplePriKey);
      idx.kind = IndexKind::kClustered;
      idx.name = std::string(kPrimaryKeyName);
      idx.unique = true;
      primary = &idx;
    }
  }
  for (size_t i = 0; i < t->indexes.size(); ++i) {
    IndexDef& idx = t->indexes[i];
    if (idx.parts.empty()) return MakeError(er::kKeyColumnDoesNotExist, "");
    for (size_t j = 0; j < i; ++j) {
      if (EqualsNoCase(t->indexes[j].name, idx.name)) return MakeError(er::kDupKeyName, idx.name);
    }
    uint32_t key_bytes = 0;
    for (KeyPart& part : idx.parts) {
      const ColumnDef* c = t->FindColumn(part.column_name);
      if (c == nullptr) return MakeError(er::kKeyColumnDoesNotExist, part.column_name);
      part.column = c->ordinal;
      part.column_name = c->name;
      if (c->type == ColumnType::kJson) return MakeError(er::kJsonUsedAsKey, c->name);
      if (IsBlobOrText(c->type) && part.prefix_length == 0) {
        return MakeError(er::kBlobKeyWithoutLength, c->name);
      }
      if (part.prefix_length != 0 && !IsTextType(c->type) && !IsBinaryType(c->type)) {
        return MakeError(er::kWrongSubKey);
      }
      key_bytes += MaxKeyPartBytes(*c, part.prefix_length);
      if (idx.kind == IndexKind::kClustered) t->columns[c->ordinal].nullable = false;
    }
    if (key_bytes > 3072) return MakeError(er::kTooLongKey, 3072);
  }
  // AUTO_INCREMENT: at most one, and the first part of some index.
  const ColumnDef* auto_col = nullptr;
  for (const ColumnDef& c : t->columns) {
    if (!c.auto_increment) continue;
    if (auto_col != nullptr) return MakeError(er::kWrongAutoKey);
    auto_col = &c;
  }
  if (auto_col != nullptr) {
    bool keyed = std::any_of(t->indexes.begin(), t->indexes.end(), [&](const IndexDef& idx) {
      return idx.parts.front().column == auto_col->ordinal;
    });
    if (!keyed) return MakeError(er::kWrongAutoKey);
    t->columns[auto_col->ordinal].nullable = false;
  }
  if (t->auto_increment_next == 0) t->auto_increment_next = 1;
  if (t->next_row_id == 0) t->next_row_id = 1;
  // The clustered index first; a hidden one when there is no PRIMARY KEY.
  if (primary == nullptr) {
    IndexDef hidden;
    hidden.name = std::string(kHiddenClusteredName);
    hidden.kind = IndexKind::kClustered;
    hidden.unique = true;
    t->indexes.insert(t->indexes.begin(), std::move(hidden));
  } else {
    std::stable_partition(t->indexes.begin(), t->indexes.end(),
                          [](const IndexDef& i) { return i.kind == IndexKind::kClustered; });
  }
  return Status::OK();
}

}  // namespace sluice::storage
