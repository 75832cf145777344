#include "compositor/desktop/cairo_buffer.hpp"

#include <cairo.h>
#include <drm_fourcc.h>

#include "util/wlr.hpp"

namespace baton {
namespace {

struct CairoBuffer {
  wlr_buffer base;
  cairo_surface_t* surface;
};

void buffer_destroy(wlr_buffer* buffer) {
  wlr_buffer_finish(buffer);
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

wlr_buffer* cairo_buffer_create(cairo_surface_t* surface) {
  auto* buffer = new CairoBuffer{};  // freed by buffer_destroy
  buffer->surface = surface;
  wlr_buffer_init(&buffer->base, &kImpl, cairo_image_surface_get_width(surface),
                  cairo_image_surface_get_height(surface));
  return &buffer->base;
}

}  // namespace baton
