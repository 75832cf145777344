// linux-dmabuf-v1 for baton's renderer, also when the renderer has no DRM
// node of its own, and across renderer rebuilds.
//
// wlroots builds the global's default feedback from the renderer's DRM node.
// A Vulkan renderer on a device without one (lavapipe, or a GPU without
// VK_EXT_physical_device_drm) still imports dma-bufs; its formats are then
// advertised with `fallback_drm_fd`'s device as the main device (the one
// clients are told to allocate on), and a buffer is accepted when its format
// and modifier are in the renderer's importable set. After a GPU loss the
// renderer is rebuilt: the check follows it to the new renderer's set (the
// old one is freed with the old renderer).
#pragma once

#include <cstdint>
#include <memory>

#include "util/listener.hpp"
#include "util/result.hpp"

struct wl_display;
struct wlr_drm_format_set;
struct wlr_linux_dmabuf_v1;
struct wlr_renderer;

namespace baton {

class LinuxDmabuf {
 public:
  /// The global (owned by the display); an error when the renderer imports
  /// no dma-bufs, or has no DRM node and `fallback_drm_fd` < 0.
  [[nodiscard]] static Result<std::unique_ptr<LinuxDmabuf>> create(wl_display* display,
                                                                   wlr_renderer* renderer,
                                                                   int fallback_drm_fd);
  ~LinuxDmabuf();
  LinuxDmabuf(const LinuxDmabuf&) = delete;
  LinuxDmabuf& operator=(const LinuxDmabuf&) = delete;

  /// The renderer was rebuilt: buffers are checked against its formats now.
  void renderer_changed(wlr_renderer* renderer);
  /// Whether a buffer of `format` and `modifier` is accepted now.
  [[nodiscard]] bool accepts(uint32_t format, uint64_t modifier) const;
  [[nodiscard]] wlr_linux_dmabuf_v1* global() const { return global_; }
  /// The format set imports are checked against (null when wlroots checks).
  [[nodiscard]] const wlr_drm_format_set* checked_formats() const { return formats_; }

 private:
  explicit LinuxDmabuf(wlr_linux_dmabuf_v1* global);

  wlr_linux_dmabuf_v1* global_;  // null once wlroots destroyed it
  Listener<void> global_destroy_;
  // Only when the check is baton's (renderer without a DRM node).
  const wlr_drm_format_set* formats_ = nullptr;
  bool own_check_ = false;
};

}  // namespace baton
