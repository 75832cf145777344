#include "compositor/desktop/xdg_view.hpp"

#include <algorithm>

#include "compositor/desktop/decorations.hpp"
#include "compositor/desktop/foreign_toplevel.hpp"
#include "compositor/desktop/toplevel_icon.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/outputs.hpp"
#include "compositor/output/scene_layers.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

XdgView::XdgView(Windows& windows, wlr_xdg_toplevel* toplevel)
    : View(windows),
      toplevel_(toplevel),
      tree_(wlr_scene_xdg_surface_create(windows.context().layers.windows, toplevel->base)) {
  // Popups find their parent's scene tree through the xdg surface's data,
  // and view_at() finds the View through the tree node's data.
  toplevel->base->data = tree_;
  tree_->node.data = static_cast<View*>(this);
  attach_to_surface(toplevel->base->surface);

  wlr_xdg_surface* base = toplevel->base;
  map_.connect(&base->surface->events.map, [this](void*) { handle_map(); });
  unmap_.connect(&base->surface->events.unmap, [this](void*) {
    mapped_ = false;
    foreign_.reset();
    windows_.unmapped(*this);
  });
  commit_.connect(&base->surface->events.commit, [this](void*) { handle_commit(); });
  destroy_.connect(&toplevel->events.destroy, [this](void*) { windows_.destroyed(*this); });
  // Before the first map the request is remembered by wlroots (requested.*)
  // and applied in handle_map; the protocol still wants a configure now
  // (before the initial commit, the initial configure answers it).
  request_maximize_.connect(&toplevel->events.request_maximize, [this](void*) {
    if (mapped_)
      set_maximized(toplevel_->requested.maximized);
    else if (toplevel_->base->initialized)
      configure_unmapped();
  });
  request_fullscreen_.connect(&toplevel->events.request_fullscreen, [this](void*) {
    if (mapped_)
      set_fullscreen(toplevel_->requested.fullscreen);
    else if (toplevel_->base->initialized)
      configure_unmapped();
  });
  request_move_.connect(&toplevel->events.request_move, [this](wlr_xdg_toplevel_move_event* event) {
    if (mapped_) windows_.move_requested.emit(*this, event->serial);
  });
  request_resize_.connect(&toplevel->events.request_resize,
                          [this](wlr_xdg_toplevel_resize_event* event) {
                            if (mapped_)
                              windows_.resize_requested.emit(*this, event->edges, event->serial);
                          });
  set_title_.connect(&toplevel->events.set_title, [this](void*) {
    update_decoration();
    if (foreign_) foreign_->update();
  });
  set_app_id_.connect(&toplevel->events.set_app_id, [this](void*) {
    if (foreign_) foreign_->update();
  });
}

XdgView::~XdgView() {
  // The scene tree is destroyed by wlroots along with the xdg surface.
  toplevel_->base->data = nullptr;
}

// wlroots' scene tree for an xdg surface holds its surface at minus the
// window geometry's offset: the tree's origin is the geometry's.
Rect XdgView::frame() const {
  const wlr_box& geometry = toplevel_->base->geometry;
  return {tree_->node.x, tree_->node.y, geometry.width, geometry.height};
}

void XdgView::move_frame_to(int x, int y) { move_to(x, y); }

void XdgView::request_size(int width, int height) {
  if (!toplevel_->base->initialized) return;
  wlr_xdg_toplevel_set_size(toplevel_, std::max(1, width), std::max(1, height));
}

void XdgView::close() { wlr_xdg_toplevel_send_close(toplevel_); }

int XdgView::title_bar_height() const {
  return decoration_ && !fullscreen() ? Decoration::kTitleHeight : 0;
}

TitleButton XdgView::title_button_at(double lx, double ly) const {
  if (!decoration_ || fullscreen()) return TitleButton::none;
  return decoration_->button_at(lx - tree_->node.x, ly - tree_->node.y);
}

bool XdgView::accepts_state() const { return toplevel_->base->initialized; }

void XdgView::send_maximized(bool maximized) {
  wlr_xdg_toplevel_set_maximized(toplevel_, maximized);
}

void XdgView::send_fullscreen(bool fullscreen) {
  wlr_xdg_toplevel_set_fullscreen(toplevel_, fullscreen);
}

void XdgView::state_applied() {
  update_decoration();  // no title bar while fullscreen
  if (foreign_) foreign_->update();
  // Every request is answered with a configure, changed or not.
  wlr_xdg_surface_schedule_configure(toplevel_->base);
}

bool XdgView::modal_for(const View& parent) const {
  if (!mapped_ || toplevel_->parent == nullptr ||
      toplevel_->parent->base->surface != parent.surface())
    return false;
  const wlr_xdg_dialog_v1* dialog = wlr_xdg_dialog_v1_try_from_wlr_xdg_toplevel(toplevel_);
  return dialog != nullptr && dialog->modal;
}

void XdgView::set_icon(wlr_xdg_toplevel_icon_v1* icon) {
  icon_ = Owned<wlr_buffer, wlr_buffer_drop>(render_toplevel_icon(icon, Decoration::kIcon));
  if (decoration_) decoration_->set_icon(icon_);
  update_decoration();
}

void XdgView::set_server_decorated(bool decorated) {
  if (decorated && !decoration_) {
    decoration_ = std::make_unique<Decoration>(*this, windows_.context().config);
    decoration_->set_icon(icon_);
  }
  if (!decorated) decoration_.reset();
  update_decoration();
}

void XdgView::update_decoration() {
  if (!decoration_) return;
  const wlr_box& geometry = toplevel_->base->geometry;
  Decoration::Look look = activated_ ? Decoration::Look::focused
                          : urgent_  ? Decoration::Look::urgent
                                     : Decoration::Look::unfocused;
  decoration_->update(geometry.width, look, !fullscreen(), title());
}

wlr_surface* XdgView::surface() const { return toplevel_->base->surface; }
void XdgView::set_activated(bool activated) {
  activated_ = activated;
  wlr_xdg_toplevel_set_activated(toplevel_, activated);
  update_decoration();
  if (foreign_) foreign_->update();
}
void XdgView::urgency_shown() { update_decoration(); }

std::string XdgView::title() const { return toplevel_->title ? toplevel_->title : ""; }
std::string XdgView::app_id() const { return toplevel_->app_id ? toplevel_->app_id : ""; }

// A window that asked for fullscreen or maximized before its first buffer
// learns that state's size now, so its first frame already fits (and a
// fullscreen one can be scanned out as it is); map applies the state. Else
// 0x0 lets the client choose its own size.
void XdgView::configure_unmapped() {
  Output* output = windows_.workspaces().focused_output();
  const bool fullscreen = toplevel_->requested.fullscreen && output != nullptr;
  const bool maximized = !fullscreen && toplevel_->requested.maximized && output != nullptr;
  wlr_box box{};
  if (fullscreen) {
    wlr_output_layout_get_box(windows_.context().outputs.layout(), output->wlr(), &box);
  } else if (maximized) {
    box = output->usable_area();
    box.height = std::max(1, box.height - title_bar_height());
  }
  wlr_xdg_toplevel_set_fullscreen(toplevel_, fullscreen);
  wlr_xdg_toplevel_set_maximized(toplevel_, maximized);
  wlr_xdg_toplevel_set_size(toplevel_, box.width, box.height);
}

void XdgView::handle_commit() {
  // The first commit of an xdg surface must be answered with a configure.
  if (toplevel_->base->initial_commit) {
    configure_unmapped();
    return;
  }
  if (!mapped_) return;
  // Keep a maximized or fullscreen frame pinned to its area's corner while
  // the client's geometry (shadows, size) settles.
  if (fullscreen() || maximized()) {
    Rect f = frame();
    Output* output = windows_.context().outputs.at(f.x + f.width / 2.0, f.y + f.height / 2.0);
    if (output != nullptr) {
      wlr_box box{};
      if (fullscreen())
        wlr_output_layout_get_box(windows_.context().outputs.layout(), output->wlr(), &box);
      else
        box = output->usable_area();
      move_frame_to(box.x, box.y + title_bar_height());
    }
  }
  update_decoration();
}

void XdgView::handle_map() {
  mapped_ = true;
  if (!placed_) place();
  foreign_ = std::make_unique<ForeignToplevel>(windows_, *this);
  windows_.mapped(*this);
  if (toplevel_->requested.fullscreen)
    set_fullscreen(true);
  else if (toplevel_->requested.maximized)
    set_maximized(true);
  update_decoration();
}

// New windows open centred on the focused output, cascading by a
// title-bar's height when that spot is taken.
void XdgView::place() {
  placed_ = true;
  const wlr_box& geometry = toplevel_->base->geometry;
  const int bar = title_bar_height();
  View* parent = toplevel_->parent != nullptr
                     ? windows_.view_for_surface(toplevel_->parent->base->surface)
                     : nullptr;
  std::optional<Rect> frame =
      windows_.placement_for(*this, geometry.width, geometry.height + bar, parent);
  if (!frame) return;
  // Too large for the area: it was shrunk to fit; the client follows.
  if (frame->width < geometry.width || frame->height < geometry.height + bar)
    request_size(frame->width, frame->height - bar);
  move_to(frame->x, frame->y + bar);
}

Popup::Popup(Windows& windows, wlr_xdg_popup* popup) : windows_(windows), popup_(popup) {
  // A panel's popup is created without a parent and gets one from
  // zwlr_layer_surface_v1.get_popup: it joins the scene at its first commit,
  // when the protocol guarantees the parent.
  commit_.connect(&popup->base->surface->events.commit, [this](void*) {
    if (!popup_->base->initial_commit || popup_->parent == nullptr) return;
    if (popup_->base->data == nullptr) attach();
    unconstrain();
  });
  destroy_.connect(&popup->events.destroy, [this](void*) { windows_.popup_destroyed(*this); });
}

void Popup::attach() {
  // Toplevels and popups keep their scene tree in their xdg surface's data,
  // layer surfaces in theirs.
  wlr_scene_tree* parent_tree = nullptr;
  if (wlr_xdg_surface* xdg = wlr_xdg_surface_try_from_wlr_surface(popup_->parent))
    parent_tree = static_cast<wlr_scene_tree*>(xdg->data);
  else if (wlr_layer_surface_v1* layer = wlr_layer_surface_v1_try_from_wlr_surface(popup_->parent))
    parent_tree = static_cast<wlr_scene_tree*>(layer->data);
  if (parent_tree == nullptr) {
    LOG_ERROR("popup without a known parent surface; it will not be shown");
    return;
  }
  popup_->base->data = wlr_scene_xdg_surface_create(parent_tree, popup_->base);
}

// Keeps the popup inside the output its root is on: the toplevel's output
// there, a panel's own output for the popups of layer surfaces. The box is
// given in the root surface's coordinates.
void Popup::unconstrain() {
  wlr_surface* root = popup_->parent;
  while (wlr_xdg_popup* parent = wlr_xdg_popup_try_from_wlr_surface(root)) root = parent->parent;
  wlr_xdg_surface* xdg_root = wlr_xdg_surface_try_from_wlr_surface(root);
  wlr_layer_surface_v1* layer_root = wlr_layer_surface_v1_try_from_wlr_surface(root);
  wlr_scene_tree* root_tree = nullptr;
  if (xdg_root != nullptr && xdg_root->role == WLR_XDG_SURFACE_ROLE_TOPLEVEL)
    root_tree = static_cast<wlr_scene_tree*>(xdg_root->data);
  else if (layer_root != nullptr)
    root_tree = static_cast<wlr_scene_tree*>(layer_root->data);
  int lx = 0;
  int ly = 0;
  if (root_tree == nullptr || !wlr_scene_node_coords(&root_tree->node, &lx, &ly)) {
    wlr_xdg_surface_schedule_configure(popup_->base);
    return;
  }
  wlr_output* output = nullptr;
  if (layer_root != nullptr) {
    output = layer_root->output;
  } else if (Output* o = windows_.context().outputs.at(
                 // In double: a client's position may reach the int range.
                 static_cast<double>(lx) + popup_->scheduled.geometry.x,
                 static_cast<double>(ly) + popup_->scheduled.geometry.y)) {
    output = o->wlr();
  }
  if (output == nullptr) {
    wlr_xdg_surface_schedule_configure(popup_->base);
    return;
  }
  wlr_box box{};
  wlr_output_layout_get_box(windows_.context().outputs.layout(), output, &box);
  box.x -= lx;
  box.y -= ly;
  wlr_xdg_popup_unconstrain_from_box(popup_, &box);
}

}  // namespace baton
