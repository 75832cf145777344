#include "renderer/vulkan/texture/plane_layout.hpp"

#include <drm_fourcc.h>

namespace baton::vulkan {
namespace {

constexpr VkComponentSwizzle R = VK_COMPONENT_SWIZZLE_R;
constexpr VkComponentSwizzle G = VK_COMPONENT_SWIZZLE_G;
constexpr VkComponentSwizzle B = VK_COMPONENT_SWIZZLE_B;
constexpr VkComponentSwizzle A = VK_COMPONENT_SWIZZLE_A;

constexpr FormatInfo yuv(uint32_t drm) { return {drm, VK_FORMAT_UNDEFINED, 0, false, false}; }

// Luma plane, then one interleaved CbCr (or CrCb) plane.
constexpr PlaneLayout semi_planar(uint32_t drm, VkFormat luma, VkFormat chroma, uint8_t bits,
                                  uint8_t container, uint8_t sub_y, bool swapped) {
  return {.info = yuv(drm),
          .planes = 2,
          .bits = bits,
          .container = container,
          .chroma_sub_x = 2,
          .chroma_sub_y = sub_y,
          .image_count = 2,
          .images = {{0, luma, uint8_t(container / 8), 1, 1},
                     {1, chroma, uint8_t(container / 4), 2, sub_y},
                     {}},
          .y = {0, R},
          .cb = {1, swapped ? G : R},
          .cr = {1, swapped ? R : G}};
}

// Luma, then Cb and Cr planes (or Cr and Cb), each quarter size.
constexpr PlaneLayout planar(uint32_t drm, bool swapped) {
  constexpr VkFormat r8 = VK_FORMAT_R8_UNORM;
  return {.info = yuv(drm),
          .planes = 3,
          .bits = 8,
          .container = 8,
          .chroma_sub_x = 2,
          .chroma_sub_y = 2,
          .image_count = 3,
          .images = {{0, r8, 1, 1, 1}, {1, r8, 1, 2, 2}, {2, r8, 1, 2, 2}},
          .y = {0, R},
          .cb = {uint8_t(swapped ? 2 : 1), R},
          .cr = {uint8_t(swapped ? 1 : 2), R}};
}

// One plane of 2-pixel macropixels (4 bytes): read twice, as R8G8 at full
// width for luma (each texel one pixel's Y and a chroma byte) and as R8G8B8A8
// at half width for chroma (each texel one macropixel), so both are read as
// ordinary planes are.
constexpr PlaneLayout packed(uint32_t drm, VkComponentSwizzle y, VkComponentSwizzle cb,
                             VkComponentSwizzle cr) {
  return {
      .info = yuv(drm),
      .planes = 1,
      .bits = 8,
      .container = 8,
      .chroma_sub_x = 2,
      .chroma_sub_y = 1,
      .image_count = 2,
      .images = {{0, VK_FORMAT_R8G8_UNORM, 2, 1, 1}, {0, VK_FORMAT_R8G8B8A8_UNORM, 4, 2, 1}, {}},
      .y = {0, y},
      .cb = {1, cb},
      .cr = {1, cr}};
}

constexpr PlaneLayout kLayouts[] = {
    semi_planar(DRM_FORMAT_NV12, VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM, 8, 8, 2, false),
    semi_planar(DRM_FORMAT_NV21, VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM, 8, 8, 2, true),
    semi_planar(DRM_FORMAT_NV16, VK_FORMAT_R8_UNORM, VK_FORMAT_R8G8_UNORM, 8, 8, 1, false),
    semi_planar(DRM_FORMAT_P010, VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16_UNORM, 10, 16, 2, false),
    semi_planar(DRM_FORMAT_P012, VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16_UNORM, 12, 16, 2, false),
    semi_planar(DRM_FORMAT_P016, VK_FORMAT_R16_UNORM, VK_FORMAT_R16G16_UNORM, 16, 16, 2, false),
    planar(DRM_FORMAT_YUV420, false),
    planar(DRM_FORMAT_YVU420, true),
    // Bytes Y0 Cb Y1 Cr, and Cb Y0 Cr Y1.
    packed(DRM_FORMAT_YUYV, R, G, A),
    packed(DRM_FORMAT_UYVY, G, R, B),
};

}  // namespace

std::span<const PlaneLayout> plane_layouts() { return kLayouts; }

const PlaneLayout* find_plane_layout(uint32_t drm) {
  for (const PlaneLayout& l : kLayouts)
    if (l.info.drm == drm) return &l;
  return nullptr;
}

std::array<ContiguousPlane, 3> contiguous_planes(const PlaneLayout& layout, size_t stride,
                                                 uint32_t height) {
  std::array<ContiguousPlane, 3> planes{};
  planes[0] = {0, stride};
  const PlaneImage& luma = layout.images[0];
  size_t end = stride * height;
  for (uint8_t plane = 1; plane < layout.planes; ++plane) {
    const PlaneImage* image = nullptr;
    for (uint8_t i = 0; i < layout.image_count && image == nullptr; ++i)
      if (layout.images[i].plane == plane) image = &layout.images[i];
    if (image == nullptr) break;
    const size_t plane_stride =
        stride * image->texel_bytes / (size_t(luma.texel_bytes) * image->width_divisor);
    planes[plane] = {end, plane_stride};
    end += plane_stride * ((height + image->height_divisor - 1) / image->height_divisor);
  }
  return planes;
}

}  // namespace baton::vulkan
