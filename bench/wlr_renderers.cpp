#include "bench/wlr_renderers.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>

#include <cerrno>
#include <cstring>

#include "util/unique_fd.hpp"

extern "C" {
#include <wlr/backend/interface.h>
#include <wlr/config.h>
#if WLR_HAS_GLES2_RENDERER
#include <wlr/render/gles2.h>
#endif
#if WLR_HAS_VULKAN_RENDERER
#include <wlr/render/vulkan.h>
#endif
}

namespace baton::bench {
namespace {

// Calls wlroots' constructor for `api`; null with `error` set when wlroots
// was built without it or it refused.
Result<wlr_renderer*> create_on(WlrApi api, int drm_fd) {
  switch (api) {
    case WlrApi::gles2:
#if WLR_HAS_GLES2_RENDERER
      if (wlr_renderer* r = wlr_gles2_renderer_create_with_drm_fd(drm_fd)) return r;
      return failure("wlr_gles2_renderer_create_with_drm_fd",
                     "failed (wlroots' log above says why)");
#else
      return failure("wlroots' GLES2 renderer", "wlroots was built without it");
#endif
    case WlrApi::vulkan:
#if WLR_HAS_VULKAN_RENDERER
      if (wlr_renderer* r = wlr_vk_renderer_create_with_drm_fd(drm_fd)) return r;
      return failure("wlr_vk_renderer_create_with_drm_fd", "failed (wlroots' log above says why)");
#else
      return failure("wlroots' Vulkan renderer", "wlroots was built without it");
#endif
  }
  return failure("create_on", "unknown renderer");
}

// A backend that does nothing but lend its DRM node to
// wlr_allocator_autocreate, so that render buffers come from that node as they
// would under wlroots' DRM backend: GBM on a lease of the primary node while
// this process is its DRM master. (A renderer's own node is its render node,
// where Mesa's software fallback cannot create buffers: DUMB_CREATE is refused
// on render nodes.)
struct NodeBackend {
  wlr_backend base;
  int fd;
};

const wlr_backend_impl kNodeBackendImpl = {
    .start = nullptr,
    .destroy = nullptr,
    .get_drm_fd = [](wlr_backend* b) { return reinterpret_cast<NodeBackend*>(b)->fd; },
    .test = nullptr,
    .commit = nullptr,
};

wlr_allocator* allocator_on_node(int fd, wlr_renderer* renderer) {
  NodeBackend node{};
  wlr_backend_init(&node.base, &kNodeBackendImpl);
  node.base.buffer_caps = WLR_BUFFER_CAP_DMABUF;
  node.fd = fd;
  wlr_allocator* allocator = wlr_allocator_autocreate(&node.base, renderer);
  wlr_backend_finish(&node.base);
  return allocator;
}

// Draws one empty pass into one small buffer: a renderer whose buffers cannot
// be allocated or bound fails here, not in the middle of the benchmark.
bool can_draw(wlr_renderer* renderer, wlr_allocator* allocator) {
  wlr_drm_format_set set{};
  wlr_drm_format_set_add(&set, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID);
  wlr_buffer* buffer = wlr_allocator_create_buffer(
      allocator, 64, 64, wlr_drm_format_set_get(&set, DRM_FORMAT_XRGB8888));
  wlr_drm_format_set_finish(&set);
  if (buffer == nullptr) return false;
  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(renderer, buffer, nullptr);
  const bool drawn = pass != nullptr && wlr_render_pass_submit(pass);
  wlr_buffer_drop(buffer);
  return drawn;
}

}  // namespace

Result<WlrRenderer> create_wlr_renderer(WlrApi api, const std::string& drm_device,
                                        wlr_log_importance verbosity) {
  if (drm_device.empty())
    return failure("--drm-device", "no DRM node to open (give --drm-device PATH)");
  // wlroots opens the nodes it keeps itself: this fd only names the device.
  UniqueFd fd(::open(drm_device.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd) return last_error("open " + drm_device);
  wlr_log_init(WLR_DEBUG, nullptr);
  Result<WlrRenderer> result = [&]() -> Result<WlrRenderer> {
    auto renderer = create_on(api, fd.get());
    if (!renderer) return renderer.error();
    WlrRenderer out;
    out.renderer = *renderer;
    out.allocator = allocator_on_node(fd.get(), out.renderer);
    if (out.allocator == nullptr) {
      wlr_renderer_destroy(out.renderer);
      return failure(
          "the renderer started but wlroots found no allocator for its buffers on " + drm_device,
          "wlroots' log above says why");
    }
    if (!can_draw(out.renderer, out.allocator)) {
      wlr_allocator_destroy(out.allocator);
      wlr_renderer_destroy(out.renderer);
      return failure(
          "the renderer started but cannot allocate or draw into a buffer on " + drm_device,
          "wlroots' log above says why");
    }
    // One probe instead of a refusal logged for every frame's timer.
    if (wlr_render_timer* timer = wlr_render_timer_create(out.renderer)) {
      out.has_timer = true;
      wlr_render_timer_destroy(timer);
    }
    return out;
  }();
  wlr_log_init(verbosity, nullptr);
  return result;
}

}  // namespace baton::bench
