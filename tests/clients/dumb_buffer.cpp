#include "tests/clients/dumb_buffer.hpp"

#include <fcntl.h>
#include <linux/dma-buf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <xf86drm.h>

#include <utility>

namespace baton::testing {

Result<DumbBuffer> DumbBuffer::create(int drm_fd, uint32_t width, uint32_t height) {
  DumbBuffer buffer;
  buffer.drm_ = UniqueFd(fcntl(drm_fd, F_DUPFD_CLOEXEC, 0));
  if (!buffer.drm_) return last_error("fcntl(F_DUPFD_CLOEXEC)");
  drm_mode_create_dumb create{};
  create.width = width;
  create.height = height;
  create.bpp = 32;
  if (drmIoctl(drm_fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0)
    return last_error("DRM_IOCTL_MODE_CREATE_DUMB");
  buffer.handle_ = create.handle;
  buffer.width_ = width;
  buffer.height_ = height;
  buffer.stride_ = create.pitch;
  buffer.size_ = create.size;
  int fd = -1;
  if (drmPrimeHandleToFD(drm_fd, create.handle, DRM_CLOEXEC | DRM_RDWR, &fd) < 0)
    return last_error("DRM_IOCTL_PRIME_HANDLE_TO_FD");
  buffer.dmabuf_ = UniqueFd(fd);
  void* map = mmap(nullptr, buffer.size_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return last_error("mmap(dma-buf)");
  buffer.map_ = map;
  return buffer;
}

DumbBuffer::DumbBuffer(DumbBuffer&& other) noexcept
    : drm_(std::move(other.drm_)),
      dmabuf_(std::move(other.dmabuf_)),
      handle_(std::exchange(other.handle_, 0)),
      width_(other.width_),
      height_(other.height_),
      stride_(other.stride_),
      size_(other.size_),
      map_(std::exchange(other.map_, nullptr)) {}

DumbBuffer::~DumbBuffer() {
  if (map_ != nullptr) munmap(map_, size_);
  if (handle_ != 0 && drm_) {
    drm_mode_destroy_dumb destroy{handle_};
    drmIoctl(drm_.get(), DRM_IOCTL_MODE_DESTROY_DUMB, &destroy);
  }
}

void DumbBuffer::fill(uint32_t argb) {
  // Brackets the CPU write so caches and implicit fences are honoured.
  dma_buf_sync sync{DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE};
  ioctl(dmabuf_.get(), DMA_BUF_IOCTL_SYNC, &sync);
  for (uint32_t y = 0; y < height_; ++y) {
    uint32_t* row = pixels() + size_t{y} * (stride_ / 4);
    for (uint32_t x = 0; x < width_; ++x) row[x] = argb;
  }
  sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE;
  ioctl(dmabuf_.get(), DMA_BUF_IOCTL_SYNC, &sync);
}

}  // namespace baton::testing
