// server/sql/temporal_internal.h
//
// DATE / DATETIME / TIME values as the evaluator needs them: parsing MySQL's
// text and numeric forms, formatting, and conversion from clock time.
// Module-private.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/sql/value.h"

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

// Seconds since the epoch of `dt` read as local time; nullopt when mktime fails.
std::optional<int64_t> LocalToUnixSeconds(const DateTime& dt);

}  // namespace sluice::sql
