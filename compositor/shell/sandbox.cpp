#include "compositor/shell/sandbox.hpp"

#include <array>

#include "compositor/desktop/xwayland.hpp"
#include "util/log.hpp"
#include "util/wlr.hpp"

namespace baton {

namespace {

// Screen and clipboard readers, window lists, output and input control, the
// session's own shell: what a sandboxed app must not reach. What only
// describes the app's own buffers (viewporter, alpha-modifier,
// color-representation, ...) is not here: it reveals nothing of others, and
// a sandboxed video player needs it.
constexpr std::array kPrivileged = {
    std::string_view{"zwlr_screencopy_manager_v1"},
    std::string_view{"zwlr_export_dmabuf_manager_v1"},
    std::string_view{"ext_image_copy_capture_manager_v1"},
    std::string_view{"ext_output_image_capture_source_manager_v1"},
    std::string_view{"ext_foreign_toplevel_image_capture_source_manager_v1"},
    std::string_view{"zwlr_data_control_manager_v1"},
    std::string_view{"ext_data_control_manager_v1"},
    std::string_view{"zwlr_foreign_toplevel_manager_v1"},
    std::string_view{"ext_foreign_toplevel_list_v1"},
    std::string_view{"zwlr_output_manager_v1"},
    std::string_view{"zwlr_output_power_manager_v1"},
    std::string_view{"zwlr_gamma_control_manager_v1"},
    std::string_view{"zwp_virtual_keyboard_manager_v1"},
    std::string_view{"zwlr_virtual_pointer_manager_v1"},
    std::string_view{"zwp_input_method_manager_v2"},
    std::string_view{"zwp_keyboard_shortcuts_inhibit_manager_v1"},
    std::string_view{"ext_idle_notifier_v1"},
    std::string_view{"ext_session_lock_manager_v1"},
    std::string_view{"zwlr_layer_shell_v1"},
    std::string_view{"ext_workspace_manager_v1"},
    std::string_view{"wp_drm_lease_device_v1"},
    std::string_view{"wp_security_context_manager_v1"},
};

}  // namespace

bool Sandbox::privileged(std::string_view interface) {
  for (std::string_view name : kPrivileged)
    if (name == interface) return true;
  return false;
}

Sandbox::Sandbox(wl_display* display)
    : display_(display), manager_(wlr_security_context_manager_v1_create(display)) {
  wl_display_set_global_filter(
      display,
      [](const wl_client* client, const wl_global* global, void* data) {
        return static_cast<const Sandbox*>(data)->visible(client, global);
      },
      this);
  commit_.connect(&manager_->events.commit, [](wlr_security_context_v1_commit_event* event) {
    const wlr_security_context_v1_state* state = event->state;
    LOG_INFO("sandbox: a socket for %s app '%s' (instance %s)",
             state->sandbox_engine != nullptr ? state->sandbox_engine : "an unnamed engine's",
             state->app_id != nullptr ? state->app_id : "",
             state->instance_id != nullptr ? state->instance_id : "-");
  });
}

Sandbox::~Sandbox() { wl_display_set_global_filter(display_, nullptr, nullptr); }

bool Sandbox::visible(const wl_client* client, const wl_global* global) const {
  const std::string_view interface = wl_global_get_interface(global)->name;
  if (interface == "xwayland_shell_v1") {
    return xwayland_ != nullptr && xwayland_->wlr()->server != nullptr &&
           client == xwayland_->wlr()->server->client;
  }
  auto* mutable_client = const_cast<wl_client*>(client);  // wlroots' lookup takes non-const
  const bool sandboxed =
      wlr_security_context_manager_v1_lookup_client(manager_, mutable_client) != nullptr;
  return !sandboxed || !privileged(interface);
}

}  // namespace baton
