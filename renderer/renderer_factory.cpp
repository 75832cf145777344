#include "renderer/renderer_factory.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "compositor/log.hpp"
#include "compositor/wlr.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"

namespace baton {
namespace {

// True when every output backend reads pixels by pointer (headless): the
// only consumers the Vulkan swapchain serves until it can export dma-bufs.
bool takes_host_pixels(wlr_backend* backend) {
  if (!wlr_backend_is_multi(backend)) return wlr_backend_is_headless(backend);
  struct Seen {
    bool all_headless = true;
    int outputs = 0;
  } seen;
  wlr_multi_for_each_backend(
      backend,
      [](wlr_backend* sub, void* data) {
        auto* seen = static_cast<Seen*>(data);
        if (wlr_backend_is_libinput(sub)) return;  // no outputs
        ++seen->outputs;
        if (!wlr_backend_is_headless(sub)) seen->all_headless = false;
      },
      &seen);
  return seen.all_headless && seen.outputs > 0;
}

std::optional<uint64_t> drm_node(wlr_backend* backend) {
  int fd = wlr_backend_get_drm_fd(backend);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_rdev);
}

CreatedRenderer create_pixman() {
  CreatedRenderer result;
  result.renderer = wlr_pixman_renderer_create();
  result.name = "pixman";
  if (result.renderer == nullptr) result.error = "the pixman renderer failed to start";
  return result;
}

}  // namespace

CreatedRenderer create_renderer(wlr_backend* backend, const Options& options) {
  if (options.renderer == RendererChoice::pixman) return create_pixman();

  const bool explicit_vulkan = options.renderer == RendererChoice::vulkan;
  if (!takes_host_pixels(backend)) {
    // Nested and DRM outputs need dma-buf export from the swapchain: not there yet.
    std::string why = "baton's Vulkan swapchain serves only the headless backend so far";
    if (explicit_vulkan) return {nullptr, "", why};
    LOG_INFO("renderer: %s; falling back to pixman", why.c_str());
    return create_pixman();
  }

  vulkan::RendererOptions vk;
  vk.device.name_or_index = options.vulkan_device;
  vk.device.drm_node = drm_node(backend);
  vk.debug_messenger = true;
  vk.pipeline_cache_path = vulkan::default_pipeline_cache_path();
  vulkan::CreatedRenderer created = vulkan::create_renderer(vk);
  if (created.renderer != nullptr) return {created.renderer, "vulkan", ""};
  if (explicit_vulkan) return {nullptr, "", created.error};
  LOG_ERROR("renderer: Vulkan unavailable: %s", created.error.c_str());
  LOG_INFO("renderer: falling back to pixman");
  return create_pixman();
}

wlr_allocator* create_allocator(wlr_backend* backend, wlr_renderer* renderer,
                                const Options& options) {
  if (!vulkan::is_vulkan_renderer(renderer)) return wlr_allocator_autocreate(backend, renderer);
  vulkan::SwapchainOptions swapchain;
  // Outputs of one size share the allocator's per-size slot budget.
  swapchain.slots = options.swapchain_slots * std::max(1, options.outputs);
  swapchain.host_visible = true;
  return vulkan::create_swapchain_allocator(renderer, swapchain);
}

}  // namespace baton
