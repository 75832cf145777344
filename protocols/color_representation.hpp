// wp_color_representation_v1 (staging, wayland-protocols 1.44), implemented
// by baton: a client says how its buffers' values are to be read (the
// Y'CbCr matrix and quantization range, where subsampled chroma sits, and
// how alpha is premultiplied), and the renderer reads them that way.
//
// The manager advertises every alpha mode, identity (RGB) in full range and
// BT.601, BT.709 and BT.2020 each in full and limited range. The state is
// double-buffered and travels through wlroots' surface state machinery
// (wlr_surface_synced), so a commit held by the readiness gate keeps its own
// representation. When a commit becomes current with a buffer, the
// representation is recorded on that buffer (renderer/color_representation
// .hpp) before wlroots imports it: the client's values over the defaults of
// the buffer's format, marked client_set. A surface whose client never set
// anything gets nothing recorded, and the renderer applies its defaults.
//
// Errors, as the XML words them: get_surface on a surface that has a live
// object is surface_exists; an unadvertised alpha mode or coefficients-range
// pair is refused at the request (alpha_mode, coefficients); any set request
// on an object whose surface is gone is inert. At wl_surface.commit, the
// surface contents after the commit (the buffer it attaches, or the one it
// keeps) are checked against the state: identity with a Y'CbCr format, other
// coefficients with an RGB format, or a chroma location with an RGB format
// or outside the enum, is pixel_format. (v1 has no request-time error for a
// chroma location: the commit is where the XML checks it.)
//
// Destroying the object unsets everything from the next commit on; commits
// made before it keep what they carried. The per-surface state lives as long
// as the wl_surface, so get_surface may be called again after a destroy.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

struct wl_display;
struct wl_global;
struct wl_resource;
struct wlr_surface;

namespace baton {

class ColorRepresentationSurface;

class ColorRepresentationManager {
 public:
  /// The wp_color_representation_manager_v1 global (version 1).
  explicit ColorRepresentationManager(wl_display* display);
  ~ColorRepresentationManager();
  ColorRepresentationManager(const ColorRepresentationManager&) = delete;
  ColorRepresentationManager& operator=(const ColorRepresentationManager&) = delete;

  // Request handler (the C trampolines in the .cpp call it).
  void get_surface(wl_resource* manager, uint32_t id, wl_resource* surface);

 private:
  friend class ColorRepresentationSurface;

  wl_global* global_ = nullptr;
  // Made by the surface's first get_surface; destroyed with the surface.
  std::map<wlr_surface*, std::unique_ptr<ColorRepresentationSurface>> surfaces_;
};

}  // namespace baton
