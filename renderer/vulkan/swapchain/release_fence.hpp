// A slot's release fence: what must finish before the slot is drawn into
// again (the display or a parent compositor still reading it).
#pragma once

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::vulkan {

/// DMA_BUF_IOCTL_EXPORT_SYNC_FILE(WRITE) on `dmabuf`: a sync_file that
/// signals once every reader and writer of it finished; invalid when it has
/// signalled already (nothing to wait for).
[[nodiscard]] Result<UniqueFd> pending_write_fence(int dmabuf);
/// DMA_BUF_IOCTL_EXPORT_SYNC_FILE(READ): what a reader must wait for (the
/// dma-buf's writers), pending; invalid when none is.
[[nodiscard]] Result<UniqueFd> pending_writers_fence(int dmabuf);

}  // namespace baton::vulkan
