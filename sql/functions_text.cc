// sql/functions_text.cc
//
// Built-in functions over bytes and their encodings: CHAR ORD BIT_LENGTH
// TO_BASE64 FROM_BASE64 EXPORT_SET MAKE_SET CHARSET COLLATION, network
// addresses (INET_ATON INET_NTOA INET6_ATON INET6_NTOA IS_IPV4 IS_IPV6),
// UUIDs (IS_UUID UUID_TO_BIN BIN_TO_UUID) and RANDOM_BYTES, with MySQL's
// results for bad input: NULL where MySQL returns NULL, 1411 where
// UUID_TO_BIN / BIN_TO_UUID refuse their argument, 1690 for RANDOM_BYTES
// outside 1..1024.
#include <arpa/inet.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstdint>
#include <string>

#include "sql/collation.h"
#include "sql/functions_internal.h"

namespace sluice::sql {
namespace {

// CHAR(n, ...): each integer as its bytes, most significant first, no
// leading zero bytes (CHAR(256) is 0x0100); NULLs are skipped. A binary
// string.
Result<Value> FnChar(Call& c) {
  std::string out;
  for (size_t i = 0; i < c.args.size(); ++i) {
    if (c.args[i].is_null()) continue;
    const auto v = static_cast<uint32_t>(c.Bits(i));
    char bytes[4];
    int k = 0;
    for (int shift = 24; shift >= 0; shift -= 8) {
      const char b = static_cast<char>((v >> shift) & 0xff);
      if (k == 0 && b == 0 && shift > 0) continue;
      bytes[k++] = b;
    }
    out.append(bytes, static_cast<size_t>(k));
  }
  return StringResult(std::move(out), true);
}

// ORD(s): the first character's code, its bytes as a big-endian number
// (ASCII for a one-byte character).
Result<Value> FnOrd(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  if (s.empty()) return Value::Int(0);
  size_t len = 1;
  const auto lead = static_cast<unsigned char>(s[0]);
  if (!c.args[0].is_binary()) {
    if (lead >= 0xF0) len = 4;
    else if (lead >= 0xE0) len = 3;
    else if (lead >= 0xC0) len = 2;
  }
  len = std::min(len, s.size());
  uint64_t v = 0;
  for (size_t i = 0; i < len; ++i) v = (v << 8) | static_cast<unsigned char>(s[i]);
  return Value::UInt(v);
}

Result<Value> FnBitLength(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Value::Int(static_cast<int64_t>(c.args[0].ToString().size()) * 8);
}

// Base64 as MySQL writes it: a newline after every 76 characters.
Result<Value> FnToBase64(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  const uint64_t encoded = (s.size() + 2) / 3 * 4;
  if (auto null = TooLongResult(c, encoded + encoded / 76)) return *null;
  std::string block(encoded + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(block.data()),
                                reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  block.resize(static_cast<size_t>(n));
  std::string out;
  out.reserve(block.size() + block.size() / 76);
  for (size_t i = 0; i < block.size(); i += 76) {
    if (i > 0) out.push_back('\n');
    out.append(block, i, 76);
  }
  return Value::String(std::move(out));
}

int Base64Digit(char ch) {
  if (ch >= 'A' && ch <= 'Z') return ch - 'A';
  if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
  if (ch >= '0' && ch <= '9') return ch - '0' + 52;
  if (ch == '+') return 62;
  if (ch == '/') return 63;
  return -1;
}

// FROM_BASE64(s): the decoded bytes (a binary string); spaces and line
// breaks are skipped, anything else that is not base64 makes it NULL.
Result<Value> FnFromBase64(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  std::string out;
  uint32_t acc = 0;
  int bits = 0, pad = 0;
  for (char ch : s) {
    if (ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t') continue;
    if (ch == '=') {
      ++pad;
      continue;
    }
    const int d = Base64Digit(ch);
    if (d < 0 || pad > 0) return Value::Null();
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  if (pad > 2) return Value::Null();
  return StringResult(std::move(out), true);
}

// EXPORT_SET(bits, on, off [, separator [, count]]): `count` (64 at most,
// the default) words, on for each set bit from the lowest.
Result<Value> FnExportSet(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const uint64_t bits = c.Bits(0);
  const std::string on = c.args[1].ToString(), off = c.args[2].ToString();
  const std::string sep = c.args.size() > 3 ? c.args[3].ToString() : ",";
  int64_t count = c.args.size() > 4 ? c.Int(4) : 64;
  if (count < 0 || count > 64) count = 64;
  std::string out;
  for (int64_t i = 0; i < count; ++i) {
    if (i > 0) out += sep;
    out += (bits >> i) & 1 ? on : off;
  }
  return Value::String(std::move(out));
}

// MAKE_SET(bits, s1, s2, ...): the strings whose bit is set, comma
// separated; NULLs are skipped.
Result<Value> FnMakeSet(Call& c) {
  if (c.args[0].is_null()) return Value::Null();
  const uint64_t bits = c.Bits(0);
  std::string out;
  bool first = true;
  for (size_t i = 1; i < c.args.size() && i <= 64; ++i) {
    if (((bits >> (i - 1)) & 1) == 0 || c.args[i].is_null()) continue;
    if (!first) out.push_back(',');
    out += c.args[i].ToString();
    first = false;
  }
  return Value::String(std::move(out));
}

// CHARSET(s) / COLLATION(s): a string's character set and collation;
// "binary" for binary strings and numbers.
Result<Value> FnCollation(Call& c) {
  const Value& v = c.args[0];
  if (!v.is_string() || v.is_binary()) return Value::String("binary");
  return Value::String(std::string(CollationName(v.collation())));
}

Result<Value> FnCharset(Call& c) {
  const Value& v = c.args[0];
  if (!v.is_string() || v.is_binary()) return Value::String("binary");
  const std::string_view name = CollationName(v.collation());
  return Value::String(std::string(name.substr(0, name.find('_'))));
}

// MySQL's INET_ATON: dotted numbers, each at most 255, the first ones the
// high bytes and the last the lowest ("127.1" is 127.0.0.1); NULL
// otherwise.
std::optional<uint64_t> InetAton(std::string_view s) {
  uint64_t prefix = 0, part = 0;
  int dots = 0;
  bool digit = false;
  for (char ch : s) {
    if (ch >= '0' && ch <= '9') {
      part = part * 10 + static_cast<uint64_t>(ch - '0');
      if (part > 255) return std::nullopt;
      digit = true;
    } else if (ch == '.') {
      if (!digit || ++dots > 3) return std::nullopt;
      prefix = (prefix << 8) | part;
      part = 0;
      digit = false;
    } else {
      return std::nullopt;
    }
  }
  if (!digit) return std::nullopt;
  return (prefix << (8 * (4 - dots))) | part;
}

Result<Value> FnInetAton(Call& c) {
  if (c.AnyNull()) return Value::Null();
  std::optional<uint64_t> v = InetAton(c.args[0].ToString());
  return v ? Value::UInt(*v) : Value::Null();
}

Result<Value> FnInetNtoa(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const Value n = c.Num(0);
  if (n.kind() == ValueKind::kString && !n.is_binary()) (void)c.Int(0);  // the 1292 warning
  const double d = n.ToDouble();
  if (d < 0 || d > 4294967295.0) return Value::Null();
  const auto v = static_cast<uint32_t>(n.ToUInt());
  return Value::String(std::to_string(v >> 24) + "." + std::to_string((v >> 16) & 255) + "." +
                       std::to_string((v >> 8) & 255) + "." + std::to_string(v & 255));
}

bool ParseIpv4(const std::string& s, unsigned char out[4]) { return inet_pton(AF_INET, s.c_str(), out) == 1; }
bool ParseIpv6(const std::string& s, unsigned char out[16]) { return inet_pton(AF_INET6, s.c_str(), out) == 1; }

Result<Value> FnIsIpv4(Call& c) {
  if (c.AnyNull()) return Value::Int(0);
  unsigned char b[4];
  return Value::Bool(ParseIpv4(c.args[0].ToString(), b));
}

Result<Value> FnIsIpv6(Call& c) {
  if (c.AnyNull()) return Value::Int(0);
  unsigned char b[16];
  return Value::Bool(ParseIpv6(c.args[0].ToString(), b));
}

// INET6_ATON(s): 4 bytes for an IPv4 address, 16 for IPv6; NULL otherwise.
Result<Value> FnInet6Aton(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const std::string s = c.args[0].ToString();
  unsigned char b[16];
  if (ParseIpv4(s, b)) return StringResult(std::string(reinterpret_cast<char*>(b), 4), true);
  if (ParseIpv6(s, b)) return StringResult(std::string(reinterpret_cast<char*>(b), 16), true);
  return Value::Null();
}

// INET6_NTOA(b): a 4- or 16-byte binary string as an address; NULL for
// anything else (a non-binary string included, as MySQL).
Result<Value> FnInet6Ntoa(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const Value& v = c.args[0];
  if (!v.is_string() || !v.is_binary()) return Value::Null();
  const std::string& s = v.string_value();
  char text[INET6_ADDRSTRLEN];
  if (s.size() == 4 && inet_ntop(AF_INET, s.data(), text, sizeof(text))) return Value::String(text);
  if (s.size() == 16 && inet_ntop(AF_INET6, s.data(), text, sizeof(text))) return Value::String(text);
  return Value::Null();
}

int HexDigit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// A UUID's 16 bytes from 32 hex digits, optionally in 8-4-4-4-12 groups,
// optionally in braces (MySQL's IS_UUID forms).
std::optional<std::string> ParseUuid(std::string_view s) {
  if (s.size() == 38) {
    if (s.front() != '{' || s.back() != '}') return std::nullopt;
    s = s.substr(1, 36);
  }
  const bool dashed = s.size() == 36;
  if (!dashed && s.size() != 32) return std::nullopt;
  std::string out;
  int high = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (dashed && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (s[i] != '-') return std::nullopt;
      continue;
    }
    const int d = HexDigit(s[i]);
    if (d < 0) return std::nullopt;
    if (high < 0) {
      high = d;
    } else {
      out.push_back(static_cast<char>(high << 4 | d));
      high = -1;
    }
  }
  return out;
}

Result<Value> FnIsUuid(Call& c) {
  if (c.AnyNull()) return Value::Null();
  return Value::Bool(ParseUuid(c.args[0].ToString()).has_value());
}

// UUID_TO_BIN's swap flag: the time-high group first and time-low after
// it (an index-friendly order for time-based UUIDs); `to_bin` false undoes
// it (BIN_TO_UUID's flag).
std::string SwapTimeParts(const std::string& b, bool to_bin) {
  if (to_bin) return b.substr(6, 2) + b.substr(4, 2) + b.substr(0, 4) + b.substr(8);
  return b.substr(4, 4) + b.substr(2, 2) + b.substr(0, 2) + b.substr(8);
}

// 1411 for what UUID_TO_BIN / BIN_TO_UUID cannot read; bytes outside
// printable ASCII shown as \xHH, as MySQL shows them.
Status WrongUuid(std::string_view bytes, const char* fname) {
  std::string shown;
  for (unsigned char ch : bytes) {
    if (ch >= 32 && ch < 127) {
      shown.push_back(static_cast<char>(ch));
    } else {
      shown += "\\x";
      shown.push_back("0123456789ABCDEF"[ch >> 4]);
      shown.push_back("0123456789ABCDEF"[ch & 15]);
    }
  }
  return MakeError(er::kWrongValueForType, "string", shown, fname);
}

Result<Value> FnUuidToBin(Call& c) {
  if (c.args[0].is_null()) return Value::Null();
  const std::string text = c.args[0].ToString();
  std::optional<std::string> b = ParseUuid(text);
  if (!b) return WrongUuid(text, "uuid_to_bin");
  const bool swap = c.args.size() > 1 && !c.args[1].is_null() && c.args[1].ToBool().value_or(false);
  return StringResult(swap ? SwapTimeParts(*b, true) : *b, true);
}

Result<Value> FnBinToUuid(Call& c) {
  if (c.args[0].is_null()) return Value::Null();
  std::string b = c.args[0].ToString();
  if (b.size() != 16) return WrongUuid(b, "bin_to_uuid");
  const bool swap = c.args.size() > 1 && !c.args[1].is_null() && c.args[1].ToBool().value_or(false);
  if (swap) b = SwapTimeParts(b, false);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[static_cast<unsigned char>(b[i]) >> 4]);
    out.push_back(kHex[static_cast<unsigned char>(b[i]) & 15]);
  }
  return Value::String(std::move(out));
}

Result<Value> FnRandomBytes(Call& c) {
  if (c.AnyNull()) return Value::Null();
  const int64_t n = c.Int(0);
  if (n < 1 || n > 1024) return MakeError(er::kDataOutOfRange, "length", "random_bytes");
  std::string out(static_cast<size_t>(n), '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) return Value::Null();
  return StringResult(std::move(out), true);
}

}  // namespace

void AddTextFunctions(FunctionTable* table) {
  table->insert({
      {"CHAR", {1, -1, false, FnChar}},
      {"ORD", {1, 1, false, FnOrd}},
      {"BIT_LENGTH", {1, 1, false, FnBitLength}},
      {"TO_BASE64", {1, 1, false, FnToBase64}},
      {"FROM_BASE64", {1, 1, false, FnFromBase64}},
      {"EXPORT_SET", {3, 5, false, FnExportSet}},
      {"MAKE_SET", {2, -1, false, FnMakeSet}},
      {"CHARSET", {1, 1, false, FnCharset}},
      {"COLLATION", {1, 1, false, FnCollation}},
      {"INET_ATON", {1, 1, false, FnInetAton}},
      {"INET_NTOA", {1, 1, false, FnInetNtoa}},
      {"INET6_ATON", {1, 1, false, FnInet6Aton}},
      {"INET6_NTOA", {1, 1, false, FnInet6Ntoa}},
      {"IS_IPV4", {1, 1, false, FnIsIpv4}},
      {"IS_IPV6", {1, 1, false, FnIsIpv6}},
      {"IS_UUID", {1, 1, false, FnIsUuid}},
      {"UUID_TO_BIN", {1, 2, false, FnUuidToBin}},
      {"BIN_TO_UUID", {1, 2, false, FnBinToUuid}},
      {"RANDOM_BYTES", {1, 1, false, FnRandomBytes}},
  });
}

}  // namespace sluice::sql
