#include "compositor/output/frame_committer.hpp"

#include <xf86drm.h>

#include <algorithm>
#include <cstddef>

#include "handoff/acquire_fence.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "sync/sync_file.hpp"
#include "util/log.hpp"
#include "util/trace.hpp"
#include "util/unique_fd.hpp"

namespace baton {

// A wlroots waiter on a timeline point and the fence it resumes. Standard
// layout: the callback gets the address of the first member.
struct PointWaiter {
  wlr_drm_syncobj_timeline_waiter waiter;
  FrameCommitter* owner;
};
static_assert(offsetof(PointWaiter, waiter) == 0);

struct FrameCommitter::Waiting {
  wlr_output_state state{};
  bool async = false;
  bool rendered = false;        // the GPU finished a fenceless slot
  bool loop_waited = false;     // the loop waited for render-done
  bool point_waited = false;    // the loop waited for the wait point to exist
  bool retried = false;         // the commit with the in-fence failed once
  bool client_acquire = false;  // the wait point is a scanned-out client's acquire fence
  int64_t started_ns = 0;       // traced: composing began
  int64_t built_ns = 0;         // traced: the frame was built (render submitted)
  std::function<void(bool, bool)> committed;
  std::unique_ptr<PointWaiter> waiter;  // armed while waiting for a point

  Waiting() { wlr_output_state_init(&state); }
  ~Waiting() {
    stop_waiting();
    wlr_output_state_finish(&state);
  }
  Waiting(const Waiting&) = delete;
  Waiting& operator=(const Waiting&) = delete;
  void stop_waiting() {
    if (waiter) wlr_drm_syncobj_timeline_waiter_finish(&waiter->waiter);
    waiter.reset();
  }
};

FrameCommitter::FrameCommitter(wlr_output* output, wl_event_loop* loop, Trace* trace)
    : output_(output),
      loop_(loop),
      after_flip_(loop,
                  [this] {
                    if (waiting_ && std::exchange(commit_after_flip_, false)) finish_commit();
                  }),
      alive_(std::make_shared<FrameCommitter*>(this)),
      trace_(trace) {
  if (trace_ != nullptr) track_ = trace_->track(std::string("output ") + output->name);
  present_.connect(&output->events.present, [this](wlr_output_event_present* event) {
    // After the present event's other listeners, and wlroots' frame event.
    if (held_for_ && event->commit_seq == *held_for_) {
      held_for_.reset();
      if (commit_after_flip_) after_flip_.schedule();
    }
    if (!event->presented) return;
    const int64_t when = int64_t{event->when.tv_sec} * 1'000'000'000 + event->when.tv_nsec;
    if (trace_ != nullptr)
      trace_->instant(track_, "flip", when, "\"commit\":" + std::to_string(event->commit_seq));
    flip_presented(event->commit_seq, when);
  });
  // Our own timeline on the KMS device for the out-fences (the scene's is
  // for render-done); only DRM backends with syncobj timelines take one.
  if (wlr_output_is_drm(output) && output->backend->features.timeline) {
    const int drm_fd = wlr_backend_get_drm_fd(output->backend);
    if (drm_fd >= 0) {
      out_timeline_ = wlr_drm_syncobj_timeline_create(drm_fd);
      acquire_timeline_ = wlr_drm_syncobj_timeline_create(drm_fd);
    }
    if (out_timeline_ == nullptr)
      LOG_ERROR("output %s: no timeline for out-fences; slots are released by the flip",
                output->name);
    if (acquire_timeline_ == nullptr)
      LOG_ERROR(
          "output %s: no timeline for client acquire fences; a client buffer is "
          "scanned out without waiting for one",
          output->name);
  }
}

FrameCommitter::~FrameCommitter() {
  waiting_.reset();
  traced_fences_.clear();
  if (on_screen_ != nullptr) wlr_buffer_unlock(on_screen_);
  wlr_drm_syncobj_timeline_unref(out_timeline_);
  wlr_drm_syncobj_timeline_unref(acquire_timeline_);
  if (counts_.in_fence + counts_.loop_waited + counts_.out_fences + counts_.direct > 0)
    // tests grep this line: tests/vm/baton_drm_test.sh, tests/vm/release_poison_test.sh (numbers
    // read by position)
    LOG_INFO(
        "output %s: %llu commits carried render-done as %s (%llu waited in the event "
        "loop for it to exist), %llu were committed after the event loop waited for render-done, "
        "%llu out-fences released slots%s; %llu frames scanned out a client buffer directly "
        "(%llu with the client's acquire fence as IN_FENCE_FD, %llu after the event loop "
        "waited for it)",
        output_->name, static_cast<unsigned long long>(counts_.in_fence),
        wlr_output_is_drm(output_) ? "IN_FENCE_FD" : "the parent's acquire point",
        static_cast<unsigned long long>(counts_.point_waited),
        static_cast<unsigned long long>(counts_.loop_waited),
        static_cast<unsigned long long>(counts_.out_fences),
        counts_.in_fence_refused ? " (the driver refused IN_FENCE_FD)" : "",
        static_cast<unsigned long long>(counts_.direct),
        static_cast<unsigned long long>(counts_.acquire_in_fence),
        static_cast<unsigned long long>(counts_.acquire_loop_waited));
  if (counts_.async_flips + counts_.async_refused > 0)
    // tests grep this line: tests/vm/tearing_test.sh
    LOG_INFO(
        "output %s: %llu async (tearing) page flips, %llu with IN_FENCE_FD (%llu of those still "
        "pending when committed); %llu frames that asked to tear flipped at vblank",
        output_->name, static_cast<unsigned long long>(counts_.async_flips),
        static_cast<unsigned long long>(counts_.async_in_fence),
        static_cast<unsigned long long>(counts_.async_in_fence_pending),
        static_cast<unsigned long long>(counts_.async_refused));
  if (counts_.in_fence + counts_.acquire_in_fence > 0)
    // tests grep this line: tests/vm/late_gpu_test.sh (numbers read by position)
    LOG_INFO(
        "output %s: %llu in-fences were still pending when committed; %llu flips of commits "
        "with one: %llu reported while it was still pending, %llu stamped before its signal "
        "time (by at most %.3f ms); flip minus fence signal time at least %.3f ms",
        output_->name, static_cast<unsigned long long>(counts_.in_fence_pending),
        static_cast<unsigned long long>(counts_.flips_timed),
        static_cast<unsigned long long>(counts_.flips_fence_unsignalled),
        static_cast<unsigned long long>(counts_.flips_stamped_before),
        static_cast<double>(counts_.most_before_ns) / 1e6,
        counts_.least_gap_ns == INT64_MAX ? 0.0 : static_cast<double>(counts_.least_gap_ns) / 1e6);
}

void FrameCommitter::flip_presented(uint32_t commit_seq, int64_t when_ns) {
  while (!in_fences_to_flip_.empty() && in_fences_to_flip_.front().first <= commit_seq) {
    auto [seq, fence] = std::move(in_fences_to_flip_.front());
    in_fences_to_flip_.pop_front();
    if (seq != commit_seq) continue;  // a commit with no flip of its own
    ++counts_.flips_timed;
    auto signalled = sync::SyncFile(std::move(fence)).signalled_at();
    if (!signalled || !*signalled) {
      // The flip was reported with its in-fence pending: KMS did not wait.
      ++counts_.flips_fence_unsignalled;
      continue;
    }
    // The flip's stamp is the vblank's: after the fence where the driver
    // latches a flip at the vblank after the commit, as hardware does (plain
    // vkms may stamp a late timer's due time, before a commit it latched).
    const int64_t gap = when_ns - **signalled;
    counts_.least_gap_ns = std::min(counts_.least_gap_ns, gap);
    if (gap < 0) {
      ++counts_.flips_stamped_before;
      counts_.most_before_ns = std::max(counts_.most_before_ns, -gap);
    }
  }
}

wlr_output_state& FrameCommitter::start() {
  waiting_ = std::make_unique<Waiting>();
  ++sequence_;
  if (trace_ != nullptr) waiting_->started_ns = Trace::now();
  return waiting_->state;
}

void FrameCommitter::trace_instant(const char* what, const std::string& args) {
  if (trace_ != nullptr) trace_->instant(track_, what, Trace::now(), args);
}

void FrameCommitter::trace_when_signalled(UniqueFd fence, std::string what) {
  // Bounded: fences of frames long gone are not worth holding fds for.
  traced_fences_.remove_if([](const TracedFence& f) { return f.done; });
  if (!fence || traced_fences_.size() >= 16) return;
  if (readable_now(fence.get())) {
    trace_instant(what.c_str(), "\"already\":true");
    return;
  }
  traced_fences_.push_back({std::move(fence), nullptr, false});
  TracedFence& traced = traced_fences_.back();
  traced.watch = EventSource::fd(loop_, traced.fd.get(), WL_EVENT_READABLE,
                                 [this, &traced, what = std::move(what)](uint32_t) {
                                   trace_instant(what.c_str());
                                   // Freed with the next one: not inside its own callback.
                                   traced.watch->reset();
                                   traced.done = true;
                                 });
  if (!traced.watch) traced.done = true;
}

namespace {

// The scene's damage not yet delivered by a commit. wlroots 0.19 keeps it
// private; the scene drops a commit's damage from it when the commit lands.
pixman_region32_t& undelivered_damage(wlr_scene_output* scene_output) {
  return scene_output->WLR_PRIVATE.pending_commit_damage;
}

}  // namespace

bool FrameCommitter::scene_damaged() const {
  return scene_output_ != nullptr &&
         pixman_region32_not_empty(&undelivered_damage(scene_output_)) != 0;
}

void FrameCommitter::drop() {
  // The dropped frame's damage was never delivered: the next frame carries it.
  if (waiting_ && scene_output_ != nullptr &&
      (waiting_->state.committed & WLR_OUTPUT_STATE_DAMAGE) != 0)
    pixman_region32_union(&undelivered_damage(scene_output_), &undelivered_damage(scene_output_),
                          &waiting_->state.damage);
  waiting_.reset();
  // A flip held for may never be presented now (the session paused).
  held_for_.reset();
  commit_after_flip_ = false;
}

void FrameCommitter::hold_for_flip(uint32_t commit_seq) { held_for_ = commit_seq; }

void FrameCommitter::commit(bool async, std::function<void(bool ok, bool async)> committed) {
  if (trace_ != nullptr) {
    waiting_->built_ns = Trace::now();
    trace_->span(track_, "compose and submit", waiting_->started_ns, waiting_->built_ns);
  }
  waiting_->async = async;
  waiting_->committed = std::move(committed);
  // The built state carries the damage so far; from here the scene's
  // undelivered damage is what arrives while this frame is waiting.
  if (scene_output_ != nullptr) pixman_region32_clear(&undelivered_damage(scene_output_));
  wait_for_client_acquire();
  advance();
}

void FrameCommitter::wait_for_client_acquire() {
  wlr_output_state& state = waiting_->state;
  if (acquire_timeline_ == nullptr || (state.committed & WLR_OUTPUT_STATE_BUFFER) == 0 ||
      (state.committed & WLR_OUTPUT_STATE_WAIT_TIMELINE) != 0)
    return;
  if (output_->swapchain != nullptr && wlr_swapchain_has_buffer(output_->swapchain, state.buffer))
    return;  // a composited frame: the render waited for its clients
  auto kept = acquire_fence_of(state.buffer);
  if (!kept) {
    LOG_ERROR("output %s: the client's acquire fence: %s; scanning out unwaited", output_->name,
              kept.error().describe().c_str());
    return;
  }
  std::optional<sync::SyncFile>& fence = *kept;
  if (!fence) return;
  if (!wlr_drm_syncobj_timeline_import_sync_file(acquire_timeline_, ++acquire_point_,
                                                 fence->fd())) {
    LOG_ERROR("output %s: cannot hand a client's acquire fence to KMS; scanning out unwaited",
              output_->name);
    return;
  }
  wlr_output_state_set_wait_timeline(&state, acquire_timeline_, acquire_point_);
  waiting_->client_acquire = true;
}

// True when the point is there (per `check_flags`); else arms a waiter that
// resumes advance() from the loop and returns false.
bool FrameCommitter::wait_point(uint32_t flags) {
  Waiting& waiting = *waiting_;
  wlr_output_state& state = waiting.state;
  // A check needs WAIT_FOR_SUBMIT to look at a point not materialized yet;
  // the eventfd waiter takes only WAIT_AVAILABLE (or nothing: signalled).
  bool ready = false;
  const uint32_t check_flags = flags | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
  if (!wlr_drm_syncobj_timeline_check(state.wait_timeline, state.wait_point, check_flags, &ready))
    return true;  // logged by wlroots; the commit reports the failure
  if (ready) return true;
  waiting.waiter = std::make_unique<PointWaiter>();
  waiting.waiter->owner = this;
  if (!wlr_drm_syncobj_timeline_waiter_init(
          &waiting.waiter->waiter, state.wait_timeline, state.wait_point,
          flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE, loop_, &FrameCommitter::point_ready)) {
    waiting.waiter.reset();
    LOG_ERROR("output %s: cannot watch render-done; committing without waiting", output_->name);
    return true;
  }
  return false;
}

void FrameCommitter::point_ready(wlr_drm_syncobj_timeline_waiter* waiter) {
  // Waiting (and so this waiter) is gone before its FrameCommitter: the owner lives.
  FrameCommitter& self = *reinterpret_cast<PointWaiter*>(waiter)->owner;
  self.waiting_->stop_waiting();
  self.trace_instant("render-done point ready");
  self.advance();
}

void FrameCommitter::advance() {
  Waiting& waiting = *waiting_;
  wlr_output_state& state = waiting.state;
  const bool has_point = (state.committed & WLR_OUTPUT_STATE_WAIT_TIMELINE) != 0;
  if (has_point && (counts_.in_fence_refused || waiting.retried)) {
    // No IN_FENCE_FD: the loop waits for render-done to signal, then the
    // frame goes without the in-fence.
    if (!wait_point(0)) return;
    state.committed &= ~WLR_OUTPUT_STATE_WAIT_TIMELINE;
    wlr_drm_syncobj_timeline_unref(state.wait_timeline);
    state.wait_timeline = nullptr;
    waiting.loop_waited = true;
  } else if (has_point) {
    if (!wait_point(DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE)) {
      waiting.point_waited = true;
      return;
    }
  } else if (!waiting.rendered && (state.committed & WLR_OUTPUT_STATE_BUFFER) != 0) {
    std::weak_ptr<FrameCommitter*> alive = alive_;
    const uint64_t sequence = sequence_;
    if (vulkan::when_rendered(output_->renderer, state.buffer, [alive, sequence] {
          auto self = alive.lock();
          if (!self || (*self)->sequence_ != sequence || !(*self)->waiting_) return;
          (*self)->waiting_->rendered = true;
          (*self)->trace_instant("render done");
          (*self)->advance();
        })) {
      waiting.loop_waited = true;
      return;
    }
  }
  if (held_for_) {
    commit_after_flip_ = true;  // the flip on its way first (hold_for_flip)
    return;
  }
  finish_commit();
}

FrameCommitter::AsyncFlipKind FrameCommitter::async_flip_kind(const wlr_output_state& state) {
  AsyncFlipKind kind;
  kind.width = state.buffer->width;
  kind.height = state.buffer->height;
  kind.in_fence = (state.committed & WLR_OUTPUT_STATE_WAIT_TIMELINE) != 0;
  wlr_dmabuf_attributes attribs{};
  if (wlr_buffer_get_dmabuf(state.buffer, &attribs)) {
    kind.format = attribs.format;
    kind.modifier = attribs.modifier;
  }
  return kind;
}

bool FrameCommitter::async_flip_taken(wlr_output_state& state) {
  const AsyncFlipKind kind = async_flip_kind(state);
  for (const auto& [tested, taken] : async_tested_)
    if (tested == kind) return taken;
  state.tearing_page_flip = true;
  const bool taken = wlr_output_test_state(output_, &state);
  state.tearing_page_flip = false;
  if (async_tested_.size() >= 8) async_tested_.erase(async_tested_.begin());
  async_tested_.emplace_back(kind, taken);
  if (!taken && !std::exchange(async_refusal_logged_, true))
    // tests grep this line: tests/vm/tearing_test.sh
    LOG_INFO(
        "output %s: the kernel refused an async (tearing) page flip of a %dx%d buffer, format "
        "%#x, modifier %#llx, %s IN_FENCE_FD (a TEST_ONLY commit failed; the driver may not "
        "take async flips, or not this kind); such frames flip at vblank",
        output_->name, kind.width, kind.height, kind.format,
        static_cast<unsigned long long>(kind.modifier), kind.in_fence ? "with" : "without");
  return taken;
}

void FrameCommitter::forget_async_test(const wlr_output_state& state) {
  const AsyncFlipKind kind = async_flip_kind(state);
  std::erase_if(async_tested_, [&](const auto& tested) { return tested.first == kind; });
}

bool FrameCommitter::commit_keeping_damage(wlr_output_state& state) {
  if (scene_output_ == nullptr) return wlr_output_commit_state(output_, &state);
  // The scene subtracts this commit's damage from its undelivered damage,
  // which would also drop what was damaged again while the frame waited
  // (a window mapped over the region this frame repainted): keep that.
  pixman_region32_t arrived_while_waiting;
  pixman_region32_init(&arrived_while_waiting);
  pixman_region32_copy(&arrived_while_waiting, &undelivered_damage(scene_output_));
  const bool ok = wlr_output_commit_state(output_, &state);
  pixman_region32_t& undelivered = undelivered_damage(scene_output_);
  pixman_region32_union(&undelivered, &undelivered, &arrived_while_waiting);
  pixman_region32_fini(&arrived_while_waiting);
  return ok;
}

void FrameCommitter::finish_commit() {
  Waiting& waiting = *waiting_;
  wlr_output_state& state = waiting.state;
  const bool buffer = (state.committed & WLR_OUTPUT_STATE_BUFFER) != 0;
  // An async flip carries its in-fence but no OUT_FENCE_PTR (Linux refuses
  // it in one); the slot it replaces is let go by the flip itself.
  const bool tear = waiting.async && buffer && async_flip_taken(state);
  state.tearing_page_flip = tear;
  if (buffer && out_timeline_ != nullptr && !tear)
    wlr_output_state_set_signal_timeline(&state, out_timeline_, ++out_point_);
  const bool in_fence = (state.committed & WLR_OUTPUT_STATE_WAIT_TIMELINE) != 0;
  if (trace_ != nullptr && waiting.built_ns != 0 && (waiting.point_waited || waiting.loop_waited))
    trace_->span(track_, "waiting for render-done", waiting.built_ns, Trace::now());
  // The in-fence as KMS gets it: whether it is still pending, and later
  // when it signalled against when the flip came.
  UniqueFd in_fence_fd;
  if (in_fence)
    in_fence_fd =
        UniqueFd(wlr_drm_syncobj_timeline_export_sync_file(state.wait_timeline, state.wait_point));
  const bool in_fence_pending = in_fence_fd && !readable_now(in_fence_fd.get());
  // Traced: when render-done (the in-fence) signals, seen from here.
  if (trace_ != nullptr && in_fence_fd)
    if (auto traced = in_fence_fd.duplicate(); traced)
      trace_when_signalled(std::move(*traced), waiting.client_acquire
                                                   ? "client acquire fence (in-fence) signalled"
                                                   : "render done (in-fence signalled)");
  const bool ok = commit_keeping_damage(state);
  if (trace_ != nullptr)
    trace_instant(ok ? "output commit" : "commit failed",
                  "\"frame\":" + std::to_string(++commits_) +
                      ",\"in_fence\":" + (in_fence ? "true" : "false") +
                      ",\"out_fence\":" + (out_timeline_ != nullptr && buffer ? "true" : "false") +
                      ",\"async\":" + (state.tearing_page_flip ? "true" : "false"));
  if (!ok && tear) {
    // Refused although its kind passed the test (a change an async flip may
    // not carry): the same frame at vblank, and the kind is tested again.
    forget_async_test(state);
    waiting.async = false;
    state.tearing_page_flip = false;
    advance();
    return;
  }
  if (!ok && in_fence) {
    // Drivers that refuse IN_FENCE_FD fail the whole commit: the same frame
    // once more without it, after render-done signalled.
    waiting.retried = true;
    advance();
    return;
  }
  if (ok && waiting.retried && !counts_.in_fence_refused) {
    counts_.in_fence_refused = true;
    // tests grep this line: tests/vm/baton_drm_test.sh
    LOG_INFO(
        "output %s: a commit with IN_FENCE_FD failed and the same frame "
        "without it succeeded: the driver refuses in-fences (as NVIDIA's did before 560); "
        "from now on the event loop waits for the fence and commits without it",
        output_->name);
  }
  if (ok) {
    if (buffer && (output_->swapchain == nullptr ||
                   !wlr_swapchain_has_buffer(output_->swapchain, state.buffer)))
      ++counts_.direct;
    if (waiting.client_acquire) {
      ++(in_fence ? counts_.acquire_in_fence : counts_.acquire_loop_waited);
    } else {
      if (in_fence) ++counts_.in_fence;
      if (waiting.loop_waited) ++counts_.loop_waited;
    }
    if (waiting.point_waited) ++counts_.point_waited;
    if (in_fence && in_fence_pending) ++counts_.in_fence_pending;
    if (tear) {
      ++counts_.async_flips;
      if (in_fence) ++counts_.async_in_fence;
      if (in_fence && in_fence_pending) ++counts_.async_in_fence_pending;
    } else if (waiting.async && buffer) {
      ++counts_.async_refused;
    }
    if (in_fence_fd && wlr_output_is_drm(output_)) {
      if (in_fences_to_flip_.size() >= 8) in_fences_to_flip_.pop_front();
      in_fences_to_flip_.emplace_back(output_->commit_seq, std::move(in_fence_fd));
    }
    if (buffer && out_timeline_ != nullptr) {
      // The out-fence of this commit signals when its frame is on screen:
      // then the previous frame's slot is no longer read. An async flip has
      // none: the previous slot stays locked by the backend until the flip.
      UniqueFd out_fence;
      if (!tear)
        out_fence = UniqueFd(wlr_drm_syncobj_timeline_export_sync_file(out_timeline_, out_point_));
      if (out_fence && trace_ != nullptr)
        if (auto traced = out_fence.duplicate(); traced)
          trace_when_signalled(std::move(*traced), "out-fence signalled (frame " +
                                                       std::to_string(commits_) + " on screen)");
      if (out_fence && on_screen_ != nullptr) {
        vulkan::slot_set_reuse_fence(on_screen_, std::move(out_fence));
        ++counts_.out_fences;
      }
      if (on_screen_ != nullptr) wlr_buffer_unlock(on_screen_);
      on_screen_ = wlr_buffer_lock(state.buffer);
    }
  }
  const bool async = state.tearing_page_flip;
  std::function<void(bool, bool)> committed = std::move(waiting.committed);
  if (ok)
    waiting_.reset();
  else
    drop();  // its damage goes to the next frame
  if (committed) committed(ok, async);
}

}  // namespace baton
