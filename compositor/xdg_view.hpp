// xdg-shell toplevels and popups in the scene graph.
#pragma once

#include "compositor/listener.hpp"
#include "compositor/view.hpp"

struct wlr_xdg_toplevel;
struct wlr_xdg_popup;

namespace baton {

class Server;

class XdgView final : public View {
 public:
  XdgView(Server& server, wlr_xdg_toplevel* toplevel);
  ~XdgView() override;

  [[nodiscard]] wlr_xdg_toplevel* toplevel() const { return toplevel_; }
  [[nodiscard]] wlr_surface* surface() const override;
  [[nodiscard]] wlr_scene_tree* tree() const override { return tree_; }
  [[nodiscard]] bool mapped() const override { return mapped_; }
  [[nodiscard]] bool fullscreen() const override;
  void set_activated(bool activated) override;
  [[nodiscard]] std::string title() const override;
  [[nodiscard]] std::string app_id() const override;

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
