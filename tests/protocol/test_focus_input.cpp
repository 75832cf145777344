// Keyboard focus, click-to-focus, stacking, key and button delivery, and the
// cursor image, driven through synthetic devices on the seat.
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <utility>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;
constexpr uint32_t kMagenta = 0xffff00ff;

class FocusTest : public ::testing::Test {
 protected:
  FocusTest() : keyboard(h.server()), pointer(h.server()), c(h) {}

  View* map(Window& w, uint32_t colour) {
    w.initial_commit();
    EXPECT_TRUE(h.run_until([&] { return w.configure_count() >= 1; }));
    w.draw(200, 150, colour);
    View* found = nullptr;
    EXPECT_TRUE(h.run_until([&] {
      for (const auto& v : h.server().windows().views())
        if (v->mapped() && v->surface() != nullptr && v.get() != last_) found = v.get();
      return found != nullptr && c.keyboard_focus == w.surface();
    }));
    last_ = found;
    return found;
  }

  /// a red, then b green (b has the focus).
  std::pair<View*, View*> map_red_then_green(Window& a, Window& b) {
    View* va = map(a, kRed);
    return {va, map(b, kGreen)};
  }

  Harness h;
  FakeKeyboard keyboard;
  FakePointer pointer;
  Client c;
  View* last_ = nullptr;
};

TEST_F(FocusTest, SeatAdvertisesItsDevices) {
  EXPECT_EQ(c.seat_capabilities, WL_SEAT_CAPABILITY_KEYBOARD | WL_SEAT_CAPABILITY_POINTER);
  ASSERT_NE(c.keyboard, nullptr);
  ASSERT_TRUE(h.run_until([&] { return c.keymap_received; }));
}

TEST_F(FocusTest, NewWindowTakesFocusAndIsActivated) {
  Window a(c);
  map(a, kRed);
  EXPECT_EQ(c.keyboard_focus, a.surface());
  ASSERT_TRUE(h.run_until([&] { return a.last_configure().activated; }));

  Window b(c);
  map(b, kGreen);
  EXPECT_EQ(c.keyboard_focus, b.surface());
  ASSERT_TRUE(
      h.run_until([&] { return !a.last_configure().activated && b.last_configure().activated; }));
}

TEST_F(FocusTest, KeysGoToTheFocusedWindow) {
  Window a(c);
  map(a, kRed);
  keyboard.tap(KEY_A);
  ASSERT_TRUE(h.run_until([&] { return c.keys.size() == 2; }));
  EXPECT_EQ(c.keys[0].key, static_cast<uint32_t>(KEY_A));
  EXPECT_EQ(c.keys[0].state, static_cast<uint32_t>(WL_KEYBOARD_KEY_STATE_PRESSED));
  EXPECT_EQ(c.keys[1].state, static_cast<uint32_t>(WL_KEYBOARD_KEY_STATE_RELEASED));
}

// Input latency must not depend on rendering: with nothing to redraw, no
// output frame happens, and keys still reach the client at once.
TEST_F(FocusTest, KeysAreDeliveredWithoutWaitingForAFrame) {
  Window a(c);
  map(a, kRed);
  h.run_for(std::chrono::milliseconds(100));  // let the map's frames settle
  uint64_t frames = h.server().outputs().front()->frames();
  for (uint32_t key : {KEY_Q, KEY_W, KEY_E}) keyboard.tap(key);
  ASSERT_TRUE(h.run_until([&] { return c.keys.size() == 6; }, std::chrono::milliseconds(100)));
  EXPECT_EQ(h.server().outputs().front()->frames(), frames)
      << "key delivery waited for an output frame";
}

TEST_F(FocusTest, ClickRaisesAndFocusesTheWindowUnderThePointer) {
  Window a(c);
  Window b(c);
  auto [va, vb] = map_red_then_green(a, b);
  ASSERT_TRUE(va && vb);
  // Placement keeps them apart: put b over a, offset; a point inside both
  // shows b, the newer one.
  vb->move_to(va->x() + 32, va->y() + 32);
  h.sync();
  int ox = vb->x() + 10;
  int oy = vb->y() + 10;
  ASSERT_EQ(h.capture().at(ox, oy), kGreen);

  // Click on a part of a that b does not cover.
  pointer.move_to(va->x() + 5, va->y() + 5);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));
  EXPECT_NEAR(c.pointer_x, 5, 1);
  EXPECT_NEAR(c.pointer_y, 5, 1);
  pointer.click(BTN_LEFT);
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface() && !c.buttons.empty(); }));
  EXPECT_EQ(c.buttons.front(), static_cast<uint32_t>(BTN_LEFT));
  EXPECT_EQ(h.server().windows().focused(), va);
  ASSERT_TRUE(
      h.run_until([&] { return a.last_configure().activated && !b.last_configure().activated; }));
  EXPECT_EQ(h.capture().at(ox, oy), kRed);  // a is on top now
}

TEST_F(FocusTest, AButtonHeldKeepsThePointerOnTheWindowItWasPressedOver) {
  Window a(c);
  Window b(c);
  auto [va, vb] = map_red_then_green(a, b);
  ASSERT_TRUE(va && vb);
  vb->move_to(va->x() + 300, va->y());  // side by side: a is 200 wide
  pointer.move_to(va->x() + 5, va->y() + 5);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));

  // Pressed over a and dragged onto b: a keeps the pointer (a scrollbar or
  // a text selection dragged past its edge), in its own coordinates.
  pointer.press(BTN_LEFT, true);
  pointer.move_to(vb->x() + 20, vb->y() + 20);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_x > 250; })) << "a saw no motion past its edge";
  EXPECT_EQ(c.pointer_focus, a.surface()) << "b took the pointer while a's button was held";
  EXPECT_NEAR(c.pointer_x, 320, 1);
  EXPECT_NEAR(c.pointer_y, 20, 1);

  // Released: the pointer goes to the window under it.
  pointer.press(BTN_LEFT, false);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == b.surface(); }))
      << "the release did not give the pointer to the window under it";
  EXPECT_NEAR(c.pointer_x, 20, 1);
  EXPECT_NEAR(c.pointer_y, 20, 1);
}

TEST_F(FocusTest, UnmappingTheFocusedWindowFocusesThePreviousOne) {
  Window a(c);
  map(a, kRed);
  Window b(c);
  map(b, kGreen);
  b.unmap();
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == a.surface(); }));
  a.unmap();
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == nullptr; }));
  EXPECT_EQ(h.server().windows().focused(), nullptr);
}

TEST_F(FocusTest, ClientCursorImageIsDrawnAtThePointer) {
  Window a(c);
  View* va = map(a, kRed);
  pointer.move_to(va->x() + 50, va->y() + 50);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));

  wl_surface* cursor = wl_compositor_create_surface(c.compositor);
  ShmBuffer image(c.shm, 16, 16, kMagenta);
  wl_surface_attach(cursor, image.get(), 0, 0);
  wl_surface_damage_buffer(cursor, 0, 0, 16, 16);
  wl_surface_commit(cursor);
  wl_pointer_set_cursor(c.pointer, c.pointer_enter_serial, cursor, 0, 0);
  h.sync();
  Image shot = h.capture();
  EXPECT_EQ(shot.at(va->x() + 50, va->y() + 50), kMagenta);
  EXPECT_EQ(shot.at(va->x() + 65, va->y() + 65), kMagenta);
  EXPECT_EQ(shot.at(va->x() + 67, va->y() + 67), kRed);
  wl_surface_destroy(cursor);
}

TEST_F(FocusTest, CursorRequestsFromUnfocusedClientsAreIgnored) {
  Window a(c);
  View* va = map(a, kRed);
  Client other(h);
  pointer.move_to(va->x() + 50, va->y() + 50);
  ASSERT_TRUE(h.run_until([&] { return c.pointer_focus == a.surface(); }));
  ASSERT_NE(other.pointer, nullptr);
  wl_surface* cursor = wl_compositor_create_surface(other.compositor);
  ShmBuffer image(other.shm, 16, 16, kMagenta);
  wl_surface_attach(cursor, image.get(), 0, 0);
  wl_surface_commit(cursor);
  wl_pointer_set_cursor(other.pointer, 1, cursor, 0, 0);
  h.sync();
  EXPECT_NE(h.capture().at(va->x() + 50, va->y() + 50), kMagenta);
  wl_surface_destroy(cursor);
}

// Leaving with the exit binding leaves Super and Shift held; destroying the
// backend's keyboards then releases them, in the middle of the server's
// teardown. Seen as a crash on the way out of a logind session.
TEST(ShutdownTest, KeysStillHeldWhenTheServerGoes) {
  auto server = std::make_unique<Server>(headless_options());
  ASSERT_TRUE(server->start());
  FakeKeyboard keyboard(*server);
  keyboard.finish_with_backend(*server);
  keyboard.press(KEY_LEFTMETA, true);
  keyboard.press(KEY_LEFTSHIFT, true);
  server.reset();
  SUCCEED() << "the server went with keys held";
}

}  // namespace
}  // namespace baton::test
