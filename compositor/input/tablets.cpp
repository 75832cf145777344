#include "compositor/input/tablets.hpp"

#include <linux/input-event-codes.h>

#include <utility>

#include "compositor/desktop/windows.hpp"
#include "util/log.hpp"

namespace baton {

Tablets::Tablets(wl_display* display, wlr_seat* seat, wlr_cursor* cursor, Windows& windows,
                 PointerEmulation pointer, std::function<void()> activity)
    : seat_(seat),
      cursor_(cursor),
      windows_(windows),
      pointer_(std::move(pointer)),
      activity_(std::move(activity)),
      manager_(wlr_tablet_v2_create(display)) {
  proximity_.connect(&cursor->events.tablet_tool_proximity,
                     [this](wlr_tablet_tool_proximity_event* e) {
                       activity_();
                       Tablet* tablet = find(e->tablet);
                       if (tablet == nullptr) return;
                       Tool& tool = tool_for(e->tool);
                       tool.x = e->x;
                       tool.y = e->y;
                       if (e->state == WLR_TABLET_TOOL_PROXIMITY_IN) {
                         moved(tool, *tablet, e->time_msec);
                         return;
                       }
                       stop_emulating(tool, e->time_msec);
                       wlr_tablet_v2_tablet_tool_notify_proximity_out(tool.v2);
                     });
  axis_.connect(&cursor->events.tablet_tool_axis, [this](wlr_tablet_tool_axis_event* e) {
    activity_();
    Tablet* tablet = find(e->tablet);
    if (tablet == nullptr) return;
    Tool& tool = tool_for(e->tool);
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_X) != 0) tool.x = e->x;
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_Y) != 0) tool.y = e->y;
    if ((e->updated_axes & (WLR_TABLET_TOOL_AXIS_X | WLR_TABLET_TOOL_AXIS_Y)) != 0)
      moved(tool, *tablet, e->time_msec);
    if (tool.emulating || tool.v2->focused_surface == nullptr) return;
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_PRESSURE) != 0)
      wlr_tablet_v2_tablet_tool_notify_pressure(tool.v2, e->pressure);
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_DISTANCE) != 0)
      wlr_tablet_v2_tablet_tool_notify_distance(tool.v2, e->distance);
    if ((e->updated_axes & (WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y)) != 0)
      wlr_tablet_v2_tablet_tool_notify_tilt(tool.v2, e->tilt_x, e->tilt_y);
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_ROTATION) != 0)
      wlr_tablet_v2_tablet_tool_notify_rotation(tool.v2, e->rotation);
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_SLIDER) != 0)
      wlr_tablet_v2_tablet_tool_notify_slider(tool.v2, e->slider);
    if ((e->updated_axes & WLR_TABLET_TOOL_AXIS_WHEEL) != 0)
      wlr_tablet_v2_tablet_tool_notify_wheel(tool.v2, e->wheel_delta, 0);
  });
  tip_.connect(&cursor->events.tablet_tool_tip, [this](wlr_tablet_tool_tip_event* e) {
    activity_();
    Tablet* tablet = find(e->tablet);
    if (tablet == nullptr) return;
    Tool& tool = tool_for(e->tool);
    const bool down = e->state == WLR_TABLET_TOOL_TIP_DOWN;
    if (tool.emulating) {
      tool.tip_down = down;
      pointer_.button(e->time_msec, BTN_LEFT, down);
      return;
    }
    if (tool.v2->focused_surface == nullptr) return;
    if (down) {
      // The surface the tip went down on keeps the tool until it lifts.
      double lx = 0;
      double ly = 0;
      wlr_cursor_absolute_to_layout_coords(cursor_, tablet->device, tool.x, tool.y, &lx, &ly);
      wlr_surface* surface = nullptr;
      double sx = 0;
      double sy = 0;
      windows_.view_at(lx, ly, &surface, &sx, &sy);
      tool.origin_x = lx - sx;
      tool.origin_y = ly - sy;
      tool.tip_down = true;
      wlr_tablet_v2_tablet_tool_notify_down(tool.v2);
      wlr_tablet_tool_v2_start_implicit_grab(tool.v2);
    } else {
      tool.tip_down = false;
      wlr_tablet_v2_tablet_tool_notify_up(tool.v2);
      moved(tool, *tablet, e->time_msec);  // the surface under it may differ now
    }
  });
  button_.connect(&cursor->events.tablet_tool_button, [this](wlr_tablet_tool_button_event* e) {
    activity_();
    Tool& tool = tool_for(e->tool);
    const bool pressed = e->state == WLR_BUTTON_PRESSED;
    if (tool.emulating) {
      pointer_.button(e->time_msec, e->button == BTN_STYLUS2 ? BTN_MIDDLE : BTN_RIGHT, pressed);
      return;
    }
    if (tool.v2->focused_surface == nullptr) return;
    wlr_tablet_v2_tablet_tool_notify_button(
        tool.v2, e->button,
        pressed ? ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED : ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
  });
  keyboard_focus_.connect(
      &seat->keyboard_state.events.focus_change,
      [this](wlr_seat_keyboard_focus_change_event* e) { pad_focus(e->new_surface); });
}

Tablets::~Tablets() {
  pads_.clear();
  tools_.clear();
  tablets_.clear();
}

void Tablets::add_tablet(wlr_input_device* device) {
  // tests grep this line: tests/vm/input_test.sh
  LOG_INFO("input: tablet %s added", device->name != nullptr ? device->name : "(unnamed)");
  wlr_cursor_attach_input_device(cursor_, device);
  Tablet& tablet = tablets_.emplace_back();
  tablet.device = device;
  tablet.v2 = wlr_tablet_create(manager_, seat_, device);
  tablet.destroy.connect(&device->events.destroy, [this, &tablet](void*) {
    LOG_INFO("input: tablet %s removed",
             tablet.device->name != nullptr ? tablet.device->name : "(unnamed)");
    wlr_cursor_detach_input_device(cursor_, tablet.device);
    tablets_.remove_if([&tablet](const Tablet& t) { return &t == &tablet; });
  });
  // A pad plugged in before its tablet enters the focused surface now.
  pad_focus(seat_->keyboard_state.focused_surface);
}

void Tablets::add_pad(wlr_input_device* device) {
  LOG_INFO("input: tablet pad %s added", device->name != nullptr ? device->name : "(unnamed)");
  Pad& pad = pads_.emplace_back();
  pad.device = device;
  pad.v2 = wlr_tablet_pad_create(manager_, seat_, device);
  wlr_tablet_pad* wlr = wlr_tablet_pad_from_input_device(device);
  pad.button.connect(&wlr->events.button, [this, &pad](wlr_tablet_pad_button_event* e) {
    activity_();
    // wlroots indexes the pad's groups by this without a bound check.
    if (e->group < pad.v2->group_count)
      wlr_tablet_v2_tablet_pad_notify_mode(pad.v2, e->group, e->mode, e->time_msec);
    wlr_tablet_v2_tablet_pad_notify_button(pad.v2, e->button, e->time_msec,
                                           e->state == WLR_BUTTON_PRESSED
                                               ? ZWP_TABLET_PAD_V2_BUTTON_STATE_PRESSED
                                               : ZWP_TABLET_PAD_V2_BUTTON_STATE_RELEASED);
  });
  pad.ring.connect(&wlr->events.ring, [this, &pad](wlr_tablet_pad_ring_event* e) {
    activity_();
    wlr_tablet_v2_tablet_pad_notify_ring(
        pad.v2, e->ring, e->position, e->source == WLR_TABLET_PAD_RING_SOURCE_FINGER, e->time_msec);
  });
  pad.strip.connect(&wlr->events.strip, [this, &pad](wlr_tablet_pad_strip_event* e) {
    activity_();
    wlr_tablet_v2_tablet_pad_notify_strip(pad.v2, e->strip, e->position,
                                          e->source == WLR_TABLET_PAD_STRIP_SOURCE_FINGER,
                                          e->time_msec);
  });
  pad.destroy.connect(&device->events.destroy, [this, &pad](void*) {
    pads_.remove_if([&pad](const Pad& p) { return &p == &pad; });
  });
  pad_focus(seat_->keyboard_state.focused_surface);
}

Tablets::Tablet* Tablets::find(wlr_tablet* tablet) {
  for (Tablet& t : tablets_)
    if (t.device == &tablet->base) return &t;
  return nullptr;
}

Tablets::Tool& Tablets::tool_for(wlr_tablet_tool* wlr) {
  for (Tool& t : tools_)
    if (t.wlr == wlr) return t;
  Tool& tool = tools_.emplace_back();
  tool.wlr = wlr;
  tool.v2 = wlr_tablet_tool_create(manager_, seat_, wlr);
  tool.destroy.connect(&wlr->events.destroy, [this, &tool](void*) {
    tools_.remove_if([&tool](const Tool& t) { return &t == &tool; });
  });
  // The client over which the tool is sets its cursor image.
  tool.set_cursor.connect(
      &tool.v2->events.set_cursor, [this, &tool](wlr_tablet_v2_event_cursor* e) {
        if (tool.v2->focused_surface != nullptr && e->seat_client != nullptr &&
            wl_resource_get_client(tool.v2->focused_surface->resource) == e->seat_client->client)
          wlr_cursor_set_surface(cursor_, e->surface, e->hotspot_x, e->hotspot_y);
      });
  return tool;
}

void Tablets::moved(Tool& tool, Tablet& tablet, uint32_t time_msec) {
  wlr_cursor_warp_absolute(cursor_, tablet.device, tool.x, tool.y);
  const double lx = cursor_->x;
  const double ly = cursor_->y;
  if (tool.tip_down && !tool.emulating) {
    wlr_tablet_v2_tablet_tool_notify_motion(tool.v2, lx - tool.origin_x, ly - tool.origin_y);
    return;
  }
  if (tool.tip_down) {  // a drag with the pointer
    pointer_.moved(time_msec);
    return;
  }
  wlr_surface* surface = nullptr;
  double sx = 0;
  double sy = 0;
  windows_.view_at(lx, ly, &surface, &sx, &sy);
  if (surface != nullptr && wlr_surface_accepts_tablet_v2(surface, tablet.v2)) {
    stop_emulating(tool, time_msec);
    wlr_tablet_v2_tablet_tool_notify_proximity_in(tool.v2, tablet.v2, surface);
    wlr_tablet_v2_tablet_tool_notify_motion(tool.v2, sx, sy);
    return;
  }
  // No tablet-v2 client here: a mouse.
  if (tool.v2->focused_surface != nullptr) wlr_tablet_v2_tablet_tool_notify_proximity_out(tool.v2);
  tool.emulating = true;
  pointer_.moved(time_msec);
}

void Tablets::stop_emulating(Tool& tool, uint32_t time_msec) {
  if (!tool.emulating) return;
  if (tool.tip_down) pointer_.button(time_msec, BTN_LEFT, false);
  tool.tip_down = false;
  tool.emulating = false;
}

void Tablets::pad_focus(wlr_surface* surface) {
  for (Pad& pad : pads_) {
    if (pad.focus == surface) continue;
    if (pad.focus != nullptr) wlr_tablet_v2_tablet_pad_notify_leave(pad.v2, pad.focus);
    pad.focus = nullptr;
    pad.focus_destroy.disconnect();
    if (surface == nullptr || tablets_.empty()) continue;
    wlr_tablet_v2_tablet_pad_notify_enter(pad.v2, tablets_.back().v2, surface);
    pad.focus = surface;
    pad.focus_destroy.connect(&surface->events.destroy, [&pad](void*) {
      pad.focus = nullptr;
      pad.focus_destroy.disconnect();
    });
  }
}

}  // namespace baton
