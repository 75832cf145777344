// Moving client surfaces' pixels over to a new renderer after a GPU loss.
//
// wlroots keeps each surface's pixels as a texture in its wlr_client_buffer;
// when that texture's renderer is destroyed the texture is dropped and the
// surface shows nothing until its client commits again. A client that draws
// only on demand would stay blank, so the textures are made again from the
// buffers the clients still hold (wl_shm memory or a dma-buf). Those go with
// their renderer too, as wlroots' own do.
#pragma once

#include <memory>
#include <vector>

#include "util/listener.hpp"

struct wl_display;
struct wlr_client_buffer;
struct wlr_renderer;

namespace baton {

struct ReuploadCount {
  int surfaces = 0;
  int without_buffer = 0;  // unmapped, or nothing committed yet
  int kept = 0;            // their texture survived (made by the new renderer already)
  int reuploaded = 0;
  /// Surfaces whose buffer the client already destroyed: they stay blank
  /// until their next commit (the pixels lived only in the lost textures).
  int gone = 0;
};

class ClientTextures {
 public:
  ClientTextures() = default;
  ClientTextures(const ClientTextures&) = delete;
  ClientTextures& operator=(const ClientTextures&) = delete;

  /// Call after the old renderer was destroyed: gives every surface of
  /// `display` whose texture is gone a new one made by `renderer`.
  ReuploadCount reupload(wl_display* display, wlr_renderer* renderer);

 private:
  /// The renderer of the textures made here is being destroyed.
  void drop();

  // Textures set here have no wlroots listener that drops them with their
  // renderer, so this object drops them itself when that renderer goes.
  struct Made {
    wlr_client_buffer* buffer = nullptr;
    Listener<void> destroy;
  };
  std::vector<std::unique_ptr<Made>> made_;
  Listener<void> renderer_destroy_;
};

}  // namespace baton
