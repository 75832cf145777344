#include "compositor/shell/layer_placement.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "util/wlr.hpp"

namespace baton {
namespace {

// Client values are any int32 or uint32: sums are done in 64 bits, and the
// result kept within 2^24 pixels of the origin. Outputs lie within 2^21, so
// a box out there is off every output all the same, while the scene adds a
// surface's position, its size and its subsurfaces' offsets in int: a panel
// placed near INT32_MAX overflowed there.
int clamp_far(int64_t v) {
  constexpr int64_t kFar = int64_t{1} << 24;
  return static_cast<int>(std::clamp<int64_t>(v, -kFar, kFar));
}

struct Span {
  int start;
  int length;
};

// One axis: `desired` 0 stretches between the margins; otherwise the surface
// sits against the one anchored edge, or centred when anchored to both or
// neither.
Span place_axis(int bounds_start, int bounds_length, uint32_t desired, bool low, bool high,
                int32_t margin_low, int32_t margin_high) {
  const int64_t start = bounds_start;
  const int64_t length = bounds_length;
  if (desired == 0) {
    const int64_t stretched = length - static_cast<int64_t>(margin_low) - margin_high;
    return {clamp_far(start + margin_low), clamp_far(std::max<int64_t>(stretched, 0))};
  }
  const int64_t size = std::min<int64_t>(desired, std::numeric_limits<int>::max());
  int64_t at = start + length / 2 - size / 2;
  if (low && !high)
    at = start + margin_low;
  else if (high && !low)
    at = start + length - size - margin_high;
  return {clamp_far(at), clamp_far(size)};
}

}  // namespace

wlr_box place_layer_surface(const wlr_layer_surface_v1_state& state, const wlr_box& full,
                            const wlr_box& usable) {
  const wlr_box& bounds = state.exclusive_zone == -1 ? full : usable;
  const uint32_t a = state.anchor;
  const Span x = place_axis(
      bounds.x, bounds.width, state.desired_width, (a & ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT) != 0,
      (a & ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT) != 0, state.margin.left, state.margin.right);
  const Span y = place_axis(
      bounds.y, bounds.height, state.desired_height, (a & ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP) != 0,
      (a & ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM) != 0, state.margin.top, state.margin.bottom);
  return {x.start, y.start, x.length, y.length};
}

void reserve_exclusive_zone(const wlr_layer_surface_v1_state& state, wlr_box& usable) {
  if (state.exclusive_zone <= 0) return;
  constexpr uint32_t kTop = ZWLR_LAYER_SURFACE_V1_ANCHOR_TOP;
  constexpr uint32_t kBottom = ZWLR_LAYER_SURFACE_V1_ANCHOR_BOTTOM;
  constexpr uint32_t kLeft = ZWLR_LAYER_SURFACE_V1_ANCHOR_LEFT;
  constexpr uint32_t kRight = ZWLR_LAYER_SURFACE_V1_ANCHOR_RIGHT;
  const uint32_t a = state.anchor;
  // The edge the zone is on: one anchor alone, or one with both beside it.
  int64_t x = usable.x;
  int64_t y = usable.y;
  int64_t width = usable.width;
  int64_t height = usable.height;
  const int64_t zone = state.exclusive_zone;
  if (a == kTop || a == (kTop | kLeft | kRight)) {
    y += zone + state.margin.top;
    height -= zone + state.margin.top;
  } else if (a == kBottom || a == (kBottom | kLeft | kRight)) {
    height -= zone + state.margin.bottom;
  } else if (a == kLeft || a == (kLeft | kTop | kBottom)) {
    x += zone + state.margin.left;
    width -= zone + state.margin.left;
  } else if (a == kRight || a == (kRight | kTop | kBottom)) {
    width -= zone + state.margin.right;
  } else {
    return;
  }
  usable = {clamp_far(x), clamp_far(y), clamp_far(std::max<int64_t>(width, 0)),
            clamp_far(std::max<int64_t>(height, 0))};
}

}  // namespace baton
