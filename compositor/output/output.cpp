#include "compositor/output/output.hpp"

#include <drm_fourcc.h>

#include <algorithm>
#include <ctime>
#include <utility>

#include "compositor/config/apply.hpp"
#include "compositor/config/config.hpp"
#include "compositor/config/options.hpp"
#include "protocols/commit_timing.hpp"
#include "protocols/fifo.hpp"
#include "renderer/render_stack.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

Image read_buffer(wlr_renderer* renderer, wlr_buffer* buffer) {
  wlr_texture* texture = wlr_texture_from_buffer(renderer, buffer);
  if (texture == nullptr) {
    LOG_ERROR("capture: the renderer cannot read this output's buffers");
    return {};
  }
  Image image(static_cast<int>(texture->width), static_cast<int>(texture->height));
  wlr_texture_read_pixels_options options{};
  options.data = image.pixels.data();
  options.format = DRM_FORMAT_ARGB8888;
  options.stride = texture->width * 4;
  bool ok = wlr_texture_read_pixels(texture, &options);
  wlr_texture_destroy(texture);
  if (!ok) {
    LOG_ERROR("capture: wlr_texture_read_pixels failed");
    return {};
  }
  return image;
}

}  // namespace

Output::Output(const OutputContext& context, wlr_output* output)
    : context_(context),
      output_(output),
      cadence_(CadenceMode::automatic, 30),
      committer_(output, context.event_loop, context.trace),
      render_loop_(
          output, context.event_loop, context.trace,
          [this](const RenderLoop::FrameTiming&) { return render_frame(); },
          [this] {
            return scene_output_ != nullptr &&
                   (wlr_scene_output_needs_frame(scene_output_) || !captures_.empty());
          }) {
  apply_games_policy();
  own_allocator_ = context.render.allocator_for_output();
  wlr_output_init_render(output, allocator(), context.render.renderer());

  wlr_output_state state;
  wlr_output_state_init(&state);
  wlr_output_state_set_enabled(&state, true);
  if (wlr_output_mode* mode = wlr_output_preferred_mode(output); mode != nullptr) {
    wlr_output_state_set_mode(&state, mode);
  } else if (wlr_output_is_headless(output)) {
    const OutputSize& size = context.options.headless_size;
    wlr_output_state_set_custom_mode(&state, size.width, size.height, size.refresh_mhz);
  }
  // Nested outputs keep the size of their window; they have no refresh rate.
  wlr_output_layout_add_auto(context.layout, output);
  commit_with_config(state);
  wlr_output_state_finish(&state);

  wlr_output_layout_output* layout_output = wlr_output_layout_get(context.layout, output);
  scene_output_ = wlr_scene_output_create(context.scene, output);
  committer_.set_scene_output(scene_output_);
  wlr_scene_output_layout_add_output(context.scene_layout, layout_output, scene_output_);
  const uint32_t rgb = context.options.background;
  const float colour[4] = {static_cast<float>((rgb >> 16) & 0xff) / 255.0f,
                           static_cast<float>((rgb >> 8) & 0xff) / 255.0f,
                           static_cast<float>(rgb & 0xff) / 255.0f, 1.0f};
  background_ = wlr_scene_rect_create(context.background_layer, 0, 0, colour);
  update_background();

  frame_.connect(&output->events.frame, [this](void*) { render_loop_.frame_event(); });
  commit_.connect(&output->events.commit,
                  [this](wlr_output_event_commit* event) { handle_commit(*event); });
  request_state_.connect(&output->events.request_state,
                         [this](wlr_output_event_request_state* event) {
                           // Nested outputs ask to follow their window's size.
                           wlr_output_commit_state(output_, event->state);
                           update_background();
                         });
  present_.connect(&output->events.present, [this](wlr_output_event_present* event) {
    // wlroots' headless backend presents on a fixed timer but reports no
    // period; the period is known exactly, so clients get it (presentation-time
    // feedback, connected later, sees the filled-in event).
    if (wlr_output_is_headless(output_) && event->refresh == 0 && output_->refresh > 0)
      event->refresh = static_cast<int>(1000000000000LL / output_->refresh);
    // Under VRR presentation-time (version 2) reports the fastest refresh the
    // output allows; wlroots reports 0 to version 1 clients itself.
    if (output_->adaptive_sync_status == WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED && refresh_range_ &&
        event->refresh > 0)
      event->refresh = static_cast<int>(1e9 / refresh_range_->max_hz);
    render_loop_.presented(*event);
  });
  destroy_.connect(&output->events.destroy, [this](void*) { context_.destroyed(*this); });
  connect_timing_protocols(context.fifo, context.commit_timing);
  // VRR below the panel's range: the buffer on screen flips again, with no
  // build and no render (on an emulated guest a composited repeat took 24 ms
  // from its timer to its flip, longer than the panel's longest frame);
  // where the output refuses that, the scene repaints it.
  repeat_wanted_ = render_loop_.repeat_wanted.connect([this] {
    if (repeat_last_frame()) return;
    wlr_damage_ring_add_whole(&scene_output_->damage_ring);
    wlr_output_update_needs_frame(output_);
  });
  refresh_range_ = refresh_range_of(output);
  if (refresh_range_)
    LOG_INFO("output %s: variable refresh range %.0f-%.0f Hz (EDID)%s", output->name,
             refresh_range_->min_hz, refresh_range_->max_hz,
             output->adaptive_sync_supported ? "" : ", but the connector is not VRR-capable");
  update_vrr_pacing();

  LOG_INFO("output %s: %dx%d@%.2fHz", output->name, output->width, output->height,
           output->refresh / 1000.0);
}

void Output::commit_with_config(const wlr_output_state& base) {
  wlr_output_state configured;
  wlr_output_state_init(&configured);
  wlr_output_state_copy(&configured, &base);
  const std::optional<std::pair<int, int>> position =
      add_configured_state(context_.config, output_, configured);
  if (!commit_output_state(output_, configured)) {
    // Without [[output]] entries there is nothing to leave out: no retry.
    if (context_.config.outputs_for(output_->name).empty()) {
      LOG_ERROR("output %s: the output refused to be enabled", output_->name);
    } else {
      LOG_ERROR("output %s: the configured state was refused; enabled without it", output_->name);
      wlr_output_state plain;
      wlr_output_state_init(&plain);
      wlr_output_state_copy(&plain, &base);
      if (!wlr_output_commit_state(output_, &plain))
        LOG_ERROR("output %s: the output refused to be enabled", output_->name);
      wlr_output_state_finish(&plain);
    }
  }
  wlr_output_state_finish(&configured);
  if (position) wlr_output_layout_add(context_.layout, output_, position->first, position->second);
  note_refused_adaptive_sync();
}

void Output::note_refused_adaptive_sync() {
  // adaptive_sync = "on" goes to the kernel with the configured state, and
  // commit_output_state leaves it out where it is refused: frames must not
  // ask again (each would fail, and be lost).
  if (adaptive_sync_ == AdaptiveSyncMode::on && output_->enabled &&
      output_->adaptive_sync_supported &&
      output_->adaptive_sync_status != WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED)
    vrr_refused_ = true;
}

void Output::connect_timing_protocols(Fifo& fifo, CommitTiming& commit_timing) {
  // commit-timing: targets up to this frame's presentation apply before it
  // is built; a later target gets a frame planned for its vblank.
  frame_starting_ = render_loop_.frame_starting.connect(
      [this, &commit_timing](const RenderLoop::FrameTiming& timing) {
        commit_timing.frame_starting(output_, timing.present_ns);
      });
  auto plan_next_target = [this, &commit_timing] {
    if (std::optional<int64_t> target = commit_timing.earliest_target(output_))
      render_loop_.plan_for(*target);
  };
  target_added_ = commit_timing.target_added.connect([this, plan_next_target](wlr_output* o) {
    if (o == output_) plan_next_target();
  });
  // fifo: barriers of surfaces shown here clear once a frame latched; a
  // barrier set asks for that latch even when nothing else changed.
  latched_ = render_loop_.latched.connect([this, &fifo, plan_next_target] {
    fifo.output_latched(output_);
    plan_next_target();
  });
  latch_wanted_ = fifo.latch_wanted.connect([this](wlr_output* o) {
    if (o == output_) render_loop_.request_latch();
  });
}

void Output::apply_config() {
  if (Status applied = apply_output_config(context_.config, context_.layout, output_); !applied)
    LOG_ERROR("%s", applied.error().describe().c_str());
  set_background(context_.options.background);
  apply_games_policy();
  note_refused_adaptive_sync();
}

void Output::apply_games_policy() {
  const Options& options = context_.options;
  const Config& config = context_.config;
  std::optional<CadenceMode> cadence;
  std::optional<bool> tearing_here;
  for (const OutputConfig* c : config.outputs_for(output_->name)) {
    if (c->cadence) cadence = c->cadence;
    if (c->tearing) tearing_here = c->tearing;
  }
  cadence_.set_policy(options.cadence.value_or(cadence.value_or(CadenceMode::automatic)),
                      options.game_fps.value_or(config.games.game_fps.value_or(30)));
  tearing_policy_ =
      options.tearing.value_or(config.games.tearing.value_or(TearingPolicy::fullscreen));
  tearing_allowed_here_ = tearing_here.value_or(true);
  std::optional<RenderDeadline> deadline;
  for (const OutputConfig* c : config.outputs_for(output_->name))
    if (c->render_deadline) deadline = c->render_deadline;
  render_loop_.set_deadline(options.render_deadline.value_or(deadline.value_or(RenderDeadline{})));
  adaptive_sync_.reset();
  max_fps_.reset();
  vrr_refused_ = false;  // a new setting is tried again
  low_framerate_compensation_ = true;
  for (const OutputConfig* c : config.outputs_for(output_->name)) {
    if (c->adaptive_sync) adaptive_sync_ = c->adaptive_sync;
    if (c->max_fps) max_fps_ = c->max_fps;
    if (c->low_framerate_compensation) low_framerate_compensation_ = *c->low_framerate_compensation;
  }
  vrr_policy_.set_mode(adaptive_sync_.value_or(AdaptiveSyncMode::off));
  update_vrr_pacing();
  LOG_DEBUG(
      "output %s: cadence %d, game fps %d, tearing %s", output_->name,
      static_cast<int>(cadence_.mode()),
      options.game_fps.value_or(config.games.game_fps.value_or(30)),
      tearing_policy_ == TearingPolicy::fullscreen && tearing_allowed_here_ ? "allowed" : "off");
}

Output::~Output() {
  track_scanout_candidate(nullptr);
  if (!captures_.empty()) lock_for_capture(false);
  if (software_cursor_for_tearing_) wlr_output_lock_software_cursors(output_, false);
  if (background_ != nullptr) wlr_scene_node_destroy(&background_->node);
}

wlr_box Output::usable_area() const {
  if (usable_area_) return *usable_area_;
  wlr_box box{};
  wlr_output_layout_get_box(context_.layout, output_, &box);
  return box;
}

bool Output::set_usable_area(const wlr_box& area) {
  const bool changed = !usable_area_ || !wlr_box_equal(&*usable_area_, &area);
  usable_area_ = area;
  return changed;
}

void Output::set_background(uint32_t rgb) {
  const float colour[4] = {static_cast<float>((rgb >> 16) & 0xff) / 255.0f,
                           static_cast<float>((rgb >> 8) & 0xff) / 255.0f,
                           static_cast<float>(rgb & 0xff) / 255.0f, 1.0f};
  wlr_scene_rect_set_color(background_, colour);
}

void Output::update_background() {
  wlr_box box{};
  wlr_output_layout_get_box(context_.layout, output_, &box);
  wlr_scene_node_set_position(&background_->node, box.x, box.y);
  wlr_scene_rect_set_size(background_, box.width, box.height);
}

bool Output::render_frame() {
  if (backing_off_) return false;  // the retry timer schedules the next frame
  update_background();
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const FullscreenWindow fullscreen = context_.fullscreen_on(*this);
  cadence_.sample(fullscreen.surface, int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec);
  track_scanout_candidate(fullscreen.surface);
  const bool committing = commit_frame(fullscreen);
  // A frame waiting for render-done is not on its way yet: clients hear "draw
  // the next one" once it is committed, not before.
  if (committer_.has_waiting_frame())
    frame_done_pending_ = true;
  else
    wlr_scene_output_send_frame_done(scene_output_, &now);
  // A fixed cadence commits the next refresh cycle even without damage.
  if (cadence_.fixed()) wlr_output_schedule_frame(output_);
  return committing;
}

void Output::track_scanout_candidate(wlr_surface* fullscreen) {
  // Only a KMS output could put a client's buffer on a plane.
  wlr_surface* candidate = wlr_output_is_drm(output_) ? fullscreen : nullptr;
  if (candidate == scanout_candidate_) return;
  if (wlr_surface* previous = std::exchange(scanout_candidate_, nullptr); previous != nullptr) {
    scanout_candidate_destroy_.disconnect();
    scanout_candidate_changed.emit(ScanoutCandidate{previous, nullptr});
  }
  if (candidate == nullptr) return;
  scanout_candidate_ = candidate;
  scanout_candidate_destroy_.connect(&candidate->events.destroy, [this](void*) {
    scanout_candidate_destroy_.disconnect();
    scanout_candidate_ = nullptr;  // its feedback goes with it
  });
  scanout_candidate_changed.emit(ScanoutCandidate{candidate, output_});
}

bool Output::commit_frame(const FullscreenWindow& fullscreen) {
  if (committer_.has_waiting_frame()) {
    // The last frame waits for render-done: this one follows it.
    frame_wanted_ = true;
    return false;
  }
  if (!wlr_scene_output_needs_frame(scene_output_)) return false;
  // tearing-control: a fullscreen surface asking for async presentation is
  // flipped without waiting for vblank where the backend can do it (DRM with
  // async page flips); elsewhere the request is kept and not applied.
  const auto& denied = context_.config.games.no_tearing_apps;
  const bool was_requested = tearing_requested_;
  tearing_requested_ = fullscreen.surface != nullptr &&
                       tearing_policy_ == TearingPolicy::fullscreen && tearing_allowed_here_ &&
                       std::find(denied.begin(), denied.end(), fullscreen.app_id) == denied.end() &&
                       wlr_tearing_control_manager_v1_surface_hint_from_surface(
                           context_.tearing_control, fullscreen.surface) ==
                           WP_TEARING_CONTROL_V1_PRESENTATION_HINT_ASYNC;
  tearing_active_ = false;
  render_loop_.set_immediate(tearing_requested_);
  // An async flip may not change the cursor plane: while tearing, the
  // cursor is drawn into the frame. The frame that hands it over (the plane
  // switched off) flips at vblank; tearing starts with the next.
  const bool drm = wlr_output_is_drm(output_);
  if (drm && tearing_requested_ != software_cursor_for_tearing_) {
    software_cursor_for_tearing_ = tearing_requested_;
    wlr_output_lock_software_cursors(output_, software_cursor_for_tearing_);
  }
  const bool tear = drm && tearing_requested_ && was_requested;
  // A torn flip is for new pixels only. wlroots wants a frame for every
  // wlr_output_schedule_frame (a fifo latch, a frame callback), which a
  // vsynced output pays once a refresh at most and a tearing one without
  // bound: the same buffer flipped as fast as the kernel takes it.
  if (tear && !committer_.scene_damaged() && captures_.empty()) return false;
  wlr_output_state& state = committer_.start();
  const bool vrr_switch = choose_adaptive_sync(fullscreen, state);
  wlr_scene_output_state_options options{};
  options.timer = render_loop_.scene_timer();  // the GPU part of the render time
  if (!wlr_scene_output_build_state(scene_output_, &state, &options)) {
    committer_.drop();
    return false;
  }
  // A frame committed after the loop waited for render-done has its GPU time
  // inside its CPU time already.
  const uint64_t waits_before = committer_.counts().loop_waited + committer_.counts().point_waited;
  committer_.commit(tear, [this, waits_before, vrr_switch](bool ok, bool async) {
    render_loop_.committed(
        ok, committer_.counts().loop_waited + committer_.counts().point_waited != waits_before);
    if (!ok && vrr_switch && !vrr_refused_) {
      // A driver that lists the connector as VRR-capable may still refuse
      // the switch (some modes): frames go on without it.
      vrr_refused_ = true;
      LOG_INFO("output %s: the kernel refused to switch variable refresh; left as it is",
               output_->name);
    }
    if (!ok)
      commit_failed();
    else
      reset_back_off();
    tearing_active_ = ok && async;
    if (std::exchange(frame_done_pending_, false)) {
      timespec done{};
      clock_gettime(CLOCK_MONOTONIC, &done);
      wlr_scene_output_send_frame_done(scene_output_, &done);
    }
    if (std::exchange(frame_wanted_, false)) wlr_output_schedule_frame(output_);
  });
  return true;
}

void Output::commit_failed() {
  if (retry_ms_ == 0)
    LOG_INFO("output %s: a frame commit failed; retrying in 16 ms, then further apart (up to 1 s)",
             output_->name);
  retry_ms_ = retry_ms_ == 0 ? 16 : std::min(retry_ms_ * 2, 1000);
  if (!retry_)
    retry_ = EventSource::timer(context_.event_loop, [this] {
      backing_off_ = false;
      wlr_output_schedule_frame(output_);
    });
  backing_off_ = true;
  retry_->arm_ms(retry_ms_);
}

void Output::reset_back_off() {
  if (retry_ms_ != 0) LOG_INFO("output %s: frame commits succeed again", output_->name);
  retry_ms_ = 0;
  backing_off_ = false;
  if (retry_) retry_->arm_ms(0);
}

bool Output::game_on_screen(const FullscreenWindow& fullscreen) const {
  if (fullscreen.surface == nullptr) return false;
  if (context_.content_type != nullptr &&
      wlr_surface_get_content_type_v1(context_.content_type, fullscreen.surface) ==
          WP_CONTENT_TYPE_V1_TYPE_GAME)
    return true;
  // Presenting faster than the slowest refresh the panel allows: VRR helps.
  const double slowest = refresh_range_ ? refresh_range_->min_hz : 0;
  return slowest > 0 && cadence_.commit_rate() > slowest;
}

bool Output::choose_adaptive_sync(const FullscreenWindow& fullscreen, wlr_output_state& state) {
  if (!adaptive_sync_ || !output_->adaptive_sync_supported || vrr_refused_) return false;
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  const bool wanted = vrr_policy_.wanted(game_on_screen(fullscreen),
                                         int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec);
  const bool enabled = output_->adaptive_sync_status == WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED;
  if (wanted == enabled) return false;
  wlr_output_state_set_adaptive_sync_enabled(&state, wanted);
  return true;
}

void Output::update_vrr_pacing() {
  if (output_->adaptive_sync_status != WLR_OUTPUT_ADAPTIVE_SYNC_ENABLED) {
    render_loop_.set_vrr(std::nullopt);
    return;
  }
  // Without an EDID range the mode's refresh is the fastest, and there is
  // no known slowest: no repeats.
  const double fastest =
      refresh_range_ ? refresh_range_->max_hz : static_cast<double>(output_->refresh) / 1000.0;
  RenderLoop::Vrr vrr;
  if (fastest > 0) vrr.min_interval_ns = static_cast<int64_t>(1e9 / fastest);
  if (max_fps_ && *max_fps_ > 0)
    vrr.min_interval_ns = std::max(vrr.min_interval_ns, static_cast<int64_t>(1e9 / *max_fps_));
  if (refresh_range_ && low_framerate_compensation_)
    vrr.max_interval_ns = static_cast<int64_t>(1e9 / refresh_range_->min_hz);
  render_loop_.set_vrr(vrr);
}

void Output::handle_commit(const wlr_output_event_commit& event) {
  if ((event.state->committed & WLR_OUTPUT_STATE_ADAPTIVE_SYNC_ENABLED) != 0) update_vrr_pacing();
  if ((event.state->committed & WLR_OUTPUT_STATE_BUFFER) == 0) return;
  ++frames_;
  vulkan::slot_presented(event.state->buffer);  // the swapchain tracks what is on screen
  if (captures_.empty()) return;
  Image image = read_buffer(context_.render.renderer(), event.state->buffer);
  // Callbacks may capture again; run the ones pending now.
  auto callbacks = std::move(captures_);
  captures_.clear();
  lock_for_capture(false);
  for (auto& callback : callbacks) callback(image);
}

bool Output::repeat_last_frame() {
  // An empty state: the DRM backend flips the framebuffer it shows again,
  // keeping its planes (and VRR) as they are.
  wlr_output_state state;
  wlr_output_state_init(&state);
  const bool ok = wlr_output_commit_state(output_, &state);
  wlr_output_state_finish(&state);
  if (!ok) return false;
  render_loop_.repeat_committed();
  // A frame waiting for its fences commits after this flip.
  committer_.hold_for_flip(output_->commit_seq);
  return true;
}

void Output::session_resumed() {
  committer_.drop();  // built before the pause: its slot may be gone
  render_loop_.frame_dropped();
  reset_back_off();
  wlr_output_state state;
  wlr_output_state_init(&state);
  wlr_output_state_set_enabled(&state, true);
  commit_with_config(state);
  wlr_output_state_finish(&state);
  wlr_damage_ring_add_whole(&scene_output_->damage_ring);
  wlr_output_schedule_frame(output_);
}

wlr_allocator* Output::allocator() const {
  return own_allocator_ ? own_allocator_.get() : context_.render.allocator();
}

void Output::renderer_rebuilt() {
  committer_.drop();  // drawn by the lost device
  render_loop_.renderer_changed();
  // The old allocator goes once the output has let go of it.
  OutputAllocator old = std::exchange(own_allocator_, context_.render.allocator_for_output());
  if (!wlr_output_init_render(output_, allocator(), context_.render.renderer()))
    LOG_ERROR("output %s: the rebuilt renderer cannot drive it", output_->name);
  // The new swapchain starts empty: repaint everything.
  wlr_damage_ring_add_whole(&scene_output_->damage_ring);
  wlr_output_schedule_frame(output_);
  // Its scanout feedback named the lost renderer's formats too.
  if (scanout_candidate_ != nullptr)
    scanout_candidate_changed.emit(ScanoutCandidate{scanout_candidate_, output_});
}

void Output::lock_for_capture(bool lock) {
  // A scanned-out client buffer is not ours to read: compose while capturing.
  wlr_output_lock_attach_render(output_, lock);
  // The cursor belongs in baton's screenshots. A hardware cursor is not in
  // the composed frame (and wlroots 0.19's headless outputs take one and never
  // draw it), so draw it in software while capturing, as wlroots does for
  // capture clients that ask for cursors.
  wlr_output_lock_software_cursors(output_, lock);
}

void Output::capture(CaptureCallback callback) {
  // A scanned-out client buffer is not ours to read: compose this frame.
  if (captures_.empty()) lock_for_capture(true);
  captures_.push_back(std::move(callback));
  wlr_damage_ring_add_whole(&scene_output_->damage_ring);
  wlr_output_schedule_frame(output_);
}

}  // namespace baton
