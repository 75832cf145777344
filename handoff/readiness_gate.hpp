// The readiness gate: a surface commit that carries a dma-buf is held
// (wlr_surface_lock_pending) until the buffer is really ready to be read:
//  - explicit sync: the linux-drm-syncobj-v1 acquire point has signalled
//    (DRM_IOCTL_SYNCOBJ_EVENTFD with flags 0 also covers a point whose fence
//    has not been submitted yet);
//  - implicit sync: the sync_file of the dma-buf's writers
//    (DMA_BUF_IOCTL_EXPORT_SYNC_FILE, read access) has signalled.
// Every wait is an fd in the event loop, never a blocking call. While a
// commit is held the surface keeps showing its previous buffer; later
// commits of that surface queue behind it; no other surface notices.
// A client may have kMaxHeldPerClient commits held at once: one more is a
// protocol error, as is a commit whose fence baton cannot watch (it is never
// let through unwaited).
#pragma once

#include <chrono>
#include <list>
#include <map>
#include <memory>

#include "util/event_source.hpp"
#include "util/listener.hpp"

struct wl_client;
struct wl_event_loop;
struct wlr_compositor;
struct wlr_surface;

namespace baton {

class ExplicitSync;
class Trace;

class ReadinessGate {
 public:
  /// `explicit_sync` may be null (none advertised); it must outlive
  /// the gate. A held commit is logged once after `stuck_after`.
  /// How long a commit is held: until its buffer is ready (baton), or only
  /// until its acquire fence exists, the render then waiting for it on the
  /// GPU (wlroots' latch at materialization; for comparisons only).
  enum class Latch { when_ready, at_materialize };
  /// With `trace`, each held commit is a span on its surface's track.
  ReadinessGate(wl_event_loop* loop, wlr_compositor* compositor, ExplicitSync* explicit_sync,
                std::chrono::milliseconds stuck_after = std::chrono::milliseconds(1000),
                Trace* trace = nullptr, Latch latch = Latch::when_ready);
  ~ReadinessGate();
  ReadinessGate(const ReadinessGate&) = delete;
  ReadinessGate& operator=(const ReadinessGate&) = delete;

  /// Commits held now, over all surfaces (tests).
  [[nodiscard]] size_t held() const;
  /// Commits that were held and then let through (tests, logs).
  [[nodiscard]] uint64_t let_through() const { return let_through_; }
  /// Commits one client may have held at once, over all its surfaces.
  static constexpr size_t kMaxHeldPerClient = 64;

 private:
  class SurfaceGate;
  friend class SurfaceGate;

  wl_event_loop* loop_;
  ExplicitSync* explicit_sync_;
  std::chrono::milliseconds stuck_after_;
  Trace* trace_;
  Latch latch_;
  uint64_t let_through_ = 0;
  std::map<wl_client*, size_t> held_per_client_;
  std::list<std::unique_ptr<SurfaceGate>> surfaces_;
  Listener<wlr_surface> new_surface_;
};

}  // namespace baton
