#include "compositor/input/input_method_relay.hpp"

#include <algorithm>

#include "util/log.hpp"

namespace baton {
namespace {

/// Where `surface` is drawn, in layout coordinates, if it is.
std::optional<std::pair<int, int>> surface_origin(wlr_scene* scene, wlr_surface* surface) {
  struct Search {
    wlr_surface* surface;
    std::optional<std::pair<int, int>> origin;
  } search{surface, std::nullopt};
  wlr_scene_node_for_each_buffer(
      &scene->tree.node,
      [](wlr_scene_buffer* buffer, int x, int y, void* data) {
        auto* s = static_cast<Search*>(data);
        wlr_scene_surface* scene_surface = wlr_scene_surface_try_from_buffer(buffer);
        if (!s->origin && scene_surface != nullptr && scene_surface->surface == s->surface)
          s->origin = std::pair{x, y};
      },
      &search);
  return search.origin;
}

bool same_client(wl_resource* a, wl_resource* b) {
  return wl_resource_get_client(a) == wl_resource_get_client(b);
}

}  // namespace

InputMethodRelay::InputMethodRelay(wl_display* display, wlr_seat* seat, wlr_scene* scene,
                                   wlr_scene_tree* popups, wlr_output_layout* layout)
    : seat_(seat),
      scene_(scene),
      popup_tree_(popups),
      layout_(layout),
      text_inputs_manager_(wlr_text_input_manager_v3_create(display)),
      input_methods_manager_(wlr_input_method_manager_v2_create(display)) {
  new_text_input_.connect(&text_inputs_manager_->events.text_input,
                          [this](wlr_text_input_v3* t) { add_text_input(t); });
  new_input_method_.connect(&input_methods_manager_->events.input_method,
                            [this](wlr_input_method_v2* m) { add_input_method(m); });
  focus_change_.connect(
      &seat->keyboard_state.events.focus_change,
      [this](wlr_seat_keyboard_focus_change_event* event) { focus_changed(event->new_surface); });
}

InputMethodRelay::~InputMethodRelay() { popups_.clear(); }

void InputMethodRelay::add_text_input(wlr_text_input_v3* wlr) {
  if (wlr->seat != seat_) return;
  TextInput& t = text_inputs_.emplace_back();
  t.wlr = wlr;
  t.enable.connect(&wlr->events.enable, [this, &t](wlr_text_input_v3*) {
    if (t.wlr->focused_surface == nullptr) {
      LOG_DEBUG("input method: a text input enabled without focus is ignored");
      return;
    }
    activate(t);
  });
  t.commit.connect(&wlr->events.commit, [this, &t](wlr_text_input_v3*) {
    if (&t != active_) return;  // not enabled, or not focused
    send_state();
    place_popups();
  });
  t.disable.connect(&wlr->events.disable, [this, &t](wlr_text_input_v3*) {
    if (&t == active_) deactivate();
  });
  t.destroy.connect(&wlr->events.destroy, [this, &t](wlr_text_input_v3*) {
    if (&t == active_) deactivate();
    text_inputs_.remove_if([&t](const TextInput& other) { return &other == &t; });
  });
  // A text field made while its surface has the keyboard.
  wlr_surface* focused = seat_->keyboard_state.focused_surface;
  if (focused != nullptr && same_client(focused->resource, wlr->resource))
    wlr_text_input_v3_send_enter(wlr, focused);
}

void InputMethodRelay::add_input_method(wlr_input_method_v2* input_method) {
  if (input_method->seat != seat_ || input_method_ != nullptr) {
    LOG_INFO("input method: refused a second input method (one is running)");
    wlr_input_method_v2_send_unavailable(input_method);
    return;
  }
  LOG_INFO("input method: an input method joined the seat");
  input_method_ = input_method;
  input_method_commit_.connect(&input_method->events.commit, [this](void*) { forward_commit(); });
  new_popup_.connect(
      &input_method->events.new_popup_surface, [this](wlr_input_popup_surface_v2* popup) {
        popups_.push_back(std::make_unique<InputMethodPopup>(
            popup, popup_tree_, layout_, [this](InputMethodPopup& gone) {
              std::erase_if(popups_, [&gone](const auto& p) { return p.get() == &gone; });
            }));
        popups_.back()->place(cursor_rectangle());
      });
  grab_keyboard_.connect(&input_method->events.grab_keyboard,
                         [this](wlr_input_method_keyboard_grab_v2* grab) {
                           grab_ = grab;
                           wlr_keyboard* keyboard = wlr_seat_get_keyboard(seat_);
                           if (keyboard != nullptr && !is_input_methods_own(keyboard))
                             wlr_input_method_keyboard_grab_v2_set_keyboard(grab, keyboard);
                           grab_destroy_.connect(&grab->events.destroy, [this](void*) {
                             grab_ = nullptr;
                             grab_destroy_.disconnect();
                             // The app's modifiers may have changed meanwhile.
                             if (wlr_keyboard* k = wlr_seat_get_keyboard(seat_); k != nullptr)
                               wlr_seat_keyboard_notify_modifiers(seat_, &k->modifiers);
                           });
                         });
  input_method_destroy_.connect(&input_method->events.destroy, [this](void*) {
    LOG_INFO("input method: the input method left the seat");
    input_method_ = nullptr;
    grab_ = nullptr;
    grab_destroy_.disconnect();
    input_method_commit_.disconnect();
    new_popup_.disconnect();
    grab_keyboard_.disconnect();
    input_method_destroy_.disconnect();
    // A composition in progress ends: done with no preedit clears it.
    if (active_ != nullptr) wlr_text_input_v3_send_done(active_->wlr);
  });
  // A text field already enabled is served at once.
  if (active_ != nullptr) {
    wlr_input_method_v2_send_activate(input_method_);
    send_state();
  }
}

void InputMethodRelay::focus_changed(wlr_surface* surface) {
  if (active_ != nullptr && active_->wlr->focused_surface != surface) deactivate();
  for (TextInput& t : text_inputs_) {
    if (t.wlr->focused_surface != nullptr && t.wlr->focused_surface != surface)
      wlr_text_input_v3_send_leave(t.wlr);
    if (surface != nullptr && t.wlr->focused_surface == nullptr &&
        same_client(surface->resource, t.wlr->resource))
      wlr_text_input_v3_send_enter(t.wlr, surface);
  }
}

void InputMethodRelay::activate(TextInput& text_input) {
  if (active_ == &text_input) return;
  if (active_ != nullptr) deactivate();
  active_ = &text_input;
  if (input_method_ != nullptr) {
    wlr_input_method_v2_send_activate(input_method_);
    send_state();
  }
  place_popups();
}

void InputMethodRelay::deactivate() {
  active_ = nullptr;
  if (input_method_ != nullptr) {
    wlr_input_method_v2_send_deactivate(input_method_);
    wlr_input_method_v2_send_done(input_method_);
  }
  place_popups();
}

void InputMethodRelay::send_state() {
  if (input_method_ == nullptr || active_ == nullptr) return;
  const wlr_text_input_v3& t = *active_->wlr;
  if ((t.active_features & WLR_TEXT_INPUT_V3_FEATURE_SURROUNDING_TEXT) != 0 &&
      t.current.surrounding.text != nullptr)
    wlr_input_method_v2_send_surrounding_text(input_method_, t.current.surrounding.text,
                                              t.current.surrounding.cursor,
                                              t.current.surrounding.anchor);
  wlr_input_method_v2_send_text_change_cause(input_method_, t.current.text_change_cause);
  if ((t.active_features & WLR_TEXT_INPUT_V3_FEATURE_CONTENT_TYPE) != 0)
    wlr_input_method_v2_send_content_type(input_method_, t.current.content_type.hint,
                                          t.current.content_type.purpose);
  wlr_input_method_v2_send_done(input_method_);
}

void InputMethodRelay::forward_commit() {
  if (active_ == nullptr || input_method_ == nullptr) return;  // nobody to type into
  wlr_text_input_v3* t = active_->wlr;
  const wlr_input_method_v2_state& s = input_method_->current;
  if (s.delete_.before_length != 0 || s.delete_.after_length != 0)
    wlr_text_input_v3_send_delete_surrounding_text(t, s.delete_.before_length,
                                                   s.delete_.after_length);
  if (s.commit_text != nullptr) wlr_text_input_v3_send_commit_string(t, s.commit_text);
  if (s.preedit.text != nullptr)
    wlr_text_input_v3_send_preedit_string(t, s.preedit.text, s.preedit.cursor_begin,
                                          s.preedit.cursor_end);
  wlr_text_input_v3_send_done(t);
}

std::optional<wlr_box> InputMethodRelay::cursor_rectangle() const {
  if (active_ == nullptr || active_->wlr->focused_surface == nullptr) return std::nullopt;
  auto origin = surface_origin(scene_, active_->wlr->focused_surface);
  if (!origin) return std::nullopt;
  const wlr_text_input_v3& t = *active_->wlr;
  wlr_box box{origin->first, origin->second, 0, 0};
  // Without a rectangle, the surface's top left.
  if ((t.active_features & WLR_TEXT_INPUT_V3_FEATURE_CURSOR_RECTANGLE) != 0) {
    // The client's rectangle is any int32: kept within 2^24 pixels of its
    // surface, so that the sums here and in the popup's placement stay in
    // range (the protocol fuzzer overflowed them at INT32_MAX).
    constexpr int kReach = 1 << 24;
    const wlr_box& r = t.current.cursor_rectangle;
    box.x += std::clamp(r.x, -kReach, kReach);
    box.y += std::clamp(r.y, -kReach, kReach);
    box.width = std::clamp(r.width, 0, kReach);
    box.height = std::clamp(r.height, 0, kReach);
  }
  return box;
}

void InputMethodRelay::place_popups() {
  const std::optional<wlr_box> cursor = cursor_rectangle();
  for (const auto& popup : popups_) popup->place(cursor);
}

bool InputMethodRelay::is_input_methods_own(wlr_keyboard* keyboard) const {
  wlr_virtual_keyboard_v1* virtual_keyboard =
      wlr_input_device_get_virtual_keyboard(&keyboard->base);
  return virtual_keyboard != nullptr && input_method_ != nullptr &&
         same_client(virtual_keyboard->resource, input_method_->resource);
}

bool InputMethodRelay::take_key(wlr_keyboard* keyboard, const wlr_keyboard_key_event& event) {
  if (grab_ == nullptr || is_input_methods_own(keyboard)) return false;
  wlr_input_method_keyboard_grab_v2_set_keyboard(grab_, keyboard);
  wlr_input_method_keyboard_grab_v2_send_key(grab_, event.time_msec, event.keycode, event.state);
  return true;
}

bool InputMethodRelay::take_modifiers(wlr_keyboard* keyboard) {
  if (grab_ == nullptr || is_input_methods_own(keyboard)) return false;
  wlr_input_method_keyboard_grab_v2_set_keyboard(grab_, keyboard);
  wlr_input_method_keyboard_grab_v2_send_modifiers(grab_, &keyboard->modifiers);
  return true;
}

}  // namespace baton
