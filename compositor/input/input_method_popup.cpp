#include "compositor/input/input_method_popup.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace baton {

InputMethodPopup::InputMethodPopup(wlr_input_popup_surface_v2* popup, wlr_scene_tree* parent,
                                   wlr_output_layout* layout,
                                   std::function<void(InputMethodPopup&)> gone)
    : popup_(popup),
      layout_(layout),
      tree_(wlr_scene_subsurface_tree_create(parent, popup->surface)) {
  wlr_scene_node_set_enabled(&tree_->node, false);
  // The scene frees a surface's tree with the surface, which a client that
  // dies may destroy before the popup object.
  tree_destroy_.connect(&tree_->node.events.destroy, [this](void*) {
    tree_ = nullptr;
    tree_destroy_.disconnect();
  });
  commit_.connect(&popup->surface->events.commit, [this](void*) { place(cursor_); });
  destroy_.connect(&popup->events.destroy, [this, gone = std::move(gone)](void*) { gone(*this); });
}

InputMethodPopup::~InputMethodPopup() {
  tree_destroy_.disconnect();
  if (tree_ != nullptr) wlr_scene_node_destroy(&tree_->node);
}

void InputMethodPopup::place(std::optional<wlr_box> cursor) {
  cursor_ = cursor;
  if (tree_ == nullptr) return;
  if (!cursor) {
    wlr_scene_node_set_enabled(&tree_->node, false);
    return;
  }
  // In 64 bits: the popup's size is the client's too (a viewport can make
  // it up to INT32_MAX), and the cursor is within 2^24 pixels of its surface.
  const int64_t width = popup_->surface->current.width;
  const int64_t height = popup_->surface->current.height;
  // The output under the rectangle's middle, or the nearest one.
  double ox = 0;
  double oy = 0;
  wlr_output_layout_closest_point(layout_, nullptr, cursor->x + cursor->width / 2.0,
                                  cursor->y + cursor->height / 2.0, &ox, &oy);
  wlr_output* output = wlr_output_layout_output_at(layout_, ox, oy);
  int64_t x = cursor->x;
  int64_t y = int64_t{cursor->y} + cursor->height;
  if (output != nullptr) {
    wlr_box area{};
    wlr_output_layout_get_box(layout_, output, &area);
    const int64_t right = int64_t{area.x} + area.width;
    const int64_t bottom = int64_t{area.y} + area.height;
    if (y + height > bottom) y = cursor->y - height;  // no room below: above
    x = std::max<int64_t>(area.x, std::min(x, right - width));
    y = std::max<int64_t>(area.y, std::min(y, bottom - height));
  }
  // On an output, x and y are now within it or at its top left.
  constexpr int64_t kLow = std::numeric_limits<int>::min();
  constexpr int64_t kHigh = std::numeric_limits<int>::max();
  x = std::clamp(x, kLow, kHigh);
  y = std::clamp(y, kLow, kHigh);
  wlr_scene_node_set_position(&tree_->node, static_cast<int>(x), static_cast<int>(y));
  wlr_scene_node_set_enabled(&tree_->node, true);
  // Told only when it changes: the client may commit in answer, which
  // places the popup again.
  const wlr_box relative{static_cast<int>(std::clamp(cursor->x - x, kLow, kHigh)),
                         static_cast<int>(std::clamp(cursor->y - y, kLow, kHigh)), cursor->width,
                         cursor->height};
  if (!sent_ || !wlr_box_equal(&*sent_, &relative)) {
    sent_ = relative;
    wlr_input_popup_surface_v2_send_text_input_rectangle(popup_, &*sent_);
  }
}

}  // namespace baton
