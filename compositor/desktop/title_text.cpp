#include "compositor/desktop/title_text.hpp"

#include <cairo.h>
#include <pango/pangocairo.h>

#include <algorithm>
#include <climits>

#include "compositor/desktop/cairo_buffer.hpp"

namespace baton {

wlr_buffer* render_title(const std::string& text, int max_width, int height, uint32_t rgb) {
  if (text.empty() || max_width <= 0 || height <= 0) return nullptr;
  // A window can be over 2^30 pixels wide, but Pango's units (1/1024 pixel) hold
  // 2^21 pixels and cairo draws images at most 32767 wide: a title never
  // needs more room than that.
  constexpr int kCairoMaxWidth = 32767;
  static_assert(kCairoMaxWidth <= INT_MAX / PANGO_SCALE);
  max_width = std::min(max_width, kCairoMaxWidth);
  // Measure first on a scratch surface, then draw into one that fits.
  cairo_surface_t* scratch = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
  cairo_t* measure = cairo_create(scratch);
  PangoLayout* layout = pango_cairo_create_layout(measure);
  PangoFontDescription* font = pango_font_description_from_string("Sans 10");
  pango_layout_set_font_description(layout, font);
  pango_font_description_free(font);
  pango_layout_set_text(layout, text.c_str(), -1);
  pango_layout_set_width(layout, max_width * PANGO_SCALE);
  pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END);
  pango_layout_set_single_paragraph_mode(layout, TRUE);
  int text_width = 0;
  int text_height = 0;
  pango_layout_get_pixel_size(layout, &text_width, &text_height);
  int width = std::max(1, std::min(text_width, max_width));

  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                       (rgb & 0xff) / 255.0);
  cairo_move_to(cr, 0, (height - text_height) / 2.0);
  pango_cairo_update_layout(cr, layout);
  pango_cairo_show_layout(cr, layout);
  cairo_destroy(cr);
  cairo_surface_flush(surface);

  g_object_unref(layout);
  cairo_destroy(measure);
  cairo_surface_destroy(scratch);
  return cairo_buffer_create(surface);
}

}  // namespace baton
