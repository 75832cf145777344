// The core-owned swapchain: a wlr_allocator whose buffers are VkImages the
// renderer allocated itself, so it renders into them with no import and no
// copy.
//
// Each buffer is a slot that walks free -> rendering (a pass is open on it)
// -> queued (submitted; its timeline point says when the GPU is done) -> free
// again once every user released it. A CPU consumer (data-ptr access: the
// headless backend, screenshots, shm consumers) waits for the slot's point
// first; GPU consumers order behind it on the one queue.
//
// Where dma-buf export is impossible (this host's lavapipe, the NVIDIA
// machine) the images are linear and host-visible: their pixels are handed
// out by pointer with no extra copy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include "compositor/listener.hpp"
#include "compositor/wlr.hpp"
#include "renderer/vulkan/device.hpp"
#include "renderer/vulkan/render_target.hpp"
#include "renderer/vulkan/vk_util.hpp"

namespace baton::vulkan {

/// Live buffers per (width, height, format), shared by an allocator and its
/// buffers (which may outlive it).
struct SlotCounts {
  std::map<std::tuple<int, int, uint32_t>, int> live;
};

struct SwapchainBuffer {
  wlr_buffer base;  // first: wlroots hands us &base
  std::shared_ptr<Device> device;
  std::shared_ptr<SlotCounts> counts;
  std::tuple<int, int, uint32_t> key;
  UniqueImage image;
  UniqueMemory memory;
  UniqueImageView view;
  RenderTarget target;
  unsigned char* mapped = nullptr;  // host-visible slots: the first pixel
  size_t stride = 0;
  Listener<void> release;
};

struct SwapchainAllocator {
  wlr_allocator base;  // first: wlroots hands us &base
  std::shared_ptr<Device> device;
  std::shared_ptr<SlotCounts> counts;
  int slots = 3;
  bool host_visible = true;
};

}  // namespace baton::vulkan
