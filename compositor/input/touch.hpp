// wl_touch: touchscreen points go to the surface under each one where it
// went down, in that surface's coordinates, and stay its own until it lifts
// (a finger dragged off a window still talks to it). A point that goes down
// on a window activates it, as a click does; one on no surface reaches no
// client. Touch focus is per point and independent of the pointer's. A
// finger put down on a title bar baton draws drags that window, as the
// pointer's left button does; a tap on its close or maximize button acts
// when the finger lifts on the button it went down on.
// Touchscreens map to the whole layout unless the config names an output
// (wlr_cursor maps them; see Seat::map_to_output).
#pragma once

#include <functional>
#include <map>

#include "compositor/desktop/view.hpp"
#include "compositor/input/grab.hpp"
#include "util/listener.hpp"
#include "util/weak.hpp"
#include "util/wlr.hpp"

namespace baton {

class DragAndDrop;
class Windows;

class Touch {
 public:
  /// `activity` is told of every touch event (it is user input).
  /// A finger that drags (`drag_and_drop`) takes the drag over the
  /// surfaces it crosses.
  Touch(wlr_seat* seat, wlr_cursor* cursor, Windows& windows, DragAndDrop& drag_and_drop,
        std::function<void()> activity);
  Touch(const Touch&) = delete;
  Touch& operator=(const Touch&) = delete;

 private:
  struct Origin {
    double x = 0, y = 0;  // the point's surface's top left, in the layout
  };
  void down(const wlr_touch_down_event& event);
  void motion(const wlr_touch_motion_event& event);
  /// The finger that drags moved to (lx, ly): the drag goes to the surface
  /// under it.
  void drag_motion(const wlr_touch_motion_event& event, double lx, double ly);
  /// The point that drags a window lifts or is cancelled.
  void end_move();
  /// The point on a title bar button lifts: the button acts if still under it.
  void release_button();

  wlr_seat* seat_;
  wlr_cursor* cursor_;
  Windows& windows_;
  DragAndDrop& drag_and_drop_;
  std::function<void()> activity_;
  std::map<int32_t, Origin> points_;  // points down on a surface, by touch id
  Grab move_;                         // a title bar dragged by one point
  int32_t move_id_ = -1;
  // A title bar button under one point, and where that point is now.
  Weak<View> button_view_;
  TitleButton button_ = TitleButton::none;
  int32_t button_id_ = -1;
  double button_x_ = 0, button_y_ = 0;
  Listener<wlr_touch_down_event> down_;
  Listener<wlr_touch_up_event> up_;
  Listener<wlr_touch_motion_event> motion_;
  Listener<wlr_touch_cancel_event> cancel_;
  Listener<void> frame_;
};

}  // namespace baton
