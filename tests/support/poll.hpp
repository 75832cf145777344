// One way for a test to wait for something: check, take a step (sleep, or
// dispatch an event loop for a moment), check again, until it holds or a
// limit passes.
//
// The limit is a liveness bound, not a timing: it is set far above the time
// the thing takes (seconds where it takes milliseconds), so that a slow or
// loaded machine does not fail a test while a hang still fails in bounded
// time. A check that something does NOT happen waits a fixed quiet time
// instead (Harness::run_for, a sleep), never through this.
//
// Header-only, so that the test clients (separate programs) use it too.
#pragma once

#include <chrono>
#include <concepts>
#include <thread>
#include <type_traits>

namespace baton::test {

/// Checks `done`; while it does not hold and `limit` has not passed, calls
/// `step` and checks again. Returns whether `done` held. A `step` that
/// returns bool ends the polling by returning false (a connection died,
/// say): then so does poll_until, and the caller tells the two apart by what
/// its step saw.
template <typename Done, std::invocable Step>
bool poll_until(Done&& done, std::chrono::steady_clock::duration limit, Step&& step) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    if constexpr (std::is_same_v<std::invoke_result_t<Step&>, bool>) {
      if (!step()) return false;
    } else {
      step();
    }
  }
  return true;
}

/// The same, sleeping `interval` between checks.
template <typename Done>
bool poll_until(Done&& done, std::chrono::steady_clock::duration limit,
                std::chrono::steady_clock::duration interval) {
  return poll_until(done, limit, [interval] { std::this_thread::sleep_for(interval); });
}

}  // namespace baton::test
