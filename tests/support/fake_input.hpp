// Synthetic keyboard and pointer devices, adopted by a Server's seat the same
// way the backend's devices are, so input takes the same path as a user's.
#pragma once

#include <cstdint>

#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {
class Server;
}

namespace baton::test {

class FakeKeyboard {
 public:
  explicit FakeKeyboard(Server& server);
  ~FakeKeyboard();
  FakeKeyboard(const FakeKeyboard&) = delete;
  FakeKeyboard& operator=(const FakeKeyboard&) = delete;
  /// Presses and releases evdev `keycode` (KEY_A, ...).
  void tap(uint32_t keycode);
  void press(uint32_t keycode, bool pressed);
  /// From now on the keyboard goes when the server's backend does, as a
  /// backend's own devices do (wlroots then releases the keys still held).
  void finish_with_backend(Server& server);

 private:
  wlr_keyboard keyboard_{};
  bool finished_ = false;
  Listener<void> backend_destroy_;
};

class FakePointer {
 public:
  explicit FakePointer(Server& server);
  ~FakePointer();
  FakePointer(const FakePointer&) = delete;
  FakePointer& operator=(const FakePointer&) = delete;
  /// Moves to layout coordinates (absolute motion over the whole layout).
  void move_to(double lx, double ly);
  /// Relative motion, as a mouse makes (no acceleration: raw == delta).
  void move_by(double dx, double dy);
  void click(uint32_t button);
  /// One half of a click (WLCS drives them apart).
  void press(uint32_t button, bool pressed);
  /// Touchpad gestures as libinput reports them (begin, updates, end).
  void swipe_begin(uint32_t fingers);
  void swipe_update(uint32_t fingers, double dx, double dy);
  void swipe_end(bool cancelled);
  void pinch_begin(uint32_t fingers);
  void pinch_update(uint32_t fingers, double dx, double dy, double scale, double rotation);
  void pinch_end(bool cancelled);
  void hold_begin(uint32_t fingers);
  void hold_end(bool cancelled);

 private:
  void frame();
  Server& server_;
  wlr_pointer pointer_{};
  uint32_t time_ = 0;
};

/// A touchscreen over the whole layout: positions are layout coordinates.
class FakeTouch {
 public:
  explicit FakeTouch(Server& server);
  ~FakeTouch();
  FakeTouch(const FakeTouch&) = delete;
  FakeTouch& operator=(const FakeTouch&) = delete;
  void down(int32_t id, double lx, double ly);
  /// A point down where the device says, 0..1 across and down its surface
  /// (for a touchscreen mapped to one output).
  void down_on_device(int32_t id, double x, double y);
  void motion(int32_t id, double lx, double ly);
  void up(int32_t id);
  void cancel(int32_t id);
  /// Ends a group of the above, as the device's SYN_REPORT does.
  void frame();

 private:
  [[nodiscard]] double fx(double lx) const;
  [[nodiscard]] double fy(double ly) const;
  Server& server_;
  wlr_touch touch_{};
  uint32_t time_ = 0;
};

/// A drawing tablet with one pen, over the whole layout unless the config
/// maps it: positions are 0..1 across and down the tablet.
class FakeTablet {
 public:
  explicit FakeTablet(Server& server);
  ~FakeTablet();
  FakeTablet(const FakeTablet&) = delete;
  FakeTablet& operator=(const FakeTablet&) = delete;
  void proximity(double x, double y, bool in);
  void move(double x, double y);
  void pressure(double pressure);
  void tilt(double x, double y);
  void tip(bool down);
  /// BTN_STYLUS, BTN_STYLUS2
  void button(uint32_t button, bool pressed);

 private:
  /// An axis event with AXES updated, at the pen's last position.
  wlr_tablet_tool_axis_event axis_event(uint32_t axes);
  wlr_tablet tablet_{};
  wlr_tablet_tool pen_{};
  uint32_t time_ = 0;
  double x_ = 0, y_ = 0;
};

/// A tablet's pad, with buttons.
class FakeTabletPad {
 public:
  explicit FakeTabletPad(Server& server);
  ~FakeTabletPad();
  FakeTabletPad(const FakeTabletPad&) = delete;
  FakeTabletPad& operator=(const FakeTabletPad&) = delete;
  void button(uint32_t button, bool pressed);

 private:
  wlr_tablet_pad pad_{};
  uint32_t time_ = 0;
};

}  // namespace baton::test
