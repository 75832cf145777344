#include "compositor/input/virtual_input.hpp"

#include "compositor/input/seat.hpp"
#include "util/wlr.hpp"

namespace baton {

VirtualInput::VirtualInput(wl_display* display, Seat& seat) : seat_(seat) {
  wlr_cursor_shape_manager_v1* shapes = wlr_cursor_shape_manager_v1_create(display, 1);
  set_shape_.connect(&shapes->events.request_set_shape,
                     [this](wlr_cursor_shape_manager_v1_request_set_shape_event* event) {
                       // As with wl_pointer.set_cursor: only the focused client.
                       if (event->seat_client == seat_.wlr()->pointer_state.focused_client)
                         seat_.set_cursor_name(wlr_cursor_shape_v1_name(event->shape));
                     });

  wlr_virtual_keyboard_manager_v1* keyboards = wlr_virtual_keyboard_manager_v1_create(display);
  new_virtual_keyboard_.connect(
      &keyboards->events.new_virtual_keyboard,
      [this](wlr_virtual_keyboard_v1* k) { seat_.add_input(&k->keyboard.base); });
  wlr_virtual_pointer_manager_v1* pointers = wlr_virtual_pointer_manager_v1_create(display);
  new_virtual_pointer_.connect(&pointers->events.new_virtual_pointer,
                               [this](wlr_virtual_pointer_v1_new_pointer_event* event) {
                                 wlr_input_device* device = &event->new_pointer->pointer.base;
                                 seat_.add_input(device);
                                 if (event->suggested_output != nullptr)
                                   wlr_cursor_map_input_to_output(seat_.cursor(), device,
                                                                  event->suggested_output);
                               });
}

}  // namespace baton
