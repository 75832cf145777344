// A persistently mapped, host-visible VkBuffer (staging and read-back).
#pragma once

#include <cstddef>

#include "renderer/vulkan/device.hpp"
#include "renderer/vulkan/vk_util.hpp"

namespace baton::vulkan {

struct HostBuffer {
  UniqueBuffer buffer;
  UniqueMemory memory;
  void* mapped = nullptr;
  VkDeviceSize size = 0;

  /// Creates a mapped buffer of `size` bytes; false (logged) on failure.
  bool create(Device& device, VkDeviceSize size, VkBufferUsageFlags usage);
};

}  // namespace baton::vulkan
