// xdg popups: placed by their positioner, drawn over their parent, and kept
// on the output when the positioner allows it (slid, flipped or resized). A
// popup cannot be its own ancestor. Every anchor and gravity, flip and resize
// are WLCS's XdgPopupPositionerTest cases, which its surface builders keep
// from baton (docs/wlcs.md).
#include <gtest/gtest.h>
#include <linux/input-event-codes.h>

#include <cstdint>
#include <memory>
#include <string>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "tests/support/client.hpp"
#include "tests/support/fake_input.hpp"
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

// A reposition before the popup's first commit is kept for its initial
// configure. wlroots 0.19.2 scheduled a configure at once, which its own
// assertion forbids before the first commit: any client could stop baton
// (found by the protocol fuzzer).
TEST(Popups, RepositionedBeforeTheFirstCommit) {
  Harness h;
  Client c(h);
  MappedParent parent(c);
  xdg_positioner* first = positioner(c, 80, 60, 10, 10, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  xdg_positioner* second = positioner(c, 50, 40, 30, 20, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  Window popup(c, &parent.window, first);
  xdg_popup_reposition(popup.popup(), second, 7);
  xdg_positioner_destroy(first);
  xdg_positioner_destroy(second);
  h.sync();
  EXPECT_EQ(popup.configure_count(), 0u) << "configured before its first commit";
  popup.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; }));
  EXPECT_EQ(popup.popup_x, 30);
  EXPECT_EQ(popup.popup_y, 20);
  EXPECT_EQ(popup.popup_width, 50);
  EXPECT_EQ(popup.popup_height, 40);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// A positioner's values are added in int to place the popup: one far past
// any output (an offset near INT32_MAX) overflowed in wlroots and in baton
// (undefined behaviour, found by the protocol fuzzer under UBSan). Past 2^24
// pixels it is the client's invalid_input error; other clients go on, and a
// popup 16 million pixels away is still configured.
TEST(Popups, APositionerPastTheRangeIsTheClientsError) {
  Harness h;
  Client c(h);
  MappedParent parent(c);
  xdg_positioner* far = positioner(c, 80, 60, 10, 10, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  xdg_positioner_set_offset(far, 0, (1 << 24));
  Window popup(c, &parent.window, far);
  xdg_positioner_destroy(far);
  popup.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; }));
  EXPECT_EQ(popup.popup_y, (1 << 24) + 10);

  Client bad(h);
  MappedParent bad_parent(bad);
  xdg_positioner* past = xdg_wm_base_create_positioner(bad.wm_base);
  xdg_positioner_set_offset(past, 0, INT32_MAX - 100);
  ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(bad.display()) != 0; }))
      << "an offset past 2^24 pixels was taken";
  const wl_interface* interface = nullptr;
  const uint32_t code = wl_display_get_protocol_error(bad.display(), &interface, nullptr);
  ASSERT_NE(interface, nullptr);
  EXPECT_STREQ(interface->name, "xdg_positioner");
  EXPECT_EQ(code, static_cast<uint32_t>(XDG_POSITIONER_ERROR_INVALID_INPUT));
  xdg_positioner_destroy(past);
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
  h.sync();  // baton still answers the other client
}

// A surface keeps its popup role after its xdg_popup is destroyed, so its
// next get_popup could name itself as the parent. wlroots 0.19.2 took it
// (a chain through a child popup is already refused: destroying a popup
// under its child is not_the_topmost_popup), and every walk up the popup chain (baton's
// placement on the next commit) then looped for ever: any client could
// freeze baton (found by the protocol fuzzer as a 60 s timeout). It is the
// client's invalid_popup_parent error; other clients go on.
TEST(Popups, APopupCannotBeItsOwnAncestor) {
  Harness h;
  Client c(h);
  MappedParent parent(c);
  auto expect_refused = [&](Client& bad, const char* what) {
    ASSERT_TRUE(h.run_until([&] { return wl_display_get_error(bad.display()) != 0; }))
        << what << " was taken";
    const wl_interface* interface = nullptr;
    const uint32_t code = wl_display_get_protocol_error(bad.display(), &interface, nullptr);
    ASSERT_NE(interface, nullptr);
    EXPECT_STREQ(interface->name, "xdg_wm_base") << what;
    EXPECT_EQ(code, static_cast<uint32_t>(XDG_WM_BASE_ERROR_INVALID_POPUP_PARENT)) << what;
  };
  // A popup surface's own next popup, parented on itself.
  {
    Client bad(h);
    MappedParent bad_parent(bad);
    xdg_positioner* place =
        positioner(bad, 40, 30, 10, 10, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
    wl_surface* surface = wl_compositor_create_surface(bad.compositor);
    xdg_surface* xdg = xdg_wm_base_get_xdg_surface(bad.wm_base, surface);
    xdg_popup_destroy(xdg_surface_get_popup(xdg, bad_parent.window.xdg(), place));
    xdg_popup* looped = xdg_surface_get_popup(xdg, xdg, place);
    wl_surface_commit(surface);
    expect_refused(bad, "a popup parented on itself");
    xdg_popup_destroy(looped);
    xdg_surface_destroy(xdg);
    wl_surface_destroy(surface);
    xdg_positioner_destroy(place);
  }
  // The first client's popups still work.
  xdg_positioner* place = positioner(c, 40, 30, 10, 10, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  Window popup(c, &parent.window, place);
  xdg_positioner_destroy(place);
  popup.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; }));
  EXPECT_EQ(wl_display_get_error(c.display()), 0);
}

// The popup's top-left for a positioner, as xdg-shell defines it: the anchor
// picks a point of the anchor rectangle (an edge's middle, a corner or the
// centre), and the gravity the direction the popup extends from it.
struct Side {
  uint32_t anchor, gravity;
  int dx, dy;  // -1 left/top, 0 middle, 1 right/bottom
};
constexpr Side kSides[] = {
    {XDG_POSITIONER_ANCHOR_NONE, XDG_POSITIONER_GRAVITY_NONE, 0, 0},
    {XDG_POSITIONER_ANCHOR_TOP, XDG_POSITIONER_GRAVITY_TOP, 0, -1},
    {XDG_POSITIONER_ANCHOR_BOTTOM, XDG_POSITIONER_GRAVITY_BOTTOM, 0, 1},
    {XDG_POSITIONER_ANCHOR_LEFT, XDG_POSITIONER_GRAVITY_LEFT, -1, 0},
    {XDG_POSITIONER_ANCHOR_RIGHT, XDG_POSITIONER_GRAVITY_RIGHT, 1, 0},
    {XDG_POSITIONER_ANCHOR_TOP_LEFT, XDG_POSITIONER_GRAVITY_TOP_LEFT, -1, -1},
    {XDG_POSITIONER_ANCHOR_BOTTOM_LEFT, XDG_POSITIONER_GRAVITY_BOTTOM_LEFT, -1, 1},
    {XDG_POSITIONER_ANCHOR_TOP_RIGHT, XDG_POSITIONER_GRAVITY_TOP_RIGHT, 1, -1},
    {XDG_POSITIONER_ANCHOR_BOTTOM_RIGHT, XDG_POSITIONER_GRAVITY_BOTTOM_RIGHT, 1, 1},
};

TEST(Popups, EachAnchorAndGravityPutsThePopupOnItsSideOfTheAnchorRectangle) {
  Harness h;
  Client c(h);
  MappedParent parent(c);
  ASSERT_NE(parent.view, nullptr);
  // A 40x30 popup around the anchor rectangle (60, 40) 80x60 of the 200x150
  // parent: on each side it lies wholly on the output, so nothing adjusts it.
  constexpr int kW = 40, kH = 30, kRx = 60, kRy = 40, kRw = 80, kRh = 60;
  auto place = [](int d, int start, int length, int size) {
    const int point = start + (d < 0 ? 0 : d > 0 ? length : length / 2);
    return point - (d < 0 ? size : d > 0 ? 0 : size / 2);
  };
  // The anchor alone (gravity none centres the popup on the anchor point)
  // and the gravity alone (the anchor none is the rectangle's centre).
  for (const Side& side : kSides) {
    for (bool by_anchor : {true, false}) {
      xdg_positioner* p = xdg_wm_base_create_positioner(c.wm_base);
      xdg_positioner_set_size(p, kW, kH);
      xdg_positioner_set_anchor_rect(p, kRx, kRy, kRw, kRh);
      xdg_positioner_set_anchor(
          p, by_anchor ? side.anchor : static_cast<uint32_t>(XDG_POSITIONER_ANCHOR_NONE));
      xdg_positioner_set_gravity(
          p, by_anchor ? static_cast<uint32_t>(XDG_POSITIONER_GRAVITY_NONE) : side.gravity);
      const int x =
          by_anchor ? place(side.dx, kRx, kRw, 0) - kW / 2 : place(side.dx, kRx + kRw / 2, 0, kW);
      const int y =
          by_anchor ? place(side.dy, kRy, kRh, 0) - kH / 2 : place(side.dy, kRy + kRh / 2, 0, kH);
      const std::string what = std::string(by_anchor ? "anchor " : "gravity ") +
                               std::to_string(by_anchor ? side.anchor : side.gravity);
      Window popup(c, &parent.window, p);
      xdg_positioner_destroy(p);
      popup.initial_commit();
      ASSERT_TRUE(h.run_until([&] { return popup.configure_count() == 1; })) << what;
      EXPECT_EQ(popup.popup_x, x) << what;
      EXPECT_EQ(popup.popup_y, y) << what;
      EXPECT_EQ(popup.popup_width, kW) << what;
      EXPECT_EQ(popup.popup_height, kH) << what;
      // Drawn there: its corners are the popup's, and just past them is not.
      popup.draw(kW, kH, kBlue);
      h.sync();
      Image shot = h.capture();
      const int px = parent.view->x() + x;
      const int py = parent.view->y() + y;
      EXPECT_EQ(shot.at(px, py), kBlue) << what;
      EXPECT_EQ(shot.at(px + kW - 1, py + kH - 1), kBlue) << what;
      EXPECT_NE(shot.at(px - 1, py), kBlue) << what;
      EXPECT_NE(shot.at(px + kW, py + kH - 1), kBlue) << what;
    }
  }
}

// A popup that would run off the output: flipped to the anchor's other side,
// or cut to what fits, when the client allows that; never both a flip and a
// resize where a flip alone fits.
TEST(Popups, FlippedOrResizedOntoTheOutputWhenAllowed) {
  Harness h;  // 640x480
  Client c(h);
  MappedParent parent(c);
  ASSERT_NE(parent.view, nullptr);
  // 300x40 hanging right of the anchor rectangle (150, 10) 50x20, at the
  // parent's right edge: past the output's. Flipped, it hangs left of the
  // rectangle, where it fits.
  const int room_right = 640 - (parent.view->x() + 200);
  ASSERT_LT(room_right, 300);
  ASSERT_GE(parent.view->x() + 150, 300) << "no room left of the rectangle to flip into";
  auto menu = [&](uint32_t adjust) {
    xdg_positioner* p = xdg_wm_base_create_positioner(c.wm_base);
    xdg_positioner_set_size(p, 300, 40);
    xdg_positioner_set_anchor_rect(p, 150, 10, 50, 20);
    xdg_positioner_set_anchor(p, XDG_POSITIONER_ANCHOR_RIGHT);
    xdg_positioner_set_gravity(p, XDG_POSITIONER_GRAVITY_RIGHT);
    xdg_positioner_set_constraint_adjustment(p, adjust);
    auto popup = std::make_unique<Window>(c, &parent.window, p);
    xdg_positioner_destroy(p);
    popup->initial_commit();
    EXPECT_TRUE(h.run_until([&] { return popup->configure_count() == 1; }));
    return popup;
  };
  {
    auto flipped = menu(XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X);
    EXPECT_EQ(flipped->popup_x, 150 - 300) << "not flipped to the rectangle's left";
    EXPECT_EQ(flipped->popup_y, 0);
    EXPECT_EQ(flipped->popup_width, 300);
    flipped->draw(300, 40, kBlue);
    h.sync();
    Image shot = h.capture();
    EXPECT_EQ(shot.at(parent.view->x() - 150, parent.view->y() + 20), kBlue);
    EXPECT_EQ(shot.at(parent.view->x() + 149, parent.view->y() + 20), kBlue);
    EXPECT_NE(shot.at(parent.view->x() + 150, parent.view->y() + 20), kBlue);
  }
  {
    auto cut = menu(XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X);
    EXPECT_EQ(cut->popup_x, 200) << "a resize moved the popup";
    EXPECT_EQ(cut->popup_width, room_right) << "not cut at the output's right edge";
    EXPECT_EQ(cut->popup_height, 40);
  }
  {
    auto flipped = menu(XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_FLIP_X |
                        XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_RESIZE_X);
    EXPECT_EQ(flipped->popup_x, 150 - 300) << "resized where a flip fits";
    EXPECT_EQ(flipped->popup_width, 300);
  }
}

// A menu that grabs (xdg_popup.grab with the serial of the click that opened
// it) stays open while the pointer moves over its client's surfaces and
// clicks in it, and is dismissed (popup_done) by a click outside them; the
// keyboard stays with the parent throughout. WLCS's XdgPopupTest grab cases,
// which its surface builders keep from baton (docs/wlcs.md). xdg-shell also
// gives the topmost grabbing popup the keyboard: wlroots keeps the focus
// where it was and baton does not move it, so that case is not here.
TEST(Popups, AGrabbingPopupStaysOpenUntilAClickOutsideItsClient) {
  Harness h;
  FakeKeyboard keyboard(h.server());
  FakePointer pointer(h.server());
  Client c(h);
  MappedParent parent(c);
  ASSERT_NE(parent.view, nullptr);
  ASSERT_TRUE(h.run_until([&] { return c.keyboard_focus == parent.window.surface(); }));
  pointer.move_to(parent.view->x() + 20, parent.view->y() + 20);
  pointer.click(BTN_LEFT);
  ASSERT_TRUE(h.run_until([&] { return c.button_serial != 0; }));

  xdg_positioner* p = positioner(c, 80, 60, 100, 100, XDG_POSITIONER_CONSTRAINT_ADJUSTMENT_NONE);
  Window menu(c, &parent.window, p);
  xdg_positioner_destroy(p);
  xdg_popup_grab(menu.popup(), c.seat, c.button_serial);
  menu.initial_commit();
  ASSERT_TRUE(h.run_until([&] { return menu.configure_count() == 1 || menu.popup_done; }));
  ASSERT_FALSE(menu.popup_done) << "the grab was refused";
  menu.draw(80, 60, kBlue);
  h.sync();
  // Over the menu and back over the parent, a click in the menu: still open.
  pointer.move_to(parent.view->x() + 110, parent.view->y() + 110);
  h.sync();
  EXPECT_EQ(c.pointer_focus, menu.surface());
  pointer.move_to(parent.view->x() + 30, parent.view->y() + 30);
  h.sync();
  EXPECT_EQ(c.pointer_focus, parent.window.surface()) << "the grab hid the client's own surface";
  pointer.move_to(parent.view->x() + 110, parent.view->y() + 110);
  pointer.click(BTN_LEFT);
  h.sync();
  EXPECT_FALSE(menu.popup_done) << "dismissed by a click in the menu";
  EXPECT_EQ(c.keyboard_focus, parent.window.surface());

  pointer.move_to(5, 5);  // the background, no surface of the client's
  h.sync();
  EXPECT_EQ(c.pointer_focus, nullptr);
  EXPECT_FALSE(menu.popup_done) << "dismissed by motion alone";
  pointer.click(BTN_LEFT);
  EXPECT_TRUE(h.run_until([&] { return menu.popup_done; })) << "a click outside kept the menu";
  EXPECT_EQ(c.keyboard_focus, parent.window.surface());
}

}  // namespace
}  // namespace baton::test
