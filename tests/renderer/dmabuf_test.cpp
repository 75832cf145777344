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

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "sync/sync_file.hpp"
#include "tests/renderer/harness.hpp"
#include "tests/renderer/udmabuf.hpp"
#include "util/unique_fd.hpp"

namespace baton::test {
namespace {

// In the VM (BATON_REQUIRE_DMABUF=1) what would skip on the host is a failure.

// A LINEAR ARGB8888 dma-buf made from memfd pages through /dev/udmabuf.
struct UdmaBuffer {
  wlr_buffer base;
  UniqueFd dmabuf;
  int stride = 0;
  uint32_t* pixels = nullptr;  // the memfd's pages, mapped
  size_t size = 0;
  uint64_t modifier = DRM_FORMAT_MOD_LINEAR;  // what it claims to be
};

UdmaBuffer* udma(wlr_buffer* b) { return reinterpret_cast<UdmaBuffer*>(b); }

const wlr_buffer_impl kUdmaImpl = {
    .destroy =
        [](wlr_buffer* b) {
          wlr_buffer_finish(b);
          munmap(udma(b)->pixels, udma(b)->size);
          delete udma(b);
        },
    .get_dmabuf =
        [](wlr_buffer* b, wlr_dmabuf_attributes* a) {
          *a = {};
          a->width = b->width;
          a->height = b->height;
          a->format = DRM_FORMAT_ARGB8888;
          a->modifier = udma(b)->modifier;
          a->n_planes = 1;
          a->stride[0] = udma(b)->stride;
          a->fd[0] = udma(b)->dmabuf.get();
          return true;
        },
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

// A w x h LINEAR ARGB8888 udmabuf whose pages the test reads and writes
// through `pixels`; null, with `why`, where /dev/udmabuf is missing.
UdmaBuffer* make_udma_buffer(int w, int h, std::string& why) {
  UniqueFd dev(open("/dev/udmabuf", O_RDWR | O_CLOEXEC));
  if (!dev) {
    why = "UNTESTED: /dev/udmabuf is missing (run in tests/vm/)";
    return nullptr;
  }
  const int stride = w * 4;
  const size_t size = 4096 * ((size_t(stride) * h + 4095) / 4096);
  UniqueFd mem(memfd_create("baton-udmabuf", MFD_ALLOW_SEALING | MFD_CLOEXEC));
  void* mapped = MAP_FAILED;
  if (mem && ftruncate(mem.get(), off_t(size)) == 0 &&
      fcntl(mem.get(), F_ADD_SEALS, F_SEAL_SHRINK) == 0)
    mapped = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, mem.get(), 0);
  udmabuf_create create{};
  create.memfd = uint32_t(mem.get());
  create.flags = UDMABUF_FLAGS_CLOEXEC;
  create.size = size;
  UniqueFd dmabuf(mapped != MAP_FAILED ? ioctl(dev.get(), UDMABUF_CREATE, &create) : -1);
  if (!dmabuf) {
    why = std::string("a udmabuf could not be made: ") + std::strerror(errno);
    if (mapped != MAP_FAILED) munmap(mapped, size);
    return nullptr;
  }
  auto* buffer = new UdmaBuffer();
  buffer->dmabuf = std::move(dmabuf);
  buffer->stride = stride;
  buffer->pixels = static_cast<uint32_t*>(mapped);
  buffer->size = size;
  wlr_buffer_init(&buffer->base, &kUdmaImpl, w, h);
  return buffer;
}

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
  const int w = 64, h = 32, stride = w * 4;
  std::string why;
  UdmaBuffer* buffer = make_udma_buffer(w, h, why);
  if (buffer == nullptr) SKIP_UNLESS_REQUIRED(why);
  MemoryBuffer* shm = MemoryBuffer::create(w, h, DRM_FORMAT_ARGB8888);
  shm->fill_pattern(3);
  for (int y = 0; y < h; ++y)
    std::memcpy(buffer->pixels + static_cast<ptrdiff_t>(y) * w,
                shm->data.data() + static_cast<ptrdiff_t>(y) * shm->stride, stride);

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

// Client dma-bufs as render targets: what wlr-screencopy and
// ext-image-copy-capture draw into when a screen-sharing client hands baton
// a dma-buf (renderer/vulkan/swapchain/dmabuf_target.hpp).
class DmabufTarget : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!harness_.unavailable().empty()) SKIP_UNLESS_REQUIRED(harness_.unavailable());
    if (!vulkan::renderer_can_import_dmabuf(harness_.vulkan().renderer))
      SKIP_UNLESS_REQUIRED(
          "UNTESTED HERE: the Vulkan device cannot import dma-bufs; run in tests/vm/ (vk-dmabuf)");
  }
  // Copies `src` of `source` into all of `target`, as wlroots' screencopy does.
  bool copy(wlr_buffer* target, wlr_texture* texture, wlr_fbox src) {
    wlr_render_pass* pass =
        wlr_renderer_begin_buffer_pass(harness_.vulkan().renderer, target, nullptr);
    if (pass == nullptr) return false;
    wlr_render_texture_options options{};
    options.texture = texture;
    options.src_box = src;
    options.dst_box = {0, 0, target->width, target->height};
    options.blend_mode = WLR_RENDER_BLEND_MODE_NONE;
    wlr_render_pass_add_texture(pass, &options);
    return wlr_render_pass_submit(pass);
  }
  // Pixels of `target` that differ from `source` at offset (dx, dy), read as
  // a capture client does: after the buffer's implicit write fences.
  static std::string differences(UdmaBuffer& target, const MemoryBuffer& source, int dx, int dy) {
    auto fence = sync::SyncFile::export_from_dmabuf(target.dmabuf.get(), sync::Access::read);
    if (!fence) return "no implicit fence could be exported: " + fence.error().describe();
    auto done = fence->wait(std::chrono::seconds(30));
    if (!done || !*done) return "the copy's fence did not signal within 30 s";
    int differing = 0;
    std::string first;
    for (int y = 0; y < target.base.height; ++y)
      for (int x = 0; x < target.base.width; ++x) {
        uint32_t want = 0;
        std::memcpy(&want, source.data.data() + size_t(y + dy) * source.stride + size_t(x + dx) * 4,
                    4);
        const uint32_t got = target.pixels[ptrdiff_t(y) * target.base.width + x];
        if (got == want) continue;
        if (differing++ == 0) {
          char text[96];
          std::snprintf(text, sizeof(text), " (first at %d,%d: %08x, want %08x)", x, y, got, want);
          first = text;
        }
      }
    return differing == 0 ? "" : std::to_string(differing) + " pixels differ" + first;
  }
  GoldenHarness harness_;
};

// The pixels are in the client's buffer when it reads it as a client does,
// waiting for the buffer's implicit fences, and a second copy into the same
// buffer (a capture client cycles its buffers) replaces them. Large enough
// that the GPU (lavapipe in the guest) is still copying when submit returns:
// without render-done among the buffer's fences, or the wait where the
// driver cannot export a pending one, the read sees the magenta fill.
TEST_F(DmabufTarget, ACopyIntoAClientDmabufHoldsTheSourcesPixelsWhenItsFencesSay) {
  const int w = 1024, h = 512;
  std::string why;
  UdmaBuffer* target = make_udma_buffer(w, h, why);
  if (target == nullptr) SKIP_UNLESS_REQUIRED(why);
  RendererUnderTest& vk = harness_.vulkan();
  for (int round = 0; round < 2; ++round) {
    std::fill(target->pixels, target->pixels + ptrdiff_t(w) * h,
              0xffff00ffU);  // magenta: not copied yet
    MemoryBuffer* source = MemoryBuffer::create(w + 40, h + 20, DRM_FORMAT_ARGB8888);
    source->fill_pattern(5 + round);
    wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &source->base);
    ASSERT_NE(texture, nullptr);
    const int dx = 8 + 16 * round, dy = 4 + 8 * round;
    ASSERT_TRUE(copy(&target->base, texture, {double(dx), double(dy), double(w), double(h)}))
        << "the renderer refused a LINEAR ARGB8888 client dma-buf as a target";
    EXPECT_EQ(differences(*target, *source, dx, dy), "") << "round " << round;
    wlr_texture_destroy(texture);
    source->drop();
  }
  EXPECT_EQ(vulkan::renderer_dmabuf_targets(vk.renderer), 1U) << "imported once per buffer";
  wlr_buffer_drop(&target->base);
  EXPECT_EQ(vulkan::renderer_dmabuf_targets(vk.renderer), 0U) << "freed with its buffer";
  EXPECT_EQ(harness_.debug_messages(), 0);
}

// A dma-buf the device cannot describe (an implicit modifier) is refused:
// the capture fails, nothing is imported.
TEST_F(DmabufTarget, ADmabufItCannotDrawIntoIsRefused) {
  std::string why;
  UdmaBuffer* target = make_udma_buffer(16, 16, why);
  if (target == nullptr) SKIP_UNLESS_REQUIRED(why);
  target->modifier = DRM_FORMAT_MOD_INVALID;
  EXPECT_EQ(wlr_renderer_begin_buffer_pass(harness_.vulkan().renderer, &target->base, nullptr),
            nullptr);
  EXPECT_EQ(vulkan::renderer_dmabuf_targets(harness_.vulkan().renderer), 0U);
  wlr_buffer_drop(&target->base);
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
