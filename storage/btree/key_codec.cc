// storage/btree/key_codec.cc
#include "storage/btree/key_codec.h"

#include <bit>
#include <cassert>
#include <cstring>

namespace sluice::storage {
namespace {

constexpr char kEscape = '\x00';
constexpr char kEscapedZero = '\xFF';
constexpr char kTerminator = '\x01';

void AppendBigEndian(std::string* out, uint64_t v, size_t width) {
  for (size_t i = width; i-- > 0;) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

}  // namespace

KeyEncoder& KeyEncoder::Int(int64_t v, size_t width) {
  assert(width >= 1 && width <= 8);
  const uint64_t sign = uint64_t{1} << (8 * width - 1);
  const uint64_t mask = width == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * width)) - 1;
  AppendBigEndian(&key_, (static_cast<uint64_t>(v) & mask) ^ sign, width);
  return *this;
}

KeyEncoder& KeyEncoder::Uint(uint64_t v, size_t width) {
  assert(width >= 1 && width <= 8);
  assert(width == 8 || v < (uint64_t{1} << (8 * width)));
  AppendBigEndian(&key_, v, width);
  return *this;
}

KeyEncoder& KeyEncoder::Double(double v) {
  if (v == 0) v = 0;  // -0.0 == 0.0
  uint64_t bits = std::bit_cast<uint64_t>(v);
  bits = (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
  AppendBigEndian(&key_, bits, 8);
  return *this;
}

KeyEncoder& KeyEncoder::String(std::string_view s) {
  for (char c : s) {
    key_.push_back(c);
    if (c == kEscape) key_.push_back(kEscapedZero);
  }
  key_.push_back(kEscape);
  key_.push_back(kTerminator);
  return *this;
}

KeyEncoder& KeyEncoder::Null() {
  key_.push_back('\x00');
  return *this;
}

KeyEncoder& KeyEncoder::NotNull() {
  key_.push_back('\x01');
  return *this;
}

Result<uint64_t> KeyDecoder::Uint(size_t width) {
  if (width < 1 || width > 8) return Status::InvalidArgument("integer key width must be 1..8");
  if (rest_.size() < width) return Status::Corruption("key ends inside an integer");
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(rest_[i]);
  rest_.remove_prefix(width);
  return v;
}

Result<int64_t> KeyDecoder::Int(size_t width) {
  auto u = Uint(width);
  if (!u.ok()) return u.status();
  const uint64_t sign = uint64_t{1} << (8 * width - 1);
  uint64_t v = *u ^ sign;
  if (width < 8 && (v & sign) != 0) v |= ~((uint64_t{1} << (8 * width)) - 1);  // sign-extend
  return static_cast<int64_t>(v);
}

Result<double> KeyDecoder::Double() {
  auto u = Uint(8);
  if (!u.ok()) return u.status();
  uint64_t bits = *u;
  bits = (bits >> 63) != 0 ? bits & ~(uint64_t{1} << 63) : ~bits;
  return std::bit_cast<double>(bits);
}

Result<std::string> KeyDecoder::String() {
  std::string out;
  for (size_t i = 0; i < rest_.size(); ++i) {
    if (rest_[i] != kEscape) {
      out.push_back(rest_[i]);
      continue;
    }
    if (i + 1 >= rest_.size()) break;
    if (rest_[i + 1] == kTerminator) {
      rest_.remove_prefix(i + 2);
      return out;
    }
    if (rest_[i + 1] != kEscapedZero) return Status::Corruption("bad escape in a string key");
    out.push_back('\0');
    ++i;
  }
  return Status::Corruption("string key is not terminated");
}

Result<bool> KeyDecoder::IsNull() {
  if (rest_.empty()) return Status::Corruption("key ends before a NULL marker");
  char m = rest_[0];
  if (m != '\x00' && m != '\x01') return Status::Corruption("bad NULL marker in a key");
  rest_.remove_prefix(1);
  return m == '\x00';
}

}  // namespace sluice::storage
