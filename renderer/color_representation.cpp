#include "renderer/color_representation.hpp"

#include <drm_fourcc.h>

#include <cstddef>
#include <memory>
#include <type_traits>

#include "util/wlr.hpp"

namespace baton {
namespace {

// The representation rides on the buffer as a wlroots addon, so it lives
// and dies with the buffer whatever holds it.
struct Attached {
  wlr_addon addon{};  // first: an Attached and its addon share an address
  ColorRepresentation representation;
};
static_assert(std::is_standard_layout_v<Attached> && offsetof(Attached, addon) == 0);

Attached* attached_of(wlr_addon* addon) { return reinterpret_cast<Attached*>(addon); }

void destroy_attached(wlr_addon* addon) {
  std::unique_ptr<Attached> owned(attached_of(addon));
  wlr_addon_finish(&owned->addon);
}

const wlr_addon_interface kAddon = {
    .name = "baton_color_representation",
    .destroy = destroy_attached,
};

bool is_yuv(uint32_t drm_format) {
  switch (drm_format) {
    case DRM_FORMAT_NV12:
    case DRM_FORMAT_NV21:
    case DRM_FORMAT_NV16:
    case DRM_FORMAT_NV61:
    case DRM_FORMAT_NV24:
    case DRM_FORMAT_NV42:
    case DRM_FORMAT_P010:
    case DRM_FORMAT_P012:
    case DRM_FORMAT_P016:
    case DRM_FORMAT_P210:
    case DRM_FORMAT_YUV420:
    case DRM_FORMAT_YVU420:
    case DRM_FORMAT_YUV422:
    case DRM_FORMAT_YVU422:
    case DRM_FORMAT_YUV444:
    case DRM_FORMAT_YVU444:
    case DRM_FORMAT_YUYV:
    case DRM_FORMAT_YVYU:
    case DRM_FORMAT_UYVY:
    case DRM_FORMAT_VYUY:
    case DRM_FORMAT_AYUV:
    case DRM_FORMAT_XYUV8888:
      return true;
    default:
      return false;
  }
}

}  // namespace

ColorRepresentation default_color_representation(uint32_t drm_format) {
  ColorRepresentation r;
  if (is_yuv(drm_format)) {
    r.coefficients = YcbcrCoefficients::bt601;
    r.range = QuantizationRange::limited;
  }
  return r;
}

void set_color_representation(wlr_buffer* buffer, const ColorRepresentation& representation) {
  if (wlr_addon* found = wlr_addon_find(&buffer->addons, nullptr, &kAddon)) {
    attached_of(found)->representation = representation;
    return;
  }
  auto attached = std::make_unique<Attached>();
  attached->representation = representation;
  wlr_addon_init(&attached->addon, &buffer->addons, nullptr, &kAddon);
  (void)attached.release();  // the buffer's addon set owns it now
}

const ColorRepresentation* color_representation_of(wlr_buffer* buffer) {
  wlr_addon* found = wlr_addon_find(&buffer->addons, nullptr, &kAddon);
  if (!found) return nullptr;
  return &attached_of(found)->representation;
}

}  // namespace baton
