#include "exec/access_path.h"

#include <gtest/gtest.h>

#include <map>

#include "base/mysql_error.h"
#include "sql/parser.h"
#include "storage/engine/engine.h"
#include "base/io/mem_file_system.h"

namespace sluice::exec {
namespace {

using storage::ColumnDef;
using storage::ColumnType;
using storage::IndexDef;
using storage::Row;
using storage::RowValue;
using Type = AccessPath::Type;

// Constants and `?` only: what bounds evaluate in.
class ConstContext : public sql::EvalContext {
 public:
  Result<sql::Value> GetSystemVariable(std::string_view name, sql::VarScope) override {
    return MakeError(er::kUnknownSystemVariable, name);
  }
  sql::Value GetUserVariable(std::string_view) override { return sql::Value::Null(); }
  void SetUserVariable(std::string_view, const sql::Value&) override {}
  Result<sql::Value> GetParameter(int index) override {
    if (index < 0 || static_cast<size_t>(index) >= params.size()) return sql::EvalContext::GetParameter(index);
    return params[static_cast<size_t>(index)];
  }
  std::optional<std::string> CurrentDatabase() override { return "db"; }
  std::string User() override { return "root@localhost"; }
  std::string CurrentUser() override { return "root@%"; }
  uint64_t ConnectionId() override { return 1; }
  uint64_t LastInsertId() override { return 0; }
  void SetLastInsertId(uint64_t) override {}
  int64_t FoundRows() override { return 0; }
  int64_t RowCount() override { return 0; }
  std::string ServerVersion() override { return "8.0.36"; }
  std::chrono::system_clock::time_point StatementTime() override { return {}; }
  bool SleepFor(std::chrono::nanoseconds) override { return true; }
  Status Warn(const er::Error&, std::string) override { return Status::OK(); }

  std::vector<sql::Value> params;
};

ColumnDef Col(std::string name, ColumnType type, bool nullable = true) {
  ColumnDef c;
  c.name = std::move(name);
  c.type = type;
  c.nullable = nullable;
  return c;
}

IndexDef Idx(std::string name, std::vector<std::string> cols, bool unique = false) {
  IndexDef i;
  i.name = std::move(name);
  i.unique = unique;
  i.kind = i.name == "PRIMARY" ? storage::IndexKind::kClustered : storage::IndexKind::kSecondary;
  for (auto& c : cols) i.parts.push_back(storage::KeyPart{c, 0, 0, false});
  return i;
}

// t(id BIGINT PRIMARY KEY, k INT, u INT NOT NULL, s VARCHAR(16) (utf8mb4_0900_ai_ci),
//   b VARBINARY(16), c INT, x INT, d DATE,
//   KEY k(k), UNIQUE u(u), KEY s(s), KEY b(b), KEY kc(k, c), KEY d(d))
class AccessPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = storage::Engine::Open(&fs_, "/data", storage::Engine::Options{size_t{8} << 20});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    ASSERT_TRUE(engine_->CreateDatabase(storage::DatabaseDef{"db"}).ok());
    storage::TableDef t;
    t.schema = "db";
    t.name = "t";
    t.columns.push_back(Col("id", ColumnType::kBigInt, false));
    t.columns.push_back(Col("k", ColumnType::kInt));
    t.columns.push_back(Col("u", ColumnType::kInt, false));
    ColumnDef s = Col("s", ColumnType::kVarChar);
    s.length = 16;
    t.columns.push_back(s);
    ColumnDef b = Col("b", ColumnType::kVarBinary);
    b.length = 16;
    t.columns.push_back(b);
    t.columns.push_back(Col("c", ColumnType::kInt));
    t.columns.push_back(Col("x", ColumnType::kInt));
    t.columns.push_back(Col("d", ColumnType::kDate));
    t.indexes = {Idx("PRIMARY", {"id"}), Idx("k", {"k"}), Idx("u", {"u"}, true), Idx("s", {"s"}),
                 Idx("b", {"b"}), Idx("kc", {"k", "c"}), Idx("d", {"d"})};
    auto def = engine_->CreateTable(t);
    ASSERT_TRUE(def.ok()) << def.status().ToString();
    def_ = *def;
    table_ = BoundTable{def_.get(), "t"};
    // id, k, u, s, b, c, x, d
    auto trx = engine_->Begin();
    auto row = [](int64_t id, RowValue k, int64_t u, std::string s, RowValue c, int64_t day) {
      return Row{id, std::move(k), u, s, std::string("b") + s, std::move(c), id * 10,
                 storage::PackDate(2024, 1, static_cast<int>(day))};
    };
    for (Row r : {row(1, int64_t{5}, 100, "a", int64_t{1}, 3), row(2, int64_t{3}, 101, "B", int64_t{2}, 1),
                  row(3, int64_t{5}, 102, "c", int64_t{3}, 2), row(4, RowValue{}, 103, "a", RowValue{}, 5),
                  row(5, int64_t{8}, 104, "e", int64_t{1}, 4), row(6, int64_t{1}, 105, "A", int64_t{2}, 6),
                  row(7, int64_t{5}, 106, "g", int64_t{2}, 7)}) {
      ASSERT_TRUE(engine_->Insert(*trx, def_->id, r).ok());
    }
    ASSERT_TRUE(engine_->Commit(*trx).ok());
  }

  const sql::Expr* Parse(std::string_view text) {
    auto e = sql::ParseExpression(text);
    EXPECT_TRUE(e.ok()) << text << ": " << e.status().ToString();
    exprs_.push_back(std::move(e).value());
    return exprs_.back().get();
  }
  // "k, c DESC" -> ORDER BY items.
  std::vector<sql::OrderItem> Order(std::vector<std::pair<std::string, bool>> items) {
    std::vector<sql::OrderItem> out;
    for (auto& [text, desc] : items) {
      auto e = sql::ParseExpression(text);
      EXPECT_TRUE(e.ok());
      out.push_back(sql::OrderItem{std::move(e).value(), desc});
    }
    return out;
  }
  AccessPath Plan(std::string_view where, const std::vector<sql::OrderItem>* order = nullptr, bool limit = false) {
    return PlanAccess(table_, where.empty() ? nullptr : Parse(where), order, limit);
  }
  std::string IndexName(const AccessPath& p) { return p.index < 0 ? "" : def_->indexes[p.index].name; }

  // The ids ReadRows returns along the path planned for `where`.
  std::vector<int64_t> Ids(std::string_view where, std::optional<storage::LockMode> lock = std::nullopt,
                           const std::vector<sql::OrderItem>* order = nullptr, bool limit = false,
                           storage::EngineTrx* in = nullptr) {
    const AccessPath path = Plan(where, order, limit);
    std::unique_ptr<storage::EngineTrx> own;
    if (in == nullptr) {
      own = engine_->Begin();
      in = own.get();
    }
    std::vector<int64_t> ids;
    Status s = ReadRows(*engine_, *in, table_, path, eval_, lock, [&](const Row& r) -> Result<bool> {
      ids.push_back(std::get<int64_t>(r[0]));
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (own) {
      EXPECT_TRUE(engine_->Commit(*own).ok());
    }
    return ids;
  }

  io::MemFileSystem fs_;
  std::unique_ptr<storage::Engine> engine_;
  std::shared_ptr<const storage::TableDef> def_;
  BoundTable table_;
  ConstContext eval_;
  std::vector<sql::ExprPtr> exprs_;
  using V = std::vector<int64_t>;
};

TEST_F(AccessPathTest, PrimaryKeyAndUniqueEqualityAreConst) {
  AccessPath p = Plan("id = 5 AND k = 3");
  EXPECT_EQ(p.type, Type::kConst);
  EXPECT_EQ(IndexName(p), "PRIMARY");
  EXPECT_EQ(p.TypeName(), "const");
  p = Plan("t2.x = id");  // another table's column: a join's eq_ref
  EXPECT_EQ(p.type, Type::kEqRef);
  EXPECT_EQ(p.TypeName(), "eq_ref");
  p = Plan("u = 104 AND k = 8");
  EXPECT_EQ(p.type, Type::kConst);
  EXPECT_EQ(IndexName(p), "u");
  EXPECT_EQ(Ids("u = 104 AND k = 8"), (V{5}));
  EXPECT_EQ(Ids("u = 104.5"), (V{}));  // no integer equals it
  EXPECT_EQ(Ids("u = NULL"), (V{}));
}

TEST_F(AccessPathTest, RefTakesTheIndexWithTheMostEqualParts) {
  AccessPath p = Plan("k = 5");
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(IndexName(p), "k");  // k and kc tie on one part: the first
  EXPECT_EQ(Ids("k = 5"), (V{1, 3, 7}));
  p = Plan("c = 2 AND k = 5");
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(IndexName(p), "kc");
  EXPECT_EQ(p.key.size(), 2u);
  EXPECT_EQ(Ids("c = 2 AND k = 5"), (V{7}));
  EXPECT_EQ(Ids("k = '5'"), (V{1, 3, 7}));
  // IS NULL and <=> NULL look up the NULL key; = NULL matches nothing.
  p = Plan("k IS NULL");
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(Ids("k IS NULL"), (V{4}));
  EXPECT_EQ(Ids("k <=> NULL"), (V{4}));
  EXPECT_EQ(Ids("k = NULL"), (V{}));
  // A string that only compares equal as a number: read without the key.
  EXPECT_EQ(Ids("k = '5abc'"), (V{4, 6, 2, 1, 3, 7, 5}));  // still in k's order
}

TEST_F(AccessPathTest, StringKeysAreUsedForEqualityUnderTheirCollation) {
  // utf8mb4_0900_ai_ci: 'a' = 'A', and so are their keys.
  AccessPath p = Plan("s = 'a'");
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(IndexName(p), "s");
  EXPECT_EQ(Ids("s = 'a'"), (V{1, 4, 6}));
  EXPECT_EQ(Ids("s = 'b'"), (V{2}));
  // Compared under another collation, the key is not used (the whole
  // index is read, and the caller's check keeps what matches).
  EXPECT_EQ(Ids("s = 'a' COLLATE utf8mb4_bin").size(), 7u);
  // An index made before collation keys compares bytes: not used.
  storage::IndexDef old_format = def_->indexes[3];
  old_format.key_format = storage::kKeyFormatBytes;
  auto old_def = std::make_shared<storage::TableDef>(*def_);
  old_def->indexes[3] = old_format;
  EXPECT_EQ(PlanAccess(BoundTable{old_def.get(), "t"}, Parse("s = 'a'"), nullptr, false).type, Type::kAll);
  p = Plan("b = 'ba'");
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(IndexName(p), "b");
  EXPECT_EQ(Ids("b = 'ba'"), (V{1, 4}));
  EXPECT_EQ(Ids("b = 1"), (V{6, 2, 1, 4, 3, 5, 7}));  // compared as numbers: the whole index
}

TEST_F(AccessPathTest, RangesOnThePrimaryKeyThenSecondaryIndexes) {
  AccessPath p = Plan("id > 2 AND id <= 5");
  EXPECT_EQ(p.type, Type::kRange);
  EXPECT_EQ(IndexName(p), "PRIMARY");
  EXPECT_EQ(Ids("id > 2 AND id <= 5"), (V{3, 4, 5}));
  EXPECT_EQ(Ids("id BETWEEN 2.5 AND 4.5"), (V{3, 4, 5}));  // rounded bounds: a superset
  EXPECT_EQ(Ids("id > NULL"), (V{}));
  p = Plan("k BETWEEN 2 AND 5");
  EXPECT_EQ(p.type, Type::kRange);
  EXPECT_EQ(IndexName(p), "k");
  EXPECT_EQ(Ids("k BETWEEN 2 AND 5"), (V{2, 1, 3, 7}));  // index order
  EXPECT_EQ(Ids("k < 4"), (V{6, 2}));                    // not the NULL
  // Equality beats a PRIMARY KEY range; equality plus a range on the next
  // part beats equality alone.
  p = Plan("id > 1 AND k = 5");
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(IndexName(p), "k");
  EXPECT_EQ(p.pk_lo.size(), 1u);  // what a locking read uses
  p = Plan("k = 5 AND c >= 2");
  EXPECT_EQ(p.type, Type::kRange);
  EXPECT_EQ(IndexName(p), "kc");
  EXPECT_EQ(Ids("k = 5 AND c >= 2"), (V{7, 3}));
  // DATE keys: ranges with bounds that are exactly dates.
  p = Plan("d >= '2024-01-04'");
  EXPECT_EQ(p.type, Type::kRange);
  EXPECT_EQ(IndexName(p), "d");
  EXPECT_EQ(Ids("d >= '2024-01-04'"), (V{5, 4, 6, 7}));
  EXPECT_EQ(Ids("d = '2024-01-02'"), (V{3}));
}

TEST_F(AccessPathTest, LockingReadsUseThePrimaryKeyBoundsOrASecondaryKey) {
  // Equality on a secondary index: its entries and their rows only, in the
  // index's order (the caller re-checks the rest of the condition).
  EXPECT_EQ(Ids("k = 5", storage::LockMode::kX), (V{1, 3, 7}));
  EXPECT_EQ(Ids("id > 1 AND k = 5", storage::LockMode::kX), (V{1, 3, 7}));
  EXPECT_EQ(Ids("id < 3", storage::LockMode::kS), (V{1, 2}));
  EXPECT_EQ(Ids("id = 3", storage::LockMode::kS), (V{3}));
  EXPECT_EQ(Ids("u = 104", storage::LockMode::kX), (V{5}));
  // A range on a secondary index: its entries in the range, in its order.
  EXPECT_EQ(Ids("k BETWEEN 2 AND 5", storage::LockMode::kX), (V{2, 1, 3, 7}));
  EXPECT_EQ(Ids("k < 4", storage::LockMode::kX), (V{6, 2}));  // not the NULL
  EXPECT_EQ(Ids("k > 5 AND k < 3", storage::LockMode::kX), (V{}));
  EXPECT_EQ(Ids("k = NULL", storage::LockMode::kX), (V{}));
  // SERIALIZABLE reads lock too, along the same paths.
  auto ser = engine_->Begin(storage::IsolationLevel::kSerializable);
  EXPECT_EQ(Ids("k = 5", std::nullopt, nullptr, false, ser.get()), (V{1, 3, 7}));
  ASSERT_TRUE(engine_->Commit(*ser).ok());
}

TEST_F(AccessPathTest, OrderByPicksAnIndexInOrder) {
  const auto id_desc = Order({{"id", true}});
  AccessPath p = Plan("", &id_desc);
  EXPECT_EQ(p.type, Type::kIndex);
  EXPECT_EQ(IndexName(p), "PRIMARY");
  EXPECT_TRUE(p.ordered && p.reverse);
  EXPECT_FALSE(p.OrderedWhenLocking());
  EXPECT_EQ(Ids("", std::nullopt, &id_desc), (V{7, 6, 5, 4, 3, 2, 1}));
  // A secondary index only with a LIMIT (else sorting is cheaper).
  const auto by_k = Order({{"k", false}});
  p = Plan("", &by_k);
  EXPECT_EQ(p.type, Type::kAll);
  EXPECT_FALSE(p.ordered);
  p = Plan("x > 0", &by_k, true);
  EXPECT_EQ(p.type, Type::kIndex);
  EXPECT_EQ(IndexName(p), "k");
  EXPECT_TRUE(p.ordered && !p.reverse);
  const auto k_desc_id_desc = Order({{"k", true}, {"t.id", true}});
  EXPECT_EQ(Ids("", std::nullopt, &k_desc_id_desc, true), (V{5, 7, 3, 1, 2, 6, 4}));
  const auto mixed = Order({{"k", false}, {"id", true}});
  EXPECT_FALSE(Plan("", &mixed, true).ordered);
  const auto by_expr = Order({{"k + 1", false}});
  EXPECT_FALSE(Plan("", &by_expr, true).ordered);
  // Paths that already deliver the order keep their type.
  const auto by_c_desc = Order({{"c", true}});
  p = Plan("k = 5", &by_c_desc, true);
  EXPECT_EQ(p.type, Type::kRef);
  EXPECT_EQ(IndexName(p), "k");  // k's entries follow the PRIMARY KEY, not c
  EXPECT_FALSE(p.ordered);
  p = Plan("k = 5 AND c > 0", &by_c_desc, true);
  EXPECT_EQ(IndexName(p), "kc");
  EXPECT_TRUE(p.ordered && p.reverse);
  EXPECT_EQ(Ids("k = 5 AND c > 0", std::nullopt, &by_c_desc, true), (V{3, 7, 1}));
  const auto by_id = Order({{"id", false}});
  p = Plan("k = 5", &by_id);
  EXPECT_TRUE(p.ordered && !p.reverse);  // (k, id) entries
  p = Plan("id BETWEEN 2 AND 4", &id_desc);
  EXPECT_TRUE(p.ordered && p.reverse && p.OrderedWhenLocking() == false);
  EXPECT_EQ(Ids("id BETWEEN 2 AND 4", std::nullopt, &id_desc), (V{4, 3, 2}));
  EXPECT_TRUE(Plan("id = 3", &by_k).ordered);  // one row
}

TEST_F(AccessPathTest, AnOlderReadViewFindsRowsUnderTheirOldKeys) {
  auto reader = engine_->Begin();
  EXPECT_EQ(Ids("k = 5", std::nullopt, nullptr, false, reader.get()), (V{1, 3, 7}));
  auto writer = engine_->Begin();
  Row moved{int64_t{1}, int64_t{9}, int64_t{100}, std::string("a"), std::string("ba"), int64_t{1}, int64_t{10},
            storage::PackDate(2024, 1, 3)};
  ASSERT_TRUE(*engine_->Update(*writer, def_->id, Row{int64_t{1}}, moved));
  ASSERT_TRUE(engine_->Commit(*writer).ok());
  EXPECT_EQ(Ids("k = 5", std::nullopt, nullptr, false, reader.get()), (V{1, 3, 7}));
  EXPECT_EQ(Ids("k = 9", std::nullopt, nullptr, false, reader.get()), (V{}));
  EXPECT_EQ(Ids("k > 4", std::nullopt, nullptr, false, reader.get()), (V{1, 3, 7, 5}));
  ASSERT_TRUE(engine_->Commit(*reader).ok());
  EXPECT_EQ(Ids("k = 5"), (V{3, 7}));
  EXPECT_EQ(Ids("k > 4"), (V{3, 7, 5, 1}));
}

TEST_F(AccessPathTest, ExplainColumns) {
  ExplainHints hints;
  auto explain = [&](std::string_view where, const std::vector<sql::OrderItem>* order = nullptr,
                     bool limit = false) {
    const sql::Expr* cond = where.empty() ? nullptr : Parse(where);
    hints.cond = cond;
    return ExplainAccess(table_, PlanAccess(table_, cond, order, limit), hints);
  };
  ExplainRow r = explain("id = 3");
  EXPECT_EQ(r.type, "const");
  EXPECT_EQ(r.possible_keys, "PRIMARY");
  EXPECT_EQ(r.key, "PRIMARY");
  EXPECT_EQ(r.key_len, "8");
  EXPECT_EQ(r.ref, "const");
  EXPECT_EQ(r.rows, 1u);
  EXPECT_EQ(r.filtered, 100.0);
  EXPECT_EQ(r.extra, std::nullopt);
  hints.rows = 3;
  r = explain("k = 5");
  EXPECT_EQ(r.type, "ref");
  EXPECT_EQ(r.possible_keys, "k,kc");
  EXPECT_EQ(r.key_len, "5");  // INT NULL
  EXPECT_EQ(r.ref, "const");
  EXPECT_EQ(r.rows, 3u);
  EXPECT_EQ(r.extra, std::nullopt);
  r = explain("k = 5 AND c = 2");
  EXPECT_EQ(r.key, "kc");
  EXPECT_EQ(r.key_len, "10");
  EXPECT_EQ(r.ref, "const,const");
  r = explain("k = 5 AND x = 1");  // x is in no index: MySQL's 10% guess
  EXPECT_EQ(r.extra, "Using where");
  EXPECT_NEAR(*r.filtered, 10.0, 1e-9);
  r = explain("b = 'ba'");
  EXPECT_EQ(r.key_len, "19");  // VARBINARY(16) NULL: 16 + 2 + 1
  r = explain("id BETWEEN 2 AND 4");
  EXPECT_EQ(r.type, "range");
  EXPECT_EQ(r.ref, std::nullopt);
  EXPECT_EQ(r.extra, "Using where");
  r = explain("k > 4 AND x > 1");
  EXPECT_EQ(r.key, "k");
  EXPECT_EQ(r.extra, "Using index condition; Using where");
  EXPECT_NEAR(*r.filtered, 100.0 / 3, 1e-9);
  const std::vector<uint32_t> k_and_id{0, 1};
  hints.columns = &k_and_id;
  r = explain("k > 4");
  EXPECT_EQ(r.extra, "Using where; Using index");
  hints.columns = nullptr;
  r = explain("x = 1");
  EXPECT_EQ(r.type, "ALL");
  EXPECT_EQ(r.possible_keys, std::nullopt);
  EXPECT_EQ(r.key, std::nullopt);
  EXPECT_EQ(r.extra, "Using where");
  const auto id_desc = Order({{"id", true}});
  r = explain("", &id_desc);
  EXPECT_EQ(r.type, "index");
  EXPECT_EQ(r.key, "PRIMARY");
  EXPECT_EQ(r.extra, "Backward index scan");
  hints.filesort = true;
  r = explain("x = 1");
  EXPECT_EQ(r.extra, "Using where; Using filesort");
}

}  // namespace
}  // namespace sluice::exec
