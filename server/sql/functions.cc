// Built-in functions of the evaluator.
//
// Supported: VERSION DATABASE SCHEMA USER SESSION_USER SYSTEM_USER
// CURRENT_USER CONNECTION_ID LAST_INSERT_ID ROW_COUNT FOUND_ROWS
// UNIX_TIMESTAMP NOW SYSDATE CURRENT_TIMESTAMP LOCALTIME LOCALTIMESTAMP
// CURDATE CURRENT_DATE CURTIME CURRENT_TIME UTC_TIMESTAMP UTC_DATE UTC_TIME
// CONCAT CONCAT_WS LENGTH OCTET_LENGTH CHAR_LENGTH CHARACTER_LENGTH UPPER
// UCASE LOWER LCASE SUBSTRING SUBSTR MID LEFT RIGHT REPLACE TRIM LTRIM RTRIM
// REPEAT REVERSE LOCATE POSITION INSTR LPAD RPAD HEX UNHEX ASCII SPACE STRCMP
// IF IFNULL NULLIF COALESCE ISNULL ABS CEIL CEILING FLOOR ROUND TRUNCATE MOD
// POW POWER SQRT SIGN GREATEST LEAST MD5 SHA1 SHA SHA2 UUID RAND SLEEP.

#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/mysql_error.h"
#include "server/sql/eval_internal.h"
#include "server/sql/temporal_internal.h"
#include "server/sql/value_internal.h"

namespace sluice::sql {

namespace {

struct Call {
  const Expr& expr;
  EvalContext& ctx;
  std::vector<Value> args;  // evaluated; empty for lazy functions
  std::string name;         // upper case

  // args[i] with hex literals read as numbers.
  Value Num(size_t i) const { return NumericOperand(*expr.args[i], args[i]); }
  bool AnyNull() const {
    for (const Value& v : args) {
      if (v.is_null()) return true;
    }
    return false;
  }
  bool CaseSensitive(size_t i) const {
    return args[i].is_binary() || HasCaseSensitiveCollation(*expr.args[i]);
  }
};

using Handler = Result<Value> (*)(Call& c);

struct FunctionDef {
  int min_args;
  int max_args;  // -1: any number
  bool lazy;     // the handler evaluates expr.args itself
  Handler fn;
};

// ------------------------------------------------------------------ helpers

char Fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string FoldCase(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Fold(c);
  return out;
}

// Byte offsets of the start of each character, plus s.size() at the end.
// Binary strings count bytes.
std::vector<size_t> CharStarts(std::string_view s, bool binary) {
  std::vector<size_t> starts;
  starts.reserve(s.size() + 1);
  for (size_t i = 0; i < s.size(); ++i) {
    if (binary || (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  starts.push_back(s.size());
  return starts;
}

// Characters [from, from + count) of s; clamps to the string.
std::string SubChars(const std::string& s, bool binary, int64_t from, int64_t count) {
  std::vector<size_t> starts = CharStarts(s, binary);
  const int64_t n = static_cast<int64_t>(starts.size()) - 1;
  if (from < 0 || from >= n || count <= 0) return "";
  int64_t to = count > n - from ? n : from + count;
  return s.substr(starts[from], starts[to] - starts[from]);
}

Value StringResult(std::string s, bool binary) { return Value::String(std::move(s), binary); }

bool AnyBinary(const Call& c) {
  for (const Value& v : c.args) {
    if (v.is_binary()) return true;
  }
  return false;
}

// NULL with warning 1301 when a result would exceed max_allowed_packet.
std::optional<Value> TooLong(Call& c, uint64_t size) {
  const uint64_t max = c.ctx.MaxAllowedPacket();
  if (size <= max) return std::nullopt;
  std::string fname = AsciiLower(c.name);
  c.ctx.AddWarning(1301, "Result of " + fname + "() was larger than max_allowed_packet (" +
                             std::to_string(max) + ") - truncated");
  return Value::Null();
}

// a * b, saturating at UINT64_MAX.
uint64_t SaturatingMul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

std::string HexEncode(std::string_view bytes, bool upper) {
  const char* digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

Result<Value> Eval(const Expr& e, EvalContext& ctx) { return Evaluate(e, ctx); }

// ------------------------------------------------------------------ session info

Result<Value> FnVersion(Call& c) { return Value::String(c.ctx.ServerVersion()); }

Result<Value> FnDatabase(Call& c) {
  std::optional<std::string> db = c.ctx.CurrentDatabase();
  return db ? Value::String(*db) : Value::Null();
}

Result<Value> FnUser(Call& c) { return Value::String(c.ctx.User()); }
Result<Value> FnCurrentUser(Call& c) { return Value::String(c.ctx.CurrentUser()); }
Result<Value> FnConnectionId(Call& c) { return Value::UInt(c.ctx.ConnectionId()); }
Result<Value> FnRowCount(Call& c) { return Value::Int(c.ctx.RowCount()); }
Result<Value> FnFoundRows(Call& c) { return Value::Int(c.ctx.FoundRows()); }

Result<Value> FnLastInsertId(Call& c) {
  if (c.args.empty()) return Value::UInt(c.ctx.LastInsertId());
  if (c.args[0].is_null()) {
    c.ctx.SetLastInsertId(0);
    return Value::Null();
  }
  uint64_t id = c.Num(0).ToUInt();
  c.ctx.SetLastInsertId(id);
  return Value::UInt(id);
}

// ------------------------------------------------------------------ time

Result<int> FractionalPrecision(Call& c, const char* fname) {
  if (c.args.empty()) return 0;
  if (c.args[0].is_null()) return MakeError(er::kWrongArguments, fname);
  int64_t fsp = c.args[0].ToInt();
  if (fsp < 0) return MakeError(er::kWrongArguments, fname);
  if (fsp > 6) {
    return MakeError(er::kTooBigPrecision, fsp, fname, 6);
  }
  return static_cast<int>(fsp);
}

DateTime Truncate(DateTime dt, int fsp) {
  int unit = 1;
  for (int i = fsp; i < 6; ++i) unit *= 10;
  dt.micro = dt.micro / unit * unit;
  return dt;
}

Result<Value> NowLike(Call& c, const char* fname, bool utc, bool sysdate) {
  Result<int> fsp = FractionalPrecision(c, fname);
  if (!fsp.ok()) return fsp.status();
  auto tp = sysdate ? std::chrono::system_clock::now() : c.ctx.StatementTime();
  DateTime dt = Truncate(FromTimePoint(tp, utc), *fsp);
  return Value::Typed(FormatDatetime(dt, *fsp), StringType::kDatetime);
}

Result<Value> FnNow(Call& c) { return NowLike(c, "now", false, false); }
Result<Value> FnSysdate(Call& c) { return NowLike(c, "sysdate", false, true); }
Result<Value> FnUtcTimestamp(Call& c) { return NowLike(c, "utc_timestamp", true, false); }

Result<Value> DateLike(Call& c, bool utc) {
  DateTime dt = FromTimePoint(c.ctx.StatementTime(), utc);
  return Value::Typed(FormatDate(dt), StringType::kDate);
}

Result<Value> FnCurdate(Call& c) { return DateLike(c, false); }
Result<Value> FnUtcDate(Call& c) { return DateLike(c, true); }

Result<Value> TimeLike(Call& c, const char* fname, bool utc) {
  Result<int> fsp = FractionalPrecision(c, fname);
  if (!fsp.ok()) return fsp.status();
  DateTime dt = Truncate(FromTimePoint(c.ctx.StatementTime(), utc), *fsp);
  return Value::Typed(FormatTime(dt, *fsp), StringType::kTime);
}

Result<Value> FnCurtime(Call& c) { return TimeLike(c, "curtime", false); }
Result<Value> FnUtcTime(Call& c) { return TimeLike(c, "utc_time", true); }

Result<Value> FnUnixTimestamp(Call& c) {
  if (c.args.empty()) {
    auto secs = std::chrono::duration_cast<std::chrono::seconds>(
        c.ctx.StatementTime().time_since_epoch());
    return Value::Int(secs.count());
  }
  const Value& v = c.args[0];
  if (v.is_null()) return Value::Null();
  std::optional<DateTime> dt = ValueToDatetime(v);
  if (!dt) {
    c.ctx.AddWarning(er::kTruncatedWrongValue.code,
                     "Incorrect datetime value: '" + v.ToString() + "'");
    return Value::Int(0);
  }
  std::optional<int64_t> secs = dt->month == 0 ? std::nullopt : LocalToUnixSeconds(*dt);
  const int fd = dt->frac_digits;
  if (!secs || *secs < 0) {
    return fd == 0 ? Value::Int(0) : Value::Dec(Decimal{0, static_cast<uint8_t>(fd)});
  }
  if (fd == 0) return Value::Int(*secs);
  const int unit = static_cast<int>(Pow10(6 - fd));
  __int128 m = static_cast<__int128>(*secs) * Pow10(fd) + dt->micro / unit;
  return Value::Dec(Decimal{m, static_cast<uint8_t>(fd)});
}

// ------------------------------------------------------------------ strings

Result<Value> FnConcat(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::string out;
  for (const Value& v : c.args) out += v.ToString();
  if (auto null = TooLong(c, out.size())) return *null;
  return StringResult(std::move(out), AnyBinary(c));
}

Result<Value> FnConcatWs(Call& c) {
  if (c.args[0].is_null()) return Value::Null();
  const std::string sep = c.args[0].ToString();
  std::string out;
  bool first = true;
  for (size_t i = 1; i < c.args.size(); ++i) {
    if (c.args[i].is_null()) continue;
    if (!first) out += sep;
    out += c.args[i].ToString();
    first = false;
  }
  if (auto null = TooLong(c, out.size())) return *null;
  return StringResult(std::move(out), AnyBinary(c));
}

Result<Value> FnLength(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Value::Int(static_cast<int64_t>(c.args[0].ToString().size()));
}

Result<Value> FnCharLength(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::string s = c.args[0].ToString();
  return Value::Int(static_cast<int64_t>(c.args[0].is_binary() ? s.size() : Utf8Length(s)));
}

Result<Value> ChangeCase(Call& c, bool upper) {
  if (c.AnyNull()) return Value::Null();
  std::string s = c.args[0].ToString();
  if (c.args[0].is_binary()) return StringResult(std::move(s), true);  // MySQL leaves bytes alone
  return Value::String(upper ? AsciiUpper(s) : AsciiLower(s));
}

Result<Value> FnUpper(Call& c) { return ChangeCase(c, true); }
Result<Value> FnLower(Call& c) { return ChangeCase(c, false); }

Result<Value> FnSubstring(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const bool binary = c.args[0].is_binary();
  const int64_t n = static_cast<int64_t>(CharStarts(s, binary).size()) - 1;
  const int64_t pos = c.Num(1).ToInt();
  int64_t start;
  if (pos > 0) {
    start = pos - 1;
  } else if (pos < 0) {
    start = n + pos;
    if (start < 0) return StringResult("", binary);
  } else {
    return StringResult("", binary);
  }
  int64_t len = c.args.size() > 2 ? c.Num(2).ToInt() : n;
  return StringResult(SubChars(s, binary, start, len), binary);
}

Result<Value> FnLeft(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const bool binary = c.args[0].is_binary();
  return StringResult(SubChars(c.args[0].ToString(), binary, 0, c.Num(1).ToInt()), binary);
}

Result<Value> FnRight(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const bool binary = c.args[0].is_binary();
  const int64_t n = static_cast<int64_t>(CharStarts(s, binary).size()) - 1;
  int64_t k = c.Num(1).ToInt();
  if (k <= 0) return StringResult("", binary);
  if (k > n) k = n;
  return StringResult(SubChars(s, binary, n - k, k), binary);
}

Result<Value> FnReplace(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::string s = c.args[0].ToString();
  const std::string from = c.args[1].ToString();
  const std::string to = c.args[2].ToString();
  if (from.empty()) return StringResult(std::move(s), AnyBinary(c));
  std::string out;
  size_t i = 0;
  for (;;) {
    size_t j = s.find(from, i);
    if (j == std::string::npos) break;
    out.append(s, i, j - i);
    out += to;
    i = j + from.size();
  }
  out.append(s, i, std::string::npos);
  if (auto null = TooLong(c, out.size())) return *null;
  return StringResult(std::move(out), AnyBinary(c));
}

std::string TrimString(std::string s, std::string_view rem, bool leading, bool trailing) {
  if (rem.empty()) return s;
  size_t begin = 0, end = s.size();
  if (leading) {
    while (end - begin >= rem.size() && s.compare(begin, rem.size(), rem) == 0) begin += rem.size();
  }
  if (trailing) {
    while (end - begin >= rem.size() && s.compare(end - rem.size(), rem.size(), rem) == 0) {
      end -= rem.size();
    }
  }
  return s.substr(begin, end - begin);
}

Result<Value> FnTrim(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::string rem = c.args.size() > 1 ? c.args[1].ToString() : " ";
  const TrimSide side = c.expr.trim_side;
  return StringResult(TrimString(c.args[0].ToString(), rem, side != TrimSide::kTrailing,
                                 side != TrimSide::kLeading),
                      AnyBinary(c));
}

Result<Value> FnLtrim(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return StringResult(TrimString(c.args[0].ToString(), " ", true, false), AnyBinary(c));
}

Result<Value> FnRtrim(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return StringResult(TrimString(c.args[0].ToString(), " ", false, true), AnyBinary(c));
}

Result<Value> FnRepeat(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const int64_t n = c.Num(1).ToInt();
  if (n <= 0 || s.empty()) return StringResult("", c.args[0].is_binary());
  if (auto null = TooLong(c, SaturatingMul(static_cast<uint64_t>(n), s.size()))) return *null;
  std::string out;
  out.reserve(s.size() * n);
  for (int64_t i = 0; i < n; ++i) out += s;
  return StringResult(std::move(out), c.args[0].is_binary());
}

Result<Value> FnReverse(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const bool binary = c.args[0].is_binary();
  std::vector<size_t> starts = CharStarts(s, binary);
  std::string out;
  out.reserve(s.size());
  for (size_t k = starts.size() - 1; k > 0; --k) {
    out.append(s, starts[k - 1], starts[k] - starts[k - 1]);
  }
  return StringResult(std::move(out), binary);
}

// 1-based character position of `needle` in `hay` at or after character
// `from` (1-based); 0 when absent.
int64_t Locate(const std::string& needle, const std::string& hay, int64_t from, bool cs,
               bool binary) {
  std::vector<size_t> starts = CharStarts(hay, binary);
  const int64_t n = static_cast<int64_t>(starts.size()) - 1;
  if (from < 1 || from > n + 1) return 0;
  if (needle.empty()) return from;
  const std::string h = cs ? hay : FoldCase(hay);
  const std::string nd = cs ? needle : FoldCase(needle);
  size_t pos = h.find(nd, starts[from - 1]);
  while (pos != std::string::npos) {
    // Only matches that start on a character boundary count.
    auto it = std::lower_bound(starts.begin(), starts.end(), pos);
    if (it != starts.end() && *it == pos) return (it - starts.begin()) + 1;
    pos = h.find(nd, pos + 1);
  }
  return 0;
}

Result<Value> FnLocate(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const bool cs = c.CaseSensitive(0) || c.CaseSensitive(1);
  const int64_t from = c.args.size() > 2 ? c.Num(2).ToInt() : 1;
  return Value::Int(Locate(c.args[0].ToString(), c.args[1].ToString(), from, cs,
                           c.args[1].is_binary()));
}

Result<Value> FnInstr(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const bool cs = c.CaseSensitive(0) || c.CaseSensitive(1);
  return Value::Int(
      Locate(c.args[1].ToString(), c.args[0].ToString(), 1, cs, c.args[0].is_binary()));
}

Result<Value> Pad(Call& c, bool left) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const std::string pad = c.args[2].ToString();
  const bool binary = AnyBinary(c);
  const int64_t len = c.Num(1).ToInt();
  if (len < 0) return Value::Null();
  const int64_t n = static_cast<int64_t>(CharStarts(s, binary).size()) - 1;
  if (len <= n) return StringResult(SubChars(s, binary, 0, len), binary);
  const std::vector<size_t> pad_starts = CharStarts(pad, binary);
  const int64_t pad_chars = static_cast<int64_t>(pad_starts.size()) - 1;
  if (pad_chars == 0) return Value::Null();
  // Worst case 4 bytes a character, as MySQL reckons it.
  if (auto null = TooLong(c, SaturatingMul(static_cast<uint64_t>(len), 4))) return *null;
  std::string fill;
  int64_t need = len - n;
  while (need >= pad_chars) {
    fill += pad;
    need -= pad_chars;
  }
  fill.append(pad, 0, pad_starts[need]);
  return StringResult(left ? fill + s : s + fill, binary);
}

Result<Value> FnLpad(Call& c) { return Pad(c, true); }
Result<Value> FnRpad(Call& c) { return Pad(c, false); }

Result<Value> FnHex(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const Value& v = c.args[0];
  if (v.is_string()) return Value::String(HexEncode(v.string_value(), true));
  uint64_t n = v.kind() == ValueKind::kInt ? static_cast<uint64_t>(v.int_value()) : v.ToUInt();
  if (v.kind() == ValueKind::kDouble || v.kind() == ValueKind::kDecimal) {
    n = static_cast<uint64_t>(v.ToInt());
    if (v.ToDouble() >= 9223372036854775808.0) n = v.ToUInt();
  }
  if (n == 0) return Value::String("0");
  std::string out;
  while (n != 0) {
    out.insert(out.begin(), "0123456789ABCDEF"[n & 15]);
    n >>= 4;
  }
  return Value::String(std::move(out));
}

Result<Value> FnUnhex(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::string s = c.args[0].ToString();
  if (s.size() % 2 == 1) s.insert(s.begin(), '0');
  std::string out;
  out.reserve(s.size() / 2);
  auto digit = [](char ch) -> int {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = digit(s[i]), lo = digit(s[i + 1]);
    if (hi < 0 || lo < 0) return Value::Null();
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return Value::String(std::move(out), true);
}

Result<Value> FnAscii(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::string s = c.args[0].ToString();
  return Value::Int(s.empty() ? 0 : static_cast<unsigned char>(s[0]));
}

Result<Value> FnSpace(Call& c) {
  if (c.AnyNull()) return Value::Null();
  int64_t n = c.Num(0).ToInt();
  if (n <= 0) return Value::String("");
  if (auto null = TooLong(c, static_cast<uint64_t>(n))) return *null;
  return Value::String(std::string(static_cast<size_t>(n), ' '));
}

Result<Value> FnStrcmp(Call& c) {
  if (c.AnyNull()) return Value::Null();
  Value a = Value::String(c.args[0].ToString(), c.args[0].is_binary());
  Value b = Value::String(c.args[1].ToString(), c.args[1].is_binary());
  return Value::Int(*CompareValues(a, b, c.CaseSensitive(0) || c.CaseSensitive(1)));
}

// ------------------------------------------------------------------ control flow

Result<Value> FnIf(Call& c) {
  Result<Value> cond = Eval(*c.expr.args[0], c.ctx);
  if (!cond.ok()) return cond;
  return Eval(*c.expr.args[cond->ToBool() == std::optional<bool>(true) ? 1 : 2], c.ctx);
}

Result<Value> FnIfnull(Call& c) {
  Result<Value> first = Eval(*c.expr.args[0], c.ctx);
  if (!first.ok() || !first->is_null()) return first;
  return Eval(*c.expr.args[1], c.ctx);
}

Result<Value> FnCoalesce(Call& c) {
  for (const ExprPtr& arg : c.expr.args) {
    Result<Value> v = Eval(*arg, c.ctx);
    if (!v.ok() || !v->is_null()) return v;
  }
  return Value::Null();
}

Result<Value> FnNullif(Call& c) {
  if (c.args[0].is_null()) return Value::Null();
  bool cs = c.CaseSensitive(0) || c.CaseSensitive(1);
  if (CompareValues(c.args[0], c.args[1], cs) == 0) return Value::Null();
  return c.args[0];
}

Result<Value> FnIsnull(Call& c) { return Value::Bool(c.args[0].is_null()); }

// ------------------------------------------------------------------ math

Result<Value> FnAbs(Call& c) {
  const Value v = c.Num(0);
  switch (v.kind()) {
    case ValueKind::kNull: return Value::Null();
    case ValueKind::kInt:
      if (v.int_value() == std::numeric_limits<int64_t>::min()) return OutOfRange("BIGINT", c.expr);
      return Value::Int(v.int_value() < 0 ? -v.int_value() : v.int_value());
    case ValueKind::kUInt: return v;
    case ValueKind::kDouble: return Value::Double(std::fabs(v.double_value()));
    case ValueKind::kDecimal: {
      Decimal d = v.decimal_value();
      if (d.mantissa < 0) d.mantissa = -d.mantissa;
      return Value::Dec(d);
    }
    case ValueKind::kString: return Value::Double(std::fabs(v.ToDouble()));
  }
  return Value::Null();
}

// CEIL (up = true) / FLOOR of a DECIMAL: an integer, BIGINT when it fits.
Value DecimalToIntegral(const Decimal& d, bool up) {
  __int128 p = Pow10(d.scale);
  __int128 q = d.mantissa / p;
  __int128 r = d.mantissa % p;
  if (r != 0 && up && d.mantissa > 0) ++q;
  if (r != 0 && !up && d.mantissa < 0) --q;
  if (q >= std::numeric_limits<int64_t>::min() && q <= std::numeric_limits<int64_t>::max()) {
    return Value::Int(static_cast<int64_t>(q));
  }
  return Value::Dec(Decimal{q, 0});
}

Result<Value> CeilFloor(Call& c, bool up) {
  const Value v = c.Num(0);
  switch (v.kind()) {
    case ValueKind::kNull: return Value::Null();
    case ValueKind::kInt:
    case ValueKind::kUInt: return v;
    case ValueKind::kDecimal: return DecimalToIntegral(v.decimal_value(), up);
    case ValueKind::kDouble:
    case ValueKind::kString: {
      double d = v.ToDouble();
      return Value::Double(up ? std::ceil(d) : std::floor(d));
    }
  }
  return Value::Null();
}

Result<Value> FnCeil(Call& c) { return CeilFloor(c, true); }
Result<Value> FnFloor(Call& c) { return CeilFloor(c, false); }

// ROUND (truncate = false) and TRUNCATE.
Result<Value> RoundOrTruncate(Call& c, bool truncate) {
  if (c.AnyNull()) return Value::Null();
  const Value v = c.Num(0);
  int64_t d = c.args.size() > 1 ? c.Num(1).ToInt() : 0;
  if (d > 30) d = 30;
  if (d < -100) d = -100;
  switch (v.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUInt: {
      if (d >= 0) return v;
      if (-d > 20) return v.kind() == ValueKind::kInt ? Value::Int(0) : Value::UInt(0);
      const __int128 p = Pow10(static_cast<int>(-d));
      const __int128 x = v.kind() == ValueKind::kInt ? v.int_value() : v.uint_value();
      __int128 q = x / p;
      if (!truncate && ((x % p < 0 ? -(x % p) : x % p) * 2 >= p)) q += x < 0 ? -1 : 1;
      __int128 r = q * p;
      if (v.kind() == ValueKind::kUInt) {
        if (r > static_cast<__int128>(std::numeric_limits<uint64_t>::max())) {
          return OutOfRange("BIGINT UNSIGNED", c.expr);
        }
        return Value::UInt(static_cast<uint64_t>(r));
      }
      if (r < std::numeric_limits<int64_t>::min() || r > std::numeric_limits<int64_t>::max()) {
        return OutOfRange("BIGINT", c.expr);
      }
      return Value::Int(static_cast<int64_t>(r));
    }
    case ValueKind::kDecimal: {
      const Decimal& x = v.decimal_value();
      if (d >= 0) {
        int scale = std::min<int>(static_cast<int>(d), x.scale);
        auto r = truncate ? x.Truncated(scale) : x.Rescaled(scale);
        return Value::Dec(*r);
      }
      const int drop = x.scale + static_cast<int>(-d);
      if (drop > Decimal::kMaxDigits) return Value::Dec(Decimal{});
      const __int128 p = Pow10(drop);
      __int128 q = x.mantissa / p;
      __int128 rem = x.mantissa % p;
      if (!truncate && (rem < 0 ? -rem : rem) * 2 >= p) q += x.mantissa < 0 ? -1 : 1;
      if (-d > Decimal::kMaxDigits) return Value::Dec(Decimal{});
      __int128 r;
      if (__builtin_mul_overflow(q, Pow10(static_cast<int>(-d)), &r)) {
        return OutOfRange("DECIMAL", c.expr);
      }
      return Value::Dec(Decimal{r, 0});
    }
    default: {
      const double x = v.ToDouble();
      const double p = std::pow(10.0, static_cast<double>(d < 0 ? -d : d));
      double r;
      if (d >= 0) {
        double t = x * p;
        if (!std::isfinite(t)) return Value::Double(x);
        r = (truncate ? std::trunc(t) : std::rint(t)) / p;
      } else {
        double t = x / p;
        r = (truncate ? std::trunc(t) : std::rint(t)) * p;
      }
      return Value::Double(r);
    }
  }
}

Result<Value> FnRound(Call& c) { return RoundOrTruncate(c, false); }
Result<Value> FnTruncate(Call& c) { return RoundOrTruncate(c, true); }

Result<Value> FnMod(Call& c) { return Arithmetic(Op::kMod, c.Num(0), c.Num(1), c.expr, c.ctx); }

Result<Value> FnPow(Call& c) {
  if (c.AnyNull()) return Value::Null();
  double r = std::pow(c.Num(0).ToDouble(), c.Num(1).ToDouble());
  if (!std::isfinite(r)) return OutOfRange("DOUBLE", c.expr);
  return Value::Double(r);
}

Result<Value> FnSqrt(Call& c) {
  if (c.AnyNull()) return Value::Null();
  double x = c.Num(0).ToDouble();
  if (x < 0) return Value::Null();
  return Value::Double(std::sqrt(x));
}

Result<Value> FnSign(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::optional<int> s = CompareValues(c.Num(0), Value::Int(0));
  return Value::Int(*s);
}

Result<Value> GreatestLeast(Call& c, bool greatest) {
  if (c.AnyNull()) return Value::Null();
  bool all_strings = true, all_ints = true, any_double = false;
  bool cs = false;
  std::vector<Value> vals;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Value& raw = c.args[i];
    all_strings = all_strings && raw.is_string() && !c.expr.args[i]->hex_literal;
    cs = cs || c.CaseSensitive(i);
  }
  for (size_t i = 0; i < c.args.size(); ++i) {
    Value v = all_strings ? c.args[i] : c.Num(i);
    if (!all_strings) {
      if (v.kind() == ValueKind::kDouble || (v.is_string() && !v.is_temporal())) any_double = true;
      if (v.kind() != ValueKind::kInt && v.kind() != ValueKind::kUInt) all_ints = false;
    }
    vals.push_back(std::move(v));
  }
  size_t best = 0;
  for (size_t i = 1; i < vals.size(); ++i) {
    int cmp = *CompareValues(vals[i], vals[best], cs);
    if (greatest ? cmp > 0 : cmp < 0) best = i;
  }
  if (all_strings || all_ints) return vals[best];
  if (any_double) return Value::Double(vals[best].ToDouble());
  int scale = 0;
  for (const Value& v : vals) scale = std::max<int>(scale, v.ToDecimal().scale);
  auto d = vals[best].ToDecimal().Rescaled(scale);
  return d ? Value::Dec(*d) : Value::Double(vals[best].ToDouble());
}

Result<Value> FnGreatest(Call& c) { return GreatestLeast(c, true); }
Result<Value> FnLeast(Call& c) { return GreatestLeast(c, false); }

// ------------------------------------------------------------------ hashes, random

std::optional<std::string> Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, md, nullptr) != 1) return std::nullopt;
  return HexEncode(std::string_view(reinterpret_cast<const char*>(out), len), false);
}

Result<Value> HashResult(Call& c, const EVP_MD* md) {
  if (c.AnyNull()) return Value::Null();
  std::optional<std::string> hex = Digest(md, c.args[0].ToString());
  if (!hex) return Status::InvalidArgument("digest failed");
  return Value::String(std::move(*hex));
}

Result<Value> FnMd5(Call& c) { return HashResult(c, EVP_md5()); }
Result<Value> FnSha1(Call& c) { return HashResult(c, EVP_sha1()); }

Result<Value> FnSha2(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const EVP_MD* md = nullptr;
  switch (c.Num(1).ToInt()) {
    case 0:
    case 256: md = EVP_sha256(); break;
    case 224: md = EVP_sha224(); break;
    case 384: md = EVP_sha384(); break;
    case 512: md = EVP_sha512(); break;
    default: return Value::Null();
  }
  return HashResult(c, md);
}

std::mt19937_64& ThreadRandom() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng;
}

Result<Value> FnUuid(Call& c) {
  // Version 1 layout: 100 ns ticks since 1582-10-15, a random clock sequence
  // and a random node id with the multicast bit set (no MAC address).
  constexpr uint64_t kGregorianOffset = 0x01B21DD213814000ULL;
  const uint64_t ticks =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count() /
                            100) +
      kGregorianOffset;
  std::mt19937_64& rng = ThreadRandom();
  const uint64_t random = rng();
  const uint32_t time_low = static_cast<uint32_t>(ticks);
  const uint16_t time_mid = static_cast<uint16_t>(ticks >> 32);
  const uint16_t time_hi = static_cast<uint16_t>(((ticks >> 48) & 0x0FFF) | 0x1000);
  const uint16_t clock_seq = static_cast<uint16_t>((random & 0x3FFF) | 0x8000);
  const uint64_t node = ((random >> 16) & 0xFFFFFFFFFFFFULL) | 0x010000000000ULL;
  return Value::String(fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", time_low, time_mid,
                                   time_hi, clock_seq, node));
}

Result<Value> FnRand(Call& c) {
  if (c.args.empty()) {
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    return Value::Double(dist(ThreadRandom()));
  }
  // RAND(N): MySQL's seeded generator, so a seed gives MySQL's first value.
  const uint64_t n = static_cast<uint64_t>(c.Num(0).ToInt());
  constexpr uint32_t kMax = 0x3FFFFFFF;
  uint32_t seed1 = static_cast<uint32_t>(n * 0x10001ULL + 55555555ULL) % kMax;
  uint32_t seed2 = static_cast<uint32_t>(n * 0x10000001ULL) % kMax;
  seed1 = static_cast<uint32_t>((static_cast<uint64_t>(seed1) * 3 + seed2) % kMax);
  return Value::Double(static_cast<double>(seed1) / static_cast<double>(kMax));
}

Result<Value> FnSleep(Call& c) {
  const Value v = c.Num(0);
  if (v.is_null() || v.ToDouble() < 0) {
    c.ctx.AddWarning(er::kWrongArguments.code, "Incorrect arguments to sleep");
    return Value::Int(0);
  }
  const double seconds = std::min(v.ToDouble(), 1e9);
  auto duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(seconds));
  return Value::Int(c.ctx.SleepFor(duration) ? 0 : 1);
}

Result<Value> FnAggregate(Call& c) {
  return MakeError(er::kNotSupportedYet, "aggregate functions without a FROM clause");
}

// ------------------------------------------------------------------ registry

const std::unordered_map<std::string_view, FunctionDef>& Registry() {
  static const std::unordered_map<std::string_view, FunctionDef> kFunctions = {
      {"VERSION", {0, 0, false, FnVersion}},
      {"DATABASE", {0, 0, false, FnDatabase}},
      {"SCHEMA", {0, 0, false, FnDatabase}},
      {"USER", {0, 0, false, FnUser}},
      {"SESSION_USER", {0, 0, false, FnUser}},
      {"SYSTEM_USER", {0, 0, false, FnUser}},
      {"CURRENT_USER", {0, 0, false, FnCurrentUser}},
      {"CONNECTION_ID", {0, 0, false, FnConnectionId}},
      {"LAST_INSERT_ID", {0, 1, false, FnLastInsertId}},
      {"ROW_COUNT", {0, 0, false, FnRowCount}},
      {"FOUND_ROWS", {0, 0, false, FnFoundRows}},
      {"UNIX_TIMESTAMP", {0, 1, false, FnUnixTimestamp}},
      {"NOW", {0, 1, false, FnNow}},
      {"CURRENT_TIMESTAMP", {0, 1, false, FnNow}},
      {"LOCALTIME", {0, 1, false, FnNow}},
      {"LOCALTIMESTAMP", {0, 1, false, FnNow}},
      {"SYSDATE", {0, 1, false, FnSysdate}},
      {"UTC_TIMESTAMP", {0, 1, false, FnUtcTimestamp}},
      {"CURDATE", {0, 0, false, FnCurdate}},
      {"CURRENT_DATE", {0, 0, false, FnCurdate}},
      {"UTC_DATE", {0, 0, false, FnUtcDate}},
      {"CURTIME", {0, 1, false, FnCurtime}},
      {"CURRENT_TIME", {0, 1, false, FnCurtime}},
      {"UTC_TIME", {0, 1, false, FnUtcTime}},
      {"CONCAT", {1, -1, false, FnConcat}},
      {"CONCAT_WS", {2, -1, false, FnConcatWs}},
      {"LENGTH", {1, 1, false, FnLength}},
      {"OCTET_LENGTH", {1, 1, false, FnLength}},
      {"CHAR_LENGTH", {1, 1, false, FnCharLength}},
      {"CHARACTER_LENGTH", {1, 1, false, FnCharLength}},
      {"UPPER", {1, 1, false, FnUpper}},
      {"UCASE", {1, 1, false, FnUpper}},
      {"LOWER", {1, 1, false, FnLower}},
      {"LCASE", {1, 1, false, FnLower}},
      {"SUBSTRING", {2, 3, false, FnSubstring}},
      {"LEFT", {2, 2, false, FnLeft}},
      {"RIGHT", {2, 2, false, FnRight}},
      {"REPLACE", {3, 3, false, FnReplace}},
      {"TRIM", {1, 2, false, FnTrim}},
      {"LTRIM", {1, 1, false, FnLtrim}},
      {"RTRIM", {1, 1, false, FnRtrim}},
      {"REPEAT", {2, 2, false, FnRepeat}},
      {"REVERSE", {1, 1, false, FnReverse}},
      {"LOCATE", {2, 3, false, FnLocate}},
      {"INSTR", {2, 2, false, FnInstr}},
      {"LPAD", {3, 3, false, FnLpad}},
      {"RPAD", {3, 3, false, FnRpad}},
      {"HEX", {1, 1, false, FnHex}},
      {"UNHEX", {1, 1, false, FnUnhex}},
      {"ASCII", {1, 1, false, FnAscii}},
      {"SPACE", {1, 1, false, FnSpace}},
      {"STRCMP", {2, 2, false, FnStrcmp}},
      {"IF", {3, 3, true, FnIf}},
      {"IFNULL", {2, 2, true, FnIfnull}},
      {"COALESCE", {1, -1, true, FnCoalesce}},
      {"NULLIF", {2, 2, false, FnNullif}},
      {"ISNULL", {1, 1, false, FnIsnull}},
      {"ABS", {1, 1, false, FnAbs}},
      {"CEIL", {1, 1, false, FnCeil}},
      {"CEILING", {1, 1, false, FnCeil}},
      {"FLOOR", {1, 1, false, FnFloor}},
      {"ROUND", {1, 2, false, FnRound}},
      {"TRUNCATE", {2, 2, false, FnTruncate}},
      {"MOD", {2, 2, false, FnMod}},
      {"POW", {2, 2, false, FnPow}},
      {"POWER", {2, 2, false, FnPow}},
      {"SQRT", {1, 1, false, FnSqrt}},
      {"SIGN", {1, 1, false, FnSign}},
      {"GREATEST", {2, -1, false, FnGreatest}},
      {"LEAST", {2, -1, false, FnLeast}},
      {"MD5", {1, 1, false, FnMd5}},
      {"SHA1", {1, 1, false, FnSha1}},
      {"SHA", {1, 1, false, FnSha1}},
      {"SHA2", {2, 2, false, FnSha2}},
      {"UUID", {0, 0, false, FnUuid}},
      {"RAND", {0, 1, false, FnRand}},
      {"SLEEP", {1, 1, false, FnSleep}},
      {"COUNT", {0, -1, true, FnAggregate}},
      {"SUM", {0, -1, true, FnAggregate}},
      {"AVG", {0, -1, true, FnAggregate}},
      {"MIN", {0, -1, true, FnAggregate}},
      {"MAX", {0, -1, true, FnAggregate}},
      {"GROUP_CONCAT", {0, -1, true, FnAggregate}},
  };
  return kFunctions;
}

}  // namespace

Result<Value> CallFunction(const Expr& call, EvalContext& ctx) {
  const std::string upper = AsciiUpper(call.name);
  const auto& registry = Registry();
  auto it = registry.find(upper);
  if (it == registry.end()) {
    std::optional<std::string> db = ctx.CurrentDatabase();
    return MakeError(er::kSpDoesNotExist, "FUNCTION", db ? *db + "." + call.name : call.name);
  }
  const FunctionDef& def = it->second;
  const int n = static_cast<int>(call.args.size());
  if (n < def.min_args || (def.max_args >= 0 && n > def.max_args)) {
    return MakeError(er::kWrongParamcountToNativeFct, call.name);
  }
  Call c{call, ctx, {}, upper};
  if (!def.lazy) {
    c.args.reserve(call.args.size());
    for (const ExprPtr& arg : call.args) {
      Result<Value> v = Evaluate(*arg, ctx);
      if (!v.ok()) return v;
      c.args.push_back(std::move(v).value());
    }
  }
  return def.fn(c);
}

}  // namespace sluice::sql
