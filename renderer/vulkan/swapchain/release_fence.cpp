#include "renderer/vulkan/swapchain/release_fence.hpp"

#include <linux/dma-buf.h>
#include <sys/ioctl.h>

namespace baton::vulkan {

namespace {

Result<UniqueFd> pending_fence(int dmabuf, uint32_t access) {
  dma_buf_export_sync_file request{};
  request.flags = access;
  request.fd = -1;
  if (ioctl(dmabuf, DMA_BUF_IOCTL_EXPORT_SYNC_FILE, &request) != 0)
    return last_error("DMA_BUF_IOCTL_EXPORT_SYNC_FILE");
  UniqueFd fence(request.fd);
  if (readable_now(fence.get())) return UniqueFd();  // already signalled
  return fence;
}

}  // namespace

Result<UniqueFd> pending_write_fence(int dmabuf) {
  return pending_fence(dmabuf, DMA_BUF_SYNC_WRITE);
}

Result<UniqueFd> pending_writers_fence(int dmabuf) {
  return pending_fence(dmabuf, DMA_BUF_SYNC_READ);
}

}  // namespace baton::vulkan
