// dma-buf import. Needs a device with VK_EXT_image_drm_format_modifier +
// VK_EXT_external_memory_dma_buf and /dev/udmabuf: neither exists on the
// development host, so these skip there, loudly; the qemu harness runs them.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/udmabuf.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "tests/renderer/harness.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

// In the VM (BATON_REQUIRE_DMABUF=1) what would skip on the host is a failure.
#define SKIP_UNLESS_REQUIRED(why)                                                        \
  do {                                                                                   \
    if (std::getenv("BATON_REQUIRE_DMABUF") != nullptr) FAIL() << "required: " << (why); \
    GTEST_SKIP() << (why);                                                               \
  } while (0)

// A LINEAR ARGB8888 dma-buf made from memfd pages through /dev/udmabuf.
struct UdmaBuffer {
  wlr_buffer base;
  UniqueFd dmabuf;
  int stride = 0;
};

UdmaBuffer* udma(wlr_buffer* b) { return reinterpret_cast<UdmaBuffer*>(b); }

const wlr_buffer_impl kUdmaImpl = {
    .destroy =
        [](wlr_buffer* b) {
          wlr_buffer_finish(b);
          delete udma(b);
        },
    .get_dmabuf =
        [](wlr_buffer* b, wlr_dmabuf_attributes* a) {
          *a = {};
          a->width = b->width;
          a->height = b->height;
          a->format = DRM_FORMAT_ARGB8888;
          a->modifier = DRM_FORMAT_MOD_LINEAR;
          a->n_planes = 1;
          a->stride[0] = udma(b)->stride;
          a->fd[0] = udma(b)->dmabuf.get();
          return true;
        },
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

class DmabufImport : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!harness_.unavailable().empty()) SKIP_UNLESS_REQUIRED(harness_.unavailable());
    formats_ = wlr_renderer_get_texture_formats(harness_.vulkan().renderer, WLR_BUFFER_CAP_DMABUF);
  }
  GoldenHarness harness_;
  const wlr_drm_format_set* formats_ = nullptr;
};

TEST_F(DmabufImport, AdvertisedTableHasOnlyExplicitModifiers) {
  if (formats_ == nullptr)
    SKIP_UNLESS_REQUIRED(
        "UNTESTED HERE: the Vulkan device cannot import dma-bufs with explicit modifiers "
        "(lavapipe on a host without /dev/udmabuf); run in tests/vm/ (vk-dmabuf)");
  for (size_t i = 0; i < formats_->len; ++i)
    for (size_t m = 0; m < formats_->formats[i].len; ++m)
      EXPECT_NE(formats_->formats[i].modifiers[m], DRM_FORMAT_MOD_INVALID);
}

TEST_F(DmabufImport, LinearUdmabufSamplesLikeShm) {
  if (formats_ == nullptr)
    SKIP_UNLESS_REQUIRED(
        "UNTESTED HERE: the Vulkan device cannot import dma-bufs (no "
        "VK_EXT_image_drm_format_modifier); run in tests/vm/ (vk-dmabuf)");
  const wlr_drm_format* argb = wlr_drm_format_set_get(formats_, DRM_FORMAT_ARGB8888);
  bool linear = false;
  for (size_t m = 0; argb != nullptr && m < argb->len; ++m)
    linear = linear || argb->modifiers[m] == DRM_FORMAT_MOD_LINEAR;
  if (!linear) SKIP_UNLESS_REQUIRED("UNTESTED: ARGB8888/LINEAR is not importable on this device");
  UniqueFd dev(open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
  if (!dev) SKIP_UNLESS_REQUIRED("UNTESTED: /dev/udmabuf is missing (run in tests/vm/)");

  const int w = 64, h = 32, stride = w * 4;
  const size_t size = 4096 * ((size_t(stride) * h + 4095) / 4096);
  UniqueFd mem(memfd_create("baton-udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC));
  ASSERT_TRUE(mem);
  ASSERT_EQ(ftruncate(mem.get(), off_t(size)), 0);
  ASSERT_EQ(fcntl(mem.get(), F_ADD_SEALS, F_SEAL_SHRINK), 0);
  auto* pixels =
      static_cast<uint32_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, mem.get(), 0));
  ASSERT_NE(pixels, MAP_FAILED);
  MemoryBuffer* shm = MemoryBuffer::create(w, h, DRM_FORMAT_ARGB8888);
  shm->fill_pattern(3);
  for (int y = 0; y < h; ++y)
    std::memcpy(pixels + static_cast<ptrdiff_t>(y) * w,
                shm->data.data() + static_cast<ptrdiff_t>(y) * shm->stride, stride);
  munmap(pixels, size);
  udmabuf_create create{};
  create.memfd = uint32_t(mem.get());
  create.flags = UDMABUF_FLAGS_CLOEXEC;
  create.size = size;
  auto* buffer = new UdmaBuffer();
  buffer->dmabuf = UniqueFd(ioctl(dev.get(), UDMABUF_CREATE, &create));
  buffer->stride = stride;
  ASSERT_TRUE(buffer->dmabuf) << "UDMABUF_CREATE failed";
  wlr_buffer_init(&buffer->base, &kUdmaImpl, w, h);

  RendererUnderTest& vk = harness_.vulkan();
  Image from_dmabuf, from_shm;
  for (wlr_buffer* source : {&buffer->base, &shm->base}) {
    wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, source);
    ASSERT_NE(texture, nullptr);
    wlr_buffer* target = harness_.target(vk, w, h);
    harness_.render(vk, target, [&](wlr_render_pass* pass, wlr_renderer*) {
      wlr_render_texture_options options{};
      options.texture = texture;
      options.dst_box = {0, 0, w, h};
      wlr_render_pass_add_texture(pass, &options);
    });
    (source == &shm->base ? from_shm : from_dmabuf) = harness_.read(vk, target);
    wlr_texture_destroy(texture);
    wlr_buffer_drop(target);
  }
  wlr_buffer_drop(&buffer->base);
  shm->drop();
  Comparison c = compare("dmabuf-linear", from_dmabuf, from_shm, 0);
  EXPECT_EQ(c.differing, 0) << c.artifacts;
  EXPECT_EQ(harness_.debug_messages(), 0);
}

}  // namespace
}  // namespace baton::test

namespace baton::test {
namespace {

// A lost device: passes fail, wlroots' `lost` signal fires exactly once so the
// compositor can rebuild the renderer, and nothing crashes on the way down.
TEST(DeviceLost, EmitsTheLostSignalOnceAndRefusesPasses) {
  GoldenHarness harness;
  if (!harness.unavailable().empty()) GTEST_SKIP() << harness.unavailable();
  RendererUnderTest& vk = harness.vulkan();
  wlr_buffer* target = harness.target(vk, 32, 32);
  ASSERT_NE(target, nullptr);
  struct Counter {
    wl_listener listener;
    int count = 0;
  } counter;
  counter.listener.notify = [](wl_listener* l, void*) {
    Counter* c = wl_container_of(l, c, listener);
    ++c->count;
  };
  wl_signal_add(&vk.renderer->events.lost, &counter.listener);
  vulkan::renderer_simulate_device_lost(vk.renderer);
  EXPECT_EQ(wlr_renderer_begin_buffer_pass(vk.renderer, target, nullptr), nullptr);
  EXPECT_EQ(wlr_renderer_begin_buffer_pass(vk.renderer, target, nullptr), nullptr);
  EXPECT_EQ(counter.count, 1);
  wl_list_remove(&counter.listener.link);
  wlr_buffer_drop(target);
}

}  // namespace
}  // namespace baton::test
