// protocol/payloads.h
//
// Payloads: the packets of one reply, before framing, one after another in
// one buffer. A result set of n rows was n + 4 strings in a vector, each
// allocated; here it is one buffer and its ends, and a session that keeps
// its Payloads between commands (server/session.h) allocates nothing for
// a reply of the usual size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "base/scratch.h"

namespace sluice::protocol {

class Payloads {
 public:
  void push_back(std::string_view payload) {
    bytes_.append(payload);
    ends_.push_back(bytes_.size());
  }
  // Encoding a payload in place: append its bytes to *Open(), then Close().
  std::string* Open() { return &bytes_; }
  void Close() { ends_.push_back(bytes_.size()); }
  // Drops what was appended to *Open() since the last payload ended.
  void Discard() { bytes_.resize(ends_.empty() ? 0 : ends_.back()); }

  void reserve(size_t payloads, size_t bytes) {
    ends_.reserve(payloads);
    bytes_.reserve(bytes);
  }
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  size_t total_bytes() const { return bytes_.size(); }
  std::string_view operator[](size_t i) const {
    const size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }
  std::vector<std::string> ToVector() const {
    std::vector<std::string> out;
    out.reserve(size());
    for (size_t i = 0; i < size(); ++i) out.emplace_back((*this)[i]);
    return out;
  }
  // Empties it, keeping its buffers unless a big reply grew them past
  // what a session keeps (base/scratch.h).
  void clear() {
    ClearScratch(bytes_);
    ClearScratch(ends_);
  }

 private:
  std::string bytes_;
  // Where each payload ends in bytes_; a few in place, so that a result of
  // a row or two (TextRows) allocates nothing for them.
  boost::container::small_vector<size_t, 4> ends_;
};

}  // namespace sluice::protocol
