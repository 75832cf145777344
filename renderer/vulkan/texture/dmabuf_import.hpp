// dma-buf import (VK_EXT_external_memory_dma_buf + VK_EXT_image_drm_format_modifier).
//
// Only explicit modifiers are imported: the format table advertised through
// linux-dmabuf-v1 lists exactly the (format, modifier) pairs this device can
// import and sample, LINEAR included where supported, and never
// DRM_FORMAT_MOD_INVALID (an implicit layout cannot be described to Vulkan).
//
// Real buffers are imported in the qemu harness (tests/vm/): this host has
// no /dev/udmabuf and the NVIDIA machine no dma-buf.
#pragma once

#include <vector>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/formats.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/texture/plane_layout.hpp"
#include "util/result.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

/// Adds every importable, sampleable (format, modifier) pair to `set`: RGB
/// formats with each such modifier, whatever its count of memory planes
/// (a compressed modifier's metadata planes), and the YUV formats of
/// plane_layouts() with each single-plane modifier all their plane images take.
void query_dmabuf_formats(Device& device, wlr_drm_format_set& set);

struct ImportedImage {
  UniqueImage image;
  UniqueMemory memory;
};

/// Usage of imported client buffers: sampled (and read back), never drawn into.
inline constexpr VkImageUsageFlags kSampledUsage =
    VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;

/// What dma-buf memory of images of (`format`, `modifier`) for `usage` can
/// do (VK_EXTERNAL_MEMORY_FEATURE_*: importable, exportable); 0 when none.
VkExternalMemoryFeatureFlags dmabuf_memory_features(Device& device, VkFormat format,
                                                    uint64_t modifier, VkImageUsageFlags usage);

/// Whether an image of `format` with `modifier` can be imported for `usage`.
bool dmabuf_usage_supported(Device& device, VkFormat format, uint64_t modifier,
                            VkImageUsageFlags usage);

/// Whether images of `format` with `modifier` may be sampled with a LINEAR filter.
bool dmabuf_filters_linearly(Device& device, VkFormat format, uint64_t modifier);

/// Imports `attribs` as an image with `usage`: one memory plane, or every
/// memory plane of its modifier, all in one dma-buf (Vulkan binds an RGB
/// image's memory planes from one memory: DISJOINT is for YUV formats).
[[nodiscard]] Result<ImportedImage> import_dmabuf(Device& device,
                                                  const wlr_dmabuf_attributes& attribs,
                                                  const FormatInfo& format,
                                                  VkImageUsageFlags usage = kSampledUsage);

/// One memory plane of a dma-buf.
struct PlaneSource {
  int fd;
  uint32_t offset;
  uint32_t stride;
};

/// Imports one plane as a single-plane `format` image of `width` x `height`.
[[nodiscard]] Result<ImportedImage> import_plane(Device& device, const PlaneSource& source,
                                                 uint64_t modifier, VkFormat format, uint32_t width,
                                                 uint32_t height, VkImageUsageFlags usage);

/// Imports a YUV dma-buf as the images `layout` lists, in its order.
[[nodiscard]] Result<std::vector<ImportedImage>> import_dmabuf_planes(
    Device& device, const wlr_dmabuf_attributes& attribs, const PlaneLayout& layout);

}  // namespace baton::vulkan
