// What the rest of baton uses of the core-owned swapchain: how to make one
// (create_swapchain_allocator, in vulkan_renderer.hpp) and what an output
// tells a slot it committed. Part of the renderer's public face.
#pragma once

#include "util/unique_fd.hpp"

struct wlr_buffer;

namespace baton::vulkan {

struct SwapchainOptions {
  /// Buffers per size and format at most (a frame waits for a free one).
  int slots = 3;
  /// Host-visible linear images that expose their pixels through data-ptr
  /// access; else device-local optimal images only the GPU touches.
  bool host_visible = true;
  /// Slots are memfds the consumer may take as wl_shm buffers (nested
  /// outputs); needs renderer_can_share_memory(). Implies host_visible.
  bool shm = false;
  /// DRM outputs: the display device's fd (not taken; its node is opened
  /// again). Slots are Vulkan images exported as dma-bufs where it imports
  /// them, else its dumb buffers imported into Vulkan as LINEAR dma-bufs.
  int kms_fd = -1;
  /// Nested outputs whose parent takes dma-bufs with linux-drm-syncobj:
  /// slots are Vulkan images exported as dma-bufs (renderer_can_export_dmabuf).
  bool dmabuf_parent = false;
  /// Headless outputs of a renderer with a DRM node: slots are Vulkan images
  /// exported as dma-bufs, so that capture clients are offered dma-buf
  /// targets (renderer_can_export_dmabuf).
  bool capture_dmabufs = false;
};

/// An output committed `buffer` (a no-op unless it is a swapchain slot): the
/// slot is on screen until released.
void slot_presented(wlr_buffer* buffer);
/// The consumer reads `buffer` (a swapchain slot; else a no-op) until `fence`
/// signals: the out-fence of the commit that replaced it on screen. The next
/// pass into the slot waits for it on the GPU.
void slot_set_reuse_fence(wlr_buffer* buffer, UniqueFd fence);

}  // namespace baton::vulkan
