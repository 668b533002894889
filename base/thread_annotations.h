// base/thread_annotations.h
//
// Clang's thread-safety attributes, spelled as macros: a member declared
// GUARDED_BY(mu_) may be read or written only with mu_ held, a function
// declared REQUIRES(mu_) may be called only with it held, and so on. Clang
// checks them at compile time (-Wthread-safety); scripts/thread_safety.sh
// runs that check over every translation unit and scripts/test.sh fails on
// any warning. Under GCC (the normal build) the macros expand to nothing.
//
// A capability is a type declared CAPABILITY (base/mutex.h: Mutex,
// SharedMutex); std::mutex has no annotations in libstdc++, so a member
// guarded by a std::mutex cannot be checked. The scoped lock types
// (MutexLock, ReaderMutexLock) are SCOPED_CAPABILITY: the analysis knows
// the mutex is held from the constructor to the destructor or Unlock().
//
// What the analysis follows: a lock taken and released in one function,
// REQUIRES on helpers (name them ...Locked, STYLE.md), a condition wait
// that holds the mutex on both sides (CondVar::Wait takes the Mutex*, so
// write the predicate as a `while` loop around it, not as a lambda: a
// lambda body is analysed on its own, with no lock held). What it cannot
// follow: a lock handed from one function to another at run time, or
// state that is safe for a reason other than a lock (single-threaded
// setup, a thread that is joined). Restructure small code for the first;
// for the second, leave the member unannotated with a comment saying why,
// or use NO_THREAD_SAFETY_ANALYSIS on the one function with a comment.
//
// Attributes are documented at
// https://clang.llvm.org/docs/ThreadSafetyAnalysis.html.
//
// Thread-safety: macros only.
#pragma once

#if defined(__clang__)
#define SLUICE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SLUICE_THREAD_ANNOTATION(x)  // GCC: no thread-safety analysis
#endif

// A type that is a lock ("mutex", "shared_mutex": the name shows in
// warnings).
#define CAPABILITY(name) SLUICE_THREAD_ANNOTATION(capability(name))
// An RAII type that holds a capability for its lifetime.
#define SCOPED_CAPABILITY SLUICE_THREAD_ANNOTATION(scoped_lockable)

// Data: read and written only with the capability held (shared suffices
// for reads of a SharedMutex's data).
#define GUARDED_BY(x) SLUICE_THREAD_ANNOTATION(guarded_by(x))
// Pointer: the pointee is guarded (the pointer itself is not).
#define PT_GUARDED_BY(x) SLUICE_THREAD_ANNOTATION(pt_guarded_by(x))

// Lock order: this capability is taken before / after the named ones.
// (Checked only under -Wthread-safety-beta; they document the order.)
#define ACQUIRED_BEFORE(...) SLUICE_THREAD_ANNOTATION(acquired_before(__VA_ARGS__))
#define ACQUIRED_AFTER(...) SLUICE_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

// Functions: the caller must hold the capability (exclusively / at least
// shared) on entry, and still holds it on return.
#define REQUIRES(...) SLUICE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) SLUICE_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

// Functions that take or drop the capability (no argument on a member of a
// capability or scoped type: `this`).
#define ACQUIRE(...) SLUICE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) SLUICE_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) SLUICE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) SLUICE_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))
#define RELEASE_GENERIC(...) SLUICE_THREAD_ANNOTATION(release_generic_capability(__VA_ARGS__))
#define TRY_ACQUIRE(...) SLUICE_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define TRY_ACQUIRE_SHARED(...) SLUICE_THREAD_ANNOTATION(try_acquire_shared_capability(__VA_ARGS__))

// The caller must not hold the capability (the function takes it).
#define EXCLUDES(...) SLUICE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// Tells the analysis the capability is held from here on (checked at run
// time, if at all, by the function itself).
#define ASSERT_CAPABILITY(x) SLUICE_THREAD_ANNOTATION(assert_capability(x))
#define ASSERT_SHARED_CAPABILITY(x) SLUICE_THREAD_ANNOTATION(assert_shared_capability(x))

// The function returns a reference to the capability.
#define RETURN_CAPABILITY(x) SLUICE_THREAD_ANNOTATION(lock_returned(x))

// Turns the analysis off for one function. Always with a comment that says
// why the function is safe.
#define NO_THREAD_SAFETY_ANALYSIS SLUICE_THREAD_ANNOTATION(no_thread_safety_analysis)
