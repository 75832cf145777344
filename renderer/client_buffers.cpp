#include "renderer/client_buffers.hpp"

#include <cstring>

#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

std::vector<wlr_surface*> all_surfaces(wl_display* display) {
  std::vector<wlr_surface*> surfaces;
  wl_client* client = nullptr;
  wl_client_for_each(client, wl_display_get_client_list(display)) {
    wl_client_for_each_resource(
        client,
        [](wl_resource* resource, void* data) {
          if (std::strcmp(wl_resource_get_class(resource), wl_surface_interface.name) == 0)
            static_cast<std::vector<wlr_surface*>*>(data)->push_back(
                wlr_surface_from_resource(resource));
          return WL_ITERATOR_CONTINUE;
        },
        &surfaces);
  }
  return surfaces;
}

}  // namespace

void ClientTextures::drop() {
  // Before the renderer frees what is left: a client buffer must not keep a
  // pointer to a freed texture.
  for (auto& made : made_) {
    wlr_texture_destroy(made->buffer->texture);
    made->buffer->texture = nullptr;
  }
  made_.clear();
  renderer_destroy_.disconnect();  // wlroots asserts nobody listens after the signal
}

ReuploadCount ClientTextures::reupload(wl_display* display, wlr_renderer* renderer) {
  drop();  // (nothing: the old renderer's destroy signal dropped them)
  renderer_destroy_.connect(&renderer->events.destroy, [this](void*) { drop(); });

  ReuploadCount count;
  for (wlr_surface* surface : all_surfaces(display)) {
    ++count.surfaces;
    wlr_client_buffer* buffer = surface->buffer;
    if (buffer == nullptr) {
      ++count.without_buffer;
      continue;
    }
    if (buffer->texture != nullptr) {
      ++count.kept;
      continue;
    }
    wlr_texture* texture =
        buffer->source != nullptr ? wlr_texture_from_buffer(renderer, buffer->source) : nullptr;
    if (texture == nullptr) {
      ++count.gone;
      continue;
    }
    buffer->texture = texture;  // freed by wlroots with the client buffer
    auto made = std::make_unique<Made>();
    made->buffer = buffer;
    Made* raw = made.get();
    made->destroy.connect(&buffer->base.events.destroy, [this, raw](void*) {
      std::erase_if(made_, [raw](const auto& m) { return m.get() == raw; });
    });
    made_.push_back(std::move(made));
    ++count.reuploaded;
  }
  return count;
}

}  // namespace baton
