// A soak member drawing through linux-drm-syncobj-v1: memfd-backed dma-bufs
// from the fake dma-buf global, acquire and release points on timelines of
// the fake syncobj device (tests/support/fake_syncobj.hpp), whose GPU this
// member plays. Most acquire points signal at once, some a few ticks later,
// and some members' GPU hangs, so that they leave with commits held. pixman
// cannot read these dma-bufs, so baton releases each as soon as it applies
// (it never reads it); what the soak watches is that nothing of all this
// stays behind: baton's handles, waiters, held commits and fds.
#pragma once

#include <wayland-client.h>

#include <cstdint>
#include <deque>
#include <random>
#include <utility>

#include "tests/support/fake_syncobj.hpp"

struct wp_linux_drm_syncobj_manager_v1;
struct wp_linux_drm_syncobj_surface_v1;
struct wp_linux_drm_syncobj_timeline_v1;
struct zwp_linux_dmabuf_v1;

namespace baton::test {

class Harness;

/// Counted across every member.
struct ExplicitSyncCounts {
  int members = 0;
  int commits = 0;
  int acquires_signalled = 0;
  int releases_seen = 0;
  int hung_gpus = 0;
};

class SyncedDrawing {
 public:
  /// Binds the globals on `display` (a connection of `harness`) and makes
  /// `surface` explicitly synchronized; `hangs`: this member's GPU never
  /// finishes after its first few frames.
  SyncedDrawing(Harness& harness, wl_display* display, wl_surface* surface,
                ExplicitSyncCounts& counts, bool hangs);
  ~SyncedDrawing();
  SyncedDrawing(const SyncedDrawing&) = delete;
  SyncedDrawing& operator=(const SyncedDrawing&) = delete;

  /// Whether baton offered both globals (the soak fails when it did not).
  [[nodiscard]] bool ready() const { return surface_ != nullptr; }
  /// Commits a new `width`x`height` dma-buf with its points (at most a few
  /// ahead of the GPU).
  void draw(int width, int height);
  /// The GPU: finishes the oldest pending frames, unless it hung.
  void gpu(std::mt19937& random);
  /// Buffers whose release point signalled go back to the client (destroyed).
  void poll();

 private:
  friend struct SyncedDrawingListeners;
  ExplicitSyncCounts& counts_;
  wl_surface* window_surface_;
  bool hangs_;
  wl_registry* registry_ = nullptr;
  zwp_linux_dmabuf_v1* dmabuf_ = nullptr;
  wp_linux_drm_syncobj_manager_v1* manager_ = nullptr;
  wp_linux_drm_syncobj_surface_v1* surface_ = nullptr;
  FakeTimeline acquire_, release_;
  wp_linux_drm_syncobj_timeline_v1* acquire_proxy_ = nullptr;
  wp_linux_drm_syncobj_timeline_v1* release_proxy_ = nullptr;
  uint64_t last_point_ = 0;
  uint64_t last_signalled_ = 0;
  std::deque<std::pair<uint64_t, wl_buffer*>> in_use_;  // by release point
};

}  // namespace baton::test
