#include "tests/late_gpu/tile_flags_images.hpp"

#include <drm_fourcc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "tests/late_gpu/tile_flags_modifier.hpp"

namespace baton::late_gpu {
namespace {

constexpr VkFormat kFormat = VK_FORMAT_B8G8R8A8_UNORM;
constexpr uint32_t kBytesPerPixel = 4;
constexpr VkImageUsageFlags kUsages = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
// What a sample-only compressed modifier can do: sampling and copies out.
constexpr VkFormatFeatureFlags kFeatures =
    VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT |
    VK_FORMAT_FEATURE_TRANSFER_SRC_BIT | VK_FORMAT_FEATURE_BLIT_SRC_BIT;

template <typename T>
T* find_in_chain(const void* chain, VkStructureType type) {
  for (auto* s = static_cast<const VkBaseInStructure*>(chain); s != nullptr; s = s->pNext)
    if (s->sType == type) return reinterpret_cast<T*>(const_cast<VkBaseInStructure*>(s));
  return nullptr;
}

uint32_t plane_index(VkImageAspectFlags aspect) {
  switch (aspect) {
    case VK_IMAGE_ASPECT_MEMORY_PLANE_0_BIT_EXT:
      return 0;
    case VK_IMAGE_ASPECT_MEMORY_PLANE_1_BIT_EXT:
      return 1;
    default:
      return 2;  // not a plane these images have
  }
}

// Our two entries, made from the driver's LINEAR entry (the pixels plane is
// laid out as LINEAR) with only what a sample-only modifier can do.
template <typename Entry, typename Flags>
std::vector<Entry> with_tile_flags(const std::vector<Entry>& driver, Flags disjoint) {
  std::vector<Entry> out = driver;
  for (const Entry& e : driver) {
    if (e.drmFormatModifier != DRM_FORMAT_MOD_LINEAR) continue;
    Entry one = e;
    one.drmFormatModifier = kTileFlagsModifier;
    one.drmFormatModifierPlaneCount = 2;
    one.drmFormatModifierTilingFeatures &= kFeatures;
    out.push_back(one);
    one.drmFormatModifier = kTileFlagsDisjointModifier;
    one.drmFormatModifierTilingFeatures |= disjoint;
    out.push_back(one);
  }
  return out;
}

// Fills an application's list the way Vulkan's two-call idiom asks.
template <typename List, typename Entry>
void answer(List& list, const std::vector<Entry>& entries) {
  if (list.pDrmFormatModifierProperties == nullptr) {
    list.drmFormatModifierCount = static_cast<uint32_t>(entries.size());
    return;
  }
  list.drmFormatModifierCount =
      std::min(list.drmFormatModifierCount, static_cast<uint32_t>(entries.size()));
  std::copy_n(entries.begin(), list.drmFormatModifierCount, list.pDrmFormatModifierProperties);
}

}  // namespace

void tile_flags_format_properties(PFN_vkGetPhysicalDeviceFormatProperties2 next,
                                  VkPhysicalDevice physical, VkFormat format,
                                  VkFormatProperties2* props) {
  auto* list = find_in_chain<VkDrmFormatModifierPropertiesListEXT>(
      props->pNext, VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_EXT);
  auto* list2 = find_in_chain<VkDrmFormatModifierPropertiesList2EXT>(
      props->pNext, VK_STRUCTURE_TYPE_DRM_FORMAT_MODIFIER_PROPERTIES_LIST_2_EXT);
  if (format != kFormat || (list == nullptr && list2 == nullptr)) {
    next(physical, format, props);
    return;
  }
  // Ask the driver into lists of our own, then answer from them.
  const VkDrmFormatModifierPropertiesListEXT app_list = list ? *list : VkDrmFormatModifierPropertiesListEXT{};
  const VkDrmFormatModifierPropertiesList2EXT app_list2 =
      list2 ? *list2 : VkDrmFormatModifierPropertiesList2EXT{};
  if (list) list->pDrmFormatModifierProperties = nullptr;
  if (list2) list2->pDrmFormatModifierProperties = nullptr;
  next(physical, format, props);
  std::vector<VkDrmFormatModifierPropertiesEXT> driver(list ? list->drmFormatModifierCount : 0);
  std::vector<VkDrmFormatModifierProperties2EXT> driver2(list2 ? list2->drmFormatModifierCount : 0);
  if (list) list->pDrmFormatModifierProperties = driver.data();
  if (list2) list2->pDrmFormatModifierProperties = driver2.data();
  next(physical, format, props);
  if (list) {
    list->pDrmFormatModifierProperties = app_list.pDrmFormatModifierProperties;
    list->drmFormatModifierCount = app_list.drmFormatModifierCount;
    answer(*list, with_tile_flags(driver, VkFormatFeatureFlags{VK_FORMAT_FEATURE_DISJOINT_BIT}));
  }
  if (list2) {
    list2->pDrmFormatModifierProperties = app_list2.pDrmFormatModifierProperties;
    list2->drmFormatModifierCount = app_list2.drmFormatModifierCount;
    answer(*list2,
           with_tile_flags(driver2, VkFormatFeatureFlags2{VK_FORMAT_FEATURE_2_DISJOINT_BIT}));
  }
}

VkResult tile_flags_image_format_properties(PFN_vkGetPhysicalDeviceImageFormatProperties2 next,
                                            VkPhysicalDevice physical,
                                            const VkPhysicalDeviceImageFormatInfo2* info,
                                            VkImageFormatProperties2* props) {
  auto* modifier = find_in_chain<VkPhysicalDeviceImageDrmFormatModifierInfoEXT>(
      info->pNext, VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_DRM_FORMAT_MODIFIER_INFO_EXT);
  if (modifier == nullptr || !is_tile_flags_modifier(modifier->drmFormatModifier))
    return next(physical, info, props);
  const bool disjoint_allowed = modifier->drmFormatModifier == kTileFlagsDisjointModifier;
  const VkImageCreateFlags allowed_flags = disjoint_allowed ? VK_IMAGE_CREATE_DISJOINT_BIT : 0;
  if (info->format != kFormat || (info->usage & ~kUsages) != 0 || (info->flags & ~allowed_flags))
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  // Answered as LINEAR (its pixels plane is), asked without DISJOINT, which
  // a single-plane LINEAR image cannot have; then import-only.
  const uint64_t ours = modifier->drmFormatModifier;
  auto* writable = const_cast<VkPhysicalDeviceImageFormatInfo2*>(info);
  const VkImageCreateFlags flags = info->flags;
  modifier->drmFormatModifier = DRM_FORMAT_MOD_LINEAR;
  writable->flags &= ~VK_IMAGE_CREATE_DISJOINT_BIT;
  const VkResult r = next(physical, info, props);
  modifier->drmFormatModifier = ours;
  writable->flags = flags;
  if (auto* external = find_in_chain<VkExternalImageFormatProperties>(
          props->pNext, VK_STRUCTURE_TYPE_EXTERNAL_IMAGE_FORMAT_PROPERTIES))
    external->externalMemoryProperties.externalMemoryFeatures &=
        ~VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT;
  return r;
}

TileFlagsImages::~TileFlagsImages() {
  for (auto& [memory, mapping] : mappings_) munmap(mapping.bytes, mapping.size);
}

VkResult TileFlagsImages::allocate_memory(const VkMemoryAllocateInfo* info,
                                          const VkAllocationCallbacks* alloc,
                                          VkDeviceMemory* memory) {
  auto* import =
      find_in_chain<VkImportMemoryFdInfoKHR>(info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR);
  if (import == nullptr || import->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
    return driver_.allocate_memory(driver_.device, info, alloc, memory);
  // The driver takes the fd; the layer maps the same dma-buf first.
  Mapping mapping;
  const off_t size = lseek(import->fd, 0, SEEK_END);
  if (size > 0) {
    void* bytes = mmap(nullptr, size_t(size), PROT_READ, MAP_SHARED, import->fd, 0);
    if (bytes != MAP_FAILED) mapping = {static_cast<unsigned char*>(bytes), size_t(size)};
  }
  const VkResult r = driver_.allocate_memory(driver_.device, info, alloc, memory);
  if (r != VK_SUCCESS || mapping.bytes == nullptr) {
    if (mapping.bytes != nullptr) munmap(mapping.bytes, mapping.size);
    return r;
  }
  std::lock_guard lock(mutex_);
  mappings_[*memory] = mapping;
  return r;
}

void TileFlagsImages::free_memory(VkDeviceMemory memory, const VkAllocationCallbacks* alloc) {
  {
    std::lock_guard lock(mutex_);
    if (auto it = mappings_.find(memory); it != mappings_.end()) {
      munmap(it->second.bytes, it->second.size);
      mappings_.erase(it);
    }
  }
  driver_.free_memory(driver_.device, memory, alloc);
}

VkResult TileFlagsImages::create_image(const VkImageCreateInfo* info,
                                       const VkAllocationCallbacks* alloc, VkImage* image) {
  auto* explicit_info = find_in_chain<VkImageDrmFormatModifierExplicitCreateInfoEXT>(
      info->pNext, VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT);
  if (info->tiling != VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT || explicit_info == nullptr ||
      !is_tile_flags_modifier(explicit_info->drmFormatModifier))
    return driver_.create_image(driver_.device, info, alloc, image);
  if (explicit_info->drmFormatModifierPlaneCount != 2 || info->format != kFormat ||
      (info->usage & ~kUsages) != 0) {
    std::fprintf(stderr, "late-gpu: a tile-flags image needs 2 planes, B8G8R8A8 and sampled use\n");
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  Image ours;
  ours.modifier = explicit_info->drmFormatModifier;
  ours.width = info->extent.width;
  ours.height = info->extent.height;
  ours.disjoint = (info->flags & VK_IMAGE_CREATE_DISJOINT_BIT) != 0;
  if (ours.disjoint && ours.modifier != kTileFlagsDisjointModifier) {
    std::fprintf(stderr, "late-gpu: DISJOINT asked for a modifier that does not allow it\n");
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  }
  for (size_t i = 0; i < 2; ++i) ours.planes[i].layout = explicit_info->pPlaneLayouts[i];

  // The image the driver samples: LINEAR, in memory the layer maps.
  VkImageCreateInfo own = *info;
  own.pNext = nullptr;
  own.flags &= ~VK_IMAGE_CREATE_DISJOINT_BIT;
  own.tiling = VK_IMAGE_TILING_LINEAR;
  own.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
  VkResult r = driver_.create_image(driver_.device, &own, alloc, image);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req{};
  driver_.memory_requirements(driver_.device, *image, &req);
  ours.memory_type_bits = req.memoryTypeBits;
  VkMemoryAllocateInfo allocate{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  allocate.allocationSize = req.size;
  // Every memory type of lavapipe's is host-visible.
  allocate.memoryTypeIndex = static_cast<uint32_t>(__builtin_ctz(req.memoryTypeBits));
  void* mapped = nullptr;
  if ((r = driver_.allocate_memory(driver_.device, &allocate, nullptr, &ours.own_memory)) !=
          VK_SUCCESS ||
      (r = driver_.bind_image_memory(driver_.device, *image, ours.own_memory, 0)) != VK_SUCCESS ||
      (r = driver_.map_memory(driver_.device, ours.own_memory, 0, VK_WHOLE_SIZE, 0, &mapped)) !=
          VK_SUCCESS) {
    if (ours.own_memory != VK_NULL_HANDLE)
      driver_.free_memory(driver_.device, ours.own_memory, nullptr);
    driver_.destroy_image(driver_.device, *image, alloc);
    return r;
  }
  VkImageSubresource color{VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
  VkSubresourceLayout layout{};
  driver_.subresource_layout(driver_.device, *image, &color, &layout);
  ours.pixels = static_cast<unsigned char*>(mapped) + layout.offset;
  ours.pixel_pitch = layout.rowPitch;
  std::lock_guard lock(mutex_);
  images_[*image] = std::move(ours);
  return VK_SUCCESS;
}

void TileFlagsImages::destroy_image(VkImage image, const VkAllocationCallbacks* alloc) {
  VkDeviceMemory own = VK_NULL_HANDLE;
  {
    std::lock_guard lock(mutex_);
    if (auto it = images_.find(image); it != images_.end()) {
      own = it->second.own_memory;
      images_.erase(it);
    }
  }
  driver_.destroy_image(driver_.device, image, alloc);
  if (own != VK_NULL_HANDLE) driver_.free_memory(driver_.device, own, nullptr);
}

VkDeviceSize TileFlagsImages::plane_bytes(const Image& image, size_t plane) const {
  const uint32_t rows = plane == 0 ? image.height : (image.height + kTileSize - 1) / kTileSize;
  return image.planes[plane].layout.rowPitch * rows;
}

bool TileFlagsImages::memory_requirements(VkImage image, VkImageAspectFlags plane,
                                          VkMemoryRequirements& out) {
  std::lock_guard lock(mutex_);
  auto it = images_.find(image);
  if (it == images_.end()) return false;
  const Image& ours = it->second;
  out = {};
  out.alignment = 64;
  out.memoryTypeBits = ours.memory_type_bits;
  for (size_t i = 0; i < 2; ++i) {
    if (plane != 0 && plane_index(plane) != i) continue;
    out.size = std::max(out.size, ours.planes[i].layout.offset + plane_bytes(ours, i));
  }
  return true;
}

bool TileFlagsImages::modifier(VkImage image, uint64_t& out) {
  std::lock_guard lock(mutex_);
  auto it = images_.find(image);
  if (it == images_.end()) return false;
  out = it->second.modifier;
  return true;
}

bool TileFlagsImages::plane_layout(VkImage image, VkImageAspectFlags plane,
                                   VkSubresourceLayout& out) {
  std::lock_guard lock(mutex_);
  auto it = images_.find(image);
  if (it == images_.end() || plane_index(plane) > 1) return false;
  out = it->second.planes[plane_index(plane)].layout;
  out.size = plane_bytes(it->second, plane_index(plane));
  return true;
}

VkResult TileFlagsImages::bind(const VkBindImageMemoryInfo& info, bool& handled) {
  std::lock_guard lock(mutex_);
  auto it = images_.find(info.image);
  handled = it != images_.end();
  if (!handled) return VK_SUCCESS;
  Image& ours = it->second;
  auto* plane_info = find_in_chain<VkBindImagePlaneMemoryInfo>(
      info.pNext, VK_STRUCTURE_TYPE_BIND_IMAGE_PLANE_MEMORY_INFO);
  if (ours.disjoint != (plane_info != nullptr)) {
    std::fprintf(stderr, "late-gpu: a %s image bound %s\n",
                 ours.disjoint ? "disjoint" : "non-disjoint",
                 plane_info ? "one plane at a time" : "whole");
    return VK_ERROR_UNKNOWN;
  }
  auto mapping = mappings_.find(info.memory);
  if (mapping == mappings_.end()) {
    std::fprintf(stderr, "late-gpu: a tile-flags image bound to memory that is no dma-buf\n");
    return VK_ERROR_UNKNOWN;
  }
  for (size_t i = 0; i < 2; ++i) {
    if (plane_info != nullptr && plane_index(plane_info->planeAspect) != i) continue;
    const VkDeviceSize start = info.memoryOffset + ours.planes[i].layout.offset;
    if (start + plane_bytes(ours, i) > mapping->second.size) {
      std::fprintf(stderr, "late-gpu: plane %zu of a tile-flags image lies past its dma-buf\n", i);
      return VK_ERROR_UNKNOWN;
    }
    ours.planes[i].bytes = mapping->second.bytes + start;
  }
  return VK_SUCCESS;
}

void TileFlagsImages::decode(Image& image) {
  const Plane& pixels = image.planes[0];
  const Plane& flags = image.planes[1];
  if (pixels.bytes == nullptr || flags.bytes == nullptr) return;  // not bound yet
  const size_t row = size_t(image.width) * kBytesPerPixel;
  image.decoded.resize(row * image.height);
  for (uint32_t y = 0; y < image.height; ++y) {
    const unsigned char* tile_flags = flags.bytes + (y / kTileSize) * flags.layout.rowPitch;
    for (uint32_t x = 0; x < image.width; ++x) {
      const bool constant = tile_flags[x / kTileSize] != 0;
      const uint32_t sx = constant ? x - x % kTileSize : x;
      const uint32_t sy = constant ? y - y % kTileSize : y;
      std::memcpy(&image.decoded[y * row + x * kBytesPerPixel],
                  pixels.bytes + sy * pixels.layout.rowPitch + sx * kBytesPerPixel,
                  kBytesPerPixel);
    }
  }
  for (uint32_t y = 0; y < image.height; ++y) {
    unsigned char* target = image.pixels + y * image.pixel_pitch;
    if (std::memcmp(target, &image.decoded[y * row], row) != 0)
      std::memcpy(target, &image.decoded[y * row], row);
  }
}

void TileFlagsImages::decode_all() {
  std::lock_guard lock(mutex_);
  for (auto& [handle, image] : images_) decode(image);
}

}  // namespace baton::late_gpu
