#include "compositor/desktop/toplevel_icon.hpp"

#include <cairo.h>
#include <drm_fourcc.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>

#include "compositor/desktop/cairo_buffer.hpp"
#include "util/wlr.hpp"

namespace baton {

namespace {

// The buffer whose size is nearest `size`, preferring larger (downscaling
// looks better than upscaling).
wlr_buffer* nearest_buffer(const wlr_xdg_toplevel_icon_v1* icon, int size) {
  wlr_buffer* best = nullptr;
  const wlr_xdg_toplevel_icon_v1_buffer* entry;
  wl_list_for_each(entry, &icon->buffers, link) {
    wlr_buffer* b = entry->buffer;
    if (best == nullptr) {
      best = b;
      continue;
    }
    const bool best_small = best->width < size;
    const bool this_small = b->width < size;
    if (best_small != this_small ? best_small
                                 : std::abs(b->width - size) < std::abs(best->width - size))
      best = b;
  }
  return best;
}

// Copies the client's pixels into a cairo surface (cairo wants premultiplied
// ARGB32; wl_shm's ARGB8888 already is).
cairo_surface_t* surface_from_buffer(wlr_buffer* buffer) {
  void* data = nullptr;
  uint32_t format = 0;
  size_t stride = 0;
  if (!wlr_buffer_begin_data_ptr_access(buffer, WLR_BUFFER_DATA_PTR_ACCESS_READ, &data, &format,
                                        &stride))
    return nullptr;
  cairo_surface_t* surface = nullptr;
  if (format == DRM_FORMAT_ARGB8888 || format == DRM_FORMAT_XRGB8888) {
    surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, buffer->width, buffer->height);
    unsigned char* out = cairo_image_surface_get_data(surface);
    const int out_stride = cairo_image_surface_get_stride(surface);
    const size_t row_bytes = static_cast<size_t>(buffer->width) * 4;
    for (int y = 0; y < buffer->height; ++y) {
      // A client's buffer may start at any byte offset in its pool, so its
      // rows are copied bytewise; only cairo's own rows are aligned.
      const auto* src = static_cast<const unsigned char*>(data) + static_cast<size_t>(y) * stride;
      auto* dst = reinterpret_cast<uint32_t*>(out + static_cast<ptrdiff_t>(y) * out_stride);
      std::memcpy(dst, src, row_bytes);
      if (format == DRM_FORMAT_XRGB8888)
        for (int x = 0; x < buffer->width; ++x) dst[x] |= 0xff000000u;
    }
    cairo_surface_mark_dirty(surface);
  }
  wlr_buffer_end_data_ptr_access(buffer);
  return surface;
}

bool is_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// The named icon's PNG: themes' fixed-size app folders nearest the size
// first, then the legacy pixmaps folder.
cairo_surface_t* surface_from_name(const std::string& name, int size) {
  if (name.empty() || name.find('/') != std::string::npos) return nullptr;
  constexpr std::array kSizes = {24, 32, 48, 22, 64, 16, 96, 128, 256};
  constexpr std::array kThemes = {"hicolor", "Adwaita"};
  std::array<int, kSizes.size()> sizes = kSizes;
  std::stable_sort(sizes.begin(), sizes.end(), [size](int a, int b) {
    return (a < size) != (b < size) ? b < size : std::abs(a - size) < std::abs(b - size);
  });
  for (const char* theme : kThemes) {
    for (int s : sizes) {
      const std::string dir = "/usr/share/icons/" + std::string(theme) + "/" + std::to_string(s) +
                              "x" + std::to_string(s);
      for (const char* kind : {"/apps/", "/legacy/"}) {
        std::string path = dir;
        path.append(kind).append(name).append(".png");
        if (is_file(path)) return cairo_image_surface_create_from_png(path.c_str());
      }
    }
  }
  const std::string pixmap = "/usr/share/pixmaps/" + name + ".png";
  if (is_file(pixmap)) return cairo_image_surface_create_from_png(pixmap.c_str());
  return nullptr;
}

}  // namespace

wlr_buffer* render_toplevel_icon(const wlr_xdg_toplevel_icon_v1* icon, int size) {
  if (icon == nullptr || size <= 0) return nullptr;
  cairo_surface_t* source = nullptr;
  if (wlr_buffer* buffer = nearest_buffer(icon, size); buffer != nullptr)
    source = surface_from_buffer(buffer);
  if (source == nullptr && icon->name != nullptr) source = surface_from_name(icon->name, size);
  if (source == nullptr) return nullptr;
  if (cairo_surface_status(source) != CAIRO_STATUS_SUCCESS) {
    cairo_surface_destroy(source);
    return nullptr;
  }
  cairo_surface_t* scaled = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, size, size);
  cairo_t* cr = cairo_create(scaled);
  const int w = cairo_image_surface_get_width(source);
  const int h = cairo_image_surface_get_height(source);
  const double scale = static_cast<double>(size) / std::max(w, h);
  cairo_translate(cr, (size - w * scale) / 2, (size - h * scale) / 2);
  cairo_scale(cr, scale, scale);
  cairo_set_source_surface(cr, source, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
  cairo_paint(cr);
  cairo_destroy(cr);
  cairo_surface_destroy(source);
  cairo_surface_flush(scaled);
  return cairo_buffer_create(scaled);
}

}  // namespace baton
