// Creates the renderer baton composites with, and the allocator for its
// output buffers.
//
// baton's own Vulkan renderer (renderer/vulkan/) when a usable device that is
// not a CPU exists and the backend can take its buffers; wlroots' pixman
// renderer (software, works everywhere) otherwise, or when asked for. A CPU
// device (lavapipe) renders only when Vulkan is asked for: there pixman costs
// an eighth of the CPU time per client frame and a fifth of the memory.
#pragma once

#include <optional>
#include <string>

#include "util/result.hpp"

struct wl_event_loop;
struct wlr_allocator;
struct wlr_backend;
struct wlr_renderer;

namespace baton {

/// automatic: Vulkan on a GPU, pixman on a CPU-only machine (see above).
enum class RendererChoice { automatic, vulkan, pixman };
/// How the Vulkan renderer composites (see renderer/vulkan/vulkan_renderer.hpp).
enum class CompositingChoice { automatic, raster, compute };

/// What the renderer factory needs to know (compositor/config/ fills it in
/// from the command line and the config file).
struct RenderOptions {
  RendererChoice renderer = RendererChoice::automatic;
  /// A Vulkan device index or part of its name (default: chosen by baton).
  std::optional<std::string> vulkan_device;
  CompositingChoice compositing = CompositingChoice::automatic;
  /// Swapchain slots per output.
  int swapchain_slots = 3;
  /// `--drm-device`: named as the Vulkan renderer's DRM device where its
  /// own has no render node (lavapipe), so that headless outputs allocate
  /// dma-bufs and capture offers them.
  std::optional<std::string> drm_device;
};

struct CreatedRenderer {
  wlr_renderer* renderer = nullptr;
  const char* name = "";
};

/// `loop` runs the renderer's completion callbacks.
[[nodiscard]] Result<CreatedRenderer> create_renderer(wlr_backend* backend,
                                                      const RenderOptions& options,
                                                      wl_event_loop* loop);

/// baton's swapchain allocator for the Vulkan renderer, wlroots' choice for
/// any other renderer; an error when none fits.
[[nodiscard]] Result<wlr_allocator*> create_allocator(wlr_backend* backend, wlr_renderer* renderer,
                                                      const RenderOptions& options);

}  // namespace baton
