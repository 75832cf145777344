// baton's command line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backend/backend_factory.hpp"
#include "renderer/renderer_factory.hpp"
#include "util/result.hpp"

namespace baton {

enum class XwaylandMode { lazy, eager, off };
enum class CadenceMode { automatic, damage, fixed };
enum class TearingPolicy { off, fullscreen };
/// adaptive_sync: VRR never, always (where the output can), or while a
/// fullscreen surface plays a game (see compositor/output/vrr_policy.hpp).
enum class AdaptiveSyncMode { off, on, game };

/// render_deadline: when an output with a real vblank starts a frame. auto:
/// predicted render time + margin before vblank; off: at once after the
/// previous flip (wlroots' own loop; kept for comparison); fixed: a lead
/// given in milliseconds.
struct RenderDeadline {
  enum class Mode { automatic, off, fixed };
  Mode mode = Mode::automatic;
  int64_t fixed_ns = 0;  // Mode::fixed
  friend bool operator==(const RenderDeadline&, const RenderDeadline&) = default;
};

struct Options {
  std::vector<std::string> startup_commands;
  bool exit_with_session = false;
  BackendChoice backend = BackendChoice::automatic;
  RendererChoice renderer = RendererChoice::automatic;
  /// --vulkan-device: a device index or part of its name (default: chosen by baton).
  std::optional<std::string> vulkan_device;
  CompositingChoice compositing = CompositingChoice::automatic;
  /// Buffers per output swapchain of the Vulkan renderer (unset: the
  /// config file's, else 3).
  std::optional<int> swapchain_slots;
  OutputSize headless_size;
  int outputs = 1;
  std::optional<std::string> screenshot_path;
  /// --readiness-gate off: latch commits once their acquire fence exists,
  /// as wlroots does (for comparisons: every output waits for the slowest).
  bool readiness_gate = true;
  /// Chrome/Perfetto trace JSON of every frame's fences (--trace).
  std::optional<std::string> trace_path;
  bool exit_after_screenshot = false;
  /// How long after the first client window maps the screenshot is taken.
  int screenshot_delay_ms = 300;
  std::optional<std::string> config_path;
  /// --drm-device: a DRM node for linux-drm-syncobj-v1 when the backend and
  /// renderer have none.
  std::optional<std::string> drm_device;
  /// Offer linux-drm-syncobj-v1 on that device even though this Server
  /// advertises no linux-dmabuf-v1 of its own: for the protocol fuzzer,
  /// which offers its own dma-buf global. No command-line option sets it.
  bool syncobj_without_own_dmabuf = false;
  /// Listen on this socket name instead of the first free wayland-N.
  std::optional<std::string> socket_name;
  bool debug = false;
  /// --session: started as a desktop session (baton.desktop): the log also
  /// goes to $XDG_STATE_HOME/baton/log, where a crash is reported too.
  bool session = false;
  /// X11 clients: start Xwayland on the first X11 connection, at start-up, or never.
  XwaylandMode xwayland = XwaylandMode::lazy;
  // Games: set on the command line these win over the config file, which
  // wins over the defaults (automatic cadence, 30 fps, tearing for fullscreen).
  /// Outputs render on damage, at a fixed cadence, or pick per fullscreen surface.
  std::optional<CadenceMode> cadence;
  /// A fullscreen surface committing faster than this is treated as a game.
  std::optional<int> game_fps;
  /// Whether a fullscreen surface's async presentation hint is honoured.
  std::optional<TearingPolicy> tearing;
  /// --render-deadline: wins over the config file's per-output setting.
  std::optional<RenderDeadline> render_deadline;
  /// Solid background colour, 0xRRGGBB.
  uint32_t background = 0x292e38;
  /// --background was given: it wins over the config file's.
  bool background_set = false;
};

struct ParsedCommandLine {
  enum class Action { run, help, version };
  Action action = Action::run;
  Options options;
};

/// An error names the argument and what is wrong with it.
[[nodiscard]] Result<ParsedCommandLine> parse_command_line(
    const std::vector<std::string_view>& args);
[[nodiscard]] std::string usage_text(std::string_view program);
[[nodiscard]] std::optional<OutputSize> parse_output_size(std::string_view text);
/// "auto", "off" or milliseconds (0.1 .. 100) as a RenderDeadline.
[[nodiscard]] std::optional<RenderDeadline> parse_render_deadline(std::string_view text);
/// "#rrggbb" or "rrggbb" to 0xRRGGBB.
[[nodiscard]] std::optional<uint32_t> parse_colour(std::string_view text);

}  // namespace baton
