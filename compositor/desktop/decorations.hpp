// Server-side window decorations: a title bar in the focus colour, with
// the window's icon, the title and maximize and close buttons, above windows whose client asked
// for them (xdg-decoration), and the protocol object that negotiates the mode.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "compositor/desktop/view.hpp"
#include "util/listener.hpp"

struct wlr_buffer;
struct wlr_scene_buffer;
struct wlr_scene_rect;
struct wlr_scene_tree;
struct wlr_xdg_toplevel_decoration_v1;

namespace baton {

class Windows;
struct Config;

/// The frame drawn around one View; lives in the View's scene tree.
class Decoration {
 public:
  static constexpr int kTitleHeight = 24;
  static constexpr int kBorder = 2;
  /// Buttons are squares as high as the bar, at its right end.
  static constexpr int kButton = kTitleHeight;
  enum class Look { unfocused, focused, urgent };

  Decoration(View& view, const Config& config);
  ~Decoration();
  Decoration(const Decoration&) = delete;
  Decoration& operator=(const Decoration&) = delete;

  /// Lays the bar above the window's geometry box, `width` wide, with `title`
  /// written in it. The box's top left is the View's tree origin: wlroots'
  /// scene tree for an xdg surface holds the surface at minus its offset.
  void update(int width, Look look, bool visible, const std::string& title);
  /// Shows `icon` (kIcon pixels square, or null for none) at the bar's left.
  void set_icon(wlr_buffer* icon);
  static constexpr int kIcon = kTitleHeight - 4;
  /// The button at (x, y) in the View's tree coordinates, if any.
  [[nodiscard]] TitleButton button_at(double x, double y) const;

 private:
  View& view_;
  uint32_t focused_, unfocused_, urgent_, text_colour_;
  wlr_scene_tree* tree_;  // below the client's surfaces
  wlr_scene_rect* title_;
  wlr_scene_buffer* text_;
  wlr_scene_buffer* icon_;
  bool has_icon_ = false;
  wlr_scene_rect* close_;
  wlr_scene_buffer* close_icon_;
  wlr_scene_buffer* maximize_icon_;
  // How wide the bar was laid out last, for button_at.
  int width_ = 0;
  bool visible_ = false;
  std::string drawn_title_;
  int drawn_width_ = -1;
};

/// One zxdg_toplevel_decoration_v1: clients that prefer client-side
/// decorations keep them; everyone else gets the server's title bar.
class XdgDecoration {
 public:
  /// `destroyed` runs when the client destroys it: its owner frees it.
  XdgDecoration(const Windows& windows, wlr_xdg_toplevel_decoration_v1* decoration,
                std::function<void(XdgDecoration&)> destroyed);
  XdgDecoration(const XdgDecoration&) = delete;
  XdgDecoration& operator=(const XdgDecoration&) = delete;

 private:
  void apply();
  View* view() const;

  const Windows& windows_;
  wlr_xdg_toplevel_decoration_v1* decoration_;
  std::function<void(XdgDecoration&)> destroyed_;
  Listener<void> request_mode_;
  Listener<void> commit_;
  Listener<void> destroy_;
};

}  // namespace baton
