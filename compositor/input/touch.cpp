#include "compositor/input/touch.hpp"

#include <utility>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/input/drag_and_drop.hpp"

namespace baton {

Touch::Touch(wlr_seat* seat, wlr_cursor* cursor, Windows& windows, DragAndDrop& drag_and_drop,
             std::function<void()> activity)
    : seat_(seat),
      cursor_(cursor),
      windows_(windows),
      drag_and_drop_(drag_and_drop),
      activity_(std::move(activity)) {
  down_.connect(&cursor->events.touch_down, [this](wlr_touch_down_event* e) { down(*e); });
  motion_.connect(&cursor->events.touch_motion, [this](wlr_touch_motion_event* e) { motion(*e); });
  up_.connect(&cursor->events.touch_up, [this](wlr_touch_up_event* e) {
    activity_();
    if (move_.active() && e->touch_id == move_id_) end_move();
    if (e->touch_id == button_id_) release_button();
    if (points_.erase(e->touch_id) > 0) wlr_seat_touch_notify_up(seat_, e->time_msec, e->touch_id);
  });
  cancel_.connect(&cursor->events.touch_cancel, [this](wlr_touch_cancel_event* e) {
    activity_();
    if (move_.active() && e->touch_id == move_id_) end_move();
    if (e->touch_id == button_id_) {  // a cancelled tap does nothing
      button_view_.reset();
      button_id_ = -1;
    }
    wlr_touch_point* point = wlr_seat_touch_get_point(seat_, e->touch_id);
    if (point != nullptr && point->client != nullptr)
      wlr_seat_touch_notify_cancel(seat_, point->client);
    points_.erase(e->touch_id);
  });
  frame_.connect(&cursor->events.touch_frame,
                 [this](void*) { wlr_seat_touch_notify_frame(seat_); });
}

void Touch::down(const wlr_touch_down_event& event) {
  activity_();
  double lx = 0;
  double ly = 0;
  wlr_cursor_absolute_to_layout_coords(cursor_, &event.touch->base, event.x, event.y, &lx, &ly);
  wlr_surface* surface = nullptr;
  double sx = 0;
  double sy = 0;
  View* view = windows_.view_at(lx, ly, &surface, &sx, &sy);
  if (view != nullptr && surface == nullptr) {
    // A window but no surface of it: the title bar baton draws.
    if (const TitleButton button = view->title_button_at(lx, ly); button != TitleButton::none) {
      windows_.focus(view);
      button_view_ = view;
      button_ = button;
      button_id_ = event.touch_id;
      button_x_ = lx;
      button_y_ = ly;
      return;
    }
    if (move_.active()) return;  // one finger drags at a time
    windows_.focus(view);
    move_.begin(*view, Grab::Mode::move, lx, ly, 0);
    move_id_ = event.touch_id;
    return;
  }
  if (surface == nullptr) return;  // the background: no client's
  if (view != nullptr) windows_.focus(view);
  points_[event.touch_id] = Origin{lx - sx, ly - sy};
  wlr_seat_touch_notify_down(seat_, surface, event.time_msec, event.touch_id, sx, sy);
}

void Touch::motion(const wlr_touch_motion_event& event) {
  activity_();
  double lx = 0;
  double ly = 0;
  wlr_cursor_absolute_to_layout_coords(cursor_, &event.touch->base, event.x, event.y, &lx, &ly);
  if (event.touch_id == button_id_) {
    button_x_ = lx;
    button_y_ = ly;
    return;
  }
  if (move_.active() && event.touch_id == move_id_) {
    if (move_.view() == nullptr)
      move_.end();  // the window went mid-drag
    else
      move_.motion(lx, ly);
    return;
  }
  if (drag_and_drop_.dragging_point() == event.touch_id) {
    drag_motion(event, lx, ly);
    return;
  }
  auto it = points_.find(event.touch_id);
  if (it == points_.end()) return;
  wlr_seat_touch_notify_motion(seat_, event.time_msec, event.touch_id, lx - it->second.x,
                               ly - it->second.y);
}

void Touch::drag_motion(const wlr_touch_motion_event& event, double lx, double ly) {
  drag_and_drop_.finger_moved(lx, ly);
  wlr_surface* surface = nullptr;
  double sx = 0;
  double sy = 0;
  windows_.view_at(lx, ly, &surface, &sx, &sy);
  // Over no window the drag leaves its target, as a pointer drag does, so
  // that a finger lifted there drops nothing.
  if (surface == nullptr) {
    wlr_seat_touch_point_clear_focus(seat_, event.time_msec, event.touch_id);
    return;
  }
  wlr_seat_touch_point_focus(seat_, surface, event.time_msec, event.touch_id, sx, sy);
  wlr_seat_touch_notify_motion(seat_, event.time_msec, event.touch_id, sx, sy);
}

void Touch::release_button() {
  View* view = button_view_.get();  // null when the window went meanwhile
  const TitleButton pressed = button_;
  button_view_.reset();
  button_id_ = -1;
  if (view == nullptr || view->title_button_at(button_x_, button_y_) != pressed) return;
  if (pressed == TitleButton::close)
    view->close();
  else
    view->set_maximized(!view->maximized());
}

void Touch::end_move() {
  // A window dragged onto another output joins its workspace.
  View* view = move_.view();
  move_.end();
  move_id_ = -1;
  if (view != nullptr) windows_.workspaces().place(*view);
}

}  // namespace baton
