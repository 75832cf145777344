// The seat: keyboards, pointer and cursor image, and where input goes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compositor/input/drag_and_drop.hpp"
#include "compositor/input/grab.hpp"
#include "compositor/input/input_method_relay.hpp"
#include "compositor/input/pointer_gestures.hpp"
#include "compositor/input/tablets.hpp"
#include "compositor/input/touch.hpp"
#include "util/event_source.hpp"
#include "util/idle_call.hpp"
#include "util/listener.hpp"
#include "util/owned.hpp"
#include "util/signal.hpp"
#include "util/weak.hpp"
#include "util/wlr.hpp"

struct wlr_seat;
struct wlr_cursor;
struct wlr_xcursor_manager;
struct wlr_input_device;
struct wlr_keyboard;
struct wlr_keyboard_key_event;
struct wlr_pointer_motion_event;
struct wlr_pointer_motion_absolute_event;
struct wlr_pointer_button_event;
struct wlr_pointer_axis_event;
struct wlr_seat_pointer_request_set_cursor_event;
struct wlr_seat_request_set_selection_event;
struct wlr_surface;
struct wl_display;
struct wlr_session;

namespace baton {

class DesktopProtocols;
class LayerShell;
class SurfaceCommits;
class Output;
class Outputs;
class PointerConstraints;
class Seat;
class SessionLock;
class View;
class Windows;
struct Config;
struct SceneLayers;

/// What bindings ask of the server itself.
struct ServerActions {
  /// Starts a command with the server's environment; its pid, or -1.
  std::function<void(const std::string&)> spawn;  // logs what fails
  std::function<void(int exit_code)> terminate;
  /// Re-reads the config file; whether it was error-free.
  std::function<bool()> reload_config;
};

/// What the seat routes input between: every part of the desktop below it.
struct SeatContext {
  wl_display* display;
  wlr_seat* seat;
  wlr_cursor* cursor;
  wlr_session* session;  // null when nested or headless: no VT switching
  const Config& config;
  Outputs& outputs;
  Windows& windows;
  LayerShell& layer_shell;
  SessionLock& session_lock;
  SurfaceCommits& surface_commits;
  DesktopProtocols& protocols;
  const SceneLayers& layers;
  ServerActions actions;
};

class Keyboard {
 public:
  Keyboard(Seat& seat, wlr_keyboard* keyboard);
  Keyboard(const Keyboard&) = delete;
  Keyboard& operator=(const Keyboard&) = delete;
  [[nodiscard]] wlr_keyboard* wlr() const { return keyboard_; }
  /// The keys held down that clients know about: all but those whose press
  /// ran a binding (a surface entered now must not see them held).
  [[nodiscard]] std::vector<uint32_t> keys_for_clients() const;

 private:
  bool handle_binding(uint32_t keycode);
  Seat& seat_;
  wlr_keyboard* keyboard_;
  // Pressed keys that ran a binding: their release is not sent on either.
  std::vector<uint32_t> swallowed_;
  Listener<void> modifiers_;
  Listener<wlr_keyboard_key_event> key_;
  Listener<void> destroy_;
};

class Seat {
 public:
  explicit Seat(SeatContext context);
  ~Seat();
  Seat(const Seat&) = delete;
  Seat& operator=(const Seat&) = delete;

  [[nodiscard]] wlr_seat* wlr() const { return seat_; }
  [[nodiscard]] wlr_cursor* cursor() const { return cursor_; }
  [[nodiscard]] double cursor_x() const;
  [[nodiscard]] double cursor_y() const;
  [[nodiscard]] const SeatContext& context() const { return context_; }

  /// Adopts a keyboard or pointer (from the backend, or synthetic in tests).
  void add_input(wlr_input_device* device);
  /// Sends keyboard focus to `surface` (null clears it).
  void focus_keyboard(wlr_surface* surface);
  /// Re-evaluates what is under the cursor, e.g. after windows moved.
  void refresh_pointer_focus(uint32_t time_msec);
  /// Looks at what lies under the still pointer (pointer_rebase_).
  void rebase_pointer();
  void keyboard_destroyed(Keyboard& keyboard);
  /// Stops handling keyboards, first thing at shutdown: a backend that goes
  /// releases every key still held (Super and Shift after the exit binding),
  /// and those releases must not reach a half torn-down server.
  void stop_keyboards();
  /// baton's own cursor image (after a client's was taken away).
  void restore_cursor_image();
  [[nodiscard]] PointerConstraints& pointer_constraints() { return *constraints_; }
  [[nodiscard]] InputMethodRelay& input_method() { return *input_method_; }

  /// Applies the current config's input settings to every device.
  void reapply_input_config();
  /// Sets the cursor image to the named xcursor (cursor-shape-v1).
  void set_cursor_name(const char* name);

  [[nodiscard]] Grab& grab() { return grab_; }
  /// `view` is going away: drop any grab or button press that holds it.
  void forget(const View& view);
  /// Starts dragging `view` with the pointer (button held).
  void begin_move(View& view);
  void begin_resize(View& view, uint32_t edges);

 private:
  /// A client's move or resize request may take the pointer: the press it
  /// names (`serial`, or any press for X11) is held on one of its surfaces,
  /// and neither a drag nor another grab has the pointer.
  [[nodiscard]] bool press_still_held(const View& view, std::optional<uint32_t> serial) const;
  void update_capabilities();
  /// Keyboard focus to the focused window, or to the panel or lock screen
  /// that holds it.
  void focus_focused_window();
  /// A mouse, touchpad or tablet (whose tool is a mouse over clients that do
  /// not speak tablet-v2): the seat has a pointer and a cursor image.
  [[nodiscard]] bool has_pointer() const { return pointers_ > 0 || tablet_count_ > 0; }
  /// The cursor was put somewhere (a tablet tool acting as a mouse): grabs,
  /// workspaces and the pointer focus follow.
  void pointer_moved_to_cursor(uint32_t time_msec);
  /// Maps a touchscreen or tablet to its configured output, if present
  /// (not `going`, an output about to be removed).
  void map_to_output(wlr_input_device* device, const Output* going);
  /// The surface under the pointer is now `surface`: constraints follow.
  void set_pointer_surface(wlr_surface* surface, double sx, double sy);
  void handle_button(const wlr_pointer_button_event& event);
  /// A press or release on a title bar button; true when it was one.
  bool handle_title_button(const wlr_pointer_button_event& event, View* view);
  void handle_motion(wlr_input_device* device, uint32_t time_msec, double dx, double dy,
                     double unaccel_dx, double unaccel_dy);
  void activity();

  SeatContext context_;
  wlr_seat* seat_;
  wlr_cursor* cursor_;  // the Server's: it outlives the Listeners below
  Owned<wlr_xcursor_manager, wlr_xcursor_manager_destroy> cursor_theme_;
  std::vector<std::unique_ptr<Keyboard>> keyboards_;
  std::vector<wlr_input_device*> pointer_devices_;
  std::vector<wlr_input_device*> absolute_devices_;  // touchscreens, tablets
  int pointers_ = 0;
  int touches_ = 0;
  int tablet_count_ = 0;
  // Where the pointer is in the surface under it (for constraints and the
  // implicit grab); cleared when that surface is destroyed.
  wlr_surface* pointer_surface_ = nullptr;
  Listener<void> pointer_surface_destroy_;
  double pointer_sx_ = 0, pointer_sy_ = 0;
  double pointer_origin_x_ = 0, pointer_origin_y_ = 0;  // pointer_surface_'s, on the layout
  std::unique_ptr<PointerConstraints> constraints_;
  std::unique_ptr<PointerGestures> gestures_;
  std::unique_ptr<DragAndDrop> drag_and_drop_;
  std::unique_ptr<Touch> touch_;
  std::unique_ptr<Tablets> tablets_;
  std::unique_ptr<InputMethodRelay> input_method_;
  Grab grab_;
  uint32_t grab_button_ = 0;
  // A title bar button pressed and not yet released: it acts on release
  // over the same button, as toolkit buttons do.
  Weak<View> pressed_view_;
  TitleButton pressed_button_ = TitleButton::none;

  Listener<wlr_pointer_motion_event> motion_;
  Listener<wlr_pointer_motion_absolute_event> motion_absolute_;
  Listener<wlr_pointer_button_event> button_;
  Listener<wlr_pointer_axis_event> axis_;
  Listener<void> frame_;
  Listener<wlr_seat_pointer_request_set_cursor_event> request_cursor_;
  Listener<wlr_seat_request_set_selection_event> request_selection_;
  std::vector<std::unique_ptr<Listener<void>>> device_destroys_;
  Connection view_mapped_;
  Connection view_unmapped_;
  Connection view_destroyed_;
  Connection focused_changed_;
  Connection drag_ended_;
  Connection keyboard_requested_;
  Connection move_requested_;
  Connection resize_requested_;
  Connection rearranged_;
  Connection layer_keyboard_wanted_;
  Connection output_added_;
  Connection output_removed_;
  Connection layer_surfaces_changed_;
  Connection surface_committed_;
  Connection view_moved_;
  // What lies under a still pointer is looked at again after the scene
  // changed: a surface committed, a window moved, a layer surface came or
  // went. Once the loop is idle: wlroots has placed (or dropped) the buffer
  // in the scene by then (at a layer surface's map signal it is not there
  // yet, at its unmap the node still is; baton's commit listener runs before
  // the scene's), a burst of commits looks once, and the client's next
  // roundtrip already sees its pointer where it now is.
  IdleCall pointer_rebase_;
  Connection lock_keyboard_wanted_;
};

}  // namespace baton
