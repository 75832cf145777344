#include "compositor/desktop/title_icons.hpp"

#include <cairo.h>

#include "compositor/desktop/cairo_buffer.hpp"

namespace baton {

wlr_buffer* render_button_icon(TitleButton button, int size, uint32_t rgb) {
  if (button == TitleButton::none || size <= 0) return nullptr;
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, size, size);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                       (rgb & 0xff) / 255.0);
  cairo_set_line_width(cr, 2);
  // The glyph fills the middle 40% of the button, as in common themes.
  double lo = size * 0.3;
  double hi = size * 0.7;
  if (button == TitleButton::close) {
    cairo_move_to(cr, lo, lo);
    cairo_line_to(cr, hi, hi);
    cairo_move_to(cr, hi, lo);
    cairo_line_to(cr, lo, hi);
  } else {
    cairo_rectangle(cr, lo, lo, hi - lo, hi - lo);
  }
  cairo_stroke(cr);
  cairo_destroy(cr);
  cairo_surface_flush(surface);
  return cairo_buffer_create(surface);
}

}  // namespace baton
