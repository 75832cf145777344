#include "compositor/config/factory_options.hpp"

namespace baton {

BackendOptions backend_options(const Options& options) {
  BackendOptions backend;
  backend.backend = options.backend;
  backend.outputs = options.outputs;
  backend.headless_size = options.headless_size;
  return backend;
}

RenderOptions render_options(const Options& options, const Config& config) {
  RenderOptions render;
  render.renderer =
      options.renderer != RendererChoice::automatic ? options.renderer : config.renderer;
  render.vulkan_device = options.vulkan_device;
  render.compositing = options.compositing;
  render.swapchain_slots = options.swapchain_slots.value_or(config.swapchain_slots);
  render.drm_device = options.drm_device;
  return render;
}

}  // namespace baton
