// Keeps a built output frame waiting until it may be committed, then commits it, so that nothing in
// the frame path waits on the CPU:
// - with a wait point (render-done, which KMS takes as IN_FENCE_FD) the
//   commit goes once the point exists (at once on GPUs that export a pending
//   fence; from the event loop on lavapipe, whose render-done is signalled
//   there);
// - where the driver refused IN_FENCE_FD (NVIDIA before 560 answers EPERM),
//   the loop waits for render-done to signal and the frame is committed
//   without the in-fence, logged once;
// - a slot whose consumer takes no fence (a wl_shm parent, KMS without
//   timelines) is committed once the GPU finished it.
// Every vsynced commit on a DRM output with timelines asks for OUT_FENCE_PTR:
// the out-fence of commit N is the reuse fence of the slot of commit N-1.
// A tearing frame is an async page flip that keeps its IN_FENCE_FD (Linux
// 6.12 allows it on the primary plane) and carries no OUT_FENCE_PTR (which
// an async flip may not): the slot it replaces is let go by the flip. Each
// kind of frame is tested once (TEST_ONLY); a refused kind flips at vblank,
// the refusal logged once.
// A client buffer scanned out directly carries its acquire fence (if it has
// not signalled yet) as IN_FENCE_FD, with the same fallbacks.
// The scene counts a commit's damage as delivered when it is committed; what
// the scene damages while a frame waits is kept for the next commit.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/event_source.hpp"
#include "util/idle_call.hpp"
#include "util/listener.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton {

class Trace;

class FrameCommitter {
 public:
  struct Counts {
    uint64_t in_fence = 0;             // committed with render-done as IN_FENCE_FD
    uint64_t loop_waited = 0;          // committed after the loop waited for render-done
    uint64_t point_waited = 0;         // waited (in the loop) for the wait point to exist
    uint64_t out_fences = 0;           // out-fences handed to the slot they release
    uint64_t direct = 0;               // frames that scanned out a client buffer (no composition)
    uint64_t acquire_in_fence = 0;     // of those, with the client's acquire fence as IN_FENCE_FD
    uint64_t acquire_loop_waited = 0;  // of those, after the loop waited for that fence
    bool in_fence_refused = false;
    // In-fences (render-done or a client's acquire fence) against the flips
    // that waited for them: still pending when committed, and how the flip
    // time compares with the fence's signal time (the kernel's timestamp).
    uint64_t in_fence_pending = 0;         // not yet signalled when the commit went
    uint64_t flips_timed = 0;              // flips of commits that carried one
    uint64_t flips_fence_unsignalled = 0;  // of those, reported with the fence still pending
    uint64_t flips_stamped_before = 0;     // of those, stamped before the fence's signal time
    int64_t least_gap_ns = INT64_MAX;      // flip time - fence signal time, over the flips
    int64_t most_before_ns = 0;            // the largest amount a flip's stamp preceded its fence
    // Tearing: frames committed as async page flips, and frames that asked
    // to tear but flipped at vblank because the kernel refused their kind.
    uint64_t async_flips = 0;
    uint64_t async_in_fence = 0;          // of those, carrying IN_FENCE_FD
    uint64_t async_in_fence_pending = 0;  // of those, the fence still pending when committed
    uint64_t async_refused = 0;
  };

  /// With `trace`, each frame's story is recorded on the output's track.
  FrameCommitter(wlr_output* output, wl_event_loop* loop, Trace* trace = nullptr);
  ~FrameCommitter();
  FrameCommitter(const FrameCommitter&) = delete;
  FrameCommitter& operator=(const FrameCommitter&) = delete;

  /// The scene output whose frames this commits: its undelivered damage is
  /// kept right across waiting frames.
  void set_scene_output(wlr_scene_output* scene_output) { scene_output_ = scene_output; }
  /// A frame waits (built, not committed yet): build no other.
  [[nodiscard]] bool has_waiting_frame() const { return waiting_ != nullptr; }
  /// The scene has damage no commit delivered yet.
  [[nodiscard]] bool scene_damaged() const;
  /// The state to build the next frame into; then call commit().
  wlr_output_state& start();
  /// Commits the started frame now or once it may be; `async` asks for a
  /// tearing flip (kept only where the backend takes it). `committed(ok)`
  /// runs after the commit, from this call or from the loop.
  void commit(bool async, std::function<void(bool ok, bool async)> committed);
  /// Forgets a waiting frame (the renderer was rebuilt, the session paused).
  void drop();
  /// A flip this committer did not make (a VRR repeat, commit `commit_seq`)
  /// is on its way: the kernel takes one flip at a time, so a waiting frame
  /// commits once that one was presented.
  void hold_for_flip(uint32_t commit_seq);
  [[nodiscard]] const Counts& counts() const { return counts_; }

 private:
  struct Waiting;
  void advance();  // commits, or waits for what the commit needs first
  bool wait_point(uint32_t flags);
  // A directly scanned-out client buffer: its acquire fence, if pending,
  // becomes the commit's wait point.
  void wait_for_client_acquire();
  static void point_ready(wlr_drm_syncobj_timeline_waiter* waiter);
  void finish_commit();
  // Whether the kernel takes `state` as an async flip: a TEST_ONLY commit,
  // once per kind of frame (its buffer's format, modifier and size, and
  // whether it carries an in-fence); a refusal is logged once per output.
  bool async_flip_taken(wlr_output_state& state);
  void forget_async_test(const wlr_output_state& state);
  bool commit_keeping_damage(wlr_output_state& state);
  // Tracing: an instant on this output's track when `fence` signals.
  void trace_when_signalled(UniqueFd fence, std::string what);
  void trace_instant(const char* what, const std::string& args = {});

  // A presented commit that carried `fence`: compares the flip with it.
  void flip_presented(uint32_t commit_seq, int64_t when_ns);

  struct TracedFence {
    UniqueFd fd;
    std::unique_ptr<EventSource> watch;
    bool done = false;
  };

  wlr_output* output_;
  wlr_scene_output* scene_output_ = nullptr;
  wl_event_loop* loop_;
  std::unique_ptr<Waiting> waiting_;
  // hold_for_flip: the flip a waiting frame follows, and whether one is
  // ready and waits for it (committed from the loop once it was presented).
  std::optional<uint32_t> held_for_;
  bool commit_after_flip_ = false;
  IdleCall after_flip_;
  // OUT_FENCE_PTR: one point per commit on our own timeline of the KMS device.
  wlr_drm_syncobj_timeline* out_timeline_ = nullptr;
  uint64_t out_point_ = 0;
  // IN_FENCE_FD of direct scanout: client acquire fences, one point each.
  wlr_drm_syncobj_timeline* acquire_timeline_ = nullptr;
  uint64_t acquire_point_ = 0;
  wlr_buffer* on_screen_ = nullptr;  // locked: the buffer of the last commit
  Counts counts_;
  // Callbacks from the loop find out whether this (and which frame) lives.
  std::shared_ptr<FrameCommitter*> alive_;
  uint64_t sequence_ = 0;
  Trace* trace_;
  int track_ = 0;
  uint64_t commits_ = 0;  // numbers frames in the trace
  std::list<TracedFence> traced_fences_;
  // In-fences of commits not presented yet (bounded: a few frames queue).
  std::list<std::pair<uint32_t, UniqueFd>> in_fences_to_flip_;
  Listener<wlr_output_event_present> present_;
  struct AsyncFlipKind {
    uint32_t format = 0;
    uint64_t modifier = 0;
    int width = 0, height = 0;
    bool in_fence = false;
    bool operator==(const AsyncFlipKind&) const = default;
  };
  static AsyncFlipKind async_flip_kind(const wlr_output_state& state);
  std::vector<std::pair<AsyncFlipKind, bool>> async_tested_;  // kind, taken
  bool async_refusal_logged_ = false;
};

}  // namespace baton
