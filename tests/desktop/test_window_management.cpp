// Window management driven like a user: a virtual keyboard presses the
// configured bindings, a virtual pointer drags, a layer-shell panel takes
// its exclusive zone, and the effects are checked on windows and pixels.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <algorithm>
#include <fstream>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/process.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kBackground = 0xff292e38;

class WindowManagement : public ::testing::Test {
 protected:
  explicit WindowManagement(Options options = headless_options())
      : h(std::move(options)), c(h), keyboard(h, c), pointer(h, c) {}

  View* map(Window& w, uint32_t colour, int width = 200, int height = 150) {
    return map_window(h, w, colour, width, height);
  }
  /// Draws at the size of the latest configure, as a real client would.
  void follow_configure(Window& w, uint32_t colour) {
    const Configure& cfg = w.last_configure();
    w.draw(cfg.width > 0 ? cfg.width : 200, cfg.height > 0 ? cfg.height : 150, colour);
    h.sync();
  }

  Harness h;
  Client c;
  VirtualKeyboard keyboard;
  VirtualPointer pointer;
};

class Bindings : public WindowManagement {
 protected:
  Bindings()
      : WindowManagement(with_config("bindings", R"(
[keybindings]
"Super+Return" = "exec weston-simple-shm"
"Super+Shift+Q" = "close"
"Super+Tab" = "focus_next"
"Super+Shift+Tab" = "focus_prev"
"Super+1" = "workspace 1"
"Super+2" = "workspace 2"
"Super+Shift+2" = "move_to_workspace 2"
"Super+M" = "maximize"
"Super+F" = "fullscreen"
"Super+Right" = "move right 30"
"Super+Down" = "move down"
"Super+Ctrl+Right" = "resize wider 40"
"Super+Shift+E" = "exit"
"Super+Shift+R" = "reload"
)")) {}
};

TEST_F(Bindings, LaunchThenCloseARealClient) {
  EXPECT_TRUE(h.server().config_errors().empty());
  keyboard.chord({KEY_LEFTMETA, KEY_ENTER});
  ASSERT_TRUE(h.run_until(
      [&] {
        for (const auto& v : h.server().windows().views())
          if (v->mapped()) return true;
        return false;
      },
      std::chrono::milliseconds(5000)))
      << "weston-simple-shm never mapped";
  // The launched window has focus; Super+Shift+Q closes it and it exits.
  ASSERT_TRUE(h.run_until([&] { return h.server().windows().focused() != nullptr; }));
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTSHIFT, KEY_Q});
  EXPECT_TRUE(h.run_until([&] { return h.server().windows().views().empty(); },
                          std::chrono::milliseconds(5000)));
}

/// Whether the client saw `key` at all: pressed, released, or held at enter.
bool saw_key(const Client& c, uint32_t key) {
  for (const auto& k : c.keys)
    if (k.key == key) return true;
  return std::find(c.enter_keys.begin(), c.enter_keys.end(), key) != c.enter_keys.end();
}

TEST_F(Bindings, BoundKeysDoNotReachTheClientOthersDo) {
  Window a(c);
  map(a, kRed);
  c.keys.clear();
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  keyboard.chord({KEY_LEFTMETA, KEY_1});
  keyboard.chord({KEY_LEFTMETA, KEY_M});
  keyboard.chord({KEY_A});
  h.sync();
  // The bound keys: neither press nor release, also not when the binding
  // gave the window focus back while the key was held (Super+1).
  EXPECT_FALSE(saw_key(c, KEY_2));
  EXPECT_FALSE(saw_key(c, KEY_1));
  EXPECT_FALSE(saw_key(c, KEY_M));
  // Others, and the modifier itself, arrive pressed and released.
  for (uint32_t key : {KEY_A, KEY_LEFTMETA}) {
    int presses = 0, releases = 0;
    for (const auto& k : c.keys) {
      if (k.key != key) continue;
      (k.state == WL_KEYBOARD_KEY_STATE_PRESSED ? presses : releases)++;
    }
    EXPECT_GT(presses, 0) << key;
    EXPECT_EQ(presses, releases) << key;
  }
}

TEST_F(Bindings, AWindowFocusedByABindingDoesNotSeeTheBoundKeyHeld) {
  Window a(c), b(c);
  map(a, kRed);
  map(b, kGreen);
  c.keys.clear();
  keyboard.press(KEY_LEFTMETA, true);
  keyboard.press(KEY_TAB, true);  // focus_next: a gets the keyboard now
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
  EXPECT_EQ(std::count(c.enter_keys.begin(), c.enter_keys.end(), KEY_LEFTMETA), 1)
      << "the modifier is held, and a knows it";
  keyboard.press(KEY_TAB, false);
  keyboard.press(KEY_LEFTMETA, false);
  h.sync();
  EXPECT_FALSE(saw_key(c, KEY_TAB));
}

TEST_F(Bindings, WorkspacesSwitchAndWindowsMoveBetweenThem) {
  Window a(c);
  View* va = map(a, kRed);
  ASSERT_NE(va, nullptr);
  EXPECT_EQ(va->workspace(), 1);
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(h.server().workspaces().current(), 2);
  EXPECT_FALSE(va->visible());
  EXPECT_EQ(h.server().windows().focused(), nullptr);
  Image empty = h.capture();
  EXPECT_EQ(count_pixels(empty, kRed), 0);

  Window b(c);
  View* vb = map(b, kGreen);
  EXPECT_EQ(vb->workspace(), 2);
  keyboard.chord({KEY_LEFTMETA, KEY_1});
  EXPECT_TRUE(va->visible());
  EXPECT_FALSE(vb->visible());
  EXPECT_EQ(h.server().windows().focused(), va);
  Image one = h.capture();
  EXPECT_EQ(count_pixels(one, kRed), 200 * 150);
  EXPECT_EQ(count_pixels(one, kGreen), 0);

  // Super+Shift+2 sends the focused window away.
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTSHIFT, KEY_2});
  EXPECT_EQ(va->workspace(), 2);
  EXPECT_FALSE(va->visible());
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_TRUE(va->visible() && vb->visible());
}

TEST_F(Bindings, FocusCyclesThroughWindows) {
  Window a(c), b(c), d(c);
  View* va = map(a, kRed);
  View* vb = map(b, kGreen);
  View* vd = map(d, 0xff0000ff);
  EXPECT_EQ(h.server().windows().focused(), vd);
  keyboard.chord({KEY_LEFTMETA, KEY_TAB});
  EXPECT_EQ(h.server().windows().focused(), va);
  keyboard.chord({KEY_LEFTMETA, KEY_TAB});
  EXPECT_EQ(h.server().windows().focused(), vb);
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTSHIFT, KEY_TAB});
  EXPECT_EQ(h.server().windows().focused(), va);
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
}

TEST_F(Bindings, KeyboardMoveAndResize) {
  Window a(c);
  View* va = map(a, kRed);
  Rect before = va->frame();
  keyboard.chord({KEY_LEFTMETA, KEY_RIGHT});
  keyboard.chord({KEY_LEFTMETA, KEY_DOWN});
  Rect after = va->frame();
  EXPECT_EQ(after.x, before.x + 30);
  EXPECT_EQ(after.y, before.y + 20);
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTCTRL, KEY_RIGHT});
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 240; }));
  EXPECT_EQ(a.last_configure().height, 150);
}

TEST_F(Bindings, MaximizeAndFullscreenToggle) {
  Window a(c);
  View* va = map(a, kRed);
  Rect floating = va->frame();
  keyboard.chord({KEY_LEFTMETA, KEY_M});
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 640; }));
  EXPECT_EQ(a.last_configure().height, 480);
  follow_configure(a, kRed);
  EXPECT_TRUE(va->maximized());
  Rect max = va->frame();
  EXPECT_EQ(max.x, 0);
  EXPECT_EQ(max.y, 0);
  // All of the screen but the cursor (24x24 at most).
  EXPECT_GE(count_pixels(h.capture(), kRed), 640 * 480 - 24 * 24);

  keyboard.chord({KEY_LEFTMETA, KEY_M});
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == floating.width; }));
  follow_configure(a, kRed);
  EXPECT_FALSE(va->maximized());
  EXPECT_EQ(va->frame().x, floating.x);
  EXPECT_EQ(va->frame().y, floating.y);

  keyboard.chord({KEY_LEFTMETA, KEY_F});
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 640; }));
  follow_configure(a, kRed);
  EXPECT_TRUE(va->fullscreen());
  keyboard.chord({KEY_LEFTMETA, KEY_F});
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == floating.width; }));
  EXPECT_FALSE(va->fullscreen());
}

TEST_F(Bindings, ClientRequestsMaximizeAndFullscreen) {
  Window a(c);
  View* va = map(a, kRed);
  xdg_toplevel_set_maximized(a.toplevel());
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 640; }));
  EXPECT_TRUE(va->maximized());
  xdg_toplevel_unset_maximized(a.toplevel());
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 200; }));
  xdg_toplevel_set_fullscreen(a.toplevel(), nullptr);
  ASSERT_TRUE(h.run_until([&] { return va->fullscreen(); }));
}

TEST_F(Bindings, SuperDragMovesTheWindowByTheDraggedAmount) {
  Window a(c);
  View* va = map(a, kRed);
  Rect before = va->frame();
  int x0 = before.x + 50, y0 = before.y + 40;
  pointer.move_to(x0, y0, 640, 480);
  keyboard.press(KEY_LEFTMETA, true);
  pointer.button(BTN_LEFT, true);
  pointer.move_to(x0 + 70, y0 - 25, 640, 480);
  pointer.move_to(x0 + 120, y0 + 60, 640, 480);
  pointer.button(BTN_LEFT, false);
  keyboard.press(KEY_LEFTMETA, false);
  Rect after = va->frame();
  EXPECT_EQ(after.x, before.x + 120);
  EXPECT_EQ(after.y, before.y + 60);
  // The drag was the compositor's: the client saw no button.
  EXPECT_TRUE(c.buttons.empty());
  Image shot = h.capture();
  EXPECT_EQ(shot.at(after.x + 5, after.y + 5), kRed);
}

TEST_F(Bindings, SuperRightDragResizes) {
  Window a(c);
  View* va = map(a, kRed);
  Rect before = va->frame();
  int x0 = before.x + 100, y0 = before.y + 100;
  pointer.move_to(x0, y0, 640, 480);
  keyboard.press(KEY_LEFTMETA, true);
  pointer.button(BTN_RIGHT, true);
  pointer.move_to(x0 + 60, y0 + 30, 640, 480);
  pointer.button(BTN_RIGHT, false);
  keyboard.press(KEY_LEFTMETA, false);
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == before.width + 60; }));
  EXPECT_EQ(a.last_configure().height, before.height + 30);
}

// xdg_toplevel.move takes the pointer only with the press the client still
// holds: a made-up serial, or that of a press already released, moves
// nothing (else the window would follow the pointer with no button down,
// until some later click).
TEST_F(WindowManagement, AClientMovesItsWindowOnlyWithThePressItHolds) {
  Window a(c);
  View* va = map(a, kRed);
  const Rect before = va->frame();
  const int x0 = before.x + 50, y0 = before.y + 40;
  pointer.move_to(x0, y0, 640, 480);
  pointer.button(BTN_LEFT, true);
  pointer.button(BTN_LEFT, false);
  ASSERT_TRUE(h.run_until([&] { return c.buttons.size() == 1; })) << "a never got the click";
  const uint32_t released = c.button_serial;

  for (uint32_t serial : {released, released + 1000}) {
    xdg_toplevel_move(a.toplevel(), c.seat, serial);
    h.sync();
    pointer.move_to(x0 + 60, y0 + 30, 640, 480);
    pointer.move_to(x0, y0, 640, 480);
    pointer.move_to(x0 + 60, y0 + 30, 640, 480);
    h.sync();
    EXPECT_EQ(va->frame().x, before.x) << "moved by serial " << serial;
    EXPECT_EQ(va->frame().y, before.y) << "moved by serial " << serial;
    pointer.move_to(x0, y0, 640, 480);
  }

  // The press it holds: the window follows the pointer until the release.
  pointer.button(BTN_LEFT, true);
  ASSERT_TRUE(h.run_until([&] { return c.buttons.size() == 2; }));
  xdg_toplevel_move(a.toplevel(), c.seat, c.button_serial);
  h.sync();
  pointer.move_to(x0 + 60, y0 + 30, 640, 480);
  pointer.button(BTN_LEFT, false);
  pointer.move_to(x0 + 100, y0 + 100, 640, 480);
  EXPECT_EQ(va->frame().x, before.x + 60);
  EXPECT_EQ(va->frame().y, before.y + 30);
}

TEST_F(Bindings, ReloadBindingAppliesTheEditedFile) {
  std::ofstream(h.server().config_path()) << R"(background = "#123456"
[keybindings]
"Super+Shift+R" = "reload"
"Super+K" = "workspace 7"
)";
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTSHIFT, KEY_R});
  keyboard.chord({KEY_LEFTMETA, KEY_K});
  EXPECT_EQ(h.server().workspaces().current(), 7);
  EXPECT_EQ(h.capture().at(1, 1), 0xff123456u);
  // Super+2 is no longer bound.
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  EXPECT_EQ(h.server().workspaces().current(), 7);
}

TEST_F(Bindings, ExitBindingTerminates) {
  keyboard.chord({KEY_LEFTMETA, KEY_LEFTSHIFT, KEY_E});
  EXPECT_TRUE(h.server().terminated());
}

class LayerShellTest : public WindowManagement {};

TEST_F(LayerShellTest, PanelReservesItsZoneAndMaximizedWindowsRespectIt) {
  Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
              ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                  ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
              30, 30, 0xff0000ff);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
  EXPECT_EQ(panel.width, 640);
  EXPECT_EQ(panel.height, 30);
  h.sync();
  wlr_box usable = h.server().layer_shell().usable_area(h.server().outputs()[0]->wlr());
  EXPECT_EQ(usable.y, 30);
  EXPECT_EQ(usable.height, 450);

  Window a(c);
  View* va = map(a, kRed);
  EXPECT_GE(va->frame().y, 30) << "new windows open below the panel";
  va->set_maximized(true);
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().height == 450; }));
  EXPECT_EQ(a.last_configure().width, 640);
  follow_configure(a, kRed);
  EXPECT_EQ(va->frame().y, 30);
  Image shot = h.capture();
  // Both fill their areas, but for the cursor (24x24 at most, top left).
  EXPECT_GE(count_pixels(shot, 0xff0000ff), 640 * 30 - 24 * 24);
  EXPECT_EQ(count_pixels(shot, 0xff0000ff, {0, 0, 640, 30}), count_pixels(shot, 0xff0000ff));
  EXPECT_GE(count_pixels(shot, kRed), 640 * 450 - 24 * 24);
  EXPECT_EQ(count_pixels(shot, kRed, {0, 30, 640, 480}), count_pixels(shot, kRed));
}

// A window restoring its maximized state asks before its first buffer: the
// first configure already has the area left beside the panel, so its first
// frame fits there (WLCS's maximized_xdg_toplevel_is_shrunk_for_exclusive_zone).
TEST_F(LayerShellTest, MaximizedAskedBeforeTheFirstCommitIsConfiguredAtTheUsableArea) {
  Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
              ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                  ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
              30, 30, 0xff0000ff);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
  h.sync();
  Window a(c);
  xdg_toplevel_set_maximized(a.toplevel());
  a.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return a.configure_count() >= 1; }));
  EXPECT_EQ(a.last_configure().width, 640);
  EXPECT_EQ(a.last_configure().height, 450);
  follow_configure(a, kRed);
  View* va = nullptr;
  ASSERT_TRUE(h.run_until([&] { return (va = find_view(h, a)) != nullptr; }));
  EXPECT_TRUE(va->maximized());
  EXPECT_EQ(va->frame().y, 30);
  EXPECT_EQ(va->frame().height, 450);
}

// A size of 0 stretches between the two opposite anchors; without both it is
// the client's error (layer-shell's invalid_size), whichever wlroots runs.
TEST_F(LayerShellTest, AZeroSizeWithoutBothOppositeAnchorsIsAProtocolError) {
  Client bad(h);
  Globals globals(h, bad.display());
  auto* shell = static_cast<zwlr_layer_shell_v1*>(globals.bind(&zwlr_layer_shell_v1_interface, 4));
  ASSERT_NE(shell, nullptr);
  wl_surface* surface = wl_compositor_create_surface(bad.compositor);
  zwlr_layer_surface_v1* layer = zwlr_layer_shell_v1_get_layer_surface(
      shell, surface, nullptr, ZWLR_LAYER_SHELL_V1_LAYER_TOP, "half-anchored");
  zwlr_layer_surface_v1_set_size(layer, 0, 30);
  zwlr_layer_surface_v1_set_anchor(
      layer, ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT);
  wl_surface_commit(surface);
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(bad.display()) != 0; }))
      << "a width of 0 anchored to the left only was accepted";
  const wl_interface* interface = nullptr;
  const uint32_t code = wl_display_get_protocol_error(bad.display(), &interface, nullptr);
  ASSERT_NE(interface, nullptr);
  EXPECT_STREQ(interface->name, "zwlr_layer_surface_v1");
  EXPECT_EQ(code, static_cast<uint32_t>(ZWLR_LAYER_SURFACE_V1_ERROR_INVALID_SIZE));
  zwlr_layer_surface_v1_destroy(layer);
  wl_surface_destroy(surface);
  zwlr_layer_shell_v1_destroy(shell);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

TEST_F(LayerShellTest, APanelsPopupIsKeptOnTheOutput) {
  Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
              ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                  ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
              30, 30, 0xff808080);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
  // A menu opened at the panel's right end, asked to hang below it: left
  // alone it would fall off the bottom and the right of the screen.
  xdg_positioner* p = xdg_wm_base_create_positioner(c.wm_base);
  xdg_positioner_set_size(p, 100, 200);
  xdg_positioner_set_anchor_rect(p, 600, 0, 1, 30);
  xdg_positioner_set_anchor(p, XDG_POSITIONER_ANCHOR_BOTTOM_LEFT);
  xdg_positioner_set_gravity(p, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
  xdg_positioner_set_constraint_adjustment(p, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_Y |
                                                  XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X);
  Window menu(c, p);
  xdg_positioner_destroy(p);
  panel.adopt_popup(menu);
  menu.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return menu.configure_count() >= 1; }));
  EXPECT_EQ(menu.popup_y, -200) << "flipped to open upwards from the panel";
  EXPECT_EQ(menu.popup_x, 540) << "slid left to end at the output's edge";
  menu.draw(100, 200, 0xff0000ff);
  h.sync();
  Image shot = h.capture();
  EXPECT_EQ(count_pixels(shot, 0xff0000ff), 100 * 200);
  EXPECT_EQ(count_pixels(shot, 0xff0000ff, {540, 250, 640, 450}), 100 * 200);
}

TEST_F(LayerShellTest, FullscreenCoversPanelsButNotOverlays) {
  Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
              ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                  ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
              30, 30, 0xff0000ff);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
  Window a(c);
  View* va = map(a, kRed);
  va->set_fullscreen(true);
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().width == 640; }));
  EXPECT_EQ(a.last_configure().height, 480);  // the whole output, exclusive zone or not
  follow_configure(a, kRed);
  EXPECT_EQ(va->frame().y, 0);
  Image shot = h.capture();
  EXPECT_EQ(count_pixels(shot, 0xff0000ff), 0);
  Panel overlay(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 0, 40, 0, 0xffffff00);
  ASSERT_TRUE(h.run_until([&] { return overlay.configured(); }));
  h.sync();
  EXPECT_EQ(count_pixels(h.capture(), 0xffffff00), 40 * 40);
}

TEST_F(LayerShellTest, OnDemandPanelGetsTheKeyboardWhenClicked) {
  Window a(c);
  map(a, kRed);
  Panel bar(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
            ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
            30, 30, 0xff0000ff, ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_ON_DEMAND);
  ASSERT_TRUE(h.run_until([&] { return bar.configured(); }));
  h.sync();
  EXPECT_EQ(c.keyboard_focus, a.surface()) << "on-demand does not take focus by itself";
  pointer.move_to(100, 470, 640, 480);
  pointer.button(BTN_LEFT, true);
  pointer.button(BTN_LEFT, false);
  EXPECT_TRUE(h.run_until([&] { return c.keyboard_focus == bar.surface(); }));
  EXPECT_EQ(c.pointer_focus, bar.surface());
}

TEST_F(LayerShellTest, ExclusiveKeyboardInteractivityTakesFocusAndGivesItBack) {
  Window a(c);
  map(a, kRed);
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
  {
    Panel launcher(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 0, 100, 0, 0xff00ffff,
                   ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_EXCLUSIVE);
    ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == launcher.surface(); }));
    // Focusing a window does not steal the keyboard from it.
    h.server().windows().focus(h.server().windows().views().front().get());
    h.sync();
    EXPECT_EQ(c.keyboard_focus, launcher.surface());
  }
  EXPECT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
}

// A chooser or launcher opened under a pointer that does not move (slurp,
// as xdg-desktop-portal-wlr starts it): the pointer enters it at once, and
// the next click is its, not the window's beneath; when it goes, the window
// has the pointer again.
TEST_F(LayerShellTest, AnOverlayMappedUnderAStillPointerTakesTheNextClick) {
  Window a(c);
  map(a, kRed);
  pointer.move_to(320, 240, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));
  {
    Panel overlay(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 0, 100, 0, 0xffffff00);
    ASSERT_TRUE(h.run_until([&] { return overlay.configured(); }));
    EXPECT_TRUE(h.run_until([&] { return c.pointer_focus == overlay.surface(); }))
        << "the pointer did not enter the overlay mapped under it";
    c.buttons.clear();
    pointer.button(BTN_LEFT, true);
    pointer.button(BTN_LEFT, false);
    h.sync();
    EXPECT_EQ(c.pointer_focus, overlay.surface()) << "the click went to the window beneath";
    EXPECT_EQ(c.buttons.size(), 1u);
  }
  EXPECT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }))
      << "the pointer did not go back to the window when the overlay went";
}

// The overlay a button was pressed over goes while the button is held (slurp
// exits on the click): the pointer goes to the window beneath. baton kept
// the gone surface as the held button's and read it when it next looked at
// what is under the pointer (AddressSanitizer: heap-use-after-free, seen in
// RealClients.SlurpPicksTheClickedOutputAndIsConfiguredOncePerOverlay).
TEST_F(LayerShellTest, AnOverlayGoingWhileAButtonIsHeldOverItHandsThePointerOn) {
  Window a(c);
  map(a, kRed);
  pointer.move_to(320, 240, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));
  {
    Panel overlay(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 0, 100, 0, 0xffffff00);
    ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == overlay.surface(); }));
    c.buttons.clear();
    pointer.button(BTN_LEFT, true);
    ASSERT_TRUE(h.run_until([&] { return c.buttons.size() == 1; }));
  }
  EXPECT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }))
      << "the window beneath did not get the pointer while the button was held";
  // The window commits with the button still held: each commit has baton
  // look at what is under the pointer again.
  a.draw(200, 150, kRed);
  h.sync();
  pointer.move_to(330, 250, 640, 480);
  h.sync();
  EXPECT_EQ(c.pointer_focus, a.surface());
  pointer.button(BTN_LEFT, false);
  h.sync();
}

// A configure is sent when the size a surface is to have changes or its
// client committed new layer state, not whenever baton lays the output out
// again (a surface mapping, another arriving): each one costs the client a
// redraw, and slurp 1.4 (Debian 12's, xdg-desktop-portal-wlr's output
// chooser) crashes on one that comes while its last frame is pending.
TEST_F(LayerShellTest, ASurfaceIsConfiguredAgainOnlyWhenSomethingChanged) {
  constexpr uint32_t kTopEdge = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP |
                                ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                                ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
  Panel panel(c, ZWLR_LAYER_SHELL_V1_LAYER_TOP, kTopEdge, 30, 30, 0xff0000ff);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
  // Its buffer maps it: it is laid out again, at the same size.
  ASSERT_TRUE(h.run_until([&] {
    return h.server().layer_shell().usable_area(h.server().outputs()[0]->wlr()).y == 30;
  }));
  h.sync();
  EXPECT_EQ(panel.configures, 1) << "mapping at the size it was given sent another configure";

  // An overlay over the whole output (slurp's) maps beside it: one each.
  Panel overlay(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 15, 0, -1, 0xffffff00);
  ASSERT_TRUE(h.run_until([&] { return overlay.configured(); }));
  h.sync();
  h.sync();
  EXPECT_EQ(overlay.configures, 1);
  EXPECT_EQ(overlay.width, 640);
  EXPECT_EQ(overlay.height, 480);
  EXPECT_EQ(panel.configures, 1) << "another surface mapping re-sent the panel its size";

  // The client commits new layer state (a top margin moves it down): that
  // is answered, even at the same size.
  zwlr_layer_surface_v1_set_margin(panel.layer_surface(), 5, 0, 0, 0);
  wl_surface_commit(panel.surface());
  ASSERT_TRUE(h.run_until([&] { return panel.configures == 2; }))
      << "a commit of layer state got no configure";
  EXPECT_EQ(panel.width, 640);
  EXPECT_EQ(panel.height, 30);
  h.sync();
  // Its zone now ends below the margin too.
  EXPECT_EQ(h.server().layer_shell().usable_area(h.server().outputs()[0]->wlr()).y, 35);
  EXPECT_EQ(count_pixels(h.capture(), 0xff0000ff, {0, 5, 640, 35}),
            count_pixels(h.capture(), 0xff0000ff));
  // A size it asks for that changes what it is given: configured at it.
  zwlr_layer_surface_v1_set_size(panel.layer_surface(), 0, 40);
  wl_surface_commit(panel.surface());
  ASSERT_TRUE(h.run_until([&] { return panel.height == 40; }));
  h.sync();
  EXPECT_EQ(panel.configures, 3);
  EXPECT_EQ(overlay.configures, 1);
}

TEST_F(LayerShellTest, BackgroundLayerIsBelowWindowsAndOverlayAbove) {
  Panel wallpaper(c, ZWLR_LAYER_SHELL_V1_LAYER_BACKGROUND, 15, 0, -1, 0xff808080);
  ASSERT_TRUE(h.run_until([&] { return wallpaper.configured(); }));
  Window a(c);
  View* va = map(a, kRed);
  Panel overlay(c, ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY, 0, 20, 0, 0xffffff00);
  ASSERT_TRUE(h.run_until([&] { return overlay.configured(); }));
  h.sync();
  Image shot = h.capture();
  EXPECT_EQ(shot.at(0, 0), 0xff808080u);
  Rect f = va->frame();
  EXPECT_EQ(shot.at(f.x + 2, f.y + 2), kRed);
  EXPECT_EQ(shot.at(320, 240), 0xffffff00u);  // centred overlay over the window
  EXPECT_EQ(count_pixels(shot, kBackground), 0);
}

// A layer surface on the bottom layer stays below a window, even when it is
// clicked; moved to the overlay layer (set_layer) it is drawn and hit above
// the window, and moved back, below it again. WLCS's LayerSurfaceLayerTest,
// which its surface builders keep from baton (docs/wlcs.md).
TEST_F(LayerShellTest, ASurfaceMovedToAnotherLayerIsRestackedAndAClickDoesNotRaiseIt) {
  Window a(c);
  View* va = map(a, kRed);
  ASSERT_NE(va, nullptr);
  // 300x300 in the middle, under the 200x150 window and around it.
  Panel below(c, ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM, 0, 300, 0, kGreen);
  ASSERT_TRUE(h.run_until([&] { return below.configured(); }));
  h.sync();
  const Rect f = va->frame();
  ASSERT_TRUE(f.x > 170 && f.y > 90 && f.x + f.width < 470 && f.y + f.height < 390)
      << "the window is not inside the layer surface's square";
  const int wx = f.x + f.width / 2, wy = f.y + f.height / 2;  // the window's middle
  Image shot = h.capture();
  EXPECT_EQ(shot.at(wx, wy), kRed) << "a bottom-layer surface was drawn over a window";
  EXPECT_EQ(shot.at(175, 95), kGreen) << "the layer surface is not shown around the window";

  pointer.move_to(175, 95, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == below.surface(); }));
  pointer.button(BTN_LEFT, true);
  pointer.button(BTN_LEFT, false);
  pointer.move_to(wx, wy, 640, 480);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus != below.surface(); }))
      << "a click raised the bottom-layer surface over the window";
  EXPECT_EQ(c.pointer_focus, a.surface());
  EXPECT_EQ(h.capture().at(wx - 20, wy - 20), kRed);  // up-left of the cursor image

  zwlr_layer_surface_v1_set_layer(below.layer_surface(), ZWLR_LAYER_SHELL_V1_LAYER_OVERLAY);
  wl_surface_commit(below.surface());
  pointer.move_to(wx + 1, wy, 640, 480);
  EXPECT_TRUE(h.run_until([&] { return c.pointer_focus == below.surface(); }))
      << "moved to the overlay layer, the surface is still under the window";
  EXPECT_EQ(h.capture().at(wx - 20, wy - 20), kGreen);

  zwlr_layer_surface_v1_set_layer(below.layer_surface(), ZWLR_LAYER_SHELL_V1_LAYER_BOTTOM);
  wl_surface_commit(below.surface());
  pointer.move_to(wx, wy, 640, 480);
  EXPECT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }))
      << "moved back to the bottom layer, the surface is still over the window";
  EXPECT_EQ(h.capture().at(wx - 20, wy - 20), kRed);
}

}  // namespace
}  // namespace baton::test

namespace baton::test {
namespace {

// 32 windows the size of weston-simple-shm's on a 1920x1080 output: every one
// wholly on screen, and so every one gets its frame callbacks (an off-screen
// surface never would: it would stop animating).
TEST(Placement, ThirtyTwoWindowsAreAllOnTheOutputAndGetFrames) {
  Harness h(headless_options(1920, 1080));
  Client c(h);
  std::vector<std::unique_ptr<Window>> windows;
  std::vector<View*> views;
  for (int i = 0; i < 32; ++i) {
    windows.push_back(std::make_unique<Window>(c));
    View* v =
        map_window(h, *windows.back(), 0xff000000u | static_cast<uint32_t>(i * 0x070503), 250, 250);
    ASSERT_NE(v, nullptr) << "window " << i;
    views.push_back(v);
  }
  for (size_t i = 0; i < views.size(); ++i) {
    const Rect f = views[i]->frame();
    EXPECT_TRUE(f.x >= 0 && f.y >= 0 && f.x + f.width <= 1920 && f.y + f.height <= 1080)
        << "window " << i << " at " << f.x << "," << f.y << " is not wholly on the output";
  }
  // A frame callback on each: all come back.
  int done = 0;
  static const wl_callback_listener listener = {[](void* data, wl_callback* callback, uint32_t) {
    ++*static_cast<int*>(data);
    wl_callback_destroy(callback);
  }};
  for (auto& w : windows) {
    wl_callback_add_listener(wl_surface_frame(w->surface()), &listener, &done);
    wl_surface_damage_buffer(w->surface(), 0, 0, 250, 250);
    wl_surface_commit(w->surface());
  }
  EXPECT_TRUE(h.run_until([&] { return done == 32; }, std::chrono::milliseconds(3000)))
      << done << " of 32 windows got their frame callback";
}

}  // namespace
}  // namespace baton::test
