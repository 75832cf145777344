// The desktop's protocol globals that wlroots implements and baton only
// wires up: selections and data control (wlr and ext), screen capture
// (wlr-screencopy, ext-image-copy-capture), output management and power,
// gamma, content type, shortcut inhibitors, idle, xdg-decoration,
// xdg-toplevel-icon, xdg-system-bell, xdg-dialog and alpha-modifier; it owns
// Activation (xdg-activation) and the Sandbox (security-context).
// (Pointer constraints, relative motion, virtual input and cursor shape live
// next to the seat, in input/; the foreign-toplevel lists with the windows.)
#pragma once

#include <memory>
#include <vector>

#include "util/listener.hpp"
#include "util/signal.hpp"
#include "util/wlr.hpp"

namespace baton {

class Outputs;
class Windows;
struct Config;
class XdgDecoration;
class Activation;
class Sandbox;
class WorkspaceList;

class DesktopProtocols {
 public:
  DesktopProtocols(wl_display* display, wl_event_loop* loop, wlr_seat* seat, const Config& config,
                   Outputs& outputs, Windows& windows);
  ~DesktopProtocols();
  DesktopProtocols(const DesktopProtocols&) = delete;
  DesktopProtocols& operator=(const DesktopProtocols&) = delete;

  [[nodiscard]] Activation& activation() { return *activation_; }
  [[nodiscard]] Sandbox& sandbox() { return *sandbox_; }
  /// Input happened: resets idle timers (idle-notify).
  void notify_activity();
  /// Whether the focused surface asked for compositor shortcuts to be off.
  [[nodiscard]] bool shortcuts_inhibited() const;
  /// Republishes the output configuration (output-management clients).
  void outputs_changed();

 private:
  void apply_output_configuration(wlr_output_configuration_v1* config, bool test_only);

  wlr_seat* seat_;
  Outputs& outputs_;
  Windows& windows_;
  wlr_output_manager_v1* output_manager_;
  wlr_idle_notifier_v1* idle_notifier_;
  wlr_keyboard_shortcuts_inhibit_manager_v1* shortcuts_inhibit_;
  int idle_inhibitors_ = 0;
  std::unique_ptr<Activation> activation_;
  std::unique_ptr<Sandbox> sandbox_;
  std::unique_ptr<WorkspaceList> workspace_list_;
  std::vector<std::unique_ptr<XdgDecoration>> decorations_;
  std::vector<std::unique_ptr<Listener<void>>> inhibitor_destroys_;

  Listener<wlr_seat_request_set_primary_selection_event> set_primary_;
  Listener<wlr_output_configuration_v1> output_apply_;
  Listener<wlr_output_configuration_v1> output_test_;
  Connection layout_changed_;
  Listener<wlr_output_power_v1_set_mode_event> power_set_mode_;
  Listener<wlr_gamma_control_manager_v1_set_gamma_event> set_gamma_;
  Listener<wlr_keyboard_shortcuts_inhibitor_v1> new_shortcuts_inhibitor_;
  Listener<wlr_idle_inhibitor_v1> new_idle_inhibitor_;
  Listener<wlr_xdg_toplevel_decoration_v1> new_decoration_;
  Listener<wlr_xdg_system_bell_v1_ring_event> bell_;
  Listener<wlr_xdg_toplevel_icon_manager_v1_set_icon_event> set_icon_;
};

}  // namespace baton
