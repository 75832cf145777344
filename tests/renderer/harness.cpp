#include "tests/renderer/harness.hpp"

#include <drm_fourcc.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"

namespace baton::test {
namespace {

MemoryBuffer* get(wlr_buffer* b) { return reinterpret_cast<MemoryBuffer*>(b); }

void memory_destroy(wlr_buffer* b) {
  wlr_buffer_finish(b);
  delete get(b);
}

bool memory_begin(wlr_buffer* b, uint32_t, void** data, uint32_t* format, size_t* stride) {
  MemoryBuffer* m = get(b);
  *data = m->data.data();
  *format = m->format;
  *stride = m->stride;
  return true;
}

void memory_end(wlr_buffer*) {}

const wlr_buffer_impl kMemoryImpl = {
    .destroy = memory_destroy,
    .get_dmabuf = nullptr,
    .get_shm = nullptr,
    .begin_data_ptr_access = memory_begin,
    .end_data_ptr_access = memory_end,
};

uint32_t pack(uint32_t format, float a, float r, float g, float b) {
  auto q = [](float v, int bits) {
    return static_cast<uint32_t>(std::lround(std::clamp(v, 0.0f, 1.0f) * float((1 << bits) - 1)));
  };
  switch (format) {
    case DRM_FORMAT_ARGB8888:
    case DRM_FORMAT_XRGB8888:
      return q(a, 8) << 24 | q(r, 8) << 16 | q(g, 8) << 8 | q(b, 8);
    case DRM_FORMAT_ABGR8888:
    case DRM_FORMAT_XBGR8888:
      return q(a, 8) << 24 | q(b, 8) << 16 | q(g, 8) << 8 | q(r, 8);
    case DRM_FORMAT_RGB565:
      return q(r, 5) << 11 | q(g, 6) << 5 | q(b, 5);
    case DRM_FORMAT_ARGB2101010:
    case DRM_FORMAT_XRGB2101010:
      return q(a, 2) << 30 | q(r, 10) << 20 | q(g, 10) << 10 | q(b, 10);
    case DRM_FORMAT_ABGR2101010:
    case DRM_FORMAT_XBGR2101010:
      return q(a, 2) << 30 | q(b, 10) << 20 | q(g, 10) << 10 | q(r, 10);
  }
  return 0;
}

bool format_has_alpha(uint32_t format) {
  return format == DRM_FORMAT_ARGB8888 || format == DRM_FORMAT_ABGR8888 ||
         format == DRM_FORMAT_ARGB2101010 || format == DRM_FORMAT_ABGR2101010;
}

const wlr_drm_format* argb_target_format(wlr_drm_format_set& set) {
  if (set.len == 0) {
    wlr_drm_format_set_add(&set, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_INVALID);
    wlr_drm_format_set_add(&set, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR);
  }
  return wlr_drm_format_set_get(&set, DRM_FORMAT_ARGB8888);
}

std::string artifact_dir() {
  const char* dir = std::getenv("BATON_TEST_ARTIFACTS");
  return dir != nullptr ? dir : "/tmp/baton-renderer-tests";
}

}  // namespace

int format_bpp(uint32_t format) { return format == DRM_FORMAT_RGB565 ? 2 : 4; }

MemoryBuffer* MemoryBuffer::create(int width, int height, uint32_t format) {
  auto* m = new MemoryBuffer();
  m->format = format;
  m->stride = size_t(width) * format_bpp(format) + 12;  // padded rows catch stride bugs
  m->data.assign(m->stride * height, 0);
  wlr_buffer_init(&m->base, &kMemoryImpl, width, height);
  return m;
}

MemoryBuffer* MemoryBuffer::create_raw(int width, int height, uint32_t format, size_t stride,
                                       size_t bytes) {
  auto* m = new MemoryBuffer();
  m->format = format;
  m->stride = stride;
  m->data.assign(bytes, 0);
  wlr_buffer_init(&m->base, &kMemoryImpl, width, height);
  return m;
}

void MemoryBuffer::set(int x, int y, float a, float r, float g, float b) {
  uint32_t v = pack(format, a, r, g, b);
  unsigned char* p = data.data() + size_t(y) * stride + size_t(x) * format_bpp(format);
  std::memcpy(p, &v, format_bpp(format));
}

void MemoryBuffer::fill_pattern(int seed) {
  const bool alpha = format_has_alpha(format);
  for (int y = 0; y < base.height; ++y) {
    for (int x = 0; x < base.width; ++x) {
      float a = alpha ? float((x * 7 + y * 3 + seed * 40) % 256) / 255.0f : 1.0f;
      // Quantize alpha to what the format stores so premultiplication stays valid.
      if (alpha && (format == DRM_FORMAT_ARGB2101010 || format == DRM_FORMAT_ABGR2101010))
        a = std::round(a * 3.0f) / 3.0f;
      float r = float((x * 5 + seed * 31) % 256) / 255.0f;
      float g = float((y * 9 + seed * 17) % 256) / 255.0f;
      float b = float(((x ^ y) * 3 + seed * 11) % 256) / 255.0f;
      // Corner marker so orientation mistakes are obvious.
      if (x < 4 && y < 4) r = 1, g = 0, b = 0;
      set(x, y, a, r * a, g * a, b * a);
    }
  }
}

vulkan::Compositing compositing_under_test() {
  const char* value = std::getenv("BATON_TEST_COMPOSITING");
  if (value == nullptr || std::strcmp(value, "auto") == 0) return vulkan::Compositing::automatic;
  if (std::strcmp(value, "raster") == 0) return vulkan::Compositing::raster;
  if (std::strcmp(value, "compute") == 0) return vulkan::Compositing::compute;
  throw std::invalid_argument(std::string("BATON_TEST_COMPOSITING: unknown path '") + value + "'");
}

GoldenHarness::GoldenHarness() {
  wlr_log_init(WLR_ERROR, nullptr);
  loop_ = wl_event_loop_create();
  backend_ = wlr_headless_backend_create(loop_);
  vulkan::RendererOptions options;
  options.debug_messenger = true;
  options.compositing = compositing_under_test();
  auto created = vulkan::create_renderer(options);
  if (!created) {
    unavailable_ = "no usable Vulkan device: " + created.error().describe();
  } else {
    vulkan_.renderer = *created;
    vulkan_.vulkan = true;
    auto allocator = vulkan::create_swapchain_allocator(*created, {8, true});
    vulkan_.allocator = allocator ? *allocator : nullptr;
  }
  pixman_.renderer = wlr_pixman_renderer_create();
  pixman_.allocator = wlr_allocator_autocreate(backend_, pixman_.renderer);
}

GoldenHarness::~GoldenHarness() {
  for (RendererUnderTest* r : {&vulkan_, &pixman_}) {
    if (r->allocator != nullptr) wlr_allocator_destroy(r->allocator);
    if (r->renderer != nullptr) wlr_renderer_destroy(r->renderer);
  }
  if (backend_ != nullptr) wlr_backend_destroy(backend_);
  if (loop_ != nullptr) wl_event_loop_destroy(loop_);
}

int GoldenHarness::debug_messages() const {
  return vulkan_.renderer != nullptr ? vulkan::renderer_debug_messages(vulkan_.renderer) : 0;
}

wlr_buffer* GoldenHarness::target(RendererUnderTest& rut, int width, int height) {
  wlr_drm_format_set set{};
  wlr_buffer* buffer =
      wlr_allocator_create_buffer(rut.allocator, width, height, argb_target_format(set));
  wlr_drm_format_set_finish(&set);
  if (buffer == nullptr) return nullptr;
  render(rut, buffer, [&](wlr_render_pass* pass, wlr_renderer*) {
    wlr_render_rect_options rect{};
    rect.box = {0, 0, width, height};
    rect.color = {0.2f, 0.2f, 0.25f, 1.0f};
    rect.blend_mode = WLR_RENDER_BLEND_MODE_NONE;
    wlr_render_pass_add_rect(pass, &rect);
  });
  return buffer;
}

bool GoldenHarness::render(RendererUnderTest& rut, wlr_buffer* buffer, const Draw& draw) {
  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(rut.renderer, buffer, nullptr);
  if (pass == nullptr) return false;
  draw(pass, rut.renderer);
  return wlr_render_pass_submit(pass);
}

Image GoldenHarness::read(RendererUnderTest& rut, wlr_buffer* buffer) {
  wlr_texture* texture = wlr_texture_from_buffer(rut.renderer, buffer);
  if (texture == nullptr) return {};
  Image image(int(texture->width), int(texture->height));
  wlr_texture_read_pixels_options options{};
  options.data = image.pixels.data();
  options.format = DRM_FORMAT_ARGB8888;
  options.stride = texture->width * 4;
  bool ok = wlr_texture_read_pixels(texture, &options);
  wlr_texture_destroy(texture);
  return ok ? image : Image{};
}

void GoldenHarness::render_both(int width, int height, const Draw& draw, Image& vk, Image& px) {
  for (RendererUnderTest* rut : {&vulkan_, &pixman_}) {
    wlr_buffer* buffer = target(*rut, width, height);
    if (buffer == nullptr) continue;
    render(*rut, buffer, draw);
    (rut->vulkan ? vk : px) = read(*rut, buffer);
    wlr_buffer_drop(buffer);
  }
}

Comparison compare(const std::string& name, const Image& vk, const Image& px, int tolerance,
                   const std::function<bool(int, int)>& ignore) {
  Comparison result;
  if (vk.width != px.width || vk.height != px.height || vk.empty()) {
    result.differing = -1;
    return result;
  }
  Image diff(vk.width, vk.height, 0xff000000);
  for (int y = 0; y < vk.height; ++y) {
    for (int x = 0; x < vk.width; ++x) {
      if (ignore && ignore(x, y)) continue;
      uint32_t a = vk.at(x, y), b = px.at(x, y);
      int worst = 0;
      for (int shift = 0; shift < 32; shift += 8)
        worst = std::max(worst, std::abs(int((a >> shift) & 0xff) - int((b >> shift) & 0xff)));
      result.max_delta = std::max(result.max_delta, worst);
      if (worst > tolerance) {
        ++result.differing;
        diff.at(x, y) = 0xffff00ffu;
      } else if (worst > 0) {
        diff.at(x, y) = 0xff000000u | uint32_t(std::min(255, worst * 32)) << 8;
      }
    }
  }
  if (result.differing > 0) {
    std::filesystem::create_directories(artifact_dir());
    std::string base = artifact_dir() + "/" + name;
    (void)write_png(base + "-vulkan.png", vk);
    (void)write_png(base + "-pixman.png", px);
    (void)write_png(base + "-diff.png", diff);
    result.artifacts = base + "-{vulkan,pixman,diff}.png";
  }
  return result;
}

}  // namespace baton::test
