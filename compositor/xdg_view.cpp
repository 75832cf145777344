#include "compositor/xdg_view.hpp"

#include "compositor/log.hpp"
#include "compositor/output.hpp"
#include "compositor/seat.hpp"
#include "compositor/server.hpp"
#include "compositor/wlr.hpp"

namespace baton {

XdgView::XdgView(Server& server, wlr_xdg_toplevel* toplevel)
    : server_(server),
      toplevel_(toplevel),
      tree_(wlr_scene_xdg_surface_create(server.view_layer(), toplevel->base)) {
  // Popups find their parent's scene tree through the xdg surface's data,
  // and view_at() finds the View through the tree node's data.
  toplevel->base->data = tree_;
  tree_->node.data = static_cast<View*>(this);

  wlr_xdg_surface* base = toplevel->base;
  map_.connect(&base->surface->events.map, [this](void*) { handle_map(); });
  unmap_.connect(&base->surface->events.unmap, [this](void*) {
    mapped_ = false;
    server_.view_unmapped(*this);
  });
  commit_.connect(&base->surface->events.commit, [this](void*) { handle_commit(); });
  destroy_.connect(&toplevel->events.destroy, [this](void*) { server_.view_destroyed(*this); });
  // Maximize and fullscreen belong to window management (its own issue);
  // until then the protocol still requires a configure in reply.
  request_maximize_.connect(&toplevel->events.request_maximize, [this](void*) {
    if (toplevel_->base->initialized) wlr_xdg_surface_schedule_configure(toplevel_->base);
  });
  request_fullscreen_.connect(&toplevel->events.request_fullscreen, [this](void*) {
    if (toplevel_->base->initialized) wlr_xdg_surface_schedule_configure(toplevel_->base);
  });
}

XdgView::~XdgView() {
  // The scene tree is destroyed by wlroots along with the xdg surface.
  toplevel_->base->data = nullptr;
}

wlr_surface* XdgView::surface() const { return toplevel_->base->surface; }
bool XdgView::fullscreen() const { return mapped_ && toplevel_->current.fullscreen; }
void XdgView::set_activated(bool activated) { wlr_xdg_toplevel_set_activated(toplevel_, activated); }
std::string XdgView::title() const { return toplevel_->title ? toplevel_->title : ""; }
std::string XdgView::app_id() const { return toplevel_->app_id ? toplevel_->app_id : ""; }

void XdgView::handle_commit() {
  // The first commit of an xdg surface must be answered with a configure;
  // 0x0 lets the client choose its own size.
  if (toplevel_->base->initial_commit) wlr_xdg_toplevel_set_size(toplevel_, 0, 0);
}

void XdgView::handle_map() {
  mapped_ = true;
  if (!placed_) place();
  server_.view_mapped(*this);
}

// New windows open centred on the output under the pointer, cascading by a
// title-bar's height when that spot is taken.
void XdgView::place() {
  placed_ = true;
  Output* output = server_.output_at(server_.seat().cursor_x(), server_.seat().cursor_y());
  if (output == nullptr) return;
  wlr_box area{};
  wlr_output_layout_get_box(server_.output_layout(), output->wlr(), &area);
  wlr_box geometry{};
  wlr_xdg_surface_get_geometry(toplevel_->base, &geometry);
  int x = area.x + (area.width - geometry.width) / 2 - geometry.x;
  int y = area.y + (area.height - geometry.height) / 2 - geometry.y;
  constexpr int kCascade = 32;
  for (bool moved = true; moved;) {
    moved = false;
    for (const auto& other : server_.views()) {
      if (other.get() == this || !other->mapped() || other->x() != x || other->y() != y) continue;
      x += kCascade;
      y += kCascade;
      moved = true;
    }
  }
  if (x < area.x) x = area.x;
  if (y < area.y) y = area.y;
  move_to(x, y);
}

Popup::Popup(Server& server, wlr_xdg_popup* popup) : server_(server), popup_(popup) {
  wlr_xdg_surface* parent = wlr_xdg_surface_try_from_wlr_surface(popup->parent);
  auto* parent_tree = parent != nullptr ? static_cast<wlr_scene_tree*>(parent->data) : nullptr;
  if (parent_tree != nullptr) {
    popup->base->data = wlr_scene_xdg_surface_create(parent_tree, popup->base);
  } else {
    LOG_ERROR("popup without a known parent surface; it will not be shown");
  }
  commit_.connect(&popup->base->surface->events.commit, [this](void*) {
    if (popup_->base->initial_commit) unconstrain();
  });
  destroy_.connect(&popup->events.destroy, [this](void*) { server_.popup_destroyed(*this); });
}

// Keeps the popup inside the output its toplevel is on: the box is given in
// the toplevel's surface-local coordinates.
void Popup::unconstrain() {
  wlr_xdg_surface* root = popup_->base;
  while (root->role == WLR_XDG_SURFACE_ROLE_POPUP && root->popup->parent != nullptr) {
    wlr_xdg_surface* next = wlr_xdg_surface_try_from_wlr_surface(root->popup->parent);
    if (next == nullptr) break;
    root = next;
  }
  auto* root_tree = static_cast<wlr_scene_tree*>(root->data);
  if (root->role != WLR_XDG_SURFACE_ROLE_TOPLEVEL || root_tree == nullptr) {
    wlr_xdg_surface_schedule_configure(popup_->base);
    return;
  }
  int lx = root_tree->node.x;
  int ly = root_tree->node.y;
  Output* output = server_.output_at(lx + popup_->scheduled.geometry.x, ly + popup_->scheduled.geometry.y);
  if (output == nullptr) {
    wlr_xdg_surface_schedule_configure(popup_->base);
    return;
  }
  wlr_box box{};
  wlr_output_layout_get_box(server_.output_layout(), output->wlr(), &box);
  box.x -= lx;
  box.y -= ly;
  wlr_xdg_popup_unconstrain_from_box(popup_, &box);
}

}  // namespace baton
