// binlog/bytes_internal.h
//
// Little-endian / big-endian writers and a bounds-checked reader for the
// binlog module's encoders and decoders. Private to binlog/ (and its tools).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace sluice::binlog::internal {

inline void PutLE(std::string& out, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void PutBE(std::string& out, uint64_t v, int width) {
  for (int i = width - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
inline void StoreLE(char* p, uint64_t v, int width) {
  for (int i = 0; i < width; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
inline uint64_t LoadLE(const char* p, int width) {
  uint64_t v = 0;
  for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
inline uint64_t LoadBE(const char* p, int width) {
  uint64_t v = 0;
  for (int i = 0; i < width; ++i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
// MySQL length-encoded integer.
inline void PutLenenc(std::string& out, uint64_t v) {
  if (v < 251) {
    out.push_back(static_cast<char>(v));
  } else if (v < (1u << 16)) {
    out.push_back(static_cast<char>(0xfc));
    PutLE(out, v, 2);
  } else if (v < (1u << 24)) {
    out.push_back(static_cast<char>(0xfd));
    PutLE(out, v, 3);
  } else {
    out.push_back(static_cast<char>(0xfe));
    PutLE(out, v, 8);
  }
}
inline size_t LenencSize(uint64_t v) {
  return v < 251 ? 1 : v < (1u << 16) ? 3 : v < (1u << 24) ? 4 : 9;
}

// Reads from a byte range; every read checks bounds and sets `failed`
// (values read after a failure are 0 / empty).
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}
  bool failed() const { return failed_; }
  size_t remaining() const { return data_.size() - pos_; }
  size_t pos() const { return pos_; }
  bool Need(size_t n) {
    if (failed_ || remaining() < n) {
      failed_ = true;
      return false;
    }
    return true;
  }
  uint64_t LE(int width) {
    if (!Need(width)) return 0;
    uint64_t v = LoadLE(data_.data() + pos_, width);
    pos_ += width;
    return v;
  }
  uint64_t BE(int width) {
    if (!Need(width)) return 0;
    uint64_t v = LoadBE(data_.data() + pos_, width);
    pos_ += width;
    return v;
  }
  uint64_t Lenenc() {
    if (!Need(1)) return 0;
    uint8_t b = static_cast<uint8_t>(data_[pos_++]);
    if (b < 251) return b;
    if (b == 0xfc) return LE(2);
    if (b == 0xfd) return LE(3);
    if (b == 0xfe) return LE(8);
    failed_ = true;
    return 0;
  }
  std::string_view Bytes(size_t n) {
    if (!Need(n)) return {};
    std::string_view v = data_.substr(pos_, n);
    pos_ += n;
    return v;
  }
  std::string_view Rest() { return Bytes(remaining()); }
  void Skip(size_t n) { (void)Bytes(n); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

}  // namespace sluice::binlog::internal
