// GPU objects that must outlive the last submission that used them: they
// are destroyed once the device's timeline has passed `point`.
#pragma once

#include <cstdint>

#include "renderer/vulkan/device/vk_util.hpp"
#include "util/buffer_lock.hpp"

namespace baton::vulkan {

struct Retired {
  uint64_t point = 0;
  UniqueImageView view;
  UniqueImageView storage_view;
  UniqueImage image;
  UniqueMemory memory;
  BufferLock source;  // the client's dma-buf, given back after the last read
};

}  // namespace baton::vulkan
