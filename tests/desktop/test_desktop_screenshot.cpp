// A realistic desktop on one screen: a panel with its exclusive zone, a
// maximized window under it and a floating window with a server-side title
// bar on top. The PNG is written under the build dir for people to look at.
#include <gtest/gtest.h>

#include "compositor/desktop/decorations.hpp"
#include "compositor/desktop/view.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/process.hpp"
#include "util/owned.hpp"
#include "xdg-decoration-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

constexpr uint32_t kPanel = 0xff1d2021;
constexpr uint32_t kMaximized = 0xff3c6e71;
constexpr uint32_t kFloating = 0xffd9d9d9;
constexpr uint32_t kFocusedTitle = 0xff4c7899;

TEST(DesktopScreenshot, PanelTwoWindowsOneMaximized) {
  Harness h(headless_options(1024, 640));
  Client c(h);
  Globals globals(h, c.display());
  auto* decorations = static_cast<zxdg_decoration_manager_v1*>(
      globals.bind(&zxdg_decoration_manager_v1_interface, 1));
  ASSERT_NE(decorations, nullptr);

  Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
              ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                  ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
              28, 28, kPanel);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));

  // A decoration must go before its toplevel: each is declared after its Window.
  using ToplevelDecoration =
      Owned<zxdg_toplevel_decoration_v1, zxdg_toplevel_decoration_v1_destroy>;
  auto open = [&](Window& w, ToplevelDecoration& deco, uint32_t colour, int width,
                  int height) -> View* {
    deco = ToplevelDecoration(
        zxdg_decoration_manager_v1_get_toplevel_decoration(decorations, w.toplevel()));
    zxdg_toplevel_decoration_v1_set_mode(deco, ZXDG_TOPLEVEL_DECORATION_V1_MODE_SERVER_SIDE);
    return map_window(h, w, colour, width, height);
  };

  Window big(c);
  ToplevelDecoration big_decoration;
  xdg_toplevel_set_title(big.toplevel(), "Editor - notes.txt");
  View* vbig = open(big, big_decoration, kMaximized, 400, 300);
  ASSERT_NE(vbig, nullptr);
  EXPECT_TRUE(vbig->server_decorated());
  vbig->set_maximized(true);
  ASSERT_TRUE(h.run_until([&] { return big.last_configure().width == 1024; }));
  // Usable height 640 - 28, minus the title bar.
  EXPECT_EQ(big.last_configure().height, 640 - 28 - Decoration::kTitleHeight);
  big.draw(big.last_configure().width, big.last_configure().height, kMaximized);

  Window small(c);
  ToplevelDecoration small_decoration;
  xdg_toplevel_set_title(small.toplevel(), "Terminal");
  View* vsmall = open(small, small_decoration, kFloating, 360, 220);
  ASSERT_NE(vsmall, nullptr);
  h.sync();

  Image shot = h.capture();
  std::string path = std::string(BATON_BUILD_DIR) + "/desktop-screenshot.png";
  ASSERT_TRUE(write_png(path, shot).ok());
  std::printf("desktop screenshot: %s\n", path.c_str());

  EXPECT_EQ(count_pixels(shot, kPanel, {0, 0, 1024, 28}), 1024L * 28);
  // The maximized window's title bar sits right under the panel.
  Rect fb = vbig->frame();
  EXPECT_EQ(fb.y, 28 + Decoration::kTitleHeight);
  EXPECT_GT(count_pixels(shot, kMaximized), 1024L * 400);
  // The floating window is on top, with a focused (coloured) title bar.
  Rect fs = vsmall->frame();
  EXPECT_EQ(count_pixels(shot, kFloating, {fs.x, fs.y, fs.x + fs.width, fs.y + fs.height}),
            360L * 220);
  // (Sampled left of the maximize and close buttons at the bars' right ends.)
  const int buttons = 2 * Decoration::kButton;
  EXPECT_EQ(shot.at(fs.x + fs.width - buttons - 4, fs.y - Decoration::kTitleHeight / 2),
            kFocusedTitle);
  EXPECT_NE(shot.at(fb.x + fb.width - buttons - 4, fb.y - Decoration::kTitleHeight / 2),
            kFocusedTitle);
  // Both titles are written in their bars: light text pixels at the left.
  auto bright_in = [&](Box box) {
    long n = 0;
    for (int y = box.y0; y < box.y1; ++y)
      for (int x = box.x0; x < box.x1; ++x) {
        uint32_t p = shot.at(x, y);
        n += ((p >> 16) & 0xff) > 200 && ((p >> 8) & 0xff) > 200 && (p & 0xff) > 200;
      }
    return n;
  };
  EXPECT_GT(bright_in({fs.x, fs.y - Decoration::kTitleHeight, fs.x + 100, fs.y}), 20);
  EXPECT_GT(bright_in({fb.x, fb.y - Decoration::kTitleHeight, fb.x + 150, fb.y}), 20);
  EXPECT_EQ(
      bright_in({fs.x + 200, fs.y - Decoration::kTitleHeight, fs.x + fs.width - buttons, fs.y}), 0)
      << "a short title leaves the rest of the bar empty";
  // Each bar ends in its buttons, whose icons are light too.
  EXPECT_GT(bright_in({fs.x + fs.width - buttons, fs.y - Decoration::kTitleHeight, fs.x + fs.width,
                       fs.y}),
            20);
  EXPECT_GT(bright_in({fb.x + fb.width - buttons, fb.y - Decoration::kTitleHeight, fb.x + fb.width,
                       fb.y}),
            20);
  zxdg_decoration_manager_v1_destroy(decorations);
}

}  // namespace
}  // namespace baton::test
