#include "sql/json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "base/mysql_error.h"
#include "base/strings.h"
#include "sql/eval.h"

namespace sluice::sql::json {

namespace {

using Dom = nlohmann::ordered_json;
constexpr int kMaxDepth = 100;

// ------------------------------------------------------------ text

// Deeper than kMaxDepth (outside strings): checked before parsing, so no
// recursion below ever goes deeper.
bool TooDeep(std::string_view text) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

// MySQL's member order: key length, then bytes.
bool KeyLess(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return std::memcmp(a.data(), b.data(), a.size()) < 0;
}

// Sorts members, and types numbers as MySQL's parser does.
void Normalize(Dom& d) {
  if (d.is_object()) {
    std::vector<std::pair<std::string, Dom>> members;
    members.reserve(d.size());
    for (auto it = d.begin(); it != d.end(); ++it) members.emplace_back(it.key(), std::move(it.value()));
    std::sort(members.begin(), members.end(), [](const auto& x, const auto& y) { return KeyLess(x.first, y.first); });
    Dom out = Dom::object();
    for (auto& [k, v] : members) {
      Normalize(v);
      out[k] = std::move(v);
    }
    d = std::move(out);
  } else if (d.is_array()) {
    for (Dom& e : d) Normalize(e);
  } else if (d.is_number_unsigned() && d.get<uint64_t>() <= 4294967295ull) {
    d = Dom(static_cast<int64_t>(d.get<uint64_t>()));
  }
}

enum class ParseOutcome { kOk, kInvalid, kTooDeep };

ParseOutcome ParseText(std::string_view text, Dom* out, TextError* err) {
  if (TooDeep(text)) return ParseOutcome::kTooDeep;
  try {
    *out = Dom::parse(text.begin(), text.end());
  } catch (const Dom::parse_error& e) {
    if (err != nullptr) {
      const bool blank = text.find_first_not_of(" \t\r\n") == std::string_view::npos;
      err->message = blank ? "The document is empty." : "Invalid value.";
      err->position = e.byte > 0 ? std::min<size_t>(e.byte - 1, text.size()) : 0;
    }
    return ParseOutcome::kInvalid;
  } catch (const Dom::exception&) {  // 1e400: out_of_range
    if (err != nullptr) {
      err->message = "Number too big to be stored in double.";
      err->position = 0;
    }
    return ParseOutcome::kInvalid;
  }
  Normalize(*out);
  return ParseOutcome::kOk;
}

void AppendQuoted(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': *out += "\\\""; break;
      case '\\': *out += "\\\\"; break;
      case '\b': *out += "\\b"; break;
      case '\f': *out += "\\f"; break;
      case '\n': *out += "\\n"; break;
      case '\r': *out += "\\r"; break;
      case '\t': *out += "\\t"; break;
      default:
        if (c < 0x20) {
          *out += fmt::format("\\u{:04x}", c);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

std::string DoubleText(double d) {
  if (d == 0 && std::signbit(d)) return "-0.0";
  std::string s = FormatDouble(d);
  if (s.find_first_of(".eE") == std::string::npos && s.find_first_of("ni") == std::string::npos) s += ".0";
  return s;
}

// MySQL's text form: ", " and ": " separators, members in stored order.
void AppendText(const Dom& d, std::string* out) {
  switch (d.type()) {
    case Dom::value_t::null: *out += "null"; break;
    case Dom::value_t::boolean: *out += d.get<bool>() ? "true" : "false"; break;
    case Dom::value_t::number_integer: *out += std::to_string(d.get<int64_t>()); break;
    case Dom::value_t::number_unsigned: *out += std::to_string(d.get<uint64_t>()); break;
    case Dom::value_t::number_float: *out += DoubleText(d.get<double>()); break;
    case Dom::value_t::string: AppendQuoted(d.get_ref<const std::string&>(), out); break;
    case Dom::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const Dom& e : d) {
        if (!first) *out += ", ";
        first = false;
        AppendText(e, out);
      }
      out->push_back(']');
      break;
    }
    case Dom::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (auto it = d.begin(); it != d.end(); ++it) {
        if (!first) *out += ", ";
        first = false;
        AppendQuoted(it.key(), out);
        *out += ": ";
        AppendText(it.value(), out);
      }
      out->push_back('}');
      break;
    }
    default: *out += "null"; break;
  }
}

std::string ToText(const Dom& d) {
  std::string s;
  AppendText(d, &s);
  return s;
}

// ------------------------------------------------------------ binary

enum : uint8_t {
  kSmallObject = 0x00, kLargeObject = 0x01, kSmallArray = 0x02, kLargeArray = 0x03,
  kLiteral = 0x04, kInt16 = 0x05, kUInt16 = 0x06, kInt32 = 0x07, kUInt32 = 0x08,
  kInt64 = 0x09, kUInt64 = 0x0A, kDouble = 0x0B, kString = 0x0C, kOpaque = 0x0F,
};
enum : uint8_t { kLiteralNull = 0, kLiteralTrue = 1, kLiteralFalse = 2 };

void PutLE(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void SetLE(std::string* out, size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) (*out)[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
uint64_t GetLE(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(s[at + i])} << (8 * i);
  return v;
}

uint8_t ScalarType(const Dom& d) {
  switch (d.type()) {
    case Dom::value_t::number_integer: {
      const int64_t v = d.get<int64_t>();
      if (v >= INT16_MIN && v <= INT16_MAX) return kInt16;
      if (v >= INT32_MIN && v <= INT32_MAX) return kInt32;
      return kInt64;
    }
    case Dom::value_t::number_unsigned: {
      const uint64_t v = d.get<uint64_t>();
      if (v <= UINT16_MAX) return kUInt16;
      if (v <= UINT32_MAX) return kUInt32;
      return kUInt64;
    }
    case Dom::value_t::number_float: return kDouble;
    case Dom::value_t::string: return kString;
    default: return kLiteral;  // null, true, false
  }
}

bool Inlined(uint8_t type, bool large) {
  return type == kLiteral || type == kInt16 || type == kUInt16 || (large && (type == kInt32 || type == kUInt32));
}

uint64_t InlineValue(const Dom& d, uint8_t type) {
  switch (type) {
    case kLiteral:
      return d.is_null() ? kLiteralNull : d.get<bool>() ? kLiteralTrue : kLiteralFalse;
    case kInt16: case kInt32:
      return static_cast<uint64_t>(d.get<int64_t>()) & 0xffffffffull;  // sign-extended to the slot
    default:
      return d.get<uint64_t>();
  }
}

void PutVarlen(std::string* out, uint64_t n) {
  do {
    uint8_t b = n & 0x7f;
    n >>= 7;
    if (n != 0) b |= 0x80;
    out->push_back(static_cast<char>(b));
  } while (n != 0);
}

void AppendScalar(const Dom& d, uint8_t type, std::string* out) {
  switch (type) {
    case kInt32: PutLE(out, static_cast<uint64_t>(d.get<int64_t>()), 4); break;
    case kUInt32: PutLE(out, d.get<uint64_t>(), 4); break;
    case kInt64: PutLE(out, static_cast<uint64_t>(d.get<int64_t>()), 8); break;
    case kUInt64: PutLE(out, d.get<uint64_t>(), 8); break;
    case kDouble: {
      const double v = d.get<double>();
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      PutLE(out, bits, 8);
      break;
    }
    case kString: {
      const std::string& s = d.get_ref<const std::string&>();
      PutVarlen(out, s.size());
      out->append(s);
      break;
    }
    default: break;
  }
}

// Appends container `c` from its count field on; false when the small
// format (large = false) cannot hold it.
bool AppendContainer(const Dom& c, bool large, std::string* out) {
  const int w = large ? 4 : 2;
  const uint64_t limit = large ? 0xffffffffull : 0xffffull;
  const bool object = c.is_object();
  const size_t n = c.size();
  if (n > limit) return false;
  const size_t start = out->size();
  const size_t key_entries = start + 2 * w;
  const size_t value_entries = key_entries + (object ? n * (w + 2) : 0);
  out->resize(value_entries + n * (1 + w));
  SetLE(out, start, n, w);
  size_t i = 0;
  if (object) {
    for (auto it = c.begin(); it != c.end(); ++it, ++i) {
      const std::string& k = it.key();
      const uint64_t off = out->size() - start;
      if (off > limit) return false;
      SetLE(out, key_entries + i * (w + 2), off, w);
      SetLE(out, key_entries + i * (w + 2) + w, k.size(), 2);
      out->append(k);
    }
  }
  i = 0;
  for (const Dom& v : c) {
    const size_t entry = value_entries + i++ * (1 + w);
    if (v.is_object() || v.is_array()) {
      const uint64_t off = out->size() - start;
      if (off > limit) return false;
      const size_t child = out->size();
      bool child_large = false;
      if (!AppendContainer(v, false, out)) {
        if (!large) return false;  // a small parent cannot hold a large child
        out->resize(child);
        if (!AppendContainer(v, true, out)) return false;
        child_large = true;
      }
      (*out)[entry] = static_cast<char>(v.is_object() ? (child_large ? kLargeObject : kSmallObject)
                                                      : (child_large ? kLargeArray : kSmallArray));
      SetLE(out, entry + 1, off, w);
      continue;
    }
    const uint8_t type = ScalarType(v);
    (*out)[entry] = static_cast<char>(type);
    if (Inlined(type, large)) {
      SetLE(out, entry + 1, InlineValue(v, type), w);
      continue;
    }
    const uint64_t off = out->size() - start;
    if (off > limit) return false;
    SetLE(out, entry + 1, off, w);
    AppendScalar(v, type, out);
  }
  const uint64_t size = out->size() - start;
  if (size > limit) return false;
  SetLE(out, start + w, size, w);
  return true;
}

Result<std::string> ToBinary(const Dom& d) {
  std::string out;
  if (d.is_object() || d.is_array()) {
    out.push_back(static_cast<char>(d.is_object() ? kSmallObject : kSmallArray));
    if (!AppendContainer(d, false, &out)) {
      out.resize(1);
      out[0] = static_cast<char>(d.is_object() ? kLargeObject : kLargeArray);
      if (!AppendContainer(d, true, &out)) return MakeError(er::kJsonValueTooBig);
    }
    return out;
  }
  const uint8_t type = ScalarType(d);
  out.push_back(static_cast<char>(type));
  if (type == kLiteral || type == kInt16 || type == kUInt16) {
    PutLE(&out, InlineValue(d, type), type == kLiteral ? 1 : 2);
  } else {
    AppendScalar(d, type, &out);
  }
  return out;
}

Status Malformed() { return Status::Corruption("malformed binary JSON"); }

Result<Dom> DecodeValue(uint8_t type, std::string_view doc, size_t at, int depth);

Result<Dom> DecodeContainer(uint8_t type, std::string_view doc, size_t at, int depth) {
  if (depth > kMaxDepth + 1) return Malformed();
  const bool large = type == kLargeObject || type == kLargeArray;
  const bool object = type == kSmallObject || type == kLargeObject;
  const int w = large ? 4 : 2;
  if (at + 2 * w > doc.size()) return Malformed();
  const uint64_t n = GetLE(doc, at, w);
  const uint64_t size = GetLE(doc, at + w, w);
  if (size > doc.size() - at) return Malformed();
  const std::string_view c = doc.substr(at, size);
  const uint64_t header = 2 * w + n * ((object ? w + 2 : 0) + 1 + w);
  if (header > size) return Malformed();
  Dom out = object ? Dom::object() : Dom::array();
  const size_t value_entries = 2 * w + (object ? n * (w + 2) : 0);
  for (uint64_t i = 0; i < n; ++i) {
    const size_t entry = value_entries + i * (1 + w);
    const auto vt = static_cast<uint8_t>(c[entry]);
    Dom v;
    if (Inlined(vt, large)) {
      const uint64_t raw = GetLE(c, entry + 1, vt == kLiteral ? 1 : (vt == kInt16 || vt == kUInt16) ? 2 : 4);
      switch (vt) {
        case kLiteral:
          if (raw == kLiteralNull) v = nullptr;
          else if (raw == kLiteralTrue) v = true;
          else if (raw == kLiteralFalse) v = false;
          else return Malformed();
          break;
        case kInt16: v = static_cast<int64_t>(static_cast<int16_t>(raw)); break;
        case kUInt16: v = static_cast<int64_t>(static_cast<uint16_t>(raw)); break;
        case kInt32: v = static_cast<int64_t>(static_cast<int32_t>(raw)); break;
        default: v = static_cast<uint64_t>(static_cast<uint32_t>(raw)); break;
      }
    } else {
      const uint64_t off = GetLE(c, entry + 1, w);
      if (off < header || off >= size) return Malformed();
      Result<Dom> child = DecodeValue(vt, c, off, depth + 1);
      if (!child.ok()) return child.status();
      v = std::move(child).value();
    }
    if (vt == kUInt16 && v.is_number_integer()) v = static_cast<uint64_t>(v.get<int64_t>());
    if (object) {
      const size_t ke = 2 * w + i * (w + 2);
      const uint64_t koff = GetLE(c, ke, w);
      const uint64_t klen = GetLE(c, ke + w, 2);
      if (koff < header || koff + klen > size) return Malformed();
      out[std::string(c.substr(koff, klen))] = std::move(v);
    } else {
      out.push_back(std::move(v));
    }
  }
  return out;
}

Result<Dom> DecodeValue(uint8_t type, std::string_view doc, size_t at, int depth) {
  auto need = [&](size_t n) { return at + n <= doc.size(); };
  switch (type) {
    case kSmallObject: case kLargeObject: case kSmallArray: case kLargeArray:
      return DecodeContainer(type, doc, at, depth);
    case kLiteral:
      if (!need(1)) return Malformed();
      switch (static_cast<uint8_t>(doc[at])) {
        case kLiteralNull: return Dom(nullptr);
        case kLiteralTrue: return Dom(true);
        case kLiteralFalse: return Dom(false);
        default: return Malformed();
      }
    case kInt16: if (!need(2)) return Malformed(); return Dom(static_cast<int64_t>(static_cast<int16_t>(GetLE(doc, at, 2))));
    case kUInt16: if (!need(2)) return Malformed(); return Dom(static_cast<uint64_t>(GetLE(doc, at, 2)));
    case kInt32: if (!need(4)) return Malformed(); return Dom(static_cast<int64_t>(static_cast<int32_t>(GetLE(doc, at, 4))));
    case kUInt32: if (!need(4)) return Malformed(); return Dom(static_cast<uint64_t>(GetLE(doc, at, 4)));
    case kInt64: if (!need(8)) return Malformed(); return Dom(static_cast<int64_t>(GetLE(doc, at, 8)));
    case kUInt64: if (!need(8)) return Malformed(); return Dom(static_cast<uint64_t>(GetLE(doc, at, 8)));
    case kDouble: {
      if (!need(8)) return Malformed();
      const uint64_t bits = GetLE(doc, at, 8);
      double v;
      std::memcpy(&v, &bits, 8);
      return Dom(v);
    }
    case kString: case kOpaque: {
      size_t p = at;
      if (type == kOpaque) ++p;  // the field type
      uint64_t len = 0;
      for (int shift = 0;; shift += 7) {
        if (p >= doc.size() || shift > 28) return Malformed();
        const auto b = static_cast<unsigned char>(doc[p++]);
        len |= uint64_t{b & 0x7fu} << shift;
        if ((b & 0x80) == 0) break;
      }
      if (len > doc.size() - p) return Malformed();
      return Dom(std::string(doc.substr(p, len)));
    }
    default:
      return Malformed();
  }
}

Result<Dom> FromBinary(std::string_view b) {
  if (b.empty()) return Dom(nullptr);  // MySQL reads a zero-length document as null
  return DecodeValue(static_cast<uint8_t>(b[0]), b, 1, 0);
}

// ------------------------------------------------------------ paths

struct Leg {
  enum Kind : uint8_t { kMember, kAnyMember, kCell, kAnyCell, kRange, kEllipsis } kind = kMember;
  std::string key;
  // kCell / kRange: index `n`, counted from the end when `*_last`.
  uint64_t from = 0, to = 0;
  bool from_last = false, to_last = false;
};
struct Path {
  std::vector<Leg> legs;
  bool wild() const {
    return std::any_of(legs.begin(), legs.end(), [](const Leg& l) {
      return l.kind == Leg::kAnyMember || l.kind == Leg::kAnyCell || l.kind == Leg::kRange || l.kind == Leg::kEllipsis;
    });
  }
};

Status BadPath(size_t pos) { return MakeError(er::kInvalidJsonPath, pos); }

Result<Path> ParsePath(std::string_view s) {
  size_t i = 0;
  auto skip = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  };
  auto number = [&](uint64_t* out) {
    skip();
    const size_t b = i;
    uint64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (v > (UINT32_MAX - 9) / 10) return false;
      v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
    }
    *out = v;
    return i > b;
  };
  // An array index: N, last, last-N.
  auto index = [&](uint64_t* n, bool* last) {
    skip();
    if (s.substr(i, 4) == "last") {
      i += 4;
      *last = true;
      *n = 0;
      skip();
      if (i < s.size() && s[i] == '-') {
        ++i;
        return number(n);
      }
      return true;
    }
    *last = false;
    return number(n);
  };
  Path p;
  skip();
  if (i >= s.size() || s[i] != '$') return BadPath(i);
  ++i;
  for (;;) {
    skip();
    if (i >= s.size()) break;
    Leg leg;
    if (s[i] == '.') {
      ++i;
      skip();
      if (i < s.size() && s[i] == '*') {
        ++i;
        leg.kind = Leg::kAnyMember;
      } else if (i < s.size() && s[i] == '"') {
        size_t j = i + 1;
        while (j < s.size() && s[j] != '"') j += s[j] == '\\' ? 2 : 1;
        if (j >= s.size()) return BadPath(i);
        try {
          leg.key = Dom::parse(s.substr(i, j + 1 - i)).get<std::string>();
        } catch (const std::exception&) {
          return BadPath(i);
        }
        i = j + 1;
      } else {
        const size_t b = i;
        while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '$' ||
                                (static_cast<unsigned char>(s[i]) & 0x80) != 0)) {
          ++i;
        }
        if (i == b || (s[b] >= '0' && s[b] <= '9')) return BadPath(b);
        leg.key = std::string(s.substr(b, i - b));
      }
    } else if (s[i] == '[') {
      ++i;
      skip();
      if (i < s.size() && s[i] == '*') {
        ++i;
        leg.kind = Leg::kAnyCell;
      } else {
        leg.kind = Leg::kCell;
        if (!index(&leg.from, &leg.from_last)) return BadPath(i);
        skip();
        if (s.substr(i, 2) == "to") {
          i += 2;
          leg.kind = Leg::kRange;
          if (!index(&leg.to, &leg.to_last)) return BadPath(i);
        }
      }
      skip();
      if (i >= s.size() || s[i] != ']') return BadPath(i);
      ++i;
    } else if (s.substr(i, 2) == "**") {
      i += 2;
      leg.kind = Leg::kEllipsis;
      if (!p.legs.empty() && p.legs.back().kind == Leg::kEllipsis) return BadPath(i);
    } else {
      return BadPath(i);
    }
    p.legs.push_back(std::move(leg));
  }
  if (!p.legs.empty() && p.legs.back().kind == Leg::kEllipsis) return BadPath(s.size());
  return p;
}

// Index `n` (from the end when `last`) of an array of `size`; nullopt past it.
std::optional<size_t> Resolve(uint64_t n, bool last, size_t size) {
  if (!last) return n < size ? std::optional<size_t>(n) : std::nullopt;
  if (n >= size) return std::nullopt;
  return size - 1 - n;
}

void Collect(const Dom& d, const std::vector<Leg>& legs, size_t li, std::vector<const Dom*>* out) {
  if (li == legs.size()) {
    if (std::find(out->begin(), out->end(), &d) == out->end()) out->push_back(&d);
    return;
  }
  const Leg& leg = legs[li];
  switch (leg.kind) {
    case Leg::kMember:
      if (d.is_object()) {
        auto it = d.find(leg.key);
        if (it != d.end()) Collect(*it, legs, li + 1, out);
      }
      break;
    case Leg::kAnyMember:
      if (d.is_object()) {
        for (const Dom& v : d) Collect(v, legs, li + 1, out);
      }
      break;
    case Leg::kCell: {
      if (!d.is_array()) {
        // Autowrap: [0] and [last] of a scalar or object are the value itself.
        if (leg.from == 0) Collect(d, legs, li + 1, out);
        break;
      }
      std::optional<size_t> k = Resolve(leg.from, leg.from_last, d.size());
      if (k) Collect(d[*k], legs, li + 1, out);
      break;
    }
    case Leg::kAnyCell:
      if (d.is_array()) {
        for (const Dom& v : d) Collect(v, legs, li + 1, out);
      }
      break;
    case Leg::kRange: {
      if (!d.is_array()) {
        if (leg.from == 0) Collect(d, legs, li + 1, out);
        break;
      }
      if (d.empty()) break;
      const size_t n = d.size();
      const uint64_t lo = leg.from_last ? (leg.from >= n ? 0 : n - 1 - leg.from) : leg.from;
      const uint64_t hi = leg.to_last ? (leg.to >= n ? 0 : n - 1 - leg.to) : std::min<uint64_t>(leg.to, n - 1);
      if (leg.to_last && leg.to >= n) break;
      for (uint64_t k = lo; k <= hi && k < n; ++k) Collect(d[k], legs, li + 1, out);
      break;
    }
    case Leg::kEllipsis:
      Collect(d, legs, li + 1, out);
      if (d.is_object() || d.is_array()) {
        for (const Dom& v : d) Collect(v, legs, li, out);
      }
      break;
  }
}

std::vector<const Dom*> Find(const Dom& d, const Path& p) {
  std::vector<const Dom*> out;
  Collect(d, p.legs, 0, &out);
  return out;
}

// ------------------------------------------------------------ arguments

// MySQL names functions in lower case in its messages.
std::string FnName(std::string_view upper) { return base::AsciiLower(upper); }

// A JSON document argument (1-based `arg`): a JSON value, or text parsed.
Result<Dom> DocArg(const Value& v, int arg, std::string_view fn) {
  if (v.string_type() == StringType::kJson || (v.is_string() && !v.is_binary())) {
    Dom d;
    TextError err;
    switch (ParseText(v.string_value(), &d, &err)) {
      case ParseOutcome::kOk: return d;
      case ParseOutcome::kTooDeep: return MakeError(er::kJsonDocumentTooDeep);
      case ParseOutcome::kInvalid:
        return MakeError(er::kInvalidJsonTextInParam, arg, FnName(fn), err.message, err.position);
    }
  }
  return MakeError(er::kInvalidTypeForJson, arg, FnName(fn));
}

// Any SQL value as a JSON value (JSON_OBJECT, JSON_ARRAY, JSON_SET's values).
Result<Dom> ValueArg(const Value& v, int arg, std::string_view fn) {
  if (v.is_null()) return Dom(nullptr);
  if (v.string_type() == StringType::kJson) return DocArg(v, arg, fn);
  switch (v.kind()) {
    case ValueKind::kInt: return Dom(v.int_value());
    case ValueKind::kUInt: return Dom(v.uint_value());
    case ValueKind::kDouble: return Dom(v.double_value());
    case ValueKind::kDecimal: return Dom(v.ToDouble());
    default: return Dom(v.string_value());
  }
}

Result<Path> PathArg(const Value& v) { return ParsePath(v.ToString()); }

Value JsonResult(const Dom& d) { return Value::Typed(ToText(d), StringType::kJson); }

bool AnyNull(const std::vector<Value>& args, size_t from = 0) {
  for (size_t i = from; i < args.size(); ++i) {
    if (args[i].is_null()) return true;
  }
  return false;
}

// ------------------------------------------------------------ functions

const char* TypeName(const Dom& d) {
  switch (d.type()) {
    case Dom::value_t::object: return "OBJECT";
    case Dom::value_t::array: return "ARRAY";
    case Dom::value_t::boolean: return "BOOLEAN";
    case Dom::value_t::null: return "NULL";
    case Dom::value_t::number_integer: return "INTEGER";
    case Dom::value_t::number_unsigned: return "UNSIGNED INTEGER";
    case Dom::value_t::number_float: return "DOUBLE";
    case Dom::value_t::string: return "STRING";
    default: return "OPAQUE";
  }
}

int Depth(const Dom& d) {
  if ((!d.is_object() && !d.is_array()) || d.empty()) return 1;
  int m = 0;
  for (const Dom& v : d) m = std::max(m, Depth(v));
  return m + 1;
}

// Numbers compare by value across integer, unsigned and double.
bool ScalarEqual(const Dom& a, const Dom& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
    if (a.is_number_unsigned() && b.is_number_unsigned()) return a.get<uint64_t>() == b.get<uint64_t>();
    if (a.is_number_integer() && b.is_number_integer()) return a.get<int64_t>() == b.get<int64_t>();
    const Dom& s = a.is_number_integer() ? a : b;
    const Dom& u = a.is_number_integer() ? b : a;
    return s.get<int64_t>() >= 0 && static_cast<uint64_t>(s.get<int64_t>()) == u.get<uint64_t>();
  }
  return a == b;
}

bool Contains(const Dom& target, const Dom& cand) {
  if (target.is_array()) {
    if (cand.is_array()) {
      for (const Dom& c : cand) {
        if (!Contains(target, c)) return false;
      }
      return true;
    }
    for (const Dom& t : target) {
      if (Contains(t, cand)) return true;
    }
    return false;
  }
  if (target.is_object()) {
    if (!cand.is_object()) return false;
    for (auto it = cand.begin(); it != cand.end(); ++it) {
      auto t = target.find(it.key());
      if (t == target.end() || !Contains(*t, it.value())) return false;
    }
    return true;
  }
  if (cand.is_array() || cand.is_object()) return false;
  return ScalarEqual(target, cand);
}

void MergePatch(Dom* target, const Dom& patch) {
  if (!patch.is_object()) {
    *target = patch;
    return;
  }
  if (!target->is_object()) *target = Dom::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it.value().is_null()) {
      target->erase(it.key());
    } else {
      MergePatch(&(*target)[it.key()], it.value());
    }
  }
}

// MySQL's order of JSON values (json-binary.md §5.3): first by type
// precedence, then within the type.
int Rank(const Dom& d) {
  switch (d.type()) {
    case Dom::value_t::boolean: return 7;
    case Dom::value_t::array: return 6;
    case Dom::value_t::object: return 5;
    case Dom::value_t::string: return 4;
    case Dom::value_t::number_integer: case Dom::value_t::number_unsigned: case Dom::value_t::number_float:
      return 3;
    default: return 1;  // null
  }
}

int Sign(int c) { return c < 0 ? -1 : c > 0 ? 1 : 0; }

int CompareNumbers(const Dom& a, const Dom& b) {
  if (ScalarEqual(a, b)) return 0;
  if (!a.is_number_float() && !b.is_number_float()) {
    // Integers: exactly, across signed and unsigned.
    auto wide = [](const Dom& d) {
      return d.is_number_unsigned() ? static_cast<__int128>(d.get<uint64_t>()) : static_cast<__int128>(d.get<int64_t>());
    };
    return wide(a) < wide(b) ? -1 : 1;
  }
  return a.get<double>() < b.get<double>() ? -1 : 1;
}

int CompareDoms(const Dom& a, const Dom& b) {
  const int ra = Rank(a), rb = Rank(b);
  if (ra != rb) return ra < rb ? -1 : 1;
  switch (a.type()) {
    case Dom::value_t::boolean: return Sign(static_cast<int>(a.get<bool>()) - static_cast<int>(b.get<bool>()));
    case Dom::value_t::string: {
      const auto& x = a.get_ref<const std::string&>();
      const auto& y = b.get_ref<const std::string&>();
      return Sign(x.compare(y));  // bytes (utf8mb4_bin), a prefix first
    }
    case Dom::value_t::array: {
      for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (int c = CompareDoms(a[i], b[i])) return c;
      }
      return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
    }
    case Dom::value_t::object: {
      if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
      for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
        if (int c = Sign(x.key().compare(y.key()))) return c;
        if (int c = CompareDoms(x.value(), y.value())) return c;
      }
      return 0;
    }
    case Dom::value_t::null: return 0;
    default: return CompareNumbers(a, b);
  }
}

// The value at `legs` (no wildcards) for modification; null when absent.
Dom* Locate(Dom& d, const std::vector<Leg>& legs, size_t n) {
  Dom* cur = &d;
  for (size_t i = 0; i < n; ++i) {
    const Leg& leg = legs[i];
    if (leg.kind == Leg::kMember) {
      if (!cur->is_object()) return nullptr;
      auto it = cur->find(leg.key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    } else {
      if (!cur->is_array()) {
        if (leg.from == 0) continue;  // autowrap
        return nullptr;
      }
      std::optional<size_t> k = Resolve(leg.from, leg.from_last, cur->size());
      if (!k) return nullptr;
      cur = &(*cur)[*k];
    }
  }
  return cur;
}

enum class Mode { kSet, kInsert, kReplace, kAppend };

void Modify(Dom& doc, const Path& p, const Dom& value, Mode mode) {
  if (mode == Mode::kAppend) {  // JSON_ARRAY_APPEND: an array grows, anything else is wrapped
    Dom* target = Locate(doc, p.legs, p.legs.size());
    if (target == nullptr) return;
    if (target->is_array()) {
      target->push_back(value);
    } else {
      Dom wrapped = Dom::array({*target, value});
      *target = std::move(wrapped);
    }
    return;
  }
  if (p.legs.empty()) {
    if (mode != Mode::kInsert) doc = value;
    return;
  }
  Dom* parent = Locate(doc, p.legs, p.legs.size() - 1);
  if (parent == nullptr) return;
  const Leg& last = p.legs.back();
  if (last.kind == Leg::kMember) {
    if (!parent->is_object()) return;
    const bool exists = parent->contains(last.key);
    if ((exists && mode == Mode::kInsert) || (!exists && mode == Mode::kReplace)) return;
    (*parent)[last.key] = value;
    Normalize(*parent);  // a new member goes to its sorted place
    return;
  }
  if (!parent->is_array()) {
    // Autowrap: [0] is the value itself; a later cell makes it an array.
    if (last.from == 0 && !last.from_last) {
      if (mode != Mode::kInsert) *parent = value;
    } else if (last.from_last && last.from == 0) {
      if (mode != Mode::kInsert) *parent = value;
    } else if (mode != Mode::kReplace) {
      Dom wrapped = Dom::array({*parent, value});
      *parent = std::move(wrapped);
    }
    return;
  }
  std::optional<size_t> k = Resolve(last.from, last.from_last, parent->size());
  if (k) {
    if (mode != Mode::kInsert) (*parent)[*k] = value;
  } else if (mode != Mode::kReplace) {
    parent->push_back(value);
  }
}

void Remove(Dom& doc, const Path& p) {
  Dom* parent = Locate(doc, p.legs, p.legs.size() - 1);
  if (parent == nullptr) return;
  const Leg& last = p.legs.back();
  if (last.kind == Leg::kMember) {
    if (parent->is_object()) parent->erase(last.key);
    return;
  }
  if (!parent->is_array()) return;
  std::optional<size_t> k = Resolve(last.from, last.from_last, parent->size());
  if (k) parent->erase(*k);
}

using Fn = Result<Value> (*)(std::string_view name, const std::vector<Value>& args, EvalContext& ctx);

Result<Value> FnValid(std::string_view, const std::vector<Value>& a, EvalContext&) {
  if (a[0].is_null()) return Value::Null();
  if (a[0].string_type() == StringType::kJson) return Value::Int(1);
  if (!a[0].is_string() || a[0].is_binary()) return Value::Int(0);
  Dom d;
  return Value::Int(ParseText(a[0].string_value(), &d, nullptr) == ParseOutcome::kOk ? 1 : 0);
}

Result<Value> FnType(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (a[0].is_null()) return Value::Null();
  Result<Dom> d = DocArg(a[0], 1, name);
  if (!d.ok()) return d.status();
  return Value::String(TypeName(*d));
}

Result<Value> FnQuote(std::string_view, const std::vector<Value>& a, EvalContext&) {
  if (a[0].is_null()) return Value::Null();
  std::string out;
  AppendQuoted(a[0].ToString(), &out);
  return Value::String(std::move(out));
}

Result<Value> FnUnquote(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (a[0].is_null()) return Value::Null();
  const std::string& s = a[0].string_value();
  if (a[0].string_type() == StringType::kJson) {
    Result<Dom> d = DocArg(a[0], 1, name);
    if (!d.ok()) return d.status();
    return Value::String(d->is_string() ? d->get<std::string>() : s);
  }
  if (!a[0].is_string()) return Value::String(a[0].ToString());
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
    Result<Dom> d = DocArg(a[0], 1, name);
    if (!d.ok()) return d.status();
    if (d->is_string()) return Value::String(d->get<std::string>());
  }
  return Value::String(s);
}

Result<Value> FnExtract(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  std::vector<Path> paths;
  bool wrap = a.size() > 2;
  for (size_t i = 1; i < a.size(); ++i) {
    Result<Path> p = PathArg(a[i]);
    if (!p.ok()) return p.status();
    wrap = wrap || p->wild();
    paths.push_back(std::move(p).value());
  }
  Dom all = Dom::array();
  for (const Path& p : paths) {
    for (const Dom* m : Find(*doc, p)) all.push_back(*m);
  }
  if (all.empty()) return Value::Null();
  if (!wrap) return JsonResult(all[0]);
  return JsonResult(all);
}

Result<Value> FnObject(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (a.size() % 2 != 0) return MakeError(er::kWrongParamcountToNativeFct, FnName(name));
  Dom obj = Dom::object();
  for (size_t i = 0; i < a.size(); i += 2) {
    if (a[i].is_null()) return MakeError(er::kJsonDocumentNullKey);
    Result<Dom> v = ValueArg(a[i + 1], static_cast<int>(i + 2), name);
    if (!v.ok()) return v.status();
    obj[a[i].ToString()] = std::move(v).value();
  }
  Normalize(obj);
  return JsonResult(obj);
}

Result<Value> FnArray(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  Dom arr = Dom::array();
  for (size_t i = 0; i < a.size(); ++i) {
    Result<Dom> v = ValueArg(a[i], static_cast<int>(i + 1), name);
    if (!v.ok()) return v.status();
    arr.push_back(std::move(v).value());
  }
  return JsonResult(arr);
}

// The single value at optional path argument `a[i]`; nullopt: no match.
Result<std::optional<Dom>> AtPath(const Dom& doc, const std::vector<Value>& a, size_t i) {
  if (i >= a.size()) return std::optional<Dom>(doc);
  Result<Path> p = PathArg(a[i]);
  if (!p.ok()) return p.status();
  if (p->wild()) return MakeError(er::kInvalidJsonPathWildcard);
  std::vector<const Dom*> m = Find(doc, *p);
  if (m.empty()) return std::optional<Dom>();
  return std::optional<Dom>(*m[0]);
}

Result<Value> FnLength(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  Result<std::optional<Dom>> v = AtPath(*doc, a, 1);
  if (!v.ok()) return v.status();
  if (!v->has_value()) return Value::Null();
  const Dom& d = **v;
  return Value::Int(d.is_object() || d.is_array() ? static_cast<int64_t>(d.size()) : 1);
}

Result<Value> FnDepth(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (a[0].is_null()) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  return Value::Int(Depth(*doc));
}

Result<Value> FnKeys(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  Result<std::optional<Dom>> v = AtPath(*doc, a, 1);
  if (!v.ok()) return v.status();
  if (!v->has_value() || !(*v)->is_object()) return Value::Null();
  Dom keys = Dom::array();
  for (auto it = (*v)->begin(); it != (*v)->end(); ++it) keys.push_back(it.key());
  return JsonResult(keys);
}

Result<Value> FnContains(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> target = DocArg(a[0], 1, name);
  if (!target.ok()) return target.status();
  Result<Dom> cand = DocArg(a[1], 2, name);
  if (!cand.ok()) return cand.status();
  Result<std::optional<Dom>> t = AtPath(*target, a, 2);
  if (!t.ok()) return t.status();
  if (!t->has_value()) return Value::Null();
  return Value::Int(Contains(**t, *cand) ? 1 : 0);
}

Result<Value> FnContainsPath(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  const std::string mode = base::AsciiLower(a[1].ToString());
  if (mode != "one" && mode != "all") return MakeError(er::kJsonBadOneOrAllArg, FnName(name));
  for (size_t i = 2; i < a.size(); ++i) {
    Result<Path> p = PathArg(a[i]);
    if (!p.ok()) return p.status();
    const bool found = !Find(*doc, *p).empty();
    if (found && mode == "one") return Value::Int(1);
    if (!found && mode == "all") return Value::Int(0);
  }
  return Value::Int(mode == "all" ? 1 : 0);
}

Result<Value> Modifier(std::string_view name, const std::vector<Value>& a, Mode mode) {
  if (a.size() % 2 != 1) return MakeError(er::kWrongParamcountToNativeFct, FnName(name));
  if (a[0].is_null()) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  for (size_t i = 1; i < a.size(); i += 2) {
    if (a[i].is_null()) return Value::Null();
    Result<Path> p = PathArg(a[i]);
    if (!p.ok()) return p.status();
    if (p->wild()) return MakeError(er::kInvalidJsonPathWildcard);
    Result<Dom> v = ValueArg(a[i + 1], static_cast<int>(i + 2), name);
    if (!v.ok()) return v.status();
    Modify(*doc, *p, *v, mode);
  }
  return JsonResult(*doc);
}

Result<Value> FnSet(std::string_view n, const std::vector<Value>& a, EvalContext&) { return Modifier(n, a, Mode::kSet); }
Result<Value> FnInsert(std::string_view n, const std::vector<Value>& a, EvalContext&) {
  return Modifier(n, a, Mode::kInsert);
}
Result<Value> FnReplace(std::string_view n, const std::vector<Value>& a, EvalContext&) {
  return Modifier(n, a, Mode::kReplace);
}

Result<Value> FnRemove(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  for (size_t i = 1; i < a.size(); ++i) {
    Result<Path> p = PathArg(a[i]);
    if (!p.ok()) return p.status();
    if (p->wild()) return MakeError(er::kInvalidJsonPathWildcard);
    if (p->legs.empty()) return MakeError(er::kJsonVacuousPath);
    Remove(*doc, *p);
  }
  return JsonResult(*doc);
}

Result<Value> FnArrayAppend(std::string_view n, const std::vector<Value>& a, EvalContext&) {
  return Modifier(n, a, Mode::kAppend);
}

Result<Value> FnMergePatch(std::string_view name, const std::vector<Value>& a, EvalContext&) {
  if (AnyNull(a)) return Value::Null();
  Result<Dom> doc = DocArg(a[0], 1, name);
  if (!doc.ok()) return doc.status();
  for (size_t i = 1; i < a.size(); ++i) {
    Result<Dom> patch = DocArg(a[i], static_cast<int>(i + 1), name);
    if (!patch.ok()) return patch.status();
    MergePatch(&*doc, *patch);
  }
  Normalize(*doc);
  return JsonResult(*doc);
}

struct FnDef {
  size_t min_args;
  size_t max_args;  // SIZE_MAX: any
  Fn fn;
};

const std::vector<std::pair<std::string_view, FnDef>>& Registry() {
  static const std::vector<std::pair<std::string_view, FnDef>> kFns = {
      {"JSON_VALID", {1, 1, FnValid}},
      {"JSON_TYPE", {1, 1, FnType}},
      {"JSON_QUOTE", {1, 1, FnQuote}},
      {"JSON_UNQUOTE", {1, 1, FnUnquote}},
      {"JSON_EXTRACT", {2, SIZE_MAX, FnExtract}},
      {"JSON_OBJECT", {0, SIZE_MAX, FnObject}},
      {"JSON_ARRAY", {0, SIZE_MAX, FnArray}},
      {"JSON_LENGTH", {1, 2, FnLength}},
      {"JSON_DEPTH", {1, 1, FnDepth}},
      {"JSON_KEYS", {1, 2, FnKeys}},
      {"JSON_CONTAINS", {2, 3, FnContains}},
      {"JSON_CONTAINS_PATH", {3, SIZE_MAX, FnContainsPath}},
      {"JSON_SET", {3, SIZE_MAX, FnSet}},
      {"JSON_INSERT", {3, SIZE_MAX, FnInsert}},
      {"JSON_REPLACE", {3, SIZE_MAX, FnReplace}},
      {"JSON_REMOVE", {2, SIZE_MAX, FnRemove}},
      {"JSON_ARRAY_APPEND", {3, SIZE_MAX, FnArrayAppend}},
      {"JSON_MERGE_PATCH", {2, SIZE_MAX, FnMergePatch}},
  };
  return kFns;
}

const FnDef* Lookup(std::string_view upper) {
  for (const auto& [n, def] : Registry()) {
    if (n == upper) return &def;
  }
  return nullptr;
}

}  // namespace

Result<std::string> TextToBinary(std::string_view text, std::string_view column, TextError* error) try {
  Dom d;
  TextError err;
  switch (ParseText(text, &d, &err)) {
    case ParseOutcome::kOk: return ToBinary(d);
    case ParseOutcome::kTooDeep: return MakeError(er::kJsonDocumentTooDeep);
    case ParseOutcome::kInvalid: break;
  }
  if (error != nullptr) *error = err;
  return MakeError(er::kInvalidJsonText, err.message, err.position, column);
} catch (const std::exception& e) {
  return Status::MySQL(1105, "HY000", std::string("JSON: ") + e.what());
}

Result<std::string> BinaryToText(std::string_view binary) try {
  Result<Dom> d = FromBinary(binary);
  if (!d.ok()) return d.status();
  return ToText(*d);
} catch (const std::exception& e) {
  return Status::MySQL(1105, "HY000", std::string("JSON: ") + e.what());
}

Result<std::string> Canonical(std::string_view text, int arg, std::string_view function) try {
  Result<Dom> d = DocArg(Value::String(std::string(text)), arg, function);
  if (!d.ok()) return d.status();
  return ToText(*d);
} catch (const std::exception& e) {
  return Status::MySQL(1105, "HY000", std::string("JSON: ") + e.what());
}

Result<Value> FromSql(const Value& v) try {
  if (v.is_null()) return Value::Null();
  Result<Dom> d = ValueArg(v, 1, "CAST");
  if (!d.ok()) return d.status();
  return JsonResult(*d);
} catch (const std::exception& e) {
  return Status::MySQL(1105, "HY000", std::string("JSON: ") + e.what());
}

std::optional<int> Compare(const Value& a, const Value& b) try {
  if (a.is_null() || b.is_null()) return std::nullopt;
  // The non-JSON side becomes a JSON scalar; SQL text is a JSON string,
  // not parsed (JSON_EXTRACT('{"a": 1}', '$.a') = '1' is false).
  Result<Dom> x = ValueArg(a, 1, "compare");
  Result<Dom> y = ValueArg(b, 2, "compare");
  if (!x.ok() || !y.ok()) return std::nullopt;
  return CompareDoms(*x, *y);
} catch (const std::exception&) {
  return std::nullopt;
}

// Numbers equal by value print alike: an integral double as an integer.
void AppendGroupingText(const Dom& d, std::string* out) {
  if (d.is_number_float()) {
    const double v = d.get<double>();
    if (v == 0) {
      *out += "0";
      return;
    }
    if (std::trunc(v) == v && std::fabs(v) < 1.8e19) {
      if (v < 0) {
        *out += std::to_string(static_cast<int64_t>(v));
      } else {
        *out += std::to_string(static_cast<uint64_t>(v));
      }
      return;
    }
  }
  if (d.is_array()) {
    out->push_back('[');
    for (const Dom& e : d) {
      AppendGroupingText(e, out);
      out->push_back(',');
    }
    out->push_back(']');
    return;
  }
  if (d.is_object()) {
    out->push_back('{');
    for (auto it = d.begin(); it != d.end(); ++it) {
      AppendQuoted(it.key(), out);
      out->push_back(':');
      AppendGroupingText(it.value(), out);
      out->push_back(',');
    }
    out->push_back('}');
    return;
  }
  AppendText(d, out);
}

std::string GroupingKey(const Value& v) try {
  Result<Dom> d = ValueArg(v, 1, "group");
  if (!d.ok()) return v.string_value();
  std::string out;
  AppendGroupingText(*d, &out);
  return out;
} catch (const std::exception&) {
  return v.string_value();
}

bool IsFunction(std::string_view upper_name) { return Lookup(upper_name) != nullptr; }

// Every nlohmann call that could throw is guarded; the catch keeps a missed
// one an error instead of a crash.
Result<Value> Call(std::string_view upper_name, const std::vector<Value>& args, EvalContext& ctx) try {
  const FnDef* def = Lookup(upper_name);
  if (def == nullptr) return MakeError(er::kSpDoesNotExist, "FUNCTION", FnName(upper_name));
  if (args.size() < def->min_args || args.size() > def->max_args) {
    return MakeError(er::kWrongParamcountToNativeFct, FnName(upper_name));
  }
  return def->fn(upper_name, args, ctx);
} catch (const std::exception& e) {
  return Status::MySQL(1105, "HY000", std::string("JSON: ") + e.what());
}

}  // namespace sluice::sql::json
