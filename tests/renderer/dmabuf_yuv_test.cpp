// YUV dma-bufs (NV12, P010, YUYV, ...) imported one image per plane and
// converted in baton's shaders, against the tests' own double-precision
// conversion (yuv_reference.hpp): every format in BT.601, BT.709 and
// BT.2020, full and limited range, on the compositing path under test;
// chroma siting on sharp colour edges; and the advertised table equal to
// what imports. Needs /dev/udmabuf and a device with DRM format modifiers:
// in the qemu guest (vk-dmabuf); on the host these skip, loudly.
#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "renderer/color_representation.hpp"
#include "tests/renderer/harness.hpp"
#include "tests/renderer/udmabuf.hpp"
#include "tests/renderer/yuv_frames.hpp"
#include "tests/renderer/yuv_reference.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

uint32_t align(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// Writes `frame` into a new buffer laid out as `f`; null (with `why`) without udmabuf.
PlaneBuffer* make_yuv_buffer(const YuvFormat& f, const YuvFrame& frame, bool separate,
                             std::string& why) {
  auto* b = PlaneBuffer::create(frame.width, frame.height);
  b->format = f.drm;
  const uint32_t sample = f.bits > 8 ? 2 : 1;
  uint32_t rows[3] = {};
  if (packed(f)) {
    b->planes = 1;
    b->stride[0] = align(uint32_t(frame.width) * 2, 256);
    rows[0] = uint32_t(frame.height);
  } else if (three_planes(f)) {
    b->planes = 3;
    b->stride[0] = align(uint32_t(frame.width), 256);
    b->stride[1] = b->stride[2] = align(uint32_t(frame.chroma_width), 256);
    rows[0] = uint32_t(frame.height);
    rows[1] = rows[2] = uint32_t(frame.chroma_height);
  } else {
    b->planes = 2;
    b->stride[0] = align(uint32_t(frame.width) * sample, 256);
    b->stride[1] = align(uint32_t(frame.chroma_width) * 2 * sample, 256);
    rows[0] = uint32_t(frame.height);
    rows[1] = uint32_t(frame.chroma_height);
  }
  size_t total = 0;
  for (int i = 0; i < b->planes; ++i) {
    if (separate) {
      b->offset[i] = 0;
      b->memory_of[i] = i;
      auto m = make_udmabuf(size_t(b->stride[i]) * rows[i], why);
      if (!m) {
        wlr_buffer_drop(&b->base);
        return nullptr;
      }
      b->memory.push_back(std::move(m));
    } else {
      b->offset[i] = uint32_t(total);
      total = align(uint32_t(total + size_t(b->stride[i]) * rows[i]), 4096);
    }
  }
  if (!separate) {
    auto m = make_udmabuf(total, why);
    if (!m) {
      wlr_buffer_drop(&b->base);
      return nullptr;
    }
    b->memory.push_back(std::move(m));
  }
  unsigned char* planes[3] = {};
  for (int i = 0; i < b->planes; ++i) planes[i] = b->plane(i);
  write_yuv(f, frame, planes, b->stride);
  return b;
}

class DmabufYuv : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { harness_ = new GoldenHarness(); }
  static void TearDownTestSuite() {
    delete harness_;
    harness_ = nullptr;
  }
  void SetUp() override {
    if (!harness_->unavailable().empty()) SKIP_UNLESS_REQUIRED(harness_->unavailable());
    formats_ = wlr_renderer_get_texture_formats(harness_->vulkan().renderer, WLR_BUFFER_CAP_DMABUF);
    if (formats_ == nullptr || formats_->len == 0)
      SKIP_UNLESS_REQUIRED(
          "UNTESTED HERE: the Vulkan device cannot import dma-bufs (no "
          "VK_EXT_image_drm_format_modifier); run in tests/vm/ (vk-dmabuf)");
  }
  void TearDown() override { EXPECT_EQ(harness_->debug_messages(), 0); }

  bool advertised(uint32_t format, uint64_t modifier) const {
    const wlr_drm_format* f = wlr_drm_format_set_get(formats_, format);
    for (size_t i = 0; f != nullptr && i < f->len; ++i)
      if (f->modifiers[i] == modifier) return true;
    return false;
  }

  // Draws `buffer` 1:1 (nearest, unblended) and reads the result; empty
  // when the renderer made no texture of it.
  static Image draw(wlr_buffer* buffer) {
    RendererUnderTest& vk = harness_->vulkan();
    wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, buffer);
    if (texture == nullptr) return {};
    wlr_buffer* target = harness_->target(vk, buffer->width, buffer->height);
    harness_->render(vk, target, [&](wlr_render_pass* pass, wlr_renderer*) {
      wlr_render_texture_options options{};
      options.texture = texture;
      options.dst_box = {0, 0, buffer->width, buffer->height};
      options.filter_mode = WLR_SCALE_FILTER_NEAREST;
      options.blend_mode = WLR_RENDER_BLEND_MODE_NONE;
      wlr_render_pass_add_texture(pass, &options);
    });
    Image image = harness_->read(vk, target);
    wlr_texture_destroy(texture);
    wlr_buffer_drop(target);
    return image;
  }

  static GoldenHarness* harness_;
  const wlr_drm_format_set* formats_ = nullptr;
};
GoldenHarness* DmabufYuv::harness_ = nullptr;

const char* coefficient_name(YcbcrCoefficients c) {
  switch (c) {
    case YcbcrCoefficients::bt601:
      return "bt601";
    case YcbcrCoefficients::bt709:
      return "bt709";
    case YcbcrCoefficients::bt2020:
      return "bt2020";
    case YcbcrCoefficients::identity:
      break;
  }
  return "identity";
}

// Every format in every matrix and range, within one step of 255 of the
// reference; planes at offsets in one fd, and NV12, P010 and YUV420 again
// with each plane in its own fd.
TEST_F(DmabufYuv, EveryFormatAndRepresentationMatchesTheReference) {
  const int w = 64, h = 32;
  struct Case {
    const YuvFormat* format;
    bool separate;
  };
  std::vector<Case> cases;
  for (const YuvFormat& f : kYuvFormats) cases.push_back({&f, false});
  for (const YuvFormat& f : kYuvFormats)
    if (f.drm == DRM_FORMAT_NV12 || f.drm == DRM_FORMAT_P010 || f.drm == DRM_FORMAT_YUV420)
      cases.push_back({&f, true});
  for (const Case& c : cases) {
    const YuvFormat& f = *c.format;
    ASSERT_TRUE(advertised(f.drm, DRM_FORMAT_MOD_LINEAR)) << f.name << " LINEAR is not advertised";
    const YuvFrame frame = pattern(f, w, h);
    std::string why;
    PlaneBuffer* buffer = make_yuv_buffer(f, frame, c.separate, why);
    if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
    int worst = 0;
    for (YcbcrCoefficients coefficients :
         {YcbcrCoefficients::bt601, YcbcrCoefficients::bt709, YcbcrCoefficients::bt2020}) {
      for (QuantizationRange range : {QuantizationRange::full, QuantizationRange::limited}) {
        ColorRepresentation rep;
        rep.coefficients = coefficients;
        rep.range = range;
        rep.client_set = true;
        set_color_representation(&buffer->base, rep);
        const std::string name = std::string("yuv-") + f.name + (c.separate ? "-fds-" : "-") +
                                 coefficient_name(coefficients) +
                                 (range == QuantizationRange::full ? "-full" : "-limited");
        const Image got = draw(&buffer->base);
        ASSERT_FALSE(got.empty()) << name << ": no texture";
        Comparison cmp = compare(name, got, reference_image(f, frame, rep), 1);
        EXPECT_EQ(cmp.differing, 0)
            << name << ": " << cmp.differing << " pixels off by more than 1/255 (max "
            << cmp.max_delta << "); see " << cmp.artifacts;
        worst = std::max(worst, cmp.max_delta);
      }
    }
    std::printf("[ yuv      ] %-6s %s: max error %d/255 over 6 representations\n", f.name,
                c.separate ? "(one fd per plane)" : "(one fd)          ", worst);
    wlr_buffer_drop(&buffer->base);
  }
}

// A buffer nobody set a representation on is BT.601 limited.
TEST_F(DmabufYuv, WithoutARepresentationItIsBt601Limited) {
  const YuvFormat& f = kYuvFormats[0];
  const YuvFrame frame = pattern(f, 32, 16);
  std::string why;
  PlaneBuffer* buffer = make_yuv_buffer(f, frame, false, why);
  if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
  const Image got = draw(&buffer->base);
  ASSERT_FALSE(got.empty());
  Comparison cmp = compare("yuv-default", got,
                           reference_image(f, frame, default_color_representation(f.drm)), 1);
  EXPECT_EQ(cmp.differing, 0) << cmp.artifacts;
  wlr_buffer_drop(&buffer->base);
}

// Chroma blocks with sharp edges under flat luma: where each chroma sample
// sits decides the colour of the luma pixels next to an edge. Every type
// must match the reference, and the types must differ from each other
// (else the pattern could not tell them apart).
TEST_F(DmabufYuv, ChromaSitingIsHonouredAtSharpEdges) {
  for (const YuvFormat& f : {kYuvFormats[0], kYuvFormats[2]}) {  // 4:2:0 and 4:2:2
    YuvFrame frame;
    frame.width = 32, frame.height = 16;
    frame.chroma_width = 32 / f.sub_x, frame.chroma_height = 16 / f.sub_y;
    frame.y.assign(size_t(32) * 16, 128);
    for (int y = 0; y < frame.chroma_height; ++y)
      for (int x = 0; x < frame.chroma_width; ++x) {
        const bool block = ((x / 3) + (y / 3)) % 2 == 0;  // 3-sample checkerboard
        frame.cb.push_back(block ? 240 : 16);
        frame.cr.push_back(block ? 16 : 240);
      }
    std::string why;
    PlaneBuffer* buffer = make_yuv_buffer(f, frame, false, why);
    if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
    std::vector<Image> seen;
    for (int type = 0; type < 6; ++type) {
      ColorRepresentation rep = default_color_representation(f.drm);
      rep.chroma_location = static_cast<ChromaLocation>(type);
      rep.client_set = true;
      set_color_representation(&buffer->base, rep);
      const std::string name = std::string("siting-") + f.name + "-type" + std::to_string(type);
      const Image got = draw(&buffer->base);
      ASSERT_FALSE(got.empty()) << name;
      Comparison cmp = compare(name, got, reference_image(f, frame, rep), 1);
      EXPECT_EQ(cmp.differing, 0) << name << ": " << cmp.differing << " pixels differ (max "
                                  << cmp.max_delta << "); see " << cmp.artifacts;
      seen.push_back(got);
    }
    // Horizontal siting differs between types 0 and 1; vertical between 0, 2, 4 for 4:2:0.
    EXPECT_NE(seen[0].pixels, seen[1].pixels) << f.name;
    if (f.sub_y == 2) {
      EXPECT_NE(seen[0].pixels, seen[2].pixels) << f.name;
      EXPECT_NE(seen[2].pixels, seen[4].pixels) << f.name;
    } else {
      EXPECT_EQ(seen[0].pixels, seen[2].pixels) << f.name << ": 4:2:2 has no vertical siting";
    }
    wlr_buffer_drop(&buffer->base);
  }
}

// An RGB dma-buf whose client says its alpha is straight is premultiplied
// in the shader; the default (premultiplied) is sampled as it is.
TEST_F(DmabufYuv, StraightAlphaIsPremultipliedInTheShader) {
  const int w = 32, h = 16;
  if (!advertised(DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR))
    SKIP_UNLESS_REQUIRED("ARGB8888 LINEAR is not advertised");
  std::string why;
  auto memory = make_udmabuf(size_t(w) * 4 * h, why);
  if (!memory) SKIP_UNLESS_REQUIRED(why);
  auto* buffer = PlaneBuffer::create(w, h);
  buffer->format = DRM_FORMAT_ARGB8888;
  buffer->planes = 1;
  buffer->stride[0] = w * 4;
  buffer->memory.push_back(std::move(memory));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      unsigned char* px = buffer->plane(0) + size_t(y) * w * 4 + size_t(x) * 4;  // B G R A
      px[0] = static_cast<unsigned char>(40 + 6 * y);
      px[1] = static_cast<unsigned char>(200 - 3 * x);
      px[2] = static_cast<unsigned char>(250 - 5 * y);
      px[3] = static_cast<unsigned char>(8 * x + 3);
    }
  for (AlphaMode mode : {AlphaMode::straight, AlphaMode::premultiplied_electrical}) {
    ColorRepresentation rep;
    rep.alpha = mode;
    rep.client_set = true;
    set_color_representation(&buffer->base, rep);
    const Image got = draw(&buffer->base);  // unblended: the texel's own values land
    ASSERT_FALSE(got.empty());
    int worst = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const unsigned char* px = buffer->plane(0) + size_t(y) * w * 4 + size_t(x) * 4;
        const double a = mode == AlphaMode::straight ? px[3] / 255.0 : 1.0;
        for (int c = 0; c < 3; ++c) {
          const int want = int(std::lround(px[c] * a));
          const int have = int((got.at(x, y) >> (8 * c)) & 0xff);
          worst = std::max(worst, std::abs(want - have));
        }
      }
    EXPECT_LE(worst, 1) << (mode == AlphaMode::straight ? "straight" : "premultiplied");
  }
  wlr_buffer_drop(&buffer->base);
}

// What the renderer advertises is exactly what it imports: every advertised
// YUV (format, modifier) makes a texture, and every one not advertised (a
// tiled modifier, a YUV format baton has no layout for) is refused.
TEST_F(DmabufYuv, AdvertisedEqualsImportable) {
  const uint64_t probes[] = {DRM_FORMAT_MOD_LINEAR, I915_FORMAT_MOD_X_TILED,
                             I915_FORMAT_MOD_Y_TILED};
  for (const YuvFormat& f : kYuvFormats) {
    const YuvFrame frame = pattern(f, 16, 8);
    for (uint64_t modifier : probes) {
      std::string why;
      PlaneBuffer* buffer = make_yuv_buffer(f, frame, false, why);
      if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
      buffer->modifier = modifier;
      wlr_texture* texture = wlr_texture_from_buffer(harness_->vulkan().renderer, &buffer->base);
      EXPECT_EQ(texture != nullptr, advertised(f.drm, modifier))
          << f.name << " modifier 0x" << std::hex << modifier;
      if (texture != nullptr) wlr_texture_destroy(texture);
      wlr_buffer_drop(&buffer->base);
    }
  }
  // A plane count that does not match the format's is refused.
  const YuvFrame frame = pattern(kYuvFormats[0], 16, 8);
  std::string why;
  PlaneBuffer* buffer = make_yuv_buffer(kYuvFormats[0], frame, false, why);
  if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
  buffer->planes = 1;
  EXPECT_EQ(wlr_texture_from_buffer(harness_->vulkan().renderer, &buffer->base), nullptr);
  wlr_buffer_drop(&buffer->base);
}

}  // namespace
}  // namespace baton::test
