#include "sql/parser.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <functional>

#include <span>
#include <string>

#include "base/stack_guard.h"
#include "sql/lexer.h"

namespace sluice::sql {
namespace {

// Parses exactly one statement of type T.
template <typename T>
std::unique_ptr<T> ParseOne(std::string_view q, StmtKind kind) {
  auto r = ParseAll(q);
  EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  if (!r.ok()) return nullptr;
  EXPECT_EQ(r->size(), 1u) << q;
  if (r->size() != 1) return nullptr;
  EXPECT_EQ((*r)[0].stmt->kind, kind) << q;
  if ((*r)[0].stmt->kind != kind) return nullptr;
  return std::unique_ptr<T>(static_cast<T*>((*r)[0].stmt.release()));
}

Status ParseError(std::string_view q) {
  auto r = ParseAll(q);
  EXPECT_FALSE(r.ok()) << q;
  return r.ok() ? Status::OK() : r.status();
}

std::string Near(const std::string& near, int line) {
  return "You have an error in your SQL syntax; check the manual that corresponds to your MySQL "
         "server version for the right syntax to use near '" +
         near + "' at line " + std::to_string(line);
}

TEST(ParserTest, TrailingNulBytesAreDroppedLikeSpaces) {
  // mariadb-slap sends the C string's terminator with the query.
  auto s = ParseOne<CreateTableStmt>(std::string_view("CREATE TABLE t1 (a INT)\0", 24), StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->table.name, "t1");
}

// ------------------------------------------------------------------ SELECT

TEST(ParserTest, SelectKeepsItemTextForColumnNames) {
  auto s = ParseOne<SelectStmt>("SELECT @@version, 1+1, 'abc', NULL, 1  +  2 AS three, x y",
                                StmtKind::kSelect);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->items.size(), 6u);
  EXPECT_EQ(s->items[0].ColumnName(), "@@version");
  EXPECT_EQ(s->items[1].ColumnName(), "1+1");
  EXPECT_EQ(s->items[2].ColumnName(), "abc");
  EXPECT_EQ(s->items[3].ColumnName(), "NULL");
  EXPECT_EQ(s->items[4].ColumnName(), "three");
  EXPECT_EQ(s->items[4].text, "1  +  2");
  EXPECT_EQ(s->items[5].ColumnName(), "y");
  EXPECT_EQ(s->items[5].expr->kind, ExprKind::kColumn);
}

TEST(ParserTest, SelectColumnNameOfIntroducedStringIsItsValue) {
  auto s = ParseOne<SelectStmt>("SELECT _utf8mb4'abc', (1 + 2), 'a' 'b', 1 'alias'",
                                StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->items[0].ColumnName(), "abc");
  EXPECT_EQ(s->items[1].ColumnName(), "(1 + 2)");
  EXPECT_EQ(s->items[2].ColumnName(), "ab");
  EXPECT_EQ(s->items[3].ColumnName(), "alias");
}

TEST(ParserTest, SelectFromDualWhereLimit) {
  auto s = ParseOne<SelectStmt>("select 1 from dual where 1 = 1 limit 5 offset 2",
                                StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->from_dual);
  ASSERT_TRUE(s->where);
  EXPECT_EQ(s->where->kind, ExprKind::kBinary);
  EXPECT_EQ(s->limit->value.int_value(), 5);
  EXPECT_EQ(s->offset->value.int_value(), 2);
}

TEST(ParserTest, SelectFromJoinsFlattensLeftDeep) {
  auto s = ParseOne<SelectStmt>(
      "SELECT * FROM a JOIN b ON a.x = b.x LEFT OUTER JOIN c USING (y, z) , d "
      "STRAIGHT_JOIN e ON 1 NATURAL JOIN f RIGHT JOIN g ON g.k = f.k CROSS JOIN h INNER JOIN i",
      StmtKind::kSelect);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->from.size(), 9u);
  EXPECT_EQ(s->from[0].join, JoinKind::kComma);
  EXPECT_EQ(s->from[1].join, JoinKind::kInner);
  ASSERT_NE(s->from[1].on, nullptr);
  EXPECT_EQ(s->from[2].join, JoinKind::kLeft);
  EXPECT_EQ(s->from[2].using_columns, (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(s->from[3].join, JoinKind::kComma);
  EXPECT_EQ(s->from[4].join, JoinKind::kInner);
  EXPECT_TRUE(s->from[5].natural);
  EXPECT_EQ(s->from[6].join, JoinKind::kRight);
  EXPECT_EQ(s->from[7].join, JoinKind::kInner);
  EXPECT_EQ(s->from[8].on, nullptr);
  // An outer join needs ON or USING; NATURAL takes neither.
  EXPECT_EQ(ParseError("SELECT 1 FROM a LEFT JOIN b").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("SELECT 1 FROM a NATURAL JOIN b ON 1").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("SELECT 1 FROM a STRAIGHT_JOIN b USING (x)").mysql_errno(), 1064);
}

TEST(ParserTest, SubqueriesAsValuesInAndExists) {
  auto s = ParseOne<SelectStmt>(
      "SELECT (SELECT MAX(a) FROM t), x IN (SELECT b FROM u WHERE u.c = t.c), NOT EXISTS (SELECT 1 FROM v), "
      "y NOT IN (1, 2) FROM t",
      StmtKind::kSelect);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->items.size(), 4u);
  EXPECT_EQ(s->items[0].expr->kind, ExprKind::kSubquery);
  ASSERT_NE(s->items[0].expr->subquery, nullptr);
  EXPECT_EQ(s->items[0].expr->subquery->from[0].name, "t");
  EXPECT_EQ(s->items[0].text, "(SELECT MAX(a) FROM t)");
  EXPECT_EQ(s->items[1].expr->kind, ExprKind::kIn);
  EXPECT_EQ(s->items[1].expr->args.size(), 1u);
  ASSERT_NE(s->items[1].expr->subquery, nullptr);
  EXPECT_NE(s->items[1].expr->subquery->where, nullptr);
  EXPECT_EQ(s->items[2].expr->kind, ExprKind::kUnary);
  EXPECT_EQ(s->items[2].expr->args[0]->kind, ExprKind::kExists);
  EXPECT_EQ(s->items[3].expr->subquery, nullptr);
  EXPECT_TRUE(HasSubquery(*s->items[2].expr));
  EXPECT_FALSE(HasSubquery(*s->items[3].expr));
  EXPECT_EQ(ParseError("SELECT (SELECT 1").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("SELECT EXISTS (1)").mysql_errno(), 1064);
}

TEST(ParserTest, IntervalAndExtractBecomeFunctionCalls) {
  auto s = ParseOne<SelectStmt>(
      "SELECT DATE_ADD(d, INTERVAL 1 DAY), d - INTERVAL '1:2' MINUTE_SECOND, INTERVAL 2 HOUR + d, "
      "EXTRACT(YEAR_MONTH FROM d)",
      StmtKind::kSelect);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->items.size(), 4u);
  for (const auto& item : s->items) EXPECT_EQ(item.expr->kind, ExprKind::kFunction) << item.text;
  EXPECT_TRUE(EqualsIgnoreCase(s->items[1].expr->name, "DATE_SUB"));
  EXPECT_TRUE(EqualsIgnoreCase(s->items[2].expr->name, "DATE_ADD"));
  EXPECT_TRUE(EqualsIgnoreCase(s->items[3].expr->name, "EXTRACT"));
  EXPECT_EQ(s->items[0].text, "DATE_ADD(d, INTERVAL 1 DAY)");
  EXPECT_EQ(ParseError("SELECT d + INTERVAL 1 FORTNIGHT").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("SELECT EXTRACT(YEAR d)").mysql_errno(), 1064);
}

TEST(ParserTest, LockTablesListsTablesAndModes) {
  auto s = ParseOne<TableLocksStmt>("LOCK TABLES a READ, db.b AS x READ LOCAL, c WRITE, d LOW_PRIORITY WRITE",
                                    StmtKind::kLockTables);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->tables.size(), 4u);
  EXPECT_FALSE(s->tables[0].write);
  EXPECT_EQ(s->tables[1].table.schema, "db");
  EXPECT_EQ(s->tables[1].table.alias, "x");
  EXPECT_TRUE(s->tables[2].write);
  EXPECT_TRUE(s->tables[3].write);
  EXPECT_EQ(ParseError("LOCK TABLES a").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("LOCK TABLE a READ WRITE").mysql_errno(), 1064);
}

TEST(ParserTest, SelectLimitWithCommaIsOffsetThenCount) {
  auto s = ParseOne<SelectStmt>("SELECT 1 LIMIT 3, 10", StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->offset->value.int_value(), 3);
  EXPECT_EQ(s->limit->value.int_value(), 10);
}

TEST(ParserTest, SelectFromTablesAndStars) {
  auto s = ParseOne<SelectStmt>(
      "SELECT SQL_CALC_FOUND_ROWS DISTINCT *, t.*, db.t.c FROM db.t AS x, u ORDER BY 1 DESC",
      StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->calc_found_rows);
  EXPECT_TRUE(s->distinct);
  EXPECT_TRUE(s->items[0].star);
  EXPECT_TRUE(s->items[1].star);
  EXPECT_EQ(s->items[1].star_table, "t");
  EXPECT_EQ(s->items[2].expr->schema, "db");
  EXPECT_EQ(s->items[2].expr->table, "t");
  EXPECT_EQ(s->items[2].expr->name, "c");
  ASSERT_EQ(s->from.size(), 2u);
  EXPECT_EQ(s->from[0].schema, "db");
  EXPECT_EQ(s->from[0].name, "t");
  EXPECT_EQ(s->from[0].alias, "x");
  EXPECT_EQ(s->from[1].name, "u");
  ASSERT_EQ(s->order_by.size(), 1u);
  EXPECT_TRUE(s->order_by[0].desc);
}

TEST(ParserTest, VersionedCommentOptionsParse) {
  auto s = ParseOne<SelectStmt>("SELECT /*!40001 SQL_NO_CACHE */ 1", StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->sql_no_cache);
  EXPECT_EQ(s->items.size(), 1u);
}

// ------------------------------------------------------------------ expressions

const Expr& Item(const SelectStmt& s, size_t i) { return *s.items[i].expr; }

TEST(ParserTest, ExpressionPrecedenceFollowsMySQL) {
  auto e = ParseExpression("1 + 2 * 3 - 4");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ExprToString(**e), "((1 + (2 * 3)) - 4)");

  e = ParseExpression("a OR b XOR c AND NOT d = 1");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ExprToString(**e), "(`a` or (`b` xor (`c` and (not((`d` = 1))))))");

  e = ParseExpression("1 | 2 & 3 << 1 + 1");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ExprToString(**e), "(1 | (2 & (3 << (1 + 1))))");

  e = ParseExpression("- 2 ^ 3");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ExprToString(**e), "(-(2) ^ 3)");

  e = ParseExpression("x || y && z");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ExprToString(**e), "(`x` or (`y` and `z`))");
}

// Each expression parses to the tree written after it (ExprToString).
void ExpectTrees(std::span<const std::pair<const char*, const char*>> cases) {
  for (const auto& [text, want] : cases) {
    auto e = ParseExpression(text);
    ASSERT_TRUE(e.ok()) << text << ": " << e.status().ToString();
    EXPECT_EQ(ExprToString(**e), want) << text;
  }
}

TEST(ParserTest, BinaryOperatorsAssociateLeftAtEveryLevel) {
  // Each level against itself (left-deep) and against its neighbours in
  // both orders: | & << >> + - * / DIV % MOD ^, lowest first.
  const std::pair<const char*, const char*> cases[] = {
      {"a | b | c", "((`a` | `b`) | `c`)"},
      {"a & b | c & d", "((`a` & `b`) | (`c` & `d`))"},
      {"a << b >> c", "((`a` << `b`) >> `c`)"},
      {"a - b + c - d", "(((`a` - `b`) + `c`) - `d`)"},
      {"a * b + c * d", "((`a` * `b`) + (`c` * `d`))"},
      {"a / b DIV c % d MOD e", "((((`a` / `b`) DIV `c`) % `d`) % `e`)"},
      {"a ^ b * c ^ d", "((`a` ^ `b`) * (`c` ^ `d`))"},
      {"a ^ b ^ c", "((`a` ^ `b`) ^ `c`)"},
      {"a | b ^ c & d << e + f * g", "(`a` | ((`b` ^ `c`) & (`d` << (`e` + (`f` * `g`)))))"},
      {"a + b << c | d", "(((`a` + `b`) << `c`) | `d`)"},
      {"-a * -b - ~c", "((-(`a`) * -(`b`)) - ~(`c`))"},
      {"a MOD (b) + MOD(c, d)", "((`a` % `b`) + mod(`c`,`d`))"},
  };
  ExpectTrees(cases);
}

TEST(ParserTest, IntervalArithmeticBindsAsMySQLsGrammar) {
  const std::pair<const char*, const char*> cases[] = {
      {"d + INTERVAL 1 DAY - INTERVAL 2 HOUR", "date_sub(date_add(`d`,1,'DAY'),2,'HOUR')"},
      // INTERVAL n unit + date: the date runs to AND / OR / XOR, as in
      // MySQL's grammar (simple_expr's INTERVAL_SYM expr interval '+' expr).
      {"INTERVAL 1 DAY + d + 3", "date_add((`d` + 3),1,'DAY')"},
      {"INTERVAL 1 DAY + d * 2", "date_add((`d` * 2),1,'DAY')"},
      {"INTERVAL 1 DAY + d = x", "date_add((`d` = `x`),1,'DAY')"},
      {"INTERVAL 1 DAY + d IS NULL AND y", "(date_add((`d` is null),1,'DAY') and `y`)"},
      {"INTERVAL 1 DAY + INTERVAL 2 HOUR + d", "date_add(date_add(`d`,2,'HOUR'),1,'DAY')"},
      // MySQL's bit_expr '-' INTERVAL expr interval is itself a bit_expr,
      // which a higher operator may take as its left operand.
      {"d - INTERVAL 1 DAY * 2", "(date_sub(`d`,1,'DAY') * 2)"},
      {"x << INTERVAL 1 DAY + d", "(`x` << date_add(`d`,1,'DAY'))"},
      {"d - INTERVAL 1 + 1 DAY | 1", "(date_sub(`d`,(1 + 1),'DAY') | 1)"},
  };
  ExpectTrees(cases);
  // Not where only a multiplicative operand may start.
  EXPECT_FALSE(ParseExpression("2 * INTERVAL 1 DAY + d").ok());
}

TEST(ParserTest, PipesAsConcatMakesDoublePipeConcatenate) {
  ParseOptions options;
  options.pipes_as_concat = true;
  auto e = ParseExpression("'a' || 'b' = 'ab'", options);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(ExprToString(**e), "(('a' || 'b') = 'ab')");
}

TEST(ParserTest, PredicatesParse) {
  auto e = ParseExpression("a NOT BETWEEN 1 AND 2 AND b IN (1, 2) AND c NOT LIKE 'x%' ESCAPE '!' "
                           "AND d IS NOT NULL AND e REGEXP '^a' AND f IS TRUE");
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(ExprToString(**e),
            "((((((`a` not between 1 and 2) and (`b` in (1,2))) and (`c` not like 'x%' escape "
            "'!')) and (`d` is not null)) and regexp_like(`e`,'^a')) and (`f` is true))");
}

TEST(ParserTest, LiteralsGetMySQLTypes) {
  auto s = ParseOne<SelectStmt>(
      "SELECT 1, 9223372036854775808, 99999999999999999999, 1.50, 1e3, TRUE, X'41', b'1', "
      "_binary'z'",
      StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_EQ(Item(*s, 0).value.kind(), ValueKind::kInt);
  EXPECT_EQ(Item(*s, 1).value.kind(), ValueKind::kUInt);
  EXPECT_EQ(Item(*s, 2).value.kind(), ValueKind::kDecimal);
  EXPECT_EQ(Item(*s, 3).value.kind(), ValueKind::kDecimal);
  EXPECT_EQ(Item(*s, 3).value.ToString(), "1.50");
  EXPECT_EQ(Item(*s, 4).value.kind(), ValueKind::kDouble);
  EXPECT_EQ(Item(*s, 5).value.int_value(), 1);
  EXPECT_TRUE(Item(*s, 6).hex_literal);
  EXPECT_TRUE(Item(*s, 6).value.is_binary());
  EXPECT_TRUE(Item(*s, 7).hex_literal);
  EXPECT_FALSE(Item(*s, 8).hex_literal);
  EXPECT_TRUE(Item(*s, 8).value.is_binary());
}

TEST(ParserTest, VariablesParse) {
  auto s = ParseOne<SelectStmt>("SELECT @a, @@global.max_connections, @b := 5", StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_EQ(Item(*s, 0).kind, ExprKind::kUserVar);
  EXPECT_EQ(Item(*s, 1).kind, ExprKind::kSysVar);
  EXPECT_EQ(Item(*s, 1).scope, VarScope::kGlobal);
  EXPECT_EQ(Item(*s, 2).kind, ExprKind::kAssignUserVar);
}

TEST(ParserTest, FunctionCallShapes) {
  auto s = ParseOne<SelectStmt>(
      "SELECT COUNT(*), count(DISTINCT a), NOW(), CURRENT_USER, CURRENT_USER(), "
      "SUBSTRING('abc' FROM 2 FOR 1), TRIM(LEADING 'x' FROM 'xxa'), TRIM('  a '), "
      "POSITION('b' IN 'abc'), LEFT('abc', 2), CURRENT_TIMESTAMP(3)",
      StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_TRUE(Item(*s, 0).star);
  EXPECT_TRUE(Item(*s, 1).distinct);
  EXPECT_EQ(Item(*s, 2).name, "NOW");
  EXPECT_EQ(Item(*s, 3).kind, ExprKind::kFunction);
  EXPECT_EQ(Item(*s, 3).name, "CURRENT_USER");
  EXPECT_EQ(Item(*s, 4).name, "CURRENT_USER");
  EXPECT_EQ(Item(*s, 5).name, "SUBSTRING");
  EXPECT_EQ(Item(*s, 5).args.size(), 3u);
  EXPECT_EQ(Item(*s, 6).trim_side, TrimSide::kLeading);
  EXPECT_EQ(Item(*s, 6).args.size(), 2u);
  EXPECT_EQ(Item(*s, 7).args.size(), 1u);
  EXPECT_EQ(Item(*s, 8).name, "LOCATE");
  EXPECT_EQ(Item(*s, 9).name, "LEFT");
  EXPECT_EQ(Item(*s, 10).args.size(), 1u);
}

TEST(ParserTest, CaseCastConvertCollateParse) {
  auto s = ParseOne<SelectStmt>(
      "SELECT CASE 1 WHEN 1 THEN 'a' ELSE 'b' END, CASE WHEN 1 THEN 2 END, "
      "CAST('1' AS UNSIGNED INTEGER), CAST(1 AS CHAR(3)), CAST(1 AS DECIMAL(5,2)), "
      "CONVERT('a', BINARY), CONVERT('a' USING latin1), 'a' COLLATE utf8mb4_bin, BINARY 'a', "
      "CAST(x AS DATETIME(3))",
      StmtKind::kSelect);
  ASSERT_TRUE(s);
  EXPECT_TRUE(Item(*s, 0).has_operand);
  EXPECT_TRUE(Item(*s, 0).has_else);
  EXPECT_FALSE(Item(*s, 1).has_operand);
  EXPECT_EQ(Item(*s, 2).cast.type, CastType::kUnsigned);
  EXPECT_EQ(Item(*s, 3).cast.type, CastType::kChar);
  EXPECT_EQ(Item(*s, 3).cast.length, 3);
  EXPECT_EQ(Item(*s, 4).cast.precision, 5);
  EXPECT_EQ(Item(*s, 4).cast.scale, 2);
  EXPECT_EQ(Item(*s, 5).cast.type, CastType::kBinary);
  EXPECT_EQ(Item(*s, 6).kind, ExprKind::kConvertUsing);
  EXPECT_EQ(Item(*s, 6).name, "latin1");
  EXPECT_EQ(Item(*s, 7).kind, ExprKind::kCollate);
  EXPECT_EQ(Item(*s, 8).cast.type, CastType::kBinary);
  EXPECT_EQ(Item(*s, 9).cast.type, CastType::kDatetime);
  EXPECT_EQ(Item(*s, 9).cast.scale, 3);
}

TEST(ParserTest, ReservedWordAsColumnIsAnError) {
  Status st = ParseError("SELECT select");
  EXPECT_EQ(st.mysql_errno(), 1064);
  EXPECT_EQ(st.message(), Near("select", 1));
}

// ------------------------------------------------------------------ SET

TEST(ParserTest, SetUserAndSystemVariables) {
  auto s = ParseOne<SetStmt>(
      "SET @a := 1, @b = 'x', GLOBAL max_connections = 10, sort_buffer_size = 5, "
      "@@session.sql_mode = TRADITIONAL, autocommit = ON, x = OFF, y = DEFAULT, "
      "SESSION z = utf8mb4, @@global.`w` = 2",
      StmtKind::kSet);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->items.size(), 10u);
  EXPECT_EQ(s->items[0].kind, SetItem::Kind::kUserVar);
  EXPECT_EQ(s->items[0].name, "a");
  EXPECT_EQ(s->items[2].kind, SetItem::Kind::kSystemVar);
  EXPECT_EQ(s->items[2].scope, VarScope::kGlobal);
  EXPECT_EQ(s->items[2].name, "max_connections");
  EXPECT_EQ(s->items[3].scope, VarScope::kGlobal);  // carried from GLOBAL
  EXPECT_EQ(s->items[4].scope, VarScope::kSession);
  EXPECT_EQ(s->items[4].value->value.string_value(), "TRADITIONAL");
  EXPECT_EQ(s->items[5].value->value.string_value(), "ON");
  EXPECT_EQ(s->items[6].value->value.string_value(), "OFF");
  EXPECT_EQ(s->items[7].value->kind, ExprKind::kDefault);
  EXPECT_EQ(s->items[8].scope, VarScope::kSession);
  EXPECT_EQ(s->items[8].value->value.string_value(), "utf8mb4");
  EXPECT_EQ(s->items[9].scope, VarScope::kGlobal);
  EXPECT_EQ(s->items[9].name, "w");
}

TEST(ParserTest, SetUserVariableKeepsBareWordAsColumn) {
  auto s = ParseOne<SetStmt>("SET @a = abc", StmtKind::kSet);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->items[0].value->kind, ExprKind::kColumn);
}

TEST(ParserTest, SetPersistScopes) {
  auto s = ParseOne<SetStmt>("SET PERSIST a = 1, PERSIST_ONLY b = 2, @@persist.c = 3",
                             StmtKind::kSet);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->items[0].scope, VarScope::kPersist);
  EXPECT_EQ(s->items[1].scope, VarScope::kPersistOnly);
  EXPECT_EQ(s->items[2].scope, VarScope::kPersist);
}

TEST(ParserTest, SetNamesAndCharset) {
  auto s = ParseOne<SetStmt>("SET NAMES utf8mb4 COLLATE 'utf8mb4_bin', CHARACTER SET latin1, "
                             "CHARSET DEFAULT, NAMES DEFAULT",
                             StmtKind::kSet);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->items[0].kind, SetItem::Kind::kNames);
  EXPECT_EQ(s->items[0].charset, "utf8mb4");
  EXPECT_EQ(s->items[0].collation, "utf8mb4_bin");
  EXPECT_EQ(s->items[1].kind, SetItem::Kind::kCharset);
  EXPECT_EQ(s->items[1].charset, "latin1");
  EXPECT_EQ(s->items[2].charset, "");
  EXPECT_EQ(s->items[3].kind, SetItem::Kind::kNames);
  EXPECT_EQ(s->items[3].charset, "");
  auto q = ParseOne<SetStmt>("SET NAMES 'utf8'", StmtKind::kSet);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->items[0].charset, "utf8");
}

TEST(ParserTest, SetTransaction) {
  auto s = ParseOne<SetTransactionStmt>(
      "SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED, READ ONLY",
      StmtKind::kSetTransaction);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->scope, VarScope::kGlobal);
  EXPECT_EQ(s->isolation, IsolationLevel::kReadCommitted);
  EXPECT_EQ(s->read_only, true);
  auto t = ParseOne<SetTransactionStmt>("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
                                        StmtKind::kSetTransaction);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->scope, VarScope::kDefault);
  EXPECT_EQ(t->isolation, IsolationLevel::kSerializable);
  auto u = ParseOne<SetTransactionStmt>(
      "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ", StmtKind::kSetTransaction);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->isolation, IsolationLevel::kRepeatableRead);
  auto w = ParseOne<SetTransactionStmt>("SET TRANSACTION READ WRITE", StmtKind::kSetTransaction);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->read_only, false);
  EXPECT_EQ(ParseError("SET TRANSACTION ISOLATION LEVEL READ SOMETHING").message(),
            Near("SOMETHING", 1));
}

TEST(ParserTest, SetPassword) {
  auto s = ParseOne<SetPasswordStmt>("SET PASSWORD = 'pw'", StmtKind::kSetPassword);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->user.has_value());
  EXPECT_EQ(s->password, "pw");
  auto t = ParseOne<SetPasswordStmt>("SET PASSWORD FOR 'u'@'h' = 'pw2'", StmtKind::kSetPassword);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->user->name, "u");
  EXPECT_EQ(t->user->host, "h");
}

// ------------------------------------------------------------------ SHOW

TEST(ParserTest, ShowVariablesAndStatus) {
  auto s = ParseOne<ShowStmt>("SHOW GLOBAL VARIABLES LIKE 'max%'", StmtKind::kShow);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->what, ShowKind::kVariables);
  EXPECT_EQ(s->scope, VarScope::kGlobal);
  EXPECT_EQ(s->like, "max%");
  auto t = ParseOne<ShowStmt>("SHOW SESSION STATUS WHERE Variable_name = 'Uptime'",
                              StmtKind::kShow);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->what, ShowKind::kStatus);
  ASSERT_TRUE(t->where);
  EXPECT_EQ(t->where->args[0]->name, "Variable_name");
  auto u = ParseOne<ShowStmt>("SHOW VARIABLES", StmtKind::kShow);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->scope, VarScope::kDefault);
  auto v = ParseOne<ShowStmt>("SHOW LOCAL STATUS", StmtKind::kShow);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->scope, VarScope::kSession);
}

TEST(ParserTest, ShowEveryForm) {
  struct Case {
    const char* sql;
    ShowKind what;
  };
  const Case cases[] = {
      {"SHOW PROCESSLIST", ShowKind::kProcesslist},
      {"SHOW ENGINE INNODB STATUS", ShowKind::kEngineStatus},
      {"SHOW FULL PROCESSLIST", ShowKind::kProcesslist},
      {"SHOW DATABASES", ShowKind::kDatabases},
      {"SHOW SCHEMAS LIKE 'a%'", ShowKind::kDatabases},
      {"SHOW WARNINGS", ShowKind::kWarnings},
      {"SHOW WARNINGS LIMIT 1, 2", ShowKind::kWarnings},
      {"SHOW ERRORS LIMIT 3", ShowKind::kErrors},
      {"SHOW COUNT(*) WARNINGS", ShowKind::kWarnings},
      {"SHOW COUNT(*) ERRORS", ShowKind::kErrors},
      {"SHOW GRANTS", ShowKind::kGrants},
      {"SHOW GRANTS FOR 'u'@'%'", ShowKind::kGrants},
      {"SHOW GRANTS FOR CURRENT_USER()", ShowKind::kGrants},
      {"SHOW GRANTS FOR CURRENT_USER", ShowKind::kGrants},
      {"SHOW CREATE USER root@localhost", ShowKind::kCreateUser},
      {"SHOW MASTER STATUS", ShowKind::kMasterStatus},
      {"SHOW BINARY LOG STATUS", ShowKind::kMasterStatus},
      {"SHOW BINARY LOGS", ShowKind::kBinaryLogs},
      {"SHOW MASTER LOGS", ShowKind::kBinaryLogs},
      {"SHOW REPLICAS", ShowKind::kReplicas},
      {"SHOW SLAVE HOSTS", ShowKind::kReplicas},
      {"SHOW ENGINES", ShowKind::kEngines},
      {"SHOW STORAGE ENGINES", ShowKind::kEngines},
      {"SHOW CHARACTER SET", ShowKind::kCharset},
      {"SHOW CHARSET LIKE 'utf8%'", ShowKind::kCharset},
      {"SHOW COLLATION LIKE 'utf8mb4%'", ShowKind::kCollation},
      {"SHOW PLUGINS", ShowKind::kPlugins},
      {"SHOW PRIVILEGES", ShowKind::kPrivileges},
  };
  for (const Case& c : cases) {
    auto s = ParseOne<ShowStmt>(c.sql, StmtKind::kShow);
    ASSERT_TRUE(s) << c.sql;
    EXPECT_EQ(s->what, c.what) << c.sql;
  }
  auto full = ParseOne<ShowStmt>("SHOW FULL PROCESSLIST", StmtKind::kShow);
  EXPECT_TRUE(full->full);
  auto count = ParseOne<ShowStmt>("SHOW COUNT(*) WARNINGS", StmtKind::kShow);
  EXPECT_TRUE(count->count_only);
  auto limited = ParseOne<ShowStmt>("SHOW WARNINGS LIMIT 1, 2", StmtKind::kShow);
  EXPECT_EQ(limited->offset->value.int_value(), 1);
  EXPECT_EQ(limited->limit->value.int_value(), 2);
  auto grants = ParseOne<ShowStmt>("SHOW GRANTS FOR CURRENT_USER()", StmtKind::kShow);
  EXPECT_TRUE(grants->user->current_user);
  auto create = ParseOne<ShowStmt>("SHOW CREATE USER root@localhost", StmtKind::kShow);
  EXPECT_EQ(create->user->name, "root");
  EXPECT_EQ(create->user->host, "localhost");
}

TEST(ParserTest, ShowUnknownThingIsAnErrorAtThatWord) {
  EXPECT_EQ(ParseError("SHOW FOO").message(), Near("FOO", 1));
  EXPECT_EQ(ParseError("SHOW GLOBAL PROCESSLIST").message(), Near("PROCESSLIST", 1));
}

// ------------------------------------------------------------------ control statements

TEST(ParserTest, SessionAndServerControl) {
  EXPECT_EQ(ParseOne<UseStmt>("USE `my-db`", StmtKind::kUse)->database, "my-db");
  auto k = ParseOne<KillStmt>("KILL QUERY 12", StmtKind::kKill);
  EXPECT_TRUE(k->query_only);
  EXPECT_EQ(k->id->value.int_value(), 12);
  EXPECT_FALSE(ParseOne<KillStmt>("KILL CONNECTION 3", StmtKind::kKill)->query_only);
  EXPECT_FALSE(ParseOne<KillStmt>("KILL 3", StmtKind::kKill)->query_only);
  ParseOne<ShutdownStmt>("SHUTDOWN", StmtKind::kShutdown);
  auto f = ParseOne<FlushStmt>(
      "FLUSH NO_WRITE_TO_BINLOG LOGS, PRIVILEGES, BINARY LOGS, TABLES, STATUS", StmtKind::kFlush);
  EXPECT_TRUE(f->no_write_to_binlog);
  EXPECT_EQ(f->options, (std::vector<FlushOption>{FlushOption::kLogs, FlushOption::kPrivileges,
                                                  FlushOption::kBinaryLogs, FlushOption::kTables,
                                                  FlushOption::kStatus}));
  EXPECT_EQ(ParseOne<FlushStmt>("FLUSH TABLES WITH READ LOCK", StmtKind::kFlush)->options[0],
            FlushOption::kTablesWithReadLock);
  auto d = ParseOne<DoStmt>("DO 1, SLEEP(0)", StmtKind::kDo);
  EXPECT_EQ(d->exprs.size(), 2u);
}

TEST(ParserTest, ShowBinlogEvents) {
  auto a = ParseOne<ShowStmt>("SHOW BINLOG EVENTS", StmtKind::kShow);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->what, ShowKind::kBinlogEvents);
  EXPECT_EQ(a->log_name, "");
  EXPECT_FALSE(a->from_pos.has_value());
  EXPECT_FALSE(a->limit);
  EXPECT_FALSE(a->offset);

  auto b = ParseOne<ShowStmt>("show binlog events in 'binlog.000002' from 157 limit 2, 3", StmtKind::kShow);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->what, ShowKind::kBinlogEvents);
  EXPECT_EQ(b->log_name, "binlog.000002");
  EXPECT_EQ(b->from_pos, 157u);
  ASSERT_TRUE(b->offset);
  ASSERT_TRUE(b->limit);
  EXPECT_EQ(b->offset->value.int_value(), 2);
  EXPECT_EQ(b->limit->value.int_value(), 3);

  auto c = ParseOne<ShowStmt>("SHOW BINLOG EVENTS FROM 4 LIMIT 5 OFFSET 1", StmtKind::kShow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->from_pos, 4u);
  EXPECT_EQ(c->limit->value.int_value(), 5);
  EXPECT_EQ(c->offset->value.int_value(), 1);

  auto d = ParseOne<ShowStmt>("SHOW BINLOG EVENTS LIMIT 1", StmtKind::kShow);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->limit->value.int_value(), 1);
  EXPECT_FALSE(d->offset);

  // The clauses come in order; IN takes a string, FROM an integer.
  EXPECT_EQ(ParseError("SHOW BINLOG EVENTS FROM 4 IN 'binlog.000001'").message(), Near("IN 'binlog.000001'", 1));
  EXPECT_EQ(ParseError("SHOW BINLOG EVENTS IN binlog").message(), Near("binlog", 1));
  EXPECT_EQ(ParseError("SHOW BINLOG EVENTS FROM 'x'").message(), Near("'x'", 1));
  EXPECT_EQ(ParseError("SHOW BINLOG EVENTS FROM -1").message(), Near("-1", 1));
  EXPECT_EQ(ParseError("SHOW BINLOG").message(), Near("BINLOG", 1));
}

TEST(ParserTest, PurgeBinaryLogs) {
  auto a = ParseOne<PurgeBinaryLogsStmt>("PURGE BINARY LOGS TO 'binlog.000003'", StmtKind::kPurgeBinaryLogs);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->to, "binlog.000003");
  EXPECT_FALSE(a->before);

  auto b = ParseOne<PurgeBinaryLogsStmt>("purge master logs before '2024-01-02 03:04:05'",
                                         StmtKind::kPurgeBinaryLogs);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->to, "");
  ASSERT_TRUE(b->before);
  EXPECT_EQ(b->before->kind, ExprKind::kLiteral);
  EXPECT_EQ(b->before->value.string_value(), "2024-01-02 03:04:05");

  auto c = ParseOne<PurgeBinaryLogsStmt>("PURGE BINARY LOGS BEFORE NOW() - INTERVAL 3 DAY",
                                         StmtKind::kPurgeBinaryLogs);
  ASSERT_TRUE(c);
  ASSERT_TRUE(c->before);

  EXPECT_EQ(ParseError("PURGE LOGS TO 'binlog.000001'").message(), Near("LOGS TO 'binlog.000001'", 1));
  EXPECT_EQ(ParseError("PURGE BINARY LOG TO 'binlog.000001'").message(), Near("LOG TO 'binlog.000001'", 1));
  EXPECT_EQ(ParseError("PURGE BINARY LOGS").message(), Near("", 1));
  EXPECT_EQ(ParseError("PURGE BINARY LOGS TO binlog").message(), Near("binlog", 1));
  EXPECT_EQ(ParseError("PURGE BINARY LOGS AFTER NOW()").message(), Near("AFTER NOW()", 1));
}

TEST(ParserTest, ResetMaster) {
  auto a = ParseOne<ResetMasterStmt>("RESET MASTER", StmtKind::kResetMaster);
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->to.has_value());
  auto b = ParseOne<ResetMasterStmt>("reset master to 1234", StmtKind::kResetMaster);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->to, 1234u);
  auto c = ParseOne<ResetMasterStmt>("RESET BINARY LOGS AND GTIDS", StmtKind::kResetMaster);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->to.has_value());
  auto d = ParseOne<ResetMasterStmt>("RESET BINARY LOGS AND GTIDS TO 2000000000", StmtKind::kResetMaster);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->to, 2000000000u);

  Status zero = ParseError("RESET MASTER TO 0");
  EXPECT_EQ(zero.mysql_errno(), 3567);
  EXPECT_EQ(zero.message(),
            "The requested value '0' for the next binary log index is out of range. Please use a value between "
            "'1' and '2000000000'.");
  Status big = ParseError("RESET BINARY LOGS AND GTIDS TO 2000000001");
  EXPECT_EQ(big.mysql_errno(), 3567);
  EXPECT_EQ(big.message(),
            "The requested value '2000000001' for the next binary log index is out of range. Please use a value "
            "between '1' and '2000000000'.");

  EXPECT_EQ(ParseError("RESET").message(), Near("", 1));
  EXPECT_EQ(ParseError("RESET SLAVE").message(), Near("SLAVE", 1));
  EXPECT_EQ(ParseError("RESET BINARY LOGS").message(), Near("", 1));
  EXPECT_EQ(ParseError("RESET BINARY LOGS AND").message(), Near("", 1));
  EXPECT_EQ(ParseError("RESET MASTER TO 'x'").message(), Near("'x'", 1));
}

TEST(ParserTest, TransactionStatements) {
  ParseOne<StartTransactionStmt>("BEGIN", StmtKind::kStartTransaction);
  ParseOne<StartTransactionStmt>("BEGIN WORK", StmtKind::kStartTransaction);
  auto s = ParseOne<StartTransactionStmt>("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY",
                                          StmtKind::kStartTransaction);
  EXPECT_TRUE(s->consistent_snapshot);
  EXPECT_EQ(s->read_only, true);
  ParseOne<CommitStmt>("COMMIT", StmtKind::kCommit);
  ParseOne<CommitStmt>("commit work", StmtKind::kCommit);
  ParseOne<RollbackStmt>("ROLLBACK WORK", StmtKind::kRollback);
  EXPECT_EQ(ParseError("START TRANSACTION READ ONLY, READ WRITE").message(), Near("READ WRITE", 1));
}

// ------------------------------------------------------------------ accounts

TEST(ParserTest, UserSpecsInEveryQuoting) {
  auto d = ParseOne<DropUserStmt>(
      "DROP USER IF EXISTS 'u'@'h', `v`@`%`, w@localhost, 'x', y@'%.example.com', "
      "z@127.0.0.1, 'a'@'LOCALHOST', ''@''",
      StmtKind::kDropUser);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->if_exists);
  ASSERT_EQ(d->users.size(), 8u);
  EXPECT_EQ(d->users[0].ToString(), "'u'@'h'");
  EXPECT_EQ(d->users[1].ToString(), "'v'@'%'");
  EXPECT_EQ(d->users[2].ToString(), "'w'@'localhost'");
  EXPECT_EQ(d->users[3].ToString(), "'x'@'%'");
  EXPECT_EQ(d->users[4].host, "%.example.com");
  EXPECT_EQ(d->users[5].host, "127.0.0.1");
  EXPECT_EQ(d->users[6].host, "localhost");
  EXPECT_EQ(d->users[7].name, "");
  EXPECT_EQ(d->users[7].host, "");
}

TEST(ParserTest, CreateUserWithAuthAndAccountLock) {
  auto c = ParseOne<CreateUserStmt>(
      "CREATE USER IF NOT EXISTS 'a'@'%' IDENTIFIED BY 'pw', "
      "b IDENTIFIED WITH caching_sha2_password BY 'p2', "
      "c IDENTIFIED WITH 'mysql_native_password' AS '*ABC', d "
      "REQUIRE NONE ACCOUNT LOCK",
      StmtKind::kCreateUser);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->if_not_exists);
  ASSERT_EQ(c->users.size(), 4u);
  EXPECT_EQ(c->users[0].password, "pw");
  EXPECT_EQ(c->users[0].plugin, "");
  EXPECT_EQ(c->users[1].plugin, "caching_sha2_password");
  EXPECT_EQ(c->users[1].password, "p2");
  EXPECT_EQ(c->users[2].plugin, "mysql_native_password");
  EXPECT_EQ(c->users[2].auth_string, "*ABC");
  EXPECT_FALSE(c->users[3].identified);
  EXPECT_EQ(c->account_locked, true);
}

TEST(ParserTest, CreateUserRejectsUnsupportedOptions) {
  EXPECT_EQ(ParseError("CREATE USER u PASSWORD EXPIRE").message(), Near("PASSWORD EXPIRE", 1));
  EXPECT_EQ(ParseError("CREATE USER u REQUIRE SSL").message(), Near("SSL", 1));
}

TEST(ParserTest, UserNameLongerThan32IsRejected) {
  Status st = ParseError("CREATE USER 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'");
  EXPECT_EQ(st.mysql_errno(), 1470);
}

TEST(ParserTest, AlterRenameUser) {
  auto a = ParseOne<AlterUserStmt>("ALTER USER IF EXISTS u@h IDENTIFIED BY 'x' ACCOUNT UNLOCK",
                                   StmtKind::kAlterUser);
  EXPECT_TRUE(a->if_exists);
  EXPECT_EQ(a->account_locked, false);
  auto me = ParseOne<AlterUserStmt>("ALTER USER USER() IDENTIFIED BY 'x'", StmtKind::kAlterUser);
  EXPECT_TRUE(me->users[0].user.current_user);
  auto r = ParseOne<RenameUserStmt>("RENAME USER a TO b, 'c'@'h' TO 'd'@'h2'",
                                    StmtKind::kRenameUser);
  ASSERT_EQ(r->renames.size(), 2u);
  EXPECT_EQ(r->renames[1].second.ToString(), "'d'@'h2'");
}

TEST(ParserTest, GrantPrivilegesAndLevels) {
  auto g = ParseOne<GrantStmt>(
      "GRANT SELECT, insert, REPLICATION SLAVE, REPLICATION CLIENT, SHOW DATABASES, "
      "CREATE TEMPORARY TABLES, binlog_admin ON *.* TO 'repl'@'%', x WITH GRANT OPTION",
      StmtKind::kGrant);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->privileges,
            (std::vector<std::string>{"SELECT", "INSERT", "REPLICATION SLAVE",
                                      "REPLICATION CLIENT", "SHOW DATABASES",
                                      "CREATE TEMPORARY TABLES", "BINLOG_ADMIN"}));
  EXPECT_EQ(g->level.kind, PrivLevel::Kind::kGlobal);
  EXPECT_EQ(g->users.size(), 2u);
  EXPECT_TRUE(g->with_grant_option);

  auto all = ParseOne<GrantStmt>("GRANT ALL PRIVILEGES ON db.* TO u", StmtKind::kGrant);
  EXPECT_EQ(all->privileges, std::vector<std::string>{"ALL"});
  EXPECT_EQ(all->level.kind, PrivLevel::Kind::kDatabase);
  EXPECT_EQ(all->level.db, "db");

  auto t = ParseOne<GrantStmt>("GRANT UPDATE ON `db`.tbl TO u", StmtKind::kGrant);
  EXPECT_EQ(t->level.kind, PrivLevel::Kind::kTable);
  EXPECT_EQ(t->level.table, "tbl");
  auto cur = ParseOne<GrantStmt>("GRANT SELECT ON * TO u", StmtKind::kGrant);
  EXPECT_EQ(cur->level.kind, PrivLevel::Kind::kCurrentDb);
  auto bare = ParseOne<GrantStmt>("GRANT SELECT ON TABLE tbl TO u", StmtKind::kGrant);
  EXPECT_EQ(bare->level.kind, PrivLevel::Kind::kTable);
  EXPECT_EQ(bare->level.db, "");
  EXPECT_EQ(ParseError("GRANT SHOW STUFF ON *.* TO u").message(),
            Near("SHOW STUFF ON *.* TO u", 1));
}

TEST(ParserTest, RevokeForms) {
  auto r = ParseOne<RevokeStmt>("REVOKE INSERT, GRANT OPTION ON *.* FROM u, v", StmtKind::kRevoke);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->privileges, (std::vector<std::string>{"INSERT", "GRANT OPTION"}));
  EXPECT_EQ(r->users.size(), 2u);
  auto all = ParseOne<RevokeStmt>("REVOKE ALL PRIVILEGES, GRANT OPTION FROM u", StmtKind::kRevoke);
  EXPECT_TRUE(all->all_and_grant_option);
  auto all2 = ParseOne<RevokeStmt>("REVOKE ALL, GRANT OPTION FROM u@h", StmtKind::kRevoke);
  EXPECT_TRUE(all2->all_and_grant_option);
  EXPECT_EQ(all2->users[0].host, "h");
}

TEST(ParserTest, PluginStatements) {
  auto i = ParseOne<InstallPluginStmt>(
      "INSTALL PLUGIN rpl_semi_sync_source SONAME 'semisync_source.so'", StmtKind::kInstallPlugin);
  EXPECT_EQ(i->name, "rpl_semi_sync_source");
  EXPECT_EQ(i->soname, "semisync_source.so");
  auto u = ParseOne<UninstallPluginStmt>("UNINSTALL PLUGIN rpl_semi_sync_source",
                                         StmtKind::kUninstallPlugin);
  EXPECT_EQ(u->name, "rpl_semi_sync_source");
}

// ------------------------------------------------------------------ SELECT: tables and locks

TEST(ParserTest, SelectFromQualifiedAndAliasedTables) {
  auto s = ParseOne<SelectStmt>("SELECT a FROM db.t AS x, `u` y, v WHERE a > 1 ORDER BY a LIMIT 3",
                                StmtKind::kSelect);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->from.size(), 3u);
  EXPECT_EQ(s->from[0].schema, "db");
  EXPECT_EQ(s->from[0].alias, "x");
  EXPECT_EQ(s->from[1].name, "u");
  EXPECT_EQ(s->from[1].alias, "y");
  EXPECT_EQ(s->from[2].alias, "");
  EXPECT_TRUE(s->where);
  EXPECT_EQ(s->order_by.size(), 1u);
  EXPECT_EQ(s->limit->value.int_value(), 3);
  EXPECT_EQ(s->lock, SelectStmt::Lock::kNone);
  // After a '.', even a reserved word names the table.
  auto r = ParseOne<SelectStmt>("SELECT 1 FROM db.select", StmtKind::kSelect);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->from[0].name, "select");
}

TEST(ParserTest, SelectLockingClauses) {
  using W = SelectStmt::LockWait;
  struct Case {
    const char* sql;
    SelectStmt::Lock lock;
    W wait = W::kWait;
  };
  const Case cases[] = {
      {"SELECT c FROM sbtest1 WHERE id=? FOR UPDATE", SelectStmt::Lock::kForUpdate},
      {"SELECT c FROM t WHERE id = 1 LIMIT 1 FOR SHARE", SelectStmt::Lock::kForShare},
      {"SELECT c FROM t LOCK IN SHARE MODE", SelectStmt::Lock::kForShare},
      {"SELECT c FROM t FOR UPDATE NOWAIT", SelectStmt::Lock::kForUpdate, W::kNowait},
      {"SELECT c FROM t FOR SHARE SKIP LOCKED", SelectStmt::Lock::kForShare, W::kSkipLocked},
      {"SELECT c FROM t, u FOR SHARE OF t FOR UPDATE OF u NOWAIT", SelectStmt::Lock::kForUpdate, W::kNowait},
      {"SELECT c FROM t ORDER BY c LIMIT 2 OFFSET 1 for update", SelectStmt::Lock::kForUpdate},
  };
  for (const Case& c : cases) {
    auto s = ParseOne<SelectStmt>(c.sql, StmtKind::kSelect);
    ASSERT_TRUE(s) << c.sql;
    EXPECT_EQ(s->lock, c.lock) << c.sql;
    EXPECT_EQ(s->lock_wait, c.wait) << c.sql;
  }
  EXPECT_EQ(ParseError("SELECT c FROM t FOR UPDATE LIMIT 1").message(), Near("LIMIT 1", 1));
  EXPECT_EQ(ParseError("SELECT c FROM t FOR SHARE SKIP").message(), Near("", 1));
}

TEST(ParserTest, SysbenchQueriesParse) {
  auto point = ParseOne<SelectStmt>("SELECT c FROM sbtest1 WHERE id=?", StmtKind::kSelect);
  ASSERT_TRUE(point);
  EXPECT_EQ(point->where->args[1]->kind, ExprKind::kParam);

  auto range = ParseOne<SelectStmt>("SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c",
                                    StmtKind::kSelect);
  ASSERT_TRUE(range);
  EXPECT_EQ(range->where->kind, ExprKind::kBetween);
  EXPECT_FALSE(range->distinct);
  EXPECT_EQ(range->order_by.size(), 1u);

  auto distinct = ParseOne<SelectStmt>(
      "SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN ? AND ? ORDER BY c", StmtKind::kSelect);
  ASSERT_TRUE(distinct);
  EXPECT_TRUE(distinct->distinct);

  auto sum = ParseOne<SelectStmt>("SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN ? AND ?",
                                  StmtKind::kSelect);
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->items[0].expr->name, "SUM");

  auto for_update = ParseOne<SelectStmt>("SELECT c FROM sbtest1 WHERE id=? FOR UPDATE",
                                         StmtKind::kSelect);
  ASSERT_TRUE(for_update);
  EXPECT_EQ(for_update->lock, SelectStmt::Lock::kForUpdate);

  auto del = ParseOne<DeleteStmt>("DELETE FROM sbtest1 WHERE id=?", StmtKind::kDelete);
  ASSERT_TRUE(del);
  EXPECT_EQ(del->table.name, "sbtest1");
  EXPECT_EQ(del->where->args[1]->param_index, 0);

  auto inc = ParseOne<UpdateStmt>("UPDATE sbtest1 SET k=k+1 WHERE id=?", StmtKind::kUpdate);
  ASSERT_TRUE(inc);
  ASSERT_EQ(inc->set.size(), 1u);
  EXPECT_EQ(inc->set[0].column->name, "k");
  EXPECT_EQ(ExprToString(*inc->set[0].value), "(`k` + 1)");
  EXPECT_EQ(ExprToString(*inc->where), "(`id` = ?)");

  auto nonindex = ParseOne<UpdateStmt>("UPDATE sbtest1 SET c=? WHERE id=?", StmtKind::kUpdate);
  ASSERT_TRUE(nonindex);
  EXPECT_EQ(nonindex->set[0].value->param_index, 0);
  EXPECT_EQ(nonindex->where->args[1]->param_index, 1);

  auto r = ParseAll("INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].param_count, 4);
  const auto& ins = (*r)[0].stmt->As<InsertStmt>();
  EXPECT_EQ(ins.columns, (std::vector<std::string>{"id", "k", "c", "pad"}));
  ASSERT_EQ(ins.rows.size(), 1u);
  ASSERT_EQ(ins.rows[0].size(), 4u);
  EXPECT_EQ(ins.rows[0][3]->param_index, 3);
}

TEST(ParserTest, SysbenchCreateTableAndIndex) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, "
      "c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) "
      "/*! ENGINE = innodb */",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->table.name, "sbtest1");
  ASSERT_EQ(s->columns.size(), 4u);
  const ColumnDefinition& id = s->columns[0];
  EXPECT_EQ(id.name, "id");
  EXPECT_EQ(id.type.name, "INT");
  EXPECT_EQ(id.type.length, -1);
  EXPECT_EQ(id.nullable, false);
  EXPECT_TRUE(id.auto_increment);
  EXPECT_FALSE(id.default_value);
  const ColumnDefinition& k = s->columns[1];
  EXPECT_EQ(k.type.name, "INT");
  ASSERT_TRUE(k.default_value);
  EXPECT_EQ(k.default_value->value.string_value(), "0");
  EXPECT_EQ(k.nullable, false);
  const ColumnDefinition& c = s->columns[2];
  EXPECT_EQ(c.type.name, "CHAR");
  EXPECT_EQ(c.type.length, 120);
  EXPECT_EQ(c.default_value->value.string_value(), "");
  EXPECT_EQ(s->columns[3].type.length, 60);
  ASSERT_EQ(s->indexes.size(), 1u);
  EXPECT_EQ(s->indexes[0].kind, IndexSpec::Kind::kPrimary);
  EXPECT_EQ(s->indexes[0].name, "");
  ASSERT_EQ(s->indexes[0].parts.size(), 1u);
  EXPECT_EQ(s->indexes[0].parts[0].column, "id");
  EXPECT_EQ(s->options.engine, "innodb");

  auto i = ParseOne<CreateIndexStmt>("CREATE INDEX k_1 ON sbtest1(k)", StmtKind::kCreateIndex);
  ASSERT_TRUE(i);
  EXPECT_EQ(i->index.kind, IndexSpec::Kind::kKey);
  EXPECT_EQ(i->index.name, "k_1");
  EXPECT_EQ(i->table.name, "sbtest1");
  ASSERT_EQ(i->index.parts.size(), 1u);
  EXPECT_EQ(i->index.parts[0].column, "k");
}

TEST(ParserTest, MariadbSlapTableAndInsert) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TABLE `t1` (id serial,intcol1 INT(32) ,charcol1 VARCHAR(128))",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->table.name, "t1");
  ASSERT_EQ(s->columns.size(), 3u);
  const ColumnDefinition& id = s->columns[0];
  EXPECT_EQ(id.type.name, "BIGINT");
  EXPECT_TRUE(id.type.is_unsigned);
  EXPECT_EQ(id.nullable, false);
  EXPECT_TRUE(id.auto_increment);
  EXPECT_TRUE(id.unique);
  EXPECT_FALSE(id.primary_key);
  EXPECT_EQ(s->columns[1].type.name, "INT");
  EXPECT_EQ(s->columns[1].type.length, 32);
  EXPECT_FALSE(s->columns[1].nullable.has_value());
  EXPECT_EQ(s->columns[2].type.name, "VARCHAR");
  EXPECT_EQ(s->columns[2].type.length, 128);

  const std::string pad =
      "mxvtvmC9127qJNm06sGB8R92q2j7vTiiITRDGXM9ZLzkdekbWtmXKwZ2qG1llkRw5m9DHOFilEREk3q7oce8O3BEJC0"
      "woJsm6uzFAEynLH2xCsw1KQ1lT4zg9rdxBLb97R";
  auto ins = ParseOne<InsertStmt>("INSERT INTO t1 VALUES (NULL,1804289383,'" + pad + "');",
                                  StmtKind::kInsert);
  ASSERT_TRUE(ins);
  EXPECT_FALSE(ins->replace);
  EXPECT_TRUE(ins->columns.empty());
  ASSERT_EQ(ins->rows.size(), 1u);
  ASSERT_EQ(ins->rows[0].size(), 3u);
  EXPECT_TRUE(ins->rows[0][0]->value.is_null());
  EXPECT_EQ(ins->rows[0][1]->value.int_value(), 1804289383);
  EXPECT_EQ(ins->rows[0][2]->value.string_value(), pad);
}

// ------------------------------------------------------------------ CREATE / DROP DATABASE

TEST(ParserTest, CreateAndDropDatabase) {
  auto c = ParseOne<CreateDatabaseStmt>(
      "CREATE DATABASE IF NOT EXISTS `My-Db` DEFAULT CHARACTER SET = UTF8MB4 "
      "COLLATE utf8mb4_bin ENCRYPTION = 'N'",
      StmtKind::kCreateDatabase);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->if_not_exists);
  EXPECT_EQ(c->name, "My-Db");
  EXPECT_EQ(c->charset, "utf8mb4");
  EXPECT_EQ(c->collation, "utf8mb4_bin");
  auto d = ParseOne<CreateDatabaseStmt>("create schema Shop charset latin1 default collate = "
                                        "latin1_swedish_ci charset=utf8mb3",
                                        StmtKind::kCreateDatabase);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->if_not_exists);
  EXPECT_EQ(d->name, "Shop");
  EXPECT_EQ(d->charset, "utf8mb3");  // the last one wins
  EXPECT_EQ(d->collation, "latin1_swedish_ci");
  // mysqldump's form, with versioned comments.
  auto dump = ParseOne<CreateDatabaseStmt>(
      "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `test` /*!40100 DEFAULT CHARACTER SET utf8mb4 "
      "COLLATE utf8mb4_0900_ai_ci */ /*!80016 DEFAULT ENCRYPTION='N' */",
      StmtKind::kCreateDatabase);
  ASSERT_TRUE(dump);
  EXPECT_TRUE(dump->if_not_exists);
  EXPECT_EQ(dump->collation, "utf8mb4_0900_ai_ci");

  auto drop = ParseOne<DropDatabaseStmt>("DROP SCHEMA IF EXISTS shop", StmtKind::kDropDatabase);
  ASSERT_TRUE(drop);
  EXPECT_TRUE(drop->if_exists);
  EXPECT_EQ(drop->name, "shop");
  EXPECT_FALSE(
      ParseOne<DropDatabaseStmt>("DROP DATABASE d", StmtKind::kDropDatabase)->if_exists);

  EXPECT_EQ(ParseError("CREATE DATABASE d DEFAULT ENGINE=x").message(), Near("ENGINE=x", 1));
  EXPECT_EQ(ParseError("CREATE DATABASE select").message(), Near("select", 1));
}

// ------------------------------------------------------------------ CREATE TABLE

TEST(ParserTest, DataTypesAndSynonymsFold) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TABLE t (a0 TINYINT(3) UNSIGNED, a1 INT1, a2 SMALLINT ZEROFILL, a3 INT2, "
      "a4 MEDIUMINT, a5 MIDDLEINT, a6 INT3, a7 INT SIGNED, a8 INTEGER, a9 INT4, a10 BIGINT(20), "
      "a11 INT8, a12 BOOL, a13 BOOLEAN, a14 BIT(8), a15 DECIMAL(10,2), a16 DEC(5), "
      "a17 NUMERIC, a18 FIXED(4,1) UNSIGNED, a19 FLOAT, a20 FLOAT(7,3), a21 FLOAT(30), "
      "a22 FLOAT4, a23 FLOAT8, a24 DOUBLE, a25 DOUBLE PRECISION(8,2), a26 REAL, "
      "a27 CHAR, a28 CHARACTER(5), a29 CHARACTER VARYING(6), a30 CHAR VARYING(7), "
      "a31 VARCHAR(8), a32 VARCHARACTER(9), a33 NCHAR(2), a34 NATIONAL CHAR(3), "
      "a35 NATIONAL CHARACTER VARYING(4), a36 NVARCHAR(5), a37 NCHAR VARCHAR(6), "
      "a38 NATIONAL VARCHAR(7), a39 BINARY(4), a40 BINARY, a41 VARBINARY(10), "
      "a42 TINYTEXT, a43 TEXT(100), a44 MEDIUMTEXT, a45 LONGTEXT, a46 LONG VARCHAR, a47 LONG, "
      "a48 TINYBLOB, a49 BLOB(10), a50 MEDIUMBLOB, a51 LONGBLOB, a52 LONG VARBINARY, "
      "a53 DATE, a54 TIME(3), a55 DATETIME, a56 TIMESTAMP(6), a57 YEAR, a58 YEAR(4), "
      "a59 ENUM('a','b c'), a60 SET('x','y'), a61 JSON, a62 SERIAL)",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  struct Expect {
    const char* name;
    int length;
    int scale;
  };
  const Expect expected[] = {
      {"TINYINT", 3, -1},    {"TINYINT", -1, -1},    {"SMALLINT", -1, -1},  {"SMALLINT", -1, -1},
      {"MEDIUMINT", -1, -1}, {"MEDIUMINT", -1, -1},  {"MEDIUMINT", -1, -1}, {"INT", -1, -1},
      {"INT", -1, -1},       {"INT", -1, -1},        {"BIGINT", 20, -1},    {"BIGINT", -1, -1},
      {"TINYINT", 1, -1},    {"TINYINT", 1, -1},     {"BIT", 8, -1},        {"DECIMAL", 10, 2},
      {"DECIMAL", 5, -1},    {"DECIMAL", -1, -1},    {"DECIMAL", 4, 1},     {"FLOAT", -1, -1},
      {"FLOAT", 7, 3},       {"DOUBLE", 30, -1},     {"FLOAT", -1, -1},     {"DOUBLE", -1, -1},
      {"DOUBLE", -1, -1},    {"DOUBLE", 8, 2},       {"DOUBLE", -1, -1},    {"CHAR", -1, -1},
      {"CHAR", 5, -1},       {"VARCHAR", 6, -1},     {"VARCHAR", 7, -1},    {"VARCHAR", 8, -1},
      {"VARCHAR", 9, -1},    {"CHAR", 2, -1},        {"CHAR", 3, -1},       {"VARCHAR", 4, -1},
      {"VARCHAR", 5, -1},    {"VARCHAR", 6, -1},     {"VARCHAR", 7, -1},    {"BINARY", 4, -1},
      {"BINARY", -1, -1},    {"VARBINARY", 10, -1},  {"TINYTEXT", -1, -1},  {"TEXT", 100, -1},
      {"MEDIUMTEXT", -1, -1}, {"LONGTEXT", -1, -1},  {"MEDIUMTEXT", -1, -1}, {"MEDIUMTEXT", -1, -1},
      {"TINYBLOB", -1, -1},  {"BLOB", 10, -1},       {"MEDIUMBLOB", -1, -1}, {"LONGBLOB", -1, -1},
      {"MEDIUMBLOB", -1, -1}, {"DATE", -1, -1},      {"TIME", 3, -1},       {"DATETIME", -1, -1},
      {"TIMESTAMP", 6, -1},  {"YEAR", -1, -1},       {"YEAR", 4, -1},       {"ENUM", -1, -1},
      {"SET", -1, -1},       {"JSON", -1, -1},       {"BIGINT", -1, -1},
  };
  ASSERT_EQ(s->columns.size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    const DataType& t = s->columns[i].type;
    EXPECT_EQ(s->columns[i].name, "a" + std::to_string(i));
    EXPECT_EQ(t.name, expected[i].name) << i;
    EXPECT_EQ(t.length, expected[i].length) << i;
    EXPECT_EQ(t.scale, expected[i].scale) << i;
  }
  EXPECT_TRUE(s->columns[0].type.is_unsigned);
  EXPECT_TRUE(s->columns[2].type.zerofill);
  EXPECT_TRUE(s->columns[2].type.is_unsigned);  // ZEROFILL implies UNSIGNED
  EXPECT_FALSE(s->columns[7].type.is_unsigned);
  EXPECT_TRUE(s->columns[18].type.is_unsigned);
  for (int national : {33, 34, 35, 36, 37, 38}) {
    EXPECT_EQ(s->columns[national].type.charset, "utf8mb3") << national;
  }
  EXPECT_EQ(s->columns[59].type.values, (std::vector<std::string>{"a", "b c"}));
  EXPECT_EQ(s->columns[60].type.values, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(s->columns[62].unique);
}

TEST(ParserTest, StringTypeCharsetsAndCollations) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TABLE t (a VARCHAR(10) CHARACTER SET Latin1 COLLATE latin1_bin, "
      "b CHAR(3) BINARY, c TEXT CHARSET utf8mb4 NOT NULL COLLATE 'utf8mb4_bin', "
      "d CHAR(4) CHARACTER SET binary, e VARCHAR(5) CHARSET binary, f TEXT CHARACTER SET binary, "
      "g ENUM('x') CHARACTER SET ascii, h CHAR(2) ASCII, i NCHAR(2) BINARY)",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->columns[0].type.charset, "latin1");
  EXPECT_EQ(s->columns[0].type.collation, "latin1_bin");
  EXPECT_TRUE(s->columns[1].type.binary);
  EXPECT_EQ(s->columns[2].type.charset, "utf8mb4");
  EXPECT_EQ(s->columns[2].type.collation, "utf8mb4_bin");
  EXPECT_EQ(s->columns[2].nullable, false);
  // CHARACTER SET binary makes the binary twin, as MySQL does.
  EXPECT_EQ(s->columns[3].type.name, "BINARY");
  EXPECT_EQ(s->columns[3].type.length, 4);
  EXPECT_EQ(s->columns[3].type.charset, "");
  EXPECT_EQ(s->columns[4].type.name, "VARBINARY");
  EXPECT_EQ(s->columns[5].type.name, "BLOB");
  EXPECT_EQ(s->columns[6].type.charset, "ascii");
  EXPECT_EQ(s->columns[7].type.charset, "latin1");
  EXPECT_EQ(s->columns[8].type.charset, "utf8mb3");
  EXPECT_TRUE(s->columns[8].type.binary);
}

TEST(ParserTest, ColumnAttributesInAnyOrder) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TABLE t (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY COMMENT 'the id', "
      "u INT UNIQUE KEY NULL, k INT KEY, "
      "ts TIMESTAMP(3) NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3), "
      "d DATETIME DEFAULT NOW() ON UPDATE LOCALTIMESTAMP, e DATETIME DEFAULT LOCALTIMESTAMP, "
      "n INT DEFAULT -5 VISIBLE, p DECIMAL(5,2) DEFAULT +1.5 INVISIBLE, "
      "x INT DEFAULT (1 + 2) COLUMN_FORMAT FIXED STORAGE DISK, y INT DEFAULT NULL, "
      "z BOOL DEFAULT TRUE, b BIT(4) DEFAULT b'101', hx VARBINARY(4) DEFAULT X'ff', "
      "dt DATE DEFAULT DATE '2024-01-02', j JSON DEFAULT (JSON_ARRAY()), "
      "ck INT CHECK (ck > 0), cc INT CONSTRAINT c1 CHECK (cc < 10) NOT ENFORCED, "
      "sv INT DEFAULT SERIAL VALUE, r INT REFERENCES u (id) ON DELETE CASCADE, "
      "status INT, comment TEXT, date DATE, text TEXT, timestamp TIMESTAMP)",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  const auto& c = s->columns;
  EXPECT_TRUE(c[0].type.is_unsigned);
  EXPECT_TRUE(c[0].auto_increment);
  EXPECT_TRUE(c[0].primary_key);
  EXPECT_EQ(c[0].comment, "the id");
  EXPECT_FALSE(c[0].nullable.has_value());
  EXPECT_TRUE(c[1].unique);
  EXPECT_EQ(c[1].nullable, true);
  EXPECT_TRUE(c[2].primary_key);
  EXPECT_EQ(c[3].nullable, true);
  EXPECT_EQ(c[3].default_value->kind, ExprKind::kFunction);
  EXPECT_EQ(c[3].default_value->name, "CURRENT_TIMESTAMP");
  ASSERT_EQ(c[3].default_value->args.size(), 1u);
  EXPECT_EQ(c[3].default_value->args[0]->value.int_value(), 3);
  EXPECT_TRUE(c[3].on_update_now);
  EXPECT_EQ(c[4].default_value->name, "CURRENT_TIMESTAMP");  // NOW() folds
  EXPECT_TRUE(c[4].default_value->args.empty());
  EXPECT_TRUE(c[4].on_update_now);
  EXPECT_EQ(c[5].default_value->name, "CURRENT_TIMESTAMP");
  EXPECT_FALSE(c[5].on_update_now);
  EXPECT_EQ(ExprToString(*c[6].default_value), "-(5)");
  EXPECT_EQ(c[7].default_value->value.ToString(), "1.5");
  EXPECT_EQ(ExprToString(*c[8].default_value), "(1 + 2)");
  EXPECT_TRUE(c[9].default_value->value.is_null());
  EXPECT_EQ(c[10].default_value->value.int_value(), 1);
  EXPECT_TRUE(c[11].default_value->hex_literal);
  EXPECT_TRUE(c[12].default_value->hex_literal);
  EXPECT_EQ(c[13].default_value->kind, ExprKind::kCast);
  EXPECT_EQ(c[14].default_value->kind, ExprKind::kFunction);
  ASSERT_EQ(s->checks.size(), 2u);
  EXPECT_EQ(s->checks[0].expr, "ck > 0");
  EXPECT_EQ(s->checks[0].name, "");
  EXPECT_TRUE(s->checks[0].enforced);
  EXPECT_EQ(s->checks[1].expr, "cc < 10");
  EXPECT_EQ(s->checks[1].name, "c1");
  EXPECT_FALSE(s->checks[1].enforced);
  EXPECT_EQ(s->checks[0].column, "ck");
  EXPECT_EQ(s->checks[1].column, "cc");
  EXPECT_TRUE(c[17].auto_increment);  // DEFAULT SERIAL VALUE
  EXPECT_TRUE(c[17].unique);
  EXPECT_EQ(c[17].nullable, false);
  EXPECT_TRUE(s->foreign_keys.empty());  // a column REFERENCES is ignored, as in MySQL
  EXPECT_EQ(c[19].name, "status");
  EXPECT_EQ(c[20].name, "comment");
  EXPECT_EQ(c[21].name, "date");
  EXPECT_EQ(c[22].name, "text");
  EXPECT_EQ(c[23].name, "timestamp");
  EXPECT_EQ(c[23].type.name, "TIMESTAMP");
}

TEST(ParserTest, TableLevelIndexesAndConstraints) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TEMPORARY TABLE IF NOT EXISTS db.T (\n"
      "  `id` int NOT NULL AUTO_INCREMENT,\n"
      "  `Name` varchar(64) COLLATE utf8mb4_bin DEFAULT NULL,\n"
      "  `x` int, body TEXT, g TEXT,\n"
      "  CONSTRAINT pk PRIMARY KEY USING BTREE (`id`) COMMENT 'pk',\n"
      "  UNIQUE KEY `name` (`Name`(10) DESC, x ASC) USING HASH INVISIBLE,\n"
      "  CONSTRAINT uq UNIQUE (x),\n"
      "  KEY `idx_x` (`x`) KEY_BLOCK_SIZE = 8 VISIBLE,\n"
      "  INDEX (x, id),\n"
      "  FULLTEXT KEY ft (body) WITH PARSER ngram,\n"
      "  SPATIAL INDEX (g),\n"
      "  CONSTRAINT `fk` FOREIGN KEY (`x`) REFERENCES `u` (`id`) ON DELETE CASCADE ON UPDATE "
      "SET NULL,\n"
      "  FOREIGN KEY fk2 (x) REFERENCES db2.u (a, b) MATCH FULL ON DELETE NO ACTION,\n"
      "  CONSTRAINT `chk` CHECK ((`id` > 0)),\n"
      "  CHECK (x <> 1) ENFORCED\n"
      ") ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci "
      "COMMENT='a table', ROW_FORMAT=DYNAMIC KEY_BLOCK_SIZE=8 STATS_PERSISTENT=0 "
      "STATS_AUTO_RECALC DEFAULT",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->temporary);
  EXPECT_TRUE(s->if_not_exists);
  EXPECT_EQ(s->table.schema, "db");
  EXPECT_EQ(s->table.name, "T");
  EXPECT_EQ(s->columns[1].name, "Name");
  EXPECT_EQ(s->columns[1].type.collation, "utf8mb4_bin");
  ASSERT_EQ(s->indexes.size(), 7u);
  EXPECT_EQ(s->indexes[0].kind, IndexSpec::Kind::kPrimary);
  EXPECT_EQ(s->indexes[0].name, "");
  EXPECT_EQ(s->indexes[0].comment, "pk");
  EXPECT_EQ(s->indexes[1].kind, IndexSpec::Kind::kUnique);
  EXPECT_EQ(s->indexes[1].name, "name");
  ASSERT_EQ(s->indexes[1].parts.size(), 2u);
  EXPECT_EQ(s->indexes[1].parts[0].column, "Name");
  EXPECT_EQ(s->indexes[1].parts[0].prefix_length, 10);
  EXPECT_TRUE(s->indexes[1].parts[0].desc);
  EXPECT_FALSE(s->indexes[1].parts[1].desc);
  EXPECT_EQ(s->indexes[1].parts[1].prefix_length, 0);
  EXPECT_EQ(s->indexes[2].kind, IndexSpec::Kind::kUnique);
  EXPECT_EQ(s->indexes[2].name, "uq");  // the CONSTRAINT symbol names it
  EXPECT_EQ(s->indexes[3].kind, IndexSpec::Kind::kKey);
  EXPECT_EQ(s->indexes[3].name, "idx_x");
  EXPECT_EQ(s->indexes[4].name, "");
  EXPECT_EQ(s->indexes[4].parts.size(), 2u);
  EXPECT_EQ(s->indexes[5].kind, IndexSpec::Kind::kFulltext);
  EXPECT_EQ(s->indexes[6].kind, IndexSpec::Kind::kSpatial);
  ASSERT_EQ(s->foreign_keys.size(), 2u);
  EXPECT_EQ(s->foreign_keys[0].name, "fk");
  EXPECT_EQ(s->foreign_keys[0].index_name, "");
  EXPECT_EQ(s->foreign_keys[0].columns, std::vector<std::string>{"x"});
  EXPECT_EQ(s->foreign_keys[0].ref_table.name, "u");
  EXPECT_EQ(s->foreign_keys[0].ref_columns, std::vector<std::string>{"id"});
  EXPECT_EQ(s->foreign_keys[0].on_delete, ForeignKeySpec::Action::kCascade);
  EXPECT_EQ(s->foreign_keys[0].on_update, ForeignKeySpec::Action::kSetNull);
  EXPECT_EQ(s->foreign_keys[1].name, "");
  EXPECT_EQ(s->foreign_keys[1].index_name, "fk2");
  EXPECT_EQ(s->foreign_keys[1].ref_table.schema, "db2");
  EXPECT_EQ(s->foreign_keys[1].ref_columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s->foreign_keys[1].on_delete, ForeignKeySpec::Action::kNoAction);
  EXPECT_EQ(s->foreign_keys[1].on_update, ForeignKeySpec::Action::kNoAction);
  ASSERT_EQ(s->checks.size(), 2u);
  EXPECT_EQ(s->checks[0].name, "chk");
  EXPECT_EQ(s->checks[0].expr, "(`id` > 0)");
  EXPECT_EQ(s->checks[0].column, "");
  EXPECT_EQ(s->checks[1].name, "");
  EXPECT_EQ(s->checks[1].expr, "x <> 1");
  EXPECT_TRUE(s->checks[1].enforced);
  EXPECT_EQ(s->options.engine, "InnoDB");
  EXPECT_EQ(s->options.auto_increment, 5u);
  EXPECT_EQ(s->options.charset, "utf8mb4");
  EXPECT_EQ(s->options.collation, "utf8mb4_0900_ai_ci");
  EXPECT_EQ(s->options.comment, "a table");
  EXPECT_EQ(s->options.row_format, "DYNAMIC");
  EXPECT_FALSE(s->like.has_value());
}

TEST(ParserTest, CreateTableLike) {
  auto a = ParseOne<CreateTableStmt>("CREATE TABLE t2 LIKE db.t1", StmtKind::kCreateTable);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->like.has_value());
  EXPECT_EQ(a->like->schema, "db");
  EXPECT_EQ(a->like->name, "t1");
  EXPECT_TRUE(a->columns.empty());
  auto b = ParseOne<CreateTableStmt>("CREATE TABLE IF NOT EXISTS t2 (LIKE t1)",
                                     StmtKind::kCreateTable);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->if_not_exists);
  EXPECT_EQ(b->like->name, "t1");
}

TEST(ParserTest, AnsiQuotesNameTablesAndColumns) {
  ParseOptions options;
  options.lex.ansi_quotes = true;
  auto r = ParseAll("CREATE TABLE \"Order\" (\"key\" INT, \"Select\" INT)", options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const auto& s = (*r)[0].stmt->As<CreateTableStmt>();
  EXPECT_EQ(s.table.name, "Order");
  EXPECT_EQ(s.columns[0].name, "key");
  EXPECT_EQ(s.columns[1].name, "Select");
}

TEST(ParserTest, CreateTableErrors) {
  // Reserved words must be quoted: here KEY starts an index definition.
  EXPECT_EQ(ParseError("CREATE TABLE t (key INT)").message(), Near("INT)", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT, select INT)").message(), Near("select INT)", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT, PRIMARY KEY (a)) ENGINE=InnoDB FOO=1").message(),
            Near("FOO=1", 1));
  // A generated column's expression is in parentheses; GENERATED needs ALWAYS.
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS a + 1 STORED)").message(),
            Near("a + 1 STORED)", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT GENERATED AS (1))").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("CREATE TABLE t ()").message(), Near(")", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a VARCHAR)").message(), Near(")", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a DOUBLE(5))").message(), Near("))", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a GEOMETRY)").message(), Near("GEOMETRY)", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT DEFAULT b)").message(), Near("b)", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT,\n CONSTRAINT c KEY (a))").message(),
            Near("KEY (a))", 2));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) ENGINE=InnoDB,").message(), Near("", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT, KEY ((a + 1)))").message(), Near("(a + 1)))", 1));
  EXPECT_EQ(ParseError("CREATE TEMPORARY DATABASE d").message(), Near("DATABASE d", 1));
  EXPECT_EQ(ParseError("CREATE TABLE t (a INT) SELECT 1").message(), Near("SELECT 1", 1));
}

// ------------------------------------------------------------------ DROP / TRUNCATE / INDEX

TEST(ParserTest, DropTableTruncateAndIndexes) {
  auto d = ParseOne<DropTableStmt>("DROP TEMPORARY TABLE IF EXISTS t1, db.t2 CASCADE",
                                   StmtKind::kDropTable);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->temporary);
  EXPECT_TRUE(d->if_exists);
  ASSERT_EQ(d->tables.size(), 2u);
  EXPECT_EQ(d->tables[1].schema, "db");
  EXPECT_EQ(d->tables[1].name, "t2");
  auto d2 = ParseOne<DropTableStmt>("drop table `sbtest1` restrict", StmtKind::kDropTable);
  ASSERT_TRUE(d2);
  EXPECT_FALSE(d2->if_exists);
  EXPECT_FALSE(d2->temporary);

  auto t = ParseOne<TruncateStmt>("TRUNCATE TABLE db.t", StmtKind::kTruncate);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->table.schema, "db");
  EXPECT_EQ(ParseOne<TruncateStmt>("TRUNCATE t", StmtKind::kTruncate)->table.name, "t");

  auto u = ParseOne<CreateIndexStmt>(
      "CREATE UNIQUE INDEX u1 USING BTREE ON db.t (a(4), b DESC) COMMENT 'c' ALGORITHM = INPLACE "
      "LOCK NONE",
      StmtKind::kCreateIndex);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->index.kind, IndexSpec::Kind::kUnique);
  EXPECT_EQ(u->table.schema, "db");
  EXPECT_EQ(u->index.parts[0].prefix_length, 4);
  EXPECT_TRUE(u->index.parts[1].desc);
  EXPECT_EQ(u->index.comment, "c");
  EXPECT_EQ(ParseOne<CreateIndexStmt>("CREATE FULLTEXT INDEX f ON t (body)",
                                      StmtKind::kCreateIndex)
                ->index.kind,
            IndexSpec::Kind::kFulltext);

  auto di = ParseOne<DropIndexStmt>("DROP INDEX `PRIMARY` ON t ALGORITHM=COPY",
                                    StmtKind::kDropIndex);
  ASSERT_TRUE(di);
  EXPECT_EQ(di->name, "PRIMARY");
  EXPECT_EQ(di->table.name, "t");

  EXPECT_EQ(ParseError("DROP INDEX k_1").message(), Near("", 1));
  EXPECT_EQ(ParseError("DROP TABLE t1,").message(), Near("", 1));
  EXPECT_EQ(ParseError("DROP TEMPORARY USER u").message(), Near("USER u", 1));
}

// ------------------------------------------------------------------ ALTER TABLE / RENAME TABLE

TEST(ParserTest, AlterTableColumnSpecs) {
  auto a = ParseOne<AlterTableStmt>(
      "ALTER TABLE db.t ADD COLUMN c INT NOT NULL DEFAULT 3 FIRST, ADD d VARCHAR(10) AFTER `a`, "
      "DROP COLUMN e, DROP f, MODIFY COLUMN g BIGINT UNSIGNED AFTER h, CHANGE i j TEXT, "
      "CHANGE COLUMN k l INT FIRST, RENAME COLUMN m TO n, ALTER COLUMN o SET DEFAULT 'x', "
      "ALTER p DROP DEFAULT, ALTER q SET DEFAULT (1 + 2)",
      StmtKind::kAlterTable);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->table.schema, "db");
  EXPECT_EQ(a->table.name, "t");
  ASSERT_EQ(a->specs.size(), 11u);
  using K = AlterSpec::Kind;
  using P = AlterSpec::Position;
  EXPECT_EQ(a->specs[0].kind, K::kAddColumn);
  EXPECT_EQ(a->specs[0].column.name, "c");
  EXPECT_EQ(a->specs[0].column.nullable, false);
  ASSERT_TRUE(a->specs[0].column.default_value);
  EXPECT_EQ(a->specs[0].position, P::kFirst);
  EXPECT_EQ(a->specs[1].kind, K::kAddColumn);
  EXPECT_EQ(a->specs[1].column.type.name, "VARCHAR");
  EXPECT_EQ(a->specs[1].position, P::kAfter);
  EXPECT_EQ(a->specs[1].after, "a");
  EXPECT_EQ(a->specs[2].kind, K::kDropColumn);
  EXPECT_EQ(a->specs[2].name, "e");
  EXPECT_EQ(a->specs[3].kind, K::kDropColumn);
  EXPECT_EQ(a->specs[3].name, "f");
  EXPECT_EQ(a->specs[4].kind, K::kModifyColumn);
  EXPECT_EQ(a->specs[4].name, "g");
  EXPECT_TRUE(a->specs[4].column.type.is_unsigned);
  EXPECT_EQ(a->specs[4].after, "h");
  EXPECT_EQ(a->specs[5].kind, K::kChangeColumn);
  EXPECT_EQ(a->specs[5].name, "i");
  EXPECT_EQ(a->specs[5].column.name, "j");
  EXPECT_EQ(a->specs[5].position, P::kLast);
  EXPECT_EQ(a->specs[6].kind, K::kChangeColumn);
  EXPECT_EQ(a->specs[6].column.name, "l");
  EXPECT_EQ(a->specs[6].position, P::kFirst);
  EXPECT_EQ(a->specs[7].kind, K::kRenameColumn);
  EXPECT_EQ(a->specs[7].name, "m");
  EXPECT_EQ(a->specs[7].new_name, "n");
  EXPECT_EQ(a->specs[8].kind, K::kSetDefault);
  EXPECT_EQ(a->specs[8].name, "o");
  ASSERT_TRUE(a->specs[8].default_value);
  EXPECT_EQ(a->specs[8].default_value->value.ToString(), "x");
  EXPECT_EQ(a->specs[9].kind, K::kDropDefault);
  EXPECT_EQ(a->specs[9].name, "p");
  ASSERT_TRUE(a->specs[10].default_value);
  EXPECT_EQ(a->specs[10].default_value->kind, ExprKind::kBinary);

  // ADD (col, ...) gives one spec per element, indexes included.
  auto l = ParseOne<AlterTableStmt>("ALTER TABLE t ADD (x INT, y INT UNIQUE, KEY (x))", StmtKind::kAlterTable);
  ASSERT_TRUE(l);
  ASSERT_EQ(l->specs.size(), 3u);
  EXPECT_EQ(l->specs[0].column.name, "x");
  EXPECT_TRUE(l->specs[1].column.unique);
  EXPECT_EQ(l->specs[2].kind, K::kAddIndex);
  // Non-reserved keywords name columns.
  auto w = ParseOne<AlterTableStmt>("ALTER TABLE t ADD first INT FIRST, DROP modify", StmtKind::kAlterTable);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->specs[0].column.name, "first");
  EXPECT_EQ(w->specs[0].position, P::kFirst);
  EXPECT_EQ(w->specs[1].name, "modify");
}

TEST(ParserTest, AlterTableIndexRenameAndOptionSpecs) {
  auto a = ParseOne<AlterTableStmt>(
      "ALTER TABLE t ADD INDEX (a), ADD KEY k2 USING BTREE (b(4) DESC), ADD UNIQUE u (c), "
      "ADD UNIQUE KEY (d), ADD CONSTRAINT pk PRIMARY KEY (e), ADD FULLTEXT INDEX f (g), "
      "DROP INDEX k3, DROP KEY `PRIMARY`, DROP PRIMARY KEY, RENAME INDEX k4 TO k5, "
      "RENAME KEY k6 TO k7, ALGORITHM=INPLACE, LOCK = NONE, FORCE, RENAME TO db2.u",
      StmtKind::kAlterTable);
  ASSERT_TRUE(a);
  using K = AlterSpec::Kind;
  ASSERT_EQ(a->specs.size(), 13u);
  EXPECT_EQ(a->specs[0].kind, K::kAddIndex);
  EXPECT_EQ(a->specs[0].index.kind, IndexSpec::Kind::kKey);
  EXPECT_EQ(a->specs[0].index.name, "");
  EXPECT_EQ(a->specs[1].index.name, "k2");
  EXPECT_EQ(a->specs[1].index.parts[0].prefix_length, 4);
  EXPECT_TRUE(a->specs[1].index.parts[0].desc);
  EXPECT_EQ(a->specs[2].index.kind, IndexSpec::Kind::kUnique);
  EXPECT_EQ(a->specs[2].index.name, "u");
  EXPECT_EQ(a->specs[3].index.kind, IndexSpec::Kind::kUnique);
  EXPECT_EQ(a->specs[4].index.kind, IndexSpec::Kind::kPrimary);
  EXPECT_EQ(a->specs[5].index.kind, IndexSpec::Kind::kFulltext);
  EXPECT_EQ(a->specs[6].kind, K::kDropIndex);
  EXPECT_EQ(a->specs[6].name, "k3");
  EXPECT_EQ(a->specs[7].kind, K::kDropIndex);
  EXPECT_EQ(a->specs[7].name, "PRIMARY");
  EXPECT_EQ(a->specs[8].kind, K::kDropPrimaryKey);
  EXPECT_EQ(a->specs[9].kind, K::kRenameIndex);
  EXPECT_EQ(a->specs[9].name, "k4");
  EXPECT_EQ(a->specs[9].new_name, "k5");
  EXPECT_EQ(a->specs[10].new_name, "k7");
  EXPECT_EQ(a->specs[11].kind, K::kForce);
  EXPECT_EQ(a->specs[12].kind, K::kRenameTable);
  EXPECT_EQ(a->specs[12].new_table.schema, "db2");
  EXPECT_EQ(a->specs[12].new_table.name, "u");

  // Table options among the specs, with or without commas between them.
  auto o = ParseOne<AlterTableStmt>(
      "ALTER TABLE t ENGINE=InnoDB DEFAULT CHARSET = latin1, COLLATE latin1_bin, ADD z INT, "
      "COMMENT = 'hi' AUTO_INCREMENT 100, RENAME AS v",
      StmtKind::kAlterTable);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->options.engine, "InnoDB");
  EXPECT_EQ(o->options.charset, "latin1");
  EXPECT_EQ(o->options.collation, "latin1_bin");
  EXPECT_EQ(o->options.comment, "hi");
  EXPECT_EQ(o->options.auto_increment, 100u);
  ASSERT_EQ(o->specs.size(), 2u);
  EXPECT_EQ(o->specs[1].new_table.name, "v");
  // No spec at all is a no-op ALTER.
  auto n = ParseOne<AlterTableStmt>("alter table t", StmtKind::kAlterTable);
  ASSERT_TRUE(n);
  EXPECT_TRUE(n->specs.empty());
  auto fk = ParseOne<AlterTableStmt>("ALTER TABLE t ADD CONSTRAINT f FOREIGN KEY (a) REFERENCES u (b)",
                                     StmtKind::kAlterTable);
  ASSERT_TRUE(fk);
  ASSERT_EQ(fk->foreign_keys.size(), 1u);
  EXPECT_EQ(fk->foreign_keys[0].name, "f");
  EXPECT_EQ(fk->foreign_keys[0].on_delete, ForeignKeySpec::Action::kNoAction);
  auto drop = ParseOne<AlterTableStmt>("ALTER TABLE t DROP FOREIGN KEY f, DROP KEY f", StmtKind::kAlterTable);
  ASSERT_TRUE(drop);
  ASSERT_EQ(drop->specs.size(), 2u);
  EXPECT_EQ(drop->specs[0].kind, AlterSpec::Kind::kDropForeignKey);
  EXPECT_EQ(drop->specs[0].name, "f");
  EXPECT_EQ(drop->specs[1].kind, AlterSpec::Kind::kDropIndex);
}

TEST(ParserTest, RenameTableAndAlterErrors) {
  auto r = ParseOne<RenameTableStmt>("RENAME TABLE a TO b, db.c TO db2.d", StmtKind::kRenameTable);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->renames.size(), 2u);
  EXPECT_EQ(r->renames[0].first.name, "a");
  EXPECT_EQ(r->renames[0].second.name, "b");
  EXPECT_EQ(r->renames[1].first.schema, "db");
  EXPECT_EQ(r->renames[1].second.schema, "db2");
  EXPECT_EQ(ParseOne<RenameTableStmt>("RENAME TABLES x TO y", StmtKind::kRenameTable)->renames.size(), 1u);
  // RENAME USER still parses.
  EXPECT_TRUE(ParseOne<RenameUserStmt>("RENAME USER a TO b", StmtKind::kRenameUser));

  EXPECT_EQ(ParseError("RENAME TABLE a b").message(), Near("b", 1));
  EXPECT_EQ(ParseError("RENAME TABLE a TO b,").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ADD").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t FOO").message(), Near("FOO", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ADD c INT,").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ADD COLUMN key INT").message(), Near("key INT", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t DROP PRIMARY c").message(), Near("c", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t MODIFY c").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t CHANGE c d").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t CHANGE c INT").message(), Near("INT", 1));  // reserved: no name
  EXPECT_EQ(ParseError("ALTER TABLE t RENAME COLUMN a b").message(), Near("b", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ALTER c SET NULL").message(), Near("NULL", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ALTER c SET DEFAULT").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ADD c INT AFTER").message(), Near("", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ADD (c INT) FIRST").message(), Near("FIRST", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t ALGORITHM=FAST").message(), Near("FAST", 1));
  EXPECT_EQ(ParseError("ALTER TABLE t DEFAULT COMMENT 'x'").message(), Near("COMMENT 'x'", 1));
  EXPECT_EQ(ParseError("ALTER DATABASE d").message(), Near("DATABASE d", 1));
}

// ------------------------------------------------------------------ INSERT / REPLACE

TEST(ParserTest, InsertForms) {
  auto a = ParseOne<InsertStmt>(
      "INSERT LOW_PRIORITY IGNORE INTO db.t (a, `b`, t.c) VALUES (1, DEFAULT, 'x'), "
      "(2, 3 + 4, NULL) AS new ON DUPLICATE KEY UPDATE b = new.b + VALUES(b), c = DEFAULT",
      StmtKind::kInsert);
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->ignore);
  EXPECT_FALSE(a->replace);
  EXPECT_EQ(a->table.schema, "db");
  EXPECT_EQ(a->columns, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(a->rows.size(), 2u);
  EXPECT_EQ(a->rows[0][1]->kind, ExprKind::kDefault);
  EXPECT_EQ(ExprToString(*a->rows[1][1]), "(3 + 4)");
  EXPECT_EQ(a->row_alias, "new");
  ASSERT_EQ(a->on_duplicate.size(), 2u);
  EXPECT_EQ(a->on_duplicate[0].column->name, "b");
  const Expr& v = *a->on_duplicate[0].value;
  EXPECT_EQ(v.args[0]->table, "new");
  EXPECT_EQ(v.args[1]->kind, ExprKind::kFunction);
  EXPECT_EQ(v.args[1]->name, "VALUES");
  EXPECT_EQ(a->on_duplicate[1].value->kind, ExprKind::kDefault);

  auto empty = ParseOne<InsertStmt>("INSERT INTO t () VALUES (), ()", StmtKind::kInsert);
  ASSERT_TRUE(empty);
  EXPECT_TRUE(empty->columns.empty());
  ASSERT_EQ(empty->rows.size(), 2u);
  EXPECT_TRUE(empty->rows[0].empty());

  auto value = ParseOne<InsertStmt>("insert t value (1)", StmtKind::kInsert);
  ASSERT_TRUE(value);
  EXPECT_EQ(value->table.name, "t");
  EXPECT_EQ(value->rows.size(), 1u);

  auto set = ParseOne<InsertStmt>(
      "INSERT HIGH_PRIORITY t SET a = 1, b = DEFAULT ON DUPLICATE KEY UPDATE a = a + 1",
      StmtKind::kInsert);
  ASSERT_TRUE(set);
  EXPECT_EQ(set->columns, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(set->rows.size(), 1u);
  EXPECT_EQ(set->rows[0][0]->value.int_value(), 1);
  EXPECT_EQ(set->rows[0][1]->kind, ExprKind::kDefault);
  EXPECT_EQ(set->on_duplicate.size(), 1u);

  auto sel = ParseOne<InsertStmt>("INSERT INTO t (a, b) SELECT x, y FROM u WHERE x > 1 "
                                  "ON DUPLICATE KEY UPDATE b = 2",
                                  StmtKind::kInsert);
  ASSERT_TRUE(sel);
  ASSERT_TRUE(sel->select);
  EXPECT_TRUE(sel->rows.empty());
  EXPECT_EQ(sel->select->items.size(), 2u);
  EXPECT_EQ(sel->select->from[0].name, "u");
  EXPECT_EQ(sel->on_duplicate.size(), 1u);
  auto paren = ParseOne<InsertStmt>("INSERT INTO t (SELECT * FROM u)", StmtKind::kInsert);
  ASSERT_TRUE(paren);
  ASSERT_TRUE(paren->select);
  EXPECT_TRUE(paren->columns.empty());
  auto paren2 = ParseOne<InsertStmt>("INSERT INTO t (a) (SELECT 1)", StmtKind::kInsert);
  ASSERT_TRUE(paren2);
  EXPECT_EQ(paren2->columns.size(), 1u);
  ASSERT_TRUE(paren2->select);
}

TEST(ParserTest, ReplaceForms) {
  auto r = ParseOne<InsertStmt>("REPLACE INTO t VALUES (1, 'a')", StmtKind::kInsert);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->replace);
  EXPECT_EQ(r->rows[0].size(), 2u);
  auto s = ParseOne<InsertStmt>("REPLACE LOW_PRIORITY t SET a = 2", StmtKind::kInsert);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->replace);
  EXPECT_EQ(s->columns[0], "a");
  auto q = ParseOne<InsertStmt>("REPLACE t (a) SELECT b FROM u", StmtKind::kInsert);
  ASSERT_TRUE(q);
  EXPECT_TRUE(q->select);
  EXPECT_EQ(ParseError("REPLACE INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1").message(),
            Near("ON DUPLICATE KEY UPDATE a = 1", 1));
  EXPECT_EQ(ParseError("REPLACE IGNORE INTO t VALUES (1)").message(),
            Near("IGNORE INTO t VALUES (1)", 1));
}

TEST(ParserTest, InsertErrors) {
  EXPECT_EQ(ParseError("INSERT INTO t VALUES (1").message(), Near("", 1));
  EXPECT_EQ(ParseError("INSERT INTO t VALUES (1), ").message(), Near("", 1));
  EXPECT_EQ(ParseError("INSERT INTO t (a) SET a = 1").message(), Near("SET a = 1", 1));
  EXPECT_EQ(ParseError("INSERT INTO t VALUES (DEFAULT + 1)").message(), Near("+ 1)", 1));
  EXPECT_EQ(ParseError("INSERT INTO t VALUES (1) AS n (x)").message(), Near("(x)", 1));
  EXPECT_EQ(ParseError("INSERT INTO t (key) VALUES (1)").message(), Near("key) VALUES (1)", 1));
}

// ------------------------------------------------------------------ UPDATE / DELETE

TEST(ParserTest, UpdateForms) {
  auto u = ParseOne<UpdateStmt>(
      "UPDATE LOW_PRIORITY IGNORE db.t AS x SET x.a = 1, b := DEFAULT, `c` = c * 2 "
      "WHERE a > 0 ORDER BY a DESC, b LIMIT 10",
      StmtKind::kUpdate);
  ASSERT_TRUE(u);
  EXPECT_TRUE(u->ignore);
  EXPECT_EQ(u->table.schema, "db");
  EXPECT_EQ(u->table.name, "t");
  EXPECT_EQ(u->table.alias, "x");
  ASSERT_EQ(u->set.size(), 3u);
  EXPECT_EQ(u->set[0].column->table, "x");
  EXPECT_EQ(u->set[0].column->name, "a");
  EXPECT_EQ(u->set[1].value->kind, ExprKind::kDefault);
  EXPECT_EQ(u->set[2].column->name, "c");
  ASSERT_EQ(u->order_by.size(), 2u);
  EXPECT_TRUE(u->order_by[0].desc);
  EXPECT_EQ(u->limit->value.int_value(), 10);
  auto bare = ParseOne<UpdateStmt>("update t a set a.x = 1", StmtKind::kUpdate);
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->table.alias, "a");
  EXPECT_FALSE(bare->where);
  EXPECT_FALSE(bare->limit);
  // Multi-table UPDATE and LIMIT with an offset are not single-table UPDATE.
  EXPECT_EQ(ParseError("UPDATE t1, t2 SET t1.a = t2.a").message(), Near(", t2 SET t1.a = t2.a", 1));
  EXPECT_EQ(ParseError("UPDATE t1 JOIN t2 SET a = 1").message(), Near("JOIN t2 SET a = 1", 1));
  EXPECT_EQ(ParseError("UPDATE t SET a = 1 LIMIT 1, 2").message(), Near(", 2", 1));
  EXPECT_EQ(ParseError("UPDATE t SET select = 1").message(), Near("select = 1", 1));
}

TEST(ParserTest, DeleteForms) {
  auto d = ParseOne<DeleteStmt>(
      "DELETE LOW_PRIORITY QUICK IGNORE FROM db.t AS x WHERE x.a = 1 ORDER BY a LIMIT ?",
      StmtKind::kDelete);
  ASSERT_TRUE(d);
  EXPECT_TRUE(d->quick);
  EXPECT_TRUE(d->ignore);
  EXPECT_EQ(d->table.schema, "db");
  EXPECT_EQ(d->table.alias, "x");
  EXPECT_EQ(d->order_by.size(), 1u);
  EXPECT_EQ(d->limit->kind, ExprKind::kParam);
  auto all = ParseOne<DeleteStmt>("delete from t", StmtKind::kDelete);
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->where);
  EXPECT_FALSE(all->quick);
  EXPECT_EQ(ParseError("DELETE t1 FROM t1 JOIN t2").message(), Near("t1 FROM t1 JOIN t2", 1));
  EXPECT_EQ(ParseError("DELETE FROM t1 USING t1, t2").message(), Near("USING t1, t2", 1));
}

// ------------------------------------------------------------------ SHOW / DESCRIBE tables

TEST(ParserTest, ShowTablesColumnsIndexesAndStatus) {
  auto t = ParseOne<ShowStmt>("SHOW FULL TABLES FROM shop LIKE 'a%'", StmtKind::kShow);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->what, ShowKind::kTables);
  EXPECT_TRUE(t->full);
  EXPECT_EQ(t->database, "shop");
  EXPECT_EQ(t->like, "a%");
  auto t2 = ParseOne<ShowStmt>("SHOW TABLES IN `Shop` WHERE Table_type = 'VIEW'",
                               StmtKind::kShow);
  ASSERT_TRUE(t2);
  EXPECT_FALSE(t2->full);
  EXPECT_EQ(t2->database, "Shop");
  EXPECT_TRUE(t2->where);
  auto t3 = ParseOne<ShowStmt>("SHOW TABLES", StmtKind::kShow);
  EXPECT_EQ(t3->database, "");

  auto c = ParseOne<ShowStmt>("SHOW FULL COLUMNS FROM t IN db LIKE 'c%'", StmtKind::kShow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->what, ShowKind::kColumns);
  EXPECT_TRUE(c->full);
  EXPECT_EQ(c->table.name, "t");
  EXPECT_EQ(c->table.schema, "db");
  EXPECT_EQ(c->database, "db");
  EXPECT_EQ(c->like, "c%");
  auto f = ParseOne<ShowStmt>("SHOW FIELDS IN db.t WHERE Field = 'id'", StmtKind::kShow);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->what, ShowKind::kColumns);
  EXPECT_EQ(f->table.schema, "db");
  EXPECT_EQ(f->database, "");
  EXPECT_TRUE(f->where);

  for (const char* q : {"SHOW INDEX FROM t", "SHOW INDEXES IN t FROM db", "SHOW KEYS FROM db.t",
                        "SHOW KEYS FROM t WHERE Key_name = 'PRIMARY'"}) {
    auto i = ParseOne<ShowStmt>(q, StmtKind::kShow);
    ASSERT_TRUE(i) << q;
    EXPECT_EQ(i->what, ShowKind::kIndex) << q;
    EXPECT_EQ(i->table.name, "t") << q;
  }
  EXPECT_EQ(ParseOne<ShowStmt>("SHOW INDEXES IN t FROM db", StmtKind::kShow)->table.schema, "db");

  auto st = ParseOne<ShowStmt>("SHOW TABLE STATUS FROM db LIKE 'sb%'", StmtKind::kShow);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->what, ShowKind::kTableStatus);
  EXPECT_EQ(st->database, "db");
  EXPECT_EQ(st->like, "sb%");
  EXPECT_EQ(ParseOne<ShowStmt>("SHOW TABLE STATUS", StmtKind::kShow)->what,
            ShowKind::kTableStatus);

  auto ct = ParseOne<ShowStmt>("SHOW CREATE TABLE db.`T`", StmtKind::kShow);
  ASSERT_TRUE(ct);
  EXPECT_EQ(ct->what, ShowKind::kCreateTable);
  EXPECT_EQ(ct->table.schema, "db");
  EXPECT_EQ(ct->table.name, "T");
  auto cd = ParseOne<ShowStmt>("SHOW CREATE SCHEMA IF NOT EXISTS Shop", StmtKind::kShow);
  ASSERT_TRUE(cd);
  EXPECT_EQ(cd->what, ShowKind::kCreateDatabase);
  EXPECT_TRUE(cd->if_not_exists);
  EXPECT_EQ(cd->database, "Shop");
  EXPECT_FALSE(ParseOne<ShowStmt>("SHOW CREATE DATABASE d", StmtKind::kShow)->if_not_exists);

  EXPECT_EQ(ParseError("SHOW COLUMNS t").message(), Near("t", 1));
  EXPECT_EQ(ParseError("SHOW INDEX FROM t LIKE 'a'").message(), Near("LIKE 'a'", 1));
  EXPECT_EQ(ParseError("SHOW FULL DATABASES").message(), Near("DATABASES", 1));
}

TEST(ParserTest, DescribeIsShowColumns) {
  auto d = ParseOne<ShowStmt>("DESCRIBE db.t", StmtKind::kShow);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->what, ShowKind::kColumns);
  EXPECT_EQ(d->table.schema, "db");
  EXPECT_EQ(d->table.name, "t");
  EXPECT_FALSE(d->like.has_value());
  auto c = ParseOne<ShowStmt>("DESC t id", StmtKind::kShow);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->like, "id");
  auto p = ParseOne<ShowStmt>("desc t 'i%'", StmtKind::kShow);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->like, "i%");
  EXPECT_EQ(ParseError("DESC t a b").message(), Near("b", 1));
}

TEST(ParserTest, MysqldumpTableSectionParses) {
  const char* dump =
      "DROP TABLE IF EXISTS `t`;\n"
      "/*!40101 SET @saved_cs_client     = @@character_set_client */;\n"
      "/*!50503 SET character_set_client = utf8mb4 */;\n"
      "CREATE TABLE `t` (\n"
      "  `id` int NOT NULL AUTO_INCREMENT,\n"
      "  `ts` timestamp NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,\n"
      "  `v` varchar(10) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'x',\n"
      "  `d` decimal(10,2) unsigned zerofill DEFAULT '0.00',\n"
      "  `h` int /*!80023 INVISIBLE */,\n"
      "  PRIMARY KEY (`id`),\n"
      "  KEY `k` (`v`)\n"
      ") ENGINE=InnoDB AUTO_INCREMENT=3 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;\n"
      "/*!40101 SET character_set_client = @saved_cs_client */;\n"
      "INSERT INTO `t` VALUES (1,'2024-01-02 03:04:05','a',0.50,NULL),(2,NULL,'b',1.00,7);\n";
  auto r = ParseAll(dump);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 6u);
  EXPECT_EQ((*r)[0].stmt->kind, StmtKind::kDropTable);
  EXPECT_EQ((*r)[3].stmt->kind, StmtKind::kCreateTable);
  EXPECT_EQ((*r)[5].stmt->kind, StmtKind::kInsert);
  const auto& ct = (*r)[3].stmt->As<CreateTableStmt>();
  EXPECT_EQ(ct.columns.size(), 5u);
  EXPECT_TRUE(ct.columns[3].type.zerofill);
  EXPECT_EQ((*r)[5].stmt->As<InsertStmt>().rows.size(), 2u);
}

// ------------------------------------------------------------------ errors

TEST(ParserTest, ErrorNearTextStartsAtTheOffendingToken) {
  Status st = ParseError("SELEC 1");
  EXPECT_EQ(st.mysql_errno(), 1064);
  EXPECT_EQ(st.sqlstate(), "42000");
  EXPECT_EQ(st.message(), Near("SELEC 1", 1));
  EXPECT_EQ(ParseError("SELECT 1 +").message(), Near("", 1));
  EXPECT_EQ(ParseError("SELECT * FROM").message(), Near("", 1));
  EXPECT_EQ(ParseError("SELECT 1 FROM t LEFT JOIN u").message(), Near("", 1));
  EXPECT_EQ(ParseError("SELECT (1, 2)").message(), Near(", 2)", 1));
}

TEST(ParserTest, ErrorReportsTheLineOfTheToken) {
  EXPECT_EQ(ParseError("SELECT 1,\n2,\n3 x 5").message(), Near("5", 3));
  EXPECT_EQ(ParseError("SELECT 1,\n2,\n3 4 5").message(), Near("4 5", 3));
  EXPECT_EQ(ParseError("SELECT\n1 +\n").message(), Near("", 2));
}

TEST(ParserTest, ErrorNearTextIsCutTo80Characters) {
  std::string tail(100, 'x');
  Status st = ParseError("SELECT 1 2 " + tail);
  EXPECT_EQ(st.message(), Near("2 " + std::string(78, 'x'), 1));
}

TEST(ParserTest, UnterminatedStringErrorsAtTheQuote) {
  EXPECT_EQ(ParseError("SELECT 'abc").message(), Near("'abc", 1));
}

TEST(ParserTest, TrailingSemicolonsAndSpacesAreDropped) {
  auto r = ParseAll("SELECT 1 ;; \n ");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].text, "SELECT 1");
  EXPECT_EQ(ParseError("SELEC 1;").message(), Near("SELEC 1", 1));
}

TEST(ParserTest, EmptyQueryIs1065) {
  EXPECT_EQ(ParseError("").mysql_errno(), 1065);
  EXPECT_EQ(ParseError("  ;  ").mysql_errno(), 1065);
  EXPECT_EQ(ParseError("").message(), "Query was empty");
}

TEST(ParserTest, CommentOnlyQueryIsAnEmptyStatement) {
  auto r = ParseAll("/* just a comment */");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].stmt->kind, StmtKind::kEmpty);
}

// ------------------------------------------------------------------ multi-statements

TEST(ParserTest, MultiStatementsCarrySpans) {
  std::string q = "SELECT 1; SET @a = 2 ;\nSELECT @a";
  auto r = ParseAll(q);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].text, "SELECT 1");
  EXPECT_EQ((*r)[1].text, "SET @a = 2");
  EXPECT_EQ((*r)[1].begin, 10u);
  EXPECT_EQ((*r)[2].text, "SELECT @a");
  EXPECT_EQ((*r)[2].stmt->kind, StmtKind::kSelect);
}

TEST(ParserTest, ParserYieldsStatementsBeforeALaterSyntaxError) {
  Parser parser("SELECT 1;\nSELECT 2;\n\nSELEC 3; SELECT 4");
  auto a = parser.Next();
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE(parser.AtEnd());
  auto b = parser.Next();
  ASSERT_TRUE(b.ok());
  auto c = parser.Next();
  ASSERT_FALSE(c.ok());
  // The line counts from the statement's first character; the near text runs
  // to the end of the whole query.
  EXPECT_EQ(c.status().message(), Near("SELEC 3; SELECT 4", 1));
  EXPECT_TRUE(parser.AtEnd());
}

TEST(ParserTest, LaterLexErrorDoesNotFailEarlierStatements) {
  Parser parser("SELECT 1; SELECT 'oops");
  ASSERT_TRUE(parser.Next().ok());
  auto second = parser.Next();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(), Near("'oops", 1));
}

TEST(ParserTest, EmptyStatementBetweenSemicolonsIs1065) {
  Parser parser("SELECT 1;;SELECT 2");
  ASSERT_TRUE(parser.Next().ok());
  auto second = parser.Next();
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().mysql_errno(), 1065);
}

TEST(ParserTest, VersionedCommentStatementsParse) {
  auto r = ParseAll("/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n"
                    "/*!50503 SET NAMES utf8mb4 */;");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].stmt->kind, StmtKind::kSet);
  EXPECT_EQ((*r)[1].stmt->kind, StmtKind::kSet);
}

TEST(ParserTest, PlaceholdersAreNumberedInOrder) {
  auto r = ParseAll("SELECT ?, ? + 1 LIMIT ?");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].param_count, 3);
  const auto& s = (*r)[0].stmt->As<SelectStmt>();
  EXPECT_EQ(s.items[1].expr->args[0]->param_index, 1);
  EXPECT_EQ(s.limit->param_index, 2);
}

// Truncations and byte flips of valid statements must give a statement or a
// clean error, never a crash (run under ASan/UBSan in CI).
TEST(ParserRobustnessTest, MutatedInputsNeverCrash) {
  const char* corpus[] = {
      "SELECT @@version, 1+1, 'a''b', _utf8mb4'x' COLLATE utf8mb4_bin, X'41', b'1', 1.5e3",
      "SET GLOBAL x = ON, @a := CONCAT('a', @b), NAMES utf8mb4 COLLATE utf8mb4_bin",
      "SHOW FULL PROCESSLIST; SHOW GLOBAL VARIABLES LIKE 'a\\_%'; KILL QUERY 3",
      "CREATE USER 'u'@'h' IDENTIFIED WITH x AS 'y' ACCOUNT LOCK; DROP USER IF EXISTS a@b",
      "GRANT REPLICATION SLAVE, SELECT ON db.* TO `u`@`%` WITH GRANT OPTION",
      "SELECT CASE WHEN a BETWEEN 1 AND 2 THEN CAST(b AS DECIMAL(5,2)) END /*!40101 , 3 */",
      "SELECT TRIM(LEADING 'x' FROM 'xa'), SUBSTRING('abc' FROM 2 FOR 1), POSITION('a' IN 'b')",
      "CREATE TABLE IF NOT EXISTS db.t (id INT UNSIGNED NOT NULL AUTO_INCREMENT, c CHAR(10) "
      "CHARACTER SET latin1 DEFAULT 'x' COMMENT 'y', d DECIMAL(5,2) DEFAULT -1.5, "
      "e ENUM('a','b'), PRIMARY KEY (id), UNIQUE KEY u (c(3) DESC) USING BTREE, "
      "CONSTRAINT f FOREIGN KEY (d) REFERENCES u (x) ON DELETE SET NULL, CHECK (d > 0)) "
      "ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4, COMMENT='z'",
      "INSERT IGNORE INTO t (a, b) VALUES (1, DEFAULT), () AS n ON DUPLICATE KEY UPDATE a = "
      "VALUES(a); REPLACE t SET a = 1; INSERT INTO t (SELECT * FROM u FOR UPDATE)",
      "UPDATE t AS x SET x.a = a + 1 WHERE b = ? ORDER BY c LIMIT 3; DELETE QUICK FROM t "
      "WHERE id = 1 LIMIT 1; TRUNCATE TABLE t; DROP TABLE IF EXISTS a, b",
      "SHOW FULL COLUMNS FROM t FROM db LIKE 'a'; DESC t c; SHOW CREATE DATABASE IF NOT EXISTS "
      "d; CREATE UNIQUE INDEX i ON t (a, b(2)); DROP INDEX i ON t; CREATE DATABASE d CHARSET x",
  };
  uint64_t state = 0x9E3779B97F4A7C15ULL;
  auto next = [&state]() {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const char kBytes[] = "'\"`()*,.;@-/!#\\ 0a_xX\n\x80\xff";
  for (int i = 0; i < 20000; ++i) {
    std::string q = corpus[next() % (sizeof(corpus) / sizeof(corpus[0]))];
    int edits = 1 + static_cast<int>(next() % 3);
    for (int e = 0; e < edits && !q.empty(); ++e) {
      size_t pos = next() % q.size();
      switch (next() % 3) {
        case 0: q.resize(pos); break;
        case 1: q[pos] = kBytes[next() % (sizeof(kBytes) - 1)]; break;
        default: q.insert(pos, 1, kBytes[next() % (sizeof(kBytes) - 1)]); break;
      }
    }
    Parser parser(q);
    while (!parser.AtEnd()) {
      auto r = parser.Next();
      if (!r.ok()) {
        EXPECT_TRUE(r.status().mysql_errno() == 1064 || r.status().mysql_errno() == 1065 ||
                    r.status().mysql_errno() == 1367 || r.status().mysql_errno() == 1470)
            << q << " -> " << r.status().ToString();
        break;
      }
    }
  }
}

TEST(ParserTest, MysqldumpHeaderParses) {
  const char* header =
      "/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n"
      "/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;\n"
      "/*!50503 SET NAMES utf8mb4 */;\n"
      "/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;\n"
      "/*!40103 SET TIME_ZONE='+00:00' */;\n"
      "/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;\n"
      "/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;\n"
      "/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;\n"
      "/*!80000 SET @@SESSION.SQL_LOG_BIN= 0 */;\n"
      "/*!90000 SET something_from_the_future = 1 */;\n";
  auto r = ParseAll(header);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 10u);
  for (size_t i = 0; i < 9; ++i) EXPECT_EQ((*r)[i].stmt->kind, StmtKind::kSet) << i;
  EXPECT_EQ((*r)[9].stmt->kind, StmtKind::kEmpty);
  const auto& unique = (*r)[5].stmt->As<SetStmt>();
  ASSERT_EQ(unique.items.size(), 2u);
  EXPECT_EQ(unique.items[1].name, "UNIQUE_CHECKS");
}

TEST(ParserTest, ConnectorHandshakeQueriesParse) {
  const char* queries[] = {
      "/* mysql-connector-j-8.0.33 (Revision: 7d6b0800528b6b25c68b52dc10d6c1c8429c100c) */"
      "SELECT @@session.auto_increment_increment AS auto_increment_increment, "
      "@@character_set_client AS character_set_client, @@license AS license, "
      "@@transaction_isolation AS transaction_isolation, @@wait_timeout AS wait_timeout",
      "SET character_set_results = NULL",
      "SET NAMES 'utf8mb4' COLLATE 'utf8mb4_general_ci'",
      "select @@version_comment limit 1",
      "SELECT DATABASE(), USER() LIMIT 1",
      "SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')",
      "SELECT IF(@@read_only, 1, 0), REPLACE(@@sql_mode, 'A', '')",
      "SET @master_binlog_checksum = @@global.binlog_checksum, @replica_uuid = 'x'",
      "SHOW VARIABLES WHERE Variable_name = 'x' OR Variable_name IN ('y', 'z')",
      "SET autocommit=1; SET sql_mode='STRICT_TRANS_TABLES'",
  };
  for (const char* q : queries) {
    auto r = ParseAll(q);
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  }
}

TEST(ParserTest, SqlPreparedStatements) {
  auto p = ParseOne<PrepareStmt>("PREPARE s1 FROM 'SELECT ? + 1'", StmtKind::kPrepare);
  EXPECT_EQ(p->name, "s1");
  EXPECT_EQ(p->text, "SELECT ? + 1");
  EXPECT_FALSE(p->from_variable);
  p = ParseOne<PrepareStmt>("prepare `my stmt` from @q", StmtKind::kPrepare);
  EXPECT_EQ(p->name, "my stmt");
  EXPECT_TRUE(p->from_variable);
  EXPECT_EQ(p->variable, "q");
  auto e = ParseOne<ExecuteStmt>("EXECUTE s1", StmtKind::kExecute);
  EXPECT_EQ(e->name, "s1");
  EXPECT_TRUE(e->using_variables.empty());
  e = ParseOne<ExecuteStmt>("EXECUTE s1 USING @a, @`b c`", StmtKind::kExecute);
  EXPECT_EQ(e->using_variables, (std::vector<std::string>{"a", "b c"}));
  auto d = ParseOne<DeallocatePrepareStmt>("DEALLOCATE PREPARE s1", StmtKind::kDeallocatePrepare);
  EXPECT_EQ(d->name, "s1");
  d = ParseOne<DeallocatePrepareStmt>("drop prepare s2", StmtKind::kDeallocatePrepare);
  EXPECT_EQ(d->name, "s2");
  EXPECT_EQ(ParseError("PREPARE s1 FROM SELECT 1").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("EXECUTE s1 USING 1").mysql_errno(), 1064);
  EXPECT_EQ(ParseError("DEALLOCATE s1").mysql_errno(), 1064);
}

}  // namespace
}  // namespace sluice::sql

// ---------------------------------------------------------------- nesting limits (issue 14)

namespace sluice::sql {
namespace {

// Runs fn on a thread with `stack` bytes of stack (a statement thread's by
// default, as the server runs statements).
void OnStack(const std::function<void()>& fn, size_t stack = kStatementThreadStack) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, stack);
  pthread_t t;
  auto run = [](void* arg) -> void* {
    (*static_cast<const std::function<void()>*>(arg))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&t, &attr, run, const_cast<std::function<void()>*>(&fn)), 0);
  pthread_join(t, nullptr);
  pthread_attr_destroy(&attr);
}

std::string Repeat(std::string_view s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

void ExpectStackOverrun(const std::string& q) {
  auto r = ParseAll(q);
  ASSERT_FALSE(r.ok()) << q.substr(0, 60);
  EXPECT_EQ(r.status().mysql_errno(), 1436) << r.status().ToString();
  EXPECT_EQ(r.status().sqlstate(), "HY000");
  EXPECT_NE(r.status().message().find("Thread stack overrun:  "), std::string::npos);
}

const Expr& OnlyItem(const std::vector<ParsedStatement>& stmts) {
  return *stmts[0].stmt->As<SelectStmt>().items[0].expr;
}

TEST(ParserLimitsTest, TheFindingsStatementsGet1436) {
  OnStack([&] {
    ExpectStackOverrun("SELECT " + Repeat("(", 3000) + "1" + Repeat(")", 3000));
    ExpectStackOverrun("SELECT 1" + Repeat("+1", 20000));
    ExpectStackOverrun("SELECT " + Repeat("NOT ", 10000) + "1");
    ExpectStackOverrun("SELECT " + Repeat("ABS(", 10000) + "1" + Repeat(")", 10000));
    ExpectStackOverrun("SELECT " + Repeat("CASE WHEN 1 THEN ", 5000) + "1" + Repeat(" END", 5000));
    ExpectStackOverrun("SELECT " + Repeat("-", 20000) + "1");
    ExpectStackOverrun("SELECT " + Repeat("BINARY ", 20000) + "1");
    ExpectStackOverrun("SELECT " + Repeat("1 BETWEEN 0 AND ", 5000) + "1");
    ExpectStackOverrun("SELECT 'a'" + Repeat(" COLLATE utf8mb4_bin", 20000));
    ExpectStackOverrun("SELECT " + Repeat("(SELECT ", 3000) + "1" + Repeat(")", 3000));
    ExpectStackOverrun("DO " + Repeat("(", 3000) + "1" + Repeat(")", 3000));
  });
}

TEST(ParserLimitsTest, LimitsAreExact) {
  OnStack([&] {
    // n '+' make a tree n + 1 levels high.
    auto ok = ParseAll("SELECT 1" + Repeat("+1", kMaxExprHeight - 1));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_EQ(OnlyItem(*ok).height, kMaxExprHeight);
    ExpectStackOverrun("SELECT 1" + Repeat("+1", kMaxExprHeight));
    // Parentheses cost the parser a level each but add no node.
    const int parens = kMaxParseDepth - 1;  // plus the select item's own level
    ok = ParseAll("SELECT " + Repeat("(", parens) + "1" + Repeat(")", parens));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    ExpectStackOverrun("SELECT " + Repeat("(", parens + 1) + "1" + Repeat(")", parens + 1));
  });
}

TEST(ParserLimitsTest, SubqueriesCountInTheOuterHeight) {
  OnStack([&] {
    const std::string inner = "1" + Repeat("+1", kMaxExprHeight / 2);
    auto ok = ParseAll("SELECT (SELECT " + inner + ")");
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    EXPECT_GT(OnlyItem(*ok).height, kMaxExprHeight / 2);
    // At the top of a left-deep chain a subquery adds to one branch only;
    // at the bottom it adds to the whole height.
    EXPECT_TRUE(ParseAll("SELECT 1" + Repeat("+1", kMaxExprHeight / 2) + " + (SELECT " + inner + ")").ok());
    ExpectStackOverrun("SELECT (SELECT " + inner + ")" + Repeat("+1", kMaxExprHeight / 2));
    ExpectStackOverrun("SELECT (1 IN (SELECT " + inner + "))" + Repeat("+1", kMaxExprHeight / 2));
    ExpectStackOverrun("SELECT EXISTS (SELECT " + inner + ")" + Repeat("+1", kMaxExprHeight / 2));
  });
}

// Collects the leaves of a chain of `op` in order.
void Leaves(const Expr& e, Op op, std::vector<const Expr*>* out) {
  if (e.kind == ExprKind::kBinary && e.op == op) {
    Leaves(*e.args[0], op, out);
    Leaves(*e.args[1], op, out);
    return;
  }
  out->push_back(&e);
}

TEST(ParserLimitsTest, LongAndOrXorChainsAreBalancedInOrder) {
  OnStack([&] {
    for (const char* word : {" OR ", " AND ", " XOR ", " || ", " && "}) {
      std::string q = "SELECT a0";
      for (int i = 1; i < 5000; ++i) q += word + ("a" + std::to_string(i));
      auto r = ParseAll(q);
      ASSERT_TRUE(r.ok()) << word << r.status().ToString();
      const Expr& e = OnlyItem(*r);
      EXPECT_LE(e.height, 15u) << word;
      const Op op = e.op;
      std::vector<const Expr*> leaves;
      Leaves(e, op, &leaves);
      ASSERT_EQ(leaves.size(), 5000u) << word;
      for (int i = 0; i < 5000; ++i) EXPECT_EQ(leaves[i]->name, "a" + std::to_string(i));
    }
    // Short chains keep their left-deep shape and printed form.
    auto r = ParseExpression("a OR b OR c AND d AND e");
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(ExprToString(**r), "((`a` or `b`) or ((`c` and `d`) and `e`))");
  });
}

TEST(ParserLimitsTest, RealQueriesStillParse) {
  OnStack([&] {
    std::string in = "SELECT 1 IN (0";
    for (int i = 1; i < 10000; ++i) in += "," + std::to_string(i);
    EXPECT_TRUE(ParseAll(in + ")").ok());
    EXPECT_TRUE(ParseAll("SELECT " + Repeat("(SELECT ", 64) + "1" + Repeat(")", 64)).ok());
    EXPECT_TRUE(ParseAll("SELECT " + Repeat("(", 500) + "1" + Repeat(")", 500)).ok());
    EXPECT_TRUE(ParseAll("SELECT " + Repeat("NOT ", 500) + "1").ok());
    // A multi-statement query: the limits are per statement.
    EXPECT_TRUE(ParseAll(Repeat("SELECT 1" + Repeat("+1", 2000) + ";", 5)).ok());
  });
}

// The walks over the tallest tree the parser allows fit in the margin a
// guarded walk leaves (kStackMargin): searching outright, printing by
// eliding what does not fit.
TEST(ParserLimitsTest, WalksOfTheTallestTreeFitTheMargin) {
  // Nested calls stop at kMaxParseDepth, long before kMaxExprHeight.
  const int calls = kMaxParseDepth - 1;
  std::vector<std::pair<std::string, uint32_t>> exprs = {
      {"1" + Repeat("+1", kMaxExprHeight - 1), kMaxExprHeight},
      {"'a'" + Repeat(" COLLATE utf8mb4_bin", kMaxExprHeight - 1), kMaxExprHeight},
      {"1" + Repeat(" = 1", kMaxExprHeight - 1), kMaxExprHeight},
      {Repeat("ABS(", calls) + "1" + Repeat(")", calls), calls + 1},
  };
  for (const auto& [text, height] : exprs) {
    Result<ExprPtr> e = ExprPtr();
    OnStack([&, &text = text] { e = ParseExpression(text); });  // clang 14: no capture of a binding
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ASSERT_EQ((*e)->height, height);
    std::string printed;
    bool sub = true;
    OnStack([&] {
      printed = ExprToString(**e);
      sub = HasSubquery(**e);
    }, kStackMargin);
    EXPECT_GT(printed.size(), 100u);
    EXPECT_FALSE(sub);
    // With room, all of it prints.
    OnStack([&] { printed = ExprToString(**e); });
    EXPECT_EQ(printed.find("..."), std::string::npos);
  }
}

TEST(ParserLimitsTest, DeepTreesAreFreedWithoutRecursion) {
  // Far deeper than any stack holds with one frame per level.
  ExprPtr root = std::make_unique<Expr>(ExprKind::kLiteral);
  for (int i = 0; i < 1000000; ++i) {
    auto e = std::make_unique<Expr>(ExprKind::kUnary);
    e->op = Op::kNeg;
    e->args.push_back(std::move(root));
    root = std::move(e);
  }
  root.reset();
  SUCCEED();
}

}  // namespace
TEST(ParserTest, GeneratedColumns) {
  auto s = ParseOne<CreateTableStmt>(
      "CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a + 1) STORED NOT NULL, c INT AS (b * 2) VIRTUAL, "
      "d INT AS (1))",
      StmtKind::kCreateTable);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->columns.size(), 4u);
  EXPECT_EQ(s->columns[0].generated_expr, "");
  EXPECT_EQ(s->columns[1].generated_expr, "a + 1");
  EXPECT_TRUE(s->columns[1].generated_stored);
  EXPECT_EQ(s->columns[1].nullable, std::optional<bool>(false));
  EXPECT_EQ(s->columns[2].generated_expr, "b * 2");
  EXPECT_FALSE(s->columns[2].generated_stored);
  EXPECT_EQ(s->columns[3].generated_expr, "1");
}

TEST(ParserTest, AlterTableCheckSpecs) {
  auto s = ParseOne<AlterTableStmt>(
      "ALTER TABLE t ADD CONSTRAINT c CHECK (a > 0) NOT ENFORCED, DROP CHECK d, DROP CONSTRAINT e, "
      "ALTER CHECK f ENFORCED, ALTER CONSTRAINT g NOT ENFORCED",
      StmtKind::kAlterTable);
  ASSERT_TRUE(s);
  ASSERT_EQ(s->checks.size(), 1u);
  EXPECT_EQ(s->checks[0].name, "c");
  EXPECT_EQ(s->checks[0].expr, "a > 0");
  EXPECT_FALSE(s->checks[0].enforced);
  ASSERT_EQ(s->specs.size(), 4u);
  EXPECT_EQ(s->specs[0].kind, AlterSpec::Kind::kDropCheck);
  EXPECT_EQ(s->specs[0].name, "d");
  EXPECT_FALSE(s->specs[0].constraint);
  EXPECT_EQ(s->specs[1].kind, AlterSpec::Kind::kDropCheck);
  EXPECT_TRUE(s->specs[1].constraint);
  EXPECT_EQ(s->specs[2].kind, AlterSpec::Kind::kAlterCheck);
  EXPECT_TRUE(s->specs[2].enforced);
  EXPECT_EQ(s->specs[3].kind, AlterSpec::Kind::kAlterCheck);
  EXPECT_FALSE(s->specs[3].enforced);
  EXPECT_TRUE(s->specs[3].constraint);
}

}  // namespace sluice::sql
