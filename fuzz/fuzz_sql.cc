// fuzz/fuzz_sql.cc
//
// libFuzzer target: the SQL lexer and parser, and the expression evaluator
// for what needs no table. The input is one query text (as COM_QUERY and
// COM_STMT_PREPARE carry it), several statements allowed. Each statement
// is parsed; the expressions of a SELECT without FROM, of DO and of SET
// @var = ... are evaluated in a minimal EvalContext (no tables, no
// subqueries, a 1 MiB result limit, SLEEP() returning at once), and
// PREPARE's text is parsed in turn.
//
// The sql_mode flags that change lexing come from the input's size (so
// each input always parses the same way and mutations still try all).
// Deep nesting ("((((...", long OR chains) recurses in the parser and the
// evaluator; scripts/fuzz.sh caps inputs at -max_len=4096.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/mysql_error.h"
#include "sql/ast.h"
#include "sql/eval.h"
#include "sql/parser.h"

namespace {

using namespace sluice;
using namespace sluice::sql;

class FuzzContext : public EvalContext {
 public:
  Result<Value> GetSystemVariable(std::string_view name, VarScope scope) override {
    if (name == "version") return Value::String("8.0.36-sluice");
    if (name == "max_allowed_packet") return Value::Int(1 << 20);
    if (name == "time_zone") return Value::String("SYSTEM");
    if (name == "sql_mode") return Value::String("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES");
    return MakeError(er::kUnknownSystemVariable, name);
  }
  Value GetUserVariable(std::string_view name) override {
    return name.size() % 2 ? Value::Int(static_cast<int64_t>(name.size())) : Value::String(std::string(name));
  }
  void SetUserVariable(std::string_view, const Value&) override {}
  std::optional<std::string> CurrentDatabase() override { return std::string("test"); }
  std::string User() override { return "root@localhost"; }
  std::string CurrentUser() override { return "root@%"; }
  uint64_t ConnectionId() override { return 7; }
  uint64_t LastInsertId() override { return 0; }
  void SetLastInsertId(uint64_t) override {}
  int64_t FoundRows() override { return 0; }
  int64_t RowCount() override { return -1; }
  std::string ServerVersion() override { return "8.0.36-sluice"; }
  std::chrono::system_clock::time_point StatementTime() override {
    return std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
  }
  bool SleepFor(std::chrono::nanoseconds) override { return true; }
  Status Warn(const er::Error&, std::string) override { return Status::OK(); }
  uint64_t MaxAllowedPacket() override { return 1 << 20; }
};

void EvalExpr(const Expr* e, EvalContext& ctx) {
  if (e == nullptr) return;
  (void)ExprToString(*e);
  Result<Value> v = Evaluate(*e, ctx);
  if (v.ok() && !v->is_null()) {
    (void)v->ToString();
    (void)v->ToDouble();
  }
}

void ParseAndRun(std::string_view text, ParseOptions options, int depth) {
  FuzzContext ctx;
  Parser parser(text, options);
  while (!parser.AtEnd()) {
    Result<ParsedStatement> ps = parser.Next();
    if (!ps.ok()) break;
    const Stmt& st = *ps->stmt;
    switch (st.kind) {
      case StmtKind::kSelect: {
        const auto& s = static_cast<const SelectStmt&>(st);
        if (!s.from.empty()) break;
        for (const auto& item : s.items) EvalExpr(item.expr.get(), ctx);
        EvalExpr(s.where.get(), ctx);
        EvalExpr(s.having.get(), ctx);
        break;
      }
      case StmtKind::kDo:
        for (const auto& e : static_cast<const DoStmt&>(st).exprs) EvalExpr(e.get(), ctx);
        break;
      case StmtKind::kSet:
        for (const auto& item : static_cast<const SetStmt&>(st).items) {
          if (item.kind == SetItem::Kind::kUserVar) EvalExpr(item.value.get(), ctx);
        }
        break;
      case StmtKind::kPrepare: {
        const auto& p = static_cast<const PrepareStmt&>(st);
        if (!p.from_variable && depth == 0) ParseAndRun(p.text, options, depth + 1);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  ParseOptions options;
  options.lex.ansi_quotes = (size & 1) != 0;
  options.lex.no_backslash_escapes = (size & 2) != 0;
  options.pipes_as_concat = (size & 4) != 0;
  ParseAndRun(text, options, 0);
  return 0;
}
