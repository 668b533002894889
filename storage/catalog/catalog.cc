#include "storage/catalog/catalog.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "base/io/write_file_atomically.h"
#include "base/mysql_error.h"
#include "catalog.pb.h"  // generated from catalog.proto; private to this file

namespace sluice::storage {

namespace {

// File framing: [magic 8]["len" u64 LE][crc32 u32 LE][payload: len bytes].
constexpr char kMagic[8] = {'S', 'L', 'U', 'C', 'A', 'T', '0', '1'};
constexpr size_t kHeaderSize = 8 + 8 + 4;

uint32_t Crc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : data) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void PutLE(std::string* out, uint64_t v, size_t width) {
  for (size_t i = 0; i < width; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint64_t GetLE(const char* p, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

std::string JoinPath(const std::string& dir, std::string_view name) {
  if (!dir.empty() && dir.back() == '/') return dir + std::string(name);
  return dir + "/" + std::string(name);
}

}  // namespace

// Conversions between the C++ definitions and catalogpb.
struct CatalogCodec {
  static void ToProto(const ColumnDef& c, catalogpb::Column* p) {
    p->set_name(c.name);
    p->set_ordinal(c.ordinal);
    p->set_type(static_cast<catalogpb::ColumnType>(c.type));
    p->set_is_unsigned(c.is_unsigned);
    p->set_length(c.length);
    p->set_precision(c.precision);
    p->set_scale(c.scale);
    p->set_fsp(c.fsp);
    p->set_nullable(c.nullable);
    p->set_has_default(c.default_kind == ColumnDef::DefaultKind::kValue);
    p->set_default_value(c.default_value);
    p->set_default_is_null(c.default_kind == ColumnDef::DefaultKind::kNull);
    p->set_default_current_timestamp(c.default_kind == ColumnDef::DefaultKind::kCurrentTimestamp);
    p->set_on_update_current_timestamp(c.on_update_current_timestamp);
    p->set_auto_increment(c.auto_increment);
    p->set_charset(c.charset);
    p->set_collation(c.collation);
    for (const std::string& v : c.enum_values) p->add_enum_values(v);
    p->set_comment(c.comment);
    p->set_generation_expr(c.generation_expr);
    p->set_generated_stored(c.generated_stored);
  }

  static Result<ColumnDef> FromProto(const catalogpb::Column& p) {
    ColumnDef c;
    if (p.type() < catalogpb::TINYINT || p.type() > catalogpb::ENUM) {
      return Status::Corruption("catalog: column " + p.name() + " has unknown type " +
                                std::to_string(p.type()));
    }
    c.name = p.name();
    c.ordinal = p.ordinal();
    c.type = static_cast<ColumnType>(p.type());
    c.is_unsigned = p.is_unsigned();
    c.length = p.length();
    c.precision = p.precision();
    c.scale = p.scale();
    c.fsp = p.fsp();
    c.nullable = p.nullable();
    if (p.has_default()) {
      c.default_kind = ColumnDef::DefaultKind::kValue;
    } else if (p.default_is_null()) {
      c.default_kind = ColumnDef::DefaultKind::kNull;
    } else if (p.default_current_timestamp()) {
      c.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
    }
    c.default_value = p.default_value();
    c.on_update_current_timestamp = p.on_update_current_timestamp();
    c.auto_increment = p.auto_increment();
    c.charset = p.charset();
    c.collation = p.collation();
    c.enum_values.assign(p.enum_values().begin(), p.enum_values().end());
    c.comment = p.comment();
    c.generation_expr = p.generation_expr();
    c.generated_stored = p.generated_stored();
    return c;
  }

  static void ToProto(const TableDef& t, catalogpb::Table* p) {
    p->set_id(t.id);
    p->set_schema(t.schema);
    p->set_name(t.name);
    for (const ColumnDef& c : t.columns) ToProto(c, p->add_columns());
    for (const IndexDef& i : t.indexes) {
      catalogpb::Index* pi = p->add_indexes();
      pi->set_id(i.id);
      pi->set_name(i.name);
      pi->set_unique(i.unique);
      pi->set_kind(i.kind == IndexKind::kClustered ? catalogpb::Index::CLUSTERED
                                                   : catalogpb::Index::SECONDARY);
      pi->set_root_page(i.root_page);
      pi->set_key_format(i.key_format);
      for (const KeyPart& k : i.parts) {
        catalogpb::KeyPart* pk = pi->add_parts();
        pk->set_column_ordinal(k.column);
        pk->set_prefix_length(k.prefix_length);
        pk->set_desc(k.desc);
      }
    }
    p->set_space_id(t.space_id);
    p->set_auto_increment_next(t.auto_increment_next);
    p->set_next_row_id(t.next_row_id);
    p->mutable_options()->set_comment(t.options.comment);
    p->mutable_options()->set_charset(t.options.charset);
    p->mutable_options()->set_collation(t.options.collation);
    for (const CheckDef& c : t.checks) {
      catalogpb::Check* pc = p->add_checks();
      pc->set_name(c.name);
      pc->set_expr(c.expr);
      pc->set_not_enforced(!c.enforced);
    }
    for (const ForeignKeyDef& f : t.foreign_keys) {
      catalogpb::ForeignKey* pf = p->add_foreign_keys();
      pf->set_name(f.name);
      for (const std::string& c : f.columns) pf->add_columns(c);
      pf->set_ref_schema(f.ref_schema);
      pf->set_ref_table(f.ref_table);
      for (const std::string& c : f.ref_columns) pf->add_ref_columns(c);
      pf->set_on_delete(static_cast<catalogpb::ForeignKey::Action>(f.on_delete));
      pf->set_on_update(static_cast<catalogpb::ForeignKey::Action>(f.on_update));
    }
  }

  static Result<TableDef> FromProto(const catalogpb::Table& p) {
    TableDef t;
    t.id = p.id();
    t.schema = p.schema();
    t.name = p.name();
    for (const catalogpb::Column& pc : p.columns()) {
      Result<ColumnDef> c = FromProto(pc);
      if (!c.ok()) return c.status();
      if (c->ordinal != t.columns.size()) return Status::Corruption("catalog: bad column ordinal in " + t.name);
      t.columns.push_back(std::move(*c));
    }
    for (const catalogpb::Index& pi : p.indexes()) {
      IndexDef i;
      i.id = pi.id();
      i.name = pi.name();
      i.unique = pi.unique();
      i.kind = pi.kind() == catalogpb::Index::CLUSTERED ? IndexKind::kClustered : IndexKind::kSecondary;
      i.root_page = pi.root_page();
      i.key_format = pi.key_format();
      if (i.key_format > kCurrentKeyFormat) {
        return Status::Corruption(fmt::format("catalog: index {}.{} has key format {}, newer than this server's {}",
                                              t.name, i.name, i.key_format, kCurrentKeyFormat));
      }
      for (const catalogpb::KeyPart& pk : pi.parts()) {
        if (pk.column_ordinal() >= t.columns.size()) {
          return Status::Corruption("catalog: key part out of range in " + t.name + "." + i.name);
        }
        KeyPart k;
        k.column = pk.column_ordinal();
        k.column_name = t.columns[k.column].name;
        k.prefix_length = pk.prefix_length();
        k.desc = pk.desc();
        i.parts.push_back(std::move(k));
      }
      t.indexes.push_back(std::move(i));
    }
    if (t.indexes.empty() || t.indexes.front().kind != IndexKind::kClustered) {
      return Status::Corruption("catalog: table " + t.name + " has no clustered index");
    }
    t.space_id = p.space_id();
    t.auto_increment_next = p.auto_increment_next();
    t.next_row_id = p.next_row_id();
    t.options.comment = p.options().comment();
    t.options.charset = p.options().charset();
    t.options.collation = p.options().collation();
    for (const catalogpb::Check& pc : p.checks()) t.checks.push_back(CheckDef{pc.name(), pc.expr(), !pc.not_enforced()});
    for (const catalogpb::ForeignKey& pf : p.foreign_keys()) {
      ForeignKeyDef f;
      f.name = pf.name();
      f.columns.assign(pf.columns().begin(), pf.columns().end());
      f.ref_schema = pf.ref_schema();
      f.ref_table = pf.ref_table();
      f.ref_columns.assign(pf.ref_columns().begin(), pf.ref_columns().end());
      if (f.columns.empty() || f.columns.size() != f.ref_columns.size() ||
          pf.on_delete() > catalogpb::ForeignKey::SET_DEFAULT || pf.on_update() > catalogpb::ForeignKey::SET_DEFAULT ||
          pf.on_delete() < 0 || pf.on_update() < 0) {
        return Status::Corruption("catalog: bad foreign key " + f.name + " in " + t.name);
      }
      f.on_delete = static_cast<ForeignKeyAction>(pf.on_delete());
      f.on_update = static_cast<ForeignKeyAction>(pf.on_update());
      t.foreign_keys.push_back(std::move(f));
    }
    return t;
  }

  static std::string Serialize(const CatalogSnapshot& s) {
    catalogpb::CatalogFile f;
    f.set_version(kCatalogFormatVersion);
    f.set_next_table_id(s.next_table_id_);
    f.set_next_space_id(s.next_space_id_);
    f.set_next_index_id(s.next_index_id_);
    for (const auto& [name, db] : s.databases_) {
      catalogpb::Database* pd = f.add_databases();
      pd->set_name(db.name);
      pd->set_default_charset(db.default_charset);
      pd->set_default_collation(db.default_collation);
    }
    for (const auto& [id, t] : s.by_id_) ToProto(*t, f.add_tables());
    std::string payload;
    f.SerializeToString(&payload);
    if (!s.broken_.empty()) {
      // Appended messages merge (repeated fields concatenate): the broken
      // tables' bytes go back as they were read.
      catalogpb::CatalogFileTables broken;
      for (const BrokenTable& b : s.broken_) broken.add_tables(b.raw);
      payload += broken.SerializeAsString();
    }
    std::string out(kMagic, sizeof(kMagic));
    PutLE(&out, payload.size(), 8);
    PutLE(&out, Crc32(payload), 4);
    out += payload;
    return out;
  }

  static Result<std::shared_ptr<CatalogSnapshot>> Parse(std::string_view bytes) {
    if (bytes.size() < kHeaderSize || std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
      return Status::Corruption("catalog: bad header");
    }
    const uint64_t len = GetLE(bytes.data() + 8, 8);
    const uint32_t crc = static_cast<uint32_t>(GetLE(bytes.data() + 16, 4));
    if (len != bytes.size() - kHeaderSize) return Status::Corruption("catalog: bad length");
    std::string_view payload = bytes.substr(kHeaderSize);
    if (Crc32(payload) != crc) return Status::Corruption("catalog: checksum mismatch");
    catalogpb::CatalogFileTables f;
    if (!f.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      return Status::Corruption("catalog: unparsable protobuf");
    }
    if (f.version() != kCatalogFormatVersion) {
      return Status::Corruption("catalog: unsupported version " + std::to_string(f.version()));
    }
    auto s = std::make_shared<CatalogSnapshot>();
    s->next_table_id_ = f.next_table_id();
    s->next_space_id_ = f.next_space_id();
    s->next_index_id_ = f.next_index_id();
    for (const catalogpb::Database& pd : f.databases()) {
      DatabaseDef db{pd.name(), pd.default_charset(), pd.default_collation()};
      s->databases_.emplace(db.name, std::move(db));
    }
    for (const std::string& raw : f.tables()) {
      catalogpb::Table pt;
      Result<TableDef> t = Status::Corruption("catalog: unparsable table definition");
      const bool parsed = pt.ParseFromString(raw);
      if (parsed) t = FromProto(pt);
      if (t.ok() && s->FindTable(t->schema, t->name) != nullptr) {
        t = Status::Corruption("catalog: a second definition of the table");
      }
      if (t.ok() && s->FindTableById(t->id) != nullptr) {
        t = Status::Corruption("catalog: table id " + std::to_string(t->id) + " used twice");
      }
      if (!t.ok()) {
        BrokenTable b;
        if (parsed) {
          b.schema = pt.schema();
          b.name = pt.name();
          b.id = pt.id();
          b.space_id = pt.space_id();
        }
        b.reason = t.status().message();
        b.raw = raw;
        s->broken_.push_back(std::move(b));
        continue;
      }
      auto ptr = std::make_shared<const TableDef>(std::move(*t));
      s->by_name_[{ptr->schema, ptr->name}] = ptr;
      s->by_id_[ptr->id] = ptr;
    }
    return s;
  }
};

// ---- CatalogSnapshot ----

const DatabaseDef* CatalogSnapshot::FindDatabase(std::string_view name) const {
  auto it = databases_.find(name);
  return it == databases_.end() ? nullptr : &it->second;
}

CatalogSnapshot::TablePtr CatalogSnapshot::FindTable(std::string_view schema, std::string_view name) const {
  auto it = by_name_.find({std::string(schema), std::string(name)});
  return it == by_name_.end() ? nullptr : it->second;
}

const BrokenTable* CatalogSnapshot::FindBrokenTable(std::string_view schema, std::string_view name) const {
  for (const BrokenTable& b : broken_) {
    if (b.schema == schema && b.name == name) return &b;
  }
  return nullptr;
}

CatalogSnapshot::TablePtr CatalogSnapshot::FindTableById(uint64_t id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

void CatalogSnapshot::IndexForeignKeys() {
  std::set<std::pair<std::string, std::string>> parents;
  for (const auto& [id, table] : by_id_) {
    if (IsTempTableName(table->name)) continue;
    for (const ForeignKeyDef& f : table->foreign_keys) parents.emplace(f.ref_schema, f.ref_table);
  }
  // Each table's `referenced` made right, on a copy where it changes.
  for (auto& [id, table] : by_id_) {
    const bool referenced = parents.count({table->schema, table->name}) != 0;
    if (table->referenced == referenced) continue;
    auto copy = std::make_shared<TableDef>(*table);
    copy->referenced = referenced;
    table = copy;
    by_name_[{copy->schema, copy->name}] = copy;
  }
  referenced_by_.clear();
  for (const auto& [id, table] : by_id_) {
    // A rebuild's copy (ALTER TABLE) is nobody's child until it is swapped in.
    if (IsTempTableName(table->name)) continue;
    for (size_t i = 0; i < table->foreign_keys.size(); ++i) {
      const ForeignKeyDef& f = table->foreign_keys[i];
      referenced_by_.emplace(std::pair{f.ref_schema, f.ref_table}, ForeignKeyRef{table, i});
    }
  }
}

std::vector<CatalogSnapshot::ForeignKeyRef> CatalogSnapshot::ReferencingForeignKeys(std::string_view schema,
                                                                                     std::string_view name) const {
  std::vector<ForeignKeyRef> out;
  auto [lo, hi] = referenced_by_.equal_range({std::string(schema), std::string(name)});
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  return out;
}

std::vector<CatalogSnapshot::TablePtr> CatalogSnapshot::TablesIn(std::string_view schema) const {
  std::vector<TablePtr> out = AllTablesIn(schema);
  std::erase_if(out, [](const TablePtr& t) { return IsTempTableName(t->name); });
  return out;
}

std::vector<CatalogSnapshot::TablePtr> CatalogSnapshot::AllTablesIn(std::string_view schema) const {
  std::vector<TablePtr> out;
  for (auto it = by_name_.lower_bound({std::string(schema), std::string()});
       it != by_name_.end() && it->first.first == schema; ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<std::string> CatalogSnapshot::DatabaseNames() const {
  std::vector<std::string> out;
  for (const auto& [name, db] : databases_) out.push_back(name);
  return out;
}

// ---- Catalog ----

Catalog::Catalog(io::FileSystem* fs, std::string datadir)
    : fs_(fs),
      datadir_(std::move(datadir)),
      path_(JoinPath(datadir_, kCatalogFileName)),
      tmp_path_(JoinPath(datadir_, kCatalogTempFileName)) {}

Result<std::unique_ptr<Catalog>> Catalog::Open(io::FileSystem* fs, std::string datadir) {
  std::unique_ptr<Catalog> cat(new Catalog(fs, std::move(datadir)));
  SLUICE_RETURN_IF_ERROR(fs->CreateDir(cat->datadir_));
  Result<bool> tmp_exists = fs->Exists(cat->tmp_path_);
  if (!tmp_exists.ok()) return tmp_exists.status();
  if (*tmp_exists) SLUICE_RETURN_IF_ERROR(fs->Remove(cat->tmp_path_));
  Result<bool> exists = fs->Exists(cat->path_);
  if (!exists.ok()) return exists.status();
  if (!*exists) {
    MutexLock lock(&cat->ddl_mu_);
    cat->Publish(std::make_shared<const CatalogSnapshot>());
    SLUICE_RETURN_IF_ERROR(cat->CommitLocked(std::make_shared<CatalogSnapshot>()));
    return cat;
  }
  Result<std::unique_ptr<io::File>> file = fs->Open(cat->path_, io::OpenMode::kReadOnly);
  if (!file.ok()) return file.status();
  Result<uint64_t> size = (*file)->Size();
  if (!size.ok()) return size.status();
  std::string bytes(*size, '\0');
  Result<size_t> n = (*file)->ReadAt(0, bytes.data(), bytes.size());
  if (!n.ok()) return n.status();
  bytes.resize(*n);
  Result<std::shared_ptr<CatalogSnapshot>> snap = CatalogCodec::Parse(bytes);
  if (!snap.ok()) return snap.status();
  (*snap)->IndexForeignKeys();
  cat->Publish(std::move(*snap));
  return cat;
}

std::shared_ptr<CatalogSnapshot> Catalog::CopyCurrent() const {
  return std::make_shared<CatalogSnapshot>(*snapshot());
}

Status Catalog::CommitLocked(std::shared_ptr<CatalogSnapshot> next) {
  if (!sticky_error_.ok()) return sticky_error_;
  const std::string bytes = CatalogCodec::Serialize(*next);
  // Before the rename the old file is intact; after it the new one is.
  bool renamed = false;
  Status st = io::WriteFileAtomically(*fs_, path_, bytes, {}, &renamed);
  if (!st.ok()) {
    // A failed directory sync after the rename: the rename may or may not
    // be durable, so stop DDL until a restart.
    if (renamed) sticky_error_ = st;
    return st;
  }
  next->IndexForeignKeys();
  Publish(std::move(next));
  return Status::OK();
}

Status Catalog::CreateDatabase(const DatabaseDef& db) {
  SLUICE_RETURN_IF_ERROR(CheckIdentifier(db.name, NameKind::kDatabase));
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  if (next->FindDatabase(db.name) != nullptr) return MakeError(er::kDbCreateExists, db.name);
  next->databases_.emplace(db.name, db);
  return CommitLocked(std::move(next));
}

Status Catalog::DropDatabase(std::string_view name, std::vector<uint32_t>* dropped_spaces) {
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  auto it = next->databases_.find(name);
  if (it == next->databases_.end()) return MakeError(er::kDbDropExists, name);
  next->databases_.erase(it);
  std::vector<uint32_t> spaces;
  for (const CatalogSnapshot::TablePtr& t : next->AllTablesIn(name)) {
    spaces.push_back(t->space_id);
    next->by_name_.erase({t->schema, t->name});
    next->by_id_.erase(t->id);
  }
  std::erase_if(next->broken_, [&](const BrokenTable& b) {
    if (b.schema != name) return false;
    if (b.space_id != 0) spaces.push_back(b.space_id);
    return true;
  });
  SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
  if (dropped_spaces != nullptr) *dropped_spaces = std::move(spaces);
  return Status::OK();
}

Result<std::shared_ptr<const TableDef>> Catalog::CreateTable(TableDef table) {
  // Names first, as MySQL's parser does: nothing that fails to read back
  // may reach the file.
  SLUICE_RETURN_IF_ERROR(CheckTableDefText(table));
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  if (next->FindDatabase(table.schema) == nullptr) return MakeError(er::kBadDb, table.schema);
  if (next->FindTable(table.schema, table.name) != nullptr ||
      next->FindBrokenTable(table.schema, table.name) != nullptr) {
    return MakeError(er::kTableExists, table.name);
  }
  SLUICE_RETURN_IF_ERROR(NormalizeTableDef(&table));
  table.id = next->next_table_id_++;
  table.space_id = next->next_space_id_++;
  for (IndexDef& i : table.indexes) {
    i.id = next->next_index_id_++;
    i.root_page = 0;
    i.key_format = kCurrentKeyFormat;
  }
  auto ptr = std::make_shared<const TableDef>(std::move(table));
  next->by_name_[{ptr->schema, ptr->name}] = ptr;
  next->by_id_[ptr->id] = ptr;
  SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
  return ptr;
}

Status Catalog::DropTable(std::string_view schema, std::string_view name, uint32_t* space_id) {
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  CatalogSnapshot::TablePtr t = next->FindTable(schema, name);
  if (t == nullptr) {
    auto b = std::find_if(next->broken_.begin(), next->broken_.end(), [&](const BrokenTable& x) {
      return x.schema == schema && x.name == name;
    });
    if (b == next->broken_.end()) return MakeError(er::kBadTable, std::string(schema) + "." + std::string(name));
    const uint32_t broken_space = b->space_id;
    next->broken_.erase(b);
    SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
    if (space_id != nullptr) *space_id = broken_space;
    return Status::OK();
  }
  next->by_name_.erase({t->schema, t->name});
  next->by_id_.erase(t->id);
  SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
  if (space_id != nullptr) *space_id = t->space_id;
  return Status::OK();
}

Status Catalog::RenameTable(std::string_view from_schema, std::string_view from_name,
                            std::string_view to_schema, std::string_view to_name) {
  return RenameTables({TableRename{std::string(from_schema), std::string(from_name), std::string(to_schema),
                                   std::string(to_name)}});
}

Result<CatalogSnapshot::TablePtr> Catalog::MoveTable(CatalogSnapshot* next, const CatalogSnapshot::TablePtr& t,
                                                     std::string_view to_schema, std::string_view to_name) {
  if (next->FindDatabase(to_schema) == nullptr) return MakeError(er::kBadDb, to_schema);
  if (next->FindTable(to_schema, to_name) != nullptr || next->FindBrokenTable(to_schema, to_name) != nullptr) {
    return MakeError(er::kTableExists, to_name);
  }
  auto renamed = std::make_shared<TableDef>(*t);
  renamed->schema = std::string(to_schema);
  renamed->name = std::string(to_name);
  // CHECK and FOREIGN KEY names generated from the table's name follow it
  // (MySQL 8.0).
  for (CheckDef& c : renamed->checks) {
    if (std::optional<std::string_view> digits = GeneratedCheckDigits(t->name, c.name)) {
      c.name = GeneratedCheckName(to_name, *digits);
    }
  }
  for (ForeignKeyDef& f : renamed->foreign_keys) {
    if (std::optional<std::string_view> digits = GeneratedForeignKeyDigits(t->name, f.name)) {
      f.name = GeneratedForeignKeyName(to_name, *digits);
    }
  }
  next->by_name_.erase({t->schema, t->name});
  next->by_name_[{renamed->schema, renamed->name}] = renamed;
  next->by_id_[renamed->id] = renamed;
  RetargetForeignKeys(next, t->schema, t->name, to_schema, to_name);
  return next->FindTable(to_schema, to_name);
}

void Catalog::RetargetForeignKeys(CatalogSnapshot* next, std::string_view from_schema, std::string_view from_name,
                                  std::string_view to_schema, std::string_view to_name) {
  std::vector<std::shared_ptr<TableDef>> changed;
  for (const auto& [id, table] : next->by_id_) {
    bool refers = false;
    for (const ForeignKeyDef& f : table->foreign_keys) {
      refers = refers || (f.ref_schema == from_schema && f.ref_table == from_name);
    }
    if (!refers) continue;
    auto copy = std::make_shared<TableDef>(*table);
    for (ForeignKeyDef& f : copy->foreign_keys) {
      if (f.ref_schema != from_schema || f.ref_table != from_name) continue;
      f.ref_schema = std::string(to_schema);
      f.ref_table = std::string(to_name);
    }
    changed.push_back(std::move(copy));
  }
  for (std::shared_ptr<TableDef>& c : changed) {
    next->by_name_[{c->schema, c->name}] = c;
    next->by_id_[c->id] = c;
  }
}

Status Catalog::RenameTables(const std::vector<TableRename>& renames,
                             std::vector<std::shared_ptr<const TableDef>>* renamed) {
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  std::vector<std::shared_ptr<const TableDef>> moved;
  for (const TableRename& r : renames) {
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(r.to_schema, NameKind::kDatabase));
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(r.to_name, NameKind::kTable));
    CatalogSnapshot::TablePtr t = next->FindTable(r.from_schema, r.from_name);
    if (t == nullptr) return MakeError(er::kNoSuchTable, r.from_schema, r.from_name);
    Result<CatalogSnapshot::TablePtr> m = MoveTable(next.get(), t, r.to_schema, r.to_name);
    if (!m.ok()) return m.status();
    moved.push_back(*m);
  }
  SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
  if (renamed != nullptr) *renamed = std::move(moved);
  return Status::OK();
}

Result<std::shared_ptr<const TableDef>> Catalog::ReplaceTable(std::string_view schema, std::string_view name,
                                                              std::string_view temp_name,
                                                              std::string_view new_schema,
                                                              std::string_view new_name, uint32_t* old_space_id) {
  if (new_schema != schema || new_name != name) {
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(new_schema, NameKind::kDatabase));
    SLUICE_RETURN_IF_ERROR(CheckIdentifier(new_name, NameKind::kTable));
  }
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  CatalogSnapshot::TablePtr old = next->FindTable(schema, name);
  if (old == nullptr) return MakeError(er::kNoSuchTable, schema, name);
  CatalogSnapshot::TablePtr temp = next->FindTable(schema, temp_name);
  if (temp == nullptr) return MakeError(er::kNoSuchTable, schema, temp_name);
  // The old table goes first: its name is free for the new one.
  next->by_name_.erase({old->schema, old->name});
  next->by_id_.erase(old->id);
  Result<CatalogSnapshot::TablePtr> m = MoveTable(next.get(), temp, new_schema, new_name);
  if (!m.ok()) return m.status();
  // Keys that referenced the old table now reference the new one.
  if (new_schema != schema || new_name != name) RetargetForeignKeys(next.get(), schema, name, new_schema, new_name);
  m = next->FindTable(new_schema, new_name);
  SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
  if (old_space_id != nullptr) *old_space_id = old->space_id;
  return *m;
}

Result<std::shared_ptr<const TableDef>> Catalog::AlterTable(std::string_view schema, std::string_view name,
                                                            TableDef new_def) {
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  CatalogSnapshot::TablePtr old = next->FindTable(schema, name);
  if (old == nullptr) return MakeError(er::kNoSuchTable, schema, name);
  new_def.schema = old->schema;
  new_def.name = old->name;
  SLUICE_RETURN_IF_ERROR(CheckTableDefText(new_def, old.get()));
  SLUICE_RETURN_IF_ERROR(NormalizeTableDef(&new_def));
  new_def.id = old->id;
  new_def.space_id = old->space_id;
  new_def.next_row_id = old->next_row_id;
  new_def.auto_increment_next = std::max(old->auto_increment_next, new_def.auto_increment_next);
  auto same_parts = [](const IndexDef& a, const IndexDef& b) {
    if (a.parts.size() != b.parts.size() || a.unique != b.unique || a.kind != b.kind) return false;
    for (size_t i = 0; i < a.parts.size(); ++i) {
      // Compare by column name: ordinals move when columns are added/dropped.
      const KeyPart& x = a.parts[i];
      const KeyPart& y = b.parts[i];
      if (x.prefix_length != y.prefix_length || x.desc != y.desc ||
          x.column_name.size() != y.column_name.size() ||
          !std::equal(x.column_name.begin(), x.column_name.end(), y.column_name.begin(),
                      [](char p, char q) {
                        return std::tolower(static_cast<unsigned char>(p)) ==
                               std::tolower(static_cast<unsigned char>(q));
                      })) {
        return false;
      }
    }
    return true;
  };
  for (IndexDef& i : new_def.indexes) {
    const IndexDef* kept = old->FindIndex(i.name);
    if (kept != nullptr && same_parts(*kept, i)) {
      i.id = kept->id;
      i.root_page = kept->root_page;
      i.key_format = kept->key_format;  // the tree's keys are as they were
    } else {
      i.id = next->next_index_id_++;
      i.root_page = 0;
      i.key_format = kCurrentKeyFormat;
    }
  }
  auto ptr = std::make_shared<const TableDef>(std::move(new_def));
  next->by_name_[{ptr->schema, ptr->name}] = ptr;
  next->by_id_[ptr->id] = ptr;
  SLUICE_RETURN_IF_ERROR(CommitLocked(std::move(next)));
  return ptr;
}

Status Catalog::SetIndexRoot(uint64_t table_id, uint64_t index_id, uint32_t root_page) {
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  CatalogSnapshot::TablePtr t = next->FindTableById(table_id);
  if (t == nullptr) return Status::InvalidArgument("catalog: no table id " + std::to_string(table_id));
  auto changed = std::make_shared<TableDef>(*t);
  auto it = std::find_if(changed->indexes.begin(), changed->indexes.end(),
                         [&](const IndexDef& i) { return i.id == index_id; });
  if (it == changed->indexes.end()) {
    return Status::InvalidArgument("catalog: no index id " + std::to_string(index_id));
  }
  it->root_page = root_page;
  next->by_name_[{changed->schema, changed->name}] = changed;
  next->by_id_[changed->id] = changed;
  return CommitLocked(std::move(next));
}

Status Catalog::SetCounters(uint64_t table_id, uint64_t auto_increment_next, uint64_t next_row_id) {
  MutexLock lock(&ddl_mu_);
  auto next = CopyCurrent();
  CatalogSnapshot::TablePtr t = next->FindTableById(table_id);
  if (t == nullptr) return Status::InvalidArgument("catalog: no table id " + std::to_string(table_id));
  auto changed = std::make_shared<TableDef>(*t);
  changed->auto_increment_next = std::max(changed->auto_increment_next, auto_increment_next);
  changed->next_row_id = std::max(changed->next_row_id, next_row_id);
  next->by_name_[{changed->schema, changed->name}] = changed;
  next->by_id_[changed->id] = changed;
  return CommitLocked(std::move(next));
}

std::vector<uint32_t> Catalog::ReferencedSpaces() const {
  std::set<uint32_t> ids;
  auto snap = snapshot();
  for (const auto& [id, t] : snap->by_id_) ids.insert(t->space_id);
  // A broken table's rows stay on disk until it is dropped.
  for (const BrokenTable& b : snap->broken_) {
    if (b.space_id != 0) ids.insert(b.space_id);
  }
  return std::vector<uint32_t>(ids.begin(), ids.end());
}

}  // namespace sluice::storage
