// pointer-gestures-v1 from a client's side: a touchpad's swipe, pinch and
// hold (a synthetic touchpad, the seat's own path) reach the window under
// the pointer with what the touchpad said, stay its own until they end, and
// reach nobody when the pointer is over no window. The client is our own,
// written from the XML (GTK 3 and 4 speak it; Debian has no small client).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "pointer-gestures-unstable-v1-client-protocol.h"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

// What one client's gesture objects heard, in order ("swipe begin 3", ...).
struct Heard {
  std::vector<std::string> events;
  wl_surface* surface = nullptr;  // of the latest begin
  double dx = 0, dy = 0, scale = 0, rotation = 0;
};

const zwp_pointer_gesture_swipe_v1_listener kSwipe = {
    .begin =
        [](void* data, zwp_pointer_gesture_swipe_v1*, uint32_t, uint32_t, wl_surface* surface,
           uint32_t fingers) {
          auto* h = static_cast<Heard*>(data);
          h->surface = surface;
          h->events.push_back("swipe begin " + std::to_string(fingers));
        },
    .update =
        [](void* data, zwp_pointer_gesture_swipe_v1*, uint32_t, wl_fixed_t dx, wl_fixed_t dy) {
          auto* h = static_cast<Heard*>(data);
          h->dx += wl_fixed_to_double(dx);
          h->dy += wl_fixed_to_double(dy);
          h->events.emplace_back("swipe update");
        },
    .end =
        [](void* data, zwp_pointer_gesture_swipe_v1*, uint32_t, uint32_t, int32_t cancelled) {
          static_cast<Heard*>(data)->events.emplace_back(cancelled != 0 ? "swipe cancelled"
                                                                        : "swipe end");
        },
};
const zwp_pointer_gesture_pinch_v1_listener kPinch = {
    .begin =
        [](void* data, zwp_pointer_gesture_pinch_v1*, uint32_t, uint32_t, wl_surface* surface,
           uint32_t fingers) {
          auto* h = static_cast<Heard*>(data);
          h->surface = surface;
          h->events.push_back("pinch begin " + std::to_string(fingers));
        },
    .update =
        [](void* data, zwp_pointer_gesture_pinch_v1*, uint32_t, wl_fixed_t dx, wl_fixed_t dy,
           wl_fixed_t scale, wl_fixed_t rotation) {
          auto* h = static_cast<Heard*>(data);
          h->dx += wl_fixed_to_double(dx);
          h->dy += wl_fixed_to_double(dy);
          h->scale = wl_fixed_to_double(scale);
          h->rotation += wl_fixed_to_double(rotation);
          h->events.emplace_back("pinch update");
        },
    .end =
        [](void* data, zwp_pointer_gesture_pinch_v1*, uint32_t, uint32_t, int32_t cancelled) {
          static_cast<Heard*>(data)->events.emplace_back(cancelled != 0 ? "pinch cancelled"
                                                                        : "pinch end");
        },
};
const zwp_pointer_gesture_hold_v1_listener kHold = {
    .begin =
        [](void* data, zwp_pointer_gesture_hold_v1*, uint32_t, uint32_t, wl_surface* surface,
           uint32_t fingers) {
          auto* h = static_cast<Heard*>(data);
          h->surface = surface;
          h->events.push_back("hold begin " + std::to_string(fingers));
        },
    .end =
        [](void* data, zwp_pointer_gesture_hold_v1*, uint32_t, uint32_t, int32_t cancelled) {
          static_cast<Heard*>(data)->events.emplace_back(cancelled != 0 ? "hold cancelled"
                                                                        : "hold end");
        },
};

// A client with a window and all three gesture objects on its pointer.
struct GestureClient {
  explicit GestureClient(Harness& h) : c(h), globals(h, c.display()), window(c) {
    gestures =
        static_cast<zwp_pointer_gestures_v1*>(globals.bind(&zwp_pointer_gestures_v1_interface, 3));
    EXPECT_NE(gestures, nullptr) << "pointer-gestures is not advertised";
    EXPECT_TRUE(h.run_until([&] { return c.pointer != nullptr; }));
    if (gestures == nullptr || c.pointer == nullptr) return;
    swipe = zwp_pointer_gestures_v1_get_swipe_gesture(gestures, c.pointer);
    pinch = zwp_pointer_gestures_v1_get_pinch_gesture(gestures, c.pointer);
    hold = zwp_pointer_gestures_v1_get_hold_gesture(gestures, c.pointer);
    zwp_pointer_gesture_swipe_v1_add_listener(swipe, &kSwipe, &heard);
    zwp_pointer_gesture_pinch_v1_add_listener(pinch, &kPinch, &heard);
    zwp_pointer_gesture_hold_v1_add_listener(hold, &kHold, &heard);
  }
  ~GestureClient() {
    if (swipe != nullptr) zwp_pointer_gesture_swipe_v1_destroy(swipe);
    if (pinch != nullptr) zwp_pointer_gesture_pinch_v1_destroy(pinch);
    if (hold != nullptr) zwp_pointer_gesture_hold_v1_destroy(hold);
    if (gestures != nullptr) zwp_pointer_gestures_v1_destroy(gestures);
  }
  GestureClient(const GestureClient&) = delete;
  GestureClient& operator=(const GestureClient&) = delete;

  Client c;
  Globals globals;
  Window window;
  zwp_pointer_gestures_v1* gestures = nullptr;
  zwp_pointer_gesture_swipe_v1* swipe = nullptr;
  zwp_pointer_gesture_pinch_v1* pinch = nullptr;
  zwp_pointer_gesture_hold_v1* hold = nullptr;
  Heard heard;
};

class PointerGestures : public ::testing::Test {
 protected:
  PointerGestures() : touchpad(h.server()), a(h), b(h) {}
  // Maps `g`'s window (200x150) and returns its view: the one that was not
  // mapped before.
  View* map(GestureClient& g, uint32_t argb) {
    std::vector<const View*> before;
    for (const auto& v : h.server().windows().views())
      if (v->mapped()) before.push_back(v.get());
    g.window.initial_commit();
    EXPECT_TRUE(h.run_until([&] { return g.window.configure_count() == 1; }));
    g.window.draw(200, 150, argb);
    View* found = nullptr;
    EXPECT_TRUE(h.run_until([&] {
      for (const auto& v : h.server().windows().views())
        if (v->mapped() && std::find(before.begin(), before.end(), v.get()) == before.end())
          found = v.get();
      return found != nullptr;
    }));
    return found;
  }

  Harness h;
  FakePointer touchpad;
  GestureClient a, b;
};

TEST_F(PointerGestures, SwipePinchAndHoldReachTheWindowUnderThePointerOnly) {
  View* va = map(a, 0xffff0000);
  View* vb = map(b, 0xff0000ff);
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  const Rect fa = va->frame();
  touchpad.move_to(fa.x + fa.width / 2.0, fa.y + fa.height / 2.0);
  ASSERT_TRUE(h.run_until([&] { return a.c.pointer_focus == a.window.surface(); }))
      << "a's window is not under the pointer";

  touchpad.swipe_begin(3);
  touchpad.swipe_update(3, 12, -4);
  touchpad.swipe_update(3, 8, -6);
  touchpad.swipe_end(false);
  touchpad.pinch_begin(2);
  touchpad.pinch_update(2, 1, 2, 1.5, 10);
  touchpad.pinch_end(true);
  touchpad.hold_begin(4);
  touchpad.hold_end(false);
  h.sync();
  const std::vector<std::string> want = {"swipe begin 3",   "swipe update",  "swipe update",
                                         "swipe end",       "pinch begin 2", "pinch update",
                                         "pinch cancelled", "hold begin 4",  "hold end"};
  EXPECT_EQ(a.heard.events, want);
  EXPECT_EQ(a.heard.surface, a.window.surface());
  EXPECT_DOUBLE_EQ(a.heard.dx, 21);  // 12 + 8 + the pinch's 1
  EXPECT_DOUBLE_EQ(a.heard.dy, -8);  // -4 - 6 + 2
  EXPECT_DOUBLE_EQ(a.heard.scale, 1.5);
  EXPECT_DOUBLE_EQ(a.heard.rotation, 10);
  EXPECT_TRUE(b.heard.events.empty()) << "another client's window heard the gestures";

  // Over b's window, the next gesture is b's alone.
  const Rect fb = vb->frame();
  touchpad.move_to(fb.x + fb.width / 2.0, fb.y + fb.height / 2.0);
  ASSERT_TRUE(h.run_until([&] { return b.c.pointer_focus == b.window.surface(); }));
  touchpad.hold_begin(2);
  touchpad.hold_end(false);
  EXPECT_TRUE(h.run_until([&] { return b.heard.events.size() == 2; }));
  EXPECT_EQ(b.heard.events, (std::vector<std::string>{"hold begin 2", "hold end"}));
  EXPECT_EQ(a.heard.events.size(), want.size());
}

// The pointer over the background: a gesture reaches nobody, and nothing
// breaks (the next one over a window arrives whole).
TEST_F(PointerGestures, AGestureOverNoWindowReachesNobody) {
  View* va = map(a, 0xffff0000);
  ASSERT_NE(va, nullptr);
  const Rect fa = va->frame();
  touchpad.move_to(fa.x + fa.width + 40 < 640 ? fa.x + fa.width + 40 : 2, 2);
  ASSERT_TRUE(h.run_until([&] { return a.c.pointer_focus == nullptr; }));
  touchpad.swipe_begin(3);
  touchpad.swipe_update(3, 5, 5);
  touchpad.swipe_end(false);
  h.sync();
  EXPECT_TRUE(a.heard.events.empty());
  touchpad.move_to(fa.x + fa.width / 2.0, fa.y + fa.height / 2.0);
  ASSERT_TRUE(h.run_until([&] { return a.c.pointer_focus == a.window.surface(); }));
  touchpad.hold_begin(2);
  touchpad.hold_end(true);
  h.sync();
  EXPECT_EQ(a.heard.events, (std::vector<std::string>{"hold begin 2", "hold cancelled"}));
}

}  // namespace
}  // namespace baton::test
