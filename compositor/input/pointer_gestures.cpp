#include "compositor/input/pointer_gestures.hpp"

#include <utility>

namespace baton {

PointerGestures::PointerGestures(wl_display* display, wlr_seat* seat, wlr_cursor* cursor,
                                 std::function<void()> activity)
    : gestures_(wlr_pointer_gestures_v1_create(display)),
      seat_(seat),
      activity_(std::move(activity)) {
  swipe_begin_.connect(&cursor->events.swipe_begin, [this](wlr_pointer_swipe_begin_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_swipe_begin(gestures_, seat_, e->time_msec, e->fingers);
  });
  swipe_update_.connect(&cursor->events.swipe_update, [this](wlr_pointer_swipe_update_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_swipe_update(gestures_, seat_, e->time_msec, e->dx, e->dy);
  });
  swipe_end_.connect(&cursor->events.swipe_end, [this](wlr_pointer_swipe_end_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_swipe_end(gestures_, seat_, e->time_msec, e->cancelled);
  });
  pinch_begin_.connect(&cursor->events.pinch_begin, [this](wlr_pointer_pinch_begin_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_pinch_begin(gestures_, seat_, e->time_msec, e->fingers);
  });
  pinch_update_.connect(&cursor->events.pinch_update, [this](wlr_pointer_pinch_update_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_pinch_update(gestures_, seat_, e->time_msec, e->dx, e->dy,
                                              e->scale, e->rotation);
  });
  pinch_end_.connect(&cursor->events.pinch_end, [this](wlr_pointer_pinch_end_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_pinch_end(gestures_, seat_, e->time_msec, e->cancelled);
  });
  hold_begin_.connect(&cursor->events.hold_begin, [this](wlr_pointer_hold_begin_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_hold_begin(gestures_, seat_, e->time_msec, e->fingers);
  });
  hold_end_.connect(&cursor->events.hold_end, [this](wlr_pointer_hold_end_event* e) {
    activity_();
    wlr_pointer_gestures_v1_send_hold_end(gestures_, seat_, e->time_msec, e->cancelled);
  });
}

}  // namespace baton
