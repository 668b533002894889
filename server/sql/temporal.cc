#include <algorithm>
#include <ctime>
#include <vector>

#include "server/sql/temporal_internal.h"

namespace sluice::sql {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

bool IsLeap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int DaysInMonth(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date, and back. Years are
// counted in 400-year eras so the arithmetic stays exact.
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

bool ValidDate(const DateTime& dt) {
  if (dt.year > 9999 || dt.month > 12 || dt.day > 31) return false;
  if (dt.month == 0 || dt.day == 0) return dt.month == 0 && dt.day == 0 && dt.year == 0;
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

}  // namespace

std::optional<DateTime> ParseDatetime(std::string_view s) {
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
  if (!ValidDate(dt) || !ValidClock(dt)) return std::nullopt;
  return dt;
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
  const int64_t us =
      std::chrono::duration_cast<std::chrono::microseconds>(tp.time_since_epoch()).count();
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

}  // namespace sluice::sql
