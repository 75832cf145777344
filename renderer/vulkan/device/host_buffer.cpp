#include "renderer/vulkan/device/host_buffer.hpp"

namespace baton::vulkan {

Status HostBuffer::create(Device& device, VkDeviceSize bytes, VkBufferUsageFlags usage,
                          Placement placement) {
  VkDevice dev = device.get();
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer raw = VK_NULL_HANDLE;
  if (Status s = device.check(vkCreateBuffer(dev, &info, nullptr, &raw), "vkCreateBuffer"); !s)
    return s;
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
  if (type < 0)
    return vk_error("host-visible coherent memory type lookup", VK_ERROR_FEATURE_NOT_PRESENT);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  VkDeviceMemory mem = VK_NULL_HANDLE;
  if (Status s = device.check(vkAllocateMemory(dev, &alloc, nullptr, &mem), "vkAllocateMemory"); !s)
    return s;
  UniqueMemory new_memory(dev, mem);
  if (Status s = device.check(vkBindBufferMemory(dev, raw, mem, 0), "vkBindBufferMemory"); !s)
    return s;
  void* ptr = nullptr;
  if (Status s = device.check(vkMapMemory(dev, mem, 0, VK_WHOLE_SIZE, 0, &ptr), "vkMapMemory"); !s)
    return s;
  buffer = std::move(new_buffer);
  memory = std::move(new_memory);
  mapped = ptr;
  size = bytes;
  flags = device.memory_properties().memoryTypes[type].propertyFlags;
  return {};
}

}  // namespace baton::vulkan
