#include "protocols/fifo.hpp"

#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

#include "fifo-v1-server-protocol.h"
#include "util/clock.hpp"
#include "util/event_source.hpp"
#include "util/listener.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

// The fifo state of one wl_surface: its barrier, the unapplied commits that
// set it, and the commits held waiting for it, oldest first.
class FifoSurface {
 public:
  FifoSurface(Fifo& fifo, wlr_surface* surface) : fifo_(fifo), surface_(surface) {
    fallback_ = EventSource::timer(fifo.loop_, [this] { fallback(); });
    if (!fallback_) LOG_ERROR("fifo: no fallback timer; hidden surfaces may wait for a latch");
    client_commit_.connect(&surface->events.client_commit, [this](void*) { committed(); });
    applied_.connect(&surface->events.commit, [this](void*) { applied(); });
    destroy_.connect(&surface->events.destroy, [this](void*) { surface_destroyed(); });
  }
  ~FifoSurface() {
    if (resource_ != nullptr) wl_resource_set_user_data(resource_, nullptr);
  }
  FifoSurface(const FifoSurface&) = delete;
  FifoSurface& operator=(const FifoSurface&) = delete;

  [[nodiscard]] wl_resource* resource() const { return resource_; }
  void attach(wl_resource* resource) { resource_ = resource; }
  /// The wp_fifo_v1 object is gone; what it committed stays in force.
  void detach() { resource_ = nullptr; }

  void set_barrier() { pending_set_ = true; }
  void wait_barrier() { pending_wait_ = true; }

  [[nodiscard]] bool barrier() const { return barrier_; }
  [[nodiscard]] size_t held() const { return waiting_.size(); }
  [[nodiscard]] bool shown_on(wlr_output* output) const {
    wlr_surface_output* shown = nullptr;
    wl_list_for_each(shown, &surface_->current_outputs, link) {
      if (shown->output == output) return true;
    }
    return false;
  }

  /// A latch cleared the barrier: call let_through_ready() next.
  void clear_barrier() {
    barrier_ = false;
    if (fallback_) fallback_->arm_ms(0);
  }

  /// Lets through the held commits that no barrier stops any more, in order.
  void let_through_ready() {
    while (!waiting_.empty() && !blocked_before(waiting_.front().seq)) {
      const Blocker blocker = waiting_.front().blocker;
      waiting_.pop_front();
      // May apply it (and what is queued behind it) now: applied() runs
      // inside and may set the barrier again, which stops this loop.
      fifo_.queue_.clear(blocker);
    }
  }

  /// The Fifo goes before the surface: nothing stays held by it.
  void shut_down() {
    client_commit_.disconnect();
    applied_.disconnect();
    destroy_.disconnect();
    fallback_.reset();
    auto waiting = std::move(waiting_);
    waiting_.clear();
    for (const Waiting& w : waiting) fifo_.queue_.clear(w.blocker);
  }

 private:
  // Whether a commit with this seq, waiting for the barrier, may not apply
  // yet: the barrier is set, or an earlier commit will set it.
  [[nodiscard]] bool blocked_before(uint32_t seq) const {
    return barrier_ || (!setting_.empty() && setting_.front() < seq);
  }

  // wl_surface.commit: the double-buffered requests belong to this commit.
  void committed() {
    const bool sets = std::exchange(pending_set_, false);
    const bool waits = std::exchange(pending_wait_, false);
    const uint32_t seq = surface_->pending.seq;  // this commit's, held or not
    if (waits && !synchronized_subsurface() && blocked_before(seq))
      waiting_.push_back({seq, fifo_.queue_.block(surface_, HoldReason::fifo_barrier)});
    if (sets) setting_.push_back(seq);
  }

  // A commit of this surface was applied (surface->current is it).
  void applied() {
    const uint32_t seq = surface_->current.seq;
    bool sets = false;
    while (!setting_.empty() && setting_.front() <= seq) {
      sets = sets || setting_.front() == seq;
      setting_.pop_front();
    }
    if (!sets) return;
    barrier_ = true;
    if (fallback_) fallback_->arm_ms(fallback_ms());
    wlr_surface_output* shown = nullptr;
    wl_list_for_each(shown, &surface_->current_outputs, link) {
      fifo_.latch_wanted.emit(shown->output);
    }
  }

  // No latch came in time. A surface shown on an output that is still
  // latching waits for that latch however late it is (a long render, a
  // late flip, a stalled loop): clearing here would let the next commit
  // replace content no frame has shown, which FIFO never does. Hidden
  // surfaces, and those on outputs that stopped latching, go on at 30 Hz.
  void fallback() {
    if (!barrier_) return;
    if (shown_on_latching_output()) {
      if (fallback_) fallback_->arm_ms(fallback_ms());
      return;
    }
    ++fifo_.fallback_clears_;
    clear_barrier();
    let_through_ready();
  }

  [[nodiscard]] bool shown_on_latching_output() const {
    wlr_surface_output* shown = nullptr;
    wl_list_for_each(shown, &surface_->current_outputs, link) {
      if (fifo_.latching(shown->output)) return true;
    }
    return false;
  }

  // max(1/30 s, 1.25 refresh periods of the first output), rounded down to
  // whole milliseconds so that the rate stays at 30 Hz or more.
  [[nodiscard]] int fallback_ms() const {
    int64_t period_ns = 1'000'000'000 / 30;
    if (!wl_list_empty(&surface_->current_outputs)) {
      wlr_surface_output* first = wl_container_of(surface_->current_outputs.next, first, link);
      if (first->output->refresh > 0)
        period_ns =
            std::max<int64_t>(period_ns, 1'000'000'000'000LL / first->output->refresh * 5 / 4);
    }
    return static_cast<int>(std::max<int64_t>(1, period_ns / 1'000'000));
  }

  // The protocol: wait_barrier is ignored on a subsurface in synchronized
  // mode (itself or through a parent): its parent's commit applies it.
  [[nodiscard]] bool synchronized_subsurface() const {
    wlr_surface* surface = surface_;
    while (wlr_subsurface* sub = wlr_subsurface_try_from_wlr_surface(surface)) {
      if (sub->synchronized) return true;
      surface = sub->parent;
    }
    return false;
  }

  void surface_destroyed() {
    // Held commits die with the surface, in the hold queue: nothing to clear.
    waiting_.clear();
    fifo_.surfaces_.erase(surface_);  // destroys this
  }

  Fifo& fifo_;
  wlr_surface* surface_;
  wl_resource* resource_ = nullptr;  // the live wp_fifo_v1, if any
  bool pending_set_ = false;
  bool pending_wait_ = false;
  bool barrier_ = false;
  std::deque<uint32_t> setting_;  // seqs of unapplied commits that set the barrier
  // The commits held waiting for the barrier, and their blockers.
  struct Waiting {
    uint32_t seq;
    Blocker blocker;
  };
  std::deque<Waiting> waiting_;
  std::unique_ptr<EventSource> fallback_;
  Listener<void> client_commit_;
  Listener<void> applied_;
  Listener<void> destroy_;
};

namespace {

Fifo* manager_of(wl_resource* resource) {
  return static_cast<Fifo*>(wl_resource_get_user_data(resource));
}

// An inert wp_fifo_v1 (its wl_surface is gone) answers every request but
// destroy with an error.
FifoSurface* live_surface(wl_resource* resource) {
  auto* surface = static_cast<FifoSurface*>(wl_resource_get_user_data(resource));
  if (surface == nullptr)
    wl_resource_post_error(resource, WP_FIFO_V1_ERROR_SURFACE_DESTROYED,
                           "the wl_surface has been destroyed");
  return surface;
}

void destroy_resource(wl_client*, wl_resource* resource) { wl_resource_destroy(resource); }

const struct wp_fifo_v1_interface kFifoImpl = {
    .set_barrier =
        [](wl_client*, wl_resource* resource) {
          if (FifoSurface* s = live_surface(resource)) s->set_barrier();
        },
    .wait_barrier =
        [](wl_client*, wl_resource* resource) {
          if (FifoSurface* s = live_surface(resource)) s->wait_barrier();
        },
    .destroy = destroy_resource,
};

const struct wp_fifo_manager_v1_interface kManagerImpl = {
    .destroy = destroy_resource,
    .get_fifo = [](wl_client*, wl_resource* manager, uint32_t id,
                   wl_resource* surface) { manager_of(manager)->get_fifo(manager, id, surface); },
};

void bind_manager(wl_client* client, void* data, uint32_t version, uint32_t id) {
  wl_resource* resource =
      wl_resource_create(client, &wp_fifo_manager_v1_interface, static_cast<int>(version), id);
  if (resource == nullptr) {
    wl_client_post_no_memory(client);
    return;
  }
  wl_resource_set_implementation(resource, &kManagerImpl, data, nullptr);
}

}  // namespace

Fifo::Fifo(wl_display* display, wl_event_loop* loop, HoldQueue& queue)
    : loop_(loop), queue_(queue) {
  global_ = wl_global_create(display, &wp_fifo_manager_v1_interface, 1, this, bind_manager);
  if (global_ == nullptr) LOG_ERROR("fifo: wl_global_create failed; wp_fifo_manager_v1 is off");
}

Fifo::~Fifo() {
  for (auto& [surface, state] : surfaces_) state->shut_down();
  surfaces_.clear();
  if (global_ != nullptr) wl_global_destroy(global_);
}

size_t Fifo::held() const {
  size_t n = 0;
  for (const auto& [surface, state] : surfaces_) n += state->held();
  return n;
}

bool Fifo::latching(wlr_output* output) const {
  auto it = last_latch_ns_.find(output);
  return it != last_latch_ns_.end() && monotonic_ns() - it->second < kStoppedLatchingNs;
}

void Fifo::output_latched(wlr_output* output) {
  last_latch_ns_[output] = monotonic_ns();
  // First every barrier this latch ends, then the let-throughs: a commit let
  // through here may set its surface's barrier again, for the next latch.
  std::vector<wlr_surface*> cleared;
  for (auto& [surface, state] : surfaces_) {
    if (state->barrier() && state->shown_on(output)) {
      state->clear_barrier();
      cleared.push_back(surface);
    }
  }
  for (wlr_surface* surface : cleared) {
    auto it = surfaces_.find(surface);  // applying a commit may have destroyed one
    if (it != surfaces_.end()) it->second->let_through_ready();
  }
}

void Fifo::get_fifo(wl_resource* manager, uint32_t id, wl_resource* surface_resource) {
  wlr_surface* surface = wlr_surface_from_resource(surface_resource);
  auto it = surfaces_.find(surface);
  if (it != surfaces_.end() && it->second->resource() != nullptr) {
    wl_resource_post_error(manager, WP_FIFO_MANAGER_V1_ERROR_ALREADY_EXISTS,
                           "this wl_surface already has a wp_fifo_v1");
    return;
  }
  wl_resource* resource = wl_resource_create(wl_resource_get_client(manager), &wp_fifo_v1_interface,
                                             wl_resource_get_version(manager), id);
  if (resource == nullptr) {
    wl_resource_post_no_memory(manager);
    return;
  }
  if (it == surfaces_.end())
    it = surfaces_.emplace(surface, std::make_unique<FifoSurface>(*this, surface)).first;
  it->second->attach(resource);
  wl_resource_set_implementation(resource, &kFifoImpl, it->second.get(), [](wl_resource* r) {
    if (auto* s = static_cast<FifoSurface*>(wl_resource_get_user_data(r))) s->detach();
  });
}

}  // namespace baton
