// tablet-v2: drawing tablets. A tool (pen, eraser, ...) in proximity over a
// surface whose client bound the tablet gets proximity, motion, pressure,
// distance, tilt, rotation, slider, wheel, tip and buttons in that
// surface's coordinates; while its tip is down it stays that surface's.
// Over a surface that does not speak tablet-v2 (or the title bar baton
// draws), the tool drives the pointer: it moves it, its tip is the left
// button and its two stylus buttons the right and middle ones. The cursor
// follows the tool either way. Pads (buttons, rings, strips) go to the
// surface with the keyboard focus. Tablets map to the whole layout unless
// the config names an output (Seat::map_to_output).
#pragma once

#include <functional>
#include <list>
#include <memory>

#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {

class Windows;

/// What a tool drives when it is a mouse.
struct PointerEmulation {
  /// The cursor was warped to the tool: the pointer focus follows it.
  std::function<void(uint32_t time_msec)> moved;
  std::function<void(uint32_t time_msec, uint32_t button, bool pressed)> button;
};

class Tablets {
 public:
  /// `activity` is told of every tablet event (it is user input).
  Tablets(wl_display* display, wlr_seat* seat, wlr_cursor* cursor, Windows& windows,
          PointerEmulation pointer, std::function<void()> activity);
  ~Tablets();
  Tablets(const Tablets&) = delete;
  Tablets& operator=(const Tablets&) = delete;

  /// A tablet (its tools' events come through the cursor) or a pad.
  void add_tablet(wlr_input_device* device);
  void add_pad(wlr_input_device* device);
  /// Whether any tablet or pad is plugged in (the seat's capabilities
  /// do not list tablets: clients learn of them from tablet-v2).
  [[nodiscard]] bool empty() const { return tablets_.empty() && pads_.empty(); }

 private:
  struct Tablet {
    wlr_input_device* device;
    wlr_tablet_v2_tablet* v2;
    Listener<void> destroy;
  };
  struct Tool {
    wlr_tablet_tool* wlr;
    wlr_tablet_v2_tablet_tool* v2;
    double x = 0, y = 0;  // 0..1 on the tablet
    bool tip_down = false;
    bool emulating = false;             // driving the pointer
    double origin_x = 0, origin_y = 0;  // the tip's surface's top left while down
    Listener<void> destroy;
    Listener<wlr_tablet_v2_event_cursor> set_cursor;
  };
  struct Pad {
    wlr_input_device* device;
    wlr_tablet_v2_tablet_pad* v2;
    Listener<wlr_tablet_pad_button_event> button;
    Listener<wlr_tablet_pad_ring_event> ring;
    Listener<wlr_tablet_pad_strip_event> strip;
    Listener<void> destroy;
    wlr_surface* focus = nullptr;  // the surface it entered
    Listener<void> focus_destroy;
  };
  Tablet* find(wlr_tablet* tablet);
  Tool& tool_for(wlr_tablet_tool* tool);
  /// The tool is at (tool.x, tool.y): focus and motion, or the pointer.
  void moved(Tool& tool, Tablet& tablet, uint32_t time_msec);
  void stop_emulating(Tool& tool, uint32_t time_msec);
  void pad_focus(wlr_surface* surface);

  wlr_seat* seat_;
  wlr_cursor* cursor_;
  Windows& windows_;
  PointerEmulation pointer_;
  std::function<void()> activity_;
  wlr_tablet_manager_v2* manager_;
  std::list<Tablet> tablets_;
  std::list<Tool> tools_;
  std::list<Pad> pads_;
  Listener<wlr_tablet_tool_proximity_event> proximity_;
  Listener<wlr_tablet_tool_axis_event> axis_;
  Listener<wlr_tablet_tool_tip_event> tip_;
  Listener<wlr_tablet_tool_button_event> button_;
  Listener<wlr_seat_keyboard_focus_change_event> keyboard_focus_;
};

}  // namespace baton
