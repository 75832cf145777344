#include "compositor/desktop/xwayland.hpp"

#include "compositor/desktop/windows.hpp"
#include "compositor/input/seat.hpp"
#include "compositor/server.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

std::unique_ptr<Xwayland> Xwayland::create(Server& server, bool lazy) {
  wlr_xwayland* xwayland = wlr_xwayland_create(server.display(), server.compositor(), lazy);
  if (xwayland == nullptr) {
    LOG_ERROR(
        "Xwayland could not be set up (is the xwayland package installed?); X11 clients will not "
        "run");
    return nullptr;
  }
  return std::unique_ptr<Xwayland>(new Xwayland(server, xwayland));
}

Xwayland::Xwayland(Server& server, wlr_xwayland* xwayland) : server_(server), xwayland_(xwayland) {
  ready_listener_.connect(&xwayland->events.ready, [this](void*) {
    ready_ = true;
    wlr_xwayland_set_seat(xwayland_, server_.seat().wlr());
    LOG_INFO("Xwayland is ready on DISPLAY=%s", xwayland_->display_name);
  });
  new_surface_.connect(&xwayland->events.new_surface, [this](wlr_xwayland_surface* surface) {
    server_.windows().add_xwayland(surface);
  });
  LOG_INFO("Xwayland listening on DISPLAY=%s", xwayland->display_name);
}

Xwayland::~Xwayland() {
  ready_listener_.disconnect();
  new_surface_.disconnect();
  wlr_xwayland_destroy(xwayland_);
}

std::string Xwayland::display_name() const { return xwayland_->display_name; }

}  // namespace baton
