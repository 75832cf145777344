#include "backend/refresh_range.hpp"

#include <xf86drm.h>
#include <xf86drmMode.h>

#include <cstring>
#include <memory>

#include "util/wlr.hpp"

// libdisplay-info's headers have no extern "C" of their own.
extern "C" {
#include <libdisplay-info/edid.h>
#include <libdisplay-info/info.h>
}

namespace baton {
namespace {

template <typename T, void (*Free)(T*)>
struct FreeWith {
  void operator()(T* object) const { Free(object); }
};
using InfoPtr = std::unique_ptr<di_info, FreeWith<di_info, di_info_destroy>>;
using PropertiesPtr =
    std::unique_ptr<drmModeObjectProperties,
                    FreeWith<drmModeObjectProperties, drmModeFreeObjectProperties>>;
using PropertyPtr =
    std::unique_ptr<drmModePropertyRes, FreeWith<drmModePropertyRes, drmModeFreeProperty>>;
using BlobPtr = std::unique_ptr<drmModePropertyBlobRes,
                                FreeWith<drmModePropertyBlobRes, drmModeFreePropertyBlob>>;

// The blob id in the connector's "EDID" property; 0 when it has none (the
// kernel sets it to 0 while nothing is plugged in).
uint64_t edid_blob_id(int fd, uint32_t connector) {
  PropertiesPtr props(drmModeObjectGetProperties(fd, connector, DRM_MODE_OBJECT_CONNECTOR));
  if (!props) return 0;
  for (uint32_t i = 0; i < props->count_props; ++i) {
    PropertyPtr prop(drmModeGetProperty(fd, props->props[i]));
    if (prop && std::strcmp(prop->name, "EDID") == 0) return props->prop_values[i];
  }
  return 0;
}

}  // namespace

std::optional<RefreshRange> refresh_range_from_edid(std::span<const uint8_t> edid) {
  InfoPtr info(di_info_parse_edid(edid.data(), edid.size()));
  if (!info) return std::nullopt;
  const di_edid* parsed = di_info_get_edid(info.get());
  if (parsed == nullptr) return std::nullopt;
  for (const di_edid_display_descriptor* const* desc = di_edid_get_display_descriptors(parsed);
       *desc != nullptr; ++desc) {
    if (di_edid_display_descriptor_get_tag(*desc) != DI_EDID_DISPLAY_DESCRIPTOR_RANGE_LIMITS) {
      continue;
    }
    const di_edid_display_range_limits* limits = di_edid_display_descriptor_get_range_limits(*desc);
    if (limits == nullptr) return std::nullopt;
    // A fixed-rate panel (min == max) has nothing to pace within.
    if (limits->min_vert_rate_hz <= 0 || limits->min_vert_rate_hz >= limits->max_vert_rate_hz) {
      return std::nullopt;
    }
    return RefreshRange{static_cast<double>(limits->min_vert_rate_hz),
                        static_cast<double>(limits->max_vert_rate_hz)};
  }
  return std::nullopt;
}

std::optional<RefreshRange> refresh_range_of(wlr_output* output) {
  // Only the DRM backend has a connector whose EDID the kernel hands out;
  // nested and headless outputs pace to their host or a timer instead.
  if (output == nullptr || !wlr_output_is_drm(output)) return std::nullopt;
  const int fd = wlr_backend_get_drm_fd(output->backend);
  if (fd < 0) return std::nullopt;
  const uint64_t blob_id = edid_blob_id(fd, wlr_drm_connector_get_id(output));
  if (blob_id == 0) return std::nullopt;
  BlobPtr blob(drmModeGetPropertyBlob(fd, static_cast<uint32_t>(blob_id)));
  if (!blob || blob->data == nullptr) return std::nullopt;
  return refresh_range_from_edid(std::span(static_cast<const uint8_t*>(blob->data), blob->length));
}

}  // namespace baton
