#include "tests/clients/explicit_sync.hpp"

#include "tests/clients/drm_node.hpp"

namespace baton::testing {

std::string make_explicit_sync(WaylandWindow& window, ExplicitSync& out) {
  auto gpu = open_drm_node("virtio_gpu", NodeKind::render);
  if (!gpu) return "no virtio_gpu render node for the timeline: " + gpu.error().describe();
  for (int which = 0; which < 2; ++which) {
    auto timeline = sync::Timeline::create(gpu->get());
    if (!timeline) return timeline.error().describe();
    auto fd = timeline->export_fd();
    if (!fd) return fd.error().describe();
    (which == 0 ? out.acquire : out.release).emplace(std::move(*timeline));
    (which == 0 ? out.wl_acquire : out.wl_release)
        .reset(wp_linux_drm_syncobj_manager_v1_import_timeline(window.syncobj(), fd->get()));
  }
  out.surface.reset(
      wp_linux_drm_syncobj_manager_v1_get_surface(window.syncobj(), window.surface()));
  return {};
}

}  // namespace baton::testing
