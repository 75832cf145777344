// The video case's frames: what a player hands a compositor, a pool of
// buffers it decodes into in turn. Dma-bufs made from udmabuf (memfd pages),
// which exist only where /dev/udmabuf does (the qemu guest: tests/vm/), or
// plain memory read as a wl_shm buffer (uploaded once when its texture is
// made, then sampled as a dma-buf is).
#pragma once

#include <cstdint>
#include <vector>

#include "util/result.hpp"
#include "util/wlr.hpp"

namespace baton::bench {

enum class VideoMemory { dmabuf, plain };

/// `count` LINEAR frames of `drm_format` (NV12 or XRGB8888) and `width` x
/// `height`, each filled with a different picture. The caller drops them
/// (wlr_buffer_drop). An error says why none could be made.
[[nodiscard]] Result<std::vector<wlr_buffer*>> make_video_frames(uint32_t drm_format, int width,
                                                                 int height, int count,
                                                                 VideoMemory kind);

}  // namespace baton::bench
