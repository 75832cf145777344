// xdg popups: placed by their positioner, drawn over their parent, and kept
// on the output when the positioner allows it.
#include <gtest/gtest.h>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "tests/support/client.hpp"
#include "tests/support/golden.hpp"
#include "tests/support/harness.hpp"

namespace baton::test {
namespace {

constexpr uint32_t kRed = 0xffff0000;
constexpr uint32_t kBlue = 0xff0000ff;

struct MappedParent {
  explicit MappedParent(Client& c) : window(c) {
    window.initial_commit();
    c.harness().run_until([&] { return window.configure_count() == 1; });
    window.draw(200, 150, kRed);
    c.harness().run_until([&] {
      return !c.harness().server().windows().views().empty() &&
             c.harness().server().windows().views().front()->mapped();
    });
    view = c.harness().server().windows().views().front().get();
  }
  Window window;
  View* view = nullptr;
};

xdg_positioner* positioner(Client& c, int w, int h, int ax, int ay, uint32_t adjust) {
  xdg_positioner* p = xdg_wm_base_create_positioner(c.wm_base);
  xdg_positioner_set_size(p, w, h);
  xdg_positioner_set_anchor_rect(p, ax, ay, 1, 1);
  xdg_positioner_set_anchor(p, XDG_POSITIONER_ANCHOR_TOP_LEFT);
  xdg_positioner_set_gravity(p, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT);
  xdg_positioner_set_constraint_adjustment(p, adjust);
  return p;
}

TEST(Popups, PlacedWhereThePositionerSaysAndDrawnOverTheParent) {
  Harness h;
  Client c(h);
  MappedParent parent(c);
  ASSERT_NE(parent.view, nullptr);

  xdg_positioner* p = positioner(c, 80, 60, 10, 10, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  Window popup(c, &parent.window, p);
  xdg_positioner_destroy(p);
  popup.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; }));
  EXPECT_EQ(popup.popup_x, 10);
  EXPECT_EQ(popup.popup_y, 10);
  EXPECT_EQ(popup.popup_width, 80);
  EXPECT_EQ(popup.popup_height, 60);
  popup.draw(80, 60, kBlue);
  h.sync();

  Image shot = h.capture();
  int px = parent.view->x() + 10;
  int py = parent.view->y() + 10;
  EXPECT_EQ(shot.at(px, py), kBlue);
  EXPECT_EQ(shot.at(px + 79, py + 59), kBlue);
  EXPECT_EQ(shot.at(px - 1, py), kRed);
  EXPECT_EQ(shot.at(px + 80, py + 59), kRed);
  auto golden = compare_to_golden(shot, "xdg-popup-over-toplevel");
  EXPECT_TRUE(golden.ok) << golden.message;

  // Unmapping the popup shows the parent again.
  popup.unmap();
  h.sync();
  EXPECT_EQ(h.capture().at(px, py), kRed);
}

TEST(Popups, SlidBackOntoTheOutputWhenAllowed) {
  Harness h;  // 640x480; the parent sits at 220,165
  Client c(h);
  MappedParent parent(c);
  const uint32_t slide =
      XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_X | XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_SLIDE_Y;
  // Asked for at the parent's bottom-right corner, 300x300 would run past the
  // output's right and bottom edges.
  xdg_positioner* p = positioner(c, 300, 300, 190, 140, slide);
  Window popup(c, &parent.window, p);
  xdg_positioner_destroy(p);
  popup.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; }));
  int right = parent.view->x() + popup.popup_x + popup.popup_width;
  int bottom = parent.view->y() + popup.popup_y + popup.popup_height;
  EXPECT_LE(right, 640);
  EXPECT_LE(bottom, 480);
  EXPECT_GE(parent.view->x() + popup.popup_x, 0);
  EXPECT_EQ(popup.popup_width, 300);
}

TEST(Popups, UnconstrainedWhenTheClientForbidsAdjustment) {
  Harness h;
  Client c(h);
  MappedParent parent(c);
  xdg_positioner* p = positioner(c, 300, 300, 190, 140, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  Window popup(c, &parent.window, p);
  xdg_positioner_destroy(p);
  popup.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; }));
  EXPECT_EQ(popup.popup_x, 190);
  EXPECT_EQ(popup.popup_y, 140);
}

}  // namespace
}  // namespace baton::test
