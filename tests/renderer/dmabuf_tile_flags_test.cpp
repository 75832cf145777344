// RGB dma-bufs whose modifier has two memory planes, as a GPU with
// compression hands them out (AMD's DCC, Intel's CCS: metadata beside the
// pixels). Lavapipe lists no such modifier; the test GPU
// (tests/late_gpu, with BATON_TEST_GPU_TILE_FLAGS=1) lists one, whose
// metadata plane marks 8x8 tiles stored as one colour
// (tile_flags_modifier.hpp), so a plane bound wrongly shows in the pixels.
// Needs the test GPU and /dev/udmabuf: in the qemu guest (vk-dmabuf, runs
// tile-flags*); elsewhere these skip, loudly.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tests/late_gpu/tile_flags_modifier.hpp"
#include "tests/renderer/harness.hpp"
#include "tests/renderer/udmabuf.hpp"

namespace baton::test {
namespace {

using late_gpu::kTileFlagsModifier;
using late_gpu::kTileSize;

// Where the planes are: in one dma-buf through one fd, in one dma-buf
// through two fds (each plane's own, as clients send them), or each in a
// dma-buf of its own. Plane 1 never starts at 0, so an offset taken from the
// wrong place shows.
enum class Planes { one_fd, two_fds_one_dmabuf, two_dmabufs };

uint32_t align(uint32_t v, uint32_t a) { return (v + a - 1) / a * a; }

// An opaque colour of its own for every pixel.
uint32_t pixel_at(int x, int y) {
  return 0xff000000u | uint32_t((x * 7) & 0xff) << 16 | uint32_t((y * 13) & 0xff) << 8 |
         uint32_t(((x ^ y) * 5) & 0xff);
}

// Which tiles are stored as one colour: about one in three, in no period
// that matches the tile grid.
bool constant_tile(uint32_t tx, uint32_t ty) { return (tx * 5 + ty * 3) % 3 == 0; }

// A w x h buffer of `format` in the tile-flags modifier: pixels from
// pixel_at(), tiles flagged by constant_tile(); null, with `why`, without udmabuf.
PlaneBuffer* make_tile_buffer(int w, int h, uint32_t format, Planes where, std::string& why) {
  auto* b = PlaneBuffer::create(w, h);
  b->format = format;
  b->modifier = kTileFlagsModifier;
  b->planes = 2;
  const uint32_t tiles_x = (uint32_t(w) + kTileSize - 1) / kTileSize;
  const uint32_t tiles_y = (uint32_t(h) + kTileSize - 1) / kTileSize;
  b->stride[0] = align(uint32_t(w) * 4, 64);
  b->stride[1] = align(tiles_x, 64);
  const size_t bytes[2] = {size_t(b->stride[0]) * uint32_t(h), size_t(b->stride[1]) * tiles_y};
  if (where != Planes::two_dmabufs) {
    b->offset[1] = align(uint32_t(bytes[0]) + 256, 256);
    auto m = make_udmabuf(b->offset[1] + bytes[1], why);
    if (m) b->memory.push_back(std::move(m));
    b->memory_of[1] = 0;
    if (!b->memory.empty() && where == Planes::two_fds_one_dmabuf)
      b->fd[1] = UniqueFd(fcntl(b->memory[0]->dmabuf(), F_DUPFD_CLOEXEC, 0));
  } else {
    b->offset[1] = 512;
    for (size_t i = 0; i < 2 && why.empty(); ++i) {
      auto m = make_udmabuf(b->offset[i] + bytes[i], why);
      if (m) b->memory.push_back(std::move(m));
    }
    b->memory_of[1] = 1;
  }
  if (!why.empty()) {
    wlr_buffer_drop(&b->base);
    return nullptr;
  }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint32_t p = pixel_at(x, y);
      std::memcpy(b->plane(0) + size_t(y) * b->stride[0] + size_t(x) * 4, &p, 4);
    }
  for (uint32_t ty = 0; ty < tiles_y; ++ty)
    for (uint32_t tx = 0; tx < tiles_x; ++tx)
      b->plane(1)[ty * b->stride[1] + tx] = constant_tile(tx, ty) ? 0x5a : 0;
  return b;
}

// What the buffer shows: a constant tile in the colour of its top-left pixel.
Image expected(int w, int h) {
  Image image(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const bool constant = constant_tile(uint32_t(x) / kTileSize, uint32_t(y) / kTileSize);
      const int t = int(kTileSize);
      image.at(x, y) = constant ? pixel_at(x - x % t, y - y % t) : pixel_at(x, y);
    }
  return image;
}

class TileFlagsModifier : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { harness_ = new GoldenHarness(); }
  static void TearDownTestSuite() {
    delete harness_;
    harness_ = nullptr;
  }
  void SetUp() override {
    const char* on = std::getenv(late_gpu::kTileFlagsEnv);
    if (on == nullptr || std::string_view(on) != "1")
      GTEST_SKIP() << "UNTESTED HERE: the test GPU's two-plane modifiers are off (run in "
                      "tests/vm/: vk-dmabuf, runs tile-flags*)";
    if (!harness_->unavailable().empty()) SKIP_UNLESS_REQUIRED(harness_->unavailable());
    formats_ = wlr_renderer_get_texture_formats(harness_->vulkan().renderer, WLR_BUFFER_CAP_DMABUF);
  }
  void TearDown() override { EXPECT_EQ(harness_->debug_messages(), 0); }

  bool advertised(uint32_t format, uint64_t modifier) const {
    const wlr_drm_format* f =
        formats_ != nullptr ? wlr_drm_format_set_get(formats_, format) : nullptr;
    for (size_t i = 0; f != nullptr && i < f->len; ++i)
      if (f->modifiers[i] == modifier) return true;
    return false;
  }

  // Draws `buffer` 1:1 (nearest, unblended) and reads the result; empty
  // when the renderer made no texture of it.
  static Image draw(PlaneBuffer* buffer) {
    RendererUnderTest& vk = harness_->vulkan();
    wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &buffer->base);
    if (texture == nullptr) return {};
    const int w = buffer->base.width, h = buffer->base.height;
    wlr_buffer* target = harness_->target(vk, w, h);
    harness_->render(vk, target, [&](wlr_render_pass* pass, wlr_renderer*) {
      wlr_render_texture_options options{};
      options.texture = texture;
      options.dst_box = {0, 0, w, h};
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
GoldenHarness* TileFlagsModifier::harness_ = nullptr;

int mismatches(const Image& got, const Image& want, std::string& first) {
  int n = 0;
  for (int y = 0; y < want.height; ++y)
    for (int x = 0; x < want.width; ++x) {
      if (got.at(x, y) == want.at(x, y)) continue;
      if (n++ == 0) {
        char text[96];
        std::snprintf(text, sizeof text, "(%d,%d): 0x%08x, not 0x%08x", x, y, got.at(x, y),
                      want.at(x, y));
        first = text;
      }
    }
  return n;
}

// The modifier for the two B8G8R8A8 formats, and never for a format the
// device does not list it for.
TEST_F(TileFlagsModifier, AdvertisedWhereTheDeviceListsIt) {
  EXPECT_TRUE(advertised(DRM_FORMAT_ARGB8888, kTileFlagsModifier));
  EXPECT_TRUE(advertised(DRM_FORMAT_XRGB8888, kTileFlagsModifier));
  EXPECT_FALSE(advertised(DRM_FORMAT_ABGR8888, kTileFlagsModifier));
}

// Both planes read from one dma-buf, through one fd or two, in both
// formats, at a size whose last tiles are partial: exactly the decoded
// pixels. The metadata matters: read as plain LINEAR pixels, over a quarter
// of the image would differ.
TEST_F(TileFlagsModifier, PlanesInOneDmabufShowTheDecodedImage) {
  const int w = 61, h = 37;
  const Image want = expected(w, h);
  int flagged = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) flagged += want.at(x, y) != pixel_at(x, y) ? 1 : 0;
  ASSERT_GT(flagged, w * h / 4) << "the pattern must make the metadata plane visible";
  for (Planes where : {Planes::one_fd, Planes::two_fds_one_dmabuf})
    for (uint32_t format : {DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB8888}) {
      const std::string name = std::string(where == Planes::one_fd ? "one fd" : "two fds") +
                               (format == DRM_FORMAT_ARGB8888 ? ", ARGB8888" : ", XRGB8888");
      std::string why;
      PlaneBuffer* buffer = make_tile_buffer(w, h, format, where, why);
      if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
      const Image got = draw(buffer);
      wlr_buffer_drop(&buffer->base);
      ASSERT_FALSE(got.empty()) << "no texture: " << name;
      std::string first;
      EXPECT_EQ(mismatches(got, want, first), 0) << name << "; first: " << first;
    }
}

// Planes in two dma-bufs are refused: Vulkan binds an RGB image's memory
// planes from one memory.
TEST_F(TileFlagsModifier, PlanesInTwoDmabufsAreRefused) {
  std::string why;
  PlaneBuffer* buffer = make_tile_buffer(40, 24, DRM_FORMAT_ARGB8888, Planes::two_dmabufs, why);
  if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
  EXPECT_TRUE(draw(buffer).empty()) << "planes in two dma-bufs were taken";
  wlr_buffer_drop(&buffer->base);
}

// A buffer whose plane count is not its modifier's is refused, both ways.
TEST_F(TileFlagsModifier, APlaneCountOtherThanTheModifiersIsRefused) {
  std::string why;
  PlaneBuffer* buffer = make_tile_buffer(16, 16, DRM_FORMAT_ARGB8888, Planes::one_fd, why);
  if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
  buffer->planes = 1;
  EXPECT_TRUE(draw(buffer).empty()) << "one plane taken for a two-plane modifier";
  buffer->planes = 2;
  buffer->modifier = DRM_FORMAT_MOD_LINEAR;
  EXPECT_TRUE(draw(buffer).empty()) << "two planes taken for LINEAR";
  wlr_buffer_drop(&buffer->base);
}

}  // namespace
}  // namespace baton::test
