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
//
// The implicit modifier (DRM_FORMAT_MOD_INVALID) is offered beside every
// format the renderer imports as LINEAR: linux-dmabuf v1-v3 clients see no
// other. A buffer sent with it is accepted only when every plane's exporter
// lays buffers out linearly (sync/dmabuf_exporter.hpp: udmabuf, the system
// dma-heap, V4L2's vmalloc buffers), and from then on carries LINEAR, so
// the renderer and KMS read it as what it is; one from any other exporter
// (a GPU's) is refused: the client gets `failed` (create) or a protocol
// error (create_immed).
//
// Per-surface feedback: a surface that could be scanned out (fullscreen on
// a KMS output) is told first of a scanout tranche, the pairs the output's
// primary plane takes that the renderer also imports, then of the default.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>

#include "util/listener.hpp"
#include "util/result.hpp"

struct wl_display;
struct wlr_dmabuf_attributes;
struct wlr_drm_format_set;
struct wlr_linux_dmabuf_v1;
struct wlr_output;
struct wlr_renderer;
struct wlr_surface;

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

  /// The renderer was rebuilt: buffers are checked against its formats now,
  /// and the default feedback is rebuilt from them and sent again.
  void renderer_changed(wlr_renderer* renderer);
  /// Whether a buffer of `format` and an explicit `modifier` is accepted now
  /// (the implicit modifier depends on the buffer: see check()).
  [[nodiscard]] bool accepts(uint32_t format, uint64_t modifier) const;
  /// wlroots' import check: accepts() for an explicit modifier; for the
  /// implicit one, LINEAR importable and every plane's exporter linear-only,
  /// then `attribs` says LINEAR. A refusal is logged with its reason.
  [[nodiscard]] bool check(wlr_dmabuf_attributes& attribs) const;
  /// `surface` could be scanned out on `output` (fullscreen on a KMS
  /// output): its feedback leads with a scanout tranche. Null `output`: it
  /// could no longer, and gets the default feedback again. An output that
  /// names no primary-plane formats or DRM device gives no scanout tranche.
  void set_scanout_output(wlr_surface* surface, wlr_output* output);
  [[nodiscard]] wlr_linux_dmabuf_v1* global() const { return global_; }
  /// The format set imports are checked against (null when wlroots checks).
  [[nodiscard]] const wlr_drm_format_set* checked_formats() const { return formats_; }

 private:
  LinuxDmabuf(wlr_linux_dmabuf_v1* global, dev_t main_device);

  wlr_linux_dmabuf_v1* global_;  // null once wlroots destroyed it
  dev_t main_device_;            // the device clients are told to allocate on
  Listener<void> global_destroy_;
  const wlr_drm_format_set* formats_ = nullptr;  // the renderer's, checked against
};

}  // namespace baton
