// The one place that decides *when* an output renders.
//
// wlroots says when an output may take a new frame (its frame event: right
// after the previous flip, or at once when the output was idle); the render
// loop decides when it does. Where the output has a real vblank (its present
// events carry vsync and a refresh period: KMS, a nested parent that reports
// vsync), a frame starts at
//     next vblank - (predicted render time + safety margin)
// (RenderBudget), so a commit made a few milliseconds before vblank is still
// in it. An output that was idle (no flip in the last 1.5 refreshes) renders
// at once. Without a real vblank (headless, nested without presentation
// feedback), with `render_deadline = "off"` or while a fullscreen surface
// tears, it renders at the frame event, as wlroots' own loop does.
//
// Under variable refresh (set_vrr) there is no grid: a frame renders as
// soon as there is something to show, but flips stay at least the minimum
// interval apart (the panel's fastest refresh, or a max_fps cap), and when
// nothing new comes for nearly the panel's longest frame time the last
// frame is shown again (repeat_wanted: low framerate compensation), so the
// panel never has to refresh on its own below its range.
//
// Around each frame it emits frame_starting (the frame's expected
// presentation time: commit-timing targets up to it apply now) and latched
// (fifo barriers clear). While tearing, latched comes at the first deadline
// of the refresh grid after the frame's flip instead (fifo-v1 ties barriers
// to non-tearing latching deadlines). It also plans frames nobody damaged: a latch a fifo
// barrier waits for, a commit-timing target's vblank.
//
// The prediction's samples: CPU time from render start (from when the
// deadline timer was due, if it woke late) until the frame was handed to
// KMS, plus GPU time (Vulkan timestamp queries) unless the event loop
// already waited for render-done before the commit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "compositor/config/options.hpp"
#include "compositor/output/render_budget.hpp"
#include "util/deadline_timer.hpp"
#include "util/signal.hpp"
#include "util/wlr.hpp"

namespace baton {

class Trace;

class RenderLoop {
 public:
  /// The frame being rendered.
  struct FrameTiming {
    int64_t start_ns = 0;    // render start (CLOCK_MONOTONIC)
    int64_t vblank_ns = 0;   // the vblank it is planned for; 0 without a real vblank
    int64_t present_ns = 0;  // the earliest it can be on screen (a vblank, or now)
  };
  struct Counts {
    uint64_t frames = 0;           // frames run (committed or not)
    uint64_t planned = 0;          // started by the deadline timer
    uint64_t idle_starts = 0;      // started at once: the output was idle
    uint64_t made = 0;             // planned frames on screen at their vblank
    uint64_t missed = 0;           // planned frames on screen later
    uint64_t held_back = 0;        // VRR: frames held to the minimum interval
    uint64_t repeats = 0;          // VRR: repeats asked for below the panel's range
    uint64_t repeats_flipped = 0;  // of those, flipped again without a render
    uint64_t repeats_held = 0;     // of those, while a frame waited for its fences
  };
  /// Variable refresh: flips at least `min_interval_ns` apart, and at most
  /// `max_interval_ns` apart with repeats (0: the panel has no known limit).
  struct Vrr {
    int64_t min_interval_ns = 0;
    int64_t max_interval_ns = 0;
    friend bool operator==(const Vrr&, const Vrr&) = default;
  };
  /// Builds and commits a frame (or finds nothing to commit); returns
  /// whether a buffer went to the output.
  using Render = std::function<bool(const FrameTiming&)>;

  /// `has_content`: whether a frame built now would show something new
  /// (damage); null: always assumed.
  RenderLoop(wlr_output* output, wl_event_loop* loop, Trace* trace, Render render,
             std::function<bool()> has_content = {});
  ~RenderLoop();
  RenderLoop(const RenderLoop&) = delete;
  RenderLoop& operator=(const RenderLoop&) = delete;

  void set_deadline(RenderDeadline deadline);
  [[nodiscard]] RenderDeadline deadline() const { return deadline_; }
  /// Render at the frame event whatever the mode (a tearing fullscreen surface).
  void set_immediate(bool immediate) { immediate_ = immediate; }
  /// The output's variable refresh is on (with its limits) or off.
  void set_vrr(std::optional<Vrr> vrr);
  [[nodiscard]] const std::optional<Vrr>& vrr() const { return vrr_; }

  /// wlroots' frame event: the output may take a new frame.
  void frame_event();
  /// The output's present event.
  void presented(const wlr_output_event_present& event);
  /// The frame rendered now was handed to the output (from the render call
  /// or later from the loop); `waited_for_render` when the loop waited for
  /// render-done first.
  void committed(bool ok, bool waited_for_render);
  /// A repeat (repeat_wanted) was committed without a new frame: the buffer
  /// on screen flips again.
  void repeat_committed();
  /// A frame must latch at the next refresh even without damage (fifo).
  void request_latch();
  /// A frame is wanted at the first vblank not before `target_ns`
  /// (commit-timing); the earliest asked for is kept until the next frame
  /// runs (after which the owner asks again for what is still wanted).
  void plan_for(int64_t target_ns);
  /// The frame being rendered was dropped before its commit (session
  /// paused, renderer rebuilt): nothing of it will be presented.
  void frame_dropped();
  /// Forgets frame timing state tied to the renderer (it was rebuilt).
  void renderer_changed();

  /// Passed to wlr_scene_output_build_state: times the frame's GPU work.
  [[nodiscard]] wlr_scene_timer* scene_timer() { return &scene_timer_; }
  [[nodiscard]] const RenderBudget& budget() const { return budget_; }
  [[nodiscard]] const Counts& counts() const { return counts_; }
  /// Whether frames are placed before vblank now (else at the frame event).
  [[nodiscard]] bool paced() const;

  /// Before a frame is built, with its expected presentation time.
  Signal<const FrameTiming&> frame_starting;
  /// After a frame was built and committed, or found nothing to commit.
  Signal<> latched;
  /// VRR: the last frame must be shown again now (nothing new came and the
  /// panel's longest frame time is near); the owner flips the buffer on
  /// screen again (repeat_committed), or makes the next frame repaint it.
  Signal<> repeat_wanted;

 private:
  struct InFlight {
    FrameTiming timing;
    int64_t planned_start_ns = 0;  // when the deadline timer was to fire (else the start)
    int64_t committed_ns = 0;
    bool waited_for_render = false;
    bool committed = false;
    bool latch_at_flip = false;  // a torn frame: latched after its flip
    uint32_t commit_seq = 0;     // wlr_output's, to match its present event
  };
  /// Renders now, or arms the timer for the render start of the next vblank.
  void plan(int64_t now);
  void run(int64_t now, int64_t vblank, std::optional<int64_t> planned_start = std::nullopt);
  void timer_fired();
  /// VRR: the frame event renders now, or once the minimum interval passed.
  void plan_vrr(int64_t now);
  /// VRR: arms the repeat for a flip at `flip_ns`.
  void arm_repeat(int64_t flip_ns);
  void repeat_fired();
  /// While tearing, frames latch at the refresh grid (fifo-v1).
  [[nodiscard]] bool tearing_latch() const;
  /// Emits latched now, or while tearing at the first deadline after `when`.
  void latch_after(int64_t when);
  /// The next vblank a frame started now can be planned for, and the one a
  /// frame started now reaches.
  [[nodiscard]] int64_t next_vblank(int64_t now, bool content) const;
  [[nodiscard]] int64_t vblank_for_start_at(int64_t now, bool content) const;
  /// Something to show is waiting (damage, or a commit-timing target).
  [[nodiscard]] bool content_waiting() const;
  [[nodiscard]] int64_t lead_ns() const;
  [[nodiscard]] bool idle(int64_t now) const;
  void trace_frame(const InFlight& frame, int64_t presented_ns, bool missed);

  wlr_output* output_;
  wl_event_loop* loop_;
  Trace* trace_;
  int track_ = 0;
  Render render_;
  std::function<bool()> has_content_;
  RenderDeadline deadline_;
  bool immediate_ = false;
  RenderBudget budget_;
  std::unique_ptr<DeadlineTimer> timer_;
  int64_t timer_vblank_ = 0;  // the vblank the armed timer renders for
  wlr_scene_timer scene_timer_{};
  // From the last present event.
  int64_t last_present_ns_ = 0;
  int64_t last_vblank_ns_ = 0;  // the last flip, or the vblank a frame latched for without one
  bool real_vblank_ = false;
  int64_t last_vsync_ns_ = 0;  // the last flip presented with vsync: the refresh grid
  std::unique_ptr<DeadlineTimer> latch_timer_;  // latches torn frames at the grid
  std::optional<Vrr> vrr_;
  std::unique_ptr<DeadlineTimer> repeat_timer_;  // VRR: low framerate compensation
  int64_t repeat_due_ns_ = 0;                    // the repeat on its way was due then
  int64_t repeat_latency_ns_ = 5'000'000;        // recent repeats' due time to flip, at most
  bool flip_pending_ = false;
  std::optional<uint32_t> repeat_commit_seq_;  // the last repeat's commit
  bool wanted_ = false;                        // the timer fired while a flip was pending
  std::optional<int64_t> target_ns_;
  std::optional<InFlight> in_flight_;  // rendered, not yet presented
  bool rendering_ = false;
  Counts counts_;
};

}  // namespace baton
