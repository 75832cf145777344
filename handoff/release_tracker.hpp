// The one owner of every release: when a client may have back a buffer
// baton showed. For each commit that brings a buffer, a ReleaseWatch keeps
// the client's dma-buf and owes its release point (linux-drm-syncobj), and
// pays both once the buffer is replaced, read and no longer scanned out
// (release_watch.hpp). The renderer keeps a client's dma-buf only while its
// texture lives; what its reads need after that is decided here.
#pragma once

#include <list>
#include <memory>

#include "handoff/release_point.hpp"
#include "renderer/gpu_reads.hpp"
#include "util/buffer_lock.hpp"
#include "util/listener.hpp"

struct wlr_buffer;
struct wlr_compositor;
struct wlr_surface;

namespace baton {

class ReleaseWatch;

class ReleaseTracker {
 public:
  /// Watches every commit of `compositor`'s surfaces (null: only what is
  /// handed in, for tests). `gpu` says when the GPU's reads of a texture
  /// are done.
  ReleaseTracker(wlr_compositor* compositor, std::unique_ptr<GpuReadsWatch> gpu);
  /// What is still owed is paid: the GPU's reads are waited for (bounded),
  /// since nothing reads a buffer again once baton goes.
  ~ReleaseTracker();
  ReleaseTracker(const ReleaseTracker&) = delete;
  ReleaseTracker& operator=(const ReleaseTracker&) = delete;

  /// Signals `point` once `in_use` (the client buffer holding the commit's
  /// texture) is done with; at once when null (the commit was never read).
  void release_point_when_done(wlr_buffer* in_use, ReleasePoint point);
  /// Keeps `held` locked until `in_use` is replaced and read (each commit
  /// of a client dma-buf does this with its buffer).
  void hold_until_done(wlr_buffer* in_use, BufferLock held);
  /// Watches not paid yet (tests).
  [[nodiscard]] size_t pending() const { return watches_.size(); }

  // For the watches.
  [[nodiscard]] GpuReadsWatch& gpu() { return *gpu_; }
  void paid(ReleaseWatch& watch);
  void count_point(bool with_fence) { ++(with_fence ? points_with_fence_ : points_signalled_); }
  void count_early_dmabuf() { ++dmabufs_back_fenced_; }

 private:
  ReleaseWatch& watch_for(wlr_buffer* in_use);
  void surface_committed(wlr_surface* surface);

  // Before the watches: they ask it for their reads while they live.
  std::unique_ptr<GpuReadsWatch> gpu_;
  uint64_t points_with_fence_ = 0, points_signalled_ = 0, dmabufs_back_fenced_ = 0;
  std::list<std::unique_ptr<ReleaseWatch>> watches_;
  struct SurfaceHooks {
    Listener<void> commit, destroy;
  };
  std::list<SurfaceHooks> surfaces_;
  Listener<wlr_surface> new_surface_;
};

}  // namespace baton
