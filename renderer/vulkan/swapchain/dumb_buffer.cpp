#include "renderer/vulkan/swapchain/dumb_buffer.hpp"

#include <fcntl.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <string>

#include "util/log.hpp"

namespace baton::vulkan {

Result<std::unique_ptr<DumbBuffer>> DumbBuffer::create(std::shared_ptr<UniqueFd> kms,
                                                       uint32_t width, uint32_t height,
                                                       uint32_t bpp) {
  std::unique_ptr<DumbBuffer> buffer(new DumbBuffer());
  buffer->kms_ = std::move(kms);
  const int fd = buffer->kms_->get();
  drm_mode_create_dumb create{};
  create.width = width;
  create.height = height;
  create.bpp = bpp;
  if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) != 0)
    return last_error("DRM_IOCTL_MODE_CREATE_DUMB " + std::to_string(width) + "x" +
                      std::to_string(height));
  buffer->handle_ = create.handle;
  buffer->pitch_ = create.pitch;
  int prime = -1;
  if (drmPrimeHandleToFD(fd, create.handle, DRM_CLOEXEC | DRM_RDWR, &prime) != 0)
    return last_error("drmPrimeHandleToFD of a dumb buffer");
  buffer->dmabuf_ = UniqueFd(prime);
  return buffer;
}

DumbBuffer::~DumbBuffer() {
  if (handle_ == 0) return;
  drm_mode_destroy_dumb destroy{};
  destroy.handle = handle_;
  if (drmIoctl(kms_->get(), DRM_IOCTL_MODE_DESTROY_DUMB, &destroy) != 0)
    LOG_ERROR("vulkan swapchain: %s", last_error("DRM_IOCTL_MODE_DESTROY_DUMB").describe().c_str());
}

}  // namespace baton::vulkan
