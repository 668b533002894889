// base/scratch.h
//
// Scratch buffers: a string kept from one use to the next (a session's
// event buffer, a thread's redo record, the rows builder's events) so that
// a hot path does not allocate each time. What bounds them: one that a big
// value grew past kKeptScratchBytes is freed rather than held for good by
// its session or thread.
//
// Thread-safety: the caller's buffer, the caller's concern.
#pragma once

#include <cstddef>
#include <string>

namespace sluice {

inline constexpr size_t kKeptScratchBytes = 64 << 10;

// Empties `s` (a std::string, or a std::vector of what it keeps), keeping
// its buffer unless that grew past `max_kept` bytes.
template <typename Buffer>
void ClearScratch(Buffer& s, size_t max_kept = kKeptScratchBytes) {
  if (s.capacity() * sizeof(typename Buffer::value_type) > max_kept) {
    Buffer().swap(s);
  } else {
    s.clear();
  }
}

}  // namespace sluice
