#include "compositor/input/grab.hpp"

#include <algorithm>
#include <cmath>

#include "compositor/desktop/xdg_view.hpp"
#include "util/wlr.hpp"

namespace baton {

void Grab::begin(View& view, Mode mode, double x, double y, uint32_t edges) {
  // Dragging a maximized window puts it back to its floating size first,
  // as other desktops do; fullscreen windows stay put.
  if (view.fullscreen()) return;
  if (view.maximized()) view.set_maximized(false);
  mode_ = mode;
  view_ = &view;
  start_x_ = x;
  start_y_ = y;
  start_ = view.frame();
  edges_ = edges == 0 ? (WLR_EDGE_RIGHT | WLR_EDGE_BOTTOM) : edges;
  // xdg clients draw a resize hint while told they are being resized.
  if (auto* xdg = dynamic_cast<XdgView*>(&view); xdg != nullptr && mode == Mode::resize)
    wlr_xdg_toplevel_set_resizing(xdg->toplevel(), true);
}

void Grab::motion(double x, double y) {
  if (!active()) return;
  int dx = static_cast<int>(std::lround(x - start_x_));
  int dy = static_cast<int>(std::lround(y - start_y_));
  if (mode_ == Mode::move) {
    view_->move_frame_to(start_.x + dx, start_.y + dy);
    return;
  }
  constexpr int kMin = 32;
  Rect r = start_;
  if (edges_ & WLR_EDGE_RIGHT) r.width = std::max(kMin, start_.width + dx);
  if (edges_ & WLR_EDGE_BOTTOM) r.height = std::max(kMin, start_.height + dy);
  if (edges_ & WLR_EDGE_LEFT) {
    r.width = std::max(kMin, start_.width - dx);
    r.x = start_.x + start_.width - r.width;
  }
  if (edges_ & WLR_EDGE_TOP) {
    r.height = std::max(kMin, start_.height - dy);
    r.y = start_.y + start_.height - r.height;
  }
  view_->move_frame_to(r.x, r.y);
  view_->request_size(r.width, r.height);
}

void Grab::end() {
  if (mode_ == Mode::resize && view_)
    if (auto* xdg = dynamic_cast<XdgView*>(view_.get()); xdg != nullptr)
      wlr_xdg_toplevel_set_resizing(xdg->toplevel(), false);
  mode_ = Mode::none;
  view_.reset();
}

}  // namespace baton
