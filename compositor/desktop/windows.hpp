// The windows of one Server: it owns every View and xdg popup and the
// workspaces they are on, keeps them in focus order, picks the one with
// focus, and finds the window at a point or on a surface. Views report their
// life here; what the rest of the compositor should do about it (the seat's
// keyboard and grabs, task bars) goes out through the signals below.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "compositor/desktop/desktop_context.hpp"
#include "compositor/desktop/view.hpp"
#include "util/signal.hpp"
#include "util/weak.hpp"

struct wlr_surface;
struct wlr_xdg_popup;
struct wlr_xdg_toplevel;
struct wlr_xwayland_surface;

namespace baton {

class Output;
class Popup;
class View;
class Workspaces;

class Windows {
 public:
  explicit Windows(const DesktopContext& context);
  ~Windows();
  Windows(const Windows&) = delete;
  Windows& operator=(const Windows&) = delete;

  [[nodiscard]] const DesktopContext& context() const { return context_; }
  [[nodiscard]] Workspaces& workspaces() { return *workspaces_; }
  [[nodiscard]] const Workspaces& workspaces() const { return *workspaces_; }

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

  /// Called by views and popups: placing and focus, then the signals.
  void mapped(View& view);
  void unmapped(View& view);
  void destroyed(View& view);
  void popup_destroyed(Popup& popup);

  /// Frees every window (Server teardown, after the backend went).
  void clear();

  /// The focused window changed (null: none has focus); the seat gives it
  /// the keyboard unless a panel or lock screen holds it.
  Signal<View*> focused_changed;
  /// A surface that is no managed window asks for the keyboard (an X11
  /// menu that wants focus).
  Signal<wlr_surface*> keyboard_requested;
  /// A window mapped (placed and focused already).
  Signal<View&> view_mapped;
  /// A window unmapped (focus has moved on already).
  Signal<View&> view_unmapped;
  /// A window is about to be freed.
  Signal<View&> view_destroyed;
  /// A window was marked urgent, or no longer is.
  Signal<View&> urgency_changed;
  /// A window was moved (placed, dragged, or by a test's hand): what lies
  /// under a still pointer may have changed.
  Signal<View&> view_moved;
  /// A client asks to move or resize its window with the pointer: `serial`
  /// names the press it holds (X11 has no serials: none). The seat starts
  /// the grab if that press is still held.
  Signal<View&, std::optional<uint32_t>> move_requested;
  Signal<View&, uint32_t, std::optional<uint32_t>> resize_requested;

 private:
  const DesktopContext& context_;
  std::unique_ptr<Workspaces> workspaces_;
  std::vector<std::unique_ptr<View>> views_;
  std::vector<std::unique_ptr<Popup>> popups_;
  Weak<View> focused_;
};

}  // namespace baton
