#include "compositor/input/seat.hpp"

#include <linux/input-event-codes.h>

#include <algorithm>
#include <cmath>

#include "compositor/config/apply.hpp"
#include "compositor/desktop/surface_commits.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/input/bindings.hpp"
#include "compositor/input/pointer_constraints.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/scene_layers.hpp"
#include "compositor/shell/desktop_protocols.hpp"
#include "compositor/shell/layer_shell.hpp"
#include "compositor/shell/session_lock.hpp"
#include "util/clock.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

Keyboard::Keyboard(Seat& seat, wlr_keyboard* keyboard) : seat_(seat), keyboard_(keyboard) {
  // The keymap comes from the config's [[input]] entries, then from
  // XKB_DEFAULT_{RULES,MODEL,LAYOUT,VARIANT,OPTIONS}.
  apply_input_config(seat.context().config, &keyboard->base);

  modifiers_.connect(&keyboard->events.modifiers, [this](void*) {
    if (seat_.input_method().take_modifiers(keyboard_)) return;
    wlr_seat_set_keyboard(seat_.wlr(), keyboard_);
    wlr_seat_keyboard_notify_modifiers(seat_.wlr(), &keyboard_->modifiers);
  });
  key_.connect(&keyboard->events.key, [this](wlr_keyboard_key_event* event) {
    seat_.context().protocols.notify_activity();
    // A key that runs a binding belongs to baton: no client sees its press
    // or its release, nor sees it held when the binding moves focus (so it
    // counts as swallowed while the binding runs).
    if (event->state == WL_KEYBOARD_KEY_STATE_PRESSED) {
      swallowed_.push_back(event->keycode);
      if (handle_binding(event->keycode)) return;
      swallowed_.pop_back();
    } else if (std::erase(swallowed_, event->keycode) > 0) {
      return;
    }
    // An input method grabbing the keyboard composes from the keys.
    if (seat_.input_method().take_key(keyboard_, *event)) return;
    wlr_seat_set_keyboard(seat_.wlr(), keyboard_);
    wlr_seat_keyboard_notify_key(seat_.wlr(), event->time_msec, event->keycode, event->state);
  });
  destroy_.connect(&keyboard->base.events.destroy,
                   [this](void*) { seat_.keyboard_destroyed(*this); });
}

std::vector<uint32_t> Keyboard::keys_for_clients() const {
  std::vector<uint32_t> keys(keyboard_->keycodes, keyboard_->keycodes + keyboard_->num_keycodes);
  std::erase_if(keys, [this](uint32_t key) {
    return std::find(swallowed_.begin(), swallowed_.end(), key) != swallowed_.end();
  });
  return keys;
}

// Compositor-level keys that must work before any configuration exists:
// Ctrl+Alt+F1..F12 switches virtual terminals on a DRM session.
bool Keyboard::handle_binding(uint32_t keycode) {
  if (keyboard_->xkb_state == nullptr) return false;
  const xkb_keysym_t* syms = nullptr;
  int count = xkb_state_key_get_syms(keyboard_->xkb_state, keycode + 8, &syms);
  for (int i = 0; i < count; ++i) {
    xkb_keysym_t sym = syms[i];
    if (sym >= XKB_KEY_XF86Switch_VT_1 && sym <= XKB_KEY_XF86Switch_VT_12) {
      if (wlr_session* session = seat_.context().session; session != nullptr)
        wlr_session_change_vt(session, sym - XKB_KEY_XF86Switch_VT_1 + 1);
      return true;
    }
  }
  return handle_key_binding(seat_.context(), keyboard_, keycode);
}

Seat::Seat(SeatContext context)
    : context_(std::move(context)),
      seat_(context_.seat),
      cursor_(context_.cursor),
      cursor_theme_(wlr_xcursor_manager_create(nullptr, 24)),
      pointer_rebase_(wl_display_get_event_loop(context_.display), [this] { rebase_pointer(); }) {
  wlr_cursor_attach_output_layout(cursor_, context_.outputs.layout());

  constraints_ = std::make_unique<PointerConstraints>(*this, context_.display);
  // Input is dispatched as it arrives, never batched to the next frame.
  motion_.connect(&cursor_->events.motion, [this](wlr_pointer_motion_event* event) {
    handle_motion(&event->pointer->base, event->time_msec, event->delta_x, event->delta_y,
                  event->unaccel_dx, event->unaccel_dy);
  });
  motion_absolute_.connect(
      &cursor_->events.motion_absolute, [this](wlr_pointer_motion_absolute_event* event) {
        double lx = 0;
        double ly = 0;
        wlr_cursor_absolute_to_layout_coords(cursor_, &event->pointer->base, event->x, event->y,
                                             &lx, &ly);
        // A virtual pointer may aim far past its extent: the move (and the
        // relative motion it makes) ends at the layout's edge, as the cursor.
        wlr_output_layout_closest_point(context_.outputs.layout(), nullptr, lx, ly, &lx, &ly);
        double dx = lx - cursor_->x;
        double dy = ly - cursor_->y;
        handle_motion(&event->pointer->base, event->time_msec, dx, dy, dx, dy);
      });
  button_.connect(&cursor_->events.button,
                  [this](wlr_pointer_button_event* event) { handle_button(*event); });
  axis_.connect(&cursor_->events.axis, [this](wlr_pointer_axis_event* event) {
    activity();
    wlr_seat_pointer_notify_axis(seat_, event->time_msec, event->orientation, event->delta,
                                 event->delta_discrete, event->source, event->relative_direction);
  });
  frame_.connect(&cursor_->events.frame, [this](void*) { wlr_seat_pointer_notify_frame(seat_); });
  gestures_ =
      std::make_unique<PointerGestures>(context_.display, seat_, cursor_, [this] { activity(); });
  drag_and_drop_ = std::make_unique<DragAndDrop>(seat_, cursor_, context_.layers.drag_icons);
  touch_ = std::make_unique<Touch>(seat_, cursor_, context_.windows, *drag_and_drop_,
                                   [this] { activity(); });
  tablets_ = std::make_unique<Tablets>(
      context_.display, seat_, cursor_, context_.windows,
      PointerEmulation{
          .moved = [this](uint32_t time_msec) { pointer_moved_to_cursor(time_msec); },
          .button =
              [this](uint32_t time_msec, uint32_t button, bool pressed) {
                wlr_pointer_button_event event{};
                event.time_msec = time_msec;
                event.button = button;
                event.state =
                    pressed ? WL_POINTER_BUTTON_STATE_PRESSED : WL_POINTER_BUTTON_STATE_RELEASED;
                handle_button(event);
              },
      },
      [this] { activity(); });
  input_method_ =
      std::make_unique<InputMethodRelay>(context_.display, seat_, context_.layers.scene,
                                         context_.layers.input_popups, context_.outputs.layout());

  // A client may set the cursor image only while it has pointer focus.
  request_cursor_.connect(
      &seat_->events.request_set_cursor, [this](wlr_seat_pointer_request_set_cursor_event* event) {
        if (event->seat_client == seat_->pointer_state.focused_client)
          wlr_cursor_set_surface(cursor_, event->surface, event->hotspot_x, event->hotspot_y);
      });
  request_selection_.connect(&seat_->events.request_set_selection,
                             [this](wlr_seat_request_set_selection_event* event) {
                               wlr_seat_set_selection(seat_, event->source, event->serial);
                             });
  update_capabilities();

  // Windows that go lose the grab and the pressed title button; the pointer
  // focus follows what is now under the cursor.
  Windows& windows = context_.windows;
  view_mapped_ =
      windows.view_mapped.connect([this](View&) { refresh_pointer_focus(monotonic_msec()); });
  view_unmapped_ = windows.view_unmapped.connect([this](View& view) {
    forget(view);
    refresh_pointer_focus(monotonic_msec());
  });
  view_destroyed_ = windows.view_destroyed.connect([this](View& view) { forget(view); });
  rearranged_ =
      windows.workspaces().rearranged.connect([this] { refresh_pointer_focus(monotonic_msec()); });
  move_requested_ =
      windows.move_requested.connect([this](View& view, std::optional<uint32_t> serial) {
        if (press_still_held(view, serial)) begin_move(view);
      });
  resize_requested_ = windows.resize_requested.connect(
      [this](View& view, uint32_t edges, std::optional<uint32_t> serial) {
        if (press_still_held(view, serial)) begin_resize(view, edges);
      });

  // Keyboard focus: the focused window's, unless a panel or lock screen
  // that asked for the keyboard holds it.
  focused_changed_ = windows.focused_changed.connect([this](View*) { focus_focused_window(); });
  // A drag held the pointer and the keyboard: what is under the pointer and
  // the focused window have them again (focus may have moved meanwhile).
  drag_ended_ = drag_and_drop_->ended.connect([this] {
    refresh_pointer_focus(monotonic_msec());
    focus_focused_window();
  });
  keyboard_requested_ =
      windows.keyboard_requested.connect([this](wlr_surface* s) { focus_keyboard(s); });
  layer_keyboard_wanted_ =
      context_.layer_shell.keyboard_wanted.connect([this](wlr_surface* s) { focus_keyboard(s); });
  layer_surfaces_changed_ =
      context_.layer_shell.surfaces_changed.connect([this] { pointer_rebase_.schedule(); });
  surface_committed_ =
      context_.surface_commits.committed.connect([this] { pointer_rebase_.schedule(); });
  view_moved_ = windows.view_moved.connect([this](View&) { pointer_rebase_.schedule(); });
  // Touchscreens and tablets mapped to an output follow it as it comes and goes.
  output_added_ = context_.outputs.added.connect([this](Output&) {
    for (wlr_input_device* device : absolute_devices_) map_to_output(device, nullptr);
  });
  output_removed_ = context_.outputs.removed.connect([this](Output& going) {
    for (wlr_input_device* device : absolute_devices_) map_to_output(device, &going);
  });
  lock_keyboard_wanted_ =
      context_.session_lock.keyboard_wanted.connect([this](wlr_surface* s) { focus_keyboard(s); });
}

Seat::~Seat() {
  constraints_.reset();
  keyboards_.clear();
  device_destroys_.clear();
}

void Seat::focus_focused_window() {
  View* view = context_.windows.focused();
  if (view == nullptr) {
    focus_keyboard(nullptr);
    return;
  }
  wlr_surface* exclusive = context_.layer_shell.exclusive_focus();
  focus_keyboard(exclusive != nullptr ? exclusive : view->surface());
}

double Seat::cursor_x() const { return cursor_->x; }
double Seat::cursor_y() const { return cursor_->y; }

void Seat::add_input(wlr_input_device* device) {
  if (device->type == WLR_INPUT_DEVICE_KEYBOARD || device->type == WLR_INPUT_DEVICE_POINTER)
    // tests grep this line: tests/vm/input_test.sh, tests/vm/vt_switch_test.sh
    LOG_INFO("input: %s %s added",
             device->type == WLR_INPUT_DEVICE_KEYBOARD ? "keyboard" : "pointer",
             device->name != nullptr ? device->name : "(unnamed)");
  switch (device->type) {
    case WLR_INPUT_DEVICE_KEYBOARD: {
      wlr_keyboard* keyboard = wlr_keyboard_from_input_device(device);
      keyboards_.push_back(std::make_unique<Keyboard>(*this, keyboard));
      wlr_seat_set_keyboard(seat_, keyboard);
      break;
    }
    case WLR_INPUT_DEVICE_POINTER: {
      wlr_cursor_attach_input_device(cursor_, device);
      apply_input_config(context_.config, device);
      ++pointers_;
      pointer_devices_.push_back(device);
      auto listener = std::make_unique<Listener<void>>();
      Listener<void>* raw = listener.get();
      listener->connect(&device->events.destroy, [this, raw, device](void*) {
        LOG_INFO("input: pointer %s removed", device->name != nullptr ? device->name : "(unnamed)");
        --pointers_;
        std::erase(pointer_devices_, device);
        std::erase_if(device_destroys_, [raw](const auto& l) { return l.get() == raw; });
        update_capabilities();
      });
      device_destroys_.push_back(std::move(listener));
      break;
    }
    case WLR_INPUT_DEVICE_TOUCH: {
      // tests grep this line: tests/vm/input_test.sh
      LOG_INFO("input: touch %s added", device->name != nullptr ? device->name : "(unnamed)");
      wlr_cursor_attach_input_device(cursor_, device);
      ++touches_;
      absolute_devices_.push_back(device);
      map_to_output(device, nullptr);
      auto listener = std::make_unique<Listener<void>>();
      Listener<void>* raw = listener.get();
      listener->connect(&device->events.destroy, [this, raw, device](void*) {
        LOG_INFO("input: touch %s removed", device->name != nullptr ? device->name : "(unnamed)");
        --touches_;
        std::erase(absolute_devices_, device);
        std::erase_if(device_destroys_, [raw](const auto& l) { return l.get() == raw; });
        update_capabilities();
      });
      device_destroys_.push_back(std::move(listener));
      break;
    }
    case WLR_INPUT_DEVICE_TABLET: {
      tablets_->add_tablet(device);
      ++tablet_count_;
      absolute_devices_.push_back(device);
      map_to_output(device, nullptr);
      auto listener = std::make_unique<Listener<void>>();
      Listener<void>* raw = listener.get();
      listener->connect(&device->events.destroy, [this, raw, device](void*) {
        --tablet_count_;
        std::erase(absolute_devices_, device);
        std::erase_if(device_destroys_, [raw](const auto& l) { return l.get() == raw; });
        update_capabilities();
      });
      device_destroys_.push_back(std::move(listener));
      break;
    }
    case WLR_INPUT_DEVICE_TABLET_PAD:
      tablets_->add_pad(device);
      break;
    default:
      LOG_DEBUG("input device %s of type %d is not used yet", device->name, device->type);
      return;
  }
  update_capabilities();
}

void Seat::keyboard_destroyed(Keyboard& keyboard) {
  const char* name = keyboard.wlr()->base.name;
  // tests grep this line: tests/vm/input_test.sh
  LOG_INFO("input: keyboard %s removed", name != nullptr ? name : "(unnamed)");
  std::erase_if(keyboards_, [&](const auto& k) { return k.get() == &keyboard; });
  update_capabilities();
}

void Seat::stop_keyboards() { keyboards_.clear(); }

void Seat::reapply_input_config() {
  for (const auto& keyboard : keyboards_)
    apply_input_config(context_.config, &keyboard->wlr()->base);
  for (wlr_input_device* device : pointer_devices_) apply_input_config(context_.config, device);
  for (wlr_input_device* device : absolute_devices_) map_to_output(device, nullptr);
}

void Seat::map_to_output(wlr_input_device* device, const Output* going) {
  wlr_output* target = nullptr;
  if (std::optional<std::string> name = mapped_output(context_.config, device)) {
    for (Output* output : context_.outputs.all())
      if (output != going && *name == output->wlr()->name) target = output->wlr();
    if (target == nullptr)
      LOG_INFO("input: %s is mapped to output %s, which is not there: it covers every output",
               device->name != nullptr ? device->name : "(unnamed)", name->c_str());
  }
  // wlr_cursor keeps a bare pointer: it is cleared before its output goes.
  wlr_cursor_map_input_to_output(cursor_, device, target);
}

void Seat::set_cursor_name(const char* name) {
  if (has_pointer()) wlr_cursor_set_xcursor(cursor_, cursor_theme_, name);
}

void Seat::activity() { context_.protocols.notify_activity(); }

void Seat::forget(const View& view) {
  grab_.forget(view);
  if (pressed_view_ == &view) {
    pressed_view_.reset();
    pressed_button_ = TitleButton::none;
  }
}

bool Seat::press_still_held(const View& view, std::optional<uint32_t> serial) const {
  // A drag has the buttons: a move's grab would swallow the release that
  // ends it. A second request during a move changes nothing.
  if (seat_->drag != nullptr || grab_.active()) return false;
  // The press is on one of the asking client's surfaces (a serial does not
  // say whose it was).
  const wlr_surface* pressed = seat_->pointer_state.focused_surface;
  const wlr_surface* own = view.surface();
  if (pressed == nullptr || own == nullptr ||
      wl_resource_get_client(pressed->resource) != wl_resource_get_client(own->resource))
    return false;
  if (!serial) return seat_->pointer_state.button_count > 0;
  return wlr_seat_validate_pointer_grab_serial(seat_, nullptr, *serial);
}

void Seat::begin_move(View& view) {
  grab_.begin(view, Grab::Mode::move, cursor_->x, cursor_->y, 0);
  if (grab_.active()) wlr_seat_pointer_clear_focus(seat_);
}

void Seat::begin_resize(View& view, uint32_t edges) {
  grab_.begin(view, Grab::Mode::resize, cursor_->x, cursor_->y, edges);
  if (grab_.active()) wlr_seat_pointer_clear_focus(seat_);
}

void Seat::handle_motion(wlr_input_device* device, uint32_t time_msec, double dx, double dy,
                         double unaccel_dx, double unaccel_dy) {
  activity();
  // Relative motion goes out first; the constraint then limits the cursor.
  constraints_->filter_motion(time_msec, pointer_sx_, pointer_sy_, dx, dy, unaccel_dx, unaccel_dy);
  // No wl_pointer.motion without motion: a locked pointer must send none.
  if (dx == 0 && dy == 0) return;
  wlr_cursor_move(cursor_, device, dx, dy);
  drag_and_drop_->pointer_moved(cursor_->x, cursor_->y);
  context_.windows.workspaces().pointer_on(context_.outputs.at(cursor_->x, cursor_->y));
  if (grab_.active()) {
    grab_.motion(cursor_->x, cursor_->y);
    return;
  }
  refresh_pointer_focus(time_msec);
}

void Seat::pointer_moved_to_cursor(uint32_t time_msec) {
  activity();
  drag_and_drop_->pointer_moved(cursor_->x, cursor_->y);
  context_.windows.workspaces().pointer_on(context_.outputs.at(cursor_->x, cursor_->y));
  if (grab_.active()) {
    grab_.motion(cursor_->x, cursor_->y);
    return;
  }
  refresh_pointer_focus(time_msec);
}

void Seat::update_capabilities() {
  uint32_t caps = 0;
  // A tablet's tool is a mouse over clients that do not speak tablet-v2.
  if (has_pointer()) caps |= WL_SEAT_CAPABILITY_POINTER;
  if (!keyboards_.empty()) caps |= WL_SEAT_CAPABILITY_KEYBOARD;
  if (touches_ > 0) caps |= WL_SEAT_CAPABILITY_TOUCH;
  wlr_seat_set_capabilities(seat_, caps);
  if (has_pointer()) wlr_cursor_set_xcursor(cursor_, cursor_theme_, "default");
}

void Seat::focus_keyboard(wlr_surface* surface) {
  // While locked, only the lock screen may have the keyboard.
  if (context_.session_lock.locked() &&
      (surface == nullptr || wlr_session_lock_surface_v1_try_from_wlr_surface(surface) == nullptr))
    surface = context_.session_lock.focus_surface();
  if (surface == nullptr) {
    wlr_seat_keyboard_notify_clear_focus(seat_);
    return;
  }
  wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_);
  auto it = std::find_if(keyboards_.begin(), keyboards_.end(),
                         [keyboard](const auto& k) { return k->wlr() == keyboard; });
  if (keyboard != nullptr && it != keyboards_.end()) {
    std::vector<uint32_t> keys = (*it)->keys_for_clients();
    wlr_seat_keyboard_notify_enter(seat_, surface, keys.data(), keys.size(), &keyboard->modifiers);
  } else {
    wlr_seat_keyboard_notify_enter(seat_, surface, nullptr, 0,
                                   keyboard != nullptr ? &keyboard->modifiers : nullptr);
  }
}

void Seat::restore_cursor_image() {
  if (has_pointer()) wlr_cursor_set_xcursor(cursor_, cursor_theme_, "default");
}

void Seat::refresh_pointer_focus(uint32_t time_msec) {
  wlr_surface* surface = nullptr;
  double sx = 0;
  double sy = 0;
  if (grab_.active()) return;
  // The implicit grab: while a button pressed over a surface is held, that
  // surface keeps the pointer, so a drag past its edge (a scrollbar, a text
  // selection) still reaches it, and so does the release. A drag-and-drop
  // has its own grab, which follows what is under the pointer.
  if (seat_->pointer_state.button_count > 0 && seat_->drag == nullptr &&
      pointer_surface_ != nullptr && pointer_surface_->mapped &&
      seat_->pointer_state.focused_surface == pointer_surface_) {
    pointer_sx_ = cursor_->x - pointer_origin_x_;
    pointer_sy_ = cursor_->y - pointer_origin_y_;
    wlr_seat_pointer_notify_motion(seat_, time_msec, pointer_sx_, pointer_sy_);
    return;
  }
  context_.windows.view_at(cursor_->x, cursor_->y, &surface, &sx, &sy);
  // Where the surface's origin is on the layout, for the implicit grab.
  pointer_origin_x_ = cursor_->x - sx;
  pointer_origin_y_ = cursor_->y - sy;
  pointer_sx_ = sx;
  pointer_sy_ = sy;
  if (surface != pointer_surface_) set_pointer_surface(surface, sx, sy);
  if (surface == nullptr) {
    // Over the background: our own cursor image, and no client focus.
    if (has_pointer()) wlr_cursor_set_xcursor(cursor_, cursor_theme_, "default");
    wlr_seat_pointer_clear_focus(seat_);
    return;
  }
  wlr_seat_pointer_notify_enter(seat_, surface, sx, sy);
  wlr_seat_pointer_notify_motion(seat_, time_msec, sx, sy);
}

void Seat::set_pointer_surface(wlr_surface* surface, double sx, double sy) {
  pointer_surface_ = surface;
  constraints_->pointer_focus_changed(surface, sx, sy);
  if (surface == nullptr) {
    pointer_surface_destroy_.disconnect();
    return;
  }
  // A surface can go between two looks at what is under the pointer (a
  // layer surface's going only schedules the next look).
  pointer_surface_destroy_.connect(&surface->events.destroy,
                                   [this](void*) { set_pointer_surface(nullptr, 0, 0); });
}

void Seat::rebase_pointer() {
  // wlroots keeps NaN there while no surface has the pointer.
  const wlr_surface* before = seat_->pointer_state.focused_surface;
  const double before_x = seat_->pointer_state.sx;
  const double before_y = seat_->pointer_state.sy;
  refresh_pointer_focus(monotonic_msec());
  // An enter ends its own frame; a motion alone (the window moved, the
  // pointer did not) needs one, as a device's events would have. wlroots
  // sends no motion that a client could not tell apart (wl_fixed_t).
  const auto moved = [](double was, double is) {
    return !std::isfinite(was) || !std::isfinite(is) ||
           wl_fixed_from_double(was) != wl_fixed_from_double(is);
  };
  if (seat_->pointer_state.focused_surface != nullptr &&
      seat_->pointer_state.focused_surface == before &&
      (moved(before_x, seat_->pointer_state.sx) || moved(before_y, seat_->pointer_state.sy)))
    wlr_seat_pointer_notify_frame(seat_);
}

bool Seat::handle_title_button(const wlr_pointer_button_event& event, View* view) {
  if (event.button != BTN_LEFT) return false;
  TitleButton under =
      view != nullptr ? view->title_button_at(cursor_->x, cursor_->y) : TitleButton::none;
  if (event.state == WL_POINTER_BUTTON_STATE_PRESSED) {
    if (under == TitleButton::none) return false;
    context_.windows.focus(view);
    pressed_view_ = view;
    pressed_button_ = under;
    return true;
  }
  if (pressed_button_ == TitleButton::none) return false;
  // Released off the button it was pressed on: nothing happens.
  TitleButton pressed = pressed_button_;
  View* pressed_view = pressed_view_.get();
  pressed_view_.reset();
  pressed_button_ = TitleButton::none;
  if (view != pressed_view || under != pressed) return true;
  if (pressed == TitleButton::close)
    view->close();
  else
    view->set_maximized(!view->maximized());
  return true;
}

void Seat::handle_button(const wlr_pointer_button_event& event) {
  activity();
  if (grab_.active()) {
    // The grab ends with the button that started it; others are swallowed.
    if (event.state == WL_POINTER_BUTTON_STATE_RELEASED &&
        (grab_button_ == 0 || event.button == grab_button_)) {
      // A window dragged onto another output joins its workspace.
      View* view = grab_.view();
      grab_.end();
      if (view != nullptr) context_.windows.workspaces().place(*view);
      grab_button_ = 0;
      refresh_pointer_focus(event.time_msec);
    }
    return;
  }
  if (seat_->drag != nullptr) {
    // The drag's grab has the buttons: a release drops or cancels it.
    wlr_seat_pointer_notify_button(seat_, event.time_msec, event.button, event.state);
    return;
  }
  wlr_surface* surface = nullptr;
  double sx = 0;
  double sy = 0;
  View* view = context_.windows.view_at(cursor_->x, cursor_->y, &surface, &sx, &sy);
  if (handle_title_button(event, view)) return;
  if (event.state == WL_POINTER_BUTTON_STATE_PRESSED && view != nullptr) {
    // Super+left drag moves, Super+right drag resizes; a press on the
    // server-side title bar (no surface there) moves too.
    wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_);
    bool super =
        keyboard != nullptr && (wlr_keyboard_get_modifiers(keyboard) & WLR_MODIFIER_LOGO) != 0;
    bool title_bar = surface == nullptr && event.button == BTN_LEFT;
    if ((super && (event.button == BTN_LEFT || event.button == BTN_RIGHT)) || title_bar) {
      context_.windows.focus(view);
      if (event.button == BTN_RIGHT)
        begin_resize(*view, 0);
      else
        begin_move(*view);
      grab_button_ = event.button;
      return;
    }
  }
  wlr_seat_pointer_notify_button(seat_, event.time_msec, event.button, event.state);
  if (event.state != WL_POINTER_BUTTON_STATE_PRESSED) {
    // The implicit grab ended: the pointer goes to what is under it now.
    if (seat_->pointer_state.button_count == 0) refresh_pointer_focus(event.time_msec);
    return;
  }
  // Click to focus: the window under the pointer is raised and focused; a
  // panel that takes keyboard input on demand gets it when clicked.
  if (view != nullptr) {
    context_.windows.focus(view);
  } else if (surface != nullptr) {
    wlr_layer_surface_v1* layer = wlr_layer_surface_v1_try_from_wlr_surface(surface);
    if (layer != nullptr &&
        layer->current.keyboard_interactive != ZWLR_LAYER_SURFACE_V1_KEYBOARD_INTERACTIVITY_NONE &&
        context_.layer_shell.exclusive_focus() == nullptr)
      focus_keyboard(surface);
  }
}

}  // namespace baton
