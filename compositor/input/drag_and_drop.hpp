// Drag-and-drop between clients (wl_data_device.start_drag). A drag starts
// only from the button or touch point its client really holds (the serial of
// that press and the surface under it); any other request is refused, and
// the client's source hears wl_data_source.cancelled. While a drag runs,
// wlroots' drag grab takes the pointer or that finger and the keyboard: the
// seat keeps feeding it the surface under the pointer or finger, and the
// drag's icon follows above every window.
#pragma once

#include <optional>

#include "util/listener.hpp"
#include "util/signal.hpp"
#include "util/wlr.hpp"

namespace baton {

class DragAndDrop {
 public:
  /// Icons go into `icons`, a scene tree above the windows.
  DragAndDrop(wlr_seat* seat, wlr_cursor* cursor, wlr_scene_tree* icons);
  ~DragAndDrop();
  DragAndDrop(const DragAndDrop&) = delete;
  DragAndDrop& operator=(const DragAndDrop&) = delete;

  /// The pointer moved to (lx, ly) in the layout: a pointer drag's icon
  /// follows.
  void pointer_moved(double lx, double ly);
  /// The finger that drags moved to (lx, ly): the icon follows.
  void finger_moved(double lx, double ly);
  /// The touch point that drags, while a finger drags.
  [[nodiscard]] std::optional<int32_t> dragging_point() const;

  /// A drag ended (dropped or cancelled): focus goes back to what is under
  /// the pointer and to the focused window.
  Signal<> ended;

 private:
  void start(wlr_drag& drag);
  void forget_icon();
  void place_icon(double lx, double ly);

  wlr_seat* seat_;
  wlr_cursor* cursor_;
  wlr_scene_tree* icons_;
  wlr_scene_tree* icon_ = nullptr;  // the running drag's icon, if it has one
  Listener<wlr_seat_request_start_drag_event> request_;
  Listener<wlr_drag> started_;
  Listener<void> drag_destroy_;
  Listener<void> point_destroy_;  // a finger's drag: its touch point
  Listener<void> icon_destroy_;   // the scene frees the icon's tree with its surface
};

}  // namespace baton
