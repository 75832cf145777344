#include "compositor/desktop/foreign_toplevel.hpp"

#include <string>

#include "compositor/desktop/view.hpp"
#include "compositor/desktop/windows.hpp"
#include "compositor/desktop/workspaces.hpp"
#include "util/wlr.hpp"

namespace baton {

ForeignToplevel::ForeignToplevel(Windows& windows, View& view)
    : windows_(windows),
      view_(view),
      handle_(wlr_foreign_toplevel_handle_v1_create(windows.context().foreign_toplevels)) {
  const std::string title = view.title();
  const std::string app_id = view.app_id();
  const wlr_ext_foreign_toplevel_handle_v1_state state{title.c_str(), app_id.c_str()};
  ext_handle_ = wlr_ext_foreign_toplevel_handle_v1_create(windows.context().toplevel_list, &state);
  activate_.connect(&handle_->events.request_activate,
                    [this](wlr_foreign_toplevel_handle_v1_activated_event*) {
                      windows_.workspaces().show(view_);
                      windows_.focus(&view_);
                    });
  maximize_.connect(&handle_->events.request_maximize,
                    [this](wlr_foreign_toplevel_handle_v1_maximized_event* event) {
                      view_.set_maximized(event->maximized);
                    });
  fullscreen_.connect(&handle_->events.request_fullscreen,
                      [this](wlr_foreign_toplevel_handle_v1_fullscreen_event* event) {
                        view_.set_fullscreen(event->fullscreen);
                      });
  close_.connect(&handle_->events.request_close, [this](void*) { view_.close(); });
  update();
}

ForeignToplevel::~ForeignToplevel() {
  // The handle's signals die with it: unhook first.
  activate_.disconnect();
  maximize_.disconnect();
  fullscreen_.disconnect();
  close_.disconnect();
  wlr_foreign_toplevel_handle_v1_destroy(handle_);
  wlr_ext_foreign_toplevel_handle_v1_destroy(ext_handle_);
}

void ForeignToplevel::update() {
  const std::string title = view_.title();
  const std::string app_id = view_.app_id();
  wlr_foreign_toplevel_handle_v1_set_title(handle_, title.c_str());
  wlr_foreign_toplevel_handle_v1_set_app_id(handle_, app_id.c_str());
  // Sends title and app id again only when they changed.
  const wlr_ext_foreign_toplevel_handle_v1_state state{title.c_str(), app_id.c_str()};
  wlr_ext_foreign_toplevel_handle_v1_update_state(ext_handle_, &state);
  wlr_foreign_toplevel_handle_v1_set_activated(handle_, view_.activated());
  wlr_foreign_toplevel_handle_v1_set_maximized(handle_, view_.maximized());
  wlr_foreign_toplevel_handle_v1_set_fullscreen(handle_, view_.fullscreen());
}

}  // namespace baton
