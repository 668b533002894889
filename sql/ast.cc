#include "sql/ast.h"

#include "base/stack_guard.h"

namespace sluice::sql {

namespace {

const char* OpText(Op op) {
  switch (op) {
    case Op::kOr: return "or";
    case Op::kXor: return "xor";
    case Op::kAnd: return "and";
    case Op::kNot: return "not";
    case Op::kEq: return "=";
    case Op::kNullSafeEq: return "<=>";
    case Op::kNe: return "<>";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
    case Op::kBitOr: return "|";
    case Op::kBitAnd: return "&";
    case Op::kBitXor: return "^";
    case Op::kShl: return "<<";
    case Op::kShr: return ">>";
    case Op::kBitNot: return "~";
    case Op::kAdd: return "+";
    case Op::kSub: return "-";
    case Op::kMul: return "*";
    case Op::kDiv: return "/";
    case Op::kIntDiv: return "DIV";
    case Op::kMod: return "%";
    case Op::kNeg: return "-";
    case Op::kConcat: return "||";
    case Op::kNone: return "";
  }
  return "";
}

std::string Quote(const std::string& s, char q) {
  std::string out(1, q);
  for (char c : s) {
    if (c == q) out.push_back(q);
    out.push_back(c);
  }
  out.push_back(q);
  return out;
}

std::string HexOf(const std::string& s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out = "0x";
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string CastText(const CastSpec& c) {
  switch (c.type) {
    case CastType::kSigned: return "signed";
    case CastType::kUnsigned: return "unsigned";
    case CastType::kChar:
      return c.length >= 0 ? "char(" + std::to_string(c.length) + ")" : "char";
    case CastType::kBinary:
      return c.length >= 0 ? "binary(" + std::to_string(c.length) + ")" : "binary";
    case CastType::kDecimal: {
      int p = c.precision >= 0 ? c.precision : 10;
      int s = c.scale >= 0 ? c.scale : 0;
      return "decimal(" + std::to_string(p) + "," + std::to_string(s) + ")";
    }
    case CastType::kDouble: return "double";
    case CastType::kFloat: return "float";
    case CastType::kDate: return "date";
    case CastType::kDatetime: return "datetime";
    case CastType::kTime: return "time";
    case CastType::kJson: return "json";
  }
  return "";
}

std::string Args(const Expr& e, size_t from) {
  std::string out;
  for (size_t i = from; i < e.args.size(); ++i) {
    if (i > from) out += ",";
    out += ExprToString(*e.args[i]);
  }
  return out;
}

}  // namespace

Expr::~Expr() {
  if (args.empty()) return;
  // Children are detached before their node dies, so no destructor below
  // this one sees a non-empty `args`.
  ExprArgs pending = std::move(args);  // in place for a node of one or two levels
  while (!pending.empty()) {
    ExprPtr e = std::move(pending.back());
    pending.pop_back();
    if (e == nullptr) continue;
    for (ExprPtr& a : e->args) pending.push_back(std::move(a));
    e->args.clear();
  }
}

std::string ExprToString(const Expr& e) {
  // Printing takes ~0.5 KiB of stack a level (twice that through a call's
  // arguments), more than most walks, and runs where a statement has already
  // gone deep (an error message from inside evaluation): past what the stack
  // holds, the rest of the tree prints as "...".
  if (!e.args.empty() && !CheckStack(kStackMargin / 2).ok()) return "...";
  switch (e.kind) {
    case ExprKind::kLiteral:
      if (e.value.is_null()) return "NULL";
      if (e.hex_literal) return HexOf(e.value.string_value());
      if (e.value.is_string()) return Quote(e.value.string_value(), '\'');
      return e.value.ToString();
    case ExprKind::kUserVar:
      return "(@" + e.name + ")";
    case ExprKind::kAssignUserVar:
      return "(@" + e.name + " := " + ExprToString(*e.args[0]) + ")";
    case ExprKind::kSysVar:
      switch (e.scope) {
        case VarScope::kGlobal: return "@@global." + e.name;
        case VarScope::kSession: return "@@session." + e.name;
        default: return "@@" + e.name;
      }
    case ExprKind::kColumn: {
      std::string out;
      if (!e.schema.empty()) out += Quote(e.schema, '`') + ".";
      if (!e.table.empty()) out += Quote(e.table, '`') + ".";
      return out + Quote(e.name, '`');
    }
    case ExprKind::kParam:
      return "?";
    case ExprKind::kDefault:
      return "DEFAULT";
    case ExprKind::kUnary:
      if (e.op == Op::kNot) return "(not(" + ExprToString(*e.args[0]) + "))";
      return std::string(OpText(e.op)) + "(" + ExprToString(*e.args[0]) + ")";
    case ExprKind::kBinary:
      return "(" + ExprToString(*e.args[0]) + " " + OpText(e.op) + " " +
             ExprToString(*e.args[1]) + ")";
    case ExprKind::kIs: {
      static const char* kWhat[] = {"null", "true", "false", "unknown"};
      return "(" + ExprToString(*e.args[0]) + (e.negated ? " is not " : " is ") +
             kWhat[static_cast<int>(e.is_what)] + ")";
    }
    case ExprKind::kLike: {
      std::string out = "(" + ExprToString(*e.args[0]) + (e.negated ? " not like " : " like ") +
                        ExprToString(*e.args[1]);
      if (e.args.size() > 2) out += " escape " + ExprToString(*e.args[2]);
      return out + ")";
    }
    case ExprKind::kRegexp:
      return "regexp_like(" + ExprToString(*e.args[0]) + "," + ExprToString(*e.args[1]) + ")";
    case ExprKind::kIn:
      if (e.subquery) return "(" + ExprToString(*e.args[0]) + (e.negated ? " not in (select ...))" : " in (select ...))");
      return "(" + ExprToString(*e.args[0]) + (e.negated ? " not in (" : " in (") + Args(e, 1) +
             "))";
    case ExprKind::kBetween:
      return "(" + ExprToString(*e.args[0]) + (e.negated ? " not between " : " between ") +
             ExprToString(*e.args[1]) + " and " + ExprToString(*e.args[2]) + ")";
    case ExprKind::kCase: {
      std::string out = "(case ";
      size_t i = 0;
      if (e.has_operand) out += ExprToString(*e.args[i++]) + " ";
      size_t pairs_end = e.args.size() - (e.has_else ? 1 : 0);
      for (; i + 1 < pairs_end; i += 2) {
        out += "when " + ExprToString(*e.args[i]) + " then " + ExprToString(*e.args[i + 1]) + " ";
      }
      if (e.has_else) out += "else " + ExprToString(*e.args.back()) + " ";
      return out + "end)";
    }
    case ExprKind::kCast:
      return "cast(" + ExprToString(*e.args[0]) + " as " + CastText(e.cast) + ")";
    case ExprKind::kConvertUsing:
      return "convert(" + ExprToString(*e.args[0]) + " using " + e.name + ")";
    case ExprKind::kCollate:
      return "(" + ExprToString(*e.args[0]) + " collate " + e.name + ")";
    case ExprKind::kFunction: {
      std::string name;
      for (char c : e.name) name.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c);
      if (e.star) return name + "(*)";
      return name + "(" + (e.distinct ? "distinct " : "") + Args(e, 0) + ")";
    }
    case ExprKind::kSubquery:
      return "(select ...)";
    case ExprKind::kExists:
      return "exists(select ...)";
  }
  return "";
}

bool HasSubquery(const Expr& e) {
  if (e.subquery) return true;
  for (const auto& a : e.args) {
    if (a && HasSubquery(*a)) return true;
  }
  return false;
}

std::string UserSpec::ToString() const {
  if (current_user) return "CURRENT_USER";
  return "'" + name + "'@'" + host + "'";
}

std::string SelectItem::ColumnName() const {
  if (has_alias) return alias;
  if (star) return "*";
  if (expr != nullptr && expr->kind == ExprKind::kLiteral && !expr->hex_literal) {
    if (expr->value.is_null()) return "NULL";
    if (expr->value.is_string()) return expr->value.string_value();
  }
  return text;
}

const char* IsolationLevelName(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::kReadUncommitted: return "READ-UNCOMMITTED";
    case IsolationLevel::kReadCommitted: return "READ-COMMITTED";
    case IsolationLevel::kRepeatableRead: return "REPEATABLE-READ";
    case IsolationLevel::kSerializable: return "SERIALIZABLE";
  }
  return "";
}

}  // namespace sluice::sql
