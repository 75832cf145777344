#include "protocols/commit_timing.hpp"

#include <algorithm>
#include <climits>
#include <deque>
#include <utility>
#include <vector>

#include "commit-timing-v1-server-protocol.h"
#include "util/clock.hpp"
#include "util/event_source.hpp"
#include "util/listener.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

constexpr int64_t kNsPerSec = 1'000'000'000;
constexpr int64_t kNsPerMs = 1'000'000;
// The timer is re-armed at least this often for a target far ahead.
constexpr int64_t kLongestWaitMs = int64_t{60} * 60 * 1000;

int64_t now_ns() {
  const timespec now = monotonic_now();
  return int64_t{now.tv_sec} * kNsPerSec + now.tv_nsec;
}

}  // namespace

// The commit-timing state of one wl_surface: its pending timestamp and the
// commits held for their targets, in commit order.
class TimedSurface {
 public:
  TimedSurface(CommitTiming& timing, wlr_surface* surface) : timing_(timing), surface_(surface) {
    timer_ = EventSource::timer(timing.loop_, [this] { let_through_due(now_ns()); });
    if (!timer_) LOG_ERROR("commit-timing: no timer; hidden surfaces wait for a frame");
    client_commit_.connect(&surface->events.client_commit, [this](void*) { committed(); });
    destroy_.connect(&surface->events.destroy, [this](void*) { surface_destroyed(); });
  }
  ~TimedSurface() {
    if (resource_ != nullptr) wl_resource_set_user_data(resource_, nullptr);
  }
  TimedSurface(const TimedSurface&) = delete;
  TimedSurface& operator=(const TimedSurface&) = delete;

  [[nodiscard]] wl_resource* resource() const { return resource_; }
  void attach(wl_resource* resource) { resource_ = resource; }
  /// The wp_commit_timer_v1 object is gone; what it committed stays in force.
  void detach() { resource_ = nullptr; }

  /// set_timestamp: false when the commit being made has one already.
  bool set_target(int64_t target_ns) {
    if (pending_target_) return false;
    pending_target_ = target_ns;
    return true;
  }

  [[nodiscard]] size_t held() const { return holds_.size(); }
  [[nodiscard]] std::optional<int64_t> earliest() const {
    std::optional<int64_t> earliest;
    for (const Hold& h : holds_)
      if (!earliest || h.target_ns < *earliest) earliest = h.target_ns;
    return earliest;
  }
  [[nodiscard]] bool shown_on(wlr_output* output) const {
    wlr_surface_output* shown = nullptr;
    wl_list_for_each(shown, &surface_->current_outputs, link) {
      if (shown->output == output) return true;
    }
    return false;
  }

  /// Lets through every held commit whose target is not after `limit_ns`.
  void let_through_due(int64_t limit_ns) {
    std::vector<Blocker> due;
    for (auto it = holds_.begin(); it != holds_.end();) {
      if (it->target_ns <= limit_ns) {
        due.push_back(it->blocker);
        it = holds_.erase(it);
      } else {
        ++it;
      }
    }
    arm_timer();
    // Oldest first; each may apply now, with whatever is queued behind it.
    for (const Blocker& blocker : due) timing_.queue_.clear(blocker);
  }

  /// The CommitTiming goes before the surface: nothing stays held by it.
  void shut_down() {
    client_commit_.disconnect();
    destroy_.disconnect();
    timer_.reset();
    auto holds = std::move(holds_);
    holds_.clear();
    for (const Hold& h : holds) timing_.queue_.clear(h.blocker);
  }

 private:
  struct Hold {
    int64_t target_ns;
    Blocker blocker;
  };

  // wl_surface.commit: the timestamp belongs to this commit.
  void committed() {
    std::optional<int64_t> target = std::exchange(pending_target_, std::nullopt);
    if (!target) return;
    const bool shown = !wl_list_empty(&surface_->current_outputs);
    // Nothing will be built for a hidden surface: a target passed applies now.
    if (!shown && *target <= now_ns()) return;
    holds_.push_back({*target, timing_.queue_.block(surface_, HoldReason::target_time)});
    arm_timer();
    wlr_surface_output* on = nullptr;
    wl_list_for_each(on, &surface_->current_outputs, link) {
      timing_.target_added.emit(on->output);
    }
  }

  // At the earliest target, so that a surface no output builds frames for
  // (hidden, or its outputs idle) is let through when its time has come.
  void arm_timer() {
    if (!timer_) return;
    std::optional<int64_t> target = earliest();
    if (!target) {
      timer_->arm_ms(0);  // disarms
      return;
    }
    const int64_t wait_ns = *target - now_ns();
    // Rounded up (never early); 0 would disarm, so 1 ms at least.
    const int64_t wait_ms = wait_ns <= 0 ? 1 : (wait_ns + kNsPerMs - 1) / kNsPerMs;
    timer_->arm_ms(static_cast<int>(std::min(wait_ms, kLongestWaitMs)));
  }

  void surface_destroyed() {
    // Held commits die with the surface, in the hold queue: nothing to clear.
    holds_.clear();
    timing_.surfaces_.erase(surface_);  // destroys this
  }

  CommitTiming& timing_;
  wlr_surface* surface_;
  wl_resource* resource_ = nullptr;  // the live wp_commit_timer_v1, if any
  std::optional<int64_t> pending_target_;
  std::deque<Hold> holds_;
  std::unique_ptr<EventSource> timer_;
  Listener<void> client_commit_;
  Listener<void> destroy_;
};

namespace {

CommitTiming* manager_of(wl_resource* resource) {
  return static_cast<CommitTiming*>(wl_resource_get_user_data(resource));
}

void destroy_resource(wl_client*, wl_resource* resource) { wl_resource_destroy(resource); }

// CLOCK_MONOTONIC ns; a time too far ahead for 64 bits is "never".
int64_t target_of(uint32_t sec_hi, uint32_t sec_lo, uint32_t nsec) {
  const uint64_t sec = (uint64_t{sec_hi} << 32) | sec_lo;
  if (sec >= static_cast<uint64_t>(INT64_MAX / kNsPerSec)) return INT64_MAX;
  return static_cast<int64_t>(sec) * kNsPerSec + nsec;
}

void set_timestamp(wl_client*, wl_resource* resource, uint32_t sec_hi, uint32_t sec_lo,
                   uint32_t nsec) {
  auto* surface = static_cast<TimedSurface*>(wl_resource_get_user_data(resource));
  if (surface == nullptr) {
    wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_SURFACE_DESTROYED,
                           "the wl_surface has been destroyed");
    return;
  }
  if (nsec >= kNsPerSec) {
    wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_INVALID_TIMESTAMP,
                           "tv_nsec %u is not below one second", nsec);
    return;
  }
  if (!surface->set_target(target_of(sec_hi, sec_lo, nsec)))
    wl_resource_post_error(resource, WP_COMMIT_TIMER_V1_ERROR_TIMESTAMP_EXISTS,
                           "a timestamp is set already for this commit");
}

const struct wp_commit_timer_v1_interface kTimerImpl = {
    .set_timestamp = set_timestamp,
    .destroy = destroy_resource,
};

const struct wp_commit_timing_manager_v1_interface kManagerImpl = {
    .destroy = destroy_resource,
    .get_timer = [](wl_client*, wl_resource* manager, uint32_t id,
                    wl_resource* surface) { manager_of(manager)->get_timer(manager, id, surface); },
};

void bind_manager(wl_client* client, void* data, uint32_t version, uint32_t id) {
  wl_resource* resource = wl_resource_create(client, &wp_commit_timing_manager_v1_interface,
                                             static_cast<int>(version), id);
  if (resource == nullptr) {
    wl_client_post_no_memory(client);
    return;
  }
  wl_resource_set_implementation(resource, &kManagerImpl, data, nullptr);
}

}  // namespace

CommitTiming::CommitTiming(wl_display* display, wl_event_loop* loop, HoldQueue& queue)
    : loop_(loop), queue_(queue) {
  global_ =
      wl_global_create(display, &wp_commit_timing_manager_v1_interface, 1, this, bind_manager);
  if (global_ == nullptr)
    LOG_ERROR("commit-timing: wl_global_create failed; wp_commit_timing_manager_v1 is off");
}

CommitTiming::~CommitTiming() {
  for (auto& [surface, state] : surfaces_) state->shut_down();
  surfaces_.clear();
  if (global_ != nullptr) wl_global_destroy(global_);
}

size_t CommitTiming::held() const {
  size_t n = 0;
  for (const auto& [surface, state] : surfaces_) n += state->held();
  return n;
}

void CommitTiming::frame_starting(wlr_output* output, int64_t present_ns) {
  std::vector<wlr_surface*> shown;
  for (auto& [surface, state] : surfaces_)
    if (state->held() > 0 && state->shown_on(output)) shown.push_back(surface);
  for (wlr_surface* surface : shown) {
    auto it = surfaces_.find(surface);  // applying a commit may have destroyed one
    if (it != surfaces_.end()) it->second->let_through_due(present_ns);
  }
}

std::optional<int64_t> CommitTiming::earliest_target(wlr_output* output) const {
  std::optional<int64_t> earliest;
  for (const auto& [surface, state] : surfaces_) {
    if (!state->shown_on(output)) continue;
    std::optional<int64_t> target = state->earliest();
    if (target && (!earliest || *target < *earliest)) earliest = target;
  }
  return earliest;
}

void CommitTiming::get_timer(wl_resource* manager, uint32_t id, wl_resource* surface_resource) {
  wlr_surface* surface = wlr_surface_from_resource(surface_resource);
  auto it = surfaces_.find(surface);
  if (it != surfaces_.end() && it->second->resource() != nullptr) {
    wl_resource_post_error(manager, WP_COMMIT_TIMING_MANAGER_V1_ERROR_COMMIT_TIMER_EXISTS,
                           "this wl_surface already has a wp_commit_timer_v1");
    return;
  }
  wl_resource* resource =
      wl_resource_create(wl_resource_get_client(manager), &wp_commit_timer_v1_interface,
                         wl_resource_get_version(manager), id);
  if (resource == nullptr) {
    wl_resource_post_no_memory(manager);
    return;
  }
  if (it == surfaces_.end())
    it = surfaces_.emplace(surface, std::make_unique<TimedSurface>(*this, surface)).first;
  it->second->attach(resource);
  wl_resource_set_implementation(resource, &kTimerImpl, it->second.get(), [](wl_resource* r) {
    if (auto* s = static_cast<TimedSurface*>(wl_resource_get_user_data(r))) s->detach();
  });
}

}  // namespace baton
