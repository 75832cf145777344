// A small but real Wayland client for tests: binds globals, makes shm
// buffers, xdg toplevels and popups, and records what the seat sends it.
#pragma once

#include <wayland-client.h>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "presentation-time-client-protocol.h"
#include "xdg-shell-client-protocol.h"

namespace baton::test {

class Harness;

/// A wl_shm buffer of one solid ARGB colour.
class ShmBuffer {
 public:
  ShmBuffer(wl_shm* shm, int width, int height, uint32_t argb,
            uint32_t format = WL_SHM_FORMAT_ARGB8888);
  ~ShmBuffer();
  ShmBuffer(const ShmBuffer&) = delete;
  ShmBuffer& operator=(const ShmBuffer&) = delete;
  [[nodiscard]] wl_buffer* get() const { return buffer_; }
  [[nodiscard]] bool released() const { return released_; }
  /// Its pixels, rows of `width` (what a capture wrote into it).
  [[nodiscard]] const uint32_t* pixels() const { return pixels_; }
  void fill(uint32_t argb);

 private:
  wl_buffer* buffer_ = nullptr;
  uint32_t* pixels_ = nullptr;
  size_t size_ = 0;
  bool released_ = false;
};

struct Configure {
  uint32_t serial = 0;
  int width = 0;
  int height = 0;
  bool activated = false;
};

class Client;

/// An xdg_toplevel (or, with a parent, an xdg_popup) with its surface.
class Window {
 public:
  Window(Client& client, Window* popup_parent = nullptr, xdg_positioner* positioner = nullptr);
  /// A popup without an xdg parent: another protocol gives it one (a
  /// layer surface's get_popup) before its first commit.
  Window(Client& client, xdg_positioner* positioner);
  ~Window();
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;

  /// Initial commit; the compositor must answer with a configure.
  void initial_commit();
  /// Acks the latest configure and commits a `width`x`height` buffer of `argb`.
  void draw(int width, int height, uint32_t argb);
  /// The same with a buffer the caller keeps (and may commit again): for
  /// long runs, where draw()'s new buffer per frame would pile up.
  void present(const ShmBuffer& buffer, int width, int height);
  /// Commits a null buffer (the protocol's unmap).
  void unmap();

  [[nodiscard]] wl_surface* surface() const { return surface_; }
  [[nodiscard]] xdg_surface* xdg() const { return xdg_surface_; }
  [[nodiscard]] xdg_toplevel* toplevel() const { return toplevel_; }
  [[nodiscard]] xdg_popup* popup() const { return popup_; }
  [[nodiscard]] size_t configure_count() const { return configures_.size(); }
  [[nodiscard]] const Configure& last_configure() const { return configures_.back(); }
  /// Popups: the last xdg_popup.configure geometry (parent-relative).
  int popup_x = 0, popup_y = 0, popup_width = 0, popup_height = 0;
  bool popup_done = false;
  /// xdg_toplevel.close arrived.
  bool closed = false;

 private:
  friend struct WindowListeners;
  Client& client_;
  wl_surface* surface_ = nullptr;
  xdg_surface* xdg_surface_ = nullptr;
  xdg_toplevel* toplevel_ = nullptr;
  xdg_popup* popup_ = nullptr;
  Configure pending_;
  uint32_t acked_serial_ = 0;
  std::vector<Configure> configures_;
  std::vector<std::unique_ptr<ShmBuffer>> buffers_;
};

struct KeyEvent {
  uint32_t key;
  uint32_t state;
};

class Client {
 public:
  explicit Client(Harness& harness);
  /// A client on a connection the harness made (Harness::connect_to).
  Client(Harness& harness, wl_display* display);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  Harness& harness() { return harness_; }
  [[nodiscard]] wl_display* display() const { return display_; }
  [[nodiscard]] bool has_global(const std::string& interface) const {
    return globals_.count(interface) > 0;
  }

  wl_compositor* compositor = nullptr;
  wl_shm* shm = nullptr;
  xdg_wm_base* wm_base = nullptr;
  wl_seat* seat = nullptr;
  wl_output* output = nullptr;
  wp_presentation* presentation = nullptr;
  uint32_t presentation_clock = UINT32_MAX;

  // What the seat told us.
  uint32_t seat_capabilities = 0;
  wl_keyboard* keyboard = nullptr;
  wl_pointer* pointer = nullptr;
  wl_surface* keyboard_focus = nullptr;
  wl_surface* pointer_focus = nullptr;
  uint32_t pointer_enter_serial = 0;
  uint32_t keyboard_enter_serial = 0;
  /// Keys already held when the keyboard entered (wl_keyboard.enter).
  std::vector<uint32_t> enter_keys;
  /// Serials of the latest wl_keyboard.key and wl_pointer.button press.
  uint32_t key_serial = 0, button_serial = 0;
  double pointer_x = 0, pointer_y = 0;
  std::vector<KeyEvent> keys;
  std::vector<uint32_t> buttons;  // pressed, as wl_pointer.button said
  std::vector<uint32_t> released_buttons;
  /// wl_pointer.axis_discrete steps, as they came (wheel scrolling).
  std::vector<int32_t> axis_discrete;
  /// wl_touch events as they came: kind is down, up, motion, frame or cancel
  /// (surface and x, y only for down and motion; the surface for down).
  struct TouchEvent {
    std::string kind;
    int32_t id = -1;
    wl_surface* surface = nullptr;
    double x = 0, y = 0;
  };
  wl_touch* touch = nullptr;
  uint32_t touch_down_serial = 0;  // of the latest wl_touch.down
  std::vector<TouchEvent> touch_events;
  bool keymap_received = false;

 private:
  friend struct ClientListeners;
  Harness& harness_;
  wl_display* display_;
  wl_registry* registry_ = nullptr;
  std::set<std::string> globals_;
};

}  // namespace baton::test
