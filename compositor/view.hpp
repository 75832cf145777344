// An xdg-shell toplevel in the scene graph.
#pragma once

#include <string>

#include "compositor/listener.hpp"

struct wlr_xdg_toplevel;
struct wlr_scene_tree;
struct wlr_surface;
struct wlr_xdg_popup;

namespace baton {

class Server;

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
  [[nodiscard]] std::string title() const;
  [[nodiscard]] std::string app_id() const;

 private:
  void handle_commit();
  void handle_map();
  void place();

  Server& server_;
  wlr_xdg_toplevel* toplevel_;
  wlr_scene_tree* tree_;
  bool mapped_ = false;
  bool placed_ = false;

  Listener<void> map_;
  Listener<void> unmap_;
  Listener<void> commit_;
  Listener<void> destroy_;
  Listener<void> request_maximize_;
  Listener<void> request_fullscreen_;
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
