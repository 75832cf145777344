#include "compositor/desktop/windows.hpp"

#include <algorithm>

#include "compositor/desktop/placement.hpp"
#include "compositor/desktop/view.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/desktop/xdg_view.hpp"
#include "compositor/desktop/xwayland_view.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/scene_layers.hpp"
#include "util/wlr.hpp"

namespace baton {

Windows::Windows(const DesktopContext& context)
    : context_(context), workspaces_(std::make_unique<Workspaces>(*this)) {}

Windows::~Windows() { clear(); }

void Windows::clear() {
  popups_.clear();
  views_.clear();
}

View* Windows::fullscreen_on(const Output& output) const {
  for (const auto& v : views_) {
    if (!v->fullscreen() || !v->visible()) continue;
    const Rect f = v->frame();
    if (context_.outputs.at(f.x + f.width / 2.0, f.y + f.height / 2.0) == &output) return v.get();
  }
  return nullptr;
}

View* Windows::view_for_surface(wlr_surface* surface) const {
  return View::on_surface(*this, surface);
}

View* Windows::view_at(double lx, double ly, wlr_surface** surface, double* sx, double* sy) const {
  *surface = nullptr;
  // The whole scene: panels and fullscreen windows take input too.
  wlr_scene_node* node = wlr_scene_node_at(&context_.layers.scene->tree.node, lx, ly, sx, sy);
  if (node == nullptr) return nullptr;
  if (node->type == WLR_SCENE_NODE_BUFFER) {
    wlr_scene_surface* scene_surface =
        wlr_scene_surface_try_from_buffer(wlr_scene_buffer_from_node(node));
    if (scene_surface != nullptr) *surface = scene_surface->surface;
  }
  for (wlr_scene_tree* tree = node->parent; tree != nullptr; tree = tree->node.parent) {
    if (tree->node.data == nullptr) continue;
    for (const auto& v : views_)
      if (v.get() == tree->node.data) return v.get();
  }
  return nullptr;
}

void Windows::focus(View* view) {
  if (view != nullptr && !view->managed()) return;
  // A window with a modal dialog open hands its focus on to the dialog.
  for (int depth = 0; view != nullptr && depth < 8; ++depth) {
    auto dialog = std::find_if(views_.begin(), views_.end(),
                               [view](const auto& v) { return v->modal_for(*view); });
    if (dialog == views_.end()) break;
    view = dialog->get();
  }
  if (focused_ && focused_.get() != view) focused_->set_activated(false);
  focused_ = view;
  if (view == nullptr) {
    focused_changed.emit(nullptr);
    return;
  }
  wlr_scene_node_raise_to_top(&view->tree()->node);
  workspaces_->focus_output(view->output());
  auto it =
      std::find_if(views_.begin(), views_.end(), [view](const auto& v) { return v.get() == view; });
  if (it != views_.end()) std::rotate(views_.begin(), it, it + 1);
  if (view->urgent()) view->set_urgent(false);
  view->set_activated(true);
  focused_changed.emit(view);
}

void Windows::cycle_focus(bool forward) {
  Workspaces& workspaces = *workspaces_;
  std::vector<View*> candidates;
  Output* output = workspaces.focused_output();
  for (const auto& v : views_)
    if (v->mapped() && v->managed() && v->output() == output &&
        v->workspace() == workspaces.current(output))
      candidates.push_back(v.get());
  if (candidates.size() < 2) return;
  if (forward) {
    // The window focused longest ago; repeating walks through them all.
    focus(candidates.back());
    return;
  }
  // Backwards: the focused window goes to the end of the order and the one
  // focused just before it comes up.
  View* current = candidates.front();
  focus(candidates[1]);
  auto it = std::find_if(views_.begin(), views_.end(),
                         [current](const auto& v) { return v.get() == current; });
  if (it != views_.end()) std::rotate(it, it + 1, views_.end());
}

void Windows::add_xdg_toplevel(wlr_xdg_toplevel* toplevel) {
  views_.push_back(std::make_unique<XdgView>(*this, toplevel));
}

void Windows::add_xdg_popup(wlr_xdg_popup* popup) {
  popups_.push_back(std::make_unique<Popup>(*this, popup));
}

void Windows::add_xwayland(wlr_xwayland_surface* surface) {
  views_.push_back(std::make_unique<XwaylandView>(*this, surface));
}

void Windows::popup_destroyed(Popup& popup) {
  std::erase_if(popups_, [&](const auto& p) { return p.get() == &popup; });
}

void Windows::mapped(View& view) {
  if (view.managed()) {
    workspaces_->place(view);
    if (view.visible()) focus(&view);
  }
  view_mapped.emit(view);
}

void Windows::unmapped(View& view) {
  if (focused_ == &view) {
    focused_.reset();
    // Focus passes to the most recently focused window still mapped on
    // this workspace.
    focus(workspaces_->most_recent(view.output(), &view));
  }
  view_unmapped.emit(view);
}

void Windows::destroyed(View& view) {
  view_destroyed.emit(view);
  // focused_ is a Weak: it reads null once the view is freed.
  std::erase_if(views_, [&](const auto& v) { return v.get() == &view; });
}

}  // namespace baton

namespace baton {

namespace {

// A window's frame with its server-side title bar.
Rect decorated_frame(const View& view) {
  Rect f = view.frame();
  f.y -= view.title_bar_height();
  f.height += view.title_bar_height();
  return f;
}

}  // namespace

std::optional<Rect> Windows::placement_for(const View& view, int width, int height,
                                           const View* parent) const {
  const Workspaces& workspaces = *workspaces_;
  Output* output = workspaces.focused_output();
  if (output == nullptr) return std::nullopt;
  const wlr_box area = output->usable_area();
  const Rect usable{area.x, area.y, area.width, area.height};
  if (parent != nullptr && parent->mapped()) {
    const Rect p = decorated_frame(*parent);
    return place_window(usable, width, height, {}, &p, view.title_bar_height());
  }
  std::vector<Rect> others;
  for (const auto& v : views_)
    if (v.get() != &view && v->mapped() && v->managed() && v->output() == output &&
        v->workspace() == workspaces.current(output))
      others.push_back(decorated_frame(*v));
  return place_window(usable, width, height, others, nullptr, view.title_bar_height());
}

}  // namespace baton
