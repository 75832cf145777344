// One signal for a commit of any client surface: windows, popups, subsurfaces,
// layer surfaces, cursors. What lies under a still pointer can change with
// any of them (a subsurface placed above its parent, a window that grew or
// moved its input region), and the seat must look again.
#pragma once

#include <memory>
#include <unordered_map>

#include "util/listener.hpp"
#include "util/signal.hpp"

struct wlr_compositor;
struct wlr_surface;

namespace baton {

class SurfaceCommits {
 public:
  explicit SurfaceCommits(wlr_compositor* compositor);
  ~SurfaceCommits();
  SurfaceCommits(const SurfaceCommits&) = delete;
  SurfaceCommits& operator=(const SurfaceCommits&) = delete;

  /// After a surface's new state was applied.
  Signal<> committed;

 private:
  struct Watch {
    Listener<void> commit;
    Listener<void> destroy;
  };
  void watch(wlr_surface* surface);

  Listener<wlr_surface> new_surface_;
  // One entry per live surface: a surface's destroy removes its own.
  std::unordered_map<wlr_surface*, std::unique_ptr<Watch>> watches_;
};

}  // namespace baton
