// Client dma-bufs that passes draw into: the targets of wlr-screencopy and
// ext-image-copy-capture, where a screen-sharing client hands baton a buffer
// of its own to copy the output into on the GPU.
//
// Each is imported once per wlr_buffer as a colour attachment (a capture
// client cycles a few buffers) and kept as long as the buffer lives; its
// image is freed after the last pass that drew into it. The pass treats it
// as a slot marked `client_dmabuf`: it takes the image over from the client's
// side before drawing, hands it back at the end, waits on the GPU for the
// buffer's earlier readers and writers, and leaves render-done among the
// buffer's implicit fences (renderer_pass.cpp).
#pragma once

#include <functional>
#include <unordered_set>

#include "renderer/vulkan/device/device.hpp"
#include "renderer/vulkan/device/retired.hpp"
#include "renderer/vulkan/swapchain/slot.hpp"
#include "util/result.hpp"
#include "util/wlr.hpp"

namespace baton::vulkan {

/// Usage of a client dma-buf drawn into.
inline constexpr VkImageUsageFlags kTargetUsage =
    VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;

class DmabufTargets {
 public:
  /// `retire` keeps a target's image until the GPU is past its last pass.
  DmabufTargets(Device& device, std::function<void(Retired)> retire)
      : device_(device), retire_(std::move(retire)) {}
  ~DmabufTargets() { clear(); }
  DmabufTargets(const DmabufTargets&) = delete;
  DmabufTargets& operator=(const DmabufTargets&) = delete;

  /// The slot a pass draws into for `buffer`, a client dma-buf: imported on
  /// first use. An error when it is no dma-buf, or one this device cannot
  /// draw into (its format, modifier or plane count).
  [[nodiscard]] Result<Slot*> target_of(wlr_buffer* buffer);
  /// Whether (`drm_format`, `modifier`) dma-bufs can be drawn into.
  [[nodiscard]] bool can_draw_into(uint32_t drm_format, uint64_t modifier);
  /// Frees every target now: only when nothing is in flight (renderer teardown).
  void clear();
  [[nodiscard]] size_t size() const { return targets_.size(); }

  /// The addon's destroy: the buffer is gone, its image goes after its last pass.
  static void buffer_destroyed(wlr_addon* addon);

 private:
  struct Target;

  Device& device_;
  std::function<void(Retired)> retire_;
  std::unordered_set<Target*> targets_;
};

}  // namespace baton::vulkan
