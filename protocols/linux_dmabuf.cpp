#include "protocols/linux_dmabuf.hpp"

#include <sys/stat.h>

#include "util/wlr.hpp"

namespace baton {
namespace {

bool renderer_imports(wlr_dmabuf_attributes* attribs, void* data) {
  auto* formats = static_cast<const wlr_drm_format_set*>(data);
  return wlr_drm_format_set_has(formats, attribs->format, attribs->modifier);
}

}  // namespace

Result<wlr_linux_dmabuf_v1*> create_linux_dmabuf(wl_display* display, wlr_renderer* renderer,
                                                 int fallback_drm_fd) {
  const char* const kWhat = "linux-dmabuf-v1";
  const wlr_drm_format_set* formats =
      wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF);
  if (formats == nullptr || formats->len == 0)
    return failure(kWhat, "the renderer imports no dma-bufs");
  if (wlr_renderer_get_drm_fd(renderer) >= 0) {
    wlr_linux_dmabuf_v1* global = wlr_linux_dmabuf_v1_create_with_renderer(display, 5, renderer);
    if (global == nullptr) return failure("wlr_linux_dmabuf_v1_create_with_renderer", "failed");
    return global;
  }
  struct stat st {};
  if (fallback_drm_fd < 0 || fstat(fallback_drm_fd, &st) != 0)
    return failure(kWhat,
                   "the renderer has no DRM node and no other DRM device is open (--drm-device)");

  wlr_linux_dmabuf_feedback_v1 feedback{};
  feedback.main_device = st.st_rdev;
  wl_array_init(&feedback.tranches);
  wlr_linux_dmabuf_feedback_v1_tranche* tranche = wlr_linux_dmabuf_feedback_add_tranche(&feedback);
  const wlr_drm_format_set empty{};
  if (tranche == nullptr || !wlr_drm_format_set_union(&tranche->formats, &empty, formats)) {
    wlr_linux_dmabuf_feedback_v1_finish(&feedback);
    return failure(kWhat, "out of memory building the dma-buf feedback");
  }
  tranche->target_device = st.st_rdev;
  wlr_linux_dmabuf_v1* global = wlr_linux_dmabuf_v1_create(display, 5, &feedback);
  wlr_linux_dmabuf_feedback_v1_finish(&feedback);
  if (global == nullptr) return failure("wlr_linux_dmabuf_v1_create", "failed");
  // The renderer's format set lives as long as the renderer, which outlives
  // the display's globals.
  wlr_linux_dmabuf_v1_set_check_dmabuf_callback(global, renderer_imports,
                                                const_cast<wlr_drm_format_set*>(formats));
  return global;
}

}  // namespace baton
