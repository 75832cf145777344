// A window the desktop manages, whatever its protocol: xdg-shell toplevels
// (XdgView) and X11 windows through Xwayland (XwaylandView). The Server,
// window management (bindings, grabs, workspaces) and taskbars focus, stack,
// move and resize Views without knowing which kind they are.
#pragma once

#include <string>

struct wlr_scene_tree;
struct wlr_surface;

namespace baton {

class Output;

/// The buttons of a server-side title bar.
enum class TitleButton { none, close, maximize };

/// A window's frame rectangle in layout coordinates: its visible geometry,
/// not counting client-side shadows or a server-side title bar.
struct Rect {
  int x = 0, y = 0, width = 0, height = 0;
};

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
  [[nodiscard]] virtual std::string title() const = 0;
  /// xdg app_id, or the X11 WM_CLASS class.
  [[nodiscard]] virtual std::string app_id() const = 0;

  virtual void set_activated(bool activated) = 0;
  [[nodiscard]] bool activated() const { return activated_; }
  /// Asked for focus and was refused (xdg-activation); focusing clears it.
  virtual void set_urgent(bool urgent) { urgent_ = urgent; }
  [[nodiscard]] bool urgent() const { return urgent_; }

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

  [[nodiscard]] virtual bool maximized() const = 0;
  /// Covers its output (games, video); candidates for a fixed cadence,
  /// tearing and direct scanout.
  [[nodiscard]] virtual bool fullscreen() const = 0;
  /// Fills the usable area of its output, or returns to where it was.
  virtual void set_maximized(bool maximized) = 0;
  /// Covers its whole output above panels, or returns to where it was.
  virtual void set_fullscreen(bool fullscreen) = 0;
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
  View() = default;
  bool activated_ = false;
  bool urgent_ = false;

 private:
  Output* output_ = nullptr;  // Workspaces moves windows off an output before it goes
  int workspace_ = 1;
};

}  // namespace baton
