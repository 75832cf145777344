#include "renderer/vulkan/swapchain/exported_image.hpp"

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <cerrno>
#include <vector>

#include "renderer/vulkan/texture/dmabuf_import.hpp"

namespace baton::vulkan {

bool dmabuf_exportable(Device& device, VkFormat format, uint64_t modifier,
                       VkImageUsageFlags usage) {
  return (dmabuf_memory_features(device, format, modifier, usage) &
          VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
}

Result<ExportedImage> create_exported_image(Device& device, const FormatInfo& format,
                                            uint32_t width, uint32_t height,
                                            const wlr_drm_format& offered,
                                            VkImageUsageFlags usage) {
  if (device.get_memory_fd == nullptr || device.get_image_modifier == nullptr)
    return failure("dma-buf export", "the device cannot export dma-bufs");
  // The plane's explicit modifiers that the device renders into and exports.
  std::vector<uint64_t> modifiers;
  for (size_t i = 0; i < offered.len; ++i)
    if (offered.modifiers[i] != DRM_FORMAT_MOD_INVALID &&
        dmabuf_exportable(device, format.vk, offered.modifiers[i], usage))
      modifiers.push_back(offered.modifiers[i]);
  if (modifiers.empty())
    return failure("dma-buf export",
                   "no modifier the plane offers can be rendered into and exported");
  VkDevice dev = device.get();
  VkImageDrmFormatModifierListCreateInfoEXT modifier_list{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_LIST_CREATE_INFO_EXT};
  modifier_list.drmFormatModifierCount = static_cast<uint32_t>(modifiers.size());
  modifier_list.pDrmFormatModifiers = modifiers.data();
  VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO,
                                           &modifier_list};
  external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &external};
  info.imageType = VK_IMAGE_TYPE_2D;
  info.format = format.vk;
  info.extent = {width, height, 1};
  info.mipLevels = 1;
  info.arrayLayers = 1;
  info.samples = VK_SAMPLE_COUNT_1_BIT;
  info.tiling = VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT;
  info.usage = usage;
  info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  ExportedImage out;
  VkImage image = VK_NULL_HANDLE;
  if (Status s =
          device.check(vkCreateImage(dev, &info, nullptr, &image), "vkCreateImage (exported)");
      !s)
    return s.error();
  out.image = UniqueImage(dev, image);

  VkMemoryRequirements req{};
  vkGetImageMemoryRequirements(dev, image, &req);
  const int type = device.memory_type(req.memoryTypeBits, 0);
  if (type < 0) return failure("vkAllocateMemory (exported)", "no memory type fits the image");
  VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
  dedicated.image = image;
  VkExportMemoryAllocateInfo export_info{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO, &dedicated};
  export_info.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, &export_info};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  VkDeviceMemory memory = VK_NULL_HANDLE;
  if (Status s = device.check(vkAllocateMemory(dev, &alloc, nullptr, &memory),
                              "vkAllocateMemory (exported)");
      !s)
    return s.error();
  out.memory = UniqueMemory(dev, memory);
  if (Status s =
          device.check(vkBindImageMemory(dev, image, memory, 0), "vkBindImageMemory (exported)");
      !s)
    return s.error();

  VkMemoryGetFdInfoKHR get_fd{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
  get_fd.memory = memory;
  get_fd.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
  int fd = -1;
  if (Status s = device.check(device.get_memory_fd(dev, &get_fd, &fd), "vkGetMemoryFdKHR"); !s)
    return s.error();
  out.dmabuf = UniqueFd(fd);
  VkImageDrmFormatModifierPropertiesEXT chosen{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_PROPERTIES_EXT};
  if (Status s = device.check(device.get_image_modifier(dev, image, &chosen),
                              "vkGetImageDrmFormatModifierPropertiesEXT");
      !s)
    return s.error();
  out.modifier = chosen.drmFormatModifier;
  VkImageSubresource plane{VK_IMAGE_ASPECT_MEMORY_PLANE_0_BIT_EXT, 0, 0};
  VkSubresourceLayout layout{};
  vkGetImageSubresourceLayout(dev, image, &plane, &layout);
  out.offset = static_cast<uint32_t>(layout.offset);
  out.stride = static_cast<uint32_t>(layout.rowPitch);
  return out;
}

Status kms_takes(int kms_fd, const ExportedImage& image, uint32_t width, uint32_t height,
                 uint32_t drm_format) {
  uint32_t handle = 0;
  if (drmPrimeFDToHandle(kms_fd, image.dmabuf.get(), &handle) != 0)
    // tests grep this line: tests/vm/baton_drm_test.sh
    return last_error("PRIME import");
  uint32_t handles[4] = {handle, 0, 0, 0};
  uint32_t pitches[4] = {image.stride, 0, 0, 0};
  uint32_t offsets[4] = {image.offset, 0, 0, 0};
  uint64_t modifiers[4] = {image.modifier, 0, 0, 0};
  uint64_t with_modifiers = 0;
  const bool explicit_modifier =
      drmGetCap(kms_fd, DRM_CAP_ADDFB2_MODIFIERS, &with_modifiers) == 0 && with_modifiers != 0;
  uint32_t fb = 0;
  int ret = 0;
  if (explicit_modifier) {
    ret = drmModeAddFB2WithModifiers(kms_fd, width, height, drm_format, handles, pitches, offsets,
                                     modifiers, &fb, DRM_MODE_FB_MODIFIERS);
  } else if (image.modifier == DRM_FORMAT_MOD_LINEAR) {
    ret = drmModeAddFB2(kms_fd, width, height, drm_format, handles, pitches, offsets, &fb, 0);
  } else {
    ret = -EINVAL;
    errno = EINVAL;
  }
  const Error refused = last_error("adding a framebuffer");  // before the calls below
  if (ret == 0) drmModeRmFB(kms_fd, fb);
  drmCloseBufferHandle(kms_fd, handle);
  if (ret != 0) return refused;
  return {};
}

}  // namespace baton::vulkan
