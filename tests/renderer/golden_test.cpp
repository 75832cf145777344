// Golden comparisons: every scene is drawn by baton's Vulkan renderer and by
// wlroots' pixman renderer, and the two results must agree.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <vulkan/vulkan.h>

#include <cstdlib>
#include <cstring>
#include <memory>

#include "renderer/vulkan/introspection.hpp"
#include "tests/renderer/harness.hpp"

namespace baton::test {
namespace {

class Golden : public ::testing::Test {
 protected:
  // One device for the suite: creating one (and compiling its pipelines on
  // lavapipe) costs seconds.
  static void SetUpTestSuite() { harness_ = new GoldenHarness(); }
  static void TearDownTestSuite() {
    delete harness_;
    harness_ = nullptr;
  }
  void SetUp() override {
    if (!harness().unavailable().empty()) GTEST_SKIP() << harness().unavailable();
  }
  void TearDown() override {
    // Run under VK_LAYER_KHRONOS_validation by the validation suite: no message is allowed.
    EXPECT_EQ(harness().debug_messages(), 0) << "Vulkan validation / debug messages were logged";
  }
  static GoldenHarness& harness() { return *harness_; }

  static void expect_same(const std::string& name, const Image& vk, const Image& px, int tolerance,
                          const std::function<bool(int, int)>& ignore = nullptr) {
    ASSERT_FALSE(vk.empty()) << "no Vulkan image";
    ASSERT_FALSE(px.empty()) << "no pixman image";
    Comparison c = compare(name, vk, px, tolerance, ignore);
    EXPECT_EQ(c.differing, 0) << name << ": " << c.differing << " pixels differ by more than "
                              << tolerance << " (max " << c.max_delta << "); see " << c.artifacts;
  }

  static GoldenHarness* harness_;
};
GoldenHarness* Golden::harness_ = nullptr;

// A texture of `buffer` made by `renderer`, destroyed at scope exit.
struct Tex {
  wlr_texture* texture = nullptr;
  Tex(wlr_renderer* r, MemoryBuffer* b) : texture(wlr_texture_from_buffer(r, &b->base)) {}
  ~Tex() {
    if (texture != nullptr) wlr_texture_destroy(texture);
  }
};

struct Owned {
  MemoryBuffer* buffer;
  explicit Owned(MemoryBuffer* b) : buffer(b) {}
  ~Owned() { buffer->drop(); }
};

void draw_texture(wlr_render_pass* pass, wlr_texture* texture, wlr_box dst,
                  wl_output_transform transform = WL_OUTPUT_TRANSFORM_NORMAL,
                  wlr_scale_filter_mode filter = WLR_SCALE_FILTER_NEAREST,
                  const float* alpha = nullptr, wlr_fbox src = {},
                  const pixman_region32_t* clip = nullptr) {
  wlr_render_texture_options options{};
  options.texture = texture;
  options.dst_box = dst;
  options.src_box = src;
  options.transform = transform;
  options.filter_mode = filter;
  options.alpha = alpha;
  options.clip = clip;
  wlr_render_pass_add_texture(pass, &options);
}

const uint32_t kFormats[] = {
    DRM_FORMAT_ARGB8888,    DRM_FORMAT_XRGB8888,    DRM_FORMAT_ABGR8888,
    DRM_FORMAT_XBGR8888,    DRM_FORMAT_RGB565,      DRM_FORMAT_ARGB2101010,
    DRM_FORMAT_XRGB2101010, DRM_FORMAT_ABGR2101010, DRM_FORMAT_XBGR2101010,
};

class GoldenFormat : public Golden, public ::testing::WithParamInterface<uint32_t> {};

TEST_P(GoldenFormat, ShmTextureMatchesPixman) {
  const uint32_t format = GetParam();
  const wlr_drm_format_set* offered =
      wlr_renderer_get_texture_formats(harness().vulkan().renderer, WLR_BUFFER_CAP_DATA_PTR);
  const bool core = format == DRM_FORMAT_ARGB8888 || format == DRM_FORMAT_XRGB8888 ||
                    format == DRM_FORMAT_ABGR8888 || format == DRM_FORMAT_XBGR8888;
  if (wlr_drm_format_set_get(offered, format) == nullptr) {
    ASSERT_FALSE(core) << "the four 8888 formats must always be offered";
    GTEST_SKIP() << "this Vulkan device cannot sample format 0x" << std::hex << format;
  }
  Owned buffer(MemoryBuffer::create(64, 48, format));
  buffer.buffer->fill_pattern(1);
  Image vk, px;
  harness().render_both(
      120, 90,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex t(r, buffer.buffer);
        ASSERT_NE(t.texture, nullptr);
        draw_texture(pass, t.texture, {10, 12, 64, 48});
      },
      vk, px);
  char name[64];
  std::snprintf(name, sizeof(name), "format-%08x", format);
  // 10-bit and 565 sources round differently on their way to 8 bits.
  expect_same(name, vk, px, core ? 1 : 3);
}

INSTANTIATE_TEST_SUITE_P(AllShmFormats, GoldenFormat, ::testing::ValuesIn(kFormats));

class GoldenTransform : public Golden, public ::testing::WithParamInterface<int> {};

TEST_P(GoldenTransform, TransformMatchesPixman) {
  const auto transform = static_cast<wl_output_transform>(GetParam());
  Owned buffer(MemoryBuffer::create(40, 24, DRM_FORMAT_ARGB8888));
  buffer.buffer->fill_pattern(2);
  const bool swaps = transform % 2 == 1;
  wlr_box dst = {7, 5, swaps ? 24 : 40, swaps ? 40 : 24};
  Image vk, px;
  harness().render_both(
      64, 64,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex t(r, buffer.buffer);
        draw_texture(pass, t.texture, dst, transform);
      },
      vk, px);
  expect_same("transform-" + std::to_string(GetParam()), vk, px, 1);
}

TEST_P(GoldenTransform, CroppedTransformMatchesPixman) {
  const auto transform = static_cast<wl_output_transform>(GetParam());
  Owned buffer(MemoryBuffer::create(40, 30, DRM_FORMAT_XRGB8888));
  buffer.buffer->fill_pattern(3);
  const bool swaps = transform % 2 == 1;
  wlr_fbox src = {6, 4, 20, 14};
  wlr_box dst = {9, 3, swaps ? 14 : 20, swaps ? 20 : 14};
  Image vk, px;
  harness().render_both(
      48, 40,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex t(r, buffer.buffer);
        draw_texture(pass, t.texture, dst, transform, WLR_SCALE_FILTER_NEAREST, nullptr, src);
      },
      vk, px);
  expect_same("crop-transform-" + std::to_string(GetParam()), vk, px, 1);
}

INSTANTIATE_TEST_SUITE_P(AllTransforms, GoldenTransform, ::testing::Range(0, 8));

TEST_F(Golden, OpacityMatchesPixman) {
  Owned buffer(MemoryBuffer::create(50, 40, DRM_FORMAT_ARGB8888));
  buffer.buffer->fill_pattern(4);
  Owned opaque(MemoryBuffer::create(30, 30, DRM_FORMAT_XRGB8888));
  opaque.buffer->fill_pattern(5);
  const float half = 0.5f, quarter = 0.25f;
  Image vk, px;
  harness().render_both(
      100, 80,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex a(r, buffer.buffer), b(r, opaque.buffer);
        draw_texture(pass, a.texture, {5, 5, 50, 40}, WL_OUTPUT_TRANSFORM_NORMAL,
                     WLR_SCALE_FILTER_NEAREST, &half);
        draw_texture(pass, b.texture, {40, 30, 30, 30}, WL_OUTPUT_TRANSFORM_NORMAL,
                     WLR_SCALE_FILTER_NEAREST, &quarter);
      },
      vk, px);
  expect_same("opacity", vk, px, 3);
}

TEST_F(Golden, NearestScaleMatchesPixman) {
  Owned buffer(MemoryBuffer::create(48, 36, DRM_FORMAT_ARGB8888));
  buffer.buffer->fill_pattern(6);
  Image vk, px;
  harness().render_both(
      180, 120,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex t(r, buffer.buffer);
        draw_texture(pass, t.texture, {3, 4, 96, 72});  // 2x up
        // 3x down: an even factor puts sample points exactly on texel edges,
        // where either neighbour is a right answer.
        draw_texture(pass, t.texture, {110, 80, 16, 12});
      },
      vk, px);
  expect_same("scale-nearest", vk, px, 1);
}

TEST_F(Golden, LinearScaleMatchesPixmanInside) {
  Owned buffer(MemoryBuffer::create(32, 24, DRM_FORMAT_XRGB8888));
  buffer.buffer->fill_pattern(7);
  const wlr_box dst = {10, 6, 48, 36};  // 1.5x
  Image vk, px;
  harness().render_both(
      80, 60,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex t(r, buffer.buffer);
        draw_texture(pass, t.texture, dst, WL_OUTPUT_TRANSFORM_NORMAL, WLR_SCALE_FILTER_BILINEAR);
      },
      vk, px);
  // pixman samples outside a texture as transparent, Vulkan clamps to the
  // edge: the outermost destination pixels legitimately differ.
  auto edge = [&](int x, int y) {
    bool inside = x >= dst.x && y >= dst.y && x < dst.x + dst.width && y < dst.y + dst.height;
    bool core = x > dst.x && y > dst.y && x < dst.x + dst.width - 1 && y < dst.y + dst.height - 1;
    return inside && !core;
  };
  expect_same("scale-linear", vk, px, 3, edge);
}

TEST_F(Golden, RectsMatchPixman) {
  Image vk, px;
  harness().render_both(
      64, 64,
      [&](wlr_render_pass* pass, wlr_renderer*) {
        wlr_render_rect_options rect{};
        rect.box = {4, 4, 30, 20};
        rect.color = {0.8f, 0.1f, 0.3f, 1.0f};
        wlr_render_pass_add_rect(pass, &rect);
        rect.box = {20, 14, 30, 30};
        rect.color = {0.0f, 0.25f, 0.0f, 0.5f};  // premultiplied, translucent
        wlr_render_pass_add_rect(pass, &rect);
        rect.box = {40, 2, 20, 10};
        rect.color = {0.1f, 0.1f, 0.1f, 0.4f};
        rect.blend_mode = WLR_RENDER_BLEND_MODE_NONE;  // replaces, alpha included
        wlr_render_pass_add_rect(pass, &rect);
      },
      vk, px);
  expect_same("rects", vk, px, 1);
}

TEST_F(Golden, PopupOverToplevelMatchesPixman) {
  Owned toplevel(MemoryBuffer::create(200, 150, DRM_FORMAT_XRGB8888));
  toplevel.buffer->fill_pattern(8);
  Owned popup(MemoryBuffer::create(80, 60, DRM_FORMAT_ARGB8888));
  popup.buffer->fill_pattern(9);
  Owned shadow(MemoryBuffer::create(1, 1, DRM_FORMAT_ARGB8888));
  shadow.buffer->set(0, 0, 0.5f, 0.0f, 0.0f, 0.0f);
  pixman_region32_t clip;
  pixman_region32_init_rect(&clip, 0, 0, 260, 200);
  pixman_region32_union_rect(&clip, &clip, 0, 0, 1, 1);
  Image vk, px;
  harness().render_both(
      260, 200,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex top(r, toplevel.buffer), pop(r, popup.buffer), sh(r, shadow.buffer);
        draw_texture(pass, top.texture, {20, 20, 200, 150}, WL_OUTPUT_TRANSFORM_NORMAL,
                     WLR_SCALE_FILTER_BILINEAR, nullptr, {}, &clip);
        draw_texture(pass, sh.texture, {154, 104, 80, 60});  // single-pixel shadow
        draw_texture(pass, pop.texture, {150, 100, 80, 60}, WL_OUTPUT_TRANSFORM_NORMAL,
                     WLR_SCALE_FILTER_BILINEAR, nullptr, {}, &clip);
      },
      vk, px);
  pixman_region32_fini(&clip);
  expect_same("popup-over-toplevel", vk, px, 1);
}

// A crowded desktop: more draws than one word of the compute path's tile
// mask and more textures than one of its batches, overlapping, some
// translucent, under a two-rectangle damage clip.
TEST_F(Golden, CrowdedOverlappingWindowsMatchPixman) {
  constexpr int kWindows = 80;
  std::vector<std::unique_ptr<Owned>> windows;
  for (int i = 0; i < kWindows; ++i) {
    uint32_t format = i % 3 == 0 ? DRM_FORMAT_XRGB8888 : DRM_FORMAT_ARGB8888;
    windows.push_back(
        std::make_unique<Owned>(MemoryBuffer::create(24 + i % 7, 20 + i % 5, format)));
    windows.back()->buffer->fill_pattern(i);
  }
  pixman_region32_t clip;
  pixman_region32_init_rect(&clip, 0, 0, 150, 120);
  pixman_region32_union_rect(&clip, &clip, 170, 60, 90, 100);
  Image vk, px;
  harness().render_both(
      260, 200,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        wlr_render_rect_options bg{};
        bg.box = {0, 0, 260, 200};
        bg.color = {0.1f, 0.2f, 0.3f, 1.0f};
        bg.clip = &clip;
        wlr_render_pass_add_rect(pass, &bg);
        std::vector<std::unique_ptr<Tex>> textures;
        for (int i = 0; i < kWindows; ++i) {
          textures.push_back(std::make_unique<Tex>(r, windows[i]->buffer));
          const float alpha = i % 4 == 0 ? 0.6f : 1.0f;
          // Unscaled: nearest-neighbour scaling rounds differently in pixman.
          draw_texture(pass, textures.back()->texture,
                       {(i * 37) % 230, (i * 23) % 175, 24 + i % 7, 20 + i % 5},
                       WL_OUTPUT_TRANSFORM_NORMAL, WLR_SCALE_FILTER_NEAREST, &alpha, {}, &clip);
        }
      },
      vk, px);
  pixman_region32_fini(&clip);
  expect_same("crowded-windows", vk, px, 2);
}

TEST_F(Golden, SinglePixelBufferIsDrawnWithoutUpload) {
  Owned pixel(MemoryBuffer::create(1, 1, DRM_FORMAT_ARGB8888));
  pixel.buffer->set(0, 0, 0.6f, 0.6f, 0.3f, 0.0f);
  const float alpha = 0.5f;
  Image vk, px;
  harness().render_both(
      64, 48,
      [&](wlr_render_pass* pass, wlr_renderer* r) {
        Tex t(r, pixel.buffer);
        // Nearest: pixman's bilinear fades a 1x1 source towards transparent at its edges.
        draw_texture(pass, t.texture, {5, 5, 50, 30}, WL_OUTPUT_TRANSFORM_NORMAL,
                     WLR_SCALE_FILTER_NEAREST, &alpha);
      },
      vk, px);
  expect_same("single-pixel", vk, px, 1);
}

// Frame A everywhere, then only a 64x64 damage rectangle redrawn with scene B:
// every pixel outside the damage must be exactly frame A's.
TEST_F(Golden, DamageOnlyRedrawLeavesUndamagedPixelsUnchanged) {
  Owned window(MemoryBuffer::create(120, 90, DRM_FORMAT_ARGB8888));
  window.buffer->fill_pattern(10);
  const wlr_box damage = {70, 40, 64, 64};
  pixman_region32_t clip;
  pixman_region32_init_rect(&clip, damage.x, damage.y, damage.width, damage.height);
  auto scene = [&](int offset, const pixman_region32_t* region) {
    return [&, offset, region](wlr_render_pass* pass, wlr_renderer* r) {
      wlr_render_rect_options bg{};
      bg.box = {0, 0, 200, 150};
      bg.color = {0.1f, 0.3f, 0.2f, 1.0f};
      bg.clip = region;
      wlr_render_pass_add_rect(pass, &bg);
      Tex t(r, window.buffer);
      draw_texture(pass, t.texture, {30 + offset, 20 + offset, 120, 90}, WL_OUTPUT_TRANSFORM_NORMAL,
                   WLR_SCALE_FILTER_NEAREST, nullptr, {}, region);
    };
  };
  Image frame_a, frame_b, pixman_b;
  for (RendererUnderTest* rut : {&harness().vulkan(), &harness().pixman()}) {
    wlr_buffer* target = harness().target(*rut, 200, 150);
    ASSERT_NE(target, nullptr);
    harness().render(*rut, target, scene(0, nullptr));
    if (rut->vulkan) frame_a = harness().read(*rut, target);
    harness().render(*rut, target, scene(17, &clip));
    (rut->vulkan ? frame_b : pixman_b) = harness().read(*rut, target);
    wlr_buffer_drop(target);
  }
  pixman_region32_fini(&clip);
  auto in_damage = [&](int x, int y) {
    return x >= damage.x && y >= damage.y && x < damage.x + damage.width &&
           y < damage.y + damage.height;
  };
  Comparison outside = compare("damage-outside", frame_b, frame_a, 0, in_damage);
  EXPECT_EQ(outside.differing, 0) << "undamaged pixels changed; see " << outside.artifacts;
  expect_same("damage-redraw", frame_b, pixman_b, 1);
}

TEST_F(Golden, TextureUpdateUploadsOnlyDamage) {
  RendererUnderTest& rut = harness().vulkan();
  Owned buffer(MemoryBuffer::create(64, 64, DRM_FORMAT_XRGB8888));
  buffer.buffer->fill_pattern(11);
  Owned changed(MemoryBuffer::create(64, 64, DRM_FORMAT_XRGB8888));
  changed.buffer->fill_pattern(12);
  Tex t(rut.renderer, buffer.buffer);
  ASSERT_NE(t.texture, nullptr);
  // The whole buffer changed but only a 16x16 square is declared damaged: a
  // renderer that uploads just the damage keeps the old pixels elsewhere.
  pixman_region32_t damage;
  pixman_region32_init_rect(&damage, 8, 8, 16, 16);
  ASSERT_TRUE(wlr_texture_update_from_buffer(t.texture, &changed.buffer->base, &damage));
  pixman_region32_fini(&damage);
  wlr_buffer* target = harness().target(rut, 64, 64);
  ASSERT_NE(target, nullptr);
  harness().render(rut, target, [&](wlr_render_pass* pass, wlr_renderer*) {
    draw_texture(pass, t.texture, {0, 0, 64, 64});
  });
  Image vk = harness().read(rut, target);
  wlr_buffer_drop(target);
  ASSERT_FALSE(vk.empty());
  int wrong = 0;
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      bool damaged = x >= 8 && x < 24 && y >= 8 && y < 24;
      const MemoryBuffer* expect = damaged ? changed.buffer : buffer.buffer;
      uint32_t want = 0;
      std::memcpy(&want,
                  expect->data.data() + static_cast<ptrdiff_t>(y) * expect->stride +
                      static_cast<ptrdiff_t>(x) * 4,
                  4);
      if ((vk.at(x, y) & 0xffffff) != (want & 0xffffff)) ++wrong;
    }
  }
  EXPECT_EQ(wrong, 0);
}

// A texture updated twice before a frame (a client committing faster than
// the output repaints), with overlapping damage: where the rectangles overlap
// the later update must win, every time. The uploads of one frame go out in
// one dispatch, whose workgroups run in no set order, so they need an order
// of their own.
TEST_F(Golden, OverlappingUpdatesInOneFrameLandInOrder) {
  RendererUnderTest& rut = harness().vulkan();
  constexpr int kW = 256, kH = 128;
  Owned first(MemoryBuffer::create(kW, kH, DRM_FORMAT_XRGB8888));
  first.buffer->fill_pattern(31);
  Owned second(MemoryBuffer::create(kW, kH, DRM_FORMAT_XRGB8888));
  second.buffer->fill_pattern(32);
  Owned third(MemoryBuffer::create(kW, kH, DRM_FORMAT_XRGB8888));
  third.buffer->fill_pattern(33);
  auto texel = [](const MemoryBuffer* b, int x, int y) {
    uint32_t v = 0;
    std::memcpy(
        &v, b->data.data() + static_cast<ptrdiff_t>(y) * b->stride + static_cast<ptrdiff_t>(x) * 4,
        4);
    return v & 0xffffff;
  };
  // The second update covers the lower half, the third a band across it:
  // each overlaps what came before it, where the tiles of the jobs before it
  // are numbered last.
  const pixman_box32_t lower = {0, kH / 2, kW, kH}, band = {16, kH - 40, kW - 16, kH - 8};
  auto inside = [](const pixman_box32_t& b, int x, int y) {
    return x >= b.x1 && x < b.x2 && y >= b.y1 && y < b.y2;
  };
  int wrong = 0, frames_wrong = 0;
  constexpr int kFrames = 40;
  for (int frame = 0; frame < kFrames; ++frame) {
    Tex t(rut.renderer, first.buffer);
    ASSERT_NE(t.texture, nullptr);
    pixman_region32_t damage;
    pixman_region32_init_rect(&damage, lower.x1, lower.y1, lower.x2 - lower.x1,
                              lower.y2 - lower.y1);
    ASSERT_TRUE(wlr_texture_update_from_buffer(t.texture, &second.buffer->base, &damage));
    pixman_region32_fini(&damage);
    pixman_region32_init_rect(&damage, band.x1, band.y1, band.x2 - band.x1, band.y2 - band.y1);
    ASSERT_TRUE(wlr_texture_update_from_buffer(t.texture, &third.buffer->base, &damage));
    pixman_region32_fini(&damage);
    wlr_buffer* target = harness().target(rut, kW, kH);
    ASSERT_NE(target, nullptr);
    harness().render(rut, target, [&](wlr_render_pass* pass, wlr_renderer*) {
      draw_texture(pass, t.texture, {0, 0, kW, kH});
    });
    Image vk = harness().read(rut, target);
    wlr_buffer_drop(target);
    ASSERT_FALSE(vk.empty());
    int wrong_here = 0;
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const MemoryBuffer* want = inside(band, x, y)    ? third.buffer
                                   : inside(lower, x, y) ? second.buffer
                                                         : first.buffer;
        wrong_here += (vk.at(x, y) & 0xffffff) != texel(want, x, y);
      }
    wrong += wrong_here;
    frames_wrong += wrong_here > 0;
  }
  EXPECT_EQ(wrong, 0) << frames_wrong << " of " << kFrames
                      << " frames showed an earlier update over a later one";
}

// Many textures updated in one frame, more than one upload dispatch holds
// (16 images, 32 rectangles), beside a texture too big for a dispatch that is
// created and updated in the same frame: every texel must land where it
// belongs. On the compute path the small ones go by dispatch, on raster all
// are copies.
TEST_F(Golden, ManyTextureUpdatesInOneFrameLandExactly) {
  RendererUnderTest& rut = harness().vulkan();
  constexpr int kSmall = 20, kW = 40, kH = 30, kBigW = 600, kBigH = 520;
  std::vector<std::unique_ptr<Owned>> before, after;
  std::vector<std::unique_ptr<Tex>> textures;
  const vulkan::UploadCounts start = vulkan::renderer_upload_counts(rut.renderer);
  for (int i = 0; i < kSmall; ++i) {
    // Opaque (XRGB): each texel shows as it is, whatever the target held.
    before.push_back(std::make_unique<Owned>(MemoryBuffer::create(kW, kH, DRM_FORMAT_XRGB8888)));
    before.back()->buffer->fill_pattern(20 + i);
    after.push_back(std::make_unique<Owned>(MemoryBuffer::create(kW, kH, DRM_FORMAT_XRGB8888)));
    after.back()->buffer->fill_pattern(60 + i);
    textures.push_back(std::make_unique<Tex>(rut.renderer, before.back()->buffer));
    ASSERT_NE(textures.back()->texture, nullptr);
  }
  Owned big(MemoryBuffer::create(kBigW, kBigH, DRM_FORMAT_XRGB8888));
  big.buffer->fill_pattern(5);
  Owned big_after(MemoryBuffer::create(kBigW, kBigH, DRM_FORMAT_XRGB8888));
  big_after.buffer->fill_pattern(6);
  Tex big_texture(rut.renderer, big.buffer);
  ASSERT_NE(big_texture.texture, nullptr);

  // Two damaged rectangles per small texture, one not a multiple of 16 wide.
  pixman_region32_t damage;
  pixman_region32_init_rect(&damage, 1, 2, 17, 9);
  pixman_region32_union_rect(&damage, &damage, 20, 15, 20, 15);
  for (int i = 0; i < kSmall; ++i)
    ASSERT_TRUE(
        wlr_texture_update_from_buffer(textures[i]->texture, &after[i]->buffer->base, &damage));
  pixman_region32_t big_damage;
  pixman_region32_init_rect(&big_damage, 590, 500, 10, 20);
  ASSERT_TRUE(
      wlr_texture_update_from_buffer(big_texture.texture, &big_after.buffer->base, &big_damage));
  pixman_region32_fini(&big_damage);

  constexpr int kTargetW = kBigW, kTargetH = kBigH + kH;
  wlr_buffer* target = harness().target(rut, kTargetW, kTargetH);
  ASSERT_NE(target, nullptr);
  harness().render(rut, target, [&](wlr_render_pass* pass, wlr_renderer*) {
    draw_texture(pass, big_texture.texture, {0, 0, kBigW, kBigH});
    for (int i = 0; i < kSmall; ++i)
      draw_texture(pass, textures[i]->texture, {(i % 15) * kW, kBigH, kW, kH});
  });
  Image vk = harness().read(rut, target);
  wlr_buffer_drop(target);
  ASSERT_FALSE(vk.empty());

  auto texel = [](const MemoryBuffer* b, int x, int y) {
    uint32_t v = 0;
    std::memcpy(
        &v, b->data.data() + static_cast<ptrdiff_t>(y) * b->stride + static_cast<ptrdiff_t>(x) * 4,
        4);
    return v;
  };
  int wrong = 0;
  for (int y = 0; y < kBigH; ++y)
    for (int x = 0; x < kBigW; ++x) {
      const bool damaged = x >= 590 && y >= 500;
      const uint32_t want = texel(damaged ? big_after.buffer : big.buffer, x, y);
      wrong += (vk.at(x, y) & 0xffffff) != (want & 0xffffff);
    }
  // Textures 15..19 are drawn over 0..4: the later draw shows.
  for (int i = 5; i < kSmall; ++i)
    for (int y = 0; y < kH; ++y)
      for (int x = 0; x < kW; ++x) {
        const bool damaged = pixman_region32_contains_point(&damage, x, y, nullptr);
        const uint32_t want = texel((damaged ? after[i] : before[i])->buffer, x, y);
        wrong += (vk.at((i % 15) * kW + x, kBigH + y) & 0xffffff) != (want & 0xffffff);
      }
  pixman_region32_fini(&damage);
  EXPECT_EQ(wrong, 0);

  const vulkan::UploadCounts end = vulkan::renderer_upload_counts(rut.renderer);
  const uint64_t dispatched = end.dispatched - start.dispatched;
  const uint64_t copied = end.copied - start.copied;
  if (vulkan::renderer_composites_with_compute(rut.renderer)) {
    // 20 first uploads and 40 damaged rectangles by dispatch; the big texture
    // (first upload too big for a dispatch, then its update) by copy.
    EXPECT_EQ(dispatched, uint64_t(kSmall * 3));
    EXPECT_EQ(copied, 2u);
  } else {
    EXPECT_EQ(dispatched, 0u);
    EXPECT_EQ(copied, uint64_t(kSmall * 3 + 2));
  }
}

TEST_F(Golden, ReadPixelsHonoursTheRequestedFormat) {
  RendererUnderTest& vk = harness().vulkan();
  wlr_buffer* target = harness().target(vk, 16, 8);
  ASSERT_NE(target, nullptr);
  harness().render(vk, target, [](wlr_render_pass* pass, wlr_renderer*) {
    wlr_render_rect_options rect{};
    rect.box = {0, 0, 16, 8};
    rect.color = {1.0f, 0.5f, 0.0f, 1.0f};
    wlr_render_pass_add_rect(pass, &rect);
  });
  wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, target);
  ASSERT_NE(texture, nullptr);
  uint32_t argb[16 * 8], abgr[16 * 8];
  wlr_texture_read_pixels_options options{};
  options.data = argb;
  options.format = DRM_FORMAT_ARGB8888;
  options.stride = 16 * 4;
  ASSERT_TRUE(wlr_texture_read_pixels(texture, &options));
  options.data = abgr;
  options.format = DRM_FORMAT_ABGR8888;
  ASSERT_TRUE(wlr_texture_read_pixels(texture, &options));
  wlr_texture_destroy(texture);
  wlr_buffer_drop(target);
  // 0.5 lands on 127.5: drivers may round either way (lavapipe 0x80, NVIDIA 0x7f).
  auto near = [](uint32_t got, uint32_t want) {
    for (int shift = 0; shift < 32; shift += 8)
      if (std::abs(int((got >> shift) & 0xff) - int((want >> shift) & 0xff)) > 1) return false;
    return true;
  };
  EXPECT_PRED2(near, argb[0], 0xffff8000u);
  EXPECT_PRED2(near, abgr[0], 0xff0080ffu);
}

// The suite runs once per compositing path: make sure the one asked for drew.
TEST_F(Golden, PassesTakeTheRequestedCompositingPath) {
  wlr_renderer* renderer = harness().vulkan().renderer;
  const vulkan::PassCounts before = vulkan::renderer_pass_counts(renderer);
  Image vk, px;
  harness().render_both(
      32, 32,
      [](wlr_render_pass* pass, wlr_renderer*) {
        wlr_render_rect_options rect{};
        rect.box = {4, 4, 8, 8};
        rect.color = {0.5f, 0.0f, 0.0f, 0.5f};
        wlr_render_pass_add_rect(pass, &rect);
      },
      vk, px);
  const vulkan::PassCounts after = vulkan::renderer_pass_counts(renderer);
  const uint64_t raster = after.raster - before.raster, compute = after.compute - before.compute;
  switch (compositing_under_test()) {
    case vulkan::Compositing::raster:
      EXPECT_GT(raster, 0u);
      EXPECT_EQ(compute, 0u);
      break;
    case vulkan::Compositing::compute:
      EXPECT_GT(compute, 0u);
      EXPECT_EQ(raster, 0u);
      break;
    case vulkan::Compositing::automatic:
      // Compute on discrete GPUs only: lavapipe rasterizes faster than it computes.
      EXPECT_EQ(vulkan::renderer_composites_with_compute(renderer),
                vulkan::renderer_device_is_discrete(renderer));
      EXPECT_EQ(compute > 0, vulkan::renderer_composites_with_compute(renderer));
      EXPECT_EQ(raster > 0, !vulkan::renderer_composites_with_compute(renderer));
      break;
  }
  expect_same("compositing-path", vk, px, 2);
}

// The validation suite runs this binary with VK_LAYER_KHRONOS_validation;
// make sure the layer really was there, or the zero-message checks prove nothing.
TEST(Validation, LayerIsActiveWhenRequested) {
  const char* expected = std::getenv("BATON_EXPECT_VALIDATION");
  if (expected == nullptr || std::strcmp(expected, "1") != 0)
    GTEST_SKIP() << "not the validation run (BATON_EXPECT_VALIDATION unset)";
  uint32_t count = 0;
  vkEnumerateInstanceLayerProperties(&count, nullptr);
  std::vector<VkLayerProperties> layers(count);
  vkEnumerateInstanceLayerProperties(&count, layers.data());
  bool found = false;
  for (const VkLayerProperties& l : layers)
    found = found || std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
  ASSERT_TRUE(found) << "VK_LAYER_KHRONOS_validation is not installed";
  const char* enabled = std::getenv("VK_INSTANCE_LAYERS");
  ASSERT_NE(enabled, nullptr);
  EXPECT_NE(std::strstr(enabled, "VK_LAYER_KHRONOS_validation"), nullptr);
}

}  // namespace
}  // namespace baton::test
