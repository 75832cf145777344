// An input method's popup surface (a candidate list): drawn above every
// window at the focused text field's cursor rectangle, below it where it
// fits and above it where it does not, and kept on that output.
#pragma once

#include <functional>
#include <optional>

#include "util/listener.hpp"
#include "util/wlr.hpp"

namespace baton {

class InputMethodPopup {
 public:
  /// `gone` is called when the client destroys the popup (then free it).
  InputMethodPopup(wlr_input_popup_surface_v2* popup, wlr_scene_tree* parent,
                   wlr_output_layout* layout, std::function<void(InputMethodPopup&)> gone);
  ~InputMethodPopup();
  InputMethodPopup(const InputMethodPopup&) = delete;
  InputMethodPopup& operator=(const InputMethodPopup&) = delete;

  /// Places the popup at `cursor`, the text field's cursor rectangle in
  /// layout coordinates; nothing hides it (no text field is active).
  void place(std::optional<wlr_box> cursor);

 private:
  wlr_input_popup_surface_v2* popup_;
  wlr_output_layout* layout_;
  wlr_scene_tree* tree_;  // null once the scene freed it (its surface went first)
  Listener<void> tree_destroy_;
  std::optional<wlr_box> cursor_;
  std::optional<wlr_box> sent_;  // the rectangle last told to the client
  Listener<void> commit_;        // its size may change: placed again
  Listener<void> destroy_;
};

}  // namespace baton
