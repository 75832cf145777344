#include "protocols/linux_dmabuf.hpp"

#include <drm_fourcc.h>
#include <sys/stat.h>

#include <cinttypes>
#include <cstdio>
#include <span>

#include "sync/dmabuf_exporter.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// zwp_linux_dmabuf_feedback_v1.tranche_flags.scanout (the XML's value).
constexpr uint32_t kScanoutTranche = 1;

const wlr_drm_format_set* importable(wlr_renderer* renderer) {
  return wlr_renderer_get_texture_formats(renderer, WLR_BUFFER_CAP_DMABUF);
}

// What clients are offered: the renderer's pairs, and the implicit modifier
// beside each format it imports as LINEAR.
bool add_offered(wlr_drm_format_set& offered, const wlr_drm_format_set& importable) {
  for (size_t i = 0; i < importable.len; ++i) {
    const wlr_drm_format& format = importable.formats[i];
    for (size_t m = 0; m < format.len; ++m) {
      if (!wlr_drm_format_set_add(&offered, format.format, format.modifiers[m])) return false;
      if (format.modifiers[m] == DRM_FORMAT_MOD_LINEAR &&
          !wlr_drm_format_set_add(&offered, format.format, DRM_FORMAT_MOD_INVALID))
        return false;
    }
  }
  return true;
}

// The explicit pairs of `plane` the renderer imports too: a buffer the
// output could scan out that baton can still composite when it must.
bool add_scanout(wlr_drm_format_set& scanout, const wlr_drm_format_set& plane,
                 const wlr_drm_format_set& importable) {
  for (size_t i = 0; i < plane.len; ++i) {
    const wlr_drm_format& format = plane.formats[i];
    for (size_t m = 0; m < format.len; ++m)
      if (format.modifiers[m] != DRM_FORMAT_MOD_INVALID &&
          wlr_drm_format_set_has(&importable, format.format, format.modifiers[m]) &&
          !wlr_drm_format_set_add(&scanout, format.format, format.modifiers[m]))
        return false;
  }
  return true;
}

// The feedback every surface gets unless it could be scanned out: one
// tranche, the renderer's offered pairs, on the main device. False: out of
// memory (`feedback` is then finished).
bool build_default_feedback(wlr_linux_dmabuf_feedback_v1& feedback, dev_t main_device,
                            const wlr_drm_format_set& importable) {
  feedback.main_device = main_device;
  wl_array_init(&feedback.tranches);
  wlr_linux_dmabuf_feedback_v1_tranche* tranche = wlr_linux_dmabuf_feedback_add_tranche(&feedback);
  if (tranche == nullptr || !add_offered(tranche->formats, importable)) {
    wlr_linux_dmabuf_feedback_v1_finish(&feedback);
    return false;
  }
  tranche->target_device = main_device;
  return true;
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
  if (!build_default_feedback(feedback, st.st_rdev, *formats))
    return failure(kWhat, "out of memory building the dma-buf feedback");
  wlr_linux_dmabuf_v1* global = wlr_linux_dmabuf_v1_create(display, 5, &feedback);
  wlr_linux_dmabuf_feedback_v1_finish(&feedback);
  if (global == nullptr) return failure("wlr_linux_dmabuf_v1_create", "failed");
  std::unique_ptr<LinuxDmabuf> self(new LinuxDmabuf(global, st.st_rdev));
  self->formats_ = formats;
  // wlroots stores the attributes the check leaves: an implicit modifier
  // found linear stays LINEAR on the buffer.
  wlr_linux_dmabuf_v1_set_check_dmabuf_callback(
      global,
      [](wlr_dmabuf_attributes* attribs, void* data) {
        return static_cast<const LinuxDmabuf*>(data)->check(*attribs);
      },
      self.get());
  return self;
}

LinuxDmabuf::LinuxDmabuf(wlr_linux_dmabuf_v1* global, dev_t main_device)
    : global_(global), main_device_(main_device) {
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

void LinuxDmabuf::renderer_changed(wlr_renderer* renderer) {
  formats_ = importable(renderer);
  if (global_ == nullptr) return;
  // Clients allocate for what they were told: tell them again (wlroots
  // patch 0041 sends it to every default feedback object). Clients of
  // versions 1 to 3 were told once, at bind; their buffers are checked
  // against the new set all the same.
  wlr_linux_dmabuf_feedback_v1 feedback{};
  if (formats_ == nullptr || formats_->len == 0) {
    LOG_ERROR("linux-dmabuf: the rebuilt renderer imports no dma-bufs; every import is refused");
    return;
  }
  if (!build_default_feedback(feedback, main_device_, *formats_)) {
    LOG_ERROR("linux-dmabuf: out of memory building the rebuilt renderer's feedback");
    return;
  }
  if (!wlr_linux_dmabuf_v1_set_default_feedback(global_, &feedback))
    LOG_ERROR("linux-dmabuf: the rebuilt renderer's feedback could not be set");
  wlr_linux_dmabuf_feedback_v1_finish(&feedback);
}

bool LinuxDmabuf::accepts(uint32_t format, uint64_t modifier) const {
  return formats_ != nullptr && modifier != DRM_FORMAT_MOD_INVALID &&
         wlr_drm_format_set_has(formats_, format, modifier);
}

bool LinuxDmabuf::check(wlr_dmabuf_attributes& attribs) const {
  if (attribs.modifier != DRM_FORMAT_MOD_INVALID) return accepts(attribs.format, attribs.modifier);
  if (!accepts(attribs.format, DRM_FORMAT_MOD_LINEAR)) return false;  // never offered
  const Status linear =
      sync::implicit_layout_is_linear(std::span<const int>(attribs.fd, attribs.n_planes));
  if (!linear) {
    char format[16];
    std::snprintf(format, sizeof format, "0x%08" PRIx32, attribs.format);
    LOG_INFO("linux-dmabuf: refused a %dx%d dma-buf of format %s with the implicit modifier: %s",
             attribs.width, attribs.height, format, linear.error().describe().c_str());
    return false;
  }
  attribs.modifier = DRM_FORMAT_MOD_LINEAR;
  return true;
}

void LinuxDmabuf::set_scanout_output(wlr_surface* surface, wlr_output* output) {
  if (global_ == nullptr || formats_ == nullptr) return;
  const wlr_drm_format_set* plane =
      output != nullptr ? wlr_output_get_primary_formats(output, WLR_BUFFER_CAP_DMABUF) : nullptr;
  const int kms_fd = output != nullptr ? wlr_backend_get_drm_fd(output->backend) : -1;
  struct stat kms {};
  if (plane == nullptr || kms_fd < 0 || fstat(kms_fd, &kms) != 0) {
    if (!wlr_linux_dmabuf_v1_set_surface_feedback(global_, surface, nullptr))
      LOG_ERROR("linux-dmabuf: could not give a surface the default feedback again");
    return;
  }
  wlr_linux_dmabuf_feedback_v1 feedback{};
  feedback.main_device = main_device_;
  wl_array_init(&feedback.tranches);
  wlr_linux_dmabuf_feedback_v1_tranche* scanout = wlr_linux_dmabuf_feedback_add_tranche(&feedback);
  bool built = scanout != nullptr && add_scanout(scanout->formats, *plane, *formats_);
  if (built && scanout->formats.len == 0) {
    // Nothing the plane takes is importable: the default tells as much.
    wlr_linux_dmabuf_feedback_v1_finish(&feedback);
    (void)wlr_linux_dmabuf_v1_set_surface_feedback(global_, surface, nullptr);
    return;
  }
  if (built) {
    scanout->target_device = kms.st_rdev;
    scanout->flags = kScanoutTranche;
    wlr_linux_dmabuf_feedback_v1_tranche* rendered =
        wlr_linux_dmabuf_feedback_add_tranche(&feedback);
    built = rendered != nullptr && add_offered(rendered->formats, *formats_);
    if (built) rendered->target_device = main_device_;
  }
  if (!built || !wlr_linux_dmabuf_v1_set_surface_feedback(global_, surface, &feedback))
    LOG_ERROR("linux-dmabuf: could not give a surface its scanout feedback");
  wlr_linux_dmabuf_feedback_v1_finish(&feedback);
}

}  // namespace baton
