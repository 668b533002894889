// base/cpu_relax.h
//
// CpuRelax(): the hint a spin-wait loop gives the CPU on each turn (x86
// PAUSE, ARM YIELD): the core wastes less power and, with SMT, leaves its
// sibling the execution units, and leaving the loop does not pay a memory-
// order mis-speculation. No effect on other targets. Used by the lock
// manager's spinning waiters and latches (storage/lock/).
//
// Thread-safety: no state.
#pragma once

namespace sluice {

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace sluice
