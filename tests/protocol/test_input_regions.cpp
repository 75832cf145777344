// Input regions from the client's side (wl_surface.set_input_region), the
// behaviour of WLCS's RegionSurfaceInputCombinations, SurfaceInputCombinations
// and ToplevelInputCombinations, which WLCS 1.7's surface builders keep from
// baton (docs/wlcs.md): a pointer and a finger reach a window only inside its
// input region; an empty region, an unmapped subsurface or an unmapped parent
// lets input through to what lies below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/map_window.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kGreen = 0xff00ff00;

class InputRegions : public ::testing::Test {
 protected:
  InputRegions() : pointer(h.server()), screen(h.server()), c(h), globals(h, c.display()), w(c) {
    view = map_window(h, w, kRed);
    EXPECT_TRUE(h.run_until([&] { return c.touch != nullptr && c.pointer != nullptr; }));
  }
  ~InputRegions() override {
    if (subcompositor != nullptr) wl_subcompositor_destroy(subcompositor);
  }

  /// Sets `surface`'s input region to the rectangle (or, with none, empty).
  void set_region(wl_surface* surface, std::vector<int> rect) {
    wl_region* region = wl_compositor_create_region(c.compositor);
    if (rect.size() == 4) wl_region_add(region, rect[0], rect[1], rect[2], rect[3]);
    wl_surface_set_input_region(surface, region);
    wl_region_destroy(region);
  }
  /// Moves the pointer to the window's surface-local (x, y); what the client
  /// then holds the pointer focus on (null: nothing of it).
  wl_surface* pointer_at(double x, double y) {
    pointer.move_to(view->x() + x, view->y() + y);
    h.sync();
    return c.pointer_focus;
  }
  /// A finger down and up at the window's surface-local (x, y); the surface
  /// its down went to (null: the client heard none).
  wl_surface* touch_at(double x, double y) {
    c.touch_events.clear();
    screen.down(1, view->x() + x, view->y() + y);
    screen.frame();
    screen.up(1);
    screen.frame();
    h.sync();
    for (const auto& e : c.touch_events)
      if (e.kind == "down") return e.surface;
    return nullptr;
  }

  Harness h;
  FakePointer pointer;
  FakeTouch screen;
  Client c;
  Globals globals;
  Window w;
  View* view = nullptr;
  wl_subcompositor* subcompositor = nullptr;
};

TEST_F(InputRegions, PointerAndTouchReachAWindowOnlyInsideItsInputRegion) {
  ASSERT_NE(view, nullptr);
  // The 200x150 window takes input only in (50, 40) 100x60.
  set_region(w.surface(), {50, 40, 100, 60});
  wl_surface_commit(w.surface());
  h.sync();

  EXPECT_EQ(pointer_at(60, 50), w.surface()) << "inside the region";
  EXPECT_NEAR(c.pointer_x, 60, 0.01);
  EXPECT_NEAR(c.pointer_y, 50, 0.01);
  EXPECT_EQ(pointer_at(20, 20), nullptr) << "on the window's pixels, outside its region";
  EXPECT_EQ(pointer_at(149, 99), w.surface()) << "back in, at the region's last pixel";
  EXPECT_EQ(pointer_at(150, 99), nullptr) << "one past the region's right edge";

  EXPECT_EQ(touch_at(20, 20), nullptr) << "a finger outside the region reached the window";
  EXPECT_EQ(touch_at(60, 50), w.surface()) << "a finger inside the region did not";

  // No region at all (a null one) is the whole surface again.
  wl_surface_set_input_region(w.surface(), nullptr);
  wl_surface_commit(w.surface());
  h.sync();
  EXPECT_EQ(pointer_at(20, 20), w.surface()) << "a null region is the whole surface";
  EXPECT_EQ(touch_at(20, 20), w.surface());
}

TEST_F(InputRegions, AnEmptyRegionOrAnUnmappedSubsurfaceLetsInputThroughToItsParent) {
  ASSERT_NE(view, nullptr);
  subcompositor = static_cast<wl_subcompositor*>(globals.bind(&wl_subcompositor_interface, 1));
  ASSERT_NE(subcompositor, nullptr);
  // An 80x80 green subsurface at (20, 20) over the red window, taking no input.
  wl_surface* child = wl_compositor_create_surface(c.compositor);
  wl_subsurface* sub = wl_subcompositor_get_subsurface(subcompositor, child, w.surface());
  wl_subsurface_set_position(sub, 20, 20);
  ShmBuffer green(c.shm, 80, 80, kGreen);
  wl_surface_attach(child, green.get(), 0, 0);
  wl_surface_damage(child, 0, 0, 80, 80);
  set_region(child, {});
  wl_surface_commit(child);
  wl_surface_commit(w.surface());  // a subsurface is synchronized: its parent applies it
  h.sync();
  ASSERT_EQ(h.capture().at(view->x() + 30, view->y() + 30), kGreen)
      << "the subsurface is not shown";

  EXPECT_EQ(pointer_at(30, 30), w.surface()) << "an empty region took the pointer from the parent";
  EXPECT_NEAR(c.pointer_x, 30, 0.01) << "in the parent's coordinates";
  EXPECT_EQ(touch_at(31, 31), w.surface());

  // With the default region the subsurface takes it, in its own coordinates.
  wl_surface_set_input_region(child, nullptr);
  wl_surface_commit(child);
  wl_surface_commit(w.surface());
  h.sync();
  EXPECT_EQ(pointer_at(31, 30), child);
  EXPECT_NEAR(c.pointer_x, 11, 0.01);
  EXPECT_EQ(touch_at(30, 31), child);

  // Unmapped (a null buffer), the subsurface lets everything through again.
  wl_surface_attach(child, nullptr, 0, 0);
  wl_surface_commit(child);
  wl_surface_commit(w.surface());
  h.sync();
  EXPECT_EQ(pointer_at(30, 30), w.surface()) << "an unmapped subsurface kept the pointer";
  EXPECT_EQ(touch_at(31, 31), w.surface());

  // Mapped again, then its parent unmapped: neither gets input any more.
  wl_surface_attach(child, green.get(), 0, 0);
  wl_surface_damage(child, 0, 0, 80, 80);
  wl_surface_commit(child);
  wl_surface_commit(w.surface());
  h.sync();
  EXPECT_EQ(pointer_at(31, 31), child);
  w.unmap();
  h.sync();
  EXPECT_EQ(pointer_at(30, 30), nullptr) << "the subsurface of an unmapped window took the pointer";
  EXPECT_EQ(touch_at(31, 31), nullptr);

  wl_subsurface_destroy(sub);
  wl_surface_destroy(child);
}

}  // namespace
}  // namespace baton::test
