// GPU objects that must outlive the last submission that used them: they
// are destroyed once the device's timeline has passed `point`.
#pragma once

#include <cstdint>

#include "renderer/vulkan/device/vk_util.hpp"

namespace baton::vulkan {

struct Retired {
  uint64_t point = 0;
  UniqueImageView view;
  UniqueImageView storage_view;
  UniqueImage image;
  UniqueMemory memory;
};

}  // namespace baton::vulkan
