#include "tests/support/fake_input.hpp"

#include <linux/input-event-codes.h>

#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"

namespace baton::test {
namespace {
const wlr_keyboard_impl kKeyboardImpl = {.name = "baton-test-keyboard", .led_update = nullptr};
const wlr_pointer_impl kPointerImpl = {.name = "baton-test-pointer"};
const wlr_touch_impl kTouchImpl = {.name = "baton-test-touch"};
const wlr_tablet_impl kTabletImpl = {.name = "baton-test-tablet"};
const wlr_tablet_pad_impl kTabletPadImpl = {.name = "baton-test-tablet-pad"};
}  // namespace

FakeKeyboard::FakeKeyboard(Server& server) {
  wlr_keyboard_init(&keyboard_, &kKeyboardImpl, "baton-test-keyboard");
  server.seat().add_input(&keyboard_.base);
}

FakeKeyboard::~FakeKeyboard() {
  if (!finished_) wlr_keyboard_finish(&keyboard_);
}

void FakeKeyboard::finish_with_backend(Server& server) {
  backend_destroy_.connect(&server.backend()->events.destroy, [this](void*) {
    finished_ = true;
    backend_destroy_.disconnect();  // the backend's signal goes with it
    wlr_keyboard_finish(&keyboard_);
  });
}

void FakeKeyboard::press(uint32_t keycode, bool pressed) {
  wlr_keyboard_key_event event{};
  event.time_msec = 0;
  event.keycode = keycode;
  event.update_state = true;
  event.state = pressed ? WL_KEYBOARD_KEY_STATE_PRESSED : WL_KEYBOARD_KEY_STATE_RELEASED;
  wlr_keyboard_notify_key(&keyboard_, &event);
}

void FakeKeyboard::tap(uint32_t keycode) {
  press(keycode, true);
  press(keycode, false);
}

FakePointer::FakePointer(Server& server) : server_(server) {
  wlr_pointer_init(&pointer_, &kPointerImpl, "baton-test-pointer");
  server.seat().add_input(&pointer_.base);
}

FakePointer::~FakePointer() { wlr_pointer_finish(&pointer_); }

void FakePointer::frame() { wl_signal_emit_mutable(&pointer_.events.frame, &pointer_); }

void FakePointer::move_to(double lx, double ly) {
  wlr_box layout{};
  wlr_output_layout_get_box(server_.output_layout(), nullptr, &layout);
  wlr_pointer_motion_absolute_event event{};
  event.pointer = &pointer_;
  event.time_msec = ++time_;
  event.x = (lx - layout.x) / layout.width;
  event.y = (ly - layout.y) / layout.height;
  wl_signal_emit_mutable(&pointer_.events.motion_absolute, &event);
  frame();
}

void FakePointer::move_by(double dx, double dy) {
  wlr_pointer_motion_event event{};
  event.pointer = &pointer_;
  event.time_msec = ++time_;
  event.delta_x = dx;
  event.delta_y = dy;
  event.unaccel_dx = dx;
  event.unaccel_dy = dy;
  wl_signal_emit_mutable(&pointer_.events.motion, &event);
  frame();
}

void FakePointer::click(uint32_t button) {
  press(button, true);
  press(button, false);
}

void FakePointer::press(uint32_t button, bool pressed) {
  wlr_pointer_button_event event{};
  event.pointer = &pointer_;
  event.time_msec = ++time_;
  event.button = button;
  event.state = pressed ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED;
  wl_signal_emit_mutable(&pointer_.events.button, &event);
  frame();
}

void FakePointer::swipe_begin(uint32_t fingers) {
  wlr_pointer_swipe_begin_event event{&pointer_, ++time_, fingers};
  wl_signal_emit_mutable(&pointer_.events.swipe_begin, &event);
}

void FakePointer::swipe_update(uint32_t fingers, double dx, double dy) {
  wlr_pointer_swipe_update_event event{&pointer_, ++time_, fingers, dx, dy};
  wl_signal_emit_mutable(&pointer_.events.swipe_update, &event);
}

void FakePointer::swipe_end(bool cancelled) {
  wlr_pointer_swipe_end_event event{&pointer_, ++time_, cancelled};
  wl_signal_emit_mutable(&pointer_.events.swipe_end, &event);
}

void FakePointer::pinch_begin(uint32_t fingers) {
  wlr_pointer_pinch_begin_event event{&pointer_, ++time_, fingers};
  wl_signal_emit_mutable(&pointer_.events.pinch_begin, &event);
}

void FakePointer::pinch_update(uint32_t fingers, double dx, double dy, double scale,
                               double rotation) {
  wlr_pointer_pinch_update_event event{&pointer_, ++time_, fingers, dx, dy, scale, rotation};
  wl_signal_emit_mutable(&pointer_.events.pinch_update, &event);
}

void FakePointer::pinch_end(bool cancelled) {
  wlr_pointer_pinch_end_event event{&pointer_, ++time_, cancelled};
  wl_signal_emit_mutable(&pointer_.events.pinch_end, &event);
}

void FakePointer::hold_begin(uint32_t fingers) {
  wlr_pointer_hold_begin_event event{&pointer_, ++time_, fingers};
  wl_signal_emit_mutable(&pointer_.events.hold_begin, &event);
}

void FakePointer::hold_end(bool cancelled) {
  wlr_pointer_hold_end_event event{&pointer_, ++time_, cancelled};
  wl_signal_emit_mutable(&pointer_.events.hold_end, &event);
}

FakeTouch::FakeTouch(Server& server) : server_(server) {
  wlr_touch_init(&touch_, &kTouchImpl, "baton-test-touch");
  server.seat().add_input(&touch_.base);
}

FakeTouch::~FakeTouch() { wlr_touch_finish(&touch_); }

double FakeTouch::fx(double lx) const {
  wlr_box layout{};
  wlr_output_layout_get_box(server_.output_layout(), nullptr, &layout);
  return (lx - layout.x) / layout.width;
}

double FakeTouch::fy(double ly) const {
  wlr_box layout{};
  wlr_output_layout_get_box(server_.output_layout(), nullptr, &layout);
  return (ly - layout.y) / layout.height;
}

void FakeTouch::down(int32_t id, double lx, double ly) {
  wlr_touch_down_event event{&touch_, ++time_, id, fx(lx), fy(ly)};
  wl_signal_emit_mutable(&touch_.events.down, &event);
}

void FakeTouch::down_on_device(int32_t id, double x, double y) {
  wlr_touch_down_event event{&touch_, ++time_, id, x, y};
  wl_signal_emit_mutable(&touch_.events.down, &event);
}

void FakeTouch::motion(int32_t id, double lx, double ly) {
  wlr_touch_motion_event event{&touch_, ++time_, id, fx(lx), fy(ly)};
  wl_signal_emit_mutable(&touch_.events.motion, &event);
}

void FakeTouch::up(int32_t id) {
  wlr_touch_up_event event{&touch_, ++time_, id};
  wl_signal_emit_mutable(&touch_.events.up, &event);
}

void FakeTouch::cancel(int32_t id) {
  wlr_touch_cancel_event event{&touch_, ++time_, id};
  wl_signal_emit_mutable(&touch_.events.cancel, &event);
}

void FakeTouch::frame() { wl_signal_emit_mutable(&touch_.events.frame, nullptr); }

FakeTablet::FakeTablet(Server& server) {
  wlr_tablet_init(&tablet_, &kTabletImpl, "baton-test-tablet");
  pen_.type = WLR_TABLET_TOOL_TYPE_PEN;
  pen_.hardware_serial = 1;
  pen_.pressure = pen_.tilt = true;
  wl_signal_init(&pen_.events.destroy);
  server.seat().add_input(&tablet_.base);
}

FakeTablet::~FakeTablet() {
  wl_signal_emit_mutable(&pen_.events.destroy, &pen_);
  wlr_tablet_finish(&tablet_);
}

void FakeTablet::proximity(double x, double y, bool in) {
  x_ = x;
  y_ = y;
  wlr_tablet_tool_proximity_event event{
      &tablet_, &pen_, ++time_,
      x,        y,     in ? WLR_TABLET_TOOL_PROXIMITY_IN : WLR_TABLET_TOOL_PROXIMITY_OUT};
  wl_signal_emit_mutable(&tablet_.events.proximity, &event);
}

wlr_tablet_tool_axis_event FakeTablet::axis_event(uint32_t axes) {
  wlr_tablet_tool_axis_event event{};
  event.tablet = &tablet_;
  event.tool = &pen_;
  event.time_msec = ++time_;
  event.updated_axes = axes;
  event.x = x_;
  event.y = y_;
  return event;
}

void FakeTablet::move(double x, double y) {
  x_ = x;
  y_ = y;
  wlr_tablet_tool_axis_event event = axis_event(WLR_TABLET_TOOL_AXIS_X | WLR_TABLET_TOOL_AXIS_Y);
  wl_signal_emit_mutable(&tablet_.events.axis, &event);
}

void FakeTablet::pressure(double pressure) {
  wlr_tablet_tool_axis_event event = axis_event(WLR_TABLET_TOOL_AXIS_PRESSURE);
  event.pressure = pressure;
  wl_signal_emit_mutable(&tablet_.events.axis, &event);
}

void FakeTablet::tilt(double x, double y) {
  wlr_tablet_tool_axis_event event =
      axis_event(WLR_TABLET_TOOL_AXIS_TILT_X | WLR_TABLET_TOOL_AXIS_TILT_Y);
  event.tilt_x = x;
  event.tilt_y = y;
  wl_signal_emit_mutable(&tablet_.events.axis, &event);
}

void FakeTablet::tip(bool down) {
  wlr_tablet_tool_tip_event event{
      &tablet_, &pen_, ++time_, x_, y_, down ? WLR_TABLET_TOOL_TIP_DOWN : WLR_TABLET_TOOL_TIP_UP};
  wl_signal_emit_mutable(&tablet_.events.tip, &event);
}

void FakeTablet::button(uint32_t button, bool pressed) {
  wlr_tablet_tool_button_event event{&tablet_, &pen_, ++time_, button,
                                     pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED};
  wl_signal_emit_mutable(&tablet_.events.button, &event);
}

FakeTabletPad::FakeTabletPad(Server& server) {
  wlr_tablet_pad_init(&pad_, &kTabletPadImpl, "baton-test-tablet-pad");
  pad_.button_count = 4;
  pad_.ring_count = 1;
  server.seat().add_input(&pad_.base);
}

FakeTabletPad::~FakeTabletPad() { wlr_tablet_pad_finish(&pad_); }

void FakeTabletPad::button(uint32_t button, bool pressed) {
  wlr_tablet_pad_button_event event{++time_, button,
                                    pressed ? WLR_BUTTON_PRESSED : WLR_BUTTON_RELEASED, 0, 0};
  wl_signal_emit_mutable(&pad_.events.button, &event);
}

}  // namespace baton::test
