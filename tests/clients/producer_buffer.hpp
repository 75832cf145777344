// One client buffer as a real producer makes it: a dma-buf from udmabuf, a
// vgem dumb buffer or a virtio-gpu dumb buffer, linear XRGB8888, that the
// test writes "as the GPU would": without DMA_BUF_IOCTL_SYNC, so the write
// never waits on the fences the test itself put on the buffer. A udmabuf
// may instead hold a video decoder's NV12 or P010 frame (two planes in the
// one dma-buf), written as Y'CbCr, BT.601 limited range: what a compositor
// reads when the client says nothing else.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "tests/clients/dumb_buffer.hpp"
#include "tests/clients/udmabuf.hpp"
#include "util/result.hpp"

namespace baton::testing {

enum class Allocator { udmabuf, vgem, virtio_gpu, shm };  // shm: a wl_shm memfd, no dma-buf
std::optional<Allocator> parse_allocator(std::string_view name);
const char* allocator_name(Allocator allocator);

class ProducerBuffer {
 public:
  /// `card_fd`: the vgem or virtio_gpu card node (unused for udmabuf).
  /// `drm_format`: XRGB8888, or NV12 / P010 with the udmabuf allocator.
  static Result<ProducerBuffer> create(Allocator allocator, int card_fd, uint32_t width,
                                       uint32_t height, uint32_t drm_format = kXrgb8888);

  [[nodiscard]] int dmabuf() const;
  /// Closes the dma-buf fd; the pixels stay writable through the mapping.
  void close_dmabuf();
  /// The memfd of a Allocator::shm buffer (-1 for the others), and its size.
  [[nodiscard]] int shm_fd() const;
  [[nodiscard]] size_t shm_size() const;
  [[nodiscard]] uint32_t stride() const { return stride_; }
  [[nodiscard]] uint32_t format() const { return format_; }
  /// The dma-buf's planes (1, or 2 for NV12 and P010), each in the one fd.
  [[nodiscard]] int planes() const { return format_ == kXrgb8888 ? 1 : 2; }
  [[nodiscard]] uint32_t plane_offset(int plane) const { return plane == 0 ? 0 : chroma_offset_; }
  [[nodiscard]] uint32_t plane_stride(int plane) const {
    return plane == 0 ? stride_ : chroma_stride_;
  }
  [[nodiscard]] uint32_t width() const { return width_; }
  [[nodiscard]] uint32_t height() const { return height_; }
  /// Fills every pixel with `xrgb` (as Y'CbCr codes for NV12 and P010),
  /// straight through the mapping.
  void write(uint32_t xrgb);

  static constexpr uint32_t kXrgb8888 = 0x34325258;  // DRM_FORMAT_XRGB8888

 private:
  ProducerBuffer() = default;
  void write_ycbcr(uint32_t xrgb);

  std::optional<DumbBuffer> dumb_;
  std::optional<Udmabuf> udmabuf_;
  uint32_t* pixels_ = nullptr;
  uint32_t width_ = 0, height_ = 0, stride_ = 0;
  uint32_t format_ = kXrgb8888;
  uint32_t chroma_offset_ = 0, chroma_stride_ = 0;
};

}  // namespace baton::testing
