#include "compositor/desktop/xwayland_view.hpp"

#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "compositor/output/output.hpp"
#include "compositor/output/scene_layers.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

XwaylandView::XwaylandView(Windows& windows, wlr_xwayland_surface* surface)
    : View(windows),
      xsurface_(surface),
      tree_(wlr_scene_tree_create(windows.context().layers.windows)) {
  tree_->node.data = static_cast<View*>(this);
  wlr_scene_node_set_enabled(&tree_->node, false);

  destroy_.connect(&surface->events.destroy, [this](void*) { windows_.destroyed(*this); });
  associate_.connect(&surface->events.associate, [this](void*) { handle_associate(); });
  dissociate_.connect(&surface->events.dissociate, [this](void*) {
    attach_to_surface(nullptr);
    map_.disconnect();
    commit_.disconnect();
    unmap_.disconnect();
    drop_surface_tree();
  });
  request_configure_.connect(
      &surface->events.request_configure,
      [this](wlr_xwayland_surface_configure_event* e) { handle_request_configure(*e); });
  request_activate_.connect(&surface->events.request_activate, [this](void*) {
    if (mapped_ && managed()) windows_.focus(this);
  });
  request_fullscreen_.connect(&surface->events.request_fullscreen,
                              [this](void*) { handle_fullscreen(); });
  request_maximize_.connect(&surface->events.request_maximize, [this](void*) {
    if (mapped_ && managed()) set_maximized(xsurface_->maximized_horz || xsurface_->maximized_vert);
  });
  request_move_.connect(&surface->events.request_move, [this](void*) {
    if (mapped_ && managed()) windows_.move_requested.emit(*this, std::nullopt);
  });
  // Override-redirect windows position themselves.
  set_geometry_.connect(&surface->events.set_geometry, [this](void*) {
    if (!managed()) wlr_scene_node_set_position(&tree_->node, xsurface_->x, xsurface_->y);
  });
  if (surface->surface != nullptr) handle_associate();
}

XwaylandView::~XwaylandView() {
  surface_tree_destroy_.disconnect();
  wlr_scene_node_destroy(&tree_->node);
}

wlr_surface* XwaylandView::surface() const { return xsurface_->surface; }
bool XwaylandView::managed() const { return !xsurface_->override_redirect; }
std::string XwaylandView::title() const { return xsurface_->title ? xsurface_->title : ""; }
std::string XwaylandView::app_id() const { return xsurface_->class_ ? xsurface_->class_ : ""; }

void XwaylandView::set_activated(bool activated) {
  activated_ = activated;
  wlr_xwayland_surface_activate(xsurface_, activated);
  if (activated) wlr_xwayland_surface_restack(xsurface_, nullptr, XCB_STACK_MODE_ABOVE);
}

// X11 clients place menus from their window's root position: keep the X
// server told where the window really is.
void XwaylandView::move_to(int x, int y) {
  View::move_to(x, y);
  wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(x), static_cast<int16_t>(y),
                                 xsurface_->width, xsurface_->height);
}

void XwaylandView::handle_associate() {
  attach_to_surface(xsurface_->surface);
  map_.connect(&xsurface_->surface->events.map, [this](void*) { handle_map(); });
  // wlroots may learn a window's pre-map _NET_WM_STATE only after the
  // Wayland side mapped it, and says nothing: look again on each commit.
  commit_.connect(&xsurface_->surface->events.commit, [this](void*) {
    if (mapped_ && managed() && xsurface_->fullscreen != fullscreen()) handle_fullscreen();
  });
  unmap_.connect(&xsurface_->surface->events.unmap, [this](void*) { handle_unmap(); });
  // Xwayland without xwayland-shell names its wl_surface in an X message that
  // may arrive after the surface's first buffer. wlroots maps only on a later
  // commit, and Xwayland holds that back for a frame callback an unmapped
  // surface never gets: the window would stay invisible. Map it now.
  wlr_surface* surface = xsurface_->surface;
  if (!surface->mapped && wlr_surface_has_buffer(surface)) {
    LOG_DEBUG("X11 window 0x%x was named after its first buffer: mapping it now",
              xsurface_->window_id);
    wlr_surface_map(surface);
  }
}

void XwaylandView::handle_map() {
  mapped_ = true;
  if (surface_tree_ == nullptr) {
    // wlroots destroys this tree with its wlr_surface, which may come
    // before or after our unmap and dissociate: follow its own signal.
    surface_tree_ = wlr_scene_subsurface_tree_create(tree_, xsurface_->surface);
    surface_tree_destroy_.connect(&surface_tree_->node.events.destroy, [this](void*) {
      surface_tree_destroy_.disconnect();
      surface_tree_ = nullptr;
    });
  }
  wlr_scene_node_reparent(&tree_->node, managed() ? windows_.context().layers.windows
                                                  : windows_.context().layers.unmanaged);
  wlr_scene_node_set_enabled(&tree_->node, true);
  if (!managed()) {
    wlr_scene_node_set_position(&tree_->node, xsurface_->x, xsurface_->y);
    wlr_scene_node_raise_to_top(&tree_->node);
  } else if (!placed_) {
    place();
  }
  // A window that asked for fullscreen before mapping (as games do) gets it now.
  if (managed() && xsurface_->fullscreen) handle_fullscreen();
  windows_.mapped(*this);
  if (!managed() && wlr_xwayland_surface_override_redirect_wants_focus(xsurface_))
    windows_.keyboard_requested.emit(xsurface_->surface);
}

void XwaylandView::handle_unmap() {
  mapped_ = false;
  forget_fullscreen();
  wlr_scene_node_set_enabled(&tree_->node, false);
  windows_.unmapped(*this);
}

void XwaylandView::drop_surface_tree() {
  if (surface_tree_ != nullptr) wlr_scene_node_destroy(&surface_tree_->node);  // nulls it
}

// Before mapping, a window may ask for any geometry; once mapped, baton
// owns its position and grants only the size.
void XwaylandView::handle_request_configure(const wlr_xwayland_surface_configure_event& event) {
  if (!mapped_ || !managed()) {
    wlr_xwayland_surface_configure(xsurface_, event.x, event.y, event.width, event.height);
    if (!managed() && mapped_) wlr_scene_node_set_position(&tree_->node, event.x, event.y);
    return;
  }
  wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(x()), static_cast<int16_t>(y()),
                                 event.width, event.height);
}

// Centred on the focused output, like native windows.
void XwaylandView::place() {
  placed_ = true;
  // A transient (dialog) opens centred on the window it belongs to.
  View* parent = xsurface_->parent != nullptr && xsurface_->parent->surface != nullptr
                     ? windows_.view_for_surface(xsurface_->parent->surface)
                     : nullptr;
  std::optional<Rect> frame =
      windows_.placement_for(*this, xsurface_->width, xsurface_->height, parent);
  if (!frame) return;
  if (frame->width < xsurface_->width || frame->height < xsurface_->height)
    request_size(frame->width, frame->height);
  move_to(frame->x, frame->y);
}

Rect XwaylandView::frame() const { return {x(), y(), xsurface_->width, xsurface_->height}; }

void XwaylandView::request_size(int width, int height) {
  wlr_xwayland_surface_configure(xsurface_, static_cast<int16_t>(x()), static_cast<int16_t>(y()),
                                 static_cast<uint16_t>(width > 1 ? width : 1),
                                 static_cast<uint16_t>(height > 1 ? height : 1));
}

void XwaylandView::close() { wlr_xwayland_surface_close(xsurface_); }

bool XwaylandView::accepts_state() const { return mapped_ && managed(); }

void XwaylandView::send_maximized(bool maximized) {
  wlr_xwayland_surface_set_maximized(xsurface_, maximized, maximized);
}

void XwaylandView::send_fullscreen(bool fullscreen) {
  wlr_xwayland_surface_set_fullscreen(xsurface_, fullscreen);
}

// The client asked (the state wlroots keeps for it changed).
void XwaylandView::handle_fullscreen() {
  if (!mapped_) {
    wlr_xwayland_surface_set_fullscreen(xsurface_, xsurface_->fullscreen);
    return;
  }
  const bool was_fullscreen = fullscreen();
  set_fullscreen(xsurface_->fullscreen);
  // A window going fullscreen on its own (a game) gets the keyboard.
  if (fullscreen() && !was_fullscreen) windows_.focus(this);
}

}  // namespace baton
