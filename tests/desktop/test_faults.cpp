// Fault-matrix cells a client causes on its own, no guest needed: each ends
// with baton running and another client's window mapped. (The cells that
// need a kernel, a GPU or a seat are guest tests: tests/vm/.)
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "viewporter-client-protocol.h"

namespace baton::test {
namespace {

/// A new client still gets a window on screen: baton serves and draws.
void another_client_still_maps(Harness& h) {
  Client other(h);
  Window window(other);
  EXPECT_NE(map_window(h, window, 0xff00ff00), nullptr) << "baton stopped serving new clients";
}

/// How many clients baton has connected.
int connected_clients(Harness& h) {
  int count = 0;
  wl_client* client = nullptr;
  wl_client_for_each(client, wl_display_get_client_list(h.server().display()))++ count;
  return count;
}

// The client shrinks the file behind its shm pool after baton took the
// buffer. Reading the lost pages raises SIGBUS in baton's process; wlroots'
// shm maps zeros there instead for that buffer. baton must live on.
TEST(Faults, ShmPoolTruncatedUnderAnAttachedBuffer) {
  Harness h;
  Client client(h);
  Window window(client);
  ASSERT_NE(map_window(h, window, 0xff0000ff), nullptr);

  constexpr int kWidth = 200, kHeight = 150;
  constexpr size_t kSize = size_t{kWidth} * kHeight * 4;
  int fd = memfd_create("baton-test-truncated", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, kSize), 0);
  void* pixels = mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(pixels, MAP_FAILED);
  std::memset(pixels, 0xff, kSize);
  munmap(pixels, kSize);
  wl_shm_pool* pool = wl_shm_create_pool(client.shm, fd, static_cast<int32_t>(kSize));
  wl_buffer* buffer =
      wl_shm_pool_create_buffer(pool, 0, kWidth, kHeight, kWidth * 4, WL_SHM_FORMAT_ARGB8888);
  wl_shm_pool_destroy(pool);
  auto show = [&] {
    wl_surface_attach(window.surface(), buffer, 0, 0);
    wl_surface_damage_buffer(window.surface(), 0, 0, kWidth, kHeight);
    wl_surface_commit(window.surface());
    h.run_for(std::chrono::milliseconds(100));
    (void)h.capture();  // a frame that reads the buffer, whatever it shows
  };
  show();
  ASSERT_EQ(ftruncate(fd, 0), 0);
  show();  // baton reads the pages that are gone
  show();

  another_client_still_maps(h);
  wl_buffer_destroy(buffer);
  close(fd);
}

// A buffer bigger than the pool it lives in: a protocol error for that
// client (wl_shm's invalid_stride, on the pool), and nothing for anyone else.
TEST(Faults, AShmBufferBiggerThanItsPoolIsAProtocolError) {
  Harness h;
  Client bystander(h);
  Window steady(bystander);
  ASSERT_NE(map_window(h, steady, 0xff0000ff), nullptr);
  Client client(h);
  int fd = memfd_create("baton-test-small-pool", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 4096), 0);
  wl_shm_pool* pool = wl_shm_create_pool(client.shm, fd, 4096);
  close(fd);
  wl_buffer* buffer = wl_shm_pool_create_buffer(pool, 0, 200, 150, 800, WL_SHM_FORMAT_ARGB8888);
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(client.display()) != 0; }))
      << "a 200x150 buffer in a 4 KiB pool was accepted";
  const wl_interface* interface = nullptr;
  const uint32_t code = wl_display_get_protocol_error(client.display(), &interface, nullptr);
  ASSERT_NE(interface, nullptr);
  EXPECT_STREQ(interface->name, "wl_shm_pool");  // posted on the pool, with wl_shm's codes
  EXPECT_EQ(code, static_cast<uint32_t>(WL_SHM_ERROR_INVALID_STRIDE));
  wl_buffer_destroy(buffer);
  wl_shm_pool_destroy(pool);
  EXPECT_EQ(wl_display_get_error(bystander.display()), 0);
  another_client_still_maps(h);
}

// A virtual keyboard's keymap whose declared size runs past the end of the
// client's file (found by the protocol fuzzer: tests/fuzz/regressions/
// virtual-keyboard-keymap-past-its-file). wlroots 0.19.2 mapped the fd with
// that size and read it as a string: SIGBUS in baton. Now the keymap is
// refused (the client gets no_memory, as for any keymap baton cannot read)
// and baton lives on; a keymap of exactly one page with no NUL is read, not
// run past.
TEST(Faults, VirtualKeyboardKeymapPastItsFile) {
  Harness h;
  // A page of text in the file, no NUL: 64 KiB claimed (reading on into
  // the second page, past the file's end, is the SIGBUS), and a page claimed.
  for (uint32_t claimed : {65536u, 4096u}) {
    Client client(h);
    Globals globals(h, client.display());
    auto* manager = static_cast<zwp_virtual_keyboard_manager_v1*>(
        globals.bind(&zwp_virtual_keyboard_manager_v1_interface, 1));
    ASSERT_NE(manager, nullptr);
    zwp_virtual_keyboard_v1* keyboard =
        zwp_virtual_keyboard_manager_v1_create_virtual_keyboard(manager, client.seat);
    int fd = memfd_create("baton-test-short-keymap", MFD_CLOEXEC);
    ASSERT_GE(fd, 0);
    const std::string text(4096, 'x');
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    zwp_virtual_keyboard_v1_keymap(keyboard, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd, claimed);
    close(fd);
    h.run_until([&] { return wl_display_get_error(client.display()) != 0; });
    EXPECT_NE(wl_display_get_error(client.display()), 0)
        << "baton took a keymap it could not read (" << claimed << " bytes claimed)";
    zwp_virtual_keyboard_v1_destroy(keyboard);
    zwp_virtual_keyboard_manager_v1_destroy(manager);
  }
  another_client_still_maps(h);
}

// A virtual pointer (any unsandboxed client may make one) scrolling more
// detents than an int holds in wlroots' 1/120 units: 0.19.2 multiplied in
// int, a signed overflow (found by the protocol fuzzer under UBSan) that in
// practice wrapped, so a huge scroll down reached the window as a scroll up.
// The patch clamps it: the window sees a huge scroll down. And the seat
// added the next scroll to what was left of the last in int, so a second
// huge scroll overflowed there (found by the fuzzer again) and wrapped to a
// scroll up; that sum saturates now, so the second is a scroll down too.
TEST(Faults, VirtualPointerHugeDiscreteScroll) {
  Harness h;
  Client app(h);
  Window window(app);
  View* view = map_window(h, window, 0xff2060e0);
  ASSERT_NE(view, nullptr);
  VirtualPointer pointer(h, app);
  pointer.move_to(view->x() + 100, view->y() + 75, 640, 480);
  ASSERT_EQ(app.pointer_focus, window.surface());
  pointer.scroll(3);
  pointer.scroll(20000000);  // x120 is past INT32_MAX
  pointer.scroll(20000000);
  ASSERT_EQ(app.axis_discrete.size(), 3U);
  EXPECT_EQ(app.axis_discrete[0], 3);
  EXPECT_GT(app.axis_discrete[1], 3) << "a huge scroll down arrived as " << app.axis_discrete[1];
  EXPECT_GT(app.axis_discrete[2], 3)
      << "a second huge scroll down arrived as " << app.axis_discrete[2];
  another_client_still_maps(h);
}

// A virtual pointer may press a button it already holds. wlroots' seat
// counts presses per button, and 0.19.2 passed the second press on, so one
// release (or the one release the device sends for each held button when it
// goes) left the seat holding the button: the window never heard the
// release and kept the pointer (its implicit grab), and a drag started from
// the press never ended (found by the protocol fuzzer). The patch passes on
// a press only of a button the device does not hold.
TEST(Faults, AVirtualPointerPressingTwiceHoldsNoButtonForEver) {
  Harness h;
  Client app(h);
  Window window(app);
  View* view = map_window(h, window, 0xff2060e0);
  ASSERT_NE(view, nullptr);
  // A spot off the window, on the bare desktop.
  const int off_x = view->x() > 10 ? 5 : 635;
  ASSERT_TRUE(off_x < view->x() || off_x >= view->x() + 200);

  // The desktop's own mouse stays plugged in while the other device goes,
  // so the seat keeps its pointer.
  VirtualPointer mouse(h, app);
  auto pointer = std::make_unique<VirtualPointer>(h, app);
  pointer->move_to(view->x() + 100, view->y() + 75, 640, 480);
  ASSERT_EQ(app.pointer_focus, window.surface());
  pointer->button(BTN_LEFT, true);
  pointer->button(BTN_LEFT, true);
  pointer->button(BTN_LEFT, false);
  EXPECT_EQ(app.buttons.size(), 1U) << "the held button was pressed again";
  EXPECT_EQ(app.released_buttons.size(), 1U) << "the window never heard the button come up";
  pointer->move_to(off_x, 5, 640, 480);
  EXPECT_EQ(app.pointer_focus, nullptr) << "the window kept the pointer: the button is still held";

  // Held twice, then the device goes: its one release lets the button go.
  pointer->move_to(view->x() + 100, view->y() + 75, 640, 480);
  ASSERT_EQ(app.pointer_focus, window.surface());
  pointer->button(BTN_RIGHT, true);
  pointer->button(BTN_RIGHT, true);
  pointer.reset();
  h.sync();
  EXPECT_EQ(app.released_buttons.size(), 2U) << "the button stayed down after its device went";
  mouse.move_to(view->x() + 100, view->y() + 75, 640, 480);
  ASSERT_EQ(app.pointer_focus, window.surface());
  mouse.move_to(off_x, 5, 640, 480);
  EXPECT_EQ(app.pointer_focus, nullptr) << "the window kept the pointer after the device went";
  another_client_still_maps(h);
}

/// A protocol error: the interface's name and the code ("" and 0 for none).
using ProtocolError = std::pair<std::string, uint32_t>;

/// The protocol error `client` was sent once baton has answered its requests
/// so far.
ProtocolError error_after_roundtrip(Harness& h, Client& client) {
  // Answered after the requests, unless the error came first.
  bool answered = false;
  static const wl_callback_listener kDone = {
      .done = [](void* data, wl_callback*, uint32_t) { *static_cast<bool*>(data) = true; }};
  wl_callback* sync = wl_display_sync(client.display());
  wl_callback_add_listener(sync, &kDone, &answered);
  EXPECT_TRUE(h.run_until([&] { return answered || wl_display_get_error(client.display()) != 0; }));
  wl_callback_destroy(sync);
  const wl_interface* interface = nullptr;
  const uint32_t code = wl_display_get_protocol_error(client.display(), &interface, nullptr);
  return {interface != nullptr ? interface->name : "", code};
}

/// Sets `window`'s geometry and commits; true when baton raised the
/// xdg_surface's invalid_size error for it.
bool geometry_refused(Harness& h, Client& client, Window& window, int32_t x, int32_t y) {
  xdg_surface_set_window_geometry(window.xdg(), x, y, 10, 10);
  wl_surface_commit(window.surface());
  return error_after_roundtrip(h, client) ==
         ProtocolError("xdg_surface", XDG_SURFACE_ERROR_INVALID_SIZE);
}

// A window geometry far outside its surface: 0.19.2 took it as the window's
// geometry, and wlroots' scene negated its x, undefined for INT32_MIN (found
// by the protocol fuzzer under UBSan). The patch makes a box reaching past
// 2^30 pixels the client's invalid_size error; one ending on 2^30 is taken.
TEST(Faults, WindowGeometryPastTheIntRange) {
  Harness h;
  constexpr int32_t kLimit = 1 << 30;
  Client at_int_min(h), past_the_edge(h), on_the_edge(h);
  Window a(at_int_min), b(past_the_edge), c(on_the_edge);
  ASSERT_NE(map_window(h, a, 0xff0000ff), nullptr);
  ASSERT_NE(map_window(h, b, 0xff00ff00), nullptr);
  ASSERT_NE(map_window(h, c, 0xffff0000), nullptr);
  EXPECT_TRUE(geometry_refused(h, at_int_min, a, INT32_MIN, 0)) << "x = INT32_MIN was taken";
  EXPECT_TRUE(geometry_refused(h, past_the_edge, b, 0, kLimit - 9))
      << "a box ending one pixel past 2^30 was taken";
  EXPECT_FALSE(geometry_refused(h, on_the_edge, c, -kLimit, kLimit - 10))
      << "a box inside the range was refused";
  EXPECT_EQ(wl_display_get_error(on_the_edge.display()), 0);
  another_client_still_maps(h);
}

// A cursor's hotspot is any int32, and wl_surface.offset moves it by any
// int32. wlroots 0.19.2 scaled it to output pixels in float and converted
// that to int, undefined at INT32_MAX (found by baton's protocol fuzzer
// under UBSan), and summed the offsets in int32, which overflowed. A hotspot
// is kept within 2^24 pixels: such a cursor is drawn far from the pointer,
// and a sane hotspot set afterwards draws it at the pointer again.
TEST(Faults, CursorHotspotPastTheIntRange) {
  constexpr uint32_t kMagenta = 0xffff00ff;
  Harness h;
  FakePointer pointer(h.server());
  Client c(h);
  Window w(c);
  View* v = map_window(h, w, 0xff0000ff);
  ASSERT_NE(v, nullptr);
  const int px = v->x() + 50;
  const int py = v->y() + 50;
  pointer.move_to(px, py);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == w.surface(); }));
  wl_surface* cursor = wl_compositor_create_surface(c.compositor);
  ShmBuffer image(c.shm, 16, 16, kMagenta);
  wl_surface_attach(cursor, image.get(), 0, 0);
  wl_surface_damage_buffer(cursor, 0, 0, 16, 16);
  wl_surface_commit(cursor);
  for (const int32_t at : {INT32_MAX, INT32_MIN}) {
    wl_pointer_set_cursor(c.pointer, c.pointer_enter_serial, cursor, at, at);
    h.sync();
    EXPECT_NE(h.capture().at(px, py), kMagenta) << "hotspot " << at << ": drawn at the pointer";
    // An offset that moves the hotspot further out (hotspot - offset).
    const int32_t further = at == INT32_MAX ? INT32_MIN : INT32_MAX;
    wl_surface_offset(cursor, further, further);
    wl_surface_commit(cursor);
    h.sync();
    EXPECT_NE(h.capture().at(px, py), kMagenta) << "offset " << further << ": drawn at the pointer";
  }
  wl_pointer_set_cursor(c.pointer, c.pointer_enter_serial, cursor, 0, 0);
  h.sync();
  EXPECT_EQ(h.capture().at(px, py), kMagenta) << "a sane hotspot did not bring the cursor back";

  // A cursor as wide as a viewport's destination may be (2^24 pixels; it
  // was any int32 before SurfaceTrees' bound): its size in output pixels
  // was converted from float the same way.
  Globals globals(h, c.display());
  auto* viewporter = static_cast<wp_viewporter*>(globals.bind(&wp_viewporter_interface, 1));
  ASSERT_NE(viewporter, nullptr);
  wp_viewport* viewport = wp_viewporter_get_viewport(viewporter, cursor);
  wp_viewport_set_destination(viewport, 1 << 24, 16);
  wl_surface_commit(cursor);
  h.sync();
  EXPECT_EQ(h.capture().at(px, py), kMagenta) << "the wide cursor is not drawn at the pointer";
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  wp_viewport_destroy(viewport);
  wp_viewporter_destroy(viewporter);
  wl_surface_destroy(cursor);
  another_client_still_maps(h);
}

// A client that sends requests but never reads its socket: the events it
// causes (two per wl_display.sync) fill the socket, then libwayland's buffer
// for that client. baton must neither block nor hold them without bound:
// libwayland-server disconnects the client once its buffer is full.
TEST(Faults, AClientThatNeverReadsIsDisconnectedNotBuffered) {
  Harness h;
  const int before = connected_clients(h);
  // Not through the harness: nothing ever reads this connection.
  wl_display* mute = wl_display_connect(h.server().socket_name().c_str());
  ASSERT_NE(mute, nullptr);
  h.run_for(std::chrono::milliseconds(20));
  ASSERT_EQ(connected_clients(h), before + 1);
  constexpr int kSyncs = 200000;  // 4.8 MB of events, far past any socket buffer
  int sent = 0;
  std::vector<wl_callback*> callbacks;  // destroyed before the display: no leak
  for (; sent < kSyncs && connected_clients(h) > before; ++sent) {
    callbacks.push_back(wl_display_sync(mute));
    if (sent % 64 == 63) {
      if (wl_display_flush(mute) < 0 && errno != EAGAIN) break;  // baton hung up
      h.server().dispatch(0);
    }
  }
  h.run_for(std::chrono::milliseconds(50));
  const bool cut_off = connected_clients(h) == before;
  EXPECT_TRUE(cut_off) << "baton still holds a client that read none of the events of " << sent
                       << " syncs";
  if (cut_off) std::printf("faults: the mute client was cut off after %d syncs\n", sent);
  for (wl_callback* callback : callbacks) wl_callback_destroy(callback);
  wl_display_disconnect(mute);
  another_client_still_maps(h);
}

// A viewport's destination and a subsurface's position are any int32 on the
// wire, and wlroots' scene adds sizes and positions down a surface tree in
// int: a window with a destination near INT32_MAX overflowed there (found by
// the protocol fuzzer under UBSan), a subsurface near INT32_MAX in the
// surface's extents. The patch bounds what a tree can span: a destination
// past 2^24 pixels is bad_value, a position past 2^23 pixels bad_surface,
// nesting past 16 levels bad_parent. Values on the bounds are taken.
class SurfaceTrees : public ::testing::Test {
 protected:
  /// A mapped window of `client` with a wl_subcompositor and a wp_viewporter.
  struct App {
    explicit App(Harness& h)
        : client(h),
          window(client),
          globals(h, client.display()),
          view(map_window(h, window, 0xff0000ff)) {
      subcompositor = static_cast<wl_subcompositor*>(globals.bind(&wl_subcompositor_interface, 1));
      viewporter = static_cast<wp_viewporter*>(globals.bind(&wp_viewporter_interface, 1));
    }
    App(const App&) = delete;
    App& operator=(const App&) = delete;
    ~App() {
      for (auto it = subsurfaces.rbegin(); it != subsurfaces.rend(); ++it)
        wl_subsurface_destroy(*it);
      for (wp_viewport* viewport : viewports) wp_viewport_destroy(viewport);
      for (auto it = surfaces.rbegin(); it != surfaces.rend(); ++it) wl_surface_destroy(*it);
      wp_viewporter_destroy(viewporter);
      wl_subcompositor_destroy(subcompositor);
    }
    /// A surface with no role yet.
    wl_surface* surface() {
      surfaces.push_back(wl_compositor_create_surface(client.compositor));
      return surfaces.back();
    }
    /// Makes `surface` a subsurface of `parent`.
    wl_subsurface* subsurface(wl_surface* surface, wl_surface* parent) {
      subsurfaces.push_back(wl_subcompositor_get_subsurface(subcompositor, surface, parent));
      return subsurfaces.back();
    }
    /// The window's wp_viewport.
    wp_viewport* viewport() {
      viewports.push_back(wp_viewporter_get_viewport(viewporter, window.surface()));
      return viewports.back();
    }
    /// A subsurface of `parent` at (x, y) showing a `size`-pixel square.
    wl_subsurface* child_of(wl_surface* parent, int32_t x, int32_t y, int size, uint32_t argb) {
      wl_surface* child = surface();
      wl_subsurface* made = subsurface(child, parent);
      wl_subsurface_set_position(made, x, y);
      buffers.push_back(std::make_unique<ShmBuffer>(client.shm, size, size, argb));
      wl_surface_attach(child, buffers.back()->get(), 0, 0);
      wl_surface_damage_buffer(child, 0, 0, size, size);
      return made;
    }
    /// Commits the subsurfaces, deepest first, then the window.
    void commit_all() {
      for (auto it = surfaces.rbegin(); it != surfaces.rend(); ++it) wl_surface_commit(*it);
      wl_surface_commit(window.surface());
    }
    Client client;
    Window window;
    Globals globals;
    View* view;
    wl_subcompositor* subcompositor = nullptr;
    wp_viewporter* viewporter = nullptr;
    std::vector<wl_surface*> surfaces;  // the subsurfaces' among them, in the order made
    std::vector<wl_subsurface*> subsurfaces;
    std::vector<wp_viewport*> viewports;
    std::vector<std::unique_ptr<ShmBuffer>> buffers;
  };
  Harness h;
  static constexpr uint32_t kMagenta = 0xffff00ff;
};

TEST_F(SurfaceTrees, AViewportDestinationPast2To24PixelsIsBadValue) {
  for (const int32_t width : {(1 << 24) + 1, INT32_MAX - 1}) {
    App app(h);
    ASSERT_NE(app.view, nullptr);
    wp_viewport_set_destination(app.viewport(), width, 16);
    wl_surface_commit(app.window.surface());
    EXPECT_EQ(error_after_roundtrip(h, app.client),
              ProtocolError("wp_viewport", WP_VIEWPORT_ERROR_BAD_VALUE))
        << "a destination " << width << " pixels wide was taken";
  }
  // On the bound: taken, and the window is drawn stretched over the output.
  App app(h);
  ASSERT_NE(app.view, nullptr);
  wp_viewport_set_destination(app.viewport(), 1 << 24, 1 << 24);
  wl_surface_commit(app.window.surface());
  EXPECT_EQ(error_after_roundtrip(h, app.client), ProtocolError("", 0));
  EXPECT_EQ(h.capture().at(320, 240), 0xff0000ffU)
      << "the window at its largest destination is not drawn over the output";
  another_client_still_maps(h);
}

TEST_F(SurfaceTrees, ASubsurfacePast2To23PixelsFromItsParentIsBadSurface) {
  for (const int32_t at : {(1 << 23) + 1, -(1 << 23) - 1, INT32_MAX - 10, INT32_MIN}) {
    App app(h);
    ASSERT_NE(app.view, nullptr);
    app.child_of(app.window.surface(), 0, at, 16, kMagenta);
    app.commit_all();
    EXPECT_EQ(error_after_roundtrip(h, app.client),
              ProtocolError("wl_subsurface", WL_SUBSURFACE_ERROR_BAD_SURFACE))
        << "a subsurface at y = " << at << " was taken";
  }
  App app(h);
  ASSERT_NE(app.view, nullptr);
  app.child_of(app.window.surface(), 1 << 23, -(1 << 23), 16, kMagenta);
  app.child_of(app.window.surface(), 10, 10, 16, kMagenta);
  // The window is its own surface: without a geometry it would span the
  // far subsurface too, and be placed by that.
  xdg_surface_set_window_geometry(app.window.xdg(), 0, 0, 200, 150);
  app.commit_all();
  EXPECT_EQ(error_after_roundtrip(h, app.client), ProtocolError("", 0));
  EXPECT_EQ(h.capture().at(app.view->x() + 12, app.view->y() + 12), kMagenta)
      << "a subsurface beside one on the bound is not drawn";
  another_client_still_maps(h);
}

TEST_F(SurfaceTrees, SubsurfacesNestSixteenLevelsDeepAndNoMore) {
  // Sixteen levels, each one pixel further: the deepest is drawn 16 pixels
  // in from the window's corner.
  App app(h);
  ASSERT_NE(app.view, nullptr);
  wl_surface* parent = app.window.surface();
  for (int level = 1; level <= 16; ++level) {
    app.child_of(parent, 1, 1, level == 16 ? 8 : 4, level == 16 ? kMagenta : 0xff00ff00);
    parent = app.surfaces.back();
  }
  app.commit_all();
  EXPECT_EQ(error_after_roundtrip(h, app.client), ProtocolError("", 0));
  EXPECT_EQ(h.capture().at(app.view->x() + 22, app.view->y() + 22), kMagenta)
      << "the sixteenth level is not drawn where its positions add up to";
  // A seventeenth is refused.
  app.subsurface(app.surface(), parent);
  EXPECT_EQ(error_after_roundtrip(h, app.client),
            ProtocolError("wl_subcompositor", WL_SUBCOMPOSITOR_ERROR_BAD_PARENT));

  // Joining two trees: a tree ten levels high put under a surface six
  // levels deep would make 17.
  App joined(h);
  ASSERT_NE(joined.view, nullptr);
  wl_surface* low = joined.window.surface();
  for (int level = 1; level <= 6; ++level) {
    joined.child_of(low, 1, 1, 4, 0xff00ff00);
    low = joined.surfaces.back();
  }
  wl_surface* top = joined.surface();
  wl_surface* branch = top;
  for (int level = 1; level <= 10; ++level) {
    joined.child_of(branch, 1, 1, 4, 0xff00ff00);
    branch = joined.surfaces.back();
  }
  EXPECT_EQ(error_after_roundtrip(h, joined.client), ProtocolError("", 0));
  joined.subsurface(top, low);
  EXPECT_EQ(error_after_roundtrip(h, joined.client),
            ProtocolError("wl_subcompositor", WL_SUBCOMPOSITOR_ERROR_BAD_PARENT))
      << "a tree of ten levels was taken under a surface six levels deep";
  another_client_still_maps(h);
}

// A popup lies up to 2^26 pixels from its parent, and wlroots adds the
// positions down a chain of popups in int (placing, unconstraining, the
// scene): 80 popups each 2^25 pixels further overflowed (UBSan). The patch
// makes a chain longer than 15 popups invalid_popup_parent.
TEST(Faults, APopupChainIsAtMostFifteenPopupsLong) {
  constexpr uint32_t kMagenta = 0xffff00ff;
  Harness h;
  Client c(h);
  Window w(c);
  View* v = map_window(h, w, 0xff0000ff);
  ASSERT_NE(v, nullptr);
  // Each popup 2 pixels right of and below its parent's corner.
  std::vector<xdg_positioner*> positioners;
  auto place = [&] {
    xdg_positioner* p = positioners.emplace_back(xdg_wm_base_create_positioner(c.wm_base));
    xdg_positioner_set_size(p, 10, 10);
    xdg_positioner_set_anchor_rect(p, 2, 2, 1, 1);
    xdg_positioner_set_anchor(p, XDG_POSITIONER_ANCHOR_TOP_LEFT);
    xdg_positioner_set_gravity(p, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
    return p;
  };
  std::vector<std::unique_ptr<Window>> chain;
  Window* parent = &w;
  for (int length = 1; length <= 15; ++length) {
    chain.push_back(std::make_unique<Window>(c, parent, place()));
    chain.back()->initial_commit();
    ASSERT_TRUE(h.run_until([&] { return chain.back()->configure_count() >= 1; }))
        << "popup " << length << " was not configured";
    chain.back()->draw(10, 10, length == 15 ? kMagenta : 0xff00ff00);
    parent = chain.back().get();
  }
  EXPECT_EQ(error_after_roundtrip(h, c), ProtocolError("", 0));
  EXPECT_EQ(h.capture().at(v->x() + 38, v->y() + 38), kMagenta)
      << "the fifteenth popup is not drawn where its positions add up to";
  Window sixteenth(c, parent, place());
  EXPECT_EQ(error_after_roundtrip(h, c),
            ProtocolError("xdg_wm_base", XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT));
  for (xdg_positioner* p : positioners) xdg_positioner_destroy(p);
  another_client_still_maps(h);
}

// A panel's margins are any int32 and its size any uint32. baton placed it
// within the int range, and the scene added its position and width in int:
// a panel anchored left with a margin near INT32_MAX overflowed (UBSan). A
// panel is now kept within 2^24 pixels of the origin: off every output, and
// the client is not at fault.
TEST(Faults, APanelWithMarginsAtTheIntLimitsStaysOffTheOutputs) {
  struct Far {
    uint32_t anchor;
    int32_t top, right, bottom, left;
    int x, y;  // on the 200x200 panel where it starts, on the 640x480 output
  };
  for (const Far far : {Far{ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT, 0, 0, 0, INT32_MAX - 100, 100, 240},
                        Far{ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT, 0, INT32_MIN, 0, 0, 540, 240},
                        Far{ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP, INT32_MAX, 0, 0, 0, 320, 100}}) {
    Harness h;
    Client c(h);
    Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP, far.anchor, 200, 0, 0xff00ff00);
    ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
    ASSERT_EQ(h.capture().at(far.x, far.y), 0xff00ff00U) << "the panel is not on screen at first";
    const int before = panel.configures;
    zwlr_layer_surface_v1_set_margin(panel.layer_surface(), far.top, far.right, far.bottom,
                                     far.left);
    wl_surface_commit(panel.surface());
    ASSERT_TRUE(h.run_until([&] { return panel.configures > before; }));
    EXPECT_EQ(error_after_roundtrip(h, c), ProtocolError("", 0));
    EXPECT_NE(h.capture().at(far.x, far.y), 0xff00ff00U)
        << "a panel anchored " << far.anchor << " with a margin at the int limit is still drawn";
    another_client_still_maps(h);
  }
}

}  // namespace
}  // namespace baton::test
