// A DRM slot allocated by baton's own Vulkan device: an image with an
// explicit DRM format modifier that the output's plane offers, its memory
// exported as a dma-buf for KMS to scan out. Whether the display device can
// import that dma-buf is found by trying (a framebuffer is made and removed
// again): virtio-gpu refuses foreign dma-bufs, and there the slots stay the
// display device's dumb buffers (DumbBuffer).
//
// A modifier may lay an image out in more than one memory plane (AMD's DCC
// and Intel's CCS keep compression metadata beside the pixels): a slot is
// exported with every memory plane its modifier has, each with its own fd,
// offset and pitch, so a consumer sees the whole image.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/formats.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

/// One memory plane of a slot's dma-buf: an fd of its own (all planes are
/// the same memory), where the plane starts in it and its row pitch.
struct ExportedPlane {
  UniqueFd fd;
  uint32_t offset = 0;
  uint32_t stride = 0;
};

/// A slot's dma-buf: its modifier and every memory plane that has.
struct ExportedDmabuf {
  uint64_t modifier = 0;
  std::vector<ExportedPlane> planes;

  /// The dma-buf as wlroots describes it, one plane per memory plane; the
  /// fds stay owned by this.
  [[nodiscard]] wlr_dmabuf_attributes attributes(uint32_t width, uint32_t height,
                                                 uint32_t drm_format) const;
};

struct ExportedImage {
  UniqueImage image;
  UniqueMemory memory;
  ExportedDmabuf dmabuf;
};

/// The modifiers a slot may be allocated with, in the consumer's order: each
/// one `offered` (the consumer's list: for a DRM output, its primary plane's
/// IN_FORMATS as wlroots intersected them with the renderer's) that `device`
/// (the device's modifier properties for the slot's format) lists with every
/// feature in `needed` and with 1 to WLR_DMABUF_MAX_PLANES memory planes.
/// Never DRM_FORMAT_MOD_INVALID, no modifier twice.
[[nodiscard]] std::vector<uint64_t> slot_modifier_candidates(
    std::span<const VkDrmFormatModifierPropertiesEXT> device, std::span<const uint64_t> offered,
    VkFormatFeatureFlags needed);

/// How many memory planes `device` says an image with `modifier` has; 0
/// when it does not list the modifier.
[[nodiscard]] uint32_t memory_plane_count(std::span<const VkDrmFormatModifierPropertiesEXT> device,
                                          uint64_t modifier);

/// `dmabuf` (the exported memory of an image with `modifier`) described by
/// plane: plane i at `layouts[i]` (the image's VK_IMAGE_ASPECT_MEMORY_PLANE_i
/// layout), plane 0 owning `dmabuf` and every other plane a duplicate of it.
/// An error for no plane, more than WLR_DMABUF_MAX_PLANES, an offset or
/// pitch past 32 bits, or a failed duplicate.
[[nodiscard]] Result<ExportedDmabuf> dmabuf_planes(UniqueFd dmabuf, uint64_t modifier,
                                                   std::span<const VkSubresourceLayout> layouts);

/// The aspect of each memory plane, in order.
inline constexpr std::array<VkImageAspectFlagBits, WLR_DMABUF_MAX_PLANES> kMemoryPlaneAspects = {
    VK_IMAGE_ASPECT_MEMORY_PLANE_0_BIT_EXT, VK_IMAGE_ASPECT_MEMORY_PLANE_1_BIT_EXT,
    VK_IMAGE_ASPECT_MEMORY_PLANE_2_BIT_EXT, VK_IMAGE_ASPECT_MEMORY_PLANE_3_BIT_EXT};

/// `dmabuf`, the exported memory of an image the device made with
/// `modifier`, described with every memory plane `device` lists for that
/// modifier: `layout_of(aspect)` gives a plane's layout (the image's
/// vkGetImageSubresourceLayout), asked once per plane. An error when the
/// device lists no plane for the modifier, or more than a dma-buf describes.
template <typename LayoutOf>
[[nodiscard]] Result<ExportedDmabuf> describe_exported(
    UniqueFd dmabuf, std::span<const VkDrmFormatModifierPropertiesEXT> device, uint64_t modifier,
    LayoutOf&& layout_of) {
  const uint32_t planes = memory_plane_count(device, modifier);
  if (planes < 1 || planes > kMemoryPlaneAspects.size())
    return failure("dma-buf export", "the device lists " + std::to_string(planes) +
                                         " memory planes for the modifier it chose");
  std::array<VkSubresourceLayout, WLR_DMABUF_MAX_PLANES> layouts{};
  for (uint32_t i = 0; i < planes; ++i) layouts[i] = layout_of(kMemoryPlaneAspects[i]);
  return dmabuf_planes(std::move(dmabuf), modifier,
                       std::span<const VkSubresourceLayout>(layouts.data(), planes));
}

/// Whether images of (`format`, `modifier`) can be made for `usage` and their
/// memory exported as a dma-buf.
bool dmabuf_exportable(Device& device, VkFormat format, uint64_t modifier, VkImageUsageFlags usage);

/// Allocates `width`x`height` of `format` for `usage` with a modifier from
/// `offered` that the device can render into and export (whatever its plane
/// count), exported with all its planes; an error when none fits or the
/// device cannot export.
[[nodiscard]] Result<ExportedImage> create_exported_image(Device& device, const FormatInfo& format,
                                                          uint32_t width, uint32_t height,
                                                          const wlr_drm_format& offered,
                                                          VkImageUsageFlags usage);

/// Whether the display device `kms_fd` takes `dmabuf` as a framebuffer
/// (tried: every plane imported, added and removed again); the kernel's
/// answer when it does not.
[[nodiscard]] Status kms_takes(int kms_fd, const ExportedDmabuf& dmabuf, uint32_t width,
                               uint32_t height, uint32_t drm_format);

}  // namespace baton::vulkan
