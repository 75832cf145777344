// The test GPU's two-plane RGB images (tile_flags_modifier.hpp says what
// the modifiers are and why). Turned on by BATON_TEST_GPU_TILE_FLAGS=1.
//
// What it mimics: a device that lists a compressed RGB modifier with two
// memory planes, sample-only and import-only (as a compositor meets a
// GPU-rendered client buffer), answers its image-format and memory queries,
// takes its plane layouts in vkCreateImage, binds both planes from the one
// memory, and reads both planes when it samples.
//
// How: the application's image is a LINEAR image of the layer's own, in
// memory of the layer's own. The planes the application binds are read
// through the layer's own mapping of the dma-bufs it imported, and decoded
// into that image by the queue thread before each batch, after the batch's
// waits: where a real GPU would read them.
//
// What it cannot mimic: real compression, a GPU that decodes only the tiles
// it samples, and a decode that races nothing (an image whose planes change
// while an earlier batch still samples it is decoded under that batch; no
// test here rewrites a buffer baton still reads).
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <vector>

namespace baton::late_gpu {

/// Physical-device queries, with the modifier added for B8G8R8A8.
void tile_flags_format_properties(PFN_vkGetPhysicalDeviceFormatProperties2 next,
                                  VkPhysicalDevice physical, VkFormat format,
                                  VkFormatProperties2* props);
VkResult tile_flags_image_format_properties(PFN_vkGetPhysicalDeviceImageFormatProperties2 next,
                                            VkPhysicalDevice physical,
                                            const VkPhysicalDeviceImageFormatInfo2* info,
                                            VkImageFormatProperties2* props);

/// The driver's entry points the images use.
struct ImageCalls {
  VkDevice device = VK_NULL_HANDLE;
  PFN_vkCreateImage create_image = nullptr;
  PFN_vkDestroyImage destroy_image = nullptr;
  PFN_vkGetImageMemoryRequirements memory_requirements = nullptr;
  PFN_vkGetImageSubresourceLayout subresource_layout = nullptr;
  PFN_vkAllocateMemory allocate_memory = nullptr;
  PFN_vkFreeMemory free_memory = nullptr;
  PFN_vkMapMemory map_memory = nullptr;
  PFN_vkBindImageMemory bind_image_memory = nullptr;
};

class TileFlagsImages {
 public:
  explicit TileFlagsImages(const ImageCalls& driver) : driver_(driver) {}
  ~TileFlagsImages();
  TileFlagsImages(const TileFlagsImages&) = delete;
  TileFlagsImages& operator=(const TileFlagsImages&) = delete;

  /// Imports keep a mapping of their dma-buf: the planes are read through it.
  VkResult allocate_memory(const VkMemoryAllocateInfo* info, const VkAllocationCallbacks* alloc,
                           VkDeviceMemory* memory);
  void free_memory(VkDeviceMemory memory, const VkAllocationCallbacks* alloc);

  /// An image with one of the modifiers becomes one of these; any other
  /// goes to the driver.
  VkResult create_image(const VkImageCreateInfo* info, const VkAllocationCallbacks* alloc,
                        VkImage* image);
  void destroy_image(VkImage image, const VkAllocationCallbacks* alloc);

  /// These answer only for the layer's images (false: ask the driver).
  bool memory_requirements(VkImage image, VkMemoryRequirements& out);
  /// The same asked of a create info (vkGetDeviceImageMemoryRequirements,
  /// which the validation layer asks); `next` is the driver's.
  bool memory_requirements(const VkDeviceImageMemoryRequirements& info,
                           PFN_vkGetDeviceImageMemoryRequirements next, VkMemoryRequirements& out);
  bool modifier(VkImage image, uint64_t& out);
  bool plane_layout(VkImage image, VkImageAspectFlags plane, VkSubresourceLayout& out);
  /// Binds both memory planes; VK_SUCCESS with `handled` false when the
  /// image is not the layer's.
  VkResult bind(const VkBindImageMemoryInfo& info, bool& handled);

  /// Decodes every bound image into the image the driver samples.
  void decode_all();

 private:
  struct Plane {
    VkSubresourceLayout layout{};
    const unsigned char* bytes = nullptr;  // where the application bound it
  };
  struct Image {
    uint64_t modifier = 0;
    uint32_t width = 0, height = 0;
    std::array<Plane, 2> planes;
    VkDeviceMemory own_memory = VK_NULL_HANDLE;
    unsigned char* pixels = nullptr;  // the driver's image, mapped
    VkDeviceSize pixel_pitch = 0;
    uint32_t memory_type_bits = 0;
    std::vector<unsigned char> decoded;  // scratch, kept between batches
  };
  struct Mapping {
    unsigned char* bytes = nullptr;
    size_t size = 0;
  };

  [[nodiscard]] static VkDeviceSize plane_bytes(const Image& image, size_t plane);
  static VkMemoryRequirements requirements(const Image& image);
  /// Checks an application's create info and reads its planes into `out`;
  /// false (said on stderr) for one the device cannot make.
  static bool describe(const VkImageCreateInfo& info, Image& out);
  void decode(Image& image);

  ImageCalls driver_;
  std::mutex mutex_;
  std::map<VkImage, Image> images_;
  std::map<VkDeviceMemory, Mapping> mappings_;
};

}  // namespace baton::late_gpu
