// The video case's frames: what a player hands a compositor, a pool of
// dma-bufs it decodes into in turn. Made here from udmabuf (memfd pages), so
// they exist only where /dev/udmabuf does (the qemu guest: tests/vm/).
#pragma once

#include <cstdint>
#include <vector>

#include "util/result.hpp"
#include "util/wlr.hpp"

namespace baton::bench {

/// `count` LINEAR dma-bufs of `drm_format` (NV12 or XRGB8888) and `width` x
/// `height`, each filled with a different picture. The caller drops them
/// (wlr_buffer_drop). An error says why none could be made.
[[nodiscard]] Result<std::vector<wlr_buffer*>> make_video_frames(uint32_t drm_format, int width,
                                                                 int height, int count);

}  // namespace baton::bench
