// protocol/stmt.cc
#include "protocol/stmt.h"

#include <fmt/format.h>

#include <cstring>

#include "base/mysql_error.h"
#include "protocol/wire.h"

namespace sluice::protocol {

bool ParseStmtExecuteHeader(std::string_view body, StmtExecuteHeader* out) {
  WireReader r(body);
  if (!r.ReadInt4(&out->statement_id) || !r.ReadInt1(&out->flags) || !r.ReadInt4(&out->iteration_count)) {
    return false;
  }
  out->params = body.substr(r.position());
  return true;
}

namespace {

Status BadArguments() { return MakeError(er::kWrongArguments, "mysqld_stmt_execute"); }

bool KnownType(uint8_t t) {
  switch (t) {
    case MYSQL_TYPE_DECIMAL:
    case MYSQL_TYPE_TINY:
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_FLOAT:
    case MYSQL_TYPE_DOUBLE:
    case MYSQL_TYPE_NULL:
    case MYSQL_TYPE_TIMESTAMP:
    case MYSQL_TYPE_LONGLONG:
    case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_DATE:
    case MYSQL_TYPE_TIME:
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_YEAR:
    case MYSQL_TYPE_VARCHAR:
    case MYSQL_TYPE_BIT:
    case MYSQL_TYPE_JSON:
    case MYSQL_TYPE_NEWDECIMAL:
    case MYSQL_TYPE_ENUM:
    case MYSQL_TYPE_SET:
    case MYSQL_TYPE_TINY_BLOB:
    case MYSQL_TYPE_MEDIUM_BLOB:
    case MYSQL_TYPE_LONG_BLOB:
    case MYSQL_TYPE_BLOB:
    case MYSQL_TYPE_VAR_STRING:
    case MYSQL_TYPE_STRING:
    case MYSQL_TYPE_GEOMETRY:
      return true;
    default:
      return false;
  }
}

std::string Micros(uint32_t us) { return us == 0 ? std::string() : fmt::format(".{:06}", us); }

// A temporal value's length byte (a lenenc integer) and that many bytes.
bool ReadTemporal(WireReader& r, std::string_view* bytes) {
  uint64_t length = 0;
  return r.ReadLenencInt(&length) && length <= 255 && r.ReadFixed(static_cast<size_t>(length), bytes);
}

// DATE / DATETIME / TIMESTAMP: length, then year(2) month day [h m s]
// [us(4)]. As mysqld, the fields present follow from the length (>= 4 the
// date, >= 7 the time, >= 11 the microseconds); 0 is the zero value.
bool ReadDatetime(WireReader& r, bool date_only, std::string* text) {
  std::string_view b;
  if (!ReadTemporal(r, &b)) return false;
  WireReader f(b);
  uint16_t year = 0;
  uint8_t month = 0, day = 0, hour = 0, minute = 0, second = 0;
  uint32_t us = 0;
  if (b.size() >= 4) {
    f.ReadInt2(&year);
    f.ReadInt1(&month);
    f.ReadInt1(&day);
  }
  if (b.size() >= 7) {
    f.ReadInt1(&hour);
    f.ReadInt1(&minute);
    f.ReadInt1(&second);
  }
  if (b.size() >= 11) f.ReadInt4(&us);
  if (us > 999999) us = 999999;
  *text = fmt::format("{:04}-{:02}-{:02}", year, month, day);
  if (!date_only) *text += fmt::format(" {:02}:{:02}:{:02}{}", hour, minute, second, Micros(us));
  return true;
}

// TIME: length, then negative(1) days(4) h m s [us(4)] (>= 8 bytes the
// time, >= 12 the microseconds; 0 is 00:00:00). Microseconds past 999999
// (a client bug seen in the wild) carry into the seconds.
bool ReadTime(WireReader& r, std::string* text) {
  std::string_view b;
  if (!ReadTemporal(r, &b)) return false;
  WireReader f(b);
  uint8_t negative = 0, hour = 0, minute = 0, second = 0;
  uint32_t days = 0, us = 0;
  if (b.size() >= 8) {
    f.ReadInt1(&negative);
    f.ReadInt4(&days);
    f.ReadInt1(&hour);
    f.ReadInt1(&minute);
    f.ReadInt1(&second);
  }
  if (b.size() >= 12) f.ReadInt4(&us);
  uint64_t total = ((static_cast<uint64_t>(days) * 24 + hour) * 60 + minute) * 60 + second + us / 1000000;
  us %= 1000000;
  *text = fmt::format("{}{:02}:{:02}:{:02}{}", negative ? "-" : "", total / 3600, total / 60 % 60, total % 60,
                      Micros(us));
  return true;
}

bool ReadValue(WireReader& r, const ParamType& t, ParamValue* v) {
  switch (t.type) {
    case MYSQL_TYPE_NULL:
      v->kind = ParamValue::Kind::kNull;
      return true;
    case MYSQL_TYPE_TINY: {
      uint8_t x = 0;
      if (!r.ReadInt1(&x)) return false;
      if (t.is_unsigned) {
        v->kind = ParamValue::Kind::kUInt;
        v->u = x;
      } else {
        v->kind = ParamValue::Kind::kInt;
        v->i = static_cast<int8_t>(x);
      }
      return true;
    }
    case MYSQL_TYPE_SHORT:
    case MYSQL_TYPE_YEAR: {
      uint16_t x = 0;
      if (!r.ReadInt2(&x)) return false;
      if (t.is_unsigned || t.type == MYSQL_TYPE_YEAR) {
        v->kind = ParamValue::Kind::kUInt;
        v->u = x;
      } else {
        v->kind = ParamValue::Kind::kInt;
        v->i = static_cast<int16_t>(x);
      }
      return true;
    }
    case MYSQL_TYPE_LONG:
    case MYSQL_TYPE_INT24: {
      uint32_t x = 0;
      if (!r.ReadInt4(&x)) return false;
      if (t.is_unsigned) {
        v->kind = ParamValue::Kind::kUInt;
        v->u = x;
      } else {
        v->kind = ParamValue::Kind::kInt;
        v->i = static_cast<int32_t>(x);
      }
      return true;
    }
    case MYSQL_TYPE_LONGLONG: {
      uint64_t x = 0;
      if (!r.ReadInt8(&x)) return false;
      if (t.is_unsigned) {
        v->kind = ParamValue::Kind::kUInt;
        v->u = x;
      } else {
        v->kind = ParamValue::Kind::kInt;
        v->i = static_cast<int64_t>(x);
      }
      return true;
    }
    case MYSQL_TYPE_FLOAT: {
      uint32_t x = 0;
      if (!r.ReadInt4(&x)) return false;
      float f = 0;
      std::memcpy(&f, &x, sizeof(f));
      v->kind = ParamValue::Kind::kDouble;
      v->d = f;
      return true;
    }
    case MYSQL_TYPE_DOUBLE: {
      uint64_t x = 0;
      if (!r.ReadInt8(&x)) return false;
      std::memcpy(&v->d, &x, sizeof(v->d));
      v->kind = ParamValue::Kind::kDouble;
      return true;
    }
    case MYSQL_TYPE_DATE:
      v->kind = ParamValue::Kind::kDate;
      return ReadDatetime(r, /*date_only=*/true, &v->text);
    case MYSQL_TYPE_DATETIME:
    case MYSQL_TYPE_TIMESTAMP:
      v->kind = ParamValue::Kind::kDatetime;
      return ReadDatetime(r, /*date_only=*/false, &v->text);
    case MYSQL_TYPE_TIME:
      v->kind = ParamValue::Kind::kTime;
      return ReadTime(r, &v->text);
    default: {
      std::string_view s;
      if (!r.ReadLenencString(&s)) return false;
      v->text.assign(s);
      switch (t.type) {
        case MYSQL_TYPE_DECIMAL:
        case MYSQL_TYPE_NEWDECIMAL:
          v->kind = ParamValue::Kind::kDecimal;
          break;
        case MYSQL_TYPE_TINY_BLOB:
        case MYSQL_TYPE_MEDIUM_BLOB:
        case MYSQL_TYPE_LONG_BLOB:
        case MYSQL_TYPE_BLOB:
          v->kind = ParamValue::Kind::kBlob;
          break;
        default:
          v->kind = ParamValue::Kind::kString;
          break;
      }
      return true;
    }
  }
}

}  // namespace

Status DecodeStmtParams(std::string_view block, size_t num_params, const std::vector<bool>& long_data,
                        std::vector<ParamType>* types, std::vector<ParamValue>* values) {
  values->clear();
  if (num_params == 0) return Status::OK();
  WireReader r(block);
  std::string_view bitmap;
  uint8_t new_bound = 0;
  if (!r.ReadFixed((num_params + 7) / 8, &bitmap) || !r.ReadInt1(&new_bound)) return BadArguments();
  if (new_bound == 1) {
    std::vector<ParamType> fresh(num_params);
    for (size_t i = 0; i < num_params; ++i) {
      uint8_t type = 0, flags = 0;
      if (!r.ReadInt1(&type) || !r.ReadInt1(&flags) || !KnownType(type)) return BadArguments();
      fresh[i].type = static_cast<ColumnType>(type);
      fresh[i].is_unsigned = (flags & 0x80) != 0;
    }
    *types = std::move(fresh);
  } else if (new_bound != 0 || types->size() != num_params) {
    return BadArguments();  // the first execution must send the types
  }
  values->resize(num_params);
  for (size_t i = 0; i < num_params; ++i) {
    ParamValue& v = (*values)[i];
    const bool is_null = (static_cast<uint8_t>(bitmap[i / 8]) >> (i % 8)) & 1;
    if (is_null) {
      v.kind = ParamValue::Kind::kNull;
      continue;
    }
    if (i < long_data.size() && long_data[i]) {
      v.kind = ParamValue::Kind::kLongData;
      continue;
    }
    if (!ReadValue(r, (*types)[i], &v)) return BadArguments();
  }
  return Status::OK();
}

namespace {

// Splits "YYYY-MM-DD[ hh:mm:ss[.ffffff]]" / "[-]h:mm:ss[.ffffff]" into numbers.
void Numbers(std::string_view s, std::vector<uint64_t>* out) {
  uint64_t cur = 0;
  bool in = false;
  size_t frac_digits = 0;
  bool in_frac = false;
  for (char c : s) {
    if (c >= '0' && c <= '9') {
      cur = cur * 10 + static_cast<uint64_t>(c - '0');
      in = true;
      if (in_frac) ++frac_digits;
    } else {
      if (in) out->push_back(cur);
      in_frac = c == '.';
      cur = 0;
      in = false;
    }
  }
  if (in) {
    if (in_frac) {
      for (; frac_digits < 6; ++frac_digits) cur *= 10;
    }
    out->push_back(cur);
  }
}

}  // namespace

std::string EncodeStmtParams(const std::vector<ParamType>& types, const std::vector<ParamValue>& values) {
  WireWriter w;
  std::string bitmap((values.size() + 7) / 8, '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].kind == ParamValue::Kind::kNull) bitmap[i / 8] = static_cast<char>(bitmap[i / 8] | (1 << (i % 8)));
  }
  w.Bytes(bitmap).Int1(1);
  for (const auto& t : types) w.Int1(t.type).Int1(t.is_unsigned ? 0x80 : 0x00);
  for (size_t i = 0; i < values.size(); ++i) {
    const ParamValue& v = values[i];
    const ParamType t = i < types.size() ? types[i] : ParamType{};
    if (v.kind == ParamValue::Kind::kNull || v.kind == ParamValue::Kind::kLongData) continue;
    const uint64_t bits = v.kind == ParamValue::Kind::kUInt ? v.u : static_cast<uint64_t>(v.i);
    switch (t.type) {
      case MYSQL_TYPE_NULL:
        break;
      case MYSQL_TYPE_TINY:
        w.Int1(static_cast<uint8_t>(bits));
        break;
      case MYSQL_TYPE_SHORT:
      case MYSQL_TYPE_YEAR:
        w.Int2(static_cast<uint16_t>(bits));
        break;
      case MYSQL_TYPE_LONG:
      case MYSQL_TYPE_INT24:
        w.Int4(static_cast<uint32_t>(bits));
        break;
      case MYSQL_TYPE_LONGLONG:
        w.Int8(bits);
        break;
      case MYSQL_TYPE_FLOAT: {
        float f = static_cast<float>(v.d);
        uint32_t x = 0;
        std::memcpy(&x, &f, sizeof(x));
        w.Int4(x);
        break;
      }
      case MYSQL_TYPE_DOUBLE: {
        uint64_t x = 0;
        std::memcpy(&x, &v.d, sizeof(x));
        w.Int8(x);
        break;
      }
      case MYSQL_TYPE_DATE:
      case MYSQL_TYPE_DATETIME:
      case MYSQL_TYPE_TIMESTAMP: {
        std::vector<uint64_t> n;
        Numbers(v.text, &n);
        n.resize(7, 0);
        uint8_t length = n[6] != 0 ? 11 : (n[3] || n[4] || n[5]) ? 7 : (n[0] || n[1] || n[2]) ? 4 : 0;
        w.Int1(length);
        if (length >= 4) w.Int2(static_cast<uint16_t>(n[0])).Int1(static_cast<uint8_t>(n[1])).Int1(static_cast<uint8_t>(n[2]));
        if (length >= 7) w.Int1(static_cast<uint8_t>(n[3])).Int1(static_cast<uint8_t>(n[4])).Int1(static_cast<uint8_t>(n[5]));
        if (length >= 11) w.Int4(static_cast<uint32_t>(n[6]));
        break;
      }
      case MYSQL_TYPE_TIME: {
        std::vector<uint64_t> n;
        Numbers(v.text, &n);
        n.resize(4, 0);
        const bool negative = !v.text.empty() && v.text[0] == '-';
        uint8_t length = n[3] != 0 ? 12 : (n[0] || n[1] || n[2]) ? 8 : 0;
        w.Int1(length);
        if (length >= 8) {
          w.Int1(negative ? 1 : 0)
              .Int4(static_cast<uint32_t>(n[0] / 24))
              .Int1(static_cast<uint8_t>(n[0] % 24))
              .Int1(static_cast<uint8_t>(n[1]))
              .Int1(static_cast<uint8_t>(n[2]));
        }
        if (length >= 12) w.Int4(static_cast<uint32_t>(n[3]));
        break;
      }
      default:
        w.LenencString(v.text);
        break;
    }
  }
  return w.Take();
}

bool ParseStmtLongData(std::string_view body, StmtLongData* out) {
  WireReader r(body);
  if (!r.ReadInt4(&out->statement_id) || !r.ReadInt2(&out->param_id)) return false;
  out->data = r.ReadRest();
  return true;
}

bool ParseStmtFetch(std::string_view body, StmtFetch* out) {
  WireReader r(body);
  return r.ReadInt4(&out->statement_id) && r.ReadInt4(&out->num_rows);
}

}  // namespace sluice::protocol
