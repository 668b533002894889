// base/function_ref.h
//
// FunctionRef<R(Args...)>: a reference to a callable, for a parameter the
// callee calls before it returns and does not keep. Unlike std::function it
// never allocates, however much the callable captures (a lambda capturing a
// statement's state by reference is usually more than std::function holds
// in place), and a call is one indirect call. What it refers to must
// outlive it: pass a lambda as an argument, never store a FunctionRef made
// from a temporary.
//
// Thread-safety: a value; calling it is as safe as calling the callable.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace sluice {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): stands in for the callable
      : callable_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* callable, Args... args) -> R {
          return std::invoke(*static_cast<std::remove_reference_t<F>*>(callable), std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(callable_, std::forward<Args>(args)...); }

 private:
  void* callable_;
  R (*call_)(void*, Args...);
};

}  // namespace sluice
