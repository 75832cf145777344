// The windows of one Server: it owns every View and xdg popup, keeps them in
// focus order, gives the keyboard to one of them, and finds the window at a
// point or on a surface. The Server owns this; views report their life here.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "compositor/desktop/view.hpp"
#include "util/weak.hpp"

struct wlr_surface;
struct wlr_xdg_popup;
struct wlr_xdg_toplevel;
struct wlr_xwayland_surface;

namespace baton {

class Output;
class Popup;
class Server;
class View;

class Windows {
 public:
  explicit Windows(Server& server);
  ~Windows();
  Windows(const Windows&) = delete;
  Windows& operator=(const Windows&) = delete;

  /// Mapped and unmapped toplevels, most recently focused first.
  [[nodiscard]] const std::vector<std::unique_ptr<View>>& views() const { return views_; }
  /// The toplevel that holds keyboard focus, or null.
  [[nodiscard]] View* focused() const { return focused_.get(); }
  /// Raises `view`, activates it and gives it keyboard focus (null clears).
  void focus(View* view);
  /// Focuses the next (least recently used) or previous window of the
  /// focused output's workspace.
  void cycle_focus(bool forward);

  /// The window whose main surface is `surface`, or null.
  [[nodiscard]] View* view_for_surface(wlr_surface* surface) const;
  /// The view and surface at layout coordinates, with surface-local coordinates.
  View* view_at(double lx, double ly, wlr_surface** surface, double* sx, double* sy) const;
  /// The topmost fullscreen view on `output`, or null.
  [[nodiscard]] View* fullscreen_on(const Output& output) const;
  /// The frame, title bar included, where `view` (`width` x `height` with
  /// its title bar) opens: on the focused output, among the windows on its
  /// workspace there, centred on `parent` when it has one (placement.hpp).
  /// Null when there is no output.
  [[nodiscard]] std::optional<Rect> placement_for(const View& view, int width, int height,
                                                  const View* parent) const;

  void add_xdg_toplevel(wlr_xdg_toplevel* toplevel);
  void add_xdg_popup(wlr_xdg_popup* popup);
  void add_xwayland(wlr_xwayland_surface* surface);

  /// Called by views and popups: placing and focus, then the Server's events.
  void mapped(View& view);
  void unmapped(View& view);
  void destroyed(View& view);
  void popup_destroyed(Popup& popup);

  /// Frees every window (Server teardown, after the backend went).
  void clear();

 private:
  Server& server_;
  std::vector<std::unique_ptr<View>> views_;
  std::vector<std::unique_ptr<Popup>> popups_;
  Weak<View> focused_;
};

}  // namespace baton
