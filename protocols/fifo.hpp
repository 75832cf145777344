// fifo-v1, implemented by baton: a content update may wait for the display
// refresh that latched the previous one ("FIFO" presentation, as Vulkan's
// VK_PRESENT_MODE_FIFO_KHR over Wayland does it).
//
// A commit carrying set_barrier sets its surface's barrier when it is
// applied. A commit carrying wait_barrier is held (wlr_surface_lock_pending)
// while, at the time it would apply, the barrier is set: that is, while the
// barrier is set or an earlier commit of the surface that sets it has not
// been applied yet. The barrier clears when an output the surface is shown
// on latches a frame (output_latched); the commits waiting for it are then
// let through, in order (wlroots never reorders a surface's commits).
//
// Forward progress: a hidden surface's barrier clears at 30 Hz at least.
// Every barrier arms a fallback timer, max(1/30 s, 1.25 refresh periods of
// the surface's first output). When it fires before a latch cleared the
// barrier, a surface shown on an output that is still latching (a latch
// within the last second) keeps its barrier until that latch, however late:
// a frame is always on its way there, and clearing early would let the next
// commit replace content never shown. Any other surface (not shown anywhere:
// another workspace, minimised, occluded, no output at all, a disabled
// output, which wlroots' scene takes its surfaces off; or on an output that
// stopped latching) has its barrier cleared, so it never stalls its client
// for long.
//
// wait_barrier is ignored on a subsurface in synchronized mode (the protocol
// says so: its parent's commit applies it). The per-surface state outlives
// the wp_fifo_v1 object: destroying it stops future barriers and waits but,
// as the protocol says, changes nothing already committed (held commits
// are let through when the barrier clears, by a latch or the fallback timer).
// A waiting commit is a fifo_barrier blocker on the surface's HoldQueue,
// which holds it and bounds what a client may have queued (HoldBudget).
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "handoff/hold_queue.hpp"
#include "util/signal.hpp"

struct wl_display;
struct wl_event_loop;
struct wl_global;
struct wl_resource;
struct wlr_output;
struct wlr_surface;

namespace baton {

class FifoSurface;

class Fifo {
 public:
  /// The wp_fifo_manager_v1 global (version 1). Waiting commits are
  /// blockers on `queue`, which must outlive this.
  Fifo(wl_display* display, wl_event_loop* loop, HoldQueue& queue);
  ~Fifo();
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;

  /// `output` latched a frame (it built and committed one, or found nothing
  /// to commit at its scheduled time): barriers of surfaces shown on it
  /// (wlr_surface::current_outputs contains it) clear, and commits waiting
  /// on them may apply.
  void output_latched(wlr_output* output);

  /// `output` latched within the last kStoppedLatchingNs.
  [[nodiscard]] bool latching(wlr_output* output) const;
  /// How long an output may go without a latch before the surfaces on it
  /// are treated as hidden.
  static constexpr int64_t kStoppedLatchingNs = 1'000'000'000;

  /// A barrier was set on a surface shown on this output: it must latch at
  /// its next refresh even without damage (the render loop connects this to
  /// "schedule a frame that latches").
  Signal<wlr_output*> latch_wanted;

  /// Commits held now waiting for a barrier, over all surfaces (tests).
  [[nodiscard]] size_t held() const;
  /// Barriers cleared by the fallback timer rather than a latch (tests, logs).
  [[nodiscard]] uint64_t fallback_clears() const { return fallback_clears_; }

  // Request handlers (the C trampolines in the .cpp call them).
  void get_fifo(wl_resource* manager, uint32_t id, wl_resource* surface);

 private:
  friend class FifoSurface;

  wl_event_loop* loop_;
  HoldQueue& queue_;
  wl_global* global_ = nullptr;
  uint64_t fallback_clears_ = 0;
  // When each output last latched (an output destroyed and another made at
  // its address only inherits a time that expires within a second).
  std::map<wlr_output*, int64_t> last_latch_ns_;
  // Made by the surface's first get_fifo; destroyed with the surface.
  std::map<wlr_surface*, std::unique_ptr<FifoSurface>> surfaces_;
};

}  // namespace baton
