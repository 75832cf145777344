#include "renderer/vulkan/swapchain/exported_image.hpp"

#include <drm_fourcc.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <limits>
#include <string>
#include <vector>

#include "renderer/vulkan/texture/dmabuf_import.hpp"

namespace baton::vulkan {
namespace {

// The format features an image needs for `usage` (those slots are made with).
VkFormatFeatureFlags features_for(VkImageUsageFlags usage) {
  VkFormatFeatureFlags needed = 0;
  if (usage & VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT) needed |= VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT;
  if (usage & VK_IMAGE_USAGE_SAMPLED_BIT) needed |= VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT;
  if (usage & VK_IMAGE_USAGE_STORAGE_BIT) needed |= VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT;
  if (usage & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) needed |= VK_FORMAT_FEATURE_TRANSFER_SRC_BIT;
  if (usage & VK_IMAGE_USAGE_TRANSFER_DST_BIT) needed |= VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
  return needed;
}

// What the device lists for `format` with VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT.
std::vector<VkDrmFormatModifierPropertiesEXT> modifier_properties(Device& device, VkFormat format) {
  VkDrmFormatModifierPropertiesListEXT list{
      VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT};
  VkFormatProperties2 props{VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2, &list};
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  std::vector<VkDrmFormatModifierPropertiesEXT> modifiers(list.drmFormatModifierCount);
  list.pDrmFormatModifierProperties = modifiers.data();
  vkGetPhysicalDeviceFormatProperties2(device.physical(), format, &props);
  modifiers.resize(list.drmFormatModifierCount);
  return modifiers;
}

// The GEM handles a dma-buf's planes have on a display device, closed when
// this goes (planes of one dma-buf share one handle: closed once).
class GemHandles {
 public:
  explicit GemHandles(int kms_fd) : kms_fd_(kms_fd) {}
  ~GemHandles() {
    for (size_t i = 0; i < handles_.size(); ++i)
      if (handles_[i] != 0 &&
          std::find(handles_.begin(), handles_.begin() + i, handles_[i]) == handles_.begin() + i)
        drmCloseBufferHandle(kms_fd_, handles_[i]);
  }
  GemHandles(const GemHandles&) = delete;
  GemHandles& operator=(const GemHandles&) = delete;
  std::array<uint32_t, WLR_DMABUF_MAX_PLANES>& handles() { return handles_; }

 private:
  int kms_fd_;
  std::array<uint32_t, WLR_DMABUF_MAX_PLANES> handles_{};
};

}  // namespace

wlr_dmabuf_attributes ExportedDmabuf::attributes(uint32_t width, uint32_t height,
                                                 uint32_t drm_format) const {
  wlr_dmabuf_attributes attribs{};
  attribs.width = static_cast<int32_t>(width);
  attribs.height = static_cast<int32_t>(height);
  attribs.format = drm_format;
  attribs.modifier = modifier;
  attribs.n_planes = static_cast<int>(std::min<size_t>(planes.size(), WLR_DMABUF_MAX_PLANES));
  for (int i = 0; i < attribs.n_planes; ++i) {
    attribs.fd[i] = planes[i].fd.get();
    attribs.offset[i] = planes[i].offset;
    attribs.stride[i] = planes[i].stride;
  }
  return attribs;
}

std::vector<uint64_t> slot_modifier_candidates(
    std::span<const VkDrmFormatModifierPropertiesEXT> device, std::span<const uint64_t> offered,
    VkFormatFeatureFlags needed) {
  std::vector<uint64_t> chosen;
  for (uint64_t modifier : offered) {
    if (modifier == DRM_FORMAT_MOD_INVALID) continue;  // no layout to describe to anyone
    if (std::find(chosen.begin(), chosen.end(), modifier) != chosen.end()) continue;
    const bool usable =
        std::any_of(device.begin(), device.end(), [&](const VkDrmFormatModifierPropertiesEXT& m) {
          return m.drmFormatModifier == modifier &&
                 (m.drmFormatModifierTilingFeatures & needed) == needed &&
                 // Every memory plane is exported, and a dma-buf describes at most four.
                 m.drmFormatModifierPlaneCount >= 1 &&
                 m.drmFormatModifierPlaneCount <= WLR_DMABUF_MAX_PLANES;
        });
    if (usable) chosen.push_back(modifier);
  }
  return chosen;
}

uint32_t memory_plane_count(std::span<const VkDrmFormatModifierPropertiesEXT> device,
                            uint64_t modifier) {
  for (const VkDrmFormatModifierPropertiesEXT& m : device)
    if (m.drmFormatModifier == modifier) return m.drmFormatModifierPlaneCount;
  return 0;
}

Result<ExportedDmabuf> dmabuf_planes(UniqueFd dmabuf, uint64_t modifier,
                                     std::span<const VkSubresourceLayout> layouts) {
  if (layouts.empty() || layouts.size() > WLR_DMABUF_MAX_PLANES)
    return failure("describing an exported dma-buf",
                   std::to_string(layouts.size()) + " memory planes (1 to " +
                       std::to_string(WLR_DMABUF_MAX_PLANES) + " can be described)");
  constexpr VkDeviceSize kMax = std::numeric_limits<uint32_t>::max();
  ExportedDmabuf out;
  out.modifier = modifier;
  out.planes.reserve(layouts.size());
  for (size_t i = 0; i < layouts.size(); ++i) {
    if (layouts[i].offset > kMax || layouts[i].rowPitch > kMax)
      return failure("describing an exported dma-buf",
                     "memory plane " + std::to_string(i) + " lies past 32-bit offsets");
    ExportedPlane plane;
    plane.offset = static_cast<uint32_t>(layouts[i].offset);
    plane.stride = static_cast<uint32_t>(layouts[i].rowPitch);
    out.planes.push_back(std::move(plane));
  }
  // Each plane an fd of its own, as linux-dmabuf and wlroots pass them:
  // plane 0 keeps the exported one, the others are duplicates of it.
  out.planes[0].fd = std::move(dmabuf);
  for (size_t i = 1; i < out.planes.size(); ++i) {
    auto dup = out.planes[0].fd.duplicate();
    if (!dup) return dup.error();
    out.planes[i].fd = std::move(*dup);
  }
  return out;
}

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
  // The plane's explicit modifiers that the device renders into and exports,
  // with as many memory planes as a dma-buf can describe.
  const std::vector<VkDrmFormatModifierPropertiesEXT> listed =
      modifier_properties(device, format.vk);
  std::vector<uint64_t> modifiers;
  for (uint64_t modifier : slot_modifier_candidates(
           listed, std::span<const uint64_t>(offered.modifiers, offered.len), features_for(usage)))
    if (dmabuf_exportable(device, format.vk, modifier, usage)) modifiers.push_back(modifier);
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
  UniqueFd dmabuf(fd);
  VkImageDrmFormatModifierPropertiesEXT chosen{
      VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_PROPERTIES_EXT};
  if (Status s = device.check(device.get_image_modifier(dev, image, &chosen),
                              "vkGetImageDrmFormatModifierPropertiesEXT");
      !s)
    return s.error();
  // Every memory plane of the chosen modifier: a consumer given fewer would
  // miss the image's compression metadata.
  auto described = describe_exported(
      std::move(dmabuf), listed, chosen.drmFormatModifier, [&](VkImageAspectFlagBits aspect) {
        VkImageSubresource plane{static_cast<VkImageAspectFlags>(aspect), 0, 0};
        VkSubresourceLayout layout{};
        vkGetImageSubresourceLayout(dev, image, &plane, &layout);
        return layout;
      });
  if (!described) return described.error();
  out.dmabuf = std::move(*described);
  return out;
}

Status kms_takes(int kms_fd, const ExportedDmabuf& dmabuf, uint32_t width, uint32_t height,
                 uint32_t drm_format) {
  const wlr_dmabuf_attributes attribs = dmabuf.attributes(width, height, drm_format);
  if (attribs.n_planes < 1) return failure("adding a framebuffer", "the dma-buf has no plane");
  GemHandles gem(kms_fd);
  uint32_t pitches[4] = {};
  uint32_t offsets[4] = {};
  uint64_t modifiers[4] = {};
  for (int i = 0; i < attribs.n_planes; ++i) {
    if (drmPrimeFDToHandle(kms_fd, attribs.fd[i], &gem.handles()[i]) != 0)
      // tests grep this line: tests/vm/baton_drm_test.sh
      return last_error("PRIME import");
    pitches[i] = attribs.stride[i];
    offsets[i] = attribs.offset[i];
    modifiers[i] = attribs.modifier;
  }
  uint64_t with_modifiers = 0;
  const bool explicit_modifier =
      drmGetCap(kms_fd, DRM_CAP_ADDFB2_MODIFIERS, &with_modifiers) == 0 && with_modifiers != 0;
  uint32_t fb = 0;
  int ret = 0;
  if (explicit_modifier) {
    ret = drmModeAddFB2WithModifiers(kms_fd, width, height, drm_format, gem.handles().data(),
                                     pitches, offsets, modifiers, &fb, DRM_MODE_FB_MODIFIERS);
  } else if (attribs.modifier == DRM_FORMAT_MOD_LINEAR && attribs.n_planes == 1) {
    ret = drmModeAddFB2(kms_fd, width, height, drm_format, gem.handles().data(), pitches, offsets,
                        &fb, 0);
  } else {
    ret = -EINVAL;
    errno = EINVAL;
  }
  if (ret != 0) return last_error("adding a framebuffer");
  drmModeRmFB(kms_fd, fb);
  return {};
}

}  // namespace baton::vulkan
