// Real input devices for the guest's input tests: keyboards, mice and
// touchpads made through /dev/uinput, which the kernel, udev and libinput
// treat like hardware. Commands come on stdin, one per line, and each is
// answered "ok" (or "error ...") on stdout once done, so a test can step
// through them:
//   keyboard|mouse|touchpad|touchscreen|tablet NAME
//                                  create a device named "baton-test NAME"
//   destroy NAME                   unplug it
//   key NAME CODE                  press and release an evdev key code
//   press|release NAME CODE
//   move NAME DX DY N [MS]         N relative motions of DX,DY, MS apart (8)
//   wheel NAME CLICKS              vertical wheel clicks (+: away from the user)
//   tap NAME                       a one-finger tap in the touchpad's middle
//   touch NAME X Y                 a touchscreen tap at X,Y (0..9999 of its width
//                                  and height), held 40 ms
//   swipe NAME FINGERS DX DY N     FINGERS (2 or 3) fingers down side by side,
//                                  moved together by DX,DY device units (10 a
//                                  mm) in N steps 10 ms apart, then lifted
//   pinch NAME SPREAD N            two fingers 15 mm apart, moved apart by
//                                  SPREAD units in all (less than 0: together)
//                                  in N steps 10 ms apart, then lifted
//   hold NAME FINGERS MS           FINGERS fingers down, still for MS, lifted
//   pen NAME X Y PRESSURE          a tablet's pen comes into proximity at X,Y
//                                  (0..9999 of the tablet), touches down with
//                                  PRESSURE (0..1023), held 60 ms, lifts, leaves
//   sleep MS
// Devices are unplugged at EOF.
//
// usage: vm-uinput   (as root, with the uinput module loaded)
#include <fcntl.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>

#include "util/unique_fd.hpp"

namespace {

using baton::UniqueFd;

bool emit(int fd, uint16_t type, uint16_t code, int32_t value) {
  input_event ev{};
  ev.type = type;
  ev.code = code;
  ev.value = value;
  return write(fd, &ev, sizeof ev) == static_cast<ssize_t>(sizeof ev);
}
bool sync(int fd) { return emit(fd, EV_SYN, SYN_REPORT, 0); }

bool abs_axis(int fd, uint16_t code, int32_t max, int32_t resolution) {
  uinput_abs_setup abs{};
  abs.code = code;
  abs.absinfo.maximum = max;
  abs.absinfo.resolution = resolution;
  return ioctl(fd, UI_ABS_SETUP, &abs) == 0;
}

// Touchpad size in device units; 10 units per mm makes it 100 x 70 mm.
constexpr int32_t kPadWidth = 1000, kPadHeight = 700, kPadResolution = 10;
constexpr int kPadSlots = 3;          // three fingers: a three-finger swipe
constexpr int32_t kScreenMax = 9999;  // a touchscreen's axes: 0..9999 across the screen
// A pen tablet (not a display): 0..9999 on each axis, 40 units a mm.
constexpr int32_t kTabletMax = 9999, kTabletResolution = 40, kPressureMax = 1023;

std::string create(UniqueFd& out, const std::string& kind, const std::string& name) {
  UniqueFd fd(open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd) return std::string("cannot open /dev/uinput: ") + std::strerror(errno);
  const int f = fd.get();
  bool ok = ioctl(f, UI_SET_EVBIT, EV_KEY) == 0 && ioctl(f, UI_SET_EVBIT, EV_SYN) == 0;
  if (kind == "keyboard") {
    for (int key = KEY_ESC; key <= KEY_MICMUTE; ++key) ok = ok && ioctl(f, UI_SET_KEYBIT, key) == 0;
  } else if (kind == "mouse") {
    ok = ok && ioctl(f, UI_SET_EVBIT, EV_REL) == 0;
    for (int rel : {REL_X, REL_Y, REL_WHEEL, REL_WHEEL_HI_RES})
      ok = ok && ioctl(f, UI_SET_RELBIT, rel) == 0;
    for (int button : {BTN_LEFT, BTN_RIGHT, BTN_MIDDLE})
      ok = ok && ioctl(f, UI_SET_KEYBIT, button) == 0;
  } else if (kind == "touchpad") {
    ok = ok && ioctl(f, UI_SET_EVBIT, EV_ABS) == 0 &&
         ioctl(f, UI_SET_PROPBIT, INPUT_PROP_POINTER) == 0;
    for (int key :
         {BTN_LEFT, BTN_RIGHT, BTN_TOUCH, BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP, BTN_TOOL_TRIPLETAP})
      ok = ok && ioctl(f, UI_SET_KEYBIT, key) == 0;
    ok = ok && abs_axis(f, ABS_X, kPadWidth, kPadResolution) &&
         abs_axis(f, ABS_Y, kPadHeight, kPadResolution) &&
         abs_axis(f, ABS_MT_POSITION_X, kPadWidth, kPadResolution) &&
         abs_axis(f, ABS_MT_POSITION_Y, kPadHeight, kPadResolution) &&
         abs_axis(f, ABS_MT_SLOT, kPadSlots - 1, 0) && abs_axis(f, ABS_MT_TRACKING_ID, 65535, 0);
  } else if (kind == "touchscreen") {
    // A direct-touch device: libinput maps it onto the screen, not a cursor.
    ok = ok && ioctl(f, UI_SET_EVBIT, EV_ABS) == 0 &&
         ioctl(f, UI_SET_PROPBIT, INPUT_PROP_DIRECT) == 0 &&
         ioctl(f, UI_SET_KEYBIT, BTN_TOUCH) == 0 && abs_axis(f, ABS_X, kScreenMax, 0) &&
         abs_axis(f, ABS_Y, kScreenMax, 0) && abs_axis(f, ABS_MT_POSITION_X, kScreenMax, 0) &&
         abs_axis(f, ABS_MT_POSITION_Y, kScreenMax, 0) && abs_axis(f, ABS_MT_SLOT, 1, 0) &&
         abs_axis(f, ABS_MT_TRACKING_ID, 65535, 0);
  } else if (kind == "tablet") {
    // BTN_TOOL_PEN with absolute X/Y is what udev tags ID_INPUT_TABLET.
    ok = ok && ioctl(f, UI_SET_EVBIT, EV_ABS) == 0 &&
         ioctl(f, UI_SET_PROPBIT, INPUT_PROP_POINTER) == 0;
    for (int key : {BTN_TOOL_PEN, BTN_TOUCH, BTN_STYLUS})
      ok = ok && ioctl(f, UI_SET_KEYBIT, key) == 0;
    ok = ok && abs_axis(f, ABS_X, kTabletMax, kTabletResolution) &&
         abs_axis(f, ABS_Y, kTabletMax, kTabletResolution) &&
         abs_axis(f, ABS_PRESSURE, kPressureMax, 0);
  } else {
    return "unknown device kind " + kind;
  }
  if (!ok) return std::string("uinput setup failed: ") + std::strerror(errno);
  uinput_setup setup{};
  setup.id.bustype = BUS_USB;
  setup.id.vendor = 0x1234;
  setup.id.product = kind == "keyboard"   ? 1
                     : kind == "mouse"    ? 2
                     : kind == "touchpad" ? 3
                     : kind == "tablet"   ? 5
                                          : 4;
  std::snprintf(setup.name, sizeof setup.name, "baton-test %s", name.c_str());
  if (ioctl(f, UI_DEV_SETUP, &setup) != 0 || ioctl(f, UI_DEV_CREATE) != 0)
    return std::string("cannot create the device: ") + std::strerror(errno);
  out = std::move(fd);
  return {};
}

void tap(int fd) {
  const int32_t x = kPadWidth / 2, y = kPadHeight / 2;
  emit(fd, EV_ABS, ABS_MT_SLOT, 0);
  emit(fd, EV_ABS, ABS_MT_TRACKING_ID, 1);
  emit(fd, EV_ABS, ABS_MT_POSITION_X, x);
  emit(fd, EV_ABS, ABS_MT_POSITION_Y, y);
  emit(fd, EV_ABS, ABS_X, x);
  emit(fd, EV_ABS, ABS_Y, y);
  emit(fd, EV_KEY, BTN_TOUCH, 1);
  emit(fd, EV_KEY, BTN_TOOL_FINGER, 1);
  sync(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  emit(fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
  emit(fd, EV_KEY, BTN_TOUCH, 0);
  emit(fd, EV_KEY, BTN_TOOL_FINGER, 0);
  sync(fd);
}

void touch(int fd, int32_t x, int32_t y) {
  emit(fd, EV_ABS, ABS_MT_SLOT, 0);
  emit(fd, EV_ABS, ABS_MT_TRACKING_ID, 1);
  emit(fd, EV_ABS, ABS_MT_POSITION_X, x);
  emit(fd, EV_ABS, ABS_MT_POSITION_Y, y);
  emit(fd, EV_ABS, ABS_X, x);
  emit(fd, EV_ABS, ABS_Y, y);
  emit(fd, EV_KEY, BTN_TOUCH, 1);
  sync(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  emit(fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
  emit(fd, EV_KEY, BTN_TOUCH, 0);
  sync(fd);
}

// In proximity, a little motion (libinput wants to see the pen move before
// it trusts the position), tip down with pressure, up, out of proximity.
void pen(int fd, int32_t x, int32_t y, int32_t pressure) {
  auto pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); };
  emit(fd, EV_ABS, ABS_X, x - 20);
  emit(fd, EV_ABS, ABS_Y, y);
  emit(fd, EV_KEY, BTN_TOOL_PEN, 1);
  sync(fd);
  pause();
  emit(fd, EV_ABS, ABS_X, x);
  sync(fd);
  pause();
  emit(fd, EV_ABS, ABS_PRESSURE, pressure);
  emit(fd, EV_KEY, BTN_TOUCH, 1);
  sync(fd);
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  emit(fd, EV_ABS, ABS_PRESSURE, 0);
  emit(fd, EV_KEY, BTN_TOUCH, 0);
  sync(fd);
  pause();
  emit(fd, EV_KEY, BTN_TOOL_PEN, 0);
  sync(fd);
}

// Fingers 15 mm apart around the pad's middle, moved together.
// FINGERS fingers side by side, 150 units apart, around the touchpad's
// middle; over STEPS steps 10 ms apart they move by DX,DY together and their
// gap grows by SPREAD (a pinch); REST_MS still before they lift (a hold).
struct FingerMotion {
  int fingers = 2;
  int32_t dx = 0, dy = 0, spread = 0;
  int steps = 0;
  int rest_ms = 10;
};

void fingers_gesture(int fd, const FingerMotion& m) {
  const int32_t cx = kPadWidth / 2, cy = kPadHeight / 2, gap0 = 150;
  const int tool = m.fingers == 3   ? BTN_TOOL_TRIPLETAP
                   : m.fingers == 2 ? BTN_TOOL_DOUBLETAP
                                    : BTN_TOOL_FINGER;
  auto place = [&](int step, bool down) {
    const int32_t x = cx + (m.steps > 0 ? m.dx * step / m.steps : 0);
    const int32_t y = cy + (m.steps > 0 ? m.dy * step / m.steps : 0);
    const int32_t gap = gap0 + (m.steps > 0 ? m.spread * step / m.steps : 0);
    for (int i = 0; i < m.fingers; ++i) {
      emit(fd, EV_ABS, ABS_MT_SLOT, i);
      if (down) emit(fd, EV_ABS, ABS_MT_TRACKING_ID, 100 + i);
      // Centred on x: (i - (fingers - 1) / 2) gaps from it.
      emit(fd, EV_ABS, ABS_MT_POSITION_X, x + gap * (2 * i - (m.fingers - 1)) / 2);
      emit(fd, EV_ABS, ABS_MT_POSITION_Y, y);
    }
    emit(fd, EV_ABS, ABS_X, x - gap * (m.fingers - 1) / 2);
    emit(fd, EV_ABS, ABS_Y, y);
  };
  place(0, true);
  emit(fd, EV_KEY, BTN_TOUCH, 1);
  emit(fd, EV_KEY, tool, 1);
  sync(fd);
  for (int s = 1; s <= m.steps; ++s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    place(s, false);
    sync(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(m.rest_ms));
  for (int i = 0; i < m.fingers; ++i) {
    emit(fd, EV_ABS, ABS_MT_SLOT, i);
    emit(fd, EV_ABS, ABS_MT_TRACKING_ID, -1);
  }
  emit(fd, EV_KEY, BTN_TOUCH, 0);
  emit(fd, EV_KEY, tool, 0);
  sync(fd);
}

}  // namespace

int main() {
  std::map<std::string, UniqueFd> devices;
  std::string text;
  while (std::getline(std::cin, text)) {
    std::istringstream in(text);
    std::string command, name;
    in >> command >> name;
    std::string error;
    auto device = [&]() -> int {
      auto it = devices.find(name);
      if (it == devices.end()) {
        error = "no device " + name;
        return -1;
      }
      return it->second.get();
    };
    if (command.empty() || command[0] == '#') continue;
    if (command == "keyboard" || command == "mouse" || command == "touchpad" ||
        command == "touchscreen" || command == "tablet") {
      UniqueFd fd;
      error = create(fd, command, name);
      if (error.empty()) devices[name] = std::move(fd);
    } else if (command == "destroy") {
      if (device() >= 0) {
        ioctl(devices[name].get(), UI_DEV_DESTROY);
        devices.erase(name);
      }
    } else if (command == "key" || command == "press" || command == "release") {
      int code = 0;
      in >> code;
      if (const int fd = device(); fd >= 0) {
        if (command != "release") emit(fd, EV_KEY, static_cast<uint16_t>(code), 1), sync(fd);
        if (command == "key") std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (command != "press") emit(fd, EV_KEY, static_cast<uint16_t>(code), 0), sync(fd);
      }
    } else if (command == "move") {
      int dx = 0, dy = 0, n = 0, ms = 8;
      in >> dx >> dy >> n;
      if (!(in >> ms)) ms = 8;
      if (const int fd = device(); fd >= 0) {
        for (int i = 0; i < n; ++i) {
          emit(fd, EV_REL, REL_X, dx);
          emit(fd, EV_REL, REL_Y, dy);
          sync(fd);
          std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        }
      }
    } else if (command == "wheel") {
      int clicks = 0;
      in >> clicks;
      if (const int fd = device(); fd >= 0) {
        emit(fd, EV_REL, REL_WHEEL, clicks);
        emit(fd, EV_REL, REL_WHEEL_HI_RES, clicks * 120);
        sync(fd);
      }
    } else if (command == "tap") {
      if (const int fd = device(); fd >= 0) tap(fd);
    } else if (command == "touch") {
      int x = 0, y = 0;
      in >> x >> y;
      if (const int fd = device(); fd >= 0) touch(fd, x, y);
    } else if (command == "pen") {
      int x = 0, y = 0, pressure = 0;
      in >> x >> y >> pressure;
      if (const int fd = device(); fd >= 0) pen(fd, x, y, pressure);
    } else if (command == "swipe") {
      FingerMotion m;
      in >> m.fingers >> m.dx >> m.dy >> m.steps;
      if (m.fingers < 2 || m.fingers > kPadSlots || m.steps < 1)
        error = "swipe takes 2 or 3 fingers and at least one step";
      else if (const int fd = device(); fd >= 0)
        fingers_gesture(fd, m);
    } else if (command == "pinch") {
      FingerMotion m;
      in >> m.spread >> m.steps;
      if (m.steps < 1 || m.spread <= -150)
        error = "pinch takes a spread above -150 and at least one step";
      else if (const int fd = device(); fd >= 0)
        fingers_gesture(fd, m);
    } else if (command == "hold") {
      FingerMotion m;
      in >> m.fingers >> m.rest_ms;
      if (m.fingers < 1 || m.fingers > kPadSlots || m.rest_ms < 0)
        error = "hold takes 1 to 3 fingers and a time";
      else if (const int fd = device(); fd >= 0)
        fingers_gesture(fd, m);
    } else if (command == "sleep") {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(name)));
    } else {
      error = "unknown command " + command;
    }
    if (error.empty())
      std::printf("ok %s\n", text.c_str());
    else
      std::printf("error %s: %s\n", text.c_str(), error.c_str());
    std::fflush(stdout);
  }
  for (auto& [name, fd] : devices) ioctl(fd.get(), UI_DEV_DESTROY);
  return 0;
}
