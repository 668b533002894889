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

// Empties `s`, keeping its buffer unless it grew past `max_kept`.
inline void ClearScratch(std::string& s, size_t max_kept = kKeptScratchBytes) {
  if (s.capacity() > max_kept) {
    std::string().swap(s);
  } else {
    s.clear();
  }
}

}  // namespace sluice
