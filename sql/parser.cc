#include "sql/parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include <boost/container/small_vector.hpp>

#include "base/mysql_error.h"
#include "base/stack_guard.h"
#include "sql/number.h"

namespace sluice::sql {

namespace {

// MySQL 8.0 reserved words: never an unquoted identifier or alias.
const std::unordered_set<std::string_view>& ReservedWords() {
  static const std::unordered_set<std::string_view> kWords = {
      "ACCESSIBLE", "ADD", "ALL", "ALTER", "ANALYZE", "AND", "AS", "ASC", "ASENSITIVE",
      "BEFORE", "BETWEEN", "BIGINT", "BINARY", "BLOB", "BOTH", "BY", "CALL", "CASCADE",
      "CASE", "CHANGE", "CHAR", "CHARACTER", "CHECK", "COLLATE", "COLUMN", "CONDITION",
      "CONSTRAINT", "CONTINUE", "CONVERT", "CREATE", "CROSS", "CUBE", "CUME_DIST",
      "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_USER", "CURSOR",
      "DATABASE", "DATABASES", "DAY_HOUR", "DAY_MICROSECOND", "DAY_MINUTE", "DAY_SECOND",
      "DEC", "DECIMAL", "DECLARE", "DEFAULT", "DELAYED", "DELETE", "DENSE_RANK", "DESC",
      "DESCRIBE", "DETERMINISTIC", "DISTINCT", "DISTINCTROW", "DIV", "DOUBLE", "DROP",
      "DUAL", "EACH", "ELSE", "ELSEIF", "EMPTY", "ENCLOSED", "ESCAPED", "EXCEPT", "EXISTS",
      "EXIT", "EXPLAIN", "FALSE", "FETCH", "FIRST_VALUE", "FLOAT", "FLOAT4", "FLOAT8", "FOR",
      "FORCE", "FOREIGN", "FROM", "FULLTEXT", "FUNCTION", "GENERATED", "GET", "GRANT",
      "GROUP", "GROUPING", "GROUPS", "HAVING", "HIGH_PRIORITY", "HOUR_MICROSECOND",
      "HOUR_MINUTE", "HOUR_SECOND", "IF", "IGNORE", "IN", "INDEX", "INFILE", "INNER",
      "INOUT", "INSENSITIVE", "INSERT", "INT", "INT1", "INT2", "INT3", "INT4", "INT8",
      "INTEGER", "INTERSECT", "INTERVAL", "INTO", "IO_AFTER_GTIDS", "IO_BEFORE_GTIDS", "IS",
      "ITERATE", "JOIN", "JSON_TABLE", "KEY", "KEYS", "KILL", "LAG", "LAST_VALUE",
      "LATERAL", "LEAD", "LEADING", "LEAVE", "LEFT", "LIKE", "LIMIT", "LINEAR", "LINES",
      "LOAD", "LOCALTIME", "LOCALTIMESTAMP", "LOCK", "LONG", "LONGBLOB", "LONGTEXT", "LOOP",
      "LOW_PRIORITY", "MASTER_BIND", "MASTER_SSL_VERIFY_SERVER_CERT", "MATCH", "MAXVALUE",
      "MEDIUMBLOB", "MEDIUMINT", "MEDIUMTEXT", "MIDDLEINT", "MINUTE_MICROSECOND",
      "MINUTE_SECOND", "MOD", "MODIFIES", "NATURAL", "NOT", "NO_WRITE_TO_BINLOG",
      "NTH_VALUE", "NTILE", "NULL", "NUMERIC", "OF", "ON", "OPTIMIZE", "OPTIMIZER_COSTS",
      "OPTION", "OPTIONALLY", "OR", "ORDER", "OUT", "OUTER", "OUTFILE", "OVER", "PARTITION",
      "PERCENT_RANK", "PRECISION", "PRIMARY", "PROCEDURE", "PURGE", "RANGE", "RANK", "READ",
      "READS", "READ_WRITE", "REAL", "RECURSIVE", "REFERENCES", "REGEXP", "RELEASE",
      "RENAME", "REPEAT", "REPLACE", "REQUIRE", "RESIGNAL", "RESTRICT", "RETURN", "REVOKE",
      "RIGHT", "RLIKE", "ROW", "ROWS", "ROW_NUMBER", "SCHEMA", "SCHEMAS",
      "SECOND_MICROSECOND", "SELECT", "SENSITIVE", "SEPARATOR", "SET", "SHOW", "SIGNAL",
      "SMALLINT", "SPATIAL", "SPECIFIC", "SQL", "SQLEXCEPTION", "SQLSTATE", "SQLWARNING",
      "SQL_BIG_RESULT", "SQL_CALC_FOUND_ROWS", "SQL_SMALL_RESULT", "SSL", "STARTING",
      "STORED", "STRAIGHT_JOIN", "SYSTEM", "TABLE", "TERMINATED", "THEN", "TINYBLOB",
      "TINYINT", "TINYTEXT", "TO", "TRAILING", "TRIGGER", "TRUE", "UNDO", "UNION", "UNIQUE",
      "UNLOCK", "UNSIGNED", "UPDATE", "USAGE", "USE", "USING", "UTC_DATE", "UTC_TIME",
      "UTC_TIMESTAMP", "VALUES", "VARBINARY", "VARCHAR", "VARCHARACTER", "VARYING",
      "VIRTUAL", "WHEN", "WHERE", "WHILE", "WINDOW", "WITH", "WRITE", "XOR", "YEAR_MONTH",
      "ZEROFILL",
  };
  return kWords;
}

// Identifiers are checked all through a statement: most are told apart by
// their length and first letter alone (no reserved word has one letter, or
// two starting with 'v'), the rest are upper-cased on the stack and looked
// up. No reserved word is longer than 32 bytes.
bool IsReserved(const Token& t) {
  constexpr size_t kLongest = 32;
  if (t.kind != TokenKind::kIdent || t.text.size() > kLongest || t.text.empty()) return false;
  // [length][first letter A-Z, or 26 for anything else]: some word has it.
  static const auto kMayBe = [] {
    std::array<std::array<bool, 27>, kLongest + 1> m{};
    for (std::string_view w : ReservedWords()) {
      const char c = w[0];
      m[w.size()][c >= 'A' && c <= 'Z' ? c - 'A' : 26] = true;
    }
    return m;
  }();
  const char first = base::AsciiUpper(t.text[0]);
  if (!kMayBe[t.text.size()][first >= 'A' && first <= 'Z' ? first - 'A' : 26]) return false;
  char upper[kLongest];
  for (size_t i = 0; i < t.text.size(); ++i) upper[i] = base::AsciiUpper(t.text[i]);
  return ReservedWords().count(std::string_view(upper, t.text.size())) > 0;
}

// Reserved words that still name a function when '(' follows.
bool IsFunctionKeyword(std::string_view upper) {
  static const std::unordered_set<std::string_view> kNames = {
      "CHAR",      "CURRENT_DATE", "CURRENT_TIME", "CURRENT_TIMESTAMP", "CURRENT_USER",
      "DATABASE",  "IF",           "INSERT",       "LEFT",              "LOCALTIME",
      "LOCALTIMESTAMP", "MOD",     "REPEAT",       "REPLACE",           "RIGHT",
      "SCHEMA",    "UTC_DATE",     "UTC_TIME",     "UTC_TIMESTAMP",     "VALUES",
  };
  return kNames.count(upper) > 0;
}

// Keyword functions that may be written without parentheses.
bool IsNiladicKeywordFunction(std::string_view upper) {
  return upper == "CURRENT_USER" || upper == "CURRENT_TIMESTAMP" || upper == "CURRENT_DATE" ||
         upper == "CURRENT_TIME" || upper == "LOCALTIME" || upper == "LOCALTIMESTAMP" ||
         upper == "UTC_TIMESTAMP" || upper == "UTC_DATE" || upper == "UTC_TIME";
}

bool IsAggregate(std::string_view upper) {
  return upper == "COUNT" || upper == "SUM" || upper == "AVG" || upper == "MIN" ||
         upper == "MAX" || upper == "GROUP_CONCAT";
}

bool IsSpaceChar(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The first `max_chars` UTF-8 characters of `s`.
std::string_view CutUtf8(std::string_view s, size_t max_chars) {
  size_t chars = 0;
  size_t i = 0;
  while (i < s.size() && chars < max_chars) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
    i = std::min(s.size(), i + len);
    ++chars;
  }
  return s.substr(0, i);
}

const std::unordered_set<std::string_view>& MultiWordPrivileges() {
  static const std::unordered_set<std::string_view> kPrivs = {
      "SHOW DATABASES",     "CREATE TEMPORARY TABLES", "LOCK TABLES",   "REPLICATION SLAVE",
      "REPLICATION CLIENT", "CREATE VIEW",             "SHOW VIEW",     "CREATE ROUTINE",
      "ALTER ROUTINE",      "CREATE USER",             "GRANT OPTION",  "CREATE TABLESPACE",
      "CREATE ROLE",        "DROP ROLE",
  };
  return kPrivs;
}

// The stack a level of nesting is budgeted, as the limits are set: what
// 1436 reports as needed when a statement goes past one.
constexpr size_t kStackPerParseLevel = kStatementThreadStack / kMaxParseDepth;
constexpr size_t kStackPerExprLevel = kStatementThreadStack / kMaxExprHeight;

constexpr size_t kMaxUserNameChars = 32;
constexpr size_t kMaxHostNameChars = 255;

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace

class Parser::Impl {
 public:
  Impl(std::string_view query, ParseOptions options);

  bool AtEnd() const { return done_; }
  Result<ParsedStatement> Next();
  Result<ExprPtr> ParseStandaloneExpression();

 private:
  // ---- tokens
  // The token k places ahead. Every rule at every precedence level looks
  // at the next token, so the lexed case stays inline.
  const Token& Peek(size_t k = 0) {
    if (k < ahead_count_) return ahead_[(ahead_first_ + k) % kLookahead];
    return PeekLexing(k);
  }
  const Token& PeekLexing(size_t k);
  // Consumes the next token. The result is the ring's slot, moved from by a
  // caller that keeps it (`Token t = Take()`) and ignored by one that does
  // not; it stays valid until the next Peek.
  Token&& Take();
  bool PeekKeyword(std::string_view kw, size_t k = 0) { return Peek(k).IsKeyword(kw); }
  bool PeekPunct(Punct p, size_t k = 0) { return Peek(k).Is(p); }
  bool AcceptKeyword(std::string_view kw);
  bool AcceptPunct(Punct p);
  Status ExpectKeyword(std::string_view kw);
  Status ExpectPunct(Punct p);
  Status ErrorAt(const Token& t);
  Status Error() { return ErrorAt(Peek()); }
  bool AtStatementEnd() { return Peek().kind == TokenKind::kEnd || PeekPunct(Punct::kSemicolon); }

  // ---- names
  Status ParseIdent(std::string* out);          // unreserved word or `quoted`
  Status ParseName(std::string* out);           // any word, `quoted` or 'string'
  Status ParseString(std::string* out);         // 'string' only
  Status ParseUser(UserSpec* user, bool allow_user_function);
  Status ParseUserList(std::vector<UserSpec>* users);

  // ---- statements
  Status ParseStatement(std::unique_ptr<Stmt>* out);
  Status ParseSelect(std::unique_ptr<Stmt>* out);
  // SELECT ... inside parentheses (the caller takes the parentheses).
  Status ParseSubquery(std::shared_ptr<const SelectStmt>* out);
  // FROM's table references: t [[AS] a] joined by commas and JOINs.
  Status ParseFromList(std::vector<TableRef>* from);
  Status ParseSelectItem(SelectItem* item);
  Status ParseTableRef(TableRef* ref);
  Status ParseLimit(ExprPtr* limit, ExprPtr* offset);
  Status ParseLimitValue(ExprPtr* out);
  Status ParseSet(std::unique_ptr<Stmt>* out);
  Status ParseSetValue(bool system_variable, ExprPtr* out);
  Status ParseCharsetName(std::string* out);
  Status ParseSetTransaction(VarScope scope, std::unique_ptr<Stmt>* out);
  Status ParseTransactionCharacteristic(std::optional<IsolationLevel>* isolation,
                                        std::optional<bool>* read_only);
  Status ParseSetPassword(std::unique_ptr<Stmt>* out);
  Status ParseShow(std::unique_ptr<Stmt>* out);
  Status ParseShowFilter(ShowStmt* show);
  Status ParseFlush(std::unique_ptr<Stmt>* out);
  Status ParsePurge(std::unique_ptr<Stmt>* out);
  Status ParseReset(std::unique_ptr<Stmt>* out);
  Status ParseStartTransaction(std::unique_ptr<Stmt>* out);
  Status ParseCreateOrAlterUser(bool alter, std::unique_ptr<Stmt>* out);
  Status ParseUserAuth(bool alter, UserAuth* auth);
  Status ParseAccountOptions(std::optional<bool>* account_locked);
  Status ParsePrivileges(std::vector<std::string>* privs);
  Status ParsePrivLevel(PrivLevel* level);
  Status ParseGrant(std::unique_ptr<Stmt>* out);
  Status ParseRevoke(std::unique_ptr<Stmt>* out);
  Status ParsePrepare(std::unique_ptr<Stmt>* out);
  Status ParseExecute(std::unique_ptr<Stmt>* out);
  Status ParseDeallocatePrepareName(std::unique_ptr<Stmt>* out);  // after DEALLOCATE|DROP PREPARE

  // ---- shared clauses
  bool AcceptIfExists();
  bool AcceptIfNotExists();
  bool AcceptCharsetKeyword();  // CHARACTER SET | CHARSET
  Status ParseTableName(TableRef* ref);  // [schema.]name, no alias
  Status ParseOptionalOrderBy(std::vector<OrderItem>* out);  // [ORDER BY list]
  // UPDATE / DELETE: [WHERE expr] [ORDER BY list] [LIMIT n]
  Status ParseWhereOrderLimit(ExprPtr* where, std::vector<OrderItem>* order_by, ExprPtr* limit);
  Status ParseLockingClauses(SelectStmt* s);
  Status ParseExprOrDefault(ExprPtr* out);
  Status ParseAssignments(std::vector<Assignment>* out);
  Status ParseSmallInt(int* out);
  Status ParseUnsigned(uint64_t* out);
  Status ParseCharsetOrDefault(std::string* out);

  // ---- SHOW / DESCRIBE of tables
  Status ParseShowFromDb(std::string* db);
  Status ParseShowColumnsOrIndex(ShowStmt* show);
  Status ParseDescribe(std::unique_ptr<Stmt>* out);

  // ---- DDL
  Status ParseCreate(std::unique_ptr<Stmt>* out);
  Status ParseDrop(std::unique_ptr<Stmt>* out);
  Status ParseCreateDatabase(std::unique_ptr<Stmt>* out);
  Status ParseCreateTable(bool temporary, std::unique_ptr<Stmt>* out);
  Status ParseCreateIndex(IndexSpec::Kind kind, std::unique_ptr<Stmt>* out);
  Status ParseTableElement(CreateTableStmt* s);
  Status ParseColumnDefinition(CreateTableStmt* s, ColumnDefinition* col);
  Status ParseDataType(DataType* type, bool* serial);
  Status ParseTypePrecision(DataType* type, bool scale_required);
  Status ParseStringTypeOptions(DataType* type);
  Status ParseColumnDefault(ExprPtr* out);
  Status ParseNowFunction(ExprPtr* out, bool* matched);
  Status ParseCheckConstraint(CheckSpec* check);
  // (expr): the expression's text as typed, without the parentheses.
  Status ParseParenthesizedExprText(std::string* text);
  Status ParseReferences(ForeignKeySpec* fk);
  Status ParseForeignKey(ForeignKeySpec* fk);
  Status ParseIndexType();
  Status ParseIndexAfterKind(IndexSpec* index);
  Status ParseKeyParts(std::vector<IndexPartSpec>* parts);
  Status ParseIndexOptions(IndexSpec* index);
  Status ParseAlterAlgorithmAndLock();
  Status ParseTableOptions(TableOptions* options);
  Status ParseTableOption(TableOptions* options, bool* matched);
  Status ParseAlterTable(std::unique_ptr<Stmt>* out);
  Status ParseAlterSpec(AlterTableStmt* s);
  Status ParseAlterAdd(AlterTableStmt* s);
  Status ParseColumnPosition(AlterSpec* spec);
  Status ParseRenameTable(std::unique_ptr<Stmt>* out);

  // ---- DML
  Status ParseInsert(bool replace, std::unique_ptr<Stmt>* out);
  Status ParseValuesRow(std::vector<ExprPtr>* row);
  Status ParseUpdate(std::unique_ptr<Stmt>* out);
  Status ParseDelete(std::unique_ptr<Stmt>* out);

  // ---- expressions, lowest precedence first
  Status ParseExpr(ExprPtr* out);
  Status ParseXor(ExprPtr* out);
  Status ParseAnd(ExprPtr* out);
  Status ParseNot(ExprPtr* out);
  Status ParseComparison(ExprPtr* out);
  Status ParsePredicate(ExprPtr* out);
  // | & << >> + - * / DIV % MOD ^ || (PIPES_AS_CONCAT), lowest first.
  enum : int {
    kLevelBitOr = 1,
    kLevelBitAnd,
    kLevelShift,
    kLevelAdditive,
    kLevelMultiplicative,
    kLevelBitXor,
    kLevelConcat,
  };
  struct BinaryOperator {
    int level = 0;  // 0: the next token is none of them
    Op op = Op::kNone;
  };
  BinaryOperator PeekBinaryOperator();
  // Operators at `min_level` and above, over unary operands.
  Status ParseBinaryOperators(int min_level, ExprPtr* out);
  Status ParseBitOr(ExprPtr* out) { return ParseBinaryOperators(kLevelBitOr, out); }
  Status ParseUnary(ExprPtr* out);
  Status ParseCollate(ExprPtr* out);
  Status ParsePrimary(ExprPtr* out);
  Status ParseNumber(const Token& t, ExprPtr* out);
  template <typename List>  // std::vector<ExprPtr> or ExprArgs
  Status ParseExprList(List* out);
  Status ParseWordExpr(ExprPtr* out);
  Status ParseFunctionCall(Token name_token, std::string upper, ExprPtr* out);
  Status ParseIntervalUnit(ExprPtr* out);
  Status ParseInterval(ExprPtr* amount, ExprPtr* unit, uint32_t* begin);
  ExprPtr MakeDateArith(bool subtract, ExprPtr date, ExprPtr amount, ExprPtr unit, uint32_t begin);
  Status ParseCase(Token case_token, ExprPtr* out);
  Status ParseCastType(CastSpec* spec);
  Status ParseOptionalLength(int* length);
  Status ParseColumnRef(Token first, ExprPtr* out);

  // ---- nesting limits (kMaxParseDepth, kMaxExprHeight)

  // One level of the parser's own recursion for the life of the scope.
  class Nesting {
   public:
    explicit Nesting(Impl* p) : p_(p), status_(p->EnterLevel()) {}
    ~Nesting() { --p_->depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;
    const Status& status() const { return status_; }

   private:
    Impl* p_;
    Status status_;
  };
  Status EnterLevel();
  // Sets `height` on the nodes of `root` that lack it (without recursing)
  // and fails past kMaxExprHeight.
  Status CheckHeight(Expr* root);
  // AND / OR / XOR over `terms`, left-deep as written when short, balanced
  // when long (see kMaxExprHeight).
  ExprPtr MakeLogicalChain(Op op, std::vector<ExprPtr> terms);
  // term (separator term)*, joined by `op`: `term` parses one, `separator`
  // takes the separator when one follows. A single term (nearly every
  // expression) is returned as it is, with no list allocated.
  template <typename Term, typename Separator>
  Status ParseLogicalChain(Op op, ExprPtr* out, Term term, Separator separator) {
    SLUICE_RETURN_IF_ERROR(term(out));
    if (!separator()) return Status::OK();
    std::vector<ExprPtr> terms;
    terms.push_back(std::move(*out));
    do {
      ExprPtr next;
      SLUICE_RETURN_IF_ERROR(term(&next));
      terms.push_back(std::move(next));
    } while (separator());
    *out = MakeLogicalChain(op, std::move(terms));
    return Status::OK();
  }
  ExprPtr MakeBalanced(Op op, std::vector<ExprPtr>& terms, size_t from, size_t to);

  ExprPtr MakeExpr(ExprKind kind, uint32_t begin, uint32_t end) {
    auto e = std::make_unique<Expr>(kind);
    e->begin = begin;
    e->end = end;
    return e;
  }
  ExprPtr MakeBinary(Op op, ExprPtr l, ExprPtr r) {
    auto e = MakeExpr(ExprKind::kBinary, l->begin, r->end);
    e->op = op;
    e->args.reserve(2);
    e->args.push_back(std::move(l));
    e->args.push_back(std::move(r));
    return e;
  }
  ExprPtr MakeUnary(Op op, uint32_t begin, ExprPtr arg) {
    auto e = MakeExpr(ExprKind::kUnary, begin, arg->end);
    e->op = op;
    e->args.push_back(std::move(arg));
    return e;
  }
  ExprPtr MakeStringLiteral(std::string s, uint32_t begin, uint32_t end) {
    auto e = MakeExpr(ExprKind::kLiteral, begin, end);
    e->value = Value::String(std::move(s));
    return e;
  }

  std::string_view query_;
  ParseOptions options_;
  size_t end_;  // the query without trailing spaces and ';'
  Lexer lexer_;
  // Tokens lexed but not taken: a ring, as no rule looks more than six
  // tokens ahead (REVOKE ALL PRIVILEGES, GRANT OPTION FROM), so parsing
  // allocates nothing for its lookahead.
  static constexpr size_t kLookahead = 8;
  std::array<Token, kLookahead> ahead_;
  size_t ahead_first_ = 0;  // the next token's slot
  size_t ahead_count_ = 0;
  // CheckHeight's walk: in place for the usual expression (the parser is
  // made per query), on the heap only for a deep one.
  boost::container::small_vector<Expr*, 32> height_stack_;
  uint32_t last_end_ = 0;      // end of the last consumed token
  size_t stmt_base_ = 0;       // first non-space byte of the current statement
  size_t next_stmt_start_ = 0;
  int param_count_ = 0;
  bool done_ = false;
  int depth_ = 0;            // Nesting levels open
  uint32_t max_height_ = 0;  // tallest expression so far in the current SELECT
  // A subquery's tallest expression + 1, for the height of the node using it.
  std::unordered_map<const SelectStmt*, uint32_t> subquery_heights_;
};

namespace {

// Trailing spaces, ';' and NUL bytes go (clients such as mariadb-slap send
// the C string's terminator too; mysqld accepts it).
size_t TrimmedEnd(std::string_view q) {
  size_t end = q.size();
  while (end > 0 && (IsSpaceChar(q[end - 1]) || q[end - 1] == ';' || q[end - 1] == '\0')) --end;
  return end;
}

}  // namespace

Parser::Impl::Impl(std::string_view query, ParseOptions options)
    : query_(query),
      options_(options),
      end_(TrimmedEnd(query)),
      lexer_(query, options.lex, 0, end_) {}

// ------------------------------------------------------------------ tokens

const Token& Parser::Impl::PeekLexing(size_t k) {
  if (k >= kLookahead) std::abort();  // a rule looking further ahead needs a larger ring
  while (ahead_count_ <= k) {
    lexer_.Next(&ahead_[(ahead_first_ + ahead_count_) % kLookahead]);
    ++ahead_count_;
  }
  return ahead_[(ahead_first_ + k) % kLookahead];
}

Token&& Parser::Impl::Take() {
  Peek();
  Token& t = ahead_[ahead_first_];
  ahead_first_ = (ahead_first_ + 1) % kLookahead;
  --ahead_count_;
  if (t.kind != TokenKind::kEnd && t.kind != TokenKind::kError) last_end_ = t.end;
  return std::move(t);
}

bool Parser::Impl::AcceptKeyword(std::string_view kw) {
  if (!PeekKeyword(kw)) return false;
  Take();
  return true;
}

bool Parser::Impl::AcceptPunct(Punct p) {
  if (!PeekPunct(p)) return false;
  Take();
  return true;
}

Status Parser::Impl::ExpectKeyword(std::string_view kw) {
  if (!AcceptKeyword(kw)) return Error();
  return Status::OK();
}

Status Parser::Impl::ExpectPunct(Punct p) {
  if (!AcceptPunct(p)) return Error();
  return Status::OK();
}

Status Parser::Impl::ErrorAt(const Token& t) {
  size_t off = std::min<size_t>(t.offset, end_);
  std::string_view near = CutUtf8(query_.substr(off, end_ - off), 80);
  size_t base = std::min(stmt_base_, off);
  int line = 1 + static_cast<int>(std::count(query_.begin() + base, query_.begin() + off, '\n'));
  return MakeError(er::kParse, near, line);
}

// ------------------------------------------------------------------ driver

Result<ParsedStatement> Parser::Impl::Next() {
  param_count_ = 0;
  max_height_ = 0;
  subquery_heights_.clear();
  stmt_base_ = next_stmt_start_;
  while (stmt_base_ < end_ && IsSpaceChar(query_[stmt_base_])) ++stmt_base_;
  const Token& first = Peek();
  if (first.kind == TokenKind::kEnd || first.Is(Punct::kSemicolon)) {
    if (!first.follows_comment) {
      done_ = true;
      return MakeError(er::kEmptyQuery);
    }
    ParsedStatement ps;
    ps.stmt = std::make_unique<EmptyStmt>();
    ps.begin = ps.end = first.offset;
    Token sep = Take();
    if (sep.kind == TokenKind::kEnd) {
      done_ = true;
    } else {
      next_stmt_start_ = sep.end;
    }
    return ps;
  }
  const uint32_t begin = first.offset;
  std::unique_ptr<Stmt> stmt;
  Status st = ParseStatement(&stmt);
  if (st.ok() && !AtStatementEnd()) st = Error();
  if (!st.ok()) {
    done_ = true;
    return st;
  }
  ParsedStatement ps;
  ps.stmt = std::move(stmt);
  ps.begin = begin;
  ps.end = last_end_;
  ps.text = query_.substr(begin, last_end_ - begin);
  ps.param_count = param_count_;
  Token sep = Take();
  if (sep.kind == TokenKind::kEnd) {
    done_ = true;
  } else {
    next_stmt_start_ = sep.end;
  }
  return ps;
}

Result<ExprPtr> Parser::Impl::ParseStandaloneExpression() {
  ExprPtr e;
  Status st = ParseExpr(&e);
  if (st.ok() && Peek().kind != TokenKind::kEnd) st = Error();
  if (!st.ok()) return st;
  return e;
}

Status Parser::Impl::ParseStatement(std::unique_ptr<Stmt>* out) {
  const Token& t = Peek();
  if (t.IsKeyword("SELECT")) return ParseSelect(out);
  if (t.IsKeyword("SET")) return ParseSet(out);
  if (t.IsKeyword("SHOW")) return ParseShow(out);
  if (t.IsKeyword("USE")) {
    Take();
    auto s = std::make_unique<UseStmt>();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->database));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("KILL")) {
    Take();
    auto s = std::make_unique<KillStmt>();
    if (AcceptKeyword("QUERY")) {
      s->query_only = true;
    } else {
      AcceptKeyword("CONNECTION");
    }
    SLUICE_RETURN_IF_ERROR(ParseExpr(&s->id));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("SHUTDOWN")) {
    Take();
    *out = std::make_unique<ShutdownStmt>();
    return Status::OK();
  }
  if (t.IsKeyword("FLUSH")) return ParseFlush(out);
  if (t.IsKeyword("PURGE")) return ParsePurge(out);
  if (t.IsKeyword("RESET")) return ParseReset(out);
  if (t.IsKeyword("BEGIN")) {
    Take();
    AcceptKeyword("WORK");
    *out = std::make_unique<StartTransactionStmt>();
    return Status::OK();
  }
  if (t.IsKeyword("START")) return ParseStartTransaction(out);
  if (t.IsKeyword("COMMIT")) {
    Take();
    AcceptKeyword("WORK");
    *out = std::make_unique<CommitStmt>();
    return Status::OK();
  }
  if (t.IsKeyword("ROLLBACK")) {
    Take();
    AcceptKeyword("WORK");
    auto s = std::make_unique<RollbackStmt>();
    if (AcceptKeyword("TO")) {
      AcceptKeyword("SAVEPOINT");
      SLUICE_RETURN_IF_ERROR(ParseIdent(&s->savepoint));
    }
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("SAVEPOINT") || (t.IsKeyword("RELEASE") && PeekKeyword("SAVEPOINT", 1))) {
    auto s = std::make_unique<SavepointStmt>();
    s->release = t.IsKeyword("RELEASE");
    Take();
    if (s->release) Take();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("UNLOCK") && (PeekKeyword("TABLES", 1) || PeekKeyword("TABLE", 1))) {
    Take();
    Take();
    *out = std::make_unique<TableLocksStmt>(false);
    return Status::OK();
  }
  if (t.IsKeyword("LOCK") && (PeekKeyword("TABLES", 1) || PeekKeyword("TABLE", 1))) {
    Take();
    Take();
    auto s = std::make_unique<TableLocksStmt>(true);
    do {
      TableLocksStmt::Item item;
      SLUICE_RETURN_IF_ERROR(ParseTableRef(&item.table));
      if (AcceptKeyword("READ")) {
        AcceptKeyword("LOCAL");
      } else {
        AcceptKeyword("LOW_PRIORITY");
        SLUICE_RETURN_IF_ERROR(ExpectKeyword("WRITE"));
        item.write = true;
      }
      s->tables.push_back(std::move(item));
    } while (AcceptPunct(Punct::kComma));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("DO")) {
    Take();
    auto s = std::make_unique<DoStmt>();
    SLUICE_RETURN_IF_ERROR(ParseExprList(&s->exprs));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("CREATE")) return ParseCreate(out);
  if (t.IsKeyword("ALTER")) {
    Take();
    if (AcceptKeyword("TABLE")) return ParseAlterTable(out);
    if (!PeekKeyword("USER")) return Error();
    Take();
    return ParseCreateOrAlterUser(/*alter=*/true, out);
  }
  if (t.IsKeyword("DROP")) return ParseDrop(out);
  if (t.IsKeyword("INSERT")) return ParseInsert(/*replace=*/false, out);
  if (t.IsKeyword("REPLACE")) return ParseInsert(/*replace=*/true, out);
  if (t.IsKeyword("UPDATE")) return ParseUpdate(out);
  if (t.IsKeyword("DELETE")) return ParseDelete(out);
  if (t.IsKeyword("TRUNCATE")) {
    Take();
    AcceptKeyword("TABLE");
    auto s = std::make_unique<TruncateStmt>();
    SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("DESCRIBE") || t.IsKeyword("DESC") || t.IsKeyword("EXPLAIN")) return ParseDescribe(out);
  if (t.IsKeyword("RENAME")) {
    Take();
    if (AcceptKeyword("TABLE") || AcceptKeyword("TABLES")) return ParseRenameTable(out);
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("USER"));
    auto s = std::make_unique<RenameUserStmt>();
    do {
      UserSpec from, to;
      SLUICE_RETURN_IF_ERROR(ParseUser(&from, false));
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("TO"));
      SLUICE_RETURN_IF_ERROR(ParseUser(&to, false));
      s->renames.emplace_back(std::move(from), std::move(to));
    } while (AcceptPunct(Punct::kComma));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("GRANT")) return ParseGrant(out);
  if (t.IsKeyword("REVOKE")) return ParseRevoke(out);
  if (t.IsKeyword("PREPARE")) return ParsePrepare(out);
  if (t.IsKeyword("EXECUTE")) return ParseExecute(out);
  if (t.IsKeyword("DEALLOCATE")) {
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("PREPARE"));
    return ParseDeallocatePrepareName(out);
  }
  if (t.IsKeyword("INSTALL")) {
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("PLUGIN"));
    auto s = std::make_unique<InstallPluginStmt>();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("SONAME"));
    SLUICE_RETURN_IF_ERROR(ParseString(&s->soname));
    *out = std::move(s);
    return Status::OK();
  }
  if (t.IsKeyword("UNINSTALL")) {
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("PLUGIN"));
    auto s = std::make_unique<UninstallPluginStmt>();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
    *out = std::move(s);
    return Status::OK();
  }
  return Error();
}

// ------------------------------------------------------------------ names

Status Parser::Impl::ParseIdent(std::string* out) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuotedIdent || (t.kind == TokenKind::kIdent && !IsReserved(t))) {
    *out = Take().text;
    return Status::OK();
  }
  return Error();
}

Status Parser::Impl::ParseName(std::string* out) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kQuotedIdent || t.kind == TokenKind::kIdent ||
      t.kind == TokenKind::kString) {
    *out = Take().text;
    return Status::OK();
  }
  return Error();
}

Status Parser::Impl::ParseString(std::string* out) {
  if (Peek().kind != TokenKind::kString) return Error();
  *out = Take().text;
  return Status::OK();
}

Status Parser::Impl::ParseUser(UserSpec* user, bool allow_user_function) {
  *user = UserSpec();
  if (PeekKeyword("CURRENT_USER")) {
    Take();
    if (AcceptPunct(Punct::kLParen)) SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    user->current_user = true;
    return Status::OK();
  }
  if (allow_user_function && PeekKeyword("USER") && PeekPunct(Punct::kLParen, 1) &&
      PeekPunct(Punct::kRParen, 2)) {
    Take();
    Take();
    Take();
    user->current_user = true;
    return Status::OK();
  }
  const Token& t = Peek();
  if (t.kind != TokenKind::kIdent && t.kind != TokenKind::kQuotedIdent &&
      t.kind != TokenKind::kString) {
    return Error();
  }
  user->name = Take().text;
  // 'u'@'h' lexes as a string followed by the user variable @'h'.
  if (Peek().kind == TokenKind::kUserVar) user->host = AsciiLower(Take().text);
  if (Utf8Length(user->name) > kMaxUserNameChars) {
    return MakeError(er::kWrongStringLength, user->name, "user name", 32);
  }
  if (user->host.size() > kMaxHostNameChars) {
    return MakeError(er::kWrongStringLength, user->host, "host name", 255);
  }
  return Status::OK();
}

Status Parser::Impl::ParseUserList(std::vector<UserSpec>* users) {
  do {
    UserSpec u;
    SLUICE_RETURN_IF_ERROR(ParseUser(&u, false));
    users->push_back(std::move(u));
  } while (AcceptPunct(Punct::kComma));
  return Status::OK();
}

// ------------------------------------------------------------------ SELECT

Status Parser::Impl::ParseSelect(std::unique_ptr<Stmt>* out) {
  Take();  // SELECT
  auto s = std::make_unique<SelectStmt>();
  for (;;) {
    if (AcceptKeyword("DISTINCT") || AcceptKeyword("DISTINCTROW")) {
      s->distinct = true;
    } else if (AcceptKeyword("ALL")) {
    } else if (AcceptKeyword("SQL_CALC_FOUND_ROWS")) {
      s->calc_found_rows = true;
    } else if (AcceptKeyword("SQL_NO_CACHE")) {
      s->sql_no_cache = true;
    } else if (AcceptKeyword("HIGH_PRIORITY") || AcceptKeyword("STRAIGHT_JOIN") ||
               AcceptKeyword("SQL_SMALL_RESULT") || AcceptKeyword("SQL_BIG_RESULT") ||
               AcceptKeyword("SQL_BUFFER_RESULT")) {
      // Optimizer hints with no effect on a result.
    } else {
      break;
    }
  }
  do {
    SelectItem item;
    SLUICE_RETURN_IF_ERROR(ParseSelectItem(&item));
    s->items.push_back(std::move(item));
  } while (AcceptPunct(Punct::kComma));

  if (AcceptKeyword("FROM")) {
    if (AcceptKeyword("DUAL")) {
      s->from_dual = true;
    } else {
      SLUICE_RETURN_IF_ERROR(ParseFromList(&s->from));
    }
  }
  if (AcceptKeyword("WHERE")) SLUICE_RETURN_IF_ERROR(ParseExpr(&s->where));
  if (PeekKeyword("GROUP") && PeekKeyword("BY", 1)) {
    Take();
    Take();
    SLUICE_RETURN_IF_ERROR(ParseExprList(&s->group_by));
  }
  if (AcceptKeyword("HAVING")) SLUICE_RETURN_IF_ERROR(ParseExpr(&s->having));
  SLUICE_RETURN_IF_ERROR(ParseOptionalOrderBy(&s->order_by));
  if (PeekKeyword("LIMIT")) SLUICE_RETURN_IF_ERROR(ParseLimit(&s->limit, &s->offset));
  SLUICE_RETURN_IF_ERROR(ParseLockingClauses(s.get()));
  *out = std::move(s);
  return Status::OK();
}

Status Parser::Impl::ParseSubquery(std::shared_ptr<const SelectStmt>* out) {
  if (!PeekKeyword("SELECT")) return Error();
  Nesting nesting(this);
  SLUICE_RETURN_IF_ERROR(nesting.status());
  const uint32_t outer_max = max_height_;
  max_height_ = 0;
  std::unique_ptr<Stmt> select;
  Status st = ParseSelect(&select);
  const uint32_t inner_max = max_height_;
  max_height_ = outer_max;
  SLUICE_RETURN_IF_ERROR(st);
  *out = std::shared_ptr<const SelectStmt>(static_cast<SelectStmt*>(select.release()));
  subquery_heights_[out->get()] = inner_max + 1;
  return Status::OK();
}

// table_ref {, table_ref | join_clause}..., where a join clause is
//   [INNER | CROSS] JOIN t [ON expr | USING (cols)]
//   STRAIGHT_JOIN t [ON expr]
//   {LEFT | RIGHT} [OUTER] JOIN t {ON expr | USING (cols)}
//   NATURAL [INNER | {LEFT | RIGHT} [OUTER]] JOIN t
// flattened left-deep into `from` (each entry says how it joins the ones
// before it). Parenthesized joins and derived tables are not parsed.
Status Parser::Impl::ParseFromList(std::vector<TableRef>* from) {
  TableRef first;
  SLUICE_RETURN_IF_ERROR(ParseTableRef(&first));
  from->push_back(std::move(first));
  for (;;) {
    if (AcceptPunct(Punct::kComma)) {
      TableRef ref;
      SLUICE_RETURN_IF_ERROR(ParseTableRef(&ref));
      from->push_back(std::move(ref));
      continue;
    }
    JoinKind kind = JoinKind::kInner;
    bool natural = false, straight = false, spec_required = false;
    if (AcceptKeyword("NATURAL")) natural = true;
    if (AcceptKeyword("LEFT")) {
      kind = JoinKind::kLeft;
    } else if (AcceptKeyword("RIGHT")) {
      kind = JoinKind::kRight;
    }
    if (kind != JoinKind::kInner) {
      AcceptKeyword("OUTER");
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("JOIN"));
      spec_required = !natural;
    } else if (AcceptKeyword("STRAIGHT_JOIN")) {
      if (natural) return Error();
      straight = true;
    } else if (AcceptKeyword("INNER") || AcceptKeyword("CROSS")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("JOIN"));
    } else if (!AcceptKeyword("JOIN")) {
      if (natural) return Error();
      break;
    }
    TableRef ref;
    SLUICE_RETURN_IF_ERROR(ParseTableRef(&ref));
    ref.join = kind;
    ref.natural = natural;
    if (!natural && AcceptKeyword("ON")) {
      ExprPtr on;
      SLUICE_RETURN_IF_ERROR(ParseExpr(&on));
      ref.on = std::shared_ptr<const Expr>(std::move(on));
    } else if (!natural && !straight && AcceptKeyword("USING")) {
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
      do {
        std::string column;
        SLUICE_RETURN_IF_ERROR(ParseIdent(&column));
        ref.using_columns.push_back(std::move(column));
      } while (AcceptPunct(Punct::kComma));
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    } else if (spec_required) {
      return Error();
    }
    from->push_back(std::move(ref));
  }
  return Status::OK();
}

Status Parser::Impl::ParseSelectItem(SelectItem* item) {
  if (PeekPunct(Punct::kStar)) {
    Take();
    item->star = true;
    item->text = "*";
    return Status::OK();
  }
  const Token& t = Peek();
  if ((t.kind == TokenKind::kIdent || t.kind == TokenKind::kQuotedIdent) &&
      PeekPunct(Punct::kDot, 1) && PeekPunct(Punct::kStar, 2)) {
    if (IsReserved(Peek())) return Error();
    item->star = true;
    item->star_table = Take().text;
    Take();
    Take();
    item->text = item->star_table + ".*";
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(ParseExpr(&item->expr));
  item->text = std::string(query_.substr(item->expr->begin, item->expr->end - item->expr->begin));
  bool need_alias = AcceptKeyword("AS");
  const Token& a = Peek();
  if (a.kind == TokenKind::kQuotedIdent || a.kind == TokenKind::kString ||
      (a.kind == TokenKind::kIdent && !IsReserved(a))) {
    item->alias = Take().text;
    item->has_alias = true;
  } else if (need_alias) {
    return Error();
  }
  return Status::OK();
}

Status Parser::Impl::ParseTableRef(TableRef* ref) {
  SLUICE_RETURN_IF_ERROR(ParseTableName(ref));
  bool need_alias = AcceptKeyword("AS");
  const Token& a = Peek();
  if (a.kind == TokenKind::kQuotedIdent || (a.kind == TokenKind::kIdent && !IsReserved(a))) {
    ref->alias = Take().text;
  } else if (need_alias) {
    return Error();
  }
  return Status::OK();
}

Status Parser::Impl::ParseLimitValue(ExprPtr* out) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kParam) {
    Token p = Take();
    *out = MakeExpr(ExprKind::kParam, p.offset, p.end);
    (*out)->param_index = param_count_++;
    return Status::OK();
  }
  if (t.kind != TokenKind::kInteger) return Error();
  Token n = Take();
  return ParseNumber(n, out);
}

Status Parser::Impl::ParseLimit(ExprPtr* limit, ExprPtr* offset) {
  Take();  // LIMIT
  ExprPtr first;
  SLUICE_RETURN_IF_ERROR(ParseLimitValue(&first));
  if (AcceptPunct(Punct::kComma)) {
    *offset = std::move(first);
    return ParseLimitValue(limit);
  }
  *limit = std::move(first);
  if (AcceptKeyword("OFFSET")) return ParseLimitValue(offset);
  return Status::OK();
}

// ------------------------------------------------------------------ SET

namespace {

bool ScopeKeyword(const Token& t, VarScope* scope) {
  if (t.IsKeyword("GLOBAL")) *scope = VarScope::kGlobal;
  else if (t.IsKeyword("SESSION") || t.IsKeyword("LOCAL")) *scope = VarScope::kSession;
  else if (t.IsKeyword("PERSIST")) *scope = VarScope::kPersist;
  else if (t.IsKeyword("PERSIST_ONLY")) *scope = VarScope::kPersistOnly;
  else return false;
  return true;
}

}  // namespace

Status Parser::Impl::ParseSet(std::unique_ptr<Stmt>* out) {
  Take();  // SET
  VarScope scope = VarScope::kDefault;
  if (PeekKeyword("TRANSACTION")) {
    Take();
    return ParseSetTransaction(VarScope::kDefault, out);
  }
  if (ScopeKeyword(Peek(), &scope) && PeekKeyword("TRANSACTION", 1)) {
    if (scope == VarScope::kPersist || scope == VarScope::kPersistOnly) return ErrorAt(Peek(1));
    Take();
    Take();
    return ParseSetTransaction(scope, out);
  }
  if (PeekKeyword("PASSWORD") && (PeekPunct(Punct::kEq, 1) || PeekKeyword("FOR", 1))) {
    return ParseSetPassword(out);
  }
  auto s = std::make_unique<SetStmt>();
  VarScope carried = VarScope::kDefault;  // the last scope keyword applies onwards
  do {
    SetItem item;
    const Token& t = Peek();
    if (t.kind == TokenKind::kUserVar) {
      item.kind = SetItem::Kind::kUserVar;
      item.name = Take().text;
      if (!AcceptPunct(Punct::kEq) && !AcceptPunct(Punct::kAssign)) return Error();
      SLUICE_RETURN_IF_ERROR(ParseSetValue(false, &item.value));
    } else if (t.kind == TokenKind::kSysVar) {
      item.kind = SetItem::Kind::kSystemVar;
      item.scope = t.scope;
      item.name = Take().text;
      if (!AcceptPunct(Punct::kEq) && !AcceptPunct(Punct::kAssign)) return Error();
      SLUICE_RETURN_IF_ERROR(ParseSetValue(true, &item.value));
    } else {
      VarScope explicit_scope;
      if (ScopeKeyword(Peek(), &explicit_scope) && !PeekPunct(Punct::kEq, 1) &&
          !PeekPunct(Punct::kAssign, 1)) {
        Take();
        carried = explicit_scope;
      }
      if (PeekKeyword("NAMES")) {
        if (carried != VarScope::kDefault) return Error();
        Take();
        item.kind = SetItem::Kind::kNames;
        if (!AcceptKeyword("DEFAULT")) SLUICE_RETURN_IF_ERROR(ParseCharsetName(&item.charset));
        if (AcceptKeyword("COLLATE")) {
          if (!AcceptKeyword("DEFAULT")) SLUICE_RETURN_IF_ERROR(ParseCharsetName(&item.collation));
        }
      } else if ((PeekKeyword("CHARACTER") && PeekKeyword("SET", 1)) || PeekKeyword("CHARSET")) {
        if (carried != VarScope::kDefault) return Error();
        if (Take().IsKeyword("CHARACTER")) Take();
        item.kind = SetItem::Kind::kCharset;
        if (!AcceptKeyword("DEFAULT")) SLUICE_RETURN_IF_ERROR(ParseCharsetName(&item.charset));
      } else {
        item.kind = SetItem::Kind::kSystemVar;
        item.scope = carried;
        SLUICE_RETURN_IF_ERROR(ParseIdent(&item.name));
        if (PeekPunct(Punct::kDot)) {
          Take();
          std::string part;
          SLUICE_RETURN_IF_ERROR(ParseIdent(&part));
          item.name += "." + part;
        }
        if (!AcceptPunct(Punct::kEq) && !AcceptPunct(Punct::kAssign)) return Error();
        SLUICE_RETURN_IF_ERROR(ParseSetValue(true, &item.value));
      }
    }
    s->items.push_back(std::move(item));
  } while (AcceptPunct(Punct::kComma));
  *out = std::move(s);
  return Status::OK();
}

Status Parser::Impl::ParseCharsetName(std::string* out) {
  const Token& t = Peek();
  if (t.kind == TokenKind::kIdent || t.kind == TokenKind::kQuotedIdent ||
      t.kind == TokenKind::kString) {
    *out = Take().text;
    return Status::OK();
  }
  return Error();
}

Status Parser::Impl::ParseSetValue(bool system_variable, ExprPtr* out) {
  const Token& t = Peek();
  const bool alone = PeekPunct(Punct::kComma, 1) || PeekPunct(Punct::kSemicolon, 1) ||
                     Peek(1).kind == TokenKind::kEnd;
  if (system_variable && alone && t.IsKeyword("DEFAULT")) {
    Token d = Take();
    *out = MakeExpr(ExprKind::kDefault, d.offset, d.end);
    return Status::OK();
  }
  if (system_variable && alone &&
      (t.IsKeyword("ON") || t.IsKeyword("ALL") || t.IsKeyword("BINARY") || t.IsKeyword("ROW") ||
       t.IsKeyword("SYSTEM"))) {
    Token w = Take();
    *out = MakeStringLiteral(w.text, w.offset, w.end);
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(ParseExpr(out));
  // SET sql_mode = TRADITIONAL: a bare word is the value's name, not a column.
  Expr& e = **out;
  if (system_variable && e.kind == ExprKind::kColumn && e.table.empty() && e.schema.empty()) {
    *out = MakeStringLiteral(e.name, e.begin, e.end);
  }
  return Status::OK();
}

Status Parser::Impl::ParseTransactionCharacteristic(std::optional<IsolationLevel>* isolation,
                                                    std::optional<bool>* read_only) {
  if (PeekKeyword("ISOLATION")) {
    if (isolation->has_value()) return Error();
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("LEVEL"));
    if (AcceptKeyword("REPEATABLE")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("READ"));
      *isolation = IsolationLevel::kRepeatableRead;
    } else if (AcceptKeyword("SERIALIZABLE")) {
      *isolation = IsolationLevel::kSerializable;
    } else if (AcceptKeyword("READ")) {
      if (AcceptKeyword("COMMITTED")) {
        *isolation = IsolationLevel::kReadCommitted;
      } else if (AcceptKeyword("UNCOMMITTED")) {
        *isolation = IsolationLevel::kReadUncommitted;
      } else {
        return Error();
      }
    } else {
      return Error();
    }
    return Status::OK();
  }
  if (PeekKeyword("READ")) {
    if (read_only->has_value()) return Error();
    Take();
    if (AcceptKeyword("ONLY")) {
      *read_only = true;
    } else if (AcceptKeyword("WRITE")) {
      *read_only = false;
    } else {
      return Error();
    }
    return Status::OK();
  }
  return Error();
}

Status Parser::Impl::ParseSetTransaction(VarScope scope, std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<SetTransactionStmt>();
  s->scope = scope;
  do {
    SLUICE_RETURN_IF_ERROR(ParseTransactionCharacteristic(&s->isolation, &s->read_only));
  } while (AcceptPunct(Punct::kComma));
  *out = std::move(s);
  return Status::OK();
}

Status Parser::Impl::ParseSetPassword(std::unique_ptr<Stmt>* out) {
  Take();  // PASSWORD
  auto s = std::make_unique<SetPasswordStmt>();
  if (AcceptKeyword("FOR")) {
    UserSpec u;
    SLUICE_RETURN_IF_ERROR(ParseUser(&u, false));
    s->user = std::move(u);
  }
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kEq));
  SLUICE_RETURN_IF_ERROR(ParseString(&s->password));
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ SHOW

Status Parser::Impl::ParseShowFilter(ShowStmt* show) {
  if (AcceptKeyword("LIKE")) {
    std::string pattern;
    SLUICE_RETURN_IF_ERROR(ParseString(&pattern));
    show->like = std::move(pattern);
  } else if (AcceptKeyword("WHERE")) {
    SLUICE_RETURN_IF_ERROR(ParseExpr(&show->where));
  }
  return Status::OK();
}

Status Parser::Impl::ParseShow(std::unique_ptr<Stmt>* out) {
  Take();  // SHOW
  auto s = std::make_unique<ShowStmt>();
  VarScope scope;
  bool has_scope = false;
  if (ScopeKeyword(Peek(), &scope) && scope != VarScope::kPersist &&
      scope != VarScope::kPersistOnly) {
    Take();
    s->scope = scope;
    has_scope = true;
  }
  if (AcceptKeyword("VARIABLES")) {
    s->what = ShowKind::kVariables;
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (AcceptKeyword("STATUS")) {
    s->what = ShowKind::kStatus;
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (has_scope) {
    return Error();
  } else if (AcceptKeyword("FULL")) {
    s->full = true;
    if (AcceptKeyword("PROCESSLIST")) {
      s->what = ShowKind::kProcesslist;
    } else if (AcceptKeyword("TABLES")) {
      s->what = ShowKind::kTables;
      SLUICE_RETURN_IF_ERROR(ParseShowFromDb(&s->database));
      SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
    } else if (AcceptKeyword("COLUMNS") || AcceptKeyword("FIELDS")) {
      s->what = ShowKind::kColumns;
      SLUICE_RETURN_IF_ERROR(ParseShowColumnsOrIndex(s.get()));
    } else {
      return Error();
    }
  } else if (AcceptKeyword("TABLES")) {
    s->what = ShowKind::kTables;
    SLUICE_RETURN_IF_ERROR(ParseShowFromDb(&s->database));
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (AcceptKeyword("COLUMNS") || AcceptKeyword("FIELDS")) {
    s->what = ShowKind::kColumns;
    SLUICE_RETURN_IF_ERROR(ParseShowColumnsOrIndex(s.get()));
  } else if (AcceptKeyword("INDEX") || AcceptKeyword("INDEXES") || AcceptKeyword("KEYS")) {
    s->what = ShowKind::kIndex;
    SLUICE_RETURN_IF_ERROR(ParseShowColumnsOrIndex(s.get()));
  } else if (PeekKeyword("TABLE") && PeekKeyword("STATUS", 1)) {
    Take();
    Take();
    s->what = ShowKind::kTableStatus;
    SLUICE_RETURN_IF_ERROR(ParseShowFromDb(&s->database));
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (PeekKeyword("CREATE") && PeekKeyword("TABLE", 1)) {
    Take();
    Take();
    s->what = ShowKind::kCreateTable;
    SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
  } else if (PeekKeyword("CREATE") && (PeekKeyword("DATABASE", 1) || PeekKeyword("SCHEMA", 1))) {
    Take();
    Take();
    s->what = ShowKind::kCreateDatabase;
    s->if_not_exists = AcceptIfNotExists();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->database));
  } else if (AcceptKeyword("PROCESSLIST")) {
    s->what = ShowKind::kProcesslist;
  } else if (AcceptKeyword("DATABASES") || AcceptKeyword("SCHEMAS")) {
    s->what = ShowKind::kDatabases;
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (PeekKeyword("WARNINGS") || PeekKeyword("ERRORS")) {
    s->what = Take().IsKeyword("WARNINGS") ? ShowKind::kWarnings : ShowKind::kErrors;
    if (PeekKeyword("LIMIT")) SLUICE_RETURN_IF_ERROR(ParseLimit(&s->limit, &s->offset));
  } else if (PeekKeyword("COUNT")) {
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kStar));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    if (AcceptKeyword("WARNINGS")) {
      s->what = ShowKind::kWarnings;
    } else if (AcceptKeyword("ERRORS")) {
      s->what = ShowKind::kErrors;
    } else {
      return Error();
    }
    s->count_only = true;
  } else if (AcceptKeyword("GRANTS")) {
    s->what = ShowKind::kGrants;
    if (AcceptKeyword("FOR")) {
      UserSpec u;
      SLUICE_RETURN_IF_ERROR(ParseUser(&u, false));
      s->user = std::move(u);
    }
  } else if (PeekKeyword("CREATE") && PeekKeyword("USER", 1)) {
    Take();
    Take();
    s->what = ShowKind::kCreateUser;
    UserSpec u;
    SLUICE_RETURN_IF_ERROR(ParseUser(&u, false));
    s->user = std::move(u);
  } else if (PeekKeyword("MASTER") && PeekKeyword("STATUS", 1)) {
    Take();
    Take();
    s->what = ShowKind::kMasterStatus;
  } else if (PeekKeyword("MASTER") && PeekKeyword("LOGS", 1)) {
    Take();
    Take();
    s->what = ShowKind::kBinaryLogs;
  } else if (PeekKeyword("BINARY") && PeekKeyword("LOGS", 1)) {
    Take();
    Take();
    s->what = ShowKind::kBinaryLogs;
  } else if (PeekKeyword("BINARY") && PeekKeyword("LOG", 1) && PeekKeyword("STATUS", 2)) {
    Take();
    Take();
    Take();
    s->what = ShowKind::kMasterStatus;
  } else if (PeekKeyword("BINLOG") && PeekKeyword("EVENTS", 1)) {
    // SHOW BINLOG EVENTS [IN 'log_name'] [FROM pos] [LIMIT [offset,] row_count]
    Take();
    Take();
    s->what = ShowKind::kBinlogEvents;
    if (AcceptKeyword("IN")) SLUICE_RETURN_IF_ERROR(ParseString(&s->log_name));
    if (AcceptKeyword("FROM")) {
      uint64_t pos = 0;
      SLUICE_RETURN_IF_ERROR(ParseUnsigned(&pos));
      s->from_pos = pos;
    }
    if (PeekKeyword("LIMIT")) SLUICE_RETURN_IF_ERROR(ParseLimit(&s->limit, &s->offset));
  } else if (AcceptKeyword("REPLICAS")) {
    s->what = ShowKind::kReplicas;
  } else if (PeekKeyword("SLAVE") && PeekKeyword("HOSTS", 1)) {
    Take();
    Take();
    s->what = ShowKind::kReplicas;
  } else if (PeekKeyword("STORAGE") && PeekKeyword("ENGINES", 1)) {
    Take();
    Take();
    s->what = ShowKind::kEngines;
  } else if (AcceptKeyword("ENGINES")) {
    s->what = ShowKind::kEngines;
  } else if (AcceptKeyword("ENGINE")) {
    // SHOW ENGINE <name> STATUS
    SLUICE_RETURN_IF_ERROR(ParseName(&s->engine));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("STATUS"));
    s->what = ShowKind::kEngineStatus;
  } else if ((PeekKeyword("CHARACTER") && PeekKeyword("SET", 1)) || PeekKeyword("CHARSET")) {
    if (Take().IsKeyword("CHARACTER")) Take();
    s->what = ShowKind::kCharset;
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (AcceptKeyword("COLLATION")) {
    s->what = ShowKind::kCollation;
    SLUICE_RETURN_IF_ERROR(ParseShowFilter(s.get()));
  } else if (AcceptKeyword("PLUGINS")) {
    s->what = ShowKind::kPlugins;
  } else if (AcceptKeyword("PRIVILEGES")) {
    s->what = ShowKind::kPrivileges;
  } else {
    return Error();
  }
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ FLUSH, transactions

Status Parser::Impl::ParseFlush(std::unique_ptr<Stmt>* out) {
  Take();  // FLUSH
  auto s = std::make_unique<FlushStmt>();
  if (AcceptKeyword("NO_WRITE_TO_BINLOG") || AcceptKeyword("LOCAL")) s->no_write_to_binlog = true;
  do {
    FlushOption opt;
    if (AcceptKeyword("PRIVILEGES")) {
      opt = FlushOption::kPrivileges;
    } else if (AcceptKeyword("LOGS")) {
      opt = FlushOption::kLogs;
    } else if (PeekKeyword("LOGS", 1) &&
               (PeekKeyword("BINARY") || PeekKeyword("ENGINE") || PeekKeyword("ERROR") ||
                PeekKeyword("GENERAL") || PeekKeyword("RELAY") || PeekKeyword("SLOW"))) {
      Token kind = Take();
      Take();
      if (kind.IsKeyword("BINARY")) opt = FlushOption::kBinaryLogs;
      else if (kind.IsKeyword("ENGINE")) opt = FlushOption::kEngineLogs;
      else if (kind.IsKeyword("ERROR")) opt = FlushOption::kErrorLogs;
      else if (kind.IsKeyword("GENERAL")) opt = FlushOption::kGeneralLogs;
      else if (kind.IsKeyword("RELAY")) opt = FlushOption::kRelayLogs;
      else opt = FlushOption::kSlowLogs;
    } else if (AcceptKeyword("TABLES") || AcceptKeyword("TABLE")) {
      opt = FlushOption::kTables;
      if (AcceptKeyword("WITH")) {
        SLUICE_RETURN_IF_ERROR(ExpectKeyword("READ"));
        SLUICE_RETURN_IF_ERROR(ExpectKeyword("LOCK"));
        opt = FlushOption::kTablesWithReadLock;
      }
    } else if (AcceptKeyword("STATUS")) {
      opt = FlushOption::kStatus;
    } else if (AcceptKeyword("HOSTS")) {
      opt = FlushOption::kHosts;
    } else if (AcceptKeyword("USER_RESOURCES")) {
      opt = FlushOption::kUserResources;
    } else if (AcceptKeyword("OPTIMIZER_COSTS")) {
      opt = FlushOption::kOptimizerCosts;
    } else {
      return Error();
    }
    s->options.push_back(opt);
  } while (AcceptPunct(Punct::kComma));
  *out = std::move(s);
  return Status::OK();
}

// PURGE {BINARY | MASTER} LOGS {TO 'log_name' | BEFORE expr}
Status Parser::Impl::ParsePurge(std::unique_ptr<Stmt>* out) {
  Take();  // PURGE
  if (!AcceptKeyword("BINARY") && !AcceptKeyword("MASTER")) return Error();
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("LOGS"));
  auto s = std::make_unique<PurgeBinaryLogsStmt>();
  if (AcceptKeyword("TO")) {
    SLUICE_RETURN_IF_ERROR(ParseString(&s->to));
  } else if (AcceptKeyword("BEFORE")) {
    SLUICE_RETURN_IF_ERROR(ParseExpr(&s->before));
  } else {
    return Error();
  }
  *out = std::move(s);
  return Status::OK();
}

// RESET MASTER [TO n] / RESET BINARY LOGS AND GTIDS [TO n]. mysqld checks n
// in its grammar: 3567 unless 1 <= n <= 2000000000.
Status Parser::Impl::ParseReset(std::unique_ptr<Stmt>* out) {
  Take();  // RESET
  if (PeekKeyword("BINARY") && PeekKeyword("LOGS", 1)) {
    Take();
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("AND"));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("GTIDS"));
  } else {
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("MASTER"));
  }
  auto s = std::make_unique<ResetMasterStmt>();
  if (AcceptKeyword("TO")) {
    uint64_t n = 0;
    SLUICE_RETURN_IF_ERROR(ParseUnsigned(&n));
    constexpr uint64_t kMaxFirstFileNumber = 2000000000;
    if (n == 0 || n > kMaxFirstFileNumber) return MakeError(er::kResetMasterToValueOutOfRange, n);
    s->to = n;
  }
  *out = std::move(s);
  return Status::OK();
}

Status Parser::Impl::ParseStartTransaction(std::unique_ptr<Stmt>* out) {
  Take();  // START
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("TRANSACTION"));
  auto s = std::make_unique<StartTransactionStmt>();
  if (!AtStatementEnd()) {
    do {
      if (PeekKeyword("WITH")) {
        if (s->consistent_snapshot) return Error();
        Take();
        SLUICE_RETURN_IF_ERROR(ExpectKeyword("CONSISTENT"));
        SLUICE_RETURN_IF_ERROR(ExpectKeyword("SNAPSHOT"));
        s->consistent_snapshot = true;
      } else if (PeekKeyword("READ")) {
        if (s->read_only.has_value()) return Error();
        Take();
        if (AcceptKeyword("ONLY")) {
          s->read_only = true;
        } else if (AcceptKeyword("WRITE")) {
          s->read_only = false;
        } else {
          return Error();
        }
      } else {
        return Error();
      }
    } while (AcceptPunct(Punct::kComma));
  }
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ accounts

Status Parser::Impl::ParseUserAuth(bool alter, UserAuth* auth) {
  SLUICE_RETURN_IF_ERROR(ParseUser(&auth->user, /*allow_user_function=*/alter));
  if (!AcceptKeyword("IDENTIFIED")) return Status::OK();
  auth->identified = true;
  if (AcceptKeyword("BY")) {
    std::string pw;
    SLUICE_RETURN_IF_ERROR(ParseString(&pw));
    auth->password = std::move(pw);
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("WITH"));
  const Token& p = Peek();
  if (p.kind != TokenKind::kIdent && p.kind != TokenKind::kQuotedIdent &&
      p.kind != TokenKind::kString) {
    return Error();
  }
  auth->plugin = Take().text;
  if (AcceptKeyword("BY")) {
    std::string pw;
    SLUICE_RETURN_IF_ERROR(ParseString(&pw));
    auth->password = std::move(pw);
  } else if (AcceptKeyword("AS")) {
    std::string hash;
    SLUICE_RETURN_IF_ERROR(ParseString(&hash));
    auth->auth_string = std::move(hash);
  }
  return Status::OK();
}

Status Parser::Impl::ParseAccountOptions(std::optional<bool>* account_locked) {
  for (;;) {
    if (AcceptKeyword("REQUIRE")) {
      // Only the default is accepted; TLS requirements are not supported.
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("NONE"));
    } else if (AcceptKeyword("ACCOUNT")) {
      if (AcceptKeyword("LOCK")) {
        *account_locked = true;
      } else if (AcceptKeyword("UNLOCK")) {
        *account_locked = false;
      } else {
        return Error();
      }
    } else {
      return Status::OK();
    }
  }
}

Status Parser::Impl::ParseCreateOrAlterUser(bool alter, std::unique_ptr<Stmt>* out) {
  std::vector<UserAuth> users;
  bool if_clause = false;
  if (!alter && PeekKeyword("IF") && PeekKeyword("NOT", 1) && PeekKeyword("EXISTS", 2)) {
    Take();
    Take();
    Take();
    if_clause = true;
  } else if (alter && PeekKeyword("IF") && PeekKeyword("EXISTS", 1)) {
    Take();
    Take();
    if_clause = true;
  }
  do {
    UserAuth auth;
    SLUICE_RETURN_IF_ERROR(ParseUserAuth(alter, &auth));
    users.push_back(std::move(auth));
  } while (AcceptPunct(Punct::kComma));
  std::optional<bool> locked;
  SLUICE_RETURN_IF_ERROR(ParseAccountOptions(&locked));
  if (alter) {
    auto s = std::make_unique<AlterUserStmt>();
    s->if_exists = if_clause;
    s->users = std::move(users);
    s->account_locked = locked;
    *out = std::move(s);
  } else {
    auto s = std::make_unique<CreateUserStmt>();
    s->if_not_exists = if_clause;
    s->users = std::move(users);
    s->account_locked = locked;
    *out = std::move(s);
  }
  return Status::OK();
}

Status Parser::Impl::ParsePrivileges(std::vector<std::string>* privs) {
  if (AcceptKeyword("ALL")) {
    AcceptKeyword("PRIVILEGES");
    privs->push_back("ALL");
    return Status::OK();
  }
  do {
    const Token first = Peek();
    std::string words;
    int count = 0;
    while (Peek().kind == TokenKind::kIdent && !PeekKeyword("ON") && !PeekKeyword("TO") &&
           !PeekKeyword("FROM")) {
      if (count++ > 0) words += " ";
      words += AsciiUpper(Take().text);
    }
    if (count == 0) return Error();
    if (count > 1 && MultiWordPrivileges().count(words) == 0) return ErrorAt(first);
    privs->push_back(std::move(words));
  } while (AcceptPunct(Punct::kComma));
  return Status::OK();
}

Status Parser::Impl::ParsePrivLevel(PrivLevel* level) {
  AcceptKeyword("TABLE");
  if (AcceptPunct(Punct::kStar)) {
    if (AcceptPunct(Punct::kDot)) {
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kStar));
      level->kind = PrivLevel::Kind::kGlobal;
    } else {
      level->kind = PrivLevel::Kind::kCurrentDb;
    }
    return Status::OK();
  }
  std::string first;
  SLUICE_RETURN_IF_ERROR(ParseIdent(&first));
  if (AcceptPunct(Punct::kDot)) {
    level->db = std::move(first);
    if (AcceptPunct(Punct::kStar)) {
      level->kind = PrivLevel::Kind::kDatabase;
    } else {
      level->kind = PrivLevel::Kind::kTable;
      SLUICE_RETURN_IF_ERROR(ParseIdent(&level->table));
    }
  } else {
    level->kind = PrivLevel::Kind::kTable;
    level->table = std::move(first);
  }
  return Status::OK();
}

Status Parser::Impl::ParseGrant(std::unique_ptr<Stmt>* out) {
  Take();  // GRANT
  auto s = std::make_unique<GrantStmt>();
  SLUICE_RETURN_IF_ERROR(ParsePrivileges(&s->privileges));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("ON"));
  SLUICE_RETURN_IF_ERROR(ParsePrivLevel(&s->level));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("TO"));
  SLUICE_RETURN_IF_ERROR(ParseUserList(&s->users));
  if (AcceptKeyword("WITH")) {
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("GRANT"));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("OPTION"));
    s->with_grant_option = true;
  }
  *out = std::move(s);
  return Status::OK();
}

Status Parser::Impl::ParseRevoke(std::unique_ptr<Stmt>* out) {
  Take();  // REVOKE
  auto s = std::make_unique<RevokeStmt>();
  // REVOKE ALL [PRIVILEGES], GRANT OPTION FROM user_list
  size_t k = PeekKeyword("PRIVILEGES", 1) ? 2 : 1;
  if (PeekKeyword("ALL") && PeekPunct(Punct::kComma, k) && PeekKeyword("GRANT", k + 1) &&
      PeekKeyword("OPTION", k + 2) && PeekKeyword("FROM", k + 3)) {
    for (size_t i = 0; i < k + 4; ++i) Take();
    s->all_and_grant_option = true;
    SLUICE_RETURN_IF_ERROR(ParseUserList(&s->users));
    *out = std::move(s);
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(ParsePrivileges(&s->privileges));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("ON"));
  SLUICE_RETURN_IF_ERROR(ParsePrivLevel(&s->level));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
  SLUICE_RETURN_IF_ERROR(ParseUserList(&s->users));
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ shared clauses

bool Parser::Impl::AcceptIfExists() {
  if (!PeekKeyword("IF") || !PeekKeyword("EXISTS", 1)) return false;
  Take();
  Take();
  return true;
}

bool Parser::Impl::AcceptIfNotExists() {
  if (!PeekKeyword("IF") || !PeekKeyword("NOT", 1) || !PeekKeyword("EXISTS", 2)) return false;
  Take();
  Take();
  Take();
  return true;
}

bool Parser::Impl::AcceptCharsetKeyword() {
  if (AcceptKeyword("CHARSET")) return true;
  if (PeekKeyword("CHARACTER") && PeekKeyword("SET", 1)) {
    Take();
    Take();
    return true;
  }
  return false;
}

// MySQL's lexer reads any word after a '.' as an identifier, so `db`.select
// names a table even though SELECT is reserved.
Status Parser::Impl::ParseTableName(TableRef* ref) {
  SLUICE_RETURN_IF_ERROR(ParseIdent(&ref->name));
  if (PeekPunct(Punct::kDot)) {
    const Token& n = Peek(1);
    if (n.kind != TokenKind::kIdent && n.kind != TokenKind::kQuotedIdent) {
      Take();
      return Error();
    }
    Take();
    ref->schema = std::move(ref->name);
    ref->name = Take().text;
  }
  return Status::OK();
}

Status Parser::Impl::ParseWhereOrderLimit(ExprPtr* where, std::vector<OrderItem>* order_by, ExprPtr* limit) {
  if (AcceptKeyword("WHERE")) SLUICE_RETURN_IF_ERROR(ParseExpr(where));
  SLUICE_RETURN_IF_ERROR(ParseOptionalOrderBy(order_by));
  if (AcceptKeyword("LIMIT")) SLUICE_RETURN_IF_ERROR(ParseLimitValue(limit));
  return Status::OK();
}

Status Parser::Impl::ParseOptionalOrderBy(std::vector<OrderItem>* out) {
  if (!PeekKeyword("ORDER") || !PeekKeyword("BY", 1)) return Status::OK();
  Take();
  Take();
  do {
    OrderItem item;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&item.expr));
    if (AcceptKeyword("DESC")) {
      item.desc = true;
    } else {
      AcceptKeyword("ASC");
    }
    out->push_back(std::move(item));
  } while (AcceptPunct(Punct::kComma));
  return Status::OK();
}

// FOR UPDATE | FOR SHARE [OF t, ...] [NOWAIT | SKIP LOCKED] | LOCK IN SHARE MODE,
// possibly several (FOR UPDATE OF a FOR SHARE OF b): the strongest one wins.
Status Parser::Impl::ParseLockingClauses(SelectStmt* s) {
  for (;;) {
    SelectStmt::Lock lock;
    if (PeekKeyword("FOR") && (PeekKeyword("UPDATE", 1) || PeekKeyword("SHARE", 1))) {
      Take();
      lock = Take().IsKeyword("UPDATE") ? SelectStmt::Lock::kForUpdate
                                         : SelectStmt::Lock::kForShare;
      if (AcceptKeyword("OF")) {
        do {
          TableRef ignored;
          SLUICE_RETURN_IF_ERROR(ParseTableName(&ignored));
        } while (AcceptPunct(Punct::kComma));
      }
      if (AcceptKeyword("NOWAIT")) {
        s->lock_wait = SelectStmt::LockWait::kNowait;
      } else if (PeekKeyword("SKIP")) {
        Take();
        SLUICE_RETURN_IF_ERROR(ExpectKeyword("LOCKED"));
        s->lock_wait = SelectStmt::LockWait::kSkipLocked;
      }
    } else if (PeekKeyword("LOCK") && PeekKeyword("IN", 1)) {
      Take();
      Take();
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("SHARE"));
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("MODE"));
      lock = SelectStmt::Lock::kForShare;
    } else {
      return Status::OK();
    }
    if (s->lock != SelectStmt::Lock::kForUpdate) s->lock = lock;
  }
}

// expr | DEFAULT (a column's default, in VALUES rows and SET lists).
Status Parser::Impl::ParseExprOrDefault(ExprPtr* out) {
  if (PeekKeyword("DEFAULT") && !PeekPunct(Punct::kLParen, 1)) {
    Token d = Take();
    *out = MakeExpr(ExprKind::kDefault, d.offset, d.end);
    return Status::OK();
  }
  return ParseExpr(out);
}

// [[db.]t.]col {= | :=} {expr | DEFAULT}, ...
Status Parser::Impl::ParseAssignments(std::vector<Assignment>* out) {
  do {
    Assignment a;
    const Token& t = Peek();
    if (t.kind != TokenKind::kQuotedIdent && (t.kind != TokenKind::kIdent || IsReserved(t))) {
      return Error();
    }
    Token first = Take();
    SLUICE_RETURN_IF_ERROR(ParseColumnRef(std::move(first), &a.column));
    if (!AcceptPunct(Punct::kEq) && !AcceptPunct(Punct::kAssign)) return Error();
    SLUICE_RETURN_IF_ERROR(ParseExprOrDefault(&a.value));
    out->push_back(std::move(a));
  } while (AcceptPunct(Punct::kComma));
  return Status::OK();
}

// A length, precision or scale: at most 9 digits.
Status Parser::Impl::ParseSmallInt(int* out) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kInteger || t.text.size() > 9) return Error();
  *out = std::stoi(Take().text);
  return Status::OK();
}

Status Parser::Impl::ParseUnsigned(uint64_t* out) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kInteger) return Error();
  uint64_t v = 0;
  auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
  if (r.ec != std::errc() || r.ptr != t.text.data() + t.text.size()) return Error();
  Take();
  *out = v;
  return Status::OK();
}

// A charset or collation name, lower-cased; DEFAULT gives "".
Status Parser::Impl::ParseCharsetOrDefault(std::string* out) {
  if (AcceptKeyword("DEFAULT")) {
    out->clear();
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(ParseCharsetName(out));
  *out = AsciiLower(*out);
  return Status::OK();
}

// ------------------------------------------------------------------ SHOW / DESCRIBE tables

// [{FROM | IN} db]
Status Parser::Impl::ParseShowFromDb(std::string* db) {
  if (AcceptKeyword("FROM") || AcceptKeyword("IN")) return ParseIdent(db);
  return Status::OK();
}

// COLUMNS / INDEX: {FROM | IN} [db.]t [{FROM | IN} db], then LIKE | WHERE for
// COLUMNS and WHERE for INDEX. A FROM db names the table's schema too.
Status Parser::Impl::ParseShowColumnsOrIndex(ShowStmt* show) {
  if (!AcceptKeyword("FROM") && !AcceptKeyword("IN")) return Error();
  SLUICE_RETURN_IF_ERROR(ParseTableName(&show->table));
  SLUICE_RETURN_IF_ERROR(ParseShowFromDb(&show->database));
  if (!show->database.empty()) show->table.schema = show->database;
  if (show->what == ShowKind::kIndex) {
    if (AcceptKeyword("WHERE")) SLUICE_RETURN_IF_ERROR(ParseExpr(&show->where));
    return Status::OK();
  }
  return ParseShowFilter(show);
}

// {EXPLAIN | DESCRIBE | DESC} [FORMAT = name] {SELECT | UPDATE | DELETE |
// INSERT | REPLACE} ...: an ExplainStmt. {EXPLAIN | DESCRIBE | DESC} [db.]t
// [col | 'pattern']: SHOW COLUMNS with `like`.
Status Parser::Impl::ParseDescribe(std::unique_ptr<Stmt>* out) {
  Take();  // EXPLAIN / DESCRIBE / DESC
  std::string format;
  if (PeekKeyword("FORMAT") && PeekPunct(Punct::kEq, 1)) {
    Take();
    Take();
    if (Peek().kind == TokenKind::kString) {
      format = Take().text;
    } else {
      SLUICE_RETURN_IF_ERROR(ParseIdent(&format));
    }
    format = AsciiUpper(format);
  }
  for (std::string_view kw : {"SELECT", "UPDATE", "DELETE", "INSERT", "REPLACE"}) {
    if (!PeekKeyword(kw)) continue;
    auto e = std::make_unique<ExplainStmt>();
    e->format = std::move(format);
    SLUICE_RETURN_IF_ERROR(ParseStatement(&e->stmt));
    *out = std::move(e);
    return Status::OK();
  }
  if (!format.empty()) return Error();
  auto s = std::make_unique<ShowStmt>();
  s->what = ShowKind::kColumns;
  SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
  if (!AtStatementEnd()) {
    std::string column;
    if (Peek().kind == TokenKind::kString) {
      column = Take().text;
    } else {
      SLUICE_RETURN_IF_ERROR(ParseIdent(&column));
    }
    s->like = std::move(column);
  }
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ CREATE / DROP

Status Parser::Impl::ParseCreate(std::unique_ptr<Stmt>* out) {
  Take();  // CREATE
  if (AcceptKeyword("USER")) return ParseCreateOrAlterUser(/*alter=*/false, out);
  if (AcceptKeyword("DATABASE") || AcceptKeyword("SCHEMA")) return ParseCreateDatabase(out);
  const bool temporary = AcceptKeyword("TEMPORARY");
  if (AcceptKeyword("TABLE")) return ParseCreateTable(temporary, out);
  if (temporary) return Error();
  IndexSpec::Kind kind = IndexSpec::Kind::kKey;
  if (AcceptKeyword("UNIQUE")) {
    kind = IndexSpec::Kind::kUnique;
  } else if (AcceptKeyword("FULLTEXT")) {
    kind = IndexSpec::Kind::kFulltext;
  } else if (AcceptKeyword("SPATIAL")) {
    kind = IndexSpec::Kind::kSpatial;
  }
  if (AcceptKeyword("INDEX")) return ParseCreateIndex(kind, out);
  return Error();
}

Status Parser::Impl::ParseDrop(std::unique_ptr<Stmt>* out) {
  Take();  // DROP
  if (AcceptKeyword("USER")) {
    auto s = std::make_unique<DropUserStmt>();
    s->if_exists = AcceptIfExists();
    SLUICE_RETURN_IF_ERROR(ParseUserList(&s->users));
    *out = std::move(s);
    return Status::OK();
  }
  if (AcceptKeyword("DATABASE") || AcceptKeyword("SCHEMA")) {
    auto s = std::make_unique<DropDatabaseStmt>();
    s->if_exists = AcceptIfExists();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
    *out = std::move(s);
    return Status::OK();
  }
  const bool temporary = AcceptKeyword("TEMPORARY");
  if (AcceptKeyword("TABLE") || AcceptKeyword("TABLES")) {
    auto s = std::make_unique<DropTableStmt>();
    s->temporary = temporary;
    s->if_exists = AcceptIfExists();
    do {
      TableRef t;
      SLUICE_RETURN_IF_ERROR(ParseTableName(&t));
      s->tables.push_back(std::move(t));
    } while (AcceptPunct(Punct::kComma));
    if (!AcceptKeyword("RESTRICT")) AcceptKeyword("CASCADE");  // accepted, no effect (as in MySQL)
    *out = std::move(s);
    return Status::OK();
  }
  if (temporary) return Error();
  if (AcceptKeyword("PREPARE")) return ParseDeallocatePrepareName(out);
  if (AcceptKeyword("INDEX")) {
    auto s = std::make_unique<DropIndexStmt>();
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("ON"));
    SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
    SLUICE_RETURN_IF_ERROR(ParseAlterAlgorithmAndLock());
    *out = std::move(s);
    return Status::OK();
  }
  return Error();
}

// PREPARE name FROM {'text' | @variable}
Status Parser::Impl::ParsePrepare(std::unique_ptr<Stmt>* out) {
  Take();  // PREPARE
  auto s = std::make_unique<PrepareStmt>();
  SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
  if (Peek().kind == TokenKind::kUserVar) {
    s->from_variable = true;
    s->variable = Take().text;
  } else {
    SLUICE_RETURN_IF_ERROR(ParseString(&s->text));
  }
  *out = std::move(s);
  return Status::OK();
}

// EXECUTE name [USING @a [, @b] ...]
Status Parser::Impl::ParseExecute(std::unique_ptr<Stmt>* out) {
  Take();  // EXECUTE
  auto s = std::make_unique<ExecuteStmt>();
  SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
  if (AcceptKeyword("USING")) {
    do {
      if (Peek().kind != TokenKind::kUserVar) return Error();
      s->using_variables.push_back(Take().text);
    } while (AcceptPunct(Punct::kComma));
  }
  *out = std::move(s);
  return Status::OK();
}

Status Parser::Impl::ParseDeallocatePrepareName(std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<DeallocatePrepareStmt>();
  SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
  *out = std::move(s);
  return Status::OK();
}

// CREATE {DATABASE | SCHEMA} [IF NOT EXISTS] name
//   [[DEFAULT] CHARACTER SET [=] x | [DEFAULT] COLLATE [=] y | [DEFAULT] ENCRYPTION [=] 'N'] ...
Status Parser::Impl::ParseCreateDatabase(std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<CreateDatabaseStmt>();
  s->if_not_exists = AcceptIfNotExists();
  SLUICE_RETURN_IF_ERROR(ParseIdent(&s->name));
  for (;;) {
    const bool had_default = AcceptKeyword("DEFAULT");
    if (AcceptCharsetKeyword()) {
      AcceptPunct(Punct::kEq);
      SLUICE_RETURN_IF_ERROR(ParseCharsetOrDefault(&s->charset));
    } else if (AcceptKeyword("COLLATE")) {
      AcceptPunct(Punct::kEq);
      SLUICE_RETURN_IF_ERROR(ParseCharsetOrDefault(&s->collation));
    } else if (AcceptKeyword("ENCRYPTION")) {
      AcceptPunct(Punct::kEq);
      std::string ignored;
      SLUICE_RETURN_IF_ERROR(ParseString(&ignored));
    } else if (had_default) {
      return Error();
    } else {
      break;
    }
  }
  *out = std::move(s);
  return Status::OK();
}

// CREATE [TEMPORARY] TABLE [IF NOT EXISTS] [db.]t
//   {(create_definition, ...) [table_options] | LIKE u | (LIKE u)}
Status Parser::Impl::ParseCreateTable(bool temporary, std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<CreateTableStmt>();
  s->temporary = temporary;
  s->if_not_exists = AcceptIfNotExists();
  SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
  const bool parenthesized_like = PeekPunct(Punct::kLParen) && PeekKeyword("LIKE", 1);
  if (parenthesized_like) Take();
  if (AcceptKeyword("LIKE")) {
    TableRef like;
    SLUICE_RETURN_IF_ERROR(ParseTableName(&like));
    if (parenthesized_like) SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    s->like = std::move(like);
    *out = std::move(s);
    return Status::OK();
  }
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
  do {
    SLUICE_RETURN_IF_ERROR(ParseTableElement(s.get()));
  } while (AcceptPunct(Punct::kComma));
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
  SLUICE_RETURN_IF_ERROR(ParseTableOptions(&s->options));
  *out = std::move(s);
  return Status::OK();
}

// CREATE [UNIQUE|FULLTEXT|SPATIAL] INDEX name [USING type] ON [db.]t (key_part, ...)
//   [index_option ...] [ALGORITHM [=] x | LOCK [=] x ...]
Status Parser::Impl::ParseCreateIndex(IndexSpec::Kind kind, std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<CreateIndexStmt>();
  s->index.kind = kind;
  SLUICE_RETURN_IF_ERROR(ParseIdent(&s->index.name));
  if (AcceptKeyword("USING")) SLUICE_RETURN_IF_ERROR(ParseIndexType());
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("ON"));
  SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
  SLUICE_RETURN_IF_ERROR(ParseKeyParts(&s->index.parts));
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
  SLUICE_RETURN_IF_ERROR(ParseIndexOptions(&s->index));
  SLUICE_RETURN_IF_ERROR(ParseAlterAlgorithmAndLock());
  *out = std::move(s);
  return Status::OK();
}

// [ALGORITHM [=] {DEFAULT|INPLACE|COPY|INSTANT} | LOCK [=] {DEFAULT|NONE|SHARED|EXCLUSIVE}] ...
// Accepted and ignored.
Status Parser::Impl::ParseAlterAlgorithmAndLock() {
  for (;;) {
    if (AcceptKeyword("ALGORITHM")) {
      AcceptPunct(Punct::kEq);
      if (!AcceptKeyword("DEFAULT") && !AcceptKeyword("INPLACE") && !AcceptKeyword("COPY") &&
          !AcceptKeyword("INSTANT")) {
        return Error();
      }
    } else if (AcceptKeyword("LOCK")) {
      AcceptPunct(Punct::kEq);
      if (!AcceptKeyword("DEFAULT") && !AcceptKeyword("NONE") && !AcceptKeyword("SHARED") &&
          !AcceptKeyword("EXCLUSIVE")) {
        return Error();
      }
    } else {
      return Status::OK();
    }
  }
}

// One create_definition: a column, an index, a FOREIGN KEY or a CHECK.
Status Parser::Impl::ParseTableElement(CreateTableStmt* s) {
  std::string symbol;  // CONSTRAINT symbol
  const bool constraint = AcceptKeyword("CONSTRAINT");
  if (constraint && !PeekKeyword("PRIMARY") && !PeekKeyword("UNIQUE") && !PeekKeyword("FOREIGN") &&
      !PeekKeyword("CHECK")) {
    SLUICE_RETURN_IF_ERROR(ParseIdent(&symbol));
  }
  IndexSpec index;
  if (AcceptKeyword("PRIMARY")) {
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("KEY"));
    index.kind = IndexSpec::Kind::kPrimary;
    SLUICE_RETURN_IF_ERROR(ParseIndexAfterKind(&index));
    index.name.clear();  // the primary key is always named PRIMARY
  } else if (AcceptKeyword("UNIQUE")) {
    if (!AcceptKeyword("INDEX")) AcceptKeyword("KEY");
    index.kind = IndexSpec::Kind::kUnique;
    SLUICE_RETURN_IF_ERROR(ParseIndexAfterKind(&index));
    if (index.name.empty()) index.name = symbol;
  } else if (PeekKeyword("FOREIGN")) {
    ForeignKeySpec fk;
    fk.name = symbol;
    SLUICE_RETURN_IF_ERROR(ParseForeignKey(&fk));
    s->foreign_keys.push_back(std::move(fk));
    return Status::OK();
  } else if (PeekKeyword("CHECK")) {
    CheckSpec check;
    check.name = symbol;
    SLUICE_RETURN_IF_ERROR(ParseCheckConstraint(&check));
    s->checks.push_back(std::move(check));
    return Status::OK();
  } else if (constraint) {
    return Error();
  } else if (AcceptKeyword("INDEX") || AcceptKeyword("KEY")) {
    index.kind = IndexSpec::Kind::kKey;
    SLUICE_RETURN_IF_ERROR(ParseIndexAfterKind(&index));
  } else if (PeekKeyword("FULLTEXT") || PeekKeyword("SPATIAL")) {
    index.kind = Take().IsKeyword("FULLTEXT") ? IndexSpec::Kind::kFulltext
                                              : IndexSpec::Kind::kSpatial;
    if (!AcceptKeyword("INDEX")) AcceptKeyword("KEY");
    SLUICE_RETURN_IF_ERROR(ParseIndexAfterKind(&index));
  } else {
    ColumnDefinition col;
    SLUICE_RETURN_IF_ERROR(ParseColumnDefinition(s, &col));
    s->columns.push_back(std::move(col));
    return Status::OK();
  }
  s->indexes.push_back(std::move(index));
  return Status::OK();
}

// After PRIMARY KEY / UNIQUE [KEY] / KEY / INDEX / FULLTEXT / SPATIAL:
// [name] [USING type] (key_part, ...) [index_option ...]
Status Parser::Impl::ParseIndexAfterKind(IndexSpec* index) {
  if (!PeekPunct(Punct::kLParen) && !PeekKeyword("USING")) {
    SLUICE_RETURN_IF_ERROR(ParseIdent(&index->name));
  }
  if (AcceptKeyword("USING")) SLUICE_RETURN_IF_ERROR(ParseIndexType());
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
  SLUICE_RETURN_IF_ERROR(ParseKeyParts(&index->parts));
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
  return ParseIndexOptions(index);
}

Status Parser::Impl::ParseIndexType() {
  if (AcceptKeyword("BTREE") || AcceptKeyword("HASH") || AcceptKeyword("RTREE")) {
    return Status::OK();
  }
  return Error();
}

// col [(length)] [ASC | DESC], ... Functional key parts ((expr)) are not
// supported: 1064 at their '('.
Status Parser::Impl::ParseKeyParts(std::vector<IndexPartSpec>* parts) {
  do {
    IndexPartSpec part;
    SLUICE_RETURN_IF_ERROR(ParseIdent(&part.column));
    if (AcceptPunct(Punct::kLParen)) {
      SLUICE_RETURN_IF_ERROR(ParseSmallInt(&part.prefix_length));
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    }
    if (AcceptKeyword("DESC")) {
      part.desc = true;
    } else {
      AcceptKeyword("ASC");
    }
    parts->push_back(std::move(part));
  } while (AcceptPunct(Punct::kComma));
  return Status::OK();
}

// USING type | KEY_BLOCK_SIZE [=] n | COMMENT 'x' | VISIBLE | INVISIBLE | WITH PARSER p ...
Status Parser::Impl::ParseIndexOptions(IndexSpec* index) {
  for (;;) {
    if (AcceptKeyword("USING")) {
      SLUICE_RETURN_IF_ERROR(ParseIndexType());
    } else if (AcceptKeyword("KEY_BLOCK_SIZE")) {
      AcceptPunct(Punct::kEq);
      uint64_t ignored;
      SLUICE_RETURN_IF_ERROR(ParseUnsigned(&ignored));
    } else if (AcceptKeyword("COMMENT")) {
      SLUICE_RETURN_IF_ERROR(ParseString(&index->comment));
    } else if (AcceptKeyword("VISIBLE") || AcceptKeyword("INVISIBLE")) {
      // Index visibility only steers the optimizer.
    } else if (PeekKeyword("WITH") && PeekKeyword("PARSER", 1)) {
      Take();
      Take();
      std::string ignored;
      SLUICE_RETURN_IF_ERROR(ParseIdent(&ignored));
    } else {
      return Status::OK();
    }
  }
}

Status Parser::Impl::ParseParenthesizedExprText(std::string* text) {
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
  const uint32_t begin = Peek().offset;
  ExprPtr ignored;
  SLUICE_RETURN_IF_ERROR(ParseExpr(&ignored));
  *text = std::string(query_.substr(begin, last_end_ - begin));
  return ExpectPunct(Punct::kRParen);
}

// CHECK (expr) [[NOT] ENFORCED]: the expression's text and enforcement.
Status Parser::Impl::ParseCheckConstraint(CheckSpec* check) {
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("CHECK"));
  SLUICE_RETURN_IF_ERROR(ParseParenthesizedExprText(&check->expr));
  check->enforced = true;
  if (PeekKeyword("NOT") && PeekKeyword("ENFORCED", 1)) {
    Take();
    Take();
    check->enforced = false;
  } else {
    AcceptKeyword("ENFORCED");
  }
  return Status::OK();
}

// REFERENCES [db.]t [(col, ...)] [MATCH FULL|PARTIAL|SIMPLE]
//   [ON DELETE action] [ON UPDATE action]
Status Parser::Impl::ParseReferences(ForeignKeySpec* fk) {
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("REFERENCES"));
  SLUICE_RETURN_IF_ERROR(ParseTableName(&fk->ref_table));
  if (AcceptPunct(Punct::kLParen)) {
    do {
      std::string col;
      SLUICE_RETURN_IF_ERROR(ParseIdent(&col));
      fk->ref_columns.push_back(std::move(col));
    } while (AcceptPunct(Punct::kComma));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
  }
  if (AcceptKeyword("MATCH")) {
    if (!AcceptKeyword("FULL") && !AcceptKeyword("PARTIAL") && !AcceptKeyword("SIMPLE")) {
      return Error();
    }
  }
  while (PeekKeyword("ON") && (PeekKeyword("DELETE", 1) || PeekKeyword("UPDATE", 1))) {
    Take();
    ForeignKeySpec::Action* action = Take().IsKeyword("DELETE") ? &fk->on_delete : &fk->on_update;
    if (AcceptKeyword("RESTRICT")) {
      *action = ForeignKeySpec::Action::kRestrict;
    } else if (AcceptKeyword("CASCADE")) {
      *action = ForeignKeySpec::Action::kCascade;
    } else if (AcceptKeyword("SET")) {
      if (AcceptKeyword("NULL")) {
        *action = ForeignKeySpec::Action::kSetNull;
      } else if (AcceptKeyword("DEFAULT")) {
        *action = ForeignKeySpec::Action::kSetDefault;
      } else {
        return Error();
      }
    } else if (AcceptKeyword("NO")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("ACTION"));
      *action = ForeignKeySpec::Action::kNoAction;
    } else {
      return Error();
    }
  }
  return Status::OK();
}

// FOREIGN KEY [index_name] (col, ...) REFERENCES ...
Status Parser::Impl::ParseForeignKey(ForeignKeySpec* fk) {
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("FOREIGN"));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("KEY"));
  if (!PeekPunct(Punct::kLParen)) SLUICE_RETURN_IF_ERROR(ParseIdent(&fk->index_name));
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
  std::vector<IndexPartSpec> parts;
  SLUICE_RETURN_IF_ERROR(ParseKeyParts(&parts));
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
  for (IndexPartSpec& p : parts) fk->columns.push_back(std::move(p.column));
  return ParseReferences(fk);
}

// name data_type [column_attribute ...]
Status Parser::Impl::ParseColumnDefinition(CreateTableStmt* s, ColumnDefinition* col) {
  SLUICE_RETURN_IF_ERROR(ParseIdent(&col->name));
  bool serial = false;
  SLUICE_RETURN_IF_ERROR(ParseDataType(&col->type, &serial));
  auto serial_attributes = [col]() {
    // SERIAL and SERIAL DEFAULT VALUE: NOT NULL AUTO_INCREMENT UNIQUE.
    col->nullable = false;
    col->auto_increment = true;
    col->unique = true;
  };
  if (serial) serial_attributes();
  for (;;) {
    if (PeekKeyword("NOT") && PeekKeyword("NULL", 1)) {
      Take();
      Take();
      col->nullable = false;
    } else if (AcceptKeyword("NULL")) {
      col->nullable = true;
    } else if (AcceptKeyword("DEFAULT")) {
      if (PeekKeyword("SERIAL") && PeekKeyword("VALUE", 1)) {
        Take();
        Take();
        serial_attributes();
      } else {
        SLUICE_RETURN_IF_ERROR(ParseColumnDefault(&col->default_value));
      }
    } else if (PeekKeyword("ON") && PeekKeyword("UPDATE", 1)) {
      Take();
      Take();
      ExprPtr ignored;
      bool matched = false;
      SLUICE_RETURN_IF_ERROR(ParseNowFunction(&ignored, &matched));
      if (!matched) return Error();
      col->on_update_now = true;
    } else if (AcceptKeyword("AUTO_INCREMENT")) {
      col->auto_increment = true;
    } else if (AcceptKeyword("PRIMARY")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("KEY"));
      col->primary_key = true;
    } else if (AcceptKeyword("KEY")) {
      col->primary_key = true;
    } else if (AcceptKeyword("UNIQUE")) {
      AcceptKeyword("KEY");
      col->unique = true;
    } else if (AcceptKeyword("COMMENT")) {
      SLUICE_RETURN_IF_ERROR(ParseString(&col->comment));
    } else if (AcceptKeyword("COLLATE")) {
      SLUICE_RETURN_IF_ERROR(ParseCharsetName(&col->type.collation));
      col->type.collation = AsciiLower(col->type.collation);
    } else if (AcceptKeyword("COLUMN_FORMAT")) {
      if (!AcceptKeyword("FIXED") && !AcceptKeyword("DYNAMIC") && !AcceptKeyword("DEFAULT")) {
        return Error();
      }
    } else if (AcceptKeyword("STORAGE")) {
      if (!AcceptKeyword("DISK") && !AcceptKeyword("MEMORY")) return Error();
    } else if (AcceptKeyword("VISIBLE") || AcceptKeyword("INVISIBLE")) {
      // Accepted; ColumnDefinition has no field for an invisible column.
    } else if (PeekKeyword("CHECK") || (PeekKeyword("CONSTRAINT"))) {
      CheckSpec check;
      if (AcceptKeyword("CONSTRAINT") && !PeekKeyword("CHECK")) {
        SLUICE_RETURN_IF_ERROR(ParseIdent(&check.name));
      }
      SLUICE_RETURN_IF_ERROR(ParseCheckConstraint(&check));
      check.column = col->name;
      s->checks.push_back(std::move(check));
    } else if (PeekKeyword("REFERENCES")) {
      // MySQL 8.0 parses and ignores a column-level REFERENCES.
      ForeignKeySpec ignored;
      SLUICE_RETURN_IF_ERROR(ParseReferences(&ignored));
    } else if ((PeekKeyword("GENERATED") && PeekKeyword("ALWAYS", 1)) || PeekKeyword("AS")) {
      if (AcceptKeyword("GENERATED")) SLUICE_RETURN_IF_ERROR(ExpectKeyword("ALWAYS"));
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("AS"));
      SLUICE_RETURN_IF_ERROR(ParseParenthesizedExprText(&col->generated_expr));
      if (AcceptKeyword("STORED")) {
        col->generated_stored = true;
      } else {
        AcceptKeyword("VIRTUAL");
      }
    } else {
      // Anything else: the caller reports 1064 here unless a ',' or ')'
      // follows.
      return Status::OK();
    }
  }
}

// DEFAULT's value: a literal, a signed number, (expr) or CURRENT_TIMESTAMP
// and its synonyms.
Status Parser::Impl::ParseColumnDefault(ExprPtr* out) {
  const Token& t = Peek();
  if (t.Is(Punct::kLParen)) {
    Token open = Take();
    SLUICE_RETURN_IF_ERROR(ParseExpr(out));
    if (!PeekPunct(Punct::kRParen)) return Error();
    Token close = Take();
    (*out)->begin = open.offset;
    (*out)->end = close.end;
    return Status::OK();
  }
  if (t.Is(Punct::kMinus) || t.Is(Punct::kPlus)) {
    Token sign = Take();
    const TokenKind k = Peek().kind;
    if (k != TokenKind::kInteger && k != TokenKind::kDecimal && k != TokenKind::kFloat) {
      return Error();
    }
    Token n = Take();
    ExprPtr number;
    SLUICE_RETURN_IF_ERROR(ParseNumber(n, &number));
    if (sign.punct == Punct::kMinus) {
      *out = MakeUnary(Op::kNeg, sign.offset, std::move(number));
    } else {
      number->begin = sign.offset;
      *out = std::move(number);
    }
    return Status::OK();
  }
  bool matched = false;
  SLUICE_RETURN_IF_ERROR(ParseNowFunction(out, &matched));
  if (matched) return Status::OK();
  switch (t.kind) {
    case TokenKind::kInteger:
    case TokenKind::kDecimal:
    case TokenKind::kFloat:
    case TokenKind::kString:
    case TokenKind::kHex:
    case TokenKind::kBit:
      return ParsePrimary(out);
    case TokenKind::kIdent:
      if (t.IsKeyword("NULL") || t.IsKeyword("TRUE") || t.IsKeyword("FALSE") ||
          ((t.IsKeyword("DATE") || t.IsKeyword("TIME") || t.IsKeyword("TIMESTAMP")) &&
           Peek(1).kind == TokenKind::kString)) {
        return ParsePrimary(out);
      }
      return Error();
    default:
      return Error();
  }
}

// CURRENT_TIMESTAMP[([n])] | LOCALTIME[([n])] | LOCALTIMESTAMP[([n])] | NOW([n]):
// a kFunction named CURRENT_TIMESTAMP with the precision as its argument.
// *matched is false (and nothing is consumed) for anything else.
Status Parser::Impl::ParseNowFunction(ExprPtr* out, bool* matched) {
  *matched = false;
  const Token& t = Peek();
  const bool keyword = t.IsKeyword("CURRENT_TIMESTAMP") || t.IsKeyword("LOCALTIME") ||
                       t.IsKeyword("LOCALTIMESTAMP");
  const bool now = t.IsKeyword("NOW") && PeekPunct(Punct::kLParen, 1);
  if (!keyword && !now) return Status::OK();
  *matched = true;
  Token w = Take();
  auto e = MakeExpr(ExprKind::kFunction, w.offset, w.end);
  e->name = "CURRENT_TIMESTAMP";
  if (AcceptPunct(Punct::kLParen)) {
    if (Peek().kind == TokenKind::kInteger) {
      Token n = Take();
      ExprPtr fsp;
      SLUICE_RETURN_IF_ERROR(ParseNumber(n, &fsp));
      e->args.push_back(std::move(fsp));
    }
    if (!PeekPunct(Punct::kRParen)) return Error();
    e->end = Take().end;
  }
  *out = std::move(e);
  return Status::OK();
}

namespace {

// Integer type names and their synonyms.
const char* IntegerTypeName(std::string_view upper) {
  if (upper == "TINYINT" || upper == "INT1") return "TINYINT";
  if (upper == "SMALLINT" || upper == "INT2") return "SMALLINT";
  if (upper == "MEDIUMINT" || upper == "MIDDLEINT" || upper == "INT3") return "MEDIUMINT";
  if (upper == "INT" || upper == "INTEGER" || upper == "INT4") return "INT";
  if (upper == "BIGINT" || upper == "INT8") return "BIGINT";
  return nullptr;
}

// CHARACTER SET binary turns a text type into its binary twin, as in MySQL.
void FoldBinaryCharset(DataType* type) {
  if (type->charset != "binary") return;
  static const std::pair<const char*, const char*> kTwins[] = {
      {"CHAR", "BINARY"},         {"VARCHAR", "VARBINARY"},   {"TINYTEXT", "TINYBLOB"},
      {"TEXT", "BLOB"},           {"MEDIUMTEXT", "MEDIUMBLOB"}, {"LONGTEXT", "LONGBLOB"},
  };
  for (const auto& [text, binary] : kTwins) {
    if (type->name == text) {
      type->name = binary;
      type->charset.clear();
      return;
    }
  }
}

}  // namespace

// (M) or (M,D); with scale_required only (M,D).
Status Parser::Impl::ParseTypePrecision(DataType* type, bool scale_required) {
  if (!AcceptPunct(Punct::kLParen)) return Status::OK();
  SLUICE_RETURN_IF_ERROR(ParseSmallInt(&type->length));
  if (AcceptPunct(Punct::kComma)) {
    SLUICE_RETURN_IF_ERROR(ParseSmallInt(&type->scale));
  } else if (scale_required) {
    return Error();
  }
  return ExpectPunct(Punct::kRParen);
}

// After a text type: CHARACTER SET x | CHARSET x | BINARY | ASCII | UNICODE | BYTE.
Status Parser::Impl::ParseStringTypeOptions(DataType* type) {
  for (;;) {
    if (AcceptCharsetKeyword()) {
      SLUICE_RETURN_IF_ERROR(ParseCharsetName(&type->charset));
      type->charset = AsciiLower(type->charset);
    } else if (AcceptKeyword("BINARY")) {
      type->binary = true;
    } else if (AcceptKeyword("ASCII")) {
      type->charset = "latin1";
    } else if (AcceptKeyword("UNICODE")) {
      type->charset = "ucs2";
    } else if (AcceptKeyword("BYTE")) {
      type->charset = "binary";
    } else {
      FoldBinaryCharset(type);
      return Status::OK();
    }
  }
}

Status Parser::Impl::ParseDataType(DataType* type, bool* serial) {
  const Token t = Peek();
  if (t.kind != TokenKind::kIdent) return Error();
  const std::string upper = AsciiUpper(t.text);
  Take();
  bool numeric = false;       // takes UNSIGNED / SIGNED / ZEROFILL
  bool text = false;          // takes CHARACTER SET / BINARY
  bool national = false;      // utf8mb3, takes BINARY only
  if (const char* name = IntegerTypeName(upper)) {
    type->name = name;
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
    numeric = true;
  } else if (upper == "BOOL" || upper == "BOOLEAN") {
    type->name = "TINYINT";
    type->length = 1;
  } else if (upper == "SERIAL") {
    type->name = "BIGINT";
    type->is_unsigned = true;
    *serial = true;
  } else if (upper == "BIT") {
    type->name = "BIT";
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
  } else if (upper == "DECIMAL" || upper == "DEC" || upper == "NUMERIC" || upper == "FIXED") {
    type->name = "DECIMAL";
    SLUICE_RETURN_IF_ERROR(ParseTypePrecision(type, /*scale_required=*/false));
    numeric = true;
  } else if (upper == "FLOAT" || upper == "FLOAT4") {
    type->name = "FLOAT";
    SLUICE_RETURN_IF_ERROR(ParseTypePrecision(type, /*scale_required=*/false));
    // FLOAT(p) with p > 24 is a DOUBLE; `length` keeps p.
    if (type->scale < 0 && type->length > 24) type->name = "DOUBLE";
    numeric = true;
  } else if (upper == "DOUBLE" || upper == "REAL" || upper == "FLOAT8") {
    type->name = "DOUBLE";
    if (upper == "DOUBLE") AcceptKeyword("PRECISION");
    SLUICE_RETURN_IF_ERROR(ParseTypePrecision(type, /*scale_required=*/true));
    numeric = true;
  } else if (upper == "CHAR" || upper == "CHARACTER") {
    type->name = AcceptKeyword("VARYING") ? "VARCHAR" : "CHAR";
    text = true;
  } else if (upper == "VARCHAR" || upper == "VARCHARACTER") {
    type->name = "VARCHAR";
    text = true;
  } else if (upper == "NCHAR") {
    type->name = AcceptKeyword("VARCHAR") || AcceptKeyword("VARYING") ? "VARCHAR" : "CHAR";
    national = true;
  } else if (upper == "NVARCHAR") {
    type->name = "VARCHAR";
    national = true;
  } else if (upper == "NATIONAL") {
    if (AcceptKeyword("VARCHAR")) {
      type->name = "VARCHAR";
    } else if (AcceptKeyword("CHAR") || AcceptKeyword("CHARACTER")) {
      type->name = AcceptKeyword("VARYING") ? "VARCHAR" : "CHAR";
    } else {
      return Error();
    }
    national = true;
  } else if (upper == "BINARY") {
    type->name = "BINARY";
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
  } else if (upper == "VARBINARY") {
    type->name = "VARBINARY";
    if (!PeekPunct(Punct::kLParen)) return Error();
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
  } else if (upper == "TINYTEXT" || upper == "MEDIUMTEXT" || upper == "LONGTEXT") {
    type->name = upper;
    text = true;
  } else if (upper == "TEXT") {
    type->name = "TEXT";
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
    text = true;
  } else if (upper == "TINYBLOB" || upper == "MEDIUMBLOB" || upper == "LONGBLOB") {
    type->name = upper;
  } else if (upper == "BLOB") {
    type->name = "BLOB";
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
  } else if (upper == "LONG") {
    // LONG VARBINARY is MEDIUMBLOB; LONG [VARCHAR | CHAR VARYING] is MEDIUMTEXT.
    if (AcceptKeyword("VARBINARY")) {
      type->name = "MEDIUMBLOB";
    } else {
      if (PeekKeyword("CHAR") && PeekKeyword("VARYING", 1)) {
        Take();
        Take();
      } else {
        AcceptKeyword("VARCHAR");
      }
      type->name = "MEDIUMTEXT";
      text = true;
    }
  } else if (upper == "DATE" || upper == "JSON") {
    type->name = upper;
  } else if (upper == "TIME" || upper == "DATETIME" || upper == "TIMESTAMP" || upper == "YEAR") {
    type->name = upper;
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
  } else if (upper == "ENUM" || upper == "SET") {
    type->name = upper;
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
    do {
      std::string value;
      SLUICE_RETURN_IF_ERROR(ParseString(&value));
      type->values.push_back(std::move(value));
    } while (AcceptPunct(Punct::kComma));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    text = true;
  } else {
    return ErrorAt(t);
  }
  if ((text || national) && (type->name == "CHAR" || type->name == "VARCHAR")) {
    // VARCHAR needs its length; CHAR's is optional.
    if (type->name == "VARCHAR" && !PeekPunct(Punct::kLParen)) return Error();
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&type->length));
  }
  if (numeric) {
    for (;;) {
      if (AcceptKeyword("UNSIGNED")) {
        type->is_unsigned = true;
      } else if (AcceptKeyword("ZEROFILL")) {
        type->zerofill = true;
        type->is_unsigned = true;
      } else if (!AcceptKeyword("SIGNED")) {
        break;
      }
    }
  }
  if (national) {
    type->charset = "utf8mb3";
    if (AcceptKeyword("BINARY")) type->binary = true;
  }
  if (text) SLUICE_RETURN_IF_ERROR(ParseStringTypeOptions(type));
  return Status::OK();
}

// [table_option] [[,] table_option] ...  Unknown options are 1064.
Status Parser::Impl::ParseTableOptions(TableOptions* options) {
  bool need_option = false;  // after a ','
  for (;;) {
    if (!need_option && AtStatementEnd()) return Status::OK();
    bool matched = false;
    SLUICE_RETURN_IF_ERROR(ParseTableOption(options, &matched));
    if (!matched) return Error();
    need_option = AcceptPunct(Punct::kComma);
  }
}

// One table option: ENGINE [=] x | [DEFAULT] CHARACTER SET [=] x |
// [DEFAULT] COLLATE [=] x | COMMENT [=] 'x' | AUTO_INCREMENT [=] n |
// ROW_FORMAT [=] x | ... (the rest accepted and ignored). *matched is false,
// and nothing consumed, when the next token starts no option.
Status Parser::Impl::ParseTableOption(TableOptions* options, bool* matched) {
  *matched = true;
  const bool had_default = AcceptKeyword("DEFAULT");
  std::string ignored;
  uint64_t ignored_number = 0;
  if (AcceptCharsetKeyword()) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseCharsetOrDefault(&options->charset));
  } else if (AcceptKeyword("COLLATE")) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseCharsetOrDefault(&options->collation));
  } else if (had_default) {
    return Error();
  } else if (AcceptKeyword("ENGINE")) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseName(&options->engine));
  } else if (AcceptKeyword("COMMENT")) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseString(&options->comment));
  } else if (AcceptKeyword("AUTO_INCREMENT")) {
    AcceptPunct(Punct::kEq);
    uint64_t n = 0;
    SLUICE_RETURN_IF_ERROR(ParseUnsigned(&n));
    options->auto_increment = n;
  } else if (AcceptKeyword("ROW_FORMAT")) {
    AcceptPunct(Punct::kEq);
    const Token& f = Peek();
    if (!f.IsKeyword("DEFAULT") && !f.IsKeyword("DYNAMIC") && !f.IsKeyword("FIXED") &&
        !f.IsKeyword("COMPRESSED") && !f.IsKeyword("REDUNDANT") && !f.IsKeyword("COMPACT")) {
      return Error();
    }
    options->row_format = Take().text;
  } else if (AcceptKeyword("KEY_BLOCK_SIZE") || AcceptKeyword("AVG_ROW_LENGTH") ||
             AcceptKeyword("MAX_ROWS") || AcceptKeyword("MIN_ROWS") ||
             AcceptKeyword("CHECKSUM") || AcceptKeyword("TABLE_CHECKSUM") ||
             AcceptKeyword("DELAY_KEY_WRITE") || AcceptKeyword("AUTOEXTEND_SIZE")) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseUnsigned(&ignored_number));
  } else if (AcceptKeyword("STATS_PERSISTENT") || AcceptKeyword("STATS_AUTO_RECALC") ||
             AcceptKeyword("STATS_SAMPLE_PAGES") || AcceptKeyword("PACK_KEYS")) {
    AcceptPunct(Punct::kEq);
    if (!AcceptKeyword("DEFAULT")) SLUICE_RETURN_IF_ERROR(ParseUnsigned(&ignored_number));
  } else if (AcceptKeyword("COMPRESSION") || AcceptKeyword("ENCRYPTION") ||
             AcceptKeyword("CONNECTION") || AcceptKeyword("PASSWORD") ||
             AcceptKeyword("ENGINE_ATTRIBUTE") || AcceptKeyword("SECONDARY_ENGINE_ATTRIBUTE")) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseString(&ignored));
  } else if ((PeekKeyword("DATA") || PeekKeyword("INDEX")) && PeekKeyword("DIRECTORY", 1)) {
    Take();
    Take();
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseString(&ignored));
  } else if (AcceptKeyword("INSERT_METHOD")) {
    AcceptPunct(Punct::kEq);
    if (!AcceptKeyword("NO") && !AcceptKeyword("FIRST") && !AcceptKeyword("LAST")) {
      return Error();
    }
  } else if (AcceptKeyword("TABLESPACE")) {
    AcceptPunct(Punct::kEq);
    SLUICE_RETURN_IF_ERROR(ParseIdent(&ignored));
    if (AcceptKeyword("STORAGE")) {
      if (!AcceptKeyword("DISK") && !AcceptKeyword("MEMORY")) return Error();
    }
  } else {
    *matched = false;
  }
  return Status::OK();
}

// ------------------------------------------------------------------ ALTER TABLE / RENAME TABLE

// ALTER TABLE [db.]t [alter_spec [, alter_spec] ...]
Status Parser::Impl::ParseAlterTable(std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<AlterTableStmt>();
  SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
  if (!AtStatementEnd()) {
    do {
      SLUICE_RETURN_IF_ERROR(ParseAlterSpec(s.get()));
    } while (AcceptPunct(Punct::kComma));
  }
  *out = std::move(s);
  return Status::OK();
}

// One alter_spec (AlterSpec lists them), or table options (several may
// follow each other without commas, as in MySQL), or ALGORITHM / LOCK.
Status Parser::Impl::ParseAlterSpec(AlterTableStmt* s) {
  if (AcceptKeyword("ADD")) return ParseAlterAdd(s);
  AlterSpec spec;
  CreateTableStmt scratch;  // collects column CHECKs for ParseColumnDefinition
  if (AcceptKeyword("DROP")) {
    if (AcceptKeyword("PRIMARY")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("KEY"));
      spec.kind = AlterSpec::Kind::kDropPrimaryKey;
    } else if (AcceptKeyword("INDEX") || AcceptKeyword("KEY")) {
      spec.kind = AlterSpec::Kind::kDropIndex;
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
    } else if (PeekKeyword("FOREIGN") && PeekKeyword("KEY", 1)) {
      Take();
      Take();
      spec.kind = AlterSpec::Kind::kDropForeignKey;
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
    } else if (PeekKeyword("CHECK") || PeekKeyword("CONSTRAINT")) {
      spec.kind = AlterSpec::Kind::kDropCheck;
      spec.constraint = Take().IsKeyword("CONSTRAINT");
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
    } else {
      AcceptKeyword("COLUMN");
      spec.kind = AlterSpec::Kind::kDropColumn;
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
    }
  } else if (AcceptKeyword("MODIFY")) {
    AcceptKeyword("COLUMN");
    spec.kind = AlterSpec::Kind::kModifyColumn;
    SLUICE_RETURN_IF_ERROR(ParseColumnDefinition(&scratch, &spec.column));
    spec.name = spec.column.name;
    SLUICE_RETURN_IF_ERROR(ParseColumnPosition(&spec));
  } else if (AcceptKeyword("CHANGE")) {
    AcceptKeyword("COLUMN");
    spec.kind = AlterSpec::Kind::kChangeColumn;
    SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
    SLUICE_RETURN_IF_ERROR(ParseColumnDefinition(&scratch, &spec.column));
    SLUICE_RETURN_IF_ERROR(ParseColumnPosition(&spec));
  } else if (AcceptKeyword("RENAME")) {
    if (AcceptKeyword("COLUMN")) {
      spec.kind = AlterSpec::Kind::kRenameColumn;
    } else if (AcceptKeyword("INDEX") || AcceptKeyword("KEY")) {
      spec.kind = AlterSpec::Kind::kRenameIndex;
    } else {
      if (!AcceptKeyword("TO")) AcceptKeyword("AS");
      spec.kind = AlterSpec::Kind::kRenameTable;
      SLUICE_RETURN_IF_ERROR(ParseTableName(&spec.new_table));
    }
    if (spec.kind != AlterSpec::Kind::kRenameTable) {
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("TO"));
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.new_name));
    }
  } else if (AcceptKeyword("ALTER")) {
    if (PeekKeyword("CHECK") || PeekKeyword("CONSTRAINT")) {
      spec.kind = AlterSpec::Kind::kAlterCheck;
      spec.constraint = Take().IsKeyword("CONSTRAINT");
      SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
      spec.enforced = !AcceptKeyword("NOT");
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("ENFORCED"));
      s->specs.push_back(std::move(spec));
      return Status::OK();
    }
    AcceptKeyword("COLUMN");
    SLUICE_RETURN_IF_ERROR(ParseIdent(&spec.name));
    if (AcceptKeyword("SET")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("DEFAULT"));
      spec.kind = AlterSpec::Kind::kSetDefault;
      SLUICE_RETURN_IF_ERROR(ParseColumnDefault(&spec.default_value));
    } else if (AcceptKeyword("DROP")) {
      SLUICE_RETURN_IF_ERROR(ExpectKeyword("DEFAULT"));
      spec.kind = AlterSpec::Kind::kDropDefault;
    } else {
      return Error();
    }
  } else if (AcceptKeyword("FORCE")) {
    spec.kind = AlterSpec::Kind::kForce;
  } else if ((PeekKeyword("DISABLE") || PeekKeyword("ENABLE")) && PeekKeyword("KEYS", 1)) {
    // What dumps wrap their INSERTs in; InnoDB has no such switch.
    Take();
    Take();
    s->keys_toggled = true;
    return Status::OK();
  } else if (PeekKeyword("ALGORITHM") || PeekKeyword("LOCK")) {
    return ParseAlterAlgorithmAndLock();
  } else {
    bool matched = false;
    SLUICE_RETURN_IF_ERROR(ParseTableOption(&s->options, &matched));
    if (!matched) return Error();
    while (matched) SLUICE_RETURN_IF_ERROR(ParseTableOption(&s->options, &matched));
    return Status::OK();
  }
  for (CheckSpec& c : scratch.checks) s->checks.push_back(std::move(c));
  s->specs.push_back(std::move(spec));
  return Status::OK();
}

// After ADD: [COLUMN] column [FIRST | AFTER col] | [COLUMN] (element, ...) |
// an index or constraint, all parsed as CREATE TABLE's elements.
Status Parser::Impl::ParseAlterAdd(AlterTableStmt* s) {
  CreateTableStmt elements;
  const bool column = AcceptKeyword("COLUMN");
  const bool list = AcceptPunct(Punct::kLParen);
  if (list) {
    do {
      SLUICE_RETURN_IF_ERROR(ParseTableElement(&elements));
    } while (AcceptPunct(Punct::kComma));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
  } else if (column) {
    ColumnDefinition col;
    SLUICE_RETURN_IF_ERROR(ParseColumnDefinition(&elements, &col));
    elements.columns.push_back(std::move(col));
  } else {
    SLUICE_RETURN_IF_ERROR(ParseTableElement(&elements));
  }
  for (ColumnDefinition& col : elements.columns) {
    AlterSpec spec;
    spec.kind = AlterSpec::Kind::kAddColumn;
    spec.name = col.name;
    spec.column = std::move(col);
    if (!list) SLUICE_RETURN_IF_ERROR(ParseColumnPosition(&spec));
    s->specs.push_back(std::move(spec));
  }
  for (IndexSpec& index : elements.indexes) {
    AlterSpec spec;
    spec.kind = AlterSpec::Kind::kAddIndex;
    spec.index = std::move(index);
    s->specs.push_back(std::move(spec));
  }
  for (ForeignKeySpec& f : elements.foreign_keys) s->foreign_keys.push_back(std::move(f));
  for (CheckSpec& c : elements.checks) s->checks.push_back(std::move(c));
  return Status::OK();
}

// [FIRST | AFTER col]
Status Parser::Impl::ParseColumnPosition(AlterSpec* spec) {
  if (AcceptKeyword("FIRST")) {
    spec->position = AlterSpec::Position::kFirst;
  } else if (AcceptKeyword("AFTER")) {
    spec->position = AlterSpec::Position::kAfter;
    SLUICE_RETURN_IF_ERROR(ParseIdent(&spec->after));
  }
  return Status::OK();
}

// After RENAME {TABLE | TABLES}: [db.]a TO [db.]b [, [db.]c TO [db.]d] ...
Status Parser::Impl::ParseRenameTable(std::unique_ptr<Stmt>* out) {
  auto s = std::make_unique<RenameTableStmt>();
  do {
    TableRef from, to;
    SLUICE_RETURN_IF_ERROR(ParseTableName(&from));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("TO"));
    SLUICE_RETURN_IF_ERROR(ParseTableName(&to));
    s->renames.emplace_back(std::move(from), std::move(to));
  } while (AcceptPunct(Punct::kComma));
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ INSERT / UPDATE / DELETE

// (expr | DEFAULT, ...) or ().
Status Parser::Impl::ParseValuesRow(std::vector<ExprPtr>* row) {
  SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
  if (AcceptPunct(Punct::kRParen)) return Status::OK();
  do {
    ExprPtr e;
    SLUICE_RETURN_IF_ERROR(ParseExprOrDefault(&e));
    row->push_back(std::move(e));
  } while (AcceptPunct(Punct::kComma));
  return ExpectPunct(Punct::kRParen);
}

// {INSERT [LOW_PRIORITY|DELAYED|HIGH_PRIORITY] [IGNORE] | REPLACE [LOW_PRIORITY|DELAYED]}
//   [INTO] [db.]t [(col, ...)]
//   {{VALUES | VALUE} (row), ... [AS alias] | SET col = expr, ... [AS alias] |
//    SELECT ... | (SELECT ...)}
//   [ON DUPLICATE KEY UPDATE col = expr, ...]   (INSERT only)
Status Parser::Impl::ParseInsert(bool replace, std::unique_ptr<Stmt>* out) {
  Take();  // INSERT / REPLACE
  auto s = std::make_unique<InsertStmt>();
  s->replace = replace;
  if (!AcceptKeyword("LOW_PRIORITY") && !AcceptKeyword("DELAYED") && !replace) {
    AcceptKeyword("HIGH_PRIORITY");
  }
  if (!replace && AcceptKeyword("IGNORE")) s->ignore = true;
  AcceptKeyword("INTO");
  SLUICE_RETURN_IF_ERROR(ParseTableName(&s->table));
  bool has_columns = false;
  if (PeekPunct(Punct::kLParen) && !PeekKeyword("SELECT", 1)) {
    Take();
    has_columns = true;
    if (!AcceptPunct(Punct::kRParen)) {
      do {
        // [[db.]t.]col: the qualifier must name this table; only col is kept.
        const Token& t = Peek();
        if (t.kind != TokenKind::kQuotedIdent && (t.kind != TokenKind::kIdent || IsReserved(t))) {
          return Error();
        }
        Token first = Take();
        ExprPtr col;
        SLUICE_RETURN_IF_ERROR(ParseColumnRef(std::move(first), &col));
        s->columns.push_back(std::move(col->name));
      } while (AcceptPunct(Punct::kComma));
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    }
  }
  bool allow_alias = true;
  if (AcceptKeyword("VALUES") || AcceptKeyword("VALUE")) {
    do {
      std::vector<ExprPtr> row;
      SLUICE_RETURN_IF_ERROR(ParseValuesRow(&row));
      s->rows.push_back(std::move(row));
    } while (AcceptPunct(Punct::kComma));
  } else if (!has_columns && AcceptKeyword("SET")) {
    std::vector<Assignment> set;
    SLUICE_RETURN_IF_ERROR(ParseAssignments(&set));
    std::vector<ExprPtr> row;
    for (Assignment& a : set) {
      s->columns.push_back(std::move(a.column->name));
      row.push_back(std::move(a.value));
    }
    s->rows.push_back(std::move(row));
  } else if (PeekKeyword("SELECT") || (PeekPunct(Punct::kLParen) && PeekKeyword("SELECT", 1))) {
    const bool parenthesized = AcceptPunct(Punct::kLParen);
    std::unique_ptr<Stmt> select;
    SLUICE_RETURN_IF_ERROR(ParseSelect(&select));
    if (parenthesized) SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    s->select.reset(static_cast<SelectStmt*>(select.release()));
    allow_alias = false;
  } else {
    return Error();
  }
  if (allow_alias && AcceptKeyword("AS")) {
    // AS alias [(col_alias, ...)]: column aliases are not supported (1064 at '(').
    SLUICE_RETURN_IF_ERROR(ParseIdent(&s->row_alias));
  }
  if (!replace && PeekKeyword("ON") && PeekKeyword("DUPLICATE", 1)) {
    Take();
    Take();
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("KEY"));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("UPDATE"));
    SLUICE_RETURN_IF_ERROR(ParseAssignments(&s->on_duplicate));
  }
  *out = std::move(s);
  return Status::OK();
}

// UPDATE [LOW_PRIORITY] [IGNORE] [db.]t [[AS] alias] SET col = expr|DEFAULT, ...
//   [WHERE expr] [ORDER BY ...] [LIMIT n]   (single table)
Status Parser::Impl::ParseUpdate(std::unique_ptr<Stmt>* out) {
  Take();  // UPDATE
  auto s = std::make_unique<UpdateStmt>();
  AcceptKeyword("LOW_PRIORITY");
  if (AcceptKeyword("IGNORE")) s->ignore = true;
  SLUICE_RETURN_IF_ERROR(ParseTableRef(&s->table));
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("SET"));
  SLUICE_RETURN_IF_ERROR(ParseAssignments(&s->set));
  SLUICE_RETURN_IF_ERROR(ParseWhereOrderLimit(&s->where, &s->order_by, &s->limit));
  *out = std::move(s);
  return Status::OK();
}

// DELETE [LOW_PRIORITY] [QUICK] [IGNORE] FROM [db.]t [[AS] alias]
//   [WHERE expr] [ORDER BY ...] [LIMIT n]   (single table)
Status Parser::Impl::ParseDelete(std::unique_ptr<Stmt>* out) {
  Take();  // DELETE
  auto s = std::make_unique<DeleteStmt>();
  for (;;) {
    if (AcceptKeyword("LOW_PRIORITY")) {
    } else if (AcceptKeyword("QUICK")) {
      s->quick = true;
    } else if (AcceptKeyword("IGNORE")) {
      s->ignore = true;
    } else {
      break;
    }
  }
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
  SLUICE_RETURN_IF_ERROR(ParseTableRef(&s->table));
  SLUICE_RETURN_IF_ERROR(ParseWhereOrderLimit(&s->where, &s->order_by, &s->limit));
  *out = std::move(s);
  return Status::OK();
}

// ------------------------------------------------------------------ expressions

template <typename List>
Status Parser::Impl::ParseExprList(List* out) {
  do {
    ExprPtr e;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&e));
    out->push_back(std::move(e));
  } while (AcceptPunct(Punct::kComma));
  return Status::OK();
}

Status Parser::Impl::EnterLevel() {
  ++depth_;
  if (depth_ > kMaxParseDepth) return StackOverrunError(depth_ * kStackPerParseLevel);
  return CheckStack();
}

Status Parser::Impl::CheckHeight(Expr* root) {
  if (root == nullptr) return Status::OK();
  if (root->height == 0) {
    // Post-order over the nodes still without a height; the ones below a
    // nested ParseExpr have theirs already, so each node is visited once.
    auto& stack = height_stack_;  // kept: no allocation per expression
    stack.assign(1, root);
    while (!stack.empty()) {
      Expr* e = stack.back();
      bool ready = true;
      for (const ExprPtr& a : e->args) {
        if (a != nullptr && a->height == 0) {
          stack.push_back(a.get());
          ready = false;
        }
      }
      if (!ready) continue;
      stack.pop_back();
      uint32_t below = 0;
      for (const ExprPtr& a : e->args) {
        if (a != nullptr) below = std::max(below, a->height);
      }
      if (e->subquery != nullptr) {
        auto it = subquery_heights_.find(e->subquery.get());
        if (it != subquery_heights_.end()) below = std::max(below, it->second);
      }
      e->height = below + 1;
    }
  }
  max_height_ = std::max(max_height_, root->height);
  if (root->height > kMaxExprHeight) {
    // What walking it would take, at what walking this far took.
    return StackOverrunError(root->height * kStackPerExprLevel);
  }
  return Status::OK();
}

ExprPtr Parser::Impl::MakeLogicalChain(Op op, std::vector<ExprPtr> terms) {
  // Short chains keep the left-deep shape (and printed form) they always had.
  constexpr size_t kBalanceFrom = 64;
  if (terms.size() < kBalanceFrom) {
    ExprPtr out = std::move(terms[0]);
    for (size_t i = 1; i < terms.size(); ++i) out = MakeBinary(op, std::move(out), std::move(terms[i]));
    return out;
  }
  return MakeBalanced(op, terms, 0, terms.size());
}

// Recursion depth log2(to - from).
ExprPtr Parser::Impl::MakeBalanced(Op op, std::vector<ExprPtr>& terms, size_t from, size_t to) {
  if (to - from == 1) return std::move(terms[from]);
  const size_t mid = from + (to - from) / 2;
  ExprPtr l = MakeBalanced(op, terms, from, mid);
  ExprPtr r = MakeBalanced(op, terms, mid, to);
  return MakeBinary(op, std::move(l), std::move(r));
}

// Every expression passes through here, so here the parser's recursion is
// counted and the finished tree's height checked.
Status Parser::Impl::ParseExpr(ExprPtr* out) {
  Nesting nesting(this);
  SLUICE_RETURN_IF_ERROR(nesting.status());
  SLUICE_RETURN_IF_ERROR(ParseLogicalChain(
      Op::kOr, out, [this](ExprPtr* e) { return ParseXor(e); },
      [this] {
        if (!PeekKeyword("OR") && !(PeekPunct(Punct::kOrOr) && !options_.pipes_as_concat)) return false;
        Take();
        return true;
      }));
  return CheckHeight(out->get());
}

Status Parser::Impl::ParseXor(ExprPtr* out) {
  return ParseLogicalChain(
      Op::kXor, out, [this](ExprPtr* e) { return ParseAnd(e); }, [this] { return AcceptKeyword("XOR"); });
}

Status Parser::Impl::ParseAnd(ExprPtr* out) {
  return ParseLogicalChain(
      Op::kAnd, out, [this](ExprPtr* e) { return ParseNot(e); },
      [this] {
        if (!PeekKeyword("AND") && !PeekPunct(Punct::kAndAnd)) return false;
        Take();
        return true;
      });
}

Status Parser::Impl::ParseNot(ExprPtr* out) {
  if (PeekKeyword("NOT")) {
    Nesting nesting(this);
    SLUICE_RETURN_IF_ERROR(nesting.status());
    Token t = Take();
    ExprPtr arg;
    SLUICE_RETURN_IF_ERROR(ParseNot(&arg));
    *out = MakeUnary(Op::kNot, t.offset, std::move(arg));
    return Status::OK();
  }
  return ParseComparison(out);
}

Status Parser::Impl::ParseComparison(ExprPtr* out) {
  SLUICE_RETURN_IF_ERROR(ParsePredicate(out));
  for (;;) {
    const Token& t = Peek();
    Op op = Op::kNone;
    if (t.kind == TokenKind::kPunct) {
      switch (t.punct) {
        case Punct::kEq: op = Op::kEq; break;
        case Punct::kNullSafeEq: op = Op::kNullSafeEq; break;
        case Punct::kNe: op = Op::kNe; break;
        case Punct::kLt: op = Op::kLt; break;
        case Punct::kLe: op = Op::kLe; break;
        case Punct::kGt: op = Op::kGt; break;
        case Punct::kGe: op = Op::kGe; break;
        default: break;
      }
    }
    if (op != Op::kNone) {
      Take();
      ExprPtr r;
      SLUICE_RETURN_IF_ERROR(ParsePredicate(&r));
      *out = MakeBinary(op, std::move(*out), std::move(r));
      continue;
    }
    if (t.IsKeyword("IS")) {
      Take();
      auto e = MakeExpr(ExprKind::kIs, (*out)->begin, 0);
      e->negated = AcceptKeyword("NOT");
      if (PeekKeyword("NULL")) e->is_what = IsWhat::kNull;
      else if (PeekKeyword("TRUE")) e->is_what = IsWhat::kTrue;
      else if (PeekKeyword("FALSE")) e->is_what = IsWhat::kFalse;
      else if (PeekKeyword("UNKNOWN")) e->is_what = IsWhat::kUnknown;
      else return Error();
      e->end = Take().end;
      e->args.push_back(std::move(*out));
      *out = std::move(e);
      continue;
    }
    return Status::OK();
  }
}

Status Parser::Impl::ParsePredicate(ExprPtr* out) {
  SLUICE_RETURN_IF_ERROR(ParseBitOr(out));
  // Every predicate below starts with a word.
  if (Peek().kind != TokenKind::kIdent) return Status::OK();
  bool negated = false;
  if (PeekKeyword("NOT") && (PeekKeyword("IN", 1) || PeekKeyword("BETWEEN", 1) ||
                             PeekKeyword("LIKE", 1) || PeekKeyword("REGEXP", 1) ||
                             PeekKeyword("RLIKE", 1))) {
    Take();
    negated = true;
  }
  if (AcceptKeyword("IN")) {
    auto e = MakeExpr(ExprKind::kIn, (*out)->begin, 0);
    e->negated = negated;
    e->args.push_back(std::move(*out));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kLParen));
    if (PeekKeyword("SELECT")) {
      SLUICE_RETURN_IF_ERROR(ParseSubquery(&e->subquery));
    } else {
      SLUICE_RETURN_IF_ERROR(ParseExprList(&e->args));
    }
    if (!PeekPunct(Punct::kRParen)) return Error();
    e->end = Take().end;
    *out = std::move(e);
  } else if (AcceptKeyword("BETWEEN")) {
    auto e = MakeExpr(ExprKind::kBetween, (*out)->begin, 0);
    e->negated = negated;
    e->args.push_back(std::move(*out));
    ExprPtr lo, hi;
    SLUICE_RETURN_IF_ERROR(ParseBitOr(&lo));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("AND"));
    Nesting nesting(this);  // a BETWEEN b AND c BETWEEN ... recurses here
    SLUICE_RETURN_IF_ERROR(nesting.status());
    SLUICE_RETURN_IF_ERROR(ParsePredicate(&hi));
    e->end = hi->end;
    e->args.push_back(std::move(lo));
    e->args.push_back(std::move(hi));
    *out = std::move(e);
  } else if (AcceptKeyword("LIKE")) {
    auto e = MakeExpr(ExprKind::kLike, (*out)->begin, 0);
    e->negated = negated;
    e->args.push_back(std::move(*out));
    ExprPtr pattern;
    SLUICE_RETURN_IF_ERROR(ParseBitOr(&pattern));
    e->end = pattern->end;
    e->args.push_back(std::move(pattern));
    if (AcceptKeyword("ESCAPE")) {
      ExprPtr esc;
      SLUICE_RETURN_IF_ERROR(ParseUnary(&esc));
      e->end = esc->end;
      e->args.push_back(std::move(esc));
    }
    *out = std::move(e);
  } else if (AcceptKeyword("REGEXP") || AcceptKeyword("RLIKE")) {
    auto e = MakeExpr(ExprKind::kRegexp, (*out)->begin, 0);
    e->negated = negated;
    e->args.push_back(std::move(*out));
    ExprPtr pattern;
    SLUICE_RETURN_IF_ERROR(ParseBitOr(&pattern));
    e->end = pattern->end;
    e->args.push_back(std::move(pattern));
    *out = std::move(e);
  }
  return Status::OK();
}

// The binary operators from | to || (PIPES_AS_CONCAT), parsed by precedence
// climbing: one loop over the operators at or above `min_level`, and one
// recursion per higher level a right operand needs, instead of a function
// per level that every operand passes through (seven calls and seven
// looks at the next token for each column or literal).
Status Parser::Impl::ParseBinaryOperators(int min_level, ExprPtr* out) {
  if (min_level <= kLevelAdditive && PeekKeyword("INTERVAL") && !PeekPunct(Punct::kLParen, 1)) {
    // INTERVAL expr unit + date, where an additive operand starts. In
    // MySQL's grammar the date is a whole expr, and the rule's precedence
    // (INTERVAL_SYM, above every operator) ends it only where a reduction
    // is possible: at AND, OR, XOR. So the comparisons, IS, IN, BETWEEN
    // and arithmetic after it are the date's: INTERVAL 1 DAY + d + 3 is
    // date_add(d + 3, ...), and INTERVAL 1 DAY + d = x compares d first.
    ExprPtr amount, unit, date;
    uint32_t begin = 0;
    SLUICE_RETURN_IF_ERROR(ParseInterval(&amount, &unit, &begin));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kPlus));
    Nesting nesting(this);
    SLUICE_RETURN_IF_ERROR(nesting.status());
    SLUICE_RETURN_IF_ERROR(ParseNot(&date));
    *out = MakeDateArith(false, std::move(date), std::move(amount), std::move(unit), begin);
  } else {
    SLUICE_RETURN_IF_ERROR(ParseUnary(out));
  }
  for (;;) {
    const BinaryOperator next = PeekBinaryOperator();
    if (next.level < min_level) return Status::OK();  // none is level 0
    Take();
    if (next.level == kLevelAdditive && PeekKeyword("INTERVAL")) {
      // date + INTERVAL expr unit / date - INTERVAL expr unit
      ExprPtr amount, unit;
      uint32_t begin = 0;
      SLUICE_RETURN_IF_ERROR(ParseInterval(&amount, &unit, &begin));
      const uint32_t start = (*out)->begin;
      *out = MakeDateArith(next.op == Op::kSub, std::move(*out), std::move(amount), std::move(unit), start);
      continue;
    }
    // Left-associative: the right operand takes only higher levels.
    ExprPtr r;
    SLUICE_RETURN_IF_ERROR(ParseBinaryOperators(next.level + 1, &r));
    *out = MakeBinary(next.op, std::move(*out), std::move(r));
  }
}

Parser::Impl::BinaryOperator Parser::Impl::PeekBinaryOperator() {
  const Token& t = Peek();
  if (t.kind == TokenKind::kPunct) {
    switch (t.punct) {
      case Punct::kPipe: return {kLevelBitOr, Op::kBitOr};
      case Punct::kAmp: return {kLevelBitAnd, Op::kBitAnd};
      case Punct::kShl: return {kLevelShift, Op::kShl};
      case Punct::kShr: return {kLevelShift, Op::kShr};
      case Punct::kPlus: return {kLevelAdditive, Op::kAdd};
      case Punct::kMinus: return {kLevelAdditive, Op::kSub};
      case Punct::kStar: return {kLevelMultiplicative, Op::kMul};
      case Punct::kSlash: return {kLevelMultiplicative, Op::kDiv};
      case Punct::kPercent: return {kLevelMultiplicative, Op::kMod};
      case Punct::kCaret: return {kLevelBitXor, Op::kBitXor};
      case Punct::kOrOr:
        if (options_.pipes_as_concat) return {kLevelConcat, Op::kConcat};
        return {};
      default: return {};
    }
  }
  if (t.IsKeyword("MOD")) return {kLevelMultiplicative, Op::kMod};
  if (t.IsKeyword("DIV")) return {kLevelMultiplicative, Op::kIntDiv};
  return {};
}

// A unit of INTERVAL, EXTRACT, TIMESTAMPADD/DIFF as the string literal the
// evaluator reads ('DAY', 'DAY_SECOND', ...).
Status Parser::Impl::ParseIntervalUnit(ExprPtr* out) {
  static const std::unordered_set<std::string_view> kUnits = {
      "MICROSECOND",        "SECOND",           "MINUTE",           "HOUR",
      "DAY",                "WEEK",             "MONTH",            "QUARTER",
      "YEAR",               "SECOND_MICROSECOND", "MINUTE_MICROSECOND", "MINUTE_SECOND",
      "HOUR_MICROSECOND",   "HOUR_SECOND",      "HOUR_MINUTE",      "DAY_MICROSECOND",
      "DAY_SECOND",         "DAY_MINUTE",       "DAY_HOUR",         "YEAR_MONTH",
  };
  const Token& t = Peek();
  if (t.kind != TokenKind::kIdent) return Error();
  std::string upper = AsciiUpper(t.text);
  if (kUnits.count(upper) == 0) return Error();
  Token u = Take();
  *out = MakeStringLiteral(std::move(upper), u.offset, u.end);
  return Status::OK();
}

// INTERVAL expr unit; *begin is where INTERVAL starts.
Status Parser::Impl::ParseInterval(ExprPtr* amount, ExprPtr* unit, uint32_t* begin) {
  *begin = Peek().offset;
  SLUICE_RETURN_IF_ERROR(ExpectKeyword("INTERVAL"));
  SLUICE_RETURN_IF_ERROR(ParseExpr(amount));
  return ParseIntervalUnit(unit);
}

// date +/- INTERVAL amount unit as the call DATE_ADD(date, amount, 'UNIT')
// (DATE_SUB), which is how the evaluator takes it.
ExprPtr Parser::Impl::MakeDateArith(bool subtract, ExprPtr date, ExprPtr amount, ExprPtr unit,
                                    uint32_t begin) {
  auto e = MakeExpr(ExprKind::kFunction, begin, std::max(date->end, unit->end));
  e->name = subtract ? "DATE_SUB" : "DATE_ADD";
  e->args.push_back(std::move(date));
  e->args.push_back(std::move(amount));
  e->args.push_back(std::move(unit));
  return e;
}

Status Parser::Impl::ParseUnary(ExprPtr* out) {
  const Token& t = Peek();
  Op op = Op::kNone;
  if (t.Is(Punct::kMinus)) op = Op::kNeg;
  else if (t.Is(Punct::kTilde)) op = Op::kBitNot;
  else if (t.Is(Punct::kBang)) op = Op::kNot;
  // Each prefix below recurses once.
  const bool prefix = op != Op::kNone || t.Is(Punct::kPlus) || t.IsKeyword("BINARY");
  std::optional<Nesting> nesting;
  if (prefix) {
    nesting.emplace(this);
    SLUICE_RETURN_IF_ERROR(nesting->status());
  }
  if (op != Op::kNone) {
    Token tok = Take();
    ExprPtr arg;
    SLUICE_RETURN_IF_ERROR(ParseUnary(&arg));
    *out = MakeUnary(op, tok.offset, std::move(arg));
    return Status::OK();
  }
  if (t.Is(Punct::kPlus)) {
    Token tok = Take();
    SLUICE_RETURN_IF_ERROR(ParseUnary(out));
    (*out)->begin = tok.offset;
    return Status::OK();
  }
  if (t.IsKeyword("BINARY")) {
    // BINARY expr is CAST(expr AS BINARY).
    Token tok = Take();
    ExprPtr arg;
    SLUICE_RETURN_IF_ERROR(ParseUnary(&arg));
    auto e = MakeExpr(ExprKind::kCast, tok.offset, arg->end);
    e->cast.type = CastType::kBinary;
    e->args.push_back(std::move(arg));
    *out = std::move(e);
    return Status::OK();
  }
  return ParseCollate(out);
}

Status Parser::Impl::ParseCollate(ExprPtr* out) {
  SLUICE_RETURN_IF_ERROR(ParsePrimary(out));
  while (PeekKeyword("COLLATE")) {
    Take();
    const Token& n = Peek();
    if (n.kind != TokenKind::kIdent && n.kind != TokenKind::kQuotedIdent &&
        n.kind != TokenKind::kString) {
      return Error();
    }
    Token name = Take();
    auto e = MakeExpr(ExprKind::kCollate, (*out)->begin, name.end);
    e->name = AsciiLower(name.text);
    e->args.push_back(std::move(*out));
    *out = std::move(e);
  }
  return Status::OK();
}

Status Parser::Impl::ParseNumber(const Token& t, ExprPtr* out) {
  auto e = MakeExpr(ExprKind::kLiteral, t.offset, t.end);
  if (t.kind == TokenKind::kInteger) {
    std::string_view digits = t.text;
    while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
    if (digits.size() <= 20) {
      unsigned __int128 v = 0;
      for (char c : digits) v = v * 10 + static_cast<unsigned>(c - '0');
      if (v <= static_cast<unsigned __int128>(INT64_MAX)) {
        e->value = Value::Int(static_cast<int64_t>(v));
      } else if (v <= static_cast<unsigned __int128>(UINT64_MAX)) {
        e->value = Value::UInt(static_cast<uint64_t>(v));
      }
    }
    if (e->value.is_null()) {
      auto d = Decimal::Parse(digits);
      e->value = d ? Value::Dec(*d) : Value::Double(ParseDoublePrefix(digits));
    }
  } else if (t.kind == TokenKind::kDecimal) {
    auto d = Decimal::Parse(t.text);
    e->value = d ? Value::Dec(*d) : Value::Double(ParseDoublePrefix(t.text));
  } else {
    double d = 0;
    auto r = std::from_chars(t.text.data(), t.text.data() + t.text.size(), d);
    if (r.ec == std::errc::result_out_of_range) {
      size_t epos = t.text.find_first_of("eE");
      bool negative_exponent = epos != std::string::npos && epos + 1 < t.text.size() &&
                               t.text[epos + 1] == '-';
      if (!negative_exponent) {
        return MakeError(er::kIllegalValueForType, "double", t.text);
      }
      d = 0;
    }
    e->value = Value::Double(d);
  }
  *out = std::move(e);
  return Status::OK();
}

Status Parser::Impl::ParsePrimary(ExprPtr* out) {
  const Token& t = Peek();
  switch (t.kind) {
    case TokenKind::kInteger:
    case TokenKind::kDecimal:
    case TokenKind::kFloat: {
      Token n = Take();
      return ParseNumber(n, out);
    }
    case TokenKind::kString: {
      Token s = Take();
      std::string text = std::move(s.text);
      uint32_t end = s.end;
      // Adjacent literals concatenate: 'a' 'b' is 'ab'.
      while (Peek().kind == TokenKind::kString && Peek().charset.empty()) {
        Token more = Take();
        text += more.text;
        end = more.end;
      }
      auto e = MakeExpr(ExprKind::kLiteral, s.offset, end);
      e->value = Value::String(std::move(text), s.charset == "binary");
      *out = std::move(e);
      return Status::OK();
    }
    case TokenKind::kHex:
    case TokenKind::kBit: {
      Token h = Take();
      auto e = MakeExpr(ExprKind::kLiteral, h.offset, h.end);
      const bool binary = h.charset.empty() || h.charset == "binary";
      e->value = Value::String(std::move(h.text), binary);
      e->hex_literal = h.charset.empty();
      *out = std::move(e);
      return Status::OK();
    }
    case TokenKind::kUserVar: {
      Token v = Take();
      if (AcceptPunct(Punct::kAssign)) {
        ExprPtr value;
        SLUICE_RETURN_IF_ERROR(ParseExpr(&value));
        auto e = MakeExpr(ExprKind::kAssignUserVar, v.offset, value->end);
        e->name = std::move(v.text);
        e->args.push_back(std::move(value));
        *out = std::move(e);
        return Status::OK();
      }
      auto e = MakeExpr(ExprKind::kUserVar, v.offset, v.end);
      e->name = std::move(v.text);
      *out = std::move(e);
      return Status::OK();
    }
    case TokenKind::kSysVar: {
      if (t.scope == VarScope::kPersist || t.scope == VarScope::kPersistOnly) return Error();
      Token v = Take();
      auto e = MakeExpr(ExprKind::kSysVar, v.offset, v.end);
      e->name = std::move(v.text);
      e->scope = v.scope;
      *out = std::move(e);
      return Status::OK();
    }
    case TokenKind::kParam: {
      Token p = Take();
      auto e = MakeExpr(ExprKind::kParam, p.offset, p.end);
      e->param_index = param_count_++;
      *out = std::move(e);
      return Status::OK();
    }
    case TokenKind::kPunct: {
      if (!t.Is(Punct::kLParen)) return Error();
      Token open = Take();
      if (PeekKeyword("SELECT")) {
        auto e = MakeExpr(ExprKind::kSubquery, open.offset, 0);
        SLUICE_RETURN_IF_ERROR(ParseSubquery(&e->subquery));
        if (!PeekPunct(Punct::kRParen)) return Error();
        e->end = Take().end;
        *out = std::move(e);
        return Status::OK();
      }
      SLUICE_RETURN_IF_ERROR(ParseExpr(out));
      if (!PeekPunct(Punct::kRParen)) return Error();  // row constructors too
      Token close = Take();
      (*out)->begin = open.offset;
      (*out)->end = close.end;
      return Status::OK();
    }
    case TokenKind::kQuotedIdent: {
      Token first = Take();
      if (PeekPunct(Punct::kLParen)) return ParseFunctionCall(std::move(first), "", out);
      return ParseColumnRef(std::move(first), out);
    }
    case TokenKind::kIdent:
      return ParseWordExpr(out);
    case TokenKind::kEnd:
    case TokenKind::kError:
      return Error();
  }
  return Error();
}

Status Parser::Impl::ParseColumnRef(Token first, ExprPtr* out) {
  boost::container::small_vector<Token, 3> parts;  // [schema.][table.]column
  parts.push_back(std::move(first));
  while (parts.size() < 3 && PeekPunct(Punct::kDot)) {
    const Token& n = Peek(1);
    if (n.kind != TokenKind::kIdent && n.kind != TokenKind::kQuotedIdent) {
      Take();
      return Error();
    }
    Take();
    parts.push_back(Take());  // after a '.', even reserved words name columns
  }
  auto e = MakeExpr(ExprKind::kColumn, parts.front().offset, parts.back().end);
  e->name = parts.back().text;
  if (parts.size() >= 2) e->table = parts[parts.size() - 2].text;
  if (parts.size() == 3) e->schema = parts[0].text;
  // col->'path' is JSON_EXTRACT(col, 'path'); col->>'path' unquotes it too.
  if (PeekPunct(Punct::kJsonExtract) || PeekPunct(Punct::kJsonUnquotedExtract)) {
    const bool unquote = Take().punct == Punct::kJsonUnquotedExtract;
    const Token& path = Peek();
    if (path.kind != TokenKind::kString) return Error();
    Token p = Take();
    auto lit = MakeExpr(ExprKind::kLiteral, p.offset, p.end);
    lit->value = Value::String(p.text);
    auto extract = MakeExpr(ExprKind::kFunction, e->begin, p.end);
    extract->name = "JSON_EXTRACT";
    extract->args.push_back(std::move(e));
    extract->args.push_back(std::move(lit));
    if (unquote) {
      auto u = MakeExpr(ExprKind::kFunction, extract->begin, p.end);
      u->name = "JSON_UNQUOTE";
      u->args.push_back(std::move(extract));
      *out = std::move(u);
    } else {
      *out = std::move(extract);
    }
    return Status::OK();
  }
  *out = std::move(e);
  return Status::OK();
}

Status Parser::Impl::ParseWordExpr(ExprPtr* out) {
  const Token& t = Peek();
  const bool call = PeekPunct(Punct::kLParen, 1);
  // A word that is neither a call, nor a reserved word, nor followed by a
  // string (DATE '2024-01-02') is a column: the usual case, decided without
  // upper-casing it. Reserved words that are values or keyword functions
  // are taken below.
  if (!call && !IsReserved(t) && Peek(1).kind != TokenKind::kString) {
    Token w = Take();
    return ParseColumnRef(std::move(w), out);
  }
  const std::string upper = AsciiUpper(t.text);

  if (upper == "NULL" || upper == "TRUE" || upper == "FALSE") {
    Token w = Take();
    auto e = MakeExpr(ExprKind::kLiteral, w.offset, w.end);
    if (upper == "TRUE") e->value = Value::Int(1);
    if (upper == "FALSE") e->value = Value::Int(0);
    *out = std::move(e);
    return Status::OK();
  }
  if (upper == "EXISTS" && PeekPunct(Punct::kLParen, 1)) {
    Token w = Take();
    Take();  // (
    auto e = MakeExpr(ExprKind::kExists, w.offset, 0);
    SLUICE_RETURN_IF_ERROR(ParseSubquery(&e->subquery));
    if (!PeekPunct(Punct::kRParen)) return Error();
    e->end = Take().end;
    *out = std::move(e);
    return Status::OK();
  }
  if (upper == "CASE") {
    Token c = Take();
    return ParseCase(std::move(c), out);
  }
  if ((upper == "DATE" || upper == "TIME" || upper == "TIMESTAMP") &&
      Peek(1).kind == TokenKind::kString) {
    // Typed literal: DATE '2024-01-02'.
    Token w = Take();
    Token s = Take();
    auto lit = MakeExpr(ExprKind::kLiteral, s.offset, s.end);
    lit->value = Value::String(std::move(s.text));
    auto e = MakeExpr(ExprKind::kCast, w.offset, s.end);
    e->cast.type = upper == "DATE" ? CastType::kDate
                   : upper == "TIME" ? CastType::kTime
                                     : CastType::kDatetime;
    e->args.push_back(std::move(lit));
    *out = std::move(e);
    return Status::OK();
  }
  if (IsNiladicKeywordFunction(upper) && !call) {
    Token w = Take();
    auto e = MakeExpr(ExprKind::kFunction, w.offset, w.end);
    e->name = upper;
    *out = std::move(e);
    return Status::OK();
  }
  if (call) {
    if (IsReserved(t) && !IsFunctionKeyword(upper) && upper != "CAST" && upper != "CONVERT") {
      return Error();
    }
    Token w = Take();
    return ParseFunctionCall(std::move(w), upper, out);
  }
  if (IsReserved(t)) return Error();
  Token w = Take();
  return ParseColumnRef(std::move(w), out);
}

Status Parser::Impl::ParseOptionalLength(int* length) {
  if (!AcceptPunct(Punct::kLParen)) return Status::OK();
  if (Peek().kind != TokenKind::kInteger) return Error();
  Token n = Take();
  if (n.text.size() > 9) return Error();
  *length = std::stoi(n.text);
  return ExpectPunct(Punct::kRParen);
}

Status Parser::Impl::ParseCastType(CastSpec* spec) {
  const Token t = Peek();
  if (t.kind != TokenKind::kIdent) return Error();
  const std::string upper = AsciiUpper(t.text);
  Take();
  if (upper == "SIGNED" || upper == "UNSIGNED") {
    spec->type = upper == "SIGNED" ? CastType::kSigned : CastType::kUnsigned;
    if (!AcceptKeyword("INTEGER")) AcceptKeyword("INT");
    return Status::OK();
  }
  if (upper == "CHAR" || upper == "NCHAR" || upper == "VARCHAR") {
    if (upper == "VARCHAR" && !PeekPunct(Punct::kLParen)) return Error();
    spec->type = CastType::kChar;
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&spec->length));
    if (PeekKeyword("CHARACTER") && PeekKeyword("SET", 1)) {
      Take();
      Take();
      SLUICE_RETURN_IF_ERROR(ParseCharsetName(&spec->charset));
      spec->charset = AsciiLower(spec->charset);
      if (spec->charset == "binary") spec->type = CastType::kBinary;
    } else if (AcceptKeyword("CHARSET")) {
      SLUICE_RETURN_IF_ERROR(ParseCharsetName(&spec->charset));
      spec->charset = AsciiLower(spec->charset);
      if (spec->charset == "binary") spec->type = CastType::kBinary;
    } else if (AcceptKeyword("BINARY")) {
      // CHAR BINARY: the binary collation of the charset; text stays text.
    }
    return Status::OK();
  }
  if (upper == "BINARY") {
    spec->type = CastType::kBinary;
    return ParseOptionalLength(&spec->length);
  }
  if (upper == "DECIMAL" || upper == "DEC" || upper == "NUMERIC") {
    spec->type = CastType::kDecimal;
    if (AcceptPunct(Punct::kLParen)) {
      if (Peek().kind != TokenKind::kInteger || Peek().text.size() > 4) return Error();
      spec->precision = std::stoi(Take().text);
      if (AcceptPunct(Punct::kComma)) {
        if (Peek().kind != TokenKind::kInteger || Peek().text.size() > 4) return Error();
        spec->scale = std::stoi(Take().text);
      }
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kRParen));
    }
    return Status::OK();
  }
  if (upper == "DOUBLE" || upper == "REAL") {
    spec->type = CastType::kDouble;
    if (upper == "DOUBLE") AcceptKeyword("PRECISION");
    return Status::OK();
  }
  if (upper == "FLOAT") {
    spec->type = CastType::kFloat;
    int p = -1;
    SLUICE_RETURN_IF_ERROR(ParseOptionalLength(&p));
    if (p > 24) spec->type = CastType::kDouble;
    return Status::OK();
  }
  if (upper == "DATE") {
    spec->type = CastType::kDate;
    return Status::OK();
  }
  if (upper == "DATETIME" || upper == "TIME") {
    spec->type = upper == "TIME" ? CastType::kTime : CastType::kDatetime;
    return ParseOptionalLength(&spec->scale);
  }
  if (upper == "JSON") {
    spec->type = CastType::kJson;
    return Status::OK();
  }
  return ErrorAt(t);
}

Status Parser::Impl::ParseCase(Token case_token, ExprPtr* out) {
  auto e = MakeExpr(ExprKind::kCase, case_token.offset, 0);
  if (!PeekKeyword("WHEN")) {
    ExprPtr operand;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&operand));
    e->args.push_back(std::move(operand));
    e->has_operand = true;
  }
  if (!PeekKeyword("WHEN")) return Error();
  while (AcceptKeyword("WHEN")) {
    ExprPtr when, then;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&when));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("THEN"));
    SLUICE_RETURN_IF_ERROR(ParseExpr(&then));
    e->args.push_back(std::move(when));
    e->args.push_back(std::move(then));
  }
  if (AcceptKeyword("ELSE")) {
    ExprPtr other;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&other));
    e->args.push_back(std::move(other));
    e->has_else = true;
  }
  if (!PeekKeyword("END")) return Error();
  e->end = Take().end;
  *out = std::move(e);
  return Status::OK();
}

Status Parser::Impl::ParseFunctionCall(Token name_token, std::string upper, ExprPtr* out) {
  Take();  // (
  auto e = MakeExpr(ExprKind::kFunction, name_token.offset, 0);
  e->name = name_token.text;  // as typed; MySQL echoes it in messages

  if (upper == "CAST") {
    e->kind = ExprKind::kCast;
    ExprPtr arg;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&arg));
    e->args.push_back(std::move(arg));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("AS"));
    SLUICE_RETURN_IF_ERROR(ParseCastType(&e->cast));
  } else if (upper == "CONVERT") {
    ExprPtr arg;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&arg));
    e->args.push_back(std::move(arg));
    if (AcceptKeyword("USING")) {
      e->kind = ExprKind::kConvertUsing;
      SLUICE_RETURN_IF_ERROR(ParseCharsetName(&e->name));
      e->name = AsciiLower(e->name);
    } else {
      SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kComma));
      e->kind = ExprKind::kCast;
      SLUICE_RETURN_IF_ERROR(ParseCastType(&e->cast));
    }
  } else if (upper == "SUBSTRING" || upper == "SUBSTR" || upper == "MID") {
    e->name = "SUBSTRING";
    ExprPtr arg;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&arg));
    e->args.push_back(std::move(arg));
    if (AcceptKeyword("FROM")) {
      ExprPtr pos;
      SLUICE_RETURN_IF_ERROR(ParseExpr(&pos));
      e->args.push_back(std::move(pos));
      if (AcceptKeyword("FOR")) {
        ExprPtr len;
        SLUICE_RETURN_IF_ERROR(ParseExpr(&len));
        e->args.push_back(std::move(len));
      }
    } else {
      while (AcceptPunct(Punct::kComma)) {
        ExprPtr more;
        SLUICE_RETURN_IF_ERROR(ParseExpr(&more));
        e->args.push_back(std::move(more));
      }
    }
  } else if (upper == "TRIM") {
    bool side_given = true;
    if (AcceptKeyword("BOTH")) e->trim_side = TrimSide::kBoth;
    else if (AcceptKeyword("LEADING")) e->trim_side = TrimSide::kLeading;
    else if (AcceptKeyword("TRAILING")) e->trim_side = TrimSide::kTrailing;
    else side_given = false;
    if (side_given && AcceptKeyword("FROM")) {
      ExprPtr str;
      SLUICE_RETURN_IF_ERROR(ParseExpr(&str));
      e->args.push_back(std::move(str));
    } else {
      ExprPtr first;
      SLUICE_RETURN_IF_ERROR(ParseExpr(&first));
      if (AcceptKeyword("FROM")) {
        ExprPtr str;
        SLUICE_RETURN_IF_ERROR(ParseExpr(&str));
        e->args.push_back(std::move(str));
        e->args.push_back(std::move(first));  // args: str, remstr
      } else if (side_given) {
        return Error();
      } else {
        e->args.push_back(std::move(first));
      }
    }
  } else if (upper == "DATE_ADD" || upper == "DATE_SUB" || upper == "ADDDATE" ||
             upper == "SUBDATE") {
    // DATE_ADD(d, INTERVAL n unit) -> DATE_ADD(d, n, 'UNIT'); ADDDATE(d, days).
    ExprPtr date, amount, unit;
    uint32_t begin = 0;
    SLUICE_RETURN_IF_ERROR(ParseExpr(&date));
    SLUICE_RETURN_IF_ERROR(ExpectPunct(Punct::kComma));
    e->args.push_back(std::move(date));
    if (PeekKeyword("INTERVAL")) {
      SLUICE_RETURN_IF_ERROR(ParseInterval(&amount, &unit, &begin));
      e->args.push_back(std::move(amount));
      e->args.push_back(std::move(unit));
    } else if (upper == "ADDDATE" || upper == "SUBDATE") {
      SLUICE_RETURN_IF_ERROR(ParseExpr(&amount));
      e->args.push_back(std::move(amount));
    } else {
      return Error();
    }
  } else if (upper == "EXTRACT") {
    // EXTRACT(unit FROM d) -> EXTRACT('UNIT', d)
    ExprPtr unit, date;
    SLUICE_RETURN_IF_ERROR(ParseIntervalUnit(&unit));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("FROM"));
    SLUICE_RETURN_IF_ERROR(ParseExpr(&date));
    e->args.push_back(std::move(unit));
    e->args.push_back(std::move(date));
  } else if (upper == "TIMESTAMPADD" || upper == "TIMESTAMPDIFF") {
    // TIMESTAMPDIFF(unit, a, b) -> TIMESTAMPDIFF('UNIT', a, b)
    ExprPtr unit;
    SLUICE_RETURN_IF_ERROR(ParseIntervalUnit(&unit));
    e->args.push_back(std::move(unit));
    while (AcceptPunct(Punct::kComma)) {
      ExprPtr more;
      SLUICE_RETURN_IF_ERROR(ParseExpr(&more));
      e->args.push_back(std::move(more));
    }
  } else if (upper == "POSITION") {
    e->name = "LOCATE";
    ExprPtr needle, haystack;
    SLUICE_RETURN_IF_ERROR(ParseBitOr(&needle));
    SLUICE_RETURN_IF_ERROR(ExpectKeyword("IN"));
    SLUICE_RETURN_IF_ERROR(ParseExpr(&haystack));
    e->args.push_back(std::move(needle));
    e->args.push_back(std::move(haystack));
  } else if (PeekPunct(Punct::kRParen)) {
    // no arguments
  } else if (upper == "COUNT" && PeekPunct(Punct::kStar)) {
    Take();
    e->star = true;
  } else {
    if (IsAggregate(upper)) {
      if (AcceptKeyword("DISTINCT")) e->distinct = true;
      else AcceptKeyword("ALL");
    }
    SLUICE_RETURN_IF_ERROR(ParseExprList(&e->args));
  }
  if (!PeekPunct(Punct::kRParen)) return Error();
  e->end = Take().end;
  *out = std::move(e);
  return Status::OK();
}

// ------------------------------------------------------------------ public API

Parser::Parser(std::string_view query, ParseOptions options) {
  static_assert(sizeof(Impl) <= kImplBytes && alignof(Impl) <= 16,
                "Parser::Impl no longer fits in the Parser: raise kImplBytes");
  impl_ = new (impl_storage_) Impl(query, options);
}

Parser::~Parser() { impl_->~Impl(); }

bool Parser::AtEnd() const { return impl_->AtEnd(); }

Result<ParsedStatement> Parser::Next() { return impl_->Next(); }

Result<std::vector<ParsedStatement>> ParseAll(std::string_view query, ParseOptions options) {
  Parser parser(query, options);
  std::vector<ParsedStatement> out;
  while (!parser.AtEnd()) {
    Result<ParsedStatement> r = parser.Next();
    if (!r.ok()) return r.status();
    out.push_back(std::move(r).value());
  }
  return out;
}

Result<ExprPtr> ParseExpression(std::string_view text, ParseOptions options) {
  Parser::Impl impl(text, options);
  return impl.ParseStandaloneExpression();
}

}  // namespace sluice::sql
