// A KMS dumb buffer: linear memory the display device allocated itself, so
// it can always scan it out, shared with Vulkan as a dma-buf.
//
// Slots for DRM outputs live in these when the display device cannot import
// memory from elsewhere (virtio-gpu refuses foreign dma-bufs with ENODEV).
#pragma once

#include <cstdint>
#include <memory>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::vulkan {

class DumbBuffer {
 public:
  /// `kms` is the display device, opened for the allocator alone (handles
  /// live as long as it).
  [[nodiscard]] static Result<std::unique_ptr<DumbBuffer>> create(std::shared_ptr<UniqueFd> kms,
                                                                  uint32_t width, uint32_t height,
                                                                  uint32_t bpp);
  ~DumbBuffer();
  DumbBuffer(const DumbBuffer&) = delete;
  DumbBuffer& operator=(const DumbBuffer&) = delete;

  [[nodiscard]] int dmabuf() const { return dmabuf_.get(); }
  [[nodiscard]] uint32_t pitch() const { return pitch_; }

 private:
  DumbBuffer() = default;
  std::shared_ptr<UniqueFd> kms_;
  uint32_t handle_ = 0;
  uint32_t pitch_ = 0;
  UniqueFd dmabuf_;
};

}  // namespace baton::vulkan
