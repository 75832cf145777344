// The Renderer's side of the swapchain: what its device can do for slots,
// making the allocator on that device, and waking the loop once a slot a
// fenceless consumer reads is rendered.
#include <drm_fourcc.h>

#include <utility>

#include "renderer/vulkan/renderer.hpp"
#include "renderer/vulkan/swapchain/exported_image.hpp"
#include "renderer/vulkan/swapchain/swapchain_allocator.hpp"
#include "util/log.hpp"

namespace baton::vulkan {

bool renderer_can_import_dmabuf(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) &&
         Renderer::from(renderer)->device().features().dmabuf_import;
}

bool renderer_can_export_dmabuf(wlr_renderer* renderer) {
  if (!renderer_can_import_dmabuf(renderer)) return false;
  Device& device = Renderer::from(renderer)->device();
  return device.get_memory_fd != nullptr &&
         dmabuf_exportable(device, VK_FORMAT_B8G8R8A8_UNORM, DRM_FORMAT_MOD_LINEAR,
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
}

bool renderer_can_share_memory(wlr_renderer* renderer) {
  return is_vulkan_renderer(renderer) &&
         Renderer::from(renderer)->device().features().host_memory_import;
}

Result<wlr_allocator*> create_swapchain_allocator(wlr_renderer* renderer,
                                                  const SwapchainOptions& options) {
  if (!is_vulkan_renderer(renderer))
    return failure("the swapchain allocator", "the renderer is not baton's Vulkan renderer");
  Renderer& r = *Renderer::from(renderer);
  SlotAllocatorDevice can;
  can.share_memory = renderer_can_share_memory(renderer);
  can.export_dmabuf =
      (options.dmabuf_parent || options.capture_dmabufs) && renderer_can_export_dmabuf(renderer);
  can.storage = r.composites_with_compute();
  return create_slot_allocator(r.shared_device(), options, can);
}

wlr_allocator* create_output_allocator(wlr_allocator* shared) {
  return create_sibling_allocator(shared);
}

bool when_rendered(wlr_renderer* renderer, wlr_buffer* buffer, std::function<void()> done) {
  Slot* target = slot_of(buffer);
  if (target == nullptr || !target->fenceless_consumer || !is_vulkan_renderer(renderer))
    return false;
  Renderer& r = *Renderer::from(renderer);
  if (r.device().completed() >= target->last_point) return false;
  CompletionWatch* watch = r.completion();
  if (watch == nullptr) {
    // Nothing can wake the loop: the one CPU wait left, logged by completion().
    if (Status waited = r.device().wait(target->last_point, "slot render, no completion watch");
        !waited)
      LOG_ERROR("vulkan swapchain: waiting for a slot's render: %s",
                waited.error().describe().c_str());
    return false;
  }
  watch->when_done(target->last_point, std::move(done));
  return true;
}

}  // namespace baton::vulkan
