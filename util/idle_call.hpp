// A call made once the event loop has dispatched what is pending and before
// it waits again (a wl_event_loop idle source): after everything the current
// requests change (wlroots' own listeners included) and before the replies
// are flushed, so a client's next roundtrip already sees the result.
// Scheduling again while pending does nothing: a burst calls once.
#pragma once

#include <functional>

struct wl_event_loop;
struct wl_event_source;

namespace baton {

class IdleCall {
 public:
  IdleCall(wl_event_loop* loop, std::function<void()> callback);
  ~IdleCall();
  IdleCall(const IdleCall&) = delete;
  IdleCall& operator=(const IdleCall&) = delete;

  void schedule();
  [[nodiscard]] bool pending() const { return source_ != nullptr; }

 private:
  static void on_idle(void* data);

  wl_event_loop* loop_;
  std::function<void()> callback_;
  // libwayland frees an idle source after calling it: ours while pending.
  wl_event_source* source_ = nullptr;
};

}  // namespace baton
