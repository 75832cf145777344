#include "renderer/vulkan/swapchain/release_fence.hpp"

#include <linux/dma-buf.h>
#include <sys/ioctl.h>

#include <cerrno>
#include <cstring>

#include "util/log.hpp"

namespace baton::vulkan {

namespace {

UniqueFd pending_fence(int dmabuf, uint32_t access) {
  dma_buf_export_sync_file request{};
  request.flags = access;
  request.fd = -1;
  if (ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &request) != 0) {
    LOG_ERROR("vulkan swapchain: DMA_BUF_IOCTL_EXPORT_SYNC_FILE: %s", std::strerror(errno));
    return UniqueFd();
  }
  UniqueFd fence(request.fd);
  if (readable_now(fence.get())) return UniqueFd();  // already signalled
  return fence;
}

}  // namespace

UniqueFd pending_write_fence(int dmabuf) { return pending_fence(dmabuf, DMA_BUF_SYNC_WRITE); }

UniqueFd pending_writers_fence(int dmabuf) { return pending_fence(dmabuf, DMA_BUF_SYNC_READ); }

}  // namespace baton::vulkan
