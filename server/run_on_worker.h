// server/run_on_worker.h
//
// co_await RunOnWorker(pool, fn): runs fn() on a WorkerPool thread and
// resumes the awaiting coroutine on its own executor (the session's strand)
// with fn's result. This is how a session keeps blocking work off the Asio
// I/O threads. Include only from .cc files (it pulls in Asio).
#pragma once

#include <memory>
#include <system_error>
#include <type_traits>

#include "server/asio.h"
#include "server/worker_pool.h"

namespace sluice::server {

// Not itself a coroutine: GCC 12 mishandles by-value coroutine parameters
// with non-trivial members (a captured std::string was freed twice), so the
// job travels through async_initiate instead. Callers pass a named lambda.
template <typename F>
auto RunOnWorker(WorkerPool& pool, F fn) {
  using R = std::invoke_result_t<F>;
  return asio::async_initiate<const asio::use_awaitable_t<>&, void(R)>(
      [&pool](auto handler, F f) {
        auto ex = asio::get_associated_executor(handler);
        // std::function needs a copyable callable; the handler is move-only.
        using H = decltype(handler);
        auto h = std::make_shared<H>(std::move(handler));
        auto task = std::make_shared<F>(std::move(f));
        auto run = [h, ex, task]() {
          auto r = std::make_shared<R>((*task)());
          asio::post(ex, [h, r]() mutable { (*h)(std::move(*r)); });
        };
        // After Stop() the pool refuses jobs: run inline so the coroutine
        // still completes and the session can wind down.
        if (!pool.Submit(run)) run();
      },
      asio::use_awaitable, std::move(fn));
}

// co_await RunOnThread(pool, name, fn): as RunOnWorker, on a thread of its
// own named `name` that `pool` owns (WorkerPool::StartDedicated), for a job
// that lasts the connection's lifetime: a binlog dump. The pool joins the
// thread once fn has returned, and at shutdown.
template <typename F>
auto RunOnThread(WorkerPool& pool, const char* name, F fn) {
  using R = std::invoke_result_t<F>;
  return asio::async_initiate<const asio::use_awaitable_t<>&, void(R)>(
      [&pool, name](auto handler, F f) {
        auto ex = asio::get_associated_executor(handler);
        using H = decltype(handler);
        auto h = std::make_shared<H>(std::move(handler));
        auto task = std::make_shared<F>(std::move(f));
        auto run = [h, ex, task]() {
          auto r = std::make_shared<R>((*task)());
          asio::post(ex, [h, r]() mutable { (*h)(std::move(*r)); });
        };
        // Not inline on failure, unlike RunOnWorker: the job would hold an
        // I/O thread for the connection's lifetime. The co_await throws,
        // as std::thread does when no thread can be had.
        if (!pool.StartDedicated(name, run)) {
          throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                  "no thread for a dedicated job");
        }
      },
      asio::use_awaitable, std::move(fn));
}

}  // namespace sluice::server
