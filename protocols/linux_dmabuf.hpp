// linux-dmabuf-v1 for baton's renderer, also when the renderer has no DRM
// node of its own.
//
// wlroots builds the global's default feedback from the renderer's DRM node.
// A Vulkan renderer on a device without one (lavapipe, or a GPU without
// VK_EXT_physical_device_drm) still imports dma-bufs; its formats are then
// advertised with `fallback_drm_fd`'s device as the main device (the one
// clients are told to allocate on), and a buffer is accepted when its format
// and modifier are in the renderer's importable set.
#pragma once

#include "util/result.hpp"

struct wl_display;
struct wlr_linux_dmabuf_v1;
struct wlr_renderer;

namespace baton {

/// The global (owned by the display); an error when the renderer imports no
/// dma-bufs, or has no DRM node and `fallback_drm_fd` < 0.
[[nodiscard]] Result<wlr_linux_dmabuf_v1*> create_linux_dmabuf(wl_display* display,
                                                               wlr_renderer* renderer,
                                                               int fallback_drm_fd);

}  // namespace baton
