// RAII owner of a wl_event_source (timer or fd) with a std::function callback.
#pragma once

#include <wayland-server-core.h>

#include <functional>
#include <memory>

namespace baton {

class EventSource {
 public:
  using Callback = std::function<void()>;
  using FdCallback = std::function<void(uint32_t mask)>;

  EventSource() = default;
  ~EventSource() { reset(); }
  EventSource(const EventSource&) = delete;
  EventSource& operator=(const EventSource&) = delete;

  /// A one-shot timer; arm it with arm_ms().
  static std::unique_ptr<EventSource> timer(wl_event_loop* loop, Callback callback);
  /// Watches `fd` (not owned) for `mask` (WL_EVENT_READABLE ...).
  static std::unique_ptr<EventSource> fd(wl_event_loop* loop, int fd, uint32_t mask,
                                         FdCallback callback);
  /// Runs `callback` on `signal` (the loop blocks the signal for the process).
  static std::unique_ptr<EventSource> signal(wl_event_loop* loop, int signal, Callback callback);

  void arm_ms(int milliseconds) { wl_event_source_timer_update(source_, milliseconds); }
  void reset() {
    if (source_ != nullptr) wl_event_source_remove(source_);
    source_ = nullptr;
  }

 private:
  static int on_timer(void* data);
  static int on_fd(int fd, uint32_t mask, void* data);

  wl_event_source* source_ = nullptr;
  Callback callback_;
  FdCallback fd_callback_;
};

}  // namespace baton
