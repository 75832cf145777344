// An xdg-shell toplevel in the scene graph.
#pragma once

#include <memory>
#include <string>

#include "compositor/listener.hpp"

struct wlr_xdg_toplevel;
struct wlr_scene_tree;
struct wlr_surface;
struct wlr_xdg_popup;
struct wlr_xdg_toplevel_resize_event;
struct wlr_xdg_toplevel_decoration_v1;

namespace baton {

class Server;
class Decoration;
class ForeignToplevel;

/// A window's frame rectangle in layout coordinates: its xdg geometry, not
/// counting client-side shadows or a server-side title bar.
struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

class View {
 public:
  View(Server& server, wlr_xdg_toplevel* toplevel);
  ~View();
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  [[nodiscard]] wlr_xdg_toplevel* toplevel() const { return toplevel_; }
  [[nodiscard]] wlr_surface* surface() const;
  [[nodiscard]] wlr_scene_tree* tree() const { return tree_; }
  [[nodiscard]] bool mapped() const { return mapped_; }
  [[nodiscard]] int x() const;
  [[nodiscard]] int y() const;
  void move_to(int x, int y);
  void set_activated(bool activated);
  [[nodiscard]] bool activated() const { return activated_; }
  [[nodiscard]] std::string title() const;
  [[nodiscard]] std::string app_id() const;

  /// The frame in layout coordinates (see Rect).
  [[nodiscard]] Rect frame() const;
  /// Places the frame's top-left corner at layout (x, y).
  void move_frame_to(int x, int y);
  /// Asks the client for a frame of `width`x`height` (it may pick another).
  void request_size(int width, int height);
  /// Sends xdg_toplevel.close.
  void close();

  [[nodiscard]] int workspace() const { return workspace_; }
  void set_workspace(int workspace) { workspace_ = workspace; }
  /// Shows or hides the window (workspace switches).
  void set_visible(bool visible);
  [[nodiscard]] bool visible() const;

  [[nodiscard]] bool maximized() const { return maximized_; }
  [[nodiscard]] bool fullscreen() const { return fullscreen_; }
  /// Fills the usable area of its output (layer-shell exclusive zones left
  /// free), or returns to the size and place it had before.
  void set_maximized(bool maximized);
  /// Covers its whole output above panels, or returns to where it was.
  void set_fullscreen(bool fullscreen);
  /// Server-side decoration (a title bar), or none.
  void set_server_decorated(bool decorated);
  [[nodiscard]] bool server_decorated() const { return decoration_ != nullptr; }
  /// Height of the server-side title bar above the frame (0 without one).
  [[nodiscard]] int title_bar_height() const;

 private:
  void handle_commit();
  void handle_map();
  void place();
  /// The box the window occupies now: where maximize/fullscreen return to.
  void remember_floating_box();
  void restore_floating_box();
  void update_decoration();

  Server& server_;
  wlr_xdg_toplevel* toplevel_;
  wlr_scene_tree* tree_;
  bool mapped_ = false;
  bool placed_ = false;
  bool activated_ = false;
  int workspace_ = 1;
  bool maximized_ = false;
  bool fullscreen_ = false;
  bool has_floating_box_ = false;
  Rect floating_box_;
  std::unique_ptr<Decoration> decoration_;
  std::unique_ptr<ForeignToplevel> foreign_;

  Listener<void> map_;
  Listener<void> unmap_;
  Listener<void> commit_;
  Listener<void> destroy_;
  Listener<void> request_maximize_;
  Listener<void> request_fullscreen_;
  Listener<void> request_move_;
  Listener<wlr_xdg_toplevel_resize_event> request_resize_;
  Listener<void> set_title_;
  Listener<void> set_app_id_;
};

/// An xdg popup, parented to its toplevel's or parent popup's scene tree and
/// kept on its output.
class Popup {
 public:
  Popup(Server& server, wlr_xdg_popup* popup);
  Popup(const Popup&) = delete;
  Popup& operator=(const Popup&) = delete;

 private:
  void unconstrain();

  Server& server_;
  wlr_xdg_popup* popup_;
  Listener<void> commit_;
  Listener<void> destroy_;
};

}  // namespace baton
