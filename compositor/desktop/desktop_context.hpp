// What the windows, their workspaces and their views use of the compositor
// around them: all of it from layers below the desktop. The Server fills it
// in once; it outlives every window.
#pragma once

struct wlr_cursor;
struct wlr_ext_foreign_toplevel_list_v1;
struct wlr_foreign_toplevel_manager_v1;
struct wlr_session;

namespace baton {

class Outputs;
struct Config;
struct SceneLayers;

struct DesktopContext {
  const Config& config;
  Outputs& outputs;
  const SceneLayers& layers;
  /// The pointer: bindings act on the output under it, and it follows
  /// windows off an output that goes dark.
  wlr_cursor* cursor;
  /// The VT session (null when nested or headless): a VT switch away takes
  /// every output, and windows wait for them instead of moving.
  wlr_session* session;
  /// Task bars' views of the windows (wlr-foreign-toplevel, ext list).
  wlr_foreign_toplevel_manager_v1* foreign_toplevels;
  wlr_ext_foreign_toplevel_list_v1* toplevel_list;
};

}  // namespace baton
