#include "renderer/vulkan/device/host_buffer.hpp"

namespace baton::vulkan {

bool HostBuffer::create(Device& device, VkDeviceSize bytes, VkBufferUsageFlags usage,
                        Placement placement) {
  VkDevice dev = device.get();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer raw = VK_NULL_HANDLE;
  if (!device.check(vkCreateBuffer(dev, &info, nullptr, &raw), "vkCreateBuffer")) return false;
  UniqueBuffer new_buffer(dev, raw);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(dev, raw, &req);
  // Cached memory makes read-back fast; coherent spares us flush/invalidate.
  const VkMemoryPropertyFlags preferred =
      placement == Placement::device_local
          ? VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
          : VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT |
                VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  int type = device.memory_type(req.memoryTypeBits, preferred);
  if (type < 0)
    type = device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
  if (type < 0) {
    check(VK_ERROR_FEATURE_NOT_PRESENT, "host-visible coherent memory type lookup");
    return false;
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  VkDeviceMemory mem = VK_NULL_HANDLE;
  if (!device.check(vkAllocateMemory(dev, &alloc, nullptr, &mem), "vkAllocateMemory")) return false;
  UniqueMemory new_memory(dev, mem);
  if (!device.check(vkBindBufferMemory(dev, raw, mem, 0), "vkBindBufferMemory")) return false;
  void* ptr = nullptr;
  if (!device.check(vkMapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, &ptr), "vkMapMemory")) return false;
  buffer = std::move(new_buffer);
  memory = std::move(new_memory);
  mapped = ptr;
  size = bytes;
  flags = device.memory_properties().memoryTypes[type].propertyFlags;
  return true;
}

}  // namespace baton::vulkan
