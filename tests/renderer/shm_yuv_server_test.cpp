// YUV through wl_shm, from a real client's side, on a whole Server with the
// Vulkan renderer: wl_shm lists the YUV formats; a buffer whose pool holds
// every plane (wl_shm's YUV layout: one stride, the planes one after the
// other) is shown, in the colour its Y'CbCr code values mean; a pool one
// byte short of its last plane is wl_shm's invalid_stride for that client
// alone.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "renderer/color_representation.hpp"
#include "tests/renderer/vulkan_server.hpp"
#include "tests/renderer/yuv_reference.hpp"
#include "tests/support/client.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/map_window.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

constexpr int kWidth = 200, kHeight = 150;

// One flat colour in a YUV format, `width` x kHeight, in a pool of exactly
// the bytes its planes take (less `short_by`), rows `stride` bytes apart
// (0: the shortest that holds an even width's row).
struct YuvShm {
  UniqueFd fd;
  wl_shm_pool* pool = nullptr;
  wl_buffer* buffer = nullptr;

  YuvShm(wl_shm* shm, uint32_t format, uint32_t y, uint32_t cb, uint32_t cr, size_t short_by = 0,
         int width = kWidth, size_t stride = 0) {
    const bool p010 = format == DRM_FORMAT_P010;
    const bool yuyv = format == DRM_FORMAT_YUYV;
    const size_t sample = p010 ? 2 : 1;
    const size_t even_width = (size_t(width) + 1) / 2 * 2;
    if (stride == 0) stride = yuyv ? even_width * 2 : even_width * sample;
    // NV12 and P010: CbCr pairs at half height, rows as long as luma's.
    const size_t size = yuyv ? stride * kHeight : stride * kHeight + stride * (kHeight / 2);
    std::vector<unsigned char> bytes(size);
    auto put = [&](size_t at, uint32_t v) {
      if (sample == 1) {
        bytes[at] = static_cast<unsigned char>(v);
        return;
      }
      const uint32_t word = v << 6;  // P010: 10 bits at the top of 16
      bytes[at] = static_cast<unsigned char>(word & 0xff);
      bytes[at + 1] = static_cast<unsigned char>(word >> 8);
    };
    if (yuyv) {
      for (size_t i = 0; i < size; i += 4) {
        bytes[i] = bytes[i + 2] = static_cast<unsigned char>(y);
        bytes[i + 1] = static_cast<unsigned char>(cb);
        bytes[i + 3] = static_cast<unsigned char>(cr);
      }
    } else {
      const size_t luma = stride * kHeight;
      for (size_t i = 0; i < luma; i += sample) put(i, y);
      for (size_t i = luma; i + sample < size; i += 2 * sample) {
        put(i, cb);
        put(i + sample, cr);
      }
    }
    fd = UniqueFd(memfd_create("baton-test-yuv", MFD_CLOEXEC));
    const size_t pool_size = size - short_by;
    if (!fd || ftruncate(fd.get(), off_t(pool_size)) != 0 ||
        pwrite(fd.get(), bytes.data(), pool_size, 0) != ssize_t(pool_size))
      return;
    pool = wl_shm_create_pool(shm, fd.get(), int32_t(pool_size));
    buffer = wl_shm_pool_create_buffer(pool, 0, width, kHeight, int32_t(stride), format);
  }
  ~YuvShm() {
    if (buffer != nullptr) wl_buffer_destroy(buffer);
    if (pool != nullptr) wl_shm_pool_destroy(pool);
  }
  YuvShm(const YuvShm&) = delete;
  YuvShm& operator=(const YuvShm&) = delete;
};

// The colour (XRGB) code values mean in BT.601 limited range, the default.
uint32_t expected_colour(int bits, uint32_t y, uint32_t cb, uint32_t cr) {
  ColorRepresentation rep = default_color_representation(DRM_FORMAT_NV12);
  double rgb[3];
  reference_rgb(bits, rep, y, cb, cr, rgb);
  auto byte = [](double v) { return uint32_t(std::lround(v * 255.0)); };
  return byte(rgb[0]) << 16 | byte(rgb[1]) << 8 | byte(rgb[2]);
}

int pixels_of(const Image& image, uint32_t rgb) {
  int count = 0;
  for (uint32_t p : image.pixels) {
    bool close = true;
    for (int c = 0; c < 3; ++c)
      close = close && std::abs(int((p >> (8 * c)) & 0xff) - int((rgb >> (8 * c)) & 0xff)) <= 1;
    count += close;
  }
  return count;
}

// `client` got wl_shm's invalid_stride, on its pool, for `what`.
void expect_invalid_stride(Harness& h, Client& client, const char* what) {
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(client.display()) != 0; }))
      << what << " was accepted";
  const wl_interface* interface = nullptr;
  const uint32_t code = wl_display_get_protocol_error(client.display(), &interface, nullptr);
  ASSERT_NE(interface, nullptr);
  EXPECT_STREQ(interface->name, "wl_shm_pool");
  EXPECT_EQ(code, static_cast<uint32_t>(WL_SHM_ERROR_INVALID_STRIDE));
}

const wl_shm_listener kFormats = {.format = [](void* data, wl_shm*, uint32_t format) {
  static_cast<std::set<uint32_t>*>(data)->insert(format);
}};

TEST(ShmYuvServer, YuvBuffersAreListedAndShown) {
  REQUIRE_VULKAN(h);
  Client client(*h);
  Globals globals(*h, client.display());
  auto* shm = static_cast<wl_shm*>(globals.bind(&wl_shm_interface, 1));
  ASSERT_NE(shm, nullptr);
  const std::unique_ptr<wl_shm, decltype(&wl_shm_destroy)> owned(shm, wl_shm_destroy);
  std::set<uint32_t> formats;
  wl_shm_add_listener(shm, &kFormats, &formats);
  h->sync();
  for (uint32_t format :
       {DRM_FORMAT_NV12, DRM_FORMAT_NV21, DRM_FORMAT_NV16, DRM_FORMAT_P010, DRM_FORMAT_P012,
        DRM_FORMAT_P016, DRM_FORMAT_YUV420, DRM_FORMAT_YVU420, DRM_FORMAT_YUYV, DRM_FORMAT_UYVY})
    EXPECT_TRUE(formats.contains(format)) << "wl_shm does not list 0x" << std::hex << format;

  Window window(client);
  ASSERT_NE(map_window(*h, window, 0xff202020, kWidth, kHeight), nullptr);
  struct Case {
    uint32_t format;
    int bits;
    uint32_t y, cb, cr;
  };
  // Three colours far from each other and from the desktop's.
  for (const Case& c :
       {Case{DRM_FORMAT_NV12, 8, 81, 90, 240}, Case{DRM_FORMAT_YUYV, 8, 145, 54, 34},
        Case{DRM_FORMAT_P010, 10, 164, 824, 160}}) {
    YuvShm yuv(shm, c.format, c.y, c.cb, c.cr);
    ASSERT_NE(yuv.buffer, nullptr);
    wl_surface_attach(window.surface(), yuv.buffer, 0, 0);
    wl_surface_damage_buffer(window.surface(), 0, 0, kWidth, kHeight);
    wl_surface_commit(window.surface());
    h->sync();
    const uint32_t want = expected_colour(c.bits, c.y, c.cb, c.cr);
    int shown = 0;
    ASSERT_TRUE(h->run_until([&] {
      shown = pixels_of(h->capture(), want);
      return shown >= kWidth * kHeight;
    })) << "format 0x"
        << std::hex << c.format << ": " << std::dec << shown
        << " pixels of the buffer's colour, not " << kWidth * kHeight;
    EXPECT_EQ(wl_display_get_error(client.display()), 0);
  }
}

TEST(ShmYuvServer, APoolShortOfTheLastPlaneIsInvalidStride) {
  REQUIRE_VULKAN(h);
  Client bystander(*h);
  Window steady(bystander);
  ASSERT_NE(map_window(*h, steady, 0xff0000ff), nullptr);
  Client client(*h);
  Globals globals(*h, client.display());
  auto* shm = static_cast<wl_shm*>(globals.bind(&wl_shm_interface, 1));
  ASSERT_NE(shm, nullptr);
  const std::unique_ptr<wl_shm, decltype(&wl_shm_destroy)> owned(shm, wl_shm_destroy);
  // Luma fits; the CbCr plane's last byte does not.
  YuvShm yuv(shm, DRM_FORMAT_NV12, 81, 90, 240, 1);
  expect_invalid_stride(*h, client, "an NV12 buffer one byte past its pool");
  EXPECT_EQ(wl_display_get_error(bystander.display()), 0);
}

// An odd width's last CbCr pair covers one pixel: NV12 61 pixels wide has
// 31 pairs, 62 bytes a chroma row. A stride of 61 has no room for them (a
// renderer reading the rows would read past the pool's end); 62 has.
TEST(ShmYuvServer, AnOddWidthNeedsRoomForItsLastChromaSample) {
  REQUIRE_VULKAN(h);
  {
    Client client(*h);
    Globals globals(*h, client.display());
    auto* shm = static_cast<wl_shm*>(globals.bind(&wl_shm_interface, 1));
    ASSERT_NE(shm, nullptr);
    const std::unique_ptr<wl_shm, decltype(&wl_shm_destroy)> owned(shm, wl_shm_destroy);
    YuvShm tight(shm, DRM_FORMAT_NV12, 81, 90, 240, 0, 61, 61);
    expect_invalid_stride(*h, client, "an NV12 buffer 61 wide with a stride of 61");
  }
  Client client(*h);
  Globals globals(*h, client.display());
  auto* shm = static_cast<wl_shm*>(globals.bind(&wl_shm_interface, 1));
  ASSERT_NE(shm, nullptr);
  const std::unique_ptr<wl_shm, decltype(&wl_shm_destroy)> owned(shm, wl_shm_destroy);
  Window window(client);
  ASSERT_NE(map_window(*h, window, 0xff202020, 61, kHeight), nullptr);
  YuvShm roomy(shm, DRM_FORMAT_NV12, 81, 90, 240, 0, 61, 62);
  ASSERT_NE(roomy.buffer, nullptr);
  wl_surface_attach(window.surface(), roomy.buffer, 0, 0);
  wl_surface_damage_buffer(window.surface(), 0, 0, 61, kHeight);
  wl_surface_commit(window.surface());
  const uint32_t want = expected_colour(8, 81, 90, 240);
  int shown = 0;
  EXPECT_TRUE(h->run_until([&] {
    shown = pixels_of(h->capture(), want);
    return shown >= 61 * kHeight;
  })) << shown
      << " pixels of the buffer's colour, not " << 61 * kHeight;
  EXPECT_EQ(wl_display_get_error(client.display()), 0);
}

}  // namespace
}  // namespace baton::test
