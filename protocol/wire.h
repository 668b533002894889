// protocol/wire.h
//
// Bounds-checked readers and writers for the MySQL wire's basic types:
// fixed little-endian integers, length-encoded integers and strings,
// NUL-terminated strings, and the rest of a packet.
//
// WireReader never reads past its buffer: every Read* returns false (and
// leaves the reader failed) when the bytes are not there, so a truncated or
// lying packet becomes a clean error, never an out-of-bounds read.
// Thread-safety: none; one owner at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace sluice::protocol {

class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool ReadInt1(uint8_t* v);
  bool ReadInt2(uint16_t* v);
  bool ReadInt3(uint32_t* v);
  bool ReadInt4(uint32_t* v);
  bool ReadInt6(uint64_t* v);
  bool ReadInt8(uint64_t* v);
  // 0xFB (NULL) and 0xFF are rejected (returns false) unless `null` is given,
  // in which case 0xFB sets *null = true.
  bool ReadLenencInt(uint64_t* v, bool* null = nullptr);
  bool ReadLenencString(std::string_view* v);
  bool ReadNulString(std::string_view* v);   // fails if no NUL before the end
  bool ReadFixed(size_t n, std::string_view* v);
  std::string_view ReadRest();               // the remaining bytes (string<EOF>)
  bool Skip(size_t n);

  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  bool failed() const { return failed_; }

 private:
  bool Need(size_t n);
  std::string_view data_;
  size_t pos_ = 0;
  bool failed_ = false;
};

class WireWriter {
 public:
  // Default: writes into a buffer the writer owns (read it with data() or
  // Take()). With `out`: appends to *out, which must outlive the writer.
  WireWriter() = default;
  explicit WireWriter(std::string* out) : out_(out) {}
  // Copies and moves keep pointing at their own buffer when the source owned
  // one, and at the same external string otherwise.
  WireWriter(const WireWriter& other);
  WireWriter(WireWriter&& other) noexcept;
  WireWriter& operator=(const WireWriter& other);
  WireWriter& operator=(WireWriter&& other) noexcept;

  WireWriter& Int1(uint8_t v);
  WireWriter& Int2(uint16_t v);
  WireWriter& Int3(uint32_t v);
  WireWriter& Int4(uint32_t v);
  WireWriter& Int6(uint64_t v);
  WireWriter& Int8(uint64_t v);
  WireWriter& LenencInt(uint64_t v);
  WireWriter& LenencString(std::string_view v);
  WireWriter& NulString(std::string_view v);  // v must not contain NUL
  WireWriter& Bytes(std::string_view v);
  WireWriter& Zeros(size_t n);

  std::string& data() { return *out_; }
  std::string Take() { return std::move(*out_); }

 private:
  std::string own_;
  std::string* out_ = &own_;
};

// Size in bytes of the length-encoded form of `v`.
size_t LenencIntSize(uint64_t v);

}  // namespace sluice::protocol
