#include "util/deadline_timer.hpp"

#include <sys/timerfd.h>
#include <unistd.h>

namespace baton {

Result<std::unique_ptr<DeadlineTimer>> DeadlineTimer::create(wl_event_loop* loop,
                                                             std::function<void()> fire) {
  std::unique_ptr<DeadlineTimer> timer(new DeadlineTimer());
  timer->fd_ = UniqueFd(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!timer->fd_) return last_error("timerfd_create");
  timer->fire_ = std::move(fire);
  DeadlineTimer* raw = timer.get();
  timer->source_ = EventSource::fd(loop, timer->fd_.get(), WL_EVENT_READABLE,
                                   [raw](uint32_t) { raw->on_readable(); });
  if (!timer->source_) return failure("wl_event_loop_add_fd (render timer)", "out of memory");
  return timer;
}

void DeadlineTimer::arm_at(int64_t ns) {
  itimerspec spec{};
  // 0 would disarm: the earliest representable time fires at once instead.
  const int64_t at = ns > 0 ? ns : 1;
  spec.it_value.tv_sec = at / 1'000'000'000;
  spec.it_value.tv_nsec = at % 1'000'000'000;
  timerfd_settime(fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ = true;
  when_ = ns;
}

void DeadlineTimer::disarm() {
  itimerspec spec{};
  timerfd_settime(fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr);
  armed_ = false;
}

void DeadlineTimer::on_readable() {
  uint64_t expirations = 0;
  if (read(fd_.get(), &expirations, sizeof expirations) != sizeof expirations) return;
  if (!armed_) return;
  armed_ = false;
  fire_();  // may re-arm or destroy this timer: nothing after it
}

}  // namespace baton
