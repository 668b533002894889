// sql/temporal.h
//
// DATE / DATETIME / TIME values: parsing MySQL's text and numeric forms,
// formatting, and conversion from clock time. The evaluator's, and exec/'s
// when it stores a value in a temporal column (exec/column_values.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sql/value.h"

namespace sluice::sql {

struct DateTime {
  bool negative = false;  // TIME only
  int year = 0;
  int month = 0;
  int day = 0;
  int hour = 0;  // up to 838 for TIME
  int minute = 0;
  int second = 0;
  int micro = 0;
  int frac_digits = 0;  // fraction digits written in the input (0..6)
};

// 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' with any punctuation as delimiter, 'T'
// between date and time, two-digit years, and the digit-only forms
// YYYYMMDD[HHMMSS] / YYMMDD[HHMMSS]. nullopt when invalid.
std::optional<DateTime> ParseDatetime(std::string_view s);

// '[-][D ]HH:MM[:SS[.ffffff]]', the digit forms SS / MMSS / HHMMSS, or the
// time part of a datetime.
std::optional<DateTime> ParseTime(std::string_view s);

// A value as a DATETIME (strings by ParseDatetime, numbers by their digits).
std::optional<DateTime> ValueToDatetime(const Value& v);
std::optional<DateTime> ValueToTime(const Value& v);

// Rounds the fraction to `fsp` digits, carrying into seconds and beyond.
DateTime RoundFraction(DateTime dt, int fsp, bool is_time);

std::string FormatDate(const DateTime& dt);
std::string FormatDatetime(const DateTime& dt, int fsp);
std::string FormatTime(const DateTime& dt, int fsp);

// Clock time in the system's local time zone, or in UTC.
DateTime FromTimePoint(std::chrono::system_clock::time_point tp, bool utc);
// The same from microseconds since the epoch: a system_clock time_point
// counts nanoseconds in 64 bits and ends in 2262, before FROM_UNIXTIME's
// range (to 3001) does.
DateTime FromUnixMicros(int64_t us, bool utc);

// Seconds since the epoch of `dt` read as local time; nullopt when mktime fails.
std::optional<int64_t> LocalToUnixSeconds(const DateTime& dt);

// ParseDatetime that also takes dates with a zero month or day
// ('2008-00-00'), as YEAR(), MONTH(), DAY() and DATE_FORMAT() do.
std::optional<DateTime> ParseDatetimeFuzzy(std::string_view s);

// ---- calendar

bool IsLeapYear(int year);
int DaysInMonth(int year, int month);  // REQUIRES: 1 <= month <= 12
// Days since 1970-01-01 of a proleptic Gregorian date, and back.
int64_t DaysFromCivil(int year, int month, int day);
void CivilFromDays(int64_t days, int* year, int* month, int* day);
// 0 = Monday .. 6 = Sunday. REQUIRES: a date with month and day.
int Weekday(const DateTime& dt);
int DayOfYear(const DateTime& dt);
// WEEK(date, mode) for modes 0..7 (MySQL's table), and the year the week
// belongs to (which differs from dt.year around New Year in modes 2, 3, 6, 7).
int WeekOfYear(const DateTime& dt, int mode, int* week_year);
// Microseconds since 1970-01-01 00:00:00 of a date and time (no zone).
int64_t ToMicros(const DateTime& dt);
// Back from ToMicros; nullopt outside years 0..9999.
std::optional<DateTime> FromMicros(int64_t micros);

// ---- INTERVAL arithmetic (DATE_ADD, DATE_SUB, TIMESTAMPADD, d + INTERVAL ...)

enum class IntervalUnit : uint8_t {
  kMicrosecond, kSecond, kMinute, kHour, kDay, kWeek, kMonth, kQuarter, kYear,
  kSecondMicrosecond, kMinuteMicrosecond, kMinuteSecond, kHourMicrosecond, kHourSecond,
  kHourMinute, kDayMicrosecond, kDaySecond, kDayMinute, kDayHour, kYearMonth,
};

// "DAY", "day_second", ...; nullopt for other words.
std::optional<IntervalUnit> IntervalUnitFromName(std::string_view name);
// Units without a time part: a DATE plus such an interval stays a DATE.
bool IsDateUnit(IntervalUnit unit);

// Signed parts; one interval has months or days-and-time, never both.
struct Interval {
  int64_t months = 0;  // years and quarters fold into months
  int64_t days = 0;    // weeks fold into days
  int64_t micros = 0;  // hours, minutes, seconds
};

// The interval `INTERVAL v unit` stands for: a number for the simple units
// (SECOND keeps a fraction, the others round to an integer), MySQL's
// 'D H:M:S.f' text for the compound ones (missing leading parts are zero).
// nullopt when the text has no number in it.
std::optional<Interval> MakeInterval(const Value& v, IntervalUnit unit);

// dt plus (or minus) the interval; months clamp the day to the month's end
// ('2024-01-31' + 1 MONTH = '2024-02-29'). nullopt when the result leaves
// years 0..9999 or dt is a zero date.
std::optional<DateTime> AddInterval(const DateTime& dt, const Interval& interval, bool subtract);

// ---- DATE_FORMAT and STR_TO_DATE

// DATE_FORMAT(dt, format) with MySQL's % specifiers; nullopt when the format
// asks for a name, week or day of year of a date with a zero month or day.
std::optional<std::string> FormatWithPattern(const DateTime& dt, std::string_view format);

// STR_TO_DATE(text, format): the value and which parts the format names.
// nullopt when the text does not match the format or names an invalid date.
struct ParsedWithPattern {
  DateTime value;
  bool has_date = false;
  bool has_time = false;
  bool has_fraction = false;  // %f
};
std::optional<ParsedWithPattern> ParseWithPattern(std::string_view text, std::string_view format);

}  // namespace sluice::sql
