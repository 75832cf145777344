// Creates the renderer baton composites with.
//
// Today that is wlroots' pixman renderer (software, works everywhere). baton's
// own Vulkan renderer arrives with its own issue and will be chosen here.
#pragma once

#include <string>

#include "compositor/options.hpp"

struct wlr_backend;
struct wlr_renderer;

namespace baton {

struct CreatedRenderer {
  wlr_renderer* renderer = nullptr;
  const char* name = "";
  std::string error;
};

[[nodiscard]] CreatedRenderer create_renderer(wlr_backend* backend, RendererChoice choice);

}  // namespace baton
