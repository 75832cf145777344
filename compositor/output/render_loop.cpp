#include "compositor/output/render_loop.hpp"

#include <algorithm>
#include <string>

#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/clock.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"

namespace baton {
namespace {

std::string ms(int64_t ns) {
  char text[32];
  snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1e6);
  return text;
}

}  // namespace

RenderLoop::RenderLoop(wlr_output* output, wl_event_loop* loop, Trace* trace, Render render,
                       std::function<bool()> has_content)
    : output_(output),
      loop_(loop),
      trace_(trace),
      render_(std::move(render)),
      has_content_(std::move(has_content)) {
  auto timer = DeadlineTimer::create(loop, [this] { timer_fired(); });
  if (timer)
    timer_ = std::move(*timer);
  else  // every frame then renders at its frame event
    LOG_ERROR("output %s: %s; rendering at each frame event", output->name,
              timer.error().describe().c_str());
  if (output->refresh > 0) budget_.set_refresh(1'000'000'000'000LL / output->refresh);
  auto latch_timer = DeadlineTimer::create(loop, [this] { latched.emit(); });
  if (latch_timer) latch_timer_ = std::move(*latch_timer);  // else torn frames latch at once
  auto repeat_timer = DeadlineTimer::create(loop, [this] { repeat_fired(); });
  if (repeat_timer) repeat_timer_ = std::move(*repeat_timer);  // else no repeats under VRR
}

RenderLoop::~RenderLoop() {
  wlr_scene_timer_finish(&scene_timer_);
  if (counts_.planned + counts_.idle_starts > 0)
    LOG_INFO(
        "output %s: render loop: %llu frames, %llu started before vblank by the deadline timer, "
        "%llu at once on an idle output; %llu planned frames on screen at their vblank, %llu "
        "later; prediction %s ms, margin %s ms",
        output_->name, static_cast<unsigned long long>(counts_.frames),
        static_cast<unsigned long long>(counts_.planned),
        static_cast<unsigned long long>(counts_.idle_starts),
        static_cast<unsigned long long>(counts_.made),
        static_cast<unsigned long long>(counts_.missed), ms(budget_.prediction_ns()).c_str(),
        ms(budget_.margin_ns()).c_str());
  // tests/vm/vrr_test.sh greps this line.
  if (counts_.held_back + counts_.repeats > 0)
    LOG_INFO(
        "output %s: variable refresh: %llu frames held to the minimum interval, %llu "
        "repeats of the last frame below the panel's range (%llu flipped again without a render, "
        "%llu of those while a frame waited for its fences)",
        output_->name, static_cast<unsigned long long>(counts_.held_back),
        static_cast<unsigned long long>(counts_.repeats),
        static_cast<unsigned long long>(counts_.repeats_flipped),
        static_cast<unsigned long long>(counts_.repeats_held));
}

void RenderLoop::set_vrr(std::optional<Vrr> vrr) {
  if (vrr == vrr_) return;
  vrr_ = vrr;
  if (vrr_)
    LOG_INFO("output %s: variable refresh on: flips %s ms apart at least, %s at most",
             output_->name, ms(vrr_->min_interval_ns).c_str(),
             vrr_->max_interval_ns > 0 ? (ms(vrr_->max_interval_ns) + " ms").c_str()
                                       : "no limit known (no repeats)");
  else
    LOG_INFO("output %s: variable refresh off", output_->name);
  if (repeat_timer_) repeat_timer_->disarm();
  if (vrr_ && last_present_ns_ != 0) arm_repeat(last_present_ns_);
}

void RenderLoop::set_deadline(RenderDeadline deadline) {
  if (deadline == deadline_) return;
  deadline_ = deadline;
  LOG_INFO("output %s: render deadline %s", output_->name,
           deadline.mode == RenderDeadline::Mode::off     ? "off (render at the frame event)"
           : deadline.mode == RenderDeadline::Mode::fixed ? (ms(deadline.fixed_ns) + " ms").c_str()
                                                          : "auto (predicted)");
}

bool RenderLoop::paced() const {
  return timer_ && real_vblank_ && !immediate_ && !vrr_ &&
         deadline_.mode != RenderDeadline::Mode::off;
}

int64_t RenderLoop::lead_ns() const {
  if (deadline_.mode == RenderDeadline::Mode::fixed)
    return std::min(deadline_.fixed_ns, budget_.refresh_ns());
  return budget_.lead_ns();
}

bool RenderLoop::idle(int64_t now) const {
  const int64_t last = std::max(last_present_ns_, last_vblank_ns_);
  return now - last > budget_.refresh_ns() + budget_.refresh_ns() / 2;
}

int64_t RenderLoop::next_vblank(int64_t now, bool content) const {
  const int64_t vblank = next_vblank_after(last_present_ns_, budget_.refresh_ns(), now);
  // A frame that latched without a flip (nothing to show) had its vblank: a
  // second one with nothing to show waits for the next (a FIFO client whose
  // commits change nothing is paced, not spun); a frame with content may
  // still make it.
  return !content && last_vblank_ns_ >= vblank ? last_vblank_ns_ + budget_.refresh_ns() : vblank;
}

int64_t RenderLoop::vblank_for_start_at(int64_t now, bool content) const {
  const int64_t vblank = first_vblank_not_before(last_present_ns_, budget_.refresh_ns(),
                                                 now + budget_.prediction_ns());
  return !content && last_vblank_ns_ >= vblank ? last_vblank_ns_ + budget_.refresh_ns() : vblank;
}

bool RenderLoop::content_waiting() const {
  // A commit-timing commit is let through only when its frame starts.
  return target_ns_.has_value() || !has_content_ || has_content_();
}

void RenderLoop::frame_event() {
  if (rendering_) return;
  // wlroots sends a frame event only once the output takes a new frame: on
  // KMS after the flip's present event, nested at the parent's frame
  // callback, which may come long before its presentation feedback (or, for
  // a frame the parent never repaints for, without one).
  flip_pending_ = false;
  const int64_t now = monotonic_ns();
  if (timer_ && timer_->armed() && paced()) {
    // Planned already, for damage or a target: keep the earlier start.
    if (timer_->when() <= next_vblank(now, content_waiting()) - lead_ns()) return;
  }
  plan(now);
}

void RenderLoop::plan(int64_t now) {
  if (in_flight_ && !in_flight_->committed) {
    wanted_ = true;  // the last frame waits for render-done: this one follows its flip
    return;
  }
  if (vrr_ && !immediate_) {
    plan_vrr(now);
    return;
  }
  if (!paced()) {
    if (timer_) timer_->disarm();
    run(now, 0);
    return;
  }
  const bool content = content_waiting();
  if (idle(now)) {
    ++counts_.idle_starts;
    timer_->disarm();
    run(now, vblank_for_start_at(now, content));
    return;
  }
  const int64_t vblank = next_vblank(now, content);
  const int64_t start = vblank - lead_ns();
  if (start <= now) {
    timer_->disarm();
    run(now, vblank_for_start_at(now, content));
    return;
  }
  timer_vblank_ = vblank;
  timer_->arm_at(start);
}

void RenderLoop::plan_vrr(int64_t now) {
  // The panel refreshes when the flip comes: a frame too soon after the last
  // flip would be held by the kernel (or exceed a max_fps cap), so it waits
  // here instead, where a later commit can still join it. It starts a
  // little early for its render time, by an eighth of the interval at most:
  // a frame rendered faster than predicted flips at once under VRR, and a
  // max_fps cap must hold.
  const int64_t early = std::min(budget_.prediction_ns(), vrr_->min_interval_ns / 8);
  const int64_t start = last_present_ns_ + vrr_->min_interval_ns - early;
  if (timer_ && last_present_ns_ != 0 && now < start && content_waiting()) {
    ++counts_.held_back;
    timer_vblank_ = 0;
    timer_->arm_at(start);
    return;
  }
  if (timer_) timer_->disarm();
  run(now, 0);
}

void RenderLoop::arm_repeat(int64_t flip_ns) {
  if (!repeat_timer_ || !vrr_ || vrr_->max_interval_ns <= 0) return;
  // A repeat must be on screen before the panel's longest frame time ends:
  // it is asked for as late as it can be, by half as long again as recent
  // repeats took from their due time to their flip (the timer's wake-up, the
  // frame event's idle callback, the build, the commit and the kernel's
  // flip; a busy machine stretches each), but not before half the panel's
  // longest frame time: one stall (a guest descheduled for 34 ms) would
  // otherwise have repeats flip at the fastest refresh for seconds, and no
  // lead saves a gap that long anyway.
  const int64_t lead = std::clamp(repeat_latency_ns_ + repeat_latency_ns_ / 2, int64_t{1'000'000},
                                  vrr_->max_interval_ns / 2);
  repeat_timer_->arm_at(flip_ns + std::max(vrr_->max_interval_ns - lead, vrr_->min_interval_ns));
}

void RenderLoop::repeat_fired() {
  if (!vrr_) return;
  // A frame committed flips soon enough. One still waiting for its fences
  // (a slow render, a late client) does not: the buffer on screen flips
  // again meanwhile, and that frame follows the repeat's flip.
  if (rendering_ || flip_pending_ || (in_flight_ && in_flight_->committed)) return;
  ++counts_.repeats;
  repeat_due_ns_ = repeat_timer_->when();
  if (trace_ != nullptr) {
    if (track_ == 0) track_ = trace_->track(std::string("render loop ") + output_->name);
    trace_->instant(track_, "repeat (below the panel's range)", monotonic_ns());
  }
  repeat_wanted.emit();
}

void RenderLoop::repeat_committed() {
  ++counts_.repeats_flipped;
  if (in_flight_) ++counts_.repeats_held;  // that frame commits after this flip
  flip_pending_ = true;
  repeat_commit_seq_ = output_->commit_seq;
}

void RenderLoop::timer_fired() {
  const int64_t now = monotonic_ns();
  if (flip_pending_ || rendering_ || (in_flight_ && !in_flight_->committed)) {
    wanted_ = true;  // planned while a flip was on its way: after it lands
    return;
  }
  if (!paced()) {
    // A commit-timing target on an output without a real vblank: the frame
    // event renders it (at once).
    wlr_output_schedule_frame(output_);
    return;
  }
  ++counts_.planned;
  // Late by more than the margin (a busy loop): aim at the vblank it can make.
  int64_t vblank = timer_vblank_;
  if (vblank == 0 || now + budget_.prediction_ns() > vblank)
    vblank = vblank_for_start_at(now, content_waiting());
  // Woken late (a busy loop, a descheduled CPU): that delay is part of what
  // the next frame must allow for, so it counts toward the render time.
  run(now, vblank, timer_->when());
}

void RenderLoop::run(int64_t now, int64_t vblank, std::optional<int64_t> planned_start) {
  // Planned for `vblank`, but a fast render may still make an earlier one:
  // what must not be shown before its time (commit-timing) is judged by the
  // earliest vblank this frame can reach.
  const int64_t earliest =
      vblank != 0 ? std::min(vblank, next_vblank_after(last_present_ns_, budget_.refresh_ns(), now))
                  : now;
  FrameTiming timing{now, vblank, earliest};
  ++counts_.frames;
  target_ns_.reset();  // whoever wants a later frame asks again after this one
  rendering_ = true;
  in_flight_ = InFlight{timing, std::min(now, planned_start.value_or(now))};
  frame_starting.emit(timing);
  const bool committed = render_(timing);
  // A torn frame latches at the deadline after its flip (presented()).
  if (!committed || !tearing_latch()) latch_after(now);
  rendering_ = false;
  if (!committed) {
    // Latched without a flip: it still used up the earliest vblank it could
    // have reached, and the next frame is for a later one.
    if (vblank != 0) last_vblank_ns_ = earliest;
    in_flight_.reset();
    if (trace_ != nullptr) {
      if (track_ == 0) track_ = trace_->track(std::string("render loop ") + output_->name);
      trace_->instant(track_, "latch (nothing to show)", now);
    }
  }
}

bool RenderLoop::tearing_latch() const {
  return immediate_ && latch_timer_ && last_vsync_ns_ != 0 && budget_.refresh_ns() > 0;
}

void RenderLoop::latch_after(int64_t when) {
  // fifo-v1 clears a barrier "immediately after the following latching
  // deadline for non-tearing presentation". A torn frame flips whenever it
  // is ready, so while tearing a frame latches at the first deadline of the
  // refresh grid of the last vsynced flip after it went on screen: a FIFO
  // client never has two updates shown in one refresh cycle.
  if (!tearing_latch()) {
    latched.emit();
    return;
  }
  const int64_t deadline = next_vblank_after(last_vsync_ns_, budget_.refresh_ns(), when);
  // A deadline armed already and not before this one latches this frame too.
  if (latch_timer_->armed() && latch_timer_->when() >= deadline) return;
  latch_timer_->arm_at(deadline);
}

void RenderLoop::committed(bool ok, bool waited_for_render) {
  if (!in_flight_ || in_flight_->committed) return;
  if (!ok) {
    in_flight_.reset();
    if (tearing_latch()) latch_after(monotonic_ns());  // nothing will flip
    return;
  }
  in_flight_->committed = true;
  in_flight_->committed_ns = monotonic_ns();
  in_flight_->latch_at_flip = tearing_latch();
  in_flight_->waited_for_render = waited_for_render;
  in_flight_->commit_seq = output_->commit_seq;
  flip_pending_ = true;
}

void RenderLoop::presented(const wlr_output_event_present& event) {
  // Only the present event of the frame in flight tells how that frame did
  // (a nested output may already have rendered the next one).
  const bool ours =
      in_flight_ && in_flight_->committed && in_flight_->commit_seq == event.commit_seq;
  // A repeat's flip while a frame waits to commit (that frame's own flip is
  // not pending yet).
  const bool repeat = repeat_commit_seq_ && event.commit_seq == *repeat_commit_seq_;
  if (ours || !in_flight_ || (repeat && !in_flight_->committed)) flip_pending_ = false;
  if (event.presented) {
    const int64_t when = int64_t{event.when.tv_sec} * 1'000'000'000 + event.when.tv_nsec;
    last_present_ns_ = when;
    last_vblank_ns_ = when;
    real_vblank_ = (event.flags & WLR_OUTPUT_PRESENT_VSYNC) != 0 && event.refresh > 0;
    if (real_vblank_) last_vsync_ns_ = when;
    if (event.refresh > 0) budget_.set_refresh(event.refresh);
    if (vrr_) {
      // How long the last repeat took from its due time to its flip: the
      // longest of recent ones counts, older ones fading.
      if (repeat_due_ns_ != 0 && when > repeat_due_ns_)
        repeat_latency_ns_ = std::max(when - repeat_due_ns_, repeat_latency_ns_ * 255 / 256);
      repeat_due_ns_ = 0;
      arm_repeat(when);
    }
    if (ours) {
      InFlight frame = *in_flight_;
      in_flight_.reset();
      if (frame.latch_at_flip) latch_after(when);
      int64_t cost = frame.committed_ns - frame.planned_start_ns;
      if (!frame.waited_for_render && scene_timer_.render_timer != nullptr) {
        const int64_t gpu = vulkan::render_timer_duration_if_done(scene_timer_.render_timer);
        if (gpu > 0) cost += gpu;
      }
      budget_.sample(cost);
      bool missed = false;
      if (frame.timing.vblank_ns != 0) {
        missed = when > frame.timing.vblank_ns + budget_.refresh_ns() / 2;
        if (missed) {
          ++counts_.missed;
          budget_.missed_vblank();
        } else {
          ++counts_.made;
          budget_.made_vblank();
        }
      }
      trace_frame(frame, when, missed);
    }
  } else if (ours) {
    const bool latch = in_flight_->latch_at_flip;
    in_flight_.reset();
    if (latch) latch_after(monotonic_ns());
  }
  if (std::exchange(wanted_, false)) wlr_output_schedule_frame(output_);
}

void RenderLoop::request_latch() {
  // From a surface commit: never render inside it; the frame event comes
  // from an idle callback (or after the pending flip).
  wlr_output_schedule_frame(output_);
}

void RenderLoop::plan_for(int64_t target_ns) {
  if (!timer_) {
    wlr_output_schedule_frame(output_);
    return;
  }
  if (target_ns_ && *target_ns_ <= target_ns) return;  // an earlier one is planned
  target_ns_ = target_ns;
  const int64_t now = monotonic_ns();
  int64_t start = target_ns;
  int64_t vblank = 0;
  if (paced()) {
    vblank = std::max(first_vblank_not_before(last_present_ns_, budget_.refresh_ns(), target_ns),
                      next_vblank(now, true));
    start = vblank - lead_ns();
  }
  if (timer_->armed() && timer_->when() <= start) return;  // an earlier frame re-plans
  if (start <= now && !flip_pending_ && !rendering_) {
    wlr_output_schedule_frame(output_);
    return;
  }
  timer_vblank_ = vblank;
  timer_->arm_at(start);
}

void RenderLoop::frame_dropped() {
  in_flight_.reset();
  flip_pending_ = false;
}

void RenderLoop::renderer_changed() {
  // The timer's queries belonged to the old device, which gave them back
  // when it went: destroying the timer now frees only the timer.
  wlr_scene_timer_finish(&scene_timer_);
  scene_timer_ = {};
  frame_dropped();
}

void RenderLoop::trace_frame(const InFlight& frame, int64_t presented_ns, bool missed) {
  if (trace_ == nullptr) return;
  if (track_ == 0) track_ = trace_->track(std::string("render loop ") + output_->name);
  const FrameTiming& t = frame.timing;
  std::string args = "\"prediction_ms\":" + ms(budget_.prediction_ns()) +
                     ",\"margin_ms\":" + ms(budget_.margin_ns()) +
                     ",\"render_ms\":" + ms(frame.committed_ns - t.start_ns);
  if (t.vblank_ns != 0) args += ",\"deadline_vblank_ms\":" + ms(t.vblank_ns - t.start_ns);
  trace_->span(track_, missed ? "MISSED render" : "render", t.start_ns, frame.committed_ns, args);
  if (t.vblank_ns != 0) trace_->instant(track_, "deadline", t.vblank_ns);
  // Not named "flip": the output's own track has those (one per flip).
  trace_->instant(track_, missed ? "on screen, its vblank missed" : "on screen", presented_ns);
}

}  // namespace baton
