// The linux-dmabuf-v1 global for whatever renderer baton runs on.
#pragma once

struct wl_display;
struct wlr_backend;
struct wlr_linux_dmabuf_v1;
struct wlr_renderer;

namespace baton {

/// Creates linux-dmabuf-v1 (version 5) advertising exactly the dma-bufs
/// `renderer` imports; null when it imports none. wlroots derives the
/// feedback's main device from the renderer's DRM node; a renderer without
/// one (lavapipe has no VK_EXT_physical_device_drm) names the display device
/// (or, headless, the first render node) instead: clients allocate there.
wlr_linux_dmabuf_v1* create_linux_dmabuf(wl_display* display, wlr_backend* backend,
                                         wlr_renderer* renderer);

}  // namespace baton
