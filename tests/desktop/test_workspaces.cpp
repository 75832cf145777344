// Workspaces per output, on two 640x480 outputs side by side, driven like a
// user: a virtual pointer says which output the user is on, a virtual
// keyboard presses the workspace bindings, and each output's pixels show
// which windows it shows.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <fstream>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/process.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kBlue = 0xff0000ff;
constexpr int kLayoutWidth = 1280, kLayoutHeight = 480;

Options two_outputs() {
  return with_config("workspaces", R"([keybindings]
"Super+1" = "workspace 1"
"Super+2" = "workspace 2"
"Super+3" = "workspace 3"
"Super+Shift+2" = "move_to_workspace 2"
)",
                     2);
}

class Workspaces2 : public ::testing::Test {
 protected:
  Workspaces2() : h(two_outputs()), c(h), keyboard(h, c), pointer(h, c) {
    left = h.server().outputs()[0];
    right = h.server().outputs()[1];
  }

  View* map(Window& w, uint32_t colour) { return map_window(h, w, colour); }
  /// The pointer goes to the left (0) or right (1) output, near its
  /// bottom-right corner where it covers no window.
  void point_at(int output) {
    pointer.move_to(620 + 640 * output, 460, kLayoutWidth, kLayoutHeight);
  }
  int workspace(Output* output) { return h.server().workspaces().current(output); }
  /// Maps `a` on the left output and `b` on the right, where the pointer
  /// then is.
  std::pair<View*, View*> map_left_and_right(Window& a, Window& b) {
    point_at(0);
    View* va = map(a, kRed);
    point_at(1);
    return {va, map(b, kGreen)};
  }

  Harness h;
  Client c;
  VirtualKeyboard keyboard;
  VirtualPointer pointer;
  Output* left = nullptr;
  Output* right = nullptr;
};

TEST_F(Workspaces2, TheOutputsSitSideBySide) {
  wlr_box box{};
  wlr_output_layout_get_box(h.server().output_layout(), right->wlr(), &box);
  EXPECT_EQ(box.x, 640);
  EXPECT_EQ(box.y, 0);
}

TEST_F(Workspaces2, SwitchingChangesOnlyTheOutputUnderThePointer) {
  Window a(c), b(c);
  auto [va, vb] = map_left_and_right(a, b);
  EXPECT_EQ(va->output(), left);
  EXPECT_EQ(vb->output(), right);
  EXPECT_GE(vb->frame().x, 640) << "new windows open on the output the user is on";

  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(workspace(left), 1);
  EXPECT_EQ(workspace(right), 2);
  EXPECT_TRUE(va->visible());
  EXPECT_FALSE(vb->visible());
  EXPECT_EQ(count_pixels(h.capture(0), kRed), 200 * 150);
  EXPECT_EQ(count_pixels(h.capture(1), kGreen), 0);

  point_at(0);
  keyboard.chord({KEY_LEFTMETA, KEY_3});
  EXPECT_EQ(workspace(left), 3);
  EXPECT_EQ(workspace(right), 2);
  EXPECT_EQ(count_pixels(h.capture(0), kRed), 0);
}

TEST_F(Workspaces2, SwitchingFollowsTheFocusedWindowsOutputEvenWhenItIsEmptied) {
  Window a(c), b(c);
  auto [va, vb] = map_left_and_right(a, b);
  // A task bar focuses the left window; the pointer stays on the right.
  h.server().windows().focus(va);
  keyboard.chord({KEY_LEFTMETA, KEY_3});
  EXPECT_EQ(workspace(left), 3);
  EXPECT_EQ(workspace(right), 1);
  EXPECT_EQ(h.server().windows().focused(), nullptr);
  EXPECT_TRUE(vb->visible());
  // The left output, now empty, is still the one the keyboard acts on.
  keyboard.chord({KEY_LEFTMETA, KEY_1});
  EXPECT_EQ(workspace(left), 1);
  EXPECT_EQ(h.server().windows().focused(), va);
  EXPECT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
}

TEST_F(Workspaces2, NewWindowsJoinTheCurrentWorkspaceOfTheirOutput) {
  point_at(1);
  keyboard.chord({KEY_LEFTMETA, KEY_3});
  Window a(c);
  View* va = map(a, kRed);
  EXPECT_EQ(va->output(), right);
  EXPECT_EQ(va->workspace(), 3);
  EXPECT_TRUE(va->visible());
  EXPECT_EQ(count_pixels(h.capture(1), kRed), 200 * 150);
  point_at(0);
  Window b(c);
  View* vb = map(b, kGreen);
  EXPECT_EQ(vb->output(), left);
  EXPECT_EQ(vb->workspace(), 1);
}

TEST_F(Workspaces2, MovingAWindowToAWorkspaceKeepsItOnItsOutput) {
  Window a(c), b(c);
  auto [va, vb] = map_left_and_right(a, b);
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTSHIFT, KEY_2});
  EXPECT_EQ(vb->workspace(), 2);
  EXPECT_FALSE(vb->visible());
  EXPECT_TRUE(va->visible());
  EXPECT_EQ(workspace(right), 1);
  EXPECT_EQ(count_pixels(h.capture(1), kGreen), 0);
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(workspace(right), 2);
  EXPECT_EQ(workspace(left), 1);
  EXPECT_TRUE(vb->visible());
  EXPECT_EQ(vb->output(), right);
  EXPECT_EQ(count_pixels(h.capture(1), kGreen), 200 * 150);
  EXPECT_EQ(h.server().windows().focused(), vb);
}

TEST_F(Workspaces2, AWindowDraggedOntoAnotherOutputJoinsItsWorkspace) {
  point_at(1);
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  point_at(0);
  Window a(c);
  View* va = map(a, kRed);
  Rect f = va->frame();
  int x0 = f.x + 20, y0 = f.y + 20;
  pointer.move_to(x0, y0, kLayoutWidth, kLayoutHeight);
  keyboard.press(KEY_LEFTMETA, true);
  pointer.button(BTN_LEFT, true);
  pointer.move_to(x0 + 640, y0, kLayoutWidth, kLayoutHeight);
  pointer.button(BTN_LEFT, false);
  keyboard.press(KEY_LEFTMETA, false);
  point_at(1);
  EXPECT_EQ(va->output(), right);
  EXPECT_EQ(va->workspace(), 2);
  EXPECT_EQ(count_pixels(h.capture(1), kRed), 200 * 150);
  keyboard.chord({KEY_LEFTMETA, KEY_1});
  EXPECT_EQ(workspace(right), 1);
  EXPECT_FALSE(va->visible());
}

TEST_F(Workspaces2, WindowsOfAnOutputThatGoesAwayMoveToTheOther) {
  point_at(1);
  Window a(c), b(c);
  View* va = map(a, kRed);
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  View* vb = map(b, kBlue);
  point_at(0);
  wlr_output_destroy(right->wlr());
  ASSERT_EQ(h.server().outputs().size(), 1u);
  EXPECT_EQ(va->output(), left);
  EXPECT_EQ(vb->output(), left);
  // Each keeps its workspace number: 1 shows, 2 waits for a switch.
  EXPECT_TRUE(va->visible());
  EXPECT_FALSE(vb->visible());
  EXPECT_EQ(count_pixels(h.capture(0), kRed), 200 * 150);
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(count_pixels(h.capture(0), kBlue), 200 * 150);
}

// The last output went (a monitor unplugged): its windows wait without one and
// come to the next output that appears.
TEST_F(Workspaces2, WindowsLeftWithoutAnyOutputComeToTheNextOne) {
  point_at(0);
  Window a(c);
  View* va = map(a, kRed);
  wlr_output_destroy(right->wlr());
  wlr_output_destroy(left->wlr());
  ASSERT_TRUE(h.server().outputs().empty());
  EXPECT_EQ(va->output(), nullptr);
  wlr_headless_add_output(h.server().backend(), 640, 480);
  ASSERT_EQ(h.server().outputs().size(), 1u);
  Output* fresh = h.server().outputs()[0];
  EXPECT_EQ(va->output(), fresh);
  EXPECT_TRUE(va->visible());
  EXPECT_EQ(count_pixels(h.capture(0), kRed), 200 * 150);
}

}  // namespace
}  // namespace baton::test
