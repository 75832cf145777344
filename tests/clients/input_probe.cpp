// baton-input-probe: a fullscreen (or 400x300) window that prints, one line each, what its
// wl_seat delivers, so that a test driving real input devices (uinput, in the
// guest) can check what a client sees:
//   ready W H                      the window is shown at W x H
//   pointer-enter X Y, motion X Y  surface coordinates
//   button CODE pressed|released   (evdev codes: 272 is BTN_LEFT)
//   axis vertical|horizontal VALUE
//   keyboard-enter, key CODE pressed|released
//   repeat-info RATE DELAY         the compositor's key repeat settings
//   touch-down ID X Y, touch-up ID  a touchscreen's points (surface coordinates)
//   swipe-begin FINGERS, swipe-update DX DY, swipe-end|swipe-cancelled,
//   pinch-begin FINGERS, pinch-update SCALE, pinch-end|pinch-cancelled,
//   hold-begin FINGERS, hold-end|hold-cancelled
//                                  touchpad gestures (pointer-gestures-v1;
//                                  SCALE: relative to the pinch's start)
//   tablet-proximity-in, tablet-down X Y, tablet-pressure P (0..65535),
//   tablet-up, tablet-proximity-out
//                                  a tablet's pen (tablet-v2; X Y: the latest
//                                  motion before the tip went down)
//   frames N                       (--animate) every 10th frame shown
// Runs until killed (SIGTERM) or the compositor goes away.
//
// usage: baton-input-probe [--animate] [--windowed (400x300)] [--colour RRGGBB (default 305070)]
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wayland-client.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "pointer-gestures-unstable-v1-client-protocol.h"
#include "tablet-v2-client-protocol.h"
#include "tests/clients/producer_buffer.hpp"
#include "tests/clients/wayland_window.hpp"

namespace baton::testing {
namespace {

void line(const char* format, auto... args) {
  std::printf(format, args...);
  std::putchar('\n');
  std::fflush(stdout);
}

const wl_pointer_listener kPointer = {
    .enter =
        [](void*, wl_pointer*, uint32_t, wl_surface*, wl_fixed_t x, wl_fixed_t y) {
          line("pointer-enter %.2f %.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
        },
    .leave = [](void*, wl_pointer*, uint32_t, wl_surface*) { line("pointer-leave"); },
    .motion =
        [](void*, wl_pointer*, uint32_t, wl_fixed_t x, wl_fixed_t y) {
          line("motion %.2f %.2f", wl_fixed_to_double(x), wl_fixed_to_double(y));
        },
    .button =
        [](void*, wl_pointer*, uint32_t, uint32_t, uint32_t button, uint32_t state) {
          line("button %u %s", button,
               state == WL_POINTER_BUTTON_STATE_PRESSED ? "pressed" : "released");
        },
    .axis =
        [](void*, wl_pointer*, uint32_t, uint32_t axis, wl_fixed_t value) {
          line("axis %s %.2f", axis == WL_POINTER_AXIS_VERTICAL_SCROLL ? "vertical" : "horizontal",
               wl_fixed_to_double(value));
        },
    .frame = [](void*, wl_pointer*) {},
    .axis_source = [](void*, wl_pointer*, uint32_t) {},
    .axis_stop = [](void*, wl_pointer*, uint32_t, uint32_t) {},
    .axis_discrete = [](void*, wl_pointer*, uint32_t, int32_t) {},
    .axis_value120 = [](void*, wl_pointer*, uint32_t, int32_t) {},
    .axis_relative_direction = [](void*, wl_pointer*, uint32_t, uint32_t) {},
};

const wl_keyboard_listener kKeyboard = {
    .keymap = [](void*, wl_keyboard*, uint32_t, int32_t fd, uint32_t) { close(fd); },
    .enter = [](void*, wl_keyboard*, uint32_t, wl_surface*, wl_array*) { line("keyboard-enter"); },
    .leave = [](void*, wl_keyboard*, uint32_t, wl_surface*) { line("keyboard-leave"); },
    .key =
        [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t key, uint32_t state) {
          line("key %u %s", key, state == WL_KEYBOARD_KEY_STATE_PRESSED ? "pressed" : "released");
        },
    .modifiers = [](void*, wl_keyboard*, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t) {},
    .repeat_info = [](void*, wl_keyboard*, int32_t rate,
                      int32_t delay) { line("repeat-info %d %d", rate, delay); },
};

const zwp_pointer_gesture_swipe_v1_listener kSwipe = {
    .begin = [](void*, zwp_pointer_gesture_swipe_v1*, uint32_t, uint32_t, wl_surface*,
                uint32_t fingers) { line("swipe-begin %u", fingers); },
    .update =
        [](void*, zwp_pointer_gesture_swipe_v1*, uint32_t, wl_fixed_t dx, wl_fixed_t dy) {
          line("swipe-update %.2f %.2f", wl_fixed_to_double(dx), wl_fixed_to_double(dy));
        },
    .end = [](void*, zwp_pointer_gesture_swipe_v1*, uint32_t, uint32_t,
              int32_t cancelled) { line(cancelled != 0 ? "swipe-cancelled" : "swipe-end"); },
};

const zwp_pointer_gesture_pinch_v1_listener kPinch = {
    .begin = [](void*, zwp_pointer_gesture_pinch_v1*, uint32_t, uint32_t, wl_surface*,
                uint32_t fingers) { line("pinch-begin %u", fingers); },
    .update = [](void*, zwp_pointer_gesture_pinch_v1*, uint32_t, wl_fixed_t, wl_fixed_t,
                 wl_fixed_t scale,
                 wl_fixed_t) { line("pinch-update %.3f", wl_fixed_to_double(scale)); },
    .end = [](void*, zwp_pointer_gesture_pinch_v1*, uint32_t, uint32_t,
              int32_t cancelled) { line(cancelled != 0 ? "pinch-cancelled" : "pinch-end"); },
};

const zwp_pointer_gesture_hold_v1_listener kHold = {
    .begin = [](void*, zwp_pointer_gesture_hold_v1*, uint32_t, uint32_t, wl_surface*,
                uint32_t fingers) { line("hold-begin %u", fingers); },
    .end = [](void*, zwp_pointer_gesture_hold_v1*, uint32_t, uint32_t,
              int32_t cancelled) { line(cancelled != 0 ? "hold-cancelled" : "hold-end"); },
};

const wl_touch_listener kTouch = {
    .down =
        [](void*, wl_touch*, uint32_t, uint32_t, wl_surface*, int32_t id, wl_fixed_t x,
           wl_fixed_t y) {
          line("touch-down %d %.2f %.2f", id, wl_fixed_to_double(x), wl_fixed_to_double(y));
        },
    .up = [](void*, wl_touch*, uint32_t, uint32_t, int32_t id) { line("touch-up %d", id); },
    .motion = [](void*, wl_touch*, uint32_t, int32_t, wl_fixed_t, wl_fixed_t) {},
    .frame = [](void*, wl_touch*) {},
    .cancel = [](void*, wl_touch*) { line("touch-cancel"); },
    .shape = [](void*, wl_touch*, int32_t, wl_fixed_t, wl_fixed_t) {},
    .orientation = [](void*, wl_touch*, int32_t, wl_fixed_t) {},
};

struct PenState {
  double x = 0, y = 0;
  uint32_t pressure = 0;
};

const zwp_tablet_tool_v2_listener kTool = {
    .type = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
    .hardware_serial = [](void*, zwp_tablet_tool_v2*, uint32_t, uint32_t) {},
    .hardware_id_wacom = [](void*, zwp_tablet_tool_v2*, uint32_t, uint32_t) {},
    .capability = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
    .done = [](void*, zwp_tablet_tool_v2*) {},
    .removed = [](void*, zwp_tablet_tool_v2*) {},
    .proximity_in = [](void*, zwp_tablet_tool_v2*, uint32_t, zwp_tablet_v2*,
                       wl_surface*) { line("tablet-proximity-in"); },
    .proximity_out = [](void*, zwp_tablet_tool_v2*) { line("tablet-proximity-out"); },
    .down =
        [](void* data, zwp_tablet_tool_v2*, uint32_t) {
          const auto* pen = static_cast<PenState*>(data);
          line("tablet-down %.2f %.2f", pen->x, pen->y);
        },
    .up = [](void*, zwp_tablet_tool_v2*) { line("tablet-up"); },
    .motion =
        [](void* data, zwp_tablet_tool_v2*, wl_fixed_t x, wl_fixed_t y) {
          auto* pen = static_cast<PenState*>(data);
          pen->x = wl_fixed_to_double(x);
          pen->y = wl_fixed_to_double(y);
        },
    .pressure =
        [](void* data, zwp_tablet_tool_v2*, uint32_t pressure) {
          auto* pen = static_cast<PenState*>(data);
          if (pressure != pen->pressure) line("tablet-pressure %u", pressure);
          pen->pressure = pressure;
        },
    .distance = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
    .tilt = [](void*, zwp_tablet_tool_v2*, wl_fixed_t, wl_fixed_t) {},
    .rotation = [](void*, zwp_tablet_tool_v2*, wl_fixed_t) {},
    .slider = [](void*, zwp_tablet_tool_v2*, int32_t) {},
    .wheel = [](void*, zwp_tablet_tool_v2*, wl_fixed_t, int32_t) {},
    .button = [](void*, zwp_tablet_tool_v2*, uint32_t, uint32_t, uint32_t) {},
    .frame = [](void*, zwp_tablet_tool_v2*, uint32_t) {},
};

const zwp_tablet_seat_v2_listener kTabletSeat = {
    .tablet_added = [](void*, zwp_tablet_seat_v2*, zwp_tablet_v2*) {},
    .tool_added =
        [](void* data, zwp_tablet_seat_v2*, zwp_tablet_tool_v2* tool) {
          zwp_tablet_tool_v2_add_listener(tool, &kTool, data);
        },
    .pad_added = [](void*, zwp_tablet_seat_v2*, zwp_tablet_pad_v2*) {},
};

struct Seat {
  wl_seat* seat = nullptr;
  zwp_tablet_manager_v2* tablets = nullptr;
  PenState pen;
  wl_touch* touch = nullptr;
  wl_pointer* pointer = nullptr;
  wl_keyboard* keyboard = nullptr;
  zwp_pointer_gestures_v1* gestures = nullptr;
  zwp_pointer_gesture_swipe_v1* swipe = nullptr;
  zwp_pointer_gesture_pinch_v1* pinch = nullptr;
  zwp_pointer_gesture_hold_v1* hold = nullptr;

  void get_gestures() {
    if (gestures == nullptr) return;
    swipe = zwp_pointer_gestures_v1_get_swipe_gesture(gestures, pointer);
    zwp_pointer_gesture_swipe_v1_add_listener(swipe, &kSwipe, nullptr);
    pinch = zwp_pointer_gestures_v1_get_pinch_gesture(gestures, pointer);
    zwp_pointer_gesture_pinch_v1_add_listener(pinch, &kPinch, nullptr);
    if (zwp_pointer_gestures_v1_get_version(gestures) >=
        ZWP_POINTER_GESTURES_V1_GET_HOLD_GESTURE_SINCE_VERSION) {
      hold = zwp_pointer_gestures_v1_get_hold_gesture(gestures, pointer);
      zwp_pointer_gesture_hold_v1_add_listener(hold, &kHold, nullptr);
    }
  }
  void release_gestures() {
    if (swipe != nullptr) zwp_pointer_gesture_swipe_v1_destroy(swipe);
    if (pinch != nullptr) zwp_pointer_gesture_pinch_v1_destroy(pinch);
    if (hold != nullptr) zwp_pointer_gesture_hold_v1_destroy(hold);
    swipe = nullptr;
    pinch = nullptr;
    hold = nullptr;
  }
};

const wl_seat_listener kSeat = {
    .capabilities =
        [](void* data, wl_seat* seat, uint32_t caps) {
          auto* s = static_cast<Seat*>(data);
          // As real clients do: a capability that goes (the last device
          // unplugged, the session paused) releases its object, and one
          // that comes back gets a new one.
          const bool pointer = (caps & WL_SEAT_CAPABILITY_POINTER) != 0;
          const bool keyboard = (caps & WL_SEAT_CAPABILITY_KEYBOARD) != 0;
          if (!pointer && s->pointer != nullptr) {
            s->release_gestures();
            wl_pointer_release(s->pointer);
            s->pointer = nullptr;
          }
          if (!keyboard && s->keyboard != nullptr) {
            wl_keyboard_release(s->keyboard);
            s->keyboard = nullptr;
          }
          if (pointer && s->pointer == nullptr) {
            s->pointer = wl_seat_get_pointer(seat);
            wl_pointer_add_listener(s->pointer, &kPointer, nullptr);
            s->get_gestures();
          }
          const bool touch = (caps & WL_SEAT_CAPABILITY_TOUCH) != 0;
          if (!touch && s->touch != nullptr) {
            wl_touch_release(s->touch);
            s->touch = nullptr;
          }
          if (touch && s->touch == nullptr) {
            s->touch = wl_seat_get_touch(seat);
            wl_touch_add_listener(s->touch, &kTouch, nullptr);
          }
          if (keyboard && s->keyboard == nullptr) {
            s->keyboard = wl_seat_get_keyboard(seat);
            wl_keyboard_add_listener(s->keyboard, &kKeyboard, nullptr);
          }
          line("capabilities%s%s%s", (caps & WL_SEAT_CAPABILITY_POINTER) != 0 ? " pointer" : "",
               (caps & WL_SEAT_CAPABILITY_KEYBOARD) != 0 ? " keyboard" : "",
               (caps & WL_SEAT_CAPABILITY_TOUCH) != 0 ? " touch" : "");
        },
    .name = [](void*, wl_seat*, const char*) {},
};

const wl_registry_listener kRegistry = {
    .global =
        [](void* data, wl_registry* registry, uint32_t name, const char* interface,
           uint32_t version) {
          auto* s = static_cast<Seat*>(data);
          // Bound before the seat, whose capabilities make the gesture objects;
          // version 3 has hold gestures.
          if (std::string_view(interface) == zwp_pointer_gestures_v1_interface.name)
            s->gestures = static_cast<zwp_pointer_gestures_v1*>(wl_registry_bind(
                registry, name, &zwp_pointer_gestures_v1_interface, std::min(version, 3U)));
          if (std::string_view(interface) == zwp_tablet_manager_v2_interface.name)
            s->tablets = static_cast<zwp_tablet_manager_v2*>(
                wl_registry_bind(registry, name, &zwp_tablet_manager_v2_interface, 1));
          if (std::string_view(interface) == wl_seat_interface.name && s->seat == nullptr) {
            s->seat =
                static_cast<wl_seat*>(wl_registry_bind(registry, name, &wl_seat_interface, 7));
            wl_seat_add_listener(s->seat, &kSeat, s);
          }
        },
    .global_remove = [](void*, wl_registry*, uint32_t) {},
};

int run(bool animate, uint32_t colour, bool windowed) {
  WaylandWindow window("baton-input-probe", /*fullscreen=*/!windowed);
  if (window.display() == nullptr) {
    line("input-probe: FAIL: %s", window.error().c_str());
    return 1;
  }
  Seat seat;
  wl_registry* registry = wl_display_get_registry(window.display());
  wl_registry_add_listener(registry, &kRegistry, &seat);
  wl_display_roundtrip(window.display());
  if (seat.seat == nullptr) {
    line("input-probe: FAIL: no wl_seat");
    return 1;
  }
  if (seat.tablets != nullptr)
    zwp_tablet_seat_v2_add_listener(zwp_tablet_manager_v2_get_tablet_seat(seat.tablets, seat.seat),
                                    &kTabletSeat, &seat.pen);
  // Windowed: 400x300, wherever the compositor places it.
  const auto width = static_cast<uint32_t>(!windowed && window.width() > 0 ? window.width() : 400);
  const auto height =
      static_cast<uint32_t>(!windowed && window.height() > 0 ? window.height() : 300);
  auto buffer = ProducerBuffer::create(Allocator::shm, -1, width, height);
  if (!buffer) {
    line("input-probe: FAIL: %s", buffer.error().describe().c_str());
    return 1;
  }
  buffer->write(colour);
  wl_shm_pool* pool =
      wl_shm_create_pool(window.shm(), buffer->shm_fd(), static_cast<int32_t>(buffer->shm_size()));
  wl_buffer* wl =
      wl_shm_pool_create_buffer(pool, 0, static_cast<int32_t>(width), static_cast<int32_t>(height),
                                static_cast<int32_t>(buffer->stride()), WL_SHM_FORMAT_XRGB8888);
  wl_shm_pool_destroy(pool);
  wl_surface_attach(window.surface(), wl, 0, 0);
  wl_surface_damage_buffer(window.surface(), 0, 0, static_cast<int32_t>(width),
                           static_cast<int32_t>(height));
  const uint32_t serial = window.commit_with_frame();
  if (!window.wait_frame(serial, std::chrono::seconds(10))) {
    line("input-probe: FAIL: the window was never shown");
    return 1;
  }
  line("ready %u %u", width, height);
  // --animate: a new frame on every frame callback, counted, as a game or
  // video would; the count shows whether the client is still presenting.
  uint64_t frames = 0;
  while (animate) {
    wl_surface_attach(window.surface(), wl, 0, 0);
    wl_surface_damage_buffer(window.surface(), 0, 0, static_cast<int32_t>(width),
                             static_cast<int32_t>(height));
    const uint32_t next = window.commit_with_frame();
    while (!window.frame_done(next))
      if (wl_display_dispatch(window.display()) < 0) return 0;
    if (++frames % 10 == 0) line("frames %llu", static_cast<unsigned long long>(frames));
  }
  while (wl_display_dispatch(window.display()) >= 0) {
  }
  wl_buffer_destroy(wl);
  return 0;
}

}  // namespace
}  // namespace baton::testing

int main(int argc, char** argv) {
  bool animate = false;
  bool windowed = false;
  uint32_t colour = 0x305070;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--animate") {
      animate = true;
    } else if (arg == "--windowed") {
      windowed = true;
    } else if (arg == "--colour" && i + 1 < argc) {
      colour = static_cast<uint32_t>(std::strtoul(argv[++i], nullptr, 16));
    } else {
      std::fprintf(stderr, "usage: %s [--animate] [--windowed] [--colour RRGGBB]\n", argv[0]);
      return 2;
    }
  }
  return baton::testing::run(animate, colour, windowed);
}
