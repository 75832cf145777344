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
// out by pointer with no extra copy. For a nested output (the parent
// compositor takes wl_shm) each slot's memory is a memfd imported into
// Vulkan (VK_EXT_external_memory_host): the parent maps the very pixels the
// GPU wrote, again with no copy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <tuple>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/vk_util.hpp"
#include "renderer/vulkan/swapchain/dumb_buffer.hpp"
#include "renderer/vulkan/swapchain/exported_image.hpp"
#include "renderer/vulkan/swapchain/slot.hpp"
#include "renderer/vulkan/swapchain/slots.hpp"
#include "util/event_source.hpp"
#include "util/listener.hpp"
#include "util/result.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

/// Live buffers per (width, height, format), shared by an allocator and its
/// buffers (which may outlive it).
struct SlotCounts {
  std::map<std::tuple<int, int, uint32_t>, int> live;
};

/// A memfd mapped shared: the memory of a wl_shm-capable slot.
struct SharedMemory {
  UniqueFd fd;
  void* data = nullptr;
  size_t size = 0;
  SharedMemory() = default;
  ~SharedMemory();
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  [[nodiscard]] Status create(size_t bytes);
};

struct SlotBuffer {
  wlr_buffer base;  // first: wlroots hands us &base
  std::shared_ptr<Device> device;
  SharedMemory shared;               // before memory: unmapped only after Vulkan let go of it
  std::unique_ptr<DumbBuffer> dumb;  // DRM slots: the memory's owner, likewise
  ExportedDmabuf exported;           // DRM slots Vulkan allocated: their dma-buf, every plane
  std::shared_ptr<SlotCounts> counts;
  std::tuple<int, int, uint32_t> key;
  UniqueImage image;
  UniqueMemory memory;
  UniqueImageView view;
  Slot slot;
  unsigned char* mapped = nullptr;  // host-visible slots: the first pixel
  size_t stride = 0;
  size_t offset = 0;  // of the first pixel in `shared`
  Listener<void> release;
};

/// What an allocator and its per-output siblings have found out together.
struct SlotFindings {
  // DRM slots are Vulkan images exported as dma-bufs until the display device
  // refuses one; from then on they are its dumb buffers.
  enum class KmsSlots { untried, exported, dumb } kms_slots = KmsSlots::untried;
  bool dmabuf_parent_logged = false;
};

struct SwapchainAllocator {
  wlr_allocator base;  // first: wlroots hands us &base
  std::shared_ptr<Device> device;
  /// `slots` is a budget per size and format of this allocator's buffers:
  /// each output has an allocator of its own (create_output_allocator), so
  /// two outputs of one size do not draw on one budget.
  std::shared_ptr<SlotCounts> counts;
  int slots = 3;
  bool host_visible = true;
  bool shm = false;
  bool storage = false;           // slots the compute compositor writes (STORAGE usage)
  std::shared_ptr<UniqueFd> kms;  // DRM slots: for this display device
  bool dmabuf_parent = false;     // exported slots: for a parent compositor ...
  bool for_capture = false;       // ... or, headless, for capture clients
  std::shared_ptr<SlotFindings> findings;
};

/// What the device (and the renderer on it) can do for slots.
struct SlotAllocatorDevice {
  bool share_memory = false;   // memfd slots (VK_EXT_external_memory_host)
  bool export_dmabuf = false;  // Vulkan images exported as LINEAR dma-bufs
  bool storage = false;        // the compute compositor writes the slots
};

/// A swapchain allocator on `device` (create_swapchain_allocator checks the
/// renderer and says what it can do).
[[nodiscard]] Result<wlr_allocator*> create_slot_allocator(std::shared_ptr<Device> device,
                                                           const SwapchainOptions& options,
                                                           const SlotAllocatorDevice& can);
/// Another allocator like `shared` (one create_slot_allocator made), with a
/// slot budget of its own: one per output. Null when `shared` is not one.
[[nodiscard]] wlr_allocator* create_sibling_allocator(wlr_allocator* shared);

}  // namespace baton::vulkan
