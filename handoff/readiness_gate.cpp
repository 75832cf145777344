#include "handoff/readiness_gate.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>

#include "util/log.hpp"
#include "util/trace.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton {

// The gate of one wl_surface: its held commits, oldest first.
class ReadinessGate::SurfaceGate {
 public:
  static constexpr size_t kMaxHeldPerClient = ReadinessGate::kMaxHeldPerClient;
  SurfaceGate(ReadinessGate& gate, wlr_surface* surface) : gate_(gate), surface_(surface) {
    client_commit_.connect(&surface->events.client_commit, [this](void*) { on_commit(); });
    destroy_.connect(&surface->events.destroy, [this](void*) {
      // Held commits die with the surface: nothing to unlock. (Their release
      // points are not lost: see SyncobjSurface.)
      while (!holds_.empty()) forget(holds_.begin());
      gate_.surfaces_.remove_if([this](const auto& s) { return s.get() == this; });
    });
  }
  [[nodiscard]] size_t held() const { return holds_.size(); }

 private:
  struct Hold {
    uint32_t seq = 0;
    int64_t since_ns = 0;  // when the commit came (traced)
    UniqueFd fd;
    std::string what;
    std::function<void()> before_apply;  // at_materialize: hand the fence to the render
    std::unique_ptr<EventSource> watch;
    std::unique_ptr<EventSource> stuck_timer;
  };

  void on_commit() {
    std::optional<CommitWait> fence = gate_.waits_.wait_of(surface_);
    if (fence)
      hold(std::move(fence->ready), std::move(fence->what), std::move(fence->before_apply));
  }

  void hold(UniqueFd fd, std::string what, std::function<void()> before_apply = {}) {
    if (readable_now(fd.get())) {  // ready already: no hold, no wakeup
      if (before_apply) before_apply();
      return;
    }
    wl_client* client = wl_resource_get_client(surface_->resource);
    auto h = std::make_unique<Hold>();
    h->seq = wlr_surface_lock_pending(surface_);
    if (gate_.trace_ != nullptr) h->since_ns = Trace::now();
    h->fd = std::move(fd);
    h->what = std::move(what);
    h->before_apply = std::move(before_apply);
    Hold* raw = h.get();
    h->watch = EventSource::fd(gate_.loop_, raw->fd.get(), WL_EVENT_READABLE,
                               [this, raw](uint32_t) { let_through(raw); });
    h->stuck_timer = EventSource::timer(gate_.loop_, [this, raw]() { report_stuck(*raw); });
    holds_.push_back(std::move(h));
    const size_t held = ++gate_.held_per_client_[client];
    // Either way the commit stays held: it is never shown unwaited, and the
    // client is on its way out.
    if (!raw->watch || !raw->stuck_timer) {
      LOG_ERROR("readiness gate: cannot watch a fence in the event loop; rejecting the commit");
      wl_client_post_no_memory(client);
      return;
    }
    if (held > kMaxHeldPerClient) {
      wl_client_post_implementation_error(
          client, "more than %zu commits held at once waiting for their buffers",
          kMaxHeldPerClient);
      return;
    }
    raw->stuck_timer->arm_ms(static_cast<int>(gate_.stuck_after_.count()));
  }

  // Drops a hold without applying its commit, keeping the counts right.
  void forget(std::list<std::unique_ptr<Hold>>::iterator it) {
    wl_client* client = wl_resource_get_client(surface_->resource);
    auto count = gate_.held_per_client_.find(client);
    if (count != gate_.held_per_client_.end() && --count->second == 0)
      gate_.held_per_client_.erase(count);
    holds_.erase(it);
  }

  // The buffer is ready: the held commit (and any queued behind it) may apply.
  void let_through(Hold* hold) {
    auto it = std::find_if(holds_.begin(), holds_.end(),
                           [hold](const auto& h) { return h.get() == hold; });
    if (it == holds_.end()) return;
    uint32_t seq = (*it)->seq;
    if ((*it)->before_apply) (*it)->before_apply();
    if (Trace* trace = gate_.trace_; trace != nullptr) {
      if (track_ == 0) track_ = trace->track(track_name());
      trace->span(track_, "held until ready", (*it)->since_ns, Trace::now(),
                  "\"waited for\":" + Trace::quote((*it)->what));
    }
    forget(it);
    ++gate_.let_through_;
    // May apply this commit (and any queued behind it) right now.
    wlr_surface_unlock_cached(surface_, seq);
  }

  void report_stuck(const Hold& hold) {
    pid_t pid = 0;
    wl_client_get_credentials(wl_resource_get_client(surface_->resource), &pid, nullptr, nullptr);
    // tests grep this line: tests/vm/clients_test.sh
    LOG_ERROR(
        "readiness gate: surface of client pid %d: buffer not ready after %lld ms (waiting for "
        "its %s); still showing its previous buffer",
        static_cast<int>(pid), static_cast<long long>(gate_.stuck_after_.count()),
        hold.what.c_str());
  }

  std::string track_name() const {
    pid_t pid = 0;
    wl_client_get_credentials(wl_resource_get_client(surface_->resource), &pid, nullptr, nullptr);
    return "client " + std::to_string(pid) + " surface " +
           std::to_string(wl_resource_get_id(surface_->resource));
  }

  ReadinessGate& gate_;
  wlr_surface* surface_;
  int track_ = 0;  // its trace track, made on its first traced hold
  std::list<std::unique_ptr<Hold>> holds_;
  Listener<void> client_commit_;
  Listener<void> destroy_;
};

ReadinessGate::ReadinessGate(wl_event_loop* loop, wlr_compositor* compositor, CommitWaits& waits,
                             std::chrono::milliseconds stuck_after, Trace* trace)
    : loop_(loop), waits_(waits), stuck_after_(stuck_after), trace_(trace) {
  new_surface_.connect(&compositor->events.new_surface, [this](wlr_surface* surface) {
    surfaces_.push_back(std::make_unique<SurfaceGate>(*this, surface));
  });
}

ReadinessGate::~ReadinessGate() = default;

size_t ReadinessGate::held() const {
  size_t n = 0;
  for (const auto& s : surfaces_) n += s->held();
  return n;
}

}  // namespace baton
