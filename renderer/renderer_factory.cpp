#include "renderer/renderer_factory.hpp"

#include <sys/stat.h>

#include <algorithm>

#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// How the outputs take the swapchain's buffers.
enum class Consumer {
  host_pointer,   // headless: pixels by pointer
  shm,            // nested Wayland / X11: the parent takes wl_shm / MIT-SHM memfds
  dmabuf_parent,  // nested Wayland, the parent takes dma-bufs with linux-drm-syncobj
  kms,            // DRM: Vulkan's exported dma-bufs, or dumb buffers of the display device
  unsupported,    // a mix of DRM and nested outputs, or none (not handled yet)
};

Consumer consumer_of(wlr_backend* backend) {
  struct Seen {
    bool unsupported = false;
    bool nested = false;           // a Wayland or X11 parent
    bool explicit_parents = true;  // ... every one taking dma-bufs with explicit sync
    bool drm = false;
    int outputs = 0;
  } seen;
  auto visit = [](wlr_backend* sub, void* data) {
    auto* seen = static_cast<Seen*>(data);
    if (wlr_backend_is_libinput(sub)) return;  // no outputs
    ++seen->outputs;
    if (wlr_backend_is_wl(sub) || wlr_backend_is_x11(sub)) {
      seen->nested = true;
      // wlroots' Wayland backend hands timelines to a parent with
      // linux-drm-syncobj, on the render node the parent's dma-buf feedback names.
      seen->explicit_parents = seen->explicit_parents && wlr_backend_is_wl(sub) &&
                               sub->features.timeline && wlr_backend_get_drm_fd(sub) >= 0 &&
                               (sub->buffer_caps & WLR_BUFFER_CAP_DMABUF) != 0;
    } else if (wlr_backend_is_drm(sub))
      seen->drm = true;
    else if (!wlr_backend_is_headless(sub))
      seen->unsupported = true;
  };
  if (wlr_backend_is_multi(backend))
    wlr_multi_for_each_backend(backend, visit, &seen);
  else
    visit(backend, &seen);
  if (seen.unsupported || seen.outputs == 0 || (seen.drm && seen.nested))
    return Consumer::unsupported;
  if (seen.drm) return Consumer::kms;
  if (!seen.nested) return Consumer::host_pointer;
  return seen.explicit_parents ? Consumer::dmabuf_parent : Consumer::shm;
}

// What the outputs get from this renderer: a parent that takes dma-bufs gets
// wl_shm memfds from a device that cannot export them.
Consumer consumer_of(wlr_backend* backend, wlr_renderer* renderer) {
  const Consumer consumer = consumer_of(backend);
  if (consumer == Consumer::dmabuf_parent && !vulkan::renderer_can_export_dmabuf(renderer))
    return Consumer::shm;
  return consumer;
}

std::optional<uint64_t> drm_node(wlr_backend* backend) {
  int fd = wlr_backend_get_drm_fd(backend);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_rdev);
}

Result<CreatedRenderer> create_pixman() {
  wlr_renderer* renderer = wlr_pixman_renderer_create();
  if (renderer == nullptr)
    return failure("wlr_pixman_renderer_create", "the pixman renderer failed to start");
  return CreatedRenderer{renderer, "pixman"};
}

}  // namespace

Result<CreatedRenderer> create_renderer(wlr_backend* backend, const RenderOptions& options,
                                        wl_event_loop* loop) {
  if (options.renderer == RendererChoice::pixman) return create_pixman();

  const bool explicit_vulkan = options.renderer == RendererChoice::vulkan;
  const Consumer consumer = consumer_of(backend);
  if (consumer == Consumer::unsupported) {
    std::string why =
        "baton's Vulkan swapchain serves headless, nested (Wayland, X11) or DRM outputs, one "
        "kind at a time";
    if (explicit_vulkan) return failure("the Vulkan renderer", why);
    LOG_INFO("renderer: pixman (auto: %s)", why.c_str());
    return create_pixman();
  }

  vulkan::RendererOptions vk;
  vk.device.name_or_index = options.vulkan_device;
  vk.device.drm_node = drm_node(backend);
  // auto leaves a CPU device (lavapipe) to pixman, which composites faster there.
  vk.device.accept_cpu = explicit_vulkan;
  vk.compositing = options.compositing == CompositingChoice::raster ? vulkan::Compositing::raster
                   : options.compositing == CompositingChoice::compute
                       ? vulkan::Compositing::compute
                       : vulkan::Compositing::automatic;
  vk.debug_messenger = true;
  vk.pipeline_cache_path = vulkan::default_pipeline_cache_path();
  vk.loop = loop;
  // Timelines for the outputs' render-done, and for copies into capture
  // clients' dma-bufs, whose ready waits for them (wlroots patch 0042); not
  // where a parent takes wl_shm, which carries no points.
  vk.signal_timelines = consumer == Consumer::kms || consumer == Consumer::dmabuf_parent ||
                        consumer == Consumer::host_pointer;
  vk.drm_device = options.drm_device;
  Result<wlr_renderer*> created = vulkan::create_renderer(vk);
  if (created && consumer == Consumer::dmabuf_parent &&
      consumer_of(backend, *created) == Consumer::shm) {
    // No render-done timeline either: the parent gets wl_shm without points.
    (*created)->features.timeline = false;
    LOG_INFO(
        "renderer: the parent compositor takes dma-bufs with explicit sync, but the device "
        "cannot export dma-bufs: nested slots are wl_shm memfds");
  }
  if (created && consumer_of(backend, *created) == Consumer::shm &&
      !vulkan::renderer_can_share_memory(*created)) {
    wlr_renderer_destroy(*created);
    created = failure("the Vulkan renderer",
                      "the parent compositor takes wl_shm and the device cannot import host "
                      "memory (no VK_EXT_external_memory_host)");
  }
  if (created && consumer == Consumer::kms && !vulkan::renderer_can_import_dmabuf(*created)) {
    wlr_renderer_destroy(*created);
    created = failure("the Vulkan renderer",
                      "DRM slots are dumb buffers shared as dma-bufs and the device cannot "
                      "import them (no VK_EXT_image_drm_format_modifier / dma-buf import)");
  }
  if (created) {
    // tests grep this line: tests/integration/test_cli.cpp
    LOG_INFO("renderer: vulkan on '%s' (%s), %s", vulkan::renderer_device_name(*created).c_str(),
             vulkan::device_kind_name(vulkan::renderer_device_kind(*created)),
             explicit_vulkan         ? "as asked"
             : options.vulkan_device ? "the device --vulkan-device names"
                                     : "chosen by auto: not a CPU");
    return CreatedRenderer{*created, "vulkan"};
  }
  if (explicit_vulkan) return created.error();
  if (vulkan::declined_cpu_device(created.error())) {
    // tests grep this line: tests/integration/test_cli.cpp
    LOG_INFO(
        "renderer: pixman (auto: on a CPU, pixman composites faster than Vulkan; --renderer "
        "vulkan renders there anyway): %s",
        created.error().reason.c_str());
    return create_pixman();
  }
  LOG_ERROR("renderer: Vulkan unavailable: %s", created.error().describe().c_str());
  LOG_INFO("renderer: pixman (auto: the Vulkan renderer did not start)");
  return create_pixman();
}

Result<wlr_allocator*> create_allocator(wlr_backend* backend, wlr_renderer* renderer,
                                        const RenderOptions& options) {
  if (!vulkan::is_vulkan_renderer(renderer)) {
    wlr_allocator* allocator = wlr_allocator_autocreate(backend, renderer);
    if (allocator == nullptr) return failure("wlr_allocator_autocreate", "no allocator fits");
    return allocator;
  }
  vulkan::SwapchainOptions swapchain;
  // Per output: each has an allocator of its own (RenderStack::allocator_for_output).
  swapchain.slots = options.swapchain_slots;
  swapchain.host_visible = true;
  const Consumer consumer = consumer_of(backend, renderer);
  swapchain.shm = consumer == Consumer::shm;
  swapchain.dmabuf_parent = consumer == Consumer::dmabuf_parent;
  // Headless on a renderer with a DRM node: dma-buf slots, so that screen
  // sharing (wlr-screencopy, ext-image-copy-capture) is offered dma-bufs.
  swapchain.capture_dmabufs = consumer == Consumer::host_pointer &&
                              wlr_renderer_get_drm_fd(renderer) >= 0 &&
                              vulkan::renderer_can_export_dmabuf(renderer);
  if (consumer == Consumer::kms) swapchain.kms_fd = wlr_backend_get_drm_fd(backend);
  return vulkan::create_swapchain_allocator(renderer, swapchain);
}

}  // namespace baton
