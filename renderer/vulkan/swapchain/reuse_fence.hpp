// A slot's reuse fence: what must finish before the slot is drawn into
// again (the display or a parent compositor still reading it), and what a
// client dma-buf's writers have still to do before it is sampled.
#pragma once

#include "util/result.hpp"
#include "util/unique_fd.hpp"

namespace baton::vulkan {

/// The dma-buf's unfinished readers and writers (what a writer waits for),
/// as a sync_file; invalid when they have all finished.
[[nodiscard]] Result<UniqueFd> unfinished_accesses_fence(int dmabuf);
/// The dma-buf's unfinished writers (what a reader waits for), as a
/// sync_file; invalid when they have all finished.
[[nodiscard]] Result<UniqueFd> unfinished_writes_fence(int dmabuf);

}  // namespace baton::vulkan
