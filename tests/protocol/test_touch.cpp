// wl_touch from the clients' side, driven by a synthetic touchscreen through
// the seat's own path: each point goes to the surface it went down on, in
// that surface's coordinates, to its end; points on two windows go to each
// window's client at once; a point down on a window activates it; a point on
// no window reaches nobody; a cancel reaches the point's client; touch does
// not move the pointer's focus; a finger on a title bar drags the window.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "util/wlr.hpp"
#include "xdg-decoration-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

class TouchTest : public ::testing::Test {
 protected:
  TouchTest() : screen(h.server()), pointer(h.server()), a(h), b(h), wa(a), wb(b) {
    va = map(wa, 0xffff0000);
    vb = map(wb, 0xff0000ff);
    EXPECT_TRUE(h.run_until([&] { return a.touch != nullptr && b.touch != nullptr; }))
        << "the seat has no touch capability with a touchscreen";
  }
  // Maps `w` (200x150) and returns its view: the one not mapped before.
  View* map(Window& w, uint32_t argb) {
    std::vector<const View*> before;
    for (const auto& v : h.server().windows().views())
      if (v->mapped()) before.push_back(v.get());
    w.initial_commit();
    EXPECT_TRUE(h.run_until([&] { return w.configure_count() == 1; }));
    w.draw(200, 150, argb);
    View* found = nullptr;
    EXPECT_TRUE(h.run_until([&] {
      for (const auto& v : h.server().windows().views())
        if (v->mapped() && std::find(before.begin(), before.end(), v.get()) == before.end())
          found = v.get();
      return found != nullptr;
    }));
    return found;
  }
  // The client's touch events by kind, in order.
  static std::vector<std::string> kinds(const Client& c) {
    std::vector<std::string> out;
    for (const auto& e : c.touch_events) out.push_back(e.kind);
    return out;
  }
  // A spot inside `v`'s window, away from any other window.
  static void spot(const View* v, double& x, double& y) {
    const Rect f = v->frame();
    x = f.x + f.width - 10.0;
    y = f.y + f.height - 10.0;
  }

  Harness h;
  FakeTouch screen;
  FakePointer pointer;
  Client a, b;
  Window wa, wb;
  View* va = nullptr;
  View* vb = nullptr;
};

TEST_F(TouchTest, APointGoesToItsSurfaceInItsCoordinatesUntilItLifts) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  // Windows placed apart? The test needs a spot of a's that b does not cover.
  double x = 0;
  double y = 0;
  spot(va, x, y);
  wlr_surface* under = nullptr;
  double sx = 0;
  double sy = 0;
  h.server().windows().view_at(x, y, &under, &sx, &sy);
  ASSERT_EQ(under, va->surface()) << "b's window covers the spot on a's";
  h.server().windows().focus(vb);

  screen.down(7, x, y);
  screen.frame();
  screen.motion(7, x + 300, y + 200);  // dragged far off the window: still a's
  screen.frame();
  screen.up(7);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return kinds(a).size() == 6; }));
  EXPECT_EQ(kinds(a),
            (std::vector<std::string>{"down", "frame", "motion", "frame", "up", "frame"}));
  const Client::TouchEvent& down = a.touch_events[0];
  EXPECT_EQ(down.id, 7);
  EXPECT_EQ(down.surface, wa.surface());
  EXPECT_NEAR(down.x, sx, 0.01);
  EXPECT_NEAR(down.y, sy, 0.01);
  EXPECT_NEAR(a.touch_events[2].x, sx + 300, 0.01);
  EXPECT_NEAR(a.touch_events[2].y, sy + 200, 0.01);
  EXPECT_TRUE(b.touch_events.empty()) << "b heard a point that went down on a's window";
  EXPECT_TRUE(va->activated()) << "a touch on a window did not activate it";
  EXPECT_EQ(a.pointer_focus, nullptr) << "touch moved the pointer focus";
}

TEST_F(TouchTest, TwoPointsOnTwoWindowsGoToBothAtOnceAndACancelToItsClient) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  double ax = 0, ay = 0, bx = 0, by = 0;
  spot(va, ax, ay);
  spot(vb, bx, by);
  wlr_surface* under = nullptr;
  double sx = 0, sy = 0;
  h.server().windows().view_at(ax, ay, &under, &sx, &sy);
  ASSERT_EQ(under, va->surface());
  screen.down(1, ax, ay);
  screen.down(2, bx, by);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return !a.touch_events.empty() && !b.touch_events.empty(); }));
  EXPECT_EQ(a.touch_events[0].id, 1);
  EXPECT_EQ(b.touch_events[0].id, 2);
  EXPECT_EQ(b.touch_events[0].surface, wb.surface());
  screen.cancel(2);
  ASSERT_TRUE(h.run_until([&] { return kinds(b).back() == "cancel"; }));
  EXPECT_NE(kinds(a).back(), "cancel") << "a cancel of b's point reached a";
  screen.up(1);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return kinds(a).back() == "frame" && kinds(a).size() >= 4; }));
  const std::vector<std::string> heard = kinds(a);
  EXPECT_EQ(std::count(heard.begin(), heard.end(), std::string("up")), 1);
}

TEST_F(TouchTest, APointOnNoWindowReachesNobody) {
  ASSERT_TRUE(va != nullptr && vb != nullptr);
  // Find a spot on the background.
  double x = -1, y = -1;
  for (int gy = 5; gy < 480 && x < 0; gy += 10)
    for (int gx = 5; gx < 640 && x < 0; gx += 10) {
      wlr_surface* s = nullptr;
      double sx = 0, sy = 0;
      h.server().windows().view_at(gx, gy, &s, &sx, &sy);
      if (s == nullptr) x = gx, y = gy;
    }
  ASSERT_GE(x, 0) << "no background left to touch";
  screen.down(3, x, y);
  screen.motion(3, x + 5, y + 5);
  screen.up(3);
  screen.frame();
  h.sync();
  for (const auto& e : a.touch_events) EXPECT_NE(e.kind, "down");
  for (const auto& e : b.touch_events) EXPECT_NE(e.kind, "down");
  const std::vector<std::string> heard = kinds(a);
  EXPECT_EQ(std::count(heard.begin(), heard.end(), std::string("motion")), 0);
}

// A finger down on the title bar baton draws drags the window to where it
// lifts; the client hears nothing of that point.
TEST_F(TouchTest, AFingerOnTheTitleBarDragsTheWindow) {
  Globals globals(h, a.display());
  auto* decorations = static_cast<zxdg_decoration_manager_v1*>(
      globals.bind(&zxdg_decoration_manager_v1_interface, 1));
  ASSERT_NE(decorations, nullptr);
  Window wc(a);
  auto* deco = zxdg_decoration_manager_v1_get_toplevel_decoration(decorations, wc.toplevel());
  View* vc = map(wc, 0xff00ff00);
  ASSERT_NE(vc, nullptr);
  ASSERT_TRUE(h.run_until([&] { return vc->server_decorated(); }));
  const Rect f = vc->frame();
  const double x0 = f.x + 60, y0 = f.y - 10;  // on its title bar
  a.touch_events.clear();
  screen.down(4, x0, y0);
  screen.frame();
  screen.motion(4, x0 - 40, y0 + 33);
  screen.frame();
  screen.up(4);
  screen.frame();
  h.sync();
  EXPECT_EQ(vc->frame().x, f.x - 40);
  EXPECT_EQ(vc->frame().y, f.y + 33);
  for (const auto& e : a.touch_events) EXPECT_TRUE(e.kind == "frame") << e.kind;
  zxdg_toplevel_decoration_v1_destroy(deco);
  zxdg_decoration_manager_v1_destroy(decorations);
}

}  // namespace
}  // namespace baton::test
