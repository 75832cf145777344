// One client buffer as a real producer makes it: a dma-buf from udmabuf, a
// vgem dumb buffer or a virtio-gpu dumb buffer, linear XRGB8888, that the
// test writes "as the GPU would": without DMA_BUF_IOCTL_SYNC, so the write
// never waits on the fences the test itself put on the buffer.
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
  static Result<ProducerBuffer> create(Allocator allocator, int card_fd, uint32_t width,
                                       uint32_t height);

  [[nodiscard]] int dmabuf() const;
  /// Closes the dma-buf fd; the pixels stay writable through the mapping.
  void close_dmabuf();
  /// The memfd of a Allocator::shm buffer (-1 for the others), and its size.
  [[nodiscard]] int shm_fd() const;
  [[nodiscard]] size_t shm_size() const;
  [[nodiscard]] uint32_t stride() const { return stride_; }
  [[nodiscard]] uint32_t width() const { return width_; }
  [[nodiscard]] uint32_t height() const { return height_; }
  /// Fills every pixel with `xrgb`, straight through the mapping.
  void write(uint32_t xrgb);

 private:
  ProducerBuffer() = default;

  std::optional<DumbBuffer> dumb_;
  std::optional<Udmabuf> udmabuf_;
  uint32_t* pixels_ = nullptr;
  uint32_t width_ = 0, height_ = 0, stride_ = 0;
};

}  // namespace baton::testing
