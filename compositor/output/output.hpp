// One output: its scene output, background, frame loop and pixel capture.
#pragma once

extern "C" {
#include <wlr/util/box.h>
}

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/refresh_range.hpp"
#include "compositor/output/frame_cadence.hpp"
#include "compositor/output/frame_committer.hpp"
#include "compositor/output/render_loop.hpp"
#include "compositor/output/vrr_policy.hpp"
#include "renderer/render_stack.hpp"
#include "util/event_source.hpp"
#include "util/image.hpp"
#include "util/listener.hpp"
#include "util/signal.hpp"
#include "util/weak.hpp"

struct wl_event_loop;
struct wlr_output;
struct wlr_output_layout;
struct wlr_scene;
struct wlr_scene_output_layout;
struct wlr_scene_tree;
struct wlr_surface;
struct wlr_tearing_control_manager_v1;
struct wlr_content_type_manager_v1;
struct wlr_output_event_commit;
struct wlr_output_event_present;
struct wlr_output_event_request_state;
struct wlr_scene_output;
struct wlr_scene_rect;

namespace baton {

class CommitTiming;
class Fifo;
class Output;
class Trace;
struct Config;
struct Options;

/// The window covering an output: its main surface and app id (null and
/// empty when none). Output asks desktop/ for it through OutputContext.
struct FullscreenWindow {
  wlr_surface* surface = nullptr;
  std::string app_id;
};

/// A surface that could be scanned out on an output (fullscreen on a KMS
/// output), or that no longer could there (`output` null).
struct ScanoutCandidate {
  wlr_surface* surface;
  wlr_output* output;
};

/// What every Output uses of the compositor around it; the Server fills it
/// in once, and it outlives every Output.
struct OutputContext {
  wl_event_loop* event_loop;
  Trace* trace;  // null when not tracing
  const Options& options;
  const Config& config;
  const RenderStack& render;
  wlr_output_layout* layout;
  wlr_scene* scene;
  wlr_scene_output_layout* scene_layout;
  wlr_scene_tree* background_layer;
  wlr_tearing_control_manager_v1* tearing_control;
  wlr_content_type_manager_v1* content_type;  // a surface saying "game" turns VRR on
  Fifo& fifo;
  CommitTiming& commit_timing;
  /// Asked each frame: cadence and tearing follow the fullscreen window.
  std::function<FullscreenWindow(const Output&)> fullscreen_on;
  /// The wlr_output is being destroyed: the owner drops this Output.
  std::function<void(Output&)> destroyed;
};

class Output : public Weakable<Output> {
 public:
  using CaptureCallback = std::function<void(const Image&)>;

  Output(const OutputContext& context, wlr_output* output);
  ~Output();
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  [[nodiscard]] wlr_output* wlr() const { return output_; }
  [[nodiscard]] wlr_scene_output* scene_output() const { return scene_output_; }
  /// Frames committed so far.
  [[nodiscard]] uint64_t frames() const { return frames_; }

  /// The output's box in the layout less the panels' exclusive zones (the
  /// layer shell sets it); the whole box until it has.
  [[nodiscard]] wlr_box usable_area() const;
  /// Returns whether the area changed.
  bool set_usable_area(const wlr_box& area);

  /// Solid background colour, 0xRRGGBB (config reload).
  void set_background(uint32_t rgb);
  /// Captures the whole output on its next frame, repainting all of it.
  void capture(CaptureCallback callback);
  /// Whether the last frame ran at a fixed cadence (see FrameCadence).
  [[nodiscard]] bool fixed_cadence() const { return cadence_.fixed(); }
  [[nodiscard]] const FrameCadence& cadence() const { return cadence_; }
  /// A built frame waits to be committed (for render-done).
  [[nodiscard]] bool frame_waiting() const { return committer_.has_waiting_frame(); }
  /// How this output's frames met their fences (IN_FENCE_FD, loop waits).
  [[nodiscard]] const FrameCommitter::Counts& commit_counts() const { return committer_.counts(); }
  /// A fullscreen surface here asks for async presentation and policy allows it.
  [[nodiscard]] bool tearing_requested() const { return tearing_requested_; }
  /// Re-reads cadence and tearing policy (command line, then config, then
  /// defaults); called at creation and on config reload.
  void apply_games_policy();
  /// The config was (re)read: mode, position, background, games policy.
  void apply_config();
  /// Back on our VT: enabled again as we left it, or as configured, repainted.
  void session_resumed();
  /// The renderer was rebuilt (GPU loss): render with the new one.
  void renderer_rebuilt();
  /// When this output renders (its render deadline, prediction, counts).
  [[nodiscard]] RenderLoop& render_loop() { return render_loop_; }
  [[nodiscard]] const RenderLoop& render_loop() const { return render_loop_; }
  /// The last commit really was an async (tearing) page flip.
  [[nodiscard]] bool tearing_active() const { return tearing_active_; }
  /// The panel's variable-refresh range (its EDID), where known.
  [[nodiscard]] const std::optional<RefreshRange>& refresh_range() const { return refresh_range_; }

  /// The surface that could be scanned out here changed: a frame found a
  /// fullscreen surface on this KMS output, or found it gone (output null;
  /// also when this Output goes). Never for headless or nested outputs.
  Signal<const ScanoutCandidate&> scanout_candidate_changed;

 private:
  /// fifo barriers clear at this output's latches; commit-timing targets
  /// apply in the frame presented at or after them.
  void connect_timing_protocols(Fifo& fifo, CommitTiming& commit_timing);
  /// Commits BASE with the [[output]] entries on top, in one commit (one
  /// modeset; an output configured off is never lit), or BASE alone when
  /// the output refuses that. Places the output at its configured position.
  void commit_with_config(const wlr_output_state& base);
  void lock_for_capture(bool lock);
  /// The render loop's frame: builds and commits; whether a buffer went out.
  bool render_frame();
  bool commit_frame(const FullscreenWindow& fullscreen);
  void commit_failed();
  /// Announces a change of the fullscreen surface a KMS output could scan out.
  void track_scanout_candidate(wlr_surface* fullscreen);
  void reset_back_off();
  void handle_commit(const wlr_output_event_commit& event);
  void update_background();
  /// Whether a game is on this output now (adaptive_sync = "game").
  [[nodiscard]] bool game_on_screen(const FullscreenWindow& fullscreen) const;
  /// Puts VRR on or off in the frame's state where its policy changed;
  /// whether it did.
  bool choose_adaptive_sync(const FullscreenWindow& fullscreen, wlr_output_state& state);
  /// The render loop follows the output's adaptive sync state.
  void update_vrr_pacing();
  /// After a configured commit: "on" asked for and left off means the
  /// kernel refused it.
  void note_refused_adaptive_sync();
  /// VRR below the panel's range: flips the buffer on screen again with an
  /// empty commit; whether the output took it.
  bool repeat_last_frame();
  /// What this output allocates from: its own allocator, else the shared one.
  [[nodiscard]] wlr_allocator* allocator() const;

  const OutputContext& context_;
  wlr_output* output_;
  OutputAllocator own_allocator_;  // null: the renderer's shared allocator
  wlr_scene_output* scene_output_ = nullptr;
  wlr_scene_rect* background_ = nullptr;
  std::optional<wlr_box> usable_area_;
  uint64_t frames_ = 0;
  FrameCadence cadence_;
  TearingPolicy tearing_policy_ = TearingPolicy::fullscreen;
  bool tearing_allowed_here_ = true;
  bool tearing_requested_ = false;
  bool tearing_active_ = false;
  bool software_cursor_for_tearing_ = false;       // a software-cursor lock held while tearing
  std::optional<AdaptiveSyncMode> adaptive_sync_;  // unset: left as configured elsewhere
  VrrPolicy vrr_policy_;
  std::optional<int> max_fps_;
  bool low_framerate_compensation_ = true;
  std::optional<RefreshRange> refresh_range_;
  bool vrr_refused_ = false;  // a commit switching VRR failed: not asked again
  std::vector<CaptureCallback> captures_;
  FrameCommitter committer_;
  RenderLoop render_loop_;
  bool frame_wanted_ = false;        // a frame came while the last one waited
  bool frame_done_pending_ = false;  // frame callbacks wait for the waiting frame
  // Failed commits (DRM master lost before the seat says so, a rejected
  // mode) are retried on a timer, 16 ms doubling up to 1 s, not at once:
  // an immediate retry spins the loop and starves the seat daemon whose
  // message would end the failures.
  std::unique_ptr<EventSource> retry_;
  int retry_ms_ = 0;  // the current back-off; 0 while commits succeed
  bool backing_off_ = false;

  Listener<void> frame_;
  Listener<wlr_output_event_commit> commit_;
  Listener<wlr_output_event_request_state> request_state_;
  Listener<wlr_output_event_present> present_;
  Listener<void> destroy_;
  wlr_surface* scanout_candidate_ = nullptr;  // announced; forgotten when it dies
  Listener<void> scanout_candidate_destroy_;
  Connection frame_starting_;
  Connection latched_;
  Connection latch_wanted_;
  Connection target_added_;
  Connection repeat_wanted_;
};

}  // namespace baton
