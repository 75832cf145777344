// Screen sharing into a client's dma-buf on baton's Vulkan renderer, from the
// client's side: a headless baton whose renderer names a DRM node
// (--drm-device; lavapipe has none of its own) allocates dma-buf slots, so
// wlr-screencopy and ext-image-copy-capture offer dma-buf targets. A
// client's udmabuf then receives the frame: after its implicit fences it
// holds what baton's own screenshot shows, and `ready` comes only once the
// copy is written (run capture-late-gpu: on the test GPU, whose copies end
// 300 ms after they are submitted, far longer than a client takes to read
// an event, a ready sent at submission would come with the copy's fence
// pending).
//
// Captures into wl_shm on the same baton read back without waiting: the
// renderer's copy signals a timeline point, and wlroots writes the pixels
// into the client's buffer and sends `ready` once it is (wlroots patch
// 0043). The renderer counts no blocking read-back wait on the loop, and the
// buffer holds the frame when `ready` arrives (capture-late-gpu: 300 ms
// after the copy was submitted).
//
// Needs /dev/udmabuf, a virtio-gpu render node and a Vulkan device that
// imports and exports dma-bufs: the guest (vk-dmabuf-server), where a skip is
// a failure. The host skips, loudly.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <xf86drm.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "renderer/vulkan/introspection.hpp"
#include "sync/sync_file.hpp"
#include "sync/timeline.hpp"
#include "tests/clients/drm_node.hpp"
#include "tests/clients/udmabuf.hpp"
#include "tests/clients/vgem_fence.hpp"
#include "tests/support/client.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"
#include "util/malloc_ptr.hpp"
#include "wlr-screencopy-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kMagenta = 0xffff00ff;  // the target before the copy

#define SKIP_UNLESS_REQUIRED(why)                                                        \
  do {                                                                                   \
    if (std::getenv("BATON_REQUIRE_DMABUF") != nullptr) FAIL() << "required: " << (why); \
    GTEST_SKIP() << (why);                                                               \
  } while (0)

/// A LINEAR client dma-buf (udmabuf) wrapped as a wl_buffer through
/// linux-dmabuf-v1, which the test reads as a capture client does.
struct DmabufTarget {
  DmabufTarget(testing::Udmabuf memory, zwp_linux_dmabuf_v1* dmabuf, uint32_t format, int w, int h)
      : memory(std::move(memory)), width(w), height(h) {
    auto* pixels = reinterpret_cast<uint32_t*>(this->memory.data());
    std::fill(pixels, pixels + static_cast<ptrdiff_t>(w) * h, kMagenta);
    zwp_linux_buffer_params_v1* params = zwp_linux_dmabuf_v1_create_params(dmabuf);
    zwp_linux_buffer_params_v1_add(params, this->memory.dmabuf(), 0, 0, w * 4,
                                   DRM_FORMAT_MOD_LINEAR >> 32, DRM_FORMAT_MOD_LINEAR & 0xffffffff);
    buffer = zwp_linux_buffer_params_v1_create_immed(params, w, h, format, 0);
    zwp_linux_buffer_params_v1_destroy(params);
  }
  ~DmabufTarget() { wl_buffer_destroy(buffer); }
  DmabufTarget(const DmabufTarget&) = delete;
  DmabufTarget& operator=(const DmabufTarget&) = delete;

  /// Waits as a client reading it does (its implicit write fences); false
  /// when they do not signal within the time.
  [[nodiscard]] bool wait_for_writers() const {
    auto fence = sync::SyncFile::export_from_dmabuf(memory.dmabuf(), sync::Access::read);
    if (!fence) return false;
    auto done = fence->wait(std::chrono::seconds(10));
    return done && *done;
  }
  /// Whether its writers are done now: a client may read it at `ready`.
  [[nodiscard]] bool writers_done_now() const {
    auto fence = sync::SyncFile::export_from_dmabuf(memory.dmabuf(), sync::Access::read);
    if (!fence) return false;
    auto done = fence->wait(std::chrono::milliseconds(0));
    return done && *done;
  }
  [[nodiscard]] uint32_t at(int x, int y) const {
    uint32_t pixel = 0;
    std::memcpy(&pixel, memory.data() + (static_cast<size_t>(y) * width + x) * 4, 4);
    return pixel | 0xff000000u;
  }
  /// Pixels of colour `argb` (alpha aside).
  [[nodiscard]] long count(uint32_t argb) const {
    long n = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) n += at(x, y) == (argb | 0xff000000u);
    return n;
  }
  /// Pixels that differ from `shot` (alpha aside).
  [[nodiscard]] long differences(const Image& shot) const {
    long differing = 0;
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) differing += at(x, y) != (shot.at(x, y) | 0xff000000u);
    return differing;
  }

  testing::Udmabuf memory;
  int width, height;
  wl_buffer* buffer = nullptr;
};

class CaptureDmabuf : public ::testing::Test {
 protected:
  void SetUp() override {
    auto node = testing::open_drm_node("virtio_gpu", testing::NodeKind::render);
    if (!node)
      SKIP_UNLESS_REQUIRED(
          "UNTESTED HERE: no virtio-gpu render node to name as the renderer's DRM device (run "
          "in tests/vm/: vk-dmabuf-server)");
    MallocPtr<char> path(drmGetDeviceNameFromFd2(node->get()));
    ASSERT_NE(path, nullptr);
    struct stat st {};
    ASSERT_EQ(fstat(node->get(), &st), 0);
    node_ = st.st_rdev;
    Options options = headless_options();
    options.renderer = RendererChoice::vulkan;
    options.drm_device = path.get();
    try {
      h_ = std::make_unique<Harness>(std::move(options));
    } catch (const std::exception& e) {
      SKIP_UNLESS_REQUIRED(std::string("UNTESTED HERE: baton on Vulkan did not start: ") +
                           e.what());
    }
    c_ = std::make_unique<Client>(*h_);
    globals_ = std::make_unique<Globals>(*h_, c_->display());
    dmabuf_ = static_cast<zwp_linux_dmabuf_v1*>(globals_->bind(&zwp_linux_dmabuf_v1_interface, 3));
    if (dmabuf_ == nullptr) SKIP_UNLESS_REQUIRED("UNTESTED HERE: linux-dmabuf-v1 is not offered");
    // Something to see: a red window on the background.
    window_ = std::make_unique<Window>(*c_);
    window_->initial_commit();
    ASSERT_TRUE(h_->run_until([&] { return window_->configure_count() == 1; }));
    window_->draw(200, 150, kRed);
    h_->sync();
  }
  void TearDown() override {
    if (dmabuf_ != nullptr) zwp_linux_dmabuf_v1_destroy(dmabuf_);
    window_.reset();
    globals_.reset();
    c_.reset();
    h_.reset();
  }
  /// A w x h udmabuf target, or null (a failure) where none can be made.
  std::unique_ptr<DmabufTarget> target(uint32_t format, int w, int h) {
    auto memory = testing::Udmabuf::create(static_cast<size_t>(w) * h * 4);
    if (!memory) {
      ADD_FAILURE() << "no udmabuf: " << memory.error().describe();
      return nullptr;
    }
    return std::make_unique<DmabufTarget>(std::move(*memory), dmabuf_, format, w, h);
  }
  /// wlr-screencopy of the output into a client dma-buf, read as the client
  /// does (after its fences); null (a failure) when that did not work.
  std::unique_ptr<DmabufTarget> screencopy();
  /// The window's middle is red in `target`: the frame is the desktop, not
  /// an empty or stale buffer.
  [[nodiscard]] bool shows_the_window(const DmabufTarget& t) const {
    for (int y = 0; y < t.height; y += 4)
      for (int x = 0; x < t.width; x += 4)
        if (t.at(x, y) == kRed) return true;
    return false;
  }

  dev_t node_ = 0;
  std::unique_ptr<Harness> h_;
  std::unique_ptr<Client> c_;
  std::unique_ptr<Globals> globals_;
  std::unique_ptr<Window> window_;
  zwp_linux_dmabuf_v1* dmabuf_ = nullptr;
};

// What wlr-screencopy offered and did with one frame.
struct ScreencopyFrame {
  uint32_t dmabuf_format = 0;
  int width = 0, height = 0;
  bool buffer_done = false, ready = false, failed = false;
};

std::unique_ptr<DmabufTarget> CaptureDmabuf::screencopy() {
  auto* manager = static_cast<zwlr_screencopy_manager_v1*>(
      globals_->bind(&zwlr_screencopy_manager_v1_interface, 3));
  if (manager == nullptr) {
    ADD_FAILURE() << "wlr-screencopy is not offered";
    return nullptr;
  }
  ScreencopyFrame result;
  zwlr_screencopy_frame_v1* frame =
      zwlr_screencopy_manager_v1_capture_output(manager, 0, c_->output);
  static const zwlr_screencopy_frame_v1_listener listener = {
      .buffer = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t, uint32_t) {},
      .flags = [](void*, zwlr_screencopy_frame_v1*, uint32_t) {},
      .ready = [](void* data, zwlr_screencopy_frame_v1*, uint32_t, uint32_t,
                  uint32_t) { static_cast<ScreencopyFrame*>(data)->ready = true; },
      .failed =
          [](void* data, zwlr_screencopy_frame_v1*) {
            static_cast<ScreencopyFrame*>(data)->failed = true;
          },
      .damage = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t, uint32_t) {},
      .linux_dmabuf =
          [](void* data, zwlr_screencopy_frame_v1*, uint32_t format, uint32_t w, uint32_t h) {
            auto* r = static_cast<ScreencopyFrame*>(data);
            r->dmabuf_format = format;
            r->width = static_cast<int>(w);
            r->height = static_cast<int>(h);
          },
      .buffer_done =
          [](void* data, zwlr_screencopy_frame_v1*) {
            static_cast<ScreencopyFrame*>(data)->buffer_done = true;
          },
  };
  zwlr_screencopy_frame_v1_add_listener(frame, &listener, &result);
  std::unique_ptr<DmabufTarget> t;
  if (!h_->run_until([&] { return result.buffer_done || result.failed; }))
    ADD_FAILURE() << "no buffer_done";
  else if (result.dmabuf_format == 0)
    ADD_FAILURE() << "no dma-buf target offered: the headless slots are not dma-bufs";
  else if (result.width != 640 || result.height != 480)
    ADD_FAILURE() << "a " << result.width << "x" << result.height << " frame of a 640x480 output";
  else
    t = target(result.dmabuf_format, result.width, result.height);
  if (t != nullptr) {
    zwlr_screencopy_frame_v1_copy(frame, t->buffer);
    if (!h_->run_until([&] { return result.ready || result.failed; }) || !result.ready) {
      ADD_FAILURE() << "the copy into the client's dma-buf failed";
      t.reset();
    } else if (!t->writers_done_now()) {
      ADD_FAILURE() << "ready came with the copy still being written";
      t.reset();
    } else if (!t->wait_for_writers()) {
      ADD_FAILURE() << "the copy's fence never signalled";
      t.reset();
    }
  }
  zwlr_screencopy_frame_v1_destroy(frame);
  zwlr_screencopy_manager_v1_destroy(manager);
  return t;
}

// xdg-desktop-portal-wlr 0.7's way: wlr-screencopy with the dma-buf it offers.
TEST_F(CaptureDmabuf, ScreencopyCopiesTheOutputIntoAClientDmabuf) {
  auto t = screencopy();
  ASSERT_NE(t, nullptr);
  Image shot = h_->capture();
  EXPECT_EQ(t->differences(shot), 0) << "the frame differs from baton's screenshot";
  EXPECT_TRUE(shows_the_window(*t));
}

// What ext-image-copy-capture offered for a session.
struct Session {
  bool done = false, stopped = false;
  std::vector<dev_t> devices;
  uint32_t linear_format = 0;  // a format offered with the LINEAR modifier
  bool shm_offered = false;
  uint32_t shm_format = 0;  // the first wl_shm format offered (ARGB8888 is 0)
  int width = 0, height = 0;
};

const ext_image_copy_capture_session_v1_listener kSessionListener = {
    .buffer_size =
        [](void* data, ext_image_copy_capture_session_v1*, uint32_t w, uint32_t h) {
          static_cast<Session*>(data)->width = static_cast<int>(w);
          static_cast<Session*>(data)->height = static_cast<int>(h);
        },
    .shm_format =
        [](void* data, ext_image_copy_capture_session_v1*, uint32_t format) {
          auto* s = static_cast<Session*>(data);
          if (!s->shm_offered) s->shm_format = format;
          s->shm_offered = true;
        },
    .dmabuf_device =
        [](void* data, ext_image_copy_capture_session_v1*, wl_array* device) {
          dev_t dev = 0;
          if (device->size == sizeof(dev)) std::memcpy(&dev, device->data, sizeof(dev));
          static_cast<Session*>(data)->devices.push_back(dev);
        },
    .dmabuf_format =
        [](void* data, ext_image_copy_capture_session_v1*, uint32_t format, wl_array* modifiers) {
          const auto* mods = static_cast<const uint64_t*>(modifiers->data);
          for (size_t i = 0; i < modifiers->size / sizeof(uint64_t); ++i)
            if (mods[i] == DRM_FORMAT_MOD_LINEAR)
              static_cast<Session*>(data)->linear_format = format;
        },
    .done = [](void* data,
               ext_image_copy_capture_session_v1*) { static_cast<Session*>(data)->done = true; },
    .stopped =
        [](void* data, ext_image_copy_capture_session_v1*) {
          static_cast<Session*>(data)->stopped = true;
        }};

struct CaptureFrame {
  bool ready = false, failed = false;
  uint32_t reason = 0;
  std::function<void()> at_ready;  // what the client looks at as ready arrives
};

const ext_image_copy_capture_frame_v1_listener kFrameListener = {
    .transform = [](void*, ext_image_copy_capture_frame_v1*, uint32_t) {},
    .damage = [](void*, ext_image_copy_capture_frame_v1*, int32_t, int32_t, int32_t, int32_t) {},
    .presentation_time = [](void*, ext_image_copy_capture_frame_v1*, uint32_t, uint32_t,
                            uint32_t) {},
    .ready =
        [](void* data, ext_image_copy_capture_frame_v1*) {
          auto* f = static_cast<CaptureFrame*>(data);
          f->ready = true;
          if (f->at_ready) f->at_ready();
        },
    .failed =
        [](void* data, ext_image_copy_capture_frame_v1*, uint32_t reason) {
          static_cast<CaptureFrame*>(data)->failed = true;
          static_cast<CaptureFrame*>(data)->reason = reason;
        }};

// The newer way (xdg-desktop-portal-wlr 0.8, OBS): the session names the
// device to allocate on and the formats; the frame lands in the dma-buf.
TEST_F(CaptureDmabuf, ImageCopyCaptureOffersTheDeviceAndCopiesIntoAClientDmabuf) {
  auto* sources = static_cast<ext_output_image_capture_source_manager_v1*>(
      globals_->bind(&ext_output_image_capture_source_manager_v1_interface, 1));
  auto* manager = static_cast<ext_image_copy_capture_manager_v1*>(
      globals_->bind(&ext_image_copy_capture_manager_v1_interface, 1));
  ASSERT_NE(sources, nullptr);
  ASSERT_NE(manager, nullptr);
  ext_image_capture_source_v1* source =
      ext_output_image_capture_source_manager_v1_create_source(sources, c_->output);
  ext_image_copy_capture_session_v1* session =
      ext_image_copy_capture_manager_v1_create_session(manager, source, 0);
  Session offered;
  ext_image_copy_capture_session_v1_add_listener(session, &kSessionListener, &offered);
  ASSERT_TRUE(h_->run_until([&] { return offered.done || offered.stopped; }));
  ASSERT_TRUE(offered.done);
  ASSERT_EQ(offered.devices.size(), 1U) << "no dma-buf device named: dma-buf targets not offered";
  EXPECT_EQ(offered.devices[0], node_) << "the device named is not the renderer's DRM node";
  ASSERT_NE(offered.linear_format, 0U) << "no format offered with the LINEAR modifier";

  auto t = target(offered.linear_format, offered.width, offered.height);
  ASSERT_NE(t, nullptr);
  CaptureFrame result;
  ext_image_copy_capture_frame_v1* frame = ext_image_copy_capture_session_v1_create_frame(session);
  ext_image_copy_capture_frame_v1_add_listener(frame, &kFrameListener, &result);
  ext_image_copy_capture_frame_v1_attach_buffer(frame, t->buffer);
  ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, t->width, t->height);
  ext_image_copy_capture_frame_v1_capture(frame);
  ASSERT_TRUE(h_->run_until([&] { return result.ready || result.failed; }));
  ASSERT_TRUE(result.ready) << "the frame failed, reason " << result.reason;
  EXPECT_TRUE(t->writers_done_now()) << "ready came with the copy still being written";
  ASSERT_TRUE(t->wait_for_writers()) << "the copy's fence never signalled";
  Image shot = h_->capture();
  EXPECT_EQ(t->differences(shot), 0) << "the frame differs from baton's screenshot";
  EXPECT_TRUE(shows_the_window(*t));
  ext_image_copy_capture_frame_v1_destroy(frame);
  ext_image_copy_capture_session_v1_destroy(session);
  ext_image_capture_source_v1_destroy(source);
  ext_image_copy_capture_manager_v1_destroy(manager);
  ext_output_image_capture_source_manager_v1_destroy(sources);
}

// A window's next frame that its GPU has not finished is not captured: its
// buffer (green) waits for its acquire point, an unsignalled fence (vgem's,
// on the client's timeline on the render node); a capture meanwhile gets the
// frame before (the window red), never a frame with the unfinished buffer.
// Once the fence signals, the next capture is green.
TEST_F(CaptureDmabuf, ACaptureWhileTheWindowsFrameIsFencedShowsTheFrameBefore) {
  auto* syncobj = static_cast<wp_linux_drm_syncobj_manager_v1*>(
      globals_->bind(&wp_linux_drm_syncobj_manager_v1_interface, 1));
  ASSERT_NE(syncobj, nullptr) << "linux-drm-syncobj-v1 is not offered on the render node";
  auto render = testing::open_drm_node("virtio_gpu", testing::NodeKind::render);
  ASSERT_TRUE(render) << render.error().describe();
  auto vgem = testing::open_drm_node("vgem", testing::NodeKind::primary);
  if (!vgem) SKIP_UNLESS_REQUIRED("UNTESTED HERE: no vgem card for an unsignalled fence");
  auto acquire = sync::Timeline::create(render->get());
  auto release = sync::Timeline::create(render->get());
  ASSERT_TRUE(acquire && release);
  auto acquire_fd = acquire->export_fd();
  auto release_fd = release->export_fd();
  ASSERT_TRUE(acquire_fd && release_fd);
  auto* wl_acquire = wp_linux_drm_syncobj_manager_v1_import_timeline(syncobj, acquire_fd->get());
  auto* wl_release = wp_linux_drm_syncobj_manager_v1_import_timeline(syncobj, release_fd->get());
  auto* surface = wp_linux_drm_syncobj_manager_v1_get_surface(syncobj, window_->surface());

  // The client's GPU is still drawing the green frame.
  auto green = target(DRM_FORMAT_XRGB8888, 200, 150);
  ASSERT_NE(green, nullptr);
  auto* pixels = reinterpret_cast<uint32_t*>(green->memory.data());
  std::fill(pixels, pixels + ptrdiff_t{200} * 150, kGreen);
  auto pending = testing::make_pending_fence(vgem->get());
  ASSERT_TRUE(pending) << pending.error().describe();
  ASSERT_TRUE(acquire->import_sync_file(1, pending->sync_file));
  wl_surface_attach(window_->surface(), green->buffer, 0, 0);
  wl_surface_damage_buffer(window_->surface(), 0, 0, 200, 150);
  wp_linux_drm_syncobj_surface_v1_set_acquire_point(surface, wl_acquire, 0, 1);
  wp_linux_drm_syncobj_surface_v1_set_release_point(surface, wl_release, 0, 1);
  wl_surface_commit(window_->surface());
  h_->sync();
  h_->run_for(std::chrono::milliseconds(300));

  auto before = screencopy();
  ASSERT_NE(before, nullptr);
  EXPECT_TRUE(shows_the_window(*before)) << "the capture is not of the frame before";
  EXPECT_EQ(before->count(kGreen), 0) << "the capture shows a frame whose GPU work is unfinished";

  ASSERT_TRUE(pending->fence.signal());
  ASSERT_TRUE(h_->run_until([&] { return count_pixels(h_->capture(), kGreen) > 0; }))
      << "the window's frame never came once its fence signalled";
  auto after = screencopy();
  ASSERT_NE(after, nullptr);
  EXPECT_GE(after->count(kGreen), 200 * 150 - 24 * 24) << "the capture misses the signalled frame";
  EXPECT_EQ(after->count(kRed), 0);

  wp_linux_drm_syncobj_surface_v1_destroy(surface);
  wp_linux_drm_syncobj_timeline_v1_destroy(wl_acquire);
  wp_linux_drm_syncobj_timeline_v1_destroy(wl_release);
  wp_linux_drm_syncobj_manager_v1_destroy(syncobj);
  // The buffer stays the window's until it goes (TearDown).
  window_.reset();
  h_->sync();
}

// Captures into a client's wl_shm buffer on the same baton: the renderer
// signals timelines and has a DRM node, so the read-back is not waited for.
class CaptureShm : public CaptureDmabuf {
 protected:
  /// Blocking read-back waits so far on the loop's thread.
  [[nodiscard]] uint64_t read_back_waits() {
    return vulkan::renderer_loop_waits(h_->server().renderer(), "read-back");
  }
  /// Pixels of `buffer` (w x h) that differ from `shot`, alpha aside.
  static long differences(const ShmBuffer& buffer, int w, int h, const Image& shot) {
    long differing = 0;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        differing +=
            (buffer.pixels()[ptrdiff_t(y) * w + x] | 0xff000000u) != (shot.at(x, y) | 0xff000000u);
    return differing;
  }
  static long count(const ShmBuffer& buffer, int w, int h, uint32_t argb) {
    long n = 0;
    for (ptrdiff_t i = 0; i < ptrdiff_t(w) * h; ++i)
      n += (buffer.pixels()[i] | 0xff000000u) == (argb | 0xff000000u);
    return n;
  }
};

struct ShmScreencopy {
  bool offered = false;
  uint32_t format = 0;  // wl_shm's codes: ARGB8888 is 0
  int width = 0, height = 0, stride = 0;
  bool buffer_done = false, ready = false, failed = false;
  const ShmBuffer* target = nullptr;
  long magenta_at_ready = -1;  // target pixels not yet written when ready arrived
};

// grim's way: wlr-screencopy into a wl_shm buffer.
TEST_F(CaptureShm, ScreencopyWritesTheBufferBeforeReadyWithoutALoopWait) {
  auto* manager = static_cast<zwlr_screencopy_manager_v1*>(
      globals_->bind(&zwlr_screencopy_manager_v1_interface, 3));
  ASSERT_NE(manager, nullptr);
  ShmScreencopy result;
  zwlr_screencopy_frame_v1* frame =
      zwlr_screencopy_manager_v1_capture_output(manager, 0, c_->output);
  static const zwlr_screencopy_frame_v1_listener listener = {
      .buffer =
          [](void* data, zwlr_screencopy_frame_v1*, uint32_t format, uint32_t w, uint32_t h,
             uint32_t stride) {
            auto* r = static_cast<ShmScreencopy*>(data);
            r->offered = true;
            r->format = format;
            r->width = static_cast<int>(w);
            r->height = static_cast<int>(h);
            r->stride = static_cast<int>(stride);
          },
      .flags = [](void*, zwlr_screencopy_frame_v1*, uint32_t) {},
      .ready =
          [](void* data, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t) {
            auto* r = static_cast<ShmScreencopy*>(data);
            r->ready = true;
            r->magenta_at_ready = CaptureShm::count(*r->target, r->width, r->height, kMagenta);
          },
      .failed = [](void* data,
                   zwlr_screencopy_frame_v1*) { static_cast<ShmScreencopy*>(data)->failed = true; },
      .damage = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t, uint32_t) {},
      .linux_dmabuf = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t) {},
      .buffer_done =
          [](void* data, zwlr_screencopy_frame_v1*) {
            static_cast<ShmScreencopy*>(data)->buffer_done = true;
          },
  };
  zwlr_screencopy_frame_v1_add_listener(frame, &listener, &result);
  ASSERT_TRUE(h_->run_until([&] { return result.buffer_done || result.failed; }));
  ASSERT_TRUE(result.offered) << "no wl_shm target offered";
  ASSERT_EQ(result.stride, result.width * 4);
  ShmBuffer target(c_->shm, result.width, result.height, kMagenta, result.format);
  result.target = &target;
  const uint64_t waits_before = read_back_waits();
  zwlr_screencopy_frame_v1_copy(frame, target.get());
  ASSERT_TRUE(h_->run_until([&] { return result.ready || result.failed; }));
  ASSERT_TRUE(result.ready) << "the copy into the client's wl_shm buffer failed";
  EXPECT_EQ(read_back_waits(), waits_before) << "the event loop waited for the read-back";
  EXPECT_EQ(result.magenta_at_ready, 0) << "ready came before the pixels were written";
  Image shot = h_->capture();
  EXPECT_EQ(differences(target, result.width, result.height, shot), 0)
      << "the frame differs from baton's screenshot";
  EXPECT_GT(count(target, result.width, result.height, kRed), 0) << "the window is not in it";
  zwlr_screencopy_frame_v1_destroy(frame);
  zwlr_screencopy_manager_v1_destroy(manager);
}

// xdg-desktop-portal-wlr 0.8 and OBS without dma-buf: ext-image-copy-capture
// into a wl_shm buffer.
TEST_F(CaptureShm, ImageCopyCaptureWritesTheBufferBeforeReadyWithoutALoopWait) {
  auto* sources = static_cast<ext_output_image_capture_source_manager_v1*>(
      globals_->bind(&ext_output_image_capture_source_manager_v1_interface, 1));
  auto* manager = static_cast<ext_image_copy_capture_manager_v1*>(
      globals_->bind(&ext_image_copy_capture_manager_v1_interface, 1));
  ASSERT_NE(sources, nullptr);
  ASSERT_NE(manager, nullptr);
  ext_image_capture_source_v1* source =
      ext_output_image_capture_source_manager_v1_create_source(sources, c_->output);
  ext_image_copy_capture_session_v1* session =
      ext_image_copy_capture_manager_v1_create_session(manager, source, 0);
  Session offered;
  ext_image_copy_capture_session_v1_add_listener(session, &kSessionListener, &offered);
  ASSERT_TRUE(h_->run_until([&] { return offered.done || offered.stopped; }));
  ASSERT_TRUE(offered.done);
  ASSERT_TRUE(offered.shm_offered) << "no wl_shm format offered";

  ShmBuffer target(c_->shm, offered.width, offered.height, kMagenta, offered.shm_format);
  ext_image_copy_capture_frame_v1* frame = ext_image_copy_capture_session_v1_create_frame(session);
  CaptureFrame capture;
  long magenta_at_ready = -1;
  capture.at_ready = [&] {
    magenta_at_ready = count(target, offered.width, offered.height, kMagenta);
  };
  ext_image_copy_capture_frame_v1_add_listener(frame, &kFrameListener, &capture);
  ext_image_copy_capture_frame_v1_attach_buffer(frame, target.get());
  ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, offered.width, offered.height);
  const uint64_t waits_before = read_back_waits();
  ext_image_copy_capture_frame_v1_capture(frame);
  ASSERT_TRUE(h_->run_until([&] { return capture.ready || capture.failed; }));
  ASSERT_TRUE(capture.ready) << "the frame failed, reason " << capture.reason;
  EXPECT_EQ(read_back_waits(), waits_before) << "the event loop waited for the read-back";
  EXPECT_EQ(magenta_at_ready, 0) << "ready came before the pixels were written";
  Image shot = h_->capture();
  EXPECT_EQ(differences(target, offered.width, offered.height, shot), 0)
      << "the frame differs from baton's screenshot";
  EXPECT_GT(count(target, offered.width, offered.height, kRed), 0) << "the window is not in it";
  ext_image_copy_capture_frame_v1_destroy(frame);
  ext_image_copy_capture_session_v1_destroy(session);
  ext_image_capture_source_v1_destroy(source);
  ext_image_copy_capture_manager_v1_destroy(manager);
  ext_output_image_capture_source_manager_v1_destroy(sources);
}

}  // namespace
}  // namespace baton::test
