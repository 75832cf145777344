#include "tests/fuzz/interfaces.hpp"

#include <wayland-client-protocol.h>

#include <array>

#include "alpha-modifier-v1-client-protocol.h"
#include "color-representation-v1-client-protocol.h"
#include "commit-timing-v1-client-protocol.h"
#include "content-type-v1-client-protocol.h"
#include "cursor-shape-v1-client-protocol.h"
#include "ext-data-control-v1-client-protocol.h"
#include "ext-foreign-toplevel-list-v1-client-protocol.h"
#include "ext-idle-notify-v1-client-protocol.h"
#include "ext-image-capture-source-v1-client-protocol.h"
#include "ext-image-copy-capture-v1-client-protocol.h"
#include "ext-session-lock-v1-client-protocol.h"
#include "ext-workspace-v1-client-protocol.h"
#include "fifo-v1-client-protocol.h"
#include "fractional-scale-v1-client-protocol.h"
#include "idle-inhibit-unstable-v1-client-protocol.h"
#include "input-method-unstable-v2-client-protocol.h"
#include "keyboard-shortcuts-inhibit-unstable-v1-client-protocol.h"
#include "linux-dmabuf-v1-client-protocol.h"
#include "linux-drm-syncobj-v1-client-protocol.h"
#include "pointer-constraints-unstable-v1-client-protocol.h"
#include "pointer-gestures-unstable-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "primary-selection-unstable-v1-client-protocol.h"
#include "relative-pointer-unstable-v1-client-protocol.h"
#include "security-context-v1-client-protocol.h"
#include "single-pixel-buffer-v1-client-protocol.h"
#include "tablet-v2-client-protocol.h"
#include "tearing-control-v1-client-protocol.h"
#include "text-input-unstable-v3-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "virtual-keyboard-unstable-v1-client-protocol.h"
#include "wlr-data-control-unstable-v1-client-protocol.h"
#include "wlr-export-dmabuf-unstable-v1-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"
#include "wlr-gamma-control-unstable-v1-client-protocol.h"
// A request parameter is named `namespace`.
#define namespace namespace_
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#undef namespace
#include "wlr-output-management-unstable-v1-client-protocol.h"
#include "wlr-output-power-management-unstable-v1-client-protocol.h"
#include "wlr-screencopy-unstable-v1-client-protocol.h"
#include "wlr-virtual-pointer-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#include "xdg-decoration-unstable-v1-client-protocol.h"
#include "xdg-dialog-v1-client-protocol.h"
#include "xdg-foreign-unstable-v1-client-protocol.h"
#include "xdg-foreign-unstable-v2-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"
#include "xdg-system-bell-v1-client-protocol.h"
#include "xdg-toplevel-icon-v1-client-protocol.h"

namespace baton::fuzz {

const wl_interface* global_interface(std::string_view name) {
  static constexpr std::array kGlobals = {
      &wl_compositor_interface,
      &wl_subcompositor_interface,
      &wl_shm_interface,
      &wl_seat_interface,
      &wl_output_interface,
      &wl_data_device_manager_interface,
      &xdg_wm_base_interface,
      &wp_presentation_interface,
      &wp_viewporter_interface,
      &zwp_linux_dmabuf_v1_interface,
      &wp_linux_drm_syncobj_manager_v1_interface,
      &zxdg_output_manager_v1_interface,
      &wp_single_pixel_buffer_manager_v1_interface,
      &wp_fractional_scale_manager_v1_interface,
      &zwp_pointer_constraints_v1_interface,
      &zwp_pointer_gestures_v1_interface,
      &wp_tearing_control_manager_v1_interface,
      &zwp_relative_pointer_manager_v1_interface,
      &zwp_tablet_manager_v2_interface,
      &wp_cursor_shape_manager_v1_interface,
      &wp_content_type_manager_v1_interface,
      &zxdg_decoration_manager_v1_interface,
      &xdg_activation_v1_interface,
      &ext_session_lock_manager_v1_interface,
      &ext_idle_notifier_v1_interface,
      &zwp_idle_inhibit_manager_v1_interface,
      &zwp_keyboard_shortcuts_inhibit_manager_v1_interface,
      &zwlr_layer_shell_v1_interface,
      &zwlr_output_power_manager_v1_interface,
      &zwlr_foreign_toplevel_manager_v1_interface,
      &zwp_virtual_keyboard_manager_v1_interface,
      &zwlr_virtual_pointer_manager_v1_interface,
      &zwlr_gamma_control_manager_v1_interface,
      &zwlr_screencopy_manager_v1_interface,
      &ext_output_image_capture_source_manager_v1_interface,
      &ext_foreign_toplevel_image_capture_source_manager_v1_interface,
      &ext_image_copy_capture_manager_v1_interface,
      &ext_data_control_manager_v1_interface,
      &ext_foreign_toplevel_list_v1_interface,
      &xdg_toplevel_icon_manager_v1_interface,
      &xdg_system_bell_v1_interface,
      &xdg_wm_dialog_v1_interface,
      &zxdg_exporter_v1_interface,
      &zxdg_importer_v1_interface,
      &zxdg_exporter_v2_interface,
      &zxdg_importer_v2_interface,
      &wp_alpha_modifier_v1_interface,
      &wp_security_context_manager_v1_interface,
      &wp_fifo_manager_v1_interface,
      &wp_commit_timing_manager_v1_interface,
      &wp_color_representation_manager_v1_interface,
      &zwlr_output_manager_v1_interface,
      &zwlr_export_dmabuf_manager_v1_interface,
      &zwlr_data_control_manager_v1_interface,
      &zwp_primary_selection_device_manager_v1_interface,
      &zwp_text_input_manager_v3_interface,
      &zwp_input_method_manager_v2_interface,
      &ext_workspace_manager_v1_interface,
  };
  for (const wl_interface* interface : kGlobals)
    if (name == interface->name) return interface;
  return nullptr;
}

}  // namespace baton::fuzz
