// protocol/response.cc
#include "protocol/response.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

#include "protocol/wire.h"

namespace sluice::protocol {

std::string EncodeOk(const OkPacket& ok, uint32_t capabilities, bool eof_header) {
  WireWriter w;
  w.Int1(eof_header ? 0xFE : 0x00).LenencInt(ok.affected_rows).LenencInt(ok.last_insert_id);
  if (capabilities & CLIENT_PROTOCOL_41) {
    w.Int2(ok.status_flags).Int2(ok.warnings);
  } else if (capabilities & CLIENT_TRANSACTIONS) {
    w.Int2(ok.status_flags);
  }
  // No SESSION_TRACK support, so the info field is written only when there
  // is something to say (as MySQL does).
  if (!ok.info.empty()) w.LenencString(ok.info);
  return w.Take();
}

std::string EncodeErr(const Status& status, bool protocol41) {
  return EncodeErr(status.mysql_errno(), status.sqlstate(), status.message(), protocol41);
}

std::string EncodeErr(uint16_t code, std::string_view sqlstate, std::string_view message,
                      bool protocol41) {
  WireWriter w;
  w.Int1(0xFF).Int2(code);
  if (protocol41) {
    std::string state(sqlstate.substr(0, 5));
    state.resize(5, '0');
    w.Int1('#').Bytes(state);
  }
  w.Bytes(message);
  return w.Take();
}

std::string EncodeEof(uint16_t warnings, uint16_t status_flags) {
  WireWriter w;
  w.Int1(0xFE).Int2(warnings).Int2(status_flags);
  return w.Take();
}

bool IsEofPacket(std::string_view payload) {
  return !payload.empty() && static_cast<uint8_t>(payload[0]) == 0xFE && payload.size() < 9;
}

std::string EncodeColumnDefinition(const ColumnDefinition& c) {
  std::string out;
  AppendColumnDefinition(c, &out);
  return out;
}

void AppendColumnDefinition(const ColumnDefinition& c, std::string* out) {
  WireWriter w(out);
  w.LenencString("def")
      .LenencString(c.schema)
      .LenencString(c.table)
      .LenencString(c.org_table)
      .LenencString(c.name)
      .LenencString(c.org_name)
      .LenencInt(0x0C)  // length of the fixed-size fields that follow
      .Int2(c.collation)
      .Int4(c.length)
      .Int1(c.type)
      .Int2(c.flags)
      .Int1(c.decimals)
      .Zeros(2);
}

std::string EncodeTextRow(const std::vector<std::optional<std::string>>& values) {
  std::string out;
  TextRows::RowWriter w(&out);  // the cells as TextRows writes them
  for (const auto& v : values) w.CellOrNull(v);
  return out;
}

namespace {

// A result set's packets around its rows: column count, definitions, [EOF],
// the rows `append_row(i, out)` appends, then EOF or (CLIENT_DEPRECATE_EOF)
// an OK with the 0xFE header.
template <typename AppendRow>
void FrameResultSet(const std::vector<ColumnDefinition>& columns, size_t n_rows, uint32_t capabilities,
                    uint16_t status_flags, uint16_t warnings, AppendRow append_row, Payloads* out) {
  const bool deprecate_eof = (capabilities & CLIENT_DEPRECATE_EOF) != 0;
  WireWriter(out->Open()).LenencInt(columns.size());
  out->Close();
  for (const auto& c : columns) {
    AppendColumnDefinition(c, out->Open());
    out->Close();
  }
  if (!deprecate_eof) out->push_back(EncodeEof(warnings, status_flags));
  for (size_t i = 0; i < n_rows; ++i) {
    append_row(i, out->Open());
    out->Close();
  }
  if (deprecate_eof) {
    OkPacket ok;
    ok.status_flags = status_flags;
    ok.warnings = warnings;
    out->push_back(EncodeOk(ok, capabilities, /*eof_header=*/true));
  } else {
    out->push_back(EncodeEof(warnings, status_flags));
  }
}

}  // namespace

void AppendTextResultSet(const std::vector<ColumnDefinition>& columns, const TextRows& rows,
                         uint32_t capabilities, uint16_t status_flags, uint16_t warnings, Payloads* out) {
  FrameResultSet(columns, rows.size(), capabilities, status_flags, warnings,
                 [&](size_t i, std::string* to) { to->append(rows.payload(i)); }, out);
}

namespace {
TextRows ToTextRows(const std::vector<std::vector<std::optional<std::string>>>& rows) {
  TextRows out;
  for (const auto& row : rows) out.push_back(row);
  return out;
}
}  // namespace

std::vector<std::string> EncodeTextResultSet(
    const std::vector<ColumnDefinition>& columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows, uint32_t capabilities,
    uint16_t status_flags, uint16_t warnings) {
  Payloads out;
  AppendTextResultSet(columns, ToTextRows(rows), capabilities, status_flags, warnings, &out);
  return out.ToVector();
}

// ---------------------------------------------------------------- prepared

void AppendStmtPrepareOk(uint32_t statement_id, uint16_t num_params, const std::vector<ColumnDefinition>& columns,
                         uint32_t capabilities, uint16_t status_flags, uint16_t warnings, Payloads* out) {
  const bool deprecate_eof = (capabilities & CLIENT_DEPRECATE_EOF) != 0;
  WireWriter(out->Open())
      .Int1(0x00)
      .Int4(statement_id)
      .Int2(static_cast<uint16_t>(columns.size()))
      .Int2(num_params)
      .Int1(0x00)
      .Int2(warnings);
  out->Close();
  if (num_params > 0) {
    const std::string param = EncodeColumnDefinition(ParamColumnDefinition());
    for (uint16_t i = 0; i < num_params; ++i) out->push_back(param);
    if (!deprecate_eof) out->push_back(EncodeEof(warnings, status_flags));
  }
  if (!columns.empty()) {
    for (const auto& c : columns) {
      AppendColumnDefinition(c, out->Open());
      out->Close();
    }
    if (!deprecate_eof) out->push_back(EncodeEof(warnings, status_flags));
  }
}

std::vector<std::string> EncodeStmtPrepareOk(uint32_t statement_id, uint16_t num_params,
                                             const std::vector<ColumnDefinition>& columns,
                                             uint32_t capabilities, uint16_t status_flags,
                                             uint16_t warnings) {
  Payloads out;
  AppendStmtPrepareOk(statement_id, num_params, columns, capabilities, status_flags, warnings, &out);
  return out.ToVector();
}

ColumnDefinition ParamColumnDefinition() {
  ColumnDefinition c;
  c.name = "?";
  c.collation = kCollationBinary;
  c.length = 0;
  c.type = MYSQL_TYPE_VAR_STRING;
  c.flags = BINARY_FLAG;
  c.decimals = 0;
  return c;
}

namespace {

bool ParseInt(std::string_view text, bool is_unsigned, int64_t min, int64_t max, uint64_t umax,
              uint64_t* bits) {
  if (text.empty()) return false;
  const char* b = text.data();
  const char* e = text.data() + text.size();
  if (*b == '+') ++b;
  if (is_unsigned) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || ptr != e || v > umax) return false;
    *bits = v;
    return true;
  }
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e || v < min || v > max) return false;
  *bits = static_cast<uint64_t>(v);
  return true;
}

// `n` digits at text[*pos] (exactly n when `exact`, else 1..n).
bool Digits(std::string_view text, size_t* pos, size_t n, bool exact, uint32_t* out) {
  size_t start = *pos;
  uint32_t v = 0;
  while (*pos < text.size() && *pos - start < n && text[*pos] >= '0' && text[*pos] <= '9') {
    v = v * 10 + static_cast<uint32_t>(text[*pos] - '0');
    ++*pos;
  }
  size_t got = *pos - start;
  if (got == 0 || (exact && got != n)) return false;
  *out = v;
  return true;
}

bool Char(std::string_view text, size_t* pos, char c) {
  if (*pos >= text.size() || text[*pos] != c) return false;
  ++*pos;
  return true;
}

// ".ffffff" (1 to 6 digits) as microseconds, if present.
bool Fraction(std::string_view text, size_t* pos, uint32_t* micros) {
  *micros = 0;
  if (*pos >= text.size() || text[*pos] != '.') return true;
  ++*pos;
  size_t start = *pos;
  uint32_t v = 0;
  if (!Digits(text, pos, 6, false, &v)) return false;
  for (size_t n = *pos - start; n < 6; ++n) v *= 10;
  *micros = v;
  return true;
}

// YYYY-MM-DD[ hh:mm:ss[.ffffff]]
bool AppendDatetime(std::string_view text, std::string* out) {
  size_t pos = 0;
  uint32_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, micros = 0;
  if (!Digits(text, &pos, 4, true, &year) || !Char(text, &pos, '-') || !Digits(text, &pos, 2, true, &month) ||
      !Char(text, &pos, '-') || !Digits(text, &pos, 2, true, &day)) {
    return false;
  }
  if (pos < text.size()) {
    if (!Char(text, &pos, ' ') || !Digits(text, &pos, 2, true, &hour) || !Char(text, &pos, ':') ||
        !Digits(text, &pos, 2, true, &minute) || !Char(text, &pos, ':') ||
        !Digits(text, &pos, 2, true, &second) || !Fraction(text, &pos, &micros)) {
      return false;
    }
  }
  if (pos != text.size() || month > 12 || day > 31 || hour > 23 || minute > 59 || second > 59) return false;
  uint8_t length = micros != 0                               ? 11
                   : (hour != 0 || minute != 0 || second != 0) ? 7
                   : (year != 0 || month != 0 || day != 0)     ? 4
                                                               : 0;
  WireWriter w(out);
  w.Int1(length);
  if (length == 0) return true;
  w.Int2(static_cast<uint16_t>(year)).Int1(static_cast<uint8_t>(month)).Int1(static_cast<uint8_t>(day));
  if (length >= 7) {
    w.Int1(static_cast<uint8_t>(hour)).Int1(static_cast<uint8_t>(minute)).Int1(static_cast<uint8_t>(second));
  }
  if (length == 11) w.Int4(micros);
  return true;
}

// [-]h..h:mm:ss[.ffffff]
bool AppendTime(std::string_view text, std::string* out) {
  size_t pos = 0;
  bool negative = Char(text, &pos, '-');
  uint32_t hours = 0, minute = 0, second = 0, micros = 0;
  if (!Digits(text, &pos, 4, false, &hours) || !Char(text, &pos, ':') || !Digits(text, &pos, 2, true, &minute) ||
      !Char(text, &pos, ':') || !Digits(text, &pos, 2, true, &second) || !Fraction(text, &pos, &micros)) {
    return false;
  }
  if (pos != text.size() || minute > 59 || second > 59) return false;
  WireWriter w(out);
  if (hours == 0 && minute == 0 && second == 0 && micros == 0) {
    w.Int1(0);
    return true;
  }
  w.Int1(micros != 0 ? 12 : 8)
      .Int1(negative ? 1 : 0)
      .Int4(hours / 24)
      .Int1(static_cast<uint8_t>(hours % 24))
      .Int1(static_cast<uint8_t>(minute))
      .Int1(static_cast<uint8_t>(second));
  if (micros != 0) w.Int4(micros);
  return true;
}

template <typename T>
bool ParseFloat(std::string_view text, T* out) {
  if (text.empty()) return false;
  const char* b = text.data();
  const char* e = text.data() + text.size();
  if (*b == '+') ++b;
  auto [ptr, ec] = std::from_chars(b, e, *out);
  return ec == std::errc() && ptr == e;
}

}  // namespace

bool AppendBinaryValue(ColumnType type, uint16_t flags, std::string_view text, std::string* out) {
  const bool is_unsigned = (flags & UNSIGNED_FLAG) != 0;
  uint64_t bits = 0;
  WireWriter w(out);
  switch (type) {
    case MYSQL_TYPE_TINY:
      if (!ParseInt(text, is_unsigned, INT8_MIN, INT8_MAX, UINT8_MAX, &bits)) return false;
      w.Int1(static_cast<uint8_t>(bits));
      return true;
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_YEAR:
      if (!ParseInt(text, is_unsigned || type == MYSQL_TYPE_YEAR, INT16_MIN, INT16_MAX, UINT16_MAX, &bits)) {
        return false;
      }
      w.Int2(static_cast<uint16_t>(bits));
      return true;
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24:
      if (!ParseInt(text, is_unsigned, INT32_MIN, INT32_MAX, UINT32_MAX, &bits)) return false;
      w.Int4(static_cast<uint32_t>(bits));
      return true;
    case MYSQL_TYPE_LONGLONG:
      if (!ParseInt(text, is_unsigned, INT64_MIN, INT64_MAX, UINT64_MAX, &bits)) return false;
      w.Int8(bits);
      return true;
    case MYSQL_TYPE_FLOAT: {
      float f = 0;
      if (!ParseFloat(text, &f)) return false;
      uint32_t u = 0;
      std::memcpy(&u, &f, sizeof(u));
      w.Int4(u);
      return true;
    }
    case MYSQL_TYPE_DOUBLE: {
      double d = 0;
      if (!ParseFloat(text, &d)) return false;
      std::memcpy(&bits, &d, sizeof(bits));
      w.Int8(bits);
      return true;
    }
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP:
    case MYSQL_TYPE_NEWDATE:
    case MYSQL_TYPE_DATETIME2:
    case MYSQL_TYPE_TIMESTAMP2:
      return AppendDatetime(text, out);
    case MYSQL_TYPE_TIME:
    case MYSQL_TYPE_TIME2:
      return AppendTime(text, out);
    default:
      w.LenencString(text);
      return true;
  }
}

namespace {
// A binary row from a text row's payload.
void AppendBinaryRow(const std::vector<ColumnDefinition>& columns, std::string_view text_row, std::string* out) {
  out->push_back('\0');
  const size_t bitmap_at = out->size();
  out->append((columns.size() + 7 + 2) / 8, '\0');
  size_t i = 0;
  ForEachTextCell(text_row, [&](std::optional<std::string_view> cell) {
    if (i >= columns.size()) return;
    if (!cell) {
      const size_t bit = i + 2;
      (*out)[bitmap_at + bit / 8] = static_cast<char>((*out)[bitmap_at + bit / 8] | (1 << (bit % 8)));
    } else if (!AppendBinaryValue(columns[i].type, columns[i].flags, *cell, out)) {
      WireWriter(out).LenencString(*cell);
    }
    ++i;
  });
}
}  // namespace

std::string EncodeBinaryRow(const std::vector<ColumnDefinition>& columns,
                            const std::vector<std::optional<std::string>>& row) {
  std::string out;
  AppendBinaryRow(columns, EncodeTextRow(row), &out);
  return out;
}

namespace {

// Types whose binary form is not a lenenc string.
bool HasFixedBinaryForm(ColumnType t) {
  switch (t) {
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_YEAR:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONGLONG:
    case MYSQL_TYPE_FLOAT:
    case MYSQL_TYPE_DOUBLE:
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP:
    case MYSQL_TYPE_NEWDATE:
    case MYSQL_TYPE_DATETIME2:
    case MYSQL_TYPE_TIMESTAMP2:
    case MYSQL_TYPE_TIME:
    case MYSQL_TYPE_TIME2:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::vector<std::string> EncodeBinaryResultSet(
    std::vector<ColumnDefinition> columns,
    const std::vector<std::vector<std::optional<std::string>>>& rows, uint32_t capabilities,
    uint16_t status_flags, uint16_t warnings) {
  Payloads out;
  AppendBinaryResultSet(std::move(columns), ToTextRows(rows), capabilities, status_flags, warnings, &out);
  return out.ToVector();
}

void AppendBinaryResultSet(std::vector<ColumnDefinition> columns, const TextRows& rows, uint32_t capabilities,
                           uint16_t status_flags, uint16_t warnings, Payloads* out) {
  // A column with a fixed binary form that holds a value not of its type
  // is retyped as a string: one pass over the rows for all columns (a
  // retyped column is not checked again).
  auto retype = [](ColumnDefinition& c) {
    c.type = MYSQL_TYPE_VAR_STRING;
    c.collation = kCollationUtf8mb4_0900_ai_ci;
    c.flags = static_cast<uint16_t>(c.flags & ~(NUM_FLAG | UNSIGNED_FLAG | BINARY_FLAG | ZEROFILL_FLAG));
    c.decimals = 0x1f;
    c.length = std::max<uint32_t>(c.length, 255);
  };
  bool any_fixed = false;
  for (const ColumnDefinition& c : columns) any_fixed = any_fixed || HasFixedBinaryForm(c.type);
  std::string scratch;
  for (size_t r = 0; any_fixed && r < rows.size(); ++r) {
    size_t i = 0;
    ForEachTextCell(rows.payload(r), [&](std::optional<std::string_view> cell) {
      if (i < columns.size() && cell && HasFixedBinaryForm(columns[i].type)) {
        scratch.clear();
        if (!AppendBinaryValue(columns[i].type, columns[i].flags, *cell, &scratch)) retype(columns[i]);
      }
      ++i;
    });
  }
  FrameResultSet(columns, rows.size(), capabilities, status_flags, warnings,
                 [&](size_t i, std::string* to) { AppendBinaryRow(columns, rows.payload(i), to); }, out);
}

}  // namespace sluice::protocol
