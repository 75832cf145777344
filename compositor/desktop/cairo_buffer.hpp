// Pixels drawn with cairo, shown by the scene: a read-only wlr_buffer over a
// cairo image surface (title text, title bar icons).
#pragma once

#include <cairo.h>

struct wlr_buffer;

namespace baton {

/// Wraps `surface` (CAIRO_FORMAT_ARGB32, flushed; ownership passes to the
/// buffer). The caller owns the returned buffer (wlr_buffer_drop).
wlr_buffer* cairo_buffer_create(cairo_surface_t* surface);

}  // namespace baton
