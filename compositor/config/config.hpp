// baton's configuration file: what it says, parsed from TOML.
//
// Parsing never stops at the first problem: every bad line becomes a
// ConfigError (file, line, reason) and everything else still applies.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compositor/config/options.hpp"
#include "util/result.hpp"

namespace baton {

enum class ActionKind {
  exec,
  close,
  focus_next,
  focus_prev,
  workspace,
  move_to_workspace,
  fullscreen,
  maximize,
  move,    // by (dx, dy)
  resize,  // by (dx, dy) in width and height
  exit,
  reload,
};

struct Action {
  ActionKind kind = ActionKind::exec;
  std::string command;  // exec
  int number = 0;       // workspace, move_to_workspace (1..10)
  int dx = 0, dy = 0;   // move, resize
};

struct KeyBinding {
  uint32_t modifiers = 0;  // WLR_MODIFIER_* bits
  uint32_t keysym = 0;     // lower-case xkb keysym
  Action action;
  std::string text;  // as written, for logs
};

struct OutputConfig {
  std::string name;  // connector name, or "*" for every output
  std::optional<bool> enabled;
  std::optional<std::pair<int, int>> mode;  // width, height
  std::optional<int> refresh_mhz;
  std::optional<double> scale;
  std::optional<int> transform;  // enum wl_output_transform
  std::optional<std::pair<int, int>> position;
  std::optional<AdaptiveSyncMode> adaptive_sync;
  /// Under VRR, frames no faster than this (a frame limiter); unset: the
  /// output's fastest refresh.
  std::optional<int> max_fps;
  /// Under VRR, repeat the last frame before the panel would refresh on its
  /// own below its range (false: leave that to the panel or its driver).
  std::optional<bool> low_framerate_compensation;
  /// Frame cadence on this output (games).
  std::optional<CadenceMode> cadence;
  /// False: never tear on this output, whatever a client asks.
  std::optional<bool> tearing;
  /// When this output starts a frame before vblank (see RenderDeadline).
  std::optional<RenderDeadline> render_deadline;
  /// True: not a desktop output but one offered to clients for DRM lease
  /// (VR headsets that lack the non-desktop property; outputs kept apart).
  std::optional<bool> leasable;
};

/// [games]: how fullscreen games are presented.
struct GamesConfig {
  std::optional<int> game_fps;
  std::optional<TearingPolicy> tearing;
  /// app_ids (X11: WM_CLASS) whose tearing requests are never honoured.
  std::vector<std::string> no_tearing_apps;
};

struct InputConfig {
  std::string type;  // "keyboard", "pointer", "touchpad", "touch", "tablet" or "" (any)
  std::string name;  // device name, or "" (any)
  std::optional<std::string> xkb_rules, xkb_model, xkb_layout, xkb_variant, xkb_options;
  std::optional<int> repeat_rate, repeat_delay;
  std::optional<double> accel;  // -1..1
  enum class AccelProfile { flat, adaptive };
  std::optional<AccelProfile> accel_profile;
  std::optional<bool> natural_scroll;
  std::optional<bool> tap;
  /// Touchscreens and tablets: the output (connector name) the device
  /// covers; unset, it covers the whole layout.
  std::optional<std::string> map_to_output;
};

struct ConfigError {
  std::string file;
  int line = 0;
  std::string reason;
  [[nodiscard]] std::string to_string() const;
};

struct Config {
  std::vector<KeyBinding> bindings;
  std::vector<OutputConfig> outputs;
  std::vector<InputConfig> inputs;
  std::vector<std::string> startup;
  std::optional<uint32_t> background;  // 0xRRGGBB
  RendererChoice renderer = RendererChoice::automatic;
  int swapchain_slots = 3;
  GamesConfig games;
  uint32_t focused_colour = 0x4c7899;
  uint32_t unfocused_colour = 0x333333;
  uint32_t title_colour = 0xffffff;
  /// Title bar of a window that asked for focus and did not get it.
  uint32_t urgent_colour = 0x900000;
  /// How long an xdg-activation token may take focus after it was made.
  int activation_timeout_ms = 30'000;

  /// Inputs matching a device, least specific first (type, then name).
  [[nodiscard]] std::vector<const InputConfig*> inputs_for(std::string_view type,
                                                           std::string_view name) const;
  /// Outputs matching a connector: "*" first, then the named one.
  [[nodiscard]] std::vector<const OutputConfig*> outputs_for(std::string_view name) const;
};

struct ParsedConfig {
  Config config;
  std::vector<ConfigError> errors;
};

/// The bindings baton has when the file has no [keybindings] table.
std::vector<KeyBinding> default_bindings();
/// Parses `text` as the contents of `file_name`.
ParsedConfig parse_config(std::string_view text, const std::string& file_name);
/// Reads and parses `path`; an unreadable file is one error at line 0.
ParsedConfig load_config(const std::string& path);
/// $XDG_CONFIG_HOME/baton/config, else ~/.config/baton/config.
std::string default_config_path();
/// Modifiers and the (lower-case) keysym of a key combination.
struct KeyCombo {
  uint32_t modifiers = 0;
  uint32_t keysym = 0;
};
/// "Super+Shift+Return" into modifiers and keysym; an Error whose reason
/// names the unknown part.
[[nodiscard]] Result<KeyCombo> parse_key_combo(std::string_view text);
/// "exec foot", "workspace 3", "move left 20", ...; an Error with the reason.
[[nodiscard]] Result<Action> parse_action(std::string_view text);

}  // namespace baton
