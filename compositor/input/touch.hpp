// wl_touch: touchscreen points go to the surface under each one where it
// went down, in that surface's coordinates, and stay its own until it lifts
// (a finger dragged off a window still talks to it). A point that goes down
// on a window activates it, as a click does; one on no surface reaches no
// client. Touch focus is per point and independent of the pointer's. A
// finger put down on a title bar baton draws drags that window, as the
// pointer's left button does.
// Touchscreens map to the whole layout unless the config names an output
// (wlr_cursor maps them; see Seat::map_to_output).
#pragma once

#include <functional>
#include <map>

#include "compositor/input/grab.hpp"
#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {

class Windows;

class Touch {
 public:
  /// `activity` is told of every touch event (it is user input).
  Touch(wlr_seat* seat, wlr_cursor* cursor, Windows& windows, std::function<void()> activity);
  Touch(const Touch&) = delete;
  Touch& operator=(const Touch&) = delete;

 private:
  struct Origin {
    double x = 0, y = 0;  // the point's surface's top left, in the layout
  };
  void down(const wlr_touch_down_event& event);
  void motion(const wlr_touch_motion_event& event);
  /// The point that drags a window lifts or is cancelled.
  void end_move();

  wlr_seat* seat_;
  wlr_cursor* cursor_;
  Windows& windows_;
  std::function<void()> activity_;
  std::map<int32_t, Origin> points_;  // points down on a surface, by touch id
  Grab move_;                         // a title bar dragged by one point
  int32_t move_id_ = -1;
  Listener<wlr_touch_down_event> down_;
  Listener<wlr_touch_up_event> up_;
  Listener<wlr_touch_motion_event> motion_;
  Listener<wlr_touch_cancel_event> cancel_;
  Listener<void> frame_;
};

}  // namespace baton
