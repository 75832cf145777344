// Input methods (zwp_input_method_v2, fcitx5 or an on-screen keyboard) and
// the text fields of applications (zwp_text_input_v3), joined by the seat's
// keyboard focus:
// - the focused surface's text inputs get enter, others leave;
// - a text input enabled while focused activates the input method, which is
//   told its surrounding text, content type and change cause on each commit;
// - the input method's preedit, commit and delete-surrounding go to that
//   text input only; a text input enabled without focus is ignored, as the
//   protocol says;
// - the input method's popups are placed at the text input's cursor
//   rectangle (input_method_popup.hpp);
// - while the input method grabs the keyboard it gets every key, except
//   those of its own virtual keyboard (the keys it passes on to the app).
// One input method at a time: a second is told it is unavailable.
#pragma once

#include <list>
#include <memory>
#include <optional>
#include <vector>

#include "compositor/input/input_method_popup.hpp"
#include "util/listener.hpp"
#include "util/owned.hpp"
#include "util/wlr.hpp"

namespace baton {

class InputMethodRelay {
 public:
  /// Creates both globals. Popups go into `popups` (a tree above the
  /// windows); `scene` is searched for a text field's surface.
  InputMethodRelay(wl_display* display, wlr_seat* seat, wlr_scene* scene, wlr_scene_tree* popups,
                   wlr_output_layout* layout);
  ~InputMethodRelay();
  InputMethodRelay(const InputMethodRelay&) = delete;
  InputMethodRelay& operator=(const InputMethodRelay&) = delete;

  /// A key from `keyboard`: true when the input method's keyboard grab took
  /// it (then no client sees it).
  bool take_key(wlr_keyboard* keyboard, const wlr_keyboard_key_event& event);
  /// New modifiers on `keyboard`: true when the grab took them.
  bool take_modifiers(wlr_keyboard* keyboard);
  /// An input method is running.
  [[nodiscard]] bool connected() const { return input_method_ != nullptr; }
  /// A focused text field is enabled, and an input method serves it.
  [[nodiscard]] bool active() const { return active_ != nullptr && input_method_ != nullptr; }

 private:
  struct TextInput {
    wlr_text_input_v3* wlr;
    Listener<wlr_text_input_v3> enable, commit, disable, destroy;
  };
  void add_text_input(wlr_text_input_v3* text_input);
  void add_input_method(wlr_input_method_v2* input_method);
  void focus_changed(wlr_surface* surface);
  /// `text_input` is now the one the input method serves.
  void activate(TextInput& text_input);
  void deactivate();
  /// Tells the input method the active text input's state, then done.
  void send_state();
  /// The input method's commit: preedit, commit and delete to the app.
  void forward_commit();
  /// The active text input's cursor rectangle, in layout coordinates.
  [[nodiscard]] std::optional<wlr_box> cursor_rectangle() const;
  void place_popups();
  [[nodiscard]] bool is_input_methods_own(wlr_keyboard* keyboard) const;

  wlr_seat* seat_;
  wlr_scene* scene_;
  wlr_scene_tree* popup_tree_;
  wlr_output_layout* layout_;
  wlr_text_input_manager_v3* text_inputs_manager_;
  wlr_input_method_manager_v2* input_methods_manager_;
  std::list<TextInput> text_inputs_;
  TextInput* active_ = nullptr;  // enabled and focused
  wlr_input_method_v2* input_method_ = nullptr;
  wlr_input_method_keyboard_grab_v2* grab_ = nullptr;
  std::vector<std::unique_ptr<InputMethodPopup>> popups_;
  Listener<wlr_text_input_v3> new_text_input_;
  Listener<wlr_input_method_v2> new_input_method_;
  Listener<wlr_seat_keyboard_focus_change_event> focus_change_;
  Listener<void> input_method_commit_;
  Listener<wlr_input_popup_surface_v2> new_popup_;
  Listener<wlr_input_method_keyboard_grab_v2> grab_keyboard_;
  Listener<void> input_method_destroy_;
  Listener<void> grab_destroy_;
};

}  // namespace baton
