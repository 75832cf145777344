#include "renderer/vulkan/texture/dmabuf_import.hpp"

#include <drm_fourcc.h>
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <vector>

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

}  // namespace

void query_dmabuf_formats(Device& device, wlr_drm_format_set& set) {
  if (!device.features().dmabuf_import) return;
  for (const FormatInfo& f : known_formats()) {
    VkDrmFormatModifierPropertiesListEXT list{
        VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT};
    VkFormatProperties2 props{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, &list};
    vkGetPhysicalDeviceFormatProperties2(device.physical(), f.vk, &props);
    std::vector<VkDrmFormatModifierPropertiesEXT> modifiers(list.drmFormatModifierCount);
    list.pDrmFormatModifierProperties = modifiers.data();
    vkGetPhysicalDeviceFormatProperties2(device.physical(), f.vk, &props);
    for (const VkDrmFormatModifierPropertiesEXT& m : modifiers) {
      // Single-plane formats only; the modifier must be sampleable.
      if (m.drmFormatModifierPlaneCount != 1) continue;
      if (!(m.drmFormatModifierTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT)) continue;
      if (importable(device, f.vk, m.drmFormatModifier))
        wlr_drm_format_set_add(&set, f.drm, m.drmFormatModifier);
    }
  }
}

bool dmabuf_filters_linearly(Device& device, VkFormat format, uint64_t modifier) {
  VkDrmFormatModifierPropertiesListEXT list{
      VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT};
  VkFormatProperties2 props{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, &list};
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  std::vector<VkDrmFormatModifierPropertiesEXT> modifiers(list.drmFormatModifierCount);
  list.pDrmFormatModifierProperties = modifiers.data();
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  for (const VkDrmFormatModifierPropertiesEXT& m : modifiers)
    if (m.drmFormatModifier == modifier)
      return (m.drmFormatModifierTilingFeatures &
              VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) != 0;
  return false;
}

bool dmabuf_usage_supported(Device& device, VkFormat format, uint64_t modifier,
                            VkImageUsageFlags usage) {
  return importable_for(device, format, modifier, usage);
}

Result<ImportedImage> import_dmabuf(Device& device, const wlr_dmabuf_attributes& attribs,
                                    const FormatInfo& format, VkImageUsageFlags usage) {
  if (attribs.modifier == DRM_FORMAT_MOD_INVALID)
    return failure("dma-buf import", "a dma-buf with an implicit modifier cannot be imported");
  if (attribs.n_planes != 1)
    return failure("dma-buf import", "a dma-buf with " + std::to_string(attribs.n_planes) +
                                         " planes: only single-plane formats are imported");
  VkDevice dev = device.get();
  VkSubresourceLayout plane{};
  plane.offset = attribs.offset[0];
  plane.rowPitch = attribs.stride[0];
  VkImageDrmFormatModifierExplicitCreateInfoEXT explicit_info{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT};
  explicit_info.drmFormatModifier = attribs.modifier;
  explicit_info.drmFormatModifierPlaneCount = 1;
  explicit_info.pPlaneLayouts = &plane;
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                           &explicit_info};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &external};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format.vk;
  info.extent = {static_cast<uint32_t>(attribs.width), static_cast<uint32_t>(attribs.height), 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkImage image = VK_NULL_HANDLE;
  if (Status s =
          device.check(vkCreateImage(dev, &info, nullptr, &image), "vkCreateImage (dma-buf)");
      !s)
    return s.error();
  UniqueImage owned_image(dev, image);

  // Vulkan owns the fd once the import succeeds; until then we do.
  auto duplicated = UniqueFd::duplicate_of(attribs.fd[0]);
  if (!duplicated) return duplicated.error();
  UniqueFd fd = std::move(*duplicated);
  VkMemoryFdPropertiesKHR fd_props{VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
  if (Status s = device.check(
          device.get_memory_fd_properties(dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
                                          fd.get(), &fd_props),
          "vkGetMemoryFdPropertiesKHR");
      !s)
    return s.error();
  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(dev, image, &req);
  int type = device.memory_type(req.memoryTypeBits & fd_props.memoryTypeBits, 0);
  if (type < 0) return failure("dma-buf import", "no memory type can hold this dma-buf");
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.image = image;
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
  UniqueMemory owned_memory(dev, memory);
  if (Status s =
          device.check(vkBindImageMemory(dev, image, memory, 0), "vkBindImageMemory (dma-buf)");
      !s)
    return s.error();
  return ImportedImage{std::move(owned_image), std::move(owned_memory)};
}

}  // namespace baton::vulkan
