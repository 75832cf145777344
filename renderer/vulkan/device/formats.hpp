// The DRM fourcc formats baton's Vulkan renderer knows, and their Vulkan twins.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <span>
#include <string>

namespace baton::vulkan {

struct FormatInfo {
  uint32_t drm;  // DRM_FORMAT_*
  VkFormat vk;   // the Vulkan format with the same memory layout
  uint32_t bytes_per_pixel;
  bool has_alpha;   // false: sampled with alpha forced to 1
  bool renderable;  // may be an output / render target format
};

/// Every format in the table (not all are supported by every device).
[[nodiscard]] std::span<const FormatInfo> known_formats();
[[nodiscard]] const FormatInfo* find_format(uint32_t drm);
/// "0x34325241": a fourcc as the errors that name it print it.
[[nodiscard]] std::string hex_format(uint32_t drm);
/// "0x100000000000001": a modifier as the errors that name it print it.
[[nodiscard]] std::string hex_modifier(uint64_t modifier);

}  // namespace baton::vulkan
