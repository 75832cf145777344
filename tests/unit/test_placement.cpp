// Where new windows open (compositor/desktop/placement): always wholly
// inside the usable area, apart while there is room, then a cascade that
// wraps inside the area; dialogs centred on their parent.
#include <gtest/gtest.h>

#include <vector>

#include "compositor/desktop/placement.hpp"

namespace baton {
namespace {

bool inside(const Rect& r, const Rect& area) {
  return r.x >= area.x && r.y >= area.y && r.x + r.width <= area.x + area.width &&
         r.y + r.height <= area.y + area.height;
}

bool overlap(const Rect& a, const Rect& b) {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

const Rect kScreen{0, 0, 1920, 1080};

TEST(Placement, TheFirstWindowOpensCentred) {
  const Rect r = place_window(kScreen, 250, 250, {});
  EXPECT_EQ(r.x, 835);
  EXPECT_EQ(r.y, 415);
  EXPECT_EQ(r.width, 250);
  EXPECT_EQ(r.height, 250);
}

TEST(Placement, TheContentBelowATitleBarIsWhatIsCentred) {
  const Rect r = place_window(kScreen, 250, 274, {}, nullptr, 24);
  EXPECT_EQ(r.y + 24, 415);
}

TEST(Placement, ThirtyTwoWindowsAllStayWhollyOnTheOutput) {
  std::vector<Rect> placed;
  for (int i = 0; i < 32; ++i) {
    const Rect r = place_window(kScreen, 250, 250, placed);
    EXPECT_TRUE(inside(r, kScreen)) << "window " << i << " at " << r.x << "," << r.y;
    placed.push_back(r);
  }
  // 1920x1080 holds 7x4 = 28 such windows side by side: the first of them
  // never overlap one another.
  int apart = 0;
  for (size_t i = 0; i < placed.size(); ++i) {
    bool any = false;
    for (size_t j = 0; j < i; ++j) any = any || overlap(placed[i], placed[j]);
    apart += any ? 0 : 1;
  }
  EXPECT_GE(apart, 20);
  // Once full, they cascade: no two at the same spot.
  for (size_t i = 0; i < placed.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      EXPECT_FALSE(placed[i].x == placed[j].x && placed[i].y == placed[j].y)
          << "windows " << j << " and " << i << " at the same spot";
}

TEST(Placement, TheCascadeWrapsInsideTheArea) {
  std::vector<Rect> placed;
  const Rect small{0, 0, 640, 480};
  for (int i = 0; i < 100; ++i) {
    const Rect r = place_window(small, 400, 300, placed);
    ASSERT_TRUE(inside(r, small)) << "window " << i << " at " << r.x << "," << r.y;
    placed.push_back(r);
  }
}

TEST(Placement, PanelsAreLeftFree) {
  const Rect usable{0, 32, 1920, 1048};  // a 32 px top bar
  std::vector<Rect> placed;
  for (int i = 0; i < 40; ++i) {
    const Rect r = place_window(usable, 600, 500, placed);
    EXPECT_GE(r.y, 32) << "window " << i << " under the panel";
    EXPECT_TRUE(inside(r, usable));
    placed.push_back(r);
  }
}

TEST(Placement, AWindowLargerThanTheAreaIsShrunkToIt) {
  const Rect r = place_window(kScreen, 2500, 1400, {});
  EXPECT_EQ(r.x, 0);
  EXPECT_EQ(r.y, 0);
  EXPECT_EQ(r.width, 1920);
  EXPECT_EQ(r.height, 1080);
}

TEST(Placement, ADialogIsCentredOnItsParentAndKeptInside) {
  const Rect parent{400, 300, 800, 600};
  const Rect r = place_window(kScreen, 300, 200, {}, &parent);
  EXPECT_EQ(r.x + r.width / 2, parent.x + parent.width / 2);
  EXPECT_EQ(r.y + r.height / 2, parent.y + parent.height / 2);
  // A parent hanging off the right edge: the dialog stays on the output.
  const Rect edge{1700, 900, 800, 600};
  EXPECT_TRUE(inside(place_window(kScreen, 300, 200, {}, &edge), kScreen));
}

}  // namespace
}  // namespace baton
