// The monotonic clock in the units wlroots' and Wayland's events use.
#pragma once

#include <cstdint>
#include <ctime>

namespace baton {

[[nodiscard]] inline timespec monotonic_now() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now;
}

/// CLOCK_MONOTONIC in nanoseconds (the clock of presentation feedback).
[[nodiscard]] inline int64_t monotonic_ns() {
  timespec now = monotonic_now();
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

/// Milliseconds (wrapping), as in input event timestamps.
[[nodiscard]] inline uint32_t monotonic_msec() {
  timespec now = monotonic_now();
  return static_cast<uint32_t>(now.tv_sec * 1000 + now.tv_nsec / 1000000);
}

}  // namespace baton
