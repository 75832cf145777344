// tablet-v2 from a client's side: a pen (a synthetic tablet, the seat's own
// path) over a window whose client bound the tablet seat reaches it as a
// tablet tool: proximity, motion in the surface's coordinates, pressure,
// tilt, tip and buttons, and the window the tip went down on keeps the pen
// until it lifts. Over a client that did not bind tablet-v2 the pen is a
// mouse. A pad's buttons go to the window with the keyboard focus. Our own
// client, written from the XML (GTK 3 and 4 speak it).
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "tablet-v2-client-protocol.h"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/map_window.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

/// What a client's tablet seat heard, in order ("proximity_in", "down", ...).
struct Heard {
  std::vector<std::string> events;
  wl_surface* surface = nullptr;  // of the latest proximity_in or pad enter
  double x = 0, y = 0;            // the latest motion
  uint32_t pressure = 0;
  double tilt_x = 0, tilt_y = 0;
  uint32_t button = 0;
  int tablets = 0, tools = 0, pads = 0;
  // What the seat created for us: the test destroys them.
  std::vector<zwp_tablet_v2*> tablet_proxies;
  std::vector<zwp_tablet_tool_v2*> tool_proxies;
  std::vector<zwp_tablet_pad_v2*> pad_proxies;
};

const zwp_tablet_tool_v2_listener kTool = {
    .type = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
    .hardware_serial = [](void*, zwp_tablet_tool_v2*, uint32_t, uint32_t) {},
    .hardware_id_wacom = [](void*, zwp_tablet_tool_v2*, uint32_t, uint32_t) {},
    .capability = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
    .done = [](void*, zwp_tablet_tool_v2*) {},
    .removed = [](void*, zwp_tablet_tool_v2*) {},
    .proximity_in =
        [](void* d, zwp_tablet_tool_v2*, uint32_t, zwp_tablet_v2*, wl_surface* surface) {
          auto* h = static_cast<Heard*>(d);
          h->surface = surface;
          h->events.emplace_back("proximity_in");
        },
    .proximity_out =
        [](void* d, zwp_tablet_tool_v2*) {
          static_cast<Heard*>(d)->events.emplace_back("proximity_out");
        },
    .down = [](void* d, zwp_tablet_tool_v2*,
               uint32_t) { static_cast<Heard*>(d)->events.emplace_back("down"); },
    .up = [](void* d, zwp_tablet_tool_v2*) { static_cast<Heard*>(d)->events.emplace_back("up"); },
    .motion =
        [](void* d, zwp_tablet_tool_v2*, wl_fixed_t x, wl_fixed_t y) {
          auto* h = static_cast<Heard*>(d);
          h->x = wl_fixed_to_double(x);
          h->y = wl_fixed_to_double(y);
          if (h->events.empty() || h->events.back() != "motion") h->events.emplace_back("motion");
        },
    .pressure = [](void* d, zwp_tablet_tool_v2*,
                   uint32_t pressure) { static_cast<Heard*>(d)->pressure = pressure; },
    .distance = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
    .tilt =
        [](void* d, zwp_tablet_tool_v2*, wl_fixed_t x, wl_fixed_t y) {
          static_cast<Heard*>(d)->tilt_x = wl_fixed_to_double(x);
          static_cast<Heard*>(d)->tilt_y = wl_fixed_to_double(y);
        },
    .rotation = [](void*, zwp_tablet_tool_v2*, wl_fixed_t) {},
    .slider = [](void*, zwp_tablet_tool_v2*, int32_t) {},
    .wheel = [](void*, zwp_tablet_tool_v2*, wl_fixed_t, int32_t) {},
    .button =
        [](void* d, zwp_tablet_tool_v2*, uint32_t, uint32_t button, uint32_t state) {
          auto* h = static_cast<Heard*>(d);
          h->button = button;
          h->events.emplace_back(state == ZWP_TABLET_TOOL_V2_BUTTON_STATE_PRESSED ? "button down"
                                                                                  : "button up");
        },
    .frame = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
};

const zwp_tablet_pad_v2_listener kPad = {
    .group = [](void*, zwp_tablet_pad_v2*, zwp_tablet_pad_group_v2*) {},
    .path = [](void*, zwp_tablet_pad_v2*, const char*) {},
    .buttons = [](void*, zwp_tablet_pad_v2*, uint32_t) {},
    .done = [](void*, zwp_tablet_pad_v2*) {},
    .button =
        [](void* d, zwp_tablet_pad_v2*, uint32_t, uint32_t button, uint32_t state) {
          auto* h = static_cast<Heard*>(d);
          h->button = button;
          h->events.emplace_back(state == ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED ? "pad button down"
                                                                                 : "pad button up");
        },
    .enter =
        [](void* d, zwp_tablet_pad_v2*, uint32_t, zwp_tablet_v2*, wl_surface* surface) {
          auto* h = static_cast<Heard*>(d);
          h->surface = surface;
          h->events.emplace_back("pad enter");
        },
    .leave = [](void* d, zwp_tablet_pad_v2*, uint32_t,
                wl_surface*) { static_cast<Heard*>(d)->events.emplace_back("pad leave"); },
    .removed = [](void*, zwp_tablet_pad_v2*) {},
};

const zwp_tablet_seat_v2_listener kSeat = {
    .tablet_added =
        [](void* d, zwp_tablet_seat_v2*, zwp_tablet_v2* tablet) {
          ++static_cast<Heard*>(d)->tablets;
          static_cast<Heard*>(d)->tablet_proxies.push_back(tablet);
        },
    .tool_added =
        [](void* d, zwp_tablet_seat_v2*, zwp_tablet_tool_v2* tool) {
          ++static_cast<Heard*>(d)->tools;
          static_cast<Heard*>(d)->tool_proxies.push_back(tool);
          zwp_tablet_tool_v2_add_listener(tool, &kTool, d);
        },
    .pad_added =
        [](void* d, zwp_tablet_seat_v2*, zwp_tablet_pad_v2* pad) {
          ++static_cast<Heard*>(d)->pads;
          static_cast<Heard*>(d)->pad_proxies.push_back(pad);
          zwp_tablet_pad_v2_add_listener(pad, &kPad, d);
        },
};

/// A client's tablet seat, and the tablets, tools and pads it announced.
struct TabletSeat {
  TabletSeat(Harness& h, Client& c) {
    Globals globals(h, c.display());
    manager =
        static_cast<zwp_tablet_manager_v2*>(globals.bind(&zwp_tablet_manager_v2_interface, 1));
    if (manager == nullptr) return;
    seat = zwp_tablet_manager_v2_get_tablet_seat(manager, c.seat);
    zwp_tablet_seat_v2_add_listener(seat, &kSeat, &heard);
    h.sync();
  }
  ~TabletSeat() {
    for (zwp_tablet_v2* t : heard.tablet_proxies) zwp_tablet_v2_destroy(t);
    for (zwp_tablet_tool_v2* t : heard.tool_proxies) zwp_tablet_tool_v2_destroy(t);
    for (zwp_tablet_pad_v2* p : heard.pad_proxies) zwp_tablet_pad_v2_destroy(p);
    if (seat != nullptr) zwp_tablet_seat_v2_destroy(seat);
    if (manager != nullptr) zwp_tablet_manager_v2_destroy(manager);
  }
  TabletSeat(const TabletSeat&) = delete;
  TabletSeat& operator=(const TabletSeat&) = delete;
  zwp_tablet_manager_v2* manager = nullptr;
  zwp_tablet_seat_v2* seat = nullptr;
  Heard heard;
};

// The tablet covers the 640x480 layout: 0..1 from layout coordinates.
double fx(double lx) { return lx / 640.0; }
double fy(double ly) { return ly / 480.0; }

TEST(Tablet, APenOverATabletClientIsATabletTool) {
  Harness h;
  Client c(h);
  Window w(c);
  View* view = map_window(h, w, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  TabletSeat seat(h, c);
  ASSERT_NE(seat.manager, nullptr) << "zwp_tablet_manager_v2 is not advertised";
  FakeTablet tablet(h.server());
  h.sync();
  EXPECT_EQ(seat.heard.tablets, 1) << "the tablet was not announced";

  const double cx = view->x() + 100;
  const double cy = view->y() + 75;
  tablet.proximity(fx(cx), fy(cy), true);
  h.sync();
  EXPECT_EQ(seat.heard.tools, 1) << "the pen was not announced";
  ASSERT_EQ(seat.heard.surface, w.surface()) << "no proximity_in on the window under the pen";
  EXPECT_NEAR(seat.heard.x, 100, 1);
  EXPECT_NEAR(seat.heard.y, 75, 1);
  tablet.pressure(0.5);
  tablet.tilt(10, -20);
  tablet.tip(true);
  // Dragged off the window with the tip down: still the window's pen.
  tablet.move(fx(view->x() + 250), fy(cy));
  tablet.button(BTN_STYLUS, true);
  tablet.button(BTN_STYLUS, false);
  tablet.tip(false);
  tablet.proximity(fx(cx), fy(cy), false);
  h.sync();
  EXPECT_NEAR(seat.heard.pressure, 65535 / 2.0, 2) << "pressure is 0..65535";
  EXPECT_NEAR(seat.heard.tilt_x, 10, 0.01);
  EXPECT_NEAR(seat.heard.tilt_y, -20, 0.01);
  EXPECT_NEAR(seat.heard.x, 250, 1) << "the pen left the window it went down on";
  EXPECT_EQ(seat.heard.button, static_cast<uint32_t>(BTN_STYLUS));
  const std::vector<std::string> expected = {"proximity_in", "motion",    "down", "motion",
                                             "button down",  "button up", "up",   "proximity_out"};
  EXPECT_EQ(seat.heard.events, expected);
  EXPECT_TRUE(c.buttons.empty()) << "a pen over a tablet client also clicked the pointer";
}

TEST(Tablet, APenOverAClientWithoutTabletSupportIsAMouse) {
  Harness h;
  Client c(h);  // binds no tablet seat
  Window w(c);
  View* view = map_window(h, w, 0xff3050a0);
  ASSERT_NE(view, nullptr);
  FakeTablet tablet(h.server());
  h.sync();
  ASSERT_TRUE(c.seat_capabilities & WL_SEAT_CAPABILITY_POINTER)
      << "a seat with a tablet has no pointer for clients without tablet-v2";
  h.sync();  // the client binds its wl_pointer
  const double cx = view->x() + 40;
  const double cy = view->y() + 30;
  tablet.proximity(fx(cx), fy(cy), true);
  h.sync();
  ASSERT_EQ(c.pointer_focus, w.surface()) << "the pen did not move the pointer onto the window";
  EXPECT_NEAR(c.pointer_x, 40, 1);
  EXPECT_NEAR(c.pointer_y, 30, 1);
  tablet.tip(true);
  tablet.tip(false);
  tablet.button(BTN_STYLUS, true);
  tablet.button(BTN_STYLUS, false);
  h.sync();
  EXPECT_EQ(c.buttons, (std::vector<uint32_t>{BTN_LEFT, BTN_RIGHT}))
      << "the tip is the left button, the stylus button the right one";
}

TEST(Tablet, APadTalksToTheWindowWithTheKeyboardFocus) {
  Harness h;
  FakeKeyboard keyboard(h.server());
  Client a(h);
  Window wa(a);
  View* va = map_window(h, wa, 0xff3050a0);
  Client b(h);
  Window wb(b);
  ASSERT_NE(map_window(h, wb, 0xffa05030), nullptr);  // b has the focus
  ASSERT_NE(va, nullptr);
  TabletSeat seat_a(h, a);
  TabletSeat seat_b(h, b);
  FakeTablet tablet(h.server());
  FakeTabletPad pad(h.server());
  h.sync();
  EXPECT_EQ(seat_b.heard.pads, 1);
  ASSERT_EQ(seat_b.heard.surface, wb.surface()) << "the pad did not enter the focused window";
  pad.button(2, true);
  pad.button(2, false);
  h.sync();
  EXPECT_EQ(seat_b.heard.button, 2U);
  h.server().windows().focus(va);
  h.sync();
  ASSERT_EQ(seat_a.heard.surface, wa.surface()) << "the pad did not follow the keyboard focus";
  pad.button(1, true);
  pad.button(1, false);
  h.sync();
  const std::vector<std::string> a_heard = {"pad enter", "pad button down", "pad button up"};
  EXPECT_EQ(seat_a.heard.events, a_heard);
  const std::vector<std::string> b_heard = {"pad enter", "pad button down", "pad button up",
                                            "pad leave"};
  EXPECT_EQ(seat_b.heard.events, b_heard);
}

}  // namespace
}  // namespace baton::test
