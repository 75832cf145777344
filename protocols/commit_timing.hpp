// commit-timing-v1, implemented by baton: a content update carries the time
// (CLOCK_MONOTONIC, the presentation clock) it should be presented at, as
// closely as possible and never before.
//
// A commit with a timestamp is held (wlr_surface_lock_pending) until an
// output the surface is shown on starts building a frame that cannot reach
// the screen before the target (frame_starting), so it lands in the first frame
// that is not early. A surface not shown anywhere has no such frames: its
// held commits apply when their target time passes (one timer per surface,
// at its earliest target), and one whose target has passed already applies
// at once. A shown surface's commit whose target has passed waits for the
// next frame. The timer also keeps a shown surface going when its outputs
// stop building frames: let through at its target, a commit is still never
// presented before it.
//
// Commits keep their order (wlroots applies a surface's commits in order): a
// commit let through early still waits for those before it. A commit may carry
// both a timestamp and a fifo wait: it has a blocker of each. The
// per-surface state outlives the wp_commit_timer_v1 object: destroying it
// stops future timestamps, and, as the protocol says, leaves the ones
// already committed in force. A held commit is a target_time blocker on the
// surface's HoldQueue, which holds it and bounds what a client may have
// queued (HoldBudget).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "handoff/hold_queue.hpp"
#include "util/signal.hpp"

struct wl_display;
struct wl_event_loop;
struct wl_global;
struct wl_resource;
struct wlr_output;
struct wlr_surface;

namespace baton {

class TimedSurface;

class CommitTiming {
 public:
  /// The wp_commit_timing_manager_v1 global (version 1). Held commits are
  /// blockers on `queue`, which must outlive this.
  CommitTiming(wl_display* display, wl_event_loop* loop, HoldQueue& queue);
  ~CommitTiming();
  CommitTiming(const CommitTiming&) = delete;
  CommitTiming& operator=(const CommitTiming&) = delete;

  /// `output` is about to build a frame that can reach the screen no earlier
  /// than `present_ns` (CLOCK_MONOTONIC ns): commits of surfaces shown on it whose target is
  /// not after present_ns apply now (before the frame is built).
  void frame_starting(wlr_output* output, int64_t present_ns);

  /// The earliest target (CLOCK_MONOTONIC ns) held for a surface shown on
  /// `output`, if any: the render loop plans a frame for the first vblank
  /// not before it.
  [[nodiscard]] std::optional<int64_t> earliest_target(wlr_output* output) const;

  /// A new held target on a surface shown on this output (the render loop
  /// re-plans).
  Signal<wlr_output*> target_added;

  /// Commits held now for their target time, over all surfaces (tests).
  [[nodiscard]] size_t held() const;

  // Request handlers (the C trampolines in the .cpp call them).
  void get_timer(wl_resource* manager, uint32_t id, wl_resource* surface);

 private:
  friend class TimedSurface;

  wl_event_loop* loop_;
  HoldQueue& queue_;
  wl_global* global_ = nullptr;
  // Made by the surface's first get_timer; destroyed with the surface.
  std::map<wlr_surface*, std::unique_ptr<TimedSurface>> surfaces_;
};

}  // namespace baton
