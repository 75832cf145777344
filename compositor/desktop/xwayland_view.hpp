// An X11 window from Xwayland. Managed windows are placed, focused and
// stacked like xdg toplevels; override-redirect ones (menus, tooltips) sit
// above all windows exactly where the client put them and never take focus
// by click.
#pragma once

#include "compositor/desktop/view.hpp"
#include "util/listener.hpp"

struct wlr_xwayland_surface;
struct wlr_xwayland_surface_configure_event;
struct wlr_scene_tree;

namespace baton {

class XwaylandView final : public View {
 public:
  XwaylandView(Windows& windows, wlr_xwayland_surface* surface);
  ~XwaylandView() override;

  [[nodiscard]] wlr_surface* surface() const override;
  [[nodiscard]] wlr_scene_tree* tree() const override { return tree_; }
  [[nodiscard]] bool mapped() const override { return mapped_; }
  [[nodiscard]] bool managed() const override;
  void set_activated(bool activated) override;
  [[nodiscard]] std::string title() const override;
  [[nodiscard]] std::string app_id() const override;
  void move_to(int x, int y) override;
  [[nodiscard]] Rect frame() const override;
  void move_frame_to(int x, int y) override { move_to(x, y); }
  void request_size(int width, int height) override;
  void close() override;
  [[nodiscard]] wlr_xwayland_surface* xwayland_surface() const { return xsurface_; }

 protected:
  [[nodiscard]] bool accepts_state() const override;
  void send_maximized(bool maximized) override;
  void send_fullscreen(bool fullscreen) override;

 private:
  void handle_associate();
  void handle_map();
  void handle_unmap();
  void drop_surface_tree();
  void handle_request_configure(const wlr_xwayland_surface_configure_event& event);
  /// Applies the fullscreen state the client asked for.
  void handle_fullscreen();
  void place();

  wlr_xwayland_surface* xsurface_;
  wlr_scene_tree* tree_;
  wlr_scene_tree* surface_tree_ = nullptr;
  bool mapped_ = false;
  bool placed_ = false;

  Listener<void> destroy_;
  Listener<void> associate_;
  Listener<void> dissociate_;
  Listener<void> map_;
  Listener<void> unmap_;
  Listener<void> commit_;
  Listener<wlr_xwayland_surface_configure_event> request_configure_;
  Listener<void> request_activate_;
  Listener<void> request_fullscreen_;
  Listener<void> request_maximize_;
  Listener<void> request_move_;
  Listener<void> set_geometry_;
  Listener<void> surface_tree_destroy_;
};

}  // namespace baton
