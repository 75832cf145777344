// pointer-gestures-v1: touchpad swipes, pinches and holds (libinput's
// gestures, through wlr_cursor) go to the client with the pointer focus, as
// a pointer's buttons do. A gesture begun over a client stays that client's
// to its end (wlroots keeps the focus it began with).
#pragma once

#include <functional>

#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {

class PointerGestures {
 public:
  /// `activity` is told of every gesture event (a gesture is user input:
  /// it resets idle timers).
  PointerGestures(wl_display* display, wlr_seat* seat, wlr_cursor* cursor,
                  std::function<void()> activity);
  PointerGestures(const PointerGestures&) = delete;
  PointerGestures& operator=(const PointerGestures&) = delete;

 private:
  wlr_pointer_gestures_v1* gestures_;
  wlr_seat* seat_;
  std::function<void()> activity_;
  Listener<wlr_pointer_swipe_begin_event> swipe_begin_;
  Listener<wlr_pointer_swipe_update_event> swipe_update_;
  Listener<wlr_pointer_swipe_end_event> swipe_end_;
  Listener<wlr_pointer_pinch_begin_event> pinch_begin_;
  Listener<wlr_pointer_pinch_update_event> pinch_update_;
  Listener<wlr_pointer_pinch_end_event> pinch_end_;
  Listener<wlr_pointer_hold_begin_event> hold_begin_;
  Listener<wlr_pointer_hold_end_event> hold_end_;
};

}  // namespace baton
