// Creates the renderer baton composites with, and the allocator for its
// output buffers.
//
// baton's own Vulkan renderer (renderer/vulkan/) when a usable device exists
// and the backend can take its buffers; wlroots' pixman renderer (software,
// works everywhere) otherwise, or when asked for.
#pragma once

#include <string>

#include "compositor/options.hpp"

struct wl_event_loop;
struct wlr_allocator;
struct wlr_backend;
struct wlr_renderer;

namespace baton {

struct CreatedRenderer {
  wlr_renderer* renderer = nullptr;
  const char* name = "";
  std::string error;
};

[[nodiscard]] CreatedRenderer create_renderer(wlr_backend* backend, const Options& options);

/// baton's swapchain allocator for the Vulkan renderer, wlroots' choice for
/// any other renderer. Null when none fits.
[[nodiscard]] wlr_allocator* create_allocator(wlr_backend* backend, wlr_renderer* renderer,
                                              const Options& options, wl_event_loop* loop);

}  // namespace baton
