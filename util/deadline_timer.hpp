// A one-shot timer in the event loop armed at an absolute CLOCK_MONOTONIC
// time with nanosecond resolution (a timerfd): the render loop aims at a
// point a few milliseconds before vblank, where wl_event_loop's millisecond
// timers would be up to a millisecond late.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "util/event_source.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton {

class DeadlineTimer {
 public:
  [[nodiscard]] static Result<std::unique_ptr<DeadlineTimer>> create(wl_event_loop* loop,
                                                                     std::function<void()> fire);
  DeadlineTimer(const DeadlineTimer&) = delete;
  DeadlineTimer& operator=(const DeadlineTimer&) = delete;

  /// Fires once at `ns` (CLOCK_MONOTONIC), or at once if that has passed;
  /// replaces an earlier arming.
  void arm_at(int64_t ns);
  void disarm();
  [[nodiscard]] bool armed() const { return armed_; }
  /// When it fires next (meaningful while armed()).
  [[nodiscard]] int64_t when() const { return when_; }

 private:
  DeadlineTimer() = default;
  void on_readable();

  UniqueFd fd_;
  std::unique_ptr<EventSource> source_;
  std::function<void()> fire_;
  bool armed_ = false;
  int64_t when_ = 0;
};

}  // namespace baton
