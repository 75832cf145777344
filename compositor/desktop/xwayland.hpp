// Xwayland: the X server for X11 clients, started lazily on the first X11
// connection (or eagerly, or never), and its windows managed as Views.
#pragma once

#include <memory>
#include <string>

#include "util/listener.hpp"
#include "util/result.hpp"

struct wl_display;
struct wlr_compositor;
struct wlr_seat;
struct wlr_xwayland;
struct wlr_xwayland_surface;

namespace baton {

class Windows;

class Xwayland {
 public:
  /// An error when Xwayland cannot be set up (wlroots says why in its log).
  /// Its windows join `windows`; its clients' input comes from `seat`.
  [[nodiscard]] static Result<std::unique_ptr<Xwayland>> create(wl_display* display,
                                                                wlr_compositor* compositor,
                                                                wlr_seat* seat, Windows& windows,
                                                                bool lazy);
  ~Xwayland();
  Xwayland(const Xwayland&) = delete;
  Xwayland& operator=(const Xwayland&) = delete;

  /// The DISPLAY clients use, e.g. ":1".
  [[nodiscard]] std::string display_name() const;
  [[nodiscard]] bool ready() const { return ready_; }
  [[nodiscard]] wlr_xwayland* wlr() const { return xwayland_; }

 private:
  Xwayland(wlr_xwayland* xwayland, wlr_seat* seat, Windows& windows);

  wlr_seat* seat_;
  Windows& windows_;
  wlr_xwayland* xwayland_;
  bool ready_ = false;
  Listener<void> ready_listener_;
  Listener<wlr_xwayland_surface> new_surface_;
};

}  // namespace baton
