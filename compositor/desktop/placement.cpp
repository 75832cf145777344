#include "compositor/desktop/placement.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace baton {
namespace {

constexpr int kCascadeStep = 32;

int64_t overlap(const Rect& a, const Rect& b) {
  const int w = std::min(a.x + a.width, b.x + b.width) - std::max(a.x, b.x);
  const int h = std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y);
  return w > 0 && h > 0 ? int64_t{w} * h : 0;
}

// Candidate coordinates along one axis: the area's edges and centre, and
// flush against each other window's edges, kept inside [lo, hi].
std::vector<int> candidates(int lo, int hi, int centre, int size, const std::vector<Rect>& others,
                            bool x_axis) {
  std::vector<int> out = {lo, hi, centre};
  for (const Rect& o : others) {
    const int start = x_axis ? o.x : o.y;
    const int end = start + (x_axis ? o.width : o.height);
    out.push_back(end);           // just after it
    out.push_back(start - size);  // just before it
  }
  for (int& v : out) v = std::clamp(v, lo, hi);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

Rect place_window(const Rect& usable, int width, int height, const std::vector<Rect>& others,
                  const Rect* parent, int title_bar) {
  Rect r{usable.x, usable.y, std::min(width, usable.width), std::min(height, usable.height)};
  const int max_x = usable.x + usable.width - r.width;
  const int max_y = usable.y + usable.height - r.height;
  if (parent != nullptr) {
    r.x = std::clamp(parent->x + (parent->width - r.width) / 2, usable.x, max_x);
    r.y = std::clamp(parent->y + (parent->height - r.height + title_bar) / 2 - title_bar, usable.y,
                     max_y);
    return r;
  }
  // Least overlap; among equals, nearest the centre.
  const int centre_x = usable.x + (usable.width - r.width) / 2;
  const int centre_y = std::clamp(usable.y + (usable.height - r.height + title_bar) / 2 - title_bar,
                                  usable.y, max_y);
  int64_t best_overlap = std::numeric_limits<int64_t>::max();
  int64_t best_distance = 0;
  for (int x : candidates(usable.x, max_x, centre_x, r.width, others, true)) {
    for (int y : candidates(usable.y, max_y, centre_y, r.height, others, false)) {
      const Rect spot{x, y, r.width, r.height};
      int64_t covered = 0;
      for (const Rect& o : others) covered += overlap(spot, o);
      const int64_t dx = x - centre_x, dy = y - centre_y;
      const int64_t distance = dx * dx + dy * dy;
      if (covered < best_overlap || (covered == best_overlap && distance < best_distance)) {
        best_overlap = covered;
        best_distance = distance;
        r.x = x;
        r.y = y;
      }
    }
  }
  if (best_overlap == 0) return r;
  // No free spot: cascade, wrapping inside the area, so every title bar
  // stays in sight and no window lands off the output.
  const int64_t n = static_cast<int64_t>(others.size());
  const int64_t room_x = int64_t{max_x} - usable.x + 1;
  const int64_t room_y = int64_t{max_y} - usable.y + 1;
  r.x = usable.x + static_cast<int>((n * kCascadeStep) % room_x);
  r.y = usable.y + static_cast<int>((n * kCascadeStep) % room_y);
  return r;
}

}  // namespace baton
