// What a commit's buffer must wait for before it is read:
//  - explicit sync: the linux-drm-syncobj-v1 acquire point has signalled
//    (DRM_IOCTL_SYNCOBJ_EVENTFD with flags 0 also covers a point whose fence
//    has not been submitted yet), or, latching at materialization, merely
//    has a fence (which then becomes the dma-buf's implicit write fence, for
//    the render to wait for on the GPU);
//  - implicit sync: the sync_file of the dma-buf's writers
//    (DMA_BUF_IOCTL_EXPORT_SYNC_FILE, read access) has signalled.
// A commit whose acquire point baton cannot watch is a protocol error: it is
// never let through unwaited.
#pragma once

#include "handoff/commit_wait.hpp"

namespace baton {

class ExplicitSync;

class BufferFences final : public CommitWaits {
 public:
  /// `explicit_sync` may be null (none advertised); it must outlive this.
  BufferFences(ExplicitSync* explicit_sync, Latch latch);
  [[nodiscard]] std::optional<CommitWait> wait_of(wlr_surface* surface) override;

 private:
  ExplicitSync* explicit_sync_;
  Latch latch_;
};

}  // namespace baton
