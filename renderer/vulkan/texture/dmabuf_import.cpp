#include "renderer/vulkan/texture/dmabuf_import.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sync/dmabuf_exporter.hpp"
#include "util/unique_fd.hpp"

namespace baton::vulkan {

VkExternalMemoryFeatureFlags dmabuf_memory_features(Device& device, VkFormat format,
                                                    uint64_t modifier, VkImageUsageFlags usage) {
  VkPhysicalDeviceImageDrmFormatModifierInfoEXT modifier_info{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT};
  modifier_info.drmFormatModifier = modifier;
  modifier_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkPhysicalDeviceExternalImageFormatInfo external{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_IMAGE_FORMAT_INFO, &modifier_info};
  external.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  VkPhysicalDeviceImageFormatInfo2 info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
                                        &external};
  info.format = format;
  info.type = VK_IMAGE_TYPE_2D;
  info.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
  info.usage = usage;
  VkExternalImageFormatProperties external_props{
      VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES};
  VkImageFormatProperties2 props{VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2, &external_props};
  if (vkGetPhysicalDeviceImageFormatProperties2(device.physical(), &info, &props) != VK_SUCCESS)
    return 0;
  return external_props.externalMemoryProperties.externalMemoryFeatures;
}

namespace {

bool importable_for(Device& device, VkFormat format, uint64_t modifier, VkImageUsageFlags usage) {
  return (dmabuf_memory_features(device, format, modifier, usage) &
          VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0;
}

bool importable(Device& device, VkFormat format, uint64_t modifier) {
  return importable_for(device, format, modifier, kSampledUsage);
}

// A modifier the device lists for a format, with what the device says of it.
struct ListedModifier {
  uint64_t modifier;
  uint32_t memory_planes;
  VkFormatFeatureFlags features;
};

std::vector<ListedModifier> listed_modifiers(Device& device, VkFormat format) {
  VkDrmFormatModifierPropertiesListEXT list{
      VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT};
  VkFormatProperties2 props{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, &list};
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  std::vector<VkDrmFormatModifierPropertiesEXT> modifiers(list.drmFormatModifierCount);
  list.pDrmFormatModifierProperties = modifiers.data();
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  std::vector<ListedModifier> out;
  out.reserve(modifiers.size());
  for (const VkDrmFormatModifierPropertiesEXT& m : modifiers)
    out.push_back(
        {m.drmFormatModifier, m.drmFormatModifierPlaneCount, m.drmFormatModifierTilingFeatures});
  return out;
}

// The modifiers `format` can be imported with and sampled, of `memory_planes`
// planes (0: any count).
std::vector<uint64_t> sampled_modifiers(Device& device, VkFormat format, uint32_t memory_planes) {
  std::vector<uint64_t> out;
  for (const ListedModifier& m : listed_modifiers(device, format)) {
    if (memory_planes != 0 && m.memory_planes != memory_planes) continue;
    if (!(m.features & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) continue;
    if (importable(device, format, m.modifier)) out.push_back(m.modifier);
  }
  return out;
}

// Whether every fd names the same dma-buf (one inode each).
bool one_dmabuf(const wlr_dmabuf_attributes& attribs) {
  struct stat first {};
  if (fstat(attribs.fd[0], &first) != 0) return false;
  for (int i = 1; i < attribs.n_planes; ++i) {
    struct stat other {};
    if (fstat(attribs.fd[i], &other) != 0 || other.st_ino != first.st_ino ||
        other.st_dev != first.st_dev)
      return false;
  }
  return true;
}

VkImageCreateInfo dmabuf_image_info(VkFormat format, uint32_t width, uint32_t height,
                                    VkImageUsageFlags usage, const void* next) {
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, next};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format;
  info.extent = {width, height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  return info;
}

// Imports `fd` (a copy of it: Vulkan takes the fd it is given) as memory for
// `req`, dedicated to `dedicated_to`.
Result<UniqueMemory> import_memory(Device& device, int source_fd, const VkMemoryRequirements& req,
                                   VkImage dedicated_to) {
  VkDevice dev = device.get();
  auto duplicated = UniqueFd::duplicate_of(source_fd);
  if (!duplicated) return duplicated.error();
  UniqueFd fd = std::move(*duplicated);
  VkMemoryFdPropertiesKHR fd_props{VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
  if (Status s = device.check(
          device.get_memory_fd_properties(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
                                          fd.get(), &fd_props),
          "vkGetMemoryFdPropertiesKHR");
      !s)
    return s.error();
  int type = device.memory_type(req.memoryTypeBits & fd_props.memoryTypeBits, 0);
  if (type < 0) return failure("dma-buf import", "no memory type can hold this dma-buf");
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.image = dedicated_to;
  VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR, &dedicated};
  import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  import.fd = fd.get();
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &import};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (Status s = device.check(vkAllocateMemory(dev, &alloc, nullptr, &memory),
                              "vkAllocateMemory (dma-buf)");
      !s)
    return s.error();
  (void)fd.release();  // the driver owns it now
  return UniqueMemory(dev, memory);
}

// An RGB image whose modifier has several memory planes (a compressed
// modifier's metadata beside the pixels): one memory, from the one dma-buf
// every plane is in, each plane at its offset in it.
Result<ImportedImage> import_memory_planes(Device& device, const wlr_dmabuf_attributes& attribs,
                                           VkFormat format, VkImageUsageFlags usage) {
  VkDevice dev = device.get();
  const auto planes = static_cast<uint32_t>(attribs.n_planes);
  std::vector<VkSubresourceLayout> layouts(planes);
  for (uint32_t i = 0; i < planes; ++i) {
    layouts[i].offset = attribs.offset[i];
    layouts[i].rowPitch = attribs.stride[i];
  }
  VkImageDrmFormatModifierExplicitCreateInfoEXT explicit_info{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT};
  explicit_info.drmFormatModifier = attribs.modifier;
  explicit_info.drmFormatModifierPlaneCount = planes;
  explicit_info.pPlaneLayouts = layouts.data();
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                           &explicit_info};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  const VkImageCreateInfo info = dmabuf_image_info(format, uint32_t(attribs.width),
                                                   uint32_t(attribs.height), usage, &external);
  VkImage image = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateImage(dev, &info, nullptr, &image),
                              "vkCreateImage (multi-plane dma-buf)");
      !s)
    return s.error();
  UniqueImage owned_image(dev, image);
  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(dev, image, &req);
  auto memory = import_memory(device, attribs.fd[0], req, image);
  if (!memory) return memory.error();
  if (Status s = device.check(vkBindImageMemory(dev, image, memory->get(), 0),
                              "vkBindImageMemory (multi-plane dma-buf)");
      !s)
    return s.error();
  return ImportedImage{std::move(owned_image), std::move(*memory)};
}

}  // namespace

void query_dmabuf_formats(Device& device, wlr_drm_format_set& set) {
  if (!device.features().dmabuf_import) return;
  for (const FormatInfo& f : known_formats())
    for (uint64_t modifier : sampled_modifiers(device, f.vk, 0))
      wlr_drm_format_set_add(&set, f.drm, modifier);
  // A YUV format with a modifier every one of its plane images takes: each
  // plane is imported on its own, so each must be a single-plane image.
  for (const PlaneLayout& layout : plane_layouts()) {
    std::vector<uint64_t> common = sampled_modifiers(device, layout.images[0].format, 1);
    for (uint8_t i = 1; i < layout.image_count; ++i) {
      const std::vector<uint64_t> also = sampled_modifiers(device, layout.images[i].format, 1);
      std::erase_if(common, [&](uint64_t m) { return std::ranges::find(also, m) == also.end(); });
    }
    for (uint64_t modifier : common) wlr_drm_format_set_add(&set, layout.info.drm, modifier);
  }
}

bool dmabuf_filters_linearly(Device& device, VkFormat format, uint64_t modifier) {
  // Asked both ways (format features and format features 2), and linear
  // only when both say so: lavapipe (Mesa 25.0) lists linear filtering for
  // LINEAR images in the first and answers nothing in the second, which is
  // what the validation layer reads (VUID-vkCmdDraw-magFilter-04553).
  VkDrmFormatModifierPropertiesListEXT list{
      VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT};
  VkDrmFormatModifierPropertiesList2EXT list2{
      VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_2_EXT, &list};
  VkFormatProperties2 props{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, &list2};
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  std::vector<VkDrmFormatModifierPropertiesEXT> modifiers(list.drmFormatModifierCount);
  std::vector<VkDrmFormatModifierProperties2EXT> modifiers2(list2.drmFormatModifierCount);
  list.pDrmFormatModifierProperties = modifiers.data();
  list2.pDrmFormatModifierProperties = modifiers2.data();
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  bool first = false, second = false;
  for (const VkDrmFormatModifierPropertiesEXT& m : modifiers)
    if (m.drmFormatModifier == modifier)
      first = (m.drmFormatModifierTilingFeatures &
               VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) != 0;
  for (const VkDrmFormatModifierProperties2EXT& m : modifiers2)
    if (m.drmFormatModifier == modifier)
      second = (m.drmFormatModifierTilingFeatures &
                VK_FORMAT_FEATURE_2_SAMPLED_IMAGE_FILTER_LINEAR_BIT) != 0;
  return first && second;
}

bool dmabuf_usage_supported(Device& device, VkFormat format, uint64_t modifier,
                            VkImageUsageFlags usage) {
  return importable_for(device, format, modifier, usage);
}

Result<ImportedImage> import_dmabuf(Device& device, const wlr_dmabuf_attributes& attribs,
                                    const FormatInfo& format, VkImageUsageFlags usage) {
  if (attribs.modifier == DRM_FORMAT_MOD_INVALID) {
    // The implicit modifier is LINEAR where the exporter has no other layout.
    const Status linear = sync::implicit_layout_is_linear(
        std::span<const int>(attribs.fd, static_cast<size_t>(attribs.n_planes)));
    if (!linear) return failure("dma-buf import (implicit modifier)", linear.error().describe());
    wlr_dmabuf_attributes as_linear = attribs;
    as_linear.modifier = DRM_FORMAT_MOD_LINEAR;
    return import_dmabuf(device, as_linear, format, usage);
  }
  const std::vector<ListedModifier> listed = listed_modifiers(device, format.vk);
  const auto it = std::ranges::find(listed, attribs.modifier, &ListedModifier::modifier);
  if (it == listed.end())
    return failure("dma-buf import", "this device has no modifier " +
                                         hex_modifier(attribs.modifier) + " for format " +
                                         hex_format(format.drm));
  if (attribs.n_planes != int(it->memory_planes))
    return failure("dma-buf import", "a dma-buf with " + std::to_string(attribs.n_planes) +
                                         " planes: its modifier " + hex_modifier(attribs.modifier) +
                                         " has " + std::to_string(it->memory_planes));
  if (it->memory_planes > 1) {
    if (!one_dmabuf(attribs))
      return failure("dma-buf import", "the planes of modifier " + hex_modifier(attribs.modifier) +
                                           " are in different dma-bufs; an RGB image's planes "
                                           "are bound from one");
    return import_memory_planes(device, attribs, format.vk, usage);
  }
  const PlaneSource plane{attribs.fd[0], attribs.offset[0], attribs.stride[0]};
  return import_plane(device, plane, attribs.modifier, format.vk, uint32_t(attribs.width),
                      uint32_t(attribs.height), usage);
}

Result<ImportedImage> import_plane(Device& device, const PlaneSource& source, uint64_t modifier,
                                   VkFormat format, uint32_t width, uint32_t height,
                                   VkImageUsageFlags usage) {
  VkDevice dev = device.get();
  VkSubresourceLayout plane{};
  plane.offset = source.offset;
  plane.rowPitch = source.stride;
  VkImageDrmFormatModifierExplicitCreateInfoEXT explicit_info{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT};
  explicit_info.drmFormatModifier = modifier;
  explicit_info.drmFormatModifierPlaneCount = 1;
  explicit_info.pPlaneLayouts = &plane;
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                           &explicit_info};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  const VkImageCreateInfo info = dmabuf_image_info(format, width, height, usage, &external);
  VkImage image = VK_NULL_HANDLE;
  if (Status s =
          device.check(vkCreateImage(dev, &info, nullptr, &image), "vkCreateImage (dma-buf)");
      !s)
    return s.error();
  UniqueImage owned_image(dev, image);
  // Planes that share one fd are imported once per image, each from its own copy.
  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(dev, image, &req);
  auto memory = import_memory(device, source.fd, req, image);
  if (!memory) return memory.error();
  if (Status s = device.check(vkBindImageMemory(dev, image, memory->get(), 0),
                              "vkBindImageMemory (dma-buf)");
      !s)
    return s.error();
  return ImportedImage{std::move(owned_image), std::move(*memory)};
}

Result<std::vector<ImportedImage>> import_dmabuf_planes(Device& device,
                                                        const wlr_dmabuf_attributes& attribs,
                                                        const PlaneLayout& layout) {
  if (attribs.modifier == DRM_FORMAT_MOD_INVALID)
    return failure("dma-buf import", "a dma-buf with an implicit modifier cannot be imported");
  if (attribs.n_planes != layout.planes)
    return failure("dma-buf import", "a " + hex_format(layout.info.drm) + " dma-buf with " +
                                         std::to_string(attribs.n_planes) + " planes, not " +
                                         std::to_string(layout.planes));
  std::vector<ImportedImage> images;
  for (uint8_t i = 0; i < layout.image_count; ++i) {
    const PlaneImage& p = layout.images[i];
    const PlaneSource source{attribs.fd[p.plane], attribs.offset[p.plane], attribs.stride[p.plane]};
    const uint32_t w = (uint32_t(attribs.width) + p.width_divisor - 1) / p.width_divisor;
    const uint32_t h = (uint32_t(attribs.height) + p.height_divisor - 1) / p.height_divisor;
    auto imported = import_plane(device, source, attribs.modifier, p.format, w, h, kSampledUsage);
    if (!imported) return imported.error();
    images.push_back(std::move(*imported));
  }
  return images;
}

}  // namespace baton::vulkan
