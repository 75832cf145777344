// A window the desktop manages, whatever its protocol: xdg-shell toplevels
// (XdgView) and X11 windows through Xwayland (XwaylandView). The Server,
// window management (bindings, grabs, workspaces) and taskbars focus, stack,
// move and resize Views without knowing which kind they are.
#pragma once

#include <string>

#include "util/weak.hpp"
#include "util/wlr.hpp"

struct wlr_scene_tree;
struct wlr_surface;
struct wlr_xdg_toplevel_icon_v1;

namespace baton {

class Output;
class Windows;

/// The buttons of a server-side title bar.
enum class TitleButton { none, close, maximize };

/// A window's frame rectangle in layout coordinates: its visible geometry,
/// not counting client-side shadows or a server-side title bar.
struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

class View : public Weakable<View> {
 public:
  virtual ~View();
  View(const View&) = delete;
  View& operator=(const View&) = delete;

  /// The main surface (keyboard focus target); null while unassociated.
  [[nodiscard]] virtual wlr_surface* surface() const = 0;
  /// The view of `windows` whose main surface is `surface`, or null: found
  /// on the surface itself (a wlr_addon), not by a search.
  [[nodiscard]] static View* on_surface(const Windows& windows, wlr_surface* surface);
  /// The scene tree holding the window; its node's data points at this View.
  [[nodiscard]] virtual wlr_scene_tree* tree() const = 0;
  [[nodiscard]] virtual bool mapped() const = 0;
  /// False for windows that place themselves and never take focus by click
  /// (X11 override-redirect menus and tooltips).
  [[nodiscard]] virtual bool managed() const { return true; }
  [[nodiscard]] virtual std::string title() const = 0;
  /// xdg app_id, or the X11 WM_CLASS class.
  [[nodiscard]] virtual std::string app_id() const = 0;

  virtual void set_activated(bool activated) = 0;
  [[nodiscard]] bool activated() const { return activated_; }
  /// Asked for focus and was refused (xdg-activation); focusing clears it.
  /// Marks the window as wanting attention (or not): Windows::urgency_changed.
  void set_urgent(bool urgent);
  [[nodiscard]] bool urgent() const { return urgent_; }
  /// Whether this is a mapped modal dialog (xdg-dialog) of `parent`, which
  /// then passes any focus it gets on to this window.
  [[nodiscard]] virtual bool modal_for(const View& /*parent*/) const { return false; }
  /// The client's icon for its window (xdg-toplevel-icon); null unsets it.
  virtual void set_icon(wlr_xdg_toplevel_icon_v1* /*icon*/) {}

  /// Top-left of the window's scene tree in layout coordinates.
  [[nodiscard]] int x() const;
  [[nodiscard]] int y() const;
  virtual void move_to(int x, int y);
  /// The frame in layout coordinates (see Rect).
  [[nodiscard]] virtual Rect frame() const = 0;
  /// Places the frame's top-left corner at layout (x, y).
  virtual void move_frame_to(int x, int y) = 0;
  /// Asks the client for a frame of `width`x`height` (it may pick another).
  virtual void request_size(int width, int height) = 0;
  /// Asks the client to close the window.
  virtual void close() = 0;

  /// The output whose workspace the window is on (see Workspaces); null
  /// before it is placed and while there is no output at all.
  [[nodiscard]] Output* output() const { return output_; }
  void set_output(Output* output) { output_ = output; }
  [[nodiscard]] int workspace() const { return workspace_; }
  void set_workspace(int workspace) { workspace_ = workspace; }
  /// Shows or hides the window (workspace switches).
  void set_visible(bool visible);
  [[nodiscard]] bool visible() const;

  [[nodiscard]] bool maximized() const { return maximized_; }
  /// Covers its output (games, video); candidates for a fixed cadence,
  /// tearing and direct scanout.
  [[nodiscard]] bool fullscreen() const { return fullscreen_; }
  /// Fills the usable area of its output (again, when it changed), or
  /// returns to where it was.
  void set_maximized(bool maximized);
  /// Covers its whole output above panels, or returns to where it was.
  void set_fullscreen(bool fullscreen);
  /// Server-side decoration (a title bar), for kinds that support it.
  virtual void set_server_decorated(bool /*decorated*/) {}
  [[nodiscard]] virtual bool server_decorated() const { return false; }
  /// Height of the server-side title bar above the frame (0 without one).
  [[nodiscard]] virtual int title_bar_height() const { return 0; }
  /// The title bar button at layout point (lx, ly), if any.
  [[nodiscard]] virtual TitleButton title_button_at(double /*lx*/, double /*ly*/) const {
    return TitleButton::none;
  }

 protected:
  explicit View(Windows& windows) : windows_(windows) {}

  /// Whether the window takes maximize/fullscreen now (configured, mapped,
  /// managed); requests before that are ignored.
  [[nodiscard]] virtual bool accepts_state() const = 0;
  /// Tell the client its new state, in its protocol.
  virtual void send_maximized(bool maximized) = 0;
  virtual void send_fullscreen(bool fullscreen) = 0;
  /// Runs after every maximize/fullscreen request, changed or not
  /// (decorations, task bars, the configure the client waits for).
  virtual void state_applied() {}
  /// The window stopped being shown (unmapped) while fullscreen: it maps
  /// again as an ordinary window.
  void forget_fullscreen() { fullscreen_ = false; }
  /// Hangs this view on its main surface (null: takes it off), for on_surface().
  void attach_to_surface(wlr_surface* surface);

  Windows& windows_;
  bool activated_ = false;
  bool urgent_ = false;
  /// The urgent mark changed: redraw what shows it.
  virtual void urgency_shown() {}

 public:
  struct SurfaceAddon {
    wlr_addon base;  // first: a wlr_addon* is a SurfaceAddon*
    View* view = nullptr;
  };

 private:
  [[nodiscard]] Output* output_under_frame() const;
  void fill_usable_area();
  /// The box the window occupies now: where maximize/fullscreen return to.
  void remember_floating_box();
  void restore_floating_box();

  Output* output_ = nullptr;  // Workspaces moves windows off an output before it goes
  int workspace_ = 1;
  bool maximized_ = false;
  bool fullscreen_ = false;
  bool has_floating_box_ = false;
  Rect floating_box_;
  SurfaceAddon addon_{};
};

}  // namespace baton
