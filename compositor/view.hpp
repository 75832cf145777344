// A window the desktop manages, whatever its protocol: xdg-shell toplevels
// (XdgView) and X11 windows through Xwayland (XwaylandView). The Server
// focuses, stacks and hit-tests Views without knowing which kind they are.
#pragma once

#include <string>

struct wlr_scene_tree;
struct wlr_surface;

namespace baton {

class View {
 public:
  virtual ~View() = default;
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  /// The main surface (keyboard focus target); null while unassociated.
  [[nodiscard]] virtual wlr_surface* surface() const = 0;
  /// The scene tree holding the window; its node's data points at this View.
  [[nodiscard]] virtual wlr_scene_tree* tree() const = 0;
  [[nodiscard]] virtual bool mapped() const = 0;
  /// False for windows that place themselves and never take focus by click
  /// (X11 override-redirect menus and tooltips).
  [[nodiscard]] virtual bool managed() const { return true; }
  /// Covers its output (games, video); candidates for a fixed cadence,
  /// tearing and direct scanout.
  [[nodiscard]] virtual bool fullscreen() const { return false; }
  virtual void set_activated(bool activated) = 0;
  [[nodiscard]] virtual std::string title() const = 0;
  /// xdg app_id, or the X11 WM_CLASS class.
  [[nodiscard]] virtual std::string app_id() const = 0;

  /// Top-left of the window's scene tree in layout coordinates.
  [[nodiscard]] int x() const;
  [[nodiscard]] int y() const;
  virtual void move_to(int x, int y);

 protected:
  View() = default;
};

}  // namespace baton
