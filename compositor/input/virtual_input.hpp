// Input that clients make: virtual keyboards and pointers
// (zwp_virtual_keyboard_v1, zwlr_virtual_pointer_v1) join the seat like
// real devices; cursor-shape-v1 sets the cursor image by name.
#pragma once

#include "util/listener.hpp"

struct wl_display;
struct wlr_cursor_shape_manager_v1_request_set_shape_event;
struct wlr_virtual_keyboard_v1;
struct wlr_virtual_pointer_v1_new_pointer_event;

namespace baton {

class Seat;

class VirtualInput {
 public:
  VirtualInput(wl_display* display, Seat& seat);
  VirtualInput(const VirtualInput&) = delete;
  VirtualInput& operator=(const VirtualInput&) = delete;

 private:
  Seat& seat_;
  Listener<wlr_cursor_shape_manager_v1_request_set_shape_event> set_shape_;
  Listener<wlr_virtual_keyboard_v1> new_virtual_keyboard_;
  Listener<wlr_virtual_pointer_v1_new_pointer_event> new_virtual_pointer_;
};

}  // namespace baton
