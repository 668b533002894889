// protocol/wire.cc
#include "protocol/wire.h"

#include <cassert>

namespace sluice::protocol {
namespace {

uint64_t LoadLe(const char* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    v |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
  }
  return v;
}

}  // namespace

// ---- WireReader ----

// Failure is sticky: once a read has failed, the reader's position no longer
// means anything, so every later read fails too.
bool WireReader::Need(size_t n) {
  if (failed_ || n > remaining()) {
    failed_ = true;
    return false;
  }
  return true;
}

bool WireReader::ReadInt1(uint8_t* v) {
  if (!Need(1)) return false;
  *v = static_cast<uint8_t>(data_[pos_]);
  pos_ += 1;
  return true;
}

bool WireReader::ReadInt2(uint16_t* v) {
  if (!Need(2)) return false;
  *v = static_cast<uint16_t>(LoadLe(data_.data() + pos_, 2));
  pos_ += 2;
  return true;
}

bool WireReader::ReadInt3(uint32_t* v) {
  if (!Need(3)) return false;
  *v = static_cast<uint32_t>(LoadLe(data_.data() + pos_, 3));
  pos_ += 3;
  return true;
}

bool WireReader::ReadInt4(uint32_t* v) {
  if (!Need(4)) return false;
  *v = static_cast<uint32_t>(LoadLe(data_.data() + pos_, 4));
  pos_ += 4;
  return true;
}

bool WireReader::ReadInt6(uint64_t* v) {
  if (!Need(6)) return false;
  *v = LoadLe(data_.data() + pos_, 6);
  pos_ += 6;
  return true;
}

bool WireReader::ReadInt8(uint64_t* v) {
  if (!Need(8)) return false;
  *v = LoadLe(data_.data() + pos_, 8);
  pos_ += 8;
  return true;
}

bool WireReader::ReadLenencInt(uint64_t* v, bool* null) {
  if (!Need(1)) return false;
  const uint8_t first = static_cast<uint8_t>(data_[pos_]);
  size_t width = 0;
  switch (first) {
    case 0xFB:
      if (null == nullptr) {
        failed_ = true;
        return false;
      }
      pos_ += 1;
      *null = true;
      *v = 0;
      return true;
    case 0xFC:
      width = 2;
      break;
    case 0xFD:
      width = 3;
      break;
    case 0xFE:
      width = 8;
      break;
    case 0xFF:  // the ERR header, never a length
      failed_ = true;
      return false;
    default:
      pos_ += 1;
      if (null != nullptr) *null = false;
      *v = first;
      return true;
  }
  if (!Need(1 + width)) return false;
  *v = LoadLe(data_.data() + pos_ + 1, width);
  pos_ += 1 + width;
  if (null != nullptr) *null = false;
  return true;
}

bool WireReader::ReadLenencString(std::string_view* v) {
  const size_t start = pos_;
  uint64_t len = 0;
  if (!ReadLenencInt(&len)) return false;
  if (len > remaining()) {
    pos_ = start;
    failed_ = true;
    return false;
  }
  *v = data_.substr(pos_, static_cast<size_t>(len));
  pos_ += static_cast<size_t>(len);
  return true;
}

bool WireReader::ReadNulString(std::string_view* v) {
  if (!Need(0)) return false;
  const size_t nul = data_.find('\0', pos_);
  if (nul == std::string_view::npos) {
    failed_ = true;
    return false;
  }
  *v = data_.substr(pos_, nul - pos_);
  pos_ = nul + 1;
  return true;
}

bool WireReader::ReadFixed(size_t n, std::string_view* v) {
  if (!Need(n)) return false;
  *v = data_.substr(pos_, n);
  pos_ += n;
  return true;
}

std::string_view WireReader::ReadRest() {
  if (failed_) return {};
  std::string_view rest = data_.substr(pos_);
  pos_ = data_.size();
  return rest;
}

bool WireReader::Skip(size_t n) {
  if (!Need(n)) return false;
  pos_ += n;
  return true;
}

// ---- WireWriter ----

WireWriter::WireWriter(const WireWriter& other)
    : own_(other.own_), out_(other.out_ == &other.own_ ? &own_ : other.out_) {}

WireWriter::WireWriter(WireWriter&& other) noexcept
    : own_(std::move(other.own_)), out_(other.out_ == &other.own_ ? &own_ : other.out_) {}

WireWriter& WireWriter::operator=(const WireWriter& other) {
  if (this != &other) {
    own_ = other.own_;
    out_ = other.out_ == &other.own_ ? &own_ : other.out_;
  }
  return *this;
}

WireWriter& WireWriter::operator=(WireWriter&& other) noexcept {
  if (this != &other) {
    own_ = std::move(other.own_);
    out_ = other.out_ == &other.own_ ? &own_ : other.out_;
  }
  return *this;
}

namespace {

void StoreLe(std::string* out, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  }
}

}  // namespace

WireWriter& WireWriter::Int1(uint8_t v) {
  out_->push_back(static_cast<char>(v));
  return *this;
}

WireWriter& WireWriter::Int2(uint16_t v) {
  StoreLe(out_, v, 2);
  return *this;
}

WireWriter& WireWriter::Int3(uint32_t v) {
  assert(v <= 0xFFFFFF);
  StoreLe(out_, v, 3);
  return *this;
}

WireWriter& WireWriter::Int4(uint32_t v) {
  StoreLe(out_, v, 4);
  return *this;
}

WireWriter& WireWriter::Int6(uint64_t v) {
  assert(v <= 0xFFFFFFFFFFFFull);
  StoreLe(out_, v, 6);
  return *this;
}

WireWriter& WireWriter::Int8(uint64_t v) {
  StoreLe(out_, v, 8);
  return *this;
}

WireWriter& WireWriter::LenencInt(uint64_t v) {
  if (v < 0xFB) {
    out_->push_back(static_cast<char>(v));
  } else if (v <= 0xFFFF) {
    out_->push_back(static_cast<char>(0xFC));
    StoreLe(out_, v, 2);
  } else if (v <= 0xFFFFFF) {
    out_->push_back(static_cast<char>(0xFD));
    StoreLe(out_, v, 3);
  } else {
    out_->push_back(static_cast<char>(0xFE));
    StoreLe(out_, v, 8);
  }
  return *this;
}

WireWriter& WireWriter::LenencString(std::string_view v) {
  LenencInt(v.size());
  out_->append(v);
  return *this;
}

WireWriter& WireWriter::NulString(std::string_view v) {
  // A NUL inside would end the string early for the reader; cut there so
  // the packet stays parseable even if a caller breaks the contract.
  const size_t nul = v.find('\0');
  assert(nul == std::string_view::npos);
  out_->append(v.substr(0, nul));
  out_->push_back('\0');
  return *this;
}

WireWriter& WireWriter::Bytes(std::string_view v) {
  out_->append(v);
  return *this;
}

WireWriter& WireWriter::Zeros(size_t n) {
  out_->append(n, '\0');
  return *this;
}

size_t LenencIntSize(uint64_t v) {
  if (v < 0xFB) return 1;
  if (v <= 0xFFFF) return 3;
  if (v <= 0xFFFFFF) return 4;
  return 9;
}

}  // namespace sluice::protocol
