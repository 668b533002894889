#include "server/sql/parser.h"

#include <gtest/gtest.h>

#include <string>

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

// ------------------------------------------------------------------ errors

TEST(ParserTest, ErrorNearTextStartsAtTheOffendingToken) {
  Status st = ParseError("SELEC 1");
  EXPECT_EQ(st.mysql_errno(), 1064);
  EXPECT_EQ(st.sqlstate(), "42000");
  EXPECT_EQ(st.message(), Near("SELEC 1", 1));
  EXPECT_EQ(ParseError("SELECT 1 +").message(), Near("", 1));
  EXPECT_EQ(ParseError("SELECT * FROM").message(), Near("", 1));
  EXPECT_EQ(ParseError("SELECT 1 FROM t JOIN u").message(), Near("JOIN u", 1));
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

}  // namespace
}  // namespace sluice::sql
