// xdg-activation with focus-stealing prevention, from the clients' side: a
// token made by the client the user is using (or just clicked) focuses the
// window it is handed to, once; a token made without the user's attention,
// or used too late, does not, and the window turns urgent instead. Processes
// baton launches get a token of their own.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <unistd.h>

#include <fstream>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/process.hpp"
#include "xdg-activation-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"

namespace baton::test {
namespace {

using std::chrono::milliseconds;
constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kUrgent = 0xffff00ff;

/// One client's xdg_activation_v1.
class Activator {
 public:
  Activator(Harness& h, Client& c) : h_(h), globals_(h, c.display()) {
    activation_ = static_cast<xdg_activation_v1*>(globals_.bind(&xdg_activation_v1_interface, 1));
  }
  ~Activator() { xdg_activation_v1_destroy(activation_); }

  /// A token with the input `serial` on `seat` (none when 0) from `surface`.
  std::string token(wl_seat* seat, uint32_t serial, wl_surface* surface) {
    xdg_activation_token_v1* token = xdg_activation_v1_get_activation_token(activation_);
    std::string text;
    static const xdg_activation_token_v1_listener listener = {
        [](void* d, xdg_activation_token_v1*, const char* t) {
          *static_cast<std::string*>(d) = t;
        }};
    xdg_activation_token_v1_add_listener(token, &listener, &text);
    if (serial != 0) xdg_activation_token_v1_set_serial(token, serial, seat);
    if (surface != nullptr) xdg_activation_token_v1_set_surface(token, surface);
    xdg_activation_token_v1_commit(token);
    EXPECT_TRUE(h_.run_until([&] { return !text.empty(); }));
    xdg_activation_token_v1_destroy(token);
    return text;
  }
  void activate(const std::string& token, wl_surface* surface) {
    xdg_activation_v1_activate(activation_, token.c_str(), surface);
    h_.sync();
  }

 private:
  Harness& h_;
  Globals globals_;
  xdg_activation_v1* activation_ = nullptr;
};

class Activation : public ::testing::Test {
 protected:
  explicit Activation(Options options = headless_options())
      : h(std::move(options)),
        c(h),
        terminal(h),
        keyboard(h, c),
        activator(h, c),
        terminal_activator(h, terminal) {}

  View* map(Window& w, uint32_t colour) { return map_window(h, w, colour); }
  /// Maps the terminal's window `t`, which takes focus as new windows do.
  View* map_terminal(Window& t) {
    View* view = map(t, kGreen);
    EXPECT_TRUE(h.run_until([&] { return terminal.keyboard_focus == t.surface(); }));
    return view;
  }
  /// A token the terminal makes while `t` has the keyboard, as when the
  /// user opens a link in it.
  std::string terminal_token(Window& t) {
    return terminal_activator.token(terminal.seat, terminal.keyboard_enter_serial, t.surface());
  }

  Harness h;
  Client c;         // the application asking for focus
  Client terminal;  // the one the user works in, which hands out tokens
  VirtualKeyboard keyboard;
  Activator activator, terminal_activator;
};

TEST_F(Activation, TokenFromTheFocusedClientFocusesTheWindowItIsHandedTo) {
  Window a(c), t(terminal);
  View* va = map(a, kRed);
  map_terminal(t);
  std::string token = terminal_token(t);
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), va);
  EXPECT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
  EXPECT_FALSE(va->urgent());
}

TEST_F(Activation, ATokenWorksOnlyOnce) {
  Window a(c), t(terminal);
  View* va = map(a, kRed);
  View* vt = map_terminal(t);
  std::string token = terminal_token(t);
  activator.activate(token, a.surface());
  ASSERT_EQ(h.server().windows().focused(), va);
  h.server().windows().focus(vt);
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), vt);
  EXPECT_EQ(c.keyboard_focus, nullptr);
}

TEST_F(Activation, TokenWithoutAnInputSerialDoesNotStealFocusButMarksTheWindowUrgent) {
  Window a(c), b(c);
  View* va = map(a, kRed);
  View* vb = map(b, kGreen);
  std::string token = activator.token(nullptr, 0, b.surface());
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), vb);
  EXPECT_EQ(c.keyboard_focus, b.surface());
  EXPECT_TRUE(va->urgent());
  // Focusing it (here: as a click would) clears the mark.
  h.server().windows().focus(va);
  EXPECT_FALSE(va->urgent());
}

TEST_F(Activation, TokenFromAClientWithoutFocusIsRefused) {
  Window t(terminal), b(c);
  View* vt = map(t, kGreen);
  ASSERT_TRUE(h.run_until([&] { return terminal.keyboard_focus == t.surface(); }));
  uint32_t old_serial = terminal.keyboard_enter_serial;
  View* vb = map(b, kRed);
  ASSERT_TRUE(h.run_until([&] { return terminal.keyboard_focus == nullptr; }));
  // The terminal's serial is real but it no longer has the user's attention.
  std::string token = terminal_activator.token(terminal.seat, old_serial, nullptr);
  terminal_activator.activate(token, t.surface());
  EXPECT_EQ(h.server().windows().focused(), vb);
  EXPECT_EQ(terminal.keyboard_focus, nullptr);
  EXPECT_TRUE(vt->urgent());
}

TEST_F(Activation, APanelTheUserClickedMayHandOutATokenWithThatClicksSerial) {
  VirtualPointer pointer(h, c);
  Panel panel(terminal, ZWLR_LAYER_SHELL_V1_LAYER_TOP,
              ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP | ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT |
                  ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT,
              30, 30, 0xff0000ff);
  ASSERT_TRUE(h.run_until([&] { return panel.configured(); }));
  Window a(c), b(c);
  View* va = map(a, kRed);
  View* vb = map(b, kGreen);
  pointer.move_to(100, 10, 640, 480);
  pointer.button(BTN_LEFT, true);
  pointer.button(BTN_LEFT, false);
  ASSERT_NE(terminal.button_serial, 0u);
  ASSERT_EQ(h.server().windows().focused(), vb)
      << "a panel that takes no keyboard leaves focus alone";
  std::string token =
      terminal_activator.token(terminal.seat, terminal.button_serial, panel.surface());
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), va);
}

TEST_F(Activation, ActivationSwitchesToTheWindowsWorkspace) {
  Window a(c), t(terminal);
  View* va = map(a, kRed);
  keyboard.chord({KEY_LEFTMETA, KEY_2});
  ASSERT_EQ(h.server().workspaces().current(), 2);
  map_terminal(t);
  std::string token = terminal_token(t);
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().workspaces().current(), 1);
  EXPECT_TRUE(va->visible());
  EXPECT_EQ(h.server().windows().focused(), va);
}

TEST_F(Activation, ALaunchedProcessGetsATokenThatFocusesOnce) {
  Window a(c), b(c);
  View* va = map(a, kRed);
  View* vb = map(b, kGreen);
  std::string dir = scratch_dir("activation-launch");
  EXPECT_TRUE(h.server()
                  .spawn("echo \"$XDG_ACTIVATION_TOKEN $DESKTOP_STARTUP_ID\" > " + dir +
                         "/env.tmp && mv " + dir + "/env.tmp " + dir + "/env")
                  .ok());
  ASSERT_TRUE(
      h.run_until([&] { return access((dir + "/env").c_str(), F_OK) == 0; }, milliseconds(5000)));
  std::string env = read_file(dir + "/env");
  size_t space = env.find(' ');
  ASSERT_NE(space, std::string::npos);
  std::string token = env.substr(0, space);
  ASSERT_FALSE(token.empty());
  EXPECT_EQ(env.substr(space + 1), token + "\n") << "DESKTOP_STARTUP_ID carries the same token";

  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), va);
  h.server().windows().focus(vb);
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), vb);
}

class StaleActivation : public Activation {
 protected:
  StaleActivation()
      : Activation(with_config("activation-stale",
                               "activation_timeout = 0.2\n[decoration]\nurgent = \"#ff00ff\"\n")) {}
};

TEST_F(StaleActivation, AStaleTokenDoesNotStealFocus) {
  Window a(c), t(terminal);
  View* va = map(a, kRed);
  View* vt = map_terminal(t);
  std::string token = terminal_token(t);
  h.run_for(milliseconds(300));
  activator.activate(token, a.surface());
  EXPECT_EQ(h.server().windows().focused(), vt);
  EXPECT_TRUE(va->urgent());
}

TEST_F(StaleActivation, AnUrgentWindowsTitleBarTakesTheUrgentColour) {
  Globals globals(h, c.display());
  auto* decorations = static_cast<zxdg_decoration_manager_v1*>(
      globals.bind(&zxdg_decoration_manager_v1_interface, 1));
  ASSERT_NE(decorations, nullptr);
  Window a(c), b(c);
  auto* deco = zxdg_decoration_manager_v1_get_toplevel_decoration(decorations, a.toplevel());
  View* va = map(a, kRed);
  map(b, kGreen);
  ASSERT_TRUE(va->server_decorated());
  Rect f = va->frame();
  EXPECT_NE(h.capture().at(f.x + 2, f.y - 2), kUrgent);

  activator.activate(activator.token(nullptr, 0, nullptr), a.surface());
  ASSERT_TRUE(va->urgent());
  EXPECT_EQ(h.capture().at(f.x + 2, f.y - 2), kUrgent);
  h.server().windows().focus(va);
  EXPECT_EQ(h.capture().at(f.x + 2, f.y - 2), 0xff4c7899u) << "the focused colour again";
  zxdg_toplevel_decoration_v1_destroy(deco);
  zxdg_decoration_manager_v1_destroy(decorations);
}

}  // namespace
}  // namespace baton::test
