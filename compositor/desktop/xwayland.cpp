#include "compositor/desktop/xwayland.hpp"

#include "compositor/desktop/windows.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

Result<std::unique_ptr<Xwayland>> Xwayland::create(wl_display* display, wlr_compositor* compositor,
                                                   wlr_seat* seat, Windows& windows, bool lazy) {
  wlr_xwayland* xwayland = wlr_xwayland_create(display, compositor, lazy);
  if (xwayland == nullptr)
    return failure("Xwayland could not be set up",
                   "is the xwayland package installed? X11 clients will not run");
  return std::unique_ptr<Xwayland>(new Xwayland(xwayland, seat, windows));
}

Xwayland::Xwayland(wlr_xwayland* xwayland, wlr_seat* seat, Windows& windows)
    : seat_(seat), windows_(windows), xwayland_(xwayland) {
  ready_listener_.connect(&xwayland->events.ready, [this](void*) {
    ready_ = true;
    wlr_xwayland_set_seat(xwayland_, seat_);
    LOG_INFO("Xwayland is ready on DISPLAY=%s", xwayland_->display_name);
  });
  new_surface_.connect(&xwayland->events.new_surface,
                       [this](wlr_xwayland_surface* surface) { windows_.add_xwayland(surface); });
  LOG_INFO("Xwayland listening on DISPLAY=%s", xwayland->display_name);
}

Xwayland::~Xwayland() {
  ready_listener_.disconnect();
  new_surface_.disconnect();
  wlr_xwayland_destroy(xwayland_);
}

std::string Xwayland::display_name() const { return xwayland_->display_name; }

}  // namespace baton
