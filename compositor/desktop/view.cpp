#include "compositor/desktop/view.hpp"

#include "compositor/desktop/windows.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/scene_layers.hpp"
#include "util/wlr.hpp"

namespace baton {
namespace {

// The surface went first: the view stays, unattached.
const wlr_addon_interface kViewAddon = {
    .name = "baton_view",
    .destroy =
        [](wlr_addon* addon) {
          wlr_addon_finish(addon);
          reinterpret_cast<View::SurfaceAddon*>(addon)->view = nullptr;
        },
};

}  // namespace

View::~View() { attach_to_surface(nullptr); }

void View::attach_to_surface(wlr_surface* surface) {
  if (addon_.view != nullptr) wlr_addon_finish(&addon_.base);
  addon_.view = nullptr;
  if (surface == nullptr) return;
  addon_.view = this;
  wlr_addon_init(&addon_.base, &surface->addons, &windows_, &kViewAddon);
}

View* View::on_surface(const Windows& windows, wlr_surface* surface) {
  if (surface == nullptr) return nullptr;
  wlr_addon* addon = wlr_addon_find(&surface->addons, &windows, &kViewAddon);
  return addon != nullptr ? reinterpret_cast<SurfaceAddon*>(addon)->view : nullptr;
}

int View::x() const { return tree()->node.x; }
int View::y() const { return tree()->node.y; }
void View::move_to(int x, int y) {
  wlr_scene_node_set_position(&tree()->node, x, y);
  windows_.view_moved.emit(*this);
}
void View::set_visible(bool visible) { wlr_scene_node_set_enabled(&tree()->node, visible); }

void View::set_urgent(bool urgent) {
  if (urgent == urgent_) return;
  urgent_ = urgent;
  urgency_shown();
  windows_.urgency_changed.emit(*this);
}
bool View::visible() const { return tree()->node.enabled; }

Output* View::output_under_frame() const {
  Rect f = frame();
  return windows_.context().outputs.at(f.x + f.width / 2.0, f.y + f.height / 2.0);
}

void View::fill_usable_area() {
  Output* output = output_under_frame();
  if (output == nullptr) return;
  wlr_box area = output->usable_area();
  int title = title_bar_height();
  move_frame_to(area.x, area.y + title);
  request_size(area.width, area.height - title);
}

void View::remember_floating_box() {
  if (maximized_ || fullscreen_) return;
  floating_box_ = frame();
  has_floating_box_ = true;
}

void View::restore_floating_box() {
  if (!has_floating_box_) return;
  move_frame_to(floating_box_.x, floating_box_.y);
  request_size(floating_box_.width, floating_box_.height);
}

void View::set_maximized(bool maximized) {
  if (!accepts_state()) return;
  if (maximized) remember_floating_box();
  const bool changed = maximized != maximized_;
  maximized_ = maximized;
  if (changed) send_maximized(maximized);
  // A fullscreen window keeps covering its output; leaving fullscreen
  // applies the maximized state.
  if (!fullscreen_) {
    if (maximized)
      fill_usable_area();
    else if (changed)
      restore_floating_box();
  }
  state_applied();
}

void View::set_fullscreen(bool fullscreen) {
  if (!accepts_state()) return;
  if (fullscreen != fullscreen_) {
    if (fullscreen) {
      Output* output = output_under_frame();
      remember_floating_box();
      fullscreen_ = true;
      wlr_scene_node_reparent(&tree()->node, windows_.context().layers.fullscreen);
      send_fullscreen(true);
      if (output != nullptr) {
        wlr_box box{};
        wlr_output_layout_get_box(windows_.context().outputs.layout(), output->wlr(), &box);
        move_frame_to(box.x, box.y);
        request_size(box.width, box.height);
      }
    } else {
      fullscreen_ = false;
      wlr_scene_node_reparent(&tree()->node, windows_.context().layers.windows);
      send_fullscreen(false);
      if (maximized_)
        fill_usable_area();
      else
        restore_floating_box();
    }
  }
  state_applied();
}

}  // namespace baton
