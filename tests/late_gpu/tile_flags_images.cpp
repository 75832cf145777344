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

// Our entry, made from the driver's LINEAR entry (the pixels plane is laid
// out as LINEAR) with only what a sample-only modifier can do.
template <typename Entry>
std::vector<Entry> with_tile_flags(const std::vector<Entry>& driver) {
  std::vector<Entry> out = driver;
  for (const Entry& e : driver) {
    if (e.drmFormatModifier != DRM_FORMAT_MOD_LINEAR) continue;
    Entry ours = e;
    ours.drmFormatModifier = kTileFlagsModifier;
    ours.drmFormatModifierPlaneCount = 2;
    ours.drmFormatModifierTilingFeatures &= kFeatures;
    out.push_back(ours);
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
  const VkDrmFormatModifierPropertiesListEXT app_list =
      list ? *list : VkDrmFormatModifierPropertiesListEXT{};
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
    answer(*list, with_tile_flags(driver));
  }
  if (list2) {
    list2->pDrmFormatModifierProperties = app_list2.pDrmFormatModifierProperties;
    list2->drmFormatModifierCount = app_list2.drmFormatModifierCount;
    answer(*list2, with_tile_flags(driver2));
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
  if (info->format != kFormat || (info->usage & ~kUsages) != 0 || info->flags != 0)
    return VK_ERROR_FORMAT_NOT_SUPPORTED;
  // Answered as LINEAR (its pixels plane is), then import-only.
  modifier->drmFormatModifier = DRM_FORMAT_MOD_LINEAR;
  const VkResult r = next(physical, info, props);
  modifier->drmFormatModifier = kTileFlagsModifier;
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
  auto* import = find_in_chain<VkImportMemoryFdInfoKHR>(
      info->pNext, VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR);
  if (import == nullptr || import->handleType != VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
    return driver_.allocate_memory(driver_.device, info, alloc, memory);
  // An import dedicated to one of the layer's images is not what the driver
  // binds to that image (the layer's own memory is): the driver must not
  // see it as dedicated. baton's chain is the import and the dedication.
  VkMemoryAllocateInfo plain = *info;
  VkImportMemoryFdInfoKHR plain_import = *import;
  auto* dedicated = find_in_chain<VkMemoryDedicatedAllocateInfo>(
      info->pNext, VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO);
  if (dedicated != nullptr && dedicated->buffer == VK_NULL_HANDLE) {
    std::lock_guard lock(mutex_);
    if (images_.contains(dedicated->image)) {
      plain_import.pNext = nullptr;
      plain.pNext = &plain_import;
      info = &plain;
    }
  }
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

bool TileFlagsImages::describe(const VkImageCreateInfo& info, Image& out) {
  auto* explicit_info = find_in_chain<VkImageDrmFormatModifierExplicitCreateInfoEXT>(
      info.pNext, VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT);
  if (explicit_info->drmFormatModifierPlaneCount != 2 || info.format != kFormat ||
      (info.usage & ~kUsages) != 0 || info.flags != 0) {
    std::fprintf(stderr,
                 "late-gpu: a tile-flags image needs 2 planes, B8G8R8A8, sampled use and no "
                 "flags\n");
    return false;
  }
  out.modifier = explicit_info->drmFormatModifier;
  out.width = info.extent.width;
  out.height = info.extent.height;
  for (size_t i = 0; i < 2; ++i) out.planes[i].layout = explicit_info->pPlaneLayouts[i];
  return true;
}

VkResult TileFlagsImages::create_image(const VkImageCreateInfo* info,
                                       const VkAllocationCallbacks* alloc, VkImage* image) {
  auto* explicit_info = find_in_chain<VkImageDrmFormatModifierExplicitCreateInfoEXT>(
      info->pNext, VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT);
  if (info->tiling != VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT || explicit_info == nullptr ||
      !is_tile_flags_modifier(explicit_info->drmFormatModifier))
    return driver_.create_image(driver_.device, info, alloc, image);
  Image ours;
  if (!describe(*info, ours)) return VK_ERROR_FORMAT_NOT_SUPPORTED;

  // The image the driver samples: LINEAR, in memory the layer maps.
  VkImageCreateInfo own = *info;
  own.pNext = nullptr;
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

VkDeviceSize TileFlagsImages::plane_bytes(const Image& image, size_t plane) {
  const uint32_t rows = plane == 0 ? image.height : (image.height + kTileSize - 1) / kTileSize;
  return image.planes[plane].layout.rowPitch * rows;
}

// Both planes, at their offsets in the one memory.
VkMemoryRequirements TileFlagsImages::requirements(const Image& image) {
  VkMemoryRequirements out{};
  out.alignment = 64;
  out.memoryTypeBits = image.memory_type_bits;
  for (size_t i = 0; i < 2; ++i)
    out.size = std::max(out.size, image.planes[i].layout.offset + plane_bytes(image, i));
  return out;
}

bool TileFlagsImages::memory_requirements(VkImage image, VkMemoryRequirements& out) {
  std::lock_guard lock(mutex_);
  auto it = images_.find(image);
  if (it == images_.end()) return false;
  out = requirements(it->second);
  return true;
}

bool TileFlagsImages::memory_requirements(const VkDeviceImageMemoryRequirements& info,
                                          PFN_vkGetDeviceImageMemoryRequirements next,
                                          VkMemoryRequirements& out) {
  const VkImageCreateInfo& create = *info.pCreateInfo;
  auto* explicit_info = find_in_chain<VkImageDrmFormatModifierExplicitCreateInfoEXT>(
      create.pNext, VK_STRUCTURE_TYPE_IMAGE_DRM_FORMAT_MODIFIER_EXPLICIT_CREATE_INFO_EXT);
  if (create.tiling != VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT || explicit_info == nullptr ||
      !is_tile_flags_modifier(explicit_info->drmFormatModifier))
    return false;
  Image ours;
  if (!describe(create, ours)) return false;
  // The memory types are those of the LINEAR image the layer would make.
  VkImageCreateInfo own = create;
  own.pNext = nullptr;
  own.tiling = VK_IMAGE_TILING_LINEAR;
  VkDeviceImageMemoryRequirements own_info{VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS,
                                           nullptr, &own};
  VkMemoryRequirements2 driver{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2};
  next(driver_.device, &own_info, &driver);
  ours.memory_type_bits = driver.memoryRequirements.memoryTypeBits;
  out = requirements(ours);
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
  size_t index = 0;
  if (plane == VK_IMAGE_ASPECT_MEMORY_PLANE_1_BIT_EXT)
    index = 1;
  else if (plane != VK_IMAGE_ASPECT_MEMORY_PLANE_0_BIT_EXT)
    return false;
  std::lock_guard lock(mutex_);
  auto it = images_.find(image);
  if (it == images_.end()) return false;
  out = it->second.planes[index].layout;
  out.size = plane_bytes(it->second, index);
  return true;
}

VkResult TileFlagsImages::bind(const VkBindImageMemoryInfo& info, bool& handled) {
  std::lock_guard lock(mutex_);
  auto it = images_.find(info.image);
  handled = it != images_.end();
  if (!handled) return VK_SUCCESS;
  Image& ours = it->second;
  auto mapping = mappings_.find(info.memory);
  if (mapping == mappings_.end()) {
    std::fprintf(stderr, "late-gpu: a tile-flags image bound to memory that is no dma-buf\n");
    return VK_ERROR_UNKNOWN;
  }
  for (size_t i = 0; i < 2; ++i) {
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
      std::memcpy(&image.decoded[y * row + size_t(x) * kBytesPerPixel],
                  pixels.bytes + sy * pixels.layout.rowPitch + size_t(sx) * kBytesPerPixel,
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
