// A window's entry in wlr-foreign-toplevel-management (task bars, docks):
// mirrors title, app id and state, and lets the bar activate, close,
// maximize or fullscreen the window.
#pragma once

#include "util/listener.hpp"

struct wlr_foreign_toplevel_handle_v1;
struct wlr_foreign_toplevel_handle_v1_maximized_event;
struct wlr_foreign_toplevel_handle_v1_fullscreen_event;
struct wlr_foreign_toplevel_handle_v1_activated_event;

namespace baton {

class Server;
class View;

class ForeignToplevel {
 public:
  ForeignToplevel(Server& server, View& view);
  ~ForeignToplevel();
  ForeignToplevel(const ForeignToplevel&) = delete;
  ForeignToplevel& operator=(const ForeignToplevel&) = delete;

  /// Sends the View's current title, app id and state.
  void update();

 private:
  Server& server_;
  View& view_;
  wlr_foreign_toplevel_handle_v1* handle_;
  Listener<wlr_foreign_toplevel_handle_v1_activated_event> activate_;
  Listener<wlr_foreign_toplevel_handle_v1_maximized_event> maximize_;
  Listener<wlr_foreign_toplevel_handle_v1_fullscreen_event> fullscreen_;
  Listener<void> close_;
};

}  // namespace baton
