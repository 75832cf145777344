// Interactive move and resize: the pointer drags a window (Super+drag, a
// client's xdg_toplevel.move/resize request, a title-bar drag) until the
// button is released. While a grab runs, clients see no pointer motion.
#pragma once

#include <cstdint>

#include "compositor/desktop/view.hpp"

namespace baton {

class Grab {
 public:
  enum class Mode { none, move, resize };

  [[nodiscard]] bool active() const { return mode_ != Mode::none; }
  [[nodiscard]] View* view() const { return view_.get(); }
  /// Starts dragging `view` from cursor (x, y); `edges` are
  /// WLR_EDGE_* bits for a resize.
  void begin(View& view, Mode mode, double x, double y, uint32_t edges);
  /// The cursor is now at (x, y).
  void motion(double x, double y);
  void end();
  /// The window went away mid-grab.
  void forget(const View& view) {
    if (view_ == &view) end();
  }

 private:
  Mode mode_ = Mode::none;
  Weak<View> view_;  // a grabbed window that goes ends the grab (forget)
  double start_x_ = 0, start_y_ = 0;
  Rect start_;
  uint32_t edges_ = 0;
};

}  // namespace baton
