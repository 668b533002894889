#include "base/stack_guard.h"

#include <pthread.h>

#include <cstdint>

#include "base/mysql_error.h"

namespace sluice {

namespace {

struct StackBounds {
  bool known = false;
  uintptr_t low = 0;  // lowest usable address (stacks grow down)
  uintptr_t high = 0;
};

thread_local StackBounds t_bounds;

const StackBounds& Bounds() {
  if (!t_bounds.known) {
    t_bounds.known = true;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      size_t size = 0;
      if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr && size > 0) {
        t_bounds.low = reinterpret_cast<uintptr_t>(addr);
        t_bounds.high = t_bounds.low + size;
      }
      pthread_attr_destroy(&attr);
    }
  }
  return t_bounds;
}

// Not inlined, so that the frame address is this call's, at or below the
// caller's.
__attribute__((noinline)) uintptr_t Here() {
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
}

}  // namespace

size_t StackUsed() {
  const StackBounds& b = Bounds();
  if (b.high == 0) return 0;
  uintptr_t sp = Here();
  return sp < b.high ? b.high - sp : 0;
}

size_t StackSize() {
  const StackBounds& b = Bounds();
  return b.high - b.low;
}

Status CheckStack(size_t needed) {
  const StackBounds& b = Bounds();
  if (b.high == 0) return Status::OK();
  uintptr_t sp = Here();
  if (sp > b.low && sp - b.low > needed) return Status::OK();
  return StackOverrunError(needed);
}

Status StackOverrunError(size_t needed) {
  return MakeError(er::kStackOverrunNeedMore, StackUsed(), StackSize(), needed);
}

}  // namespace sluice
