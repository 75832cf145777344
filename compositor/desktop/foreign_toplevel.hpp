// A window's entries for task bars and docks: in wlr-foreign-toplevel-management
// (title, app id and state; the bar may activate, close, maximize or
// fullscreen the window) and in ext-foreign-toplevel-list (title and app id,
// with a stable identifier; read-only).
#pragma once

#include "util/listener.hpp"

struct wlr_foreign_toplevel_handle_v1;
struct wlr_ext_foreign_toplevel_handle_v1;
struct wlr_foreign_toplevel_handle_v1_maximized_event;
struct wlr_foreign_toplevel_handle_v1_fullscreen_event;
struct wlr_foreign_toplevel_handle_v1_activated_event;

namespace baton {

class View;
class Windows;

class ForeignToplevel {
 public:
  ForeignToplevel(Windows& windows, View& view);
  ~ForeignToplevel();
  ForeignToplevel(const ForeignToplevel&) = delete;
  ForeignToplevel& operator=(const ForeignToplevel&) = delete;

  /// Sends the View's current title, app id and state.
  void update();

 private:
  Windows& windows_;
  View& view_;
  wlr_foreign_toplevel_handle_v1* handle_;
  wlr_ext_foreign_toplevel_handle_v1* ext_handle_;
  Listener<wlr_foreign_toplevel_handle_v1_activated_event> activate_;
  Listener<wlr_foreign_toplevel_handle_v1_maximized_event> maximize_;
  Listener<wlr_foreign_toplevel_handle_v1_fullscreen_event> fullscreen_;
  Listener<void> close_;
};

}  // namespace baton
