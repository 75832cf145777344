// An image the renderer draws into: one slot of the core-owned swapchain,
// or a client dma-buf that a capture copies into (dmabuf_target.hpp).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "renderer/vulkan/swapchain/slot_state.hpp"
#include "util/unique_fd.hpp"

struct wlr_buffer;

namespace baton::vulkan {

struct Slot {
  VkImage image = VK_NULL_HANDLE;
  VkImageView view = VK_NULL_HANDLE;
  VkFormat format = VK_FORMAT_UNDEFINED;
  uint32_t drm_format = 0;
  uint32_t width = 0;
  uint32_t height = 0;
  /// Created with STORAGE usage: the compute compositor can write it.
  bool storage = false;
  /// Linear and mapped: the CPU reads the pixels after the last render.
  bool host_visible = false;
  /// Read by a consumer that takes no fence (a wl_shm parent compositor):
  /// the pass waits for its own completion before the buffer is handed on.
  bool fenceless_consumer = false;
  /// A client's dma-buf drawn into (a capture target, dmabuf_target.hpp), not
  /// one of ours: each pass takes it over from the client's side and hands it
  /// back, and its implicit fences order our access with the client's.
  bool client_dmabuf = false;
  /// UNDEFINED until first drawn into, GENERAL afterwards.
  VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
  /// The timeline point of the last submission that wrote or read it.
  uint64_t last_point = 0;
  SlotState state = SlotState::free;
  /// Set when the slot was released while its consumer may still read it
  /// (a pending sync_file); the next pass waits for it on the GPU.
  UniqueFd reuse_fence;
  /// Moves the slot along its life. An illegal step is a bug in baton, not
  /// a runtime failure: it is logged and the slot stays where it is.
  void step(SlotEvent event);
};

/// The swapchain slot behind `buffer` when it came from baton's allocator.
Slot* slot_of(wlr_buffer* buffer);

}  // namespace baton::vulkan
