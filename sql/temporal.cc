#include <algorithm>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "sql/lexer.h"
#include "sql/temporal.h"

namespace sluice::sql {

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeapYear(y) ? 29 : kDays[m - 1];
}

// Years are counted in 400-year eras so the arithmetic stays exact.
int64_t DaysFromCivil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void CivilFromDays(int64_t z, int* y, int* m, int* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = static_cast<int>(yoe + era * 400 + (*m <= 2 ? 1 : 0));
}

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

int ParseFraction(std::string_view digits, int* frac_digits) {
  int micro = 0;
  int n = 0;
  for (char c : digits) {
    if (n == 6) break;
    micro = micro * 10 + (c - '0');
    ++n;
  }
  *frac_digits = n;
  for (int i = n; i < 6; ++i) micro *= 10;
  return micro;
}

int ToNumber(std::string_view digits) {
  int v = 0;
  for (char c : digits) v = v * 10 + (c - '0');
  return v;
}

int FourDigitYear(int y, size_t written_digits) {
  if (written_digits > 2) return y;
  return y < 70 ? 2000 + y : 1900 + y;
}

bool ValidDate(const DateTime& dt, bool fuzzy) {
  if (dt.year > 9999 || dt.month > 12 || dt.day > 31) return false;
  if (dt.month == 0 || dt.day == 0) {
    return fuzzy || (dt.month == 0 && dt.day == 0 && dt.year == 0);
  }
  return dt.day <= DaysInMonth(dt.year, dt.month);
}

bool ValidClock(const DateTime& dt) {
  return dt.hour < 24 && dt.minute < 60 && dt.second < 60;
}

std::string Pad(int v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
  return s;
}

std::string Fraction(int micro, int fsp) {
  if (fsp <= 0) return "";
  std::string digits = Pad(micro, 6).substr(0, fsp);
  return "." + digits;
}

std::optional<DateTime> ParseDatetimeImpl(std::string_view s, bool fuzzy) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  DateTime dt;
  size_t dot = s.find('.');
  std::string_view main = s.substr(0, dot);
  bool all_digits = !main.empty();
  for (char c : main) all_digits = all_digits && IsDigit(c);
  if (all_digits) {
    std::string_view frac;
    if (dot != std::string_view::npos) {
      frac = s.substr(dot + 1);
      for (char c : frac) {
        if (!IsDigit(c)) return std::nullopt;
      }
    }
    switch (main.size()) {
      case 14:
      case 8:
        dt.year = ToNumber(main.substr(0, 4));
        main.remove_prefix(4);
        break;
      case 12:
      case 6:
        dt.year = FourDigitYear(ToNumber(main.substr(0, 2)), 2);
        main.remove_prefix(2);
        break;
      default:
        return std::nullopt;
    }
    dt.month = ToNumber(main.substr(0, 2));
    dt.day = ToNumber(main.substr(2, 2));
    if (main.size() == 10) {
      dt.hour = ToNumber(main.substr(4, 2));
      dt.minute = ToNumber(main.substr(6, 2));
      dt.second = ToNumber(main.substr(8, 2));
      dt.micro = ParseFraction(frac, &dt.frac_digits);
    }
  } else {
    // Digit groups split by any punctuation; '.' after the seconds starts
    // the fraction.
    std::vector<std::string_view> groups;
    std::string_view frac;
    size_t i = 0;
    while (i < s.size()) {
      if (!IsDigit(s[i])) return std::nullopt;
      size_t j = i;
      while (j < s.size() && IsDigit(s[j])) ++j;
      groups.push_back(s.substr(i, j - i));
      if (j == s.size()) break;
      char delim = s[j];
      if (groups.size() == 6 && delim == '.') {
        frac = s.substr(j + 1);
        for (char c : frac) {
          if (!IsDigit(c)) return std::nullopt;
        }
        break;
      }
      if (IsDigit(delim) || groups.size() >= 6) return std::nullopt;
      i = j + 1;
      // A run of spaces (or 'T') separates date and time.
      if (groups.size() == 3) {
        while (i < s.size() && s[i] == ' ') ++i;
      }
    }
    if (groups.size() < 3) return std::nullopt;
    for (auto g : groups) {
      if (g.size() > 4) return std::nullopt;
    }
    dt.year = FourDigitYear(ToNumber(groups[0]), groups[0].size());
    dt.month = ToNumber(groups[1]);
    dt.day = ToNumber(groups[2]);
    if (groups.size() > 3) dt.hour = ToNumber(groups[3]);
    if (groups.size() > 4) dt.minute = ToNumber(groups[4]);
    if (groups.size() > 5) dt.second = ToNumber(groups[5]);
    dt.micro = ParseFraction(frac, &dt.frac_digits);
  }
  if (!ValidDate(dt, fuzzy) || !ValidClock(dt)) return std::nullopt;
  return dt;
}

}  // namespace

std::optional<DateTime> ParseDatetime(std::string_view s) { return ParseDatetimeImpl(s, false); }

std::optional<DateTime> ParseDatetimeFuzzy(std::string_view s) {
  return ParseDatetimeImpl(s, true);
}

std::optional<DateTime> ParseTime(std::string_view s) {
  s = Trim(s);
  if (s.empty()) return std::nullopt;
  DateTime dt;
  if (s.find('-', 1) != std::string_view::npos) {
    auto full = ParseDatetime(s);
    if (!full) return std::nullopt;
    DateTime t;
    t.hour = full->hour;
    t.minute = full->minute;
    t.second = full->second;
    t.micro = full->micro;
    t.frac_digits = full->frac_digits;
    return t;
  }
  if (s[0] == '-') {
    dt.negative = true;
    s.remove_prefix(1);
  }
  std::string_view frac;
  size_t dot = s.find('.');
  if (dot != std::string_view::npos) {
    frac = s.substr(dot + 1);
    s = s.substr(0, dot);
    for (char c : frac) {
      if (!IsDigit(c)) return std::nullopt;
    }
  }
  int days = 0;
  size_t space = s.find(' ');
  if (space != std::string_view::npos) {
    std::string_view d = s.substr(0, space);
    for (char c : d) {
      if (!IsDigit(c)) return std::nullopt;
    }
    if (d.empty() || d.size() > 2) return std::nullopt;
    days = ToNumber(d);
    s = Trim(s.substr(space + 1));
  }
  if (s.find(':') != std::string_view::npos) {
    std::vector<std::string_view> parts;
    size_t i = 0;
    for (;;) {
      size_t j = s.find(':', i);
      parts.push_back(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
      if (j == std::string_view::npos) break;
      i = j + 1;
    }
    if (parts.size() > 3) return std::nullopt;
    for (auto p : parts) {
      if (p.empty() || p.size() > 3) return std::nullopt;
      for (char c : p) {
        if (!IsDigit(c)) return std::nullopt;
      }
    }
    dt.hour = ToNumber(parts[0]);
    dt.minute = ToNumber(parts[1]);
    if (parts.size() == 3) dt.second = ToNumber(parts[2]);
  } else {
    for (char c : s) {
      if (!IsDigit(c)) return std::nullopt;
    }
    if (s.empty() || s.size() > 7) return std::nullopt;
    int v = ToNumber(s);
    dt.second = v % 100;
    dt.minute = (v / 100) % 100;
    dt.hour = v / 10000;
  }
  dt.hour += days * 24;
  dt.micro = ParseFraction(frac, &dt.frac_digits);
  if (dt.minute > 59 || dt.second > 59 || dt.hour > 838) return std::nullopt;
  return dt;
}

std::optional<DateTime> ValueToDatetime(const Value& v) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return ParseDatetime(v.string_value());
  std::string text = v.kind() == ValueKind::kDouble ? Value::Dec(v.ToDecimal()).ToString()
                                                    : v.ToString();
  if (!text.empty() && text[0] == '-') return std::nullopt;
  return ParseDatetime(text);
}

std::optional<DateTime> ValueToTime(const Value& v) {
  if (v.is_null()) return std::nullopt;
  if (v.is_string()) return ParseTime(v.string_value());
  std::string text = v.kind() == ValueKind::kDouble ? Value::Dec(v.ToDecimal()).ToString()
                                                    : v.ToString();
  return ParseTime(text);
}

DateTime RoundFraction(DateTime dt, int fsp, bool is_time) {
  if (fsp >= 6) return dt;
  int unit = 1;
  for (int i = fsp; i < 6; ++i) unit *= 10;
  int rounded = (dt.micro + unit / 2) / unit * unit;
  dt.frac_digits = std::min(dt.frac_digits, fsp);
  if (rounded < 1000000) {
    dt.micro = rounded;
    return dt;
  }
  dt.micro = 0;
  if (++dt.second < 60) return dt;
  dt.second = 0;
  if (++dt.minute < 60) return dt;
  dt.minute = 0;
  ++dt.hour;
  if (is_time || dt.hour < 24) return dt;
  dt.hour = 0;
  if (dt.month == 0) return dt;  // zero date: nothing to carry into
  int64_t days = DaysFromCivil(dt.year, dt.month, dt.day) + 1;
  CivilFromDays(days, &dt.year, &dt.month, &dt.day);
  return dt;
}

std::string FormatDate(const DateTime& dt) {
  return Pad(dt.year, 4) + "-" + Pad(dt.month, 2) + "-" + Pad(dt.day, 2);
}

std::string FormatDatetime(const DateTime& dt, int fsp) {
  return FormatDate(dt) + " " + Pad(dt.hour, 2) + ":" + Pad(dt.minute, 2) + ":" +
         Pad(dt.second, 2) + Fraction(dt.micro, fsp);
}

std::string FormatTime(const DateTime& dt, int fsp) {
  return std::string(dt.negative ? "-" : "") + Pad(dt.hour, 2) + ":" + Pad(dt.minute, 2) + ":" +
         Pad(dt.second, 2) + Fraction(dt.micro, fsp);
}

DateTime FromTimePoint(std::chrono::system_clock::time_point tp, bool utc) {
  return FromUnixMicros(std::chrono::duration_cast<std::chrono::microseconds>(tp.time_since_epoch()).count(), utc);
}

DateTime FromUnixMicros(int64_t us, bool utc) {
  int64_t secs = us / 1000000;
  int64_t micro = us % 1000000;
  if (micro < 0) {
    micro += 1000000;
    --secs;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (utc) {
    gmtime_r(&t, &tm);
  } else {
    localtime_r(&t, &tm);
  }
  DateTime dt;
  dt.year = tm.tm_year + 1900;
  dt.month = tm.tm_mon + 1;
  dt.day = tm.tm_mday;
  dt.hour = tm.tm_hour;
  dt.minute = tm.tm_min;
  dt.second = tm.tm_sec;
  dt.micro = static_cast<int>(micro);
  dt.frac_digits = 6;
  return dt;
}

std::optional<int64_t> LocalToUnixSeconds(const DateTime& dt) {
  std::tm tm{};
  tm.tm_year = dt.year - 1900;
  tm.tm_mon = dt.month - 1;
  tm.tm_mday = dt.day;
  tm.tm_hour = dt.hour;
  tm.tm_min = dt.minute;
  tm.tm_sec = dt.second;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1) && !(dt.year == 1969 && dt.month == 12 && dt.day == 31)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(t);
}


// ---------------------------------------------------------------- calendar

namespace {

int Mod7(int64_t v) { return static_cast<int>(((v % 7) + 7) % 7); }

int DaysInYear(int y) { return IsLeapYear(y) ? 366 : 365; }

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

const char* const kMonthNames[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};
const char* const kDayNames[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                 "Friday", "Saturday", "Sunday"};

}  // namespace

int Weekday(const DateTime& dt) { return Mod7(DaysFromCivil(dt.year, dt.month, dt.day) + 3); }

int DayOfYear(const DateTime& dt) {
  return static_cast<int>(DaysFromCivil(dt.year, dt.month, dt.day) - DaysFromCivil(dt.year, 1, 1)) + 1;
}

int WeekOfYear(const DateTime& dt, int mode, int* week_year) {
  // The mode's three bits, as MySQL's WEEK() documents them: whether weeks
  // start on Monday, whether the week belongs to the year holding most of it
  // (weeks 1..53, never 0), and whether week 1 is the first week with a
  // first day of the week in the year rather than the first with 4+ days.
  int flags = mode & 7;
  if ((flags & 1) == 0) flags ^= 4;
  const bool monday_first = (flags & 1) != 0;
  bool by_year = (flags & 2) != 0;
  const bool first_weekday = (flags & 4) != 0;
  // Position of a day in its week: 0 for the week's first day.
  auto position = [&](int64_t days) { return Mod7(days + (monday_first ? 3 : 4)); };
  auto starts_late = [&](int jan1) { return first_weekday ? jan1 != 0 : jan1 >= 4; };

  const int64_t day = DaysFromCivil(dt.year, dt.month, dt.day);
  int64_t jan1 = DaysFromCivil(dt.year, 1, 1);
  int jan1_pos = position(jan1);
  int year = dt.year;
  if (dt.month == 1 && dt.day <= 7 - jan1_pos) {
    // The first days of January may belong to last year's last week.
    if (!by_year && starts_late(jan1_pos)) {
      *week_year = year;
      return 0;
    }
    by_year = true;
    --year;
    jan1 -= DaysInYear(year);
    jan1_pos = position(jan1);
  }
  const int64_t since_week1 = starts_late(jan1_pos) ? day - (jan1 + (7 - jan1_pos)) : day - (jan1 - jan1_pos);
  if (by_year && since_week1 >= 52 * 7) {
    // The last days of December may belong to next year's first week.
    const int next_jan1_pos = Mod7(jan1_pos + DaysInYear(year));
    if (!starts_late(next_jan1_pos)) {
      *week_year = year + 1;
      return 1;
    }
  }
  *week_year = year;
  return static_cast<int>(since_week1 / 7 + 1);
}

int64_t ToMicros(const DateTime& dt) {
  return DaysFromCivil(dt.year, dt.month, dt.day) * kMicrosPerDay +
         ((static_cast<int64_t>(dt.hour) * 60 + dt.minute) * 60 + dt.second) * 1000000 + dt.micro;
}

std::optional<DateTime> FromMicros(int64_t micros) {
  int64_t days = micros / kMicrosPerDay;
  int64_t rest = micros % kMicrosPerDay;
  if (rest < 0) {
    rest += kMicrosPerDay;
    --days;
  }
  DateTime dt;
  CivilFromDays(days, &dt.year, &dt.month, &dt.day);
  if (dt.year < 0 || dt.year > 9999) return std::nullopt;
  dt.micro = static_cast<int>(rest % 1000000);
  int64_t secs = rest / 1000000;
  dt.second = static_cast<int>(secs % 60);
  dt.minute = static_cast<int>(secs / 60 % 60);
  dt.hour = static_cast<int>(secs / 3600);
  return dt;
}

// ---------------------------------------------------------------- INTERVAL

std::optional<IntervalUnit> IntervalUnitFromName(std::string_view name) {
  static const std::pair<const char*, IntervalUnit> kUnits[] = {
      {"MICROSECOND", IntervalUnit::kMicrosecond},
      {"SECOND", IntervalUnit::kSecond},
      {"MINUTE", IntervalUnit::kMinute},
      {"HOUR", IntervalUnit::kHour},
      {"DAY", IntervalUnit::kDay},
      {"WEEK", IntervalUnit::kWeek},
      {"MONTH", IntervalUnit::kMonth},
      {"QUARTER", IntervalUnit::kQuarter},
      {"YEAR", IntervalUnit::kYear},
      {"SECOND_MICROSECOND", IntervalUnit::kSecondMicrosecond},
      {"MINUTE_MICROSECOND", IntervalUnit::kMinuteMicrosecond},
      {"MINUTE_SECOND", IntervalUnit::kMinuteSecond},
      {"HOUR_MICROSECOND", IntervalUnit::kHourMicrosecond},
      {"HOUR_SECOND", IntervalUnit::kHourSecond},
      {"HOUR_MINUTE", IntervalUnit::kHourMinute},
      {"DAY_MICROSECOND", IntervalUnit::kDayMicrosecond},
      {"DAY_SECOND", IntervalUnit::kDaySecond},
      {"DAY_MINUTE", IntervalUnit::kDayMinute},
      {"DAY_HOUR", IntervalUnit::kDayHour},
      {"YEAR_MONTH", IntervalUnit::kYearMonth},
  };
  std::string upper(name);
  for (char& c : upper) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  for (const auto& [n, unit] : kUnits) {
    if (upper == n) return unit;
  }
  return std::nullopt;
}

bool IsDateUnit(IntervalUnit unit) {
  return unit == IntervalUnit::kDay || unit == IntervalUnit::kWeek ||
         unit == IntervalUnit::kMonth || unit == IntervalUnit::kQuarter ||
         unit == IntervalUnit::kYear || unit == IntervalUnit::kYearMonth;
}

std::optional<Interval> MakeInterval(const Value& v, IntervalUnit unit) {
  if (v.is_null()) return std::nullopt;
  constexpr int64_t kSecond = 1000000;
  // Beyond any date's reach; keeps the arithmetic below from overflowing.
  constexpr int64_t kLimit = 4000000000000LL;
  // Products and sums are taken in 128 bits and then checked: an hour or
  // minute count below kLimit still overflows 64 bits in microseconds.
  constexpr __int128 kMaxMicros = static_cast<__int128>(kLimit) * kSecond;
  auto in_range = [](__int128 x, __int128 limit) { return x <= limit && x >= -limit; };
  Interval iv;
  auto whole = [&]() -> std::optional<int64_t> {
    const int64_t n = v.ToInt();
    if (n > kLimit || n < -kLimit) return std::nullopt;
    return n;
  };
  switch (unit) {
    case IntervalUnit::kMicrosecond: {
      auto n = whole();
      if (!n) return std::nullopt;
      iv.micros = *n;
      return iv;
    }
    case IntervalUnit::kSecond: {
      // The one simple unit that keeps a fraction: INTERVAL 1.5 SECOND.
      std::optional<Decimal> d = v.ToDecimal().Rescaled(6);
      std::optional<__int128> m = d ? d->Unscaled() : std::nullopt;
      if (!m || *m > static_cast<__int128>(kLimit) * kSecond ||
          *m < -static_cast<__int128>(kLimit) * kSecond) {
        return std::nullopt;
      }
      iv.micros = static_cast<int64_t>(*m);
      return iv;
    }
    case IntervalUnit::kMinute:
    case IntervalUnit::kHour:
    case IntervalUnit::kDay:
    case IntervalUnit::kWeek:
    case IntervalUnit::kMonth:
    case IntervalUnit::kQuarter:
    case IntervalUnit::kYear: {
      auto n = whole();
      if (!n) return std::nullopt;
      switch (unit) {
        case IntervalUnit::kMinute:
        case IntervalUnit::kHour: {
          const __int128 us = static_cast<__int128>(*n) * (unit == IntervalUnit::kMinute ? 60 : 3600) * kSecond;
          if (!in_range(us, kMaxMicros)) return std::nullopt;
          iv.micros = static_cast<int64_t>(us);
          break;
        }
        case IntervalUnit::kDay: iv.days = *n; break;
        case IntervalUnit::kWeek: iv.days = *n * 7; break;
        case IntervalUnit::kMonth: iv.months = *n; break;
        case IntervalUnit::kQuarter: iv.months = *n * 3; break;
        default: iv.months = *n * 12; break;
      }
      return iv;
    }
    default:
      break;
  }
  // Compound units: the numbers in the text, right-aligned to the unit's
  // fields ('1:2' DAY_SECOND is 1 minute 2 seconds).
  enum Field { kYears, kMonths, kDays, kHours, kMinutes, kSeconds, kMicros };
  std::vector<Field> fields;
  switch (unit) {
    case IntervalUnit::kSecondMicrosecond: fields = {kSeconds, kMicros}; break;
    case IntervalUnit::kMinuteMicrosecond: fields = {kMinutes, kSeconds, kMicros}; break;
    case IntervalUnit::kMinuteSecond: fields = {kMinutes, kSeconds}; break;
    case IntervalUnit::kHourMicrosecond: fields = {kHours, kMinutes, kSeconds, kMicros}; break;
    case IntervalUnit::kHourSecond: fields = {kHours, kMinutes, kSeconds}; break;
    case IntervalUnit::kHourMinute: fields = {kHours, kMinutes}; break;
    case IntervalUnit::kDayMicrosecond: fields = {kDays, kHours, kMinutes, kSeconds, kMicros}; break;
    case IntervalUnit::kDaySecond: fields = {kDays, kHours, kMinutes, kSeconds}; break;
    case IntervalUnit::kDayMinute: fields = {kDays, kHours, kMinutes}; break;
    case IntervalUnit::kDayHour: fields = {kDays, kHours}; break;
    default: fields = {kYears, kMonths}; break;
  }
  const std::string text = v.ToString();
  size_t i = 0;
  while (i < text.size() && IsBlank(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  std::vector<int64_t> numbers;
  size_t last_digits = 0;
  while (i < text.size()) {
    if (!IsDigit(text[i])) {
      ++i;
      continue;
    }
    if (numbers.size() == fields.size()) return std::nullopt;
    int64_t n = 0;
    size_t start = i;
    while (i < text.size() && IsDigit(text[i])) {
      if (n < kLimit) n = n * 10 + (text[i] - '0');
      ++i;
    }
    last_digits = i - start;
    numbers.push_back(n);
  }
  if (numbers.empty()) return std::nullopt;
  if (fields.back() == kMicros && numbers.size() >= 1) {
    // The microseconds are written as a fraction: '1.5' is 500000.
    int64_t& us = numbers.back();
    for (size_t k = last_digits; k < 6; ++k) us *= 10;
    for (size_t k = 6; k < last_digits; ++k) us /= 10;
  }
  const size_t skip = fields.size() - numbers.size();
  __int128 months = 0, days = 0, micros = 0;
  for (size_t k = 0; k < numbers.size(); ++k) {
    const __int128 n = negative ? -static_cast<__int128>(numbers[k]) : numbers[k];
    switch (fields[skip + k]) {
      case kYears: months += n * 12; break;
      case kMonths: months += n; break;
      case kDays: days += n; break;
      case kHours: micros += n * 3600 * kSecond; break;
      case kMinutes: micros += n * 60 * kSecond; break;
      case kSeconds: micros += n * kSecond; break;
      case kMicros: micros += n; break;
    }
  }
  if (!in_range(months, kMaxMicros) || !in_range(days, kMaxMicros) || !in_range(micros, kMaxMicros)) {
    return std::nullopt;
  }
  iv.months = static_cast<int64_t>(months);
  iv.days = static_cast<int64_t>(days);
  iv.micros = static_cast<int64_t>(micros);
  return iv;
}

std::optional<DateTime> AddInterval(const DateTime& dt, const Interval& iv, bool subtract) {
  if (dt.month == 0 || dt.day == 0) return std::nullopt;
  const int64_t sign = subtract ? -1 : 1;
  DateTime r = dt;
  if (iv.months != 0) {
    const int64_t total = static_cast<int64_t>(dt.year) * 12 + (dt.month - 1) + sign * iv.months;
    if (total < 0 || total >= 10000 * 12) return std::nullopt;
    r.year = static_cast<int>(total / 12);
    r.month = static_cast<int>(total % 12) + 1;
    r.day = std::min(r.day, DaysInMonth(r.year, r.month));
  }
  if (iv.days != 0 || iv.micros != 0) {
    constexpr int64_t kMaxDays = 3660000;  // 10000 years and then some
    if (iv.days > kMaxDays || iv.days < -kMaxDays) return std::nullopt;
    if (iv.micros > kMaxDays * kMicrosPerDay || iv.micros < -kMaxDays * kMicrosPerDay) {
      return std::nullopt;
    }
    std::optional<DateTime> moved =
        FromMicros(ToMicros(r) + sign * (iv.days * kMicrosPerDay + iv.micros));
    if (!moved) return std::nullopt;
    moved->frac_digits = r.frac_digits;
    r = *moved;
  }
  return r;
}

// ---------------------------------------------------------------- DATE_FORMAT

std::optional<std::string> FormatWithPattern(const DateTime& dt, std::string_view format) {
  std::string out;
  const bool has_date = dt.month != 0 && dt.day != 0;
  auto twelve = [&]() { return dt.hour % 12 == 0 ? 12 : dt.hour % 12; };
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%' || i + 1 == format.size()) {
      out.push_back(format[i]);
      continue;
    }
    const char spec = format[++i];
    switch (spec) {
      case 'a':
      case 'W':
        if (!has_date) return std::nullopt;
        out += spec == 'W' ? std::string(kDayNames[Weekday(dt)])
                           : std::string(kDayNames[Weekday(dt)]).substr(0, 3);
        break;
      case 'b':
      case 'M':
        if (dt.month == 0) return std::nullopt;
        out += spec == 'M' ? std::string(kMonthNames[dt.month - 1])
                           : std::string(kMonthNames[dt.month - 1]).substr(0, 3);
        break;
      case 'c': out += std::to_string(dt.month); break;
      case 'D': {
        out += std::to_string(dt.day);
        const int d = dt.day;
        if (d >= 11 && d <= 13) out += "th";
        else if (d % 10 == 1) out += "st";
        else if (d % 10 == 2) out += "nd";
        else if (d % 10 == 3) out += "rd";
        else out += "th";
        break;
      }
      case 'd': out += Pad(dt.day, 2); break;
      case 'e': out += std::to_string(dt.day); break;
      case 'f': out += Pad(dt.micro, 6); break;
      case 'H': out += Pad(dt.hour, 2); break;
      case 'h':
      case 'I': out += Pad(twelve(), 2); break;
      case 'i': out += Pad(dt.minute, 2); break;
      case 'j':
        if (!has_date) return std::nullopt;
        out += Pad(DayOfYear(dt), 3);
        break;
      case 'k': out += std::to_string(dt.hour); break;
      case 'l': out += std::to_string(twelve()); break;
      case 'm': out += Pad(dt.month, 2); break;
      case 'p': out += dt.hour % 24 < 12 ? "AM" : "PM"; break;
      case 'r':
        out += Pad(twelve(), 2) + ":" + Pad(dt.minute, 2) + ":" + Pad(dt.second, 2) +
               (dt.hour % 24 < 12 ? " AM" : " PM");
        break;
      case 'S':
      case 's': out += Pad(dt.second, 2); break;
      case 'T': out += Pad(dt.hour, 2) + ":" + Pad(dt.minute, 2) + ":" + Pad(dt.second, 2); break;
      case 'U':
      case 'u':
      case 'V':
      case 'v':
      case 'X':
      case 'x': {
        if (!has_date) return std::nullopt;
        const int mode = spec == 'U' ? 0 : spec == 'u' ? 1 : (spec == 'V' || spec == 'X') ? 2 : 3;
        int year = 0;
        const int week = WeekOfYear(dt, mode, &year);
        out += (spec == 'X' || spec == 'x') ? Pad(year, 4) : Pad(week, 2);
        break;
      }
      case 'w':
        if (!has_date) return std::nullopt;
        out += std::to_string((Weekday(dt) + 1) % 7);
        break;
      case 'Y': out += Pad(dt.year, 4); break;
      case 'y': out += Pad(dt.year % 100, 2); break;
      default: out.push_back(spec); break;  // %% and unknown letters stand for themselves
    }
  }
  return out;
}

// ---------------------------------------------------------------- STR_TO_DATE

namespace {

bool StartsWithIgnoreCase(std::string_view text, std::string_view word) {
  return text.size() >= word.size() && EqualsIgnoreCase(text.substr(0, word.size()), word);
}

}  // namespace

std::optional<ParsedWithPattern> ParseWithPattern(std::string_view text, std::string_view format) {
  ParsedWithPattern r;
  DateTime& dt = r.value;
  size_t t = 0;
  bool twelve_hour = false;
  int pm = -1;  // -1: no %p
  int day_of_year = -1;
  // Reads up to `max` digits (at least one); nullopt when none.
  auto number = [&](int max) -> std::optional<int> {
    size_t start = t;
    int v = 0;
    while (t < text.size() && t - start < static_cast<size_t>(max) && IsDigit(text[t])) {
      v = v * 10 + (text[t] - '0');
      ++t;
    }
    if (t == start) return std::nullopt;
    return v;
  };
  // Matches one of `names` (or its first three letters when `abbrev`);
  // the 0-based index, or nullopt.
  auto name = [&](const char* const* names, int count, bool abbrev) -> std::optional<int> {
    for (int k = 0; k < count; ++k) {
      std::string_view n = names[k];
      if (abbrev) n = n.substr(0, 3);
      if (StartsWithIgnoreCase(text.substr(t), n)) {
        t += n.size();
        return k;
      }
    }
    return std::nullopt;
  };
  for (size_t f = 0; f < format.size(); ++f) {
    const char fc = format[f];
    if (IsBlank(fc)) {
      while (t < text.size() && IsBlank(text[t])) ++t;
      continue;
    }
    if (fc != '%' || f + 1 == format.size()) {
      while (t < text.size() && IsBlank(text[t]) && fc != ' ') ++t;
      if (t >= text.size() || text[t] != fc) return std::nullopt;
      ++t;
      continue;
    }
    const char spec = format[++f];
    while (t < text.size() && IsBlank(text[t])) ++t;
    std::optional<int> v;
    switch (spec) {
      case 'Y':
        v = number(4);
        r.has_date = true;
        if (v) dt.year = *v;
        break;
      case 'y':
        v = number(2);
        r.has_date = true;
        if (v) dt.year = *v < 70 ? 2000 + *v : 1900 + *v;
        break;
      case 'm':
      case 'c':
        v = number(2);
        r.has_date = true;
        if (v) dt.month = *v;
        break;
      case 'M':
      case 'b':
        v = name(kMonthNames, 12, spec == 'b');
        r.has_date = true;
        if (v) dt.month = *v + 1;
        break;
      case 'd':
      case 'e':
        v = number(2);
        r.has_date = true;
        if (v) dt.day = *v;
        break;
      case 'D':
        v = number(2);
        r.has_date = true;
        if (v) {
          dt.day = *v;
          if (t + 2 > text.size()) return std::nullopt;
          t += 2;  // st, nd, rd, th
        }
        break;
      case 'j':
        v = number(3);
        r.has_date = true;
        if (v) day_of_year = *v;
        break;
      case 'a':
      case 'W':
        v = name(kDayNames, 7, spec == 'a');  // checked by nothing, as MySQL
        break;
      case 'H':
      case 'k':
        v = number(2);
        r.has_time = true;
        if (v) dt.hour = *v;
        break;
      case 'h':
      case 'I':
      case 'l':
        v = number(2);
        r.has_time = true;
        twelve_hour = true;
        if (v) dt.hour = *v;
        break;
      case 'i':
        v = number(2);
        r.has_time = true;
        if (v) dt.minute = *v;
        break;
      case 's':
      case 'S':
        v = number(2);
        r.has_time = true;
        if (v) dt.second = *v;
        break;
      case 'f': {
        size_t start = t;
        v = number(6);
        r.has_time = true;
        r.has_fraction = true;
        if (v) {
          int micro = *v;
          for (size_t k = t - start; k < 6; ++k) micro *= 10;
          dt.micro = micro;
        }
        break;
      }
      case 'p':
        if (StartsWithIgnoreCase(text.substr(t), "AM")) pm = 0;
        else if (StartsWithIgnoreCase(text.substr(t), "PM")) pm = 1;
        else return std::nullopt;
        t += 2;
        v = 0;
        break;
      case 'r':
      case 'T': {
        r.has_time = true;
        std::optional<int> h = number(2);
        if (!h || t >= text.size() || text[t++] != ':') return std::nullopt;
        std::optional<int> m = number(2);
        if (!m || t >= text.size() || text[t++] != ':') return std::nullopt;
        std::optional<int> sec = number(2);
        if (!sec) return std::nullopt;
        dt.hour = *h;
        dt.minute = *m;
        dt.second = *sec;
        if (spec == 'r') {
          twelve_hour = true;
          while (t < text.size() && IsBlank(text[t])) ++t;
          if (StartsWithIgnoreCase(text.substr(t), "AM")) pm = 0;
          else if (StartsWithIgnoreCase(text.substr(t), "PM")) pm = 1;
          else return std::nullopt;
          t += 2;
        }
        v = 0;
        break;
      }
      case '%':
        if (t >= text.size() || text[t] != '%') return std::nullopt;
        ++t;
        v = 0;
        break;
      default:
        return std::nullopt;  // week formats and unknown letters: unsupported
    }
    if (!v) return std::nullopt;
  }
  if (twelve_hour) {
    if (dt.hour < 1 || dt.hour > 12) return std::nullopt;
    if (pm >= 0) dt.hour = dt.hour % 12 + (pm == 1 ? 12 : 0);
  }
  if (day_of_year >= 0) {
    if (day_of_year < 1 || day_of_year > DaysInYear(dt.year)) return std::nullopt;
    CivilFromDays(DaysFromCivil(dt.year, 1, 1) + day_of_year - 1, &dt.year, &dt.month, &dt.day);
  }
  if (dt.hour > 23 || dt.minute > 59 || dt.second > 59) return std::nullopt;
  if (dt.month > 12 || dt.day > 31 || dt.year > 9999) return std::nullopt;
  if (dt.month != 0 && dt.day != 0 && dt.day > DaysInMonth(dt.year, dt.month)) return std::nullopt;
  dt.frac_digits = r.has_fraction ? 6 : 0;
  return r;
}

}  // namespace sluice::sql
