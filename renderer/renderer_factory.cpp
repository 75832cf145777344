#include "renderer/renderer_factory.hpp"

#include "compositor/log.hpp"
#include "compositor/wlr.hpp"

namespace baton {

CreatedRenderer create_renderer(wlr_backend* /*backend*/, RendererChoice choice) {
  CreatedRenderer result;
  switch (choice) {
    case RendererChoice::automatic:
    case RendererChoice::pixman:
      result.renderer = wlr_pixman_renderer_create();
      result.name = "pixman";
      if (result.renderer == nullptr) result.error = "the pixman renderer failed to start";
      break;
  }
  return result;
}

}  // namespace baton
