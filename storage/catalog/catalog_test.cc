#include "storage/catalog/catalog.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

#include "base/io/mem_file_system.h"

namespace sluice::storage {
namespace {

constexpr char kDir[] = "/data";

ColumnDef Col(std::string name, ColumnType type) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  return c;
}

IndexDef Idx(std::string name, std::vector<std::string> cols, bool primary = false, bool unique = false) {
  IndexDef i;
  i.name = std::move(name);
  i.kind = primary ? IndexKind::kClustered : IndexKind::kSecondary;
  i.unique = unique;
  for (auto& c : cols) i.parts.push_back(KeyPart{c, 0, 0, false});
  return i;
}

TableDef SimpleTable(std::string schema, std::string name) {
  TableDef t;
  t.schema = std::move(schema);
  t.name = std::move(name);
  ColumnDef id = Col("id", ColumnType::kBigInt);
  id.auto_increment = true;
  t.columns.push_back(id);
  ColumnDef v = Col("v", ColumnType::kVarChar);
  v.length = 100;
  v.default_kind = ColumnDef::DefaultKind::kValue;
  v.default_value = "x";
  t.columns.push_back(v);
  ColumnDef d = Col("price", ColumnType::kDecimal);
  d.precision = 10;
  d.scale = 2;
  t.columns.push_back(d);
  ColumnDef ts = Col("ts", ColumnType::kTimestamp);
  ts.fsp = 6;
  ts.default_kind = ColumnDef::DefaultKind::kCurrentTimestamp;
  t.columns.push_back(ts);
  ColumnDef e = Col("e", ColumnType::kEnum);
  e.enum_values = {"a", "b"};
  e.default_kind = ColumnDef::DefaultKind::kNull;
  t.columns.push_back(e);
  t.indexes.push_back(Idx("PRIMARY", {"id"}, true));
  t.indexes.push_back(Idx("v_idx", {"V"}, false, true));
  t.options.comment = "hello";
  return t;
}

class CatalogTest : public ::testing::Test {
 protected:
  std::unique_ptr<Catalog> OpenCatalog() {
    auto r = Catalog::Open(&fs_, kDir);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : nullptr;
  }
  uint32_t CreateUndecodableTable(bool with_good);
  io::MemFileSystem fs_;
};

TEST_F(CatalogTest, EmptyDatadirCreatesCatalogFile) {
  auto cat = OpenCatalog();
  EXPECT_TRUE(*fs_.Exists("/data/catalog.pb"));
  EXPECT_EQ(cat->snapshot()->table_count(), 0u);
}

TEST_F(CatalogTest, DefinitionsSurviveReopen) {
  {
    auto cat = OpenCatalog();
    ASSERT_TRUE(cat->CreateDatabase({"db1", "latin1", "latin1_swedish_ci"}).ok());
    TableDef def = SimpleTable("db1", "t1");
    def.checks = {CheckDef{"t1_chk_1", "v <> 'z'", true}, CheckDef{"off", "id > 0", false}};
    auto t = cat->CreateTable(def);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    ASSERT_TRUE(cat->SetIndexRoot((*t)->id, (*t)->indexes[1].id, 42).ok());
    ASSERT_TRUE(cat->SetCounters((*t)->id, 77, 5).ok());
  }
  fs_.DropUnsyncedData();
  auto cat = OpenCatalog();
  auto snap = cat->snapshot();
  ASSERT_NE(snap->FindDatabase("db1"), nullptr);
  EXPECT_EQ(snap->FindDatabase("db1")->default_charset, "latin1");
  auto t = snap->FindTable("db1", "t1");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(snap->FindTableById(t->id), t);
  ASSERT_EQ(t->columns.size(), 5u);
  EXPECT_EQ(t->columns[0].name, "id");
  EXPECT_FALSE(t->columns[0].nullable);  // PK column forced NOT NULL
  EXPECT_TRUE(t->columns[0].auto_increment);
  EXPECT_EQ(t->columns[1].default_value, "x");
  EXPECT_EQ(t->columns[1].default_kind, ColumnDef::DefaultKind::kValue);
  EXPECT_EQ(t->columns[2].precision, 10u);
  EXPECT_EQ(t->columns[2].scale, 2u);
  EXPECT_EQ(t->columns[3].fsp, 6u);
  EXPECT_EQ(t->columns[3].default_kind, ColumnDef::DefaultKind::kCurrentTimestamp);
  EXPECT_EQ(t->columns[4].default_kind, ColumnDef::DefaultKind::kNull);
  EXPECT_EQ(t->columns[4].enum_values, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(t->indexes.size(), 2u);
  EXPECT_EQ(t->indexes[0].name, "PRIMARY");
  EXPECT_EQ(t->indexes[1].parts[0].column, 1u);
  EXPECT_EQ(t->indexes[1].parts[0].column_name, "v");
  EXPECT_EQ(t->indexes[1].root_page, 42u);
  EXPECT_TRUE(t->indexes[1].unique);
  EXPECT_EQ(t->auto_increment_next, 77u);
  EXPECT_EQ(t->next_row_id, 5u);
  EXPECT_EQ(t->options.comment, "hello");
  EXPECT_EQ(t->checks, (std::vector<CheckDef>{CheckDef{"t1_chk_1", "v <> 'z'", true}, CheckDef{"off", "id > 0", false}}));
  EXPECT_NE(t->space_id, 0u);
  EXPECT_EQ(cat->ReferencedSpaces(), std::vector<uint32_t>{t->space_id});
  // Ids keep counting after a reopen.
  auto t2 = cat->CreateTable(SimpleTable("db1", "t2"));
  ASSERT_TRUE(t2.ok());
  EXPECT_GT((*t2)->id, t->id);
  EXPECT_GT((*t2)->space_id, t->space_id);
  EXPECT_GT((*t2)->indexes[0].id, t->indexes[1].id);
}

TEST_F(CatalogTest, DatabaseErrors) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  Status st = cat->CreateDatabase({"db"});
  EXPECT_EQ(st.mysql_errno(), 1007);
  EXPECT_EQ(st.message(), "Can't create database 'db'; database exists");
  st = cat->DropDatabase("nope");
  EXPECT_EQ(st.mysql_errno(), 1008);
  EXPECT_EQ(st.message(), "Can't drop database 'nope'; database doesn't exist");
  EXPECT_TRUE(cat->CreateDatabase({"DB"}).ok());  // case-sensitive names
  auto t = cat->CreateTable(SimpleTable("missing", "t"));
  EXPECT_EQ(t.status().mysql_errno(), 1049);
  EXPECT_EQ(t.status().message(), "Unknown database 'missing'");
}

TEST_F(CatalogTest, DropDatabaseDropsItsTables) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  ASSERT_TRUE(cat->CreateDatabase({"other"}).ok());
  auto a = cat->CreateTable(SimpleTable("db", "a"));
  auto b = cat->CreateTable(SimpleTable("other", "b"));
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<uint32_t> spaces;
  ASSERT_TRUE(cat->DropDatabase("db", &spaces).ok());
  EXPECT_EQ(spaces, std::vector<uint32_t>{(*a)->space_id});
  EXPECT_EQ(cat->snapshot()->FindTable("db", "a"), nullptr);
  EXPECT_NE(cat->snapshot()->FindTable("other", "b"), nullptr);
}

TEST_F(CatalogTest, TableDdlErrors) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  ASSERT_TRUE(cat->CreateTable(SimpleTable("db", "t")).ok());
  auto dup = cat->CreateTable(SimpleTable("db", "t"));
  EXPECT_EQ(dup.status().mysql_errno(), 1050);
  EXPECT_EQ(dup.status().message(), "Table 't' already exists");
  EXPECT_TRUE(cat->CreateTable(SimpleTable("db", "T")).ok());  // case-sensitive

  Status st = cat->DropTable("db", "nope");
  EXPECT_EQ(st.mysql_errno(), 1051);
  EXPECT_EQ(st.message(), "Unknown table 'db.nope'");

  st = cat->RenameTable("db", "nope", "db", "x");
  EXPECT_EQ(st.mysql_errno(), 1146);
  EXPECT_EQ(st.message(), "Table 'db.nope' doesn't exist");
  st = cat->RenameTable("db", "t", "db", "T");
  EXPECT_EQ(st.mysql_errno(), 1050);
  st = cat->RenameTable("db", "t", "nodb", "t");
  EXPECT_EQ(st.mysql_errno(), 1049);
  auto alt = cat->AlterTable("db", "nope", SimpleTable("db", "nope"));
  EXPECT_EQ(alt.status().mysql_errno(), 1146);
}

TEST_F(CatalogTest, RenameAndDropTable) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  ASSERT_TRUE(cat->CreateDatabase({"db2"}).ok());
  auto t = cat->CreateTable(SimpleTable("db", "t"));
  ASSERT_TRUE(t.ok());
  auto before = cat->snapshot();
  ASSERT_TRUE(cat->RenameTable("db", "t", "db2", "u").ok());
  // An old snapshot is unchanged.
  EXPECT_NE(before->FindTable("db", "t"), nullptr);
  auto now = cat->snapshot();
  EXPECT_EQ(now->FindTable("db", "t"), nullptr);
  auto u = now->FindTable("db2", "u");
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->id, (*t)->id);
  EXPECT_EQ(now->FindTableById(u->id)->name, "u");
  uint32_t space = 0;
  ASSERT_TRUE(cat->DropTable("db2", "u", &space).ok());
  EXPECT_EQ(space, (*t)->space_id);
  EXPECT_EQ(cat->snapshot()->table_count(), 0u);
  EXPECT_TRUE(cat->ReferencedSpaces().empty());
}

TEST_F(CatalogTest, RenameTablesIsAllOrNothingAndCanSwap) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  auto a = cat->CreateTable(SimpleTable("db", "a"));
  auto b = cat->CreateTable(SimpleTable("db", "b"));
  ASSERT_TRUE(a.ok() && b.ok());
  // a <-> b through a third name, in one write.
  std::vector<std::shared_ptr<const TableDef>> renamed;
  ASSERT_TRUE(cat->RenameTables({{"db", "a", "db", "tmp"}, {"db", "b", "db", "a"}, {"db", "tmp", "db", "b"}},
                                &renamed)
                  .ok());
  ASSERT_EQ(renamed.size(), 3u);
  EXPECT_EQ(renamed[2]->name, "b");
  EXPECT_EQ(cat->snapshot()->FindTable("db", "a")->id, (*b)->id);
  EXPECT_EQ(cat->snapshot()->FindTable("db", "b")->id, (*a)->id);
  EXPECT_EQ(cat->snapshot()->FindTable("db", "tmp"), nullptr);
  // A later step fails: the earlier ones are not kept.
  Status st = cat->RenameTables({{"db", "a", "db", "c"}, {"db", "nope", "db", "d"}});
  EXPECT_EQ(st.mysql_errno(), 1146);
  EXPECT_NE(cat->snapshot()->FindTable("db", "a"), nullptr);
  EXPECT_EQ(cat->snapshot()->FindTable("db", "c"), nullptr);
}

TEST_F(CatalogTest, ForeignKeysSurviveReopenAndFollowTheirParent) {
  auto child_def = [](std::string name, std::string parent_schema, std::string parent) {
    TableDef t = SimpleTable("db", std::move(name));
    ForeignKeyDef fk;
    fk.name = t.name + "_ibfk_1";
    fk.columns = {"v"};
    fk.ref_schema = std::move(parent_schema);
    fk.ref_table = std::move(parent);
    fk.ref_columns = {"v"};
    fk.on_delete = ForeignKeyAction::kCascade;
    fk.on_update = ForeignKeyAction::kSetNull;
    t.foreign_keys.push_back(fk);
    return t;
  };
  {
    auto cat = OpenCatalog();
    ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
    ASSERT_TRUE(cat->CreateDatabase({"db2"}).ok());
    ASSERT_TRUE(cat->CreateTable(SimpleTable("db", "p")).ok());
    ASSERT_TRUE(cat->CreateTable(child_def("c", "db", "p")).ok());
    ASSERT_TRUE(cat->CreateTable(child_def("self", "db", "self")).ok());
    ASSERT_TRUE(cat->CreateTable(child_def("orphan", "db", "later")).ok());  // foreign_key_checks=0
  }
  fs_.DropUnsyncedData();
  auto cat = OpenCatalog();
  auto snap = cat->snapshot();
  auto c = snap->FindTable("db", "c");
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->foreign_keys.size(), 1u);
  EXPECT_EQ(c->foreign_keys[0].name, "c_ibfk_1");
  EXPECT_EQ(c->foreign_keys[0].on_delete, ForeignKeyAction::kCascade);
  EXPECT_EQ(c->foreign_keys[0].on_update, ForeignKeyAction::kSetNull);
  auto refs = snap->ReferencingForeignKeys("db", "p");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].child->name, "c");
  EXPECT_EQ(refs[0].def().name, "c_ibfk_1");
  ASSERT_EQ(snap->ReferencingForeignKeys("db", "self").size(), 1u);
  EXPECT_EQ(snap->ReferencingForeignKeys("db", "later").size(), 1u);
  EXPECT_TRUE(snap->ReferencingForeignKeys("db", "c").empty());
  EXPECT_TRUE(snap->FindTable("db", "p")->referenced);
  EXPECT_TRUE(snap->FindTable("db", "self")->referenced);
  EXPECT_FALSE(c->referenced);
  // A parent created after its child (foreign_key_checks=0) is referenced.
  ASSERT_TRUE(cat->CreateTable(SimpleTable("db", "later")).ok());
  EXPECT_TRUE(cat->snapshot()->FindTable("db", "later")->referenced);

  // RENAME TABLE of a parent: the keys that reference it follow, and a
  // generated key name follows its own table.
  ASSERT_TRUE(cat->RenameTable("db", "p", "db2", "p2").ok());
  ASSERT_TRUE(cat->RenameTable("db", "self", "db", "mine").ok());
  snap = cat->snapshot();
  EXPECT_EQ(snap->FindTable("db", "c")->foreign_keys[0].ref_schema, "db2");
  EXPECT_EQ(snap->FindTable("db", "c")->foreign_keys[0].ref_table, "p2");
  EXPECT_TRUE(snap->ReferencingForeignKeys("db", "p").empty());
  EXPECT_EQ(snap->ReferencingForeignKeys("db2", "p2").size(), 1u);
  auto mine = snap->FindTable("db", "mine");
  EXPECT_EQ(mine->foreign_keys[0].name, "mine_ibfk_1");
  EXPECT_EQ(mine->foreign_keys[0].ref_table, "mine");
  // A rebuild under a new name (ALTER TABLE ... RENAME TO with a copy).
  ASSERT_TRUE(cat->CreateTable(SimpleTable("db2", "#sql-9")).ok());
  uint32_t space = 0;
  ASSERT_TRUE(cat->ReplaceTable("db2", "p2", "#sql-9", "db", "p3", &space).ok());
  EXPECT_EQ(cat->snapshot()->FindTable("db", "c")->foreign_keys[0].ref_table, "p3");
  EXPECT_EQ(cat->snapshot()->ReferencingForeignKeys("db", "p3").size(), 1u);
}

TEST_F(CatalogTest, ReplaceTableSwapsInTheTemporaryTableInOneWrite) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  ASSERT_TRUE(cat->CreateDatabase({"db2"}).ok());
  auto old = cat->CreateTable(SimpleTable("db", "t"));
  auto temp = cat->CreateTable(SimpleTable("db", "#sql-1"));
  ASSERT_TRUE(old.ok() && temp.ok());
  // Hidden from listings while it is being built.
  auto listed = cat->snapshot()->TablesIn("db");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]->name, "t");
  EXPECT_EQ(cat->snapshot()->AllTablesIn("db").size(), 2u);

  ASSERT_TRUE(cat->CreateTable(SimpleTable("db2", "taken")).ok());
  uint32_t space = 0;
  EXPECT_EQ(cat->ReplaceTable("db", "t", "#sql-1", "db2", "taken", &space).status().mysql_errno(), 1050);
  EXPECT_EQ(cat->ReplaceTable("db", "t", "#sql-1", "nodb", "t", &space).status().mysql_errno(), 1049);
  EXPECT_EQ(cat->ReplaceTable("db", "t", "#sql-2", "db", "t", &space).status().mysql_errno(), 1146);
  EXPECT_EQ(cat->snapshot()->FindTable("db", "t")->id, (*old)->id);  // unchanged

  auto replaced = cat->ReplaceTable("db", "t", "#sql-1", "db", "t", &space);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(space, (*old)->space_id);
  EXPECT_EQ((*replaced)->id, (*temp)->id);
  EXPECT_EQ((*replaced)->name, "t");
  EXPECT_EQ(cat->snapshot()->FindTable("db", "t")->id, (*temp)->id);
  EXPECT_EQ(cat->snapshot()->FindTable("db", "#sql-1"), nullptr);
  EXPECT_EQ(cat->snapshot()->FindTableById((*old)->id), nullptr);
  // Durable: a reopened catalog has the same.
  cat.reset();
  cat = OpenCatalog();
  EXPECT_EQ(cat->snapshot()->FindTable("db", "t")->id, (*temp)->id);
  EXPECT_EQ(cat->snapshot()->table_count(), 2u);
}

TEST_F(CatalogTest, AlterTableKeepsIdsOfUnchangedIndexes) {
  auto cat = OpenCatalog();
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  auto t = cat->CreateTable(SimpleTable("db", "t"));
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(cat->SetIndexRoot((*t)->id, (*t)->indexes[0].id, 3).ok());
  TableDef def = SimpleTable("db", "t");
  def.columns.insert(def.columns.begin(), Col("extra", ColumnType::kInt));
  def.indexes.push_back(Idx("e_idx", {"extra"}));
  auto a = cat->AlterTable("db", "t", def);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)->id, (*t)->id);
  EXPECT_EQ((*a)->space_id, (*t)->space_id);
  EXPECT_EQ((*a)->indexes[0].id, (*t)->indexes[0].id);
  EXPECT_EQ((*a)->indexes[0].root_page, 3u);
  EXPECT_EQ((*a)->indexes[0].parts[0].column, 1u);  // ordinal moved
  EXPECT_EQ((*a)->indexes[2].root_page, 0u);
  EXPECT_GT((*a)->indexes[2].id, (*t)->indexes[1].id);
  def.columns.push_back(Col("id", ColumnType::kInt));
  EXPECT_EQ(cat->AlterTable("db", "t", def).status().mysql_errno(), 1060);
}

// ---- validation ----

Status Validate(TableDef t) { return NormalizeTableDef(&t); }

TEST(TableDefTest, DuplicateColumnIsCaseInsensitive) {
  TableDef t = SimpleTable("db", "t");
  t.columns.push_back(Col("ID", ColumnType::kInt));
  Status st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1060);
  EXPECT_EQ(st.message(), "Duplicate column name 'ID'");
}

TEST(TableDefTest, MultiplePrimaryKeys) {
  TableDef t = SimpleTable("db", "t");
  t.indexes.push_back(Idx("p2", {"v"}, true));
  Status st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1068);
  EXPECT_EQ(st.message(), "Multiple primary key defined");
}

TEST(TableDefTest, AutoIncrementMustBeAKey) {
  TableDef t = SimpleTable("db", "t");
  t.indexes.clear();
  Status st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1075);
  EXPECT_EQ(st.message(),
            "Incorrect table definition; there can be only one auto column and it must be defined as a key");
  t = SimpleTable("db", "t");
  t.columns.push_back(Col("n", ColumnType::kInt));
  t.columns.back().auto_increment = true;
  t.indexes.push_back(Idx("n", {"n"}));
  EXPECT_EQ(Validate(t).mysql_errno(), 1075);  // two auto columns
  // A key whose second part is the auto column does not count.
  t = SimpleTable("db", "t");
  t.indexes = {Idx("k", {"v", "id"})};
  EXPECT_EQ(Validate(t).mysql_errno(), 1075);
}

TEST(TableDefTest, KeyColumnMissing) {
  TableDef t = SimpleTable("db", "t");
  t.indexes.push_back(Idx("k", {"zz"}));
  Status st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1072);
  EXPECT_EQ(st.message(), "Key column 'zz' doesn't exist in table");
}

TEST(TableDefTest, KeyTooLong) {
  TableDef t = SimpleTable("db", "t");
  ColumnDef big = Col("big", ColumnType::kVarChar);
  big.length = 769;  // 769 * 4 bytes (utf8mb4) > 3072
  t.columns.push_back(big);
  t.indexes.push_back(Idx("k", {"big"}));
  Status st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1071);
  EXPECT_EQ(st.message(), "Specified key was too long; max key length is 3072 bytes");
  t.columns.back().length = 768;
  EXPECT_TRUE(Validate(t).ok());
  // A prefix makes it fit.
  t.columns.back().length = 5000;
  t.indexes.back().parts[0].prefix_length = 100;
  EXPECT_TRUE(Validate(t).ok());
}

TEST(TableDefTest, BlobKeyNeedsPrefix) {
  TableDef t = SimpleTable("db", "t");
  t.columns.push_back(Col("b", ColumnType::kBlob));
  t.indexes.push_back(Idx("k", {"b"}));
  EXPECT_EQ(Validate(t).mysql_errno(), 1170);
}

TEST(TableDefTest, DecimalLimits) {
  TableDef t = SimpleTable("db", "t");
  t.columns[2].precision = 66;
  Status st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1426);
  EXPECT_EQ(st.message(), "Too-big precision 66 specified for 'price'. Maximum is 65.");
  t.columns[2].precision = 65;
  t.columns[2].scale = 31;
  st = Validate(t);
  EXPECT_EQ(st.mysql_errno(), 1425);
  EXPECT_EQ(st.message(), "Too big scale 31 specified for 'price'. Maximum is 30.");
  t.columns[2].precision = 5;
  t.columns[2].scale = 6;
  EXPECT_EQ(Validate(t).mysql_errno(), 1427);
  t.columns[2].precision = 65;
  t.columns[2].scale = 30;
  EXPECT_TRUE(Validate(t).ok());
}

TEST(TableDefTest, NoPrimaryKeyGetsHiddenClusteredIndex) {
  TableDef t;
  t.schema = "db";
  t.name = "t";
  t.columns.push_back(Col("a", ColumnType::kInt));
  t.indexes.push_back(Idx("a", {"a"}));
  ASSERT_TRUE(NormalizeTableDef(&t).ok());
  ASSERT_EQ(t.indexes.size(), 2u);
  EXPECT_TRUE(t.has_hidden_row_id());
  EXPECT_EQ(t.indexes[0].name, "GEN_CLUST_INDEX");
  EXPECT_EQ(t.indexes[0].kind, IndexKind::kClustered);
  EXPECT_TRUE(t.columns[0].nullable);
}

TEST(TableDefTest, PrimaryKeyComesFirstAndIsNotNull) {
  TableDef t = SimpleTable("db", "t");
  std::swap(t.indexes[0], t.indexes[1]);
  ASSERT_TRUE(NormalizeTableDef(&t).ok());
  EXPECT_EQ(t.indexes[0].name, "PRIMARY");
  EXPECT_FALSE(t.has_hidden_row_id());
  EXPECT_FALSE(t.columns[0].nullable);
}

// ---- atomic DDL ----

// The durable catalog after a crash is the state before the DDL or after it.
class AtomicDdlTest : public ::testing::TestWithParam<std::tuple<io::MemFileSystem::Op, int, size_t>> {};

TEST_P(AtomicDdlTest, CrashLeavesOldOrNewCatalog) {
  const auto [op, nth, torn] = GetParam();
  io::MemFileSystem fs;
  {
    auto cat = Catalog::Open(&fs, kDir);
    ASSERT_TRUE(cat.ok());
    ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
    ASSERT_TRUE((*cat)->CreateTable(SimpleTable("db", "old")).ok());
    io::MemFileSystem::Fault f;
    f.op = op;
    f.nth = static_cast<uint64_t>(nth);
    f.torn_bytes = torn;
    fs.InjectFault(f);
    // Three DDLs in a row; the fault hits one of their steps.
    Catalog* c = cat->get();
    const std::vector<std::function<Status()>> ddls = {
        [&] { return c->DropDatabase("db"); },
        [&] { return c->CreateDatabase({"db"}); },
        [&] { return c->CreateTable(SimpleTable("db", "new")).status(); },
    };
    for (const auto& ddl : ddls) {
      auto before = c->snapshot();
      Status st = ddl();
      if (!st.ok()) {
        // A failed DDL leaves the in-memory catalog as it was.
        EXPECT_EQ(c->snapshot(), before);
        break;
      }
      EXPECT_NE(c->snapshot(), before);
    }
    if (op != io::MemFileSystem::Op::kRead && nth <= 3) {  // one write and one sync per DDL
      EXPECT_EQ(fs.faults_fired(), 1u);
    }
    fs.ClearFaults();
  }
  fs.DropUnsyncedData();  // power loss
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  auto snap = (*cat)->snapshot();
  // One of the committed states of the sequence, never a torn one.
  const bool has_db = snap->FindDatabase("db") != nullptr;
  const bool has_old = snap->FindTable("db", "old") != nullptr;
  const bool has_new = snap->FindTable("db", "new") != nullptr;
  EXPECT_TRUE((has_db && has_old && !has_new) || (!has_db && !has_old && !has_new) ||
              (has_db && !has_old && !has_new) || (has_db && !has_old && has_new))
      << has_db << has_old << has_new;
  if (has_old) {
    EXPECT_EQ(snap->FindTable("db", "old")->columns.size(), 5u);
  }
  EXPECT_FALSE(*fs.Exists("/data/catalog.pb.tmp"));
}

INSTANTIATE_TEST_SUITE_P(
    EveryStep, AtomicDdlTest,
    ::testing::Combine(::testing::Values(io::MemFileSystem::Op::kWrite, io::MemFileSystem::Op::kSync,
                                         io::MemFileSystem::Op::kRead),
                       ::testing::Range(1, 5), ::testing::Values(size_t{0}, size_t{7})));

TEST(AtomicDdl, FailedWriteKeepsOldStateInMemoryAndOnDisk) {
  io::MemFileSystem fs;
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(cat.ok());
  ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kSync;
  fs.InjectFault(f);
  auto t = (*cat)->CreateTable(SimpleTable("db", "t"));
  EXPECT_FALSE(t.ok());
  EXPECT_EQ((*cat)->snapshot()->FindTable("db", "t"), nullptr);
  // The next DDL works again (a failed temp-file sync is not sticky).
  EXPECT_TRUE((*cat)->CreateTable(SimpleTable("db", "t")).ok());
  fs.DropUnsyncedData();
  auto again = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->snapshot()->FindTable("db", "t"), nullptr);
}

// Through io::WriteFileAtomically: a failed rename leaves the old file and
// is not sticky; a failed directory sync after the rename is (the rename's
// durability is unknown), and the new file is what a restart reads.
TEST(AtomicDdl, FailedRenameIsNotStickyFailedDirectorySyncIs) {
  io::MemFileSystem fs;
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(cat.ok());
  ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
  io::MemFileSystem::Fault f;
  f.op = io::MemFileSystem::Op::kRename;
  fs.InjectFault(f);
  EXPECT_TRUE((*cat)->CreateTable(SimpleTable("db", "t1")).status().IsIOError());
  EXPECT_EQ((*cat)->snapshot()->FindTable("db", "t1"), nullptr);
  EXPECT_FALSE(*fs.Exists("/data/catalog.pb.tmp"));
  ASSERT_TRUE((*cat)->CreateTable(SimpleTable("db", "t1")).ok());

  f.op = io::MemFileSystem::Op::kSyncDir;
  fs.InjectFault(f);
  EXPECT_TRUE((*cat)->CreateTable(SimpleTable("db", "t2")).status().IsIOError());
  EXPECT_EQ((*cat)->snapshot()->FindTable("db", "t2"), nullptr);
  // Sticky: the fault fired once, yet the next DDL fails too.
  EXPECT_EQ(fs.faults_fired(), 2u);
  EXPECT_TRUE((*cat)->CreateTable(SimpleTable("db", "t3")).status().IsIOError());
  EXPECT_EQ(fs.faults_fired(), 2u);
  cat->reset();
  auto again = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(again.ok());
  EXPECT_NE((*again)->snapshot()->FindTable("db", "t1"), nullptr);
  EXPECT_NE((*again)->snapshot()->FindTable("db", "t2"), nullptr);  // renamed before the failure
  EXPECT_EQ((*again)->snapshot()->FindTable("db", "t3"), nullptr);
}

TEST(CatalogConcurrency, ReadersSeeWholeSnapshotsDuringDdl) {
  io::MemFileSystem fs;
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(cat.ok());
  ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::thread reader([&] {
    size_t last = 0;
    while (!stop.load()) {
      auto snap = (*cat)->snapshot();
      const size_t n = snap->table_count();
      if (n < last || snap->TablesIn("db").size() != n) bad.fetch_add(1);
      last = n;
    }
  });
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE((*cat)->CreateTable(SimpleTable("db", "t" + std::to_string(i))).ok());
  }
  stop.store(true);
  reader.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ((*cat)->snapshot()->table_count(), 50u);
}

TEST(AtomicDdl, CrashAfterCommitKeepsNewState) {
  io::MemFileSystem fs;
  {
    auto cat = Catalog::Open(&fs, kDir);
    ASSERT_TRUE(cat.ok());
    ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
    ASSERT_TRUE((*cat)->CreateTable(SimpleTable("db", "t")).ok());
  }
  fs.DropUnsyncedData();
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(cat.ok());
  EXPECT_NE((*cat)->snapshot()->FindTable("db", "t"), nullptr);
}

TEST(AtomicDdl, LeftoverTempFileIsIgnored) {
  io::MemFileSystem fs;
  {
    auto cat = Catalog::Open(&fs, kDir);
    ASSERT_TRUE(cat.ok());
    ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
  }
  {
    auto f = fs.Open("/data/catalog.pb.tmp", io::OpenMode::kOpenOrCreate);
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->WriteAt(0, "garbage").ok());
  }
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_TRUE(cat.ok());
  EXPECT_NE((*cat)->snapshot()->FindDatabase("db"), nullptr);
  EXPECT_FALSE(*fs.Exists("/data/catalog.pb.tmp"));
}

TEST(AtomicDdl, CorruptCatalogIsReportedNotLoaded) {
  io::MemFileSystem fs;
  {
    auto cat = Catalog::Open(&fs, kDir);
    ASSERT_TRUE(cat.ok());
    ASSERT_TRUE((*cat)->CreateDatabase({"db"}).ok());
  }
  auto f = fs.Open("/data/catalog.pb", io::OpenMode::kOpenExisting);
  ASSERT_TRUE(f.ok());
  auto size = (*f)->Size();
  ASSERT_TRUE(size.ok());
  ASSERT_TRUE((*f)->WriteAt(*size - 1, "\x7f").ok());
  auto cat = Catalog::Open(&fs, kDir);
  ASSERT_FALSE(cat.ok());
  EXPECT_TRUE(cat.status().IsCorruption());
}

// ---- names checked before they are persisted (issue 14) ----

TEST(TableDefTest, IdentifierChecks) {
  EXPECT_TRUE(CheckIdentifier("t", NameKind::kTable).ok());
  EXPECT_TRUE(CheckIdentifier(std::string(64, 'a'), NameKind::kTable).ok());
  EXPECT_TRUE(CheckIdentifier("caf\xC3\xA9", NameKind::kColumn).ok());
  Status st = CheckIdentifier("t\xFF", NameKind::kTable);
  EXPECT_EQ(st.mysql_errno(), 1300);
  EXPECT_EQ(st.sqlstate(), "HY000");
  EXPECT_EQ(st.message(), "Invalid utf8mb4 character string: 't\\xFF'");
  st = CheckIdentifier(std::string(65, 'a'), NameKind::kTable);
  EXPECT_EQ(st.mysql_errno(), 1059);
  EXPECT_EQ(st.sqlstate(), "42000");
  EXPECT_EQ(st.message(), "Identifier name '" + std::string(65, 'a') + "' is too long");
  // 64 characters of two bytes each are fine: the limit counts characters.
  std::string wide;
  for (int i = 0; i < 64; ++i) wide += "\xC3\xA9";
  EXPECT_TRUE(CheckIdentifier(wide, NameKind::kDatabase).ok());
  EXPECT_EQ(CheckIdentifier(wide + "a", NameKind::kDatabase).mysql_errno(), 1059);
  EXPECT_EQ(CheckIdentifier("", NameKind::kDatabase).mysql_errno(), 1102);
  EXPECT_EQ(CheckIdentifier("t ", NameKind::kTable).mysql_errno(), 1103);
  EXPECT_EQ(CheckIdentifier(std::string("a\0b", 3), NameKind::kColumn).mysql_errno(), 1166);
  st = CheckIdentifier("e\xF0\x9F\x98\x80", NameKind::kIndex);  // above U+FFFF: not utf8mb3
  EXPECT_EQ(st.mysql_errno(), 1300);
  EXPECT_EQ(st.message(), "Invalid utf8mb3 character string: 'e\\xF0\\x9F\\x98\\x80'");
}

TEST_F(CatalogTest, BadNamesAndTextsAreRefusedBeforeTheFile) {
  auto cat = OpenCatalog();
  EXPECT_EQ(cat->CreateDatabase({"d\xFF"}).mysql_errno(), 1300);
  EXPECT_EQ(cat->CreateDatabase({std::string(65, 'd')}).mysql_errno(), 1059);
  ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
  auto expect_error = [&](TableDef t, int code) {
    auto r = cat->CreateTable(std::move(t));
    EXPECT_EQ(r.status().mysql_errno(), code) << r.status().ToString();
  };
  expect_error(SimpleTable("db", "t\xFF"), 1300);
  expect_error(SimpleTable("db", std::string(65, 't')), 1059);
  expect_error(SimpleTable("d\xFF", "t"), 1300);  // before "unknown database"
  TableDef t = SimpleTable("db", "t");
  t.columns[1].name = "v\xFF";
  t.indexes[1].parts[0].column_name = "v\xFF";
  expect_error(t, 1300);
  t = SimpleTable("db", "t");
  t.options.comment = "c\xFF";
  expect_error(t, 1300);
  t.options.comment = std::string(2049, 'c');
  expect_error(t, 1628);
  t = SimpleTable("db", "t");
  t.columns[0].comment = std::string(1025, 'c');
  expect_error(t, 1629);
  t = SimpleTable("db", "t");
  t.columns[4].enum_values = {"a", "b\xFF"};
  expect_error(t, 1300);
  t.columns[4].enum_values = {"a", std::string(256, 'b')};
  expect_error(t, 1097);
  t = SimpleTable("db", "t");
  t.indexes[1].name = std::string(65, 'i');
  expect_error(t, 1059);
  // At the limits: accepted.
  t = SimpleTable("db", std::string(64, 't'));
  t.options.comment = std::string(2048, 'c');
  t.columns[0].comment = std::string(1024, 'c');
  t.columns[4].enum_values = {"a", std::string(255, 'b')};
  ASSERT_TRUE(cat->CreateTable(t).ok());
  // Renames and ALTER: the new names only.
  EXPECT_EQ(cat->RenameTable("db", std::string(64, 't'), "db", "x\xFF").mysql_errno(), 1300);
  EXPECT_EQ(cat->RenameTable("db", std::string(64, 't'), "db", std::string(65, 'x')).mysql_errno(), 1059);
  TableDef alter = t;
  alter.indexes.erase(alter.indexes.begin() + 1);
  alter.columns[1].comment = "\xFF";
  EXPECT_EQ(cat->AlterTable("db", t.name, alter).status().mysql_errno(), 1300);
  // Nothing refused reached the file: it reads back with the one table.
  cat.reset();
  cat = OpenCatalog();
  ASSERT_NE(cat, nullptr);
  EXPECT_EQ(cat->snapshot()->table_count(), 1u);
  EXPECT_EQ(cat->snapshot()->DatabaseNames(), std::vector<std::string>{"db"});
}

// Rewrites catalog.pb's payload with `patch` and fixes the framing's CRC, as
// a hand edit or an older build could leave it.
void PatchCatalog(io::MemFileSystem* fs, const std::function<void(std::string*)>& patch) {
  auto f = fs->Open("/data/catalog.pb", io::OpenMode::kOpenExisting);
  ASSERT_TRUE(f.ok());
  auto size = (*f)->Size();
  ASSERT_TRUE(size.ok());
  std::string bytes(*size, '\0');
  ASSERT_TRUE((*f)->ReadAt(0, bytes.data(), bytes.size()).ok());
  std::string payload = bytes.substr(20);
  patch(&payload);
  ASSERT_EQ(payload.size(), bytes.size() - 20) << "patches keep the length";
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : payload) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  crc = ~crc;
  for (int i = 0; i < 4; ++i) bytes[16 + i] = static_cast<char>((crc >> (8 * i)) & 0xFF);
  bytes.replace(20, payload.size(), payload);
  ASSERT_TRUE((*f)->WriteAt(0, bytes).ok());
}

void ReplaceOnce(std::string* s, std::string_view from, std::string_view to) {
  size_t at = s->find(from);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(s->find(from, at + 1), std::string::npos) << "pattern must be unique";
  s->replace(at, from.size(), to);
}

TEST_F(CatalogTest, InvalidUtf8WrittenByAnOlderBuildStillReadsBack) {
  {
    auto cat = OpenCatalog();
    ASSERT_TRUE(cat->CreateDatabase({"db"}).ok());
    ASSERT_TRUE(cat->CreateTable(SimpleTable("db", "tq")).ok());
  }
  // Table name "tq" -> "t\xFF" (field 3, length 2).
  PatchCatalog(&fs_, [](std::string* p) { ReplaceOnce(p, std::string("\x1a\x02tq", 4), "\x1a\x02t\xFF"); });
  auto cat = OpenCatalog();
  ASSERT_NE(cat, nullptr);
  EXPECT_NE(cat->snapshot()->FindTable("db", "t\xFF"), nullptr);
  EXPECT_TRUE(cat->snapshot()->broken_tables().empty());
}

// Creates db.bad (and db.good when `with_good`) in a new catalog, then
// makes db.bad's definition undecodable in the file: its column "zz"
// (BIGINT) gets type 99, which no build knows. Returns db.bad's space.
uint32_t CatalogTest::CreateUndecodableTable(bool with_good) {
  uint32_t bad_space = 0;
  {
    auto cat = OpenCatalog();
    EXPECT_TRUE(cat->CreateDatabase({"db"}).ok());
    if (with_good) EXPECT_TRUE(cat->CreateTable(SimpleTable("db", "good")).ok());
    TableDef bad = SimpleTable("db", "bad");
    bad.columns[0].name = "zz";
    bad.indexes[0].parts[0].column_name = "zz";
    auto b = cat->CreateTable(bad);
    EXPECT_TRUE(b.ok());
    if (b.ok()) bad_space = (*b)->space_id;
  }
  PatchCatalog(&fs_, [](std::string* p) { ReplaceOnce(p, std::string("\x0a\x02zz\x18\x05", 6), "\x0a\x02zz\x18\x63"); });
  return bad_space;
}

TEST_F(CatalogTest, UndecodableTableIsSetAsideNotFatal) {
  const uint32_t bad_space = CreateUndecodableTable(/*with_good=*/true);
  auto cat = OpenCatalog();
  ASSERT_NE(cat, nullptr);
  auto snap = cat->snapshot();
  EXPECT_NE(snap->FindTable("db", "good"), nullptr);
  EXPECT_EQ(snap->FindTable("db", "bad"), nullptr);
  const BrokenTable* b = snap->FindBrokenTable("db", "bad");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->space_id, bad_space);
  EXPECT_NE(b->reason.find("unknown type 99"), std::string::npos) << b->reason;
  // Its space stays referenced (its rows are not deleted), its name taken.
  auto spaces = cat->ReferencedSpaces();
  EXPECT_NE(std::find(spaces.begin(), spaces.end(), bad_space), spaces.end());
  EXPECT_EQ(cat->CreateTable(SimpleTable("db", "bad")).status().mysql_errno(), 1050);
  EXPECT_EQ(cat->RenameTable("db", "good", "db", "bad").mysql_errno(), 1050);
  // Other DDL keeps it, byte for byte, across rewrites.
  ASSERT_TRUE(cat->CreateTable(SimpleTable("db", "more")).ok());
  cat.reset();
  cat = OpenCatalog();
  ASSERT_NE(cat, nullptr);
  ASSERT_NE(cat->snapshot()->FindBrokenTable("db", "bad"), nullptr);
  EXPECT_NE(cat->snapshot()->FindTable("db", "more"), nullptr);
  // DROP TABLE removes it and gives its space back.
  uint32_t dropped = 0;
  ASSERT_TRUE(cat->DropTable("db", "bad", &dropped).ok());
  EXPECT_EQ(dropped, bad_space);
  EXPECT_TRUE(cat->snapshot()->broken_tables().empty());
  EXPECT_TRUE(cat->CreateTable(SimpleTable("db", "bad")).ok());
  cat.reset();
  cat = OpenCatalog();
  ASSERT_NE(cat, nullptr);
  EXPECT_TRUE(cat->snapshot()->broken_tables().empty());
  EXPECT_NE(cat->snapshot()->FindTable("db", "bad"), nullptr);
}

TEST_F(CatalogTest, DropDatabaseDropsItsBrokenTables) {
  const uint32_t bad_space = CreateUndecodableTable(/*with_good=*/false);
  auto cat = OpenCatalog();
  ASSERT_NE(cat, nullptr);
  std::vector<uint32_t> spaces;
  ASSERT_TRUE(cat->DropDatabase("db", &spaces).ok());
  EXPECT_EQ(spaces, std::vector<uint32_t>{bad_space});
  EXPECT_TRUE(cat->snapshot()->broken_tables().empty());
}

}  // namespace
}  // namespace sluice::storage
