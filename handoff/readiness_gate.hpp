// The readiness gate: a surface commit that carries a buffer is held
// (wlr_surface_lock_pending) until what its CommitWaits names has signalled
// (BufferFences: its acquire point, or its dma-buf's implicit fence). Every
// wait is an fd in the event loop, never a blocking call. While a commit is
// held the surface keeps showing its previous buffer; later commits of that
// surface queue behind it; no other surface notices.
// A client may have kMaxHeldPerClient commits held at once: one more is a
// protocol error, as is a commit whose fence baton cannot watch (it is never
// let through unwaited).
#pragma once

#include <chrono>
#include <list>
#include <map>
#include <memory>

#include "handoff/commit_wait.hpp"
#include "util/event_source.hpp"
#include "util/listener.hpp"

struct wl_client;
struct wl_event_loop;
struct wlr_compositor;
struct wlr_surface;

namespace baton {

class Trace;

class ReadinessGate {
 public:
  /// `waits` says what each commit waits for; it must outlive the gate. A
  /// held commit is logged once after `stuck_after`. With `trace`, each held
  /// commit is a span on its surface's track.
  ReadinessGate(wl_event_loop* loop, wlr_compositor* compositor, CommitWaits& waits,
                std::chrono::milliseconds stuck_after = std::chrono::milliseconds(1000),
                Trace* trace = nullptr);
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
  CommitWaits& waits_;
  std::chrono::milliseconds stuck_after_;
  Trace* trace_;
  uint64_t let_through_ = 0;
  std::map<wl_client*, size_t> held_per_client_;
  std::list<std::unique_ptr<SurfaceGate>> surfaces_;
  Listener<wlr_surface> new_surface_;
};

}  // namespace baton
