// Where layer surfaces go (compositor/shell/layer_placement): stretched
// between margins, against the one anchored edge, centred between two or
// none; exclusive zones taken off the usable area with their margin; client
// values at the int32 limits kept in range instead of overflowing.
#include <gtest/gtest.h>

#include <limits>

#include "compositor/shell/layer_placement.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

constexpr uint32_t kTop = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP;
constexpr uint32_t kBottom = ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
constexpr uint32_t kLeft = ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT;
constexpr uint32_t kRight = ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
const wlr_box kOutput{1280, 0, 1920, 1080};

wlr_layer_surface_v1_state state(uint32_t anchor, uint32_t width, uint32_t height, int32_t zone) {
  wlr_layer_surface_v1_state s{};
  s.anchor = anchor;
  s.desired_width = width;
  s.desired_height = height;
  s.exclusive_zone = zone;
  return s;
}

TEST(LayerPlacement, AStretchedBarFillsItsEdgeBetweenItsMargins) {
  wlr_layer_surface_v1_state bar = state(kTop | kLeft | kRight, 0, 30, 30);
  bar.margin = {4, 10, 0, 20};  // top, right, bottom, left
  const wlr_box box = place_layer_surface(bar, kOutput, kOutput);
  EXPECT_EQ(box.x, 1280 + 20);
  EXPECT_EQ(box.y, 4);
  EXPECT_EQ(box.width, 1920 - 30);
  EXPECT_EQ(box.height, 30);
  wlr_box usable = kOutput;
  reserve_exclusive_zone(bar, usable);
  EXPECT_EQ(usable.y, 34) << "the zone and the top margin";
  EXPECT_EQ(usable.height, 1080 - 34);
  EXPECT_EQ(usable.x, 1280);
  EXPECT_EQ(usable.width, 1920);
}

TEST(LayerPlacement, ASizedSurfaceSitsAgainstItsAnchorOrInTheMiddle) {
  wlr_layer_surface_v1_state s = state(kBottom | kRight, 100, 50, 0);
  s.margin = {0, 8, 6, 0};
  wlr_box box = place_layer_surface(s, kOutput, kOutput);
  EXPECT_EQ(box.x, 1280 + 1920 - 100 - 8);
  EXPECT_EQ(box.y, 1080 - 50 - 6);
  s.anchor = 0;
  box = place_layer_surface(s, kOutput, kOutput);
  EXPECT_EQ(box.x, 1280 + 960 - 50);
  EXPECT_EQ(box.y, 540 - 25);
  s.anchor = kLeft | kRight;  // both: centred too, margins aside
  box = place_layer_surface(s, kOutput, kOutput);
  EXPECT_EQ(box.x, 1280 + 960 - 50);
}

TEST(LayerPlacement, ZoneMinusOneIgnoresOtherZonesAndOthersRespectThem) {
  wlr_box usable = kOutput;
  reserve_exclusive_zone(state(kLeft, 48, 0, 48), usable);
  EXPECT_EQ(usable.x, 1280 + 48);
  const wlr_box overlay =
      place_layer_surface(state(kTop | kBottom | kLeft | kRight, 0, 0, -1), kOutput, usable);
  EXPECT_EQ(overlay.x, 1280);
  EXPECT_EQ(overlay.width, 1920);
  const wlr_box window_bar =
      place_layer_surface(state(kTop | kLeft | kRight, 0, 20, 0), kOutput, usable);
  EXPECT_EQ(window_bar.x, 1280 + 48);
  EXPECT_EQ(window_bar.width, 1920 - 48);
}

TEST(LayerPlacement, OnlyOneEdgeOrOneWithBothBesideItReservesAZone) {
  for (uint32_t anchor : {kTop | kLeft, kLeft | kRight, kTop | kBottom | kLeft | kRight, 0u}) {
    wlr_box usable = kOutput;
    reserve_exclusive_zone(state(anchor, 10, 10, 10), usable);
    EXPECT_EQ(usable.x, kOutput.x) << anchor;
    EXPECT_EQ(usable.y, kOutput.y) << anchor;
    EXPECT_EQ(usable.width, kOutput.width) << anchor;
    EXPECT_EQ(usable.height, kOutput.height) << anchor;
  }
  wlr_box usable = kOutput;
  reserve_exclusive_zone(state(kRight | kTop | kBottom, 0, 0, 64), usable);
  EXPECT_EQ(usable.width, 1920 - 64);
  reserve_exclusive_zone(state(kBottom, 0, 0, 40), usable);
  EXPECT_EQ(usable.height, 1080 - 40);
}

TEST(LayerPlacement, ValuesAtTheLimitsStayInRange) {
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  wlr_layer_surface_v1_state s = state(kTop | kLeft | kRight, 0, 30, kMax);
  s.margin = {kMax, kMax, kMax, -kMax};
  // Within 2^24 pixels: the scene adds positions and sizes in int.
  constexpr int kFar = 1 << 24;
  const wlr_box box = place_layer_surface(s, kOutput, kOutput);
  EXPECT_GE(box.width, 0);
  EXPECT_GE(box.height, 0);
  EXPECT_EQ(box.x, -kFar) << "a margin of -INT32_MAX on the left";
  EXPECT_EQ(box.y, kFar) << "a margin of INT32_MAX on top";
  wlr_box usable = kOutput;
  reserve_exclusive_zone(s, usable);
  EXPECT_EQ(usable.height, 0) << "a zone past the output leaves nothing, not a negative area";
  EXPECT_EQ(usable.y, kFar);
  const wlr_box huge = place_layer_surface(
      state(kRight, std::numeric_limits<uint32_t>::max(), 1, 0), kOutput, kOutput);
  EXPECT_EQ(huge.width, kFar);
  EXPECT_EQ(huge.x, -kFar);
}

}  // namespace
}  // namespace baton
