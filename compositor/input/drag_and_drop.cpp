#include "compositor/input/drag_and_drop.hpp"

#include <cmath>

#include "util/log.hpp"

namespace baton {

DragAndDrop::DragAndDrop(wlr_seat* seat, wlr_cursor* cursor, wlr_scene_tree* icons)
    : seat_(seat), cursor_(cursor), icons_(icons) {
  request_.connect(
      &seat->events.request_start_drag, [this](wlr_seat_request_start_drag_event* event) {
        if (wlr_seat_validate_pointer_grab_serial(seat_, event->origin, event->serial)) {
          wlr_seat_start_pointer_drag(seat_, event->drag, event->serial);
          return;
        }
        wlr_touch_point* point = nullptr;
        if (wlr_seat_validate_touch_grab_serial(seat_, event->origin, event->serial, &point)) {
          wlr_seat_start_touch_drag(seat_, event->drag, event->serial, point);
          return;
        }
        // Left alone, wlroots (baton's patch) refuses it and
        // cancels its source.
        LOG_DEBUG(
            "drag-and-drop: start_drag refused: serial %u is no press held on "
            "its surface",
            event->serial);
      });
  started_.connect(&seat->events.start_drag, [this](wlr_drag* drag) { start(*drag); });
}

DragAndDrop::~DragAndDrop() { forget_icon(); }

void DragAndDrop::start(wlr_drag& drag) {
  drag_destroy_.connect(&drag.events.destroy, [this](void*) {
    // wlroots wants every listener gone once the destroy signal has run.
    drag_destroy_.disconnect();
    point_destroy_.disconnect();
    forget_icon();
    ended.emit();
  });
  if (drag.grab_type == WLR_DRAG_GRAB_KEYBOARD_TOUCH) {
    // The point goes with its client: a finger's drag whose client left
    // would wait for a lift that never reaches it, holding the seat.
    if (wlr_touch_point* point = wlr_seat_touch_get_point(seat_, drag.touch_id))
      point_destroy_.connect(&point->events.destroy,
                             [this](void*) { wlr_seat_touch_end_grab(seat_); });
  }
  forget_icon();
  if (drag.icon == nullptr) return;
  icon_ = wlr_scene_drag_icon_create(icons_, drag.icon);
  if (icon_ == nullptr) {
    LOG_ERROR("drag-and-drop: no memory for the drag icon");
    return;
  }
  icon_destroy_.connect(&icon_->node.events.destroy, [this](void*) {
    icon_destroy_.disconnect();
    icon_ = nullptr;
  });
  if (drag.grab_type == WLR_DRAG_GRAB_KEYBOARD_TOUCH) {
    // Shown where the finger is, from its first motion on.
    wlr_scene_node_set_enabled(&icon_->node, false);
  } else {
    place_icon(cursor_->x, cursor_->y);
  }
}

void DragAndDrop::forget_icon() {
  icon_destroy_.disconnect();
  // The tree is the scene's: it goes with the icon's surface or the drag.
  if (icon_ != nullptr) wlr_scene_node_destroy(&icon_->node);
  icon_ = nullptr;
}

void DragAndDrop::pointer_moved(double lx, double ly) {
  if (seat_->drag != nullptr && seat_->drag->grab_type == WLR_DRAG_GRAB_KEYBOARD_POINTER)
    place_icon(lx, ly);
}

void DragAndDrop::finger_moved(double lx, double ly) { place_icon(lx, ly); }

void DragAndDrop::place_icon(double lx, double ly) {
  if (icon_ == nullptr) return;
  wlr_scene_node_set_enabled(&icon_->node, true);
  wlr_scene_node_set_position(&icon_->node, static_cast<int>(std::lround(lx)),
                              static_cast<int>(std::lround(ly)));
}

std::optional<int32_t> DragAndDrop::dragging_point() const {
  const wlr_drag* drag = seat_->drag;
  if (drag == nullptr || drag->grab_type != WLR_DRAG_GRAB_KEYBOARD_TOUCH) return std::nullopt;
  return drag->touch_id;
}

}  // namespace baton
