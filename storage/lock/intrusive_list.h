// storage/lock/intrusive_list.h
//
// IntrusiveList<T, Links>: a doubly linked list threaded through pointers
// inside T (no allocation per element). `Links` names the two members:
//   struct MyLinks {
//     static constexpr T* T::*kPrev = &T::prev;
//     static constexpr T* T::*kNext = &T::next;
//   };
// The list itself holds only T pointers, so it can be a member of a class
// declared where T and Links are incomplete (LockTrx's list of its lock
// requests, in the public lock_trx.h); its functions are used where both
// are complete (the lock manager's .cc).
//
// Thread-safety: none; the owner's lock or thread guards a list.
#pragma once

#include <cstddef>

namespace sluice::storage {

template <typename T, typename Links>
class IntrusiveList {
 public:
  T* front() const { return head_; }
  bool empty() const { return head_ == nullptr; }
  size_t size() const { return size_; }
  static T* Next(const T* x) { return x->*Links::kNext; }

  void PushBack(T* x) {
    x->*Links::kPrev = tail_;
    x->*Links::kNext = nullptr;
    if (tail_ != nullptr) {
      tail_->*Links::kNext = x;
    } else {
      head_ = x;
    }
    tail_ = x;
    ++size_;
  }
  void Remove(T* x) {
    T* prev = x->*Links::kPrev;
    T* next = x->*Links::kNext;
    if (prev != nullptr) {
      prev->*Links::kNext = next;
    } else {
      head_ = next;
    }
    if (next != nullptr) {
      next->*Links::kPrev = prev;
    } else {
      tail_ = prev;
    }
    x->*Links::kPrev = nullptr;
    x->*Links::kNext = nullptr;
    --size_;
  }
  T* PopFront() {
    T* x = head_;
    if (x != nullptr) Remove(x);
    return x;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  size_t size_ = 0;
};

}  // namespace sluice::storage
