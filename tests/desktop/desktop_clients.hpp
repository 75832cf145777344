// Test clients that drive baton like a user and a desktop shell would: a
// virtual keyboard and pointer (zwp_virtual_keyboard_v1,
// zwlr_virtual_pointer_v1) and a layer-shell panel.
#pragma once

#include <wayland-client.h>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>

#include "tests/support/client.hpp"
#include "tests/support/globals.hpp"
#include "tests/support/harness.hpp"
#include "tests/support/map_window.hpp"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
// A request parameter is named `namespace`.
#define namespace namespace_
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#undef namespace
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"

namespace baton {
class View;
}

namespace baton::test {

/// Headless options (`outputs` outputs of 640x480) reading the config
/// `text`, written into the scratch directory `name`.
Options with_config(const std::string& name, const std::string& text, int outputs = 1);

class VirtualKeyboard {
 public:
  VirtualKeyboard(Harness& h, Client& c);
  ~VirtualKeyboard();
  /// Presses the keys in order and releases them in reverse (evdev codes).
  void chord(std::initializer_list<uint32_t> keys);
  void press(uint32_t key, bool down);

 private:
  Harness& h_;
  zwp_virtual_keyboard_v1* keyboard_ = nullptr;
  uint32_t shift_ = 0, ctrl_ = 0, alt_ = 0, super_ = 0;
  uint32_t depressed_ = 0;
  uint32_t time_ = 0;
};

class VirtualPointer {
 public:
  VirtualPointer(Harness& h, Client& c);
  ~VirtualPointer();
  /// Moves to layout (x, y) within a `width`x`height` layout.
  void move_to(int x, int y, int width, int height);
  void button(uint32_t button, bool down);
  /// A vertical wheel scroll of `steps` detents.
  void scroll(int32_t steps);

 private:
  Harness& h_;
  zwlr_virtual_pointer_v1* pointer_ = nullptr;
  uint32_t time_ = 0;
};

/// A panel: a layer surface anchored to one edge with an exclusive zone.
class Panel {
 public:
  Panel(Client& c, uint32_t layer, uint32_t anchor, int size, int exclusive_zone, uint32_t argb,
        uint32_t keyboard_interactivity = 0);
  ~Panel();
  [[nodiscard]] bool configured() const { return buffer_ != nullptr; }
  [[nodiscard]] wl_surface* surface() const { return surface_; }
  [[nodiscard]] zwlr_layer_surface_v1* layer_surface() const { return layer_surface_; }
  /// Makes `popup` (made with Window(client, positioner)) this panel's.
  void adopt_popup(Window& popup);
  int width = 0, height = 0;
  /// Configure events received.
  int configures = 0;
  bool closed = false;

 private:
  friend struct PanelListener;
  Client& client_;
  Globals globals_;
  uint32_t argb_;
  wl_surface* surface_ = nullptr;
  zwlr_layer_surface_v1* layer_surface_ = nullptr;
  std::unique_ptr<ShmBuffer> buffer_;
};

}  // namespace baton::test
