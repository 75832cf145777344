// Reading the desktop the ext way, from the client side:
// ext-image-copy-capture with an output as the capture source (what
// screenshot and screen-sharing tools use), and ext-data-control (what
// clipboard managers use). Debian 12 has no client for either (grim 1.4 and
// wl-clipboard 2.1 speak only the wlr protocols, tested in
// test_real_clients), so these are our own clients, written from the XML.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "compositor/input/seat.hpp"
#include "ext-data-control-v1-client-protocol.h"
#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/held_files.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"
#include "wlr-screencopy-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;

/// A wl_shm buffer the test can read back.
struct ShmTarget {
  ShmTarget(wl_shm* shm, int w, int h, uint32_t format) : width(w), height(h) {
    size = static_cast<size_t>(w) * h * 4;
    int fd = memfd_create("capture-target", MFD_CLOEXEC);
    EXPECT_EQ(ftruncate(fd, static_cast<off_t>(size)), 0);
    pixels = static_cast<uint32_t*>(mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    std::memset(pixels, 0x55, size);  // not any colour the screen shows
    wl_shm_pool* pool = wl_shm_create_pool(shm, fd, static_cast<int32_t>(size));
    buffer = wl_shm_pool_create_buffer(pool, 0, w, h, w * 4, format);
    wl_shm_pool_destroy(pool);
    close(fd);
  }
  ~ShmTarget() {
    wl_buffer_destroy(buffer);
    munmap(pixels, size);
  }
  [[nodiscard]] uint32_t at(int x, int y) const { return pixels[y * width + x] | 0xff000000u; }
  int width, height;
  size_t size;
  uint32_t* pixels;
  wl_buffer* buffer;
};

/// An ext_image_copy_capture_session_v1 on one output, and what it offered.
struct CaptureSession {
  CaptureSession(Harness& h, Client& c, Globals& globals, uint32_t options) {
    sources = static_cast<ext_output_image_capture_source_manager_v1*>(
        globals.bind(&ext_output_image_capture_source_manager_v1_interface, 1));
    manager = static_cast<ext_image_copy_capture_manager_v1*>(
        globals.bind(&ext_image_copy_capture_manager_v1_interface, 1));
    if (sources == nullptr || manager == nullptr) return;
    source = ext_output_image_capture_source_manager_v1_create_source(sources, c.output);
    session = ext_image_copy_capture_manager_v1_create_session(manager, source, options);
    static const ext_image_copy_capture_session_v1_listener listener = {
        .buffer_size =
            [](void* data, ext_image_copy_capture_session_v1*, uint32_t w, uint32_t h) {
              auto* self = static_cast<CaptureSession*>(data);
              self->width = static_cast<int>(w);
              self->height = static_cast<int>(h);
            },
        .shm_format =
            [](void* data, ext_image_copy_capture_session_v1*, uint32_t format) {
              static_cast<CaptureSession*>(data)->shm_formats.push_back(format);
            },
        .dmabuf_device = [](void* data, ext_image_copy_capture_session_v1*,
                            wl_array*) { static_cast<CaptureSession*>(data)->dmabuf = true; },
        .dmabuf_format = [](void*, ext_image_copy_capture_session_v1*, uint32_t, wl_array*) {},
        .done =
            [](void* data, ext_image_copy_capture_session_v1*) {
              static_cast<CaptureSession*>(data)->done = true;
            },
        .stopped =
            [](void* data, ext_image_copy_capture_session_v1*) {
              static_cast<CaptureSession*>(data)->stopped = true;
            }};
    ext_image_copy_capture_session_v1_add_listener(session, &listener, this);
    h.run_until([this] { return done; });
  }
  ~CaptureSession() {
    if (session != nullptr) ext_image_copy_capture_session_v1_destroy(session);
    if (source != nullptr) ext_image_capture_source_v1_destroy(source);
    if (manager != nullptr) ext_image_copy_capture_manager_v1_destroy(manager);
    if (sources != nullptr) ext_output_image_capture_source_manager_v1_destroy(sources);
  }
  ext_output_image_capture_source_manager_v1* sources = nullptr;
  ext_image_copy_capture_manager_v1* manager = nullptr;
  ext_image_capture_source_v1* source = nullptr;
  ext_image_copy_capture_session_v1* session = nullptr;
  int width = 0, height = 0;
  std::vector<uint32_t> shm_formats;
  bool dmabuf = false, done = false, stopped = false;
};

/// One frame's outcome.
struct FrameResult {
  bool ready = false, failed = false;
  uint32_t reason = 0;
  int damage_rects = 0;
};

/// Captures one frame of `session` into `target`; the frame's outcome.
FrameResult capture_frame(Harness& h, CaptureSession& session, ShmTarget& target) {
  FrameResult result;
  ext_image_copy_capture_frame_v1* frame =
      ext_image_copy_capture_session_v1_create_frame(session.session);
  static const ext_image_copy_capture_frame_v1_listener listener = {
      .transform = [](void*, ext_image_copy_capture_frame_v1*, uint32_t) {},
      .damage = [](void* data, ext_image_copy_capture_frame_v1*, int32_t, int32_t, int32_t,
                   int32_t) { ++static_cast<FrameResult*>(data)->damage_rects; },
      .presentation_time = [](void*, ext_image_copy_capture_frame_v1*, uint32_t, uint32_t,
                              uint32_t) {},
      .ready =
          [](void* data, ext_image_copy_capture_frame_v1*) {
            static_cast<FrameResult*>(data)->ready = true;
          },
      .failed =
          [](void* data, ext_image_copy_capture_frame_v1*, uint32_t reason) {
            auto* r = static_cast<FrameResult*>(data);
            r->failed = true;
            r->reason = reason;
          }};
  ext_image_copy_capture_frame_v1_add_listener(frame, &listener, &result);
  ext_image_copy_capture_frame_v1_attach_buffer(frame, target.buffer);
  ext_image_copy_capture_frame_v1_damage_buffer(frame, 0, 0, target.width, target.height);
  ext_image_copy_capture_frame_v1_capture(frame);
  h.run_until([&] { return result.ready || result.failed; }, std::chrono::milliseconds(3000));
  ext_image_copy_capture_frame_v1_destroy(frame);
  return result;
}

/// On the pixman renderer (the harness's default) and on baton's Vulkan
/// renderer (lavapipe here), which the capture reads back differently.
Options capture_options(RendererChoice renderer) {
  Options options = headless_options();
  options.renderer = renderer;
  return options;
}

class Capture : public ::testing::TestWithParam<RendererChoice> {
 protected:
  Capture() : h(capture_options(GetParam())), c(h), globals(h, c.display()) {}
  Harness h;
  Client c;
  Globals globals;
};

TEST_P(Capture, OutputFrameIntoShmMatchesTheScreen) {
  Window window(c);
  View* view = map_window(h, window, kRed, 200, 150);
  ASSERT_NE(view, nullptr);
  CaptureSession session(h, c, globals, 0);
  ASSERT_NE(session.session, nullptr) << "ext-image-copy-capture is not advertised";
  ASSERT_TRUE(session.done);
  EXPECT_EQ(session.width, 640);
  EXPECT_EQ(session.height, 480);
  ASSERT_FALSE(session.shm_formats.empty());
  const uint32_t format = session.shm_formats.front();
  ASSERT_TRUE(format == WL_SHM_FORMAT_XRGB8888 || format == WL_SHM_FORMAT_ARGB8888)
      << "first offered shm format 0x" << std::hex << format;

  ShmTarget target(c.shm, session.width, session.height, format);
  FrameResult frame = capture_frame(h, session, target);
  ASSERT_TRUE(frame.ready) << "frame failed, reason " << frame.reason;
  EXPECT_GE(frame.damage_rects, 1);
  // Pixel for pixel what baton's own screenshot shows.
  Image shot = h.capture();
  long differing = 0;
  for (int y = 0; y < 480; ++y)
    for (int x = 0; x < 640; ++x) differing += target.at(x, y) != (shot.at(x, y) | 0xff000000u);
  EXPECT_EQ(differing, 0);
  // And that is the red window on the background, not an empty frame.
  EXPECT_EQ(target.at(view->x() + 100, view->y() + 75), kRed);
  EXPECT_NE(target.at(5, 5), kRed);
}

TEST_P(Capture, NextFrameWaitsForDamageAndShowsTheChange) {
  Window window(c);
  View* view = map_window(h, window, kRed, 200, 150);
  ASSERT_NE(view, nullptr);
  CaptureSession session(h, c, globals, 0);
  ASSERT_TRUE(session.done);
  ShmTarget target(c.shm, session.width, session.height, session.shm_formats.front());
  ASSERT_TRUE(capture_frame(h, session, target).ready);

  // Nothing changed: the second frame is held until something does.
  ext_image_copy_capture_frame_v1* frame =
      ext_image_copy_capture_session_v1_create_frame(session.session);
  FrameResult result;
  static const ext_image_copy_capture_frame_v1_listener listener = {
      .transform = [](void*, ext_image_copy_capture_frame_v1*, uint32_t) {},
      .damage = [](void*, ext_image_copy_capture_frame_v1*, int32_t, int32_t, int32_t, int32_t) {},
      .presentation_time = [](void*, ext_image_copy_capture_frame_v1*, uint32_t, uint32_t,
                              uint32_t) {},
      .ready =
          [](void* data, ext_image_copy_capture_frame_v1*) {
            static_cast<FrameResult*>(data)->ready = true;
          },
      .failed = [](void* data, ext_image_copy_capture_frame_v1*,
                   uint32_t) { static_cast<FrameResult*>(data)->failed = true; }};
  ext_image_copy_capture_frame_v1_add_listener(frame, &listener, &result);
  ext_image_copy_capture_frame_v1_attach_buffer(frame, target.buffer);
  ext_image_copy_capture_frame_v1_capture(frame);
  h.run_for(std::chrono::milliseconds(150));
  EXPECT_FALSE(result.ready) << "a frame came without any damage";
  // The window turns blue: the frame arrives and shows it.
  window.draw(200, 150, kBlue);
  ASSERT_TRUE(h.run_until([&] { return result.ready || result.failed; }));
  EXPECT_TRUE(result.ready);
  EXPECT_EQ(target.at(view->x() + 100, view->y() + 75), kBlue);
  ext_image_copy_capture_frame_v1_destroy(frame);
}

TEST_P(Capture, CursorIsPaintedOnlyWhenAsked) {
  VirtualPointer pointer(h, c);
  pointer.move_to(320, 240, 640, 480);
  h.sync();
  auto cursor_pixels = [&](uint32_t options) {
    CaptureSession session(h, c, globals, options);
    EXPECT_TRUE(session.done);
    ShmTarget target(c.shm, session.width, session.height, session.shm_formats.front());
    EXPECT_TRUE(capture_frame(h, session, target).ready);
    // The background is one flat colour; the cursor is whatever differs
    // from it near the pointer.
    const uint32_t background = target.at(600, 20);
    long count = 0;
    for (int y = 240; y < 272; ++y)
      for (int x = 320; x < 352; ++x) count += target.at(x, y) != background;
    return count;
  };
  // Without: the cursor is a hardware cursor, not part of the frame. (The
  // other order would not show it: wlroots keeps drawing a cursor in
  // software after a capture until it moves, expecting the next capture.)
  EXPECT_EQ(cursor_pixels(0), 0);
  EXPECT_GT(cursor_pixels(EXT_IMAGE_COPY_CAPTURE_MANAGER_V1_OPTIONS_PAINT_CURSORS), 20);
}

TEST_P(Capture, WrongBufferSizeFailsTheFrameNotTheClient) {
  CaptureSession session(h, c, globals, 0);
  ASSERT_TRUE(session.done);
  ShmTarget small(c.shm, 64, 64, session.shm_formats.front());
  FrameResult frame = capture_frame(h, session, small);
  EXPECT_TRUE(frame.failed);
  EXPECT_EQ(frame.reason, EXT_IMAGE_COPY_CAPTURE_FRAME_V1_FAILURE_REASON_BUFFER_CONSTRAINTS);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// What wlr-screencopy says about a region: the buffer it offers, or failed.
struct RegionFrame {
  bool failed = false;
  int width = 0, height = 0;
  [[nodiscard]] bool answered() const { return failed || width != 0; }
};

RegionFrame capture_region(Harness& h, zwlr_screencopy_manager_v1* manager, wl_output* output,
                           int32_t x, int32_t y, int32_t width, int32_t height) {
  RegionFrame result;
  zwlr_screencopy_frame_v1* frame =
      zwlr_screencopy_manager_v1_capture_output_region(manager, 0, output, x, y, width, height);
  static const zwlr_screencopy_frame_v1_listener listener = {
      .buffer =
          [](void* data, zwlr_screencopy_frame_v1*, uint32_t, uint32_t w, uint32_t h, uint32_t) {
            auto* r = static_cast<RegionFrame*>(data);
            r->width = static_cast<int>(w);
            r->height = static_cast<int>(h);
          },
      .flags = [](void*, zwlr_screencopy_frame_v1*, uint32_t) {},
      .ready = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t) {},
      .failed = [](void* data,
                   zwlr_screencopy_frame_v1*) { static_cast<RegionFrame*>(data)->failed = true; },
      .damage = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t, uint32_t) {},
      .linux_dmabuf = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t) {},
      .buffer_done = [](void*, zwlr_screencopy_frame_v1*) {},
  };
  zwlr_screencopy_frame_v1_add_listener(frame, &listener, &result);
  h.run_until([&] { return result.answered(); });
  zwlr_screencopy_frame_v1_destroy(frame);
  return result;
}

// A region is clipped to the output; one with no part on it, or with a
// negative or huge size, fails the frame (wlroots 0.19.2 computed the
// buffer from it as given: a signed overflow, found by the fuzzer).
TEST_P(Capture, ScreencopyRegionsAreClippedToTheOutput) {
  auto* manager = static_cast<zwlr_screencopy_manager_v1*>(
      globals.bind(&zwlr_screencopy_manager_v1_interface, 3));
  ASSERT_NE(manager, nullptr);
  RegionFrame inside = capture_region(h, manager, c.output, 10, 20, 100, 50);
  EXPECT_FALSE(inside.failed);
  EXPECT_EQ(inside.width, 100);
  EXPECT_EQ(inside.height, 50);
  // The harness's output is 640x480.
  RegionFrame across = capture_region(h, manager, c.output, 600, -30, 100, 100);
  EXPECT_FALSE(across.failed);
  EXPECT_EQ(across.width, 40);
  EXPECT_EQ(across.height, 70);
  EXPECT_TRUE(capture_region(h, manager, c.output, 700, 0, 10, 10).failed);
  EXPECT_TRUE(capture_region(h, manager, c.output, 0, 0, -1549556864, 10).failed);
  EXPECT_TRUE(capture_region(h, manager, c.output, 0, 0, 10, 0).failed);
  RegionFrame huge =
      capture_region(h, manager, c.output, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX);
  EXPECT_TRUE(huge.failed) << "a region ending at (-1, -1) is off the output";
  RegionFrame whole = capture_region(h, manager, c.output, -5, -5, INT32_MAX, INT32_MAX);
  EXPECT_EQ(whole.width, 640);
  EXPECT_EQ(whole.height, 480);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  zwlr_screencopy_manager_v1_destroy(manager);
}

// How a screencopy client gets its buffer refused by wl_resource_post_error.
enum class RefusedCopy { wrong_size, wrong_stride, wrong_format, second_copy };

// What wlr-screencopy offered for a frame of the whole output.
struct ScreencopyOffer {
  uint32_t format = 0, width = 0, height = 0, stride = 0;
  bool done = false;
};

constexpr const char* kRefusedTarget = "refused-screencopy-target";

// A client asks for a frame of the whole output and has it copied into a
// wl_shm buffer (on a memfd named kRefusedTarget) that baton must refuse
// with a protocol error; then the client is gone.
void refused_copy(Harness& h, RefusedCopy how) {
  wl_display* display = nullptr;
  {
    Client client(h);
    display = client.display();
    Globals globals(h, display);
    auto* manager = static_cast<zwlr_screencopy_manager_v1*>(
        globals.bind(&zwlr_screencopy_manager_v1_interface, 3));
    ASSERT_NE(manager, nullptr);
    ScreencopyOffer offer;
    zwlr_screencopy_frame_v1* frame =
        zwlr_screencopy_manager_v1_capture_output(manager, 0, client.output);
    static const zwlr_screencopy_frame_v1_listener listener = {
        .buffer =
            [](void* data, zwlr_screencopy_frame_v1*, uint32_t format, uint32_t w, uint32_t h,
               uint32_t stride) {
              *static_cast<ScreencopyOffer*>(data) = {format, w, h, stride};
            },
        .flags = [](void*, zwlr_screencopy_frame_v1*, uint32_t) {},
        .ready = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t) {},
        .failed = [](void*, zwlr_screencopy_frame_v1*) {},
        .damage = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t, uint32_t) {},
        .linux_dmabuf = [](void*, zwlr_screencopy_frame_v1*, uint32_t, uint32_t, uint32_t) {},
        .buffer_done =
            [](void* data, zwlr_screencopy_frame_v1*) {
              static_cast<ScreencopyOffer*>(data)->done = true;
            },
    };
    zwlr_screencopy_frame_v1_add_listener(frame, &listener, &offer);
    ASSERT_TRUE(h.run_until([&] { return offer.done; }));
    ASSERT_GT(offer.width, 2u);

    uint32_t format = offer.format, width = offer.width, stride = offer.stride;
    if (how == RefusedCopy::wrong_size) width /= 2;
    if (how == RefusedCopy::wrong_stride) stride += 4;
    if (how == RefusedCopy::wrong_format)
      format = format == WL_SHM_FORMAT_XRGB8888 ? WL_SHM_FORMAT_ARGB8888 : WL_SHM_FORMAT_XRGB8888;
    const int32_t size = static_cast<int32_t>(stride * offer.height);
    int fd = memfd_create(kRefusedTarget, MFD_CLOEXEC);
    ASSERT_EQ(ftruncate(fd, off_t{2} * size), 0);
    wl_shm_pool* pool = wl_shm_create_pool(client.shm, fd, 2 * size);
    close(fd);
    auto make_buffer = [&](int32_t offset) {
      return wl_shm_pool_create_buffer(pool, offset, static_cast<int32_t>(width),
                                       static_cast<int32_t>(offer.height),
                                       static_cast<int32_t>(stride), format);
    };
    wl_buffer* first = make_buffer(0);
    wl_buffer* second = make_buffer(size);
    wl_shm_pool_destroy(pool);
    zwlr_screencopy_frame_v1_copy(frame, first);
    // The first copy is a good one; the second into the same frame is not.
    if (how == RefusedCopy::second_copy) zwlr_screencopy_frame_v1_copy(frame, second);
    ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(display) != 0; }))
        << "baton took a buffer it must refuse";
    EXPECT_EQ(wl_display_get_error(display), EPROTO);
    wl_buffer_destroy(first);
    wl_buffer_destroy(second);
    zwlr_screencopy_frame_v1_destroy(frame);
    zwlr_screencopy_manager_v1_destroy(manager);
  }
  h.disconnect(display);  // the harness keeps connections until it ends
}

// Each fd and mapping of baton's (in this process) on the refused clients'
// memfds.
std::string held_refused_targets() {
  std::string held;
  for (const std::string& fd : open_fds())
    if (fd.find(kRefusedTarget) != std::string::npos) held += " fd " + fd;
  for (const std::string& file : mapped_files())
    if (file.find(kRefusedTarget) != std::string::npos) held += " mapping " + file;
  return held;
}

// wlroots 0.19.2 took a lock on the buffer of a screencopy copy before
// checking it, and its refusals did not drop it: the buffer, its pool, the
// pool's fd and mapping stayed in baton for good, one set for each refused
// copy, from any client (found by LeakSanitizer after a protocol fuzzer run).
// tools/sources/wlroots/0010-screencopy-unlock-refused-buffers.patch drops it.
TEST_P(Capture, RefusedScreencopyBuffersLeaveNothingBehind) {
  for (RefusedCopy how : {RefusedCopy::wrong_size, RefusedCopy::wrong_stride,
                          RefusedCopy::wrong_format, RefusedCopy::second_copy}) {
    SCOPED_TRACE(static_cast<int>(how));
    refused_copy(h, how);
    if (HasFatalFailure()) return;
  }
  std::string held;
  h.run_until([&] { return (held = held_refused_targets()).empty(); });
  EXPECT_EQ(held, "") << "baton still holds what refused screencopy clients sent";
  // The first client still works.
  h.sync();
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

INSTANTIATE_TEST_SUITE_P(Renderers, Capture,
                         ::testing::Values(RendererChoice::pixman, RendererChoice::vulkan),
                         [](const auto& info) {
                           return info.param == RendererChoice::pixman ? "pixman" : "vulkan";
                         });

// --- ext-data-control -------------------------------------------------------

struct DataDevice {
  DataDevice(Client& c, Globals& globals) {
    manager = static_cast<ext_data_control_manager_v1*>(
        globals.bind(&ext_data_control_manager_v1_interface, 1));
    if (manager == nullptr) return;
    device = ext_data_control_manager_v1_get_data_device(manager, c.seat);
    static const ext_data_control_device_v1_listener listener = {
        .data_offer =
            [](void* data, ext_data_control_device_v1*, ext_data_control_offer_v1* offer) {
              static const ext_data_control_offer_v1_listener offer_listener = {
                  [](void* d, ext_data_control_offer_v1*, const char* mime) {
                    static_cast<DataDevice*>(d)->mime_types.emplace_back(mime);
                  }};
              static_cast<DataDevice*>(data)->mime_types.clear();
              ext_data_control_offer_v1_add_listener(offer, &offer_listener, data);
            },
        .selection =
            [](void* data, ext_data_control_device_v1*, ext_data_control_offer_v1* offer) {
              auto* self = static_cast<DataDevice*>(data);
              if (self->selection != nullptr) ext_data_control_offer_v1_destroy(self->selection);
              self->selection = offer;
              ++self->selections;
            },
        .finished = [](void*, ext_data_control_device_v1*) {},
        .primary_selection =
            [](void*, ext_data_control_device_v1*, ext_data_control_offer_v1* offer) {
              if (offer != nullptr) ext_data_control_offer_v1_destroy(offer);
            }};
    ext_data_control_device_v1_add_listener(device, &listener, this);
  }
  ~DataDevice() {
    if (selection != nullptr) ext_data_control_offer_v1_destroy(selection);
    if (device != nullptr) ext_data_control_device_v1_destroy(device);
    if (manager != nullptr) ext_data_control_manager_v1_destroy(manager);
  }
  ext_data_control_manager_v1* manager = nullptr;
  ext_data_control_device_v1* device = nullptr;
  ext_data_control_offer_v1* selection = nullptr;
  int selections = 0;
  std::vector<std::string> mime_types;
};

TEST(DataControl, AClipboardManagerSetsAndReadsTheSelection) {
  Harness h;
  Client owner_client(h);
  Client reader_client(h);
  Globals owner_globals(h, owner_client.display());
  Globals reader_globals(h, reader_client.display());
  DataDevice owner(owner_client, owner_globals);
  DataDevice reader(reader_client, reader_globals);
  ASSERT_NE(owner.device, nullptr) << "ext-data-control is not advertised";
  h.sync();

  struct SourceState {
    std::string sent;
    bool cancelled = false;
  } state;
  ext_data_control_source_v1* source =
      ext_data_control_manager_v1_create_data_source(owner.manager);
  static const ext_data_control_source_v1_listener source_listener = {
      .send =
          [](void* data, ext_data_control_source_v1*, const char* mime, int32_t fd) {
            const std::string text = "from a clipboard manager";
            EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
            close(fd);
            static_cast<SourceState*>(data)->sent = mime;
          },
      .cancelled =
          [](void* data, ext_data_control_source_v1*) {
            static_cast<SourceState*>(data)->cancelled = true;
          }};
  ext_data_control_source_v1_add_listener(source, &source_listener, &state);
  ext_data_control_source_v1_offer(source, "text/plain;charset=utf-8");
  ext_data_control_device_v1_set_selection(owner.device, source);
  ASSERT_TRUE(h.run_until([&] { return reader.selection != nullptr; }));
  ASSERT_EQ(reader.mime_types, std::vector<std::string>{"text/plain;charset=utf-8"});
  // Reading it goes through baton to the owner and back.
  EXPECT_NE(h.server().seat().wlr()->selection_source, nullptr);
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC | O_NONBLOCK), 0);
  ext_data_control_offer_v1_receive(reader.selection, "text/plain;charset=utf-8", fds[1]);
  close(fds[1]);
  std::string text;
  ASSERT_TRUE(h.run_until([&] {
    char chunk[64];
    ssize_t n = read(fds[0], chunk, sizeof(chunk));
    if (n > 0) text.append(chunk, static_cast<size_t>(n));
    return n == 0;
  }));
  close(fds[0]);
  EXPECT_EQ(text, "from a clipboard manager");
  EXPECT_EQ(state.sent, "text/plain;charset=utf-8");

  // Another selection replaces it: the old source is cancelled.
  ext_data_control_source_v1* second =
      ext_data_control_manager_v1_create_data_source(reader.manager);
  ext_data_control_source_v1_offer(second, "text/plain");
  ext_data_control_device_v1_set_selection(reader.device, second);
  ASSERT_TRUE(h.run_until([&] { return state.cancelled; }));
  ext_data_control_source_v1_destroy(source);
  ext_data_control_source_v1_destroy(second);
}

}  // namespace
}  // namespace baton::test
