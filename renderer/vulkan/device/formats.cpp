#include "renderer/vulkan/device/formats.hpp"

#include <drm_fourcc.h>

#include <cinttypes>
#include <cstdio>

namespace baton::vulkan {
namespace {

// DRM fourccs name little-endian packed words; Vulkan's *_UNORM byte formats
// name bytes in memory order, so ARGB8888 (bytes B,G,R,A) is B8G8R8A8.
constexpr FormatInfo kFormats[] = {
    {DRM_FORMAT_ARGB8888, VK_FORMAT_B8G8R8A8_UNORM, 4, true, true},
    {DRM_FORMAT_XRGB8888, VK_FORMAT_B8G8R8A8_UNORM, 4, false, true},
    {DRM_FORMAT_ABGR8888, VK_FORMAT_R8G8B8A8_UNORM, 4, true, true},
    {DRM_FORMAT_XBGR8888, VK_FORMAT_R8G8B8A8_UNORM, 4, false, true},
    {DRM_FORMAT_RGB565, VK_FORMAT_R5G6B5_UNORM_PACK16, 2, false, false},
    {DRM_FORMAT_ARGB2101010, VK_FORMAT_A2R10G10B10_UNORM_PACK32, 4, true, false},
    {DRM_FORMAT_XRGB2101010, VK_FORMAT_A2R10G10B10_UNORM_PACK32, 4, false, false},
    {DRM_FORMAT_ABGR2101010, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, true, false},
    {DRM_FORMAT_XBGR2101010, VK_FORMAT_A2B10G10R10_UNORM_PACK32, 4, false, false},
};

}  // namespace

std::span<const FormatInfo> known_formats() { return kFormats; }

const FormatInfo* find_format(uint32_t drm) {
  for (const FormatInfo& f : kFormats)
    if (f.drm == drm) return &f;
  return nullptr;
}

std::string hex_format(uint32_t drm) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", drm);
  return text;
}

std::string hex_modifier(uint64_t modifier) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, modifier);
  return text;
}

}  // namespace baton::vulkan
