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
// POW POWER SQRT SIGN GREATEST LEAST MD5 SHA1 SHA SHA2 UUID RAND SLEEP
// FIELD ELT FIND_IN_SET FORMAT QUOTE SUBSTRING_INDEX INSERT FROM_UNIXTIME YEAR
// MONTH DAY DAYOFMONTH QUARTER HOUR MINUTE SECOND MICROSECOND DAYOFWEEK WEEKDAY
// DAYOFYEAR WEEK TO_DAYS DAYNAME MONTHNAME LAST_DAY DATE TIME DATEDIFF
// DATE_ADD DATE_SUB ADDDATE SUBDATE TIMESTAMPADD TIMESTAMPDIFF EXTRACT
// DATE_FORMAT STR_TO_DATE; the mathematical ones in functions_numeric.cc,
// encodings, addresses and UUIDs in functions_text.cc, JSON's in json.cc.
// A name none of them knows goes to EvalContext::CallServerFunction (GTID
// sets, user-level locks) before it is 1305.
//
// INTERVAL forms are function calls here, the unit a string literal the
// parser makes of the unit word: DATE_ADD(d, INTERVAL 1 DAY) and
// d + INTERVAL 1 DAY are DATE_ADD(d, 1, 'DAY'), d - INTERVAL ... is DATE_SUB,
// EXTRACT(unit FROM d) is EXTRACT('UNIT', d). A unit may also be a bare word,
// which parses as a column name: TIMESTAMPDIFF(DAY, a, b).

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
#include "sql/eval_internal.h"
#include "sql/functions_internal.h"
#include "sql/json.h"
#include "sql/temporal.h"
#include "sql/number.h"

namespace sluice::sql {

namespace {

// ------------------------------------------------------------------ helpers

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

bool AnyBinary(const Call& c) { return AnyBinaryArg(c); }
std::optional<Value> TooLong(Call& c, uint64_t size) { return TooLongResult(c, size); }

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

std::optional<int64_t> ParseZoneOffset(const std::string& s);

// The session's time_zone as seconds east of UTC; nullopt for SYSTEM (and
// named zones, not supported yet): the server's local time.
std::optional<int64_t> SessionZoneOffset(EvalContext& ctx) {
  Result<Value> tz = ctx.GetSystemVariable("time_zone", VarScope::kDefault);
  if (!tz.ok() || tz->is_null()) return std::nullopt;
  return ParseZoneOffset(tz->ToString());
}

// A zone written as '+HH:MM' / '-HH:MM' or 'UTC', as seconds east of UTC;
// nullopt for anything else ('SYSTEM', named zones).
std::optional<int64_t> ParseZoneOffset(const std::string& s) {
  if (EqualsIgnoreCase(s, "UTC")) return 0;
  if (s.size() < 4 || (s[0] != '+' && s[0] != '-')) return std::nullopt;
  const size_t colon = s.find(':');
  if (colon == std::string::npos || colon + 3 != s.size()) return std::nullopt;
  const std::string_view hours(s.data() + 1, colon - 1);
  const std::string_view minutes(s.data() + colon + 1, 2);
  auto digits = [](std::string_view d) {
    return !d.empty() && std::all_of(d.begin(), d.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  };
  if (!digits(hours) || !digits(minutes) || hours.size() > 2) return std::nullopt;
  const int64_t offset = (std::stoi(std::string(hours)) * 60 + std::stoi(std::string(minutes))) * 60;
  return s[0] == '-' ? -offset : offset;
}

// Clock time in the session's time zone (or UTC).
// `us`: microseconds since the epoch (not a time_point: see FromUnixMicros).
DateTime ClockMicros(Call& c, int64_t us, bool utc) {
  if (utc) return FromUnixMicros(us, true);
  if (std::optional<int64_t> offset = SessionZoneOffset(c.ctx)) {
    return FromUnixMicros(us + *offset * 1000000, true);
  }
  return FromUnixMicros(us, false);
}

DateTime ClockTime(Call& c, std::chrono::system_clock::time_point tp, bool utc) {
  return ClockMicros(c, std::chrono::duration_cast<std::chrono::microseconds>(tp.time_since_epoch()).count(), utc);
}

// Seconds since the epoch of a date and time in the session's time zone.
std::optional<int64_t> ToUnixSeconds(Call& c, const DateTime& dt) {
  if (dt.month == 0 || dt.day == 0) return std::nullopt;
  if (std::optional<int64_t> offset = SessionZoneOffset(c.ctx)) {
    return ToMicros(dt) / 1000000 - *offset;
  }
  return LocalToUnixSeconds(dt);
}

Result<Value> NowLike(Call& c, const char* fname, bool utc, bool sysdate) {
  Result<int> fsp = FractionalPrecision(c, fname);
  if (!fsp.ok()) return fsp.status();
  auto tp = sysdate ? std::chrono::system_clock::now() : c.ctx.StatementTime();
  DateTime dt = Truncate(ClockTime(c, tp, utc), *fsp);
  return Value::Typed(FormatDatetime(dt, *fsp), StringType::kDatetime);
}

Result<Value> FnNow(Call& c) { return NowLike(c, "now", false, false); }
Result<Value> FnSysdate(Call& c) { return NowLike(c, "sysdate", false, true); }
Result<Value> FnUtcTimestamp(Call& c) { return NowLike(c, "utc_timestamp", true, false); }

Result<Value> DateLike(Call& c, bool utc) {
  DateTime dt = ClockTime(c, c.ctx.StatementTime(), utc);
  return Value::Typed(FormatDate(dt), StringType::kDate);
}

Result<Value> FnCurdate(Call& c) { return DateLike(c, false); }
Result<Value> FnUtcDate(Call& c) { return DateLike(c, true); }

Result<Value> TimeLike(Call& c, const char* fname, bool utc) {
  Result<int> fsp = FractionalPrecision(c, fname);
  if (!fsp.ok()) return fsp.status();
  DateTime dt = Truncate(ClockTime(c, c.ctx.StatementTime(), utc), *fsp);
  return Value::Typed(FormatTime(dt, *fsp), StringType::kTime);
}

Result<Value> FnCurtime(Call& c) { return TimeLike(c, "curtime", false); }
Result<Value> FnUtcTime(Call& c) { return TimeLike(c, "utc_time", true); }

void WarnIncorrectDatetime(Call& c, const Value& v) {
  c.Warn(er::kTruncatedWrongValue, "Incorrect datetime value: '" + v.ToString() + "'");
}

// Digits after the point in a temporal value's text: its fractional precision.
int FractionDigits(const Value& v) {
  if (!v.is_string()) return 0;
  const std::string& s = v.string_value();
  const size_t dot = s.rfind('.');
  if (dot == std::string::npos || s.find(':') == std::string::npos) return 0;
  return static_cast<int>(std::min<size_t>(s.size() - dot - 1, 6));
}

// True when a date-and-time text (or number) has a time part: '2024-01-02
// 10:00' and 20240102100000 do, '2024-01-02' and 20240102 do not.
bool HasTimePart(const Value& v) {
  if (v.string_type() == StringType::kDate) return false;
  if (v.string_type() == StringType::kDatetime) return true;
  std::string s = v.ToString();
  if (s.find(':') != std::string::npos) return true;
  const size_t dot = s.find('.');
  if (dot != std::string::npos) s.resize(dot);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  size_t digits = 0;
  for (char ch : s) digits += ch >= '0' && ch <= '9';
  return digits == s.size() && digits > 8;
}

// args[i] as a DATETIME (a TIME counts from today, as MySQL); nullopt for
// NULL and, with warning 1292, for what is no date. `fuzzy` takes zero
// months and days ('2008-00-00').
std::optional<DateTime> DatetimeArg(Call& c, size_t i, bool fuzzy = false) {
  const Value& v = c.args[i];
  if (v.is_null()) return std::nullopt;
  std::optional<DateTime> dt;
  if (v.string_type() == StringType::kTime) {
    std::optional<DateTime> t = ParseTime(v.string_value());
    if (t) {
      DateTime today = ClockTime(c, c.ctx.StatementTime(), false);
      today.hour = today.minute = today.second = today.micro = 0;
      const int64_t span =
          ((static_cast<int64_t>(t->hour) * 60 + t->minute) * 60 + t->second) * 1000000 + t->micro;
      dt = FromMicros(ToMicros(today) + (t->negative ? -span : span));
    }
  } else if (fuzzy && v.is_string()) {
    dt = ParseDatetimeFuzzy(v.string_value());
  } else {
    dt = ValueToDatetime(v);
  }
  if (!dt) WarnIncorrectDatetime(c, v);
  return dt;
}

// The same for functions that need a whole date (no zero month or day).
std::optional<DateTime> FullDateArg(Call& c, size_t i) {
  std::optional<DateTime> dt = DatetimeArg(c, i);
  if (dt && (dt->month == 0 || dt->day == 0)) return std::nullopt;
  return dt;
}

// args[i] as a TIME (a DATETIME's time of day); nullopt for NULL and, with
// warning 1292, for what is no time.
std::optional<DateTime> TimeArg(Call& c, size_t i) {
  const Value& v = c.args[i];
  if (v.is_null()) return std::nullopt;
  std::optional<DateTime> t = ValueToTime(v);
  if (!t) {
    c.Warn(er::kTruncatedWrongValue, "Truncated incorrect time value: '" + v.ToString() + "'");
  }
  return t;
}

Value DateValue(const DateTime& dt) { return Value::Typed(FormatDate(dt), StringType::kDate); }

Value DatetimeValue(const DateTime& dt, int fsp) {
  return Value::Typed(FormatDatetime(dt, fsp), StringType::kDatetime);
}

// The unit word of TIMESTAMPDIFF(unit, ...), EXTRACT(unit FROM ...) and
// INTERVAL ... unit: a bare word (it parses as a column name) or the
// parser's string literal.
Result<IntervalUnit> UnitArg(const Call& c, size_t i) {
  const Expr& e = *c.expr.args[i];
  std::optional<IntervalUnit> unit;
  if (e.kind == ExprKind::kColumn && e.table.empty() && e.schema.empty()) {
    unit = IntervalUnitFromName(e.name);
  } else if (e.kind == ExprKind::kLiteral && e.value.is_string()) {
    unit = IntervalUnitFromName(e.value.string_value());
  }
  if (!unit) return MakeError(er::kWrongArguments, AsciiLower(c.name));
  return *unit;
}

// Evaluates every argument but the unit word at `unit_index` (a NULL there).
Status EvaluateAllBut(Call& c, size_t unit_index) {
  c.args.clear();
  for (size_t i = 0; i < c.expr.args.size(); ++i) {
    if (i == unit_index) {
      c.args.push_back(Value::Null());
      continue;
    }
    Result<Value> v = Evaluate(*c.expr.args[i], c.ctx);
    if (!v.ok()) return v.status();
    c.args.push_back(std::move(v).value());
  }
  return Status::OK();
}

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
    WarnIncorrectDatetime(c, v);
    return Value::Int(0);
  }
  std::optional<int64_t> secs = ToUnixSeconds(c, *dt);
  const int fd = dt->frac_digits;
  if (!secs || *secs < 0) {
    return fd == 0 ? Value::Int(0) : Value::Dec(Decimal::FromInteger(0, fd));
  }
  if (fd == 0) return Value::Int(*secs);
  const int unit = static_cast<int>(Pow10(6 - fd));
  __int128 m = static_cast<__int128>(*secs) * Pow10(fd) + dt->micro / unit;
  return Value::Dec(Decimal::FromInteger(m, fd));
}

Result<Value> FnFromUnixtime(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const Value v = c.Dec(0);
  Decimal d = v.ToDecimal();
  const int fsp = v.kind() == ValueKind::kInt || v.kind() == ValueKind::kUInt ? 0
                  : std::min<int>(d.scale, 6);
  std::optional<Decimal> micros = d.Rescaled(6);
  // MySQL's range: 0 .. 32536771199.999999 (3001-01-19 03:14:07 UTC + a day).
  std::optional<__int128> m = micros ? micros->Unscaled() : std::nullopt;
  if (!m || *m < 0 || *m > static_cast<__int128>(32536771199LL) * 1000000 + 999999) {
    return Value::Null();
  }
  const int64_t us = static_cast<int64_t>(*m);
  DateTime dt = RoundFraction(ClockMicros(c, us, false), fsp, false);
  if (c.args.size() > 1) {
    std::optional<std::string> text = FormatWithPattern(dt, c.args[1].ToString());
    return text ? Value::String(std::move(*text)) : Value::Null();
  }
  return DatetimeValue(dt, fsp);
}

Result<Value> DatePart(Call& c, int (*part)(const DateTime&)) {
  std::optional<DateTime> dt = DatetimeArg(c, 0, /*fuzzy=*/true);
  if (!dt) return Value::Null();
  return Value::Int(part(*dt));
}

Result<Value> FnYear(Call& c) {
  return DatePart(c, [](const DateTime& d) { return d.year; });
}
Result<Value> FnMonth(Call& c) {
  return DatePart(c, [](const DateTime& d) { return d.month; });
}
Result<Value> FnDay(Call& c) {
  return DatePart(c, [](const DateTime& d) { return d.day; });
}
Result<Value> FnQuarter(Call& c) {
  return DatePart(c, [](const DateTime& d) { return (d.month + 2) / 3; });
}

Result<Value> TimePart(Call& c, int (*part)(const DateTime&)) {
  std::optional<DateTime> t = TimeArg(c, 0);
  if (!t) return Value::Null();
  return Value::Int(part(*t));
}

Result<Value> FnHour(Call& c) {
  return TimePart(c, [](const DateTime& t) { return t.hour; });
}
Result<Value> FnMinute(Call& c) {
  return TimePart(c, [](const DateTime& t) { return t.minute; });
}
Result<Value> FnSecond(Call& c) {
  return TimePart(c, [](const DateTime& t) { return t.second; });
}
Result<Value> FnMicrosecond(Call& c) {
  return TimePart(c, [](const DateTime& t) { return t.micro; });
}

Result<Value> FullDatePart(Call& c, int (*part)(const DateTime&)) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  return Value::Int(part(*dt));
}

Result<Value> FnDayOfWeek(Call& c) {
  return FullDatePart(c, [](const DateTime& d) { return (Weekday(d) + 1) % 7 + 1; });
}
Result<Value> FnWeekday(Call& c) {
  return FullDatePart(c, [](const DateTime& d) { return Weekday(d); });
}
Result<Value> FnDayOfYear(Call& c) {
  return FullDatePart(c, [](const DateTime& d) { return DayOfYear(d); });
}

Result<Value> FnToDays(Call& c) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  constexpr int64_t kDaysFromYear0 = 719528;  // 0000-01-01 .. 1970-01-01, MySQL's day 0 is year 0
  return Value::Int(DaysFromCivil(dt->year, dt->month, dt->day) + kDaysFromYear0);
}

Result<Value> FnWeek(Call& c) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  int mode = 0;  // default_week_format
  if (c.args.size() > 1) {
    if (c.args[1].is_null()) return Value::Null();
    mode = static_cast<int>(c.Int(1) & 7);
  }
  int year = 0;
  return Value::Int(WeekOfYear(*dt, mode, &year));
}

Result<Value> FnDayName(Call& c) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  return Value::String(*FormatWithPattern(*dt, "%W"));
}

Result<Value> FnMonthName(Call& c) {
  std::optional<DateTime> dt = DatetimeArg(c, 0, /*fuzzy=*/true);
  if (!dt || dt->month == 0) return Value::Null();
  return Value::String(*FormatWithPattern(*dt, "%M"));
}

Result<Value> FnLastDay(Call& c) {
  std::optional<DateTime> dt = DatetimeArg(c, 0);
  if (!dt || dt->month == 0) return Value::Null();
  DateTime last;
  last.year = dt->year;
  last.month = dt->month;
  last.day = DaysInMonth(dt->year, dt->month);
  return DateValue(last);
}

Result<Value> FnDate(Call& c) {
  std::optional<DateTime> dt = DatetimeArg(c, 0);
  if (!dt) return Value::Null();
  return DateValue(*dt);
}

Result<Value> FnTime(Call& c) {
  std::optional<DateTime> t = TimeArg(c, 0);
  if (!t) return Value::Null();
  const int fsp = c.args[0].is_string() ? FractionDigits(c.args[0]) : t->frac_digits;
  return Value::Typed(FormatTime(*t, fsp), StringType::kTime);
}

Result<Value> FnDateDiff(Call& c) {
  std::optional<DateTime> a = FullDateArg(c, 0);
  std::optional<DateTime> b = FullDateArg(c, 1);
  if (!a || !b) return Value::Null();
  return Value::Int(DaysFromCivil(a->year, a->month, a->day) - DaysFromCivil(b->year, b->month, b->day));
}

// ------------------------------------------------------------------ TIME arithmetic

constexpr int64_t kMaxTimeMicros = (838LL * 3600 + 59 * 60 + 59) * 1000000;  // 838:59:59

// A TIME as signed microseconds.
int64_t TimeMicros(const DateTime& t) {
  const int64_t v = ((static_cast<int64_t>(t.hour) * 60 + t.minute) * 60 + t.second) * 1000000 + t.micro;
  return t.negative ? -v : v;
}

// A TIME of `micros`, held to MySQL's -838:59:59 .. 838:59:59 with warning
// 1292 (Truncated incorrect time value) when it was beyond.
Value TimeValue(Call& c, int64_t micros, int fsp, const std::string& shown) {
  if (micros > kMaxTimeMicros || micros < -kMaxTimeMicros) {
    c.Warn(er::kTruncatedWrongValue, "Truncated incorrect time value: '" + shown + "'");
    micros = micros < 0 ? -kMaxTimeMicros : kMaxTimeMicros;
  }
  DateTime r;
  r.negative = micros < 0;
  uint64_t m = static_cast<uint64_t>(micros < 0 ? -micros : micros);
  r.micro = static_cast<int>(m % 1000000);
  r.second = static_cast<int>(m / 1000000 % 60);
  r.minute = static_cast<int>(m / 60000000 % 60);
  r.hour = static_cast<int>(m / 3600000000ULL);
  return Value::Typed(FormatTime(r, fsp), StringType::kTime);
}

// Whether args[i] reads as a TIME rather than a DATETIME (TIMEDIFF,
// ADDTIME): a TIME, or what is no datetime ('10:20:30', 102030).
bool ReadsAsTime(const Call& c, size_t i) {
  const Value& v = c.args[i];
  if (v.string_type() == StringType::kTime) return true;
  if (v.is_temporal()) return false;
  return !ParseDatetime(v.ToString()).has_value();
}

// TIME_TO_SEC(t): t in seconds (a DATETIME's time of day).
Result<Value> FnTimeToSec(Call& c) {
  std::optional<DateTime> t = TimeArg(c, 0);
  if (!t) return Value::Null();
  const int64_t secs = TimeMicros(*t) / 1000000;
  return Value::Int(secs);
}

// SEC_TO_TIME(s): the TIME s seconds long, with s's fractional digits.
Result<Value> FnSecToTime(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const Value v = c.Dec(0);
  const Decimal d = v.ToDecimal();
  const int fsp = v.kind() == ValueKind::kInt || v.kind() == ValueKind::kUInt ? 0 : std::min<int>(d.scale, 6);
  std::optional<Decimal> micros = d.Rescaled(6);
  std::optional<__int128> m = micros ? micros->Unscaled() : std::nullopt;
  const __int128 limit = static_cast<__int128>(kMaxTimeMicros) + 1;
  const int64_t us = !m ? (d.negative ? -kMaxTimeMicros - 1 : kMaxTimeMicros + 1)
                        : static_cast<int64_t>(std::clamp<__int128>(*m, -limit, limit));
  return TimeValue(c, us, fsp, v.ToString());
}

// MAKETIME(h, m, s): NULL unless 0 <= m <= 59 and 0 <= s < 60.
Result<Value> FnMakeTime(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t h = c.Int(0), m = c.Int(1);
  const Value sv = c.Dec(2);
  const Decimal sd = sv.ToDecimal();
  const double s = sv.ToDouble();
  if (m < 0 || m > 59 || s < 0 || s >= 60) return Value::Null();
  const int fsp = sv.kind() == ValueKind::kInt || sv.kind() == ValueKind::kUInt ? 0 : std::min<int>(sd.scale, 6);
  std::optional<Decimal> sm = sd.Rescaled(6);
  const int64_t secs_micros = sm && sm->Unscaled() ? static_cast<int64_t>(*sm->Unscaled()) : 0;
  const int64_t hours = std::clamp<int64_t>(h, -1000, 1000);
  const int64_t mag = (std::abs(hours) * 3600 + m * 60) * 1000000 + secs_micros;
  return TimeValue(c, h < 0 ? -mag : mag, fsp, fmt::format("{}:{:02}:{}", h, m, sv.ToString()));
}

// TIMEDIFF(a, b): a - b as a TIME; both TIMEs or both DATETIMEs, else NULL.
Result<Value> FnTimeDiff(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const bool ta = ReadsAsTime(c, 0), tb = ReadsAsTime(c, 1);
  if (ta != tb) return Value::Null();
  int64_t a = 0, b = 0;
  // The digits of either operand's fraction, as written ('3.5' has one).
  int fsp = std::max(FractionDigits(c.args[0]), FractionDigits(c.args[1]));
  if (ta) {
    std::optional<DateTime> x = TimeArg(c, 0), y = TimeArg(c, 1);
    if (!x || !y) return Value::Null();
    a = TimeMicros(*x);
    b = TimeMicros(*y);
    fsp = std::max({fsp, x->frac_digits, y->frac_digits});
  } else {
    std::optional<DateTime> x = DatetimeArg(c, 0), y = DatetimeArg(c, 1);
    if (!x || !y) return Value::Null();
    a = ToMicros(*x);
    b = ToMicros(*y);
    fsp = std::max({fsp, x->frac_digits, y->frac_digits});
  }
  return TimeValue(c, a - b, fsp, std::to_string((a - b) / 1000000));
}

// ADDTIME(a, t) / SUBTIME(a, t): a DATETIME or TIME `a` moved by the TIME
// `t`, of a's kind.
Result<Value> AddTime(Call& c, bool subtract) {
  if (c.AnyNull()) return Value::Null();
  std::optional<DateTime> t = TimeArg(c, 1);
  if (!t) return Value::Null();
  const int64_t delta = subtract ? -TimeMicros(*t) : TimeMicros(*t);
  int fsp = std::max({FractionDigits(c.args[0]), FractionDigits(c.args[1]), t->frac_digits});
  if (ReadsAsTime(c, 0)) {
    std::optional<DateTime> x = TimeArg(c, 0);
    if (!x) return Value::Null();
    return TimeValue(c, TimeMicros(*x) + delta, std::max(fsp, x->frac_digits), c.args[0].ToString());
  }
  std::optional<DateTime> x = DatetimeArg(c, 0);
  if (!x) return Value::Null();
  fsp = std::max(fsp, x->frac_digits);
  std::optional<DateTime> r = FromMicros(ToMicros(*x) + delta);
  if (!r) return Value::Null();
  return DatetimeValue(*r, fsp);
}
Result<Value> FnAddTime(Call& c) { return AddTime(c, false); }
Result<Value> FnSubTime(Call& c) { return AddTime(c, true); }

// MAKEDATE(year, day_of_year): NULL for a day below 1 or a year past 9999;
// a two-digit year is 1970-2069, as MySQL reads it.
Result<Value> FnMakeDate(Call& c) {
  if (c.AnyNull()) return Value::Null();
  int64_t year = c.Int(0);
  const int64_t day = c.Int(1);
  if (day <= 0 || year < 0 || year > 9999) return Value::Null();
  if (year < 70) year += 2000;
  else if (year < 100) year += 1900;
  const int64_t days = DaysFromCivil(static_cast<int>(year), 1, 1) + day - 1;
  if (days > DaysFromCivil(9999, 12, 31)) return Value::Null();
  DateTime r;
  CivilFromDays(days, &r.year, &r.month, &r.day);
  return DateValue(r);
}

constexpr int64_t kDaysFromYear0 = 719528;  // 0000-01-01 .. 1970-01-01 (TO_DAYS' day 0 is year 0)

// FROM_DAYS(n): the date TO_DAYS gives n for; before day 366 (year 1)
// MySQL's zero date.
Result<Value> FnFromDays(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t n = c.Int(0);
  if (n < 366 || n > DaysFromCivil(9999, 12, 31) + kDaysFromYear0) {
    return n < 366 ? Value::Typed("0000-00-00", StringType::kDate) : Value::Null();
  }
  DateTime r;
  CivilFromDays(n - kDaysFromYear0, &r.year, &r.month, &r.day);
  return DateValue(r);
}

// TO_SECONDS(d): seconds since year 0.
Result<Value> FnToSeconds(Call& c) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  const int64_t days = DaysFromCivil(dt->year, dt->month, dt->day) + kDaysFromYear0;
  return Value::Int(days * 86400 + dt->hour * 3600 + dt->minute * 60 + dt->second);
}

// A period YYMM / YYYYMM as months since year 0 (a two-digit year is
// 1970-2069).
int64_t PeriodMonths(int64_t p) {
  if (p == 0) return 0;
  int64_t year = p / 100;
  if (year < 70) year += 2000;
  else if (year < 100) year += 1900;
  return year * 12 + p % 100 - 1;
}

Result<Value> FnPeriodAdd(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t p = c.Int(0), n = c.Int(1);
  if (p < 0 || p % 100 > 12) return MakeError(er::kWrongArguments, "period_add");
  if (p == 0) return Value::Int(0);
  const int64_t months = PeriodMonths(p) + n;
  if (months < 0) return Value::Int(0);
  return Value::Int(months / 12 * 100 + months % 12 + 1);
}

Result<Value> FnPeriodDiff(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t a = c.Int(0), b = c.Int(1);
  if (a < 0 || b < 0 || a % 100 > 12 || b % 100 > 12) return MakeError(er::kWrongArguments, "period_diff");
  return Value::Int(PeriodMonths(a) - PeriodMonths(b));
}

// WEEKOFYEAR(d) is WEEK(d, 3); YEARWEEK(d [, mode]) the year and week
// together (YYYYWW), the year the week belongs to.
Result<Value> FnWeekOfYear(Call& c) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  int year = 0;
  return Value::Int(WeekOfYear(*dt, 3, &year));
}

Result<Value> FnYearWeek(Call& c) {
  std::optional<DateTime> dt = FullDateArg(c, 0);
  if (!dt) return Value::Null();
  int mode = 0;
  if (c.args.size() > 1) {
    if (c.args[1].is_null()) return Value::Null();
    mode = static_cast<int>(c.Int(1) & 7);
  }
  int year = 0;
  // YEARWEEK counts the days of a first week in the year before as that
  // year's last week (mode | 2), as MySQL does.
  const int week = WeekOfYear(*dt, mode | 2, &year);
  return Value::Int(static_cast<int64_t>(year) * 100 + week);
}

// TIMESTAMP(d [, t]): d as a DATETIME, plus the TIME t.
Result<Value> FnTimestamp(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::optional<DateTime> dt = DatetimeArg(c, 0);
  if (!dt) return Value::Null();
  int fsp = FractionDigits(c.args[0]);
  if (c.args.size() > 1) {
    std::optional<DateTime> t = TimeArg(c, 1);
    if (!t) return Value::Null();
    std::optional<DateTime> r = FromMicros(ToMicros(*dt) + TimeMicros(*t));
    if (!r) return Value::Null();
    dt = r;
    fsp = std::max(fsp, FractionDigits(c.args[1]));
  }
  return DatetimeValue(*dt, fsp);
}

// CONVERT_TZ(dt, from, to): dt read in zone `from`, shown in zone `to`.
// Zones are offsets ('+05:30'), 'UTC' or 'SYSTEM' (the server's local
// zone); a named zone is NULL, as on a MySQL server without time zone
// tables. A dt outside TIMESTAMP's range is returned as it is (MySQL).
Result<Value> FnConvertTz(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::optional<DateTime> dt = DatetimeArg(c, 0);
  if (!dt) return Value::Null();
  const int fsp = FractionDigits(c.args[0]);
  auto to_utc_seconds = [&](const std::string& zone, const DateTime& local) -> std::optional<int64_t> {
    if (EqualsIgnoreCase(zone, "SYSTEM")) return LocalToUnixSeconds(local);
    std::optional<int64_t> offset = ParseZoneOffset(zone);
    if (!offset) return std::nullopt;
    return ToMicros(local) / 1000000 - *offset;
  };
  const std::string from = c.args[1].ToString(), to = c.args[2].ToString();
  if (!EqualsIgnoreCase(from, "SYSTEM") && !ParseZoneOffset(from)) return Value::Null();
  if (!EqualsIgnoreCase(to, "SYSTEM") && !ParseZoneOffset(to)) return Value::Null();
  std::optional<int64_t> utc = to_utc_seconds(from, *dt);
  // TIMESTAMP's range: 1970-01-01 00:00:01 .. 2038-01-19 03:14:07 UTC.
  if (!utc || *utc < 1 || *utc > 2147483647) return DatetimeValue(*dt, fsp);
  const int64_t us = *utc * 1000000 + dt->micro;
  DateTime r;
  if (EqualsIgnoreCase(to, "SYSTEM")) {
    r = FromUnixMicros(us, false);
  } else {
    r = FromUnixMicros(us + *ParseZoneOffset(to) * 1000000, true);
  }
  return DatetimeValue(r, fsp);
}

// The date at args[date] plus (minus) INTERVAL args[amount] `unit`.
// A DATE plus a date unit stays a DATE; everything else is a DATETIME with
// the date's fractional digits (6 when the result has microseconds).
Result<Value> AddUnits(Call& c, size_t date, const Value& amount, IntervalUnit unit, bool subtract) {
  const Value& d = c.args[date];
  if (d.is_null() || amount.is_null()) return Value::Null();
  std::optional<Interval> iv = MakeInterval(amount, unit);
  if (!iv) return Value::Null();
  if (d.string_type() == StringType::kTime) {
    // TIME +/- a time interval stays a TIME.
    std::optional<DateTime> t = ParseTime(d.string_value());
    if (!t || iv->months != 0) return Value::Null();
    int64_t span = ((static_cast<int64_t>(t->hour) * 60 + t->minute) * 60 + t->second) * 1000000 + t->micro;
    if (t->negative) span = -span;
    const int64_t delta = iv->days * 86400LL * 1000000 + iv->micros;
    span += subtract ? -delta : delta;
    constexpr int64_t kMaxTime = (838LL * 3600 + 59 * 60 + 59) * 1000000 + 999999;
    if (span > kMaxTime || span < -kMaxTime) return Value::Null();
    DateTime r;
    r.negative = span < 0;
    if (r.negative) span = -span;
    r.micro = static_cast<int>(span % 1000000);
    r.second = static_cast<int>(span / 1000000 % 60);
    r.minute = static_cast<int>(span / 60000000 % 60);
    r.hour = static_cast<int>(span / 3600000000LL);
    const int fsp = std::max(FractionDigits(d), r.micro != 0 ? 6 : 0);
    return Value::Typed(FormatTime(r, fsp), StringType::kTime);
  }
  std::optional<DateTime> dt = DatetimeArg(c, date);
  if (!dt) return Value::Null();
  std::optional<DateTime> r = AddInterval(*dt, *iv, subtract);
  if (!r) {
    if (dt->month == 0 || dt->day == 0) {
      WarnIncorrectDatetime(c, d);
    } else {
      c.Warn(er::kDatetimeFunctionOverflow, fmt::format(fmt::runtime(er::kDatetimeFunctionOverflow.format), "datetime"));
    }
    return Value::Null();
  }
  if (!HasTimePart(d) && IsDateUnit(unit)) return DateValue(*r);
  const int fsp = std::max(FractionDigits(d), r->micro != 0 ? 6 : 0);
  return DatetimeValue(*r, fsp);
}

// DATE_ADD(d, amount, unit) / DATE_SUB, the parser's form of
// DATE_ADD(d, INTERVAL amount unit) and d +/- INTERVAL amount unit;
// ADDDATE(d, days) / SUBDATE(d, days).
Result<Value> DateAddSub(Call& c, bool subtract) {
  if (c.expr.args.size() == 2) {
    Status st = EvaluateAllBut(c, 2);
    if (!st.ok()) return st;
    return AddUnits(c, 0, c.Num(1), IntervalUnit::kDay, subtract);
  }
  Result<IntervalUnit> unit = UnitArg(c, 2);
  if (!unit.ok()) return unit.status();
  Status st = EvaluateAllBut(c, 2);
  if (!st.ok()) return st;
  return AddUnits(c, 0, c.Num(1), *unit, subtract);
}

Result<Value> FnDateAdd(Call& c) { return DateAddSub(c, false); }
Result<Value> FnDateSub(Call& c) { return DateAddSub(c, true); }

Result<Value> FnTimestampAdd(Call& c) {
  Result<IntervalUnit> unit = UnitArg(c, 0);
  if (!unit.ok()) return unit.status();
  Status st = EvaluateAllBut(c, 0);
  if (!st.ok()) return st;
  return AddUnits(c, 2, c.Num(1), *unit, false);
}

Result<Value> FnTimestampDiff(Call& c) {
  Result<IntervalUnit> unit = UnitArg(c, 0);
  if (!unit.ok()) return unit.status();
  Status st = EvaluateAllBut(c, 0);
  if (!st.ok()) return st;
  std::optional<DateTime> a = DatetimeArg(c, 1);
  std::optional<DateTime> b = DatetimeArg(c, 2);
  if (!a || !b || a->month == 0 || b->month == 0 || a->day == 0 || b->day == 0) return Value::Null();
  const int64_t diff = ToMicros(*b) - ToMicros(*a);
  switch (*unit) {
    case IntervalUnit::kMicrosecond: return Value::Int(diff);
    case IntervalUnit::kSecond: return Value::Int(diff / 1000000);
    case IntervalUnit::kMinute: return Value::Int(diff / 60000000);
    case IntervalUnit::kHour: return Value::Int(diff / 3600000000LL);
    case IntervalUnit::kDay: return Value::Int(diff / 86400000000LL);
    case IntervalUnit::kWeek: return Value::Int(diff / (7 * 86400000000LL));
    case IntervalUnit::kMonth:
    case IntervalUnit::kQuarter:
    case IntervalUnit::kYear: {
      // Whole months from the earlier to the later: a month counts once its
      // day and time of day are reached again.
      const bool negative = diff < 0;
      const DateTime& from = negative ? *b : *a;
      const DateTime& to = negative ? *a : *b;
      int64_t months = (static_cast<int64_t>(to.year) - from.year) * 12 + (to.month - from.month);
      const int64_t from_rest = ToMicros(from) - ToMicros(DateTime{false, from.year, from.month, 1});
      const int64_t to_rest = ToMicros(to) - ToMicros(DateTime{false, to.year, to.month, 1});
      if (to_rest < from_rest) --months;
      if (negative) months = -months;
      if (*unit == IntervalUnit::kQuarter) return Value::Int(months / 3);
      if (*unit == IntervalUnit::kYear) return Value::Int(months / 12);
      return Value::Int(months);
    }
    default:
      return MakeError(er::kWrongArguments, "timestampdiff");
  }
}

// EXTRACT(unit FROM d), parsed as EXTRACT(unit, d).
Result<Value> FnExtract(Call& c) {
  Result<IntervalUnit> unit = UnitArg(c, 0);
  if (!unit.ok()) return unit.status();
  Status st = EvaluateAllBut(c, 0);
  if (!st.ok()) return st;
  if (c.args[1].is_null()) return Value::Null();
  using U = IntervalUnit;
  const U u = *unit;
  const bool time_only = u == U::kMicrosecond || u == U::kSecond || u == U::kMinute || u == U::kHour ||
                         u == U::kSecondMicrosecond || u == U::kMinuteMicrosecond ||
                         u == U::kMinuteSecond || u == U::kHourMicrosecond || u == U::kHourSecond ||
                         u == U::kHourMinute;
  std::optional<DateTime> t = time_only ? TimeArg(c, 1) : DatetimeArg(c, 1, /*fuzzy=*/true);
  if (!t) return Value::Null();
  const int64_t y = t->year, mo = t->month, d = t->day, h = t->hour, mi = t->minute, s = t->second,
                us = t->micro;
  int64_t r = 0;
  switch (u) {
    case U::kYear: r = y; break;
    case U::kQuarter: r = (mo + 2) / 3; break;
    case U::kMonth: r = mo; break;
    case U::kWeek: {
      if (mo == 0 || d == 0) return Value::Null();
      int year = 0;
      r = WeekOfYear(*t, 0, &year);
      break;
    }
    case U::kDay: r = d; break;
    case U::kHour: r = h; break;
    case U::kMinute: r = mi; break;
    case U::kSecond: r = s; break;
    case U::kMicrosecond: r = us; break;
    case U::kYearMonth: r = y * 100 + mo; break;
    case U::kDayHour: r = d * 100 + h; break;
    case U::kDayMinute: r = (d * 100 + h) * 100 + mi; break;
    case U::kDaySecond: r = ((d * 100 + h) * 100 + mi) * 100 + s; break;
    case U::kDayMicrosecond: r = (((d * 100 + h) * 100 + mi) * 100 + s) * 1000000 + us; break;
    case U::kHourMinute: r = h * 100 + mi; break;
    case U::kHourSecond: r = (h * 100 + mi) * 100 + s; break;
    case U::kHourMicrosecond: r = ((h * 100 + mi) * 100 + s) * 1000000 + us; break;
    case U::kMinuteSecond: r = mi * 100 + s; break;
    case U::kMinuteMicrosecond: r = (mi * 100 + s) * 1000000 + us; break;
    case U::kSecondMicrosecond: r = s * 1000000 + us; break;
  }
  return Value::Int(t->negative ? -r : r);
}

Result<Value> FnDateFormat(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::optional<DateTime> dt = DatetimeArg(c, 0, /*fuzzy=*/true);
  if (!dt) return Value::Null();
  std::optional<std::string> text = FormatWithPattern(*dt, c.args[1].ToString());
  return text ? Value::String(std::move(*text)) : Value::Null();
}

Result<Value> FnStrToDate(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string text = c.args[0].ToString();
  std::optional<ParsedWithPattern> r = ParseWithPattern(text, c.args[1].ToString());
  // sql_mode's NO_ZERO_DATE / NO_ZERO_IN_DATE (MySQL's default) refuse
  // dates with zero parts.
  const bool zero_date = r && (!r->has_time || r->has_date) &&
                         (r->value.month == 0 || r->value.day == 0);
  if (!r || zero_date) {
    c.Warn(er::kWrongValueForType,
           fmt::format(fmt::runtime(er::kWrongValueForType.format), "datetime", text, "str_to_date"));
    return Value::Null();
  }
  const int fsp = r->has_fraction ? 6 : 0;
  if (r->has_date && !r->has_time) return DateValue(r->value);
  if (r->has_time && !r->has_date) return Value::Typed(FormatTime(r->value, fsp), StringType::kTime);
  return DatetimeValue(r->value, fsp);
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
  Value out = Value::String(upper ? Utf8ToUpper(s) : Utf8ToLower(s));
  out.set_collation(c.args[0].collation(), c.args[0].coercibility());
  return out;
}

Result<Value> FnUpper(Call& c) { return ChangeCase(c, true); }
Result<Value> FnLower(Call& c) { return ChangeCase(c, false); }

Result<Value> FnSubstring(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const bool binary = c.args[0].is_binary();
  const int64_t n = static_cast<int64_t>(CharStarts(s, binary).size()) - 1;
  const int64_t pos = c.Int(1);
  int64_t start;
  if (pos > 0) {
    start = pos - 1;
  } else if (pos < 0) {
    start = n + pos;
    if (start < 0) return StringResult("", binary);
  } else {
    return StringResult("", binary);
  }
  int64_t len = c.args.size() > 2 ? c.Int(2) : n;
  return StringResult(SubChars(s, binary, start, len), binary);
}

Result<Value> FnLeft(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const bool binary = c.args[0].is_binary();
  return StringResult(SubChars(c.args[0].ToString(), binary, 0, c.Int(1)), binary);
}

Result<Value> FnRight(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const bool binary = c.args[0].is_binary();
  const int64_t n = static_cast<int64_t>(CharStarts(s, binary).size()) - 1;
  int64_t k = c.Int(1);
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
  const int64_t n = c.Int(1);
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
// `from` (1-based); 0 when absent. Characters compare under `collation`.
int64_t Locate(const std::string& needle, const std::string& hay, int64_t from,
               Collation collation) {
  const bool binary = collation == Collation::kBinary;
  std::vector<size_t> starts = CharStarts(hay, binary);
  const int64_t n = static_cast<int64_t>(starts.size()) - 1;
  if (from < 1 || from > n + 1) return 0;
  if (needle.empty()) return from;
  if (IsCaseSensitive(collation)) {
    size_t pos = hay.find(needle, starts[from - 1]);
    while (pos != std::string::npos) {
      // Only matches that start on a character boundary count.
      auto it = std::lower_bound(starts.begin(), starts.end(), pos);
      if (it != starts.end() && *it == pos) return (it - starts.begin()) + 1;
      pos = hay.find(needle, pos + 1);
    }
    return 0;
  }
  // Windows of the needle's length in characters, compared by the collation.
  const int64_t width = static_cast<int64_t>(CharStarts(needle, false).size()) - 1;
  for (int64_t k = from - 1; k + width <= n; ++k) {
    std::string_view window(hay.data() + starts[k], starts[k + width] - starts[k]);
    if (CompareStrings(window, needle, collation) == 0) return k + 1;
  }
  return 0;
}

Result<Value> FnLocate(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t from = c.args.size() > 2 ? c.Int(2) : 1;
  return Value::Int(Locate(c.args[0].ToString(), c.args[1].ToString(), from, c.CollationOf(1, 0)));
}

Result<Value> FnInstr(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Value::Int(Locate(c.args[1].ToString(), c.args[0].ToString(), 1, c.CollationOf(0, 1)));
}

Result<Value> Pad(Call& c, bool left) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const std::string pad = c.args[2].ToString();
  const bool binary = AnyBinary(c);
  const int64_t len = c.Int(1);
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
  int64_t n = c.Int(0);
  if (n <= 0) return Value::String("");
  if (auto null = TooLong(c, static_cast<uint64_t>(n))) return *null;
  return Value::String(std::string(static_cast<size_t>(n), ' '));
}

Result<Value> FnStrcmp(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Value::Int(CompareStrings(c.args[0].ToString(), c.args[1].ToString(), c.CollationOf(0, 1)));
}

Result<Value> FnField(Call& c) {
  if (c.args[0].is_null()) return Value::Int(0);
  // All strings compare as strings, all numbers as numbers, a mix as DOUBLE.
  bool all_strings = true, all_numbers = true;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (c.args[i].is_null()) continue;
    const bool text = c.args[i].is_string() && !c.expr.args[i]->hex_literal;
    all_strings = all_strings && text;
    all_numbers = all_numbers && !text;
  }
  // A mix reads each string as a DOUBLE (1292 when more than a number is
  // in it), the searched value once.
  const Value first = all_strings || all_numbers ? c.Num(0) : Value::Double(c.Double(0).ToDouble());
  for (size_t i = 1; i < c.args.size(); ++i) {
    if (c.args[i].is_null()) continue;
    std::optional<int> cmp;
    if (all_strings) {
      cmp = CompareValues(c.args[0], c.args[i]);
    } else if (all_numbers) {
      cmp = CompareValues(first, c.Num(i));
    } else {
      cmp = CompareValues(first, Value::Double(c.Double(i).ToDouble()));
    }
    if (cmp == 0) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(0);
}

Result<Value> FnElt(Call& c) {
  if (c.args[0].is_null()) return Value::Null();
  const int64_t n = c.Int(0);
  if (n < 1 || n >= static_cast<int64_t>(c.args.size())) return Value::Null();
  return c.args[n];
}

Result<Value> FnFindInSet(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string needle = c.args[0].ToString();
  const std::string list = c.args[1].ToString();
  if (list.empty() || needle.find(',') != std::string::npos) return Value::Int(0);
  const Collation collation = c.CollationOf(0, 1);
  int64_t index = 1;
  size_t begin = 0;
  for (;;) {
    const size_t comma = list.find(',', begin);
    std::string_view item(list.data() + begin, (comma == std::string::npos ? list.size() : comma) - begin);
    if (CompareStrings(item, needle, collation) == 0) return Value::Int(index);
    if (comma == std::string::npos) return Value::Int(0);
    begin = comma + 1;
    ++index;
  }
}

// FORMAT(X, D[, locale]): X rounded to D decimals, with thousands separators.
Result<Value> FnFormat(Call& c) {
  if (c.args[0].is_null() || c.args[1].is_null()) return Value::Null();
  const Value x = c.Double(0);
  const int64_t d = std::clamp<int64_t>(c.Int(1), 0, 30);
  std::string digits;
  if (x.kind() == ValueKind::kInt || x.kind() == ValueKind::kUInt || x.kind() == ValueKind::kDecimal) {
    std::optional<Decimal> r = x.ToDecimal().Rescaled(static_cast<int>(d));
    digits = r ? r->ToString() : fmt::format("{:.{}f}", x.ToDouble(), d);
  } else {
    const double v = x.ToDouble();
    if (!std::isfinite(v)) return Value::String(FormatDouble(v));
    const double p = std::pow(10.0, static_cast<double>(d));
    const double scaled = v * p;
    const double rounded = std::isfinite(scaled) ? std::rint(scaled) / p : v;
    digits = fmt::format("{:.{}f}", rounded, d);
    if (digits.size() > 1 && digits[0] == '-' && digits.find_first_not_of("-0.") == std::string::npos) {
      digits.erase(0, 1);  // -0.00 prints as 0.00
    }
  }
  // Locales: en_US (the default) and those writing 1.234.567,89.
  char thousands = ',', point = '.';
  if (c.args.size() > 2 && !c.args[2].is_null()) {
    const std::string locale = c.args[2].ToString();
    static const char* const kDotThousands[] = {"de_DE", "de_AT", "es_ES", "it_IT", "nl_NL",
                                                "pt_BR", "id_ID", "da_DK", "tr_TR", "el_GR"};
    for (const char* l : kDotThousands) {
      if (EqualsIgnoreCase(locale, l)) {
        thousands = '.';
        point = ',';
      }
    }
  }
  const bool negative = !digits.empty() && digits[0] == '-';
  const size_t int_begin = negative ? 1 : 0;
  const size_t dot = digits.find('.');
  const size_t int_end = dot == std::string::npos ? digits.size() : dot;
  std::string out = negative ? "-" : "";
  for (size_t i = int_begin; i < int_end; ++i) {
    out.push_back(digits[i]);
    const size_t left = int_end - i - 1;
    if (left > 0 && left % 3 == 0) out.push_back(thousands);
  }
  if (dot != std::string::npos) {
    out.push_back(point);
    out.append(digits, dot + 1, std::string::npos);
  }
  return Value::String(std::move(out));
}

Result<Value> FnQuote(Call& c) {
  if (c.args[0].is_null()) return Value::String("NULL");
  const std::string s = c.args[0].ToString();
  std::string out = "'";
  for (char ch : s) {
    switch (ch) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\0': out += "\\0"; break;
      case '\x1a': out += "\\Z"; break;
      default: out.push_back(ch);
    }
  }
  out.push_back('\'');
  return StringResult(std::move(out), c.args[0].is_binary());
}

Result<Value> FnSubstringIndex(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const std::string delim = c.args[1].ToString();
  const int64_t count = c.Int(2);
  const bool binary = AnyBinary(c);
  if (delim.empty() || count == 0) return StringResult("", binary);
  if (count > 0) {
    size_t pos = 0;
    for (int64_t k = 0; k < count; ++k) {
      const size_t hit = s.find(delim, pos);
      if (hit == std::string::npos) return StringResult(s, binary);
      if (k + 1 == count) return StringResult(s.substr(0, hit), binary);
      pos = hit + delim.size();
    }
    return StringResult(s, binary);
  }
  size_t end = s.size();
  for (int64_t k = 0; k < -count; ++k) {
    if (end < delim.size()) return StringResult(s, binary);
    const size_t hit = s.rfind(delim, end - delim.size());
    if (hit == std::string::npos) return StringResult(s, binary);
    if (k + 1 == -count) return StringResult(s.substr(hit + delim.size()), binary);
    if (hit == 0) return StringResult(s, binary);
    end = hit;
  }
  return StringResult(s, binary);
}

// INSERT(str, pos, len, newstr): str with len characters from pos replaced.
Result<Value> FnInsert(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const bool binary = AnyBinary(c);
  const std::vector<size_t> starts = CharStarts(s, binary);
  const int64_t n = static_cast<int64_t>(starts.size()) - 1;
  const int64_t pos = c.Int(1);
  int64_t len = c.Int(2);
  if (pos < 1 || pos > n) return StringResult(s, binary);
  if (len < 0 || len > n - pos + 1) len = n - pos + 1;
  std::string out = s.substr(0, starts[pos - 1]) + c.args[3].ToString() + s.substr(starts[pos - 1 + len]);
  if (auto null = TooLong(c, out.size())) return *null;
  return StringResult(std::move(out), binary);
}

// ------------------------------------------------------------------ control flow

Result<Value> FnIf(Call& c) {
  Result<std::optional<bool>> cond = EvaluateTruth(*c.expr.args[0], c.ctx);
  if (!cond.ok()) return cond.status();
  return Eval(*c.expr.args[*cond == std::optional<bool>(true) ? 1 : 2], c.ctx);
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
  if (CompareValues(c.args[0], c.args[1]) == 0) return Value::Null();
  return c.args[0];
}

Result<Value> FnIsnull(Call& c) { return Value::Bool(c.args[0].is_null()); }

// ------------------------------------------------------------------ math

Result<Value> FnAbs(Call& c) {
  const Value v = c.Double(0);
  switch (v.kind()) {
    case ValueKind::kNull: return Value::Null();
    case ValueKind::kInt:
      if (v.int_value() == std::numeric_limits<int64_t>::min()) return OutOfRange("BIGINT", c.expr);
      return Value::Int(v.int_value() < 0 ? -v.int_value() : v.int_value());
    case ValueKind::kUInt: return v;
    case ValueKind::kDouble: return Value::Double(std::fabs(v.double_value()));
    case ValueKind::kDecimal: return Value::Dec(v.decimal_value().Abs());
    case ValueKind::kString: return Value::Double(std::fabs(v.ToDouble()));
  }
  return Value::Null();
}

// CEIL (up = true) / FLOOR of a DECIMAL: an integer, BIGINT when it fits.
Value DecimalToIntegral(const Decimal& d, bool up) {
  // Never overflows: |d| < 10^65 and d has a digit after the point to lose.
  const Decimal q = *d.RoundedTo(0, up ? Decimal::Rounding::kCeiling : Decimal::Rounding::kFloor);
  std::optional<__int128> v = q.Unscaled();
  if (v && *v >= std::numeric_limits<int64_t>::min() && *v <= std::numeric_limits<int64_t>::max()) {
    return Value::Int(static_cast<int64_t>(*v));
  }
  return Value::Dec(q);
}

Result<Value> CeilFloor(Call& c, bool up) {
  const Value v = c.Double(0);
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
  const Value v = c.Double(0);
  int64_t d = c.args.size() > 1 ? c.Int(1) : 0;
  if (d > 30) d = 30;
  if (d < -100) d = -100;
  switch (v.kind()) {
    case ValueKind::kInt:
    case ValueKind::kUInt: {
      if (d >= 0) return v;
      if (-d > 20) return v.kind() == ValueKind::kInt ? Value::Int(0) : Value::UInt(0);
      const __int128 p = Pow10(static_cast<int>(-d));
      // Each arm widened first: int64 ? uint64 would make a negative huge.
      const __int128 x = v.kind() == ValueKind::kInt ? static_cast<__int128>(v.int_value())
                                                     : static_cast<__int128>(v.uint_value());
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
      // Never more places than the value has: ROUND(1.5, 3) is 1.5.
      const int places = std::min<int>(static_cast<int>(d), x.scale);
      auto r = x.RoundedTo(places, truncate ? Decimal::Rounding::kTowardZero : Decimal::Rounding::kHalfAwayFromZero);
      if (!r) return OutOfRange("DECIMAL", c.expr);
      return Value::Dec(*r);
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

Result<Value> FnMod(Call& c) {
  const Value a = c.Double(0);
  const Value b = c.Double(1);
  return Arithmetic(Op::kMod, a, b, c.expr, c.ctx);
}

Result<Value> FnPow(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const double x = c.Double(0).ToDouble();
  const double y = c.Double(1).ToDouble();
  double r = std::pow(x, y);
  if (!std::isfinite(r)) return OutOfRange("DOUBLE", c.expr);
  return Value::Double(r);
}

Result<Value> FnSqrt(Call& c) {
  if (c.AnyNull()) return Value::Null();
  double x = c.Double(0).ToDouble();
  if (x < 0) return Value::Null();
  return Value::Double(std::sqrt(x));
}

Result<Value> FnSign(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::optional<int> s = CompareValues(c.Double(0), Value::Int(0));
  return Value::Int(*s);
}

Result<Value> GreatestLeast(Call& c, bool greatest) {
  if (c.AnyNull()) return Value::Null();
  bool all_strings = true, all_ints = true, any_double = false;
  std::vector<Value> vals;
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Value& raw = c.args[i];
    all_strings = all_strings && raw.is_string() && !c.expr.args[i]->hex_literal;
  }
  // One collation for the whole list: the firmest one, binary over all.
  const Value* firmest = &c.args[0];
  for (const Value& v : c.args) {
    if (firmest->is_binary()) break;
    if (v.is_binary() || v.coercibility() < firmest->coercibility()) firmest = &v;
  }
  const Collation collation = firmest->collation();
  for (size_t i = 0; i < c.args.size(); ++i) {
    // A mix reads each string as a DOUBLE (1292 when more than a number
    // is in it).
    Value v = all_strings ? c.args[i] : c.Double(i);
    if (!all_strings) {
      if (v.kind() == ValueKind::kDouble || (v.is_string() && !v.is_temporal())) any_double = true;
      if (v.kind() != ValueKind::kInt && v.kind() != ValueKind::kUInt) all_ints = false;
    }
    vals.push_back(std::move(v));
  }
  size_t best = 0;
  for (size_t i = 1; i < vals.size(); ++i) {
    int cmp = all_strings ? CompareValues(vals[i], vals[best], collation).value_or(0)
                          : CompareValues(vals[i], vals[best]).value_or(0);
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
  switch (c.Int(1)) {
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
  const uint64_t n = static_cast<uint64_t>(c.Int(0));
  constexpr uint32_t kMax = 0x3FFFFFFF;
  uint32_t seed1 = static_cast<uint32_t>(n * 0x10001ULL + 55555555ULL) % kMax;
  uint32_t seed2 = static_cast<uint32_t>(n * 0x10000001ULL) % kMax;
  seed1 = static_cast<uint32_t>((static_cast<uint64_t>(seed1) * 3 + seed2) % kMax);
  return Value::Double(static_cast<double>(seed1) / static_cast<double>(kMax));
}

Result<Value> FnSleep(Call& c) {
  const Value v = c.Double(0);
  if (v.is_null() || v.ToDouble() < 0) {
    c.Warn(er::kWrongArguments, "Incorrect arguments to sleep");
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

const FunctionTable& Registry() {
  static const FunctionTable kFunctions = [] {
    FunctionTable t = {
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
      {"FIELD", {2, -1, false, FnField}},
      {"ELT", {2, -1, false, FnElt}},
      {"FIND_IN_SET", {2, 2, false, FnFindInSet}},
      {"FORMAT", {2, 3, false, FnFormat}},
      {"QUOTE", {1, 1, false, FnQuote}},
      {"SUBSTRING_INDEX", {3, 3, false, FnSubstringIndex}},
      {"INSERT", {4, 4, false, FnInsert}},
      {"FROM_UNIXTIME", {1, 2, false, FnFromUnixtime}},
      {"YEAR", {1, 1, false, FnYear}},
      {"MONTH", {1, 1, false, FnMonth}},
      {"DAY", {1, 1, false, FnDay}},
      {"DAYOFMONTH", {1, 1, false, FnDay}},
      {"QUARTER", {1, 1, false, FnQuarter}},
      {"HOUR", {1, 1, false, FnHour}},
      {"MINUTE", {1, 1, false, FnMinute}},
      {"SECOND", {1, 1, false, FnSecond}},
      {"MICROSECOND", {1, 1, false, FnMicrosecond}},
      {"DAYOFWEEK", {1, 1, false, FnDayOfWeek}},
      {"WEEKDAY", {1, 1, false, FnWeekday}},
      {"DAYOFYEAR", {1, 1, false, FnDayOfYear}},
      {"WEEK", {1, 2, false, FnWeek}},
      {"TO_DAYS", {1, 1, false, FnToDays}},
      {"DAYNAME", {1, 1, false, FnDayName}},
      {"MONTHNAME", {1, 1, false, FnMonthName}},
      {"LAST_DAY", {1, 1, false, FnLastDay}},
      {"DATE", {1, 1, false, FnDate}},
      {"TIME", {1, 1, false, FnTime}},
      {"DATEDIFF", {2, 2, false, FnDateDiff}},
      {"TIME_TO_SEC", {1, 1, false, FnTimeToSec}},
      {"SEC_TO_TIME", {1, 1, false, FnSecToTime}},
      {"MAKETIME", {3, 3, false, FnMakeTime}},
      {"TIMEDIFF", {2, 2, false, FnTimeDiff}},
      {"ADDTIME", {2, 2, false, FnAddTime}},
      {"SUBTIME", {2, 2, false, FnSubTime}},
      {"MAKEDATE", {2, 2, false, FnMakeDate}},
      {"FROM_DAYS", {1, 1, false, FnFromDays}},
      {"TO_SECONDS", {1, 1, false, FnToSeconds}},
      {"PERIOD_ADD", {2, 2, false, FnPeriodAdd}},
      {"PERIOD_DIFF", {2, 2, false, FnPeriodDiff}},
      {"WEEKOFYEAR", {1, 1, false, FnWeekOfYear}},
      {"YEARWEEK", {1, 2, false, FnYearWeek}},
      {"TIMESTAMP", {1, 2, false, FnTimestamp}},
      {"CONVERT_TZ", {3, 3, false, FnConvertTz}},
      {"DATE_ADD", {3, 3, true, FnDateAdd}},
      {"DATE_SUB", {3, 3, true, FnDateSub}},
      {"ADDDATE", {2, 3, true, FnDateAdd}},
      {"SUBDATE", {2, 3, true, FnDateSub}},
      {"TIMESTAMPADD", {3, 3, true, FnTimestampAdd}},
      {"TIMESTAMPDIFF", {3, 3, true, FnTimestampDiff}},
      {"EXTRACT", {2, 2, true, FnExtract}},
      {"DATE_FORMAT", {2, 2, false, FnDateFormat}},
      {"STR_TO_DATE", {2, 2, false, FnStrToDate}},
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
    AddNumericFunctions(&t);
    AddTextFunctions(&t);
    return t;
  }();
  return kFunctions;
}

}  // namespace

bool AnyBinaryArg(const Call& c) {
  for (const Value& v : c.args) {
    if (v.is_binary()) return true;
  }
  return false;
}

std::optional<Value> TooLongResult(Call& c, uint64_t size) {
  const uint64_t max = c.ctx.MaxAllowedPacket();
  if (size <= max) return std::nullopt;
  std::string fname = AsciiLower(c.name);
  c.Warn(er::kWarnAllowedPacketOverflowed, fmt::format(fmt::runtime(er::kWarnAllowedPacketOverflowed.format), fname, max));
  return Value::Null();
}

Result<Value> CallFunction(const Expr& call, EvalContext& ctx) {
  const std::string upper = AsciiUpper(call.name);
  auto evaluate_args = [&](std::vector<Value>* args) -> Status {
    args->reserve(call.args.size());
    for (const ExprPtr& arg : call.args) {
      Result<Value> v = Evaluate(*arg, ctx);
      if (!v.ok()) return v.status();
      args->push_back(std::move(v).value());
    }
    return Status::OK();
  };
  if (json::IsFunction(upper)) {  // sql/json.h checks its own argument counts
    std::vector<Value> args;
    SLUICE_RETURN_IF_ERROR(evaluate_args(&args));
    return json::Call(upper, args, ctx);
  }
  const auto& registry = Registry();
  auto it = registry.find(upper);
  if (it == registry.end()) {
    if (ctx.IsServerFunction(upper)) {
      std::vector<Value> args;
      SLUICE_RETURN_IF_ERROR(evaluate_args(&args));
      return ctx.CallServerFunction(upper, args);
    }
    std::optional<std::string> db = ctx.CurrentDatabase();
    return MakeError(er::kSpDoesNotExist, "FUNCTION", db ? *db + "." + call.name : call.name);
  }
  const FunctionDef& def = it->second;
  const int n = static_cast<int>(call.args.size());
  if (n < def.min_args || (def.max_args >= 0 && n > def.max_args)) {
    return MakeError(er::kWrongParamcountToNativeFct, call.name);
  }
  Call c{call, ctx, {}, upper, Status::OK()};
  if (!def.lazy) SLUICE_RETURN_IF_ERROR(evaluate_args(&c.args));
  Result<Value> r = def.fn(c);
  if (!c.error.ok()) return c.error;
  return r;
}

}  // namespace sluice::sql
