// X11 clients under Xwayland, managed like native windows: they map, take
// focus and keyboard input, show in the output, and override-redirect
// windows appear exactly where the client asked.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <cstdlib>
#include <filesystem>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/xwayland.hpp"
#include "compositor/input/seat.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/process.hpp"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kBackground = 0xff292e38;

Options xwayland_options() {
  Options options = headless_options(1024, 768);
  options.xwayland = XwaylandMode::eager;
  return options;
}

std::string x11_window() {
  const char* exe = std::getenv("BATON_X11_WINDOW");
  if (exe == nullptr)
    throw std::runtime_error("BATON_X11_WINDOW is not set (run through meson test)");
  return exe;
}

class XwaylandTest : public ::testing::Test {
 protected:
  XwaylandTest() : h(xwayland_options()), keyboard(h.server()), pointer(h.server()) {}

  void SetUp() override {
    ASSERT_NE(h.server().xwayland(), nullptr) << "Xwayland could not be set up";
    ASSERT_TRUE(h.run_until([&] { return h.server().xwayland()->ready(); }, milliseconds(10000)))
        << "Xwayland did not start";
  }

  View* wait_for_view(const std::string& app_id, milliseconds timeout = milliseconds(10000)) {
    View* found = nullptr;
    h.run_until(
        [&] {
          for (const auto& v : h.server().windows().views())
            if (v->mapped() && v->app_id() == app_id) found = v.get();
          return found != nullptr;
        },
        timeout);
    return found;
  }

  void type(const std::vector<uint32_t>& keys) {
    for (uint32_t key : keys) {
      keyboard.tap(key);
      h.run_for(milliseconds(5));
    }
  }

  Harness h;
  FakeKeyboard keyboard;
  FakePointer pointer;
};

TEST_F(XwaylandTest, ChildrenGetTheXDisplay) {
  std::string dir = scratch_dir("xwayland-display");
  EXPECT_TRUE(h.server().spawn("echo \"$DISPLAY\" > " + dir + "/display").ok());
  ASSERT_TRUE(h.run_until([&] { return !read_file(dir + "/display").empty(); }));
  EXPECT_EQ(read_file(dir + "/display"), h.server().xwayland()->display_name() + "\n");
}

TEST_F(XwaylandTest, XtermMapsTakesFocusAndReceivesTyping) {
  std::string dir = scratch_dir("xwayland-xterm");
  std::string out = dir + "/typed.txt";
  EXPECT_TRUE(h.server().spawn("xterm -e sh -c 'read line; echo \"$line\" > " + out + "'").ok());
  View* xterm = wait_for_view("XTerm");
  ASSERT_NE(xterm, nullptr) << "xterm did not map";
  EXPECT_TRUE(xterm->managed());
  EXPECT_EQ(h.server().windows().focused(), xterm);
  h.run_for(milliseconds(300));  // let xterm's shell start reading
  type({KEY_B, KEY_A, KEY_T, KEY_O, KEY_N, KEY_ENTER});
  ASSERT_TRUE(h.run_until([&] { return read_file(out) == "baton\n"; }, milliseconds(5000)))
      << "xterm received: '" << read_file(out) << "'";
}

TEST_F(XwaylandTest, TwoClientsShowAndClickMovesFocus) {
  EXPECT_TRUE(h.server().spawn("xeyes -geometry 200x150").ok());
  View* eyes = wait_for_view("XEyes");
  ASSERT_NE(eyes, nullptr);
  EXPECT_TRUE(
      h.server()
          .spawn(x11_window() + " --class BatonSecond --colour 00ff00 --width 300 --height 200")
          .ok());
  View* second = wait_for_view("BatonSecond");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(h.server().windows().focused(), second);

  h.run_for(milliseconds(200));
  Image shot = h.capture();
  // Both are centred; the newer, larger green window covers the middle, and
  // xeyes shows around it only if larger — so check each where it is alone.
  EXPECT_EQ(shot.at(second->x() + 5, second->y() + 5), 0xff00ff00u);
  EXPECT_GT(count_other_pixels(shot, kBackground), 300L * 200);

  // Move the green window away, then click xeyes: it takes focus.
  second->move_to(0, 0);
  h.run_for(milliseconds(100));
  pointer.move_to(eyes->x() + 100, eyes->y() + 75);
  pointer.click(BTN_LEFT);
  ASSERT_TRUE(h.run_until([&] { return h.server().windows().focused() == eyes; }));
  shot = h.capture();
  Box eyes_box{eyes->x(), eyes->y(), eyes->x() + 200, eyes->y() + 150};
  EXPECT_EQ(count_pixels(shot, kBackground, eyes_box), 0) << "xeyes is not drawn where it is";
  EXPECT_EQ(eyes->title(), "xeyes");
}

TEST_F(XwaylandTest, TitleAndClassReachTheServer) {
  EXPECT_TRUE(h.server().spawn(x11_window() + " --title 'Baton X11 Test' --class BatonX11").ok());
  View* v = wait_for_view("BatonX11");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->title(), "Baton X11 Test");
}

TEST_F(XwaylandTest, OverrideRedirectMenuIsPlacedWhereAsked) {
  EXPECT_TRUE(
      h.server()
          .spawn(x11_window() + " --class BatonMain --colour 0000ff --width 300 --height 200")
          .ok());
  View* main_window = wait_for_view("BatonMain");
  ASSERT_NE(main_window, nullptr);
  EXPECT_TRUE(
      h.server()
          .spawn(x11_window() +
                 " --override-redirect --class BatonMenu --colour ff0000 --x 100 --y 120 --width "
                 "50 --height 40")
          .ok());
  View* menu = wait_for_view("BatonMenu");
  ASSERT_NE(menu, nullptr);
  EXPECT_FALSE(menu->managed());
  EXPECT_EQ(menu->x(), 100);
  EXPECT_EQ(menu->y(), 120);
  EXPECT_EQ(h.server().windows().focused(), main_window) << "a menu must not steal window focus";
  h.run_for(milliseconds(100));
  Image shot = h.capture();
  EXPECT_EQ(shot.at(100, 120), 0xffff0000u);
  EXPECT_EQ(shot.at(149, 159), 0xffff0000u);
  EXPECT_NE(shot.at(99, 120), 0xffff0000u);
  EXPECT_NE(shot.at(150, 160), 0xffff0000u);
  // Clicking the menu does not make it a focused window.
  pointer.move_to(110, 130);
  pointer.click(BTN_LEFT);
  h.run_for(milliseconds(50));
  EXPECT_EQ(h.server().windows().focused(), main_window);
}

// A native Wayland terminal and an X11 terminal side by side, both drawn;
// the picture is kept as build/tests/native-and-x11.png.
TEST_F(XwaylandTest, NativeAndX11ClientsSideBySide) {
  std::string home = scratch_dir("side-by-side-home");
  EXPECT_TRUE(
      h.server()
          .spawn("HOME=" + home +
                 " LC_ALL=C.UTF-8 foot -W 60x20 -T 'foot (Wayland)' sh -c 'echo native Wayland "
                 "client; exec sleep 60'")
          .ok());
  View* foot = wait_for_view("foot");
  ASSERT_NE(foot, nullptr) << "foot did not map";
  EXPECT_TRUE(
      h.server()
          .spawn(
              "xterm -T 'xterm (X11)' -e sh -c 'echo X11 client through Xwayland; exec sleep 60'")
          .ok());
  View* xterm = wait_for_view("XTerm");
  ASSERT_NE(xterm, nullptr) << "xterm did not map";
  foot->move_frame_to(8, 40);
  Rect f = foot->frame();
  xterm->move_frame_to(f.x + f.width + 16, 40);
  h.run_for(milliseconds(300));  // both redraw after moving
  Image shot = h.capture();
  std::string png = std::string(BATON_BUILD_DIR) + "/native-and-x11.png";
  ASSERT_TRUE(write_png(png, shot).ok());
  Rect x = xterm->frame();
  EXPECT_LE(f.x + f.width, x.x) << "the windows overlap";
  EXPECT_LE(x.x + x.width, 1024) << "xterm runs off the output";
  EXPECT_EQ(count_pixels(shot, kBackground, {f.x, f.y, f.x + f.width, f.y + f.height}), 0)
      << "foot is not drawn";
  EXPECT_EQ(count_pixels(shot, kBackground, {x.x, x.y, x.x + x.width, x.y + x.height}), 0)
      << "xterm is not drawn";
  EXPECT_GT(distinct_colours(shot, {f.x, f.y, f.x + f.width, f.y + f.height}), 4)
      << "no text in foot";
  // xterm draws its bitmap font without antialiasing: black glyphs on white.
  EXPECT_GT(count_pixels(shot, 0xff000000, {x.x, x.y, x.x + x.width, x.y + x.height}), 100)
      << "no text in xterm";
  EXPECT_GT(count_pixels(shot, 0xffffffff, {x.x, x.y, x.x + x.width, x.y + x.height}), 10000);
}

TEST_F(XwaylandTest, FullscreenGameCoversTheOutput) {
  EXPECT_TRUE(h.server()
                  .spawn(x11_window() +
                         " --fullscreen --class BatonGame --colour ff8000 --width 320 --height 240")
                  .ok());
  View* game = wait_for_view("BatonGame");
  ASSERT_NE(game, nullptr);
  // Everything is the game's colour but for the cursor image the seat draws
  // at the pointer (at most 64x64 from its position).
  const uint32_t orange = 0xffff8000;
  Image shot;
  ASSERT_TRUE(h.run_until(
      [&] {
        shot = h.capture();
        return count_pixels(shot, orange) >= 1024L * 768 - 64L * 64;
      },
      milliseconds(5000)))
      << "the fullscreen window does not cover the 1024x768 output: " << count_pixels(shot, orange)
      << " game pixels";
  const int cx = static_cast<int>(h.server().seat().cursor_x());
  const int cy = static_cast<int>(h.server().seat().cursor_y());
  long outside_cursor = 0;
  for (int y = 0; y < 768; ++y)
    for (int x = 0; x < 1024; ++x) {
      bool near_cursor = x >= cx - 32 && x < cx + 64 && y >= cy - 32 && y < cy + 64;
      if (!near_cursor && shot.at(x, y) != orange) ++outside_cursor;
    }
  EXPECT_EQ(outside_cursor, 0) << "pixels away from the cursor at " << cx << "," << cy
                               << " are not the game's";
  EXPECT_EQ(game->x(), 0);
  EXPECT_EQ(game->y(), 0);
  EXPECT_EQ(h.server().windows().focused(), game);
}

}  // namespace
}  // namespace baton::test
