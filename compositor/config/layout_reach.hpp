// How far from the layout's origin an output may be placed.
#pragma once

namespace baton {

/// Output positions stay within ±2^21 pixels of the origin (a 16K screen is
/// 15360 wide). The layout then spans under 2^23 pixels, so a coordinate
/// relative to any surface on it fits the 24 integer bits of a wl_fixed_t,
/// and wlroots' int box arithmetic (x + width) cannot overflow.
constexpr int kLayoutReach = 1 << 21;

[[nodiscard]] constexpr bool within_layout_reach(long long x, long long y) {
  return x >= -kLayoutReach && x <= kLayoutReach && y >= -kLayoutReach && y <= kLayoutReach;
}

}  // namespace baton
