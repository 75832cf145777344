// Swapchain slots and their reuse fences, through the real renderer.
//
// On the host: a slot on screen refuses a pass. In the qemu guest (vgem +
// lavapipe with SYNC_FD semaphores): a DRM slot released while a reader's
// fence is pending is drawn into again only after that fence signals; the
// wait is a semaphore in the submit, not a CPU wait in baton.
#include <drm_fourcc.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "handoff/release_tracker.hpp"
#include "renderer/gpu_reads.hpp"
#include "renderer/vulkan/introspection.hpp"
#include "renderer/vulkan/vulkan_renderer.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/renderer/udmabuf.hpp"
#include "tests/support/poll.hpp"
#include "util/listener.hpp"
#include "util/unique_fd.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;

struct Vulkan {
  wlr_renderer* renderer = nullptr;
  wlr_allocator* allocator = nullptr;
  std::string error;
  ~Vulkan() {
    if (allocator != nullptr) wlr_allocator_destroy(allocator);
    if (renderer != nullptr) wlr_renderer_destroy(renderer);
  }
};

void start(Vulkan& vk, const vulkan::SwapchainOptions& swapchain) {
  vulkan::RendererOptions options;
  options.debug_messenger = true;
  auto created = vulkan::create_renderer(options);
  vk.renderer = created ? *created : nullptr;
  vk.error = created ? "" : created.error().describe();
  if (vk.renderer == nullptr) return;
  auto allocator = vulkan::create_swapchain_allocator(vk.renderer, swapchain);
  vk.allocator = allocator ? *allocator : nullptr;
}

wlr_buffer* new_slot(Vulkan& vk, int size) {
  wlr_drm_format_set set{};
  wlr_drm_format_set_add(&set, DRM_FORMAT_ARGB8888, DRM_FORMAT_MOD_LINEAR);
  wlr_buffer* buffer = wlr_allocator_create_buffer(
      vk.allocator, size, size, wlr_drm_format_set_get(&set, DRM_FORMAT_ARGB8888));
  wlr_drm_format_set_finish(&set);
  return buffer;
}

bool fill(wlr_renderer* renderer, wlr_buffer* slot, uint32_t argb) {
  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(renderer, slot, nullptr);
  if (pass == nullptr) return false;
  wlr_render_rect_options rect{};
  rect.box = {0, 0, slot->width, slot->height};
  auto channel = [argb](int shift) { return static_cast<float>((argb >> shift) & 0xff) / 255.0f; };
  rect.color = {channel(16), channel(8), channel(0), 1.0f};
  rect.blend_mode = WLR_RENDER_BLEND_MODE_NONE;
  wlr_render_pass_add_rect(pass, &rect);
  return wlr_render_pass_submit(pass);
}

TEST(SlotFence, ASlotOnScreenRefusesAPass) {
  Vulkan vk;
  start(vk, {});
  if (vk.renderer == nullptr) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no Vulkan device: " + vk.error);
  ASSERT_NE(vk.allocator, nullptr);
  wlr_buffer* slot = new_slot(vk, 32);
  ASSERT_NE(slot, nullptr);
  ASSERT_TRUE(fill(vk.renderer, slot, kRed));
  ASSERT_TRUE(fill(vk.renderer, slot, kGreen)) << "its holder may draw again before handing it on";
  wlr_buffer_lock(slot);  // the output holds it
  vulkan::slot_presented(slot);
  EXPECT_FALSE(fill(vk.renderer, slot, kRed)) << "drew into a slot on screen";
  wlr_buffer_unlock(slot);  // released: free again
  EXPECT_TRUE(fill(vk.renderer, slot, kRed));
  vulkan::renderer_finish(vk.renderer);
  wlr_buffer_drop(slot);
}

// wlroots drops a slot once nobody holds it, which may be right after its
// last pass was submitted. The drop returns at once (the event loop never
// waits for the GPU: the pass's time is spent after it, in the finish that
// follows), the slot's image and memory stay until the pass is done (under
// the validation layer, freeing them in use is an error, counted), and
// then go.
TEST(SlotFence, ADroppedSlotIsFreedAfterItsLastPassWithoutAWait) {
  Vulkan vk;
  start(vk, {});
  if (vk.renderer == nullptr) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no Vulkan device: " + vk.error);
  ASSERT_NE(vk.allocator, nullptr);
  using Clock = std::chrono::steady_clock;
  Clock::duration dropping{}, finishing{};
  // More work each try, until the pass takes long enough to tell.
  for (int layers = 8; layers <= 2048 && finishing < std::chrono::milliseconds(50); layers *= 4) {
    wlr_buffer* slot = new_slot(vk, 1024);
    ASSERT_NE(slot, nullptr);
    wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(vk.renderer, slot, nullptr);
    ASSERT_NE(pass, nullptr);
    for (int i = 0; i < layers; ++i) {
      wlr_render_rect_options rect{};
      rect.box = {0, 0, slot->width, slot->height};
      rect.color = {0.1f, 0.2f, 0.3f, 0.5f};  // blended: every layer reads the one below
      wlr_render_pass_add_rect(pass, &rect);
    }
    ASSERT_TRUE(wlr_render_pass_submit(pass));
    const Clock::time_point submitted = Clock::now();
    wlr_buffer_drop(slot);
    const Clock::time_point dropped = Clock::now();
    vulkan::renderer_finish(vk.renderer);
    dropping = dropped - submitted;
    finishing = Clock::now() - dropped;
    // Kept while the pass ran, dropped once the device is past it.
    EXPECT_EQ(vulkan::renderer_pending_frees(vk.renderer), 0U) << "the slot was never freed";
  }
  auto ms = [](Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("[ slot     ] drop %.3f ms, then the pass ran %.1f ms more\n", ms(dropping),
              ms(finishing));
  // A drop that waited would have taken the pass's time, leaving the finish nothing.
  EXPECT_LT(dropping * 10, finishing)
      << "the drop took " << ms(dropping) << " ms, the pass after it " << ms(finishing) << " ms";
  EXPECT_EQ(vulkan::renderer_debug_messages(vk.renderer), 0);
}

UniqueFd open_vgem_card() {
  for (int i = 0; i < 8; ++i) {
    UniqueFd fd(open(("/dev/dri/card" + std::to_string(i)).c_str(), O_RDWR | O_CLOEXEC));
    if (!fd) continue;
    drmVersionPtr version = drmGetVersion(fd.get());
    bool vgem = version != nullptr && std::strcmp(version->name, "vgem") == 0;
    drmFreeVersion(version);
    if (vgem) return fd;
  }
  return UniqueFd();
}

uint32_t first_pixel(const wlr_dmabuf_attributes& attribs) {
  size_t size = size_t(attribs.stride[0]) * attribs.height;
  void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, attribs.fd[0], 0);
  if (map == MAP_FAILED) return 0;
  uint32_t pixel = *static_cast<uint32_t*>(map);
  munmap(map, size);
  return pixel;
}

TEST(SlotFence, ReleasedSlotIsRedrawnOnlyAfterItsReadersFence) {
  UniqueFd vgem = open_vgem_card();
  if (!vgem) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no vgem card (run in tests/vm/: vk-dmabuf)");
  vulkan::SwapchainOptions swapchain;
  swapchain.kms_fd = vgem.get();  // slots are vgem dumb buffers, as on a DRM output
  Vulkan vk;
  start(vk, swapchain);
  if (vk.renderer == nullptr) SKIP_UNLESS_REQUIRED("no Vulkan device: " + vk.error);
  ASSERT_NE(vk.allocator, nullptr) << "no DRM slots (dma-buf import missing?)";
  wlr_buffer* slot = new_slot(vk, 64);
  ASSERT_NE(slot, nullptr);
  wlr_dmabuf_attributes attribs{};
  ASSERT_TRUE(wlr_buffer_get_dmabuf(slot, &attribs));
  EXPECT_EQ(attribs.modifier, DRM_FORMAT_MOD_LINEAR);
  ASSERT_TRUE(fill(vk.renderer, slot, kRed));
  vulkan::renderer_finish(vk.renderer);
  ASSERT_EQ(first_pixel(attribs), kRed) << "the exported dma-buf does not hold what was drawn";

  // A reader (the display) still uses it when the consumer lets go of it.
  uint32_t handle = 0;
  ASSERT_EQ(drmPrimeFDToHandle(vgem.get(), attribs.fd[0], &handle), 0);
  auto fence = testing::VgemFence::attach(vgem.get(), handle, /*write=*/false);
  ASSERT_TRUE(fence.ok()) << "VGEM_FENCE_ATTACH failed";
  wlr_buffer_lock(slot);
  vulkan::slot_presented(slot);
  wlr_buffer_unlock(slot);  // released with the reader's fence pending

  // The reader's side runs on another thread: it looks at the pixels while
  // its fence is pending, then signals. (lavapipe waits for a SYNC_FD
  // semaphore inside vkQueueSubmit, on the CPU; a GPU driver hands the wait
  // to the kernel. Either way nothing may be drawn before the signal.)
  uint32_t before = 0;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    before = first_pixel(attribs);
    (void)fence.value().signal();
  });
  auto t0 = std::chrono::steady_clock::now();
  const bool submitted = fill(vk.renderer, slot, kGreen);
  auto submit_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  reader.join();
  vulkan::renderer_finish(vk.renderer);
  const uint32_t after = first_pixel(attribs);
  std::printf(
      "slot-fence: the submit returned after %lld ms (%s)\n", static_cast<long long>(submit_ms),
      submit_ms >= 700 ? "the driver waited for the fence on the CPU" : "the wait is on the GPU");

  EXPECT_TRUE(submitted);
  EXPECT_EQ(before, kRed) << "the slot was drawn over while its reader's fence was pending";
  EXPECT_EQ(after, kGreen) << "the pass never ran after the fence signalled";
  EXPECT_EQ(vulkan::renderer_debug_messages(vk.renderer), 0);
  wlr_buffer_drop(slot);
}

// The out-fence KMS gives the commit that replaces a slot on screen: set on
// the slot while the display still holds it, it makes the next pass into
// the slot wait (on the GPU) after the slot went back to the swapchain.
TEST(SlotFence, TheOutFenceOfTheNextCommitHoldsTheNextPass) {
  UniqueFd vgem = open_vgem_card();
  if (!vgem) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no vgem card (run in tests/vm/: vk-dmabuf)");
  vulkan::SwapchainOptions swapchain;
  swapchain.kms_fd = vgem.get();
  Vulkan vk;
  start(vk, swapchain);
  if (vk.renderer == nullptr) SKIP_UNLESS_REQUIRED("no Vulkan device: " + vk.error);
  ASSERT_NE(vk.allocator, nullptr);
  wlr_buffer* slot = new_slot(vk, 64);
  ASSERT_NE(slot, nullptr);
  wlr_dmabuf_attributes attribs{};
  ASSERT_TRUE(wlr_buffer_get_dmabuf(slot, &attribs));
  ASSERT_TRUE(fill(vk.renderer, slot, kRed));
  vulkan::renderer_finish(vk.renderer);

  // A free-standing pending fence (not on the slot's dma-buf): only the
  // out-fence handed over can hold the pass.
  auto out_fence = testing::make_pending_fence(vgem.get());
  ASSERT_TRUE(out_fence.ok()) << "no pending vgem fence";
  wlr_buffer_lock(slot);  // on screen
  vulkan::slot_presented(slot);
  vulkan::slot_set_reuse_fence(slot, UniqueFd(dup(out_fence.value().sync_file.fd())));
  wlr_buffer_unlock(slot);  // the flip of the next commit let go of it

  uint32_t before = 0;
  std::thread display([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    before = first_pixel(attribs);
    (void)out_fence.value().fence.signal();
  });
  ASSERT_TRUE(fill(vk.renderer, slot, kGreen));
  display.join();
  vulkan::renderer_finish(vk.renderer);
  EXPECT_EQ(before, kRed) << "the slot was drawn over before the next commit's out-fence";
  EXPECT_EQ(first_pixel(attribs), kGreen);
  EXPECT_EQ(vulkan::renderer_debug_messages(vk.renderer), 0);
  wlr_buffer_drop(slot);
}

// A client's dma-buf (a vgem dumb buffer here) wrapped as wlroots does.
struct ClientDmabuf {
  wlr_buffer base;
  UniqueFd dmabuf;
  uint32_t stride = 0;
};

const wlr_buffer_impl kClientDmabufImpl = {
    .destroy =
        [](wlr_buffer* b) {
          wlr_buffer_finish(b);
          delete reinterpret_cast<ClientDmabuf*>(b);
        },
    .get_dmabuf =
        [](wlr_buffer* b, wlr_dmabuf_attributes* a) {
          auto* client = reinterpret_cast<ClientDmabuf*>(b);
          *a = {};
          a->width = b->width;
          a->height = b->height;
          a->format = DRM_FORMAT_ARGB8888;
          a->modifier = DRM_FORMAT_MOD_LINEAR;
          a->n_planes = 1;
          a->stride[0] = client->stride;
          a->fd[0] = client->dmabuf.get();
          return true;
        },
    .get_shm = nullptr,
    .begin_data_ptr_access = nullptr,
    .end_data_ptr_access = nullptr,
};

// What a surface commit makes of a client's buffer: wlroots exports it but
// declares it in a private header (include/types/wlr_buffer.h).
extern "C" wlr_client_buffer* wlr_client_buffer_create(wlr_buffer* buffer, wlr_renderer* renderer);

// wl_buffer.release (the wlr_buffer's release) for an imported client
// dma-buf comes only once the GPU finished reading it, although its client
// buffer (and with it the texture) is destroyed right after the pass that
// reads it was submitted. The hand-off holds it (handoff/release_watch.hpp,
// as each commit of a client dma-buf does); the renderer lets go with the
// texture. The pass waits for a pending fence (the slot's reuse fence), so
// the read is really outstanding until the test signals it. lavapipe hands
// out no fence for the read, so the hold waits for the read itself.
TEST(SlotFence, AClientDmabufIsReleasedOnlyAfterTheGpuReadIt) {
  UniqueFd vgem = open_vgem_card();
  if (!vgem) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no vgem card (run in tests/vm/: vk-dmabuf)");
  wl_event_loop* loop = wl_event_loop_create();
  ASSERT_NE(loop, nullptr);
  {
    vulkan::SwapchainOptions swapchain;
    swapchain.kms_fd = vgem.get();
    Vulkan vk;
    vulkan::RendererOptions options;
    options.debug_messenger = true;
    options.loop = loop;  // as in the compositor: completions wake the loop
    auto created = vulkan::create_renderer(options);
    if (!created) SKIP_UNLESS_REQUIRED("no Vulkan device: " + created.error().describe());
    vk.renderer = *created;
    auto allocator = vulkan::create_swapchain_allocator(vk.renderer, swapchain);
    ASSERT_TRUE(allocator.ok()) << allocator.error().describe();
    vk.allocator = *allocator;
    ASSERT_NE(vk.allocator, nullptr);
    wlr_buffer* slot = new_slot(vk, 64);
    ASSERT_NE(slot, nullptr);
    ASSERT_TRUE(fill(vk.renderer, slot, kRed));
    vulkan::renderer_finish(vk.renderer);

    drm_mode_create_dumb dumb{};
    dumb.width = 64;
    dumb.height = 64;
    dumb.bpp = 32;
    ASSERT_EQ(drmIoctl(vgem.get(), DRM_IOCTL_MODE_CREATE_DUMB, &dumb), 0);
    int prime = -1;
    ASSERT_EQ(drmPrimeHandleToFD(vgem.get(), dumb.handle, DRM_CLOEXEC | DRM_RDWR, &prime), 0);
    auto* client = new ClientDmabuf();
    client->dmabuf = UniqueFd(prime);
    client->stride = dumb.pitch;
    wlr_buffer_init(&client->base, &kClientDmabufImpl, 64, 64);
    wlr_buffer_lock(&client->base);  // the surface's lock while committed
    bool released = false;
    Listener<void> release;
    release.connect(&client->base.events.release, [&](void*) { released = true; });

    auto reader_fence = testing::make_pending_fence(vgem.get());
    ASSERT_TRUE(reader_fence.ok());
    wlr_buffer_lock(slot);
    vulkan::slot_presented(slot);
    vulkan::slot_set_reuse_fence(slot, UniqueFd(dup(reader_fence.value().sync_file.fd())));
    wlr_buffer_unlock(slot);

    ReleaseTracker releases(nullptr, make_gpu_reads_watch(loop));
    wlr_client_buffer* shown = wlr_client_buffer_create(&client->base, vk.renderer);
    ASSERT_NE(shown, nullptr) << "the vgem dma-buf was not imported";
    releases.hold_until_done(&shown->base, BufferLock(&client->base));
    wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(vk.renderer, slot, nullptr);
    ASSERT_NE(pass, nullptr);
    wlr_render_texture_options draw{};
    draw.texture = shown->texture;
    draw.dst_box = {0, 0, 64, 64};
    wlr_render_pass_add_texture(pass, &draw);
    ASSERT_TRUE(wlr_render_pass_submit(pass));
    wlr_buffer_unlock(&shown->base);   // the client committed another buffer
    wlr_buffer_unlock(&client->base);  // the surface let go of this one

    for (int i = 0; i < 30; ++i) wl_event_loop_dispatch(loop, 10);
    EXPECT_FALSE(released) << "wl_buffer.release went out while the GPU had yet to read it";
    ASSERT_TRUE(reader_fence.value().fence.signal().ok());
    // Liveness only: 30 s, for lavapipe in a guest on a loaded machine (3 s
    // ran out beside other guests and a fuzzer).
    poll_until([&] { return released; }, std::chrono::seconds(30),
               [&] { wl_event_loop_dispatch(loop, 10); });
    EXPECT_TRUE(released) << "the buffer was never released after the GPU read it";
    vulkan::renderer_finish(vk.renderer);
    EXPECT_EQ(vulkan::renderer_debug_messages(vk.renderer), 0);
    release.disconnect();
    wlr_buffer_drop(&client->base);
    wlr_buffer_drop(slot);
  }
  wl_event_loop_destroy(loop);
}

// A client dma-buf whose writer (its "GPU") is still busy when baton samples
// it, as when the readiness gate lets a commit through at once: the pass
// waits for the dma-buf's implicit write fence on the GPU, so it samples
// what the writer finished, and the submit itself does not block.
// (lavapipe also waits for implicit fences by itself when it touches an
// imported dma-buf: without baton's wait_for_writers this still passes
// here. It guards what a user sees, not that line; on drivers that do not
// wait by themselves that line is what makes it true.)
TEST(SlotFence, AClientDmabufStillBeingWrittenIsSampledAfterItsWriter) {
  UniqueFd vgem = open_vgem_card();
  if (!vgem) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no vgem card (run in tests/vm/: vk-dmabuf)");
  vulkan::SwapchainOptions swapchain;
  swapchain.kms_fd = vgem.get();
  Vulkan vk;
  start(vk, swapchain);
  if (vk.renderer == nullptr) SKIP_UNLESS_REQUIRED("no Vulkan device: " + vk.error);
  ASSERT_NE(vk.allocator, nullptr);
  wlr_buffer* slot = new_slot(vk, 64);
  ASSERT_NE(slot, nullptr);
  wlr_dmabuf_attributes slot_attribs{};
  ASSERT_TRUE(wlr_buffer_get_dmabuf(slot, &slot_attribs));

  drm_mode_create_dumb dumb{};
  dumb.width = 64;
  dumb.height = 64;
  dumb.bpp = 32;
  ASSERT_EQ(drmIoctl(vgem.get(), DRM_IOCTL_MODE_CREATE_DUMB, &dumb), 0);
  int prime = -1;
  ASSERT_EQ(drmPrimeHandleToFD(vgem.get(), dumb.handle, DRM_CLOEXEC | DRM_RDWR, &prime), 0);
  uint64_t offset = 0;
  ASSERT_EQ(drmModeMapDumbBuffer(vgem.get(), dumb.handle, &offset), 0);
  void* map = mmap(nullptr, dumb.size, PROT_READ | PROT_WRITE, MAP_SHARED, vgem.get(),
                   static_cast<off_t>(offset));
  ASSERT_NE(map, MAP_FAILED);
  auto* pixels = static_cast<uint32_t*>(map);
  constexpr uint32_t kMagenta = 0xffff00ff;  // "not rendered yet"
  std::fill(pixels, pixels + dumb.size / 4, kMagenta);
  auto* client = new ClientDmabuf();
  client->dmabuf = UniqueFd(prime);
  client->stride = dumb.pitch;
  wlr_buffer_init(&client->base, &kClientDmabufImpl, 64, 64);
  wlr_texture* texture = wlr_texture_from_buffer(vk.renderer, &client->base);
  ASSERT_NE(texture, nullptr);
  wlr_render_texture_options draw{};
  draw.texture = texture;
  draw.dst_box = {0, 0, 64, 64};
  draw.blend_mode = WLR_RENDER_BLEND_MODE_NONE;
  // Once unfenced first: lavapipe compiles its pipelines on first use, which
  // alone can outlast the writer below and hide a missing wait.
  wlr_render_pass* warm = wlr_renderer_begin_buffer_pass(vk.renderer, slot, nullptr);
  ASSERT_NE(warm, nullptr);
  wlr_render_pass_add_texture(warm, &draw);
  ASSERT_TRUE(wlr_render_pass_submit(warm));
  vulkan::renderer_finish(vk.renderer);
  ASSERT_EQ(first_pixel(slot_attribs), kMagenta) << "the warm-up pass did not sample the buffer";

  auto writer = testing::VgemFence::attach(vgem.get(), dumb.handle, /*write=*/true);
  ASSERT_TRUE(writer.ok()) << "VGEM_FENCE_ATTACH (write) failed";
  // The writer finishes only once the submit has returned (or after 30 s):
  // a submit that waited on its fence shows as 30 s, whatever the load.
  std::atomic<bool> submit_returned{false};
  std::thread gpu([&] {
    for (int i = 0; i < 3000 && !submit_returned; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the GPU is still busy
    std::fill(pixels, pixels + dumb.size / 4, kGreen);            // the frame is finished
    (void)writer.value().signal();
  });
  auto t0 = std::chrono::steady_clock::now();
  wlr_render_pass* pass = wlr_renderer_begin_buffer_pass(vk.renderer, slot, nullptr);
  ASSERT_NE(pass, nullptr);
  wlr_render_pass_add_texture(pass, &draw);
  const bool submitted = wlr_render_pass_submit(pass);
  submit_returned = true;
  const auto submit_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  vulkan::renderer_finish(vk.renderer);
  const auto done_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  gpu.join();
  std::printf("implicit-wait: the submit returned after %lld ms, the pass finished after %lld ms\n",
              static_cast<long long>(submit_ms), static_cast<long long>(done_ms));
  EXPECT_TRUE(submitted);
  EXPECT_LT(submit_ms, 25000) << "the submit blocked on the writer's fence (a CPU wait)";
  EXPECT_EQ(first_pixel(slot_attribs), kGreen)
      << "sampled before its writer finished (magenta is the unfinished frame)";
  EXPECT_EQ(vulkan::renderer_debug_messages(vk.renderer), 0);
  wlr_texture_destroy(texture);
  munmap(map, dumb.size);
  wlr_buffer_drop(&client->base);
  wlr_buffer_drop(slot);
}

}  // namespace
}  // namespace baton::test
