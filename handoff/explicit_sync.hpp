// What the readiness gate asks of explicit synchronization: the acquire and
// release points of the commit a surface is making. linux-drm-syncobj-v1
// (protocols/) answers; the gate does not know the protocol.
#pragma once

#include <cstdint>
#include <memory>

#include "sync/timeline.hpp"

struct wlr_surface;

namespace baton {

/// The points one commit carries.
struct SyncobjPoints {
  std::shared_ptr<sync::Timeline> acquire_timeline;
  uint64_t acquire_point = 0;
  std::shared_ptr<sync::Timeline> release_timeline;
  uint64_t release_point = 0;
};

/// A surface's commit, as explicit sync sees it.
struct PendingCommit {
  enum class Sync {
    implicit,  // the surface has no explicit-sync object: its dma-buf's fences apply
    rejected,  // the commit broke the protocol; the client got a protocol error
    points,    // the commit carries `points` (no acquire timeline: no buffer attached)
  };
  Sync sync = Sync::implicit;
  const SyncobjPoints* points = nullptr;
};

class ExplicitSync {
 public:
  virtual ~ExplicitSync() = default;
  /// Checks and returns the commit `surface` is making, from inside its
  /// client_commit signal.
  [[nodiscard]] virtual PendingCommit pending_commit(wlr_surface* surface) = 0;
};

}  // namespace baton
