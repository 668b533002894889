// base/stack_guard.h
//
// How much stack the calling thread has left, so that code whose recursion
// depth the client decides (an expression tree, nested subqueries) can stop
// with ER_STACK_OVERRUN_NEED_MORE (1436), as mysqld's check_stack_overrun
// does, instead of running off the end of the stack and taking the whole
// server down with SIGSEGV.
//
// The bounds come from pthread_getattr_np once per thread (cached in a
// thread_local), so a check costs a TLS read and a compare. The position is
// the frame address, not a local's address: under ASan with
// detect_stack_use_after_return locals live on a heap "fake stack".
//
// Thread-safety: every function reads only the calling thread's state.
#pragma once

#include <cstddef>

#include "base/status.h"

namespace sluice {

// Sanitizers grow every frame (redzones, shadow bookkeeping); budgets below
// scale so that limits that hold in a release build hold there too. ASan's
// frames are the largest: parsing the tallest expression the parser allows
// takes about 29 MiB there, under 7 MiB in a release build, so statement
// threads get 8 times the stack. The margin grows 4 times only: it must
// still fit below the 8 MiB main thread of a unit test.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLUICE_SANITIZED_STACK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SLUICE_SANITIZED_STACK 1
#endif
#endif
#ifdef SLUICE_SANITIZED_STACK
inline constexpr size_t kStackScale = 8;
inline constexpr size_t kMarginScale = 4;
#else
inline constexpr size_t kStackScale = 1;
inline constexpr size_t kMarginScale = 1;
#endif

// The stack of the threads that run statements. MySQL's thread_stack is
// 1 MiB; sluice's frames are larger (Result<Value> by value) and it keeps
// 5,000-term AND/OR chains and 64 nested subqueries working, so 8 MiB.
inline constexpr size_t kStatementThreadStack = (size_t{8} << 20) * kStackScale;

// What a guarded recursion keeps free below itself: room for the deepest
// walk the parser's limits still allow that does not check the stack itself
// (printing, column collection, copying an expression tree) plus library
// calls at the leaves (regex, formatting).
inline constexpr size_t kStackMargin = (size_t{1} << 20) * kMarginScale;

// Bytes of stack the calling thread has used so far and its size; 0 and 0
// where the bounds are unknown.
size_t StackUsed();
size_t StackSize();

// OK while more than `needed` bytes of the calling thread's stack remain
// (always OK where the bounds are unknown); else StackOverrunError(needed).
Status CheckStack(size_t needed = kStackMargin);

// 1436 (HY000) with MySQL's text and this thread's numbers.
Status StackOverrunError(size_t needed);

}  // namespace sluice
