// Input methods from both sides: an app's text field (zwp_text_input_v3)
// and an input method (zwp_input_method_v2), both our own clients written
// from the XML, with keys from the seat's own keyboard path. What is checked
// is what each side is told: the preedit and the composed string reach the
// focused field only, focus moves the input method with it, the keyboard
// grab takes the user's keys but not the input method's own, the candidate
// popup is drawn at the text cursor (pixels) and kept on screen (also for a
// cursor rectangle at the int32 limits), and a field
// enabled without focus or an input method that dies mid-composition leaves
// nothing behind. (fcitx5 driving foot under baton: test_real_clients.cpp.)
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>
#include <unistd.h>

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/server.hpp"
#include "input-method-unstable-v2-client-protocol.h"
#include "tests/desktop/desktop_clients.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/process.hpp"
#include "text-input-unstable-v3-client-protocol.h"

namespace baton::test {
namespace {

/// An app's text field: what zwp_text_input_v3 told it, applied at done.
struct TextField {
  TextField(Harness& h, Client& c) {
    Globals globals(h, c.display());
    manager = static_cast<zwp_text_input_manager_v3*>(
        globals.bind(&zwp_text_input_manager_v3_interface, 1));
    if (manager == nullptr) return;
    text_input = zwp_text_input_manager_v3_get_text_input(manager, c.seat);
    zwp_text_input_v3_add_listener(text_input, &kListener, this);
    h.sync();
  }
  ~TextField() {
    if (text_input != nullptr) zwp_text_input_v3_destroy(text_input);
    if (manager != nullptr) zwp_text_input_manager_v3_destroy(manager);
  }
  TextField(const TextField&) = delete;
  TextField& operator=(const TextField&) = delete;

  /// enable, with a cursor rectangle and surrounding text, then commit.
  void enable(int cx, int cy, int cw, int ch) {
    zwp_text_input_v3_enable(text_input);
    zwp_text_input_v3_set_surrounding_text(text_input, "hello ", 6, 6);
    zwp_text_input_v3_set_content_type(text_input, ZWP_TEXT_INPUT_V3_CONTENT_HINT_NONE,
                                       ZWP_TEXT_INPUT_V3_CONTENT_PURPOSE_NORMAL);
    zwp_text_input_v3_set_cursor_rectangle(text_input, cx, cy, cw, ch);
    zwp_text_input_v3_commit(text_input);
  }
  void move_cursor(int cx, int cy, int cw, int ch) {
    zwp_text_input_v3_set_cursor_rectangle(text_input, cx, cy, cw, ch);
    zwp_text_input_v3_commit(text_input);
  }
  void disable() {
    zwp_text_input_v3_disable(text_input);
    zwp_text_input_v3_commit(text_input);
  }

  zwp_text_input_manager_v3* manager = nullptr;
  zwp_text_input_v3* text_input = nullptr;
  wl_surface* entered = nullptr;
  int dones = 0;
  std::string preedit;  // as of the latest done
  std::string text;     // every commit_string, in order
  std::string pending_preedit, pending_commit;

  static const zwp_text_input_v3_listener kListener;
};

const zwp_text_input_v3_listener TextField::kListener = {
    .enter = [](void* d, zwp_text_input_v3*,
                wl_surface* s) { static_cast<TextField*>(d)->entered = s; },
    .leave = [](void* d, zwp_text_input_v3*,
                wl_surface*) { static_cast<TextField*>(d)->entered = nullptr; },
    .preedit_string =
        [](void* d, zwp_text_input_v3*, const char* text, int32_t, int32_t) {
          static_cast<TextField*>(d)->pending_preedit = text != nullptr ? text : "";
        },
    .commit_string =
        [](void* d, zwp_text_input_v3*, const char* text) {
          static_cast<TextField*>(d)->pending_commit = text != nullptr ? text : "";
        },
    .delete_surrounding_text = [](void*, zwp_text_input_v3*, uint32_t, uint32_t) {},
    .done =
        [](void* d, zwp_text_input_v3*, uint32_t) {
          auto* f = static_cast<TextField*>(d);
          ++f->dones;
          f->preedit = f->pending_preedit;  // no preedit_string: none
          f->text += f->pending_commit;
          f->pending_preedit.clear();
          f->pending_commit.clear();
        },
};

/// An input method: what zwp_input_method_v2 told it, and a keyboard grab.
struct InputMethod {
  InputMethod(Harness& h, Client& c) : client(c) {
    Globals globals(h, c.display());
    manager = static_cast<zwp_input_method_manager_v2*>(
        globals.bind(&zwp_input_method_manager_v2_interface, 1));
    if (manager == nullptr) return;
    input_method = zwp_input_method_manager_v2_get_input_method(manager, c.seat);
    zwp_input_method_v2_add_listener(input_method, &kListener, this);
    h.sync();
  }
  ~InputMethod() {
    if (popup != nullptr) zwp_input_popup_surface_v2_destroy(popup);
    if (popup_surface != nullptr) wl_surface_destroy(popup_surface);
    if (grab != nullptr) zwp_input_method_keyboard_grab_v2_release(grab);
    if (input_method != nullptr) zwp_input_method_v2_destroy(input_method);
    if (manager != nullptr) zwp_input_method_manager_v2_destroy(manager);
  }
  InputMethod(const InputMethod&) = delete;
  InputMethod& operator=(const InputMethod&) = delete;

  /// Forgets every object without a word to baton, as a killed process
  /// does (then disconnect its client).
  void abandon() {
    for (void* proxy :
         {static_cast<void*>(popup), static_cast<void*>(popup_surface), static_cast<void*>(grab),
          static_cast<void*>(input_method), static_cast<void*>(manager)})
      if (proxy != nullptr) wl_proxy_destroy(static_cast<wl_proxy*>(proxy));
    popup = nullptr;
    popup_surface = nullptr;
    grab = nullptr;
    input_method = nullptr;
    manager = nullptr;
  }

  void preedit(const char* text) {
    zwp_input_method_v2_set_preedit_string(input_method, text, 0,
                                           static_cast<int32_t>(std::string(text).size()));
    zwp_input_method_v2_commit(input_method, dones);
  }
  void commit(const char* text) {
    zwp_input_method_v2_commit_string(input_method, text);
    zwp_input_method_v2_commit(input_method, dones);
  }
  void grab_keyboard() {
    grab = zwp_input_method_v2_grab_keyboard(input_method);
    zwp_input_method_keyboard_grab_v2_add_listener(grab, &kGrab, this);
  }
  /// A candidate popup of one colour.
  void show_popup(int width, int height, uint32_t argb) {
    popup_surface = wl_compositor_create_surface(client.compositor);
    popup = zwp_input_method_v2_get_input_popup_surface(input_method, popup_surface);
    zwp_input_popup_surface_v2_add_listener(popup, &kPopup, this);
    popup_buffer = std::make_unique<ShmBuffer>(client.shm, width, height, argb);
    wl_surface_attach(popup_surface, popup_buffer->get(), 0, 0);
    wl_surface_damage_buffer(popup_surface, 0, 0, width, height);
    wl_surface_commit(popup_surface);
  }

  Client& client;
  zwp_input_method_manager_v2* manager = nullptr;
  zwp_input_method_v2* input_method = nullptr;
  zwp_input_method_keyboard_grab_v2* grab = nullptr;
  wl_surface* popup_surface = nullptr;
  zwp_input_popup_surface_v2* popup = nullptr;
  std::unique_ptr<ShmBuffer> popup_buffer;
  bool active = false;  // as of the latest done
  bool pending_active = false;
  int activations = 0;  // activates applied at done
  bool unavailable = false;
  uint32_t dones = 0;
  std::string surrounding;
  std::vector<uint32_t> grabbed_keys;                  // presses the grab heard
  int rect_x = 0, rect_y = 0, rect_w = 0, rect_h = 0;  // text_input_rectangle

  static const zwp_input_method_v2_listener kListener;
  static const zwp_input_method_keyboard_grab_v2_listener kGrab;
  static const zwp_input_popup_surface_v2_listener kPopup;
};

const zwp_input_method_v2_listener InputMethod::kListener = {
    .activate = [](void* d,
                   zwp_input_method_v2*) { static_cast<InputMethod*>(d)->pending_active = true; },
    .deactivate =
        [](void* d, zwp_input_method_v2*) { static_cast<InputMethod*>(d)->pending_active = false; },
    .surrounding_text = [](void* d, zwp_input_method_v2*, const char* text, uint32_t,
                           uint32_t) { static_cast<InputMethod*>(d)->surrounding = text; },
    .text_change_cause = [](void*, zwp_input_method_v2*, uint32_t) {},
    .content_type = [](void*, zwp_input_method_v2*, uint32_t, uint32_t) {},
    .done =
        [](void* d, zwp_input_method_v2*) {
          auto* m = static_cast<InputMethod*>(d);
          ++m->dones;
          if (m->pending_active && !m->active) ++m->activations;
          m->active = m->pending_active;
        },
    .unavailable = [](void* d,
                      zwp_input_method_v2*) { static_cast<InputMethod*>(d)->unavailable = true; },
};

const zwp_input_method_keyboard_grab_v2_listener InputMethod::kGrab = {
    .keymap = [](void*, zwp_input_method_keyboard_grab_v2*, uint32_t, int32_t fd,
                 uint32_t) { close(fd); },
    .key =
        [](void* d, zwp_input_method_keyboard_grab_v2*, uint32_t, uint32_t, uint32_t key,
           uint32_t state) {
          if (state == WL_KEYBOARD_KEY_STATE_PRESSED)
            static_cast<InputMethod*>(d)->grabbed_keys.push_back(key);
        },
    .modifiers = [](void*, zwp_input_method_keyboard_grab_v2*, uint32_t, uint32_t, uint32_t,
                    uint32_t, uint32_t) {},
    .repeat_info = [](void*, zwp_input_method_keyboard_grab_v2*, int32_t, int32_t) {},
};

const zwp_input_popup_surface_v2_listener InputMethod::kPopup = {
    .text_input_rectangle =
        [](void* d, zwp_input_popup_surface_v2*, int32_t x, int32_t y, int32_t w, int32_t h) {
          auto* m = static_cast<InputMethod*>(d);
          m->rect_x = x;
          m->rect_y = y;
          m->rect_w = w;
          m->rect_h = h;
        },
};

/// Presses of `key` the client's wl_keyboard heard.
int presses(const Client& c, uint32_t key) {
  int n = 0;
  for (const KeyEvent& k : c.keys) n += k.key == key && k.state == WL_KEYBOARD_KEY_STATE_PRESSED;
  return n;
}

class InputMethodTest : public ::testing::Test {
 protected:
  Harness h;
  FakeKeyboard keyboard{h.server()};
  std::unique_ptr<Client> ime_client = std::make_unique<Client>(h);
  std::unique_ptr<InputMethod> ime_owned = std::make_unique<InputMethod>(h, *ime_client);
  InputMethod& ime = *ime_owned;
};

constexpr uint32_t kPopupColour = 0xffe0c020;

/// An app's 600x440 window with a focused text field (not yet enabled), and
/// the input method's 100x40 popup shown: what the popup tests start from.
struct PopupScene {
  PopupScene(Harness& h, InputMethod& ime)
      : app(h), window(app), view(map_window(h, window, 0xff204060, 600, 440)), field(h, app) {
    if (view == nullptr) return;
    h.run_until([&] { return field.entered != nullptr; });
    ime.show_popup(100, 40, kPopupColour);
    h.sync();
  }
  Client app;
  Window window;
  View* view;
  TextField field;
};

TEST_F(InputMethodTest, PreeditAndComposedTextReachTheFocusedField) {
  ASSERT_NE(ime.input_method, nullptr) << "zwp_input_method_manager_v2 is not advertised";
  Client app(h);
  Window window(app);
  ASSERT_NE(map_window(h, window, 0xff204060), nullptr);
  TextField field(h, app);
  ASSERT_NE(field.text_input, nullptr) << "zwp_text_input_manager_v3 is not advertised";
  ASSERT_TRUE(h.run_until([&] { return field.entered == window.surface(); }))
      << "the focused window's text input got no enter";
  EXPECT_FALSE(ime.active) << "active before any field was enabled";

  field.enable(10, 20, 2, 16);
  ASSERT_TRUE(h.run_until([&] { return ime.active; })) << "enabling the field did not activate";
  EXPECT_EQ(ime.surrounding, "hello ");

  ime.preedit("ㅎ");
  ASSERT_TRUE(h.run_until([&] { return field.preedit == "ㅎ"; })) << "no preedit in the field";
  EXPECT_EQ(field.text, "");
  ime.preedit("한");
  ASSERT_TRUE(h.run_until([&] { return field.preedit == "한"; }));
  ime.commit("한글");
  ASSERT_TRUE(h.run_until([&] { return field.text == "한글"; }))
      << "the composed text: '" << field.text << "'";
  EXPECT_EQ(field.preedit, "") << "the preedit stays after the commit";

  field.disable();
  ASSERT_TRUE(h.run_until([&] { return !ime.active; })) << "disabling did not deactivate";
  // The input method's commits now reach nobody.
  const int dones = field.dones;
  ime.commit("x");
  h.sync();
  EXPECT_EQ(field.dones, dones);
  EXPECT_EQ(field.text, "한글");
}

TEST_F(InputMethodTest, FocusMovesTheInputMethodWithIt) {
  Client a(h);
  Window wa(a);
  View* va = map_window(h, wa, 0xff204060);
  TextField fa(h, a);
  Client b(h);
  Window wb(b);
  View* vb = map_window(h, wb, 0xff602040);
  ASSERT_NE(va, nullptr);
  ASSERT_NE(vb, nullptr);
  TextField fb(h, b);
  h.server().windows().focus(va);
  ASSERT_TRUE(h.run_until([&] { return fa.entered == wa.surface(); }));
  EXPECT_EQ(fb.entered, nullptr) << "an unfocused window's text input was entered";
  fa.enable(0, 0, 1, 10);
  ASSERT_TRUE(h.run_until([&] { return ime.active; }));

  h.server().windows().focus(vb);
  ASSERT_TRUE(h.run_until([&] { return fb.entered == wb.surface() && fa.entered == nullptr; }))
      << "the text inputs did not follow the keyboard focus";
  ASSERT_TRUE(h.run_until([&] { return !ime.active; })) << "still active for the window left";
  fb.enable(0, 0, 1, 10);
  ASSERT_TRUE(h.run_until([&] { return ime.active; }));
  EXPECT_EQ(ime.activations, 2);
  ime.commit("b");
  ASSERT_TRUE(h.run_until([&] { return fb.text == "b"; }));
  h.sync();
  EXPECT_EQ(fa.text, "") << "text went to the window that lost focus";
}

// A client may enable its field when it likes, but only the focused field is
// served: the protocol says an enable without focus is ignored.
TEST_F(InputMethodTest, AFieldEnabledWithoutFocusIsIgnored) {
  Client a(h);
  Window wa(a);
  View* va = map_window(h, wa, 0xff204060);
  Client b(h);
  Window wb(b);
  ASSERT_NE(map_window(h, wb, 0xff602040), nullptr);  // b has the focus
  ASSERT_NE(va, nullptr);
  TextField fa(h, a);
  h.sync();
  ASSERT_EQ(fa.entered, nullptr);
  fa.enable(0, 0, 1, 10);
  h.sync();
  h.run_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(ime.active) << "an unfocused field activated the input method";
  ime.commit("nope");
  h.sync();
  EXPECT_EQ(fa.text, "");
  EXPECT_EQ(wl_display_get_error(a.display()), 0);
}

TEST_F(InputMethodTest, TheGrabTakesTheUsersKeysButNotTheInputMethodsOwn) {
  Client app(h);
  Window window(app);
  ASSERT_NE(map_window(h, window, 0xff204060), nullptr);
  TextField field(h, app);
  ASSERT_TRUE(h.run_until([&] { return field.entered != nullptr; }));
  field.enable(0, 0, 1, 10);
  ASSERT_TRUE(h.run_until([&] { return ime.active; }));
  ASSERT_TRUE(h.run_until([&] { return app.keyboard_focus == window.surface(); }));

  keyboard.tap(KEY_Q);
  ASSERT_TRUE(h.run_until([&] { return presses(app, KEY_Q) == 1; })) << "no grab yet: to the app";
  ime.grab_keyboard();
  h.sync();
  keyboard.tap(KEY_G);
  ASSERT_TRUE(h.run_until([&] { return !ime.grabbed_keys.empty(); })) << "the grab heard no key";
  EXPECT_EQ(ime.grabbed_keys.front(), static_cast<uint32_t>(KEY_G));
  h.sync();
  EXPECT_EQ(presses(app, KEY_G), 0) << "the app saw a key the input method grabbed";

  // What the input method passes on, through its own virtual keyboard,
  // reaches the app and does not come back to the grab.
  VirtualKeyboard passed_on(h, *ime_client);
  passed_on.chord({KEY_B});
  ASSERT_TRUE(h.run_until([&] { return presses(app, KEY_B) == 1; }))
      << "the input method's own key did not reach the app";
  EXPECT_EQ(ime.grabbed_keys.size(), 1U) << "the input method's own key came back to its grab";

  zwp_input_method_keyboard_grab_v2_release(ime.grab);
  ime.grab = nullptr;
  h.sync();
  keyboard.tap(KEY_W);
  ASSERT_TRUE(h.run_until([&] { return presses(app, KEY_W) == 1; }))
      << "keys did not come back to the app after the grab";
}

TEST_F(InputMethodTest, ThePopupIsDrawnBelowTheTextCursorAndKeptOnScreen) {
  PopupScene scene(h, ime);
  View* view = scene.view;
  TextField& field = scene.field;
  ASSERT_NE(view, nullptr);
  ASSERT_NE(field.entered, nullptr) << "the field's surface got no keyboard focus";
  EXPECT_EQ(count_pixels(h.capture(), kPopupColour), 0) << "a popup shown with no active field";

  field.enable(10, 20, 2, 16);
  ASSERT_TRUE(h.run_until([&] { return ime.active && ime.rect_h == 16; }))
      << "no text_input_rectangle for the popup";
  // Below the cursor: the rectangle is just above the popup's top left.
  EXPECT_EQ(ime.rect_x, 0);
  EXPECT_EQ(ime.rect_y, -16);
  const int px = view->x() + 10;
  const int py = view->y() + 36;
  h.run_for(std::chrono::milliseconds(20));
  Image shot = h.capture();
  EXPECT_EQ(shot.at(px + 1, py + 1), kPopupColour)
      << "the popup's top left is not below the cursor";
  EXPECT_EQ(shot.at(px + 98, py + 38), kPopupColour);
  EXPECT_NE(shot.at(px + 1, py - 2), kPopupColour) << "the popup covers the text cursor";
  EXPECT_EQ(count_pixels(shot, kPopupColour), 100 * 40);

  // A cursor near the output's bottom right corner: no room below, so the
  // popup goes above the cursor, and it is pushed left to stay on screen.
  const int cx = 640 - 30 - view->x();
  const int cy = 480 - 30 - view->y();
  ASSERT_TRUE(cx > 0 && cx < 600 && cy > 0 && cy < 440) << "the window is not where expected";
  field.move_cursor(cx, cy, 2, 16);
  ASSERT_TRUE(h.run_until([&] { return ime.rect_y == 40; }))
      << "the popup was not put above the cursor (rectangle y " << ime.rect_y << ")";
  EXPECT_EQ(ime.rect_x, 610 - 540) << "the popup was not pushed left by the output's edge";
  h.run_for(std::chrono::milliseconds(20));
  shot = h.capture();
  EXPECT_EQ(count_pixels(shot, kPopupColour), 100 * 40) << "part of the popup is off screen";
  EXPECT_EQ(shot.at(639, 450 - 40), kPopupColour) << "not against the output's right edge, above";
  EXPECT_EQ(shot.at(639, 449), kPopupColour);
  EXPECT_NE(shot.at(639, 450), kPopupColour) << "the popup covers the text cursor";

  field.disable();
  ASSERT_TRUE(h.run_until([&] { return !ime.active; }));
  h.run_for(std::chrono::milliseconds(20));
  EXPECT_EQ(count_pixels(h.capture(), kPopupColour), 0) << "the popup stayed after the field went";
}

// A cursor rectangle is any int32: one at INT32_MAX used to overflow baton's
// sums (UBSan, found by the protocol fuzzer). It is taken as 2^24 pixels
// from the field's surface: far to the right and below, so the popup sits in
// the output's bottom right corner and is told the cursor is beyond it.
TEST_F(InputMethodTest, ACursorRectangleAtTheIntLimitsKeepsThePopupOnScreen) {
  PopupScene scene(h, ime);
  View* view = scene.view;
  TextField& field = scene.field;
  ASSERT_NE(view, nullptr);
  ASSERT_NE(field.entered, nullptr) << "the field's surface got no keyboard focus";

  constexpr int kMax = std::numeric_limits<int32_t>::max();
  field.enable(kMax, kMax, kMax, kMax);
  ASSERT_TRUE(h.run_until([&] { return ime.active && ime.rect_h != 0; }))
      << "no text_input_rectangle for the popup";
  constexpr int kReach = 1 << 24;
  EXPECT_EQ(ime.rect_x, view->x() + kReach - (640 - 100)) << "not told the cursor is to its right";
  EXPECT_EQ(ime.rect_y, view->y() + kReach - (480 - 40)) << "not told the cursor is below it";
  EXPECT_EQ(ime.rect_w, kReach);
  EXPECT_EQ(ime.rect_h, kReach);
  h.run_for(std::chrono::milliseconds(20));
  Image shot = h.capture();
  EXPECT_EQ(count_pixels(shot, kPopupColour), 100 * 40) << "part of the popup is off screen";
  EXPECT_EQ(shot.at(639, 479), kPopupColour) << "not in the output's bottom right corner";

  // The other end: the cursor far up and left, a negative size taken as 0.
  constexpr int kMin = std::numeric_limits<int32_t>::min();
  field.move_cursor(kMin, kMin, -1, kMin);
  ASSERT_TRUE(h.run_until([&] { return ime.rect_h == 0; }))
      << "the popup was not told of the new rectangle (height " << ime.rect_h << ")";
  EXPECT_EQ(ime.rect_x, view->x() - kReach);
  EXPECT_EQ(ime.rect_y, view->y() - kReach);
  EXPECT_EQ(ime.rect_w, 0);
  h.run_for(std::chrono::milliseconds(20));
  shot = h.capture();
  EXPECT_EQ(count_pixels(shot, kPopupColour), 100 * 40) << "part of the popup is off screen";
  EXPECT_EQ(shot.at(0, 0), kPopupColour) << "not in the output's top left corner";
}

TEST_F(InputMethodTest, AnInputMethodThatDiesMidCompositionLeavesNoPreedit) {
  Client app(h);
  Window window(app);
  ASSERT_NE(map_window(h, window, 0xff204060), nullptr);
  TextField field(h, app);
  ASSERT_TRUE(h.run_until([&] { return field.entered != nullptr; }));
  field.enable(0, 0, 1, 10);
  ASSERT_TRUE(h.run_until([&] { return ime.active; }));

  // One input method at a time.
  Client second_client(h);
  InputMethod second(h, second_client);
  ASSERT_TRUE(h.run_until([&] { return second.unavailable; })) << "a second input method";

  ime.preedit("ㅎ");
  ASSERT_TRUE(h.run_until([&] { return field.preedit == "ㅎ"; }));
  ime.show_popup(60, 20, 0xffe0c020);  // with its candidate popup up
  h.sync();
  // Killed mid-composition: its objects go in whatever order libwayland
  // picks (the popup's surface may go before the popup).
  wl_display* gone = ime_client->display();
  ime.abandon();
  ime_owned.reset();
  ime_client.reset();
  h.disconnect(gone);
  ASSERT_TRUE(h.run_until([&] { return field.preedit.empty(); }))
      << "the preedit of a dead input method stayed in the field";
  EXPECT_EQ(field.text, "");

  // A new one serves the field that is still enabled, at once.
  Client third_client(h);
  InputMethod third(h, third_client);
  ASSERT_TRUE(h.run_until([&] { return third.active; }));
  EXPECT_FALSE(third.unavailable);
  third.commit("ok");
  ASSERT_TRUE(h.run_until([&] { return field.text == "ok"; }));
}

}  // namespace
}  // namespace baton::test
