// linux-dmabuf-v1 for baton's renderer, whatever DRM node it has, and
// across renderer rebuilds.
//
// wlroots can build the global from the renderer's DRM node and check each
// import by PRIME on that node. baton's Vulkan renderer may have no node of
// its own (lavapipe), or name one that is not its device (lavapipe beside
// --drm-device), and knows what it imports: the global advertises the
// renderer's importable formats with `drm_fd`'s device as the main device
// (the one clients are told to allocate on), and a buffer is accepted when
// its format and modifier are in that set. After a GPU loss the renderer is
// rebuilt: the check follows it to the new renderer's set (the old one is
// freed with the old renderer).
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
  /// no dma-bufs, or `fallback_drm_fd` < 0 (no DRM device to name).
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
  const wlr_drm_format_set* formats_ = nullptr;  // the renderer's, checked against
};

}  // namespace baton
