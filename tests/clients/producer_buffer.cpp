#include "tests/clients/producer_buffer.hpp"

#include <drm_fourcc.h>

#include <algorithm>
#include <cmath>

namespace baton::testing {

std::optional<Allocator> parse_allocator(std::string_view name) {
  if (name == "udmabuf") return Allocator::udmabuf;
  if (name == "vgem") return Allocator::vgem;
  if (name == "virtio-gpu" || name == "virtio_gpu") return Allocator::virtio_gpu;
  if (name == "shm") return Allocator::shm;
  return std::nullopt;
}

const char* allocator_name(Allocator allocator) {
  switch (allocator) {
    case Allocator::udmabuf:
      return "udmabuf";
    case Allocator::vgem:
      return "vgem";
    case Allocator::virtio_gpu:
      return "virtio-gpu";
    case Allocator::shm:
      return "wl_shm";
  }
  return "?";
}

Result<ProducerBuffer> ProducerBuffer::create(Allocator allocator, int card_fd, uint32_t width,
                                              uint32_t height, uint32_t drm_format) {
  ProducerBuffer buffer;
  buffer.width_ = width;
  buffer.height_ = height;
  buffer.format_ = drm_format;
  if (drm_format == DRM_FORMAT_NV12 || drm_format == DRM_FORMAT_P010) {
    if (allocator != Allocator::udmabuf)
      return failure("a YUV buffer", "only the udmabuf allocator makes NV12 and P010 here");
    // Luma, then interleaved CbCr at half size; P010 samples are 16 bits.
    const uint32_t sample = drm_format == DRM_FORMAT_P010 ? 2 : 1;
    buffer.stride_ = (width * sample + 255) / 256 * 256;
    buffer.chroma_stride_ = buffer.stride_;
    buffer.chroma_offset_ = (buffer.stride_ * height + 4095) / 4096 * 4096;
    auto mem = Udmabuf::create(size_t{buffer.chroma_offset_} +
                               size_t{buffer.chroma_stride_} * ((height + 1) / 2));
    if (!mem) return mem.error();
    buffer.udmabuf_.emplace(std::move(*mem));
    return buffer;
  }
  if (drm_format != DRM_FORMAT_XRGB8888)
    return failure("a client buffer", "formats made here: XRGB8888, NV12, P010");
  if (allocator == Allocator::udmabuf || allocator == Allocator::shm) {
    buffer.stride_ = width * 4;
    const size_t size = size_t{buffer.stride_} * height;
    auto mem = allocator == Allocator::shm ? Udmabuf::create_memfd(size) : Udmabuf::create(size);
    if (!mem) return mem.error();
    buffer.udmabuf_.emplace(std::move(*mem));
    buffer.pixels_ = reinterpret_cast<uint32_t*>(buffer.udmabuf_->data());
  } else {
    auto dumb = DumbBuffer::create(card_fd, width, height);
    if (!dumb) return dumb.error();
    buffer.dumb_.emplace(std::move(*dumb));
    buffer.stride_ = buffer.dumb_->stride();
    buffer.pixels_ = buffer.dumb_->pixels();
  }
  return buffer;
}

int ProducerBuffer::dmabuf() const { return dumb_ ? dumb_->dmabuf() : udmabuf_->dmabuf(); }

void ProducerBuffer::close_dmabuf() {
  if (dumb_) dumb_->close_dmabuf();
  if (udmabuf_) udmabuf_->close_dmabuf();
}

int ProducerBuffer::shm_fd() const { return udmabuf_ ? udmabuf_->memfd() : -1; }

size_t ProducerBuffer::shm_size() const { return udmabuf_ ? udmabuf_->size() : 0; }

void ProducerBuffer::write(uint32_t xrgb) {
  if (format_ != DRM_FORMAT_XRGB8888) {
    write_ycbcr(xrgb);
    return;
  }
  for (uint32_t y = 0; y < height_; ++y) {
    uint32_t* row = pixels_ + size_t{y} * (stride_ / 4);
    for (uint32_t x = 0; x < width_; ++x) row[x] = xrgb;
  }
}

void ProducerBuffer::write_ycbcr(uint32_t xrgb) {
  // BT.601: Y' = 0.299 R' + 0.587 G' + 0.114 B', Cb and Cr the scaled
  // differences; limited range puts Y' in 16..235 and Cb, Cr in 16..240
  // (times 4 at 10 bits, which P010 keeps in the top of 16).
  const double r = ((xrgb >> 16) & 0xff) / 255.0, g = ((xrgb >> 8) & 0xff) / 255.0,
               b = (xrgb & 0xff) / 255.0;
  const double luma = 0.299 * r + 0.587 * g + 0.114 * b;
  const double cb = (b - luma) / 1.772, cr = (r - luma) / 1.402;
  const bool ten = format_ == DRM_FORMAT_P010;
  const double scale = ten ? 4.0 : 1.0;
  auto code = [&](double v, double offset, double range) {
    return static_cast<uint32_t>(std::lround((offset + range * v) * scale));
  };
  const uint32_t y = code(luma, 16, 219), u = code(cb, 128, 224), v = code(cr, 128, 224);
  uint8_t* bytes = udmabuf_->data();
  auto put = [&](uint8_t* at, uint32_t value) {
    if (!ten) {
      *at = static_cast<uint8_t>(value);
      return;
    }
    const uint32_t word = value << 6;
    at[0] = static_cast<uint8_t>(word & 0xff);
    at[1] = static_cast<uint8_t>(word >> 8);
  };
  const uint32_t sample = ten ? 2 : 1;
  for (uint32_t row = 0; row < height_; ++row)
    for (uint32_t x = 0; x < width_; ++x)
      put(bytes + size_t{row} * stride_ + size_t{x} * sample, y);
  for (uint32_t row = 0; row < (height_ + 1) / 2; ++row)
    for (uint32_t x = 0; x < (width_ + 1) / 2; ++x) {
      uint8_t* at = bytes + chroma_offset_ + size_t{row} * chroma_stride_ + size_t{x} * 2 * sample;
      put(at, u);
      put(at + sample, v);
    }
}

}  // namespace baton::testing
