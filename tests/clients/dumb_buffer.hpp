// A dumb buffer on a DRM card node, exported as a dma-buf (PRIME), with a
// CPU mapping: the simplest real dma-buf a producer can fill.
#pragma once

#include <cstddef>
#include <cstdint>

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::testing {

class DumbBuffer {
 public:
  /// DRM_IOCTL_MODE_CREATE_DUMB (32 bpp) + PRIME export + mmap. vgem and
  /// virtio_gpu accept it on the card node only.
  static Result<DumbBuffer> create(int drm_fd, uint32_t width, uint32_t height);

  DumbBuffer(DumbBuffer&& other) noexcept;
  DumbBuffer& operator=(DumbBuffer&&) = delete;
  DumbBuffer(const DumbBuffer&) = delete;
  ~DumbBuffer();

  [[nodiscard]] int dmabuf() const { return dmabuf_.get(); }
  /// Closes the dma-buf fd and keeps the memory (a client that closes its
  /// fd once the compositor has the buffer).
  void close_dmabuf() { dmabuf_.reset(); }
  [[nodiscard]] uint32_t handle() const { return handle_; }
  [[nodiscard]] uint32_t width() const { return width_; }
  [[nodiscard]] uint32_t height() const { return height_; }
  [[nodiscard]] uint32_t stride() const { return stride_; }
  [[nodiscard]] uint32_t* pixels() const { return static_cast<uint32_t*>(map_); }
  void fill(uint32_t argb);

 private:
  DumbBuffer() = default;

  UniqueFd drm_;  // a duplicate: the GEM handle lives on this file
  UniqueFd dmabuf_;
  uint32_t handle_ = 0, width_ = 0, height_ = 0, stride_ = 0;
  size_t size_ = 0;
  void* map_ = nullptr;
};

}  // namespace baton::testing
