// Game input: a locked pointer stays put and the client gets only relative
// motion; a confined pointer cannot leave its region; the cursor is hidden
// while locked.
#include <gtest/gtest.h>

#include <cstring>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/input/seat.hpp"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/harness.hpp"
#include "util/owned.hpp"
#include "util/wlr.hpp"

namespace baton::test {
namespace {

struct GameGlobals {
  Owned<zwp_pointer_constraints_v1, zwp_pointer_constraints_v1_destroy> constraints;
  Owned<zwp_relative_pointer_manager_v1, zwp_relative_pointer_manager_v1_destroy> relative;
};

struct RelativeMotion {
  double dx = 0, dy = 0, raw_dx = 0, raw_dy = 0;
  int events = 0;
};

class PointerConstraintsTest : public ::testing::Test {
 protected:
  PointerConstraintsTest() : pointer(h.server()), c(h), window(c) {
    registry = Owned<wl_registry, wl_registry_destroy>(wl_display_get_registry(c.display()));
    static const wl_registry_listener listener = {
        [](void* data, wl_registry* r, uint32_t name, const char* iface, uint32_t) {
          auto* g = static_cast<GameGlobals*>(data);
          if (std::strcmp(iface, zwp_pointer_constraints_v1_interface.name) == 0)
            g->constraints = decltype(g->constraints)(static_cast<zwp_pointer_constraints_v1*>(
                wl_registry_bind(r, name, &zwp_pointer_constraints_v1_interface, 1)));
          if (std::strcmp(iface, zwp_relative_pointer_manager_v1_interface.name) == 0)
            g->relative = decltype(g->relative)(static_cast<zwp_relative_pointer_manager_v1*>(
                wl_registry_bind(r, name, &zwp_relative_pointer_manager_v1_interface, 1)));
        },
        [](void*, wl_registry*, uint32_t) {}};
    wl_registry_add_listener(registry, &listener, &globals);
    h.sync();
    window.initial_commit();
    h.run_until([&] { return window.configure_count() == 1; });
    window.draw(200, 150, 0xff804020);
    h.run_until([&] {
      return !h.server().windows().views().empty() &&
             h.server().windows().views().front()->mapped();
    });
    view = h.server().windows().views().front().get();
    pointer.move_to(view->x() + 100, view->y() + 75);
    h.run_until([&] { return c.pointer_focus == window.surface(); });
  }

  void listen_relative() {
    relative_pointer = decltype(relative_pointer)(
        zwp_relative_pointer_manager_v1_get_relative_pointer(globals.relative, c.pointer));
    static const zwp_relative_pointer_v1_listener listener = {
        [](void* data, zwp_relative_pointer_v1*, uint32_t, uint32_t, wl_fixed_t dx, wl_fixed_t dy,
           wl_fixed_t rdx, wl_fixed_t rdy) {
          auto* m = static_cast<RelativeMotion*>(data);
          m->dx += wl_fixed_to_double(dx);
          m->dy += wl_fixed_to_double(dy);
          m->raw_dx += wl_fixed_to_double(rdx);
          m->raw_dy += wl_fixed_to_double(rdy);
          ++m->events;
        }};
    zwp_relative_pointer_v1_add_listener(relative_pointer, &listener, &motion);
  }

  Harness h;
  FakePointer pointer;
  Client c;
  Window window;
  View* view = nullptr;
  // Client objects: destroyed before the client's connection.
  Owned<wl_registry, wl_registry_destroy> registry;
  GameGlobals globals;
  RelativeMotion motion;
  Owned<zwp_relative_pointer_v1, zwp_relative_pointer_v1_destroy> relative_pointer;
};

TEST_F(PointerConstraintsTest, GlobalsAreAdvertised) {
  EXPECT_NE(globals.constraints.get(), nullptr);
  EXPECT_NE(globals.relative.get(), nullptr);
}

TEST_F(PointerConstraintsTest, RelativeMotionArrivesUnaccelerated) {
  listen_relative();
  h.sync();
  pointer.move_by(7, -3);
  ASSERT_TRUE(h.run_until([&] { return motion.events == 1; }));
  EXPECT_DOUBLE_EQ(motion.dx, 7);
  EXPECT_DOUBLE_EQ(motion.dy, -3);
  EXPECT_DOUBLE_EQ(motion.raw_dx, 7);
  EXPECT_DOUBLE_EQ(motion.raw_dy, -3);
}

TEST_F(PointerConstraintsTest, LockedPointerStaysPutAndOnlyRelativeMotionFlows) {
  listen_relative();
  // A magenta cursor image, visible at the pointer before the lock.
  wl_surface* cursor = wl_compositor_create_surface(c.compositor);
  ShmBuffer image(c.shm, 8, 8, 0xffff00ff);
  wl_surface_attach(cursor, image.get(), 0, 0);
  wl_surface_damage_buffer(cursor, 0, 0, 8, 8);
  wl_surface_commit(cursor);
  wl_pointer_set_cursor(c.pointer, c.pointer_enter_serial, cursor, 0, 0);
  h.sync();
  const int px = view->x() + 100;
  const int py = view->y() + 75;
  ASSERT_EQ(h.capture().at(px + 2, py + 2), 0xffff00ffu);

  bool locked = false;
  zwp_locked_pointer_v1* lock = zwp_pointer_constraints_v1_lock_pointer(
      globals.constraints, window.surface(), c.pointer, nullptr,
      ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
  static const zwp_locked_pointer_v1_listener listener = {
      [](void* d, zwp_locked_pointer_v1*) { *static_cast<bool*>(d) = true; },
      [](void* d, zwp_locked_pointer_v1*) { *static_cast<bool*>(d) = false; }};
  zwp_locked_pointer_v1_add_listener(lock, &listener, &locked);
  ASSERT_TRUE(h.run_until([&] { return locked; })) << "the lock was never activated";

  Seat& seat = h.server().seat();
  double x0 = seat.cursor_x();
  double y0 = seat.cursor_y();
  double client_x0 = c.pointer_x;
  EXPECT_EQ(h.capture().at(px + 2, py + 2), 0xff804020u) << "cursor image still shown while locked";
  for (int i = 0; i < 10; ++i) pointer.move_by(50, 40);
  ASSERT_TRUE(h.run_until([&] { return motion.events == 10; }));
  h.sync();
  EXPECT_DOUBLE_EQ(motion.dx, 500);
  EXPECT_DOUBLE_EQ(motion.dy, 400);
  EXPECT_EQ(seat.cursor_x(), x0);
  EXPECT_EQ(seat.cursor_y(), y0);
  EXPECT_EQ(c.pointer_x, client_x0) << "wl_pointer.motion was sent while locked";
  EXPECT_EQ(c.pointer_focus, window.surface());

  // Unlocked, the pointer moves again.
  zwp_locked_pointer_v1_destroy(lock);
  h.sync();
  pointer.move_by(10, 0);
  h.sync();
  EXPECT_EQ(seat.cursor_x(), x0 + 10);
  wl_surface_destroy(cursor);
}

TEST_F(PointerConstraintsTest, ConfinedPointerCannotLeaveItsRegion) {
  wl_region* region = wl_compositor_create_region(c.compositor);
  wl_region_add(region, 20, 10, 100, 80);  // surface-local 20..119 x 10..89
  bool confined = false;
  zwp_confined_pointer_v1* confine = zwp_pointer_constraints_v1_confine_pointer(
      globals.constraints, window.surface(), c.pointer, region,
      ZWP_POINTER_CONSTRAINTS_V1_LIFETIME_PERSISTENT);
  wl_region_destroy(region);
  wl_surface_commit(window.surface());  // the region is surface state, applied on commit
  static const zwp_confined_pointer_v1_listener listener = {
      [](void* d, zwp_confined_pointer_v1*) { *static_cast<bool*>(d) = true; },
      [](void* d, zwp_confined_pointer_v1*) { *static_cast<bool*>(d) = false; }};
  zwp_confined_pointer_v1_add_listener(confine, &listener, &confined);
  ASSERT_TRUE(h.run_until([&] { return confined; }));

  Seat& seat = h.server().seat();
  for (int i = 0; i < 20; ++i) pointer.move_by(40, 40);  // far past the corner
  h.sync();
  EXPECT_EQ(seat.cursor_x(), view->x() + 119);
  EXPECT_EQ(seat.cursor_y(), view->y() + 89);
  for (int i = 0; i < 20; ++i) pointer.move_by(-40, -40);
  h.sync();
  EXPECT_EQ(seat.cursor_x(), view->x() + 20);
  EXPECT_EQ(seat.cursor_y(), view->y() + 10);
  EXPECT_EQ(c.pointer_focus, window.surface());
  zwp_confined_pointer_v1_destroy(confine);
}

}  // namespace
}  // namespace baton::test
