// How a YUV (or other multi-plane) DRM format's memory planes become
// single-plane Vulkan images, and which channel of which image holds Y, Cb
// and Cr. Lavapipe refuses multi-planar images with DRM modifiers, and
// YCbCr samplers cannot join the compute compositor's sampler array, so each
// plane is imported as an R8/R8G8/R16/R16G16/R8G8B8A8 image and baton's own
// shaders convert (texture/ycbcr_conversion.hpp gives the matrix).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "renderer/vulkan/device/formats.hpp"

namespace baton::vulkan {

/// One Vulkan image over one memory plane of the buffer.
struct PlaneImage {
  uint8_t plane;  // the dma-buf plane it reads (offset, stride, fd)
  VkFormat format;
  uint8_t texel_bytes;    // of `format`
  uint8_t width_divisor;  // its extent is the buffer's, divided (rounded up)
  uint8_t height_divisor;
};

/// Where one of Y, Cb, Cr is found: an image and its channel. The texture's
/// view of it swizzles that channel into red, so shaders always read `.r`.
struct PlaneSample {
  uint8_t image;
  VkComponentSwizzle channel;
};

struct PlaneLayout {
  FormatInfo info;       // vk is UNDEFINED: no single Vulkan format holds it
  uint8_t planes;        // dma-buf planes (of a single-plane-per-image modifier)
  uint8_t bits;          // significant bits per sample
  uint8_t container;     // bits the sample is stored in (8 or 16), value in the top bits
  uint8_t chroma_sub_x;  // luma samples per chroma sample across ...
  uint8_t chroma_sub_y;  // ... and down
  uint8_t image_count;
  PlaneImage images[3];
  PlaneSample y, cb, cr;
};

/// Where one memory plane of a YUV wl_shm buffer lies, from the buffer's
/// offset. wl_shm gives a buffer one offset and one stride: the planes follow
/// each other with no gap, each plane's stride derived from the first's
/// (GStreamer's waylandsink and Weston lay them out so). wlroots patch 0040
/// refuses a buffer whose pool does not hold every plane laid out this way.
struct ContiguousPlane {
  size_t offset;
  size_t stride;
};
[[nodiscard]] std::array<ContiguousPlane, 3> contiguous_planes(const PlaneLayout& layout,
                                                               size_t stride, uint32_t height);

/// Every multi-image format baton imports (the advertised ones are those
/// whose images the device can import with a modifier).
[[nodiscard]] std::span<const PlaneLayout> plane_layouts();
/// The layout of `drm`, or null for single-image (RGB) formats.
[[nodiscard]] const PlaneLayout* find_plane_layout(uint32_t drm);

}  // namespace baton::vulkan
