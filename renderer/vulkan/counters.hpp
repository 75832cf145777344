// What the Vulkan renderer counts as it works; tests read the counts through
// introspection.hpp.
#pragma once

#include <cstdint>

namespace baton::vulkan {

struct PassCounts {
  uint64_t raster = 0;
  uint64_t compute = 0;
};

struct UploadCounts {
  uint64_t copied = 0;      // rectangles uploaded by transfer command
  uint64_t dispatched = 0;  // ... and by the upload dispatch
};

}  // namespace baton::vulkan
