#include "renderer/dmabuf_global.hpp"

#include <sys/stat.h>
#include <xf86drm.h>

#include <optional>

#include "compositor/log.hpp"
#include "compositor/wlr.hpp"

namespace baton {
namespace {

std::optional<dev_t> device_of(int fd) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return std::nullopt;
  return st.st_rdev;
}

std::optional<dev_t> first_render_node() {
  drmDevicePtr devices[16];
  int count = drmGetDevices2(0, devices, 16);
  std::optional<dev_t> found;
  for (int i = 0; i < count && !found; ++i) {
    if ((devices[i]->available_nodes & (1 << DRM_NODE_RENDER)) == 0) continue;
    struct stat st {};
    if (stat(devices[i]->nodes[DRM_NODE_RENDER], &st) == 0) found = st.st_rdev;
  }
  if (count > 0) drmFreeDevices(devices, count);
  return found;
}

}  // namespace

wlr_linux_dmabuf_v1* create_linux_dmabuf(wl_display* display, wlr_backend* backend,
                                         wlr_renderer* renderer) {
  const wlr_drm_format_set* formats =
      wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF);
  if (formats == nullptr || formats->len == 0) return nullptr;
  if (wlr_renderer_get_drm_fd(renderer) >= 0)
    return wlr_linux_dmabuf_v1_create_with_renderer(display, 5, renderer);

  std::optional<dev_t> device = device_of(wlr_backend_get_drm_fd(backend));
  if (!device) device = first_render_node();
  if (!device) {
    LOG_INFO("linux-dmabuf-v1: no DRM device to name as the main device; not advertised");
    return nullptr;
  }
  wlr_linux_dmabuf_feedback_v1 feedback{};
  feedback.main_device = *device;
  wl_array_init(&feedback.tranches);
  wlr_linux_dmabuf_feedback_v1_tranche* tranche = wlr_linux_dmabuf_feedback_add_tranche(&feedback);
  wlr_linux_dmabuf_v1* global = nullptr;
  if (tranche != nullptr) {
    tranche->target_device = *device;
    bool ok = true;
    for (size_t i = 0; i < formats->len; ++i)
      for (size_t m = 0; m < formats->formats[i].len; ++m)
        ok = ok && wlr_drm_format_set_add(&tranche->formats, formats->formats[i].format,
                                          formats->formats[i].modifiers[m]);
    if (ok) global = wlr_linux_dmabuf_v1_create(display, 5, &feedback);
  }
  wlr_linux_dmabuf_feedback_v1_finish(&feedback);
  if (global == nullptr) {
    LOG_ERROR("linux-dmabuf-v1: the global could not be created");
    return nullptr;
  }
  // wlroots' default check imports each buffer into the main device; that
  // device is not the one importing here (virtio-gpu refuses foreign
  // dma-bufs with ENODEV while lavapipe takes them). The advertised table
  // already limits what clients send; the renderer's import at commit decides.
  wlr_linux_dmabuf_v1_set_check_dmabuf_callback(
      global, [](wlr_dmabuf_attributes*, void*) { return true; }, nullptr);
  return global;
}

}  // namespace baton
