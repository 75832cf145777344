#include "protocols/linux_dmabuf.hpp"

#include <sys/stat.h>

#include "util/wlr.hpp"

namespace baton {
namespace {

const wlr_drm_format_set* importable(wlr_renderer* renderer) {
  return wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF);
}

}  // namespace

Result<std::unique_ptr<LinuxDmabuf>> LinuxDmabuf::create(wl_display* display,
                                                         wlr_renderer* renderer,
                                                         int fallback_drm_fd) {
  const char* const kWhat = "linux-dmabuf-v1";
  const wlr_drm_format_set* formats = importable(renderer);
  if (formats == nullptr || formats->len == 0)
    return failure(kWhat, "the renderer imports no dma-bufs");
  // Not wlroots' create_with_renderer, which checks each import by PRIME on
  // the renderer's DRM node: baton's Vulkan renderer may name a node that is
  // not its device (lavapipe beside --drm-device), and it knows what it
  // imports (its format table).
  struct stat st {};
  if (fallback_drm_fd < 0 || fstat(fallback_drm_fd, &st) != 0)
    return failure(kWhat,
                   "no DRM device is open to name as the main device (the renderer has no node; "
                   "--drm-device names one)");

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
  std::unique_ptr<LinuxDmabuf> self(new LinuxDmabuf(global));
  self->formats_ = formats;
  wlr_linux_dmabuf_v1_set_check_dmabuf_callback(
      global,
      [](wlr_dmabuf_attributes* attribs, void* data) {
        return static_cast<const LinuxDmabuf*>(data)->accepts(attribs->format, attribs->modifier);
      },
      self.get());
  return self;
}

LinuxDmabuf::LinuxDmabuf(wlr_linux_dmabuf_v1* global) : global_(global) {
  // wlroots frees the global with the display, maybe before this goes.
  global_destroy_.connect(&global->events.destroy, [this](void*) {
    global_destroy_.disconnect();
    global_ = nullptr;
  });
}

LinuxDmabuf::~LinuxDmabuf() {
  // A global that outlives this must not call into it.
  if (global_ != nullptr)
    wlr_linux_dmabuf_v1_set_check_dmabuf_callback(
        global_, [](wlr_dmabuf_attributes*, void*) { return false; }, nullptr);
}

void LinuxDmabuf::renderer_changed(wlr_renderer* renderer) { formats_ = importable(renderer); }

bool LinuxDmabuf::accepts(uint32_t format, uint64_t modifier) const {
  return formats_ != nullptr && wlr_drm_format_set_has(formats_, format, modifier);
}

}  // namespace baton
