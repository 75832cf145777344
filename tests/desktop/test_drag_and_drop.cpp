// Drag-and-drop between clients, from the clients' side: a drag started with
// the button or finger the client holds carries its data to the window it is
// dropped on, its icon follows the pointer above every window, and focus
// comes back when it ends. A start_drag with no such press, or while another
// drag runs, is refused: its source hears cancelled, and baton keeps nothing
// of it (a refused drag was leaked by wlroots 0.19.2; found by the protocol
// fuzzer). A source drags once: its reuse is the client's error. Nothing
// takes the seat from a running drag: a popup's grab is dismissed and a
// window's move refused, so the release still ends the drag. A lifted finger
// ends a drag as a released button does: it drops only where the drag was
// accepted; and a finger drags onto windows whose clients take no touch, as a
// pointer does. A finger's drag ends when its client goes with the finger
// still down.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <malloc.h>
#include <unistd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/input/seat.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/allocator_interface.h>
#endif

namespace baton::test {
namespace {

constexpr char kMime[] = "text/plain;charset=utf-8";
constexpr uint32_t kIconColour = 0xff00ff00;

/// Bytes this process holds on its heap now (baton and the test clients
/// share it): ASan's allocator when it is there, glibc's otherwise.
size_t heap_in_use() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  return mallinfo2().uordblks;
#endif
}

/// One client's wl_data_device and what it heard.
struct DataDevice {
  DataDevice(Client& client, Globals& globals) {
    manager =
        static_cast<wl_data_device_manager*>(globals.bind(&wl_data_device_manager_interface, 3));
    device = wl_data_device_manager_get_data_device(manager, client.seat);
    static const wl_data_device_listener listener = {
        .data_offer =
            [](void* d, wl_data_device*, wl_data_offer* offer) {
              auto* self = static_cast<DataDevice*>(d);
              self->offers.push_back(offer);
              static const wl_data_offer_listener offer_listener = {
                  .offer =
                      [](void* d, wl_data_offer*, const char* mime) {
                        static_cast<DataDevice*>(d)->mimes.emplace_back(mime);
                      },
                  .source_actions = [](void*, wl_data_offer*, uint32_t) {},
                  .action = [](void*, wl_data_offer*, uint32_t) {},
              };
              wl_data_offer_add_listener(offer, &offer_listener, self);
            },
        .enter =
            [](void* d, wl_data_device*, uint32_t serial, wl_surface* surface, wl_fixed_t,
               wl_fixed_t, wl_data_offer* offer) {
              auto* self = static_cast<DataDevice*>(d);
              ++self->enters;
              self->enter_serial = serial;
              self->entered = surface;
              self->offer = offer;
            },
        .leave = [](void* d, wl_data_device*) { ++static_cast<DataDevice*>(d)->leaves; },
        .motion = [](void* d, wl_data_device*, uint32_t, wl_fixed_t,
                     wl_fixed_t) { ++static_cast<DataDevice*>(d)->motions; },
        .drop = [](void* d, wl_data_device*) { ++static_cast<DataDevice*>(d)->drops; },
        .selection = [](void*, wl_data_device*, wl_data_offer*) {},
    };
    wl_data_device_add_listener(device, &listener, this);
  }
  ~DataDevice() {
    for (wl_data_offer* o : offers) wl_data_offer_destroy(o);
    wl_data_device_release(device);
    wl_data_device_manager_destroy(manager);
  }
  DataDevice(const DataDevice&) = delete;
  DataDevice& operator=(const DataDevice&) = delete;

  wl_data_device_manager* manager = nullptr;
  wl_data_device* device = nullptr;
  std::vector<wl_data_offer*> offers;
  std::vector<std::string> mimes;
  int enters = 0, leaves = 0, motions = 0, drops = 0;
  uint32_t enter_serial = 0;
  wl_surface* entered = nullptr;
  wl_data_offer* offer = nullptr;  // the one the latest enter carried
};

/// A wl_data_source offering kMime, answering send with `text`.
struct Source {
  Source(DataDevice& device, std::string text) : text(std::move(text)) {
    source = wl_data_device_manager_create_data_source(device.manager);
    wl_data_source_offer(source, kMime);
    wl_data_source_set_actions(
        source, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY | WL_DATA_DEVICE_MANAGER_DND_ACTION_MOVE);
    static const wl_data_source_listener listener = {
        .target =
            [](void* d, wl_data_source*, const char* mime) {
              static_cast<Source*>(d)->target = mime != nullptr ? mime : "";
            },
        .send =
            [](void* d, wl_data_source*, const char*, int32_t fd) {
              const std::string& text = static_cast<Source*>(d)->text;
              EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
              close(fd);
            },
        .cancelled = [](void* d, wl_data_source*) { static_cast<Source*>(d)->cancelled = true; },
        .dnd_drop_performed =
            [](void* d, wl_data_source*) { static_cast<Source*>(d)->drop_performed = true; },
        .dnd_finished = [](void* d, wl_data_source*) { static_cast<Source*>(d)->finished = true; },
        .action = [](void* d, wl_data_source*,
                     uint32_t action) { static_cast<Source*>(d)->action = action; },
    };
    wl_data_source_add_listener(source, &listener, this);
  }
  ~Source() { wl_data_source_destroy(source); }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  wl_data_source* source = nullptr;
  std::string text;
  std::string target;
  uint32_t action = 0;
  bool cancelled = false, drop_performed = false, finished = false;
};

/// A 48x48 surface of kIconColour, with the drag-icon role once start_drag
/// names it: larger than the cursor image drawn over its top left.
struct Icon {
  explicit Icon(Client& client)
      : surface(wl_compositor_create_surface(client.compositor)),
        buffer(client.shm, 48, 48, kIconColour) {}
  ~Icon() { wl_surface_destroy(surface); }
  Icon(const Icon&) = delete;
  Icon& operator=(const Icon&) = delete;
  void show() {
    wl_surface_attach(surface, buffer.get(), 0, 0);
    wl_surface_damage_buffer(surface, 0, 0, 48, 48);
    wl_surface_commit(surface);
  }
  wl_surface* surface;
  ShmBuffer buffer;
};

/// A 40x30 popup of `parent` that asks for a grab with `serial` before its
/// first commit, as a menu opened by a press does.
std::unique_ptr<Window> grabbing_popup(Client& client, Window& parent, uint32_t serial) {
  xdg_positioner* place = xdg_wm_base_create_positioner(client.wm_base);
  xdg_positioner_set_size(place, 40, 30);
  xdg_positioner_set_anchor_rect(place, 10, 10, 1, 1);
  auto popup = std::make_unique<Window>(client, &parent, place);
  xdg_positioner_destroy(place);
  xdg_popup_grab(popup->popup(), client.seat, serial);
  popup->initial_commit();
  return popup;
}

/// Two windows side by side on a 640x480 output, a pointer and a finger:
/// a drags, b receives.
class DragAndDropTest : public ::testing::Test {
 protected:
  DragAndDropTest()
      : pointer(h.server()),
        screen(h.server()),
        a(h),
        b(h),
        globals_a(h, a.display()),
        globals_b(h, b.display()),
        wa(a),
        wb(b),
        da(a, globals_a),
        db(b, globals_b) {
    va = map_window(h, wa, 0xffff0000);
    vb = map_window(h, wb, 0xff0000ff);
    if (va != nullptr && vb != nullptr) {
      // Apart, so that a spot of each is the other's never.
      va->move_to(20, 100);
      vb->move_to(360, 100);
      middle(va, ax, ay);
      middle(vb, bx, by);
    }
    h.sync();
  }
  // The pointer goes down on a's window: the press a drag starts from.
  [[nodiscard]] bool press_on_a() {
    pointer.move_to(ax, ay);
    pointer.press(BTN_LEFT, true);
    return h.run_until([&] { return a.button_serial != 0; });
  }
  /// a drags `source` from its press with `icon`; true once the drag's grab
  /// has taken the pointer from a's window.
  [[nodiscard]] bool a_drags(Source& source, Icon& icon) {
    wl_data_device_start_drag(da.device, source.source, wa.surface(), icon.surface,
                              a.button_serial);
    icon.show();
    return h.run_until([&] { return a.pointer_focus == nullptr; });
  }
  // b presses on its window and drags from it: the drag must be taken (no
  // earlier drag holds the seat), and the release ends it.
  void b_drags(const char* if_refused) {
    const uint32_t before = b.button_serial;
    pointer.move_to(bx, by);
    pointer.press(BTN_LEFT, true);
    ASSERT_TRUE(h.run_until([&] { return b.button_serial != before; })) << "b never got the press";
    Source from_b(db, "from b");
    wl_data_device_start_drag(db.device, from_b.source, wb.surface(), nullptr, b.button_serial);
    ASSERT_TRUE(h.run_until([&] { return b.pointer_focus == nullptr || from_b.cancelled; }));
    EXPECT_FALSE(from_b.cancelled) << "b's drag was refused: " << if_refused;
    pointer.press(BTN_LEFT, false);
    ASSERT_TRUE(h.run_until([&] { return from_b.cancelled; })) << "b's drag did not end";
  }
  // b accepts the offer of the drag over it, for kMime by copy: true once
  // `source` hears it.
  [[nodiscard]] bool b_accepts(Source& source) {
    wl_data_offer_accept(db.offer, db.enter_serial, kMime);
    wl_data_offer_set_actions(db.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY,
                              WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
    return h.run_until([&] { return source.target == kMime; });
  }
  // Finger `id` goes down on a's window, a drags `source` from there, and
  // the finger moves onto b's window: true once b hears the drag enter.
  [[nodiscard]] bool finger_drags_from_a_to_b(int32_t id, Source& source) {
    const uint32_t touched = a.touch_down_serial;
    const int entered = db.enters;
    screen.down(id, ax, ay);
    screen.frame();
    if (!h.run_until([&] { return a.touch_down_serial != touched; })) return false;
    wl_data_device_start_drag(da.device, source.source, wa.surface(), nullptr, a.touch_down_serial);
    h.sync();  // baton starts the drag before the finger moves
    screen.motion(id, bx, by);
    screen.frame();
    return h.run_until([&] { return db.enters == entered + 1; });
  }
  // The middle of a view's window, in the layout.
  static void middle(const View* v, double& x, double& y) {
    const Rect f = v->frame();
    x = f.x + f.width / 2.0;
    y = f.y + f.height / 2.0;
  }

  Harness h;
  FakePointer pointer;
  FakeTouch screen;
  Client a, b;
  Globals globals_a, globals_b;
  Window wa, wb;
  DataDevice da, db;
  View* va = nullptr;
  View* vb = nullptr;
  double ax = 0, ay = 0, bx = 0, by = 0;  // the middles of a's and b's windows
};

TEST_F(DragAndDropTest, ADropCarriesTheDataToTheWindowUnderThePointer) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(press_on_a()) << "a never got the press";

  Source source(da, "carried by baton");
  Icon icon(a);
  // The drag's grab takes the pointer from the window it started on.
  ASSERT_TRUE(a_drags(source, icon)) << "the drag did not start: a kept the pointer";
  EXPECT_FALSE(source.cancelled);

  pointer.move_to(bx, by);
  ASSERT_TRUE(h.run_until([&] { return db.enters == 1; })) << "b never heard the drag enter";
  EXPECT_EQ(db.entered, wb.surface());
  EXPECT_NE(db.offer, nullptr);
  EXPECT_NE(std::find(db.mimes.begin(), db.mimes.end(), kMime), db.mimes.end());
  EXPECT_EQ(b.pointer_focus, nullptr) << "b got wl_pointer.enter during the drag";
  wl_data_offer_accept(db.offer, db.enter_serial, kMime);
  wl_data_offer_set_actions(db.offer, WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY,
                            WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY);
  ASSERT_TRUE(h.run_until([&] {
    return source.target == kMime && source.action == WL_DATA_DEVICE_MANAGER_DND_ACTION_COPY;
  })) << "the source never heard b accept";

  // The icon is drawn at the pointer, above b's window.
  Image shot = h.capture();
  // Its right edge: the cursor image covers its top left corner.
  const int ix = static_cast<int>(bx) + 44;
  const int iy = static_cast<int>(by) + 44;
  EXPECT_EQ(shot.at(ix, iy), kIconColour) << "no drag icon at the pointer";
  EXPECT_EQ(shot.at(ix + 8, iy + 8), 0xff0000ffu) << "b's window is not under the icon";

  pointer.press(BTN_LEFT, false);
  ASSERT_TRUE(h.run_until([&] { return db.drops == 1 && source.drop_performed; }))
      << "the release did not drop on b";

  int pipes[2];
  ASSERT_EQ(pipe2(pipes, O_CLOEXEC | O_NONBLOCK), 0);  // read between pumps
  wl_data_offer_receive(db.offer, kMime, pipes[1]);
  close(pipes[1]);
  std::string received;
  ASSERT_TRUE(h.run_until([&] {
    char chunk[64];
    ssize_t n = 0;
    while ((n = read(pipes[0], chunk, sizeof chunk)) > 0) received.append(chunk, n);
    return n == 0;  // end of file: a wrote and closed
  })) << "the data never came through";
  close(pipes[0]);
  EXPECT_EQ(received, "carried by baton");
  wl_data_offer_finish(db.offer);
  ASSERT_TRUE(h.run_until([&] { return source.finished; })) << "a never heard dnd_finished";

  // The drag is over: its icon is gone and the pointer is b's again.
  ASSERT_TRUE(h.run_until([&] { return b.pointer_focus == wb.surface(); }))
      << "b did not get the pointer back after the drop";
  EXPECT_EQ(h.capture().at(ix, iy), 0xff0000ffu) << "the drag icon stayed after the drop";
}

// wl_surface.offset moves a drag icon by any int32 at each commit, and the
// scene added that to the pointer's position in int: INT32_MAX overflowed
// (UBSan). The icon stays within 2^24 pixels of the pointer, so moving it
// back by 2^24 brings it to the pointer again however far it was sent.
TEST_F(DragAndDropTest, ADragIconOffsetPastTheIntRangeStopsAt2To24Pixels) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(press_on_a()) << "a never got the press";
  Source source(da, "carried by baton");
  Icon icon(a);
  ASSERT_TRUE(a_drags(source, icon)) << "the drag did not start: a kept the pointer";
  pointer.move_to(bx, by);
  // The icon's right edge: the cursor image covers its top left corner.
  const int ix = static_cast<int>(bx) + 44;
  const int iy = static_cast<int>(by) + 44;
  ASSERT_EQ(h.capture().at(ix, iy), kIconColour) << "no drag icon at the pointer";
  for (int i = 0; i < 2; ++i) {
    wl_surface_offset(icon.surface, INT32_MAX, INT32_MAX);
    wl_surface_commit(icon.surface);
    h.sync();
    EXPECT_NE(h.capture().at(ix, iy), kIconColour) << "offset " << i << ": the icon did not move";
  }
  wl_surface_offset(icon.surface, -(1 << 24), -(1 << 24));
  wl_surface_commit(icon.surface);
  h.sync();
  EXPECT_EQ(h.capture().at(ix, iy), kIconColour) << "the icon did not come back by 2^24 pixels";
  pointer.move_to(ax, ay);
  h.sync();
  EXPECT_EQ(h.capture().at(static_cast<int>(ax) + 44, static_cast<int>(ay) + 44), kIconColour)
      << "the icon does not follow the pointer";
  EXPECT_EQ(wl_display_get_error(a.display()), 0);
}
TEST_F(DragAndDropTest, AFingerDragsToo) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(h.run_until([&] { return a.touch != nullptr; })) << "no touch capability";
  screen.down(3, ax, ay);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return a.touch_down_serial != 0; })) << "a never got the touch";

  Source source(da, "by finger");
  Icon icon(a);
  wl_data_device_start_drag(da.device, source.source, wa.surface(), icon.surface,
                            a.touch_down_serial);
  icon.show();
  h.sync();
  EXPECT_FALSE(source.cancelled) << "a finger's drag was refused";

  screen.motion(3, bx, by);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return db.enters == 1; })) << "b never heard the drag enter";
  EXPECT_EQ(db.entered, wb.surface());
  ASSERT_TRUE(b_accepts(source)) << "the source never heard b accept";
  EXPECT_EQ(h.capture().at(static_cast<int>(bx) + 44, static_cast<int>(by) + 44), kIconColour)
      << "no drag icon under the finger";

  screen.up(3);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return db.drops == 1 && source.drop_performed; }))
      << "lifting the finger did not drop on b";
}

TEST_F(DragAndDropTest, OneDragAtATime) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(press_on_a()) << "a never got the press";
  Source first(da, "first");
  wl_data_device_start_drag(da.device, first.source, wa.surface(), nullptr, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return a.pointer_focus == nullptr; })) << "the drag did not start";

  // The same press again, while the first drag runs: refused.
  Source second(da, "second");
  wl_data_device_start_drag(da.device, second.source, wa.surface(), nullptr, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return second.cancelled; }))
      << "a second drag during the first was not cancelled";
  EXPECT_FALSE(first.cancelled) << "refusing the second drag cancelled the first";

  // The first goes on.
  pointer.move_to(bx, by);
  ASSERT_TRUE(h.run_until([&] { return db.enters == 1; })) << "the first drag stopped";
  pointer.press(BTN_LEFT, false);
  // b accepted nothing: the drop is a cancel, and the seat is free again.
  ASSERT_TRUE(h.run_until([&] { return first.cancelled; }));
  ASSERT_TRUE(h.run_until([&] { return b.pointer_focus == wb.surface(); }));
}

// A start_drag with no press held (a made-up serial, or the serial of a
// press already released) is refused: the source hears cancelled, and
// baton's heap does not grow with such requests, with a source or without.
TEST_F(DragAndDropTest, RefusedDragsAreCancelledAndLeaveNothingBehind) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  pointer.move_to(ax, ay);
  pointer.click(BTN_LEFT);  // pressed and released: its serial holds nothing
  ASSERT_TRUE(h.run_until([&] { return a.button_serial != 0; }));
  const uint32_t released = a.button_serial;

  {
    Source stale(da, "stale");
    wl_data_device_start_drag(da.device, stale.source, wa.surface(), nullptr, released);
    ASSERT_TRUE(h.run_until([&] { return stale.cancelled; }))
        << "a drag from a released button was not cancelled";
    EXPECT_NE(a.pointer_focus, nullptr) << "a refused drag took the pointer";
  }

  Icon icon(a);
  auto refuse_many = [&](int count) {
    for (int i = 0; i < count; ++i) {
      Source source(da, "never");
      const bool with_source = (i % 2) == 0;
      wl_data_device_start_drag(da.device, with_source ? source.source : nullptr, wa.surface(),
                                icon.surface, released + 1000 + i);
      if (with_source) {
        ASSERT_TRUE(h.run_until([&] { return source.cancelled; })) << "request " << i;
      } else {
        h.sync();
      }
    }
  };
  refuse_many(200);  // warm-up: buffers, hash tables and the like grow once
  const size_t before = heap_in_use();
  constexpr int kRequests = 4000;
  refuse_many(kRequests);
  const size_t after = heap_in_use();
  const long growth = static_cast<long>(after) - static_cast<long>(before);
  std::printf("heap: %ld bytes more after %d refused drags\n", growth, kRequests);
  // A leaked wlr_drag is some 300 bytes: 4000 of them are over 1 MiB.
  EXPECT_LT(growth, 256 * 1024) << "refused drags are kept";
  EXPECT_NE(a.pointer_focus, nullptr);
}

// A source drags once. A drop ends a touch drag but leaves its source alive
// (it waits for the target's finish) and still the seat's drag source; a
// second start_drag from that source made wlroots 0.19.2 destroy the seat's
// drag source, its own, and free the new drag while starting it (heap use
// after free, found by the protocol fuzzer under ASan). The reuse is the
// client's used_source error; a fresh source drags again, and other clients
// go on.
TEST_F(DragAndDropTest, ASourceDragsOnce) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(h.run_until([&] { return a.touch != nullptr; })) << "no touch capability";
  auto touch_a = [&] {
    const uint32_t before = a.touch_down_serial;
    screen.down(1, ax, ay);
    screen.frame();
    return h.run_until([&] { return a.touch_down_serial != before; });
  };
  auto lift = [&] {
    screen.up(1);
    screen.frame();
    h.sync();
  };

  // Two drags, each from a fresh source: both are taken.
  {
    Source fresh(da, "fresh");
    ASSERT_TRUE(touch_a()) << "a never got the touch";
    wl_data_device_start_drag(da.device, fresh.source, wa.surface(), nullptr, a.touch_down_serial);
    h.sync();
    EXPECT_FALSE(fresh.cancelled) << "a drag from a fresh source was refused";
    lift();
  }
  Source source(da, "once");
  ASSERT_TRUE(touch_a());
  wl_data_device_start_drag(da.device, source.source, wa.surface(), nullptr, a.touch_down_serial);
  h.sync();
  ASSERT_FALSE(source.cancelled) << "the second drag was refused";
  // Dropped on b, which takes it.
  screen.motion(1, bx, by);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return db.enters == 1; })) << "b never heard the drag enter";
  ASSERT_TRUE(b_accepts(source)) << "the source never heard b accept";
  lift();
  ASSERT_TRUE(h.run_until([&] { return source.drop_performed; })) << "no drop on b";
  ASSERT_EQ(wl_display_get_error(a.display()), 0);
  ASSERT_FALSE(source.cancelled) << "the drop destroyed the source";

  // The same source again, while it is still the seat's drag source.
  ASSERT_TRUE(touch_a());
  wl_data_device_start_drag(da.device, source.source, wa.surface(), nullptr, a.touch_down_serial);
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(a.display()) != 0; }))
      << "a second drag from a used source was taken";
  const wl_interface* interface = nullptr;
  const uint32_t code = wl_display_get_protocol_error(a.display(), &interface, nullptr);
  ASSERT_NE(interface, nullptr);
  EXPECT_STREQ(interface->name, "wl_data_device");
  EXPECT_EQ(code, static_cast<uint32_t>(WL_DATA_DEVICE_ERROR_USED_SOURCE));
  lift();

  // b still drags.
  b_drags("a's error left the seat held");
}

// A lifted finger ends a drag as a released button does: over a window that
// accepted nothing, or over no window, nothing is dropped and the source hears
// cancelled. wlroots 0.19.2 dropped on the finger's last window whether it
// had accepted or not, and a finger moved off every window kept that window
// as the target. A finger that comes back to the window enters it again.
TEST_F(DragAndDropTest, AFingerDropsOnlyWhereTheDragWasAccepted) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(h.run_until([&] { return a.touch != nullptr; })) << "no touch capability";
  const double nowhere_x = 300;  // between the two windows and below them
  const double nowhere_y = 420;
  auto drag_to_b = [&](Source& source) { return finger_drags_from_a_to_b(4, source); };
  auto lift = [&] {
    screen.up(4);
    screen.frame();
  };
  auto seat_free = [&] { return h.server().seat().wlr()->drag == nullptr; };

  {  // b accepts nothing: the lift over b cancels.
    Source refused(da, "refused");
    ASSERT_TRUE(drag_to_b(refused)) << "b never heard the drag enter";
    lift();
    ASSERT_TRUE(h.run_until([&] { return refused.cancelled; }))
        << "a lift over a window that accepted nothing did not cancel";
    EXPECT_EQ(db.drops, 0) << "b got a drop it never accepted";
    EXPECT_FALSE(refused.drop_performed);
    EXPECT_TRUE(seat_free());
  }
  {  // b accepts, but the finger moves off every window: b hears leave, and
     // the lift there cancels.
    Source strayed(da, "strayed");
    ASSERT_TRUE(drag_to_b(strayed)) << "b never heard the drag enter";
    ASSERT_TRUE(b_accepts(strayed)) << "the source never heard b accept";
    const int left = db.leaves;
    screen.motion(4, nowhere_x, nowhere_y);
    screen.frame();
    ASSERT_TRUE(h.run_until([&] { return db.leaves == left + 1; }))
        << "the drag kept b as its target off every window";
    lift();
    ASSERT_TRUE(h.run_until([&] { return strayed.cancelled; }))
        << "a lift over no window did not cancel";
    EXPECT_EQ(db.drops, 0) << "b got a drop the finger made elsewhere";
    EXPECT_TRUE(seat_free());
  }
  {  // Off b and back: b is entered again, accepts, and gets the drop.
    Source returned(da, "returned");
    ASSERT_TRUE(drag_to_b(returned)) << "b never heard the drag enter";
    const int entered = db.enters;
    screen.motion(4, nowhere_x, nowhere_y);
    screen.frame();
    screen.motion(4, bx, by);
    screen.frame();
    ASSERT_TRUE(h.run_until([&] { return db.enters == entered + 1; }))
        << "the finger came back to b and b heard no enter";
    ASSERT_TRUE(b_accepts(returned)) << "the source never heard b accept";
    lift();
    ASSERT_TRUE(h.run_until([&] { return db.drops == 1 && returned.drop_performed; }))
        << "lifting the finger over b, which accepted, did not drop";
    EXPECT_FALSE(returned.cancelled);
  }
}

// A finger drags onto the window of a client that took no wl_touch (one that
// reads only the mouse), as a pointer drags onto it: a drop needs the
// client's wl_data_device, not its wl_touch. wlroots 0.19.2 gave a finger no
// focus on such a window, so a finger's drag never entered it.
TEST_F(DragAndDropTest, AFingerDragsOntoAWindowWhoseClientTakesNoTouch) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(h.run_until([&] { return a.touch != nullptr && b.touch != nullptr; }))
      << "no touch capability";
  wl_touch_release(b.touch);
  b.touch = nullptr;
  h.sync();
  Source source(da, "for the mouse's window");
  ASSERT_TRUE(finger_drags_from_a_to_b(5, source))
      << "the drag never entered the window of a client without wl_touch";
  ASSERT_TRUE(b_accepts(source)) << "the source never heard b accept";
  screen.up(5);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return db.drops == 1 && source.drop_performed; }))
      << "lifting the finger did not drop on b";
  EXPECT_TRUE(b.touch_events.empty()) << "b, which took no wl_touch, heard touch events";
}

// A finger the touchscreen cancels (its touch taken back, as when the device
// goes) ends its drag with no drop, and the source hears cancelled, as the
// protocol says of a drag that ends without one: a source told nothing waits
// for the drag's end for ever. The seat is free for the next drag.
TEST_F(DragAndDropTest, ACancelledFingerCancelsItsDrag) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(h.run_until([&] { return a.touch != nullptr; })) << "no touch capability";
  Source source(da, "cancelled");
  ASSERT_TRUE(finger_drags_from_a_to_b(6, source)) << "b never heard the drag enter";
  ASSERT_TRUE(b_accepts(source)) << "the source never heard b accept";

  screen.cancel(6);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return source.cancelled; }))
      << "the source never heard its drag end";
  EXPECT_EQ(db.drops, 0) << "a cancelled finger dropped";
  EXPECT_EQ(h.server().seat().wlr()->drag, nullptr) << "the drag outlived its finger";
  b_drags("the cancelled finger's drag still holds the seat");
}

// A popup that asks for a grab while a drag holds the seat is dismissed
// (popup_done): its grab would have taken the drag's place, the release would
// have gone to the popup, and a drag with no source had nothing else to end
// it. wlroots 0.19.2 kept such a drag for good, so every later start_drag was
// refused as "another drag in progress" and the drag leaked (found by the
// protocol fuzzer, whose LeakSanitizer saw the wlr_drag at its exit).
TEST_F(DragAndDropTest, APopupCannotGrabTheSeatFromADrag) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(press_on_a()) << "a never got the press";
  // A drag inside a: no source, no data for other clients.
  wl_data_device_start_drag(da.device, nullptr, wa.surface(), nullptr, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return a.pointer_focus == nullptr; })) << "the drag did not start";

  std::unique_ptr<Window> popup = grabbing_popup(a, wa, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return popup->popup_done; }))
      << "a popup took its grab in the middle of a drag";
  EXPECT_EQ(wl_display_get_error(a.display()), 0);

  // The release still ends the drag: a gets the pointer back.
  pointer.press(BTN_LEFT, false);
  ASSERT_TRUE(h.run_until([&] { return a.pointer_focus == wa.surface(); }))
      << "the drag did not end with the release";

  // And the seat is free for the next drag, b's.
  b_drags("the first drag is still held");

  // With no drag, a popup's grab is taken: it is configured, not dismissed.
  ASSERT_TRUE(press_on_a());
  std::unique_ptr<Window> menu = grabbing_popup(a, wa, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return menu->configure_count() == 1 || menu->popup_done; }));
  EXPECT_FALSE(menu->popup_done) << "a popup's grab was refused with no drag running";
  pointer.press(BTN_LEFT, false);
}

// A popup may ask for its grab again before it is mapped. wlroots linked it
// into the seat's popup grab once per request; when the popup went it was
// unlinked once, and the grab held on to the freed popup: the seat stayed in
// a dead popup's grab, and the next click outside a's surfaces read freed
// memory (found by the protocol fuzzer under ASan). The first grab stands and
// ends with the popup.
TEST_F(DragAndDropTest, APopupThatAsksTwiceForItsGrabLetsGoOfTheSeatWhenItGoes) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(press_on_a()) << "a never got the press";
  std::unique_ptr<Window> menu = grabbing_popup(a, wa, a.button_serial);
  xdg_popup_grab(menu->popup(), a.seat, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return menu->configure_count() == 1 || menu->popup_done; }));
  EXPECT_FALSE(menu->popup_done) << "the popup's grab was refused";
  EXPECT_EQ(wl_display_get_error(a.display()), 0);
  pointer.press(BTN_LEFT, false);
  h.sync();

  menu.reset();  // the popup goes, and its grab with it
  h.sync();
  const uint32_t before = b.button_serial;
  pointer.move_to(bx, by);
  pointer.press(BTN_LEFT, true);
  EXPECT_TRUE(h.run_until([&] {
    return b.pointer_focus == wb.surface() && b.button_serial != before;
  })) << "b did not get the pointer and the click: the gone popup's grab still held the seat";
  pointer.press(BTN_LEFT, false);
  h.sync();
}

// A window cannot start moving (or resizing) in the middle of a drag: the
// move's grab would swallow the release that ends the drag. Before baton
// checked, a drag with no source then held the seat for good (every later
// start_drag refused) and leaked.
TEST_F(DragAndDropTest, AWindowCannotMoveInTheMiddleOfADrag) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  ASSERT_TRUE(press_on_a()) << "a never got the press";
  wl_data_device_start_drag(da.device, nullptr, wa.surface(), nullptr, a.button_serial);
  ASSERT_TRUE(h.run_until([&] { return a.pointer_focus == nullptr; })) << "the drag did not start";
  const Rect before = va->frame();
  xdg_toplevel_move(wa.toplevel(), a.seat, a.button_serial);
  xdg_toplevel_resize(wa.toplevel(), a.seat, a.button_serial, XDG_TOPLEVEL_RESIZE_EDGE_RIGHT);
  h.sync();
  pointer.move_to(ax + 40, ay + 30);
  h.sync();
  auto unchanged = [&] {
    const Rect now = va->frame();
    return now.x == before.x && now.y == before.y && now.width == before.width &&
           now.height == before.height;
  };
  EXPECT_TRUE(unchanged()) << "a's window moved or resized during the drag";

  pointer.press(BTN_LEFT, false);
  ASSERT_TRUE(h.run_until([&] { return a.pointer_focus == wa.surface(); }))
      << "the drag did not end with the release";
  EXPECT_TRUE(unchanged());
}

// A finger's drag ends when the client that holds the finger goes away
// without lifting it, as a killed process does. wlroots drops a client's
// touch points with the client, so the lift never reached the drag: with no
// source to end it, the drag held the seat for good and every later drag was
// refused (found by the protocol fuzzer's check that no drag outlives its
// input). The same with a source, which goes with its client as the drag
// ends.
TEST_F(DragAndDropTest, AFingersDragEndsWhenItsClientGoes) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  for (const bool with_source : {false, true}) {
    SCOPED_TRACE(with_source ? "a drag with a source" : "a drag without a source");
    wl_display* gone = nullptr;
    {
      // A third client's window below a's and b's, touched and dragged from.
      Client c(h);
      Globals globals_c(h, c.display());
      Window wc(c);
      DataDevice dc(c, globals_c);
      Source source(dc, "gone");
      View* vc = map_window(h, wc, 0xff00ffff);
      ASSERT_NE(vc, nullptr);
      vc->move_to(220, 300);
      double cx = 0;
      double cy = 0;
      middle(vc, cx, cy);
      ASSERT_TRUE(h.run_until([&] { return c.touch != nullptr; })) << "no touch capability";
      screen.down(2, cx, cy);
      screen.frame();
      ASSERT_TRUE(h.run_until([&] { return c.touch_down_serial != 0; })) << "c never got the touch";
      wl_data_device_start_drag(dc.device, with_source ? source.source : nullptr, wc.surface(),
                                nullptr, c.touch_down_serial);
      h.sync();
      ASSERT_NE(h.server().seat().wlr()->drag, nullptr) << "c's drag did not start";
      gone = c.display();
      // Out of scope with no pump between: the destroy requests the objects
      // queue never reach baton, which sees only the connection close.
    }
    h.disconnect(gone);
    screen.up(2);  // the finger lifts after its client went
    screen.frame();
    h.sync();

    // The seat is free: b's drag is taken, and ends with its release.
    b_drags("the gone client's drag still holds the seat");
  }
}

}  // namespace
}  // namespace baton::test
