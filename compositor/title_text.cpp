#include "compositor/title_text.hpp"

#include <cairo.h>
#include <drm_fourcc.h>
#include <pango/pangocairo.h>

#include "compositor/wlr.hpp"

namespace baton {
namespace {

// A wlr_buffer whose pixels live in a cairo image surface.
struct CairoBuffer {
  wlr_buffer base;
  cairo_surface_t* surface;
};

void buffer_destroy(wlr_buffer* buffer) {
  CairoBuffer* self = wl_container_of(buffer, self, base);
  cairo_surface_destroy(self->surface);
  delete self;
}

bool buffer_begin_access(wlr_buffer* buffer, uint32_t flags, void** data, uint32_t* format,
                         size_t* stride) {
  CairoBuffer* self = wl_container_of(buffer, self, base);
  if ((flags & WLR_BUFFER_DATA_PTR_ACCESS_WRITE) != 0) return false;
  *data = cairo_image_surface_get_data(self->surface);
  *format = DRM_FORMAT_ARGB8888;  // cairo's ARGB32: premultiplied, native endian
  *stride = static_cast<size_t>(cairo_image_surface_get_stride(self->surface));
  return true;
}

void buffer_end_access(wlr_buffer*) {}

const wlr_buffer_impl kImpl = {
    .destroy = buffer_destroy,
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = buffer_begin_access,
    .end_data_ptr_access = buffer_end_access,
};

}  // namespace

wlr_buffer* render_title(const std::string& text, int max_width, int height, uint32_t rgb) {
  if (text.empty() || max_width <= 0 || height <= 0) return nullptr;
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

  auto* buffer = new CairoBuffer{};
  buffer->surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(buffer->surface);
  cairo_set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                       (rgb & 0xff) / 255.0);
  cairo_move_to(cr, 0, (height - text_height) / 2.0);
  pango_cairo_update_layout(cr, layout);
  pango_cairo_show_layout(cr, layout);
  cairo_destroy(cr);
  cairo_surface_flush(buffer->surface);

  g_object_unref(layout);
  cairo_destroy(measure);
  cairo_surface_destroy(scratch);
  wlr_buffer_init(&buffer->base, &kImpl, width, height);
  return &buffer->base;
}

}  // namespace baton
