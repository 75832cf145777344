// Test harness for the Vulkan renderer: the same draws rendered through
// baton's Vulkan renderer and through wlroots' pixman renderer, read back and
// compared pixel by pixel, with diff images written on failure.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "renderer/vulkan/vulkan_renderer.hpp"
#include "util/image.hpp"
#include "util/wlr.hpp"

namespace baton::test {

/// A wlr_buffer over plain memory (what a wl_shm client buffer looks like to a renderer).
struct MemoryBuffer {
  wlr_buffer base;
  uint32_t format = 0;
  size_t stride = 0;
  std::vector<unsigned char> data;

  static MemoryBuffer* create(int width, int height, uint32_t format);
  /// `bytes` of zeros, rows `stride` apart, laid out by the caller (YUV).
  static MemoryBuffer* create_raw(int width, int height, uint32_t format, size_t stride,
                                  size_t bytes);
  /// Fills with a deterministic premultiplied pattern (alpha varies when the format has alpha).
  void fill_pattern(int seed);
  /// Sets one pixel from premultiplied ARGB in 0..1.
  void set(int x, int y, float a, float r, float g, float b);
  void drop() { wlr_buffer_drop(&base); }
};

/// Bytes per pixel of the formats the tests use.
int format_bpp(uint32_t format);

/// One renderer plus the allocator that gives it render targets.
struct RendererUnderTest {
  wlr_renderer* renderer = nullptr;
  wlr_allocator* allocator = nullptr;
  bool vulkan = false;
};

using Draw = std::function<void(wlr_render_pass* pass, wlr_renderer* renderer)>;

/// The compositing path under test: BATON_TEST_COMPOSITING=auto|raster|compute.
vulkan::Compositing compositing_under_test();

class GoldenHarness {
 public:
  GoldenHarness();
  ~GoldenHarness();

  /// Empty when the Vulkan renderer started; else why not (the test skips).
  const std::string& unavailable() const { return unavailable_; }
  RendererUnderTest& vulkan() { return vulkan_; }
  RendererUnderTest& pixman() { return pixman_; }

  /// A render target of `rut`, cleared to opaque dark grey by a first pass.
  wlr_buffer* target(RendererUnderTest& rut, int width, int height);
  /// Runs `draw` in one pass on `buffer`.
  bool render(RendererUnderTest& rut, wlr_buffer* buffer, const Draw& draw);
  /// Reads `buffer` back as ARGB8888 through wlr_texture_read_pixels.
  Image read(RendererUnderTest& rut, wlr_buffer* buffer);

  /// Renders `draw` through both renderers and returns both images.
  void render_both(int width, int height, const Draw& draw, Image& vulkan, Image& pixman);

  /// Validation-layer messages counted so far (0 expected).
  int debug_messages() const;

 private:
  wl_event_loop* loop_ = nullptr;
  wlr_backend* backend_ = nullptr;
  RendererUnderTest vulkan_;
  RendererUnderTest pixman_;
  std::string unavailable_;
};

struct Comparison {
  int differing = 0;      // pixels off by more than the tolerance
  int max_delta = 0;      // largest channel difference seen
  std::string artifacts;  // where the images went, when written
};

/// Compares channel by channel; `ignore` pixels (x, y) are skipped. On a
/// mismatch writes NAME-vulkan.png, NAME-pixman.png and NAME-diff.png.
Comparison compare(const std::string& name, const Image& vulkan, const Image& pixman, int tolerance,
                   const std::function<bool(int, int)>& ignore = nullptr);

}  // namespace baton::test
