// Which globals a client may see.
//
// security-context-v1 lets a sandbox engine (Flatpak, for one) hand its apps
// a socket of their own; baton then knows those clients as sandboxed and
// hides from them every global that reads other clients' pixels, clipboard
// or windows, or that drives outputs, input or the session. The same filter
// keeps xwayland_shell_v1 for the Xwayland server alone.
#pragma once

#include <string_view>

#include "util/listener.hpp"

struct wl_client;
struct wl_global;
struct wlr_security_context_manager_v1;
struct wlr_security_context_v1_commit_event;

namespace baton {

class Xwayland;

class Sandbox {
 public:
  explicit Sandbox(wl_display* display);
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  /// xwayland_shell_v1 is for this Xwayland's X server alone (null: nobody).
  void set_xwayland(const Xwayland* xwayland) { xwayland_ = xwayland; }

  /// Globals a sandboxed client never sees, by interface name.
  [[nodiscard]] static bool privileged(std::string_view interface);

 private:
  [[nodiscard]] bool visible(const wl_client* client, const wl_global* global) const;

  wl_display* display_;
  const Xwayland* xwayland_ = nullptr;
  wlr_security_context_manager_v1* manager_;
  Listener<wlr_security_context_v1_commit_event> commit_;
};

}  // namespace baton
