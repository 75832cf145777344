#include "tests/wlcs/fake_touch.hpp"

#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"

namespace baton::wlcs {
namespace {
const wlr_touch_impl kTouchImpl = {.name = "baton-wlcs-touch"};
}  // namespace

FakeTouch::FakeTouch(Server& server) : server_(server) {
  wlr_touch_init(&touch_, &kTouchImpl, "baton-wlcs-touch");
  server.seat().add_input(&touch_.base);
}

FakeTouch::~FakeTouch() { wlr_touch_finish(&touch_); }

void FakeTouch::normalise(double lx, double ly, double* x, double* y) const {
  wlr_box layout{};
  wlr_output_layout_get_box(server_.output_layout(), nullptr, &layout);
  *x = (lx - layout.x) / layout.width;
  *y = (ly - layout.y) / layout.height;
}

void FakeTouch::frame() { wl_signal_emit_mutable(&touch_.events.frame, nullptr); }

void FakeTouch::down(double lx, double ly) {
  wlr_touch_down_event event{};
  event.touch = &touch_;
  event.time_msec = ++time_;
  normalise(lx, ly, &event.x, &event.y);
  wl_signal_emit_mutable(&touch_.events.down, &event);
  frame();
}

void FakeTouch::move(double lx, double ly) {
  wlr_touch_motion_event event{};
  event.touch = &touch_;
  event.time_msec = ++time_;
  normalise(lx, ly, &event.x, &event.y);
  wl_signal_emit_mutable(&touch_.events.motion, &event);
  frame();
}

void FakeTouch::up() {
  wlr_touch_up_event event{};
  event.touch = &touch_;
  event.time_msec = ++time_;
  wl_signal_emit_mutable(&touch_.events.up, &event);
  frame();
}

}  // namespace baton::wlcs
