// storage/buffer/buffer_frame.h — private to storage/buffer.
//
// The buffer pool's frame and page latch, shared by buffer_pool.cc and
// mtr.cc (the mini-transaction memo holds frames latched and pinned).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "base/status.h"

namespace sluice::storage {

// A frame moves through these states; transitions happen under the mutex of
// the shard that maps (or is about to map) it, or while one thread owns it.
//   kFree    on free_frames_
//   kOwned   held by one thread between free_frames_ (or eviction) and a shard
//   kLoading mapped; the loading thread holds the latch exclusively
//   kValid   mapped; contents are the page
//   kFailed  unmapped after a failed read; freed by its last unpin
enum class FrameState : uint8_t { kFree, kOwned, kLoading, kValid, kFailed };

// The page latch: a reader-writer lock preferring writers, so a stream of
// readers cannot starve a structure change waiting for a node. Reset()
// re-creates it when its frame takes another page: tools that key locks by
// address (TSan) must not carry one page's lock order over to the next.
// Acquiring a latch the thread already holds exclusively is a bug: abort.
class Latch {
 public:
  Latch() { Init(); }
  ~Latch() { pthread_rwlock_destroy(&rw_); }
  Latch(const Latch&) = delete;
  Latch& operator=(const Latch&) = delete;

  void lock() { Check(pthread_rwlock_wrlock(&rw_), "exclusive"); }
  bool try_lock() { return pthread_rwlock_trywrlock(&rw_) == 0; }
  void unlock() { Check(pthread_rwlock_unlock(&rw_), "release"); }
  void lock_shared() { Check(pthread_rwlock_rdlock(&rw_), "shared"); }
  void unlock_shared() { unlock(); }
  bool try_lock_shared() { return pthread_rwlock_tryrdlock(&rw_) == 0; }
  // REQUIRES: nobody holds or waits for it.
  void Reset() {
    pthread_rwlock_destroy(&rw_);
    Init();
  }

 private:
  void Init() {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&rw_, &attr);
    pthread_rwlockattr_destroy(&attr);
  }
  static void Check(int rc, const char* what) {
    if (rc != 0) {
      std::fprintf(stderr, "sluice: page latch (%s): %s\n", what, std::strerror(rc));
      std::abort();
    }
  }

  pthread_rwlock_t rw_;
};

struct BufferFrame {
  Latch latch;              // the page latch: guards *data
  std::mutex io_mu;         // one write-back of this frame at a time
  // Packed PageId. Changed only by the thread that owns the frame (or under
  // its shard mutex while unmapped); read anywhere, checked against the
  // shard map under the shard mutex before it is trusted.
  std::atomic<uint64_t> id{0};
  // Raised only under the mutex of the shard that maps the frame, so a
  // thread holding that mutex and seeing 0 knows nobody can pin it.
  std::atomic<uint32_t> pin{0};
  std::atomic<FrameState> state{FrameState::kFree};
  std::atomic<bool> ref{false};  // CLOCK second-chance bit
  std::atomic<bool> dirty{false};
  // Start LSN + 1 of the oldest redo record whose change is not on disk yet
  // (0: none, or unstamped; the +1 keeps LSN 0 apart from none). While a
  // write-back is in flight its value sits in flushing_oldest (so
  // OldestModification still counts it) and oldest_modification starts
  // over for changes made meanwhile.
  std::atomic<uint64_t> oldest_modification{0};
  std::atomic<uint64_t> flushing_oldest{0};  // written only under io_mu
  char* data = nullptr;  // fixed at construction
  Status load_error;     // set by the loader, under the exclusive latch, with kFailed
};

}  // namespace sluice::storage
