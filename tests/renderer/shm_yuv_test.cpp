// YUV wl_shm buffers (NV12, P010, YUYV, ...): each plane copied into an image
// of its own and converted in baton's shaders, against the tests' own
// double-precision conversion (yuv_reference.hpp). The planes are laid out
// as wl_shm's YUV clients lay them out (one stride; the planes follow each
// other, each plane's stride derived from the first's), computed here on
// their own, not with the renderer's function. Runs wherever the Vulkan
// renderer starts (lavapipe on the host), on the compositing path under test.
#include <drm_fourcc.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "renderer/color_representation.hpp"
#include "tests/renderer/harness.hpp"
#include "tests/renderer/yuv_frames.hpp"

namespace baton::test {
namespace {

// A buffer in wl_shm's YUV layout with `pad` bytes (even) after each luma
// row. The shortest stride holds a row of every plane: an odd width's last
// chroma sample covers one pixel, so the width is rounded up to even.
MemoryBuffer* make_shm_yuv(const YuvFormat& f, const YuvFrame& frame, uint32_t pad) {
  const uint32_t sample = f.bits > 8 ? 2 : 1;
  const auto w = uint32_t(frame.width), h = uint32_t(frame.height);
  const auto ch = uint32_t(frame.chroma_height);
  const uint32_t even_w = (w + 1) / 2 * 2;
  uint32_t strides[3] = {};
  size_t sizes[3] = {};
  if (packed(f)) {
    strides[0] = even_w * 2 + pad;
  } else if (three_planes(f)) {
    strides[0] = even_w + pad;  // even: its half is each chroma plane's
    strides[1] = strides[2] = strides[0] / 2;
  } else {
    strides[0] = even_w * sample + pad;
    strides[1] = strides[0];  // half as many samples, each twice as wide
  }
  sizes[0] = size_t(strides[0]) * h;
  sizes[1] = size_t(strides[1]) * ch;
  sizes[2] = size_t(strides[2]) * ch;
  MemoryBuffer* m = MemoryBuffer::create_raw(frame.width, frame.height, f.drm, strides[0],
                                             sizes[0] + sizes[1] + sizes[2]);
  unsigned char* planes[3] = {m->data.data(), m->data.data() + sizes[0],
                              m->data.data() + sizes[0] + sizes[1]};
  write_yuv(f, frame, planes, strides);
  return m;
}

class ShmYuv : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { harness_ = new GoldenHarness(); }
  static void TearDownTestSuite() {
    delete harness_;
    harness_ = nullptr;
  }
  void SetUp() override {
    if (!harness_->unavailable().empty()) GTEST_SKIP() << harness_->unavailable();
  }
  void TearDown() override { EXPECT_EQ(harness_->debug_messages(), 0); }

  // Draws `texture` 1:1 (nearest, unblended) and reads the result.
  static Image draw(wlr_texture* texture, int width, int height) {
    RendererUnderTest& vk = harness_->vulkan();
    wlr_buffer* target = harness_->target(vk, width, height);
    harness_->render(vk, target, [&](wlr_render_pass* pass, wlr_renderer*) {
      wlr_render_texture_options options{};
      options.texture = texture;
      options.dst_box = {0, 0, width, height};
      options.filter_mode = WLR_SCALE_FILTER_NEAREST;
      options.blend_mode = WLR_RENDER_BLEND_MODE_NONE;
      wlr_render_pass_add_texture(pass, &options);
    });
    Image image = harness_->read(vk, target);
    wlr_buffer_drop(target);
    return image;
  }

  static Image draw(MemoryBuffer* buffer) {
    wlr_texture* texture = wlr_texture_from_buffer(harness_->vulkan().renderer, &buffer->base);
    if (texture == nullptr) return {};
    Image image = draw(texture, buffer->base.width, buffer->base.height);
    wlr_texture_destroy(texture);
    return image;
  }

  static GoldenHarness* harness_;
};
GoldenHarness* ShmYuv::harness_ = nullptr;

// wl_shm lists every YUV format (what the renderer lists for data-pointer
// buffers is what wlroots advertises on wl_shm).
TEST_F(ShmYuv, EveryFormatIsListedForWlShm) {
  const wlr_drm_format_set* formats =
      wlr_renderer_get_texture_formats(harness_->vulkan().renderer, WLR_BUFFER_CAP_DATA_PTR);
  ASSERT_NE(formats, nullptr);
  for (const YuvFormat& f : kYuvFormats)
    EXPECT_NE(wlr_drm_format_set_get(formats, f.drm), nullptr) << f.name;
}

// Every format in every matrix and range, within one step of 255 of the
// reference, in an even and an odd size (the last chroma column and row
// then cover one pixel each), with and without padding after the rows.
TEST_F(ShmYuv, EveryFormatAndRepresentationMatchesTheReference) {
  struct Size {
    int w, h;
    uint32_t pad;
  };
  for (const YuvFormat& f : kYuvFormats)
    for (const Size& size : {Size{62, 34, 8}, Size{61, 33, 0}}) {
      const int w = size.w, h = size.h;
      const YuvFrame frame = pattern(f, w, h);
      MemoryBuffer* buffer = make_shm_yuv(f, frame, size.pad);
      int worst = 0;
      for (YcbcrCoefficients coefficients :
           {YcbcrCoefficients::bt601, YcbcrCoefficients::bt709, YcbcrCoefficients::bt2020}) {
        for (QuantizationRange range : {QuantizationRange::full, QuantizationRange::limited}) {
          ColorRepresentation rep;
          rep.coefficients = coefficients;
          rep.range = range;
          rep.client_set = true;
          set_color_representation(&buffer->base, rep);
          const std::string name = std::string("shm-yuv-") + f.name + "-" + std::to_string(w) +
                                   "x" + std::to_string(h) + "-" +
                                   std::to_string(int(coefficients)) + "-" +
                                   (range == QuantizationRange::full ? "full" : "limited");
          const Image got = draw(buffer);
          ASSERT_FALSE(got.empty()) << name << ": no texture";
          Comparison cmp = compare(name, got, reference_image(f, frame, rep), 1);
          EXPECT_EQ(cmp.differing, 0)
              << name << ": " << cmp.differing << " pixels off by more than 1/255 (max "
              << cmp.max_delta << "); see " << cmp.artifacts;
          worst = std::max(worst, cmp.max_delta);
        }
      }
      std::printf("[ shm yuv  ] %-6s %dx%d: max error %d/255 over 6 representations\n", f.name, w,
                  h, worst);
      buffer->drop();
    }
}

// A buffer nobody set a representation on is BT.601 limited.
TEST_F(ShmYuv, WithoutARepresentationItIsBt601Limited) {
  const YuvFormat& f = kYuvFormats[0];
  const YuvFrame frame = pattern(f, 32, 16);
  MemoryBuffer* buffer = make_shm_yuv(f, frame, 0);
  const Image got = draw(buffer);
  ASSERT_FALSE(got.empty());
  Comparison cmp = compare("shm-yuv-default", got,
                           reference_image(f, frame, default_color_representation(f.drm)), 1);
  EXPECT_EQ(cmp.differing, 0) << cmp.artifacts;
  buffer->drop();
}

// A commit that damages part of the buffer updates that part of every plane
// (the damage scaled to each plane, rounded outwards), and nothing else.
TEST_F(ShmYuv, DamagedUpdatesReachEveryPlane) {
  const int w = 48, h = 30;
  for (const YuvFormat& f : kYuvFormats) {
    const YuvFrame before = pattern(f, w, h);
    MemoryBuffer* first = make_shm_yuv(f, before, 4);
    wlr_texture* texture = wlr_texture_from_buffer(harness_->vulkan().renderer, &first->base);
    ASSERT_NE(texture, nullptr) << f.name;
    // The new frame differs everywhere; only an odd-placed box is damaged.
    YuvFrame after = before;
    for (uint32_t& v : after.y) v = (1u << f.bits) - 1 - v;
    for (uint32_t& v : after.cb) v = (1u << f.bits) - 1 - v;
    for (uint32_t& v : after.cr) v = (1u << f.bits) - 1 - v;
    MemoryBuffer* second = make_shm_yuv(f, after, 4);
    pixman_region32_t damage;
    pixman_region32_init_rect(&damage, 7, 5, 17, 11);  // x 7..23, y 5..15
    ASSERT_TRUE(wlr_texture_update_from_buffer(texture, &second->base, &damage)) << f.name;
    pixman_region32_fini(&damage);
    const Image got = draw(texture, w, h);
    const ColorRepresentation rep = default_color_representation(f.drm);
    const Image old_picture = reference_image(f, before, rep);
    const Image new_picture = reference_image(f, after, rep);
    // Well inside the box (past the pixels whose chroma is interpolated from
    // samples outside it): the new picture; well outside it (past the chroma
    // samples the box's rounding may take): the old one.
    int wrong = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const bool inside = x >= 9 && x < 22 && y >= 7 && y < 14;
        const bool outside = x < 5 || x >= 26 || y < 3 || y >= 18;
        if (!inside && !outside) continue;
        const Image& want = inside ? new_picture : old_picture;
        for (int c = 0; c < 3; ++c) {
          const int a = int((got.at(x, y) >> (8 * c)) & 0xff);
          const int b = int((want.at(x, y) >> (8 * c)) & 0xff);
          if (std::abs(a - b) > 1) {
            ++wrong;
            break;
          }
        }
      }
    EXPECT_EQ(wrong, 0) << f.name << ": pixels neither the damaged update nor the old frame";
    wlr_texture_destroy(texture);
    first->drop();
    second->drop();
  }
}

// Chroma siting on sharp colour edges: each of the six types matches the
// reference, and they differ from each other where the format can show it.
TEST_F(ShmYuv, ChromaSitingIsHonouredAtSharpEdges) {
  const YuvFormat& f = kYuvFormats[0];  // NV12
  YuvFrame frame;
  frame.width = 32, frame.height = 16;
  frame.chroma_width = 16, frame.chroma_height = 8;
  frame.y.assign(size_t(32) * 16, 128);
  for (int y = 0; y < frame.chroma_height; ++y)
    for (int x = 0; x < frame.chroma_width; ++x) {
      const bool block = ((x / 3) + (y / 3)) % 2 == 0;
      frame.cb.push_back(block ? 240 : 16);
      frame.cr.push_back(block ? 16 : 240);
    }
  MemoryBuffer* buffer = make_shm_yuv(f, frame, 0);
  std::vector<Image> seen;
  for (int type = 0; type < 6; ++type) {
    ColorRepresentation rep = default_color_representation(f.drm);
    rep.chroma_location = static_cast<ChromaLocation>(type);
    rep.client_set = true;
    set_color_representation(&buffer->base, rep);
    const Image got = draw(buffer);
    ASSERT_FALSE(got.empty());
    Comparison cmp =
        compare("shm-siting-type" + std::to_string(type), got, reference_image(f, frame, rep), 1);
    EXPECT_EQ(cmp.differing, 0) << "type " << type << ": see " << cmp.artifacts;
    seen.push_back(got);
  }
  EXPECT_NE(seen[0].pixels, seen[1].pixels);
  EXPECT_NE(seen[0].pixels, seen[2].pixels);
  EXPECT_NE(seen[2].pixels, seen[4].pixels);
  buffer->drop();
}

}  // namespace
}  // namespace baton::test
