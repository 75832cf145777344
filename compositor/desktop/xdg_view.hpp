// xdg-shell toplevels and popups in the scene graph.
#pragma once

#include <memory>
#include <string>

#include "compositor/desktop/view.hpp"
#include "util/listener.hpp"
#include "util/owned.hpp"
#include "util/wlr.hpp"

struct wlr_xdg_toplevel;
struct wlr_xdg_popup;
struct wlr_xdg_toplevel_resize_event;

namespace baton {

class Decoration;
class ForeignToplevel;

class XdgView final : public View {
 public:
  XdgView(Windows& windows, wlr_xdg_toplevel* toplevel);
  ~XdgView() override;

  [[nodiscard]] wlr_xdg_toplevel* toplevel() const { return toplevel_; }
  [[nodiscard]] wlr_surface* surface() const override;
  [[nodiscard]] wlr_scene_tree* tree() const override { return tree_; }
  [[nodiscard]] bool mapped() const override { return mapped_; }
  void set_activated(bool activated) override;
  void urgency_shown() override;
  void set_icon(wlr_xdg_toplevel_icon_v1* icon) override;
  [[nodiscard]] bool modal_for(const View& parent) const override;
  [[nodiscard]] std::string title() const override;
  [[nodiscard]] std::string app_id() const override;

  [[nodiscard]] Rect frame() const override;
  void move_frame_to(int x, int y) override;
  void request_size(int width, int height) override;
  void close() override;

  void set_server_decorated(bool decorated) override;
  [[nodiscard]] bool server_decorated() const override { return decoration_ != nullptr; }
  [[nodiscard]] int title_bar_height() const override;
  [[nodiscard]] TitleButton title_button_at(double lx, double ly) const override;

 protected:
  [[nodiscard]] bool accepts_state() const override;
  void send_maximized(bool maximized) override;
  void send_fullscreen(bool fullscreen) override;
  void state_applied() override;

 private:
  void handle_commit();
  /// The configure of a window not yet mapped: the size of the state it
  /// asked for, or 0x0.
  void configure_unmapped();
  void handle_map();
  void place();
  void update_decoration();

  wlr_xdg_toplevel* toplevel_;
  wlr_scene_tree* tree_;
  bool mapped_ = false;
  bool placed_ = false;
  std::unique_ptr<Decoration> decoration_;
  // The icon drawn for the title bar (kept for when decorations come later).
  Owned<wlr_buffer, wlr_buffer_drop> icon_;
  std::unique_ptr<ForeignToplevel> foreign_;

  Listener<void> map_;
  Listener<void> unmap_;
  Listener<void> commit_;
  Listener<void> destroy_;
  Listener<void> request_maximize_;
  Listener<void> request_fullscreen_;
  Listener<wlr_xdg_toplevel_move_event> request_move_;
  Listener<wlr_xdg_toplevel_resize_event> request_resize_;
  Listener<void> set_title_;
  Listener<void> set_app_id_;
};

/// An xdg popup, parented to its toplevel's, parent popup's or panel's
/// scene tree and kept on its output.
class Popup {
 public:
  Popup(Windows& windows, wlr_xdg_popup* popup);
  Popup(const Popup&) = delete;
  Popup& operator=(const Popup&) = delete;

 private:
  void attach();
  void unconstrain();

  Windows& windows_;
  wlr_xdg_popup* popup_;
  Listener<void> commit_;
  Listener<void> destroy_;
};

}  // namespace baton
