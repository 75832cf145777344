#include "tests/clients/producer_buffer.hpp"

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
                                              uint32_t height) {
  ProducerBuffer buffer;
  buffer.width_ = width;
  buffer.height_ = height;
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
  for (uint32_t y = 0; y < height_; ++y) {
    uint32_t* row = pixels_ + size_t{y} * (stride_ / 4);
    for (uint32_t x = 0; x < width_; ++x) row[x] = xrgb;
  }
}

}  // namespace baton::testing
