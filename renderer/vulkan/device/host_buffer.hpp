// A persistently mapped, host-visible VkBuffer (staging and read-back).
#pragma once

#include <cstddef>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/vk_util.hpp"

namespace baton::vulkan {

struct HostBuffer {
  UniqueBuffer buffer;
  UniqueMemory memory;
  void* mapped = nullptr;
  VkDeviceSize size = 0;
  VkMemoryPropertyFlags flags = 0;  // of the memory type it got

  /// Where the memory should live: cached host memory suits what the CPU
  /// reads back; memory the GPU reads often and latency-bound (the compute
  /// compositor's draw lists) belongs in device-local memory the CPU can map.
  enum class Placement { host_cached, device_local };
  /// Creates a mapped buffer of `size` bytes.
  [[nodiscard]] Status create(Device& device, VkDeviceSize size, VkBufferUsageFlags usage,
                              Placement placement = Placement::host_cached);
};

}  // namespace baton::vulkan
