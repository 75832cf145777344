// A DRM slot allocated by baton's own Vulkan device: an image with an
// explicit DRM format modifier that the output's plane offers, its memory
// exported as a dma-buf for KMS to scan out. Whether the display device can
// import that dma-buf is found by trying (a framebuffer is made and removed
// again): virtio-gpu refuses foreign dma-bufs, and there the slots stay the
// display device's dumb buffers (DumbBuffer).
#pragma once

#include <cstdint>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/formats.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

struct ExportedImage {
  UniqueImage image;
  UniqueMemory memory;
  UniqueFd dmabuf;
  uint64_t modifier = 0;
  uint32_t offset = 0;
  uint32_t stride = 0;
};

/// Whether images of (`format`, `modifier`) can be made for `usage` and their
/// memory exported as a dma-buf.
bool dmabuf_exportable(Device& device, VkFormat format, uint64_t modifier, VkImageUsageFlags usage);

/// Allocates `width`x`height` of `format` for `usage` with a modifier from
/// `offered` that the device can render into and export; an error when none
/// fits or the device cannot export.
[[nodiscard]] Result<ExportedImage> create_exported_image(Device& device, const FormatInfo& format,
                                                          uint32_t width, uint32_t height,
                                                          const wlr_drm_format& offered,
                                                          VkImageUsageFlags usage);

/// Whether the display device `kms_fd` takes `image` as a framebuffer (tried:
/// imported, added and removed again); the kernel's answer when it does not.
[[nodiscard]] Status kms_takes(int kms_fd, const ExportedImage& image, uint32_t width,
                               uint32_t height, uint32_t drm_format);

}  // namespace baton::vulkan
