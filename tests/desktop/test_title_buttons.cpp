// Server-side title bars carry close and maximize buttons: drawn where a
// user looks for them (right end of the bar) and working when clicked with
// the pointer, as the client sees it (xdg_toplevel.close, a maximized
// configure).
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "compositor/desktop/decorations.hpp"
#include "compositor/desktop/view.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/process.hpp"
#include "xdg-decoration-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBar = 0xff4c7899;    // the default focused colour
constexpr uint32_t kClose = 0xffc03030;  // the close button's background
constexpr uint32_t kIcon = 0xffffffff;   // the default title colour
constexpr int kButton = Decoration::kButton;

class TitleButtons : public ::testing::Test {
 protected:
  TitleButtons() : c(h), globals(h, c.display()), window(c) {
    manager = static_cast<zxdg_decoration_manager_v1*>(
        globals.bind(&zxdg_decoration_manager_v1_interface, 1));
    decoration = zxdg_decoration_manager_v1_get_toplevel_decoration(manager, window.toplevel());
    view = map_window(h, window, kRed);
  }
  ~TitleButtons() override {
    zxdg_toplevel_decoration_v1_destroy(decoration);
    zxdg_decoration_manager_v1_destroy(manager);
  }
  /// Clicks layout point (x, y) with the left button.
  void click(VirtualPointer& pointer, int x, int y) {
    pointer.move_to(x, y, 640, 480);
    pointer.button(BTN_LEFT, true);
    pointer.button(BTN_LEFT, false);
  }
  void follow_configure() {
    window.draw(window.last_configure().width, window.last_configure().height, kRed);
    h.sync();
  }

  Harness h;
  Client c;
  Globals globals;
  Window window;
  zxdg_decoration_manager_v1* manager = nullptr;
  zxdg_toplevel_decoration_v1* decoration = nullptr;
  View* view = nullptr;
};

TEST_F(TitleButtons, AreDrawnAtTheRightEndOfTheBar) {
  ASSERT_TRUE(view->server_decorated());
  Rect f = view->frame();
  Image shot = h.capture();
  int top = f.y - kButton;
  Box close{f.x + f.width - kButton, top, f.x + f.width, f.y};
  Box maximize{f.x + f.width - 2 * kButton, top, f.x + f.width - kButton, f.y};
  // The close button: a red square with a light cross in it.
  EXPECT_GT(count_pixels(shot, kClose, close), kButton * kButton / 2);
  EXPECT_GT(count_pixels(shot, kIcon, close), 8);
  // The maximize button: a light square outline on the bar.
  EXPECT_GT(count_pixels(shot, kBar, maximize), kButton * kButton / 2);
  EXPECT_GT(count_pixels(shot, kIcon, maximize), 16);
  EXPECT_EQ(count_pixels(shot, kClose, maximize), 0);
  // Nothing of either on the rest of the bar (the window has no title).
  Box rest{f.x, top, f.x + f.width - 2 * kButton, f.y};
  EXPECT_EQ(count_pixels(shot, kBar, rest), (f.width - 2 * kButton) * kButton);
  auto golden = compare_to_golden(shot, "ssd-title-bar-buttons");
  EXPECT_TRUE(golden.ok) << golden.message;
}

TEST_F(TitleButtons, CloseButtonClosesTheWindow) {
  VirtualPointer pointer(h, c);
  Rect f = view->frame();
  click(pointer, f.x + f.width - kButton / 2, f.y - kButton / 2);
  EXPECT_TRUE(h.run_until([&] { return window.closed; }));
  EXPECT_TRUE(c.buttons.empty()) << "the click was the title bar's, not the client's";
}

TEST_F(TitleButtons, MaximizeButtonMaximizesAndRestores) {
  VirtualPointer pointer(h, c);
  Rect f = view->frame();
  click(pointer, f.x + f.width - kButton * 3 / 2, f.y - kButton / 2);
  ASSERT_TRUE(h.run_until([&] { return window.last_configure().width == 640; }));
  EXPECT_EQ(window.last_configure().height, 480 - Decoration::kTitleHeight);
  follow_configure();
  EXPECT_TRUE(view->maximized());
  Rect max = view->frame();
  EXPECT_EQ(max.y, Decoration::kTitleHeight) << "the bar stays on screen";
  // The button moved with the bar to the screen's top right.
  click(pointer, 640 - kButton * 3 / 2, kButton / 2);
  ASSERT_TRUE(h.run_until([&] { return window.last_configure().width == 200; }));
  follow_configure();
  EXPECT_FALSE(view->maximized());
  EXPECT_EQ(view->frame().x, f.x);
  EXPECT_EQ(view->frame().y, f.y);
  EXPECT_FALSE(window.closed);
}

TEST_F(TitleButtons, AClickThatLeavesTheButtonBeforeReleaseDoesNothing) {
  VirtualPointer pointer(h, c);
  Rect f = view->frame();
  pointer.move_to(f.x + f.width - kButton / 2, f.y - kButton / 2, 640, 480);
  pointer.button(BTN_LEFT, true);
  pointer.move_to(f.x + 20, f.y + 20, 640, 480);
  pointer.button(BTN_LEFT, false);
  h.sync();
  EXPECT_FALSE(window.closed);
  EXPECT_EQ(view->frame().x, f.x) << "nor does it drag the window";
  // The pointer works as before: a click in the window reaches the client.
  pointer.button(BTN_LEFT, true);
  pointer.button(BTN_LEFT, false);
  EXPECT_TRUE(h.run_until([&] { return c.buttons.size() == 1; }));
}

// The same buttons under a finger: a tap acts when it lifts on the button it
// went down on, and a finger that slides off first does nothing (nor drags).
TEST_F(TitleButtons, ATapOnTheMaximizeButtonMaximizesAndOnCloseCloses) {
  FakeTouch screen(h.server());
  Rect f = view->frame();
  const double mx = f.x + f.width - kButton * 3 / 2.0, my = f.y - kButton / 2.0;
  screen.down(1, mx, my);
  screen.frame();
  h.sync();
  EXPECT_FALSE(view->maximized()) << "the button acted before the finger lifted";
  screen.up(1);
  screen.frame();
  ASSERT_TRUE(h.run_until([&] { return window.last_configure().width == 640; }))
      << "a tap on the maximize button did not maximize";
  follow_configure();
  EXPECT_TRUE(view->maximized());

  // Slid off before lifting: nothing.
  const Rect max = view->frame();
  const double cx = max.x + max.width - kButton / 2.0, cy = max.y - kButton / 2.0;
  screen.down(2, cx, cy);
  screen.frame();
  screen.motion(2, max.x + 40, max.y + 40);
  screen.frame();
  screen.up(2);
  screen.frame();
  h.sync();
  EXPECT_FALSE(window.closed) << "a finger that slid off the close button closed the window";
  EXPECT_EQ(view->frame().x, max.x) << "nor does it drag the window";

  screen.down(3, cx, cy);
  screen.frame();
  screen.up(3);
  screen.frame();
  EXPECT_TRUE(h.run_until([&] { return window.closed; })) << "a tap on close did not close";
  EXPECT_TRUE(c.touch_events.empty() || c.touch_events.back().kind == "frame")
      << "the client heard a tap on baton's title bar";
}

/// The title bar's pixels from its left edge to `width` pixels right of it.
std::vector<uint32_t> bar_start(const Image& shot, const Rect& frame, int width) {
  std::vector<uint32_t> pixels;
  for (int y = frame.y - Decoration::kTitleHeight; y < frame.y; ++y)
    for (int x = frame.x; x < frame.x + width; ++x) pixels.push_back(shot.at(x, y));
  return pixels;
}

// A window's geometry may be over 2^30 pixels wide (outside its surface,
// wlroots takes it as it is), but Pango measures in 1/1024 pixels in an int:
// the title's room of 2^22 + 40 pixels wrapped to 40 pixels, an overflow
// UBSan stopped (found by the protocol fuzzer). The title is drawn as on a
// window some hundred pixels wide: no narrower.
TEST_F(TitleButtons, ATitleOnAWindowWiderThanPangoMeasuresIsDrawnInFull) {
  xdg_toplevel_set_title(window.toplevel(), "A title wider than forty pixels");
  h.sync();
  const int room = 100;  // from the bar's left edge: the title's first words
  const std::vector<uint32_t> before = bar_start(h.capture(), view->frame(), room);
  ASSERT_GT(std::count(before.begin(), before.end(), kIcon), 20) << "no title drawn";
  // The title's room is the width less two buttons and a padding each side.
  const int32_t wide = (1 << 22) + 40 + 2 * kButton + 2 * 8;
  // Past the surface's right edge: wlroots keeps a geometry off the surface
  // (its scene tree then holds the surface 250 pixels left of the window's
  // origin). The bar stays over the geometry and shows its first pixels.
  xdg_surface_set_window_geometry(window.xdg(), 250, 0, wide, 150);
  window.draw(200, 150, kRed);
  ASSERT_TRUE(h.run_until([&] { return view->frame().width == wide; }));
  ASSERT_LE(view->frame().x + room, 640) << "the bar's start is off the screen";
  const std::vector<uint32_t> after = bar_start(h.capture(), view->frame(), room);
  EXPECT_EQ(std::count(after.begin(), after.end(), kIcon),
            std::count(before.begin(), before.end(), kIcon))
      << "the title is not drawn as on a narrow window";
  EXPECT_TRUE(after == before) << "the title's first " << room << " pixels changed";
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// A window whose geometry starts inside its surface (a client's own shadow
// around it) is placed, framed and barred by that geometry, as xdg-shell
// says: the surface lies up and left of the frame by the geometry's offset,
// and the bar spans the geometry's width right above it. baton took the
// scene tree's origin for the surface's where wlroots puts the geometry's,
// so such windows were drawn off their frame by the offset, and their bar
// twice as far.
TEST_F(TitleButtons, AWindowIsFramedByItsGeometryNotItsSurface) {
  constexpr int kLeft = 10, kWidth = 200;  // the geometry in a surface 260 wide
  Window shadowed(c);
  auto* shadowed_decoration =
      zxdg_decoration_manager_v1_get_toplevel_decoration(manager, shadowed.toplevel());
  shadowed.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return shadowed.configure_count() >= 1; }));
  xdg_surface_set_window_geometry(shadowed.xdg(), kLeft, 0, kWidth, 150);
  shadowed.draw(kLeft + kWidth + 50, 150, 0xff00ff00);
  View* v = nullptr;
  ASSERT_TRUE(h.run_until([&] { return (v = find_view(h, shadowed)) != nullptr; }));
  h.sync();
  const Rect f = v->frame();
  ASSERT_EQ(f.width, kWidth);
  ASSERT_TRUE(f.x - kLeft > 0 && f.x + kWidth + 50 < 640)
      << "the window is not all on screen: " << f.x << "," << f.y;
  const Image shot = h.capture();
  const int middle = f.y + 75;
  EXPECT_EQ(shot.at(f.x - kLeft, middle), 0xff00ff00U)
      << "the surface does not start where its geometry says";
  EXPECT_NE(shot.at(f.x - kLeft - 1, middle), 0xff00ff00U)
      << "the surface starts left of its geometry's offset";
  EXPECT_EQ(shot.at(f.x + kWidth + 49, middle), 0xff00ff00U)
      << "the surface does not end where it should";
  // The bar: from the geometry's left edge to its right one.
  const int bar = f.y - kButton / 2;
  EXPECT_EQ(shot.at(f.x + 1, bar), kBar) << "the bar does not start at the geometry's left edge";
  EXPECT_NE(shot.at(f.x - 2, bar), kBar) << "the bar starts left of the geometry";
  EXPECT_EQ(shot.at(f.x + kWidth - 3, f.y - kButton + 3), kClose)
      << "the close button is not at the geometry's right end";
  EXPECT_NE(shot.at(f.x + kWidth + 2, bar), kBar) << "the bar reaches past the geometry";
  zxdg_toplevel_decoration_v1_destroy(shadowed_decoration);
}

}  // namespace
}  // namespace baton::test
